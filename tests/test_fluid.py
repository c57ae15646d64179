"""tcpmodels.fluid: the Misra-Gong-Towsley fluid model against its own equilibrium, the linear analysis,
Low et al.'s finding, the ns-3 dynamics references and P3."""

import math

import numpy as np
import pytest

from tcpmodels import TCPModelsWarning, data, fluid, fpq, red, units

NS3 = dict(drop_spacing="count", delayed_ack=True)  # the references' wait=0 spacing and delayed ACKs


@pytest.fixture(scope="module")
def dynamics():
    t = data.table("ns3_red_dynamics")
    t["capacity"] = units.capacity(t["bandwidth_bps"], t["packet_size"])
    t["rtt"] = 0.5 * (t["rtt_min_s"] + t["rtt_max_s"])
    t["swings"] = t["utilization"] < 0.98  # the reference README's definition
    t["fluid"] = fluid.simulate(t["flows"], t["rtt"], t["capacity"], min_th=t["min_th"], max_th=t["max_th"],
                                max_p=t["max_p"], weight=t["weight"], buffer=t["limit"], duration=140.0,
                                warmup=40.0, **NS3)  # the references' run length and statistics window
    return t


# ------------------------------------------------------ ns-3 references

def test_ns3_verdicts(dynamics):
    f = dynamics["fluid"]
    assert np.array_equal(f.swings, dynamics["swings"])
    # The swinging runs idle the link; the settled ones keep it busy.
    assert f.utilization[dynamics["swings"]].max() < f.utilization[~dynamics["swings"]].min()


def test_ns3_periods(dynamics):
    # Fluid limit cycles against ns-3's dominant period where the queue swings: within 15 % (measured
    # 4.6 % on V2, 11 % on V3; the spectrum's 0.01 Hz resolution is 1-2.5 % of these periods).
    f, ok = dynamics["fluid"], dynamics["swings"]
    assert f.period[ok] == pytest.approx(dynamics["dominant_period_s"][ok], rel=0.15)


def test_ns3_queue_statistics(dynamics):
    f, t = dynamics["fluid"], dynamics
    # Time-average queue within 35 % (measured +25 %, -7 %, -24 %, +32 %): the mean-field window
    # sqrt(2/(b p)) stands 15 % above the sawtooth's average and there is no randomness to spread it.
    assert f.queue == pytest.approx(t["avg_queue"], rel=0.35)
    # The 95th percentile of the swinging queues within 25 % (measured +12 %, -12 %): the cycle's
    # amplitude, not only its mean, is right.
    after = f.time >= 40.0
    p95 = np.percentile(f.queue_trace[:, after], 95, axis=-1)
    assert p95[t["swings"]] == pytest.approx(t["queue_p95"][t["swings"]], rel=0.25)


def test_ns3_queue_series_levels(dynamics):
    # The shipped 0.1 s series: the swinging runs' fluid traces spend more time empty than ns-3's
    # (deterministic cycles all reach zero together; ns-3's flows desynchronize), the settled ones less.
    series = data.table("ns3_red_dynamics_queue")
    f = dynamics["fluid"]
    for i, run in enumerate(dynamics["run"]):
        mine = (series["run"] == run) & (series["time_s"] >= 40)
        empty_ns3 = np.mean(series["queue_pkts"][mine] == 0)
        fluid_empty = np.mean(f.queue_trace[i, f.time >= 40] < 1.0)
        assert (fluid_empty > empty_ns3) == dynamics["swings"][i]


# ------------------------------------------------ linear analysis, Low et al.

@pytest.fixture(scope="module")
def grid():
    kw = dict(min_th=20, max_th=400, max_p=0.05, weight=0.002, **NS3)
    caps = units.capacity(np.array([10e6, 20e6, 50e6, 100e6]), 1500)
    n = np.array([10, 30, 100])[:, None, None]
    r = np.array([0.1, 0.2])[:, None]
    with pytest.warns(TCPModelsWarning, match="windows below 4"):  # 100 flows on 10 Mbit/s at 100 ms
        s = red.stability(n, r, caps, **kw)
    return s, fluid.simulate(n, r, caps, duration=100.0, **kw)


def test_agrees_with_linear_analysis(grid):
    s, f = grid
    # Away from the boundary the fluid model and the linearization agree: limit cycle where the gain
    # margin is below 0.8, settled above 1.2.  Between, a cycle's amplitude grows from zero and a
    # 100 s run cannot tell a slow decay from a small cycle.
    assert np.all(f.limit_cycle[s.valid & (s.gain_margin < 0.8)])
    assert not np.any(f.limit_cycle[s.valid & (s.gain_margin > 1.2)])
    assert (s.valid & (s.gain_margin < 0.8)).sum() >= 5 and (s.valid & (s.gain_margin > 1.2)).sum() >= 5


def test_low_et_al_with_the_fluid_model(grid):
    # Low, Paganini, Wang, Doyle (2003): at a fixed flow count the same RED setting settles on a slow,
    # short link and swings on a fast or long one; more flows settle it.  (axes: flows, RTT, capacity)
    _, f = grid
    cycle = f.limit_cycle
    assert not cycle[1, 0, 0] and cycle[1, 0, 3]  # 30 flows, 100 ms: 10 -> 100 Mbit/s
    assert not cycle[1, 0, 1] and cycle[1, 1, 2]  # 30 flows: 20 Mbit/s, 100 ms -> 50 Mbit/s, 200 ms
    assert cycle[0, 0, 2] and not cycle[2, 0, 2]  # 50 Mbit/s, 100 ms: 10 -> 100 flows


# --------------------------------------------------------------- internals

def test_settles_at_its_equilibrium():
    # A stable setting converges to the operating point red.stability linearizes about; the step's
    # discretization (moves results ~1 % per halving, test_step_halving) bounds the difference.
    kw = dict(min_th=5, max_th=217, max_p=0.02, **NS3)
    f = fluid.simulate(30, 0.2, 2170.1, weight=0.002, duration=100.0, **kw)
    e = fluid.equilibrium(30, 0.2, 2170.1, **kw)
    assert not f.limit_cycle
    assert f.queue == pytest.approx(e.queue, rel=0.02) and f.window == pytest.approx(e.window, rel=0.02)
    assert f.loss_rate == pytest.approx(e.loss_rate, rel=0.02)
    assert f.utilization == pytest.approx(1.0, abs=1e-9)


def test_classes_share_by_rtt():
    # Two classes, 50 and 200 ms, on one queue: at equilibrium every flow sees the same p, so
    # p = 2/(b W^2) gives every flow the same window and throughput W/R in inverse proportion to R
    # (the fluid model's RTT bias).
    f = fluid.simulate([20, 20], [0.05, 0.2], 4166.7, max_th=400, min_th=20, max_p=0.05, weight=0.002,
                       duration=50.0, classes=True, **NS3)
    assert f.window.shape == (2,) and f.window_trace.shape[:1] == (2,)
    assert f.window[0] == pytest.approx(f.window[1], rel=0.02)


def test_droptail_cycles():
    # Drop-tail with a buffer of a quarter of the pipe: the fluid flows, all alike, halve together
    # (Morris 1999, Fig. 5.8-5.9) and the queue cycles between empty and full.
    f = fluid.simulate(10, 0.1, 2170.1, queue="droptail", buffer=50, duration=60.0, **NS3)
    assert f.limit_cycle and f.swings and f.queue_trace.max() == pytest.approx(50.0)
    assert f.loss_rate > 0 and f.utilization < 1.0


def test_fpq_uses_figure_6_4_settings():
    n, cap, r = 100, 2170.1, 0.1
    f = fluid.simulate(n, r, cap, queue="fpq", weight=0.002, duration=60.0, **NS3)
    p = fpq.red_params(n, cap * r)
    e = fluid.equilibrium(n, r, cap, min_th=p.min_th, max_th=p.max_th, max_p=p.max_p, **NS3)
    assert not f.limit_cycle and f.queue == pytest.approx(e.queue, rel=0.02)


def test_shapes_and_scalars():
    kw = dict(max_th=217, max_p=0.02, duration=20.0)
    one = fluid.simulate(30, 0.1, 2170.1, **kw)
    assert isinstance(one.queue, float) and isinstance(one.limit_cycle, bool)
    assert one.queue_trace.shape == one.time.shape
    many = fluid.simulate([[10], [30]], [0.1, 0.2, 0.3], 2170.1, **kw)
    assert many.queue.shape == (2, 3) and many.queue_trace.shape == (2, 3, one.time.size)
    assert many.queue[1, 0] == pytest.approx(fluid.simulate(30, 0.1, 2170.1, step=many.step, **kw).queue)


@pytest.mark.parametrize("name,kw", [
    ("n_flows", dict(n_flows=0)), ("rtt", dict(rtt=math.inf)), ("capacity", dict(capacity=-1)),
    ("capacity", dict(capacity=math.nan)), ("max_th", dict(max_th=3)), ("weight", dict(weight=0)),
    ("weight", dict(weight=2)), ("queue", dict(queue="codel")), ("buffer", dict(queue="droptail")),
    ("duration", dict(duration=0)), ("warmup", dict(warmup=50)), ("step", dict(step=0.06)),
    ("gentle", dict(gentle="false")), ("delayed_ack", dict(delayed_ack="no")),   # a string was true
    ("classes", dict(classes="false")),
])
def test_bad_input(name, kw):
    args = dict(n_flows=30, rtt=0.1, capacity=2170.1, min_th=5, max_th=217, max_p=0.02, duration=20.0) | kw
    with pytest.raises(ValueError, match=name):
        fluid.simulate(**args)


# ------------------------------------------------------------ against P3

def test_equilibrium_worse_than_p3(reference_rows):
    # On the 10 ms ns-3 rows where the fluid equilibrium lies on RED's ramp, P3 is closer to ns-3's loss
    # on every row: the fluid model has no time-outs, halves once per lost packet rather than per loss
    # event, and its window sqrt(2/(b p)) is 15 % above the sawtooth's average, so it keeps more in
    # flight, queues more and loses more (measured +30 % to +63 % on loss where P3 is within 17 %).
    rows = reference_rows
    e = fluid.equilibrium(rows["flows"], 0.01, 2170.1, min_th=5, max_th=rows["max_th"], max_p=rows["max_p"],
                          **NS3)
    p3 = red.equilibrium(rows["flows"], rows["max_th"], rows["max_p"], rtt=0.01, capacity=2170.1)
    on = e.on_ramp
    assert on.sum() >= 8
    fluid_err = np.abs(e.loss_rate / rows["drop_rate"] - 1)[on]
    p3_err = np.abs(p3.loss_rate / rows["drop_rate"] - 1)[on]
    assert np.all(fluid_err > p3_err)
    assert np.all(e.loss_rate[on] > rows["drop_rate"][on])


@pytest.mark.slow
def test_step_halving(dynamics):
    # The step rule's claim: halving the step moves the time averages by at most a few per cent
    # (measured: queue 0.5 %, queue std 5 %, utilization 0.2 %, period 2 %).
    t, f = dynamics, dynamics["fluid"]
    half = fluid.simulate(t["flows"], t["rtt"], t["capacity"], min_th=t["min_th"], max_th=t["max_th"],
                          max_p=t["max_p"], weight=t["weight"], buffer=t["limit"], duration=140.0, warmup=40.0,
                          step=f.step / 2, **NS3)
    assert half.queue == pytest.approx(f.queue, rel=0.02)
    assert half.utilization == pytest.approx(f.utilization, rel=0.005)
    assert np.array_equal(half.swings, f.swings)
    ok = t["swings"]
    assert half.period[ok] == pytest.approx(f.period[ok], rel=0.05)


def test_drop_rate_spacings():
    # Floyd & Jacobson's gaps uniform on [1, 1/p_b] have mean (1 + 1/p_b)/2; ns-3's Wait on [1/p_b, 2/p_b], 1.5/p_b.
    q = np.array([5.0, 111.0, 217.0, 300.0])
    p_b = red.drop_probability(q, 5, 217, 0.02)
    assert red.drop_rate(q, 5, 217, 0.02) == pytest.approx(p_b)
    assert red.drop_rate(q, 5, 217, 0.02, spacing="count") == pytest.approx(2 * p_b / (1 + p_b))
    assert red.drop_rate(q, 5, 217, 0.02, spacing="wait")[:2] == pytest.approx(2 * p_b[:2] / 3)
    assert red.drop_rate(q[:, None], 5, [217, 434], 0.02).shape == (4, 2)
    assert isinstance(red.drop_rate(111.0, 5, 217, 0.02), float)
    with pytest.raises(ValueError, match="spacing"):
        red.drop_rate(q, 5, 217, 0.02, spacing="even")


def test_equilibrium_types():
    e = fluid.equilibrium(30, 0.2, 2170.1, min_th=5, max_th=217, max_p=0.02)
    assert isinstance(e.queue, float) and isinstance(e.on_ramp, bool)
    grid = fluid.equilibrium([[10], [30]], [0.1, 0.2], 2170.1, min_th=5, max_th=217, max_p=0.02)
    assert grid.queue.shape == grid.on_ramp.shape == (2, 2)
    with pytest.raises(ValueError, match="rtt"):
        fluid.equilibrium(30, 0, 2170.1, min_th=5, max_th=217, max_p=0.02)
    for flag in ("gentle", "delayed_ack"):  # a string was true
        with pytest.raises(ValueError, match=f"{flag} must be True or False, got 'false'"):
            fluid.equilibrium(30, 0.2, 2170.1, min_th=5, max_th=217, max_p=0.02, **{flag: "false"})


def test_dominant_period():
    # Sinusoids of known period, one per row, and a flat row (no period); the 4x zero-padded spectrum of
    # 100 s reads the peak to 0.0025 Hz: 0.1 % at 0.5 s, 1.6 % at 5 s.
    t = np.arange(0, 100, 0.05)
    rows = np.stack([np.sin(2 * np.pi * t / p) for p in (0.5, 1.6, 5.0)] + [np.zeros_like(t)])
    got = fluid.dominant_period(rows, 0.05)
    assert got[:3] == pytest.approx([0.5, 1.6, 5.0], rel=0.02) and math.isnan(got[3])
    assert isinstance(fluid.dominant_period(list(rows[1]), 0.05), float)
    # Pooled: two noisy runs of one 2 s cycle, whose common peak the mean spectrum keeps.
    noisy = np.sin(2 * np.pi * t / 2.0) + np.random.default_rng(1).normal(0, 1.0, (2, t.size))
    assert fluid.dominant_period(noisy, 0.05, pool=True) == pytest.approx(2.0, rel=0.02)
    with pytest.raises(ValueError, match="interval"):
        fluid.dominant_period(rows, 0.0)
    with pytest.raises(ValueError, match="pool must be True or False"):   # a string was true
        fluid.dominant_period(rows, 0.05, pool="false")
    for samples in (10**400, 5.0, [1.0, math.nan]):  # 10**400: an OverflowError; 5.0: an IndexError
        with pytest.raises(ValueError, match="samples"):
            fluid.dominant_period(samples, 0.1)
