"""Workloads: when each flow has data to send, when it ends, when it starts again."""

import numpy as np

__all__ = ["LongLived"]


class LongLived:
    """Long-lived flows (Morris 1999, ch. 3): each starts once, at a uniform time in [0, start_spread], and never ends.

    Parameters
    ----------
    start_spread : ndarray
        Each flow's start window [s].
    """

    def __init__(self, start_spread):
        self.start_spread = np.asarray(start_spread, dtype=float)

    def start_times(self, rng):
        """When each flow starts [s] (drawn from ``rng``)."""
        return self.start_spread * rng.random(self.start_spread.size)

    def start(self, j, sender):
        """Flows ``j`` reached their start: they open with data to send for ever."""
        sender.open(j)
