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
    bw = _checks.positive("bandwidth", bandwidth)
    size = _checks.positive("packet_size", packet_size)
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
    cap = _checks.positive("capacity", capacity)
    size = _checks.positive("packet_size", packet_size)
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
    r = _checks.positive("rtt", rtt)
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
    n = _checks.nonnegative("packets", packets)
    size = _checks.positive("packet_size", packet_size)
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
    s = _checks.nonnegative("size", size)
    p = _checks.positive("packet_size", packet_size)
    return _checks.scalar_or_array(s / p, size, packet_size)
