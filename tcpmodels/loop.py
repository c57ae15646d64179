r"""Frequency response of a delayed loop of first-order lags: crossovers, margins, stability, period.

The loop is

.. math:: L(s) = \frac{g\,e^{-s\tau}}{\prod_k (1 + s/\omega_k)}

with a gain :math:`g > 0`, a delay :math:`\tau > 0` and real poles
:math:`\omega_k > 0` (the form of the linearized TCP/AQM loop of Hollot,
Misra, Towsley & Gong 2001/2002; :func:`tcpmodels.red.stability` builds it).
Its magnitude falls and its phase lag grows monotonically with frequency, so
the Nyquist plot first crosses the negative real axis at the phase crossover
:math:`\omega_{180}` (lag :math:`\pi`) and every later crossing is smaller:
the closed loop (open loop stable) is stable iff :math:`|L(j\omega_{180})| < 1`.
All points are solved at once with :func:`tcpmodels.solve.positive_root`.
"""

import dataclasses

import numpy as np

from . import solve
from ._results import Result

__all__ = ["Margins", "margins"]


@dataclasses.dataclass(frozen=True)
class Margins(Result):
    """Stability margins of a delayed loop of first-order lags.

    Attributes
    ----------
    stable : bool or ndarray
        True where the closed loop is stable (gain margin above 1).
    phase_margin : float or ndarray
        180 degrees minus the loop's phase lag at the gain crossover [deg];
        ``inf`` where the loop gain never reaches 1.
    gain_margin : float or ndarray
        ``1 / |L|`` at the phase crossover [-]; above 1 where stable.
    crossover : float or ndarray
        Gain-crossover frequency, where ``|L| = 1`` [rad/s]; NaN where the loop
        gain never reaches 1.
    phase_crossover : float or ndarray
        Frequency where the phase lag is 180 degrees [rad/s].
    period : float or ndarray
        ``2 pi / phase_crossover`` [s]: the period of the oscillation that
        grows where the loop is unstable (and of the slowest-decaying ringing
        where it is stable).
    """

    stable: object
    phase_margin: object
    gain_margin: object
    crossover: object
    phase_crossover: object
    period: object


def _lag(omega, delay, *poles):
    return omega * delay + sum(np.arctan(omega / p) for p in poles)


def _phase_residual(omega, delay, *poles):
    return _lag(omega, delay, *poles) - np.pi


def _log_attenuation(omega, *poles):
    # log prod |1 + j omega / p|^2, the squared magnitude's denominator.
    return sum(np.log1p((omega / p) ** 2) for p in poles)


def _gain_residual(omega, log_gain_sq, *poles):
    return _log_attenuation(omega, *poles) - log_gain_sq


def margins(gain, delay, poles):
    r"""Margins, crossovers and oscillation period of :math:`g e^{-s\tau} / \prod (1 + s/\omega_k)`.

    Parameters
    ----------
    gain : float or array_like
        Loop gain at zero frequency, > 0 [-].
    delay : float or array_like
        Loop delay, > 0 [s].
    poles : sequence of float or array_like
        Corner frequencies of the first-order lags, each > 0 [rad/s].

    Returns
    -------
    Margins
        ``.stable``, ``.phase_margin`` [deg], ``.gain_margin``, ``.crossover``,
        ``.phase_crossover`` [rad/s], ``.period`` [s], shaped as the inputs
        broadcast together (floats and a bool for scalar inputs).

    Notes
    -----
    The phase crossover solves :math:`\omega\tau + \sum_k \arctan(\omega/\omega_k) = \pi`
    on :math:`(0, \pi/\tau]`; the gain crossover solves
    :math:`\sum_k \ln(1 + \omega^2/\omega_k^2) = 2 \ln g` on
    :math:`[\tfrac12\sqrt{2\ln g / \sum_k \omega_k^{-2}},\ g \min_k \omega_k]`
    (:math:`\ln(1+x) \le x` gives the lower end, one factor alone the upper).

    Examples
    --------
    A pure delay behind one lag, gain 2:

    >>> m = margins(2.0, 1.0, [1.0])
    >>> m.stable, round(m.crossover, 4), round(m.phase_margin, 1)   # sqrt(3) rad/s
    (True, 1.7321, 20.8)
    >>> margins([0.5, 5.0], 1.0, [1.0]).stable
    array([ True, False])
    """
    g, tau, *p = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (gain, delay, *poles)))
    scalar = g.ndim == 0
    tiny = 1e-6 / tau
    w180 = solve.positive_root(_phase_residual, tiny, np.pi / tau, args=(tau, *p))
    gain_at_180 = g / np.exp(0.5 * _log_attenuation(w180, *p))
    # Where g <= 1 the magnitude never reaches 1: no gain crossover; solve a
    # stand-in gain of 2 there and mask it afterwards.
    reaches = g > 1.0
    log_g2 = 2.0 * np.log(np.where(reaches, g, 2.0))
    inverse_sq = sum(1.0 / q**2 for q in p)
    lower = 0.5 * np.sqrt(log_g2 / inverse_sq)
    upper = np.where(reaches, g, 2.0) * np.minimum.reduce(p)
    wc = solve.positive_root(_gain_residual, lower, upper, args=(log_g2, *p))
    wc = np.where(reaches, wc, np.nan)
    pm = np.where(reaches, np.degrees(np.pi - _lag(np.nan_to_num(wc), tau, *p)), np.inf)
    out = dict(stable=gain_at_180 < 1.0, phase_margin=pm, gain_margin=1.0 / gain_at_180, crossover=wc,
               phase_crossover=w180, period=2.0 * np.pi / w180)
    if scalar:
        out = {k: (bool(v) if k == "stable" else float(v)) for k, v in out.items()}
    return Margins(**out)
