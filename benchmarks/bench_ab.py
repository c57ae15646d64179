"""Interleaved A/B timing of tcpmodels.sim against other checkouts (issue 12: "no slower than e08f405").

Usage::

    python benchmarks/bench_ab.py /path/to/other/checkout [...] [--rounds 5] [--cases standard,64,256]

Each round runs every case once in each checkout (this one first, then the
others, the order alternating from round to round), each run in a fresh
process that imports tcpmodels from its checkout, so that the machine's
shared, drifting load falls on every checkout alike.  Prints per case and
checkout the minimum and median wall and CPU times [s] and the ratios of
this checkout's to each other's.  The cases are bench_sim.py's: the
standard scenario (1000 Tahoe flows, RED, 500 s) and batches of 64 and 256
of its scenarios (30 s, seeds 0 ..).

Before trying to make the step faster, read what was tried and measured
(docs/simulator_record.md, its section "Speed": a compiled ACK ring was measured twice and not kept).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Run inside the checkout's process: the same scenarios in every version's API.
_CASE = """
import json, time
from tcpmodels import sim
def standard(n_flows=1000, duration=500.0, **kw):
    return sim.Scenario(n_flows=n_flows, bandwidth=10e6, rtt=0.1, packet_size=576,
                        queue=sim.RED(min_th=5, max_th=217, max_p=0.02), sender=sim.Tahoe(),
                        duration=duration, warmup=20.0, **kw)
case = {case!r}
work = standard() if case == "standard" else [standard(duration=30.0, seed=k) for k in range(int(case))]
wall, cpu = time.perf_counter(), time.process_time()
out = sim.simulate(work)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
first = out if case == "standard" else out[0]
print(json.dumps(dict(wall=wall, cpu=cpu, loss=first.loss_rate)))
"""


def run_in(checkout, code, tool="bench_ab.py"):
    """Run ``code`` in a fresh process importing tcpmodels from ``checkout``: its last line of output, as JSON.

    A failure there (say, a checkout older than an API ``code`` uses) is a
    one-line message from ``tool`` and exit status 2.
    """
    env = dict(os.environ, PYTHONPATH=checkout, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    # Run from the checkout: ``python -c`` puts its working directory ahead of PYTHONPATH, so a child
    # started elsewhere (say, in another checkout) would import that directory's tcpmodels instead.
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=checkout, capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"{tool}: the run failed in {checkout} (an older API?): {last}", file=sys.stderr)
        raise SystemExit(2)
    return json.loads(done.stdout.splitlines()[-1])


def run_case(checkout, case):
    """One run of ``case`` in ``checkout``: dict of wall, cpu [s]."""
    return run_in(checkout, _CASE.format(case=case))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("others", nargs="+", help="paths of the checkouts to compare with")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cases", default="standard,64,256")
    args = ap.parse_args(argv)
    checkouts = [HERE, *(os.path.abspath(p) for p in args.others)]
    for case in args.cases.split(","):
        times = {c: [] for c in checkouts}
        for r in range(args.rounds):
            for c in (checkouts if r % 2 == 0 else checkouts[::-1]):
                times[c].append(run_case(c, case))
        print(f"case {case} ({args.rounds} interleaved rounds):")
        summary = {}
        for c in checkouts:
            wall = [t["wall"] for t in times[c]]
            cpu = [t["cpu"] for t in times[c]]
            summary[c] = min(wall), statistics.median(wall), min(cpu), statistics.median(cpu)
            print(f"  {c}: wall min {summary[c][0]:.2f} median {summary[c][1]:.2f}, "
                  f"CPU min {summary[c][2]:.2f} median {summary[c][3]:.2f}")
        for c in checkouts[1:]:
            ratio = [a / b for a, b in zip(summary[HERE], summary[c], strict=True)]
            print(f"  this / {os.path.basename(c)}: wall min {ratio[0]:.3f} median {ratio[1]:.3f}, "
                  f"CPU min {ratio[2]:.3f} median {ratio[3]:.3f}")


if __name__ == "__main__":
    main()
