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
once the simulator met them on the second but its known misses.
"""

import importlib.util
import pathlib

import pytest

from tcpmodels import sim

pytestmark = pytest.mark.slow

_SPEC = importlib.util.spec_from_file_location(
    "sim_grid", pathlib.Path(__file__).resolve().parent.parent / "validation" / "sim_grid.py")
sim_grid = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sim_grid)

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
# time it was simulated (validation/sim_grid3.csv, seeds 1-2 against ns-3's 1-2): loss -12.2 ... +6.1 % where
# ns-3 loses more than 0.1 % (8 flows through 2 BDP of drop-tail -12.2 %), queue -12.5 ... +3.1 % (RED 20/400
# at 40 Mbit/s, 75 ms, 60 flows, 0.978 busy, -12.5 %), time-outs 0.91-1.00x where above 1e-3, utilization
# within 0.007.
GRID3 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid3.csv")
# A fourth set (validation/ns3_grid4.csv, --set grid4, seeds 1-2), in the regimes issue 12 names: drop-tail with
# few flows and a large BDP (20-30 flows, 150-300 ms, 20-50 Mbit/s), heavy load on drop-tail, gentle RED and ECN
# (250-400 flows), ECN below full load at 30 Mbit/s.  Its ECN row at 30 Mbit/s, 100 ms, 80 flows missed
# (utilization 0.958 against 0.930) until an ECN reduction went by PRR for PRR senders (Sender._enter_cwr); since
# then (validation/sim_grid4.csv, seeds 1-2 against ns-3's 1-2): loss -4.6 ... +5.0 % where ns-3 loses more than
# 0.1 %, queue -14.0 ... +9.3 % (that ECN row -14.0 %, 0.935 busy), time-outs 0.91-1.03x where above 1e-3,
# utilization within 0.006.
GRID4 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid4.csv")
# Three ECN rows run after that reduction went by PRR, to check it out of sample (validation/ns3_grid5.csv, --set
# grid5, seeds 1-2; ns-3's PRR).  Before it and after (loss / queue, utilization): 50 Mbit/s, 150 ms, 60 flows
# +2 / -41 %, 0.934 and +8 / -48 %, 0.917 (ns-3 0.932: below full load, the default step's queue gap); 10 Mbit/s,
# 200 ms, 30 flows +1 / -11 %, 0.984 and +4 / -12 %, 0.980 (ns-3 0.970); gentle, 20 Mbit/s, 50 ms, 120 flows -6 /
# +1 % and +5 / +4 %.
# Since a RED queue of a few packets runs again at an eighth of the step (engine._finer_steps; seeds 1-2,
# validation/sim_grid*.csv): the seven rows whose queue averaged under a fifth of a step's service moved from
# queue -52 ... -11 % to -15 ... -6 %: the 5-flow RED row -52 / -15 % (loss +16 / +29 %, below 0.1 %; busy 0.891
# / 0.872 against 0.889), the ECN row at 50 Mbit/s and 60 flows -48 / -11 % (busy 0.917 / 0.938 against 0.932),
# 30 ECN flows at 200 ms -12 / -6 %, 80 at 30 Mbit/s -14 / -6 %, RED 20/400 at 60 flows -13 / -6 %, gentle RED at
# 20 flows -11 / -8 %; loss on them -7 ... +7 % where above 0.1 %, utilization within 0.019.  The rest bit for bit.
GRID5 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid5.csv")
# Issue 12's queue-motion rows as the references' set-up runs them (validation/ns3_motion.csv: ns-3's classic
# recovery, as the references ran; RED 5/217/0.02, 20-60 flows, 10-100 Mbit/s, 100-200 ms, 576 and 1500 bytes).
MOTION = sim_grid.configurations(sim_grid.GRID.parent / "ns3_motion.csv")

# Since an ACK's SACK blocks delay the packets it releases (AckRing.blocks; seeds 1-2): loss -18.2 ... +10.1 %
# where ns-3 loses more than 0.1 % (50 drop-tail flows at 100 Mbit/s -18.2 %, before -15.5 %), queue -10.7 ...
# +2.6 %, time-outs x0.77-1.14, utilization within 0.005; GRID2 loss -14.2 ... +18.7 %, queue -9.4 ... +10.3 %,
# time-outs x0.84-1.17, utilization within 0.014 (against ns-3's seeds 1-6 at 500 flows).  Drop-tail's Jain
# indices sit nearer ns-3's: the sum of their distances over the 16 drop-tail rows but the T1 lock-out 0.68
# (before 0.88): 500 flows at 20 ms 0.472 against 0.619 (ns-3 seeds 1-6; before 0.271), 200 flows at 45 Mbit/s
# 0.608 against 0.694 (0.580); further at 300 flows and 50 ms, 0.357 against 0.251 (0.256).
# Since the receiver's window holds a flow in fast recovery (Sender._hold_edge; seeds 1-2): loss -15.5 ... +10.1 %
# where ns-3 loses more than 0.1 % (50 drop-tail flows at 100 Mbit/s, whose 44-packet windows come within a
# recovery of their cap, -15.5 %, before -7.3 %), queue -10.7 ... +2.6 % (the 5-flow RED row -52.4 %, before
# -62.6 %, its utilization 0.891 against 0.889, before 0.907), time-outs x0.83-1.14 where above 1e-3, utilization
# within 0.005.  GRID2, on the same commit: loss -16.0 ... +18.7 %, queue -9.4 ... +10.3 %, time-outs x0.89-1.17,
# utilization within 0.014, but the two rows of KNOWN_MISSES; drop-tail's Jain indices there 0.27 against ns-3's
# 0.72 at 500 flows and 20 ms, 0.58 against 0.69 at 200 flows and 45 Mbit/s (no goal).
# Since a link that idles starts its departures again at a new phase (queues._DropTail._restart_departures)
# and drop-tail's buffer counts the replica's one-packet device queue (sim_grid.DEVICE_QUEUE; seeds 1-2):
# loss -9.5 ... +8.7 % where ns-3 loses more than 0.1 %, queue -11.3 ... +6.4 %, time-outs x0.85-1.14
# where above 1e-3, utilization within 0.0061 (the 5-flow RED row apart, as below); the 17-packet row
# queue -2.4 %, utilization 0.942 against 0.946, Jain 0.919 against 0.950 (before +2.8 %, 0.961, 0.429),
# the 10-packet row -1.4 %, 0.989 against 0.992, Jain 0.265 against 0.356 (before -12.7 %, 0.989, 0.203).
# The restart alone left the 10-packet row's queue at -15.0 % (a miss; as here, seeds 1-2), and the
# device queue alone the 17-packet row's utilization at 0.969 (classic recovery, seeds 1-4).
# Since an ECN echo halves the flight its ACK leaves, as ns-3 3.44 reduces (NewReno.reduced_on_echo;
# seeds 1-2), the two ECN rows read loss -5.0 and -7.2 %, queue -2.7 and -5.4 % (before it -5.2 and +8.7 %,
# -3.0 and +4.2 %); the other rows bit for bit as below: loss -7.2 ... +8.7 % in all (gentle RED at 200 ms
# +8.7 %), queue -12.7 ... +4.2 %.
# Measured since drop-tail's flows keep service times of their own and the receivers' delayed-ACK timer
# races the next packet (queues._DropTail._apart, AckRing._delay_acks; seeds 1-2): every configuration
# but the 5-flow RED row meets every goal: loss -7.1 ... +8.7 % where ns-3 loses more than 0.1 %, queue
# -12.7 ... +4.2 %, utilization within 0.016; the 10-packet row (dt_50ms_1500_q025), a miss until then,
# reads queue -12.7 % and utilization 0.9888 against 0.9917, and drop-tail's Jain indices sit nearer
# ns-3's (one BDP at 20 ms: 0.189 against 0.214, before 0.630; the 10-packet row 0.203 against 0.356, before
# 0.587; the 17-packet row still 0.429 against 0.950).  Before, on cb43054 (ns-3's figure first): every other
# configuration meets
# every goal: loss -12 ... +8 %, queue -11 ... +4 %, time-outs per packet x0.64-1.66 of
# ns-3's (x0.64-0.98 where above 1e-3), utilization within 0.011.  On 74a3851
# (validation/sim_grid.csv): loss -9.0 ... +8.3 %, queue -11.2 ... +4.2 %, time-outs
# x0.70-1.11 where above 1e-3, utilization within 0.015; the 10-packet row's queue 5.6
# (-21 %) and utilization 0.970, the 5-flow RED row's as below.  On 71a70a0 (re-run): loss
# -7.8 ... +8.3 %, queue -12.8 ... +4.2 %, time-outs x0.66-1.12 where above 1e-3, utilization
# within 0.018; the 10-packet row's queue 5.7 (-20 %), utilization 0.976 (within the goal), the
# 5-flow RED row's queue 1.8, utilization 0.898.
# Each known miss: the goal a configuration misses, and why.  ns-3's 5-flow RED row turns on about 20 drops
# a run: its utilization read 0.884 and 0.863 at seeds 1-2, 0.889 over seeds 1-8 (0.863-0.906), where the
# simulator reads 0.907 (seeds 1-2; 0.906 over seeds 1-12, 0.887-0.928 a seed).  Given ns-3's own round trips
# (its per-flow access delays, seeds 1-7, each set over simulator seeds 1-8) the simulator reads 0.902-0.913
# a set, 0.907 in all, against ns-3's 0.888 on the same sets, and loss 1.21e-4 against 1.12e-4 (+8 %).
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
}


ALL = {**GRID, **GRID2, **GRID3, **GRID4, **GRID5}


@pytest.fixture(scope="module")
def simulated():
    names = list(ALL)
    batch = [sim_grid.scenario(ALL[name][0], "prr-ns3.44", seed) for name in names for seed in SEEDS]
    runs = sim.simulate(batch)
    k = len(SEEDS)
    return {name: sim_grid.simulated(runs[i * k:(i + 1) * k]) for i, name in enumerate(names)}


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
    # simulator seeds 1-4 there queue 4.22 (-12 %), loss 1.24e-4 (+11 %), busy 0.880 (seeds 1-2, as the grid
    # runs it: -15 %, +29 %, 0.872).  Its loss is below the goals' 0.1 % (so ``misses`` leaves it); held to their
    # 20 % all the same, over the four seeds.
    rows = GRID["red_200ms_576_N5"]
    scenarios = [sim_grid.scenario(rows[0], "prr-ns3.44", seed) for seed in (1, 2, 3, 4)]
    runs = sim.simulate(scenarios)
    ref, got = sim_grid.reference(rows), sim_grid.simulated(runs)
    assert all(r.time_step == s.step / 8 for s, r in zip(scenarios, runs, strict=True))
    assert sim_grid.misses(ref, got) == {}
    assert got["drop_rate"] == pytest.approx(ref["drop_rate"], rel=0.2)


@pytest.mark.parametrize("name", list(FEW_FAST))
def test_simulator_meets_issue_12_goals_with_few_fast_flows(name):
    # Their loss is 4e-6 to 2e-5 (a few drops per sawtooth), below the goals' 0.1 %: queue and
    # utilization are held.  Against ns-3's seeds 1-6 for two and three flows (1-2 for one; seeds 1-2 here):
    # queue +0.5, -4.3, +8.2, +7.0 %, utilization 0.9999, 0.9939, 0.9996, 1.0000 against 0.9998, 0.9998,
    # 0.9980, 1.0000 (in the order below), loss 0.92, 1.61, 1.57, 1.66x ns-3's.  Against ns-3's seeds 1-2
    # alone, with the device queue's place counted (sim_grid.DEVICE_QUEUE): queue +7.5 and +5.4 % at two
    # and three flows.
    # Measured since the receivers' delayed-ACK timer races the next packet
    # (AckRing._delay_acks; seeds 1-2): queue -3.6, -7.0, +3.2, +4.1 %, utilization 0.9953, 0.9866, 0.9996,
    # 1.0000 (in the order below).  One flow's 200 s is a handful of sawteeth, and its utilization
    # turns on whether one of them goes wrong: at 10 Mbit/s and 50 ms, seed 2, the three lone ACKs of
    # its start (the timer's, each now a whole ACK's growth) move it from 0.9976 to 0.9827.  On 71a70a0
    # (seeds 1-2 against ns-3's 1-2): 1 flow at 20 Mbit/s
    # and 100 ms queue +0.2 %, utilization 0.9998 against 0.9998; 1 at 10 Mbit/s and 50 ms -3.0 %,
    # 0.9985; 2 at 50 Mbit/s and 60 ms +7.7 %, 1.0000 against 0.9991; 3 at 100 Mbit/s and 100 ms
    # -6.3 %, 0.9991 against 1.0000; loss 0.92-1.9x ns-3's (seeds 1-12: utilization 0.9927, 0.9922,
    # 0.9982, 0.9997).  The one-flow rows missed until 71a70a0, which decides fast retransmit at the step
    # of the third duplicate ACK, before that step's sending: deciding after it sent PRR's packets for
    # the step's later duplicate ACKs a step late, on top of the next step's, and the ring could bring
    # the duplicate ACKs a step before the lost packet's own ACK was due, when the flow was not yet
    # looking; a burst then overflowed the full buffer and the window was halved twice (seed 1 at 20
    # Mbit/s: 343 at 125.15 s, 171 a round trip later).  On 74a3851: 1 flow at 20 Mbit/s
    # and 100 ms queue -11.5 %, utilization 0.9759 against 0.9998 (a miss); 1 at 10 Mbit/s and 50 ms
    # -8.9 %, 0.9755 (the other miss); 2 at 50 Mbit/s and 60 ms +0.5 %, 0.9964 against 0.9991; 3 at
    # 100 Mbit/s and 100 ms -7.3 %, 0.9999 against 1.0000; loss 2.1-5.6x ns-3's.  Before (seeds 1-2,
    # on c061ee9): 1 flow at 20 Mbit/s and 100 ms
    # queue -7.0 %, utilization 0.9943 against 0.9998; 1 at 10 Mbit/s and 50 ms -11.3 %, 0.9755
    # against 0.9998 (the miss); 2 at 50 Mbit/s and 60 ms -3.5 %, 0.9988 against 0.9991; 3 at
    # 100 Mbit/s and 100 ms -11.8 %, 0.9972 against 1.0000.  Loss 2.3-2.8x ns-3's on every row.
    rows = FEW_FAST[name]
    runs = sim.simulate([sim_grid.scenario(rows[0], "prr-ns3.44", seed) for seed in SEEDS])
    assert sim_grid.misses(sim_grid.reference(rows), sim_grid.simulated(runs)) == {}


@pytest.fixture(scope="module")
def motion():
    """The simulator's figures on each motion row at its default step (seeds 1-2, ns-3's classic recovery)."""
    names = list(MOTION)
    runs = sim.simulate([sim_grid.scenario(MOTION[name][0], "classic-ns3.44", seed)
                         for name in names for seed in SEEDS])
    k = len(SEEDS)
    return {name: sim_grid.simulated(runs[i * k:(i + 1) * k]) for i, name in enumerate(names)}


@pytest.mark.parametrize("name", list(MOTION))
def test_simulator_meets_issue_12_goals_on_the_motion_rows(motion, name):
    # RED 5/217/0.02 (ns-3 seeds 1-2, 1-4 at 20 flows and 100 Mbit/s; simulator seeds 1-2).  Loss / queue error
    # and utilization against ns-3's where the engine runs the row again at an eighth of the step
    # (engine._finer_steps), and at the default step before it did:
    #   20 flows, 100 Mbit/s, 100 ms: +12 / -14 %, 0.720 against 0.731 (default step -50 / -39 %, 0.900)
    #   40 flows, 20 Mbit/s, 200 ms: +3 / -8 %, 0.977 against 0.978 (-18 % queue)
    #   60 flows, 50 Mbit/s, 100 ms: -1 / -5 %, 0.981 against 0.982 (-14 % queue)
    #   20 flows, 50 Mbit/s, 150 ms: +8 / -12 %, 0.812 against 0.822 (-25 / -33 %, 0.938)
    #   40 flows, 100 Mbit/s, 100 ms, 1500 bytes: +1 / -7 %, 0.977 against 0.978 (-16 % queue)
    #   60 flows, 100 Mbit/s, 150 ms, 1500 bytes: -1 / -8 %, 0.969 against 0.974 (-17 % queue)
    #   60 flows, 100 Mbit/s, 100 ms: +3 / -8 %, 0.894 against 0.903 (-12 / -25 %, 0.963)
    # and, run after the rule was set (out of sample): 40 flows, 50 Mbit/s, 200 ms +8 / -11 %, 0.839 against
    # 0.851 (-17 / -29 %, 0.948); 60 flows, 100 Mbit/s, 200 ms, 1500 bytes -0 / -7 %, 0.938 against 0.941
    # (-11 / -22 %, 0.974).  The link-filling rows at the default step (each queue over a fifth of a step's
    # service): 20 flows at 10 Mbit/s, 100 ms +3 / -2 %, 0.999 against 0.999; 20 flows at 20 Mbit/s, 100 ms,
    # 1500 bytes +2 / -1 %, 1.000 against 1.000.
    ref, got = sim_grid.reference(MOTION[name]), motion[name]
    assert sim_grid.misses(ref, got) == {}
    # Loss below the goals' 0.1 % on most of these rows (so ``misses`` leaves it), held to their 20 % all the same.
    assert got["drop_rate"] == pytest.approx(ref["drop_rate"], rel=0.2)
