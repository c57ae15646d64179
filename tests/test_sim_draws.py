"""Each scenario's own random streams (tcpmodels.sim.draws): a batch hands out the numbers a scenario draws alone."""

import numpy as np
import pytest

from tcpmodels.sim import draws as site
from tcpmodels.sim.draws import Draws


def test_a_batch_s_buffered_uniforms_are_each_generator_s_own_in_order():
    # Calls of every size, past several refills of the buffer (4096 per scenario
    # here), zero counts included: each scenario's numbers are its Generator's
    # next ones, as one scenario alone draws them.
    seeds, rng = [3, 11, 3], np.random.default_rng(0)
    batch = Draws(seeds, 5)
    alone = [Draws([s], 5) for s in seeds]
    for _ in range(60):
        counts = rng.integers(0, 700, 3)
        counts[rng.integers(3)] = 0
        got = np.split(batch.random(site.ACK, counts), np.cumsum(counts)[:-1])
        for d, c, g in zip(alone, counts, got, strict=True):
            assert (d.random(site.ACK, [c]) == g).all()


def test_a_call_larger_than_the_buffer_is_refused():
    d = Draws([1, 2], 5)
    with pytest.raises(ValueError, match="counts"):
        d.random(site.ACK, [5000, 1])
