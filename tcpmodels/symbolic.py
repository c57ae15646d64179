"""Sympy forms of the closed-form laws and the derivations behind the thesis' constants.

Each ``*_constant`` function re-derives a number Morris (1999) prints,
returning the exact expression; the published value is its rounding.  The
:data:`LAWS` dictionary holds the closed forms with the published constants;
``tests/test_symbolic.py`` checks each against its numeric implementation.
"""

import sympy as sp

__all__ = [
    "l", "w", "n", "q", "r", "o", "t_rto", "s", "max_th", "max_p", "f", "c", "v", "bdp", "ppf",
    "window_constant",
    "droptail_constant",
    "droptail_overflow_constants",
    "red_p1_constants",
    "max_p_rule_constant",
    "sizing_max_p_factor",
    "fpq_queue",
    "LAWS",
    "lambdify",
]

l, w, n, q, r, o, t_rto, s = sp.symbols("l w n q r o t_rto s", positive=True)
max_th, max_p, f, c, v, bdp, ppf = sp.symbols("max_th max_p f c v bdp ppf", positive=True)


def window_constant():
    r"""Eq. 5.1's 0.87: :math:`\sqrt{3}/2`.

    The window cycles from :math:`w_{max}/2` to :math:`w_{max}`, growing one
    packet per two windows, so a cycle sends :math:`\frac{3}{4}w_{max}^2`
    packets, which must be :math:`1/l`; the average is :math:`\frac{3}{4}w_{max}`.

    Examples
    --------
    >>> window_constant()
    sqrt(3)/2
    >>> round(float(window_constant()), 3)
    0.866
    """
    w_max = sp.Symbol("w_max", positive=True)
    cycle_packets = sp.integrate(2 * w, (w, w_max / 2, w_max))  # 2 windows per packet of growth
    w_max_l = sp.solve(sp.Eq(cycle_packets, 1 / l), w_max)[0]
    return sp.simplify(sp.Rational(3, 4) * w_max_l * sp.sqrt(l))


def droptail_constant():
    r"""Eq. 5.6's 0.76: solving :math:`q = n(0.87/\sqrt{l} - 1)` for :math:`l`.

    Examples
    --------
    >>> droptail_constant()
    0.756900000000000
    """
    sol = sp.solve(sp.Eq(q, n * (sp.Float("0.87") / sp.sqrt(l) - 1)), l)[0]
    return sp.simplify(sol * (n + q) ** 2 / n**2)


def droptail_overflow_constants(growth=None):
    r"""Drop-tail P3's two overflow numbers: losses per hit flow and the share of its window a hit flow gives up.

    Parameters
    ----------
    growth : sympy expression, optional
        Window growth per round trip, the drops per flow in one overflow
        [packets]; default 1/2 (delayed ACKs, Eq. 5.1's assumption).

    Returns
    -------
    tuple of sympy expressions
        ``(k, share)``: with :math:`g` drops per flow spread at random
        (Poisson), a flow is hit with probability :math:`1 - e^{-g}` and then
        loses :math:`k = g / (1 - e^{-g})` packets; a hit, in proportion to
        the rate, finds a window sawtooth uniform on :math:`[W/2, W]` at
        :math:`E[w^2]/E[w]`, and the halving gives up half of it:
        ``share`` times the mean window.

    Examples
    --------
    >>> k, share = droptail_overflow_constants()
    >>> share, round(float(k), 4)
    (14/27, 1.2707)
    """
    g = sp.Rational(1, 2) if growth is None else growth
    k = g / (1 - sp.exp(-g))
    w_max = sp.Symbol("w_max", positive=True)
    mean = sp.integrate(w, (w, w_max / 2, w_max)) / (w_max / 2)
    at_hit = sp.integrate(w**2, (w, w_max / 2, w_max)) / sp.integrate(w, (w, w_max / 2, w_max))
    return k, sp.simplify(at_hit / 2 / mean)


def red_p1_constants():
    r"""Eq. 5.12's 1.4 and Eq. 5.13's 0.7, from the equilibrium Eq. 5.11.

    Returns the exact :math:`(2 \cdot 0.87)^{2/3}` and half of it.

    Examples
    --------
    >>> k_loss, k_queue = red_p1_constants()
    >>> round(float(k_loss), 4), round(float(k_queue), 4)
    (1.4466, 0.7233)
    """
    eq_511 = sp.Eq(l * max_th / (2 * max_p), sp.Float("0.87") * n / sp.sqrt(l))
    loss = sp.solve(eq_511, l)[0]
    k_loss = sp.simplify(loss / (n * max_p / max_th) ** sp.Rational(2, 3))
    queue = loss * max_th / (2 * max_p)  # Eq. 5.10
    k_queue = sp.simplify(queue / (n ** sp.Rational(2, 3) * max_th ** sp.Rational(1, 3) / max_p ** sp.Rational(1, 3)))
    return k_loss, k_queue


def max_p_rule_constant(queue_constant=None):
    r"""Section 5.3.4's 0.81: Eq. 5.13 set to :math:`\frac{3}{4} max_{th}`, solved for :math:`max_p`.

    Parameters
    ----------
    queue_constant : sympy number, optional
        Eq. 5.13's constant: the published 0.7 (default) gives the published 0.81; the
        exact 0.723 would give 0.897.

    Examples
    --------
    >>> round(float(max_p_rule_constant()), 3)
    0.813
    """
    queue_constant = sp.Float("0.7") if queue_constant is None else queue_constant
    eq = sp.Eq(queue_constant * n ** sp.Rational(2, 3) * max_th ** sp.Rational(1, 3) / max_p ** sp.Rational(1, 3),
               sp.Rational(3, 4) * max_th)
    sol = sp.solve(eq, max_p)[0]
    return sp.simplify(sol * max_th**2 / n**2)


def sizing_max_p_factor(max_th_factor=None):
    r"""Section 5.3.4's 3/4 in :math:`max_p = \frac{3}{4} l`, from the 3/2 in :math:`max_{th}`.

    With :math:`max_{th} = k\,n\,pif`, Eq. 5.10 puts the queue at
    :math:`n\,pif` (the flows' packets) only when :math:`max_p = \frac{k}{2} l`.

    Parameters
    ----------
    max_th_factor : sympy number, optional
        :math:`k`, the multiple of the flows' packets chosen for ``max_th``
        (default: the thesis' 3/2) [-].

    Examples
    --------
    >>> sizing_max_p_factor()
    3/4
    """
    max_th_factor = sp.Rational(3, 2) if max_th_factor is None else max_th_factor
    pif = sp.Symbol("pif", positive=True)
    sol = sp.solve(sp.Eq(l * max_th_factor * n * pif / (2 * max_p), n * pif), max_p)[0]
    return sp.simplify(sol / l)


def fpq_queue():
    r"""Eq. 6.2, :math:`q = r/(2f - 1)`, from :math:`q = (r + q)/(2f)`.

    Examples
    --------
    >>> fpq_queue()
    bdp/(2*f - 1)
    """
    return sp.solve(sp.Eq(q, (bdp + q) / (2 * f)), q)[0]


_K = sp.Float("0.87")
_o = l * (1 - (1 - l) ** s)

#: Closed forms with the published constants, keyed by the numeric function
#: that implements each.  Symbols: see the module's ``__all__``.
LAWS = {
    "tcp.window": _K / sp.sqrt(l),  # Eq. 5.1
    "tcp.effective_window": _K / sp.sqrt(l) - 1,  # Eq. 5.2
    "tcp.loss_for_window": (_K / w) ** 2,
    "tcp.timeout_rate": _o,  # Eq. 5.3
    "tcp.timeout_fraction": 1 / (1 + r / (w * _o * t_rto)),  # Eq. 5.4
    "tcp.packets_in_flight": (1 - 1 / (1 + r / (_K / sp.sqrt(l) * _o * t_rto))) * _K / sp.sqrt(l),  # Eq. 5.5
    "droptail.loss_rate": sp.Float("0.76") * n**2 / (n + q) ** 2,  # Eq. 5.6
    "droptail.loss_rate_random": sp.Float("0.76") * n**2 / (sp.Float("1.5") * n + q) ** 2,  # Eq. 5.7
    "droptail.queue": n * (_K / sp.sqrt(l) - 1),
    "red.loss_from_queue": 2 * max_p * q / max_th,  # Eq. 5.8
    "red.queue_for_loss": l * max_th / (2 * max_p),  # Eq. 5.10
    "red.p1_loss": sp.Float("1.4") * n ** sp.Rational(2, 3) * max_p ** sp.Rational(2, 3) / max_th ** sp.Rational(2, 3),
    "red.p1_queue": sp.Float("0.7") * n ** sp.Rational(2, 3) * max_th ** sp.Rational(1, 3) / max_p ** sp.Rational(1, 3),
    "red.max_p_for_buffer": sp.Float("0.81") * n**2 / max_th**2,
    "fpq.flows_from_bits": sp.log(1 - c / v) / sp.log((v - 1) / v),  # Eq. 6.1
    "fpq.targets_queue": sp.Max(bdp / (2 * f - 1), ppf * f),  # Fig. 6.2
}


def lambdify(name):
    """Numeric (numpy) function of the law `name` in :data:`LAWS`, arguments in sorted symbol order.

    Parameters
    ----------
    name : str
        A key of :data:`LAWS`, e.g. ``"tcp.window"``.

    Returns
    -------
    (callable, tuple of str)
        The function and the names of its arguments, in order.

    Examples
    --------
    >>> fn, args = lambdify("red.loss_from_queue")
    >>> args
    ('max_p', 'max_th', 'q')
    >>> fn(0.02, 500, 250)
    0.02
    """
    expr = LAWS[name]
    syms = sorted(expr.free_symbols, key=lambda x: x.name)
    return sp.lambdify(syms, expr, "numpy"), tuple(x.name for x in syms)
