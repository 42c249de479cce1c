"""The words of ``device-explorer numerics``: per instruction what it produced, and, compared, where two runs part."""

from __future__ import annotations

from explorer.model.numerics import Gap, LoggedOutput, PlanComparison, PlanNumerics
from explorer.analysis.numerics.load import NumericsReport

__all__ = ["numerics_lines", "stats_text", "gap_text"]


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"


def stats_text(o: LoggedOutput) -> str:
    """``float32[2, 8] on cpu  min -0.84 max 0.9 mean 0.012  2 NaN 1 +Inf``"""
    s = o.stats
    head = f"{s.dtype}[{', '.join(map(str, s.shape))}] on {o.device}"
    if not s.readable:
        return f"{head}  (no numbers for this dtype)"
    bad = " ".join(f"{n} {w}" for n, w in ((s.nan, "NaN"), (s.posinf, "+Inf"), (s.neginf, "-Inf")) if n)
    return f"{head}  min {_g(s.min)} max {_g(s.max)} mean {_g(s.mean)}" + (f"  {bad}" if bad else "")


def gap_text(g: Gap) -> str:
    if not g.comparable:
        return f"not compared: {g.why}"
    snr = "-" if g.snr_db is None else ("inf" if g.snr_db == float("inf") else f"{g.snr_db:.1f}")
    bad = f"  {g.nonfinite_mismatch} non-finite mismatch(es)" if g.nonfinite_mismatch else ""
    return f"max|a-b| {_g(g.max_abs)}  mse {_g(g.mse)}  cos {_g(g.cosine)}  snr {snr} dB{bad}"


def _plan_lines(p: PlanNumerics, label) -> list[str]:
    lines = [f"plan {p.plan!r}: run block {p.run} ({p.runs} run(s) of this plan; the first is shown)"]
    for ins in p.instructions:
        for k, o in enumerate(ins.outputs):
            lead = f"  #{ins.instruction:<4} {label(ins):<28}" if k == 0 else " " * 36
            lines.append(f"{lead} {'%' + str(o.value) if o.value is not None else '':>6} {stats_text(o)}")
    for k, o in enumerate(p.outputs):
        lines.append(f"  output {k:<27} {'%' + str(o.value) if o.value is not None else '':>6} {stats_text(o)}")
    return lines


def _compare_lines(c: PlanComparison) -> list[str]:
    lines = [f"compared with B (plan {c.plan!r}), paired by {c.pairing.replace('_', ' ')}:"]
    lines += [f"  note: {n}" for n in c.notes]
    for p in c.pairs:
        fold = f" (holds A #{', #'.join(map(str, p.folded))})" if p.folded else ""
        dev = f" [{p.a_device} vs {p.b_device}]" if p.a_device != p.b_device else ""
        lines.append(f"  A #{p.a_instruction:<4} B #{p.b_instruction:<4}{dev} {gap_text(p.gap)}{fold}")
    if c.output_gap is not None:
        lines.append(f"  program outputs: {gap_text(c.output_gap)}")
    fd = c.first_divergence
    if fd.a_instruction is None:
        lines.append(f"  no divergence: every pair within tol {fd.tol:g} (max|a-b| / max(1, max|a|))")
    else:
        rel = fd.gap.relative if fd.gap is not None else None
        lines.append(f"  first divergence: A #{fd.a_instruction} / B #{fd.b_instruction} "
                     f"(max|a-b| / max(1, max|a|) = {_g(rel)} > tol {fd.tol:g})")
    return lines


def numerics_lines(report: NumericsReport, plan: str | None = None) -> list[str]:
    a = report.a
    lines: list[str] = []
    for side, run in (("A", a), ("B", report.b)):
        if run is None:
            continue
        n = run.numerics

        def label(ins) -> str:
            return ins.name or "?"
        title = f"{side if report.b is not None else ''}{': ' if report.b is not None else ''}"
        lines.append(f"{title}{run.name or 'program'} with {n.etdump or 'ETDump'} + {n.debug_buffer or 'debug buffer'} "
                     f"({n.buffer_size} bytes)")
        for name, p in n.plans.items():
            if plan is None or name == plan:
                lines += _plan_lines(p, label)
        for f in n.findings:
            if plan is None or f.plan in ("", plan):
                lines.append(f"  [{f.code}] {f.message}")
    if report.comparison is not None:
        for name, c in report.comparison.plans.items():
            if plan is None or name == plan:
                lines += _compare_lines(c)
    return lines
