"""Placement checks: the findings of ``device-explorer check`` (codes and severities: docs/analysis.md).

| code | severity | fires on |
|---|---|---|
| ``device-mismatch`` | error | a planned tensor whose device differs from its arena's |
| ``out-of-bounds`` | error | ``offset + nbytes`` past the arena's declared size |
| ``live-overlap`` | error | two tensors of one arena sharing bytes while both are alive (each pair once) |
| ``bad-reference`` | error | an index pointing nowhere (see :mod:`.references`) |
| ``cross-device-no-copy`` | error | a host kernel on device memory: a ``KernelCall`` (not an ``et_copy`` |
| | | op, not a view that only takes a pointer) naming a tensor on a non-CPU device. Kernels run on |
| | | the host and dereference their tensors' data pointers there: a crash or garbage at run time. |
| | | One finding per (operator, devices) listing every instruction, so 8 such calls read as one. |
| | | Also: data moved between devices by a delegate call or a move that is neither a copy nor a |
| | | device-targeted delegate touching only the host and its target |
| ``round-trip`` | warning | a d2h copy whose result is used only by h2d copies (and is not a plan output) |
| ``unknown-device`` | warning | tensors (grouped per device) and arenas on a device type this version doesn't know |
| device faults | | ``planned-device-input``/``-output``, ``constant-on-device``, ``initial-state-in-device-arena``, |
| | | ``unplanned-device-tensor``, ``delegate-device-mismatch``, ``buffer-device-duplicate``, |
| | | ``device-index-invalid``, ``device-planning-off``: see :mod:`.device_faults` and docs/checks.md |

Findings are data and never raise. To keep output bounded on huge or badly broken programs, each
(plan, code) keeps its first ``limit`` findings and then adds one summary finding of the same code and
severity, ``... and N more``; messages are composed only for findings that are kept.

Live overlaps: a vectorised pre-pass (:func:`_suspects`) clears tensors whose byte range no other
range touches and whose same-range neighbours live at other times (a slot-based planner's whole
arena); the rest go through a sweep in lifetime order that keeps the live tensors sorted by offset.
While no overlap has been seen the live set is disjoint, so each tensor costs one binary search
(O(n log n)); after one, the scan widens to live tensors within the arena's largest tensor size, and
counting stops after ``_OVERLAP_BUDGET`` pairs (reported as "at least N more"). Views (aliases, see
:mod:`.lifetimes`) are checked through their base, whose lifetime covers theirs.

Device crossings are read off :func:`.transfers.transfer_arrays`: a device-targeted delegate (compile
spec ``target_device``) may read host tensors and write its target's, or the reverse; anything else
that moves data between devices without being ``et_copy::_h2d_copy``/``_d2h_copy`` is reported.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from collections import defaultdict

import numpy as np

from explorer.analysis.arrays import isin, unique
from explorer.model.program import Plan, Program
from explorer.analysis.checks.device_faults import CODES as DEVICE_FAULT_CODES
from explorer.analysis.checks.device_faults import device_fault_findings, host_mask, known_devices_text
from explorer.analysis.naming import instruction_text, value_text, values_text
from explorer.units import nbytes_text
from explorer.analysis.facts import Facts
from explorer.analysis.graph import Edges
from explorer.analysis.ops import reads_data
from explorer.analysis.checks.references import plan_references, program_references
from explorer.analysis.transfers import transfer_kind
from explorer.analysis.types import Finding, Transfer

__all__ = ["plan_findings", "program_findings", "SEVERITY", "DEFAULT_LIMIT", "Sink", "Who"]

SEVERITY = {
    "device-mismatch": "error", "out-of-bounds": "error", "live-overlap": "error", "bad-reference": "error",
    "cross-device-no-copy": "error", "round-trip": "warning", "unknown-device": "warning",
    **DEVICE_FAULT_CODES,
}
DEFAULT_LIMIT = 25  # findings kept per (plan, code) before "... and N more"
_OVERLAP_BUDGET = 100_000  # overlapping pairs counted per arena before giving up counting


class Sink:
    """Collects findings of one plan, capped per code. Checks ask :meth:`full` before composing a
    message, so a program with a million problems costs a count, not a million messages."""

    def __init__(self, plan: str, limit: int | None) -> None:
        self.plan, self.limit = plan, limit
        self.kept: list[Finding] = []
        self.count: dict[str, int] = defaultdict(int)
        self.dropped: dict[str, int] = defaultdict(int)
        self.at_least: set[str] = set()

    def full(self, code: str) -> bool:
        return self.limit is not None and self.count[code] >= self.limit

    def skip(self, code: str, how_many: int = 1) -> None:
        self.dropped[code] += how_many

    def emitter(self, code: str):
        def emit(message: str, values=(), instructions=(), memory_id=None) -> None:
            self.add(code, message, values, instructions, memory_id)
        emit.full = lambda: self.full(code)  # type: ignore[attr-defined]
        emit.skip = lambda k=1: self.skip(code, k)  # type: ignore[attr-defined]
        return emit

    def add(self, code: str, message: str, values=(), instructions=(), memory_id=None,
            severity: str | None = None) -> None:
        """Keep one finding; ``severity`` overrides the code's (device-index-invalid is a warning when the
        index is only implausibly large)."""
        if self.full(code):
            self.dropped[code] += 1
            return
        self.count[code] += 1
        self.kept.append(Finding(code, severity or SEVERITY[code], self.plan, message, tuple(int(v) for v in values),
                                 tuple(int(i) for i in instructions), memory_id))

    def findings(self) -> list[Finding]:
        out = list(self.kept)
        for code, count in self.dropped.items():
            more = "at least " if code in self.at_least else ""
            out.append(Finding(code, SEVERITY[code], self.plan,
                               f"... and {more}{count} more {code} findings (only the first {self.limit} are listed)"))
        return out


class Who:
    """Writers and readers of a value, for messages (an index over the edges built on first use)."""

    def __init__(self, plan: Plan, e: Edges) -> None:
        self.plan, self.e = plan, e
        self._order: np.ndarray | None = None

    def _find(self, v: int, write: bool) -> list[int]:
        if self._order is None:
            self._order = np.lexsort((self.e.instr, ~self.e.write, self.e.value))
            self._sorted = self.e.value[self._order]
        a, b = np.searchsorted(self._sorted, [v, v + 1])
        idx = self._order[a:b]
        return self.e.instr[idx][self.e.write[idx] == write].tolist()

    def writers(self, v: int) -> list[int]:
        return self._find(v, True)

    def readers(self, v: int) -> list[int]:
        return self._find(v, False)

    def story(self, v: int) -> str:
        """How a value comes to be: who writes it, else who reads it."""
        plan = self.plan
        writers = self.writers(v)
        if writers:
            return "it is written by " + ", ".join(instruction_text(plan, i) for i in writers[:3]) + \
                (f" and {len(writers) - 3} more" if len(writers) > 3 else "")
        if v in plan.inputs:
            return "it is a plan input"
        readers = self.readers(v)
        if readers:
            return "it is read by " + instruction_text(plan, readers[0])
        return "no instruction names it"


def program_findings(program: Program, limit: int | None = DEFAULT_LIMIT) -> list[Finding]:
    """Findings about the program as a whole (``plan == ""``)."""
    sink = Sink("", limit)
    program_references(program, sink.emitter("bad-reference"))
    return sink.findings()


def plan_findings(plan: Plan, f: Facts, e: Edges, first: np.ndarray, last: np.ndarray,
                  planned: dict[str, np.ndarray], transfers: dict[str, np.ndarray],
                  program: Program | None = None, limit: int | None = DEFAULT_LIMIT) -> list[Finding]:
    """Every placement finding of one plan, given its analysis pieces (see ``analysis.analyze``);
    ``transfers`` is :func:`.transfers.transfer_arrays`' result."""
    sink = Sink(plan.name, limit)
    who = Who(plan, e)
    plan_references(plan, f, program, sink.emitter("bad-reference"))
    _placement(plan, f, who, planned, sink)
    _live_overlap(plan, who, first, last, planned, sink)
    host = _host_kernels(plan, f, e, sink)
    _crossings(plan, f, transfers, sink, skip=host)
    _round_trips(plan, f, e, transfers, sink)
    _unknown_devices(plan, f, sink)
    device_fault_findings(plan, f, e, sink)
    return sink.findings()


def _records(f: Facts, t: dict[str, np.ndarray], rows: np.ndarray) -> list[Transfer]:
    out = []
    for k in rows.tolist():
        i, src, dst = int(t["instr"][k]), int(t["src"][k]), int(t["dst"][k])
        sd, dd = f.value_device(src), f.value_device(dst)
        out.append(Transfer(i, f.label(i), transfer_kind(sd, dd), src, dst, sd, dd, int(t["nbytes"][k])))
    return out


# PRIVATE

def _placement(plan: Plan, f: Facts, who: Who, planned: dict[str, np.ndarray], sink: Sink) -> None:
    """device-mismatch, then out-of-bounds, over planned tensors whose arena exists (vectorised)."""
    pv, pm, po, pn = planned["value"], planned["memory_id"], planned["offset"], planned["nbytes"]
    buffers = plan.buffers
    bad = np.flatnonzero(f.dcode[pv] != f.arena_code[pm])
    for k in bad.tolist():
        if sink.full("device-mismatch"):
            sink.skip("device-mismatch", int(bad.size) - sink.count["device-mismatch"])
            break
        v, mid = int(pv[k]), int(pm[k])
        sink.add("device-mismatch",
                 f"{value_text(plan, v)} is on {f.value_device(v)} but arena {mid} is {buffers[mid - 1].device}; "
                 f"{who.story(v)}", (v,), who.writers(v), mid)
    known = f.raw_nbytes[pv] >= 0
    bad = np.flatnonzero(known & (po + pn > f.arena_size[pm]))
    for k in bad.tolist():
        if sink.full("out-of-bounds"):
            sink.skip("out-of-bounds", int(bad.size) - sink.count["out-of-bounds"])
            break
        v, mid, off, nb = int(pv[k]), int(pm[k]), int(po[k]), int(pn[k])
        buf = buffers[mid - 1]
        sink.add("out-of-bounds",
                 f"{value_text(plan, v)} takes bytes [{off}, {off + nb}) of arena {mid} ({buf.device}), "
                 f"which has only {buf.size} bytes ({off + nb - buf.size} past the end); {who.story(v)}",
                 (v,), who.writers(v), mid)


def _live_overlap(plan: Plan, who: Who, first: np.ndarray, last: np.ndarray,
                  planned: dict[str, np.ndarray], sink: Sink) -> None:
    pv, pm, po, pn = planned["value"], planned["memory_id"], planned["offset"], planned["nbytes"]
    pf, pl = first[pv], last[pv]
    alive = (pf >= 0) & (pn > 0) & (planned["alias"] < 0)  # a view's bytes are checked through its base
    for mid in unique(pm[alive]).tolist():
        sel = np.flatnonzero(alive & (pm == mid))
        sel = sel[_suspects(po[sel], pn[sel], pf[sel], pl[sel])]
        if not sel.size:
            continue
        pairs, truncated = _overlapping_pairs(po[sel], pn[sel], pf[sel], pl[sel])
        if truncated:
            sink.at_least.add("live-overlap")
        buf = plan.buffers[mid - 1]
        for n_done, (a, b) in enumerate(pairs):
            if sink.full("live-overlap"):
                sink.skip("live-overlap", len(pairs) - n_done)
                break
            va, vb = int(pv[sel[a]]), int(pv[sel[b]])
            oa, ob = int(po[sel[a]]), int(po[sel[b]])
            ea, eb = oa + int(pn[sel[a]]), ob + int(pn[sel[b]])
            fa, la, fb, lb = int(pf[sel[a]]), int(pl[sel[a]]), int(pf[sel[b]]), int(pl[sel[b]])
            lo, hi = max(fa, fb), min(la, lb)
            writer = who.writers(vb)
            how = (f"{instruction_text(plan, writer[0])} writes {value_text(plan, vb)}" if writer
                   else f"{value_text(plan, vb)} comes alive at instruction {fb}")
            sink.add("live-overlap",
                     f"{value_text(plan, va)} at bytes [{oa}, {ea}) and {value_text(plan, vb)} at bytes "
                     f"[{ob}, {eb}) of arena {mid} ({buf.device}) share bytes [{max(oa, ob)}, {min(ea, eb)}) "
                     f"while both are alive (instructions {lo}..{hi}): {how} while {value_text(plan, va)} "
                     f"is still needed until instruction {la}",
                     (va, vb), sorted({lo, hi}), mid)


def _suspects(off: np.ndarray, nb: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """Mask of tensors that *may* overlap another; the rest provably don't (vectorised pre-pass).

    Tensors with the same byte range form a slot; slots whose ranges touch no other slot's form a
    cluster of their own, and there a tensor can only collide with its own slot, which sorting by
    lifetime settles. Everything else (slots sharing bytes with other slots, as greedy planners make)
    goes to the exact sweep of :func:`_overlapping_pairs`.
    """
    end = off + nb
    by_range = np.lexsort((end, off))
    r_off, r_end = off[by_range], end[by_range]
    new_slot = np.ones(len(off), dtype=bool)
    new_slot[1:] = (r_off[1:] != r_off[:-1]) | (r_end[1:] != r_end[:-1])
    slot_of = np.empty(len(off), dtype=np.int64)
    slot_of[by_range] = np.cumsum(new_slot) - 1
    s_off, s_end = r_off[new_slot], r_end[new_slot]  # one row per slot, sorted by offset
    reach = np.maximum.accumulate(s_end)
    new_cluster = np.ones(len(s_off), dtype=bool)
    new_cluster[1:] = s_off[1:] >= reach[:-1]
    cluster = np.cumsum(new_cluster) - 1
    multi = np.bincount(cluster) > 1
    suspect_slot = multi[cluster]
    # Lone slots: tensors sorted by lifetime must each end before the next starts.
    order = np.lexsort((first, slot_of))
    so, sf, sl = slot_of[order], first[order], last[order]
    span = int(last.max()) + 2 if last.size else 1
    running = np.maximum.accumulate(so * span + sl) - so * span  # latest end so far, within the slot
    clash = (so[1:] == so[:-1]) & (sf[1:] <= running[:-1])
    suspect_slot[so[1:][clash]] = True
    return suspect_slot[slot_of]


def _overlapping_pairs(off: np.ndarray, nb: np.ndarray, first: np.ndarray, last: np.ndarray
                       ) -> tuple[list[tuple[int, int]], bool]:
    """Pairs (earlier, later) of positions overlapping in bytes and lifetime; (pairs, truncated)."""
    O, N, L = off.tolist(), nb.tolist(), last.tolist()
    F = first.tolist()
    maxlen = max(N) if N else 0
    order = np.lexsort((np.arange(len(O)), off, first)).tolist()
    active: list[tuple[int, int]] = []  # (offset, position), sorted
    ending: list[tuple[int, int, int]] = []  # heap of (last, offset, position)
    pairs: list[tuple[int, int]] = []
    clean = True
    for k in order:
        f = F[k]
        while ending and ending[0][0] < f:
            _, o_old, k_old = heapq.heappop(ending)
            del active[bisect_left(active, (o_old, k_old))]
        o = O[k]
        e = o + N[k]
        j = bisect_left(active, (e, -1)) - 1
        was_clean, found = clean, False
        while j >= 0:
            oj, kj = active[j]
            if oj + N[kj] > o:
                pairs.append((kj, k))
                found = True
                if len(pairs) >= _OVERLAP_BUDGET:
                    return pairs, True
            elif was_clean:
                break  # a disjoint live set sorted by offset is sorted by end too: nothing earlier reaches o
            if not was_clean and oj <= o - maxlen:
                break
            j -= 1
        clean = clean and not found
        insort(active, (o, k))
        heapq.heappush(ending, (L[k], o, k))
    return pairs, False


def _host_kernels(plan: Plan, f: Facts, e: Edges, sink: Sink) -> set[int]:
    """``cross-device-no-copy`` for host kernels on device memory, grouped by (operator, devices);
    returns the instructions reported (the crossing check leaves them alone)."""
    if not e.value.size:
        return set()
    harmless = [k for k, op in enumerate(plan.operators) if not reads_data(op.name)]  # views, sym_size
    kernel = (f.ic.kind == 1) & ~f.is_copy & ~isin(f.ic.target, harmless)
    on_device = f.is_tensor & f.known_device & ~host_mask(f.device_type)
    hit = kernel[e.instr] & on_device[e.value]
    if not hit.any():
        return set()
    by_instr: dict[int, list[int]] = defaultdict(list)
    for i, v in zip(e.instr[hit].tolist(), e.value[hit].tolist()):
        if v not in by_instr[i]:
            by_instr[i].append(v)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, vals in by_instr.items():
        devices = tuple(sorted({f.value_device(v) for v in vals}))
        groups[(f.label(i), devices)].append(i)
    for (label, devices), instrs in groups.items():
        if sink.full("cross-device-no-copy"):
            sink.skip("cross-device-no-copy")
            continue
        vals = list(dict.fromkeys(v for i in instrs for v in by_instr[i]))
        where = "/".join(map(str, devices))
        count = f"{len(instrs)} instructions run" if len(instrs) > 1 else "instruction runs"
        listed = ", ".join(map(str, instrs[:8])) + (f" and {len(instrs) - 8} more" if len(instrs) > 8 else "")
        sink.add("cross-device-no-copy",
                 f"{count} the host kernel {label} on {where} memory (instruction{'s' if len(instrs) > 1 else ''} "
                 f"{listed}; tensors {values_text(plan, vals)}): a KernelCall runs on the CPU and dereferences "
                 f"its tensors there, a crash or garbage at run time; delegate it to a backend whose "
                 f"target_device is {devices[0]}, or copy with et_copy::_h2d_copy/_d2h_copy",
                 tuple(vals), tuple(instrs))
    return set(by_instr)


def _crossings(plan: Plan, f: Facts, t: dict[str, np.ndarray], sink: Sink, skip: frozenset[int] | set[int] = frozenset()) -> None:
    crossing = np.flatnonzero(~f.is_copy[t["instr"]] & (f.dcode[t["src"]] != f.dcode[t["dst"]]))
    if skip:
        crossing = crossing[~isin(t["instr"][crossing], list(skip))]
    by_instr: dict[int, list[Transfer]] = defaultdict(list)
    for item in _records(f, t, crossing):
        by_instr[item.instruction].append(item)
    for i, items in by_instr.items():
        devices = {x.src_device for x in items} | {x.dst_device for x in items}
        target = None
        if f.ic.kind[i] == 2 and 0 <= f.ic.target[i] < len(plan.delegates):
            target = plan.delegates[int(f.ic.target[i])].target_device
            if target is not None and all(d.is_host or d == target for d in devices):
                continue  # a device-targeted delegate does its own host<->target copies
        if sink.full("cross-device-no-copy"):
            sink.skip("cross-device-no-copy")
            continue
        srcs = [x.source for x in items]
        dsts = [x.destination for x in items]
        src_dev = sorted({x.src_device for x in items})
        dst_dev = sorted({x.dst_device for x in items})
        if target is not None:
            hint = f"the delegate targets {target}, so only host and {target} tensors may cross it"
        elif all(x.kind == "h2d" for x in items):
            hint = "insert et_copy::_h2d_copy before it, or delegate it to a backend whose target_device is " \
                   f"{dst_dev[0]}"
        elif all(x.kind == "d2h" for x in items):
            hint = "insert et_copy::_d2h_copy before it, or run it on the device"
        else:
            hint = "copy explicitly between the devices, or place these tensors on one device"
        sink.add("cross-device-no-copy",
                 f"{instruction_text(plan, i)} reads {values_text(plan, srcs)} on "
                 f"{', '.join(map(str, src_dev))} and writes {values_text(plan, dsts)} on "
                 f"{', '.join(map(str, dst_dev))} without a copy op; {hint}",
                 tuple(dict.fromkeys(srcs + dsts)), (i,))


def _round_trips(plan: Plan, f: Facts, e: Edges, t: dict[str, np.ndarray], sink: Sink) -> None:
    """A d2h copy whose host result is read only by h2d copies of it (vectorised over copies)."""
    ti, ts, td = t["instr"], t["src"], t["dst"]
    is_copy = f.is_copy[ti]
    host = host_mask(f.device_type)
    # Per instruction: the copy's source, and whether it copies to a device (-1 / False elsewhere).
    copy_src = np.full(f.m, -1, dtype=np.int64)
    copy_src[ti[is_copy]] = ts[is_copy]
    to_device = np.zeros(f.m, dtype=bool)
    to_device[ti[is_copy]] = ~host[td[is_copy]]
    d2h = np.flatnonzero(is_copy & ~host[ts] & host[td])
    if not d2h.size:
        return
    reads = ~e.write
    rv, ri = e.value[reads], e.instr[reads]
    users = np.bincount(rv, minlength=f.n)
    back = np.bincount(rv[(copy_src[ri] == rv) & to_device[ri]], minlength=f.n)
    outputs = np.zeros(f.n, dtype=bool)
    outputs[[v for v in plan.outputs if 0 <= v < f.n]] = True
    h = td[d2h]
    hits = d2h[(users[h] > 0) & (users[h] == back[h]) & ~outputs[h]]
    for k in hits.tolist():
        if sink.full("round-trip"):
            sink.skip("round-trip")
            continue
        (out,) = _records(f, t, np.asarray([k]))
        back_rows = np.flatnonzero(is_copy & (ts == out.destination))
        backs = _records(f, t, back_rows)
        dests = ", ".join(f"{value_text(plan, b.destination)} on {b.dst_device}" for b in backs)
        again = "/".join(str(d) for d in sorted({b.dst_device for b in backs}))
        sink.add("round-trip",
                 f"{value_text(plan, out.source)} goes {out.src_device} -> {out.dst_device} -> {again}: "
                 f"{instruction_text(plan, out.instruction)} copies it to {value_text(plan, out.destination)} "
                 f"on the host, whose only use is copying it back "
                 f"({', '.join(instruction_text(plan, b.instruction) for b in backs)}) to {dests}; "
                 f"keep it on {out.src_device} and save {len(backs) + 1} copies of {nbytes_text(out.nbytes)}",
                 (out.source, out.destination, *(b.destination for b in backs)),
                 (out.instruction, *(b.instruction for b in backs)))


def _unknown_devices(plan: Plan, f: Facts, sink: Sink) -> None:
    unknown = np.flatnonzero(f.is_tensor & ~f.known_device)
    groups: dict = defaultdict(list)
    for v in unknown.tolist():
        groups[f.value_device(v)].append(v)
    for device in sorted(groups):
        vals = groups[device]
        sink.add("unknown-device",
                 f"{len(vals)} tensor{'s' if len(vals) != 1 else ''} on {device}, a device type this version "
                 f"doesn't know (device type byte {device.type}; known: {known_devices_text()}): {values_text(plan, vals)}; "
                 f"the runtime cannot allocate or copy it (the Python bindings abort on such a tensor): export "
                 f"with a registered device type", tuple(vals))
    for b in (plan.buffers[m - 1] for m, d in sorted(plan.listed_devices.items()) if not d.known):
        if not b.device.known:
            sink.add("unknown-device",
                     f"arena {b.memory_id} ({nbytes_text(b.size)}) is on {b.device}, a device type this version "
                     f"doesn't know (device type byte {b.device.type}; known: {known_devices_text()}); the runtime "
                     f"fails to load it unless a DeviceAllocator for type {b.device.type} is registered",
                     memory_id=b.memory_id)
