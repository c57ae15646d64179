"""Interleaved timing rounds for the benchmarks: each variant once a round, so a shared machine's drift hits all."""

import statistics
import time


def interleaved(variants, repeat):
    """Wall times of each of ``variants`` ({name: (run, factor)}): {name: [factor * seconds, one per round]}."""
    times = {name: [] for name in variants}
    for _ in range(repeat):
        for name, (run, factor) in variants.items():
            start = time.perf_counter()
            run()
            times[name].append(factor * (time.perf_counter() - start))
    return times


def report(times, width):
    """Print each variant's best and median time, its name padded to ``width``."""
    for name, t in times.items():
        print(f"  {name:<{width}} {min(t):7.2f} s / {statistics.median(t):7.2f} s")
