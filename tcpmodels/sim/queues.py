"""Vectorized queue disciplines of the engine: one state object per batch.

Each discipline sees, per time step and per scenario, the queue ``q`` before
the step's arrivals and the number ``A`` of packets arriving, and returns how
many of those arrivals it drops early.  The engine applies the hard buffer
limit afterwards and spreads the drops over the flows' arrivals.  A new
discipline plugs in by adding a spec in :mod:`.scenario` and a class here with
``early_drops(q, arrivals, idle, rng)``.
"""

import math

import numpy as np

from .. import red
from .scenario import RED, DropTail

__all__ = ["make_queue"]


class _DropTailState:
    """Drop-tail drops nothing early; the engine's buffer limit does the rest."""

    def __init__(self, specs):
        self.size = len(specs)

    def early_drops(self, q, arrivals, idle, rng):
        return np.zeros(self.size)


class _REDState:
    """Floyd & Jacobson (1993) RED over a batch of scenarios."""

    def __init__(self, specs):
        self.min_th = np.array([s.min_th for s in specs])
        self.max_th = np.array([s.max_th for s in specs])
        self.max_p = np.array([s.max_p for s in specs])
        self.keep = 1.0 - np.array([s.weight for s in specs])
        self.gentle = specs[0].gentle
        if any(s.gentle != self.gentle for s in specs):
            raise ValueError("queue: a batch must not mix gentle and plain RED")
        size = len(specs)
        # red.drop_probability tabulated at its breakpoints: the curve is
        # piecewise linear there, so np.interp reproduces it exactly (the one
        # law, written once) at a fraction of a validated call's cost per step.
        self.table = []
        for lo, hi, mp in zip(self.min_th, self.max_th, self.max_p):
            xp = np.array([0.0, lo, np.nextafter(hi, 0.0), hi, 2 * hi, 4 * hi + 1e9])
            self.table.append((xp, red.drop_probability(xp, lo, hi, mp, gentle=self.gentle)))
        self.avg = np.zeros(size)
        self.count = np.zeros(size)  # packets accepted since the last drop
        self.threshold = None  # uniform U of F&J's spacing, drawn on first use

    def early_drops(self, q, arrivals, idle, rng):
        if self.threshold is None:
            self.threshold = 1.0 - rng.random(self.avg.size)
        # EWMA with weight w per arriving packet (F&J), the queue taken as
        # constant over the step; an idle link decays the average as if the
        # packets it could have sent had arrived to an empty queue (F&J's m).
        avg = self.avg
        avg -= q
        avg *= self.keep ** (arrivals + idle)
        avg += q * self.keep**idle
        drops = np.zeros(arrivals.size)
        for s, (x, a) in enumerate(zip(avg.tolist(), arrivals.tolist())):
            xp, fp = self.table[s]
            drops[s] = self._spaced(s, float(np.interp(x, xp, fp)), a, rng)
        return drops

    def _spaced(self, s, pb, a, rng):
        """Drops among ``a`` arrivals of scenario ``s`` at base probability ``pb``."""
        if pb <= 0.0:
            self.count[s] = 0.0  # F&J reset the count below min_th
            return 0.0
        if pb >= 1.0:
            self.count[s] = 0.0
            return a
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


def make_queue(specs):
    """Return the engine state of a batch of same-kind queue specs."""
    kind = type(specs[0])
    if any(type(s) is not kind for s in specs):
        raise ValueError("queue: a batch must use one queue discipline")
    if issubclass(kind, RED):
        return _REDState(specs)
    if issubclass(kind, DropTail):
        return _DropTailState(specs)
    raise ValueError(f"queue: no engine for {kind.__name__}")
