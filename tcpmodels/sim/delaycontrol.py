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
from .flows import PENDING
from .senders import ENGINES, NewReno

__all__ = ["SDC"]


class SDC(NewReno):
    """NewReno with ECN whose small windows answer CE with a longer ACK hold (Hsiao et al., Sec. II.B)."""

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        param = lambda value: np.concatenate([s.per_flow(value) for s in scenarios])  # noqa: E731
        self.max_delay = param(lambda p: p.max_delay)
        self.threshold = param(lambda p: p.window_threshold)
        self.delay = np.zeros(flows.N)  # d [s]
        self.hold = np.zeros(flows.N)  # d in steps (the engine adds it to the ACKs' return)
        self.t_update = np.zeros(flows.N)  # when the delay may next change [s]
        self.ce = np.zeros(flows.N, dtype=bool)  # CE echoed since the last change

    def _set_delay(self, j, ce, now):
        """One round trip's delay update of flows ``j`` (CE seen or not); the next one a round trip later."""
        f = self.f
        rtt = f.prop[j] + f.qdelay(j)
        self.delay[j] = variants.sdc_delay(self.delay[j], ce, np.maximum(f.cwnd[j].astype(float), 1.0), rtt,
                                           self.max_delay[j], self.threshold[j])
        self.hold[j] = self.delay[j] / self.dt
        self.t_update[j] = now + rtt + self.delay[j]

    def on_echoes(self, nearest, now):
        """CE on a small window keeps the window and, once a round trip, raises the delay; larger windows halve."""
        f = self.f
        echoed = (f.t_ece < nearest).nonzero()[0]
        small = echoed[(f.cwnd[echoed] <= self.threshold[echoed]) & (f.state[echoed] <= PENDING)]
        if small.size:
            f.t_ece[small] = np.inf
            self.ce[small] = True
        # Once a round trip (the delay included): up if CE came back in it, else down.
        due = ((self.t_update < nearest) & (self.ce | (self.delay > 0))).nonzero()[0]
        if due.size:
            self._set_delay(due, self.ce[due], now)
            self.ce[due] = False
        super().on_echoes(nearest, now)  # the rest: RFC 3168's halving

    def rto(self, j):
        """The time-out also waits for the held ACKs: RFC 6298's RTO plus the delay [s]."""
        return super().rto(j) + self.delay[j]

    def new_connection(self, j):
        """A new connection starts without delay."""
        super().new_connection(j)
        self.delay[j] = self.hold[j] = self.t_update[j] = 0.0
        self.ce[j] = False


ENGINES[spec.SDC] = SDC
