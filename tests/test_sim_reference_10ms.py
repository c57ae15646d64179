"""The simulator against the packet-level (ns-3) references on the thesis' 10 ms dumbbell (issue 12's goals).

``ns3_red_10ms`` (the wait=0 rows) and ``ns3_more_10ms`` (drop-tail, gentle RED, ECN), set up in
``ns3_references.py``.  Every test here simulates minutes of traffic, so all are marked slow; CI runs them.
"""

import dataclasses

import pytest
from ns3_references import ROWS

from tcpmodels import sim

pytestmark = pytest.mark.slow


# Measured on 9da03be (five rows again since the timer races fast recovery, Sender._race_the_timer; the RED rows
# again since RED's forced drops fall on one run of a step's packets, _REDState.victims) as the batch
# below runs (seed 1, 100 s, statistics over [20, 100] s), simulator
# against ns-3: loss / queue error (%), time-outs per packet as a multiple of the reference's (in brackets
# where the reference's exceeds 1e-3, the goal's rows; none where ns-3 timed out not at all):
#   RED 500/0.02, N = 10 ... 300:  +0/-0 x0.34, -1/-1 x1.08, -3/+0 x0.78, -3/-1 x0.95, -3/-3 x0.99,
#     -5/-2 [x0.78], -4/-0 [x0.87], -1/+0 [x0.92]
#   RED N = 100, max_p 0.005, 0.01, 0.04, 0.08:  -4/+0 x0.90, -3/-2 x0.84, -4/-2 [x0.97], -4/-2 [x0.94]
#   RED N = 100, max_th 100, 250, 1000, 2000:  -4/+2 [x0.95], -6/-0 [x0.90], -3/-3 x0.93, -2/-2 x1.09
#   drop-tail 500, N = 5 ... 200:  +6/-9, -19/-3 x1.12, -0/-1 x0.56, -3/-0 x0.69, -8/-2 x0.66,
#     -10/-1 x0.68, -9/-1 x0.72, -8/-0 [x0.81], -6/+0 [x0.96]
#   gentle RED 250/0.1, N = 50, 150, 300:  -4/-2 [x0.97], -4/+1 [x0.92], -2/+6 [x0.94]
#   RED 500/0.02 with ECN, N = 20, 70, 150, 300:  +1/+2, -0/+2, +2/+1 x2.95, +4/+0 [x0.97]
# Every row above 0.1 % loss: loss -10.2 ... +3.8 % (mean of the sizes 3.7 %; drop-tail at 80 flows the lowest, RED
# with ECN at 300 flows the highest); the queue -8.7 ... +5.7 % on every row (drop-tail at 5 flows the lowest);
# time-outs x0.78-0.97 on the goal's rows (x0.81-0.98 before the forced run).  The references ran 200 s; 100 s is
# half the work, and 80 s of a 10 ms link hold thousands of congestion events on the goal's rows: at 200 s (seed 1)
# loss -9.7 ... +6.3 %, queue -6.7 ... +5.3 %, time-outs x0.80-0.97, each row's loss error within 1.3 points of its
# 100 s one (drop-tail at 40 flows).
# Halving the step (issue 12: by under 5 %; validation/step_halving.py, 256 runs of 200 s, too long to repeat here),
# seeds 1-4, 200 s, the mean's change and its standard error: every RED, gentle and ECN row within 1.1 % on loss and
# 0.4 % on the queue (0.7 % before the forced run); drop-tail at 20-200 flows -2.0 ... +3.7 % on loss (20 flows
# +3.7, SE 1.7), queue within 0.6 %; at 5 and 10 flows (loss below 0.1 %: a few dozen and a few hundred drops a run)
# -9.4 (SE 5.1) and +6.4 % (SE 2.5), which tests/test_sim_step.py measures over 96 and 48 seeds (10 flows a strict
# expected failure).
# The figures before, commit by commit, and what moved them: docs/simulator_record.md ("The tests' earlier
# figures").
@pytest.fixture(scope="module")
def ns3_runs():
    keys = sorted(ROWS)
    return dict(zip(keys, sim.simulate([dataclasses.replace(ROWS[k][0], duration=100.0) for k in keys]), strict=True))


@pytest.mark.parametrize("key", sorted(ROWS))
def test_loss_and_queue_match_packet_level_reference(ns3_runs, key):
    # Issue 12's goals: loss within 20 % wherever it exceeds 0.1 % (below it, drop-tail at 5 and 10 flows
    # loses a few dozen and a few hundred packets a run), the average queue within 15 %, and the link busy
    # throughout, as in ns-3 (measured: above).
    r, ref = ns3_runs[key], ROWS[key][1]
    if ref["drop_rate"] > 1e-3:
        assert r.loss_rate == pytest.approx(ref["drop_rate"], rel=0.2)
    assert r.queue == pytest.approx(ref["avg_queue"], rel=0.15)
    assert r.utilization > 0.99


@pytest.mark.parametrize("key", sorted(k for k in ROWS if ROWS[k][1]["timeouts_per_packet"] > 1e-3))
def test_timeouts_within_factor_2_of_reference(ns3_runs, key):
    # Issue 12's goal where the reference times out more than once per thousand packets: x0.78-0.97
    # (above).  Below that a run holds a few dozen time-outs, and the light rows read x0.34-2.95 (RED at 10
    # flows the lowest, RED with ECN at 150 flows the highest).
    ratio = ns3_runs[key].timeouts_per_packet / ROWS[key][1]["timeouts_per_packet"]
    assert 0.5 <= ratio <= 2.0


def test_windows_match_reference(ns3_runs):
    # Not a goal, but it shows the sender: the average window within 10 % of ns-3's on the RED, gentle and
    # ECN rows (measured -3.7 ... +0.5 %), within 15 % on drop-tail (-8.4 ... +0.9 %, 5 flows the lowest).
    # Drop-tail's mean window holds the escaping flow's, which one run's phases size, and seeds cross 10 %
    # there (bb89f7d, seeds 1-4: 80 flows -9.5 ... -10.4 %).
    for key, r in ns3_runs.items():
        rel = 0.15 if key.startswith("droptail") else 0.1
        assert r.window == pytest.approx(ROWS[key][1]["avg_cwnd"], rel=rel), key


def test_drop_tail_fairness_matches_reference(ns3_runs):
    # Not a goal, but the per-flow results rest on it: at a full drop-tail buffer the flows earliest in the
    # packet service time lose least, one of them escapes to its access link's rate, and the rest share what
    # is left (Jain's index, over the flows' packets).  Measured: within 0.1 of ns-3's on every row (N = 5
    # ... 200: +0.084, +0.095, +0.034, +0.014, +0.016, +0.035, -0.024, +0.068, -0.006).  The bound, 0.15,
    # fails what came before a flow's packets kept service times of their own (queues._DropTail._apart):
    # the escaping flow's packets, laid on each other by the step's folding, dropped one another, and 40 and
    # 80 flows read 0.74 and 0.66 against ns-3's 0.38 and 0.46 (seeds 1-2).
    for key, r in ns3_runs.items():
        if key.startswith("droptail"):
            assert r.jain_index == pytest.approx(ROWS[key][1]["jain"], abs=0.15), key
