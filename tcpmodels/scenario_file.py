"""Scenario files: a TOML table of a simulation scenario -> :class:`tcpmodels.sim.Scenario`.

Top-level keys are the fields of ``Scenario``; ``[queue]`` and ``[sender]`` are
tables whose ``type`` names a class of :mod:`tcpmodels.sim` (case-insensitive)
and whose other keys are its fields.  Rates, times, sizes and buffers may be
strings with tc units (``"10mbit"``, ``"100ms"``, ``"576b"``, ``"64kb"``);
numbers are SI (bit/s, s, bytes; buffers and thresholds in packets).  The
format is described in docs/cli.md.  Scenarios are built only through
:mod:`tcpmodels.sim`'s public classes.
"""

import dataclasses
import inspect

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10: pyproject requires tomli there
    import tomli as tomllib

from . import sim, units

__all__ = ["load_scenario", "scenario_from_table", "sim_classes"]

# Scenario-file fields written with tc units, by what they measure.
_RATE_FIELDS = {"bandwidth", "access_rate"}
_TIME_FIELDS = {"rtt", "duration", "warmup", "time_step", "trace_interval", "start_spread", "min_rto",
                "granularity", "max_rto", "t_clear"}
_SIZE_FIELDS = {"packet_size"}
_PACKET_FIELDS = {"buffer", "min_th", "max_th", "max_window"}


def sim_classes():
    """Queue and sender classes of :mod:`tcpmodels.sim`, keyed by lower-case name without - or _."""
    return {name.lower(): obj for name, obj in vars(sim).items()
            if name in sim.__all__ and inspect.isclass(obj) and dataclasses.is_dataclass(obj)
            and obj not in (sim.Scenario, sim.SimResult)}


def _key(name):
    return name.lower().replace("-", "").replace("_", "")


def _fields(cls):
    return [f.name for f in dataclasses.fields(cls) if f.init]


def _value(where, key, value, packet_size):
    """One scenario value in SI units; strings may carry tc units."""
    if not isinstance(value, str):
        return value
    label = f"{where}{key}"
    if key in _RATE_FIELDS:
        return units.parse_rate(value, label)
    if key in _TIME_FIELDS:
        return units.parse_time(value, label)
    if key in _SIZE_FIELDS:
        return units.parse_size(value, label)
    if key in _PACKET_FIELDS:
        return units.parse_buffer(value, packet_size, label)
    return value


def _checked(where, table, allowed):
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"{where}unknown field {unknown[0]!r}; expected one of {', '.join(allowed)}")


def _component(where, name, spec, packet_size):
    """A ``[queue]`` or ``[sender]`` table (or a plain name) -> a sim object."""
    if isinstance(spec, str):
        return spec
    if not isinstance(spec, dict) or "type" not in spec:
        raise ValueError(f"{where}{name}: expected a name or a table with a 'type' key, got {spec!r}")
    classes = sim_classes()
    kind = spec["type"]
    cls = classes.get(_key(kind)) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"{where}{name}.type: unknown {kind!r}; expected one of "
                         f"{', '.join(c.__name__ for c in classes.values())}")
    options = {k: v for k, v in spec.items() if k != "type"}
    _checked(f"{where}[{name}] ", options, _fields(cls))
    return cls(**{k: _value(f"{where}[{name}] ", k, v, packet_size) for k, v in options.items()})


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
    _checked(where, table, _fields(sim.Scenario))
    default_size = {f.name: f.default for f in dataclasses.fields(sim.Scenario)}["packet_size"]
    size = _value(where, "packet_size", table.get("packet_size", default_size), None)
    kwargs = {k: _component(where, k, v, size) if k in ("queue", "sender") else _value(where, k, v, size)
              for k, v in table.items()}
    try:
        return sim.Scenario(**kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}{error}") from None


def load_scenario(path):
    """Read a scenario file (TOML) into a :class:`tcpmodels.sim.Scenario`.

    Parameters
    ----------
    path : str or os.PathLike
        The scenario file (format: :func:`scenario_from_table`, docs/cli.md).

    Returns
    -------
    tcpmodels.sim.Scenario

    Raises
    ------
    ValueError
        Unreadable file, invalid TOML, an unknown field or type, a bad value;
        the message starts with the file name and names the field.
    """
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise ValueError(f"{path}: cannot read the scenario file ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None
    return scenario_from_table(data, str(path))
