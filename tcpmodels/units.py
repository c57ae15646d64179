"""Unit conversions: the only place where bit/s, bytes, seconds and packets meet.

Inside the models, windows, queues and buffers are in packets, time in seconds
and link rates in packets per second (``capacity``).  Bits per second
(``bandwidth``) and bytes (``packet_size``) appear only at the boundary: here,
in the calculator and in the command line.
"""

from . import _checks

__all__ = ["capacity", "bandwidth", "bdp", "packets_to_bytes", "bytes_to_packets"]


def capacity(bandwidth, packet_size):
    """Link rate in packets per second.

    Parameters
    ----------
    bandwidth : float or array_like
        Link rate [bit/s].
    packet_size : float or array_like
        Packet size on the wire [bytes].

    Returns
    -------
    float or ndarray
        Capacity [packets/s].

    Examples
    --------
    Morris (1999), ch. 3: "a 10 megabit link can send 2170 packets per second"
    of 576 bytes.

    >>> round(capacity(10e6, 576), 1)
    2170.1
    """
    bw = _checks.positive("bandwidth", bandwidth, finite=True)
    size = _checks.positive("packet_size", packet_size, finite=True)
    return _checks.scalar_or_array(bw / (8.0 * size), bandwidth, packet_size)


def bandwidth(capacity, packet_size):
    """Link rate in bit/s from packets per second (inverse of :func:`capacity`).

    Parameters
    ----------
    capacity : float or array_like
        Link rate [packets/s].
    packet_size : float or array_like
        Packet size [bytes].

    Returns
    -------
    float or ndarray
        Bandwidth [bit/s].

    Examples
    --------
    >>> bandwidth(2170.138888, 576)
    10000000.0
    """
    cap = _checks.positive("capacity", capacity, finite=True)
    size = _checks.positive("packet_size", packet_size, finite=True)
    return _checks.scalar_or_array(cap * 8.0 * size, capacity, packet_size)


def bdp(bandwidth, rtt, packet_size):
    """Bandwidth-delay product in packets.

    Parameters
    ----------
    bandwidth : float or array_like
        Link rate [bit/s].
    rtt : float or array_like
        Round-trip propagation time [s].
    packet_size : float or array_like
        Packet size [bytes].

    Returns
    -------
    float or ndarray
        Packets the path stores in flight at full rate [packets].

    Examples
    --------
    Morris (1999), ch. 3: 10 Mbit/s, 100 ms, 576-byte packets give "217 packets".

    >>> round(bdp(10e6, 0.1, 576), 1)
    217.0
    """
    cap = capacity(bandwidth, packet_size)
    r = _checks.positive("rtt", rtt, finite=True)
    return _checks.scalar_or_array(cap * r, bandwidth, rtt, packet_size)


def packets_to_bytes(packets, packet_size):
    """Convert a count of packets to bytes.

    Parameters
    ----------
    packets : float or array_like
        Number of packets [packets].
    packet_size : float or array_like
        Packet size [bytes].

    Returns
    -------
    float or ndarray
        Size [bytes].

    Examples
    --------
    >>> packets_to_bytes(500, 576)
    288000.0
    """
    n = _checks.nonnegative("packets", packets, finite=True)
    size = _checks.positive("packet_size", packet_size, finite=True)
    return _checks.scalar_or_array(n * size, packets, packet_size)


def bytes_to_packets(size, packet_size):
    """Convert bytes to packets (not rounded).

    Parameters
    ----------
    size : float or array_like
        Size [bytes].
    packet_size : float or array_like
        Packet size [bytes].

    Returns
    -------
    float or ndarray
        Number of packets [packets].

    Examples
    --------
    >>> bytes_to_packets(65536, 576)
    113.77777777777777
    """
    s = _checks.nonnegative("size", size, finite=True)
    p = _checks.positive("packet_size", packet_size, finite=True)
    return _checks.scalar_or_array(s / p, size, packet_size)


# ---------------------------------------------------------------------------
# Parsing of quantities as operators type them for Linux ``tc`` (issue 5).
#
# The command line and scenario files read rates, times and sizes with the
# unit suffixes of tc(8); a plain number is taken in SI units (bit/s, s,
# bytes).  Every parser takes the option name it reads for, so that a bad
# value raises a one-line ``ValueError`` that names the option.
# ---------------------------------------------------------------------------

import math as _math  # noqa: E402  (appended section, see above)
import re as _re  # noqa: E402

__all__ += [
    "RATE_UNITS",
    "TIME_UNITS",
    "SIZE_UNITS",
    "parse_rate",
    "parse_time",
    "parse_size",
    "parse_buffer",
    "parse_packets",
    "parse_fraction",
    "parse_count",
    "parse_number",
    "parse_range",
]

#: Rate suffixes of tc(8) in bit/s per unit (case-insensitive); ``bps`` is BYTES/s as in tc.
RATE_UNITS = {
    "bit": 1.0, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
    "kibit": 2.0**10, "mibit": 2.0**20, "gibit": 2.0**30, "tibit": 2.0**40,
    "bps": 8.0, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9, "tbps": 8e12,
    "kibps": 8 * 2.0**10, "mibps": 8 * 2.0**20, "gibps": 8 * 2.0**30, "tibps": 8 * 2.0**40,
}
#: Time suffixes of tc(8) in seconds per unit.
TIME_UNITS = {
    "s": 1.0, "sec": 1.0, "secs": 1.0,
    "ms": 1e-3, "msec": 1e-3, "msecs": 1e-3,
    "us": 1e-6, "usec": 1e-6, "usecs": 1e-6,
}
#: Size suffixes of tc(8) in bytes per unit (tc's sizes are binary: 1kb = 1024 bytes).
SIZE_UNITS = {
    "b": 1.0, "k": 2.0**10, "kb": 2.0**10, "m": 2.0**20, "mb": 2.0**20, "g": 2.0**30, "gb": 2.0**30,
    "kbit": 2.0**10 / 8, "mbit": 2.0**20 / 8, "gbit": 2.0**30 / 8,
}
_PACKET_UNITS = ("p", "pkt", "pkts", "packet", "packets")
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY = _re.compile(rf"\s*({_NUMBER})([A-Za-z%]*)\s*")


def _split(text, option, what, example):
    """Split ``'10mbit'`` into ``(10.0, 'mbit')``; reject blanks, NaN and ``'10 mbit'``."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        try:
            return float(text), ""
        except OverflowError:  # an integer beyond a float, 10**400
            raise ValueError(f"{option}: expected {what} such as {example}, got a {len(str(text))}-digit "
                             "number") from None
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{option}: expected {what} such as {example}, got {text!r}")
    match = _QUANTITY.fullmatch(text)
    if match is None:
        if len(text.split()) > 1:
            raise ValueError(f"{option}: write the number and its unit as one word, "
                             f"as in {example}, got {text!r}")
        raise ValueError(f"{option}: expected {what} such as {example}, got {text!r}")
    return float(match.group(1)), match.group(2).lower()


def _positive(value, text, option, what, example):
    if not (value > 0 and _math.isfinite(value)):
        raise ValueError(f"{option}: expected {what} > 0 such as {example}, got {text!r}")
    return value


def _scaled(text, option, units, what, example):
    value, unit = _split(text, option, what, example)
    if unit and unit not in units:
        raise ValueError(f"{option}: unknown unit {unit!r} in {text!r}; "
                         f"expected {what} such as {example} (units: {', '.join(units)})")
    scale = units.get(unit, 1.0)
    # Divide by 1000 rather than multiply by 0.001, so that 100ms and 100000us are both exactly 0.1.
    value = value * scale if scale >= 1 else value / round(1 / scale)
    return _positive(value, text, option, what, example)


def parse_rate(text, option="--bandwidth"):
    """Parse a link rate written as for ``tc``: ``10mbit``, ``1gbit``, ``500kbit``.

    Parameters
    ----------
    text : str or float
        The rate; a plain number is in bit/s.  Suffixes are those of tc(8),
        case-insensitive (:data:`RATE_UNITS`): ``kbit`` = 1000 bit/s, ``kibit``
        = 1024 bit/s, and ``bps``, ``kbps``, ... are BYTES per second.
    option : str
        The option or field being read, named in the error message.

    Returns
    -------
    float
        Rate [bit/s].

    Raises
    ------
    ValueError
        Unknown unit, a blank between number and unit, a value that is not > 0.

    Examples
    --------
    >>> parse_rate("10mbit"), parse_rate("1gbit"), parse_rate("500kbit")
    (10000000.0, 1000000000.0, 500000.0)
    >>> parse_rate("1mbps")            # bytes per second, as in tc
    8000000.0
    >>> parse_rate("2e6")
    2000000.0
    >>> parse_rate("10 mbit")
    Traceback (most recent call last):
    ...
    ValueError: --bandwidth: write the number and its unit as one word, as in 10mbit, got '10 mbit'
    """
    return _scaled(text, option, RATE_UNITS, "a rate", "10mbit")


def parse_time(text, option="--rtt", *, unit_required=False):
    """Parse a time written as for ``tc``: ``100ms``, ``250us``, ``1s``.

    Parameters
    ----------
    text : str or float
        The time; a plain number is in seconds (unlike tc, which reads
        microseconds).  Suffixes: :data:`TIME_UNITS`.
    option : str
        The option or field being read, named in the error message.
    unit_required : bool, optional
        Refuse a plain number in a string: the command line does, since tc
        would read ``100`` as 100 us and a reader of seconds as 100 s.

    Returns
    -------
    float
        Time [s].

    Examples
    --------
    >>> parse_time("100ms"), parse_time("100000us"), parse_time("250us"), parse_time("1s"), parse_time("0.2")
    (0.1, 0.1, 0.00025, 1.0, 0.2)
    >>> parse_time("-100ms")
    Traceback (most recent call last):
    ...
    ValueError: --rtt: expected a time > 0 such as 100ms, got '-100ms'
    >>> parse_time("100", unit_required=True)
    Traceback (most recent call last):
    ...
    ValueError: --rtt: write the time with its unit, as in 100ms or 0.1s (tc reads a plain 100 as ...), got '100'
    """
    if unit_required and isinstance(text, str) and _split(text, option, "a time", "100ms")[1] == "":
        raise ValueError(f"{option}: write the time with its unit, as in 100ms or 0.1s (tc reads a plain "
                         f"{text.strip()} as microseconds), got {text!r}")
    return _scaled(text, option, TIME_UNITS, "a time", "100ms")


def parse_size(text, option="--packet-size"):
    """Parse a size written as for ``tc``: ``1500b``, ``64kb``, ``1mb``.

    Parameters
    ----------
    text : str or float
        The size; a plain number is in bytes.  Suffixes: :data:`SIZE_UNITS`;
        as in tc they are binary (``1kb`` = 1024 bytes) and ``kbit``/``mbit``
        mean kibibits/mebibits.
    option : str
        The option or field being read, named in the error message.

    Returns
    -------
    float
        Size [bytes].

    Examples
    --------
    >>> parse_size("1500b"), parse_size("64kb"), parse_size("1mb"), parse_size("576")
    (1500.0, 65536.0, 1048576.0, 576.0)
    >>> parse_size("64kg")
    Traceback (most recent call last):
    ...
    ValueError: --packet-size: unknown unit 'kg' in '64kg'; expected a size such as 1500b (units: b, k, ...)
    """
    return _scaled(text, option, SIZE_UNITS, "a size", "1500b")


def parse_buffer(text, packet_size, option="--buffer", *, what="a buffer", example="500 (packets) or 64kb"):
    """Parse a buffer: a count of packets, or a size in bytes turned into packets.

    Parameters
    ----------
    text : str or float
        ``500`` or ``500p`` (``pkt``, ``packets``): packets, the thesis'
        unit for buffers and thresholds; ``64kb``, ``288000b``: bytes, divided
        by `packet_size`.
    packet_size : float
        Packet size [bytes].
    option : str
        The option or field being read, named in the error message.
    what, example : str, optional
        What the value is and a valid one, for the error message (a window
        in packets is read as a buffer is).

    Returns
    -------
    float
        Buffer [packets] (not rounded).

    Examples
    --------
    >>> parse_buffer("500", 576), parse_buffer("500p", 576), parse_buffer("288000b", 576)
    (500.0, 500.0, 500.0)
    """
    value, unit = _split(text, option, what, example)
    if unit in _PACKET_UNITS or not unit:
        return _positive(value, text, option, what, example)
    return parse_size(text, option) / packet_size


def parse_packets(text, packet_size, option="--buffer", *, what="a buffer", example="500 (packets) or 64kb"):
    """Parse a whole number of packets: a count of packets (whole), or a size in bytes rounded down to packets.

    As :func:`parse_buffer`, for what holds whole packets (a FIFO's buffer, a window): ``2.5p`` is refused, not
    cut to 2, and so is a size under one packet (``1b``), which rounding down would make none.

    Parameters
    ----------
    text : str or float
        ``500`` or ``500p``: packets; ``64kb``: bytes.
    packet_size : float
        Packet size [bytes].
    option, what, example : str
        As for :func:`parse_buffer`.

    Returns
    -------
    int
        [packets], at least 1.

    Examples
    --------
    >>> parse_packets("500p", 576), parse_packets("64kb", 576)
    (500, 113)
    """
    _, unit = _split(text, option, what, example)
    packets = parse_buffer(text, packet_size, option, what=what, example=example)
    if unit in _PACKET_UNITS or not unit:
        if packets != _math.floor(packets):
            raise ValueError(f"{option}: expected whole packets, such as {example}, got {text!r}")
    elif packets < 1:
        raise ValueError(f"{option}: expected at least one packet ({packet_size:g} bytes), got {text!r}")
    return int(packets)


def parse_fraction(text, option="--loss"):
    """Parse a probability in (0, 1): ``0.02`` or ``2%``.

    Parameters
    ----------
    text : str or float
        A fraction, or a percentage with ``%``.
    option : str
        The option or field being read, named in the error message.

    Returns
    -------
    float
        The fraction (dimensionless, in (0, 1)).

    Examples
    --------
    >>> parse_fraction("0.02"), parse_fraction("2%")
    (0.02, 0.02)
    >>> parse_fraction("5")
    Traceback (most recent call last):
    ...
    ValueError: --loss: expected a fraction in (0, 1) such as 0.05 (or 5%), got '5' (did you mean 0.05?)
    """
    expected = "a fraction in (0, 1) such as 0.05 (or 5%)"
    value, unit = _split(text, option, expected, "0.05")
    if unit not in ("", "%"):
        raise ValueError(f"{option}: expected {expected}, got {text!r}")
    if unit == "%":
        value /= 100.0
    if not 0.0 < value < 1.0:
        hint = f" (did you mean {value / 100:g}?)" if 1.0 <= value < 100.0 and not unit else ""
        raise ValueError(f"{option}: expected {expected}, got {text!r}{hint}")
    return value


def parse_count(text, option="--flows"):
    """Parse a whole number >= 1 such as a flow count (``300``, ``1e3``).

    Parameters
    ----------
    text : str or float
        The number, without unit.
    option : str
        The option or field being read, named in the error message.

    Returns
    -------
    int

    Examples
    --------
    >>> parse_count("300"), parse_count("1e3")
    (300, 1000)
    >>> parse_count("2.5")
    Traceback (most recent call last):
    ...
    ValueError: --flows: expected a whole number >= 1 such as 300, got '2.5'
    """
    value, unit = _split(text, option, "a whole number >= 1", "300")
    if unit or not (_math.isfinite(value) and value >= 1 and value == _math.floor(value)):
        raise ValueError(f"{option}: expected a whole number >= 1 such as 300, got {text!r}")
    return int(value)


def parse_number(text, option, example="1"):
    """Parse a plain positive number without unit (such as ``--ppf 5``).

    Parameters
    ----------
    text : str or float
        The number.
    option : str
        The option or field being read, named in the error message.
    example : str, optional
        A valid value, quoted in the error message.

    Returns
    -------
    float

    Examples
    --------
    >>> parse_number("5", "--ppf")
    5.0
    >>> parse_number("0", "--ppf", "5")
    Traceback (most recent call last):
    ...
    ValueError: --ppf: expected a number > 0 such as 5, got '0'
    """
    value, unit = _split(text, option, "a number", example)
    if unit:
        raise ValueError(f"{option}: expected a number without unit such as {example}, got {text!r}")
    return _positive(value, text, option, "a number", example)


def parse_range(text, parse, option):
    """Parse ``LOW:HIGH`` (or one value, meaning LOW = HIGH) with `parse` for each end.

    Parameters
    ----------
    text : str
        ``"38:83000"``, ``"1e-7:1e-2"`` or a single value.
    parse : callable
        ``parse(part, option)`` for one end (e.g. :func:`parse_fraction`).
    option : str
        The option being read, named in the error message.

    Returns
    -------
    tuple of float
        ``(low, high)`` with ``low <= high``.

    Examples
    --------
    >>> parse_range("1e-7:1e-2", parse_fraction, "--loss")
    (1e-07, 0.01)
    >>> parse_range("100:38", parse_number, "--window")
    Traceback (most recent call last):
    ...
    ValueError: --window: expected LOW:HIGH with LOW <= HIGH, got '100:38'
    """
    parts = str(text).split(":")
    if len(parts) > 2:
        raise ValueError(f"{option}: expected LOW:HIGH or one value, got {text!r}")
    low, high = (parse(part, option) for part in (parts * 2)[:2])
    if low > high:
        raise ValueError(f"{option}: expected LOW:HIGH with LOW <= HIGH, got {text!r}")
    return low, high
