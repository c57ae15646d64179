"""The simulator's step and the queue's motion against ns-3 (issue 12): the few-flow, large-BDP drop-tail case,
the RED dynamics references (``ns3_red_dynamics``) and the queue-motion rows, with the recovery the references
ran (ns-3 3.44's classic one: ``ns3_references.references_sender``).

Scenarios from ``ns3_references.py``.  Every test here simulates minutes of traffic, so all are marked slow.
"""

import dataclasses

import numpy as np
import pytest
from ns3_references import DYNAMICS, MOTION, few_flows

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
    cases = {"few flows": few_flows(), **{k: v[0] for k, v in DYNAMICS.items()},
             **{k: v[0] for k, v in MOTION.items()}}
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


def _known_miss(key, reason):
    # A goal the simulator misses, measured and explained (strict: a fix shows).
    return pytest.param(key, marks=pytest.mark.xfail(strict=True, reason=reason))


MOTION_100_MISS = (
    "0.708 against the issue's 1.000 (seeds 1-4, ns-3 3.44's classic recovery), at a sixteenth of the default step, "
    "where a queue of 3.6 packets against the eighth's 16 packets of service sends it (engine.REFINEMENTS), and "
    "0.708 at half that: an ns-3 3.44 replica of this set-up reads 0.731 (validation/ns3_motion.csv), so the "
    "issue's 1.000 is not reproduced under the references' conventions (see below; issue 12)")


@pytest.mark.parametrize("key", ["few flows", "V1", "V2", "V3", "V4", "motion 10 Mbit/s", "motion 100 Mbit/s"])
def test_halving_the_step_moves_loss_and_queue_less_than_5_percent(step_study, key):
    # Issue 12's goal, 5 %, is the bound.  Halving the step the engine takes moves loss / queue by: few flows
    # (drop-tail, 25 ms) +2.4 / -1.3 % (16 seeds); V1-V4 (at an eighth of the default step:
    # engine._finer_steps) -0.8 / +1.6, -1.6 / +4.3, +0.7 / +4.8 (V3, 16 seeds: at the bound, a standard
    # error of 1.1 %), +0.8 / +0.7 %; the 10 Mbit/s motion row (its default step, 47.5 ms) +0.5 / -0.6 %; the
    # 100 Mbit/s motion row (at a sixteenth of its default step: engine.REFINEMENTS) -0.5 / +3.6 %, where halving
    # the eighth it ran at before moved it +8.4 / +4.8 %, a miss.
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


@pytest.mark.parametrize("key", [
    "motion 10 Mbit/s",
    _known_miss("motion 100 Mbit/s", MOTION_100_MISS)])
def test_red_motion_keeps_the_link_busy_at_any_step(step_study, key):
    # Issue 12's goal: utilization within 0.02 of ns-3's, and a halved step must not move it.  Measured (seeds
    # 1-4): 10 Mbit/s 0.9992 and 0.9989 at half its default step; 100 Mbit/s, at a sixteenth of its default
    # step (engine.REFINEMENTS), 0.708 and 0.708 at half (loss 1.21e-4, -0.5 % at half; queue 3.75 packets;
    # at an eighth, before the sixteenth, 0.727, loss 1.12e-4, queue 3.6).
    # An ns-3 3.44 replica of this row (validation/ns3_motion.csv: RedQueueDisc 5/217/0.02, Wait off, a
    # 1-packet device queue, the references' classic recovery) matches the dynamics references V3 and V4
    # and gives the 0.998 at 10 Mbit/s, but 0.706-0.735 at 100 Mbit/s (seeds 1-3; loss 1.2-1.3e-4,
    # queue 3.7-3.8, RED's average near its min_th of 5 packets).  Only ns-3's default 100-packet device
    # queue gives about 1 (0.996), and it misses the 10 Mbit/s row (1.000, the queue empty 12.7 % of the
    # time).  So the simulator follows the replica, not the figure; what was measured on the way (the
    # step series, the ACK ring's trains, min_th, equal RTTs, packet sizes): docs/simulator_record.md.
    default, half = step_study[key]
    ref = MOTION[key][1]
    assert _mean(default, "utilization") == pytest.approx(ref, abs=0.02)
    assert _mean(half, "utilization") == pytest.approx(_mean(default, "utilization"), abs=0.02)
