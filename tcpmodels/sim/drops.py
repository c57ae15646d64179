"""The drop assignment: which flows lose a step's drops."""

import numpy as np

__all__ = ["spread"]


def spread(arrived, drops, link, flows, owner, n, draws, which):
    """Spread each scenario's ``drops`` uniformly over the packets that arrived.

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
        elif k > 0:  # a uniform choice without replacement among the step's packets
            pick = draws.bits(which, np.arange(m)).argpartition(k - 1)[:k]
            counts = np.bincount(avail.cumsum().searchsorted(pick, side="right"), minlength=flows.size)
        else:
            counts = np.zeros(flows.size)
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
