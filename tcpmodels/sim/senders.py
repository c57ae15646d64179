"""TCP senders behind one vectorized interface over index arrays of flows.

A sender holds no per-flow state of its own (that is :class:`.flows.Flows`);
it holds its variant's parameters per flow and the rules that move the
state: window growth on ACKs, the reaction to a detected loss (fast
retransmit or time-out), to a time-out, to an ECN echo, the RTO, and how much
a flow may send.  Every method acts on the flows ``j`` it is given (an index
array), all at once.  A new sender subclasses one of these and overrides
what differs (e.g. ``increase`` and ``reduced`` for HighSpeed TCP).
"""

import functools

import numpy as np

from .. import units
from . import draws as site
from . import scenario as spec
from .flows import IDLE, OPEN, PENDING, RECOVERY, STALLED, at_flows, batch_width, lay_out, numbers

_F64 = numbers(np.float64)  # (for the float64 arrays: times, back-offs, drop counts)
_MAX_BACKOFF = np.array(64.0)  # (the back-off's cap in ``timeout``, as a 0-d array: see flows.numbers)

__all__ = ["Sender", "Tahoe", "Reno", "NewReno", "make_sender"]

# Groups of lost packets a flow that counts duplicate ACKs keeps apart (a
# step's drops of a flow form one): a window of up to 16 such steps.
HOLE_GROUPS = 16


def _shared(values):
    """Per-flow ``values`` as one float where every flow has the same, else as they are."""
    return float(values[0]) if (values == values[0]).all() else values


def halved(flight):
    """The window a congestion signal leaves: RFC 5681 (4), ssthresh = max(FlightSize / 2, 2) [packets]."""
    return np.maximum(flight / 2.0, 2.0)


class Sender:
    """The rules every variant shares: slow start, congestion avoidance, RTO, pacing.

    Parameters
    ----------
    scenarios : list of Scenario
        The batch (same sender kind).
    flows : Flows
        Their flows' state.
    ring : AckRing
        Their ACKs in flight.
    dt : flows.Shared or ndarray
        The engine's step [s]: one for the batch, or one per flow (read at flows: ``dt[j]``).
    spec : sender spec, optional
        The variant's spec (its flags); by default the first scenario's sender.
    """

    # Fast recovery keeps retransmissions apart (to tell whether one was lost).
    tracks_retransmissions = True
    # A second loss in the window needs its own duplicate ACKs.
    one_hole = True
    # Steps each flow's ACKs are held before the sender acts on them (delay control), or None.
    hold = None
    # After a time-out only the lost packets are resent (the SACK scoreboard kept: AckRing.forget).
    keeps_scoreboard = False
    # The flows this sender owns (a boolean per flow), or None for all: one group's
    # sender in a mixed population acts on its own flows only (see ``own`` and Mixed).
    mine = None
    # The flows whose fast recovery is Proportional Rate Reduction (a boolean per
    # flow; NewReno with SACK), or None for none (see ``reduce_proportionally``),
    # and those whose duplicate ACKs count twice as ns-3 3.44's do (1.0 per flow), or None.
    prr = prr_bonus = None
    prr_everywhere = False  # (prr holds for every flow)
    # The flows that count their duplicate ACKs as they return (a boolean per
    # flow), or None for none: see ``NewReno.loss_detected``.
    counts_dupacks = None

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        self.f, self.ring, self.dt = flows, ring, dt
        self.c = numbers(flows.real)  # (for the per-flow packet counts and windows)
        n = flows.n
        col = lambda values: np.repeat(np.asarray(values, dtype=float), n)  # noqa: E731  per-flow copy
        # Each flow's sender parameter (senders differ between groups of a mixed population).
        param = functools.partial(each_flow, scenarios)
        self.iw = param(lambda p: p.initial_window)
        flows.cwnd[:] = self.iw
        self.dupthresh = param(lambda p: p.dupack_threshold)
        self.limited = param(lambda p: 2.0 if p.limited_transmit else 0.0)
        self.min_rto = param(lambda p: p.min_rto)
        self.max_rto = param(lambda p: p.max_rto)
        self.gran = param(lambda p: p.granularity)
        # ``rto``'s bounds: one float each where every flow shares it (a gather saved at each time-out).
        self._rto_bounds = tuple(_shared(x) for x in (self.min_rto, self.gran, self.max_rto))
        # Delayed ACKs: one ACK per two packets, and windows grow per ACK.
        self.ack_gain = param(lambda p: 0.5 if p.delayed_ack else 1.0)
        access = col([units.capacity(s.flow_access_rate, s.packet_size) if np.isfinite(s.flow_access_rate)
                      else np.inf for s in scenarios])
        self.paced = bool(np.isfinite(access).any())
        real = flows.real
        self.access_step = (access * dt[:]).astype(real)
        # A burst may use one step's worth plus one packet of saved-up credit.
        self.token_cap = np.where(np.isfinite(access * dt[:]), self.access_step + 1, np.inf).astype(real)
        self.wmax = flows.max_window.astype(real)
        self.srtt_q = np.zeros(flows.S)  # smoothed queueing delay [s] (RTT minus propagation)
        self.rttvar_q = np.zeros(flows.S)
        # Steps between RTT samples, each scenario's own (its result must not depend on its batch).
        rtt_steps = np.rint(np.array([p[:c].mean() for p, c in zip(flows.prop.reshape(flows.S, flows.n),
                                                                     flows.counts, strict=True)]) / dt[::flows.n])
        self.rtt_steps = np.maximum(rtt_steps, 1.0).astype(np.int64)
        self._every = int(self.rtt_steps[0]) if (self.rtt_steps == self.rtt_steps[0]).all() else None
        N = flows.N
        self._ca, self._inc = np.empty(N, dtype=bool), np.empty(N, dtype=real)
        self._room, self._arr = np.empty(N, dtype=real), np.empty(N, dtype=real)
        self.retx, self.retx_arr = (), None
        # Where congestion events are logged: (flows, time, windows, drops), and losses
        # added to events logged before: (flows, their events' times, None, drops).
        self.events = None
        self._recovering = np.empty(N, dtype=bool)  # (reduce_proportionally's scan)

    @property
    def limited(self):
        """Packets each flow may send beyond its window before fast retransmit (limited transmit, SACK)."""
        return self._limited

    @limited.setter
    def limited(self, value):
        self._limited = value
        self.any_limited = bool(value.any())  # (else ``send`` skips the chain that would add nothing)

    def own(self, mask):
        """The flows where the boolean ``mask`` holds, among this sender's own, as indices (``mask`` is consumed)."""
        if self.mine is not None:
            mask &= self.mine
        return mask.nonzero()[0]

    # ------------------------------------------------------------ ACKs
    def on_acks(self, acks, check):
        """The ACKs of a step are in: free the window and grow it (``acks`` is emptied)."""
        f = self.f
        f.inflight -= acks
        if check:
            assert (f.inflight >= -1e-9).all(), "more ACKs than packets in flight"
        f.acked += acks
        self.increase(acks if self.ring.lone is None else self._acks_counted(acks))
        if f.holes is not None:
            self._retransmit_found(at_flows(self.ring.k * self.dt[:]))
        if self.prr is not None:
            self.reduce_proportionally(acks)
        acks[:] = 0.0

    def _acks_counted(self, acks):
        """The step's ACKs as the windows count them: a packet whose ACK came alone counts as two.

        Windows grow per ACK (RFC 5681 3.1; ns-3's ``IncreaseWindow`` takes one
        ACK at a time), and with delayed ACKs an ACK covers two packets: the
        growth per packet ACKed (``grow``) is half an ACK's.  A held packet
        whose ACK the receiver's timer sent (``AckRing.take``) is one ACK for
        one packet: counted as two packets, it grows the window by a whole ACK's;
        so does each packet of a restart that fills a hole (``AckRing._refill``).
        """
        counted = acks.copy()
        # (A flow with two lone ACKs of the timer in one step, which takes a timer shorter than the step,
        # counts one: the fancy-indexed add of a flow listed twice adds once.)
        j, lone = self.ring.lone
        counted[j] += lone
        return counted

    def increase(self, acks):
        """Grow the windows: slow start +1/2 per packet ACKed; congestion avoidance 1/cwnd of that."""
        f, inc, ca, room = self.f, self._inc, self._ca, self._room
        np.multiply(acks, f.grow, out=inc)
        # (The divisor, cwnd or 1, by arithmetic: a masked copy costs ten plain passes.)
        np.greater_equal(f.cwnd, f.ssthresh, out=ca)
        np.multiply(f.cwnd, ca, out=room)
        np.maximum(room, self.c.one, out=room)
        np.divide(inc, room, out=room)
        f.cwnd += room
        np.minimum(f.cwnd, self.wmax, out=f.cwnd)

    def reduce_proportionally(self, acks):
        """PRR (RFC 6937 3.1): the windows of flows in fast recovery after this step's ``acks``.

        The window is the pipe plus what may be sent now (``sndcnt``).  While
        the pipe exceeds ssthresh, the packets sent since recovery began
        (prr_out) follow those delivered (prr_delivered) in the proportion
        ssthresh / RecoverFS, so the reduced window leaves spread over the
        round trip.  Once the pipe is at or below ssthresh (further losses),
        the conservative reduction bound (PRR-CRB, ns-3 3.44's default) lets
        out no more than was delivered (and at least the step's deliveries,
        RFC 6937 3.1's limit as ns-3 and RFC 9937 floor it), up to ssthresh.
        (ns-3 adds a packet, the slow-start bound, only on an ACK that
        cumulatively covers a retransmission, which here ends the recovery.)
        PRR acts on each ACK: a flow with several ACKs in the step has them
        taken one after another (``_prr_sends``), not as one.
        """
        f, rec = self.f, self._recovering
        np.equal(f.state, RECOVERY, out=rec)
        if np.count_nonzero(f.cwr):  # (an ECN reduction's round trip: PRR too, see _enter_cwr)
            rec |= f.cwr & (f.state <= PENDING)
        if not self.prr_everywhere:
            rec &= self.prr
        j = rec.nonzero()[0]
        if j.size:
            self._prr_window(j, acks[j])

    def _prr_window(self, j, a):
        """PRR's window of flows ``j`` in fast recovery after ``a`` ACKs each (``reduce_proportionally``)."""
        sends = self._prr_sends(j, a)  # (one ACK each: the rule as RFC 6937 writes it)
        several = (a > 1.0).nonzero()[0]
        if several.size:
            # One ACK at a time (RFC 6937: "on every ACK"): what the earlier ones let
            # out is in the pipe and in prr_out when the later ones come.  Taken as
            # one, a step's ACKs that drain the pipe below ssthresh at once would
            # fall under the conservative bound where one at a time they do not:
            # measured, 11 % of the recovery steps of 200 drop-tail flows (10 ms,
            # 500 packets) held two ACKs at the default step, 0.4 % at half of it,
            # and PRR let out 0.82 packets per ACK in recovery at the default step
            # against 0.87 at half of it (0.86 and 0.87 one ACK at a time).
            js, aa = j[several], a[several]
            sent = self._prr_sends(js, 1.0, 0.0, aa - 1.0)
            for i in range(1, int(np.ceil(aa.max()))):
                data = np.minimum(np.maximum(aa - i, 0.0), 1.0)  # (0 for flows whose ACKs are all taken)
                sent = sent + self._prr_sends(js, data, sent, np.maximum(aa - 1.0 - i, 0.0)) * (data > 0.0)
            sends[several] = sent
        self._pipe_window(j, sends)

    def _pipe_window(self, j, sends):
        """PRR's window of flows ``j``: the pipe plus ``sends`` (sndcnt), at least 1, at most the flow's cap."""
        f = self.f
        # (np.minimum and np.maximum: np.clip's wrapper costs several times more on these small arrays)
        f.cwnd[j] = np.minimum(np.maximum(f.inflight[j] + sends, 1.0), f.max_window[j])

    def _window_to_ssthresh(self, j):
        """A PRR reduction ends (fast recovery, or an ECN echo's round trip): the window is ssthresh (ns-3)."""
        f = self.f
        f.cwnd[j] = np.minimum(f.ssthresh[j], f.max_window[j])

    def _prr_sends(self, j, data, sent=None, later=None):
        """PRR's sndcnt (at least 0) on one ACK of flows ``j`` that delivers ``data`` packets (DeliveredData).

        ``sent``: what the step's earlier ACKs let out already; ``later``: the
        packets the step's ACKs after this one deliver (None: none).
        """
        f = self.f
        delivered = f.acked[j] - f.prr_acked0[j]
        out = f.sent[j] - f.prr_sent0[j]
        pipe, ssthresh = f.inflight[j], f.ssthresh[j]
        if later is not None:
            delivered = delivered - later
            out = out + sent
            pipe = pipe + later + sent
        delivered = np.maximum(delivered, 0.0)
        if self.prr_bonus is not None:  # (duplicate ACKs: fast recovery's, not an ECN reduction's)
            bonus = self.prr_bonus[j] * (f.state[j] == RECOVERY)
            delivered += np.minimum(delivered, np.ceil(f.recover_fs[j] / 2)) * bonus
        sndcnt = np.where(pipe > ssthresh, np.ceil(delivered * ssthresh / f.recover_fs[j]) - out,
                          np.minimum(ssthresh - pipe, np.maximum(delivered - out, data)))
        return np.maximum(sndcnt, 0.0)

    def reduced(self, j):
        """The window after a congestion signal: FlightSize / 2 (the window was full), at least 2."""
        return halved(np.floor(self.f.cwnd[j]))

    def reduced_on_loss(self, j):
        """The window after a fast retransmit (RFC 5681: FlightSize / 2, see ``reduced``)."""
        return self.reduced(j)

    def reduced_on_echo(self, j):
        """The window after an ECN echo (RFC 3168 6.1.2: cwnd halved, see ``reduced``)."""
        return self.reduced(j)

    # ------------------------------------------------------------ ECN
    def on_marks(self, j, now, counts=None):
        """Flows ``j`` had packets marked (``counts`` each): the first one's echo comes back one RTT later."""
        f, now = self.f, at_flows(now)
        echo = now[j] + f.prop[j] + f.qdelay(j)
        f.t_ece[j] = np.minimum(f.t_ece[j], echo)

    def on_echoes(self, nearest, now):
        """Echoes due by ``nearest`` reduce the window once per round trip, without retransmission (RFC 3168 6.1.2)."""
        f, nearest, now = self.f, at_flows(nearest), at_flows(now)
        echoed = self.own(f.t_ece < nearest[:])
        if echoed.size:
            f.t_ece[echoed] = np.inf
            # Flows already repairing a loss have reduced anyway.
            j = echoed[(f.state[echoed] <= PENDING) & (f.t_cwr[echoed] <= now[echoed])]
            f.ssthresh[j] = self.reduced_on_echo(j)
            self._enter_cwr(j)
            f.t_cwr[j] = now[j] + f.prop[j] + f.qdelay(j)
            # The reduction is a congestion response like fast recovery's (RFC 3168
            # 6.1.2): the window does not grow until the data sent before it is
            # ACKed, one round trip (Linux's and ns-3's CWR state).
            f.grow[j] = 0.0
            f.cwr[j] = True
        thawed = self.own(f.cwr & (f.t_cwr <= now[:]))
        if thawed.size:
            f.cwr[thawed] = False
            j = thawed[f.state[thawed] <= PENDING]  # (recovery and time-outs restore growth themselves)
            f.grow[j] = self.ack_gain[j]
            if self.prr is not None:  # (as fast recovery's end: ns-3's CWR exit)
                self._window_to_ssthresh(j[self.prr[j]])

    def _enter_cwr(self, j):
        """Flows ``j`` reduce on an ECN echo (ssthresh set): at once, or with PRR over the round trip.

        RFC 3168 6.1.2 reduces cwnd; a sender whose fast recovery is PRR
        reduces by PRR in the CWR state too (ns-3 3.44's EnterCwr hands the
        reduction to its recovery, as Linux's tcp_enter_cwr does): RecoverFS
        is the flight before the echoing ACK, and the window falls with the
        ACKs, not at once (measured: ns-3 3.44, ECN RED 20/300/0.1, 80 flows,
        30 Mbit/s, 100 ms, seed 1: 0.929 busy with its PRR, 0.955 with classic
        recovery, which cuts at once; marks 0.0094 and 0.0079 of the arrivals).
        ns-3 3.44's entry counts the echoing ACK's packets and one more as
        delivered and lets at least one packet out (``prr_bonus``).
        """
        f = self.f
        prr = np.zeros(j.size, dtype=bool) if self.prr is None else self.prr[j]
        cut = j[~prr]
        f.cwnd[cut] = np.minimum(f.ssthresh[cut], f.cwnd[cut])
        j = j[prr]
        if not j.size:
            return
        covered = 1.0 / self.ack_gain[j]  # the packets the echoing ACK delivered
        f.recover_fs[j] = np.maximum(f.inflight[j] + covered, 1.0)
        ns3 = 0.0 if self.prr_bonus is None else self.prr_bonus[j]
        f.prr_acked0[j] = f.acked[j] - (covered + 1.0) * ns3
        f.prr_sent0[j] = f.sent[j]
        sends = self._prr_sends(j, 0.0)
        self._pipe_window(j, np.maximum(sends, ns3))

    # ------------------------------------------------------------ sending
    def open(self, j):
        """Flows ``j`` may send and grow."""
        f, c = self.f, self.c
        f.state[j] = OPEN
        f.can_send[j] = c.one
        f.grow[j] = self.ack_gain[j]
        f.t_next[j] = _F64.inf
        f.edge[j] = c.inf

    def _window_room(self, j, out=None):
        """What the windows of flows ``j`` let out now [packets] (negative: over the window), into ``out``."""
        f = self.f
        room = np.floor(f.cwnd[j], out=out)
        if f.target is not None:  # finite transfers: no more than the data not yet ACKed
            np.minimum(room, f.target[j] - f.acked[j], out=room)
        room -= f.inflight[j]
        room *= f.can_send[j]
        if f.edged:
            np.minimum(room, f.edge[j] - f.sent[j], out=room)
        return room

    def _hold_edge(self, j):
        """A hole opened at flows ``j``'s ``sent_mark``: the receiver's window stops new data a window beyond it.

        The sender may send up to SND.UNA + RCV.WND (RFC 9293 3.8.6), and
        SND.UNA stays at the hole until its retransmission is ACKed: a flow
        whose flight fills the receiver's window (``max_window``) sends no new
        data in fast recovery, however much PRR or the halved window allow,
        and at its end sends the window it was held to at once (ns-3: a 64 KB
        window's exit sends a burst of half of it).  Set only where the window
        exceeds half the cap: the recovery's new data (half a window) cannot
        reach the edge of a smaller one.
        """
        f = self.f
        near = j[f.cwnd[j] > self.c.half * self.wmax[j]]
        if near.size:
            f.edge[near] = f.sent_mark[near] + self.wmax[near] - self.c.one
            f.edged = True  # (on the flows, which a mixed population's senders share)

    def _let_out(self, j, packets):
        """Flows ``j`` send ``packets`` new packets each now, beside ``send``'s (onto the access link, in flight)."""
        f = self.f
        f.backlog[j] += packets
        f.sent[j] += packets
        f.inflight[j] += packets

    def decide_on_dupacks(self, deciding, now):
        """The flows of ``deciding`` that count their duplicate ACKs decide now, before sending; returns the others.

        They decide at the step their duplicate ACKs come (``NewReno.loss_detected``),
        so that what fast retransmit lets out, the retransmission and what PRR
        lets out for the step's later duplicate ACKs, leaves in that step, as
        ns-3 sends it on those ACKs.  (Deciding after the step's sending held
        those packets back a step and sent them with the next step's: a burst
        into a buffer that a lone fast flow keeps full.)  The others decide
        after sending and after the ring insert (``loss_detected``).
        """
        if deciding is None or self.counts_dupacks is None:
            return deciding
        counting = self.counts_dupacks[deciding]
        c = deciding[counting]
        if c.size:
            self.loss_detected(c, now, self._window_room(c))
        return deciding[~counting]

    def send(self, deciding):
        """Whatever the windows allow goes onto the access links; returns what reaches the bottleneck."""
        f, arr, c = self.f, self._arr, self.c
        room = self._window_room(slice(None), self._room)
        if deciding is not None and deciding.size:
            # Only ACKs of packets sent before the loss open the window: up to
            # cwnd - 1 packets may follow the lost one, plus, with limited
            # transmit (RFC 3042), one new packet on each of the first two
            # duplicate ACKs: one surviving packet after the loss starts that
            # chain (each new packet brings the next duplicate ACK), counted
            # here at once rather than over the extra round trips it takes.
            j = deciding
            after = f.sent[j] - f.sent_mark[j]
            base = np.maximum(np.minimum(room[j], np.floor(f.cwnd[j]) - c.one - after), c.zero)
            if self.any_limited:
                chain = after - (f.dropped[j] - f.drop_mark[j] - 1.0) >= 1.0
                base += self.limited[j] * chain  # RFC 3042 lets these exceed cwnd, not the receiver's window
                if f.edged:
                    np.minimum(base, np.maximum(f.edge[j] - f.sent[j], 0.0), out=base)
            room[j] = base
        np.maximum(room, c.zero, out=room)
        f.inflight += room
        f.sent += room
        if self.paced:
            f.backlog += room
            f.tokens += self.access_step
            np.minimum(f.tokens, self.token_cap, out=f.tokens)
            np.floor(f.tokens, out=arr)
            np.minimum(arr, f.backlog, out=arr)
            f.tokens -= arr
            f.backlog -= arr
        else:  # everything goes at once
            np.add(f.backlog, room, out=arr)
            f.backlog[:] = 0.0
        # Retransmissions lead the access queue; only fast recovery needs to know
        # whether one was dropped (elsewhere a lost packet is just a new loss).
        self.retx = (f.retx_pending > 0.0).nonzero()[0] if self.tracks_retransmissions else ()
        if len(self.retx):
            self.retx_arr = np.minimum(arr[self.retx], f.retx_pending[self.retx])
            f.retx_pending[self.retx] -= self.retx_arr
        return arr

    # ------------------------------------------------------------ losses
    def on_drops(self, j, dj, arr, draws):
        """Flows ``j`` lost ``dj`` of their ``arr`` packets at the bottleneck; returns those a loss event starts for."""
        f = self.f
        arr[j] -= dj
        f.dropped[j] += dj
        st = f.state[j]
        r = (st == RECOVERY).nonzero()[0]
        # The lost packets that are not retransmissions (read where retransmissions are lost or holes kept).
        holes = dj.astype(float) if r.size or f.holes is not None else None
        if r.size:
            # A dropped retransmission can only be repaired by the timer.
            jr = j[r]
            hit = self._retransmission_lost(jr, dj[r], arr[jr] + dj[r], draws)
            f.retx_lost[jr] |= hit
            holes[r] -= hit
            f.carried[jr] += holes[r]
        o = st == OPEN
        placed = o if f.holes is None else o | ((st <= RECOVERY) & self.counts_dupacks[j])
        i = placed.nonzero()[0]
        if not i.size:
            return j[o]
        jp, djp = j[i], dj[i]
        # Packets sent after the first lost one: everything behind it on the
        # access link, the step's survivors that came later, the other drops.
        # (the first of d drops sits at a Beta(1, d) fraction of the step's packets;
        # exact for one drop: uniform on 0 .. a-1 survivors after it).
        lead = draws.flow_uniform(site.LEAD, jp)
        multi = (djp > _F64.one).nonzero()[0]  # (a power only where it is not the identity)
        if multi.size:
            lead[multi] **= 1 / djp[multi]
        behind = np.floor((arr[jp] + self.c.one) * lead)  # the step's survivors after it
        self.ring.first_lost(jp, djp, behind)
        after = f.backlog[jp] + behind + djp
        first = slice(None) if f.holes is None else o[i]  # (without holes, only a flow in OPEN is placed)
        jo = jp[first]
        f.state[jo] = PENDING
        f.drop_mark[jo] = f.dropped[jo] - djp[first]
        f.sent_mark[jo] = f.sent[jo] - after[first] + _F64.one
        self._hold_edge(jo)
        if self.counts_dupacks is not None:  # (only they read it: the others skip the cost)
            # In flight ahead of the lost packet: ACKed before its turn.
            f.ack_mark[jo] = f.acked[jo] + f.inflight[jo] - after[first]
            f.t_dupack[jo] = np.inf
        if f.holes is not None:
            holes[o] -= 1.0  # (the first lost packet of an event is its ack_mark)
            c = (self.counts_dupacks[jp] & (holes[i] > 0)).nonzero()[0]
            jc = jp[c]
            self._add_holes(jc, f.inflight[jc] - after[c] - self._unfound(jc, st[i[c]]), holes[i[c]])
        return self._watch_dupacks(jo)

    def _watch_dupacks(self, j):
        """Flows ``j`` that count their duplicate ACKs look for them from the next step on; returns the others.

        They decide at the step their threshold-th duplicate ACK comes,
        whichever step the ring brings it in (``NewReno.loss_detected``); the
        others decide when the lost packet's ACK would have come back.
        """
        if self.counts_dupacks is None:
            return j
        counting = self.counts_dupacks[j]
        self.f.t_next[j[counting]] = (self.ring.k + 1) * self.dt[j[counting]]
        return j[~counting]

    def _retransmission_lost(self, j, dj, a, draws):
        """Whether the ``dj`` drops of flows ``j`` in fast recovery, of their ``a`` arrivals, hit its retransmission."""
        f = self.f
        if len(self.retx):
            ra = np.zeros(f.N)
            ra[self.retx] = self.retx_arr
            ra = ra[j]
        else:
            ra = np.zeros(j.size)
        p_retx = np.minimum(1.0, dj * ra / np.maximum(a, 1.0))
        return draws.flow_uniform(site.RETX, j) < p_retx

    # ------------------------------------------------------------ holes (senders that count duplicate ACKs)
    def _add_holes(self, j, ahead, count):
        """Flows ``j`` lost ``count`` packets each (one group) after their event's first.

        The group's place in the ACK stream (see ``Flows.track_holes``): what
        is ACKed now and the ``ahead`` packets in flight before the group
        that will be ACKed.  A flow whose list is full adds the group to its
        last one.
        """
        f = self.f
        slots = f.hole_at.shape[1]
        last = np.minimum(np.isfinite(f.hole_at[j]).sum(axis=1), slots - 1)
        at = f.acked[j] + ahead
        f.hole_at[j, last] = np.minimum(f.hole_at[j, last], at)
        f.hole_n[j, last] += count
        f.holes[j] += count

    def _unfound(self, j, state):
        """Lost packets of flows ``j`` (in ``state``) in flight, not yet found: not ACKed ahead of a later loss."""
        return self.f.holes[j] + (state == PENDING)  # (a pending event's first is not found yet)

    def _found_lost(self, j):
        """Which groups of lost packets of flows ``j`` are found lost, and how many packets per flow.

        RFC 6675 IsLost, as ns-3's scoreboard marks it (TcpTxBuffer::
        UpdateLostCount): a hole is lost once ``dupack_threshold`` packets
        sent after it are SACKed, i.e. ACKed here.
        """
        f = self.f
        ready = (f.acked[j] - self.dupthresh[j])[:, None] >= f.hole_at[j]
        return ready, (f.hole_n[j] * ready).sum(axis=1)

    def _take_found(self, j, retransmitted):
        """Remove the groups found lost from flows ``j``'s lists; how many packets per flow.

        They are retransmitted with ``retransmitted`` more packets (the
        event's first, at fast retransmit): those are ACKed too, but were
        sent after the groups left, each of which needs as many more ACKs to
        be found.
        """
        ready, found = self._found_lost(j)
        self._shift_holes(j, ready, found + retransmitted)
        return found

    def _shift_holes(self, j, gone, later):
        """Flows ``j`` drop the groups where ``gone`` holds (per flow and group); the others' places move ``later``.

        The groups left are put in their order in the ACK stream: they need
        not have been listed in it (two queued packets removed in one step,
        CHOKe's or random drop's, are placed where each was).
        """
        f = self.f
        at = np.where(gone, np.inf, f.hole_at[j])
        # Each row's order as flat places (np.take_along_axis's wrapper costs more than the work).
        order = np.argsort(at, axis=1, kind="stable")
        order += np.arange(0, at.size, at.shape[1])[:, None]
        at = at.take(order)
        f.hole_n[j] = np.where(np.isinf(at), 0.0, f.hole_n[j].take(order))
        f.hole_at[j] = at + later[:, None]
        f.holes[j] = f.hole_n[j].sum(axis=1)

    def _next_event_holes(self, j):
        """Flows ``j`` (with holes left after recovery) start a loss event at their first: its place is the ack_mark."""
        f = self.f
        self._shift_holes(j, np.zeros(f.hole_at[j].shape, dtype=bool), np.zeros(j.size))  # (in stream order)
        f.ack_mark[j] = f.hole_at[j, 0]
        f.hole_n[j, 0] -= 1.0
        self._shift_holes(j, f.hole_n[j] <= 0.0, np.zeros(j.size))

    def _retransmit_found(self, now):
        """Flows in fast recovery retransmit the holes found lost since it began (RFC 6675 NextSeg rule 1).

        Recovery ends once the cumulative ACK covers its recovery point: a
        round trip after the last hole below it is retransmitted.  Holes
        in data sent during recovery are repaired in it without extending it.
        """
        f = self.f
        j = ((f.holes > 0) & (f.state == RECOVERY)).nonzero()[0]
        if not j.size:
            return
        ready, found = self._found_lost(j)
        some = found > 0
        # Only lists that change: those with holes found, and those out of stream order (see _shift_holes).
        at = f.hole_at[j]
        moved = some | (at[:, 1:] < at[:, :-1]).any(axis=1)
        if moved.any():
            self._shift_holes(j[moved], ready[moved], found[moved])
        j, found = j[some], found[some]
        f.backlog[j] += found
        f.sent[j] += found
        f.edge[j] += found
        f.retx_pending[j] += found
        below = np.minimum(found, f.holes_below[j])
        f.holes_below[j] -= below
        jb = j[below > 0]
        f.t_next[jb] = now[jb] + f.prop[jb] + f.qdelay(jb)
        f.t_partial[jb] = np.inf

    def _forget_holes(self, j):
        """Flows ``j`` write their lost packets off (a restart sends everything again)."""
        f = self.f
        if f.holes is not None:
            f.hole_at[j] = np.inf
            f.hole_n[j] = f.holes[j] = f.holes_below[j] = 0.0

    def _dupacks_beyond(self, j):
        """Duplicate ACKs beyond the ``dupack_threshold``-th [packets].

        All of the deciding step: the decision comes at the first step past the threshold.
        """
        f = self.f
        return np.maximum(f.acked[j] - f.ack_mark[j] - self.dupthresh[j], 0.0)

    def on_queued_loss(self, i, slot, arriving, behind):
        """Flow ``i`` lost a queued packet whose ACK was due in ring slot ``slot``.

        ``arriving`` of its packets reached the queue this step, ``behind`` of
        its queued ones follow the victim.  Without a slot the victim was sent
        before a time-out or restart wrote it off: the sender never notices.
        """
        f = self.f
        if slot is None:
            f.unseen_drops[i] += 1.0
            self._added_to_event(np.array([i]), np.ones(1))
            return
        f.dropped[i] += 1.0
        self.ring.lost(i, 1.0)
        # Sent after it: its packets queued behind it, the step's, the access link's.
        after = f.backlog[i] + arriving + behind
        place = f.acked[i] + f.inflight[i] - after - 1.0  # (where its ACK would have come, losses ahead included)
        first = self._lost_ahead_of_first(i, slot, after, place)
        if not first and f.holes is not None and self.counts_dupacks[i] and PENDING <= f.state[i] <= RECOVERY:
            ji = np.array([i])
            self._add_holes(ji, f.inflight[ji] - after - 1.0 - self._unfound(ji, f.state[ji]), 1.0)
        if f.state[i] == OPEN:
            f.state[i] = PENDING
            f.drop_mark[i] = f.dropped[i] - 1.0
            f.sent_mark[i] = f.sent[i] - after
            if self.counts_dupacks is not None:
                f.ack_mark[i] = place
                f.t_dupack[i] = np.inf
            if self._watch_dupacks(np.array([i])).size:  # (else watched from the next step)
                f.t_next[i] = self._due(i, slot)
        elif f.state[i] == RECOVERY:
            f.carried[i] += 1.0

    def _due(self, i, slot):
        """When the ACK of flow ``i`` due in ring slot ``slot`` comes [s]."""
        k = self.ring.k
        return ((slot - k) % self.ring.L + k) * self.dt[i]

    def _lost_ahead_of_first(self, i, slot, after, place):
        """Whether flow ``i``'s lost queued packet, sent before its pending event's first loss, became that first.

        The packet has ``after`` packets sent behind it, and its ACK was due at
        ``place`` in the ACK stream (losses ahead of it included).  A head
        drop (CoDel) or an eviction (random drop, CHOKe) can take a packet
        that was sent earlier than the one lost first but is lost after it.
        The earlier one is now the event's first: the duplicate ACKs count from
        its place and the decision comes at its ACK's time (the later one, one
        place earlier now that the victim brings no ACK, is a hole behind it).
        Not where the ACKs in flight place the victim behind the first after
        all (the step's counts are approximate).
        """
        f = self.f
        if f.state[i] != PENDING or f.sent[i] - after >= f.sent_mark[i]:
            return False
        counts = self.counts_dupacks is not None and self.counts_dupacks[i]
        if counts and place >= f.ack_mark[i]:
            return False
        earlier = f.sent_mark[i] - (f.sent[i] - after)
        f.sent_mark[i] -= earlier
        f.edge[i] -= earlier  # (a receiver's window held at the hole moves with it: _hold_edge)
        if not counts:
            f.t_next[i] = min(f.t_next[i], self._due(i, slot))
            return True
        f.hole_at[i] -= 1.0  # (every hole lies behind the victim)
        self._add_holes(np.array([i]), np.array([f.ack_mark[i] - 1.0 - f.acked[i]]), 1.0)
        f.ack_mark[i] = place
        return True

    def loss_detected(self, j, now, room=None):
        """The duplicate ACKs are in: fast retransmit if enough packets sent after the first lost one survived.

        (``room``: what the windows of flows that count their duplicate ACKs let out this step; see NewReno's.)
        """
        now = at_flows(now)  # (one number, or one per flow: see flows.Shared)
        f = self.f
        lost = f.dropped[j] - f.drop_mark[j]
        delivered_after = (f.sent[j] - f.sent_mark[j]) - (lost - self.c.one)
        fr = delivered_after >= self.dupthresh[j]
        if self.one_hole:  # (a mixed population runs this per group, each with its own flag)
            fr &= lost <= self.c.one  # a second loss in the window: a time-out
        self._begin_events(j, now, lost)
        to = j[~fr]
        if to.size:
            self.timeout(to, now[to], now)
        j, lost = j[fr], lost[fr]
        if j.size:
            half = self.reduced_on_loss(j)
            f.ssthresh[j] = half
            self.fast_retransmit(j, lost, half, now)

    def fast_retransmit(self, j, lost, half, now):
        """Fast recovery: lost packets leave the flight, their retransmissions go first, the window halves."""
        f, now = self.f, at_flows(now)
        f.cwnd[j] = np.minimum(half, f.max_window[j])
        f.backlog[j] += lost
        f.sent[j] += lost
        f.edge[j] += lost  # (retransmissions lie below the receiver's window edge)
        f.retx_pending[j] = lost
        f.retx_lost[j] = False
        f.carried[j] = 0.0
        f.drop_mark[j] = f.dropped[j]  # (the event's losses are logged: count those of its recovery)
        f.state[j] = RECOVERY
        f.grow[j] = 0.0
        rtt = f.prop[j] + f.qdelay(j)
        f.t_next[j] = now[j] + self.recovery_rounds(lost) * rtt
        self._race_the_timer(j, now[j] + rtt)

    def _race_the_timer(self, j, first_ack):
        """Flows ``j`` in fast recovery whose retransmission timer fires before its first ACK comes (at ``first_ack``).

        RFC 6298 5.1: a retransmission does not restart a running timer, and
        the last new ACK armed it (``_timer_base``).  Where the duplicate ACKs
        took round trips to come (a window of a few packets lets one new packet
        out per duplicate ACK), the fast retransmission's ACK can come back
        after the timer fires: the sender times out then, within its recovery
        (ns-3 3.44's RTO in CA_RECOVERY).  Those flows end their recovery at
        the timer's time instead (``recovery_ends``); a partial ACK restarts
        the timer, so only the first ACK races it.
        """
        f = self.f
        deadline = self._timer_base(j) + self.rto(j)
        first = deadline < first_ack
        f.timer_first[j] = first
        f.t_next[j[first]] = deadline[first]

    def _timer_base(self, j):
        """When the retransmission timer of flows ``j`` in fast recovery was last armed [s].

        At the last new ACK (RFC 6298 5.3; ns-3's NewAck restarts it, a
        retransmission does not): for flows that count their duplicate ACKs
        that is the first duplicate ACK's time, before the fast retransmit
        that the others detect a loss at.
        """
        f = self.f
        if self.counts_dupacks is None:
            return f.t_event[j]
        return np.where(self.counts_dupacks[j], f.t_dupack[j], f.t_event[j])

    def recovery_rounds(self, lost):
        """Round trips fast recovery takes to repair ``lost`` packets."""
        return 1.0

    def recovery_ends(self, j, now):
        """Fast recovery of flows ``j`` is over: a lost retransmission waits for the timer, new losses start anew.

        Where the timer fired first (``_race_the_timer``), the flow times out now.
        """
        now = at_flows(now)
        f = self.f
        bad = f.retx_lost[j] | f.timer_first[j]
        if bad.any():
            jb = j[bad]
            base = self._timer_base(jb)  # (before the new event's time replaces the fast retransmit's)
            lost, drops = f.retx_lost[jb], f.dropped[jb] - f.drop_mark[jb]
            # A lost retransmission: an event of its own, the time-out reacts to every loss since.  The timer
            # first: the time-out is the fast retransmit's event's second reaction, to its losses.
            self._begin_events(jb[lost], now, drops[lost])
            self._added_to_event(jb[~lost], drops[~lost])
            self.timeout(jb, base, now)
        j = j[~bad]
        counting = self.counts_dupacks is not None  # (its lost packets are placed: ``_add_holes``)
        left = f.holes[j] if counting else f.carried[j]
        self._added_to_event(j, f.dropped[j] - f.drop_mark[j] - left)
        more = left > 0
        jm = j[more]
        if jm.size:  # new data lost during recovery: a fresh loss event
            f.state[jm] = PENDING
            f.drop_mark[jm] = f.dropped[jm] - left[more]
            f.sent_mark[jm] = f.sent[jm] - f.inflight[jm]
            self._hold_edge(jm)
            f.grow[jm] = self.ack_gain[jm]
            if counting:  # its duplicate ACKs are counted from the first hole's place on
                self._next_event_holes(jm)
                f.t_dupack[jm] = np.inf
                f.t_next[jm] = now[jm] + self.dt[jm]
            else:
                f.t_next[jm] = now[jm] + f.prop[jm] + f.qdelay(jm)
        jo = j[~more]
        f.state[jo] = OPEN
        f.grow[jo] = self.ack_gain[jo]
        f.t_next[jo] = np.inf
        f.edge[jo] = np.inf  # (the cumulative ACK is past every hole)

    def _begin_events(self, j, now, lost):
        """Flows ``j`` react to their ``lost`` packets now: a congestion event each (one window reduction)."""
        self.f.t_event[j] = now[j]
        if self.events is not None:
            self.events.append((j, now[j], self.f.cwnd[j], lost))

    def _added_to_event(self, j, drops):
        """Flows ``j`` lost ``drops`` more packets that their last congestion event's reduction covers.

        No window reduction of their own reacts to them, so they are added to
        the event that began at ``t_event``: losses that fast recovery
        repaired (those left for the next event, or a time-out, go there),
        those while a time-out was pending (its go-back-N resends them), and
        queued packets removed after a time-out or restart wrote them off.
        """
        if self.events is None:
            return
        i = (drops != self.c.zero).nonzero()[0]
        if i.size:
            self.events.append((j[i], self.f.t_event[j[i]], None, drops[i]))

    # ------------------------------------------------------------ time-outs
    def rto(self, j):
        """RFC 6298's retransmission time-out of flows ``j``, backed off [s]."""
        f = self.f
        low, gran, high = (x if type(x) is float else x[j] for x in self._rto_bounds)
        srtt = f.prop[j] + f.of_scenario(self.srtt_q, j)
        rto = np.maximum(low, srtt + np.maximum(gran, 4.0 * f.of_scenario(self.rttvar_q, j)))
        if f.target is not None:
            # A new connection keeps the initial RTO until its first ACK (RFC 6298 2.1; finite transfers).
            rto = np.where(f.acked[j] > f.conn_acked[j], rto, f.conn_rto[j])
        return np.minimum(rto * f.backoff[j], high)

    def update_rtt(self, qdelay, k):
        """RTT estimator (RFC 6298 gains) on the queueing delay all flows share: a sample every ``rtt_steps``."""
        if self._every is not None:  # one interval for the batch (a Python test per step)
            if k % self._every:
                return
            gain = 1.0
        else:
            gain = k % self.rtt_steps == 0
        err = qdelay - self.srtt_q
        self.srtt_q += (err / 8) * gain
        self.rttvar_q += ((np.abs(err) - self.rttvar_q) / 4) * gain

    def timeout(self, j, base, now):
        """Flows ``j`` stall until their retransmission timer, armed at ``base``, fires."""
        now = at_flows(now)
        f, c = self.f, self.c
        # Back off only if nothing was ACKed since the last time-out.
        again = f.acked[j] == f.acked_at_rto[j]
        f.backoff[j] = np.where(again, np.minimum(f.backoff[j] * _F64.two, _MAX_BACKOFF), _F64.one)
        f.t_next[j] = np.maximum(base + self.rto(j), now[j] + self.dt[j])
        # FlightSize / 2: the full window, or the lone retransmission on a back-off.
        f.ssthresh[j] = np.where(again, c.two, self.reduced(j))
        f.state[j] = STALLED
        f.drop_mark[j] = f.dropped[j]  # (the event's losses are logged: those while the timer runs are added)
        f.can_send[j] = c.zero
        f.grow[j] = c.zero
        np.add(f.stalled, f.per_scenario(j), out=f.stalled)

    def timer_fired(self, j):
        """The retransmission timers of flows ``j`` fired: they go back to N from one window."""
        f = self.f
        if self.events is not None:  # (else nothing is logged: no losses to count)
            self._added_to_event(j, f.dropped[j] - f.drop_mark[j])
        f.acked_at_rto[j] = f.acked[j]
        self.restart(j, self.iw[j])

    def new_connection(self, j):
        """Flows ``j`` close their connection and wait, idle, to open the next in slow start (finite transfers)."""
        f = self.f
        self.ring.forget(j)
        self._forget_holes(j)
        f.inflight[j] = f.backlog[j] = f.retx_pending[j] = f.carried[j] = 0.0
        f.retx_lost[j] = False
        f.cwnd[j] = self.iw[j]
        f.ssthresh[j] = self.wmax[j]
        f.backoff[j] = 1.0
        f.acked_at_rto[j] = -1.0
        f.t_ece[j] = np.inf
        f.t_cwr[j] = 0.0
        f.cwr[j] = False
        f.state[j] = IDLE
        f.can_send[j] = f.grow[j] = 0.0

    def restart(self, j, window):
        """Go-back-N from ``window``: what is in flight is written off, the retransmission leaves at once."""
        f = self.f
        # A Tahoe without go-back-N gets here from a fast retransmit only with one
        # hole in the window: the retransmission's ACK then covers everything in
        # flight, and the duplicate ACKs before it open nothing.
        self.ring.forget(j, restart=True, sack=self.keeps_scoreboard)
        self._forget_holes(j)
        f.cwnd[j] = window
        f.backlog[j] += self.c.one
        f.sent[j] += self.c.one
        f.inflight[j] = f.backlog[j]
        self.open(j)


class Tahoe(Sender):
    """Tahoe: slow start from one packet after every fast retransmit."""

    tracks_retransmissions = False

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt)
        # RFC 2001 Tahoe repairs one hole per fast retransmit; go-back-N all of them.
        self.one_hole = not (spec or scenarios[0].sender).go_back_n

    def fast_retransmit(self, j, lost, half, now):
        """Tahoe's fast retransmit restarts from one packet."""
        self.restart(j, 1.0)


class Reno(Sender):
    """Reno: fast recovery halves the window; one hole per window."""


class NewReno(Sender):
    """NewReno: fast recovery repairs every loss of the window, one per round trip (all in one with SACK)."""

    one_hole = False

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt)
        spec = spec or scenarios[0].sender
        self.sack = spec.sack
        # ns-3 keeps the scoreboard across a time-out; recovery="rfc6675" (the seed papers' ns-2 runs)
        # keeps the engine's go-back-N.
        self.keeps_scoreboard = spec.sack and spec.recovery != "rfc6675"
        if self.sack and spec.recovery != "rfc6675":
            if spec.recovery != "classic-ns3.44":  # (classic: the pipe below ssthresh, RFC 6675's rule)
                self.prr, self.prr_everywhere = np.ones(flows.N, dtype=bool), True
                # ns-3 3.44 counts a duplicate ACK's packet twice (SACKed and +1) until prr_delivered reaches RecoverFS.
                self.prr_bonus = np.ones(flows.N) if spec.recovery == "prr-ns3.44" else None
            # Fast retransmit at the third duplicate ACK as they return (loss_detected);
            # recovery="rfc6675" keeps the engine before PRR bit for bit, deciding
            # when the lost packet's ACK was due (the seed papers' ns-2 runs use it).
            self.counts_dupacks = np.ones(flows.N, dtype=bool)
            flows.track_holes(HOLE_GROUPS)
        self.echo_after_ack = spec.recovery in ("prr-ns3.44", "classic-ns3.44")
        if self.sack:
            # RFC 6675 5 (3): before fast retransmit a SACKed packet leaves the
            # pipe and lets a new one go, so one packet surviving the loss starts
            # a chain of duplicate ACKs up to the threshold, as limited transmit
            # does (without it, windows below dupthresh + 1 would time out).
            self.limited = np.maximum(self.limited, self.dupthresh - 1)

    def loss_detected(self, j, now, room=None):
        """Fast retransmit at the ``dupack_threshold``-th duplicate ACK, counted as they return.

        Called every step from the loss on (``_watch_dupacks``), before sending
        (``decide_on_dupacks``).  From the step the ACKs reach the lost
        packet's place (``ack_mark``; that step's ACKs were taken before it and
        still grew the window), every ACK is a duplicate: it carries no
        growth, and the SACKed packet leaves the pipe so that a new one goes
        out (RFC 6675 5): ``room``, what the windows let out this step.  The
        flow retransmits at the step its ``dupack_threshold``-th duplicate ACK
        comes, after the new packets of the duplicate ACKs before it (in ns-3
        the retransmission takes the threshold-th's place), and PRR lets out
        what the step's later ones allow (``fast_retransmit``); it times out if
        no packet that could bring one is in flight or leaving now, or at its
        timer (armed at the last new ACK).
        """
        now = at_flows(now)
        if self.counts_dupacks is None:
            return super().loss_detected(j, now)
        f = self.f
        dupacks = f.acked[j] - f.ack_mark[j]
        lost = f.dropped[j] - f.drop_mark[j]
        # The ACK stream has reached the lost packet: the last new ACK is in, the timer runs from it.
        first = (dupacks >= 0.0) & np.isinf(f.t_dupack[j])
        f.t_dupack[j[first]] = now[j[first]]
        f.grow[j[first]] = 0.0
        beyond = dupacks - self.dupthresh[j]
        ready = beyond >= 0
        starved = f.inflight[j] + np.maximum(room, 0.0) - lost < 0.5  # nothing left to bring one
        dead = starved | (now[j] + 0.5 * self.dt[j] >= f.t_dupack[j] + self.rto(j))
        waiting = j[~(ready | dead)]
        f.t_next[waiting] = now[waiting] + self.dt[waiting]  # the next step's ACKs
        done = ready | dead
        self._begin_events(j[done], now, lost[done])
        to = j[dead & ~ready]
        if to.size:
            # The timer runs from the last new ACK: the first duplicate's time, or now where the flow starved
            # before the ACK stream reached its first loss (a packet sent before that one and lost after it, as
            # CoDel's head drops and random drop's evictions take them: the duplicates never come).
            self.timeout(to, np.minimum(f.t_dupack[to], now[to]), now)
        j, lost, early = j[ready], lost[ready], np.maximum(room[ready] - beyond[ready] - 1.0, 0.0)
        if j.size:
            self._let_out(j, early)
            half = self.reduced_on_loss(j)
            f.ssthresh[j] = half
            self.fast_retransmit(j, lost, half, now)

    def pipe_at_threshold(self, j):
        """The pipe at the ``dupack_threshold``-th duplicate ACK [packets].

        In flight now, less the first lost packet, marked lost, and the
        packets found lost (RFC 6675 pipe, ns-3's BytesInFlight: lost packets
        not yet found stay in it), plus the SACKed packets of the duplicate
        ACKs beyond it, which were still in the pipe then (the step's ACKs
        are taken before the decision).
        """
        return self.f.inflight[j] - 1 - self._found_lost(j)[1] + self._dupacks_beyond(j)

    def recovery_rounds(self, lost):
        """One round trip per hole without SACK, one for all with it."""
        return 1.0 if self.sack else lost

    def fast_retransmit(self, j, lost, half, now):
        """Fast recovery; with PRR (RFC 6937 3) its counters start and the window is the pipe.

        As ns-3 enters recovery at the third duplicate ACK, with the head
        marked lost and the three SACKed packets out of the pipe: RecoverFS is
        that pipe, and prr_delivered counts from the third duplicate ACK on.
        The duplicate ACKs are in (``loss_detected`` counts them), and the
        third let a new packet out already: RecoverFS is the pipe at the third
        (``pipe_at_threshold``), prr_delivered and prr_out count from it
        (prr_out with the retransmissions, which leave first).
        """
        f = self.f
        if self.prr is not None:
            beyond = self._dupacks_beyond(j)
            f.recover_fs[j] = np.maximum(self.pipe_at_threshold(j), 1.0)
            # From the threshold-th duplicate ACK on: what was delivered; what was sent (the retransmissions).
            f.prr_acked0[j] = f.acked[j] - beyond - 1
            f.prr_sent0[j] = f.sent[j]
        if self.counts_dupacks is not None:
            # Only the holes found lost are retransmitted; the others below the
            # recovery point wait for packets sent after them to be ACKed.
            lost = 1.0 + self._take_found(j, 1.0)
            f.holes_below[j] = f.holes[j]
            f.t_partial[j] = np.inf
        super().fast_retransmit(j, lost, half, now)
        if self.prr is not None:  # the duplicate ACKs after the threshold-th, one after another
            self._prr_window(j, beyond)

    def recovery_ends(self, j, now):
        """Fast recovery ends; with PRR the window becomes ssthresh (ns-3's ExitRecovery).

        Not while a hole below the recovery point is still to be found lost
        (``_partial_ack``).
        """
        now = at_flows(now)
        if self.counts_dupacks is not None:
            j = self._partial_ack(j, now)
        if self.prr is not None:
            self._window_to_ssthresh(j)
        super().recovery_ends(j, now)

    def _partial_ack(self, j, now):
        """Flows ``j`` whose recovery ends; the others got a partial ACK: it stops at a hole not yet found lost.

        ns-3 (TcpSocketBase::ProcessAck, a partial ACK in recovery whose new
        head was not retransmitted: DoRetransmit) then sends the next segment
        NextSeg gives, here a new one, outside PRR's count, and restarts the
        retransmission timer; the hole is retransmitted once found lost
        (``_retransmit_found``), or the timer fires.
        """
        f = self.f
        left = (f.holes_below[j] > 0) & ~(f.retx_lost[j] | f.timer_first[j])
        if not left.any():
            return j
        jl = j[left]
        first = np.isinf(f.t_partial[jl])
        jf = jl[first]
        self._let_out(jf, 1.0)
        f.prr_sent0[jf] += 1.0
        f.t_partial[jf] = now[jf]
        f.t_next[jf] = now[jf] + self.rto(jf)
        fired = jl[~first]
        if fired.size:  # (a time-out within the event: its hole was one of the event's losses)
            self._added_to_event(fired, f.dropped[fired] - f.drop_mark[fired])
            self.timeout(fired, f.t_partial[fired], now)
        return j[~left]

    def reduced_on_loss(self, j):
        """With SACK, half the pipe as fast recovery begins (RFC 6675 4.2 as ns-3 implements it).

        RFC 6675 4.2 sets ssthresh to FlightSize / 2; ns-3's EnterRecovery
        halves its pipe (SetPipe) instead, after the three SACKed packets have
        left it and the lost one is marked lost: with the two packets step (3)
        sent, floor(cwnd) - 2 (with PRR, whose duplicate ACKs are counted as
        they come, the pipe then: ``pipe_at_threshold``).  The packet-level
        references run ns-3.  Without SACK the pipe is not known: FlightSize / 2.
        """
        if not self.sack:
            return self.reduced(j)
        if self.counts_dupacks is not None:  # the duplicate ACKs are in: the pipe is known
            return halved(self.pipe_at_threshold(j))
        return halved(np.floor(self.f.cwnd[j]) - 2.0)

    def reduced_on_echo(self, j):
        """As ns-3 3.44 reduces on an ECN echo: half the flight the echoing ACK leaves (with recovery="*-ns3.44").

        RFC 3168 6.1.2 halves cwnd (``reduced``; Linux's ``tcp_reno_ssthresh``).
        ns-3's TcpSocketBase::ReceivedAck discards the ACKed data first
        (DiscardUpTo, which counts what was delivered) and only then enters CWR,
        whose TcpNewReno::GetSsThresh halves BytesInFlight: a full window less
        the packets that ACK covered, two with delayed ACKs, one without.  (A
        timer's lone ACK covers one; taken as its receiver's usual two.)
        """
        if not self.echo_after_ack:
            return self.reduced(j)
        return halved(np.floor(self.f.cwnd[j]) - 1.0 / self.ack_gain[j])


# The hooks a variant may override, by how a mixed population dispatches them (Mixed).
# On given flows ``j`` (the first argument): each group's sender on its flows of j.
FLOW_HOOKS = ("reduced", "reduced_on_loss", "reduced_on_echo", "on_marks", "open", "loss_detected", "fast_retransmit",
              "recovery_ends", "rto", "timeout", "timer_fired", "new_connection", "restart")
# Over the whole population: each group's sender on its own flows (``Sender.mine``).
POPULATION_HOOKS = ("increase", "on_echoes")
# The mechanics every variant shares (none overrides them): run once, on all flows.
SHARED_HOOKS = ("on_acks", "reduce_proportionally", "decide_on_dupacks", "send", "on_drops", "on_queued_loss",
                "update_rtt")


class Mixed(Sender):
    """A mixed population: each group's flows follow their own sender's rules, whatever the senders.

    One rule, for every sender: a hook on given flows (``FLOW_HOOKS``) is
    split by group, each group's sender acting on its flows; a hook over the
    whole population (``POPULATION_HOOKS``) runs each group's sender on its
    own flows only (``Sender.mine``: the others' ACKs are withheld from it,
    its scans skip them), or once over all flows where every group's sender
    keeps ``Sender``'s (the same result in one pass).  The mechanics no
    variant overrides (``SHARED_HOOKS``) run once; what they keep and the
    groups' senders read (the RTT estimator, the pacing arrays, the ACK
    hold, the congestion-event log) is shared.

    Parameters
    ----------
    scenarios, flows, ring, dt
        As for :class:`Sender`.
    parts : list of Sender
        One sender per variant (spec), each over all flows.
    part_of : ndarray of int
        Each flow's variant (an index into ``parts``).
    """

    def __init__(self, scenarios, flows, ring, dt, parts, part_of):
        super().__init__(scenarios, flows, ring, dt)
        self.parts = parts
        self.part_of = part_of
        for i, part in enumerate(parts):
            part.mine = part_of == i
        # Each flow's sending allowance before fast retransmit is its own variant's (SACK raises it),
        # as is its fast recovery (PRR or not).
        self.limited = _per_flow([p.limited for p in parts], part_of)
        if any(p.prr is not None for p in parts):
            self.prr = _per_flow([np.zeros(flows.N, dtype=bool) if p.prr is None else p.prr for p in parts], part_of)
            self.prr_everywhere = bool(self.prr.all())
        if any(p.counts_dupacks is not None for p in parts):
            self.counts_dupacks = _per_flow([np.zeros(flows.N, dtype=bool) if p.counts_dupacks is None
                                             else p.counts_dupacks for p in parts], part_of)
        if any(p.prr_bonus is not None for p in parts):
            self.prr_bonus = _per_flow([np.zeros(flows.N) if p.prr_bonus is None else p.prr_bonus for p in parts],
                                       part_of)
        self.paced = self.paced or any(p.paced for p in parts)
        held = [p for p in parts if p.hold is not None]
        if held:  # one array of hold steps, each delay-control group writing its own flows'
            self.hold = np.zeros(flows.N)
        for p in parts:
            p.srtt_q, p.rttvar_q = self.srtt_q, self.rttvar_q
            p.access_step, p.token_cap = self.access_step, self.token_cap
            p.events = self.events
            if p.hold is not None:
                p.hold = self.hold
        # Where every group's sender keeps the shared rule, it runs once over all flows.
        self.once = {name: all(getattr(type(p), name) is getattr(Sender, name) for p in parts)
                     for name in POPULATION_HOOKS}

    @property
    def events(self):
        """Where congestion events are logged (shared with the groups' senders), or None."""
        return self._events

    @events.setter
    def events(self, log):
        self._events = log
        for p in getattr(self, "parts", ()):
            p.events = log

    def increase(self, acks):
        """Each group's sender grows its own flows' windows (the others' ACKs withheld from it)."""
        if self.once["increase"]:
            return super().increase(acks)
        for part in self.parts:
            part.increase(np.where(part.mine, acks, 0.0))

    def on_echoes(self, nearest, now):
        """Each group's sender takes the echoes (and quiet round trips) of its own flows."""
        if self.once["on_echoes"]:
            return super().on_echoes(nearest, now)
        for part in self.parts:
            part.on_echoes(nearest, now)

    def _by_group(self, name, j, args):
        """Hook ``name`` of each group's sender on its flows of ``j`` (arguments per flow of j split alike)."""
        if not j.size:
            return getattr(self.parts[0], name)(j, *args)
        out = None
        group = self.part_of[j]
        for i, part in enumerate(self.parts):
            mine = group == i
            if not mine.any():
                continue
            sub = [a[mine] if isinstance(a, np.ndarray) and a.shape == j.shape else a for a in args]
            result = getattr(part, name)(j[mine], *sub)
            if result is not None:
                if out is None:
                    out = np.empty(j.size, dtype=np.asarray(result).dtype)
                out[mine] = result
        return out


def each_flow(scenarios, value):
    """``value(sender spec)`` for every flow of a batch of ``scenarios``, one float array (``Scenario.per_flow``)."""
    return lay_out([s.per_flow(value) for s in scenarios], batch_width(scenarios))


def _per_flow(arrays, part_of):
    """Each flow's value from its own group's array (``part_of``: each flow's group)."""
    return np.stack(arrays)[part_of, np.arange(part_of.size)]


def _flow_hook(name):
    def hook(self, j, *args):
        return self._by_group(name, j, args)
    hook.__name__ = hook.__qualname__ = name
    hook.__doc__ = f"Each group's sender's ``{name}`` on its flows of ``j`` (see ``Sender.{name}``)."
    return hook


for _name in FLOW_HOOKS:
    setattr(Mixed, _name, _flow_hook(_name))


ENGINES = {spec.Tahoe: Tahoe, spec.Reno: Reno, spec.NewReno: NewReno}


def _engine_of(sender):
    """The engine class of a sender spec (the most derived registered class of it)."""
    for cls in type(sender).__mro__:
        if cls in ENGINES:
            return ENGINES[cls]
    raise ValueError(f"sender: no engine for {type(sender).__name__}")


def make_sender(scenarios, flows, ring, dt):
    """The sender engine of a batch of scenarios with same-kind senders.

    Parameters
    ----------
    scenarios : list of Scenario
        The batch; every sender spec must be of one kind.
    flows : Flows
        Their flows' state.
    ring : AckRing
        Their ACKs in flight.
    dt : flows.Shared or ndarray
        The engine's step [s], one or one per flow (see ``Sender``).

    Returns
    -------
    Sender
        The engine of the spec's kind (the most derived registered class of it).
    """
    # The variants of the groups (a batch shares its group layout: batch_key).
    groups = scenarios[0].groups
    keys = list(dict.fromkeys(p.batch_key() for _, p in groups))
    specs = [next(p for _, p in groups if p.batch_key() == key) for key in keys]
    if len(specs) == 1:
        return _engine_of(specs[0])(scenarios, flows, ring, dt, specs[0])
    parts = [_engine_of(p)(scenarios, flows, ring, dt, p) for p in specs]
    layout = np.repeat([keys.index(p.batch_key()) for _, p in groups], [c for c, _ in groups])
    return Mixed(scenarios, flows, ring, dt, parts, np.tile(layout, len(scenarios)))
