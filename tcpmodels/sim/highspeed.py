"""HighSpeed TCP (RFC 3649) and Scalable TCP (Kelly 2003) in the engine: only the increase and decrease differ.

Both keep NewReno's recovery (with SACK by default) and slow start; in
congestion avoidance each ACKed packet adds ``a(w) / w`` (times the
delayed-ACK gain) and a congestion signal leaves ``(1 - b(w)) w``, with
``a`` and ``b`` taken from :mod:`tcpmodels.hstcp`.
"""

import abc

import numpy as np

from .. import hstcp
from . import scenario as spec
from .senders import ENGINES, NewReno

__all__ = ["HighSpeed", "Scalable"]


class _IncreaseDecrease(NewReno, metaclass=abc.ABCMeta):
    """NewReno whose congestion avoidance grows by ``a(w)/w`` per ACK and whose reduction keeps ``1 - b(w)``."""

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        self.spec = spec or scenarios[0].sender

    @abc.abstractmethod
    def a(self, w):
        """Increase per RTT at windows ``w`` [packets] (each sender's law)."""

    @abc.abstractmethod
    def b(self, w):
        """Decrease factor at windows ``w`` [-] (each sender's law)."""

    def increase(self, acks):
        """Slow start as Standard TCP; congestion avoidance ``a(w)/w`` per ACKed packet (Eq. 1 of Su et al. 2006)."""
        self.grow_by(acks, self.a(np.maximum(self.f.cwnd, 1.0)))

    def grow_by(self, acks, a):
        """Grow the windows by ``a`` per RTT in congestion avoidance, 1 per ACK in slow start."""
        f = self.f
        w = np.maximum(f.cwnd, 1.0)
        gain = np.where(f.cwnd >= f.ssthresh, a / w, 1.0)
        np.minimum(f.cwnd + acks * f.grow * gain, self.wmax, out=f.cwnd)

    def reduced(self, j):
        """The window after a congestion signal: ``(1 - b(w)) w`` of the full window (Eq. 2), at least 2."""
        w = np.maximum(np.floor(self.f.cwnd[j]), 1.0)
        return np.maximum(w * (1.0 - self.b(w)), 2.0)  # (b = 0.5: Standard TCP's FlightSize / 2)

    def reduced_on_loss(self, j):
        """A fast retransmit reduces as any congestion signal does (``reduced``)."""
        return self.reduced(j)

    def reduced_on_echo(self, j):
        """An ECN echo reduces as any congestion signal does (``reduced``: b(w) of the window)."""
        return self.reduced(j)


class HighSpeed(_IncreaseDecrease):
    """HighSpeed TCP: a(w) and b(w) of RFC 3649 (``hstcp.a``/``hstcp.b``, of the spec's ``kind``)."""

    # (hstcp.a and hstcp.b without their checks of the windows, which the engine keeps >= 1, and of the kind,
    # which the spec checked: those took 60 % of the laws' time, 15 % of a three-flow run at OC-48.)
    def a(self, w):
        return hstcp._a_law(w, self.spec.kind)

    def b(self, w):
        return hstcp._b_law(w, self.spec.kind)


class Scalable(_IncreaseDecrease):
    """Scalable TCP: 0.01 per ACK and b = 0.125 above the legacy window, Standard TCP at or below it."""

    def __init__(self, scenarios, flows, ring, dt, spec=None):
        super().__init__(scenarios, flows, ring, dt, spec)
        self.low = self.spec.low_window

    def a(self, w):
        return np.where(w > self.low, hstcp.scalable_a(w), 1.0)

    def b(self, w):
        return np.where(w > self.low, hstcp.scalable_b(w), 0.5)


ENGINES.update({spec.HighSpeed: HighSpeed, spec.Scalable: Scalable})
