"""The simulator grows by one class: a new sender overrides only what differs (issue 12).

HighSpeed TCP (RFC 3649) here is a test-only sketch of the extension point,
not the library's sender (that is the next issue's): congestion avoidance
grows the window by a(w)/w per ACK and a loss leaves (1 - b(w)) w, from
``hstcp.a`` and ``hstcp.b``; everything else is Reno's.
"""

import dataclasses

import numpy as np

from tcpmodels import hstcp, sim
from tcpmodels.sim import senders


@dataclasses.dataclass(frozen=True)
class _HighSpeedSpec(sim.Reno):
    """HighSpeed TCP (test-only spec)."""


class _HighSpeed(senders.Reno):
    def increase(self, acks):
        f = self.f
        inc = acks * f.grow
        w = np.maximum(f.cwnd, 1.0)
        # Slow start +1 per ACKed packet (times the delayed-ACK gain), else a(w)/w.
        gain = np.where(f.cwnd >= f.ssthresh, hstcp.a(w) / w, 1.0)
        np.minimum(f.cwnd + inc * gain, self.wmax, out=f.cwnd)

    def reduced(self, j):
        w = np.maximum(self.f.cwnd[j], 1.0)
        return np.maximum(np.floor(w * (1.0 - hstcp.b(w))), 2.0)


def test_a_new_sender_is_one_class(monkeypatch):
    monkeypatch.setitem(senders.ENGINES, _HighSpeedSpec, _HighSpeed)
    # Two flows, 50 Mbit/s, 100 ms, a one-BDP drop-tail buffer: Reno's AIMD takes
    # hundreds of RTTs to refill ~300-packet windows after each halving.
    base = dict(n_flows=2, bandwidth=50e6, rtt=0.1, packet_size=1500, rtt_spread=0.0, duration=120.0,
                warmup=30.0, start_spread=0.1, queue=sim.DropTail(buffer=417), access_rate=1e9, time_step=0.01)
    reno = sim.simulate(sim.Scenario(**base, sender=sim.Reno(max_window=5000)), check=True)
    fast = sim.simulate(sim.Scenario(**base, sender=_HighSpeedSpec(max_window=5000)), check=True)
    # Above w = 38 (RFC 3649's Low_Window) HighSpeed grows by a(w) > 1 per RTT and
    # gives back only b(w) < 1/2: it refills the pipe sooner and so meets the
    # buffer's limit more often (measured 15 against 6 congestion events in the
    # 90 s, and 12 against 6 with seed 1).
    assert len(fast.congestion_events) > 1.5 * len(reno.congestion_events) > 0
