"""Does a speed-up change a result?  The same seeds' SimResults in this checkout and in others, bit for bit.

Usage::

    python benchmarks/same_results.py /path/to/other/checkout [...]

Runs one grid of scenarios in each checkout (a fresh process importing
tcpmodels from it, as ``bench_ab.py`` does) and compares a SHA-256 digest of
each run's results: every queue x every sender of the engine x {ECN, none} x
{link loss, none} on 20 flows, the thesis' standard scenario alone, in a
batch and at three flow counts, the few fast flows' case alone and as a batch
of seeds, finite transfers under FPQ, a mixed population with per-flow RTTs,
a float32 batch (10 000 flows) and the seed papers' senders.  Prints the runs compared and
those that differ; exits with 1 if any does (2 if the grid cannot run in a
checkout, say one older than an API it uses; runs of a discipline an older checkout lacks,
such as CoDel, are left out of the comparison and counted).  (About 20 s a checkout.)
"""

import argparse
import os

from bench_ab import HERE, run_in  # (this folder is on the path of a script run from it)

# Run inside the checkout's process.
_GRID = r'''
import dataclasses, hashlib, json
import numpy as np
from tcpmodels import sim

FIELDS = ("loss_rate", "queue", "utilization", "timeouts_per_packet", "window", "goodput", "flow_drops",
          "flow_window", "mark_rate")


def digest(r):
    h = hashlib.sha256()
    for name in FIELDS:
        h.update(np.asarray(getattr(r, name), dtype=float).tobytes())
    for column in ("flow", "time", "window", "drops"):
        h.update(np.asarray(getattr(r.congestion_events, column), dtype=float).tobytes())
    return h.hexdigest()[:16]


def label(spec):
    """A queue's or sender's short name: its type and the options that change its code path."""
    flags = [k for k in ("gentle", "go_back_n", "sack") if getattr(spec, k, False)]
    recovery = getattr(spec, "recovery", None)
    return "-".join([type(spec).__name__, *flags, *([recovery] if recovery else [])])


out = {}
queues = [sim.DropTail(buffer=25), sim.RandomDrop(buffer=25), sim.RED(min_th=3, max_th=25, max_p=0.1),
          sim.RED(min_th=3, max_th=25, max_p=0.1, gentle=True), sim.REDI(min_th=3, max_th=25, max_p=0.1),
          sim.CHOKe(min_th=3, max_th=25, max_p=0.1), sim.FPQ(ppf=3, bits=200, t_clear=1.0)]
queues += [sim.CoDel(buffer=25)] if hasattr(sim, "CoDel") else []  # (fd7afcc on)
senders = [sim.Tahoe(), sim.Tahoe(go_back_n=True), sim.Reno(), sim.NewReno(), sim.NewReno(sack=True),
           sim.NewReno(sack=True, recovery="rfc6675"), sim.NewReno(sack=True, recovery="prr-ns3.44"),
           sim.HighSpeed(), sim.Scalable()]
small = dict(n_flows=20, bandwidth=2e6, rtt=0.04, duration=4.0, warmup=1.0, start_spread=1.0, seed=3)
for q in queues:
    for s in senders:
        for ecn in (False, True):
            queue = dataclasses.replace(q, ecn=True) if ecn and hasattr(q, "ecn") else q
            runs = [sim.Scenario(**small, queue=queue, sender=dataclasses.replace(s, ecn=ecn), link_loss=loss)
                    for loss in (0.0, 0.01)]
            for loss, r in zip(("", " link loss"), sim.simulate(runs), strict=True):
                name = f"{label(q)} {label(s)}{' ECN' if ecn else ''}{loss}"
                assert name not in out, name
                out[name] = digest(r)


def standard(**kw):
    return sim.Scenario(n_flows=1000, bandwidth=10e6, rtt=0.1, packet_size=576, warmup=20.0,
                        queue=sim.RED(min_th=5, max_th=217, max_p=0.02), sender=sim.Tahoe(), **kw)


out["standard 60 s"] = digest(sim.simulate(standard(duration=60.0)))
for k, r in enumerate(sim.simulate([standard(duration=25.0, seed=k) for k in range(6)])):
    out[f"standard batch {k}"] = digest(r)
# A sweep over flow counts: one batch where counts may differ (engine.batches), separate ones before.
for k, r in enumerate(sim.simulate([dataclasses.replace(standard(duration=40.0), n_flows=n, seed=n)
                                    for n in (50, 200, 1000)])):
    out[f"standard at 50, 200 and 1000 flows: run {k}"] = digest(r)
few = sim.Scenario(n_flows=20, bandwidth=20e6, rtt=0.2, rtt_spread=0.1, packet_size=576, access_rate=1e7,
                   queue=sim.DropTail(buffer=434), sender=sim.NewReno(sack=True), duration=60.0, warmup=20.0)
out["few fast flows"] = digest(sim.simulate(few))
for k, r in enumerate(sim.simulate(few, seeds=[1, 2, 1])):
    out[f"few fast flows, batch of seeds 1, 2, 1: run {k}"] = digest(r)
# Configurations whose steps, lengths and warm-ups differ, seeds 1-2 each: one batch where steps may differ
# (engine.batches), a batch each before.
apart = [dataclasses.replace(few, n_flows=n, rtt=rtt, duration=length, warmup=length / 4, seed=seed,
                             queue=sim.DropTail(buffer=buffer))
         for n, rtt, length, buffer in ((20, 0.2, 40.0, 434), (10, 0.1, 30.0, 200), (30, 0.15, 35.0, 300))
         for seed in (1, 2)]
for k, r in enumerate(sim.simulate(apart)):
    out[f"steps apart, seeds 1-2: run {k}"] = digest(r)
out["finite transfers, FPQ"] = digest(sim.simulate(sim.Scenario(
    n_flows=200, bandwidth=10e6, rtt=0.1, queue=sim.FPQ(ppf=5), duration=40.0, warmup=10.0,
    workload=sim.FiniteTransfers(size=20))))
out["mixed senders, per-flow RTTs"] = digest(sim.simulate(sim.Scenario(
    n_flows=30, bandwidth=10e6, rtt=[0.06, 0.12, 0.18], queue=sim.RED(min_th=5, max_th=50, max_p=0.1),
    senders=[(10, sim.NewReno(sack=True)), (10, sim.Tahoe()), (10, sim.Reno())], duration=20.0, warmup=5.0)))
big = sim.Scenario(n_flows=1000, bandwidth=100e6, rtt=0.04, queue=sim.RED(min_th=30, max_th=250, max_p=0.1),
                   sender=sim.NewReno(sack=True), duration=3.0, warmup=1.0, start_spread=1.0)
for k, r in enumerate(sim.simulate(big, seeds=range(10))[:4]):
    out[f"float32 batch {k}"] = digest(r)
red_ecn = sim.RED(min_th=5, max_th=50, max_p=0.1, ecn=True)
for name, sender, queue in [
        ("ACWAP", sim.ACWAP(), sim.DropTail(buffer=60)), ("NDCA", sim.NDCA(), sim.DropTail(buffer=60)),
        ("TCP/E, RED-I", sim.TCPE(), sim.REDI(min_th=10, max_th=50, max_p=1.0, buffer=80, ecn=True)),
        ("TCP/E, CHOKe-I", sim.TCPE(), sim.CHOKeI(min_th=10, max_th=50, max_p=1.0, buffer=80, ecn=True)),
        ("SDC", sim.SDC(), red_ecn), ("RDC", sim.RDC(), red_ecn)]:
    out[name] = digest(sim.simulate(sim.Scenario(n_flows=3, bandwidth=20e6, rtt=0.05, queue=queue, sender=sender,
                                                 duration=15.0, warmup=3.0, seed=2)))
print(json.dumps(out))
'''


def digests(checkout):
    """The grid's digests in a fresh process importing tcpmodels from ``checkout``: dict of run name -> digest."""
    return run_in(checkout, _GRID, "same_results.py")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("others", nargs="+", help="paths of the checkouts to compare with")
    args = ap.parse_args(argv)
    for other in args.others:
        if not os.path.isfile(os.path.join(other, "tcpmodels", "sim", "__init__.py")):
            ap.error(f"others: {other!r} is not a tcpmodels checkout (no tcpmodels/sim there)")
    mine = digests(HERE)
    differ = False
    for other in args.others:
        theirs = digests(os.path.abspath(other))
        shared = [name for name in mine if name in theirs]
        changed = [name for name in shared if theirs[name] != mine[name]]
        print(f"{other}: {len(shared) - len(changed)} of {len(shared)} runs identical"
              + (f" ({len(mine) - len(shared)} runs of what it lacks not compared)" if len(shared) < len(mine) else ""))
        for name in changed:
            print(f"  differs: {name}")
        differ = differ or bool(changed)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
