"""The simulator's step and the queue's motion against ns-3 (issue 12): the few-flow, large-BDP drop-tail case,
the RED dynamics references (``ns3_red_dynamics``) and the queue-motion rows, with the recovery the references
ran (ns-3 3.44's classic one: ``ns3_references.references_sender``).

Scenarios from ``ns3_references.py``.  Every test here simulates minutes of traffic, so all are marked slow.
"""

import dataclasses

import numpy as np
import pytest
from ns3_references import DYNAMICS, MOTION, few_flows

from tcpmodels import sim, units

pytestmark = pytest.mark.slow



# V3's queue of 6 packets varies by 4-6 % from seed to seed, so the halving of
# 4 seeds' means reads within +-3 % (seeds 1-4 +4.1 % on 94e94b5, +7.6 % on
# 3819adb) and 16 seeds' within +-1.9 % (+3.1 %, 3819adb +3.9 %; seeds 9-24
# +1.6 +- 1.5 %, 3819adb +4.1 +- 1.6 %; all with prr-ns3.44).  With classic
# recovery the halving reads +5.4 % over seeds 1-16, +4.9 % (SE 0.8 %) over
# 1-64 and +3.8 % (0.8 %) over 65-128 (b0804d0): near the goal's 5 %, so the
# test pooled 128 seeds (SE about 0.55 %).  Since V3 runs at an eighth of
# the default step (engine._finer_steps), where a run costs 9 times as much
# and its halving 16 times, it pools 16 (SE about 1.9 %).
# The few fast flows' loss varies by 3-5 % from seed to seed too, and their
# halving reads near the goal: +4.8 % over seeds 1-16 (standard error 1.8 %;
# 193afb6 +4.7 %) on 71a70a0, where seeds 1-4 read +8.7 % (193afb6 +3.8 %):
# the test pools 16 (their 32 runs of 200 s take about 20 s).
SEEDS = {"V3": range(1, 17), "few flows": range(1, 17)}


@pytest.fixture(scope="module")
def step_study():
    # Each case at the step the engine takes for it (its default, or an eighth of it where a RED queue of a
    # few packets sends it round again: engine._finer_steps) and at half of that, 4 seeds each (a single
    # run's loss and queue vary by 3-5 % from seed to seed here; SEEDS), one call each.
    cases = {"few flows": few_flows(), **{k: v[0] for k, v in DYNAMICS.items()},
             **{k: v[0] for k, v in MOTION.items()}}
    each = [dataclasses.replace(s, seed=seed) for k, s in cases.items() for seed in SEEDS.get(k, range(1, 5))]
    taken = sim.simulate(each)
    halved = iter(sim.simulate([dataclasses.replace(s, time_step=r.time_step / 2)
                                for s, r in zip(each, taken, strict=True)]))
    taken = iter(taken)
    return {k: [[next(runs) for _ in SEEDS.get(k, range(1, 5))] for runs in (taken, halved)] for k in cases}


def _mean(runs, name):
    return np.mean([getattr(r, name) for r in runs])


def test_few_flows_see_the_buffer_fill_and_drain(step_study):
    # With ns-3 3.44's classic recovery (the test's sender; b0804d0, seeds
    # 1-4): loss 0.000293 (-8.5 %), queue 323 (+0.3 %), the link busy.  The
    # figures before were measured with ns-3 3.44's PRR (prr-ns3.44) unless
    # said.  e08f405's step (half the RTT, 95 ms: 3900 packets of service against a
    # 434-packet buffer) gave loss 0.00143 (4.5x ns-3) and queue 103 (0.3x).
    # The ACK clock kept within a step and the drain-time step (25 ms) gave
    # loss 0.00028 (-12 %) and queue 296 (-8 %), 8 seeds; with the overflow
    # falling on the trains that meet the full buffer (tests/test_sim_overflow.py)
    # loss 0.000308 (-4 %) and queue 307 (-5 %), 16 seeds; with PRR too
    # 0.000304 (-5 %) and 307 (-5 %).  With the duplicate ACKs counted as
    # they come, 4 seeds: ns-3 3.44's PRR (the test's sender) 0.000351 (+10 %)
    # and 291 (-10 %), RFC 6937's (the default) 0.000305 (-5 %) and 303
    # (-6 %); with the receivers' immediate ACK of out-of-order data, the
    # holes found one after another and a receiver that got nothing of a step
    # holding its ACK, 0.000345 (+8 %) and 276 (-14 %), RFC 6937's 0.000297
    # (-7 %) and 309 (-4 %); with drop-tail's phase effect packet by packet,
    # PRR per ACK and round trips holding the serialization (3819adb, seeds
    # 1-4) 0.000329 (+3 %; seeds 3.03-3.42e-4) and 307 (-5 %), RFC 6937's
    # 0.000300 (-6 %; seeds 2.85-3.11e-4) and 326 (+1 %) (bb89f7d: 0.000335
    # and 301; RFC 6937's 0.000293 and 329).  Bounds: 20 % on loss and 15 % on
    # the queue, the goal's (the queue's was 25 % while it sat at -14 %, the
    # goal's 15 % and a seed's spread of 4 %; now -5 %).
    # On 71a70a0 (decided at the third duplicate ACK's step, before sending), seeds 1-16: loss 0.000292
    # (-8.8 %), queue 329 (+2.0 %); 193afb6 0.000292 and 324.  Since an ACK's SACK blocks delay the packets
    # it releases (AckRing.blocks), seeds 1-16: 0.000292 (-8.8 %) and 325 (+1.0 %); before, on cde67b8,
    # 0.000289 and 324.
    runs = step_study["few flows"][0]
    r = runs[0]
    assert r.time_step == pytest.approx(434 / units.capacity(20e6, 576) / 4)  # a quarter of the buffer's drain
    assert _mean(runs, "loss_rate") == pytest.approx(0.00032, rel=0.2)
    assert _mean(runs, "queue") == pytest.approx(322, rel=0.15)
    assert _mean(runs, "utilization") > 0.99


def _known_miss(key, reason):
    # A goal the simulator misses, measured and explained (strict: a fix shows).
    return pytest.param(key, marks=pytest.mark.xfail(strict=True, reason=reason))


@pytest.mark.parametrize("key", ["few flows", "V1", "V2", "V3", "V4", "motion 10 Mbit/s"])
def test_halving_the_step_moves_loss_and_queue_less_than_5_percent(step_study, key):
    # Issue 12's goal is 5 %, the bound.  V1-V4 run at an eighth of the default step (engine._finer_steps), and
    # halving that step moves loss / queue by -0.8 / +1.6 %, -1.6 / +4.3 %, +0.7 / +4.8 % (V3, 16 seeds: at the
    # bound), +0.8 / +0.7 %; few flows (drop-tail, the default step) +2.4 / -1.3 % (16 seeds), motion 10 Mbit/s
    # (its queue of 26 packets over a fifth of the step's service: the default step) +0.5 / -0.6 %.  Before,
    # at the default step, V3's queue of 6 packets rose with every halving (128 seeds): 5.96, 6.32, 6.83 at the
    # default step, half and a quarter of it (+6.0 %, +8.2 %; ns-3 7.65), a strict expected failure.
    # With classic recovery (the test's
    # sender) on 71a70a0 (4 seeds, V3 128, few flows 16): few flows +4.8 /
    # -2.3 %, V1 +0.2 / +1.2, V2 +0.1 / +3.2, V3 -1.0 / +5.0 (4.97: at the
    # bound), V4 +0.4 / -0.6, motion 10 Mbit/s +0.0 / -2.0.  On b0804d0
    # (4 seeds, V3 128): few flows +3.8 / +1.4 %, V1 -0.2 /
    # -0.8, V2 -1.3 / +3.0, V3 -0.5 / +4.3 (its 6-packet queue; SEEDS), V4
    # -0.7 / -1.0, motion 10 Mbit/s -0.4 / -2.3.  Measured on 94e94b5 (RED spares the
    # arrivals that find at most one packet queued), 4 seeds, half step
    # against default, loss / queue: ns-3 3.44's PRR (the test's sender) few
    # flows +3.8 / -4.3 % (drop-tail: as on 3819adb), V1 +1.2 / -1.1, V2 +4.5 /
    # -0.8, V3 -1.5 / +4.1 (V3's queue of 5.6 packets; over 16 seeds, as the
    # test runs it, -1.0 / +3.1), V4 -0.1 / -0.7, motion 10 Mbit/s -0.2 / -2.6;
    # RFC 6937's PRR (the default) -3.1 / -0.4, +0.4 / -0.7, +0.2 / +2.4, +1.2
    # / +6.6 (16 seeds -0.8 / +1.4), -1.6 / -1.0, -1.0 / -2.0 (3819adb: 3.44's
    # V1 +0.8 / +0.3, V2 +2.2 / -1.4, V3 -2.6 / +7.6 (16 seeds -2.7 / +3.9),
    # V4 +1.0 / -1.9, motion +0.5 / -1.7; RFC 6937's +0.6 / -0.9, -1.0 / +1.9,
    # -4.0 / +3.2, -0.8 / -3.6, +0.7 / -1.8; bb89f7d: 3.44's +2.2 / -1.5, -0.4
    # / -0.8, +2.5 / -1.5, -0.2 / +1.7, -1.2 / -1.4, -0.7 / -2.3).
    # Over 8 seeds at the default step, half and a quarter, ns-3 3.44's PRR:
    # V1 loss +0.5 %, then +0.2 %; V2 +3.7 %, then -0.3 % (loss +18 %, +22 %
    # at a quarter, against ns-3; utilization 0.933, 0.920, 0.919, ns-3 0.950;
    # 3819adb +2.8 %, -2.0 %, +20 %, +21 %, 0.928, 0.914, 0.912; bb89f7d +3.2
    # %, -0.9 %, +21 %, +24 %).
    # At 4e3ebb8 ns-3 3.44's PRR, which lets one packet out per ACK early in
    # recovery, moved V1 and V2 (30 flows, 50 Mbit/s, ~100 ms) beyond the goal's 5 % on
    # loss.  Over 8 seeds at the default step, half and a quarter: V1 loss
    # +5.4 %, then -0.4 %; V2 +8.6 %, then -0.8 %, i.e. settled from half the
    # step on, where V2 reads loss +25 % and utilization 0.913 against ns-3's
    # 0.950 (outside the dynamics goals, which the default step meets: +15 %,
    # 0.936); RFC 6937's PRR V1 +0.6, -0.5 %, V2 +1.3, -1.0 % (0.940, 0.937,
    # 0.936 busy).  It is ns-3 3.44's PRR, not the count: before it (bc21a83, 8 seeds) that PRR moved V2 by
    # +4.9 %, then -1.1 %, 0.932, 0.919, 0.918 busy.  The bound was 10 % then
    # (4 seeds, whose mean's spread is 2-3 %); with PRR per ACK it is the goal's.
    # Before (6557087), with the duplicate ACKs counted as they come, 4 seeds:
    # ns-3 3.44's PRR few flows -3.9 / -1.0 %, V1 +6.4 / -0.5, V2 +8.8 / +0.4,
    # V3 +0.8 / -2.5, V4 +0.7 / +0.7, motion 10 Mbit/s +4.5 / +1.1; RFC 6937's
    # -4.2 / +1.0, +2.0 / -2.5, +0.2 / +1.1, +2.4 / +2.5, -0.9 / -1.4, +1.2 /
    # -2.0; 8 seeds, V1 +6.9 %, then -0.4 %, V2 +8.9 %, then +0.0 % (V2 at half
    # the step +26 %, 0.928 busy); RFC 6937's V1 +1.6, -0.3 %, V2 -0.1, -0.1 %.
    # Earlier engines, 8 seeds (loss / queue): few flows +7.3 / -3.7 %, V1
    # -1.1 / +1.2, V2 -3.2 / +4.2, V3 +0.4 / +3.4, V4 -0.5 / -0.9 %; the 10
    # Mbit/s motion row (4 seeds) -2 / -4 %.  The few flows' loss creeps up as
    # the step shrinks, 16 seeds (+-1 % each), each step against the one
    # before: with a step's drops spread uniformly over its packets 2.77e-4 at
    # the default step (25 ms), +10 % at half, +5 % at a quarter, +7 % at an
    # eighth, +2 % and +3 % at a 16th and a 32nd (3.6e-4, ns-3 3.2e-4), drops
    # per event 1.28 -> 1.58; with the overflow falling on the flows' trains
    # that meet the full buffer (tests/test_sim_overflow.py) 3.08e-4, +2.7 %,
    # +6.2 %, +2.4 %, +4.3 %, -0.9 % (3.55e-4), drops per event 1.44, 1.44,
    # 1.52, 1.54, 1.58, 1.56; queue 307, 295, 287, 291, 286, 285.  With PRR,
    # on the trains 3.04e-4, +2.2 %, +4.0 %, +3.7 %, +1.7 % (3.41e-4 at a
    # 16th), drops per event 1.42, 1.42, 1.43, 1.47, 1.48, queue 307, 295,
    # 282, 279, 273; spread uniformly 2.85e-4, +3.7 % at half, 3.43e-4 at a
    # 16th, drops per event 1.30 -> 1.49.  Events per flow stay (168-179 in
    # 180 s).
    # (The 10 ms reference rows: see the table above the reference tests.)
    default, half = step_study[key]
    for name in ("loss_rate", "queue"):
        assert _mean(half, name) == pytest.approx(_mean(default, name), rel=0.05)


@pytest.mark.parametrize("key", ["V1", "V2", "V3", "V4"])
def test_red_dynamics_keep_the_link_as_busy_as_ns3(step_study, key):
    # Issue 12's goal: utilization within 0.02 of the reference, where RED
    # swings (V2, V3: ns-3 0.950, 0.958) and where it settles (V1, V4: 0.992,
    # 0.992).  At an eighth of the default step (engine._finer_steps; 4 seeds,
    # V3 16): 0.9926, 0.9479, 0.9636, 0.9925; loss -1.3, +0.9, +1.6, -1.1 %;
    # queue -2.3, -5.8, -3.4, -2.6 %.  With classic recovery (the test's sender; b0804d0, 4 seeds, V3
    # 128): 0.9948, 0.9481, 0.9707, 0.9958; loss +2.4, +7.8, +2.3, +0.9 %;
    # queue -4.0, -19.6, -22.2, -1.4 %.  The figures below, with PRR, are from
    # before.  e08f405 idled the link: 0.937, 0.897, 0.833, 0.964.  Measured
    # before the duplicate ACKs were counted as they come (8 seeds, PRR):
    # 0.994, 0.941, 0.967, 0.995; loss +5, +12, +7, +3 %; queue -3, -22, -27,
    # -3 % (RFC 6675 recovery: 0.995, 0.943, 0.967, 0.995; +4, +12, +4, +3 %;
    # -3, -21, -24, -3 %).  Counted as they come, 4 seeds, with ns-3 3.44's
    # PRR (the test's sender): 0.992, 0.940, 0.962, 0.993; loss +8, +15, +14,
    # +11 %; queue -4, -21, -26, +2 %; with RFC 6937's PRR (the default):
    # 0.995, 0.943, 0.966, 0.995; +4, +12, +4, +4 %; -3, -20, -27, -2 %.  With
    # the receivers' immediate ACK of out-of-order data, the holes found one
    # after another and a receiver that got nothing of a step holding its
    # ACK, 4 seeds: ns-3 3.44's PRR 0.993, 0.936, 0.956, 0.992; loss +6, +15,
    # +12, +9 %; queue -4, -22, -27, +0 %; RFC 6937's 0.994, 0.942, 0.967,
    # 0.994; +5, +11, +4, +3 %; -3, -22, -27, -2 % (8da7df5: 3.44's 0.993,
    # 0.938, 0.958, 0.992; +7, +15, +9, +8 %; RFC 6937's 0.994, 0.944, 0.970,
    # 0.995; +5, +11, +5, +3 %).
    # On 3819adb (PRR once per ACK where a flow's ACKs share a step, round
    # trips holding the serialization), 4 seeds: ns-3 3.44's PRR 0.988, 0.929,
    # 0.952, 0.991; loss +10, +21, +12, +7 %; queue -8, -24, -32, -0 %; RFC
    # 6937's 0.993, 0.939, 0.965, 0.995; +4, +11, +7, +2 %; -5, -23, -29, -2 %
    # (bb89f7d: 3.44's 0.989, 0.930, 0.957, 0.989; +12, +22, +9, +9 %; -7,
    # -24, -29, -0 %).  On 94e94b5 (RED spares the arrivals that find at most
    # one packet queued, as ns-2's and ns-3's RED do), 4 seeds (V3 16, as the
    # test runs it): ns-3 3.44's PRR 0.989, 0.935, 0.959, 0.991; loss +9, +17,
    # +10, +7 %; queue -7, -22, -28, +1 %; RFC 6937's 0.994, 0.944, 0.970,
    # 0.993; +4, +11, +5, +3 %; -5, -21, -24, -1 %.  V2 met neither goal with
    # ns-3 3.44's PRR before (a strict expected failure): +21.0 % and 0.929 on
    # 3819adb, +21.7 % and 0.930 on bb89f7d, after PRR came to be taken once
    # per ACK where a flow's ACKs share a step (f81fa5f and 4e3ebb8, PRR once
    # per step, read 0.936 and +15.0 %; V1 0.993, +5.9 %).  An ns-3 3.44
    # replica of V2 as the reference describes it reads 3.98-4.04e-3 (seeds
    # 1-4, 100 s), 15 % above the row itself; not a low draw, as was thought:
    # the references ran ns-3's classic recovery, with which the replica reads
    # 3.47e-3 and 3.43e-3 (seeds 1-2), and with which the simulator now runs
    # these rows.
    # Loss within 20 % (the goal); the queue in the next test.
    runs, ref = step_study[key][0], DYNAMICS[key][1]
    assert _mean(runs, "utilization") == pytest.approx(ref["utilization"], abs=0.02)
    assert _mean(runs, "loss_rate") == pytest.approx(ref["drop_rate"], rel=0.2)


@pytest.mark.parametrize("key", ["V1", "V2", "V3", "V4"])
def test_red_dynamics_queue_within_30_percent_of_ns3(step_study, key):
    # Not a goal of issue 12, a check of the swing: the queues of 5-27 packets
    # within 30 %.  At an eighth of the default step (engine._finer_steps; V3 16
    # seeds): -2.3, -5.8, -3.4, -2.6 %.  With classic recovery (b0804d0; V3 128 seeds): -4.0, -19.6,
    # -22.2, -1.4 %; before, with PRR, measured on 94e94b5, ns-3 3.44's PRR, 4 seeds (V3 16): -7,
    # -22, -28, +1 % (RFC 6937's PRR -5, -21, -24, -1 %; 3819adb -8, -24, -31,
    # -0 %, V3 then a strict expected failure; bb89f7d -7, -24, -29, -0 %).  V2
    # and V3 swing and sit low; V3's is 5 packets.  What is left of it: the
    # fluid queue, paced within a step, holds nothing below full load, where
    # ns-3's unpaced senders' bursts keep packets queued (ns-3 3.44, V3 seed 1:
    # 7.96 packets unpaced, 5.80 with TCP pacing at an unchanged utilization,
    # 0.952 and 0.954; the 50 ms steps' fluid queue fed ns-3's own arrivals
    # holds 2.3 of the 7.96).
    runs, ref = step_study[key][0], DYNAMICS[key][1]
    assert _mean(runs, "queue") == pytest.approx(ref["avg_queue"], rel=0.3)


def test_v3s_queue_of_a_few_packets_runs_at_an_eighth_of_the_step(step_study):
    # V3 (10 flows, RED 5/217/0.02, 200 ms) runs below full load with a queue of 7.65 packets (ns-3), which
    # the default step's fluid service (108 packets a step) holds only in part: the engine runs it again at an
    # eighth of the step (engine._finer_steps).  At the default step and a quarter (seeds 1-8; 82245ae) the
    # queue read 6.02 and 6.85 (-21, -11 %), busy 0.971 and 0.966; at the eighth (seeds 1-16) 7.40 (-3 %),
    # loss 4.17e-4 (+2 %; ns-3 4.10e-4), busy 0.964 (ns-3 0.958).  Bounds: issue 12's goals (20 %, 15 %, 0.02).
    base, ref = DYNAMICS["V3"]
    runs = step_study["V3"][0]
    assert all(r.time_step == base.step / 8 for r in runs)
    assert _mean(runs, "queue") == pytest.approx(ref["avg_queue"], rel=0.15)
    assert _mean(runs, "loss_rate") == pytest.approx(ref["drop_rate"], rel=0.2)
    assert _mean(runs, "utilization") == pytest.approx(ref["utilization"], abs=0.02)


@pytest.mark.parametrize("key", [
    "motion 10 Mbit/s",
    _known_miss("motion 100 Mbit/s", (
        "0.727 against the issue's 1.000 (seeds 1-4, ns-3 3.44's classic recovery), at an eighth of the default "
        "step, where a queue of 3.6 packets against 128 packets of service sends it (engine._finer_steps), and "
        "0.708 at half that: an ns-3 3.44 replica of this set-up reads 0.731 (tests/test_sim_replica_grid.py), "
        "so the issue's 1.000 is not reproduced under the references' conventions (see below; issue 12)"))])
def test_red_motion_keeps_the_link_busy_at_any_step(step_study, key):
    # Issue 12's goal: utilization within 0.02 of ns-3's, and a halved step
    # must not move it.  Since a RED queue of a few packets runs at an eighth
    # of the default step (engine._finer_steps; seeds 1-4): 10 Mbit/s 0.9992
    # and 0.9989 at half (its default step), 100 Mbit/s 0.727 and 0.708 (loss
    # 1.12e-4, +8.4 % at half).  With classic recovery (the test's sender; b0804d0,
    # seeds 1-4): 10 Mbit/s 0.9995 and 0.9988 at half the step, 100 Mbit/s
    # 0.953 and 0.880 (loss 2.5e-5, 4.9e-5).  Before, with PRR: measured on 94e94b5 (RED spares the arrivals that
    # find at most one packet queued), seeds 1-4: ns-3 3.44's PRR 10 Mbit/s
    # 0.999 at the default step and at half, 100 Mbit/s 0.970 and 0.932 (loss
    # 2.1e-5, 3.2e-5); RFC 6937's PRR 0.999, 0.999 and 0.975, 0.951 (1.9e-5,
    # 2.6e-5) (3819adb: 3.44's 0.999, 0.998, 0.969, 0.920, loss 2.1e-5,
    # 3.6e-5; RFC 6937's 0.999, 0.999, 0.972, 0.951; bb89f7d: 3.44's 0.962,
    # 0.919; RFC 6937's 0.974, 0.952).  With the duplicate ACKs
    # counted as they come, before them: 3.44's 0.999, 0.999, 0.968, 0.919
    # (loss 2.1e-5, 3.6e-5); RFC 6937's 0.999, 0.999, 0.973, 0.950.  Before (4 seeds,
    # seed spread of the mean <= 0.016),
    # with PRR fast recovery (the default): 10 Mbit/s 0.999 at the default
    # step (47.5 ms), at half and at an eighth.  100 Mbit/s (step 5.9 ms):
    # 0.975, 0.955 at half, 0.884 at an eighth (loss 1.8e-5, 2.4e-5, 4.5e-5;
    # queue 2.4-3.2 packets); with RFC 6675 recovery (3b8b062) 0.940, 0.857,
    # 0.729 (loss 2.9e-5 to 1.1e-4), and 0.72 at a sixteenth (2 seeds, an
    # earlier engine): the link idles more the finer the step, with the queue
    # at 2-3 packets, i.e. RED's average near min_th.  The same at 40 and 60
    # flows and 200 ms (40 flows, RFC 6675: 0.905, 0.808, 0.667).  It is
    # min_th: with min_th 50 (or 1500-byte packets, min_th 2.3 ms of service)
    # the utilization is 0.994 (0.967) at both steps, and with equal RTTs (no
    # spread) 0.975 at both (RFC 6675).  With PRR: min_th 50 0.994, 0.991,
    # 0.995 at the default, half and eighth step; equal RTTs 0.979, 0.980,
    # 0.979 (the step-dependent part is the unequal RTTs' trains; 0.02 stays
    # at any step); without delayed ACKs 0.970, 0.925, 0.860; ns-3's 64 KB
    # window of 536-byte segments (122 packets, not 113) 0.973, 0.948, 0.874.
    # Why (measured on aab4275, 40-80 s runs, seed 1 unless said): each
    # flow's packets travel as a train (slow start and fast recovery pack
    # them at the access rate).  The ring splits a step's ACKs between two
    # steps in proportion, which widens a train by about half a step per
    # round trip: 4 loss-free flows' trains (90 % of the window) span 12-59
    # ms at 5 s, 30-89 ms at 10 s at the 5.9 ms step, but 9-10 ms at 5 s and
    # 30-76 ms at 80 s at 0.74 ms.  Dense trains with unequal RTTs drift into
    # each other and RED's average crosses min_th: a flow's arrivals in 25 ms
    # bins have variance 91 (mean 24) at the default step, 424 (mean 19) at
    # an eighth.  Sending each flow's ACKs whole to one of the two steps (a
    # fixed draw per flow: trains stay rigid, but each RTT is rounded to
    # whole steps) gives 0.735, 0.815, 0.741 (4 seeds, 140 s): the step's
    # smoothing held 0.93.  ns-3 3.44's default recovery is PRR (RFC 6937),
    # which spreads the halved window over the round trip, where RFC 6675
    # recovery sends it in the second half and so packs the train again: PRR
    # closes about half of the gap at every step (above), the rest is the
    # trains' collisions as the step resolves them.
    # An ns-3 3.44 replica of this row (measured from fd5b793; a dumbbell with
    # RedQueueDisc 5/217/0.02, Wait off, 536-byte segments, 64 KB window,
    # 1-packet device queue, RTT +-5 %, statistics over [40, 100] s) matches
    # the dynamics references V3 and V4 (utilization 0.958, 0.991; loss 4.3e-4,
    # 2.81e-3; queue 7.2, 21.5; against 0.958, 0.992, 4.1e-4, 2.68e-3, 7.7,
    # 20.6) and gives at 10 Mbit/s 0.998 with the queue empty 1.0 % of the time
    # (the figures for that row), but at 100 Mbit/s 0.706, 0.735, 0.718
    # (seeds 1-3; loss 1.2-1.3e-4, queue 3.7-3.8); equal RTTs 0.950 (loss 4e-5),
    # 1500-byte packets 0.947, a 128 KB window 0.827, RED's automatic weight
    # (ns-3's QW -1: 1 - exp(-1/C), 4.6e-5 here; seed 1, 140 s, 5bf4a6a) 0.833
    # against 0.730 with 0.002 (at 10 Mbit/s, 4.6e-4: 0.9988).  Only ns-3's default
    # 100-packet device queue gives ~1 (0.996, loss 2e-5), and it misses the
    # 10 Mbit/s row (1.000, empty 12.7 %).  The simulator on this row (seeds
    # 1-2, 100 s; seed 1 from 1/16) at x1, 1/2, 1/8, 1/16, 1/32, 1/64 of the
    # step: 0.965, 0.955, 0.873, 0.850, 0.830, 0.811, loss 2.1e-5 ... 7.2e-5:
    # a finer step moves toward the replica, not away from the packet level
    # (and even at 1/64, 2 packets of service a step, it drops about half of
    # ns-3's rate: a gap the step does not close); equal RTTs 0.969-0.975 at
    # x1 ... 1/32; 1500-byte packets 0.985, 0.982, 0.972, 0.964 (x1/32).  Two
    # ACK-ring variants tried (not kept): each step's ACKs whole into one row
    # at a per-slot sub-step phase gives 0.840, 0.882, 0.840, 0.824 (flat) but
    # 0.985 at 10 Mbit/s' default step (whole-step lumps idle the link); each
    # slot's sub-step arrival interval, split by overlap, 0.960, 0.873, 0.823.
    # So the trains' diffusion in the ring is not the main cause; the remaining
    # candidate (not isolated) is the step's fluid service, which judges a
    # step's arrivals as evenly interleaved.
    # On 82245ae the gap closes: the step series (seeds 1-4) reads 0.916, 0.811,
    # 0.760 at x1, 1/2, 1/4 and 0.716, 0.704, 0.694 at 1/8, 1/16, 1/32 (seeds
    # 1-2), loss 3.5e-5 rising to 1.3e-4, against the replica's 0.731 and 1.10e-4
    # with the references' classic recovery (validation/ns3_motion.csv, seeds
    # 1-4): with the replica's own 122-packet window the simulator meets every
    # goal at an eighth of the step (tests/test_sim_replica_grid.py), as it does
    # on V3 and on the grid's 5-flow RED row, the two other rows below full load.
    default, half = step_study[key]
    ref = MOTION[key][1]
    assert _mean(default, "utilization") == pytest.approx(ref, abs=0.02)
    assert _mean(half, "utilization") == pytest.approx(_mean(default, "utilization"), abs=0.02)
