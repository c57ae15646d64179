"""tcpmodels: TCP congestion control with many flows, as formulas and as a fast simulator.

Morris (1999) laws for window, time-outs, drop-tail, RED and FPQ; HighSpeed TCP
and the seed papers' variants; a vectorized fluid simulator that checks them.
"""

from ._checks import TCPModelsWarning

__version__ = "0.1.0"

__all__ = ["TCPModelsWarning", "__version__"]
