"""Speed of tcpmodels.fluid and red.stability (issue 17): run ``python benchmarks/bench_fluid.py``.

Prints, measured side by side in one run on the same machine:
* the packet simulator on its standard scenario (benchmarks/bench_sim.py: 1000 flows, 500 s);
* the fluid model on 1000 scenarios of 100 simulated seconds (the thesis' 10 Mbit/s link of 576-byte
  packets, RED 5/217/0.02, 10-300 flows, 100-200 ms) -- goal: about the standard scenario's time or less;
* the simulator on a few of the same scenarios, and the per-scenario ratio (goal >= 10x);
* a 200 x 200 (flows, RTT) stability map, vectorized, against a loop of scalar evaluations timed on a
  sample of the same points (goal: under 1 s, >= 50x faster).

Wall times are the best of ``--repeat`` runs: the machine is shared, and its speed varies from run to run.
"""

import argparse
import warnings

import numpy as np
from bench_sim import best_time  # the script's folder is on sys.path: one timer for both benches

from tcpmodels import TCPModelsWarning, fluid, red, sim

CAPACITY = 10e6 / (8 * 576)  # the thesis' 10 Mbit/s of 576-byte packets [packets/s]
RED = dict(min_th=5.0, max_th=217.0, max_p=0.02, weight=0.002)
NS3 = dict(drop_spacing="count", delayed_ack=True)  # Floyd & Jacobson spacing, delayed ACKs


def scenarios(count, seed=1):
    rng = np.random.default_rng(seed)
    return np.round(np.geomspace(10, 300, count)), rng.uniform(0.1, 0.2, count)


def packet_scenario(n_flows, rtt, duration):
    return sim.Scenario(n_flows=int(n_flows), bandwidth=10e6, rtt=float(rtt), packet_size=576,
                        queue=sim.RED(**RED), sender=sim.NewReno(), duration=duration, warmup=20.0, seed=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--sample", type=int, default=4, help="scenarios run through the packet simulator")
    args = ap.parse_args(argv)

    std = sim.Scenario(n_flows=1000, bandwidth=10e6, rtt=0.1, packet_size=576, queue=sim.RED(min_th=5, max_th=217,
                       max_p=0.02), sender=sim.Tahoe(), duration=500.0, warmup=20.0)
    t_std, _ = best_time(lambda: sim.simulate(std), args.repeat)
    print(f"packet simulator, standard scenario (1000 flows, 500 s): {t_std:.2f} s")

    n, r = scenarios(1000)
    t_fluid, f = best_time(lambda: fluid.simulate(n, r, CAPACITY, duration=100.0, **RED, **NS3), args.repeat)
    print(f"fluid model, 1000 scenarios x 100 s: {t_fluid:.2f} s ({f.step * 1e3:.1f} ms step; "
          f"{np.mean(f.limit_cycle):.0%} on a limit cycle) = {t_fluid / t_std:.2f} x the standard scenario "
          f"(goal <= ~1): {'met' if t_fluid <= 1.2 * t_std else 'NOT met'}")

    pick = np.linspace(0, 999, args.sample).astype(int)
    t_pkt, _ = best_time(lambda: [sim.simulate(packet_scenario(n[i], r[i], 100.0)) for i in pick], 1)
    per_pkt, per_fluid = t_pkt / len(pick), t_fluid / 1000
    print(f"per scenario: packet simulator {per_pkt:.2f} s (mean of {len(pick)}: flows {n[pick].astype(int)}), "
          f"fluid {per_fluid * 1e3:.2f} ms: {per_pkt / per_fluid:.0f}x faster (goal >= 10x)")

    flows = np.geomspace(5, 500, 200)[:, None]
    rtts = np.geomspace(0.01, 0.5, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)  # corners leave the model's range: no verdict there
        t_map, s = best_time(lambda: red.stability(flows, rtts, CAPACITY, **RED, **NS3), args.repeat)
        sample = np.random.default_rng(2).integers(0, 200, size=(200, 2))
        t_loop, _ = best_time(lambda: [red.stability(flows[i, 0], rtts[j], CAPACITY, **RED, **NS3)
                                       for i, j in sample], 1)
    t_scalar = t_loop / len(sample) * s.stable.size
    print(f"stability map 200 x 200: {t_map:.2f} s (goal < 1 s: {'met' if t_map < 1 else 'NOT met'}); "
          f"scalar loop {t_scalar:.1f} s (timed on {len(sample)} points): {t_scalar / t_map:.0f}x (goal >= 50x); "
          f"{np.mean(s.stable[s.valid]):.0%} of the valid points stable")


if __name__ == "__main__":
    main()
