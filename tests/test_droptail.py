"""Morris (1999) Eq. 5.6-5.7: drop-tail and random-drop loss against flows and buffer."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpmodels import TCPModelsWarning, droptail


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
