"""Fast retransmit at the third duplicate ACK, counted as the duplicate ACKs return (NewReno + SACK, PRR)."""

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim.engine import _Engine
from tcpmodels.sim.flows import OPEN, PENDING, RECOVERY, STALLED


def _pending(recovery="prr"):
    """One flow of window 6 that lost one packet, 5 sent behind it; 100 ACKed before the loss."""
    s = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=sim.DropTail(buffer=100),
                     sender=sim.NewReno(sack=True, recovery=recovery), duration=1.0, warmup=0.0)
    e = _Engine([s], False)
    f = e.flows
    f.state[0], f.cwnd[0], f.grow[0], f.can_send[0] = PENDING, 6.0, 0.5, 1.0
    f.acked[0], f.inflight[0], f.sent[0], f.dropped[0] = 100.0, 6.0, 106.0, 1.0
    f.ack_mark[0], f.drop_mark[0], f.sent_mark[0], f.t_dupack[0] = 100.0, 0.0, 101.0, np.inf
    return e, f, np.array([0])


def test_fast_retransmit_waits_for_the_third_duplicate_ack():
    # The ACKs reached the lost packet at 1.0 s, one duplicate ACK came with it
    # (the step's ACKs are taken before the decision: it still grew the window):
    # no decision, no growth on the duplicate ACKs from now, the next step's are awaited.
    # The flow decides before it sends (decide_on_dupacks), as the engine runs it.
    e, f, j = _pending()
    e.sender.on_acks(np.array([1.0]), True)
    e.sender.decide_on_dupacks(j, 1.0)
    assert f.state[0] == PENDING and f.grow[0] == 0 and f.t_dupack[0] == 1.0
    assert f.t_next[0] == 1.0 + e.dt
    # The SACKed packet left the pipe: one new packet may go (RFC 6675 5).
    assert np.floor(f.cwnd[0]) - f.inflight[0] == 1.0
    cwnd = f.cwnd[0]
    assert e.sender.send(None)[0] == 1.0 and f.sent[0] == 107.0
    # The second, a step later, lets another out: still no decision.
    e.sender.on_acks(np.array([1.0]), True)
    e.sender.decide_on_dupacks(j, 1.0 + e.dt)
    assert f.state[0] == PENDING and f.t_next[0] == pytest.approx(1.0 + 2 * e.dt)
    assert e.sender.send(None)[0] == 1.0
    # The third: fast retransmit, the retransmission in the place of the new
    # packet the third would have let out (as ns-3 sends it).  ns-3's pipe at
    # the third: 8 sent, 3 SACKed, 1 lost: 4 (the simulator's 5 in flight, less
    # the lost one); ssthresh 2.
    e.sender.on_acks(np.array([1.0]), True)
    e.sender.decide_on_dupacks(j, 1.0 + 2 * e.dt)
    assert f.state[0] == RECOVERY and f.ssthresh[0] == 2.0 and f.cwnd[0] <= cwnd
    assert f.recover_fs[0] == 4.0 and f.retx_pending[0] == 1.0
    # PRR counts from the third: delivered 1, out 1 (the retransmission, sent after prr_sent0).
    assert f.prr_acked0[0] == 102.0 and f.prr_sent0[0] == 108.0 and f.sent[0] == 109.0
    assert e.sender.send(None)[0] == 1.0  # the retransmission alone


def test_a_loss_is_watched_from_the_next_step_and_decided_before_sending():
    # The ring spreads a step's ACKs over two steps, so the duplicate ACKs may
    # come a step before the lost packet's own ACK was due: a flow that counts
    # them looks from the step after the drop on (a Tahoe flow waits for that
    # ACK's step: the ring's ``back``).  Deciding a step late had let the
    # duplicate ACKs of the step before out as new packets and then counted
    # them for PRR again: a burst into the full buffer of a lone fast flow
    # (ns3_few_fast.csv, 1 flow at 20 Mbit/s: utilization 0.976, now 0.9998).
    e, f, j = _pending()
    f.state[0], e.ring.k = OPEN, 10
    assert e.sender.on_drops(j, np.array([1.0]), np.array([3.0]), e.draws).size == 0
    assert f.state[0] == PENDING and f.t_next[0] == 11 * e.dt
    tahoe = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=sim.DropTail(buffer=100), sender=sim.Tahoe(),
                         duration=1.0, warmup=0.0)
    t = _Engine([tahoe], False)
    t.flows.state[0], t.flows.inflight[0] = OPEN, 6.0
    assert t.sender.on_drops(j, np.array([1.0]), np.array([3.0]), t.draws).tolist() == [0]


def test_no_packet_left_to_bring_a_duplicate_ack_times_out():
    # Everything behind the lost packet was lost too: no duplicate ACK can
    # come; the timer, armed at the last new ACK (the first call), fires an RTO later.
    e, f, j = _pending()
    f.dropped[0] = 6.0
    e.sender.decide_on_dupacks(j, 1.0)
    assert f.state[0] == STALLED
    assert f.t_next[0] == 1.0 + e.sender.rto(j)[0]
    # Found out while waiting (the last survivors lost later): the timer still
    # runs from the first duplicate ACK, not from the step that found it.
    e, f, j = _pending()
    f.dropped[0] = 4.0
    e.sender.decide_on_dupacks(j, 1.0)
    assert f.state[0] == PENDING
    f.dropped[0] = 6.0
    e.sender.decide_on_dupacks(j, 1.0 + 2 * e.dt)
    assert f.state[0] == STALLED and f.t_next[0] == 1.0 + e.sender.rto(j)[0]


def test_a_flow_starved_before_its_acks_reach_the_loss_times_out_from_now():
    # A queued packet sent before the lost one was removed after it (CoDel's
    # head drop, random drop's eviction): the ACK the duplicates were counted
    # from never comes, and with every packet in flight lost none follows.  The
    # timer runs from the last ACK, about now; before, from the first duplicate
    # ACK, which never came, so the flow stalled for good (on the CoDel row of
    # 100 flows at 20 ms, 4 of them by 17 s, 7 by 50 s).
    e, f, j = _pending()
    f.ack_mark[0], f.dropped[0] = 101.0, 6.0  # (the one ahead of the first loss lost too)
    e.sender.decide_on_dupacks(j, 1.0)
    assert f.state[0] == STALLED and np.isinf(f.t_dupack[0])
    assert f.t_next[0] == 1.0 + e.sender.rto(j)[0]
    f.check(100.0)  # (a stalled flow's timer is set)
    f.t_next[0] = np.inf
    with pytest.raises(AssertionError, match="without a timer"):
        f.check(100.0)


def test_a_queued_packet_lost_ahead_of_the_first_loss_becomes_the_event_s_first():
    # Packets 101-106 in flight, 103 lost first (ACKs counted from 102); then
    # a head drop or an eviction takes 101, queued with the 5 behind it.  The
    # duplicate ACKs count from 101's place (100): 102, 104, 105 and 106 each
    # bring one, and 103 is a hole one place earlier, found lost once 104-106
    # are in.  Before, they were counted from 102: two duplicates only.
    e, f, j = _pending()
    f.ack_mark[0], f.sent_mark[0] = 102.0, 103.0
    f.edge[0] = 103.0 + 10.0 - 1.0  # (a receiver's window of 10 held at the hole)
    e.sender.on_queued_loss(0, 5, 0.0, 5.0)
    assert (f.ack_mark[0], f.sent_mark[0], f.dropped[0], f.edge[0]) == (100.0, 101.0, 2.0, 110.0)
    assert f.holes[0] == 1.0 and f.hole_at[0, 0] == 101.0 and np.isinf(f.hole_at[0, 1:]).all()
    e.sender.on_acks(np.array([3.0]), True)
    e.sender.decide_on_dupacks(j, 1.0)
    assert f.state[0] == RECOVERY
    # One sent after the first lost one is behind it, as before.
    e, f, j = _pending()
    e.sender.on_queued_loss(0, 5, 0.0, 2.0)
    assert (f.ack_mark[0], f.sent_mark[0]) == (100.0, 101.0) and f.hole_at[0, 0] == 102.0
    # A sender that decides when the first lost packet's ACK is due decides at the earlier one's.
    tahoe = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=sim.DropTail(buffer=100), sender=sim.Tahoe(),
                         duration=1.0, warmup=0.0)
    t = _Engine([tahoe], False)
    g = t.flows
    g.state[0], g.inflight[0], g.sent[0], g.dropped[0], g.sent_mark[0] = PENDING, 6.0, 106.0, 1.0, 103.0
    g.t_next[0] = 9 * t.dt
    t.sender.on_queued_loss(0, 7, 0.0, 5.0)
    assert g.sent_mark[0] == 101.0 and g.t_next[0] == 7 * t.dt


def test_the_timer_ends_a_wait_that_never_reaches_the_threshold():
    # One duplicate ACK, and the one packet left in flight never brings its
    # own (its ACK held back): the flow waits, then times out at its RTO after the first.
    e, f, j = _pending()
    f.dropped[0] = 4.0  # the first lost one and three behind it: two survive
    e.sender.on_acks(np.array([1.0]), True)
    e.sender.decide_on_dupacks(j, 1.0)
    assert f.state[0] == PENDING
    rto = e.sender.rto(j)[0]
    e.sender.decide_on_dupacks(j, 1.0 + rto - 0.5 * e.dt)
    assert f.state[0] == STALLED


def test_a_lost_retransmission_times_out_an_rto_after_the_last_new_ack():
    # The timer is restarted by new ACKs only (RFC 6298 5.3, ns-3's NewAck), not
    # by the fast retransmit: where the retransmission is lost, it fires an RTO
    # after the first duplicate ACK (1.0 s), not after the third (1.0 + 2 dt).
    e, f, j = _pending()
    for step in range(3):
        e.sender.on_acks(np.array([1.0]), True)
        e.sender.decide_on_dupacks(j, 1.0 + step * e.dt)
        e.sender.send(None)
    assert f.state[0] == RECOVERY and f.t_event[0] == pytest.approx(1.0 + 2 * e.dt)
    f.retx_lost[0] = True
    e.sender.recovery_ends(j, 1.5)
    assert f.state[0] == STALLED and f.t_next[0] == pytest.approx(1.0 + e.sender.rto(j)[0])


def test_the_timer_fires_in_recovery_where_the_duplicate_acks_took_round_trips():
    # A window of a few packets lets one new packet out per duplicate ACK, so the three come a round trip apart
    # (ns-3, 150 drop-tail flows at 40-60 ms: the third 0.87 s after the last new ACK, which armed a 1 s timer).
    # The fast retransmission's ACK, a round trip (0.1 s here) after the third, would come after the timer: the
    # recovery ends at the timer's time, in a time-out (RFC 6298 5.1: a retransmission does not restart it).
    e, f, j = _pending()
    f.dropped[0], f.t_dupack[0], f.grow[0] = 3.0, 1.0, 0.0  # three survivors behind the lost packet
    rto = e.sender.rto(j)[0]
    third = 1.0 + rto - 0.05
    e.sender.on_acks(np.array([3.0]), True)
    e.sender.decide_on_dupacks(j, third)
    assert f.state[0] == RECOVERY and f.t_next[0] == pytest.approx(1.0 + rto)
    e.sender.recovery_ends(j, 1.0 + rto)
    assert f.state[0] == STALLED and f.t_next[0] == pytest.approx(1.0 + rto + e.dt)
    # The third a round trip and more before the timer: the recovery ends at its ACK.
    e, f, j = _pending()
    f.dropped[0], f.t_dupack[0], f.grow[0] = 3.0, 1.0, 0.0
    e.sender.on_acks(np.array([3.0]), True)
    e.sender.decide_on_dupacks(j, 1.0 + rto - 0.2)
    assert f.state[0] == RECOVERY and f.t_next[0] < 1.0 + rto
    e.sender.recovery_ends(j, f.t_next[0])
    assert f.state[0] == OPEN


def test_rfc6675_recovery_still_decides_at_the_lost_packets_ack():
    # The seed papers' ns-2 recovery keeps the previous decision (test_sim_prr's digests).
    e, f, j = _pending("rfc6675")
    assert e.sender.counts_dupacks is None
    e.sender.loss_detected(j, 1.0)
    assert f.state[0] == RECOVERY


def test_duplicate_acks_beyond_the_third_in_a_step_are_left_to_prr():
    # A step brings five duplicate ACKs at once (the flow already waiting: no
    # growth).  One packet leaves per duplicate ACK before the third (2), the
    # retransmission in the third's place, and PRR's on the two beyond it, all
    # in this step.  As ns-3 sees the third: 1 lost + 5 behind + 2 sent on the
    # first two, 3 SACKed: pipe 4; the two SACKed beyond it were still in the
    # pipe.  PRR has delivered 3 (from the third on) and sent 1 (the
    # retransmission); RFC 6937 on the fourth, ceil(2 x 2 / 4) - 1 = 0, on the
    # fifth ceil(3 x 2 / 4) - 1 = 1.
    e, f, j = _pending()
    f.grow[0], f.t_dupack[0] = 0.0, 0.9
    e.sender.on_acks(np.array([5.0]), True)
    e.sender.decide_on_dupacks(j, 1.0)
    assert f.state[0] == RECOVERY and f.recover_fs[0] == 4.0 and f.ssthresh[0] == 2.0
    assert f.acked[0] - f.prr_acked0[0] == 3.0 and f.sent[0] - f.prr_sent0[0] == 1.0
    assert e.sender.send(None)[0] == 4.0 and f.sent[0] == 110.0 and f.inflight[0] == 4.0


def test_the_packets_ahead_of_the_lost_one_are_those_acked_before_its_turn():
    # A loss splits the flight: the packets ahead of the lost one (ACKed
    # before it was due: ack_mark), the lost one, those sent after it (each
    # may bring a duplicate ACK: sent_mark).  Six packets were in flight before
    # the step, whose four arrivals (the last sent) lose one or two.
    e, f, j = _pending()
    for k in range(20):  # (different draws of where in the step the first drop falls)
        for drops in (1.0, 2.0):
            f.state[0], f.backlog[0], f.dropped[0] = OPEN, 0.0, 0.0
            f.acked[0], f.inflight[0], f.sent[0] = 100.0, 10.0, 110.0
            e.draws.at(k)
            e.sender.on_drops(j, np.array([drops]), np.array([4.0]), e.draws)
            ahead, after = f.ack_mark[0] - f.acked[0], f.sent[0] - f.sent_mark[0]
            assert f.state[0] == PENDING and ahead + 1 + after == 10.0
            assert 6.0 <= ahead <= 10.0 - drops
    # A queued packet lost (random drop, CHOKe): behind it 3 queued, 2 arriving, 1 on the access link.
    f.state[0], f.backlog[0], f.dropped[0] = OPEN, 1.0, 0.0
    f.acked[0], f.inflight[0], f.sent[0] = 100.0, 10.0, 110.0
    e.sender.on_queued_loss(0, 5, 2.0, 3.0)
    assert f.ack_mark[0] - f.acked[0] == 3.0 and f.sent[0] - f.sent_mark[0] == 6.0


def test_new_data_lost_in_recovery_waits_for_its_own_duplicate_acks():
    # Two packets of new data lost together during recovery, 6 packets in
    # flight ahead of them, not found lost before it ends (RFC 6675's next
    # loss event): the first's place starts it; the third packet ACKed after
    # them starts the next recovery, which retransmits both (found together).
    e, f, j = _pending()
    f.state[0], f.acked[0], f.dropped[0], f.inflight[0], f.sent[0] = RECOVERY, 110.0, 1.0, 8.0, 118.0
    e.sender.on_drops(j, np.array([2.0]), np.array([2.0]), e.draws)  # (none after them: no draw matters)
    assert f.holes[0] == 2.0 and f.hole_at[0, 0] == 116.0 and f.holes_below[0] == 0.0
    f.inflight[0] += 3.0  # three more sent after them
    f.sent[0] += 3.0
    e.sender.recovery_ends(j, 2.0)
    assert f.state[0] == PENDING and f.ack_mark[0] == 116.0 and f.drop_mark[0] == 1.0 and f.holes[0] == 1.0
    f.t_dupack[0] = 2.0
    e.sender.on_acks(np.array([8.0]), True)
    e.sender.decide_on_dupacks(j, 2.1)
    assert f.state[0] == PENDING
    e.sender.on_acks(np.array([1.0]), True)
    e.sender.decide_on_dupacks(j, 2.1 + e.dt)
    assert f.state[0] == RECOVERY and f.retx_pending[0] == 2.0 and f.holes[0] == 0.0


def _two_holes():
    """``_pending`` with a second packet lost, the fourth of the five sent after the first (3 ACKed ahead of it)."""
    e, f, j = _pending()
    e.sender._add_holes(j, np.array([3.0]), np.array([1.0]))
    f.dropped[0] = 2.0
    e.sender.on_acks(np.array([3.0]), True)  # the three packets between them: duplicate ACKs
    e.sender.decide_on_dupacks(j, 1.0)
    return e, f, j


def test_a_hole_near_the_window_tail_is_retransmitted_once_found_lost():
    # RFC 6675 IsLost (ns-3's scoreboard): the second hole has one packet sent
    # after it in the window; fast retransmit repairs the first only, and the
    # recovery point waits for the second.
    e, f, j = _two_holes()
    rtt = (f.prop[j] + f.qdelay(j))[0]
    assert f.state[0] == RECOVERY and f.retx_pending[0] == 1.0 and f.holes_below[0] == 1.0
    assert f.t_next[0] == pytest.approx(1.0 + rtt)
    # The first retransmission's ACK is a partial ACK that stops at the hole:
    # ns-3 sends one new packet outside PRR and restarts its timer.
    sent, out0 = f.sent[0], f.prr_sent0[0]
    e.sender.recovery_ends(j, 1.0 + rtt)
    assert f.state[0] == RECOVERY and f.sent[0] == sent + 1 and f.prr_sent0[0] == out0 + 1
    assert f.t_next[0] == pytest.approx(1.0 + rtt + e.sender.rto(j)[0])
    # Found lost at the third packet ACKed after it (the first's retransmission
    # is ACKed too but lies below it): retransmitted, recovery ends a round trip on.
    e.sender.on_acks(np.array([3.0]), True)
    assert f.holes_below[0] == 1.0 and f.retx_pending[0] == 1.0
    e.ring.k = 40
    e.sender.on_acks(np.array([1.0]), True)
    assert f.holes_below[0] == 0.0 and f.retx_pending[0] == 2.0 and f.holes[0] == 0.0
    assert f.t_next[0] == pytest.approx(40 * e.dt + rtt)
    e.sender.recovery_ends(j, f.t_next[0])
    assert f.state[0] == OPEN


def test_a_hole_never_found_lost_ends_in_a_time_out():
    # After the partial ACK nothing brings the third ACK: the timer fires.
    e, f, j = _two_holes()
    e.sender.recovery_ends(j, f.t_next[0])
    e.sender.recovery_ends(j, f.t_next[0])
    assert f.state[0] == STALLED


def test_new_data_lost_and_found_in_recovery_is_repaired_in_it():
    # A packet sent during recovery (above its recovery point) is found lost
    # before it ends: retransmitted at once, without moving its end.
    e, f, j = _pending()
    e.sender.on_acks(np.array([3.0]), True)
    e.sender.decide_on_dupacks(j, 1.0)
    end = f.t_next[0]
    f.inflight[0] += 4.0  # four new packets, the second lost
    f.sent[0] += 4.0
    f.dropped[0] += 1.0
    e.sender._add_holes(j, np.array([1.0]), np.array([1.0]))
    e.sender.on_acks(np.array([3.0]), True)
    assert f.holes[0] == 1.0
    e.sender.on_acks(np.array([1.0]), True)
    assert f.holes[0] == 0.0 and f.retx_pending[0] == 2.0 and f.t_next[0] == end
    e.sender.recovery_ends(j, end)
    assert f.state[0] == OPEN


def test_holes_listed_out_of_stream_order_are_each_retransmitted_once():
    # Two queued packets removed in one step (CHOKe, random drop) are placed
    # where each was: the second listed (2 packets) lies ahead of the first
    # (1) in the ACK stream.  The ACKs pass it first: it alone is found lost
    # and leaves the list; the other is found later.  3 lost, 3 retransmitted
    # (listing them by the order they came in retransmitted the 2 twice and
    # the invariant check found more ACKs than packets in flight).
    e, f, j = _pending()
    f.state[0] = RECOVERY
    e.sender._add_holes(j, np.array([4.0]), np.array([1.0]))  # ACK place 104
    e.sender._add_holes(j, np.array([1.0]), np.array([2.0]))  # ACK place 101
    f.acked[0] = 104.0  # three packets ACKed past 101, not yet past 104
    first = e.sender._take_found(j, 0.0)[0]
    assert first == 2.0 and f.holes[0] == 1.0 and f.hole_at[0, 0] == 104.0 + 2.0
    f.acked[0] = 109.0
    assert first + e.sender._take_found(j, 0.0)[0] == 3.0 and f.holes[0] == 0.0
