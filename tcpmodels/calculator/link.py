"""The link a calculation is about: bandwidth, RTT and packet size in the models' units."""

import dataclasses

from .. import units
from .._results import Result

__all__ = ["DEFAULT_PACKET_SIZE", "DEFAULT_MIN_TH", "Link", "link"]
#: The thesis' packet size [bytes] (Morris 1999, Fig. 3.2).
DEFAULT_PACKET_SIZE = 576
#: RED min_th [packets] used throughout the thesis and by FPQ (Fig. 6.4).
DEFAULT_MIN_TH = 5
#: The RED equilibrium model the calculator predicts with (``red.equilibrium``'s default,


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



def link(bandwidth, rtt, packet_size=DEFAULT_PACKET_SIZE):
    """Describe a bottleneck link in the models' units.

    Parameters
    ----------
    bandwidth : float
        Link rate [bit/s].
    rtt : float
        Round-trip propagation time [s].
    packet_size : float, optional
        Packet size [bytes]; the thesis' 576 by default.

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
    return Link(float(bandwidth), float(rtt), float(packet_size),
                units.capacity(bandwidth, packet_size), units.bdp(bandwidth, rtt, packet_size))


