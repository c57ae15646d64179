"""Drop-tail's phase effect: at a full buffer the flows whose ACK clock puts their arrivals late in the
packet service time lose the freed place, persistently (Floyd & Jacobson 1992; issue 12)."""

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim.drops import FLOOR, slot_weights


def test_a_packet_loses_the_slot_if_another_came_before_it_in_the_service_time():
    # Others Poisson at `load` per service time: P(one before phase phi) = 1 - exp(-load phi).
    phase = np.array([0.0, 0.25, 0.5, 0.99])
    one = np.ones(4)
    w = slot_weights(phase, 0 * one, one, 1.04)
    assert w == pytest.approx([FLOOR, 1 - np.exp(-0.26), 1 - np.exp(-0.52), 1 - np.exp(-1.04 * 0.99)])
    assert np.all(np.diff(w) > 0)
    # A scenario's load per flow (a batch).
    assert slot_weights(phase[1:3], np.zeros(2), np.ones(2), np.array([2.0, 1.0])) == pytest.approx(
        [1 - np.exp(-0.5), 1 - np.exp(-0.5)])


def test_a_train_s_packets_step_through_the_service_time_by_the_slip():
    # Three packets from phase 0.2, each 0.5 of a service time after the one
    # before (an access link 1.5 service times per packet): phases 0.2, 0.7, 0.2.
    w = slot_weights(np.array([0.2]), np.array([0.5]), np.array([3.0]), 1.0)
    assert w == pytest.approx([(2 * (1 - np.exp(-0.2)) + 1 - np.exp(-0.7)) / 3])
    # Without a slip every packet of the train sits at the first one's phase.
    assert slot_weights(np.array([0.2]), np.array([0.0]), np.array([3.0]), 1.0) == pytest.approx(
        [1 - np.exp(-0.2)])


def test_an_overloaded_drop_tail_drops_by_the_flows_phase_in_the_service_time():
    # 60 flows through a 100-packet drop-tail buffer, 4-5 % loss: each flow's
    # arrival phase is its propagation RTT modulo the 0.46 ms service time,
    # shifted alike for all by a per-run draw (the loop's serialization
    # times).  A sinusoid in the phase explains 47-50 % of the variance of
    # the per-flow loss rates (seeds 1-3; ns-3's 150-flow replica: 40 %);
    # spreading the overflow uniformly over the step's packets, 1-5 %.
    s = sim.Scenario(n_flows=60, bandwidth=10e6, rtt=0.01, rtt_spread=0.4, packet_size=576,
                     queue=sim.DropTail(buffer=100), sender=sim.NewReno(sack=True), access_rate=1e6,
                     start_spread=5.0, duration=30.0, warmup=10.0, seed=1)
    r = sim.simulate(s)
    angle = 2 * np.pi * np.mod(r.rtt * s.capacity, 1.0)
    loss = r.flow_drops / r.flow_packets
    fit = np.c_[np.ones(angle.size), np.cos(angle), np.sin(angle)]
    rest = loss - fit @ np.linalg.lstsq(fit, loss, rcond=None)[0]
    assert 1 - rest.var() / loss.var() > 0.25
