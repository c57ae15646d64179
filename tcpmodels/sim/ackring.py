"""The ACK ring: the ACKs due at each future step, per flow, and the receivers' delayed ACKs."""

import numpy as np

__all__ = ["AckRing", "DELAYED_ACK_TIMEOUT"]

# The receiver's delayed-ACK timer [s]: RFC 1122 allows up to 0.5 s; 200 ms is
# BSD's and Linux's typical value and ns-3's default (DelAckTimeout).
DELAYED_ACK_TIMEOUT = 0.2


class AckRing:
    """ACKs in flight, in a ring of ``length`` future steps by N flows, and the receivers' delayed ACKs.

    Parameters
    ----------
    length : int
        Steps ahead the ring reaches [-]: more than the longest RTT plus queueing delay.
    flows : int
        Flows of the batch [-].
    real : type
        dtype of the packet counts.
    delayed : ndarray of bool, optional
        Which flows' receivers delay their ACKs (one ACK per two packets).
    hold_steps : float
        The receivers' delayed-ACK timer [steps].
    """

    def __init__(self, length, flows, real, delayed=None, hold_steps=0.0):
        self.L, self.N = length, flows
        self.flat = np.zeros(length * flows, dtype=real)
        self.rows2 = self.flat.reshape(length, flows)
        self.until = np.zeros(flows, dtype=np.int64)  # the step of each flow's last ACK in the ring
        # Where the ring's row for `d` steps ahead of step k begins: rows[k % L + d]
        # (a slice per step instead of a modulo per packet).
        self.rows = np.tile(np.arange(length) * flows, 2)
        self.k = 0
        delayed = np.zeros(flows, dtype=bool) if delayed is None else np.asarray(delayed, dtype=bool)
        # None: every receiver delays its ACKs, or none does (a multiplication saved per step).
        self.delaying = bool(delayed.any())
        self.delayed = None if delayed.all() or not self.delaying else delayed.astype(float)
        self.hold_steps = float(hold_steps)
        self.held = np.zeros(flows)  # a packet the receiver has not ACKed yet (0 or 1)
        # The step the held packet's timer ACK reaches the sender (set on every ACK
        # insert; it matters only while a packet is held).
        self.held_due = np.full(flows, -1, dtype=np.int64)

    def take(self, k):
        """The row of ACKs due at step ``k`` (the caller empties it once used)."""
        self.k = k
        row = self.rows2[k % self.L]
        if self.delaying:
            # Receivers whose timer fires: no packet came to take the held one's ACK along.
            fired = (self.held_due == k).nonzero()[0]
            if fired.size:
                row[fired] += self.held[fired]
                self.held[fired] = 0.0
        return row

    def insert(self, sending, packets, propagation, queueing, u):
        """Schedule the ACKs of ``packets`` of flows ``sending`` ``propagation + queueing`` steps ahead.

        A step's packets leave the bottleneck spread over the step, so their
        ACKs come back spread over the two steps around the exact delay
        [steps], in proportion (rounded stochastically to whole packets): the
        ACK clock keeps its spacing however coarse the step.  (Sending a flow's
        whole step to one of the two at random, as a coarse step would, makes
        the arrivals of few flows lurch from step to step, so the queue drains
        and the link idles where TCP keeps it busy.)  Returns the step a packet
        sent now comes back, rounded stochastically (for loss detection);
        ``u`` holds a uniform on [0, 1) per sending flow for the rounding.
        """
        delay = propagation + queueing
        ahead = delay.astype(np.int64)
        late = delay - ahead  # the share of the ACKs due one step later
        if self.delaying:
            packets = self._delay_acks(sending, packets, delay + u)
        later = np.floor(packets * late + u)
        k, at = self.k, self.k % self.L
        self.flat[self.rows[at:at + self.L][ahead] + sending] += packets - later
        self.flat[self.rows[at + 1:at + 1 + self.L][ahead] + sending] += later
        self.until[sending] = np.maximum(self.until[sending], ahead + (k + 1))
        return ahead + (u < late) + k

    def _delay_acks(self, sending, packets, back):
        """Delayed ACKs (RFC 1122 4.2.3.2, RFC 5681 4.2): the receiver ACKs every second packet.

        An odd packet's ACK waits for the next packet, or for the receiver's
        timer (``hold_steps`` after it would have come back, ``back`` steps
        ahead, rounded stochastically with it; see ``take``).  Returns the
        packets ACKed with this step's.
        """
        total = self.held[sending] + packets
        odd = np.fmod(total, 2.0)
        if self.delayed is not None:
            odd *= self.delayed[sending]
        self.held[sending] = odd
        self.held_due[sending] = (back + self.hold_steps).astype(np.int64) + self.k
        return total - odd

    def forget(self, j):
        """Drop every ACK still due to flows ``j``."""
        # Only columns with ACKs still due: a scattered write costs L cache misses.
        live = j[self.until[j] > self.k]
        if live.size:
            self.rows2[:, live] = 0.0
        self.held[j] = 0.0

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
