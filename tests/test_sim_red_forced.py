"""RED's forced drops fall on one run of a step's packets (queues._REDState.victims and _forced_run)."""

import types

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim.draws import Draws
from tcpmodels.sim.queues import Step, _REDState

N = 100  # flows a scenario


def _red(seeds, delayed_ack=True):
    s = sim.Scenario(n_flows=N, bandwidth=10e6, rtt=0.1, queue=sim.RED(min_th=5, max_th=50, max_p=0.1),
                     sender=sim.NewReno(delayed_ack=delayed_ack))
    return _REDState([s] * len(seeds), Draws(list(seeds), N), False)


def _hits(queue, forced, arrived, k):
    """Each flow's forced drops at step ``k``, every flow of the batch sending ``arrived`` packets."""
    queue.draws.at(k)
    size = queue.size
    j = np.arange(size * N)
    step = types.SimpleNamespace(draws=queue.draws, owner=None if size == 1 else j // N, sending=j,
                                 arr=np.full(j.size, float(arrived)), link=None)
    flows, hit = queue._forced_run(np.asarray(forced, dtype=float), step)
    assert (np.diff(flows) > 0).all() and (hit > 0).all()
    out = np.zeros(j.size)
    out[flows] = hit
    return out


def test_the_forced_drops_are_one_run_of_bursts():
    # 10 forced drops among 100 flows' bursts of two: a run of 10 packets covers at most 6
    # bursts (4 whole and 2 cut), so at most 6 flows, where drops spread over the
    # step's packets would hit 10 flows but for the few twice (9.6 on average).
    queue = _red([1])
    flows_hit = []
    for k in range(200):
        hit = _hits(queue, [10.0], 6, k)
        assert hit.sum() == 10 and hit.max() <= 6 and (hit == np.rint(hit)).all()
        flows_hit.append(np.count_nonzero(hit))
    # About half the runs start on a burst's edge (5 bursts), the others cut two (6): measured 5.47.
    assert max(flows_hit) <= 6 and 5.0 <= np.mean(flows_hit) <= 6.0


def test_bursts_of_one_packet_without_delayed_acks():
    # A run of 10 single packets in a random order falls on 10 flows but for the few
    # twice (measured 9.54 on average), where bursts of two give at most 6 (above).
    queue = _red([1], delayed_ack=False)
    flows_hit = []
    for k in range(50):
        hit = _hits(queue, [10.0], 6, k)
        assert hit.sum() == 10
        flows_hit.append(np.count_nonzero(hit))
    assert np.mean(flows_hit) > 8.5
    # and a run longer than the step's packets takes them all
    assert (_hits(queue, [1000.0], 6, 0) == 6).all()


def test_every_flow_is_as_likely_to_be_hit():
    # A uniform order of the bursts: over 4000 steps of 20 drops among 600 packets each
    # flow takes 1 % of the drops, about 400 hits of about two, so its count varies by
    # 5-7 % (measured: shares 0.90-1.11 of the mean); bounded at 25 %.  Were the bursts in
    # flow order, a run's edges would spare the first and last flows (their packets covered
    # by 1 to 6 of the 581 starts, a middle one's by 20).
    queue = _red([3])
    total = sum(_hits(queue, [20.0], 6, k) for k in range(4000))
    share = total / total.sum() * N
    assert total.sum() == 80000 and np.all(np.abs(share - 1) < 0.25)


@pytest.mark.parametrize("one_key", [_REDState.ONE_KEY, 0])
def test_a_scenarios_run_is_its_own_whatever_shares_its_batch(monkeypatch, one_key):
    # Each burst's draw is its scenario's, by its place, so a batch hits each member's
    # flows as the member alone does; scenarios without forced drops are left out.
    # ONE_KEY 0: batches of more than ONE_KEY scenarios order the bursts by lexsort.
    monkeypatch.setattr(_REDState, "ONE_KEY", one_key)
    seeds, forced = [4, 5, 6], [7.0, 0.0, 12.0]
    for k in range(20):
        batch = _hits(_red(seeds), forced, 3, k).reshape(len(seeds), N)
        for i, seed in enumerate(seeds):
            np.testing.assert_array_equal(batch[i], _hits(_red([seed]), [forced[i]], 3, k))


def _step(queue, arrived, link=None):
    """A Step where every flow of the batch brought ``arrived`` packets (``link`` of them lost on its link)."""
    size = queue.size
    step = Step()
    step.sending = np.arange(size * N)
    step.arr = np.full(size * N, float(arrived))
    step.link, step.link_total = (None, 0.0) if link is None else (np.full(size * N, float(link)), link * N)
    step.owner, step.n, step.draws = (None if size == 1 else step.sending // N), N, queue.draws
    return step


@pytest.mark.parametrize("link", [None, 1])
def test_victims_hold_the_run_and_the_early_drops_once_each(link):
    # 30 drops of which 10 forced (and 100 link losses among them where link=1):
    # the flows come back sorted and once each, their counts adding up to the drops.
    queue = _red([2, 3])
    D = np.array([30.0, 12.0]) + (0 if link is None else N)
    queue.forced = np.array([10.0, 0.0])
    for k in range(20):
        queue.draws.at(k)
        step = _step(queue, 4, link)
        flows, counts = queue.victims(D, np.zeros(2), step, None)
        assert (np.diff(flows) > 0).all() and (counts > 0).all()
        np.testing.assert_array_equal(np.bincount(flows // N, weights=counts, minlength=2), D)
        assert (counts <= 4).all()
