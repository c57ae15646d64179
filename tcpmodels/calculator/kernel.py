"""What Linux accepts: ports of the checks a ``tc qdisc ... red`` line passes through.

A RED line goes through two programs.  iproute2's ``tc`` parses it
(``tc/q_red.c``, ``red_parse_opt``), derives the EWMA exponent Wlog from
``burst`` (``tc_red_eval_ewma``), the probability exponent Plog
(``tc_red_eval_P``) and the idle-time damping table and its scale Scell_log
(``tc_red_eval_idle_damping``, all in ``tc/tc_red.c``), and refuses the line
when one of them fails.  The kernel then checks the result
(``red_check_params``, include/net/red.h) and answers ``EINVAL`` when, since
2021, ``fls(qth_min) + Wlog >= 32`` or ``fls(qth_max) + Wlog >= 32``
(thresholds in bytes: the kernel keeps them shifted left by Wlog in 32 bits),
``Scell_log >= 32``, a damping-table entry is ``>= 32``, or
``qth_max < qth_min``.

The functions here re-state those routines in Python, one for one, so that
every line the calculator prints can be held to them (no ``sch_red`` is needed).
They take and return C-like integers; a routine that fails in C (returns -1)
returns -1 here too.

References
----------
iproute2, tc/tc_red.c (tc_red_eval_P, tc_red_eval_ewma,
tc_red_eval_idle_damping), tc/q_red.c (red_parse_opt), tc/tc_core.c
(tc_calc_xmittime), lib/utils_math.c (get_rate, get_size); read at commit
ee2a4a8 (2026).  Linux, include/net/red.h (red_check_params): added by
commit 8afa10cbe281 (2017, "net_sched: red: Avoid illegal values"), extended
in 2021 by two fixes of it (the Scell_log and damping-table checks, and
``> 32`` made ``>= 32``); net/sched/sch_red.c (__red_change calls it);
net/sched/sch_api.c (psched_show: the 64 ns tick tc reads from
/proc/net/psched).
"""

import dataclasses
import math

from .._results import Result

__all__ = [
    "UINT_MAX",
    "TICKS_PER_USEC",
    "fls",
    "tc_red_eval_P",
    "tc_red_eval_ewma",
    "tc_calc_xmittime",
    "tc_red_eval_idle_damping",
    "red_check_params",
    "get_rate",
    "get_size",
    "RedOpt",
    "red_parse_opt",
    "kernel_accepts",
]

#: Largest value of a C ``unsigned int`` (tc's sizes, rates in bytes/s, ticks).
UINT_MAX = 2**32 - 1
#: Scheduler ticks per microsecond as tc computes them from /proc/net/psched on
#: current kernels (``NSEC_PER_USEC / PSCHED_TICKS2NS(1)`` = 1000 / 64).
TICKS_PER_USEC = 1000 / 64
_TIME_UNITS_PER_SEC = 1_000_000


def fls(x):
    """Find last set bit, 1-based (``fls(0) == 0``), as the kernel's ``fls``.

    Parameters
    ----------
    x : int
        A 32-bit unsigned value.

    Returns
    -------
    int

    Examples
    --------
    >>> fls(0), fls(1), fls(1241856)
    (0, 1, 21)
    """
    return int(x).bit_length()


def tc_red_eval_P(qmin, qmax, prob):
    """Plog = log2 of (qmax - qmin) / prob, rounded up (iproute2 ``tc_red_eval_P``).

    Parameters
    ----------
    qmin, qmax : int
        Thresholds [bytes].
    prob : float
        max_p.

    Returns
    -------
    int
        Plog in [0, 31], or -1 where tc fails ("RED: failed to calculate
        probability"): qmax below qmin (C ``int`` difference negative, which
        includes differences of 2**31 bytes or more), or no Plog below 32.

    Examples
    --------
    >>> tc_red_eval_P(30000, 90000, 0.02), tc_red_eval_P(5760, 1241856 * 40, 0.015)
    (22, -1)
    """
    i = _c_int(qmax - qmin)
    if i == 0:
        return 0
    if i < 0:
        return -1
    prob /= i
    for i in range(32):
        if prob > 1.0:
            return i
        prob *= 2
    return -1


def tc_red_eval_ewma(qmin, burst, avpkt):
    """Wlog from burst (iproute2 ``tc_red_eval_ewma``).

    The smallest Wlog in [1, 31] such that, with W = 2**-Wlog,
    ``burst + 1 - qmin/avpkt <= (1 - (1 - W)**burst) / W``: a burst of `burst`
    packets into an empty queue does not lift the average above qmin (Floyd &
    Jacobson 1993).

    Parameters
    ----------
    qmin : int
        Minimum threshold [bytes].
    burst : int
        [packets].
    avpkt : int
        [bytes].

    Returns
    -------
    int
        Wlog, or -1 where tc fails: ``burst + 1 - qmin/avpkt < 1`` ("burst ...
        is too small") or no Wlog below 32.

    Examples
    --------
    tc-red(8)'s example (min 30000, avpkt 1000, burst 55):

    >>> tc_red_eval_ewma(30000, 55, 1000), tc_red_eval_ewma(30000, 3, 1000)
    (5, -1)
    """
    w = 0.5
    a = burst + 1 - qmin / avpkt
    if a < 1.0:
        return -1
    for wlog in range(1, 32):
        if a <= (1 - (1 - w) ** burst) / w:
            return wlog
        w /= 2
    return -1


def tc_calc_xmittime(rate, size):
    """Time to send `size` bytes at `rate` bytes/s, in scheduler ticks (iproute2 ``tc_calc_xmittime``).

    Parameters
    ----------
    rate : int
        [bytes/s].
    size : int
        [bytes].

    Returns
    -------
    int
        Ticks (64 ns each), rounded up, at most ``UINT_MAX``.

    Examples
    --------
    >>> tc_calc_xmittime(1250000, 576)      # 576 bytes at 10 Mbit/s: 460.8 us
    7200
    """
    val = math.ceil(TICKS_PER_USEC * (_TIME_UNITS_PER_SEC * (size / rate)))
    return min(val, UINT_MAX)


def tc_red_eval_idle_damping(wlog, avpkt, rate):
    """Scell_log and the damping table that ages the average over idle time (``tc_red_eval_idle_damping``).

    ``Stab[t >> Scell_log] = -log(1 - W) * t / xmit_time``: an idle period of
    t ticks counts as that many packets' worth of decay, capped at 31.

    Parameters
    ----------
    wlog : int
        EWMA exponent.
    avpkt : int
        [bytes].
    rate : int
        Link rate as tc holds it [bytes/s].

    Returns
    -------
    tuple of (int, tuple of int)
        Scell_log (-1 where tc fails: "RED: failed to calculate idle damping
        table") and the 256 table entries (empty on failure).

    Notes
    -----
    C computes ``(i << clog) * lW`` with ``i << clog`` in a 32-bit ``int``, which
    overflows once Scell_log reaches 24; the entries are then meaningless but
    still clamped to [0, 31], so the kernel's check passes.  Here the product is
    computed exactly, so the port agrees with C wherever C is defined.

    Examples
    --------
    >>> clog, stab = tc_red_eval_idle_damping(10, 576, 1250000)
    >>> clog, stab[1], stab[128], stab[254], stab[255]   # 2**19 ticks (34 ms) per cell
    (19, 0, 9, 18, 31)
    """
    xmit_time = tc_calc_xmittime(rate, avpkt)
    lw = -math.log(1.0 - 1.0 / (1 << wlog)) / xmit_time
    maxtime = 31 / lw
    for clog in range(32):
        if maxtime / (1 << clog) < 512:
            break
    else:
        return -1, ()
    stab = [0] + [min(int((i << clog) * lw), 31) for i in range(1, 255)] + [31]
    return clog, tuple(stab)


def red_check_params(qth_min, qth_max, wlog, scell_log, stab):
    """The kernel's validation of RED parameters (include/net/red.h ``red_check_params``).

    Parameters
    ----------
    qth_min, qth_max : int
        Thresholds [bytes] as tc passes them.
    wlog, scell_log : int
        Exponents tc derived.
    stab : sequence of int
        The idle damping table (256 entries).

    Returns
    -------
    bool
        False where ``sch_red`` answers EINVAL.

    Examples
    --------
    The README's standard link before this check was ported: max 1241856 bytes
    (fls 21) with Wlog 16.

    >>> red_check_params(2880, 1241856, 16, 13, [0] * 256), red_check_params(2880, 1241856, 10, 13, [0] * 256)
    (False, True)
    """
    if fls(qth_min) + wlog >= 32 or fls(qth_max) + wlog >= 32:
        return False
    if scell_log >= 32 or qth_max < qth_min:
        return False
    return all(entry < 32 for entry in stab)


_RATE_SUFFIXES = {
    "bit": 1.0, "kibit": 1024.0, "kbit": 1000.0, "mibit": 1024.0**2, "mbit": 1e6, "gibit": 1024.0**3,
    "gbit": 1e9, "tibit": 1024.0**4, "tbit": 1e12, "bps": 8.0, "kibps": 8.0 * 1024, "kbps": 8000.0,
    "mibps": 8.0 * 1024**2, "mbps": 8e6, "gibps": 8.0 * 1024**3, "gbps": 8e9, "tibps": 8.0 * 1024**4,
    "tbps": 8e12,
}
_SIZE_SUFFIXES = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2, "g": 1024**3,
                  "gb": 1024**3, "kbit": 1024 // 8, "mbit": 1024**2 // 8, "gbit": 1024**3 // 8}


def _number(text):
    """strtod's prefix: ``(value, rest)``, or None when no number starts `text`."""
    for end in range(len(text), 0, -1):
        try:
            return float(text[:end]), text[end:]
        except ValueError:
            continue
    return None


def get_rate(text):
    """A rate as tc's ``get_rate`` reads it: bytes/s in a 32-bit unsigned int, or None where tc refuses.

    Parameters
    ----------
    text : str
        ``10mbit``, ``1gbit``, ...

    Returns
    -------
    int or None

    Examples
    --------
    >>> get_rate("10mbit"), get_rate("34gbit"), get_rate("100gbit"), get_rate("1234bit")
    (1250000, 4250000000, None, None)
    """
    parsed = _number(text)
    if parsed is None or parsed[0] < 0 or math.isinf(parsed[0]):
        return None
    bps, suffix = parsed
    if suffix:
        if suffix.lower() not in _RATE_SUFFIXES:
            return None
        bps *= _RATE_SUFFIXES[suffix.lower()]
    rate = bps / 8
    # C stores the double in an unsigned int and refuses when it does not read back equal
    # (overflow, or a fraction of a byte per second).
    return int(rate) if rate <= UINT_MAX and rate == math.floor(rate) else None


def get_size(text):
    """A size as tc's ``get_size`` reads it: bytes in a 32-bit unsigned int, or None where tc refuses.

    Parameters
    ----------
    text : str
        ``1500``, ``64kb``, ...

    Returns
    -------
    int or None

    Examples
    --------
    >>> get_size("1152000"), get_size("64kb"), get_size("5gb")
    (1152000, 65536, None)
    """
    parsed = _number(text)
    if parsed is None or parsed[0] < 0 or math.isinf(parsed[0]):
        return None
    size, suffix = parsed
    if suffix.lower() not in _SIZE_SUFFIXES:
        return None
    size *= _SIZE_SUFFIXES[suffix.lower()]
    return int(size) if size <= UINT_MAX and size == math.floor(size) else None


@dataclasses.dataclass(frozen=True)
class RedOpt(Result):
    """What tc sends the kernel for a RED line (``struct tc_red_qopt`` and friends).

    Attributes
    ----------
    limit, qth_min, qth_max : int
        [bytes].
    avpkt, burst : int
        [bytes], [packets].
    probability : float
        max_p.
    rate : int
        [bytes/s].
    Wlog, Plog, Scell_log : int
        Exponents tc derived.
    stab : tuple of int
        Idle damping table.
    max_P : int
        max_p in 32-bit fixed point, as tc sends it (``probability * 2**32``).
    flags : tuple of str
        ``ecn``, ``harddrop``, ``adaptive``, as given.
    warnings : tuple of str
        What tc prints on stderr while accepting the line.
    """

    limit: int
    qth_min: int
    qth_max: int
    avpkt: int
    burst: int
    probability: float
    rate: int
    Wlog: int
    Plog: int
    Scell_log: int
    stab: tuple
    max_P: int
    flags: tuple
    warnings: tuple


_FLAGS = ("ecn", "harddrop", "nodrop", "adaptive", "adaptative")


def _parse_words(words):
    """The keyword loop of ``red_parse_opt``: ``{keyword: value}`` and flags, or a tc error."""
    values, flags = {}, []
    readers = {"limit": get_size, "min": get_size, "max": get_size, "avpkt": get_size,
               "burst": lambda t: int(t) if t.isdigit() and int(t) <= UINT_MAX else None,
               "probability": lambda t: (_number(t) or (None,))[0], "bandwidth": get_rate}
    i = 0
    while i < len(words):
        word = words[i]
        if word in _FLAGS:
            flags.append("adaptive" if word == "adaptative" else word)
        elif word in readers:
            value = readers[word](words[i + 1]) if i + 1 < len(words) else None
            if value is None:
                raise ValueError(f'Illegal "{word}"')
            values[word] = value
            i += 1
        else:
            raise ValueError(f'What is "{word}"?')
        i += 1
    return values, tuple(flags)


def red_parse_opt(words):
    """Parse the options of a ``tc qdisc ... red`` line as iproute2's ``red_parse_opt`` does.

    Parameters
    ----------
    words : sequence of str
        The words after ``red``.

    Returns
    -------
    RedOpt

    Raises
    ------
    ValueError
        With the message tc prints where it refuses the line.

    Examples
    --------
    >>> opt = red_parse_opt("limit 400000 min 30000 max 90000 avpkt 1000 burst 55 bandwidth 10mbit".split())
    >>> opt.Wlog, opt.Plog, opt.Scell_log, opt.max_P
    (5, 22, 15, 85899345)
    """
    values, flags = _parse_words(words)
    warnings = []
    limit, avpkt = values.get("limit", 0), values.get("avpkt", 0)
    if not limit or not avpkt:
        raise ValueError("RED: Required parameter (limit, avpkt) is missing")
    # Sally Floyd's defaults, as tc applies them (32-bit unsigned arithmetic).
    qth_max = values.get("max", 0) or (values.get("min", 0) * 3 if values.get("min", 0) else limit // 4)
    qth_min = values.get("min", 0) or qth_max // 3
    burst = values.get("burst", 0) or ((2 * qth_min + qth_max) & UINT_MAX) // ((3 * avpkt) & UINT_MAX)
    rate = values.get("bandwidth", 0)
    if not rate:
        rate = 1250000
        warnings.append("RED: set bandwidth to 10Mbit")
    probability = values.get("probability", 0.02)
    wlog = tc_red_eval_ewma(qth_min, burst, avpkt)
    if wlog < 0:
        raise ValueError("RED: failed to calculate EWMA constant.")
    if wlog >= 10:
        warnings.append(f"RED: WARNING. Burst {burst} seems to be too large.")
    plog = tc_red_eval_P(qth_min, qth_max, probability)
    if plog < 0:
        raise ValueError("RED: failed to calculate probability.")
    scell_log, stab = tc_red_eval_idle_damping(wlog, avpkt, rate)
    if scell_log < 0:
        raise ValueError("RED: failed to calculate idle damping table.")
    # C converts the double to __u32; out of range (probability >= 1) that is undefined and on
    # x86-64 wraps, so 1.0 arrives as 0 and the kernel falls back to Plog (iproute2 issue 19).
    max_p = int(probability * 2.0**32) % 2**32
    return RedOpt(limit, qth_min, qth_max, avpkt, burst, probability, rate, wlog, plog, scell_log, stab,
                  max_p, flags, tuple(warnings))


def kernel_accepts(command):
    """Run a ``tc qdisc add dev DEV root red ...`` line through tc's parser and the kernel's check.

    Parameters
    ----------
    command : str
        The whole line.

    Returns
    -------
    RedOpt
        What the kernel would install.

    Raises
    ------
    ValueError
        Where tc refuses the line (its message) or the kernel answers EINVAL
        (``red_check_params``, with the failing values).

    Examples
    --------
    >>> kernel_accepts("tc qdisc add dev eth0 root red limit 4967424 min 2880 max 1241856 avpkt 576 "
    ...                "burst 722 probability 0.015 bandwidth 10mbit")
    Traceback (most recent call last):
    ...
    ValueError: kernel: red_check_params fails (EINVAL): fls(max 1241856) + Wlog 16 = 37 >= 32
    """
    words = command.split()
    if words[:3] != ["tc", "qdisc", "add"] or "red" not in words:
        raise ValueError(f"not a tc RED line: {command!r}")
    opt = red_parse_opt(words[words.index("red") + 1:])
    if not red_check_params(opt.qth_min, opt.qth_max, opt.Wlog, opt.Scell_log, opt.stab):
        for name, value in (("min", opt.qth_min), ("max", opt.qth_max)):
            if fls(value) + opt.Wlog >= 32:
                raise ValueError(f"kernel: red_check_params fails (EINVAL): fls({name} {value}) + Wlog "
                                 f"{opt.Wlog} = {fls(value) + opt.Wlog} >= 32")
        raise ValueError(f"kernel: red_check_params fails (EINVAL) for {opt}")
    return opt


def _c_int(x):
    """An unsigned difference read as a C ``int`` (two's complement, 32 bits)."""
    x &= UINT_MAX
    return x - 2**32 if x >= 2**31 else x
