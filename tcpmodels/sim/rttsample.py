"""The RTT a flow's returning ACKs report: its unloaded RTT (propagation, serialization) and the queueing delay met.

Delay-based senders (ACWAP's predictor, NDCA-TCP's hold) need per-flow RTT
samples; the engine's RTO estimator keeps only a smoothed queueing delay per
scenario.  This keeps the queueing delay of the last steps per scenario and
reads, for each flow, the one its packets met when they were sent, one
propagation RTT ago.
"""

import numpy as np

__all__ = ["RttSamples"]


class RttSamples:
    """Per-flow RTT samples from a short history of each scenario's queueing delay.

    Parameters
    ----------
    flows : Flows
        The batch's flows (propagation RTTs, queues, capacities).
    length : int
        Steps of history kept [-]: more than the longest propagation RTT in steps.
    dt : float
        The engine's step [s].
    """

    def __init__(self, flows, length, dt):
        self.f, self.L = flows, length
        self.history = np.zeros((length, flows.S))  # queueing delay [s] at the end of each step
        self.back = np.minimum(np.rint(flows.prop / dt[:]).astype(np.int64), length - 1)  # steps back to the sending

    def sample(self, k):
        """Record step ``k``'s queueing delay (the queue the step starts with) and return each flow's RTT [s]."""
        f = self.f
        self.history[k % self.L] = f.q / f.capacity
        return f.prop + self.history[(k - self.back) % self.L, f.scen]
