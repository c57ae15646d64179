"""The meter: what a run accumulates over its measured interval, its traces, and the SimResults."""

import numpy as np

from .. import metrics
from .flows import batch_width
from .result import CongestionEvents, GroupResult, SimResult

__all__ = ["Meter"]

# Per-flow window sums add up this many steps in the state's dtype (a same-type
# add; float32's rounding over 16 windows of <= 256 packets stays below 1e-7 of
# the sum) before they go into float64.
WINDOW_BLOCK = 16


class Meter:
    """Accumulators of a batch of S scenarios of n flows (per scenario), and the optional traces.

    Parameters
    ----------
    scenarios : list of Scenario
        The batch (same shape).
    serve : ndarray
        Packets each scenario's bottleneck serves per step [packets].
    dt : float
        The engine's step [s].
    steps, measure_from : int
        The run's steps, and the first measured one.
    check : bool
        Keep the totals the conservation invariant needs.
    queue : object
        The batch's queue state, whose ``report()`` is traced.
    """

    def __init__(self, scenarios, serve, dt, steps, measure_from, check, queue):
        S, first = len(scenarios), scenarios[0]
        self.queue = queue  # what it reports is traced
        self.groups = [s.groups for s in scenarios]
        self.counts = [s.n_flows for s in scenarios]  # each scenario's own, the first of its n
        self.S, self.n, self.dt, self.serve = S, batch_width(scenarios), dt, serve
        self.steps, self.measure_from, self.check = steps, measure_from, check
        self.acc = dict(arr=np.zeros(S), drop=np.zeros(S), served=np.zeros(S), qsum=np.zeros(S),
                        stall=np.zeros(S), rto=np.zeros(S))
        self.wsum = np.zeros(S * self.n)  # per flow, float64
        self.wblock, self.nblock = None, 0  # the current block of steps (see WINDOW_BLOCK)
        self.fired = []  # the flows whose retransmission timers fired, step by step
        self.tot = dict(arr=np.zeros(S), drop=np.zeros(S), served=np.zeros(S))
        self.marked = np.zeros(S)
        self.acked_start = None
        # The senders' congestion events over the measured interval, as they log them
        # (flows, time, windows, drops); tables are made at the end: a step's calls are dear.
        self.events = []
        self.tracing = first.trace
        if self.tracing:
            self.every = max(1, int(round(first.trace_interval / dt)))
            self.ntr = min(first.trace_flows, self.n)
            self.tr_t, self.tr_q, self.tr_l, self.tr_w = [], [], [], []
            self.tr_a, self.tr_d, self.tr_qs = np.zeros(S), np.zeros(S), np.zeros(S)
            self.tr_report = {}

    def begin(self, flows):
        """The measured interval begins."""
        self.acked_start = flows.acked.copy()
        self.wblock = np.zeros(flows.N, dtype=flows.real)
        self.dropped_start = flows.dropped + flows.unseen_drops
        self.sent_start = flows.sent.astype(float)

    def record(self, k, measuring, A, D, served, flows, limit):
        """Account for step ``k``: A arrivals, D drops and ``served`` packets per scenario."""
        q = flows.q
        if self.check:
            tot = self.tot
            lhs = tot["served"] + served + tot["drop"] + D + q
            assert np.allclose(tot["arr"] + A, lhs, rtol=1e-9, atol=1e-6), "sent != delivered + dropped + queued"
            flows.check(limit)
            tot["arr"] += A
            tot["drop"] += D
            tot["served"] += served
        if measuring:
            acc = self.acc
            acc["arr"] += A
            acc["drop"] += D
            acc["served"] += served
            acc["qsum"] += q
            self.wblock += flows.cwnd
            self.nblock += 1
            if self.nblock == WINDOW_BLOCK:
                self._flush()
            acc["stall"] += flows.stalled
        if self.tracing:
            self._trace(k, A, D, q, flows.cwnd)

    def _flush(self):
        self.wsum += self.wblock
        self.wblock[:] = 0.0
        self.nblock = 0

    def _trace(self, k, A, D, q, cwnd):
        self.tr_a += A
        self.tr_d += D
        self.tr_qs += q
        if (k + 1) % self.every == 0:
            self.tr_t.append((k + 1) * self.dt)
            self.tr_q.append(self.tr_qs / self.every)
            self.tr_l.append(np.where(self.tr_a > 0, self.tr_d / np.maximum(self.tr_a, 1), 0.0))
            self.tr_w.append(cwnd.reshape(self.S, self.n)[:, :self.ntr].astype(float))
            for name, values in self.queue.report().items():
                self.tr_report.setdefault(name, []).append(values)
            self.tr_a, self.tr_d, self.tr_qs = np.zeros(self.S), np.zeros(self.S), np.zeros(self.S)

    def results(self, flows, workload):
        """One SimResult per scenario (``workload`` lists its completed transfers)."""
        S, n, dt, acc = self.S, self.n, self.dt, self.acc
        steps = self.steps - self.measure_from
        good = (flows.acked - self.acked_start).astype(float).reshape(S, n) / (steps * dt)
        drops = (flows.dropped + flows.unseen_drops - self.dropped_start).reshape(S, n)
        self._flush()
        fired = np.concatenate(self.fired) if self.fired else np.zeros(0, dtype=np.int64)
        timeouts = np.bincount(fired, minlength=S * n).astype(float).reshape(S, n)
        window = self.wsum.reshape(S, n) / steps
        sent = (flows.sent - self.sent_start).reshape(S, n)
        events = self._events()
        rtt = flows.propagation.reshape(S, n)
        results = []
        for s, c in enumerate(self.counts):  # (a scenario's own flows: the first c of its n)
            g = good[s, :c]
            a = acc["arr"][s]
            mine = CongestionEvents(**{name: column[s] for name, column in events.items()})
            results.append(SimResult(
                loss_rate=float((acc["drop"][s] + self.marked[s]) / a) if a > 0 else 0.0,
                mark_rate=float(self.marked[s] / a) if a > 0 else 0.0,
                queue=float(acc["qsum"][s] / steps),
                utilization=float(acc["served"][s] / (self.serve[s] * steps)),
                timeouts_per_packet=float(acc["rto"][s] / a) if a > 0 else 0.0,
                timeout_fraction=float(acc["stall"][s] / (steps * c)),
                window=float(window[s, :c].sum() / c),
                goodput=g.copy(),
                jain_index=metrics.jain_index(g),
                rtt=rtt[s, :c].copy(),
                time_step=dt,
                packets=float(a),
                flow_drops=drops[s, :c].copy(),
                flow_timeouts=timeouts[s, :c].copy(),
                flow_window=window[s, :c].copy(),
                flow_packets=sent[s, :c].copy(),
                groups=self._groups(self.groups[s], g, drops[s], timeouts[s], window[s], sent[s]),
                congestion_events=mine,
                trace=self._trace_of(s),
                transfers=workload.table(s, n),
            ))
        return results

    def _groups(self, groups, goodput, drops, timeouts, window, sent):
        """One GroupResult per sender group (``Scenario.groups``) of a scenario, from its per-flow results."""
        out, start = [], 0
        for count, spec in groups:
            at = slice(start, start + count)
            packets = sent[at].sum()
            out.append(GroupResult(
                sender=spec, first_flow=start, n_flows=count, goodput=float(goodput[at].mean()),
                loss_rate=float(drops[at].sum() / packets) if packets > 0 else 0.0,
                timeouts_per_packet=float(timeouts[at].sum() / packets) if packets > 0 else 0.0,
                window=float(window[at].mean())))
            start += count
        return tuple(out)

    def _events(self):
        """The logged events of the batch: {column: one array per scenario}."""
        S, n = self.S, self.n
        logged = [e for e in self.events if e[2] is not None]
        sizes = [e[0].size for e in logged]
        flows, times, windows, drops = zip(*logged, strict=True) if logged else ([], [], [], [])
        j = np.concatenate(flows).astype(np.int64) if flows else np.zeros(0, dtype=np.int64)
        columns = dict(time=np.repeat(np.array(times, dtype=float), sizes),
                       window=np.concatenate(windows).astype(float) if windows else np.zeros(0),
                       drops=np.concatenate(drops).astype(float) if drops else np.zeros(0))
        self._add_losses(j, columns, [e for e in self.events if e[2] is None])
        # Each scenario's rows in time order: one stable sort by scenario (a radix
        # sort on 16-bit keys), not one pass per scenario.
        whose = j // n
        order = np.argsort(whose.astype(np.int16 if S < 2 ** 15 else np.int64), kind="stable")
        cut = np.cumsum(np.bincount(whose, minlength=S))[:-1]
        columns["flow"] = j - whose * n
        return {name: np.split(columns[name][order], cut) for name in ("flow", "time", "window", "drops")}

    def _add_losses(self, j, columns, added):
        """Add the losses ``added`` later (flows, event times, None, drops) to their events' ``drops``.

        An event is found by its flow and its step; one logged before the
        measured interval began is not in the table, and its losses are left out.
        """
        if not added:
            return
        steps = self.steps + 1
        key = j * steps + np.rint(columns["time"] / self.dt).astype(np.int64)
        order = np.argsort(key, kind="stable")
        key = key[order]
        aj = np.concatenate([e[0] for e in added]).astype(np.int64)
        at = np.concatenate([e[1] for e in added])
        wanted = aj * steps + np.rint(at / self.dt).astype(np.int64)
        place = np.minimum(np.searchsorted(key, wanted), max(key.size - 1, 0))
        found = (key[place] == wanted) if key.size else np.zeros(wanted.size, dtype=bool)
        np.add.at(columns["drops"], order[place[found]], np.concatenate([e[3] for e in added])[found])

    def _trace_of(self, s):
        """Scenario s's traces (None unless traced)."""
        if not self.tracing:
            return None
        trace = dict(time=np.array(self.tr_t), queue=np.array([x[s] for x in self.tr_q]),
                     loss_rate=np.array([x[s] for x in self.tr_l]), window=np.array([x[s] for x in self.tr_w]))
        trace.update({name: np.array([x[s] for x in values]) for name, values in self.tr_report.items()})
        return trace
