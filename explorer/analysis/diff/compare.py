"""Placement diff of two programs: what moved between devices, what it costs, what the runtime needs.

``diff(a, b)`` answers a placement review ("after this partitioner change, what moved to the GPU, what
got copied, how did the arenas change?"). Tensors are paired by :mod:`.match` (read its doc for the
rules: name, plan input/output position, constant key, dataflow, op occurrence, copies), then every
tensor of both sides gets one **status**, the first that applies in this order:

| status | meaning |
|---|---|
| ``added`` / ``removed`` | only in B / only in A (a copy a change introduced, a tensor now internal to a delegate...) |
| ``device`` | on another device |
| ``shape`` | another dtype or shape |
| ``arena`` | same device but another arena (arenas paired as below) or another storage class |
| ``offset`` | same arena, another byte offset (the planner reshuffled) |
| ``same`` | nothing about its placement changed |

``ValueChange.changes`` lists every difference (``device, arena, offset, storage, dtype, sizes``), not
just the first. Arenas are paired by device (the k-th arena of a device with the k-th of that device),
then leftovers by ``memory_id`` (``moved``: the same arena now on another device); a paired arena is
``resized`` or ``same``. Copies (``et_copy`` kernel calls) are paired through their destination
tensors. Findings (:func:`.check`'s) are compared by what they are about: their code and the tensors
they name, mapped through the pairing (or, naming none, their instructions' written tensors, else
their message); what is left on both sides is then paired by code and message with value and
instruction numbers taken out, so the same problem renumbered by an unrelated change is neither
``fixed`` nor ``new``. The rest is ``new`` (only in B) or ``fixed`` (only in A).

For views: :class:`PlanDiff` carries ``pairs`` (A value -> B value), ``status_a``/``status_b`` (value
-> status, every tensor of each side) and ``instruction_status_a``/``_b`` (instruction -> ``added``,
``removed`` or ``changed``; absent means ``same``), so both graphs can highlight changes and both memory maps be
aligned arena by arena (``ArenaChange`` pairs memory ids). JSON: :meth:`ProgramDiff.to_json`
(``device-explorer-diff/1``); human text: :mod:`.describe_diff`.
"""

from __future__ import annotations

import gc
import os
from collections import defaultdict
from dataclasses import dataclass, fields, is_dataclass

from explorer.model.program import Device, Plan, Program, Tensor
from explorer.analysis.checks.placement import program_findings
from explorer.analysis.naming import unnumbered
from explorer.analysis.diff.match import Matching, instruction_status, match, match_arenas
from explorer.analysis.requirements import Requirements, requirements
from explorer.analysis.types import ArenaMap, DeviceTotals, Finding, PlanAnalysis
from explorer.analysis.pipeline import LazyAnalysis
from explorer.format.reader import load

__all__ = ["diff", "plain", "pair_ident", "ProgramDiff", "PlanDiff", "ValueChange", "TensorSide", "ArenaChange", "ArenaSide",
           "CopyChange", "CopySide", "TransferChange", "DeviceChange", "FindingChange", "STATUSES", "FORMAT"]

FORMAT = "device-explorer-diff/1"
STATUSES = ("added", "removed", "device", "shape", "arena", "offset", "same")
CHANGES = ("device", "arena", "offset", "storage", "dtype", "sizes")


def plain(x):
    """A diff record as JSON-ready data: dataclass fields in declaration order, devices as text."""
    if isinstance(x, Device):
        return str(x)
    if isinstance(x, Finding):
        return x.to_json()
    if is_dataclass(x):
        return {f.name: plain(getattr(x, f.name)) for f in fields(x)}
    if isinstance(x, (tuple, list)):
        return [plain(i) for i in x]
    return x


@dataclass(frozen=True)
class TensorSide:
    """One side of a value change: where the tensor is in that program."""
    index: int
    label: str  # name, else %index
    dtype: str
    sizes: tuple[int, ...]
    device: Device
    storage: str
    memory_id: int | None
    offset: int | None
    nbytes: int | None
    producer: str | None  # op or delegate id of the instruction writing it; None for inputs/constants
    role: str | None = None  # "input k" / "output k" (outputs seen through their copies)


@dataclass(frozen=True)
class ValueChange:
    kind: str  # "value" | "copy" (written by an et_copy kernel)
    status: str  # one of STATUSES
    changes: tuple[str, ...]  # every difference, in CHANGES order (empty for added/removed/same)
    a: TensorSide | None  # None: added
    b: TensorSide | None  # None: removed
    rule: str | None = None  # match rule that paired them (None: unpaired)
    ambiguous: bool = False  # paired among several equally good candidates


@dataclass(frozen=True)
class ArenaSide:
    memory_id: int
    device: Device
    size: int
    peak_live_bytes: int
    tensors: int  # planned tensors in it (views not counted)


@dataclass(frozen=True)
class ArenaChange:
    status: str  # added | removed | moved | resized | same
    a: ArenaSide | None
    b: ArenaSide | None


@dataclass(frozen=True)
class CopySide:
    instruction: int
    op: str
    source: int  # value copied
    destination: int  # value written
    src_device: Device
    dst_device: Device
    nbytes: int | None


@dataclass(frozen=True)
class CopyChange:
    status: str  # added | removed | device (another source or destination device) | same
    direction: str  # h2d | d2h (from the op)
    of_a: int | None  # the tensor copied (through copy chains), in A; None when it has no counterpart there
    of_b: int | None  # ... in B
    of: str  # that tensor as people read it: "%3->%3 (input 0)", "state", "%22 (A)"
    a: CopySide | None
    b: CopySide | None


@dataclass(frozen=True)
class TransferChange:
    """Transfers per (source device, destination device), including those inside delegate calls."""
    src_device: Device
    dst_device: Device
    count_a: int
    bytes_a: int
    count_b: int
    bytes_b: int


@dataclass(frozen=True)
class DeviceChange:
    device: Device
    a: DeviceTotals | None
    b: DeviceTotals | None


@dataclass(frozen=True)
class FindingChange:
    status: str  # new | fixed
    finding: Finding  # from B when new, from A when fixed


@dataclass(frozen=True)
class PlanDiff:
    plan: str
    matching: dict[str, int]  # pairs per rule (match.RULES) + ambiguous, unmatched_a, unmatched_b
    counts: dict[str, dict[str, int]]  # "values"/"copies" -> status -> tensors (a pair counts once)
    values: tuple[ValueChange, ...]  # tensors whose status isn't "same": A's in value order, then B's added ones
    arenas: tuple[ArenaChange, ...]  # paired ones in A's memory_id order, then B's new ones
    copies: tuple[CopyChange, ...]  # A's copies in run order, then B's added ones
    transfers: tuple[TransferChange, ...]  # crossing device pairs, sorted
    devices: tuple[DeviceChange, ...]  # sorted, cpu first
    findings: tuple[FindingChange, ...]  # fixed (A order), then new (B order)
    requirements_a: Requirements
    requirements_b: Requirements
    pairs: dict[int, int]  # A value -> B value (tensors only)
    status_a: dict[int, str]  # every tensor of A -> status
    status_b: dict[int, str]
    instruction_status_a: dict[int, str]  # instruction of A -> removed | changed (absent: same)
    instruction_status_b: dict[int, str]  # instruction of B -> added | changed (absent: same)

    def to_json(self) -> dict:
        ra, rb = self.requirements_a, self.requirements_b
        need_a = {str(d.device) for d in ra.devices if d.provider == "device-allocator"}
        need_b = {str(d.device) for d in rb.devices if d.provider == "device-allocator"}
        return {
            "name": self.plan, "matching": dict(self.matching),
            "counts": {k: dict(v) for k, v in self.counts.items()},
            "pairs": [[a, b] for a, b in sorted(self.pairs.items())],
            "values": plain(self.values), "arenas": plain(self.arenas), "copies": plain(self.copies),
            "transfers": plain(self.transfers), "devices": plain(self.devices),
            "findings": [{"status": f.status, **f.finding.to_json()} for f in self.findings],
            "requirements": {"a": ra.to_json(), "b": rb.to_json(),
                             "devices_added": sorted(need_b - need_a), "devices_removed": sorted(need_a - need_b)},
        }


@dataclass(frozen=True)
class ProgramDiff:
    a: str | None  # file names (or None for programs not loaded from a file)
    b: str | None
    plans: tuple[PlanDiff, ...]  # plans in both programs (A's order)
    plans_only_a: tuple[str, ...] = ()
    plans_only_b: tuple[str, ...] = ()
    program_findings: tuple[FindingChange, ...] = ()  # program-wide findings (plan "") new or fixed

    def plan(self, name: str) -> PlanDiff:
        for p in self.plans:
            if p.plan == name:
                return p
        raise KeyError(f"no plan named {name!r} in both programs")

    def to_json(self) -> dict:
        return {"format": FORMAT, "a": self.a, "b": self.b, "plans_only_a": list(self.plans_only_a),
                "plans_only_b": list(self.plans_only_b),
                "program_findings": [{"status": f.status, **f.finding.to_json()} for f in self.program_findings],
                "plans": [p.to_json() for p in self.plans]}


def diff(a, b, *, plan: str | None = None,
         analyses: tuple[dict[str, LazyAnalysis], dict[str, LazyAnalysis]] | None = None) -> ProgramDiff:
    """Compare two programs (``Program`` objects, paths or bytes) plan by plan; ``plan`` restricts the
    comparison to one plan (``KeyError`` when either program lacks it).

    ``analyses``: (A's, B's) plan name -> :class:`~explorer.analysis.pipeline.LazyAnalysis`, the analyses a caller
    has made already (the widget analysed the original when it opened: a what-if diff re-analysed it on every
    move). A plan missing from them is analysed here and put in, so the caller's views reuse it too (a diff view
    analysed each side again)."""

    pa = a if isinstance(a, Program) else load(a)
    pb = b if isinstance(b, Program) else load(b)
    if plan is not None:
        pa.plan(plan)  # KeyError naming the plans each file has
        pb.plan(plan)
    names_b = set(pb.plan_names)
    common = [n for n in pa.plan_names if n in names_b and (plan is None or n == plan)]

    collecting = gc.isenabled()
    gc.disable()  # many small long-lived records: collections would only cost time (cycles wait till after)
    try:
        plans = tuple(_plan_diff(pa.plan(n), pb.plan(n), _analysis(pa, n, analyses and analyses[0]).complete(),
                                 _analysis(pb, n, analyses and analyses[1]).complete()) for n in common)
    finally:
        if collecting:
            gc.enable()
    only_a = tuple(n for n in pa.plan_names if n not in names_b) if plan is None else ()
    only_b = tuple(n for n in pb.plan_names if n not in set(pa.plan_names)) if plan is None else ()
    prog = _finding_changes(program_findings(pa), program_findings(pb), None)
    return ProgramDiff(_name(pa), _name(pb), plans, only_a, only_b, prog)


# PRIVATE

def _analysis(program: Program, name: str, made: dict[str, LazyAnalysis] | None) -> LazyAnalysis:
    """Plan ``name``'s analysis: the one in ``made``, else a new one (put in ``made`` when given). The same as
    :func:`~explorer.analysis.pipeline.analyze` makes: ``analyze`` is ``LazyAnalysis(...).complete()``."""
    if made is not None and name in made:
        return made[name]
    lazy = LazyAnalysis(program.plan(name), program)
    if made is not None:
        made[name] = lazy
    return lazy


def _name(p: Program) -> str | None:
    return os.path.basename(p.source) if p.source else None


def _plan_diff(pa: Plan, pb: Plan, xa: PlanAnalysis, xb: PlanAnalysis) -> PlanDiff:
    m = match(pa, xa.dataflow, pb, xb.dataflow)
    arenas, arena_map = _arenas(xa.memory.arenas, xb.memory.arenas)
    values, status_a, status_b = _values(m, arena_map)
    counts = {"values": dict.fromkeys(STATUSES, 0), "copies": dict.fromkeys(STATUSES, 0)}
    for v, status in status_a.items():
        counts["copies" if v in m.a.copy_src else "values"][status] += 1
    for v, status in status_b.items():
        if status == "added":
            counts["copies" if v in m.b.copy_src else "values"][status] += 1
    return PlanDiff(
        plan=pa.name, matching=m.counts(), counts=counts, values=values, arenas=arenas, copies=_copies(m),
        transfers=_transfers(xa, xb), devices=_devices(xa, xb),
        findings=_finding_changes(list(xa.findings), list(xb.findings), m),
        requirements_a=requirements(pa, xa), requirements_b=requirements(pb, xb), pairs=dict(m.a2b),
        status_a=status_a, status_b=status_b,
        instruction_status_a=instruction_status(m, xa.dataflow.writes, status_a, True),
        instruction_status_b=instruction_status(m, xb.dataflow.writes, status_b, False))


def _side(m: Matching, v: int, first: bool) -> TensorSide:
    g = m.a if first else m.b
    t = g.tensor(v)
    if v in g.copy_instr:
        producer = g.copy_op[v]
    else:
        p = g.producer.get(v)
        producer = g.label[p[0]] if p else None
    return TensorSide(v, t.label, t.dtype, t.sizes, t.device, t.storage, t.memory_id, t.offset, t.nbytes, producer,
                      g.roles.get(v))


def _values(m: Matching, arena_map: dict[int, int]) -> tuple[tuple[ValueChange, ...], dict[int, str], dict[int, str]]:
    """Changes (status != same) in A's value order then B's added ones, and both status maps."""
    out = []
    status_a: dict[int, str] = {}
    status_b: dict[int, str] = {}
    for v, is_t in enumerate(m.a.is_tensor):
        if not is_t:
            continue
        kind = "copy" if v in m.a.copy_src else "value"
        w = m.a2b.get(v)
        if w is None:
            status_a[v] = "removed"
            out.append(ValueChange(kind, "removed", (), _side(m, v, True), None))
            continue
        changes = _changes(m.a.tensor(v), m.b.tensor(w), arena_map)
        status_a[v] = status_b[w] = status = _status(changes)
        if status != "same":
            out.append(ValueChange(kind, status, changes, _side(m, v, True), _side(m, w, False), m.rule[v],
                                   v in m.ambiguous))
    for v, is_t in enumerate(m.b.is_tensor):
        if is_t and v not in m.b2a:
            status_b[v] = "added"
            out.append(ValueChange("copy" if v in m.b.copy_src else "value", "added", (), None, _side(m, v, False)))
    return tuple(out), status_a, dict(sorted(status_b.items()))


def _status(changes: tuple[str, ...]) -> str:
    if not changes:
        return "same"
    if "device" in changes:
        return "device"
    if "dtype" in changes or "sizes" in changes:
        return "shape"
    return "arena" if "arena" in changes or "storage" in changes else "offset"


def _changes(a: Tensor, b: Tensor, arena_map: dict[int, int]) -> tuple[str, ...]:
    found = []
    if a.device != b.device:
        found.append("device")
    if a.memory_id != b.memory_id and (a.memory_id is None or arena_map.get(a.memory_id) != b.memory_id):
        found.append("arena")
    elif a.memory_id is not None and a.offset != b.offset:
        found.append("offset")
    if a.storage != b.storage:
        found.append("storage")
    if a.scalar_type != b.scalar_type:
        found.append("dtype")
    if a.sizes != b.sizes:
        found.append("sizes")
    return tuple(found)


def _arenas(a: tuple[ArenaMap, ...], b: tuple[ArenaMap, ...]) -> tuple[tuple[ArenaChange, ...], dict[int, int]]:
    def side(x: ArenaMap) -> ArenaSide:
        return ArenaSide(x.memory_id, x.device, x.size, x.peak_live_bytes, sum(1 for k in x.blocks if k.alias_of is None))

    pairs = match_arenas([(x.memory_id, x.device) for x in a], [(y.memory_id, y.device) for y in b])
    by_id = {y.memory_id: y for y in b}
    out = []
    for x in a:
        y = by_id.get(pairs.get(x.memory_id, -1))
        if y is None:
            out.append(ArenaChange("removed", side(x), None))
        else:
            status = "moved" if x.device != y.device else "resized" if x.size != y.size else "same"
            out.append(ArenaChange(status, side(x), side(y)))
    taken = set(pairs.values())
    out.extend(ArenaChange("added", None, side(y)) for y in b if y.memory_id not in taken)
    return tuple(out), pairs


def _copies(m: Matching) -> tuple[CopyChange, ...]:
    def side(v: int, g) -> CopySide:
        i, src, t = g.copy_instr[v], g.copy_src[v], g.tensor(v)
        return CopySide(i, g.copy_op[v], src, v, g.tensor(src).device, t.device, t.nbytes)

    def of(ra: int | None, rb: int | None) -> tuple[int | None, int | None, str]:
        la = m.a.tensor(ra).label if ra is not None else None
        lb = m.b.tensor(rb).label if rb is not None else None
        role = m.b.roles.get(rb) if rb is not None else m.a.roles.get(ra)  # type: ignore[arg-type]
        return ra, rb, pair_ident(ra, la, rb, lb) + (f" ({role})" if role else "")

    out = []
    for v in sorted(m.a.copy_src, key=lambda w: (m.a.copy_instr[w], w)):
        root, w = m.a.root(v), m.a2b.get(v)
        sa = side(v, m.a)
        if w is None:
            out.append(CopyChange("removed", m.a.copy_dir[v], *of(root, m.a2b.get(root)), sa, None))
            continue
        sb = side(w, m.b)
        moved = (sa.src_device, sa.dst_device) != (sb.src_device, sb.dst_device)
        out.append(CopyChange("device" if moved else "same", m.a.copy_dir[v], *of(root, m.b.root(w)), sa, sb))
    for w in sorted(m.b.copy_src, key=lambda x: (m.b.copy_instr[x], x)):
        if w not in m.b2a:
            root = m.b.root(w)
            out.append(CopyChange("added", m.b.copy_dir[w], *of(m.b2a.get(root), root), None, side(w, m.b)))
    return tuple(out)


def pair_ident(a: int | None, a_label: str | None, b: int | None, b_label: str | None) -> str:
    """``name`` when both sides share it, ``%a->%b`` (``%a`` once when both indices are equal), or
    ``%a (A)`` / ``name (%b in B)`` when unpaired."""
    if a is not None and b is not None:
        if a_label == b_label and a_label and not a_label.startswith("%"):
            return a_label
        return f"%{a}" if a == b else f"%{a}->%{b}"
    index, label, which = (a, a_label, "A") if a is not None else (b, b_label, "B")
    return f"%{index} ({which})" if not label or label.startswith("%") else f"{label} (%{index} in {which})"


def _transfers(xa: PlanAnalysis, xb: PlanAnalysis) -> tuple[TransferChange, ...]:
    rows: dict[tuple[Device, Device], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for k, x in ((0, xa), (2, xb)):
        for t in x.transfer_totals:
            if t.src_device != t.dst_device:
                rows[(t.src_device, t.dst_device)][k:k + 2] = [t.count, t.nbytes]
    return tuple(TransferChange(s, d, *r) for (s, d), r in sorted(rows.items()))


def _devices(xa: PlanAnalysis, xb: PlanAnalysis) -> tuple[DeviceChange, ...]:
    da = {t.device: t for t in xa.memory.devices}
    db = {t.device: t for t in xb.memory.devices}
    return tuple(DeviceChange(d, da.get(d), db.get(d)) for d in sorted(set(da) | set(db)))


def _finding_changes(fa: list[Finding], fb: list[Finding], m: Matching | None) -> tuple[FindingChange, ...]:
    """Fixed (in A only) then new (in B only); a finding is its code plus the tensors it names, seen
    from A through the pairing (or its message when it names no tensor)."""
    def key(f: Finding, first: bool):
        if not f.values:
            return (f.code, "", f.message)
        if m is None:
            return (f.code, tuple(f.values))
        ids = tuple(sorted(("a", v) if first else (("a", m.b2a[v]) if v in m.b2a else ("b", v)) for v in f.values))
        return (f.code, ids)

    keys_a = {key(f, True) for f in fa}
    keys_b = {key(f, False) for f in fb}
    fixed = [f for f in fa if key(f, True) not in keys_b]
    new = [f for f in fb if key(f, False) not in keys_a]
    # Leftovers that say the same thing up to numbering are the same finding.
    still_fixed = _beyond(fixed, new)
    still_new = _beyond(new, fixed)
    return tuple([FindingChange("fixed", f) for f in still_fixed] + [FindingChange("new", f) for f in still_new])


def _beyond(items: list[Finding], others: list[Finding]) -> list[Finding]:
    """``items`` left over once each is matched to one of ``others`` saying the same thing up to
    numbering (code + unnumbered message), as a multiset: 3 alike on one side and 2 on the other leave 1."""
    left: dict[tuple[str, str], int] = defaultdict(int)
    for f in others:
        left[(f.code, unnumbered(f.message))] += 1
    out = []
    for f in items:
        k = (f.code, unnumbered(f.message))
        if left[k]:
            left[k] -= 1
        else:
            out.append(f)
    return out
