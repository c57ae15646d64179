"""The meter: what a run accumulates over its measured interval, its traces, and the SimResults."""

import numpy as np

from .. import metrics
from .flows import batch_width, flows_of
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
    dt : ndarray
        Each scenario's step [s].
    check : bool
        Keep the totals the conservation invariant needs.
    queue : object
        The batch's queue state, whose ``report()`` is traced.
    """

    def __init__(self, scenarios, serve, dt, check, queue):
        S, first = len(scenarios), scenarios[0]
        self.queue = queue  # what it reports is traced
        self.groups = [s.groups for s in scenarios]
        self.counts = [s.n_flows for s in scenarios]  # each scenario's own, the first of its n
        self.S, self.n, self.dt, self.serve = S, batch_width(scenarios), dt, serve
        self.one_step = bool((dt == dt[0]).all())
        self.check = check
        # Each scenario's measured steps, [first, end): a batch whose scenarios run alike measures them as one.
        self.first = np.array([s.warmup_steps for s in scenarios])
        self.end = np.array([s.steps for s in scenarios])
        self.alike = bool((self.first == self.first[0]).all() and (self.end == self.end[0]).all())
        self.steps, self.first_alike = int(self.end.max()), int(self.first[0])  # (the batch's steps)
        self.measured = self.end - self.first
        # The scenarios whose measured interval begins, or ends, at a step: {step: their rows}.
        self.begins, self.ends = _rows_at(self.first), _rows_at(self.end - 1)
        self.nblock_of = np.zeros(S, dtype=np.int64)  # (a batch unalike: each scenario's own block, see _flush)
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
        self.logged = []  # (a batch unalike: the events logged by the end of each step, to keep each one's interval's)
        self.tracing = first.trace
        if self.tracing:
            self.every = max(1, int(round(first.trace_interval / float(dt[0]))))  # (traced: one step, see batch_key)
            self.ntr = min(first.trace_flows, self.n)
            self.tr_t, self.tr_q, self.tr_l, self.tr_w = [], [], [], []
            self.tr_a, self.tr_d, self.tr_qs = np.zeros(S), np.zeros(S), np.zeros(S)
            self.tr_report = {}

    def live(self, k):
        """Which scenarios step ``k`` measures: True (all), False (none), or a bool per scenario."""
        if self.alike:
            return k >= self.first_alike
        live = (k >= self.first) & (k < self.end)
        return True if live.all() else live if live.any() else False

    def begin(self, k, flows):
        """The measured interval of the scenarios whose interval begins at step ``k`` begins."""
        rows = self.begins.get(k)
        if rows is None:
            return
        if self.acked_start is None:
            self.acked_start = flows.acked.copy()
            self.wblock = np.zeros(flows.N, dtype=flows.real)
            self.dropped_start = flows.dropped + flows.unseen_drops
            self.sent_start = flows.sent.astype(float)
            self.acked_end, self.dropped_end, self.sent_end = (x.copy() for x in (
                self.acked_start, self.dropped_start, self.sent_start))
        if len(rows) < self.S:
            at = flows_of(rows, self.n)
            self.acked_start[at] = flows.acked[at]
            self.dropped_start[at] = flows.dropped[at] + flows.unseen_drops[at]
            self.sent_start[at] = flows.sent[at]

    def end_of(self, k, flows):
        """The scenarios whose run ends with step ``k``: their figures are taken (see ``results``)."""
        rows = self.ends.get(k)
        if rows is None:
            return
        at = slice(None) if len(rows) == self.S else flows_of(rows, self.n)
        self.acked_end[at] = flows.acked[at]
        self.dropped_end[at] = (flows.dropped + flows.unseen_drops)[at]
        self.sent_end[at] = flows.sent[at]
        if not self.alike:
            self._flush(rows)

    def timed_out(self, live, j, fired):
        """Flows ``j``'s retransmission timers fired (``fired`` per scenario), at a step that measures ``live``."""
        if live is True:
            self.acc["rto"] += fired
            self.fired.append(j)
        elif live is not False:
            self.acc["rto"] += np.where(live, fired, 0.0)
            self.fired.append(j[live[j // self.n]])

    def marks(self, live, marks):
        """ECN marks, per scenario, at a step that measures ``live``."""
        if live is True:
            self.marked += marks
        elif live is not False:
            self.marked += np.where(live, marks, 0.0)

    def record(self, k, measuring, A, D, served, flows, limit):
        """Account for step ``k`` (which measures ``measuring``: see ``live``): A arrivals, D drops and ``served``
        packets per scenario."""
        q = flows.q
        if self.check:
            tot = self.tot
            lhs = tot["served"] + served + tot["drop"] + D + q
            assert np.allclose(tot["arr"] + A, lhs, rtol=1e-9, atol=1e-6), "sent != delivered + dropped + queued"
            flows.check(limit)
            tot["arr"] += A
            tot["drop"] += D
            tot["served"] += served
        if measuring is True and self.alike:
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
        elif measuring is not False:
            self._record_some(measuring, A, D, served, q, flows)
        if self.tracing:
            self._trace(k, A, D, q, flows.cwnd)
        if not self.alike:
            self.logged.append(len(self.events))
        self.end_of(k, flows)

    def _record_some(self, live, A, D, served, q, flows):
        """``record``'s sums in a batch whose scenarios run unalike: only those ``live`` (True: all) add.

        Each scenario's window blocks start at its own interval, so that its
        sums are those it makes alone, to the bit.
        """
        acc = self.acc
        live = np.ones(self.S, dtype=bool) if live is True else live
        for name, x in (("arr", A), ("drop", D), ("served", served), ("qsum", q), ("stall", flows.stalled)):
            acc[name] += np.where(live, x, 0.0)
        self.wblock += np.where(np.repeat(live, self.n), flows.cwnd, 0.0)
        self.nblock_of += live
        full = (self.nblock_of == WINDOW_BLOCK).nonzero()[0]
        if full.size:
            self._flush(full)

    def _flush(self, rows=None):
        """Add the window block to the sums: all of it, or scenarios ``rows``'s (each its own block count)."""
        if rows is None:
            self.wsum += self.wblock
            self.wblock[:] = 0.0
            self.nblock = 0
            return
        at = flows_of(rows, self.n)
        self.wsum[at] += self.wblock[at]
        self.wblock[at] = 0.0
        self.nblock_of[rows] = 0

    def _trace(self, k, A, D, q, cwnd):
        self.tr_a += A
        self.tr_d += D
        self.tr_qs += q
        if (k + 1) % self.every == 0:
            self.tr_t.append((k + 1) * float(self.dt[0]))
            self.tr_q.append(self.tr_qs / self.every)
            self.tr_l.append(np.where(self.tr_a > 0, self.tr_d / np.maximum(self.tr_a, 1), 0.0))
            self.tr_w.append(cwnd.reshape(self.S, self.n)[:, :self.ntr].astype(float))
            for name, values in self.queue.report().items():
                self.tr_report.setdefault(name, []).append(values)
            self.tr_a, self.tr_d, self.tr_qs = np.zeros(self.S), np.zeros(self.S), np.zeros(self.S)

    def results(self, flows, workload):
        """One SimResult per scenario (``workload`` lists its completed transfers)."""
        S, n, acc = self.S, self.n, self.acc
        measured = [int(m) for m in self.measured]
        good = (self.acked_end - self.acked_start).astype(float).reshape(S, n) / np.array(
            [[m * dt] for m, dt in zip(measured, self.dt.tolist(), strict=True)])
        drops = (self.dropped_end - self.dropped_start).reshape(S, n)
        if self.alike:
            self._flush()
        fired = np.concatenate(self.fired) if self.fired else np.zeros(0, dtype=np.int64)
        timeouts = np.bincount(fired, minlength=S * n).astype(float).reshape(S, n)
        window = self.wsum.reshape(S, n) / np.array(measured)[:, None]
        sent = (self.sent_end - self.sent_start).reshape(S, n)
        events = self._events()
        rtt = flows.propagation.reshape(S, n)
        results = []
        for s, c in enumerate(self.counts):  # (a scenario's own flows: the first c of its n)
            g, steps, dt = good[s, :c], measured[s], float(self.dt[s])
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
        if not self.alike:
            self._keep_measured()
        logged = [e for e in self.events if e[2] is not None]
        sizes = [e[0].size for e in logged]
        flows, times, windows, drops = zip(*logged, strict=True) if logged else ([], [], [], [])
        j = np.concatenate(flows).astype(np.int64) if flows else np.zeros(0, dtype=np.int64)
        # (A time per event, or per flow where the batch's scenarios' steps differ: see flows.Shared.)
        columns = dict(time=np.repeat(np.array(times, dtype=float), sizes) if self.one_step else
                       np.concatenate([np.broadcast_to(t, size) for t, size in zip(times, sizes, strict=True)])
                       if times else np.zeros(0),
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

    def _keep_measured(self):
        """Keep of the logged events those of each flow's scenario's measured interval (a batch unalike)."""
        at = np.searchsorted(self.logged, np.arange(len(self.events)), side="right")  # the step each was logged at
        kept = []
        for (j, time, window, drops), k in zip(self.events, at.tolist(), strict=True):
            s = j // self.n
            mine = (self.first[s] <= k) & (k < self.end[s])
            if mine.any():  # (a time per event, or per flow: see _events)
                kept.append((j[mine], time if np.ndim(time) == 0 else time[mine],
                             None if window is None else window[mine], drops[mine]))
        self.events[:] = kept

    def _add_losses(self, j, columns, added):
        """Add the losses ``added`` later (flows, event times, None, drops) to their events' ``drops``.

        An event is found by its flow and its step; one logged before the
        measured interval began is not in the table, and its losses are left out.
        """
        if not added:
            return
        steps = self.steps + 1
        key = j * steps + np.rint(columns["time"] / self.dt[j // self.n]).astype(np.int64)
        order = np.argsort(key, kind="stable")
        key = key[order]
        aj = np.concatenate([e[0] for e in added]).astype(np.int64)
        at = np.concatenate([e[1] for e in added])
        wanted = aj * steps + np.rint(at / self.dt[aj // self.n]).astype(np.int64)
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


def _rows_at(steps):
    """{step: the rows (scenarios) of ``steps`` at it}."""
    out = {}
    for row, k in enumerate(steps.tolist()):
        out.setdefault(k, []).append(row)
    return out
