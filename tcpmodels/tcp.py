"""One TCP's response to loss: Morris (1999) Eq. 5.1-5.5, Mathis et al. (1997), Padhye et al. (1998).

All windows are in packets, times in seconds, loss rates are fractions of
packets dropped.  The private ``_``-prefixed kernels do no checking and emit no
warnings: the RED and drop-tail solvers call them on every trial point, where a
warning about a trial value would be noise.  The public functions validate,
warn where the thesis says the law is unreliable, and call the same kernels,
so each law is written once.
"""

import dataclasses

import numpy as np

from . import _checks
from ._results import Result

__all__ = [
    "OperatingPoint",
    "WINDOW_CONSTANT",
    "TIMEOUT_SPACING",
    "MATHIS_C",
    "window",
    "effective_window",
    "loss_for_window",
    "timeout_rate",
    "timeout_fraction",
    "packets_in_flight",
    "mathis",
    "padhye",
]

#: Morris (1999) Eq. 5.1 as published: sqrt(3/4) = 0.866 rounded to 0.87
#: (see :func:`tcpmodels.symbolic.window_constant`).
WINDOW_CONSTANT = 0.87

#: Packets that must separate two losses for a sender to avoid a time-out
#: (Morris 1999, section 5.1.2).  Tahoe: 3 duplicate ACKs plus 10 packets for
#: slow start to regrow a window able to fast-retransmit again (the thesis'
#: empirical 13).  Reno/NewReno do not slow-start after a fast retransmit, so
#: the same argument leaves only the duplicate-ACK threshold: 3.  The value for
#: Reno/NewReno is this library's extension, not the thesis'.
TIMEOUT_SPACING = {"tahoe": 13, "reno": 3, "newreno": 3}

#: Mathis et al. (1997) constant with delayed ACKs, sqrt(3/4); sqrt(3/2) without.
MATHIS_C = np.sqrt(3.0 / 4.0)

# Thesis' validity limits: "not likely to be accurate for loss rates larger
# than 5 or 10 percent" (ch. 5 intro); time-out laws "only work for window
# sizes greater than four" (section 5.1.2).
_MAX_RELIABLE_LOSS = 0.1
_MIN_RELIABLE_WINDOW = 4.0


@dataclasses.dataclass(frozen=True)
class OperatingPoint(Result):
    """What flows through one bottleneck settle to: the fields every equilibrium model returns.

    Attributes
    ----------
    loss_rate : float or ndarray
        Fraction of arriving packets dropped [-].
    queue : float or ndarray
        Average queue [packets].
    window : float or ndarray
        Average window of a sending flow, as the model counts it [packets].
    timeouts_per_packet : float or ndarray
        Retransmission time-outs per packet sent (the packet-level
        references' column of that name) [-].
    timeout_fraction : float or ndarray or None
        Fraction of time a flow spends in time-out, Eq. 5.4: one ``rto`` of
        idling per time-out [-].  Not the references' ``timeout_fraction``,
        which counts the time from each RTO until recovery completes.
    """

    loss_rate: object
    queue: object
    window: object
    timeouts_per_packet: object
    timeout_fraction: object


def _window(loss_rate):
    return WINDOW_CONSTANT / np.sqrt(loss_rate)  # Eq. 5.1


def _loss_for_window(window):
    return (WINDOW_CONSTANT / window) ** 2  # Eq. 5.1 inverted


def _timeout_rate(loss_rate, spacing):
    with np.errstate(divide="ignore"):  # l = 1: log1p(-1) = -inf gives the right limit, o = 1
        return loss_rate * -np.expm1(spacing * np.log1p(-loss_rate))  # Eq. 5.3: l(1 - (1-l)^13)


def _timeout_fraction(timeouts, window, rtt, rto):
    # Eq. 5.4, O = 1 / (1 + r / (w o)), with the thesis' 1 s time-out generalised
    # to `rto` and written x / (x + r) so that o = 0 gives O = 0 without 0/0.
    x = window * timeouts * rto
    return x / (x + rtt)


def _packets_in_flight(loss_rate, rtt, rto, spacing=TIMEOUT_SPACING["tahoe"]):
    w = _window(loss_rate)
    # Eq. 5.5, (1 - O) w with Eq. 5.4's O = x / (x + r), x = w o t_RTO: (1 - O) = r / (x + r).
    # Written out because the RED solvers evaluate it millions of times.
    return w * rtt / (w * _timeout_rate(loss_rate, spacing) * rto + rtt)


def _loss(loss_rate):
    return _checks.in_range("loss_rate", loss_rate, 0.0, 1.0, low_open=True)


def _warn_high_loss(loss_rate):
    _checks.warn_where(
        loss_rate > _MAX_RELIABLE_LOSS,
        "loss_rate above 0.1: Morris (1999, ch. 5) says these laws are not accurate "
        "above 5-10 % loss, where time-out back-off dominates",
        stacklevel=4,
    )


def window(loss_rate):
    r"""Average congestion window of a TCP at a given loss rate (Morris 1999, Eq. 5.1).

    Parameters
    ----------
    loss_rate : float or array_like
        Fraction of packets dropped, in (0, 1] [-].

    Returns
    -------
    float or ndarray
        Average congestion window [packets].

    Notes
    -----
    .. math:: w_{avg} \approx \frac{0.87}{\sqrt{l}}

    Evenly spaced losses, congestion avoidance with delayed ACKs (one packet
    per two windows), the window cycling between :math:`w_{max}/2` and
    :math:`w_{max}`.  The thesis' Fig. 5.1 shows it over-estimates simulated
    windows by about 20 %; :func:`effective_window` is the thesis' correction.
    Warns above 10 % loss, where the thesis says the analysis fails.

    References
    ----------
    R. T. Morris, *Scalable TCP Congestion Control*, PhD thesis, Harvard, 1999, section 5.1.1.

    Examples
    --------
    >>> round(window(0.01), 2)   # 0.87 / 0.1
    8.7
    >>> window([0.01, 0.0001])
    array([ 8.7, 87. ])
    """
    l = _loss(loss_rate)
    _warn_high_loss(l)
    return _checks.scalar_or_array(_window(l), loss_rate)


def effective_window(loss_rate):
    r"""Packets in flight while sending, corrected for whole packets and delayed ACKs (Eq. 5.2).

    Parameters
    ----------
    loss_rate : float or array_like
        Fraction of packets dropped, in (0, 1] [-].

    Returns
    -------
    float or ndarray
        Effective window [packets].

    Notes
    -----
    .. math:: w_{eff} \approx \frac{0.87}{\sqrt{l}} - 1

    Eq. 5.1 less half a packet for truncation to whole packets and half a
    packet for delayed ACKs (Morris 1999, section 5.1.1).  Below one packet
    (loss above about 19 %) the law has no meaning and a warning says so.

    Examples
    --------
    >>> round(effective_window(0.01), 2)   # 8.7 - 1
    7.7
    """
    l = _loss(loss_rate)
    _warn_high_loss(l)
    return _checks.scalar_or_array(_window(l) - 1.0, loss_rate)


def loss_for_window(window):
    r"""Loss rate that makes a TCP's average window `window` (inverse of Eq. 5.1).

    Parameters
    ----------
    window : float or array_like
        Average congestion window, > 0.87 [packets].

    Returns
    -------
    float or ndarray
        Loss rate [-].

    Notes
    -----
    .. math:: l = \left(\frac{0.87}{w}\right)^2

    Examples
    --------
    >>> round(loss_for_window(8.7), 6)
    0.01
    """
    w = _checks.in_range("window", window, WINDOW_CONSTANT, np.inf, low_open=True)
    l = _loss_for_window(w)
    _warn_high_loss(l)
    return _checks.scalar_or_array(l, window)


def timeout_rate(loss_rate, spacing=TIMEOUT_SPACING["tahoe"]):
    r"""Retransmission time-outs per packet sent (Morris 1999, Eq. 5.3).

    Parameters
    ----------
    loss_rate : float or array_like
        Fraction of packets dropped, in (0, 1] [-].
    spacing : float or array_like, optional
        Packets that must follow a loss before the next one for the sender to
        recover without a time-out [packets].  13 for Tahoe (the thesis);
        :data:`TIMEOUT_SPACING` gives 3 for Reno/NewReno.

    Returns
    -------
    float or ndarray
        Time-outs per packet [-].

    Notes
    -----
    .. math:: o \approx l\left(1 - (1 - l)^{13}\right)

    The probability that a loss is followed by another within `spacing`
    packets.  Uniformly spread losses; windows above four packets; the 13 was
    "chosen somewhat empirically" (section 5.1.2).

    Examples
    --------
    >>> round(timeout_rate(0.01), 6)   # 0.01 * (1 - 0.99**13) = 0.01 * 0.122478
    0.001225
    >>> round(timeout_rate(0.01, spacing=3), 6)   # 0.01 * (1 - 0.99**3)
    0.000297
    """
    l = _loss(loss_rate)
    s = _checks.positive("spacing", spacing)
    _warn_high_loss(l)
    return _checks.scalar_or_array(_timeout_rate(l, s), loss_rate, spacing)


def timeout_fraction(loss_rate, rtt, window=None, rto=1.0, spacing=TIMEOUT_SPACING["tahoe"]):
    r"""Fraction of time a TCP spends waiting in retransmission time-out (Morris 1999, Eq. 5.4).

    Parameters
    ----------
    loss_rate : float or array_like
        Fraction of packets dropped, in (0, 1] [-].
    rtt : float or array_like
        Round-trip time [s].
    window : float or array_like, optional
        Average window while sending [packets]; Eq. 5.1 when omitted.
    rto : float or array_like, optional
        Length of one time-out [s]; the thesis assumes 1 s.
    spacing : float or array_like, optional
        Loss spacing of :func:`timeout_rate` [packets].

    Returns
    -------
    float or ndarray
        Fraction of time in time-out, in [0, 1) [-].

    Notes
    -----
    .. math:: O \approx \frac{1}{1 + \frac{r}{w\,o\,t_{RTO}}}

    A sender that is active sends :math:`w/r` packets per second, of which a
    fraction :math:`o` (Eq. 5.3) start a time-out of :math:`t_{RTO}`.  Valid
    for windows above four packets (warns below); ignores back-off, so it
    under-estimates at high loss.

    Examples
    --------
    o = 0.02 (1 - 0.98^13) = 0.02 * 0.23098 = 0.0046196, w = 0.87 / sqrt(0.02) = 6.1518,
    x = w o t_RTO = 0.028419, O = x / (x + 0.1) = 0.2213:

    >>> round(timeout_fraction(0.02, 0.1), 4)
    0.2213
    """
    l = _loss(loss_rate)
    r = _checks.positive("rtt", rtt)
    t = _checks.positive("rto", rto)
    s = _checks.positive("spacing", spacing)
    w = _window(l) if window is None else _checks.positive("window", window, finite=True)
    _warn_high_loss(l)
    _checks.warn_where(
        w < _MIN_RELIABLE_WINDOW,
        "window below 4 packets: Morris (1999, section 5.1.2) says the time-out "
        "laws only work for windows above four",
    )
    out = _timeout_fraction(_timeout_rate(l, s), w, r, t)
    return _checks.scalar_or_array(out, loss_rate, rtt, rto, spacing, window)


def packets_in_flight(loss_rate, rtt, rto=1.0, spacing=TIMEOUT_SPACING["tahoe"]):
    r"""Average packets a TCP keeps in flight, time-outs included (Eq. 5.5; *pif* of section 5.3.3).

    Parameters
    ----------
    loss_rate : float or array_like
        Fraction of packets dropped, in (0, 1] [-].
    rtt : float or array_like
        Round-trip time [s].
    rto : float or array_like, optional
        Length of one time-out [s].
    spacing : float or array_like, optional
        Loss spacing of :func:`timeout_rate` [packets].

    Returns
    -------
    float or ndarray
        Average packets in flight [packets].

    Notes
    -----
    .. math:: pif(l, r) = \left(1 - O(l, r, w(l))\right) w(l), \quad w(l) = 0.87/\sqrt{l}

    Examples
    --------
    >>> round(packets_in_flight(0.02, 0.1), 3)   # (1 - 0.2213) * 6.1518
    4.79
    """
    l = _loss(loss_rate)
    r = _checks.positive("rtt", rtt)
    t = _checks.positive("rto", rto)
    s = _checks.positive("spacing", spacing)
    _warn_high_loss(l)
    return _checks.scalar_or_array(_packets_in_flight(l, r, t, s), loss_rate, rtt, rto, spacing)


def mathis(loss_rate, rtt, c=MATHIS_C):
    r"""Steady-state send rate of Mathis, Semke, Mahdavi and Ott (1997).

    Parameters
    ----------
    loss_rate : float or array_like
        Fraction of packets dropped, in (0, 1] [-].
    rtt : float or array_like
        Round-trip time [s].
    c : float, optional
        Constant: sqrt(3/4) = 0.866 with delayed ACKs (default; Morris' 0.87),
        sqrt(3/2) = 1.22 without [-].

    Returns
    -------
    float or ndarray
        Send rate [packets/s]; multiply by the segment size for bytes/s.

    Notes
    -----
    .. math:: B = \frac{C}{r \sqrt{p}}

    Periodic losses, no time-outs: Eq. 5.1 divided by the round-trip time.

    References
    ----------
    M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the
    TCP congestion avoidance algorithm", CCR 27(3), 1997.

    Examples
    --------
    >>> round(mathis(0.01, 0.1), 2)   # 0.866 / (0.1 * 0.1)
    86.6
    """
    l = _loss(loss_rate)
    r = _checks.positive("rtt", rtt)
    k = _checks.positive("c", c)
    return _checks.scalar_or_array(k / (r * np.sqrt(l)), loss_rate, rtt, c)


def padhye(loss_rate, rtt, rto=1.0, b=2, max_window=None, approximate=False):
    r"""Steady-state send rate with time-outs, Padhye, Firoiu, Towsley and Kurose (1998).

    Parameters
    ----------
    loss_rate : float or array_like
        Probability that a packet is lost, in (0, 1) [-].
    rtt : float or array_like
        Round-trip time [s].
    rto : float or array_like, optional
        First retransmission time-out :math:`T_0` [s].
    b : float or array_like, optional
        Packets acknowledged per ACK: 2 with delayed ACKs [-].
    max_window : float or array_like, optional
        Receiver window limit :math:`W_m` [packets]; unlimited when omitted.
    approximate : bool, optional
        Use the paper's closed approximation (Eq. 33, the form RFC 5348 uses)
        instead of the full model (Eq. 32).

    Returns
    -------
    float or ndarray
        Send rate [packets/s].

    Notes
    -----
    Full model, with :math:`E[W] = \frac{2+b}{3b} + \sqrt{\frac{8(1-p)}{3bp} + \left(\frac{2+b}{3b}\right)^2}`,
    :math:`\hat Q(w) = \min\left(1, \frac{(1-(1-p)^3)(1+(1-p)^3(1-(1-p)^{w-3}))}{1-(1-p)^w}\right)` and
    :math:`G(p) = 1+p+2p^2+4p^3+8p^4+16p^5+32p^6`:

    .. math::
        B = \frac{\frac{1-p}{p} + E[W] + \frac{\hat Q(E[W])}{1-p}}
                 {r\,(E[W] + 1) + \hat Q(E[W])\,G(p)\,\frac{T_0}{1-p}}

    when :math:`E[W] < W_m`, else the window-limited form

    .. math::
        B = \frac{\frac{1-p}{p} + W_m + \frac{\hat Q(W_m)}{1-p}}
                 {r(\frac{b}{8}W_m + \frac{1-p}{pW_m} + 2) + \hat Q(W_m)G(p)\frac{T_0}{1-p}}

    Approximation:

    .. math::
        B = \min\left(\frac{W_m}{r},
            \frac{1}{r\sqrt{2bp/3} + T_0\min(1, 3\sqrt{3bp/8})\,p\,(1+32p^2)}\right)

    References
    ----------
    J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a
    simple model and its empirical validation", SIGCOMM 1998.

    Examples
    --------
    p = 0.01, r = 0.1 s, T0 = 1 s, b = 2: E[W] = 0.667 + sqrt(132 + 0.444) = 12.175,
    Q = 0.0297 * (1 + 0.9703 * 0.0882) / 0.1153 = 0.2797, G = 1.0102,
    B = (99 + 12.175 + 0.2825) / (1.3175 + 0.2854) = 69.5 packets/s.

    >>> round(padhye(0.01, 0.1), 1)
    69.5
    >>> round(padhye(0.01, 0.1, approximate=True), 1)   # 1 / (0.1*0.11547 + 1*0.2598*0.01*1.0032)
    70.7
    """
    p = _checks.in_range("loss_rate", loss_rate, 0.0, 1.0, low_open=True, high_open=True)
    r = _checks.positive("rtt", rtt)
    t0 = _checks.positive("rto", rto)
    bb = _checks.positive("b", b)
    wm = np.inf if max_window is None else _checks.positive("max_window", max_window)
    if _checks.flag("approximate", approximate):
        denom = r * np.sqrt(2 * bb * p / 3) + t0 * np.minimum(1.0, 3 * np.sqrt(3 * bb * p / 8)) * p * (1 + 32 * p**2)
        out = np.minimum(wm / r, 1.0 / denom)
    else:
        q = 1.0 - p
        k = (2 + bb) / (3 * bb)
        ew = k + np.sqrt(8 * q / (3 * bb * p) + k**2)
        g = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6

        def qhat(w):
            return np.minimum(1.0, (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3))) / (1 - q**w))

        with np.errstate(invalid="ignore", divide="ignore"):
            free = (q / p + ew + qhat(ew) / q) / (r * (ew + 1) + qhat(ew) * g * t0 / q)
            wl = np.where(np.isfinite(wm), wm, 1.0)
            limited = (q / p + wl + qhat(wl) / q) / (
                r * (bb / 8 * wl + q / (p * wl) + 2) + qhat(wl) * g * t0 / q
            )
        out = np.where(ew < wm, free, limited)
    return _checks.scalar_or_array(out, loss_rate, rtt, rto, b, max_window)
