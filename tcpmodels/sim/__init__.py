"""The vectorized fluid simulator: many TCP flows through one bottleneck.

Build a :class:`Scenario` (bottleneck, queue discipline, TCP sender,
workload), run it with :func:`simulate` and read the :class:`SimResult`.
Defaults follow Morris (1999), Fig. 3.2.

Examples
--------
>>> from tcpmodels import sim
>>> s = sim.Scenario(n_flows=20, bandwidth=10e6, rtt=0.1, queue=sim.RED(max_th=217),
...                  sender=sim.Tahoe(), duration=30.0, warmup=10.0)
>>> r = sim.simulate(s)
>>> 0.0 < r.loss_rate < 0.05 and r.utilization > 0.8
True
"""

from . import codel as _codel  # noqa: F401  (registers the engine of CoDel)
from . import delaycontrol as _delaycontrol  # noqa: F401  (registers the engines of SDC and RDC)
from . import tcpe as _tcpe  # noqa: F401  (registers the engine of TCPE)
from .engine import simulate
from .result import CongestionEvents, GroupResult, SimResult, Transfers
from .scenario import (
    FPQ,
    RDC,
    RED,
    REDI,
    SDC,
    TCPE,
    CHOKe,
    CHOKeI,
    CoDel,
    DropTail,
    FiniteTransfers,
    LongLived,
    NewReno,
    RandomDrop,
    Reno,
    Scenario,
    Tahoe,
)
from .sweep import SweepTable, sweep

# The high-speed senders (issue 13): their engines register themselves.
from . import acwap, highspeed, ndca  # noqa: E402, F401  isort: skip
from .scenario import ACWAP, NDCA, HighSpeed, Scalable  # noqa: E402  isort: skip

__all__ = ["Scenario", "simulate", "SimResult", "GroupResult", "CongestionEvents",
           "DropTail", "RandomDrop", "RED", "REDI", "CHOKe", "FPQ",
           "Tahoe", "Reno", "NewReno"]
__all__ += ["sweep", "SweepTable"]
__all__ += ["HighSpeed", "Scalable", "ACWAP", "NDCA"]
# Workloads and the ECN and delay-control senders (issue 13).
__all__ += ["LongLived", "FiniteTransfers", "Transfers", "TCPE", "SDC", "RDC", "CHOKeI"]
__all__ += ["CoDel"]
