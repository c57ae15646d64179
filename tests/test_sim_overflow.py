"""Drop-tail's overflow: the drops fall on the packets that arrive while the buffer is full (issue 12)."""

import dataclasses
import functools

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim import draws as site
from tcpmodels.sim.draws import Draws
from tcpmodels.sim.drops import FLOOR, overflow_weights, spread


def _weights(arrived, q, serve=10.0, limit=50.0, access=20.0, u=(0.0, 1.0)):
    one = np.array([1.0])
    return overflow_weights(np.array(arrived, dtype=float), np.arange(len(arrived)), None, 1, q * one,
                            serve * one, limit * one, np.full(len(arrived), access), np.array(u))


def test_the_train_that_arrives_once_the_buffer_is_full_takes_the_drops():
    # Two trains of 10 packets at 20 a step: the first over [0, 1/2), the
    # second over [1/2, 1); the link serves 10 a step.  Each half brings 10
    # and serves 5, so the queue rises 5 per half: from 45 it fills exactly
    # at the half, and the second train loses 5 of its 10.
    w = _weights([10, 10], q=45.0)
    assert w == pytest.approx([FLOOR, 0.5])
    # Full from the start: each half drops its 5 excess, on its own train.
    assert _weights([10, 10], q=50.0) == pytest.approx([0.5, 0.5])
    # Room for everything (the queue ends at 50): nothing.
    assert _weights([10, 10], q=40.0) == pytest.approx([FLOOR, FLOOR])


def test_overlapping_trains_share_a_full_buffer_s_drops_by_their_rates():
    # Trains of 10 over [0, 1/2) (rate 20) and of 20 over the whole step
    # (rate 20), full buffer, service 10 a step: over [0, 1/2) 20 packets
    # arrive and 5 leave, 15 drops shared 10 : 10 (the trains' packets
    # there); over [1/2, 1) 10 arrive, 5 leave, 5 drops, all the long train's.
    w = _weights([10, 20], q=50.0, access=20.0, u=(0.0, 0.5))
    assert w * [10, 20] == pytest.approx([7.5, 7.5 + 5.0])


def _scenario_rows(S, n, seed):
    rng = np.random.default_rng(seed)
    per = [rng.integers(1, n + 1) for _ in range(S)]
    flows = np.concatenate([s * n + np.sort(rng.choice(n, k, replace=False)) for s, k in enumerate(per)])
    arrived = rng.integers(1, 30, flows.size).astype(float)
    q, serve, limit = rng.uniform(0, 100, S), rng.uniform(5, 60, S), np.full(S, 100.0)
    access = np.repeat(rng.uniform(5, 80, S), n)[flows]
    return flows, arrived, q, serve, limit, access, rng.uniform(size=flows.size)


def test_a_batch_s_weights_are_each_scenario_s_alone():
    # The queue is followed in a row per scenario: bit for bit what the
    # scenario gives alone, whatever else shares the batch.
    S, n = 5, 7
    flows, arrived, q, serve, limit, access, u = _scenario_rows(S, n, 3)
    owner = flows // n
    batch = overflow_weights(arrived, flows, owner, S, q, serve, limit, access, u)
    for s in range(S):
        mine = owner == s
        alone = overflow_weights(arrived[mine], flows[mine] - s * n, None, 1, q[s:s + 1], serve[s:s + 1],
                                 limit[s:s + 1], access[mine], u[mine])
        assert np.array_equal(batch[mine], alone)


def test_a_weighted_spread_drops_exactly_the_overflow_each_as_alone():
    # Each scenario loses exactly its drops; packets the full buffer never
    # saw go last; a scenario's victims in a batch are those it has alone.
    S, n = 4, 6
    flows, arrived, q, serve, limit, access, u = _scenario_rows(S, n, 5)
    owner = flows // n
    weight = overflow_weights(arrived, flows, owner, S, q, serve, limit, access, u)
    arr = np.zeros(S * n)
    arr[flows] = arrived
    drops = np.array([3.0, 0.0, 11.0, 40.0])
    draws = Draws([11, 12, 13, 14], n)
    draws.at(9)
    hit, lost = spread(arr, drops, None, flows, owner, n, draws, site.DROP, weight)
    assert np.bincount(hit // n, weights=lost, minlength=S) == pytest.approx(np.minimum(drops, np.bincount(
        owner, weights=arrived, minlength=S)))
    assert (lost <= arr[hit]).all()
    for s in range(S):
        one = Draws([11 + s], n)
        one.at(9)
        mine = owner == s
        j, d = spread(arr[s * n:(s + 1) * n], drops[s:s + 1], None, flows[mine] - s * n, None, n, one, site.DROP,
                      weight[mine])
        assert np.array_equal(j + s * n, hit[hit // n == s]) and np.array_equal(d, lost[hit // n == s])
    # Where the drops are fewer than the packets with weight, the weightless keep theirs.
    heavy = weight > 1e3 * FLOOR
    for s in range(S):
        mine = owner == s
        if 0 < drops[s] <= arrived[mine & heavy].sum():
            assert not np.isin(hit, flows[mine & ~heavy]).any()


@functools.cache
def _few_flows_at_two_steps():
    """Issue 12's few-flow case (see ns3_references.few_flows), 8 seeds x 200 s, at the default step and an 8th.

    Returns the drops per congestion event per flow and the loss at each (the default step's first).
    """
    s = sim.Scenario(n_flows=20, bandwidth=20e6, rtt=0.2, rtt_spread=0.1, packet_size=576,
                     queue=sim.DropTail(buffer=434), sender=sim.NewReno(sack=True), access_rate=1e7,
                     duration=200.0, warmup=20.0)
    seeds = range(1, 9)
    default, fine = (sim.simulate([dataclasses.replace(s, time_step=s.step * f, seed=k) for k in seeds])
                     for f in (1.0, 1 / 8))
    per_event = [np.mean([np.mean(r.congestion_events["drops"]) for r in runs]) for runs in (default, fine)]
    loss = [np.mean([r.loss_rate for r in runs]) for runs in (default, fine)]
    return per_event, loss


@pytest.mark.slow
def test_loss_at_the_default_step_near_the_fine_step_limit():
    # Issue 12's few-flow case (see ns3_references.few_flows), 8 seeds
    # x 200 s.  Measured (12 seeds): drops per congestion event per flow
    # 1.44 at the default step (25 ms), 1.45 at half, 1.60 at a 16th; with
    # the drops spread uniformly over a step's packets (3b8b062) 1.31, 1.36,
    # 1.55, which this bound (10 %) fails.  With PRR (RFC 6937): 1.42 at the
    # default step, 1.47 at an 8th; uniformly 1.30 and 1.49 at a 16th.  Loss
    # at the default step within 20 % of the fine step's (measured -15 % and
    # with PRR -9 %, at a 16th and an 8th; uniform -19 % and -17 % at a 16th).
    # On 3819adb (the 8 seeds; each round trip holds the serialization times):
    # 1.41 at the default step, 1.38 at half, 1.49 at an 8th, loss -7.7 %
    # against the 8th's (ns-3 3.44's PRR: 1.42, 1.45, 1.55; -9.5 %); bb89f7d
    # 1.39, 1.39, 1.44, -7.0 % (ns-3 3.44's PRR: 1.42, 1.45, 1.61; -12.9 %).
    # Since an ACK's SACK blocks delay the packets it releases (AckRing.blocks): loss 2.97e-4 at the default
    # step, 3.43e-4 at an 8th (-13 %; before 2.96e-4 and 3.31e-4; the ns-3 replica, classic recovery,
    # 3.45e-4 and 3.63e-4 at seeds 1-2).
    _, loss = _few_flows_at_two_steps()
    assert loss[0] == pytest.approx(loss[1], rel=0.2)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "drops per congestion event per flow 1.39 at the default step, 1.44 at half, 1.58 at an 8th (-12 %), where "
    "the ns-3 3.44 replica (classic recovery) reads 1.63 and 1.66 at seeds 1-2 (drops over fast recoveries and "
    "first time-outs): "
    "since an ACK's SACK blocks delay the packets it releases the fine step's limit moved toward ns-3's "
    "(before 1.40, 1.43, 1.54: -8.8 %, within the 10 % bound) and the default step stayed"))
def test_drops_per_event_at_the_default_step_near_the_fine_step_limit():
    per_event, _ = _few_flows_at_two_steps()
    assert per_event[0] == pytest.approx(per_event[1], rel=0.1)


def test_equal_weights_choose_as_the_uniform_spread():
    # The queue takes the uniform path where every train fills the step (all
    # weights equal): the weighted keys must then rank the packets as their bits do.
    S, n = 3, 5
    flows, arrived, *_ = _scenario_rows(S, n, 8)
    arr = np.zeros(S * n)
    arr[flows] = arrived
    drops = np.array([4.0, 9.0, 1.0])
    for owner, lanes in ((flows // n, S), (None, 1)):
        mine = slice(None) if owner is not None else flows < n
        draws = Draws(list(range(20, 20 + lanes)), n)
        draws.at(3)
        args = (arr[:lanes * n], drops[:lanes], None, flows[mine], owner, n, draws, site.DROP)
        uniform = spread(*args)
        equal = spread(*args, np.full(flows[mine].size, 0.3))
        assert all(np.array_equal(a, b) for a, b in zip(uniform, equal, strict=True))
