"""The documents' findings on short transfers, TCP/E and delay control, reproduced by the simulator (issue 13).

Each test runs the document's set-up (batched where the scenarios share a
shape), asserts the finding's direction, and records in comments how far the
simulator's numbers are from the document's, with the reason where known.
Nothing here is tuned to the documents: the senders, queues and workloads
follow the protocols.
"""

import dataclasses

import numpy as np
import pytest

from tcpmodels import data, metrics, sim

pytestmark = pytest.mark.slow


def morris_transfers(n_flows, queue, distribution="fixed", duration=200.0):
    """Morris (1999), section 7.1: n sources of 20-packet transfers, the standard set-up (Fig. 3.2, Tahoe)."""
    return sim.Scenario(n_flows=n_flows, bandwidth=10e6, rtt=0.1, queue=queue, duration=duration, warmup=50.0,
                        workload=sim.FiniteTransfers(size=20, distribution=distribution))


def test_morris_fig_7_2_more_packets_per_flow_spread_the_delays_less_and_lose_less():
    table = data.table("morris_fig7_2_ppf")
    runs = sim.simulate([morris_transfers(500, sim.FPQ(ppf=p)) for p in table["ppf"]])
    delays = [r.transfers.delay for r in runs]
    std = np.array([d.std() for d in delays])
    mean = np.array([d.mean() for d in delays])
    median = np.array([np.median(d) for d in delays])
    loss = np.array([r.loss_rate for r in runs])
    # Measured on 94e94b5 (ppf 1, 3, 5, 7; 3819adb the same but the medians 3.74
    # and 4.37 at ppf 1 and 5), against the thesis' Fig. 7.2:
    #   std of delay  1.71 1.19 0.97 0.70 s   thesis 3.5 1.9 1.3 0.9   (-51 % -37 % -25 % -22 %)
    #   loss          2.10 0.87 0.55 0.27 %   thesis 7.3 2.4 0.9 0.4   (-71 % -64 % -39 % -31 %)
    #   mean delay    4.76 4.68 4.66 4.64 s   thesis 4.6 (all)         (+3 % +2 % +1 % +1 %)
    #   median delay  3.73 4.23 4.36 4.50 s   thesis 3.5 3.7 4.2 4.5   (+7 % +14 % +4 % +0 %)
    #   queue          598  738  779  817     thesis 270 890 1120 1210
    # The trend is the thesis': fewer time-outs and less spread as FPQ buffers
    # more per flow, an unchanged mean (Little's law: 500 x 20 packets over
    # the link's rate, 4.6 s), a median rising towards it.  At ppf 1 the
    # simulator keeps a longer queue (598 against 270 packets) and so loses and
    # times out less (its FPQ counts 453 of the 500 sources on 94e94b5, measured over the
    # trace); the thesis' 270 packets are below FPQ's own one-packet-per-flow
    # target, and the text does not say why its queue stayed that short.
    assert (np.diff(std) < 0).all() and (np.diff(loss) < 0).all() and (np.diff(median) > 0).all()
    # The mean is the link's arithmetic; 10 % covers the handshake's round trip
    # (0.1-0.6 s of a 4.6 s transfer) and the transfers open at the interval's ends.
    assert mean == pytest.approx(table["avg_delay"], rel=0.10)
    # The spread and loss: within a factor 2.5 and 4 of the thesis' (the
    # largest gaps measured, at ppf 1: x0.49 and x0.29), the same order.
    assert (std / table["std_delay"] > 1 / 2.5).all() and (std / table["std_delay"] < 1.2).all()
    assert (loss / table["loss_rate"] > 1 / 4.0).all() and (loss / table["loss_rate"] < 1.5).all()


def test_morris_fig_7_11_fpq_keeps_the_95th_to_5th_percentile_ratio_below_red217():
    # Exponential transfers of mean 20 packets; the ratio over the 20-packet
    # transfers only (section 7.4.2: compare transfers of one size).
    counts = (100, 300, 500)  # (the link is idle at 100 flows: no queue, no loss)
    runs = sim.simulate([morris_transfers(n, q, "exponential", duration=150.0)
                         for n in counts for q in (sim.FPQ(), sim.RED())])
    ratio = []
    for r in runs:
        t = r.transfers
        ratio.append(metrics.percentile_ratio(t.delay[t.size == 20]))
    fpq, red = np.array(ratio[0::2]), np.array(ratio[1::2])
    # Measured (94e94b5, 200 s runs, N = 100, 300, 500, 700): FPQ 1.19 1.88 1.76
    # 1.72, RED217 1.20 3.37 5.48 7.33 (3819adb: FPQ 1.19 1.71 1.76 1.72, RED217
    # 1.19 3.16 5.29 7.22; bb89f7d: FPQ 1.18 1.61 1.95 1.81, RED217 1.20 3.27
    # 6.58 8.87).  The thesis' Fig. 7.11 has the same shape: equal
    # where too few flows fill the link, then RED217 above FPQ, the gap widening
    # with the load (its values are not in the text).
    assert fpq[0] == pytest.approx(red[0], rel=0.15)  # 150 s: ~250 transfers of 20 packets each
    assert (fpq[1:] < red[1:]).all()
    assert red[-1] - fpq[-1] > red[1] - fpq[1]
    assert (fpq < 2.5).all()  # FPQ: every transfer meets the same queue (within 2.5x: measured 1.2-1.9 on 94e94b5)


# --- Hsiao, Kung & Tan, Table 1 set-up ---------------------------------------------------------------------------

def hsiao(sender, rtt=0.1, buffer=100, workload=None, ecn=True):
    """Table 1: 1.5 Mbit/s of 1000-byte packets, 10 Mbit/s access links, gentle RED b/6..b/2, 100 s; NewReno + IW 2."""
    p = dict(zip(*[data.table("hsiao_table1_parameters")[k] for k in ("parameter", "value")], strict=True))
    queue = sim.RED(min_th=buffer * p["min_th_per_buffer"], max_th=buffer * p["max_th_per_buffer"],
                    weight=p["weight"], max_p=p["max_p"], gentle=True, ecn=ecn, buffer=buffer)
    return sim.Scenario(n_flows=50, bandwidth=p["bandwidth"], rtt=rtt, rtt_spread=0.0, packet_size=p["packet_size"],
                        queue=queue, sender=sender, workload=workload or sim.LongLived(), duration=p["duration"],
                        warmup=0.0, start_spread=1.0, access_rate=p["access_bandwidth"])


SEEDS = range(4)
ECN_TCP = dict(initial_window=2, limited_transmit=True)


def test_hsiao_fig_2_3_a_longer_rtt_gives_larger_windows():
    rtts = (0.1, 0.3, 0.5)
    runs = sim.simulate([dataclasses.replace(hsiao(sim.NewReno(ecn=True, **ECN_TCP), rtt), seed=s)
                         for rtt in rtts for s in SEEDS])
    window = np.array([r.window for r in runs]).reshape(len(rtts), -1).mean(axis=1)
    # Measured (3819adb and 94e94b5): windows 2.09, 2.63, 3.25 packets.
    # The paper: "less than three" at 100 ms and "about four" at 500 ms (Sec.
    # III.B; the path holds 118 and 193 packets for 50 flows, 2.4 and 3.9
    # each); the simulator's 3.25 at 500 ms is 19 % below: RED holds the
    # average queue near its lower thresholds, not the full 100 packets.
    assert window[0] < 3.0 and np.all(np.diff(window) > 0)
    assert window[-1] > 2.8


def _fig_3_timeouts(warmup=0.0, seeds=range(48)):
    """Time-outs a run (all 50 flows) at 100, 300 and 500 ms, mean over ``seeds``, counted from ``warmup`` on."""
    return [np.mean([r.flow_timeouts.sum() for r in sim.simulate(
        dataclasses.replace(hsiao(sim.NewReno(ecn=True, **ECN_TCP), rtt), warmup=warmup), seeds=seeds)])
        for rtt in (0.1, 0.3, 0.5)]


def test_hsiao_fig_3_time_outs_come_all_at_the_start():
    # The paper: from four packets up, "most time-outs happen as the flows first
    # started".  With ECN and limited transmit, windows of 2-3 packets keep the
    # flows out of time-outs once started: none after the first 20 s (8 seeds).
    assert _fig_3_timeouts(warmup=20.0, seeds=range(8)) == [0, 0, 0]


def test_hsiao_fig_3_time_outs_fall_as_the_rtt_grows():
    # Fig. 3: fewer time-outs at the longer RTT.  Its effect (a few time-outs in
    # 30) is smaller than one run's spread (sd 3-7), so 48 seeds a point: the
    # standard error of a mean is 0.5-1.0 time-out.  All are the start-up's
    # slow-start overshoot (above).  Measured before the receivers' timer raced
    # the next packet (3819adb and 94e94b5, 96 seeds; 100, 200, 300, 400, 500 ms):
    # 33.1, 29.6, 29.2, 28.2, 28.4 time-outs a run.  That fall came from a fault
    # (a packet held for its ACK paired with the flow's next one however late
    # that came), and with it fixed (AckRing._delay_acks) the time-outs were flat:
    # 34.9, 35.0, 34.2.  Since RED's forced drops fall on one run of a step's
    # packets (_REDState.victims), as a packet-level queue's overflow does, the
    # fall is back, from the queue's side (48 seeds, standard errors 0.40-0.53):
    # 31.8, 28.7, 25.6 time-outs a run, while the drops rise (175, 209, 242 a
    # run, on 44.2, 47.2, 48.1 of the 50 flows).
    # Margin 1.5: the standard error of a difference is near 0.6 at 48 seeds.
    timeouts = _fig_3_timeouts()
    assert timeouts[1] < timeouts[0] - 1.5 and timeouts[2] < timeouts[0] - 1.5


def test_hsiao_fig_7_9_sdc_keeps_larger_windows_and_short_transfers_faster_with_a_small_buffer():
    workload = [(40, sim.LongLived()), (10, sim.FiniteTransfers(size=20))]
    senders = {"reno": (sim.Reno(initial_window=2), False), "newreno-ecn": (sim.NewReno(ecn=True, **ECN_TCP), True),
               "sdc-0.2": (sim.SDC(max_delay=0.2, **ECN_TCP), True), "sdc-2": (sim.SDC(max_delay=2.0, **ECN_TCP), True),
               "rdc-2": (sim.RDC(max_delay=2.0, **ECN_TCP), True)}
    out = {}
    for name, (sender, ecn) in senders.items():
        runs = sim.simulate(hsiao(sender, workload=workload, ecn=ecn), seeds=SEEDS)
        out[name] = dict(window=np.mean([r.flow_window[:40].mean() for r in runs]),
                         timeouts=np.mean([r.flow_timeouts.sum() for r in runs]),
                         median=np.mean([np.median(r.transfers.delay) for r in runs]))
    # Measured (94e94b5, seeds 0-3): long flows' window Reno 2.96, NewReno+ECN+LT
    # 2.09, SDC 0.2 s 3.84, SDC 2 s 5.97; time-outs (all 50 flows, 100 s) 1809,
    # 33, 300, 36; median 20-packet transfer 5.4, 5.8, 5.5, 2.9 s (3819adb: SDC
    # 2 s 5.96; 1815 and 38 time-outs; medians 5.6 and 3.0 s for Reno and SDC 2 s).
    # The paper (Figs. 4, 7-9, b = 100): TCP below 3, SDC above 4 at 0.2 s
    # (here 3.84, -4 %) and 7 at 2 s (here 5.97, -15 %); SDC with fewer
    # time-outs than TCP (here: than Reno, x50 fewer; as few as NewReno with
    # ECN, which the simulator spares nearly all time-outs where the paper's
    # Reno with ECN is "not much better than TCP Reno" at this buffer); SDC's
    # median transfer shorter than TCP's (here 2.9 against 5.4-5.8 s).
    assert out["newreno-ecn"]["window"] < 3.0
    assert out["sdc-0.2"]["window"] > out["newreno-ecn"]["window"] + 0.8
    assert out["sdc-2"]["window"] > 5.0
    assert out["sdc-2"]["timeouts"] < out["reno"]["timeouts"] / 10
    assert out["sdc-2"]["timeouts"] < 1.5 * out["newreno-ecn"]["timeouts"]
    assert out["sdc-2"]["median"] < 0.7 * min(out["reno"]["median"], out["newreno-ecn"]["median"])
    # The receiver-based variant (the paper describes it, shows no numbers): measured
    # window 6.6, 36 time-outs, median transfer 3.7 s (seeds 0-3; 3819adb and 94e94b5): like SDC.
    assert out["rdc-2"]["window"] > 5.0 and out["rdc-2"]["timeouts"] < out["reno"]["timeouts"] / 10


# --- Kamra, Misra & Towsley: TCP/E on an OC-48 link ---------------------------------------------------------------

# Sec. 3's buffer: "32 Megabits (so a peak delay of 50 ms can be added by the
# buffer)".  The two disagree at 2.4 Gbit/s: 32 Mbit is 4000 packets of 1000
# bytes, 13.3 ms; 50 ms is 15 000 packets (120 Mbit).  Both are run: the stated
# size, and the size the stated delay gives (the one the paper's utilization
# figures agree with, below).
OC48 = 4000  # 32 Mbit
OC48_50MS = 15_000  # 50 ms


def marks(buffer):
    """RED-I (ECN) on ``buffer`` packets; thresholds (not in the paper) an eighth to three quarters, p up to 1."""
    return dict(min_th=buffer / 8, max_th=3 * buffer / 4, max_p=1.0, buffer=buffer, ecn=True)


def oc48(sender, queue, n_flows=1, seed=0, duration=60.0, warmup=20.0, start_spread=0.0):
    """Sec. 3: 2.4 Gbit/s, 60 ms round trip, 1000-byte packets; windows not capped by 64 KB."""
    return sim.Scenario(n_flows=n_flows, bandwidth=2.4e9, rtt=0.06, rtt_spread=0.0, packet_size=1000, queue=queue,
                        sender=sender, duration=duration, warmup=warmup, start_spread=start_spread, seed=seed)


BIG = 100_000  # packets: above the 22 000 the path holds


def test_kamra_fig_1_one_tcpe_flow_keeps_the_oc48_link_busy_where_hstcp_and_standard_tcp_do_not():
    def utilization(sender, buffer, seeds=(0,)):
        return [r.utilization for r in sim.simulate([oc48(sender, sim.REDI(**marks(buffer)), seed=s) for s in seeds])]
    tcpe = utilization(sim.TCPE(max_window=BIG), OC48_50MS, range(4))
    hstcp = utilization(sim.HighSpeed(max_window=BIG, ecn=True), OC48_50MS)[0]
    newreno = utilization(sim.NewReno(max_window=BIG, ecn=True, sack=True, recovery="rfc6675"), OC48_50MS)[0]
    stated_tcpe = utilization(sim.TCPE(max_window=BIG), OC48, range(2))
    stated_hstcp = utilization(sim.HighSpeed(max_window=BIG, ecn=True), OC48)[0]
    # Measured, 40 s after a 20 s warm-up, each sender alone (Fig. 1's separate
    # experiments), a step's ACKs spread over their service time (3819adb; the same on 94e94b5).  The
    # 50 ms buffer: TCP/E 1.000 in seeds 0-3, HighSpeed with ECN 0.978, NewReno
    # with ECN 0.49 (over 280 s, an earlier engine: 1.000, 0.980, 0.55).  The
    # paper (Fig. 1): TCP/E "at a sustained rate equal to the link capacity", the
    # other variants below -- reproduced.  The stated 32 Mbit buffer (0.22 BDP):
    # TCP/E 0.59, 0.59, 0.63, 0.53 (seeds 0-3; bb89f7d 0.50, 0.48, 0.57, 0.51),
    # below HighSpeed's 0.66 (bb89f7d 0.68), NewReno 0.16: not the paper's.  Each
    # halving puts TCP/E back in slow start, a train at the link rate that grows
    # the queue one packet per ACK and fills 3000 packets within the round trip
    # before the first echo can freeze the window (an earlier engine: 100-140
    # loss events in 40 s).  (With a step's ACKs
    # bunched, 1.00, 0.46, 0.89, 1.00 came out here: ACKs returning up to 3.2x
    # faster than the link serves them diluted those trains.)
    assert min(tcpe) > 0.99 and hstcp < min(tcpe) - 0.01 and newreno < 0.7
    assert max(stated_tcpe) < stated_hstcp  # the stated buffer's disagreement, recorded


def test_kamra_figs_3_10_11_three_tcpe_flows_are_unfair_under_red_and_fair_and_fast_under_choke_red_i():
    # The 50 ms buffer; three flows started within 20 s, 100 s measured after 50 s.
    def run(queue, seeds):
        return sim.simulate([oc48(sim.TCPE(max_window=BIG), queue, n_flows=3, seed=s, duration=150.0, warmup=50.0,
                                  start_spread=20.0) for s in seeds])
    red = run(sim.RED(**marks(OC48_50MS)), [0])[0]
    choke = run(sim.CHOKeI(**marks(OC48_50MS)), [0, 1])
    # Measured (seeds 0-3, 3819adb; the same on 94e94b5): under RED, utilization 1.00 and Jain
    # 0.334-0.338, no loss event, the first flow holding the link (the paper's
    # "temporal unfairness": the later flows' ACKs all echo marks); under
    # CHOKe/RED-I utilization 0.989-0.992 and Jain 0.98, 0.99, 0.99, 0.99
    # (bb89f7d: 125-152 loss events: one match drop a second, then the
    # slow-start re-entries it sets off).  The paper (Figs. 3, 10, 11): unfair
    # under RED, fair under CHOKe/RED-I, both near full utilization: reproduced.
    # With the stated 32 Mbit buffer fairness holds but CHOKe/RED-I's
    # utilization is about half: each slow-start re-entry overshoots a buffer of
    # 0.22 BDP within the round trip its first echo takes (see Fig. 1 above).
    # Bounds: a margin of about 0.1 on every measured seed.
    assert red.utilization > 0.95 and red.jain_index < 0.5
    assert min(r.jain_index for r in choke) > 0.88 and min(r.utilization for r in choke) > 0.9


def test_kamra_sec_2_bernoulli_mark_drops_make_three_tcpe_flows_fair_on_red_i():
    # Sec. 2: "If we simply introduce Bernoulli losses as part of the AQM (e.g., with a
    # small probability an ECN mark is replaced by a packet drop), then flows with a
    # higher share of the bandwidth will receive more losses" and the bandwidth is
    # shared fairly over time.  The probability is not in the paper: 1e-5 of some
    # 1e5 marks a second is about one drop a second, CHOKe/RED-I's one test a
    # second (the same loss budget as the test above, not a value fitted here).
    def run(mark_drop):
        return sim.simulate(oc48(sim.TCPE(max_window=BIG), sim.REDI(mark_drop=mark_drop, **marks(OC48_50MS)),
                                 n_flows=3, duration=150.0, warmup=50.0, start_spread=20.0))
    plain, bernoulli = run(0.0), run(1e-5)
    # Measured (seeds 0-3, 94e94b5): RED-I alone utilization 1.00, Jain
    # 0.334-0.338 (the first flow holds the link); with the mark drops
    # utilization 0.974-0.984, Jain 0.93-0.99 (247-336 loss events; 3819adb
    # 0.974-0.979, 0.94-0.98, 307-341; bb89f7d 0.977-0.980, 0.95-1.00).  "Fairness comes at the expense of loss in
    # utilization" (Sec. 2): 2-3 %, which TCP/E's slow-start re-entry mostly wins
    # back.  Bounds: a margin of 0.05-0.1 on every measured seed.
    assert plain.jain_index < 0.5 and plain.utilization > 0.95
    assert bernoulli.jain_index > 0.88 and bernoulli.utilization > 0.9
