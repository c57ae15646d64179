"""RED: the drop curve, Morris' RED equilibria (Eq. 5.8-5.14) and parameter sizing (section 5.3.4).

Three equilibrium models, each a solution of "the packets the flows keep in
flight fill the queue RED's drop rate implies plus the packets on the wire":

``P1``
    Eq. 5.12/5.13, closed form.  Ignores time-outs, the wire and RED's 100 %
    drop above ``max_th``.
``P2``
    Eq. 5.14 solved numerically: time-outs (Eq. 5.4) and the packets stored on
    the link, as in the thesis' Fig. 5.11-5.13.
``P3``
    This library's extension beyond the thesis (default: most accurate
    against packet-level measurements).  Four changes to P2, each taken from
    the protocols or the thesis, none fitted:

    1. the time-out model sees the round-trip time the equilibrium itself
       produces, ``rtt + queue / capacity`` (a 10 ms path behind a 200-packet
       queue at 2170 packets/s is a 102 ms path);
    2. saturation: RED drops every arrival once the average queue reaches
       ``max_th``, so the queue cannot exceed it; when the unsaturated solution
       would, the queue is pinned at ``max_th`` and the loss is what the flows'
       demand forces, as in drop-tail with a ``max_th`` buffer;
    3. windows from Eq. 5.2 (the thesis' own correction for whole packets and
       delayed ACKs) evaluated at the loss-*event* rate: a sender halves once
       per window that holds losses, not once per lost packet;
    4. the exact RED curve from ``min_th`` and the time-out spacing of the
       sender (:data:`tcpmodels.tcp.TIMEOUT_SPACING`: 13 for Tahoe, 3 for
       Reno/NewReno, whose fast recovery needs no slow start).

    Against the ns-3 measurements in ``shared/reference`` (NewReno, 10 ms,
    Floyd & Jacobson drop spacing) P3 stays within 18 % on loss and 14 % on
    queue over 10-300 flows, max_p 0.005-0.08 and max_th 100-2000, where P2 is
    off by up to 76 % on loss and 55 % on queue, and P1 by up to 56 % and 169 %
    (``tests/test_red_reference.py`` records every row).

    Gentle RED (``gentle=True``) and ECN (``ecn=True``) are P3 on another
    curve or another signal: the gentle ramp above ``max_th``; marks that
    halve windows as losses do but start no time-out.  Against
    ``ns3_more_10ms.csv`` both are within 17 % on drops plus marks and 16 % on
    queue.
"""

import dataclasses
import functools

import numpy as np

from . import _checks, solve, tcp
from ._results import Result

__all__ = [
    "MODELS",
    "P1_LOSS_CONSTANT",
    "P1_QUEUE_CONSTANT",
    "MAX_P_CONSTANT",
    "Equilibrium",
    "REDParams",
    "drop_probability",
    "loss_from_queue",
    "queue_for_loss",
    "equilibrium",
    "size",
    "max_p_for_buffer",
]

MODELS = ("P1", "P2", "P3")

#: Eq. 5.12 and 5.13 as published; exact values (2 * 0.87)^(2/3) = 1.447 and
#: half that, 0.723 (:func:`tcpmodels.symbolic.red_p1_constants`).
P1_LOSS_CONSTANT = 1.4
P1_QUEUE_CONSTANT = 0.7

#: Section 5.3.4 fixed-memory rule, (0.7 / 0.75)^3 = 0.813 rounded.
MAX_P_CONSTANT = 0.81

# Section 5.3.4 sizing rule: max_th = 3/2 n pif(l, r), max_p = 3/4 l.
_SIZE_MAX_TH_FACTOR = 1.5
_SIZE_MAX_P_FACTOR = 0.75
# "this should probably be less than 3% to allow TCP a window of four packets"
_MAX_SIZING_LOSS = 0.03


@dataclasses.dataclass(frozen=True)
class Equilibrium(tcp.OperatingPoint):
    """Predicted RED operating point.

    Attributes
    ----------
    loss_rate, queue, window, timeouts_per_packet, timeout_fraction
        As :class:`tcpmodels.tcp.OperatingPoint`; ``timeout_fraction`` is None
        for P1 without `rtt`, and with ECN ``loss_rate`` counts drops only.
    saturated : bool or ndarray
        True where the queue reaches ``max_th`` (RED drops every arrival there):
        P3 pins the queue at ``max_th``; P1 and P2 predict beyond it.
    model : str
        ``"P1"``, ``"P2"`` or ``"P3"``.
    mark_rate : float or ndarray
        Fraction of arriving packets ECN-marked [-] (0 without ECN).
    """

    saturated: object
    model: str
    mark_rate: object = 0.0


@dataclasses.dataclass(frozen=True)
class REDParams(Result):
    """RED settings with the operating point they are designed for.

    Attributes
    ----------
    min_th, max_th : float or ndarray
        Thresholds on the average queue [packets].
    max_p : float or ndarray
        Drop probability at ``max_th`` [-].
    queue : float or ndarray
        Predicted average queue [packets].
    loss_rate : float or ndarray
        Predicted (target) loss rate [-].
    """

    min_th: object
    max_th: object
    max_p: object
    queue: object
    loss_rate: object


def _thresholds(min_th, max_th):
    lo = _checks.nonnegative("min_th", min_th)
    hi = _checks.positive("max_th", max_th, finite=True)
    ok = hi > lo
    if not ok.all():
        raise ValueError(f"max_th must be > min_th, got max_th={_checks.first_bad(hi, ok)!r} "
                         f"<= min_th={_checks.first_bad(lo, ok)!r}")
    return lo, hi


def _max_p(max_p):
    return _checks.in_range("max_p", max_p, 0.0, 1.0, low_open=True)


def drop_probability(avg_queue, min_th, max_th, max_p, gentle=False):
    r"""RED's drop probability for an average queue (Floyd & Jacobson 1993; Morris 1999, section 2.2.2).

    Parameters
    ----------
    avg_queue : float or array_like
        Average (EWMA) queue [packets].
    min_th, max_th : float or array_like
        Thresholds, ``0 <= min_th < max_th`` [packets].
    max_p : float or array_like
        Probability at ``max_th``, in (0, 1] [-].
    gentle : bool, optional
        Floyd's gentle variant: rise linearly from ``max_p`` at ``max_th`` to
        1 at ``2 max_th`` instead of jumping to 1.

    Returns
    -------
    float or ndarray
        Base drop probability :math:`p_b` [-].  With Floyd & Jacobson's
        count-based spacing the realised drop rate is about :math:`2 p_b`
        (Eq. 5.8's factor 2).

    Notes
    -----
    .. math::
        p_b = \begin{cases} 0 & q < min_{th} \\
        max_p \frac{q - min_{th}}{max_{th} - min_{th}} & min_{th} \le q < max_{th} \\
        1 & q \ge max_{th} \end{cases}

    Examples
    --------
    >>> drop_probability([0, 5, 252.5, 500, 750], 5, 500, 0.02)
    array([0.  , 0.  , 0.01, 1.  , 1.  ])
    >>> drop_probability([500, 750, 1000], 5, 500, 0.02, gentle=True)
    array([0.02, 0.51, 1.  ])
    """
    q = _checks.nonnegative("avg_queue", avg_queue)
    lo, hi = _thresholds(min_th, max_th)
    p = _curve(q, lo, hi, _max_p(max_p), _checks.flag("gentle", gentle))
    return _checks.scalar_or_array(p, avg_queue, min_th, max_th, max_p)


def _curve(q, min_th, max_th, max_p, gentle):
    ramp = max_p * np.clip((q - min_th) / (max_th - min_th), 0.0, None)
    above = np.minimum(max_p + (1.0 - max_p) * (q - max_th) / max_th, 1.0) if gentle else 1.0
    return np.where(q < max_th, ramp, above)


def loss_from_queue(avg_queue, max_th, max_p):
    r"""RED's loss rate for an average queue, Morris (1999) Eq. 5.8.

    Parameters
    ----------
    avg_queue : float or array_like
        Average queue, below ``max_th`` [packets].
    max_th : float or array_like
        RED's upper threshold [packets].
    max_p : float or array_like
        RED's maximum drop probability, in (0, 1] [-].

    Returns
    -------
    float or ndarray
        Loss rate [-].

    Notes
    -----
    .. math:: l = \frac{2\,max_p\,q_{avg}}{max_{th}}

    The factor 2 is Floyd & Jacobson's count-based drop spacing (gaps uniform
    on :math:`[1, 1/p_b]`); ``min_th`` is neglected.

    Examples
    --------
    >>> round(loss_from_queue(250, 500, 0.02), 6)   # 2 * 0.02 * 250 / 500
    0.02
    """
    q = _checks.nonnegative("avg_queue", avg_queue)
    hi = _checks.positive("max_th", max_th)
    mp = _max_p(max_p)
    return _checks.scalar_or_array(2.0 * mp * q / hi, avg_queue, max_th, max_p)  # Eq. 5.8


def queue_for_loss(loss_rate, max_th, max_p):
    r"""RED's average queue for a loss rate, Morris (1999) Eq. 5.10 (*redq*).

    Parameters
    ----------
    loss_rate : float or array_like
        Loss rate, in [0, 1] [-].
    max_th : float or array_like
        RED's upper threshold [packets].
    max_p : float or array_like
        RED's maximum drop probability, in (0, 1] [-].

    Returns
    -------
    float or ndarray
        Average queue [packets].

    Notes
    -----
    .. math:: b = \frac{l\,max_{th}}{2\,max_p}

    Examples
    --------
    >>> queue_for_loss(0.02, 500, 0.02)   # 0.02 * 500 / 0.04
    250.0
    """
    l = _checks.in_range("loss_rate", loss_rate, 0.0, 1.0)
    hi = _checks.positive("max_th", max_th)
    mp = _max_p(max_p)
    return _checks.scalar_or_array(l * hi / (2.0 * mp), loss_rate, max_th, max_p)  # Eq. 5.10


# ---------------------------------------------------------------- equilibria

def _p2_residual(l, n, slope, wire, rtt, rto):
    # Eq. 5.14: redq(l) + pps r = n pif(l, r), with redq(l) = slope * l (Eq. 5.10,
    # slope = max_th / 2 max_p) and wire = pps r, both computed once per solve.
    return n * tcp._packets_in_flight(l, rtt, rto) - slope * l - wire


def _p3_window(l):
    # Loss-event rate: a window of W packets at per-packet loss l carries at
    # least one loss with probability 1 - (1-l)^W, and the sender halves once.
    w = tcp._window(l)
    with np.errstate(divide="ignore"):
        events = -np.expm1(w * np.log1p(-l)) / w
    return np.maximum(tcp._window(events) - 1.0, 0.0)  # Eq. 5.2 at the event rate


def _red_queue(s, min_th, max_th, max_p, gentle):
    # Eq. 5.8 with min_th, inverted: the average queue at which RED's early
    # decisions (drops or marks) reach the rate s = 2 p_b.  Gentle RED continues
    # the ramp from max_p at max_th to 1 at 2 max_th; there s = 2 p_b reaches 1
    # at p_b = 1/2.
    ramp = min_th + s * (max_th - min_th) / (2.0 * max_p)
    if not gentle:
        return ramp
    with np.errstate(divide="ignore", invalid="ignore"):
        above = max_th * (1.0 + (0.5 * s - max_p) / (1.0 - max_p))
    return np.where(s <= 2.0 * max_p, ramp, above)


def _p3_split(s, l_cap, sat, ecn):
    # Drops and marks in a signal rate s.  Without ECN every early decision is
    # a drop.  With ECN they are marks; a saturated queue spends a fraction
    # theta of arrivals above its cap, dropping all, and marks at l_cap the
    # rest: s = theta + (1 - theta) l_cap.
    if not ecn:
        return s, np.zeros_like(s)
    s, l_cap = np.asarray(s, dtype=float), np.asarray(l_cap, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (clamped: below l_cap a saturated queue would drop nothing, so the
        # residual stays positive there and the root is bracketed above l_cap)
        theta = np.where(sat, np.maximum((s - l_cap) / (1.0 - l_cap), 0.0), 0.0)
    return theta, (1.0 - theta) * np.minimum(s, l_cap)


def _p3_state(s, n, min_th, max_th, max_p, rtt, cap, rto, spacing, q_cap, l_cap, sat, gentle=False, ecn=False):
    sat = sat > 0
    q = np.where(sat, q_cap, _red_queue(s, min_th, max_th, max_p, gentle))
    w = _p3_window(s)  # a mark halves the window as a loss does (RFC 3168)
    drops, marks = _p3_split(s, l_cap, sat, ecn)
    o = tcp._timeout_rate(drops, spacing)  # no time-out follows a mark
    frac = tcp._timeout_fraction(o, w, rtt + q / cap, rto)
    return q, w, o, frac, drops, marks


def _p3_residual(s, *args, gentle=False, ecn=False):
    n, rtt, cap = args[0], args[4], args[5]
    q, w, _, frac, _, _ = _p3_state(s, *args, gentle=gentle, ecn=ecn)
    return n * (1.0 - frac) * w - q - cap * rtt


def _p3_solve(n, min_th, max_th, max_p, rtt, cap, rto, spacing, limit, *, gentle, ecn):
    # The queue cannot pass its cap: max_th (RED drops every arrival above
    # it), or with gentle RED the point where the ramp reaches 1 or the hard
    # limit, whichever is lower.  Where the unsaturated balance is still
    # positive at the cap's signal rate, the root is above it: the queue is
    # pinned at the cap and the signal is what the flows' demand forces.
    if gentle:
        q_cap = np.minimum(_red_queue(np.ones_like(n), min_th, max_th, max_p, True), limit)
        l_cap = np.minimum(2.0 * _curve(q_cap, min_th, max_th, max_p, True), 1.0)  # Eq. 5.8
    else:
        q_cap, l_cap = max_th, np.minimum(2.0 * max_p, 1.0)
    base = (n, min_th, max_th, max_p, rtt, cap, rto, spacing, q_cap, l_cap)
    residual = functools.partial(_p3_residual, gentle=gentle, ecn=ecn)
    sat = ((residual(l_cap, *base, np.zeros_like(n)) > 0) & (l_cap < 1.0)).astype(float)
    s = solve.root_below(residual, np.where(sat > 0, 1.0, l_cap), base + (sat,), _NO_EQUILIBRIUM)
    q, w, o, frac, drops, marks = _p3_state(s, *base, sat, gentle=gentle, ecn=ecn)
    return drops, q, w, o, frac, sat, marks


def _p2_solve(n, max_th, max_p, rtt, cap, rto):
    # Ignoring time-outs and the wire gives P1 with exact constants,
    # n w(l) = redq(l): an upper bound on the P2 root.
    upper = np.minimum((2.0 * tcp.WINDOW_CONSTANT * n * max_p / max_th) ** (2.0 / 3.0), 1.0)
    l = solve.root_below(_p2_residual, upper, (n, max_th / (2.0 * max_p), cap * rtt, rtt, rto), _NO_EQUILIBRIUM)
    q = l * max_th / (2.0 * max_p)
    w = tcp._window(l)
    o = tcp._timeout_rate(l, tcp.TIMEOUT_SPACING["tahoe"])
    return l, q, w, o, tcp._timeout_fraction(o, w, rtt, rto), (q > max_th).astype(float)


def _p1(n, max_th, max_p, rtt, rto):
    l = P1_LOSS_CONSTANT * (n * max_p / max_th) ** (2.0 / 3.0)  # Eq. 5.12
    q = P1_QUEUE_CONSTANT * n ** (2.0 / 3.0) * max_th ** (1.0 / 3.0) / max_p ** (1.0 / 3.0)  # Eq. 5.13
    w = tcp._window(l)
    o = tcp._timeout_rate(np.minimum(l, 1.0), tcp.TIMEOUT_SPACING["tahoe"])
    frac = None if rtt is None else tcp._timeout_fraction(o, w, rtt, rto)
    return l, q, w, o, frac, q > max_th


_NO_EQUILIBRIUM = "no equilibrium with loss_rate <= 1: too many flows for this max_th and max_p"


def _p3_inputs(min_th, max_th, limit, sender):
    lo_th, hi = _thresholds(min_th, max_th)
    cap_q = np.inf if limit is None else _checks.positive("limit", limit)
    ok = cap_q >= hi
    if not ok.all():
        raise ValueError(f"max_th must be <= limit (the hard queue limit), got max_th="
                         f"{_checks.first_bad(hi, ok)!r} > limit={_checks.first_bad(cap_q, ok)!r}")
    spacing = tcp.TIMEOUT_SPACING[_checks.choice("sender", sender, tuple(tcp.TIMEOUT_SPACING))]
    return lo_th, hi, cap_q, spacing


def equilibrium(n_flows, max_th, max_p, *, model="P3", rtt=None, capacity=None, rto=1.0, min_th=5.0,
                sender="newreno", gentle=False, ecn=False, limit=None):
    r"""Loss rate and average queue of `n_flows` TCPs through a RED queue (Morris 1999, section 5.3).

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived TCP flows, >= 1, finite [flows].
    max_th : float or array_like
        RED's upper threshold [packets].
    max_p : float or array_like
        RED's maximum drop probability, in (0, 1] [-].
    model : {"P3", "P2", "P1"}, optional
        ``"P1"``: Eq. 5.12/5.13.  ``"P2"``: Eq. 5.14.  ``"P3"`` (default):
        this library's extension (module docstring), the most accurate.
    rtt : float or array_like, optional
        Round-trip propagation time [s]; required for P2 and P3.
    capacity : float or array_like, optional
        Bottleneck rate [packets/s]; required for P2 and P3.
    rto : float or array_like, optional
        Length of one retransmission time-out [s] (the thesis: 1 s).
    min_th : float or array_like, optional
        RED's lower threshold [packets]; used by P3 only (P1/P2 neglect it).
    sender : {"newreno", "reno", "tahoe"}, optional
        Sender whose time-out spacing P3 uses; P1 and P2 are the thesis'
        Tahoe analysis.
    gentle : bool, optional
        Gentle RED (P3 only): above ``max_th`` the drop probability rises
        from ``max_p`` to 1 at ``2 max_th`` instead of jumping to 1.
    ecn : bool, optional
        ECN (P3 only): early decisions mark instead of dropping; only forced
        drops above the cap are losses.
    limit : float or array_like, optional
        Hard queue limit, >= ``max_th`` [packets]; caps the gentle ramp.
        None: no limit below the gentle ramp's end.

    Returns
    -------
    Equilibrium
        ``.loss_rate`` (drops), ``.queue``, ``.window``,
        ``.timeouts_per_packet``, ``.timeout_fraction``, ``.saturated``,
        ``.model``, ``.mark_rate`` (ECN marks; 0 without ECN).

    Raises
    ------
    ValueError
        Bad input; or P2/P3's loss so far below its bound that it lies beyond
        the solver's reach (the message names the arguments).
    tcpmodels.solve.ConvergenceError
        If P2/P3 have no equilibrium with loss below 1.

    Notes
    -----
    P1 (Eq. 5.12, 5.13):

    .. math:: l = \frac{1.4 N^{2/3} max_p^{2/3}}{max_{th}^{2/3}}, \quad
              b = \frac{0.7 N^{2/3} max_{th}^{1/3}}{max_p^{1/3}}

    P2 (Eq. 5.14), solved for :math:`l`:

    .. math:: \frac{l\,max_{th}}{2\,max_p} + pps\cdot r = n\,pif(l, r)

    P3, with :math:`q(l) = min_{th} + l\frac{max_{th} - min_{th}}{2 max_p}`,
    the loss-event rate :math:`l_e = (1-(1-l)^{W})/W`, :math:`W = 0.87/\sqrt{l}`,
    and :math:`w = 0.87/\sqrt{l_e} - 1`:

    .. math:: n\,(1 - O(l, r + q/pps, w))\,w = q + pps\cdot r

    with :math:`q` replaced by :math:`max_{th}` where it would exceed it.
    P1 and P2 warn above 10 % loss, the thesis' limit.

    Gentle RED (P3): :math:`q(s)` follows the gentle ramp above ``max_th``,
    :math:`s = 2 p_b` up to 1, so the queue saturates only at a hard `limit`.
    ECN (P3): :math:`s` is the rate of early decisions, all marks below the
    cap; marks halve windows as losses do (RFC 3168) but never start a
    time-out, so unsaturated ECN has no time-outs.  Saturated, a fraction
    :math:`\theta = (s - s_{cap})/(1 - s_{cap})` of arrivals meets the cap
    and is dropped, the rest is marked at :math:`s_{cap}`.  The packet-level
    references' ``drop_rate`` is drops plus marks: compare it with
    ``loss_rate + mark_rate``.

    ``timeout_fraction`` is Eq. 5.4: each time-out idles a flow for one
    `rto`.  P1 gives None without `rtt` (Eq. 5.4 needs one).

    Examples
    --------
    The thesis' Fig. 5.11 set-up at 100 flows (10 Mbit/s, 576 bytes, 10 ms):

    >>> e = equilibrium(100, 500, 0.02, model="P1")
    >>> round(e.loss_rate, 4), round(e.queue, 1)   # 1.4 * (100*0.02/500)**(2/3)
    (0.0353, 441.0)
    >>> e = equilibrium(100, 500, 0.02, model="P2", rtt=0.01, capacity=2170)
    >>> round(e.loss_rate, 4), round(e.queue, 1)
    (0.016, 200.6)
    >>> e = equilibrium(100, 500, 0.02, rtt=0.01, capacity=2170)
    >>> round(e.loss_rate, 4), round(e.queue, 1), e.saturated   # ns-3: 0.0263, 335
    (0.0298, 374.0, False)
    >>> e = equilibrium(70, 500, 0.02, rtt=0.01, capacity=2170, ecn=True)
    >>> e.loss_rate, round(e.mark_rate, 4), e.timeout_fraction   # ns-3: marks 0.0212
    (0.0, 0.0245, 0.0)
    """
    model = _checks.choice("model", model, MODELS)
    gentle, ecn = _checks.flag("gentle", gentle), _checks.flag("ecn", ecn)
    if model != "P3" and (gentle or ecn):
        raise ValueError(f"gentle and ecn need model='P3', got model={model!r}")
    n = _checks.in_range("n_flows", n_flows, 1.0, np.inf, high_open=True)
    mp = _max_p(max_p)
    # Finite values only: an infinite round trip, rate or time-out has no equilibrium to report.
    timeout = _checks.positive("rto", rto, finite=True)
    inputs = (n_flows, max_th, max_p, rto, rtt, capacity)
    named = dict(n_flows=n_flows, max_th=max_th, max_p=max_p, rtt=rtt, capacity=capacity, rto=rto)
    if model == "P1":
        hi = _checks.positive("max_th", max_th, finite=True)
        r = None if rtt is None else _checks.positive("rtt", rtt, finite=True)
        l, q, w, o, frac, sat = _p1(n, hi, mp, r, timeout)
        marks = np.zeros_like(l)
    else:
        if rtt is None or capacity is None:
            raise ValueError(f"rtt and capacity are required for model {model!r}, got rtt={rtt!r}, "
                             f"capacity={capacity!r}")
        r = _checks.positive("rtt", rtt, finite=True)
        cap = _checks.positive("capacity", capacity, finite=True)
        if model == "P2":
            hi = _checks.positive("max_th", max_th, finite=True)
            l, q, w, o, frac, sat = solve.in_chunks(_p2_solve, (n, hi, mp, r, cap, timeout), inputs=named)
            marks = np.zeros_like(l)
        else:
            lo_th, hi, cap_q, spacing = _p3_inputs(min_th, max_th, limit, sender)
            inputs += (min_th, limit)
            p3 = functools.partial(_p3_solve, gentle=gentle, ecn=ecn)
            l, q, w, o, frac, sat, marks = solve.in_chunks(p3, (n, lo_th, hi, mp, r, cap, timeout, spacing, cap_q),
                                                           inputs={**named, "min_th": min_th, "limit": limit})
    if model != "P3":
        _checks.warn_where(l > tcp._MAX_RELIABLE_LOSS,
                           f"{model} predicts loss above 10 %, beyond the thesis' stated validity; "
                           "use model='P3'", stacklevel=3)
    out = [None if x is None else _checks.scalar_or_array(x, *inputs) for x in (l, q, w, o, frac, marks)]
    sat = np.broadcast_to(np.asarray(sat) > 0, np.shape(out[0]))
    sat = bool(sat) if np.ndim(out[0]) == 0 else sat
    return Equilibrium(*out[:5], saturated=sat, model=model, mark_rate=out[5])


# ------------------------------------------------------------------- sizing

def size(n_flows, loss_rate, rtt, *, rto=1.0, min_th=5.0):
    r"""RED settings for a known flow count and a target loss rate (Morris 1999, section 5.3.4).

    Parameters
    ----------
    n_flows : float or array_like
        Typical number of simultaneously active TCP flows, > 0 [flows].
    loss_rate : float or array_like
        Maximum desirable loss rate, in (0, 1) [-]; the thesis advises below 3 %
        (a warning says so above).
    rtt : float or array_like
        Round-trip time [s].
    rto : float or array_like, optional
        Length of one time-out [s].
    min_th : float or array_like, optional
        RED's lower threshold [packets]; the thesis uses 5.

    Returns
    -------
    REDParams
        ``.min_th``, ``.max_th``, ``.max_p``, and the operating point the rule
        aims at: ``.queue`` = :math:`n\,pif(l, r)`, ``.loss_rate`` = :math:`l`.

    Notes
    -----
    .. math:: max_{th} = \tfrac{3}{2}\,n\,pif(l, r), \qquad max_p = \tfrac{3}{4}\,l

    With these, Eq. 5.10 puts the queue at
    :math:`\frac{l\,max_{th}}{2 \cdot 3l/4} = \frac{2}{3}max_{th} = n\,pif(l, r)`:
    the 3/4 follows from the 3/2 (:func:`tcpmodels.symbolic.sizing_max_p_factor`).

    Examples
    --------
    >>> p = size(100, 0.02, 0.1)     # pif(0.02, 0.1) = 4.790
    >>> round(p.max_th, 1), round(p.max_p, 4), round(p.queue, 1)
    (718.6, 0.015, 479.0)
    """
    n = _checks.positive("n_flows", n_flows, finite=True)
    l = _checks.in_range("loss_rate", loss_rate, 0.0, 1.0, low_open=True, high_open=True)
    r = _checks.positive("rtt", rtt, finite=True)
    t = _checks.positive("rto", rto)
    lo = _checks.nonnegative("min_th", min_th)
    _checks.warn_where(l > _MAX_SIZING_LOSS,
                       "loss_rate above 3 %: Morris (1999, section 5.3.4) advises less, "
                       "to leave TCP a window of four packets")
    q = n * tcp._packets_in_flight(l, r, t)
    max_th = _SIZE_MAX_TH_FACTOR * q
    _checks.warn_where(max_th <= lo, "the sized max_th is not above min_th: too few flows or too "
                                      "high a loss rate for a RED queue")
    inputs = (n_flows, loss_rate, rtt, rto, min_th)
    return REDParams(*(_checks.scalar_or_array(x, *inputs)
                       for x in np.broadcast_arrays(lo, max_th, _SIZE_MAX_P_FACTOR * l, q, l)))


def max_p_for_buffer(n_flows, max_th):
    r"""``max_p`` that keeps the queue about 3/4 full for a fixed ``max_th`` (Morris 1999, section 5.3.4).

    Parameters
    ----------
    n_flows : float or array_like
        Typical number of active TCP flows, > 0 [flows].
    max_th : float or array_like
        RED's upper threshold, fixed by the router's memory [packets].

    Returns
    -------
    float or ndarray
        ``max_p`` [-].  Above 1 (warned) the buffer is too small for the flows.

    Notes
    -----
    Eq. 5.13 set equal to :math:`\frac{3}{4} max_{th}` and solved for :math:`max_p`:

    .. math:: max_p = \frac{0.81\,n^2}{max_{th}^2}

    Examples
    --------
    >>> round(max_p_for_buffer(100, 1000), 6)   # 0.81 * 100**2 / 1000**2
    0.0081
    """
    n = _checks.positive("n_flows", n_flows)
    hi = _checks.positive("max_th", max_th)
    mp = MAX_P_CONSTANT * n**2 / hi**2
    _checks.warn_where(mp > 1.0, "max_p above 1: max_th is too small for this many flows")
    return _checks.scalar_or_array(mp, n_flows, max_th)


# ------------------------------------------------------------ dynamics (issue 17)
# The TCP/RED fluid model's operating point (Misra, Gong & Towsley 2000) and
# its linearized loop (Hollot, Misra, Towsley & Gong, INFOCOM 2001 "A control
# theoretic analysis of RED"; IEEE TAC 47(6), 2002).  tcpmodels.fluid
# integrates the same model in time; the loop machinery is tcpmodels.loop.
# Kept in one block (its import and exports here) so it merges apart from the equilibria.

from . import loop  # noqa: E402

__all__ += ["DROP_SPACINGS", "Stability", "drop_rate", "stability"]

#: Drop-spacing rules: the fraction of arrivals dropped for a base probability p_b.
#: "independent": each arrival dropped with p_b (the fluid model's and Hollot et
#: al.'s assumption); "count": Floyd & Jacobson's count-based spacing, gaps
#: uniform on [1, 1/p_b], mean (1 + 1/p_b)/2 (Linux, the ns-3 references'
#: wait=0, this library's simulator, Eq. 5.8's factor 2); "wait": ns-3's
#: default, gaps uniform on [1/p_b, 2/p_b], mean 1.5/p_b.
DROP_SPACINGS = ("independent", "count", "wait")

# Morris (1999, section 5.1.2): the time-out laws hold only for windows above 4;
# below, too few duplicate ACKs return and time-outs, absent from the fluid
# model, dominate.
_MIN_FLUID_WINDOW = 4.0
# The longest averaging time of RED's EWMA, 1 / (-capacity ln(1 - weight)), that red.stability takes [s].
_MAX_AVERAGING = 1e100


def _positive_finite(name, value):
    x = _checks.positive(name, value)
    ok = np.isfinite(x)
    if not ok.all():
        raise ValueError(f"{name} must be finite, got {_checks.first_bad(x, ok)!r}")
    return x


def _spaced(p, spacing):
    """Drop fraction and its derivative d(fraction)/d(p_b) for a spacing rule."""
    if spacing == "independent":
        return p, np.ones_like(p)
    if spacing == "count":
        return 2.0 * p / (1.0 + p), 2.0 / (1.0 + p) ** 2
    forced = p >= 1.0  # "wait": RED's forced drops (p_b = 1) drop every arrival
    return np.where(forced, 1.0, 2.0 * p / 3.0), np.where(forced, 0.0, 2.0 / 3.0)


def drop_rate(avg_queue, min_th, max_th, max_p, *, gentle=False, spacing="independent"):
    r"""Fraction of arrivals RED drops at an average queue, under a drop-spacing rule.

    Parameters
    ----------
    avg_queue : float or array_like
        Average (EWMA) queue [packets].
    min_th, max_th : float or array_like
        Thresholds, ``0 <= min_th < max_th`` [packets].
    max_p : float or array_like
        Base probability at ``max_th``, in (0, 1] [-].
    gentle : bool, optional
        Floyd's gentle ramp above ``max_th`` (:func:`drop_probability`).
    spacing : {"independent", "count", "wait"}, optional
        How RED spaces its drops (:data:`DROP_SPACINGS`).

    Returns
    -------
    float or ndarray
        Dropped fraction of arrivals [-].

    Notes
    -----
    With :math:`p_b` from :func:`drop_probability`: "independent" gives
    :math:`p_b`; "count" :math:`2 p_b / (1 + p_b)` (about :math:`2 p_b`,
    Eq. 5.8's factor 2); "wait" :math:`2 p_b / 3` (1 where :math:`p_b = 1`).

    Examples
    --------
    >>> drop_rate(252.5, 5, 500, 0.02, spacing="count")   # p_b = 0.01
    0.019801980198019802
    >>> drop_rate([252.5, 600], 5, 500, 0.02, spacing="wait")
    array([0.00666667, 1.        ])
    """
    key = _checks.choice("spacing", spacing, DROP_SPACINGS)
    p = np.asarray(drop_probability(avg_queue, min_th, max_th, max_p, gentle))
    return _checks.scalar_or_array(_spaced(p, key)[0], avg_queue, min_th, max_th, max_p)


def _operating_point(n, rtt, cap, lo, hi, mp, gentle, spacing, acks):
    """Equilibrium of the fluid model on RED's ramp: queue, drop fraction, window, round trip.

    Solves :math:`r(q)\\,b\\,W^2 / 2 = 1` with :math:`W = (rtt + q/C) C / n`
    (dW/dt = 0 in Misra et al.'s window equation with :math:`1/(bR)` growth).  Also
    returns where a root exists below RED's forced-drop point, and where it sits at
    ``min_th`` itself (within 1e-12 of the ramp): windows so large that RED's
    smallest drop rate above ``min_th`` already holds them; there the queue is
    ``min_th`` and the drop fraction the windows' own :math:`2/(b W^2)`.
    """
    top = np.where(gentle, 2.0 * hi, np.nextafter(hi, 0.0))  # the last queue the ramp covers
    span = top - lo

    def residual(y, n, rtt, cap, lo, hi, mp):
        q = lo + y
        r = _spaced(drop_probability(q, lo, hi, mp, gentle), spacing)[0]
        return 0.5 * acks * r * ((rtt * cap + q) / n) ** 2 - 1.0

    args = (n, rtt, cap, lo, hi, mp)
    at_top = residual(span, *args)
    at_floor = residual(1e-12 * span, *args) >= 0
    inside = at_top > 0
    solvable = inside & ~at_floor
    y = np.zeros(np.shape(inside))
    if solvable.any():  # solved only where the ramp holds a root above its floor
        y[solvable] = solve.positive_root(residual, 1e-12 * span[solvable], span[solvable],
                                          args=tuple(a[solvable] for a in args), f_upper=at_top[solvable])
    q = np.where(inside, lo + y, top)
    window = (rtt * cap + q) / n
    r = np.where(at_floor, 2.0 / (acks * window**2), _spaced(drop_probability(q, lo, hi, mp, gentle), spacing)[0])
    return q, r, window, rtt + q / cap, inside, at_floor


@dataclasses.dataclass(frozen=True)
class Stability(Result):
    """Verdict of the linearized TCP/RED loop at the fluid model's operating point.

    Attributes
    ----------
    stable : bool or ndarray
        True where the linearized loop is stable; False where unstable or not
        ``valid`` (no verdict there: a warning said so).
    valid : bool or ndarray
        True where the operating point lies in the model's range: on RED's
        ramp above ``min_th`` and below its forced drops, with windows of at
        least 4 packets.
    sufficient : bool or ndarray
        Hollot et al.'s sufficient condition with ``N- = n_flows`` and
        ``R+ =`` the operating point's round trip: where True, the loop is
        stable for this and every larger flow count and every shorter RTT.
    phase_margin : float or ndarray
        Phase margin [deg] (``inf`` where the loop gain stays below 1).
    gain_margin : float or ndarray
        Gain margin [-] (above 1 where stable).
    crossover : float or ndarray
        Gain-crossover frequency [rad/s] (NaN where the loop gain stays below 1).
    period : float or ndarray
        Period of the oscillation the loop predicts, at its phase crossover [s].
    loop_gain : float or ndarray
        Zero-frequency loop gain [-].
    queue : float or ndarray
        Equilibrium queue, average and instantaneous [packets].
    loss_rate : float or ndarray
        Equilibrium drop fraction [-].
    window : float or ndarray
        Equilibrium window [packets].
    round_trip : float or ndarray
        Equilibrium round trip, propagation plus queueing [s].
    """

    stable: object
    valid: object
    sufficient: object
    phase_margin: object
    gain_margin: object
    crossover: object
    period: object
    loop_gain: object
    queue: object
    loss_rate: object
    window: object
    round_trip: object


def stability(n_flows, rtt, capacity, *, min_th, max_th, max_p, weight, gentle=False,
              drop_spacing="independent", delayed_ack=False):
    r"""Will this RED setting hold its equilibrium or oscillate? (Hollot, Misra, Towsley & Gong 2001/2002).

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived TCP flows, > 0 [flows].
    rtt : float or array_like
        Round-trip propagation time, > 0 [s].
    capacity : float or array_like
        Bottleneck rate, > 0 [packets/s].
    min_th, max_th : float or array_like
        RED's thresholds, ``0 <= min_th < max_th`` [packets].
    max_p : float or array_like
        RED's base drop probability at ``max_th``, in (0, 1] [-].
    weight : float or array_like
        RED's EWMA weight per arriving packet, in (0, 1] [-].
    gentle : bool, optional
        Floyd's gentle ramp from ``max_p`` to 1 over ``[max_th, 2 max_th]``.
    drop_spacing : {"independent", "count", "wait"}, optional
        How RED spaces drops (:data:`DROP_SPACINGS`).  The default is the
        papers' assumption; Linux's RED and ns-3 with ``Wait=false`` use
        "count", which doubles the loop gain.
    delayed_ack : bool, optional
        Receivers acknowledge every second packet, so windows grow by half a
        packet per round trip (Morris' Eq. 5.1 and the ns-3 references); the
        papers' default is False.

    Returns
    -------
    Stability
        ``.stable``, ``.valid``, ``.sufficient``, ``.phase_margin`` [deg],
        ``.gain_margin``, ``.crossover`` [rad/s], ``.period`` [s],
        ``.loop_gain``, and the operating point ``.queue``, ``.loss_rate``,
        ``.window``, ``.round_trip``.

    Notes
    -----
    Operating point (Hollot et al.'s equilibrium of the fluid model, with window growth
    :math:`1/(bR)`, :math:`b = 2` for delayed ACKs):
    :math:`W_0 = R_0 C / N`, :math:`R_0 = T_p + q_0/C`,
    :math:`p_0 = 2 / (b W_0^2)`, :math:`p_0 = r(q_0)` RED's drop fraction.
    Linearized loop (their small-signal model, the delayed-window term folded in as they
    do; RED's EWMA a low-pass :math:`K/(s+K)`, :math:`K = -C \ln(1 - w)`):

    .. math:: L(s) = \frac{L_{red}\, b\,(R_0 C)^3 / (2N)^2\; e^{-s R_0}}
              {(1 + s/K)(1 + s/p_{tcp})(1 + s R_0)}, \qquad
              p_{tcp} = \frac{2N}{b R_0^2 C}

    with :math:`L_{red} = dr/dq` at :math:`q_0` (:math:`max_p/(max_{th} - min_{th})`
    for independent drops).  Margins come from the frequency response
    (:func:`tcpmodels.loop.margins`).  Hollot et al.'s sufficient condition
    (INFOCOM 2001, Proposition 1), for all :math:`N \ge N^-`, :math:`R_0 \le R^+`:

    .. math:: \frac{L_{red}\, b\,(R^+ C)^3}{(2N^-)^2} \le
              \sqrt{\frac{\omega_g^2}{K^2} + 1}, \qquad
              \omega_g = 0.1 \min\left(\frac{2N^-}{b (R^+)^2 C}, \frac{1}{R^+}\right)

    Outside the model's range the answer is withheld (``valid`` False, a
    ``TCPModelsWarning``): where the equilibrium would need RED's forced drops
    (average at ``max_th`` without gentle, at ``2 max_th`` with it); where it
    sits at ``min_th`` itself (windows so large that RED's smallest drop rate
    holds them: the ramp's slope is one-sided there and losses so rare that the
    link idles between them); and where windows fall below 4 packets and time-outs, which the fluid model lacks,
    dominate.  One class of flows (one RTT); the linearization neglects the
    queueing delay's dependence on the queue in the delays, as the papers do.

    References
    ----------
    V. Misra, W. Gong, D. Towsley, "Fluid-based analysis of a network of AQM
    routers supporting TCP flows with an application to RED", SIGCOMM 2000.
    C. V. Hollot, V. Misra, D. Towsley, W. Gong, "A control theoretic analysis
    of RED", INFOCOM 2001; "Analysis and design of controllers for AQM
    routers supporting TCP flows", IEEE TAC 47(6), 2002.

    Examples
    --------
    The ns-3 reference's run V3 (10 Mbit/s of 576-byte packets, 200 ms, 10
    flows, RED 5/217/0.02, weight 0.002) swings; with 30 flows (V4) it settles:

    >>> s = stability([10, 30], 0.2, 2170.1, min_th=5, max_th=217, max_p=0.02, weight=0.002,
    ...               drop_spacing="count", delayed_ack=True)
    >>> s.stable
    array([False,  True])
    """
    n = _positive_finite("n_flows", n_flows)
    r = _positive_finite("rtt", rtt)
    cap = _positive_finite("capacity", capacity)
    lo, hi = _thresholds(min_th, max_th)
    mp = _max_p(max_p)
    w = _checks.in_range("weight", weight, 0.0, 1.0, low_open=True)
    k = -cap * np.log1p(-np.minimum(w, 1.0 - 1e-16))  # EWMA corner: Hollot's K = -ln(1 - w) / delta, delta = 1/C
    # loop.margins brackets its gain crossover with 1 / K**2, which overflows past an averaging time 1 / K of
    # about 1e154 s; a bound far below that and far above any queue's.
    slow = ~(k >= 1.0 / _MAX_AVERAGING)
    if slow.any():
        raise ValueError(f"weight/capacity: RED's average would take {1.0 / _checks.first_bad(k, ~slow):.3g} s to "
                         f"follow the queue (1 / (-capacity ln(1 - weight))), beyond the {_MAX_AVERAGING:g} s the "
                         f"loop model can compute; got weight={_checks.first_bad(w, ~slow)!r}")
    spacing = _checks.choice("drop_spacing", drop_spacing, DROP_SPACINGS)
    gentle = _checks.flag("gentle", gentle)
    acks = 2.0 if _checks.flag("delayed_ack", delayed_ack) else 1.0
    n, r, cap, lo, hi, mp, w = np.broadcast_arrays(n, r, cap, lo, hi, mp, w)
    q, loss, win, rtt0, inside, at_floor = _operating_point(n, r, cap, lo, hi, mp, gentle, spacing, acks)
    valid = inside & ~at_floor & (win >= _MIN_FLUID_WINDOW)
    _checks.warn_where(~inside, "RED's average would sit at its forced-drop point (max_th, or 2 max_th when "
                       "gentle): outside the linearized model's range; no stability verdict there")
    _checks.warn_where(at_floor, "the operating point sits at min_th: RED's smallest drop rate already holds "
                       "windows this large (losses far apart, the link idles between them) and the ramp's "
                       "slope is one-sided there; no stability verdict there")
    _checks.warn_where(inside & ~at_floor & ~valid, "windows below 4 packets at the operating point: time-outs, "
                       "absent from the fluid model, dominate; no stability verdict there")
    slope = np.where(q < hi, mp / (hi - lo), (1.0 - mp) / hi)  # d p_b / d avg on the ramp
    slope = slope * _spaced(drop_probability(q, lo, hi, mp, gentle), spacing)[1]
    p_tcp = 2.0 * n / (acks * rtt0**2 * cap)
    gain = slope * acks * (rtt0 * cap) ** 3 / (2.0 * n) ** 2
    m = loop.margins(gain, rtt0, (k, p_tcp, 1.0 / rtt0))
    omega_g = 0.1 * np.minimum(p_tcp, 1.0 / rtt0)  # Proposition 1
    sufficient = gain <= np.sqrt((omega_g / k) ** 2 + 1.0)
    inputs = (n_flows, rtt, capacity, min_th, max_th, max_p, weight)

    def out(x, fill=np.nan):
        return _checks.scalar_or_array(np.where(valid, x, fill), *inputs)

    def flag(x):
        x = np.asarray(x) & valid
        return bool(x) if np.ndim(out(0.0)) == 0 else x

    return Stability(flag(m.stable), flag(valid), flag(sufficient), out(m.phase_margin), out(m.gain_margin),
                     out(m.crossover), out(m.period), out(gain), out(q), out(loss), out(win), out(rtt0))
