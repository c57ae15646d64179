"""Fast tests of tcpmodels.sim: input checks, invariants, determinism, batches, results.

The cross-checks against Morris' formulas and the ns-3 reference are in
test_sim_validation.py (marked slow).
"""

import dataclasses
import math

import numpy as np
import pytest

from tcpmodels import sim

BASE = dict(n_flows=8, bandwidth=2e6, rtt=0.04, duration=12.0, warmup=4.0, start_spread=2.0)

QUEUES = [
    sim.DropTail(buffer=30),
    sim.RandomDrop(buffer=30),
    sim.RED(min_th=3, max_th=30, max_p=0.1),
    sim.RED(min_th=3, max_th=30, max_p=0.1, gentle=True),
    sim.REDI(min_th=3, max_th=30, max_p=0.1),
    sim.CHOKe(min_th=3, max_th=30, max_p=0.1),
    sim.FPQ(ppf=3, bits=200, t_clear=1.0),
]
SENDERS = [sim.Tahoe(), sim.Reno(), sim.NewReno(), sim.NewReno(sack=True), sim.Tahoe(delayed_ack=False),
           sim.NewReno(limited_transmit=True)]


def scenario(**kw):
    return sim.Scenario(**{**BASE, **kw})


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kw, field",
    [
        (dict(n_flows=0), "n_flows"),
        (dict(n_flows=2.5), "n_flows"),
        (dict(bandwidth=-1e6), "bandwidth"),
        (dict(bandwidth=float("nan")), "bandwidth"),
        (dict(rtt=0.0), "rtt"),
        (dict(packet_size=-576), "packet_size"),
        (dict(duration=0.0), "duration"),
        (dict(warmup=12.0), "warmup"),
        (dict(rtt_spread=2.0), "rtt_spread"),
        (dict(access_rate=0.0), "access_rate"),
        (dict(link_loss=1.0), "link_loss"),
        (dict(time_step=0.05), "time_step"),  # longer than the smallest RTT (0.036 s)
        (dict(time_step=-0.01), "time_step"),
        (dict(queue="fifo"), "queue"),
        (dict(sender="cubic"), "sender"),
        (dict(queue=sim.Tahoe()), "queue"),
        (dict(seed=-1), "seed"),
    ],
)
def test_scenario_rejects_bad_values_naming_the_field(kw, field):
    with pytest.raises(ValueError, match=field):
        scenario(**kw)


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda: sim.DropTail(buffer=0), "buffer"),
        (lambda: sim.DropTail(buffer=0.5), "buffer"),
        (lambda: sim.RED(min_th=50, max_th=20), "max_th"),
        (lambda: sim.RED(min_th=-1), "min_th"),
        (lambda: sim.RED(max_p=0.0), "max_p"),
        (lambda: sim.RED(max_p=1.5), "max_p"),
        (lambda: sim.RED(weight=0.0), "weight"),
        (lambda: sim.RED(buffer=0), "buffer"),
        (lambda: sim.REDI(min_th=10, max_th=10), "max_th"),
        (lambda: sim.Tahoe(max_window=0), "max_window"),
        (lambda: sim.Tahoe(min_rto=0), "min_rto"),
        (lambda: sim.Tahoe(min_rto=2.0, max_rto=1.0), "max_rto"),
        (lambda: sim.NewReno(dupack_threshold=0), "dupack_threshold"),
        (lambda: sim.Reno(granularity=-0.5), "granularity"),
        (lambda: sim.FPQ(ppf=0), "ppf"),
        (lambda: sim.FPQ(bits=1), "bits"),
        (lambda: sim.FPQ(t_clear=-1), "t_clear"),
        (lambda: sim.FPQ(max_loss=1.0), "max_loss"),
    ],
)
def test_specs_reject_bad_values_naming_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


def test_names_give_default_specs_and_thesis_defaults():
    s = scenario(queue="DropTail", sender="newreno")
    assert s.queue == sim.DropTail() and s.sender == sim.NewReno()
    assert scenario(queue="fpq").queue == sim.FPQ()
    assert scenario(queue="random-drop").queue == sim.RandomDrop()
    assert scenario(queue="choke").queue == sim.CHOKe()
    d = sim.Scenario(n_flows=10, bandwidth=10e6, rtt=0.1)
    # Morris (1999) Fig. 3.2: RED 5/217/2 %, Tahoe, 64 KB window = 113 packets of 576 bytes, 500 s.
    assert (d.queue.min_th, d.queue.max_th, d.queue.max_p) == (5, 217, 0.02)
    assert isinstance(d.sender, sim.Tahoe) and d.max_window == 113 and d.duration == 500
    assert d.flow_access_rate == pytest.approx(10e6)  # 10 x the fair share (Fig. 3.2)
    assert d.step <= d.min_rtt


def test_specs_are_frozen_and_convert():
    s = scenario()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_flows = 3
    assert s.to_dict()["n_flows"] == 8
    assert sim.RED().to_dict()["max_p"] == 0.02


def test_simulate_rejects_bad_calls():
    with pytest.raises(ValueError, match="scenario"):
        sim.simulate([])
    with pytest.raises(ValueError, match="seeds"):
        sim.simulate([scenario()], seeds=[1, 2])


# ---------------------------------------------------------------- invariants
@pytest.mark.parametrize("queue", QUEUES,
                         ids=lambda q: type(q).__name__ + ("-gentle" if getattr(q, "gentle", 0) else ""))
@pytest.mark.parametrize("sender", SENDERS, ids=lambda s: type(s).__name__ + str(getattr(s, "sack", "")))
def test_invariants_hold_every_step(queue, sender):
    # check=True asserts, every step: sent = delivered + dropped + queued,
    # 0 <= queue <= buffer, 1 <= window <= max window, no NaN.
    r = sim.simulate(scenario(queue=queue, sender=sender, link_loss=0.005), check=True)
    assert 0 < r.loss_rate < 1 and 0 < r.utilization <= 1 + 1e-12
    assert 0 <= r.queue <= scenario(queue=queue).limit
    assert 1 <= r.window <= sim.Scenario(**BASE).max_window
    assert 0 <= r.timeout_fraction <= 1 and r.timeouts_per_packet >= 0
    assert all(math.isfinite(v) for v in (r.loss_rate, r.queue, r.window, r.jain_index))


def test_invariants_hold_in_a_batch_and_under_overload():
    # 40 flows on a 10-packet buffer: forced drops of whole steps, many time-outs.
    many = [scenario(n_flows=40, queue=sim.DropTail(buffer=10), seed=s) for s in range(3)]
    for r in sim.simulate(many, check=True):
        assert r.timeouts_per_packet > 0 and r.timeout_fraction > 0
    for r in sim.simulate([dataclasses.replace(m, queue=sim.RandomDrop(buffer=10)) for m in many], check=True):
        assert r.timeouts_per_packet > 0


def test_small_max_window_is_respected():
    r = sim.simulate(scenario(sender=sim.NewReno(max_window=4), queue=sim.DropTail(buffer=500)), check=True)
    assert r.window <= 4
    assert r.loss_rate == 0  # 8 flows x 4 packets never fill 500 buffers


# ---------------------------------------------------------------- determinism and batches
def test_same_seed_same_result_other_seed_other_result():
    a, b, c = sim.simulate(scenario()), sim.simulate(scenario()), sim.simulate(scenario(seed=7))
    assert a.loss_rate == b.loss_rate and np.array_equal(a.goodput, b.goodput)
    assert (a.loss_rate, a.queue) != (c.loss_rate, c.queue)


def test_batch_over_seeds_matches_a_list_and_keeps_order():
    s = scenario()
    by_seeds = sim.simulate(s, seeds=[3, 4])
    by_list = sim.simulate([dataclasses.replace(s, seed=3), dataclasses.replace(s, seed=4)])
    assert [r.loss_rate for r in by_seeds] == [r.loss_rate for r in by_list]
    assert by_seeds[0].loss_rate != by_seeds[1].loss_rate


def test_mixed_shapes_run_in_groups_in_order():
    runs = [scenario(n_flows=4), scenario(n_flows=6), scenario(n_flows=4, seed=9)]
    out = sim.simulate(runs)
    assert [r.goodput.size for r in out] == [4, 6, 4]


# ---------------------------------------------------------------- results
def test_result_fields_and_trace():
    r = sim.simulate(scenario(trace=True, trace_interval=0.5, trace_flows=3))
    d = r.to_dict()
    for name in ("loss_rate", "queue", "utilization", "timeouts_per_packet", "timeout_fraction",
                 "window", "goodput", "jain_index"):
        assert name in d
    assert r.goodput.shape == (8,) and r.rtt.shape == (8,)
    assert 0.036 - 1e-12 <= r.rtt.min() and r.rtt.max() <= 0.044 + 1e-12  # rtt * (1 +- spread/2)
    t = r.trace
    assert t["time"].shape == t["queue"].shape == t["loss_rate"].shape
    assert t["window"].shape == (t["time"].size, 3)
    assert 12.0 - 0.55 < t["time"][-1] <= 12.0  # samples every whole number of steps near 0.5 s
    assert np.all((t["loss_rate"] >= 0) & (t["loss_rate"] <= 1))


def test_goodput_adds_up_to_the_link():
    # A saturated link delivers capacity x utilization; goodput counts ACKed
    # packets, so it matches up to the packets in flight at the interval ends.
    s = scenario(queue=sim.DropTail(buffer=30))
    r = sim.simulate(s)
    assert r.goodput.sum() == pytest.approx(s.capacity * r.utilization, rel=0.1)
    assert 0.5 < r.jain_index <= 1


def test_no_access_cap_and_single_flow():
    r = sim.simulate(scenario(n_flows=1, access_rate=math.inf, queue=sim.DropTail(buffer=10)), check=True)
    # Tahoe restarts from one packet after every loss, so a lone flow cannot fill the pipe.
    assert 0.3 < r.utilization < 1 and r.jain_index == pytest.approx(1.0)


def test_ecn_marks_replace_early_drops():
    # RFC 3168: with ECN at both ends RED's early decisions mark; the senders
    # halve without retransmitting, so nothing times out while the average
    # stays below max_th (forced drops above it, and overflow, still drop).
    base = dict(n_flows=20, bandwidth=2e6, rtt=0.04, duration=30.0, warmup=10.0, start_spread=2.0)
    red = sim.RED(min_th=5, max_th=200, max_p=0.1, ecn=True)
    marked = sim.simulate(sim.Scenario(**base, queue=red, sender=sim.NewReno(ecn=True)), check=True)
    assert marked.mark_rate > 0 and marked.loss_rate == pytest.approx(marked.mark_rate)
    assert marked.timeouts_per_packet == 0
    # Either end without ECN: plain drops.
    for queue, sender in ((red, sim.NewReno()), (dataclasses.replace(red, ecn=False), sim.NewReno(ecn=True))):
        dropped = sim.simulate(sim.Scenario(**base, queue=queue, sender=sender), check=True)
        assert dropped.mark_rate == 0 and dropped.loss_rate > 0


def test_choke_evens_out_flows_with_different_rtts():
    # CHOKe (Pan et al. 2000) drops a flow's packets in proportion to its share
    # of the queue, so short-RTT flows that hog the queue under RED lose more:
    # the goodputs of flows whose RTTs span 10-90 ms come out fairer.
    base = dict(n_flows=30, bandwidth=10e6, rtt=0.05, rtt_spread=1.6, sender=sim.NewReno(),
                duration=40.0, warmup=15.0)
    jain = {}
    for queue in (sim.RED(min_th=5, max_th=100, max_p=0.1), sim.CHOKe(min_th=5, max_th=100, max_p=0.1)):
        runs = sim.simulate(sim.Scenario(**base, queue=queue), seeds=range(3))
        jain[type(queue).__name__] = np.mean([r.jain_index for r in runs])
    assert jain["CHOKe"] > jain["RED"]


def test_limited_transmit_saves_small_windows_from_time_outs():
    # RFC 3042: two extra packets on the first duplicate ACKs let windows of
    # 2-3 packets gather the three duplicate ACKs fast retransmit needs.
    # Windows here average ~3.4 packets (measured: time-outs per packet fall
    # from 0.018 to 0.011); 0.8 leaves room for seed-to-seed spread.
    base = dict(n_flows=30, bandwidth=2e6, rtt=0.04, queue=sim.RED(min_th=5, max_th=100, max_p=0.05),
                duration=40.0, warmup=10.0, start_spread=2.0)
    plain = sim.simulate(sim.Scenario(**base, sender=sim.NewReno()), seeds=range(2))
    lt = sim.simulate(sim.Scenario(**base, sender=sim.NewReno(limited_transmit=True)), seeds=range(2))
    assert np.mean([r.timeouts_per_packet for r in lt]) < 0.8 * np.mean([r.timeouts_per_packet for r in plain])
