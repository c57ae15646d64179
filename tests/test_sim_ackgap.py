"""The receiver ACKs at once every packet above a hole and the one that fills it (RFC 5681 4.2; issue 12)."""

import numpy as np

from tcpmodels.sim.ackring import AckRing

FLOWS = np.arange(2)


def _ring():
    # Two flows whose receivers delay their ACKs; a 10-step timer.
    ring = AckRing(20, 2, float, np.ones(2, dtype=bool), hold_steps=10.0)
    ring.take(0)
    return ring


def _step(ring, k, packets, repaired=None):
    """Step ``k``: both flows deliver ``packets`` each (after ``repaired`` retransmissions); the ACKs sent at once."""
    ring.take(k)
    if repaired is not None:  # (the engine's order: the step's ACKs, sending, then the receivers)
        ring.repaired(FLOWS, repaired)
    before = ring.rows2.sum(axis=0).copy()
    ring.insert(FLOWS, np.full(2, float(packets)), np.full(2, 2.0), np.zeros(2), np.zeros(2))
    return ring.rows2.sum(axis=0) - before


def test_an_odd_packet_waits_without_a_hole_and_goes_at_once_above_one():
    ring = _ring()
    ring.lost(np.array([1]), np.array([1.0]))
    sent = _step(ring, 1, 3)
    # Flow 0: three packets, two ACKed, one held for the next; flow 1 (a hole): all three.
    assert list(sent) == [2.0, 3.0] and list(ring.held) == [1.0, 0.0]
    # While the hole stays open, a lone packet is ACKed at once.
    assert list(_step(ring, 2, 1)) == [2.0, 1.0]


def test_the_packet_that_fills_the_hole_is_acked_at_once_and_then_acks_are_delayed_again():
    ring = _ring()
    ring.lost(FLOWS, np.array([1.0, 2.0]))
    _step(ring, 1, 2)
    # Flow 0's only hole filled, flow 1 keeps one: the filling packet's ACK goes at once too.
    assert list(_step(ring, 2, 1, repaired=np.ones(2))) == [1.0, 1.0]
    assert list(ring.holes) == [0.0, 1.0]
    assert list(_step(ring, 3, 1)) == [0.0, 1.0]  # flow 0 delays again
    assert list(ring.held) == [1.0, 0.0]


def test_a_dropped_retransmission_keeps_its_hole_and_go_back_n_closes_them():
    ring = _ring()
    ring.lost(FLOWS, np.ones(2))
    ring.take(1)
    ring.repaired(FLOWS, np.ones(2))
    ring.lost(np.array([0]), np.array([1.0]))  # flow 0's retransmission dropped
    assert list(ring.holes) == [1.0, 0.0]
    ring.forget(np.array([0]))
    assert list(ring.holes) == [0.0, 0.0]


def test_without_delayed_acks_no_receiver_bookkeeping():
    ring = AckRing(20, 2, float)
    ring.lost(FLOWS, np.ones(2))
    assert not ring.holes.any()
