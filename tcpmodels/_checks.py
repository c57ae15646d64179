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

import numbers
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
    "flag",
    "one",
    "seed",
    "scalar_or_array",
    "short",
    "warn_where",
]


class TCPModelsWarning(UserWarning):
    """A model is evaluated where its source says it is unreliable."""


def array(name, value):
    """Return `value` as a float ndarray, or raise ``ValueError`` naming `name`."""
    # numpy would read None as NaN, "5" (and ["5"]) as 5.0, and True as 1: n_flows=True would run one flow.
    if value is None or isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a number or an array of numbers, got {short(value)}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):  # (ragged lists)
        raw = None
    if raw is None or not _numbers(raw):
        raise ValueError(f"{name} must be a number or an array of numbers, got {short(value)}")
    try:
        return np.asarray(raw, dtype=float)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number, got {short(value)}") from None


def _numbers(raw):
    """Whether ndarray `raw` holds real numbers: integers or floats, or objects that are (Python ints beyond int64)."""
    if raw.dtype.kind == "O":
        return all(isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) for x in raw.flat)
    return raw.dtype.kind in "iuf"


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
        if _equal(value, option) or (isinstance(value, str) and isinstance(option, str)
                                     and value.lower() == option.lower()):
            return option
    raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {short(value)}")


def _equal(value, option):
    try:
        return bool(value == option)
    except (TypeError, ValueError):  # an array compares elementwise, and its truth is ambiguous
        return False


def one(name, check, value, *args, **kw):
    """``check(name, value, *args, **kw)`` for an argument that holds one number, as a float (an array is refused)."""
    x = check(name, value, *args, **kw)
    if x.ndim:
        raise ValueError(f"{name} must be a single number, got {short(value)}")
    return float(x)


def seed(name, value):
    """A seed as an exact int >= 0: numpy's SeedSequence takes any, and a float would keep only 53 bits of it.

    (Read through a float, 2**60 and 2**60 + 7 were one seed.)  A whole float (7.0) is its int.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if not value >= 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
        return int(value)
    return int(one(name, whole, value, minimum=0))


def flag(name, value):
    """True or False (or 1 / 0, numpy's bools); a string such as "false" is refused, not taken as true."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {short(value)}")


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
