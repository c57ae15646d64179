"""The ``tcpmodels`` command: the sizing calculator at a shell prompt.

``tcpmodels`` (or ``tcpmodels example``) prints a worked example on the thesis'
standard link; ``tcpmodels red``, ``fpq`` and ``droptail`` size queues for a
link, an RTT and a flow count; see ``tcpmodels --help`` (and docs/cli.md in the
source tree).

This module only parses arguments (tc-style units, via :mod:`tcpmodels.units`),
calls :mod:`tcpmodels.calculator` and prints text, JSON or CSV.  Every user
error is one line on stderr naming the option, and exit status 2; Ctrl-C is one
line and status 130; an output that cannot be written is one line and status 1.
"""

import argparse
import contextlib
import json
import os
import re
import sys
import threading
import time
import warnings

from . import __version__, calculator, droptail, hstcp, report, scenario_file, sweep_cli, units
from ._checks import TCPModelsWarning
from .solve import ConvergenceError

__all__ = ["main", "build_parser"]

_STANDARD = "--bandwidth 10mbit --rtt 100ms"
# Python argument names in library messages -> the options that set them.
_OPTION_OF = {
    "n_flows": "--flows", "loss_rate": "--loss", "max_loss": "--loss", "buffer": "--buffer",
    "min_th": "--min-th", "max_flows": "--max-flows", "bits": "--bits", "t_clear": "--t-clear",
    "limit": "--limit", "model": "--model", "rtt": "--rtt", "bandwidth": "--bandwidth",
    "packet_size": "--packet-size", "ppf": "--ppf", "rto": "--rto", "policy": "--policy",
    "window": "--window", "points": "--points", "kind": "--kind", "dev": "--dev", "max_delay": "--max-delay",
    "delay": "--delay", "stability_margin": "--stability-margin",
    "max_window": "--max-window", "access_rate": "--access-rate",
}


class _UsageError(Exception):
    """A mistake at the prompt: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line (no usage dump) and never exit."""

    def error(self, message):
        raise _UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


# Each shared option once: flag, metavar, help (with its unit).
_SHARED = {
    "bandwidth": ("--bandwidth", "RATE",
                  "bottleneck link rate as for tc: 10mbit, 1gbit, 500kbit, 1mbps (bps = BYTES/s); "
                  "a plain number is bit/s, as in tc"),
    "rtt": ("--rtt", "TIME", "round-trip propagation time with its unit: 100ms, 250us, 1s (a plain number "
                             "is refused: tc would read microseconds)"),
    "flows": ("--flows", "N", "number of simultaneously active long-lived TCP flows"),
    "loss": ("--loss", "FRACTION", "target loss rate, a fraction in (0, 1): 0.02 or 2%%"),
    "buffer": ("--buffer", "BUFFER",
               "buffer [packets]: whole packets, 500 or 500p; with a size unit (64kb, 288000b) bytes, "
               "rounded down to whole packets of --packet-size"),
    "packet-size": ("--packet-size", "SIZE",
                    "mean packet size as for tc, whole bytes: 1500b, 576b (the thesis'), 1kb (= 1024 bytes); "
                    "a plain number is bytes"),
    "min-th": ("--min-th", "PACKETS", "RED minimum threshold [packets]"),
    "limit": ("--limit", "SIZE", "tc hard limit: 1mb, 400000b (default: 4 x max)"),
    "dev": ("--dev", "DEV", "interface name in the tc line (letters, digits, _ . + -; at most 15)"),
    "max-delay": ("--max-delay", "TIME", "queueing delay above which a row's status is 'long delay'"),
    "stability-margin": ("--stability-margin", "GAIN",
                         "gain margin, >= 1, the linearized TCP/RED loop needs for a setting to count as stable; "
                         "below it the nearest max_p and weight that meet it are printed"),
}


def _add(parser, name, *, default=None, required=False, help=None, group=None):
    flag, metavar, text = _SHARED[name]
    shown = f" (default: {default})" if default is not None else ""
    (group or parser).add_argument(flag, default=default, required=required, metavar=metavar,
                                   help=(help or text) + shown)


def _link_options(parser, defaults=None):
    defaults = defaults or {}
    for name in ("bandwidth", "rtt"):
        _add(parser, name, default=defaults.get(name), required=name not in defaults)
    _add(parser, "packet-size", default=defaults.get("packet-size", "1500b"))


def _output_options(parser, csv=True):
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help="print the numbers as JSON instead of text (null: does not apply)")
    if csv:
        out.add_argument("--csv", action="store_true", help="print the table as CSV instead of text")


def _tc_options(parser):
    _add(parser, "min-th", default="5")
    _add(parser, "limit")
    _add(parser, "dev", default="DEV")
    _add(parser, "max-delay", default="100ms")
    _add(parser, "stability-margin", default=f"{calculator.DEFAULT_MARGIN:g}")


def build_parser():
    """Build the ``tcpmodels`` argument parser (all commands and options).

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["red", "--bandwidth", "10mbit", "--rtt", "100ms",
    ...                                    "--flows", "300", "--loss", "0.02"])
    >>> args.command, args.bandwidth, args.loss
    ('red', '10mbit', '0.02')
    """
    parser = _Parser(prog="tcpmodels", description=(
        "Sizing calculator for queues carrying many TCP flows (Morris 1999 models). "
        "Units as for Linux tc: rates 10mbit/1gbit (bps = bytes/s), times 100ms/250us, "
        "sizes 1500b/64kb; plain rates are bit/s and plain sizes bytes, as in tc; times need their unit. "
        "Without a command: the worked example."),
        epilog=f"Start with: tcpmodels example; tcpmodels red {_STANDARD} --flows 300 --loss 0.02")
    parser.add_argument("--version", action="version", version=f"tcpmodels {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _example_parser(commands)
    _red_parser(commands)
    _fpq_parser(commands)
    _droptail_parser(commands)
    _hstcp_parser(commands)
    _simulate_parser(commands)
    sweep_cli.add_parser(commands)
    return parser


def _example_parser(commands):
    p = commands.add_parser("example", help="worked example on the thesis' standard link (the default)",
                            description="Drop-tail, RED and FPQ for the same link and flows, "
                                        "with the tc line; defaults are the thesis' standard link "
                                        "(10 Mbit/s, 100 ms, 576-byte packets, 300 flows).")
    _link_options(p, {"bandwidth": "10mbit", "rtt": "100ms", "packet-size": "576b"})
    _add(p, "flows", default="300")
    _add(p, "loss", default="0.02")
    _limit_options(p, "drop-tail P3 only: one flow escapes the overflows, drop-tail's lock-out; the drop-tail "
                      "buffer is then also given without them; RED's and FPQ's models have none")
    p.add_argument("--list", action="store_true",
                   help="list the scenario files shipped with tcpmodels (tcpmodels simulate example:NAME)")
    _output_options(p, csv=False)


def _red_parser(commands):
    p = commands.add_parser("red", help="RED parameters, predictions, tc and ns-3 settings",
                            description="RED parameters for a link and flow count: by target loss "
                                        "(Morris 1999, section 5.3.4) or for a fixed buffer "
                                        "(max_p = 0.81 N^2/max_th^2); predicted loss, queue, delay "
                                        "and time-outs at N and from N/4 to 4N; tc and ns-3 settings.")
    _link_options(p)
    _add(p, "flows", required=True)
    target = p.add_mutually_exclusive_group(required=True)
    _add(p, "loss", group=target)
    _add(p, "buffer", group=target, help="fixed max_th [packets] (the router's buffer): 500 or 500p, "
                                         "or bytes with a size unit (64kb)")
    _tc_options(p)
    p.add_argument("--model", default=calculator.DEFAULT_MODEL, choices=calculator.MODELS,
                   help="RED equilibrium model of tcpmodels.red.equilibrium "
                        f"(default: {calculator.DEFAULT_MODEL})")
    p.add_argument("--sender", default=calculator.DEFAULT_SENDER, choices=calculator.SENDERS,
                   help=f"TCP sender whose time-outs P3 models (default: {calculator.DEFAULT_SENDER})")
    p.add_argument("--rto", default="1s", metavar="TIME",
                   help="length of one retransmission time-out (default: 1s, the thesis')")
    p.add_argument("--ecn", action="store_true",
                   help="mark instead of drop: tc 'ecn harddrop', ns-3 UseEcn; predictions print drops and marks apart")
    p.add_argument("--gentle", action="store_true",
                   help="gentle RED (ns-3 Gentle; Linux's RED has none): predictions and --check follow it")
    p.add_argument("--adaptive", action="store_true",
                   help="tc 'adaptive' (max_p adapts within 1-50 %%); predictions are for the starting max_p")
    p.add_argument("--check", action="store_true",
                   help="also simulate the printed setting (tcpmodels.sim, "
                        f"{calculator.simulation.CHECK_DURATION:g} s) and print it beside the prediction")
    _output_options(p)


def _fpq_parser(commands):
    p = commands.add_parser("fpq", help="FPQ targets, bit-vector size and t_clear up to --max-flows",
                            description="Flow-proportional queuing (Morris 1999, ch. 6): target queue "
                                        "and loss (Fig. 6.2), RED settings (Fig. 6.4), bit-vector "
                                        "size, t_clear and memory for up to --max-flows flows.")
    _link_options(p)
    p.add_argument("--max-flows", required=True, metavar="N", help="most flows the router must support")
    _add(p, "flows", help="flow count for the fixed tc / ns-3 setting (default: --max-flows)")
    _add(p, "loss", default="0.016", help="cap on FPQ's target loss rate, a fraction in (0, 1)")
    p.add_argument("--ppf", default="5", metavar="PACKETS", help="target packets per flow (default: 5)")
    p.add_argument("--bits", metavar="N", help="bit-vector size v_max [bits] (default: 5 x --max-flows)")
    p.add_argument("--t-clear", metavar="TIME",
                   help="counting interval (default: max(4s, 2 x longest RTT incl. queueing))")
    _tc_options(p)
    _output_options(p)


def _droptail_parser(commands):
    p = commands.add_parser("droptail", help="drop-tail buffer beside the BDP and BDP/sqrt(N) rules",
                            description="Loss for a buffer, or the buffer for a target loss or a target "
                                        "queueing delay, for N flows (Morris 1999, Eq. 5.6 drop-tail / 5.7 "
                                        "random-drop), beside one BDP and BDP/sqrt(N) (Appenzeller et al. "
                                        "2004); tc pfifo and bfifo lines.")
    _link_options(p)
    _add(p, "flows", required=True)
    target = p.add_mutually_exclusive_group(required=True)
    _add(p, "loss", group=target)
    _add(p, "buffer", group=target)
    target.add_argument("--delay", metavar="TIME", help="target queueing delay of a full buffer: 20ms, 0.1s")
    p.add_argument("--policy", default="droptail", choices=("droptail", "random-drop"),
                   help="queue policy: droptail or random-drop (default: droptail)")
    p.add_argument("--model", default="P3", choices=droptail.MODELS,
                   help="model of tcpmodels.droptail.equilibrium: P3 (most accurate), P1 (Eq. 5.6/5.7 as "
                        "published), P2, or P3-poisson (P3 before its trains) (default: P3)")
    _limit_options(p, "P3 with --policy droptail only: one flow escapes the overflows, drop-tail's lock-out")
    _add(p, "dev", default="DEV")
    _output_options(p)


def _limit_options(parser, scope):
    """--max-window and --access-rate: the senders' limits, which drop-tail P3 alone takes (`scope` says so)."""
    limits = parser.add_argument_group(f"the senders' limits ({scope})")
    limits.add_argument("--max-window", metavar="SIZE",
                        help="the senders' largest window (receive window or send-buffer limit): packets, 122 or "
                             "122p, or bytes with a size unit, divided by --packet-size and rounded down as scenario "
                             "files read them (64kb of 576-byte packets: 113; 64 KB of 536-byte segments is 122p)")
    limits.add_argument("--access-rate", metavar="RATE",
                        help="each sender's access-link rate as for tc: 5mbit, 1gbit (a plain number is bit/s)")


def _hstcp_parser(commands):
    p = commands.add_parser("hstcp", help="HighSpeed TCP a(w), b(w), p(w) over a window or loss range",
                            description="HighSpeed TCP (RFC 3649): the response function and the "
                                        "increase a(w) and decrease b(w) laws at windows spread over "
                                        "a range (default: the RFC's design range, 38:83000).")
    span = p.add_mutually_exclusive_group()
    span.add_argument("--window", metavar="LOW:HIGH",
                      help="average windows [packets], e.g. 38:83000 or one value")
    span.add_argument("--loss", metavar="LOW:HIGH",
                      help="loss rates, fractions in (0, 1), e.g. 1e-7:1e-3 or one value")
    p.add_argument("--points", default="10", metavar="N",
                   help=f"rows, log-spaced, at most {calculator.MAX_POINTS} (default: 10)")
    p.add_argument("--kind", default="formula", choices=hstcp.KINDS,
                   help="form of a(w), b(w): the RFC's formula, monotone (a >= 1), the RFC's "
                        "Appendix B table, or Linux's table (default: formula)")
    _output_options(p)


def _simulate_parser(commands):
    p = commands.add_parser("simulate", help="run the fluid simulator on a scenario file (TOML)",
                            description="Run tcpmodels.sim on a scenario file and print its summary beside "
                                        "the formula's prediction. The file is TOML: top-level keys are the "
                                        "fields of tcpmodels.sim.Scenario, [queue] and [sender] tables name a "
                                        "class with 'type'; strings may carry tc units (\"10mbit\", "
                                        "\"100ms\", \"64kb\"). Shipped examples: tcpmodels example --list.",
                            epilog="Example: tcpmodels simulate example:standard_red --plot run.png")
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file, or example:NAME")
    p.add_argument("--plot", metavar="PNG", help="also write queue and drop rate over time to this PNG (or, with "
                                                 "its suffix, .pdf, .svg, ...)")
    _output_options(p, csv=False)


def _time(text, option):
    return units.parse_time(text, option, unit_required=True)


def _value(args, name, parse, option=None):
    """Parse one raw option value (None stays None)."""
    raw = getattr(args, name)
    return None if raw is None else parse(raw, option or "--" + name.replace("_", "-"))


def _link(args):
    return dict(bandwidth=_value(args, "bandwidth", units.parse_rate), rtt=_value(args, "rtt", _time),
                packet_size=_value(args, "packet_size", units.parse_size))


def _buffer(args, packet_size):
    return None if args.buffer is None else units.parse_buffer(args.buffer, packet_size)


def _tc(args):
    return dict(min_th=_value(args, "min_th", _nonnegative), limit=_value(args, "limit", units.parse_size),
                dev=args.dev, max_delay=_value(args, "max_delay", _time),
                stability_margin=_value(args, "stability_margin", units.parse_number))


def _nonnegative(text, option):
    """A plain number >= 0 (--min-th 0 is a valid RED threshold)."""
    return 0.0 if str(text).strip() in ("0", "0.0") else units.parse_number(text, option, "5")


# ----------------------------------------------------------------------------- commands

def _run_example(args):
    if args.list:
        return scenario_file.example_names(), lambda names: "\n".join(
            f"example:{name:<16} {_summary(name)}" for name in names)
    lk = _link(args)
    return calculator.example(lk["bandwidth"], lk["rtt"], _value(args, "flows", units.parse_count),
                              _value(args, "loss", units.parse_fraction), lk["packet_size"], **_limits(args, lk)
                              ), report.text_example


def _summary(name):
    """First comment line of a shipped scenario file."""
    first = scenario_file.example_text(name).splitlines()[0]
    return first.lstrip("# ").strip()


def _run_red(args):
    lk = _link(args)
    tc = _tc(args)
    setting = calculator.red_setting(
        lk["bandwidth"], lk["rtt"], _value(args, "flows", units.parse_count),
        loss_rate=_value(args, "loss", units.parse_fraction), buffer=_buffer(args, lk["packet_size"]),
        packet_size=lk["packet_size"], model=args.model, sender=args.sender,
        rto=_value(args, "rto", _time), ecn=args.ecn, adaptive=args.adaptive, gentle=args.gentle, **tc)
    if not args.check:
        return setting, lambda s: report.text_red(s, tc["max_delay"])
    scenario = calculator.red_scenario(setting)
    args.show_warnings()  # (the setting's and the scenario's, before the run)
    with _progress(f"simulating {setting.n_flows} flows for {scenario.duration:g} s"):
        check = calculator.simulate(scenario)
    result = {"setting": setting, "check": check}
    return result, lambda r: report.text_red(r["setting"], tc["max_delay"]) + "\n" + report.text_check(r["check"])


def _run_fpq(args):
    lk = _link(args)
    return calculator.fpq_setting(
        lk["bandwidth"], lk["rtt"], _value(args, "max_flows", units.parse_count),
        packet_size=lk["packet_size"], ppf=_value(args, "ppf", units.parse_number),
        max_loss=_value(args, "loss", units.parse_fraction), n_flows=_value(args, "flows", units.parse_count),
        bits=_value(args, "bits", units.parse_count), t_clear=_value(args, "t_clear", _time),
        **{k: v for k, v in _tc(args).items() if k != "max_delay"}), report.text_fpq


def _run_droptail(args):
    lk = _link(args)
    return calculator.droptail_sizing(
        lk["bandwidth"], lk["rtt"], _value(args, "flows", units.parse_count),
        loss_rate=_value(args, "loss", units.parse_fraction),
        buffer=None if args.buffer is None else units.parse_packets(args.buffer, lk["packet_size"]),
        delay=_value(args, "delay", _time), packet_size=lk["packet_size"], policy=args.policy,
        dev=args.dev, model=args.model, **_limits(args, lk)), report.text_droptail


def _limits(args, lk):
    """The senders' limits as the calculator takes them: max_window [packets], access_rate [bit/s]."""
    return dict(max_window=_max_window(args, lk["packet_size"]),
                access_rate=_value(args, "access_rate", units.parse_rate))


def _max_window(args, packet_size):
    """--max-window in whole packets: a window holds whole packets (segments), as a scenario file's."""
    if args.max_window is None:
        return None
    return units.parse_packets(args.max_window, packet_size, "--max-window", what="a window", example="122p or 64kb")


def _run_hstcp(args):
    window = None if args.window is None else units.parse_range(args.window, units.parse_number, "--window")
    loss = None if args.loss is None else units.parse_range(args.loss, units.parse_fraction, "--loss")
    return calculator.hstcp_table(window, loss, points=_value(args, "points", units.parse_count),
                                  kind=args.kind), report.text_hstcp


def _run_simulate(args):
    if args.plot is not None:
        report.plot_format(args.plot)
    scenario = calculator.load_scenario(args.scenario)
    args.show_warnings()  # (the scenario's own, such as a slow run's, before the run)
    with _progress(f"simulating {scenario.n_flows} flows for {scenario.duration:g} s"):
        try:
            result = calculator.simulate(scenario, trace=True if args.plot else None)
        except ValueError as error:  # the run refused before it starts (memory): name the file
            raise ValueError(f"{args.scenario}: {error}") from None
    if args.plot:
        report.plot(result, args.plot)
    return result, report.text_simulate


@contextlib.contextmanager
def _progress(label):
    """Show `label` and the time elapsed on stderr while a long run works, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield
        return
    done, start = threading.Event(), time.monotonic()

    def tick():
        while not done.wait(0.5):
            sys.stderr.write(f"\r{label}: {time.monotonic() - start:.0f} s elapsed ")
            sys.stderr.flush()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


_COMMANDS = {"example": _run_example, "red": _run_red, "fpq": _run_fpq, "droptail": _run_droptail,
             "hstcp": _run_hstcp, "simulate": _run_simulate, "sweep": sweep_cli.run}


def _glue_negatives(argv):
    """``--rtt -100ms`` -> ``--rtt=-100ms`` so argparse reads it as a value, and the parser refuses it."""
    out = []
    for token in argv:
        if out and re.match(r"-[\d.]", token) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


_UNITS = {*units.RATE_UNITS, *units.TIME_UNITS, *units.SIZE_UNITS, "p", "pkt", "packets", "%"}


def _split_unit(argv):
    """``--bandwidth 10 mbit``: the message for a value typed apart from its unit, or None."""
    for i in range(2, len(argv)):
        option, number, word = argv[i - 2:i + 1]
        if option.startswith("--") and "=" not in option and word.lower() in _UNITS \
                and re.fullmatch(r"[\d.eE+-]+", number):
            prog = f"tcpmodels {argv[0]}" if argv[0] in _COMMANDS else "tcpmodels"
            return (f"{prog}: {option}: write the number and its unit as one word, as in "
                    f"{number}{word}; got '{number} {word}'")
    return None


def _translate(message):
    """Name options, not Python arguments, in a library's error message."""
    if message.startswith("--"):  # the option parsers' own messages name the option already
        return message
    names = "|".join(_OPTION_OF)
    return re.sub(rf"(?<![-\w])({names})\b", lambda m: _OPTION_OF[m.group(1)], message)


def main(argv=None):
    """Run the ``tcpmodels`` command.

    Parameters
    ----------
    argv : list of str, optional
        Arguments after the program name; ``sys.argv[1:]`` by default.  No
        command (no arguments, or options only) means ``example``.

    Returns
    -------
    int
        Exit status: 0 on success, 2 for a usage error, 130 after Ctrl-C, 1 when
        the output cannot be written; each failure is one line on stderr.

    Examples
    --------
    >>> main(["red", "--bandwidth", "10mbit", "--rtt", "100ms", "--flows", "300",
    ...       "--loss", "5"])
    2
    """
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("tcpmodels: interrupted", file=sys.stderr)
        return 130


def _main(argv):
    argv = _glue_negatives(list(sys.argv[1:] if argv is None else argv))
    if not argv or (argv[0].startswith("--") and argv[0] not in ("--help", "--version")):
        argv = ["example", *argv]  # `tcpmodels`, `tcpmodels --json`, `tcpmodels --flows 1000`
    parser = build_parser()
    command = argv[0] if argv[0] in _COMMANDS else None
    try:
        split = _split_unit(argv)
        if split:
            raise _UsageError(split)
        args = parser.parse_args(argv)
        if args.command is None:
            raise _UsageError(f"tcpmodels: expected a command: {', '.join(_COMMANDS)} "
                              "(see tcpmodels --help)")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            args.show_warnings = _shower(caught, command)
            result, render = _COMMANDS[args.command](args)
    except SystemExit as stop:  # --help and --version
        return int(stop.code or 0)
    except _UsageError as error:
        return _fail(str(error), 2)
    except (ValueError, ConvergenceError) as error:
        # A scenario file's messages name its fields, not options.
        message = str(error) if command == "simulate" else _translate(str(error))
        return _fail(f"tcpmodels {command}: {message}", 2)
    args.show_warnings()
    return _write(_output(args, result, render))


def _shower(caught, command):
    """A function that prints the warnings `caught` so far, each message once, and forgets them.

    A command calls it before a long run, so that what its scenario warns (a slow run) comes before the
    wait, and ``_main`` after the command, unless the command failed: a usage error is one line.  The
    models' own warnings (inputs where a law is known to be inaccurate) reach the user; numpy's
    floating-point chatter from inside solvers does not.
    """
    shown = set()

    def show():
        for message in (str(w.message) for w in caught if issubclass(w.category, TCPModelsWarning)):
            if message not in shown:
                shown.add(message)
                print(f"tcpmodels {command}: warning: {message}", file=sys.stderr)
        caught.clear()

    return show


def _output(args, result, render):
    if getattr(args, "csv", False):
        return calculator.to_csv(result["setting"] if isinstance(result, dict) else result).rstrip("\n")
    if args.json:
        return json.dumps(calculator.jsonable(result), indent=2, allow_nan=False)
    return render(result)


def _fail(message, status):
    print(" ".join(message.split("\n")), file=sys.stderr)
    return status


def _write(text):
    """Print the output; a reader that left (``| head``) is fine, a full disk is one line and status 1."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `tcpmodels ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as error:  # `> /dev/full`, a closed or read-only stdout
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit flush is silent
        return _fail(f"tcpmodels: cannot write the output ({error.strerror or error})", 1)
    return 0
