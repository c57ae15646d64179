"""Every queue x every sender x {ECN, none} x {link loss, none}: the invariants hold every step.

The same grid, run with fixed seeds before and after the engine's restructure
(issue 12), gave bit-identical results; here it guards the invariants
(``check=True``: sent = delivered + dropped + queued, queue within
[0, buffer], windows within [1, max window], no NaN) on every code path.
"""

import dataclasses

import pytest

from tcpmodels import sim

QUEUES = [sim.DropTail(buffer=25), sim.RandomDrop(buffer=25), sim.RED(min_th=3, max_th=25, max_p=0.1),
          sim.RED(min_th=3, max_th=25, max_p=0.1, gentle=True), sim.REDI(min_th=3, max_th=25, max_p=0.1),
          sim.CHOKe(min_th=3, max_th=25, max_p=0.1), sim.FPQ(ppf=3, bits=200, t_clear=1.0), sim.CoDel(buffer=25)]
SENDERS = [sim.Tahoe(), sim.Tahoe(go_back_n=True), sim.Reno(), sim.NewReno(), sim.NewReno(sack=True)]
BASE = dict(n_flows=20, bandwidth=2e6, rtt=0.04, duration=4.0, warmup=1.0, start_spread=1.0)


def _name(spec):
    extra = "-gentle" if getattr(spec, "gentle", False) else "-gbn" if getattr(spec, "go_back_n", False) else ""
    return type(spec).__name__ + extra + ("-sack" if getattr(spec, "sack", False) else "")


@pytest.mark.parametrize("ecn", [False, True], ids=["plain", "ecn"])
@pytest.mark.parametrize("sender", SENDERS, ids=_name)
@pytest.mark.parametrize("queue", QUEUES, ids=_name)
def test_invariants_on_every_code_path(queue, sender, ecn):
    if ecn and hasattr(queue, "ecn"):
        queue = dataclasses.replace(queue, ecn=True)
    sender = dataclasses.replace(sender, ecn=ecn)
    # Without and with random link loss, as one batch (check=True raises on a broken invariant).
    runs = [sim.Scenario(**BASE, queue=queue, sender=sender, link_loss=loss, seed=3) for loss in (0.0, 0.01)]
    for r in sim.simulate(runs, check=True):
        assert 0 < r.loss_rate < 1 and 0 < r.utilization <= 1 + 1e-12
        if not (ecn and getattr(queue, "ecn", False)):
            assert r.mark_rate == 0  # marks need ECN at both ends
