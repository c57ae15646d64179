"""Morris (1999) Eq. 5.1-5.5, Mathis (1997) and Padhye (1998): hand-checked values and properties."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpmodels import TCPModelsWarning, tcp

losses = st.floats(1e-6, 0.1)


def test_window_hand_checked():
    # 0.87 / sqrt(0.01) = 0.87 / 0.1 = 8.7; 0.87 / sqrt(0.04) = 4.35
    assert tcp.window(0.01) == pytest.approx(8.7, rel=1e-12)
    assert tcp.effective_window(0.04) == pytest.approx(4.35 - 1.0, rel=1e-12)
    assert tcp.loss_for_window(4.35) == pytest.approx(0.04, rel=1e-12)


def test_timeout_rate_hand_checked():
    # 0.95**13 = 0.513342; 0.05 * (1 - 0.513342) = 0.0243329
    assert tcp.timeout_rate(0.05) == pytest.approx(0.0243329, rel=1e-5)
    # NewReno spacing 3: 0.05 * (1 - 0.95**3) = 0.05 * 0.142625 = 0.00713125
    assert tcp.timeout_rate(0.05, spacing=tcp.TIMEOUT_SPACING["newreno"]) == pytest.approx(0.00713125, rel=1e-9)


def test_timeout_fraction_and_pif_hand_checked():
    # 0.98**13 = exp(13 * -0.0202027) = 0.769022, o = 0.02 * 0.230978 = 0.00461956,
    # w = 0.87 / 0.1414214 = 6.151829, x = w o = 0.0284186, O = x / (x + 0.1) = 0.221297,
    # pif = (1 - O) w = 0.778703 * 6.151829 = 4.790447  (hand arithmetic to 6 figures)
    assert tcp.timeout_fraction(0.02, 0.1) == pytest.approx(0.221297, rel=1e-5)
    assert tcp.packets_in_flight(0.02, 0.1) == pytest.approx(4.790447, rel=1e-5)
    # rto scales the time-out: with 2 s, x = 0.0568372, O = 0.0568372 / 0.1568372 = 0.362397
    assert tcp.timeout_fraction(0.02, 0.1, rto=2.0) == pytest.approx(0.362397, rel=1e-5)
    # an explicit window replaces Eq. 5.1: w = 10, x = 0.0461956, O = 0.0461956 / 0.1461956 = 0.315985
    assert tcp.timeout_fraction(0.02, 0.1, window=10) == pytest.approx(0.315985, rel=1e-5)


def test_mathis_hand_checked():
    # sqrt(3/4) / (0.1 * sqrt(0.01)) = 0.866025 / 0.01
    assert tcp.mathis(0.01, 0.1) == pytest.approx(86.6025, rel=1e-6)
    # Morris' window law is Mathis with C = 0.87, per round trip
    assert tcp.mathis(0.01, 0.1, c=tcp.WINDOW_CONSTANT) == pytest.approx(tcp.window(0.01) / 0.1)


def test_padhye_hand_checked():
    # Full model, p = 0.01, r = 0.1, T0 = 1, b = 2 (arithmetic in the docstring): 69.52
    assert tcp.padhye(0.01, 0.1) == pytest.approx(69.52, rel=2e-4)
    # Window-limited, W_m = 6 < E[W] = 12.17: Q(6) = 0.029701 * 1.028819 / 0.058520 = 0.52217,
    # (99 + 6 + 0.52745) / (0.1 (1.5 + 16.5 + 2) + 0.52217 * 1.010203 / 0.99) = 105.5274 / 2.53283
    assert tcp.padhye(0.01, 0.1, max_window=6) == pytest.approx(41.664, rel=2e-4)
    # Approximation (RFC 5348 form): 1 / (0.011547 + 0.2598 * 0.01 * 1.0032)
    assert tcp.padhye(0.01, 0.1, approximate=True) == pytest.approx(70.654, rel=1e-4)
    assert tcp.padhye(0.01, 0.1, max_window=6, approximate=True) == pytest.approx(60.0)


@given(losses, losses)
def test_window_decreases_and_inverts(a, b):
    lo, hi = min(a, b), max(a, b)
    assert tcp.window(lo) >= tcp.window(hi)
    assert tcp.loss_for_window(tcp.window(a)) == pytest.approx(a, rel=1e-12)


@given(losses, st.floats(0.001, 1.0), st.floats(0.2, 4.0))
def test_timeouts_bounded(l, rtt, rto):
    o = tcp.timeout_rate(l)
    assert 0 <= o <= l
    frac = tcp.timeout_fraction(l, rtt, rto=rto, window=max(4.0, tcp.window(l)))
    assert 0 <= frac < 1
    assert tcp.packets_in_flight(l, rtt, rto) <= tcp.window(l)


@given(st.floats(0.001, 0.5), st.floats(0.01, 0.5))
def test_padhye_at_most_window_limit(l, rtt):
    assert tcp.padhye(l, rtt, max_window=20) <= 20 / rtt * (1 + 1e-12)


@pytest.mark.parametrize("func,args", [
    (tcp.window, ()), (tcp.effective_window, ()), (tcp.timeout_rate, ()),
    (tcp.timeout_fraction, (0.1,)), (tcp.packets_in_flight, (0.1,)), (tcp.mathis, (0.1,)), (tcp.padhye, (0.1,)),
])
def test_broadcasting(func, args):
    assert isinstance(func(0.01, *args), float)
    listed = func([0.01, 0.02], *args)
    assert isinstance(listed, np.ndarray) and listed.shape == (2,)
    np.testing.assert_allclose(listed, [func(0.01, *args), func(0.02, *args)])
    grid = func(np.array([[0.01], [0.02]]), *(np.array([0.1, 0.2, 0.3]) for _ in args))
    assert grid.shape == ((2, 3) if args else (2, 1))


def test_loss_for_window_broadcasts():
    assert isinstance(tcp.loss_for_window(5), float)
    assert tcp.loss_for_window([5, 6]).shape == (2,)
    assert tcp.loss_for_window(np.array([[5.0], [6.0]])).shape == (2, 1)


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, math.nan, "x"])
def test_bad_loss_rate(bad):
    with pytest.raises(ValueError, match="loss_rate"):
        tcp.window(bad)


def test_bad_other_arguments():
    with pytest.raises(ValueError, match="window must be finite"):  # NaN and a RuntimeWarning
        tcp.timeout_fraction(0.01, 0.1, window=math.inf)
    with pytest.raises(ValueError, match="approximate must be True or False, got 'false'"):  # was the approximation
        tcp.padhye(0.01, 0.1, approximate="false")
    with pytest.raises(ValueError, match="loss_rate must be a number or an array of numbers"):  # 8.7 from "0.01"
        tcp.window(["0.01"])
    with pytest.raises(ValueError, match="rtt must be > 0, got -0.1"):
        tcp.timeout_fraction(0.01, -0.1)
    with pytest.raises(ValueError, match="spacing"):
        tcp.timeout_rate(0.01, spacing=0)
    with pytest.raises(ValueError, match="rto"):
        tcp.packets_in_flight(0.01, 0.1, rto=0)
    with pytest.raises(ValueError, match="window"):
        tcp.loss_for_window(0.5)
    with pytest.raises(ValueError, match="max_window"):
        tcp.padhye(0.01, 0.1, max_window=-1)
    with pytest.raises(ValueError, match="loss_rate"):
        tcp.padhye(1.0, 0.1)


def test_warnings_outside_validity():
    with pytest.warns(TCPModelsWarning, match="10 %"):
        tcp.window(0.2)
    with pytest.warns(TCPModelsWarning, match="four"):
        tcp.timeout_fraction(0.01, 0.1, window=3)
