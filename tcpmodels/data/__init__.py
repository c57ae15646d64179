"""The data files shipped with tcpmodels: the packet-level references and the documents' tables.

Provenance (document, table or figure, set-up, units) is in ``README.md`` beside
these files.  Read them through this module, so notebooks and tests use the
installed copy.

Examples
--------
>>> from tcpmodels import data
>>> rows = data.table("ns3_red_10ms")
>>> int(rows["flows"][0]), str(rows["sweep"][0])
(10, 'red_flows')
>>> "ns3_more_10ms" in data.names()
True
"""

import csv
import importlib.resources

import numpy as np

__all__ = ["names", "path", "table"]


def names():
    """The names of the shipped tables (file names without ``.csv``), sorted."""
    return sorted(f.name[:-4] for f in importlib.resources.files(__name__).iterdir() if f.name.endswith(".csv"))


def path(name):
    """The file of a shipped table, as a path-like object (``importlib.resources``).

    Parameters
    ----------
    name : str
        The table, with or without ``.csv``: ``"ns3_red_10ms"`` or ``"ns3_red_10ms.csv"``.

    Raises
    ------
    ValueError
        If no such table ships with the package.
    """
    stem = str(name).removesuffix(".csv")
    if stem not in names():
        raise ValueError(f"name must be one of {', '.join(names())}, got {name!r}")
    return importlib.resources.files(__name__) / f"{stem}.csv"


def table(name):
    """A shipped table as a dict of columns: numbers as float arrays, anything else as str arrays.

    Parameters
    ----------
    name : str
        The table, as for :func:`path`.

    Returns
    -------
    dict of str to ndarray
        One array per column, in the file's order.  An empty cell in a numeric
        column reads as NaN (e.g. ``max_th`` of a drop-tail row).
    """
    with path(name).open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return {key: _column([r[key] for r in rows]) for key in rows[0]}


def _column(cells):
    try:
        return np.array([float(c) if c != "" else np.nan for c in cells])
    except ValueError:
        return np.array(cells)
