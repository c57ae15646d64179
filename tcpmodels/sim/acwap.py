"""ACWAP-HSTCP (Su et al. 2006) in the engine: HighSpeed TCP whose increase falls to 1 before congestion, paced.

Per step, from the RTT its ACKs report (:mod:`.rttsample`), each flow
smooths ``R_C`` with RFC 6298's gain of 1/8 per ACK, keeps RTT_min and
RTT_max in congestion avoidance, and takes a(w) from
:func:`tcpmodels.variants.acwap_a` (Eq. 3 and Fig. 5: 1 once the predictor
fires after two congestion events, else HighSpeed TCP's).  Each congestion
signal counts one event (``numofcon``) and resets ``R_C`` to RTT_min
(Fig. 5).  Packets are paced at one per ``R_C / cwnd``
(:func:`tcpmodels.variants.pacing_interval`), through the access link's
token bucket.
"""

import numpy as np

from .. import variants
from . import scenario as spec
from .highspeed import HighSpeed
from .rttsample import RttSamples
from .senders import ENGINES, each_flow

__all__ = ["ACWAP"]

# RFC 6298's smoothing gain of the RTT estimate, per ACK.
SRTT_GAIN = 1.0 / 8.0


class ACWAP(HighSpeed):
    """ACWAP-HSTCP: the RTT predictor of Eq. 3 sets a(w) = 1; packets leave one per R_C / cwnd."""

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        # beta of each flow (1 for the other groups of a mixed population: unused there).
        self.beta = each_flow(scenarios, lambda p: getattr(p, "beta", 1.0))
        # The flows of ACWAP groups that pace (a mixed population's other groups, and
        # ACWAP groups of other kinds, in Sender.mine, are not this sender's to pace).
        self.pacing = each_flow(scenarios, lambda p: getattr(p, "pacing", False)) > 0
        self.rtts = RttSamples(flows, ring.L, dt)
        self.srtt = flows.prop.copy()  # R_C [s]
        self.rtt_min = np.full(flows.N, np.inf)
        self.rtt_max = np.zeros(flows.N)
        self.numofcon = np.zeros(flows.N)
        self.access = self.access_step.astype(float)  # the access link's own limit per step
        self.paced = self.paced or bool(self.pacing.any())

    def increase(self, acks):
        """Update R_C, RTT_min and RTT_max; grow by ACWAP's a(w); set each flow's pacing rate."""
        f = self.f
        sample = self.rtts.sample(self.ring.k)
        # R_C smoothed per ACK (one per packet, or per two with delayed ACKs).
        self.srtt += (1.0 - (1.0 - SRTT_GAIN) ** (acks * self.ack_gain)) * (sample - self.srtt)
        seen = ((acks > 0) & (f.cwnd >= f.ssthresh)).nonzero()[0]  # Fig. 5: in congestion avoidance
        self.rtt_min[seen] = np.minimum(self.rtt_min[seen], self.srtt[seen])
        self.rtt_max[seen] = np.maximum(self.rtt_max[seen], self.srtt[seen])
        low = np.where(np.isfinite(self.rtt_min), self.rtt_min, self.srtt)
        w = np.maximum(f.cwnd, 1.0)
        a = variants.acwap_a(w, self.srtt, low, np.maximum(self.rtt_max, low), self.numofcon, self.beta,
                             kind=self.spec.kind)
        self.grow_by(acks, a)
        # Interval = R_C / w between packets: at most cwnd dt / R_C packets a step.
        mine = self.own(self.pacing.copy())
        if not mine.size:
            return
        pace = self.dt[mine] / variants.pacing_interval(self.srtt[mine], np.maximum(f.cwnd[mine], 1.0))
        self.access_step[mine] = np.minimum(self.access[mine], pace)
        self.token_cap[mine] = self.access_step[mine] + 1.0

    def reduced(self, j):
        """A congestion event (Fig. 5): one more for ``numofcon``, R_C back to RTT_min; HighSpeed's decrease."""
        self.numofcon[j] += 1.0
        self.srtt[j] = np.where(np.isfinite(self.rtt_min[j]), self.rtt_min[j], self.srtt[j])
        return super().reduced(j)


ENGINES[spec.ACWAP] = ACWAP
