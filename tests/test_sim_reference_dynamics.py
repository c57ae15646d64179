"""The simulator's step and the queue's motion against ns-3 (issue 12): the few-flow, large-BDP drop-tail case and
the RED dynamics references (``ns3_red_dynamics``), with the recovery the references ran (ns-3 3.44's classic one:
``ns3_references.references_sender``).  Issue 12's queue-motion rows are halved and held to its figures in
``test_sim_replica_grid.py``, beside the ns-3 replica of their set-up.

Scenarios from ``ns3_references.py``.  Every test here simulates minutes of traffic, so all are marked slow.
"""

import dataclasses

import numpy as np
import pytest
from ns3_references import DYNAMICS, few_flows

from tcpmodels import sim, units

pytestmark = pytest.mark.slow


# A run's loss and queue vary by 3-5 % from seed to seed here, so the halvings pool seeds: 4 a case, 16 for V3,
# whose queue of 7 packets varies by 3.8 % from seed to seed (the standard error of its halving over 16 seeds
# 1.1 %; 572a242), and for the few fast flows.  The figures in the tests below were measured on 9da03be with these
# seeds; those before, commit by commit: docs/simulator_record.md ("The tests' earlier figures").
SEEDS = {"V3": range(1, 17), "few flows": range(1, 17)}


@pytest.fixture(scope="module")
def step_study():
    # Each case at the step the engine takes for it (its default, or an eighth or a sixteenth of it where a RED
    # queue of a few packets sends it round again: engine.REFINEMENTS) and at half of that, 4 seeds each (a single
    # run's loss and queue vary by 3-5 % from seed to seed here; SEEDS), one call each.
    cases = {"few flows": few_flows(), **{k: v[0] for k, v in DYNAMICS.items()}}
    each = [dataclasses.replace(s, seed=seed) for k, s in cases.items() for seed in SEEDS.get(k, range(1, 5))]
    taken = sim.simulate(each)
    halved = iter(sim.simulate([dataclasses.replace(s, time_step=r.time_step / 2)
                                for s, r in zip(each, taken, strict=True)]))
    taken = iter(taken)
    return {k: [[next(runs) for _ in SEEDS.get(k, range(1, 5))] for runs in (taken, halved)] for k in cases}


def _mean(runs, name):
    return np.mean([getattr(r, name) for r in runs])


def test_few_flows_see_the_buffer_fill_and_drain(step_study):
    # Issue 12's few-flow, large-BDP case (ns-3: loss 0.00032, queue 322).  e08f405's step, half the RTT
    # (95 ms: 3900 packets of service against a 434-packet buffer), gave loss 0.00143 (4.5x) and queue 103
    # (0.3x).  At a quarter of the buffer's drain time (25 ms; seeds 1-16): loss 0.000292 (-8.8 %), queue
    # 325 (+1.0 %), the link busy.  Bounds: the goals, 20 % and 15 %.
    runs = step_study["few flows"][0]
    r = runs[0]
    assert r.time_step == pytest.approx(434 / units.capacity(20e6, 576) / 4)  # a quarter of the buffer's drain
    assert _mean(runs, "loss_rate") == pytest.approx(0.00032, rel=0.2)
    assert _mean(runs, "queue") == pytest.approx(322, rel=0.15)
    assert _mean(runs, "utilization") > 0.99


@pytest.mark.parametrize("key", ["few flows", "V1", "V2", "V3", "V4"])
def test_halving_the_step_moves_loss_and_queue_less_than_5_percent(step_study, key):
    # Issue 12's goal, 5 %, is the bound.  Halving the step the engine takes moves loss / queue by: few flows
    # (drop-tail, 25 ms) +2.4 / -1.3 % (16 seeds); V1-V4 (at an eighth of the default step:
    # engine._finer_steps) -0.8 / +1.6, -1.6 / +4.3, +0.7 / +4.8 (V3, 16 seeds: at the bound, a standard
    # error of 1.1 %), +0.8 / +0.7 %.
    default, half = step_study[key]
    for name in ("loss_rate", "queue"):
        assert _mean(half, name) == pytest.approx(_mean(default, name), rel=0.05)


@pytest.mark.parametrize("key", ["V1", "V2", "V3", "V4"])
def test_red_dynamics_keep_the_link_as_busy_as_ns3(step_study, key):
    # Issue 12's goal: utilization within 0.02 of the reference, where RED swings (V2, V3: ns-3 0.950,
    # 0.958) and where it settles (V1, V4: 0.992, 0.992); loss within 20 %.  At an eighth of the default step
    # (engine._finer_steps): utilization 0.9926, 0.9479, 0.9636, 0.9925; loss -1.3, +0.9, +1.6, -1.1 %.
    # e08f405 idled the link: 0.937, 0.897, 0.833, 0.964.
    runs, ref = step_study[key][0], DYNAMICS[key][1]
    assert _mean(runs, "utilization") == pytest.approx(ref["utilization"], abs=0.02)
    assert _mean(runs, "loss_rate") == pytest.approx(ref["drop_rate"], rel=0.2)


@pytest.mark.parametrize("key", ["V1", "V2", "V3", "V4"])
def test_red_dynamics_queue_within_30_percent_of_ns3(step_study, key):
    # Not a goal of issue 12, a check of the swing: the queues of 8-29 packets within 30 %.  Measured: -2.3,
    # -5.8, -3.4, -2.6 %.  At the default step (b0804d0, the references' classic recovery) V2 and V3
    # read -20 and -22 %: the fluid queue, paced within a step, holds nothing below full load, where ns-3's
    # unpaced senders' bursts keep packets queued (ns-3 3.44, V3 seed 1: 7.96 packets unpaced, 5.80 with TCP
    # pacing at an unchanged utilization, 0.952 and 0.954); the eighth of the step closes most of it.
    runs, ref = step_study[key][0], DYNAMICS[key][1]
    assert _mean(runs, "queue") == pytest.approx(ref["avg_queue"], rel=0.3)


def test_v3s_queue_of_a_few_packets_runs_at_an_eighth_of_the_step(step_study):
    # V3 (10 flows, RED 5/217/0.02, 200 ms) runs below full load with a queue of 7.65 packets (ns-3), which
    # the default step's fluid service (108 packets a step) holds only in part: the engine runs it again at
    # an eighth of the step (engine._finer_steps).  At the default step and a quarter (seeds 1-8; 82245ae)
    # the queue read 6.02 and 6.85 (-21, -11 %); at the eighth (seeds 1-16) 7.40 (-3.4 %), loss 4.17e-4
    # (+1.6 %; ns-3 4.10e-4), busy 0.964 (ns-3 0.958).  Bounds: issue 12's goals (20 %, 15 %, 0.02).
    base, ref = DYNAMICS["V3"]
    runs = step_study["V3"][0]
    assert all(r.time_step == base.step / 8 for r in runs)
    assert _mean(runs, "queue") == pytest.approx(ref["avg_queue"], rel=0.15)
    assert _mean(runs, "loss_rate") == pytest.approx(ref["drop_rate"], rel=0.2)
    assert _mean(runs, "utilization") == pytest.approx(ref["utilization"], abs=0.02)
