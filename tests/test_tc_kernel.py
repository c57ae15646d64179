"""Every tc line the calculator prints passes the ports of iproute2's and Linux's RED checks.

tc cannot run here (no sch_red), so ``tcpmodels.calculator.kernel`` re-states
iproute2's tc_red_eval_ewma / tc_red_eval_P / tc_red_eval_idle_damping and the
kernel's red_check_params; these tests check the ports against values worked by
hand from the C source, then hold every printed line to them: the documented
examples and a property test over the links operators run.
"""

import json
import pathlib
import re
import shlex
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcpmodels import TCPModelsWarning, calculator
from tcpmodels.calculator import kernel
from tcpmodels.cli import main

ROOT = pathlib.Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- the ports, by hand

def test_eval_p_by_hand():
    # delta = 60000 bytes, prob/delta = 3.33e-7: 2^21 x that = 0.70 <= 1, 2^22 x that = 1.40 > 1 -> Plog 22.
    assert kernel.tc_red_eval_P(30000, 90000, 0.02) == 22
    assert kernel.tc_red_eval_P(5, 5, 0.02) == 0              # qmax == qmin: 0, as tc
    assert kernel.tc_red_eval_P(90000, 30000, 0.02) == -1     # negative difference
    assert kernel.tc_red_eval_P(0, 2**31, 0.5) == -1          # 2^31 read as a C int is negative
    # prob * 2^31 / delta must exceed 1: 0.015 * 2^31 = 32212254.7.
    assert kernel.tc_red_eval_P(0, 32212254, 0.015) == 31
    assert kernel.tc_red_eval_P(0, 32212255, 0.015) == -1


def test_xmittime_and_idle_damping_by_hand():
    # 1500 bytes at 1 Gbit/s (125e6 bytes/s) = 12 us = 187.5 ticks of 64 ns -> ceil 188.
    assert kernel.tc_calc_xmittime(125_000_000, 1500) == 188
    # Wlog 9: lW = -ln(1 - 2^-9) / 188 = 1.0399e-5 per tick; maxtime = 31 / lW = 2.981e6 ticks;
    # 2.981e6 / 2^12 = 727.8 >= 512, / 2^13 = 363.9 < 512 -> Scell_log 13.
    clog, stab = kernel.tc_red_eval_idle_damping(9, 1500, 125_000_000)
    assert clog == 13 and len(stab) == 256 and stab[0] == 0 and stab[255] == 31
    assert stab[100] == int(100 * 2**13 * -__import__("math").log(1 - 2**-9) / 188)   # = 8
    assert max(stab) <= 31


def test_red_check_params_boundaries():
    stab = [0] * 256
    assert kernel.fls(2**20) == 21 and kernel.fls(2**20 - 1) == 20
    assert kernel.red_check_params(1, 2**20 - 1, 11, 10, stab)      # fls 20 + 11 = 31 < 32
    assert not kernel.red_check_params(1, 2**20, 11, 10, stab)      # 21 + 11 = 32: refused since 2021
    assert not kernel.red_check_params(2**20, 2**20, 11, 10, stab)  # the check applies to min too
    assert not kernel.red_check_params(10, 5, 1, 10, stab)          # max < min
    assert not kernel.red_check_params(5, 10, 1, 32, stab)          # Scell_log >= 32
    assert not kernel.red_check_params(5, 10, 1, 10, [0] * 255 + [32])   # a stab entry >= 32


def test_get_rate_and_get_size_as_tc():
    assert kernel.get_rate("10mbit") == 1_250_000 and kernel.get_rate("1MBps") == 1_000_000
    assert kernel.get_rate("34359mbit") == 4_294_875_000      # just under 2^32 bytes/s
    assert kernel.get_rate("100gbit") is None                  # over 32 bits: tc says Illegal "bandwidth"
    assert kernel.get_rate("1234bit") is None                  # 154.25 bytes/s is not a whole number
    assert kernel.get_size("64kb") == 65536 and kernel.get_size("4gb") is None


def test_parse_applies_tcs_defaults():
    # tc-red(8): without min and max, max = limit / 4, min = max / 3, burst = (2 min + max) / (3 avpkt).
    opt = kernel.red_parse_opt("limit 400000 avpkt 1000".split())
    assert (opt.qth_max, opt.qth_min, opt.burst, opt.rate) == (100000, 33333, 55, 1_250_000)
    assert opt.warnings == ("RED: set bandwidth to 10Mbit",)
    with pytest.raises(ValueError, match="Required parameter"):
        kernel.red_parse_opt("min 3000 max 9000".split())
    with pytest.raises(ValueError, match='What is "gentle"'):
        kernel.red_parse_opt("limit 400000 avpkt 1000 gentle".split())


def test_the_old_readme_line_is_refused():
    # The line printed before the check was ported (issue 15): burst 722 gives Wlog 16; fls(1241856) = 21.
    old = ("tc qdisc add dev DEV root red limit 4967424 min 2880 max 1241856 avpkt 576 burst 722 "
           "probability 0.015 bandwidth 10mbit")
    with pytest.raises(ValueError, match=r"fls\(max 1241856\) \+ Wlog 16 = 37 >= 32"):
        kernel.kernel_accepts(old)


# ----------------------------------------------------------------------------- what is printed

def _printed_lines(setting):
    """The tc line of a RED or FPQ setting, parsed back as tc and the kernel would."""
    opt = kernel.kernel_accepts(setting.tc.command)
    # The line says what the setting says: thresholds, probability, weight, limit, bandwidth.
    tc = setting.tc
    assert (opt.qth_min, opt.qth_max, opt.limit, opt.avpkt, opt.burst) == (tc.min, tc.max, tc.limit, tc.avpkt,
                                                                         tc.burst)
    assert opt.Wlog == tc.ewma_log and 2.0**-opt.Wlog == tc.weight == setting.ns3.QW
    assert opt.probability == tc.probability and opt.rate * 8 == int(setting.ns3.LinkBandwidth[:-3])
    assert setting.ns3.MaxSize == f"{tc.limit // tc.avpkt}p"
    return opt


def _documented_tc_lines():
    lines = []
    for path in (ROOT / "README.md", ROOT / "docs" / "cli.md"):
        lines += re.findall(r"^\s*(tc qdisc add dev \S+ root red .*)$", path.read_text(), re.M)
    return lines


def _documented_commands():
    commands = []
    for path in (ROOT / "README.md", ROOT / "docs" / "cli.md"):
        for line in re.findall(r"^(tcpmodels (?:red|fpq|example)(?=\s)[^#\n]*)", path.read_text(), re.M):
            if "--list" not in line:
                commands.append(shlex.split(line)[1:])
    return commands


@pytest.mark.parametrize("line", _documented_tc_lines())
def test_every_documented_tc_line_is_accepted(line):
    kernel.kernel_accepts(line)


@pytest.mark.parametrize("argv", _documented_commands(), ids=" ".join)
def test_every_documented_command_prints_accepted_lines(argv, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        assert main([*argv, "--json"] if "--json" not in argv else argv) == 0
    out = capsys.readouterr().out
    lines = re.findall(r'"(tc qdisc add dev [^"]+ red [^"]+)"', out)
    assert lines
    for line in lines:
        kernel.kernel_accepts(line)


links = dict(bandwidth=st.floats(1e6, 1e11).map(lambda b: float(round(b))), rtt=st.floats(1e-3, 1.0),
             n_flows=st.integers(1, 100_000), packet_size=st.sampled_from([576, 1500, 9000]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**links, loss_rate=st.floats(0.001, 0.1))
def test_property_every_red_line_is_accepted(bandwidth, rtt, n_flows, packet_size, loss_rate):
    # 1 Mbit/s - 100 Gbit/s, 1 ms - 1 s, 1 - 100 000 flows (issue 15), targets 0.1-10 %.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        try:
            setting = calculator.red_setting(bandwidth, rtt, n_flows, loss_rate=loss_rate, packet_size=packet_size)
        except ValueError as error:  # a few flows at a high target: the rule's max_th is not above min_th
            assert "must be below the max_th the rule gives" in str(error)
            return
    _printed_lines(setting)
    # The predictions are for the printed thresholds and probability.
    assert setting.tc.max == round(setting.max_th * packet_size) and setting.tc.probability == setting.max_p


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**links, buffer_factor=st.floats(1.0, 50.0))
def test_property_every_fixed_buffer_line_is_accepted(bandwidth, rtt, n_flows, packet_size, buffer_factor):
    # The fixed-buffer rule needs max_p = 0.81 n^2 / buffer^2 < 1, i.e. a buffer above 0.9 n packets.
    buffer = max(6.0, round(buffer_factor * n_flows))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        setting = calculator.red_setting(bandwidth, rtt, n_flows, buffer=buffer, packet_size=packet_size)
    _printed_lines(setting)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**links)
def test_property_every_fpq_line_is_accepted(bandwidth, rtt, n_flows, packet_size):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TCPModelsWarning)
        setting = calculator.fpq_setting(bandwidth, rtt, n_flows, packet_size=packet_size)
    _printed_lines(setting)


def test_a_100_gbit_100_000_flow_link_gets_an_accepted_line(capsys):
    # It printed nothing before (issue 15).  tc holds at most 34.36 Gbit/s: the note says what that changes.
    status = main(["red", "--bandwidth", "100gbit", "--rtt", "50ms", "--flows", "100000", "--loss", "0.01",
                   "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    opt = kernel.kernel_accepts(data["tc"]["command"])
    assert data["tc"]["bandwidth"] == "34359mbit" and opt.rate == 4_294_875_000
    assert any("32-bit bytes/s" in note for note in data["tc"]["notes"])
