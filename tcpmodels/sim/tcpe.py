"""TCP/E (Kamra, Misra & Towsley) in the engine: an ECN echo freezes the window; slow start after an RTT without marks.

Only the reaction to ECN differs from NewReno: the receiver echoes each
marked packet in one ACK, and each such ACK leaves the window as it is and
puts the sender in congestion avoidance; a round trip without echoes puts it
back in slow start (unbounded by ssthresh).  The mode switches are the
paper's OnAck rule, :func:`tcpmodels.variants.tcpe_on_ack`.

One to one: each step's marks come back as echoes in the step their ACKs
return (a ring of echo counts, like the ACKs'), and there freeze as many of
that step's ACKs (with delayed ACKs, each ACK covers two packets and its
whole growth is withheld).
"""

import numpy as np

from .. import variants
from . import scenario as spec
from .flows import PENDING, at_flows
from .senders import ENGINES, NewReno

__all__ = ["TCPE"]


class TCPE(NewReno):
    """NewReno whose ECN echoes freeze the window instead of halving it (Kamra et al., Sec. 2)."""

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        N = flows.N
        self.last_ecn = np.full(N, -np.inf)  # lastECNtime of the OnAck rule [s]
        # Marked packets whose echoes are on their way back, by the step they return in.
        self.echoes = np.zeros((ring.L, N))
        self.acks = np.zeros(N)  # the step's ACKs per flow (a marked one must not have grown the window)
        self.slow = np.zeros(N, dtype=bool)  # the step's mode when its ACKs grew the window
        self.per_ack = np.zeros(N)  # what each of the step's ACKs added [packets]

    def increase(self, acks):
        """Grow as NewReno does, remembering each flow's ACKs, mode and growth per ACK (echoes undo theirs)."""
        f = self.f
        self.acks[:] = acks
        np.less(f.cwnd, f.ssthresh, out=self.slow)
        # Slow start: the ACK gain per packet; congestion avoidance: that over the window.
        np.divide(f.grow, np.where(self.slow, 1.0, np.maximum(f.cwnd, 1.0)), out=self.per_ack)
        super().increase(acks)

    def on_marks(self, j, now, counts=None):
        """Flows ``j`` had ``counts`` packets marked: one echo each comes back with their ACKs, a round trip later."""
        now = at_flows(now)  # (one number, or one per flow: see flows.Shared)
        f = self.f
        due = np.rint((now[j] + f.prop[j] + f.qdelay(j)) / self.dt[j]).astype(np.int64) % self.echoes.shape[0]
        np.add.at(self.echoes, (due, j), 1.0 if counts is None else counts)

    def on_echoes(self, nearest, now):
        """Echoes due by ``nearest`` freeze the window and switch to congestion avoidance; quiet RTTs to slow start."""
        now = at_flows(now)
        f = self.f
        row = self.echoes[int(round(now[0] / self.dt[0])) % self.echoes.shape[0]]  # the echoes due this step
        echoed = self.own(row > 0)
        # OnAck: slow start again after a round trip without an echo.  Only flows in
        # congestion avoidance whose last echo is older than their propagation RTT
        # (a lower bound of the RTT) can switch: the law decides for those alone.
        quiet = self.own((f.state <= PENDING) & ~self.slow & (now[:] - self.last_ecn > f.prop))
        if quiet.size:
            state = variants.tcpe_on_ack(f.cwnd[quiet].astype(float), False, False, now[quiet],
                                         self.last_ecn[quiet], f.prop[quiet] + f.qdelay(quiet))
            back = quiet[state.slow_start]
            f.ssthresh[back] = self.wmax[back]
        if not echoed.size:
            return
        # One echoing ACK per marked packet, at most the step's ACKs (half its packets with delayed ACKs).
        gain = self.ack_gain[echoed]
        marked = np.minimum(row[echoed], self.acks[echoed] * gain)
        row[echoed] = 0.0
        live = f.state[echoed] <= PENDING  # (recovery and time-outs have reduced anyway)
        j, marked, gain = echoed[live], marked[live], gain[live]
        cwnd = f.cwnd[j].astype(float)
        state = variants.tcpe_on_ack(cwnd, self.slow[j], True, now[j], self.last_ecn[j], f.prop[j] + f.qdelay(j))
        # An echoing ACK adds nothing (the window is frozen): take back what the step's echoing ACKs added.
        f.cwnd[j] = np.maximum(state.window - marked * self.per_ack[j] / gain, 1.0)
        # Congestion avoidance from here (ssthresh at the window); lastECNtime now.
        f.ssthresh[j] = np.where(state.slow_start, f.ssthresh[j], np.maximum(f.cwnd[j], 1.0))
        self.last_ecn[j] = state.last_ecn_time

    def new_connection(self, j):
        """A new connection starts with no ECN history."""
        super().new_connection(j)
        self.last_ecn[j] = -np.inf
        self.echoes[:, j] = 0.0


ENGINES[spec.TCPE] = TCPE
