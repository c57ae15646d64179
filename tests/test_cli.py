"""The ``tcpmodels`` command: driven through ``main(argv)``, and once as the installed program."""

import csv
import io
import json
import runpy
import shutil
import subprocess
import sys

import pytest

from tcpmodels import calculator, cli
from tcpmodels.cli import main

LINK = ["--bandwidth", "10mbit", "--rtt", "100ms"]
RED = ["red", *LINK, "--flows", "300", "--loss", "0.02"]
COMMANDS = {
    "example": ["example"],
    "red": RED,
    "fpq": ["fpq", *LINK, "--max-flows", "1400"],
    "droptail": ["droptail", *LINK, "--flows", "300", "--buffer", "500"],
    "hstcp": ["hstcp", "--window", "38:83000", "--points", "4"],
}
# simulate has its own tests below (it needs a scenario file).


def run(capsys, argv):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_no_arguments_is_the_worked_example(capsys):
    status, out, err = run(capsys, [])                  # the README's first command
    assert status == 0 and err == ""
    assert "10mbit" in out and "300" in out and "576-byte" in out
    assert "tc qdisc add dev DEV root red" in out
    for part in ("Drop-tail", "RED", "FPQ", "tcpmodels red"):
        assert part in out
    assert run(capsys, ["example"])[1] == out
    status, out, err = run(capsys, ["--json", "--flows", "1000"])   # options alone: the example's
    assert status == 0 and json.loads(out)["red"]["n_flows"] == 1000


def test_red_prints_what_an_operator_needs(capsys):
    status, out, err = run(capsys, RED)
    assert status == 0
    for text in ("min_th", "max_th", "max_p", "loss rate", "queueing delay", "time-outs per packet",
                 "time in time-out", "buffer per flow", "model P3", "newreno", "gentle", "flow count",
                 "ns3::RedQueueDisc::LInterm", "tc qdisc add dev DEV root red limit"):
        assert text in out, text
    expected = calculator.red_setting(10e6, 0.1, 300, loss_rate=0.02)
    assert expected.tc.command in out
    for row in expected.sweep:                           # the N/4 ... 4N table
        assert f"\n  {row.n_flows:>5}  " in out
    assert "forced drops" in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_json_on_every_command(capsys, name):
    status, out, err = run(capsys, COMMANDS[name] + ["--json"])
    assert status == 0
    data = json.loads(out)
    assert isinstance(data, dict) and data


def test_red_json_is_the_calculator_result(capsys):
    _, out, _ = run(capsys, RED + ["--json"])
    data = json.loads(out)
    expected = calculator.jsonable(calculator.red_setting(10e6, 0.1, 300, loss_rate=0.02))
    assert data == expected
    assert set(data["prediction"]) == {"n_flows", "loss_rate", "queue", "delay", "queue_per_flow",
                                       "timeouts_per_packet", "timeout_fraction", "window", "mark_rate",
                                       "stability", "gain_margin", "phase_margin", "period", "status"}


@pytest.mark.parametrize("option, tc_style, plain", [
    ("--bandwidth", "10mbit", "10000000"),
    ("--bandwidth", "10mbit", "1250kbps"),            # bps is BYTES per second, as in tc
    ("--rtt", "100ms", "0.1s"),
    ("--rtt", "100ms", "100000us"),
    ("--packet-size", "1500b", "1500"),
    ("--packet-size", "576b", "576"),
    ("--loss", "0.02", "2%"),
])
def test_units_as_operators_type_them(capsys, option, tc_style, plain):
    def result(value):
        argv = list(RED) + ["--json"]
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
        assert main(argv) == 0
        return capsys.readouterr().out

    assert result(tc_style) == result(plain)


def test_buffer_in_packets_or_bytes(capsys):
    base = ["droptail", *LINK, "--flows", "20", "--json", "--buffer"]
    assert main(base + ["500"]) == 0
    packets = json.loads(capsys.readouterr().out)
    assert main(base + ["750000b"]) == 0             # 500 packets of 1500 bytes (the default size)
    assert json.loads(capsys.readouterr().out) == packets


BAD = [
    # (argv, what the one-line message must name)
    (["red", *LINK, "--flows", "300", "--loss", "5"], ["--loss", "0.05"]),
    (["red", "--bandwidth", "10", "mbit", "--rtt", "100ms", "--flows", "300", "--loss", "0.02"],
     ["--bandwidth", "10mbit"]),
    (["red", "--bandwidth", "10 mbit", "--rtt", "100ms", "--flows", "300", "--loss", "0.02"],
     ["--bandwidth", "one word"]),
    (["red", "--bandwidth", "10mbits", "--rtt", "100ms", "--flows", "300", "--loss", "0.02"],
     ["--bandwidth", "unknown unit"]),
    (["red", "--bandwidth", "10mbit", "--rtt", "-100ms", "--flows", "300", "--loss", "0.02"], ["--rtt"]),
    (["red", "--bandwidth", "10mbit", "--rtt", "100", "--flows", "300", "--loss", "0.02"],
     ["--rtt", "unit", "microseconds"]),                 # tc would read 100 us; 100 s was the old trap
    (["red", *LINK, "--flows", "0", "--loss", "0.02"], ["--flows"]),
    (["red", *LINK, "--flows", "2.5", "--loss", "0.02"], ["--flows"]),
    (["red", *LINK, "--flows", "-3", "--loss", "0.02"], ["--flows"]),
    (["red", "--bandwidth", "10mbit", "--flows", "300", "--loss", "0.02"], ["--rtt", "required"]),
    (["red", *LINK, "--flows", "300"], ["--loss", "--buffer"]),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--buffer", "500"], ["--buffer", "--loss"]),
    (["red", *LINK, "--flows", "300", "--buffer", "3"], ["--buffer", "--min-th"]),
    (["red", *LINK, "--flows", "300", "--buffer", "400", "--min-th", "500"], ["--buffer", "--min-th"]),
    (["red", *LINK, "--flows", "300", "--buffer", "100"], ["--buffer", "--flows"]),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--model", "P9"], ["--model"]),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--packet-size", "0"], ["--packet-size"]),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--limit", "1kb"], ["--limit"]),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "surplus"], ["surplus"]),
    (["fpq", *LINK, "--max-flows", "100", "--flows", "300"], ["--flows", "--max-flows"]),
    (["fpq", *LINK, "--max-flows", "1400", "--t-clear", "0"], ["--t-clear"]),
    (["droptail", *LINK, "--flows", "30", "--buffer", "64kg"], ["--buffer", "unknown unit"]),
    (["droptail", *LINK, "--flows", "30", "--loss", "0.02", "--policy", "fifo"], ["--policy"]),
    *((["droptail", *LINK, "--flows", "30", "--buffer", "500", option, value], [option])
      for option in ("--max-window", "--access-rate") for value in ("0", "-5", "inf", "1e400", "nan", "fast", "")),
    (["droptail", *LINK, "--flows", "30", "--buffer", "500", "--max-window", "10furlongs"], ["--max-window", "unit"]),
    (["droptail", *LINK, "--flows", "30", "--buffer", "500", "--max-window", "1000b"],   # under one 1500-byte packet
     ["--max-window", "at least one packet"]),
    (["droptail", *LINK, "--flows", "30", "--buffer", "500", "--access-rate", "5 mbit"], ["--access-rate", "one word"]),
    *((["droptail", *LINK, "--flows", "30", "--buffer", "500", *choice, option, value],
       ["--max-window and --access-rate apply to --model P3 with --policy droptail only", choice[1]])
      for choice in (["--model", "P1"], ["--model", "P2"], ["--policy", "random-drop"])
      for option, value in (("--max-window", "44p"), ("--access-rate", "5mbit"))),
    *((["example", option, value], [option])
      for option in ("--max-window", "--access-rate") for value in ("0", "-5", "inf", "1e400", "nan", "fast", "")),
    (["example", "--max-window", "500b"], ["--max-window", "at least one packet"]),   # under one 576-byte packet
    (["example", "--max-window", "10furlongs"], ["--max-window", "unit"]),
    (["example", "--access-rate", "5 mbit"], ["--access-rate", "one word"]),
    (["--access-rate", "5mbits"], ["--access-rate", "unknown unit"]),   # options alone: the example's
    (["hstcp", "--window", "100:38"], ["--window", "LOW <= HIGH"]),
    (["hstcp", "--window", "1:5"], ["--window"]),
    (["hstcp", "--loss", "2:3"], ["--loss"]),
    (["hstcp", "--points", "0"], ["--points"]),
    (["bogus"], ["bogus"]),
]


SCENARIO = """n_flows = 10
bandwidth = "10mbit"
rtt = "100ms"
duration = "20s"
warmup = "5s"
[queue]
type = "DropTail"
buffer = 100
"""


@pytest.fixture
def scenario(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    return path


def test_simulate_prints_summary_json_and_plot(capsys, scenario, tmp_path):
    png = tmp_path / "run.png"
    status, out, err = run(capsys, ["simulate", str(scenario), "--plot", str(png)])
    assert status == 0
    for text in ("Simulated 10", "DropTail", "loss rate", "P3 (droptail)", "utilization", "Jain index"):
        assert text in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    status, out, err = run(capsys, ["simulate", str(scenario), "--json"])
    data = json.loads(out)
    assert status == 0 and data["scenario"]["queue"] == {"type": "DropTail", "buffer": 100, "phase_effect": True}
    assert 0 <= data["result"]["loss_rate"] < 1 and len(data["result"]["goodput"]) == 10


@pytest.mark.parametrize("text, names", [
    ("n_flows = ", ["not valid TOML"]),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\nbuffer = 5", ["unknown field 'buffer'"]),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\n[queue]\ntype = 'DropTail'\nsize = 5", ["size"]),
    ("n_flows = 10\nbandwidth = '10 mbit'\nrtt = 0.1", ["bandwidth"]),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\nwarmup = 900", ["warmup"]),
    ("n_flows = 3\nbandwidth = 1e7\nrtt = [0.1, '120', 0.2]", ["rtt[1]", "unit"]),
    ("n_flows = 3\nbandwidth = 1e7\nrtt = [0.1, 1e400, 0.2]", ["rtt[1]", "finite"]),
    ("n_flows = 3\nbandwidth = 1e7\nrtt = [0.1, 0.2]", ["rtt", "one per flow (3)"]),
    ("n_flows = 2\nbandwidth = 1e7\nrtt = 0.1\nsenders = 'tahoe'", ["senders", "[count, sender] pairs"]),
    ("n_flows = 2\nbandwidth = 1e7\nrtt = 0.1\nsenders = [[1, 'tahoe'], [1, {type = 'RED'}]]",
     ["senders[1] sender.type", "unknown 'RED'"]),
    ("n_flows = 2\nbandwidth = 1e7\nrtt = 0.1\nsenders = [[1, 'tahoe'], [1, {type = 'NewReno', sack = 'yes'}]]",
     ["senders[1] sender", "sack"]),
    ("n_flows = 2\nbandwidth = 1e7\nrtt = 0.1\nsenders = [[1.5, 'tahoe'], [1, 'reno']]", ["senders", "count"]),
])
def test_bad_scenario_file_is_one_line(capsys, tmp_path, text, names):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    status, out, err = run(capsys, ["simulate", str(path)])
    assert status == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"tcpmodels simulate: {path}: ")
    for name in names:
        assert name in err


def test_simulate_missing_file_and_argument(capsys, tmp_path):
    assert run(capsys, ["simulate", str(tmp_path / "none.toml")])[0] == 2
    status, out, err = run(capsys, ["simulate"])
    assert status == 2 and "SCENARIO.toml" in err


@pytest.mark.parametrize("argv, names", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_every_mistake_is_one_line_naming_the_option(capsys, argv, names):
    status, out, err = run(capsys, argv)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    for name in names:
        assert name in err, err


@pytest.mark.parametrize("name", [None, *sorted(COMMANDS), "simulate"])
def test_help_names_units(capsys, name):
    status, out, err = run(capsys, ([name] if name else []) + ["--help"])
    assert status == 0 and "usage: tcpmodels" in out
    if name in ("red", "fpq", "droptail"):
        for text in ("--bandwidth", "bit/s", "--rtt", "seconds", "--packet-size", "bytes", "--json"):
            assert text in out


def test_model_warnings_reach_stderr_as_one_line_each(capsys):
    status, out, err = run(capsys, ["red", *LINK, "--flows", "1", "--loss", "0.02"])
    lines = err.splitlines()
    assert status == 0 and lines and all(line.startswith("tcpmodels red: warning: ") for line in lines)
    assert len(lines) == len(set(lines))


def test_droptail_model_warnings_go_to_the_status_column(capsys):
    # Eq. 5.6 (P1) warns below 4 packets of storage per flow: the row says so, stderr stays quiet.
    status, out, err = run(capsys, ["droptail", *LINK, "--flows", "300", "--buffer", "217", "--model", "P1"])
    assert status == 0 and err == "" and "note: given: fewer than 4 packets" in out
    assert out.split("given buffer", 1)[1].splitlines()[0].rstrip().endswith("time-outs")


def test_python_dash_m(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["tcpmodels", "hstcp", "--points", "2"])
    with pytest.raises(SystemExit) as stop:
        runpy.run_module("tcpmodels", run_name="__main__")
    assert stop.value.code == 0 and "HighSpeed TCP" in capsys.readouterr().out


def test_installed_command():
    exe = shutil.which("tcpmodels")
    command = [exe] if exe else [sys.executable, "-m", "tcpmodels"]
    good = subprocess.run(command + RED[:1] + LINK + ["--flows", "300", "--loss", "0.02"],
                          capture_output=True, text=True, timeout=60)
    assert good.returncode == 0 and "tc qdisc add dev DEV root red" in good.stdout
    bad = subprocess.run(command + ["red", "--bandwidth", "10", "mbit"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "--bandwidth" in bad.stderr


@pytest.mark.parametrize("name", ["red", "fpq", "droptail", "hstcp"])
def test_csv_on_every_table(capsys, name):
    status, out, err = run(capsys, COMMANDS[name] + ["--csv"])
    assert status == 0 and "Traceback" not in err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) >= 2 and all(rows[0].keys() == r.keys() for r in rows)
    _, data, _ = run(capsys, COMMANDS[name] + ["--json"])
    table = json.loads(data)[{"red": "sweep", "fpq": "rows", "droptail": "rules", "hstcp": "rows"}[name]]
    # null in JSON (NaN, inf: no stability verdict, no gain crossover) is an empty CSV field.
    assert all(r[k] == "" for r, t in zip(rows, table, strict=True) for k in r if t[k] is None)
    assert [float(r[k]) for r, t in zip(rows, table, strict=True) for k in r if isinstance(t[k], float)] == \
        pytest.approx([t[k] for t in table for k in t if isinstance(t[k], float)], rel=1e-12)


def test_example_list_and_simulate_example(capsys):
    status, out, err = run(capsys, ["example", "--list"])
    assert status == 0 and "example:standard_red" in out and "example:quick_red" in out
    status, out, err = run(capsys, ["simulate", "example:quick_red", "--json"])
    assert status == 0 and json.loads(out)["scenario"]["n_flows"] == 20
    status, out, err = run(capsys, ["simulate", "example:nope"])
    assert status == 2 and "example:nope" in err and "standard_red" in err and err.count("\n") == 1


def test_help_points_only_to_what_the_wheel_carries(capsys):
    for argv in (["--help"], ["simulate", "--help"], ["example", "--help"]):
        status, out, _ = run(capsys, argv)
        assert status == 0 and "docs/cli.md" not in out and "examples/" not in out


def test_dev_cannot_inject_a_shell_command(capsys):
    for dev in ("eth0; reboot", "eth0 && rm -rf /", "$(reboot)", "`id`", "", "a" * 16, "eth0|x"):
        status, out, err = run(capsys, RED + ["--dev", dev])
        assert status == 2 and out == "" and "--dev" in err and err.count("\n") == 1, dev
    status, out, _ = run(capsys, RED + ["--dev", "eth0.100"])
    assert status == 0 and "dev eth0.100 root red" in out


def test_droptail_by_target_delay_prints_pfifo_and_bfifo(capsys):
    status, out, err = run(capsys, ["droptail", *LINK, "--flows", "300", "--delay", "20ms"])
    assert status == 0
    # 20 ms at 10 Mbit/s of 1500-byte packets: 833.3 packets/s x 0.02 s = 16.7, rounded up to 17.
    assert "root pfifo limit 17" in out and "root bfifo limit 25500" in out


def test_ecn_and_adaptive_reach_the_lines_and_the_simulator(capsys):
    status, out, err = run(capsys, RED + ["--ecn", "--adaptive", "--json"])
    data = json.loads(out)
    assert status == 0 and data["tc"]["command"].endswith(" ecn harddrop adaptive")
    assert data["ns3"]["UseEcn"] is True and data["ns3"]["AdaptMaxP"] is True
    assert any("ecn" in note for note in data["notes"]) and any("adaptive" in note for note in data["notes"])
    setting = calculator.red_setting(10e6, 0.1, 300, loss_rate=0.02, ecn=True)
    scenario = calculator.red_scenario(setting)
    assert scenario.queue.ecn is True and scenario.sender.ecn is True


def test_unreachable_target_warns(capsys):
    status, out, err = run(capsys, ["red", *LINK, "--flows", "1", "--loss", "0.02"])
    assert status == 0 and "cannot reach 2 % loss with 1 flows" in err


def test_ctrl_c_is_one_line_and_130(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli._COMMANDS, "red", interrupted)
    status, out, err = run(capsys, RED)
    assert status == 130 and out == "" and err == "tcpmodels: interrupted\n"


def test_full_disk_is_one_line_and_nonzero():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "tcpmodels", "hstcp", "--points", "3000"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "cannot write the output" in done.stderr


def test_red_says_whether_the_setting_is_stable_and_how_to_fix_it(capsys):
    status, out, err = run(capsys, RED)
    assert status == 0 and "  stable                yes (gain margin " in out and "required gain margin 1.2" in out
    assert "stability" in out and "GM" in out        # the table's columns
    # Unstable at its design point: the nearest max_p meeting the margin, its cost and its tc line.
    argv = ["red", "--bandwidth", "100mbit", "--rtt", "200ms", "--flows", "100", "--loss", "0.01",
            "--packet-size", "576b", "--json"]
    status, out, err = run(capsys, argv)
    data = json.loads(out)
    assert status == 0 and data["prediction"]["stability"] == "unstable" and data["stability_margin"] == 1.2
    (fix,) = data["remedies"]
    assert fix["change"] == "max_p" and fix["gain_margin"] >= 1.2 and fix["command"].startswith("tc qdisc add")
    status, out, err = run(capsys, argv[:-1])
    assert "  stable                no (gain margin 0." in out and "To meet gain margin 1.2 at 100 flows" in out
    assert f"max_p {fix['max_p']:.4g}: gain margin" in out and fix["command"] in out
    status, out, err = run(capsys, argv[:-1] + ["--stability-margin", "2"])
    assert "To meet gain margin 2 at 100 flows" in out


def test_gentle_and_ecn_on_the_command_line(capsys):
    status, out, err = run(capsys, RED + ["--ecn"])
    assert status == 0 and "  drops                 0 % (forced, above max)" in out
    assert "  ECN marks             " in out and "marks %" in out
    status, out, err = run(capsys, RED + ["--gentle", "--json"])
    data = json.loads(out)
    assert status == 0 and data["gentle"] is True and data["ns3"]["Gentle"] is True
    assert "Gentle on" in run(capsys, RED + ["--gentle"])[1]


def test_fpq_and_droptail_print_the_new_columns(capsys):
    status, out, err = run(capsys, COMMANDS["fpq"])
    assert status == 0 and "Stable at 1400 flows (the tc line's setting):" in out and "stability" in out
    status, out, err = run(capsys, COMMANDS["droptail"])
    assert status == 0 and "tcpmodels.droptail.equilibrium, model P3" in out and "status" in out
    data = json.loads(run(capsys, COMMANDS["droptail"] + ["--json", "--model", "P1"])[1])
    assert data["model"] == "P1" and {"queue", "delay", "status", "timeouts_per_packet"} <= set(data["rules"][0])


# The drop-tail reference's 20-flow row (shared/reference/README.md): 10 Mbit/s, ~10 ms, 576-byte packets, a
# 500-packet FIFO; senders capped at 64 KB = 122 segments of 536 bytes, access links at 10 x 10 Mbit/s / 20.
REFERENCE_20 = ["droptail", "--bandwidth", "10mbit", "--rtt", "10ms", "--packet-size", "576b", "--flows", "20",
                "--buffer", "500"]
LIMITS_20 = ["--max-window", "122p", "--access-rate", "5mbit"]


def _limited_20():
    from tcpmodels import droptail, units
    return droptail.equilibrium(20, 500, rtt=0.01, capacity=units.capacity(10e6, 576), max_window=122,
                                access_rate=units.capacity(5e6, 576))


def test_droptail_senders_limits_are_p3s_step_5(capsys):
    e = _limited_20()
    status, out, err = run(capsys, REFERENCE_20 + LIMITS_20 + ["--json"])
    given = json.loads(out)["rules"][0]
    assert status == 0 and err == ""
    for field in ("loss_rate", "queue", "timeouts_per_packet", "escaping_window", "jain_index"):
        assert given[field] == pytest.approx(float(getattr(e, field)), rel=1e-12), field
    assert given["escaping_window"] == 122 and given["status"] == "long delay"
    # Ignoring the limits would print P3 without them: 7 % less loss on this row.
    plain = json.loads(run(capsys, REFERENCE_20 + ["--json"])[1])["rules"][0]
    assert plain["escaping_window"] == 0 and plain["jain_index"] == 1
    assert given["loss_rate"] > 1.05 * plain["loss_rate"]
    data = json.loads(out)
    assert data["max_window"] == 122 and data["access_rate"] == 5e6


def test_droptail_text_says_where_one_flow_escapes(capsys):
    e = _limited_20()
    status, out, err = run(capsys, REFERENCE_20 + LIMITS_20)
    assert status == 0 and "with the senders' limits (window 122 packets, access links 5mbit)" in out
    assert f"{100 * e.loss_rate:.3g}" in out.split("given buffer", 1)[1].splitlines()[0]
    assert (f"one flow escapes the overflows and holds 122 packets ({100 * 122 / (e.queue + 2170.138 * 0.01):.3g} %"
            in out) and f"Jain index {e.jain_index:.2f}" in out
    assert "escaper" in out.splitlines()[3] and "escaper" not in run(capsys, REFERENCE_20)[1]
    rows = list(csv.DictReader(io.StringIO(run(capsys, REFERENCE_20 + LIMITS_20 + ["--csv"])[1])))
    assert float(rows[0]["escaping_window"]) == 122 and float(rows[0]["jain_index"]) == pytest.approx(e.jain_index)


def test_droptail_max_window_in_bytes_is_whole_packets(capsys):
    # 65535 bytes of 576-byte packets hold 113 whole packets, as a scenario file reads a window in bytes.
    as_bytes = json.loads(run(capsys, REFERENCE_20 + ["--max-window", "65535b", "--json"])[1])
    assert as_bytes == json.loads(run(capsys, REFERENCE_20 + ["--max-window", "113", "--json"])[1])
    assert as_bytes["max_window"] == 113 and as_bytes["rules"][0]["escaping_window"] == 113


@pytest.mark.filterwarnings("ignore::tcpmodels.TCPModelsWarning")  # 1 % and 50 ms: the escaper holds half the storage
@pytest.mark.parametrize("target", [["--loss", "0.002"], ["--loss", "0.01"], ["--delay", "50ms"]])
def test_droptail_inverse_modes_use_the_limits(capsys, target):
    # The buffer printed for a target is the forward model's with the same limits: its prediction meets
    # the target loss and one packet less does not.
    from tcpmodels import droptail, units
    argv = REFERENCE_20[:-2] + target + LIMITS_20 + ["--json"]
    first = json.loads(run(capsys, argv)[1])["rules"][0]
    kw = dict(rtt=0.01, capacity=units.capacity(10e6, 576), max_window=122, access_rate=units.capacity(5e6, 576))
    assert first["loss_rate"] == pytest.approx(droptail.equilibrium(20, first["buffer"], **kw).loss_rate, rel=1e-12)
    if target[0] == "--loss":
        assert first["loss_rate"] <= float(target[1])
        assert droptail.equilibrium(20, first["buffer"] - 1, **kw).loss_rate > float(target[1])
        plain = json.loads(run(capsys, REFERENCE_20[:-2] + target + ["--json"])[1])["rules"][0]
        assert plain["buffer"] != first["buffer"]   # the limits move the answer


def test_simulate_drop_tail_says_where_one_flow_escapes(capsys, scenario):
    # The scenario's senders keep the simulator's defaults: Tahoe, 64 KB of 576-byte packets (113), access
    # links at 10 x 10 Mbit/s / 10 flows; P3 at those limits has one flow escape with its 113 packets.
    from tcpmodels import droptail, units
    e = droptail.equilibrium(10, 100, rtt=0.1, capacity=units.capacity(10e6, 576), sender="tahoe", max_window=113,
                             access_rate=units.capacity(10e6, 576))
    status, out, err = run(capsys, ["simulate", str(scenario)])
    assert status == 0 and e.escaping_window == 113
    assert f"{100 * e.loss_rate:.3g} %" in out.split("loss rate", 1)[1].splitlines()[0]
    assert f"{e.jain_index:.3f}" in out.split("Jain index", 1)[1].splitlines()[0]
    assert "lock-out: P3 predicts one flow escapes the overflows at the senders' limits (window 113 packets, " \
           "access links 10mbit) holding 113 packets" in out
    assert "the simulator's drop-tail can let one escape too" in out  # its phase effect, on by default
    scenario.write_text(SCENARIO + "phase_effect = false\n")
    status, out, err = run(capsys, ["simulate", str(scenario)])
    assert status == 0 and "the simulator has no such flow with phase_effect off" in out


def test_example_shows_the_senders_limits_beside_no_limits(capsys):
    # The standard link at 300 flows with 64 KB windows of 536-byte segments and 1 Mbit/s access links: the
    # drop-tail sizing is droptail's with the limits, shown beside the one without; RED's and FPQ's are unchanged.
    limits = ["--max-window", "122p", "--access-rate", "1mbit"]
    status, out, err = run(capsys, ["example", *limits])
    assert status == 0 and err == ""
    with_limits = calculator.droptail_sizing(10e6, 0.1, 300, loss_rate=0.02, packet_size=576, max_window=122,
                                             access_rate=1e6).rules[0]
    plain = calculator.droptail_sizing(10e6, 0.1, 300, loss_rate=0.02, packet_size=576).rules[0]
    assert with_limits.escaping_window == 122 and with_limits.buffer != plain.buffer
    assert (f"P3 with the senders' limits (window 122 packets, access links 1mbit)): holding loss at 2 % takes a "
            f"{with_limits.buffer:.0f}-packet buffer") in out
    assert (f"Lock-out: one flow escapes the overflows and holds 122 packets ({100 * with_limits.escaping_share:.3g} % "
            f"of the packets sent; Jain index {with_limits.jain_index:.2f}). Without the limits the same loss takes "
            f"{plain.buffer:.0f} packets") in out
    assert "its model has no senders' limits" in out and "--buffer 217 --max-window 122p --access-rate 1mbit" in out
    data = json.loads(run(capsys, ["example", *limits, "--json"])[1])
    assert data["droptail"]["max_window"] == 122 and data["droptail"]["rules"][0]["buffer"] == with_limits.buffer
    assert data["droptail_without_limits"]["rules"][0]["buffer"] == plain.buffer
    assert data["red"] == json.loads(run(capsys, ["example", "--json"])[1])["red"]
    # A limit above what any flow holds: no lock-out, said so; a window in bytes is whole packets (65535b: 113).
    status, out, err = run(capsys, ["--access-rate", "100mbit"])
    assert status == 0 and "Lock-out: none (no limit stops a flow below the storage)" in out
    assert json.loads(run(capsys, ["example", "--max-window", "65535b", "--json"])[1])["droptail"]["max_window"] == 113
    status, out, err = run(capsys, ["example"])
    assert "Lock-out" not in out and "senders' limits" not in out and "--max-window" not in out


def test_simulate_random_drop_and_mixed_groups(capsys, tmp_path):
    # A RandomDrop queue: random drop's P3 beside the run, saying why it leaves out the senders' limits.
    from tcpmodels import droptail, units
    path = tmp_path / "rd.toml"
    path.write_text(SCENARIO.replace("DropTail", "RandomDrop").replace("100ms", "10ms")
                    .replace("n_flows = 10", "n_flows = 40").replace('"20s"', '"3s"').replace('"5s"', '"1s"'))
    e = droptail.equilibrium(40, 100, rtt=0.01, capacity=units.capacity(10e6, 576), policy="random-drop",
                             sender="tahoe")
    status, out, err = run(capsys, ["simulate", str(path)])
    assert status == 0 and "simulated predicted P3 (random-drop)" in out
    assert f"{100 * e.loss_rate:.3g} %" in out.split("loss rate", 1)[1].splitlines()[0]
    assert "random drop: P3 with Eq. 5.7's 1.5 packets held and without the senders' limits (window 113 packets, " \
           "access links 2500kbit), which stay above the flows' peak window" in out and "no prediction" not in out
    # Mixed sender groups: no prediction, and a line naming the groups.
    path.write_text(SCENARIO.replace('"5s"', '"5s"\nsenders = [[5, "newreno"], [5, "tahoe"]]')
                    .replace('"20s"', '"2s"').replace('"5s"', '"1s"'))
    status, out, err = run(capsys, ["simulate", str(path)])
    assert status == 0 and "predicted" not in out and out.count("no prediction") == 1
    assert "  no prediction: the sender groups differ (5 NewReno, 5 Tahoe): the models take one sender" in out
    data = json.loads(run(capsys, ["simulate", str(path), "--json"])[1])
    assert data["prediction"] is None and data["model"] is None and "5 Tahoe" in data["no_prediction"]


def test_simulate_takes_round_trips_per_flow_and_sender_tables_per_group(capsys, tmp_path):
    # The Python contract's per-flow RTTs and mixed populations, from a file: times with or without their unit,
    # each group's sender a name or a table as [sender] takes; the summary names the groups and the RTTs' range.
    path = tmp_path / "mixed.toml"
    path.write_text('n_flows = 4\nbandwidth = "10mbit"\nrtt = [0.06, "120ms", 0.18, "240ms"]\nduration = "2s"\n'
                    'senders = [[2, {type = "NewReno", sack = true, min_rto = "200ms"}], [2, "tahoe"]]\n')
    status, out, err = run(capsys, ["simulate", str(path)])
    assert status == 0 and err == ""
    assert out.startswith("Simulated 4 flows (2 NewReno, 2 Tahoe) through RED")
    assert "150 ms round trip" in out and "(the mean of the round trips given, 60 ms to 240 ms)" in out
    data = json.loads(run(capsys, ["simulate", str(path), "--json"])[1])["scenario"]
    assert data["rtt"] == [0.06, 0.12, 0.18, 0.24]
    (first, spec), (second, tahoe) = data["senders"]
    assert (first, spec["type"], spec["sack"], spec["min_rto"]) == (2, "NewReno", True, 0.2)
    assert (second, tahoe["type"]) == (2, "Tahoe")


def test_simulate_warns_before_the_run(capsys, monkeypatch, tmp_path):
    # What the scenario warns when it is built (here: a step its buffer drains within) is printed as the run
    # starts, in the usual format, not held until it ends (a run the library calls slow printed nothing for
    # minutes); and only once, though the run builds the scenario again.
    path = tmp_path / "coarse.toml"
    path.write_text(SCENARIO.replace('warmup = "5s"', 'warmup = "5s"\ntime_step = "50ms"'))
    before = []
    simulate = calculator.simulate

    def run_after_looking(*args, **kw):
        before.append(capsys.readouterr().err)
        return simulate(*args, **kw)

    monkeypatch.setattr(calculator, "simulate", run_after_looking)
    status, out, err = run(capsys, ["simulate", str(path)])
    assert status == 0 and before[0].startswith("tcpmodels simulate: warning: time_step: 0.05 s serves")
    assert before[0].count("\n") == 1 and "warning" not in err


@pytest.mark.parametrize("name, message", [
    ("run.txt", "--plot: cannot write a .txt image"),        # matplotlib: "Format 'txt' is not supported"
    ("folder", "is a directory"),                           # wrote folder.png beside it
    ("none/run.png", "cannot write"),
])
def test_simulate_plot_names_that_cannot_take_the_figure_fail_before_the_run(capsys, monkeypatch, scenario,
                                                                             tmp_path, name, message):
    (tmp_path / "folder").mkdir()
    monkeypatch.setattr(calculator, "simulate", None)  # the run must not start
    status, out, err = run(capsys, ["simulate", str(scenario), "--plot", str(tmp_path / name)])
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err


def test_simulate_plot_to_a_full_disk_is_an_error(capsys, scenario):
    # savefig said nothing when its bytes did not reach the disk: exit status 0.
    status, out, err = run(capsys, ["simulate", str(scenario), "--plot", "/dev/full"])
    assert status == 2 and out == "" and "--plot: cannot write /dev/full" in err


@pytest.mark.parametrize("argv, wrong", [
    (["red", "--bandwidth", "10mbit", "--rtt", "1us", "--flows", "2", "--loss", "0.02"], "below the --buffer"),
    (["example", "--flows", "1e9"], "--buffer"),                 # example has no --buffer
    (["red", *LINK, "--flows", "300", "--buffer", "1"], "(--buffer,"),
])
def test_messages_name_only_options_the_command_has(capsys, argv, wrong):
    status, out, err = run(capsys, argv)
    assert status == 2 and err.count("\n") == 1 and wrong not in err, err
