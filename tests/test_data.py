import numpy as np
import pytest

from tcpmodels import data


def test_every_reference_file_ships_with_its_columns():
    # The four packet-level reference files of shared/reference, read from the installed package.
    assert {"ns3_red_10ms", "ns3_more_10ms", "ns3_red_dynamics", "ns3_red_dynamics_queue"} <= set(data.names())
    more = data.table("ns3_more_10ms")
    assert set(more["queue"]) == {"droptail", "red"}
    assert np.isnan(more["max_th"][more["queue"] == "droptail"]).all()  # empty cells read as NaN
    queue = data.table("ns3_red_dynamics_queue")
    assert queue["queue_pkts"].dtype == float and set(queue["run"]) == {"V1", "V2", "V3", "V4"}


def test_path_accepts_the_file_name_too():
    assert data.path("ns3_red_10ms.csv") == data.path("ns3_red_10ms")


def test_unknown_table_names_the_argument():
    with pytest.raises(ValueError, match="name must be one of"):
        data.table("ns3_nothing")
