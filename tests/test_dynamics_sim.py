"""Issue 17's simulator evidence: RED's dynamics in tcpmodels.sim against the fluid model, the linear verdict
(red.stability) and the ns-3 dynamics references.

One batch call runs every simulation (the module takes about 25 s of CPU): the four ns-3 runs (V1-V4) with 3
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
  whole step of service (45 ms on these links), so a settled queue that drains for a moment reads empty more
  often than in ns-3's 20 ms instantaneous samples: 2.6-3.5x ns-3's fraction (0.108 and 0.135 against
  0.035 and 0.038 where ns-3 settles, 0.397 and 0.509 against 0.152 and 0.168 where it swings).
* utilization, the simulator's own (link busy time over capacity).
"""

import numpy as np
import pytest

from tcpmodels import data, fluid, red, sim, units

# V1-V4 and the fluid model's cases run at the default step on purpose, also where it cannot hold the queue
# (engine._warn_unresolved_queue).
pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore:time_step. the queue averaged:tcpmodels.TCPModelsWarning")]

NS3 = dict(drop_spacing="count", delayed_ack=True)  # the references' wait=0 spacing and delayed ACKs
SWING_CV = 1.0 / np.sqrt(2.0)  # see the module docstring
# Settled simulated queues read at most 0.035 empty at the default step (sets of seeds up to 12: 0.034-0.038),
# 0.108 and 0.135 at the swing line (V4 and V1); ns-3's swinging runs are empty 15-17 % of the time in
# instantaneous samples, and step samples only read higher.
SWING_EMPTY = 0.15
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
# near the line) covers them.
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
    # (the test's seeds): utilization swinging 0.948-0.991, empty 0.186-0.509; settled 0.9987-1.000, empty
    # 0.035 or less.  The busiest swinging row: 30 flows at 50 Mbit/s and 100 ms (CV 0.784 at seeds 1-2, just
    # off the line; pairs of seeds 1-12 0.751-0.788), 0.9913 busy (pairs 0.9913-0.9929, single seeds
    # 0.9903-0.9943), 0.186 empty; so the swinging line is 0.994.  The settings at the swing line
    # (_at_the_line: V1 and V4) sit at both thresholds too: 0.9951 and 0.9948 busy, empty 0.135 and 0.108
    # (single seeds 1-12: 0.9928-0.9965, 0.088-0.169), so they get neither verdict's assertion.
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
    # (measured on 94e94b5 0.14, 0.22, 0.73, 1.23; 3819adb 0.14, 0.22, 0.74, 1.21; bb89f7d 0.13, 0.22, 0.76,
    # 1.22) and delay (0.27, 0.73, 1.20) and falls with more flows (0.81, 0.73, 0.48, 0.24 at 20-100 flows; 200
    # flows 0.42 and 0.38): each sweep crosses from settled to swinging or back, its ends far from the line (the
    # middle setting, 0.73, is on it and only ordered).
    cv = {k: [runs[str(c)]["sim"]["cv"] for c in cases] for k, cases in LOW.items()}
    assert np.all(np.diff(cv["capacity"]) > 0) and np.all(np.diff(cv["delay"]) > 0)
    assert np.all(np.diff(cv["flows"][:3]) < 0) and cv["flows"][-1] < cv["flows"][1]  # 60 and 100 both settle
    assert cv["capacity"][0] < SWING_CV < cv["capacity"][-1]
    assert cv["delay"][0] < SWING_CV < cv["delay"][-1]
    assert cv["flows"][0] > SWING_CV > cv["flows"][-1]
    assert all(runs[str(c)]["sim"]["cv"] < SWING_CV for c in LOW["more flows"])


# ------------------------------------------------------------------------- periods

def test_periods_of_the_oscillations(runs):
    # Where the simulated queue swings (off the line), its dominant period (0.2-20 s, the seeds' mean) against
    # the linear loop's prediction and the fluid limit cycle.  Measured (sim / fluid / linear, s), the test's
    # seeds: V2 1.32/1.33/1.15, V3 2.85/2.58/2.32, 100 Mbit/s 1.16/1.22/0.97, 200 ms 2.58/2.41/1.94, 20 flows
    # 1.26/1.20/1.18, 30 flows at 50 Mbit/s and 100 ms 1.19/1.12/1.17, the two 100-flow settings
    # 0.92/0.89/0.94 and 1.90/1.78/1.89 (V1, at the line, 1.08/1.13/1.17).  Over these and other sets of seeds
    # (V2: 4-6, 7-9, 10-12; Low et al.'s pairs up to 7-8; V3: 13-36, 1-12 with 25-36) the linear period is
    # 0.74-1.06 times the simulator's (V3 0.79-0.85; geometric mean over the swinging settings 0.87-0.90, the
    # test's seeds 0.90), the fluid cycle 0.88-1.05 times (geometric mean 0.94-0.96).  The linear loop runs
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
    # Utilization within 0.02 (issue 12's goal; measured 0.995, 0.948, 0.972, 0.995 against 0.992, 0.950,
    # 0.958, 0.992).  Queue std within 25 % (measured +8, +15, +10, +9 %: the swinging runs' cycles slightly
    # larger, their flows more synchronized per step).  The swing verdict where the simulator's is not a draw
    # of seeds: V2 and V3 swing as in ns-3; V1 (CV 0.696) and V4 (0.688) are at the line (CV_SEED_SD), V1 also
    # in the band just past the linear boundary, where ns-3's V1 settles.
    # Fraction empty: the simulator's step samples read about 3x ns-3's instantaneous ones (module
    # docstring), so only the ranking is compared: every swinging run empties more than every settled one,
    # in both.  Dominant period where ns-3 swings: V2 within 15 % (measured 1.32 s, 1.28-1.32 s over four
    # sets of 3 seeds, against 1.27 s: +1 ... +4 %; an ns-3 3.44 replica with the same recovery reads 1.20,
    # 1.27, 1.24, 1.13, 1.18 s at seeds 1-5, so the simulator is 10 % above their mean).  V3, 10 flows at
    # 200 ms: 2.85 s over 24 seeds (2.74-2.93 s over other sets of 24 of 36 seeds) against the reference's
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

