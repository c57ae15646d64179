"""Tests for tcpmodels.variants: ACWAP, NDCA-TCP, TCP/E and Active Delay Control."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpmodels import hstcp, units, variants

# --- ACWAP (Su et al. 2006) ---------------------------------------------------------------------


def test_acwap_eq3_hand_values():
    # Eq. 3: R_C >= RTT_min + beta (RTT_max - RTT_min).  RTT_min 0.125, RTT_max 0.25, beta 0.5
    # (exact in binary): threshold 0.125 + 0.5 * 0.125 = 0.1875 s.
    assert variants.acwap_congested(0.1875, 0.125, 0.25, beta=0.5) is True  # ">=": the threshold fires
    assert variants.acwap_congested(0.1874, 0.125, 0.25, beta=0.5) is False
    # beta 0.8, RTT_min 0.1, RTT_max 0.16: threshold 0.1 + 0.8 * 0.06 = 0.148 s.
    assert variants.acwap_congested(0.149, 0.1, 0.16) is True
    assert variants.acwap_congested(0.15, 0.1, 0.16, beta=0.9) is False  # 0.1 + 0.054 = 0.154


def test_acwap_beta_limits():
    # beta = 0: any RTT >= RTT_min predicts congestion; beta = 1: only a (new) maximum does, which
    # is why Fig. 5 with beta = 1 is not quite plain HSTCP.
    assert variants.acwap_congested(0.1, 0.1, 0.2, beta=0.0) is True
    np.testing.assert_array_equal(variants.acwap_congested([0.19, 0.2], 0.1, 0.2, beta=1.0), [False, True])


@settings(max_examples=100, deadline=None)
@given(lo=st.floats(0.001, 1.0), span=st.floats(0.0, 1.0), frac=st.floats(0.0, 1.0),
       b1=st.floats(0.0, 1.0), b2=st.floats(0.0, 1.0))
def test_acwap_predictor_monotone_in_beta(lo, span, frac, b1, b2):
    rtt = lo + frac * span
    small, large = min(b1, b2), max(b1, b2)
    if variants.acwap_congested(rtt, lo, lo + span, beta=large):
        assert variants.acwap_congested(rtt, lo, lo + span, beta=small)


def test_acwap_a_rule_fig5():
    # Fig. 5: a = 1 only once two congestion events have passed and Eq. 3 holds; otherwise HSTCP's.
    a_hs = hstcp.a(8400)
    np.testing.assert_allclose(
        variants.acwap_a(8400, [0.15, 0.15, 0.15, 0.12], 0.1, 0.16, n_congestion=[0, 1, 2, 5]),
        [a_hs, a_hs, 1.0, a_hs])
    assert variants.acwap_a(8400, 0.15, 0.1, 0.16, 1, kind="table") == 26.0
    assert variants.acwap_a(20, 0.15, 0.1, 0.16, 3) == 1.0  # below Low_Window a is 1 anyway


def test_pacing_interval():
    # Interval = R_C / w: 0.1 s / 8400 packets = 11.90 microseconds (the paper's ~10 us timers).
    assert variants.pacing_interval(0.1, 8400) == pytest.approx(1.1905e-5, rel=1e-4)
    np.testing.assert_allclose(variants.pacing_interval([0.06, 0.12], 100), [6e-4, 1.2e-3])


def test_acwap_bad_input():
    with pytest.raises(ValueError, match="beta"):
        variants.acwap_congested(0.15, 0.1, 0.16, beta=1.5)
    with pytest.raises(ValueError, match="rtt_max"):
        variants.acwap_congested(0.15, 0.1, 0.05)
    with pytest.raises(ValueError, match="rtt_min"):
        variants.acwap_congested(0.15, 0.0, 0.16)
    with pytest.raises(ValueError, match="rtt"):
        variants.acwap_congested(-0.1, 0.1, 0.16)
    with pytest.raises(ValueError, match="n_congestion"):
        variants.acwap_a(100, 0.15, 0.1, 0.16, n_congestion=-1)
    with pytest.raises(ValueError, match="window"):
        variants.pacing_interval(0.1, 0)


# --- NDCA-TCP (Park et al.) ---------------------------------------------------------------------


def reference_equation(times, sizes, rtt, beta, start):
    """Eq. 3-4 written as the paper does, one ACK at a time."""
    bw, last, out = 0.0, start, []
    for t, s in zip(times, sizes, strict=True):
        if last is None:
            last = t
            out.append(8 * bw)
            continue
        gap = t - last
        new = (bw * rtt + s) / (rtt + gap)  # Eq. 3
        bw = (1 - beta) * bw + beta * new  # Eq. 4
        last = t
        out.append(8 * bw)
    return np.array(out), bw


def reference_fig4(times, sizes, base_rtt, cwnd, n, start):
    """Fig. 4's pseudo-code, one ACK at a time (ackCnt starts at 1 after each sample)."""
    sample_interval = 1 if cwnd < n else int(cwnd) // n
    pre_bw, pre_time, ack_cnt, acc, out = 0.0, start, 1, 0.0, []
    for t, s in zip(times, sizes, strict=True):
        if pre_time is None:
            pre_time = t
            out.append(8 * pre_bw)
            continue
        acc += s
        if ack_cnt >= sample_interval:
            delta = t - pre_time
            ratio = delta / (base_rtt + delta)
            curr = acc / delta
            pre_bw = (1 - ratio) * pre_bw + ratio * curr
            pre_time, ack_cnt, acc = t, 1, 0.0
        else:
            ack_cnt += 1
        out.append(8 * pre_bw)
    return np.array(out), pre_bw


ack_streams = st.lists(st.tuples(st.floats(1e-5, 0.05), st.floats(0.0, 9000.0)), min_size=1, max_size=60)


@settings(max_examples=100, deadline=None)
@given(stream=ack_streams, beta=st.floats(0.05, 1.0), cut=st.integers(0, 60))
def test_ndca_equation_matches_paper_loop_and_streams(stream, beta, cut):
    gaps, sizes = map(np.array, zip(*stream, strict=True))
    times = np.cumsum(gaps)
    expected, _ = reference_equation(times, sizes, 0.1, beta, start=0.0)
    est = variants.NDCABandwidthEstimator(0.1, beta=beta, start_time=0.0)
    np.testing.assert_allclose(est.update(times, sizes), expected, rtol=1e-9, atol=1e-9)
    # The same ACKs in two calls give the same estimates.
    split = variants.NDCABandwidthEstimator(0.1, beta=beta, start_time=0.0)
    k = min(cut, times.size)
    both = np.concatenate([split.update(times[:k], sizes[:k]), split.update(times[k:], sizes[k:])])
    np.testing.assert_allclose(both, expected, rtol=1e-9, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(stream=ack_streams, cwnd=st.floats(1.0, 80.0), cut=st.integers(0, 60))
def test_ndca_fig4_matches_pseudocode_loop_and_streams(stream, cwnd, cut):
    gaps, sizes = map(np.array, zip(*stream, strict=True))
    times = np.cumsum(gaps)
    expected, _ = reference_fig4(times, sizes, 0.1, cwnd, 10, start=None)
    est = variants.NDCABandwidthEstimator(0.1, form="pseudocode")
    np.testing.assert_allclose(est.update(times, sizes, window=cwnd), expected, rtol=1e-9, atol=1e-9)
    split = variants.NDCABandwidthEstimator(0.1, form="pseudocode")
    k = min(cut, times.size)
    both = np.concatenate([split.update(times[:k], sizes[:k], window=cwnd),
                           split.update(times[k:], sizes[k:], window=cwnd)])
    np.testing.assert_allclose(both, expected, rtol=1e-9, atol=1e-9)


def test_ndca_fig4_is_eq3_without_eq4_below_n():
    # With cwnd < N Fig. 4 samples every ACK: it is Eq. 3 with beta = 1 and RTT = BaseRTT.
    rng = np.random.default_rng(1)
    times = np.cumsum(rng.exponential(1e-3, 500))
    sizes = rng.choice([0.0, 1500.0, 3000.0], 500)
    fig4 = variants.NDCABandwidthEstimator(0.05, form="pseudocode", start_time=0.0)
    eq = variants.NDCABandwidthEstimator(0.05, beta=1.0, start_time=0.0)
    np.testing.assert_allclose(fig4.update(times, sizes, window=5), eq.update(times, sizes), rtol=1e-12)


@pytest.mark.parametrize("form, beta", [("equation", 0.3), ("pseudocode", None)])
def test_ndca_converges_to_true_rate(form, beta):
    # 1500 bytes every 1 ms = 1.5e6 B/s = 12 Mbit/s; fixed point of Eq. 3: BW (R + T) = BW R + S.
    est = variants.NDCABandwidthEstimator(0.1, form=form, beta=beta, start_time=0.0)
    times = np.arange(1, 20001) * 1e-3
    out = est.update(times, 1500.0, window=100)
    assert out[-1] == pytest.approx(12e6, rel=1e-6)
    assert est.bandwidth == pytest.approx(12e6, rel=1e-6)
    # Eq. 5: 12e6 bit/s * 0.1 s / (8 * 1500 bit) = 100 packets.
    assert est.ssthresh(1500) == pytest.approx(100, abs=1)
    est.reset()
    assert est.bandwidth == 0.0 and est.ssthresh(1500) == 0.0


def test_ndca_long_stream_stays_finite():
    # 200 000 ACKs: sum of ln c reaches about -2000, far past exp's range; the chunked recurrence
    # must neither overflow nor lose the rate.  Includes simultaneous ACKs (gap 0) and a 50 s gap.
    times = np.concatenate([np.arange(1, 100001) * 1e-4, [10.0, 10.0], 60.0 + np.arange(1, 99999) * 1e-4])
    est = variants.NDCABandwidthEstimator(0.01, beta=0.5, start_time=0.0)
    out = est.update(times, 1000.0)
    assert np.all(np.isfinite(out))
    assert out[-1] == pytest.approx(8 * 1000 / 1e-4, rel=1e-6)  # 80 Mbit/s


def test_ndca_first_ack_starts_clock():
    # Without start_time the first ACK only sets the clock; the second, 1 ms later with 1500 bytes
    # and beta = 0.5: 0.5 * (0 * 0.1 + 1500)/(0.1 + 0.001) = 7425.7 B/s.
    est = variants.NDCABandwidthEstimator(0.1, beta=0.5)
    assert est.update([1.0], [1500.0])[0] == 0.0
    assert est.update([1.001], [1500.0])[0] == pytest.approx(8 * 0.5 * 1500 / 0.101)


def test_ndca_per_ack_rtt_and_empty_update():
    est = variants.NDCABandwidthEstimator(0.1, beta=1.0, start_time=0.0)
    assert est.update([], []).size == 0
    # One ACK of 1000 bytes after 0.1 s with RTT 0.1: (0 * 0.1 + 1000)/(0.1 + 0.1) = 5000 B/s.
    assert est.update([0.1], [1000.0], rtt=[0.1])[0] == pytest.approx(8 * 5000.0)


def test_ndca_ssthresh_function():
    # Eq. 5: 1e9 bit/s * 0.1 s / (8 * 1500) = 8333.3 packets.
    assert variants.ndca_ssthresh(1e9, 0.1, 1500) == pytest.approx(8333.333, rel=1e-6)
    np.testing.assert_allclose(variants.ndca_ssthresh([0.0, 12e6], 0.1, 1500), [0.0, 100.0])


def test_ndca_hold_and_increase():
    # Interval D: RTT > BaseRTT * alpha; 0.1 * 1.2 = 0.12.
    np.testing.assert_array_equal(variants.ndca_hold([0.12, 0.121], 0.1, 1.2), [False, True])
    # Fig. 4: +1 at or below ssthresh, 0 when held, else 1/cwnd.
    np.testing.assert_allclose(variants.ndca_increase([100, 101, 101], 100, [True, True, False]),
                               [1.0, 0.0, 1 / 101])


def test_ndca_bad_input():
    with pytest.raises(ValueError, match="beta"):
        variants.NDCABandwidthEstimator(0.1)
    with pytest.raises(ValueError, match="beta"):
        variants.NDCABandwidthEstimator(0.1, beta=0.0)
    with pytest.raises(ValueError, match="form"):
        variants.NDCABandwidthEstimator(0.1, form="westwood")
    with pytest.raises(ValueError, match="rtt"):
        variants.NDCABandwidthEstimator(-0.1, beta=0.5)
    with pytest.raises(ValueError, match="n_samples"):
        variants.NDCABandwidthEstimator(0.1, form="pseudocode", n_samples=0)
    est = variants.NDCABandwidthEstimator(0.1, beta=0.5, start_time=1.0)
    with pytest.raises(ValueError, match="ack_times"):
        est.update([0.5], [1000.0])  # before start_time
    with pytest.raises(ValueError, match="ack_times"):
        est.update([2.0, 1.5], [1000.0, 1000.0])
    with pytest.raises(ValueError, match="acked_bytes"):
        est.update([2.0], [-1.0])
    with pytest.raises(ValueError, match="acked_bytes"):
        est.update([2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="rtt"):
        est.update([2.0, 3.0], 1.0, rtt=[0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="bandwidth"):
        variants.ndca_ssthresh(-1.0, 0.1, 1500)
    with pytest.raises(ValueError, match="alpha"):
        variants.ndca_hold(0.2, 0.1, 1.0)
    with pytest.raises(ValueError, match="hold"):
        variants.ndca_increase(10, 5, 2)
    with pytest.raises(ValueError, match="ssthresh"):
        variants.ndca_increase(10, -5, True)


# --- TCP/E (Kamra, Misra & Towsley) -------------------------------------------------------------


def test_tcpe_on_ack_cases():
    # ECN: freeze (10 -> 10) and go to CA; no ECN in SS: +1; no ECN in CA: +1/10, and
    # 5.0 - 4.95 = 0.05 < RTT 0.1 so it stays in CA.
    s = variants.tcpe_on_ack([10, 10, 10], [True, True, False], [True, False, False],
                             time=5.0, last_ecn_time=[4.0, 4.0, 4.95], rtt=0.1)
    np.testing.assert_allclose(s.window, [10.0, 11.0, 10.1])
    np.testing.assert_array_equal(s.slow_start, [False, True, False])
    np.testing.assert_allclose(s.last_ecn_time, [5.0, 4.0, 4.95])


def test_tcpe_switches_back_after_an_rtt_without_marks():
    # In CA; the increase of this ACK is still 1/w (mode before the switch); "> RTT" is strict.
    at_rtt = variants.tcpe_on_ack(20.0, False, False, time=1.1, last_ecn_time=1.0, rtt=0.2)
    assert at_rtt.slow_start is False and at_rtt.window == pytest.approx(20.05)
    past = variants.tcpe_on_ack(20.0, False, False, time=1.21, last_ecn_time=1.0, rtt=0.2)
    assert past.slow_start is True and past.window == pytest.approx(20.05)
    never = variants.tcpe_on_ack(2.0, False, False, time=0.0, last_ecn_time=-np.inf, rtt=0.2)
    assert never.slow_start is True
    w, ss, last = never  # unpacks like a tuple
    assert (w, ss) == (2.5, True)


def test_tcpe_bad_input():
    with pytest.raises(ValueError, match="window"):
        variants.tcpe_on_ack(0.0, True, False, 1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="ecn"):
        variants.tcpe_on_ack(1.0, True, 2, 1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="slow_start"):
        variants.tcpe_on_ack(1.0, "yes", False, 1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="rtt"):
        variants.tcpe_on_ack(1.0, True, False, 1.0, 0.0, 0.0)


# --- Active Delay Control (Hsiao, Kung & Tan) ---------------------------------------------------


def test_in_flight_118_and_193():
    # Table 1: 1.5 Mbit/s / (8 * 1000 bytes) = 187.5 packets/s; buffer b = 100.
    # RTT 100 ms: 187.5 * 0.1 + 100 = 118.75 -> "118"; RTT 500 ms: 93.75 + 100 = 193.75 -> "193".
    cap = units.capacity(1.5e6, 1000)
    total = variants.in_flight_capacity(cap, [0.1, 0.5], 100)
    np.testing.assert_allclose(total, [118.75, 193.75])
    assert np.floor(total).tolist() == [118, 193]
    # 50 flows: 118.75/50 = 2.375 ("less than three"), 193.75/50 = 3.875 ("about four").
    per_flow = variants.window_per_flow(50, cap, [0.1, 0.5], 100)
    np.testing.assert_allclose(per_flow, [2.375, 3.875])
    assert per_flow[0] < 3 and round(per_flow[1]) == 4


def test_required_delay_values():
    # 40 long flows of Sec. III.C, w = 4: (160 - 100)/187.5 - 0.1 = 0.22 s; 50 flows:
    # (200 - 100)/187.5 - 0.1 = 0.4333 s; 10 flows fit without delay.
    np.testing.assert_allclose(variants.required_delay([40, 50, 10], 4, 187.5, 0.1, 100),
                               [0.22, 0.43333333, 0.0])


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 1000), w=st.floats(1.0, 20.0), cap=st.floats(10.0, 1e5),
       rtt=st.floats(0.001, 1.0), buf=st.floats(0.0, 1e4))
def test_required_delay_inverts_window_per_flow(n, w, cap, rtt, buf):
    d = variants.required_delay(n, w, cap, rtt, buf)
    reached = variants.window_per_flow(n, cap, rtt, buf, delay=d)
    if d > 0:
        assert reached == pytest.approx(w, rel=1e-9)
    else:
        assert reached >= w * (1 - 1e-12)


def test_delayed_rate():
    # rate = cwnd / (RTT + d): 4 / (0.1 + 0.1) = 20 packets/s.
    assert variants.delayed_rate(4, 0.1, 0.1) == pytest.approx(20.0)


@settings(max_examples=100, deadline=None)
@given(d=st.floats(0.0, 2.0), w=st.floats(1.0, 8.0), rtt=st.floats(0.001, 1.0))
def test_sdc_delay_acts_like_tcp_aimd_on_rate(d, w, rtt):
    rate = variants.delayed_rate(w, rtt, d)
    # CE: the rate halves (like TCP's window halving) with the window held.
    after_ce = variants.sdc_delay(d, True, w, rtt)
    assert variants.delayed_rate(w, rtt, after_ce) == pytest.approx(rate / 2, rel=1e-9)
    # No CE: the rate grows by one packet per RTT, like (w + 1)/(RTT + d), until the delay is 0.
    after = variants.sdc_delay(d, False, w, rtt)
    if after > 0:
        assert variants.delayed_rate(w, rtt, after) == pytest.approx((w + 1) / (rtt + d), rel=1e-9)
    else:
        assert variants.delayed_rate(w, rtt, after) <= (w + 1) / (rtt + d) * (1 + 1e-12)


def test_sdc_delay_limits():
    # From 0, a CE mark adds one RTT (RTT + d doubles); the cap and the 8-packet threshold apply.
    np.testing.assert_allclose(variants.sdc_delay([0.0, 1.5], True, 4, 0.1, max_delay=2.0), [0.1, 2.0])
    assert variants.sdc_delay(0.5, True, 9, 0.1) == 0.0
    assert variants.sdc_delay(0.01, False, 4, 0.1) == 0.0  # 0.01 - 0.11/5 < 0 -> 0


def test_adc_bad_input():
    with pytest.raises(ValueError, match="delay"):
        variants.delayed_rate(4, 0.1, -0.1)
    with pytest.raises(ValueError, match="buffer"):
        variants.in_flight_capacity(187.5, 0.1, -1)
    with pytest.raises(ValueError, match="capacity"):
        variants.in_flight_capacity(0.0, 0.1, 100)
    with pytest.raises(ValueError, match="n_flows"):
        variants.window_per_flow(0, 187.5, 0.1, 100)
    with pytest.raises(ValueError, match="window"):
        variants.required_delay(10, -4, 187.5, 0.1, 100)
    with pytest.raises(ValueError, match="ce"):
        variants.sdc_delay(0.1, "x", 4, 0.1)
    with pytest.raises(ValueError, match="max_delay"):
        variants.sdc_delay(0.1, True, 4, 0.1, max_delay=-1)


# --- input forms --------------------------------------------------------------------------------

CASES = [
    (variants.acwap_congested, (0.15, 0.1, 0.16, 0.8)),
    (variants.acwap_a, (8400.0, 0.15, 0.1, 0.16, 2.0, 0.8)),
    (variants.pacing_interval, (0.1, 8400.0)),
    (variants.ndca_ssthresh, (1e9, 0.1, 1500.0)),
    (variants.ndca_hold, (0.13, 0.1, 1.2)),
    (variants.ndca_increase, (200.0, 100.0, False)),
    (variants.delayed_rate, (4.0, 0.1, 0.1)),
    (variants.in_flight_capacity, (187.5, 0.1, 100.0)),
    (variants.window_per_flow, (50.0, 187.5, 0.1, 100.0, 0.0)),
    (variants.required_delay, (50.0, 4.0, 187.5, 0.1, 100.0)),
    (variants.sdc_delay, (0.1, False, 4.0, 0.1, 2.0, 8.0)),
]


@pytest.mark.parametrize("func, args", CASES)
def test_scalar_list_array_broadcast(func, args):
    scalar = func(*args)
    assert isinstance(scalar, (float, bool))
    for i in range(len(args)):
        listed = list(args)
        listed[i] = [args[i], args[i]]
        out = func(*listed)
        assert isinstance(out, np.ndarray) and out.shape == (2,)
        np.testing.assert_allclose(out.astype(float), float(scalar))
    column = list(args)
    column[0] = np.full((3, 1), args[0])
    column[-1] = np.full((1, 2), args[-1])
    out = func(*column)
    assert out.shape == (3, 2)
    np.testing.assert_allclose(out.astype(float), float(scalar))


def test_tcpe_broadcast():
    s = variants.tcpe_on_ack(np.full((3, 1), 10.0), True, [[False, True]], 1.0, 0.0, 0.1)
    assert s.window.shape == s.slow_start.shape == s.last_ecn_time.shape == (3, 2)
    scalar = variants.tcpe_on_ack(10.0, True, False, 1.0, 0.0, 0.1)
    assert isinstance(scalar.window, float) and isinstance(scalar.slow_start, bool)
    assert math.isclose(scalar.window, 11.0)
