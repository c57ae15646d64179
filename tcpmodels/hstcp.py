"""HighSpeed TCP (RFC 3649) and Scalable TCP (Kelly 2003) window laws.

HighSpeed TCP changes TCP's additive increase ``w += a(w)/w`` per ACK and
multiplicative decrease ``w -= b(w) w`` per congestion event so that the
average window follows the *HighSpeed response function* above
``LOW_WINDOW`` = 38 packets.  This module gives that response function, the
increase and decrease laws ``a(w)`` and ``b(w)`` in the four forms met in
practice (``kind=``), the RFC's Appendix B table as its own program generates
it, the drop-tail loss-event analysis of Su et al. (2006) and Scalable TCP as
the comparison row.

The ``kind`` of ``a(w)`` / ``b(w)``:

``"formula"``
    RFC 3649, Sec. 5, faithfully: ``a = 1``, ``b = 0.5`` at or below
    Low_Window, the continuous laws above it.  Because the RFC's constants are
    rounded, the formula gives ``a(38+) = 0.956``: the increase *drops* by 4 %
    just above Low_Window and only climbs back to 1 at w = 40.7 packets.
``"monotone"``
    The corrected formula, ``a = max(1, formula)``: non-decreasing everywhere.
``"table"``
    The stepped law of RFC 3649, Appendix B: the row ``(w_k, a_k, b_k)`` with
    the largest ``w_k <= w`` applies (integer ``a``, ``b`` printed to 0.01).
``"linux"``
    Linux ``net/ipv4/tcp_highspeed.c``: the first of the RFC's first 72 rows
    whose window bound is ``>= w`` applies, so each integer step of ``a``
    starts one row *earlier* than in the RFC table (``a = 2`` just above 38);
    the decrease is ``md/256`` with ``md = floor(256 b(w_k))``.
"""

import dataclasses
import functools
import warnings

import numpy as np

from . import _checks
from ._checks import TCPModelsWarning
from ._results import Result

__all__ = [
    "LOW_WINDOW",
    "HIGH_WINDOW",
    "HIGH_P",
    "HIGH_DECREASE",
    "LOW_P",
    "P_COEFFICIENT",
    "P_EXPONENT",
    "STANDARD_C",
    "KINDS",
    "SCALABLE_A",
    "SCALABLE_B",
    "HSTCPTable",
    "p",
    "b",
    "a",
    "loss_rate",
    "window",
    "table",
    "LossEvent",
    "loss_event",
    "scalable_a",
    "scalable_b",
    "scalable_window",
    "scalable_loss_rate",
]

#: RFC 3649, Sec. 5: window [packets] below which HighSpeed TCP is Standard TCP.
LOW_WINDOW = 38.0
#: RFC 3649, Sec. 5: window [packets] reached at loss rate ``HIGH_P``.
HIGH_WINDOW = 83000.0
#: RFC 3649, Sec. 5: loss rate at ``HIGH_WINDOW``.
HIGH_P = 1e-7
#: RFC 3649, Sec. 5: decrease factor b(w) at ``HIGH_WINDOW``.
HIGH_DECREASE = 0.1
#: RFC 3649, Sec. 5: Standard TCP's loss rate at Low_Window, (1.2/38)^2 rounded.
LOW_P = 1e-3
#: RFC 3649, Sec. 5 and Appendix B: p(w) = 1/(12.8 w^1.2); printed as 0.078.
P_COEFFICIENT = 1.0 / 12.8
#: RFC 3649, Sec. 5: exponent of p(w) = 0.078/w^1.2.
P_EXPONENT = 1.2
#: RFC 3649 (Standard TCP response-function table): w = 1.2/sqrt(p).
STANDARD_C = 1.2
#: Forms of a(w) and b(w); see the module docstring.
KINDS = ("formula", "monotone", "table", "linux")
#: Kelly (2003): Scalable TCP's increase per ACK [packets].
SCALABLE_A = 0.01
#: Kelly (2003): Scalable TCP's decrease factor per congestion event.
SCALABLE_B = 0.125

# RFC 3649, Appendix B program: it scans w = 38, 39, ... below this bound.
_TABLE_TOP = 100000
# Linux keeps the RFC rows without the last one (net/ipv4/tcp_highspeed.c).
_LINUX_ROWS = 72
# Slope of b(w) against ln(w) (RFC 3649, Sec. 5), magnitude.
_B_SLOPE = (0.5 - HIGH_DECREASE) / np.log(HIGH_WINDOW / LOW_WINDOW)
# b(w) reaches 0 here (567 416 packets); above it b(w) is meaningless.
_B_ZERO_WINDOW = LOW_WINDOW * np.exp(0.5 / _B_SLOPE)
# a(w) ~ w^(2 - 1.2) 2b/(2 - b) peaks where b(2 - b) = 2 |db/dln w| / 0.8, i.e. b = 0.0673 at
# 155 644 packets (a = 77.5); above it a(w) *decreases* with the window.
_A_PEAK_WINDOW = LOW_WINDOW * np.exp(
    (0.5 - (1.0 - np.sqrt(1.0 - 2.0 * _B_SLOPE / (2.0 - P_EXPONENT)))) / _B_SLOPE
)



@dataclasses.dataclass(frozen=True)
class HSTCPTable(Result):
    """Rows ``(window, a, b)`` of a stepped HighSpeed TCP law.

    Attributes
    ----------
    window : ndarray of int
        Window [packets] at which the row starts (``"rfc"``) or that bounds it
        from above (``"linux"``).
    a : ndarray of int
        Increase per RTT [packets].
    b : ndarray of float
        Decrease factor [1]: printed to 0.01 (``"rfc"``) or ``md/256``
        (``"linux"``).
    kind : str
        ``"rfc"`` or ``"linux"``.
    """

    window: np.ndarray
    a: np.ndarray
    b: np.ndarray
    kind: str


@dataclasses.dataclass(frozen=True)
class LossEvent(Result):
    """One congestion event of a HighSpeed TCP flow at a drop-tail queue (see :func:`loss_event`).

    Attributes
    ----------
    drops : float or ndarray
        Packets dropped in the event [packets].
    gap : float or ndarray
        Sequence-number distance between successive drops [packets].
    """

    drops: object
    gap: object


def _window(value, minimum=0.0):
    if minimum > 0:
        return _checks.in_range("window", value, minimum, np.inf)
    return _checks.positive("window", value, finite=True)  # (a(inf) was NaN)


def _p(w):
    return P_COEFFICIENT / w**P_EXPONENT  # RFC 3649, Sec. 5: p(w) = 0.078/w^1.2


def _b(w):
    # RFC 3649, Sec. 5: b(w) linear in log(w) from 0.5 at Low_Window to High_Decrease at High_Window.
    frac = (np.log(w) - np.log(LOW_WINDOW)) / (np.log(HIGH_WINDOW) - np.log(LOW_WINDOW))
    return np.where(w <= LOW_WINDOW, 0.5, (HIGH_DECREASE - 0.5) * frac + 0.5)


def _a(w):
    bw = _b(w)
    raw = w**2 * _p(w) * 2.0 * bw / (2.0 - bw)  # RFC 3649, Sec. 5: a(w) = w^2 p(w) 2 b(w)/(2 - b(w))
    return np.where(w <= LOW_WINDOW, 1.0, raw)


def _rfc_rows():
    """RFC 3649, Appendix B: the Perl program, run over all windows at once."""
    w = np.arange(int(LOW_WINDOW) + 1, _TABLE_TOP, dtype=float)
    aw = _a(w)  # increasing for w > Low_Window, so each next row is one search
    windows, a_values, b_values = [int(LOW_WINDOW)], [1], [0.5]
    old_a = 1.0
    while True:  # one pass per printed row (73), not per window
        i = int(np.searchsorted(aw, old_a + 1.0, side="right"))  # "if ($aw > $olda + 1)"
        if i >= w.size:
            break
        windows.append(int(w[i]))
        a_values.append(int(aw[i]))  # printf "%5d" truncates
        b_values.append(round(float(_b(w[i])), 2))  # printf "%3.2f"
        old_a = aw[i]  # "$olda = $aw": the unrounded value
    return np.array(windows), np.array(a_values), np.array(b_values)


@functools.lru_cache(maxsize=None)
def _rows(kind):
    windows, a_values, b_values = _rfc_rows()
    if kind == "linux":
        windows, a_values = windows[:_LINUX_ROWS], a_values[:_LINUX_ROWS]
        b_values = np.floor(256.0 * _b(windows.astype(float))) / 256.0  # md = floor(256 b), ">> 8"
    for arr in (windows, a_values, b_values):
        arr.setflags(write=False)
    return windows, a_values, b_values


def _row_index(w, kind):
    windows = _rows(kind)[0]
    if kind == "linux":  # first row whose bound is >= cwnd, clamped to the last row
        return np.minimum(np.searchsorted(windows, w, side="left"), windows.size - 1)
    return np.maximum(np.searchsorted(windows, w, side="right") - 1, 0)  # last row with w_k <= w


def _stepped(w, kind, column):
    table_kind = "linux" if kind == "linux" else "rfc"
    return _rows(table_kind)[column][_row_index(w, table_kind)].astype(float)


def _warn_beyond(w, kind, limit, message):
    # (The message is built only where it is given: the simulator asks at every step.)
    if kind in ("formula", "monotone") and (w > limit).any():
        warnings.warn(f"{message} above {limit:.0f} packets (RFC 3649 designs up to 83000)", TCPModelsWarning,
                      stacklevel=4)  # (the caller of a or b)


def _a_law(w, kind):
    """:func:`a` at checked windows ``w`` (an array, every entry > 0) of a checked ``kind``, warning as it does.

    The simulator's HighSpeed senders call it at every step, on windows the
    engine keeps at 1 packet or more.
    """
    _warn_beyond(w, kind, _A_PEAK_WINDOW, "RFC 3649 a(w) decreases with the window")
    if kind == "formula":
        return _a(w)
    if kind == "monotone":
        return np.maximum(_a(w), 1.0)
    return _stepped(w, kind, 1)


def _b_law(w, kind):
    """:func:`b` at checked windows ``w`` of a checked ``kind``, warning as it does (see :func:`_a_law`)."""
    _warn_beyond(w, kind, _B_ZERO_WINDOW, "RFC 3649 b(w) is negative")
    return _b(w) if kind in ("formula", "monotone") else _stepped(w, kind, 2)


def p(window):
    """Loss rate of the HighSpeed response function at a window, RFC 3649, Sec. 5.

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.

    Returns
    -------
    float or ndarray
        Packet drop rate p(w) [1].

    Notes
    -----
    RFC 3649, Sec. 5 draws the response function as a straight line on a
    log-log plot through ``(Low_P, Low_Window) = (10^-3, 38)`` and
    ``(High_P, High_Window) = (10^-7, 83000)``:

    .. math::

        w = W_{low} (p / P_{low})^S, \\quad
        S = \\frac{\\log W_{high} - \\log W_{low}}{\\log P_{high} - \\log P_{low}} = -0.835,

    i.e. :math:`w = 0.12 / p^{0.835}`, and inverted

    .. math:: p(w) = \\frac{0.078}{w^{1.2}}.

    The RFC's Appendix B program evaluates ``0.078`` as ``1/12.8 = 0.078125``;
    this function uses that value (``P_COEFFICIENT``) so that :func:`table`
    comes out of this very law.  The unrounded line through the two anchor
    points, :math:`0.07805/w^{1.198}`, differs by up to 2.3 % (at
    High_Window), and the printed inverse :math:`w = 0.12/p^{0.835}` by up to
    3 %: the RFC's three forms of its law agree only to its rounding.  The
    law is the HighSpeed branch only: below Low_Window HighSpeed TCP follows
    Standard TCP (see :func:`loss_rate`).

    References
    ----------
    S. Floyd, "HighSpeed TCP for Large Congestion Windows", RFC 3649, 2003.

    Examples
    --------
    >>> p(83000)  # High_P = 1e-7 at High_Window, 2.3 % off through rounding
    9.77e-08
    >>> p([38, 118])
    array([0.000993..., 0.000254...])
    """
    w = _window(window)
    return _checks.scalar_or_array(_p(w), window)


def b(window, kind="formula"):
    """Decrease factor b(w) of HighSpeed TCP, RFC 3649, Sec. 5 (and App. B).

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.
    kind : {"formula", "monotone", "table", "linux"}
        Which form of the law (module docstring); ``"formula"`` and
        ``"monotone"`` give the same b(w).

    Returns
    -------
    float or ndarray
        Decrease factor [1]: on a congestion event ``w <- (1 - b(w)) w``.

    Notes
    -----
    RFC 3649, Sec. 5: 0.5 at or below Low_Window, then linear in
    :math:`\\log w`, reaching High_Decrease = 0.1 at High_Window:

    .. math::

        b(w) = (b_{high} - 0.5)
               \\frac{\\log w - \\log W_{low}}{\\log W_{high} - \\log W_{low}} + 0.5.

    The RFC table extends the line past High_Window (b = 0.09 at 94717);
    it reaches 0 at 567 416 packets, above which a warning is given.

    Examples
    --------
    Su et al. (2006), Sec. 2: "when w = 118, ... b(w) = 0.44.  When w = 347,
    ... b(w) = 0.38".

    >>> round(b(118), 2), round(b(347), 3)
    (0.44, 0.385)
    >>> b([38, 83000])
    array([0.5, 0.1])
    >>> b(100, kind="linux")  # Linux: md = 112 of the 118-row, 112/256
    0.4375
    """
    kind = _checks.choice("kind", kind, KINDS)
    w = _window(window)
    return _checks.scalar_or_array(_b_law(w, kind), window)


def a(window, kind="formula"):
    """Increase a(w) of HighSpeed TCP per RTT, RFC 3649, Sec. 5 (and App. B).

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.
    kind : {"formula", "monotone", "table", "linux"}
        Which form of the law (module docstring).

    Returns
    -------
    float or ndarray
        Increase [packets per RTT]: each ACK adds ``a(w)/w`` to the window.

    Notes
    -----
    RFC 3649, Sec. 5: the AIMD response function
    :math:`w = \\sqrt{a (2 - b) / (2 b p)}` solved for ``a`` at the
    HighSpeed loss rate :func:`p` and decrease :func:`b`:

    .. math:: a(w) = \\frac{w^2 \\, p(w) \\, 2 \\, b(w)}{2 - b(w)}, \\qquad w > W_{low},

    and ``a = 1`` at or below Low_Window.  With the RFC's rounded constants
    the formula gives 0.956 just above Low_Window (Standard TCP's
    :math:`1.2/\\sqrt{p}` and AIMD(1, 0.5)'s :math:`\\sqrt{1.5/p}` differ by
    2 %), so the faithful ``"formula"`` dips below 1 on (38, 40.7);
    ``"monotone"`` clips it at 1.  ``"table"`` and ``"linux"`` are the
    integer steps used by real stacks; they differ from the formula by up to
    one packet per RTT, Linux being one step ahead of the RFC table.

    Because b(w) keeps falling, the formula peaks at w = 155 644 packets
    (a = 77.5, b = 0.067) and decreases beyond; a warning is given there.

    Examples
    --------
    Su et al. (2006), Sec. 2: "when w = 118, a(w) = 2 ... when w = 347,
    a(w) = 4".

    >>> round(a(118)), round(a(347))
    (2, 4)
    >>> a(8400), a(8400, kind="table"), a(8400, kind="linux")
    (26.50..., 26.0, 27.0)
    >>> a([38, 39, 41], kind="monotone")
    array([1.     , 1.     , 1.005...])
    """
    kind = _checks.choice("kind", kind, KINDS)
    w = _window(window)
    return _checks.scalar_or_array(_a_law(w, kind), window)


def loss_rate(window):
    """Loss rate at which HighSpeed TCP averages a window, RFC 3649, Sec. 5.

    Parameters
    ----------
    window : float or array_like
        Average congestion window [packets], >= 1.2 (a loss rate of 1).

    Returns
    -------
    float or ndarray
        Packet drop rate [1].

    Notes
    -----
    Standard TCP's response :math:`p = (1.2/w)^2` for small windows, the
    HighSpeed law :func:`p` for large ones:

    .. math:: p = \\max\\left((1.2/w)^2, \\; 0.078/w^{1.2}\\right).

    The RFC switches at Low_Window = 38 exactly, where the two curves differ
    by 0.4 % (the constants are rounded), which leaves a gap in the inverse.
    Taking the maximum switches where the curves cross, w = 38.19, so the
    response function is continuous and :func:`window` is its exact inverse.

    Examples
    --------
    >>> loss_rate(12)  # RFC 3649, Standard TCP table: p = 1e-2 gives w = 12
    0.01
    >>> loss_rate([263, 12279])  # RFC 3649, Sec. 5 table pairs them with 1e-4, 1e-6
    array([9.75e-05, 9.68e-07])
    """
    w = _window(window, minimum=STANDARD_C)
    return _checks.scalar_or_array(np.maximum((STANDARD_C / w) ** 2, _p(w)), window)


def window(loss_rate):
    """Average window of HighSpeed TCP at a loss rate, RFC 3649, Sec. 5.

    Parameters
    ----------
    loss_rate : float or array_like
        Packet drop rate [1], in (0, 1].

    Returns
    -------
    float or ndarray
        Average congestion window [packets].

    Notes
    -----
    The inverse of :func:`loss_rate`:

    .. math:: w = \\max\\left(1.2/\\sqrt{p}, \\; (0.078/p)^{1/1.2}\\right),

    the second term being the RFC's :math:`w = 0.12/p^{0.835}`.  The printed
    form is rounded differently: its windows (RFC 3649, Sec. 5 table: 263, 1795,
    12279, 83981 at p = 1e-4 ... 1e-7) are 2-3 % above these.

    Examples
    --------
    >>> window(1e-2)
    12.0
    >>> window([1e-4, 1e-5])  # RFC 3649, Sec. 5 table: 263, 1795
    array([ 257.4..., 1753.8...])
    >>> round(window(1e-3), 2), round(window(1e-7))  # Sec. 5 table: 38, 83981
    (37.95, 81406)
    """
    loss = _checks.in_range("loss_rate", loss_rate, 0.0, 1.0, low_open=True)
    out = np.maximum(STANDARD_C / np.sqrt(loss), (P_COEFFICIENT / loss) ** (1.0 / P_EXPONENT))
    return _checks.scalar_or_array(out, loss_rate)


def table(kind="rfc"):
    """The stepped (w, a(w), b(w)) table, RFC 3649, Appendix B.

    Parameters
    ----------
    kind : {"rfc", "linux"}
        ``"rfc"``: the 73 rows printed in the RFC, produced by the RFC's own
        program.  ``"linux"``: the 72 rows of ``net/ipv4/tcp_highspeed.c``,
        with ``b = md/256``.

    Returns
    -------
    HSTCPTable
        ``.window``, ``.a``, ``.b`` arrays and ``.kind``.

    Notes
    -----
    The RFC's program scans w = 39, 40, ... below 100 000, computes
    :func:`a` and :func:`b` from the formulas of Sec. 5 (with
    :math:`p(w) = 1/(12.8 w^{1.2})`) and prints a row
    ``(w, int(a), b rounded to 0.01)`` whenever ``a(w) > a_last + 1``, where
    ``a_last`` is the *unrounded* ``a`` of the previous row (1 for the first
    row, w = 38).  Each row therefore starts where the formula first exceeds
    the next integer (plus the accumulated fractional offset), so the table
    lies at or below the formula.  With the printed 0.078 instead of 1/12.8
    every row from the third one moves up by 0.2-0.8 % (221 becomes 222).

    Linux keeps the first 72 rows, stores ``md = floor(256 b(w_k))`` and uses
    the row whose bound is the first ``>= cwnd``.

    Examples
    --------
    >>> t = table()
    >>> len(t.window), t.window[:4], t.a[:4], t.b[:4]
    (73, array([ 38, 118, 221, 347]), array([1, 2, 3, 4]), array([0.5 , 0.44, 0.41, 0.38]))
    >>> int(t.window[-1]), int(t.a[-1]), float(t.b[-1])
    (94717, 73, 0.09)
    >>> (table("linux").b[:3] * 256).astype(int)
    array([128, 112, 104])
    """
    kind = _checks.choice("kind", kind, ("rfc", "linux"))
    windows, a_values, b_values = _rows(kind)
    return HSTCPTable(window=windows.copy(), a=a_values.copy(), b=b_values.copy(), kind=kind)


def loss_event(window, kind="formula"):
    """Drops in one congestion event at a drop-tail queue, and their spacing, Su et al. (2006), Sec. 3.2.

    Parameters
    ----------
    window : float or array_like
        Congestion window when the queue overflows, ``W_c`` [packets].
    kind : {"formula", "monotone", "table", "linux"}
        Form of a(w), see :func:`a`.

    Returns
    -------
    LossEvent
        ``.drops`` [packets] dropped per congestion event and ``.gap``
        [packets], the sequence-number distance between successive drops.

    Notes
    -----
    Loss is detected one RTT after the first drop; during that RTT the window
    grows by a(W_c), and with a full drop-tail queue every one of those extra
    packets is dropped.  Each ACK adds a(w)/w to the window, so every w/a(w)
    ACKs the window gains a whole packet and the sender emits two packets back
    to back; the second of the pair finds the full queue (Fig. 4):

    .. math:: N_{drop} = a(W_c), \\qquad \\Delta_{seq} = \\frac{W_c}{a(W_c)}.

    Valid for a single flow in congestion avoidance with an ACK clock (no
    burst from ACK loss or compression, which the paper blames for drops
    above a(w) in its Table 1); spread drops synchronise competing flows.

    Examples
    --------
    Su et al. (2006), Sec. 3.2: "W_c = 8400, and a(W_c) = 26, so the interval
    of dropped packets' sequence number is about 323" (8130 <= 8400 < 8726 in
    the RFC table; the formula gives a = 26.5, the paper quotes an integer).

    >>> ev = loss_event(8400, kind="table")
    >>> ev.drops, round(ev.gap, 1)
    (26.0, 323.1)
    >>> round(loss_event(8400).gap, 1)  # with the unrounded a(8400) = 26.51
    316.9
    >>> loss_event([118, 347]).drops
    array([2.009..., 4.011...])
    """
    w = _window(window)
    drops = a(w, kind=kind)
    return LossEvent(drops=_checks.scalar_or_array(drops, window), gap=_checks.scalar_or_array(w / drops, window))


def scalable_a(window):
    """Increase per RTT of Scalable TCP, Kelly (2003).

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.

    Returns
    -------
    float or ndarray
        Increase [packets per RTT], in the ``w += a(w)/w`` per ACK convention
        of :func:`a`.

    Notes
    -----
    Scalable TCP adds 0.01 packet per ACK, i.e. :math:`a(w) = 0.01\\, w` per
    RTT (a multiplicative increase of 1 % per RTT).

    References
    ----------
    T. Kelly, "Scalable TCP: Improving performance in high-speed wide area
    networks", ACM SIGCOMM CCR 33(2):83-91, 2003.

    Examples
    --------
    >>> scalable_a(8400)  # vs a(8400) = 26.5 for HighSpeed TCP
    84.0
    """
    w = _window(window)
    return _checks.scalar_or_array(SCALABLE_A * w, window)


def scalable_b(window):
    """Decrease factor of Scalable TCP, Kelly (2003): 0.125 at every window.

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0 (only its shape matters).

    Returns
    -------
    float or ndarray
        Decrease factor [1]: on a congestion event ``w <- (1 - 0.125) w``.

    Notes
    -----
    .. math:: b(w) = 0.125

    Examples
    --------
    >>> scalable_b([100, 8400])
    array([0.125, 0.125])
    """
    w = _window(window)
    return _checks.scalar_or_array(np.full_like(w, SCALABLE_B), window)


def scalable_window(loss_rate):
    """Average window of Scalable TCP at a loss rate (deterministic sawtooth), after Kelly (2003).

    Parameters
    ----------
    loss_rate : float or array_like
        Packet drop rate [1], in (0, 1].

    Returns
    -------
    float or ndarray
        Window at the congestion events [packets].

    Notes
    -----
    Between two congestion events the window climbs from :math:`(1 - b) W` to
    :math:`W` by 0.01 per ACK, i.e. over :math:`b W / 0.01 = 12.5 W` packets;
    one loss in that many packets gives

    .. math:: W = \\frac{0.01}{0.125 \\, p} = \\frac{0.08}{p},

    the MIMD response (window proportional to 1/p, against HighSpeed TCP's
    :math:`p^{-0.835}`).  Derived here from the increase/decrease rules;
    valid for periodic single losses, windows of a few packets upward.

    Examples
    --------
    >>> scalable_window(1e-5)
    8000.0
    """
    loss = _checks.in_range("loss_rate", loss_rate, 0.0, 1.0, low_open=True)
    return _checks.scalar_or_array(SCALABLE_A / (SCALABLE_B * loss), loss_rate)


def scalable_loss_rate(window):
    """Loss rate at which Scalable TCP reaches a window (inverse of :func:`scalable_window`).

    Parameters
    ----------
    window : float or array_like
        Window at the congestion events [packets], >= 0.08 (loss rate 1).

    Returns
    -------
    float or ndarray
        Packet drop rate [1].

    Notes
    -----
    .. math:: p = \\frac{0.01}{0.125 \\, W} = \\frac{0.08}{W}

    Examples
    --------
    >>> scalable_loss_rate([800, 8000])
    array([1.e-04, 1.e-05])
    """
    w = _window(window, minimum=SCALABLE_A / SCALABLE_B)
    return _checks.scalar_or_array(SCALABLE_A / (SCALABLE_B * w), window)
