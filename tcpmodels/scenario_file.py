"""Scenario files: a TOML table of a simulation scenario -> :class:`tcpmodels.sim.Scenario`.

Top-level keys are the fields of ``Scenario``; ``[queue]`` and ``[sender]`` are
tables whose ``type`` names a class of :mod:`tcpmodels.sim` (case-insensitive)
and whose other keys are its fields.  ``senders`` is a list of [count, sender]
pairs (a sender a name or such a table), ``rtt`` a time or a list of them.
Rates, times, sizes and buffers may be strings with tc units (``"10mbit"``,
``"100ms"``, ``"576b"``, ``"64kb"``; a time written as a string needs its unit);
numbers are SI (bit/s, s, bytes; buffers and thresholds in packets).  A
whole-packet field given in bytes (``buffer = "64kb"``) becomes whole packets,
rounded down (at least one); given in packets it must be whole.  Booleans are
TOML's ``true``/``false``; a string, a number, a
list or a table where a number or a boolean belongs is an error, as is an
infinite or NaN value.  When a file gives a ``duration`` no longer than the
default warm-up and no ``warmup``, the warm-up is :data:`WARMUP_SHARE` of the
duration.  The format is described in docs/cli.md.  Scenarios are built only through
:mod:`tcpmodels.sim`'s public classes.
"""

import dataclasses
import functools
import importlib.resources
import inspect

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10: pyproject requires tomli there
    import tomli as tomllib

from . import sim, units
from ._checks import short

__all__ = ["WARMUP_SHARE", "EXAMPLE_PREFIX", "load_scenario", "read_table", "scenario_from_table", "example_names",
           "example_text", "sim_classes"]

# Scenario-file fields written with tc units, by what they measure.
_RATE_FIELDS = {"bandwidth", "access_rate"}
_TIME_FIELDS = {"rtt", "duration", "warmup", "time_step", "trace_interval", "start_spread", "min_rto",
                "granularity", "max_rto", "t_clear", "match_interval", "target", "interval"}
_SIZE_FIELDS = {"packet_size"}
_PACKET_FIELDS = {"buffer", "min_th", "max_th", "max_window"}
#: Share of `duration` used as warm-up when a file gives a duration no longer than the default warm-up
#: and no warm-up of its own.
WARMUP_SHARE = 0.1
#: Prefix naming a scenario file shipped with the package: ``example:standard_red``.
EXAMPLE_PREFIX = "example:"
_EXAMPLES = importlib.resources.files("tcpmodels") / "examples"


@functools.cache
def sim_classes():
    """Queue and sender classes of :mod:`tcpmodels.sim`, keyed by lower-case name without - or _."""
    return {name.lower(): obj for name, obj in vars(sim).items()
            if name in sim.__all__ and inspect.isclass(obj) and dataclasses.is_dataclass(obj)
            and obj not in (sim.Scenario, sim.SimResult)}


@functools.cache
def _roles():
    """{"queue": classes, "sender": classes, "workload": classes}: which sim classes a Scenario takes for each role."""
    roles = {"queue": {}, "sender": {}, "workload": {}}
    for key, cls in sim_classes().items():
        for role in roles:
            # (An ECN-only sender, TCPE, is a sender behind a queue that marks.)
            if any(_takes(role, cls, queue) for queue in (sim.RED(), sim.RED(ecn=True))):
                roles[role][key] = cls
    return roles


def _takes(role, cls, queue):
    """Whether a Scenario with `queue` takes an instance of `cls` as its `role`."""
    try:
        sim.Scenario(n_flows=1, bandwidth=1e6, rtt=0.1, **{"queue": queue, role: cls()})
    except (TypeError, ValueError):
        return False
    return True


def _key(name):
    return name.lower().replace("-", "").replace("_", "")


def _fields(cls):
    return {f.name: _kind(f.type) for f in dataclasses.fields(cls) if f.init}


def _kind(annotation):
    """"bool", "int", "float" or "any" from a field's annotation (a type or its string form)."""
    text = str(annotation)
    for kind in ("bool", "int", "float"):
        if kind in text.replace("<class '", "").replace("'>", "").split(" | ")[0]:
            return kind
    return "any"


def _value(where, key, value, kind, packet_size, label=None):
    """One scenario value in SI units; strings may carry tc units; booleans and numbers as typed.

    (``label``: what errors name, ``where`` and ``key`` unless given: an entry of a list.)
    """
    label = label or f"{where}{key}"
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{label}: expected true or false (TOML booleans, without quotes), got {value!r}")
        return value
    if kind == "any":
        return value
    if isinstance(value, str) and key in _RATE_FIELDS | _TIME_FIELDS | _SIZE_FIELDS | _PACKET_FIELDS:
        if kind == "int" and key in _PACKET_FIELDS:
            # Whole-packet fields given in bytes become whole packets (64kb of 576-byte packets: 113); "2.5p"
            # and a size under one packet ("1b") are refused, not cut.
            return units.parse_packets(value, packet_size, label)
        return _parse_unit(label, key, value, packet_size)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        what = "a whole number" if kind == "int" else "a number"
        raise ValueError(f"{label}: expected {what}, got {short(value)}")
    if not (abs(value) < 1e300):  # inf, NaN, and integers beyond a float (10**400)
        raise ValueError(f"{label}: expected a finite number, got {short(value)}")
    return value


def _parse_unit(label, key, value, packet_size):
    if key in _RATE_FIELDS:
        return units.parse_rate(value, label)
    if key in _TIME_FIELDS:  # "100" would be 100 us to tc and 100 s to a reader of seconds
        return units.parse_time(value, label, unit_required=True)
    if key in _SIZE_FIELDS:
        return units.parse_size(value, label)
    return units.parse_buffer(value, packet_size, label)


def _checked(where, table, allowed):
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"{where}unknown field {unknown[0]!r}; expected one of {', '.join(allowed)}")


def _component(where, name, spec, packet_size, role=None):
    """A ``[queue]`` or ``[sender]`` table (or a plain name) -> a sim object (``role``: its role, if not ``name``)."""
    classes = _roles()[role or name]
    names = ", ".join(c.__name__ for c in classes.values())
    if isinstance(spec, str):
        if _key(spec) not in classes:
            raise ValueError(f"{where}{name}: unknown {spec!r}; expected one of {names}")
        return classes[_key(spec)]()
    if not isinstance(spec, dict) or "type" not in spec:
        raise ValueError(f"{where}{name}: expected a name or a table with a 'type' key, got {spec!r}")
    kind = spec["type"]
    cls = classes.get(_key(kind)) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"{where}{name}.type: unknown {kind!r}; expected one of {names}")
    options = {k: v for k, v in spec.items() if k != "type"}
    fields = _fields(cls)
    _checked(f"{where}[{name}] ", options, fields)
    kwargs = {k: _value(f"{where}[{name}] ", k, v, fields[k], packet_size) for k, v in options.items()}
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}[{name}] {error}") from None


def _rtts(where, value, packet_size):
    """``rtt``: one time, or a list of them (one per flow or per sender group)."""
    if not isinstance(value, list):
        return _value(where, "rtt", value, "float", packet_size)
    return tuple(_value(where, "rtt", v, "float", packet_size, label=f"{where}rtt[{i}]") for i, v in enumerate(value))


def _groups(where, value, packet_size):
    """``senders``: a list of [count, sender] pairs, each sender a name or a table as ``[sender]`` takes."""
    if not isinstance(value, list) or not all(isinstance(g, list) and len(g) == 2 for g in value):
        raise ValueError(f"{where}senders: expected a list of [count, sender] pairs such as "
                         f"[[5, \"newreno\"], [5, {{type = \"Tahoe\"}}]], got {short(value)}")
    return tuple((_value(where, f"senders[{i}] count", count, "int", packet_size),
                  _component(where, f"senders[{i}] sender", spec, packet_size, role="sender"))
                 for i, (count, spec) in enumerate(value))


# Scenario-file fields that take a list (read element by element).
_LISTS = {"rtt": _rtts, "senders": _groups}


def scenario_from_table(table, source=""):
    """Build a :class:`tcpmodels.sim.Scenario` from a table as read from a TOML scenario file.

    Parameters
    ----------
    table : dict
        Keys and values as :func:`tomllib.load` returns them (see the module
        docstring for the format).
    source : str, optional
        Where the table comes from (a file name); every error message starts
        with it.

    Returns
    -------
    tcpmodels.sim.Scenario

    Raises
    ------
    ValueError
        An unknown field or type, a bad value; the message starts with
        `source` and names the field.

    Examples
    --------
    >>> s = scenario_from_table({"n_flows": 10, "bandwidth": "10mbit", "rtt": "100ms",
    ...                          "queue": {"type": "RED", "max_th": 200, "max_p": 0.02}})
    >>> s.bandwidth, s.rtt, type(s.queue).__name__
    (10000000.0, 0.1, 'RED')
    """
    where = f"{source}: " if source else ""
    if not isinstance(table, dict):
        raise ValueError(f"{where}expected a table of scenario fields, got {table!r}")
    fields = _fields(sim.Scenario)
    _checked(where, table, fields)
    required = [f.name for f in dataclasses.fields(sim.Scenario)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    missing = [name for name in required if name not in table]
    if missing:
        raise ValueError(f"{where}missing {', '.join(missing)}: a scenario file needs {', '.join(required)}")
    defaults = {f.name: f.default for f in dataclasses.fields(sim.Scenario)}
    size = _value(where, "packet_size", table.get("packet_size", defaults["packet_size"]), "float", None)
    kwargs = {k: _component(where, k, v, size) if k in _roles() else _value(where, k, v, fields[k], size)
              for k, v in table.items() if k not in _LISTS}
    kwargs.update({k: _LISTS[k](where, v, size) for k, v in table.items() if k in _LISTS})
    if "warmup" not in kwargs and "duration" in kwargs and kwargs["duration"] <= defaults["warmup"]:
        kwargs["warmup"] = WARMUP_SHARE * kwargs["duration"]  # the user never set a warm-up: fit one
    try:
        return sim.Scenario(**kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}{error}") from None


def example_names():
    """Names of the scenario files shipped with the package (``example:NAME`` loads one).

    Returns
    -------
    list of str

    Examples
    --------
    >>> "standard_red" in example_names()
    True
    """
    return sorted(p.name[:-5] for p in _EXAMPLES.iterdir() if p.name.endswith(".toml"))


def example_text(name):
    """The text of a shipped scenario file.

    Parameters
    ----------
    name : str
        One of :func:`example_names` (with or without ``example:``).

    Returns
    -------
    str
    """
    name = name.removeprefix(EXAMPLE_PREFIX)
    if name not in example_names():
        raise ValueError(f"{EXAMPLE_PREFIX}{name}: no such example; examples: {', '.join(example_names())}")
    return (_EXAMPLES / f"{name}.toml").read_text(encoding="utf-8")


def load_scenario(path):
    """Read a scenario file (TOML) into a :class:`tcpmodels.sim.Scenario`.

    Parameters
    ----------
    path : str or os.PathLike
        The scenario file (format: :func:`scenario_from_table`, docs/cli.md),
        or ``example:NAME`` for a file shipped with the package
        (:func:`example_names`).

    Returns
    -------
    tcpmodels.sim.Scenario

    Raises
    ------
    ValueError
        Unreadable file, invalid TOML, an unknown field or type, a bad value;
        the message starts with the file name and names the field.
    """
    return scenario_from_table(read_table(path), str(path))


def read_table(path, what="scenario file"):
    """The TOML table of a scenario (or sweep) file, or of a shipped ``example:NAME``.

    Parameters
    ----------
    path : str or os.PathLike
        The file, or ``example:NAME``.
    what : str, optional
        What the file is, for the message when it cannot be read.

    Returns
    -------
    dict
        As :func:`tomllib.load` returns it.

    Raises
    ------
    ValueError
        Unreadable file or invalid TOML; the message starts with the file name.
    """
    try:
        if isinstance(path, str) and path.startswith(EXAMPLE_PREFIX):
            return tomllib.loads(example_text(path))
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ValueError(f"{path}: cannot read the {what} ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:  # (a ValueError whose message names no file)
        raise ValueError(f"{path}: not valid TOML: not UTF-8 text ({error.reason} at byte {error.start})") from None
