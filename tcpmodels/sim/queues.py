"""Vectorized queue disciplines of the engine: one state object per batch.

Each discipline owns its whole behaviour in ``decide(step)``: it sees, per
time step, the queue ``q`` of each scenario before the step's arrivals and
the packets each flow brings (a :class:`Step`), and returns the drops of each
scenario and which flows lose them.  Which arrivals it drops early or marks
(RED), which queued packets it removes (random drop, CHOKe), the hard buffer
limit: all happen here.  After the service, ``served`` tells it what left.
A new discipline plugs in by adding a spec in :mod:`.scenario` and a class
overriding what differs from ``_FIFO``, here or in a module of its own,
registered in ``ENGINES`` (CoDel's is :mod:`.codel`).
"""

import bisect
import math
from types import SimpleNamespace

import numpy as np

from .. import fpq, red, units
from . import draws as site
from . import scenario as spec
from .drops import FLOOR, fifo_drops, overflow_weights, spread
from .flows import batch_width, lay_out

__all__ = ["make_queue", "Step"]

# Crossing of RED's all-drop point: the Pade root is exact to a small fraction of
# an arrival for |n log keep| < PADE; beyond, NEWTON steps refine it.
PADE, NEWTON = 0.3, 2
# RED judges early only the arrivals that find more than this many packets queued
# (Floyd's ns-2 RED and ns-3's RedQueueDisc: ``qlen > 1``); see _REDState.
JUDGED_ABOVE = 1.0
# The HOLD site's draw for the rounding of _held_short (_hold's are its loop rounds).
SHORT_HOLD = 1 << 31


class Step:
    """What a queue sees of one step, and what it may do to the flows (set by the engine each step).

    Attributes: ``k``, ``now`` [s], ``dt`` [s] (read at flows, ``now[j]``: one for all of
    them, ``flows.Shared``, or one per flow where the scenarios' steps differ); ``arr`` the packets each flow
    brings [packets] and ``link`` those it lost on its link (or None);
    ``A`` the arrivals of each scenario, ``link_total`` its link losses,
    ``q`` its queue [packets], ``serve`` its service per step, ``limit`` its
    hard limit; ``sending`` the flows with
    arrivals (sorted), ``owner`` their scenarios (None for one); ``n`` flows
    per scenario; ``draws`` the scenarios' random streams.
    ``mark(flows, marks, counts)`` delivers ECN marks (per scenario, per flow), ``remove(i, frac)`` takes a
    queued packet's ACK out of the ring (the slot, or None), ``head(s, nth)`` names the flow whose packet is
    at scenario s's head (or None; ``nth`` numbers the step's calls for the scenario),
    ``lost_queued(i, slot, arriving, behind)`` tells the flow (slot None: a
    packet its sender had written off).  ``sack`` holds the SACK blocks of
    the ACKs each flow took this step (None where no discipline reads them:
    see ``_FIFO.ack_options``), ``backlog`` the packets each flow's
    access link still holds after the step's.
    """

    sack = None

    def spread(self, arrived, drops, link, which=site.DROP, weight=None, per_packet=False):
        """Spread each scenario's drops over ``arrived`` (see drops.spread; ``which`` draw site)."""
        return spread(arrived, drops, link, self.sending, self.owner, self.n, self.draws, which, weight, per_packet)


class _FIFO:
    """A FIFO that drops arrivals: its early decisions, then the hard limit (drop-tail drops nothing early).

    Parameters
    ----------
    scenarios : list of Scenario
        The batch (one queue kind: ``make_queue``).
    draws : Draws
        The scenarios' random streams.
    ecn : bool
        The batch's senders speak ECN.
    """

    ecn = marking = False
    ack_options = None  # per flow: whose ACKs' SACK blocks the discipline reads (None: nobody's)

    def __init__(self, scenarios, draws, ecn):
        self.size = len(scenarios)
        self.draws = draws
        self.ops = _Floats if self.size == 1 else _Arrays  # (the step's sums per scenario: floats for a lone one)

    def round_trips(self, prop):
        """Learn the flows' unloaded round trips [s] (propagation and serialization; drop-tail's phases need them)."""

    def early_drops(self, q, arrivals, idle, serve):
        return np.zeros(self.size)

    def report(self):
        """What the discipline reports into the trace: {name: one value per scenario}."""
        return {}

    def decide(self, step):
        """The step's drops per scenario (link losses included) and the flows hit, (j, dj) or None."""
        A = step.A if step.link is None else step.A - step.link_total
        D = self.early_drops(step.q, A, self._idle(step), step.serve)
        if self.marking:
            D = self.mark_early(D, step)
        if step.link is not None:
            D = D + step.link_total
        return self.overflow(D, step, None)

    def _idle(self, step):
        """Each scenario's service the step leaves unused: what its queue and arrivals do not fill [packets]."""
        ops = self.ops
        return ops.give(ops.maximum(ops.take(step.serve) - ops.take(step.q) - ops.take(step.A), 0.0))

    def overflow(self, D, step, extra):
        """Add the overflow (and RED's hard limit) to ``D`` and choose the victims."""
        ops, kept = self.ops, self.ops.take(D)
        over = ops.maximum(ops.ceil(ops.take(step.q) + ops.take(step.A) - kept - ops.take(step.serve)
                                    - ops.take(step.limit)), 0.0)
        total = kept + over
        D = ops.give(total)
        return D, (self.victims(D, ops.give(over), step, extra) if ops.any(total) else None)

    def victims(self, D, over, step, extra):
        """The flows hit by the drops: uniformly among the arrivals."""
        return step.spread(step.arr, D, step.link)

    def served(self, arr, load, q):
        """After service: ``load`` packets were in the queue, ``q`` remain."""


def ack_bursts(scenarios):
    """Packets an ACK releases, per flow of the batch's flat layout: two where the receiver delays its ACKs."""
    return lay_out([s.per_flow(lambda p: 2.0 if p.delayed_ack else 1.0) for s in scenarios], batch_width(scenarios))


def sack_option_bytes(blocks):
    """The bytes an ACK's SACK option takes: 2 + 8 per block (RFC 2018 3), padded to 4 bytes; 0 without blocks."""
    return np.where(blocks > 0, 4.0 + 8.0 * blocks, 0.0)


class _DropTail(_FIFO):
    """Drop-tail: the overflow falls on the packets that arrive while the buffer is full.

    Within a step each flow's packets come as one train at its access link's
    rate, from a point nobody tracks (see ``drops.overflow_weights``): the
    trains that arrive while the buffer is full, and most where they pile up
    on each other, lose the overflow.  A uniform spread over the step's
    packets instead would treat every packet as arriving at a full buffer
    alike and hand one drop each to more flows than a full FIFO does.
    With the phase effect (the default) an overflowing step is instead
    resolved packet by packet (``drops.fifo_drops``): each ACK releases a
    burst (two packets where the receiver delays its ACKs, one otherwise)
    that leaves the access link back to back, and the ACK clock puts a
    burst's first packet at a fixed phase of the packet service time (the
    flow's propagation round trip, shifted per run); a flow's bursts come
    evenly over the step, as its own ACK clock spaces them, from a random
    point (when within the step its ACKs came, nobody tracks); so the same
    flows lose, round trip after round trip, as in a packet-level simulation.  A packet no ACK released (a time-out's
    retransmission, a connection's first packets) comes at a phase of its
    own, so no flow is locked out for good.  Where the link idles, its
    departures start again at a new phase (``_restart_departures``).  An ACK
    sent above a hole carries SACK blocks, whose bytes delay it and the
    packets it releases (``ack_options``; where the flow's access link is
    backlogged, that link's own grid sets when they leave instead).
    """

    # Draws of the drop site, i a flow's or a packet's place in its scenario: where a
    # train starts (OFFSET + i), a timer-driven flow's phase (FRESH + i), a burst's
    # service time (SLOT + i), its order among arrivals at one instant (TIE + i) and
    # where the departures restart after the link idled (REGRID, one per scenario).
    OFFSET, FRESH, SLOT, TIE, REGRID = 1 << 31, 1 << 30, 1 << 29, 3 << 29, 7 << 29

    def __init__(self, scenarios, draws, ecn):
        super().__init__(scenarios, draws, ecn)
        self.scenarios = scenarios
        n = batch_width(scenarios)
        # Without an access link nothing sets how a flow's packets of a step
        # reach the queue (as their ACKs came, spread as those were): there
        # every train counts as filling the step, the uniform spread (a
        # vanishing rate: any packet fills it, a flow without one stays empty).
        rate = [units.capacity(s.flow_access_rate, s.packet_size) if math.isfinite(s.flow_access_rate) else 1e-250
                for s in scenarios]
        self.access = np.repeat([r * s.step for r, s in zip(rate, scenarios, strict=True)], n)
        self.phase_effect = scenarios[0].queue.phase_effect  # one value per batch (DropTail.batch_key)
        # A burst's packets: the access link's serialization time apart, in bottleneck service times.
        self.spacing = np.repeat([s.capacity / r if math.isfinite(s.flow_access_rate) else 0.0
                                  for r, s in zip(rate, scenarios, strict=True)], n)
        self.burst = ack_bursts(scenarios)
        # An ACK's SACK option delays it by its bytes' time on the bottleneck and on the flow's access
        # link (C / access times as long a byte), in service times: where the access link is slow, the
        # flows in recovery come at phases of their own (see ``_arrivals``).
        sack = lay_out([s.per_flow(lambda p: float(getattr(p, "sack", False))) for s in scenarios], n) > 0.0
        self.ack_options = sack if self.phase_effect and sack.any() else None
        self.per_byte = (1.0 + self.spacing) / np.repeat([s.packet_size for s in scenarios], n)

    def round_trips(self, prop):
        if not self.phase_effect:
            return
        n = batch_width(self.scenarios)
        dt = np.repeat([s.step for s in self.scenarios], n)  # (each flow's scenario's)
        capacity = np.repeat([s.capacity for s in self.scenarios], n)
        # Each flow's ACK clock brings its packets a fixed time after a departure:
        # its unloaded round trip ``prop`` (propagation and serialization), plus
        # what no scenario holds (where the departures' grid starts, the ACK's
        # exact size and the hosts' processing), which shifts every flow alike:
        # one uniform draw per run.
        shift = np.repeat([g.random() for g in self.draws.generators(site.PHASE)], n)
        self.phase = np.mod(prop * capacity + shift, 1.0)
        # A packet of a flow none of whose packets got through within its longest
        # round trip (its buffer full) was not released by an ACK.
        longest = prop + np.repeat([float(s.limit) / s.capacity for s in self.scenarios], n)
        self.horizon = longest / dt + 1.0
        self.heard = np.full(prop.size, -np.inf)
        # A packet comes a round trip after the departure whose ACK released it.
        self.clocked = prop / dt
        # Each scenario's last step whose link idled, and how far its departures moved then [service times].
        self.restarted = np.full(len(self.scenarios), -np.inf)
        self.regrid = np.zeros(len(self.scenarios))

    def decide(self, step):
        self.k, self.serve = step.k, step.serve
        return super().decide(step)

    def served(self, arr, load, q):
        if self.phase_effect:
            self.heard[arr > 0] = self.k
            self._restart_departures(load)

    def _restart_departures(self, load):
        """Where the link idled, its departures start again at the next arrival, at a new phase.

        A busy link's departures keep one grid of service times, which the
        flows' round trips carry over to their arrivals.  Once it idles, the
        next packet to arrive starts a new grid, at whatever phase of the old
        one it came (which flow that is nobody tracks: a uniform draw).  For a
        round trip the flows' packets come as the old grid's departures
        clocked them, at phases shifted by as much against the new one; then
        the new grid's own departures clock them, at their usual phases.  A
        link that idles often so reshuffles the flows' phases, and no flow
        keeps the place just after a departure (the one that loses nothing).
        """
        idle = (load < self.serve).nonzero()[0]
        if idle.size:
            self.restarted[idle] = self.k
            self.regrid[idle] = self.draws.uniform(site.DROP, np.full(idle.size, self.REGRID),
                                                   None if self.size == 1 else idle)

    def victims(self, D, over, step, extra):
        if not over.any():
            return step.spread(step.arr, D, step.link)
        j = step.sending
        arrived = step.arr[j] if step.link is None else step.arr[j] - step.link[j]
        if self.phase_effect:
            rest = D if step.link is None else D - step.link_total
            lost = fifo_drops(*self._arrivals(step, j, arrived.astype(np.int64), rest))
            return step.spread(step.arr, D, step.link, weight=np.where(lost, 1.0, FLOOR), per_packet=True)
        weight = None
        if not (arrived >= self.access[j]).all():
            # (Where every train fills the step, the trains' weights are equal.)
            at = j + self.OFFSET if step.owner is None else j % step.n + self.OFFSET
            u = step.draws.uniform(site.DROP, at, step.owner)
            weight = overflow_weights(arrived, j, step.owner, self.size, step.q, step.serve, step.limit,
                                      self.access[j], u)
        # (No weight at all: the uniform spread.)
        return step.spread(step.arr, D, step.link, weight=weight)

    def _slots(self, step, s, place, within, burst, count, departures):
        """The service time of the step each packet's burst comes in: each flow's bursts evenly over the step.

        ACK-clocked packets come as the departures that clocked them went, a
        round trip before, and a flow's departures were at least a service
        time apart: its bursts come spread over the step as those were, not
        at random (so a flow meets its own packets only where its access link
        is faster than the bottleneck).  Where they start within the step
        nobody tracks: a uniform point per flow.  (All flows' bursts spread
        together instead, in a random order, let a flow's bursts fall on each
        other: the 10-flow run of ns-3's that has one flow escaping did not.)
        """
        owner = step.owner
        nth = np.mod(within, burst)
        start = nth == 0
        lanes = None if owner is None else s[start]
        # Per burst: its flow's bursts evenly over the step, from a uniform point per flow.
        u = step.draws.uniform(site.DROP, (place - within)[start] + self.SLOT, lanes)
        size = np.diff(np.append(start.nonzero()[0], place.size))
        every = np.maximum(departures, 1)[s[start]] / np.ceil(count / burst)[start]  # service times per burst
        return np.repeat(np.floor(((within - nth)[start] / burst[start] + u) * every), size)

    def _arrivals(self, step, j, count, rest):
        """The step's packets as ``fifo_drops`` takes them: times, scenarios, drops (``rest``), departures, ties."""
        owner = step.owner
        whose = np.repeat(np.arange(j.size), count)
        s = np.zeros(whose.size, dtype=np.int64) if owner is None else owner[whose]
        tot = np.bincount(s, minlength=self.size)
        place = np.arange(whose.size) - (tot.cumsum() - tot)[s]  # each packet's place in its scenario
        flow = j[whose]
        within = np.arange(whose.size) - (count.cumsum() - count)[whose]  # its place among its flow's
        nth = np.mod(within, self.burst[flow])  # its place in its burst
        lanes = None if owner is None else s
        # The departures of the step: the whole service times in [k serve, (k + 1) serve).
        start = np.ceil(step.k * step.serve)
        departures = (np.ceil((step.k + 1) * step.serve) - start).astype(np.int64)
        slot = self._slots(step, s, place, within, self.burst[flow], count[whose], departures)
        phase = self._clocked_phase(flow, s, step.k)
        if step.sack is not None and step.sack[j].any():
            # Per flow, then per packet.  (A flow whose access link stays busy sends on that link's own grid,
            # whatever its ACKs' delays.)
            delay = np.where(step.backlog[j] > 0.0, 0.0, sack_option_bytes(step.sack[j]) * self.per_byte[j])
            phase += delay[whose]
        timed = step.k - self.heard[flow] > self.horizon[flow]
        if timed.any():  # released by a timer: a phase of its own, the same for the step's packets of its flow
            at = (flow[timed] % step.n) + self.FRESH
            phase[timed] = step.draws.uniform(site.DROP, at, None if owner is None else s[timed])
        # (Past the step's last departure a packet meets the next step's: the step's pattern, wrapped around.)
        span = np.maximum(departures, 1)
        span_of = span[s]  # per packet: its step's service times
        time = np.mod(slot + phase + nth * self.spacing[flow], span_of)
        room = span[0] if owner is None else span[owner]  # per flow
        crowded = (count * self.spacing[j] > room) & (self.spacing[j] >= 1.0) & (count <= room)
        if crowded.any():
            time = self._apart(time, whose, crowded[whose], span_of)
        tie = step.draws.uniform(site.DROP, place + self.TIE, lanes)
        return time, (None if owner is None else s), rest, departures, tie

    def _clocked_phase(self, flow, s, k):
        """Per packet of ``flow`` (of scenario ``s``) at step ``k``: its phase in the service time [-].

        Its flow's, shifted as the departures were where a departure before the
        link last idled clocked it (within its round trip of the restart).
        """
        before = k - self.restarted[s] < self.clocked[flow]
        return np.mod(self.phase[flow] + np.where(before, self.regrid[s], 0.0), 1.0)

    @staticmethod
    def _apart(time, whose, crowded, span):
        """A flow's packets in service times of their own, where its access link is no faster than the bottleneck.

        Its access link carries one packet at a time, so two of its packets never
        come in one service time; but a flow that sends more in a step than its
        access link carries in one (from the credit an idle spell saved) spills
        into the next step's, and folding the step's pattern over lays some of
        those on service times its own packets hold already (at the same
        instant, where the spacing is a whole number of service times), where
        one would drop the other.  Such a packet comes instead in the flow's next
        service time free of its own, at the same phase.  (``crowded`` marks the
        packets of the flows that spill, each with no more packets than the step
        has service times.)
        """
        i = crowded.nonzero()[0]
        t, flow, span = time[i], whose[i], span[i]
        while True:  # (one round where two meet, a few where more do: each round moves the later ones on)
            order = np.lexsort((t, flow))
            service = np.floor(t[order])
            again = np.zeros(i.size, dtype=bool)
            again[order[1:]] = (flow[order[1:]] == flow[order[:-1]]) & (service[1:] == service[:-1])
            if not again.any():
                break
            t[again] = np.mod(t[again] + 1.0, span[again])
        time = time.copy()
        time[i] = t
        return time


class _SharedQueue:
    """A discipline that removes queued packets: it follows each flow's share of the queue."""

    def _shares(self, scenarios):
        self.queued = np.zeros(len(scenarios) * batch_width(scenarios))

    def served(self, arr, load, q):
        # FIFO service taken as proportional.
        self.queued += arr
        self.queued *= np.repeat(np.where(load > 0, q / np.maximum(load, 1e-300), 0.0), arr.size // q.size)

    def _remove(self, i, frac, arriving, step):
        """Remove one of flow i's queued packets, at fraction ``frac`` of its share from the head.

        Its ACK (due between now + RTT and now + RTT + queueing delay) leaves
        the ring and the flow learns of the loss as usual.  None due there
        means the victim is a packet the sender already wrote off (sent
        before a time-out or Tahoe restart): it goes without the sender noticing.
        """
        slot = step.remove(i, frac)
        self.queued[i] = max(self.queued[i] - 1.0, 0.0)
        step.lost_queued(i, slot, arriving, np.floor(self.queued[i] * (1.0 - frac)))


class _RandomDrop(_SharedQueue, _FIFO):
    """Random drop (Morris 1999, 2.2.1): each overflowing packet removes a random queued one."""

    def __init__(self, scenarios, draws, ecn):
        super().__init__(scenarios, draws, ecn)
        self._shares(scenarios)

    def victims(self, D, over, step, extra):
        if not over.any():
            return step.spread(step.arr, D, step.link)
        on_arrivals = self._evict(over, step.arr if step.link is None else step.arr - step.link, step)
        return step.spread(step.arr, D - over + on_arrivals, step.link)

    def _evict(self, over, arriving, step):
        # The arrivals count as queued.  Victims among this step's arrivals are
        # returned (per scenario) for the usual arrival-drop path.  Each
        # scenario's sums are its own (a running sum over the batch would
        # round differently in each batch).
        S, n, queued = self.size, step.n, self.queued
        share = queued + arriving
        cs = np.cumsum(share.reshape(S, n), axis=1)
        owner = np.repeat(np.arange(S), over.astype(np.int64))
        victim = np.arange(owner.size) - (over.cumsum() - over)[owner]  # its place among its scenario's
        pos = step.draws.uniform(site.EVICT, victim, owner) * cs[owner, -1]
        within = np.array([np.searchsorted(cs[s], x, side="right") for s, x in zip(owner.tolist(), pos.tolist(),
                                                                                   strict=True)], dtype=np.int64)
        within = np.minimum(within, n - 1)
        who = owner * n + within
        into = pos - (cs[owner, within] - share[who])  # where in the flow's share the victim sits
        on_arrivals = np.zeros(S)
        for i, x, s in zip(who.tolist(), into.tolist(), owner.tolist(), strict=True):
            if x >= queued[i] or queued[i] < 1.0:
                on_arrivals[s] += 1.0
            else:
                self._remove(i, x / queued[i], arriving[i], step)
        return on_arrivals


def _round_size(mean):
    """Draws in a round of RED's spaced decisions: its first and gaps comfortably beyond ``mean`` due.

    (``mean`` may be a hair below 0 where the drop probability interpolated
    along a falling average is: the round still holds its first draw.)
    """
    return 4 + int(2.0 * max(mean, 0.0))


class _Arrays:
    """Per-scenario operations on a batch: numpy, one array entry per scenario."""

    where, maximum, minimum, abs, sqrt = np.where, np.maximum, np.minimum, np.abs, np.sqrt
    exp, expm1, log, floor, ceil, rint = np.exp, np.expm1, np.log, np.floor, np.ceil, np.rint
    any, zero = np.count_nonzero, staticmethod(np.zeros)  # count_nonzero: a quarter of .any()'s cost

    @staticmethod
    def take(values):
        return np.asarray(values, dtype=float)

    give = take

    @staticmethod
    def piece(value, knots):
        """How many of each scenario's knots (a row of ``knots``) lie at or below its value."""
        return np.add.reduce(value[:, None] >= knots, axis=1)  # (the ufunc: sum's wrapper costs more here)

    @staticmethod
    def uniform(draws, which, index):
        """Each scenario's draw ``index`` of site ``which``."""
        return draws.uniform(which, index)

    @staticmethod
    def round_draws(draws, which, done, mean):
        """A round's uniforms: each scenario's draw ``done`` (where its first decision falls), then one a gap.

        As many rows as comfortably exceed the largest ``mean`` number due,
        so one round usually takes them all; row r is draw ``done + r`` of
        ``which``, as alone (where a round is one row).  (One block: a call
        for the round, not one for its first draw and one for the rest.)
        """
        u = draws.uniform_range(which, done, done + _round_size(mean.max()))
        return u[0], u[1:]

    @staticmethod
    def decisions(first, inv, rest):
        """Arrivals of a scenario's next spaced decisions (a column each): the first at ``first``, gaps from ``rest``.

        (In place in one block: a round makes a few numpy calls on small arrays.)
        """
        gaps = np.empty((len(rest) + 1, first.size))
        np.floor(np.multiply(rest, inv, out=gaps[1:]), out=gaps[1:])
        gaps[1:] += 1.0
        gaps[0] = first
        return np.add.accumulate(gaps, axis=0, out=gaps)

    @staticmethod
    def tally(at, length):
        """Decisions within ``length`` arrivals, the last one's arrival, the round's last, and its size."""
        inside = at <= length
        # (The ufuncs themselves: sum's and max's Python wrappers cost more than their work here.)
        return np.add.reduce(inside, axis=0), np.maximum.reduce(at * inside, axis=0), at[-1], len(at)


# A lone scenario takes its spaced decisions one per round below this many due in a step, in a block above.
FLOAT_BLOCK = 16.0
# A batch of up to this many scenarios takes RED's step one scenario at a time, on floats (_REDState._by_lane):
# a lane's cost grows with the batch, the arrays' hardly (runs of 15-40 s 0.78-0.82x at 2-4 scenarios, 0.91-0.94x
# at 8, 1.04x at 16: docs/simulator_record.md, "RED's step scenario by scenario").
FLOAT_LANES = 8


class _Floats:
    """The same operations on plain floats: a batch of one scenario.

    numpy costs about a microsecond a call whatever the array's size, and a
    step of RED takes a hundred-odd operations, which on floats take a few
    microseconds together; a lone scenario runs 10^4 - 10^5 steps.
    """

    where = staticmethod(lambda cond, yes, no: yes if cond else no)
    # builtins.max and min's rule (the first unless the second is beyond it),
    # at a third of their cost: they parse arguments for iterables and keys.
    maximum = staticmethod(lambda a, b: b if b > a else a)
    minimum = staticmethod(lambda a, b: b if b < a else a)
    abs, any, rint = abs, bool, round
    floor, ceil, sqrt = math.floor, math.ceil, math.sqrt
    # numpy's exp, expm1 and log, not math's: they differ in the last bit on a
    # few % of arguments, and a scenario's result must not depend on whether it
    # runs alone or in a batch (numpy's on a float equal numpy's on arrays).
    exp, expm1, log = (staticmethod(lambda x, f=f: float(f(x))) for f in (np.exp, np.expm1, np.log))
    piece = staticmethod(lambda value, knots: bisect.bisect_right(knots, value))
    uniform = staticmethod(lambda draws, which, index: draws.scalar(which, index))

    @staticmethod
    def zero(shape):
        return 0.0

    @staticmethod
    def take(values):
        return float(values[0])

    @staticmethod
    def give(value):
        return np.array([value], dtype=float)

    @staticmethod
    def round_draws(draws, which, done, mean):
        # Many due (a fast link, a high probability; fewer take _REDState._spaced_alone):
        # a block, so the cost of a step does not grow with the link's rate.  Draw r
        # of the round is draw ``done + r`` of ``which``, as in a batch's block or one at a time.
        u = draws.uniform_range(which, done, done + _round_size(mean))
        return float(u[0]), u[1:]

    @staticmethod
    def decisions(first, inv, rest):
        gaps = np.empty(rest.size + 1)
        gaps[1:] = np.floor(rest * inv) + 1.0
        gaps[0] = first
        return np.add.accumulate(gaps, out=gaps)

    @staticmethod
    def tally(at, length):
        k = int(np.searchsorted(at, length, side="right"))
        return k, float(at[k - 1]) if k else 0.0, float(at[-1]), at.size


class _LaneFloats(_Floats):
    """``_Floats`` for a lane of a small batch (``_REDState._by_lane``): its state in and out as Python floats."""

    take = give = staticmethod(lambda value: value)


def _stable_order(key):
    """``key.argsort(kind="stable")``, from the default sort (SIMD quicksort: 2-5x faster on a batch's keys).

    Only tied keys are ordered differently by it; random 53-bit draws
    almost never tie, and where they do the stable sort decides.
    """
    order = key.argsort()
    ranked = key[order]
    if np.count_nonzero(ranked[1:] == ranked[:-1]):
        return key.argsort(kind="stable")
    return order


class _REDState(_FIFO):
    """Floyd & Jacobson (1993) RED over a batch of scenarios.

    The engine hands over a whole step: A arrivals spread evenly over it while
    the link serves c packets continuously.  The fine-step limit, the truth,
    is RED packet by packet: arrival j sees the queue x_j, which falls by
    s = c / A between arrivals and rises by one per packet accepted, and moves
    the average by the weight w towards it.  While the rule applied to the
    arrivals does not change, x is therefore a ramp, x_j = x_0 + r j (floored
    at zero: the link idles), and the average follows in closed form,
    a_n = a_0 + r n + C (keep^n - 1) with C = a_0 - x_0 + r / w.  Two rules
    alternate: at or above the all-drop point ("one", where the curve reaches
    1) every arrival is dropped and r = -s; below it only the spaced early
    drops go, at their mean rate p_e, and r = 1 - p_e - s.  A step is a few
    such segments, each ending where the average crosses the all-drop point
    (solved for from the closed form) or where the step ends; arrivals are
    whole packets, so the segments are too.  Each loop round takes every
    scenario through its next segment.  A segment after the first starts at
    the point, where the curve below it is p_top (to within its slope times
    the few w u the average moves), and after forced drops, which reset the
    count: the step's later spaced drops are drawn together at its end.

    An arrival that finds at most one packet queued (``JUDGED_ABOVE``) is
    not judged early, whatever the average, and restarts the count, as in
    Floyd's ns-2 RED and ns-3's RedQueueDisc (``qlen > 1``): after a swing
    the average lags a queue that has drained, and the drops it would still
    call for fall on a link that is no longer congested.  Along a segment's
    ramp those arrivals are a whole run at its start (rising) or end
    (falling); where the arrivals exceed the service, those it spares lift
    the queue again, which then holds at the threshold (``_held_short``).
    (ns-2 and ns-3 spare forced drops there too; here the queue above the
    all-drop point drains from it and was not met at one packet on any
    validation row.)

    Near the all-drop point the per-packet process oscillates about it.  With
    u = x - one and v = a - one, v << u, the average moves as dv = w u per
    arrival while the queue moves by -s (above) or r (below), so
    u^2 + 2 |v| (s or r) / w is conserved to first order in w: the queue
    swings from +u_c to -u_c and back in a cycle of T = 2 u_c (1/s + 1/r)
    arrivals, which drops the fraction r / (r + s) of them (the acceptances
    balance the service) and keeps the queue's mean at the point; the swing
    dies out only at second order, as exp(-w n / 3).  When a whole cycle fits
    in what is left of the step, its detail is finer than the engine resolves
    (it spreads a step's drops evenly over the step's arrivals), so the rest
    of the step is the cycle's average: the queue held at the all-drop point,
    the arrivals it cannot keep dropped, the spacing rule's mean share of
    those judged below it early.  As u_c -> 0 that is the per-packet chatter
    itself.  Longer swings are followed segment by segment: averaging them
    away changes TCP's response (the loss rate by several per cent).

    The code is written once against ``self.ops``: numpy arrays for a batch,
    plain floats for a single scenario (see _Floats).
    """

    # DROP-site draws of the forced run (``victims``): each burst's place in the step, and where the run starts.
    BURST, RUN = 1 << 31, 1 << 30
    # Batches up to this many scenarios order the bursts by one sort key, the scenario above the draw's 53 bits.
    ONE_KEY = 1 << 11

    def __init__(self, scenarios, draws, ecn):
        specs = [s.queue for s in scenarios]
        self.size = len(specs)
        self.draws = draws
        self.ecn = specs[0].ecn
        self.burst = ack_bursts(scenarios)
        # RFC 3168: RED marks instead of dropping when both ends speak ECN.
        self.marking = bool(self.ecn and ecn)
        self.gentle = specs[0].gentle
        if any(s.gentle != self.gentle for s in specs):
            raise ValueError("queue: a batch must not mix gentle and plain RED")
        self._allocate([s.weight for s in specs])
        for i, q in enumerate(specs):
            self._set_curve(i, q.min_th, q.max_th, q.max_p)

    def victims(self, D, over, step, extra):
        """The flows hit: the forced drops on one run of the step's packets in time, the early ones spread.

        While the average is at or above the all-drop point every arrival is
        dropped, so the forced drops (and the hard limit's) are the packets of
        one stretch of the step: each flow's packets come in bursts (two where
        its receiver delays its ACKs), the bursts in a random order, and the
        run starts at a uniform place.  (Spread over the step's packets
        instead, they hit more flows once each than a packet-level queue
        does, and fewer drops per congestion event.)  The early drops fall
        uniformly on the rest.
        """
        lost = 0.0 if step.link is None else step.link_total  # (link losses count among D)
        forced = np.minimum(np.rint(self.forced + over), D - lost)  # (each an array over the batch's scenarios)
        if not np.count_nonzero(forced):  # (count_nonzero: a quarter of .any()'s cost)
            return super().victims(D, over, step, extra)
        flows, hit = self._forced_run(forced, step)
        if not np.count_nonzero(D > forced):
            return flows, hit
        left = step.arr.copy()  # (the early drops, on what the run left)
        left[flows] -= hit
        others, dj = step.spread(left, D - forced, step.link)
        both = np.concatenate((flows, others))
        order = both.argsort(kind="stable")  # (two sorted runs: one merge, the forced count first)
        both = both[order]
        first = np.empty(both.size, dtype=bool)  # (each flow's first entry)
        first[:1] = True
        np.not_equal(both[1:], both[:-1], out=first[1:])
        first = first.nonzero()[0]
        return both[first], np.add.reduceat(np.concatenate((hit, dj))[order], first)

    def _forced_run(self, forced, step):
        """The flows hit (sorted) and their packets among each scenario's run of ``forced`` consecutive packets.

        Counted burst by burst (each burst's overlap with the run), and only on
        the scenarios with forced drops: the draws are each burst's own (by
        its scenario and place), so the others' flows change nothing.
        """
        if step.owner is None:
            return self._forced_run_alone(float(forced[0]), step)
        j, owner = step.sending, step.owner
        mine = (forced[owner] > 0).nonzero()[0]
        jm = j[mine]
        flow, length = self._bursts(jm, step)
        s = owner[mine][flow]  # (a gather: repeating owner[mine] by the bursts counted more instructions)
        per = np.bincount(s, minlength=self.size)
        place = np.arange(flow.size) - (per.cumsum() - per)[s]
        key = step.draws.bits(site.DROP, place + self.BURST, s)
        if self.size <= self.ONE_KEY:  # (lexsort's order by one key: 3-6x faster)
            order = _stable_order(key | (s.astype(np.uint64) << np.uint64(53)))
        else:
            order = np.lexsort((key, s))
        length = length[order]
        so = s[order]
        total = np.bincount(so, weights=length, minlength=self.size)
        run = np.minimum(forced, total)
        start = np.floor(self.ops.uniform(self.draws, site.DROP, self.RUN) * (total - run + 1))
        end = length.cumsum() - (total.cumsum() - total)[so]  # (each burst's end in its scenario's step)
        return self._hits(jm, flow[order], length, end, start[so], (start + run)[so])

    def _forced_run_alone(self, forced, step):
        """``_forced_run`` for a lone scenario: the same numbers, without the batch's bookkeeping per scenario.

        (Every sender's bursts are its scenario's, numbered in order; whole
        packets, so their sums are exact in any order.)
        """
        j = step.sending
        flow, length = self._bursts(j, step)
        order = step.draws.bits(site.DROP, np.arange(flow.size) + self.BURST).argsort(kind="stable")
        length = length[order]
        end = length.cumsum()  # (each burst's end in the step)
        total = float(end[-1]) if end.size else 0.0
        run = _Floats.minimum(forced, total)
        start = math.floor(self.ops.uniform(self.draws, site.DROP, self.RUN) * (total - run + 1))
        return self._hits(j, flow[order], length, end, start, start + run)

    def _bursts(self, j, step):
        """The step's bursts of flows ``j``, their flows' in turn: each one's flow (its place in ``j``) and packets."""
        arrived = (step.arr[j] if step.link is None else step.arr[j] - step.link[j]).astype(np.int64)
        size = self.burst[j].astype(np.int64)
        bursts = -(-arrived // size)  # (the last one may be short)
        flow = np.arange(j.size).repeat(bursts)  # (ndarray methods: numpy's functions wrap them at a cost)
        within = np.arange(flow.size) - (bursts.cumsum() - bursts).repeat(bursts)  # (a burst's place among its flow's)
        size = size[flow]
        return flow, np.minimum(size, arrived[flow] - within * size)

    @staticmethod
    def _hits(j, flow, length, end, start, stop):
        """The flows of ``j`` hit and their packets: each burst's (ending at ``end``) overlap with [start, stop)."""
        overlap = np.minimum(end, stop) - np.maximum(end - length, start)
        hit = np.bincount(flow, weights=np.maximum(overlap, 0.0), minlength=j.size)
        nz = hit.nonzero()[0]
        return j[nz], hit[nz]

    def _allocate(self, weights):
        size = len(weights)
        self.ops, self.shape = (_Floats, None) if size == 1 else (_Arrays, (size,))
        self.w = np.array(weights, dtype=float)
        # keep^n as exp(n log keep); RED-I's keep = 0 becomes e^-690 per arrival.
        self.log_keep = np.log(np.maximum(1.0 - self.w, 1e-300))
        self.knots = np.zeros((size, 4))  # where the curve's pieces after the first begin
        self.line = np.zeros((2, size * 5))  # each piece's p_b at 0 and its slope, flat
        self.one, self.p_top = np.zeros((2, size))
        self.avg = np.zeros(size)
        self.count = self.ops.take(np.zeros(size))  # arrivals since the last drop
        # Early decisions leave the queue unless they are ECN marks.
        self.removes = 0.0 if self.ecn else 1.0
        self._lanes = self._lane_states = None

    def _set_curve(self, s, min_th, max_th, max_p):
        # red.drop_probability tabulated at its breakpoints: the curve is
        # piecewise linear between them, so each piece's line reproduces it
        # exactly (the one law, written once).
        xp = np.array([0.0, min_th, np.nextafter(max_th, 0.0), max_th, 2 * max_th, 4 * max_th + 1e9])
        fp = np.asarray(red.drop_probability(xp, min_th, max_th, max_p, gentle=self.gentle), dtype=float)
        dx = np.diff(xp)
        slope = np.divide(np.diff(fp), dx, out=np.zeros(5), where=dx > 0)
        self.knots[s] = xp[1:5]
        self.line[:, 5 * s:5 * s + 5] = fp[:5] - slope * xp[:5], slope
        # Where the curve first reaches 1: at and above it every arrival is dropped.
        self.one[s] = one = xp[np.argmax(fp >= 1.0)]
        # The arrivals accepted just below it are judged there.
        self.p_top[s] = red.drop_probability(np.nextafter(one, 0.0), min_th, max_th, max_p, gentle=self.gentle)
        self._lanes = self._lane_states = None

    def _parameters(self):
        """The per-scenario parameters in the form ``self.ops`` works on (rebuilt after a retune)."""
        if self._lanes is None:
            self._lanes = (self._parameter_set(_Arrays.take, self.knots, np.arange(self.w.size) * 5, self.line)
                           if self.ops is _Arrays else self._lane_parameters(0))
        return self._lanes

    def _lane_parameters(self, s):
        """Scenario ``s``'s parameters as floats: a lone scenario's, or a lane's (``_by_lane``)."""
        return self._parameter_set(lambda values: float(values[s]), self.knots[s].tolist(), 0,
                                   self.line[:, 5 * s:5 * s + 5].tolist())

    def _parameter_set(self, take, knots, first, line):
        p_top = take(self.p_top)
        return SimpleNamespace(one=take(self.one), w=take(self.w), log_keep=take(self.log_keep), p_top=p_top,
                               top_decisions=self._rate(p_top, 1.0), top_rate=self._rate(p_top), knots=knots,
                               first=first, at_zero=line[0], slope=line[1])

    def mark_early(self, D, step):
        """Early (spaced) decisions become marks (both ends speak ECN); forced drops stay drops."""
        marks = D - self.forced
        D = self.forced.copy()
        if marks.any():
            jm, counts = step.spread(step.arr if step.link is None else step.arr - step.link, marks, None, site.MARK)
            step.mark(jm, marks, counts)
        return D

    def _rate(self, p, leaving=None):
        """Early decisions per arrival at base probability p (by default those that leave the queue).

        F&J's gap is uniform on [1, 1/p_b], mean (1/p_b + 1) / 2: a rate of
        about 2 p_b (the factor 2 of Morris' Eq. 5.8; exact where 1/p_b is
        whole).  ECN marks stay queued.
        """
        return (self.removes if leaving is None else leaving) * 2.0 * p / (1.0 + p)

    def early_drops(self, q, arrivals, idle, serve):
        if self.ops is _Arrays and self.size <= FLOAT_LANES:
            return self._by_lane(q, arrivals, idle, serve)
        ops, par = self.ops, self._parameters()
        one, w, log_keep = par.one, par.w, par.log_keep
        left, idle = ops.take(arrivals), ops.take(idle)
        s = ops.take(serve) / ops.maximum(left, 1.0)  # service between two arrivals
        x = ops.maximum(ops.take(q) - 0.5 * s, 0.0)  # queue the next arrival sees
        a, count = ops.take(self.avg), self.count
        forced = early = later = ops.zero(self.shape)
        drain, fill = -s, 1.0 - s  # the queue's move per arrival dropped, kept
        top = fill - par.top_rate  # its move per arrival just below the point
        rise = ops.maximum(top, 0.0)
        first, ended_hot = True, False
        self._round = 0  # a scenario's segment: the same round alone and in a batch
        while ops.any(left):
            d = x - a
            a1 = a + w * d  # the average the next arrival is judged at
            hot = a1 >= one
            if first:
                j = par.first + ops.piece(a1, par.knots)  # the curve's piece there
                slope = par.slope[j]
                p = par.at_zero[j] + slope * a1
                r = ops.where(hot, drain, fill - self._rate(p))
            else:  # a later segment starts at the point: below it, p_b = p_top
                r = ops.where(hot, drain, top)
            r = ops.maximum(r, x * -1e200)  # caps r at 0 on an empty queue only: it stays empty
            C = r / w - d
            end = x + r * left  # the queue at the step's end if nothing changes
            dry = math.inf  # arrivals until the queue runs dry
            if ops.any(end < 0):
                dry = ops.where((r < 0) & (end < 0), x / ops.maximum(-r, 1e-12), math.inf)
            n = left
            cross = ops.where(hot, end < one, ops.maximum(x, end) >= one)  # a crossing is possible
            if ops.any(cross):
                if not first:  # at a crossing: hold where a whole cycle fits
                    hold, forced, early, count = self._hold(cross, x, a, left, s, rise, forced, early, count)
                    a, left, ended_hot = ops.where(hold, one, a), ops.where(hold, 0.0, left), hold | ended_hot
                n = ops.where(cross, self._crossing(hot, a - one, r, C, left, dry), left)
            # Once the queue is dry the average just decays (where none runs dry, by a factor 1: no call).
            ramp = n if dry is math.inf else ops.minimum(n, dry)
            a_end = a + r * ramp + C * ops.expm1(ramp * log_keep)
            if ramp is not n:
                a_end = a_end * ops.exp((n - ramp) * log_keep)
            forced = forced + hot * n
            # F&J: a forced drop resets the count (n = 0: a scenario of the batch done with its step).
            count = ops.where(hot & (n > 0), 0.0, count)
            below, spared = self._below(x, r, n, hot, end)  # arrivals judged below the point
            if first:  # spaced drops judged at the segment's mean average
                # Arrivals spared at a short queue restart the count: before the judged
                # ones on a rising ramp, after them on a falling one.
                if ops.any(spared):
                    count = ops.where(spared & (r >= 0.0), 0.0, count)
                decided, count = self._spaced(p + slope * 0.5 * (a_end - a1), below, count, site.SPACED)
                early = early + decided
                if ops.any(spared):
                    count = ops.where(spared & (r < 0.0), 0.0, count)
                    early = early + self._held_short(x, below, n, fill, p, hot)
            else:  # each later run starts after forced drops: spaced together below
                later = later + below
            ended_hot = ops.where(n > 0, hot, ended_hot)
            x = ops.maximum(x + r * n, 0.0)
            a = a_end
            left = left - n
            first = False
            self._round += 1
        if ops.any(later):
            decided, after = self._spaced(par.p_top, later, 0.0 * later, site.LATER)
            early = early + decided
            count = ops.where(ended_hot, count, ops.where(later > 0, after, count))
        # An idle link decays the average as if the packets it could have
        # sent had arrived to an empty queue (F&J's m; a busy one, by a factor 1: no call).
        if ops.any(idle):
            a = a * ops.exp(idle * log_keep)
        self.avg = ops.give(a)
        self.count = count
        self.forced = ops.give(forced)
        return ops.give(forced + early)

    def _by_lane(self, q, arrivals, idle, serve):
        """``early_drops`` of a small batch, scenario by scenario on floats (``FLOAT_LANES``).

        Each lane is its scenario as a lone RED queue: its parameters, state
        (``_LaneFloats``) and draws (``Draws.lane``) as floats, and the same
        operations, so the same numbers as the batch's arrays give (see
        ``_Floats``).
        """
        if self._lane_states is None:
            self._lane_states = [self._lane(s) for s in range(self.size)]
        q, arrivals, idle, serve = (np.broadcast_to(np.asarray(v, dtype=float), (self.size,)).tolist()
                                    for v in (q, arrivals, idle, serve))
        avg, count = self.avg.tolist(), self.count.tolist()
        out, forced = [0.0] * self.size, [0.0] * self.size
        for s, lane in enumerate(self._lane_states):
            lane.avg, lane.count = avg[s], count[s]
            out[s] = lane.early_drops(q[s], arrivals[s], idle[s], serve[s])
            avg[s], count[s], forced[s] = lane.avg, lane.count, lane.forced
        self.avg, self.count, self.forced = np.array(avg), np.array(count), np.array(forced)
        return np.array(out)

    def _lane(self, s):
        """Scenario ``s`` of the batch as a lone RED queue that only takes steps (``_by_lane``)."""
        lane = object.__new__(_REDState)
        lane.ops, lane.shape, lane.size, lane.removes = _LaneFloats, None, 1, self.removes
        lane.draws, lane._lanes = self.draws.lane(s), self._lane_parameters(s)
        return lane

    def _below(self, x, r, n, hot, end):
        """A segment's arrivals judged below the all-drop point, and where some were spared at a short queue."""
        ops = self.ops
        below = ops.where(hot, 0.0, n)
        if not ops.any(ops.minimum(x, end) <= JUDGED_ABOVE):  # (no ramp of the batch runs that low this step)
            return below, False
        judged = ops.where(hot, 0.0, self._judged(x, r, n))
        return judged, judged < below

    def _judged(self, x, r, n):
        """Of n arrivals along the ramp x + r j (j = 0 ... n - 1), those that find more than JUDGED_ABOVE queued."""
        ops = self.ops
        # Rising: those from the first j with x + r j > JUDGED_ABOVE on; falling: those before the last.
        rising = n - ops.minimum(ops.maximum(ops.floor((JUDGED_ABOVE - x) / ops.maximum(r, 1e-12)) + 1.0, 0.0), n)
        falling = ops.minimum(ops.maximum(ops.ceil((x - JUDGED_ABOVE) / ops.maximum(-r, 1e-12)), 0.0), n)
        return ops.where(r > 0.0, rising, ops.where(r < 0.0, falling, n * (x > JUDGED_ABOVE)))

    def _held_short(self, x, judged, n, fill, p, hot):
        """Early decisions at a short queue that the spared arrivals would lift: RED holds it there.

        Where the arrivals exceed the service (``fill`` > 0) by less than RED's
        early drops take (the queue falls while it judges), the arrivals it
        spares at JUDGED_ABOVE or below lift the queue until it judges again:
        it stays there, the link busy, and the excess of the rest of the
        segment is dropped (in whole packets).  (Its average is followed as if
        the queue ran on down: a packet's difference.)
        """
        ops = self.ops
        held = ops.where(hot, False, (fill > 0.0) & (fill < self._rate(p)))
        if not ops.any(held):
            return 0.0
        reach = ops.where(x < JUDGED_ABOVE, ops.ceil((JUDGED_ABOVE - x) / ops.maximum(fill, 1e-12)), 0.0)
        rest = ops.maximum(n - judged - reach, 0.0)
        u = ops.uniform(self.draws, site.HOLD, SHORT_HOLD)
        return ops.where(held, ops.floor(fill * rest + u), 0.0)

    def _hold(self, cross, x, a, left, s, rise, forced, early, count):
        """Where a whole cycle of the oscillation fits, the rest of the step as its average.

        Returns where it did, and the forced and early drops and the count.
        """
        ops, par = self.ops, self._parameters()
        u, v = x - par.one, a - par.one
        swing = ops.sqrt(u * u + ops.abs(v) * ops.where(v > 0, s, rise) * 2.0 / par.w)
        hold = cross & (swing < left * s * rise / (2.0 * (s + rise)))  # T < left
        if not ops.any(hold):
            return hold, forced, early, count
        # The queue ends at the point: the arrivals kept are the service less
        # the excess u the queue starts with, in whole packets; of those
        # judged below the point, the spacing rule's share are early
        # decisions (ECN marks stay queued), in whole packets too.
        removed = ops.where(hold, ops.minimum(ops.maximum(ops.rint((1.0 - s) * left + u), 0.0), left), 0.0)
        judged = (left - removed) / ops.maximum(1.0 - par.top_rate, 1e-12)
        u = ops.uniform(self.draws, site.HOLD, self._round)
        decided = ops.where(hold, ops.floor(judged * par.top_decisions + u), 0.0)
        if self.removes:
            decided = ops.minimum(decided, removed)
        return hold, forced + removed - self.removes * decided, early + decided, ops.where(hold, 0.0, count)

    def _crossing(self, hot, dev, r, C, left, dry):
        """Arrivals judged before the first one on the other side of the all-drop point.

        With sign = -1 when hot, f(n) = sign (a_n - one) = al + be n + ga
        (keep^n - 1) is negative at n = 1 (the segment's first arrival is on
        its side by definition); the first whole n with f(n) >= 0 is the
        first arrival across.  f is convex where ga > 0 (it turns up at most
        once: there is a root iff f >= 0 at the ramp's end) and concave
        elsewhere (at most one maximum, where f' = 0: a root iff f >= 0
        there).  With keep^n - 1 = e^z - 1 ~ (z + z^2/6) / (1 - z/3), z = n
        log keep (the (2,1) Pade form, off by z^4 / 72 + O(z^5)), f (1 - z/3)
        is a quadratic in n, whose upward root is the crossing; the average
        moves by about w per arrival, so |z| <~ w A is small, and Newton's
        method refines the root only where it is not (RED-I, huge steps).  A
        hot queue that runs dry first decays the average from there by keep
        per arrival.
        """
        ops, par = self.ops, self._parameters()
        lk, one = par.log_keep, par.one
        sign = ops.where(hot, -1.0, 1.0)
        al, be, ga = sign * dev, sign * r, sign * C
        peak = ops.minimum(left, dry)
        gl = ga * lk
        bend = (ga < 0) & (be < 0)
        if ops.any(bend):
            turn = ops.log(ops.where(bend, -be / ops.maximum(gl, 1e-300), 1.0)) / lk
            peak = ops.where(bend, ops.minimum(ops.maximum(turn, 1.0), peak), peak)
        # c2 n^2 + c1 n + al crosses upwards at (sqrt(c1^2 - 4 c2 al) - c1) / 2 c2,
        # or -2 al / (c1 + sqrt(...)): the same root, free of cancellation for c1 >= 0.
        c2, c1 = lk * (gl / 6.0 - be / 3.0), be + gl - al * lk / 3.0
        root = ops.sqrt(ops.maximum(c1 * c1 - 4.0 * c2 * al, 0.0))
        up = c1 >= 0.0
        n = ops.where(up, -2.0 * al, root - c1) / ops.maximum(ops.where(up, c1 + root, 2.0 * c2), 1e-200)
        n = ops.minimum(ops.maximum(n, 1.0), peak)
        far = peak * lk < -PADE
        if ops.any(far):  # (only where needed: the batch must not round a scenario differently)
            pade = n
            for _ in range(NEWTON):
                e = ops.exp(n * lk)
                n = n - (al + be * n + ga * (e - 1.0)) / ops.maximum(be + gl * e, 1e-12)
                n = ops.minimum(ops.maximum(n, 1.0), peak)
            n = ops.where(far, n, pade)
        m = ops.where(al + be * peak + ga * ops.expm1(peak * lk) >= 0.0, ops.ceil(n), math.inf)
        if ops.any(hot & (dry < left)):
            d = ops.minimum(dry, left)
            a_dry = one + dev + r * d + C * ops.expm1(d * lk)
            m = ops.minimum(m, ops.where(hot & (dry < left), ops.ceil(d + ops.log(one / ops.maximum(a_dry, one)) / lk),
                                         math.inf))
        return ops.minimum(ops.maximum(m - 1.0, 1.0), left)

    def _spaced(self, p, length, count, which):
        """Spaced early decisions among ``length`` arrivals judged at base probability ``p``.

        Floyd & Jacobson's count-based spacing: each arrival is decided on
        with p_a = p_b / (1 - count p_b), count the arrivals since the last
        drop, which makes the gap between decisions uniform on [1, 1/p_b]:
        given ``count``, the next decision falls uniformly on the rest of that
        range, floor(v (1 - count p_b) / p_b) + 1 arrivals on, and each later
        one floor(v / p_b) + 1 after the last, a fresh uniform v each (the
        i-th decision's is draw i of site ``which``).  Each round takes the
        next decisions of every scenario that has one left (see
        ``ops.decisions``).  Returns the decisions and the count after the
        arrivals (reset below min_th; unchanged without arrivals).
        """
        ops = self.ops
        if ops is not _Arrays and length * p < FLOAT_BLOCK:
            return self._spaced_alone(p, length, count, which)
        on = p > 0
        inv = 1.0 / ops.maximum(p, 1e-12)
        # The mean number due is length p_e <= 2 length p.
        u, rest = ops.round_draws(self.draws, which, 0, length * p)
        pos = ops.floor(u * (1.0 - count * p) * inv)  # arrivals before it
        todo = on & (pos < length)
        count = ops.where(on | (length == 0), count + length, 0.0)
        decided = done = 0
        while ops.any(todo):
            at = ops.decisions(ops.maximum(pos + 1.0, 1.0), inv, rest)
            k, last, end, rows = ops.tally(at, length)
            k = k * todo
            decided = decided + k
            count = ops.where(k > 0, length - last, count)
            todo = k == rows  # all fell within: go on after the round's last
            done += rows
            if not ops.any(todo):  # (no draws for a round that does not come)
                break
            u, rest = ops.round_draws(self.draws, which, done, length * p)
            pos = end + ops.floor(u * inv)
        return decided, count

    def _spaced_alone(self, p, length, count, which):
        """``_spaced`` for a lone scenario with few decisions due: one a round, on floats.

        (The same numbers as the rounds of ``_spaced`` one decision each; the
        draw after the last round's is never made, nor the first where no
        decision can fall: the first falls one arrival on at the earliest.)
        """
        after = count + length if p > 0 or length == 0 else 0.0
        if not (p > 0 and length >= 1.0):
            return 0, after
        scalar, maximum = self.draws.scalar, _Floats.maximum
        inv = 1.0 / maximum(p, 1e-12)
        at = maximum(math.floor(scalar(which, 0) * (1.0 - count * p) * inv) + 1.0, 1.0)
        todo, count = at <= length, after
        decided = 0
        while todo:
            decided += 1
            count = length - at
            at = at + math.floor(scalar(which, decided) * inv) + 1.0  # (a gap of one arrival at least)
            todo = at <= length
        return decided, count


class _FPQState(_REDState):
    """FPQ: RED whose curve follows a bit-vector count of the active flows."""

    gentle = False
    ecn = False

    def __init__(self, scenarios, draws, ecn):
        self.specs = [s.queue for s in scenarios]
        self.draws = draws
        self.marking = False
        self.size = len(scenarios)
        self.burst = ack_bursts(scenarios)
        self.bdp = [s.bdp for s in scenarios]
        size = len(scenarios)
        self._allocate([q.weight for q in self.specs])
        # Each scenario's counter draws its clears from its own generator.
        self.counters = [fpq.BitVectorCounter(q.bits, q.t_clear, rng=g)
                         for q, g in zip(self.specs, draws.generators(site.COUNTER), strict=True)]
        self.flows = [1.0] * size
        self.history = [[] for _ in range(size)]  # (time, estimate) at each retune
        for i in range(size):
            self._retune(i, 1.0, 0.0)

    def _retune(self, s, flows, now):
        q = self.specs[s]
        p = fpq.red_params(flows, self.bdp[s], q.ppf, q.max_loss, q.min_th)  # Fig. 6.4
        self._set_curve(s, p.min_th, p.max_th, p.max_p)
        self.flows[s] = flows
        self.history[s].append((now, flows))

    def decide(self, step):
        """See the step's arrivals first: the flow count retunes RED."""
        self.observe(step.arr.reshape(self.size, step.n), step.now, step.dt, step.n)
        return super().decide(step)

    def report(self):
        """FPQ's estimate of the active flows (Morris 1999, Fig. 6.9)."""
        return {"flow_count": np.array(self.flows)}

    def observe(self, arrivals, now, dt, n):
        """Count the flows of the step's arrivals (``arrivals`` shaped scenario x flow, ``n`` flows each) and retune.

        ``now`` and ``dt`` are read at each scenario's first flow (``Step``).
        """
        for s, row in enumerate(arrivals):
            ids = np.flatnonzero(row)
            if not ids.size:
                continue
            packets = np.repeat(ids, row[ids].astype(np.int64))
            start = float(now[s * n])
            times = start + float(dt[s * n]) * (np.arange(packets.size) + 0.5) / packets.size
            flows = max(1.0, self.counters[s].update(packets, times))
            if abs(flows - self.flows[s]) > 0.01 * self.flows[s]:
                self._retune(s, flows, start)


class _CHOKe(_SharedQueue, _REDState):
    """CHOKe (Pan, Prabhakar & Psounis 2000): RED plus a match test of each arrival against the queue."""

    def __init__(self, scenarios, draws, ecn):
        super().__init__(scenarios, draws, ecn)
        self._shares(scenarios)
        self.min_th = np.array([s.queue.min_th for s in scenarios])

    def _matches(self, step, offered):
        """The arrivals that meet a queued packet of their own flow (per flow), and whether those leave too."""
        n = step.n
        # While RED's average is above min_th, each arrival meets a random
        # queued packet; the same flow's loses both.
        live = np.repeat((np.array(self.avg) > self.min_th) & (step.q >= 1.0), n)
        p_match = np.where(live, self.queued / np.repeat(np.maximum(step.q, 1.0), n), 0.0)
        return step.draws.binomial(site.MATCH, offered.astype(np.int64), np.minimum(p_match, 1.0)), True

    def decide(self, step):
        S, n, draws = self.size, step.n, step.draws
        offered = step.arr if step.link is None else step.arr - step.link
        matched, both = self._matches(step, offered)
        from_queue = np.zeros(S)
        hit = matched.nonzero()[0]
        if both and hit.size:
            # Where in the flow's share each matched packet sits: draw i of its
            # scenario for its i-th match (in flow order).
            ends = np.cumsum(matched.reshape(S, n), axis=1).ravel()
            for i in hit.tolist():
                for m in range(int(ends[i] - matched[i]), int(ends[i])):
                    self._remove(i, float(draws.uniform(site.CHOSEN, m, i // n)[0]), offered[i], step)
                    from_queue[i // n] += 1.0
        gone = matched.reshape(S, n).sum(axis=1)
        A = step.A - gone if step.link is None else step.A - gone - step.link_total
        D = self.early_drops(step.q, A, self._idle(step), step.serve)
        if self.marking:
            D = self.mark_early(D, step)
        if step.link is not None:
            D = D + step.link_total
        return self.overflow(D + gone + from_queue, step, (matched, gone, from_queue))

    def victims(self, D, over, step, extra):
        # The matched arrivals are the flows' own; the rest fall at random.
        matched, gone, from_queue = extra
        j, dj = step.spread(step.arr - matched, D - gone - from_queue, step.link)
        hits = np.zeros(step.arr.size)
        hits[j] += dj
        hits += matched
        j = (hits != 0.0).nonzero()[0]
        return j, hits[j]


class _KamraCHOKe(_CHOKe):
    """Kamra, Misra & Towsley's CHOKe/RED-I: at periodic intervals one arrival meets a random queued packet."""

    def __init__(self, scenarios, draws, ecn):
        super().__init__(scenarios, draws, ecn)
        self.interval = np.array([s.queue.match_interval for s in scenarios])
        self.next_match = np.zeros(len(scenarios))

    def _matches(self, step, offered):
        """Scenarios due a test: one arrival (a flow by its share of them) against a queued packet (by share)."""
        n, gens = step.n, step.draws.generators(site.TEST)  # each scenario's own: its tests alone
        matched = np.zeros(offered.size)
        now = step.now[::n]  # (each scenario's: see Step)
        due = ((now >= self.next_match) & (step.q >= 1.0) & (offered.reshape(-1, n).sum(axis=1) > 0)).nonzero()[0]
        for s in due:
            at = slice(s * n, (s + 1) * n)
            arriving = offered[at] / offered[at].sum()
            i = gens[s].choice(n, p=arriving)
            if gens[s].random() * step.q[s] < self.queued[s * n + i]:
                matched[s * n + i] = 1.0  # only the arrival is dropped (Sec. 2)
        self.next_match[due] = (now + self.interval)[due]
        return matched, False


class _REDIState(_REDState):
    """RED-I, whose ECN marks each become a drop with probability ``mark_drop`` (Kamra et al., Sec. 2)."""

    def __init__(self, scenarios, draws, ecn):
        super().__init__(scenarios, draws, ecn)
        self.mark_drop = np.array([s.queue.mark_drop for s in scenarios])
        self.bernoulli = bool(self.mark_drop.any())

    def mark_early(self, D, step):
        """Of the step's marks, Binomial(marks, mark_drop) are drops (forced, so they leave the queue)."""
        if self.bernoulli:
            gens = step.draws.generators(site.MARK_DROP)  # each scenario's own stream
            marks = np.rint(D - self.forced).astype(np.int64)
            self.forced = self.forced + [g.binomial(m, p) for g, m, p in zip(gens, marks, self.mark_drop, strict=True)]
        return super().mark_early(D, step)


# The engine of each queue spec (the most derived registered class of a spec wins).
ENGINES = {spec.DropTail: _DropTail, spec.RandomDrop: _RandomDrop, spec.RED: _REDState, spec.CHOKe: _CHOKe,
           spec.FPQ: _FPQState}
ENGINES[spec.CHOKeI] = _KamraCHOKe
ENGINES[spec.REDI] = _REDIState


def make_queue(scenarios, draws, ecn=False):
    """Return the engine state of a batch of scenarios with same-kind queues.

    Parameters
    ----------
    scenarios : list of Scenario
        The batch; every queue spec must be of one kind.
    draws : Draws
        The scenarios' random streams.
    ecn : bool
        The batch's senders speak ECN.

    Returns
    -------
    object
        State with ``decide(step)`` and ``served(arr, load, q)`` (see ``_FIFO``).
    """
    kind = type(scenarios[0].queue)
    if any(type(s.queue) is not kind for s in scenarios):
        raise ValueError("queue: a batch must use one queue discipline")
    for cls in kind.__mro__:
        if cls in ENGINES:
            return ENGINES[cls](scenarios, draws, ecn)
    raise ValueError(f"queue: no engine for {kind.__name__}")
