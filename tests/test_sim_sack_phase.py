"""SACK blocks move a flow's phase at a drop-tail buffer (RFC 2018; issue 12).

An ACK that the receiver sends above a hole carries a SACK block per run of
data it holds there, 8 bytes each and 2 more, padded to 4.  Where the flow's
access link is slow, those bytes delay the ACK by a sizable part of the
bottleneck's packet service time, and so the packets it releases: a flow in
recovery reaches the buffer at a phase of its own, and no flow keeps the
place just after a departure for good (``queues._DropTail``).
"""

import dataclasses

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim.ackring import MAX_SACK_BLOCKS, AckRing
from tcpmodels.sim.draws import Draws
from tcpmodels.sim.queues import make_queue, sack_option_bytes

FLOWS = np.arange(2)


def _ring(sack=(True, True), delayed=True):
    ring = AckRing(20, 2, float, np.ones(2, dtype=bool) if delayed else None, hold_steps=10.0, sack=np.array(sack))
    ring.take(0)
    return ring


def _send(ring, k, packets, repaired=None):
    """Step ``k``: the blocks of the ACKs it takes; both flows deliver ``packets`` (after ``repaired``)."""
    ring.take(k)
    blocks = ring.blocks.tolist()
    if repaired is not None:
        ring.repaired(FLOWS, np.asarray(repaired, dtype=float))
    ring.insert(FLOWS, np.full(2, float(packets)), np.full(2, 2.0), np.zeros(2), np.zeros(2))  # (ACKs 2 steps on)
    return blocks


@pytest.mark.parametrize("delayed", [True, False])
def test_acks_sent_above_holes_carry_a_block_per_covered_hole_until_the_last_is_filled(delayed):
    ring = _ring(delayed=delayed)
    ring.lost(np.array([1]), np.array([2.0]))  # flow 1: two holes, the step's survivors above them
    got = [_send(ring, 1, 3), _send(ring, 2, 2, repaired=[0.0, 1.0]),  # one hole filled, one below the data
           _send(ring, 3, 2, repaired=[0.0, 1.0]),  # the last filled: its ACK and the next carry none
           _send(ring, 4, 2), _send(ring, 5, 2)]
    assert got == [[0, 0], [0, 0], [0, 2], [0, 1], [0, 0]]


def test_blocks_stop_at_four_and_only_sack_receivers_send_them():
    ring = _ring(sack=(True, False))
    ring.lost(FLOWS, np.array([6.0, 6.0]))
    _send(ring, 1, 2)
    _send(ring, 2, 0)
    assert _send(ring, 3, 0) == [MAX_SACK_BLOCKS, 0]
    ring = _ring(sack=(True, False))  # (holes at the receiver that sends no blocks alone)
    ring.lost(np.array([1]), np.array([2.0]))
    _send(ring, 1, 2)
    _send(ring, 2, 0)
    assert _send(ring, 3, 0) == [0, 0]


def test_a_time_out_forgets_the_blocks_of_the_acks_it_forgets():
    ring = _ring()
    ring.lost(FLOWS, np.ones(2))
    _send(ring, 1, 2)
    ring.forget(np.array([0]))
    _send(ring, 2, 0)
    assert _send(ring, 3, 0) == [0, 1]


def test_an_option_delays_the_ack_by_its_bytes_on_the_access_link_and_the_bottleneck():
    # RFC 2018 3: 2 bytes and 8 a block, padded to 4 (ns-3 pads with NOPs): 12, 20, 28, 36 bytes.
    assert sack_option_bytes(np.arange(5)).tolist() == [0, 12, 20, 28, 36]
    # 576-byte packets at 10 Mbit/s behind a 1 Mbit/s access link: a byte takes 1/576 of the service time
    # on the bottleneck and 10/576 on the access link, so one block 12 * 11 / 576 = 0.229 service times.
    scenario = sim.Scenario(n_flows=3, bandwidth=10e6, rtt=0.02, packet_size=576, access_rate=1e6,
                            queue=sim.DropTail(buffer=50), sender=sim.NewReno(sack=True), duration=5.0, warmup=1.0)
    queue = make_queue([scenario], Draws([1], 3, [3]))
    assert queue.ack_options.tolist() == [True] * 3
    assert 12 * queue.per_byte[0] == pytest.approx(12 * 11 / 576)
    # Nobody reads blocks that no receiver sends, nor where no phase is followed.
    for other in (sim.NewReno(sack=False), sim.Tahoe()):
        assert make_queue([dataclasses.replace(scenario, sender=other)], Draws([1], 3, [3])).ack_options is None
    plain = dataclasses.replace(scenario, queue=sim.DropTail(buffer=50, phase_effect=False))
    assert make_queue([plain], Draws([1], 3, [3])).ack_options is None
