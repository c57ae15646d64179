"""Issue 12's step goal on the 10 ms references: halving the step moves loss and queue by under 5 %.

Run from the repository root (the package importable)::

    python validation/step_halving.py [--seeds 4] [--duration 200]

Every row of ``ns3_red_10ms`` (wait=0) and ``ns3_more_10ms``, set up as
``tests/ns3_references.py`` sets them up (the references' conventions and
classic recovery), runs at the step the engine takes for it and at half of it,
seeds 1 .. ``--seeds`` as one batch each.  Prints per row the step and the
change of the seeds' mean loss and queue from the step to its half, with the
standard error of the seeds' own changes (over those that lost something).
The whole set at the defaults is 256 runs of 200 s (about 10 minutes on one
core), too long for the test suite: ``tests/test_sim_reference_10ms.py``
quotes its figures.
"""

import argparse
import dataclasses
import pathlib
import sys

import numpy as np

from tcpmodels import sim

# The reference rows' scenarios are the tests' (one set-up, written once).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
from ns3_references import ROWS  # noqa: E402


def halving(keys, seeds, duration):
    """Per row: its step [s] and {result: (relative change at half the step, its standard error)}."""
    base = [dataclasses.replace(ROWS[k][0], seed=seed, duration=duration) for k in keys for seed in seeds]
    coarse = sim.simulate(base)
    fine = sim.simulate([dataclasses.replace(s, time_step=r.time_step / 2) for s, r in zip(base, coarse, strict=True)])
    n, out = len(seeds), {}
    for i, key in enumerate(keys):
        runs = coarse[i * n:(i + 1) * n], fine[i * n:(i + 1) * n]
        change = {}
        for name in ("loss_rate", "queue"):
            a, b = (np.array([getattr(r, name) for r in rr]) for rr in runs)
            if not a.mean() > 0.0:  # (a short run that lost nothing: no change to tell)
                change[name] = (np.nan, np.nan)
                continue
            per_seed = b[a > 0.0] / a[a > 0.0] - 1
            spread = per_seed.std(ddof=1) / np.sqrt(per_seed.size) if per_seed.size > 1 else np.nan
            change[name] = (b.mean() / a.mean() - 1, spread)
        out[key] = runs[0][0].time_step, change
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=4, help="seeds 1 .. N (default 4)")
    ap.add_argument("--duration", type=float, default=200.0, help="seconds a run (default 200, the references')")
    a = ap.parse_args(argv)
    if a.seeds < 1 or not 20.0 < a.duration < 1e6:
        ap.error("--seeds must be at least 1 and --duration between 20 s (the warm-up) and 1e6 s")
    print(f"{'row':36s} {'step':>8s}  loss change (SE)   queue change (SE)")
    for key, (step, change) in halving(sorted(ROWS), range(1, a.seeds + 1), a.duration).items():
        (dl, sl), (dq, sq) = change["loss_rate"], change["queue"]
        print(f"{key:36s} {step * 1e3:6.2f} ms  {100 * dl:+6.1f} % ({100 * sl:.1f})   "
              f"{100 * dq:+6.1f} % ({100 * sq:.1f})")


if __name__ == "__main__":
    sys.exit(main())
