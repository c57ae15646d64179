"""Speed of the vectorized equilibrium solves against a per-point brentq loop.

Run: python benchmarks/bench_solve.py [n_points]
Prints, from one run: wall time for N random points with RED's P2 and P3
(plain, gentle, ECN) and drop-tail's P2, P3 and P3-poisson, the time of a
scipy.optimize.brentq loop on a subset scaled to N, their ratio, and the
largest relative difference between the two solutions.
Targets (issues 2 and 16): 1e6 points in under 2 s (RED P2/P3) and 3 s (the
issue 16 models), at least 50x the brentq loop, agreement better than 1e-9.
"""

import functools
import sys
import time
import warnings

import numpy as np
from scipy.optimize import brentq

from tcpmodels import TCPModelsWarning, droptail, red, units

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000
SUBSET = 2000
CAP, RTT = units.capacity(10e6, 576), 0.05


def red_points(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(1, 1000, n), rng.uniform(50, 5000, n), rng.uniform(1e-3, 0.2, n)


def droptail_points(n, seed=1):
    rng = np.random.default_rng(seed)
    return rng.uniform(1, 1000, n), rng.uniform(50, 5000, n)


def brentq_p2(n, max_th, max_p):
    return np.array([brentq(red._p2_residual, 1e-15, 1.0, args=(a, b / (2 * c), CAP * RTT, RTT, 1.0),
                            xtol=1e-300, rtol=1e-14)
                     for a, b, c in zip(n, max_th, max_p, strict=True)])


def brentq_p3(n, max_th, max_p, gentle=False, ecn=False):
    residual = functools.partial(red._p3_residual, gentle=gentle, ecn=ecn)
    out = []
    for a, b, c in zip(n, max_th, max_p, strict=True):
        q_cap = b * (1 + (0.5 - c) / (1 - c)) if gentle and 2 * c < 1 else b
        l_cap = 1.0 if gentle else min(2 * c, 1.0)
        args = (a, 5.0, b, c, RTT, CAP, 1.0, 3.0, q_cap, l_cap)
        sat = float(residual(l_cap, *args, 0.0) > 0 and l_cap < 1)
        out.append(brentq(residual, 1e-15, 1.0 if sat else l_cap, args=args + (sat,), xtol=1e-300, rtol=1e-14))
    return np.array(out)


def brentq_droptail(n, buffer, model):
    # P3 solves its balance in the loss-event rate with the recovery cycle's windows and multiplies by its
    # trains' losses per event; P3-poisson solves in the loss rate at k = 1.27 with Eq. 5.2's windows.
    k = droptail.GROWTH / -np.expm1(-droptail.GROWTH) if model == "P3-poisson" else 1.0
    residual = functools.partial(droptail._residual, cycle=model == "P3")
    out = []
    for a, b in zip(n, buffer, strict=True):
        if model.startswith("P3"):
            q = float(droptail._p3_queue(a, b, CAP * RTT)[0])
            args = (a, q + CAP * RTT, RTT, 1.0, 3.0, k, 1.0, q / CAP)
        else:
            args = (a, b + CAP * RTT, RTT, 1.0, 13.0, 1.0, 1.0, 0.0)
        upper = 1.0 if model == "P3" else min(k * 0.87**2, 1.0)
        x = brentq(residual, 1e-15, upper, args=args, xtol=1e-300, rtol=1e-14)
        if model == "P3":
            window = droptail._balance(x, *args, cycle=True)[1]
            x = min(x * float(droptail._train_losses(a, window, 1.0 / a)), 1.0)
        out.append(x)
    return np.array(out)


def cases():
    n, max_th, max_p = red_points(N)
    n_dt, buffer = droptail_points(N)

    def red_case(model, **kw):
        def run(m):
            e = red.equilibrium(n[:m], max_th[:m], max_p[:m], model=model, rtt=RTT, capacity=CAP, **kw)
            return e.loss_rate + e.mark_rate
        loop = brentq_p2 if model == "P2" else functools.partial(brentq_p3, **kw)
        return run, lambda: loop(n[:SUBSET], max_th[:SUBSET], max_p[:SUBSET])

    def droptail_case(model):
        def run(m):
            return droptail.equilibrium(n_dt[:m], buffer[:m], rtt=RTT, capacity=CAP, model=model).loss_rate
        return run, lambda: brentq_droptail(n_dt[:SUBSET], buffer[:SUBSET], model)

    return {"RED P2": red_case("P2"), "RED P3": red_case("P3"), "RED P3 gentle": red_case("P3", gentle=True),
            "RED P3 ECN": red_case("P3", ecn=True), "drop-tail P2": droptail_case("P2"),
            "drop-tail P3": droptail_case("P3"), "drop-tail P3-poisson": droptail_case("P3-poisson")}


def main():
    warnings.simplefilter("ignore", TCPModelsWarning)
    print(f"{N:,} points; brentq loop on {SUBSET:,} of them, time scaled to {N:,}")
    for name, (run, loop) in cases().items():
        run(1000)  # warm-up
        t0 = time.perf_counter()
        vec = run(N)
        t_vec = time.perf_counter() - t0
        t0 = time.perf_counter()
        ref = loop()
        t_loop = (time.perf_counter() - t0) * N / SUBSET
        diff = np.max(np.abs(vec[:SUBSET] / ref - 1))
        print(f"{name:20s}: vectorized {t_vec:6.2f} s | brentq loop {t_loop:7.1f} s (scaled) | "
              f"speed-up {t_loop / t_vec:6.1f}x | max rel. difference {diff:.1e}", flush=True)


if __name__ == "__main__":
    main()
