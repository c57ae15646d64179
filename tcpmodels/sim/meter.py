"""The meter: what a run accumulates over its measured interval, its traces, and the SimResults."""

import numpy as np

from .. import metrics
from .result import SimResult

__all__ = ["Meter"]


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
    """

    def __init__(self, scenarios, serve, dt, steps, measure_from, check):
        S, first = len(scenarios), scenarios[0]
        self.S, self.n, self.dt, self.serve = S, first.n_flows, dt, serve
        self.steps, self.measure_from, self.check = steps, measure_from, check
        self.acc = dict(arr=np.zeros(S), drop=np.zeros(S), served=np.zeros(S), qsum=np.zeros(S),
                        wsum=np.zeros(S), stall=np.zeros(S), rto=np.zeros(S))
        self.tot = dict(arr=np.zeros(S), drop=np.zeros(S), served=np.zeros(S))
        self.marked = np.zeros(S)
        self.acked_start = None
        self.tracing = first.trace
        if self.tracing:
            self.every = max(1, int(round(first.trace_interval / dt)))
            self.ntr = min(first.trace_flows, self.n)
            self.tr_t, self.tr_q, self.tr_l, self.tr_w = [], [], [], []
            self.tr_a, self.tr_d, self.tr_qs = np.zeros(S), np.zeros(S), np.zeros(S)

    def begin(self, flows):
        """The measured interval begins."""
        self.acked_start = flows.acked.copy()

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
            acc["wsum"] += flows.cwnd.reshape(self.S, self.n).sum(axis=1)
            acc["stall"] += flows.stalled
        if self.tracing:
            self._trace(k, A, D, q, flows.cwnd)

    def _trace(self, k, A, D, q, cwnd):
        self.tr_a += A
        self.tr_d += D
        self.tr_qs += q
        if (k + 1) % self.every == 0:
            self.tr_t.append((k + 1) * self.dt)
            self.tr_q.append(self.tr_qs / self.every)
            self.tr_l.append(np.where(self.tr_a > 0, self.tr_d / np.maximum(self.tr_a, 1), 0.0))
            self.tr_w.append(cwnd.reshape(self.S, self.n)[:, :self.ntr].astype(float))
            self.tr_a, self.tr_d, self.tr_qs = np.zeros(self.S), np.zeros(self.S), np.zeros(self.S)

    def results(self, flows):
        """One SimResult per scenario."""
        S, n, dt, acc = self.S, self.n, self.dt, self.acc
        steps = self.steps - self.measure_from
        good = (flows.acked - self.acked_start).astype(float).reshape(S, n) / (steps * dt)
        results = []
        for s in range(S):
            g = good[s]
            trace = None
            if self.tracing:
                trace = dict(time=np.array(self.tr_t), queue=np.array([x[s] for x in self.tr_q]),
                             loss_rate=np.array([x[s] for x in self.tr_l]),
                             window=np.array([x[s] for x in self.tr_w]))
            a = acc["arr"][s]
            results.append(SimResult(
                loss_rate=float((acc["drop"][s] + self.marked[s]) / a) if a > 0 else 0.0,
                mark_rate=float(self.marked[s] / a) if a > 0 else 0.0,
                queue=float(acc["qsum"][s] / steps),
                utilization=float(acc["served"][s] / (self.serve[s] * steps)),
                timeouts_per_packet=float(acc["rto"][s] / a) if a > 0 else 0.0,
                timeout_fraction=float(acc["stall"][s] / (steps * n)),
                window=float(acc["wsum"][s] / (steps * n)),
                goodput=g.copy(),
                jain_index=metrics.jain_index(g),
                rtt=flows.prop.reshape(S, n)[s].copy(),
                time_step=dt,
                packets=float(a),
                trace=trace,
            ))
        return results
