"""The receiver's delayed ACKs: at once for every packet above a hole and the one that fills it, by its timer
for a packet held longer (RFC 5681 4.2, RFC 1122 4.2.3.2; issue 12)."""

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim.ackring import AckRing
from tcpmodels.sim.engine import _Engine
from tcpmodels.sim.flows import OPEN

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


def test_a_restart_s_first_packet_is_acked_at_once_only_where_data_lies_above_the_hole():
    # A time-out's go-back-N: both receivers have holes; flow 1's got packets
    # above its holes, flow 0's lost its window's last packets (nothing above).
    # The retransmission that fills flow 1's first hole is ACKed at once (RFC
    # 5681 4.2, ns-3's ReceivedData: it fills a gap), not held for the timer;
    # flow 0's fills its hole in order, and its ACK is delayed as any lone
    # packet's is.  Only the restart's first step: then the ACKs are delayed again.
    ring = _ring()
    ring.lost(FLOWS, np.array([1.0, 2.0]))
    ring.first_lost(np.array([0]), np.array([1.0]), np.array([0.0]))  # flow 0: the drop behind the step's packets
    ring.insert(FLOWS, np.array([2.0, 2.0]), np.full(2, 2.0), np.zeros(2), np.zeros(2))
    assert list(ring.covered) == [0.0, 2.0]
    ring.forget(FLOWS, restart=True)
    assert list(ring.holes) == [0.0, 0.0] and not ring.covered.any()
    assert list(_step(ring, 1, 1)) == [0.0, 1.0]
    assert list(_step(ring, 2, 1)) == [2.0, 0.0] and list(ring.held) == [0.0, 1.0]  # flow 0 pairs, flow 1 holds


def test_holes_are_covered_by_later_packets_and_filled_from_the_first():
    ring = _ring()
    ring.lost(FLOWS, np.array([2.0, 1.0]))
    _step(ring, 1, 1)
    assert list(ring.covered) == [2.0, 1.0]
    ring.lost(FLOWS, np.ones(2))  # a later hole, nothing above it yet
    ring.take(2)
    ring.repaired(FLOWS, np.array([1.0, 1.0]))  # the first hole of each filled
    assert list(ring.covered) == [1.0, 0.0] and list(ring.holes) == [2.0, 1.0]


def test_a_scoreboard_restart_refills_each_covered_hole_with_an_ack_of_its_own():
    # A SACK sender that keeps its scoreboard across the time-out resends only
    # the holes (RFC 6675 5.1, Errata 1610; ns-3's SetSentListLost): the two
    # covered ones are ACKed at once, one ACK each, and each grows the window
    # by a whole ACK's (a lone ACK, counted twice: AckRing._refill); the
    # third hole, at the window's end, is filled in order.  Go-back-N refills
    # only the first.
    for sack, refilled in ((True, 2.0), (False, 1.0)):
        ring = _ring()
        ring.lost(FLOWS, np.array([2.0, 0.0]))
        _step(ring, 1, 1)
        ring.lost(FLOWS, np.array([1.0, 0.0]))
        ring.forget(FLOWS, restart=True, sack=sack)
        assert list(ring.refills) == [refilled, 0.0]
        sent = _step(ring, 2, 4)
        assert list(sent) == [4.0, 4.0]  # flow 0's step follows its refills: ACKed at once with them
        ring.take(4)  # the ACKs come back two steps later: so do the refills' own
        assert ring.lone is not None and list(ring.lone[1]) == [refilled] and list(ring.lone[0]) == [0]


def test_without_delayed_acks_no_receiver_bookkeeping():
    ring = AckRing(20, 2, float)
    ring.lost(FLOWS, np.ones(2))
    assert not ring.holes.any()


def _deliver(ring, k, packets, lost=None, behind=None):
    """Step ``k``: the flows deliver ``packets`` (after losing ``lost``, ``behind`` survivors after the first)."""
    ring.take(k)
    if lost is not None:  # (the engine's order: the queue's drops, then the sender places them)
        ring.lost(FLOWS, lost)
        ring.first_lost(FLOWS, lost, behind)
    before = ring.rows2.sum(axis=0).copy()
    ring.insert(FLOWS, np.asarray(packets, dtype=float), np.full(2, 2.0), np.zeros(2), np.zeros(2))
    return ring.rows2.sum(axis=0) - before


def test_a_hole_with_nothing_above_it_yet_leaves_the_held_ack_held():
    ring = _ring()
    _deliver(ring, 1, [1, 1])
    assert list(ring.held) == [1.0, 1.0]
    # Flow 0's only packet of the step is lost: its receiver got nothing and keeps holding;
    # flow 1's survivor came after its lost packet: above the hole, ACKed at once with the held one.
    assert list(_deliver(ring, 2, [0, 1], lost=np.ones(2), behind=np.array([0.0, 1.0]))) == [0.0, 2.0]
    assert list(ring.held) == [1.0, 0.0]
    # Flow 0's next packet arrives above the hole: it and the held one are ACKed at once.
    assert list(_deliver(ring, 3, [1, 0])) == [2.0, 0.0]


def test_a_step_whose_packets_were_all_lost_does_not_restart_the_delayed_ack_timer():
    ring = _ring()
    _deliver(ring, 1, [1, 1])
    due = ring.held_due.copy()
    _deliver(ring, 4, [0, 2], lost=np.array([1.0, 0.0]), behind=np.zeros(2))
    assert list(ring.held) == [1.0, 1.0]
    assert ring.held_due[0] == due[0]  # still timed from its held packet's arrival
    assert ring.held_due[1] == due[1] + 3  # timed from the packet it holds now, 3 steps later


def test_a_packet_that_comes_after_the_timer_finds_nothing_held():
    # Both flows' receivers hold a packet from step 1; the timer (10 steps) would
    # send its ACK back at step 1 + 2 + 10 = 13.  Flow 0's next packet is back at
    # step 7, before that: the two go as one ACK.  Flow 1's is back at step 14,
    # after it: the held packet's ACK went alone at 13 and the new one is held.
    ring = _ring()
    _deliver(ring, 1, [1, 1])
    assert list(ring.held) == [1.0, 1.0] and list(ring.held_due) == [13, 13]
    assert list(_deliver(ring, 5, [1, 0])) == [2.0, 0.0]
    assert list(_deliver(ring, 12, [0, 1])) == [0.0, 1.0]  # flow 1: the held packet's lone ACK (due at 13)
    assert list(ring.held) == [0.0, 1.0] and ring.held_due[1] == 24
    row = ring.take(13)
    assert row[1] == 1.0 and ring.lone[0].tolist() == [1]
    row[:] = 0.0
    assert ring.take(14)[1] == 0.0 and ring.lone is None
    assert ring.take(24)[1] == 1.0 and ring.lone[0].tolist() == [1]


def test_a_timed_out_held_packet_is_forgotten_with_its_flow_s_acks():
    ring = _ring()
    _deliver(ring, 1, [1, 1])
    _deliver(ring, 12, [1, 1])  # both held packets time out (lone ACKs due at 13)
    ring.forget(np.array([0]))  # flow 0 times out: none of its ACKs is due any more
    assert list(ring.take(13)) == [0.0, 1.0] and ring.lone[0].tolist() == [1]


@pytest.mark.parametrize("lone", [False, True])
def test_windows_grow_per_ack_and_a_timer_s_ack_is_one(lone):
    # Congestion avoidance grows a window by 1/cwnd per ACK (RFC 5681 3.1,
    # ns-3's TcpNewReno): with delayed ACKs, two packets' ACK or the timer's ACK of one.
    s = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=sim.DropTail(buffer=100), duration=1.0, warmup=0.0)
    e = _Engine([s], False)
    f, ring = e.flows, e.ring
    f.state[0], f.cwnd[0], f.ssthresh[0], f.grow[0], f.inflight[0] = OPEN, 8.0, 4.0, 0.5, 8.0
    if lone:
        ring.held[0], ring.held_due[0] = 1.0, 5
    else:
        ring.rows2[5 % ring.L, 0] = 2.0
    e.sender.on_acks(ring.take(5), True)
    assert f.cwnd[0] == pytest.approx(8.0 + 1 / 8) and f.inflight[0] == (7.0 if lone else 6.0)
