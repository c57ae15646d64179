"""The documents' own tables in tcpmodels/data: loaded through ``tcpmodels.data`` and cross-checked.

Each check ties a transcribed number to something independent of the transcription (another printed number,
the document's own prose, or a law of the package), so a typo in a CSV fails here.
"""

import numpy as np
import pytest

from tcpmodels import data, hstcp, units

DOCUMENT_TABLES = {
    # name: (rows, columns) as printed in the document
    "morris_fig3_2_parameters": (14, ["parameter", "value", "value_max", "unit", "as_printed"]),
    "morris_fig4_1_flow_counts": (7, ["source", "year", "n_flows", "count_kind", "notes"]),
    "morris_fig7_2_ppf": (4, ["ppf", "loss_rate", "queue", "median_delay", "avg_delay", "std_delay"]),
    "su2006_table1_hstcp": (4, ["flow", "rtt", "utilization", "congestion_events", "drops_per_event",
                                "window_min", "window_max", "a_min", "a_max"]),
    "su2006_table2_acwap": (3, ["flow", "rtt", "utilization", "congestion_events", "drops_per_event"]),
    "hsiao_table1_parameters": (13, ["parameter", "value", "unit", "as_printed"]),
    "rfc3649_appendix_b": (73, ["window", "a", "b"]),
}


def _by_parameter(name):
    t = data.table(name)
    return dict(zip(t["parameter"], t["value"], strict=True))


@pytest.mark.parametrize("name", DOCUMENT_TABLES)
def test_each_document_table_loads_with_its_printed_shape(name):
    rows, columns = DOCUMENT_TABLES[name]
    t = data.table(name)
    assert list(t) == columns
    assert all(len(col) == rows for col in t.values())


def test_every_shipped_table_has_a_provenance_row_in_the_readme():
    readme = (data.path("ns3_red_10ms").parent / "README.md").read_text()
    assert all(f"`{name}.csv`" in readme for name in data.names())


def test_morris_fig3_2_gives_the_thesis_standard_link():
    p = _by_parameter("morris_fig3_2_parameters")
    # Section 3.2's prose: "a 10 megabit link can send 2170 packets per second", "the average round-trip
    # propagation delay is 100 milliseconds", "the delay-bandwidth product is 217 packets".
    capacity = units.capacity(p["bandwidth"], p["packet_size"])
    assert round(capacity) == 2170
    access = data.table("morris_fig3_2_parameters")
    mean_access = np.nanmean(access["value_max"]) / 2  # uniform on [0, 10 ms]
    rtt = 2 * (p["bottleneck_delay"] + mean_access)
    assert rtt == pytest.approx(0.1)
    assert round(capacity * rtt) == p["droptail_buffer"] == p["max_th"] == 217
    assert np.isnan(p["red_limit"])  # "no hard limit"
    # "a single TCP with a 64 kilobyte window can only use about half the link capacity"
    assert p["max_window"] / p["packet_size"] / (capacity * rtt) == pytest.approx(0.5, abs=0.03)


def test_morris_fig4_1_counts_match_the_prose_of_section_4_3():
    t = data.table("morris_fig4_1_flow_counts")
    counts = dict(zip(zip(t["source"], t["year"].astype(int), strict=True), t["n_flows"], strict=True))
    # 1000 new flows per hour lasting 20 s (section 4.3.1) -> "about 5 known flows"; 140 new flows per second
    # lasting 50 s -> "about 7000" (Little's law; the thesis rounds 5.6 down to "about 5")
    assert counts[("Caceres &c", 1989)] == pytest.approx(1000 / 3600 * 20, abs=1)
    assert counts[("Newman &c", 1995)] == 140 * 50
    assert list(t["year"]) == sorted(t["year"])


def test_morris_fig7_2_average_delay_is_the_fair_share_transfer_time():
    t = data.table("morris_fig7_2_ppf")
    # Section 7.1: 20 packets at 1/500 of 2170 packets/s take 4.6 s, whatever the PPF.
    fair = 20 / (units.capacity(10e6, 576) / 500)
    np.testing.assert_allclose(t["avg_delay"], fair, atol=0.05)  # printed to 0.1 s
    # More packets per flow: less loss, a longer queue, a steadier delay (the figure's point).
    assert (np.diff(t["loss_rate"]) < 0).all() and (np.diff(t["queue"]) > 0).all()
    assert (np.diff(t["std_delay"]) < 0).all() and (np.diff(t["median_delay"]) > 0).all()


def test_su_table1_a_ranges_follow_rfc3649_at_the_printed_windows():
    t = data.table("su2006_table1_hstcp")
    hs = t["flow"] != "R1"  # R1 is standard TCP: a = 1
    # ns-2's HSTCP increments by the formula's a(w); the paper prints integer ranges, so one packet per RTT.
    for window, printed in ((t["window_min"], t["a_min"]), (t["window_max"], t["a_max"])):
        np.testing.assert_allclose(hstcp.a(window[hs]), printed[hs], atol=1.0)
    assert (t["a_min"][~hs] == 1).all() and (t["a_max"][~hs] == 1).all()
    assert t["utilization"].sum() < 1


def test_su_table2_acwap_drops_fewer_packets_per_event_than_table1():
    one, two = data.table("su2006_table1_hstcp"), data.table("su2006_table2_acwap")
    np.testing.assert_array_equal(one["rtt"][:3], two["rtt"])
    # Section 4.3: "the number of dropped packets and congestion events both decrease greatly"
    assert (two["drops_per_event"] < one["drops_per_event"][:3]).all()
    assert (two["congestion_events"] < one["congestion_events"][:3]).all()


def test_hsiao_table1_gives_the_in_flight_capacity_of_its_examples():
    p = _by_parameter("hsiao_table1_parameters")
    # 1.5 Mbit/s of 1000-byte packets is 187.5 packets/s; the RTT is twice 40 + 5 + 5 ms (the README's example).
    assert units.capacity(p["bandwidth"], p["packet_size"]) == 187.5
    assert 2 * (p["bottleneck_delay"] + p["access_delay"] + p["receiver_delay"]) == pytest.approx(0.1)
    assert np.isnan(p["buffer"]) and p["min_th_per_buffer"] == pytest.approx(1 / 6)


def test_rfc3649_printed_table_is_what_hstcp_table_regenerates():
    printed = data.table("rfc3649_appendix_b")
    generated = hstcp.table()
    # The README documents that table() reproduces every printed row exactly (windows and a are integers,
    # b is printed to 0.01 and generated rounded to 0.01).
    np.testing.assert_array_equal(printed["window"], generated.window)
    np.testing.assert_array_equal(printed["a"], generated.a)
    np.testing.assert_allclose(printed["b"], generated.b, atol=1e-12)
    # Linux's table is the printed one less its last row, with b stored as floor(256 b).
    linux = hstcp.table("linux")
    np.testing.assert_array_equal(printed["window"][:-1], linux.window)
