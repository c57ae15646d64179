"""Packets per second through fpq.BitVectorCounter.update, against a per-packet Python loop of Fig. 6.1.

Run: python benchmarks/bench_bitvector.py
Target (issue #2): at least 10 million packets per second.
"""

import time

import numpy as np

from tcpmodels import fpq

PACKETS, BATCH, BITS, T_CLEAR = 10_000_000, 1_000_000, 5000, 4.0


def loop(ids, times, bits, t_clear, rng):
    """Fig. 6.1 one packet at a time, for the ratio."""
    v = np.zeros(bits, dtype=bool)
    t_last, carry, hashed = 0.0, 0.0, fpq._hash(ids, bits)
    for h, t in zip(hashed.tolist(), times.tolist(), strict=True):
        v[h] = True
        owed = carry + (t - t_last) * bits / t_clear
        k = int(owed)
        carry, t_last = owed - k, t
        if k:
            v[rng.integers(0, bits, k)] = False
    return v


def main():
    rng = np.random.default_rng(1)
    ids = rng.integers(0, 1000, PACKETS)
    times = np.linspace(0.0, 100.0, PACKETS)  # 1000 flows, 100 kpkt/s for 100 s
    counter = fpq.BitVectorCounter(BITS, T_CLEAR, rng=0)
    t0 = time.perf_counter()
    for start in range(0, PACKETS, BATCH):
        counter.update(ids[start:start + BATCH], times[start:start + BATCH])
    t_vec = time.perf_counter() - t0
    sub = 200_000
    t0 = time.perf_counter()
    loop(ids[:sub], times[:sub], BITS, T_CLEAR, np.random.default_rng(0))
    t_loop = (time.perf_counter() - t0) * PACKETS / sub
    print(f"vectorized: {PACKETS / t_vec / 1e6:5.1f} M packets/s ({t_vec:.2f} s for {PACKETS:,} "
          f"in batches of {BATCH:,}); estimate {counter.estimate:.0f} of 1000 flows")
    print(f"per-packet loop: {PACKETS / t_loop / 1e6:5.2f} M packets/s (scaled from {sub:,}); "
          f"ratio {t_loop / t_vec:.0f}x")


if __name__ == "__main__":
    main()
