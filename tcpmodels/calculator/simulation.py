"""Running the simulator on a scenario, or on a printed RED setting, with the formula's prediction beside it."""

import dataclasses
import math
import os

import numpy as np

from .. import droptail, sim, units
from .._results import Result
from ..scenario_file import load_scenario
from .link import Link, link
from .predictions import DEFAULT_MODEL, SENDERS, predict
from .tc import tc_rate

__all__ = ["CHECK_DURATION", "CHECK_WARMUP", "BYTES_PER_FLOW", "PEAK_WINDOW", "Simulation", "simulate",
           "red_scenario", "memory_needed", "droptail_prediction", "no_prediction", "limits_words",
           "population_words"]

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
#: A flow's peak window over its average: a congestion-avoidance sawtooth uniform on [W/2, W] averages
#: 3/4 W (the shape drop-tail P3's step 3 takes).  Random drop's P3 has no senders' limits, so it predicts
#: only where they stay above that peak.
PEAK_WINDOW = 4.0 / 3.0


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
        ``"P3 (droptail)"`` for drop-tail, ``"P3 (random-drop)"`` for random
        drop; None where no model applies (``no_prediction`` says why).
    predicted_loss : float or None
        Predicted loss rate; with ECN drops plus marks, as the simulator's ``loss_rate`` counts them.
    prediction : Prediction or tcpmodels.droptail.Equilibrium or None
        The full prediction: RED's (queue, delay, time-outs, window), or
        drop-tail P3's at the scenario's senders' limits (with the flow that
        escapes the overflows, ``escaping_window``, and ``jain_index``), or
        random drop's P3 (no senders' limits); None otherwise.
    no_prediction : str or None
        Why there is no prediction (:func:`no_prediction`); None where there is one.
    """

    scenario: object
    result: object
    link: Link
    model: object
    predicted_loss: object
    prediction: object
    no_prediction: object



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
        for drop-tail (P3, the scenario's sender, window cap and access rate)
        and random drop (P3 without the senders' limits, where they stay
        above the flows' peak window), for long-lived flows of one sender the
        models know (:data:`SENDERS`); otherwise ``no_prediction`` says why
        there is none.
    """
    if not isinstance(scenario, sim.Scenario):
        scenario = load_scenario(scenario)
    if trace is not None:
        scenario = dataclasses.replace(scenario, trace=bool(trace))
    _refuse_impossible(scenario)
    result = sim.simulate(scenario)
    lk = link(scenario.bandwidth, scenario.mean_rtt, scenario.packet_size)
    queue, sender = scenario.queue, type(scenario.sender).__name__.lower()
    model = loss = prediction = None
    why = no_prediction(scenario)
    if why is None and type(queue) is sim.RED:
        prediction = predict(lk, scenario.n_flows, queue.min_th, queue.max_th, queue.max_p, sender=sender,
                             gentle=queue.gentle, ecn=queue.ecn, limit=queue.limit, weight=queue.weight)[0]
        model, loss = DEFAULT_MODEL, prediction.loss_rate + prediction.mark_rate   # as sim counts: drops + marks
    elif why is None:
        prediction = droptail_prediction(scenario, lk)
        why = _capped_windows(scenario, lk, prediction) if type(queue) is sim.RandomDrop else None
        if why is None:
            model, loss = f"P3 ({'random-drop' if type(queue) is sim.RandomDrop else 'droptail'})", prediction.loss_rate
        else:
            prediction = None
    return Simulation(scenario, result, lk, model, loss, prediction, why)


def no_prediction(scenario):
    """Why no closed-form model predicts `scenario`, in words, or None when one does.

    Parameters
    ----------
    scenario : tcpmodels.sim.Scenario

    Returns
    -------
    str or None
        The first of: a queue other than RED, DropTail or RandomDrop; sender
        groups that differ (the models take one sender for every flow); a
        sender other than :data:`SENDERS`; per-flow or per-group RTTs (the
        models take one round trip); transfers that end (the models are for
        long-lived flows); losses on the way to the bottleneck (``link_loss``).
    """
    queue, groups = type(scenario.queue), scenario.groups
    if queue not in (sim.RED, sim.DropTail, sim.RandomDrop):
        return f"no closed form here for a {queue.__name__} queue (the models know RED, DropTail and RandomDrop)"
    if any(spec != groups[0][1] for _, spec in groups):
        return (f"the sender groups differ ({_group_words(groups)}): the models take one sender for every flow, and "
                "a population that mixes them is none of them")
    sender = type(scenario.sender).__name__
    if sender.lower() not in SENDERS:
        return f"no closed form here for {sender} senders (the models know Tahoe, Reno and NewReno)"
    if np.ndim(scenario.rtt):
        return (f"the flows' round trips are given one by one ({min(scenario.rtt):g}-{max(scenario.rtt):g} s): the "
                "models take one round trip")
    ending = [type(w).__name__ for _, w in scenario.workloads if not isinstance(w, sim.LongLived)]
    if ending:
        return f"{ending[0]} flows end: the models are for long-lived flows"
    if scenario.link_loss:
        return f"link_loss {scenario.link_loss:g}: the models have no losses outside the bottleneck queue"
    return None


def _group_words(groups):
    """``10 NewReno, 5 Tahoe``; with the settings that differ where the classes are the same."""
    first = groups[0][1]
    differ = [f.name for f in dataclasses.fields(first)
              if all(type(spec) is type(first) for _, spec in groups)
              and any(getattr(spec, f.name) != getattr(first, f.name) for _, spec in groups)]
    return ", ".join(f"{count} {type(spec).__name__}" + "".join(f" {name} {getattr(spec, name)}" for name in differ)
                     for count, spec in groups)


def _capped_windows(scenario, lk, e):
    """Why random drop's P3 does not apply: the senders' limits cap the flows below their peak window, or None."""
    access = units.capacity(scenario.flow_access_rate, lk.packet_size)
    reach = min(scenario.max_window, access * (lk.rtt + e.queue / lk.capacity))
    peak = PEAK_WINDOW * e.window
    if reach >= peak:
        return None
    return (f"the senders' limits ({limits_words(scenario)}) hold a flow to {reach:.0f} packets, below the "
            f"{peak:.0f} at the peak of random drop's predicted window ({PEAK_WINDOW:.3g} x {e.window:.1f}), and "
            "its model has no senders' limits: random drop takes its drops from the queued packets, so no flow "
            "escapes the overflows at its limit (RFC 2309) as in drop-tail's")


def population_words(scenario):
    """``300 Tahoe flows``, or ``10 flows (5 NewReno, 5 Tahoe)`` where the sender groups differ.

    Parameters
    ----------
    scenario : tcpmodels.sim.Scenario

    Returns
    -------
    str
    """
    groups = scenario.groups
    if all(spec == groups[0][1] for _, spec in groups):
        return f"{scenario.n_flows} {type(scenario.sender).__name__} flows"
    return f"{scenario.n_flows} flows ({_group_words(groups)})"


def limits_words(scenario):
    """``window 113 packets, access links 10mbit``: a scenario's (first group's) senders' limits in words.

    Parameters
    ----------
    scenario : tcpmodels.sim.Scenario

    Returns
    -------
    str
        The access links as tc writes their rate, or ``none`` where they are infinitely fast.
    """
    access = scenario.flow_access_rate
    return (f"window {scenario.max_window} packets, access links "
            f"{tc_rate(access) if math.isfinite(access) else 'none'}")


def droptail_prediction(scenario, lk):
    """Drop-tail P3 for a scenario: its sender's time-out spacing and its senders' limits (step 5).

    A ``RandomDrop`` queue gets random drop's P3 without the senders' limits,
    as :func:`tcpmodels.calculator.droptail_sizing` refuses them with random
    drop: it takes its drops from the queued packets, so no flow escapes the
    overflows at its limit.

    Parameters
    ----------
    scenario : tcpmodels.sim.Scenario
        With a ``DropTail`` or ``RandomDrop`` queue and a sender of :data:`SENDERS`.
    lk : Link
        The scenario's link.

    Returns
    -------
    tcpmodels.droptail.Equilibrium
        Scalar fields.  The window cap is the first sender group's
        (``scenario.max_window``); an access rate of ``inf`` is none.
    """
    sender = type(scenario.sender).__name__.lower()
    if type(scenario.queue) is sim.RandomDrop:
        return droptail.equilibrium(scenario.n_flows, scenario.queue.buffer, rtt=lk.rtt, capacity=lk.capacity,
                                    sender=sender, policy="random-drop")
    access = scenario.flow_access_rate
    limits = dict(max_window=scenario.max_window,
                  access_rate=units.capacity(access, lk.packet_size) if math.isfinite(access) else None)
    return droptail.equilibrium(scenario.n_flows, scenario.queue.buffer, rtt=lk.rtt, capacity=lk.capacity,
                                sender=sender, **limits)


