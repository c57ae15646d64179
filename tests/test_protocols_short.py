"""The short-transfer and ECN senders of issue 13 (TCP/E; Kamra, Misra & Towsley): rules, specs and input checks."""

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim import engine

MARKING = sim.REDI(min_th=20, max_th=400, max_p=1.0, buffer=2000, ecn=True)


def lone(sender, queue=MARKING):
    """An engine with one flow, opened, in congestion avoidance at a window of 100 packets."""
    s = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, rtt_spread=0.0, queue=queue, sender=sender,
                     duration=10.0, warmup=0.0, start_spread=0.0)
    e = engine._Engine([s], False)
    j = np.array([0])
    e.sender.open(j)
    e.flows.cwnd[0], e.flows.ssthresh[0] = 100.0, 50.0
    return e, j


def echo(e, j, acks, marked, now=1.0):
    """One step: `acks` ACKs arrive, `marked` of them echo marks (sent one RTT before)."""
    e.sender.on_acks(np.array([float(acks)]), False)
    e.sender.on_marks(j, now - 0.1, np.array([float(marked)]))
    e.sender.on_echoes(now + 0.01, now)


def test_an_ecn_echo_freezes_the_tcpe_window_where_newreno_halves_it():
    e, j = lone(sim.TCPE())
    echo(e, j, acks=10, marked=10)
    # All ten ACKs echo marks: no growth at all (Kamra et al., OnAck: ECNset -> no cwnd += increase).
    assert e.flows.cwnd[0] == pytest.approx(100.0, abs=1e-12)
    r, _ = lone(sim.NewReno(ecn=True))
    echo(r, j, acks=10, marked=10)
    assert r.flows.cwnd[0] == 50.0  # RFC 3168: FlightSize / 2


@pytest.mark.parametrize("recovery, delayed_ack, ssthresh", [
    ("prr", True, 50.0), ("classic-ns3.44", True, 49.0), ("prr-ns3.44", True, 49.0), ("classic-ns3.44", False, 49.5)])
def test_an_ecn_echo_halves_the_flight_its_ack_leaves_as_ns3_does(recovery, delayed_ack, ssthresh):
    # RFC 3168 6.1.2 halves the window (a full one of 100 here: 50); ns-3 3.44 (recovery="*-ns3.44")
    # halves BytesInFlight after the echoing ACK's data is discarded: 100 less the 2 packets an ACK
    # covers with delayed ACKs, or the 1 without.
    e, j = lone(sim.NewReno(ecn=True, recovery=recovery, delayed_ack=delayed_ack))
    echo(e, j, acks=10, marked=10)
    assert e.flows.ssthresh[0] == ssthresh and e.flows.cwnd[0] == ssthresh


def test_highspeed_keeps_its_b_of_w_on_an_echo_whatever_the_recovery():
    windows = []
    for recovery in ("prr", "classic-ns3.44"):
        e, j = lone(sim.HighSpeed(ecn=True, recovery=recovery))
        echo(e, j, acks=10, marked=10)
        windows.append(e.flows.ssthresh[0])
    assert windows[0] == windows[1] < 100.0


def test_only_the_marked_acks_are_frozen():
    # One echoing ACK per marked packet (Kamra et al., Sec. 2): ten packets ACKed one by one,
    # four marked: six ACKs add 1/cwnd each.
    e, j = lone(sim.TCPE(delayed_ack=False))
    echo(e, j, acks=10, marked=4)
    assert e.flows.cwnd[0] == pytest.approx(100.0 + 6 / 100, rel=1e-9)
    # With delayed ACKs the ten packets are five ACKs, four of them echoing: one adds 1/cwnd.
    e, j = lone(sim.TCPE())
    echo(e, j, acks=10, marked=4)
    assert e.flows.cwnd[0] == pytest.approx(100.0 + 1 / 100, rel=1e-9)


def test_each_steps_marks_freeze_the_acks_they_return_with():
    # Marks of two steps a step apart come back a step apart, each freezing its own step's ACKs.
    e, j = lone(sim.TCPE(delayed_ack=False))
    dt = e.dt
    e.sender.on_marks(j, 1.0 - 0.1, np.array([10.0]))
    e.sender.on_marks(j, 1.0 - 0.1 + dt, np.array([10.0]))
    for k in range(2):
        e.sender.on_acks(np.array([10.0]), False)
        e.sender.on_echoes(1.0 + k * dt + dt / 2, 1.0 + k * dt)
        assert e.flows.cwnd[0] == pytest.approx(100.0, abs=1e-12)
    e.sender.on_acks(np.array([10.0]), False)  # the next step's ACKs are not marked: they grow
    e.sender.on_echoes(1.0 + 2.5 * dt, 1.0 + 2 * dt)
    assert e.flows.cwnd[0] == pytest.approx(100.0 + 10 / 100, rel=1e-6)


def test_tcpe_switches_to_congestion_avoidance_on_an_echo_and_back_to_slow_start_after_a_quiet_rtt():
    e, j = lone(sim.TCPE())
    f = e.flows
    f.ssthresh[0] = 1000.0  # slow start
    echo(e, j, acks=2, marked=1)
    assert f.cwnd[0] >= f.ssthresh[0]  # congestion avoidance
    # An RTT (0.1 s + no queue) later without marks: slow start again, unbounded.
    e.sender.on_acks(np.array([1.0]), False)
    e.sender.on_echoes(1.05, 1.05)
    assert f.cwnd[0] >= f.ssthresh[0]  # not yet: 0.05 s since the echo
    e.sender.on_acks(np.array([1.0]), False)
    e.sender.on_echoes(1.2, 1.2)
    assert f.ssthresh[0] == f.max_window[0] and f.cwnd[0] < f.ssthresh[0]


def test_tcpe_keeps_its_window_under_marks_and_fills_the_link_where_ecn_newreno_halves():
    # One flow, 10 Mbit/s, 100 ms (BDP 217 packets), RED on the instantaneous
    # queue marking from 20 to 400 packets: TCP/E's window never falls on a mark.
    base = dict(n_flows=1, bandwidth=10e6, rtt=0.1, rtt_spread=0.0, duration=40.0, warmup=10.0, start_spread=0.0,
                trace=True, trace_interval=0.05)
    e = sim.simulate(sim.Scenario(queue=MARKING, sender=sim.TCPE(max_window=2000), **base), check=True)
    # (NewReno with the recovery of the paper's ns-2, as TCP/E's.)
    newreno = sim.NewReno(ecn=True, sack=True, recovery="rfc6675", max_window=2000)
    n = sim.simulate(sim.Scenario(queue=MARKING, sender=newreno, **base))
    assert e.mark_rate > 0.1
    # Measured (3819adb): TCP/E 1.00 (68 % of packets marked), NewReno with ECN 0.81.
    assert e.utilization > 0.95 and n.utilization < 0.9


def test_red_i_replaces_the_given_share_of_its_marks_by_drops():
    # Kamra et al., Sec. 2: "with a small probability an ECN mark is replaced by
    # a packet drop".  One TCP/E flow marked on most packets, no overflow (the
    # 2000-packet buffer is never reached: 0 drops without the rule).
    base = dict(n_flows=1, bandwidth=10e6, rtt=0.1, rtt_spread=0.0, duration=40.0, warmup=10.0, start_spread=0.0)
    share = {}
    for p in (0.0, 0.05, 1.0):
        queue = sim.REDI(min_th=20, max_th=400, max_p=1.0, buffer=2000, ecn=True, mark_drop=p)
        runs = sim.simulate(sim.Scenario(queue=queue, sender=sim.TCPE(max_window=2000), **base), seeds=range(4),
                            check=True)
        drops = sum(r.flow_drops.sum() for r in runs)
        marks = sum(r.mark_rate * r.flow_packets.sum() for r in runs)
        share[p] = drops / (drops + marks), drops + marks
    # Measured (94e94b5): 0, 0.050 of 26 700 decisions, 1 (3819adb: 0.053 of
    # 25 400).  At 0.05 the binomial's standard deviation over 26 700 decisions
    # is 0.0013: 4.5 of them allowed.
    assert share[0.0][0] == 0.0 and share[1.0][0] == 1.0
    assert share[0.05][1] > 20_000 and share[0.05][0] == pytest.approx(0.05, abs=0.006)


@pytest.mark.parametrize("queue", [sim.DropTail(), sim.RED(), sim.REDI(), sim.CHOKe(), sim.FPQ(), "droptail"])
def test_tcpe_behind_a_queue_that_cannot_mark_is_refused(queue):
    with pytest.raises(ValueError, match="queue: TCPE"):
        sim.Scenario(n_flows=2, bandwidth=1e6, rtt=0.1, queue=queue, sender=sim.TCPE())


def test_tcpe_specs_are_checked():
    with pytest.raises(ValueError, match="ecn"):
        sim.TCPE(ecn=False)
    # Mixed with other senders, all of the groups speak ECN (the queue marks all or none).
    with pytest.raises(ValueError, match="senders"):
        sim.Scenario(n_flows=2, bandwidth=1e6, rtt=0.1, queue=MARKING,
                     senders=[(1, sim.TCPE()), (1, sim.NewReno())])
    s = sim.Scenario(n_flows=2, bandwidth=1e6, rtt=0.1, queue=sim.RED(ecn=True), sender="tcpe")
    assert s.sender == sim.TCPE() and s.sender.sack


def test_scenario_files_name_tcpe():
    from tcpmodels.scenario_file import scenario_from_table
    s = scenario_from_table({"n_flows": 3, "bandwidth": "2400mbit", "rtt": "60ms", "sender": "TCPE",
                             "queue": {"type": "REDI", "min_th": 400, "max_th": 2000, "ecn": True}})
    assert isinstance(s.sender, sim.TCPE)
    with pytest.raises(ValueError, match="queue: TCPE"):
        scenario_from_table({"n_flows": 3, "bandwidth": "10mbit", "rtt": "60ms", "sender": "TCPE"})


# --- Sender-based delay control (Hsiao, Kung & Tan) -------------------------------------------------------------


def test_ce_on_a_small_window_raises_the_sdc_delay_and_keeps_the_window():
    e, j = lone(sim.SDC(max_delay=2.0))
    f = e.flows
    f.cwnd[0] = 4.0
    echo(e, j, acks=1, marked=1)
    rtt = float(f.prop[0])  # the unloaded round trip: 0.1 s and the serialization (0.5 ms)
    # variants.sdc_delay on CE: d' = 2 (RTT + d) - RTT = RTT from d = 0.
    assert e.sender.delay[0] == pytest.approx(rtt)
    assert e.sender.hold[0] == pytest.approx(rtt / e.dt)
    assert f.cwnd[0] == 4.5  # the ACK's slow-start growth (ssthresh 50), no halving
    # A round trip (RTT + the delay) without CE: d - (RTT + d) / (w + 1).
    w = float(f.cwnd[0])
    e.sender.on_echoes(1.21, 1.2)
    assert e.sender.delay[0] == pytest.approx(rtt - 2 * rtt / (w + 1))


def test_above_eight_packets_sdc_halves_like_newreno_with_ecn():
    e, j = lone(sim.SDC())
    echo(e, j, acks=1, marked=1)  # window 100
    assert e.flows.cwnd[0] == 50.0 and e.sender.delay[0] == 0.0


def test_the_sdc_delay_never_exceeds_its_maximum():
    e, j = lone(sim.SDC(max_delay=0.25))
    e.flows.cwnd[0] = 4.0
    for t in range(1, 6):
        echo(e, j, acks=0, marked=1, now=float(t))
    assert e.sender.delay[0] == 0.25


def test_held_acks_slow_a_lone_transfer_by_the_delay():
    # A flow's ACKs held d longer: each round trip of a lone transfer lasts RTT + d.
    s = sim.Scenario(n_flows=1, bandwidth=100e6, rtt=0.1, rtt_spread=0.0, queue=sim.RED(ecn=True, buffer=1000),
                     sender=sim.SDC(delayed_ack=False), workload=sim.FiniteTransfers(size=3), duration=5.0,
                     warmup=0.0, start_spread=0.0, time_step=0.01)
    e = engine._Engine([s], False)
    e.sender.hold[:] = 0.1 / e.dt  # d = 0.1 s, held there (no update due)
    e.sender.delay[:] = 0.1
    e.sender.t_update[:] = np.inf
    r = e.run()[0]
    # Handshake 0.1 s, then 2 round trips of 0.2 s (1 + 2 packets).
    assert np.allclose(r.transfers.delay[0], 0.1 + 2 * 0.2, atol=0.011)


@pytest.mark.parametrize("value", [-0.1, float("inf"), float("nan")])
def test_bad_sdc_delays_are_refused(value):
    with pytest.raises(ValueError, match="max_delay"):
        sim.SDC(max_delay=value)


def test_sdc_needs_a_marking_queue():
    with pytest.raises(ValueError, match="queue: SDC"):
        sim.Scenario(n_flows=2, bandwidth=1e6, rtt=0.1, queue=sim.DropTail(), sender=sim.SDC())


@pytest.mark.parametrize("value", [0.0, -1.0, float("inf"), float("nan")])
def test_bad_choke_i_intervals_are_refused(value):
    with pytest.raises(ValueError, match="match_interval"):
        sim.CHOKeI(match_interval=value)


def test_choke_i_drops_only_matched_arrivals_and_keeps_the_invariants():
    # Kamra's periodic test: at most one match drop per interval; RED-I marks.
    s = sim.Scenario(n_flows=3, bandwidth=10e6, rtt=0.1, queue=sim.CHOKeI(match_interval=0.5, **dict(
        min_th=20, max_th=150, max_p=1.0, buffer=300, ecn=True)), sender=sim.TCPE(max_window=2000),
        duration=30.0, warmup=5.0)
    r = sim.simulate(s, check=True)
    assert s.queue.weight == 1.0 and r.mark_rate > 0
    assert r.utilization > 0.8


def test_rdc_keeps_ce_at_the_receiver_for_small_flights_and_raises_its_ack_delay():
    e, j = lone(sim.RDC(max_delay=2.0))
    f = e.flows
    f.cwnd[0], f.inflight[0] = 4.0, 4.0
    e.sender.on_marks(j, 1.0, np.array([1.0]))
    assert f.t_ece[0] == np.inf  # no echo to the sender
    e.sender.on_echoes(1.04, 1.03)  # the receiver sees it half an RTT (0.05 s) after the mark
    assert e.sender.delay[0] == 0.0
    e.sender.on_echoes(1.06, 1.05)
    assert e.sender.delay[0] == pytest.approx(f.prop[0]) and f.cwnd[0] == 4.0  # the unloaded RTT
    # A large flight is echoed, and the sender halves.
    f.cwnd[0] = f.inflight[0] = 40.0
    e.sender.on_marks(j, 2.0, np.array([1.0]))
    e.sender.on_echoes(2.2, 2.2)
    assert f.cwnd[0] == 20.0
