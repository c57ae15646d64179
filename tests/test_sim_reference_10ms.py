"""The simulator against the packet-level (ns-3) references on the thesis' 10 ms dumbbell (issue 12's goals).

``ns3_red_10ms`` (the wait=0 rows) and ``ns3_more_10ms`` (drop-tail, gentle RED, ECN), set up in
``ns3_references.py``.  Every test here simulates minutes of traffic, so all are marked slow; CI runs them.
"""

import dataclasses

import pytest
from ns3_references import ROWS

from tcpmodels import sim

pytestmark = pytest.mark.slow


# The batch runs 100 s, statistics over [20, 100] s, where the references ran 200 s: half the work, to keep
# the suite within its time.  Measured so since an ECN echo halves the flight its ACK leaves, as ns-3
# 3.44 reduces (NewReno.reduced_on_echo; classic recovery, seed 1): every row above 0.1 % loss -11.2 ...
# +4.1 % on loss (mean of the errors' sizes 4.8 %; drop-tail at 60, 80, 100, 150, 200 flows -11.2, -8.1,
# -10.6, -8.1, -7.7 %; RED with ECN at 20, 70, 150, 300 flows +1.2, -0.2, +1.4, +4.1 %, the highest),
# -7.7 ... +1.9 % on the queue (ECN +1.9, +1.5, +0.3, -1.3 %), time-outs x0.75-1.03 on the goal's rows
# (ECN at 300 flows x1.03), windows -8 ... +1 % (ECN -1 ... +1 %).  The RED, gentle and drop-tail rows are
# bit for bit those before it.  Before it, with the echo halving the full window (RFC 3168 6.1.2), the ECN
# rows read (seeds 1-2) +10.9, +7.4, +15.0, +3.6 % on loss (150 flows +16.3 % at seed 1: drops above
# max_th 0.0065 of the arrivals against ns-3's 0.0006, marks within 0.3 %), +9.7, +8.1, +2.3, -0.0 % on
# the queue, windows +5, +5, +2, +1 %.  Since the
# receivers' delayed-ACK timer races the next packet and windows grow per ACK (AckRing._delay_acks,
# Sender._acks_counted), with drop-tail's flows kept in service times of their own
# (queues._DropTail._apart; classic recovery, seed 1): every row above 0.1 % loss -11.2 ... +16.3 % on loss
# (mean of the errors' sizes 5.8 %; RED 500/0.02 at 200 and 300 flows -5.9 and -4.8 %; RED with ECN at 150
# flows +16.3 %, the highest), -7.7 ... +10.1 % on the queue, time-outs x0.75-0.98 on the goal's rows,
# windows -8 ... +6 %.  Before them, on 71a70a0 (fast retransmit decided at the step of the third
# duplicate ACK, before that step's sending, the retransmission in the place of the new packet that ACK
# had let out: Sender.decide_on_dupacks; classic recovery, seed 1): every row above 0.1 % loss -20.6 ...
# +10.4 % on loss (mean of the errors' sizes 8.4 %; drop-tail at 80 and 100 flows -20.6 and -19.5 %, RED
# 500/0.02 at 200 and 300 flows -18.2 and -11.5 %), time-outs x0.70-0.97 on the goal's rows.  Before, on
# 74a3851 (a lost retransmission's timer from the first duplicate ACK, Sender._timer_base; classic
# recovery, seed 1): every row above 0.1 % loss -18.2 ... +10.4 % on loss
# (mean of the errors' sizes 6.6 %; drop-tail at 80 and 100 flows -18.2 and -16.4 %, RED 500/0.02 at 200 and
# 300 flows -12.2 and -8.1 %, gentle RED at 150 and 300 flows -6.9 and -7.9 %), -8.2 ... +9.8 % on the queue,
# time-outs x0.75-1.01 on the goal's rows, windows -8.1 ... +5.6 %.  Before it, with ns-3 3.44's classic
# recovery (the references': see ns3_references.references_sender) on b0804d0, seed 1, loss / queue
# against the reference: every row above
# 0.1 % loss -18.8 ... +10.4 % on loss (drop-tail at 80 and 100 flows -18.8 and -16.5 %, RED 500/0.02 at 200
# and 300 flows -15.1 and -12.6 %, gentle RED at 150 and 300 flows -11.6 and -11.9 %), -8.2 ... +9.8 % on the
# queue (drop-tail at 5 flows -8.2 %), time-outs x0.73-0.99 on the goal's rows, windows -7.6 ... +5.6 % (RED,
# gentle, ECN) and -8.1 ... -0.7 % (drop-tail).  With prr-ns3.44, the sender these tests ran until b0804d0,
# measured so on 234e048: every row above 0.1 % loss -3.4 ... +12.3 % on loss (drop-tail at 20 flows
# +12.3 %, RED with ECN at 20 flows +10.4 %), -6.8 ... +9.8 % on the queue, time-outs x0.81-1.17 on the goal's
# rows, windows -3.0 ... +5.6 % (RED, gentle, ECN) and -8.9 ... +1.1 % (drop-tail at 80 and 150 flows).  Both
# inside the same bounds as the 200 s figures below: on every row above 0.1 % loss the 100 s loss error is
# within 4 points of the 200 s one (classic: 2.3 points, drop-tail at 40 flows) (80 s of a 10 ms link hold
# thousands of congestion events there).
@pytest.fixture(scope="module")
def ns3_runs():
    keys = sorted(ROWS)
    return dict(zip(keys, sim.simulate([dataclasses.replace(ROWS[k][0], duration=100.0) for k in keys]), strict=True))


# Measured at 200 s on 71a70a0 (seed 1): every row above 0.1 % loss -21.4 ... +10.5 % on loss (mean of the
# sizes 8.3 %; drop-tail 500 at N = 20 ... 200 -0.5, -11.2, -16.9, -21.4, -19.1, -14.4, -15.8 %; RED 500/0.02
# at 200 and 300 flows -18.5 and -11.9 %; gentle RED -7.4, -8.7, -8.1 %), the queue -7.5 ... +10.1 % (drop-tail
# at 5 flows the lowest), time-outs x0.69-0.96 on the goal's rows.  The heavy rows lose 3-6 points more than
# before it, 2.5-5 of them because a flow no longer sends a new packet at its third duplicate ACK, which ns-3
# does not, and which held their loss up (measured apart: docs/simulator_record.md).
# Measured at 200 s on 74a3851 (seed 1; loss / queue error (%), time-outs as a multiple of the reference's):
#   RED 500/0.02, N = 10 ... 300:  +1/+1 x0.38, +0/+1 x1.33, -1/+1 x0.84, -1/-0 x0.97, -1/-1 x1.21,
#     -6/-4 [x0.85], -13/-0 [x0.80], -9/-0 [x0.89]
#   RED N = 100, max_p 0.005, 0.01, 0.04, 0.08:  -9/+0 x0.80, -4/-4 x0.98, -2/-1 [x1.00], -4/-2 [x1.02]
#   RED N = 100, max_th 100, 250, 1000, 2000:  -4/+0 [x0.98], -4/-0 [x0.94], -5/-5 x0.91, -5/-4 x0.73
#   drop-tail 500, N = 5 ... 200:  +15/-7, -9/-1 x0.25, +6/-1 x0.87, -10/-2 x1.07, -9/-1 x0.88,
#     -18/+1 x0.74, -15/+0 x0.97, -9/-2 [x0.80], -12/-0 [x0.95]
#   gentle RED 250/0.1, N = 50, 150, 300:  -4/-2 [x0.97], -7/-2 [x0.95], -8/-1 [x0.95]
#   RED 500/0.02 with ECN, N = 20, 70, 150, 300:  +10/+10, +8/+9, +1/+1 x1.41, +0/-2 [x0.92]
# i.e. every row above 0.1 % loss within -17.9 ... +10.5 % on loss (mean of the sizes 6.2 %), the queue
# within -6.9 ... +10.1 %, time-outs x0.80-1.02 on the goal's rows, windows -7.5 ... +5.7 %.
# Measured at 200 s with ns-3 3.44's classic recovery (the references'; the test's sender) on b0804d0,
# simulator against ns-3, loss / queue error (%) and time-outs per packet as a multiple of the reference's
# (in brackets where the reference's exceeds 1e-3, the goal's rows), this file's batch (seed 1):
#   RED 500/0.02, N = 10 ... 300:  -1/+1 x0.77, +0/+0 x1.29, -2/+0 x0.77, -2/-0 x0.96, -2/-2 x1.20,
#     -7/-5 [x0.83], -15/-0 [x0.73], -13/-0 [x0.79]
#   RED N = 100, max_p 0.005, 0.01, 0.04, 0.08:  -11/+0 x0.85, -5/-5 x0.87, -3/-2 [x1.00], -6/-4 [x0.94]
#   RED N = 100, max_th 100, 250, 1000, 2000:  -11/+0 [x0.86], -7/-0 [x0.91], -4/-5 x1.05, -5/-5 x0.65
#   drop-tail 500, N = 5 ... 200:  +15/-7, -11/-2 x0.75, +3/-1 x0.50, -7/-1 x1.07, -10/-1 x1.19,
#     -19/+1 x0.83, -17/+1 x1.09, -11/-2 [x0.77], -16/-0 [x0.88]
#   gentle RED 250/0.1, N = 50, 150, 300:  -7/-5 [x0.93], -11/-6 [x0.87], -12/-5 [x0.87]
#   RED 500/0.02 with ECN, N = 20, 70, 150, 300:  +11/+10, +8/+9, +1/+1 x1.47, -5/-1 [x0.81]
# i.e. every row above 0.1 % loss within -18.6 ... +10.5 % on loss, the queue within -6.9 ... +10.1 %,
# time-outs x0.73-1.00 on the goal's rows.  The heavy rows read lower on loss than with prr-ns3.44 (below:
# drop-tail at 80 flows -19 against -1 %, RED at 200 flows -15 against -1 %), with windows 1-8 % small and
# time-outs x0.73-0.88: with the recovery the references ran, the simulator loses 10-19 % too little on the
# heavy rows (drop-tail from 60 flows, RED 500/0.02 from 200, gentle RED from 150, RED at 100 flows with
# max_th 100 or max_p 0.005), a bias that 3.44's PRR, which lets more out in recovery, had hidden.  Not
# isolated yet.
# The same batch with ns-3 3.44's PRR (recovery="prr-ns3.44", the test's sender until b0804d0), fast
# retransmit at the third duplicate ACK counted as they return
# (NewReno.loss_detected; tests/test_sim_dupacks.py), receivers that ACK at
# once every packet above a hole and the one that fills it (RFC 5681 4.2;
# AckRing.lost, tests/test_sim_ackgap.py), a window's later holes found
# lost one after another as the duplicate ACKs pass them (RFC 6675 IsLost)
# and a receiver that got nothing of a step holding its ACK (AckRing.first_lost),
# drop-tail's phase effect resolved packet by packet in each overflowing
# step (DropTail.phase_effect, drops.fifo_drops, tests/test_sim_phase.py) and
# PRR taken once per ACK where a flow's ACKs share a step (Sender._prr_sends,
# tests/test_sim_step.py) and round trips that hold the packet's and its
# ACK's serialization (Scenario.serialization), measured on 3819adb; on
# 94e94b5, where RED spares the arrivals that find at most one packet queued
# (queues.JUDGED_ABOVE), which moved five rows (RED 500/0.02 at 20 flows
# x1.55, max_th 100 -1/-0, gentle at 50 flows +1 % on queue; RFC 6937's PRR
# below: max_th 100 -7 %, gentle at 50 flows -5/-4 [x0.89]); the drop-tail
# rows at 100-200 flows on 03ee2dc, whose access-link rule runs them at a
# 2.26 ms step instead of 4 ms (Scenario.step):
#   RED 500/0.02, N = 10 ... 300:  +2/+3 x0.77, +3/+3 x1.33, +1/+3 x0.84,
#     +1/+2 x1.04, +3/+2 x1.23, -3/+0 [x0.86], +1/-0 [x1.04], -1/-1 [x0.90]
#   RED N = 100, max_p 0.005, 0.01, 0.04, 0.08:  +0/-0 x1.01, -1/-2 x0.99,
#     +2/+4 [x1.00], +1/+3 [x1.00]
#   RED N = 100, max_th 100, 250, 1000, 2000:  -2/-1 [x0.94], +10/-0 [x1.14],
#     -1/-1 x0.91, -2/-2 x0.64
#   drop-tail 500, N = 5 ... 200:  +36/-8, -7/-4 x0.50, +9/-2 x1.49, +3/-4 x3.99,
#     +5/-4 x1.65, -1/-4 x1.11, +5/-3 x1.30, +4/-1 [x1.15], +3/-0 [x1.10]
#     (3819adb, at 4 ms: +2/-3 x1.27, +1/-1 [x1.01], -2/-0 [x1.07] at
#     100-200 flows; loss at 5 and 10 flows is below 0.1 %: 7e-5 and 6e-4,
#     outside the goal; at 5 flows a run holds a few dozen drops)
#   gentle RED 250/0.1, N = 50, 150, 300:  -1/+0 [x0.97], -2/+3 [x0.91], -4/+4 [x0.89]
#   RED 500/0.02 with ECN, N = 20, 70, 150, 300:  +10/+10, +8/+9, +1/+1 x1.36,
#     -3/-2 [x0.85]  (ECN's reductions are immediate halvings: ns-3 3.44
#     paces them by PRR too, not modelled)
# (bb89f7d, before the serialization: RED max_th 250 +16/+1 [x1.30], drop-tail
# +73/-10, +3/-3 x0.00, +15/-2 x1.49, +3/-4 x3.68, +4/-4 x2.12, +1/-3 x1.43,
# +6/-3 x1.39, +4/-1 [x1.16], +1/-0 [x1.08]; the other rows -2 ... +12 % on
# loss, -2 ... +12 % on queue.)
# With the default sender, RFC 6937's PRR (Linux and later ns-3 releases),
# the same batch reads (measured on 3819adb and 94e94b5, seed 1; drop-tail
# at 100-200 flows on 03ee2dc):
#   RED 500/0.02:  +1/+1 x0.61, -0/+1 x1.29, -1/+0 x0.80, -1/-0 x1.00, -1/-1 x1.07,
#     -7/-4 [x0.84], -14/-0 [x0.73], -10/-0 [x0.80]
#   max_p:  -5/-0 x0.87, -4/-4 x0.93, -3/-1 [x0.94], -5/-3 [x0.93];  max_th:  -8/+0
#     [x0.87], -4/-0 [x0.86], -4/-4 x0.99, -4/-4 x0.57
#   drop-tail:  -6/-4, -21/-3 x0.25, -2/-1 x0.25, -10/-2 x1.84, -8/-1 x0.95,
#     -15/+0 x0.82, -16/+1 x0.88, -9/-1 [x0.75], -11/-0 [x0.87] (3819adb,
#     at 4 ms: -17/+1 x0.93, -11/-1 [x0.75], -14/-0 [x0.87] at 100-200 flows)
#   gentle:  -6/-4 [x0.92], -9/-4 [x0.87], -9/-2 [x0.87];  ECN:  +10/+10,
#     +8/+9, +2/+1 x1.68, -4/-1 [x0.83]
# i.e. with ns-3 3.44's PRR every row that loses more than 0.1 % is within
# 20 % on loss (-4 ... +11 %; RED with ECN at 20 flows +11 % and with max_th
# 250 +10 % the nearest the edge; drop-tail -1 ... +9 %), within -8 ... +10 %
# on the queue (drop-tail -8 ... -0), and its time-outs x0.85-1.15 on the
# goal's rows (drop-tail at 150 and 200 flows x1.15 and x1.10; x1.01 and
# x1.07 at 4 ms on 3819adb); the default's drop-tail loss sits -2 ... -16 %
# from 20 flows up (within the goal) and its
# time-outs x0.73-0.94, drop-tail's x0.75 and x0.87 at 150 and 200 flows (the
# default is not held to this file's bounds, but meets them here).
# (bb89f7d: 3.44's PRR -2 ... +16 % on loss, drop-tail +1 ... +15 %, queue
# -10 ... +12 %, time-outs x0.88-1.30, drop-tail x1.16 and x1.08; RFC 6937's
# drop-tail +7 ... -14 %, time-outs x0.77 and x0.88.)
# Before drop-tail's phase effect (a6da10c: the overflow fell on the trains
# that meet the full buffer without regard to their phase in the packet
# service time, as DropTail(phase_effect=False) still does; the same batch):
# with ns-3 3.44's PRR drop-tail +36/-8, -21/-7 x0.00, -2/-6 x0.75, -4/-6
# x1.99, -8/-5 x1.19, -6/-5 x0.98, -2/-7 x0.76, -1/-4 [x0.52], -4/-1 [x0.63]
# at 5 ... 200 flows; RFC 6937's PRR +10/-5, -24/-6 x0.00, -13/-4 x0.25,
# -18/-4 x0.92, -19/-2 x0.66, -18/-3 x0.46, -17/-3 x0.54, -18/-3 [x0.29],
# -17/-1 [x0.37]; RED, gentle and ECN rows bit for bit as with it.
# Before the receiver that got nothing held its ACK (8da7df5:
# every flow that lost its step's only packet sent its held ACK at the drop;
# the same batch): with ns-3 3.44's PRR drop-tail -14, +1, -0, -8, -6, +2, +5,
# +1 % at 10 ... 200 flows, time-outs [x0.56], [x0.66] at 150 and 200, loss
# over the goal's rows -8 ... +17 %; RFC 6937's PRR drop-tail -13 ... -17 %
# from 20 flows, time-outs [x0.32], [x0.40].
# Before (6557087: receivers that delayed the ACK of a packet above a hole as
# of any other, and every hole of a window found at fast retransmit; the same
# batch): with ns-3 3.44's PRR drop-tail -7, -7, -9, -11, -11, -17, -21 % at
# 20 ... 200 flows, time-outs [x0.83], [x0.87] at 150 and 200, RED 500/0.02
# +6 ... -15 % with [x2.0] at 150 flows, max_th 250 -0 % [x1.4], gentle -8,
# -14, -16 %; RFC 6937's PRR drop-tail -14 ... -25 % from 20 flows (five rows
# outside 20 %), RED -18 % at 200 and 300 flows, gentle -11 ... -18 %, [x2.14]
# at RED's 150 flows.  Whose gap was that?  Replica measurements (an ns-3
# 3.44 replica, not in the repository, with a 1-packet device queue, run with
# 3.44's PRR and with RFC 6937's, i.e. 3.44's double count removed; 100 s,
# ns-3 seeds 1-3, simulator seeds 1-2): the simulator lost 16-23 % less than
# the matching replica variant on drop-tail at 40-200 flows with 3.44's PRR
# and 20-24 % with RFC 6937's, its fast recoveries lasted one round trip
# (0.23 s at 10 ms, the queue's ~0.22 s included) where ns-3's take 0.33-0.35
# s, and it dropped 1.33-1.46 packets per congestion event where ns-3 drops
# about 1.58.  A receiver that delays the ACK of a packet above a hole holds
# back the duplicate ACK, and with it the packet SACK lets out, for up to its
# 200 ms timer; ACKing those at once (RFC 5681 4.2, as ns-3's TcpSocketBase
# and ns-2's DelAckSink do) and finding the later holes as the duplicate ACKs
# pass them, as ns-3's scoreboard does, gave recoveries of 0.26-0.33 s,
# 1.50-1.59 drops per event on drop-tail, 5-15 % of the drops on flows in
# recovery (ns-3 6-13 %) and loss -6 ... -10 % against the 3.44 replica on
# drop-tail at 100-200 flows (-14 % at 40), -2.1 % and -2.7 % on RED 0.005 at
# 100 flows and 0.02 at 150, time-outs x0.54-1.15 of the replica's (a6da10c:
# a receiver that got nothing of a step holds its ACK; 8da7df5, which sent
# it at the drop, read 1.56-1.67 drops per event, -1 ... -6 % and -12 % on
# drop-tail, x0.64-1.06); with RFC 6937's PRR it lost 16-19 % less than the
# matching replica variant on drop-tail at 40-200 flows and timed out
# x0.32-0.57 as often.  What remained on drop-tail was its phase effect
# (Floyd & Jacobson 1992): ns-3's per-flow loss follows each flow's round
# trip modulo the packet service time (a sinusoid in that phase explains 40 %
# of its variance at 150 flows; per-flow loss spreads 3x as wide as binomial
# noise, the same flows losing in both halves of a run, and one flow per run
# escapes to its access rate), where the simulator's overflow fell on its
# flows alike (helper mechb's traces, issue 12).  With the phase effect
# resolved packet by packet, PRR per ACK and round trips holding the
# serialization (3819adb; 100 s, seeds 1-2 against the replica's 3 seeds):
# with 3.44's PRR loss -6, -6, -9, -3 % at 40, 100, 150, 200 flows, time-outs
# x1.50, x1.07, x1.09, x1.19, recoveries 0.29-0.33 s, 1.51-1.63 drops per
# event, 6-19 % of the drops on flows in recovery; RFC 6937's PRR -7, -19,
# -12, -13 %, time-outs x0.75, x0.95, x0.79, x0.99, 1.40-1.49 drops per event,
# 1.0-9.8 % of the drops on flows in recovery (ns-3 1.7-10.8 %).  (bb89f7d:
# -6, -3, -4, -1 %, x1.06-1.29; RFC 6937's -7, -17, -9, -12 %, x0.75-1.07.
# 4e3ebb8, the phase effect as a rank rule: -7, -2, -7, -2 %; before it -14,
# -10, -10, -6 %.)  At 150 flows (4e3ebb8, seed 1, RFC 6937's PRR) the
# escaping flow takes 10.0 % of the goodput (ns-3 9-12 %), Jain index 0.42
# (0.44-0.48), per-flow loss q10/50/90 0.021/0.046/0.067 (ns-3
# 0.023/0.056/0.077), correlation of the halves 0.64 (0.65).  Drops still
# come in episodes twice as clustered as ns-3's (arrivals' index of
# dispersion over 240 ms 1.7, ns-3 0.6, 2.4 before): not resolved here.
#
# Before (fd5b793: RFC 6937's PRR, fast retransmit one round trip after the
# drop with every duplicate ACK at once): RED 500/0.02 +4 ... -9, max_p 0.005
# +27/-2 x2.7, max_th 100/250 -14/-7 [x1.2], +7/-1 [x2.0], drop-tail N = 20
# ... 200: -5/-5 x2.9, -4/-5 x7.9, -4/-6 x4.3, +3/-7 x4.1, +12/-10 x3.8,
# +27/-14 [x2.0], +21/-11 [x1.4], gentle -14/-11, -12/-7, -14/-8 (loss
# bound 35 % there; ns-3 3.44's PRR then moved max_p 0.005 to +38 % and
# drop-tail 150 to +32 %).  What that missed, measured against an ns-3 3.44
# replica of the rows (not in the repository; a 1-packet device queue puts
# its loss 14 % above the reference at 150 flows, 8 % at 200; seed 1):
# * ns-3 enters recovery 1, 2 or 3 round trips after a flow's first drop
#   (first drop -> recovery or RTO, 10/25/50/75/90 %: 0.26/0.45/0.49/0.73/0.99 s
#   at 150 flows, 0.28/0.48/0.54/0.93/1.18 s at 200, 0.25/0.26/0.42/0.48/0.72 s
#   at max_p 0.005; the round trip is ~0.24 s, mostly queue): the packets sent
#   after the loss bring their duplicate ACKs back, each SACK letting the next
#   one out.  The simulator decided one round trip after the drop, always.
# * So its windows halved early and the retransmissions left into the
#   overflow that caused them: 11 % of retransmissions lost (ns-3: 3.9 % in
#   recovery, below its 4.8 % loss; 8.0 % against 6.8 % at 200 flows), the
#   queue cycled (5/25/50/75/95 %: 308/361/422/498/500; ns-3 456/481/495/498/500)
#   through 0.5 s overflows of up to 82 drops per 0.1 s (ns-3 ~39), after
#   which ~30 flows sat timed out at once; drops per 250 ms: variance/mean
#   77, 58 % of windows empty (ns-3 23 and 28 %).  Time-outs in 40 s: 440
#   after a lost retransmission, 242 with too few duplicate ACKs (ns-3: 158
#   from recovery, 111 from open or disorder).
# * Counting the duplicate ACKs as they come gives ns-3's timing (150 flows:
#   0.26/0.27/0.47/0.49/0.71 s), queue (445/472/492/499/500), drop clustering
#   (22 and 34 %), 2.2 % of retransmissions lost, time-outs x0.87.  With RFC
#   6937's PRR 1.33 drops per congestion event remain where the replica has
#   1.53-1.58: 3 % of the drops fall in fast recovery against ns-3's 8 % (13 %
#   at 200 flows; state at the drop, ns-3: open 84 %, disorder 7 %, recovery
#   8 %, loss 1 %); ns-3 3.44's PRR, which lets more out early in recovery,
#   closes most of that.
# (Drop-tail at 200 flows sat at the goal's edge before, -21 %, with a bound
# of 25 %; -4 % at a6da10c, +1 % on bb89f7d, -2 % on 3819adb, +3 % on 03ee2dc
# at 2.26 ms; every row has the goal's 20 %.)
# Drop-tail's lock-out, simulated by the phase effect: the reference's Jain
# index of goodput on the drop-tail rows is 0.523/0.384/0.521/0.425 at
# 20/40/100/200 flows, the simulator's 0.579/0.784/0.507/0.456 (seed 1, this
# batch; seed 2 0.590/0.813/0.518/0.471; at 150 flows 0.463 and 0.524, an
# ns-3 replica 0.44-0.48; 20 and 40 flows on 3819adb, 100-200 flows on
# 03ee2dc at 2.26 ms, which on 3819adb, at 4 ms, read 0.550/0.394, seed 2
# 0.502/0.491, at 150 flows 0.514 and 0.514): a weaker escaper than ns-3's
# at 20 and 40 flows; bb89f7d read 0.646/0.817/0.504/0.503, 4e3ebb8's rank rule
# 0.552/0.351/0.526/0.345, and 0.978/0.989/0.994/0.995 before the phase
# effect, a6da10c.  In every
# run of an ns-3 replica one flow loses next to nothing and sends 8-25 % of
# the packets, at its 64 KB window or, from 100 flows, at its 1 Mbit/s access
# link (a tenth of the bottleneck; tcpmodels.droptail's P3 step 5), and so
# does one flow of the simulator's.
#
# Halving the step (4 ms to 2 ms on every row but drop-tail's at 100-200
# flows): the ECN rows, since an echo halves the flight its ACK leaves
# (classic recovery, seeds 1-2), move by +0.5, -0.5, +1.5, +1.0 % on loss at
# 20, 70, 150, 300 flows, by 0.5 % or less on the queue.  With ns-3 3.44's PRR on 3819adb (round trips holding the
# serialization; the RED, gentle and ECN rows on 94e94b5), seeds 1-2 at each,
# change of loss / queue (%): every RED, gentle and ECN row within 4.2 % on
# loss (RED 500/0.02 at 200 flows +4.2 %, gentle RED at 150 and 300 +3.1 and
# +3.4 %; 3819adb +3.3 and +3.1 %), 3.5 % on queue (gentle 300; 3819adb
# 3.6 %, gentle 150); drop-tail 10 ... 80 flows +6.5, -1.9, -1.0, -1.7,
# +3.4 % on loss (10 flows, below 0.1 % loss: seeds -0.4 and +13.8), queue
# within 1.8 %; 5 flows +20.8 % (seeds +7.7 and +36.4 %: a few dozen drops a
# run).  Drop-tail at 100, 150 and 200 flows, whose 1 Mbit/s access links
# take 4.6 ms a packet, run on 03ee2dc at 2.26 ms (Scenario.step's
# access-link rule) and move by -1.0, +1.8, +1.4 % on loss (150: +3.4 and
# +0.3; 200: +1.6 and +1.2), queue within 1.0 %; from 4 ms, on 3819adb, they
# moved by +0.1, +4.8 and +5.4 % (150: +3.7 and +6.0; 200: +6.0 and +4.7;
# tests/test_sim_step.py).  Those 2 seeds' +20.8 % at 5 flows was their
# spread: over 96 seeds (ff8eea5) halving moves it by +2.6 % (SE 2.3 %), but
# at 10 flows over 48 by +6.9 % (SE 1.1 %), the loss rising on to an eighth
# of the step (test_sim_step.py's few-large-window test, a strict expected
# failure at 10 flows): issue 12's 5 % is missed there only.  (bb89f7d: RED, gentle and ECN within 4.5 % on
# loss, 3.3 % on queue; drop-tail +5.8, -0.4, -0.6, +3.4, +3.0, +0.0, +4.0,
# +5.8 %; 5 flows -8.9 %.)
# Before (6557087, the
# duplicate ACKs counted as they come): RED, gentle and ECN within 1.2 % on
# loss, 1.0 % on queue; drop-tail -0.2, +6.6 (seeds +3.6, +9.5), +1.3, -2.1,
# -0.5, -0.7, -0.1, +2.0 %, queue within 0.6 %; 5 flows -10 %.
# Before the duplicate ACKs were counted (RFC 6937's or RFC 6675's recovery),
# 4 seeds at each, seed spread of the difference in brackets where above 1 %:
#   RED 500/0.02, N = 10 ... 300:  -0/+0, +0/+1, +0/+1, +1/+2, -0/-0, +0/+0,
#     +2/-0, -0/+0
#   RED max_p 0.005 ... 0.08:  +2 (1.2)/-0, -1/+0, +0/+1, +0/+0;
#     max_th 100 ... 2000:  +2/+0, +1/-0, -1/+0, -0/+0
#   drop-tail 500, N = 5 ... 200:  -22 (15)/+3 (1.8), +7 (4)/-1, +9 (3)/-1,
#     -3 (1.3)/+0, -3/+0, -4/+1, -1 (1.1)/+1, -2/+2, -3 (1.2)/+2
#     (8 seeds x 200 s, before PRR, N = 10, 20, 40, 60, 100, 150, 200, loss:
#     +7, +3, -2, -4, -2, -2, -2 spread uniformly; +2, +2, -3, -3, -2, -2, -2
#     on the trains that meet the full buffer; queue within 2 %)
#     (8 seeds x 200 s, N = 10, 20, 40, 60, 100, 150, 200, loss, with PRR:
#     +8, +3, -2, -2, -2, -3, -2 spread uniformly; +7, +3, -2, -3, -2, -3, -2
#     on the trains that meet the full buffer; queue within 2 %)
#   gentle RED, N = 50, 150, 300:  +7/+7, +1/+1, +0/+1
#   ECN, N = 20 ... 300:  -1/-0, -1/+0, +1/-0, +1/+0
# Outside issue 12's 5 % over 4 seeds: drop-tail at 10-20 flows (loss; over 8
# seeds only at 10 flows, 143 events a run) and gentle RED at
# 50 flows (windows of 1.7 packets, RTTs of 2-3 steps); in both the half step
# sits nearer ns-3 (gentle 50: -15/-13 % becomes -9/-7 %; drop-tail 20:
# loss -8 % becomes +0 %).  Not repeated in CI: 256 runs of 50 000-100 000
# steps (22 min).
# Further down (fd5b793, seeds 1-4, 200 s; x1 is the default 4 ms, RTT/2):
# the two rows converge toward ns-3 once the step is an RTT's quarter or
# eighth, i.e. the default step is too coarse there, not the mechanism
# unsteady.  Loss at x1, 1/2, 1/4, 1/8: drop-tail 10 flows 5.56e-4, +1.8 %,
# +6.5 %, -0.5 % (6.01e-4; ns-3 6.29e-4), queue 429, 431, 427, 428 (seed
# spread of a mean 1-4 %); gentle 50 flows 4.59e-2, +6.5 %, +0.7 %, +1.0 %
# (4.97e-2; ns-3 5.32e-2), queue 62.9, 66.8, 67.5, 67.9 (spread 0.2 %).  A
# step of RTT/4 would double the cost of every RTT-bound run (the standard
# benchmark's among them), so the rule stays.


# Rows where the simulator misses a goal, measured and explained (strict: a fix shows).  None since the
# receivers' delayed-ACK timer races the next packet (AckRing._delay_acks): drop-tail at 80 flows read -20.6 %
# here before it (-21.4 % at 200 s, 71a70a0), beyond issue 12's 20 %, and reads -8.1 % with it.
KNOWN_MISSES = {}


def _row(key):
    if key in KNOWN_MISSES:
        return pytest.param(key, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[key]))
    return key


@pytest.mark.parametrize("key", [_row(key) for key in sorted(ROWS)])
def test_loss_and_queue_match_packet_level_reference(ns3_runs, key):
    # Issue 12's goals: loss within 20 % wherever it exceeds 0.1 % (below,
    # drop-tail at 5 flows: 6e-5, a handful of drops), the average queue
    # within 15 % (classic recovery, as the test runs it, 71a70a0: loss -20.6
    # ... +10.4 %, drop-tail at 80 flows beyond the bound (KNOWN_MISSES), 100
    # flows the nearest it, -19.5 %; b0804d0: loss
    # -18.8 ... +10.4 %, drop-tail at 80 flows the nearest the bound; queue
    # -8.2 ... +9.8 %; with prr-ns3.44 measured on 3819adb -8 ... +10 %, drop-tail at 5 flows
    # the lowest, and on 03ee2dc, whose access-link rule moved drop-tail's
    # rows at 100-200 flows to a 2.26 ms step; bb89f7d -10 ... +12 %); the
    # link is busy throughout, as in ns-3.
    r, ref = ns3_runs[key], ROWS[key][1]
    if ref["drop_rate"] > 1e-3:
        assert r.loss_rate == pytest.approx(ref["drop_rate"], rel=0.2)
    assert r.queue == pytest.approx(ref["avg_queue"], rel=0.15)
    assert r.utilization > 0.99


@pytest.mark.parametrize("key", sorted(k for k in ROWS if ROWS[k][1]["timeouts_per_packet"] > 1e-3))
def test_timeouts_within_factor_2_of_reference(ns3_runs, key):
    # Issue 12's goal where the reference times out more than once per
    # thousand packets (below that a run holds a few dozen time-outs: the
    # light rows read x0.50-3.99 on 3819adb: drop-tail at 10 flows x0.50,
    # at 40 flows x3.99, ECN at 150 flows x1.36).
    # Classic recovery (the test's sender), 71a70a0, 100 s: x0.70-0.97 (RED at
    # 200 flows x0.70); b0804d0: x0.73-0.99 (RED
    # at 200 flows x0.75, drop-tail at 150 and 200 flows x0.73 and x0.88).
    # With prr-ns3.44, measured on 3819adb, seed 1: x0.85-1.14 (drop-tail at 150 and 200 flows
    # x1.01 and x1.07; RED with max_th 250 x1.14; the default sender, RFC
    # 6937's PRR, x0.73-0.94, drop-tail at 150 and 200 flows x0.75 and
    # x0.87); on 03ee2dc, whose access-link rule runs drop-tail's rows at
    # 100-200 flows at 2.26 ms, drop-tail at 150 and 200 flows x1.15 and
    # x1.10 (x0.85-1.15 in all; RFC 6937's PRR x0.75 and x0.87; at 100 flows,
    # a light row, x1.30, x1.27 before).  bb89f7d: x0.88-1.30 (drop-tail
    # x1.16 and x1.08; RFC 6937's PRR x0.77-1.03).  Before drop-tail's phase effect (a6da10c) drop-tail at 150
    # flows sat at the bound's edge, x0.52 (100 s runs at seeds 1 and 2: x0.49
    # and x0.50), and RFC 6937's PRR would have failed it there and at 200
    # flows (x0.29 and x0.37).  The bound is the goal, kept.
    ratio = ns3_runs[key].timeouts_per_packet / ROWS[key][1]["timeouts_per_packet"]
    assert 0.5 <= ratio <= 2.0


def test_windows_match_reference(ns3_runs):
    # Not a goal, but it shows the sender: the average window is within 10 %
    # of ns-3's on the RED, gentle and ECN rows (classic recovery, the test's
    # sender, b0804d0, 100 s: -7.6 ... +5.6 %, gentle RED at 150 flows -7.6 %;
    # drop-tail -8.1 ... -0.7 %; with prr-ns3.44 measured on 94e94b5, seed 1,
    # -3.0 ... +5.7 %, 3819adb -2.9 ... +5.7 %; RFC 6937's PRR -5.0 ... +5.7 %;
    # bb89f7d -5.5 ... +4.9 %; RFC 6675 recovery, before the duplicate ACKs
    # were counted as they come, -9 ... +5 %: PRR's window in recovery is, as
    # ns-3 traces it, the pipe plus what may leave), and within 15 % on
    # drop-tail: measured -9.0 ... +0.7 % (80 and 5 flows -9.0 and -7.4 %; RFC
    # 6937's PRR -6.5 ... +0.5 %; 100-200 flows on 03ee2dc, at the access-link
    # rule's 2.26 ms step, -0.4, +0.4, +0.7 %; 3819adb, at 4 ms, -9.0 ... +1.3 %
    # and -6.5 ... +2.1 %; bb89f7d
    # -9.9 ... -0.1 %).  Drop-tail's mean window holds the escaping flow's,
    # which one run's phases size: the 80-flow row read -2.6 % at 4e3ebb8 (the
    # rank rule), -9.8 % on bb89f7d, -9.0 % on 3819adb, so the 10 % that
    # 4e3ebb8's -7 ... +6 % allowed sits within 1 % of it, and seeds cross it
    # (bb89f7d, seeds 1-4: 80 flows -9.5 ... -10.4 %; 3819adb -8.4 ... -9.0 %,
    # 5 flows -5.3 ... -8.2 %, 20 and 200 flows -2.8 ... +1.3 %); the bound is
    # 15 % there (it was 25 % while drop-tail's windows sat 3-12 % low: a6da10c,
    # before the phase effect, where the escaping flow's large window was
    # missing; 5-14 % before the duplicate ACKs were counted as they come).
    for key, r in ns3_runs.items():
        rel = 0.15 if key.startswith("droptail") else 0.1
        assert r.window == pytest.approx(ROWS[key][1]["avg_cwnd"], rel=rel), key


def test_drop_tail_fairness_matches_reference(ns3_runs):
    # Not a goal, but the per-flow results rest on it: at a full drop-tail
    # buffer the flows earliest in the packet service time lose least, one of
    # them escapes to its access link's rate, and the rest share what is left
    # (Jain's index, over the flows' packets).  Since an ACK's SACK blocks delay the
    # packets it releases (AckRing.blocks; seed 1, 100 s): within 0.1 of ns-3's on
    # every row (N = 5 ... 200: +0.084, +0.095, +0.034, +0.014, +0.016, +0.035,
    # -0.024, +0.068, -0.006; on cde67b8 +0.084, +0.094, +0.034, -0.004, +0.070,
    # +0.077, -0.034, -0.011, -0.014; seeds 1-4 at 200 flows 0.36-0.50, 0.41-0.54
    # before, against the ns-3 replica's 0.36-0.41).  Measured (seed 1, 100 s) since
    # a flow's packets keep service times of their own (queues._DropTail._apart):
    # within 0.13 of ns-3's on every drop-tail row (N = 5 ... 200: +0.100,
    # +0.067, +0.124, +0.052, +0.063, -0.001, -0.002, -0.012, -0.067).  Before,
    # where the escaping flow's packets that the step's folding laid on each
    # other dropped one another, 40 and 80 flows read 0.74 and 0.66 against
    # ns-3's 0.38 and 0.46 (seeds 1-2), which the bound of 0.15 fails.
    for key, r in ns3_runs.items():
        if key.startswith("droptail"):
            assert r.jain_index == pytest.approx(ROWS[key][1]["jain"], abs=0.15), key
