"""The default step's caps where windows are small: a quarter of a flow's packet spacing, 0.49 of its access link's."""

import dataclasses
import importlib.util
import pathlib

import numpy as np
import pytest
from ns3_references import ROWS

from tcpmodels import TCPModelsWarning, sim
from tcpmodels.sim.scenario import ACCESS_SHARE, SMALL_WINDOW

C20 = 20e6 / (8 * 576)  # 20 Mbit/s of 576-byte packets [packets/s]: 4340.28


def _dumbbell(n_flows, rtt, bandwidth, buffer, queue=None, **kw):
    # findings_tout80.md's set-ups (ns-3 replica's dumbbell): RTTs on rtt * [0.8, 1.2], access links at
    # max(10 C / N, 1 Mbit/s), RFC 6937's PRR (the default).
    return sim.Scenario(n_flows=n_flows, bandwidth=bandwidth, rtt=rtt, rtt_spread=0.4, packet_size=576,
                        queue=queue or sim.DropTail(buffer=buffer), sender=sim.NewReno(sack=True),
                        access_rate=max(10 * bandwidth / n_flows, 1e6), start_spread=10.0, duration=100.0,
                        warmup=20.0, **kw)


def _queue_rule(s):
    # The step without the cap: a quarter of drop-tail's drain time, half of RED's, within [RTT/16, RTT/2].
    share = 0.5 if isinstance(s.queue, sim.RED) else 0.25
    return min(s.min_rtt / 2, max(share * s.drain_time, s.min_rtt / 16))


def test_small_windows_cap_the_step_at_a_quarter_of_a_flows_packet_spacing():
    # 80 flows, 20 Mbit/s, 50 ms (RTT 40-60 ms), drop-tail 250: the buffer drains in 250 / C = 57.6 ms, so a
    # flow's window tops out at C (0.05 + 0.0576) / 80 = 5.84 packets; the queue rule's 14.4 ms becomes
    # 80 / (4 C) = 4.608 ms.
    s = _dumbbell(80, 0.05, 20e6, 250)
    assert s.drain_time == pytest.approx(250 / C20) and s.top_window == pytest.approx(5.838, abs=1e-3)
    assert _queue_rule(s) == pytest.approx(0.0144) and s.step == pytest.approx(0.004608)
    # The same with random drop, which drops by overflow too.  RED with max_th 250 has the same top but keeps
    # its rule's 20 ms (28.8 ms over the RTT/2 ceiling): its early drops did not depend on the step (measured on
    # 3819adb, seeds 1-3: time-outs per packet 1.04 times a 1.5 ms step's at 20 ms, 1.07 at 4.6 ms; 94e94b5
    # 1.05 and 1.07; Scenario.step).
    assert dataclasses.replace(s, queue=sim.RandomDrop(buffer=250)).step == s.step
    for queue in (sim.RED(min_th=5, max_th=250, max_p=0.1), sim.CHOKe(min_th=5, max_th=250, max_p=0.1)):
        red = dataclasses.replace(s, queue=queue)
        assert red.top_window == s.top_window and red.step == _queue_rule(red) == pytest.approx(0.02)
    # 60 flows, 20 Mbit/s, 80 ms, drop-tail 300: top 10.79 packets, spacing / 4 = 3.456 ms, under the
    # RTT/16 floor of 64 ms / 16 = 4 ms, which holds (the queue rule gave 300 / (4 C) = 17.28 ms).
    s = _dumbbell(60, 0.08, 20e6, 300)
    assert s.top_window == pytest.approx(10.79, abs=0.01)
    assert _queue_rule(s) == pytest.approx(0.01728) and s.step == pytest.approx(0.004)


def test_large_windows_and_long_spacings_keep_the_queue_rule():
    # 20 drop-tail flows at 10 Mbit/s, 10 ms, 500 packets: top C (0.01 + 0.2304) / 20 = 26 packets >= 16,
    # so the step stays RTT/2 = 4 ms although a flow's spacing / 4 is 2.3 ms.
    s = ROWS["droptail500-N20"][0]
    assert s.top_window == pytest.approx(26.1, abs=0.1) and SMALL_WINDOW == 16
    assert s.n_flows / (4 * s.capacity) < s.step == 0.004
    # 1000 flows, 10 Mbit/s, 100 ms, RED 217 (the benchmark's standard case): tiny windows (0.43 packets),
    # but a flow's spacing / 4 (115 ms) is longer than the queue rule's 45 ms, which holds.
    big = sim.Scenario(n_flows=1000, bandwidth=10e6, rtt=0.1, queue=sim.RED(min_th=5, max_th=217, max_p=0.02))
    assert big.top_window < 1 and big.step == _queue_rule(big) == pytest.approx(0.045)
    # Windows that cannot fill the link (10 packets x 2 flows < 195 in the pipe) leave no queue: RTT/2.
    idle = sim.Scenario(n_flows=2, bandwidth=10e6, rtt=0.1, sender=sim.Reno(max_window=10),
                        queue=sim.DropTail(buffer=100))
    assert idle.drain_time == np.inf and idle.top_window == 10 and idle.step == pytest.approx(0.045)


def _bench_cases():
    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_sim.py"
    spec = importlib.util.spec_from_file_location("bench_sim", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return {"few-flows": bench.few_flows(), "standard": bench.standard()}


# The 10 ms drop-tail rows whose 1 Mbit/s access links take 4.6 ms to send a packet, one to two of the queue
# rule's 4 ms steps: Scenario.step's access-link rule runs them at 0.49 of that packet time.
ACCESS_RULE_ROWS = ("droptail500-N100", "droptail500-N150", "droptail500-N200")


@pytest.mark.parametrize("key", [*sorted(ROWS), "few-flows", "standard"])
def test_the_cap_binds_on_no_reference_row_or_benchmark_case(key):
    # Every 10 ms reference row (windows of 1-104 packets) and the benchmark's cases run at the queue rule's
    # step, bit for bit: the cap binds nowhere there (top window >= 16 or spacing / 4 >= the step); the
    # drop-tail rows at 100-200 flows at the access-link rule's instead (ACCESS_RULE_ROWS).
    s = ROWS[key][0] if key in ROWS else _bench_cases()[key]
    assert s.step == (ACCESS_SHARE * 576 * 8 / 1e6 if key in ACCESS_RULE_ROWS else _queue_rule(s))


def test_access_links_of_one_to_two_steps_a_packet_set_the_step_under_half_their_packet_time():
    # 200 drop-tail flows at 10 Mbit/s, 10 ms, 500 packets (top window 2.6): a 1 Mbit/s access link sends a
    # packet in 4.6 ms, 1.15 of the queue rule's 4 ms step, so a burst's next packet would reach the
    # bottleneck in the next step; the step is 0.49 of 4.6 ms, two steps a packet (Scenario.step).
    s = ROWS["droptail500-N200"][0]
    packet_time = 576 * 8 / 1e6
    assert _queue_rule(s) == 0.004 and s.step == ACCESS_SHARE * packet_time == pytest.approx(0.00225792)
    # Not where the access link sends a packet within the step (2 Mbit/s: a burst shares a step), nor where it
    # takes two steps or more (0.5 Mbit/s), nor with RED (the spacing cap's conditions), nor at 20 flows (top
    # window 26 packets).
    for other in (dataclasses.replace(s, access_rate=2e6), dataclasses.replace(s, access_rate=0.5e6),
                  dataclasses.replace(s, queue=sim.RED(min_th=5, max_th=500, max_p=0.02)),
                  dataclasses.replace(s, n_flows=20)):
        assert other.step == _queue_rule(other) == 0.004


def test_a_chosen_step_longer_than_a_flows_spacing_warns_of_time_outs_where_windows_are_small():
    s = _dumbbell(80, 0.05, 20e6, 250)  # spacing 80 / C = 18.4 ms
    with pytest.warns(TCPModelsWarning, match=r"time_step: 0.02 s is longer than a flow's packet spacing "
                                              r"\(0.0184 s.*5.84 packets.*time-outs per packet will read low"):
        dataclasses.replace(s, time_step=0.02)
    dataclasses.replace(s, time_step=0.015)  # shorter than the spacing: no warning (errors here otherwise)
    # Large windows: 8 ms, 3.5 times the spacing of 5 flows at 10 Mbit/s but with 104-packet windows, no warning.
    few = ROWS["droptail500-N5"][0]
    assert few.top_window > 100 and 0.008 > 3 * few.n_flows / few.capacity
    dataclasses.replace(few, time_step=0.008)


# Slow: with the cap, the default step's time-outs per packet come near a 3x finer step's, and its loss within
# 5 %.  Measured on 3819adb (this rule, 100 s; old = the queue rule without the cap; t/o per packet at seeds 1/2/3):
#   80 flows, 20 Mbit/s, 50 ms, drop-tail 250 (ns-3: 6.3e-4, loss 0.0199): old 14.4 ms 3.37/3.00/3.37e-4, cap
#     4.6 ms 4.24/4.58/3.99e-4, 1.5 ms 6.05/6.07/5.68e-4; loss 0.0185/0.0187/0.0186 at the cap, 0.0187/0.0191/
#     0.0185 at 1.5 ms (old 0.0173/0.0180/0.0177).
#   40 flows, 10 Mbit/s, 50 ms, drop-tail 100: old 11.5 ms 6.87/7.77/6.82e-4, cap 4.6 ms 9.40/8.83/8.83e-4,
#     1.5 ms 12.2/12.5/11.1e-4; loss 0.0228/0.0231/0.0230 at the cap, 0.0226/0.0231/0.0227 at 1.5 ms.
# Over seeds 1-2 the cap keeps 0.73 (80 flows) and 0.74 (40 flows) of the fine step's time-outs, the old rule
# 0.53 and 0.59 (60 flows, 80 ms, drop-tail 300: 1.05 and 0.30; 21ce6ba, before the serialization: the cap 0.75
# and 0.80, the old rule 0.51 and 0.56); one seed's ratio ranges 0.70-0.80 (80 and 40 flows, seeds 1-3), so two
# seeds pooled stay above 0.6 with a margin, and 0.6 fails the old rule (narrowly at 40 flows).  Loss: the cap is
# within -1.9 ... +1.5 % of the fine step at every seed (the seeds spread by 2-3 %), the old rule 1-8 % below it.
# (At 60 flows the cap's loss is +2 ... +5 % above 1.5 ms's, +4.0 % over three seeds, and nearer ns-3's 0.00924
# than either: not asserted here.)
TPP_RATIO = 0.6


@pytest.mark.slow
@pytest.mark.parametrize("setup", [(80, 0.05, 20e6, 250), (40, 0.05, 10e6, 100)], ids=["80-flows", "40-flows"])
def test_the_capped_step_keeps_most_of_a_finer_steps_time_outs(setup):
    s = _dumbbell(*setup)
    assert s.step == pytest.approx(0.004608)
    runs = sim.simulate([*(dataclasses.replace(s, seed=k) for k in (1, 2)),
                         *(dataclasses.replace(s, seed=k, time_step=0.0015) for k in (1, 2))])
    tpp = np.array([r.timeouts_per_packet for r in runs]).reshape(2, 2).sum(axis=1)
    loss = np.array([r.loss_rate for r in runs]).reshape(2, 2).sum(axis=1)
    assert tpp[0] > TPP_RATIO * tpp[1]
    assert loss[0] == pytest.approx(loss[1], rel=0.05)
