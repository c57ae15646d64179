"""The simulator against packet-level runs off the references' 10 ms link (issue 12's goals, out of sample).

``validation/ns3_grid.csv`` holds ns-3 3.44 runs of 20 configurations of the references'
dumbbell (``validation/ns3_dumbbell.py``: the same senders, queues and
statistics as ``shared/reference``) on other links: 20-200 ms, 10-100 Mbit/s,
576- and 1500-byte packets, drop-tail buffers of 0.06-1 BDP, RED, gentle RED
and ECN, 5-300 flows.  None of it was used to build the simulator; two
mechanisms were found with it and mended by mechanism (RED's early drops
spared at a queue of one packet; the step at 0.49 of an access link's packet
time).  Each configuration is simulated as ``validation/sim_grid.py`` does
(its ``scenario``, like with like: ns-3 3.44's PRR, seeds 1-2) and held to
issue 12's goals (its ``misses``): loss within 20 % where ns-3 loses more than
0.1 %, queue within 15 %, time-outs per packet within 2x where above 1e-3,
utilization within 0.02.  ``validation/ns3_grid2.csv`` holds a second set of ten, run
once the simulator met the goals on the first (a T1 link, a 400 ms path, 45
Mbit/s, 500 and 1000 flows, two flows at their 64 KB windows, ECN at 100 ms),
held to the same goals, and ``validation/ns3_grid3.csv`` a third set of ten, run
once the simulator met them on the second but its known misses; four more
(``ns3_grid4.csv`` to ``ns3_grid7.csv``) are described where they are read.
"""

import pytest
from ns3_references import sim_grid

from tcpmodels import sim

pytestmark = pytest.mark.slow


GRID = sim_grid.configurations()
SEEDS = (1, 2)
# The seed papers' regime: one to three flows whose windows only the network limits (ns-3 with window
# scaling, receive window 4 BDP) through a drop-tail buffer of one BDP (ns3_dumbbell.py's FEW_FAST).
FEW_FAST = sim_grid.configurations(sim_grid.GRID.parent / "ns3_few_fast.csv")
# A second out-of-sample set (validation/ns3_grid2.csv), run once the simulator met the goals on the first: a T1
# link, a 400 ms path, 45 Mbit/s, 500 and 1000 flows, two flows at their 64 KB windows, ECN at 100 ms.
GRID2 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid2.csv")
# A third out-of-sample set (validation/ns3_grid3.csv, ns3_dumbbell.py --set grid3, seeds 1-2), run on effcff3 once
# the simulator met the goals on the second but its known misses: 20-40 Mbit/s, 30-250 ms, 8-400 flows, drop-tail
# of 0.25-2 BDP, RED, gentle RED and ECN with thresholds neither set holds.  Every row met every goal the first
# time it was simulated.
GRID3 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid3.csv")
# A fourth set (validation/ns3_grid4.csv, --set grid4, seeds 1-2), in the regimes issue 12 names: drop-tail with
# few flows and a large BDP (20-30 flows, 150-300 ms, 20-50 Mbit/s), heavy load on drop-tail, gentle RED and ECN
# (250-400 flows), ECN below full load at 30 Mbit/s.  Its ECN row at 30 Mbit/s, 100 ms, 80 flows missed
# (utilization 0.958 against 0.930) until an ECN reduction went by PRR for PRR senders (Sender._enter_cwr).
GRID4 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid4.csv")
# Three ECN rows run after that reduction went by PRR, to check it out of sample (validation/ns3_grid5.csv, --set
# grid5, seeds 1-2; ns-3's PRR).
GRID5 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid5.csv")
# A sixth set (validation/ns3_grid6.csv, --set grid6, seeds 1-2; 1-6 for the five flows), run on 38015ce once the
# simulator met the goals on the first five but their known misses, in regimes none of them holds: 5 and 500 ms,
# 200 Mbit/s, 1500 flows, five flows that window scaling lets fill a drop-tail buffer of 0.05 BDP, RED with max_p
# 0.5, round trips over 50-150 % of their mean.  7 of its 10 rows met every goal the first time; two more, RED
# links of long round trips just below full load, since the engine runs them at a sixteenth of the step
# (engine.REFINEMENTS); the five flows' row is in KNOWN_MISSES.
GRID6 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid6.csv")
# A seventh set (validation/ns3_grid7.csv, --set grid7, seeds 1-2), run on 3d9e2da: the references' own sweeps
# (RED 500/0.02 over 20-300 flows, its max_p 0.08 and max_th 100, drop-tail of 500 packets, gentle RED 250/0.1,
# RED 500/0.02 with ECN) moved off their 10 ms link, to 40-60 ms at 10 Mbit/s and 80-120 ms at 20 Mbit/s, with the
# recovery the references ran (classic), as packet-level runs not in the references would move them.  Two rows
# missed the time-out goal the first time they were simulated, and so found the timer's race with fast recovery
# (Sender._race_the_timer): drop-tail at 150 flows and RED at 300 flows, both at 50 ms, x0.30 and x0.50.  Seven
# rows at 160-240 ms and 10 Mbit/s were run after the race came in, to check it: 3d9e2da, before it, missed two
# of them (the same two sweeps' heaviest rows, time-outs x0.36 and x0.50), the race none (x0.77 and x0.70).  Three
# rows at 16-24 ms and 50 Mbit/s (RED at 100 and 300 flows, drop-tail at 150), run on 96845c2, met the goals.
GRID7 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid7.csv")

# Measured on fe3f16f with RED's thresholds a packet higher (sim_grid.DEVICE_QUEUE: the replica's RED judges its
# queue disc's packets only; simulator seeds 1-2 against the ns-3 seeds each CSV holds; loss where ns-3 loses more
# than 0.1 %, time-outs per packet where above 1e-3), and seven RED rows again since RED's forced drops fall on one
# run of a step's packets (_REDState.victims; where that moved a range, the range before in brackets):
#   GRID (20 rows): loss -18.2 ... +9.6 % (50 drop-tail flows at 100 Mbit/s the lowest), queue -6.8 ... +2.6 %
#     (the 5-flow RED row, run at an eighth of the step, the lowest), time-outs x0.77-1.27 (x0.77-1.21),
# utilization within 0.010; GRID2 (10), but the two rows of KNOWN_MISSES: loss -8.8 ... +18.8 % (+18.6 %; RED at
# 1000 flows the highest), queue -4.6 ... +12.1 % (the two-flow row the highest), time-outs x0.84-1.17 (x0.86-1.16
# since the timer's race with
#     fast recovery, Sender._race_the_timer), utilization within 0.010;
#   GRID3 (10): loss -12.2 ... +5.9 %, queue -10.3 ... +3.8 %, time-outs x0.91-0.98, utilization within 0.007;
#   GRID4 (8): loss -6.2 ... +6.9 % (+6.4 %), queue -3.5 ... +9.1 %, time-outs x0.91-1.05 (x0.91-1.03), utilization
#     within 0.005;
#   GRID5 (3): loss -3.1 ... +5.7 %, queue -13.7 ... +4.4 %, utilization within 0.001;
#   GRID6 (10), but the five flows' utilization (KNOWN_MISSES): loss -4.9 ... +1.9 %, queue -8.2 ... +13.8 % (10
#     ECN flows at 240-360 ms the lowest, at a sixteenth of the step; the five flows the highest), time-outs
#     x0.91-0.98 (x0.96-0.98 since the timer's race), utilization within 0.007.  At an eighth of the step
#     (fe3f16f) the two RED rows of 30 flows at 400-600 ms and of 10 ECN flows read their queue -18 and -18 %
#     (16.0 against 19.4, 6.7 against 8.1), at a sixteenth -7 and -8 % (measured when the sixteenth came in).
# The figures before, set by set and commit by commit: docs/simulator_record.md ("The tests' earlier figures").
# Each known miss: the goal a configuration misses, and why.
KNOWN_MISSES = {
    "dt_100ms_T1_N10": (("loss", "queue", "time-outs"), (
        "10 flows, T1 (1.544 Mbit/s), 100 ms, drop-tail 20, access links as fast as the bottleneck: ns-3 locks "
        "nine flows out in 4 of its seeds 1-12 (loss 5e-4 to 2e-3, Jain 0.1, the tenth flow's backlog on its "
        "own access link keeping the buffer full) and is unfair in the others (loss 0.025-0.029, queue 15.5-17.2, "
        "Jain 0.16-0.38, time-outs per packet 0.0024-0.0075, 5-31 % of the flow-time in time-outs); the "
        "simulator locks none out in 16 seeds (loss 0.024-0.028, queue 13.5-14.4, Jain 0.55-0.90, 3-5 % in "
        "time-outs): against the mean of ns-3's 12 seeds loss +41 %, queue -21 %, time-outs 0.42x")),
    "dt_80ms_N2_q02": (("loss", "utilization"), (
        "2 flows at their 64 KB windows, 80 ms, drop-tail of 0.2 BDP: which flow holds its window and which "
        "loses decides the loss and the link's use, and turns on the two round trips drawn (ns-3 seed 1 loss "
        "1.0e-3, busy 0.703; seed 2 2.0e-4, 0.942); the simulator's own draws 3.8e-4 (-36 %), 0.856 against "
        "0.822; with ns-3's own round trips see tests/test_sim_receive_window.py")),
    "dt_50ms_100M_1500_N5_q005": (("utilization",), (
        "5 flows, 100 Mbit/s, 40-60 ms, drop-tail of 21 packets (0.05 BDP), windows only the network limits: "
        "ns-3's seeds 1-6 read 0.846, 0.503, 0.702, 0.587, 0.615, 0.857 busy (mean 0.685), the low ones with "
        "more loss (up to 8.4e-4 against 2.5e-4) and their flows' windows travelling as trains that overflow the "
        "buffer together (seed 2: 16 drops of all five flows within 3 ms, their windows adding to 0.54 BDP); the "
        "simulator reads 0.83-0.87 on seeds 1-8 (loss 1.9-2.7e-4), ns-3's busy mode, at every step from 2.5 to "
        "0.63 ms: its overflows come at a full pipe (aggregate windows of 0.93-1.10 BDP), ns-3 seed 2's at "
        "0.46-0.72 BDP, where trains meet")),
}


ALL = {**GRID, **GRID2, **GRID3, **GRID4, **GRID5, **GRID6}


@pytest.fixture(scope="module")
def simulated():
    return sim_grid.simulate_grid(ALL, SEEDS, "prr-ns3.44")


@pytest.fixture(scope="module")
def references_moved():
    """The simulator's figures on each row of GRID7 (ns-3's classic recovery, as the references ran), seeds 1-2."""
    return sim_grid.simulate_grid(GRID7, SEEDS, "classic-ns3.44")


@pytest.mark.parametrize("name", list(GRID7))
def test_simulator_meets_issue_12_goals_on_the_references_sweeps_at_other_links(references_moved, name):
    # Measured on the 28 rows (the timer's race in): loss -12.4 ... +6.7 % where ns-3 loses more than 0.1 %
    # (drop-tail at 40 flows and 200 ms the lowest; RED at 300 flows and 50 ms -8.2 %, -11.1 % before RED's
    # forced run, -7.7 % before the race), queue -9.0 ... +5.2 % (gentle RED at 150 flows and 200 ms the lowest),
    # time-outs x0.72-0.99 where above 1e-3 (x0.70 before the forced run, x0.30 before the race), utilization
    # within 0.004.
    assert sim_grid.misses(sim_grid.reference(GRID7[name]), references_moved[name]) == {}


def _known(name):
    return KNOWN_MISSES[name][0] if name in KNOWN_MISSES else ()


@pytest.mark.parametrize("name", list(ALL))
def test_simulator_meets_issue_12_goals_on_the_replica_grid(simulated, name):
    missed = sim_grid.misses(sim_grid.reference(ALL[name]), simulated[name])
    for goal in _known(name):
        missed.pop(goal, None)  # (held by the strict expected failure below)
    assert missed == {}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=why))
                                  for name, (_, why) in KNOWN_MISSES.items()])
def test_known_misses_on_the_replica_grid(simulated, name):
    assert not set(_known(name)) & set(sim_grid.misses(sim_grid.reference(ALL[name]), simulated[name]))


def test_no_flow_escapes_a_small_buffer_whose_link_idles(simulated):
    # 30 flows, 20 Mbit/s, 60-140 ms, 17 packets of drop-tail: the link idles about 5 % of the time, and
    # each idle spell starts its departures again at a new phase (queues._DropTail._restart_departures),
    # so no flow keeps the place just after a departure.  ns-3's Jain index 0.95 (seeds 1-2; its
    # round-trip bias alone, goodput as 1 / RTT, gives 0.94); the simulator 0.919.  With one phase for
    # the whole run, 0.429: one flow took a quarter of the link (seed 2, classic recovery: it lost 9
    # packets in 150 s, the others 66-169).  The bound lies between the two.
    assert simulated["dt_100ms_20M_1500_q01"]["jain"] > 0.8


def test_sack_blocks_keep_five_hundred_drop_tail_flows_near_ns3s_fairness(simulated):
    # 500 flows, 10 Mbit/s, 16-24 ms, 1000 packets of drop-tail behind 1 Mbit/s access links: an ACK's SACK
    # blocks delay it by 0.23-0.69 of the bottleneck's service time on its access link, so a flow in recovery
    # comes at another phase, and the flow earliest after a departure does not keep it (AckRing.blocks).
    # ns-3's Jain index 0.79, 0.66, 0.60, 0.41, 0.49, 0.76 at seeds 1-6 (its top flow 32-112 packets/s, the
    # mean 4.3); the simulator's 0.69 and 0.25 at seeds 1-2 (0.20-0.70 over seeds 1-12, mean 0.54; its top
    # flow 38-192), where without the blocks it read 0.36 and 0.18 (0.18-0.61, mean 0.47; top 57-202).  The
    # flows' own loss rates spread as ns-3's: 10th, 50th and 90th percentiles 0.057, 0.138, 0.179 (seeds
    # 1-6) against ns-3's 0.061, 0.111, 0.146, where they were 0.050, 0.140, 0.203.  The bound lies between.
    assert simulated["dt_20ms_N500_1000p"]["jain"] > 0.4


def test_five_red_flows_below_full_load_meet_the_goals_and_hold_their_loss():
    # 5 flows, RED 5/100/0.02, 200 ms (ns-3 seeds 1-8: loss 1.11e-4, queue 4.80, busy 0.889): at the default step
    # the queue read 2.42 (-50 %), and the engine runs the row at an eighth of it (engine._finer_steps).  Over
    # simulator seeds 1-4 there (RED's thresholds a packet higher, as sim_grid.scenario sets them) queue 4.50
    # (-6 %), loss 1.12e-4 (+1 %), busy 0.887 (seeds 1-2, as the grid runs it: -7 %, +14 %, 0.889; with RED
    # judging the whole queue -12 %, +11 %, 0.880 over seeds 1-4).  Its loss is below the goals' 0.1 % (so
    # ``misses`` leaves it); held to their 20 % all the same, over the four seeds.
    rows = GRID["red_200ms_576_N5"]
    scenarios = [sim_grid.scenario(rows[0], "prr-ns3.44", seed) for seed in (1, 2, 3, 4)]
    runs = sim.simulate(scenarios)
    ref, got = sim_grid.reference(rows), sim_grid.simulated(runs)
    assert all(r.time_step == s.step / 8 for s, r in zip(scenarios, runs, strict=True))
    assert sim_grid.misses(ref, got) == {}
    assert got["drop_rate"] == pytest.approx(ref["drop_rate"], rel=0.2)


@pytest.mark.parametrize("name", list(FEW_FAST))
def test_simulator_meets_issue_12_goals_with_few_fast_flows(name):
    # Their loss is 4e-6 to 2e-5 (a few drops per sawtooth), below the goals' 0.1 %: queue and utilization are
    # held.  Measured against ns-3's seeds 1-6 for two and three flows (1-2 for one; seeds 1-2 here), in the
    # order below: queue -0.0, -3.3, +4.0, +1.1 %, utilization 0.9998, 0.9931, 0.9992, 0.9999 against 0.9998,
    # 0.9998, 0.9980, 1.0000, loss 1.00, 1.61, 1.90, 1.80x ns-3's.  One flow's 200 s is a handful of sawteeth,
    # and its utilization turns on whether one of them goes wrong: at 10 Mbit/s and 50 ms, seed 2, the three
    # lone ACKs of its start (the receiver's timer's, each a whole ACK's growth) took it from 0.9976 to 0.9827
    # when the receivers' timer came to race the next packet.
    rows = FEW_FAST[name]
    runs = sim.simulate([sim_grid.scenario(rows[0], "prr-ns3.44", seed) for seed in SEEDS])
    assert sim_grid.misses(sim_grid.reference(rows), sim_grid.simulated(runs)) == {}
