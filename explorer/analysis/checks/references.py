"""The ``bad-reference`` check: every index in the program must point somewhere.

The model keeps indices exactly as stored (a debugging tool must show a broken file, not refuse it),
so this is where dangling ones are reported: value indices (plan/chain inputs and outputs,
instruction arguments, moves, jumps, frees, TensorList items), operator and delegate indices,
``memory_id`` (0 is reserved; at most ``len(non_const_buffer_sizes) - 1``), ``non_const_buffer_device``
entries, jump destinations (chain-local, ``0..len(chain)``: the runtime ends the chain when it jumps to
its end), delegate blobs (``backend_delegate_data`` or ``segments``), and where tensor data lives:

* a constant's ``data_buffer_idx`` indexes ``constant_segment.offsets`` when that list is non-empty,
  else the legacy inline ``constant_buffer`` (the runtime's rule in ``program.cpp``);
* a mutable tensor's (planned *and* with initial state) indexes
  ``mutable_data_segments[mutable_data_segments_idx].offsets`` instead — the same number means a
  different table (docs/format.md, "Where a tensor's bytes live").

Program-wide references (the segment of the constant, mutable and named data) are reported with
``plan == ""`` by :func:`program_references`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from explorer.analysis.arrays import isin, unique
from explorer.model.program import Plan, Program
from explorer.analysis.naming import instruction_text, value_text
from explorer.analysis.facts import KIND, LIST_KINDS, STORAGE, Facts

__all__ = ["plan_references", "program_references"]

CODE = "bad-reference"

Emit = Callable[..., None]  # emit(message, values=(), instructions=(), memory_id=None); emit.full(), emit.skip(k)


def plan_references(plan: Plan, f: Facts, program: Program | None, emit: Emit) -> None:
    """Report every dangling index of ``plan`` through ``emit`` (vectorised over values and arguments)."""
    n = f.n
    for what, indices in (("input", plan.inputs), ("output", plan.outputs)):
        for k, v in enumerate(indices):
            if not 0 <= v < n:
                emit(f"plan {what} {k} is value %{v}, but the plan has only {n} values", values=(v,))
    for chain in plan.chains:
        for what, indices in (("input", chain.inputs), ("output", chain.outputs)):
            for v in indices:
                if not 0 <= v < n:
                    emit(f"chain {chain.index} {what} %{v} points nowhere (the plan has {n} values)", values=(v,))
    _instructions(plan, f, emit)
    _lists(plan, f, emit)
    _tensors(plan, f, program, emit)
    n_buf = len(plan.buffer_sizes)
    for entry in plan.buffer_devices:
        if not 1 <= entry.buffer_idx < n_buf:
            why = "buffer 0 is reserved" if entry.buffer_idx == 0 else f"the plan has arenas 1..{n_buf - 1}"
            emit(f"non_const_buffer_device lists buffer {entry.buffer_idx} on {entry.device}, but {why}: the "
                 f"runtime silently ignores the entry, so the arena meant for {entry.device} is allocated in host "
                 f"memory; emit buffer_idx = memory_id (1..{n_buf - 1}) for each device arena")
    if program is not None:
        for d in plan.delegates:
            if d.location == "inline":
                table, size = "backend_delegate_data", len(program.delegate_data_sizes)
            elif d.location == "segment":
                table, size = "segments", len(program.segments)
            elif d.location == "predicted":  # a region explorer.what_if made: no blob exists yet
                continue
            else:
                emit(f"delegate #{d.index} {d.id} stores its blob at location {d.location}, which is neither "
                     f"inline nor segment")
                continue
            if not 0 <= d.data_index < size:
                emit(f"delegate #{d.index} {d.id} points at {table}[{d.data_index}], but the program has {size}")


def program_references(program: Program, emit: Emit) -> None:
    """Segment indices of the constant segment, mutable data segments and named data."""
    n_seg = len(program.segments)
    cs = program.constant_segment
    if cs is not None and cs.offsets and not 0 <= cs.segment_index < n_seg:
        emit(f"constant_segment is segment {cs.segment_index}, but the program has {n_seg} segments")
    for k, m in enumerate(program.mutable_data_segments):
        if m.offsets and not 0 <= m.segment_index < n_seg:
            emit(f"mutable_data_segments[{k}] is segment {m.segment_index}, but the program has {n_seg} segments")
    for nd in program.named_data:
        if not 0 <= nd.segment_index < n_seg:
            emit(f"named data {nd.key!r} is segment {nd.segment_index}, but the program has {n_seg} segments")


# PRIVATE

def _each(hits: np.ndarray, emit: Emit):
    """Iterate over hit indices until the emitter is full, then count the rest as skipped."""
    hits = hits.tolist()
    for k, h in enumerate(hits):
        if emit.full():
            emit.skip(len(hits) - k)
            return
        yield h


def _instructions(plan: Plan, f: Facts, emit: Emit) -> None:
    n, ic = f.n, f.ic
    n_ops, n_del = len(plan.operators), len(plan.delegates)
    for kind, size, what in ((1, n_ops, "operator"), (2, n_del, "delegate")):
        bad = np.flatnonzero((ic.kind == kind) & ~((ic.target >= 0) & (ic.target < size)))
        for i in _each(bad, emit):
            emit(f"instruction {i} calls {what} {int(ic.target[i])}, but the plan has {size} {what}s",
                 instructions=(i,))
    chain_len = {c.index: c.stop - c.start for c in plan.chains}
    for i in np.flatnonzero(ic.kind == 4).tolist():
        instr = plan.instructions[i]
        d, size = instr.destination, chain_len.get(instr.chain)
        if d is None or size is None or not 0 <= d <= size:
            emit(f"instruction {i} jumps to {d}, outside its chain {instr.chain} "
                 f"(instructions 0..{size} of the chain)", instructions=(i,))
    bad_arg = (ic.args < 0) | (ic.args >= n)
    if bad_arg.any():
        owner = np.repeat(np.arange(f.m), np.diff(ic.starts))
        for i in _each(unique(owner[bad_arg]), emit):
            names = ic.args[ic.starts[i]:ic.starts[i + 1]].tolist()
            bad = [v for v in names if not 0 <= v < n]
            shown = ", ".join(f"%{v}" for v in bad)
            emit(f"{instruction_text(plan, i)} names {shown}, but the plan has only {n} values (%0..%{n - 1})",
                 values=bad, instructions=(i,))


def _lists(plan: Plan, f: Facts, emit: Emit) -> None:
    """TensorList/OptionalTensorList items must be tensors (or -1 for None), IntList items Ints: all
    three store value indices (the runtime checks IntList items the same way, ``method.cpp``)."""
    n = f.n
    lists = np.flatnonzero(isin(f.kind, LIST_KINDS))
    if not lists.size:
        return
    values = plan.values
    parent: list[int] = []
    items: list[int] = []
    for v in lists.tolist():
        got = values[v].value
        if isinstance(got, tuple):
            parent.extend([v] * len(got))
            items.extend(i if isinstance(i, int) else -(1 << 62) for i in got)
    par = np.asarray(parent, dtype=np.int64)
    it = np.asarray(items, dtype=np.int64)
    pkind = f.kind[par] if par.size else np.zeros(0, np.uint8)
    none_ok = (pkind == KIND["OptionalTensorList"]) & (it == -1)
    inside = (it >= 0) & (it < n)
    ikind = np.where(inside, f.kind[np.clip(it, 0, max(n - 1, 0))], 255) if n else np.full(it.size, 255)
    wrong = inside & np.where(pkind == KIND["IntList"], ikind != KIND["Int"], ikind != KIND["Tensor"])
    for k in _each(np.flatnonzero((~inside & ~none_ok) | wrong), emit):
        v, item = int(par[k]), int(it[k])
        kind = values[v].type
        if not 0 <= item < n:
            emit(f"{kind} %{v} has item %{item}, but the plan has only {n} values", values=(v,))
        else:
            want = "an Int" if kind == "IntList" else "a tensor"
            emit(f"{kind} %{v} has item {value_text(plan, item)}, which is not {want}", values=(v, item))


def _tensors(plan: Plan, f: Facts, program: Program | None, emit: Emit) -> None:
    n_buf = len(plan.buffer_sizes)
    mid = f.memory_id
    for v in _each(np.flatnonzero(f.planned & ((mid < 1) | (mid >= n_buf))), emit):
        m = int(mid[v])
        why = ("memory_id 0 is reserved (planned tensors live in arenas 1..)" if m == 0
               else f"the plan has arenas 1..{n_buf - 1}" if n_buf > 1 else "the plan has no arenas")
        emit(f"{value_text(plan, v)} is planned in arena {m} at offset {int(f.offset[v])}, but {why}",
             values=(v,), memory_id=m)
    if program is None:
        return
    cs = program.constant_segment
    from_segment = cs is not None and bool(cs.offsets)
    const_limit = len(cs.offsets) if from_segment else len(program.constant_buffer_sizes)
    table = "constant_segment.offsets" if from_segment else "constant_buffer"
    dbi = f.data_buffer_idx
    const = f.is_tensor & (f.storage == STORAGE["constant"])
    for v in _each(np.flatnonzero(const & (dbi >= const_limit)), emit):
        emit(f"constant {value_text(plan, v)} has data_buffer_idx {int(dbi[v])}, but {table} has "
             f"{const_limit} entries", values=(v,))
    mutable = program.mutable_data_segments
    for v in np.flatnonzero(f.is_tensor & (f.storage == STORAGE["mutable"]) & (dbi > 0)).tolist():
        t = plan.values[v]
        k = t.mutable_data_segments_idx or 0
        hint = ""
        if t.data_buffer_idx < const_limit:
            hint = (f"; index {t.data_buffer_idx} exists in the constant table instead, so the exporter "
                    f"probably deduplicated the initial state against a constant and lost it")
        if not 0 <= k < len(mutable):
            emit(f"mutable {value_text(plan, v)} has initial state (data_buffer_idx "
                 f"{t.data_buffer_idx}) in mutable_data_segments[{k}], but the program has "
                 f"{len(mutable)} mutable data segments{hint}", values=(v,))
        elif not t.data_buffer_idx < len(mutable[k].offsets):
            emit(f"mutable {value_text(plan, v)} has data_buffer_idx {t.data_buffer_idx}, but "
                 f"mutable_data_segments[{k}].offsets has {len(mutable[k].offsets)} entries{hint}",
                 values=(v,))
