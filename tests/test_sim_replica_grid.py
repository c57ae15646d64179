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

# Measured on cb43054 (seeds 1-2; ns-3's figure first).  Every other configuration meets
# every goal: loss -12 ... +8 %, queue -11 ... +4 %, time-outs per packet x0.64-1.66 of
# ns-3's (x0.64-0.98 where above 1e-3), utilization within 0.011.
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


def _case(name):
    if name in KNOWN_MISSES:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[name]))
    return name


@pytest.mark.parametrize("name", [_case(name) for name in GRID])
def test_simulator_meets_issue_12_goals_on_the_replica_grid(simulated, name):
    assert sim_grid.misses(sim_grid.reference(GRID[name]), simulated[name]) == {}
