"""Per-flow state of a batch: the arrays every part of the engine reads and writes.

A batch of S scenarios keeps its flows flat, n per scenario (S * n, the flows
of scenario s at ``s * n .. s * n + n - 1``), so that each step updates all
flows of all scenarios with one numpy call per quantity.  n is the most flows
any member has (``batch_width``); a member with fewer is padded with flows that
never start, so scenarios that differ only in their flow counts share a batch.
"""

from types import SimpleNamespace

import numpy as np

__all__ = ["Flows", "Shared", "at_flows", "flows_of", "state_dtype", "numbers", "batch_width", "lay_out",
           "FLOAT32_FLOWS", "OPEN", "PENDING", "RECOVERY", "STALLED", "IDLE"]

# The flow's place in its loss cycle: sending; a loss waits for its duplicate
# ACKs; fast recovery; waiting for the retransmission timer; not started.
# (0-d arrays of the state's dtype, as ``numbers``: numpy compares with and writes them at 60 % of a Python
# int's cost, 0.34 against 0.58 us on 1000 states.)
OPEN, PENDING, RECOVERY, STALLED, IDLE = (np.array(state, dtype=np.int8) for state in range(5))

# The numbers the step's passes compare the state with and scale it by.
_NUMBERS = dict(zero=0.0, half=0.5, one=1.0, two=2.0, minus_two=-2.0, inf=np.inf)
_BY_DTYPE = {}  # (``numbers``' namespaces, one a dtype)


def numbers(real):
    """The step's numbers (``_NUMBERS``) as 0-d arrays of dtype ``real``: ``numbers(real).zero``, ...

    numpy takes a 0-d array of its operand's own dtype at about 60 % of a
    Python float's cost (0.30 against 0.47 us on 100 floats: no scalar to
    convert at each call), where a step makes a few hundred calls on arrays
    of about a hundred flows; and as each number is exact in float32, a
    result is the float's to the bit and the dtype (with float64 operands
    too, which a float32 0-d array does not narrow).

    Parameters
    ----------
    real : dtype
        The per-flow state's dtype (``state_dtype``: float64, or float32 in large batches).
    """
    real = np.dtype(real)
    if real not in _BY_DTYPE:
        _BY_DTYPE[real] = SimpleNamespace(**{name: np.array(value, dtype=real) for name, value in _NUMBERS.items()})
    return _BY_DTYPE[real]


# Per-flow state in float32 from this many flows in a batch (see state_dtype).
FLOAT32_FLOWS = 10_000


class Shared:
    """A time or a step length [s] that every flow of a batch shares: read at any flows, the number.

    A batch whose scenarios run at different steps keeps these per flow
    (arrays over the flat S * n flows); one whose scenarios share their step
    keeps one number.  Both are read the same way, ``now[j]`` at flows ``j``
    and ``now[:]`` at all of them, so each pass is written once; a shared one
    reads as a Python float, on which numpy's calls take their fast path
    (a float subclass costs 1-2 us more a call) and give the same numbers.

    Parameters
    ----------
    value : float
        The number [s].
    """

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = float(value)

    def __getitem__(self, j):
        return self.value


def flows_of(rows, n):
    """The flat places of the flows of scenarios ``rows`` in a layout of ``n`` flows each.

    Parameters
    ----------
    rows : sequence of int
        Scenarios of the batch.
    n : int
        Flows per scenario in the layout.
    """
    return (np.asarray(rows)[:, None] * n + np.arange(n)).ravel()


def at_flows(t):
    """A time or step length as the flows read it (``t[j]``): ``Shared`` where it is one number, else as it is.

    Parameters
    ----------
    t : float or ndarray
        One time for all flows [s], or one per flow (S * n).
    """
    return Shared(t) if isinstance(t, (float, int)) else t


def batch_width(scenarios):
    """Flows per scenario in a batch's flat layout: the most any member has.

    Parameters
    ----------
    scenarios : sequence of Scenario
        The batch.

    Returns
    -------
    int
        The largest ``n_flows`` among them.
    """
    return max(s.n_flows for s in scenarios)


def lay_out(per_scenario, width):
    """Each scenario's per-flow values flat, each padded to ``width`` with its last value.

    The padding flows never start; a value like their scenario's keeps them
    harmless where a batch-wide reduction (a maximum window, a shortest RTT)
    reads them.

    Parameters
    ----------
    per_scenario : sequence of array_like
        One array of per-flow values per scenario, each at most ``width`` long.
    width : int
        Flows per scenario in the layout (``batch_width``).

    Returns
    -------
    ndarray of float
        ``len(per_scenario) * width`` values.
    """
    return np.concatenate([np.pad(np.asarray(v, dtype=float), (0, width - len(v)), mode="edge")
                           for v in per_scenario])


def state_dtype(flows, max_window, duration, min_rtt):
    """The dtype of the per-flow packet counts and windows of a batch.

    Parameters
    ----------
    flows : int
        Flows in the batch [-].
    max_window : float
        Largest window of any flow [packets].
    duration : float
        Simulated time [s].
    min_rtt : float
        Smallest propagation RTT [s].

    Returns
    -------
    type
        ``numpy.float32`` or ``numpy.float64``.

    Notes
    -----
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


class Flows:
    """The state of every flow of a batch (flat arrays, one entry per flow).

    Parameters
    ----------
    n : int
        Flows per scenario [-].
    prop : ndarray
        Unloaded RTT of each flow: propagation and serialization (``Scenario.serialization``) [s].
    capacity : ndarray
        Bottleneck rate of each scenario [packets/s].
    max_window : ndarray
        Each flow's largest window [packets].
    start : ndarray
        When each flow starts [s].
    real : type
        dtype of the packet counts and windows (see ``state_dtype``).
    propagation : ndarray
        Propagation RTT of each flow, as drawn (what the results report) [s].
    counts : sequence of int, optional
        Each scenario's own flows, the first of its n (default: all n; the rest never start).
    """

    def __init__(self, n, prop, capacity, max_window, start, real, propagation, counts=None):
        S, N = capacity.size, prop.size
        self.S, self.n, self.N, self.real = S, n, N, real
        self.c = numbers(real)
        self.counts = [n] * S if counts is None else list(counts)
        self.scen = np.arange(N) // n  # each flow's scenario
        self.edges = np.arange(S + 1) * n  # the scenarios' first flows
        self.prop, self.capacity, self.max_window = prop, capacity, max_window
        self.propagation = propagation
        self.q = np.zeros(S)  # each scenario's bottleneck queue [packets] (the engine's)
        self.stalled = np.zeros(S)  # flows waiting for their retransmission timer, per scenario
        zeros = lambda dtype=real: np.zeros(N, dtype=dtype)  # noqa: E731
        self.cwnd = np.ones(N, dtype=real)  # the sender sets its initial window
        self.ssthresh = max_window.astype(real)
        self.inflight = zeros()
        self.backlog = zeros()  # packets waiting on the access link
        self.tokens = np.ones(N, dtype=real)  # the access link's sending credit
        self.acked = zeros()  # cumulative ACKed packets (goodput)
        self.sent = zeros()  # cumulative packets handed to the access link
        self.dropped = zeros()  # cumulative packets of the flow dropped
        self.unseen_drops = zeros(float)  # written-off packets removed from the queue (random drop, CHOKe)
        self.grow = zeros()  # ack_gain while the window may grow, else 0
        self.can_send = zeros()
        self.state = np.full(N, IDLE, dtype=np.int8)
        self.t_next = start.copy()  # next timer of the flow's state machine [s]
        self.backoff = np.ones(N)
        self.acked_at_rto = np.full(N, -1.0)
        self.sent_mark = zeros()  # `sent` before the packets sent after the first loss
        # The receiver's window while a hole holds its left edge (SND.UNA + RCV.WND, RFC 9293 3.8.6):
        # the `sent` count new data may reach (retransmissions move it with them); inf where it cannot bind.
        self.edge = np.full(N, np.inf, dtype=real)
        self.edged = False  # (set once an edge was set: until then no window needs the bound)
        self.drop_mark = zeros()  # `dropped` before the loss event
        # `acked` once every packet sent before the first loss is ACKed: the ACKs
        # beyond it are duplicate ACKs (senders that count them as they come).
        self.ack_mark = zeros()
        self.t_dupack = zeros(float)  # when the first duplicate ACK came: the timer's base [s]
        self.retx_pending = zeros(float)  # retransmissions still to leave the access link
        self.retx_lost = zeros(bool)
        self.timer_first = zeros(bool)  # in fast recovery, the retransmission timer fires before its first ACK
        self.carried = zeros(float)  # new data lost during fast recovery
        # The holes not yet found lost (senders that count duplicate ACKs: ``track_holes``).
        self.hole_at = self.hole_n = self.holes = self.holes_below = None
        # When a partial ACK in fast recovery stopped at a hole not yet found lost (its timer's base) [s].
        self.t_partial = np.full(N, np.inf)
        # When the flow's last congestion event began, at its fast retransmit or time-out: the
        # losses added to it later are logged at that time [s].
        self.t_event = zeros(float)
        # Proportional Rate Reduction (RFC 6937 3): `acked` and `sent` where
        # prr_delivered and prr_out count from, and RecoverFS, the pipe at its start.
        self.prr_acked0, self.prr_sent0, self.recover_fs = zeros(), zeros(), zeros()
        self.t_ece = np.full(N, np.inf)  # when a mark's echo reaches the sender (ECN only) [s]
        self.t_cwr = zeros(float)  # no second ECN reduction before this time [s]
        self.cwr = zeros(bool)  # in an ECN reduction's round trip (no growth; PRR senders reduce by PRR)
        # Finite transfers (workloads.Transfers sets them): the cumulative ACK
        # count that ends the flow's transfer (None: long-lived flows only);
        # the count when its connection opened, and its RTO until its first ACK.
        self.target = None
        self.conn_acked = np.full(N, -1.0)
        self.conn_rto = zeros(float)

    def track_holes(self, slots):
        """Keep each flow's lost packets not yet found lost, in up to ``slots`` groups (see ``holes``).

        ``hole_at[i]`` holds flow i's groups in the order they were sent: the
        count of its ACKed packets once every packet sent before the group's
        is ACKed (its place in the ACK stream); ``hole_n[i]`` how many lost
        packets each group holds (a step's drops of a flow form one group);
        ``holes[i]`` their sum; ``holes_below[i]`` how many of them were sent
        before fast recovery began (below its recovery point).
        """
        if self.hole_at is None:
            self.hole_at = np.full((self.N, slots), np.inf)
            self.hole_n = np.zeros((self.N, slots))
            self.holes, self.holes_below = np.zeros(self.N), np.zeros(self.N)

    def per_scenario(self, j):
        """How many of the (sorted) flows ``j`` each scenario has."""
        if self.S == 1:
            return np.array([j.size])
        # A search, not a gather (and a slice, not np.diff, whose Python wrapper costs more).
        at = j.searchsorted(self.edges)
        return at[1:] - at[:-1]

    def of_scenario(self, values, j):
        """Each scenario's ``values`` (S,) at its flows ``j``: one value for a lone scenario (it broadcasts)."""
        return values[0] if self.S == 1 else values[self.scen[j]]

    def qdelay(self, j):
        """The queueing delay flows ``j`` meet now [s] (see ``of_scenario``)."""
        return self.of_scenario(self.q / self.capacity, j)

    def check(self, limit):
        """Assert the per-flow invariants: queue within [0, limit], windows within [1, max], no NaN, timers set.

        A flow waiting for its loss's decision, its retransmission timer or its
        recovery's end leaves that state only by its timer: one never set would
        hold it there for the rest of the run.
        """
        q, cwnd = self.q, self.cwnd
        assert (q >= -1e-9).all() and (q <= limit + 1e-9).all(), "queue outside [0, buffer]"
        live = self.state != IDLE
        assert (cwnd[live] >= 1 - 1e-12).all() and (cwnd <= self.max_window + 1e-12).all(), "window out of range"
        assert np.isfinite(cwnd).all() and np.isfinite(q).all() and np.isfinite(self.inflight).all(), "NaN in state"
        waiting = (self.state >= PENDING) & (self.state <= STALLED)
        assert np.isfinite(self.t_next[waiting]).all(), "a stalled, pending or recovering flow without a timer"
