"""Drop-tail and random-drop equilibria: loss against flows and buffer (Morris 1999, Eq. 5.6-5.7).

With a FIFO that is almost always full, the buffer holds every flow's
effective window (Eq. 5.2): ``buffer = n (0.87/sqrt(l) - 1)``.  Random drop
deletes from the middle of the queue, so flows see losses half a window
earlier and hold half a packet less each.

:func:`equilibrium` offers four models, named as :func:`tcpmodels.red.equilibrium`'s:

``P1``
    Eq. 5.6/5.7 as published: the buffer holds the flows' windows, the queue
    is the buffer, no wire, no time-outs.
``P2``
    The thesis' own corrections, applied as Eq. 5.14 applies them to RED:
    storage includes the packets on the wire (Eq. 8.1) and flows in time-out
    (Eq. 5.3-5.5, Tahoe's 13-packet spacing) hold nothing.
``P3``
    This library's extension, derived (nothing fitted) from how a drop-tail
    queue overflows, as P3 is for RED:

    1. an overflow lasts at most one round trip: the queue is full until the
       first flows that lost a packet hear of it, ``rtt + queue/capacity``
       after the loss.  Meanwhile every flow grows by ``g = 1/2`` packet (one
       packet per two windows with delayed ACKs, Eq. 5.1's assumption), and
       that growth is what the full queue drops: ``g`` drops per flow;
    2. the drops fall on the flows whose packets pass the queue while it is
       full, and a hit flow loses ``k`` packets before it halves once (NewReno
       and SACK repair an overflow's losses together).  ``k`` comes from the
       flows' trains (the record's seventh pass): the two packets a delayed
       ACK releases are lost together half the time, ``5/4`` packets per hit
       pair (:data:`PAIR_LOSSES`); the ACK clock keeps a flow's window in one
       train whose extent, in shares of the round trip, wanders without drift
       between the window packed at its access link's rate (``C/a`` of the
       flow's ``1/n``) and the whole round trip, uniformly; the queue is full
       for the share ``d = 2 g sqrt(n E/(1 - E))/w`` of the round trip (at
       most 1) in which its profile stays within the growth ``g n`` of its
       peak (the trains' arrival rate deviates by one standard deviation,
       ``C sqrt((1 - E)/(n E))``, ``E`` the mean extent, ``w`` the window);
       a flow's pairs that pass in that window are hit independently, ``g /
       (5/4)`` on average per flow.  ``k = g / P(hit)``, over the trains'
       extents and their offsets from the overflow: 1.55-1.75 where the
       overflow is short against the round trip (few flows, windows of
       20-80 packets), 1.3-1.45 where it fills it (windows of 2-5).  Windows
       are those of the recovery cycle (the record's second pass: from ``W/2
       - 1`` to ``W`` at ``g`` per round trip, plus one round trip of
       recovery, ``1/e = 3 W^2/4 + 3 W/2 - 2`` packets in ``W + 3`` round
       trips) at the loss-*event* rate ``e = l / k``.  Random drop deletes
       queued packets at random, without trains or pairs: its ``k`` is the
       Poisson spread's below;
    3. the queue sits near, not at, the buffer: the hit flows' halvings take
       ``f (14/27) (queue + wire)`` packets out (``f = 1 - exp(-g)``, the
       Poisson spread's share of flows hit; a flow is hit in proportion
       to its rate, so at 7/9 of its peak window, 28/27 of the mean) over one
       round trip in which the other flows grow by ``(1 - f) g n``; the queue
       dips by the difference ``y`` and refills at ``g n`` packets per round
       trip; its time average is ``buffer - y/2 (1 + t)/(2 + t)``,
       ``t = y / (g n)`` (no dip, a full queue, where growth outpaces the
       halvings);
    4. time-outs as in RED's P3, at the round-trip time the queue produces
       and with the sender's spacing (:data:`tcpmodels.tcp.TIMEOUT_SPACING`),
       counting loss *events*: the losses of one overflow are one event;
    5. given the senders' limits (``max_window``, ``access_rate``), one flow
       escapes the overflows (drop-tail's lock-out, RFC 2309): each of 28
       runs of an ns-3 replica of the reference has one flow that lost 0-3
       packets in 180 s (10-24 in two runs at 100-200 flows) where the
       others lost 10-133 on average; in the 14 runs that counted its
       packets it sent 8-25 % of them, at its window limit (64 KB) or its
       access link's rate.  A flow at a limit sends no growth packets and
       no three-packet bursts, the packets an overflow drops.  P3 gives it
       ``min(max_window, access_rate (rtt + queue/capacity))`` packets
       and at most half the storage (none where the limit exceeds the
       storage), and steps 1-4 apply to the other ``n - 1`` flows and the
       rest of the storage.  Loss and time-outs per packet count all flows'
       packets, the time-out fraction all flows.

    Against the ns-3 drop-tail reference (500 packets, 10 ms, NewReno) P3 is
    within 8.3 % on loss at 20-200 flows and 2.5 % on queue (Eq. 5.6: 34-43 %
    low at 20-40 flows); with the reference's senders' limits (122 segments,
    access links at ``max(10 C / n, 1 Mbit/s)``) within 9.7 % and 2.4 %, and
    the escaping flow's share gives the reference's Jain index of goodput,
    which P3 never sees, to 0.06 (``tests/test_droptail.py`` records every
    row).  Against an ns-3 replica of the reference on 100-200 ms links (22
    runs, 10 and 20 Mbit/s, buffers of 217-868 packets, 20-200 flows) it is
    -21 % to +15 % on loss (-18 % to +7 % with the limits), queue +0.6 % to
    +10.2 %; against :mod:`tcpmodels.sim` (NewReno with SACK and ns-3 3.44's
    PRR, drop-tail's phase effect; 16 runs: 100-200 ms links, 10 and 20
    Mbit/s, buffers of 250-1000 packets, 20-200 flows) -8 % to +14 %, where
    Eq. 5.6 is -1 % to +708 %, and -2 % to +10 % off the simulator's queue
    (+17 % to +29 % with 250 packets behind 868 on the wire, where the link
    idles).

    Its known gaps: its losses per event have the replica's level (1.40-1.73
    against 1.48-1.84 per event, 1.41-1.72 within one round trip) but not
    its pattern from run to run (correlation -0.5 per event: ns-3's are flat
    in the flow count, P3's fall with the window); the train's next pass one
    round trip later, which adds 2-17 % to ns-3's events, is not in it; and
    the trains' extents are taken uniform, where the replica's fill less of
    the round trip at 40 flows than at 20.  The mechanisms derived and
    tried, and what the simulator and the replica measured, are recorded in
    the documentation's page :doc:`/droptail_record`
    (``docs/droptail_record.md``).
``P3-poisson``
    P3 as it was before the seventh pass: the drops spread over the flows at
    random (Poisson, mean ``g`` per flow), ``k = g / (1 - exp(-g))`` = 1.27,
    windows Eq. 5.2 at the loss-event rate; steps 1, 3-5 as P3.  Within 21 %
    of the reference (-21 % at 20 flows, 14 % with the senders' limits), 18-36
    % under the replica on 100-200 ms links at 20-100 flows.
"""

import dataclasses
import functools

import numpy as np

from . import _checks, solve, tcp

__all__ = ["POLICIES", "LOSS_CONSTANT", "MODELS", "GROWTH", "Equilibrium", "loss_rate", "queue", "equilibrium"]

#: Packets each flow holds below Eq. 5.1's window: 1 for drop-tail (Eq. 5.2),
#: 1.5 for random-drop (Eq. 5.7).
POLICIES = {"droptail": 1.0, "random-drop": 1.5}

#: 0.76 in Eq. 5.6/5.7 as published: 0.87^2 = 0.7569 rounded
#: (:func:`tcpmodels.symbolic.droptail_constant`).
LOSS_CONSTANT = 0.76


MODELS = ("P1", "P2", "P3", "P3-poisson")

#: Window growth per round trip in congestion avoidance with delayed ACKs
#: (one packet per two windows, Morris 1999, section 5.1.1) [packets].
GROWTH = 0.5

# A flow is hit in proportion to its rate: over a window sawtooth uniform on
# [W/2, W] that weights it at E[w^2]/E[w] = 7/9 W = 28/27 of its mean window,
# and it gives up half of that: 14/27 of its mean window
# (:func:`tcpmodels.symbolic.droptail_overflow_constants` derives it and k).
_HALVING_SHARE = 14.0 / 27.0

#: Packets lost per hit burst: the pair one delayed ACK releases meets a full
#: queue, and its second packet, one access-link packet time later, finds the
#: queue full again half the time at the overflow's critical load, so a pair
#: hit with probability 2p loses 2.5p packets (record, sixth pass) [packets].
PAIR_LOSSES = 1.25

# Gauss-Legendre nodes for the mean over the trains' extents, applied on each
# piece between the kinks of the overlap law (module docstring, step 2).
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(6)


@dataclasses.dataclass(frozen=True)
class Equilibrium(tcp.OperatingPoint):
    """Predicted drop-tail (or random-drop) operating point.

    Attributes
    ----------
    loss_rate, queue, window, timeouts_per_packet, timeout_fraction
        As :class:`tcpmodels.tcp.OperatingPoint` (``queue`` is the time
        average; with an escaping flow, P3's step 5, ``window`` is the other
        flows').
    losses_per_event : float or ndarray
        Packets a flow loses in one overflow before it halves [packets]
        (1 for P1 and P2).
    escaping_window : float or ndarray
        Packets held by the one flow that escapes the overflows (P3's step 5,
        drop-tail's lock-out) [packets]; 0 where no flow escapes: without
        the senders' limits, with one flow, with a limit above the storage,
        and for P1 and P2.
    jain_index : float or ndarray
        Jain index of the flows' rates this gives [-]: the escaping flow
        sends a share ``s = escaping_window / (queue + capacity rtt)`` of the
        packets and the others share the rest equally,
        ``1 / (n (s^2 + (1 - s)^2 / (n - 1)))``; 1 where no flow escapes.
        Against the drop-tail reference's Jain index of goodput, with the
        reference's limits, it is within 0.07 at 20-200 flows
        (``tests/test_droptail.py``).
    model : str
        ``"P1"``, ``"P2"``, ``"P3"`` or ``"P3-poisson"``.
    escaping_share : float or ndarray
        Fraction of all the flows' packets the escaping flow sends,
        ``escaping_window / (queue + capacity rtt)`` [-] (each flow sends the
        packets it holds once per round trip); 0 where no flow escapes.
    """

    losses_per_event: object
    escaping_window: object
    jain_index: object
    model: str
    escaping_share: object


def _policy(policy):
    return POLICIES[_checks.choice("policy", policy, tuple(POLICIES))]


def loss_rate(n_flows, buffer, policy="droptail", bdp=0.0):
    r"""Loss rate of `n_flows` TCPs filling a drop-tail or random-drop buffer (Morris 1999, Eq. 5.6, 5.7).

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived TCP flows, > 0 [flows].
    buffer : float or array_like
        Router buffer, >= 0 [packets].
    policy : {"droptail", "random-drop"}, optional
        Which end of the queue loses packets.
    bdp : float or array_like, optional
        Packets stored on the links, added to the buffer as in the thesis'
        Eq. 8.1 ("total storage includes ... packets in flight on long links").
        0, the default, is Eq. 5.6/5.7 as published [packets].

    Returns
    -------
    float or ndarray
        Loss rate [-].

    Notes
    -----
    .. math:: l = \frac{0.76\,n^2}{(n + q)^2} \quad\text{(drop-tail)}, \qquad
              l = \frac{0.76\,n^2}{(1.5n + q)^2} \quad\text{(random drop)}

    Valid while flows keep windows above about four packets (buffer above
    about 5 per flow): with fewer, time-outs idle flows and real loss falls
    below the prediction (section 5.2.1).  A warning says so.

    Examples
    --------
    >>> round(loss_rate(100, 500), 5)   # 0.76 * 100**2 / 600**2
    0.02111
    >>> round(loss_rate(100, 500, policy="random-drop"), 5)   # 0.76 * 1e4 / 650**2
    0.01799
    """
    n = _checks.positive("n_flows", n_flows, finite=True)
    q = _checks.nonnegative("buffer", buffer)
    wire = _checks.nonnegative("bdp", bdp)
    held = _policy(policy)
    total = q + wire
    _checks.warn_where(total < 4.0 * n, "fewer than 4 packets of storage per flow: flows fall into "
                                        "time-out and Eq. 5.6/5.7 over-estimate loss (Morris 1999, 5.2.1)")
    l = LOSS_CONSTANT * n**2 / (held * n + total) ** 2  # Eq. 5.6 / 5.7
    return _checks.scalar_or_array(l, n_flows, buffer, bdp)


def queue(n_flows, loss_rate, policy="droptail"):
    r"""Packets `n_flows` TCPs keep queued at a loss rate: the queue form of Eq. 5.6/5.7.

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived TCP flows, > 0 [flows].
    loss_rate : float or array_like
        Loss rate, in (0, 1] [-].
    policy : {"droptail", "random-drop"}, optional
        Which end of the queue loses packets.

    Returns
    -------
    float or ndarray
        Queue [packets]; negative where the law has no meaning (warned).

    Notes
    -----
    .. math:: q = n\left(\frac{0.87}{\sqrt{l}} - 1\right), \qquad
              q = n\left(\frac{0.87}{\sqrt{l}} - 1.5\right)

    Examples
    --------
    >>> round(queue(100, 0.02), 1)   # 100 * (0.87 / sqrt(0.02) - 1)
    515.2
    """
    n = _checks.positive("n_flows", n_flows)
    l = _checks.in_range("loss_rate", loss_rate, 0.0, 1.0, low_open=True)
    q = n * (tcp._window(l) - _policy(policy))
    _checks.warn_where(q < 0, "loss_rate too high: flows would hold a negative queue")
    return _checks.scalar_or_array(q, n_flows, loss_rate)


# ---------------------------------------------------------------- equilibria

def _cycle_window(events):
    # Mean window of the recovery cycle (record, second pass): from a = W/2 - 1 up to W at 1/2 packet per
    # round trip, plus one round trip of recovery at a: 1/e = 3 W^2/4 + 3 W/2 - 2 packets in W + 3 round
    # trips.  It over-states the packets held less than Eq. 5.2 at 2-10 packets per flow.
    per_cycle = 1.0 / events
    peak = (np.sqrt(2.25 + 3.0 * (per_cycle + 2.0)) - 1.5) / 1.5
    return per_cycle / (peak + 3.0)


def _balance(l, n, storage, rtt, rto, spacing, per_event, held, queue_delay, cycle=False):
    # Packets the sending flows hold = storage (buffer or queue, plus wire).
    # Windows are Eq. 5.2 (or the recovery cycle's) at the loss-event rate
    # l / per_event; time-outs Eq. 5.3-5.4 at that rate, seen at the round
    # trip rtt + queue_delay.
    events = l / per_event
    w = _cycle_window(events) - (held - 1.0) if cycle else tcp._window(events) - held
    o = tcp._timeout_rate(events, spacing)
    frac = tcp._timeout_fraction(o, w, rtt + queue_delay, rto)
    return n * (1.0 - frac) * w - storage, w, o, frac


def _residual(l, *args, cycle=False):
    return _balance(l, *args, cycle=cycle)[0]


def _p3_queue(n, buffer, wire):
    # Time-average queue of the overflow cycle (module docstring, step 3), in
    # closed form.  With u = queue + wire the hit flows give up a u (a = hit
    # fraction times the share each gives up) while the others grow by
    # b = (1 - f) g n, so the queue dips by y = a u - b and refills in
    # t = y / (g n) round trips: buffer + wire - u = (y / 2)(1 + t)/(2 + t),
    # a quadratic in y.  Where y would be <= 0 the growth outpaces the
    # halvings and the queue stays at the buffer.
    hit = -np.expm1(-GROWTH)
    a, b, c = hit * _HALVING_SHARE, (1.0 - hit) * GROWTH * n, 1.0 / (GROWTH * n)
    full = a * (buffer + wire)
    a2, a1, a0 = c * (1.0 + a / 2.0), c * (full - b) - 2.0 - a / 2.0, 2.0 * (full - b)
    root = np.sqrt(a1**2 + 4.0 * a2 * np.maximum(a0, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):  # each form is used where it does not cancel
        y = np.where(a1 > 0, (a1 + root) / (2.0 * a2), 2.0 * a0 / (root - a1))
    dip = np.where(a0 > 0, y, 0.0)
    return np.where(a0 > 0, (dip + b) / a - wire, buffer), dip


def _solve_point(n, storage, rtt, rto, spacing, per_event, held, queue_delay):
    # The balance falls from + (tiny loss, huge windows) to -storage where the
    # window reaches zero, 0.87 / sqrt(l / per_event) = held.
    upper = np.minimum(per_event * (tcp.WINDOW_CONSTANT / held) ** 2, 1.0)
    args = (n, storage, rtt, rto, spacing, per_event, held, queue_delay)
    l = solve.root_below(_residual, upper, args, "no drop-tail equilibrium with loss_rate <= 1")
    _, w, o, frac = _balance(l, *args)
    return l, w, o, frac


def _solve_events(n, storage, rtt, rto, spacing, held, queue_delay):
    # P3's balance in the loss-event rate e with the recovery cycle's windows.  They reach the packets held
    # below Eq. 5.1 (random drop's half packet) where 1/e = P solves (a P - 3)^2 = 8.25 + 3 P, a = 1.5 /
    # (held - 1); drop-tail's never reach zero: where its flows hold more than the storage even at one
    # event per packet, e = 1 (warned by the caller).
    args = np.broadcast_arrays(n, storage, rtt, rto, spacing, 1.0, held, queue_delay)
    below = args[6] - 1.0
    a = 1.5 / np.where(below > 0, below, 1.0)
    root = 2.0 * a**2 / ((6.0 * a + 3.0) + np.sqrt((6.0 * a + 3.0) ** 2 - 3.0 * a**2))
    upper = np.where(below > 0, np.minimum(root, 1.0), 1.0)
    residual = functools.partial(_residual, cycle=True)
    over = residual(upper, *args) > 0
    if not over.any():  # the usual case: no copies
        e = solve.root_below(residual, upper, args)
    else:
        e = upper.copy()
        if not over.all():
            e[~over] = solve.root_below(residual, upper[~over], tuple(x[~over] for x in args))
    _, w, o, frac = _balance(e, *args, cycle=True)
    return e, w, o, frac


def _hit_share(extent, overflow, rate):
    # P(a flow is hit) for its train of `extent` and an overflow window of `overflow` (fractions of the round
    # trip) at a uniform offset: their overlap L is the excess e = extent + overflow - 1 (if > 0) with
    # probability e, the shorter s with probability |extent - overflow|, uniform on (e, s) otherwise.  The
    # flow's pairs in L are hit independently: P(hit | L) = 1 - exp(-rate L / extent).
    excess = np.maximum(extent + overflow - 1.0, 0.0)
    short = np.minimum(extent, overflow)
    c = rate / extent
    miss_excess, miss_short = np.expm1(-c * excess), np.expm1(-c * short)  # -P(hit | L) at L = e and s
    ramp = (short - excess) - (miss_excess - miss_short) / c
    return 2.0 * ramp - excess * miss_excess - np.abs(extent - overflow) * miss_short


def _train_losses(n, window, packed):
    # Losses per event (module docstring, step 2): pairs of PAIR_LOSSES, a flow's window in one train whose
    # extent is uniform between `packed` and the whole round trip, an overflow window of the queue's peak.
    mean_extent = (1.0 + packed) / 2.0
    with np.errstate(divide="ignore"):
        spread = np.sqrt(n * mean_extent / (1.0 - mean_extent))
    overflow = np.minimum(2.0 * GROWTH * spread / window, 1.0)
    pairs = window / 2.0 * overflow
    # Hits per pair in the window: at most every pair (windows under 0.8 packets, beyond the model).
    per_pair = np.minimum(GROWTH / PAIR_LOSSES / pairs, 1.0 - 1e-15)
    rate = -np.log1p(-per_pair) * window / 2.0
    # Mean over the extents, piece by piece between the kinks at overflow and 1 - overflow.
    kinks = np.sort(np.clip([np.minimum(overflow, 1.0 - overflow), np.maximum(overflow, 1.0 - overflow)],
                            packed, 1.0), axis=0)
    ends = [packed, kinks[0], kinks[1], np.ones_like(packed)]
    total = 0.0
    for lo, hi in zip(ends[:-1], ends[1:], strict=False):
        half = (hi - lo) / 2.0
        for x, weight in zip(_NODES, _WEIGHTS, strict=True):
            total = total + weight * half * _hit_share(lo + half * (1.0 + x), overflow, rate)
    span = 1.0 - packed
    hit = np.where(span > 1e-9, total / np.where(span > 1e-9, span, 1.0), _hit_share(1.0, overflow, rate))
    # A hit flow loses at least its hit pair's PAIR_LOSSES: below one pair in the overlap (windows of 1-2
    # packets) the binomial law over a fraction of a pair would hit more flows than there are hits.
    return np.maximum(GROWTH / hit, PAIR_LOSSES)


def _escaping_window(n, storage, round_trip, max_window, access_rate):
    # The flow the overflows pass over (module docstring, step 5) holds what its own limits let it: its
    # window limit, or its access link's rate times the round trip, at most half the storage.  None
    # without a limit below the storage (nothing stops its growth before it overflows the buffer itself)
    # or without a second flow.  The second result marks the band where the limit is half the storage
    # or more, measured only at its lower edge (warned).
    limit = np.minimum(max_window, access_rate * round_trip)
    escapes = (n >= 2) & (limit < storage)
    return np.where(escapes, np.minimum(limit, storage / 2), 0.0), escapes & (limit >= storage / 2)


def _limit(name, value):
    return np.inf if value is None else _checks.positive(name, value)


def equilibrium(n_flows, buffer, *, rtt, capacity, model="P3", policy="droptail", rto=1.0, sender="newreno",
                max_window=None, access_rate=None):
    r"""Loss rate, queue and time-outs of `n_flows` TCPs through a drop-tail or random-drop buffer.

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived TCP flows, >= 1, finite [flows].
    buffer : float or array_like
        Router buffer, > 0, finite [packets].
    rtt : float or array_like
        Round-trip propagation time, > 0, finite [s].
    capacity : float or array_like
        Bottleneck rate, > 0, finite [packets/s].
    model : {"P3", "P2", "P1", "P3-poisson"}, optional
        ``"P1"``: Eq. 5.6/5.7.  ``"P2"``: with the wire (Eq. 8.1) and
        time-outs (Eq. 5.5).  ``"P3"`` (default): this library's derived
        extension (module docstring), the most accurate.  ``"P3-poisson"``:
        P3 before its losses per event came from the flows' trains.
    policy : {"droptail", "random-drop"}, optional
        Which end of the queue loses packets.  Random drop in P3 is the same
        overflow cycle with Eq. 5.7's 1.5 packets held below Eq. 5.1 (no
        packet-level reference checks it).
    rto : float or array_like, optional
        Length of one retransmission time-out [s] (the thesis: 1 s).
    sender : {"newreno", "reno", "tahoe"}, optional
        Sender whose time-out spacing P3 uses; P1 and P2 are the thesis'
        Tahoe analysis.  P3 counts an overflow's losses as one event, as
        NewReno and SACK repair them; Tahoe's go-back-N repair does too, RFC
        2001 Tahoe times out on the second loss (under-counted).
    max_window : float or array_like, optional
        The senders' window limit, > 0 (the receiver's window over the
        segment size: 64 KB without window scaling is 122 segments of 536
        bytes); None, the default, for none [packets].  P3 only: with a limit
        one flow escapes the overflows (module docstring, step 5).
    access_rate : float or array_like, optional
        Rate of each sender's own link into the bottleneck, > 0; None, the
        default, for links that never limit a flow [packets/s].  P3 only, as
        `max_window`.

    Returns
    -------
    Equilibrium
        ``.loss_rate``, ``.queue``, ``.window``, ``.timeouts_per_packet``,
        ``.timeout_fraction``, ``.losses_per_event``, ``.escaping_window``,
        ``.jain_index``, ``.model``, ``.escaping_share``.

    Notes
    -----
    P1 (Eq. 5.6, 5.7), queue = buffer, time-outs from Eq. 5.3/5.4 at `rtt`:

    .. math:: l = \frac{0.76\,n^2}{(h n + q)^2}, \quad h = 1 \text{ (drop-tail)}, 1.5 \text{ (random drop)}

    P2: :math:`n\,(1 - O(l, r, w))\,w = q + pps\cdot r`, :math:`w = 0.87/\sqrt{l} - h`.

    P3: the same balance with the queue :math:`\bar q` of the overflow cycle,
    the recovery cycle's windows at the loss-event rate :math:`e = l/k` and
    time-outs at :math:`r + \bar q/pps`, :math:`k` from the flows' trains
    (module docstring, step 2; :math:`g = 1/2`):

    .. math:: n\,(1 - O(e, r + \bar q/pps, w))\,w = \bar q + pps\cdot r,
              \quad w = \frac{1/e}{W + 3} - (h - 1), \quad
              \frac{3}{4}W^2 + \frac{3}{2}W - 2 = \frac{1}{e}

    P3-poisson: :math:`w = 0.87/\sqrt{e} - h`, :math:`k = g/(1 - e^{-g})`.

    With the senders' limits (step 5) the balance is over the ``n - 1``
    other flows and the storage less the escaping flow's
    :math:`h = \min(W_{max}, a\,(r + q_0/pps), (q_0 + pps\cdot r)/2)`, with
    :math:`q_0` the cycle's queue without it, and the queue is the cycle's of
    those ``n - 1`` flows; loss and time-outs per packet are then scaled by
    the others' share of the packets,
    :math:`(\bar q + pps\cdot r - h)/(\bar q + pps\cdot r)`.

    Validity: P1 warns below 4 packets of storage per flow (the thesis'
    section 5.2.1).  P3 warns where one overflow's window drop exceeds the
    buffer: the queue then empties and the link idles, which none of these
    models describes, and where the senders' limits let one flow hold half
    the storage or more (measured only at half); P3 reports loss 1 (warned)
    where the flows' recovery cycles hold more than the storage even at one
    loss event per packet.  P1 and P2 warn above 10 % loss.

    Examples
    --------
    The thesis' section 5.2 set-up (10 Mbit/s, 576 bytes, 500 packets, 10 ms), 40 flows:

    >>> e = equilibrium(40, 500, rtt=0.01, capacity=2170, model="P1")
    >>> round(e.loss_rate, 5), e.queue   # 0.76 * 40**2 / 540**2
    (0.00417, 500.0)
    >>> e = equilibrium(40, 500, rtt=0.01, capacity=2170)
    >>> round(e.loss_rate, 5), round(e.queue, 1), round(e.losses_per_event, 3)   # ns-3: 0.00629, 464.1
    (0.00621, 463.4, 1.525)
    >>> round(equilibrium(40, 500, rtt=0.01, capacity=2170, model="P3-poisson").loss_rate, 5)
    0.00555

    20 flows with the reference's senders' limits (64 KB windows of 536-byte
    segments, 5 Mbit/s access links): one flow escapes at 122 packets, the
    other 19 keep 19.4 each:

    >>> e = equilibrium(20, 500, rtt=0.01, capacity=2170, max_window=122, access_rate=1085)
    >>> round(e.loss_rate, 5), round(e.queue, 1), round(e.window, 1)   # ns-3: 0.00196, 459.7
    (0.00208, 469.0, 19.4)
    >>> float(e.escaping_window), round(e.jain_index, 2)   # ns-3's Jain index of goodput: 0.52
    (122.0, 0.55)
    """
    model = _checks.choice("model", model, MODELS)
    # Finite values only: an infinite buffer, round trip or rate has no equilibrium to report.
    n = _checks.in_range("n_flows", n_flows, 1.0, np.inf, high_open=True)
    b, r, cap, t = (_checks.in_range(name, value, 0.0, np.inf, low_open=True, high_open=True)
                    for name, value in (("buffer", buffer), ("rtt", rtt), ("capacity", capacity), ("rto", rto)))
    held = _policy(policy)
    inputs = (n_flows, buffer, rtt, capacity, rto)
    named = dict(n_flows=n_flows, buffer=buffer, rtt=rtt, capacity=capacity, rto=rto)
    wire = cap * r
    escaper, jain, share = 0.0, 1.0, 0.0  # no flow escapes in P1 and P2
    if model == "P1":
        l = loss_rate(n, b, policy=policy)  # Eq. 5.6 / 5.7
        q, per_event = np.broadcast_to(b, np.shape(l)), 1.0
        w = tcp._window(l) - held
        o = tcp._timeout_rate(l, tcp.TIMEOUT_SPACING["tahoe"])
        frac = tcp._timeout_fraction(o, w, r, t)
    elif model == "P2":
        q, per_event = b, 1.0
        l, w, o, frac = solve.in_chunks(_solve_point, (n, b + wire, r, t, tcp.TIMEOUT_SPACING["tahoe"], 1.0,
                                                       held, 0.0), inputs=named)
    else:
        spacing = tcp.TIMEOUT_SPACING[_checks.choice("sender", sender, tuple(tcp.TIMEOUT_SPACING))]
        # The escaping flow's round trip at the cycle's queue without it (it moves that queue by 0.6-2.4 %
        # on the reference rows, an access-limited window with it).
        alone = np.maximum(_p3_queue(n, b, wire)[0], 0.0)
        escaper, unmeasured = _escaping_window(n, alone + wire, r + alone / cap,
                                               _limit("max_window", max_window), _limit("access_rate", access_rate))
        _checks.warn_where(unmeasured, "the senders' limits let one flow hold half the storage or more: P3 gives "
                                       "it half, measured only where the limit was about half the storage")
        sharing = n - (escaper > 0)
        q, drop = _p3_queue(sharing, b, wire - escaper)
        _checks.warn_where(drop > b, "one overflow's window drop exceeds the buffer: the queue empties and "
                                     "the link idles, which the drop-tail models do not describe")
        q = np.maximum(q, 0.0)
        storage = q + wire - escaper
        poisson = GROWTH / -np.expm1(-GROWTH)
        if model == "P3-poisson":
            per_event = poisson
            l, w, o, frac = solve.in_chunks(_solve_point, (sharing, storage, r, t, spacing, per_event, held, q / cap),
                                            inputs=named)
        else:
            e, w, o, frac = solve.in_chunks(_solve_events, (sharing, storage, r, t, spacing, held, q / cap),
                                            inputs=named)
            # Random drop deletes a queued packet at random: no trains and no pairs, the Poisson spread.
            packed = np.minimum(np.maximum(cap / _limit("access_rate", access_rate), 1.0) / sharing, 1.0)
            per_event = _train_losses(sharing, w, packed) if policy == "droptail" else poisson
            l = per_event * e
            _checks.warn_where((e >= 1.0) | (l > 1.0), "the flows hold more than the storage even at one loss "
                                                       "event per packet: P3 reports loss 1, no equilibrium")
            l = np.minimum(l, 1.0)
        # Per packet over every flow's packets (each flow sends its packets held per round trip) and per
        # flow-second over every flow: the escaping flow loses nothing and never times out.
        kept = storage / (storage + escaper)
        l, o, frac = l * kept, o * kept, frac * sharing / n
        # Jain index of one flow at share s of the packets and n - 1 equal others (Jain, Chiu & Hawe 1984).
        share = escaper / (storage + escaper)
        jain = np.where(escaper > 0, 1.0 / (n * (share**2 + (1.0 - share) ** 2 / np.maximum(n - 1.0, 1.0))), 1.0)
    if model in ("P1", "P2"):
        _checks.warn_where(l > tcp._MAX_RELIABLE_LOSS,
                           f"{model} predicts loss above 10 %, beyond the thesis' stated validity; "
                           "use model='P3'")
    out = (l, q, w, o, frac, *(np.broadcast_to(x, np.shape(l)) for x in (per_event, escaper, jain, share)))
    *fields, share = (_checks.scalar_or_array(x, *inputs) for x in out)
    return Equilibrium(*fields, model=model, escaping_share=share)
