"""Bad input to the simulator's specs: refused when the Scenario is built, naming the field (issue 12)."""

import math
import warnings

import numpy as np
import pytest

from tcpmodels import TCPModelsWarning, sim
from tcpmodels.sim import engine
from tcpmodels.sim import scenario as scenario_module

BASE = dict(n_flows=10, bandwidth=10e6, rtt=0.1)


@pytest.mark.parametrize("field", ["bandwidth", "rtt", "duration", "packet_size", "start_spread",
                                   "trace_interval", "time_step"])
def test_infinity_is_refused(field):
    with pytest.raises(ValueError, match=f"{field} must be finite"):
        sim.Scenario(**{**BASE, field: math.inf})


def test_infinite_access_rate_still_means_no_access_link():
    assert sim.Scenario(**BASE, access_rate=math.inf).flow_access_rate == math.inf


@pytest.mark.parametrize("make, field", [
    (lambda: sim.RED(max_th=math.inf), "max_th"),
    (lambda: sim.DropTail(buffer=math.inf), "buffer"),
    (lambda: sim.Tahoe(min_rto=math.inf), "min_rto"),
    (lambda: sim.Tahoe(max_window=math.inf), "max_window"),
    (lambda: sim.FPQ(t_clear=math.inf), "t_clear"),
])
def test_infinity_is_refused_in_specs(make, field):
    # Whole-number fields say "a whole number" (which inf is not), the others "finite".
    with pytest.raises(ValueError, match=rf"{field} must be (finite|a whole number).*inf"):
        make()


@pytest.mark.parametrize("make, field", [
    (lambda: sim.Scenario(**BASE, trace="false"), "trace"),
    (lambda: sim.RED(gentle="false"), "gentle"),
    (lambda: sim.RED(ecn="no"), "ecn"),
    (lambda: sim.NewReno(sack="false"), "sack"),
    (lambda: sim.Tahoe(go_back_n="true"), "go_back_n"),
    (lambda: sim.Reno(delayed_ack=2), "delayed_ack"),
])
def test_strings_are_not_flags(make, field):
    with pytest.raises(ValueError, match=f"{field} must be True or False"):
        make()


@pytest.mark.parametrize("make, field", [
    (lambda: sim.Scenario(**{**BASE, "n_flows": True}), "n_flows"),  # ran one flow
    (lambda: sim.Scenario(**{**BASE, "rtt": [True] * 10}), "rtt"),
    (lambda: sim.DropTail(buffer=True), "buffer"),
])
def test_flags_are_not_numbers(make, field):
    with pytest.raises(ValueError, match=f"{field} must be a number"):
        make()


def test_flags_take_bools_and_0_1():
    assert sim.RED(gentle=1).gentle is True and sim.NewReno(sack=0).sack is False


@pytest.mark.parametrize("bandwidth", [1.0, 0.1])
def test_a_link_too_slow_for_its_ack_ring_is_refused_with_the_reason(bandwidth):
    # 1 bit/s: a full 868-packet RED queue drains in 4e6 s, ~9e7 steps of 45 ms
    # for every flow (6.6 GiB of ACK ring; 0.1 bit/s tried to allocate 66 GiB).
    with pytest.raises(ValueError, match="bandwidth.*GiB.*drain"):
        sim.Scenario(**{**BASE, "bandwidth": bandwidth})


def test_a_short_rtt_warns_or_refuses_by_the_time_it_needs():
    # A step costs about 0.15 ms whatever the flow count, plus a little per flow (scenario.STEP_SECONDS).
    # 100 us: 45 us steps, 1.1e7 of them in 500 s: about half an hour for 10 flows.
    with pytest.warns(TCPModelsWarning, match="slow: 1.11e\\+07 steps"):
        sim.Scenario(**{**BASE, "rtt": 1e-4})
    # 1 us: 1.1e9 steps, two days even for 10 flows (a warning said 20 minutes: it counted flow-steps alone).
    with pytest.raises(ValueError, match="too long.*1.11e\\+09 steps"):
        sim.Scenario(**{**BASE, "rtt": 1e-6})


def test_a_step_coarser_than_the_buffer_drains_warns_what_it_misses():
    # 10 Mbit/s serves 2170 packets/s: a 50-packet buffer drains in 23 ms, within one 50 ms step.
    with pytest.warns(TCPModelsWarning, match="time_step.*not seen"):
        sim.Scenario(**{**BASE, "rtt": 0.2}, queue=sim.DropTail(buffer=50), time_step=0.05)
    sim.Scenario(**{**BASE, "rtt": 0.2}, queue=sim.DropTail(buffer=50), time_step=0.02)  # finer: no warning


@pytest.mark.parametrize("make, field", [
    (lambda: sim.Scenario(**{**BASE, "n_flows": [10, 20]}), "n_flows"),
    (lambda: sim.Scenario(**{**BASE, "bandwidth": []}), "bandwidth"),
    (lambda: sim.Scenario(**BASE, duration=[100.0, 200.0]), "duration"),
    (lambda: sim.Scenario(**BASE, warmup=[5.0]), "warmup"),
    (lambda: sim.RED(max_p=[0.02, 0.1]), "max_p"),
    (lambda: sim.DropTail(buffer=[100, 200]), "buffer"),
    (lambda: sim.FiniteTransfers(size=[20, 40]), "size"),
])
def test_one_number_fields_refuse_arrays(make, field):
    # Each raised "only 0-dimensional arrays can be converted to Python scalars", a TypeError naming nothing.
    with pytest.raises(ValueError, match=f"{field} must be a single number, got \\["):
        make()


@pytest.mark.parametrize("rtt, duration, warmup", [(10.0, 2.0, 0.5), (100.0, 20.0, 0.0), (1.0, 2.0, 1.9)])
def test_a_run_that_measures_no_step_is_refused(rtt, duration, warmup):
    # A 10 s RTT sets a 4.5 s step: a 2 s run rounds to no step, and simulate() failed deep in the meter
    # ("unsupported operand type(s) for -: 'float' and 'NoneType'").
    with pytest.raises(ValueError, match=r"duration/warmup: the measured interval .* holds no whole step"):
        sim.Scenario(**{**BASE, "rtt": rtt}, duration=duration, warmup=warmup)


def test_a_run_of_few_steps_measures_them():
    # Steps of 0.45 s: 4 in the run, measured from the third; every flow starts at once.
    s = sim.Scenario(**{**BASE, "rtt": 1.0}, duration=2.0, warmup=1.0, start_spread=0.0)
    assert (s.steps, s.warmup_steps) == (4, 2)
    r = sim.simulate(s)
    assert r.time_step == s.step and r.packets > 0


def _below_full_load(**kw):
    # V3 of the RED dynamics references, 60 s: 10 flows at 10 Mbit/s, ~200 ms, RED 5/217/0.02; the link 97 %
    # busy with a queue of 6 packets against the 108 a 50 ms step serves.
    return sim.Scenario(n_flows=10, bandwidth=10e6, rtt=0.2, rtt_spread=0.1, packet_size=576,
                        queue=sim.RED(min_th=5, max_th=217, max_p=0.02, buffer=1000),
                        sender=sim.NewReno(sack=True), access_rate=10e6, duration=60.0, warmup=20.0, **kw)


def _same(a, b):
    return (a.time_step, a.loss_rate, a.queue, a.utilization, a.packets) == \
        (b.time_step, b.loss_rate, b.queue, b.utilization, b.packets)


@pytest.mark.filterwarnings("error::tcpmodels.TCPModelsWarning")
def test_a_red_queue_finer_than_the_default_step_runs_again_at_an_eighth_of_it():
    # The step takes its arrivals as evenly spread: V3's queue reads 21 % low at the default step, 6 % at an
    # eighth of it (engine._finer_steps), so the first pass's queue sends the scenario round again at the eighth.
    s = _below_full_load()
    r = sim.simulate(s)
    eighth = sim.simulate(_below_full_load(time_step=s.step / 8))
    assert r.time_step == s.step / 8 and _same(r, eighth)
    # Its result is its own and its seed's, whatever shares its batch (here one the default step holds).
    busy = sim.Scenario(**{**BASE, "n_flows": 100}, queue=sim.RED(min_th=5, max_th=217, max_p=0.02), duration=30.0)
    both = sim.simulate([busy, s])
    assert both[0].time_step == busy.step and both[0].utilization > 0.99 and _same(both[1], r)
    # Not where some flows carry finite transfers: their demand idles the link, where nothing was measured.
    # (Nine of the ten flows long-lived: the run meets the other conditions, so the workload is what spares it.)
    mixed = _below_full_load(workload=[(9, sim.LongLived()), (1, sim.FiniteTransfers(size=50))])
    m = sim.simulate(mixed)
    assert m.time_step == mixed.step
    assert m.loss_rate > 0 and m.utilization < 0.99 and m.queue < 0.15 * mixed.capacity * mixed.step


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:time_step. the queue averaged:tcpmodels.TCPModelsWarning")  # (chosen steps)
@pytest.mark.parametrize(("n_flows", "passes"), [(30, (1, 8, 16)), (20, (1, 16))])
def test_a_red_queue_the_eighth_cannot_hold_runs_at_a_sixteenth(n_flows, passes, monkeypatch):
    # 20 and 30 flows at 100 Mbit/s, ~100 ms, RED 5/217/0.02, windows of 64 KB (the 100 Mbit/s motion row, short).
    # 30 flows: the default step's queue averages 0.036 of its service (seed 0), under a fifth, so the scenario
    # runs again at an eighth, where it averages 0.40 of the eighth's, under half, so once more at a sixteenth
    # (engine.REFINEMENTS).  20 flows: the default step's queue averages 0.009 of its service, under the 0.03
    # below which the eighth's would stay under half too (engine.QUEUE_PER_SERVICE_TO_FINEST; it reads 0.22), so
    # the scenario goes straight on to the sixteenth, a third cheaper.  V3 stays at the eighth (0.52-0.58).
    def few_fast(**kw):
        return sim.Scenario(n_flows=n_flows, bandwidth=100e6, rtt=0.1, rtt_spread=0.1, packet_size=576,
                            queue=sim.RED(min_th=5, max_th=217, max_p=0.02, buffer=1000),
                            sender=sim.NewReno(sack=True, max_window=122), access_rate=50e6, duration=10.0,
                            warmup=4.0, seed=0, **kw)

    s = few_fast()
    sixteenth = sim.simulate(few_fast(time_step=s.step / 16))
    steps = []
    run_batches = engine._run_batches
    monkeypatch.setattr(engine, "_run_batches", lambda runs, check: steps.extend(r.step for r in runs)
                        or run_batches(runs, check))
    with warnings.catch_warnings():
        warnings.simplefilter("error", TCPModelsWarning)  # (the engine's own passes say nothing)
        r = sim.simulate(s)
    assert tuple(s.step / step for step in steps) == passes
    assert r.time_step == s.step / 16 and _same(r, sixteenth)


def test_a_red_queue_finer_than_a_chosen_step_warns_after_the_run():
    # A step the user chose is kept: the warning says what it misses and names the step that resolves it.
    s = _below_full_load(time_step=_below_full_load().step)
    with pytest.warns(TCPModelsWarning, match=rf"time_step: the queue averaged .* step of {s.step / 8:.3g} s"):
        r = sim.simulate(s)
    assert r.time_step == s.step


def test_a_finer_step_too_long_to_simulate_keeps_the_first_pass_and_warns(monkeypatch):
    # Where the eighth of the step would cost more than a scenario may (Scenario's cost check), the first pass
    # stands, with the warning.  The bound here lies between the two passes' estimated cost.
    s = _below_full_load()
    cost = scenario_module.compute_seconds(s.steps, s.n_flows)
    monkeypatch.setattr(scenario_module, "MAX_SECONDS", 2 * cost)
    with pytest.warns(TCPModelsWarning, match="time_step: the queue averaged"):
        r = sim.simulate(s)
    assert r.time_step == s.step


SMALL = dict(n_flows=3, bandwidth=1e6, rtt=0.05, duration=5.0, warmup=1.0, start_spread=1.0)


@pytest.mark.parametrize("access_rate", [0.002, 1e-5, 1e-300])
def test_the_ack_ring_estimate_counts_the_access_links_packet_time(access_rate):
    # The engine's ring spans a packet's and its ACK's sending time too (engine._Engine, worst_delay); the estimate
    # left it out: 0.002 bit/s ran in 3.9 GB, 1e-5 raised MemoryError (490 GiB), 1e-300 numpy's "Maximum allowed
    # dimension exceeded".
    with pytest.raises(ValueError, match=r"access_rate/packet_size: the ACK ring would need .* GiB: a 576-byte "
                                         r"packet and its ACK take .* s to send"):
        sim.Scenario(**SMALL, access_rate=access_rate)


@pytest.mark.parametrize("fpq", [dict(bits=10**8), dict(bits=10**9), dict(t_clear=1e-5), dict(t_clear=1e-300)])
def test_an_fpq_counter_beyond_memory_is_refused_when_built(fpq):
    # bits=10**8 ran 69 s in 2.3 GB, 10**9 raised MemoryError; t_clear=1e-5 ran 33 s in 7.8 GB (the clears owed
    # over the first idle second, all at once), 1e-300 numpy's "Maximum allowed dimension exceeded".
    with pytest.raises(ValueError, match=r"bits/t_clear: FPQ's .*-bit counter .* GiB"):
        sim.Scenario(**SMALL, queue=sim.FPQ(**fpq))


def test_a_slow_fpq_counter_warns():
    # 10**7 bits swept in each of 22 222 steps: about 11 minutes (the vector alone, 3 ns a bit).
    with pytest.warns(TCPModelsWarning, match=r"slow: FPQ's 10000000-bit counter"):
        sim.Scenario(**{**SMALL, "duration": 500.0}, queue=sim.FPQ(bits=10**7))
    sim.Scenario(**SMALL, queue=sim.FPQ(bits=10**6, t_clear=0.05))  # 0.7 s: no warning


@pytest.mark.parametrize("seeds, shown", [
    ([7.5], "7.5"), (["7"], "'7'"), ([True], "True"), ("77", "'77'"), ([math.inf], "inf"), ([math.nan], "nan"),
    (7, "7"), ([None], "None"), ([], r"\[\]"), ([-1], "-1"),
])
def test_seeds_are_whole_numbers(seeds, shown):
    # They went through int(): 7.5 ran seed 7, "77" two runs of seed 7, True seed 1; inf an OverflowError,
    # 7 and None TypeErrors.  simulate and sweep read them in one place (engine.with_seeds).
    with pytest.raises(ValueError, match=f"seeds must be .*, got {shown}"):
        sim.simulate(sim.Scenario(**SMALL), seeds=seeds)


def test_a_seed_stays_exact():
    # Read through a float, 2**53 + 1 became 2**53, and seeds 2**60 and 2**60 + 7 ran alike.
    assert sim.Scenario(**SMALL, seed=2**53 + 1).seed == 2**53 + 1
    assert type(sim.Scenario(**SMALL, seed=7.0).seed) is int
    with pytest.raises(ValueError, match="seed must be a whole number >= 0, got 7.5"):
        sim.Scenario(**SMALL, seed=7.5)


@pytest.mark.parametrize("call, match", [
    (lambda: sim.simulate(sim.Scenario(**SMALL), check="false"), "check must be True or False"),  # was true
    (lambda: sim.simulate(5), "scenario must be a Scenario .*, got 5"),                 # TypeError
    (lambda: sim.simulate(None), "scenario must be a Scenario .*, got None"),
    (lambda: sim.Scenario(**{**SMALL, "rtt": ["0.05"] * 3}), "rtt must be a number"),    # ran at 50 ms
    (lambda: sim.Scenario(**{**SMALL, "n_flows": None}), "n_flows must be .*, got None"),  # said "got nan"
    (lambda: sim.NewReno(recovery=np.array([1, 2])), "recovery must be one of"),        # numpy's "ambiguous"
    (lambda: sim.HighSpeed(kind=np.array([1, 2])), "kind must be one of"),
    (lambda: sim.FiniteTransfers(distribution=np.array([1, 2])), "distribution must be one of"),
    # Failed in simulate: "cannot convert float NaN to integer".
    (lambda: sim.Scenario(**SMALL, sender=sim.HighSpeed(initial_window=1e200)), "initial_window must be <="),
    # Simulated with "overflow encountered in divide" (loss 1): the ramp's slope.
    (lambda: sim.RED(min_th=0, max_th=1e-300), "max_th must exceed min_th .* by at least"),
])
def test_bad_values_are_refused_naming_the_field(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("queue", [sim.CHOKe(min_th=1, max_th=3, buffer=1000),
                                   sim.REDI(min_th=1, max_th=3, buffer=1000)])
def test_red_kin_at_a_chosen_coarse_step_warn_and_keep_it(queue):
    # A step 9 times the rule's: the queue averages 0.24 packets against 109 served a step, the link about half
    # idle.  RED warned after the run; CHOKe and RED-I said nothing.  They keep the step (no finer rerun).
    s = sim.Scenario(n_flows=3, bandwidth=10e6, rtt=0.1, duration=6.0, warmup=1.0, start_spread=1.0, queue=queue,
                     time_step=0.05)
    with pytest.warns(TCPModelsWarning, match=r"time_step: the queue averaged .* no finer step was measured"):
        r = sim.simulate(s)
    assert r.time_step == 0.05
