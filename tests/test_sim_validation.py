"""The simulator against Morris (1999) and against packet-level (ns-3) measurements.

Issue 4's validation items 1, 2 and 4 and the RED formulas against the ns-3 rows (item 3's
simulations against ns-3 are in test_sim_reference_10ms.py and test_sim_reference_dynamics.py; item 5,
the invariants, is in test_sim.py).  Every test here simulates minutes of traffic, so all are marked slow; CI runs
them.  Nothing in the simulator is tuned to these numbers: its behaviour comes
from the TCP and RED mechanisms (see tcpmodels/sim/engine.py).
"""

import math
import warnings

import numpy as np
import pytest

from tcpmodels import TCPModelsWarning, data, droptail, fpq, red, sim, tcp, units

pytestmark = pytest.mark.slow



# ---------------------------------------------------------------- item 1: one Tahoe flow, random loss
LOSSES = [0.001, 0.005, 0.01, 0.02, 0.05]


def _single_flow(sender, loss, seeds=8):
    # One flow, uniform random loss, no congestion: a 100 Mbit/s link with a
    # buffer it never fills and an uncapped access link, so every loss is the
    # link's; 8 seeds as one batch average out the run-to-run spread, and the
    # low-loss runs are long enough for ~100 time-outs (counts within ~10 %).
    s = sim.Scenario(n_flows=1, bandwidth=100e6, rtt=0.1, rtt_spread=0.0, access_rate=math.inf,
                     queue=sim.DropTail(buffer=10_000), sender=sender, link_loss=loss,
                     duration=2000.0 if loss <= 0.01 else 300.0, warmup=20.0)
    runs = sim.simulate(s, seeds=range(seeds))
    return (np.mean([r.loss_rate for r in runs]), np.mean([r.window for r in runs]),
            np.mean([r.timeouts_per_packet for r in runs]))


@pytest.fixture(scope="module")
def tahoe():
    return {loss: _single_flow(sim.Tahoe(max_window=10_000), loss) for loss in LOSSES}


@pytest.mark.parametrize("loss", LOSSES)
def test_tahoe_window_tracks_eq_5_2(tahoe, loss):
    # Morris Fig. 5.1: the simulated window sits on Eq. 5.2 (Eq. 5.1 minus the
    # whole-packet and delayed-ACK corrections), within the 20 %, the
    # bound.  Measured on cddc047 (seeds 0-7): +1.9, -1.3, -1.1, +2.4, +19.0 %
    # at l = 0.001 ... 0.05: at 5 % loss, windows of a few packets and much of
    # the time in time-outs, within a point of the bound.  (At 3819adb l = 0.01
    # read -20.3 %, with a bound of 25 %; the figures before:
    # docs/simulator_record.md, "The tests' earlier figures".)
    measured_loss, window, _ = tahoe[loss]
    assert measured_loss == pytest.approx(loss, rel=0.1)  # the link loss is what the flow sees
    assert window == pytest.approx(tcp.effective_window(measured_loss), rel=0.2)


@pytest.mark.parametrize("loss", [0.005, 0.01, 0.02, 0.05])
def test_tahoe_timeouts_follow_eq_5_3_within_factor_2(tahoe, loss):
    # Eq. 5.3 counts a time-out whenever another loss falls within 13 packets:
    # "three to generate enough duplicate ACKs ..., and another ten to allow
    # slow-start to increase".  The default Tahoe (RFC 2001: the fast
    # retransmit resends only the missing segment) times out on a second loss
    # in the window and on a loss during the restarted slow start (window < 4).
    # The bound is a factor 2; measured o / Eq. 5.3 = 1.25, 1.05, 1.01,
    # 1.01 for l = 0.005 ... 0.05 (cddc047).  (At l = 0.001, 2.6: windows of
    # ~24 packets make a second loss in the window likelier than Eq. 5.3's 13
    # packets.)
    measured_loss, _, timeouts = tahoe[loss]
    ratio = timeouts / tcp.timeout_rate(measured_loss)
    assert 0.5 <= ratio <= 2.0


def test_go_back_n_tahoe_times_out_less_at_low_loss(tahoe):
    # The ns simulator's Tahoe resends from the first hole after a fast
    # retransmit, so only losses in the ~4 packets of slow start with a window
    # below 4 (and of the retransmission) end in a time-out: o / Eq. 5.3 =
    # 0.22 and 0.85 at l = 0.005 and 0.05 (4 seeds, cddc047), 5.5x and 1.2x
    # fewer time-outs than the default Tahoe.
    # Recorded so that a user knows which Tahoe Eq. 5.3 describes.  Bounds:
    # at l = 0.005 below 0.5, i.e. outside the factor-2 band (the
    # finding itself); at 0.05 below Eq. 5.3 (ratio 1), which the go-back-N
    # sender approaches only at high loss, where windows below 4 dominate.
    for loss in (0.005, 0.05):
        measured_loss, _, timeouts = _single_flow(sim.Tahoe(max_window=10_000, go_back_n=True), loss, seeds=4)
        ratio = timeouts / tcp.timeout_rate(measured_loss)
        assert ratio < tahoe[loss][2] / tcp.timeout_rate(tahoe[loss][0])
        assert ratio < (0.5 if loss < 0.01 else 1.0)


@pytest.mark.parametrize("sender", [sim.Reno(max_window=10_000), sim.NewReno(max_window=10_000)],
                         ids=["reno", "newreno"])
def test_reno_and_newreno_beside_tahoe(tahoe, sender):
    # Random (not periodic) losses: Reno and NewReno keep their halved window
    # instead of slow-starting, so they sit above Tahoe (measured on cddc047, 4
    # seeds: Reno +11, +10, +6 %, NewReno +10, +8, +2 % at l = 0.005, 0.02,
    # 0.05) and above Eq. 5.2 (Reno +9, +13, +26 %, NewReno +9, +10, +21 %),
    # i.e. the constant 0.87 grows for them.  At l = 0.05 all three spend much
    # of the time in time-out, and NewReno's margin (+2 %) is within the
    # seed-to-seed spread of a 4-seed average (about 3 % on an earlier
    # engine), hence 0.95.  Reno times out on a second loss in a window, as the
    # default Tahoe does (o / Eq. 5.3 = 0.83-0.98); NewReno repairs those and
    # times out least (0.16-0.79).
    for loss in (0.005, 0.02, 0.05):
        measured_loss, window, timeouts = _single_flow(sender, loss, seeds=4)
        assert window >= (0.95 if loss == 0.05 else 1.0) * tahoe[loss][1]
        assert window == pytest.approx(tcp.effective_window(measured_loss), rel=0.3)
        assert timeouts <= 2 * tcp.timeout_rate(measured_loss)


# ---------------------------------------------------------------- item 2: drop-tail and random drop
DT_FLOWS = [20, 40, 70, 100, 150]


@pytest.fixture(scope="module")
def overflow_runs():
    # Morris section 5.2: 500-packet buffer, 10 Mbit/s, ~10 ms RTT, Tahoe.
    out = {}
    for queue in (sim.DropTail(buffer=500), sim.RandomDrop(buffer=500)):
        for n in DT_FLOWS:
            s = sim.Scenario(n_flows=n, bandwidth=10e6, rtt=0.01, rtt_spread=0.4, queue=queue,
                             sender=sim.Tahoe(), duration=120.0, warmup=20.0)
            out[type(queue).__name__, n] = sim.simulate(s)
    return out


def _eq(n_flows, policy):
    with warnings.catch_warnings():
        # Eq. 5.6/5.7 warn (rightly) at 150 flows that they over-estimate there.
        warnings.simplefilter("ignore", TCPModelsWarning)
        return droptail.loss_rate(n_flows, 500, policy=policy)


@pytest.mark.parametrize("n_flows", DT_FLOWS)
def test_droptail_loss_within_factor_2_of_eq_5_6(overflow_runs, n_flows):
    # Measured sim / Eq. 5.6 on cddc047: 1.79, 1.44, 1.14, 1.01, 0.89 at 20
    # ... 150 flows (overflow drops several packets per event, pushing few
    # flows above the formula; at large N time-outs pull it below, as the
    # thesis says).  "We expect the router's queue to be mostly full" (section
    # 5.2, Fig. 5.5): measured 424-429 of 500 packets; asserted above three
    # quarters of the buffer.
    r = overflow_runs["DropTail", n_flows]
    assert 0.5 <= r.loss_rate / _eq(n_flows, "droptail") <= 2.0
    assert r.utilization > 0.99 and r.queue > 0.75 * 500


@pytest.mark.parametrize("n_flows", DT_FLOWS)
def test_random_drop_loses_less_than_droptail_and_follows_eq_5_7(overflow_runs, n_flows):
    # Eq. 5.7 vs 5.6 and Fig. 5.7: dropping from the middle of the queue tells
    # flows half a window earlier, so the loss is lower and (Fig. 5.5) the
    # queue longer.  Measured on cddc047, sim / Eq. 5.7: 1.26, 1.04, 0.91,
    # 0.82, 0.79; random drop / drop-tail loss 0.67-0.72.  And Fig. 5.6:
    # drop-tail, which concentrates each loss episode on a few flows, spends
    # more time in time-out (0.05-0.26 against random drop's 0.02-0.14).
    # Queues, random drop against drop-tail: 424/429, 439/424, 456/426,
    # 468/427, 480/425 at 20 ... 150 flows.  At 20 flows they tie: the phase
    # effect lets one drop-tail flow escape to its 64 KB window, which keeps
    # its queue up; over seeds 0-4 (0 is this test's) drop-tail 425-429 with
    # Jain index 0.49-0.52, random drop 422-428 (Jain 0.95-0.99), random
    # drop's queue -1.4 ... +0.6 % from drop-tail's.  There the relation is
    # held to a tie within 3 %, not asserted strictly.
    rd, dt = overflow_runs["RandomDrop", n_flows], overflow_runs["DropTail", n_flows]
    assert rd.loss_rate < dt.loss_rate
    assert rd.queue > (0.97 if n_flows == 20 else 1.0) * dt.queue
    assert rd.timeout_fraction < dt.timeout_fraction
    assert 0.5 <= rd.loss_rate / _eq(n_flows, "random-drop") <= 2.0


# ---------------------------------------------------------------- item 4: FPQ
@pytest.mark.parametrize("n_flows", [100, 300, 1000])
def test_fpq_holds_five_packets_per_flow_and_its_loss_target(n_flows):
    # Morris Fig. 6.5-6.7 on the standard set-up (Fig. 3.2: 10 Mbit/s, ~100 ms,
    # 576-byte packets, Tahoe): FPQ keeps about ppf = 5 packets per flow queued
    # and the loss near its target (1.6 % cap; 1.1 % at 100 flows, where the
    # window (q + bdp)/n is larger).  Measured on cddc047: queue 4.3, 4.6, 4.8
    # per flow (-13, -7, -3 %) at 100/300/1000 flows; loss -13, -1, +18 % of
    # target.
    # (Before the receivers held odd packets' ACKs, 4.5 per flow: a held packet
    # is one a flow's window keeps out of the queue.)  Tolerances: 25 % on
    # queue and loss, the spread of the thesis' own figures around the targets
    # (the counter's estimate, RED's averaging and time-outs) and the held ACKs.
    s = sim.Scenario(n_flows=n_flows, bandwidth=10e6, rtt=0.1, queue=sim.FPQ(ppf=5, bits=5000, t_clear=4.0),
                     sender=sim.Tahoe(), duration=200.0, warmup=50.0)
    r = sim.simulate(s)
    target = fpq.targets(n_flows, s.bdp, ppf=5)
    assert r.queue == pytest.approx(target.queue, rel=0.25)
    assert r.loss_rate == pytest.approx(target.loss_rate, rel=0.25)
    assert r.utilization > 0.99



def _red_rows():
    rows = data.table("ns3_red_10ms")
    return {(int(rows["flows"][i]), float(rows["max_th"][i]), float(rows["max_p"][i])): float(rows["drop_rate"][i])
            for i in (rows["wait"] == 0).nonzero()[0]}


def test_red_formulas_against_reference():
    # What a user should trust where (issue 4 item 3): P1 (Eq. 5.12/5.13),
    # P2 (Eq. 5.14) and P3 against the ns-3 rows.  Loss error, N = 10 ... 300:
    #   P1  +40 +35 +32 +33 +34 +26  -3 -31 %   (ignores wire storage and time-outs)
    #   P2   -5 -15 -26 -34 -39 -48 -63 -76 %   (the 13-packet time-out term too strong)
    #   P3  +11 +13 +13 +13 +13  +5  -5 -17 %
    # max_p 0.005 ... 0.08:  P1 -34 +23 +34 +42 +56, P2 -57 -32 -39 -47 -54, P3 -7 +11 +13 +10 +4 %.
    # max_th 100 ... 2000:   P1 +18 +28 +34 +24 +18, P2 -68 -52 -39 -32 -24, P3 -4 +8 +13 +11 +9 %.
    cap = units.capacity(10e6, 576)
    for (n, max_th, max_p), ref in _red_rows().items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TCPModelsWarning)
            p1, p2, p3 = (red.equilibrium(n, max_th, max_p, model=m, rtt=0.01, capacity=cap).loss_rate
                          for m in ("P1", "P2", "P3"))
        assert p2 < ref  # P2 always under-estimates
        assert p3 == pytest.approx(ref, rel=0.2)
        if n <= 150 and max_p >= 0.01:
            assert p1 > ref  # P1 over-estimates until time-outs dominate
