"""Rendering a RED setting as a Linux ``tc qdisc add ... red`` line, with the numbers tc derives from it.

References
----------
iproute2 ``tc/q_red.c`` and ``tc/tc_red.c``; tc-red(8).
"""

import dataclasses

from .. import _checks
from .._results import Result

__all__ = ["LIMIT_FACTOR", "TcRed", "tc_rate", "tc_ewma_log", "tc_red"]
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


