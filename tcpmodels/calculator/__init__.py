"""The sizing calculator: a link, an RTT and a flow count in; queue settings and predictions out.

This package joins the models (:mod:`tcpmodels.red`, :mod:`tcpmodels.droptail`,
:mod:`tcpmodels.fpq`, :mod:`tcpmodels.tcp`) into the answers a router operator
asks for.  It holds no model of its own.  One job per module:

========================  =====================================================================
``link``                  the link in the models' units (:func:`link`)
``predictions``           prediction tables: RED across flow counts with a status per row
                          (:func:`predict`), HighSpeed TCP's laws (:func:`hstcp_table`)
``sizing``                RED, FPQ and drop-tail settings and the worked example
                          (:func:`red_setting`, :func:`fpq_setting`, :func:`droptail_sizing`,
                          :func:`example`)
``tc``                    the Linux ``tc ... red`` line and what tc derives from it
``kernel``                ports of iproute2's and Linux's checks every printed line passes
``ns3``                   ns-3 ``RedQueueDisc`` attributes
``stability``             will the printed setting hold its equilibrium: verdicts per flow count
                          and the nearest max_p / weight that meet a gain margin
``simulation``            the simulator's run beside the prediction (:func:`simulate`,
                          :func:`droptail_prediction`)
``output``                results as plain JSON-ready Python (:func:`jsonable`)
========================  =====================================================================

Scenario files (TOML) are read by :mod:`tcpmodels.scenario_file`.  Every
function returns a small frozen :class:`~tcpmodels._results.Result`
(``.to_dict()``, tuple unpacking).
"""

from ..scenario_file import load_scenario
from .link import DEFAULT_MIN_TH, DEFAULT_PACKET_SIZE, THESIS_PACKET_SIZE, Link, link
from .ns3 import Ns3Red, ns3_red
from .output import jsonable, to_csv
from .predictions import (
    DEFAULT_MODEL,
    DEFAULT_SENDER,
    MAX_DELAY,
    MAX_LOSS,
    MAX_POINTS,
    MAX_QUEUE_PER_FLOW,
    MODELS,
    SENDERS,
    SWEEP_FACTORS,
    HSTCPRow,
    HSTCPTable,
    Prediction,
    hstcp_table,
    predict,
)
from .simulation import (
    PEAK_WINDOW,
    Simulation,
    droptail_prediction,
    limits_words,
    no_prediction,
    population_words,
    red_scenario,
    simulate,
)
from .sizing import (
    BITS_PER_FLOW,
    T_CLEAR_MIN,
    BufferRule,
    DropTailSizing,
    Example,
    FPQRow,
    FPQSetting,
    REDSetting,
    droptail_sizing,
    example,
    fpq_setting,
    red_setting,
)
from .stability import DEFAULT_MARGIN, Remedy, Verdict
from .tc import LIMIT_FACTOR, TcRed, check_dev, max_threshold, tc_rate, tc_red

__all__ = [
    "DEFAULT_PACKET_SIZE", "DEFAULT_MIN_TH", "DEFAULT_MODEL", "MODELS", "DEFAULT_SENDER", "SENDERS",
    "SWEEP_FACTORS", "LIMIT_FACTOR", "MAX_LOSS", "MAX_QUEUE_PER_FLOW", "T_CLEAR_MIN", "BITS_PER_FLOW",
    "Link", "Prediction", "TcRed", "Ns3Red", "REDSetting", "FPQRow", "FPQSetting", "BufferRule",
    "DropTailSizing", "HSTCPRow", "HSTCPTable", "Simulation", "Example",
    "link", "predict", "tc_rate", "check_dev", "max_threshold", "tc_red", "ns3_red", "red_setting", "fpq_setting",
    "droptail_sizing", "hstcp_table", "load_scenario", "simulate", "red_scenario", "droptail_prediction", "example",
    "no_prediction", "limits_words", "population_words", "PEAK_WINDOW",
    "jsonable",
    "to_csv", "MAX_DELAY", "MAX_POINTS", "THESIS_PACKET_SIZE", "DEFAULT_MARGIN", "Remedy", "Verdict",
]
