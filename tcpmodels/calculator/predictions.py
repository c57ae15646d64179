"""Prediction tables: RED's equilibrium across flow counts with a status per row, HighSpeed TCP's laws.

Every number comes from the model modules (:func:`tcpmodels.red.equilibrium`,
:mod:`tcpmodels.hstcp`); what is here is choosing the rows and classifying
each RED row by the first way the setting breaks at that load.
"""

import dataclasses

import numpy as np

from .. import _checks, hstcp, red, tcp
from .._results import Result
from .stability import DEFAULT_MARGIN, verdicts

__all__ = ["DEFAULT_MODEL", "MODELS", "DEFAULT_SENDER", "SENDERS", "SWEEP_FACTORS", "MAX_LOSS",
           "MAX_QUEUE_PER_FLOW", "MAX_DELAY", "MAX_POINTS", "Prediction", "HSTCPRow", "HSTCPTable", "predict",
           "hstcp_table"]

#: The RED equilibrium model the calculator predicts with (``red.equilibrium``'s default,
#: the most accurate against packet-level measurements), and the choices.
DEFAULT_MODEL = "P3"
MODELS = red.MODELS
#: TCP sender the P3 predictions assume, and the choices.
DEFAULT_SENDER = "newreno"
SENDERS = tuple(tcp.TIMEOUT_SPACING)
#: Multiples of the design flow count in the "where does it break" table: N/4 ... 4N.
SWEEP_FACTORS = tuple(2.0 ** np.linspace(-2.0, 2.0, 9))
#: Loss above which a flow's effective window drops under 4 packets, so fast
#: retransmit fails and time-outs take over (Morris 1999, section 5.3.4: "less than 3%").
MAX_LOSS = 0.03
#: Queue per flow [packets] above which RED buffers more than TCP needs: twice FPQ's 5 (section 7.1).
MAX_QUEUE_PER_FLOW = 10.0
#: Most rows of an HSTCP table: a table to read, and far from a memory problem.
MAX_POINTS = 100_000
#: Default queueing delay [s] above which a row is "long delay": a standing queue that adds more than
#: a typical Internet round trip (the user changes it with ``max_delay`` / ``--max-delay``).
MAX_DELAY = 0.1

# Statuses of a prediction row, most serious first.
_FORCED = "forced drops"
_TIMEOUTS = "time-outs"
_DELAY = "long delay"
_EXCESS = "excess queue"
_IDLE = "idle link"
_OK = "ok"


@dataclasses.dataclass(frozen=True)
class Prediction(Result):
    """Predicted RED equilibrium for one flow count.

    Attributes
    ----------
    n_flows : int
        Number of long-lived flows.
    loss_rate : float
        Drop rate at the router (fraction of packets).
    queue : float
        Average queue [packets].
    delay : float
        Average queueing delay, queue / capacity [s].
    queue_per_flow : float
        Average queue per flow [packets].
    timeouts_per_packet : float
        Retransmission time-outs per packet sent.
    timeout_fraction : float
        Fraction of time a flow spends in time-out.
    window : float
        Average congestion window [packets].
    mark_rate : float
        Fraction of arriving packets ECN-marked (0 without ECN); the congestion
        signal is ``loss_rate + mark_rate``.
    stability : str
        Whether the linearized loop holds this equilibrium at the printed
        weight (:func:`tcpmodels.calculator.stability.verdicts`): ``"stable"``,
        ``"below margin"`` (stable, gain margin under the required one),
        ``"unstable"`` (the queue oscillates), ``"no verdict"`` (outside the
        model: forced drops, the average at min_th or windows under 4 packets), or ``"-"`` (no weight given).
    gain_margin : float
        Gain margin of the loop [-] (NaN without a verdict).
    phase_margin : float
        Phase margin [deg] (inf where the loop gain stays below 1).
    period : float
        Period of the oscillation the loop predicts [s].
    status : str
        ``"ok"``, or the first way the setting breaks at this load:
        ``"forced drops"`` (average queue at max_th), ``"time-outs"`` (loss above
        :data:`MAX_LOSS`), ``"long delay"`` (queueing delay above the chosen
        maximum, :data:`MAX_DELAY` by default), ``"excess queue"`` (more than :data:`MAX_QUEUE_PER_FLOW`
        packets queued per flow) or ``"idle link"`` (average queue below min_th).
    """

    n_flows: int
    loss_rate: float
    queue: float
    delay: float
    queue_per_flow: float
    timeouts_per_packet: float
    timeout_fraction: float
    window: float
    mark_rate: float
    stability: str
    gain_margin: float
    phase_margin: float
    period: float
    status: str


@dataclasses.dataclass(frozen=True)
class HSTCPRow(Result):
    """HighSpeed TCP's laws at one window (RFC 3649).

    Attributes
    ----------
    window : float
        Average congestion window [packets].
    loss_rate : float
        Loss rate of the response function at that window
        (:func:`tcpmodels.hstcp.loss_rate`: Standard TCP's below ~38 packets).
    a : float
        Increase per RTT a(w) [packets].
    b : float
        Decrease factor b(w): on a congestion event w <- (1 - b) w.
    """

    window: float
    loss_rate: float
    a: float
    b: float


@dataclasses.dataclass(frozen=True)
class HSTCPTable(Result):
    """HighSpeed TCP's a(w), b(w) and response function over a window or loss range.

    Attributes
    ----------
    kind : str
        Form of a(w) and b(w) (:data:`tcpmodels.hstcp.KINDS`).
    rows : tuple of HSTCPRow
    """

    kind: str
    rows: tuple



def _status(loss_rate, queue, delay, queue_per_flow, saturated, min_th, max_delay):
    """Classify each prediction row (most serious reason first)."""
    return np.select(
        [saturated, loss_rate > MAX_LOSS, delay > max_delay, queue_per_flow > MAX_QUEUE_PER_FLOW, queue < min_th],
        [_FORCED, _TIMEOUTS, _DELAY, _EXCESS, _IDLE], default=_OK)


def predict(lk, n_flows, min_th, max_th, max_p, *, model=DEFAULT_MODEL, rto=1.0, sender=DEFAULT_SENDER,
            max_delay=MAX_DELAY, gentle=False, ecn=False, limit=None, weight=None, margin=DEFAULT_MARGIN):
    """Predict RED's equilibrium on a link for one or more flow counts.

    Parameters
    ----------
    lk : Link
        The link.
    n_flows : int or array_like of int
        Flow counts.
    min_th, max_th : float
        RED thresholds [packets].
    max_p : float
        RED drop probability at max_th.
    model : str, optional
        Model of :func:`tcpmodels.red.equilibrium`.
    rto : float, optional
        Length of one retransmission time-out [s].
    sender : {"newreno", "reno", "tahoe"}, optional
        TCP sender whose time-out behaviour the P3 model uses.
    max_delay : float, optional
        Queueing delay above which a row's status is ``"long delay"`` [s].
    gentle : bool, optional
        Gentle RED (P3): the drop probability rises from max_p to 1 between
        max_th and 2 max_th; ``"forced drops"`` then means the queue at `limit`.
    ecn : bool, optional
        ECN marking (P3): early decisions are marks, only drops at the cap
        are losses (``loss_rate`` drops, ``mark_rate`` marks).
    limit : float, optional
        Hard queue limit [packets] (tc's ``limit``), >= max_th; caps the gentle ramp.
    weight : float, optional
        EWMA weight of the printed line: with it, each row gets a stability verdict.
    margin : float, optional
        Gain margin a row needs to be ``"stable"``.

    Returns
    -------
    tuple of Prediction
        One per flow count, in order.
    """
    max_delay = float(_checks.positive("max_delay", max_delay))
    n = np.atleast_1d(np.asarray(n_flows))
    eq = red.equilibrium(n, max_th, max_p, model=model, rtt=lk.rtt, capacity=lk.capacity,
                         rto=rto, min_th=min_th, sender=sender, gentle=gentle, ecn=ecn, limit=limit)
    loss, queue = np.broadcast_arrays(eq.loss_rate, eq.queue)
    per_flow, delay = queue / n, queue / lk.capacity
    # Windows shrink below 4 packets with the congestion signal, which with ECN is drops + marks.
    status = _status(loss + eq.mark_rate, queue, delay, per_flow, np.broadcast_to(eq.saturated, n.shape), min_th,
                     max_delay)
    columns = np.broadcast_arrays(loss, queue, delay, per_flow, eq.timeouts_per_packet,
                                  eq.timeout_fraction, eq.window, eq.mark_rate)
    label, *loop = (np.full(n.shape, "-"), *np.full((3, n.size), np.nan)) if weight is None else \
        verdicts(lk, n, min_th, max_th, max_p, weight, gentle=gentle, margin=margin)
    return tuple(Prediction(int(n[i]), *(float(c[i]) for c in columns), str(label[i]),
                            *(float(c[i]) for c in loop), str(status[i]))
                 for i in range(n.size))


def _span(name, values):
    """A checked ``(low, high)`` pair as two floats, or ``ValueError`` naming `name`."""
    if np.shape(values) != (2,):
        raise ValueError(f"{name} must be a pair (low, high), got {_checks.short(values.tolist())}")
    return float(values[0]), float(values[1])


def hstcp_table(window=None, loss_rate=None, *, points=10, kind="formula"):
    """HighSpeed TCP's response function and a(w), b(w) at windows spread over a range.

    Give at most one of `window` or `loss_rate`; the default is RFC 3649's
    design range, windows 38 to 83000 packets.

    Parameters
    ----------
    window : tuple of float, optional
        ``(low, high)`` average windows [packets].
    loss_rate : tuple of float, optional
        ``(low, high)`` loss rates; the windows are the response function's.
    points : int, optional
        Rows, spaced evenly on a log scale (1 when low == high); at most :data:`MAX_POINTS`.
    kind : {"formula", "monotone", "table", "linux"}, optional
        Form of a(w) and b(w) (:mod:`tcpmodels.hstcp`).

    Returns
    -------
    HSTCPTable

    Examples
    --------
    >>> t = hstcp_table(window=(38, 83000), points=2)
    >>> [(r.window, round(r.a), round(r.b, 3)) for r in t.rows]   # RFC 3649, Sec. 5 end points
    [(38.0, 1, 0.5), (83000.0, 71, 0.1)]
    """
    if window is not None and loss_rate is not None:
        raise ValueError("give at most one of window and loss_rate")
    count = int(_checks.whole("points", points))
    if count > MAX_POINTS:  # each row is a Python object: refuse before allocating
        raise ValueError(f"points must be at most {MAX_POINTS}, got {count}")
    if loss_rate is not None:
        lo, hi = sorted(_span("loss_rate", _checks.in_range("loss_rate", loss_rate, 0, 1, low_open=True)))
        windows = np.atleast_1d(hstcp.window(np.geomspace(hi, lo, count if lo < hi else 1)))
    else:
        lo, hi = (hstcp.LOW_WINDOW, hstcp.HIGH_WINDOW) if window is None else _span(
            "window", _checks.positive("window", window, finite=True))
        windows = np.geomspace(float(lo), float(hi), count if lo < hi else 1)
    columns = (windows, hstcp.loss_rate(windows), hstcp.a(windows, kind=kind), hstcp.b(windows, kind=kind))
    rows = tuple(HSTCPRow(*(float(c[i]) for c in columns)) for i in range(windows.size))
    return HSTCPTable(kind, rows)


