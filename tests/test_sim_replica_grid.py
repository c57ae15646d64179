"""The simulator against packet-level runs off the references' 10 ms link (issue 12's goals, out of sample).

``validation/ns3_grid.csv`` holds 20 ns-3 3.44 runs of the references'
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
utilization within 0.02.
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

# Measured on cb43054 (seeds 1-2; ns-3's figure first).  Every other configuration meets
# every goal: loss -12 ... +8 %, queue -11 ... +4 %, time-outs per packet x0.64-1.66 of
# ns-3's (x0.64-0.98 where above 1e-3), utilization within 0.011.  On 74a3851
# (validation/sim_grid.csv): loss -9.0 ... +8.3 %, queue -11.2 ... +4.2 %, time-outs
# x0.70-1.11 where above 1e-3, utilization within 0.015; the 10-packet row's queue 5.6
# (-21 %) and utilization 0.970, the 5-flow RED row's as below.
KNOWN_MISSES = {
    "dt_50ms_1500_q025": (
        "drop-tail of 10 packets, 20 flows, 50 ms, 1500 B: queue 7.1 / 5.4 (-24 %), utilization 0.992 / "
        "0.967: ns-3's queue disc of 10 sits above a 1-packet device queue and a packet on the wire, 12 "
        "in all, where the simulator's buffer is the whole backlog (buffer=12 reads 7.7 and 0.989); not "
        "the whole story: on the 17-packet row (dt_100ms_20M_1500_q01) buffer=17 fits and 19 overshoots "
        "(queue 8.9 against 7.4, utilization 0.967 against 0.946), with one flow escaping by the phase "
        "effect (Jain 0.44 against ns-3's 0.95)"),
    "red_200ms_576_N5": (
        "RED 5/100/0.02, 5 flows, 200 ms: queue 4.6 / 2.0 (-56 %), utilization 0.873 / 0.920 (ns-3's "
        "seeds 0.884 and 0.863, about 20 drops a run): the queue is the bursts of unpaced senders below "
        "full load, which a fluid queue paced within a 23 ms step does not hold (a quarter step: 3.3)"),
}


@pytest.fixture(scope="module")
def simulated():
    names = list(GRID)
    batch = [sim_grid.scenario(GRID[name][0], "prr-ns3.44", seed) for name in names for seed in SEEDS]
    runs = sim.simulate(batch)
    k = len(SEEDS)
    return {name: sim_grid.simulated(runs[i * k:(i + 1) * k]) for i, name in enumerate(names)}


def _case(name, misses=KNOWN_MISSES):
    if name in misses:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=misses[name]))
    return name


@pytest.mark.parametrize("name", [_case(name) for name in GRID])
def test_simulator_meets_issue_12_goals_on_the_replica_grid(simulated, name):
    assert sim_grid.misses(sim_grid.reference(GRID[name]), simulated[name]) == {}


FEW_FAST_MISSES = {
    "ff_1flow_10M_50ms_576": (
        "one flow, 10 Mbit/s, 50 ms, 576 B, drop-tail of one BDP (108): utilization 0.9755 against 0.9998, "
        "queue -11 %: events come in pairs, a window of 225 halved and then, a round trip on, 111 halved "
        "again (seed 1: 4 of 16 events at 111), so the window falls below the BDP and the link idles.  Fast "
        "retransmit is decided after the step's sending (27 packets of service a step here), so PRR lets "
        "the packets for the step's duplicate ACKs beyond the third out a step late, on top of the next "
        "step's, and the return step's draw can put the decision a further step late: at 200 ms, 108 "
        "packets a step, one such burst overflowed the full buffer with 64 drops.  Deciding it before the "
        "step's sending (branch decide-in-step, measured on 8cbd6ee) gives 0.9863 here, but with the "
        "references' classic recovery lowers the 10 ms rows' loss by 1-2.5 points (drop-tail at 80 flows "
        "-20.6 %)"),
    "ff_1flow_20M_100ms": (
        "one flow, 20 Mbit/s, 100 ms, 1500 B, drop-tail of one BDP (167): utilization 0.9759 against 0.9998 "
        "(seeds 1-2), the same pairs of events as at 10 Mbit/s (seed 1: a window of 343 halved at 125.1 s "
        "and 171 halved again 0.3 s later).  Over seeds 1-12 it reads 0.9802 on 74a3851, 0.9792 on 83581ab "
        "and 0.9815 on 8cbd6ee: the row has always missed by about 0.02 on average, and seeds 1-2 read "
        "within the goal until a lost retransmission's timer came to run from the first duplicate ACK "
        "(seed 1 then sits out a time-out: 0.9670 -> 0.9576)"),
}


@pytest.mark.parametrize("name", [_case(name, FEW_FAST_MISSES) for name in FEW_FAST])
def test_simulator_meets_issue_12_goals_with_few_fast_flows(name):
    # Their loss is 5e-6 to 2e-5 (a few drops per sawtooth), below the goals' 0.1 %: queue and
    # utilization are held.  Measured on 74a3851 (seeds 1-2 against ns-3's 1-2): 1 flow at 20 Mbit/s
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
