"""Speed of the vectorized RED equilibrium solves against a per-point brentq loop.

Run: python benchmarks/bench_solve.py [n_points]
Prints, from one run: wall time for N random (n_flows, max_th, max_p) points with
P2 and P3, the time of a scipy.optimize.brentq loop on a subset scaled to N,
their ratio, and the largest relative difference between the two solutions.
Targets (issue #2): 1e6 points in under 2 s, at least 50x the brentq loop,
agreement better than 1e-9.
"""

import sys
import time
import warnings

import numpy as np
from scipy.optimize import brentq

from tcpmodels import TCPModelsWarning, red, units

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000
SUBSET = 2000
CAP, RTT = units.capacity(10e6, 576), 0.05


def points(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(1, 1000, n), rng.uniform(50, 5000, n), rng.uniform(1e-3, 0.2, n)


def brentq_p2(n, max_th, max_p):
    return np.array([brentq(red._p2_residual, 1e-15, 1.0, args=(a, b / (2 * c), CAP * RTT, RTT, 1.0),
                            xtol=1e-300, rtol=1e-14)
                     for a, b, c in zip(n, max_th, max_p, strict=True)])


def brentq_p3(n, max_th, max_p):
    out = []
    for a, b, c in zip(n, max_th, max_p, strict=True):
        args = (a, 5.0, b, c, RTT, CAP, 1.0, 3.0)
        sat = red._p3_residual(min(2 * c, 1.0), *args, False) > 0 and 2 * c < 1
        out.append(brentq(red._p3_residual, 1e-15, 1.0, args=args + (sat,), xtol=1e-300, rtol=1e-14))
    return np.array(out)


def main():
    warnings.simplefilter("ignore", TCPModelsWarning)
    n, max_th, max_p = points(N)
    print(f"{N:,} points; brentq loop on {SUBSET:,} of them, time scaled to {N:,}")
    for model, loop in (("P2", brentq_p2), ("P3", brentq_p3)):
        red.equilibrium(n[:1000], max_th[:1000], max_p[:1000], model=model, rtt=RTT, capacity=CAP)  # warm-up
        t0 = time.perf_counter()
        e = red.equilibrium(n, max_th, max_p, model=model, rtt=RTT, capacity=CAP)
        t_vec = time.perf_counter() - t0
        t0 = time.perf_counter()
        ref = loop(n[:SUBSET], max_th[:SUBSET], max_p[:SUBSET])
        t_loop = (time.perf_counter() - t0) * N / SUBSET
        diff = np.max(np.abs(e.loss_rate[:SUBSET] / ref - 1))
        print(f"{model}: vectorized {t_vec:6.2f} s | brentq loop {t_loop:7.1f} s (scaled) | "
              f"speed-up {t_loop / t_vec:6.1f}x | max rel. difference {diff:.1e}")


if __name__ == "__main__":
    main()
