"""The result of one simulated scenario."""

import dataclasses

import numpy as np

from .._results import Result

__all__ = ["SimResult", "GroupResult", "CongestionEvents", "Transfers"]


class _Table(Result):
    """A result table of column arrays, the first one `flow`: ``len()`` gives the rows, ``t[name]`` a column."""

    def __len__(self):
        return self.flow.size

    def __getitem__(self, column):
        return getattr(self, column)


@dataclasses.dataclass(frozen=True)
class CongestionEvents(_Table):
    """A table of congestion events, one row per event in time order (columns as arrays).

    ``len(events)`` is the number of rows and ``events["drops"]`` a column.

    Attributes
    ----------
    flow : ndarray
        The flow's index in the scenario [-].
    time : ndarray
        When the sender reacted [s].
    window : ndarray
        Its congestion window then [packets].
    drops : ndarray
        Its packets lost in the event [packets].
    """

    flow: np.ndarray
    time: np.ndarray
    window: np.ndarray
    drops: np.ndarray


@dataclasses.dataclass(frozen=True)
class Transfers(_Table):
    """A table of completed finite transfers, one row per transfer in order of completion (columns as arrays).

    ``len(transfers)`` is the number of rows, ``transfers["size"]`` a column.

    Attributes
    ----------
    flow : ndarray
        The flow's index in the scenario [-].
    size : ndarray
        Packets transferred [packets].
    start : ndarray
        When its connection opened (the SYN left) [s].
    completion : ndarray
        When the ACK of its last packet arrived [s].
    """

    flow: np.ndarray
    size: np.ndarray
    start: np.ndarray
    completion: np.ndarray

    @property
    def delay(self):
        """Each transfer's delay, handshake included: completion - start [s]."""
        return self.completion - self.start


@dataclasses.dataclass(frozen=True)
class GroupResult(Result):
    """Statistics of one sender group of a scenario over the measured interval.

    Attributes
    ----------
    sender : object
        The group's sender spec.
    first_flow : int
        Index of its first flow in the per-flow results (its flows follow on).
    n_flows : int
        Flows in the group [-].
    goodput : float
        Mean per-flow goodput [packets/s].
    loss_rate : float
        The group's packets lost / packets it sent [-].
    timeouts_per_packet : float
        The group's time-outs / packets it sent [-].
    window : float
        Time- and flow-average congestion window [packets].
    """

    sender: object
    first_flow: int
    n_flows: int
    goodput: float
    loss_rate: float
    timeouts_per_packet: float
    window: float

    @property
    def flows(self):
        """Its flows' indices in the per-flow results (a slice)."""
        return slice(self.first_flow, self.first_flow + self.n_flows)


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
        The step the run took [s]: ``Scenario.step``, or an eighth or a
        sixteenth of it where a RED or FPQ queue of a few packets made the
        engine run it again (see ``Scenario.step``).
    packets : float
        Packets that arrived at the bottleneck in the measured interval [-].
    flow_drops : ndarray
        Per-flow packets lost (at the queue or on the link) [packets].
    flow_timeouts : ndarray
        Per-flow retransmission time-outs [-].
    flow_window : ndarray
        Per-flow time-average congestion window [packets].
    flow_packets : ndarray
        Per-flow packets sent, retransmissions included [packets].
    groups : tuple of GroupResult
        Per sender group (one unless ``Scenario(senders=...)``).
    congestion_events : CongestionEvents
        One row per congestion event, in time order: columns ``flow``
        (index), ``time`` [s], ``window`` [packets] (the congestion window
        when the sender reacted) and ``drops`` [packets] (the flow's packets
        lost in it).  An event is the losses one window reduction
        reacts to: a fast retransmit (with the losses its fast recovery
        repairs), or a time-out when too few duplicate ACKs came back, or a
        lost retransmission that ends fast recovery in a time-out (with the
        losses since the fast retransmit).  Losses while a time-out is
        pending count in its event (its go-back-N resends them), and so do
        queued packets that random drop or CHOKe removes after a time-out or
        restart wrote them off (the flow's last event).  ECN marks are not
        losses and make no rows.  So the rows add up to ``flow_drops`` but
        for the measured interval's edges: an event just after the warm-up
        holds the losses before it that it reacts to, one pending at the end
        has none (30 Reno flows for 60 s, seeds 1-4: within 0.3 % on CHOKe,
        drop-tail and RED).
    transfers : Transfers
        With ``Scenario(workload=FiniteTransfers(...))``: every transfer
        completed in the measured interval (``flow``, ``size`` [packets],
        ``start`` and ``completion`` [s], ``delay`` [s]); empty otherwise.
    trace : dict or None
        With ``Scenario(trace=True)``: ``time`` [s], ``queue`` [packets],
        ``loss_rate`` [-] per trace interval, ``window`` [packets] of the first
        ``trace_flows`` flows (shape time x flow); with FPQ also
        ``flow_count`` [-], its bit-vector estimate of the active flows
        (Morris 1999, Fig. 6.9).
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
    flow_drops: np.ndarray = None
    flow_timeouts: np.ndarray = None
    flow_window: np.ndarray = None
    flow_packets: np.ndarray = None
    groups: tuple = ()
    congestion_events: CongestionEvents = None
    trace: dict | None = None
    transfers: Transfers = None
