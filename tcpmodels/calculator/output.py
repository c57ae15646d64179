"""Turning calculator results into plain JSON-ready Python."""

import numpy as np

from .._results import Result
from ..scenario_file import sim_classes

__all__ = ["jsonable"]
def jsonable(value):
    """Turn a result (nested Results, tuples, numpy scalars and arrays) into plain JSON types.

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
    >>> import numpy as np
    >>> jsonable((np.float64(0.5), np.arange(2)))
    [0.5, [0, 1]]
    """
    if isinstance(value, Result):
        out = {key: jsonable(item) for key, item in value.to_dict().items()}
        if type(value) in sim_classes().values():  # a queue or sender: name it as scenario files do
            out = {"type": type(value).__name__, **out}
        return out
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
