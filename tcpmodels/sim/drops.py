"""The drop assignment: which flows lose a step's drops."""

import numpy as np

__all__ = ["spread", "overflow_weights", "slot_weights"]

# A train never shorter than this fraction of a step (an access link without a rate: a burst).
SHORTEST = 1e-6
# The weight of a packet the fluid queue lets through (it falls only where nothing else is left).
FLOOR = 1e-12
# The packets of a train whose service phases slot_weights averages (k * slip mod 1 is spread evenly long before).
LONGEST_TRAIN = 64


def spread(arrived, drops, link, flows, owner, n, draws, which, weight=None):
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

    Returns
    -------
    tuple of ndarray
        The flows hit (sorted, unique) and how many packets each lost.
    """
    S = drops.size
    avail = arrived[flows] if link is None else arrived[flows] - link[flows]
    rest = drops if link is None else drops - np.bincount(flows // n, weights=link[flows], minlength=S)
    if S == 1:
        k, m = int(rest[0]), int(avail.sum())
        if k >= m:  # everything that arrived is dropped
            counts = avail.copy()
        elif k > 0:  # a choice without replacement among the step's packets
            key = draws.bits(which, np.arange(m))
            if weight is not None:
                key = _weighted(key, np.repeat(weight, avail.astype(np.int64)))
            pick = key.argpartition(k - 1)[:k]
            counts = np.bincount(avail.cumsum().searchsorted(pick, side="right"), minlength=flows.size)
        else:
            counts = np.zeros(flows.size)
    elif weight is not None and (rest > 0).any() and avail.any():
        counts = _weighted_batch(avail, rest, weight, owner, draws, which, S, flows.size)
    elif (rest > 0).any() and avail.any():
        # The same per scenario, all at once: every packet draws 53 random
        # bits, the same as alone (draw i of its scenario, i its place
        # there), its key their number plus s 2^53 (s its scenario); the
        # `rest[s]` smallest keys of scenario s are dropped (all, if it has
        # fewer): those at or below its rest[s]-th smallest, read off the
        # sorted keys.  (A sort of the keys, not an argsort: three times faster.)
        whose = np.repeat(np.arange(flows.size), avail.astype(np.int64))
        s_of = owner[whose]
        tot = np.bincount(s_of, minlength=S)
        first = tot.cumsum() - tot  # each scenario's first packet
        key = draws.bits(which, np.arange(whose.size) - first[s_of], s_of) | (s_of.astype(np.uint64) << np.uint64(53))
        take = np.minimum(np.ceil(rest), tot)
        ranked = np.sort(key)
        last = ranked[np.maximum(first + take - 1, 0).astype(np.int64)]
        counts = np.bincount(whose[(key <= last[s_of]) & (take > 0)[s_of]], minlength=flows.size).astype(float)
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


def _weighted_batch(avail, rest, weight, owner, draws, which, S, m):
    """spread's weighted choice per scenario of a batch: each packet's key as alone, ranked within its scenario."""
    whose = np.repeat(np.arange(m), avail.astype(np.int64))
    s_of = owner[whose]
    tot = np.bincount(s_of, minlength=S)
    first = tot.cumsum() - tot
    key = _weighted(draws.bits(which, np.arange(whose.size) - first[s_of], s_of), weight[whose])
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
    length = np.clip(arrived / access, SHORTEST, 1.0)
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


def slot_weights(phase, slip, count, serve, owner=None):
    """How likely each flow's packets are to lose the place of a full drop-tail buffer (the phase effect).

    A full FIFO frees one place per packet service time, as a packet leaves;
    the first packet to arrive after that takes it and the others of that
    service time are dropped.  A flow's packets are clocked by the ACKs of
    its packets that left: each comes a fixed time after a departure (its
    round trip), so it arrives at the same ``phase`` of the service time
    every round trip, and the flows whose phase lies later lose the overflow,
    persistently (Floyd & Jacobson 1992, "On traffic phase effects in
    packet-switched gateways": the drop-tail bias of a deterministic server,
    as in ns-3's dumbbells).  A packet loses if a packet of another flow came
    before it in its service time: of the step's B packets with an earlier
    phase (half of those at the same phase), each falls in its service time
    with probability 1 / ``serve``, so it loses with probability
    1 - exp(-B / serve).  The earliest flow is never beaten to the place.
    The packets of a train come ``slip`` of a service time apart (the access
    link's serialization time over the bottleneck's, modulo 1); a flow's
    weight is the mean over its packets (its first ``LONGEST_TRAIN`` phases,
    each standing for an equal share of its ``count``).

    Parameters
    ----------
    phase : ndarray
        Per flow: where its first packet of a train arrives in the service time [-], in [0, 1).
    slip : ndarray
        Per flow: the phase advance from one packet of its train to the next [-], in [0, 1).
    count : ndarray
        Per flow: its packets this step [packets] (> 0).
    serve : ndarray or float
        Per flow: its scenario's packet service times per step [-].
    owner : ndarray, optional
        Per flow: its scenario (None for a batch of one); flows of different scenarios never meet.

    Returns
    -------
    ndarray
        Per flow: its packets' mean chance to lose the place [-], at least ``FLOOR``.

    Examples
    --------
    Three flows of one packet each, a service time per step: the first is never
    beaten, the second by the first (1 - exp(-1)), the third by both.

    >>> w = slot_weights(np.array([0.1, 0.5, 0.9]), np.zeros(3), np.ones(3), 1.0)
    >>> np.round(w, 4).tolist()
    [0.0, 0.6321, 0.8647]
    """
    m = phase.size
    longest = int(min(max(np.ceil(count.max()), 1), LONGEST_TRAIN)) if np.any(slip) else 1
    share = count / np.clip(np.ceil(count), 1, longest)  # packets each of a flow's phases stands for
    k = np.arange(longest)
    used = k < np.clip(np.ceil(count), 1, longest)[:, None]
    at = np.mod(phase[:, None] + slip[:, None] * k, 1.0)
    # Each scenario's phases on their own stretch of the line: sort once for the batch.
    key = (at if owner is None else at + 2.0 * owner[:, None])[used]
    packets = np.broadcast_to(share[:, None], (m, longest))[used]
    order = np.argsort(key, kind="stable")
    sorted_key, before = key[order], np.concatenate(([0.0], np.cumsum(packets[order])))
    first, last = np.searchsorted(sorted_key, key, "left"), np.searchsorted(sorted_key, key, "right")
    # Earlier packets of its scenario, and half of the others at the same phase (a tie is a coin toss).
    start = 0 if owner is None else np.searchsorted(sorted_key, np.floor(key / 2.0) * 2.0, "left")
    ahead = before[first] - before[start] + (before[last] - before[first] - packets) / 2
    per = np.broadcast_to(np.reshape(serve, (-1, 1)), (m, longest))[used] if np.ndim(serve) else serve
    lose = np.zeros((m, longest))
    lose[used] = -np.expm1(-ahead / per)
    return np.maximum((lose * share[:, None]).sum(axis=1) / np.where(count > 0, count, 1.0), FLOOR)
