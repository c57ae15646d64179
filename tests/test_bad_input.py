"""The bad-input corpus: every malformed command line and scenario file a new user might type.

Each case must exit with status 2 and print exactly one line on stderr that
names the option (or the file and the field), and nothing on stdout: no
traceback, no silently wrong answer.  The corpus is every option of every
command with an empty, zero, negative, NaN, infinite, 1e400, unknown-unit and
wrong-type value (where that value is wrong for the option), the cases issue 15
lists, and malformed scenario files.
"""

import pytest

from tcpmodels.cli import main

LINK = ["--bandwidth", "10mbit", "--rtt", "100ms"]
BASE = {
    "example": ["example"],
    "red": ["red", *LINK, "--flows", "300", "--loss", "0.02"],
    "red-buffer": ["red", *LINK, "--flows", "300", "--buffer", "2000"],
    "fpq": ["fpq", *LINK, "--max-flows", "1400"],
    "droptail": ["droptail", *LINK, "--flows", "300", "--buffer", "500"],
    "droptail-delay": ["droptail", *LINK, "--flows", "300", "--delay", "20ms"],
    "hstcp": ["hstcp"],
}
OPTIONS = {
    "example": ["--bandwidth", "--rtt", "--packet-size", "--flows", "--loss", "--max-window", "--access-rate"],
    "red": ["--bandwidth", "--rtt", "--packet-size", "--flows", "--loss", "--min-th", "--limit", "--dev",
            "--model", "--sender", "--rto", "--max-delay", "--stability-margin"],
    "red-buffer": ["--buffer"],
    "fpq": ["--bandwidth", "--rtt", "--packet-size", "--max-flows", "--flows", "--loss", "--ppf", "--bits",
            "--t-clear", "--min-th", "--limit", "--dev", "--max-delay", "--stability-margin"],
    "droptail": ["--bandwidth", "--rtt", "--packet-size", "--flows", "--buffer", "--policy", "--dev", "--model",
                 "--max-window", "--access-rate"],
    "droptail-delay": ["--delay"],
    "hstcp": ["--window", "--loss", "--points", "--kind"],
}
VALUES = {"empty": "", "zero": "0", "negative": "-5", "nan": "nan", "inf": "inf", "1e400": "1e400",
          "unknown-unit": "10furlongs", "wrong-type": "[1, 2]"}
# Values that are right for an option: a RED min_th of 0 packets; any interface-name-like word.
VALID = {("--min-th", "zero"),
         *(("--dev", kind) for kind in ("zero", "negative", "nan", "inf", "1e400", "unknown-unit"))}


def _with(argv, option, value):
    argv = list(argv)
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    return argv


GRID = [(name, option, kind) for name, options in OPTIONS.items() for option in options for kind in VALUES
        if (option, kind) not in VALID]

SPECIFIC = [
    # The cases issue 15 lists, and what the message must name.
    (["red", *LINK, "--flows", "1e400", "--loss", "0.02"], "--flows"),
    (["red", "--bandwidth", "10mbit", "--rtt", "1e308s", "--flows", "300", "--loss", "0.02"], "--rtt"),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--packet-size", "0.5b"], "--packet-size"),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--packet-size", "576.5b"], "--packet-size"),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--packet-size", "100kb"], "--packet-size"),
    (["hstcp", "--points", "1e18"], "--points"),
    (["hstcp", "--points", "1e9"], "--points"),                         # ran out of memory
    (["red", *LINK, "--flows", "1" + "0" * 400, "--loss", "0.02"], "--flows"),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--dev", "eth0; reboot"], "--dev"),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--dev", "$(reboot)"], "--dev"),
    (["fpq", *LINK, "--max-flows", "1400", "--bits", "1"], "--bits"),
    (["red", "--bandwidth", "10mbit", "--rtt", "100", "--flows", "300", "--loss", "0.02"], "--rtt"),
    (["red", "--bandwidth", "2pbit", "--rtt", "100ms", "--flows", "300", "--loss", "0.02"], "--bandwidth"),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--limit", "5gb"], "--limit"),
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--limit", "1kb"], "--limit"),
    (["droptail", *LINK, "--flows", "300", "--buffer", "500", "--delay", "20ms"], "--delay"),
    (["simulate", "example:standard_red", "--plot", ""], "--plot"),
    (["simulate", "example:standard_red", "--plot", "   "], "--plot"),
    (["simulate", ""], "cannot read"),
    # A gain margin below 1 would call an unstable loop stable.
    (["red", *LINK, "--flows", "300", "--loss", "0.02", "--stability-margin", "0.5"], "--stability-margin"),
    (["fpq", *LINK, "--max-flows", "1400", "--stability-margin", "0.99"], "--stability-margin"),
    # Sub-packet and non-whole drop-tail buffers became one packet (red refused them); under 8 bit/s droptail
    # printed a "0bit bottleneck" (red refused it).
    (["droptail", *LINK, "--flows", "300", "--buffer", "1b"], "--buffer"),
    (["droptail", *LINK, "--flows", "300", "--buffer", "0.5"], "--buffer"),
    (["droptail", *LINK, "--flows", "300", "--buffer", "1e-300b"], "--buffer"),
    (["droptail", "--bandwidth", "0.5", "--rtt", "100ms", "--flows", "300", "--buffer", "500"], "--bandwidth"),
    # Exit 0 with absurd output.
    (["fpq", *LINK, "--max-flows", "1400", "--bits", "9" * 41], "--bits"),
    (["fpq", *LINK, "--max-flows", "1400", "--ppf", "1e41"], "--ppf"),
    (["fpq", *LINK, "--max-flows", "1400", "--t-clear", "1e-300ms"], "--t-clear"),
    (["fpq", "--bandwidth", "10mbit", "--rtt", "1e-300ms", "--max-flows", "1400"], "--rtt"),
    (["simulate", "example:standard_red", "--plot", "x.txt"], "--plot"),   # "Format 'txt' is not supported"
]

SCENARIO = 'n_flows = 10\nbandwidth = "10mbit"\nrtt = "100ms"\nduration = "20s"\n'
FILES = [
    # (file text, field the message must name)
    ("n_flows = ", "not valid TOML"),
    ("n_flows = true\nbandwidth = 1e7\nrtt = 0.1", "n_flows"),
    ("n_flows = [10]\nbandwidth = 1e7\nrtt = 0.1", "n_flows"),
    ("n_flows = [[10, 2], [3]]\nbandwidth = 1e7\nrtt = 0.1", "n_flows"),
    ("n_flows = 10\nbandwidth = [1e7]\nrtt = 0.1", "bandwidth"),
    ("n_flows = 10\nbandwidth = inf\nrtt = 0.1", "bandwidth"),
    ("n_flows = 10\nbandwidth = nan\nrtt = 0.1", "bandwidth"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = -inf", "rtt"),
    ("n_flows = 1" + "0" * 400 + "\nbandwidth = 1e7\nrtt = 0.1", "n_flows"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\ntrace = 'false'", "trace"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\ntrace = 'no'", "trace"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\ntrace = 1", "trace"),
    (SCENARIO + "[queue]\ntype = 'RED'\necn = 'yes'", "ecn"),
    (SCENARIO + "[queue]\ntype = 'RED'\nmax_p = true", "max_p"),
    (SCENARIO + "[queue]\ntype = 'RED'\nmax_th = {a = 1}", "max_th"),
    (SCENARIO + "[queue]\ntype = 'Tahoe'", "queue.type"),
    (SCENARIO + "[sender]\ntype = 'RED'", "sender.type"),
    (SCENARIO + "queue = 'newreno'", "queue"),
    (SCENARIO + "[queue]\ntype = 'DropTail'\nbuffer = 'lots'", "buffer"),
    (SCENARIO + "[queue]\ntype = 'DropTail'\nbuffer = '64kg'", "buffer"),
    (SCENARIO + "[queue]\ntype = 'DropTail'\nbuffer = 0", "buffer"),
    (SCENARIO + "[sender]\ntype = 'NewReno'\nmin_rto = '1'", "min_rto"),
    (SCENARIO + "[sender]\ntype = 'NewReno'\nmax_window = 2.5", "max_window"),
    (SCENARIO + "warmup = '30s'", "warmup"),
    ("n_flows = 10\nbandwidth = '10 mbit'\nrtt = 0.1", "bandwidth"),
    ("n_flows = 10\nbandwidth = 1e7\nrtt = '100'", "rtt"),
    ("n_flows = 1000000000000\nbandwidth = 1e7\nrtt = 0.1\nduration = 10", "n_flows"),   # memory: refused first
    ("n_flows = 10\nbandwidth = 1e7\nrtt = 0.1\nfoo = 1", "foo"),
    ("[queue]\ntype = 'RED'", "n_flows"),
    ("", "missing n_flows, bandwidth, rtt"),   # "Scenario.__init__() missing 3 required positional arguments"
    (SCENARIO + "[queue]\ntype = 'RED'\nmin_th = 0\nmax_th = 1e-300", "max_th"),   # "root finding failed"
    # Rounded to whole packets: 1, 1, 2 and 1.
    (SCENARIO + "[queue]\ntype = 'DropTail'\nbuffer = '1b'", "buffer"),
    (SCENARIO + "[queue]\ntype = 'DropTail'\nbuffer = '0.5p'", "buffer"),
    (SCENARIO + "[queue]\ntype = 'DropTail'\nbuffer = '2.5p'", "buffer"),
    (SCENARIO + "[sender]\ntype = 'NewReno'\nmax_window = '10b'", "max_window"),
    # A traceback: MemoryError, at the run.
    (SCENARIO + "access_rate = '0.00001bit'", "access_rate"),
    (SCENARIO + "[queue]\ntype = 'FPQ'\nbits = 1000000000", "bits"),
]


def _one_line(capsys, argv, name):
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2, (argv, out, err)
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert name in err, err
    return err


@pytest.mark.parametrize("name, option, kind", GRID, ids=[f"{n} {o} {k}" for n, o, k in GRID])
def test_every_option_with_every_bad_value(capsys, name, option, kind):
    _one_line(capsys, _with(BASE[name], option, VALUES[kind]), option)


@pytest.mark.parametrize("argv, name", SPECIFIC, ids=[" ".join(a) for a, _ in SPECIFIC])
def test_the_issues_cases(capsys, argv, name):
    _one_line(capsys, argv, name)


@pytest.mark.parametrize("text, field", FILES, ids=[f[1] + ": " + f[0][-30:] for f in FILES])
def test_bad_scenario_files_name_file_and_field(capsys, tmp_path, text, field):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    err = _one_line(capsys, ["simulate", str(path)], field)
    assert err.startswith(f"tcpmodels simulate: {path}: ")


def test_a_file_that_is_not_utf8_is_named(capsys, tmp_path):
    # The message was the codec's ("'utf-8' codec can't decode byte 0xff"), without the file.
    path = tmp_path / "bad.toml"
    path.write_bytes(b"\xff\xfe b\x00a\x00d\x00")
    err = _one_line(capsys, ["simulate", str(path)], "UTF-8")
    assert err.startswith(f"tcpmodels simulate: {path}: ")


def test_corpus_size():
    # Reported in the merge note: keep the corpus from shrinking silently.
    assert len(GRID) + len(SPECIFIC) + len(FILES) >= 300
