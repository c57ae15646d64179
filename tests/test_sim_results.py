"""Per-flow results, congestion events and FPQ's flow count in the trace (issue 12)."""

import numpy as np
import pytest

from tcpmodels import sim

BASE = dict(n_flows=20, bandwidth=5e6, rtt=0.05, duration=30.0, warmup=10.0, start_spread=2.0)


@pytest.mark.parametrize("queue, sender", [(sim.DropTail(buffer=40), sim.Reno()),
                                           (sim.RED(min_th=5, max_th=60, max_p=0.1), sim.NewReno(sack=True)),
                                           (sim.RandomDrop(buffer=40), sim.Tahoe())],
                         ids=["droptail-reno", "red-sack", "randomdrop-tahoe"])
def test_per_flow_results_add_up_to_the_totals(queue, sender):
    r = sim.simulate(sim.Scenario(**BASE, queue=queue, sender=sender))
    for name in ("goodput", "flow_drops", "flow_timeouts", "flow_window"):
        assert getattr(r, name).shape == (20,)
    # The same packets and timers counted per flow and per scenario: exact.
    assert r.flow_drops.sum() == pytest.approx(r.loss_rate * r.packets, rel=1e-9)
    assert r.flow_timeouts.sum() == pytest.approx(r.timeouts_per_packet * r.packets, rel=1e-9)
    assert r.flow_window.mean() == pytest.approx(r.window, rel=1e-12)
    assert (r.flow_window >= 1).all()


def test_congestion_events_are_the_losses_windows_react_to():
    r = sim.simulate(sim.Scenario(**BASE, queue=sim.DropTail(buffer=40), sender=sim.NewReno()))
    ev = r.congestion_events
    assert tuple(ev.to_dict()) == ("flow", "time", "window", "drops") and len(ev) > 100
    assert ((ev["flow"] >= 0) & (ev["flow"] < 20)).all() and (np.diff(ev["time"]) >= 0).all()
    # (the measured interval starts at the step nearest the warm-up's end)
    assert ev["time"].min() >= BASE["warmup"] - r.time_step and ev["time"].max() <= BASE["duration"]
    assert (ev["window"] >= 1).all() and (ev["drops"] >= 1).all()
    # Every loss is reacted to once: the events' drops are the flows' drops, but for
    # losses at the interval's edges (dropped before warmup and reacted to after,
    # or dropped at the end and not yet noticed).  Losses that fast recovery repairs
    # after it began count in its event (Sender._added_to_event).  Measured on 6bc8109:
    # 484 against 490 here; over seeds 1-16 NewReno -1.6 ... +2.5 % (SACK -1.8 ... +2.5 %,
    # Reno -1.4 ... +1.5 %, Tahoe -4.0 ... +0.7 %, SACK with classic recovery -1.5 ... +2.9 %),
    # at most 3 per flow (4 with SACK, 5 with Tahoe).  3 % allows the edges; without the
    # losses recovery repairs the events missed 3.9 % of them (docs/simulator_record.md).
    assert ev["drops"].sum() == pytest.approx(r.flow_drops.sum(), rel=0.03)
    per_flow = np.bincount(ev["flow"], weights=ev["drops"], minlength=20)
    assert per_flow == pytest.approx(r.flow_drops, abs=3)


@pytest.mark.parametrize("queue", [sim.CHOKe(min_th=5, max_th=40, max_p=0.1), sim.RandomDrop(buffer=40)],
                         ids=["choke", "randomdrop"])
def test_losses_no_reduction_of_their_own_reacts_to_count_in_an_event(queue):
    # Queues that remove queued packets: some of a flow's are removed while its
    # time-out is pending, or after the time-out wrote them off (the time-out's
    # event counts both).  Measured on 6bc8109 (30 Reno flows for 60 s, seeds 1-8):
    # CHOKe -0.6 ... -0.0 %, random drop -0.5 ... -0.1 %; before they counted, -8 to
    # -10 % and -5 to -7 %.  2 % allows the interval's edges and fails at half the
    # losses missing.
    runs = sim.simulate([sim.Scenario(n_flows=30, bandwidth=5e6, rtt=0.05, duration=60.0, warmup=5.0, queue=queue,
                                      sender=sim.Reno(), seed=s) for s in (1, 2)])
    for r in runs:
        assert r.congestion_events["drops"].sum() == pytest.approx(r.flow_drops.sum(), rel=0.02)


def test_batches_split_events_by_scenario():
    runs = sim.simulate([sim.Scenario(**BASE, queue=sim.DropTail(buffer=40), seed=s) for s in (1, 2)])
    for r in runs:
        assert r.congestion_events["flow"].max() < 20
        assert r.congestion_events["drops"].sum() == pytest.approx(r.flow_drops.sum(), rel=0.03)


def test_fpq_traces_its_flow_count():
    # Morris (1999) Fig. 6.9: the bit-vector estimate follows the active flows
    # once all have started.  Measured on 6bc8109 over seeds 0-15: its 25 samples
    # from 5 s on are off by 2.7 % on average (3.3 % in the worst run) and by at
    # most 6.1-14.6 % (4 of the 16 runs above 10 %; the test's seed 3.0 % and 11.2 %):
    # bounds 6 % and 15 %.
    r = sim.simulate(sim.Scenario(**{**BASE, "n_flows": 60}, queue=sim.FPQ(), trace=True, trace_interval=1.0))
    count = r.trace["flow_count"]
    assert count.shape == r.trace["time"].shape
    off = np.abs(count[5:] / 60 - 1)
    assert off.mean() < 0.06 and off.max() < 0.15
    assert "flow_count" not in sim.simulate(sim.Scenario(**BASE, trace=True)).trace
