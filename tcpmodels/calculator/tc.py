"""Rendering a RED setting as a Linux ``tc qdisc add ... red`` line, with the numbers tc derives from it.

References
----------
iproute2 ``tc/q_red.c`` and ``tc/tc_red.c``; tc-red(8).
"""

import dataclasses
import math
import re

from .. import _checks
from .._results import Result
from . import kernel

__all__ = ["LIMIT_FACTOR", "TcRed", "check_dev", "tc_rate", "tc_red", "max_threshold", "min_probability",
           "wlog_range"]

#: tc's hard ``limit`` as a multiple of ``max``: tc-red(8) asks for "a few times max".
LIMIT_FACTOR = 4


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
        Burst allowance [packets]: tc-red(8)'s guideline (2 min + max) / (3 avpkt),
        or the largest burst whose Wlog the kernel accepts.
    probability : float
        max_p.
    bandwidth : str
        Link rate in tc syntax (used by tc only to age the average over idle time).
    ewma_log : int
        Wlog that tc derives from burst; the EWMA weight is 2**-ewma_log.
    weight : float
        EWMA weight 2**-ewma_log.
    flags : tuple of str
        ``ecn``, ``harddrop``, ``adaptive`` as printed.
    command : str
        The ``tc qdisc add dev DEV root red ...`` line.
    notes : tuple of str
        What tc will say about this line, and where the kernel made the line
        differ from the guideline.
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
    flags: tuple
    command: str
    notes: tuple



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
    bits = int(round(_checks.one("bandwidth", _checks.positive, bandwidth, finite=True)))
    for unit, scale in (("tbit", 10**12), ("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bits >= scale and bits % scale == 0:
            return f"{bits // scale}{unit}"
    return f"{bits}bit"


# Interface names as Linux forms them (at most IFNAMSIZ - 1 = 15 characters), limited to characters that
# a shell passes through unchanged, so the printed line cannot carry a second command.
_DEV = re.compile(r"[A-Za-z0-9_.+-]{1,15}")


def check_dev(dev):
    """Return `dev` if it is an interface name safe to paste into a shell line, else raise ``ValueError``.

    Parameters
    ----------
    dev : str
        Interface name: letters, digits and ``_ . + -``, at most 15 characters.

    Returns
    -------
    str

    Examples
    --------
    >>> check_dev("eth0.100")
    'eth0.100'
    >>> check_dev("eth0; reboot")
    Traceback (most recent call last):
    ...
    ValueError: dev must be an interface name (letters, digits, _ . + -; at most 15 characters), got 'eth0; reboot'
    """
    if not isinstance(dev, str) or not _DEV.fullmatch(dev) or dev in (".", ".."):
        raise ValueError("dev must be an interface name (letters, digits, _ . + -; at most 15 characters), "
                         f"got {dev!r}")
    return dev


def max_threshold(min_bytes, max_p):
    """Largest ``max`` [bytes] tc and the kernel accept for a RED line with this min and probability.

    Two limits: tc's Plog must exist (``tc_red_eval_P``: max - min below
    about max_p * 2**31 bytes), and the kernel's ``fls(max) + Wlog < 32`` with
    the smallest Wlog, 1 (max below 2**30 bytes).

    Parameters
    ----------
    min_bytes : int
        [bytes].
    max_p : float
        Probability at max.

    Returns
    -------
    int
        [bytes].

    Examples
    --------
    >>> max_threshold(7500, 0.015), max_threshold(7500, 0.9)
    (32219754, 1073741823)
    """
    min_bytes = int(_checks.whole("min_bytes", min_bytes, minimum=0))
    # (max_p <= 0 would count delta down forever: no Plog exists for it.)
    max_p = float(_checks.in_range("max_p", max_p, 0, 1, low_open=True))
    delta = min(int(max_p * 2.0**31), 2**31 - 1)
    while kernel.tc_red_eval_P(0, delta, max_p) < 0:
        delta -= 1
    return min(2**30 - 1, min_bytes + delta)


def min_probability(min_bytes, max_bytes):
    """Smallest probability, to 4 significant figures, for which tc finds a Plog for these thresholds.

    Parameters
    ----------
    min_bytes, max_bytes : int
        [bytes].

    Returns
    -------
    float

    Examples
    --------
    >>> min_probability(2880, 115200)           # max - min = 112320 bytes: just above 112320 / 2**31
    5.231e-05
    """
    min_bytes = int(_checks.whole("min_bytes", min_bytes, minimum=0))
    max_bytes = int(_checks.whole("max_bytes", max_bytes, minimum=0))
    # tc holds max - min in a C int: at 2**31 bytes or more no probability gives a Plog, and the search
    # below would never end.
    if not 0 < max_bytes - min_bytes < 2**31:
        raise ValueError(f"max_bytes must be above min_bytes ({min_bytes}) by less than 2**31 bytes, got {max_bytes}")
    exact = (max_bytes - min_bytes) / 2.0**31     # tc needs prob * 2**31 / (max - min) > 1
    step = 10.0 ** (math.floor(math.log10(exact)) - 3)   # one unit in the 4th significant figure
    p = math.ceil(exact / step) * step
    while kernel.tc_red_eval_P(min_bytes, max_bytes, float(f"{p:.4g}")) < 0:
        p += step
    return float(f"{p:.4g}")


def _tc_bandwidth(bandwidth):
    """(bytes/s, tc text, notes): tc holds the rate in a 32-bit count of whole bytes per second."""
    bandwidth = _checks.one("bandwidth", _checks.positive, bandwidth, finite=True)
    rate = int(round(bandwidth / 8))
    notes = []
    if rate > kernel.UINT_MAX:
        rate = 34359 * 10**6 // 8
        notes.append(f"tc holds the bandwidth in 32-bit bytes/s (at most 34.36 Gbit/s): printed "
                     f"{tc_rate(8 * rate)} instead of {tc_rate(bandwidth)}. tc uses it only to age the "
                     f"average over idle time, which then decays {bandwidth / (8 * rate):.3g} times slower.")
    elif rate < 1:
        raise ValueError(f"bandwidth must be at least 8 bit/s for tc (whole bytes per second), got {bandwidth!r}")
    elif 8 * rate != round(bandwidth):
        notes.append(f"tc reads rates as whole bytes per second: bandwidth {tc_rate(8 * rate)} for "
                     f"{bandwidth:g} bit/s.")
    return rate, tc_rate(8 * rate), notes


def wlog_range(min_th, max_th, packet_size, bandwidth):
    """Smallest and largest Wlog a tc RED line with these thresholds can carry (EWMA weight 2**-Wlog).

    The smallest comes from the smallest burst tc takes (min / avpkt); the
    largest from the kernel's ``fls(max) + Wlog < 32`` and tc's idle damping table.

    Parameters
    ----------
    min_th, max_th : float
        Thresholds [packets].
    packet_size : int
        [bytes].
    bandwidth : float
        Link rate [bit/s].

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> wlog_range(5, 500, 576, 10e6)     # fls(288000) = 19: Wlog at most 12
    (1, 12)
    """
    avpkt = int(packet_size)
    lo, hi = int(round(min_th * avpkt)), int(round(max_th * avpkt))
    smallest = kernel.tc_red_eval_ewma(lo, -(-lo // avpkt), avpkt)
    return max(1, smallest), _largest_wlog(lo, hi, avpkt, _tc_bandwidth(bandwidth)[0])


def _largest_wlog(lo, hi, avpkt, rate):
    """Largest Wlog the kernel accepts for these thresholds and that tc can build a damping table for."""
    wlog = 31 - kernel.fls(hi)
    while wlog >= 1 and kernel.tc_red_eval_idle_damping(wlog, avpkt, rate)[0] < 0:
        wlog -= 1
    return wlog


def _burst_for(lo, avpkt, wlog, guideline):
    """Largest burst up to `guideline` whose Wlog (tc_red_eval_ewma) is at most `wlog`."""
    low, high = -(-lo // avpkt), guideline   # burst >= min/avpkt, else tc: "burst too small"
    while low < high:  # Wlog never falls as burst grows
        mid = (low + high + 1) // 2
        if 0 < kernel.tc_red_eval_ewma(lo, mid, avpkt) <= wlog:   # -1: no Wlog below 32 fits
            low = mid
        else:
            high = mid - 1
    return low


def tc_red(min_th, max_th, max_p, packet_size, bandwidth, *, limit=None, dev="DEV", ecn=False,
           adaptive=False, ewma_log=None):
    """Render a RED setting as a Linux ``tc qdisc add ... red`` line the kernel accepts.

    Parameters
    ----------
    min_th, max_th : float
        Thresholds [packets]; converted to whole bytes with `packet_size`.
    max_p : float
        Drop probability at max (tc's ``probability``), in (0, 1).
    packet_size : int
        Mean packet size [bytes] (tc's ``avpkt``), a whole number.
    bandwidth : float
        Link rate [bit/s] (tc's ``bandwidth``).
    limit : float, optional
        Hard limit [bytes]; :data:`LIMIT_FACTOR` times max by default (tc-red(8):
        "a few times max").
    dev : str, optional
        Interface name (:func:`check_dev`).
    ecn : bool, optional
        Mark ECN-capable packets instead of dropping them below max; prints
        ``ecn harddrop`` (above max, drop: what the simulator and the models do).
    adaptive : bool, optional
        Print ``adaptive`` (Floyd, Gummadi & Shenker 2001: max_p adapts every
        500 ms within 1-50 %); `max_p` is the starting value.
    ewma_log : int, optional
        Wlog to give the line (EWMA weight 2**-ewma_log) instead of the
        guideline's: burst is then the largest that gives it.  At most the
        largest the kernel accepts for these thresholds (:func:`wlog_range`).

    Returns
    -------
    TcRed

    Raises
    ------
    ValueError
        Thresholds or limit that no tc line can hold (see :func:`max_threshold`).

    Notes
    -----
    burst follows tc-red(8)'s guideline ``(min + min + max) / (3 * avpkt)``
    (integer division, as tc's own default) unless the Wlog tc derives from it
    (:func:`tcpmodels.calculator.kernel.tc_red_eval_ewma`) fails the kernel's
    ``fls(max) + Wlog < 32`` check or leaves tc no idle damping table; then the
    burst is the largest whose Wlog passes, and a note says what that changes.
    The line is then run through ports of tc's parser and the kernel's check
    (:func:`tcpmodels.calculator.kernel.kernel_accepts`).

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
    ecn, adaptive = _checks.flag("ecn", ecn), _checks.flag("adaptive", adaptive)
    dev = check_dev(dev)
    avpkt = int(_checks.whole("packet_size", packet_size))
    min_th = _checks.one("min_th", _checks.nonnegative, min_th, finite=True)
    max_th = _checks.one("max_th", _checks.positive, max_th, finite=True)
    lo, hi = int(round(min_th * avpkt)), int(round(max_th * avpkt))
    if not hi > lo:
        raise ValueError(f"max_th ({max_th:g} packets) must be above min_th ({min_th:g} packets)")
    top = max_threshold(lo, max_p)
    if hi > top:
        raise ValueError(f"max_th ({max_th:g} packets = {hi} bytes) is more than tc's RED can hold with "
                         f"max_p {max_p:.4g}: at most {top} bytes ({top // avpkt} packets)")
    lim = int(round(LIMIT_FACTOR * hi if limit is None else float(_checks.positive("limit", limit, finite=True))))
    if lim < hi:
        raise ValueError(f"limit ({lim} bytes) must be at least max ({hi} bytes)")
    if lim > kernel.UINT_MAX:
        raise ValueError(f"limit ({lim} bytes) does not fit tc's 32-bit byte counts (at most {kernel.UINT_MAX})")
    rate, rate_text, notes = _tc_bandwidth(bandwidth)
    guideline = max((2 * lo + hi) // (3 * avpkt), -(-lo // avpkt))
    wlog_guideline, wlog_top = kernel.tc_red_eval_ewma(lo, guideline, avpkt), _largest_wlog(lo, hi, avpkt, rate)
    if wlog_top < 1:
        raise ValueError(f"bandwidth {rate_text} is too slow for tc's RED idle damping with {avpkt}-byte packets")
    if ewma_log is not None:  # a chosen weight (a stability remedy): the largest burst that gives it
        wlog = int(_checks.in_range("ewma_log", ewma_log, max(1, kernel.tc_red_eval_ewma(lo, -(-lo // avpkt), avpkt)),
                                    wlog_top))
        burst = _burst_for(lo, avpkt, wlog, 2 ** (wlog + 1))
        guideline, wlog_guideline = burst, wlog
    else:
        burst = guideline if 0 < wlog_guideline <= wlog_top else _burst_for(lo, avpkt, wlog_top, guideline)
    flags = ("ecn", "harddrop") if ecn else ()
    flags += ("adaptive",) if adaptive else ()
    command = " ".join([f"tc qdisc add dev {dev} root red limit {lim} min {lo} max {hi} avpkt {avpkt} "
                        f"burst {burst} probability {max_p:.4g} bandwidth {rate_text}", *flags])
    opt = kernel.kernel_accepts(command)
    if burst != guideline:
        why = (f"which Linux refuses since 2021 (red_check_params: fls(max {hi}) + Wlog >= 32)"
               if wlog_guideline > 31 - kernel.fls(hi) or wlog_guideline < 0
               else f"for which tc cannot build its idle-time damping table at {rate_text}")
        notes.append(f"tc-red(8)'s burst guideline ({guideline}) gives Wlog {wlog_guideline}, {why}; burst "
                     f"{burst} gives Wlog {opt.Wlog}, the largest accepted: the average follows the queue "
                     f"over about {2.0**opt.Wlog:.0f} packets instead of {2.0**wlog_guideline:.0f}.")
    if opt.Wlog >= 10:
        notes.append(f"tc will print 'RED: WARNING. Burst {burst} seems to be too large.' (Wlog {opt.Wlog} "
                     ">= 10): expected here, the queue is long and the average must span it "
                     "(Morris 1999, section 6.3).")
    return TcRed(lim, lo, hi, avpkt, burst, float(max_p), rate_text, opt.Wlog, 2.0**-opt.Wlog, flags, command,
                 tuple(notes))
