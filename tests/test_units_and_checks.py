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
