"""CoDel (RFC 8289) as one queue class (issue 12: a new discipline plugs in without edits to the engine's step).

The spec is ``sim.CoDel``; its engine is ``tcpmodels.sim.codel.CoDel``, one class in one file that registers
itself, reading the head of the FIFO through the step (``Step.head``).  Held against ns-3 3.44's
``CoDelQueueDisc`` (``validation/ns3_codel.csv``: ``ns3_dumbbell.py --set codel --recovery classic``, seeds 1-2).
"""

from types import SimpleNamespace

import numpy as np
import pytest
from ns3_references import sim_grid

from tcpmodels import TCPModelsWarning, scenario_file, sim, units
from tcpmodels.sim import codel, queues
from tcpmodels.sim.draws import Draws

CODEL = sim_grid.configurations(sim_grid.GRID.parent / "ns3_codel.csv")


@pytest.mark.parametrize("field, value", [("target", 0.0), ("target", float("inf")), ("interval", -0.1),
                                          ("interval", "100ms"), ("buffer", 0), ("buffer", 2.5), ("ecn", "false")])
def test_bad_codel_settings_are_refused_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        sim.CoDel(**{field: value})


def test_codel_is_one_class_registered_for_its_spec():
    assert queues.ENGINES[sim.CoDel] is codel.CoDel
    assert isinstance(sim.Scenario(n_flows=2, bandwidth=1e6, rtt=0.1, queue="codel").queue, sim.CoDel)


def test_a_scenario_file_takes_codel_with_times_in_units():
    table = {"n_flows": 20, "bandwidth": "10mbit", "rtt": "50ms",
             "queue": {"type": "codel", "target": "2ms", "interval": "50ms", "buffer": "64kb"}}
    assert scenario_file.scenario_from_table(table, "f.toml").queue == sim.CoDel(target=0.002, interval=0.05,
                                                                                 buffer=65536 // 576)
    with pytest.raises(ValueError, match="f.toml.*target"):
        scenario_file.scenario_from_table(dict(table, queue={"type": "codel", "target": "5"}), "f.toml")


def test_the_default_step_resolves_the_target_whatever_the_rtt():
    # A quarter of the target (scenario.CODEL_SHARE), or half the smallest RTT where that is shorter.
    assert sim.Scenario(n_flows=5, bandwidth=10e6, rtt=0.2, queue=sim.CoDel()).step == pytest.approx(0.00125)
    assert sim.Scenario(n_flows=5, bandwidth=10e6, rtt=0.002, rtt_spread=0.0,
                        queue=sim.CoDel()).step == pytest.approx(0.001)
    with pytest.warns(TCPModelsWarning, match="time_step: 0.01 s is more than half CoDel's target"):
        sim.Scenario(n_flows=5, bandwidth=10e6, rtt=0.2, queue=sim.CoDel(), time_step=0.01)


def _engine(bandwidth=10e6, **queue):
    # (A step of 2^-10 s: the times below fall inside steps, never on their boundaries.)
    s = sim.Scenario(n_flows=1, bandwidth=bandwidth, rtt=0.1, queue=sim.CoDel(**queue), time_step=2.0 ** -10)
    return codel.CoDel([s], Draws([1], 1), False), s


def _decisions(engine, s, queue_at, steps):
    """The step and count of each step's head decisions, the queue at step k given by ``queue_at(k)``."""
    out = []
    for k in range(steps):
        step = SimpleNamespace(k=k, now=k * s.step, dt=s.step, q=np.array([queue_at(k)]), A=np.zeros(1),
                               serve=np.array([s.capacity * s.step]))
        n = engine._head_decisions(step)[0]
        if n:
            out.append((k, n))
    return out


def test_the_control_law_drops_as_linux_spaces_them():
    # A queue held at 100 packets (46 ms at 2170 packets/s, above the 5 ms target) from t = 0: the first drop
    # at t = interval = 0.1 s (count 1), each next one interval / sqrt(count) after it, count the drops
    # before it, 1 / sqrt(count) by Linux's Newton steps: 1, 0.5, 0.5625, 0.48779296875 at counts 1-4
    # (exactly: 1, 0.707, 0.577, 0.5), so at 0.1, 0.2, 0.25, 0.30625, 0.355029296875 s.
    engine, s = _engine()
    got = _decisions(engine, s, lambda k: 100.0, 370)
    times = [0.1, 0.2, 0.25, 0.30625, 0.355029296875]
    assert got == [(int(t / s.step), 1) for t in times]
    assert engine.count[0] == 5 and engine.dropping[0]


def test_dropping_stops_below_target_and_starts_again_from_the_last_cycles_drops():
    # Above target for 0.39 s, below for 0.2 s (less than 16 intervals), above again: the second cycle starts
    # one interval after the queue rose again, with count = the first cycle's drops but its first
    # (delta = count - lastcount, RFC 8289 5.5 as Linux runs it), so its drops come closer together.
    engine, s = _engine()
    high = lambda k: 5.0 if 400 <= k < 600 else 100.0  # noqa: E731  (below the 10.85-packet target between)
    got = _decisions(engine, s, high, 900)
    first = [k for k, _ in got if k < 400]
    second = [k for k, _ in got if k >= 600]
    assert first[0] == int(0.1 / s.step) and second[0] == int((600 * s.step + 0.1) / s.step)
    assert engine.lastcount[0] == len(first) - 1
    assert np.diff(second)[:3].max() < np.diff(first)[:3].min()


def test_no_decision_where_one_packet_is_queued():
    # RFC 8289's maxpacket: a queue of one packet is never judged, whatever its sojourn: on a 10 kbit/s link
    # one packet waits 0.46 s, 92 targets; two are judged.
    engine, s = _engine(bandwidth=1e4, buffer=5)
    assert _decisions(engine, s, lambda k: 1.0, 400) == []
    assert _decisions(engine, s, lambda k: 2.0, 400)[0] == (int(0.1 / s.step), 1)


@pytest.mark.parametrize("ecn", [False, True], ids=["drops", "marks"])
def test_codel_holds_the_queue_near_its_target_where_drop_tail_fills_its_buffer(ecn):
    # 20 flows, 10 Mbit/s, 50 ms, 1000 packets (ns-3's CoDel row codel_10M_50ms_N20 reads a queue of 23.8
    # packets, 11 ms).  Measured (seed 1, 30 s): CoDel 22.1 and 23.6 packets (10.2 and 10.9 ms, without and
    # with ECN), busy 0.995 and 0.996; drop-tail 740 packets, 31-33 times as many.  The bounds: the delay
    # between CoDel's target and four times it, drop-tail's queue 20 times CoDel's, the link busy (ns-3 0.998).
    base = dict(n_flows=20, bandwidth=10e6, rtt=0.05, duration=30.0, warmup=10.0, seed=1,
                sender=sim.NewReno(sack=True, ecn=ecn))
    held = sim.simulate(sim.Scenario(**base, queue=sim.CoDel(ecn=ecn)), check=True)
    full = sim.simulate(sim.Scenario(**base, queue=sim.DropTail(buffer=1000)), check=True)
    delay = held.queue / units.capacity(10e6, 576)
    assert 0.005 < delay < 0.02 and full.queue > 20 * held.queue
    assert held.utilization > 0.99
    assert (held.mark_rate > 0) == ecn and (held.loss_rate - held.mark_rate < 1e-3) == ecn  # (loss counts marks)


def test_the_trace_follows_the_control_law():
    # FPQ traces its flow count; CoDel whether it is dropping and its count (Queue.report).
    r = sim.simulate(sim.Scenario(n_flows=20, bandwidth=10e6, rtt=0.05, queue=sim.CoDel(), duration=10.0,
                                  warmup=2.0, trace=True, seed=1))
    dropping, count = r.trace["codel_dropping"], r.trace["codel_count"]
    assert set(dropping) == {0.0, 1.0} and count.max() > 1
    assert count[dropping == 1.0].min() >= 1.0  # (a cycle's first drop counts 1)


# Each known miss: the goal a configuration misses, and why.
KNOWN_MISSES = {
    "codel_10M_20ms_N100": "100 flows, 10 Mbit/s, 20 ms (windows of about one packet, 9 % loss, ns-3 time-outs "
                           "0.016 per packet): queue -32 % (46 against 67 packets), loss +10 % (-31 % and +3 % "
                           "while 6 flows of seeds 1-2 stalled for good: NewReno.loss_detected); not isolated",
    "codel_10M_100ms_N200": "200 flows, 10 Mbit/s, 100 ms (9-10 % loss, time-outs 0.019 per packet): queue -32 % "
                            "(55 against 81 packets), loss +2 %, time-outs x0.84 (-31 %, -1 %, x0.76 while 5 "
                            "flows stalled for good; -22 %, -6 %, x0.70 before the timer raced fast recovery: "
                            "Sender._race_the_timer); not isolated",
}


@pytest.fixture(scope="module")
def replica():
    # Each row with the twin of the recovery ns-3 ran, seeds 1-2.
    return sim_grid.simulate_grid(CODEL, (1, 2))


def _row(name):
    if name in KNOWN_MISSES:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[name]))
    return name


@pytest.mark.slow
@pytest.mark.parametrize("name", [_row(name) for name in CODEL])
def test_codel_meets_issue_12_goals_against_ns3(replica, name):
    # Issue 12's goals (sim_grid.misses): loss within 20 % where ns-3 loses more than 0.1 %, queue within 15 %,
    # time-outs within 2x where above 1e-3, utilization within 0.02.  Measured on fd7afcc (seeds 1-2 against
    # ns-3's 1-2): loss -2.0 ... +6.6 % on the rows above 0.1 % (+19.0 % at 5 flows, 1.26e-4), queue -13.1 ...
    # +6.4 %, utilization within 0.003; the known misses below.  docs/simulator_record.md keeps the versions tried.
    assert sim_grid.misses(sim_grid.reference(CODEL[name]), replica[name]) == {}


def test_a_mark_is_one_per_packet_leaving():
    # Where the control law calls for marks closer together than the packets leave, each leaving packet is
    # marked once (ns-3 schedules the next mark from the packet it marked): never more marks than departures.
    engine, s = _engine(ecn=True)
    engine.marking = True
    got = _decisions(engine, s, lambda k: 100.0, 4000)
    per_step = s.capacity * s.step
    assert max(n for _, n in got) <= np.ceil(per_step)
