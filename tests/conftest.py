import pytest

from tcpmodels import data


@pytest.fixture(scope="session")
def reference_rows():
    """ns-3 RED reference rows with Floyd & Jacobson's drop spacing (wait=0), as float arrays."""
    rows = data.table("ns3_red_10ms")
    keep = rows["wait"] == 0
    return {k: v[keep] for k, v in rows.items() if k != "sweep"}
