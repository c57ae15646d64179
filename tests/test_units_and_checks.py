"""Unit conversions and the argument checks every model uses."""

import math

import numpy as np
import pytest

from tcpmodels import _checks, units


def test_thesis_link():
    # Morris (1999) ch. 3: 10 Mbit/s of 576-byte packets is 2170 packets/s; 100 ms makes 217.
    assert units.capacity(10e6, 576) == pytest.approx(2170.139, rel=1e-6)
    assert units.bdp(10e6, 0.1, 576) == pytest.approx(217.0139, rel=1e-6)
    assert units.bandwidth(units.capacity(10e6, 576), 576) == pytest.approx(10e6)
    assert units.bytes_to_packets(units.packets_to_bytes(500, 576), 576) == pytest.approx(500)


def test_units_broadcast_and_reject():
    assert units.capacity([10e6, 1e9], 1500).shape == (2,)
    with pytest.raises(ValueError, match="bandwidth"):
        units.capacity(-1, 576)
    with pytest.raises(ValueError, match="packet_size"):
        units.bdp(10e6, 0.1, 0)


def test_check_messages_name_argument_and_value():
    with pytest.raises(ValueError, match=r"^rtt must be > 0, got -0.1$"):
        _checks.positive("rtt", [0.1, -0.1])
    with pytest.raises(ValueError, match="must be > 0, got nan"):
        _checks.positive("rtt", math.nan)
    with pytest.raises(ValueError, match=r"max_p must be in \(0, 1\]"):
        _checks.in_range("max_p", 0, 0, 1, low_open=True)
    with pytest.raises(ValueError, match="bits must be a whole number >= 2"):
        _checks.whole("bits", 2.5, minimum=2)
    with pytest.raises(ValueError, match="n must be a number"):
        _checks.array("n", "ten")
    with pytest.raises(ValueError, match="model must be one of"):
        _checks.choice("model", "P4", ("P1", "P2"))
    assert _checks.choice("model", "p2", ("P1", "P2")) == "P2"
    with pytest.raises(ValueError, match="model must be one of"):   # numpy: "truth value ... is ambiguous"
        _checks.choice("model", np.array([1, 2]), ("P1", "P2"))


def test_flags_and_seeds():
    assert _checks.flag("ecn", np.True_) is True and _checks.flag("ecn", 0) is False
    for bad in ("false", 2, None, 1.0):
        with pytest.raises(ValueError, match="ecn must be True or False"):
            _checks.flag("ecn", bad)
    # A seed stays exact: read through a float, 2**53 + 1 became 2**53.
    assert _checks.seed("seed", 2**53 + 1) == 2**53 + 1 and _checks.seed("seed", np.uint64(2**64 - 1)) == 2**64 - 1
    assert type(_checks.seed("seed", 7.0)) is int
    for bad in (7.5, -1, True, "7", math.inf, None):
        with pytest.raises(ValueError, match="seed must be"):
            _checks.seed("seed", bad)


def test_parse_packets_takes_whole_packets():
    assert units.parse_packets("500p", 576) == 500 and units.parse_packets("64kb", 576) == 113
    for bad in ("2.5p", "0.5", "1b", "1e-300b"):  # each became a packet count by rounding: 2, 1, 1, 1
        with pytest.raises(ValueError, match="--buffer: expected"):
            units.parse_packets(bad, 576)


def test_scalar_or_array():
    assert type(_checks.scalar_or_array(np.float64(1.0), 1.0)) is float
    assert isinstance(_checks.scalar_or_array(np.array([1.0]), [1.0]), np.ndarray)
    assert isinstance(_checks.scalar_or_array(np.float64(1.0), np.array(1.0), [2.0]), np.ndarray)


def test_huge_integers_and_infinities_are_value_errors():
    # 10**400 does not fit a float: a ValueError naming the argument, not an OverflowError.
    with pytest.raises(ValueError, match="n_flows must be a finite number"):
        _checks.whole("n_flows", 10**400)
    with pytest.raises(ValueError, match="n_flows must be a whole number"):
        _checks.whole("n_flows", math.inf)
    with pytest.raises(ValueError, match="loss_rate must be finite"):
        _checks.in_range("loss_rate", math.inf, 0, math.inf)
    assert _checks.in_range("alpha", math.inf, 1, math.inf, finite=False) == math.inf
    with pytest.raises(ValueError, match="rtt must be finite, got inf"):
        _checks.positive("rtt", [0.1, math.inf], finite=True)
    assert _checks.positive("access_rate", math.inf) == math.inf   # "none", as the simulator uses it
    with pytest.raises(ValueError, match="rtt must be a number"):
        _checks.positive("rtt", "0.1")                              # numpy would read the string
    with pytest.raises(ValueError, match="n_flows must be a number or an array of numbers, got True"):
        _checks.whole("n_flows", True)                              # numpy would read it as 1
    with pytest.raises(ValueError, match="p must be a number"):
        _checks.in_range("p", np.array([True, False]), 0, 1)
    # numpy reads strings in a list as numbers, and None as NaN ("got nan").
    for bad in (["0.05"], np.array(["1"]), np.array([1, "x"], dtype=object), [1j], None):
        with pytest.raises(ValueError, match="rtt must be a number or an array of numbers, got"):
            _checks.positive("rtt", bad)
    with pytest.raises(ValueError, match="got None"):
        _checks.whole("n_flows", None)
    assert _checks.positive("n", [2**70, 1.5]).tolist() == [2.0**70, 1.5]   # Python ints beyond int64 are numbers
    for call in (lambda: units.capacity(math.inf, 1500), lambda: units.bdp(10e6, math.inf, 1500),
                 lambda: units.capacity(10e6, 10**400)):
        with pytest.raises(ValueError):
            call()


def test_parsers_refuse_what_would_overflow_or_mislead():
    with pytest.raises(ValueError, match="--flows"):
        units.parse_count("1e400")
    with pytest.raises(ValueError, match="--flows"):
        units.parse_count(10**400)
    with pytest.raises(ValueError, match="--rtt: write the time with its unit"):
        units.parse_time("100", unit_required=True)
    assert units.parse_time("100", unit_required=False) == 100.0     # the library's own convention: seconds
    assert units.parse_time(0.1, unit_required=True) == 0.1          # a number is typed, not a string
