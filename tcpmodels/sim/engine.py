"""The time-stepped engine: all flows of all scenarios of a batch advance together.

Model (one fixed step ``dt``, half the smallest propagation RTT unless chosen):

* Each flow is a window-based, ACK-clocked sender.  Packets it may send
  (``floor(cwnd) - in flight``) enter its access link, which forwards at most
  its rate; they reach the bottleneck in the same step.
* The bottleneck serves ``capacity * dt`` packets per step (fluid FIFO).  The
  queue discipline decides how many of the step's arrivals it drops; the
  drops fall on the arriving packets uniformly at random, so each flow loses
  in proportion to what it sent.
* A surviving packet's ACK returns after its propagation RTT plus the queueing
  delay it met, stored in a ring buffer of future steps (stochastically
  rounded to whole steps, so RTTs are unbiased).  ACKs free the window and,
  with delayed ACKs (one ACK per two packets), grow it by 1/2 per ACKed packet
  in slow start and 1/(2 cwnd) in congestion avoidance.
* A drop puts the flow into "loss pending": one RTT later, when the duplicate
  ACKs would have returned, it fast-retransmits if at least
  ``dupack_threshold`` packets sent after the lost one survived, otherwise it
  stalls until its retransmission timer fires (RFC 6298 RTO with minimum,
  granularity and exponential back-off).  Lost retransmissions also end in a
  time-out.  No closed-form loss, window or time-out law is used.
* Queues: drop-tail and RED drop arrivals; random drop and CHOKe remove
  queued packets too (the flows' shares of the queue are tracked, a victim's
  ACK is taken out of the ring); RED with ECN marks ECN senders' packets
  instead of dropping them early, and the mark halves the window one RTT
  later; FPQ retunes RED as its bit-vector count of the flows moves.
"""

import math

import numpy as np

from .. import metrics, units
from .queues import make_queue
from .result import SimResult
from .scenario import CHOKe, NewReno, RandomDrop, Reno, Scenario, Tahoe, _Sender

__all__ = ["simulate"]

OPEN, PENDING, RECOVERY, STALLED, IDLE = 0, 1, 2, 3, 4
TAHOE, RENO, NEWRENO = 0, 1, 2

# Per-flow state in float32 from this many flows in a batch (see _state_dtype).
FLOAT32_FLOWS = 10_000


def simulate(scenario, seeds=None, *, check=False):
    """Run one scenario, or a batch of scenarios, and return their statistics.

    Parameters
    ----------
    scenario : Scenario or sequence of Scenario
        What to simulate.  A sequence is run as one array computation when its
        members share a shape (flow count, duration, warm-up, step, queue and
        sender kinds, trace settings); otherwise in groups that do.
    seeds : sequence of int, optional
        Run the single `scenario` once per seed (as one batch).
    check : bool
        Verify the invariants every step (packets sent = delivered + dropped +
        queued, queue within [0, buffer], windows within [1, max window], no
        NaN) and raise ``AssertionError`` if one fails.  Slower; for tests.

    Returns
    -------
    SimResult or list of SimResult
        One result for a single scenario, else one per scenario (or seed), in order.

    Notes
    -----
    A batch of at least 10 000 flows keeps its per-flow packet counts and
    windows in float32 (halving the memory traffic that dominates it), where
    counts stay exact and windows small enough for float32 to round their
    increments finely (see ``_state_dtype``); everything else is float64.

    Examples
    --------
    >>> from tcpmodels import sim
    >>> s = sim.Scenario(n_flows=5, bandwidth=1e6, rtt=0.05, queue=sim.DropTail(buffer=20),
    ...                  duration=20.0, warmup=5.0, start_spread=1.0)
    >>> r = sim.simulate(s)
    >>> r.utilization > 0.9, 0 < r.loss_rate < 0.1, r.goodput.shape
    (True, True, (5,))
    >>> sim.simulate(s).loss_rate == r.loss_rate   # deterministic per seed
    True
    """
    if seeds is not None:
        if not isinstance(scenario, Scenario):
            raise ValueError("seeds: give one Scenario with seeds, or a list of Scenarios without")
        scenarios = [_with_seed(scenario, int(s)) for s in seeds]
        return _run_all(scenarios, check)
    if isinstance(scenario, Scenario):
        return _run_all([scenario], check)[0]
    scenarios = list(scenario)
    if not scenarios or not all(isinstance(s, Scenario) for s in scenarios):
        raise ValueError("scenario must be a Scenario or a non-empty sequence of Scenario")
    return _run_all(scenarios, check)


def _with_seed(scenario, seed):
    import dataclasses

    return dataclasses.replace(scenario, seed=seed)


def _shape_key(s):
    return (
        s.n_flows, s.duration, s.warmup, s.step, type(s.queue), getattr(s.queue, "gentle", None),
        getattr(s.queue, "ecn", None), type(s.sender), getattr(s.sender, "sack", None),
        getattr(s.sender, "go_back_n", None), s.sender.ecn,
        s.trace, s.trace_interval, s.trace_flows,
    )


def _run_all(scenarios, check):
    groups = {}
    for i, s in enumerate(scenarios):
        groups.setdefault(_shape_key(s), []).append(i)
    out = [None] * len(scenarios)
    for members in groups.values():
        for i, r in zip(members, _Engine([scenarios[i] for i in members], check).run(), strict=True):
            out[i] = r
    return out


def _state_dtype(flows, max_window, duration, min_rtt):
    """The dtype of the per-flow packet counts and windows of a batch.

    float32 halves the memory traffic of the ~30 passes over all flows a
    step makes, which dominate large batches (measured, 1000-flow standard
    scenarios: 16 of them -5 % time, 64 -14 %, 256 -25 %); on fewer flows
    numpy's per-call cost dominates and mixed-precision calls make it slower
    (one: +8 %).  It is used where it changes nothing that matters:
    * the batch has at least FLOAT32_FLOWS flows;
    * windows stay at or below 256 packets, where float32's spacing (3e-5 at
      most) rounds a congestion-avoidance increment, 1 / (2 cwnd) per ACKed
      packet, by at most 0.8 %, to nearest, so without bias;
    * no flow can send 2^24 packets (float32's exact integers) in the run:
      at most twice (retransmissions) a maximum window per propagation RTT.
    Times, rates and the queue stay float64.
    """
    exact = 2.0 * duration * max_window / min_rtt < 2.0 ** 24
    return np.float32 if flows >= FLOAT32_FLOWS and max_window <= 256 and exact else np.float64


class _Engine:
    """State of a batch of S same-shape scenarios with n flows each (flat, S*n)."""

    def __init__(self, scenarios, check):
        self.sc = scenarios
        self.check = check
        first = scenarios[0]
        S, n = len(scenarios), first.n_flows
        self.S, self.n, self.N = S, n, S * n
        self.dt = dt = first.step
        seeds = [s.seed for s in scenarios]
        self.rng = rng = np.random.default_rng(None if None in seeds else np.random.SeedSequence(seeds))

        col = lambda values: np.repeat(np.asarray(values, dtype=float), n)  # noqa: E731  per-flow copy
        self.capacity = np.array([s.capacity for s in scenarios])
        self.serve = self.capacity * dt  # packets served per step
        self.limit = np.array([float(s.limit) for s in scenarios])
        self.prop = col([s.rtt for s in scenarios]) * (
            1 + col([s.rtt_spread for s in scenarios]) * (rng.random(self.N) - 0.5)
        )
        self.start = col([s.start_spread for s in scenarios]) * rng.random(self.N)
        self.prop_steps = self.prop / dt
        access = col([units.capacity(s.flow_access_rate, s.packet_size) if math.isfinite(s.flow_access_rate)
                      else math.inf for s in scenarios])
        self.paced = bool(np.isfinite(access).any())
        self.access_step = access * dt
        self.link_loss = col([s.link_loss for s in scenarios])
        self.lossy = bool((self.link_loss > 0).any())

        snd = first.sender
        self.variant = NEWRENO if isinstance(snd, NewReno) else RENO if isinstance(snd, Reno) else TAHOE
        assert isinstance(snd, _Sender)
        # A second loss in the window needs its own duplicate ACKs (Reno, RFC 2001 Tahoe).
        self.one_hole = self.variant == RENO or (isinstance(snd, Tahoe) and not snd.go_back_n)
        self.sack = bool(getattr(snd, "sack", False))
        self.max_window = col([s.max_window for s in scenarios])
        self.iw = col([s.sender.initial_window for s in scenarios])
        self.dupthresh = col([s.sender.dupack_threshold for s in scenarios])
        self.limited = col([2.0 if s.sender.limited_transmit else 0.0 for s in scenarios])
        self.min_rto = col([s.sender.min_rto for s in scenarios])
        self.max_rto = col([s.sender.max_rto for s in scenarios])
        self.gran = col([s.sender.granularity for s in scenarios])
        # Delayed ACKs: one ACK per two packets, and windows grow per ACK.
        self.ack_gain = col([0.5 if s.sender.delayed_ack else 1.0 for s in scenarios])

        self.queue = make_queue(scenarios, rng)
        self.random_drop = isinstance(first.queue, RandomDrop)
        self.choke = isinstance(first.queue, CHOKe)
        self.min_th = np.array([getattr(s.queue, "min_th", 0.0) for s in scenarios])
        # RFC 3168: RED marks instead of dropping when both ends speak ECN.
        self.ecn = bool(self.queue.ecn and first.sender.ecn)
        worst_delay = (self.prop.max() + (self.limit / self.capacity).max() + dt) / dt
        self.L = int(math.ceil(worst_delay)) + 3
        self.steps = int(round(first.duration / dt))
        self.measure_from = int(round(first.warmup / dt))
        self.real = _state_dtype(self.N, self.max_window.max(), first.duration, self.prop.min())

    # ------------------------------------------------------------------ run
    def run(self):
        S, n, N, L, dt = self.S, self.n, self.N, self.L, self.dt
        rng = self.rng
        f = np.arange(N)
        scen = f // n
        real = self.real  # the dtype of the per-flow packet counts and windows
        ring = np.zeros(L * N, dtype=real)  # ACKs due at each future step, per flow
        ring2 = ring.reshape(L, N)
        acks_until = np.zeros(N, dtype=np.int64)  # the step of each flow's last ACK in the ring

        cwnd = self.iw.astype(real)
        ssthresh = self.max_window.astype(real)
        inflight = np.zeros(N, dtype=real)
        backlog = np.zeros(N, dtype=real)  # packets waiting on the access link
        tokens = np.ones(N, dtype=real)
        acked = np.zeros(N, dtype=real)  # cumulative ACKed packets (goodput)
        sent = np.zeros(N, dtype=real)  # cumulative packets handed to the access link
        dropped = np.zeros(N, dtype=real)  # cumulative packets of the flow dropped
        grow = np.zeros(N, dtype=real)  # ack_gain while the window may grow, else 0
        can_send = np.zeros(N, dtype=real)
        state = np.full(N, IDLE, dtype=np.int8)
        t_next = self.start.copy()  # next timer of the flow's state machine
        backoff = np.ones(N)
        acked_at_rto = np.full(N, -1.0)
        sent_mark = np.zeros(N, dtype=real)
        drop_mark = np.zeros(N, dtype=real)
        retx_pending = np.zeros(N)
        retx_lost = np.zeros(N, dtype=bool)
        carried = np.zeros(N)
        t_fr = np.zeros(N)

        q = np.zeros(S)
        queued = np.zeros(N)  # per-flow share of the queue (random drop only)
        t_ece = np.full(N, np.inf)  # when a mark's echo reaches the sender (ECN only)
        t_cwr = np.zeros(N)  # no second ECN reduction before this time
        marked = np.zeros(S)
        srtt_q = np.zeros(S)  # smoothed queueing delay [s] (RTT minus propagation)
        rttvar_q = np.zeros(S)
        stalled = np.zeros(S)
        acc = dict(arr=np.zeros(S), drop=np.zeros(S), served=np.zeros(S), qsum=np.zeros(S),
                   wsum=np.zeros(S), stall=np.zeros(S), rto=np.zeros(S))
        tot = dict(arr=np.zeros(S), drop=np.zeros(S), served=np.zeros(S))
        acked_start = None
        sc0 = self.sc[0]
        tracing = sc0.trace
        if tracing:
            every = max(1, int(round(sc0.trace_interval / dt)))
            ntr = min(sc0.trace_flows, n)
            tr_t, tr_q, tr_l, tr_w = [], [], [], []
            tr_a, tr_d = np.zeros(S), np.zeros(S)
            tr_qs = np.zeros(S)

        ca = np.empty(N, dtype=bool)
        inc = np.empty(N, dtype=real)
        room = np.empty(N, dtype=real)
        arr = np.empty(N, dtype=real)
        cap = self.serve
        wmax = self.max_window.astype(real)
        access_step = self.access_step.astype(real)
        # A burst may use one step's worth plus one packet of saved-up credit.
        token_cap = np.where(np.isfinite(self.access_step), access_step + 1, np.inf).astype(real)
        rtt_steps = max(1, int(round(self.prop.mean() / dt)))
        # Where the ring's row for `d` steps ahead of step k begins: rows[k % L + d]
        # (a slice per step instead of a modulo per packet).
        rows = np.tile(np.arange(L) * N, 2)
        edges = np.arange(S + 1) * n  # the scenarios' first flows
        queue = self.queue

        def per_scenario(j):
            # How many of the (sorted) flows j each scenario has: a search, not a
            # gather (and a slice, not np.diff, whose Python wrapper costs more).
            at = j.searchsorted(edges)
            return at[1:] - at[:-1]

        def rto_of(j):
            s = scen[j]
            srtt = self.prop[j] + srtt_q[s]
            rto = np.maximum(self.min_rto[j], srtt + np.maximum(self.gran[j], 4 * rttvar_q[s]))
            return np.minimum(rto * backoff[j], self.max_rto[j])

        def stall(j, base, now):
            # Retransmission timer: back off only if nothing was ACKed since the last time-out.
            again = acked[j] == acked_at_rto[j]
            backoff[j] = np.where(again, np.minimum(backoff[j] * 2, 64.0), 1.0)
            t_next[j] = np.maximum(base + rto_of(j), now + dt)
            # FlightSize / 2: the full window, or the lone retransmission on a back-off.
            ssthresh[j] = np.where(again, 2.0, np.maximum(np.floor(cwnd[j]) / 2, 2.0))
            state[j] = STALLED
            can_send[j] = 0.0
            grow[j] = 0.0
            np.add(stalled, per_scenario(j), out=stalled)

        def restart(j, retransmit):
            # Go-back-N after a time-out (or Tahoe's fast retransmit): what is in
            # flight is written off, the retransmission leaves at once.  (A Tahoe
            # without go-back-N gets here only with one hole in the window: the
            # retransmission's ACK then covers everything in flight, and the
            # duplicate ACKs before it open nothing.)
            # (Only columns with ACKs still due: a scattered write costs L cache misses.)
            live = j[acks_until[j] > k]
            if live.size:
                ring2[:, live] = 0.0
            cwnd[j] = self.iw[j] if retransmit == "rto" else 1.0
            backlog[j] += 1.0
            sent[j] += 1.0
            inflight[j] = backlog[j]
            state[j] = OPEN
            can_send[j] = 1.0
            grow[j] = self.ack_gain[j]
            t_next[j] = np.inf

        def decide(j, now):
            # The duplicate ACKs are in: fast retransmit if enough packets sent
            # after the first lost one survived, else wait for the timer.
            lost = dropped[j] - drop_mark[j]
            delivered_after = (sent[j] - sent_mark[j]) - (lost - 1)
            fr = delivered_after >= self.dupthresh[j]
            if self.one_hole:
                fr &= lost <= 1  # a second loss in the window: a time-out
            to = j[~fr]
            if to.size:
                stall(to, now, now)
            j, lost = j[fr], lost[fr]
            if j.size:
                half = np.maximum(np.floor(cwnd[j]) / 2, 2.0)  # FlightSize / 2: the window was full
                ssthresh[j] = half
                if self.variant == TAHOE:
                    restart(j, "fr")
                else:
                    # Fast recovery: lost packets leave the flight, their
                    # retransmissions go first, the window halves.
                    cwnd[j] = np.minimum(half, self.max_window[j])
                    backlog[j] += lost
                    sent[j] += lost
                    retx_pending[j] = lost
                    retx_lost[j] = False
                    carried[j] = 0.0
                    t_fr[j] = now
                    state[j] = RECOVERY
                    grow[j] = 0.0
                    rounds = 1.0 if (self.sack or self.variant == RENO) else lost
                    t_next[j] = now + rounds * (self.prop[j] + q[scen[j]] / self.capacity[scen[j]])

        def drop_queued(i, frac, k, arriving):
            # Remove one of flow i's queued packets, at fraction `frac` of its share
            # from the head: its ACK (due between now + RTT and now + RTT + queueing
            # delay) leaves the ring and the flow learns of the loss as usual.
            s = scen[i]
            col = ring2[:, i]
            # Only ACK slots of packets still in the queue qualify; none there means
            # the victim is a packet the sender already wrote off (sent before a
            # time-out or Tahoe restart): it goes without the sender noticing.
            first = int(k + self.prop_steps[i])
            width = int(q[s] / self.capacity[s] / dt) + 2
            aim = min(int(frac * width), width - 1)
            window = (first + np.arange(width)) % L
            live = (col[window] > 0).nonzero()[0]
            if not live.size:
                queued[i] = max(queued[i] - 1.0, 0.0)
                return True
            hit = window[live[np.argmin(np.abs(live - aim))]:][:1]
            col[hit[0]] -= 1.0
            queued[i] = max(queued[i] - 1.0, 0.0)
            dropped[i] += 1.0
            if state[i] == OPEN:
                state[i] = PENDING
                drop_mark[i] = dropped[i] - 1.0
                # Sent after it: its packets queued behind it, the step's, the access link's.
                sent_mark[i] = sent[i] - backlog[i] - arriving - np.floor(queued[i] * (1.0 - frac))
                t_next[i] = ((hit[0] - k) % L + k) * dt
            elif state[i] == RECOVERY:
                carried[i] += 1.0
            return True

        def evict(over, arriving, k):
            # Random drop (Morris 2.2.1): each overflowing packet removes a random
            # queued one; the arrivals count as queued.  Victims among this step's
            # arrivals are returned (per scenario) for the usual arrival-drop path.
            share = queued + arriving
            cs = np.cumsum(share)
            ends = cs[n - 1::n]
            starts = ends - share.reshape(S, n).sum(axis=1)
            owner = np.repeat(np.arange(S), over.astype(np.int64))
            pos = starts[owner] + rng.random(owner.size) * (ends - starts)[owner]
            who = np.minimum(np.searchsorted(cs, pos, side="right"), N - 1)
            into = pos - (cs[who] - share[who])  # where in the flow's share the victim sits
            on_arrivals = np.zeros(S)
            for i, x, s in zip(who.tolist(), into.tolist(), owner.tolist(), strict=True):
                if x >= queued[i] or queued[i] < 1.0 or not drop_queued(i, x / queued[i], k, arriving[i]):
                    on_arrivals[s] += 1.0
            return on_arrivals

        for k in range(self.steps):
            now = k * dt
            # A timer fires at the step nearest its time (firing at the next one
            # would lengthen every time-out by half a step on average).
            nearest = now + 0.5 * dt
            measuring = k >= self.measure_from
            if measuring and acked_start is None:
                acked_start = acked.copy()
            slot = k % L
            acks = ring2[slot]
            # --- ACK arrivals: free the window and grow it.
            inflight -= acks
            if self.check:
                assert (inflight >= -1e-9).all(), "more ACKs than packets in flight"
            acked += acks
            np.multiply(acks, grow, out=inc)
            # Slow start: +1/2 per packet ACKed; congestion avoidance: 1/cwnd of that.
            # (The divisor, cwnd or 1, by arithmetic: a masked copy costs ten plain passes.)
            np.greater_equal(cwnd, ssthresh, out=ca)
            np.multiply(cwnd, ca, out=room)
            np.maximum(room, 1.0, out=room)
            np.divide(inc, room, out=room)
            cwnd += room
            np.minimum(cwnd, wmax, out=cwnd)
            acks[:] = 0.0

            if self.ecn:
                echoed = (t_ece < nearest).nonzero()[0]
                if echoed.size:
                    t_ece[echoed] = np.inf
                    # Halve once per round trip, no retransmission (RFC 3168 6.1.2);
                    # flows already repairing a loss have reduced anyway.
                    j = echoed[(state[echoed] <= PENDING) & (t_cwr[echoed] <= now)]
                    ssthresh[j] = np.maximum(np.floor(cwnd[j]) / 2, 2.0)
                    cwnd[j] = np.minimum(ssthresh[j], cwnd[j])
                    t_cwr[j] = now + self.prop[j] + q[scen[j]] / self.capacity[scen[j]]

            # --- timers: flow starts, loss detection, recovery ends, time-outs.
            due = (t_next < nearest).nonzero()[0]
            deciding = None
            if due.size:
                st = state[due]
                j = due[st == IDLE]
                if j.size:
                    state[j] = OPEN
                    can_send[j] = 1.0
                    grow[j] = self.ack_gain[j]
                    t_next[j] = np.inf
                deciding = due[st == PENDING]
                j = due[st == RECOVERY]
                if j.size:
                    bad = retx_lost[j]
                    if bad.any():
                        jb = j[bad]
                        stall(jb, t_fr[jb], now)
                    j = j[~bad]
                    more = carried[j] > 0
                    jm = j[more]
                    if jm.size:  # new data lost during recovery: a fresh loss event
                        state[jm] = PENDING
                        drop_mark[jm] = dropped[jm] - carried[jm]
                        sent_mark[jm] = sent[jm] - inflight[jm]
                        grow[jm] = self.ack_gain[jm]
                        t_next[jm] = now + self.prop[jm] + q[scen[jm]] / self.capacity[scen[jm]]
                    jo = j[~more]
                    state[jo] = OPEN
                    grow[jo] = self.ack_gain[jo]
                    t_next[jo] = np.inf
                j = due[st == STALLED]
                if j.size:
                    fired = per_scenario(j)
                    if measuring:
                        acc["rto"] += fired
                    stalled -= fired
                    acked_at_rto[j] = acked[j]
                    restart(j, "rto")

            # --- sending: whatever the window allows goes onto the access link.
            np.floor(cwnd, out=room)
            room -= inflight
            room *= can_send
            if deciding is not None and deciding.size:
                # Only ACKs of packets sent before the loss open the window: up to
                # cwnd - 1 packets may follow the lost one, plus, with limited
                # transmit (RFC 3042), one new packet on each of the first two
                # duplicate ACKs: one surviving packet after the loss starts that
                # chain (each new packet brings the next duplicate ACK), counted
                # here at once rather than over the extra round trips it takes.
                j = deciding
                after = sent[j] - sent_mark[j]
                chain = after - (dropped[j] - drop_mark[j] - 1) >= 1
                base = np.maximum(np.minimum(room[j], np.floor(cwnd[j]) - 1 - after), 0.0)
                room[j] = base + self.limited[j] * chain  # RFC 3042 lets these exceed cwnd
            np.maximum(room, 0.0, out=room)
            inflight += room
            backlog += room
            sent += room
            if self.paced:
                tokens += access_step
                np.minimum(tokens, token_cap, out=tokens)
                np.floor(tokens, out=arr)
                np.minimum(arr, backlog, out=arr)
                tokens -= arr
            else:
                arr[:] = backlog
            backlog -= arr
            # Retransmissions lead the access queue; only fast recovery needs to know
            # whether one was dropped (elsewhere a lost packet is just a new loss).
            rj = (retx_pending > 0).nonzero()[0] if self.variant != TAHOE else ()
            if len(rj):
                retx_arr = np.minimum(arr[rj], retx_pending[rj])
                retx_pending[rj] -= retx_arr

            # --- bottleneck: link loss, early drops, buffer overflow, service.
            # (x.nonzero()[0], not np.flatnonzero(x): a step makes a few hundred numpy
            # calls, and at one scenario their Python wrappers cost as much as the work;
            # a bool mask is several times faster to scan than floats.)
            sending = (arr > 0).nonzero()[0]
            # Each sender's scenario (`sending` is sorted): cheaper than a gather.
            owner = np.repeat(np.arange(S), per_scenario(sending)) if S > 1 else None
            d = None
            new_loss = None
            if self.lossy:
                d = rng.binomial(arr.astype(np.int64), self.link_loss).astype(float)
            A = arr.reshape(S, n).sum(axis=1)
            queue.observe(arr.reshape(S, n), now, dt)
            idle = np.maximum(cap - q - A, 0.0)
            matched = None
            if self.choke:
                # CHOKe: while RED's average is above min_th, each arrival meets a random
                # queued packet; the same flow's loses both.
                live = np.repeat((np.array(queue.avg) > self.min_th) & (q >= 1.0), n)
                p_match = np.where(live, queued / np.repeat(np.maximum(q, 1.0), n), 0.0)
                offered = arr if d is None else arr - d
                matched = rng.binomial(offered.astype(np.int64), np.minimum(p_match, 1.0)).astype(float)
                from_queue = np.zeros(S)
                for i in matched.nonzero()[0]:
                    for _ in range(int(matched[i])):
                        from_queue[scen[i]] += drop_queued(i, rng.random(), k, offered[i])
                gone = matched.reshape(S, n).sum(axis=1)
                A_red = A - gone if d is None else A - gone - d.reshape(S, n).sum(axis=1)
                D = queue.early_drops(q, A_red, idle, cap, rng)
            else:
                D = queue.early_drops(q, A if d is None else A - d.reshape(S, n).sum(axis=1), idle, cap, rng)
            if self.ecn:
                # Early (spaced) decisions become marks; forced drops stay drops.
                marks = D - queue.forced
                D = queue.forced.copy()
                if marks.any():
                    jm, _ = self._assign(arr if d is None else arr - d, marks, None, sending, owner)
                    echo = now + self.prop[jm] + q[scen[jm]] / self.capacity[scen[jm]]
                    t_ece[jm] = np.minimum(t_ece[jm], echo)
                    marked += marks if measuring else 0.0
            if d is not None:
                D = D + d.reshape(S, n).sum(axis=1)
            if matched is not None:
                D = D + gone + from_queue
            over = np.maximum(np.ceil(q + A - D - cap - self.limit), 0.0)  # overflow (and RED's hard limit)
            D = D + over
            if D.any():
                if self.random_drop and over.any():
                    # Random drop: the overflow falls on queued packets, chosen at random.
                    on_arrivals = evict(over, arr if d is None else arr - d, k)
                    j, dj = self._assign(arr, D - over + on_arrivals, d, sending, owner)
                elif matched is not None:
                    # CHOKe's matched arrivals are the flows' own; the rest fall at random.
                    j, dj = self._assign(arr - matched, D - gone - from_queue, d, sending, owner)
                    hits = np.zeros(N)
                    hits[j] += dj
                    hits += matched
                    j = hits.nonzero()[0]
                    dj = hits[j]
                else:
                    j, dj = self._assign(arr, D, d, sending, owner)
                arr[j] -= dj
                dropped[j] += dj
                st = state[j]
                o = st == OPEN
                jo = j[o]
                if jo.size:
                    djo = dj[o]
                    # Packets sent after the first lost one: everything behind it on the
                    # access link, the step's survivors that came later, the other drops.
                    # (the first of d drops sits at a Beta(1, d) fraction of the step's packets;
                    # exact for one drop: uniform on 0 .. a-1 survivors after it).
                    lead = rng.random(jo.size)
                    multi = (djo > 1).nonzero()[0]  # (a power only where it is not the identity)
                    if multi.size:
                        lead[multi] **= 1 / djo[multi]
                    surv_after = np.floor((arr[jo] + 1) * lead)
                    state[jo] = PENDING
                    drop_mark[jo] = dropped[jo] - djo
                    sent_mark[jo] = sent[jo] - backlog[jo] - surv_after - (djo - 1)
                    new_loss = jo  # its duplicate ACKs return with the lost packet's ACK (set below)
                r = st == RECOVERY
                jr = j[r]
                if jr.size:
                    # A dropped retransmission can only be repaired by the timer.
                    a_before = arr[jr] + dj[r]
                    if len(rj):
                        ra = np.zeros(N)
                        ra[rj] = retx_arr
                        ra = ra[jr]
                    else:
                        ra = np.zeros(jr.size)
                    p_retx = np.minimum(1.0, dj[r] * ra / np.maximum(a_before, 1.0))
                    hit = rng.random(jr.size) < p_retx
                    retx_lost[jr] |= hit
                    carried[jr] += dj[r] - hit
            Dq = D
            load = q + A - Dq
            served = np.minimum(load, cap)
            q = load - served
            if self.random_drop or self.choke:
                # Each flow's share of the queue: FIFO service taken as proportional.
                queued += arr
                queued *= np.repeat(np.where(load > 0, q / np.maximum(load, 1e-300), 0.0), n)

            # --- ACKs of the survivors come back after RTT + queueing delay.
            qd = q / self.capacity
            # Stochastic rounding: a uniform per flow that sent, drawn this step.
            delay = self.prop_steps[sending] + rng.random(sending.size)
            delay += float(qd[0] / dt) if S == 1 else (qd / dt)[owner]
            ahead = delay.astype(np.int64)
            ring[rows[slot:slot + L][ahead] + sending] += arr[sending]
            back = ahead + k
            acks_until[sending] = np.maximum(acks_until[sending], back)
            if new_loss is not None and new_loss.size:
                # Loss noticed when the lost packet's ACK would have come back: the
                # same step the ring gives its step-mates.
                t_next[new_loss] = back[sending.searchsorted(new_loss)] * dt
            if deciding is not None and deciding.size:
                # After the ring insert, so a go-back-N restart also forgets the
                # ACKs of this step's packets (they are duplicates).
                decide(deciding, now)

            if k % rtt_steps == 0:
                # RTT estimator (RFC 6298 gains), one sample per mean propagation RTT,
                # on the queueing delay all flows share.
                err = qd - srtt_q
                srtt_q += err / 8
                rttvar_q += (np.abs(err) - rttvar_q) / 4

            if self.check:
                self._check(q, tot, A, Dq, served, cwnd, inflight, state)
                tot["arr"] += A
                tot["drop"] += Dq
                tot["served"] += served
            if measuring:
                acc["arr"] += A
                acc["drop"] += Dq
                acc["served"] += served
                acc["qsum"] += q
                acc["wsum"] += cwnd.reshape(S, n).sum(axis=1)
                acc["stall"] += stalled
            if tracing:
                tr_a += A
                tr_d += Dq
                tr_qs += q
                if (k + 1) % every == 0:
                    tr_t.append((k + 1) * dt)
                    tr_q.append(tr_qs / every)
                    tr_l.append(np.where(tr_a > 0, tr_d / np.maximum(tr_a, 1), 0.0))
                    tr_w.append(cwnd.reshape(S, n)[:, :ntr].astype(float))
                    tr_a, tr_d, tr_qs = np.zeros(S), np.zeros(S), np.zeros(S)

        steps = self.steps - self.measure_from
        span = steps * dt
        good = (acked - acked_start).astype(float).reshape(S, n) / span
        results = []
        for s in range(S):
            g = good[s]
            jain = metrics.jain_index(g)
            trace = None
            if tracing:
                trace = dict(time=np.array(tr_t), queue=np.array([x[s] for x in tr_q]),
                             loss_rate=np.array([x[s] for x in tr_l]), window=np.array([x[s] for x in tr_w]))
            a = acc["arr"][s]
            results.append(SimResult(
                loss_rate=float((acc["drop"][s] + marked[s]) / a) if a > 0 else 0.0,
                mark_rate=float(marked[s] / a) if a > 0 else 0.0,
                queue=float(acc["qsum"][s] / steps),
                utilization=float(acc["served"][s] / (self.serve[s] * steps)),
                timeouts_per_packet=float(acc["rto"][s] / a) if a > 0 else 0.0,
                timeout_fraction=float(acc["stall"][s] / (steps * n)),
                window=float(acc["wsum"][s] / (steps * n)),
                goodput=g.copy(),
                jain_index=jain,
                rtt=self.prop.reshape(S, n)[s].copy(),
                time_step=dt,
                packets=float(a),
                trace=trace,
            ))
        return results

    def _assign(self, arr, D, link, flows, owner):
        """Spread each scenario's D drops uniformly over the packets that arrived.

        `link` (or None) holds the packets each flow already lost on its
        link, which count among D; `flows` (sorted) includes every flow with
        packets in `arr`, `owner` their scenarios (None for one scenario).
        Returns the flows hit (sorted, unique) and how many packets each lost.
        """
        S = self.S
        avail = arr[flows] if link is None else arr[flows] - link[flows]
        rest = D if link is None else D - np.bincount(flows // self.n, weights=link[flows], minlength=S)
        if S == 1:
            k, m = int(rest[0]), int(avail.sum())
            if k >= m:  # everything that arrived is dropped
                counts = avail.copy()
            elif k > 0:  # a uniform choice without replacement among the step's packets
                pick = self.rng.random(m).argpartition(k - 1)[:k]
                counts = np.bincount(avail.cumsum().searchsorted(pick, side="right"), minlength=flows.size)
            else:
                counts = np.zeros(flows.size)
        elif (rest > 0).any() and avail.any():
            # The same per scenario, all at once: every packet draws a key in
            # [s, s + 1) (s its scenario), and the `rest[s]` smallest keys of
            # scenario s are dropped (all, if it has fewer): those at or below
            # its rest[s]-th smallest, read off the sorted keys.  (A sort of the
            # keys, not an argsort: three times faster.)
            whose = np.repeat(np.arange(flows.size), avail.astype(np.int64))
            s_of = owner[whose]
            key = s_of + self.rng.random(whose.size)
            tot = np.bincount(s_of, minlength=S)
            take = np.minimum(np.ceil(rest), tot)
            ranked = np.sort(key)
            last = ranked[np.maximum(tot.cumsum() - tot + take - 1, 0).astype(np.int64)]
            cut = np.where(take > 0, last, -1.0)
            counts = np.bincount(whose[key <= cut[s_of]], minlength=flows.size).astype(float)
        else:
            counts = np.zeros(flows.size)
        if link is not None:
            counts = counts + link[flows]
        hit = (counts > 0).nonzero()[0]
        return flows[hit], counts[hit]

    def _check(self, q, tot, A, D, served, cwnd, inflight, state):
        limit = self.limit
        sent_total = tot["arr"] + A
        lhs = tot["served"] + served + tot["drop"] + D + q
        assert np.allclose(sent_total, lhs, rtol=1e-9, atol=1e-6), "sent != delivered + dropped + queued"
        assert (q >= -1e-9).all() and (q <= limit + 1e-9).all(), "queue outside [0, buffer]"
        live = state != IDLE
        assert (cwnd[live] >= 1 - 1e-12).all() and (cwnd <= self.max_window + 1e-12).all(), "window out of range"
        assert np.isfinite(cwnd).all() and np.isfinite(q).all() and np.isfinite(inflight).all(), "NaN in state"
