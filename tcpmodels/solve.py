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

__all__ = ["RTOL", "NARROW_PASSES", "ConvergenceError", "positive_root"]

#: Relative tolerance on every solved quantity: far below the 3-significant-
#: figure precision of the published constants, so solver error never shows.
RTOL = 1e-12

#: Illinois passes in log(x) that narrow every bracket before Chandrupatla.
NARROW_PASSES = 10


class ConvergenceError(RuntimeError):
    """A solver could not bracket or converge; no number is returned."""


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
