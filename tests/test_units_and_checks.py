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
