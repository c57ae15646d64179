"""The simulator at the references' conventions with buffers, thresholds and flow counts they do not hold (issue 12).

``validation/ns3_grid8.csv`` (``validation/ns3_dumbbell.py grid --set grid8``, ns-3 3.44 seeds 1-2, run on 25fb723)
keeps everything ``shared/reference`` fixes (10 Mbit/s, 576-byte packets, 8-12 ms, NewReno + SACK with the classic
recovery, 200 s measured from 20 s) and moves what the hidden packet-level runs may move: drop-tail buffers of 100,
250, 1000 and 2000 packets (20-300 flows), drop-tail 500 at 300 and 600 flows and RED 500/0.02 at 500 and 800
(beyond the references' heaviest rows), RED with min_th 50 and with max_th 250 / max_p 0.05, gentle RED at 100/0.1
and 500/0.02, ECN at 250/0.1 and at 300 flows, and a drop-tail and a RED row at 30 ms.  Each row is simulated as
``validation/sim_grid.py`` does (like with like: the classic recovery, simulator seeds 1-2) and held to issue 12's
goals (``sim_grid.misses``).  Every row met every goal the first time it was simulated.

``validation/ns3_grid9.csv`` (``--set grid9``, seeds 1-2, run on 25fb723) takes issue 12's first regime, few flows
with a large bandwidth-delay product through drop-tail, at the same conventions (64 KB windows, RTTs +-5 %) over
what the issue's one row (20 flows, 20 Mbit/s, 200 ms, 434 packets) does not hold: 5-40 flows, 10-50 Mbit/s,
40-300 ms, buffers of 0.1-2 BDP.  Six of its seven rows met every goal; the eighth, below, is a known miss.
"""

import pytest
from ns3_references import sim_grid

pytestmark = pytest.mark.slow


GRID8 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid8.csv")
GRID9 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid9.csv")
SEEDS = (1, 2)
# Few drop-tail flows lose too few packets per congestion event at the default step (tests/test_sim_step.py's
# 10 flows, tests/test_sim_overflow.py's drops per event): the same mechanism, here on loss itself.
FEW_FLOWS_MISS = (
    "8 drop-tail flows, 10 Mbit/s, 40 ms, 2 BDP: loss -20.3 % (1.16e-3 against ns-3's 1.46e-3; seeds 1-8 -17.7 %), "
    "issue 12's goal 20 %.  The congestion events are as many at every step (346-353 a run), but their drops "
    "per event rise as the step shrinks (1.35, 1.40, 1.41, 1.47 from 19 ms to an eighth; ns-3 seed 1: 1.51, "
    "nearly all lost in the open state; of the gaps between a flow's drops in one event a quarter under 2 ms, a "
    "quarter about a round trip), and loss with them (1.20e-3 to 1.31e-3)")


# GRID8 runs 100 s (statistics over [20, 100] s), as the 10 ms references' rows do (test_sim_reference_10ms.py):
# half the work; at ns-3's loss rates 80 s of its 10 Mbit/s link hold 480 (drop-tail 2000 at 100 flows) to 40 000
# drops a seed on the goals' rows.  Measured on 98eb033
# (seeds 1-2) against the 200 s ns-3 ran: on the goals' rows each loss error within 0.7 points of its 200 s one
# but RED at 800 flows' (+5.0 against +0.2 %), each queue error within 0.8 points, each time-out ratio within 0.07.
# GRID9's few flows lose a few hundred packets a run and keep the 200 s.
GRID8_DURATION = 100.0


@pytest.fixture(scope="module")
def simulated():
    """The simulator's figures on each row of both sets (ns-3's classic recovery, as the references ran), seeds 1-2."""
    return {**sim_grid.simulate_grid(GRID8, SEEDS, "classic-ns3.44", duration=GRID8_DURATION),
            **sim_grid.simulate_grid(GRID9, SEEDS, "classic-ns3.44")}


@pytest.mark.parametrize(("grid", "size"), [(GRID8, 19), (GRID9, 7)])
def test_the_sets_hold_the_rows_they_were_run_for(grid, size):
    # Each configuration at ns-3 seeds 1 and 2 (a lost or doubled row would weaken the check unseen).
    assert len(grid) == size
    assert all(sorted(int(r["seed"]) for r in rows) == [1, 2] for rows in grid.values())
    assert {r["recovery"] for rows in grid.values() for r in rows} == {"classic"}


@pytest.mark.parametrize("name", list(GRID8))
def test_simulator_meets_issue_12_goals_on_the_references_link_with_other_buffers(simulated, name):
    # Measured on 98eb033 over GRID8_DURATION (seeds 1-2 against ns-3's 1-2): loss -8.7 ... +5.0 % (drop-tail 250
    # at 60 flows the lowest, RED at 800 flows the highest), queue -2.0 ... +1.4 %, time-outs x0.68-1.04 where
    # ns-3's are above 1e-3 (the lowest drop-tail 250 at 60 flows), utilization 1.000 as ns-3's.  Over the 200 s
    # ns-3 ran (25fb723, the six RED rows again since RED's forced drops fall on one run of a step's packets):
    # loss -8.5 ... +4.5 % (ECN at 300 flows the highest; +6.4 % before), queue -2.0 ... +1.3 % (-1.8 % before),
    # time-outs x0.65-1.01.  Halving the step (seeds 1-2, 200 s) moves loss by -2.9 ... +2.7 % and queue by -2.2
    # ... +0.6 % (RED at 800 flows +2.7 and -2.2 %, -0.4 and -0.2 % before the forced run).  The bounds are the
    # goals' (20 %, 15 %, 2x, 0.02): the figures are out of sample, and the margins are what they show.
    assert sim_grid.misses(sim_grid.reference(GRID8[name]), simulated[name]) == {}


def _few(name):
    if name == "few_dt_10M_40ms_N8_bdp2":
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=FEW_FLOWS_MISS))
    return name


@pytest.mark.parametrize("name", [_few(name) for name in GRID9])
def test_simulator_meets_issue_12_goals_on_few_droptail_flows_with_large_bdps(simulated, name):
    # Measured on 25fb723 (seeds 1-2 against ns-3's 1-2): loss -16.0 % and -9.7 % on the other two rows above
    # 0.1 % (40 flows at 50 Mbit/s and 100 ms, 20 flows at 40 Mbit/s and 50 ms); -14.5 ... +8.0 % below it (a few
    # hundred drops a run: ns-3's two seeds differ by up to 18 %), queue -8.4 ... +1.9 %, utilization within 0.008
    # (0.967 against 0.974 behind a buffer of 0.1 BDP), no time-outs above 1e-3.  Halving the step (seeds 1-4)
    # raises loss on every row, by 1.7-7.2 %: the drops per event above (docs/simulator_record.md).
    assert sim_grid.misses(sim_grid.reference(GRID9[name]), simulated[name]) == {}
