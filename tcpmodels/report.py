"""Plain-text reports of calculator results, as ``tcpmodels`` prints them.

One function per command; each takes the calculator's result and returns the
text.  Numbers are formatted here and nowhere else; they are computed in
:mod:`tcpmodels.calculator`.
"""

import io
import os

from . import calculator, droptail

__all__ = ["text_red", "text_fpq", "text_droptail", "text_example", "text_hstcp", "text_simulate", "text_check",
           "plot", "plot_format"]


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


_TC_TITLE = "Linux tc (thresholds in bytes; passes iproute2's checks and the kernel's red_check_params):"


def _settings_lines(tc, ns3, limitations):
    out = ["", _TC_TITLE, "  " + tc.command]
    out += [f"  note: {n}" for n in tc.notes]
    spacing = ("Wait off so that ns-3 spaces drops as tc and the model do; Gentle on: the predictions' gentle RED, "
               "which tc cannot express" if ns3.Gentle else
               "Gentle and Wait off so that ns-3 drops as tc and the model do")
    out += ["", f"ns-3 RedQueueDisc (QW = 2^-{tc.ewma_log}, the weight tc derives; LinkBandwidth as tc's; {spacing}):"]
    out += ["  " + line for line in ns3.code.splitlines()]
    out += ["", "What tc cannot express:"] + [f"  - {text}" for text in limitations]
    return out


def _signal_lines(p, ecn):
    if not ecn:
        return [f"  loss rate             {_pct(p.loss_rate)}"]
    return [f"  drops                 {_pct(p.loss_rate)} (forced, above max)",
            f"  ECN marks             {_pct(p.mark_rate)} (congestion signal: {_pct(p.loss_rate + p.mark_rate)})"]


def _margins(gain, phase, period=None):
    phase = "none (loop gain below 1)" if phase == float("inf") else f"{phase:.0f} deg"
    tail = "" if period is None else f", period {period:.2g} s"
    return f"gain margin {gain:.2f}, phase margin {phase}{tail}"


def _stability_lines(p, margin):
    head = f"  stable                {_STABLE_WORD[p.stability]}"
    if p.stability == "no verdict":
        return [head + " (RED's forced drops, its average at min_th or windows < 4 packets: outside the "
                       "linearized loop)"]
    return [f"{head} ({_margins(p.gain_margin, p.phase_margin, p.period)}; required gain margin {margin:g})"]


_STABLE_WORD = {"stable": "yes", "below margin": "yes, below the required margin", "unstable": "no",
                "no verdict": "no verdict", "-": "-"}


def _remedy_lines(remedies, ecn):
    out = []
    for r in remedies:
        what = (f"max_p {r.max_p:.4g}" if r.change == "max_p" else
                f"weight 2^-{r.ewma_log} (the average follows the queue over {_ms(r.averaging_time)})")
        signal = f"{_pct(r.loss_rate)} loss" + (f" + {_pct(r.mark_rate)} marks" if ecn else "")
        out += [f"    {what}: {_margins(r.gain_margin, r.phase_margin)}; "
                f"predicted {signal}, queue {r.queue:.0f} packets ({_ms(r.delay)})", f"      {r.command}"]
    return out


def _prediction_lines(p, model, sender, ecn=False):
    return [f"Predicted at {p.n_flows} flows (model {model} of tcpmodels.red.equilibrium, {sender} senders):",
            *_signal_lines(p, ecn),
            f"  average queue         {p.queue:.0f} packets = {_ms(p.delay)} queueing delay",
            f"  buffer per flow       {p.queue_per_flow:.1f} packets",
            f"  time-outs per packet  {p.timeouts_per_packet:.2g}",
            f"  time in time-out      {_pct(p.timeout_fraction)}",
            f"  average window        {p.window:.1f} packets"]


def _gain(x):
    return "-" if x != x else f"{x:.2f}"


def _range_line(setting):
    bad = sorted({p.status for p in setting.sweep if p.status != "ok"})
    if setting.ok_range is None:
        return f"  The setting does not work anywhere in this range ({', '.join(bad)})."
    lo, hi = setting.ok_range
    tail = f"; outside: {', '.join(bad)}" if bad else ""
    stable = [p.n_flows for p in setting.sweep if p.stability == "stable"]
    held = f"stable with the required margin at {stable[0]}-{stable[-1]} flows" if stable else "stable nowhere"
    return f"  Works for {lo}-{hi} flows{tail}; {held}."


def _rule_line(s):
    if s.rule == "target-loss":
        return (f"Rule: target loss {_pct(s.target_loss)} (Morris 1999, section 5.3.4: "
                "max_th = 3/2 n pif(l, r), max_p = 3/4 l)")
    return f"Rule: fixed buffer max_th = {s.max_th:g} packets, max_p = 0.81 n^2/max_th^2 (section 5.3.4)"


def _sweep_lines(s, max_delay):
    """The N/4 ... 4N table of a RED setting, with its legend."""
    marks = ("marks %",) if s.ecn else ()
    rows = [(p.n_flows, f"{100 * p.loss_rate:.3g}", *((f"{100 * p.mark_rate:.3g}",) if s.ecn else ()),
             f"{p.queue:.0f}", _num(1000 * p.delay), f"{p.queue_per_flow:.1f}", f"{p.timeouts_per_packet:.2g}",
             _num(100 * p.timeout_fraction), p.stability, _gain(p.gain_margin), p.status) for p in s.sweep]
    header = ("flows", "drops %" if s.ecn else "loss %", *marks, "queue", "delay ms", "pkt/flow", "TO/pkt",
              "in TO %", "stability", "GM", "status")
    return ["", "The same setting from N/4 to 4N flows (where it breaks):", _table(header, rows), _range_line(s),
            f"  (forced drops: average queue at max_th; time-outs: {'drops + marks' if s.ecn else 'loss'} > "
            f"{_pct(calculator.MAX_LOSS)}, windows < 4; long delay: queueing delay > {_ms(max_delay)} (--max-delay); "
            f"excess queue: > {calculator.MAX_QUEUE_PER_FLOW:g} packets per flow;",
            f"   stability: linearized TCP/RED loop at weight 2^-{s.tc.ewma_log} (red.stability), GM its gain "
            f"margin; below margin: under {s.stability_margin:g} (--stability-margin))"]


def text_red(s, max_delay):
    """The ``tcpmodels red`` report.

    Parameters
    ----------
    s : tcpmodels.calculator.REDSetting
        The setting.
    max_delay : float
        The 'long delay' threshold the predictions used [s].

    Returns
    -------
    str
    """
    out = [f"RED for {s.n_flows} flows on a {_link_line(s.link)}", _rule_line(s), "",
           f"  min_th  {s.min_th:8g} packets ({s.tc.min} bytes)",
           f"  max_th  {s.max_th:8g} packets ({s.tc.max} bytes)",
           f"  max_p   {s.max_p:8.4g}",
           f"  weight  {s.weight:8.4g} (2^-{s.tc.ewma_log}, the EWMA weight tc derives from burst {s.tc.burst})", ""]
    out += [f"Note: {text}" for text in s.notes] + ([""] if s.notes else [])
    out += _prediction_lines(s.prediction, s.model, s.sender, s.ecn) + _stability_lines(s.prediction,
                                                                                        s.stability_margin)
    if s.remedies:
        out += [f"  To meet gain margin {s.stability_margin:g} at {s.n_flows} flows (P3 at the new setting):",
                *_remedy_lines(s.remedies, s.ecn)]
    out += _sweep_lines(s, max_delay)
    return "\n".join(out + _settings_lines(s.tc, s.ns3, s.limitations))


def text_fpq(s):
    """The ``tcpmodels fpq`` report.

    Parameters
    ----------
    s : tcpmodels.calculator.FPQSetting
        The result.

    Returns
    -------
    str
    """
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
             f"{r.queue_per_flow:.1f}", f"{r.min_th:g}", f"{r.max_th:.0f}", f"{r.max_p:.3g}", r.stability,
             _gain(r.gain_margin)) for r in s.rows]
    out.append(_table(("flows", "queue", "loss %", "delay ms", "pkt/flow", "min_th", "max_th", "max_p", "stability",
                       "GM"), rows))
    out += [f"  (stability: linearized TCP/RED loop at the tc line's weight 2^-{s.tc.ewma_log}; GM its gain margin, "
            f"required {s.stability_margin:g}, --stability-margin)", "",
            f"Stable at {s.n_flows} flows (the tc line's setting):",
            *_stability_lines(s.verdict, s.stability_margin)]
    if s.remedies:
        out += [f"  To meet gain margin {s.stability_margin:g} at {s.n_flows} flows:",
                *_remedy_lines(s.remedies, False)]
    out += _settings_lines(s.tc, s.ns3, s.limitations)
    out[out.index(_TC_TITLE)] = f"Linux tc, FPQ's setting frozen at {s.n_flows} flows " + _TC_TITLE[9:]
    return "\n".join(out)


_RULE_NAMES = {"given": "given buffer", "target-loss": "for the target loss", "target-delay": "for the target delay",
               "bdp": "one BDP (rule of thumb)", "bdp/sqrt(n)": "BDP/sqrt(N) (Appenzeller 2004)"}


def text_droptail(s):
    """The ``tcpmodels droptail`` report.

    Parameters
    ----------
    s : tcpmodels.calculator.DropTailSizing
        The result.

    Returns
    -------
    str
    """
    limited = s.max_window is not None or s.access_rate is not None
    rows = [(_RULE_NAMES[r.rule], f"{r.buffer:.0f}", f"{r.buffer_bytes:.0f}", _num(1000 * r.max_delay),
             f"{100 * r.loss_rate:.3g}", f"{r.queue:.0f}", _num(1000 * r.delay), f"{r.timeouts_per_packet:.2g}",
             f"{r.queue_per_flow:.2f}", r.status)
            + ((f"{r.escaping_window:.0f}" if r.escaping_window else "-", f"{r.jain_index:.2f}") if limited else ())
            for r in s.rules]
    chosen = s.rules[0]
    out = [f"{s.policy} buffer for {s.n_flows} flows on a {_link_line(s.link)}",
           f"Predicted by tcpmodels.droptail.equilibrium, model {s.model}"
           + (" (Eq. 5.6/5.7 as published)" if s.model == "P1" else "") + _limits_words(s)
           + "; three buffer rules side by side:", "",
           _table(("rule", "packets", "bytes", "full ms", "loss %", "queue", "delay ms", "TO/pkt", "pkt/flow",
                   "status") + (("escaper", "Jain") if limited else ()), rows),
           f"  (queue and delay: the average; status: time-outs: loss > {_pct(calculator.MAX_LOSS)} or the model's "
           f"time-out warning; long delay: average delay > {_ms(calculator.MAX_DELAY)}; idle link: one overflow "
           "empties the buffer)"]
    out += _lockout_lines(s) if limited else []
    out += [f"  note: {text}" for text in s.notes]
    out += ["", f"Linux tc for the first row ({chosen.buffer:.0f} packets; pfifo counts packets, bfifo bytes):",
            f"  {s.pfifo}", f"  {s.bfifo}"]
    if s.policy == "random-drop":
        out.append("  note: Linux has no random-drop queue; these lines drop from the tail (Eq. 5.6).")
    return "\n".join(out)


def _limits_words(s):
    """', senders' limits: ...' for the header line, or nothing."""
    parts = ([f"window {s.max_window:g} packets"] if s.max_window is not None else []) + \
        ([f"access links {calculator.tc_rate(s.access_rate)}"] if s.access_rate is not None else [])
    return f" with the senders' limits ({', '.join(parts)})" if parts else ""


def _lockout_lines(s):
    """What the escaper and Jain columns mean, and the first row's escaping flow in words."""
    first = s.rules[0]
    out = ["  (escaper: packets held by the one flow predicted to escape the overflows, drop-tail's lock-out: at "
           "its limit it sends no growth packets, which are what an overflow drops; Jain: the flows' rates' Jain "
           "index that gives, 1 = equal)"]
    if first.escaping_window:
        out.append(f"  lock-out: with the {first.buffer:.0f}-packet buffer one flow escapes the overflows and holds "
                   f"{first.escaping_window:.0f} packets ({_pct(first.escaping_share)} of the packets sent); the other "
                   f"{s.n_flows - 1} share the rest and all the loss: Jain index {first.jain_index:.2f}.")
    else:
        out.append(f"  lock-out: none with the {first.buffer:.0f}-packet buffer (the limits do not stop a flow below "
                   "the storage, or one flow only): the flows share equally.")
    return out


def _link_options(lk):
    """The command-line options that describe `lk`, as the user would type them."""
    return (f"--bandwidth {calculator.tc_rate(lk.bandwidth)} --rtt {1000 * lk.rtt:g}ms "
            f"--packet-size {lk.packet_size:g}b")


def text_example(e):
    """The worked example's report.

    Parameters
    ----------
    e : tcpmodels.calculator.Example
        The example.

    Returns
    -------
    str
    """
    r, d, f = e.red, e.droptail, e.fpq
    need, bdp, root = d.rules
    p = r.prediction
    standard = (r.link.bandwidth, r.link.rtt, r.link.packet_size) == (10e6, 0.1, 576)
    link = _link_options(r.link)
    lines = [
        "tcpmodels worked example: " + ("the thesis' standard link (Morris 1999, Fig. 3.2)" if standard
                                        else "your link (the thesis' standard link is 10mbit, 100ms, 576b)"),
        f"{_link_line(r.link)}; {r.n_flows} long-lived TCP flows.", "",
        f"1. Drop-tail (droptail.equilibrium, {d.model}{_limits_words(d)}): holding loss at {_pct(d.target_loss)} "
        f"takes a {need.buffer:.0f}-packet buffer ({need.queue_per_flow:.1f} per flow, average queue "
        f"{_ms(need.delay)}; {need.status}).",
        f"   One BDP ({bdp.buffer:.0f} packets) gives {_pct(bdp.loss_rate)} loss ({bdp.status}); BDP/sqrt(N) "
        f"({root.buffer:.0f} packets) gives {_pct(root.loss_rate)} ({root.status}).",
        *_example_limits(d, e.droptail_without_limits), "",
        f"2. RED sized for {_pct(r.target_loss)} loss (section 5.3.4"
        + ("; its model has no senders' limits" if e.droptail_without_limits else "") + f"): min_th {r.min_th:g}, "
        f"max_th {r.max_th:g} packets, max_p {r.max_p:.3g}.",
        f"   Predicted (model {r.model}): loss {_pct(p.loss_rate)}, average queue {p.queue:.0f} packets "
        f"({_ms(p.delay)}), {p.queue_per_flow:.1f} packets per flow,",
        f"   {p.timeouts_per_packet:.2g} time-outs per packet, {_pct(p.timeout_fraction)} of the time in time-out.",
        "   " + _range_line(r).strip(),
        f"   Stable (linearized loop, weight 2^-{r.tc.ewma_log}): {_STABLE_WORD[p.stability]}"
        + ("" if p.stability == "no verdict" else f", gain margin {p.gain_margin:.2f}") + ".",
        f"   {r.tc.command}",
        f"   (EWMA weight 2^-{r.tc.ewma_log}: the largest Linux accepts for max {r.tc.max} bytes; "
        "the prediction is for this line.)" if r.tc.burst != (2 * r.tc.min + r.tc.max) // (3 * r.tc.avpkt)
        else f"   (EWMA weight 2^-{r.tc.ewma_log}, from tc-red(8)'s burst guideline.)", "",
        f"3. FPQ (ch. 6) counts the flows and targets a {f.queue:.0f}-packet queue "
        f"({f.queue_per_flow:.0f} per flow, {_ms(f.delay)}) at {_pct(f.loss_rate)} loss,",
        "   moving both with the flow count, which a fixed RED setting cannot do.", "",
        "Next:",
        f"  tcpmodels red {link} --flows {r.n_flows} --loss {r.target_loss:g}",
        f"  tcpmodels fpq {link} --max-flows {4 * r.n_flows}",
        f"  tcpmodels droptail {link} --flows {r.n_flows} --buffer {bdp.buffer:.0f}{_limits_as_options(d)}",
        "  tcpmodels simulate example:standard_red      (tcpmodels example --list: the shipped scenarios)",
        "  tcpmodels --help",
    ]
    return "\n".join(lines)


def _example_limits(d, plain):
    """The worked example's drop-tail buffer with the senders' limits beside the one without them."""
    if plain is None:
        return []
    need, free = d.rules[0], plain.rules[0]
    escape = (f"one flow escapes the overflows and holds {need.escaping_window:.0f} packets "
              f"({_pct(need.escaping_share)} of the packets sent; Jain index {need.jain_index:.2f})"
              if need.escaping_window else "none (no limit stops a flow below the storage)")
    return [f"   Lock-out: {escape}. Without the limits the same loss takes {free.buffer:.0f} packets "
            f"({free.status})."]


def _limits_as_options(d):
    """The command-line options that give `d`'s senders' limits, as the user would type them."""
    return ((f" --max-window {d.max_window:g}p" if d.max_window is not None else "")
            + (f" --access-rate {calculator.tc_rate(d.access_rate)}" if d.access_rate is not None else ""))


# ----------------------------------------------------------------------------- commands


def text_hstcp(t):
    """The ``tcpmodels hstcp`` report.

    Parameters
    ----------
    t : tcpmodels.calculator.HSTCPTable
        The table.

    Returns
    -------
    str
    """
    rows = [(f"{r.window:.{1 if r.window < 100 else 0}f}", f"{r.loss_rate:.3g}", f"{r.a:.3g}", f"{r.b:.3g}")
            for r in t.rows]
    return "\n".join([f"HighSpeed TCP (RFC 3649), a(w) and b(w) as {t.kind}:",
                      "  loss p(w): the response function (Standard TCP's (1.2/w)^2 below ~38 packets)", "",
                      _table(("window", "loss p(w)", "a(w)", "b(w)"), rows)])




def text_simulate(s):
    """The ``tcpmodels simulate`` report: simulated beside predicted.

    Parameters
    ----------
    s : tcpmodels.calculator.Simulation
        The run.

    Returns
    -------
    str
    """
    sc, r, lk, p = s.scenario, s.result, s.link, s.prediction
    settings = ", ".join(f"{k} {v:g}" for k, v in sc.queue.to_dict().items()
                         if isinstance(v, (int, float)) and not isinstance(v, bool))

    width = max(24, len(f"predicted {s.model}") + 1)   # the header "predicted P3 (random-drop)" and a space

    def row(name, value, guess="-", unit=""):
        extra = f"{guess:>{width}}" if s.model else ""
        return f"  {name:<22}{value:>12}{extra}{unit}"

    def predicted(fmt, field):
        return fmt(getattr(p, field)) if p is not None and hasattr(p, field) else "-"

    return "\n".join([
        f"Simulated {calculator.population_words(sc)} through {type(sc.queue).__name__} ({settings})",
        f"on a {_link_line(lk)}{_rtts_words(sc)}; {sc.duration:g} s, measured after {sc.warmup:g} s, seed {sc.seed}.",
        "",
        row("", "simulated", f"predicted {s.model}"),
        *([row("drops + ECN marks", _pct(r.loss_rate), _pct(s.predicted_loss) if s.model else "-"),
            row("ECN marks", _pct(r.mark_rate), predicted(_pct, "mark_rate"))] if getattr(sc.queue, "ecn", False)
          else [row("loss rate", _pct(r.loss_rate), _pct(s.predicted_loss) if s.model else "-")]),
        row("average queue", f"{r.queue:.0f}", predicted("{:.0f}".format, "queue"), "  packets"),
        row("queueing delay", _ms(r.queue / lk.capacity), predicted(lambda q: _ms(q / lk.capacity), "queue")),
        row("utilization", _pct(r.utilization)),
        row("time-outs per packet", f"{r.timeouts_per_packet:.2g}", predicted("{:.2g}".format, "timeouts_per_packet")),
        row("time in time-out", _pct(r.timeout_fraction), predicted(_pct, "timeout_fraction")),
        row("average window", f"{r.window:.1f}", predicted("{:.1f}".format, "window"), "  packets"),
        row("Jain index", f"{r.jain_index:.3f}", predicted("{:.3f}".format, "jain_index")),
        f"  goodput per flow: mean {r.goodput.mean():.1f}, min {r.goodput.min():.1f}, "
        f"max {r.goodput.max():.1f} packets/s", *_escaping_line(s), *_model_line(s)])


def _rtts_words(sc):
    """Where the round trips are given per flow or per group: their range (the link line's round trip is their mean)."""
    if not isinstance(sc.rtt, tuple):
        return ""
    return f" (the mean of the round trips given, {_ms(min(sc.rtt))} to {_ms(max(sc.rtt))})"


def _model_line(s):
    """Why there is no prediction, or what random drop's leaves out."""
    if s.no_prediction:
        return [f"  no prediction: {s.no_prediction}."]
    if s.model != "P3 (random-drop)":
        return []
    held = droptail.POLICIES["random-drop"]
    return [f"  random drop: P3 with Eq. 5.7's {held:g} packets held and without the senders' limits "
            f"({calculator.limits_words(s.scenario)}), which stay above the flows' peak window "
            f"({calculator.PEAK_WINDOW:.3g} x the average above): random drop takes its drops from the queued packets, "
            "so no flow escapes the overflows at its limit (RFC 2309); no packet-level reference checks this model."]


def _escaping_line(s):
    """Drop-tail P3's escaping flow at the scenario's limits, beside the simulator's (phase effect) or none."""
    escaper = getattr(s.prediction, "escaping_window", 0.0)
    if not escaper:
        return []
    simulated = ("the simulator's drop-tail can let one escape too, by its phase in the packet service time (Floyd & "
                 "Jacobson 1992's phase effect): compare the Jain indices above" if s.scenario.queue.phase_effect else
                 "the simulator has no such flow with phase_effect off (its Jain index is its own spread)")
    return [f"  lock-out: P3 predicts one flow escapes the overflows at the senders' limits "
            f"({calculator.limits_words(s.scenario)}) holding {escaper:.0f} packets (the average window above is the "
            f"others'); {simulated}; ns-3's Jain index is 0.38-0.52 on the 10 ms drop-tail reference, 20-200 flows."]


def plot_format(path):
    """The image format ``--plot`` writes to `path` (its suffix; PNG without one), or ``ValueError`` naming it.

    Checked before the run, so that a name that cannot take the figure fails at once, not after it.

    Parameters
    ----------
    path : str
        The image to write.

    Returns
    -------
    str
        A format matplotlib writes: ``"png"``, ``"pdf"``, ``"svg"``, ...
    """
    from matplotlib.backend_bases import FigureCanvasBase

    if not path.strip():
        raise ValueError("--plot: expected a file name for the PNG, got ''")
    if os.path.isdir(path):
        raise ValueError(f"--plot: {path} is a directory; expected a file name for the PNG")
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        raise ValueError(f"--plot: cannot write {path} (no directory {folder})")
    suffix = os.path.splitext(path)[1][1:].lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise ValueError(f"--plot: cannot write a .{suffix} image; expected a name ending in "
                         f"{', '.join('.' + f for f in sorted(formats))} (no suffix: PNG), got {path!r}")
    return suffix or "png"


def plot(simulation, path):
    """Write queue and drop rate over time to an image, PNG by default (matplotlib, imported only here).

    Parameters
    ----------
    simulation : tcpmodels.calculator.Simulation
        A run with a trace.
    path : str
        The image to write, exactly this file (:func:`plot_format`).
    """
    from matplotlib.figure import Figure

    image = io.BytesIO()

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
    fig.savefig(image, format=plot_format(path))
    try:  # (written here, not by savefig, which says nothing when the bytes do not reach the disk: /dev/full)
        with open(path, "wb") as handle:
            handle.write(image.getvalue())
    except OSError as error:
        raise ValueError(f"--plot: cannot write {path} ({error.strerror})") from None


def text_check(simulation):
    """The ``tcpmodels red --check`` lines: the printed setting simulated, beside the prediction.

    Parameters
    ----------
    simulation : tcpmodels.calculator.Simulation
        The run of :func:`tcpmodels.calculator.red_scenario`.

    Returns
    -------
    str
    """
    return "\n".join(["", "Check: the printed setting (thresholds, max_p, weight, limit as in the tc line) "
                           "in the fluid simulator:", text_simulate(simulation)])
