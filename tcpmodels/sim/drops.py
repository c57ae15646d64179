"""The drop assignment: which flows lose a step's drops."""

import numpy as np

__all__ = ["spread", "overflow_weights", "fifo_drops"]

# A train never shorter than this fraction of a step (an access link without a rate: a burst).
SHORTEST = 1e-6
# The weight of a packet the fluid queue lets through (it falls only where nothing else is left).
FLOOR = 1e-12
# A key's scenario above its 53 random bits, and one (as uint64: numpy takes them faster than scalars).
_S53, _ONE = np.array(53, dtype=np.uint64), np.array(1, dtype=np.uint64)


def spread(arrived, drops, link, flows, owner, n, draws, which, weight=None, per_packet=False):
    """Spread each scenario's ``drops`` over the packets that arrived: uniformly, or as ``weight`` says.

    Parameters
    ----------
    arrived : ndarray
        Packets each flow brought to the bottleneck this step [packets].
    drops : ndarray
        Drops of each scenario [packets], including ``link``'s.
    link : ndarray or None
        Packets each flow already lost on its link [packets], which count among ``drops``.
    flows : ndarray
        Every flow with packets in ``arrived`` (sorted).
    owner : ndarray or None
        Their scenarios (None for a batch of one).
    n : int
        Flows per scenario [-].
    draws : Draws
        The scenarios' random streams.
    which : int
        The draw site (``draws.DROP``, ``draws.MARK``): a packet's key is draw i of it, i its place in its scenario.
    weight : ndarray, optional
        Per flow in ``flows``: how likely its packets are to be dropped, relative
        to the other packets of its scenario [-] (positive).  The drops are then
        a weighted choice without replacement (Efraimidis & Spirakis 2006: the
        smallest keys -log(v) / w, v uniform).
    per_packet : bool, optional
        ``weight`` is per packet instead (the flows' packets one after another).

    Returns
    -------
    tuple of ndarray
        The flows hit (sorted, unique) and how many packets each lost.
    """
    S = drops.size
    avail = arrived[flows] if link is None else arrived[flows] - link[flows]
    rest = drops if link is None else drops - np.bincount(flows // n, weights=link[flows], minlength=S)
    if S == 1:
        ends = np.add.accumulate(avail)  # (whole packets: its last is their sum; the ufunc costs less than cumsum)
        k, m = int(rest[0]), int(ends[-1]) if ends.size else 0
        if k >= m:  # everything that arrived is dropped
            counts = avail.copy()
        elif k > 0:  # a choice without replacement among the step's packets
            key = draws.bits_range(which, 0, m)
            if weight is not None:
                key = _weighted(key, weight if per_packet else np.repeat(weight, avail.astype(np.int64)))
            pick = key.argpartition(k - 1)[:k]
            counts = np.bincount(ends.searchsorted(pick, side="right"), minlength=flows.size)
        else:
            counts = np.zeros(flows.size)
    elif weight is not None and (rest > 0).any() and avail.any():
        counts = _weighted_batch(avail, rest, weight, owner, draws, which, S, flows.size, per_packet)
    elif (rest > 0).any() and avail.any():
        # The same per scenario, all at once: every packet draws 53 random
        # bits, the same as alone (draw i of its scenario, i its place
        # there), its key their number plus s 2^53 (s its scenario); the
        # `rest[s]` smallest keys of scenario s are dropped (all, if it has
        # fewer): those below its rest[s]-th smallest plus one, read off the
        # keys in order (where it drops none, below 0).  (A sort of the keys, not
        # a partition at those places: the same values there, and numpy's SIMD
        # sort costs half the partition at a batch's tens of places; a count
        # weighted by the choice, not one of the chosen gathered.)
        whose = np.repeat(np.arange(flows.size), avail.astype(np.int64))
        s_of = owner[whose]
        tot = np.bincount(s_of, minlength=S)
        first = tot.cumsum() - tot  # each scenario's first packet
        key = draws.bits_runs(which, tot) | np.left_shift(s_of, _S53, dtype=np.uint64, casting="unsafe")
        take = np.minimum(np.ceil(rest), tot)
        at = np.maximum(first + take - 1, 0).astype(np.int64)
        last = np.sort(key)[at]
        below = np.where(take > 0, last + _ONE, 0)
        counts = np.bincount(whose, weights=key < below[s_of], minlength=flows.size)
    else:
        counts = np.zeros(flows.size)
    if link is not None:
        counts = counts + link[flows]
    hit = (counts > 0).nonzero()[0]
    return flows[hit], counts[hit]


def _weighted(bits, weight):
    """Keys whose smallest k are a choice of k weighted by ``weight``: log(-log(1 - v)) - log w.

    Monotone in -log(1 - v) / w, and for equal weights in the bits
    themselves: the same choice as the uniform one.
    """
    return np.log(-np.log1p((bits + 0.5) * -(2.0 ** -53))) - np.log(weight)


def _weighted_batch(avail, rest, weight, owner, draws, which, S, m, per_packet):
    """spread's weighted choice per scenario of a batch: each packet's key as alone, ranked within its scenario."""
    whose = np.repeat(np.arange(m), avail.astype(np.int64))
    s_of = owner[whose]
    tot = np.bincount(s_of, minlength=S)
    first = tot.cumsum() - tot
    key = _weighted(draws.bits_runs(which, tot), weight if per_packet else weight[whose])
    order = np.lexsort((key, s_of))
    s_sorted = s_of[order]
    chosen = order[np.arange(order.size) - first[s_sorted] < np.minimum(np.ceil(rest), tot)[s_sorted]]
    return np.bincount(whose[chosen], minlength=m).astype(float)


def overflow_weights(arrived, flows, owner, S, q, serve, limit, access, u):
    """How likely each flow's packets are to arrive at a full drop-tail buffer within a step.

    Each flow's ``arrived`` packets leave its access link back to back at its
    rate ``access``, one train of ``arrived / access`` of the step (the ACKs
    that released them came at a time within the step nobody tracks: it
    starts at a uniform point ``u`` of the rest).  The bottleneck serves
    ``serve`` a step, fluid; the queue starts at ``q`` and whatever would rise
    above ``limit`` is dropped.  A train's weight is the fraction of it that
    arrives at a full buffer: the share of the step's drops that fall on it,
    per packet, where trains overlap at the full buffer in proportion to
    their rates.  The queue is followed per scenario in a row of its own (as
    alone); its floor at zero is left out (it matters only where the queue
    runs dry and refills within one step).

    Parameters
    ----------
    arrived : ndarray
        Packets of each flow in ``flows`` that reach the queue [packets].
    flows : ndarray
        The flows with packets (sorted).
    owner : ndarray or None
        Their scenarios (None for a batch of one).
    S : int
        Scenarios in the batch [-].
    q, serve, limit : ndarray
        Each scenario's queue before the step, service per step and buffer [packets].
    access : ndarray
        Each flow's access link per step [packets] (``inf``: none).
    u : ndarray
        A uniform on [0, 1) per flow: where its train starts.

    Returns
    -------
    ndarray
        Per flow: the fraction of its packets the fluid queue drops [-], at least ``FLOOR``.
    """
    m = flows.size
    s = np.zeros(m, dtype=np.int64) if owner is None else owner
    per = np.bincount(s, minlength=S)
    col = np.arange(m) - (per.cumsum() - per)[s]  # each flow's place in its scenario
    M = int(per.max())
    length = np.minimum(np.maximum(arrived / access, SHORTEST), 1.0)
    start = u * (1.0 - length)
    # Events per row: the step's start, M train starts, M train ends (unused ones at the step's end).
    time = np.ones((S, 2 * M + 1))
    rate = np.zeros((S, 2 * M + 1))
    time[:, 0] = 0.0
    time[s, 1 + col], time[s, 1 + M + col] = start, start + length
    rate[s, 1 + col] = arrived / length
    rate[s, 1 + M + col] = -rate[s, 1 + col]
    K = 2 * M + 1
    order = np.argsort(time, axis=1, kind="stable")
    order += np.arange(0, S * K, K)[:, None]  # into the flat rows
    time = time.ravel()[order]
    level = rate.ravel()[order].cumsum(axis=1)  # arrival rate after each event
    span = np.empty_like(time)
    np.subtract(time[:, 1:], time[:, :-1], out=span[:, :-1])
    span[:, -1] = 1.0 - time[:, -1]
    # The queue above the buffer at each event (before the reflection), its running
    # maximum the drops so far: those of segment k are its rise over k.
    rise = (level - serve[:, None]) * span
    above = np.empty_like(rise)
    above[:, 0] = q - limit
    np.cumsum(rise[:, :-1], axis=1, out=above[:, 1:])
    above[:, 1:] += (q - limit)[:, None]
    dropped = np.maximum(np.maximum.accumulate(np.append(above, above[:, -1:] + rise[:, -1:], axis=1), axis=1), 0.0)
    # Per unit of a train's rate: the drops of each segment over the arrival rate in it.
    lost = np.diff(dropped, axis=1) / np.maximum(level, 1e-300)
    before = np.zeros_like(time)
    np.cumsum(lost[:, :-1], axis=1, out=before[:, 1:])
    where = np.empty(S * K, dtype=np.int64)  # each event's place in its sorted row
    where[order.ravel()] = np.tile(np.arange(K), S)
    at = s * K + col + 1
    before = before.ravel()
    share = (before[s * K + where[at + M]] - before[s * K + where[at]]) / length
    return np.maximum(share, FLOOR)


def fifo_drops(time, owner, drops, departures, tie):
    """Which of a step's arrivals a drop-tail FIFO drops, packet by packet (the phase effect).

    A full FIFO frees one place per packet service time, as a packet leaves;
    the first packet to arrive after that takes it and the others of that
    service time are dropped, unless places freed earlier are still free.
    ACK-clocked packets come a fixed time after a departure (their flow's
    round trip), so each flow's arrivals fall at the same phase of the
    service time round trip after round trip, and the late flows lose the
    overflow, persistently (Floyd & Jacobson 1992, "On traffic phase effects
    in packet-switched gateways": the drop-tail bias of a deterministic
    server, as in ns-3's dumbbells).  Here the step's departures come at
    times 0, 1, ... (in service times), its arrivals at ``time``; arrivals at
    the same instant go in the order of ``tie``, after a departure at it.
    The queue's content over the step rises and falls with them; a full
    buffer drops the arrivals that lift it to a new height, and the
    buffer's edge lies where that makes the step's ``drops`` (the engine's
    fluid count): the arrivals at the top ``drops`` heights (where the
    step's arrivals never rise that far above its start, the rest are those
    that left it highest, later in their service time first).  Each
    scenario is followed in a row of its own, as alone.

    Parameters
    ----------
    time : ndarray
        Per packet: its arrival [service times after the step's first departure].
    owner : ndarray or None
        Per packet: its scenario (None for a batch of one).
    drops : ndarray
        Per scenario: the packets the overflow drops this step [packets] (whole).
    departures : ndarray
        Per scenario: the step's departures [packets] (whole).
    tie : ndarray
        Per packet: a uniform on [0, 1) that orders arrivals at one instant.

    Returns
    -------
    ndarray of bool
        Per packet: whether it finds the buffer full.

    Examples
    --------
    Departures at 0 and 1, one drop: of two packets at 0.3 and 0.7 the first
    takes the place freed at 0; a third at 1.5 takes the one freed at 1.

    >>> fifo_drops(np.array([0.7, 0.3, 1.5]), None, np.ones(1), np.array([2]), np.zeros(3)).tolist()
    [True, False, False]
    """
    S = drops.size
    s = np.zeros(time.size, dtype=np.int64) if owner is None else owner
    arrivals = np.bincount(s, minlength=S)
    K = int((arrivals + departures).max())
    # Per row: the arrivals (+1, from the left) and the departures (-1, from the right; the rest padding).
    at = np.full((S, K), np.inf)
    rise, kind, tie_row = np.zeros((S, K)), np.ones((S, K)), np.zeros((S, K))
    col = np.arange(time.size) - (arrivals.cumsum() - arrivals)[s]
    at[s, col], rise[s, col], tie_row[s, col] = time, 1.0, tie
    gone = np.arange(K)[None, :] >= K - departures[:, None]
    at[gone] = (np.arange(K)[None, :] - (K - departures[:, None]))[gone]
    rise[gone], kind[gone] = -1.0, 0.0
    order = np.lexsort((tie_row, kind, at), axis=-1)
    step = np.take_along_axis(rise, order, axis=1)
    # The content after each event, from the edge; an arrival is dropped where that tops every earlier level and 0.
    level = np.cumsum(step, axis=1)
    top = np.maximum.accumulate(level, axis=1)
    above = level - np.maximum(top[:, -1] - drops, 0.0)[:, None]
    before = np.zeros((S, K))
    before[:, 1:] = np.maximum(top[:, :-1] - (level - above)[:, :-1], 0.0)
    lost = (step > 0) & (above > before)
    # Where the content never rises that far above the step's start (the engine's fluid count holds
    # a fraction more), the rest fall on the arrivals that left it highest, the later in the service
    # time first (the next to find it full).
    short = drops - lost.sum(axis=1)
    if (short > 0).any():
        when = np.take_along_axis(np.where(rise > 0, at, 0.0), order, axis=1)  # (no padding's inf)
        key = np.where((step > 0) & ~lost, level + np.mod(when, 1.0) / 2, -np.inf)
        rank = np.argsort(np.argsort(-key, axis=1, kind="stable"), axis=1, kind="stable")
        lost |= (rank < short[:, None]) & (key > -np.inf)
    where = np.empty((S, K), dtype=np.int64)
    np.put_along_axis(where, order, np.arange(K)[None, :].repeat(S, axis=0), axis=1)
    return lost[s, where[s, col]]
