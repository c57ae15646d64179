"""The simulator against ns-3 on the queue's motion: RED 5/217/0.02 with 20-60 flows at 10-100 Mbit/s (issue 12).

``validation/ns3_motion.csv`` holds ns-3 3.44 runs (``validation/ns3_dumbbell.py``, the references' set-up and
statistics) of issue 12's queue-motion rows, whose packet-level runs the issue quotes but does not share, and of
more rows of the same RED, run once the simulator met the goals on the first: 20-60 flows, 10-100 Mbit/s, 100-200
ms, 576- and 1500-byte packets.  Each row is simulated as ``validation/sim_grid.py`` does (like with like: ns-3's
classic recovery, as the references ran) and held to issue 12's goals; the issue's two rows' step is halved and
their utilization held to the issue's own figures.  A file apart from ``test_sim_replica_grid.py``'s other sets,
so that the two, the suite's longest, run on two cores (``--dist loadfile`` gives a file one worker).
"""

import dataclasses

import pytest
from ns3_references import sim_grid

from tcpmodels import sim

pytestmark = pytest.mark.slow


SEEDS = (1, 2)
# Issue 12's queue-motion rows as the references' set-up runs them (validation/ns3_motion.csv: ns-3's classic
# recovery, as the references ran; RED 5/217/0.02, 20-60 flows, 10-100 Mbit/s, 100-200 ms, 576 and 1500 bytes).
MOTION = sim_grid.configurations(sim_grid.GRID.parent / "ns3_motion.csv")


# Issue 12's two queue-motion rows (its packet-level runs are not shared; it quotes ns-3's utilization), which
# ns3_motion.csv replicates: 20 flows, 100 ms, RED 5/217/0.02 at 10 and 100 Mbit/s.
ISSUE_UTILIZATION = {"motion_10M": 0.998, "motion_100M": 1.000}


def _motion_seeds(name):
    # As many simulator seeds as ns-3 ran, and at least SEEDS: the 100 Mbit/s row's four (ns-3 0.719-0.741 busy)
    # swing as much in the simulator (0.701-0.757 over seeds 1-8 at a sixteenth of the step, mean 0.723), so the
    # mean of two seeds errs by about 0.013, two thirds of the goal's 0.02.  The issue's rows four, as their step
    # is halved below: a run's loss and queue vary by 3-5 % from seed to seed.
    least = 4 if name in ISSUE_UTILIZATION else len(SEEDS)
    return range(1, max(least, len(MOTION[name])) + 1)


def _motion_scenarios(name):
    return [sim_grid.scenario(MOTION[name][0], "classic-ns3.44", seed) for seed in _motion_seeds(name)]


@pytest.fixture(scope="module")
def motion_runs():
    """The simulator's runs of each motion row at the step the engine takes (``_motion_seeds``, ns-3's classic
    recovery): {name: [SimResult, ...]}."""
    names = list(MOTION)
    runs = iter(sim.simulate([s for name in names for s in _motion_scenarios(name)]))
    return {name: [next(runs) for _ in _motion_seeds(name)] for name in names}


@pytest.fixture(scope="module")
def motion(motion_runs):
    """The simulator's figures on each motion row (``sim_grid.simulated`` of ``motion_runs``)."""
    return {name: sim_grid.simulated(runs) for name, runs in motion_runs.items()}


@pytest.fixture(scope="module")
def motion_halved(motion_runs):
    """Issue 12's two motion rows again, each run at half the step it took: {name: [SimResult, ...]}."""
    each = [(s, r) for name in ISSUE_UTILIZATION for s, r in zip(_motion_scenarios(name), motion_runs[name],
                                                                   strict=True)]
    runs = iter(sim.simulate([dataclasses.replace(s, time_step=r.time_step / 2) for s, r in each]))
    return {name: [next(runs) for _ in _motion_seeds(name)] for name in ISSUE_UTILIZATION}


@pytest.mark.parametrize("name", list(ISSUE_UTILIZATION))
def test_halving_the_step_moves_the_motion_rows_loss_and_queue_less_than_5_percent(motion_runs, motion_halved, name):
    # Issue 12's goal, 5 %, is the bound (seeds 1-4).  Measured, loss / queue: 10 Mbit/s (its default step,
    # 47.5 ms; a queue of 27 packets) -0.0 / -1.8 %; 100 Mbit/s (at a sixteenth of its default step:
    # engine.REFINEMENTS; a queue of 4.1) +2.3 / +3.3 %.  On the issue's own set-up (RED's thresholds as given,
    # before this row and the step study shared their runs) halving the eighth the 100 Mbit/s row once ran at
    # moved it +8.4 / +4.8 %, a miss; halving the sixteenth -0.5 / +3.6 %.
    taken, half = sim_grid.simulated(motion_runs[name]), sim_grid.simulated(motion_halved[name])
    for metric in ("drop_rate", "avg_queue"):
        assert half[metric] == pytest.approx(taken[metric], rel=0.05)


MOTION_100_MISS = (
    "0.724 against the issue's 1.000 (seeds 1-4, ns-3 3.44's classic recovery), at a sixteenth of the default "
    "step, where a queue under half the eighth's service sends it (engine.REFINEMENTS), "
    "and 0.716 at half that: the ns-3 3.44 replica of this set-up reads 0.731 (ns3_motion.csv, seeds 1-4), so "
    "the issue's 1.000 is not reproduced under the references' conventions (see below; issue 12)")


@pytest.mark.parametrize("name", ["motion_10M", pytest.param("motion_100M", marks=pytest.mark.xfail(
    strict=True, reason=MOTION_100_MISS))])
def test_issue_12s_motion_rows_keep_the_link_as_busy_as_it_says_at_any_step(motion, motion_halved, name):
    # Issue 12's goal: utilization within 0.02 of its figure, and a halved step must not move it.  Measured (seeds
    # 1-4): 10 Mbit/s 0.9993 and 0.9992 at half its default step; 100 Mbit/s above.  The replica of this
    # set-up (RedQueueDisc 5/217/0.02, Wait off, a 1-packet device queue, the references' classic recovery)
    # matches the dynamics references V3 and V4 and gives the issue's 0.998 at 10 Mbit/s, but 0.706-0.735 at 100
    # Mbit/s (seeds 1-3; loss 1.2-1.3e-4, queue 3.7-3.8, RED's average near its min_th of 5 packets).  Only ns-3's
    # default 100-packet device queue gives about 1 (0.996), and it misses the 10 Mbit/s row (1.000, the queue
    # empty 12.7 % of the time).  So the simulator follows the replica, not the issue's figure; what was measured
    # on the way (the step series, the ACK ring's trains, min_th, equal RTTs, packet sizes):
    # docs/simulator_record.md.
    taken = motion[name]["utilization"]
    assert taken == pytest.approx(ISSUE_UTILIZATION[name], abs=0.02)
    assert sim_grid.simulated(motion_halved[name])["utilization"] == pytest.approx(taken, abs=0.02)


@pytest.mark.parametrize("name", list(MOTION))
def test_simulator_meets_issue_12_goals_on_the_motion_rows(motion, name):
    # RED 5/217/0.02 (ns-3 seeds 1-2, 1-4 at 20 flows and 100 Mbit/s; simulator seeds as many; RED's thresholds a
    # packet higher, as sim_grid.scenario sets them).  Loss / queue error and utilization against ns-3's, measured
    # on fe3f16f, where the engine runs the row again at an eighth of the step (engine.REFINEMENTS), and, marked *,
    # at a sixteenth of the step, where the eighth's queue is under half its service (when the sixteenth came in):
    #   20 flows, 100 Mbit/s, 100 ms *: +10 / -3 %, 0.724 against 0.731 (seeds 1-4; seeds 1-2 +16 / -5 %, 0.710;
    #     at the eighth +12 / -6 %, 0.729 on seeds 1-2)
    #   40 flows, 20 Mbit/s, 200 ms: +4 / -3 %, 0.980 against 0.978
    #   60 flows, 50 Mbit/s, 100 ms: -1 / -2 %, 0.983 against 0.982
    #   20 flows, 50 Mbit/s, 150 ms *: +7 / -0 %, 0.820 against 0.822 (at the eighth +2 / -2 %, 0.830)
    #   40 flows, 100 Mbit/s, 100 ms, 1500 bytes: -1 / -3 %, 0.979 against 0.978
    #   60 flows, 100 Mbit/s, 150 ms, 1500 bytes: -1 / -3 %, 0.972 against 0.974
    #   60 flows, 100 Mbit/s, 100 ms: +1 / -3 %, 0.901 against 0.903
    # and, run after the eighth's rule was set (out of sample): 40 flows, 50 Mbit/s, 200 ms * +7 / -2 %, 0.838
    # against 0.851 (at the eighth +10 / -3 %, 0.848); 60 flows, 100 Mbit/s, 200 ms, 1500 bytes -1 / -3 %, 0.939
    # against 0.941.  The link-filling rows at the default step: 20 flows at 10 Mbit/s, 100 ms +1 / +1 %, 0.999
    # against 0.999 (seeds 1-4, as the step's halving above runs it; +2 / +2 % on seeds 1-2); 20 flows at 20
    # Mbit/s, 100 ms, 1500 bytes +1 / +2 %, 1.000 against 1.000.  With RED judging
    # the whole queue (9da03be) the queue read -14 ... -1 % and utilization within 0.012 (docs/simulator_record.md,
    # "The tests' earlier figures").
    ref, got = sim_grid.reference(MOTION[name]), motion[name]
    assert sim_grid.misses(ref, got) == {}
    # Loss below the goals' 0.1 % on most of these rows (so ``misses`` leaves it), held to their 20 % all the same.
    assert got["drop_rate"] == pytest.approx(ref["drop_rate"], rel=0.2)
