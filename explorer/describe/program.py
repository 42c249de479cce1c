"""Human text of findings and of the per-device summary for ``inspect``.

Values and instructions are named by :mod:`explorer.analysis.naming` (the checks' messages use the same
names), sizes and counts by :mod:`explorer.units` (the one formatter, the browser's twin checked on one table).

For ``device-explorer inspect`` the lead's CLI calls :func:`device_summary_lines`.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from explorer.analysis.naming import unnumbered
from explorer.model.program import Program
from explorer.units import count_text, nbytes_text
from explorer.analysis.types import Finding, PlanAnalysis

__all__ = ["finding_lines", "device_summary_lines", "grouped", "SEVERITIES"]

SEVERITIES = ("error", "warning", "info")  # display order


def grouped(lines: Iterable[str]) -> list[str]:
    """Consecutive identical lines once, with ``(×N)`` appended: a list of 200 equal items reads as one."""
    out: list[str] = []
    last, count = None, 0
    for line in lines:
        if line == last:
            count += 1
            continue
        if last is not None:
            out.append(last if count == 1 else f"{last}  (×{count})")
        last, count = line, 1
    if last is not None:
        out.append(last if count == 1 else f"{last}  (×{count})")
    return out


def finding_lines(findings: Iterable[Finding], *, file: str | None = None) -> list[str]:
    """The human form of ``device-explorer check``: a headline, then findings grouped by severity.

    Within a group, findings keep their order (plan, then check); each line starts with its code and
    plan so it can be grepped. Findings of one code and plan that say the same thing up to value and
    instruction numbers are printed once, with how many there are and their instructions, so one
    problem repeated at 8 places is one line.
    """
    items = list(findings)
    counts = {s: sum(1 for f in items if f.severity == s) for s in SEVERITIES}
    head = f"{file}: " if file else ""
    summary = ", ".join(f"{counts[s]} {s}{'' if counts[s] == 1 else 's'}" for s in SEVERITIES)
    if not items:
        return [f"{head}no findings (0 errors, 0 warnings)"]
    lines = [f"{head}{summary}"]
    for severity in SEVERITIES:
        group = [f for f in items if f.severity == severity]
        if not group:
            continue
        lines.append("")
        lines.append(f"{severity.upper()}S ({len(group)})")
        same: dict[tuple[str, str, str], list[Finding]] = {}
        for f in group:
            same.setdefault((f.code, f.plan, unnumbered(f.message)), []).append(f)
        for (code, plan_name, _), alike in same.items():
            where = f"plan {plan_name!r}" if plan_name else "program"
            f = alike[0]
            if len(alike) == 1:
                lines.append(f"  [{code}] {where}: {f.message}")
                continue
            at = sorted({i for g in alike for i in g.instructions})
            shown = ", ".join(map(str, at[:12])) + (f" and {len(at) - 12} more" if len(at) > 12 else "")
            places = f" (instructions {shown})" if at else ""
            lines.append(f"  [{code}] {where}: {len(alike)} alike{places}, the first: {f.message}")
    return lines


def device_summary_lines(program: Program, analyses: Mapping[str, PlanAnalysis],
                         *, plan: str | None = None, indent: str = "  ") -> list[str]:
    """Per plan, per device: tensors, arena/planned/constant bytes, peak live bytes, transfers in/out;
    then transfers per device pair, from ``analyses`` (:func:`explorer.analysis.analyze_program`: the caller
    runs the analysis, this module only words it); ``plan`` restricts the output to one plan."""
    lines: list[str] = []
    # one plan looked up by name, not found by walking them all: inspect asks once per plan (3,500 plans: O(n^2))
    named = program.plan_by_name
    for p in program.plans if plan is None else ([named[plan]] if plan in named else []):
        result = analyses.get(p.name)
        if result is None:
            continue
        lines.append(f"plan {p.name!r} per device:")
        # a LazyAnalysis counts the totals on columns, without the memory map's record per arena
        totals = getattr(result, "device_totals", None)
        for d in (totals if totals is not None else result.memory.devices):
            util = f" ({100 * d.peak_live_bytes / d.arena_bytes:.0f}% of arenas)" if d.arena_bytes else ""
            moved = ""
            if d.transfers_in or d.transfers_out:
                moved = (f"  copies in {count_text(d.transfers_in)} ({nbytes_text(d.bytes_in)})"
                         f" out {count_text(d.transfers_out)} ({nbytes_text(d.bytes_out)})")
            lines.append(f"{indent}{str(d.device):<10} {count_text(d.tensors):>6} tensors  arenas {nbytes_text(d.arena_bytes):>9}"
                         f"  planned (all tensors, all lifetimes) {nbytes_text(d.planned_bytes):>9}"
                         f"  constant {nbytes_text(d.constant_bytes):>9}"
                         f"  peak live {nbytes_text(d.peak_live_bytes):>9}{util}{moved}")
        crossing = [t for t in result.transfer_totals if t.src_device != t.dst_device]
        same = [t for t in result.transfer_totals if t.src_device == t.dst_device]
        if crossing or same:
            parts = [f"{t.src_device}->{t.dst_device} {count_text(t.count)} ({nbytes_text(t.nbytes)})" for t in crossing]
            parts += [f"within {t.src_device} {count_text(t.count)} ({nbytes_text(t.nbytes)})" for t in same]
            lines.append(f"{indent}transfers: " + ", ".join(parts))
        else:
            lines.append(f"{indent}transfers: none")
    return lines
