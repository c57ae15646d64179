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


def test_a_round_of_red_s_spaced_decisions_takes_its_first_draw_where_none_is_due():
    # A batch's drop probability interpolated along a falling average can come
    # out a hair below 0 (the notebook 10_tcpe's 2.4 Gbit/s grid: -2.09 due),
    # and the round's block of draws was then empty (an IndexError).  Its first
    # row is still each scenario's draw 0, as alone.
    from tcpmodels.sim.queues import _Arrays, _Floats

    batch, alone = Draws([3, 4], 5), Draws([3], 5)
    first, rest = _Arrays.round_draws(batch, site.SPACED, 0, np.array([-2.09, -2.09]))
    assert first.shape == (2,) and rest.shape[1] == 2
    assert first[0] == _Floats.round_draws(alone, site.SPACED, 0, -2.09)[0] == alone.scalar(site.SPACED, 0)


def test_a_lane_draws_its_scenario_s_numbers_as_that_scenario_alone_does():
    # RED's lanes (queues._REDState._by_lane) take a small batch's step scenario by scenario on floats: scenario
    # s's lane must hand out its column of the batch's counter-based draws, which are its numbers alone, at
    # every step (the counter's step field included) and site.
    seeds = [3, 11, 3, 0]
    batch, alone = Draws(seeds, 5), [Draws([s], 5) for s in seeds]
    lanes = [batch.lane(s) for s in range(len(seeds))]
    for k in (0, 1, 77, (1 << 28) + 5):
        for d in (batch, *alone):
            d.at(k)
        for which in (site.SPACED, site.LATER, site.HOLD):
            block = batch.uniform_range(which, 2, 9)
            for s, (lane, own) in enumerate(zip(lanes, alone, strict=True)):
                assert [lane.scalar(which, i) for i in range(2, 9)] == block[:, s].tolist()
                assert lane.uniform_range(which, 2, 9).tolist() == own.uniform_range(which, 2, 9).tolist()
                assert lane.scalar(which, 5) == own.scalar(which, 5) == batch.uniform(which, 5)[s]
