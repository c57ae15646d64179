"""What batching gains across configurations that differ in their step: run ``python benchmarks/bench_batching.py``.

A validation study (the replica sets of ``tests/test_sim_replica_grid.py``)
simulates many configurations of a few flows, each a pair of seeds: per step,
a batch of a few flows costs numpy's fixed price per call, so the seeds of one
configuration share a step's cost, and configurations whose round trips
differ, so their steps (``Scenario.step``), share a batch where that costs
less than apart, each at its own step (``engine.batches``).  Prints, for 12
drop-tail configurations (2-60 flows, 10-100 Mbit/s, 30-200 ms) at seeds 1-2,
``--duration`` s each:

* at each configuration's own step: configuration by configuration, and all in
  one ``simulate`` call (batched as the engine plans it);
* at one step for all (the smallest of theirs): configuration
  by configuration, and all in one call, one batch: the gain of one batch at
  equal steps, where each configuration takes the longest's steps.

Interleaved rounds (``--repeat``, default 2), best and median wall time.
"""

import argparse
import dataclasses

from interleaved import interleaved, report

from tcpmodels import sim

# (flows, bandwidth [bit/s], mean RTT [s], buffer [BDP]): few flows, drop-tail, as the replica sets hold them.
CONFIGURATIONS = [(2, 10e6, 0.08, 0.2), (5, 20e6, 0.1, 0.5), (8, 10e6, 0.04, 2.0), (10, 20e6, 0.15, 0.5),
                  (15, 10e6, 0.2, 1.0), (20, 50e6, 0.05, 0.25), (20, 20e6, 0.12, 1.0), (30, 30e6, 0.2, 0.5),
                  (40, 50e6, 0.1, 0.25), (50, 100e6, 0.05, 0.1), (60, 20e6, 0.03, 1.0), (60, 100e6, 0.2, 0.25)]
SEEDS = (1, 2)


def configurations(duration, time_step=None):
    """Each configuration's scenarios (one per seed), as lists."""
    out = []
    for n, bw, rtt, bdps in CONFIGURATIONS:
        buffer = max(int(bdps * bw * rtt / (8 * 1500)), 2)
        base = sim.Scenario(n_flows=n, bandwidth=bw, rtt=rtt, rtt_spread=0.1, packet_size=1500,
                            queue=sim.DropTail(buffer=buffer), sender=sim.NewReno(sack=True),
                            duration=duration, warmup=duration / 4, start_spread=2.0, time_step=time_step)
        out.append([dataclasses.replace(base, seed=seed) for seed in SEEDS])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--duration", type=float, default=20.0)
    args = ap.parse_args(argv)
    own = configurations(args.duration)
    common = configurations(args.duration, time_step=min(s.step for c in own for s in c))
    flat_own, flat_common = ([s for c in runs for s in c] for runs in (own, common))
    batches_own, batches_common = (len(sim.engine.batches(flat, range(len(flat)))) for flat in (flat_own, flat_common))
    mine, mine_batched = "own steps, one by one", f"own steps, one call ({batches_own} batches)"
    one, one_batched = "one step, one by one", f"one step, one call ({batches_common} batch)"
    times = interleaved({mine: (lambda: [sim.simulate(c) for c in own], 1),
                         mine_batched: (lambda: sim.simulate(flat_own), 1),
                         one: (lambda: [sim.simulate(c) for c in common], 1),
                         one_batched: (lambda: sim.simulate(flat_common), 1)}, args.repeat)
    print(f"{len(own)} drop-tail configurations x {len(SEEDS)} seeds, {args.duration:g} s each, best / median of "
          f"{args.repeat} interleaved rounds:")
    report(times, 32)
    print(f"one call against one by one: {min(times[mine_batched]) / min(times[mine]):.2f}x at their own steps, "
          f"{min(times[one_batched]) / min(times[one]):.2f}x at one step")

if __name__ == "__main__":
    main()
