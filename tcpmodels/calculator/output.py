"""Turning calculator results into plain JSON-ready Python and CSV tables."""

import csv
import io
import math

import numpy as np

from .._results import Result
from ..scenario_file import sim_classes

__all__ = ["jsonable", "TABLES", "table_rows", "to_csv"]

#: For each result type with a table, the field that holds its rows.
TABLES = {"REDSetting": "sweep", "FPQSetting": "rows", "DropTailSizing": "rules", "HSTCPTable": "rows"}


def jsonable(value):
    """Turn a result (nested Results, tuples, numpy scalars and arrays) into plain JSON types.

    Non-finite floats (NaN, inf) become None, so the output is valid JSON.

    Parameters
    ----------
    value : Result, dict, tuple, list, ndarray or scalar
        What to convert; Results become dicts keyed by field name.

    Returns
    -------
    dict, list, float, int, str, bool or None

    Examples
    --------
    >>> from tcpmodels.calculator import link
    >>> jsonable(link(10e6, 0.1, 576))["bdp"]
    217.01388888888889
    >>> jsonable((np.float64(0.5), np.arange(2), float("nan")))
    [0.5, [0, 1], None]
    """
    if isinstance(value, Result):
        out = {key: jsonable(item) for key, item in value.to_dict().items()}
        if type(value) in sim_classes().values():  # a queue or sender: name it as scenario files do
            out = {"type": type(value).__name__, **out}
        return out
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (tuple, list, np.ndarray)):
        return [jsonable(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def table_rows(result):
    """The rows of a result's table (the RED sweep, FPQ rows, drop-tail rules, HSTCP rows).

    Parameters
    ----------
    result : REDSetting, FPQSetting, DropTailSizing or HSTCPTable
        A calculator result with a table (:data:`TABLES`).

    Returns
    -------
    tuple of Result
    """
    name = type(result).__name__
    if name not in TABLES:
        raise ValueError(f"a {name} has no table; tables: {', '.join(TABLES)}")
    return getattr(result, TABLES[name])


def to_csv(result):
    """A result's table as CSV text: a header of field names, then one line per row.

    Parameters
    ----------
    result : REDSetting, FPQSetting, DropTailSizing or HSTCPTable
        A calculator result with a table.

    Returns
    -------
    str

    Examples
    --------
    >>> from tcpmodels.calculator import hstcp_table
    >>> print(to_csv(hstcp_table(window=(38, 38))), end="")
    window,loss_rate,a,b
    38.0,0.000997229916897507,1.0,0.5
    """
    rows = [jsonable(row) for row in table_rows(result)]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
