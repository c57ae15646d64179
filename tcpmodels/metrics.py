"""Fairness and delay metrics: Jain's index, percentile ratios, per-transfer delay statistics.

Reductions run along one axis (the last by default), so a batch of scenarios
``[scenario, flow]`` gives one value per scenario.  A reduction over a single
axis of a 1-D sample returns a float; anything else an ndarray.
"""

import dataclasses
import numbers

import numpy as np

from . import _checks
from ._results import Result

__all__ = ["DelayStats", "jain_index", "percentile_ratio", "delay_stats"]


def _sample(name, x, axis, minimum=0.0):
    """Validate a sample: numbers >= `minimum`, at least one along `axis`."""
    values = _checks.nonnegative(name, x) if minimum == 0.0 else _checks.positive(name, x)
    if values.ndim == 0:
        values = values.reshape(1)
    # (The reductions take one whole-number axis: not None, 1.0 or True.)
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral) or not -values.ndim <= axis < values.ndim:
        raise ValueError(f"axis must be a valid axis of {name} (ndim {values.ndim}), got {axis!r}")
    length = values.shape[axis]
    if length == 0:
        raise ValueError(f"{name} must hold at least one value along axis {axis}, got an empty array")
    return values


def _float_or_array(result):
    result = np.asarray(result, dtype=float)
    return float(result) if result.ndim == 0 else result


@dataclasses.dataclass(frozen=True)
class DelayStats(Result):
    """Summary of per-transfer delays (see :func:`delay_stats`).

    Attributes
    ----------
    count : float or ndarray
        Number of transfers [-].
    mean, median, std, minimum, maximum : float or ndarray
        Statistics of the delays [s] (``std`` with ``ddof=0``).
    percentiles : dict
        ``{q: delay at the q-th percentile [s]}``.
    percentile_ratio : float or ndarray
        95th over 5th percentile [-] (Morris 1999, section 7.4.2).
    """

    count: object
    mean: object
    median: object
    std: object
    minimum: object
    maximum: object
    percentiles: dict
    percentile_ratio: object


def jain_index(x, axis=-1):
    """Jain's fairness index of an allocation, Chiu & Jain (1989); Park et al., Eq. 6.

    Parameters
    ----------
    x : array_like
        Allocations, e.g. per-flow throughput [any unit] or link share [-],
        each >= 0, at least one along `axis`.
    axis : int
        Axis holding the flows [-].

    Returns
    -------
    float or ndarray
        Index in [1/n, 1] [-]; 1 where every allocation is 0 (see Notes).

    Notes
    -----
    .. math:: J(x) = \\frac{\\left(\\sum_{i=1}^n x_i\\right)^2}{n \\sum_{i=1}^n x_i^2}

    1 when all n flows get the same, 1/n when one flow gets everything; it is
    scale-free, so throughputs or shares give the same index.  For all-zero
    allocations the formula is 0/0; they are equal shares (of nothing), and
    equal allocations c (1, ..., 1) give 1 for every c > 0, so the index is
    defined as that limit, 1, rather than NaN (a NaN would also make JSON
    output invalid).  Used by
    Park et al. (NDCA-TCP, Eq. 6), Su et al. (2006, Sec. 5) and Kamra et al.
    (TCP/E, "fairness coefficient").

    References
    ----------
    D. Chiu, R. Jain, "Analysis of the increase and decrease algorithms for
    congestion avoidance in computer networks", Computer Networks and ISDN
    Systems 17(1):1-14, 1989.

    Examples
    --------
    >>> jain_index([1, 1, 1, 1])
    1.0
    >>> jain_index([1, 0, 0, 0])   # (1)^2 / (4 * 1)
    0.25
    >>> jain_index([[3, 1], [2, 2]])   # (4)^2 / (2 * 10) = 0.8 per row
    array([0.8, 1. ])
    >>> jain_index([0, 0, 0])          # equal shares of nothing: the limit of equal allocations
    1.0
    """
    values = _sample("x", x, axis)
    n = values.shape[axis]
    largest = values.max(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = values / largest  # scale-free: avoids under/overflow of the squares
        index = scaled.sum(axis=axis) ** 2 / (n * np.square(scaled).sum(axis=axis))
    index = np.where(np.squeeze(largest, axis=axis) == 0, 1.0, index)  # all zero: equal shares
    return _float_or_array(index)


def percentile_ratio(x, high=95.0, low=5.0, axis=-1):
    """Ratio of a high to a low percentile of a sample, Morris (1999), section 7.4.2.

    Parameters
    ----------
    x : array_like
        Sample, e.g. per-transfer delays [s], each > 0, at least one along `axis`.
    high, low : float
        Percentiles [%], ``0 <= low < high <= 100``.
    axis : int
        Axis holding the sample [-].

    Returns
    -------
    float or ndarray
        :math:`x_{(high)} / x_{(low)}` [-], >= 1.

    Notes
    -----
    Morris' fairness metric across loads: "the ratio of the 95th percentile of
    delay to the 5th percentile ... reflects the extent to which unlucky
    transfers get a worse deal than lucky ones" (Figs. 7.11-7.12).  Compare
    only transfers of the same size.  Percentiles use numpy's default linear
    interpolation between order statistics.

    .. math:: R = \\frac{P_{95}(d)}{P_5(d)}

    Examples
    --------
    >>> percentile_ratio(np.arange(1, 102))   # P95 = 96, P5 = 6
    16.0
    >>> percentile_ratio([2.0, 2.0, 2.0])
    1.0
    """
    values = _sample("x", x, axis, minimum=np.nextafter(0.0, 1.0))
    high = float(_checks.in_range("high", high, 0.0, 100.0))
    low = float(_checks.in_range("low", low, 0.0, 100.0))
    if not low < high:
        raise ValueError(f"low must be < high, got low={low!r}, high={high!r}")
    upper, lower = np.percentile(values, [high, low], axis=axis)
    return _float_or_array(upper / lower)


def delay_stats(delays, percentiles=(5, 25, 50, 75, 95), axis=-1):
    """Statistics of per-transfer delays, as in Morris (1999), ch. 7 and Hsiao et al., Fig. 6/9.

    Parameters
    ----------
    delays : array_like
        Completion times of transfers [s], each > 0, at least one along `axis`.
    percentiles : sequence of float
        Percentiles to report [%], each in [0, 100].
    axis : int
        Axis holding the transfers [-].

    Returns
    -------
    DelayStats
        ``count``, ``mean``, ``median``, ``std``, ``minimum``, ``maximum``,
        ``percentiles`` (dict) and ``percentile_ratio`` (95th / 5th).

    Notes
    -----
    Morris compares FPQ and RED by the mean (Fig. 7.7-7.8), the distribution
    (Fig. 7.9) and the 95th/5th percentile ratio (:func:`percentile_ratio`);
    Hsiao, Kung & Tan report the median transfer time of 20-packet transfers.

    .. math:: \\bar d = \\frac{1}{n}\\sum d_i, \\quad
              s = \\sqrt{\\frac{1}{n}\\sum (d_i - \\bar d)^2}

    Examples
    --------
    >>> s = delay_stats([1.0, 2.0, 3.0, 4.0, 10.0])
    >>> s.count, s.mean, s.median, s.maximum
    (5.0, 4.0, 3.0, 10.0)
    >>> s.percentiles[95], round(s.percentile_ratio, 3)   # 4 + 0.8 * 6, 8.8 / 1.2
    (8.8, 7.333)
    """
    values = _sample("delays", delays, axis, minimum=np.nextafter(0.0, 1.0))
    qs = _checks.in_range("percentiles", percentiles, 0.0, 100.0)
    if qs.ndim != 1 or qs.size == 0:
        raise ValueError(f"percentiles must be a non-empty sequence of numbers, got {percentiles!r}")
    at = np.percentile(values, qs, axis=axis)
    return DelayStats(
        count=_float_or_array(np.full(np.delete(values.shape, axis % values.ndim), values.shape[axis])),
        mean=_float_or_array(values.mean(axis=axis)),
        median=_float_or_array(np.median(values, axis=axis)),
        std=_float_or_array(values.std(axis=axis)),
        minimum=_float_or_array(values.min(axis=axis)),
        maximum=_float_or_array(values.max(axis=axis)),
        percentiles={float(q): _float_or_array(v) for q, v in zip(qs, at, strict=True)},
        percentile_ratio=percentile_ratio(values, axis=axis),
    )
