"""Each RED model against the packet-level (ns-3) reference, wait=0 rows (data/README.md).

These tests are the record of which formula to trust where: every model's
signed error on loss and queue is computed for every row, the extension P3 is
held to the issue's 20 %, and the thesis' own models are held to the errors
they are known to make, so a change that silently moves them is caught.
"""

import numpy as np
import pytest

from tcpmodels import red, units

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
