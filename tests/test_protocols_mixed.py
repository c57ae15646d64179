"""Every sender mixes with every other in one scenario (issue 13): one dispatch rule, each group its own rules."""

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim import engine, senders

MARKING = sim.REDI(min_th=20, max_th=400, max_p=1.0, buffer=2000, ecn=True)
# Every registered sender's engine class, by its spec (ECN on: the echo hooks run too).
SPECS = [cls(ecn=True) for cls in senders.ENGINES]


def busy(sender_groups, workload=None, **kw):
    """Six flows through gentle RED with ECN (marks) and a lossy link (drops), half of them restarting transfers."""
    base = dict(n_flows=6, bandwidth=5e6, rtt=[0.04, 0.06, 0.08, 0.05, 0.07, 0.09], packet_size=1000,
                queue=sim.RED(min_th=2, max_th=12, max_p=0.2, gentle=True, ecn=True, buffer=40),
                senders=sender_groups, duration=25.0, warmup=5.0, start_spread=1.0, link_loss=0.003,
                workload=workload or [(3, sim.LongLived()), (3, sim.FiniteTransfers(size=30))])
    return sim.Scenario(**{**base, **kw})


def _split_sender(scenarios, flows, ring, dt):
    """A pure population's sender built as a mixed one: two groups (flows 0-2, 3-5) of the same spec."""
    spec = scenarios[0].sender
    parts = [senders._engine_of(spec)(scenarios, flows, ring, dt, spec) for _ in range(2)]
    layout = np.repeat([0, 1], 3)
    return senders.Mixed(scenarios, flows, ring, dt, parts, np.tile(layout, len(scenarios)))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: type(s).__name__)
def test_a_mixed_population_of_one_kind_is_the_pure_one(spec, monkeypatch):
    # The dispatch rule alone: groups split across a sender's own rules give the
    # pure run's result bit for bit (drops, marks, time-outs, transfers, windows).
    s = busy([(6, spec)])
    pure = sim.simulate(s, seeds=[0, 1], check=True)
    monkeypatch.setattr(engine, "make_sender", _split_sender)
    split = sim.simulate(s, seeds=[0, 1], check=True)
    for a, b in zip(pure, split, strict=True):
        assert a.mark_rate > 0 and a.flow_drops.sum() > 0 and len(a.transfers.size) > 0  # every path taken
        np.testing.assert_array_equal(a.flow_packets, b.flow_packets)
        np.testing.assert_array_equal(a.flow_drops, b.flow_drops)
        np.testing.assert_array_equal(a.flow_timeouts, b.flow_timeouts)
        np.testing.assert_array_equal(a.flow_window, b.flow_window)
        np.testing.assert_array_equal(a.transfers.completion, b.transfers.completion)
        assert a.mark_rate == b.mark_rate


@pytest.mark.parametrize("spec", [p for p in SPECS if type(p) is not sim.NewReno], ids=lambda s: type(s).__name__)
def test_every_sender_runs_beside_newreno(spec):
    r = sim.simulate(busy([(3, spec), (3, sim.NewReno(ecn=True))],
                          workload=[(2, sim.LongLived()), (1, sim.FiniteTransfers(size=30)),
                                    (2, sim.LongLived()), (1, sim.FiniteTransfers(size=30))]), check=True)
    assert [type(g.sender) for g in r.groups] == [type(spec), sim.NewReno] and (r.goodput > 0).all()


def opened(groups, queue=MARKING, window=100.0):
    """An engine of one flow per group, opened, in congestion avoidance at ``window`` packets."""
    s = sim.Scenario(n_flows=len(groups), bandwidth=10e6, rtt=0.1, rtt_spread=0.0, queue=queue,
                     senders=[(1, g) for g in groups], duration=10.0, warmup=0.0, start_spread=0.0)
    e = engine._Engine([s], False)
    j = np.arange(len(groups))
    e.sender.open(j)
    e.flows.cwnd[:], e.flows.ssthresh[:] = window, window / 2
    return e, j


def echo_all(e, j, marked=10.0, now=1.0):
    """One step: ten ACKs per flow, ``marked`` of them echoing marks sent a round trip before."""
    e.sender.on_acks(np.full(j.size, 10.0), False)
    e.sender.on_marks(j, now - 0.1, np.full(j.size, marked))
    e.sender.on_echoes(now + 0.01, now)


def test_tcpe_beside_newreno_freezes_where_its_neighbour_halves():
    # Kamra et al., Sec. 2: an echo freezes TCP/E's window; RFC 3168 halves standard TCP's.
    e, j = opened([sim.TCPE(), sim.NewReno(ecn=True)])
    echo_all(e, j)
    assert e.flows.cwnd[0] == pytest.approx(100.0, abs=1e-12) and e.flows.cwnd[1] == 50.0
    # A quiet round trip later TCP/E (alone) is back in slow start, unbounded.
    e.sender.on_acks(np.full(2, 1.0), False)
    e.sender.on_echoes(1.2, 1.2)
    assert e.flows.ssthresh[0] == e.flows.max_window[0] and e.flows.ssthresh[1] == 50.0


def test_sdc_beside_newreno_delays_where_its_neighbour_halves():
    # Hsiao et al., Sec. II.B: CE on a window of at most eight packets raises SDC's delay, keeps its window.
    e, j = opened([sim.NewReno(ecn=True), sim.SDC(max_delay=2.0)], window=6.0)
    echo_all(e, j, marked=1.0)
    assert e.flows.cwnd[0] == 3.0 and e.flows.cwnd[1] >= 6.0
    assert e.sender.hold[0] == 0.0 and e.sender.hold[1] > 0.0  # the engine holds only SDC's ACKs


def test_two_acwap_groups_pace_by_their_own_state():
    # Two ACWAP groups of different kinds: each paces its own flows from its own R_C
    # and congestion count (a congestion event of one leaves the other's untouched).
    e, j = opened([sim.ACWAP(kind="formula"), sim.ACWAP(kind="table")], queue=sim.DropTail(buffer=200))
    formula, table = e.sender.parts
    assert formula.spec.kind == "formula" and table.spec.kind == "table"
    e.sender.reduced(np.array([0]))
    assert (formula.numofcon[0], table.numofcon[0], formula.numofcon[1], table.numofcon[1]) == (1, 0, 0, 0)
    formula.srtt[:] = 0.2  # the first group's R_C, doubled: its pacing rate halves
    table.srtt[:] = 0.1
    e.sender.on_acks(np.zeros(2), False)
    step = e.sender.access_step
    # R_C / cwnd between packets: cwnd dt / R_C a step (0.05 s step, 100 packets).
    assert step[0] == pytest.approx(e.dt * 100 / 0.2) and step[1] == pytest.approx(e.dt * 100 / 0.1)


def test_the_mechanics_every_sender_shares_are_not_overridden():
    # Mixed runs these once for all groups: a variant overriding one would be mixed wrongly.
    for cls in senders.ENGINES.values():
        for name in senders.SHARED_HOOKS:
            assert getattr(cls, name) is getattr(senders.Sender, name), (cls.__name__, name)
    hooks = set(senders.FLOW_HOOKS) | set(senders.POPULATION_HOOKS) | set(senders.SHARED_HOOKS)
    public = {n for n in vars(senders.Sender) if not n.startswith("_") and callable(getattr(senders.Sender, n))}
    assert public - {"own", "recovery_rounds"} == hooks


@pytest.mark.slow
def test_kamra_tcpe_takes_the_link_from_standard_tcp_beside_it():
    # Kamra et al., Sec. 3.2: "TCP/E will be *unfair* to other TCP variants because
    # it uses the bandwidth available more efficiently".  One TCP/E and one
    # NewReno (ECN, SACK) flow, 10 Mbit/s, 100 ms, RED-I marking from 20 packets.
    q = sim.REDI(min_th=20, max_th=150, max_p=1.0, buffer=300, ecn=True)
    s = sim.Scenario(n_flows=2, bandwidth=10e6, rtt=0.1, rtt_spread=0.0, queue=q, duration=100.0, warmup=20.0,
                     start_spread=5.0, senders=[(1, sim.TCPE(max_window=2000)),
                                                (1, sim.NewReno(ecn=True, sack=True, recovery="rfc6675"))])
    r = sim.simulate(s, check=True)
    # Measured (seed 0, 3819adb): 2159 against 12 packets/s, utilization 1.00: each
    # mark freezes TCP/E's window and halves NewReno's, which never regains its share.
    assert r.goodput[0] > 20 * r.goodput[1] and r.utilization > 0.95


@pytest.mark.slow
def test_hsiao_sdc_beside_newreno_keeps_its_larger_windows_and_cedes_rate():
    # Hsiao et al.'s Table 1 set-up (50 flows, b = 100) with 25 SDC (maximum
    # delay 2 s) beside 25 NewReno flows (ECN, limited transmit, IW 2).
    from tcpmodels import data

    p = dict(zip(*[data.table("hsiao_table1_parameters")[k] for k in ("parameter", "value")], strict=True))
    queue = sim.RED(min_th=100 * p["min_th_per_buffer"], max_th=100 * p["max_th_per_buffer"], weight=p["weight"],
                    max_p=p["max_p"], gentle=True, ecn=True, buffer=100)
    tcp = dict(initial_window=2, limited_transmit=True)
    s = sim.Scenario(n_flows=50, bandwidth=p["bandwidth"], rtt=0.1, rtt_spread=0.0, packet_size=p["packet_size"],
                     queue=queue, senders=[(25, sim.SDC(max_delay=2.0, **tcp)), (25, sim.NewReno(ecn=True, **tcp))],
                     duration=p["duration"], warmup=0.0, start_spread=1.0, access_rate=p["access_bandwidth"])
    sdc, tcp = sim.simulate(s, check=True).groups
    # Measured (seed 0, 3819adb): windows 5.87 against 2.35 packets (the
    # paper's Figs. 4 and 7, in separate runs: above 4, below 3), goodput
    # 2.49 against 4.96 packets/s (seeds 0-2 before: 5.81-5.86, 2.32-2.33,
    # 2.38-2.45, 4.99-5.05): the held ACKs slow SDC to
    # cwnd / (RTT + d), and the NewReno flows take what it leaves (the paper
    # runs no mixed population).
    assert sdc.window > 4.0 > 3.0 > tcp.window
    assert sdc.goodput < 0.7 * tcp.goodput
