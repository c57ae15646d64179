"""Sender-based delay control (Hsiao, Kung & Tan) in the engine: a small window is kept, the ACKs are held instead.

The sender holds each ACK ``d`` before acting on it, so its rate is
``cwnd / (RTT + d)`` (:func:`tcpmodels.variants.delayed_rate`).  While its
window is at most the threshold (eight packets), a CE echo raises ``d``
instead of halving the window; each round trip without CE lowers it (the
1-bit AIMD update of :func:`tcpmodels.variants.sdc_delay`).  Above the
threshold ``d`` is 0 and the sender is NewReno with ECN.
"""

import numpy as np

from .. import variants
from . import scenario as spec
from .flows import PENDING, at_flows
from .senders import ENGINES, NewReno, each_flow

__all__ = ["SDC", "RDC"]


class SDC(NewReno):
    """NewReno with ECN whose small windows answer CE with a longer ACK hold (Hsiao et al., Sec. II.B)."""

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        # (0 for a mixed population's other groups: unused there.)
        self.max_delay = each_flow(scenarios, lambda p: getattr(p, "max_delay", 0.0))
        self.threshold = each_flow(scenarios, lambda p: getattr(p, "window_threshold", 0.0))
        self.delay = np.zeros(flows.N)  # d [s]
        self.hold = np.zeros(flows.N)  # d in steps (the engine adds it to the ACKs' return)
        self.t_update = np.zeros(flows.N)  # when the delay may next change [s]
        self.ce = np.zeros(flows.N, dtype=bool)  # CE echoed since the last change

    def _set_delay(self, j, ce, now):
        """One round trip's delay update of flows ``j`` (CE seen or not); the next one a round trip later."""
        f = self.f
        rtt = f.prop[j] + f.qdelay(j)
        self.delay[j] = variants.sdc_delay(self.delay[j], ce, self.window_seen(j), rtt,
                                           self.max_delay[j], self.threshold[j])
        self.hold[j] = self.delay[j] / self.dt[j]
        self.t_update[j] = now[j] + rtt + self.delay[j]

    def window_seen(self, j):
        """The window the delay law sees [packets]: the sender's own."""
        return np.maximum(self.f.cwnd[j].astype(float), 1.0)

    def on_echoes(self, nearest, now):
        """CE on a small window keeps the window and, once a round trip, raises the delay; larger windows halve."""
        f, nearest, now = self.f, at_flows(nearest), at_flows(now)  # (one number, or one per flow: flows.Shared)
        echoed = self.own(f.t_ece < nearest[:])
        small = echoed[(self.window_seen(echoed) <= self.threshold[echoed]) & (f.state[echoed] <= PENDING)]
        if small.size:
            f.t_ece[small] = np.inf
            self.ce[small] = True
        self._update(nearest, now)
        super().on_echoes(nearest, now)  # the rest: RFC 3168's halving

    def _update(self, nearest, now):
        # Once a round trip (the delay included): up if CE came back in it, else down.
        due = self.own((self.t_update < nearest[:]) & (self.ce | (self.delay > 0)))
        if due.size:
            self._set_delay(due, self.ce[due], now)
            self.ce[due] = False

    def rto(self, j):
        """The time-out also waits for the held ACKs: RFC 6298's RTO plus the delay [s]."""
        return super().rto(j) + self.delay[j]

    def new_connection(self, j):
        """A new connection starts without delay."""
        super().new_connection(j)
        self.delay[j] = self.hold[j] = self.t_update[j] = 0.0
        self.ce[j] = False


class RDC(SDC):
    """1-bit receiver-based delay control (Hsiao et al., Sec. II.B): the receiver holds the ACKs.

    The receiver sees CE on arrival (half a propagation RTT and the queueing
    delay after the mark) and does not echo it while the window it sees, the
    packets of a round trip (the flight), is at most the threshold: it
    raises its ACK delay instead (the same law as SDC, on its own estimates).
    Larger flights echo CE as usual, and the sender halves.
    """

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        self.t_seen = np.full(flows.N, np.inf)  # when the receiver sees a CE [s]

    def window_seen(self, j):
        """The receiver's estimate of the window: the packets in flight, a round trip's worth [packets]."""
        return np.maximum(self.f.inflight[j].astype(float), 1.0)

    def on_marks(self, j, now, counts=None):
        """Marks on small flights reach the receiver, which keeps them; larger ones are echoed to the sender."""
        f, now = self.f, at_flows(now)
        small = self.window_seen(j) <= self.threshold[j]
        k = j[small]
        self.t_seen[k] = np.minimum(self.t_seen[k], now[k] + f.prop[k] / 2 + f.qdelay(k))
        super(SDC, self).on_marks(j[~small], now, None if counts is None else counts[~small])

    def on_echoes(self, nearest, now):
        """The receiver's CE (no echo) and the sender's echoes (RFC 3168's halving for large windows)."""
        nearest = at_flows(nearest)
        seen = self.own(self.t_seen < nearest[:])
        if seen.size:
            self.t_seen[seen] = np.inf
            self.ce[seen] = True
        super().on_echoes(nearest, now)

    def new_connection(self, j):
        """A new connection's receiver has seen no CE."""
        super().new_connection(j)
        self.t_seen[j] = np.inf


ENGINES[spec.SDC] = SDC
ENGINES[spec.RDC] = RDC
