"""Will the printed RED setting hold its equilibrium? Verdicts and remedies from :func:`tcpmodels.red.stability`.

The verdict is the linearized TCP/RED loop's (Hollot, Misra, Towsley & Gong
2001/2002) at the fluid model's operating point, for the weight the tc line
actually carries (2^-Wlog), with Linux's count-based drop spacing and delayed
ACKs (what the kernel and the ns-3 references do).  Where the setting is
unstable or below the required gain margin, one vectorized call over candidate
settings finds the nearest max_p, and the nearest weight tc can carry, that
meet the margin; what a new max_p costs is P3's equilibrium at it.
"""

import dataclasses
import warnings

import numpy as np

from .. import _checks, red
from .._results import Result
from .tc import min_probability, tc_red, wlog_range

__all__ = ["DEFAULT_MARGIN", "Verdict", "Remedy", "verdicts", "verdict", "remedies"]

#: Default gain margin a setting must have.  Evidence (README, "RED dynamics"): the four ns-3 runs swing at
#: margins 0.24 and 0.40, settle with a small cycle at 0.90 and settle cleanly at 1.21; on a 12 x 12 grid the
#: fluid model's limit cycles and the linear verdict disagree only within 10 % of the boundary.  1.2 keeps a
#: setting twice that band clear of the boundary, and the run that settled cleanly meets it.
DEFAULT_MARGIN = 1.2
# How the loop is evaluated: Linux's (and ns-3's with Wait=false) drop spacing, receivers with delayed ACKs.
_LOOP = {"drop_spacing": "count", "delayed_ack": True}
# Candidate max_p values for a remedy: down to 1/1000 of the printed one, 1.8 % apart.
_MAX_P_STEPS = np.geomspace(1.0, 1e-3, 400)

# Stability column values.
STABLE, BELOW_MARGIN, UNSTABLE, NO_VERDICT = "stable", "below margin", "unstable", "no verdict"


@dataclasses.dataclass(frozen=True)
class Verdict(Result):
    """Stability of one setting at one flow count.

    Attributes
    ----------
    n_flows : int
    stability : str
        ``"stable"``, ``"below margin"``, ``"unstable"`` or ``"no verdict"`` (:func:`verdicts`).
    gain_margin, phase_margin, period : float
        [-], [deg], [s]; NaN without a verdict.
    """

    n_flows: int
    stability: str
    gain_margin: float
    phase_margin: float
    period: float


@dataclasses.dataclass(frozen=True)
class Remedy(Result):
    """A nearby setting that meets the required gain margin, and what it costs.

    Attributes
    ----------
    change : str
        ``"max_p"`` (a smaller max_p, same weight) or ``"weight"`` (another
        EWMA weight tc can carry, same max_p).
    max_p : float
        The setting's max_p (4 significant figures, as tc prints it).
    weight : float
        EWMA weight 2**-ewma_log.
    ewma_log : int
        tc's Wlog.
    gain_margin, phase_margin : float
        Of the linearized loop at the design flow count [-], [deg].
    loss_rate, mark_rate : float
        P3's drops and ECN marks at the new setting (unchanged for a new weight:
        P3 has no weight).
    queue : float
        P3's average queue [packets].
    delay : float
        Queueing delay, queue / capacity [s].
    averaging_time : float
        Time the average takes to follow the queue, 2**ewma_log packets at the link rate [s].
    command : str
        The tc line of the new setting.
    """

    change: str
    max_p: float
    weight: float
    ewma_log: int
    gain_margin: float
    phase_margin: float
    loss_rate: float
    mark_rate: float
    queue: float
    delay: float
    averaging_time: float
    command: str


_FIELDS = ("valid", "stable", "gain_margin", "phase_margin", "period")


def _loop(lk, n_flows, min_th, max_th, max_p, weight, gentle):
    """red.stability at the link, as arrays of :data:`_FIELDS` over the broadcast inputs.

    Its warnings (no verdict where invalid: forced drops, an operating point at
    min_th, windows below 4 packets) become the verdict column.
    """
    n, hi, mp, w = np.broadcast_arrays(np.asarray(n_flows, dtype=float), max_th, max_p, weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _checks.TCPModelsWarning)
        s = red.stability(np.atleast_1d(n), lk.rtt, lk.capacity, min_th=min_th, max_th=hi, max_p=mp, weight=w,
                          gentle=gentle, **_LOOP)
    return {key: np.asarray(getattr(s, key)) for key in _FIELDS}


def _label(s, margin):
    return np.select([~s["valid"], ~s["stable"], s["gain_margin"] < margin],
                     [NO_VERDICT, UNSTABLE, BELOW_MARGIN], default=STABLE)


def verdicts(lk, n_flows, min_th, max_th, max_p, weight, *, gentle=False, margin=DEFAULT_MARGIN):
    """Stability of a RED setting at each flow count: label, gain and phase margins, period.

    Parameters
    ----------
    lk : Link
        The link.
    n_flows : array_like of int
        Flow counts.
    min_th, max_th : float
        Thresholds [packets].
    max_p : float or array_like
        max_p (per flow count with adaptive RED).
    weight : float
        EWMA weight of the printed tc line, 2**-Wlog.
    gentle : bool, optional
        Gentle RED.
    margin : float, optional
        Required gain margin, >= 1.

    Returns
    -------
    tuple of ndarray
        ``(label, gain_margin, phase_margin, period)``: label ``"stable"``,
        ``"below margin"``, ``"unstable"`` or ``"no verdict"`` (operating point
        in RED's forced drops, at min_th or windows below 4 packets: outside the model);
        margins and period NaN where there is no verdict.
    """
    n = np.atleast_1d(np.asarray(n_flows, dtype=float))
    s = _loop(lk, n, min_th, max_th, max_p, weight, gentle)
    columns = (s["gain_margin"], s["phase_margin"], s["period"])
    return (np.broadcast_to(_label(s, margin), n.shape),
            *(np.broadcast_to(np.asarray(c, dtype=float), n.shape) for c in columns))


def verdict(lk, n, min_th, max_th, max_p, weight, *, gentle=False, margin=DEFAULT_MARGIN):
    """:func:`verdicts` at one flow count, as a :class:`Verdict`.

    Parameters
    ----------
    lk : Link
        The link.
    n : int
        Flow count.
    min_th, max_th : float
        Thresholds [packets].
    max_p : float
        max_p.
    weight : float
        EWMA weight of the printed tc line.
    gentle : bool, optional
        Gentle RED.
    margin : float, optional
        Required gain margin.

    Returns
    -------
    Verdict
    """
    label, *loop = verdicts(lk, n, min_th, max_th, max_p, weight, gentle=gentle, margin=margin)
    return Verdict(int(n), str(label[0]), *(float(c[0]) for c in loop))


def _cost(lk, n, min_th, max_th, max_p, model):
    e = red.equilibrium(n, max_th, max_p, rtt=lk.rtt, capacity=lk.capacity, min_th=min_th, **model)
    return float(e.loss_rate), float(e.mark_rate), float(e.queue), float(e.queue) / lk.capacity


def remedies(lk, n, min_th, max_th, max_p, ewma_log, *, margin=DEFAULT_MARGIN, vary_max_p=True, tc=None,
             **options):
    """The nearest max_p, and the nearest weight tc can carry, that meet the gain margin at `n` flows.

    Parameters
    ----------
    lk : Link
        The link.
    n : int
        Design flow count.
    min_th, max_th : float
        Thresholds [packets].
    max_p : float
        Printed max_p.
    ewma_log : int
        Printed Wlog (weight 2**-ewma_log).
    margin : float, optional
        Required gain margin.
    vary_max_p : bool, optional
        Also search max_p (not with adaptive RED, which moves max_p itself).
    tc : dict, optional
        Further :func:`tcpmodels.calculator.tc_red` options for the remedies' lines (limit, dev, flags).
    options : dict
        :func:`tcpmodels.red.equilibrium` keywords for the costs (model, sender, rto, gentle, ecn, limit).

    Returns
    -------
    tuple of Remedy
        At most one per kind: the largest max_p below the printed one, and
        the weight tc can carry with the Wlog nearest the printed one (either
        way: more averaging helps only where RED's low-pass is the loop's
        slowest pole), that meet `margin`; none where no candidate does.
    """
    size, tc = int(lk.packet_size), dict(tc or {})
    lowest = min_probability(int(round(min_th * size)), int(round(max_th * size)))
    steps = np.unique([float(f"{p:.4g}") for p in max_p * _MAX_P_STEPS if p >= lowest]) if vary_max_p else []
    low, high = wlog_range(min_th, max_th, size, lk.bandwidth)
    logs = np.setdiff1d(np.arange(low, high + 1), [ewma_log])
    p = np.concatenate([steps, np.full(logs.size, max_p)])
    log = np.concatenate([np.full(len(steps), ewma_log), logs])
    s = _loop(lk, n, min_th, max_th, p, 2.0 ** -log, options.get("gentle", False))
    good = s["valid"] & s["stable"] & (s["gain_margin"] >= margin)
    # Nearest: the largest max_p; the Wlog closest to the printed one (averaging helps only where RED's
    # low-pass is the loop's slowest pole; elsewhere its lag hurts, so both directions are candidates).
    nearness = np.where(log == ewma_log, p, -np.abs(log - ewma_log) - 0.5 * (log > ewma_log))
    out = []
    for change, pick in (("max_p", good & (p < max_p)), ("weight", good & (log != ewma_log))):
        if not pick.any():
            continue
        i = np.flatnonzero(pick)[np.argmax(nearness[pick])]
        line = tc_red(min_th, max_th, p[i], size, lk.bandwidth, **tc)   # a new max_p keeps the printed burst
        if line.ewma_log != log[i]:
            line = tc_red(min_th, max_th, p[i], size, lk.bandwidth, ewma_log=int(log[i]), **tc)
        out.append(Remedy(change, float(p[i]), line.weight, line.ewma_log, float(s["gain_margin"][i]),
                          float(s["phase_margin"][i]), *_cost(lk, n, min_th, max_th, p[i], options),
                          2.0 ** line.ewma_log / lk.capacity, line.command))
    return tuple(out)
