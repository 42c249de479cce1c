"""``payload["numerics"]``: per plan, what each instruction produced in the run (and, compared, in B and the gap),
as rows of text the app's details show, and the first divergence the "first divergence" control selects.

::

    {"tol": 1e-4, "against": "b.pte" or null,
     "plans": {plan: {"rows": {instruction: [[label, text, mark], ...]}, "values": {value: [[label, text, mark]]},
                      "rowsB": {...} or null, "valuesB": {...} or null,
                      "first": instruction or null, "firstB": B's instruction or null, "firstText": text or null}}}

``rows``/``values`` are A's (the run of the program shown; compared, each paired instruction also gets B's outputs
and the gap), ``rowsB``/``valuesB`` B's own (the diff view's right side). ``mark`` is ``""``, ``"bad"`` (NaN/Inf in
it, or runs that part by more than the tolerance) or ``"first"`` (the first divergence). The texts are made here
once, in the CLI's words (:mod:`explorer.describe.numerics`), and travel as plain text: the app escapes them
(names from the file never become markup).
"""

from __future__ import annotations

from explorer.model.numerics import LoggedOutput, PlanComparison, PlanNumerics
from explorer.analysis.numerics.load import NumericsReport
from explorer.describe.numerics import gap_text, stats_text
from explorer.safe_text import visible

__all__ = ["numerics_payload", "numerics_shown"]

Rows = dict[str, list[list[str]]]


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"


def output_rows(o: LoggedOutput, label: str) -> list[list[str]]:
    """One logged output as details rows: what it is and where, its finite range, its NaN/±Inf counts, its first
    values."""
    s = o.stats
    head = f"{s.dtype}[{', '.join(map(str, s.shape))}] on {o.device}"
    rows = [[label + (f" · %{o.value}" if o.value is not None else ""), visible(head), ""]]
    if not s.readable:
        rows.append(["values", "no numbers for this dtype", ""])
        return rows
    rows.append(["min / max / mean", f"{_g(s.min)} / {_g(s.max)} / {_g(s.mean)}"
                 + ("  (finite values)" if s.nonfinite else ""), ""])
    rows.append(["NaN / +Inf / \u2212Inf", f"{s.nan} / {s.posinf} / {s.neginf}" + (f" of {s.numel}" if s.nonfinite else ""),
                 "bad" if s.nonfinite else ""])
    if s.first:
        rows.append(["first values", ", ".join(f"{v:.4g}" for v in s.first), ""])
    return rows


def _own_rows(pn: PlanNumerics) -> tuple[Rows, Rows]:
    rows: Rows = {}
    values: Rows = {}
    for ins in pn.instructions:
        r = rows.setdefault(str(ins.instruction), [])
        for k, o in enumerate(ins.outputs):
            r.extend(output_rows(o, f"output {k}"))
            if o.value is not None:  # the tensor's own details: what its writer left in it
                values.setdefault(str(o.value), []).extend(output_rows(o, f"written by #{ins.instruction}"))
    return rows, values


def _gap_rows(pc: PlanComparison, pb: PlanNumerics, rows: Rows, rows_b: Rows) -> None:
    first = pc.first_divergence.a_instruction
    tol = pc.first_divergence.tol
    for p in pc.pairs:
        mark = "first" if p.a_instruction == first else ("bad" if p.gap.exceeds(tol) else "")
        note = " \u2014 first divergence" if p.a_instruction == first else ""
        yb = pb.at(p.b_instruction)
        r = rows.setdefault(str(p.a_instruction), [])
        if yb is not None:
            for k, o in enumerate(yb.outputs):
                r.append([f"B #{p.b_instruction} output {k}", visible(stats_text(o)), ""])
        r.append([f"gap vs B #{p.b_instruction}", visible(gap_text(p.gap)) + note, mark])
        rows_b.setdefault(str(p.b_instruction), []).append([f"gap vs A #{p.a_instruction}", visible(gap_text(p.gap)) + note,
                                                            mark])
        for i in p.folded:
            rows.setdefault(str(i), []).append(["gap vs B", f"inside B #{p.b_instruction}'s delegate: compared "
                                                            f"through A #{p.a_instruction}", ""])


def numerics_payload(report: NumericsReport) -> dict:
    a, b, cmp = report.a, report.b, report.comparison
    plans = {}
    for name, pa in a.numerics.plans.items():
        pc = cmp.plan(name) if cmp is not None else None
        pb = b.numerics.plan(name) if b is not None else None
        fd = pc.first_divergence if pc is not None else None
        rows, values = _own_rows(pa)
        rows_b = values_b = None
        if pb is not None:
            rows_b, values_b = _own_rows(pb)
        if pc is not None and pb is not None and rows_b is not None:
            _gap_rows(pc, pb, rows, rows_b)
        first_text = None
        if fd is not None:
            first_text = (f"first divergence: #{fd.a_instruction} (B #{fd.b_instruction})" if fd.a_instruction is not None
                          else f"no divergence above {fd.tol:g}")
        plans[name] = {"rows": rows, "values": values, "rowsB": rows_b, "valuesB": values_b,
                       "first": fd.a_instruction if fd else None, "firstB": fd.b_instruction if fd else None,
                       "firstText": first_text}
    return {"tol": report.tol, "against": visible(b.name) if b is not None and b.name else None, "plans": plans}


def numerics_shown(report: NumericsReport, plan: str | None = None) -> str | None:
    """The overlay a numbers report opens with: ``gap`` when compared, else ``output_range`` (None: no numbers)."""
    pn = report.a.numerics.plan(plan) if plan else next(iter(report.a.numerics.plans.values()), None)
    pc = report.comparison.plan(pn.plan) if report.comparison is not None and pn is not None else None
    if pc is not None and any(p.gap.comparable and p.gap.relative is not None for p in pc.pairs):
        return "gap"
    return "output_range" if pn is not None and pn.instructions else None
