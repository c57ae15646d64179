"""Issue 17's simulator evidence: RED's dynamics in tcpmodels.sim against the fluid model, the linear verdict
(red.stability) and the ns-3 dynamics references.

One batch call runs every simulation (the module takes about 55 s of CPU, most of it the queues of a few
packets run again at an eighth of the step): the four ns-3 runs (V1-V4) with 3
seeds (V3 with 24, for its period) and Low et al.'s sweeps with 2 seeds, with queue traces at every step.
Nothing is tuned to the references: the settings are the references' (V1-V4) and those of
tests/test_stability.py's Low et al. test.  V1-V4 run the sender the references ran, ns-3 3.44's NewReno with
SACK and its classic recovery (``recovery="classic-ns3.44"``), like with like; Low et al.'s sweeps, which
compare the simulator with the fluid model and the linear loop, run the default NewReno (RFC 6937's PRR).
Until this module's V rows ran ns-3's recovery they ran PRR, which swings them harder than ns-3's (V2, seeds
1-3: utilization 0.933 against 0.948 now and ns-3's 0.950, dominant period 1.50 s against 1.32 s now and
ns-3's 1.27 s): V2's period was a strict expected failure for that comparison of unlike senders.

Measured figures below are of this module's set-up at the tests' seeds unless they say otherwise.

The measures, from the simulated queue trace after the warm-up (one sample per step, the queue at its end):
* coefficient of variation (CV) of the queue, std / mean.  A queue that oscillates as a sinusoid of amplitude
  a around its mean m has CV = a / (m sqrt 2); it reaches empty every cycle when a >= m, i.e. CV >= 1/sqrt 2.
  Clipping at empty only raises the CV.  So CV > 1/sqrt 2 = 0.707 is a swing that empties the queue every
  cycle; a settled queue of many desynchronized sawtooths sits below it (ns-3's settled runs: 0.61, 0.62; its
  swinging ones 0.84, 0.92).
* fraction of time empty: share of samples with less than one packet.  A step's end sees the queue after a
  whole step of service, so a queue that drains for a moment reads empty more often than in ns-3's 20 ms
  instantaneous samples: 1.1-1.4x ns-3's fraction at V1-V4, whose queues of a few packets run at an eighth of
  the default step (engine._finer_steps; 0.044 and 0.043 against 0.038 and 0.035 where ns-3 settles, 0.237
  and 0.186 against 0.168 and 0.152 where it swings); at the default step, 45 ms on these links, the
  simulator read 2.6-3.5x (0.135, 0.108, 0.513, 0.405).
* utilization, the simulator's own (link busy time over capacity).
"""

import numpy as np
import pytest

from tcpmodels import data, fluid, red, sim, units

pytestmark = pytest.mark.slow

NS3 = dict(drop_spacing="count", delayed_ack=True)  # the references' wait=0 spacing and delayed ACKs
SWING_CV = 1.0 / np.sqrt(2.0)  # see the module docstring
# ns-3's swinging runs are empty 15-17 % of the time, its settled ones 3.5-3.8 % (the references' V1-V4).  The
# simulated queues, most at an eighth of the default step (engine._finer_steps), read 0.117-0.263 where they swing
# (the test's seeds), 0.044 or less where they settle (V1 and V4 0.044 and 0.043), 0.064 and 0.084 at the line.
SWING_EMPTY = 0.1
# Low et al.'s sweeps: tests/test_stability.py's RED setting, 1500-byte packets, 30 flows at 50 Mbit/s and
# 100 ms in the middle; capacity, delay and flows varied one at a time.  On the two links where 30 flows
# swing, 200 flows (the linear gain margin 1.7) give a stable setting on the same link, and 100 flows sit
# just past the boundary (margin 0.92).
LOW_RED = dict(min_th=20, max_th=400, max_p=0.05, weight=0.002)
LOW = {"capacity": [(30, bw, 0.1) for bw in (10e6, 20e6, 50e6, 100e6)],
       "delay": [(30, 50e6, r) for r in (0.05, 0.1, 0.2)],
       "flows": [(n, 50e6, 0.1) for n in (20, 30, 60, 100)],
       "more flows": [(200, 100e6, 0.1), (200, 50e6, 0.2)],
       "boundary": [(100, 100e6, 0.1), (100, 50e6, 0.2)]}
# The band just past the linear boundary (gain margin 0.8-1) where the predicted cycle is small: there the
# fluid model's cycle does not empty the queue, and the simulator may settle (V1, margin 0.90, as ns-3
# does) or swing (100 flows at 100 Mbit/s, margin 0.92: CV 0.92 on 94e94b5).  Outside it every verdict must agree.
BAND = (0.8, 1.0)
# The swing line's seed noise: a row's CV is the mean over its seeds, and where it lies within two standard
# errors of 1/sqrt 2 which side it falls on is the seeds' draw, so such a row gets no verdict (_at_the_line).
# Measured over seeds 1-12, the standard deviation of one seed's CV is 0.020-0.034 on the settings whose CV
# lies within 0.1 of the line (V1 0.031, V4 0.020, 30 flows at 50 Mbit/s and 100 ms 0.034; 0.012-0.066 on all
# 17, 200 flows at 200 ms the most, at CV 0.59).  V1 (CV 0.711 over the 12 seeds; sets of 3: 0.696-0.729) and
# V4 (0.686; 0.669-0.700) sit on it, and Low et al.'s 30 flows at 50 Mbit/s and 100 ms (V1's setting with the
# default sender; 0.771; sets of 2: 0.751-0.784) near it; ns-3's own V1 nearly so (the reference's one run
# 0.615; an ns-3 3.44 replica 0.675, 0.687, 0.707, seeds 1-3).  The 0.041 kept (an earlier engine's largest
# near the line) covers them.  (These seed figures are of the default step, before the queues of a few packets
# ran at an eighth of it: V1 now reads 0.621 and V4 0.602 at the test's seeds, ns-3 0.615 and 0.608.)
CV_SEED_SD = 0.041
# V3's period is read over 24 seeds: one seed's peak scatters with a standard deviation of 0.52 s around
# 2.84 s (36 seeds), so 3 seeds' estimate moves by about +-0.3 s, 24 seeds' by about 0.1 s (0.52 / sqrt 24;
# 2.74-2.93 s over three sets of 24 of the 36).
SEEDS_NS3, SEEDS_LOW, SEEDS_V3 = (1, 2, 3), (1, 2), tuple(range(1, 25))


def _ns3_scenario(t, i, seed):
    bw, n = float(t["bandwidth_bps"][i]), int(t["flows"][i])
    lo, hi = float(t["rtt_min_s"][i]), float(t["rtt_max_s"][i])
    queue = sim.RED(min_th=float(t["min_th"][i]), max_th=float(t["max_th"][i]), max_p=float(t["max_p"][i]),
                    weight=float(t["weight"][i]), buffer=int(t["limit"][i]))
    return sim.Scenario(n_flows=n, bandwidth=bw, rtt=(lo + hi) / 2, rtt_spread=2 * (hi - lo) / (lo + hi),
                        packet_size=float(t["packet_size"][i]), queue=queue,
                        sender=sim.NewReno(sack=True, recovery="classic-ns3.44"),
                        access_rate=max(10 * bw / n, 1e6), duration=140.0, warmup=40.0, seed=seed, trace=True,
                        trace_interval=0.01)  # shorter than any step: one sample per step


def _low_scenario(n, bw, rtt, seed):
    # The access links and the +-10 % RTT spread as in the ns-3 runs.
    return sim.Scenario(n_flows=n, bandwidth=bw, rtt=rtt, rtt_spread=0.2, packet_size=1500,
                        queue=sim.RED(buffer=1600, **LOW_RED), sender=sim.NewReno(sack=True),
                        access_rate=max(10 * bw / n, 1e6), duration=100.0, warmup=20.0, seed=seed, trace=True,
                        trace_interval=0.01)


def _queue(r, warmup):
    t, q = r.trace["time"], r.trace["queue"]
    return q[t > warmup], float(np.mean(np.diff(t)))


def _mean_stats(runs, warmup):
    """Seed means of utilization, queue CV, fraction empty, queue std and dominant period.

    The period is the mean of the seeds' own spectral peaks: a single run's peak jumps between neighbouring
    peaks of a broad spectrum (V3, 10 flows at 200 ms: one seed's peak 2.2-4.7 s), and the mean over seeds
    estimates what one run reads on average, as the reference's one run does.
    """
    each = []
    for r in runs:
        q, dt = _queue(r, warmup)
        each.append(dict(utilization=r.utilization, cv=q.std() / q.mean(), empty=np.mean(q < 1.0), std=q.std(),
                         period=fluid.dominant_period(q, dt)))
    return {k: float(np.mean([e[k] for e in each])) for k in each[0]} | {"seeds": len(runs)}


@pytest.fixture(scope="module")
def runs():
    t = data.table("ns3_red_dynamics")
    low = list(dict.fromkeys(c for cases in LOW.values() for c in cases))  # 13 settings: the sweeps share one
    seeds = [SEEDS_V3 if run == "V3" else SEEDS_NS3 for run in t["run"]]
    batch = [_ns3_scenario(t, i, s) for i in range(len(t["run"])) for s in seeds[i]]
    batch += [_low_scenario(*c, s) for c in low for s in SEEDS_LOW]
    results = iter(sim.simulate(batch))
    ns3 = [_mean_stats([next(results) for _ in seeds[i]], 40.0) for i in range(len(t["run"]))]
    sims = [_mean_stats([next(results) for _ in SEEDS_LOW], 20.0) for _ in low]
    # The fluid model and the linear verdict on the same settings (the runs' mean RTT).
    cap = units.capacity(t["bandwidth_bps"], t["packet_size"])
    rtt = 0.5 * (t["rtt_min_s"] + t["rtt_max_s"])
    red_ns3 = dict(min_th=t["min_th"], max_th=t["max_th"], max_p=t["max_p"], weight=t["weight"])
    n, bw, r = (np.array(x) for x in zip(*low, strict=True))
    cap_low = units.capacity(bw, 1500)
    f_ns3 = fluid.simulate(t["flows"], rtt, cap, buffer=t["limit"], duration=140.0, warmup=40.0, **red_ns3, **NS3)
    f_low = fluid.simulate(n, r, cap_low, buffer=1600, duration=100.0, warmup=20.0, **LOW_RED, **NS3)
    s_ns3 = red.stability(t["flows"], rtt, cap, **red_ns3, **NS3)
    s_low = red.stability(n, r, cap_low, **LOW_RED, **NS3)
    rows = [dict(name=str(run), sim=ns3[i], fluid_swings=bool(f_ns3.swings[i]), fluid_period=f_ns3.period[i],
                 stable=bool(s_ns3.stable[i]), margin=s_ns3.gain_margin[i], period=s_ns3.period[i])
            for i, run in enumerate(t["run"])]
    rows += [dict(name=c, sim=sims[i], fluid_swings=bool(f_low.swings[i]), fluid_period=f_low.period[i],
                  stable=bool(s_low.stable[i]), margin=s_low.gain_margin[i], period=s_low.period[i])
             for i, c in enumerate(low)]
    return {str(row["name"]): row for row in rows} | {"table": t}


def _swings(row):
    return row["sim"]["cv"] > SWING_CV


def _cases(runs):
    return [v for k, v in runs.items() if k != "table"]


def _in_band(row):
    return not row["stable"] and BAND[0] <= row["margin"] <= BAND[1]


def _at_the_line(row):
    return abs(row["sim"]["cv"] - SWING_CV) < 2 * CV_SEED_SD / np.sqrt(row["sim"]["seeds"])


def _undecided(row):
    # No verdict to compare: inside the linear boundary band, or the simulator's own verdict a draw of seeds.
    return _in_band(row) or _at_the_line(row)


# ------------------------------------------------ verdicts: simulator, fluid model, linear loop

def test_simulator_agrees_with_the_fluid_model(runs):
    # The fluid model's limit cycle idles the link (fluid.FluidResult.swings) exactly where the simulated
    # queue swings, on the 4 ns-3 settings and 13 Low et al. settings, except in the boundary band, where
    # the simulated queue swings on the two 100-flow settings and the fluid cycle does not empty the queue
    # (V1 and 30 flows at 50 Mbit/s and 100 ms are in the band too), and at the swing line (V1, V4): 12 settings.
    rows = [row for row in _cases(runs) if not _undecided(row)]
    assert len(rows) >= 11  # 20 flows (CV 0.88, pairs of seeds 1-12 0.86-0.90) may one day reach the line
    for row in rows:
        assert _swings(row) == row["fluid_swings"], row["name"]


def test_simulator_agrees_with_the_linear_verdict_off_the_boundary(runs):
    # Where the linear loop is stable the simulated queue settles; where it is unstable the queue swings,
    # except in the band just past the boundary (BAND), where it may do either, and at the swing line (V4,
    # margin 1.21: CV 0.686 over seeds 1-12, against ns-3's 0.608 and a replica's 0.614 and 0.649).
    for row in _cases(runs):
        if _undecided(row):
            continue
        if row["stable"]:
            assert not _swings(row), row["name"]
        else:
            assert _swings(row), row["name"]
    assert sum(not r["stable"] and r["margin"] < 0.8 for r in _cases(runs)) >= 5  # enough unstable cases


def test_swinging_queue_empties_and_idles_the_link(runs):
    # Where the queue swings it is empty more than SWING_EMPTY of the time and the link idles: utilization
    # below 0.98, the reference README's line for a swinging setting, and below the stable setting's on the
    # same link (V2 against V1, V3 against V4, 20 against 60 flows, 30 against 200 flows at 100 Mbit/s and
    # at 200 ms).  Where it settles the link stays busy (above 0.98) and the queue empties less.  Measured
    # (the test's seeds): utilization swinging 0.947-0.984, empty 0.117-0.263; settled 0.9925-1.000, empty
    # 0.044 or less (V1 and V4, at an eighth of the default step, 0.044 and 0.043).  At the swing line
    # (_at_the_line) 20 and 30 flows at 50 Mbit/s and 100 ms, 0.985 and 0.989 busy, empty 0.084 and 0.064,
    # get neither verdict's assertion.  (At the default step, before such queues ran at an eighth of it, the
    # swinging rows read 0.186-0.509 empty and V1 and V4, then at the line, 0.135 and 0.108.)
    rows = [row for row in _cases(runs) if not _at_the_line(row)]
    assert len(rows) >= 13
    for row in rows:
        if _swings(row):
            assert row["sim"]["empty"] > SWING_EMPTY and row["sim"]["utilization"] < 0.994, row["name"]
        else:
            assert row["sim"]["empty"] < SWING_EMPTY and row["sim"]["utilization"] > 0.98, row["name"]
    for swinging, settled in (("V2", "V1"), ("V3", "V4"), ((20, 50e6, 0.1), (60, 50e6, 0.1)),
                              ((30, 100e6, 0.1), (200, 100e6, 0.1)), ((30, 50e6, 0.2), (200, 50e6, 0.2))):
        a, b = runs[str(swinging)]["sim"], runs[str(settled)]["sim"]
        assert a["utilization"] < b["utilization"] - 0.005, (swinging, settled)


def test_low_et_al_in_the_simulator(runs):
    # Low, Paganini, Wang & Doyle (2003): the same RED setting turns unstable as capacity or delay grows at a
    # fixed flow count, and more flows stabilize it.  The simulated queue's CV grows along capacity
    # (measured 0.14, 0.22, 0.68, 0.80) and delay (0.27, 0.68, 0.80) and falls with more flows (0.69, 0.68,
    # 0.47, 0.26 at 20-100 flows; 200 flows 0.40 and 0.54): the capacity and delay sweeps cross from settled to
    # swinging, the middle setting (0.68) at the line and only ordered.  The flow sweep falls from the line
    # (20 flows, 0.69, within its seeds' noise of it) to settled.  At the default step, before queues of a few
    # packets ran at an eighth of it, the same sweeps read 0.14, 0.22, 0.74, 1.17; 0.27, 0.74, 1.18; 0.86,
    # 0.74, 0.47, 0.26: the coarse step's swings were the larger the fewer packets a step's service queued.
    cv = {k: [runs[str(c)]["sim"]["cv"] for c in cases] for k, cases in LOW.items()}
    assert np.all(np.diff(cv["capacity"]) > 0) and np.all(np.diff(cv["delay"]) > 0)
    assert np.all(np.diff(cv["flows"][:3]) < 0) and cv["flows"][-1] < cv["flows"][1]  # 60 and 100 both settle
    assert cv["capacity"][0] < SWING_CV < cv["capacity"][-1]
    assert cv["delay"][0] < SWING_CV < cv["delay"][-1]
    fewest = runs[str(LOW["flows"][0])]
    assert (_swings(fewest) or _at_the_line(fewest)) and cv["flows"][-1] < SWING_CV
    assert all(runs[str(c)]["sim"]["cv"] < SWING_CV for c in LOW["more flows"])


# ------------------------------------------------------------------------- periods

def test_periods_of_the_oscillations(runs):
    # Where the simulated queue swings (off the line), its dominant period (0.2-20 s, the seeds' mean) against
    # the linear loop's prediction and the fluid limit cycle.  Measured (sim / fluid / linear, s), the test's
    # seeds: V2 1.23/1.33/1.15, V3 3.12/2.58/2.32, 100 Mbit/s 1.18/1.22/0.97, 200 ms 2.62/2.41/1.94, the two
    # 100-flow settings 0.92/0.89/0.94 and 1.88/1.78/1.89 (at the line: 20 flows 1.13/1.20/1.18, 30 flows at
    # 50 Mbit/s and 100 ms 1.11/1.12/1.17).  The linear period is 0.74-1.03 times the simulator's (geometric
    # mean 0.87), the fluid cycle 0.83-1.08 times (0.96).  At the default step, before queues of a few packets
    # ran at an eighth of it, over these and other sets of seeds (V2: 4-6, 7-9, 10-12; Low et al.'s pairs up to
    # 7-8; V3: 13-36, 1-12 with 25-36) the linear period was 0.74-1.06 times the simulator's (V3 0.79-0.85;
    # geometric mean 0.87-0.90), the fluid cycle 0.88-1.05 times (0.94-0.96).  The linear loop runs
    # short of ns-3 too: V2 0.90 of the reference's period, V3 0.59 of an ns-3 3.44 replica's mean over 12 seeds
    # (test_against_ns3_dynamics).  Bounds: each setting within 35 % (linear) and 40 % (fluid), the geometric
    # means within 15 % (the linear one measured 10-14 % off: 0.87-0.90); the linearization keeps the delay at the
    # operating point's and has no randomness, the fluid cycle's empty phase lengthens it.
    swinging = [row for row in _cases(runs) if _swings(row) and not _at_the_line(row)]
    assert len(swinging) >= 6
    sim_period = np.array([row["sim"]["period"] for row in swinging])
    for key, bound in (("period", 0.35), ("fluid_period", 0.4)):
        ratio = np.array([row[key] for row in swinging]) / sim_period
        assert np.all(np.abs(ratio - 1) < bound), (key, ratio)
        assert np.exp(np.mean(np.log(ratio))) == pytest.approx(1.0, abs=0.15), key


# ------------------------------------------------------------------- ns-3 references

PERIOD_BOUND = {"V2": 0.15, "V3": 0.9}  # (test_against_ns3_dynamics says why)


def test_against_ns3_dynamics(runs):
    # V1-V4 (3 seeds each, V3 24) against ns3_red_dynamics, with the references' sender (module docstring).
    # Utilization within 0.02 (issue 12's goal; measured 0.993, 0.947, 0.964, 0.993 against 0.992, 0.950,
    # 0.958, 0.992).  Queue std within 25 % (measured -1, +3, -2, -4 %; +8, +15, +10, +9 % at the default step,
    # whose swings were larger, before these queues of a few packets ran at an eighth of it).  The swing verdict
    # where the simulator's is not a draw of seeds: V2 and V3 swing, V4 (CV 0.602) settles, as in ns-3; V1 (CV
    # 0.621, ns-3 0.615) settles too but is in the band just past the linear boundary.
    # Fraction empty: the simulator's step samples read 1.1-1.4x ns-3's instantaneous ones (module
    # docstring), so only the ranking is compared: every swinging run empties more than every settled one,
    # in both.  Dominant period where ns-3 swings: V2 within 15 % (measured 1.23 s against 1.27 s, -3 %; at the
    # default step 1.32 s, 1.28-1.32 s over four sets of 3 seeds; an ns-3 3.44 replica with the same recovery
    # reads 1.20, 1.27, 1.24, 1.13, 1.18 s at seeds 1-5, mean 1.20 s).  V3, 10 flows at 200 ms: 3.12 s over
    # 24 seeds (at the default step 2.85 s, 2.74-2.93 s over other sets of 24 of 36) against the reference's
    # one run, 2.33 s, which is a low draw: an ns-3 3.44 replica of V3 (not in the repository; 100 s, 20 ms
    # samples over [40, 100] s) reads 2.35-5.58 s at seeds 1-12, mean 3.92 s, standard deviation 1.03 s per
    # run (utilization 0.948-0.962 against the reference's 0.958), so one run pins V3's period no closer than
    # about +-1 s.  Bound 90 %: two of those standard deviations over 2.33 s (the simulator's 24-seed mean
    # adds 0.11 s of its own).
    t = runs["table"]
    swings = t["utilization"] < 0.98  # the reference README's definition
    for i, run in enumerate(t["run"]):
        s = runs[str(run)]["sim"]
        assert s["utilization"] == pytest.approx(t["utilization"][i], abs=0.02), run
        assert s["std"] == pytest.approx(t["queue_std"][i], rel=0.25), run
        if not _undecided(runs[str(run)]):
            assert _swings(runs[str(run)]) == swings[i], run
        if swings[i]:
            assert s["period"] == pytest.approx(t["dominant_period_s"][i], rel=PERIOD_BOUND[str(run)]), run
    empty = np.array([runs[str(run)]["sim"]["empty"] for run in t["run"]])
    for e in (empty, t["queue_frac_empty"]):
        assert e[swings].min() > e[~swings].max()

