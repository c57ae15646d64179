"""Tests for tcpmodels.hstcp against RFC 3649, Linux, Su et al. (2006) and Kelly (2003)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcpmodels
from tcpmodels import hstcp

# RFC 3649, Appendix B, all 73 rows (w, a(w), b(w)) as printed.
RFC_ROWS = [
    (38, 1, 0.50), (118, 2, 0.44), (221, 3, 0.41), (347, 4, 0.38), (495, 5, 0.37),
    (663, 6, 0.35), (851, 7, 0.34), (1058, 8, 0.33), (1284, 9, 0.32), (1529, 10, 0.31),
    (1793, 11, 0.30), (2076, 12, 0.29), (2378, 13, 0.28), (2699, 14, 0.28), (3039, 15, 0.27),
    (3399, 16, 0.27), (3778, 17, 0.26), (4177, 18, 0.26), (4596, 19, 0.25), (5036, 20, 0.25),
    (5497, 21, 0.24), (5979, 22, 0.24), (6483, 23, 0.23), (7009, 24, 0.23), (7558, 25, 0.22),
    (8130, 26, 0.22), (8726, 27, 0.22), (9346, 28, 0.21), (9991, 29, 0.21), (10661, 30, 0.21),
    (11358, 31, 0.20), (12082, 32, 0.20), (12834, 33, 0.20), (13614, 34, 0.19), (14424, 35, 0.19),
    (15265, 36, 0.19), (16137, 37, 0.19), (17042, 38, 0.18), (17981, 39, 0.18), (18955, 40, 0.18),
    (19965, 41, 0.17), (21013, 42, 0.17), (22101, 43, 0.17), (23230, 44, 0.17), (24402, 45, 0.16),
    (25618, 46, 0.16), (26881, 47, 0.16), (28193, 48, 0.16), (29557, 49, 0.15), (30975, 50, 0.15),
    (32450, 51, 0.15), (33986, 52, 0.15), (35586, 53, 0.14), (37253, 54, 0.14), (38992, 55, 0.14),
    (40808, 56, 0.14), (42707, 57, 0.13), (44694, 58, 0.13), (46776, 59, 0.13), (48961, 60, 0.13),
    (51258, 61, 0.13), (53677, 62, 0.12), (56230, 63, 0.12), (58932, 64, 0.12), (61799, 65, 0.12),
    (64851, 66, 0.11), (68113, 67, 0.11), (71617, 68, 0.11), (75401, 69, 0.10), (79517, 70, 0.10),
    (84035, 71, 0.10), (89053, 72, 0.10), (94717, 73, 0.09),
]

# Linux net/ipv4/tcp_highspeed.c, hstcp_aimd_vals[].md (b scaled by 256), 72 rows.
LINUX_MD = [
    128, 112, 104, 98, 93, 89, 86, 83, 81, 78, 76, 74, 72, 71, 69, 68, 66, 65, 64, 62, 61, 60, 59, 58,
    57, 56, 55, 54, 53, 52, 52, 51, 50, 49, 48, 48, 47, 46, 45, 45, 44, 43, 43, 42, 41, 41, 40, 39, 39,
    38, 38, 37, 36, 36, 35, 35, 34, 33, 33, 32, 32, 31, 30, 30, 29, 28, 28, 27, 26, 26, 25, 24,
]

KINDS = hstcp.KINDS
windows = st.floats(min_value=1.2, max_value=1.5e5, allow_nan=False)  # a(w) peaks at 155 644
losses = st.floats(min_value=1e-12, max_value=1.0, allow_nan=False, exclude_min=False)


# --- published numbers ------------------------------------------------------------------------

def test_constants_derive_printed_laws():
    # RFC 3649, Sec. 5: S = (ln 83000 - ln 38)/(ln 1e-7 - ln 1e-3) = 7.6890/-9.2103 = -0.8348,
    # printed -0.835; w = 38 (p/1e-3)^S = 0.1189/p^0.835, printed 0.12 (2 significant figures).
    s = (math.log(hstcp.HIGH_WINDOW) - math.log(hstcp.LOW_WINDOW)) / (
        math.log(hstcp.HIGH_P) - math.log(hstcp.LOW_P))
    assert round(s, 3) == -0.835
    assert round(hstcp.LOW_WINDOW * hstcp.LOW_P ** -s, 2) == 0.12
    # Inverting: p = 1e-3 (w/38)^(1/S) = 0.07805/w^1.198, printed 0.078/w^1.2.
    assert round(hstcp.LOW_P * hstcp.LOW_WINDOW ** (-1 / s), 3) == 0.078 == round(hstcp.P_COEFFICIENT, 3)
    assert round(-1 / s, 1) == hstcp.P_EXPONENT
    # Low_P is Standard TCP's loss at Low_Window: (1.2/38)^2 = 9.97e-4, printed 1e-3.
    assert (hstcp.STANDARD_C / hstcp.LOW_WINDOW) ** 2 == pytest.approx(hstcp.LOW_P, rel=0.005)


def test_rfc_appendix_b_table_reproduced_exactly():
    # The RFC's own program (1/12.8 w^1.2, ">$olda + 1", "%5d", "%3.2f") must give every row.
    t = hstcp.table()
    assert t.kind == "rfc"
    assert t.window.tolist() == [r[0] for r in RFC_ROWS]
    assert t.a.tolist() == [r[1] for r in RFC_ROWS]
    np.testing.assert_array_equal(t.b, [r[2] for r in RFC_ROWS])


def test_linux_table_md_values():
    # md = floor(256 b(w_k)) of the first 72 RFC rows, e.g. floor(256 * 0.44105) = 112 at w = 118.
    t = hstcp.table("linux")
    assert t.window.tolist() == [r[0] for r in RFC_ROWS[:72]]
    assert t.a.tolist() == list(range(1, 73))
    assert (t.b * 256).astype(int).tolist() == LINUX_MD


def test_table_returns_copies():
    t = hstcp.table()
    t.window[0] = 0
    assert hstcp.table().window[0] == 38


def test_su_2006_sec2_examples():
    # Su et al. (2006), Sec. 2: w = 118 -> a = 2, b = 0.44; w = 347 -> a = 4, b = 0.38.
    # p(118) = 0.078125/118^1.2 = 2.550e-4; b(118) = 0.5 - 0.4 ln(118/38)/ln(83000/38)
    # = 0.5 - 0.4 * 1.1331/7.6890 = 0.4411; a = 118^2 * 2.550e-4 * 2 * 0.4411/1.5589 = 2.009.
    # The paper prints a as an integer and b to 0.01, hence the rounding.
    assert hstcp.a(118) == pytest.approx(2.009, abs=0.001)
    assert hstcp.b(118) == pytest.approx(0.4411, abs=1e-4)
    assert round(hstcp.a(347)) == 4 and round(hstcp.b(347), 2) == 0.38
    for kind in ("table", "linux"):  # both stacks use a = 2 at 118 and a = 4 at 347
        assert hstcp.a([118, 347], kind=kind).tolist() == [2.0, 4.0]


def test_su_2006_loss_event_wc_8400():
    # Su et al. (2006), Sec. 3.2: Wc = 8400, a(Wc) = 26 drops, gap 8400/26 = 323.08 "about 323".
    # 8130 <= 8400 < 8726 in the RFC table -> a = 26.
    ev = hstcp.loss_event(8400, kind="table")
    assert ev.drops == 26
    assert ev.gap == pytest.approx(323.08, abs=0.01)
    # The unrounded formula gives a = 26.51 (truncated 26, as printed) and a gap of 316.9.
    drops, gap = hstcp.loss_event(8400)
    assert int(drops) == 26 and gap == pytest.approx(8400 / hstcp.a(8400))
    assert set(hstcp.loss_event(8400).to_dict()) == {"drops", "gap"}


def test_rfc_sec5_response_table():
    # RFC 3649, Sec. 5 table of the HighSpeed response function (from the rounded w = 0.12/p^0.835):
    # 1e-4 -> 263, 1e-5 -> 1795, 1e-6 -> 12279, 1e-7 -> 83981.  The law 1/(12.8 w^1.2) gives windows 2.1-3.1 % lower:
    # the RFC's two printed forms are not exact inverses of each other.
    p = np.array([1e-4, 1e-5, 1e-6, 1e-7])
    np.testing.assert_allclose(hstcp.window(p), [263, 1795, 12279, 83981], rtol=0.035)
    np.testing.assert_allclose(hstcp.window(p), 0.12 / p**0.835, rtol=0.035)


def test_standard_tcp_branch():
    # RFC 3649, Standard TCP response-function table: w = 1.2/sqrt(p): 1e-2 -> 12, 1e-3 -> 38 (37.95).
    assert hstcp.window(1e-2) == pytest.approx(12.0)
    assert hstcp.window(1e-3) == pytest.approx(37.947, abs=1e-3)
    assert hstcp.loss_rate(12) == pytest.approx(0.01)


def test_formula_dip_above_low_window():
    # a(38+) = 38^2 * (0.078125/38^1.2) * 2 * 0.5/1.5 = 0.956: the faithful formula falls below 1,
    # the corrected "monotone" form does not.
    assert hstcp.a(38) == 1.0
    assert hstcp.a(38.001) == pytest.approx(0.956, abs=0.001)
    assert hstcp.a(38.001, kind="monotone") == 1.0
    assert hstcp.a(41) > 1.0


def test_stepped_forms_bracket_formula():
    w = np.linspace(41, 94000, 20001)
    formula, rfc, linux = (hstcp.a(w, kind=k) for k in ("formula", "table", "linux"))
    # The RFC rows start where the formula first exceeds the previous row's a + 1, so the table
    # lies below the formula by less than 2 (measured: 0.001 ... 1.07).
    assert np.all(formula >= rfc) and np.all(formula - rfc < 2)
    # Linux uses the next row up: one packet/RTT more than the RFC table between rows.
    assert set(np.unique(linux - rfc)) <= {0.0, 1.0}
    assert hstcp.a(100, kind="linux") == 2 and hstcp.a(100, kind="table") == 1


def test_stepped_forms_outside_table():
    assert hstcp.a(10, kind="table") == hstcp.a(10, kind="linux") == 1
    assert hstcp.b(10, kind="table") == hstcp.b(10, kind="linux") == 0.5
    assert hstcp.a(2e5, kind="table") == 73 and hstcp.a(2e5, kind="linux") == 72


def test_formula_limits_warn():
    # b(w) = 0 where ln(w/38)/ln(83000/38) = 1.25, i.e. w = 38 * 2184.2^1.25 = 567 416.
    with pytest.warns(tcpmodels.TCPModelsWarning, match="b\\(w\\)"):
        hstcp.b(6e5)
    # a ~ w^0.8 2b/(2-b) peaks where 0.8 = 0.05202 * 2/(b(2-b)): b = 0.0673, w = 155 644.
    assert hstcp.a(1.5e5) < hstcp.a(155643)
    with pytest.warns(tcpmodels.TCPModelsWarning, match="a\\(w\\) decreases"):
        assert hstcp.a([1e3, 1.6e5])[1] < hstcp.a(155643)
    assert hstcp.a(6e5, kind="linux") == 72  # stepped forms stay defined


def test_a_warning_points_at_the_callers_line():
    with pytest.warns(tcpmodels.TCPModelsWarning) as caught:
        hstcp.a(1.6e5)
        hstcp.b(6e5)
    assert [w.filename for w in caught] == [__file__] * 2


def test_scalable_tcp():
    # Kelly (2003): +0.01 per ACK -> a(w) = 0.01 w; b = 0.125.  Sawtooth: 0.125 W / 0.01 = 12.5 W
    # packets per loss, so W = 0.08/p: p = 1e-5 -> 8000 packets.
    assert hstcp.scalable_a(8400) == pytest.approx(84.0)
    assert hstcp.scalable_b(8400) == 0.125
    assert hstcp.scalable_window(1e-5) == pytest.approx(8000.0)
    assert hstcp.scalable_loss_rate(8000) == pytest.approx(1e-5)


# --- properties -------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(w1=windows, w2=windows)
def test_a_nondecreasing_b_nonincreasing(w1, w2):
    lo, hi = min(w1, w2), max(w1, w2)
    for kind in ("monotone", "table", "linux"):
        assert hstcp.a(lo, kind=kind) <= hstcp.a(hi, kind=kind)
    for kind in KINDS:
        assert hstcp.b(lo, kind=kind) >= hstcp.b(hi, kind=kind)
    if lo > hstcp.LOW_WINDOW:  # the faithful formula is monotone on each side of Low_Window
        assert hstcp.a(lo) <= hstcp.a(hi) * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(p=losses)
def test_window_loss_rate_inverse(p):
    assert hstcp.loss_rate(hstcp.window(p)) == pytest.approx(p, rel=1e-9)
    assert hstcp.scalable_loss_rate(hstcp.scalable_window(p)) == pytest.approx(p, rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(w=st.floats(min_value=1.2, max_value=1e7, allow_nan=False))
def test_loss_rate_window_inverse(w):
    assert hstcp.window(hstcp.loss_rate(w)) == pytest.approx(w, rel=1e-9)


def test_response_function_continuous_and_decreasing():
    p = np.logspace(-9, 0, 5001)
    w = hstcp.window(p)
    assert np.all(np.diff(w) < 0)
    assert np.max(np.abs(np.diff(np.log(w)))) < 0.01  # no jump at the Standard/HighSpeed switch


# --- input forms ------------------------------------------------------------------------------

ONE_ARG = [
    (hstcp.p, 118.0), (hstcp.b, 118.0), (hstcp.a, 118.0), (hstcp.loss_rate, 118.0),
    (hstcp.window, 1e-4), (lambda w: hstcp.loss_event(w).drops, 8400.0),
    (lambda w: hstcp.loss_event(w).gap, 8400.0),
    (hstcp.scalable_a, 100.0), (hstcp.scalable_b, 100.0), (hstcp.scalable_window, 1e-4),
    (hstcp.scalable_loss_rate, 100.0),
]


@pytest.mark.parametrize("func, x", ONE_ARG)
def test_scalar_list_array_broadcast(func, x):
    scalar = func(x)
    assert isinstance(scalar, float)
    listed = func([x, x])
    assert isinstance(listed, np.ndarray) and listed.shape == (2,)
    np.testing.assert_allclose(listed, scalar)
    grid = func(np.full((3, 2), x))
    assert grid.shape == (3, 2)
    np.testing.assert_allclose(grid, scalar)
    assert isinstance(func(np.array(x)), np.ndarray) or isinstance(func(np.array(x)), float)


@pytest.mark.parametrize("kind", KINDS)
def test_kinds_accept_arrays(kind):
    w = np.array([[20.0, 118.0], [8400.0, 90000.0]])
    assert hstcp.a(w, kind=kind).shape == (2, 2)
    assert hstcp.b(w, kind=kind).shape == (2, 2)
    assert isinstance(hstcp.a(118, kind=kind), float)


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("func", [hstcp.p, hstcp.a, hstcp.b, hstcp.loss_event,
                                  hstcp.scalable_a, hstcp.scalable_b])
@pytest.mark.parametrize("bad", [-1.0, 0.0, float("nan"), "x", float("inf")])  # inf: NaN, a RuntimeWarning
def test_bad_window(func, bad):
    with pytest.raises(ValueError, match="window"):
        func(bad)


@pytest.mark.parametrize("func", [hstcp.loss_rate, hstcp.scalable_loss_rate])
def test_bad_window_below_unit_loss(func):
    with pytest.raises(ValueError, match="window"):
        func(0.05)


@pytest.mark.parametrize("func", [hstcp.window, hstcp.scalable_window])
@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, float("nan")])
def test_bad_loss_rate(func, bad):
    with pytest.raises(ValueError, match="loss_rate"):
        func(bad)


def test_bad_kind():
    with pytest.raises(ValueError, match="kind"):
        hstcp.a(100, kind="bsd")
    with pytest.raises(ValueError, match="kind"):
        hstcp.table("ns3")
