"""tcpmodels: TCP congestion control with many flows, as formulas and as a fast simulator.

Morris (1999) laws for window, time-outs, drop-tail, RED and FPQ; HighSpeed TCP
and the seed papers' variants; a vectorized fluid simulator that checks them.

Submodules load on first use (PEP 562), as in numpy and scipy::

    import tcpmodels as tm
    tm.red.size(300, 0.02, 0.1)
"""

import importlib
import pkgutil

from ._checks import TCPModelsWarning

__version__ = "0.1.0"

#: Public submodules, reachable as attributes of the package and loaded when first touched
#: (found on disk, so a new module needs no entry here).
SUBMODULES = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")))

__all__ = ["TCPModelsWarning", "__version__", *SUBMODULES]


def __getattr__(name):
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(SUBMODULES))
