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

import dataclasses
import importlib.util
import pathlib

import pytest

from tcpmodels import sim

# These rows are compared with ns-3 at the default step on purpose, also where it cannot hold the queue
# (engine._warn_unresolved_queue; its own test is in test_sim_input.py).
pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore:time_step. the queue averaged:tcpmodels.TCPModelsWarning")]

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
# +2 / -41 %, 0.934 and +8 / -48 %, 0.917 (ns-3 0.932: below full load, the default step's queue gap, which an
# eighth of it closes: BELOW_FULL_LOAD); 10 Mbit/s, 200 ms, 30 flows +1 / -11 %, 0.984 and +4 / -12 %, 0.980 (ns-3
# 0.970); gentle, 20 Mbit/s, 50 ms, 120 flows -6 / +1 % and +5 / +4 %.
GRID5 = sim_grid.configurations(sim_grid.GRID.parent / "ns3_grid5.csv")
# Issue 12's queue-motion rows as the references' set-up runs them (validation/ns3_motion.csv: ns-3's classic
# recovery, as the references ran; 20 flows, RED 5/217/0.02, ~100 ms, at 10 and 100 Mbit/s).
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
    "red_200ms_576_N5": (("queue",), (
        "RED 5/100/0.02, 5 flows, 200 ms: queue 4.8 / 2.3 (-52 %, -63 % before Sender._hold_edge; ns-3 seeds "
        "1-8): the queue is the bursts of unpaced senders below full load (ns-3's is empty 22 % of the time and "
        "reaches 14 packets at its 95th percentile), which a fluid queue paced within a 23 ms step does not hold")),
    "dt_100ms_T1_N10": (("loss", "queue", "time-outs"), (
        "10 flows, T1 (1.544 Mbit/s), 100 ms, drop-tail 20, access links as fast as the bottleneck: ns-3 locks "
        "nine flows out in 4 of its seeds 1-12 (loss 5e-4 to 2e-3, Jain 0.1, the tenth flow's backlog on its "
        "own access link keeping the buffer full) and is unfair in the others (loss 0.025-0.029, queue 15.5-17.2, "
        "Jain 0.16-0.38, time-outs per packet 0.0024-0.0075, 5-31 % of the flow-time in time-outs); the "
        "simulator locks none out in 16 seeds (loss 0.024-0.028, queue 13.5-14.4, Jain 0.55-0.90, 3-5 % in "
        "time-outs): against the mean of ns-3's 12 seeds loss +41 %, queue -21 %, time-outs 0.42x")),
    "red_150ms_50M_576_ecn_N60": (("queue",), (
        "ECN RED 30/500/0.1, 60 flows, 50 Mbit/s, 150 ms, 0.93 busy: queue 19.3 / 10.0 (-48 %) at the default step "
        "(23 ms, 250 packets of service), -11 % at an eighth of it (BELOW_FULL_LOAD); simulate warns")),
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


# Below full load, with a queue of a few packets, the default step misses what a finer one resolves: the
# arrivals' collisions within a step, which the step's fluid service takes as evenly interleaved.  At an
# eighth of the step the simulator meets issue 12's goals there, where the default step misses them by up to
# a half (each case: ns-3's rows, the recovery they ran, the simulator's seeds).  It has not settled there:
# a sixteenth moves the queue by another +6 to +9 % (and V3's, tests/test_sim_reference_dynamics.py).
FINE_STEP = 1 / 8
BELOW_FULL_LOAD = {
    # 5 flows, RED 5/100/0.02, 200 ms (ns-3 seeds 1-8: loss 1.11e-4, queue 4.80, busy 0.889).  Simulator
    # seeds 1-4 at the default step (23 ms), a quarter, an eighth and a sixteenth: queue 2.42, 3.95, 4.22,
    # 4.57 (-50, -18, -12, -5 %), loss 1.22, 1.30, 1.24, 1.31e-4 (+9, +17, +11, +18 %), busy 0.897, 0.885,
    # 0.880, 0.875.
    "red_200ms_576_N5": (GRID, "prr-ns3.44", (1, 2, 3, 4)),
    # 20 flows at 100 Mbit/s (ns-3 seeds 1-4: loss 1.10e-4, queue 4.23, busy 0.731; a seed's 0.719-0.741).
    # Simulator seeds 1-2 at the default step (5.9 ms: 128 packets of service against min_th's 5), a
    # quarter, an eighth and a sixteenth (seed 1): busy 0.900, 0.751, 0.720, 0.693; loss 5.6e-5, 1.09e-4,
    # 1.23e-4, 1.38e-4 (-50, -1, +12, +25 %); queue 2.59, 3.32, 3.65, 3.86 (-39, -21, -14, -9 %).
    "motion_100M": (MOTION, "classic-ns3.44", (1, 2)),
    # The rest of issue 12's range, the same RED (ns-3 seeds 1-2; simulator seeds 1-2 at the default step and an
    # eighth of it).  40 flows, 20 Mbit/s, 200 ms: queue 15.7 against 12.8 and 14.5 (-18 %, -8 %), busy 0.978
    # against 0.983 and 0.977.  20 flows, 50 Mbit/s, 150 ms: busy 0.822 against 0.938 and 0.812, queue 6.16
    # against 4.15 and 5.44 (-33 %, -12 %), loss 1.66e-4 against -25 % and +8 %.
    "motion_20M_N40_200ms": (MOTION, "classic-ns3.44", (1, 2)),
    "motion_50M_N20_150ms": (MOTION, "classic-ns3.44", (1, 2)),
    # ECN RED 30/500/0.1, 60 flows, 50 Mbit/s, 150 ms (ns-3's PRR, seeds 1-2: marks 1.27e-3, queue 19.3, busy
    # 0.932): at an eighth of the step marks -3 %, queue -11 %, busy 0.938 (the default step -48 %, 0.917).
    "red_150ms_50M_576_ecn_N60": (GRID5, "prr-ns3.44", (1, 2)),
}


@pytest.mark.parametrize("name", list(BELOW_FULL_LOAD))
def test_an_eighth_of_the_step_meets_ns3_below_full_load(name):
    grid, recovery, seeds = BELOW_FULL_LOAD[name]
    rows = grid[name]
    runs = sim.simulate([dataclasses.replace(s, time_step=s.step * FINE_STEP)
                         for s in (sim_grid.scenario(rows[0], recovery, seed) for seed in seeds)])
    ref, got = sim_grid.reference(rows), sim_grid.simulated(runs)
    assert sim_grid.misses(ref, got) == {}
    # Loss below the goals' 0.1 % here (so ``misses`` leaves it), held to their 20 % all the same.
    assert got["drop_rate"] == pytest.approx(ref["drop_rate"], rel=0.2)


# The goals the default step misses on the motion rows (strict: a fix shows), each row also in BELOW_FULL_LOAD.
MOTION_MISSES = {
    "motion_100M": ("queue", "utilization"),
    "motion_20M_N40_200ms": ("queue",),
    "motion_50M_N20_150ms": ("queue", "utilization"),
}


@pytest.fixture(scope="module")
def motion_misses():
    """The goals each motion row misses at the default step (simulator seeds 1-2, ns-3's classic recovery)."""
    names = list(MOTION)
    runs = sim.simulate([sim_grid.scenario(MOTION[name][0], "classic-ns3.44", seed)
                         for name in names for seed in SEEDS])
    k = len(SEEDS)
    return {name: sim_grid.misses(sim_grid.reference(MOTION[name]), sim_grid.simulated(runs[i * k:(i + 1) * k]))
            for i, name in enumerate(names)}


@pytest.mark.parametrize("name", list(MOTION))
def test_simulator_meets_issue_12_goals_on_the_motion_rows_at_the_default_step(motion_misses, name):
    # RED 5/217/0.02, ~100-200 ms, 20-60 flows.  20 flows at 10 Mbit/s (ns-3 seeds 1-2: loss 3.67e-3, queue
    # 26.6, busy 0.9987): the simulator at its default step (47.5 ms), seeds 1-2, loss +2 %, queue -3 %, busy
    # 0.999 (seeds 1-4: 3.74e-3, 25.8, 0.9992).  60 flows at 50 Mbit/s, 100 ms (ns-3 loss 1.95e-3, queue 18.3,
    # busy 0.982): loss +2 %, queue -14 % (-5 % at an eighth of the step), busy 0.982; its queue averages 0.145
    # of a step's service, and simulate warns (engine._warn_unresolved_queue).
    missed = dict(motion_misses[name])
    for goal in MOTION_MISSES.get(name, ()):
        missed.pop(goal, None)  # (held by the strict expected failure below)
    assert missed == {}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(
    strict=True, reason=f"below full load the default step misses {' and '.join(goals)} (an eighth of it meets "
                        "them: BELOW_FULL_LOAD)")) for name, goals in MOTION_MISSES.items()])
def test_known_misses_on_the_motion_rows_at_the_default_step(motion_misses, name):
    assert not set(MOTION_MISSES[name]) & set(motion_misses[name])
