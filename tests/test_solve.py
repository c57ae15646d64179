"""solve.py: bracketed vectorized roots, the walk down to a lower bracket, and solving in chunks."""

import numpy as np
import pytest

from tcpmodels import red, solve, units


def test_positive_root_hand_checked():
    np.testing.assert_allclose(solve.positive_root(lambda x, a: x**2 - a, 1e-3, 10.0, args=([4.0, 9.0],)),
                               [2.0, 3.0], rtol=1e-12)


def test_root_below_walks_down_many_decades():
    # a - x has its root at a: from upper = 10 the walk must reach 1e-12 (factors of 16)
    a = np.array([1e-12, 1e-3, 2.0, 9.99])
    np.testing.assert_allclose(solve.root_below(lambda x, a: a - x, 10.0, (a,)), a, rtol=1e-12)


def test_root_below_says_when_there_is_no_root():
    with pytest.raises(solve.ConvergenceError, match="no root here"):
        solve.root_below(lambda x, a: a - x, 1.0, (np.array([0.5, 2.0]),), "no root here")


def test_in_chunks_equals_one_piece():
    # Chunking changes only how many points are solved at once, never a result: the pieces of a
    # broadcast (3, 4) grid, 5 points at a time, equal the whole grid in one call.
    def f(a, b):
        return a + b, a * b

    a, b = np.arange(3.0).reshape(3, 1), np.arange(4.0)
    whole = solve.in_chunks(f, (a, b))
    pieces = solve.in_chunks(f, (a, b), size=5)
    for x, y in zip(whole, pieces, strict=True):
        assert x.shape == (3, 4)
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(pieces[1], a * b)


def test_equilibria_are_the_same_in_chunks(monkeypatch):
    # The RED solve over 1000 points, in chunks of 64 and in one piece: identical numbers.
    rng = np.random.default_rng(2)
    n, mth, mp = rng.uniform(1, 500, 1000), rng.uniform(50, 3000, 1000), rng.uniform(0.002, 0.2, 1000)
    cap = units.capacity(10e6, 576)
    whole = red.equilibrium(n, mth, mp, rtt=0.05, capacity=cap)
    monkeypatch.setattr(solve.in_chunks, "__defaults__", (64,))
    chunked = red.equilibrium(n, mth, mp, rtt=0.05, capacity=cap)
    np.testing.assert_array_equal(whole.loss_rate, chunked.loss_rate)
    np.testing.assert_array_equal(whole.queue, chunked.queue)
