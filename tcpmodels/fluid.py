r"""The TCP/AQM fluid model (Misra, Gong & Towsley, SIGCOMM 2000), for many scenarios at once.

Mean-window dynamics of N TCP flows (optionally in classes, each with its own
propagation RTT and flow count) through one bottleneck with drop-tail, RED
(optionally gentle) or FPQ's RED settings, integrated with a fixed step and a
delay history:

.. math::
    \frac{dW_i}{dt} = \frac{1}{b R_i(t)} - \frac{W_i(t)}{2}\,
        \frac{W_i(t - R_i)\, p(t - R_i)}{R_i(t - R_i)}, \qquad
    \frac{dq}{dt} = \sum_i \frac{N_i W_i}{R_i}(1 - p) - C, \qquad
    \frac{dx}{dt} = -K (x - q)

with :math:`R_i = T_i + q/C`, :math:`K = -C \ln(1 - w)` (RED's EWMA per
packet served), :math:`p` RED's drop fraction at the average :math:`x`
(:func:`tcpmodels.red.drop_rate`) combined with overflow at the hard limit,
and :math:`b = 2` with delayed ACKs (1 in the paper).  The model has no
time-outs and no slow start: each loss halves a window.  That is where its
equilibrium is worse than :func:`tcpmodels.red.equilibrium`'s P3: with many
flows and small windows, P3's flows spend time in time-out and halve once per
loss *event*; the fluid flows never stop sending, so they need more loss for
the same queue (see :func:`equilibrium`).

The step is the smallest of a twentieth of the shortest propagation RTT, a
quarter of RED's averaging time constant :math:`1/K` and a quarter of the
time the link takes to serve the hard limit; halving it moves the mean
queue, loss and utilization by under 1 %, the queue's spread by 5 % and the
period by 2 % on the ns-3 dynamics set-ups (``tests/test_fluid.py``).
Windows are updated semi-implicitly (the decrease term divides), the average
exactly for a queue constant over the step, so no term can change sign.
"""

import dataclasses

import numpy as np

from . import _checks, fpq, red
from ._results import Result

__all__ = ["QUEUES", "FluidResult", "FluidEquilibrium", "simulate", "equilibrium", "dominant_period"]

QUEUES = ("red", "droptail", "fpq")

# Step rule: fractions of the RTT, of RED's averaging time and of the buffer's service time.
_STEPS_PER_RTT = 20.0
_STEPS_PER_TIME_CONSTANT = 4.0
# Spectrum band for the dominant period, as the ns-3 references measure it [s].
_PERIOD_BAND = (0.2, 20.0)
# A settled fluid queue never empties; one whose limit cycle empties it for
# more than this share of the time idles the link: it swings.  1 % is far
# above numerical dust (a settled queue's share is exactly 0).
_SWING_EMPTY = 0.01
# A queue whose 5-95 % spread over the last quarter of the run exceeds this
# fraction of its mean (plus one packet) has not settled: a decaying
# oscillation from the start-up shrinks as exp(-t / tau) and is far below it
# after the warm-up unless the setting sits on the stability boundary.
_CYCLE_SPREAD = 0.1


@dataclasses.dataclass(frozen=True)
class FluidResult(Result):
    """Trajectories and time averages of fluid-model runs.

    Attributes
    ----------
    time : ndarray
        Sample times of the traces [s].
    queue_trace, avg_queue_trace, loss_trace : ndarray
        Queue [packets], RED's average [packets] and drop fraction [-] at each
        sample, shaped ``scenarios + (len(time),)``.
    window_trace : ndarray
        Window per flow [packets], shaped ``scenarios + (classes, len(time))``
        (no class axis unless ``classes=True``).
    queue, queue_std, avg_queue : float or ndarray
        Time average and standard deviation of the queue, average of RED's
        average, over ``[warmup, duration]`` [packets].
    loss_rate : float or ndarray
        Dropped over arrived packets [-].
    window : float or ndarray
        Time-average window per flow (per class with ``classes=True``) [packets].
    utilization : float or ndarray
        Fraction of the link's capacity used [-].
    frac_empty : float or ndarray
        Fraction of time the queue holds less than one packet [-].
    period : float or ndarray
        Period of the largest peak of the queue's spectrum between 0.2 and 20 s
        [s]; NaN where the queue does not move.
    limit_cycle : bool or ndarray
        True where the queue still moves at the end of the run (its 5-95 %
        spread over the last quarter exceeds a tenth of its mean plus a packet).
    swings : bool or ndarray
        True where the queue is empty more than 1 % of the time: a limit
        cycle large enough to idle the link (a settled fluid queue never empties).
    step : float
        Integration step [s].
    """

    time: object
    queue_trace: object
    avg_queue_trace: object
    loss_trace: object
    window_trace: object
    queue: object
    queue_std: object
    avg_queue: object
    loss_rate: object
    window: object
    utilization: object
    frac_empty: object
    period: object
    limit_cycle: object
    swings: object
    step: float


@dataclasses.dataclass(frozen=True)
class FluidEquilibrium(Result):
    """Equilibrium of the fluid model with RED.

    Attributes
    ----------
    queue : float or ndarray
        Average (and instantaneous) queue [packets].
    loss_rate : float or ndarray
        Drop fraction [-].
    window : float or ndarray
        Window per flow [packets].
    round_trip : float or ndarray
        Propagation plus queueing delay [s].
    on_ramp : bool or ndarray
        False where no equilibrium lies below RED's forced drops (the queue
        is then pinned at the ramp's top).
    """

    queue: object
    loss_rate: object
    window: object
    round_trip: object
    on_ramp: object


def equilibrium(n_flows, rtt, capacity, *, min_th, max_th, max_p, gentle=False, drop_spacing="independent",
                delayed_ack=False):
    r"""Where the fluid model's dynamics rest: :math:`p_0 = 2/(b W_0^2)`, :math:`W_0 = R_0 C/N`.

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived flows, > 0 [flows].
    rtt : float or array_like
        Round-trip propagation time, > 0 [s].
    capacity : float or array_like
        Bottleneck rate, > 0 [packets/s].
    min_th, max_th : float or array_like
        RED's thresholds [packets].
    max_p : float or array_like
        RED's drop probability at ``max_th`` [-].
    gentle : bool, optional
        Floyd's gentle ramp above ``max_th``.
    drop_spacing : {"independent", "count", "wait"}, optional
        RED's drop spacing (:data:`tcpmodels.red.DROP_SPACINGS`).
    delayed_ack : bool, optional
        Windows grow by half a packet per round trip.

    Returns
    -------
    FluidEquilibrium
        ``.queue``, ``.loss_rate``, ``.window``, ``.round_trip``, ``.on_ramp``.

    Notes
    -----
    The same operating point :func:`tcpmodels.red.stability` linearizes about
    (Hollot et al. 2001/2002).  Against the ns-3 references at 10 ms
    (``ns3_red_10ms``, count spacing, delayed ACKs) it is worse than P3 where
    windows are small: with no time-outs and a halving per lost packet it
    asks more loss of each flow for the same queue (``tests/test_fluid.py``
    records the errors).

    Examples
    --------
    >>> e = equilibrium(30, 0.2, 2170.1, min_th=5, max_th=217, max_p=0.02, drop_spacing="count",
    ...                 delayed_ack=True)
    >>> round(e.queue, 1), round(e.window, 2)
    (27.4, 15.38)
    """
    n = red._positive_finite("n_flows", n_flows)
    r = red._positive_finite("rtt", rtt)
    cap = red._positive_finite("capacity", capacity)
    lo, hi = red._thresholds(min_th, max_th)
    mp = red._max_p(max_p)
    spacing = _checks.choice("drop_spacing", drop_spacing, red.DROP_SPACINGS)
    acks = 2.0 if _checks.flag("delayed_ack", delayed_ack) else 1.0
    args = np.broadcast_arrays(n, r, cap, lo, hi, mp)
    point = red._operating_point(*args, _checks.flag("gentle", gentle), spacing, acks)
    inputs = (n_flows, rtt, capacity, min_th, max_th, max_p)
    *values, inside, _ = (_checks.scalar_or_array(x, *inputs) for x in point)
    return FluidEquilibrium(*values, on_ramp=bool(inside) if np.ndim(inside) == 0 else inside.astype(bool))


def _queue_settings(queue, n_total, capacity, rtt_mean, min_th, max_th, max_p, buffer):
    """Thresholds, max_p and hard limit per scenario (FPQ: Fig. 6.4 settings for the true count)."""
    if queue == "fpq":
        p = fpq.red_params(np.maximum(n_total, 1.0), capacity * rtt_mean)
        min_th, max_th, max_p = p.min_th, p.max_th, p.max_p
    if queue == "droptail":
        if buffer is None:
            raise ValueError("buffer is required for queue='droptail', got None")
        limit = _checks.positive("buffer", buffer)
        return None, None, None, limit
    if max_th is None:
        raise ValueError(f"max_th is required for queue={queue!r}, got None")
    lo, hi = red._thresholds(min_th, max_th)
    mp = red._max_p(max_p)
    limit = 4.0 * hi if buffer is None else _checks.positive("buffer", buffer)  # as tcpmodels.sim.RED
    return lo, hi, mp, limit


def _step(rtt_min, ewma_rate, limit, capacity):
    candidates = [rtt_min / _STEPS_PER_RTT, limit / capacity / _STEPS_PER_TIME_CONSTANT]
    if ewma_rate is not None:
        candidates.append(1.0 / ewma_rate / _STEPS_PER_TIME_CONSTANT)
    return float(min(np.min(c) for c in candidates))


def dominant_period(samples, interval, *, pool=False):
    """Period of the largest peak of a series' spectrum between 0.2 and 20 s, per row.

    The measure the ns-3 dynamics references use (``dominant_period_s``), for
    fluid traces and for :mod:`tcpmodels.sim` queue traces alike.

    Parameters
    ----------
    samples : array_like
        Evenly spaced samples, time on the last axis [any unit].
    interval : float
        Time between samples [s].
    pool : bool, optional
        Average the rows' power spectra and read one peak from the mean: the
        period of a setting run with several seeds (rows of equal length),
        steadier than any one run's peak where the spectrum is broad.

    Returns
    -------
    float or ndarray
        Period [s] per row (one for all rows with ``pool``); NaN where the
        series does not move (std below 0.01).

    Examples
    --------
    >>> t = np.arange(0, 100, 0.05)
    >>> round(dominant_period(10 + 3 * np.sin(2 * np.pi * t / 1.6), 0.05), 2)
    1.6
    """
    x = _checks.array("samples", samples)
    if x.ndim == 0 or x.shape[-1] < 2 or not np.isfinite(x).all():
        raise ValueError(f"samples must be a series of at least 2 finite numbers, got {_checks.short(samples)}")
    pool = _checks.flag("pool", pool)
    x = x - x.mean(axis=-1, keepdims=True)
    size = 4 * x.shape[-1]  # zero padding: a finer frequency grid to read the peak from
    power = np.abs(np.fft.rfft(x, n=size, axis=-1)) ** 2
    moving = x.std(axis=-1) > 1e-2
    if pool:
        power, moving = power.reshape(-1, power.shape[-1]).mean(axis=0), moving.any()
    freq = np.fft.rfftfreq(size, _checks.positive("interval", interval))
    band = (freq >= 1.0 / _PERIOD_BAND[1]) & (freq <= 1.0 / _PERIOD_BAND[0])
    peak = freq[band][np.argmax(power[..., band], axis=-1)]
    period = np.where(moving, 1.0 / peak, np.nan)
    return float(period) if period.ndim == 0 else period


def simulate(n_flows, rtt, capacity, *, queue="red", min_th=5.0, max_th=None, max_p=0.1, weight=0.002,
             gentle=False, buffer=None, drop_spacing="independent", delayed_ack=False, max_window=np.inf,
             duration=100.0, warmup=None, step=None, record_every=0.1, classes=False):
    r"""Integrate the Misra-Gong-Towsley fluid model for many scenarios at once.

    Parameters
    ----------
    n_flows : float or array_like
        Flows, > 0 [flows]; with ``classes=True`` the last axis indexes classes.
    rtt : float or array_like
        Round-trip propagation time, > 0 [s]; with ``classes=True`` the last
        axis indexes classes (broadcast with `n_flows`).
    capacity : float or array_like
        Bottleneck rate, > 0 [packets/s].
    queue : {"red", "droptail", "fpq"}, optional
        Discipline: RED on its average; drop-tail with `buffer`; FPQ's RED
        settings (Morris 1999, Fig. 6.4) for the true flow count and the mean
        propagation bandwidth-delay product (then `min_th`, `max_th` and
        `max_p` are not used).
    min_th, max_th : float or array_like, optional
        RED's thresholds [packets] (``max_th`` required for "red").
    max_p : float or array_like, optional
        RED's drop probability at ``max_th`` [-].
    weight : float or array_like, optional
        RED's EWMA weight per packet, in (0, 1] [-] (RED and FPQ).
    gentle : bool, optional
        Floyd's gentle ramp above ``max_th``.
    buffer : float or array_like, optional
        Hard limit of the queue [packets]; required for drop-tail, 4 ``max_th``
        by default for RED and FPQ (as :class:`tcpmodels.sim.RED`).
    drop_spacing : {"independent", "count", "wait"}, optional
        RED's drop spacing (:data:`tcpmodels.red.DROP_SPACINGS`).
    delayed_ack : bool, optional
        Windows grow by half a packet per round trip instead of one.
    max_window : float or array_like, optional
        Receiver-window cap [packets].
    duration : float, optional
        Simulated time [s].
    warmup : float, optional
        Start of the averaging interval [s]; half the duration by default.
    step : float, optional
        Integration step [s]; by default from the step rule (module notes).
    record_every : float, optional
        Interval between trace samples [s].
    classes : bool, optional
        Treat the last axis of `n_flows` and `rtt` as flow classes.

    Returns
    -------
    FluidResult
        Traces and time averages (see :class:`FluidResult`).

    Notes
    -----
    Each scenario starts with every window at half its share of the
    propagation pipe, an empty queue and a zero average.

    Examples
    --------
    The ns-3 reference's V3 and V4 (10 Mbit/s of 576-byte packets, 200 ms,
    RED 5/217/0.02): 10 flows swing, 30 settle.

    >>> r = simulate([10, 30], 0.2, 2170.1, max_th=217, max_p=0.02, drop_spacing="count",
    ...              delayed_ack=True, duration=100.0)
    >>> r.limit_cycle
    array([ True, False])
    """
    kind = _checks.choice("queue", queue, QUEUES)
    spacing = _checks.choice("drop_spacing", drop_spacing, red.DROP_SPACINGS)
    gentle, classes = _checks.flag("gentle", gentle), _checks.flag("classes", classes)
    acks = 2.0 if _checks.flag("delayed_ack", delayed_ack) else 1.0
    n = red._positive_finite("n_flows", n_flows)
    r = red._positive_finite("rtt", rtt)
    cap = red._positive_finite("capacity", capacity)
    if not classes:
        n, r = n[..., None], r[..., None]
    n, r = np.broadcast_arrays(n, r)
    n_total, rtt_mean = n.sum(axis=-1), (n * r).sum(axis=-1) / n.sum(axis=-1)
    lo, hi, mp, limit = _queue_settings(kind, n_total, cap, rtt_mean, min_th, max_th, max_p, buffer)
    w = None if kind == "droptail" else _checks.in_range("weight", weight, 0.0, 1.0, low_open=True)
    cap_w = _checks.positive("max_window", max_window)
    shape = np.broadcast_shapes(n.shape[:-1], *(np.shape(x) for x in (cap, lo, hi, mp, limit, w, cap_w)
                                                if x is not None))
    flat = {name: np.broadcast_to(x, shape).reshape(-1) for name, x in
            dict(cap=cap, lo=lo, hi=hi, mp=mp, limit=limit, w=w, cap_w=cap_w).items() if x is not None}
    k = n.shape[-1]
    n2 = np.broadcast_to(n, shape + (k,)).reshape(-1, k)
    r2 = np.broadcast_to(r, shape + (k,)).reshape(-1, k)
    ewma = None if w is None else -flat["cap"] * np.log1p(-np.minimum(flat["w"], 1.0 - 1e-16))
    duration = float(_checks.positive("duration", duration))
    warmup = 0.5 * duration if warmup is None else float(_checks.in_range("warmup", warmup, 0.0, duration,
                                                                          high_open=True))
    dt = _step(r2.min(), ewma, flat["limit"], flat["cap"]) if step is None else float(
        _checks.in_range("step", step, 0.0, 0.5 * r2.min(), low_open=True))  # the history needs delays >= 2 steps
    every = max(1, round(float(_checks.positive("record_every", record_every)) / dt))
    run = _integrate(n2, r2, flat, ewma, kind, gentle, spacing, acks, duration, warmup, dt, every)
    return _result(run, shape, k, classes, dt * every, dt, (n_flows, rtt, capacity))


def _curve(s, gentle):
    """RED's curve per scenario, tabulated from :func:`tcpmodels.red.drop_probability` at its breakpoints.

    The curve is piecewise linear (zero, ramp, then 1 or the gentle ramp), so
    the lines through its breakpoints reproduce it exactly without the
    function's per-call checks inside the step loop (the one law, written once).
    """
    lo, hi, mp = s["lo"], s["hi"], s["mp"]
    at = np.stack([lo, np.nextafter(hi, 0.0), hi, 2.0 * hi])
    p = np.asarray(red.drop_probability(at, lo, hi, mp, gentle=gentle))
    return lo, hi, (p[1] - p[0]) / (at[1] - at[0]), p[2], (p[3] - p[2]) / (at[3] - at[2])


def _integrate(n, tp, s, ewma, kind, gentle, spacing, acks, duration, warmup, dt, every):
    """The step loop: all scenarios (rows) and classes (columns) at once."""
    rows, k = n.shape
    cap, limit, cap_w = s["cap"], s["limit"], s["cap_w"][:, None]
    decay = None if ewma is None else np.exp(-ewma * dt)
    if kind != "droptail":
        lo, hi, ramp, top, rise = _curve(s, gentle)
    history = int(np.ceil((tp.max() + limit.max() / cap.min()) / dt)) + 2
    ring = np.zeros((history, rows * k))  # each flow's loss signal W p / R, by step
    column = np.arange(rows * k)
    window = np.clip(0.5 * cap[:, None] * tp / n.sum(axis=1, keepdims=True), 1.0, cap_w)
    q, avg, p_aqm = np.zeros(rows), np.zeros(rows), np.zeros(rows)
    steps, start = round(duration / dt), round(warmup / dt)
    sums = {key: np.zeros(rows) for key in ("q", "q2", "x", "drop", "arrive", "served", "empty")}
    sum_w = np.zeros((rows, k))
    trace = {key: [] for key in ("q", "x", "p", "w")}
    for i in range(steps):
        rtt_now = tp + (q / cap)[:, None]
        lam = (n * window / rtt_now).sum(axis=1)
        if kind != "droptail":
            p_b = np.where(avg < hi, ramp * np.maximum(avg - lo, 0.0), np.minimum(top + rise * (avg - hi), 1.0))
            p_aqm = red._spaced(p_b, spacing)[0]
        offered = lam * (1.0 - p_aqm)
        # Overflow at the hard limit drops what the link cannot take.
        overflow = np.where((q >= limit) & (offered > cap), 1.0 - cap / np.maximum(offered, cap), 0.0)
        p = 1.0 - (1.0 - p_aqm) * (1.0 - overflow)
        accepted = lam * (1.0 - p)
        # Loss signal returning now: each flow's W p / R one round trip ago (linear interpolation).
        delay = (rtt_now / dt).reshape(-1)
        back = np.floor(delay)
        frac = delay - back
        j0 = (i - back.astype(np.intp)) % history
        signal = ring[j0, column]
        signal += frac * (ring[j0 - 1, column] - signal)  # j0 - 1 = -1 wraps to the ring's end
        ring[i % history] = (window * p[:, None] / rtt_now).reshape(-1)
        window = np.clip((window + dt / (acks * rtt_now)) / (1.0 + 0.5 * dt * signal.reshape(rows, k)), 1.0, cap_w)
        if i >= start:
            for key, v in (("q", q), ("q2", q * q), ("x", avg), ("drop", lam * p), ("arrive", lam),
                           ("served", np.where(q > 0, cap, np.minimum(accepted, cap))), ("empty", q < 1.0)):
                sums[key] += v
            sum_w += window
        if i % every == 0:
            for key, v in (("q", q), ("x", avg), ("p", p), ("w", window)):
                trace[key].append(v.copy())
        if decay is not None:
            avg = q + (avg - q) * decay  # exact for a queue constant over the step
        q = np.clip(q + dt * (accepted - cap), 0.0, limit)
    count = steps - start
    return dict(sums=sums, sum_w=sum_w, count=count, trace=trace, start=start, cap=cap)

def _result(run, shape, k, classes, interval, dt, inputs):
    sums, count, cap = run["sums"], run["count"], run["cap"]
    trace = {key: np.stack(v, axis=-1) for key, v in run["trace"].items()}  # rows (, k), samples
    times = np.arange(trace["q"].shape[-1]) * interval
    last = trace["q"][:, times >= 0.75 * times[-1]]
    spread = np.percentile(last, 95, axis=-1) - np.percentile(last, 5, axis=-1)
    mean_q = sums["q"] / count
    stats = dict(
        queue=mean_q,
        queue_std=np.sqrt(np.maximum(sums["q2"] / count - mean_q**2, 0.0)),
        avg_queue=sums["x"] / count,
        loss_rate=sums["drop"] / np.maximum(sums["arrive"], 1e-300),
        window=run["sum_w"] / count if classes else run["sum_w"][:, 0] / count,
        utilization=sums["served"] / count / cap,
        frac_empty=sums["empty"] / count,
        period=dominant_period(trace["q"][:, times >= run["start"] * dt], interval),
    )
    cycle = spread > _CYCLE_SPREAD * mean_q + 1.0
    swing = stats["frac_empty"] > _SWING_EMPTY
    scalar = shape == () and all(np.ndim(x) == 0 for x in inputs)

    def shaped(x, extra=()):
        x = x.reshape(shape + extra)
        return float(x) if scalar and not extra else x

    window_trace = trace["w"] if classes else trace["w"][:, 0]
    return FluidResult(
        time=times,
        queue_trace=trace["q"].reshape(shape + (-1,)),
        avg_queue_trace=trace["x"].reshape(shape + (-1,)),
        loss_trace=trace["p"].reshape(shape + (-1,)),
        window_trace=window_trace.reshape(shape + window_trace.shape[1:]),
        **{key: shaped(v, (k,) if key == "window" and classes else ()) for key, v in stats.items()},
        limit_cycle=bool(cycle[0]) if scalar else cycle.reshape(shape),
        swings=bool(swing[0]) if scalar else swing.reshape(shape),
        step=dt,
    )
