"""RED: the drop curve, Eq. 5.8/5.10, the P1/P2/P3 equilibria and the section 5.3.4 sizing rules."""

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from tcpmodels import TCPModelsWarning, red, solve, symbolic, tcp, units

CAP = units.capacity(10e6, 576)  # the thesis' 10 Mbit/s link, 2170 packets/s


def test_drop_probability_curve():
    # Floyd & Jacobson: 0 below min_th, linear to max_p at max_th, then 1 (or gentle ramp).
    p = red.drop_probability([0, 5, 252.5, 499.999, 500, 1e4], 5, 500, 0.02)
    np.testing.assert_allclose(p, [0, 0, 0.01, 0.02 * 494.999 / 495, 1, 1])
    # gentle: 0.02 + 0.98 * 250 / 500 = 0.51 halfway to 2 max_th
    np.testing.assert_allclose(red.drop_probability([500, 750, 1000, 2000], 5, 500, 0.02, gentle=True),
                               [0.02, 0.51, 1.0, 1.0])
    assert isinstance(red.drop_probability(100, 5, 500, 0.02), float)
    assert red.drop_probability(np.arange(6).reshape(2, 3) * 100.0, 5, [500, 600, 700], 0.1).shape == (2, 3)


@given(st.floats(0, 1e4), st.floats(0, 100), st.floats(1, 1e4), st.floats(1e-4, 1))
def test_drop_probability_monotone_and_bounded(q, lo, span, mp):
    hi = lo + span
    p, p_more = red.drop_probability([q, q + 1], lo, hi, mp)
    assert 0 <= p <= p_more <= 1


def test_eq_5_8_and_5_10_are_inverse():
    # Eq. 5.8: 2 * 0.02 * 250 / 500 = 0.02; Eq. 5.10 back: 0.02 * 500 / 0.04 = 250
    assert red.loss_from_queue(250, 500, 0.02) == pytest.approx(0.02)
    queues = [10, 100, 400]
    assert red.queue_for_loss(red.loss_from_queue(queues, 500, 0.05), 500, 0.05) == pytest.approx(queues)


def test_p1_hand_checked():
    # (100 * 0.02 / 500)**(2/3) = 0.004**(2/3) = exp(2/3 * -5.521461) = 0.0251984; * 1.4 = 0.0352778
    # queue: 0.7 * 100**(2/3) * 500**(1/3) / 0.02**(1/3) = 0.7 * 21.54435 * 7.937005 / 0.2714418 = 440.97
    e = red.equilibrium(100, 500, 0.02, model="P1")
    assert e.loss_rate == pytest.approx(0.0352778, rel=1e-5)
    assert e.queue == pytest.approx(440.97, rel=1e-4)
    # Eq. 5.4 needs a round-trip time: without one P1 gives None (was NaN, issue 15), with one a number.
    assert e.model == "P1" and not e.saturated and e.timeout_fraction is None
    e = red.equilibrium(100, 217, 0.02, model="P1", rtt=0.01)
    assert 0 < e.timeout_fraction < 1


def test_p1_scaling_laws_fig_5_10():
    # l ~ N^(2/3) max_p^(2/3) max_th^(-2/3); b ~ N^(2/3) max_p^(-1/3) max_th^(1/3)
    base = red.equilibrium(50, 500, 0.02, model="P1")
    for kwargs, el, eb in [({"n_flows": 100}, 2 / 3, 2 / 3), ({"max_p": 0.04}, 2 / 3, -1 / 3),
                           ({"max_th": 1000}, -2 / 3, 1 / 3)]:
        args = {"n_flows": 50, "max_th": 500, "max_p": 0.02, **kwargs}
        e = red.equilibrium(**args, model="P1")
        assert e.loss_rate / base.loss_rate == pytest.approx(2**el, rel=1e-12)
        assert e.queue / base.queue == pytest.approx(2**eb, rel=1e-12)


def test_p1_constants_are_the_symbolic_derivation_rounded():
    k_loss, k_queue = symbolic.red_p1_constants()
    assert red.P1_LOSS_CONSTANT == round(float(k_loss), 1)
    assert red.P1_QUEUE_CONSTANT == round(float(k_queue), 1)


def test_p2_solves_eq_5_14():
    n, mth, mp, rtt = np.array([10, 100, 300]), 500, 0.02, 0.01
    e = red.equilibrium(n, mth, mp, model="P2", rtt=rtt, capacity=CAP)
    lhs = red.queue_for_loss(e.loss_rate, mth, mp) + CAP * rtt
    rhs = n * tcp.packets_in_flight(e.loss_rate, rtt)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9)
    np.testing.assert_allclose(e.queue, red.queue_for_loss(e.loss_rate, mth, mp))


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_p2_agrees_with_brentq():
    # The vectorized solver and a scalar brentq loop agree to 1e-9 (issue target).
    rng = np.random.default_rng(3)
    n, mth, mp = rng.uniform(1, 500, 50), rng.uniform(50, 3000, 50), rng.uniform(0.002, 0.2, 50)
    e = red.equilibrium(n, mth, mp, model="P2", rtt=0.05, capacity=CAP)
    for i in range(50):
        args = (n[i], mth[i] / (2 * mp[i]), CAP * 0.05, 0.05, 1.0)
        ref = brentq(red._p2_residual, 1e-12, 1.0, args=args, xtol=1e-300, rtol=1e-14)
        assert e.loss_rate[i] == pytest.approx(ref, rel=1e-9)


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
@settings(max_examples=50, deadline=None)
@given(st.floats(1, 1000), st.floats(20, 5000), st.floats(1e-3, 0.3), st.floats(0.001, 0.5))
def test_p2_below_p1(n, mth, mp, rtt):
    # Time-outs and the wire only take packets out of the queue: P2 <= P1 with exact constants.
    e2 = red.equilibrium(n, mth, mp, model="P2", rtt=rtt, capacity=CAP)
    exact_p1 = (2 * tcp.WINDOW_CONSTANT * n * mp / mth) ** (2 / 3)
    assert e2.loss_rate <= exact_p1 * (1 + 1e-9)


def test_p3_solves_its_balance_and_saturates():
    n = np.array([10.0, 100.0, 300.0])
    e = red.equilibrium(n, 500, 0.02, rtt=0.01, capacity=CAP)
    assert e.model == "P3"
    np.testing.assert_array_equal(e.saturated, [False, False, True])
    assert e.queue[2] == 500  # pinned at max_th
    assert np.all(e.queue[:2] < 500)
    # unsaturated queue sits on the RED curve with Eq. 5.8's factor 2
    np.testing.assert_allclose(e.queue[:2], 5 + e.loss_rate[:2] * 495 / 0.04)
    # balance: packets the sending flows hold = queue + wire
    held = n * (1 - e.timeout_fraction) * e.window
    np.testing.assert_allclose(held, e.queue + CAP * 0.01, rtol=1e-9)
    # the time-out model saw the queueing delay: recompute with rtt + q / C
    o = tcp.timeout_rate(e.loss_rate, spacing=3)
    np.testing.assert_allclose(e.timeouts_per_packet, o)
    x = e.window * o
    np.testing.assert_allclose(e.timeout_fraction, x / (x + 0.01 + e.queue / CAP))


@settings(max_examples=40, deadline=None)
@given(st.floats(1, 2000), st.floats(20, 5000), st.floats(1e-3, 0.3), st.floats(0.001, 0.5),
       st.sampled_from(["tahoe", "newreno"]))
def test_p3_monotone_in_flows(n, mth, mp, rtt, sender):
    e = red.equilibrium([n, 1.1 * n], mth, mp, rtt=rtt, capacity=CAP, sender=sender)
    assert e.loss_rate[1] >= e.loss_rate[0] * (1 - 1e-9)
    assert e.queue[1] >= e.queue[0] * (1 - 1e-9)
    assert np.all(e.queue <= mth)


def test_p3_tahoe_times_out_more():
    nr = red.equilibrium(200, 500, 0.02, rtt=0.01, capacity=CAP)
    ta = red.equilibrium(200, 500, 0.02, rtt=0.01, capacity=CAP, sender="tahoe")
    assert ta.timeouts_per_packet > nr.timeouts_per_packet


def test_equilibrium_broadcasts():
    e = red.equilibrium(np.array([[10], [100]]), [250, 500, 1000], 0.02, rtt=0.01, capacity=CAP)
    assert e.loss_rate.shape == e.queue.shape == e.saturated.shape == (2, 3)
    assert isinstance(red.equilibrium(10, 500, 0.02, rtt=0.01, capacity=CAP).loss_rate, float)
    assert red.equilibrium([10, 20], 500, 0.02, model="P1").queue.shape == (2,)
    d = red.equilibrium(10, 500, 0.02, model="P2", rtt=0.01, capacity=CAP).to_dict()
    assert set(d) == {"loss_rate", "queue", "window", "timeouts_per_packet", "timeout_fraction", "saturated", "model",
                      "mark_rate"}


def test_equilibrium_bad_input():
    with pytest.raises(ValueError, match="model"):
        red.equilibrium(10, 500, 0.02, model="P9")
    with pytest.raises(ValueError, match="rtt"):
        red.equilibrium(10, 500, 0.02, model="P2")
    with pytest.raises(ValueError, match="n_flows"):
        red.equilibrium(0, 500, 0.02, model="P1")
    with pytest.raises(ValueError, match="n_flows"):  # fewer than one flow (issue 16)
        red.equilibrium(0.5, 500, 0.02, rtt=0.01, capacity=CAP)
    with pytest.raises(ValueError, match="max_p"):
        red.equilibrium(10, 500, 1.5, rtt=0.01, capacity=CAP)
    with pytest.raises(ValueError, match="max_th must be > min_th"):
        red.equilibrium(10, 4, 0.02, rtt=0.01, capacity=CAP)
    with pytest.raises(ValueError, match="sender"):
        red.equilibrium(10, 500, 0.02, rtt=0.01, capacity=CAP, sender="cubic")


@pytest.mark.parametrize("call, match", [
    # Each raised the solver's ConvergenceError (a RuntimeError): "could not bracket the root from below".
    (lambda: red.equilibrium(100, 500, 0.02, rtt=math.inf, capacity=CAP), "rtt must be finite"),
    (lambda: red.equilibrium(100, 500, 0.02, rtt=0.01, capacity=math.inf), "capacity must be finite"),
    (lambda: red.equilibrium(100, math.inf, 0.02, rtt=0.01, capacity=CAP), "max_th must be finite"),
    (lambda: red.equilibrium(100, 500, 0.02, rtt=0.01, capacity=CAP, rto=1e300), "rto=1e\\+300"),
    # NaN with a RuntimeWarning.
    (lambda: red.size(300, 0.02, math.inf), "rtt must be finite"),
    # A string was true.
    (lambda: red.equilibrium(100, 500, 0.02, rtt=0.01, capacity=CAP, ecn="false"), "ecn must be True or False"),
    (lambda: red.drop_probability(300, 5, 200, 0.1, gentle="false"), "gentle must be True or False"),
    (lambda: red.drop_rate(300, 5, 200, 0.1, gentle="false"), "gentle must be True or False"),
])
def test_bad_input_is_a_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_flags_take_numpy_bools():
    assert red.drop_probability(300, 5, 200, 0.1, gentle=np.True_) == red.drop_probability(300, 5, 200, 0.1, gentle=1)
    with pytest.raises(ValueError, match="capacity"):
        red.equilibrium(10, 500, 0.02, rtt=0.01, capacity=-5)


def test_no_equilibrium_is_an_error_not_a_number():
    with pytest.raises(solve.ConvergenceError, match="no equilibrium"):
        red.equilibrium(1e7, 10, 1.0, model="P2", rtt=0.01, capacity=CAP)


def test_thesis_models_warn_beyond_10_percent():
    with pytest.warns(TCPModelsWarning, match="10 %"):
        red.equilibrium(300, 100, 0.1, model="P1")


def test_size_hand_checked_and_consistent():
    # pif(0.02, 0.1) = 4.790447 (test_tcp); max_th = 1.5 * 100 * 4.790447, max_p = 0.75 * 0.02
    p = red.size(100, 0.02, 0.1)
    assert (p.min_th, p.max_p) == (5.0, pytest.approx(0.015))
    assert p.max_th == pytest.approx(718.567, rel=1e-5)
    assert p.queue == pytest.approx(479.0447, rel=1e-5)
    # Eq. 5.10 with the sized parameters returns the flows' packets: 2/3 of max_th
    assert red.queue_for_loss(p.loss_rate, p.max_th, p.max_p) == pytest.approx(p.queue)
    assert p.queue == pytest.approx(2 / 3 * p.max_th)
    assert red._SIZE_MAX_P_FACTOR == float(symbolic.sizing_max_p_factor(symbolic.sp.Rational(3, 2)))
    assert red.size([10, 100], 0.01, 0.1).max_th.shape == (2,)


def test_size_warns_and_rejects():
    with pytest.warns(TCPModelsWarning, match="3 %"):
        red.size(100, 0.05, 0.1)
    with pytest.raises(ValueError, match="loss_rate"):
        red.size(100, 5, 0.1)
    with pytest.raises(ValueError, match="rtt"):
        red.size(100, 0.01, 0)


def test_max_p_for_buffer():
    # 0.81 * 100**2 / 1000**2 = 0.0081
    assert red.max_p_for_buffer(100, 1000) == pytest.approx(0.0081)
    # Round trip through Eq. 5.13: the queue comes back at 3/4 max_th, to the
    # rounding of 0.81 (0.7 / 0.81**(1/3) = 0.7509, i.e. 0.12 %)
    mp = red.max_p_for_buffer(np.array([50, 100, 200]), 1000)
    q = red.equilibrium(np.array([50, 100, 200]), 1000, mp, model="P1").queue
    np.testing.assert_allclose(q, 750, rtol=0.0013)
    assert red.MAX_P_CONSTANT == round(float(symbolic.max_p_rule_constant()), 2)
    with pytest.warns(TCPModelsWarning, match="too small"):
        red.max_p_for_buffer(300, 100)
    with pytest.raises(ValueError, match="max_th"):
        red.max_p_for_buffer(300, 0)


# ------------------------------------------------------------ gentle RED and ECN

def test_gentle_is_plain_p3_below_max_th():
    # Below max_th the gentle curve is RED's: the same equilibrium where P3 does not saturate.
    plain = red.equilibrium([10, 100], 500, 0.02, rtt=0.01, capacity=CAP)
    gentle = red.equilibrium([10, 100], 500, 0.02, rtt=0.01, capacity=CAP, gentle=True)
    assert not plain.saturated.any()
    np.testing.assert_allclose(gentle.loss_rate, plain.loss_rate, rtol=1e-9)
    np.testing.assert_allclose(gentle.queue, plain.queue, rtol=1e-9)


def test_gentle_goes_beyond_max_th_on_its_ramp():
    # 300 flows saturate plain RED (queue pinned at max_th); gentle RED's queue passes max_th on the
    # ramp s = 2 p_b, p_b = max_p + (1 - max_p)(q - max_th)/max_th (Floyd's gentle curve).
    plain = red.equilibrium(300, 500, 0.02, rtt=0.01, capacity=CAP)
    e = red.equilibrium(300, 500, 0.02, rtt=0.01, capacity=CAP, gentle=True)
    assert plain.saturated and plain.queue == 500
    assert e.queue > 500 and not e.saturated
    p_b = red.drop_probability(e.queue, 5, 500, 0.02, gentle=True)
    assert e.loss_rate == pytest.approx(2 * p_b, rel=1e-9)
    assert e.loss_rate < plain.loss_rate  # the longer queue holds packets the plain cap drops
    # a hard limit below the ramp's end caps it: the queue is pinned there, like P3 at max_th
    capped = red.equilibrium(300, 500, 0.02, rtt=0.01, capacity=CAP, gentle=True, limit=510)
    assert capped.saturated and capped.queue == 510
    assert plain.loss_rate > capped.loss_rate > e.loss_rate
    held = 300 * (1 - capped.timeout_fraction) * capped.window
    assert held == pytest.approx(capped.queue + CAP * 0.01, rel=1e-9)


def test_ecn_marks_without_loss_or_time_out_below_max_th():
    plain = red.equilibrium([20, 70], 500, 0.02, rtt=0.01, capacity=CAP)
    e = red.equilibrium([20, 70], 500, 0.02, rtt=0.01, capacity=CAP, ecn=True)
    np.testing.assert_array_equal(e.loss_rate, 0.0)
    np.testing.assert_array_equal(e.timeouts_per_packet, 0.0)
    np.testing.assert_array_equal(e.timeout_fraction, 0.0)
    # marks sit on RED's curve and halve windows as losses do; without time-outs every flow keeps
    # sending, so the queue and the signal are above plain RED's
    np.testing.assert_allclose(e.queue, 5 + e.mark_rate * 495 / 0.04, rtol=1e-12)
    np.testing.assert_allclose(20 * e.window[0], e.queue[0] + CAP * 0.01, rtol=1e-9)
    assert np.all(e.mark_rate > plain.loss_rate) and np.all(e.queue > plain.queue)
    np.testing.assert_array_equal(plain.mark_rate, 0.0)


def test_ecn_saturated_splits_drops_and_marks():
    # Above max_th every arrival is dropped: a fraction theta of arrivals, the rest marked at 2 max_p.
    e = red.equilibrium(300, 500, 0.02, rtt=0.01, capacity=CAP, ecn=True)
    assert e.saturated and e.queue == 500
    signal = e.loss_rate + e.mark_rate
    theta = (signal - 0.04) / (1 - 0.04)
    assert e.loss_rate == pytest.approx(theta, rel=1e-12)
    assert e.mark_rate == pytest.approx((1 - theta) * 0.04, rel=1e-12)
    # time-outs follow drops only: Eq. 5.3 at the drop rate with NewReno's spacing
    assert e.timeouts_per_packet == pytest.approx(tcp.timeout_rate(e.loss_rate, spacing=3), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.floats(1, 2000), st.floats(20, 5000), st.floats(1e-3, 0.3), st.floats(0.001, 0.5),
       st.booleans(), st.booleans())
def test_gentle_and_ecn_monotone_in_flows(n, mth, mp, rtt, gentle, ecn):
    e = red.equilibrium([n, 1.1 * n], mth, mp, rtt=rtt, capacity=CAP, gentle=gentle, ecn=ecn)
    signal = e.loss_rate + e.mark_rate
    assert signal[1] >= signal[0] * (1 - 1e-9)
    assert e.queue[1] >= e.queue[0] * (1 - 1e-9)
    assert np.all(e.queue <= (2 * mth if gentle else mth))
    assert np.all((e.loss_rate >= 0) & (e.mark_rate >= 0) & (signal <= 1))


@pytest.mark.parametrize("kw", [{"gentle": True}, {"ecn": True}, {"gentle": True, "ecn": True, "limit": 700}])
def test_gentle_and_ecn_agree_with_brentq(kw):
    # The vectorized solve equals a scalar brentq on the same residual to 1e-9 (issue target).
    rng = np.random.default_rng(4)
    n, mth, mp = rng.uniform(1, 600, 30), rng.uniform(50, 600, 30), rng.uniform(0.005, 0.2, 30)
    e = red.equilibrium(n, mth, mp, rtt=0.05, capacity=CAP, **kw)
    for i in range(30):
        s = red.equilibrium(n[i], mth[i], mp[i], rtt=0.05, capacity=CAP, **kw)
        ref = red_brentq(n[i], mth[i], mp[i], 0.05, kw)
        assert e.loss_rate[i] + e.mark_rate[i] == pytest.approx(ref, rel=1e-9)
        assert s.loss_rate == e.loss_rate[i]


def red_brentq(n, mth, mp, rtt, kw):
    """The P3 signal rate for one point by scipy's brentq on red._p3_residual."""
    gentle, ecn, limit = kw.get("gentle", False), kw.get("ecn", False), kw.get("limit", np.inf)
    top = mth * (1 + (0.5 - mp) / (1 - mp)) if gentle and 2 * mp < 1 else mth
    q_cap = min(top, limit) if gentle else mth
    l_cap = min(2 * red.drop_probability(q_cap, 5, mth, mp, gentle=gentle), 1.0) if gentle else min(2 * mp, 1.0)
    base = (n, 5.0, mth, mp, rtt, CAP, 1.0, 3.0, q_cap, l_cap)
    sat = float(red._p3_residual(l_cap, *base, 0.0, gentle=gentle, ecn=ecn) > 0 and l_cap < 1)
    hi = 1.0 if sat else l_cap
    residual = functools.partial(red._p3_residual, gentle=gentle, ecn=ecn)
    return brentq(residual, 1e-15, hi, args=base + (sat,), xtol=1e-300, rtol=1e-14)


def test_gentle_and_ecn_input_forms_and_bad_input():
    e = red.equilibrium(np.array([[50], [300]]), [250, 500], 0.1, rtt=0.01, capacity=CAP, ecn=True, gentle=True,
                        limit=[5000, 5000])
    assert e.loss_rate.shape == e.mark_rate.shape == e.saturated.shape == (2, 2)
    scalar = red.equilibrium(50, 250, 0.1, rtt=0.01, capacity=CAP, ecn=True)
    assert isinstance(scalar.mark_rate, float) and isinstance(scalar.loss_rate, float)
    assert red.equilibrium([50, 60], 250, 0.1, rtt=0.01, capacity=CAP, ecn=True).mark_rate.shape == (2,)
    with pytest.raises(ValueError, match="max_th must be <= limit"):
        red.equilibrium(50, 250, 0.1, rtt=0.01, capacity=CAP, gentle=True, limit=200)
    with pytest.raises(ValueError, match="limit"):
        red.equilibrium(50, 250, 0.1, rtt=0.01, capacity=CAP, gentle=True, limit=0)
    with pytest.raises(ValueError, match="gentle and ecn need model='P3'"):
        red.equilibrium(50, 250, 0.1, rtt=0.01, capacity=CAP, model="P2", ecn=True)
