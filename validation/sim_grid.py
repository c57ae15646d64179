"""The simulator on the configurations of ns3_grid.csv, side by side with the packet-level runs.

Run from the repository root (the package importable)::

    python validation/sim_grid.py [--grid validation/ns3_grid.csv] [--out validation/sim_grid.csv]
    python validation/sim_grid.py --table prr-ns3.44     # the comparison as a markdown table

Each configuration of the ns-3 CSV (its seed-1 row) becomes a ``sim.Scenario`` with the
conventions of ``tests/test_sim_validation.py``'s ``_ns3_scenario``: rtt,
rtt_spread, packet_size, access_rate = max(10 C / N, 1 Mbit/s), start_spread
10 s, the ns-3 run's duration and warm-up; queue ``sim.DropTail(buffer=limit)``
or ``sim.RED(...)`` with the same thresholds, max_p, weight, gentle, ECN and
hard limit.  Sender: ``sim.NewReno(sack=True, ecn=..., max_window=W)`` with
W = 65535 // (packet_size - 40), ns-3's window without window scaling (122
segments at 576 bytes, 44 at 1500), once with the default recovery (RFC 6937
PRR) and once with ``recovery="prr-ns3.44"``; seeds 1 and 2 batched in one
``simulate`` call and averaged.  Writes one row per configuration and sender
with ns-3's (the mean over the seeds the CSV holds) and the simulator's
figures and the relative errors.
"""

import argparse
import csv
import math
import sys
import time

import numpy as np

from tcpmodels import sim

METRICS = [("drop_rate", "loss_rate"), ("avg_queue", "queue"), ("utilization", "utilization"),
           ("timeouts_per_packet", "timeouts_per_packet"), ("jain", "jain_index"), ("avg_cwnd", "window"),
           ("timeout_fraction", "timeout_fraction")]


def scenario(row, recovery, seed, window=None, **kw):
    n, bw, pkt = int(row["flows"]), float(row["bandwidth_bps"]), float(row["packet_size"])
    ecn = bool(int(row["ecn"]))
    if row["queue"] == "droptail":
        queue = sim.DropTail(buffer=int(row["limit"]))
    else:
        queue = sim.RED(min_th=float(row["min_th"]), max_th=float(row["max_th"]), max_p=float(row["max_p"]),
                        weight=float(row["weight"]), gentle=bool(int(row["gentle"])), ecn=ecn, buffer=int(row["limit"]))
    if window is None:
        window = 65535 // (int(pkt) - 40)
    sender = sim.NewReno(sack=True, ecn=ecn, recovery=recovery, max_window=window)
    return sim.Scenario(n_flows=n, bandwidth=bw, rtt=float(row["rtt_s"]), rtt_spread=float(row["rtt_spread"]),
                        packet_size=pkt, queue=queue, sender=sender, access_rate=max(10 * bw / n, 1e6),
                        start_spread=10.0, duration=float(row["duration"]), warmup=float(row["warmup"]), seed=seed,
                        **kw)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid", default="validation/ns3_grid.csv")
    ap.add_argument("--out", default="validation/sim_grid.csv")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--seeds", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--table", choices=["prr", "prr-ns3.44"], help="only print the markdown table of --out")
    a = ap.parse_args(argv)
    if a.table:
        table(a.out, a.table)
        return
    with open(a.grid) as f:
        every = [r for r in csv.DictReader(f) if not a.only or r["name"] in a.only]
    rows = [r for r in every if r["seed"] == "1"]
    out = []
    for row in rows:
        for recovery in ("prr", "prr-ns3.44"):
            t0 = time.time()
            runs = sim.simulate([scenario(row, recovery, s) for s in a.seeds])
            same = [r for r in every if r["name"] == row["name"]]
            res = {"name": row["name"], "recovery": recovery, "ns3_seeds": len(same),
                   "sim_wall_s": round(time.time() - t0, 1)}
            for ns3_key, sim_key in METRICS:
                ref = float(np.mean([float(r[ns3_key]) for r in same]))
                val = float(np.mean([getattr(r, sim_key) for r in runs]))
                res["ns3_" + ns3_key] = ref
                res["sim_" + ns3_key] = val
                res["err_" + ns3_key] = (val - ref) / ref if ref else (math.inf if val else 0.0)
            res["sim_seed_spread_loss"] = float(np.ptp([r.loss_rate for r in runs]) / max(res["sim_drop_rate"], 1e-12))
            out.append(res)
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in res.items()
                           if k.startswith(("name", "recovery", "err_", "sim_wall"))), flush=True)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)



def table(path="validation/sim_grid.csv", recovery="prr-ns3.44"):
    """Markdown: ns-3 vs simulator per configuration (``recovery`` rows), misses starred.

    Misses: loss off by more than 20 % (where ns-3's loss > 0.1 %), queue 15 %,
    time-outs per packet 2x (where ns-3's > 1e-3), utilization 0.02.
    """
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["recovery"] == recovery]
    print(f"| config | loss ns-3 / sim (err) | queue ns-3 / sim (err) | util ns-3 / sim | to/pkt ns-3 / sim (x) | Jain ns-3 / sim |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        g = {k: float(v) for k, v in r.items() if k.startswith(("ns3_", "sim_", "err_"))}
        loss_miss = g["ns3_drop_rate"] > 1e-3 and abs(g["err_drop_rate"]) > 0.2
        q_miss = abs(g["err_avg_queue"]) > 0.15
        u_miss = abs(g["sim_utilization"] - g["ns3_utilization"]) > 0.02
        to_ratio = g["sim_timeouts_per_packet"] / g["ns3_timeouts_per_packet"] if g["ns3_timeouts_per_packet"] else math.nan
        to_miss = g["ns3_timeouts_per_packet"] > 1e-3 and not 0.5 <= to_ratio <= 2
        star = lambda m: " **miss**" if m else ""
        seeds = "" if r["ns3_seeds"] == "1" else f" ({r['ns3_seeds']} seeds)"
        print(f"| {r['name']}{seeds} | {g['ns3_drop_rate']:.4f} / {g['sim_drop_rate']:.4f} ({100 * g['err_drop_rate']:+.0f} %){star(loss_miss)} "
              f"| {g['ns3_avg_queue']:.1f} / {g['sim_avg_queue']:.1f} ({100 * g['err_avg_queue']:+.0f} %){star(q_miss)} "
              f"| {g['ns3_utilization']:.3f} / {g['sim_utilization']:.3f}{star(u_miss)} "
              f"| {g['ns3_timeouts_per_packet']:.1e} / {g['sim_timeouts_per_packet']:.1e} (x{to_ratio:.2f}){star(to_miss)} "
              f"| {g['ns3_jain']:.2f} / {g['sim_jain']:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
