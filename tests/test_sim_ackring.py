"""The ACK ring's spreading of a step's ACKs over the service time of its survivors (tcpmodels.sim.ackring)."""

import numpy as np
import pytest

from tcpmodels.sim.ackring import AckRing


def _traffic(k):
    rng = np.random.default_rng(k)
    sending = np.sort(rng.choice(50, 30, replace=False))
    return sending, rng.integers(0, 40, 30).astype(float), rng.uniform(2, 8, 30), rng.uniform(0, 5, 30)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_spread_of_one_step_is_the_two_step_split_to_the_bit(dtype):
    # The spread path must change nothing where a step's survivors fit its service.
    split, spread = AckRing(20, 50, dtype), AckRing(20, 50, dtype)
    draws = np.random.default_rng(3)
    for k in range(200):
        split.take(k), spread.take(k)
        args = _traffic(k)
        u = draws.random(args[0].size)
        assert (split.insert(*args, u) == spread.insert(*args, u, 1.0)).all()
        assert (split.flat == spread.flat).all()
        split.rows2[k % 20] = spread.rows2[k % 20] = 0.0


def test_a_burst_s_acks_spread_evenly_over_its_service_time():
    # 100 packets whose service takes 4.5 steps, ending 3 + 2.4 + 1 = 6.4 steps
    # ahead: from 1.9 steps ahead, 100 / 4.5 = 22.2 per step, 8.9 in the last
    # 0.4 step, 2.2 in the first 0.1; whole packets, all 100.
    ring = AckRing(30, 1, float)
    back = ring.insert(np.array([0]), np.array([100.0]), np.array([3.0]), np.array([2.4]),
                       np.random.default_rng(0).random(1), 4.5)
    counts = ring.rows2[:, 0]
    assert counts.sum() == 100 and counts[:1].sum() == 0 and counts[7:].sum() == 0
    np.testing.assert_allclose(counts[1:7], [100 * 0.1 / 4.5, *[100 / 4.5] * 4, 100 * 0.4 / 4.5], atol=1.0)
    assert 1 <= back[0] <= 6


def test_a_batch_spreads_each_flow_as_its_own_scenario_would():
    # Flows of scenarios with and without a burst in one call: each as alone.
    sending, packets = np.arange(6), np.array([10.0, 3, 7, 0, 50, 9])
    prop, queue = np.array([3.2, 4.7, 5.1, 3.3, 6.9, 2.5]), np.array([1.1, 0.3, 2.2, 0.0, 4.4, 1.9])
    spread = np.array([1.0, 2.5, 1.0, 3.7, 1.2, 1.0])
    u = np.random.default_rng(5).random(6)
    batch, alone = AckRing(30, 6, float), AckRing(30, 6, float)
    back = batch.insert(sending, packets, prop, queue, u, spread)
    for i in range(6):
        one = slice(i, i + 1)
        w = float(spread[i]) if spread[i] > 1 else None
        assert alone.insert(sending[one], packets[one], prop[one], queue[one], u[one], w)[0] == back[i]
    assert (batch.flat == alone.flat).all()


@pytest.mark.parametrize("spread", [None, 2.7, "per flow"])
def test_the_return_steps_asked_for_are_those_of_the_whole_and_the_ring_is_the_same(spread):
    # The engine asks only for the step's new losses; the ring must not notice.
    sending, packets, prop, queue = _traffic(7)
    packets[::3] = 0.0  # (flows holding their ACKs: nothing to schedule)
    if spread == "per flow":
        spread = np.where(np.arange(30) % 2 == 0, 1.0, 1.0 + np.arange(30) / 7)
    u = np.random.default_rng(11).random(30)
    asked = np.array([0, 3, 4, 17, 29])
    whole, some = AckRing(20, 50, float), AckRing(20, 50, float)
    back = whole.insert(sending, packets, prop, queue, u, spread)
    assert (some.insert(sending, packets, prop, queue, u, spread, asked) == back[asked]).all()
    assert (whole.flat == some.flat).all() and whole.flat.sum() == packets.sum()
    assert some.insert(sending, packets, prop, queue, u, spread, asked[:0]).size == 0
