"""Vectorized bracketed root finding shared by every numerically solved model.

All points are solved at once with Chandrupatla's method
(:func:`scipy.optimize.elementwise.find_root`).  Loss rates span many decades,
so brackets are first narrowed by :data:`NARROW_PASSES` Illinois steps in
``log(x)`` (plain numpy passes), and Chandrupatla then converges in a few
iterations to a relative tolerance on ``x``.  Measured on 1e6
RED equilibria (``benchmarks/bench_solve.py``): scipy's per-iteration
bookkeeping, not the residual, dominated a log-space solve from the wide
bracket (1.4 s, of which 0.3 s residual); narrowing first is cheaper.
"""

import numpy as np

from ._checks import short as _short

__all__ = ["RTOL", "NARROW_PASSES", "CHUNK", "ConvergenceError", "OutOfReach", "positive_root", "root_below",
           "in_chunks"]

#: Relative tolerance on every solved quantity: far below the 3-significant-
#: figure precision of the published constants, so solver error never shows.
RTOL = 1e-12

#: Illinois passes in log(x) that narrow every bracket before Chandrupatla.
NARROW_PASSES = 10


#: Points solved at once.  scipy's find_root keeps some tens of arrays per
#: point: 1e7 RED equilibria in one piece peaked at 4.5 GB resident; in
#: chunks of this size the working memory stays bounded (a few tens of MB) and
#: the time per point is unchanged (``benchmarks/bench_solve.py``).
CHUNK = 2**17


class ConvergenceError(RuntimeError):
    """A solver could not bracket or converge; no number is returned."""


class OutOfReach(ConvergenceError):
    """The root lies more than 1e72 times below the bracket's upper end: inputs beyond a model's numerical range.

    ``in_chunks(..., inputs=...)`` turns it into a ``ValueError`` naming the inputs.
    """


def positive_root(f, lower, upper, args=(), rtol=RTOL, f_lower=None, f_upper=None):
    """Roots of ``f(x, *args) = 0`` for ``x`` in ``[lower, upper]``, elementwise.

    Parameters
    ----------
    f : callable
        ``f(x, *args) -> ndarray``, elementwise, continuous and of opposite
        signs at the two ends of each bracket.
    lower, upper : array_like
        Bracket ends, ``0 < lower < upper`` [unit of x].
    args : tuple of array_like, optional
        Arrays broadcastable with the brackets, passed to `f`.
    rtol : float, optional
        Relative tolerance on the root [-].
    f_lower, f_upper : array_like, optional
        ``f`` at the bracket ends, when the caller has them already.

    Returns
    -------
    ndarray
        Roots, shaped as the brackets and `args` broadcast together.

    Raises
    ------
    ConvergenceError
        If a bracket does not change sign or an element does not converge.

    Examples
    --------
    >>> positive_root(lambda x, a: x**2 - a, 1e-3, 10.0, args=([4.0, 9.0],))
    array([2., 3.])
    """
    # Imported here: scipy.optimize costs about 0.45 s, which every command-line call would pay.
    from scipy.optimize import elementwise

    lo, hi, *bargs = (np.array(a, dtype=float) for a in np.broadcast_arrays(lower, upper, *args))
    f_lo = f(lo, *bargs) if f_lower is None else np.broadcast_to(f_lower, lo.shape)
    f_hi = f(hi, *bargs) if f_upper is None else np.broadcast_to(f_upper, hi.shape)
    valid = np.sign(f_lo) * np.sign(f_hi) <= 0
    if not valid.all():
        raise ConvergenceError(f"{np.count_nonzero(~valid)} of {valid.size} brackets do not change sign")
    # Illinois (false position with halving) in log(x), on whole arrays:
    # superlinear, and the bracket stays valid, so a few passes leave
    # Chandrupatla a narrow bracket.  Gathering the still-wide elements costs
    # more than evaluating the residual everywhere, so every pass is whole.
    y_a, y_b, g_a, g_b = np.log(lo), np.log(hi), f_lo, f_hi
    for _ in range(NARROW_PASSES):
        # g_a and g_b have opposite signs (or one is 0), so y_c lies in the bracket.
        with np.errstate(invalid="ignore", divide="ignore"):
            y_c = y_b - g_b * (y_b - y_a) / (g_b - g_a)
        y_c = np.where(g_b == 0, y_b, y_c)  # an exact root stays put
        g_c = f(np.exp(y_c), *bargs)
        flip = (g_c > 0) != (g_b > 0)
        y_a, g_a = np.where(flip, y_b, y_a), np.where(flip, g_b, 0.5 * g_a)
        y_b, g_b = y_c, g_c
    y_lo, y_hi = np.minimum(y_a, y_b), np.maximum(y_a, y_b)
    res = elementwise.find_root(f, (np.exp(y_lo), np.exp(y_hi)), args=tuple(bargs),
                                tolerances={"xatol": 0.0, "xrtol": rtol})
    if not np.all(res.success):
        bad = np.flatnonzero(~np.asarray(res.success).ravel())
        raise ConvergenceError(
            f"root finding failed at {bad.size} of {res.success.size} points "
            f"(first at flat index {bad[0]}, status {np.asarray(res.status).ravel()[bad[0]]})"
        )
    return res.x


def _lower_bracket(f, upper, args, steps=60):
    """Walk down from `upper` by factors of 16 until ``f > 0`` everywhere; return the ends and f there."""
    lo = np.array(upper / 4.0, dtype=float)
    for _ in range(steps):
        f_lo = f(lo, *args)
        bad = ~(f_lo > 0)
        if not bad.any():
            return lo, f_lo
        lo = np.where(bad, lo / 16.0, lo)
    raise OutOfReach("could not bracket the root from below")


def root_below(f, upper, args=(), no_root="f(upper) > 0: no root below upper"):
    """Roots of a residual that falls through zero below `upper`, elementwise.

    Parameters
    ----------
    f : callable
        ``f(x, *args) -> ndarray``, positive for small ``x`` and ``<= 0`` at `upper`.
    upper : array_like
        Upper bracket end, > 0 [unit of x].
    args : tuple of array_like, optional
        Arrays broadcastable with `upper`, passed to `f`.
    no_root : str, optional
        Message of the error raised where ``f(upper) > 0``.

    Returns
    -------
    ndarray
        Roots, shaped as `upper` and `args` broadcast together.

    Raises
    ------
    ConvergenceError
        With `no_root` where ``f(upper) > 0``; :class:`OutOfReach` if no lower
        bracket end is found within 60 steps of a factor 16 (a factor 1e-72
        below `upper`).

    Examples
    --------
    >>> root_below(lambda x, a: a - x, 10.0, args=([1e-9, 2.0],))
    array([1.e-09, 2.e+00])
    """
    upper, *args = np.broadcast_arrays(upper, *args)
    f_up = f(upper, *args)
    if np.any(f_up > 0):
        raise ConvergenceError(no_root)
    lower, f_lo = _lower_bracket(f, upper, args)
    return positive_root(f, lower, upper, args=tuple(args), f_lower=f_lo, f_upper=f_up)


def in_chunks(func, arrays, size=CHUNK, *, inputs=None):
    """Apply `func` to consecutive pieces of `arrays` broadcast together, so working memory stays bounded.

    Parameters
    ----------
    func : callable
        ``func(*pieces) -> tuple of ndarray``, each output as long as the
        1-d pieces it was given.
    arrays : sequence of array_like
        Inputs, broadcast together; no broadcast copy is made.
    size : int, optional
        Points per piece.
    inputs : dict, optional
        The caller's arguments by name: where a root is :class:`OutOfReach`,
        a ``ValueError`` names them and their values (the combination put it
        there, not one of them).

    Returns
    -------
    tuple of ndarray
        ``func``'s outputs, each shaped as the broadcast inputs.

    Examples
    --------
    >>> in_chunks(lambda a, b: (a + b, a * b), ([[1.0], [2.0]], [10.0, 20.0]), size=3)[1]
    array([[10., 20.],
           [20., 40.]])
    """
    if inputs is not None:
        try:
            return in_chunks(func, arrays, size)
        except OutOfReach:
            shown = ", ".join(f"{name}={_short(value)}" for name, value in inputs.items())
            raise ValueError(f"{'/'.join(inputs)}: no solution within the model's numerical range at {shown}: its "
                             f"loss rate would lie more than 1e72 times below its bound (values far beyond any "
                             f"network's)") from None
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in arrays))
    shape = arrays[0].shape
    total = arrays[0].size
    if total <= size:
        return tuple(np.reshape(out, shape) for out in func(*(a.reshape(-1) for a in arrays)))
    outputs = None
    for start in range(0, total, size):
        index = np.unravel_index(np.arange(start, min(start + size, total)), shape)
        pieces = func(*(a[index] for a in arrays))
        if outputs is None:
            outputs = [np.empty(total, dtype=np.asarray(p).dtype) for p in pieces]
        for out, piece in zip(outputs, pieces, strict=True):
            out[start:start + size] = piece
    return tuple(out.reshape(shape) for out in outputs)
