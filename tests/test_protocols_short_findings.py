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
    # Measured (ppf 1, 3, 5, 7), against the thesis' Fig. 7.2:
    #   std of delay  1.75 1.22 1.01 0.74 s   thesis 3.5 1.9 1.3 0.9   (-50 % -36 % -22 % -18 %)
    #   loss          2.20 0.90 0.58 0.29 %   thesis 7.3 2.4 0.9 0.4   (-70 % -63 % -36 % -27 %)
    #   mean delay    4.77 4.69 4.66 4.64 s   thesis 4.6 (all)         (+4 % +2 % +1 % +1 %)
    #   median delay  3.69 4.19 4.32 4.46 s   thesis 3.5 3.7 4.2 4.5   (+5 % +13 % +3 % -1 %)
    #   queue          637  788  827  869     thesis 270 890 1120 1210
    # The trend is the thesis': fewer time-outs and less spread as FPQ buffers
    # more per flow, an unchanged mean (Little's law: 500 x 20 packets over
    # the link's rate, 4.6 s), a median rising towards it.  At ppf 1 the
    # simulator keeps a longer queue (637 against 270 packets) and so loses and
    # times out less (its FPQ counts 453 of the 500 sources, measured over the
    # trace); the thesis' 270 packets are below FPQ's own one-packet-per-flow
    # target, and the text does not say why its queue stayed that short.
    assert (np.diff(std) < 0).all() and (np.diff(loss) < 0).all() and (np.diff(median) > 0).all()
    # The mean is the link's arithmetic; 10 % covers the handshake's round trip
    # (0.1-0.6 s of a 4.6 s transfer) and the transfers open at the interval's ends.
    assert mean == pytest.approx(table["avg_delay"], rel=0.10)
    # The spread and loss: within a factor 2.5 and 4 of the thesis' (the
    # largest gaps measured, at ppf 1: x0.50 and x0.30), the same order.
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
    # Measured (200 s runs, N = 100, 300, 500, 700): FPQ 1.21 1.65 1.78 1.85,
    # RED217 1.20 4.04 6.46 9.40.  The thesis' Fig. 7.11 has the same shape: equal
    # where too few flows fill the link, then RED217 above FPQ, the gap widening
    # with the load (its values are not in the text).
    assert fpq[0] == pytest.approx(red[0], rel=0.15)  # 150 s: ~250 transfers of 20 packets each
    assert (fpq[1:] < red[1:]).all()
    assert red[-1] - fpq[-1] > red[1] - fpq[1]
    assert (fpq < 2.5).all()  # FPQ: every transfer meets the same queue (within 2.5x: measured 1.2-1.9)


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
    # Measured: windows 2.12, 2.68, 3.31 packets.
    # The paper: "less than three" at 100 ms and "about four" at 500 ms (Sec.
    # III.B; the path holds 118 and 193 packets for 50 flows, 2.4 and 3.9
    # each); the simulator's 3.3 at 500 ms is 17 % below: RED holds the
    # average queue near its lower thresholds, not the full 100 packets.
    assert window[0] < 3.0 and np.all(np.diff(window) > 0)
    assert window[-1] > 2.8
    # Fig. 3's other half, fewer time-outs at the longer RTT, is not reproduced
    # robustly.  Time-outs per run at 100 and 500 ms, seeds 0-11 (means of
    # seeds 0-3, 4-7, 8-11): with each scenario's own streams and RTT sample
    # interval 32/33, 31/31.75, 28.25/24 (all 12: 30.4/29.6); with the batch's
    # one generator and one sample interval for the batch (its mean RTT's)
    # 32.5/29, 32.75/29, 34.25/25.25 (33.2/27.8).  The seed-to-seed spread
    # (18-40 a run) is larger than the effect.


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
    # Measured (6 seeds): long flows' window Reno 2.95, NewReno+ECN+LT 2.11, SDC
    # 0.2 s 3.83, SDC 2 s 5.99; time-outs (all 50 flows, 100 s) 1677, 31, 291,
    # 35; median 20-packet transfer 5.3, 5.7, 5.4, 2.9 s.
    # The paper (Figs. 4, 7-9, b = 100): TCP below 3, SDC above 4 at 0.2 s
    # (here 3.83, -4 %) and 7 at 2 s (here 5.99, -14 %); SDC with fewer
    # time-outs than TCP (here: than Reno, x48 fewer; as few as NewReno with
    # ECN, which the simulator spares nearly all time-outs where the paper's
    # Reno with ECN is "not much better than TCP Reno" at this buffer); SDC's
    # median transfer shorter than TCP's (here 2.9 against 5.3-5.7 s).
    assert out["newreno-ecn"]["window"] < 3.0
    assert out["sdc-0.2"]["window"] > out["newreno-ecn"]["window"] + 0.8
    assert out["sdc-2"]["window"] > 5.0
    assert out["sdc-2"]["timeouts"] < out["reno"]["timeouts"] / 10
    assert out["sdc-2"]["timeouts"] < 1.5 * out["newreno-ecn"]["timeouts"]
    assert out["sdc-2"]["median"] < 0.7 * min(out["reno"]["median"], out["newreno-ecn"]["median"])
    # The receiver-based variant (the paper describes it, shows no numbers): measured
    # window 6.6, 33 time-outs, median transfer 3.9 s (4 seeds): like SDC.
    assert out["rdc-2"]["window"] > 5.0 and out["rdc-2"]["timeouts"] < out["reno"]["timeouts"] / 10


# --- Kamra, Misra & Towsley: TCP/E on an OC-48 link ---------------------------------------------------------------

OC48 = 4000  # 32 Mbit of 1000-byte packets (Sec. 3)
# RED-I's thresholds are not in the paper: marking from an eighth to three quarters of the buffer, up to p = 1.
MARKS = dict(min_th=OC48 / 8, max_th=3 * OC48 / 4, max_p=1.0, buffer=OC48, ecn=True)


def oc48(sender, queue, n_flows=1, seed=0, duration=60.0, warmup=20.0, start_spread=0.0):
    """Sec. 3: 2.4 Gbit/s, 60 ms round trip, 1000-byte packets; windows not capped by 64 KB."""
    return sim.Scenario(n_flows=n_flows, bandwidth=2.4e9, rtt=0.06, rtt_spread=0.0, packet_size=1000, queue=queue,
                        sender=sender, duration=duration, warmup=warmup, start_spread=start_spread, seed=seed)


BIG = 100_000  # packets: above the 22 000 the path holds


def test_kamra_fig_1_one_tcpe_flow_keeps_the_oc48_link_busy_where_newreno_does_not():
    tcpe = [sim.simulate(oc48(sim.TCPE(max_window=BIG), sim.REDI(**MARKS), seed=s)).utilization for s in range(4)]
    ecn = sim.simulate(oc48(sim.NewReno(max_window=BIG, ecn=True, sack=True), sim.REDI(**MARKS))).utilization
    plain = sim.simulate(oc48(sim.NewReno(max_window=BIG, sack=True), sim.REDI(**MARKS))).utilization
    # Measured (a step's survivors' ACKs spread over their service time):
    # TCP/E 0.57, 0.60, 0.55, 0.43 (seeds 0-3, mean 0.54; seeds 4-11 0.49,
    # 0.55, 0.42, 0.47, 0.42, 0.48, 0.55, 0.58: four-seed means 0.48, 0.51);
    # NewReno with ECN 0.17, without 0.16 (one slow-start overshoot, then +1/2
    # packet per RTT towards an 18 000-packet BDP): 2.8-3.2x.  The paper (Fig. 1):
    # TCP/E "at a sustained rate equal to the link capacity" -- not reproduced,
    # and the 1.00 the bunched ACKs gave some seeds (0.37, 1.00, 0.81, 0.68 for
    # seeds 0-3) was their artefact: those ACKs came back up to 3.2x faster
    # than the link serves (4857 in a 5 ms step of 1500), which diluted TCP/E's
    # slow-start bursts.  ACKed at the link's rate, a slow start re-entered
    # after a halving (window ~9000, a train at the link rate) grows the queue
    # by one packet per ACK and reaches max_th (3000) within the round, an RTT
    # before the first mark's echo can freeze the window: 100-140 loss events
    # in 40 s on every seed.  With the OnAck rule's lastECNtime taken at the
    # last marked ACK (the engine takes it once per echo firing, so TCP/E
    # re-enters slow start once a round trip while still marked): 0.48-0.58
    # with the spread, 0.42-0.50 bunched (seeds 0-3); at a 1.25 ms step
    # 0.51-0.53 with the spread, 0.33, 0.92, 0.33 bunched (seeds 0-2).
    assert np.mean(tcpe) > 0.4 and max(tcpe) > 0.5
    assert np.mean(tcpe) > 2.5 * max(ecn, plain)


def test_kamra_figs_10_11_three_tcpe_flows_are_fairer_under_choke_red_i_than_under_red():
    runs = {name: [sim.simulate(oc48(sim.TCPE(max_window=BIG), queue, n_flows=3, seed=s, duration=200.0,
                                     warmup=50.0, start_spread=20.0)) for s in range(6)]
            for name, queue in (("red", sim.RED(**MARKS)), ("choke", sim.CHOKeI(**MARKS)))}
    jain = {k: np.array([r.jain_index for r in v]) for k, v in runs.items()}
    utilization = {k: np.array([r.utilization for r in v]) for k, v in runs.items()}
    # Measured (seeds 0-5): Jain under RED 1.00, 0.53, 1.00, 0.96, 0.89, 1.00
    # (the flows that started first keep more, in some runs), under
    # CHOKe/RED-I 0.96, 0.92, 0.98, 1.00, 0.97, 0.92; utilization RED 0.43,
    # 0.74, 0.67, 0.46, 0.64, 0.42 (mean 0.56), CHOKe/RED-I 0.62, 0.49, 0.56,
    # 0.52, 0.52, 0.57 (0.55).  The paper (Figs. 3, 10, 11): unfair under RED,
    # fair under CHOKe/RED-I, both near full utilization.  The fairness is
    # reproduced; the utilization is about half the paper's under both: 500-1040
    # loss events in 150 s, from TCP/E's slow-start re-entries overshooting the
    # 0.22-BDP buffer after each halving (see Fig. 1 above; with a step's ACKs
    # bunched RED's was 0.90-0.96, by the artefact described there).  The
    # bound: a six-seed mean spreads by about 0.13 / sqrt(6) = 0.05; two of them.
    assert jain["choke"].min() > 0.9 and jain["choke"].mean() > jain["red"].mean()
    assert jain["red"].min() < 0.85
    assert utilization["red"].mean() > 0.45
    assert utilization["choke"].mean() > 0.4
