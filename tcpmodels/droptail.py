"""Drop-tail and random-drop equilibria: loss against flows and buffer (Morris 1999, Eq. 5.6-5.7).

With a FIFO that is almost always full, the buffer holds every flow's
effective window (Eq. 5.2): ``buffer = n (0.87/sqrt(l) - 1)``.  Random drop
deletes from the middle of the queue, so flows see losses half a window
earlier and hold half a packet less each.
"""


from . import _checks, tcp

__all__ = ["POLICIES", "LOSS_CONSTANT", "loss_rate", "queue"]

#: Packets each flow holds below Eq. 5.1's window: 1 for drop-tail (Eq. 5.2),
#: 1.5 for random-drop (Eq. 5.7).
POLICIES = {"droptail": 1.0, "random-drop": 1.5}

#: 0.76 in Eq. 5.6/5.7 as published: 0.87^2 = 0.7569 rounded
#: (:func:`tcpmodels.symbolic.droptail_constant`).
LOSS_CONSTANT = 0.76


def _policy(policy):
    return POLICIES[_checks.choice("policy", policy, tuple(POLICIES))]


def loss_rate(n_flows, buffer, policy="droptail", bdp=0.0):
    r"""Loss rate of `n_flows` TCPs filling a drop-tail or random-drop buffer (Morris 1999, Eq. 5.6, 5.7).

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived TCP flows, > 0 [flows].
    buffer : float or array_like
        Router buffer, >= 0 [packets].
    policy : {"droptail", "random-drop"}, optional
        Which end of the queue loses packets.
    bdp : float or array_like, optional
        Packets stored on the links, added to the buffer as in the thesis'
        Eq. 8.1 ("total storage includes ... packets in flight on long links").
        0, the default, is Eq. 5.6/5.7 as published [packets].

    Returns
    -------
    float or ndarray
        Loss rate [-].

    Notes
    -----
    .. math:: l = \frac{0.76\,n^2}{(n + q)^2} \quad\text{(drop-tail)}, \qquad
              l = \frac{0.76\,n^2}{(1.5n + q)^2} \quad\text{(random drop)}

    Valid while flows keep windows above about four packets (buffer above
    about 5 per flow): with fewer, time-outs idle flows and real loss falls
    below the prediction (section 5.2.1).  A warning says so.

    Examples
    --------
    >>> round(loss_rate(100, 500), 5)   # 0.76 * 100**2 / 600**2
    0.02111
    >>> round(loss_rate(100, 500, policy="random-drop"), 5)   # 0.76 * 1e4 / 650**2
    0.01799
    """
    n = _checks.positive("n_flows", n_flows)
    q = _checks.nonnegative("buffer", buffer)
    wire = _checks.nonnegative("bdp", bdp)
    held = _policy(policy)
    total = q + wire
    _checks.warn_where(total < 4.0 * n, "fewer than 4 packets of storage per flow: flows fall into "
                                        "time-out and Eq. 5.6/5.7 over-estimate loss (Morris 1999, 5.2.1)")
    l = LOSS_CONSTANT * n**2 / (held * n + total) ** 2  # Eq. 5.6 / 5.7
    return _checks.scalar_or_array(l, n_flows, buffer, bdp)


def queue(n_flows, loss_rate, policy="droptail"):
    r"""Packets `n_flows` TCPs keep queued at a loss rate: the queue form of Eq. 5.6/5.7.

    Parameters
    ----------
    n_flows : float or array_like
        Long-lived TCP flows, > 0 [flows].
    loss_rate : float or array_like
        Loss rate, in (0, 1] [-].
    policy : {"droptail", "random-drop"}, optional
        Which end of the queue loses packets.

    Returns
    -------
    float or ndarray
        Queue [packets]; negative where the law has no meaning (warned).

    Notes
    -----
    .. math:: q = n\left(\frac{0.87}{\sqrt{l}} - 1\right), \qquad
              q = n\left(\frac{0.87}{\sqrt{l}} - 1.5\right)

    Examples
    --------
    >>> round(queue(100, 0.02), 1)   # 100 * (0.87 / sqrt(0.02) - 1)
    515.2
    """
    n = _checks.positive("n_flows", n_flows)
    l = _checks.in_range("loss_rate", loss_rate, 0.0, 1.0, low_open=True)
    q = n * (tcp._window(l) - _policy(policy))
    _checks.warn_where(q < 0, "loss_rate too high: flows would hold a negative queue")
    return _checks.scalar_or_array(q, n_flows, loss_rate)
