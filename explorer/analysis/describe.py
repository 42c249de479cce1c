"""Human text: how values, instructions and findings read, and the per-device summary for ``inspect``.

Everything a person reads about a program goes through here, so the CLI, the widget's details panel
and the checks' messages name things the same way: a tensor is its fully-qualified name when the file
has one, else ``%index``, followed by dtype and shape (``%12 (float32[2,2])``,
``linear.weight (%3, float32[4,4])``); an instruction is its op or delegate and its run-order index
(``aten::add.out (instruction 3)``).

For ``device-explorer inspect`` the lead's CLI calls :func:`device_summary_lines`.
"""

from __future__ import annotations

import re

from typing import Iterable, Mapping

from ..model import Plan, Program, Tensor
from .types import Finding, PlanAnalysis

__all__ = ["count", "value_text", "values_text", "instruction_text", "nbytes_text", "finding_lines",
           "device_summary_lines", "grouped", "unnumbered", "SEVERITIES"]

SEVERITIES = ("error", "warning", "info")  # display order


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 value``, ``2 values``, ``1,024 entries`` (``plural`` when adding an s is wrong): every count a
    person reads, so a plan with one value never says "1 values"."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def nbytes_text(n: int) -> str:
    """``48 B``, ``1.5 KiB``, ``3.0 MiB``..."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def value_text(plan: Plan, index: int) -> str:
    """``%12 (float32[2,2])``, ``mod.w (%3, float32[4])``, ``%5 (Int)``; says so when it points nowhere."""
    value = plan.value(index)
    if value is None:
        return f"%{index} (no such value)"
    if isinstance(value, Tensor):
        shape = f"{value.dtype}[{','.join(str(s) for s in value.sizes)}]"
        return f"{value.name} (%{index}, {shape})" if value.name else f"%{index} ({shape})"
    return f"%{index} ({value.type})"


def values_text(plan: Plan, indices: Iterable[int], limit: int = 4) -> str:
    """A short list of values: the first ``limit`` then ``and N more``."""
    items = list(dict.fromkeys(indices))
    shown = ", ".join(value_text(plan, v) for v in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def instruction_text(plan: Plan, index: int) -> str:
    """``aten::add.out (instruction 3)``, ``delegate XnnpackBackend (instruction 0)``."""
    if not 0 <= index < len(plan.instructions):
        return f"instruction {index} (no such instruction)"
    instr = plan.instructions[index]
    if instr.kind == "DelegateCall":
        target = None
        if instr.delegate_index is not None and 0 <= instr.delegate_index < len(plan.delegates):
            target = plan.delegates[instr.delegate_index].target_device
        where = f" targeting {target}" if target else ""
        return f"delegate {instr.label}{where} (instruction {index})"
    return f"{instr.label} (instruction {index})"


_NUMBERS = re.compile(r"%\d+|\b(instructions?|delegates?) [\d, .]*\d")


def unnumbered(message: str) -> str:
    """A message without value, instruction and delegate numbers: what stays the same when a program
    is renumbered, or when one problem repeats at many places."""
    return _NUMBERS.sub(lambda x: x.group(1) or "%", message)


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


def device_summary_lines(program: Program, analyses: Mapping[str, PlanAnalysis] | None = None,
                         *, plan: str | None = None, indent: str = "  ") -> list[str]:
    """Per plan, per device: tensors, arena/planned/constant bytes, peak live bytes, transfers in/out;
    then transfers per device pair. Pass ``analyses`` from :func:`explorer.analysis.analyze_program`
    to avoid recomputing; ``plan`` restricts the output to one plan."""
    if analyses is None:
        from . import analyze_program
        analyses = analyze_program(program)
    lines: list[str] = []
    for p in program.plans:
        if plan is not None and p.name != plan:
            continue
        result = analyses.get(p.name)
        if result is None:
            continue
        lines.append(f"plan {p.name!r} per device:")
        for d in result.memory.devices:
            util = f" ({100 * d.peak_live_bytes / d.arena_bytes:.0f}% of arenas)" if d.arena_bytes else ""
            moved = ""
            if d.transfers_in or d.transfers_out:
                moved = (f"  copies in {d.transfers_in} ({nbytes_text(d.bytes_in)})"
                         f" out {d.transfers_out} ({nbytes_text(d.bytes_out)})")
            lines.append(f"{indent}{str(d.device):<10} {d.tensors:>6} tensors  arenas {nbytes_text(d.arena_bytes):>9}"
                         f"  planned (all tensors, all lifetimes) {nbytes_text(d.planned_bytes):>9}"
                         f"  constant {nbytes_text(d.constant_bytes):>9}"
                         f"  peak live {nbytes_text(d.peak_live_bytes):>9}{util}{moved}")
        crossing = [t for t in result.transfer_totals if t.src_device != t.dst_device]
        same = [t for t in result.transfer_totals if t.src_device == t.dst_device]
        if crossing or same:
            parts = [f"{t.src_device}->{t.dst_device} {t.count} ({nbytes_text(t.nbytes)})" for t in crossing]
            parts += [f"within {t.src_device} {t.count} ({nbytes_text(t.nbytes)})" for t in same]
            lines.append(f"{indent}transfers: " + ", ".join(parts))
        else:
            lines.append(f"{indent}transfers: none")
    return lines
