"""The seed papers' TCP variants as pure functions over arrays of flows, and one streaming estimator.

* ACWAP (Su et al. 2006): delay-based congestion predictor, a(w) = 1 before
  congestion, pacing.
* NDCA-TCP (Park et al.): bandwidth-estimating slow-start threshold, the
  BaseRTT hold of interval D, the per-ACK window rule of Fig. 4.
* TCP/E (Kamra, Misra & Towsley): ECN freezes the window; slow start again
  after an RTT without marks.
* Active Delay Control (Hsiao, Kung & Tan): rate = cwnd / (RTT + d), in-flight
  capacity of a path, the endpoint delay that keeps N flows above a window,
  SDC's 1-bit delay update.

Every rule takes the state of many flows as arrays (broadcast together) and
returns the next state; none keeps hidden state, except
:class:`NDCABandwidthEstimator`, which is fed arrays of ACKs per call.
"""

import dataclasses

import numpy as np

from . import _checks, hstcp, units
from ._results import Result

__all__ = [
    "ACWAP_BETA",
    "NDCA_SAMPLES",
    "SDC_WINDOW_THRESHOLD",
    "acwap_congested",
    "acwap_a",
    "pacing_interval",
    "NDCABandwidthEstimator",
    "ndca_bandwidth",
    "ndca_ssthresh",
    "ndca_hold",
    "ndca_increase",
    "TCPEState",
    "tcpe_on_ack",
    "delayed_rate",
    "in_flight_capacity",
    "window_per_flow",
    "required_delay",
    "sdc_delay",
]

#: Su et al. (2006), Sec. 5 ("the choice of beta"): "beta = 0.8 is optimal"; also Fig. 5's initial value.
ACWAP_BETA = 0.8
#: Park et al., Sec. 4: the sampling parameter N of Fig. 4 ("N = 10 in simulation").
NDCA_SAMPLES = 10
#: Hsiao, Kung & Tan, Sec. II.B: SDC disables delay control "above eight packets".
SDC_WINDOW_THRESHOLD = 8.0

# ln c of one recurrence step is clipped here: the old estimate then weighs < 2e-22.
_MIN_LOG_STEP = -50.0
# Chunk length of the vectorized recurrence, in units of accumulated ln c.
_CHUNK_LOG = 600.0


def _bool_or_array(result, *inputs):
    result = np.asarray(result, dtype=bool)
    if result.ndim == 0 and all(np.ndim(x) == 0 for x in inputs):
        return bool(result)
    return result


def _flags(name, value):
    try:
        flags = np.asarray(value)
    except (TypeError, ValueError):  # ragged sequences
        flags = np.asarray("invalid")
    if flags.dtype.kind not in "biuf" or not np.all((flags == 0) | (flags == 1)):
        raise ValueError(f"{name} must be booleans (or 0/1), got {value!r}")
    return flags.astype(bool)


# --- ACWAP (Su et al. 2006) ---------------------------------------------------------------------


def acwap_congested(rtt, rtt_min, rtt_max, beta=ACWAP_BETA):
    """ACWAP's congestion predictor, Su et al. (2006), Eq. 3.

    Parameters
    ----------
    rtt : float or array_like
        Current smoothed round-trip time ``R_C`` [s], > 0.
    rtt_min : float or array_like
        Smallest RTT seen [s], > 0 (the propagation delay).
    rtt_max : float or array_like
        Largest RTT seen [s], >= `rtt_min`.
    beta : float or array_like
        Congestion factor [-], in [0, 1].

    Returns
    -------
    bool or ndarray of bool
        True where congestion is predicted.

    Notes
    -----
    .. math:: R_C \\ge RTT_{min} + \\beta (RTT_{max} - RTT_{min})

    ``R_C - RTT_min`` is the queueing delay now, ``RTT_max - RTT_min`` the
    largest seen; the predictor fires once the queue holds a fraction beta of
    its largest delay.  Fig. 5 updates RTT_min and RTT_max with the current
    RTT *before* testing, so a new maximum always satisfies Eq. 3: the paper's
    remark that beta = 1 "will serve as HSTCP completely" holds only between
    new maxima (at each new maximum a(w) is still set to 1).  With
    ``rtt_max == rtt_min`` (no queueing seen yet) every RTT satisfies Eq. 3;
    Fig. 5 guards against this by waiting for two congestion events
    (:func:`acwap_a`).

    Examples
    --------
    Queue delay 0.05 of a largest 0.06 s: 0.15 >= 0.1 + 0.8 * 0.06 = 0.148.

    >>> acwap_congested(0.15, 0.1, 0.16)
    True
    >>> acwap_congested([0.12, 0.15], 0.1, 0.16, beta=[0.8, 0.9])
    array([False, False])
    """
    r = _checks.positive("rtt", rtt)
    lo = _checks.positive("rtt_min", rtt_min)
    hi = _checks.array("rtt_max", rtt_max)
    ok = hi >= lo
    if not np.all(ok):
        raise ValueError(f"rtt_max must be >= rtt_min, got {np.broadcast_to(hi, ok.shape)[~ok].flat[0]!r}")
    b = _checks.in_range("beta", beta, 0.0, 1.0)
    return _bool_or_array(r >= lo + b * (hi - lo), rtt, rtt_min, rtt_max, beta)  # Eq. 3


def acwap_a(window, rtt, rtt_min, rtt_max, n_congestion, beta=ACWAP_BETA, kind="formula"):
    """Increase a(w) of ACWAP-HSTCP, Su et al. (2006), Fig. 5.

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.
    rtt, rtt_min, rtt_max : float or array_like
        Current, smallest and largest RTT [s] (see :func:`acwap_congested`).
    n_congestion : int or array_like
        Congestion events since the connection started (``numofcon``) [-], >= 0.
    beta : float or array_like
        Congestion factor [-], in [0, 1].
    kind : {"formula", "monotone", "table", "linux"}
        Form of HighSpeed TCP's a(w), see :func:`tcpmodels.hstcp.a`.

    Returns
    -------
    float or ndarray
        Increase [packets per RTT]: each ACK adds ``a/w`` to the window.

    Notes
    -----
    .. math::

        a = \\begin{cases} 1 & \\text{Eq. 3 holds and } numofcon \\ge 2 \\\\
                           a_{HSTCP}(w) & \\text{otherwise} \\end{cases}

    The two congestion events let RTT_max be measured in congestion
    avoidance rather than in slow start (Sec. 4).  On each congestion event
    Fig. 5 multiplies the window by ``1 - b(w)`` (HighSpeed TCP's
    :func:`tcpmodels.hstcp.b`), increments ``numofcon`` and resets the RTT
    estimate to RTT_min; those are left to the caller.

    Examples
    --------
    >>> acwap_a(8400, 0.15, 0.1, 0.16, n_congestion=2)
    1.0
    >>> acwap_a(8400, 0.15, 0.1, 0.16, n_congestion=[1, 2], kind="table")
    array([26.,  1.])
    """
    a_hs = hstcp.a(window, kind=kind)
    count = _checks.whole("n_congestion", n_congestion, minimum=0)
    congested = acwap_congested(rtt, rtt_min, rtt_max, beta)
    out = np.where(np.asarray(congested) & (count >= 2), 1.0, a_hs)  # Fig. 5
    return _checks.scalar_or_array(out, window, rtt, rtt_min, rtt_max, n_congestion, beta)


def pacing_interval(rtt, window):
    """ACWAP's pacing interval between packets, Su et al. (2006), Sec. 4.

    Parameters
    ----------
    rtt : float or array_like
        Current RTT ``R_C`` [s], > 0.
    window : float or array_like
        Congestion window [packets], > 0.

    Returns
    -------
    float or ndarray
        Time between two transmissions [s].

    Notes
    -----
    .. math:: Interval = R_C / w

    Spreads a window evenly over an RTT, which removes the back-to-back pairs
    that overflow a drop-tail queue (:func:`tcpmodels.hstcp.loss_event`).  The
    paper notes this needs a timer of about 10 microseconds at Gbit/s rates.

    Examples
    --------
    The window of Su et al. (2006), Sec. 3.2 (8400 packets), over an assumed 0.1 s RTT:

    >>> round(pacing_interval(0.1, 8400) * 1e6, 1)  # microseconds
    11.9
    """
    r = _checks.positive("rtt", rtt)
    w = _checks.positive("window", window)
    return _checks.scalar_or_array(r / w, rtt, window)


# --- NDCA-TCP (Park et al.) ---------------------------------------------------------------------


def _per_ack(name, values, shape):
    try:
        return np.broadcast_to(values, shape).astype(float)
    except ValueError:
        raise ValueError(
            f"{name} must be a scalar or one value per ACK ({shape[0]}), got shape {values.shape}"
        ) from None


def _linear_recurrence(x0, c, d):
    """Solve x_k = c_k x_(k-1) + d_k for all k at once (c_k > 0, d_k >= 0).

    x_k = e^(L_k) (x0 + sum_(j<=k) e^(-L_j) d_j), L_k = sum_(j<=k) ln c_j, evaluated in
    chunks over which -L grows by at most _CHUNK_LOG so that e^(-L) stays finite.
    """
    log_c = np.maximum(np.log(c), _MIN_LOG_STEP)
    total = -np.cumsum(log_c)
    edges = np.searchsorted(total, np.arange(_CHUNK_LOG, total[-1] + _CHUNK_LOG, _CHUNK_LOG)) if total.size else []
    out = np.empty_like(d)
    start, x = 0, x0
    for stop in [*np.unique(edges), d.size]:  # one pass per chunk, not per element
        if stop <= start:
            continue
        lc = np.cumsum(log_c[start:stop])
        out[start:stop] = np.exp(lc) * (x + np.cumsum(d[start:stop] * np.exp(-lc)))
        x, start = out[stop - 1], stop
    return out


class NDCABandwidthEstimator:
    """NDCA-TCP's streaming bandwidth estimator, Park et al., Eq. 3-4 or Fig. 4.

    Parameters
    ----------
    rtt : float
        RTT used by the estimator [s], > 0: the current RTT in Eq. 3, BaseRTT
        (smallest RTT seen) in Fig. 4.  :meth:`update` can override it per ACK.
    form : {"equation", "pseudocode"}
        ``"equation"``: Eq. 3 then the moving average Eq. 4, on every ACK.
        ``"pseudocode"``: Fig. 4, one sample every ``sampleInterval`` ACKs.
    beta : float, optional
        Weight of Eq. 4 [-], in (0, 1]; required for ``form="equation"``
        (the paper gives no value), unused by Fig. 4.
    n_samples : int
        Fig. 4's ``N`` [-]: sample every ACK while ``cwnd < N``, else every
        ``int(cwnd) // N`` ACKs.
    start_time : float, optional
        Time [s] from which the first inter-ACK gap is measured; if None the
        first ACK only starts the clock.

    Attributes
    ----------
    bandwidth : float
        Current estimate [bit/s] (0 at start and after :meth:`reset`).

    Notes
    -----
    Eq. 3-4 (from TCP-Jersey), per ACK k, ``T_k`` after the previous one,
    acknowledging ``S_k`` bytes:

    .. math::

        BW_{new} = \\frac{BW_{k-1} RTT + S_k}{RTT + T_k}, \\qquad
        BW_k = (1 - \\beta) BW_{k-1} + \\beta BW_{new}.

    Fig. 4 computes ``BW = (1 - r) preBW + r currBW`` with
    ``r = Δ/(BaseRTT + Δ)`` and ``currBW = bytes/Δ``, which is algebraically
    Eq. 3 alone: :math:`(preBW \\cdot BaseRTT + bytes)/(BaseRTT + Δ)`.  So the
    two forms differ in that Fig. 4 (i) has no Eq. 4 smoothing (beta = 1),
    (ii) uses BaseRTT instead of the current RTT, (iii) samples every
    ``int(cwnd)/N`` ACKs with the bytes of all of them (``packetSize ×
    ackCount``: this class sums the acknowledged bytes, which is the same for
    full-sized segments) and (iv) truncates ssthresh to an integer.  Both are
    evaluated in the multiplied-out form, which stays finite when two ACKs
    arrive at the same instant (Fig. 4's ``currBW`` would divide by 0).

    For a steady stream of ``S`` bytes every ``T`` seconds both forms
    converge to the true rate ``S/T``.

    Examples
    --------
    1500-byte ACKs every 1 ms (12 Mbit/s), RTT 0.1 s:

    >>> est = NDCABandwidthEstimator(0.1, form="pseudocode", start_time=0.0)
    >>> bw = est.update(np.arange(1, 2001) * 1e-3, np.full(2000, 1500.0))
    >>> round(est.bandwidth / 1e6, 2)   # Mbit/s after 20 RTTs
    12.0
    >>> est.ssthresh(1500)   # Eq. 5: 12e6 * 0.1 / (8 * 1500) = 100 - 2e-7, truncated
    99.0
    """

    def __init__(self, rtt, form="equation", beta=None, n_samples=NDCA_SAMPLES, start_time=None):
        self.form = _checks.choice("form", form, ("equation", "pseudocode"))
        self.rtt = float(_checks.positive("rtt", rtt))
        if self.form == "equation":
            if beta is None:
                raise ValueError("beta must be given for form='equation' (Eq. 4 weight in (0, 1]), got None")
            self.beta = float(_checks.in_range("beta", beta, 0.0, 1.0, low_open=True))
        else:
            self.beta = 1.0
        self.n_samples = int(_checks.whole("n_samples", n_samples))
        self._last_time = None if start_time is None else float(_checks.array("start_time", start_time))
        self._rate = 0.0  # bytes/s, the paper's unit
        self._pending_acks = 0
        self._pending_bytes = 0.0

    @property
    def bandwidth(self):
        """Current estimate [bit/s]."""
        return 8.0 * self._rate

    def reset(self):
        """Forget the estimate on triple duplicate ACKs (Fig. 4: ``preBW = 0``)."""
        self._rate = 0.0

    def ssthresh(self, packet_size, rtt=None):
        """Slow-start threshold from the estimate, Park et al., Eq. 5 [packets].

        Parameters
        ----------
        packet_size : float
            Maximum segment size [bytes], > 0.
        rtt : float, optional
            RTT [s]; defaults to the estimator's.

        Returns
        -------
        float
            ``BW * RTT / MSS``, truncated to an integer in the Fig. 4 form.
        """
        value = ndca_ssthresh(self.bandwidth, self.rtt if rtt is None else rtt, packet_size)
        return float(np.floor(value)) if self.form == "pseudocode" else value

    def update(self, ack_times, acked_bytes, window=1.0, rtt=None):
        """Feed ACKs in arrival order; return the estimate after each one [bit/s].

        Parameters
        ----------
        ack_times : array_like
            Arrival times [s], non-decreasing, after the previous call's.
        acked_bytes : array_like
            Bytes newly acknowledged by each ACK [bytes], >= 0 (broadcast to
            `ack_times`).
        window : float
            Congestion window during these ACKs [packets], > 0; sets Fig. 4's
            sampling interval (unused by the equation form).
        rtt : float or array_like, optional
            RTT per ACK [s]; defaults to the estimator's.

        Returns
        -------
        ndarray
            Bandwidth estimate after each ACK [bit/s].
        """
        times = np.atleast_1d(_checks.array("ack_times", ack_times)).astype(float)
        if times.ndim != 1:
            raise ValueError(f"ack_times must be one-dimensional, got shape {times.shape}")
        size = _per_ack("acked_bytes", _checks.nonnegative("acked_bytes", acked_bytes), times.shape)
        r = _per_ack("rtt", _checks.positive("rtt", self.rtt if rtt is None else rtt), times.shape)
        w = float(_checks.positive("window", window))
        if times.size == 0:
            return np.empty(0)
        previous = times[0] if self._last_time is None else self._last_time
        if not (np.all(np.isfinite(times)) and times[0] >= previous and np.all(np.diff(times) >= 0)):
            raise ValueError("ack_times must be finite and non-decreasing (also across calls)")
        out = np.empty(times.size)
        first = 0
        if self._last_time is None:  # the first ACK only starts the clock
            out[0], first = 8.0 * self._rate, 1
            self._last_time = times[0]
        if self.form == "equation":
            gaps = np.diff(times[first:], prepend=self._last_time)
            c = (1.0 - self.beta) + self.beta * r[first:] / (r[first:] + gaps)  # Eq. 3 into Eq. 4
            d = self.beta * size[first:] / (r[first:] + gaps)
            rates = _linear_recurrence(self._rate, c, d)
            out[first:] = 8.0 * rates
            if rates.size:
                self._rate, self._last_time = float(rates[-1]), float(times[-1])
            return out
        return self._update_pseudocode(times, size, r, w, out, first)

    def _update_pseudocode(self, times, size, r, w, out, first):
        interval = 1 if w < self.n_samples else max(int(w) // self.n_samples, 1)  # Fig. 4 sampleInterval
        t, m = times[first:], times.size - first
        # "if (ackCnt >= sampleInterval)": the ACK that brings the count since the last sample to the interval
        picks = np.arange(max(interval - self._pending_acks, 1) - 1, m, interval)
        cum = self._pending_bytes + np.cumsum(size[first:])  # bytes since the last sample
        rates = np.empty(0)
        if picks.size:
            sample_bytes = np.diff(cum[picks], prepend=0.0)  # packetSize x ackCount
            gaps = np.diff(t[picks], prepend=self._last_time)  # deltaTime
            base = r[first:][picks]  # baseRTT
            rates = _linear_recurrence(self._rate, base / (base + gaps), sample_bytes / (base + gaps))
        latest = np.searchsorted(picks, np.arange(m), side="right") - 1  # last sample at or before each ACK
        out[first:] = 8.0 * np.where(latest >= 0, rates[np.maximum(latest, 0)] if rates.size else 0.0, self._rate)
        if picks.size:
            self._rate, self._last_time = float(rates[-1]), float(t[picks[-1]])
            self._pending_acks = m - 1 - int(picks[-1])
            self._pending_bytes = float(cum[-1] - cum[picks[-1]])
        elif m:
            self._pending_acks += m
            self._pending_bytes = float(cum[-1])
        return out


def ndca_bandwidth(bandwidth, acked_bytes, gap, rtt, beta=1.0):
    """One step of NDCA-TCP's bandwidth estimate for many flows at once, Park et al., Eq. 3-4.

    Parameters
    ----------
    bandwidth : float or array_like
        Previous estimate ``BW_{E,k-1}`` [bit/s], >= 0.
    acked_bytes : float or array_like
        Bytes newly acknowledged since then, ``PacketSize_k`` [bytes], >= 0.
    gap : float or array_like
        Time since the previous estimate, ``T_k`` [s], >= 0.
    rtt : float or array_like
        RTT of Eq. 3 [s], > 0 (BaseRTT in Fig. 4).
    beta : float or array_like
        Weight of Eq. 4 [-], in (0, 1]; 1 is Fig. 4's form (Eq. 3 alone).

    Returns
    -------
    float or ndarray
        The new estimate ``BW_{E,k}`` [bit/s].

    Notes
    -----
    The same law as :class:`NDCABandwidthEstimator` (``form="equation"``),
    one update over arrays of flows instead of a stream of one flow's ACKs:

    .. math::

        BW_{new} = \\frac{BW_{k-1} RTT + S_k}{RTT + T_k}, \\qquad
        BW_k = (1 - \\beta) BW_{k-1} + \\beta BW_{new}.

    Examples
    --------
    12 Mbit/s held for one more 1 ms gap of a 1500-byte ACK, RTT 0.1 s:

    >>> ndca_bandwidth(12e6, 1500, 1e-3, 0.1)
    12000000.0
    >>> ndca_bandwidth([0.0, 12e6], 1500, 1e-3, 0.1, beta=0.5)
    array([  59405.94...,  12000000.  ])
    """
    bw = _checks.nonnegative("bandwidth", bandwidth)
    size = _checks.nonnegative("acked_bytes", acked_bytes)
    t = _checks.nonnegative("gap", gap)
    r = _checks.positive("rtt", rtt)
    weight = _checks.in_range("beta", beta, 0.0, 1.0, low_open=True)
    new = (bw * r + 8.0 * size) / (r + t)  # Eq. 3 (bytes to bits)
    out = (1.0 - weight) * bw + weight * new  # Eq. 4
    return _checks.scalar_or_array(out, bandwidth, acked_bytes, gap, rtt, beta)


def ndca_ssthresh(bandwidth, rtt, packet_size):
    """NDCA-TCP's slow-start threshold from a bandwidth estimate, Park et al., Eq. 5.

    Parameters
    ----------
    bandwidth : float or array_like
        Estimated bandwidth [bit/s], >= 0.
    rtt : float or array_like
        Round-trip time [s], > 0 (BaseRTT in Fig. 4).
    packet_size : float or array_like
        Maximum segment size [bytes], > 0.

    Returns
    -------
    float or ndarray
        Slow-start threshold [packets].

    Notes
    -----
    .. math:: ssthresh = \\frac{BW_{E,k} \\cdot RTT}{MSS}

    the bandwidth-delay product of the estimate (:func:`tcpmodels.units.bdp`),
    0 after a reset.  Fig. 4 truncates it to an integer.

    Examples
    --------
    >>> ndca_ssthresh(1e9, 0.1, 1500)   # 1 Gbit/s * 0.1 s / 12000 bit
    8333.33...
    >>> ndca_ssthresh([0.0, 12e6], 0.1, 1500)
    array([  0., 100.])
    """
    bw = _checks.nonnegative("bandwidth", bandwidth)
    out = np.where(bw > 0, units.bdp(np.where(bw > 0, bw, 1.0), rtt, packet_size), 0.0)  # Eq. 5
    return _checks.scalar_or_array(out, bandwidth, rtt, packet_size)


def ndca_hold(rtt, base_rtt, alpha):
    """NDCA-TCP's interval-D test: has the path's bandwidth been reached?  Park et al., Sec. 3.4.

    Parameters
    ----------
    rtt : float or array_like
        Measured RTT [s], > 0.
    base_rtt : float or array_like
        Smallest RTT the flow has seen [s], > 0.
    alpha : float or array_like
        Threshold factor [-], > 1 (the paper gives no value).

    Returns
    -------
    bool or ndarray of bool
        True where the window increase is held.

    Notes
    -----
    .. math:: RTT > BaseRTT \\cdot \\alpha

    Packets are queueing, so the flow holds its window until a smaller
    BaseRTT is measured or a loss occurs.  Fig. 4 writes the hold condition
    as ``BW == maxBW`` instead; :func:`ndca_increase` takes either as a
    boolean.

    Examples
    --------
    >>> ndca_hold([0.10, 0.13], 0.1, 1.2)
    array([False,  True])
    """
    r = _checks.positive("rtt", rtt)
    base = _checks.positive("base_rtt", base_rtt)
    factor = _checks.in_range("alpha", alpha, 1.0, np.inf, low_open=True)
    return _bool_or_array(r > base * factor, rtt, base_rtt, alpha)


def ndca_increase(window, ssthresh, hold):
    """NDCA-TCP's window increase per ACK, Park et al., Fig. 4 (Eq. 1-2).

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.
    ssthresh : float or array_like
        Estimated slow-start threshold ``cwnd_essthresh`` [packets], >= 0.
    hold : bool or array_like of bool
        Interval D: bandwidth reached (:func:`ndca_hold`).

    Returns
    -------
    float or ndarray
        Increase of the window for this ACK [packets].

    Notes
    -----
    .. math::

        \\Delta w = \\begin{cases} 1 & w \\le ssthresh \\quad \\text{(Eq. 1, intervals A, C)} \\\\
                                  0 & \\text{hold (interval D)} \\\\
                                  1/w & \\text{otherwise (Eq. 2, interval B)} \\end{cases}

    Slow start resumes whenever the estimate rises above the window (interval
    C), even in congestion avoidance.  On triple duplicate ACKs Fig. 4 halves
    the window and resets the estimate
    (:meth:`NDCABandwidthEstimator.reset`).

    Examples
    --------
    >>> ndca_increase([50, 200, 200], 100, [False, False, True])
    array([1.   , 0.005, 0.   ])
    """
    w = _checks.positive("window", window)
    threshold = _checks.nonnegative("ssthresh", ssthresh)
    held = _flags("hold", hold)
    out = np.where(w <= threshold, 1.0, np.where(held, 0.0, 1.0 / w))  # Fig. 4
    return _checks.scalar_or_array(out, window, ssthresh, hold)


# --- TCP/E (Kamra, Misra & Towsley) -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TCPEState(Result):
    """State of TCP/E senders after an ACK (see :func:`tcpe_on_ack`).

    Attributes
    ----------
    window : float or ndarray
        Congestion window [packets].
    slow_start : bool or ndarray of bool
        True in slow start (``mode == SS``), False in congestion avoidance.
    last_ecn_time : float or ndarray
        Time of the last ECN-marked ACK [s].
    """

    window: object
    slow_start: object
    last_ecn_time: object


def tcpe_on_ack(window, slow_start, ecn, time, last_ecn_time, rtt):
    """TCP/E's reaction to one ACK per flow, Kamra, Misra & Towsley, OnAck pseudo-code (Sec. 2).

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.
    slow_start : bool or array_like of bool
        True where the flow is in slow start.
    ecn : bool or array_like of bool
        True where the ACK echoes an ECN mark (one echo per marked packet).
    time : float or array_like
        Arrival time of the ACK [s].
    last_ecn_time : float or array_like
        Time of the flow's last ECN-marked ACK [s] (``-inf`` if none yet).
    rtt : float or array_like
        Round-trip time estimate [s], > 0.

    Returns
    -------
    TCPEState
        ``window``, ``slow_start`` and ``last_ecn_time`` after the ACK.

    Notes
    -----
    .. math::

        \\text{ECN:}\\; w' = w,\\; SS' = \\text{False},\\; t_{ECN}' = t; \\qquad
        \\text{else:}\\; w' = w + (1 \\text{ if } SS \\text{ else } 1/w),\\;
        SS' = SS \\lor (t - t_{ECN} > RTT).

    An ECN mark *freezes* the window instead of halving it and switches to
    congestion avoidance; an RTT without marks switches back to slow start,
    which then runs without an ssthresh bound until the next mark or loss.
    The increase uses the mode before this ACK's switch.  Losses are handled
    as in standard TCP (the pseudo-code's ``DefaultAction``), not here.

    Examples
    --------
    >>> s = tcpe_on_ack([10, 10, 10], [True, True, False], [True, False, False],
    ...                 time=5.0, last_ecn_time=[4.0, 4.0, 4.95], rtt=0.1)
    >>> s.window, s.slow_start
    (array([10. , 11. , 10.1]), array([False,  True, False]))
    """
    w = _checks.positive("window", window)
    ss = _flags("slow_start", slow_start)
    mark = _flags("ecn", ecn)
    now = _checks.array("time", time)
    last = _checks.array("last_ecn_time", last_ecn_time)
    r = _checks.positive("rtt", rtt)
    w, ss, mark, now, last, r = np.broadcast_arrays(w, ss, mark, now, last, r)
    increase = np.where(ss, 1.0, 1.0 / w)
    new_window = np.where(mark, w, w + increase)  # freeze on ECN
    new_last = np.where(mark, now, last)
    new_ss = np.where(mark, False, ss | (now - last > r))  # CA on ECN; SS after an RTT without marks
    inputs = (window, slow_start, ecn, time, last_ecn_time, rtt)
    return TCPEState(
        window=_checks.scalar_or_array(new_window, *inputs),
        slow_start=_bool_or_array(new_ss, *inputs),
        last_ecn_time=_checks.scalar_or_array(new_last, *inputs),
    )


# --- Active Delay Control (Hsiao, Kung & Tan) ---------------------------------------------------


def delayed_rate(window, rtt, delay):
    """Sending rate of a window-limited TCP whose packets are delayed at an endpoint, Hsiao et al., Sec. I.

    Parameters
    ----------
    window : float or array_like
        Congestion window [packets], > 0.
    rtt : float or array_like
        Round-trip time without the endpoint delay [s], > 0.
    delay : float or array_like
        Delay added at the sender or receiver [s], >= 0.

    Returns
    -------
    float or ndarray
        Rate [packets/s].

    Notes
    -----
    .. math:: rate = \\frac{CWND}{RTT + d}

    Adding ``d`` lets N flows slow down without shrinking their windows
    below the 4-8 packets that fast retransmit needs.

    Examples
    --------
    >>> delayed_rate(4, 0.1, [0.0, 0.1])
    array([40., 20.])
    """
    w = _checks.positive("window", window)
    r = _checks.positive("rtt", rtt)
    d = _checks.nonnegative("delay", delay)
    return _checks.scalar_or_array(w / (r + d), window, rtt, delay)


def in_flight_capacity(capacity, rtt, buffer):
    """Packets a path holds in flight: the pipe plus the router buffer, Hsiao et al., Sec. III.B.

    Parameters
    ----------
    capacity : float or array_like
        Bottleneck rate [packets/s], > 0.
    rtt : float or array_like
        Round-trip propagation time (plus any endpoint delay) [s], > 0.
    buffer : float or array_like
        Router buffer [packets], >= 0.

    Returns
    -------
    float or ndarray
        Packets in flight when the link is busy and the buffer full [packets].

    Notes
    -----
    .. math:: P = C \\cdot RTT + B

    Hsiao et al., Table 1: 1.5 Mbit/s of 1000-byte packets is C = 187.5
    packets/s, B = 100: "a total of 118 in-flight packets" at RTT 100 ms
    (18.75 + 100 = 118.75) and "193" at 500 ms (93.75 + 100); the paper
    truncates.

    Examples
    --------
    >>> in_flight_capacity(187.5, [0.1, 0.5], 100)
    array([118.75, 193.75])
    """
    cap = _checks.positive("capacity", capacity)
    r = _checks.positive("rtt", rtt)
    buf = _checks.nonnegative("buffer", buffer)
    return _checks.scalar_or_array(cap * r + buf, capacity, rtt, buffer)


def window_per_flow(n_flows, capacity, rtt, buffer, delay=0.0):
    """Window each of N flows can keep on a shared path, Hsiao et al., Sec. III.B.

    Parameters
    ----------
    n_flows : float or array_like
        Flows sharing the bottleneck [-], > 0.
    capacity : float or array_like
        Bottleneck rate [packets/s], > 0.
    rtt : float or array_like
        Round-trip propagation time [s], > 0.
    buffer : float or array_like
        Router buffer [packets], >= 0.
    delay : float or array_like
        Endpoint delay of every flow [s], >= 0.

    Returns
    -------
    float or ndarray
        Average window [packets].

    Notes
    -----
    .. math:: w = \\frac{C (RTT + d) + B}{N}

    Packets held at an endpoint count against the window like packets in the
    pipe, so the delay adds ``C d`` packets of room.

    Examples
    --------
    Hsiao et al., Sec. III.B, 50 flows: "less than three" packets each at
    100 ms, "about four" at 500 ms.

    >>> window_per_flow(50, 187.5, [0.1, 0.5], 100)
    array([2.375, 3.875])
    """
    n = _checks.positive("n_flows", n_flows)
    d = _checks.nonnegative("delay", delay)
    total = in_flight_capacity(capacity, _checks.positive("rtt", rtt) + d, buffer)
    return _checks.scalar_or_array(total / n, n_flows, capacity, rtt, buffer, delay)


def required_delay(n_flows, window, capacity, rtt, buffer):
    """Endpoint delay that lets N flows each keep a window, Hsiao et al., Sec. II.A.

    The inverse of :func:`window_per_flow` in the delay.

    Parameters
    ----------
    n_flows : float or array_like
        Flows sharing the bottleneck [-], > 0.
    window : float or array_like
        Window each flow should keep [packets], > 0 (4 to 8 for fast retransmit).
    capacity : float or array_like
        Bottleneck rate [packets/s], > 0.
    rtt : float or array_like
        Round-trip propagation time [s], > 0.
    buffer : float or array_like
        Router buffer [packets], >= 0.

    Returns
    -------
    float or ndarray
        Delay per flow [s], 0 where the path already holds ``N w`` packets.

    Notes
    -----
    .. math:: d = \\max\\left(0, \\frac{N w - B}{C} - RTT\\right)

    Examples
    --------
    Table 1 set-up with the 40 long flows of Sec. III.C and w = 4:
    (160 - 100)/187.5 - 0.1 = 0.22 s, close to the 0.2 s maximum delay with
    which the paper's Fig. 7 lifts the average window above 4.

    >>> round(required_delay(40, 4, 187.5, 0.1, 100), 3)
    0.22
    >>> required_delay([10, 50], 4, 187.5, 0.1, 100)
    array([0.        , 0.43333333])
    """
    n = _checks.positive("n_flows", n_flows)
    w = _checks.positive("window", window)
    cap = _checks.positive("capacity", capacity)
    r = _checks.positive("rtt", rtt)
    buf = _checks.nonnegative("buffer", buffer)
    out = np.maximum((n * w - buf) / cap - r, 0.0)
    return _checks.scalar_or_array(out, n_flows, window, capacity, rtt, buffer)


def sdc_delay(delay, ce, window, rtt, max_delay=np.inf, window_threshold=SDC_WINDOW_THRESHOLD):
    """Sender-based delay control: the 1-bit AIMD delay update, one RTT at a time, after Hsiao et al., Sec. II.B.

    Parameters
    ----------
    delay : float or array_like
        Current endpoint delay ``d`` [s], >= 0.
    ce : bool or array_like of bool
        True where a CE (ECN congestion experienced) mark arrived in this RTT.
    window : float or array_like
        Congestion window [packets], > 0 (not halved on CE under SDC).
    rtt : float or array_like
        Measured round-trip time without the delay [s], > 0.
    max_delay : float or array_like
        Upper bound on the delay [s], >= 0 (0.2 s and 2 s in Figs. 7-9).
    window_threshold : float or array_like
        Window above which delay control is off and the delay is 0
        [packets] ("above eight packets", Sec. II.B).

    Returns
    -------
    float or ndarray
        Delay for the next RTT [s].

    Notes
    -----
    The paper states the principle (multiplicative increase of the delay on
    CE, additive decrease otherwise, using CWND and RTT so that the rate
    changes like TCP's) but no formula.  This function derives it from
    :func:`delayed_rate` ``w / (RTT + d)`` with the window held fixed:
    halve the rate on CE, add one packet per RTT to it otherwise,

    .. math::

        RTT + d' = \\begin{cases} 2 (RTT + d) & \\text{CE} \\\\
                   (RTT + d) \\, \\frac{w}{w + 1} & \\text{no CE} \\end{cases}

    i.e. :math:`d' = 2 d + RTT` (multiplicative in the total delay) or
    :math:`d' = d - (RTT + d)/(w + 1)` (a decrease of the rate-equivalent of
    one packet), clipped to ``[0, max_delay]``, and 0 above the threshold
    window.

    Examples
    --------
    >>> sdc_delay([0.0, 0.1, 0.1], [True, True, False], window=4, rtt=0.1)
    array([0.1 , 0.3 , 0.06])
    """
    d = _checks.nonnegative("delay", delay)
    mark = _flags("ce", ce)
    w = _checks.positive("window", window)
    r = _checks.positive("rtt", rtt)
    cap = _checks.nonnegative("max_delay", max_delay)
    threshold = _checks.positive("window_threshold", window_threshold)
    new = np.where(mark, 2.0 * (r + d) - r, d - (r + d) / (w + 1.0))
    new = np.where(w > threshold, 0.0, np.clip(new, 0.0, cap))
    return _checks.scalar_or_array(new, delay, ce, window, rtt, max_delay, window_threshold)
