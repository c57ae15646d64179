"""Proportional Rate Reduction (RFC 6937), NewReno's fast recovery with SACK (issue 12)."""

import dataclasses
import hashlib

import numpy as np
import pytest

from tcpmodels import sim
from tcpmodels.sim.engine import _Engine

BASE = dict(n_flows=20, bandwidth=2e6, rtt=0.04, duration=6.0, warmup=1.0, start_spread=1.0, seed=5)
RED = sim.RED(min_th=3, max_th=25, max_p=0.1)


def _rfc6675(**kw):
    return sim.NewReno(sack=True, recovery="rfc6675", **kw)


# Every path recovery touches: drop-tail and RED, ECN, link loss, finite transfers, a mixed
# population, and a float32 batch (10 scenarios of 1000 flows: 10 000 flows).
GRID = {
    "droptail": sim.Scenario(**BASE, queue=sim.DropTail(buffer=25), sender=_rfc6675()),
    "red": sim.Scenario(**BASE, queue=RED, sender=_rfc6675()),
    "red-ecn": sim.Scenario(**BASE, queue=dataclasses.replace(RED, ecn=True), sender=_rfc6675(ecn=True)),
    "link-loss": sim.Scenario(**BASE, queue=RED, sender=_rfc6675(), link_loss=0.01),
    "transfers": sim.Scenario(**BASE, queue=RED, sender=_rfc6675(), workload=sim.FiniteTransfers(size=30)),
    "mixed": sim.Scenario(**BASE, queue=RED, senders=[(10, _rfc6675()), (10, sim.Reno())]),
}
# The grid's digests.  RFC 6675 recovery is the engine before PRR (NewReno with SACK then always recovered as RFC
# 6675 does: main at 3b8b062, numpy 2.2-2.5, Python 3.10-3.13) but for what every SACK sender has gained since:
# receivers that ACK out-of-order data and the hole-filling packet at once (AckRing.lost/repaired) and a step lost
# whole that makes its receiver act not at all (AckRing.first_lost); drop-tail's phase effect, resolved packet by
# packet (drops.fifo_drops); a step of at most a quarter of a flow's packet spacing where drop-tail's windows are
# small (Scenario.step); round trips holding the serialization; RED sparing arrivals at a queue of one packet
# (queues.JUDGED_ABOVE); a time-out's first retransmission ACKed at once where it fills a hole (AckRing.forget's
# restart), then its refills (AckRing._refill); the delayed-ACK timer's race (AckRing._delay_acks); an ACK's SACK
# blocks delaying the packets it releases (AckRing.blocks); RED's forced drops on one run of the step's packets
# (_REDState.victims).  Each changed some of these digests, and its commit updated them; the digests before are in
# this file's history.
MAIN = {"droptail": "a3e560e30ac6f135", "red": "89e16cd64727dbf0", "red-ecn": "a4bba20a29a76b4a",
        "link-loss": "c8a87b1b1aa930a0", "transfers": "1d47b7ee1cb65a30", "mixed": "866108cde0b85787",
        "float32": "80c0e7333b31f1d5"}


def _digest(r):
    h = hashlib.sha256()
    for name in ("loss_rate", "queue", "utilization", "timeouts_per_packet", "window", "goodput", "flow_drops",
                 "flow_window"):
        h.update(np.asarray(getattr(r, name), dtype=float).tobytes())
    return h.hexdigest()[:16]


def test_rfc6675_recovery_is_the_previous_engine_bit_for_bit():
    got = {name: _digest(sim.simulate(s)) for name, s in GRID.items()}
    big = dataclasses.replace(GRID["red"], n_flows=1000, bandwidth=100e6, duration=3.0,
                              queue=sim.RED(min_th=30, max_th=250, max_p=0.1))
    got["float32"] = _digest(sim.simulate(big, seeds=range(10))[3])
    assert got == MAIN


def test_prr_runs_every_path_with_its_invariants():
    # The same grid with PRR (the default): invariants checked every step.
    for s in GRID.values():
        groups = [(c, dataclasses.replace(p, recovery="prr")) if isinstance(p, sim.NewReno) else (c, p)
                  for c, p in s.groups]
        r = sim.simulate(dataclasses.replace(s, senders=groups), check=True)
        assert 0 < r.loss_rate < 1 and r.utilization > 0.5


def _one_recovery(recovery, acks=21):
    """A flow with 20 packets of window and 2 sent by limited transmit loses one: what each ACK lets out.

    As ns-3 sees it at the third duplicate ACK: FlightSize 22, the pipe
    (RecoverFS) 22 - 3 SACKed - 1 lost = 18, ssthresh 9.  With PRR the
    duplicate ACKs are counted as they come: the three are in (ACKed beyond
    ``ack_mark``, out of the flight) and the first ACK below is the fourth;
    RFC 6675's recovery decides at the lost packet's ACK, the duplicate ACKs
    after it (prr_delivered then counts from the third of the ACKs below).
    """
    s = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=sim.DropTail(buffer=100),
                     sender=sim.NewReno(sack=True, recovery=recovery, max_window=100), duration=1.0, warmup=0.0)
    e = _Engine([s], False)
    f, sender, j = e.flows, e.sender, np.array([0])
    f.cwnd[0], f.inflight[0], f.acked[0], f.sent[0], f.ssthresh[0] = 20.0, 22.0, 100.0, 122.0, 9.0
    if sender.counts_dupacks is not None:
        # (the three out of the flight; the retransmission takes the third's new packet's place)
        f.ack_mark[0], f.acked[0], f.inflight[0], f.sent[0] = 100.0, 103.0, 19.0, 122.0
        assert sender.reduced_on_loss(j)[0] == 9.0
    sender.fast_retransmit(j, np.array([1.0]), np.array([9.0]), 0.0)
    sent = []
    for _ in range(acks):  # one ACK at a time, each followed by what the window lets out
        sender.on_acks(np.array([1.0]), True)
        room = max(np.floor(f.cwnd[0]) - f.inflight[0], 0.0)
        f.inflight[0] += room
        f.sent[0] += room
        sent.append(int(room))
    return sent, f, sender


def test_prr_sends_one_packet_per_two_delivered_over_the_round_trip():
    # RFC 6937 3.1, hand-checked: sndcnt = ceil(prr_delivered * 9 / 18) - prr_out,
    # prr_out starting at 1 (the retransmission); prr_delivered counts from the
    # third duplicate ACK.  New packets leave on ACKs 5, 7, ..., 19, spread over
    # the round trip; on the last ACK the pipe is at ssthresh, and the reduction
    # bound (pipe <= ssthresh) lets nothing more out: 8 new packets, pipe 9.
    # The list starts at ACK 4, the first after the decision; RFC 6937's example to the packet.
    sent, f, _ = _one_recovery("prr", acks=18)
    assert sent == [0, 1] * 8 + [0, 0]
    assert f.recover_fs[0] == 18 and f.inflight[0] == 9
    # RFC 6675: nothing until the pipe falls below ssthresh (13 ACKs), then one per ACK.
    sent, _, _ = _one_recovery("rfc6675")
    assert sent == [0] * 13 + [1] * 8


def test_classic_recovery_as_ns3_3_44_waits_for_the_pipe_to_fall_below_ssthresh():
    # ns-3 3.44's TcpClassicRecovery with SACK: cwnd = ssthresh (9) at fast
    # retransmit; TcpSocketBase sends while the pipe is below cwnd (the inflated
    # window is only traced).  The duplicate ACKs are counted as with PRR: at the
    # decision the pipe is 19 (18 and the retransmission), so ACKs 4-13 let
    # nothing out, ACKs 14-24 one each; the pipe ends at ssthresh.
    sent, f, _ = _one_recovery("classic-ns3.44")
    assert sent == [0] * 10 + [1] * 11
    assert f.inflight[0] == 9 and f.cwnd[0] == 9


def test_prr_as_ns3_3_44_counts_duplicate_acks_twice():
    # ns-3 3.44's TcpPrrRecovery adds a segment to a duplicate ACK's SACKed data
    # while prr_delivered < RecoverFS (fixed in ns-3 after 3.44): prr_delivered
    # runs 4, 6, ..., 18 on ACKs 4-11, then 19, 20, ...: one packet out per ACK on
    # ACKs 4-12, then one per two; 13 new packets, the pipe ends at 14 (1.5 ssthresh)
    # (the list starts at ACK 4).
    sent, f, _ = _one_recovery("prr-ns3.44", acks=18)
    assert sent == [1] * 9 + [0, 1] * 4 + [0]
    assert f.inflight[0] == 14


def _small_recovery(recovery, per_step, acks=4):
    """A flow with a window of 6 loses one and takes ``acks`` ACKs, ``per_step`` a step: what each step lets out.

    Counted as ``_one_recovery`` counts them: FlightSize 6, two new packets
    out on the first two duplicate ACKs, the three out of the flight: the
    pipe (RecoverFS) 4, ssthresh 2.
    """
    s = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=sim.DropTail(buffer=100),
                     sender=sim.NewReno(sack=True, recovery=recovery), duration=1.0, warmup=0.0)
    e = _Engine([s], False)
    f, sender, j = e.flows, e.sender, np.array([0])
    f.cwnd[0], f.ack_mark[0], f.acked[0], f.inflight[0], f.sent[0] = 6.0, 100.0, 103.0, 5.0, 108.0
    f.ssthresh[0] = sender.reduced_on_loss(j)[0]
    sender.fast_retransmit(j, np.array([1.0]), f.ssthresh[j], 0.0)
    sent = []
    for _ in range(acks // per_step):
        sender.on_acks(np.array([float(per_step)]), True)
        room = max(np.floor(f.cwnd[0]) - f.inflight[0], 0.0)
        f.inflight[0] += room
        f.sent[0] += room
        sent.append(int(room))
    return sent


def test_prr_takes_a_steps_acks_one_at_a_time():
    # RFC 6937 acts on every ACK: a step that brings two ACKs of a flow lets out
    # what they would one after the other (the engine's default step put two
    # ACKs of a flow in 11 % of its recovery steps at 200 drop-tail flows, 0.4 %
    # at half the step).  ns-3 3.44's variant, hand-checked: on the fourth
    # duplicate ACK prr_delivered 2 (from the third on), 4 with 3.44's extra
    # packets, prr_out 1 (the retransmission): ceil(4 x 2 / 4) - 1 = 1; on the
    # fifth ceil(5 x 2 / 4) - 2 = 1; on the sixth ceil(6 x 2 / 4) - 3 = 0; on
    # the seventh ceil(7 x 2 / 4) - 3 = 1, the pipe 3 staying above ssthresh 2:
    # 3 in all, and as many two or four a step.
    assert _small_recovery("prr-ns3.44", 1) == [1, 1, 0, 1]
    assert _small_recovery("prr-ns3.44", 2) == [2, 1]
    assert _small_recovery("prr-ns3.44", 4) == [3]
    for per_step in (2, 4):  # RFC 6937's PRR: the same either way here, as it should be
        assert sum(_small_recovery("prr", per_step)) == sum(_small_recovery("prr", 1)) == 1


def test_recovery_end_sets_the_window_to_ssthresh():
    # ns-3's ExitRecovery: cwnd = ssthresh, whatever PRR left in flight (the
    # ns-3 3.44 variant ends with 14 in flight, so the flow waits for 5 ACKs).
    for recovery, acks in (("prr", 10), ("prr-ns3.44", 21)):
        _, f, sender = _one_recovery(recovery, acks)
        assert f.cwnd[0] > 9
        sender.recovery_ends(np.array([0]), 0.1)
        assert f.cwnd[0] == 9 and f.state[0] == 0  # OPEN


def test_mixed_population_applies_prr_to_its_own_group():
    s = sim.Scenario(**BASE, queue=RED, senders=[(10, sim.NewReno(sack=True)), (5, _rfc6675()), (5, sim.Reno())])
    e = _Engine([s], False)
    assert e.sender.prr.tolist() == [True] * 10 + [False] * 10
    r = sim.simulate(s, check=True)
    assert len(r.groups) == 3


def test_recovery_is_validated_and_splits_batches():
    with pytest.raises(ValueError, match="recovery"):
        sim.NewReno(recovery="rfc3517")
    assert sim.NewReno(sack=True, recovery="PRR").recovery == "prr"
    assert sim.NewReno().recovery == "prr"
    a = sim.Scenario(**BASE, sender=sim.NewReno(sack=True))
    b = dataclasses.replace(a, sender=_rfc6675())
    assert a.batch_key() != b.batch_key()
    assert sim.simulate([a, b])[1].loss_rate == sim.simulate(b).loss_rate


def _one_echo(recovery, acks=22):
    """A flow with 20 packets of window, all in flight, takes an ECN echo, then ``acks`` ACKs of one packet each.

    Returns what the entry and each ACK let out, and the flow's state after the reduction's round trip.
    """
    s = sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.1, queue=sim.RED(min_th=5, max_th=50, max_p=0.1, ecn=True),
                     sender=sim.NewReno(sack=True, ecn=True, recovery=recovery, max_window=100), duration=1.0,
                     warmup=0.0)
    e = _Engine([s], False)
    f, sender = e.flows, e.sender
    f.cwnd[0], f.inflight[0], f.acked[0], f.sent[0], f.ssthresh[0] = 20.0, 20.0, 100.0, 120.0, 100.0
    f.state[0], f.grow[0], f.t_ece[0] = 0, sender.ack_gain[0], 0.0  # open, growing, an echo due now
    sender.on_echoes(1e-3, 0.0)
    sent = []
    for k in range(acks + 1):  # the entry, then one ACK at a time, each followed by what the window lets out
        if k:
            sender.on_acks(np.array([1.0]), True)
        room = max(np.floor(f.cwnd[0]) - f.inflight[0], 0.0)
        f.inflight[0] += room
        f.sent[0] += room
        sent.append(int(room))
    during = f.cwnd[0]
    sender.on_echoes(1e-3, f.t_cwr[0])  # the round trip ends
    return sent, during, f


def test_an_ecn_echo_reduces_by_prr_where_fast_recovery_does():
    # ns-3 3.44's EnterCwr hands the reduction to the recovery algorithm (Linux's tcp_enter_cwr too), which
    # at the CWR state's end sets cwnd to ssthresh.  Hand-checked, delayed ACKs (the echoing ACK covered two):
    # RFC 6937's PRR: ssthresh 10 (RFC 3168's halving), RecoverFS 22 (the flight before the echoing ACK);
    # sndcnt = ceil(prr_delivered x 10 / 22) - prr_out lets a packet out on ACKs 1, 3, 5, 7, 9, 12, 14, 16; the
    # pipe reaches ssthresh at ACK 18, and the conservative bound keeps it there: one out per ACK from ACK 19.
    sent, during, f = _one_echo("prr")
    assert sent == [0] + [1, 0] * 5 + [0, 1] * 3 + [0, 0] + [1] * 4
    assert f.recover_fs[0] == 22 and during == 10 and f.cwnd[0] == 10 and not f.cwr[0]
    # ns-3 3.44's: ssthresh 9, half the 18 left in flight; the entry counts the ACK's two packets and one more
    # delivered, ceil(3 x 9 / 22) = 2 out at once, then ceil(prr_delivered x 9 / 22) - prr_out.
    sent, _, f = _one_echo("prr-ns3.44")
    assert sent[:6] == [2, 0, 1, 0, 0, 1] and f.cwnd[0] == 9
    # Classic recovery cuts at once: nothing until the flight falls below 9 (ACK 12), then one per ACK.
    sent, _, f = _one_echo("classic-ns3.44")
    assert sent == [0] * 12 + [1] * 11 and f.cwnd[0] == 9
