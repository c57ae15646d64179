"""Drop-tail's phase effect: at a full buffer the flows whose ACK clock puts their arrivals late in the
packet service time lose the freed place, persistently (Floyd & Jacobson 1992; issue 12)."""

import dataclasses
import math

import numpy as np
import pytest
from test_sim_prr import _digest

from tcpmodels import sim
from tcpmodels.sim.drops import FLOOR, slot_weights


def test_a_packet_loses_the_place_if_another_flow_came_before_it_in_the_service_time():
    # The step's packets that arrive earlier in the service time, each in this
    # one with probability 1 / serve: B of them beat it with 1 - exp(-B / serve).
    phase = np.array([0.9, 0.1, 0.5, 0.3])
    count = np.array([1.0, 2.0, 1.0, 3.0])
    w = slot_weights(phase, np.zeros(4), count, 4.0)
    # Ahead: 0.1 none, 0.3 the two at 0.1, 0.5 five, 0.9 six.
    assert w == pytest.approx([-np.expm1(-6 / 4), FLOOR, -np.expm1(-5 / 4), -np.expm1(-2 / 4)])
    # Flows at the same phase beat each other half the time; scenarios of a batch never meet.
    tie = slot_weights(np.array([0.2, 0.2, 0.2]), np.zeros(3), np.ones(3), 2.0)
    assert tie == pytest.approx([-np.expm1(-0.5)] * 3)
    apart = slot_weights(np.array([0.2, 0.4, 0.3]), np.zeros(3), np.ones(3), np.array([1.0, 1.0, 2.0]),
                         owner=np.array([0, 0, 1]))
    assert apart == pytest.approx([FLOOR, -np.expm1(-1.0), FLOOR])


def test_a_train_s_packets_step_through_the_service_time_by_the_slip():
    # Flow 0: two packets from phase 0.2, the second 0.5 of a service time
    # later (an access link 1.5 service times per packet): 0.2 and 0.7.
    # Flow 1: one packet at 0.4, between them.
    w = slot_weights(np.array([0.2, 0.4]), np.array([0.5, 0.5]), np.array([2.0, 1.0]), 1.0)
    assert w == pytest.approx([(FLOOR * 0 + 0 + -np.expm1(-2.0)) / 2, -np.expm1(-1.0)])
    # Without a slip the train's packets share the first one's phase.
    w = slot_weights(np.array([0.2, 0.4]), np.zeros(2), np.array([2.0, 1.0]), 1.0)
    assert w == pytest.approx([FLOOR, -np.expm1(-2.0)])


def test_an_overloaded_drop_tail_drops_by_the_flows_phase_in_the_service_time():
    # 60 flows through a 100-packet drop-tail buffer, 5 % loss: each flow's
    # arrival phase is its propagation RTT modulo the 0.46 ms service time,
    # shifted alike for all by a per-run draw (the loop's serialization
    # times).  Measured, seeds 1-4 (uniform spread over the step's packets
    # instead, as before): the per-flow loss rates spread 2.6-3.8 times as
    # wide as binomial noise (0.95-1.34; ns-3's 150-flow replica: 3.0), and a
    # sinusoid in the phase explains 0.21-0.42 of their variance (0.01-0.05;
    # ns-3: 0.40).
    s = sim.Scenario(n_flows=60, bandwidth=10e6, rtt=0.01, rtt_spread=0.4, packet_size=576,
                     queue=sim.DropTail(buffer=100), sender=sim.NewReno(sack=True), access_rate=1e6,
                     start_spread=5.0, duration=30.0, warmup=10.0, seed=1)
    r = sim.simulate(s)
    loss = r.flow_drops / r.flow_packets
    binomial = np.sqrt(np.mean(r.loss_rate * (1 - r.loss_rate) / r.flow_packets))
    assert loss.std() > 2 * binomial
    angle = 2 * np.pi * np.mod(r.rtt * s.capacity, 1.0)
    fit = np.c_[np.ones(angle.size), np.cos(angle), np.sin(angle)]
    rest = loss - fit @ np.linalg.lstsq(fit, loss, rcond=None)[0]
    assert 1 - rest.var() / loss.var() > 0.15


def _runs(phase_effect):
    """Drop-tail runs down every path the phase touches: a scenario, a batch of seeds, trains without access links."""
    def droptail(buffer):
        return sim.DropTail(buffer=buffer, phase_effect=phase_effect)
    base = dict(n_flows=20, bandwidth=2e6, rtt=0.04, duration=6.0, warmup=1.0, start_spread=1.0, seed=5)
    one = sim.Scenario(**base, queue=droptail(25), sender=sim.NewReno(sack=True, recovery="rfc6675"))
    replica = sim.Scenario(n_flows=60, bandwidth=10e6, rtt=0.01, rtt_spread=0.4, packet_size=576, queue=droptail(100),
                           sender=sim.NewReno(sack=True), access_rate=1e6, start_spread=2.0, duration=8.0, warmup=2.0)
    burst = sim.Scenario(n_flows=30, bandwidth=5e6, rtt=0.05, queue=droptail(40), sender=sim.Tahoe(),
                         access_rate=math.inf, duration=8.0, warmup=2.0, seed=2)
    runs = [sim.simulate(one), *sim.simulate(replica, seeds=range(1, 4)), sim.simulate(burst)]
    return [_digest(r) for r in runs]


# The same runs' digests measured on main at a6da10c, before drop-tail had a phase effect
# (the first is test_sim_prr's drop-tail digest then; the phase draw has a stream of its own),
# but for the three PRR runs, which changed when PRR began to take a step's ACKs of a flow one at
# a time (Sender.reduce_proportionally; before: 056748377fef9638, 76fc4befa4f2a741, 469b18a0a98be739).
BEFORE = ["b11f3a864afba4cb", "1b3772abde12d814", "7b8ef64388ebf196", "1260a25da0b8979c", "0b2f5fd49f8db7eb"]


def test_without_the_phase_effect_drop_tail_is_the_engine_before_it_bit_for_bit():
    assert _runs(False) == BEFORE
    # On by default, it moves every one of them (with and without an access link).
    assert sim.DropTail().phase_effect
    assert all(a != b for a, b in zip(_runs(True), BEFORE, strict=True))


def test_the_phase_effect_is_a_checked_flag_that_splits_batches():
    with pytest.raises(ValueError, match="phase_effect"):
        sim.DropTail(phase_effect="false")
    assert sim.DropTail().batch_key() != sim.DropTail(phase_effect=False).batch_key()
    # Random drop removes queued packets at random: no phase to switch.
    with pytest.raises(TypeError):
        sim.RandomDrop(phase_effect=True)
    # One call with both settings runs them apart, each as it runs alone.
    s = sim.Scenario(n_flows=20, bandwidth=2e6, rtt=0.04, duration=4.0, warmup=1.0, queue=sim.DropTail(buffer=25))
    off = dataclasses.replace(s, queue=sim.DropTail(buffer=25, phase_effect=False))
    both = sim.simulate([s, off])
    assert [_digest(r) for r in both] == [_digest(sim.simulate(s)), _digest(sim.simulate(off))]


def test_a_drop_tail_batch_gives_each_scenario_its_lone_result():
    # The phases of a batch are ranked together (each scenario on its own
    # stretch of the sort key); an access link of 2.5 service times per packet
    # puts a train's packets at two phases.
    s = sim.Scenario(n_flows=25, bandwidth=10e6, rtt=0.01, rtt_spread=0.4, packet_size=576,
                     queue=sim.DropTail(buffer=60), sender=sim.NewReno(sack=True), access_rate=4e6,
                     start_spread=5.0, duration=10.0, warmup=2.0, seed=1)
    batch = sim.simulate(s, seeds=[1, 2, 3])
    for seed, r in zip([1, 2, 3], batch, strict=True):
        alone = sim.simulate(dataclasses.replace(s, seed=seed))
        assert alone.loss_rate == r.loss_rate and np.array_equal(alone.flow_drops, r.flow_drops)
