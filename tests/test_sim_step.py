"""Halving the engine's step where windows are a few packets (issue 12's fidelity goal: < 5 %)."""

import dataclasses

import numpy as np
import pytest

from tcpmodels import sim

pytestmark = pytest.mark.slow


def _droptail_row(n_flows, phase_effect=False):
    # The 10 ms drop-tail row of ns3_more_10ms (set up as tests/ns3_references.py's
    # ns3_scenario, with the classic recovery the references ran; the figures
    # below say which sender they were measured with: until b0804d0 these rows
    # ran ns-3 3.44's PRR, recovery="prr-ns3.44"), the phase effect off unless
    # asked: at 200 flows windows of 3-4 packets, an RTT of ~240 ms
    # that is mostly queue, and 1 Mbit/s access links whose 4.6 ms per packet would
    # have put a burst's next packet in the next 4 ms step (half the smallest
    # propagation RTT); the step is 0.49 of it, 2.26 ms (Scenario.step).
    return sim.Scenario(n_flows=n_flows, bandwidth=10e6, rtt=0.01, rtt_spread=0.4, packet_size=576,
                        queue=sim.DropTail(buffer=500, phase_effect=phase_effect),
                        sender=sim.NewReno(sack=True, recovery="classic-ns3.44"),
                        access_rate=max(10 * 10e6 / n_flows, 1e6), start_spread=10.0, duration=200.0, warmup=20.0)


def _halving_changes(s, seeds, names):
    """The relative change of each result in ``names`` (its mean over ``seeds``) from s's step to half of it."""
    runs = sim.simulate([dataclasses.replace(s, time_step=s.step * f, seed=seed) for f in (1.0, 0.5) for seed in seeds])
    coarse, fine = runs[:len(seeds)], runs[len(seeds):]
    return {name: np.mean([getattr(r, name) for r in fine]) / np.mean([getattr(r, name) for r in coarse]) - 1
            for name in names}


def test_halving_the_step_moves_small_window_droptail_loss_by_less_than_5_percent():
    # With classic recovery (the test's sender; b0804d0, as the test runs it):
    # loss +0.7 %, queue -0.2 %.  With prr-ns3.44, before: measured at 200
    # flows, seeds 1-6, loss at the default step and at half of
    # it: +5.9 % before PRR took a step's ACKs of a flow one at a time, +4.1 %
    # after (bb89f7d: 6.112e-2 -> 6.363e-2, per seed +3.0 ... +6.3 %, SE 0.5 %).
    # On 3819adb, whose round trips hold the serialization, the 4 ms step:
    # 5.928e-2 -> 6.228e-2, +5.1 %, per seed +3.7 ... +7.5 %, SE 0.7 % (a
    # quarter and an eighth of it, df7f17c, 6.290e-2 and 6.258e-2: settled from
    # half on); with the phase effect on (seeds 1-4) 6.188e-2 -> 6.528e-2,
    # +5.5 %.  At 4 ms each packet of a burst fell in the step after the one
    # before, where the engine loses less than at any finer step (Scenario.step).  At the step
    # that rule gives, 2.26 ms (0.49 of the access link's 4.6 ms a packet):
    # 6.206e-2 -> 6.251e-2, +0.7 %, per seed -0.5 ... +1.8 %, SE 0.3 %; with
    # the phase effect on 6.524e-2 -> 6.611e-2, +1.3 % (-0.5 ... +3.6 %, SE
    # 0.6 %; seeds 1-6; measured on df7f17c at that step, and as this test runs
    # on the commit that set it).  The bound is the 5 %, about 2
    # standard errors above bb89f7d's change: a regression of the step's
    # fidelity fails it, the seed spread does not.  Run as 4 seeds of 100 s
    # (a third of 6 seeds of 200 s, to keep the suite within its time):
    # 6.202e-2 -> +1.0 %, per seed +0.2 ... +1.8 % (234e048).
    s = dataclasses.replace(_droptail_row(200), duration=100.0)
    assert s.step == pytest.approx(0.49 * 576 * 8 / 1e6)  # Scenario.step's access-link rule
    assert abs(_halving_changes(s, range(1, 5), ["loss_rate"])["loss_rate"]) < 0.05


# Few flows with large windows (the 10 ms drop-tail rows at 5 and 10 flows, as
# the references' rows run: phase effect on; ns-3's windows 103 and 50 packets,
# loss below 0.1 %: 26 and 228 drops a run), so many seeds that the change is
# measured, not the seed spread.  Measured on ff8eea5, loss at the default
# step (4 ms, half the smallest RTT) and at half of it, mean over the seeds
# (SE of the change): 5 flows, seeds 101-196, 6.59e-5 -> 6.76e-5, +2.6 %
# (2.3 %; seeds 1-24 +7.2 % (5.4 %); the +20.8 % once recorded was 2 seeds'
# spread); 10 flows, seeds 25-72, 5.84e-4 -> 6.25e-4, +6.9 % (1.1 %; seeds
# 1-24 +5.8 % (1.5 %)), queue within 0.3 % at both.  At 10 flows the loss goes
# on rising as the step shrinks (seeds 101-116: 5.72, 6.05, 6.38, 6.69,
# 6.30e-4 at 1, 1/2, 1/4, 1/8, 1/16 of the step; ns-3 6.29e-4), through both
# the events (146.8 -> 154 a run) and the drops per event (1.50 -> 1.58-1.65).
# Grouping the events into overflow episodes (events less than 0.5 s apart;
# seeds 101-108, at 1, 1/2, 1/4, 1/8 of the step): an episode hits 4.88, 4.57,
# 4.41, 4.42 of the 10 flows (7.8, 7.5, 7.5, 7.9 drops), so the windows lose
# less per episode and the episodes come more often, 28.4, 30.4, 32.8, 32.4 a
# run: the default step spreads an overflow's drops over more flows than a
# finer one, the synchronization converging from a quarter of the step.  Why
# is not isolated.  Not mainly the step's netting of its arrivals against its
# departures: counting the overflow packet by packet where the queue could
# overflow within a step (the FIFO's highest content over the step, from the
# packets' times as drops.fifo_drops takes them; tried, not kept) raises the
# default step's loss by 2.9 % and leaves the trend: the halvings then move it
# by +3.0 % and +6.1 % (+5.8 % and +5.5 % without).  Nor the fresh point each
# step from which a flow's bursts are laid over it (queues._DropTail._slots):
# a fixed point per flow for the whole run (tried, not kept; seeds 101-116)
# reads 5.84, 6.25 and 6.50e-4 at 1, 1/2 and 1/4 of the step, +7.1 % and
# +3.9 %.  Nor the ACK ring's rounding (a fixed uniform per flow instead of a
# fresh one each step: 5.80, 6.20, 6.46e-4), the receivers' at-once ACKs above
# a hole (left out: 5.48, 5.77, 6.07e-4; both tried, not kept), PRR
# (recovery="rfc6675": 6.12, 6.48, 6.89e-4) or the access links (none: 5.81,
# 6.04, 6.40e-4; seeds 101-116 throughout).  With the phase effect off the
# halvings move it by +2.5 % and +5.5 %, without delayed ACKs (2.5 times the
# loss) by +2.2 % and +3.3 %.  So 10 flows misses issue 12's 5 % (a strict
# expected failure).  The bound is that 5 %: at 5 flows about one SE above the
# change measured, so a regression of the step's fidelity by a few per cent
# fails it.  With classic recovery (the test's sender; b0804d0): 5 flows,
# seeds 101-196, loss -1.5 %, queue +0.4 %; 10 flows, seeds 1-24, +6.9 % and
# -0.3 % (seeds 1-16 of the reference row's set-up, SE 1.5 %: +6.3 %).
# On 71a70a0, which decides fast retransmit at the step of the third duplicate ACK, before that step's
# sending (Sender.decide_on_dupacks), the halvings read: 5 flows, seeds 101-196, loss -2.6 %, queue +0.1 %;
# 10 flows, seeds 1-24, loss +4.9 % (+6.9 % before: at the bound, not a measured cure of the convergence
# above), queue +0.0 %.  So both meet the goal there, 10 flows by a hair.
FEW_LARGE = {
    5: range(101, 197),
    # +5.8 % on 234e048 over seeds 1-24, then the seeds of its expected failure; since a time-out's refills
    # (AckRing._refill) +3.9 % there (SE 1.4 %), +5.9 % over seeds 1-48 (SE 1.1 %), +5.6 % over 1-96.
    10: range(1, 49),
}


# Since the receivers' delayed-ACK timer races the next packet (AckRing._delay_acks), 10 flows read
# +5.5 % (seeds 1-24; +4.9 % without the race), and +7.3 % over seeds 25-96 (standard error 0.9 %; 5bf4a6a),
# +6.8 % over the 96: a miss, not the seeds' spread.  The race is not what moves it: their windows of about
# 50 packets go as one train a round trip of about 225 ms, so the train's odd last packet waits about as long
# as the 200 ms timer for the next train, but placing the race at the packets' own places in their steps (a
# step's last packet at the end of its spread, the next step's first at its start; not kept) read +5.49 %.
# What does is described above (more events and more drops per event as the step shrinks): not isolated.
# Since a time-out's retransmissions are ACKed at once only where they fill a hole below data the receiver
# holds, each a whole ACK's growth (AckRing._refill), the default step's loss is 5.32e-4 and the change
# +5.9 % over seeds 1-48 (SE 1.1 %), +5.3 % over 49-96, +5.6 % over the 96 (about 0.8 %); seeds 1-24 read
# +3.9 % (SE 1.4 %), which the 24 seeds this test ran could not tell from the goal: it runs 48 now.
# Since the receiver's window holds a flow in fast recovery (Sender._hold_edge; cde67b8): +7.1 % over seeds 1-48,
# +4.8 % over 49-96; since an ACK's SACK blocks delay the packets it releases (AckRing.blocks): +6.9 % and
# +4.9 %, +5.9 % over the 96 (queue -0.1 %).
FEW_LARGE_MISSES = {10: "10 drop-tail flows at 10 ms: loss +6.9 % at half the step (seeds 1-48; +5.9 % over "
                        "seeds 1-96), issue 12's goal 5 %: an overflow's drops spread over more flows at the "
                        "default step than at a finer one; not isolated"}


@pytest.mark.parametrize("n_flows", [5, pytest.param(10, marks=pytest.mark.xfail(strict=True,
                                                                                  reason=FEW_LARGE_MISSES[10]))])
def test_halving_the_step_at_few_large_window_droptail_flows(n_flows):
    s = _droptail_row(n_flows, phase_effect=True)
    assert s.step == pytest.approx(0.004)  # half the smallest propagation RTT: no cap applies
    for name, change in _halving_changes(s, FEW_LARGE[n_flows], ["loss_rate", "queue"]).items():
        assert abs(change) < 0.05, (name, change)
