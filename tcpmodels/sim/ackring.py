"""The ACK ring: the ACKs due at each future step, per flow."""

import numpy as np

__all__ = ["AckRing"]


class AckRing:
    """ACKs in flight, in a ring of ``length`` future steps by N flows.

    Parameters
    ----------
    length : int
        Steps ahead the ring reaches [-]: more than the longest RTT plus queueing delay.
    flows : int
        Flows of the batch [-].
    real : type
        dtype of the packet counts.
    """

    def __init__(self, length, flows, real):
        self.L, self.N = length, flows
        self.flat = np.zeros(length * flows, dtype=real)
        self.rows2 = self.flat.reshape(length, flows)
        self.until = np.zeros(flows, dtype=np.int64)  # the step of each flow's last ACK in the ring
        # Where the ring's row for `d` steps ahead of step k begins: rows[k % L + d]
        # (a slice per step instead of a modulo per packet).
        self.rows = np.tile(np.arange(length) * flows, 2)
        self.k = 0

    def take(self, k):
        """The row of ACKs due at step ``k`` (the caller empties it once used)."""
        self.k = k
        return self.rows2[k % self.L]

    def insert(self, sending, packets, propagation, queueing, rng):
        """Schedule the ACKs of ``packets`` of flows ``sending`` ``propagation + queueing`` steps ahead.

        The delay [steps] is rounded stochastically to whole steps (a uniform
        per flow that sent, drawn here), so RTTs stay unbiased.  Returns the
        step each ACK comes back.
        """
        delay = propagation + rng.random(sending.size)
        delay += queueing
        ahead = delay.astype(np.int64)
        k = self.k
        self.flat[self.rows[k % self.L:k % self.L + self.L][ahead] + sending] += packets
        back = ahead + k
        self.until[sending] = np.maximum(self.until[sending], back)
        return back

    def forget(self, j):
        """Drop every ACK still due to flows ``j``."""
        # Only columns with ACKs still due: a scattered write costs L cache misses.
        live = j[self.until[j] > self.k]
        if live.size:
            self.rows2[:, live] = 0.0

    def remove_one(self, i, first, width, aim):
        """Take one ACK of flow ``i`` out, due in steps ``first .. first + width - 1``, nearest ``aim`` of them.

        Returns the ring slot it was due in, or None if none is due there.
        """
        col = self.rows2[:, i]
        window = (first + np.arange(width)) % self.L
        live = (col[window] > 0).nonzero()[0]
        if not live.size:
            return None
        hit = window[live[np.argmin(np.abs(live - aim))]:][:1]
        col[hit[0]] -= 1.0
        return hit[0]
