"""The result of one simulated scenario."""

import dataclasses

import numpy as np

from .._results import Result

__all__ = ["SimResult"]


@dataclasses.dataclass(frozen=True)
class SimResult(Result):
    """Statistics of one simulation over its measured interval [warmup, duration].

    Attributes
    ----------
    loss_rate : float
        Packets dropped (at the queue or on the link) or ECN-marked / packets
        arriving [-].
    mark_rate : float
        ECN-marked packets / packets arriving [-] (0 without ECN).
    queue : float
        Time-average bottleneck queue [packets].
    utilization : float
        Fraction of the bottleneck capacity used [-].
    timeouts_per_packet : float
        Retransmission time-outs / data packets sent [-].
    timeout_fraction : float
        Fraction of flow-time spent stalled, waiting for a retransmission timer [-].
    window : float
        Time- and flow-average congestion window [packets].
    goodput : ndarray
        Per-flow rate of acknowledged packets [packets/s].
    jain_index : float
        Jain's fairness index of ``goodput`` [-].
    rtt : ndarray
        Per-flow propagation RTT the run drew [s].
    time_step : float
        Engine step [s].
    packets : float
        Packets that arrived at the bottleneck in the measured interval [-].
    trace : dict or None
        With ``Scenario(trace=True)``: ``time`` [s], ``queue`` [packets],
        ``loss_rate`` [-] per trace interval, ``window`` [packets] of the first
        ``trace_flows`` flows (shape time x flow).
    """

    loss_rate: float
    mark_rate: float
    queue: float
    utilization: float
    timeouts_per_packet: float
    timeout_fraction: float
    window: float
    goodput: np.ndarray
    jain_index: float
    rtt: np.ndarray
    time_step: float
    packets: float
    trace: dict | None = None
