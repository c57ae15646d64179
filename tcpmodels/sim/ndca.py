"""NDCA-TCP (Park et al.) in the engine: Reno whose slow-start threshold follows a bandwidth estimate.

Each step the ACKs a flow receives feed Eq. 3-4 with BaseRTT (Fig. 4,
:func:`tcpmodels.variants.ndca_bandwidth`), and ssthresh is Eq. 5 of the
estimate (:func:`tcpmodels.variants.ndca_ssthresh`, truncated as in Fig. 4).
The window grows per ACK by :func:`tcpmodels.variants.ndca_increase`: one
below that ssthresh (slow start, intervals A and C), nothing while the RTT
the ACKs report exceeds alpha BaseRTT (interval D,
:func:`tcpmodels.variants.ndca_hold`), else 1/w (B).  The first slow start
runs to the usual ssthresh until the hold first fires, which hands it the
estimate (Sec. 3.1: ssthresh determined by measuring the bandwidth).  A
congestion signal halves the window as Reno does and resets the estimate
(Fig. 4: ``preBW = 0``), so the halved window slow-starts back to what the
ACKs then show (interval C); a time-out starts interval A again (Sec. 3.1:
"the congestion window becomes 1 after timeout").
"""

import numpy as np

from .. import variants
from . import scenario as spec
from .flows import at_flows
from .rttsample import RttSamples
from .senders import ENGINES, Reno, each_flow

__all__ = ["NDCA"]


class NDCA(Reno):
    """NDCA-TCP: bandwidth-estimated ssthresh, slow start after halving, the BaseRTT hold."""

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        # (2 and 1 for a mixed population's other groups: unused there)
        self.alpha = each_flow(scenarios, lambda p: getattr(p, "alpha", 2.0))
        self.beta = each_flow(scenarios, lambda p: getattr(p, "beta", 1.0))
        self.packet_size = np.repeat([s.packet_size for s in scenarios], flows.n)
        self.rtts = RttSamples(flows, ring.L, dt)
        self.bandwidth = np.zeros(flows.N)  # the estimate [bit/s]
        self.last = np.full(flows.N, np.nan)  # when it was last updated [s]
        self.base_rtt = np.full(flows.N, np.inf)
        self.estimating = np.zeros(flows.N, dtype=bool)  # ssthresh is the estimate's (past interval A)

    def increase(self, acks):
        """Update the estimate and BaseRTT from the step's ACKs, then grow per Fig. 4."""
        f, k = self.f, self.ring.k
        now = at_flows(k * self.dt[:])
        sample = self.rtts.sample(k)
        j = (acks > 0).nonzero()[0]
        if j.size:
            self.base_rtt[j] = np.minimum(self.base_rtt[j], sample[j])
            gap = np.where(np.isnan(self.last[j]), self.dt[j], now[j] - self.last[j])
            self.bandwidth[j] = variants.ndca_bandwidth(self.bandwidth[j], acks[j] * self.packet_size[j], gap,
                                                        self.base_rtt[j], self.beta[j])
            self.last[j] = now[j]
        base = np.where(np.isfinite(self.base_rtt), self.base_rtt, f.prop)
        estimate = np.floor(variants.ndca_ssthresh(self.bandwidth, base, self.packet_size))  # Eq. 5, Fig. 4
        hold = variants.ndca_hold(sample, base, self.alpha)
        # The path is full: the first slow start ends at the estimate.
        full = self.own(hold & ~self.estimating)
        if full.size:
            self.estimating[full] = True
            f.ssthresh[full] = estimate[full]
        threshold = np.where(self.estimating, estimate, f.ssthresh)
        per_ack = variants.ndca_increase(np.maximum(f.cwnd, 1.0), threshold, hold)
        np.minimum(f.cwnd + acks * f.grow * per_ack, self.wmax, out=f.cwnd)

    def reduced(self, j):
        """Halve as Reno does and reset the estimate (Fig. 4, triple duplicate ACKs)."""
        self.bandwidth[j] = 0.0
        self.estimating[j] = True
        return super().reduced(j)

    def timeout(self, j, base, now):
        """A time-out starts interval A again (Sec. 3.1): slow start until the hold hands it a new estimate.

        Without this the reset estimate would be the threshold from the first
        ACK on, and a one-packet window would crawl back at one packet a round
        trip instead of slow-starting.
        """
        super().timeout(j, base, now)
        self.estimating[j] = False


ENGINES[spec.NDCA] = NDCA
