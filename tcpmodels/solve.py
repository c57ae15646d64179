"""Vectorized bracketed root finding shared by every numerically solved model.

All points are solved at once with Chandrupatla's method
(:func:`scipy.optimize.elementwise.find_root`).  Loss rates span many decades,
so roots of positive quantities are sought in ``log(x)``, which makes the
stopping rule a relative tolerance on ``x`` itself.
"""

import numpy as np
from scipy.optimize import elementwise

__all__ = ["RTOL", "ConvergenceError", "positive_root"]

#: Relative tolerance on every solved quantity: far below the 3-significant-
#: figure precision of the published constants, so solver error never shows.
RTOL = 1e-12


class ConvergenceError(RuntimeError):
    """A solver could not bracket or converge; no number is returned."""


def positive_root(f, lower, upper, args=(), rtol=RTOL):
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
    lo, hi, *bargs = np.broadcast_arrays(np.log(lower), np.log(upper), *args)

    def g(y, *a):
        return f(np.exp(y), *a)

    res = elementwise.find_root(g, (lo, hi), args=tuple(bargs), tolerances={"xatol": rtol, "xrtol": 0.0})
    if not np.all(res.success):
        bad = np.flatnonzero(~np.asarray(res.success).ravel())
        raise ConvergenceError(
            f"root finding failed at {bad.size} of {res.success.size} points "
            f"(first at flat index {bad[0]}, status {np.asarray(res.status).ravel()[bad[0]]})"
        )
    return np.exp(res.x)
