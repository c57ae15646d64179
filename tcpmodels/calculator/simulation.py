"""Running the simulator on a scenario, or on a printed RED setting, with the formula's prediction beside it."""

import dataclasses
import math
import os

from .. import droptail, sim, units
from .._results import Result
from ..scenario_file import load_scenario
from .link import Link, link
from .predictions import DEFAULT_MODEL, SENDERS, predict

__all__ = ["CHECK_DURATION", "CHECK_WARMUP", "BYTES_PER_FLOW", "Simulation", "simulate", "red_scenario",
           "memory_needed", "droptail_prediction"]

#: Simulated time of the check of a printed RED setting [s] (``tcpmodels red --check``), of which the
#: first :data:`CHECK_WARMUP` is not measured.  On the thesis' standard link (300 flows, 2 % target,
#: 1500-byte packets) a 200 s run measured after 10 % still carries the start-up transient (2.25 %
#: loss against 2.06 % predicted); measured after 25 % it gives 2.056 %, as does a 400 s run.
CHECK_DURATION = 200.0
#: Share of the check's duration spent in warm-up.
CHECK_WARMUP = 0.25
#: Bytes of simulator state per flow that every run allocates at least: some thirty per-flow arrays
#: of 8 bytes, plus the per-flow goodput of the result.  The ACK ring comes on top.
BYTES_PER_FLOW = 300


def memory_needed(scenario):
    """A lower bound on the memory a simulation of `scenario` allocates [bytes].

    Parameters
    ----------
    scenario : tcpmodels.sim.Scenario

    Returns
    -------
    float
        :data:`BYTES_PER_FLOW` per flow, plus 8 bytes per recorded value of the
        time series when ``trace`` is set.
    """
    need = BYTES_PER_FLOW * float(scenario.n_flows)
    if scenario.trace:
        need += 8.0 * (scenario.duration / scenario.trace_interval) * (8 + scenario.trace_flows)
    return need


def _refuse_impossible(scenario):
    """ValueError before any work when the run cannot fit in this machine's memory."""
    try:
        have = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not a POSIX system: no figure to compare with
        return
    need = memory_needed(scenario)
    if need > have:
        raise ValueError(f"n_flows = {scenario.n_flows} (duration {scenario.duration:g} s, trace "
                         f"{str(scenario.trace).lower()}) needs at least {need / 2**30:.3g} GiB; this machine "
                         f"has {have / 2**30:.3g} GiB")


def red_scenario(setting, *, sender=None, duration=CHECK_DURATION, seed=1):
    """The simulator scenario of a printed RED setting: thresholds, max_p, weight, limit, ECN, gentle as printed.

    With ``adaptive``, max_p is the one adaptive RED settles at (the simulator has none).

    Parameters
    ----------
    setting : REDSetting
        From :func:`tcpmodels.calculator.red_setting`.
    sender : {"newreno", "reno", "tahoe"}, optional
        The sender the setting's predictions assume, by default.
    duration : float, optional
        Simulated time [s]; the first :data:`CHECK_WARMUP` of it is warm-up.
    seed : int, optional

    Returns
    -------
    tcpmodels.sim.Scenario
    """
    classes = {"newreno": sim.NewReno, "reno": sim.Reno, "tahoe": sim.Tahoe}
    sender_cls = classes[sender or setting.sender]
    lk, tc = setting.link, setting.tc
    max_p = tc.probability if setting.adapted_max_p is None else setting.adapted_max_p   # no adaptive RED in sim
    queue = sim.RED(min_th=tc.min / tc.avpkt, max_th=tc.max / tc.avpkt, max_p=max_p, weight=tc.weight,
                    buffer=tc.limit // tc.avpkt, ecn=setting.ecn, gentle=setting.gentle)
    return sim.Scenario(n_flows=setting.n_flows, bandwidth=lk.bandwidth, rtt=lk.rtt, packet_size=lk.packet_size,
                        queue=queue, sender=sender_cls(ecn=setting.ecn), duration=float(duration),
                        warmup=CHECK_WARMUP * float(duration), seed=seed)
@dataclasses.dataclass(frozen=True)
class Simulation(Result):
    """A simulated scenario beside the formula's prediction for it.

    Attributes
    ----------
    scenario : tcpmodels.sim.Scenario
    result : tcpmodels.sim.SimResult
    link : Link
    model : str or None
        What predicts the run: ``"P3"`` (etc.) for RED (gentle and ECN too),
        ``"P3 (droptail)"`` for drop-tail, None for other queues (no closed form here).
    predicted_loss : float or None
        Predicted loss rate; with ECN drops plus marks, as the simulator's ``loss_rate`` counts them.
    prediction : Prediction or tcpmodels.droptail.Equilibrium or None
        The full prediction: RED's (queue, delay, time-outs, window), or
        drop-tail P3's at the scenario's senders' limits (with the flow that
        escapes the overflows, ``escaping_window``, and ``jain_index``); None
        otherwise.
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
        With the RED equilibrium (:data:`DEFAULT_MODEL`, gentle and ECN as the
        queue has them) predicted for a RED queue and :func:`tcpmodels.droptail.equilibrium`
        (P3, the scenario's sender, window cap and access rate) for drop-tail,
        both for the senders the models know (:data:`SENDERS`).
    """
    if not isinstance(scenario, sim.Scenario):
        scenario = load_scenario(scenario)
    if trace is not None:
        scenario = dataclasses.replace(scenario, trace=bool(trace))
    _refuse_impossible(scenario)
    result = sim.simulate(scenario)
    lk = link(scenario.bandwidth, scenario.rtt, scenario.packet_size)
    queue, sender = scenario.queue, type(scenario.sender).__name__.lower()
    model = loss = prediction = None
    if type(queue) is sim.RED and sender in SENDERS:
        prediction = predict(lk, scenario.n_flows, queue.min_th, queue.max_th, queue.max_p, sender=sender,
                             gentle=queue.gentle, ecn=queue.ecn, limit=queue.limit, weight=queue.weight)[0]
        model, loss = DEFAULT_MODEL, prediction.loss_rate + prediction.mark_rate   # as sim counts: drops + marks
    elif type(queue) is sim.DropTail and sender in SENDERS:
        prediction = droptail_prediction(scenario, lk)
        model, loss = "P3 (droptail)", prediction.loss_rate
    return Simulation(scenario, result, lk, model, loss, prediction)


def droptail_prediction(scenario, lk):
    """Drop-tail P3 for a scenario: its sender's time-out spacing and its senders' limits (step 5).

    Parameters
    ----------
    scenario : tcpmodels.sim.Scenario
        With a ``DropTail`` queue and a sender of :data:`SENDERS`.
    lk : Link
        The scenario's link.

    Returns
    -------
    tcpmodels.droptail.Equilibrium
        Scalar fields.  The window cap is the first sender group's
        (``scenario.max_window``); an access rate of ``inf`` is none.
    """
    access = scenario.flow_access_rate
    limits = dict(max_window=scenario.max_window,
                  access_rate=units.capacity(access, lk.packet_size) if math.isfinite(access) else None)
    return droptail.equilibrium(scenario.n_flows, scenario.queue.buffer, rtt=lk.rtt, capacity=lk.capacity,
                                sender=type(scenario.sender).__name__.lower(), **limits)


