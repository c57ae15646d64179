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
    # after it began count in its event (Sender._added_to_event): 459 against 457
    # here; over seeds 1-16 at most 2.0 % apart (NewReno; with SACK 2.2 %, Reno 2.7 %,
    # Tahoe 3.1 %), at most 3 per flow (5 with SACK and classic recovery).  Before, those
    # losses were in no event: 3.9 % and 4 per flow over the same seeds (3819adb 2 of 392;
    # bb89f7d 7 of 443).  Since a time-out's refills (6c294b2): 470 against 481 here; over
    # seeds 1-16 NewReno -1.6 ... +2.3 % (SACK -1.4 ... +1.2 %, Reno -1.2 ... +1.5 %, Tahoe
    # -4.1 ... +0.7 %: at seed 8 an overflow in the last round trip left 17 drops not yet
    # reacted to, none when the run goes on to 30.5 s), at most 4 per flow (5 with SACK and
    # classic recovery, and Tahoe).  3 % allows the edges.
    assert ev["drops"].sum() == pytest.approx(r.flow_drops.sum(), rel=0.03)
    per_flow = np.bincount(ev["flow"], weights=ev["drops"], minlength=20)
    assert per_flow == pytest.approx(r.flow_drops, abs=3)


@pytest.mark.parametrize("queue", [sim.CHOKe(min_th=5, max_th=40, max_p=0.1), sim.RandomDrop(buffer=40)],
                         ids=["choke", "randomdrop"])
def test_losses_no_reduction_of_their_own_reacts_to_count_in_an_event(queue):
    # Queues that remove queued packets: some of a flow's are removed while its
    # time-out is pending, or after the time-out wrote them off (the time-out's
    # event counts both).  Measured (30 Reno flows for 60 s, seeds 1-8) on e2af9e4:
    # CHOKe -0.1 ... -0.6 %, random drop -0.3 ... +0.5 %; on 6c294b2 (a time-out's
    # refills) -0.0 ... -0.6 % and -0.1 ... -0.5 %; before they counted, CHOKe
    # -8.3 ... -9.9 %, random drop -4.9 ... -7.3 % (148f2c8).  2 % allows the
    # interval's edges and fails at half the losses missing.
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
    # once all have started.  Over seeds 0-15 (measured on 94e94b5) its 25
    # samples from 5 s on were off by 3.3 % on average (4.2 % in the worst run)
    # and by at most 6.1-11.2 % (4 of the 16 runs above 10 %; 3819adb the same
    # but 6.2 % at the least; bb89f7d 3.2 % and 6.2-12.9 %, 6 above 10 %;
    # with the engine's earlier random streams 3.5 % and 4.5-13 %, 5 above
    # 10 %): bounds 6 % and 15 %.
    r = sim.simulate(sim.Scenario(**{**BASE, "n_flows": 60}, queue=sim.FPQ(), trace=True, trace_interval=1.0))
    count = r.trace["flow_count"]
    assert count.shape == r.trace["time"].shape
    off = np.abs(count[5:] / 60 - 1)
    assert off.mean() < 0.06 and off.max() < 0.15
    assert "flow_count" not in sim.simulate(sim.Scenario(**BASE, trace=True)).trace
