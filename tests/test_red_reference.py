"""Each RED model against the packet-level (ns-3) reference, wait=0 rows (data/README.md).

These tests are the record of which formula to trust where: every model's
signed error on loss and queue is computed for every row, the extension P3 is
held to the issue's 20 %, and the thesis' own models are held to the errors
they are known to make, so a change that silently moves them is caught.
"""

import numpy as np
import pytest

from tcpmodels import data, red, units

CAP = units.capacity(10e6, 576)
RTT = 0.010  # reference: mean of RTTs uniform on [8, 12] ms


def errors(rows, model):
    e = red.equilibrium(rows["flows"], rows["max_th"], rows["max_p"], model=model, rtt=RTT, capacity=CAP)
    return e.loss_rate / rows["drop_rate"] - 1, e.queue / rows["avg_queue"] - 1


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_p3_within_20_percent_everywhere(reference_rows):
    # Issue #2: the best model within 20 % on loss and queue over the whole range.
    # Measured: loss within 17.4 %, queue within 13.6 % (18 rows, 10-300 flows,
    # max_p 0.005-0.08, max_th 100-2000).
    loss_err, queue_err = errors(reference_rows, "P3")
    assert np.abs(loss_err).max() < 0.20, loss_err
    assert np.abs(queue_err).max() < 0.20, queue_err


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_thesis_models_errors_recorded(reference_rows):
    flows = reference_rows["flows"]
    heavy = (flows >= 100) & (reference_rows["max_th"] == 500) & (reference_rows["max_p"] == 0.02)
    # P2 (Eq. 5.14) under-estimates loss by 39-76 % at 100-300 flows (measured
    # -0.39, -0.48, -0.63, -0.76): it ignores the queueing delay in the RTT.
    loss2, queue2 = errors(reference_rows, "P2")
    assert np.all(loss2[heavy] < -0.35) and loss2[heavy].min() < -0.7
    # P1 (Eq. 5.12/5.13) over-estimates the queue, most where RED saturates
    # (measured +85 % at 300 flows and +169 % at max_th=100).
    loss1, queue1 = errors(reference_rows, "P1")
    assert queue1.max() > 1.5
    # P3 is the best model on loss on every row but two, where a thesis form
    # lands closer by chance: 10 flows (P2 -5 % against P3 +11 %) and 200
    # flows (P1 -3 % against P3 -5 %, P1's neglected wire and time-outs cancelling).
    loss3, queue3 = errors(reference_rows, "P3")
    best = np.abs(loss3) <= np.minimum(np.abs(loss1), np.abs(loss2))
    assert best.sum() >= len(flows) - 2


def more_rows(sweep):
    rows = data.table("ns3_more_10ms")
    keep = rows["sweep"] == sweep
    return {k: v[keep] for k, v in rows.items() if k not in ("sweep", "queue")}


@pytest.mark.parametrize("sweep,kw", [("red_gentle_10ms", {"gentle": True}), ("red_ecn_10ms", {"ecn": True})])
def test_gentle_and_ecn_within_20_percent(sweep, kw):
    # Issue 16: within 20 % on loss (drops plus marks: the reference's drop_rate) and on queue.
    # Measured, gentle N = 50, 150, 300: signal +1 -2 -3 %, queue +0 -2 -3 %;
    # ECN N = 20, 70, 150, 300: signal +17 +16 +5 -16 %, queue +14 +16 +6 +1 %, marks +17 +16 +6 +11 %.
    rows = more_rows(sweep)
    e = red.equilibrium(rows["flows"], rows["max_th"], rows["max_p"], rtt=RTT, capacity=CAP, limit=rows["limit"],
                        **kw)
    signal_err = (e.loss_rate + e.mark_rate) / rows["drop_rate"] - 1
    queue_err = e.queue / rows["avg_queue"] - 1
    assert np.abs(signal_err).max() < 0.20, signal_err
    assert np.abs(queue_err).max() < 0.20, queue_err
    if kw.get("ecn"):
        np.testing.assert_allclose(e.mark_rate, rows["mark_rate"], rtol=0.2)
        quiet = rows["drop_rate"] == rows["mark_rate"]  # the reference drops nothing at 20 and 70 flows
        assert np.all(e.loss_rate[quiet] == 0) and np.all(e.timeouts_per_packet[quiet] == 0)
        # at 300 flows the queue saturates and drops 0.085 of arrivals; P3 says 0.062 (-27 %)
        assert e.saturated[-1] and e.loss_rate[-1] == pytest.approx(rows["drop_rate"][-1] - rows["mark_rate"][-1],
                                                                    rel=0.3)


def test_reference_timeout_fraction_is_not_eq_5_4():
    # The reference's timeout_fraction is the flow-time from each RTO until recovery completes; Eq. 5.4
    # (Equilibrium.timeout_fraction) is one rto of idling per time-out, before it.  Per time-out the
    # reference spends timeout_fraction / (timeouts_per_packet * C / n): measured 0.06-1.02 s on the
    # RED rows and 0.22-0.95 s on the other file, mostly below the senders' 1 s minimum RTO, so the
    # wait itself is not in it.  The comparable quantity is the time-out rate: timeouts_per_packet,
    # defined alike in both (time-outs / data packets sent); the fractions compare only up to the ratio
    # of those durations, which the model does not predict.
    for name in ("ns3_red_10ms", "ns3_more_10ms"):
        rows = data.table(name)
        some = rows["timeouts_per_packet"] > 0
        spent = rows["timeout_fraction"][some] / (rows["timeouts_per_packet"][some] * CAP / rows["flows"][some])
        assert spent.min() < 0.25 and np.median(spent) < 1.0, (name, spent)


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")
def test_timeouts_against_the_reference(reference_rows):
    # Issue 16: time-out predictions against the reference on every row where it is above 1e-3.
    # Measured model / reference, per packet (7 rows) and fraction of time (16 rows):
    #   P1  per packet 1.9-12.8x,  fraction 6-322x   (Tahoe's 13 and the 10 ms propagation round trip)
    #   P2  per packet 0.30-2.1x,  fraction 5-246x
    #   P3  per packet 0.90-2.3x,  fraction 0.99-19x (Eq. 5.4 counts a 1 s wait the reference does not)
    # Gentle (P3, 3 rows): per packet 1.3-1.9x, fraction 1.5-7x; ECN at 300 flows: 0.45x and 0.47x.
    bounds = {"P1": (13.0, 330.0), "P2": (3.5, 250.0), "P3": (2.5, 20.0)}
    rows = reference_rows
    for model, (per_packet, fraction) in bounds.items():
        e = red.equilibrium(rows["flows"], rows["max_th"], rows["max_p"], model=model, rtt=RTT, capacity=CAP)
        for predicted, column, factor in ((e.timeouts_per_packet, "timeouts_per_packet", per_packet),
                                          (e.timeout_fraction, "timeout_fraction", fraction)):
            busy = rows[column] > 1e-3
            ratio = predicted[busy] / rows[column][busy]
            assert np.all((ratio > 1 / factor) & (ratio < factor)), (model, column, ratio)
    gentle = more_rows("red_gentle_10ms")
    e = red.equilibrium(gentle["flows"], gentle["max_th"], gentle["max_p"], rtt=RTT, capacity=CAP, gentle=True)
    ratio = e.timeouts_per_packet / gentle["timeouts_per_packet"]
    assert np.all((ratio > 1) & (ratio < 2))
