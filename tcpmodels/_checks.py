"""Argument validation shared by every model: one place, one message style.

Every check converts its argument to a float ndarray, raises ``ValueError``
naming the argument and the first offending value, and is NaN-safe (a NaN
fails every check because comparisons with NaN are false).  Infinities fail
:func:`whole` and :func:`in_range` (unless ``finite=False``), and fail
:func:`positive` and :func:`nonnegative` when the caller asks ``finite=True``
(their default stays ``False`` because some arguments use ``inf`` for "none",
such as the simulator's ``access_rate``).  Integers too large for a float
(``10**400``) are a ``ValueError``, not an ``OverflowError``.
"""

import warnings

import numpy as np

__all__ = [
    "TCPModelsWarning",
    "array",
    "first_bad",
    "positive",
    "nonnegative",
    "in_range",
    "whole",
    "choice",
    "scalar_or_array",
    "short",
    "warn_where",
]


class TCPModelsWarning(UserWarning):
    """A model is evaluated where its source says it is unreliable."""


def array(name, value):
    """Return `value` as a float ndarray, or raise ``ValueError`` naming `name`."""
    if isinstance(value, (str, bytes)):  # numpy would read "5" as 5.0
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}")
    try:
        out = np.asarray(value, dtype=float)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number, got {short(value)}") from None
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {short(value)}") from None
    if np.asarray(value).dtype == bool:  # True is no count or rate: n_flows=True would run one flow
        raise ValueError(f"{name} must be a number or an array of numbers, got {short(value)}")
    return out


def short(value):
    """repr of `value`, shortened for an error message (an integer of 400 digits)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text)} characters)"


def first_bad(values, ok):
    """The first element of `values` where `ok` is false, as a Python scalar."""
    return np.broadcast_to(values, np.shape(ok))[~np.asarray(ok)].flat[0].item()


def _fail(name, values, ok, rule):
    raise ValueError(f"{name} must be {rule}, got {first_bad(values, ok)!r}")


def _finite(name, x, finite):
    if finite and np.isinf(x).any():
        _fail(name, x, ~np.isinf(x), "finite")


def positive(name, value, *, finite=False):
    """Check ``value > 0`` elementwise (NaN fails; +inf fails with ``finite=True``)."""
    x = array(name, value)
    ok = x > 0
    if not ok.all():
        _fail(name, x, ok, "> 0")
    _finite(name, x, finite)
    return x


def nonnegative(name, value, *, finite=False):
    """Check ``value >= 0`` elementwise (NaN fails; +inf fails with ``finite=True``)."""
    x = array(name, value)
    ok = x >= 0
    if not ok.all():
        _fail(name, x, ok, ">= 0")
    _finite(name, x, finite)
    return x


def in_range(name, value, low, high, *, low_open=False, high_open=False, finite=True):
    """Check ``low <(=) value <(=) high`` elementwise (NaN fails; infinities fail unless ``finite=False``)."""
    x = array(name, value)
    ok = (x > low if low_open else x >= low) & (x < high if high_open else x <= high)
    if not ok.all():
        rule = f"in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        _fail(name, x, ok, rule)
    _finite(name, x, finite)
    return x


def whole(name, value, minimum=1):
    """Check that `value` holds finite whole numbers ``>= minimum``; return them as floats."""
    x = array(name, value)
    ok = (x >= minimum) & (x == np.floor(x)) & np.isfinite(x)
    if not ok.all():
        _fail(name, x, ok, f"a whole number >= {minimum}")
    return x


def choice(name, value, options):
    """Return the option of `options` that `value` names (strings match case-insensitively)."""
    for option in options:
        if value == option or (isinstance(value, str) and isinstance(option, str)
                               and value.lower() == option.lower()):
            return option
    raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")


def scalar_or_array(result, *inputs):
    """Return a Python float when every input was scalar, else an ndarray (design guide)."""
    result = np.asarray(result, dtype=float)
    if result.ndim == 0 and all(np.ndim(x) == 0 for x in inputs):
        return float(result)
    return result


def warn_where(condition, message, stacklevel=3):
    """Warn once with `message` when `condition` holds for any element."""
    if np.any(condition):
        warnings.warn(message, TCPModelsWarning, stacklevel=stacklevel)
