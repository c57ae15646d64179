"""Speed of tcpmodels.sim.sweep: run ``python benchmarks/bench_sweep.py``.

Prints, for 64 scenarios (8 RED max_p values x 8 seeds, 100 flows, 100 s each
on the thesis' standard link; and the same with 8 flow counts, 8 shapes):
* a loop of ``sim.simulate(s)``, one scenario at a time (no batching; 8 of
  the 64 timed, times 8);
* ``sim.simulate(list)``: one process, batched by shape;
* ``sim.sweep`` on 1 and on 2 local worker processes (the chunks each batch).
The variants run interleaved, ``--repeat`` rounds (default 3), and each prints
its best and median wall time: the machine is shared, so a lone timing can be
far off, and the load average is printed beside them (workers only add speed
where there are idle cores for them).
"""

import argparse
import dataclasses
import os

from interleaved import interleaved, report

from tcpmodels import sim


def grid(shapes):
    base = sim.Scenario(n_flows=100, bandwidth=10e6, rtt=0.1, duration=100.0, warmup=20.0)
    points = [dataclasses.replace(base, queue=sim.RED(max_p=p), seed=seed)
              for p in (0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.5) for seed in range(8)]
    if shapes:  # eight flow counts: eight batches of eight
        points = [dataclasses.replace(s, n_flows=60 + 10 * (i % 8)) for i, s in enumerate(points)]
    return points


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    for shapes in (False, True):
        points = grid(shapes)
        # name: (what to run, the factor to 64 scenarios)
        variants = {
            "simulate, one at a time": (lambda: [sim.simulate(s) for s in points[::8]], 8),  # noqa: B023
            "simulate(list), batched": (lambda: sim.simulate(points), 1),  # noqa: B023
            "sweep, 1 worker": (lambda: sim.sweep(points, workers=1, progress=False), 1),  # noqa: B023
            "sweep, 2 workers": (lambda: sim.sweep(points, workers=2, progress=False), 1),  # noqa: B023
        }
        times = interleaved(variants, args.repeat)
        kind = "8 shapes of 8, 60-130 flows" if shapes else "one shape, 100 flows"
        print(f"64 scenarios ({kind}, 100 s), best / median of {args.repeat} interleaved rounds:")
        report(times, 26)
        speedup = min(times["simulate(list), batched"]) / min(times["sweep, 2 workers"])
        print(f"  sweep on 2 workers vs one batched process: {speedup:.2f}x; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
