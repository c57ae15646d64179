"""Vectorized queue disciplines of the engine: one state object per batch.

Each discipline sees, per time step and per scenario, the queue ``q`` before
the step's arrivals and the number ``A`` of packets arriving, and returns how
many of those arrivals it drops early.  The engine applies the hard buffer
limit afterwards and spreads the drops over the flows' arrivals.  A new
discipline plugs in by adding a spec in :mod:`.scenario` and a class here with
``early_drops(q, arrivals, idle, rng)``.
"""

import bisect
import math

import numpy as np

from .. import fpq, red
from .scenario import FPQ, RED, DropTail

__all__ = ["make_queue"]

SUB = 4  # slices per step in which RED follows the queue


class _DropTailState:
    """Drop-tail drops nothing early; the engine's buffer limit does the rest."""

    ecn = False

    def __init__(self, specs):
        self.size = len(specs)

    def observe(self, arrivals, now, dt):
        """Drop-tail needs nothing from the arrivals."""

    def early_drops(self, q, arrivals, idle, serve, rng):
        return np.zeros(self.size)


class _REDState:
    """Floyd & Jacobson (1993) RED over a batch of scenarios.

    Per-scenario state is kept in Python lists: the work per step is a handful
    of scalar operations per scenario, which plain floats do fastest.
    """

    def __init__(self, specs):
        self.ecn = specs[0].ecn
        self.gentle = specs[0].gentle
        if any(s.gentle != self.gentle for s in specs):
            raise ValueError("queue: a batch must not mix gentle and plain RED")
        size = len(specs)
        self.keep = [1.0 - s.weight for s in specs]
        self.log_keep = [math.log(k) if k > 0 else -math.inf for k in self.keep]
        self.table, self.one = [None] * size, [None] * size
        for i, spec in enumerate(specs):
            self._set_curve(i, spec.min_th, spec.max_th, spec.max_p)
        self.avg = [0.0] * size
        self.count = [0.0] * size  # packets accepted since the last drop
        self.threshold = None  # uniform U of F&J's spacing, drawn on first use

    def _set_curve(self, s, min_th, max_th, max_p):
        # red.drop_probability tabulated at its breakpoints: the curve is
        # piecewise linear between them, so linear interpolation reproduces it
        # exactly (the one law, written once) at a fraction of a call's cost.
        xp = np.array([0.0, min_th, np.nextafter(max_th, 0.0), max_th, 2 * max_th, 4 * max_th + 1e9])
        fp = np.asarray(red.drop_probability(xp, min_th, max_th, max_p, gentle=self.gentle), dtype=float)
        self.table[s] = (xp.tolist(), fp.tolist())
        # Where the curve first reaches 1: at and above it every arrival is dropped.
        self.one[s] = float(xp[np.argmax(fp >= 1.0)])

    def observe(self, arrivals, now, dt):
        """See the step's arrivals per flow (``arrivals`` shaped scenario x flow)."""

    def _p_b(self, s, avg):
        xp, fp = self.table[s]
        i = bisect.bisect_right(xp, avg) - 1
        if i >= len(xp) - 1:
            return fp[-1]
        return fp[i] + (fp[i + 1] - fp[i]) * (avg - xp[i]) / (xp[i + 1] - xp[i])

    def early_drops(self, q, arrivals, idle, serve, rng):
        if self.threshold is None:
            self.threshold = (1.0 - rng.random(len(self.avg))).tolist()
        drops = np.zeros(arrivals.size)
        self.forced = np.zeros(arrivals.size)  # of which forced (p_b = 1): never marked
        rows = zip(q.tolist(), arrivals.tolist(), idle.tolist(), serve.tolist(), strict=True)
        for s, (q0, a, m, c) in enumerate(rows):
            # The queue moves by up to a step's service while the step's packets
            # arrive.  Near the all-drop point that matters (the step would be
            # judged by one stale value): there, judge the packets in up to SUB
            # slices, each against the queue it meets.
            avg, keep = self.avg[s], self.keep[s]
            reach = avg + max(q0 + a - avg, 0.0) * (1.0 - keep**a)  # highest the average can get
            near = max(avg, reach) >= self.one[s]
            parts = max(1, min(SUB, int(a))) if near else 1
            total = 0.0
            for i in range(parts):
                chunk = (a * (i + 1)) // parts - (a * i) // parts
                mid = max(q0 + 0.5 * (chunk - c / parts), 0.0)
                dropped = self._step(s, mid, chunk, rng)
                q0 = max(q0 + chunk - dropped - c / parts, 0.0)
                total += dropped
            # An idle link decays the average as if the packets it could have
            # sent had arrived to an empty queue (F&J's m).
            if m > 0:
                self.avg[s] *= self.keep[s] ** m
            drops[s] = total
        return drops

    def _step(self, s, q, a, rng):
        # EWMA with weight w per arriving packet (F&J), the queue taken as
        # constant over the slice: after j arrivals avg_j = q + (avg - q) keep^j.
        keep, avg0, one = self.keep[s], self.avg[s], self.one[s]
        avg1 = q + (avg0 - q) * keep**a
        self.avg[s] = avg1
        forced = 0.0
        at = avg1  # average the spaced (early) drops are judged at
        if a > 0 and (avg0 >= one or avg1 >= one):
            # The average crosses the all-drop point inside the slice: count the
            # arrivals on each side instead of judging them all by one value.
            lk = self.log_keep[s]
            if keep == 0.0 or q == avg0:
                above = a if avg1 >= one else 0.0
            elif avg0 >= one:  # falling (q < one) or staying above
                above = a if q >= one else min(a, math.floor(math.log((one - q) / (avg0 - q)) / lk))
            else:  # rising through `one` towards q > one
                below = math.ceil(math.log((q - one) / (q - avg0)) / lk) - 1
                above = a - min(a, max(below, 0))
                at = avg0
            forced = float(above)
            if forced:
                self.count[s] = 0.0
                self.forced[s] += forced
            a -= forced
        return forced + self._spaced(s, self._p_b(s, at) if at < one else 0.0, a, rng)

    def _spaced(self, s, pb, a, rng):
        """Drops among ``a`` arrivals of scenario ``s`` at base probability ``pb``."""
        if pb <= 0.0:
            self.count[s] = 0.0  # F&J reset the count below min_th
            return 0.0
        # Count-based spacing: the gap between drops is uniform on [1, 1/p_b]
        # (p_a = p_b / (1 - count p_b)), i.e. the next drop falls on the packet
        # at which the count reaches U / p_b, a fresh uniform U per drop.
        count = self.count[s]
        pos = max(1.0, math.ceil(self.threshold[s] / pb - count))
        if pos > a:
            self.count[s] = count + a
            return 0.0
        drops, last, u = 0, pos, self.threshold[s]
        while pos <= a:
            drops += 1
            last = pos
            u = 1.0 - rng.random()
            pos += max(1.0, math.ceil(u / pb))
        self.threshold[s] = u
        self.count[s] = a - last
        return float(drops)


class _FPQState(_REDState):
    """FPQ: RED whose curve follows a bit-vector count of the active flows."""

    gentle = False
    ecn = False

    def __init__(self, scenarios, rng):
        self.specs = [s.queue for s in scenarios]
        self.bdp = [s.bdp for s in scenarios]
        size = len(scenarios)
        self.keep = [1.0 - q.weight for q in self.specs]
        self.log_keep = [math.log(k) for k in self.keep]
        self.table, self.one = [None] * size, [None] * size
        # One generator for the whole run: the counters draw their clears from it.
        self.counters = [fpq.BitVectorCounter(q.bits, q.t_clear, rng=rng) for q in self.specs]
        self.flows = [1.0] * size
        self.history = [[] for _ in range(size)]  # (time, estimate) at each retune
        for i in range(size):
            self._retune(i, 1.0, 0.0)
        self.avg = [0.0] * size
        self.count = [0.0] * size
        self.threshold = None

    def _retune(self, s, flows, now):
        q = self.specs[s]
        p = fpq.red_params(flows, self.bdp[s], q.ppf, q.max_loss, q.min_th)  # Fig. 6.4
        self._set_curve(s, p.min_th, p.max_th, p.max_p)
        self.flows[s] = flows
        self.history[s].append((now, flows))

    def observe(self, arrivals, now, dt):
        for s, row in enumerate(arrivals):
            ids = np.flatnonzero(row)
            if not ids.size:
                continue
            packets = np.repeat(ids, row[ids].astype(np.int64))
            times = now + dt * (np.arange(packets.size) + 0.5) / packets.size
            flows = max(1.0, self.counters[s].update(packets, times))
            if abs(flows - self.flows[s]) > 0.01 * self.flows[s]:
                self._retune(s, flows, now)


def make_queue(scenarios, rng):
    """Return the engine state of a batch of scenarios with same-kind queues.

    Parameters
    ----------
    scenarios : list of Scenario
        The batch; every queue spec must be of one kind.
    rng : numpy.random.Generator
        The run's single generator (FPQ's counters draw from it).

    Returns
    -------
    object
        State with ``observe(arrivals, now, dt)`` and
        ``early_drops(q, arrivals, idle, serve, rng)`` [packets per scenario].
        Drop-tail and random drop share the state (no early drops); the
        engine chooses the victims of an overflow.
    """
    specs = [s.queue for s in scenarios]
    kind = type(specs[0])
    if any(type(s) is not kind for s in specs):
        raise ValueError("queue: a batch must use one queue discipline")
    if issubclass(kind, RED):
        return _REDState(specs)
    if issubclass(kind, DropTail):
        return _DropTailState(specs)
    if issubclass(kind, FPQ):
        return _FPQState(scenarios, rng)
    raise ValueError(f"queue: no engine for {kind.__name__}")
