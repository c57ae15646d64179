import csv
import pathlib

import numpy as np
import pytest

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="session")
def reference_rows():
    """ns-3 RED reference rows with Floyd & Jacobson's drop spacing (wait=0), as float arrays."""
    with open(DATA / "ns3_red_10ms.csv") as fh:
        rows = [r for r in csv.DictReader(fh) if r["wait"] == "0"]
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0] if k != "sweep"}
