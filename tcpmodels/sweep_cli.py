"""``tcpmodels sweep GRID.toml``: a scenario file with a ``[sweep]`` table, run as a grid.

GRID.toml is a scenario file as ``tcpmodels simulate`` reads it
(:mod:`tcpmodels.scenario_file`) plus a ``[sweep]`` table.  Its keys are
scenario fields, dotted for the queue's and the sender's (``"queue.max_p"``,
or TOML's own dotted keys ``queue.max_p = [...]``); its values are lists,
swept as their cartesian product (the last key varies fastest); an optional
``seeds = [...]`` runs every point once per seed::

    n_flows = 100
    bandwidth = "10mbit"
    rtt = "100ms"
    duration = "100s"

    [queue]
    type = "RED"
    max_th = 217

    [sweep]
    n_flows = [50, 100, 200]
    "queue.max_p" = [0.02, 0.1]
    seeds = [1, 2, 3]

The command runs :func:`tcpmodels.sim.sweep` on a local process pool
(``--workers``) or a Dask cluster (``--scheduler``) and prints the table as
CSV, or appends it to ``--out`` as it goes; the same command run again after
an interruption finishes what is missing.
"""

import copy
import itertools
import sys

from . import sim, units
from .scenario_file import read_table, scenario_from_table
from .sim.sweep import check_workers

__all__ = ["load_grid", "add_parser", "run"]


def load_grid(path):
    """Read a sweep file: the scenarios of its grid, and its seeds.

    Parameters
    ----------
    path : str or os.PathLike
        A scenario file (TOML) with a ``[sweep]`` table (see the module docstring).

    Returns
    -------
    scenarios : list of tcpmodels.sim.Scenario
        One per point of the grid, in order (the last key varies fastest).
    seeds : list of int or None
        The ``seeds`` of ``[sweep]``, if given.

    Raises
    ------
    ValueError
        Unreadable file, invalid TOML, a bad ``[sweep]`` table or a grid point
        that is not a valid scenario; the message starts with the file name and
        names the field (and the point).
    """
    table = read_table(path, "sweep file")
    grid = _flat(table.pop("sweep", None), path)
    seeds = grid.pop("seeds", None)
    if seeds is not None and "seed" in grid:
        raise ValueError(f"{path}: [sweep] seeds: sweep seed or give seeds, not both")
    if seeds is not None and not (isinstance(seeds, list) and seeds
                                  and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)):
        raise ValueError(f"{path}: [sweep] seeds: expected a list of whole numbers >= 0, got {seeds!r}")
    for key, values in grid.items():
        if not (isinstance(values, list) and values):
            raise ValueError(f"{path}: [sweep] {key}: expected a non-empty list of values, got {values!r}")
    scenarios = []
    for point in itertools.product(*grid.values()):
        scenario = copy.deepcopy(table)
        for key, value in zip(grid, point, strict=True):
            _set(scenario, key, value)
        where = ", ".join(f"{key} = {value!r}" for key, value in zip(grid, point, strict=True))
        scenarios.append(scenario_from_table(scenario, f"{path} [sweep] {where}"))
    return scenarios, seeds


def _flat(grid, path):
    """The ``[sweep]`` table with TOML's dotted keys (nested tables) as ``"queue.max_p"`` keys."""
    if not isinstance(grid, dict) or not grid:
        raise ValueError(f"{path}: expected a [sweep] table of scenario fields and lists of values")
    flat = {}
    for key, value in grid.items():
        if isinstance(value, dict):
            flat.update({f"{key}.{field}": values for field, values in value.items()})
        else:
            flat[key] = value
    for key in flat:
        if "." in key and key.split(".")[0] not in ("queue", "sender"):
            raise ValueError(f"{path}: [sweep] {key}: only queue and sender fields are dotted "
                             "(queue.max_p, sender.max_window)")
    return flat


def _set(table, key, value):
    """Set a scenario table's field; ``queue.max_p`` sets a field of its [queue] table (or queue name)."""
    if "." not in key:
        table[key] = value
        return
    name, field = key.split(".", 1)
    spec = table.get(name, {})
    table[name] = spec = {"type": spec} if isinstance(spec, str) else dict(spec)
    spec[field] = value


def add_parser(commands):
    """Add the ``sweep`` command to an argparse subparsers object.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The ``tcpmodels`` command's subparsers.
    """
    p = commands.add_parser("sweep", help="run the simulator over a grid of scenarios (TOML) to CSV",
                            description="Run tcpmodels.sim over the cartesian product of a scenario "
                                        "file's [sweep] table (format: docs/sweep.md), in batches, on a "
                                        "local process pool or a Dask cluster. Prints the results as CSV, "
                                        "or appends each finished scenario to --out; run the same command "
                                        "again after an interruption to finish what is missing.")
    p.add_argument("grid", metavar="GRID.toml", help="scenario file with a [sweep] table")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", metavar="N", help="local worker processes (default: one per core)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="Dask scheduler to run on, e.g. tcp://10.0.0.1:8786 (needs tcpmodels[cluster])")
    p.add_argument("--out", metavar="CSV",
                   help="results file: rows are appended as scenarios finish, and rows already there are "
                        "not run again")
    p.set_defaults(json=False)


def _fail(message, status=2):
    print(f"tcpmodels sweep: {message}", file=sys.stderr)
    raise SystemExit(status)


def _executor(address):
    """A Dask cluster's executor (and its client, to close)."""
    if not address.strip():  # (an empty address would run the sweep here, not on the cluster asked for)
        _fail(f"--scheduler: expected a scheduler address such as tcp://10.0.0.1:8786, got {address!r}")
    try:
        from distributed import Client
    except ImportError:
        _fail("--scheduler needs dask.distributed: pip install 'tcpmodels[cluster]'")
    try:
        client = Client(address, timeout=15)
    except (OSError, ValueError, TypeError) as error:  # unreachable, or not an address
        _fail(f"--scheduler: cannot connect to {address} ({error})")
    return client.get_executor(), client


def run(args):
    """Run the ``sweep`` command: print one line and exit on any failure.

    Parameters
    ----------
    args : argparse.Namespace
        ``grid``, ``workers``, ``scheduler`` and ``out`` as :func:`add_parser` defines them, and
        ``show_warnings``, which prints the warnings caught so far (``tcpmodels.cli``).

    Returns
    -------
    tuple
        The table (or, with ``--out``, a summary of the file) and the function that renders it.
    """
    try:
        workers = None if args.workers is None else check_workers("--workers", units.parse_count(args.workers,
                                                                                                 "--workers"))
        scenarios, seeds = load_grid(args.grid)
    except ValueError as error:
        _fail(error)
    args.show_warnings()  # (what the grid's scenarios warn, before the run)
    executor, client = _executor(args.scheduler) if args.scheduler is not None else (None, None)
    try:
        table = sim.sweep(scenarios, seeds=seeds, executor=executor, workers=workers, out=args.out,
                          progress=sys.stderr.isatty())
    except ValueError as error:  # the --out file is not this sweep's, or in use
        _fail(error)
    except KeyboardInterrupt:
        _fail(_again(args, "interrupted"), 130)
    except Exception as error:  # a full disk, a lost worker pool: said in one line, not a traceback
        _fail(_again(args, f"stopped: {type(error).__name__}: {error}"), 1)
    finally:
        if client is not None:
            client.close()
    if args.out is None:
        return table, lambda t: t.to_csv().rstrip("\n")
    return table, lambda t: f"{len(t)} scenarios (rows) in {args.out}"


def _again(args, what):
    if args.out is None:
        return f"{what}; with --out the rows finished so far would be kept"
    return f"{what}; the finished rows are in {args.out}: run the same command again to finish the rest"
