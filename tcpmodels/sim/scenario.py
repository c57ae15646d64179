"""Immutable descriptions of a simulation: queue disciplines, TCP senders, the scenario.

Everything here is validated when it is built, so a bad value raises a
``ValueError`` naming the field before anything runs.  Defaults follow
Morris (1999), Fig. 3.2 (the thesis' standard simulation set-up).
"""

import dataclasses
import inspect
import math
import re
import warnings

import numpy as np

from .. import _checks, fpq, hstcp, units, variants
from .._checks import TCPModelsWarning
from .._results import Result

__all__ = ["DropTail", "RandomDrop", "RED", "REDI", "CHOKe", "FPQ", "CoDel", "Tahoe", "Reno", "NewReno", "Scenario",
           "QUEUES", "SENDERS"]
__all__ += ["HighSpeed", "Scalable", "ACWAP", "NDCA", "HIGH_SPEED_WINDOW"]
__all__ += ["LongLived", "FiniteTransfers", "WORKLOADS", "TCPE", "SDC", "RDC", "CHOKeI", "RECOVERIES"]


# What a scenario may ask of the engine: computing time and ACK-ring bytes.  A
# step costs a fixed STEP_SECONDS (its few hundred numpy calls, whatever the
# flow count) plus 1 / FLOW_STEPS_PER_S per flow.  Measured on one core (20 ms
# RTT, 40 s): 146-220 us a step at 1-10 flows, and 33-100 ns more per flow
# from 1000 to 10 000 flows (the default sender and queue, NewReno with SACK
# on RED, Tahoe on drop-tail); the estimate takes the low end of the first.
# SLOW_SECONDS is minutes and MAX_SECONDS hours.
SLOW_SECONDS, MAX_SECONDS = 200.0, 1e4
FLOW_STEPS_PER_S = 1e7
STEP_SECONDS = 1.5e-4
# The most memory a scenario's ACK ring, or its FPQ counter's work within a step, may take [bytes].
MAX_BYTES = 2 ** 30
# FPQ's bit-vector counter (fpq.BitVectorCounter.update): per bit of the vector and step with arrivals, and per
# bit cleared.  Measured (3 flows, 1 Mbit/s, 5 s, 222 steps): 10**7 bits 7.0 s and 230 MB, 3.1 ns and 23 bytes a
# bit; t_clear 1e-4 s (2.5e8 clears) 2.5 s, 10 ns a clear, 780 MB for the 4.9e7 clears of a 1 s idle spell.
COUNTER_BIT_SECONDS, COUNTER_BIT_BYTES = 3e-9, 24
COUNTER_CLEAR_SECONDS, COUNTER_CLEAR_BYTES = 1e-8, 16


# A batch of several scenarios costs a step about twice a lone one's fixed cost (a lone scenario draws, rounds and
# runs RED on Python floats), and more with each scenario (its RED lane, its draws).  Measured on one core (10
# flows a scenario, 5 ms steps; 1, 2, 4, 8 and 16 scenarios): drop-tail 200, 302, 296, 343, 378 us a step, RED
# 125, 249, 281, 446, 564 us; ``batch_seconds`` takes twice STEP_SECONDS and this per scenario.
SCENARIO_STEP_SECONDS = 2e-5


def compute_seconds(steps, flows):
    """About how long the engine takes for ``steps`` steps of a batch of ``flows`` flows [s] (one core)."""
    return steps * (STEP_SECONDS + flows / FLOW_STEPS_PER_S)


def batch_seconds(steps, scenarios, flows):
    """``compute_seconds`` of a batch of ``scenarios`` scenarios, their fixed costs a step counted (see above)."""
    if scenarios == 1:
        return compute_seconds(steps, flows)
    return steps * (2.0 * STEP_SECONDS + scenarios * SCENARIO_STEP_SECONDS + flows / FLOW_STEPS_PER_S)


# NewReno's fast recovery with SACK (NewReno.recovery).
RECOVERIES = ("prr", "prr-ns3.44", "classic-ns3.44", "rfc6675")
# A flow's window at the top of the queue's range [packets] below which the default step of a drop-tail or
# random-drop queue is capped at a quarter of a flow's packet spacing (Scenario.step): halved by a loss, such a
# window falls below 8 packets, where a further loss can leave too few duplicate ACKs and time-outs matter.
# Measured (100 s, seeds 1-3): the top windows of the drop-tail set-ups whose time-outs depended on the step are
# 5.2-10.8 packets (40-80 flows, 10-20 Mbit/s, 50-80 ms), those of the 10 ms reference rows at 20 flows or fewer
# and of the few-flow case, where a finer step changed nothing beyond seed noise, 26-104: any threshold from
# about 11 to 26 selects the same of these.  Not a sharp line: 30 flows, 20 Mbit/s, 50 ms, drop-tail 400 (top
# 20.6, uncapped 20 ms step = 2.9 packet spacings) timed out 0-2.9e-6 per packet against 1.7-2.6e-5 at 2.5 ms
# (loss -4 and -13 %, seeds 1-2), time-outs far below the 1e-3 where issue 12 compares them.
SMALL_WINDOW = 16
# Where such a queue's flows sit behind access links that take one to two steps to send a packet, the default step
# is this fraction of that packet time (Scenario.step): under half, so that a burst's second packet reaches the
# bottleneck two steps after its first (at half exactly, the access link's credit reaches one packet on the boundary
# between the two steps, and floating-point rounding picks the step).
ACCESS_SHARE = 0.49
# CoDel's default step is this fraction of its target, whatever the RTT (Scenario.step): its queue stands about a
# target's worth of service, which a step must resolve.  Measured against ns-3 3.44 (validation/ns3_codel.csv, seeds
# 1-2): 10 flows, 20 Mbit/s, 100 ms, 1500 bytes read queue 8.7, 9.7, 10.0, 10.5 packets at steps of 5, 2.5, 1.25,
# 0.63 ms (ns-3 10.6); 5 flows, 10 Mbit/s, 200 ms read utilization 0.958, 0.928, 0.928, 0.915 at 10, 5, 2.5, 1.25 ms
# (ns-3 0.914).
CODEL_SHARE = 0.25
# An ACK on the wire: TCP and IP headers without options [bytes] (RFC 879).
ACK_BYTES = 40
# The narrowest RED ramp, max_th - min_th [packets]: any queue the simulator resolves is above or below a
# narrower one, and at 1e-300 its slope overflowed (loss 1 and RuntimeWarnings).
MIN_RAMP = 1e-6


def _set(obj, name, value):
    # Frozen dataclasses normalise their own fields in __post_init__.
    object.__setattr__(obj, name, value)


def _finite(name, x):
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return x


_one = _checks.one  # a field that holds one number


def _positive(name, value):
    """A finite float > 0."""
    return _finite(name, _one(name, _checks.positive, value))


def _nonnegative(name, value):
    """A finite float >= 0."""
    return _finite(name, _one(name, _checks.nonnegative, value))


def _whole(name, value, minimum=1):
    """A finite whole number >= minimum, as int."""
    return int(_finite(name, _one(name, _checks.whole, value, minimum=minimum)))


@dataclasses.dataclass(frozen=True)
class DropTail(Result):
    """Drop-tail FIFO: an arriving packet is dropped when the buffer is full.

    Parameters
    ----------
    buffer : int
        Buffer size [packets], at least 1: the most packets the bottleneck
        holds (the fluid queue's backlog at a step's end).  It compares with
        a router's waiting packets: ns-3's queue disc of limit L above its
        1-packet device queue (the packet-level references' set-up) has
        L + 1 places, and ``buffer=L + 1`` reproduces its queue and
        utilization at 10 and 17 packets (queue -1.4 and -2.4 %, utilization
        within 0.004; ``validation/sim_grid.py``), where L + 2 overshoots the
        queue by 22 and 8 %.  The one place matters for buffers of a few tens
        of packets.  Default 217, Morris (1999) Fig. 3.2.
    phase_effect : bool
        Let the overflow fall by each flow's phase in the packet service time
        (default): a full FIFO with a deterministic server frees one place per
        service time, and ACK-clocked flows arrive at a fixed phase of it, so
        the same flows lose round trip after round trip and one flow may
        escape to its access rate (Floyd & Jacobson 1992, "On traffic phase
        effects in packet-switched gateways"; ns-2/ns-3 dumbbells show it).
        An overflowing step is then resolved packet by packet, its arrivals
        at their flows' phases (``drops.fifo_drops``); a packet no ACK
        released (a time-out's retransmission) comes at a phase of its own,
        so no flow is locked out for good; and a link that idles starts its
        departures again at a new phase, so where it idles often no flow
        keeps the place just after a departure.  Switch it off (False) for a bottleneck whose service or arrivals
        jitter, as real routers and hosts do, which removes the effect: the
        overflow then falls on the trains without regard to phase.

    Examples
    --------
    >>> DropTail(buffer=500).buffer
    500
    >>> DropTail(phase_effect="no")
    Traceback (most recent call last):
    ...
    ValueError: phase_effect must be True or False, got 'no'
    """

    buffer: int = 217
    phase_effect: bool = True

    def __post_init__(self):
        _set(self, "buffer", _whole("buffer", self.buffer, minimum=1))
        _set(self, "phase_effect", _checks.flag("phase_effect", self.phase_effect))

    @property
    def limit(self):
        """Hard limit of the queue [packets]."""
        return self.buffer

    def batch_key(self):
        """What two scenarios' queues must share to run in one batch (the engine's code path)."""
        return (type(self), self.phase_effect)


@dataclasses.dataclass(frozen=True)
class RandomDrop(DropTail):
    """Random drop: on overflow a randomly chosen queued packet is dropped, not the arrival.

    The loss lands on flows in proportion to what they have queued (Morris
    1999, section 2.2.1).

    Parameters
    ----------
{inherited}

    Examples
    --------
    >>> RandomDrop(buffer=500).limit
    500
    """

    # The overflow removes queued packets at random: no arrival's phase decides.
    phase_effect: bool = dataclasses.field(default=False, init=False)


@dataclasses.dataclass(frozen=True)
class RED(Result):
    """Random Early Detection (Floyd & Jacobson 1993) on the averaged queue.

    Parameters
    ----------
    min_th, max_th : float
        Thresholds on the average queue [packets], ``0 <= min_th < max_th``.
        The average is of the whole queue.  A router's RED above a device
        queue judges only its own packets: ns-3's ``RedQueueDisc`` above a
        1-packet device queue meets a busy link's queue a packet lower, which
        thresholds a packet higher approximate (``validation/sim_grid.py``:
        the motion rows' queue -6 ... +2 % off ns-3's, against -14 ... -1 %
        with the thresholds as given).
    max_p : float
        Drop probability at ``max_th`` [-], in (0, 1].
    weight : float
        EWMA weight w_q per arriving packet [-], in (0, 1].
    gentle : bool
        Ramp the probability from max_p to 1 over [max_th, 2 max_th] instead of
        jumping to 1 at max_th.
    buffer : int or None
        Hard limit of the physical queue [packets].  ``None`` gives 4 max_th
        (the ns-3 reference set-up; the thesis had no hard limit, and the forced
        drops above max_th keep the queue well below 4 max_th anyway).
    ecn : bool
        Mark instead of drop (RFC 3168) the packets of senders that support ECN
        on RED's early decisions; forced drops (p_b = 1) and overflow still drop.

    Notes
    -----
    Drops are spaced as Floyd & Jacobson specify: the probability ``p_b`` comes
    from :func:`tcpmodels.red.drop_probability`, and the gap (in arriving
    packets) between drops is uniform on [1, 1/p_b], so the drop rate is about
    2 p_b.  As in ns-2's and ns-3's RED, an arrival that finds at most one
    packet queued is not dropped (or marked) early, however high the average.

    Examples
    --------
    >>> RED(min_th=5, max_th=500, max_p=0.02).limit
    2000
    """

    min_th: float = 5.0
    max_th: float = 217.0
    max_p: float = 0.02
    weight: float = 0.002
    gentle: bool = False
    buffer: int | None = None
    ecn: bool = False

    def __post_init__(self):
        _set(self, "min_th", _nonnegative("min_th", self.min_th))
        _set(self, "max_th", _positive("max_th", self.max_th))
        if not self.max_th > self.min_th:
            raise ValueError(f"max_th must be > min_th ({self.min_th}), got {self.max_th}")
        if not self.max_th - self.min_th >= MIN_RAMP:
            raise ValueError(f"max_th must exceed min_th ({self.min_th}) by at least {MIN_RAMP:g} packets (a "
                             f"narrower ramp is a step, whose slope max_p / (max_th - min_th) overflows the "
                             f"simulator's arithmetic), got {self.max_th!r}")
        _set(self, "max_p", _one("max_p", _checks.in_range, self.max_p, 0, 1, low_open=True))
        _set(self, "weight", _one("weight", _checks.in_range, self.weight, 0, 1, low_open=True))
        _set(self, "gentle", _checks.flag("gentle", self.gentle))
        _set(self, "ecn", _checks.flag("ecn", self.ecn))
        if self.buffer is not None:
            _set(self, "buffer", _whole("buffer", self.buffer, minimum=1))

    @property
    def limit(self):
        """Hard limit of the queue [packets]."""
        return self.buffer if self.buffer is not None else int(math.ceil(4 * self.max_th))

    def batch_key(self):
        """What two scenarios' queues must share to run in one batch (the engine's code path)."""
        return (type(self), self.gentle, self.ecn)


@dataclasses.dataclass(frozen=True)
class REDI(RED):
    """RED on the instantaneous queue (RED-I): RED with an EWMA weight of 1.

    With ``mark_drop`` it is Kamra, Misra & Towsley's fairness rule for TCP/E
    (Sec. 2): "Bernoulli losses as part of the AQM (e.g., with a small
    probability an ECN mark is replaced by a packet drop)", so that flows with
    a larger share, which are marked more, also lose more.

    Parameters
    ----------
    mark_drop : float
        Probability that an ECN mark becomes a drop instead [-], in [0, 1]
        (the paper gives no value; 0, the default, is plain RED-I).  Each mark
        independently; needs ``ecn=True``.
{inherited}

    Examples
    --------
    >>> REDI(min_th=5, max_th=100, max_p=0.1).weight
    1.0
    >>> REDI(mark_drop=0.01)
    Traceback (most recent call last):
    ...
    ValueError: mark_drop: replacing ECN marks by drops needs ecn=True, got ecn=False
    """

    weight: float = dataclasses.field(default=1.0, init=False)
    mark_drop: float = 0.0

    def __post_init__(self):
        super().__post_init__()
        _set(self, "mark_drop", _one("mark_drop", _checks.in_range, self.mark_drop, 0.0, 1.0))
        if self.mark_drop > 0 and not self.ecn:
            raise ValueError("mark_drop: replacing ECN marks by drops needs ecn=True, got ecn=False")


@dataclasses.dataclass(frozen=True)
class CHOKe(RED):
    """CHOKe (Pan, Prabhakar & Psounis 2000): RED plus a match test on arrival.

    While the average queue is above min_th, each arriving packet is compared
    with a packet drawn at random from the queue; if both belong to the same
    flow, both are dropped.  Otherwise RED decides.  A flow is thus hit in
    proportion to its share of the queue.

    Parameters
    ----------
{inherited}

    Examples
    --------
    >>> CHOKe(min_th=5, max_th=100, max_p=0.1).limit
    400
    """


@dataclasses.dataclass(frozen=True)
class FPQ(Result):
    """Flow-proportional queuing (Morris 1999, ch. 6): RED retuned to the flow count.

    A bit-vector counter (:class:`tcpmodels.fpq.BitVectorCounter`, Fig. 6.1)
    estimates the active flows from the arriving packets; RED's thresholds and
    max_p follow :func:`tcpmodels.fpq.red_params` (Fig. 6.4) for that count and
    the bottleneck's bandwidth-delay product, recomputed whenever the estimate
    moves by more than 1 %.

    Parameters
    ----------
    ppf : float
        Target packets buffered per flow [packets] (5, section 7.1).
    bits : int
        Size of the bit vector [-] (5000).
    t_clear : float
        Time to clear the whole vector [s] (4 s, longer than any RTT).
    max_loss : float
        Ceiling of the target loss rate [-] (1.6 %).
    min_th : float
        RED's lower threshold [packets].
    weight : float
        RED's EWMA weight per packet [-].
    buffer : int or None
        Hard limit [packets]; ``None``: four times the max_th FPQ would pick
        for twice the scenario's flows.

    Examples
    --------
    >>> FPQ(ppf=5, bits=5000, t_clear=4.0).max_loss
    0.016
    """

    ppf: float = fpq.PPF
    bits: int = 5000
    t_clear: float = 4.0
    max_loss: float = fpq.MAX_LOSS
    min_th: float = 5.0
    weight: float = 0.002
    buffer: int | None = None

    def __post_init__(self):
        _set(self, "ppf", _positive("ppf", self.ppf))
        _set(self, "bits", _whole("bits", self.bits, minimum=2))
        _set(self, "t_clear", _positive("t_clear", self.t_clear))
        _set(self, "max_loss", _one("max_loss", _checks.in_range, self.max_loss, 0, 1, low_open=True, high_open=True))
        _set(self, "min_th", _nonnegative("min_th", self.min_th))
        _set(self, "weight", _one("weight", _checks.in_range, self.weight, 0, 1, low_open=True))
        if self.buffer is not None:
            _set(self, "buffer", _whole("buffer", self.buffer, minimum=1))

    def batch_key(self):
        """What two scenarios' queues must share to run in one batch (the engine's code path)."""
        return (type(self),)


@dataclasses.dataclass(frozen=True)
class CoDel(Result):
    """CoDel (Nichols & Jacobson 2012; RFC 8289): drops at the head where packets wait too long.

    Once the packets leaving have waited ``target`` or more (their sojourn
    time) for a whole ``interval``, CoDel drops the packet at the head, and
    then one more each ``interval / sqrt(count)`` after the last (its control
    law, count the drops so far) until the sojourn falls below ``target``;
    re-entered soon after it left, it starts from the count the last cycle
    ended with (RFC 8289 5.5, as Linux does).  Arrivals beyond ``buffer`` are
    dropped at the tail.

    Parameters
    ----------
    target : float
        The standing queueing delay CoDel accepts [s] (RFC 8289: 5 ms).
    interval : float
        How long the sojourn must stay at or above ``target`` before dropping
        starts, and the base of the control law's spacing [s] (RFC 8289:
        100 ms, a worst-case round trip).
    buffer : int
        Hard limit [packets] (Linux's ``codel limit``, 1000 by default).
    ecn : bool
        Mark instead of drop (RFC 3168) the packets of senders that support
        ECN; the tail's overflow still drops.

    Examples
    --------
    >>> CoDel().target, CoDel().interval, CoDel().limit
    (0.005, 0.1, 1000)
    >>> CoDel(target=0.0)
    Traceback (most recent call last):
    ...
    ValueError: target must be > 0, got 0.0
    """

    target: float = 0.005
    interval: float = 0.1
    buffer: int = 1000
    ecn: bool = False

    def __post_init__(self):
        _set(self, "target", _positive("target", self.target))
        _set(self, "interval", _positive("interval", self.interval))
        _set(self, "buffer", _whole("buffer", self.buffer, minimum=1))
        _set(self, "ecn", _checks.flag("ecn", self.ecn))

    @property
    def limit(self):
        """Hard limit of the queue [packets]."""
        return self.buffer

    def batch_key(self):
        """What two scenarios' queues must share to run in one batch (the engine's code path)."""
        return (type(self), self.ecn)


@dataclasses.dataclass(frozen=True)
class _Sender(Result):
    """What every simulated TCP sender has (the variants add their recovery).

    Parameters
    ----------
    max_window : int or None
        Largest congestion window [packets], the receiver's window: while a
        hole is open no new data goes more than this beyond it (RFC 9293
        3.8.6), so a flow at its window sends nothing new in fast recovery.
        ``None``: 64 KB of packets of the scenario's packet size (113 for
        576-byte packets), Fig. 3.2.
    initial_window : int
        Window at start and after a time-out [packets].
    dupack_threshold : int
        Duplicate ACKs needed for fast retransmit [packets]; fewer surviving
        packets after a loss means a retransmission time-out.
    min_rto : float
        Minimum retransmission time-out [s] (the thesis: 1 s).
    granularity : float
        Timer granularity G [s] in RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)) (0.5 s).
    max_rto : float
        Ceiling of the backed-off time-out [s].
    delayed_ack : bool
        The receiver ACKs every second packet, so congestion avoidance grows the
        window by one packet per two windows.
    ecn : bool
        The sender negotiates ECN: a mark echoed back halves its window (at
        most once per round trip) without a retransmission.
    limited_transmit : bool
        RFC 3042: the first two duplicate ACKs each release a new packet, so a
        window of 2-3 packets can still gather three duplicate ACKs.

    Examples
    --------
    >>> Tahoe().min_rto
    1.0
    """

    max_window: int | None = None
    initial_window: int = 1
    dupack_threshold: int = 3
    min_rto: float = 1.0
    granularity: float = 0.5
    max_rto: float = 64.0
    delayed_ack: bool = True
    ecn: bool = False
    limited_transmit: bool = False

    def __post_init__(self):
        if self.max_window is not None:
            _set(self, "max_window", _whole("max_window", self.max_window, minimum=1))
        _set(self, "initial_window", _whole("initial_window", self.initial_window, minimum=1))
        _set(self, "dupack_threshold", _whole("dupack_threshold", self.dupack_threshold, minimum=1))
        _set(self, "min_rto", _positive("min_rto", self.min_rto))
        _set(self, "granularity", _nonnegative("granularity", self.granularity))
        _set(self, "max_rto", _positive("max_rto", self.max_rto))
        if not self.max_rto >= self.min_rto:
            raise ValueError(f"max_rto must be >= min_rto ({self.min_rto}), got {self.max_rto}")
        _set(self, "delayed_ack", _checks.flag("delayed_ack", self.delayed_ack))
        _set(self, "ecn", _checks.flag("ecn", self.ecn))
        _set(self, "limited_transmit", _checks.flag("limited_transmit", self.limited_transmit))

    def batch_key(self):
        """What two scenarios' senders must share to run in one batch (the engine's code path)."""
        return (type(self), self.ecn)


@dataclasses.dataclass(frozen=True)
class Tahoe(_Sender):
    """TCP Tahoe: slow start after every fast retransmit (Morris' simulations).

    Parameters
    ----------
    go_back_n : bool
        How the fast retransmit treats the rest of the window.  ``False``
        (RFC 2001, 4.3BSD Tahoe): only the missing segment is retransmitted, so
        a second loss in the same window needs three duplicate ACKs of its own,
        which the one-packet window of the restarted slow start cannot supply:
        the sender times out, as Reno does.  ``True`` (the ns simulator's
        Tahoe agent): the sender resends from the first hole, so slow start
        repairs further losses of the window without a time-out.  The default
        reproduces Eq. 5.3 (time-outs per packet within 35 % over loss rates
        0.005-0.05) and the thesis' finding that Tahoe and Reno respond alike
        (section 5.1); go-back-N times out 1.2-4.2x less (the more, the lower
        the loss).
{inherited}

    Examples
    --------
    >>> Tahoe().go_back_n
    False
    """

    go_back_n: bool = False

    def __post_init__(self):
        super().__post_init__()
        _set(self, "go_back_n", _checks.flag("go_back_n", self.go_back_n))

    def batch_key(self):
        """What two scenarios' senders must share to run in one batch (the engine's code path)."""
        return super().batch_key() + (self.go_back_n,)


@dataclasses.dataclass(frozen=True)
class Reno(_Sender):
    """TCP Reno: fast recovery halves the window instead of slow-starting.

    A second loss in the same window cannot be repaired by Reno's single fast
    retransmit without a further three duplicate ACKs, which the halved window
    rarely supplies; the simulator lets such windows time out.

    Parameters
    ----------
{inherited}

    Examples
    --------
    >>> Reno(max_window=20).max_window
    20
    """


@dataclasses.dataclass(frozen=True)
class NewReno(_Sender):
    """TCP NewReno: fast recovery that repairs every loss of the window.

    Parameters
    ----------
    sack : bool
        With selective acknowledgements all holes are retransmitted within one
        round trip; without, one per round trip (partial ACKs).
    recovery : {"prr", "prr-ns3.44", "classic-ns3.44", "rfc6675"}
        How fast recovery with SACK brings the flight down to the reduced
        window.  ``"prr"``: Proportional Rate Reduction (RFC 6937 3.1, the
        default of Linux and of ns-3's ``TcpSocketBase``, ``TcpPrrRecovery``):
        one packet out per two delivered while the flight exceeds ssthresh, so
        the halved window leaves spread over the round trip.
        ``"prr-ns3.44"``: PRR as ns-3 3.44 runs it, counting a duplicate ACK's
        packet twice while prr_delivered is below RecoverFS (SACKed and once
        more; fixed in later ns-3): one packet out per ACK for the first half
        of the round trip, 1.5 ssthresh in flight at its end.
        ``"classic-ns3.44"``: ns-3 3.44's ``TcpClassicRecovery`` with SACK:
        the window is ssthresh from fast retransmit on, and new packets leave
        only while the pipe (RFC 6675) is below it, one per ACK in the round
        trip's second half.  The shared packet-level references ran this one:
        ns-3 3.44 with it reproduces their loss within 1.5 % on seven rows
        where its PRR reads up to 11 % higher (``validation/ns3_recovery.csv``).
        With either PRR and with ``"classic-ns3.44"`` the duplicate ACKs are
        counted as they return: each lets a new packet out (RFC 6675 5), the
        third fast-retransmits, and a flow with none left to come times out.
        With either PRR an ECN echo's reduction goes by PRR too, over its
        round trip (as ns-3's CWR state and Linux's ``tcp_cwnd_reduction``);
        the others cut the window at once.
        ``"rfc6675"``: nothing
        new leaves until the flight falls below ssthresh; the window then
        leaves as a train in the round trip's second half; fast retransmit
        comes when the lost packet's ACK was due, with its duplicate ACKs at
        once (the engine before PRR, bit for bit).  Without SACK the recovery
        is RFC 6582's partial-ACK one whatever this says (PRR is modelled
        with SACK only).
{inherited}

    Examples
    --------
    >>> NewReno(sack=True).recovery
    'prr'
    """

    sack: bool = False
    recovery: str = "prr"

    def __post_init__(self):
        super().__post_init__()
        _set(self, "sack", _checks.flag("sack", self.sack))
        _set(self, "recovery", _checks.choice("recovery", self.recovery, RECOVERIES))

    def batch_key(self):
        """What two scenarios' senders must share to run in one batch (the engine's code path)."""
        return super().batch_key() + (self.sack, self.recovery)




@dataclasses.dataclass(frozen=True)
class CHOKeI(CHOKe):
    """CHOKe/RED-I as Kamra, Misra & Towsley configure it for TCP/E: RED-I marks, a periodic CHOKe test drops.

    RED on the instantaneous queue (weight 1) decides the ECN marks; every
    ``match_interval`` one arriving packet is compared with a packet drawn at
    random from the queue, and dropped (it alone) if both belong to the same
    flow, so the flows holding most of the queue lose most (Sec. 2).

    Parameters
    ----------
    match_interval : float
        Time between match tests [s]; the paper says "at periodic intervals"
        without a value.  1 s: a flow holding a third of the queue loses a
        packet every few seconds, a congestion event that TCP/E recovers from
        in a few round trips by slow start.
{inherited}

    Examples
    --------
    >>> CHOKeI(min_th=500, max_th=3000, max_p=1.0, buffer=4000, ecn=True).weight
    1.0
    """

    weight: float = dataclasses.field(default=1.0, init=False)
    match_interval: float = 1.0

    def __post_init__(self):
        super().__post_init__()
        _set(self, "match_interval", _positive("match_interval", self.match_interval))


# --- Workloads: when flows have data (issue 13) ---------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Workload(Result):
    """When a scenario's flows have data (the specs below)."""

    # Whether a batch may run its scenarios at their own steps, lengths and warm-ups (Scenario.batch_key).
    own_interval = True

    def batch_key(self):
        """What two scenarios' workloads must share to run in one batch (the engine's code path)."""
        return (type(self),)


@dataclasses.dataclass(frozen=True)
class LongLived(_Workload):
    """Long-lived flows (Morris 1999, ch. 3): each starts once, within ``start_spread``, and always has data.

    Examples
    --------
    >>> LongLived().batch_key()
    (<class 'tcpmodels.sim.scenario.LongLived'>,)
    """


@dataclasses.dataclass(frozen=True)
class FiniteTransfers(_Workload):
    """Repeated finite transfers, each on a new connection (Morris 1999, section 7.1).

    Each source transfers ``size`` packets (a fixed number, or exponentially
    distributed with that mean, rounded to whole packets, at least one),
    waits for the ACK of the last one, and opens a new connection: a SYN and
    its SYN-ACK take one round trip (a lost SYN is sent again after
    ``connection_timeout``, doubling on each further loss), then the
    transfer starts afresh in slow start from the initial window, with the
    initial RTO until its first ACK.  ``SimResult.transfers`` lists the
    transfers completed in the measured interval.

    Parameters
    ----------
    size : float
        Packets per transfer (its mean when exponential) [packets], at least 1 (20, Morris 1999, ch. 7).
    distribution : str
        ``"fixed"`` or ``"exponential"`` (Morris 1999, sections 7.1-7.4).
    connection_timeout : float
        Initial retransmission time-out of a new connection [s]: a lost SYN,
        and data packets lost before the connection's first ACK, are resent
        after it (3 s: RFC 1122 / RFC 2988's initial RTO, the value behind
        Morris 1999, section 7.2's "the initial timeout is 3 seconds").

    Examples
    --------
    >>> FiniteTransfers(size=20, distribution="exponential").connection_timeout
    3.0
    >>> FiniteTransfers(size=0.5)
    Traceback (most recent call last):
    ...
    ValueError: size must be >= 1 packet, got 0.5
    """

    size: float = 20.0
    distribution: str = "fixed"
    connection_timeout: float = 3.0

    own_interval = False  # (its completions are logged over the batch's measured interval: workloads.py)

    def __post_init__(self):
        size = _finite("size", _one("size", _checks.positive, self.size))
        if not size >= 1:
            raise ValueError(f"size must be >= 1 packet, got {self.size!r}")
        _set(self, "size", size)
        _set(self, "distribution", _checks.choice("distribution", self.distribution, ("fixed", "exponential")))
        _set(self, "connection_timeout", _positive("connection_timeout", self.connection_timeout))


WORKLOADS = {"long-lived": LongLived, "finite": FiniteTransfers}


def _workload(scenario):
    """The scenario's workload, validated: one spec (a name becomes its spec), or ``((count, spec), ...)`` groups."""
    value = scenario.workload
    if isinstance(value, (str, _Workload)):
        return _spec("workload", value, WORKLOADS)
    try:
        groups = tuple((_whole("workload: count", c), _spec("workload", w, WORKLOADS)) for c, w in value)
    except (TypeError, ValueError) as e:
        if isinstance(e, ValueError) and str(e).startswith("workload"):
            raise
        raise ValueError(f"workload must be a workload spec, a name or (count, workload) pairs, "
                         f"got {value!r}") from None
    if not groups or sum(c for c, _ in groups) != scenario.n_flows:
        raise ValueError(f"workload: group sizes {[c for c, _ in groups]} must add up to n_flows ({scenario.n_flows})")
    return groups



# --- The seed papers' senders for short transfers and ECN (issue 13) ----------------------------


@dataclasses.dataclass(frozen=True)
class TCPE(NewReno):
    """TCP/E (Kamra, Misra & Towsley): an ECN echo freezes the window instead of halving it.

    On every ACK that echoes a mark (the receiver echoes each marked packet
    in exactly one ACK) the window stays as it is and the sender switches to
    congestion avoidance; after a round trip without marks it switches back
    to slow start, unbounded until the next mark or loss (the paper's OnAck,
    :func:`tcpmodels.variants.tcpe_on_ack`).  Losses are handled as by
    NewReno, with SACK by default (the paper's loss behaviour is "standard
    TCP"; without SACK a slow-start overshoot of a thousand packets takes a
    thousand round trips to repair), and RFC 6675's recovery by default
    (``recovery="rfc6675"``): the paper's ns-2 agents predate PRR.  It needs a queue that marks (RED, REDI or CHOKe with
    ``ecn=True``; the paper: RED on the instantaneous queue, REDI).

    Parameters
    ----------
{inherited}

    Examples
    --------
    >>> TCPE().ecn
    True
    """

    ecn: bool = True
    sack: bool = True
    recovery: str = "rfc6675"

    def __post_init__(self):
        super().__post_init__()
        if not self.ecn:
            raise ValueError("ecn: TCPE reacts to ECN marks and needs ecn=True, got False")



@dataclasses.dataclass(frozen=True)
class SDC(NewReno):
    """Sender-based delay control (Hsiao, Kung & Tan, Sec. II.B): hold the ACKs instead of halving a small window.

    While the window is at most ``window_threshold`` packets, a CE echo leaves
    the window as it is and raises the sender's delay ``d`` (the time it holds
    each ACK before processing it), multiplicatively; a round trip without CE
    lowers it additively; the rate is ``cwnd / (RTT + d)``
    (:func:`tcpmodels.variants.sdc_delay`, :func:`~tcpmodels.variants.delayed_rate`).
    Above the threshold the delay is 0 and CE halves the window as for
    NewReno with ECN.  It needs a queue that marks (the paper: gentle RED
    with ECN).

    Parameters
    ----------
    max_delay : float
        Largest delay [s] (0.2 s and 2 s in the paper's Figs. 7-9).
    window_threshold : float
        Window above which delay control is off [packets] ("above eight packets").
{inherited}

    Examples
    --------
    >>> SDC(max_delay=0.2).window_threshold
    8.0
    """

    max_delay: float = 2.0
    window_threshold: float = 8.0
    ecn: bool = True

    def __post_init__(self):
        super().__post_init__()
        _set(self, "max_delay", _nonnegative("max_delay", self.max_delay))
        _set(self, "window_threshold", _positive("window_threshold", self.window_threshold))
        if not self.ecn:
            raise ValueError("ecn: SDC reacts to ECN marks and needs ecn=True, got False")


@dataclasses.dataclass(frozen=True)
class RDC(SDC):
    """1-bit receiver-based delay control (Hsiao, Kung & Tan, Sec. II.B): the receiver holds the ACKs.

    The receiver sees CE as packets arrive and, while the flight it sees (a
    round trip's packets, its estimate of the window) is at most
    ``window_threshold``, delays its ACKs by ``d`` instead of echoing CE,
    with SDC's update law on its own estimates; above, it echoes CE and the
    sender halves.  The paper summarises it (details in its reference [8]);
    this is that summary.

    Parameters
    ----------
{inherited}

    Examples
    --------
    >>> RDC(max_delay=0.5).max_delay
    0.5
    """


def _parameters(doc):
    """The entries of a numpydoc Parameters section of docstring `doc`, dedented."""
    lines = inspect.cleandoc(doc).split("\n")
    start = lines.index("Parameters") + 2
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return lines[start:end]


def _inherit_parameters(cls, base, skip=()):
    # A subclass takes its parent's parameters: they are written once, on the
    # parent, and copied into the subclass' docstring here, indented as the
    # subclass' own "Parameters" header (Python 3.13 dedents docstrings; under
    # -OO there are none, and nothing to document).
    header = re.search(r"^([ \t]*)Parameters$", cls.__doc__ or "", re.MULTILINE)
    if header is None or base.__doc__ is None:
        return
    entries, keep = [], True
    for line in _parameters(base.__doc__):
        if not line.startswith(" "):
            keep = line.split(":")[0].strip() not in skip
        if keep:
            entries.append(header.group(1) + line)
    cls.__doc__ = cls.__doc__.replace("{inherited}", "\n".join(entries))


_inherit_parameters(RandomDrop, DropTail, skip=("phase_effect",))
_inherit_parameters(REDI, RED, skip=("weight",))
_inherit_parameters(CHOKe, RED)
_inherit_parameters(Tahoe, _Sender)
_inherit_parameters(Reno, _Sender)
_inherit_parameters(NewReno, _Sender)
_inherit_parameters(TCPE, NewReno)
_inherit_parameters(SDC, NewReno)
_inherit_parameters(RDC, SDC)
_inherit_parameters(CHOKeI, RED, skip=("weight",))


# --- High-speed senders (issue 13: RFC 3649, Kelly 2003, Su et al. 2006, Park et al.) -----------

#: Default window cap of the high-speed senders [packets]: RFC 3649's High_Window,
#: the largest window its response function is designed for (64 KB would cap
#: them at Standard TCP's windows).
HIGH_SPEED_WINDOW = int(hstcp.HIGH_WINDOW)


@dataclasses.dataclass(frozen=True)
class HighSpeed(NewReno):
    """HighSpeed TCP (RFC 3649): increase a(w)/w per ACK, decrease b(w) w, from ``tcpmodels.hstcp``.

    At or below Low_Window (38 packets) a(w) = 1 and b(w) = 0.5: Standard
    TCP.  Recovery is NewReno's, with SACK by default (Linux's and ns-2's
    HighSpeed agents run over SACK), and RFC 6675's by default
    (``recovery="rfc6675"``): the seed papers ran ns-2 (Su et al. 2006:
    2.26), whose SACK agents recover by the pipe algorithm, not PRR (RFC 6937,
    2013).  ``max_window`` defaults to RFC 3649's High_Window, 83000
    packets, not 64 KB.

    Parameters
    ----------
    kind : {"formula", "monotone", "table", "linux"}
        Form of a(w) and b(w), see :func:`tcpmodels.hstcp.a`.
{inherited}

    Examples
    --------
    >>> HighSpeed(kind="table").max_window
    83000
    """

    max_window: int | None = HIGH_SPEED_WINDOW
    sack: bool = True
    recovery: str = "rfc6675"
    kind: str = "formula"

    def __post_init__(self):
        super().__post_init__()
        _set(self, "kind", _checks.choice("kind", self.kind, hstcp.KINDS))

    def batch_key(self):
        """What two scenarios' senders must share to run in one batch (the engine's code path)."""
        return super().batch_key() + (self.kind,)


@dataclasses.dataclass(frozen=True)
class Scalable(NewReno):
    """Scalable TCP (Kelly 2003): +0.01 packet per ACK, a loss leaves 0.875 w, from ``tcpmodels.hstcp``.

    Below ``low_window`` it is Standard TCP (Kelly 2003's legacy window).
    Recovery is NewReno's, with SACK and RFC 6675's recovery by default (as
    HighSpeed's); ``max_window`` defaults to 83000 packets, not 64 KB.

    Parameters
    ----------
    low_window : float
        Window at or below which Standard TCP's increase and halving apply [packets] (Kelly: 16).
{inherited}

    Examples
    --------
    >>> Scalable().low_window
    16.0
    """

    max_window: int | None = HIGH_SPEED_WINDOW
    sack: bool = True
    recovery: str = "rfc6675"
    low_window: float = 16.0

    def __post_init__(self):
        super().__post_init__()
        _set(self, "low_window", _nonnegative("low_window", self.low_window))

    def batch_key(self):
        """What two scenarios' senders must share to run in one batch (the engine's code path)."""
        return super().batch_key() + (self.low_window,)


@dataclasses.dataclass(frozen=True)
class ACWAP(HighSpeed):
    """ACWAP-HSTCP (Su et al. 2006): HighSpeed TCP whose increase falls to 1 when the RTT predicts congestion.

    After two congestion events, a(w) = 1 while the smoothed RTT is at least
    RTT_min + beta (RTT_max - RTT_min) (Eq. 3, Fig. 5,
    :func:`tcpmodels.variants.acwap_a`); packets are paced at one per
    RTT / cwnd (:func:`tcpmodels.variants.pacing_interval`).

    Parameters
    ----------
    beta : float
        Congestion factor of Eq. 3 [-], in [0, 1] (0.8, the paper's choice).
    pacing : bool
        Pace packets over the RTT (the paper's ACWAP); ``False`` keeps only
        the predictor, to tell the two parts' effects apart.
{inherited}

    Examples
    --------
    >>> ACWAP().beta
    0.8
    >>> ACWAP(beta=1.5)
    Traceback (most recent call last):
    ...
    ValueError: beta must be in [0.0, 1.0], got 1.5
    """

    beta: float = variants.ACWAP_BETA
    pacing: bool = True

    def __post_init__(self):
        super().__post_init__()
        _set(self, "beta", _one("beta", _checks.in_range, self.beta, 0.0, 1.0))
        _set(self, "pacing", _checks.flag("pacing", self.pacing))


@dataclasses.dataclass(frozen=True)
class NDCA(Reno):
    """NDCA-TCP (Park et al.): slow start up to a bandwidth-estimated ssthresh, also after halving, and a hold.

    Each step the ACKs feed Eq. 3-4 (:func:`tcpmodels.variants.ndca_bandwidth`,
    with BaseRTT as in Fig. 4); ssthresh is Eq. 5 of the estimate
    (:func:`tcpmodels.variants.ndca_ssthresh`).  Below it the window grows by
    one per ACK (intervals A and C), above it by 1/w (B), and not at all while
    the RTT exceeds alpha BaseRTT (interval D, :func:`tcpmodels.variants.ndca_hold`).
    The initial slow start ends when the hold first fires (the path is full),
    its ssthresh then being the estimate.  Triple duplicate ACKs halve the
    window and reset the estimate (Fig. 4).  Recovery is Reno's (the paper
    modified ns-2's Reno); ``max_window`` defaults to 83000 packets.

    Parameters
    ----------
    alpha : float
        Hold threshold factor of interval D [-], > 1 (the paper gives no
        value; 1.1 holds once queueing adds a tenth to BaseRTT).
    beta : float
        Weight of Eq. 4's moving average [-], in (0, 1] (the paper gives no
        value; 1, the default, is Fig. 4's form: Eq. 3 alone).
{inherited}

    Examples
    --------
    >>> NDCA(alpha=1.2).beta
    1.0
    >>> NDCA(beta=0.0)
    Traceback (most recent call last):
    ...
    ValueError: beta must be in (0.0, 1.0], got 0.0
    """

    max_window: int | None = HIGH_SPEED_WINDOW
    alpha: float = 1.1
    beta: float = 1.0

    def __post_init__(self):
        super().__post_init__()
        _set(self, "alpha", _one("alpha", _checks.in_range, self.alpha, 1.0, np.inf, low_open=True))
        _set(self, "beta", _one("beta", _checks.in_range, self.beta, 0.0, 1.0, low_open=True))


_inherit_parameters(HighSpeed, NewReno)
_inherit_parameters(Scalable, NewReno)
_inherit_parameters(ACWAP, HighSpeed)
_inherit_parameters(NDCA, Reno)

QUEUES = {"droptail": DropTail, "random-drop": RandomDrop, "red": RED, "redi": REDI, "choke": CHOKe, "fpq": FPQ}
QUEUES.update({"choke-i": CHOKeI, "codel": CoDel})
SENDERS = {"tahoe": Tahoe, "reno": Reno, "newreno": NewReno}
SENDERS.update({"highspeed": HighSpeed, "scalable": Scalable, "acwap": ACWAP, "ndca": NDCA})
SENDERS.update({"tcpe": TCPE, "sdc": SDC, "rdc": RDC})


@dataclasses.dataclass(frozen=True)
class Scenario(Result):
    """N long-lived TCP flows through one bottleneck (Morris 1999, Fig. 3.1-3.2).

    Parameters
    ----------
    n_flows : int
        Number of TCP flows [-].
    bandwidth : float
        Bottleneck rate [bit/s].
    rtt : float or sequence of float
        Mean round-trip propagation time [s], spread by ``rtt_spread``; or
        each flow's (one per flow) or each sender group's (one per group of
        ``senders``) propagation RTT [s], used as given.  Each round trip also
        holds the time to send a packet and its ACK on the links
        (``serialization``).
    packet_size : float
        Packet size [bytes] (576).
    queue : DropTail, RandomDrop, RED, REDI, CHOKe, FPQ or str
        Queue discipline at the bottleneck; a name (``"droptail"``,
        ``"random-drop"``, ``"red"``, ``"redi"``, ``"choke"``, ``"fpq"``) gives
        its defaults.
    sender : Tahoe, Reno, NewReno, HighSpeed, Scalable, ACWAP, NDCA or str
        TCP variant of every flow; a name (``"tahoe"``, ``"reno"``,
        ``"newreno"``, ``"highspeed"``, ``"scalable"``, ``"acwap"``,
        ``"ndca"``) gives its defaults.
    senders : sequence of (int, sender) or None
        A mixed population instead: groups of flows, each ``(count, sender)``
        (counts adding up to ``n_flows``; flows numbered group by group).
        ``sender`` then becomes the first group's.
    duration : float
        Simulated time [s] (500, Fig. 3.2).
    warmup : float
        Start of the measured interval [s]; statistics cover [warmup, duration].
    seed : int or None
        Seed of the scenario's own random streams; equal seeds give equal
        results, bit for bit, alone or in any batch (except that a batch of
        10 000 flows or more keeps per-flow state in float32, which rounds
        differently: see ``flows.state_dtype``).  None: fresh entropy.
    rtt_spread : float
        (With a single ``rtt``.) Relative width of the uniform spread of propagation RTTs [-]: flow RTTs
        are uniform on rtt * [1 - spread/2, 1 + spread/2].  0.2 reproduces the
        thesis' 90-110 ms.
    start_spread : float
        Flows start uniformly over [0, start_spread] [s] (10 s, ch. 3).
    access_rate : float or None
        Rate of each sender's access link [bit/s]; ``None`` is ten times the fair
        share, 10 bandwidth / n_flows (Fig. 3.2); ``math.inf`` for none.
    link_loss : float
        Probability that a packet is lost on the way to the bottleneck,
        independently of congestion [-].
    time_step : float or None
        Fixed step [s]; ``None`` chooses half the smallest propagation RTT, or
        less where the queue drains faster or a drop-tail queue's flows have
        small windows (see ``step``).  Must not exceed the smallest RTT.
        With ``None``, a RED or FPQ queue of a few packets against the step's
        service runs again at an eighth of the step, or a sixteenth (see
        ``step``); a chosen step is kept, and ``simulate`` warns after a run that needed a finer one.
    trace : bool
        Record time series (queue, drop rate, windows of ``trace_flows`` flows).
    trace_interval : float
        Sampling interval of the traces [s].
    trace_flows : int
        Number of flows whose windows are traced.
    workload : LongLived, FiniteTransfers, str or sequence of (int, workload)
        When the flows have data: ``LongLived()`` (the default) or
        ``FiniteTransfers(...)`` for every flow, a name (``"long-lived"``,
        ``"finite"``), or groups ``(count, workload)`` like ``senders``
        (counts adding up to ``n_flows``; stored as a tuple of pairs).

    Examples
    --------
    >>> s = Scenario(n_flows=10, bandwidth=10e6, rtt=0.1, queue=DropTail(buffer=100))
    >>> s.capacity, s.max_window, s.min_rtt
    (2170.138..., 113, 0.09)
    >>> Scenario(n_flows=0, bandwidth=10e6, rtt=0.1)
    Traceback (most recent call last):
    ...
    ValueError: n_flows must be a whole number >= 1, got 0.0
    """

    n_flows: int
    bandwidth: float
    rtt: float | tuple
    packet_size: float = 576.0
    queue: object = dataclasses.field(default_factory=RED)
    sender: object = dataclasses.field(default_factory=Tahoe)
    duration: float = 500.0
    warmup: float = 20.0
    seed: int | None = 0
    rtt_spread: float = 0.2
    start_spread: float = 10.0
    access_rate: float | None = None
    link_loss: float = 0.0
    time_step: float | None = None
    trace: bool = False
    trace_interval: float = 0.1
    trace_flows: int = 5
    senders: tuple | None = None
    workload: object = dataclasses.field(default_factory=LongLived)

    def __post_init__(self):
        _set(self, "n_flows", _whole("n_flows", self.n_flows, minimum=1))
        _set(self, "bandwidth", _positive("bandwidth", self.bandwidth))
        self._check_groups()
        _set(self, "workload", _workload(self))
        _set(self, "packet_size", _positive("packet_size", self.packet_size))
        _set(self, "queue", _spec("queue", self.queue, QUEUES))
        if self.senders is None:
            _set(self, "sender", _spec("sender", self.sender, SENDERS))
        for _, spec in self.groups:  # (HighSpeed(initial_window=1e200) failed in simulate, converting NaN)
            if spec.initial_window > self.window_cap(spec):
                raise ValueError(f"initial_window must be <= the senders' window cap ({self.window_cap(spec)} "
                                 f"packets: max_window, or 64 KB of packets), got {_checks.short(spec.initial_window)}")
        only = [type(p).__name__ for _, p in self.groups if isinstance(p, (TCPE, SDC))]
        if only and not getattr(self.queue, "ecn", False):
            raise ValueError(f"queue: {only[0]} reacts only to ECN marks and needs a queue that marks (RED, REDI or "
                             f"CHOKe with ecn=True), got {self.queue!r}")
        _set(self, "duration", _positive("duration", self.duration))
        _set(self, "warmup", _one("warmup", _checks.in_range, self.warmup, 0, self.duration, high_open=True))
        if self.seed is not None:
            _set(self, "seed", _checks.seed("seed", self.seed))
        _set(self, "rtt_spread", _one("rtt_spread", _checks.in_range, self.rtt_spread, 0, 2, high_open=True))
        _set(self, "start_spread", _nonnegative("start_spread", self.start_spread))
        if self.access_rate is not None:
            # (math.inf: no access link)
            _set(self, "access_rate", _one("access_rate", _checks.positive, self.access_rate))
        _set(self, "link_loss", _one("link_loss", _checks.in_range, self.link_loss, 0, 1, high_open=True))
        if self.time_step is not None:
            dt = _positive("time_step", self.time_step)
            if not dt <= self.min_rtt:
                raise ValueError(f"time_step must be <= the smallest RTT ({self.min_rtt:g} s), got {dt!r}")
            _set(self, "time_step", dt)
        _set(self, "trace", _checks.flag("trace", self.trace))
        _set(self, "trace_interval", _positive("trace_interval", self.trace_interval))
        _set(self, "trace_flows", _whole("trace_flows", self.trace_flows, minimum=0))
        if self.steps <= self.warmup_steps:
            # (An RTT of seconds sets a step of seconds: a run of a few steps may measure none.)
            raise ValueError(f"duration/warmup: the measured interval [{self.warmup:g}, {self.duration:g}] s holds no "
                             f"whole step of the simulation ({self.step:.3g} s); lengthen the run or shorten the "
                             f"warm-up")
        self._check_cost()

    def _check_groups(self):
        # The sender groups (one unless mixed) and the RTTs, per flow or per group.
        if self.senders is not None:
            try:
                groups = tuple((_whole("senders: count", c), _spec("senders", spec, SENDERS))
                               for c, spec in self.senders)
            except (TypeError, ValueError) as e:
                if isinstance(e, ValueError) and str(e).startswith("senders"):
                    raise
                raise ValueError(f"senders must be a sequence of (count, sender) pairs, got {self.senders!r}") from None
            if not groups or sum(c for c, _ in groups) != self.n_flows:
                raise ValueError(f"senders: group sizes {[c for c, _ in groups]} must add up to n_flows "
                                 f"({self.n_flows})")
            if len({spec.ecn for _, spec in groups}) > 1:
                # (RED marks whichever flows its decisions fall on; per-flow ECN capability is not modelled)
                raise ValueError("senders: the groups must all use ECN or all not (ecn differs between them)")
            _set(self, "senders", groups)
            _set(self, "sender", groups[0][1])
        if np.ndim(self.rtt) == 0:
            _set(self, "rtt", _positive("rtt", self.rtt))
            return
        if np.ndim(self.rtt) != 1:
            raise ValueError(f"rtt: give one RTT or a flat sequence of them (per flow or per sender group), got "
                             f"{np.ndim(self.rtt)} dimensions")
        rtts = tuple(_finite("rtt", float(x)) for x in _checks.positive("rtt", self.rtt))
        if len(rtts) not in (self.n_flows, len(self.groups)):
            raise ValueError(f"rtt: give one RTT, one per flow ({self.n_flows}) or one per sender group "
                             f"({len(self.groups)}); got {len(rtts)}")
        _set(self, "rtt", rtts)

    @property
    def groups(self):
        """The sender groups: ``((count, sender), ...)`` (one group unless ``senders`` is given)."""
        return self.senders if self.senders is not None else ((self.n_flows, self.sender),)

    @property
    def workloads(self):
        """The workload groups: ``((count, workload), ...)`` (one group unless ``workload`` lists groups)."""
        if isinstance(self.workload, _Workload):
            return ((self.n_flows, self.workload),)
        return self.workload

    @property
    def flow_rtts(self):
        """Each flow's propagation RTT [s] when given explicitly, else None (drawn from rtt and rtt_spread)."""
        if np.ndim(self.rtt) == 0:
            return None
        if len(self.rtt) == self.n_flows:
            return np.array(self.rtt)
        return np.repeat(self.rtt, [c for c, _ in self.groups])

    @property
    def mean_rtt(self):
        """Mean propagation RTT of the flows [s]."""
        return float(np.mean(self.flow_rtts)) if np.ndim(self.rtt) else self.rtt

    @property
    def max_rtt(self):
        """Largest propagation RTT of any flow [s]."""
        return float(max(self.rtt)) if np.ndim(self.rtt) else self.rtt * (1 + self.rtt_spread / 2)

    def per_flow(self, value):
        """``value(sender)`` for each flow's sender, as a float array (one entry per flow)."""
        return np.repeat(np.array([value(spec) for _, spec in self.groups], dtype=float),
                         [c for c, _ in self.groups])

    def _check_cost(self):
        # Refuse what cannot run (hours of work, GiBs of ACK ring), warn where slow
        # or where the chosen step cannot see the queue move.
        dt, drain = self.step, self.limit / self.capacity
        steps = self.duration / dt
        seconds = compute_seconds(steps, self.n_flows)
        why = f"{steps:.3g} steps of {dt:.3g} s x {self.n_flows} flows, about {seconds:.3g} s of computing"
        if seconds > MAX_SECONDS:
            raise ValueError(f"n_flows/rtt/time_step/duration: the scenario is too long to simulate: {why}")
        if seconds > SLOW_SECONDS:
            warnings.warn(f"the scenario will be slow: {why}", TCPModelsWarning, stacklevel=4)
        self._check_ring(dt, drain)
        if isinstance(self.queue, FPQ):
            self._check_counter(dt, steps)
        if self.time_step is not None and drain < dt:
            warnings.warn(f"time_step: {dt:g} s serves {self.capacity * dt:.0f} packets, more than the "
                          f"{self.limit}-packet buffer holds (it drains in {drain:.3g} s): the queue filling and "
                          f"draining within a step is not seen, so loss and queue will be off; use a step of at "
                          f"most {drain:.3g} s", TCPModelsWarning, stacklevel=4)
        if self.time_step is not None and isinstance(self.queue, CoDel) and dt > 2 * self._rule_step:
            warnings.warn(f"time_step: {dt:g} s is more than half CoDel's target ({self.queue.target:g} s), the "
                          f"queueing delay it holds the queue at: the queue's motion about it is not seen, so the "
                          f"queue will read low and utilization high (measured: 5 flows at 200 ms, a 10 ms step "
                          f"read 0.958 busy where ns-3 reads 0.914); the default step here is "
                          f"{self._rule_step:.3g} s", TCPModelsWarning, stacklevel=4)
        spacing = self.n_flows / self.capacity
        if self.time_step is not None and dt > max(4 * self._spacing_cap, self._rule_step):
            # Where Scenario.step's cap binds, at four times the cap (as the warning above is at four times
            # drop-tail's queue rule): time-outs read 0.30-0.37 of ns-3's at 60 flows with a step of 1.25
            # spacings and 0.50-0.56 at 80 flows with 0.78 spacings (905f7e2, 100 s, seeds 1-3).
            warnings.warn(f"time_step: {dt:g} s is longer than a flow's packet spacing ({spacing:.3g} s: "
                          f"{self.n_flows} flows share {self.capacity:.0f} packets/s) where a flow's window tops "
                          f"out at {self.top_window:.3g} packets: an overflow's drops reach the flows that have just "
                          f"retransmitted too rarely, so time-outs per packet will read low (a third to a half of "
                          f"ns-3's, measured) and loss a few % low; the default step here is "
                          f"{self._rule_step:.3g} s", TCPModelsWarning, stacklevel=4)

    def _check_ring(self, dt, drain):
        # The engine's ring spans a flow's longest delay until its ACK, in steps, for every flow (engine._Engine,
        # worst_delay): its propagation RTT, a packet's and its ACK's sending time on the links (serialization),
        # a full queue's delay, delay control's hold, a step.  Its message names what makes it long.
        held = max(getattr(p, "max_delay", 0.0) for _, p in self.groups)
        ring = ((self.max_rtt + self.serialization + drain + held + dt) / dt + 3) * self.n_flows * 8.0
        if not ring > MAX_BYTES:
            return
        access = "access_rate" if self.access_rate is not None else "n_flows/bandwidth"
        gib = f"the ACK ring would need {ring / 2 ** 30:.3g} GiB"
        parts = [(drain, f"n_flows/bandwidth/buffer: {gib}: a full {self.limit}-packet queue takes {drain:.3g} s "
                         f"to drain at {self.bandwidth:g} bit/s"),
                 (self.serialization, f"{access}/packet_size: {gib}: a {self.packet_size:g}-byte packet and its ACK "
                                      f"take {self.serialization:.3g} s to send on a {self.flow_access_rate:g} bit/s "
                                      f"access link and the {self.bandwidth:g} bit/s bottleneck"),
                 (self.max_rtt, f"rtt: {gib}: the longest RTT is {self.max_rtt:.3g} s"),
                 (held, f"sender: {gib}: delay control holds ACKs up to {held:.3g} s")]
        longest, why = max(parts, key=lambda part: part[0])
        raise ValueError(f"{why}, {longest / dt:.3g} steps of {dt:.3g} s for each of {self.n_flows} flows")

    def _check_counter(self, dt, steps):
        # FPQ's bit-vector counter (fpq.BitVectorCounter.update) builds two arrays of ``bits`` integers each step
        # with arrivals, and draws and orders each clear it owes: bits / t_clear a second, all at once where the
        # link was idle (the first packets after the flows' start, a time-out), so its memory peaks at the
        # clears of an idle spell as long as start_spread or a minimum RTO.
        q = self.queue
        clears = q.bits / q.t_clear  # [1/s]
        idle = max([self.start_spread] + [p.min_rto for _, p in self.groups])
        memory = q.bits * COUNTER_BIT_BYTES + clears * idle * COUNTER_CLEAR_BYTES
        seconds = steps * q.bits * COUNTER_BIT_SECONDS + self.duration * clears * COUNTER_CLEAR_SECONDS
        why = (f"FPQ's {q.bits}-bit counter clears {clears:.3g} bits a second (bits / t_clear) and sweeps its vector "
               f"in each of {steps:.3g} steps")
        if memory > MAX_BYTES:
            raise ValueError(f"bits/t_clear: {why}: it would need {memory / 2 ** 30:.3g} GiB (the clears of an idle "
                             f"spell of {idle:g} s at once)")
        if seconds > MAX_SECONDS:
            raise ValueError(f"bits/t_clear: the scenario is too long to simulate: {why}, about {seconds:.3g} s of "
                             f"computing")
        if seconds > SLOW_SECONDS:
            warnings.warn(f"the scenario will be slow: {why}, about {seconds:.3g} s of computing", TCPModelsWarning,
                          stacklevel=5)

    def batch_key(self):
        """What two scenarios must share to run as one batch: code paths, traces, and where they ask it, the run.

        Flow counts may differ (the engine pads the smaller scenarios with flows
        that never start), unless the flows are laid out in groups of senders or
        workloads, or traced.  So may the step, length and warm-up (each
        scenario runs at its own), unless traced (a trace's times are the
        batch's) or a workload measures over the batch's interval
        (``own_interval``).
        """
        laid_out = self.trace or len(self.groups) > 1 or len(self.workloads) > 1
        count = (lambda c: c) if laid_out else (lambda c: None)  # noqa: E731
        own = not self.trace and all(w.own_interval for _, w in self.workloads)
        run = None if own else (self.duration, self.warmup, self.step)
        return (count(self.n_flows), run, self.queue.batch_key(),
                tuple((count(c), spec.batch_key()) for c, spec in self.groups), self.trace, self.trace_interval,
                self.trace_flows, tuple((count(c), w.batch_key()) for c, w in self.workloads))

    @property
    def capacity(self):
        """Bottleneck rate [packets/s]."""
        return units.capacity(self.bandwidth, self.packet_size)

    @property
    def bdp(self):
        """Bandwidth-delay product at the mean propagation RTT [packets]."""
        return self.capacity * self.mean_rtt

    @property
    def limit(self):
        """Hard limit of the bottleneck queue [packets]."""
        if isinstance(self.queue, FPQ):
            if self.queue.buffer is not None:
                return self.queue.buffer
            top = fpq.red_params(2.0 * self.n_flows, self.bdp, self.queue.ppf, self.queue.max_loss,
                                 self.queue.min_th).max_th
            return int(math.ceil(4 * top))
        return self.queue.limit

    @property
    def min_rtt(self):
        """Smallest propagation RTT of any flow [s]."""
        return float(min(self.rtt)) if np.ndim(self.rtt) else self.rtt * (1 - self.rtt_spread / 2)

    @property
    def max_window(self):
        """The (first group's) senders' window cap [packets] (64 KB when the sender leaves it open)."""
        return self.window_cap(self.sender)

    def window_cap(self, sender):
        """``sender``'s window cap here [packets] (64 KB of packets when it leaves it open)."""
        if sender.max_window is not None:
            return sender.max_window
        return max(1, int(65536 // self.packet_size))

    @property
    def drain_time(self):
        """Time the bottleneck takes to empty the range the queue works in [s] (``inf`` if it stays empty).

        The range is drop-tail's buffer, RED's thresholds (max_th, twice
        that when gentle; at most the hard limit) or CoDel's standing queue at
        its target delay (target C), and at most what the
        flows' windows can queue beyond the pipe, n_flows * max_window -
        capacity * min_rtt: windows that cannot fill the link leave no queue.
        """
        top = math.inf
        if isinstance(self.queue, RED):
            top = self.queue.max_th * (2 if self.queue.gentle else 1)
        elif isinstance(self.queue, CoDel):
            top = self.queue.target * self.capacity
        reach = self.n_flows * self.max_window - self.capacity * self.min_rtt
        return min(self.limit, top, reach) / self.capacity if reach > 0 else math.inf

    @property
    def top_window(self):
        """A flow's fair-share window with the queue at the top of its range [packets].

        The capacity's share of one round trip plus a full ``drain_time``,
        C (mean_rtt + drain_time) / n_flows, at most ``max_window`` (which it
        is when the windows cannot fill the link).
        """
        return min(self.max_window, self.capacity * (self.mean_rtt + self.drain_time) / self.n_flows)

    @property
    def steps(self):
        """Steps the run takes, ``duration`` over ``step`` rounded to a whole number [-]."""
        return int(round(self.duration / self.step))

    @property
    def warmup_steps(self):
        """Steps before the measured interval, ``warmup`` over ``step`` rounded [-]: statistics cover the rest."""
        return int(round(self.warmup / self.step))

    @property
    def step(self):
        """The time step the engine uses [s]: ``time_step``, or what the RTT and the queue's motion need.

        Half the smallest propagation RTT (a window's packets spread over the
        round trip), or less where the queue moves faster: a quarter of the
        ``drain_time`` of a drop-tail buffer, which a congestion cycle sweeps
        from full to the ebb after its losses, and half that of RED's
        thresholds, whose queue rides on an average of hundreds of packets
        (measured: 20 drop-tail flows through half a BDP, 434 packets, moved
        their queue by 15 % from half to a quarter of the drain time and by
        2 % from a quarter to an eighth; RED from half to a quarter, at most
        5 %).  Where the windows are small (``top_window`` below
        ``SMALL_WINDOW``, 16 packets) and the queue drops by overflow
        (drop-tail, random drop), at most a quarter of a flow's packet
        spacing n_flows / C as well: a step longer than that spacing serves
        the drops of an overflow too late for the flows that have just
        retransmitted, which then lose their retransmissions too rarely and
        time out too rarely (measured, 905f7e2, 100 s, seeds 1-3: 80 flows,
        20 Mbit/s, 50 ms, drop-tail 250 time out 0.50-0.56 times as often per
        packet as ns-3 at a 14.4 ms step, 0.73-0.85 at this rule's 4.6 ms; 60
        flows, 20 Mbit/s, 80 ms, drop-tail 300 0.30-0.37 at 17.3 ms and
        0.84-1.17 at 4 ms; 50 flows, 20 Mbit/s, 60 ms, drop-tail 200
        0.34-0.42 at 11.5 ms and 0.64-0.84 at 3 ms; loss 2-6 % nearer ns-3).
        RED's early drops, spread over the arrivals, do not hinge on the step
        as an overflow's do (measured, 905f7e2, seeds 1-2: 80 flows, 20 Mbit/s,
        50 ms, RED 5/250/0.1, windows under 6 packets, time out 1.06 times as
        often per packet at its 20 ms step as at 1.5 ms (1.04 on 3819adb, 1.05
        on 94e94b5, seeds 1-3), 1.01 at 4.6 ms, loss +1 %
        and +2 %; 60 flows, 80 ms, RED 100/800/0.1, windows of 7.9, 0.87 at a
        32 ms step, 2.3 packet spacings), so RED, its kin and FPQ are left
        uncapped.  Where those small windows sit behind access links that take
        one to two such steps to send a packet (its packet time T, T / 2 <=
        step < T), the step is ``ACCESS_SHARE`` (0.49) T instead: a burst's
        packets reach the bottleneck T apart, at such a step each in the step
        after the one before, and the engine then loses less than at any finer
        step, through the flows awaiting a loss's detection (measured on
        df7f17c, 200 flows, 10 Mbit/s, 10 ms, drop-tail 500 behind 1 Mbit/s
        links, T = 4.6 ms, phase effect off: loss 5.93e-2 at 4 ms, 6.23e-2,
        6.29e-2 and 6.26e-2 at 2, 1 and 0.5 ms, seeds 1-6, 200 s; at 1 ms,
        seeds 1-4, 100 s, 6.32e-2, and 6.06e-2 with the access links letting
        the packets of the flows awaiting detection out one step apart; a
        burst's second packet held in its first's step or two steps on at 4 and
        2 ms moved loss by -0.4 and +0.1 % from one to the other).  At 0.49 T,
        2.26 ms, halving the step moves that loss by +0.7 % (+1.3 % with the
        phase effect), where the 4 ms step moved it by +5.1 % (+5.5 %).  At a
        step of T or more a burst shares one step, at under T / 2 its packets
        fall two or more steps apart.  Never below a sixteenth of the RTT: that bounds the cost at
        8 times the RTT rule whatever the link speed, and within a step the
        engine keeps the ACK clock's spacing (see ``AckRing.insert``).

        CoDel's step is a quarter of its target (``CODEL_SHARE``), or half
        the smallest RTT where that is shorter, whatever the RTT and the
        link: its queue stands about a target's worth of service, which the
        step must resolve (measured against ns-3: 5 flows at 200 ms read
        0.958 busy at a 10 ms step, 0.928 at 2.5 and 0.915 at 1.25 ms, ns-3
        0.914), so a run costs its duration over that step.

        The rule cannot know the queue a RED or FPQ queue will settle at.
        Where a run at this step (RED itself, plain, gentle or marking, or
        FPQ; not CHOKe or RED-I) averages a queue under a fifth of a step's
        service (a few packets: RED's thresholds low against the link's
        speed, or a link below full load), ``simulate`` runs the scenario
        again from the start at an eighth of the step and returns that run
        (``SimResult.time_step`` says which; ``engine._finer_steps``): the
        step's fluid service takes its arrivals as evenly spread, and such a
        queue, made by the collisions of the flows' bursts, reads up to half
        low and swings too hard at the coarser step.  Where that run's queue
        is still under half of its own step's service, the scenario runs once
        more at a sixteenth of the step; where the first run's queue is under
        0.03 of its service, it goes straight on to the sixteenth.  Such a
        scenario costs about 9 (17, or 25) times as much.  A chosen ``time_step`` is kept, with a
        warning after the run where it could not hold the queue.
        """
        if self.time_step is not None:
            return self.time_step
        return self._rule_step

    @property
    def _rule_step(self):
        # Scenario.step's rule, whatever time_step says.
        if isinstance(self.queue, CoDel):  # (its own time scale, whatever the RTT: see step)
            return min(self.min_rtt / 2, CODEL_SHARE * self.queue.target)
        share = 0.5 if isinstance(self.queue, (RED, FPQ)) else 0.25
        step = min(self.min_rtt / 2, max(self.drain_time * share, self.min_rtt / 16), self._spacing_cap)
        if math.isfinite(self._spacing_cap) and math.isfinite(self.flow_access_rate):
            # Where the spacing cap's set-ups would put a burst's next packet in the very next step (see step).
            packet_time = 1 / units.capacity(self.flow_access_rate, self.packet_size)
            if packet_time / 2 <= step < packet_time:
                return max(ACCESS_SHARE * packet_time, self.min_rtt / 16)
        return step

    @property
    def _spacing_cap(self):
        # A quarter of a flow's packet spacing where Scenario.step is capped (else inf): drop-tail and random
        # drop queues (which drop by overflow) filled by windows that top out below SMALL_WINDOW.
        overflow = not isinstance(self.queue, (RED, FPQ, CoDel))
        if overflow and self.top_window < SMALL_WINDOW and math.isfinite(self.drain_time):
            return max(self.n_flows / (4 * self.capacity), self.min_rtt / 16)
        return math.inf

    @property
    def serialization(self):
        """Time a data packet and its ACK take to be sent on the access link and the bottleneck [s].

        Part of every round trip beside the propagation (``rtt``): 4.6 ms for a
        576-byte packet on a 1 Mbit/s access link.  The ACK is a 40-byte header.
        """
        per_byte = 8 / self.bandwidth + (8 / self.flow_access_rate if math.isfinite(self.flow_access_rate) else 0.0)
        return (self.packet_size + ACK_BYTES) * per_byte

    @property
    def flow_access_rate(self):
        """Per-flow access link rate [bit/s] (possibly ``inf``)."""
        if self.access_rate is not None:
            return self.access_rate
        return 10 * self.bandwidth / self.n_flows


def _spec(name, value, table):
    if isinstance(value, str):
        return table[_checks.choice(name, value, tuple(table))]()
    if not isinstance(value, tuple(table.values())):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, table))} or their spec objects; got {value!r}")
    return value
