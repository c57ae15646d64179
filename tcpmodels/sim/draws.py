"""Each scenario's own random numbers, whatever else shares its batch.

A scenario's result depends only on the scenario and its seed: every draw
comes from that scenario's own stream, and how many numbers a draw site takes
from it never depends on the other members of the batch.  Two kinds of
stream serve the two kinds of site:

* counter-based uniforms (``uniform``, ``bits``, ``scalar``): the number at
  step k, site, index i of scenario s is a hash of (s's key, k, site, i)
  (splitmix64: a Weyl sequence through Stafford's "Mix13" finalizer, a
  bijection of 64-bit words that passes BigCrush).  A batch may compute
  numbers a member alone would not, and in blocks of any size (RED's spacing
  loop); a member never sees them.  One numpy call sequence for the whole
  batch, and in pure Python for one scenario (the same integers, so the same
  floats).  For the sites with few draws a step;
* one numpy Generator per scenario and site (``random``, ``binomial``,
  ``generators``), where every scenario takes the same count alone as in a
  batch (a uniform per sending flow for the ACK ring, link-loss binomials,
  the initial RTTs and start times, FPQ's counters): a fast generator over a
  bulk of numbers, one call per scenario.

Seeds go through ``numpy.random.SeedSequence`` (``None``: fresh entropy per
scenario), each site's Generator from its own ``spawn_key``.
"""

import numpy as np

__all__ = ["Draws", "ACK", "LINK", "MATCH", "COUNTER", "START", "LEAD", "RETX", "DROP", "MARK", "EVICT",
           "CHOSEN", "SPACED", "LATER", "HOLD", "SYN", "SIZE", "TEST", "MARK_DROP", "PHASE"]

# Draw sites.  Generator streams: ACK-ring rounding, link loss, CHOKe's matches,
# FPQ's counters, initial RTTs and starts, CHOKe/RED-I's periodic tests.
# Counter-based: the first lost packet's place, lost retransmissions, the drop
# assignment, ECN marks, random drop's victims (and CoDel's head packets: the
# two never share a batch), CHOKe's queued victims, RED's spaced decisions in
# the first segment of a step and after forced drops, RED's held cycles, a
# finite transfer's SYN loss and exponential size.
# The counter's site field has 4 bits (sites 0-15, all taken); a Generator
# site is only a spawn key, so TEST lies beyond the field.
ACK, LINK, MATCH, COUNTER, START = range(5)
LEAD, RETX, DROP, MARK, EVICT, CHOSEN, SPACED, LATER, HOLD, SYN, SIZE = range(5, 16)
TEST = 16
MARK_DROP = 17  # Generator: RED-I's marks that become drops (Kamra et al.'s Bernoulli losses)
PHASE = 18  # Generator: where the packet service time starts against the flows' round trips (queues._DropTail)

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's Weyl increment (2^64 / golden ratio, odd)
_M1, _M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
# A draw's counter: step (mod 2^28) | site (4 bits) | index (32 bits), unique within a scenario.
_STEP_SHIFT, _SITE_SHIFT, _STEPS = 36, 32, 1 << 28
_UNIT = 2.0 ** -53
# Each site's part of the counter; as uint64, a row per site (added to a batch's keys once a step, in ``_start``).
_SITE_OFFSETS = [((site << _SITE_SHIFT) * _GOLDEN) & _MASK for site in range(16)]
_SITES = np.array(_SITE_OFFSETS, dtype=np.uint64)[:, None]
# A lone scenario draws up to this many of a site's uniforms at once in Python (``scalar``), more in numpy.
FEW_DRAWS = 8
# As 0-d arrays: numpy takes them faster than its scalars (a call costs more than its work here).
_G, _M1A, _M2A, _S30, _S27, _S31, _S11 = (np.array(c, dtype=np.uint64) for c in (_GOLDEN, _M1, _M2, 30, 27, 31, 11))


def _mix(z):
    """Stafford's Mix13 on uint64 ``z``, in place (one temporary: numpy's per-call cost matters here)."""
    t = z >> _S30
    z ^= t
    z *= _M1A
    np.right_shift(z, _S27, out=t)
    z ^= t
    z *= _M2A
    np.right_shift(z, _S31, out=t)
    z ^= t
    return z


def _lone_start(now, site):
    """A lone scenario's counter of draw 0 of ``site`` (``now``: its key plus the step's offset), 0-d uint64.

    (From Python ints: cheaper than the batch's table for a lone scenario's few draws a step.)
    """
    return np.array((now + _SITE_OFFSETS[site]) & _MASK, dtype=np.uint64)


def _scalar(now, site, index):
    """Draw ``index`` of ``site`` as a float, ``now`` the scenario's key plus the step's offset (pure Python)."""
    z = (now + ((site << _SITE_SHIFT) + index) * _GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return ((z ^ (z >> 31)) >> 11) * _UNIT


class Draws:
    """The random streams of a batch of S scenarios with n flows each.

    Parameters
    ----------
    seeds : sequence of int or None
        Each scenario's seed (None: fresh entropy).
    n : int
        Flows per scenario in the batch's flat layout [-].
    counts : sequence of int, optional
        Each scenario's own flows, the first of its n (default: all n).
    """

    def __init__(self, seeds, n, counts=None):
        self.S, self.n = len(seeds), n
        self.counts = [n] * self.S if counts is None else list(counts)
        self._entropy = [np.random.SeedSequence(s).entropy for s in seeds]
        self.keys = np.array([np.random.SeedSequence(e, spawn_key=(99,)).generate_state(1, np.uint64)[0]
                              for e in self._entropy], dtype=np.uint64)
        self._key0 = int(self.keys[0])
        self._generators = {}
        self._buffers = {}  # site: (a block of each scenario's next uniforms, where its unused ones start)
        self._lone_blocks = {}  # the same for a lone scenario: site: (its block, the first unused place)
        self._rows = np.arange(self.S)
        self._weyl = np.zeros(0, dtype=np.uint64)  # i times the Weyl increment, i = 0, 1, ... (grown on demand)
        self.at(0)

    def at(self, k):
        """Move to step ``k``: later counter-based draws belong to it."""
        self._offset = (((k % _STEPS) << _STEP_SHIFT) * _GOLDEN) & _MASK
        self.now0 = (self._key0 + self._offset) & _MASK
        self._starts = None  # (computed at the step's first counter-based draw: many steps draw none)

    def _start(self, site):
        """Each scenario's counter of draw 0 of ``site`` at this step, times the Weyl increment (S,; 0-d if S == 1)."""
        if self.S == 1:
            return _lone_start(self.now0, site)
        if self._starts is None:
            self._starts = _SITES + (self.keys + np.array(self._offset, dtype=np.uint64))  # (wraps modulo 2^64)
        return self._starts[site]

    def _weyl_to(self, end):
        """i times the Weyl increment for i < ``end`` (a view of a table grown by doubling)."""
        if self._weyl.size < end:
            self._weyl = np.arange(max(end, 2 * self._weyl.size, 1024), dtype=np.uint64) * _G
        return self._weyl[:end]

    def bits(self, site, index, lanes=None):
        """53 random bits (uint64) for draw ``index`` (whole numbers < 2^32) of ``site``, per scenario ``lanes``.

        ``lanes`` (the scenario of each index) None: every scenario's, broadcast against ``index``.
        """
        z = np.multiply(np.array(index, ndmin=1, copy=None), _G, dtype=np.uint64, casting="unsafe")  # mod 2^64
        start = self._start(site)
        if self.S == 1:
            z += start
        elif lanes is None:
            z = z + start  # (broadcasts: every scenario's)
        else:
            z += start[lanes]
        return np.right_shift(_mix(z), _S11, out=z)

    def bits_range(self, site, first, end):
        """``bits`` for draws ``first`` ... ``end - 1`` of every scenario: shape (end - first, S), or one row if S == 1.

        (The indices' Weyl multiples come from a table: no index array to build.)
        """
        weyl = self._weyl_to(end)[first:]
        z = weyl + self._start(site) if self.S == 1 else weyl[:, None] + self._start(site)
        return np.right_shift(_mix(z), _S11, out=z)

    def uniform_range(self, site, first, end):
        """Uniforms on [0, 1) for draws ``first`` ... ``end - 1`` (see ``bits_range``)."""
        return self.bits_range(site, first, end) * _UNIT

    def bits_runs(self, site, counts):
        """``bits`` for draws 0 ... counts[s] - 1 of each scenario s, one scenario after another.

        (Draw i of scenario s has the counter of draw i + first[s] from
        ``start[s] - first[s] G``, first[s] the place of its run's first: a
        table's slice plus one value per scenario, instead of each draw's index.)
        """
        weyl = self._weyl_to(int(counts.sum()))
        if self.S == 1:
            z = weyl + self._start(site)
        else:
            first = np.multiply(np.cumsum(counts) - counts, _G, dtype=np.uint64, casting="unsafe")
            z = weyl + np.repeat(self._start(site) - first, counts)
        return np.right_shift(_mix(z), _S11, out=z)

    def uniform(self, site, index, lanes=None):
        """Uniforms on [0, 1) for draw ``index`` of ``site`` (see ``bits``)."""
        return self.bits(site, index, lanes) * _UNIT

    def flow_uniform(self, site, j):
        """One uniform on [0, 1) per flow ``j`` (indices into the batch's flat flows)."""
        if self.S == 1:
            if j.size <= FEW_DRAWS:  # (a step's few drops: numpy's calls would cost more than their work)
                return np.array([self.scalar(site, i) for i in j.tolist()])
            return self.uniform(site, j)
        return self.uniform(site, j % self.n, j // self.n)

    def scalar(self, site, index):
        """The first scenario's ``uniform(site, index)`` as a float (pure Python: a batch of one)."""
        return _scalar(self.now0, site, index)

    def lane(self, s):
        """Scenario ``s``'s counter-based uniforms as it draws them alone (``scalar``, ``uniform_range``)."""
        return _Lane(self, int(self.keys[s]))

    def generators(self, site):
        """One ``numpy.random.Generator`` per scenario for ``site``."""
        if site not in self._generators:
            self._generators[site] = [np.random.default_rng(np.random.SeedSequence(e, spawn_key=(site,)))
                                      for e in self._entropy]
        return self._generators[site]

    def random(self, site, counts):
        """``counts[s]`` uniforms on [0, 1) from each scenario s's Generator of ``site``, concatenated."""
        if self.S == 1:
            return self._lone(site, int(counts[0]))
        counts = np.asarray(counts, dtype=np.int64)
        buf, pos = self._buffer(site, counts)
        # Scenario s's numbers are its buffer's next counts[s]: one gather for the batch.
        ends = np.cumsum(counts)
        out = buf.ravel()[np.arange(ends[-1]) + np.repeat(self._rows * buf.shape[1] + pos - (ends - counts), counts)]
        pos += counts
        return out

    def _lone(self, site, count):
        """A lone scenario's next ``count`` uniforms of ``site``: a slice of a block its Generator filled ahead.

        The same numbers as a Generator call each (see ``_buffer``), at a
        slice's cost.  A block used up is followed by a new one, its unused
        numbers first: the slices handed out keep theirs.
        """
        block, pos = self._lone_blocks.get(site, (None, 0))
        if block is None or pos + count > block.size:
            rest = () if block is None else block[pos:]
            fresh = np.empty(max(4096, 4 * self.n, count + len(rest)))
            fresh[:len(rest)] = rest
            self.generators(site)[0].random(out=fresh[len(rest):])
            block, pos = fresh, 0
        self._lone_blocks[site] = block, pos + count
        return block[pos:pos + count]

    def _buffer(self, site, counts):
        """The block of ``site``'s next uniforms per scenario (S rows) and where each row's unused ones start.

        Each row holds its Generator's next numbers in order: a Generator's
        doubles are the same whether drawn in one call or in several, so the
        buffer changes no number; it turns a Generator call per scenario and
        step into one per scenario every few steps.  (It reads ahead, so a
        site drawn through ``random`` must not be drawn any other way.)
        """
        if site not in self._buffers:
            size = max(4096, 4 * self.n)
            block = np.empty((self.S, size))
            for g, row in zip(self.generators(site), block, strict=True):
                g.random(out=row)
            self._buffers[site] = block, np.zeros(self.S, dtype=np.int64)
        block, pos = self._buffers[site]
        if counts.max() > block.shape[1]:
            raise ValueError(f"counts: at most {block.shape[1]} draws per scenario and call, got {counts.max()}")
        for s in (pos + counts > block.shape[1]).nonzero()[0]:
            left = block.shape[1] - pos[s]
            block[s, :left] = block[s, pos[s]:]
            self.generators(site)[s].random(out=block[s, left:])
            pos[s] = 0
        return block, pos

    def per_flow(self, site):
        """One uniform on [0, 1) per flow of the batch (n from each scenario's Generator of ``site``).

        Drawn at once, not through ``random``'s buffer (a site drawn once or
        twice a run would keep a buffer for nothing); the same numbers.  A
        scenario with fewer flows than the layout draws its own count (as
        alone); its padding gets 0.5.
        """
        return np.concatenate([np.pad(g.random(c), (0, self.n - c), constant_values=0.5)
                               for g, c in zip(self.generators(site), self.counts, strict=True)])

    def binomial(self, site, trials, p):
        """Binomial(trials, p) per flow (``trials`` flat, S n), from each scenario's Generator of ``site``."""
        gens, n = self.generators(site), self.n
        p = np.broadcast_to(p, trials.shape)
        if self.S == 1:
            return gens[0].binomial(trials, p).astype(float)
        out = np.zeros(trials.size)
        for s, (g, c) in enumerate(zip(gens, self.counts, strict=True)):  # (a scenario's own flows: as alone)
            out[s * n:s * n + c] = g.binomial(trials[s * n:s * n + c], p[s * n:s * n + c])
        return out


class _Lane:
    """One scenario of a batch's counter-based uniforms, drawn as that scenario alone draws them.

    The same integers as its column of the batch's draws (its key plus the
    step's offset, mod 2^64), so the same floats: RED's lanes
    (``queues._REDState``) take a small batch's step scenario by scenario.
    """

    def __init__(self, draws, key):
        self.draws, self.key = draws, key

    def scalar(self, site, index):
        """``Draws.scalar`` of this scenario."""
        return _scalar((self.key + self.draws._offset) & _MASK, site, index)

    def uniform_range(self, site, first, end):
        """``Draws.uniform_range`` of this scenario, one row (as a batch of one)."""
        z = self.draws._weyl_to(end)[first:] + _lone_start((self.key + self.draws._offset) & _MASK, site)
        return np.right_shift(_mix(z), _S11, out=z) * _UNIT
