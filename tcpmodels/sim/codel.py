"""CoDel (Nichols & Jacobson 2012; RFC 8289) in the engine: one queue class, registered for its spec.

CoDel judges each packet as it leaves, by how long it waited.  The engine's
queue is a fluid FIFO served at the line rate C, so the packet at the head at
a step's start has waited what was queued ahead of it when it came, about
``q / C`` (the queue then, over the rate): that sojourn decides the step.
The control law's times are followed in continuous time: every drop it
calls for within the step falls in the step, on the packet at the head (the
first of the queued packets to leave, read off the ACK ring: ``Step.head``).
A dropped head packet's ACK leaves the ring, so its flow learns of the loss
when that ACK fails to come, as for the queued packets random drop and CHOKe
remove (``_SharedQueue``).  With ECN the packet is marked instead and stays:
at most one mark per packet leaving, the next due one control-law spacing
after the packet marked, as ns-3 3.44's ``CoDelQueueDisc`` schedules it
(Linux's ``codel`` schedules it after the due time instead, so where the
spacing nears a packet's service time it marks more: measured on 150 ECN
flows at 20 Mbit/s and 30 ms, 0.805 of the packets marked where ns-3 marks
0.543 and this class 0.532).  The
engine times a mark's echo from the packet's arrival, so a head mark's echo
comes about one queueing delay (near ``target``) later than a real one.
(The head's sojourn from the queue's own history, the first step back whose
queue has been served since, read the same within a few per cent on
``validation/ns3_codel.csv``: not kept.)
"""

import numpy as np

from . import scenario as spec
from .flows import at_flows, batch_width
from .queues import _FIFO, ENGINES, _SharedQueue

__all__ = ["CoDel"]


class CoDel(_SharedQueue, _FIFO):
    """CoDel's state per scenario of a batch (RFC 8289 5.4-5.5, as Linux's ``codel`` runs it) and its head drops."""

    def __init__(self, scenarios, draws, ecn):
        super().__init__(scenarios, draws, ecn)
        self._shares(scenarios)
        specs = [s.queue for s in scenarios]
        self.target = np.array([q.target for q in specs])
        self.interval = np.array([q.interval for q in specs])
        self.capacity = np.array([s.capacity for s in scenarios])
        self.marking = bool(specs[0].ecn and ecn)  # (one value per batch: CoDel.batch_key holds ecn)
        S = len(specs)
        self.firsts = np.arange(S) * batch_width(scenarios)  # (each scenario's first flow)
        # When the sojourn, at or above target since, lets CoDel drop (RFC 8289's first_above_time + interval
        # as it is set; inf while the sojourn is below target).
        self.first_above = np.full(S, np.inf)
        self.dropping = np.zeros(S, dtype=bool)
        self.drop_next = np.zeros(S)  # the control law's next drop [s]
        self.count = np.zeros(S)  # its drops since dropping began
        self.lastcount = np.zeros(S)  # count where dropping last began
        self.inv_sqrt = np.ones(S)  # 1 / sqrt(count) as Linux follows it (``_newton``)

    def report(self):
        """Whether each scenario is dropping and the control law's count (drops since it began)."""
        return {"codel_dropping": self.dropping.astype(float), "codel_count": self.count.copy()}

    def decide(self, step):
        heads = self._head_decisions(step)
        removed = np.zeros(self.size)
        if heads.any():
            removed = self._at_head(heads, step)
        D = removed if step.link is None else removed + step.link_total
        return self.overflow(D, step, removed)

    def victims(self, D, over, step, removed):
        """The tail's overflow (and link losses) fall on the arrivals; the head's drops were dealt with."""
        if not over.any() and step.link is None:
            return None
        return step.spread(step.arr, D - removed, step.link)

    def _head_decisions(self, step):
        """How many packets the control law drops (or marks) at each scenario's head within the step.

        RFC 8289's dequeue: the sojourn at or above ``target`` (with more than
        one packet queued, its ``maxpacket``) for an ``interval`` starts
        dropping; below it dropping stops.  Dropping starts with count 1, or
        with the drops of the last cycle where it stopped less than 16
        intervals before (``delta > 1``); each later drop comes ``interval``
        times 1 / sqrt(count) after the one before, that factor as Linux and
        ns-3 follow it (``_newton``).
        """
        now, dt = at_flows(step.now)[self.firsts], at_flows(step.dt)[self.firsts]  # (each scenario's: see Step)
        end = now + dt
        q = step.q
        above = (q >= self.target * self.capacity) & (q > 1.0)  # (the head's sojourn q / C at or above target)
        self.first_above = np.where(above, np.minimum(self.first_above, now + self.interval), np.inf)
        ok_from = np.where(above, np.maximum(self.first_above, now), np.inf)  # when in the step dropping may go
        self.dropping &= ok_from <= now
        decisions = np.zeros(self.size)
        # At most one mark per packet leaving (it stays queued), one drop per packet queued but the last.
        room = np.minimum(step.serve, q + step.A) if self.marking else np.floor(q) - 1.0
        enter = ~self.dropping & (ok_from < end) & (room >= 1.0)
        if enter.any():
            at = ok_from[enter]
            delta = self.count[enter] - self.lastcount[enter]
            again = (delta > 1.0) & (at - self.drop_next[enter] < 16.0 * self.interval[enter])
            self.count[enter] = self.lastcount[enter] = np.where(again, delta, 1.0)
            self.inv_sqrt[enter] = np.where(again, self._newton(self.inv_sqrt[enter], delta), 1.0)
            self.drop_next[enter] = at + self.interval[enter] * self.inv_sqrt[enter]
            self.dropping |= enter
            decisions += enter
        due = self.dropping & (self.drop_next < end) & (decisions < room)
        while due.any():
            decisions += due
            self.count += due
            self.inv_sqrt = np.where(due, self._newton(self.inv_sqrt, self.count), self.inv_sqrt)
            # (A mark at the first departure at or after its due time; the next due from that departure.)
            base = np.ceil(self.drop_next * self.capacity) / self.capacity if self.marking else self.drop_next
            self.drop_next = np.where(due, base + self.interval * self.inv_sqrt, self.drop_next)
            due = self.dropping & (self.drop_next < end) & (decisions < room)
        return decisions

    @staticmethod
    def _newton(inv_sqrt, count):
        """One Newton step towards 1 / sqrt(count) from ``inv_sqrt``, as Linux's codel_Newton_step and ns-3 take it.

        Linux (and ns-3's port) keeps 1 / sqrt(count) by one step per change
        of the count, not by a square root: from 1 at count 1, 0.5 at 2 (29 %
        below 1 / sqrt(2)), 2.6 % below at 3, 1.0 % at 6, 0.4 % at 10; and a
        cycle that starts again from an earlier one's count (``delta``) takes
        one step from that count's value, so its drops come closer together
        than RFC 8289's pseudocode puts them.  (Linux's 16-bit fixed point is
        not followed.)
        """
        return inv_sqrt * (3.0 - count * inv_sqrt * inv_sqrt) / 2.0

    def _at_head(self, heads, step):
        """Drop (or mark) ``heads[s]`` head packets of each scenario s; returns the packets removed per scenario."""
        removed = np.zeros(self.size)
        arriving = step.arr if step.link is None else step.arr - step.link
        for s in heads.nonzero()[0].tolist():
            for nth in range(int(heads[s])):
                i = step.head(s, nth)
                if i is None:  # (no queued packet whose ACK the ring holds)
                    break
                if self.marking:  # (each mark on a packet leaving in the step, a flow's as ``head`` draws them)
                    marks = np.zeros(self.size)
                    marks[s] = 1.0
                    step.mark(np.array([i]), marks, np.ones(1))
                    continue
                self._remove(i, 0.0, arriving[i], step)
                removed[s] += 1.0
        return removed


ENGINES[spec.CoDel] = CoDel
