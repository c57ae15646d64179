"""Flow-Proportional Queuing: one-bit-per-flow counting and flow-proportional targets (Morris 1999, ch. 6).

FPQ counts active flows with a bit vector (Fig. 6.1, Eq. 6.1), chooses a
target queue and loss rate from the count (Fig. 6.2, Eq. 6.2) and enforces
them with RED settings derived from the targets (Fig. 6.4).
"""

import dataclasses

import numpy as np

from . import _checks, tcp
from ._results import Result
from .red import REDParams

__all__ = [
    "PPF",
    "MAX_LOSS",
    "FPQTargets",
    "BitVectorCounter",
    "flows_from_bits",
    "targets",
    "red_params",
]

#: Packets buffered per flow (section 7.1: "We use 5").
PPF = 5.0
#: Target loss rate: Eq. 5.2 gives a window of about 5 at 1.6 % (section 6.2).
MAX_LOSS = 0.016


@dataclasses.dataclass(frozen=True)
class FPQTargets(Result):
    """FPQ's target operating point.

    Attributes
    ----------
    queue : float or ndarray
        Target average queue [packets].
    loss_rate : float or ndarray
        Target loss rate [-].
    """

    queue: object
    loss_rate: object


def flows_from_bits(ones, bits):
    r"""Expected number of flows behind `ones` set bits of a `bits`-bit vector (Morris 1999, Eq. 6.1).

    Parameters
    ----------
    ones : float or array_like
        Bits set, ``0 <= ones < bits`` [-].
    bits : float or array_like
        Size of the vector :math:`v_{max}`, a whole number >= 2 [-].

    Returns
    -------
    float or ndarray
        Estimated flows [flows].

    Notes
    -----
    With `f` flows hashed uniformly, a bit is still zero with probability
    :math:`((v_{max}-1)/v_{max})^f`, so

    .. math:: f = \frac{\ln(1 - c / v_{max})}{\ln((v_{max} - 1) / v_{max})}

    The estimate corrects hash collisions; ``ones`` and ``f`` are within 10 %
    while ``bits`` is at least five times ``f``.

    Examples
    --------
    1000 flows set 5000 (1 - (4999/5000)^1000) = 906.35 bits on average:

    >>> round(flows_from_bits(906.35, 5000))
    1000
    >>> flows_from_bits([0, 100], 5000)
    array([  0.    , 101.0034])
    """
    v = _checks.whole("bits", bits, minimum=2)
    c = _checks.nonnegative("ones", ones)
    ok = c < v
    if not ok.all():
        raise ValueError(f"ones must be < bits (a full vector says nothing), got {_checks.first_bad(c, ok)!r}")
    f = np.log1p(-c / v) / np.log1p(-1.0 / v)  # Eq. 6.1
    return _checks.scalar_or_array(f, ones, bits)


def _hash(flow_ids, bits):
    # SplitMix64 finaliser: consecutive flow ids land on independent, uniform
    # bits, which Eq. 6.1's collision correction assumes.
    x = np.asarray(flow_ids).astype(np.uint64)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return (x % np.uint64(bits)).astype(np.intp)


class BitVectorCounter:
    """Active-flow counter with one bit per flow (Morris 1999, Fig. 6.1).

    Parameters
    ----------
    bits : int
        Vector size :math:`v_{max}`; should exceed the largest expected flow count [-].
    t_clear : float
        Every bit is cleared once per `t_clear` on average; longer than the
        largest round-trip time including queueing [s].
    rng : numpy.random.Generator or int, optional
        Source of the random bit positions to clear (or a seed).
    start : float, optional
        Time of the first clearing interval [s].

    Notes
    -----
    For each arriving packet, Fig. 6.1 sets the bit its flow hashes to, then
    clears :math:`v_{max}(t - t_{last})/t_{clear}` randomly chosen bits.  Here
    whole bits are cleared and the fractional remainder carries to the next
    packet (the pseudo-code's ``t_last <- t`` would drop it and clear fewer
    bits than :math:`v_{max}` per `t_clear` when packets are frequent).

    :meth:`update` takes a whole batch of packets at once, with no per-packet
    Python loop: a bit ends the batch set iff its last set comes after the
    last clear that hit it, with a packet's set ordered before the clears it
    triggers, as in Fig. 6.1.

    Examples
    --------
    >>> counter = BitVectorCounter(5000, t_clear=4.0, rng=1)
    >>> times = np.linspace(0.0, 1.0, 30000)
    >>> estimate = counter.update(np.arange(30000) % 300, times)   # 300 flows, 100 packets each
    >>> 290 < estimate < 310
    True
    """

    def __init__(self, bits, t_clear, rng=None, start=0.0):
        self.bits = int(_checks.whole("bits", bits, minimum=2))
        self.t_clear = float(_checks.positive("t_clear", t_clear))
        if not (rng is None or isinstance(rng, np.random.Generator)):
            rng = _checks.seed("rng", rng)
        self._rng = np.random.default_rng(rng)
        self._vector = np.zeros(self.bits, dtype=bool)
        self._t_last = float(_checks.array("start", start))
        self._carry = 0.0

    @property
    def ones(self):
        """Bits currently set [-]."""
        return int(np.count_nonzero(self._vector))

    @property
    def estimate(self):
        """Current flow estimate, Eq. 6.1 applied to :attr:`ones` [flows]."""
        return flows_from_bits(min(self.ones, self.bits - 1), self.bits)

    def update(self, flow_ids, times):
        """Process a batch of packets and return the new flow estimate.

        Parameters
        ----------
        flow_ids : array_like of int
            Flow identifier of each packet (any integers; hashed to bits).
        times : array_like of float
            Arrival time of each packet, non-decreasing and not before the
            previous batch [s].

        Returns
        -------
        float
            Eq. 6.1 estimate after the last packet [flows].
        """
        ids = np.asarray(flow_ids)
        t = _checks.array("times", times)
        if ids.shape != t.shape or ids.ndim != 1:
            raise ValueError(f"flow_ids and times must be 1-d arrays of one length, got shapes "
                             f"{ids.shape} and {t.shape}")
        if not np.issubdtype(ids.dtype, np.integer) and ids.size:
            raise ValueError(f"flow_ids must be integers, got dtype {ids.dtype}")
        if t.size == 0:
            return self.estimate
        if not (t[0] >= self._t_last and np.all(np.diff(t) >= 0)):
            raise ValueError("times must be non-decreasing and not before the previous batch")
        # Clears owed by the time of each packet, carrying fractions forward.
        owed = self._carry + (t - self._t_last) * (self.bits / self.t_clear)
        whole = np.floor(owed)
        per_packet = np.diff(whole, prepend=0.0).astype(np.intp)
        self._carry = owed[-1] - whole[-1]
        self._t_last = t[-1]
        n_clears = int(whole[-1])
        # Order events: packet j's set is 2j, the clears it triggers are 2j+1.
        set_bits = _hash(ids, self.bits)
        last_set = np.full(self.bits, -1, dtype=np.intp)
        np.maximum.at(last_set, set_bits, 2 * np.arange(ids.size))
        last_clear = np.full(self.bits, -1, dtype=np.intp)
        if n_clears:
            clear_bits = self._rng.integers(0, self.bits, size=n_clears)
            clear_keys = 2 * np.repeat(np.arange(ids.size), per_packet) + 1
            np.maximum.at(last_clear, clear_bits, clear_keys)
        touched = (last_set >= 0) | (last_clear >= 0)
        self._vector = np.where(touched, last_set > last_clear, self._vector)
        return self.estimate


def _flows_and_bdp(n_flows, bdp):
    f = _checks.in_range("n_flows", n_flows, 1.0, np.inf)
    r = _checks.nonnegative("bdp", bdp)
    return f, r


def targets(n_flows, bdp, ppf=PPF, max_loss=MAX_LOSS):
    r"""FPQ's target queue and loss rate for `n_flows` flows (Morris 1999, Fig. 6.2 and Eq. 6.2).

    Parameters
    ----------
    n_flows : float or array_like
        Counted active flows, >= 1 [flows].
    bdp : float or array_like
        Round-trip propagation time times the link rate [packets].
    ppf : float or array_like, optional
        Packets buffered per flow (section 7.1) [packets].
    max_loss : float or array_like, optional
        Loss-rate ceiling, in (0, 1) [-].

    Returns
    -------
    FPQTargets
        ``.queue`` [packets] and ``.loss_rate`` [-].

    Notes
    -----
    .. math::
        q = \max\left(\frac{r}{2f - 1},\ ppf \cdot f\right), \qquad
        l = \min\left(\left(\frac{0.87}{\frac{q + r}{f} + 1}\right)^2,\ 0.016\right)

    Eq. 6.2, :math:`q = r/(2f-1)`, is the buffer one flow's halving needs for
    full utilisation when RED spreads halvings out; the loss follows from
    Eq. 5.2 at the window :math:`(q + r)/f`.

    Examples
    --------
    Fig. 6.3's link (bdp 217 packets): 10 flows need 217/19 = 11.4 < 50 packets;
    the window (50 + 217)/10 = 26.7 needs (0.87/27.7)^2 = 0.00099 loss.

    >>> t = targets(10, 217)
    >>> t.queue, round(t.loss_rate, 5)
    (50.0, 0.00099)
    >>> targets([1, 300], 217).queue
    array([ 217., 1500.])
    """
    f, r = _flows_and_bdp(n_flows, bdp)
    k = _checks.positive("ppf", ppf)
    cap = _checks.in_range("max_loss", max_loss, 0.0, 1.0, low_open=True, high_open=True)
    q = np.maximum(r / (2.0 * f - 1.0), k * f)  # Eq. 6.2 / Fig. 6.2
    w = (q + r) / f
    l = np.minimum(tcp._loss_for_window(w + 1.0), cap)  # Eq. 5.2 inverted: w_eff + 1 = 0.87/sqrt(l)
    inputs = (n_flows, bdp, ppf, max_loss)
    return FPQTargets(_checks.scalar_or_array(q, *inputs), _checks.scalar_or_array(l, *inputs))


def red_params(n_flows, bdp, ppf=PPF, max_loss=MAX_LOSS, min_th=5.0, form="figure"):
    r"""RED settings that enforce FPQ's targets (Morris 1999, Fig. 6.4).

    Parameters
    ----------
    n_flows : float or array_like
        Counted active flows, >= 1 [flows].
    bdp : float or array_like
        Bandwidth-delay product [packets].
    ppf, max_loss : float or array_like, optional
        As in :func:`targets`.
    min_th : float or array_like, optional
        RED's lower threshold; the thesis uses 5 [packets].
    form : {"figure", "text"}, optional
        ``"figure"`` (default): Fig. 6.4, :math:`max_p = l`,
        :math:`max_{th} = 2q`.  ``"text"``: section 6.3's prose,
        :math:`max_p = l/2`, :math:`max_{th} = q`.

    Returns
    -------
    REDParams
        ``.min_th``, ``.max_th``, ``.max_p``, with the targets as ``.queue``
        and ``.loss_rate`` (the same type :func:`tcpmodels.red.size` returns).

    Notes
    -----
    Both forms make Eq. 5.8 give :math:`l` at :math:`q_{avg} = q`.  The thesis
    text first proposes :math:`max_p = l/2, max_{th} = q`, then Fig. 6.4 uses
    twice both ("proportionally higher values of max_th and max_p allow FPQ
    to use RED without interference from RED's 100% drop policy"); the
    figure's form is what its simulations use, hence the default.

    Examples
    --------
    >>> p = red_params(300, 217)
    >>> p.min_th, p.max_th, p.max_p
    (5.0, 3000.0, 0.016)
    >>> red_params(300, 217, form="text").max_th
    1500.0
    """
    t = targets(n_flows, bdp, ppf, max_loss)
    scale = 2.0 if _checks.choice("form", form, ("figure", "text")) == "figure" else 1.0
    lo = _checks.nonnegative("min_th", min_th)
    inputs = (n_flows, bdp, ppf, max_loss, min_th)
    # Either form puts Eq. 5.8's loss, 2 max_p q / max_th, at l when q_avg = q.
    fields = np.broadcast_arrays(lo, scale * np.asarray(t.queue), scale / 2.0 * np.asarray(t.loss_rate),
                                 t.queue, t.loss_rate)
    return REDParams(*(_checks.scalar_or_array(x, *inputs) for x in fields))
