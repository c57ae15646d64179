"""Sweeps: many scenarios, batched by shape, on a process pool or a cluster, as one tidy table.

:func:`sweep` splits the scenarios into chunks of one shape (what
:func:`~tcpmodels.sim.simulate` batches into one array computation), runs
the chunks on a ``concurrent.futures`` executor and gathers one row per
scenario and seed: its parameters beside its results.  With ``out=`` every
finished chunk is appended to a CSV file at once, and a sweep run again on the
same file skips what is already there, so an interrupted sweep loses only the
chunks that were running; a worker process killed under the default local
pool costs only the chunks it was running, which a new pool runs again.
"""

import concurrent.futures
import csv
import dataclasses
import hashlib
import io
import json
import math
import multiprocessing
import os
import signal
import warnings

import numpy as np

from .. import _checks
from .engine import as_scenarios, batches, simulate, with_seeds
from .flows import batch_width
from .result import SimResult
from .scenario import compute_seconds

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, one sweep per file is on the user
    fcntl = None

__all__ = ["sweep", "SweepTable", "CHUNK_FLOWS", "WORKER_LOSSES", "WORKERS_PER_CORE", "check_workers"]

# Most flows in a chunk.  A batch amortises numpy's per-step call overhead over
# its flows: 20-flow scenarios cost 68 ms alone and 5 ms each in a batch of 64
# (1280 flows); 500-flow ones 62 ms alone, 17 and 11 ms each in batches of 8000
# and 32 000 flows, and only 5-13 % less again at 64 000 (measured on this
# project's 2-core machine, 30-60 s runs).  Smaller chunks lose less to a crash
# and report progress more often.
CHUNK_FLOWS = 32_000
#: Most local worker processes per core a sweep starts (``workers``).
WORKERS_PER_CORE = 4

# SimResult's summary numbers (not the per-flow arrays or the trace) are a row's results, but its time_step:
# the column of that name is the scenario's own field (None for the default step, see Scenario.step).
_RESULTS = tuple(f.name for f in dataclasses.fields(SimResult) if f.type in (float, int) and f.name != "time_step")


def sweep(scenarios, *, seeds=None, executor=None, workers=None, progress=True, out=None, chunk_size=None):
    """Run many scenarios, batching those of one shape, and return one row per scenario and seed.

    Parameters
    ----------
    scenarios : Scenario or sequence of Scenario
        What to run.  Scenarios equal in every parameter (seed included) run
        once and give one row.
    seeds : sequence of int, optional
        Run every scenario once per seed (replacing its own ``seed``); rows
        in scenario-major order.
    executor : concurrent.futures.Executor, optional
        Where chunks run: ``None`` starts a local process pool with one worker
        per core (spawned, so a script that calls this needs the usual
        ``if __name__ == "__main__":`` guard) that starts again when a worker
        dies, re-running only the chunks that were running in it (a chunk
        running at :data:`WORKER_LOSSES` deaths stops the sweep); a Dask
        cluster's ``distributed.Client(...).get_executor()`` spreads them over
        its workers, and re-runs the chunks of a worker it loses.  A given
        executor is neither shut down nor replaced: if it breaks, the error
        says how many scenarios were not finished.
    workers : int, optional
        Processes of the local pool (default: one per core); not with `executor`.
    progress : bool
        Show a progress bar (tqdm; the widget in a notebook).
    out : str or os.PathLike, optional
        CSV file that receives every finished chunk's rows as it completes
        (one atomic append each).  Rows already in it (same scenario and
        seed: the ``key`` column) are not run again, so the same call after an
        interruption finishes the rest; a torn last line is dropped.
    chunk_size : int, optional
        Scenarios per chunk.  By default a chunk holds all the scenarios of one
        shape, split into chunks of at most ``CHUNK_FLOWS`` flows and further
        until every worker has one.

    Returns
    -------
    SweepTable
        Columns ``key`` (a hash of the scenario's parameters and seed), the
        scenario's parameters (queue and sender fields dotted, as
        ``queue.max_p``; their kinds as ``queue.type``, ``sender.type``), and
        the :class:`SimResult` summary numbers (``loss_rate``, ``queue``,
        ``utilization``, ...).

    Raises
    ------
    ValueError
        Bad `scenarios`, `seeds`, `workers` or `chunk_size`; an `out` file that is not
        this sweep's or is in use by another.
    OSError
        `out` cannot be written (a full disk): the rows written so far stay.
    concurrent.futures.BrokenExecutor
        A given executor broke, or the local pool lost a worker
        :data:`WORKER_LOSSES` times under one chunk: the rows written so far stay.

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> from tcpmodels import sim
    >>> base = sim.Scenario(n_flows=5, bandwidth=1e6, rtt=0.05, duration=30.0, warmup=10.0, start_spread=1.0)
    >>> grid = [dataclasses.replace(base, queue=sim.RED(max_th=m)) for m in (20, 40)]
    >>> with ThreadPoolExecutor(1) as pool:
    ...     table = sim.sweep(grid, seeds=[1, 2], executor=pool, progress=False)
    >>> len(table), table["queue.max_th"].tolist(), table["seed"].tolist()
    (4, [20.0, 20.0, 40.0, 40.0], [1, 2, 1, 2])
    >>> bool((table["utilization"] > 0.9).all())
    True
    """
    points = _points(scenarios, seeds)
    progress = _checks.flag("progress", progress)
    if workers is not None:
        check_workers("workers", workers)
    if chunk_size is not None and not _count(chunk_size):
        raise ValueError(f"chunk_size must be a whole number >= 1, got {chunk_size!r}")
    if workers is not None and executor is not None:
        raise ValueError("workers: give workers (a local pool) or an executor, not both")
    params = [_parameters(s) for s in points]
    keys = [_key(p) for p in params]
    first = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)  # identical points run once
    unique = list(first.values())
    names = tuple(dict.fromkeys(c for i in unique for c in params[i]))
    results = {}

    def row(i):
        return (keys[i], *(params[i].get(c) for c in names), *results[keys[i]])

    file = _ResultsFile(out, ("key", *names, *_RESULTS)) if out is not None else None
    try:
        if file is not None:
            results.update({k: v for k, v in file.done.items() if k in first})

        def finished(members, rows):
            results.update({keys[i]: r for i, r in zip(members, rows, strict=True)})
            if file is not None:
                file.append([row(i) for i in members])

        todo = [i for i in unique if keys[i] not in results]
        _run(points, todo, executor, workers or os.cpu_count() or 1, progress, chunk_size, finished)
    finally:
        if file is not None:
            file.close()
    return SweepTable(("key", *names, *_RESULTS), tuple(row(i) for i in unique))


def _count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def check_workers(name, value):
    """``value`` as a count of local worker processes, or ``ValueError`` naming `name` (``sweep``, its command).

    At most :data:`WORKERS_PER_CORE` per core: each is a process of its own (a sweep of many scenarios starts
    as many as it has chunks), and processes beyond the cores only share them.

    Parameters
    ----------
    name : str
        The argument or option, for the message.
    value : int
        Worker processes [-].

    Returns
    -------
    int

    Examples
    --------
    >>> check_workers("workers", 1)
    1
    """
    top = WORKERS_PER_CORE * (os.cpu_count() or 1)
    if not _count(value) or value > top:
        raise ValueError(f"{name} must be a whole number from 1 to {top} ({WORKERS_PER_CORE} per core of this "
                         f"machine's {top // WORKERS_PER_CORE}), got {_checks.short(value)}")
    return value


@dataclasses.dataclass(frozen=True)
class SweepTable:
    """A sweep's results: one row per scenario and seed, parameters beside results.

    Parameters
    ----------
    columns : tuple of str
        Column names.
    rows : tuple of tuple
        The rows, each a value per column (``None`` where a parameter does
        not apply, e.g. ``queue.max_p`` of a drop-tail queue).

    Examples
    --------
    >>> t = SweepTable(("key", "n_flows", "loss_rate"), (("a", 10, 0.01), ("b", 20, None)))
    >>> len(t), t["loss_rate"], t.records()[0]
    (2, array([0.01,  nan]), {'key': 'a', 'n_flows': 10, 'loss_rate': 0.01})
    >>> print(t.to_csv(), end="")
    key,n_flows,loss_rate
    a,10,0.01
    b,20,
    """

    columns: tuple
    rows: tuple

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, name):
        """One column as an ndarray: numbers as floats (``None`` -> NaN) or ints, else objects."""
        if name not in self.columns:
            raise KeyError(f"no column {name!r}; the columns are {', '.join(self.columns)}")
        j = self.columns.index(name)
        values = [row[j] for row in self.rows]
        if None in values and all(v is None or isinstance(v, (int, float)) and not isinstance(v, bool)
                                  for v in values):
            return np.array([np.nan if v is None else v for v in values], dtype=float)
        return np.array(values)

    def records(self):
        """The rows as a list of ``{column: value}`` dicts."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def to_dict(self):
        """The columns as a ``{name: ndarray}`` dict."""
        return {name: self[name] for name in self.columns}

    def to_pandas(self):
        """The table as a ``pandas.DataFrame`` (pandas must be installed)."""
        import pandas

        return pandas.DataFrame(list(self.rows), columns=list(self.columns))

    def to_csv(self):
        """The table as CSV text: a header line, then one line per row (``None`` empty)."""
        return "".join(_csv_line(row) for row in (self.columns, *self.rows))


def _points(scenarios, seeds):
    """The scenarios to run, each with its seed."""
    points = as_scenarios("scenarios", scenarios)
    return points if seeds is None else with_seeds(points, seeds)


def _plain(value):
    """A parameter as a table cell: numbers, strings, booleans and None as they are, the rest as JSON."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    return json.dumps(value, sort_keys=True, default=_jsonable)


def _jsonable(value):
    if dataclasses.is_dataclass(value):
        return {"type": type(value).__name__, **dataclasses.asdict(value)}
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    raise TypeError(f"cannot write {value!r} into a sweep table")


def _parameters(scenario):
    """A scenario's fields as ``{column: cell}``; its queue and sender spread into dotted columns."""
    out = {}
    for field in dataclasses.fields(scenario):
        value = getattr(scenario, field.name)
        if dataclasses.is_dataclass(value):
            out[f"{field.name}.type"] = type(value).__name__
            out.update({f"{field.name}.{f.name}": _plain(getattr(value, f.name)) for f in dataclasses.fields(value)})
        else:
            out[field.name] = _plain(value)
    return out


def _key(params):
    """A stable name of a scenario and its seed: the hash of its parameters (64 bits, hex)."""
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]


def _chunks(points, todo, slots, chunk_size):
    """Lists of indices into `points`, each of one shape (one batch), largest first.

    Each batch (``engine.batches``) makes one chunk, split into equal parts of at most
    CHUNK_FLOWS flows; then, while there are fewer chunks than `slots` (the executor's
    workers), the largest is halved.  Two workers on one chunk of 64 would
    leave one idle; on four chunks of 16 they would each pay the per-step
    overhead twice (one process runs 64 100-flow scenarios in one batch 1.8x
    cheaper than in four).
    """
    groups = batches(points, todo)
    if chunk_size:
        return [m[j:j + chunk_size] for m in groups for j in range(0, len(m), chunk_size)]

    def flows(chunk):  # in the batch's layout: each scenario padded to the most flows of any
        return len(chunk) * batch_width([points[i] for i in chunk])

    chunks = [part for m in groups for part in _split(m, min(len(m), math.ceil(flows(m) / CHUNK_FLOWS)))]

    def work(chunk):  # [s]
        s = points[chunk[0]]
        return compute_seconds(s.duration / s.step, flows(chunk))

    chunks.sort(key=work, reverse=True)
    while 0 < len(chunks) < slots and len(chunks[0]) > 1:
        chunks = sorted(chunks[1:] + _split(chunks[0], 2), key=work, reverse=True)
    return chunks


def _split(members, parts):
    """`members` in `parts` consecutive pieces of sizes that differ by at most one."""
    return [members[len(members) * k // parts:len(members) * (k + 1) // parts] for k in range(parts)]


def _slots(executor):
    """How many chunks `executor` runs at once (a Dask cluster: its worker threads)."""
    client = getattr(executor, "_client", None)  # distributed's ClientExecutor
    if client is not None:
        return max(1, sum(client.nthreads().values()))
    return getattr(executor, "_max_workers", None) or os.cpu_count() or 1


def _ignore_interrupts():
    # Ctrl-C reaches every process of the terminal's group: the sweep itself
    # stops the workers, which would otherwise each print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_chunk(scenarios):
    """Simulate one chunk (in a worker): its rows' result numbers and the warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = [tuple(float(getattr(r, name)) for name in _RESULTS) for r in simulate(scenarios)]
    return rows, [(w.category, str(w.message)) for w in caught]


def _run(points, todo, executor, workers, progress, chunk_size, finished):
    """Run the `todo` points in chunks on `executor` (None: a pool of `workers` processes).

    ``finished(members, rows)`` receives each chunk's indices and result rows.
    """
    from tqdm.auto import tqdm

    chunks = list(_chunks(points, todo, _slots(executor) if executor else workers, chunk_size))
    if not chunks:
        return
    with tqdm(total=len(todo), disable=not progress, unit="scenario", desc="sweep") as bar:
        def done(members, future):
            rows, caught = future.result()
            for category, message in dict.fromkeys(caught):
                warnings.warn(message, category, stacklevel=5)
            finished(members, rows)
            bar.update(len(rows))

        if executor is None:
            _run_local(points, chunks, workers, done)
        else:
            _run_on(executor, points, chunks, done)


def _run_on(executor, points, chunks, done):
    """Run `chunks` on the caller's `executor`; if it breaks, say what was lost (it is the caller's to restart)."""
    futures = {executor.submit(_run_chunk, [points[i] for i in members]): members for members in chunks}
    try:
        for future in concurrent.futures.as_completed(futures):
            # Let go of the finished future: a cluster keeps a result while it is referenced,
            # and recomputes it if the worker holding it is lost.
            members = futures.pop(future)
            try:
                done(members, future)
            except concurrent.futures.BrokenExecutor as error:
                lost = len(members) + sum(map(len, futures.values()))
                raise type(error)(f"{error} ({lost} scenarios were not finished; the sweep restarts only "
                                  "its own pool, not an executor it is given)") from error
    finally:
        for future in futures:
            future.cancel()


#: Worker deaths a chunk may be running at before the sweep gives up on it (then it
#: most likely kills its worker itself: out of memory).
WORKER_LOSSES = 3


def _run_local(points, chunks, workers, done):
    """Run `chunks` (index lists) on the sweep's own process pool, starting a new pool when a worker dies.

    A chunk is handed over only when a worker is free, so the chunks in flight
    are those running.  A worker killed (the OOM killer, ``kill -9``) breaks a
    ``ProcessPoolExecutor`` and fails every chunk in it: the finished ones are
    kept, the ones in flight are charged a loss and queued again on a new
    pool.  A chunk in flight at :data:`WORKER_LOSSES` deaths stops the sweep.
    """
    waiting, losses = list(range(len(chunks))), [0] * len(chunks)
    while waiting:
        slots = min(workers, len(waiting))
        pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=slots, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_interrupts)
        running, complete = {}, False
        try:
            while waiting or running:
                while waiting and len(running) < slots:
                    future = pool.submit(_run_chunk, [points[i] for i in chunks[waiting[0]]])
                    running[future] = waiting.pop(0)  # after submit: a broken pool refuses it
                ready, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in sorted(ready, key=lambda f: f.exception() is not None):  # results before a break
                    done(chunks[running[future]], future)
                    del running[future]
            complete = True
        except concurrent.futures.process.BrokenProcessPool:
            waiting = _lost(running, chunks, losses, done) + waiting
        finally:
            _stop(pool, complete)


def _lost(running, chunks, losses, done):
    """The chunks a broken pool did not finish, each charged a loss; keep what it did finish."""
    lost = []
    for future, c in running.items():
        if future.done() and future.exception() is None:
            done(chunks[c], future)
        else:
            lost.append(c)
            losses[c] += 1
    worst = max(lost, key=losses.__getitem__, default=None)
    if worst is not None and losses[worst] >= WORKER_LOSSES:
        raise concurrent.futures.process.BrokenProcessPool(
            f"a worker process died each of the {WORKER_LOSSES} times it ran a chunk of {len(chunks[worst])} "
            "scenarios (out of memory?); the sweep stops") from None
    return sorted(lost)


def _stop(pool, complete):
    """Shut our own pool down; after an error or Ctrl-C, end its running chunks at once.

    Killing the workers breaks the pool, which fails the chunks left; they are
    not cancelled first, as Python 3.11's pool then raises in its own thread
    (setting the error of a cancelled future) and prints a traceback.
    """
    if not complete:
        # ProcessPoolExecutor has no public way to stop running work before Python 3.14.
        for process in list((pool._processes or {}).values()):
            process.kill()
    pool.shutdown(wait=True)


def _csv_line(values):
    """One CSV line: floats by repr (they read back exactly), None empty, ends in a newline."""
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerow(
        ["" if v is None else repr(v) if isinstance(v, float) else v for v in values])
    return text.getvalue()


class _ResultsFile:
    """The ``out`` CSV: a header, then one whole line per finished scenario.

    Rows are appended one chunk per ``write`` on a file opened with O_APPEND
    and flushed to disk (fsync) before the sweep goes on, so a crash or a
    kill leaves complete lines and at most one torn last line, which the next
    run cuts off.  A failed write is cut off at once.  An exclusive lock keeps
    two sweeps from writing the same file.
    """

    def __init__(self, path, columns):
        self.path, self.columns = os.fspath(path), columns
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as error:
            raise ValueError(f"{self.path}: cannot open the results file ({error.strerror})") from None
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise ValueError(f"{self.path}: another sweep is writing to this file") from None
            self.done = self._read()
        except BaseException:
            os.close(self.fd)
            raise

    def _read(self):
        """Rows already in the file, ``{key: results}``; cut off a torn last line; write a new file's header."""
        with open(self.path, "rb") as handle:
            content = handle.read()
        whole = content.rfind(b"\n") + 1
        if whole < len(content):  # a line the last run did not finish
            os.ftruncate(self.fd, whole)
        lines = content[:whole].decode(errors="replace").splitlines()
        if not lines:
            self.append([self.columns])
            return {}
        rows = list(csv.reader(lines))
        if tuple(rows[0]) != self.columns:
            raise ValueError(f"{self.path}: its columns are not this sweep's; write to a new file "
                             f"(file: {','.join(rows[0])[:200]})")
        done = {}
        for number, row in enumerate(rows[1:], start=2):
            if len(row) != len(self.columns):
                raise ValueError(f"{self.path}: line {number} has {len(row)} fields, not {len(self.columns)}")
            done.setdefault(row[0], tuple(float(x) if x else math.nan for x in row[-len(_RESULTS):]))
        return done

    def append(self, rows):
        """Append `rows` (value lists) in one write, flushed to disk; on failure leave the file as it was."""
        data = "".join(_csv_line(row) for row in rows).encode()
        size = os.fstat(self.fd).st_size
        try:
            written = 0
            while written < len(data):  # a short write (disk filling up): the rest, or the error
                written += os.write(self.fd, data[written:])
            os.fsync(self.fd)
        except OSError as error:
            os.ftruncate(self.fd, size)
            raise OSError(error.errno, f"{self.path}: cannot write the results ({error.strerror}); "
                                       "the rows before are kept") from None

    def close(self):
        os.close(self.fd)
