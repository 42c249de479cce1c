"""``payload["numerics"]``: per plan, what each instruction produced in the run (and, compared, in B and the gap),
as rows of text the app's details show, and the first divergence the "first divergence" control selects.

::

    {"tol": 1e-4, "against": "b.pte" or null,
     "plans": {plan: {"rows": {instruction: [[label, text], ...]}, "first": instruction or null,
                      "firstB": B's instruction or null, "firstText": text}}}

The texts are made here once, in the CLI's words (:mod:`explorer.describe.numerics`), and travel as plain text:
the app writes them with ``textContent``/``esc`` (names from the file never become markup).
"""

from __future__ import annotations

from explorer.model.numerics import PlanComparison, PlanNumerics
from explorer.analysis.numerics.load import NumericsReport
from explorer.describe.numerics import gap_text, stats_text
from explorer.safe_text import visible

__all__ = ["numerics_payload"]


def _rows(pa: PlanNumerics, pb: PlanNumerics | None, pc: PlanComparison | None) -> dict[str, list[list[str]]]:
    rows: dict[str, list[list[str]]] = {}
    for ins in pa.instructions:
        r = rows.setdefault(str(ins.instruction), [])
        for k, o in enumerate(ins.outputs):
            r.append([f"output {k}" if pa is not None else "output", visible(stats_text(o))])
            if o.stats.first:
                r.append(["first values", ", ".join(f"{v:.4g}" for v in o.stats.first)])
    if pc is not None and pb is not None:
        for p in pc.pairs:
            r = rows.setdefault(str(p.a_instruction), [])
            yb = pb.at(p.b_instruction)
            if yb is not None:
                for k, o in enumerate(yb.outputs):
                    r.append([f"B #{p.b_instruction} output {k}", visible(stats_text(o))])
            r.append(["gap vs B", visible(gap_text(p.gap)) + (" (diverges here)" if p.a_instruction ==
                                                               pc.first_divergence.a_instruction else "")])
            for i in p.folded:
                rows.setdefault(str(i), []).append(["gap vs B", f"inside B #{p.b_instruction}'s delegate: compared "
                                                                f"through A #{p.a_instruction}"])
    return rows


def numerics_payload(report: NumericsReport) -> dict:
    a, b, cmp = report.a, report.b, report.comparison
    plans = {}
    for name, pa in a.numerics.plans.items():
        pc = cmp.plan(name) if cmp is not None else None
        pb = b.numerics.plan(name) if b is not None else None
        fd = pc.first_divergence if pc is not None else None
        first_text = None
        if fd is not None:
            first_text = (f"first divergence: #{fd.a_instruction} (B #{fd.b_instruction})" if fd.a_instruction is not None
                          else f"no divergence above {fd.tol:g}")
        plans[name] = {"rows": _rows(pa, pb, pc), "first": fd.a_instruction if fd else None,
                       "firstB": fd.b_instruction if fd else None, "firstText": first_text}
    return {"tol": report.tol, "against": visible(b.name) if b is not None and b.name else None, "plans": plans}
