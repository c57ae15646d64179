"""Halving the engine's step where windows are a few packets (issue 12's fidelity goal: < 5 %)."""

import dataclasses

import numpy as np
import pytest

from tcpmodels import sim

pytestmark = pytest.mark.slow


def _droptail_row(n_flows, phase_effect=False):
    # The 10 ms drop-tail row of ns3_more_10ms (set up as tests/ns3_references.py's ns3_scenario, with the
    # classic recovery the references ran), the phase effect off unless asked.
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
    # At 200 flows windows are 3-4 packets and the round trip, about 240 ms, mostly queue; the 1 Mbit/s access
    # links' 4.6 ms a packet would put a burst's next packet in the next 4 ms step (half the smallest
    # propagation RTT), where the engine loses less than at any finer step, so Scenario.step takes 0.49 of
    # it, 2.26 ms.  Measured on 9da03be (seeds 1-4, 100 s): halving that step moves loss by +1.1 %.  The
    # bound is the issue's 5 %.  The figures before: docs/simulator_record.md ("The tests' earlier figures").
    s = dataclasses.replace(_droptail_row(200), duration=100.0)
    assert s.step == pytest.approx(0.49 * 576 * 8 / 1e6)  # Scenario.step's access-link rule
    assert abs(_halving_changes(s, range(1, 5), ["loss_rate"])["loss_rate"]) < 0.05


# Few flows with large windows (the 10 ms drop-tail rows at 5 and 10 flows, as the references' rows run: phase
# effect on; ns-3's windows 103 and 50 packets, loss below 0.1 %: 26 and 228 drops a run), over so many seeds that
# the change is measured, not the seed spread.  Measured on 9da03be, loss / queue at half the default step (4 ms,
# half the smallest RTT) against it: 5 flows (seeds 101-196) -0.6 / -0.1 %; 10 flows (seeds 1-48) +6.9 / -0.1 %,
# and +4.9 % on loss over seeds 49-96 (the standard error of a change over 48 seeds about 1.1 % at 10 flows, over
# 96 about 2.3 % at 5, as measured on 6c294b2 and ff8eea5).  At 10 flows the loss goes on rising to a quarter or an
# eighth of the step, through both the congestion events and the drops per event: the default step spreads an
# overflow's drops over more of the 10 flows than a finer one.  Why is not isolated; what was measured and tried
# (the overflow counted packet by packet, a fixed phase per flow, a flow's bursts as one train, the ACK ring's
# rounding and its split, the receivers' at-once ACKs above a hole, PRR, the access links, the delayed-ACK timer's
# race) is in docs/simulator_record.md ("The tests' earlier figures").  The bound is the issue's 5 %.
FEW_LARGE = {5: range(101, 197), 10: range(1, 49)}


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
