"""Fast tests of tcpmodels.sim: input checks, invariants, determinism, batches, results.

The cross-checks against Morris' formulas and the ns-3 reference are in
test_sim_validation.py, test_sim_reference_10ms.py and test_sim_reference_dynamics.py
(marked slow).
"""

import dataclasses
import math

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim import engine, flows, queues
from tcpmodels.sim.draws import Draws
from tcpmodels.sim.flows import state_dtype
from tcpmodels.sim.queues import make_queue

BASE = dict(n_flows=8, bandwidth=2e6, rtt=0.04, duration=12.0, warmup=4.0, start_spread=2.0)

QUEUES = [
    sim.DropTail(buffer=30),
    sim.RandomDrop(buffer=30),
    sim.RED(min_th=3, max_th=30, max_p=0.1),
    sim.RED(min_th=3, max_th=30, max_p=0.1, gentle=True),
    sim.REDI(min_th=3, max_th=30, max_p=0.1),
    sim.CHOKe(min_th=3, max_th=30, max_p=0.1),
    sim.FPQ(ppf=3, bits=200, t_clear=1.0),
    sim.CoDel(buffer=30),
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


def test_state_dtype_float32_only_for_large_batches_it_holds_exactly():
    # The 64 x 1000-flow standard batch (bench): float32; one such scenario, a
    # window whose increments float32 would round by more than 0.8 %, or a run in
    # which a flow could send 2^24 packets: float64.
    std = dict(max_window=113, duration=500.0, min_rtt=0.09)
    assert state_dtype(64_000, **std) is np.float32
    assert state_dtype(1000, **std) is np.float64
    assert state_dtype(64_000, **{**std, "max_window": 1000}) is np.float64
    assert state_dtype(64_000, **{**std, "min_rtt": 0.001, "duration": 1000.0}) is np.float64


@pytest.mark.parametrize("queue", [sim.RED(min_th=3, max_th=30, max_p=0.1), sim.RandomDrop(buffer=30)],
                         ids=lambda q: type(q).__name__)
@pytest.mark.parametrize("sender", [sim.Tahoe(), sim.NewReno(sack=True)], ids=lambda s: type(s).__name__)
def test_float32_state_keeps_invariants_and_results(monkeypatch, queue, sender):
    # The same batch with float32 state (forced here; large batches get it) and
    # with float64: the invariants hold every step, and as both draw the same
    # random numbers and packet counts are exact in both, only a window's last
    # bits differ, which moved no loss or queue here by more than 1e-9 (a
    # rounding that flipped a window's floor would diverge the runs; these
    # short runs show none).  The average window is summed over flows in the
    # state's precision, so float32 moves its last digits (1e-8 relative,
    # measured on 16 x 1000 flows over 120 s): 1e-6 leaves a hundredfold margin.
    batch = [scenario(queue=queue, sender=sender, seed=s) for s in range(4)]
    wide = sim.simulate(batch)
    monkeypatch.setattr(flows, "FLOAT32_FLOWS", 0)
    narrow = sim.simulate(batch, check=True)
    for a, b in zip(wide, narrow, strict=True):
        assert b.loss_rate == pytest.approx(a.loss_rate, rel=1e-9)
        assert b.queue == pytest.approx(a.queue, rel=1e-9)
        assert b.window == pytest.approx(a.window, rel=1e-6)
        assert b.goodput.dtype == np.float64


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
    # Windows here average ~3.6 packets (measured on 3819adb: time-outs per packet
    # fall from 0.014 to 0.008; an earlier engine 0.018 to 0.011); 0.8 leaves room
    # for seed-to-seed spread.
    base = dict(n_flows=30, bandwidth=2e6, rtt=0.04, queue=sim.RED(min_th=5, max_th=100, max_p=0.05),
                duration=40.0, warmup=10.0, start_spread=2.0)
    plain = sim.simulate(sim.Scenario(**base, sender=sim.NewReno()), seeds=range(2))
    lt = sim.simulate(sim.Scenario(**base, sender=sim.NewReno(limited_transmit=True)), seeds=range(2))
    assert np.mean([r.timeouts_per_packet for r in lt]) < 0.8 * np.mean([r.timeouts_per_packet for r in plain])


# ---------------------------------------------------------------- RED inside a time step
# The engine hands RED a whole step of arrivals; the fine-step limit is RED
# packet by packet (Floyd & Jacobson 1993) with the arrivals spread evenly
# over the step and the link serving continuously.  These tests drive the
# queue state directly against that limit, written out here arrival by arrival.
STEP = 10e6 / (576 * 8) * 0.045  # packets served in the standard scenario's 45 ms step


def _red_state(*specs, seed=0):
    return make_queue([sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=q) for q in specs],
                      Draws([seed + i for i in range(len(specs))], 1))


def _early_drops(state, k, *args):
    """RED's early_drops at step ``k`` (its draws are those of step k)."""
    state.draws.at(k)
    return state.early_drops(*args)


def _packet_red(q, state, arrivals, serve, spec, rng):
    """One step of RED arrival by arrival; ``state`` is [average, count].  Returns (forced, early)."""
    avg, count = state
    x, forced, early = q, 0, 0
    for j in range(arrivals):
        x = max(x - serve / arrivals * (0.5 if j == 0 else 1.0), 0.0)  # the first arrives half a gap in
        avg += spec.weight * (x - avg)
        if avg >= spec.max_th:
            forced, count = forced + 1, 0
            continue
        p_b = max(spec.max_p * (avg - spec.min_th) / (spec.max_th - spec.min_th), 0.0)
        if x <= queues.JUDGED_ABOVE:  # (ns-2's and ns-3's qlen > 1) not judged; the count restarts
            p_b = 0.0
        # F&J: p_a = p_b / (1 - count p_b), count the arrivals since the last drop.
        if p_b > 0 and (count * p_b >= 1 or rng.random() * (1 - count * p_b) < p_b):
            early, count = early + 1, 0
        else:
            count, x = (count + 1 if p_b > 0 else 0), x + 1.0
    state[:] = avg, count
    return forced, early


@pytest.mark.parametrize("size", [1, 8], ids=["single", "batch"])
@pytest.mark.parametrize("weight", [0.002, 0.02])
def test_red_step_is_packet_by_packet_red(size, weight, monkeypatch):
    # Without early drops and with no more arrivals than service (so no
    # oscillation to average), the step is followed exactly: the same forced
    # drops as packet by packet, crossing the all-drop point either way, the
    # queue running dry or not.  The average agrees to 0.01 packet: the fluid
    # queue empties between two arrivals, packet by packet only at arrivals.
    # Newton refines every crossing here: the Pade root alone (where
    # |n log(1 - w)| < PADE) put one of these 360 crossings one arrival late
    # (its average 0.03 off), which is the engine's accuracy, not this test's subject.
    monkeypatch.setattr(queues, "PADE", 0.0)
    spec = sim.RED(min_th=5, max_th=217, max_p=1e-9, weight=weight)
    g = np.random.default_rng(1)
    for trial in range(40):
        state = _red_state(*[spec] * size)
        arrivals = g.integers(1, 300, size).astype(float)
        serve, q, avg = arrivals * g.uniform(1.0, 3.0, size), g.uniform(0, 400, size), g.uniform(150, 300, size)
        state.avg = avg.copy()
        _early_drops(state, trial, q, arrivals, np.zeros(size), serve)
        for i in range(size):
            ref = [avg[i], 0]
            assert state.forced[i] == _packet_red(q[i], ref, int(arrivals[i]), serve[i], spec, g)[0]
            assert state.avg[i] == pytest.approx(ref[0], abs=0.01)


def test_red_batch_follows_each_member_alone():
    # A batch (array code) and its members run alone (float code) are one
    # mechanism: without early drops nothing is random, so the forced drops
    # agree step for step over 3000 overloaded steps, and the averages too.
    specs = [sim.RED(min_th=5, max_th=217, max_p=1e-9), sim.RED(min_th=10, max_th=100, max_p=1e-9, weight=0.01),
             sim.RED(min_th=5, max_th=60, max_p=1e-9, weight=0.2)]
    arrivals = np.random.default_rng(3).poisson(110, (3000, 3)).astype(float)
    batch, alone = _red_state(*specs), [_red_state(s) for s in specs]
    qb, qa = np.zeros(3), np.zeros(3)
    for k, a in enumerate(arrivals):
        drops = _early_drops(batch, k, qb, a, np.maximum(100 - qb - a, 0), np.full(3, 100.0))
        qb = np.maximum(qb + a - drops - 100, 0)
        for i, state in enumerate(alone):
            d = _early_drops(state, k, qa[i:i + 1], a[i:i + 1], np.maximum(100 - qa[i:i + 1] - a[i:i + 1], 0),
                             np.array([100.0]))
            assert d[0] == drops[i] == state.forced[0] == batch.forced[i]
            qa[i] = max(qa[i] + a[i] - d[0] - 100, 0)
    assert batch.avg == pytest.approx(np.concatenate([s.avg for s in alone]), rel=1e-9)


@pytest.mark.parametrize("max_p", [[0.02], [0.02, 0.05, 0.3]], ids=["single", "batch"])
def test_red_spacing_gives_floyd_jacobson_rate(max_p):
    # A steady stream at a fixed average (weight 1e-9: it does not move) at
    # p_b = max_p / 2.  F&J's gap between early drops is uniform on
    # [1, 1/p_b]: floor(1/p_b) = n values of probability p_b, and n + 1 with
    # the rest, mean G (= (1/p_b + 1) / 2 for whole 1/p_b).  Over N arrivals
    # the renewal count has mean N / G and variance N var(gap) / G^3; the
    # tolerance is 5 of its standard deviations.
    specs = [sim.RED(min_th=0, max_th=200, max_p=m, weight=1e-9) for m in max_p]
    state = _red_state(*specs, seed=5)
    size, arrivals, steps = len(specs), 200.0, 5000
    state.avg = np.full(size, 100.0)
    drops = sum(_early_drops(state, k, np.full(size, 100.0), np.full(size, arrivals), np.zeros(size),
                             np.full(size, arrivals)) for k in range(steps))
    assert not state.forced.any()
    p = np.array(max_p) / 2
    n = np.floor(1 / p)
    gap = np.arange(1, n.max() + 2)[:, None]
    prob = np.where(gap <= n, p, np.where(gap == n + 1, 1 - n * p, 0.0))
    mean, var = (gap * prob).sum(axis=0), (gap**2 * prob).sum(axis=0) - (gap * prob).sum(axis=0) ** 2
    total = arrivals * steps
    assert np.all(np.abs(drops - total / mean) < 5 * np.sqrt(total * var / mean**3))


@pytest.mark.parametrize("load", [1.1, 1.5])
def test_red_queue_matches_packet_level_red_under_overload(load):
    # The standard set-up's RED (5/217/2 %) at its 45 ms step, fed Poisson
    # arrivals above the link's rate, against RED packet by packet on the same
    # arrivals.  At 1.1 the average hovers below max_th (early and forced
    # drops); at 1.5 the queue chatters at the all-drop point.  Over four
    # arrival seeds the paired means of 900 steps differ by at most 0.9 % in
    # queue and 0.3 % in drops (the spacing's own randomness); the bounds are
    # about twice and three times that.  Slicing the step (the earlier
    # treatment) sat 5 % (10 packets) low.
    spec = sim.RED(min_th=5, max_th=217, max_p=0.02)
    arrivals = np.random.default_rng(0).poisson(load * STEP, 1300)
    rng = np.random.default_rng(100)
    state, ref = _red_state(spec), [0.0, 0]
    q = np.zeros(2)
    queue, drops = np.zeros(2), np.zeros(2)
    for k, a in enumerate(arrivals):
        idle = np.maximum(STEP - q - a, 0.0)
        d = _early_drops(state, k, q[:1], np.array([float(a)]), idle[:1], np.array([STEP]))[0]
        d_ref = sum(_packet_red(q[1], ref, int(a), STEP, spec, rng))
        ref[0] *= (1 - spec.weight) ** idle[1]  # F&J's idle-time decay, as the engine applies it
        q = np.maximum(q + a - np.array([d, d_ref]) - STEP, 0.0)
        if k >= 400:
            queue += q
            drops += d, d_ref
    assert queue[0] == pytest.approx(queue[1], rel=0.02)
    assert drops[0] == pytest.approx(drops[1], rel=0.01)


@pytest.mark.parametrize("queue,arrivals,serve", [(30.0, 100.0, 200.0), (0.0, 100.0, 90.0), (0.0, 50.0, 100.0)],
                         ids=["draining", "held", "idle"])
def test_red_spares_arrivals_that_find_a_short_queue(queue, arrivals, serve):
    # RED (ns-2's and ns-3's qlen > 1) judges early only arrivals that find
    # more than one packet queued, whatever the average: here held at 100 (p_b
    # 0.1, F&J's 18 decisions per 100 arrivals).  Against RED packet by packet,
    # 3000 steps from the same queue: a queue draining from 30 packets at 1.2
    # per arrival is judged for its first 25 arrivals (4.09 decisions a step,
    # packet by packet 4.13, whose mean's spread is 0.03); one the arrivals
    # would lift by 0.1 per arrival holds at a packet while RED drops the
    # excess (8.90 and 9.00: the step rounds whole packets); an idle link, none.
    spec = sim.RED(min_th=0, max_th=200, max_p=0.2, weight=1e-9)
    state, ref, rng = _red_state(spec, seed=5), [100.0, 0], np.random.default_rng(7)
    state.avg = np.array([100.0])
    step = packet = 0.0
    for k in range(3000):
        step += _early_drops(state, k, np.array([queue]), np.array([arrivals]), np.zeros(1), np.array([serve]))[0]
        packet += _packet_red(queue, ref, int(arrivals), serve, spec, rng)[1]
    assert step == pytest.approx(packet, rel=0.03, abs=0.0)
    assert step < 0.5 * 3000 * 18.2  # (every arrival judged: 18.2 decisions a step)


def _identical(a, b):
    """Every field of two SimResults equal, bit for bit (NaN equal to NaN)."""
    a, b = dataclasses.asdict(a), dataclasses.asdict(b)

    def same(x, y):
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, (list, tuple)):
            return len(x) == len(y) and all(same(u, v) for u, v in zip(x, y, strict=True))
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return np.array_equal(x, y, equal_nan=np.asarray(x).dtype.kind == "f")
        return x == y or (x != x and y != y)

    return same(a, b)


@pytest.mark.parametrize("queue", QUEUES, ids=lambda q: type(q).__name__ + ("-gentle" * getattr(q, "gentle", False)))
def test_a_seed_fixes_the_result_whatever_shares_the_batch(queue):
    # Each scenario draws from its own streams (tcpmodels.sim.draws): twins in
    # one batch and the scenario alone agree bit for bit, on every queue's
    # random path (drop keys, link loss, RED's spacing, CHOKe's matches,
    # random drop's victims, FPQ's counters) and every sender's.
    s = scenario(queue=queue, sender=sim.NewReno(sack=True), link_loss=0.01, seed=7)
    alone = sim.simulate(s)
    twins = sim.simulate(dataclasses.replace(s, seed=3), seeds=[7, 7])
    assert all(_identical(r, alone) for r in twins)
    assert alone.loss_rate != sim.simulate(s, seeds=[8])[0].loss_rate  # the seed does matter


# (time_step=0.01 is a whole packet spacing of some of these few slow flows: the step's warning that
# time-outs will read low is expected, as is the one for a RED queue below full load finer than the step;
# only bit-for-bit identity is checked here.)
@pytest.mark.filterwarnings("ignore:time_step.*packet spacing:tcpmodels.TCPModelsWarning")
@pytest.mark.filterwarnings("ignore:time_step. the queue averaged:tcpmodels.TCPModelsWarning")
@pytest.mark.parametrize(("precision", "red_lanes"), [("float64", True), ("float32", True), ("float64", False)])
def test_a_scenario_is_the_same_alone_and_in_any_mixed_batch(precision, red_lanes, monkeypatch):
    # One batch of differing seeds, RTTs (so RTT sample intervals), rates,
    # RED curves and weights (one heavy enough for Newton's refinement of
    # RED's crossings, the others not), link loss or none, senders, with
    # scenarios of another shape interleaved: each result is its scenario's
    # alone, bit for bit.  In float32 (a batch of 10 000 flows or more, here
    # forced) too: every run in float32.  The workloads, senders and queues
    # of issue 13 too.  RED's batches here (2-3 scenarios each) take their
    # steps scenario by scenario on floats (queues.FLOAT_LANES), and, forced,
    # on the batch's arrays: both are each scenario's numbers alone.
    if precision == "float32":
        monkeypatch.setattr(flows, "FLOAT32_FLOWS", 0)
    if not red_lanes:
        monkeypatch.setattr(queues, "FLOAT_LANES", 0)
    base = dict(BASE, time_step=0.01)
    red = [sim.RED(min_th=3, max_th=30, max_p=0.1), sim.RED(min_th=5, max_th=40, max_p=0.3, weight=0.3),
           sim.RED(min_th=2, max_th=20, max_p=0.05, weight=0.02)]
    runs = []
    for k in range(6):
        runs.append(sim.Scenario(**{**base, "rtt": 0.03 + 0.01 * k, "bandwidth": 2e6 * (1 + k % 3)},
                                 queue=red[k % 3], sender=[sim.Tahoe(), sim.NewReno(sack=True)][k % 2],
                                 link_loss=0.005 * (k % 2), seed=[1, 2, 1, 5, 1, 9][k]))
        runs.append(scenario(n_flows=5, queue=sim.DropTail(buffer=10 + k), seed=k % 2))
    # Finite transfers (exponential sizes, SYNs lost on the link) beside
    # long-lived flows; HighSpeed TCP over RED; TCP/E over CHOKe/RED-I's periodic tests.
    transfers = ((4, sim.FiniteTransfers(size=5, distribution="exponential")), (4, sim.LongLived()))
    choke_i = sim.CHOKeI(match_interval=0.2, min_th=5, max_th=40, max_p=1.0, buffer=60, ecn=True)
    for k in range(2):
        runs.append(sim.Scenario(**{**base, "rtt": 0.03 + 0.02 * k}, workload=transfers, link_loss=0.02,
                                 queue=sim.DropTail(buffer=20), seed=3 + k))
        runs.append(sim.Scenario(**{**base, "bandwidth": 10e6 * (1 + k)}, sender=sim.HighSpeed(), queue=red[k],
                                 seed=4 - k))
        runs.append(sim.Scenario(**{**base, "bandwidth": 5e6}, sender=sim.TCPE(max_window=200), queue=choke_i,
                                 seed=k))
    batch = sim.simulate(runs)
    assert all(_identical(r, sim.simulate(s)) for r, s in zip(batch, runs, strict=True))
    assert all(_identical(r, s) for r, s in zip(batch, sim.simulate(runs[::-1])[::-1], strict=True))


# Each (time_step, duration, warmup), run at seeds 1-2: steps 1200, 1429 and 1077, close enough to share a batch.
RUNS = ((0.01, 12.0, 4.0), (0.007, 10.0, 3.0), (0.013, 14.0, 5.0))


def _runs_apart(**kw):
    return [scenario(time_step=dt, duration=duration, warmup=warmup, seed=seed, **kw)
            for dt, duration, warmup in RUNS for seed in (1, 2)]


@pytest.mark.filterwarnings("ignore:time_step:tcpmodels.TCPModelsWarning")
@pytest.mark.parametrize("queue", QUEUES, ids=lambda q: type(q).__name__ + ("-gentle" * getattr(q, "gentle", False)))
def test_scenarios_of_different_steps_lengths_and_warmups_share_a_batch_and_keep_their_lone_results(queue):
    # Each scenario runs at its own step (flows.Shared: times per flow) and is measured over its own
    # interval; one that ends first stops sending: each result, its congestion events included, is its
    # scenario's alone, bit for bit (per-flow RTTs, link loss and ECN marks included).
    ecn = isinstance(queue, sim.RED) and not isinstance(queue, sim.FPQ)
    runs = _runs_apart(rtt=[0.03, 0.05, 0.04, 0.06, 0.035, 0.045, 0.055, 0.04], queue=queue, link_loss=0.005,
                       sender=sim.NewReno(sack=True, ecn=ecn))
    assert engine.batches(runs, range(len(runs))) == [[2, 3, 0, 1, 4, 5]]  # (the longest first)
    batch = sim.simulate(runs)
    assert [r.time_step for r in batch] == [dt for dt, _, _ in RUNS for _ in (1, 2)]
    assert all(_identical(r, sim.simulate(s)) for r, s in zip(batch, runs, strict=True))
    assert any(r.congestion_events.flow.size for r in batch)


@pytest.mark.filterwarnings("ignore:time_step:tcpmodels.TCPModelsWarning")
@pytest.mark.parametrize("sender", [sim.Tahoe(), sim.Reno(), sim.NewReno(limited_transmit=True), sim.HighSpeed(),
                                    sim.ACWAP(), sim.NDCA(), sim.TCPE(), sim.SDC(), sim.RDC()],
                         ids=lambda p: type(p).__name__)
def test_each_sender_keeps_its_lone_results_at_the_steps_of_a_shared_batch(sender):
    # TCP/E over CHOKe/RED-I's periodic tests (each scenario's at its own times), SDC and RDC over RED's marks.
    queue = sim.DropTail(buffer=20)
    if isinstance(sender, sim.TCPE):
        queue = sim.CHOKeI(match_interval=0.2, min_th=5, max_th=40, max_p=1.0, buffer=60, ecn=True)
    elif isinstance(sender, sim.SDC):  # (RDC is an SDC)
        queue = sim.RED(min_th=3, max_th=30, max_p=0.1, ecn=True)
    runs = _runs_apart(queue=queue, sender=sender)
    assert len(engine.batches(runs, range(len(runs)))) == 1
    assert all(_identical(r, sim.simulate(s)) for r, s in zip(sim.simulate(runs), runs, strict=True))


@pytest.mark.filterwarnings("ignore:time_step:tcpmodels.TCPModelsWarning")
def test_a_batch_joins_steps_only_where_that_saves_time_and_keeps_each_scenarios_precision(monkeypatch):
    def planned(runs):
        return sorted(sorted(b) for b in engine.batches(runs, range(len(runs))))

    # Lone scenarios run on Python floats where a batch runs on arrays: two cost less apart.
    assert planned([scenario(time_step=dt) for dt, _, _ in RUNS]) == [[0], [1], [2]]
    # Pairs of seeds whose steps lie ten times apart: the finer's steps cost more than the coarser's own.
    assert planned([scenario(time_step=dt, seed=seed) for dt in (0.002, 0.02) for seed in (1, 2)]) == [[0, 1],
                                                                                                        [2, 3]]
    # Traced scenarios share their trace's times; finite transfers log completions over one interval.
    traced = _runs_apart(trace=True)
    assert planned(traced) == [[0, 1], [2, 3], [4, 5]]
    assert planned(_runs_apart(workload=sim.FiniteTransfers())) == [[0, 1], [2, 3], [4, 5]]
    # Batches join only below the flows that make a batch float32 (here lowered): each keeps its precision,
    # and a scenario's result must not depend on its batch.
    monkeypatch.setattr(engine, "FLOAT32_FLOWS", 32)
    assert planned(_runs_apart()) == [[0, 1], [2, 3], [4, 5]]


@pytest.mark.filterwarnings("ignore:time_step.*packet spacing:tcpmodels.TCPModelsWarning")
@pytest.mark.filterwarnings("ignore:time_step.*CoDel's target:tcpmodels.TCPModelsWarning")
@pytest.mark.parametrize("queue", QUEUES, ids=lambda q: type(q).__name__ + ("-gentle" * getattr(q, "gentle", False)))
def test_scenarios_of_different_flow_counts_share_a_batch_and_keep_their_lone_results(queue):
    # The engine pads the smaller scenarios with flows that never start (flows.py): one batch
    # for a sweep over flow counts, each result its scenario's alone, bit for bit (per-flow
    # RTTs, link loss and their absence included).
    runs = [scenario(n_flows=n, rtt=rtt, queue=queue, sender=sim.NewReno(sack=True), link_loss=loss, seed=n,
                     time_step=0.01)
            for n, rtt, loss in ((3, [0.03, 0.05, 0.08], 0.0), (8, 0.04, 0.01), (13, 0.06, 0.0))]
    assert len({s.batch_key() for s in runs}) == 1
    batch = sim.simulate(runs)
    assert [r.goodput.size for r in batch] == [3, 8, 13]
    assert all(_identical(r, sim.simulate(s)) for r, s in zip(batch, runs, strict=True))
    # Flows laid out in groups of senders, or traced, batch only with their own count.
    grouped = [scenario(n_flows=n, senders=[(1, sim.Tahoe()), (n - 1, sim.Reno())]) for n in (3, 8)]
    traced = [scenario(n_flows=n, trace=True) for n in (3, 8)]
    assert all(a.batch_key() != b.batch_key() for a, b in (grouped, traced))
