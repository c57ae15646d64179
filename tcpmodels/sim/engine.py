"""The time-stepped engine: all flows of all scenarios of a batch advance together.

Model (one fixed step ``dt`` per scenario, each of a batch at its own: half
the smallest propagation RTT, or half the time the queue takes to drain where
that is shorter, unless chosen; see ``Scenario.step``; an eighth of that where
a first run shows a RED or FPQ queue of a few packets against a step's
service, and a sixteenth where the eighth's still holds under half of its
own, or the first's under 0.03 of its own, ``_finer_steps``):

* Each flow is a window-based, ACK-clocked sender.  Packets it may send
  (``floor(cwnd) - in flight``) enter its access link, which forwards at most
  its rate; they reach the bottleneck in the same step.
* The bottleneck serves ``capacity * dt`` packets per step (fluid FIFO).  The
  queue discipline decides how many of the step's arrivals it drops; the
  drops fall on the arriving packets uniformly at random, so each flow loses
  in proportion to what it sent.  A drop-tail buffer behind access links
  overflows instead on the packets that meet it full: each flow's packets
  of the step arrive as a train at its access rate (``drops.py``).
* A surviving packet's ACK returns after its propagation RTT, the time the
  packet and its ACK take to be sent on the access link and the bottleneck
  (``Scenario.serialization``) and the queueing delay it met, stored in a
  ring buffer of future steps: a step's packets leave the bottleneck spread
  over the step, so their ACKs are split between
  the two steps around that delay in proportion (RTTs stay unbiased and the
  ACK clock keeps its spacing however coarse the step); a step's survivors
  that outnumber its service leave, in FIFO order, over their longer service
  time, and their ACKs come back spread over it.  With delayed ACKs the
  receiver ACKs every second packet and holds an odd one's ACK until the next
  packet or its 200 ms timer, whichever comes first; ACKs free the window and
  grow it per ACK, by 1 in slow start and 1/cwnd in congestion avoidance (1/2
  and 1/(2 cwnd) per packet where an ACK covers two, the timer's lone ACK as
  much as a pair's; the ACKs sent at once above a hole still count per packet).
  After a time-out a retransmission that fills a hole below data the receiver
  holds is ACKed at once, as much as a pair's: with SACK each such hole (the
  scoreboard kept, as ns-3 keeps it), with go-back-N the first.
* A drop puts the flow into "loss pending": one RTT later, when the duplicate
  ACKs would have returned, it fast-retransmits if at least
  ``dupack_threshold`` packets sent after the lost one survived (with SACK
  or limited transmit, one survivor suffices: each duplicate ACK releases a
  new packet), otherwise it stalls until its retransmission timer fires
  (RFC 6298 RTO with minimum, granularity and exponential back-off).  With
  SACK and PRR the duplicate ACKs are counted as they come back instead: the
  flow fast-retransmits at the third (each one lets a new packet out), and
  times out if none is left to come.  Lost retransmissions also end in a
  time-out.  With SACK, fast recovery lets the reduced window out by
  Proportional Rate Reduction (RFC 6937, ns-3's and Linux's default): one
  packet per two ACKed over the round trip, on each ACK in turn where a step
  brings a flow several.  No closed-form loss, window or
  time-out law is used.
* Queues: drop-tail and RED drop arrivals; random drop and CHOKe remove
  queued packets too (the flows' shares of the queue are tracked, a victim's
  ACK is taken out of the ring); RED with ECN marks ECN senders' packets
  instead of dropping them early, and the mark halves the window one RTT
  later (no growth for the round trip after, as in fast recovery); FPQ
  retunes RED as its bit-vector count of the flows moves.

Parts, one module each: ``flows`` (per-flow state, invariants), ``senders``
(the TCP variants' rules over index arrays of flows), ``queues`` (each
discipline's drops, marks and removals of queued packets), ``drops`` (which
flows lose a step's drops), ``ackring`` (ACKs in flight), ``workloads`` (when
flows have data), ``meter`` (statistics, traces, results), ``draws`` (each
scenario's own random streams).  A step
(``_Engine.run``): ACKs -> senders react (ECN echoes, timers) -> send and
pace -> the queue decides and spreads its drops -> senders learn of their
losses -> ACKs into the ring -> meter.
"""

import dataclasses
import warnings
from collections.abc import Iterable

import numpy as np

from .. import _checks
from .._checks import TCPModelsWarning
from . import draws as site
from .ackring import DELAYED_ACK_TIMEOUT, AckRing
from .draws import Draws
from .flows import (
    FLOAT32_FLOWS,
    IDLE,
    PENDING,
    RECOVERY,
    STALLED,
    Flows,
    at_flows,
    batch_width,
    flows_of,
    lay_out,
    state_dtype,
)
from .meter import Meter
from .queues import Step, make_queue
from .scenario import FLOW_STEPS_PER_S, FPQ, RED, LongLived, Scenario, batch_seconds, compute_seconds
from .senders import each_flow, make_sender
from .workloads import make_workload

__all__ = ["simulate"]

_NO_FLOWS = np.empty(0, dtype=np.int64)  # (a step without new losses asks the ACK ring for no return step)
# Where a RED queue averages under this share of a step's service, the step cannot hold it (``_unresolved``).
# Measured against ns-3 (README, "The step follows the queue it runs at"; seeds 1-2 or more): the rows whose
# queue the default step reads 10-52 % low average 0.017-0.167 of it, at an eighth of the step 2-15 % low (5 RED
# flows at 200 ms, V2, V3, the motion rows at 20-100 Mbit/s, ECN rows at 30-80 flows, RED 20/400 at 60 flows,
# gentle RED at 20 flows), and V1 and V4 (0.151, 0.184, 0.995 busy) swing at it as ns-3 does (queue CV 0.62 and
# 0.60 against 0.62 and 0.61, empty 4 % of the time against 4 %, where the default step reads 0.68, 0.64 and
# 13 %, 9 %); the rows at 0.239 and more read -9 ... +10 % at the default step, and an eighth of the step moved
# the four measured by at most 6 points, all within 5 % (-1.6 to -3.1, -4.9 to +0.7, -5.5 to -4.1, -0.9 to
# -0.2 %).  The link's use does not enter: V1 and V4 keep it busy.
QUEUE_PER_SERVICE = 0.2
# The share of its step at which such a scenario runs again (``_finer_steps``): an eighth meets ns-3 on every such
# row measured (README, "The step follows the queue it runs at"); the two passes cost 9 times one at the default
# step, whatever the link's speed.
FINER = 8
# Where the eighth's queue still averages under this share of its own service, the scenario runs once more at
# ``FINEST`` of the default step.  Measured against ns-3 (docs/simulator_record.md, "A sixteenth where the eighth
# still holds too little"; seeds 1-2): the rows the eighth leaves at 0.24-0.48 read their queue -18 ... -2 % low
# there and -8 ... 0 % at a sixteenth (30 RED flows at 400-600 ms -17.8 to -7.3 %, 10 ECN flows at 240-360 ms
# -17.7 to -8.2 %), their links' use within 0.013 of ns-3's (the 100 Mbit/s motion row over seeds 1-4: 0.724
# against 0.731; its seeds swing 0.70-0.76, and seeds 1-2 alone read 0.710); that row's halving moves loss
# -0.5 % and queue +3.6 % from a sixteenth (+8.4 and +4.8 % from an eighth).  V3, the nearest row above, reads
# 0.52-0.58 over 16 seeds and keeps the eighth (within 5 % there).
QUEUE_PER_FINER_SERVICE = 0.5
FINEST = 16
# Where the default step's queue averages under this share of its service, the run goes straight on to ``FINEST``:
# the eighth's pass would send it there.  Measured on 34 runs that took the eighth (seeds 1-2 of 15 such
# configurations of the six replica sets and the motion rows; notebook 10's HighSpeed and TCP/E flows under RED),
# the eighth's queue share was 6.2-14.5 times the default step's, so under 0.03 the eighth's reads under 0.44, below
# QUEUE_PER_FINER_SERVICE; every run under 0.03 went on to the sixteenth (the 100 Mbit/s motion row, 0.019-0.022;
# three HighSpeed flows at OC-48 and 60 ms, 0.023; the eighth's 0.14-0.25).  The runs nearest above take the
# eighth first, as before: HighSpeed at 30 ms (0.035) and the sixth set's 30 RED flows at 500 ms (0.037-0.039),
# which it sends on, the fifth set's ECN row at 50 Mbit/s (0.039-0.041), which it keeps (0.53-0.54).  (A short run
# read 23 times: a run sent on that the eighth would keep runs finer than it needs, at 17 times the default
# step's cost, not 9.)  Going straight on saves the eighth's pass, a third of the three passes' cost.
QUEUE_PER_SERVICE_TO_FINEST = 0.03
# What a run at each step asks for, by the share of the default step it ran at: (a finer share, the queue share of
# the run's own service under which it asks for it), finest first; a run goes on to the first it asks for.  Three
# passes cost 25 times one at the default step, two 9 or 17, whatever the link's speed.
REFINEMENTS = {1: ((FINEST, QUEUE_PER_SERVICE_TO_FINEST), (FINER, QUEUE_PER_SERVICE)),
               FINER: ((FINEST, QUEUE_PER_FINER_SERVICE),)}
# The queues whose unresolved runs at the default step run again at the finer steps of ``REFINEMENTS``.
_REFINED = (RED, FPQ)


def simulate(scenario, seeds=None, *, check=False):
    """Run one scenario, or a batch of scenarios, and return their statistics.

    Parameters
    ----------
    scenario : Scenario or sequence of Scenario
        What to simulate.  A sequence is run as one array computation when its
        members share a shape (queue and sender kinds, trace settings; flow
        counts may differ unless the flows are in sender or workload groups,
        or traced; steps, durations and warm-ups may differ unless traced or
        of finite transfers: see ``Scenario.batch_key``) and that costs less
        than apart (``batches``); otherwise in groups that do.
    seeds : sequence of int, optional
        Run the single `scenario` once per seed (as one batch).  Each
        scenario draws from its own streams: its result depends on it and its
        seed, not on the rest of its batch (see ``Scenario.seed``).
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
    check = _checks.flag("check", check)
    if seeds is not None:
        if not isinstance(scenario, Scenario):
            raise ValueError("seeds: give one Scenario with seeds, or a list of Scenarios without")
        return _run_all(with_seeds([scenario], seeds), check)
    if isinstance(scenario, Scenario):
        return _run_all([scenario], check)[0]
    return _run_all(as_scenarios("scenario", scenario), check)


def as_scenarios(name, value):
    """``value`` (a Scenario, or a non-empty sequence of them) as a list of Scenarios; ``simulate`` and ``sweep``."""
    try:
        scenarios = [value] if isinstance(value, Scenario) else list(value)
    except TypeError:  # (5, None)
        scenarios = []
    if not scenarios or not all(isinstance(s, Scenario) for s in scenarios):
        raise ValueError(f"{name} must be a Scenario or a non-empty sequence of Scenario, got {_checks.short(value)}")
    return scenarios


def with_seeds(scenarios, seeds):
    """Each of ``scenarios`` once per seed of ``seeds`` (a non-empty sequence of whole numbers >= 0), in order.

    ``simulate`` and ``sweep`` read their ``seeds`` here.  A seed stays an exact int (``Scenario.seed``).
    """
    if isinstance(seeds, (str, bytes, dict)) or not isinstance(seeds, Iterable):
        raise ValueError(f"seeds must be a non-empty sequence of whole numbers >= 0, got {_checks.short(seeds)}")
    seeds = [_checks.seed("seeds", seed) for seed in seeds]
    if not seeds:
        raise ValueError("seeds must be a non-empty sequence of whole numbers >= 0, got []")
    return [dataclasses.replace(s, seed=seed) for s in scenarios for seed in seeds]


def _run_all(scenarios, check):
    out = _run_batches(scenarios, check)
    asked = _finer_steps(scenarios, {i: (1, s, out[i]) for i, s in enumerate(scenarios)
                                     if s.time_step is None and type(s.queue) in _REFINED})
    refined = set()
    while asked:
        # The coarsest step asked for first; a run that asks for a finer one waits for it, so that the runs at
        # one step share its batches (a batch of four costs about twice one run, two of two three times).
        fraction = min(f for f, _ in asked.values())
        now = {i: s for i, (f, s) in asked.items() if f == fraction}
        for i, r in zip(now, _run_batches(list(now.values()), check), strict=True):
            out[i] = r
        refined |= now.keys()
        asked = {i: fs for i, fs in asked.items() if i not in now}
        asked.update(_finer_steps(scenarios, {i: (fraction, s, out[i]) for i, s in now.items()}))
    # (RED's kin at the default step keep it without a word: see _unresolved.)
    _warn_unresolved_queue([(s, r) for i, (s, r) in enumerate(zip(scenarios, out, strict=True))
                            if i not in refined and (s.time_step is not None or type(s.queue) in _REFINED)])
    return out


def _run_batches(scenarios, check):
    out = [None] * len(scenarios)
    for members in batches(scenarios, range(len(scenarios))):
        for i, r in zip(members, _Engine([scenarios[i] for i in members], check).run(), strict=True):
            out[i] = r
    return out


def _unresolved(scenario, result, share=QUEUE_PER_SERVICE):
    """Whether ``result`` is of a RED (or RED-like, or FPQ) queue of a few packets, finer than its step could hold.

    The step's fluid service takes a step's arrivals as evenly spread, so
    the collisions of the flows' bursts within it, which make a queue of a
    few packets, its swings and RED's early drops off it, are smoothed away
    (``QUEUE_PER_SERVICE``); an eighth of the step resolves them on the rows
    measured (5-80 long-lived flows).  RED's kin that drop from the queue or
    on its instant length (CHOKe, RED-I) were not: three HighSpeed flows at
    OC-48 under CHOKe/RED-I, with an empty queue, read 0.229, 0.169, 0.079,
    0.065 and 0.041 busy at 1, 1/2, 1/4, 1/8 and 1/16 of the step (60 ms,
    seed 0), a dependence an eighth does not settle, so they keep the step
    they were given (``_REFINED``); where that step was chosen they are still
    warned about (``_warn_unresolved_queue``), as their queue is as coarse.
    A lone flow's packets meet none but its own, which its ACK
    clock spaces; a queue that dropped or marked nothing has nothing to read low;
    finite transfers idle the link by their demand, where nothing was measured.
    """
    s, r = scenario, result
    return (isinstance(s.queue, (RED, FPQ)) and s.n_flows > 1 and r.loss_rate + r.mark_rate > 0.0
            and all(isinstance(w, LongLived) for _, w in s.workloads)
            and r.queue < share * s.capacity * s.step)


def _finer_steps(scenarios, runs):
    """{place: (fraction, the scenario at ``1/fraction`` of its default step)} for the runs whose queue asks for it.

    ``runs`` maps a place in ``scenarios`` to the last (fraction of the
    default step, scenario as run, result) there.  The step follows the
    queue's motion as the run shows it: each pass measures the queue, and
    where it is finer than the pass's step holds (``_unresolved`` with the
    share of one of ``REFINEMENTS``' asks) the scenario runs again at the
    first such ask's finer step, from the start with its own seed, so that
    its result still depends only on it and its seed.  A scenario that the
    finer step would make too long to simulate (``Scenario``'s cost check)
    keeps its last pass (and, if that was the default step's, the warning),
    or takes the next ask's coarser one.
    """
    out = {}
    for i, (done, s, r) in runs.items():
        for fraction, share in REFINEMENTS.get(done, ()):
            if _unresolved(s, r, share):
                with warnings.catch_warnings():  # (the scenario's own warnings came when it was built)
                    warnings.simplefilter("ignore", TCPModelsWarning)
                    try:
                        out[i] = fraction, dataclasses.replace(scenarios[i], time_step=scenarios[i].step / fraction)
                    except ValueError:
                        continue
                break
    return out


def _warn_unresolved_queue(runs):
    """Warn where a run (scenario, result) at a chosen step left its queue unresolved (``_unresolved``)."""
    hit = [(s, r) for s, r in runs if _unresolved(s, r)]
    if not hit:
        return
    s, r = hit[0]
    which = f" ({len(hit)} scenarios; the first's figures)" if len(hit) > 1 else ""
    remedy = (f"a step of {s.step / FINER:.3g} s resolves them (left unset, time_step follows the queue: an eighth "
              f"or a sixteenth of the default step where the first runs show it this fine)"
              if type(s.queue) in _REFINED else
              f"no finer step was measured to resolve them for {type(s.queue).__name__} (compare a run at "
              f"{s.step / FINER:.3g} s)")
    warnings.warn(f"time_step: the queue averaged {r.queue:.3g} packets against {s.capacity * s.step:.0f} served a "
                  f"step of {s.step:.3g} s, the link idle {1.0 - r.utilization:.1%} of the time{which}: the step "
                  f"takes its arrivals as evenly spread, so the queue and RED's early drops off it read low (by up "
                  f"to half, measured against ns-3); {remedy}",
                  TCPModelsWarning, stacklevel=4)


def batches(scenarios, todo):
    """The places ``todo`` in ``scenarios`` as lists that run as one batch each.

    One shape (``Scenario.batch_key``) per batch, and flow counts close
    enough: a scenario is padded to its batch's widest (flows.py) only where
    its place in that layout costs no more per step than a batch of its own
    (``compute_seconds``: a padding of up to 1500 flows); otherwise it starts
    a batch of its own width.  Scenarios of one shape that differ in their
    step, length or warm-up run each at its own in one batch (``_joined``).
    """
    groups = {}
    for i in todo:
        s = scenarios[i]
        groups.setdefault(s.batch_key(), {}).setdefault((s.step, s.duration, s.warmup), []).append(i)
    out = []
    for runs in groups.values():
        out += _joined(scenarios, [batch for members in runs.values() for batch in _by_width(scenarios, members)])
    return out


def _by_width(scenarios, members):
    """``members`` (of one shape and run) in batches of close enough widths (see ``batches``)."""
    out, widest = [], None
    for i in sorted(members, key=lambda i: -scenarios[i].n_flows):
        n = scenarios[i].n_flows
        if widest is None or widest / FLOW_STEPS_PER_S > compute_seconds(1, n):
            widest = n
            out.append([])
        out[-1].append(i)
    return out


def _joined(scenarios, apart):
    """The batches ``apart`` (each of one step, length and warm-up), joined where that costs less.

    A batch whose scenarios' steps differ runs each at its own
    (``flows.Shared``) and takes as many steps as its longest member: it
    saves the step's fixed cost of all but one batch (``batch_seconds``), and
    spends its scenarios' over the steps the longest takes beyond theirs.
    Joined in order of their steps, where the joint batch costs less than
    the two apart; only below ``FLOAT32_FLOWS`` flows (float64, as each was
    apart: a scenario's result must not depend on its batch).
    """
    def flows(batch):
        return len(batch) * max(scenarios[i].n_flows for i in batch)

    def cost(batch):
        return batch_seconds(max(scenarios[i].steps for i in batch), len(batch), flows(batch))

    out = []
    for batch in sorted(apart, key=lambda batch: -scenarios[batch[0]].steps):
        if out and flows(out[-1] + batch) < FLOAT32_FLOWS and cost(out[-1] + batch) < cost(out[-1]) + cost(batch):
            out[-1] = out[-1] + batch
        else:
            out.append(batch)
    return out


class _Engine:
    """A batch of S same-shape scenarios laid out n flows each (flat, S*n; see flows.py), and its step loop."""

    def __init__(self, scenarios, check):
        self.check = check
        first = scenarios[0]
        S, n = len(scenarios), batch_width(scenarios)
        self.S, self.n = S, n
        # Each scenario's step; one for the batch where they share it (flows.Shared), else one per flow.
        self.dt_of = np.array([s.step for s in scenarios])
        self.dt_at = at_flows(float(first.step)) if (self.dt_of == first.step).all() else np.repeat(self.dt_of, n)
        self.dt = dt = self.dt_at[:]  # (as numbers: one, or one per flow)
        # Each scenario draws from its own streams: its result does not depend on its batch.
        counts = [s.n_flows for s in scenarios]
        self.draws = draws = Draws([s.seed for s in scenarios], n, counts)

        col = lambda values: np.repeat(np.asarray(values, dtype=float), n)  # noqa: E731  per-flow copy
        self.capacity = np.array([s.capacity for s in scenarios])
        self.serve = self.capacity * self.dt_of  # packets served per step
        self.limit = np.array([float(s.limit) for s in scenarios])
        propagation = self._propagation(scenarios, draws.per_flow(site.START))
        # The unloaded round trip also holds the time to put a packet on its access link
        # and on the bottleneck, and its ACK on both (without a queue it is the whole delay
        # beyond the propagation: ns-3 and the real links add it to every round trip).
        prop = propagation + col([s.serialization for s in scenarios])
        self.workload = make_workload(scenarios, col([s.start_spread for s in scenarios]))
        start = self.workload.start_times(draws.per_flow(site.START))
        start[np.arange(S * n) % n >= col(counts)] = np.inf  # (a layout's padding never starts)
        self.prop_steps = prop / dt
        self.link_loss = col([s.link_loss for s in scenarios])
        self.lossy = bool((self.link_loss > 0).any())
        max_window = lay_out([s.per_flow(s.window_cap) for s in scenarios], n)
        real = state_dtype(S * n, max_window.max(), first.duration, prop.min())
        self.flows = Flows(n, prop, self.capacity, max_window, start, real, propagation, counts)
        held = max(getattr(p, "max_delay", 0.0) for s in scenarios for _, p in s.groups)  # (delay control)
        # (The ring's length changes no result: it need only hold the longest delay in steps.)
        worst_delay = (prop.max() + (self.limit / self.capacity).max() + held + dt) / dt if np.ndim(dt) == 0 \
            else ((prop + np.repeat(self.limit / self.capacity, n) + held + dt) / dt).max()
        delayed = each_flow(scenarios, lambda p: p.delayed_ack) > 0  # per group
        self.queue = make_queue(scenarios, draws, first.sender.ecn)
        self.ring = AckRing(int(np.ceil(worst_delay)) + 3, S * n, real, delayed, DELAYED_ACK_TIMEOUT / dt,
                            self.queue.ack_options)
        self.sender = make_sender(scenarios, self.flows, self.ring, self.dt_at)
        self.workload.attach(self.flows, self.sender, draws, self.link_loss)
        self.queue.round_trips(prop)
        self.ecn = self.queue.marking
        self.meter = Meter(scenarios, self.serve, self.dt_of, check, self.queue)
        self.step = step = Step()
        step.dt, step.serve, step.limit, step.n, step.draws = self.dt_at, self.serve, self.limit, n, draws
        step.mark, step.remove, step.lost_queued = self._mark, self._remove, self.sender.on_queued_loss
        step.head = self._head
        step.sack, step.backlog = self.ring.blocks, self.flows.backlog

    def run(self):
        """Advance every flow of the batch through the run; one SimResult per scenario."""
        f, sender, queue, ring, meter, draws = self.flows, self.sender, self.queue, self.ring, self.meter, self.draws
        dt, serve, capacity, prop_steps, one = self.dt, self.serve, self.capacity, self.prop_steps, self.S == 1
        workload, finite = self.workload, self.workload.finite
        for k in range(meter.steps):
            now = at_flows(k * dt)
            draws.at(k)
            # A timer fires at the step nearest its time (firing at the next one
            # would lengthen every time-out by half a step on average).
            nearest = at_flows(k * dt + 0.5 * dt)
            measuring = meter.live(k)
            meter.begin(k, f)
            if measuring is not False and sender.events is None:
                sender.events = meter.events  # congestion events are logged from now on
            sender.on_acks(ring.take(k), self.check)
            if finite:
                workload.completions(now, measuring)
            if self.ecn:
                sender.on_echoes(nearest, now)
            deciding = sender.decide_on_dupacks(self._timers(nearest, now, measuring), now)
            arr = sender.send(deciding)
            ring.repaired(sender.retx, sender.retx_arr)
            step = self._arrive(k, now, arr, measuring)
            D, hits = queue.decide(step)
            if finite:
                workload.observe(D, step.A, step.link_total)
            if hits is not None:
                ring.lost(*hits)  # (before on_drops takes the drops out of ``arr``)
            new_loss = None if hits is None else sender.on_drops(*hits, arr, draws)
            load = f.q + step.A - D
            served = np.minimum(load, serve)
            f.q = load - served
            queue.served(arr, load, f.q)
            # The survivors' ACKs come back after RTT + queueing delay, spread
            # over their service time where they outnumber the step's service.
            qd = f.q / capacity
            sending = step.sending
            # (A delay-control sender holds its ACKs ``hold`` steps before acting on them.)
            rtt_steps = prop_steps[sending] if sender.hold is None else (prop_steps + sender.hold)[sending]
            # Loss noticed when the lost packet's ACK would have come back: the
            # same step the ring gives its step-mates.
            back = ring.insert(sending, arr[sending], rtt_steps,
                               float(qd[0] / self.dt_of[0]) if one else (qd / self.dt_of)[step.owner],
                               draws.random(site.ACK, [sending.size] if one else f.per_scenario(sending)),
                               self._service_steps(step.A - D, step.owner),
                               _NO_FLOWS if new_loss is None else sending.searchsorted(new_loss))
            if back.size:
                f.t_next[new_loss] = back * self.dt_at[new_loss]
            if deciding is not None and deciding.size:
                # After the ring insert, so a go-back-N restart also forgets the
                # ACKs of this step's packets (they are duplicates).
                sender.loss_detected(deciding, now)
            sender.update_rtt(qd, k)
            meter.record(k, measuring, step.A, D, served, f, self.limit)
            if not meter.alike and k in meter.ends:
                self._stop(meter.ends[k])
        return meter.results(f, workload)

    def _stop(self, rows):
        """Scenarios ``rows`` ran their steps (the meter took their figures): their flows stop sending.

        As a layout's padding, which never starts: the batch's longer members
        do not pay for their losses and recoveries.  What they had queued or
        in flight drains.
        """
        f = self.flows
        at = flows_of(rows, self.n)
        f.state[at] = IDLE
        f.t_next[at] = np.inf
        f.t_ece[at] = np.inf
        f.can_send[at] = 0.0
        f.grow[at] = 0.0
        f.backlog[at] = 0.0

    def _service_steps(self, survivors, owner):
        """Steps the link takes to serve each scenario's ``survivors`` of a step, per sending flow; None if <= 1."""
        steps = survivors / self.serve
        if self.S == 1:
            return float(steps[0]) if steps[0] > 1.0 else None
        return np.maximum(steps, 1.0)[owner] if steps.max() > 1.0 else None

    def _propagation(self, scenarios, u):
        """Each flow's propagation RTT [s]: as given, or uniform about the mean (rtt_spread), from uniforms ``u``."""
        explicit = [s.flow_rtts for s in scenarios]
        n = self.n
        if all(x is not None for x in explicit):
            return lay_out(explicit, n)
        col = lambda values: np.repeat(np.asarray(values, dtype=float), n)  # noqa: E731  per-flow copy
        prop = col([s.mean_rtt for s in scenarios]) * (
            1 + col([0.0 if x is not None else s.rtt_spread for s, x in zip(scenarios, explicit, strict=True)])
            * (u - 0.5))
        for i, x in enumerate(explicit):
            if x is not None:
                prop[i * n:i * n + x.size] = x
        return prop

    def _timers(self, nearest, now, measuring):
        """Fire the timers due: starts, recovery ends, time-outs; returns the losses to decide after sending."""
        f = self.flows
        due = (f.t_next < nearest[:]).nonzero()[0]
        if not due.size:
            return None
        st = f.state[due]
        deciding, j = due[st == PENDING], due[st == STALLED]
        if deciding.size + j.size < due.size:  # (most steps have no start or recovery end due: two passes saved)
            idle = due[st == IDLE]
            if idle.size:
                self.workload.start(idle, self.sender, now)
            ending = due[st == RECOVERY]
            if ending.size:
                self.sender.recovery_ends(ending, now)
        if j.size:
            fired = f.per_scenario(j)
            self.meter.timed_out(measuring, j, fired)
            f.stalled -= fired
            self.sender.timer_fired(j)
        return deciding

    def _arrive(self, k, now, arr, measuring):
        """The step's arrivals at the bottleneck, after link loss, as the queue sees them."""
        S, step = self.S, self.step
        # (x.nonzero()[0], not np.flatnonzero(x): a step makes a few hundred numpy
        # calls, and at one scenario their Python wrappers cost as much as the work;
        # a bool mask is several times faster to scan than floats.)
        step.sending = (arr > self.flows.c.zero).nonzero()[0]
        # Each sender's scenario (`sending` is sorted): cheaper than a gather.
        step.owner = np.repeat(np.arange(S), self.flows.per_scenario(step.sending)) if S > 1 else None
        step.link = step.link_total = None
        if self.lossy:
            step.link = self.draws.binomial(site.LINK, arr.astype(np.int64), self.link_loss)
            step.link_total = step.link.reshape(S, self.n).sum(axis=1)
        step.A = np.add.reduce(arr.reshape(S, self.n), axis=1)  # (the ufunc: sum's wrapper costs more here)
        step.k, step.now, step.arr, step.q, step.measuring = k, now, arr, self.flows.q, measuring
        return step

    def _mark(self, j, marks, counts):
        # ECN marks on flows j (marks per scenario, counts per flow): the echo halves their windows later.
        self.sender.on_marks(j, self.step.now, counts)
        self.meter.marks(self.step.measuring, marks)

    def _head(self, s, nth):
        """The flow whose packet is at scenario ``s``'s head (one of those that leave first), or None.

        A packet's ACK is due one RTT after it leaves the queue, and the ring
        holds it in the slot nearest that time (spread over the two about it),
        so a flow's slot ``floor(k + 1 + j + RTT)`` holds the ACKs of the
        packets that leave about (k + j, k + j + 1], whatever the fraction of
        its RTT in steps: the head is among the first such window where any
        flow has ACKs due, a flow's as many times as it has ACKs there (draw
        ``nth`` of the scenario's step).  (Taking the slot at the start of the
        window instead picks the flows whose RTTs end late in a step, again
        and again.)  A packet whose ACK the ring does not hold (the odd one a
        receiver will hold, one its sender wrote off) is passed over.
        """
        flows = np.arange(s * self.n, (s + 1) * self.n)
        first = (self.step.k + 1.0 + self.prop_steps[flows]).astype(np.int64)
        width = int(self.flows.q[s] / self.capacity[s] / self.dt_of[s]) + 2
        due = self.ring.rows2[(first + np.arange(width)[:, None]) % self.ring.L, flows]
        filled = (due > 0.0).any(axis=1).nonzero()[0]
        if not filled.size:
            return None
        ends = np.add.accumulate(due[filled[0]])
        u = self.draws.uniform(site.EVICT, nth, None if self.S == 1 else np.array([s]))[0]
        return int(flows[np.searchsorted(ends, u * ends[-1], side="right")])

    def _remove(self, i, frac):
        # Take one of flow i's queued packets' ACKs out of the ring: those due
        # from now + RTT over the queueing delay, at fraction `frac` of it.
        s = i // self.n
        first = int(self.step.k + self.prop_steps[i])
        width = int(self.flows.q[s] / self.capacity[s] / self.dt_of[s]) + 2
        return self.ring.remove_one(i, first, width, min(int(frac * width), width - 1))
