"""Sizing: RED, FPQ and drop-tail settings for a link and flow count, and the worked example.

Chooses inputs for the models (Morris 1999, section 5.3.4 for RED, Fig. 6.1-6.4
for FPQ, Eq. 5.6-5.7 for drop-tail), rounds them to settable values and joins
the predictions (:mod:`.predictions`) and renderings (:mod:`.tc`, :mod:`.ns3`).

References
----------
R. Morris, "Scalable TCP Congestion Control", PhD thesis, Harvard, 1999.
G. Appenzeller, I. Keslassy, N. McKeown, "Sizing router buffers", SIGCOMM 2004.
"""

import dataclasses
import math
import warnings

import numpy as np

from .. import _checks, droptail, fpq, red, units
from .._results import Result
from . import kernel
from .link import DEFAULT_MIN_TH, DEFAULT_PACKET_SIZE, MAX_FLOWS, THESIS_PACKET_SIZE, Link, flow_count, link
from .ns3 import Ns3Red, ns3_red
from .predictions import (
    _DELAY,
    _FORCED,
    _IDLE,
    _OK,
    _TIMEOUTS,
    DEFAULT_MODEL,
    DEFAULT_SENDER,
    MAX_DELAY,
    MAX_LOSS,
    SWEEP_FACTORS,
    Prediction,
    predict,
)
from .stability import BELOW_MARGIN, DEFAULT_MARGIN, UNSTABLE, Verdict, remedies, verdict, verdicts
from .tc import LIMIT_FACTOR, TcRed, check_dev, max_threshold, min_probability, tc_red

__all__ = ["T_CLEAR_MIN", "BITS_PER_FLOW", "MAX_BITS", "MAX_WINDOW_BYTES", "REDSetting", "FPQRow", "FPQSetting",
           "BufferRule", "DropTailSizing", "Example", "red_setting", "fpq_setting", "droptail_sizing", "example"]

#: Smallest FPQ counting interval recommended [s] (Morris 1999, sections 6.4-6.5 use 4 s).
T_CLEAR_MIN = 4.0
#: Bit-vector bits per flow: with v_max >= 5 f the raw count of ones is within 10 % of f (section 6.1).
BITS_PER_FLOW = 5
#: Largest bit vector fpq_setting takes [bits]: BITS_PER_FLOW for the most flows the calculator sizes for.
MAX_BITS = BITS_PER_FLOW * MAX_FLOWS
#: Largest TCP window [bytes]: 2**16 scaled by 2**14, RFC 7323's limit.
MAX_WINDOW_BYTES = 2**30


_LIMITATIONS_RED = (
    "tc's RED has no gentle mode: once the average queue reaches max it drops every packet "
    "(the ns-3 lines set Gentle=false to match).",
    "FPQ needs a live flow count, which tc does not keep: a fixed tc line is right only near "
    "the flow count it was computed for (see `tcpmodels fpq`).",
)



@dataclasses.dataclass(frozen=True)
class REDSetting(Result):
    """A RED setting for a link and flow count, its predicted behaviour and its renderings.

    Attributes
    ----------
    link : Link
    n_flows : int
        Design flow count.
    rule : str
        ``"target-loss"`` (Morris section 5.3.4: max_th = 3/2 n pif(l, r),
        max_p = 3/4 l) or ``"fixed-buffer"`` (max_th = buffer,
        max_p = 0.81 n^2 / max_th^2).
    target_loss : float or None
        Target loss rate for the target-loss rule.
    min_th, max_th : float
        Thresholds [packets] as printed: max_th rounded up to a whole packet,
        and capped where the kernel cannot hold the rule's value (see `notes`).
    max_p : float
        Drop probability at max_th, to the 4 significant figures printed.
    adapted_max_p : float or None
        With `adaptive`, the max_p adaptive RED settles at for `n_flows` (the
        predictions use it); None otherwise.
    weight : float
        EWMA weight 2**-Wlog of the printed tc line (the ns-3 lines and the
        simulation check use the same).
    ecn, adaptive : bool
        The tc flags ``ecn harddrop`` and ``adaptive``.
    gentle : bool
        Gentle RED (ns-3 ``Gentle``; the predictions follow it, tc has none).
    model : str
        Equilibrium model of :func:`tcpmodels.red.equilibrium` used for the predictions.
    sender : str
        TCP sender the predictions assume.
    prediction : Prediction
        At the design flow count.
    sweep : tuple of Prediction
        At :data:`SWEEP_FACTORS` times the design flow count.
    ok_range : tuple of int or None
        Smallest and largest flow count in `sweep` whose status is ``"ok"``
        (None when none is).
    stability_margin : float
        Gain margin the stability verdicts require.
    remedies : tuple of Remedy
        Where the design point is unstable or below the margin: the nearest
        max_p and weight that meet it, with their cost.
    tc : TcRed
    ns3 : Ns3Red
    limitations : tuple of str
        What of the thesis' model tc cannot express.
    notes : tuple of str
        What the predictions assume, and where the printed setting differs
        from the rule's.
    """

    link: Link
    n_flows: int
    rule: str
    target_loss: object
    min_th: float
    max_th: float
    max_p: float
    adapted_max_p: object
    weight: float
    ecn: bool
    adaptive: bool
    gentle: bool
    model: str
    sender: str
    prediction: Prediction
    sweep: tuple
    ok_range: object
    stability_margin: float
    remedies: tuple
    tc: TcRed
    ns3: Ns3Red
    limitations: tuple
    notes: tuple


@dataclasses.dataclass(frozen=True)
class FPQRow(Result):
    """FPQ targets (Fig. 6.2) and RED settings (Fig. 6.4) at one flow count.

    Attributes
    ----------
    n_flows : int
    queue : float
        Target queue [packets].
    loss_rate : float
        Target loss rate.
    min_th, max_th, max_p : float
        RED settings FPQ applies (min_th [packets], max_th = 2 queue [packets], max_p = loss).
    delay : float
        Queueing delay at the target queue [s].
    queue_per_flow : float
        [packets].
    stability : str
        Verdict of the linearized loop at this row's setting and the tc
        line's weight (:class:`Prediction`'s values).
    gain_margin, phase_margin, period : float
        [-], [deg], [s] (NaN without a verdict).
    """

    n_flows: int
    queue: float
    loss_rate: float
    min_th: float
    max_th: float
    max_p: float
    delay: float
    queue_per_flow: float
    stability: str
    gain_margin: float
    phase_margin: float
    period: float


@dataclasses.dataclass(frozen=True)
class FPQSetting(Result):
    """FPQ configuration for flow counts up to a maximum.

    Attributes
    ----------
    link : Link
    max_flows : int
        Largest flow count the router must support.
    ppf : float
        Target packets per flow.
    max_loss : float
        Target loss rate cap.
    bits : int
        Bit-vector size v_max [bits].
    t_clear : float
        Counting interval [s].
    bit_vector_bytes : int
        Memory for the bit vector [bytes].
    buffer : int
        Queue memory needed: max_th at ``max_flows`` [packets].
    buffer_bytes : int
        The same [bytes].
    rows : tuple of FPQRow
        Targets at flow counts 1, 2, 5, 10, ... up to ``max_flows``.
    n_flows : int
        Flow count the fixed tc / ns-3 setting is computed for.
    verdict : Verdict
        Stability of the printed (frozen) setting at `n_flows`.
    stability_margin : float
        Gain margin the verdicts require.
    remedies : tuple of Remedy
        Where the frozen setting is unstable or below the margin at `n_flows`:
        the nearest max_p and weight that meet it.
    tc : TcRed
    ns3 : Ns3Red
    limitations : tuple of str
    """

    link: Link
    max_flows: int
    ppf: float
    max_loss: float
    bits: int
    t_clear: float
    bit_vector_bytes: int
    buffer: int
    buffer_bytes: int
    rows: tuple
    n_flows: int
    verdict: Verdict
    stability_margin: float
    remedies: tuple
    tc: TcRed
    ns3: Ns3Red
    limitations: tuple


@dataclasses.dataclass(frozen=True)
class BufferRule(Result):
    """One drop-tail buffer choice and what it gives N flows.

    Attributes
    ----------
    rule : str
        ``"given"``, ``"target-loss"`` (Eq. 5.6/5.7 solved for the buffer),
        ``"target-delay"`` (the buffer a full queue drains in the given time),
        ``"bdp"`` (one bandwidth-delay product) or ``"bdp/sqrt(n)"``
        (Appenzeller et al. 2004).
    buffer : float
        [packets].
    buffer_bytes : float
        [bytes].
    max_delay : float
        Queueing delay of a full buffer [s].
    loss_rate : float
        Predicted loss (:func:`tcpmodels.droptail.equilibrium`).
    queue : float
        Predicted average queue [packets].
    delay : float
        Average queueing delay, queue / capacity [s].
    timeouts_per_packet : float
        Predicted retransmission time-outs per packet sent.
    queue_per_flow : float
        Buffer per flow [packets].
    status : str
        ``"ok"``, or where the prediction is out of its depth: ``"idle link"``
        (one overflow's window drop empties the buffer; the model's warning),
        ``"time-outs"`` (loss above 3 %, or a model warning about time-outs),
        ``"long delay"`` (average queueing delay above :data:`MAX_DELAY`).
    escaping_window : float
        Packets held by the one flow P3 predicts to escape the overflows at
        the senders' limits (drop-tail's lock-out); 0 where none does
        [packets].
    jain_index : float
        Jain index of the flows' rates that gives; 1 where no flow escapes [-].
    escaping_share : float
        Fraction of the packets sent that the escaping flow sends; 0 where
        none escapes [-].
    """

    rule: str
    buffer: float
    buffer_bytes: float
    max_delay: float
    loss_rate: float
    queue: float
    delay: float
    timeouts_per_packet: float
    queue_per_flow: float
    status: str
    escaping_window: float
    jain_index: float
    escaping_share: float


@dataclasses.dataclass(frozen=True)
class DropTailSizing(Result):
    """Drop-tail (or random-drop) buffers for N flows, three rules side by side.

    Attributes
    ----------
    link : Link
    n_flows : int
    policy : str
        ``"droptail"`` or ``"random-drop"``.
    model : str
        Model of :func:`tcpmodels.droptail.equilibrium` the predictions use.
    target_loss : float or None
    target_delay : float or None
        Queueing delay of the full buffer asked for [s].
    max_window : float or None
        The senders' largest window, as given [packets].
    access_rate : float or None
        The senders' access-link rate, as given [bit/s].
    rules : tuple of BufferRule
        The chosen buffer first (given, for the target loss or for the target
        delay; whole packets), then one BDP, then BDP / sqrt(N).
    pfifo, bfifo : str
        Linux ``tc`` lines for the chosen buffer: in packets and in bytes.
    notes : tuple of str
        What the model said about the rows (its warnings, in full).
    """

    link: Link
    n_flows: int
    policy: str
    model: str
    target_loss: object
    target_delay: object
    max_window: object
    access_rate: object
    rules: tuple
    pfifo: str
    bfifo: str
    notes: tuple


@dataclasses.dataclass(frozen=True)
class Example(Result):
    """The worked example on one link: drop-tail, RED and FPQ for the same flows.

    Attributes
    ----------
    droptail : DropTailSizing
    red : REDSetting
    fpq : FPQRow
        FPQ's targets at the same flow count.
    droptail_without_limits : DropTailSizing or None
        With the senders' limits given, the same drop-tail sizing without
        them, to show their effect; None without limits.
    """

    droptail: DropTailSizing
    red: REDSetting
    fpq: FPQRow
    droptail_without_limits: object



def _renderings(lk, min_th, max_th, max_p, limit, dev, ecn=False, adaptive=False, gentle=False):
    """tc line and matching ns-3 attributes for one RED setting (the bandwidth tc is given in both)."""
    tc = tc_red(min_th, max_th, max_p, lk.packet_size, lk.bandwidth, limit=limit, dev=dev, ecn=ecn,
                adaptive=adaptive)
    ns3 = ns3_red(min_th, max_th, max_p, tc.weight, lk.packet_size, tc.limit / tc.avpkt,
                  units.parse_rate(tc.bandwidth, "bandwidth"), ecn=ecn, adaptive=adaptive, gentle=gentle)
    return tc, ns3


def _printable(max_th, max_p, min_th, lk):
    """(max_th, max_p, notes): max_p as printed (4 significant figures), and a setting tc can hold.

    Where the kernel cannot hold the rule's setting (tc's Plog needs max - min below about
    max_p * 2**31 bytes; fls(max) + Wlog < 32 needs max below 2**30 bytes), the nearest one it can:
    max_th lowered to the largest accepted at this max_p, or max_th kept (below 2**30 bytes) and
    max_p raised to the smallest accepted, whichever changes the setting by the smaller factor.
    """
    max_p, size = float(f"{max_p:.4g}"), int(lk.packet_size)
    lo = int(round(min_th * size))
    top = max_threshold(lo, max_p) // size
    if max_th <= top:
        return max_th, max_p, []
    kept = min(max_th, (2**30 - 1) // size)          # max below 2**30 bytes, then the smallest max_p
    raised = min_probability(lo, int(round(kept * size)))
    options = [(max_th / top, top, max_p)] if top > min_th else []
    if raised < 1 and kept > min_th:
        options.append((max_th / kept * raised / max_p, kept, raised))
    if not options:
        raise ValueError(f"max_th ({max_th:g} packets) with max_p {max_p:.4g} is beyond what Linux's RED can "
                         f"hold, and no nearby setting with max_th above min_th ({min_th:g} packets) is")
    _, new_th, new_p = min(options)
    changed = " and ".join(text for text, differs in ((f"max_th {new_th:g}", new_th != max_th),
                                                     (f"max_p {new_p:.4g}", new_p != max_p)) if differs)
    return new_th, new_p, [
        f"The rule's setting (max_th {max_th:g} packets of {size} bytes, max_p {max_p:.4g}) is more than Linux's "
        "RED can hold (tc's Plog needs max - min below max_p x 2^31 bytes, the kernel's fls(max) + Wlog < 32 "
        f"needs max below 2^30 bytes): every line and prediction here is for {changed}."]


#: Adaptive RED's bounds on max_p (Floyd, Gummadi & Shenker 2001; Linux's MAX_P_MIN, MAX_P_MAX).
ADAPTIVE_MAX_P = (0.01, 0.5)
# Candidate max_p values for the adapted steady state: 1 % apart (a ratio of 1.0098) over the bounds.
_ADAPTIVE_GRID = np.geomspace(*ADAPTIVE_MAX_P, 400)


def _adapted_max_p(lk, n_flows, min_th, max_th, **model):
    """max_p where adaptive RED settles: the average queue in the middle of its target band.

    Adaptive RED (Floyd, Gummadi & Shenker 2001; Linux's ``adaptive``) moves max_p within
    :data:`ADAPTIVE_MAX_P` until the average queue lies between min + 0.4 (max - min) and
    min + 0.6 (max - min).  Per flow count, the candidate whose predicted queue is nearest the
    band's middle; a bound where no candidate reaches the band.
    """
    eq = red.equilibrium(n_flows[:, None], max_th, _ADAPTIVE_GRID[None, :], rtt=lk.rtt, capacity=lk.capacity,
                         min_th=min_th, **model)
    queue = np.broadcast_to(eq.queue, (n_flows.size, _ADAPTIVE_GRID.size))
    return _ADAPTIVE_GRID[np.argmin(np.abs(queue - (min_th + max_th) / 2), axis=1)]


def _assumptions(ecn, gentle, adapted, max_p, n):
    """What the predictions assume about the flags."""
    out = []
    if ecn:
        out.append("ecn: the predictions are P3 with ECN (red.equilibrium(ecn=True)): early decisions mark, "
                   "windows halve at a mark but no time-out follows it; only drops above max (harddrop) are "
                   "losses. Loss is drops, marks are apart; their sum is the congestion signal.")
    if gentle:
        out.append("gentle: the predictions, the ns-3 lines (Gentle=true) and --check are gentle RED (the drop "
                   "probability rises from max_p to 1 between max and 2 max, capped by the limit); Linux's "
                   "RED has no gentle mode, so the tc line drops every arrival above max.")
    if adapted is not None:
        out.append(f"adaptive: tc starts at max_p {max_p:.4g} and moves it every 500 ms within 1-50 % toward an "
                   "average queue between min + 0.4 (max - min) and min + 0.6 (max - min). The predictions are "
                   "for the max_p where it settles (the predicted queue nearest the middle of that band): "
                   f"{adapted:.3g} at {n} flows; the simulator has no adaptive RED, so --check runs that "
                   "max_p fixed.")
    return out


def _stability_notes(here, margin, remedies, adaptive):
    """What the report says when the design point is not stable with the required margin."""
    if here.stability == "no verdict":
        return ["stability: no verdict at the design point: the linearized loop's operating point lies in RED's "
                "forced drops, at min_th (its smallest drop rate already holds the windows; the ramp's slope is "
                "one-sided there) or has windows under 4 packets (time-outs), outside the model."]
    if here.stability in ("stable", "-"):
        return []
    found = "; ".join(f"{r.change} {r.max_p:.4g}" if r.change == "max_p" else f"weight 2^-{r.ewma_log}"
                      for r in remedies)
    return [f"stability: {here.stability} at {here.n_flows} flows (gain margin {here.gain_margin:.2f}, required "
            f"{margin:g}); " + (f"nearest settings that meet it: {found}." if found else
                                f"no {'' if adaptive else 'smaller max_p or '}weight tc can carry meets it"
                                + (" (adaptive RED moves max_p itself)" if adaptive else "")
                                + ": change the thresholds.")]


def red_setting(bandwidth, rtt, n_flows, *, loss_rate=None, buffer=None,
                packet_size=DEFAULT_PACKET_SIZE, min_th=DEFAULT_MIN_TH, model=DEFAULT_MODEL,
                rto=1.0, sender=DEFAULT_SENDER, limit=None, dev="DEV", ecn=False, adaptive=False,
                max_delay=MAX_DELAY, gentle=False, stability_margin=DEFAULT_MARGIN):
    """Choose RED parameters for a link and flow count and predict what they do.

    Give exactly one of `loss_rate` (Morris' section 5.3.4 procedure) or
    `buffer` (the fixed-buffer rule).  The thresholds, max_p and EWMA weight
    of the result are those of the printed tc and ns-3 lines, and the
    predictions are for them.

    Parameters
    ----------
    bandwidth : float
        Link rate [bit/s].
    rtt : float
        Round-trip propagation time [s].
    n_flows : int
        Expected number of simultaneously active long-lived flows.
    loss_rate : float, optional
        Target loss rate in (0, 1): max_th = 3/2 n pif(l, r), max_p = 3/4 l.
    buffer : float, optional
        Fixed max_th [packets] (the memory the router has): max_p = 0.81 n^2 / max_th^2.
    packet_size : int, optional
        [bytes], a whole number.
    min_th : float, optional
        [packets].
    model : str, optional
        Equilibrium model for the predictions (:func:`tcpmodels.red.equilibrium`).
    rto : float, optional
        Length of one retransmission time-out [s].
    sender : {"newreno", "reno", "tahoe"}, optional
        TCP sender the predictions assume (P3 only; P1 and P2 are the thesis' Tahoe).
    limit : float, optional
        tc hard limit [bytes]; :data:`LIMIT_FACTOR` x max by default.
    dev : str, optional
        Interface name for the tc line.
    ecn : bool, optional
        Mark instead of drop (tc ``ecn harddrop``, ns-3 ``UseEcn``).
    adaptive : bool, optional
        tc ``adaptive`` (ns-3 ``AdaptMaxP``); the predictions are for the max_p it settles at.
    max_delay : float, optional
        Queueing delay above which a prediction row is ``"long delay"`` [s].
    gentle : bool, optional
        Gentle RED (ns-3 ``Gentle``; Linux has none): the predictions follow it.
    stability_margin : float, optional
        Gain margin, >= 1, the setting needs to count as stable; below it, the
        result's `remedies` say which max_p or weight would meet it.

    Returns
    -------
    REDSetting

    Raises
    ------
    ValueError
        Neither or both of `loss_rate` and `buffer`; a max_th not above
        `min_th`; a buffer so small for `n_flows` that the rule asks max_p >= 1.

    Warns
    -----
    TCPModelsWarning
        When the target-loss rule cannot reach its target for this flow count.
    """
    if (loss_rate is None) == (buffer is None):
        raise ValueError("give exactly one of loss_rate (target loss) or buffer (fixed max_th)")
    ecn, adaptive, gentle = _checks.flag("ecn", ecn), _checks.flag("adaptive", adaptive), _checks.flag("gentle", gentle)
    n = flow_count("n_flows", n_flows)
    lk = link(bandwidth, rtt, packet_size)
    min_th = float(_checks.nonnegative("min_th", min_th, finite=True))
    if loss_rate is not None:
        _checks.in_range("loss_rate", loss_rate, 0, 1, low_open=True, high_open=True)
        sized = red.size(n, loss_rate, lk.rtt, rto=rto, min_th=min_th)
        max_th, max_p, rule = math.ceil(sized.max_th), float(sized.max_p), "target-loss"
        if not max_th > min_th:
            raise ValueError(f"min_th ({min_th:g} packets) must be below the max_th the rule gives "
                             f"({max_th} packets)")
    else:
        max_th = float(_checks.positive("buffer", buffer, finite=True))
        if not max_th > min_th:
            raise ValueError(f"buffer (max_th, {max_th:g} packets) must be above min_th ({min_th:g} packets)")
        with warnings.catch_warnings():  # max_p >= 1 becomes the error below, not a warning
            warnings.simplefilter("ignore", _checks.TCPModelsWarning)
            max_p, rule = float(red.max_p_for_buffer(n, max_th)), "fixed-buffer"
        if not max_p < 1:
            raise ValueError(f"buffer ({max_th:g} packets) is too small for n_flows = {n}: the rule "
                             f"0.81 N^2/max_th^2 gives max_p = {max_p:.3g} >= 1 (needs more than "
                             f"{math.ceil(0.9 * n)} packets)")
    max_th, max_p, notes = _printable(max_th, max_p, min_th, lk)
    margin = _margin(stability_margin)
    tc, ns3 = _renderings(lk, min_th, max_th, max_p, limit, dev, ecn, adaptive, gentle)
    model = dict(model=model, rto=rto, sender=sender, gentle=bool(gentle), ecn=bool(ecn), limit=tc.limit / tc.avpkt)
    flows = sorted({max(1, int(round(n * f))) for f in SWEEP_FACTORS} | {n})
    steady_p = (_adapted_max_p(lk, np.asarray(flows), min_th, max_th, **model)
                if adaptive else np.full(len(flows), max_p))
    sweep = predict(lk, flows, min_th, max_th, steady_p, max_delay=max_delay, weight=tc.weight, margin=margin,
                    **model)
    here = sweep[flows.index(n)]
    adapted = float(steady_p[flows.index(n)]) if adaptive else None
    if rule == "target-loss" and not 0.5 * loss_rate <= here.loss_rate + here.mark_rate <= 2 * loss_rate:
        _checks.warn_where(True, f"the target-loss rule cannot reach {100 * loss_rate:.3g} % loss with {n} "
                                 f"flows on this link: the setting it gives predicts "
                                 f"{100 * (here.loss_rate + here.mark_rate):.3g} % "
                                 "(size for the flow count you expect at peak, or use --buffer)")
    if here.status in (_FORCED, _TIMEOUTS):  # broken where it was sized for (a long delay shows in the table)
        _checks.warn_where(True, f"at its own design point ({n} flows) the setting's status is '{here.status}' "
                                 f"({100 * here.loss_rate:.3g} % loss, {1000 * here.delay:.0f} ms of queue): "
                                 "see the table of flow counts")
    fixes = (remedies(lk, n, min_th, max_th, float(steady_p[flows.index(n)]), tc.ewma_log, margin=margin,
                      vary_max_p=not adaptive, tc=dict(limit=tc.limit, dev=dev, ecn=ecn, adaptive=adaptive),
                      **model)
             if here.stability in (UNSTABLE, BELOW_MARGIN) else ())
    ok = [p.n_flows for p in sweep if p.status == _OK]
    return REDSetting(lk, n, rule, loss_rate, min_th, float(max_th), max_p, adapted, tc.weight, bool(ecn),
                      bool(adaptive), bool(gentle), model["model"], sender, here, sweep,
                      (ok[0], ok[-1]) if ok else None, margin, fixes, tc, ns3,
                      _LIMITATIONS_RED, tuple(notes + _assumptions(ecn, gentle, adapted, max_p, n)
                                              + _stability_notes(here, margin, fixes, adaptive)))


def _margin(value):
    return float(_checks.in_range("stability_margin", value, 1.0, np.inf, high_open=True))


def _flow_grid(max_flows):
    """1, 2, 5, 10, 20, 50, ... below `max_flows`, then `max_flows` itself."""
    grid = [m * 10**e for e in range(int(math.log10(max_flows)) + 1) for m in (1, 2, 5)]
    return [f for f in grid if f < max_flows] + [max_flows]


def fpq_setting(bandwidth, rtt, max_flows, *, packet_size=DEFAULT_PACKET_SIZE, ppf=5.0, max_loss=0.016,
                n_flows=None, bits=None, t_clear=None, min_th=DEFAULT_MIN_TH, limit=None, dev="DEV",
                stability_margin=DEFAULT_MARGIN):
    """FPQ targets and RED settings for flow counts up to `max_flows`, and how to count them.

    Parameters
    ----------
    bandwidth : float
        Link rate [bit/s].
    rtt : float
        Round-trip propagation time [s].
    max_flows : int
        Most flows the router must support.
    packet_size : float, optional
        [bytes].
    ppf : float, optional
        Target packets per flow (Morris 1999 uses 5, section 7.1), at most
        a flow's largest window, :data:`MAX_WINDOW_BYTES` over `packet_size`.
    max_loss : float, optional
        Cap on the target loss rate (1.6 %, Fig. 6.2).
    n_flows : int, optional
        Flow count for the fixed tc / ns-3 rendering; `max_flows` by default.
    bits : int, optional
        Bit-vector size, at most :data:`MAX_BITS`; :data:`BITS_PER_FLOW` x `max_flows` by default.
    t_clear : float, optional
        Counting interval [s]; by default the larger of :data:`T_CLEAR_MIN` and
        twice the longest RTT (propagation plus queueing at `max_flows`):
        section 6.1 asks for more than the longest RTT, section 6.5 for "more
        than a few seconds".  At least `rtt`.
    min_th : float, optional
        [packets].
    limit : float, optional
        tc hard limit [bytes].
    dev : str, optional
        Interface name for the tc line.
    stability_margin : float, optional
        Gain margin, >= 1, a row needs to count as stable.

    Returns
    -------
    FPQSetting
    """
    top = flow_count("max_flows", max_flows)
    design = top if n_flows is None else flow_count("n_flows", n_flows)
    if design > top:
        raise ValueError(f"n_flows ({design}) must not exceed max_flows ({top})")
    lk = link(bandwidth, rtt, packet_size)
    ppf = _checks.one("ppf", _checks.positive, ppf, finite=True)
    if ppf > MAX_WINDOW_BYTES / lk.packet_size:  # (far beyond, FPQ's loss target underflows: max_p 0)
        raise ValueError(f"ppf must be at most {MAX_WINDOW_BYTES // lk.packet_size:.0f} packets of "
                         f"{lk.packet_size:g} bytes (a flow keeps no more queued than it has in flight, at most 2**30 "
                         f"bytes with RFC 7323's scaling), got {ppf:g}")
    grid = sorted(set(_flow_grid(top)) | {design})
    params = fpq.red_params(np.asarray(grid), lk.bdp, ppf=ppf, max_loss=max_loss, min_th=min_th)
    queue, loss, max_th, max_p = np.broadcast_arrays(params.queue, params.loss_rate, params.max_th,
                                                     params.max_p)
    at = grid.index(design)
    printed_th, printed_p, notes = _printable(math.ceil(max_th[at]), max_p[at], min_th, lk)
    tc, ns3 = _renderings(lk, min_th, printed_th, printed_p, limit, dev)
    margin = _margin(stability_margin)
    loop = verdicts(lk, grid, min_th, max_th, max_p, tc.weight, margin=margin)  # FPQ's settings, tc's weight
    rows = tuple(FPQRow(f, float(queue[i]), float(loss[i]), float(min_th), float(max_th[i]),
                        float(max_p[i]), float(queue[i] / lk.capacity), float(queue[i] / f), str(loop[0][i]),
                        *(float(c[i]) for c in loop[1:]))
                 for i, f in enumerate(grid))
    here = verdict(lk, design, min_th, printed_th, printed_p, tc.weight, margin=margin)   # the printed line
    fixes = (remedies(lk, design, min_th, printed_th, printed_p, tc.ewma_log, margin=margin,
                      tc=dict(limit=tc.limit, dev=dev), limit=tc.limit / tc.avpkt)
             if here.stability in (UNSTABLE, BELOW_MARGIN) else ())
    v_max = int(_checks.whole("bits", bits, minimum=2)) if bits is not None else BITS_PER_FLOW * top
    if v_max > MAX_BITS:
        raise ValueError(f"bits must be at most {MAX_BITS:.0e} ({BITS_PER_FLOW} per flow for {MAX_FLOWS:.0e} "
                         f"flows, the most the calculator sizes for), got {v_max:.3g}")
    top_row = rows[-1]
    if t_clear is None:
        t_clear = max(T_CLEAR_MIN, 2.0 * (lk.rtt + top_row.delay))
    t_clear = float(_checks.positive("t_clear", t_clear, finite=True))
    if t_clear < lk.rtt:  # Morris 1999, section 6.1: longer than the longest round trip
        raise ValueError(f"t_clear must be at least the round trip ({lk.rtt:g} s): a vector cleared faster forgets "
                         f"flows between their packets and cannot count them (Morris 1999, section 6.1), "
                         f"got {t_clear:g}")
    buffer = math.ceil(top_row.max_th)
    if v_max < top:
        _checks.warn_where(True, f"bits ({v_max}) is fewer than max_flows ({top}): over 63 % of the bit vector "
                                 "is set at the peak, Eq. 6.1's count spreads widely, and a full vector says "
                                 f"nothing (Morris 1999, section 6.1; {BITS_PER_FLOW} per flow keeps even the "
                                 "raw count within 10 %)")
    held = tc.limit * 8 / lk.bandwidth
    if held > 1.0:
        notes.append(f"The tc limit ({tc.limit / 2**20:.0f} MiB, {LIMIT_FACTOR} x max) holds {held:.3g} s of "
                     "traffic at the link rate; it only caps bursts above max, so give a smaller --limit if "
                     "the router has less memory.")
    return FPQSetting(lk, top, float(ppf), float(max_loss), v_max, t_clear, math.ceil(v_max / 8),
                      buffer, int(buffer * round(lk.packet_size)), rows, design, here, margin, fixes, tc, ns3,
                      _LIMITATIONS_RED[:1] + (
                          "FPQ needs a live flow count, which tc does not keep: the tc and ns-3 lines "
                          f"freeze FPQ's setting at {design} flows; at other counts use the table.",
                          *notes))


# What a drop-tail model warning means for a row's status.
_WARNING_STATUS = (("idles", _IDLE), ("time-out", _TIMEOUTS), ("10 %", _TIMEOUTS))


def _droptail_rule(lk, n, name, buffer, model):
    """One buffer's prediction; the model's warnings become the row's status and notes, not stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", _checks.TCPModelsWarning)
        e = droptail.equilibrium(n, buffer, rtt=lk.rtt, capacity=lk.capacity, **model)
    said = [str(w.message) for w in caught if issubclass(w.category, _checks.TCPModelsWarning)]
    labels = [label for text in said for key, label in _WARNING_STATUS if key in text]
    labels += [_TIMEOUTS] if e.loss_rate > MAX_LOSS else []
    labels += [_DELAY] if e.queue / lk.capacity > MAX_DELAY else []
    rule = BufferRule(name, float(buffer), float(buffer * lk.packet_size), float(buffer / lk.capacity),
                      float(e.loss_rate), float(e.queue), float(e.queue) / lk.capacity, float(e.timeouts_per_packet),
                      float(buffer / n), labels[0] if labels else _OK,
                      *(float(x) for x in (e.escaping_window, e.jain_index, e.escaping_share)))
    return rule, said


def _buffer_for_loss(lk, n, loss_rate, model):
    """Smallest whole-packet buffer whose predicted loss is at most `loss_rate` (a vectorized search)."""
    top = max(4.0 * float(droptail.queue(n, loss_rate)), 10.0 * lk.bdp, 100.0)   # Eq. 5.6's storage, with room
    with warnings.catch_warnings():  # candidates outside a model's range are only candidates
        warnings.simplefilter("ignore", _checks.TCPModelsWarning)
        low, grid = 0.0, np.unique(np.ceil(np.geomspace(1.0, top, 400)))
        for _ in range(2):  # a 4 % grid, then whole packets (at most 400) inside the step that crosses
            loss = np.broadcast_to(droptail.equilibrium(n, grid, rtt=lk.rtt, capacity=lk.capacity, **model)
                                   .loss_rate, grid.shape)
            if not (loss <= loss_rate).any():
                raise ValueError(f"loss_rate {loss_rate:g} needs more than {grid[-1]:.0f} packets of buffer for "
                                 f"n_flows = {n} on this link")
            i = int(np.argmax(loss <= loss_rate))
            low, high = (grid[i - 1] if i else low), grid[i]
            grid = np.unique(np.ceil(np.linspace(low + 1, high, min(400, int(high - low)))))
    return float(high)


def _senders_limits(lk, max_window, access_rate):
    """The limits given, as :func:`tcpmodels.droptail.equilibrium` takes them (packets, packets/s)."""
    limits = {}
    if max_window is not None:
        limits["max_window"] = float(_checks.positive("max_window", max_window, finite=True))
    if access_rate is not None:
        limits["access_rate"] = units.capacity(float(_checks.positive("access_rate", access_rate, finite=True)),
                                               lk.packet_size)
    return limits


def droptail_sizing(bandwidth, rtt, n_flows, *, loss_rate=None, buffer=None, delay=None,
                    packet_size=DEFAULT_PACKET_SIZE, policy="droptail", dev="DEV", model="P3", sender=DEFAULT_SENDER,
                    rto=1.0, max_window=None, access_rate=None):
    """Drop-tail buffer for N flows by :func:`tcpmodels.droptail.equilibrium` beside the two classic rules.

    Give exactly one of `loss_rate` (solve for the buffer), `delay` (the
    buffer a full queue drains in that time) or `buffer` (predict the loss).
    The model counts the packets on the wire as storage beside the buffer
    (the thesis' Eq. 8.1) and the queueing delay in the round trip.  With
    the senders' limits (`max_window`, `access_rate`) P3 predicts one flow
    escaping the overflows (drop-tail's lock-out, step 5 of
    :mod:`tcpmodels.droptail`), and the buffer for a target loss is solved
    with that model too.

    Parameters
    ----------
    bandwidth : float
        Link rate [bit/s].
    rtt : float
        Round-trip propagation time [s].
    n_flows : int
        Number of long-lived flows.
    loss_rate : float, optional
        Target loss rate in (0, 1).
    buffer : int, optional
        Buffer, a whole number >= 1 [packets].
    delay : float, optional
        Target queueing delay of a full buffer [s].
    packet_size : int, optional
        [bytes].
    policy : {"droptail", "random-drop"}, optional
        Which end of the queue drops.
    dev : str, optional
        Interface name for the tc lines.
    model : {"P3", "P2", "P1", "P3-poisson"}, optional
        Model of :func:`tcpmodels.droptail.equilibrium`: P3 (default, the most
        accurate), P2, P1 (Eq. 5.6/5.7 as published), or P3-poisson (P3
        before its losses per event came from the flows' trains).
    sender : {"newreno", "reno", "tahoe"}, optional
        Sender whose time-outs P3 models.
    rto : float, optional
        Length of one retransmission time-out [s].
    max_window : float, optional
        The senders' largest window (receive window or send-buffer limit),
        > 0, finite; None for none [packets].  Drop-tail P3 only: P1 and P2,
        the thesis' forms, have no senders' limits, and random drop spares no
        flow at its limit (it drops queued packets); both are refused with one.
    access_rate : float, optional
        Rate of each sender's access link, > 0, finite; None for links that
        never limit a flow [bit/s].  P3 only, as `max_window`.

    Returns
    -------
    DropTailSizing
        Rules: the chosen buffer, one BDP (the rule of thumb), BDP / sqrt(N)
        (Appenzeller, Keslassy & McKeown 2004).  The model's warnings go into
        each row's status and the notes, not to the warnings system.
    """
    if sum(x is not None for x in (loss_rate, buffer, delay)) != 1:
        raise ValueError("give exactly one of loss_rate (target loss), delay (target delay) or buffer")
    policy = _checks.choice("policy", policy, ("droptail", "random-drop"))
    dev = check_dev(dev)
    n = flow_count("n_flows", n_flows)
    lk = link(bandwidth, rtt, packet_size)
    limits = _senders_limits(lk, max_window, access_rate)
    kw = dict(model=_checks.choice("model", model, droptail.MODELS), policy=policy, sender=sender,
              rto=float(_checks.positive("rto", rto, finite=True)), **limits)
    if limits and (kw["model"] not in ("P3", "P3-poisson") or policy != "droptail"):  # not a model ignoring them
        raise ValueError(f"max_window and access_rate apply to model P3 with policy droptail only (P1 and P2, the "
                         "thesis' forms, have no senders' limits; random drop takes its drops from the queued "
                         "packets, so no flow escapes the overflows: RFC 2309), got model "
                         f"{kw['model']!r}, policy {policy!r}")
    if loss_rate is not None:
        _checks.in_range("loss_rate", loss_rate, 0, 1, low_open=True, high_open=True)
        first, name = _buffer_for_loss(lk, n, float(loss_rate), kw), "target-loss"
    elif delay is not None:
        first, name = float(_checks.positive("delay", delay, finite=True)) * lk.capacity, "target-delay"
    else:
        first, name = float(_checks.whole("buffer", buffer)), "given"  # (a FIFO holds whole packets)
    first = max(1, math.ceil(first - 1e-9))  # whole packets, as pfifo counts them
    if first > kernel.UINT_MAX // int(lk.packet_size):
        what = {"given": "buffer", "target-loss": f"the drop-tail queue for loss_rate {loss_rate}",
                "target-delay": f"the drop-tail queue for delay {delay}"}[name]
        raise ValueError(f"{what} ({first} packets) does not fit tc's 32-bit byte count")
    rows = [_droptail_rule(lk, n, r, b, kw) for r, b in ((name, first), ("bdp", lk.bdp),
                                                         ("bdp/sqrt(n)", lk.bdp / math.sqrt(n)))]
    notes = dict.fromkeys(f"{rule.rule}: {text}" for rule, said in rows for text in said)
    size = int(first * int(lk.packet_size))
    return DropTailSizing(lk, n, policy, kw["model"], loss_rate, None if delay is None else float(delay),
                          kw.get("max_window"), None if access_rate is None else float(access_rate),
                          tuple(rule for rule, _ in rows),
                          f"tc qdisc add dev {dev} root pfifo limit {first}",
                          f"tc qdisc add dev {dev} root bfifo limit {size}", tuple(notes))


def example(bandwidth=10e6, rtt=0.1, n_flows=300, loss_rate=0.02, packet_size=THESIS_PACKET_SIZE, *,
            max_window=None, access_rate=None):
    """The worked example: drop-tail, RED and FPQ for the same link and flows.

    Defaults are the thesis' standard link (Morris 1999, Fig. 3.2): 10 Mbit/s,
    100 ms, 576-byte packets, and 300 flows (section 5.3.5's 300 modem flows).
    The senders' limits reach the drop-tail sizing (P3's lock-out, as in
    :func:`droptail_sizing`), which is then also given without them; RED's
    and FPQ's models have no senders' limits.

    Parameters
    ----------
    bandwidth : float, optional
        [bit/s].
    rtt : float, optional
        [s].
    n_flows : int, optional
    loss_rate : float, optional
        Target loss rate for RED and drop-tail.
    packet_size : float, optional
        [bytes].
    max_window : float, optional
        The senders' largest window, > 0, finite; None for none [packets].
    access_rate : float, optional
        Rate of each sender's access link, > 0, finite; None for none [bit/s].

    Returns
    -------
    Example
    """
    limits = {k: v for k, v in dict(max_window=max_window, access_rate=access_rate).items() if v is not None}
    dt = droptail_sizing(bandwidth, rtt, n_flows, loss_rate=loss_rate, packet_size=packet_size, **limits)
    rs = red_setting(bandwidth, rtt, n_flows, loss_rate=loss_rate, packet_size=packet_size)
    fq = fpq_setting(bandwidth, rtt, n_flows, packet_size=packet_size)
    plain = droptail_sizing(bandwidth, rtt, n_flows, loss_rate=loss_rate, packet_size=packet_size) if limits else None
    return Example(dt, rs, fq.rows[-1], plain)


