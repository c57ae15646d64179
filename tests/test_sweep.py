"""sim.sweep: batching by shape, the tidy table, executors, and the results file that survives faults."""

import concurrent.futures
import concurrent.futures.process  # (BrokenProcessPool: a submodule the package does not import by itself)
import dataclasses
import errno
import importlib
import math
import os
import signal
import threading
import time
import warnings

import numpy as np
import pytest

from tcpmodels import TCPModelsWarning, sim, sweep_cli
from tcpmodels.cli import main

sweep_module = importlib.import_module("tcpmodels.sim.sweep")  # sim.sweep is the function

# Short runs: the tests check bookkeeping, not the model.
BASE = sim.Scenario(n_flows=5, bandwidth=1e6, rtt=0.05, duration=8.0, warmup=2.0, start_spread=1.0)
RESULTS = ("loss_rate", "queue", "utilization", "timeouts_per_packet", "window", "jain_index")


def grid(max_ps=(0.02, 0.1, 0.5)):
    return [dataclasses.replace(BASE, queue=sim.RED(max_th=20, max_p=p)) for p in max_ps]


class CountingExecutor(concurrent.futures.ThreadPoolExecutor):
    """A one-thread pool that records the chunks it is given."""

    def __init__(self):
        super().__init__(1)
        self.chunks = []

    def submit(self, fn, scenarios):
        self.chunks.append(scenarios)
        return super().submit(fn, scenarios)


def run(scenarios, **kwargs):
    with CountingExecutor() as pool:
        return sim.sweep(scenarios, executor=pool, progress=False, **kwargs), pool.chunks


def assert_row_is(table, i, result):
    for name in RESULTS:
        assert table[name][i] == getattr(result, name), name


def test_rows_are_simulate_results_with_parameters_beside():
    table, chunks = run(grid(), seeds=[3, 4], chunk_size=1)
    assert len(table) == 6 and len(chunks) == 6
    assert table["queue.max_p"].tolist() == [0.02, 0.02, 0.1, 0.1, 0.5, 0.5]
    assert table["seed"].tolist() == [3, 4] * 3
    assert set(table["queue.type"]) == {"RED"} and set(table["sender.type"]) == {"Tahoe"}
    for i, s in enumerate(dataclasses.replace(s, seed=seed) for s in grid() for seed in (3, 4)):
        assert_row_is(table, i, sim.simulate(s))
    assert len(set(table["key"])) == 6


def test_default_pool_runs_a_chunk_as_simulate_batches_it():
    points = grid()
    table = sim.sweep(points, progress=False, chunk_size=len(points))  # one chunk: one batch
    for i, result in enumerate(sim.simulate(points)):
        assert_row_is(table, i, result)


def test_chunks_hold_one_shape_and_share_the_work():
    def sizes(points, slots, chunk_size=None):
        chunks = sweep_module._chunks(points, range(len(points)), slots, chunk_size)
        assert all(len({points[i].batch_key() for i in c}) == 1 for c in chunks)  # one shape each
        assert sorted(i for c in chunks for i in c) == list(range(len(points)))
        return [len(c) for c in chunks]

    small = [dataclasses.replace(BASE, n_flows=20, seed=i) for i in range(64)]
    other = [dataclasses.replace(BASE, n_flows=21, seed=i, sender=sim.Reno()) for i in range(3)]
    # Two shapes for two workers: a chunk each, the largest first.
    assert sizes(small + other, 2) == [64, 3]
    # One shape: halved until every worker has a chunk.
    assert sizes(small, 2) == [32, 32]
    assert sizes(small + other, 8) == [16] + [8] * 6 + [3]
    # Large scenarios: at most CHUNK_FLOWS flows per chunk, at least one scenario.
    big = [dataclasses.replace(BASE, n_flows=4000, seed=i) for i in range(40)]
    assert sizes(big, 2) == [8] * 5
    huge = [dataclasses.replace(BASE, n_flows=40_000, seed=i) for i in range(3)]
    assert sizes(huge, 8) == [1, 1, 1]
    assert sizes(small + other, 2, chunk_size=10) == [10] * 6 + [4, 3]
    # Flow counts may differ within a shape while padding the smaller costs less than a step's
    # fixed cost (engine.batches): 20 and 21 flows share a chunk, 20 and 4000 do not.
    near = [dataclasses.replace(BASE, n_flows=21, seed=i) for i in range(3)]
    assert sizes(small + near, 1) == [67]
    assert sizes(small[:3] + big[:3], 1) == [3, 3]


def test_identical_points_run_once():
    table, chunks = run(grid() + grid()[:1], seeds=[1, 1])
    assert len(table) == 3 and sum(len(c) for c in chunks) == 3
    assert table["queue.max_p"].tolist() == [0.02, 0.1, 0.5]  # in the order first given


@pytest.mark.parametrize("kwargs,match", [
    (dict(scenarios=[]), "scenarios"),
    (dict(scenarios=[BASE, "red"]), "scenarios"),
    (dict(scenarios=BASE, seeds=[]), "seeds"),
    (dict(scenarios=BASE, seeds=[-1]), "seed"),
    (dict(scenarios=BASE, chunk_size=0), "chunk_size"),
    (dict(scenarios=BASE, chunk_size=1.5), "chunk_size"),
    (dict(scenarios=BASE, chunk_size=True), "chunk_size"),
    (dict(scenarios=5), "scenarios must be a Scenario .*, got 5"),    # TypeError
    (dict(scenarios=BASE, seeds=7), "seeds must be a non-empty sequence"),   # TypeError
    (dict(scenarios=BASE, workers=True), "workers must be a whole number from 1"),  # ran one worker
    (dict(scenarios=BASE, workers=10**20), "workers must be a whole number from 1 to"),
])
def test_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sim.sweep(**kwargs, progress=False)


def test_progress_is_a_flag():
    with pytest.raises(ValueError, match="progress must be True or False, got 'false'"):  # showed the bar
        sim.sweep(BASE, progress="false")


def test_table_columns_records_csv_and_pandas():
    mixed = [dataclasses.replace(BASE, queue=sim.DropTail(buffer=30)), grid()[0]]
    table, _ = run(mixed)
    assert table["queue.type"].tolist() == ["DropTail", "RED"]
    assert table["queue.buffer"].tolist()[0] == 30
    assert math.isnan(table["queue.max_p"][0]) and table["queue.max_p"][1] == 0.02
    assert table["queue.gentle"].tolist() == [None, False]
    assert table.columns[0] == "key" and table.columns[-len(sweep_module._RESULTS):] == sweep_module._RESULTS
    assert table.records()[1]["queue.max_p"] == 0.02
    assert set(table.to_dict()) == set(table.columns)
    lines = table.to_csv().splitlines()
    assert len(lines) == 3 and lines[0].split(",") == list(table.columns)
    with pytest.raises(KeyError, match="no column 'nope'"):
        table["nope"]
    pandas = pytest.importorskip("pandas")
    frame = table.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and frame.shape == (2, len(table.columns))
    assert frame["loss_rate"].tolist() == table["loss_rate"].tolist()


def test_results_file_skips_what_is_done(tmp_path):
    out = tmp_path / "results.csv"
    first, _ = run(grid(), seeds=[1, 2], out=out, chunk_size=1)
    again, chunks = run(grid(), seeds=[1, 2], out=out)
    assert chunks == [] and again == first
    # A longer sweep on the same file runs only what is new; the file gets it once.
    longer, chunks = run(grid((0.02, 0.1, 0.5, 1.0)), seeds=[1, 2], out=out)
    assert [s.queue.max_p for c in chunks for s in c] == [1.0, 1.0]
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 8 and len({line.split(",")[0] for line in lines}) == 9
    assert longer.rows[:6] == first.rows


def test_torn_last_line_is_dropped_and_rerun(tmp_path):
    out = tmp_path / "results.csv"
    clean, _ = run(grid(), out=out, chunk_size=1)
    text = out.read_text()
    lines = text.splitlines(keepends=True)
    out.write_text("".join(lines[:-1]) + lines[-1][:25])  # the last row cut mid-write
    table, chunks = run(grid(), out=out, chunk_size=1)
    assert len(chunks) == 1 and table == clean
    assert out.read_text() == text


def test_a_file_that_is_not_this_sweeps_is_refused(tmp_path):
    out = tmp_path / "results.csv"
    out.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="results.csv: its columns are not this sweep's"):
        run(grid(), out=out)
    run(grid(), out=out.with_name("good.csv"))
    text = out.with_name("good.csv").read_text().splitlines()
    out.write_text("\n".join([text[0], text[1], "x,y", text[2]]) + "\n")
    with pytest.raises(ValueError, match="results.csv: line 3 has 2 fields"):
        run(grid(), out=out)


def test_one_sweep_per_file(tmp_path):
    out = tmp_path / "results.csv"
    columns = ("key", "x", *sweep_module._RESULTS)
    held = sweep_module._ResultsFile(out, columns)
    try:
        with pytest.raises(ValueError, match="another sweep is writing"):
            sweep_module._ResultsFile(out, columns)
    finally:
        held.close()
    sweep_module._ResultsFile(out, columns).close()


def test_full_disk_keeps_whole_rows_and_a_rerun_finishes(tmp_path, monkeypatch):
    out = tmp_path / "results.csv"
    write = sweep_module.os.write
    calls = []

    def filling_disk(fd, data):
        calls.append(len(data))
        if len(calls) == 3:  # header, one row, then half a row before the disk is full
            return write(fd, data[:len(data) // 2])
        if len(calls) > 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return write(fd, data)

    monkeypatch.setattr(sweep_module.os, "write", filling_disk)
    with pytest.raises(OSError, match="results.csv: cannot write the results .No space left"):
        run(grid(), out=out, chunk_size=1)
    lines = out.read_text().split("\n")
    assert len(lines) == 3 and lines[-1] == ""  # header and one whole row, no torn one
    monkeypatch.setattr(sweep_module.os, "write", write)
    table, chunks = run(grid(), out=out, chunk_size=1)
    assert len(chunks) == 2 and len(out.read_text().splitlines()) == 4
    assert table == run(grid(), chunk_size=1)[0]


def test_a_failing_chunk_stops_the_sweep_and_keeps_the_rows_before(tmp_path, monkeypatch):
    out = tmp_path / "results.csv"
    simulate = sweep_module.simulate

    def flaky(scenarios):
        if scenarios[0].queue.max_p == 0.1:
            raise MemoryError("too big")
        return simulate(scenarios)

    monkeypatch.setattr(sweep_module, "simulate", flaky)
    with pytest.raises(MemoryError):
        run(grid(), out=out, chunk_size=1)
    assert len(out.read_text().splitlines()) == 2


def test_warnings_from_the_workers_reach_the_caller(monkeypatch):
    simulate = sweep_module.simulate

    def warning(scenarios):
        warnings.warn("outside the model's range", TCPModelsWarning, stacklevel=2)
        return simulate(scenarios)

    monkeypatch.setattr(sweep_module, "simulate", warning)
    with pytest.warns(TCPModelsWarning, match="outside the model's range"):
        run(grid()[:1])


def test_progress_bar(capsys):
    run(grid()[:2], chunk_size=1)
    assert capsys.readouterr().err == ""
    with CountingExecutor() as pool:
        sim.sweep(grid()[:2], executor=pool, chunk_size=1)
    assert "2/2" in capsys.readouterr().err


def test_numbers_read_back_exactly(tmp_path):
    out = tmp_path / "results.csv"
    table, _ = run(grid(), out=out)
    again = sweep_module._ResultsFile(out, table.columns)
    again.close()
    stored = [again.done[key] for key in table["key"]]
    fresh = np.array([row[-len(sweep_module._RESULTS):] for row in table.rows])
    assert np.array_equal(np.array(stored), fresh)


def test_on_a_dask_cluster():
    from distributed import Client, LocalCluster

    # Threads in this process: the cluster starts in well under a second, which is all this checks.
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster, timeout=30) as client:
        table = sim.sweep(grid(), seeds=[1, 2], executor=client.get_executor(), progress=False, chunk_size=1)
    for i, s in enumerate(dataclasses.replace(s, seed=seed) for s in grid() for seed in (1, 2)):
        assert_row_is(table, i, sim.simulate(s))


def arrive(marker, scenario):
    """Unpickling a :func:`killer` in a pool worker: the worker kills itself (SIGKILL, as the OOM killer
    would) every time, or (with a `marker` file) the first time only."""
    if marker is None or not os.path.exists(marker):
        if marker is not None:
            open(marker, "x").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return scenario


class KillsItsWorker(sim.Scenario):
    def __reduce__(self):  # what a pool worker receives: the plain scenario, behind arrive()
        plain = sim.Scenario(**{f.name: getattr(self, f.name) for f in dataclasses.fields(self)})
        return arrive, (self.marker, plain)


def killer(scenario, marker=None):
    """`scenario` (same parameters, same key) that kills the worker it is sent to: once (`marker`) or always."""
    k = KillsItsWorker(**{f.name: getattr(scenario, f.name) for f in dataclasses.fields(scenario)})
    object.__setattr__(k, "marker", None if marker is None else str(marker))  # not a field: not a column
    return k


def test_a_killed_worker_costs_only_its_unfinished_chunks(tmp_path):
    # The second of three one-scenario chunks kills its worker the first time it arrives (no timing to
    # race on a loaded machine): the pool breaks, a new one re-runs what was not finished, nothing twice.
    out, points = tmp_path / "results.csv", grid()
    table = sim.sweep([points[0], killer(points[1], tmp_path / "killed"), points[2]], workers=2,
                      progress=False, chunk_size=1, out=out)
    assert (tmp_path / "killed").exists()  # a worker did die
    lines = out.read_text().splitlines()
    assert len(table) == 3 and len(lines) == 4 and len({line.split(",")[0] for line in lines[1:]}) == 3
    assert table == run(points, chunk_size=1)[0]  # keys and results as an undisturbed sweep


def test_a_chunk_that_kills_every_worker_stops_the_sweep(tmp_path):
    out, points = tmp_path / "results.csv", grid()[:2]
    with pytest.raises(concurrent.futures.process.BrokenProcessPool,
                       match=f"died each of the {sweep_module.WORKER_LOSSES} times it ran a chunk of 1 scenarios"):
        sim.sweep([points[0], killer(points[1])], workers=1, progress=False, chunk_size=1, out=out)
    assert len(out.read_text().splitlines()) == 2  # the first scenario's row stays


def test_a_given_executor_is_not_replaced_and_the_error_says_what_was_lost(tmp_path):
    import multiprocessing

    points = grid()[:2]
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        with pytest.raises(concurrent.futures.process.BrokenProcessPool,
                           match=r"\(2 scenarios were not finished; the sweep restarts only its own pool"):
            sim.sweep([killer(points[0]), points[1]], executor=pool, progress=False, chunk_size=1)


def wait_for_rows(path, rows, timeout):
    """Poll the results file until it holds `rows` rows; return how many it holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        held = len(path.read_text().splitlines()) - 1 if path.exists() else 0
        if held >= rows:
            return held
        time.sleep(0.02)
    raise AssertionError(f"{path} did not reach {rows} rows in {timeout} s")


@pytest.mark.slow
def test_a_lost_dask_worker_costs_only_its_unfinished_chunks(tmp_path):
    from distributed import Client, LocalCluster

    # Eight scenarios of ~0.4 s each, one per chunk, on two worker processes; one is killed
    # (SIGKILL, as the OOM killer would) once the first row is in: Dask re-runs its chunk elsewhere.
    points = [dataclasses.replace(BASE, n_flows=20, duration=100.0, seed=i) for i in range(8)]
    out = tmp_path / "results.csv"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster, timeout=60) as client:
        victim = min(client.run(os.getpid).values())
        done = {}
        worker = threading.Thread(target=lambda: done.update(table=sim.sweep(
            points, executor=client.get_executor(), progress=False, chunk_size=1, out=out)))
        worker.start()
        held = wait_for_rows(out, 1, timeout=60)
        os.kill(victim, signal.SIGKILL)
        worker.join(timeout=120)
        assert not worker.is_alive()
    assert held < 8  # the worker died mid-sweep
    table = done["table"]
    lines = out.read_text().splitlines()
    assert len(table) == 8 and len(lines) == 9 and len({line.split(",")[0] for line in lines[1:]}) == 8
    for i, s in enumerate(points):
        assert_row_is(table, i, sim.simulate(s))


# ----------------------------------------------------------------------------- tcpmodels sweep

GRID = """\
n_flows = 5
bandwidth = "1mbit"
rtt = "50ms"
duration = "8s"
warmup = "2s"
start_spread = "1s"

[queue]
type = "RED"
max_th = 20

[sweep]
n_flows = [5, 6]
"queue.max_p" = [0.02, 0.5]
seeds = [1, 2]
"""


def read_csv(text):
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def test_load_grid_sweeps_the_cartesian_product(tmp_path):
    path = tmp_path / "grid.toml"
    path.write_text(GRID)
    scenarios, seeds = sweep_cli.load_grid(path)
    assert seeds == [1, 2]
    assert [(s.n_flows, s.queue.max_p) for s in scenarios] == [(5, 0.02), (5, 0.5), (6, 0.02), (6, 0.5)]
    assert all(s.queue.max_th == 20 and s.bandwidth == 1e6 for s in scenarios)
    # TOML's own dotted keys, a queue given by name, and its kind swept.
    path.write_text(GRID.replace('"queue.max_p" = [0.02, 0.5]', 'queue.type = ["RED", "CHOKe"]\nqueue.max_p = [0.1]')
                    .replace('[queue]\ntype = "RED"\nmax_th = 20', 'queue = "red"').replace("seeds = [1, 2]", ""))
    scenarios, seeds = sweep_cli.load_grid(path)
    assert seeds is None
    assert [(s.n_flows, type(s.queue).__name__, s.queue.max_p) for s in scenarios] == [
        (5, "RED", 0.1), (5, "CHOKe", 0.1), (6, "RED", 0.1), (6, "CHOKe", 0.1)]


def test_sweep_command_prints_the_table(tmp_path, capsys):
    path = tmp_path / "grid.toml"
    path.write_text(GRID)
    assert main(["sweep", str(path), "--workers", "2"]) == 0
    header, rows = read_csv(capsys.readouterr().out)
    column = {name: [row[j] for row in rows] for j, name in enumerate(header)}
    assert len(rows) == 8 and header[0] == "key" and "loss_rate" in header
    assert column["n_flows"] == ["5"] * 4 + ["6"] * 4
    assert column["queue.max_p"] == ["0.02", "0.02", "0.5", "0.5"] * 2
    assert column["seed"] == ["1", "2"] * 4
    assert all(0 < float(u) <= 1 for u in column["utilization"])


def test_sweep_command_out_file_and_rerun(tmp_path, capsys):
    path, out = tmp_path / "grid.toml", tmp_path / "results.csv"
    path.write_text(GRID)
    assert main(["sweep", str(path), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"8 scenarios (rows) in {out}\n"
    text = out.read_text()
    assert main(["sweep", str(path), "--out", str(out)]) == 0
    assert out.read_text() == text and len(text.splitlines()) == 9


def test_sweep_command_on_a_dask_scheduler(tmp_path, capsys):
    from distributed import LocalCluster

    path = tmp_path / "grid.toml"
    path.write_text(GRID)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        assert main(["sweep", str(path), "--scheduler", cluster.scheduler_address]) == 0
    assert len(read_csv(capsys.readouterr().out)[1]) == 8


@pytest.mark.parametrize("change,message", [
    (("n_flows = [5, 6]", "n_flows = [5, 0]"), "grid.toml [sweep] n_flows = 0, queue.max_p = 0.02: n_flows must be"),
    (("n_flows = [5, 6]", "n_flow = [5, 6]"), "unknown field 'n_flow'"),
    (("n_flows = [5, 6]", "n_flows = 5"), "grid.toml: [sweep] n_flows: expected a non-empty list"),
    (("n_flows = [5, 6]", "n_flows = []"), "grid.toml: [sweep] n_flows: expected a non-empty list"),
    (("seeds = [1, 2]", "seeds = [-1]"), "grid.toml: [sweep] seeds: expected a list of whole numbers"),
    (("seeds = [1, 2]", "seeds = [1, 2]\nseed = [3]"), "grid.toml: [sweep] seeds: sweep seed or give seeds"),
    (('"queue.max_p"', '"link.max_p"'), "grid.toml: [sweep] link.max_p: only queue and sender fields are dotted"),
    (("[sweep]", "[sweeps]"), "grid.toml: expected a [sweep] table"),
    (("[sweep]", "[sweep"), "grid.toml: not valid TOML"),
])
def test_sweep_command_errors_name_the_file_and_field(tmp_path, capsys, change, message):
    path = tmp_path / "grid.toml"
    path.write_text(GRID.replace(*change))
    assert main(["sweep", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcpmodels sweep: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize("options,message", [
    (["--workers", "0"], "--workers: expected a whole number"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "not allowed with argument --workers"),
    (["--scheduler", "no-port"], "--scheduler: cannot connect to no-port"),
    (["--scheduler", ""], "--scheduler: expected a scheduler address"),        # ran here, not on a cluster
    (["--workers", "99999999999999999999"], "--workers must be a whole number from 1 to"),   # accepted
])
def test_sweep_command_option_errors(tmp_path, capsys, options, message):
    path = tmp_path / "grid.toml"
    path.write_text(GRID)
    assert main(["sweep", str(path), *options]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_sweep_command_missing_file_and_foreign_out(tmp_path, capsys):
    assert main(["sweep", str(tmp_path / "none.toml")]) == 2
    assert "none.toml: cannot read the sweep file" in capsys.readouterr().err
    path, out = tmp_path / "grid.toml", tmp_path / "results.csv"
    path.write_text(GRID)
    out.write_text("a,b\n")
    assert main(["sweep", str(path), "--out", str(out)]) == 2
    assert "results.csv: its columns are not this sweep's" in capsys.readouterr().err


# Eight scenarios of ~0.4 s each, all of different shapes (RTTs, which set the step; flow counts
# alone would share a batch), so each is a chunk of its own, the chunks finish one after another,
# and a result does not depend on what else ran: an interrupted and resumed sweep must give
# exactly the rows of one uninterrupted run, each once.
RTTS = [0.040, 0.045, 0.050, 0.055, 0.060, 0.065, 0.070, 0.075]
SLOW_GRID = GRID.replace("n_flows = [5, 6]", f"rtt = {RTTS}").replace("n_flows = 5", "n_flows = 13").replace(
    '"queue.max_p" = [0.02, 0.5]', "").replace("seeds = [1, 2]", "").replace('duration = "8s"', 'duration = "100s"')


def start_sweep(grid, out, file_limit=None):
    """``tcpmodels sweep GRID --out OUT --workers 1`` in its own process group (files capped at `file_limit`).

    The sweep gets Ctrl-C's default disposition whatever the test runner's is: a
    shell starts a background job (``pytest ... &``) with SIGINT ignored, its
    children inherit that, and Python then keeps ignoring it, so the sweep
    would never see the interruption the tests send (found when the suite ran
    in the background: the SIGINT case finished all rows, status 0).
    """
    import resource
    import subprocess
    import sys

    def prepare():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if file_limit:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.Popen([sys.executable, "-m", "tcpmodels", "sweep", str(grid), "--out", str(out),
                             "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=prepare)


def assert_whole_and_right(grid, out):
    header, rows = read_csv(out.read_text())
    assert out.read_text().endswith("\n") and all(len(row) == len(header) for row in rows)
    assert len(rows) == 8 and len({row[0] for row in rows}) == 8
    by_rtt = {float(row[header.index("rtt")]): row for row in rows}
    for scenario in sweep_cli.load_grid(grid)[0]:
        result = sim.simulate(scenario)
        for name in RESULTS:
            assert float(by_rtt[scenario.rtt][header.index(name)]) == getattr(result, name), name


def pool_worker(pid):
    """The pid of the (one) worker process of the sweep running as process `pid`."""
    import psutil  # comes with distributed

    workers = [p.pid for p in psutil.Process(pid).children()
               if "spawn_main" in " ".join(p.cmdline()) and "resource_tracker" not in " ".join(p.cmdline())]
    assert len(workers) == 1, workers
    return workers[0]


@pytest.mark.slow
def test_a_killed_worker_does_not_stop_the_sweep_command(tmp_path):
    grid, out = tmp_path / "grid.toml", tmp_path / "results.csv"
    grid.write_text(SLOW_GRID)
    sweep = start_sweep(grid, out)
    try:
        held = wait_for_rows(out, 2, timeout=60)
        os.kill(pool_worker(sweep.pid), signal.SIGKILL)  # as the OOM killer would
        _, err = sweep.communicate(timeout=120)
    finally:
        if sweep.poll() is None:
            os.killpg(sweep.pid, signal.SIGKILL)
    assert held < 8 and sweep.returncode == 0 and err == ""  # a new pool ran the rest
    assert_whole_and_right(grid, out)


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["SIGKILL", "SIGINT"])
def test_a_killed_or_interrupted_sweep_finishes_when_run_again(tmp_path, fault):
    grid, out = tmp_path / "grid.toml", tmp_path / "results.csv"
    grid.write_text(SLOW_GRID)
    sweep = start_sweep(grid, out)
    try:
        held = wait_for_rows(out, 2, timeout=60)
        # The whole group, as a crash of the machine or Ctrl-C at a terminal.
        os.killpg(sweep.pid, getattr(signal, fault))
        _, err = sweep.communicate(timeout=60)
    finally:
        if sweep.poll() is None:
            os.killpg(sweep.pid, signal.SIGKILL)
    assert held < 8
    again = "the finished rows are in {}: run the same command again to finish the rest\n".format(out)
    if fault == "SIGINT":
        assert sweep.returncode == 130 and err == f"tcpmodels sweep: interrupted; {again}"
    else:
        assert sweep.returncode == -signal.SIGKILL
        with open(out, "a") as handle:  # what a crash in mid-write leaves: a torn last line
            handle.write("3f2a,10,1000000.0,0.05,57")
    before = len(read_csv(out.read_text())[1])
    assert 0 < before < 8
    assert start_sweep(grid, out).wait(timeout=120) == 0
    assert_whole_and_right(grid, out)


@pytest.mark.slow
def test_a_sweep_that_fills_the_disk_keeps_whole_rows_and_finishes_when_run_again(tmp_path):
    # A file-size limit (RLIMIT_FSIZE; Python ignores SIGXFSZ, so writes past it fail with EFBIG)
    # stands in for a full disk: the header and two or three rows fit, the next row is cut mid-write.
    grid, out = tmp_path / "grid.toml", tmp_path / "results.csv"
    grid.write_text(SLOW_GRID)
    full = start_sweep(grid, out, file_limit=2000)
    _, err = full.communicate(timeout=120)
    assert full.returncode == 1 and err.count("\n") == 1
    assert "results.csv: cannot write the results (File too large); the rows before are kept" in err
    text = out.read_text()
    assert text.endswith("\n") and 0 < len(read_csv(text)[1]) < 8 and len(text) <= 2000
    assert start_sweep(grid, out).wait(timeout=120) == 0
    assert_whole_and_right(grid, out)


def test_the_grid_in_docs_sweep_md_loads(tmp_path):
    import pathlib
    import re

    text = (pathlib.Path(__file__).parents[1] / "docs" / "sweep.md").read_text()
    path = tmp_path / "grid.toml"
    path.write_text(re.search(r"```toml\n(.*?)```", text, re.DOTALL).group(1))
    scenarios, seeds = sweep_cli.load_grid(path)
    assert [(s.n_flows, s.queue.max_p) for s in scenarios] == [(n, p) for n in (50, 100, 200) for p in (0.02, 0.1)]
    assert seeds == [1, 2, 3]


def test_keys_name_the_scenario_and_seed_the_same_way_in_every_process():
    import subprocess
    import sys

    params = sweep_module._parameters(BASE)
    key = sweep_module._key(params)
    assert sweep_module._key(dict(reversed(params.items()))) == key
    assert sweep_module._key(sweep_module._parameters(dataclasses.replace(BASE, seed=1))) != key
    assert sweep_module._key(sweep_module._parameters(dataclasses.replace(BASE, rtt=0.050000001))) != key
    code = ("import importlib; from tcpmodels import sim; m = importlib.import_module('tcpmodels.sim.sweep'); "
            "print(m._key(m._parameters(sim.Scenario(n_flows=5, bandwidth=1e6, rtt=0.05, duration=8.0, "
            "warmup=2.0, start_spread=1.0))))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert other.stdout.strip() == key
