"""Rendering a RED setting as ns-3 ``RedQueueDisc`` attributes (src/traffic-control/model/red-queue-disc.cc)."""

import dataclasses
import math

from .. import _checks
from .._results import Result

__all__ = ["Ns3Red", "ns3_red"]


@dataclasses.dataclass(frozen=True)
class Ns3Red(Result):
    """ns-3 ``RedQueueDisc`` attribute values (packet mode) for the same setting as the tc line.

    Attributes
    ----------
    MinTh, MaxTh : float
        Thresholds [packets].
    LInterm : float
        1 / max_p.
    QW : float
        EWMA weight (the one tc derives, so both average alike).
    MeanPktSize : int
        [bytes].
    MaxSize : str
        Hard limit, as ns-3 writes a packet count (``"8628p"``).
    LinkBandwidth : str
        The rate tc is given, as an ns-3 ``DataRate`` (``"10000000bps"``): both
        age the average over idle time alike.
    Gentle, Wait : bool
        False, so ns-3 drops as tc and the thesis' model do.
    UseEcn, UseHardDrop : bool
        Mark instead of drop below max_th; drop (not mark) above it, as tc's
        ``ecn harddrop``.
    AdaptMaxP : bool
        Adapt max_p (tc's ``adaptive``).
    code : str
        ``Config::SetDefault`` lines ready to paste into an ns-3 program.
    """

    MinTh: float
    MaxTh: float
    LInterm: float
    QW: float
    MeanPktSize: int
    MaxSize: str
    LinkBandwidth: str
    Gentle: bool
    Wait: bool
    UseEcn: bool
    UseHardDrop: bool
    AdaptMaxP: bool
    code: str


def ns3_red(min_th, max_th, max_p, weight, packet_size, limit, bandwidth, *, ecn=False, adaptive=False,
            gentle=False):
    """ns-3 ``RedQueueDisc`` attributes for a RED setting (packet mode).

    Parameters
    ----------
    min_th, max_th : float
        Thresholds [packets].
    max_p : float
        Drop probability at max_th; ns-3 takes LInterm = 1 / max_p.
    weight : float
        EWMA weight (``QW``).
    packet_size : float
        Mean packet size [bytes].
    limit : float
        Hard limit [packets] (``MaxSize``).
    bandwidth : float
        Link rate [bit/s] (``LinkBandwidth``).
    ecn : bool, optional
        ``UseEcn`` (with ``UseHardDrop``: forced drops stay drops).
    adaptive : bool, optional
        ``AdaptMaxP``.
    gentle : bool, optional
        ``Gentle`` (Linux's RED has none: only with ``tcpmodels red --gentle``).

    Returns
    -------
    Ns3Red

    Examples
    --------
    >>> n = ns3_red(5, 500, 0.02, 2**-13, 576, 2000, 10e6)
    >>> n.LInterm, n.MaxSize, n.LinkBandwidth
    (50.0, '2000p', '10000000bps')
    >>> print(n.code.splitlines()[2])
    Config::SetDefault ("ns3::RedQueueDisc::LInterm", DoubleValue (50));
    """
    ecn, adaptive, gentle = _checks.flag("ecn", ecn), _checks.flag("adaptive", adaptive), _checks.flag("gentle", gentle)
    attrs = {"MinTh": float(min_th), "MaxTh": float(max_th), "LInterm": 1.0 / max_p, "QW": float(weight),
             "MeanPktSize": int(round(packet_size)), "MaxSize": f"{int(math.ceil(limit))}p",
             "LinkBandwidth": f"{int(round(bandwidth))}bps", "Gentle": gentle, "Wait": False,
             "UseEcn": ecn, "UseHardDrop": True, "AdaptMaxP": adaptive}
    kinds = {"MaxSize": 'QueueSizeValue (QueueSize ("{}"))', "LinkBandwidth": 'DataRateValue (DataRate ("{}"))'}
    kinds.update({float: "DoubleValue ({:.10g})", int: "UintegerValue ({})", bool: "BooleanValue ({})"})
    code = "\n".join(
        f'Config::SetDefault ("ns3::RedQueueDisc::{key}", '
        + kinds.get(key, kinds.get(type(value))).format(str(value).lower() if isinstance(value, bool) else value)
        + ");" for key, value in attrs.items())
    return Ns3Red(**attrs, code=code)
