"""The sizing calculator: a link, an RTT and a flow count in; queue settings and predictions out.

This module joins the models (:mod:`tcpmodels.red`, :mod:`tcpmodels.droptail`,
:mod:`tcpmodels.fpq`, :mod:`tcpmodels.tcp`) into the answers a router operator
asks for, and renders them for the two places settings go: a Linux
``tc qdisc ... red ...`` line and ns-3 ``RedQueueDisc`` attributes.  It holds no
model of its own: every loss rate, queue and time-out figure comes from the
model modules; what is here is choosing inputs, unit conversion at the
boundary (bit/s, bytes), rounding to settable values, and the rendering rules
of ``tc`` (thresholds in bytes, burst and EWMA weight as iproute2 computes
them).

Every function returns a small frozen :class:`~tcpmodels._results.Result`
(``.to_dict()``, tuple unpacking); :func:`jsonable` turns any of them into plain
JSON-ready Python for ``tcpmodels ... --json``.

References
----------
R. Morris, "Scalable TCP Congestion Control", PhD thesis, Harvard, 1999:
section 5.3.4 (setting RED parameters), Eq. 5.6-5.7 (drop-tail), Fig. 6.1-6.4
(FPQ).  iproute2 ``tc/tc_red.c`` and tc-red(8) (burst, Wlog).  G. Appenzeller,
I. Keslassy, N. McKeown, "Sizing router buffers", SIGCOMM 2004.
"""

import dataclasses
import inspect
import math
import warnings

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10: pyproject requires tomli there
    import tomli as tomllib

import numpy as np

from . import _checks, droptail, fpq, hstcp, red, sim, tcp, units
from ._results import Result

__all__ = [
    "DEFAULT_PACKET_SIZE",
    "DEFAULT_MIN_TH",
    "DEFAULT_MODEL",
    "MODELS",
    "DEFAULT_SENDER",
    "SENDERS",
    "SWEEP_FACTORS",
    "LIMIT_FACTOR",
    "MAX_LOSS",
    "MAX_QUEUE_PER_FLOW",
    "T_CLEAR_MIN",
    "BITS_PER_FLOW",
    "Link",
    "Prediction",
    "TcRed",
    "Ns3Red",
    "REDSetting",
    "FPQRow",
    "FPQSetting",
    "BufferRule",
    "DropTailSizing",
    "HSTCPRow",
    "HSTCPTable",
    "Simulation",
    "Example",
    "link",
    "predict",
    "tc_rate",
    "tc_ewma_log",
    "tc_red",
    "ns3_red",
    "red_setting",
    "fpq_setting",
    "droptail_sizing",
    "hstcp_table",
    "load_scenario",
    "simulate",
    "example",
    "jsonable",
]

#: The thesis' packet size [bytes] (Morris 1999, Fig. 3.2).
DEFAULT_PACKET_SIZE = 576
#: RED min_th [packets] used throughout the thesis and by FPQ (Fig. 6.4).
DEFAULT_MIN_TH = 5
#: The RED equilibrium model the calculator predicts with (``red.equilibrium``'s default,
#: the most accurate against packet-level measurements), and the choices.
DEFAULT_MODEL = "P3"
MODELS = red.MODELS
#: TCP sender the P3 predictions assume, and the choices.
DEFAULT_SENDER = "newreno"
SENDERS = tuple(tcp.TIMEOUT_SPACING)
#: Multiples of the design flow count in the "where does it break" table: N/4 ... 4N.
SWEEP_FACTORS = tuple(2.0 ** np.linspace(-2.0, 2.0, 9))
#: tc's hard ``limit`` as a multiple of ``max``: tc-red(8) asks for "a few times max".
LIMIT_FACTOR = 4
#: Loss above which a flow's effective window drops under 4 packets, so fast
#: retransmit fails and time-outs take over (Morris 1999, section 5.3.4: "less than 3%").
MAX_LOSS = 0.03
#: Queue per flow [packets] above which RED buffers more than TCP needs: twice FPQ's 5 (section 7.1).
MAX_QUEUE_PER_FLOW = 10.0
#: Smallest FPQ counting interval recommended [s] (Morris 1999, sections 6.4-6.5 use 4 s).
T_CLEAR_MIN = 4.0
#: Bit-vector bits per flow: with v_max >= 5 f the raw count of ones is within 10 % of f (section 6.1).
BITS_PER_FLOW = 5

# Statuses of a prediction row, most serious first.
_FORCED = "forced drops"
_TIMEOUTS = "time-outs"
_EXCESS = "excess queue"
_IDLE = "idle link"
_OK = "ok"

_LIMITATIONS_RED = (
    "tc's RED has no gentle mode: once the average queue reaches max it drops every packet "
    "(the ns-3 lines set Gentle=false to match).",
    "FPQ needs a live flow count, which tc does not keep: a fixed tc line is right only near "
    "the flow count it was computed for (see `tcpmodels fpq`).",
)


@dataclasses.dataclass(frozen=True)
class Link(Result):
    """A bottleneck link as the models see it.

    Attributes
    ----------
    bandwidth : float
        Link rate [bit/s].
    rtt : float
        Round-trip propagation time [s].
    packet_size : float
        Packet size [bytes].
    capacity : float
        Link rate [packets/s].
    bdp : float
        Bandwidth-delay product [packets].
    """

    bandwidth: float
    rtt: float
    packet_size: float
    capacity: float
    bdp: float


@dataclasses.dataclass(frozen=True)
class Prediction(Result):
    """Predicted RED equilibrium for one flow count.

    Attributes
    ----------
    n_flows : int
        Number of long-lived flows.
    loss_rate : float
        Drop rate at the router (fraction of packets).
    queue : float
        Average queue [packets].
    delay : float
        Average queueing delay, queue / capacity [s].
    queue_per_flow : float
        Average queue per flow [packets].
    timeouts_per_packet : float
        Retransmission time-outs per packet sent.
    timeout_fraction : float
        Fraction of time a flow spends in time-out.
    window : float
        Average congestion window [packets].
    status : str
        ``"ok"``, or the first way the setting breaks at this load:
        ``"forced drops"`` (average queue at max_th), ``"time-outs"`` (loss above
        :data:`MAX_LOSS`), ``"excess queue"`` (more than :data:`MAX_QUEUE_PER_FLOW`
        packets queued per flow) or ``"idle link"`` (average queue below min_th).
    """

    n_flows: int
    loss_rate: float
    queue: float
    delay: float
    queue_per_flow: float
    timeouts_per_packet: float
    timeout_fraction: float
    window: float
    status: str


@dataclasses.dataclass(frozen=True)
class TcRed(Result):
    """A Linux ``tc`` RED setting (iproute2 ``q_red.c``; units as tc reads them).

    Attributes
    ----------
    limit, min, max : int
        Hard limit and thresholds [bytes].
    avpkt : int
        Average packet size [bytes].
    burst : int
        Burst allowance [packets], tc-red(8)'s guideline (2 min + max) / (3 avpkt).
    probability : float
        max_p.
    bandwidth : str
        Link rate in tc syntax (used by tc only to age the average over idle time).
    ewma_log : int
        Wlog that tc derives from burst; the EWMA weight is 2**-ewma_log.
    weight : float
        EWMA weight 2**-ewma_log.
    command : str
        The ``tc qdisc add dev DEV root red ...`` line.
    notes : tuple of str
        What tc will say about this line, if anything.
    """

    limit: int
    min: int
    max: int
    avpkt: int
    burst: int
    probability: float
    bandwidth: str
    ewma_log: int
    weight: float
    command: str
    notes: tuple


@dataclasses.dataclass(frozen=True)
class Ns3Red(Result):
    """ns-3 ``RedQueueDisc`` attribute values (packet mode) for the same setting.

    Attributes
    ----------
    MinTh, MaxTh : float
        Thresholds [packets].
    LInterm : float
        1 / max_p.
    QW : float
        EWMA weight (the one tc derives, so both average alike).
    MeanPktSize : int
        [bytes].
    MaxSize : str
        Hard limit, as ns-3 writes a packet count (``"8628p"``).
    Gentle, Wait : bool
        False, so ns-3 drops as tc and the thesis' model do.
    code : str
        ``Config::SetDefault`` lines ready to paste into an ns-3 program.
    """

    MinTh: float
    MaxTh: float
    LInterm: float
    QW: float
    MeanPktSize: int
    MaxSize: str
    Gentle: bool
    Wait: bool
    code: str


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
        Thresholds [packets]; max_th rounded up to a whole packet.
    max_p : float
        Drop probability at max_th.
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
    tc : TcRed
    ns3 : Ns3Red
    limitations : tuple of str
        What of the thesis' model tc cannot express.
    """

    link: Link
    n_flows: int
    rule: str
    target_loss: object
    min_th: float
    max_th: float
    max_p: float
    model: str
    sender: str
    prediction: Prediction
    sweep: tuple
    ok_range: object
    tc: TcRed
    ns3: Ns3Red
    limitations: tuple


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
    """

    n_flows: int
    queue: float
    loss_rate: float
    min_th: float
    max_th: float
    max_p: float
    delay: float
    queue_per_flow: float


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
        ``"bdp"`` (one bandwidth-delay product) or ``"bdp/sqrt(n)"``
        (Appenzeller et al. 2004).
    buffer : float
        [packets].
    buffer_bytes : float
        [bytes].
    max_delay : float
        Queueing delay of a full buffer [s].
    loss_rate : float
        Predicted loss for the chosen policy (Eq. 5.6 drop-tail, 5.7 random-drop).
    queue_per_flow : float
        Buffer per flow [packets].
    """

    rule: str
    buffer: float
    buffer_bytes: float
    max_delay: float
    loss_rate: float
    queue_per_flow: float


@dataclasses.dataclass(frozen=True)
class DropTailSizing(Result):
    """Drop-tail (or random-drop) buffers for N flows, three rules side by side.

    Attributes
    ----------
    link : Link
    n_flows : int
    policy : str
        ``"droptail"`` or ``"random-drop"``.
    target_loss : float or None
    rules : tuple of BufferRule
        The given or target-loss buffer first, then one BDP, then BDP / sqrt(N).
    """

    link: Link
    n_flows: int
    policy: str
    target_loss: object
    rules: tuple


@dataclasses.dataclass(frozen=True)
class HSTCPRow(Result):
    """HighSpeed TCP's laws at one window (RFC 3649).

    Attributes
    ----------
    window : float
        Average congestion window [packets].
    loss_rate : float
        Loss rate of the response function at that window
        (:func:`tcpmodels.hstcp.loss_rate`: Standard TCP's below ~38 packets).
    a : float
        Increase per RTT a(w) [packets].
    b : float
        Decrease factor b(w): on a congestion event w <- (1 - b) w.
    """

    window: float
    loss_rate: float
    a: float
    b: float


@dataclasses.dataclass(frozen=True)
class HSTCPTable(Result):
    """HighSpeed TCP's a(w), b(w) and response function over a window or loss range.

    Attributes
    ----------
    kind : str
        Form of a(w) and b(w) (:data:`tcpmodels.hstcp.KINDS`).
    rows : tuple of HSTCPRow
    """

    kind: str
    rows: tuple


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


@dataclasses.dataclass(frozen=True)
class Example(Result):
    """The worked example on one link: drop-tail, RED and FPQ for the same flows.

    Attributes
    ----------
    droptail : DropTailSizing
    red : REDSetting
    fpq : FPQRow
        FPQ's targets at the same flow count.
    """

    droptail: DropTailSizing
    red: REDSetting
    fpq: FPQRow


def link(bandwidth, rtt, packet_size=DEFAULT_PACKET_SIZE):
    """Describe a bottleneck link in the models' units.

    Parameters
    ----------
    bandwidth : float
        Link rate [bit/s].
    rtt : float
        Round-trip propagation time [s].
    packet_size : float, optional
        Packet size [bytes]; the thesis' 576 by default.

    Returns
    -------
    Link

    Examples
    --------
    The thesis' standard link (Morris 1999, Fig. 3.2):

    >>> lk = link(10e6, 0.1, 576)
    >>> round(lk.capacity), round(lk.bdp)
    (2170, 217)
    """
    return Link(float(bandwidth), float(rtt), float(packet_size),
                units.capacity(bandwidth, packet_size), units.bdp(bandwidth, rtt, packet_size))


def _status(loss_rate, queue, queue_per_flow, saturated, min_th):
    """Classify each prediction row (most serious reason first)."""
    return np.select(
        [saturated, loss_rate > MAX_LOSS, queue_per_flow > MAX_QUEUE_PER_FLOW, queue < min_th],
        [_FORCED, _TIMEOUTS, _EXCESS, _IDLE], default=_OK)


def predict(lk, n_flows, min_th, max_th, max_p, *, model=DEFAULT_MODEL, rto=1.0, sender=DEFAULT_SENDER):
    """Predict RED's equilibrium on a link for one or more flow counts.

    Parameters
    ----------
    lk : Link
        The link.
    n_flows : int or array_like of int
        Flow counts.
    min_th, max_th : float
        RED thresholds [packets].
    max_p : float
        RED drop probability at max_th.
    model : str, optional
        Model of :func:`tcpmodels.red.equilibrium`.
    rto : float, optional
        Length of one retransmission time-out [s].
    sender : {"newreno", "reno", "tahoe"}, optional
        TCP sender whose time-out behaviour the P3 model uses.

    Returns
    -------
    tuple of Prediction
        One per flow count, in order.
    """
    n = np.atleast_1d(np.asarray(n_flows))
    eq = red.equilibrium(n, max_th, max_p, model=model, rtt=lk.rtt, capacity=lk.capacity,
                         rto=rto, min_th=min_th, sender=sender)
    loss, queue = np.broadcast_arrays(eq.loss_rate, eq.queue)
    per_flow = queue / n
    status = _status(loss, queue, per_flow, np.broadcast_to(eq.saturated, n.shape), min_th)
    columns = np.broadcast_arrays(loss, queue, queue / lk.capacity, per_flow, eq.timeouts_per_packet,
                                  eq.timeout_fraction, eq.window)
    return tuple(Prediction(int(n[i]), *(float(c[i]) for c in columns), str(status[i]))
                 for i in range(n.size))


def tc_rate(bandwidth):
    """Write a rate [bit/s] in tc syntax, in the largest unit that keeps it whole.

    Parameters
    ----------
    bandwidth : float
        Rate [bit/s]; rounded to a whole bit/s.

    Returns
    -------
    str
        ``10mbit``, ``64kbit``, ...

    Examples
    --------
    >>> tc_rate(10e6), tc_rate(1.5e9), tc_rate(64000), tc_rate(1234.5)
    ('10mbit', '1500mbit', '64kbit', '1234bit')
    """
    bits = int(round(bandwidth))
    for unit, scale in (("tbit", 10**12), ("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bits >= scale and bits % scale == 0:
            return f"{bits // scale}{unit}"
    return f"{bits}bit"


def tc_ewma_log(min_bytes, burst, avpkt):
    """EWMA exponent Wlog that tc derives from burst (iproute2 ``tc_red_eval_ewma``).

    Wlog is the smallest value such that, with W = 2**-Wlog,
    ``burst + 1 - min/avpkt <= (1 - (1 - W)**burst) / W`` (Floyd & Jacobson's
    condition that a burst of `burst` packets arriving at an idle queue does
    not push the average above min).

    Parameters
    ----------
    min_bytes : int
        RED min threshold [bytes].
    burst : int
        Burst [packets].
    avpkt : int
        Average packet size [bytes].

    Returns
    -------
    int
        Wlog in [1, 31].

    Raises
    ------
    ValueError
        When tc would refuse: burst too small (``burst + 1 - min/avpkt < 1``)
        or no Wlog below 32 fits.

    Examples
    --------
    tc-red(8)'s own example, min 30000, max 90000, avpkt 1000, burst 55:

    >>> tc_ewma_log(30000, 55, 1000)
    5
    """
    a = burst + 1 - min_bytes / avpkt
    if a < 1:
        raise ValueError(f"burst {burst} is too small for min {min_bytes} bytes and avpkt {avpkt}; "
                         f"tc needs burst >= {1 + min_bytes // avpkt}")
    w = 0.5
    for wlog in range(1, 32):
        if a <= (1 - (1 - w) ** burst) / w:
            return wlog
        w /= 2
    raise ValueError(f"burst {burst} is too large: tc finds no EWMA weight 2**-Wlog with Wlog < 32")


def tc_red(min_th, max_th, max_p, packet_size, bandwidth, *, limit=None, dev="DEV"):
    """Render a RED setting as a Linux ``tc qdisc add ... red`` line.

    Parameters
    ----------
    min_th, max_th : float
        Thresholds [packets]; converted to bytes with `packet_size`.
    max_p : float
        Drop probability at max (tc's ``probability``), in (0, 1).
    packet_size : float
        Mean packet size [bytes] (tc's ``avpkt``).
    bandwidth : float
        Link rate [bit/s] (tc's ``bandwidth``).
    limit : float, optional
        Hard limit [bytes]; :data:`LIMIT_FACTOR` times max by default (tc-red(8):
        "a few times max").
    dev : str, optional
        Interface name.

    Returns
    -------
    TcRed

    Notes
    -----
    burst follows tc-red(8)'s guideline ``(min + min + max) / (3 * avpkt)``
    (integer division, as tc's own default); Wlog is what tc then derives
    (:func:`tc_ewma_log`).  tc stores probability in 32-bit fixed point, so
    1.0 is refused here (it reads back as 0.5, iproute2 issue 19).

    Examples
    --------
    >>> t = tc_red(5, 500, 0.02, 576, 10e6)
    >>> print(t.command)        # doctest: +NORMALIZE_WHITESPACE
    tc qdisc add dev DEV root red limit 1152000 min 2880 max 288000 avpkt 576 burst 170
    probability 0.02 bandwidth 10mbit
    >>> t.ewma_log
    12
    """
    _checks.in_range("max_p", max_p, 0, 1, low_open=True, high_open=True)
    avpkt = int(round(packet_size))
    lo, hi = int(round(min_th * packet_size)), int(round(max_th * packet_size))
    if not hi > lo:
        raise ValueError(f"max_th ({max_th:g} packets) must be above min_th ({min_th:g} packets)")
    lim = int(round(LIMIT_FACTOR * hi if limit is None else limit))
    if lim < hi:
        raise ValueError(f"limit ({lim} bytes) must be at least max ({hi} bytes)")
    if lim >= 2**32:
        raise ValueError(f"limit ({lim} bytes) does not fit tc's 32-bit byte counts: give a smaller limit "
                         "or size for fewer flows")
    burst = (2 * lo + hi) // (3 * avpkt)
    wlog = tc_ewma_log(lo, burst, avpkt)
    notes = []
    if wlog >= 10:
        notes.append(f"tc will print 'RED: WARNING. Burst {burst} seems to be too large.' (Wlog {wlog} "
                     f">= 10): expected here, the queue is long and the average must span it "
                     f"(Morris 1999, section 6.3).")
    rate = tc_rate(bandwidth)
    command = (f"tc qdisc add dev {dev} root red limit {lim} min {lo} max {hi} avpkt {avpkt} "
               f"burst {burst} probability {max_p:.4g} bandwidth {rate}")
    return TcRed(lim, lo, hi, avpkt, burst, float(max_p), rate, wlog, 2.0**-wlog, command, tuple(notes))


def ns3_red(min_th, max_th, max_p, weight, packet_size, limit):
    """ns-3 ``RedQueueDisc`` attributes for a RED setting (packet mode).

    Parameters
    ----------
    min_th, max_th : float
        Thresholds [packets].
    max_p : float
        Drop probability at max_th; ns-3 takes LInterm = 1 / max_p.
    weight : float
        EWMA weight (``QW``).
    packet_size : float
        Mean packet size [bytes].
    limit : float
        Hard limit [packets] (``MaxSize``).

    Returns
    -------
    Ns3Red

    Examples
    --------
    >>> n = ns3_red(5, 500, 0.02, 2**-13, 576, 2000)
    >>> n.LInterm, n.MaxSize
    (50.0, '2000p')
    >>> print(n.code.splitlines()[2])
    Config::SetDefault ("ns3::RedQueueDisc::LInterm", DoubleValue (50));
    """
    size = f"{int(math.ceil(limit))}p"
    attrs = {"MinTh": float(min_th), "MaxTh": float(max_th), "LInterm": 1.0 / max_p, "QW": float(weight),
             "MeanPktSize": int(round(packet_size)), "MaxSize": size, "Gentle": False, "Wait": False}
    kinds = {float: "DoubleValue ({:.10g})", int: "UintegerValue ({})", bool: "BooleanValue ({})",
             str: 'QueueSizeValue (QueueSize ("{}"))'}
    code = "\n".join(
        f'Config::SetDefault ("ns3::RedQueueDisc::{key}", '
        + kinds[type(value)].format(str(value).lower() if isinstance(value, bool) else value) + ");"
        for key, value in attrs.items())
    return Ns3Red(**attrs, code=code)


def _renderings(lk, min_th, max_th, max_p, limit, dev):
    """tc line and matching ns-3 attributes for one RED setting."""
    tc = tc_red(min_th, max_th, max_p, lk.packet_size, lk.bandwidth, limit=limit, dev=dev)
    ns3 = ns3_red(min_th, max_th, max_p, tc.weight, lk.packet_size, tc.limit / tc.avpkt)
    return tc, ns3


def red_setting(bandwidth, rtt, n_flows, *, loss_rate=None, buffer=None,
                packet_size=DEFAULT_PACKET_SIZE, min_th=DEFAULT_MIN_TH, model=DEFAULT_MODEL,
                rto=1.0, sender=DEFAULT_SENDER, limit=None, dev="DEV"):
    """Choose RED parameters for a link and flow count and predict what they do.

    Give exactly one of `loss_rate` (Morris' section 5.3.4 procedure) or
    `buffer` (the fixed-buffer rule).

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
    packet_size : float, optional
        [bytes].
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

    Returns
    -------
    REDSetting

    Raises
    ------
    ValueError
        Neither or both of `loss_rate` and `buffer`; a max_th not above
        `min_th`; a buffer so small for `n_flows` that the rule asks max_p >= 1.
    """
    if (loss_rate is None) == (buffer is None):
        raise ValueError("give exactly one of loss_rate (target loss) or buffer (fixed max_th)")
    n = int(_checks.whole("n_flows", n_flows))
    lk = link(bandwidth, rtt, packet_size)
    if loss_rate is not None:
        _checks.in_range("loss_rate", loss_rate, 0, 1, low_open=True, high_open=True)
        sized = red.size(n, loss_rate, lk.rtt, rto=rto, min_th=min_th)
        max_th, max_p, rule = math.ceil(sized.max_th), float(sized.max_p), "target-loss"
        if not max_th > min_th:
            raise ValueError(f"min_th ({min_th:g} packets) must be below the max_th the rule gives "
                             f"({max_th} packets)")
    else:
        max_th = float(_checks.positive("buffer", buffer))
        if not max_th > min_th:
            raise ValueError(f"buffer (max_th, {max_th:g} packets) must be above min_th ({min_th:g} packets)")
        with warnings.catch_warnings():  # max_p >= 1 becomes the error below, not a warning
            warnings.simplefilter("ignore", _checks.TCPModelsWarning)
            max_p, rule = float(red.max_p_for_buffer(n, max_th)), "fixed-buffer"
        if not max_p < 1:
            raise ValueError(f"buffer ({max_th:g} packets) is too small for n_flows = {n}: the rule "
                             f"0.81 N^2/max_th^2 gives max_p = {max_p:.3g} >= 1 (needs more than "
                             f"{math.ceil(0.9 * n)} packets)")
    flows = sorted({max(1, int(round(n * f))) for f in SWEEP_FACTORS} | {n})
    sweep = predict(lk, flows, min_th, max_th, max_p, model=model, rto=rto, sender=sender)
    tc, ns3 = _renderings(lk, min_th, max_th, max_p, limit, dev)
    ok = [p.n_flows for p in sweep if p.status == _OK]
    return REDSetting(lk, n, rule, loss_rate, float(min_th), float(max_th), max_p, model, sender,
                      sweep[flows.index(n)], sweep, (ok[0], ok[-1]) if ok else None, tc, ns3,
                      _LIMITATIONS_RED)


def _flow_grid(max_flows):
    """1, 2, 5, 10, 20, 50, ... below `max_flows`, then `max_flows` itself."""
    grid = [m * 10**e for e in range(int(math.log10(max_flows)) + 1) for m in (1, 2, 5)]
    return [f for f in grid if f < max_flows] + [max_flows]


def fpq_setting(bandwidth, rtt, max_flows, *, packet_size=DEFAULT_PACKET_SIZE, ppf=5.0, max_loss=0.016,
                n_flows=None, bits=None, t_clear=None, min_th=DEFAULT_MIN_TH, limit=None, dev="DEV"):
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
        Target packets per flow (Morris 1999 uses 5, section 7.1).
    max_loss : float, optional
        Cap on the target loss rate (1.6 %, Fig. 6.2).
    n_flows : int, optional
        Flow count for the fixed tc / ns-3 rendering; `max_flows` by default.
    bits : int, optional
        Bit-vector size; :data:`BITS_PER_FLOW` x `max_flows` by default.
    t_clear : float, optional
        Counting interval [s]; by default the larger of :data:`T_CLEAR_MIN` and
        twice the longest RTT (propagation plus queueing at `max_flows`):
        section 6.1 asks for more than the longest RTT, section 6.5 for "more
        than a few seconds".
    min_th : float, optional
        [packets].
    limit : float, optional
        tc hard limit [bytes].
    dev : str, optional
        Interface name for the tc line.

    Returns
    -------
    FPQSetting
    """
    top = int(_checks.whole("max_flows", max_flows))
    design = top if n_flows is None else int(_checks.whole("n_flows", n_flows))
    if design > top:
        raise ValueError(f"n_flows ({design}) must not exceed max_flows ({top})")
    lk = link(bandwidth, rtt, packet_size)
    grid = sorted(set(_flow_grid(top)) | {design})
    params = fpq.red_params(np.asarray(grid), lk.bdp, ppf=ppf, max_loss=max_loss, min_th=min_th)
    queue, loss, max_th, max_p = np.broadcast_arrays(params.queue, params.loss_rate, params.max_th,
                                                     params.max_p)
    rows = tuple(FPQRow(f, float(queue[i]), float(loss[i]), float(min_th), float(max_th[i]),
                        float(max_p[i]), float(queue[i] / lk.capacity), float(queue[i] / f))
                 for i, f in enumerate(grid))
    v_max = int(_checks.whole("bits", bits)) if bits is not None else BITS_PER_FLOW * top
    top_row, design_row = rows[-1], rows[grid.index(design)]
    if t_clear is None:
        t_clear = max(T_CLEAR_MIN, 2.0 * (lk.rtt + top_row.delay))
    t_clear = float(_checks.positive("t_clear", t_clear))
    buffer = math.ceil(top_row.max_th)
    tc, ns3 = _renderings(lk, min_th, math.ceil(design_row.max_th), design_row.max_p, limit, dev)
    return FPQSetting(lk, top, float(ppf), float(max_loss), v_max, t_clear, math.ceil(v_max / 8),
                      buffer, int(buffer * round(lk.packet_size)), rows, design, tc, ns3,
                      _LIMITATIONS_RED[:1] + (
                          "FPQ needs a live flow count, which tc does not keep: the tc and ns-3 lines "
                          f"freeze FPQ's setting at {design} flows; at other counts use the table.",))


def droptail_sizing(bandwidth, rtt, n_flows, *, loss_rate=None, buffer=None,
                    packet_size=DEFAULT_PACKET_SIZE, policy="droptail"):
    """Drop-tail buffer for N flows by Morris' Eq. 5.6/5.7 beside the two classic rules.

    Give exactly one of `loss_rate` (solve for the buffer) or `buffer`
    (predict the loss).  The packets on the wire (one BDP) count as storage
    beside the buffer (``droptail.loss_rate(..., bdp=)``, the thesis' Eq. 8.1),
    so on a long path a smaller buffer gives the same loss.

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
    buffer : float, optional
        Buffer [packets].
    packet_size : float, optional
        [bytes].
    policy : {"droptail", "random-drop"}, optional
        Which equation predicts loss: Eq. 5.6 (drop-tail) or Eq. 5.7 (random-drop).

    Returns
    -------
    DropTailSizing
        Rules: the given or target-loss buffer, one BDP (the rule of thumb),
        BDP / sqrt(N) (Appenzeller, Keslassy & McKeown 2004).
    """
    if (loss_rate is None) == (buffer is None):
        raise ValueError("give exactly one of loss_rate (target loss) or buffer")
    policy = _checks.choice("policy", policy, ("droptail", "random-drop"))
    n = int(_checks.whole("n_flows", n_flows))
    lk = link(bandwidth, rtt, packet_size)
    if loss_rate is not None:
        _checks.in_range("loss_rate", loss_rate, 0, 1, low_open=True, high_open=True)
        # Eq. 5.6/5.7 give the flows' total storage; the wire holds one BDP of it.
        first = max(float(droptail.queue(n, loss_rate, policy=policy)) - lk.bdp, 0.0)
        name = "target-loss"
    else:
        first, name = float(_checks.positive("buffer", buffer)), "given"
    names = (name, "bdp", "bdp/sqrt(n)")
    sizes = np.array([first, lk.bdp, lk.bdp / math.sqrt(n)])
    loss = np.broadcast_to(droptail.loss_rate(n, sizes, policy=policy, bdp=lk.bdp), sizes.shape)
    rules = tuple(BufferRule(r, float(b), float(b * lk.packet_size), float(b / lk.capacity), float(p),
                             float(b / n)) for r, b, p in zip(names, sizes, loss, strict=True))
    return DropTailSizing(lk, n, policy, loss_rate, rules)


def hstcp_table(window=None, loss_rate=None, *, points=10, kind="formula"):
    """HighSpeed TCP's response function and a(w), b(w) at windows spread over a range.

    Give at most one of `window` or `loss_rate`; the default is RFC 3649's
    design range, windows 38 to 83000 packets.

    Parameters
    ----------
    window : tuple of float, optional
        ``(low, high)`` average windows [packets].
    loss_rate : tuple of float, optional
        ``(low, high)`` loss rates; the windows are the response function's.
    points : int, optional
        Rows, spaced evenly on a log scale (1 when low == high).
    kind : {"formula", "monotone", "table", "linux"}, optional
        Form of a(w) and b(w) (:mod:`tcpmodels.hstcp`).

    Returns
    -------
    HSTCPTable

    Examples
    --------
    >>> t = hstcp_table(window=(38, 83000), points=2)
    >>> [(r.window, round(r.a), round(r.b, 3)) for r in t.rows]   # RFC 3649, Sec. 5 end points
    [(38.0, 1, 0.5), (83000.0, 71, 0.1)]
    """
    if window is not None and loss_rate is not None:
        raise ValueError("give at most one of window and loss_rate")
    count = int(_checks.whole("points", points))
    if loss_rate is not None:
        lo, hi = sorted(float(x) for x in _checks.in_range("loss_rate", loss_rate, 0, 1, low_open=True))
        windows = np.atleast_1d(hstcp.window(np.geomspace(hi, lo, count if lo < hi else 1)))
    else:
        lo, hi = (hstcp.LOW_WINDOW, hstcp.HIGH_WINDOW) if window is None else window
        windows = np.geomspace(float(lo), float(hi), count if lo < hi else 1)
    columns = (windows, hstcp.loss_rate(windows), hstcp.a(windows, kind=kind), hstcp.b(windows, kind=kind))
    rows = tuple(HSTCPRow(*(float(c[i]) for c in columns)) for i in range(windows.size))
    return HSTCPTable(kind, rows)


# Scenario-file fields written with tc units, by what they measure.
_RATE_FIELDS = {"bandwidth", "access_rate"}
_TIME_FIELDS = {"rtt", "duration", "warmup", "time_step", "trace_interval", "start_spread", "min_rto",
                "granularity", "max_rto", "t_clear"}
_SIZE_FIELDS = {"packet_size"}
_PACKET_FIELDS = {"buffer", "min_th", "max_th", "max_window"}


def _sim_classes():
    """Queue and sender classes of :mod:`tcpmodels.sim`, keyed by lower-case name without - or _."""
    return {name.lower(): obj for name, obj in vars(sim).items()
            if name in sim.__all__ and inspect.isclass(obj) and dataclasses.is_dataclass(obj)
            and obj not in (sim.Scenario, sim.SimResult)}


def _key(name):
    return name.lower().replace("-", "").replace("_", "")


def _fields(cls):
    return [f.name for f in dataclasses.fields(cls) if f.init]


def _value(where, key, value, packet_size):
    """One scenario value in SI units; strings may carry tc units."""
    if not isinstance(value, str):
        return value
    label = f"{where}{key}"
    if key in _RATE_FIELDS:
        return units.parse_rate(value, label)
    if key in _TIME_FIELDS:
        return units.parse_time(value, label)
    if key in _SIZE_FIELDS:
        return units.parse_size(value, label)
    if key in _PACKET_FIELDS:
        return units.parse_buffer(value, packet_size, label)
    return value


def _checked(where, table, allowed):
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"{where}unknown field {unknown[0]!r}; expected one of {', '.join(allowed)}")


def _component(where, name, spec, packet_size):
    """A ``[queue]`` or ``[sender]`` table (or a plain name) -> a sim object."""
    if isinstance(spec, str):
        return spec
    if not isinstance(spec, dict) or "type" not in spec:
        raise ValueError(f"{where}{name}: expected a name or a table with a 'type' key, got {spec!r}")
    classes = _sim_classes()
    kind = spec["type"]
    cls = classes.get(_key(kind)) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"{where}{name}.type: unknown {kind!r}; expected one of "
                         f"{', '.join(c.__name__ for c in classes.values())}")
    options = {k: v for k, v in spec.items() if k != "type"}
    _checked(f"{where}[{name}] ", options, _fields(cls))
    return cls(**{k: _value(f"{where}[{name}] ", k, v, packet_size) for k, v in options.items()})


def load_scenario(path):
    """Read a scenario file (TOML) into a :class:`tcpmodels.sim.Scenario`.

    Top-level keys are the fields of ``Scenario``; ``[queue]`` and
    ``[sender]`` are tables whose ``type`` names a class of
    :mod:`tcpmodels.sim` (case-insensitive) and whose other keys are its
    fields.  Rates, times, sizes and buffers may be strings with tc units
    (``"10mbit"``, ``"100ms"``, ``"576b"``, ``"64kb"``); numbers are SI
    (bit/s, s, bytes; buffers and thresholds in packets).  See docs/cli.md.

    Parameters
    ----------
    path : str or os.PathLike
        The scenario file.

    Returns
    -------
    tcpmodels.sim.Scenario

    Raises
    ------
    ValueError
        Unreadable file, invalid TOML, an unknown field or type, a bad value;
        the message starts with the file name and names the field.
    """
    where = f"{path}: "
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise ValueError(f"{where}cannot read the scenario file ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{where}not valid TOML: {error}") from None
    _checked(where, data, _fields(sim.Scenario))
    default_size = {f.name: f.default for f in dataclasses.fields(sim.Scenario)}["packet_size"]
    size = _value(where, "packet_size", data.get("packet_size", default_size), None)
    kwargs = {k: _component(where, k, v, size) if k in ("queue", "sender") else _value(where, k, v, size)
              for k, v in data.items()}
    try:
        return sim.Scenario(**kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}{error}") from None


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


def example(bandwidth=10e6, rtt=0.1, n_flows=300, loss_rate=0.02, packet_size=DEFAULT_PACKET_SIZE):
    """The worked example: drop-tail, RED and FPQ for the same link and flows.

    Defaults are the thesis' standard link (Morris 1999, Fig. 3.2): 10 Mbit/s,
    100 ms, 576-byte packets, and 300 flows (section 5.3.5's 300 modem flows).

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

    Returns
    -------
    Example
    """
    with warnings.catch_warnings():  # the example's text says where the classic buffers leave Eq. 5.6
        warnings.simplefilter("ignore", _checks.TCPModelsWarning)
        dt = droptail_sizing(bandwidth, rtt, n_flows, loss_rate=loss_rate, packet_size=packet_size)
    rs = red_setting(bandwidth, rtt, n_flows, loss_rate=loss_rate, packet_size=packet_size)
    fq = fpq_setting(bandwidth, rtt, n_flows, packet_size=packet_size)
    return Example(dt, rs, fq.rows[-1])


def jsonable(value):
    """Turn a result (nested Results, tuples, numpy scalars and arrays) into plain JSON types.

    Parameters
    ----------
    value : Result, dict, tuple, list, ndarray or scalar
        What to convert; Results become dicts keyed by field name.

    Returns
    -------
    dict, list, float, int, str, bool or None

    Examples
    --------
    >>> jsonable(link(10e6, 0.1, 576))["bdp"]
    217.01388888888889
    >>> jsonable((np.float64(0.5), np.arange(2)))
    [0.5, [0, 1]]
    """
    if isinstance(value, Result):
        out = {key: jsonable(item) for key, item in value.to_dict().items()}
        if type(value) in _sim_classes().values():  # a queue or sender: name it as scenario files do
            out = {"type": type(value).__name__, **out}
        return out
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
