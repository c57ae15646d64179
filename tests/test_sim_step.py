"""Halving the engine's step where windows are a few packets (issue 12's fidelity goal: < 5 %)."""

import dataclasses

import numpy as np
import pytest

from tcpmodels import sim

pytestmark = pytest.mark.slow


def _droptail_row(n_flows):
    # The 10 ms drop-tail row of ns3_more_10ms (set up as tests/test_sim_validation.py's
    # _ns3_scenario), the phase effect off: windows of 3-4 packets, an RTT of ~240 ms
    # that is mostly queue, and 1 Mbit/s access links whose 4.6 ms per packet is about
    # the default step (4 ms, half the smallest propagation RTT).
    return sim.Scenario(n_flows=n_flows, bandwidth=10e6, rtt=0.01, rtt_spread=0.4, packet_size=576,
                        queue=sim.DropTail(buffer=500, phase_effect=False),
                        sender=sim.NewReno(sack=True, recovery="prr-ns3.44"),
                        access_rate=max(10 * 10e6 / n_flows, 1e6), start_spread=10.0, duration=200.0, warmup=20.0)


@pytest.mark.xfail(strict=True, reason=(
    "200 drop-tail flows behind 1 Mbit/s access links: loss +5.1 % at half the default step (seeds 1-6, "
    "3819adb; +5.5 % with the phase effect on), beyond the issue's 5 %: the 4 ms step is near the access "
    "link's 4.6 ms a packet, and loss rises once the step falls to half of that (issue 12, open)"))
def test_halving_the_step_moves_small_window_droptail_loss_by_less_than_5_percent():
    # Measured at 200 flows, seeds 1-6, loss at the default step and at half of
    # it: +5.9 % before PRR took a step's ACKs of a flow one at a time, +4.1 %
    # after (bb89f7d: 6.112e-2 -> 6.363e-2, per seed +3.0 ... +6.3 %, SE 0.5 %).
    # On 3819adb, whose round trips hold the serialization: 5.928e-2 -> 6.228e-2,
    # +5.1 %, per seed +3.7 ... +7.5 %, SE 0.7 % (above the bound: the expected
    # failure above).
    # With the phase effect on (the 10 ms row as tests/test_sim_validation.py runs
    # it; seeds 1-4) 6.188e-2 -> 6.528e-2, +5.5 % (+4.7 ... +6.0 %, SE 0.3 %): the
    # default 4 ms step is near the 1 Mbit/s access link's 4.6 ms a packet, and
    # the loss rises once the step falls to about half of that (the packets of
    # flows awaiting a loss's detection wait at the access link; issue 12).  The
    # bound is the 5 %, about 2 standard errors above bb89f7d's change: a
    # regression of the step's fidelity fails it, the seed spread does not.
    s = _droptail_row(200)
    seeds = range(1, 7)
    batch = [dataclasses.replace(s, time_step=s.step * f, seed=seed) for f in (1.0, 0.5) for seed in seeds]
    runs = sim.simulate(batch)
    coarse = np.mean([r.loss_rate for r in runs[:len(seeds)]])
    fine = np.mean([r.loss_rate for r in runs[len(seeds):]])
    assert abs(fine / coarse - 1) < 0.05
