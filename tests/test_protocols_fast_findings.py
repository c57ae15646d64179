"""The seed papers' findings on high-speed TCP, reproduced by the simulator (issue 13; slow).

Su, Pan, Wang & Wan (2006) (seed 004): HighSpeed TCP through a drop-tail
buffer loses about a(Wc) packets per congestion event; ACWAP-HSTCP about
one; with three flows of 60/120/180 ms ACWAP has fewer congestion events,
fewer drops per event and a better Jain index (Tables 1-2).  Park et al.
(seed 002): NDCA-TCP beats HighSpeed TCP's throughput under random loss
1e-4 .. 1e-5 and has no slow-start overshoot.

Both papers ran ns-2 with 1500-byte packets and, as ns-2's default sink
does, one ACK per packet (``delayed_ack=False``; Su et al. Sec. 3.2: "once a
new ACK packet is received, the sender acknowledges one data packet").
Where the simulator and a paper disagree, the assertion allows the measured
difference and the comment says why; nothing here is fitted to the papers.
"""

import dataclasses
import math

import numpy as np
import pytest

from tcpmodels import data, hstcp, metrics, sim

pytestmark = pytest.mark.slow

ONE_ACK_PER_PACKET = dict(delayed_ack=False)
SEEDS = (0, 1, 2)


def single_flow(sender, duration, **kw):
    """Su et al. (2006) Sec. 3.2: one flow, 500 Mbit/s, 100 ms, a drop-tail buffer of one BDP (4167 packets)."""
    return sim.Scenario(n_flows=1, bandwidth=500e6, rtt=0.1, rtt_spread=0.0, packet_size=1500,
                        queue=sim.DropTail(buffer=4167), sender=sender, duration=duration, warmup=20.0,
                        start_spread=0.0, access_rate=math.inf, **kw)


def test_seed004_hstcp_loses_about_a_of_wc_per_congestion_event():
    # Three seeds (one batch); the medians of the runs are checked.
    runs = sim.simulate(single_flow(sim.HighSpeed(**ONE_ACK_PER_PACKET), 200.0), seeds=SEEDS)
    wc = np.median([r.congestion_events.window.mean() for r in runs])
    gap = np.median([np.diff(r.congestion_events.time).mean() for r in runs])
    drops = np.median([r.congestion_events.drops.mean() for r in runs])
    # Wc: the paper reads 8400 off Fig. 3a; the window that fills pipe and buffer
    # is C RTT + B = 8334.  Measured 8363 (seeds 0-2, 3819adb).  5 %.
    assert wc == pytest.approx(8400, rel=0.05)
    # "An event every several seconds" (Fig. 3a, 6 events in 40-100 s): measured
    # every 13-14 s (a(w) = 26 per RTT refills the ~0.26 Wc that b(Wc) gave back).
    assert 5.0 < gap < 30.0
    # Drops per event: the paper finds 26 = a(Wc): one RTT's growth, all
    # dropped before the loss is noticed.  Measured 25.0-25.2 (seeds 0-2),
    # a(Wc) = 26.4, as the paced flow of the next test.  (Before a step's
    # survivors' ACKs were spread over their service time, they came back
    # bunched into one step, the flow sent in bursts, and a full buffer
    # overflowed on them: 45-67 per event, 2-3 a(Wc).)  Allowed 15 %, as for
    # the paced flow.
    assert drops == pytest.approx(hstcp.a(wc), rel=0.15)


@pytest.mark.parametrize("bandwidth", [1e9, 2e9])
def test_a_lone_fast_hstcp_flow_keeps_its_link_without_time_outs(bandwidth):
    # The same set-up at 1 and 2 Gbit/s (buffer one BDP).  Slow start doubles
    # the window each RTT, so a step's arrivals outnumber its service; with
    # their ACKs bunched into one step the flow overshot, lost retransmissions
    # and timed out again and again (seeds 0-2, 200 s: utilization 0.42, 0.76,
    # 1.00 with 51, 20, 0 time-outs at 1 Gbit/s; 0.24, 0.24, 0.38 with 64, 64,
    # 49 at 2 Gbit/s).
    # With the ACKs spread over the burst's service time: no time-out, the link
    # full, and a(Wc) drops per event: measured 36.0-37.1 (a(Wc) = 37.7) and
    # 48.0-49.8 (51.7), 12 and 9 events in 180 s (3819adb).  Allowed 15 %, as for the paced flow.
    bdp = round(bandwidth / (8 * 1500) * 0.1)
    s = dataclasses.replace(single_flow(sim.HighSpeed(**ONE_ACK_PER_PACKET), 200.0), bandwidth=bandwidth,
                            queue=sim.DropTail(buffer=bdp))
    for r in sim.simulate(s, seeds=SEEDS):
        ev = r.congestion_events
        assert r.flow_timeouts[0] == 0 and r.utilization > 0.99
        assert len(ev) >= 5
        assert ev.drops.mean() == pytest.approx(hstcp.a(ev.window.mean()), rel=0.15)


def test_seed004_paced_hstcp_loses_exactly_one_rtts_growth():
    # ACWAP with beta = 1 is HighSpeed TCP with pacing (its predictor holds only
    # at a new largest RTT).  Without the step's bursts the paper's mechanism
    # is left alone: measured 25.8-26.3 drops per event (seeds 0-4, 3819adb) at Wc = 8369,
    # a(Wc) = 26.5 (the paper: 26).  Allowed 15 % (a(w) grows 3 % while the
    # window rises through the RTT before detection, and the drop count of one
    # event varies by +-2).
    for r in sim.simulate(single_flow(sim.ACWAP(beta=1.0, **ONE_ACK_PER_PACKET), 200.0), seeds=SEEDS):
        ev = r.congestion_events
        assert len(ev) >= 10
        assert ev.drops.mean() == pytest.approx(hstcp.a(ev.window.mean()), rel=0.15)


def test_seed004_acwap_loses_about_one_packet_per_event():
    r = sim.simulate(single_flow(sim.ACWAP(**ONE_ACK_PER_PACKET), 400.0))
    ev = r.congestion_events
    # The paper: "only one packet is dropped in one congestion event".  Measured
    # 1-1.5 (2 events in 380 s, seeds 0-2, 3819adb), with the link still full (utilization
    # 1.000).  The paper sees an event every ~15 s (Fig. 6, 4 in 40-100 s); here,
    # once the predictor holds a(w) = 1 above 80 % of the buffer, the queue
    # climbs the last 834 packets at one per 0.2 s RTT: ~120 s between events.  The
    # paper's ns-2 RTT estimate was coarse (its Fig. 3d: a saw-tooth "caused by
    # coarse timer granularity"), which lets the predictor miss; here it is exact.
    assert 1 <= len(ev) <= 10
    assert ev.drops.mean() <= 3
    assert r.utilization > 0.99


def three_flows(sender):
    """Su et al. (2006) Sec. 3.1 and 5.2: three flows, 60/120/180 ms, 1 Gbit/s, drop-tail, 50-400 s.

    The buffer is not given (the set-up is Pan et al. 2006's).  Table 1's
    windows at congestion fix the queue then: H1 holds 6653-7219 packets at
    ~88 % of 83 333 packets/s, i.e. 95 ms of data over its 60 ms RTT: about 35 ms
    of queue, 3000 packets.  (With a 10 000-packet buffer, one BDP at the mean
    RTT, ACWAP still has fewer events and drops, but its Jain index is 0.401
    against HSTCP's 0.437: measured on 3819adb, seed 0; 0.400 against 0.395
    before.)

    Without drop-tail's phase effect (``DropTail(phase_effect=False)``): with
    it, a full buffer's places go by each flow's phase in the packet service
    time, and with three flows the phases, not the senders, decide who loses
    (measured with the rank rule: ACWAP's 120 ms flow meets no congestion
    event in the 350 s and the 180 ms one 1; HSTCP's Jain index 0.598 against
    Table 1's 0.41, ACWAP's 0.611, no longer above it by the 0.05 asserted
    below; with the packet-by-packet FIFO that replaced it, on 3819adb,
    HSTCP's 0.441 and ACWAP's 0.349, bb89f7d 0.702 and 0.432).  The paper's ns-2 runs show no such lock-out: each flow
    meets events (Tables 1 and 2).
    """
    return sim.Scenario(n_flows=3, bandwidth=1e9, rtt=[0.06, 0.12, 0.18], packet_size=1500,
                        queue=sim.DropTail(buffer=3000, phase_effect=False), sender=sender, duration=400.0, warmup=50.0,
                        start_spread=0.0, access_rate=math.inf)


def per_flow_events(r):
    ev = r.congestion_events
    flows = ev.flow.astype(int)
    count = np.bincount(flows, minlength=3)
    return count, np.bincount(flows, weights=ev.drops, minlength=3) / np.maximum(count, 1)


def test_seed004_acwap_has_fewer_events_and_drops_and_is_fairer_with_three_flows():
    hs = sim.simulate(three_flows(sim.HighSpeed(**ONE_ACK_PER_PACKET)))
    ac = sim.simulate(three_flows(sim.ACWAP(**ONE_ACK_PER_PACKET)))
    t1, t2 = data.table("su2006_table1_hstcp"), data.table("su2006_table2_acwap")
    hs_events, hs_drops = per_flow_events(hs)
    ac_events, ac_drops = per_flow_events(ac)
    # Table 1 / Table 2 (per flow 60, 120, 180 ms)      measured here (3819adb, seed 0)
    #   HSTCP events 83 62 56,  drops/event 31.6 11.6 3.8    58 48 35,  30.3 3.1 1.7
    #   ACWAP events 35 22 13,  drops/event 2.56 1.60 1.20   10  3  0,  2.2 1.0 -
    #   utilization HSTCP .78 .08 .01, ACWAP .56 .21 .12     .90 .07 .03,  .75 .16 .10
    #   Jain index HSTCP 0.41, ACWAP 0.70 (of the tables)    0.409, 0.559
    # (seeds 1 and 2: HSTCP 57/48-51/37-38 events, 31.6-35.0/2.7-3.0/1.9 drops, Jain 0.40-0.41;
    #  ACWAP 10-11/4-6/2-3 events, 1.8/1.2-1.8/1.0-1.5 drops, Jain 0.50-0.52, utilization .79-.81
    #  .11-.14 .07-.08; ACWAP's 180 ms flow meets no event at seed 0)
    # Findings: fewer events for every flow, fewer drops per event, a better Jain index.
    assert (ac_events < hs_events).all() and ac_events.sum() < 0.5 * hs_events.sum()
    total = lambda events, drops: (events * drops).sum() / events.sum()  # noqa: E731  per event, all flows
    assert ac_drops[0] < 0.25 * hs_drops[0] and total(ac_events, ac_drops) < 0.25 * total(hs_events, hs_drops)
    assert ac.jain_index > hs.jain_index + 0.05
    # Against the tables: the Jain indices of their utilizations (the paper's FI).
    assert hs.jain_index == pytest.approx(metrics.jain_index(t1["utilization"][:3]), abs=0.1)
    # ACWAP's is lower than the paper's by 0.1-0.2 (0.50-0.56 against 0.70): its
    # 60 ms flow keeps 75-81 % of the link, not 56 %: fewer events here (10-11
    # against 35, see the single-flow test) give the short flow longer to run ahead.
    assert metrics.jain_index(t2["utilization"]) - 0.25 < ac.jain_index < metrics.jain_index(t2["utilization"])
    # HSTCP's drops per event follow a(w) at each flow's window, as Table 1 does.
    assert hs_drops[0] == pytest.approx(t1["drops_per_event"][0], rel=0.35)


def lossy_gigabit(sender, loss_rate, duration=300.0, warmup=20.0):
    """Park et al. Fig. 3: 1 Gbit/s bottleneck, RTT 2 (1 + 1 + 49) ms, random loss; buffer one BDP (not given)."""
    return sim.Scenario(n_flows=1, bandwidth=1e9, rtt=0.102, rtt_spread=0.0, packet_size=1500,
                        queue=sim.DropTail(buffer=8500), sender=sender, duration=duration, warmup=warmup,
                        start_spread=0.0, access_rate=math.inf, link_loss=loss_rate)


LOSS_RATES = (1e-4, 1e-5, 1e-6, 1e-7)


def test_seed002_ndca_outruns_hstcp_at_the_higher_loss_rates():
    # Fig. 6 averages 10 seeds of 30 min; here 4 seeds of 10 min (16 runs in one batch per sender).
    def goodput(sender):
        runs = sim.simulate([dataclasses.replace(lossy_gigabit(sender, p, duration=600.0), seed=seed)
                             for p in LOSS_RATES for seed in range(4)])
        return np.array([r.goodput[0] for r in runs]).reshape(len(LOSS_RATES), 4).mean(axis=1)

    ratio = goodput(sim.NDCA(**ONE_ACK_PER_PACKET)) / goodput(sim.HighSpeed(**ONE_ACK_PER_PACKET))
    # Fig. 6: "much higher than that of the HS-TCP for relatively high packet
    # loss rates"; both fill the link at 1e-7.  After each random loss NDCA
    # slow-starts back to its bandwidth estimate (interval C) where HighSpeed
    # climbs by a(w) per RTT.  Measured NDCA / HSTCP goodput on 3819adb: 3.39,
    # 3.39, 1.01, 1.00 at 1e-4 .. 1e-7 (905f7e2: 2.62, 2.45, 1.00, 1.00, NDCA
    # 6656 and 43160 packets/s at 1e-4 and 1e-5, 8674 and 61599 now; an earlier
    # engine 1.47, 1.70, 0.93, 1.00).  At 1e-6 HighSpeed already fills 98 % of
    # the link: the paper's figure (values not in the text) is only checked for
    # its ordering at 1e-4 and 1e-5 and its meeting at 1e-7.  (With delayed
    # ACKs, which halve HighSpeed's a(w) per RTT but not NDCA's slow start back
    # to the estimate, an earlier engine: 1.43, 1.44, 0.99, 1.00.)
    assert ratio[0] > 1.2 and ratio[1] > 1.2, ratio
    assert ratio[3] == pytest.approx(1.0, abs=0.05), ratio


def test_seed002_ndca_has_no_slow_start_overshoot():
    runs = [sim.simulate(lossy_gigabit(spec, 0.0, duration=30.0, warmup=0.0))
            for spec in (sim.HighSpeed(**ONE_ACK_PER_PACKET), sim.NDCA(**ONE_ACK_PER_PACKET))]
    hs, nd = (r.congestion_events for r in runs)
    # Fig. 5: HighSpeed's slow start overshoots the pipe plus buffer and loses
    # thousands of packets at once; NDCA's hold (the RTT above alpha BaseRTT)
    # ends slow start at the estimate: no loss at all while it fills the link.
    assert len(hs) >= 1 and hs.drops[0] > 1000
    assert len(nd) == 0 and runs[1].utilization > 0.9


def test_seed004_acwap_beside_hstcp_is_fairer_the_larger_beta():
    # Sec. 5.3, Fig. 7-9: one ACWAP-HSTCP flow beside one HSTCP flow; a small
    # beta lets HSTCP take the link (poor fairness), a large one shares it.
    # 1 Gbit/s, 100 ms, the three-flow set-up's buffer (3000 packets); one batch.
    # Without drop-tail's phase effect, as three_flows: with it the two flows
    # share one phase (equal RTTs) and the one with fewer packets per service
    # time loses the ties, so ACWAP at small beta loses 45, 18, 4.4, 2.7 times
    # HSTCP's rate at beta 0.2, 0.5, 0.8, 0.9 (measured, seed 0, the rank rule;
    # 60, 22, 4.5, 2.6 times with the packet-by-packet FIFO on 3819adb: a tie drops one of
    # the two packets either way, so the flow with fewer packets loses more
    # of them), against Fig. 7's lower loss for ACWAP.
    betas = (0.2, 0.5, 0.8, 0.9)
    runs = sim.simulate([sim.Scenario(
        n_flows=2, bandwidth=1e9, rtt=0.1, rtt_spread=0.0, packet_size=1500,
        queue=sim.DropTail(buffer=3000, phase_effect=False),
        senders=[(1, sim.ACWAP(beta=beta, **ONE_ACK_PER_PACKET)), (1, sim.HighSpeed(**ONE_ACK_PER_PACKET))],
        duration=400.0, warmup=50.0, start_spread=0.0, access_rate=math.inf) for beta in betas])
    jain = np.array([r.jain_index for r in runs])
    # Measured (3819adb): 0.53, 0.59, 0.72, 0.81 (seeds 1, 2: 0.53, 0.57, 0.70,
    # 0.82 and 0.53, 0.57, 0.72, 0.84; bb89f7d 0.53, 0.57, 0.70, 0.81).
    assert (np.diff(jain) > 0).all() and jain[0] < 0.6 < 0.7 < jain[-1]
    # Fig. 7's other half, a lower loss rate for ACWAP at small beta, is not
    # reproduced: drop-tail drops fall on both flows' arrivals alike, and both
    # lose 32-40 packets per million at every beta (measured, seed 0, 3819adb;
    # ACWAP / HSTCP 0.99, 0.83, 1.05, 1.12).  At seeds 1 and 2 0.91, 1.03, 0.93,
    # 1.09 and 1.47, 0.88, 1.00, 1.04: at beta 0.2 ACWAP keeps 3 % of the link
    # and its rate rests on a few dozen drops.
    acwap_loss = np.array([r.groups[0].loss_rate for r in runs])
    hstcp_loss = np.array([r.groups[1].loss_rate for r in runs])
    np.testing.assert_allclose(acwap_loss, hstcp_loss, rtol=0.25)


def test_seed004_table1_reno_beside_three_hstcp_flows_meets_fewer_events():
    # Table 1's run has a fourth flow, R1: standard TCP at 120 ms ("compared with
    # HSTCP flows, standard TCP flow encounters less congestion").  Here NewReno
    # with SACK, the HSTCP flows' recovery (RFC 6675's: the paper ran ns-2).
    s = dataclasses.replace(three_flows(sim.HighSpeed(**ONE_ACK_PER_PACKET)), n_flows=4, rtt=[0.06, 0.12, 0.18, 0.12],
                            senders=[(3, sim.HighSpeed(**ONE_ACK_PER_PACKET)),
                                     (1, sim.NewReno(sack=True, recovery="rfc6675", max_window=83000,
                                                 **ONE_ACK_PER_PACKET))])
    r = sim.simulate(s)
    t1 = data.table("su2006_table1_hstcp")
    ev = r.congestion_events
    flows = ev.flow.astype(int)
    events = np.bincount(flows, minlength=4)
    reno = ev.window[flows == 3]
    # Table 1 / measured (3819adb): events 83 62 56 20 / 58 46 36 19; R1's windows
    # at congestion 112-443 / 139-376; utilization .78 .08 .009 .017 / .87 .085 .031 .016.
    # Allowed: R1's events within 35 % (about 20 events: a count's own spread is
    # 1/sqrt(20) = 22 %), its windows within the table's range widened by 20 %,
    # its small share (1.6 % of the link) within 50 %.
    assert events[3] < events[:3].min()
    assert events[3] == pytest.approx(t1["congestion_events"][3], rel=0.35)
    assert t1["window_min"][3] * 0.8 < reno.min() and reno.max() < t1["window_max"][3] * 1.2
    assert r.goodput[3] / s.capacity == pytest.approx(t1["utilization"][3], rel=0.5)
