"""Human text of a placement diff: the review summary ``device-explorer diff A B`` prints.

Written to be read in under a minute, most important first: per plan one headline (what moved between
devices, copies added/removed, device memory, new/fixed findings), then the tensors that moved, the
copies that appeared or disappeared, the arenas, the findings, and what the runtime must now provide
(:mod:`.requirements`), marking what is new. Long lists stop after ``limit`` items with ``... and N
more``; every number is also in ``--json``. Tensors read ``%a->%b float32[2,4]`` (value indices in A
and B), or by their name when they have one.
"""

from __future__ import annotations

from explorer.units import nbytes_text
from explorer.analysis.naming import unnumbered
from explorer.analysis.diff.compare import ArenaChange, CopyChange, PlanDiff, ProgramDiff, ValueChange, pair_ident
from explorer.analysis.diff.match import RULES
from explorer.analysis.requirements import DeviceNeed, Requirements, arena_list_text, copy_text

__all__ = ["diff_lines", "plan_diff_lines", "headline", "PAIRED_WARNING"]

PAIRED_WARNING = 0.5  # below this share of tensors paired, the summary warns that the programs look unrelated


def diff_lines(d: ProgramDiff, *, limit: int = 10) -> list[str]:
    """The whole review summary of ``d``."""
    lines = [f"{d.a or 'A'} -> {d.b or 'B'}"]
    if d.plans_only_a:
        lines.append(f"  plans only in A (removed): {', '.join(d.plans_only_a)}")
    if d.plans_only_b:
        lines.append(f"  plans only in B (added): {', '.join(d.plans_only_b)}")
    for f in d.program_findings:
        lines.append(f"  {f.status} finding [{f.finding.code}] program: {f.finding.message}")
    for p in d.plans:
        lines.append("")
        lines.extend(plan_diff_lines(p, limit=limit))
    if not d.plans:
        lines.append("  no plan in common")
    return lines


def headline(p: PlanDiff) -> str:
    """One line: moves between devices, copies, device memory, findings."""
    parts = []
    moved = [v for v in p.values if v.status == "device"]  # computed tensors and copy targets alike
    if moved:
        routes: dict[str, int] = {}
        for v in moved:
            key = f"{v.a.device} -> {v.b.device}"  # type: ignore[union-attr]
            routes[key] = routes.get(key, 0) + 1
        computed = sum(1 for v in moved if v.kind == "value")
        split = f"; {computed} computed, {len(moved) - computed} copy target{_s(len(moved) - computed)}" \
            if computed != len(moved) else ""
        parts.append(f"{len(moved)} tensor{_s(len(moved))} moved (" + ", ".join(f"{n} {r}" for r, n in routes.items())
                     + split + ")")
    else:
        parts.append("no tensor moved between devices")
    added = [c for c in p.copies if c.status == "added"]
    removed = [c for c in p.copies if c.status == "removed"]
    retargeted = sum(1 for c in p.copies if c.status == "device")
    if added or removed:
        delta = sum(c.b.nbytes or 0 for c in added if c.b) - sum(c.a.nbytes or 0 for c in removed if c.a)
        parts.append(f"copies +{len(added)} -{len(removed)} ({_signed(delta)} per run)")
    if retargeted:
        parts.append(f"{retargeted} cop{'ies' if retargeted != 1 else 'y'} now to/from another device")
    if not (added or removed or retargeted):
        parts.append("copies unchanged")
    dev_a = sum(x.arena_bytes for x in p.requirements_a.devices if not x.device.is_cpu)
    dev_b = sum(x.arena_bytes for x in p.requirements_b.devices if not x.device.is_cpu)
    if dev_a != dev_b:
        parts.append(f"device arenas {nbytes_text(dev_a)} -> {nbytes_text(dev_b)}")
    new = sum(1 for f in p.findings if f.status == "new")
    fixed = sum(1 for f in p.findings if f.status == "fixed")
    parts.append(f"findings {new} new, {fixed} fixed")
    return f"plan {p.plan!r}: " + "; ".join(parts)


def plan_diff_lines(p: PlanDiff, *, limit: int = 10) -> list[str]:
    lines = [headline(p), "  " + _matching_text(p)]
    values = [v for v in p.values if v.kind == "value"]
    moved = [v for v in values if v.status == "device"]
    targets = sum(1 for v in p.values if v.status == "device" and v.kind != "value")
    if moved or targets:  # the headline's count, split the same way: copy targets are listed with their copies
        split = (f": {len(moved)} computed, listed here; {targets} copy target{_s(targets)}, under copies changed"
                 if targets else "")
        lines.append(f"  moved between devices ({len(moved) + targets}{split}):")
        lines.extend(_limited([f"    {_pair_label(v)}: {v.a.device} -> {v.b.device}{_where(v)}"  # type: ignore[union-attr]
                               for v in moved], limit, "    "))
    other = [v for v in values if v.status in ("shape", "arena", "added", "removed")]
    if other:
        lines.append(f"  other tensor changes ({len(other)}):")
        lines.extend(_limited([f"    {v.status:<8} {_pair_label(v)}{_detail(v)}" for v in other], limit, "    "))
    counts = p.counts["values"]
    kept = counts["offset"] + counts["same"]
    if kept:
        lines.append(f"  {kept} tensor{_s(kept)} kept their device and arena"
                     + (f" ({counts['offset']} at another offset)" if counts["offset"] else ""))
    lines.extend(_copy_lines(p, limit))
    lines.extend(_arena_lines(p.arenas))
    if p.findings:
        lines.append("  findings:")
        alike: dict[tuple[str, str, str], list] = {}
        for f in p.findings:  # the same problem at many places: one line with a count
            alike.setdefault((f.status, f.finding.code, unnumbered(f.finding.message)), []).append(f)
        lines.extend(_limited([f"    {status:<5} [{code}] " + (f"{len(group)} alike, the first: " if len(group) > 1 else "")
                               + group[0].finding.message for (status, code, _), group in alike.items()],
                              limit, "    "))
    lines.extend(_requirement_lines(p.requirements_a, p.requirements_b))
    return lines


# PRIVATE

def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _signed(n: int) -> str:
    return ("+" if n >= 0 else "-") + nbytes_text(abs(n))


def _limited(items: list[str], limit: int, indent: str) -> list[str]:
    if len(items) <= limit:
        return items
    return items[:limit] + [f"{indent}... and {len(items) - limit} more"]


def _matching_text(p: PlanDiff) -> str:
    m = p.matching
    total = sum(m[r] for r in RULES)
    rules = ", ".join(f"{m[r]} by {r}" for r in RULES if m[r])
    text = f"paired {total} tensors ({rules or 'none'})"
    if m["ambiguous"]:
        text += f"; {m['ambiguous']} ambiguous (chosen among equal candidates)"
    if m["op-occurrence"]:
        text += f"; {m['op-occurrence']} paired only by op and position: check those"
    text += f"; only in A: {m['unmatched_a']}, only in B: {m['unmatched_b']}"
    # over what can pair: at most the smaller side's tensors (a what-if's new copies have no twin in A, and all
    # of A paired means the same program)
    can = min(total + m["unmatched_a"], total + m["unmatched_b"])
    if can and total / can < PAIRED_WARNING:
        text += (f"\n  warning: only {100 * total / can:.0f}% of the tensors could be paired: these look like "
                 f"different programs, so the changes below mean little")
    return text


def _ident(v: ValueChange) -> str:
    a, b = v.a, v.b
    return pair_ident(a and a.index, a and a.label, b and b.index, b and b.label)


def _pair_label(v: ValueChange) -> str:
    """``%5->%11 float32[2,4]``, with ``(output 0)`` when the tensor is a plan input or output."""
    side = v.b or v.a
    role = f" ({side.role})" if side.role else ""  # type: ignore[union-attr]
    return f"{_ident(v)} {side.dtype}[{','.join(map(str, side.sizes))}]{role}"  # type: ignore[union-attr]


def _arena_at(side) -> str:
    return f"#{side.memory_id}@{side.offset}" if side.memory_id is not None else side.storage


def _where(v: ValueChange) -> str:
    a, b = v.a, v.b
    bits = [f"arena {_arena_at(a)} -> {_arena_at(b)}"]  # type: ignore[arg-type]
    if a.producer != b.producer:  # type: ignore[union-attr]
        bits.append(f"{a.producer or 'no writer'} -> {b.producer or 'no writer'}")  # type: ignore[union-attr]
    elif b.producer:  # type: ignore[union-attr]
        bits.append(f"written by {b.producer}")  # type: ignore[union-attr]
    if v.ambiguous:
        bits.append("ambiguous pairing")
    return ", " + ", ".join(bits)


def _detail(v: ValueChange) -> str:
    a, b = v.a, v.b
    if a and b:
        bits = []
        if "dtype" in v.changes or "sizes" in v.changes:
            bits.append(f"{a.dtype}[{','.join(map(str, a.sizes))}] -> {b.dtype}[{','.join(map(str, b.sizes))}]")
        if "arena" in v.changes or "storage" in v.changes:
            bits.append(f"{_arena_at(a)} -> {_arena_at(b)}")
        return "  " + ", ".join(bits)
    side = a or b
    where = f" on {side.device}, {_arena_at(side)}"  # type: ignore[union-attr]
    return where + (f", written by {side.producer}" if side.producer else "")  # type: ignore[union-attr]


def _copy_lines(p: PlanDiff, limit: int) -> list[str]:
    lines = []
    if p.transfers:
        parts = []
        for t in p.transfers:
            if (t.count_a, t.bytes_a) == (t.count_b, t.bytes_b):
                parts.append(f"{t.src_device}->{t.dst_device} {t.count_b} ({nbytes_text(t.bytes_b)}, unchanged)")
            else:
                parts.append(f"{t.src_device}->{t.dst_device} {t.count_a} -> {t.count_b} "
                             f"({nbytes_text(t.bytes_a)} -> {nbytes_text(t.bytes_b)})")
        lines.append("  transfers per run: " + ", ".join(parts))
    groups: dict[tuple, list[CopyChange]] = {}
    for c in p.copies:
        if c.status != "same":
            side = c.b or c.a
            route = (side.src_device, side.dst_device)  # type: ignore[union-attr]
            old = (c.a.src_device, c.a.dst_device) if c.status == "device" else None  # type: ignore[union-attr]
            groups.setdefault((c.status, c.direction, c.of_a, c.of_b, route, old), []).append(c)
    if groups:
        n = sum(len(g) for g in groups.values())
        lines.append(f"  copies changed ({n}):")
        lines.extend(_limited([f"    {_copy_text(g)}" for g in groups.values()], limit, "    "))
    return lines


def _copy_text(group: list[CopyChange]) -> str:
    c = group[0]
    mark = {"added": "+", "removed": "-", "device": "~"}.get(c.status, " ")
    side = c.b or c.a
    where = f"{side.src_device} -> {side.dst_device}"  # type: ignore[union-attr]
    if c.status == "device":
        where = f"now {where} (was {c.a.src_device} -> {c.a.dst_device})"  # type: ignore[union-attr]
    which = "B" if c.b else "A"
    count = f"{len(group)} x " if len(group) > 1 else ""
    at = ", ".join(str((x.b or x.a).instruction) for x in group)  # type: ignore[union-attr]
    return (f"{mark} {c.direction} of {c.of}: {where}, {count}{nbytes_text(side.nbytes or 0)} "  # type: ignore[union-attr]
            f"(instruction{'s' if len(group) > 1 else ''} {at} in {which})")


def _arena_lines(arenas: tuple[ArenaChange, ...]) -> list[str]:
    lines = ["  arenas:"]
    for x in arenas:
        a, b = x.a, x.b
        if a and b:
            ids = f"#{a.memory_id}" if a.memory_id == b.memory_id else f"#{a.memory_id}->#{b.memory_id}"
            dev = str(b.device) if a.device == b.device else f"{a.device} -> {b.device}"
            size = nbytes_text(b.size) if a.size == b.size else \
                f"{nbytes_text(a.size)} -> {nbytes_text(b.size)} ({_signed(b.size - a.size)})"
            peak = f"peak live {nbytes_text(a.peak_live_bytes)} -> {nbytes_text(b.peak_live_bytes)}"
            lines.append(f"    {x.status:<8} {ids} {dev} {size}, {peak}")
        else:
            s = a or b
            lines.append(f"    {x.status:<8} #{s.memory_id} {s.device} {nbytes_text(s.size)}, "  # type: ignore[union-attr]
                         f"peak live {nbytes_text(s.peak_live_bytes)}, {s.tensors} tensors")  # type: ignore[union-attr]
    return lines if arenas else ["  arenas: none on either side"]


def _need_text(d: DeviceNeed) -> str:
    arenas = arena_list_text(d.arenas) or "no arenas"
    served = copy_text(d)
    return arenas + (f"; serves {served}" if served else "")


def _requirement_lines(ra: Requirements, rb: Requirements) -> list[str]:
    """B's requirements, each device marked new (+), changed (~, with A's numbers) or gone (-)."""
    lines = ["  runtime must now provide:"]
    before = {d.device: d for d in ra.devices}
    after = {d.device: d for d in rb.devices}
    for dev in sorted(set(before) | set(after)):
        a, b = before.get(dev), after.get(dev)
        who = "MemoryManager planned buffers" if dev.is_cpu else \
            f"DeviceAllocator for device type {dev.type} ({dev.kind}) index {dev.index}"
        if b is None:
            lines.append(f"    - {dev}: no longer needed ({who}: {_need_text(a)})")  # type: ignore[arg-type]
        elif a is None:
            lines.append(f"    + {dev}: {who}: {_need_text(b)}")
        elif _need_text(a) != _need_text(b):
            lines.append(f"    ~ {dev}: {who}: {_need_text(b)} (was {_need_text(a)})")
        else:
            lines.append(f"      {dev}: {who}: {_need_text(b)} (unchanged)")
    regs_a = {x.device_type: x for x in ra.allocators}
    regs_b = {x.device_type: x for x in rb.allocators}
    for t in sorted(set(regs_a) | set(regs_b)):
        x, y = regs_a.get(t), regs_b.get(t)
        if y is None:
            lines.append(f"    - register: DeviceAllocator for {x.kind} (device type {t}) no longer needed")  # type: ignore[union-attr]
        elif x is None:
            lines.append(f"    + register: DeviceAllocator for {y.kind} (device type {t}), called with index "
                         f"{', '.join(map(str, y.indices))}")
        elif x.indices != y.indices:
            lines.append(f"    ~ register: DeviceAllocator for {y.kind} (device type {t}) still needed, now called "
                         f"with index {', '.join(map(str, y.indices))} (was {', '.join(map(str, x.indices))})")
    for label, xa, xb in (("kernels", ra.copy_kernels, rb.copy_kernels), ("backends", ra.backends, rb.backends)):
        plus, minus = sorted(set(xb) - set(xa)), sorted(set(xa) - set(xb))
        if plus:
            lines.append(f"    + {label}: {', '.join(plus)}")
        if minus:
            lines.append(f"    - {label}: {', '.join(minus)} (no longer needed)")
    lines.extend(f"    note: {n}" for n in rb.notes if n not in ra.notes)
    lines.extend(f"    PROBLEM: {x}" for x in rb.problems)
    return lines
