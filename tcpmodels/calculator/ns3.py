"""Rendering a RED setting as ns-3 ``RedQueueDisc`` attributes (src/traffic-control/model/red-queue-disc.cc)."""

import dataclasses
import math

from .._results import Result

__all__ = ["Ns3Red", "ns3_red"]
@dataclasses.dataclass(frozen=True)
class Ns3Red(Result):
    """ns-3 ``RedQueueDisc`` attribute values (packet mode) for the same setting.

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
    Gentle, Wait : bool
        False, so ns-3 drops as tc and the thesis' model do.
    code : str
        ``Config::SetDefault`` lines ready to paste into an ns-3 program.
    """

    MinTh: float
    MaxTh: float
    LInterm: float
    QW: float
    MeanPktSize: int
    MaxSize: str
    Gentle: bool
    Wait: bool
    code: str



def ns3_red(min_th, max_th, max_p, weight, packet_size, limit):
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

    Returns
    -------
    Ns3Red

    Examples
    --------
    >>> n = ns3_red(5, 500, 0.02, 2**-13, 576, 2000)
    >>> n.LInterm, n.MaxSize
    (50.0, '2000p')
    >>> print(n.code.splitlines()[2])
    Config::SetDefault ("ns3::RedQueueDisc::LInterm", DoubleValue (50));
    """
    size = f"{int(math.ceil(limit))}p"
    attrs = {"MinTh": float(min_th), "MaxTh": float(max_th), "LInterm": 1.0 / max_p, "QW": float(weight),
             "MeanPktSize": int(round(packet_size)), "MaxSize": size, "Gentle": False, "Wait": False}
    kinds = {float: "DoubleValue ({:.10g})", int: "UintegerValue ({})", bool: "BooleanValue ({})",
             str: 'QueueSizeValue (QueueSize ("{}"))'}
    code = "\n".join(
        f'Config::SetDefault ("ns3::RedQueueDisc::{key}", '
        + kinds[type(value)].format(str(value).lower() if isinstance(value, bool) else value) + ");"
        for key, value in attrs.items())
    return Ns3Red(**attrs, code=code)


