"""Every round trip holds the time to send a packet and its ACK on the links (``Scenario.serialization``)."""

import numpy as np
import pytest

from tcpmodels import sim


def _window_limited(access_rate, delayed_ack=False):
    # One flow whose 8-packet window, not the 100 Mbit/s link, limits it: it
    # delivers a window per round trip, and nothing queues.
    return sim.Scenario(n_flows=1, bandwidth=100e6, rtt=0.1, rtt_spread=0.0, packet_size=576,
                        queue=sim.DropTail(buffer=100), access_rate=access_rate, duration=60.0, warmup=10.0,
                        start_spread=0.0, sender=sim.NewReno(max_window=8, delayed_ack=delayed_ack))


def test_serialization_is_a_packet_and_its_ack_on_both_links():
    # (576 + 40) bytes at 1 Mbit/s and at 10 Mbit/s, by hand: 4.928 + 0.4928 ms.
    s = sim.Scenario(n_flows=100, bandwidth=10e6, rtt=0.01, packet_size=576, access_rate=1e6)
    assert s.serialization == pytest.approx(616 * 8 / 1e6 + 616 * 8 / 10e6, rel=1e-12)
    assert sim.Scenario(n_flows=1, bandwidth=10e6, rtt=0.01, access_rate=np.inf).serialization == pytest.approx(
        616 * 8 / 10e6, rel=1e-12)


@pytest.mark.parametrize("access_rate", [1e6, 2e6, np.inf])
def test_a_window_takes_the_round_trip_with_its_serialization(access_rate):
    # Without delayed ACKs each ACK releases one packet: the window comes back
    # every rtt + serialization (80 packets/s would be the propagation alone).
    # Measured 76.4, 78.2, 79.98 packets/s against 76.2, 78.0, 79.96: the 1 %
    # bound holds the ACK ring's rounding to steps, and fails an engine without
    # the serialization at 1 and 2 Mbit/s (80 is +5 % and +2.5 % off).
    s = _window_limited(access_rate)
    r = sim.simulate(s)
    assert r.loss_rate == 0.0
    assert r.goodput[0] == pytest.approx(8 / (0.1 + s.serialization), rel=0.01)
    assert r.rtt[0] == 0.1  # the result reports the propagation RTT as given


def test_delayed_acks_add_a_pair_s_second_packet_to_the_round_trip():
    # An ACK every second packet releases two, back to back on the 1 Mbit/s
    # access link: the pair's ACK leaves with its second packet, one packet's
    # access time (4.6 ms) later (measured 73.1 against 73.0 packets/s).
    s = _window_limited(1e6, delayed_ack=True)
    expected = 8 / (0.1 + s.serialization + 576 * 8 / 1e6)
    assert sim.simulate(s).goodput[0] == pytest.approx(expected, rel=0.01)
