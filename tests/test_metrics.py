"""Tests for tcpmodels.metrics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpmodels import metrics

# Zero or normal magnitudes: scaling a subnormal share can round it to 0 or strip its precision.
shares = st.lists(st.one_of(st.just(0.0), st.floats(min_value=1e-100, max_value=1e6)), min_size=1, max_size=30)
positive = st.lists(st.floats(min_value=1e-3, max_value=1e3, allow_nan=False), min_size=1, max_size=50)


def test_jain_su_2006_tables():
    # Su et al. (2006) report per-flow link utilization; Jain's index of those numbers:
    # Table 1 (HSTCP H1-H3): (78.34 + 7.96 + 0.93)^2 / (3 (78.34^2 + 7.96^2 + 0.93^2))
    #   = 7609.07 / (3 * 6201.43) = 0.4090
    # Table 2 (ACWAP f1-f3): (56.32 + 21.23 + 12.21)^2 / (3 (56.32^2 + 21.23^2 + 12.21^2))
    #   = 8056.86 / (3 * 3771.74) = 0.7120  -- the paper's "alleviates RTT unfairness".
    assert metrics.jain_index([78.34, 7.96, 0.93]) == pytest.approx(0.4090, abs=5e-5)
    assert metrics.jain_index([56.32, 21.23, 12.21]) == pytest.approx(0.7120, abs=5e-5)


def test_jain_extremes_and_axis():
    assert metrics.jain_index([5.0, 5.0, 5.0]) == 1.0
    assert metrics.jain_index([1.0, 0.0, 0.0, 0.0]) == 0.25  # 1^2 / (4 * 1)
    x = np.array([[3.0, 1.0], [2.0, 2.0], [0.0, 0.0]])
    out = metrics.jain_index(x)  # (3+1)^2 / (2 * 10) = 0.8; equal shares 1; all zero 1
    np.testing.assert_allclose(out[:2], [0.8, 1.0])
    assert out[2] == 1.0  # all zero: equal shares, defined as 1 (metrics.jain_index Notes)
    np.testing.assert_allclose(metrics.jain_index(x[:2].T, axis=0), [0.8, 1.0])
    assert metrics.jain_index(4.0) == 1.0  # a single flow is trivially fair


@settings(max_examples=100, deadline=None)
@given(x=shares, scale=st.floats(min_value=1e-3, max_value=1e3))
def test_jain_bounds_and_scale_free(x, scale):
    j = metrics.jain_index(x)
    if max(x) == 0:
        assert j == 1.0  # equal shares of nothing (metrics.jain_index Notes)
        return
    n = len(x)
    assert 1.0 / n - 1e-12 <= j <= 1.0 + 1e-12
    assert metrics.jain_index(np.array(x) * scale) == pytest.approx(j, rel=1e-9)


def test_percentile_ratio_values():
    # 1..101: P95 = 1 + 0.95 * 100 = 96, P5 = 1 + 0.05 * 100 = 6 -> 16.
    assert metrics.percentile_ratio(np.arange(1, 102)) == pytest.approx(16.0)
    # Same sample, 75th over 25th: 76 / 26.
    assert metrics.percentile_ratio(np.arange(1, 102), high=75, low=25) == pytest.approx(76 / 26)
    rows = np.vstack([np.arange(1, 102), 2 * np.ones(101)])
    np.testing.assert_allclose(metrics.percentile_ratio(rows), [16.0, 1.0])


@settings(max_examples=100, deadline=None)
@given(x=positive, scale=st.floats(min_value=1e-3, max_value=1e3))
def test_percentile_ratio_at_least_one_and_scale_free(x, scale):
    r = metrics.percentile_ratio(x)
    assert r >= 1.0 - 1e-12
    assert metrics.percentile_ratio(np.array(x) * scale) == pytest.approx(r, rel=1e-9)


def test_delay_stats_values():
    # [1, 2, 3, 4, 10]: mean 4, median 3, std sqrt((9+4+1+0+36)/5) = sqrt(10);
    # P5 = 1 + 0.2 * 1 = 1.2, P95 = 4 + 0.8 * 6 = 8.8, ratio 8.8 / 1.2 = 7.333.
    s = metrics.delay_stats([1.0, 2.0, 3.0, 4.0, 10.0])
    assert (s.count, s.mean, s.median, s.minimum, s.maximum) == (5.0, 4.0, 3.0, 1.0, 10.0)
    assert s.std == pytest.approx(np.sqrt(10.0))
    assert s.percentiles[5.0] == pytest.approx(1.2) and s.percentiles[95.0] == pytest.approx(8.8)
    assert s.percentile_ratio == pytest.approx(8.8 / 1.2)
    assert set(s.to_dict()) >= {"mean", "median", "std", "percentiles", "percentile_ratio"}


def test_delay_stats_batch():
    d = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])
    s = metrics.delay_stats(d, percentiles=[50])
    np.testing.assert_allclose(s.mean, [2.0, 4.0])
    np.testing.assert_allclose(s.count, [3.0, 3.0])
    np.testing.assert_allclose(s.percentiles[50.0], [2.0, 4.0])
    # P95 of [1, 2, 3] = 2 + 0.9 * 1 = 2.9, P5 = 1 + 0.1 * 1 = 1.1 -> 2.636; the doubled row is equal.
    np.testing.assert_allclose(s.percentile_ratio, [2.9 / 1.1, 2.9 / 1.1])


@pytest.mark.parametrize("func", [metrics.jain_index, metrics.percentile_ratio])
def test_scalar_list_array_broadcast(func):
    assert isinstance(func([1.0, 2.0, 3.0]), float)
    assert isinstance(func(np.array([1.0, 2.0, 3.0])), float)
    out = func(np.ones((4, 2, 3)))
    assert out.shape == (4, 2)
    np.testing.assert_allclose(out, 1.0)


@pytest.mark.parametrize("bad", [[], [1.0, -1.0], [1.0, float("nan")], "abc"])
def test_jain_bad_input(bad):
    with pytest.raises(ValueError, match="x"):
        metrics.jain_index(bad)


@pytest.mark.parametrize("bad", [[], [1.0, 0.0], [1.0, float("nan")]])
def test_percentile_ratio_bad_sample(bad):
    with pytest.raises(ValueError, match="x"):
        metrics.percentile_ratio(bad)


def test_percentile_ratio_bad_percentiles():
    with pytest.raises(ValueError, match="high"):
        metrics.percentile_ratio([1.0, 2.0], high=101)
    with pytest.raises(ValueError, match="low"):
        metrics.percentile_ratio([1.0, 2.0], high=5, low=95)


@pytest.mark.parametrize("axis", [3, None, 1.0, True])  # None and 1.0 raised TypeError; True read as 1
def test_bad_axis(axis):
    with pytest.raises(ValueError, match="axis"):
        metrics.jain_index(np.ones((2, 3)), axis=axis)


@pytest.mark.parametrize("bad", [[], [-1.0], [0.0], [float("nan")]])
def test_delay_stats_bad_delays(bad):
    with pytest.raises(ValueError, match="delays"):
        metrics.delay_stats(bad)


@pytest.mark.parametrize("bad", [[], [120], [-5]])
def test_delay_stats_bad_percentiles(bad):
    with pytest.raises(ValueError, match="percentiles"):
        metrics.delay_stats([1.0, 2.0], percentiles=bad)
