"""The link a calculation is about: bandwidth, RTT and packet size in the models' units."""

import dataclasses

from .. import _checks, units
from .._results import Result

__all__ = ["DEFAULT_PACKET_SIZE", "THESIS_PACKET_SIZE", "DEFAULT_MIN_TH", "MAX_BANDWIDTH", "MIN_BANDWIDTH", "MAX_RTT",
           "MIN_RTT",
           "MAX_PACKET_SIZE", "MAX_FLOWS", "Link", "link", "flow_count"]

#: Packet size [bytes] for today's links: a full Ethernet frame's IP packet.
DEFAULT_PACKET_SIZE = 1500
#: The thesis' packet size [bytes] (Morris 1999, Fig. 3.2), used by the worked example.
THESIS_PACKET_SIZE = 576
#: RED min_th [packets] used throughout the thesis and by FPQ (Fig. 6.4).
DEFAULT_MIN_TH = 5


@dataclasses.dataclass(frozen=True)
class Link(Result):
    """A bottleneck link as the models see it.

    Attributes
    ----------
    bandwidth : float
        Link rate [bit/s].
    rtt : float
        Round-trip propagation time [s].
    packet_size : float
        Packet size [bytes].
    capacity : float
        Link rate [packets/s].
    bdp : float
        Bandwidth-delay product [packets].
    """

    bandwidth: float
    rtt: float
    packet_size: float
    capacity: float
    bdp: float



#: Largest link rate the calculator takes [bit/s] (1 Pbit/s: beyond any interface, and far from overflow).
MAX_BANDWIDTH = 1e15
#: Smallest [bit/s]: a byte per second, the least tc's rates (whole bytes per second) and its lines can hold.
MIN_BANDWIDTH = 8.0
#: Longest round trip it takes [s]: an hour (a bare "--rtt 1e308s" is a typo, not a path).
MAX_RTT = 3600.0
#: Shortest [s]: a microsecond, light's round trip over 150 m (shorter, "--rtt 1e-300ms", is a typo).
MIN_RTT = 1e-6
#: Largest packet [bytes]: an IPv4/IPv6 packet's 16-bit length (jumbograms aside).
MAX_PACKET_SIZE = 65535
#: Most flows the calculator sizes for: a billion long-lived flows through one queue.
MAX_FLOWS = 10**9


def flow_count(name, value):
    """`value` as a whole number of flows in [1, :data:`MAX_FLOWS`], or ``ValueError`` naming `name`.

    Parameters
    ----------
    name : str
        Argument name for the message.
    value : int
        Number of flows.

    Returns
    -------
    int

    Examples
    --------
    >>> flow_count("n_flows", 300.0)
    300
    """
    n = _checks.one(name, _checks.whole, value)
    if n > MAX_FLOWS:
        raise ValueError(f"{name} must be at most {MAX_FLOWS:.0e}, got {n:.3g}")
    return int(n)


def link(bandwidth, rtt, packet_size=DEFAULT_PACKET_SIZE):
    """Describe a bottleneck link in the models' units.

    Parameters
    ----------
    bandwidth : float
        Link rate [bit/s], from :data:`MIN_BANDWIDTH` to :data:`MAX_BANDWIDTH`.
    rtt : float
        Round-trip propagation time [s], from :data:`MIN_RTT` to :data:`MAX_RTT`.
    packet_size : int, optional
        Packet size [bytes], a whole number up to :data:`MAX_PACKET_SIZE`;
        1500 by default (the thesis' examples use 576).

    Returns
    -------
    Link

    Examples
    --------
    The thesis' standard link (Morris 1999, Fig. 3.2):

    >>> lk = link(10e6, 0.1, 576)
    >>> round(lk.capacity), round(lk.bdp)
    (2170, 217)
    """
    bandwidth = _checks.one("bandwidth", _checks.in_range, bandwidth, MIN_BANDWIDTH, MAX_BANDWIDTH)
    rtt = _checks.one("rtt", _checks.in_range, rtt, MIN_RTT, MAX_RTT)
    packet_size = _checks.one("packet_size", _checks.whole, packet_size)
    if packet_size > MAX_PACKET_SIZE:
        raise ValueError(f"packet_size must be at most {MAX_PACKET_SIZE} bytes, got {packet_size:g}")
    return Link(bandwidth, rtt, packet_size, units.capacity(bandwidth, packet_size),
                units.bdp(bandwidth, rtt, packet_size))


