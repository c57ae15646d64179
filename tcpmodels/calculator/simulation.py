"""Running the simulator on a scenario and setting the formula's prediction beside the result."""

import dataclasses

from .. import droptail, sim
from .._results import Result
from ..scenario_file import load_scenario
from .link import Link, link
from .predictions import DEFAULT_MODEL, SENDERS, predict

__all__ = ["Simulation", "simulate"]
@dataclasses.dataclass(frozen=True)
class Simulation(Result):
    """A simulated scenario beside the formula's prediction for it.

    Attributes
    ----------
    scenario : tcpmodels.sim.Scenario
    result : tcpmodels.sim.SimResult
    link : Link
    model : str or None
        What predicts the run: ``"P3"`` (etc.) for RED, ``"Eq. 5.6"`` for
        drop-tail, None for other queues (no closed form here).
    predicted_loss : float or None
        Predicted loss rate.
    prediction : Prediction or None
        The full RED prediction (queue, delay, time-outs, window); None otherwise.
    """

    scenario: object
    result: object
    link: Link
    model: object
    predicted_loss: object
    prediction: object



def simulate(scenario, *, trace=None):
    """Run the fluid simulator and set the formula's prediction beside its result.

    Parameters
    ----------
    scenario : tcpmodels.sim.Scenario or str or os.PathLike
        A scenario, or a scenario file for :func:`load_scenario`.
    trace : bool, optional
        Override the scenario's ``trace`` (time series for plots).

    Returns
    -------
    Simulation
        With the RED equilibrium (:data:`DEFAULT_MODEL`) predicted for a plain
        RED queue and Eq. 5.6 (packets on the wire counted) for drop-tail.
    """
    if not isinstance(scenario, sim.Scenario):
        scenario = load_scenario(scenario)
    if trace is not None:
        scenario = dataclasses.replace(scenario, trace=bool(trace))
    result = sim.simulate(scenario)
    lk = link(scenario.bandwidth, scenario.rtt, scenario.packet_size)
    queue, sender = scenario.queue, type(scenario.sender).__name__.lower()
    model = loss = prediction = None
    if type(queue) is sim.RED and not queue.gentle and sender in SENDERS:
        prediction = predict(lk, scenario.n_flows, queue.min_th, queue.max_th, queue.max_p, sender=sender)[0]
        model, loss = DEFAULT_MODEL, prediction.loss_rate
    elif type(queue) is sim.DropTail:
        model, loss = "Eq. 5.6", float(droptail.loss_rate(scenario.n_flows, queue.buffer, bdp=lk.bdp))
    return Simulation(scenario, result, lk, model, loss, prediction)


