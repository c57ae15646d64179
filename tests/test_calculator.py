"""The sizing calculator: it joins the models, renders tc / ns-3 settings and invents no model."""

import json
import math
import pathlib
import warnings

import numpy as np
import pytest

from tcpmodels import TCPModelsWarning, calculator, data, droptail, fpq, hstcp, red, scenario_file, sim, tcp, units
from tcpmodels.calculator import kernel

STANDARD = dict(bandwidth=10e6, rtt=0.1, packet_size=576)  # Morris (1999), Fig. 3.2
EXAMPLES = pathlib.Path(__file__).parents[1] / "tcpmodels" / "examples"


@pytest.fixture(scope="module")
def standard_red():
    return calculator.red_setting(n_flows=300, loss_rate=0.02, **STANDARD)


# ----------------------------------------------------------------------------- tc rendering

def test_tc_red_eval_ewma_matches_tc_red_man_page_example():
    # tc-red(8): min 30000 max 90000 avpkt 1000 burst 55.  a = 55 + 1 - 30 = 26;
    # W = 2^-5: (1 - (1 - W)^55) / W = 26.4 >= 26, W = 2^-4 gives 15.5 < 26.
    assert kernel.tc_red_eval_ewma(30000, 55, 1000) == 5


@pytest.mark.parametrize("min_bytes, burst, avpkt", [(2880, 170, 576), (2880, 722, 576), (30000, 55, 1000),
                                                     (1500, 2, 1500)])
def test_tc_red_eval_ewma_is_the_smallest_that_meets_the_burst_condition(min_bytes, burst, avpkt):
    # iproute2 tc_red_eval_ewma: smallest Wlog with burst + 1 - min/avpkt <= (1 - (1 - W)^burst) / W.
    def fits(wlog):
        w = 2.0**-wlog
        return burst + 1 - min_bytes / avpkt <= (1 - (1 - w) ** burst) / w

    wlog = kernel.tc_red_eval_ewma(min_bytes, burst, avpkt)
    assert fits(wlog)
    assert wlog == 1 or not fits(wlog - 1)


def test_tc_red_eval_ewma_refuses_what_tc_refuses():
    assert kernel.tc_red_eval_ewma(30000, 3, 1000) == -1   # 3 + 1 - 30 < 1: "burst too small"


def test_tc_red_line():
    t = calculator.tc_red(5, 500, 0.02, 576, 10e6, dev="eth0")
    # Thresholds in bytes: 5 * 576 and 500 * 576; limit 4 * max; burst (2*2880 + 288000) // (3*576).
    assert (t.min, t.max, t.limit, t.avpkt, t.burst) == (2880, 288000, 1152000, 576, 170)
    assert t.command == ("tc qdisc add dev eth0 root red limit 1152000 min 2880 max 288000 avpkt 576 "
                         "burst 170 probability 0.02 bandwidth 10mbit")
    assert t.weight == 2.0**-t.ewma_log == 2.0**-12
    assert "too large" in t.notes[0]      # tc warns from Wlog 10 on; the calculator says so
    # tc-red(8)'s example thresholds: min 30000, max 90000, avpkt 1000 -> burst 50, Wlog 5, no warning.
    small = calculator.tc_red(30, 90, 0.02, 1000, 10e6)
    assert (small.burst, small.ewma_log, small.notes) == (50, 5, ())


@pytest.mark.parametrize("call, match", [
    (lambda: calculator.max_threshold(7500, -1), "max_p"),                 # counted down forever
    (lambda: calculator.max_threshold(7500, math.nan), "max_p"),
    (lambda: calculator.max_threshold(-1, 0.1), "min_bytes"),
    (lambda: calculator.tc.min_probability(0, 2**31), "max_bytes"),        # counted up forever
    (lambda: calculator.tc.min_probability(500, 400), "max_bytes"),
    (lambda: calculator.tc_rate(math.inf), "bandwidth"),                   # OverflowError
    (lambda: calculator.tc_rate("10"), "bandwidth"),                       # TypeError
    (lambda: calculator.tc_red(math.inf, 200, 0.1, 1500, 10e6), "min_th"),   # OverflowError
    (lambda: calculator.tc_red(5, 200, 0.1, 1500, math.inf), "bandwidth"),
    (lambda: calculator.tc_red(5, 200, 0.1, 1500, 10e6, ecn="false"), "ecn must be True or False"),  # was true
    (lambda: calculator.tc_red(5, 200, 0.1, 1500, 10e6, adaptive="false"), "adaptive must be True or False"),
    (lambda: calculator.ns3_red(5, 200, 0.1, 0.002, 1500, 800, 10e6, gentle="false"), "gentle must be True"),
    (lambda: calculator.red_setting(10e6, 0.1, 300, loss_rate=0.02, gentle="no"), "gentle must be True"),
    (lambda: calculator.red_setting(np.array([]), 0.1, 300, loss_rate=0.02), "bandwidth must be a single"),
    (lambda: calculator.link([], 0.1), "bandwidth must be a single number"),  # TypeError
    (lambda: calculator.link(0.5, 0.1), "bandwidth"),                      # 8 bit/s, as tc's lines need
    (lambda: calculator.link(10e6, 1e-303), "rtt"),
    (lambda: calculator.hstcp_table(window=5.0), "window must be a pair"),  # TypeError
    (lambda: calculator.hstcp_table(loss_rate=0.01), "loss_rate must be a pair"),
    (lambda: calculator.fpq_setting(1e9, 0.05, 20000, ppf=math.inf), "ppf"),   # OverflowError
    (lambda: calculator.fpq_setting(1e9, 0.05, 20000, ppf=1e300), "ppf"),      # ZeroDivisionError
    (lambda: calculator.fpq_setting(1e9, 0.05, 20000, bits=10**41), "bits must be at most"),
    (lambda: calculator.fpq_setting(1e9, 0.05, 20000, t_clear=1e-303), "t_clear must be at least the round trip"),
    (lambda: calculator.droptail_sizing(10e6, 0.1, 30, buffer=0.5), "buffer must be a whole number"),  # 1 packet
    (lambda: calculator.droptail_sizing(10e6, 0.1, 30, buffer=2.5), "buffer must be a whole number"),  # 3 packets
])
def test_bad_input_is_a_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_tc_red_limit_and_bad_settings():
    assert calculator.tc_red(5, 500, 0.02, 576, 10e6, limit=400000).limit == 400000
    with pytest.raises(ValueError, match="max_p"):
        calculator.tc_red(5, 500, 1.0, 576, 10e6)      # tc reads probability 1.0 back as 0.5
    with pytest.raises(ValueError, match="max_th .* must be above min_th"):
        calculator.tc_red(50, 40, 0.02, 576, 10e6)
    with pytest.raises(ValueError, match="limit"):
        calculator.tc_red(5, 500, 0.02, 576, 10e6, limit=1000)


@pytest.mark.parametrize("rate, text", [(10e6, "10mbit"), (1e9, "1gbit"), (500e3, "500kbit"),
                                        (2.5e9, "2500mbit"), (64, "64bit")])
def test_tc_rate_round_trips_through_the_parser(rate, text):
    assert calculator.tc_rate(rate) == text
    assert units.parse_rate(text) == rate


def test_ns3_attributes():
    n = calculator.ns3_red(5, 500, 0.02, 2.0**-12, 576, 2000, 10e6, ecn=True)
    assert (n.MinTh, n.MaxTh, n.LInterm, n.QW, n.MeanPktSize, n.MaxSize) == (5, 500, 50, 2.0**-12, 576, "2000p")
    assert n.Gentle is False and n.Wait is False and n.UseEcn is True and n.UseHardDrop is True
    assert len(n.code.splitlines()) == 12
    assert 'Config::SetDefault ("ns3::RedQueueDisc::Gentle", BooleanValue (false));' in n.code
    assert 'Config::SetDefault ("ns3::RedQueueDisc::LinkBandwidth", DataRateValue (DataRate ("10000000bps")));' \
        in n.code


# ----------------------------------------------------------------------------- RED

def test_red_target_loss_follows_section_5_3_4(standard_red):
    s = standard_red
    sized = red.size(300, 0.02, 0.1)
    # max_th = 3/2 n pif(l, r), rounded up to a whole packet; max_p = 3/4 l.
    assert s.max_th == math.ceil(sized.max_th)
    assert s.max_th == pytest.approx(1.5 * 300 * tcp.packets_in_flight(0.02, 0.1), abs=1)
    assert s.max_p == pytest.approx(0.015)
    assert (s.rule, s.min_th, s.model, s.target_loss) == ("target-loss", 5.0, "P3", 0.02)


def test_red_predictions_are_the_models(standard_red):
    s = standard_red
    lk = s.link
    n = np.array([p.n_flows for p in s.sweep])
    eq = red.equilibrium(n, s.max_th, s.max_p, model="P3", rtt=0.1, capacity=lk.capacity, min_th=5)
    np.testing.assert_allclose([p.loss_rate for p in s.sweep], eq.loss_rate)
    np.testing.assert_allclose([p.queue for p in s.sweep], eq.queue)
    np.testing.assert_allclose([p.timeouts_per_packet for p in s.sweep], eq.timeouts_per_packet)
    np.testing.assert_allclose([p.timeout_fraction for p in s.sweep], eq.timeout_fraction)
    np.testing.assert_allclose([p.delay for p in s.sweep], eq.queue / lk.capacity)
    np.testing.assert_allclose([p.queue_per_flow for p in s.sweep], eq.queue / n)
    assert s.prediction.n_flows == 300 and s.prediction in s.sweep


def test_red_sweep_spans_a_quarter_to_four_times_and_finds_the_break():
    s = calculator.red_setting(n_flows=300, loss_rate=0.02, max_delay=1.0, **STANDARD)
    flows = [p.n_flows for p in s.sweep]
    assert flows[0] == 75 and flows[-1] == 1200 and flows == sorted(flows)
    # At 4N the queue RED was sized for 300 flows cannot hold the windows: it pins at max_th.
    assert s.sweep[-1].status == "forced drops"
    assert s.prediction.status == "ok"
    lo, hi = s.ok_range
    assert lo <= 300 <= hi


def test_status_weighs_queueing_delay(standard_red):
    # The thesis' setting queues 1394 packets (642 ms) at 300 flows: above the default 100 ms.
    assert standard_red.prediction.delay == pytest.approx(0.642, abs=0.001)
    assert standard_red.prediction.status == "long delay"
    assert calculator.MAX_DELAY == 0.1


@pytest.mark.parametrize("n_flows, max_th, max_p, max_delay, status", [
    (300, 1000, 0.5, 0.1, "time-outs"),          # max_p far too high: 12 % loss, 0.4 packets per flow queued
    (10, 2000, 0.001, 1.0, "excess queue"),      # max_p far too low: 29 packets per flow queued
    (10, 2000, 0.001, 0.1, "long delay"),        # ... which is 134 ms of queue: above 100 ms first
    (1200, 2156, 0.015, 0.1, "forced drops"),    # 4x the design load: the average queue reaches max_th
    (300, 2156, 0.015, 1.0, "ok"),
])
def test_status_says_how_a_setting_breaks(n_flows, max_th, max_p, max_delay, status):
    p, = calculator.predict(calculator.link(10e6, 0.1, 576), n_flows, 5, max_th, max_p, max_delay=max_delay)
    assert p.status == status


def test_red_renderings_use_the_same_numbers(standard_red):
    s = standard_red
    assert (s.tc.min, s.tc.max, s.tc.avpkt) == (5 * 576, int(s.max_th) * 576, 576)
    assert s.tc.probability == s.max_p and s.ns3.LInterm == pytest.approx(1 / s.max_p)
    assert s.ns3.QW == s.tc.weight == s.weight and s.ns3.MaxTh == s.max_th
    assert s.ns3.MaxSize == f"{s.tc.limit // 576}p" and s.ns3.LinkBandwidth == "10000000bps"
    assert any("gentle" in text for text in s.limitations)
    assert any("flow count" in text for text in s.limitations)


def test_red_fixed_buffer_rule():
    s = calculator.red_setting(n_flows=100, buffer=1000, **STANDARD)
    assert s.rule == "fixed-buffer" and s.max_th == 1000
    assert s.max_p == pytest.approx(0.81 * 100**2 / 1000**2)   # section 5.3.4


@pytest.mark.parametrize("kwargs, match", [
    (dict(buffer=3), "buffer .* must be above min_th"),
    (dict(buffer=100), "too small for n_flows"),            # 0.81 * 300^2 / 100^2 = 7.3 > 1
    (dict(buffer=500, loss_rate=0.02), "exactly one"),
    (dict(), "exactly one"),
    (dict(loss_rate=5), "loss_rate"),
])
def test_red_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        calculator.red_setting(n_flows=300, **STANDARD, **kwargs)


def test_red_warns_above_three_percent_and_at_a_broken_design_point():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calculator.red_setting(n_flows=300, loss_rate=0.05, **STANDARD)
    messages = [str(w.message) for w in caught if issubclass(w.category, TCPModelsWarning)]
    assert any("3 %" in m for m in messages)
    assert any("design point (300 flows) the setting's status is 'time-outs'" in m for m in messages)


# ----------------------------------------------------------------------------- FPQ

def test_fpq_matches_figures_6_2_and_6_4():
    # Section 6.4's set-up: 10 Mbit/s, 100 ms, up to 1400 flows (v_max 5000, t_clear 4 s there).
    s = calculator.fpq_setting(max_flows=1400, **STANDARD)
    flows = [r.n_flows for r in s.rows]
    assert flows[0] == 1 and flows[-1] == 1400 and 1000 in flows
    p = fpq.red_params(np.array(flows), s.link.bdp)
    np.testing.assert_allclose([r.queue for r in s.rows], p.queue)
    np.testing.assert_allclose([r.max_th for r in s.rows], p.max_th)
    np.testing.assert_allclose([r.max_p for r in s.rows], p.max_p)
    big = s.rows[-1]
    assert big.queue == pytest.approx(5 * 1400) and big.loss_rate == pytest.approx(0.016)
    assert s.bits == 5 * 1400 and s.bit_vector_bytes == 875
    # t_clear above the longest RTT (100 ms + 7000 packets / 2170 packets/s) and at least 4 s.
    assert s.t_clear >= max(4.0, 0.1 + 7000 / s.link.capacity)
    assert s.buffer == 14000 and s.buffer_bytes == 14000 * 576
    assert s.n_flows == 1400 and s.tc.max == 14000 * 576


def test_fpq_design_point_and_overrides():
    s = calculator.fpq_setting(max_flows=1400, n_flows=300, bits=5000, t_clear=4.0, **STANDARD)
    assert (s.bits, s.t_clear, s.n_flows) == (5000, 4.0, 300)
    assert s.tc.max == 3000 * 576            # Fig. 6.4: max_th = 2 q = 2 * 5 * 300
    with pytest.raises(ValueError, match="must not exceed max_flows"):
        calculator.fpq_setting(max_flows=100, n_flows=300, **STANDARD)


# ----------------------------------------------------------------------------- drop-tail

def test_droptail_three_rules_side_by_side():
    s = calculator.droptail_sizing(n_flows=300, loss_rate=0.02, **STANDARD)  # comparison rows: no warning
    target, bdp, root = s.rules
    assert [r.rule for r in s.rules] == ["target-loss", "bdp", "bdp/sqrt(n)"]
    assert bdp.buffer == pytest.approx(217.01, abs=0.01)
    assert root.buffer == pytest.approx(217.01 / math.sqrt(300), abs=0.01)   # Appenzeller et al. 2004
    # The smallest whole-packet buffer whose P3 loss is at most 2 %: one packet less is above it.
    around = droptail.equilibrium(300, [target.buffer - 1, target.buffer], rtt=0.1, capacity=s.link.capacity)
    assert around.loss_rate[1] <= 0.02 < around.loss_rate[0] and target.loss_rate == around.loss_rate[1]
    assert target.delay == pytest.approx(around.queue[1] / s.link.capacity)
    assert s.pfifo == f"tc qdisc add dev DEV root pfifo limit {target.buffer:.0f}"
    assert s.bfifo == f"tc qdisc add dev DEV root bfifo limit {target.buffer * 576:.0f}"
    assert bdp.loss_rate > target.loss_rate and root.loss_rate > bdp.loss_rate
    assert target.max_delay == pytest.approx(target.buffer / s.link.capacity)


def test_droptail_given_buffer_and_policy():
    s = calculator.droptail_sizing(n_flows=20, buffer=500, policy="random-drop", **STANDARD)
    assert s.rules[0].rule == "given" and s.rules[0].buffer == 500
    assert s.rules[0].loss_rate == droptail.equilibrium(20, 500, rtt=0.1, capacity=s.link.capacity,
                                                        policy="random-drop").loss_rate
    # The model's warnings go into the status column and the notes, not the warnings system
    # (pytest turns a TCPModelsWarning into an error): Eq. 5.6 (P1) below 4 packets of storage per flow.
    p1 = calculator.droptail_sizing(n_flows=300, buffer=217, model="P1", **STANDARD)
    assert p1.rules[0].status == "time-outs" and any("fewer than 4 packets" in n for n in p1.notes)
    p3 = calculator.droptail_sizing(n_flows=300, buffer=217, **STANDARD)   # 12 % loss: time-outs
    assert p3.model == "P3" and p3.rules[0].status == "time-outs" and p3.rules[0].loss_rate > calculator.MAX_LOSS
    with pytest.raises(ValueError, match="policy"):
        calculator.droptail_sizing(n_flows=20, buffer=500, policy="fifo", **STANDARD)


REFERENCE_LINK = dict(bandwidth=10e6, rtt=0.01, packet_size=576)   # shared/reference/README.md


def test_droptail_with_the_senders_limits_is_p3s_step_5():
    # The drop-tail reference's 20-flow row: 64 KB windows of 536-byte segments (122), 5 Mbit/s access links.
    s = calculator.droptail_sizing(n_flows=20, buffer=500, max_window=122, access_rate=5e6, **REFERENCE_LINK)
    e = droptail.equilibrium(20, 500, rtt=0.01, capacity=s.link.capacity, max_window=122,
                             access_rate=units.capacity(5e6, 576))
    given = s.rules[0]
    assert (given.loss_rate, given.queue, given.timeouts_per_packet) == (e.loss_rate, e.queue, e.timeouts_per_packet)
    assert (given.escaping_window, given.jain_index) == (122.0, e.jain_index) and 0.5 < e.jain_index < 0.6
    assert (s.max_window, s.access_rate) == (122.0, 5e6)
    plain = calculator.droptail_sizing(n_flows=20, buffer=500, **REFERENCE_LINK).rules[0]
    # Measured: +7.7 % with the limits.
    assert (plain.escaping_window, plain.jain_index) == (0.0, 1.0) and given.loss_rate > 1.05 * plain.loss_rate
    # A window limit alone, and an access rate alone, each reach the model.
    window = calculator.droptail_sizing(n_flows=20, buffer=500, max_window=100, **REFERENCE_LINK).rules[0]
    access = calculator.droptail_sizing(n_flows=20, buffer=500, access_rate=2e6, **REFERENCE_LINK).rules[0]
    assert window.escaping_window == 100 and access.escaping_window == pytest.approx(
        units.capacity(2e6, 576) * (0.01 + droptail.equilibrium(20, 500, rtt=0.01, capacity=s.link.capacity).queue
                                    / s.link.capacity))


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")   # small buffers: the half-storage band
def test_escaping_share_is_the_share_the_jain_index_uses():
    # escaping_share is the escaping flow's packets over all the packets held (queue plus wire, each sent
    # once per round trip), 0 where none escapes (below 108 packets of buffer no flow escapes at 122),
    # and the share the Jain index is computed from; the calculator's rows carry it.
    cap, n = units.capacity(10e6, 576), 20
    e = droptail.equilibrium(n, np.arange(20.0, 1000.0, 7.0), rtt=0.01, capacity=cap, max_window=122)
    s = e.escaping_share
    assert (s > 0).any() and (s == 0).any() and np.array_equal(s == 0, e.escaping_window == 0)
    np.testing.assert_allclose(s, e.escaping_window / (e.queue + cap * 0.01), rtol=1e-12)
    np.testing.assert_allclose(e.jain_index, np.where(s > 0, 1 / (n * (s**2 + (1 - s) ** 2 / (n - 1))), 1),
                               rtol=1e-12)
    for model in ("P1", "P2"):
        assert droptail.equilibrium(n, 500, rtt=0.01, capacity=cap, model=model).escaping_share == 0
    rows = calculator.droptail_sizing(n_flows=20, buffer=500, max_window=122, access_rate=5e6, **REFERENCE_LINK).rules
    assert [r.escaping_share for r in rows] == [
        float(droptail.equilibrium(n, r.buffer, rtt=0.01, capacity=cap, max_window=122,
                                   access_rate=units.capacity(5e6, 576)).escaping_share) for r in rows]
    assert rows[0].escaping_share == pytest.approx(122 / (rows[0].queue + cap * 0.01), rel=1e-12)


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")   # equilibrium() in the half-storage band
def test_droptail_buffer_for_a_loss_is_the_smallest_with_the_limits():
    # With a window limit alone loss jumps up where one flow starts escaping (20 flows, 10 ms: at 108
    # packets), so it is not monotone in the buffer; the search still finds the smallest whole buffer
    # that meets the target, on both sides of the jump.
    cap = units.capacity(10e6, 576)
    buffers = np.arange(1.0, 2000.0)
    loss = droptail.equilibrium(20, buffers, rtt=0.01, capacity=cap, max_window=122).loss_rate
    jump = int(np.flatnonzero(np.diff(loss) > 0)[0])
    for target in (*np.geomspace(1e-3, 0.05, 7), *np.linspace(loss[jump], loss[jump + 1], 4)[1:-1]):
        s = calculator.droptail_sizing(n_flows=20, loss_rate=target, max_window=122, **REFERENCE_LINK)
        assert s.rules[0].buffer == buffers[np.argmax(loss <= target)], target
        assert s.rules[0].loss_rate == loss[int(s.rules[0].buffer) - 1]


def test_droptail_limits_are_p3s_only():
    # P1 and P2 (the thesis' forms) have no senders' limits, and random drop spares no flow at its limit:
    # refused, not printed as if the limits had been used.
    for choice in ({"model": "P1"}, {"model": "P2"}, {"policy": "random-drop"}):
        for limit in ({"max_window": 122}, {"access_rate": 5e6}):
            with pytest.raises(ValueError, match="apply to model P3 with policy droptail only"):
                calculator.droptail_sizing(n_flows=20, buffer=500, **choice, **limit, **REFERENCE_LINK)
    for bad in ({"max_window": 0}, {"max_window": -1}, {"max_window": math.inf}, {"max_window": math.nan},
                {"access_rate": 0}, {"access_rate": math.inf}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            calculator.droptail_sizing(n_flows=20, buffer=500, **bad, **REFERENCE_LINK)


# ----------------------------------------------------------------------------- HSTCP

def test_hstcp_table_over_windows_and_losses():
    t = calculator.hstcp_table(points=5)
    assert t.rows[0].window == hstcp.LOW_WINDOW and t.rows[-1].window == pytest.approx(hstcp.HIGH_WINDOW)
    assert [r.a for r in t.rows] == sorted(r.a for r in t.rows)       # a(w) grows, b(w) falls
    assert [r.b for r in t.rows] == sorted((r.b for r in t.rows), reverse=True)
    t = calculator.hstcp_table(loss_rate=(1e-7, 1e-3), points=3, kind="table")
    assert [r.loss_rate for r in t.rows] == pytest.approx([1e-3, 1e-5, 1e-7])
    assert all(r.a == int(r.a) for r in t.rows)
    assert len(calculator.hstcp_table(window=(118, 118)).rows) == 1
    with pytest.raises(ValueError, match="at most one"):
        calculator.hstcp_table(window=(38, 100), loss_rate=(1e-3, 1e-2))


# ----------------------------------------------------------------------------- example and JSON

def test_example_and_json():
    e = calculator.example()  # silent: its text, not a warning, says BDP/sqrt(N) leaves Eq. 5.6
    assert e.red.n_flows == 300 and e.red.link.packet_size == 576
    assert e.fpq.n_flows == 300 and e.fpq.queue == pytest.approx(1500)     # 5 packets per flow
    text = json.dumps(calculator.jsonable(e), allow_nan=False)
    assert json.loads(text)["red"]["tc"]["command"].startswith("tc qdisc add dev DEV root red")
    assert e.droptail_without_limits is None and e.droptail.max_window is None


def test_example_with_the_senders_limits():
    # The limits reach the drop-tail sizing alone (RED's and FPQ's models have none); the sizing without them
    # stands beside it.
    e = calculator.example(max_window=122, access_rate=1e6)
    kw = dict(loss_rate=0.02, **STANDARD)
    assert e.droptail == calculator.droptail_sizing(n_flows=300, max_window=122, access_rate=1e6, **kw)
    assert e.droptail_without_limits == calculator.droptail_sizing(n_flows=300, **kw) == calculator.example().droptail
    plain = calculator.example()   # (compared as JSON: NaN fields, a period where none, are never ==)
    assert calculator.jsonable((e.red, e.fpq)) == calculator.jsonable((plain.red, plain.fpq))
    assert calculator.example(max_window=122).droptail.access_rate is None
    for bad in ({"max_window": 0}, {"max_window": math.inf}, {"access_rate": -1}, {"access_rate": math.nan}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            calculator.example(**bad)


# ----------------------------------------------------------------------------- scenario files

TINY = """
n_flows = 10
bandwidth = "10mbit"
rtt = "100ms"
duration = "20s"
warmup = "5s"
seed = 3

[queue]
type = "red"
max_th = "124416b"   # 216 packets of 576 bytes
max_p = 0.02

[sender]
type = "new-reno"
"""


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


def test_load_scenario_reads_tc_units_and_types(tiny):
    s = scenario_file.load_scenario(tiny)
    assert (s.n_flows, s.bandwidth, s.rtt, s.duration, s.warmup, s.seed) == (10, 10e6, 0.1, 20.0, 5.0, 3)
    assert type(s.queue) is sim.RED and s.queue.max_th == 216 and s.queue.max_p == 0.02
    assert type(s.sender) is sim.NewReno


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_file_loads(path):
    assert isinstance(scenario_file.load_scenario(path), sim.Scenario)
    assert scenario_file.load_scenario(f"example:{path.stem}") == scenario_file.load_scenario(path)


@pytest.mark.parametrize("text, match", [
    ("n_flows = ", "not valid TOML"),
    ("n_flows = 10\nbandwith = '10mbit'\nrtt = 0.1", "unknown field 'bandwith'"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\n[queue]\ntype = 'RED'\nmaxth = 5", r"\[queue\] unknown field 'maxth'"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\n[queue]\ntype = 'WFQ'", "queue.type: unknown 'WFQ'"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\n[queue]\nbuffer = 5", "queue: expected a name or a table"),
    ("n_flows = 10\nbandwidth = '10 mbit'\nrtt = 0.1", "bandwidth: write the number and its unit"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = '-5ms'", "rtt: expected a time > 0"),
    ("n_flows = 0\nbandwidth = 1e7\nrtt = 0.1", "n_flows"),
    ("bandwidth = 1e7\nrtt = 0.1", "n_flows"),
])
def test_bad_scenario_files_name_file_and_field(tmp_path, text, match):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=match) as info:
        scenario_file.load_scenario(path)
    assert str(info.value).startswith(f"{path}: ")


def test_missing_scenario_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        scenario_file.load_scenario(tmp_path / "nowhere.toml")


def test_simulate_sets_the_prediction_beside_the_run(tiny):
    s = calculator.simulate(tiny)
    assert s.model == "P3" and s.result.loss_rate >= 0 and s.result.trace is None
    q = s.scenario.queue
    expected = calculator.predict(s.link, 10, q.min_th, q.max_th, q.max_p, sender="newreno", limit=q.limit,
                                  weight=q.weight)[0]
    assert s.prediction == expected and s.predicted_loss == expected.loss_rate
    data = json.loads(json.dumps(calculator.jsonable(s), allow_nan=False))
    assert data["scenario"]["queue"]["type"] == "RED" and data["scenario"]["sender"]["type"] == "NewReno"
    assert calculator.simulate(s.scenario, trace=True).result.trace is not None


def test_simulate_droptail_predicts_with_the_scenarios_sender_and_limits():
    # A drop-tail scenario's prediction is P3 with its sender's time-out spacing, its window cap and its
    # access links (Scenario defaults: 64 KB of packets, 10 x the fair share).
    table = {"n_flows": 10, "bandwidth": "10mbit", "rtt": "10ms", "duration": "3s", "warmup": "1s",
             "queue": {"type": "DropTail", "buffer": 300}, "sender": {"type": "Tahoe", "max_window": 30},
             "access_rate": "2mbit"}
    sc = scenario_file.scenario_from_table(table, "f.toml")
    s = calculator.simulate(sc)
    e = droptail.equilibrium(10, 300, rtt=0.01, capacity=s.link.capacity, sender="tahoe", max_window=30,
                             access_rate=units.capacity(2e6, 576))
    assert s.model == "P3 (droptail)" and s.prediction == e and s.predicted_loss == e.loss_rate
    assert e.escaping_window > 0 and e.jain_index < 1
    # Without them: Tahoe, 64 KB of 576-byte packets (113) and 10 x 10 Mbit/s / 10 flows.
    defaults = scenario_file.scenario_from_table({k: v for k, v in table.items() if k not in ("sender", "access_rate")})
    expected = droptail.equilibrium(10, 300, rtt=0.01, capacity=s.link.capacity, sender="tahoe",
                                    max_window=113, access_rate=units.capacity(10e6, 576))
    assert calculator.droptail_prediction(defaults, s.link) == expected
    data = json.loads(json.dumps(calculator.jsonable(s), allow_nan=False))
    assert data["prediction"]["escaping_window"] == pytest.approx(float(e.escaping_window))


def test_simulate_random_drop_predicts_with_random_drops_p3():
    # A RandomDrop queue gets random drop's P3 without the senders' limits (random drop spares no flow at its
    # limit), as the calculator's --policy random-drop; 100 flows keep 5 packets each, far below the scenario's
    # limits (113 packets, 1 Mbit/s access links: 52 packets at the predicted round trip).
    table = {"n_flows": 100, "bandwidth": "10mbit", "rtt": "10ms", "duration": "3s", "warmup": "1s",
             "queue": {"type": "RandomDrop", "buffer": 500}, "sender": "newreno"}
    s = calculator.simulate(scenario_file.scenario_from_table(table))
    e = droptail.equilibrium(100, 500, rtt=0.01, capacity=s.link.capacity, policy="random-drop", sender="newreno")
    assert (s.model, s.prediction, s.predicted_loss, s.no_prediction) == ("P3 (random-drop)", e, e.loss_rate, None)
    assert e.escaping_window == 0 and calculator.PEAK_WINDOW * e.window < 52
    # 10 flows through 1000 packets on 100 ms would peak at 148 packets: the 113-packet window caps them, which
    # random drop's model cannot take, so no prediction, and why; with the cap lifted, the prediction.
    capped = dict(table, n_flows=10, rtt="100ms", duration="2s", warmup="1s",
                  queue={"type": "RandomDrop", "buffer": 1000})
    s = calculator.simulate(scenario_file.scenario_from_table(capped))
    assert (s.model, s.prediction, s.predicted_loss) == (None, None, None)
    assert s.no_prediction.startswith("the senders' limits (window 113 packets, access links 10mbit) hold a flow to "
                                      "113 packets, below the 148 at the peak of random drop's predicted window")
    free = scenario_file.scenario_from_table(dict(capped, sender={"type": "NewReno", "max_window": 1000}))
    e = droptail.equilibrium(10, 1000, rtt=0.1, capacity=s.link.capacity, policy="random-drop")
    assert calculator.PEAK_WINDOW * e.window < min(1000, units.capacity(10e6, 576) * (0.1 + e.queue / s.link.capacity))
    assert calculator.simulate(free).prediction == e


def test_simulate_predicts_one_population_or_says_why_not():
    # The models take one long-lived population of one sender, one round trip, loss only at the queue.
    base = dict(n_flows=10, bandwidth=10e6, rtt=0.1, queue=sim.DropTail(buffer=100), duration=2.0, warmup=1.0)
    cases = [
        (dict(senders=[(5, sim.NewReno()), (5, sim.Tahoe())]), "the sender groups differ (5 NewReno, 5 Tahoe): the "
         "models take one sender for every flow"),
        (dict(senders=[(4, sim.NewReno(max_window=30)), (6, sim.NewReno())]),
         "the sender groups differ (4 NewReno max_window 30, 6 NewReno max_window None)"),
        (dict(senders=[(5, sim.NewReno()), (5, sim.HighSpeed())]), "(5 NewReno, 5 HighSpeed)"),
        (dict(sender=sim.HighSpeed()), "no closed form here for HighSpeed senders"),
        (dict(queue=sim.CHOKe()), "no closed form here for a CHOKe queue"),
        (dict(rtt=(0.05,) * 5 + (0.2,) * 5), "the flows' round trips are given one by one (0.05-0.2 s)"),
        (dict(workload=sim.FiniteTransfers()), "FiniteTransfers flows end: the models are for long-lived flows"),
        (dict(link_loss=0.01), "link_loss 0.01: the models have no losses outside the bottleneck queue"),
    ]
    for change, reason in cases:
        sc = sim.Scenario(**{**base, **change})
        assert reason in calculator.no_prediction(sc), change
    s = calculator.simulate(sim.Scenario(**{**base, **cases[0][0]}))   # never the first group's prediction
    assert (s.model, s.prediction, s.predicted_loss) == (None, None, None) and "5 Tahoe" in s.no_prediction
    s = calculator.simulate(sim.Scenario(**{**base, "rtt": (0.05,) * 5 + (0.2,) * 5}))   # runs, at the mean RTT
    assert s.link.rtt == pytest.approx(0.125) and s.model is None
    unlimited = sim.Scenario(**{**base, "access_rate": math.inf})   # no access link: no rate to print
    assert calculator.limits_words(unlimited) == "window 113 packets, access links none"
    # Groups that are all the same sender are one population: predicted as one.
    same = calculator.simulate(sim.Scenario(**{**base, "senders": [(4, sim.NewReno()), (6, sim.NewReno())]}))
    assert same.no_prediction is None
    assert same.prediction == calculator.simulate(sim.Scenario(**{**base, "sender": sim.NewReno()})).prediction


# ----------------------------------------------------------------------------- one configuration

def test_the_printed_setting_simulates_as_predicted(standard_red):
    """Weight, burst, limit and bandwidth of the printed lines, the prediction and the simulation agree.

    The queue is rebuilt from the tc line as tc and the kernel read it (not from the setting's
    fields), simulated with the sender the prediction assumes, and compared with the prediction.
    """
    s = standard_red
    opt = kernel.kernel_accepts(s.tc.command)
    scenario = calculator.red_scenario(s)
    q = scenario.queue
    assert (q.min_th * 576, q.max_th * 576, q.max_p, q.weight, q.limit * 576) == (
        opt.qth_min, opt.qth_max, opt.probability, 2.0**-opt.Wlog, opt.limit)
    assert scenario.bandwidth == opt.rate * 8 == units.parse_rate(s.ns3.LinkBandwidth[:-3] + "bit")
    assert float(s.ns3.QW) == q.weight and s.ns3.MaxSize == f"{q.limit}p"
    run = calculator.simulate(scenario)
    assert run.prediction == s.prediction          # the prediction of the simulated queue is the printed one
    # Measured (seed 1, 200 s, the first 50 s not counted; 3819adb): 1.76 % loss and 1292 packets of
    # queue against 1.94 % and 1394 predicted (an earlier engine 1.79 % and 1320).  P3 is within 17 % on
    # loss and 14 % on queue of the ns-3 reference and the simulator within 35 % of it (README); 20 % is
    # the tighter of their sum and what a short run's start-up transient leaves (a 100 s run measured
    # after 10 s: +16 % on loss).
    assert run.result.loss_rate == pytest.approx(s.prediction.loss_rate, rel=0.2)
    assert run.result.queue == pytest.approx(s.prediction.queue, rel=0.2)


def test_scenario_table_edges():
    base = {"n_flows": 10, "bandwidth": "10mbit", "rtt": "100ms"}
    # 64kb of 576-byte packets is 113.8 packets: a whole-packet field takes 113 (it failed before).
    s = scenario_file.scenario_from_table({**base, "queue": {"type": "DropTail", "buffer": "64kb"}}, "f.toml")
    assert s.queue.buffer == 113
    # A short run without a warm-up of its own gets a tenth of its duration, not the default 20 s.
    s = scenario_file.scenario_from_table({**base, "duration": "5s"})
    assert (s.duration, s.warmup) == (5.0, 0.5)
    assert scenario_file.scenario_from_table({**base, "duration": 100}).warmup == 20.0
    # [queue] takes queues only, [sender] senders only; booleans are booleans.
    with pytest.raises(ValueError, match=r"^f.toml: queue.type: unknown 'Tahoe'; expected one of .*RED"):
        scenario_file.scenario_from_table({**base, "queue": {"type": "Tahoe"}}, "f.toml")
    with pytest.raises(ValueError, match=r"^f.toml: \[sender\] ecn: expected true or false"):
        scenario_file.scenario_from_table({**base, "sender": {"type": "NewReno", "ecn": "false"}}, "f.toml")
    assert scenario_file.scenario_from_table({**base, "sender": "reno"}).sender == sim.Reno()


def test_progress_only_on_a_terminal(capsys, monkeypatch):
    import io
    import time

    from tcpmodels import cli

    with cli._progress("simulating"):           # pytest's stderr is not a terminal: nothing
        time.sleep(0.6)
    assert capsys.readouterr().err == ""
    tty = io.StringIO()
    tty.isatty = lambda: True
    monkeypatch.setattr("sys.stderr", tty)
    with cli._progress("simulating"):
        time.sleep(1.2)
    assert "\rsimulating: " in tty.getvalue() and " s elapsed" in tty.getvalue()
    assert tty.getvalue().endswith("\r\033[K")                    # the line is cleared at the end


def test_adaptive_predictions_settle_in_the_target_band():
    # Floyd, Gummadi & Shenker (2001): max_p moves within [1 %, 50 %] until the average queue is in
    # [min + 0.4 (max - min), min + 0.6 (max - min)].  Where a max_p in range reaches the band, the
    # predicted queue is in it; the tc line still starts at the rule's max_p.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        s = calculator.red_setting(n_flows=300, loss_rate=0.02, adaptive=True, **STANDARD)
    lo, hi = s.min_th + 0.4 * (s.max_th - s.min_th), s.min_th + 0.6 * (s.max_th - s.min_th)
    assert 0.01 <= s.adapted_max_p <= 0.5 and lo <= s.prediction.queue <= hi
    assert s.tc.probability == s.max_p == 0.015 and s.tc.command.endswith(" adaptive")
    eq = red.equilibrium(300, s.max_th, s.adapted_max_p, rtt=0.1, capacity=s.link.capacity, min_th=5)
    assert s.prediction.loss_rate == pytest.approx(eq.loss_rate)
    assert calculator.red_scenario(s).queue.max_p == s.adapted_max_p


# ----------------------------------------------------------------------------- gentle RED and ECN

def test_gentle_and_ecn_predictions_are_p3s(standard_red):
    """--gentle and --ecn predict with red.equilibrium(gentle=, ecn=) at the printed limit (issue 16)."""
    for flag in ("gentle", "ecn"):
        s = calculator.red_setting(n_flows=300, loss_rate=0.02, **{flag: True}, **STANDARD)
        n = np.array([p.n_flows for p in s.sweep])
        eq = red.equilibrium(n, s.max_th, s.max_p, rtt=0.1, capacity=s.link.capacity, min_th=5,
                             limit=s.tc.limit / 576, **{flag: True})
        np.testing.assert_allclose([p.loss_rate for p in s.sweep], eq.loss_rate)
        np.testing.assert_allclose([p.mark_rate for p in s.sweep], eq.mark_rate)
        np.testing.assert_allclose([p.queue for p in s.sweep], eq.queue)
        assert any(note.startswith(flag) for note in s.notes)
    assert standard_red.prediction.mark_rate == 0.0
    ecn = calculator.red_setting(n_flows=300, loss_rate=0.02, ecn=True, **STANDARD)
    # Unsaturated ECN: every early decision is a mark, no drop and no time-out follows one.
    assert ecn.prediction.loss_rate == 0 and ecn.prediction.mark_rate > 0 and ecn.prediction.timeouts_per_packet == 0
    assert ecn.ns3.UseEcn and not ecn.ns3.Gentle
    gentle = calculator.red_setting(n_flows=300, loss_rate=0.02, gentle=True, **STANDARD)
    assert gentle.gentle and gentle.ns3.Gentle and calculator.red_scenario(gentle).queue.gentle
    # Above max_th gentle RED ramps up instead of dropping everything: at 4N no forced drops.
    assert standard_red.sweep[-1].status == "forced drops" != gentle.sweep[-1].status


# ----------------------------------------------------------------------------- stability (issue 17)

def test_stability_verdicts_are_red_stability_at_the_printed_weight(standard_red):
    with pytest.warns(TCPModelsWarning, match="cannot reach 1 % loss"):
        s = calculator.red_setting(1e9, 0.1, 300, loss_rate=0.01)
    for setting in (standard_red, s):
        n = np.array([p.n_flows for p in setting.sweep])
        with warnings.catch_warnings():   # rows outside the model warn in the library: "no verdict" here
            warnings.simplefilter("ignore", TCPModelsWarning)
            st = red.stability(n, setting.link.rtt, setting.link.capacity, min_th=5, max_th=setting.max_th,
                               max_p=setting.max_p, weight=2.0**-setting.tc.ewma_log, drop_spacing="count",
                               delayed_ack=True)
        labels = [p.stability for p in setting.sweep]
        np.testing.assert_array_equal(labels == np.array("no verdict"), ~st.valid)
        np.testing.assert_allclose([p.gain_margin for p in setting.sweep], st.gain_margin)
        np.testing.assert_allclose([p.period for p in setting.sweep], st.period)
        for p, stable in zip(setting.sweep, st.stable, strict=True):
            expected = "stable" if p.gain_margin >= 1.2 else "below margin" if stable else "unstable"
            assert p.stability == expected or p.stability == "no verdict"
    # 1 Gbit/s, 100 ms: stable at 300 flows; fewer flows destabilize it (Low et al. 2003).
    assert s.prediction.stability == "stable" and s.sweep[0].stability == "unstable"
    gm = [p.gain_margin for p in s.sweep]
    assert gm == sorted(gm)


def test_stability_margin_is_required_and_checked(standard_red):
    gm = standard_red.prediction.gain_margin
    strict = calculator.red_setting(n_flows=300, loss_rate=0.02, stability_margin=gm * 1.01, **STANDARD)
    assert strict.prediction.stability == "below margin" and strict.stability_margin == gm * 1.01
    assert standard_red.stability_margin == calculator.DEFAULT_MARGIN and standard_red.prediction.stability == "stable"
    for bad in (0.5, 0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="stability_margin"):
            calculator.red_setting(n_flows=300, loss_rate=0.02, stability_margin=bad, **STANDARD)


def test_unstable_setting_gets_the_nearest_max_p_that_meets_the_margin():
    with pytest.warns(TCPModelsWarning, match="cannot reach 1 % loss"):
        s = calculator.red_setting(100e6, 0.2, 100, loss_rate=0.01, packet_size=576)
    assert s.prediction.stability == "unstable"
    (fix,) = [r for r in s.remedies if r.change == "max_p"]
    assert fix.max_p < s.max_p and fix.gain_margin >= 1.2 and fix.weight == s.weight
    # Nearest: the next printable max_p above it (one 4-significant-figure step, < 2 %) misses the margin.
    above = calculator.stability.verdict(s.link, 100, 5, s.max_th, fix.max_p * 1.02, s.weight)
    assert above.gain_margin < 1.2
    # Its cost is P3 at the new setting; its line is one Linux accepts, with the printed weight.
    eq = red.equilibrium(100, s.max_th, fix.max_p, rtt=0.2, capacity=s.link.capacity, min_th=5,
                         limit=s.tc.limit / 576)
    assert (fix.loss_rate, fix.queue) == (eq.loss_rate, eq.queue) and fix.queue > s.prediction.queue
    assert kernel.kernel_accepts(fix.command).Wlog == s.tc.ewma_log
    assert any("stability: unstable" in note for note in s.notes)


def test_weight_remedy_is_a_weight_tc_can_carry():
    # 10 Mbit/s, 200 ms, 10 flows, RED 5/500/0.02 at Wlog 9 is unstable; less averaging (Wlog 6) holds it:
    # there RED's low-pass is not the slowest pole, and its lag hurts.
    lk = calculator.link(10e6, 0.2, 576)
    (fix,) = [r for r in calculator.stability.remedies(lk, 10, 5, 500, 0.02, 9) if r.change == "weight"]
    assert fix.ewma_log == 6 and fix.weight == 2.0**-6 and fix.gain_margin >= 1.2 and fix.max_p == 0.02
    assert kernel.kernel_accepts(fix.command).Wlog == 6
    assert calculator.stability.verdict(lk, 10, 5, 500, 0.02, 2.0**-7).gain_margin < 1.2   # nearest
    assert fix.averaging_time == pytest.approx(64 / lk.capacity)


def test_no_verdict_outside_the_model_and_no_remedy():
    # The standard setting at 4N: 20 % loss, windows under 4 packets, outside the linearized model.
    with pytest.warns(TCPModelsWarning, match="design point"):
        s = calculator.red_setting(n_flows=1200, buffer=2156, **STANDARD)
    assert s.prediction.stability == "no verdict" and math.isnan(s.prediction.gain_margin)
    assert s.remedies == () and any("no verdict" in note for note in s.notes)


def test_no_verdict_names_an_operating_point_at_min_th():
    # 3 flows on 100 Tbit/s: the windows (2.8e8 packets) hold at RED's smallest drop rate, the average sits at
    # min_th, where red.stability gives no verdict; the note had named forced drops and small windows only.
    with pytest.warns(TCPModelsWarning, match="cannot reach"):
        s = calculator.red_setting(1e14, 0.1, 3, loss_rate=0.02)
    assert s.prediction.stability == "no verdict" and s.prediction.window > 4
    (note,) = [note for note in s.notes if "no verdict" in note]
    assert "min_th" in note


def test_fpq_rows_carry_fpqs_stability():
    s = calculator.fpq_setting(10e6, 0.2, 1400, packet_size=576)
    n = np.array([r.n_flows for r in s.rows])
    p = fpq.red_params(n, s.link.bdp)
    st = red.stability(n, 0.2, s.link.capacity, min_th=5, max_th=p.max_th, max_p=p.max_p, weight=s.tc.weight,
                       drop_spacing="count", delayed_ack=True)
    np.testing.assert_allclose([r.gain_margin for r in s.rows], st.gain_margin)
    assert all(r.stability == "stable" for r in s.rows) and s.remedies == ()
    assert s.verdict.n_flows == 1400 and s.verdict.stability == "stable"


def test_simulate_predicts_ecn_and_gentle_queues_with_p3():
    queue = sim.RED(min_th=5, max_th=500, max_p=0.02, ecn=True, gentle=True)
    scenario = sim.Scenario(n_flows=50, bandwidth=10e6, rtt=0.1, packet_size=576, queue=queue,
                            sender=sim.NewReno(ecn=True), duration=4.0, warmup=1.0)
    s = calculator.simulate(scenario)
    eq = red.equilibrium(50, 500, 0.02, rtt=0.1, capacity=s.link.capacity, min_th=5, ecn=True, gentle=True,
                         limit=queue.limit)
    assert (s.prediction.loss_rate, s.prediction.mark_rate) == (eq.loss_rate, eq.mark_rate) and eq.mark_rate > 0
    # The simulator's loss_rate counts drops and marks: the prediction beside it does too.
    assert s.predicted_loss == eq.loss_rate + eq.mark_rate and s.result.mark_rate > 0


def test_operating_point_at_min_th_gets_no_verdict_not_an_error():
    # 15 Gbit/s, 1 s, one flow: RED's smallest drop rate above min_th already holds a window this large,
    # so the fluid model's operating point sits at min_th, where red.stability has no root to bracket
    # (found by the property test over links in test_tc_kernel.py).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)   # the target is out of reach with so few flows
        s = calculator.red_setting(15048647793.0, 1.0, 4, loss_rate=0.0625, packet_size=576)
    assert s.sweep[0].n_flows == 1 and s.sweep[0].stability == "no verdict"
    assert all(p.stability in ("stable", "below margin", "unstable", "no verdict") for p in s.sweep)


def test_default_margin_against_the_ns3_dynamics_runs():
    """The verdicts at a weight tc can print (2^-9, nearest the runs' 0.002) against ns3_red_dynamics.csv.

    V2 and V3 swing in ns-3 (queue empty 17 % and 15 % of the time): unstable.  V4 settles cleanly
    (3.5 % empty): it meets the default margin, which is chosen so (docs/cli.md).  V1 settles with a
    small cycle: the loop sits within 15 % of the boundary, the band where the fluid model and the
    linear verdict may disagree (README, "RED dynamics": within 10 % on a 12 x 12 grid).
    """
    t = data.table("ns3_red_dynamics")
    verdicts = {}
    for i, run in enumerate(t["run"]):
        lk = calculator.link(t["bandwidth_bps"][i], (t["rtt_min_s"][i] + t["rtt_max_s"][i]) / 2, t["packet_size"][i])
        verdicts[run] = calculator.stability.verdict(lk, t["flows"][i], t["min_th"][i], t["max_th"][i],
                                                     t["max_p"][i], 2.0**-9)
    assert verdicts["V2"].stability == verdicts["V3"].stability == "unstable"
    assert verdicts["V4"].stability == "stable" and verdicts["V4"].gain_margin >= calculator.DEFAULT_MARGIN
    assert verdicts["V1"].gain_margin == pytest.approx(1.0, abs=0.15)
    # The period the loop predicts for the swinging runs: within 15 % of ns-3's dominant period (the
    # linearization leaves out the queueing delay's own dynamics; measured 1.15 vs 1.27 s and 2.34 vs 2.33 s).
    for run in ("V2", "V3"):
        assert verdicts[run].period == pytest.approx(t["dominant_period_s"][list(t["run"]).index(run)], rel=0.15)
