"""Bad input to issue 13's senders, workloads and queues: refused when built, naming the field."""

import math

import pytest

from tcpmodels import sim

BASE = dict(n_flows=2, bandwidth=1e6, rtt=0.1)


@pytest.mark.parametrize("make, field", [
    # unknown sender and workload names, alone and in groups
    (lambda: sim.Scenario(**BASE, sender="cubic"), "sender"),
    (lambda: sim.Scenario(**BASE, senders=[(1, "cubic"), (1, "reno")]), "senders"),
    (lambda: sim.Scenario(**BASE, workload="bursty"), "workload"),
    (lambda: sim.Scenario(**BASE, workload=[(1, "bursty"), (1, "finite")]), "workload"),
    # beta outside [0, 1] (ACWAP's Eq. 3 factor; NDCA's Eq. 4 weight, in (0, 1])
    (lambda: sim.ACWAP(beta=-0.1), "beta"),
    (lambda: sim.ACWAP(beta=1.01), "beta"),
    (lambda: sim.ACWAP(beta=math.nan), "beta"),
    (lambda: sim.NDCA(beta=1.5), "beta"),
    # negative or non-finite delays
    (lambda: sim.SDC(max_delay=-1.0), "max_delay"),
    (lambda: sim.SDC(max_delay=math.inf), "max_delay"),
    (lambda: sim.SDC(max_delay=math.nan), "max_delay"),
    (lambda: sim.RDC(max_delay=-0.1), "max_delay"),
    (lambda: sim.FiniteTransfers(connection_timeout=-1.0), "connection_timeout"),
    (lambda: sim.FiniteTransfers(connection_timeout=math.inf), "connection_timeout"),
    (lambda: sim.CHOKeI(match_interval=math.inf), "match_interval"),
    # transfer sizes below one packet
    (lambda: sim.FiniteTransfers(size=0.9), "size"),
    (lambda: sim.FiniteTransfers(size=math.inf), "size"),
    (lambda: sim.FiniteTransfers(size=math.nan), "size"),
    # an ECN-only sender behind a queue that cannot mark, alone or in a group
    (lambda: sim.Scenario(**BASE, sender="tcpe", queue="droptail"), "queue"),
    (lambda: sim.Scenario(**BASE, sender="sdc", queue="red"), "queue"),
    (lambda: sim.Scenario(**BASE, senders=[(1, sim.NewReno(ecn=True)), (1, "rdc")], queue="red"), "queue"),
    (lambda: sim.Scenario(**BASE, senders=[(1, "tcpe"), (1, sim.NewReno(ecn=True))], queue="fpq"), "queue"),
    # ... or beside senders without ECN (the queue marks all groups or none)
    (lambda: sim.Scenario(**BASE, senders=[(1, "tcpe"), (1, "newreno")], queue=sim.REDI(ecn=True)), "senders"),
    # group sizes that do not add up, or are not whole numbers >= 1
    (lambda: sim.Scenario(**BASE, senders=[(1, "reno"), (2, "reno")]), "senders"),
    (lambda: sim.Scenario(**BASE, senders=[(-1, "reno"), (3, "reno")]), "senders"),
    (lambda: sim.Scenario(**BASE, workload=[(1, "finite")]), "workload"),
    (lambda: sim.Scenario(**BASE, workload=[(0.5, "finite"), (1.5, "long-lived")]), "workload"),
    # Kamra et al.'s Bernoulli mark-to-drop probability
    (lambda: sim.REDI(ecn=True, mark_drop=1.5), "mark_drop"),
    (lambda: sim.REDI(ecn=True, mark_drop=-0.1), "mark_drop"),
    (lambda: sim.REDI(ecn=True, mark_drop=math.nan), "mark_drop"),
    (lambda: sim.REDI(mark_drop=0.01), "mark_drop"),  # marks need ecn=True
    (lambda: sim.SDC(window_threshold=0.0), "window_threshold"),
])
def test_bad_input_is_refused_naming_the_field(make, field):
    with pytest.raises(ValueError, match=rf"^{field}\b"):
        make()
