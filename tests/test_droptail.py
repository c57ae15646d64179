"""Morris (1999) Eq. 5.6-5.7: drop-tail and random-drop loss against flows and buffer."""

import functools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from tcpmodels import TCPModelsWarning, data, droptail, sim, tcp, units


def test_hand_checked():
    # 0.76 * 100**2 / (100 + 500)**2 = 7600 / 360000
    assert droptail.loss_rate(100, 500) == pytest.approx(0.0211111, rel=1e-6)
    # 0.76 * 100**2 / (150 + 500)**2 = 7600 / 422500
    assert droptail.loss_rate(100, 500, policy="random-drop") == pytest.approx(0.01798817, rel=1e-6)
    # 100 * (0.87 / sqrt(0.02) - 1) = 100 * 5.151829
    assert droptail.queue(100, 0.02) == pytest.approx(515.1829, rel=1e-6)
    assert droptail.queue(100, 0.02, policy="random-drop") == pytest.approx(465.1829, rel=1e-6)


@given(st.floats(1, 200), st.floats(1000, 5000), st.sampled_from(["droptail", "random-drop"]))
def test_queue_and_loss_are_inverse(n, buffer, policy):
    # The published 0.76 rounds 0.87**2 = 0.7569, so 0.87 / sqrt(l) = 0.99796 (h n + q) / n and the
    # queue comes back as q - 0.00204 (h n + q): relative error 0.00204 (1 + h n / q), h <= 1.5.
    l = droptail.loss_rate(n, buffer, policy=policy)
    assert droptail.queue(n, l, policy=policy) == pytest.approx(buffer, rel=0.00205 * (1 + 1.5 * n / buffer))


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
@given(st.floats(1, 1000), st.floats(10, 1e4))
def test_random_drop_loses_less(n, buffer):
    # Fig. 5.7 and Eq. 5.7: random drop signals half a window earlier.
    assert droptail.loss_rate(n, buffer, policy="random-drop") < droptail.loss_rate(n, buffer)


def test_loss_grows_as_n_squared_for_few_flows():
    # Section 5.2.1: l ~ n^2 while n << q
    ratio = droptail.loss_rate(20, 1e6) / droptail.loss_rate(10, 1e6)
    assert ratio == pytest.approx(4.0, rel=1e-4)


def test_bdp_adds_to_buffer():
    assert droptail.loss_rate(50, 300, bdp=217) == droptail.loss_rate(50, 517)


def test_broadcasting():
    assert isinstance(droptail.loss_rate(10, 500), float)
    assert droptail.loss_rate([10, 20], 500).shape == (2,)
    assert droptail.loss_rate(np.array([[10], [20]]), [500, 1000, 2000]).shape == (2, 3)
    assert isinstance(droptail.queue(10, 0.01), float)
    assert droptail.queue([10, 20], [[0.01], [0.02]]).shape == (2, 2)


def test_bad_input():
    with pytest.raises(ValueError, match="n_flows must be finite"):  # NaN and a RuntimeWarning
        droptail.loss_rate(np.inf, 500)
    with pytest.raises(ValueError, match="n_flows"):
        droptail.loss_rate(0, 500)
    with pytest.raises(ValueError, match="buffer"):
        droptail.loss_rate(10, -1)
    with pytest.raises(ValueError, match="policy"):
        droptail.loss_rate(10, 500, policy="red")
    with pytest.raises(ValueError, match="loss_rate"):
        droptail.queue(10, 0)


def test_warnings():
    with pytest.warns(TCPModelsWarning, match="4 packets"):
        droptail.loss_rate(300, 500)
    with pytest.warns(TCPModelsWarning, match="negative"):
        droptail.queue(10, 0.9)


# ------------------------------------------------------------ equilibrium

CAP = units.capacity(10e6, 576)  # the thesis' 10 Mbit/s link, 2170 packets/s


def reference(sweep):
    rows = data.table("ns3_more_10ms")
    keep = rows["sweep"] == sweep
    return {k: v[keep] for k, v in rows.items() if k not in ("sweep", "queue")}


def test_p1_is_eq_5_6_with_the_buffer_full():
    e = droptail.equilibrium(40, 500, rtt=0.01, capacity=CAP, model="P1")
    assert e.loss_rate == droptail.loss_rate(40, 500)  # 0.76 * 1600 / 540**2
    assert (e.queue, e.losses_per_event, e.model) == (500.0, 1.0, "P1")
    # 40 (0.87 / sqrt(l) - 1) = 500 to the 0.76 rounding (test_queue_and_loss_are_inverse)
    assert 40 * e.window == pytest.approx(500, rel=0.00205 * (1 + 40 / 500))
    # Eq. 5.3 with Tahoe's 13 and Eq. 5.4 at the propagation round trip, as the thesis writes them
    assert e.timeouts_per_packet == pytest.approx(tcp.timeout_rate(e.loss_rate), rel=1e-12)
    assert e.timeout_fraction == pytest.approx(tcp.timeout_fraction(e.loss_rate, 0.01, window=e.window), rel=1e-12)


def test_p2_balance_holds():
    n = np.array([10.0, 100.0, 300.0])
    e = droptail.equilibrium(n, 500, rtt=0.05, capacity=CAP, model="P2")
    held = n * (1 - e.timeout_fraction) * e.window
    np.testing.assert_allclose(held, 500 + CAP * 0.05, rtol=1e-9)
    np.testing.assert_allclose(e.window, tcp.WINDOW_CONSTANT / np.sqrt(e.loss_rate) - 1, rtol=1e-12)


def cycle_window(events):
    # The recovery cycle (record, second pass): 1/e = 3 W^2/4 + 3 W/2 - 2 packets in W + 3 round trips.
    peak = (-1.5 + np.sqrt(2.25 + 3 * (1 / events + 2))) / 1.5
    return 1 / events / (peak + 3)


def train_losses_by_grid(n, window, packed, points=1500):
    # Losses per event of P3's step 2 on a grid, written apart from the module: extents E uniform on
    # [packed, 1], the overflow window d at a uniform offset x, the flow's pairs in the overlap hit
    # independently at p each, 5/4 packets per hit pair, g = 1/2 per flow.
    mean_e = (1 + packed) / 2
    d = min(2 * 0.5 * np.sqrt(n * mean_e / (1 - mean_e)) / window, 1.0) if packed < 1 else 1.0
    p = 0.4 / (window / 2 * d)
    e = packed + (1 - packed) * (np.arange(points) + 0.5) / points
    x = (np.arange(points) + 0.5) / points
    lo, hi = x[None, :], x[None, :] + d
    ext = e[:, None]
    overlap = sum(np.clip(np.minimum(hi, ext + k) - np.maximum(lo, k), 0, None) for k in (-1, 0, 1))
    hit = 1 - (1 - p) ** (window / 2 * overlap / ext)
    return max(0.5 / hit.mean(), 1.25)


def test_p3_losses_per_event():
    # The closed form (pieces between the overlap law's kinks, Gauss-Legendre) equals the grid to 0.2 %
    # (the grid's resolution); where the trains fill the round trip (packed = 1) the overflow covers every
    # pair: k = g / (1 - (1 - p)^(w/2)), p = 0.4 / (w/2): 10 packets, 0.5 / (1 - 0.92^5) = 1.466626.
    assert droptail._train_losses(np.array(5.0), np.array(10.0), np.array(1.0)) == pytest.approx(1.466626, rel=1e-6)
    for n, w, packed in [(20, 30.0, 0.1), (40, 15.0, 0.1), (100, 5.0, 0.1), (20, 80.0, 0.05), (200, 2.5, 0.05)]:
        k = droptail._train_losses(np.array(float(n)), np.array(w), np.array(packed))
        assert k == pytest.approx(train_losses_by_grid(n, w, packed), rel=2e-3), (n, w, packed)
    # Trains raise k where the overflow is short against the round trip (few flows, large windows); a
    # one-round-trip overflow over many small windows leaves the even spread's binomial law.
    k = droptail._train_losses(np.array([20.0, 200.0]), np.array([40.0, 3.0]), np.array([0.1, 0.1]))
    assert k[0] > 1.6 > 1.45 > k[1] >= droptail.PAIR_LOSSES


def test_p3_balance_and_its_parts():
    n = np.array([20.0, 100.0, 200.0])
    e = droptail.equilibrium(n, 500, rtt=0.01, capacity=CAP)
    # Losses per event from the trains at the flows' window (no access rate: packed at the bottleneck's
    # rate, 1/n of the round trip); windows the recovery cycle's at the loss-event rate, time-outs at that
    # rate and at rtt + queue / C.
    np.testing.assert_allclose(e.losses_per_event, droptail._train_losses(n, e.window, 1 / n), rtol=1e-12)
    events = e.loss_rate / e.losses_per_event
    np.testing.assert_allclose(e.window, cycle_window(events), rtol=1e-12)
    np.testing.assert_allclose(e.timeouts_per_packet, tcp.timeout_rate(events, spacing=3), rtol=1e-12)
    x = e.window * e.timeouts_per_packet
    np.testing.assert_allclose(e.timeout_fraction, x / (x + 0.01 + e.queue / CAP), rtol=1e-12)
    np.testing.assert_allclose(n * (1 - e.timeout_fraction) * e.window, e.queue + CAP * 0.01, rtol=1e-9)
    # The queue is the overflow cycle's, as in P3-poisson.
    np.testing.assert_array_equal(e.queue, droptail.equilibrium(n, 500, rtt=0.01, capacity=CAP,
                                                                model="P3-poisson").queue)
    # Random drop: the Poisson spread (victims at random in the queue), windows half a packet lower.
    r = droptail.equilibrium(n, 500, rtt=0.01, capacity=CAP, policy="random-drop")
    np.testing.assert_allclose(r.losses_per_event, 0.5 / (1 - np.exp(-0.5)), rtol=1e-12)
    np.testing.assert_allclose(r.window, cycle_window(r.loss_rate / r.losses_per_event) - 0.5, rtol=1e-12)
    # Storage below what the cycle's windows hold at one loss event per packet: loss 1, warned.
    with pytest.warns(TCPModelsWarning, match="one loss event per packet"):
        assert droptail.equilibrium(2000, 10, rtt=0.001, capacity=CAP).loss_rate == 1.0


def test_p3_poisson_balance_and_its_parts():
    n = np.array([20.0, 100.0, 200.0])
    e = droptail.equilibrium(n, 500, rtt=0.01, capacity=CAP, model="P3-poisson")
    # k = g / (1 - exp(-g)) with g = 1/2: 0.5 / 0.393469 = 1.270747
    np.testing.assert_allclose(e.losses_per_event, 1.270747, rtol=1e-6)
    # windows at the loss-event rate, time-outs at that rate and at rtt + queue / C
    events = e.loss_rate / e.losses_per_event
    np.testing.assert_allclose(e.window, 0.87 / np.sqrt(events) - 1, rtol=1e-12)
    np.testing.assert_allclose(e.timeouts_per_packet, tcp.timeout_rate(events, spacing=3), rtol=1e-12)
    x = e.window * e.timeouts_per_packet
    np.testing.assert_allclose(e.timeout_fraction, x / (x + 0.01 + e.queue / CAP), rtol=1e-12)
    np.testing.assert_allclose(n * (1 - e.timeout_fraction) * e.window, e.queue + CAP * 0.01, rtol=1e-9)
    # the cycle's queue: the hit flows give up f 14/27 (q + wire), the others grow (1 - f) n/2 meanwhile,
    # the dip y refills in t = y / (n/2) round trips, q = B - y/2 (1 + t)/(2 + t)
    f = 1 - np.exp(-0.5)
    dip = f * 14 / 27 * (e.queue + CAP * 0.01) - (1 - f) * 0.5 * n
    t = dip / (0.5 * n)
    assert np.all(dip > 0)
    np.testing.assert_allclose(e.queue, 500 - dip / 2 * (1 + t) / (2 + t), rtol=1e-9)
    # where the others' growth outpaces the halvings there is no dip: the queue stays at the buffer
    assert droptail.equilibrium(2000, 500, rtt=0.01, capacity=CAP, model="P3-poisson").queue == 500


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_p2_reduces_to_p1_where_eq_5_6_assumptions_hold():
    # No wire (rtt -> 0) and no time-outs (rto -> 0): P2's balance is Eq. 5.6 with 0.87**2 for 0.76,
    # so the two differ by the rounding, 0.76 / 0.7569 - 1 = 0.41 %.  What is left: the wire,
    # 2170 * 1e-6 = 0.002 packets of 1000 (loss moves by 2 x 2.2e-6), and Eq. 5.4's
    # w o rto / rtt < 1e-8.
    n = np.array([5.0, 50.0, 200.0])
    p1 = droptail.equilibrium(n, 1000, rtt=1e-6, capacity=CAP, rto=1e-15, model="P1")
    p2 = droptail.equilibrium(n, 1000, rtt=1e-6, capacity=CAP, rto=1e-15, model="P2")
    np.testing.assert_allclose(p2.loss_rate * 0.76 / 0.87**2, p1.loss_rate, rtol=1e-5)


def test_p3_poisson_is_eq_5_6_at_the_event_rate_without_wire_and_time_outs():
    # With rtt -> 0 and rto -> 0 P3-poisson is Eq. 5.6 (exact constant) with its own queue, times k.
    # Tolerance as in the P2 test: the wire, 0.002 packets of ~450, and time-outs below 1e-8.
    e = droptail.equilibrium(np.array([10.0, 100.0]), 500, rtt=1e-6, capacity=CAP, rto=1e-15, model="P3-poisson")
    eq56 = 0.87**2 * np.array([10.0, 100.0]) ** 2 / (np.array([10.0, 100.0]) + e.queue) ** 2
    np.testing.assert_allclose(e.loss_rate, e.losses_per_event * eq56, rtol=1e-5)


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_p3_against_the_packet_level_reference():
    # Issue 16: within 20 % on loss on every row with loss above 0.1 % and within 10 % on queue.
    # Measured (N = 20 ... 200): loss -1.0 -1.4 -0.1 +1.6 +5.4 +8.3 +1.1 %, queue -0.3 -0.1 +1.0 +1.3
    # -0.1 -2.5 -1.8 %; tolerances just above the largest.  P3-poisson (k = 1.27, Eq. 5.2's windows):
    # loss -21.4 -11.9 -4.8 -0.9 +4.8 +11.4 +6.6 %, the 20-flow row beyond the goal; nothing is fitted.
    # Eq. 5.6 (P1) on the same rows: -43 -34 -26 -21 -14 -3 -1 %, queue (= buffer) up to +8.8 %.
    ref = reference("droptail500")
    e = droptail.equilibrium(ref["flows"], ref["limit"], rtt=0.01, capacity=CAP)
    lossy = ref["drop_rate"] > 1e-3
    loss_err = e.loss_rate / ref["drop_rate"] - 1
    queue_err = e.queue / ref["avg_queue"] - 1
    assert np.abs(loss_err[lossy]).max() < 0.09, loss_err
    poisson = droptail.equilibrium(ref["flows"], ref["limit"], rtt=0.01, capacity=CAP, model="P3-poisson")
    poisson_err = poisson.loss_rate / ref["drop_rate"] - 1
    assert np.abs(poisson_err[lossy]).max() < 0.22 and np.sum(np.abs(poisson_err[lossy]) < 0.2) == lossy.sum() - 1
    assert np.abs(queue_err[lossy]).max() < 0.03, queue_err
    assert np.abs(queue_err).max() < 0.07, queue_err  # 5 flows: -6 %, windows near the 64 KB cap
    p1 = droptail.equilibrium(ref["flows"], ref["limit"], rtt=0.01, capacity=CAP, model="P1")
    p1_err = np.abs(p1.loss_rate / ref["drop_rate"] - 1)
    assert np.all(np.abs(loss_err[lossy]) <= p1_err[lossy] + 0.15)  # P3 never much worse than Eq. 5.6
    assert p1_err[lossy].max() > 0.4  # and Eq. 5.6 misses by over 40 % where P3 is within 9 %


# The reference's senders (shared/reference/README.md): a 64 KB window without scaling, 122 segments of
# 536 bytes, and access links at max(10 x bottleneck / N, 1 Mbit/s).
REFERENCE_WINDOW = 65535 // 536


def reference_access(n):
    return units.capacity(np.maximum(10 * 10e6 / np.asarray(n, dtype=float), 1e6), 576)


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_p3_with_the_escaping_flow_against_the_reference():
    # With the senders' own limits (module docstring, step 5) one flow escapes the overflows.  Measured
    # (N = 20 ... 200): loss +6.6 +8.8 +6.8 +5.6 +7.9 +9.7 +1.4 %, queue +2.0 +2.1 +2.4 +2.3 +0.6
    # -1.8 -1.2 % (without the limits -1.0 ... +8.3 %; P3-poisson with the limits -11.4 +1.7 +3.0 +4.0
    # +8.1 +13.8 +8.0 %).  Tolerances: 10 % on loss (the goal is 20 %) and 3 % on queue, each just above
    # the largest error measured.
    ref = reference("droptail500")
    kw = {"rtt": 0.01, "capacity": CAP, "max_window": REFERENCE_WINDOW, "access_rate": reference_access(ref["flows"])}
    e = droptail.equilibrium(ref["flows"], ref["limit"], **kw)
    lossy = ref["drop_rate"] > 1e-3
    loss_err = e.loss_rate / ref["drop_rate"] - 1
    assert np.abs(loss_err[lossy]).max() < 0.10, loss_err
    assert np.abs((e.queue / ref["avg_queue"] - 1)[lossy]).max() < 0.03
    # The reference's Jain index of goodput, which P3 never sees, is what one flow holding the escaping
    # flow's share s of the packets, the others equal, gives: 1 / (n (s^2 + (1 - s)^2 / (n - 1))).
    # Measured: 0.55 0.34 0.43 0.50 0.55 0.43 0.36 against ns-3's 0.52 0.38 0.44 0.46 0.52 0.44 0.42;
    # to 0.07, as the others are not equal in ns-3 (lower) and the escaping flow not always at its limit.
    assert np.abs(e.jain_index - ref["jain"])[lossy].max() < 0.07, e.jain_index
    n = ref["flows"]
    share = e.escaping_window / (e.queue + CAP * 0.01)
    np.testing.assert_allclose(e.jain_index, 1 / (n * (share**2 + (1 - share) ** 2 / (n - 1))), rtol=1e-12)


def test_p3_escaping_flow_parts():
    n, rtt, acc = np.array([20.0, 100.0]), 0.05, units.capacity(1e6, 576)
    e = droptail.equilibrium(n, 500, rtt=rtt, capacity=CAP, max_window=REFERENCE_WINDOW, access_rate=acc)
    # The escaping flow: its limits at the round trip of the cycle's queue without it.
    alone = droptail.equilibrium(n, 500, rtt=rtt, capacity=CAP)
    escaper = np.minimum(REFERENCE_WINDOW, acc * (rtt + alone.queue / CAP))
    storage = e.queue + CAP * rtt - escaper
    np.testing.assert_allclose(e.escaping_window, escaper, rtol=1e-12)
    # The other n - 1 flows hold the rest, P3's balance at their loss-event rate; their loss, per packet
    # of all flows, is scaled by their share of the packets sent, their time-outs per flow-second by n - 1 / n.
    kept = storage / (storage + escaper)
    events = e.loss_rate / kept / e.losses_per_event
    np.testing.assert_allclose(e.window, cycle_window(events), rtol=1e-12)
    # Their trains can be no denser than their access links allow: packed into C / a of the n - 1 flows'
    # shares of the round trip.
    packed = np.minimum(np.maximum(CAP / acc, 1) / (n - 1), 1)
    np.testing.assert_allclose(e.losses_per_event, droptail._train_losses(n - 1, e.window, packed), rtol=1e-12)
    np.testing.assert_allclose((n - 1) * (1 - e.timeout_fraction * n / (n - 1)) * e.window, storage, rtol=1e-9)
    np.testing.assert_allclose(e.timeouts_per_packet, kept * tcp.timeout_rate(events, spacing=3), rtol=1e-12)
    # The queue is the cycle's of the n - 1 flows that halve, with the escaping flow's packets fixed.
    f = 1 - np.exp(-0.5)
    dip = f * 14 / 27 * storage - (1 - f) * 0.5 * (n - 1)
    t = dip / (0.5 * (n - 1))
    np.testing.assert_allclose(e.queue, 500 - dip / 2 * (1 + t) / (2 + t), rtol=1e-9)
    # No escaping flow without a limit below the storage or with one flow.
    for kw in ({}, {"max_window": 1e9}, {"access_rate": 1e9}):
        none = droptail.equilibrium(20, 500, rtt=rtt, capacity=CAP, **kw)
        assert none.loss_rate == alone.loss_rate[0]
        assert (none.escaping_window, none.jain_index) == (0.0, 1.0)
    # A limit of half the storage or more gives half the storage (warned): 20 flows at 50 ms hold
    # about 500 + 108 packets; a 400-packet window gives what a window just under half of them gives.
    half = (alone.queue[0] + CAP * rtt) / 2
    with pytest.warns(TCPModelsWarning, match="half the storage"):
        e400 = droptail.equilibrium(20, 500, rtt=rtt, capacity=CAP, max_window=400)
    assert e400.loss_rate == pytest.approx(droptail.equilibrium(20, 500, rtt=rtt, capacity=CAP,
                                                                max_window=half * (1 - 1e-12)).loss_rate, rel=1e-9)
    one = {"rtt": rtt, "capacity": CAP}
    assert (droptail.equilibrium(1, 500, max_window=50, **one).loss_rate
            == droptail.equilibrium(1, 500, **one).loss_rate)
    # P1 and P2, the thesis' forms, ignore the limits.
    for model in ("P1", "P2"):
        limited = droptail.equilibrium(20, 500, model=model, max_window=50, **one)
        assert limited.loss_rate == droptail.equilibrium(20, 500, model=model, **one).loss_rate
        assert (limited.escaping_window, limited.jain_index) == (0.0, 1.0)


def test_p3_poisson_takes_the_senders_limits_in_the_calculator():
    # P3-poisson has P3's step 5, so the calculator passes the limits to it as to P3.
    from tcpmodels import calculator
    link = {"bandwidth": 10e6, "rtt": 0.01, "packet_size": 576}
    s = calculator.droptail_sizing(n_flows=20, buffer=500, model="P3-poisson", max_window=122, access_rate=5e6, **link)
    e = droptail.equilibrium(20, 500, rtt=0.01, capacity=s.link.capacity, model="P3-poisson", max_window=122,
                             access_rate=units.capacity(5e6, 576))
    assert (s.rules[0].loss_rate, s.rules[0].escaping_window) == (e.loss_rate, 122.0)


def test_p3_escaping_flow_monotone():
    # More flows lose more, a bigger buffer less, with the escaping flow as without it.
    kw = {"rtt": 0.1, "capacity": CAP, "max_window": REFERENCE_WINDOW, "access_rate": units.capacity(1e6, 576)}
    n = np.linspace(2, 400, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        assert np.all(np.diff(droptail.equilibrium(n, 500, **kw).loss_rate) > 0)
        assert np.all(np.diff(droptail.equilibrium(50, np.linspace(100, 3000, 200), **kw).loss_rate) < 0)
    # At 10 ms, 20 flows, the 122-packet window is the whole storage (queue + wire without it) at a buffer
    # of 108: below, no flow escapes; above, one holds half the storage (warned), and its window from a
    # buffer of 241 on.  Loss jumps up once, where the flow starts escaping, and falls elsewhere.
    buffers = np.arange(60.0, 400.0)
    with pytest.warns(TCPModelsWarning, match="half the storage"):
        e = droptail.equilibrium(20, buffers, rtt=0.01, capacity=CAP, max_window=REFERENCE_WINDOW)
    storage = droptail.equilibrium(20, buffers, rtt=0.01, capacity=CAP).queue + CAP * 0.01
    rises = np.flatnonzero(np.diff(e.loss_rate) > 0)
    assert rises.size == 1 and storage[rises[0]] < REFERENCE_WINDOW <= storage[rises[0] + 1], buffers[rises]
    assert buffers[rises[0] + 1] == 108 and buffers[np.argmax(storage >= 2 * REFERENCE_WINDOW)] == 241
    with warnings.catch_warnings():
        warnings.simplefilter("error", TCPModelsWarning)  # beyond the band: no warning
        droptail.equilibrium(20, np.arange(241.0, 400.0), rtt=0.01, capacity=CAP, max_window=REFERENCE_WINDOW)


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_time_outs_against_the_reference():
    # The reference counts time-outs per data packet sent, as the models do: compared directly.
    # Its timeout_fraction is the flow-time from each RTO until recovery completes; Eq. 5.4 counts
    # one rto (1 s, the reference senders' minimum RTO) of idling per time-out.  Both are a rate
    # of time-outs per flow-second times a duration; the reference's own columns give its
    # duration, timeout_fraction / (timeouts_per_packet * C / n), 0.64 and 0.75 s on these rows, so
    # the two fractions compare to within that factor on top of the rate's error.
    # Measured P3 / reference, rows above 1e-3: per packet (N = 150, 200) 0.84, 0.71;
    # fraction (N = 40 ... 200) 2.55 2.69 2.54 2.59 1.32 0.95.  P1 (Tahoe's 13, propagation rtt):
    # per packet 4.5, 3.8; fraction 206, 165, 114, 86, 25, 12.  P3 with the senders' limits: the
    # others' smaller windows time out more: per packet 0.98, 0.81; fraction 4.4 3.7 3.2 3.0 1.5 1.1.
    # (P3-poisson: per packet 1.04, 0.86, fraction 2.9-3.2 and 1.15-1.6; with the limits 1.20, 0.97, 1.3-5.2.)
    ref = reference("droptail500")
    n = ref["flows"]
    busy = ref["timeouts_per_packet"] > 1e-3
    spent = ref["timeout_fraction"][busy] / (ref["timeouts_per_packet"][busy] * CAP / n[busy])
    assert np.all((spent > 0.5) & (spent < 1.0))
    limits = {"max_window": REFERENCE_WINDOW, "access_rate": reference_access(n)}
    factors = {("P3", False): (1.5, 4.0), ("P3", True): (1.5, 6.0), ("P1", False): (5.0, 250.0)}
    for (model, limited), (per_packet, fraction) in factors.items():
        e = droptail.equilibrium(n, 500, rtt=0.01, capacity=CAP, model=model, **(limits if limited else {}))
        ratio = e.timeouts_per_packet[busy] / ref["timeouts_per_packet"][busy]
        assert np.all((ratio > 1 / per_packet) & (ratio < per_packet)), (model, ratio)
        some = ref["timeout_fraction"] > 1e-3
        ratio = e.timeout_fraction[some] / ref["timeout_fraction"][some]
        assert np.all((ratio > 1 / fraction) & (ratio < fraction)), (model, ratio)


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 2000), st.floats(10, 1e4), st.floats(0.001, 0.5), st.sampled_from(["P1", "P2", "P3", "P3-poisson"]),
       st.sampled_from(["droptail", "random-drop"]))
def test_equilibrium_monotone(n, buffer, rtt, model, policy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        kw = {"rtt": rtt, "capacity": CAP, "model": model, "policy": policy}
        more_flows = droptail.equilibrium([n, 1.1 * n], buffer, **kw)
        more_buffer = droptail.equilibrium(n, [buffer, 1.1 * buffer], **kw)
        longer = droptail.equilibrium(n, buffer, **{**kw, "rtt": [rtt, 1.1 * rtt]})
    assert more_flows.loss_rate[1] >= more_flows.loss_rate[0] * (1 - 1e-9)
    assert more_buffer.loss_rate[1] <= more_buffer.loss_rate[0] * (1 + 1e-9)
    assert more_buffer.queue[1] >= more_buffer.queue[0]
    assert np.all(more_flows.queue <= buffer * (1 + 1e-12)) and np.all(more_flows.queue >= 0)
    # P1 has no wire, so the round trip does not enter its loss; P2's Eq. 5.4 at the propagation
    # round trip idles fewer flows as it grows, which can outweigh the wire (measured: loss up by
    # to 6 % for rtt x 1.1 on 34 % of random points); P3's round trip includes the queue.
    if model.startswith("P3"):
        assert longer.loss_rate[1] <= longer.loss_rate[0] * (1 + 1e-9)


def test_p3_random_drop_loses_less():
    e = droptail.equilibrium([20, 100, 300], 500, rtt=0.05, capacity=CAP)
    r = droptail.equilibrium([20, 100, 300], 500, rtt=0.05, capacity=CAP, policy="random-drop")
    assert np.all(r.loss_rate < e.loss_rate)


def test_p3_agrees_with_brentq():
    # The vectorized, bracketed solve equals a scalar brentq on the same balance to 1e-9 (issue target).
    rng = np.random.default_rng(5)
    n, b, rtt = rng.uniform(1, 500, 40), rng.uniform(100, 3000, 40), rng.uniform(0.005, 0.3, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        e = droptail.equilibrium(n, b, rtt=rtt, capacity=CAP)
    residual = functools.partial(droptail._residual, cycle=True)
    for i in range(40):
        args = (n[i], e.queue[i] + CAP * rtt[i], rtt[i], 1.0, 3.0, 1.0, 1.0, e.queue[i] / CAP)
        events = brentq(residual, 1e-15, 1.0, args=args, xtol=1e-300, rtol=1e-14)
        window = droptail._balance(events, *args, cycle=True)[1]
        ref = events * droptail._train_losses(n[i], window, 1 / n[i])
        assert e.loss_rate[i] == pytest.approx(ref, rel=1e-9)
    k = 0.5 / (1 - np.exp(-0.5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        e = droptail.equilibrium(n, b, rtt=rtt, capacity=CAP, model="P3-poisson")
    for i in range(40):
        args = (n[i], e.queue[i] + CAP * rtt[i], rtt[i], 1.0, 3.0, k, 1.0, e.queue[i] / CAP)
        ref = brentq(droptail._residual, 1e-15, 0.96, args=args, xtol=1e-300, rtol=1e-14)
        assert e.loss_rate[i] == pytest.approx(ref, rel=1e-9)


def test_equilibrium_input_forms():
    kw = {"rtt": 0.01, "capacity": CAP}
    scalar = droptail.equilibrium(50, 500, **kw)
    assert isinstance(scalar.loss_rate, float) and isinstance(scalar.queue, float)
    listed = droptail.equilibrium([50, 100], 500, **kw)
    array = droptail.equilibrium(np.array([50.0, 100.0]), 500, **kw)
    np.testing.assert_array_equal(listed.loss_rate, array.loss_rate)
    assert listed.loss_rate[0] == scalar.loss_rate
    grid = droptail.equilibrium(np.array([[50.0], [100.0]]), [250, 500, 1000], rtt=[0.01, 0.05, 0.1], capacity=CAP)
    assert grid.loss_rate.shape == grid.queue.shape == grid.losses_per_event.shape == (2, 3)
    assert grid.loss_rate[1, 1] == pytest.approx(droptail.equilibrium(100, 500, rtt=0.05, capacity=CAP).loss_rate,
                                                 rel=1e-12)
    assert set(scalar.to_dict()) == {"loss_rate", "queue", "window", "timeouts_per_packet", "timeout_fraction",
                                     "losses_per_event", "escaping_window", "jain_index", "model", "escaping_share"}


def test_equilibrium_bad_input():
    kw = {"rtt": 0.01, "capacity": CAP}
    for bad, match in [({"n_flows": 0.5}, "n_flows"), ({"buffer": 0}, "buffer"), ({"buffer": -5}, "buffer"),
                       ({"rtt": 0}, "rtt"), ({"capacity": -1}, "capacity"), ({"rtt": np.nan}, "rtt"),
                       ({"model": "P9"}, "model"), ({"policy": "red"}, "policy"), ({"sender": "cubic"}, "sender"),
                       ({"rto": 0}, "rto"), ({"buffer": np.inf}, "buffer"), ({"n_flows": np.inf}, "n_flows"),
                       ({"capacity": [2170, np.inf]}, "capacity"), ({"max_window": 0}, "max_window"),
                       ({"access_rate": -1}, "access_rate"),
                       # Beyond the solver's reach (its loss more than 1e72 below its bound): a ConvergenceError
                       ({"rto": 1e300}, "n_flows/buffer/rtt/capacity/rto: no solution .* rto=1e\\+300")]:
        args = {"n_flows": 10, "buffer": 500, **kw, **bad}
        with pytest.raises(ValueError, match=match):
            droptail.equilibrium(args.pop("n_flows"), args.pop("buffer"), **args)


def test_equilibrium_warnings():
    # Outside each model's validity: a warning saying which and why, never a silent number.
    with pytest.warns(TCPModelsWarning, match="4 packets"):
        droptail.equilibrium(200, 500, rtt=0.01, capacity=CAP, model="P1")
    with pytest.warns(TCPModelsWarning, match="10 %"):
        droptail.equilibrium(2000, 100, rtt=0.01, capacity=CAP, model="P2")
    with pytest.warns(TCPModelsWarning, match="empties"):
        droptail.equilibrium(10, 20, rtt=0.2, capacity=CAP)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.floats(1, 1000), st.floats(20, 5000), st.floats(0.002, 0.3)), min_size=1, max_size=6),
       st.sampled_from(["P1", "P2", "P3", "P3-poisson"]), st.booleans())
def test_equilibrium_broadcasts_elementwise(points, model, limited):
    # An array of points gives, element by element, what each point gives alone (with the senders' limits too).
    n, b, rtt = (np.array(x) for x in zip(*points, strict=True))
    kw = {"max_window": 50.0, "access_rate": 300.0} if limited else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        e = droptail.equilibrium(n, b, rtt=rtt, capacity=CAP, model=model, **kw)
        for i in range(len(points)):
            one = droptail.equilibrium(n[i], b[i], rtt=rtt[i], capacity=CAP, model=model, **kw)
            assert e.loss_rate[i] == pytest.approx(one.loss_rate, rel=1e-12)
            assert e.queue[i] == pytest.approx(one.queue, rel=1e-12)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_p3_against_the_simulator_on_longer_and_faster_links():
    # Issue 16: the hidden packet-level checks use 100 and 200 ms links, 20 Mbit/s and other buffers;
    # nothing in P3 was fitted, so the simulator checks it there, standing in for ns-3 3.44 (NewReno with
    # SACK and that release's PRR, recovery="prr-ns3.44"; the 10 ms references ran its classic recovery; 200 s, seed 1).
    # Measured on 3819adb (each round trip holds the serialization times), loss P3 / sim - 1 for 20, 50,
    # 100, 200 flows:
    #   100 ms, 10 Mbit/s, 500 packets:   +2 -12  -1 +14 %   queue  +2  +4  +7  -2 %
    #   200 ms, 10 Mbit/s, 500 packets:   -9  -4  -6 +12 %   queue  +3  +5  +7  +1 %
    #   100 ms, 20 Mbit/s, 1000 packets: +22  +0  -9  +2 %   queue  +0  +4  +4  +7 %
    #   200 ms, 20 Mbit/s, 250 packets:   -5  -6  -6  +5 %   queue +14 +17 +18 +12 %
    # (bb89f7d: -1 -5 -0 +10, +2 -7 -1 +13, +11 -1 -3 +0, -0 -7 -8 +3 %, queue -3 ... +8 %, +11 ... +24 %
    # behind the 250 packets.)  P3-poisson (k = 1.27) -21 -22 -4 +18, -31 -18 -11 +13, -11 -21 -17 -1, -29
    # -22 -12 +4 %; P1 +5 ... +730 %; against RFC 6937's PRR (the default sender) P3 +10 -0 +15 +29, +14 +7
    # +6 +30, +36 +8 +7 +19, +7 +5 +8 +27 %.  One flow escapes in most of these runs, as in ns-3 (the
    # simulator's Jain index 0.51-0.89, the top flow's share 5-18 %; at 200 flows 5 %, the access link's ten
    # times the fair share).  Earlier passes (P3-poisson, P1, RFC 6937's PRR before the duplicate ACKs were
    # counted) missed by up to -35 ... +45 % (P1 +887 %): see the git history of this comment.
    # Against an ns-3 3.44 replica of nine of these settings at 20-100 flows (not in the repository; a
    # 1-packet device queue, whose loss sits 9-24 % above the reference at 10 ms; access links at
    # max(10 C / N, 1 Mbit/s); seed 1) the simulator reads -3 ... -21 %, +3 % at 20 flows behind the 250
    # packets (3819adb; bb89f7d -10 ... -15 %, -2 %), P3 -2 ... -21 % (-21 ... +15 % on the record's 22
    # replica runs of its sixth pass, P3-poisson -36 ... -5 %): neither is the packet level here.  The
    # loss bound (25 %) fails with P3-poisson (-31 % at 20 flows on the 200 ms, 10 Mbit/s link, -29 % behind
    # the 250 packets on 3819adb); it was an expected failure until P3 of the seventh pass, which holds it
    # (22 % at most on 3819adb, 13 % on bb89f7d), so it is asserted again.
    # The simulator's queue sits 0-4 % below ns-3's on the 10 ms reference at 10-200 flows (8 % at 5; 3819adb,
    # 3.44's PRR, seed 1), where P3 is within 3 % of ns-3, so P3's queue is checked to 30 % where the buffer
    # holds at least half the wire and only for being above the simulator's where it holds less (the
    # 250-packet buffer behind 868 packets on the wire: the link idles 0.06-0.47 % there on 3819adb).
    settings = [(rtt, bw, b, n) for rtt, bw, b in ((0.1, 10e6, 500), (0.2, 10e6, 500), (0.1, 20e6, 1000),
                                                   (0.2, 20e6, 250)) for n in (20, 50, 100, 200)]
    sender = sim.NewReno(sack=True, recovery="prr-ns3.44")
    runs = sim.simulate([sim.Scenario(n_flows=n, bandwidth=bw, rtt=rtt, queue=sim.DropTail(buffer=b),
                                      sender=sender, duration=200.0, warmup=20.0, seed=1)
                         for rtt, bw, b, n in settings])
    rtt, bw, b, n = (np.array(x) for x in zip(*settings, strict=True))
    cap = units.capacity(bw, 576)
    loss, queue = (np.array([getattr(r, name) for r in runs]) for name in ("loss_rate", "queue"))
    p3 = droptail.equilibrium(n, b, rtt=rtt, capacity=cap)
    p1 = droptail.equilibrium(n, b, rtt=rtt, capacity=cap, model="P1")
    loss_err, queue_err = p3.loss_rate / loss - 1, p3.queue / queue - 1
    deep = b >= cap * rtt / 2
    assert np.abs(queue_err[deep]).max() < 0.3 and np.all(queue_err[~deep] > 0), queue_err
    assert np.abs(loss_err).max() < np.abs(p1.loss_rate / loss - 1).max() / 2
    assert np.abs(loss_err).max() < 0.25, loss_err
