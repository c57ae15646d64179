"""The ``tcpmodels`` command: the sizing calculator at a shell prompt.

``tcpmodels`` (or ``tcpmodels example``) prints a worked example on the thesis'
standard link; ``tcpmodels red``, ``fpq`` and ``droptail`` size queues for a
link, an RTT and a flow count; see ``tcpmodels --help`` and docs/cli.md.

This module only parses arguments (tc-style units, via :mod:`tcpmodels.units`),
calls :mod:`tcpmodels.calculator` and prints text or JSON.  Every user error is
one line on stderr naming the option, and exit status 2.
"""

import argparse
import json
import os
import re
import sys
import warnings

from . import __version__, calculator, hstcp, sweep_cli, units
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
    "window": "--window", "points": "--points", "kind": "--kind",
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
                  "a plain number is bit/s"),
    "rtt": ("--rtt", "TIME", "round-trip propagation time: 100ms, 250us, 1s; a plain number is seconds"),
    "flows": ("--flows", "N", "number of simultaneously active long-lived TCP flows"),
    "loss": ("--loss", "FRACTION", "target loss rate, a fraction in (0, 1): 0.02 or 2%%"),
    "buffer": ("--buffer", "BUFFER",
               "buffer [packets]: 500 or 500p; with a size unit (64kb, 288000b) bytes, "
               "converted with --packet-size"),
    "packet-size": ("--packet-size", "SIZE",
                    "mean packet size as for tc: 576b, 1500b, 1kb (= 1024 bytes); a plain number is bytes"),
    "min-th": ("--min-th", "PACKETS", "RED minimum threshold [packets]"),
    "limit": ("--limit", "SIZE", "tc hard limit: 1mb, 400000b (default: 4 x max)"),
    "dev": ("--dev", "DEV", "interface name in the tc line"),
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
    _add(parser, "packet-size", default=defaults.get("packet-size", "576b"))


def _json_option(parser):
    parser.add_argument("--json", action="store_true",
                        help="print the numbers as JSON (keys: docs/cli.md) instead of text")


def _tc_options(parser):
    _add(parser, "min-th", default="5")
    _add(parser, "limit")
    _add(parser, "dev", default="DEV")


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
        "sizes 1500b/64kb; plain numbers are bit/s, seconds, bytes. "
        "Without a command: the worked example."),
        epilog=f"Start with: tcpmodels example; tcpmodels red {_STANDARD} --flows 300 --loss 0.02")
    parser.add_argument("--version", action="version", version=f"tcpmodels {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = commands.add_parser("example", help="worked example on the thesis' standard link (the default)",
                            description="Drop-tail, RED and FPQ for the same link and flows, "
                                        "with the tc line; defaults are the thesis' standard link.")
    _link_options(p, {"bandwidth": "10mbit", "rtt": "100ms"})
    _add(p, "flows", default="300")
    _add(p, "loss", default="0.02")
    _json_option(p)

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
    _json_option(p)

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
    _json_option(p)

    p = commands.add_parser("droptail", help="drop-tail buffer beside the BDP and BDP/sqrt(N) rules",
                            description="Loss for a buffer, or the buffer for a target loss, for N "
                                        "flows (Morris 1999, Eq. 5.6 drop-tail / 5.7 random-drop), "
                                        "beside one BDP and BDP/sqrt(N) (Appenzeller et al. 2004).")
    _link_options(p)
    _add(p, "flows", required=True)
    target = p.add_mutually_exclusive_group(required=True)
    _add(p, "loss", group=target)
    _add(p, "buffer", group=target)
    p.add_argument("--policy", default="droptail", choices=("droptail", "random-drop"),
                   help="queue policy: droptail (Eq. 5.6) or random-drop (Eq. 5.7) (default: droptail)")
    _json_option(p)

    p = commands.add_parser("hstcp", help="HighSpeed TCP a(w), b(w), p(w) over a window or loss range",
                            description="HighSpeed TCP (RFC 3649): the response function and the "
                                        "increase a(w) and decrease b(w) laws at windows spread over "
                                        "a range (default: the RFC's design range, 38:83000).")
    span = p.add_mutually_exclusive_group()
    span.add_argument("--window", metavar="LOW:HIGH",
                      help="average windows [packets], e.g. 38:83000 or one value")
    span.add_argument("--loss", metavar="LOW:HIGH",
                      help="loss rates, fractions in (0, 1), e.g. 1e-7:1e-3 or one value")
    p.add_argument("--points", default="10", metavar="N", help="rows, log-spaced (default: 10)")
    p.add_argument("--kind", default="formula", choices=hstcp.KINDS,
                   help="form of a(w), b(w): the RFC's formula, monotone (a >= 1), the RFC's "
                        "Appendix B table, or Linux's table (default: formula)")
    _json_option(p)

    p = commands.add_parser("simulate", help="run the fluid simulator on a scenario file (TOML)",
                            description="Run tcpmodels.sim on a scenario file (format: docs/cli.md; "
                                        "examples in examples/) and print its summary beside the "
                                        "formula's prediction.")
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p.add_argument("--plot", metavar="PNG", help="also write queue and drop rate over time to this PNG")
    _json_option(p)
    sweep_cli.add_parser(commands)
    return parser


def _value(args, name, parse, option=None):
    """Parse one raw option value (None stays None)."""
    raw = getattr(args, name)
    return None if raw is None else parse(raw, option or "--" + name.replace("_", "-"))


def _link(args):
    return dict(bandwidth=_value(args, "bandwidth", units.parse_rate), rtt=_value(args, "rtt", units.parse_time),
                packet_size=_value(args, "packet_size", units.parse_size))


def _buffer(args, packet_size):
    return None if args.buffer is None else units.parse_buffer(args.buffer, packet_size)


def _tc(args):
    return dict(min_th=_value(args, "min_th", units.parse_number), limit=_value(args, "limit", units.parse_size),
                dev=args.dev)


# ----------------------------------------------------------------------------- text output

def _pct(x):
    return f"{100 * x:.3g} %"


def _num(x):
    """Three significant figures, without exponents for large numbers."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _ms(seconds):
    return f"{_num(1000 * seconds)} ms"


def _link_line(lk):
    return (f"{calculator.tc_rate(lk.bandwidth)} bottleneck, {_ms(lk.rtt)} round trip, "
            f"{lk.packet_size:g}-byte packets: {lk.capacity:.0f} packets/s, BDP {lk.bdp:.0f} packets")


def _table(header, rows):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    return "\n".join("  " + "  ".join(str(c).rjust(w) for c, w in zip(line, widths, strict=True))
                     for line in [header, *rows])


def _settings_lines(tc, ns3, limitations):
    out = ["", "Linux tc (thresholds in bytes; burst per tc-red(8)):", "  " + tc.command]
    out += [f"  note: {n}" for n in tc.notes]
    out += ["", f"ns-3 RedQueueDisc (QW = 2^-{tc.ewma_log}, the weight tc derives; Gentle and Wait off "
                "so that ns-3 drops as tc and the model do):"]
    out += ["  " + line for line in ns3.code.splitlines()]
    out += ["", "What tc cannot express:"] + [f"  - {text}" for text in limitations]
    return out


def _prediction_lines(p, model, sender):
    return [f"Predicted at {p.n_flows} flows (model {model} of tcpmodels.red.equilibrium, {sender} senders):",
            f"  loss rate             {_pct(p.loss_rate)}",
            f"  average queue         {p.queue:.0f} packets = {_ms(p.delay)} queueing delay",
            f"  buffer per flow       {p.queue_per_flow:.1f} packets",
            f"  time-outs per packet  {p.timeouts_per_packet:.2g}",
            f"  time in time-out      {_pct(p.timeout_fraction)}",
            f"  average window        {p.window:.1f} packets"]


def _range_line(setting):
    bad = sorted({p.status for p in setting.sweep if p.status != "ok"})
    if setting.ok_range is None:
        return f"  The setting does not work anywhere in this range ({', '.join(bad)})."
    lo, hi = setting.ok_range
    tail = f"; outside: {', '.join(bad)}" if bad else ""
    return f"  Works for {lo}-{hi} flows{tail}."


def _rule_line(s):
    if s.rule == "target-loss":
        return (f"Rule: target loss {_pct(s.target_loss)} (Morris 1999, section 5.3.4: "
                "max_th = 3/2 n pif(l, r), max_p = 3/4 l)")
    return f"Rule: fixed buffer max_th = {s.max_th:g} packets, max_p = 0.81 n^2/max_th^2 (section 5.3.4)"


def _text_red(s):
    out = [f"RED for {s.n_flows} flows on a {_link_line(s.link)}", _rule_line(s), "",
           f"  min_th  {s.min_th:8g} packets ({s.tc.min} bytes)",
           f"  max_th  {s.max_th:8g} packets ({s.tc.max} bytes)",
           f"  max_p   {s.max_p:8.4g}", ""]
    out += _prediction_lines(s.prediction, s.model, s.sender)
    rows = [(p.n_flows, f"{100 * p.loss_rate:.3g}", f"{p.queue:.0f}", _num(1000 * p.delay),
             f"{p.queue_per_flow:.1f}", f"{p.timeouts_per_packet:.2g}", _num(100 * p.timeout_fraction),
             p.status) for p in s.sweep]
    out += ["", "The same setting from N/4 to 4N flows (where it breaks):",
            _table(("flows", "loss %", "queue", "delay ms", "pkt/flow", "TO/pkt", "in TO %", "status"), rows),
            _range_line(s),
            f"  (forced drops: average queue at max_th; time-outs: loss > {_pct(calculator.MAX_LOSS)}, "
            f"windows < 4; excess queue: > {calculator.MAX_QUEUE_PER_FLOW:g} packets per flow)"]
    return "\n".join(out + _settings_lines(s.tc, s.ns3, s.limitations))


def _text_fpq(s):
    top = s.rows[-1]
    out = [f"FPQ for up to {s.max_flows} flows on a {_link_line(s.link)}",
           f"Targets: {s.ppf:g} packets per flow, loss at most {_pct(s.max_loss)} (Morris 1999, Fig. 6.2)", "",
           f"  bit vector    {s.bits} bits = {s.bit_vector_bytes} bytes "
           f"(v_max; >= {calculator.BITS_PER_FLOW} x flows keeps the raw count within 10 %)",
           f"  t_clear       {s.t_clear:.3g} s (longest RTT {_ms(s.link.rtt + top.delay)} incl. queueing; "
           f"at least {calculator.T_CLEAR_MIN:g} s, section 6.5)",
           f"  queue memory  {s.buffer} packets = {s.buffer_bytes} bytes (max_th at {s.max_flows} flows)", "",
           "Targets (Fig. 6.2) and the RED settings FPQ applies (Fig. 6.4):"]
    rows = [(r.n_flows, f"{r.queue:.0f}", f"{100 * r.loss_rate:.3g}", _num(1000 * r.delay),
             f"{r.queue_per_flow:.1f}", f"{r.min_th:g}", f"{r.max_th:.0f}", f"{r.max_p:.3g}") for r in s.rows]
    out.append(_table(("flows", "queue", "loss %", "delay ms", "pkt/flow", "min_th", "max_th", "max_p"), rows))
    out += _settings_lines(s.tc, s.ns3, s.limitations)
    out[out.index("Linux tc (thresholds in bytes; burst per tc-red(8)):")] = (
        f"Linux tc, FPQ's setting frozen at {s.n_flows} flows (thresholds in bytes; burst per tc-red(8)):")
    return "\n".join(out)


_RULE_NAMES = {"given": "given buffer", "target-loss": "for the target loss", "bdp": "one BDP (rule of thumb)",
               "bdp/sqrt(n)": "BDP/sqrt(N) (Appenzeller 2004)"}


def _text_droptail(s):
    eq = "Eq. 5.6" if s.policy == "droptail" else "Eq. 5.7"
    rows = [(_RULE_NAMES[r.rule], f"{r.buffer:.0f}", f"{r.buffer_bytes:.0f}", _num(1000 * r.max_delay),
             f"{100 * r.loss_rate:.3g}", f"{r.queue_per_flow:.2f}") for r in s.rules]
    return "\n".join([f"{s.policy} buffer for {s.n_flows} flows on a {_link_line(s.link)}",
                      f"Loss predicted by Morris 1999, {eq}; three buffer rules side by side:", "",
                      _table(("rule", "packets", "bytes", "full ms", "loss %", "pkt/flow"), rows)])


def _text_example(e):
    r, d, f = e.red, e.droptail, e.fpq
    need, bdp, root = d.rules
    p = r.prediction
    lines = [
        "tcpmodels worked example: the thesis' standard link (Morris 1999, Fig. 3.2)",
        f"{_link_line(r.link)}; {r.n_flows} long-lived TCP flows.", "",
        f"1. Drop-tail (Eq. 5.6): holding loss at {_pct(d.target_loss)} takes a {need.buffer:.0f}-packet "
        f"buffer ({need.queue_per_flow:.1f} per flow, {_ms(need.max_delay)} when full).",
        f"   One BDP ({bdp.buffer:.0f} packets) gives {_pct(bdp.loss_rate)} loss; BDP/sqrt(N) "
        f"({root.buffer:.0f} packets) gives {_pct(root.loss_rate)}.",
        *(["   With under 4 packets of buffer and wire per flow, flows time out and Eq. 5.6 over-states "
           "that loss (section 5.2.1)."] if (root.buffer + r.link.bdp) < 4 * r.n_flows else []), "",
        f"2. RED sized for {_pct(r.target_loss)} loss (section 5.3.4): min_th {r.min_th:g}, "
        f"max_th {r.max_th:g} packets, max_p {r.max_p:.3g}.",
        f"   Predicted (model {r.model}): loss {_pct(p.loss_rate)}, average queue {p.queue:.0f} packets "
        f"({_ms(p.delay)}), {p.queue_per_flow:.1f} packets per flow,",
        f"   {p.timeouts_per_packet:.2g} time-outs per packet, {_pct(p.timeout_fraction)} of the time in time-out.",
        "  " + _range_line(r).strip().replace("Works", " Works"),
        f"   {r.tc.command}", "",
        f"3. FPQ (ch. 6) counts the flows and targets a {f.queue:.0f}-packet queue "
        f"({f.queue_per_flow:.0f} per flow, {_ms(f.delay)}) at {_pct(f.loss_rate)} loss,",
        "   moving both with the flow count, which a fixed RED setting cannot do.", "",
        "Next:",
        f"  tcpmodels red {_STANDARD} --flows {r.n_flows} --loss {r.target_loss:g}",
        f"  tcpmodels fpq {_STANDARD} --max-flows {4 * r.n_flows}",
        f"  tcpmodels droptail {_STANDARD} --flows {r.n_flows} --buffer {bdp.buffer:.0f}",
        "  tcpmodels --help",
    ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- commands

def _run_example(args):
    lk = _link(args)
    return calculator.example(lk["bandwidth"], lk["rtt"], _value(args, "flows", units.parse_count),
                              _value(args, "loss", units.parse_fraction), lk["packet_size"]), _text_example


def _run_red(args):
    lk = _link(args)
    return calculator.red_setting(
        lk["bandwidth"], lk["rtt"], _value(args, "flows", units.parse_count),
        loss_rate=_value(args, "loss", units.parse_fraction), buffer=_buffer(args, lk["packet_size"]),
        packet_size=lk["packet_size"], model=args.model, sender=args.sender,
        rto=_value(args, "rto", units.parse_time),
        **_tc(args)), _text_red


def _run_fpq(args):
    lk = _link(args)
    return calculator.fpq_setting(
        lk["bandwidth"], lk["rtt"], _value(args, "max_flows", units.parse_count),
        packet_size=lk["packet_size"], ppf=_value(args, "ppf", units.parse_number),
        max_loss=_value(args, "loss", units.parse_fraction), n_flows=_value(args, "flows", units.parse_count),
        bits=_value(args, "bits", units.parse_count), t_clear=_value(args, "t_clear", units.parse_time),
        **_tc(args)), _text_fpq


def _run_droptail(args):
    lk = _link(args)
    return calculator.droptail_sizing(
        lk["bandwidth"], lk["rtt"], _value(args, "flows", units.parse_count),
        loss_rate=_value(args, "loss", units.parse_fraction), buffer=_buffer(args, lk["packet_size"]),
        packet_size=lk["packet_size"], policy=args.policy), _text_droptail


def _text_hstcp(t):
    rows = [(f"{r.window:.{1 if r.window < 100 else 0}f}", f"{r.loss_rate:.3g}", f"{r.a:.3g}", f"{r.b:.3g}")
            for r in t.rows]
    return "\n".join([f"HighSpeed TCP (RFC 3649), a(w) and b(w) as {t.kind}:",
                      "  loss p(w): the response function (Standard TCP's (1.2/w)^2 below ~38 packets)", "",
                      _table(("window", "loss p(w)", "a(w)", "b(w)"), rows)])


def _run_hstcp(args):
    window = None if args.window is None else units.parse_range(args.window, units.parse_number, "--window")
    loss = None if args.loss is None else units.parse_range(args.loss, units.parse_fraction, "--loss")
    return calculator.hstcp_table(window, loss, points=_value(args, "points", units.parse_count),
                                  kind=args.kind), _text_hstcp


def _text_simulate(s):
    sc, r, lk, p = s.scenario, s.result, s.link, s.prediction
    settings = ", ".join(f"{k} {v:g}" for k, v in sc.queue.to_dict().items()
                         if isinstance(v, (int, float)) and not isinstance(v, bool))

    def row(name, value, guess="-", unit=""):
        extra = f"{guess:>20}" if s.model else ""
        return f"  {name:<22}{value:>12}{extra}{unit}"

    def predicted(fmt, field):
        return fmt(getattr(p, field)) if p is not None else "-"

    return "\n".join([
        f"Simulated {sc.n_flows} {type(sc.sender).__name__} flows through {type(sc.queue).__name__} ({settings})",
        f"on a {_link_line(lk)}; {sc.duration:g} s, measured after {sc.warmup:g} s, seed {sc.seed}.", "",
        row("", "simulated", f"predicted {s.model}"),
        row("loss rate", _pct(r.loss_rate), _pct(s.predicted_loss) if s.model else "-"),
        row("average queue", f"{r.queue:.0f}", predicted("{:.0f}".format, "queue"), "  packets"),
        row("queueing delay", _ms(r.queue / lk.capacity), predicted(_ms, "delay")),
        row("utilization", _pct(r.utilization)),
        row("time-outs per packet", f"{r.timeouts_per_packet:.2g}", predicted("{:.2g}".format, "timeouts_per_packet")),
        row("time in time-out", _pct(r.timeout_fraction), predicted(_pct, "timeout_fraction")),
        row("average window", f"{r.window:.1f}", predicted("{:.1f}".format, "window"), "  packets"),
        row("Jain index", f"{r.jain_index:.3f}"),
        f"  goodput per flow: mean {r.goodput.mean():.1f}, min {r.goodput.min():.1f}, "
        f"max {r.goodput.max():.1f} packets/s"])


def _plot(simulation, path):
    """Write queue and drop rate over time to a PNG (matplotlib, imported only here)."""
    from matplotlib.figure import Figure

    trace = simulation.result.trace
    fig = Figure(figsize=(8, 5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.plot(trace["time"], trace["queue"])
    top.set_ylabel("queue [packets]")
    bottom.plot(trace["time"], 100 * trace["loss_rate"])
    bottom.set_ylabel("drop rate [%]")
    bottom.set_xlabel("time [s] (statistics from the dashed line on)")
    for axes in (top, bottom):
        axes.axvline(simulation.scenario.warmup, color="grey", linestyle="--", linewidth=1)
    top.set_title(f"{simulation.scenario.n_flows} flows, {type(simulation.scenario.queue).__name__}")
    try:
        fig.savefig(path)
    except OSError as error:
        raise ValueError(f"--plot: cannot write {path} ({error.strerror})") from None


def _run_simulate(args):
    result = calculator.simulate(args.scenario, trace=True if args.plot else None)
    if args.plot:
        _plot(result, args.plot)
    return result, _text_simulate


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
        Exit status: 0 on success, 2 for a usage error (one line on stderr).

    Examples
    --------
    >>> main(["red", "--bandwidth", "10mbit", "--rtt", "100ms", "--flows", "300",
    ...       "--loss", "5"])
    2
    """
    argv = _glue_negatives(list(sys.argv[1:] if argv is None else argv))
    if not argv or (argv[0].startswith("--") and argv[0] not in ("--help", "--version")):
        argv = ["example", *argv]  # `tcpmodels`, `tcpmodels --json`, `tcpmodels --flows 1000`
    parser = build_parser()
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
            result, render = _COMMANDS[args.command](args)
    except SystemExit as stop:  # --help and --version
        return int(stop.code or 0)
    except _UsageError as error:
        print(error, file=sys.stderr)
        return 2
    except (ValueError, ConvergenceError) as error:
        # A scenario file's messages name its fields, not options.
        message = str(error) if args.command == "simulate" else _translate(str(error))
        print(f"tcpmodels {args.command}: {message}", file=sys.stderr)
        return 2
    # The models' own warnings (inputs where a law is known to be inaccurate) reach the user;
    # numpy's floating-point chatter from inside solvers does not.
    for message in dict.fromkeys(str(w.message) for w in caught
                                 if issubclass(w.category, TCPModelsWarning)):
        print(f"tcpmodels {args.command}: warning: {message}", file=sys.stderr)
    text = json.dumps(calculator.jsonable(result), indent=2) if args.json else render(result)
    try:
        print(text)
    except BrokenPipeError:  # `tcpmodels ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
