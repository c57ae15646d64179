"""Workloads: when each flow has data to send, when it ends, when it starts again."""

import numpy as np

from . import draws as site
from . import scenario as spec
from .flows import STALLED, batch_width, lay_out
from .result import Transfers as TransferTable

__all__ = ["LongLived", "Transfers", "make_workload"]


class LongLived:
    """Long-lived flows (Morris 1999, ch. 3): each starts once, at a uniform time in [0, start_spread], and never ends.

    Parameters
    ----------
    start_spread : ndarray
        Each flow's start window [s].
    """

    # Flows never end: the engine skips the per-step completion check.
    finite = False

    def __init__(self, start_spread):
        self.start_spread = np.asarray(start_spread, dtype=float)

    def start_times(self, u):
        """When each flow starts [s], from one uniform on [0, 1) per flow ``u``."""
        return self.start_spread * u

    def attach(self, flows, sender, draws, link_loss):
        """The batch's flows, sender, random streams (``Draws``) and each flow's link loss probability [-] are built."""

    def start(self, j, sender, now):
        """Flows ``j`` reached their start: they open with data to send for ever."""
        sender.open(j)

    def table(self, s, n):
        """Scenario ``s``'s completed transfers (none)."""
        return _empty()


def _empty():
    none = np.zeros(0)
    return TransferTable(flow=np.zeros(0, dtype=np.int64), size=none, start=none, completion=none)


class Transfers(LongLived):
    """Finite transfers, each on a new connection (Morris 1999, section 7.1), beside long-lived flows.

    A source opens a connection (the SYN meets the bottleneck's current loss
    rate; its SYN-ACK returns a round trip later, or the SYN is sent again
    after the connection time-out, doubled on each further loss), sends its
    transfer in slow start from the initial window, and when the ACK of its
    last packet is in, opens the next connection.

    Parameters
    ----------
    scenarios : list of Scenario
        The batch (same workload layout).
    start_spread : ndarray
        Each flow's start window [s].
    """

    finite = True

    def __init__(self, scenarios, start_spread):
        super().__init__(start_spread)
        per_flow = lambda value: lay_out([  # noqa: E731  one entry per flow
            np.repeat([value(w) for _, w in s.workloads], [c for c, _ in s.workloads]) for s in scenarios],
            batch_width(scenarios))
        self.finite_flow = per_flow(lambda w: isinstance(w, spec.FiniteTransfers)).astype(bool)
        self.mean = per_flow(lambda w: getattr(w, "size", np.inf)).astype(float)
        self.exponential = per_flow(lambda w: getattr(w, "distribution", "") == "exponential").astype(bool)
        self.timeout = per_flow(lambda w: getattr(w, "connection_timeout", 0.0)).astype(float)
        N = self.mean.size
        self.syn_ok = ~self.finite_flow  # long-lived flows open without a handshake
        self.syn_tries = np.zeros(N)
        self.t_start = np.zeros(N)
        self.size = np.zeros(N)
        self.loss_now = np.zeros(len(scenarios))  # the bottleneck's loss rate in the last step [-]
        self.done = []  # (flows, sizes, starts, completion time) per step with completions

    def attach(self, flows, sender, draws, link_loss):
        """The batch's flows, sender, random streams (``Draws``) and each flow's link loss probability [-]."""
        self.f, self.sender, self.draws, self.link_loss = flows, sender, draws, link_loss
        flows.target = np.full(flows.N, np.inf, dtype=flows.real)
        self.max_rto = sender.max_rto

    def observe(self, dropped, arrived, link):
        """The step's drops, arrivals and link losses (in both) per scenario: the queue's loss rate a SYN meets."""
        if link is not None:
            dropped, arrived = dropped - link, arrived - link
        self.loss_now = np.where(arrived > 0, dropped / np.maximum(arrived, 1.0), 0.0)

    def start(self, j, sender, now):
        """Flows ``j``'s timers fired while idle: a SYN-ACK is in (open the transfer) or a SYN is due."""
        ok = self.syn_ok[j]
        if ok.any():
            self._open(j[ok], now)
        if not ok.all():
            self._syn(j[~ok], now)

    def _syn(self, j, now):
        """Send a SYN on flows ``j``: its SYN-ACK comes back one round trip later, unless it is lost."""
        f = self.f
        # A SYN is lost at the queue as often as the last step's packets, and
        # on the link like any packet; it takes no capacity (40 bytes).
        p = 1.0 - (1.0 - self.loss_now[f.scen[j]]) * (1.0 - self.link_loss[j])
        lost = self.draws.flow_uniform(site.SYN, j) < p  # (a flow sends at most one SYN a step)
        wait = np.minimum(self.timeout[j] * 2.0 ** self.syn_tries[j], self.max_rto[j])
        f.t_next[j] = now[j] + np.where(lost, wait, f.prop[j] + f.qdelay(j))
        self.syn_ok[j] = ~lost
        self.syn_tries[j] = np.where(lost, self.syn_tries[j] + 1, 0.0)

    def _open(self, j, now):
        """The handshake of flows ``j`` is done: their transfer starts, in slow start from the initial window."""
        f = self.f
        size = self.mean[j]
        expo = self.exponential[j]
        if expo.any():
            # Exponential with the given mean (by inversion of a uniform, the
            # flow's own), in whole packets, at least one (Morris 1999, section 7.1).
            drawn = -np.where(expo, size, 1.0) * np.log1p(-self.draws.flow_uniform(site.SIZE, j))
            size = np.where(expo, np.maximum(1.0, np.round(drawn)), size)
        size = np.where(self.finite_flow[j], size, np.inf)
        self.size[j] = size
        f.target[j] = f.acked[j] + size
        f.conn_acked[j] = np.where(self.finite_flow[j], f.acked[j], -1.0)
        f.conn_rto[j] = self.timeout[j]
        self.syn_ok[j] = ~self.finite_flow[j]
        self.sender.open(j)

    def completions(self, now, measuring):
        """Transfers whose last ACK is in end; their flows open a new connection at once."""
        f = self.f
        j = (f.acked >= f.target).nonzero()[0]
        if not j.size:
            return
        if measuring:
            self.done.append((j, self.size[j], self.t_start[j], now[j]))
        stalled = j[f.state[j] == STALLED]
        if stalled.size:
            f.stalled -= f.per_scenario(stalled)
        self.sender.new_connection(j)
        f.target[j] = np.inf
        self.t_start[j] = now[j]
        self._syn(j, now)

    def table(self, s, n):
        """Scenario ``s``'s completed transfers, in order of completion."""
        if not self.done:
            return _empty()
        flows = np.concatenate([d[0] for d in self.done])
        mine = (flows >= s * n) & (flows < (s + 1) * n)
        pick = lambda values: np.concatenate(values)[mine]  # noqa: E731
        return TransferTable(flow=flows[mine] - s * n,
                             size=pick([d[1] for d in self.done]),
                             start=pick([d[2] for d in self.done]),
                             completion=pick([np.full(d[0].size, d[3]) for d in self.done]))


def make_workload(scenarios, start_spread):
    """The workload engine of a batch: long-lived flows only, or finite transfers (beside long-lived ones).

    Parameters
    ----------
    scenarios : list of Scenario
        The batch (same workload layout).
    start_spread : ndarray
        Each flow's start window [s].

    Returns
    -------
    LongLived or Transfers
    """
    if all(isinstance(w, spec.LongLived) for s in scenarios for _, w in s.workloads):
        return LongLived(start_spread)
    return Transfers(scenarios, start_spread)
