"""The ACK ring: the ACKs due at each future step, per flow, and the receivers' delayed ACKs."""

import math

import numpy as np

from .flows import at_flows, numbers

__all__ = ["AckRing", "DELAYED_ACK_TIMEOUT"]

# The receiver's delayed-ACK timer [s]: RFC 1122 allows up to 0.5 s; 200 ms is
# BSD's and Linux's typical value and ns-3's default (DelAckTimeout).
DELAYED_ACK_TIMEOUT = 0.2
# RFC 2018 3: a TCP header's 40 bytes of options hold at most 4 SACK blocks (3 beside timestamps).
MAX_SACK_BLOCKS = 4
_NONE, _ONE = (np.array(count, dtype=np.uint8) for count in (0, 1))  # (``lone_rows``' counts: see flows.numbers)
_F64 = numbers(np.float64)
# From this many slots ``_add`` scatters with np.add.at, and from this many flows ``_refill`` tests for refills
# left by their maximum: a batch's forms; below, a lone scenario's cheaper calls.
_MANY, _MANY_FLOWS = 1000, 10_000


def _blocks(holes):
    """The SACK blocks of an ACK with ``holes`` covered holes above it: one each, at most MAX_SACK_BLOCKS."""
    return np.clip(np.ceil(holes), 0.0, MAX_SACK_BLOCKS).astype(np.uint8)


def _part(spread, j):
    """The spreads (None, one float, or one per flow) of the flows at places ``j``."""
    return spread if spread is None or type(spread) is float else spread[j]


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
    hold_steps : float or ndarray
        The receivers' delayed-ACK timer [steps]: one for all flows, or one per flow.
    sack : ndarray of bool, optional
        Which flows' receivers report SACK blocks that someone reads (see
        ``blocks``); None: nobody reads them.
    """

    def __init__(self, length, flows, real, delayed=None, hold_steps=0.0, sack=None):
        self.L, self.N = length, flows
        self.c = numbers(real)
        self.flat = np.zeros(length * flows, dtype=real)
        self.rows2 = self.flat.reshape(length, flows)
        self.until = np.zeros(flows, dtype=np.int64)  # the step of each flow's last ACK in the ring
        # Where the ring's row for `d` steps ahead of step k begins: rows[k % L + d]
        # (a slice per step instead of a modulo per packet; three laps for _spread).
        self.rows = np.tile(np.arange(length) * flows, 3)
        self.boundaries = {}  # _shares' row boundaries for each width
        self.k = 0
        delayed = np.zeros(flows, dtype=bool) if delayed is None else np.asarray(delayed, dtype=bool)
        # None: every receiver delays its ACKs, or none does (a multiplication saved per step).
        self.delaying = bool(delayed.any())
        self.delayed = None if delayed.all() or not self.delaying else delayed.astype(float)
        self.hold_steps = at_flows(hold_steps)  # (read at flows: [j])
        self.held = np.zeros(flows, dtype=real)  # a packet the receiver has not ACKed yet (0 or 1)
        # The step the held packet's timer ACK reaches the sender (set where a
        # packet comes to be held; it matters only while one is).
        self.held_due = np.full(flows, -1, dtype=np.int64)
        self.held_timer = np.zeros(flows)  # the same, unrounded [steps]
        # The receiver's holes: packets of the flow lost and not yet repaired (see ``lost``).
        self.holes = np.zeros(flows, dtype=real)
        # The first ``covered`` holes lie below data the receiver got: a retransmission that fills one of them
        # advances past that data (the holes are filled from the first; see ``_at_once``).
        self.covered = np.zeros(flows, dtype=real)
        self.filled = None  # flows whose last hole a retransmission filled this step
        # (flows, counts): the ACKs that went alone (the timer's, a refill's) reaching them this step, or None.
        self.lone = None
        # A restart's retransmissions still to fill the receiver's covered holes, each ACKed
        # at once and alone (``_refill``).
        self.refills = np.zeros(flows, dtype=real)
        self.refilling = False  # (any still to be sent)
        # (Refills are >= 0: their maximum is positive iff any is left, and in a batch this SIMD reduction
        # costs an eighth of counting them; on a lone scenario's few the count's call costs less.)
        self._most = np.count_nonzero if flows < _MANY_FLOWS else np.maximum.reduce
        # Beside the ring: how many of its ACKs went alone, one packet each (the timer's, of held packets a
        # later one timed out; a restart's refills).
        self.lone_rows = np.zeros((length, flows), dtype=np.uint8)
        self.ahead = None  # flows whose first hole opened this step behind all of the step's packets
        # The SACK blocks (RFC 2018) of the ACKs due at each future step, per flow, and of those taken at
        # this one (``blocks``); holes are followed for them where no receiver delays its ACKs.
        self.sack = None if sack is None or not np.any(sack) else np.asarray(sack, dtype=bool)
        self.sack_rows = None if self.sack is None else np.zeros((length, flows), dtype=np.uint8)
        self.blocks = None if self.sack is None else np.zeros(flows, dtype=np.uint8)
        self.sack_all = self.sack is not None and bool(self.sack.all())
        self.tracking = self.delaying or self.sack is not None
        self._sacked = None  # (places in the step's senders, their blocks) of ACKs sent above holes
        self._among = np.zeros(flows, dtype=bool)  # (``_member``'s scratch, all False between calls)
        self._ones = np.ones(flows)  # (``take``'s count of one for each timer's ACK: a slice, not a new array)

    def take(self, k):
        """The row of ACKs due at step ``k`` (the caller empties it once used)."""
        self.k = k
        self.filled = self.ahead = self.lone = None
        row = self.rows2[k % self.L]
        if self.sack_rows is not None:
            due = self.sack_rows[k % self.L]
            self.blocks[:] = due
            due[:] = 0
        if self.delaying:
            # Receivers whose timer fires: no packet came to take the held one's ACK along.
            fired = (self.held_due == k).nonzero()[0]
            fired = fired[self.held[fired] > self.c.zero]  # (a due step outlives the packet its flow paired since)
            if fired.size:
                row[fired] += self.c.one
                self.held[fired] = self.c.zero
            lone = self.lone_rows[k % self.L]
            timed = (lone != _NONE).nonzero()[0]  # (a mask's nonzero: 10x faster than a uint8 or float array's)
            counts = 1.0
            if timed.size:
                counts = np.concatenate((self._ones[:fired.size], lone[timed]))
                lone[timed] = _NONE
                fired = np.concatenate((fired, timed))
            if fired.size:
                self.lone = (fired, counts)
        return row

    def insert(self, sending, packets, propagation, queueing, u, spread=None, asked=None):
        """Schedule the ACKs of ``packets`` of flows ``sending`` ``propagation + queueing`` steps ahead.

        A step's packets leave the bottleneck spread over the step, so their
        ACKs come back spread over the two steps around the exact delay
        [steps], in proportion (rounded stochastically to whole packets): the
        ACK clock keeps its spacing however coarse the step.  (Sending a flow's
        whole step to one of the two at random, as a coarse step would, makes
        the arrivals of few flows lurch from step to step, so the queue drains
        and the link idles where TCP keeps it busy.)  Where a step brings
        more survivors than it serves, ``spread`` (per flow, >= 1) is their
        service time [steps]: in FIFO order the k-th of them leaves at
        (queue before + k) / capacity, the last one step after ``queueing``
        (the queue at the step's end), so their ACKs are spread evenly over
        the ``spread`` steps before that (see ``_spread``), not bunched into
        one.  Returns the step a packet sent now comes back, rounded
        stochastically (for loss detection), for the flows at places
        ``asked`` of ``sending`` (None: every one); ``u`` holds a uniform on
        [0, 1) per sending flow for the rounding.
        """
        delay = propagation + queueing
        ahead = delay.astype(np.int64)
        late = delay - ahead  # the share of the ACKs due one step later
        if self.delaying:
            packets = self._delay_acks(sending, packets, delay, u)
        elif self.tracking:
            self._at_once(sending, packets)
        k = self.k
        if self._sacked is not None:
            self._schedule_blocks(sending, ahead, late, spread)
        # A lone scenario's spread holds for all of its flows: their rows' shares once, for the return steps
        # asked for and for the ring.
        shares = self._shares(ahead, late, spread) if type(spread) is float else None
        if asked is not None and not asked.size:
            back = asked
        else:
            at = slice(None) if asked is None else asked
            if shares is None:
                back = self._back(ahead[at], late[at], u[at], _part(spread, at)) + k
            else:
                back = self._spread_back(shares[0][at], shares[1][at], u[at]) + k
        # With delayed ACKs most of a heavy step's senders bring an odd packet
        # or none and hold its ACK: only the others have ACKs to schedule.
        # (Taking them out costs five gathers, which a few idle flows do not repay.)
        j = (packets != self.c.zero).nonzero()[0]
        if j.size < 0.8 * packets.size:
            sending, packets, ahead, u, spread = sending[j], packets[j], ahead[j], u[j], _part(spread, j)
            late, shares = (late[j], None) if shares is None else (None, (shares[0][j], shares[1][j]))
        self.until[sending] = np.maximum(self.until[sending], ahead + (k + 1))
        if spread is None:
            self._split(sending, packets, ahead, late, u)
        elif shares is not None:
            self._spread(sending, packets, *shares, u)
        else:
            # A batch: the flows of scenarios that did not burst take the cheaper
            # two-step split (the same rows, to the bit).
            wide = spread > 1.0
            j = (~wide).nonzero()[0]
            self._split(sending[j], packets[j], ahead[j], late[j], u[j])
            j = wide.nonzero()[0]
            if j.size:
                self._spread(sending[j], packets[j], *self._shares(ahead[j], late[j], spread[j]), u[j])
        return back

    def _schedule_blocks(self, sending, ahead, late, spread):
        """The SACK blocks of the ACKs sent above holes this step, in the rows those ACKs reach (a row's most)."""
        at, covered = self._sacked
        self._sacked = None
        if not self.sack_all:
            keep = self.sack[sending[at]]
            at, covered = at[keep], covered[keep]
            if not at.size:
                return
        j = sending[at]
        blocks = _blocks(covered)
        first = ahead[at]
        last = first + (late[at] > 0.0)  # (with ``late`` 0 every ACK comes ``ahead``)
        if spread is not None:  # (spread over the steps before, as ``_spread`` lays them; never before the next)
            last = first + 1
            earlier = np.minimum(np.floor(late[at] + 1.0 - _part(spread, at)), 0.0).astype(np.int64)
            first = np.maximum(first + earlier, 1)
        for d in range(int((last - first).max()) + 1):
            row = (self.k + np.minimum(first + d, last)) % self.L
            self.sack_rows[row, j] = np.maximum(self.sack_rows[row, j], blocks)

    def _back(self, ahead, late, u, spread):
        """Steps ahead to the row that the ACK of a packet at the draw ``u``'s place among its flow's falls in.

        (``spread`` None or one per flow; a lone scenario's one float goes to ``_spread_back`` directly.)
        """
        back = ahead + (u < late)
        if spread is not None:
            wide = (spread > 1.0).nonzero()[0]  # (a batch's other flows are split: no spread rows for them)
            if wide.size:
                back[wide] = self._spread_back(*self._shares(ahead[wide], late[wide], spread[wide]), u[wide])
        return back

    def _spread_back(self, first, after, u):
        """``_back`` for flows whose ACKs are spread over more than a step: from their ``_shares``."""
        return first + np.add.reduce(after > u[:, None], axis=1)  # (the ufunc: sum's wrapper costs more here)

    def _split(self, sending, packets, ahead, late, u):
        """ACKs split between ``ahead`` and ``ahead + 1`` steps, ``late`` of them later."""
        at = self.k % self.L
        later = np.floor(packets * late + u)
        self._add(self.rows[at:at + self.L][ahead] + sending, packets - later)
        self._add(self.rows[at + 1:at + 1 + self.L][ahead] + sending, later)

    def _add(self, slots, acks):
        """Add ``acks`` (whole numbers) to the ring's distinct ``slots``.

        (Many: np.add.at, one pass, where ``+=`` on a fancy index gathers, adds
        and scatters, 1.5-3x faster on a batch's thousands; on the ring's own
        dtype, as its fast loop asks, where the counts are exact.  Few, as a
        lone scenario's: ``+=``, whose call costs less.)
        """
        if slots.size < _MANY:
            self.flat[slots] += acks
        else:
            np.add.at(self.flat, slots, acks.astype(self.flat.dtype, copy=False))

    def _shares(self, ahead, late, spread):
        """Where ACKs spread over ``spread`` steps ending at ``ahead + late + 1`` begin, and their shares.

        Returns the first row (steps ahead) and, per flow and row boundary
        from there, the share of the ACKs after it (see ``_spread``).
        """
        shift = np.floor(late + 1.0 - spread).astype(np.int64)  # (<= 0: the first row's place from ``ahead``)
        first = ahead + shift
        width = math.ceil(spread if type(spread) is float else spread.max()) + 1  # rows touched, at most
        if width not in self.boundaries:  # (numpy calls are what a step of few flows costs)
            self.boundaries[width] = np.arange(width - 1.0)
        after = (late - shift)[:, None] - self.boundaries[width]
        np.maximum(np.divide(after, spread if type(spread) is float else spread[:, None], out=after), 0.0, out=after)
        return first, after

    def _spread(self, sending, packets, first, after, u):
        """ACKs spread evenly over the ``spread`` steps that end at ``ahead + late + 1`` (``_shares``: first, after).

        Row ``first + j`` (first = floor of the start) gets the packets
        between the boundaries j and j + 1: of the ACKs, the share after
        boundary j >= 1 is ``(ahead + late + 1 - first - j) / spread`` (< 1,
        as the boundary lies past the start; clipped at 0), rounded
        stochastically with the one draw ``u`` per flow, so the rows add up to
        ``packets``.  With ``spread`` 1 this is the two-step split of
        ``insert``, to the bit.  (``_back``: the row a packet at the draw's
        place comes back in.)
        """
        at = self.k % self.L + first
        # Row by row: the ACKs after each boundary, and the row's share the
        # difference from the previous boundary's, every flow's, zeros included
        # (half the cost of gathering the non-zero shares: fd67706).  (`rows`
        # holds three laps of the ring, so a flow's rows stay distinct slots.)
        before = packets
        for r in range(after.shape[1] + 1):
            if r < after.shape[1]:
                beyond = np.multiply(packets, after[:, r])
                beyond += u
                np.floor(beyond, out=beyond)
            else:
                beyond = 0.0
            self._add(self.rows[at + r] + sending, before - beyond)
            before = beyond

    def lost(self, j, packets):
        """Flows ``j`` lost ``packets`` at the bottleneck: holes at their receivers.

        RFC 5681 4.2 (and ns-3's TcpSocketBase::ReceivedData, ns-2's
        DelAckSink): a receiver ACKs at once every packet that arrives above
        a hole, and the one that fills it.  Approximated at the step's
        resolution, from counts: the hole opens for the whole step of the
        drop (its survivors before the lost packet are ACKed at once too,
        unless the sender places the lost packet behind all of them:
        ``first_lost``), and a hole closes when a retransmission reaches the bottleneck
        (``repaired``), whichever packet it was for.  A dropped retransmission
        counts as a loss and as a repair, so its hole stays.
        """
        if self.tracking:
            self.holes[j] += packets

    def first_lost(self, j, dropped, behind):
        """Flows ``j`` lost ``dropped`` packets this step (after ``lost``), ``behind`` of its survivors after the first.

        Where those drops opened the flow's first hole (its holes are this
        step's) and nothing of the step came after it, the receiver saw the
        step's packets in order and nothing above the hole: it delays their
        ACKs as usual, and holds its odd packet, until a packet arrives above
        the hole.  (Without this, a flow whose only packet of the step was
        lost would have its held ACK sent at the drop, a step at which its
        receiver got nothing.)
        """
        if self.tracking:
            self.ahead = j[(behind == _F64.zero) & (self.holes[j] == dropped)]

    def repaired(self, j, packets):
        """Retransmissions of flows ``j`` (``packets`` each) reach the bottleneck: they fill holes."""
        if not (self.tracking and len(j)):
            return
        before = self.holes[j] > 0.0
        left = np.maximum(self.holes[j] - packets, 0.0)
        self.holes[j] = left
        self.covered[j] = np.maximum(self.covered[j] - packets, 0.0)  # (the first holes are filled first)
        self.filled = j[before & (left == 0.0)]

    def _at_once(self, sending, packets, delay=None, u=None):
        """Which of flows ``sending`` have their step's ``packets`` ACKed at once: a hole open, filled or refilled.

        Their ACKs sent above a hole carry a SACK block per covered hole
        (noted where ``sack`` asks for them; see ``_schedule_blocks``).
        """
        zero = self.c.zero
        gap = self.holes[sending] > zero
        behind = None if self.ahead is None or not self.ahead.size else self._member(sending, self.ahead)
        free = None if behind is None else ~behind
        # What arrives while a hole is open lies above it, so every hole is covered (but those
        # of a step whose first hole opened behind all of it; this step's other drops are taken
        # as before some of its packets, where the step tells no order).
        above = ((gap if free is None else gap & free) & (packets > zero)).nonzero()[0]
        j = sending[above]
        self.covered[j] = self.holes[j]
        if self.sack is not None and above.size:  # (every covered hole has a packet above it: > 0)
            self._sacked = above, self.covered[j]
        if self.filled is not None and self.filled.size:
            gap |= self._member(sending, self.filled)
        if free is not None:
            gap &= free
        if self.refilling:
            self._refill(sending, packets, delay, u, gap)
        return gap

    def _refill(self, sending, packets, delay, u, gap):
        """Flows ``sending`` restarted after a loss: their first ``refills`` packets fill the receiver's holes.

        RFC 5681 4.2 (ns-3's TcpSocketBase::ReceivedData): a packet that fills
        a gap, below data the receiver holds, is ACKed at once, not held for
        the timer, so each is an ACK of its own and grows the window by a
        whole ACK's (a lone ACK, ``lone_rows``, reaching the sender ``delay``
        steps ahead, rounded stochastically by ``u`` as the ring rounds a lone
        packet).  A step's packets that follow the refills are taken as ACKed
        at once with them.
        """
        r = self.refills[sending]
        i = (r != self.c.zero).nonzero()[0]
        if not i.size:
            return
        gap[i] = True
        r = r[i]
        fill = np.minimum(r, packets[i])
        j = sending[i]
        self.refills[j] = r - fill
        self.refilling = self._most(self.refills) > 0  # (``any`` has a Python wrapper: 3x the cost)
        slot = ((delay[i] + u[i]).astype(np.int64) + self.k) % self.L
        self.lone_rows[slot, j] = np.minimum(self.lone_rows[slot, j] + fill, 255.0)  # (uint8: 255 at most)
        if self.sack is not None:  # (each refill's ACK: a block per covered hole above it, the first's the most)
            blocks = _blocks(np.where(self.sack[j], r - 1.0, 0.0))
            self.sack_rows[slot, j] = np.maximum(self.sack_rows[slot, j], blocks)

    def _member(self, sending, j):
        """Which of flows ``sending`` are among flows ``j``: np.isin's answer, at a tenth of its cost."""
        among = self._among
        among[j] = True
        inside = among[sending]
        among[j] = False
        return inside

    def _delay_acks(self, sending, packets, delay, u):
        """Delayed ACKs (RFC 1122 4.2.3.2, RFC 5681 4.2): the receiver ACKs every second packet.

        An odd packet's ACK waits for the next packet, or for the receiver's
        timer (``hold_steps`` after it would have come back, ``delay`` steps
        ahead, rounded stochastically by ``u``; see ``take``), whichever comes
        first: a packet that comes after the timer finds nothing held.  The race
        is run on the unrounded times, so that its outcome does not move with
        the step.  Returns the packets ACKed with this step's.
        """
        c = self.c
        held = self.held[sending]
        # Those that hold one: the timer may have sent its ACK before this step's packets came.  (Where none
        # came, the ACK timed out now goes at the timer's step as it would from ``take``.)  (Masked over all
        # of them: fewer calls than picking out those that hold one first.)
        late = ((held != c.zero) & (self.held_timer[sending] <= delay + self.k)).nonzero()[0]
        if late.size:
            self._time_out_held(sending[late])
            held[late] = c.zero
        total = held + packets
        # The parity of the whole packet count, as fmod(total, 2) gives it, in
        # four in-place passes (fmod costs ten times as much).
        odd = total * c.half
        np.floor(odd, out=odd)
        odd *= c.minus_two
        odd += total
        if self.delayed is not None:
            odd *= self.delayed[sending]
        # (Times the flows not ACKed at once: a pass, where a masked write scans the mask first.)
        odd *= ~self._at_once(sending, packets, delay, u)
        self.held[sending] = odd
        # The timer runs from the held packet's arrival: a step whose packets
        # were all lost brought the receiver nothing to restart it.  (Set only
        # where a packet is now held: no other flow's is read before it is set anew.)
        got = (np.minimum(packets, odd) > c.zero).nonzero()[0]  # (both > 0)
        at = sending[got]
        timer = delay[got] + (self.hold_steps[at] + self.k)
        self.held_timer[at] = timer
        self.held_due[at] = (timer + u[got]).astype(np.int64)
        return total - odd

    def _time_out_held(self, j):
        """Flows ``j``'s held packets time out before their next packets arrive: their ACKs go alone.

        The receiver's timer runs from the held packet's arrival; a packet
        that comes later than the timer (its ACK due back at or after the
        timer's) finds nothing held and is paired anew.  The held packet's
        ACK reaches the sender at its timer's step, ``held_due``, which the
        ring reaches: it is due before the later packet's.
        """
        due = self.held_due[j]
        slot = due % self.L
        self.rows2[slot, j] += self.c.one
        self.lone_rows[slot, j] = np.maximum(self.lone_rows[slot, j], _ONE)  # (one, whatever else went alone there)
        self.until[j] = np.maximum(self.until[j], due + 1)
        self.held[j] = self.c.zero

    def forget(self, j, restart=False, sack=False):
        """Drop every ACK still due to flows ``j`` (a ``restart``: their receivers keep their data).

        After a ``restart`` the receivers' covered holes are refilled
        (``_refill``): with ``sack`` each of them by a retransmission, as a
        sender that keeps its SACK scoreboard across a time-out resends only
        what was lost (RFC 6675 5.1 with Errata 1610, as ns-3's
        TcpTxBuffer::SetSentListLost keeps it); without, go-back-N: the
        first retransmission fills the first hole and the rest follow in
        order.  Either way the holes are then taken as closed.  A hole with
        no data above it (a window's last packets lost) is filled in order:
        its retransmission's ACK is delayed as an in-order packet's is.
        """
        # Only columns with ACKs still due: a scattered write costs L cache misses.
        live = j[self.until[j] > self.k]
        if live.size:
            self.rows2[:, live] = 0.0
            self.lone_rows[:, live] = 0
            if self.sack_rows is not None:
                self.sack_rows[:, live] = 0
        zero = self.c.zero
        if restart and self.delaying:
            refill = self.covered[j] if sack else np.minimum(self.covered[j], self.c.one)
            self.refills[j] = refill
            self.refilling = self.refilling or np.count_nonzero(refill) > 0
        else:
            self.refills[j] = zero
        self.held[j] = self.holes[j] = self.covered[j] = zero

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
