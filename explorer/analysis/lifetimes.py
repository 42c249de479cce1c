"""Lifetimes: from which instruction to which instruction each value must stay alive.

The base definition (docs/analysis.md): a value lives from the first to the last instruction (in run
order) that names it; plan inputs live from the start (instruction 0), plan outputs to the end (the
last instruction); moves, jumps and frees count as uses. Intervals are inclusive on both ends.

Refinements, each needed to match what the runtime and executorch's memory planner
(``exir/memory_planning.py``, ``update_tensor_lifetime``) actually do:

* **Lists name their items.** An instruction naming a TensorList/OptionalTensorList touches the tensors
  in it (``aten::cat`` reads its inputs through one), so the items are alive there too. This comes for
  free from :mod:`.graph`, whose reads/writes already expand lists.
* **Views share their base's bytes and lifetime.** executorch emits two kinds of view (see
  :mod:`.ops`). A *static* view (``exir.memory.view``, e.g. an unsqueeze) is a separate value with
  *the same* arena, offset, dtype and byte size as its base and no instruction writing it; we
  recognise it as an *alias* of the tensor with the same (arena, offset, nbytes, dtype) that was
  written last at or before the view's first use (or is a plan input or mutable state). A *dynamic*
  view is an ``executorch_prim::et_view`` kernel whose out tensor takes its ``self``'s bytes at run
  time (any operator listed in :data:`.ops.ALIAS_OPS`): the out is an alias of that argument. Both
  follow the planner's ``_ViewSpec``, which shares ``lifetime``, ``mem_id`` and ``mem_offset`` with
  the base. A view of a view is an alias of the first base. The base's lifetime is extended over
  its views' (its bytes must stay alive while any view is used); the memory map and the
  live-overlap check count those bytes once, through the base (:func:`aliases`).
* **Mutable state lives for the whole plan.** The planner never frees mutable buffers ("mutable buffers
  are never freed"): their contents carry over from one call to the next. We recognise them as planned
  tensors that are not plan inputs and either have initial state in the file (``storage == "mutable"``),
  carry a fully-qualified name (``emit_mutable_buffer_names``: only mutable buffers get one), or are
  read before an instruction writes them back and are no view (a buffer with a meaningless initial
  state, as executorch exports ``self.count.add_(x)``: read by ``add.out``, written back by
  ``copy_``). All get ``[0, last]``.
* **Scratch tensors live only where they are used.** A planned tensor that instructions read but none
  ever writes, that is no input, no view and no named state, is a work buffer a kernel takes as an
  argument (a Cortex-M ``quantized_avg_pool2d.out`` ``Tensor scratch``): its contents mean nothing
  before or after the call, and the planner gives it the lifetime of the node that uses it. It keeps
  the plain definition (first to last instruction naming it), not the whole plan.

* **Values carried around a loop live through the whole loop.** A backward ``JumpFalseCall`` (the
  loop ``map`` emits: body, ``et_copy_index``, counter update, jump back) runs its body again. A
  tensor alive before the loop and named inside it (an input read in every iteration) keeps its
  bytes to the loop's last instruction; a tensor a kernel updates in place inside the loop
  (:data:`.ops.WRITTEN_ARG`: the ``map`` accumulator gets one row per iteration) keeps them from the
  loop's first. Temporaries made and used inside one iteration keep their own lifetimes, and so does
  a value rewritten whole in every iteration and read after the loop.

A plan with no instructions still has one step (0), so inputs and outputs get ``[0, 0]``.
"""

from __future__ import annotations

import numpy as np

from explorer.analysis.arrays import isin, unique
from explorer.model.program import Plan
from explorer.analysis.facts import STORAGE, Facts
from explorer.analysis.graph import Edges, edges
from explorer.analysis.ops import alias_source, written_position
from explorer.analysis.types import Lifetime

__all__ = ["lifetimes", "lifetime_arrays", "state_values", "aliases", "first_uses"]


def first_uses(f: Facts, e: Edges) -> tuple[np.ndarray, np.ndarray]:
    """Per value: the first instruction writing it and the first reading it (``len(instructions)``
    when none). Edges are in run order, so a value's first occurrence is its earliest."""
    m = f.m
    out = []
    for mask in (e.write, ~e.write):
        first = np.full(f.n, m, dtype=np.int64)
        vals = e.value[mask]
        if vals.size:
            uniq, pos = unique(vals, return_index=True)
            first[uniq] = e.instr[mask][pos]
        out.append(first)
    return out[0], out[1]


def lifetime_arrays(plan: Plan, f: Facts | None = None, e: Edges | None = None,
                    alias: dict[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(first, last)`` int64 arrays indexed by value; ``-1`` in both where the value has no lifetime.

    This is the form the memory map and checks use (vectorised); :func:`lifetimes` turns it into records.
    ``alias`` is :func:`aliases`' result (computed when not given).
    """
    f = f if f is not None else Facts(plan)
    e = e if e is not None else edges(plan, f)
    alias = aliases(plan, f, e) if alias is None else alias
    n = f.n
    end = max(f.m, 1) - 1
    first = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    if e.value.size:
        uniq, pos = unique(e.value, return_index=True)
        first[uniq] = e.instr[pos]
        uniq_r, pos_r = unique(e.value[::-1], return_index=True)
        last[uniq_r] = e.instr[::-1][pos_r]
    ins = np.flatnonzero(f.input_mask)
    first[ins] = 0
    last[ins] = np.maximum(last[ins], 0)
    outs = np.asarray([i for i in plan.outputs if 0 <= i < n], dtype=np.int64)
    if outs.size:
        first[outs] = np.where(first[outs] < 0, end, first[outs])
        last[outs] = end
    state = state_values(plan, f, e, alias)
    first[state] = 0
    last[state] = end
    for view, base in alias.items():  # the base's bytes stay alive while the view is used
        first[base] = min(first[base], first[view]) if first[base] >= 0 else first[view]
        last[base] = max(last[base], last[view])
    loops = _loops(plan, f)
    if loops:
        updaters = np.asarray([k for k, op in enumerate(plan.operators) if written_position(op.name) is not None],
                              dtype=np.int64)
        updated_at = (f.ic.kind == 1) & isin(f.ic.target, updaters)  # per instruction
        for top, bottom in loops:
            inside = (e.instr >= top) & (e.instr <= bottom)
            named = np.zeros(n, dtype=bool)
            named[e.value[inside]] = True
            live_in = named & (first >= 0) & (first < top)
            last[live_in] = np.maximum(last[live_in], bottom)
            updated = np.zeros(n, dtype=bool)
            updated[e.value[inside & e.write & updated_at[e.instr]]] = True
            first[updated] = np.minimum(first[updated], top)
            last[updated] = np.maximum(last[updated], bottom)
    return first, last


def _loops(plan: Plan, f: Facts) -> list[tuple[int, int]]:
    """(first, last) instruction of every loop: a JumpFalseCall jumping back to or before itself."""
    jumps = np.flatnonzero(f.ic.kind == 4)
    if not jumps.size:
        return []
    chains = [(c.start, c.stop) for c in plan.chains]
    out = []
    for j in jumps.tolist():
        d = int(f.ic.target[j])
        start = next((a for a, b in chains if a <= j < b), None)
        if start is not None and d >= 0 and start + d <= j:
            out.append((start + d, j))
    return out


def aliases(plan: Plan, f: Facts | None = None, e: Edges | None = None) -> dict[int, int]:
    """View value -> base value, for the static views the emitter writes as separate values (module doc).

    Candidates are planned, non-input, never-written tensors that something reads; each is matched to
    a tensor with the same (memory_id, offset, nbytes, dtype) written last at or before the view's
    first use. Vectorised except over the (few) candidates.
    """
    f = f if f is not None else Facts(plan)
    e = e if e is not None else edges(plan, f)
    out = _static_views(plan, f, e)
    out.update(_kernel_views(plan, f))
    return _resolve(out)


def _kernel_views(plan: Plan, f: Facts) -> dict[int, int]:
    """Out tensor -> source argument of every aliasing kernel (:data:`.ops.ALIAS_OPS`)."""
    sources = {k: alias_source(op.name) for k, op in enumerate(plan.operators)}
    ops = [k for k, pos in sources.items() if pos is not None]
    if not ops:
        return {}
    ic, n = f.ic, f.n
    out: dict[int, int] = {}
    for i in np.flatnonzero((ic.kind == 1) & isin(ic.target, ops)).tolist():
        args = ic.args[ic.starts[i]:ic.starts[i + 1]].tolist()
        pos = sources[int(ic.target[i])]
        if len(args) < pos + 2:
            continue
        src, view = args[pos], args[-1]
        if src == view or not (0 <= src < n and 0 <= view < n) or not (f.is_tensor[src] and f.is_tensor[view]):
            continue
        if f.input_mask[view]:
            continue
        out[view] = src
    return out


def _resolve(alias: dict[int, int]) -> dict[int, int]:
    """Point every view at its first base (a view of a view is a view of the base); cycles, which
    only a broken file can make, are dropped."""
    out: dict[int, int] = {}
    for view in alias:
        seen = {view}
        base = alias[view]
        while base in alias and base not in seen:
            seen.add(base)
            base = alias[base]
        if base not in seen:
            out[view] = base
    return out


def _static_views(plan: Plan, f: Facts, e: Edges) -> dict[int, int]:
    """View -> base of the views memory planning made by sharing storage: a planned, non-input tensor never
    written but read, whose (arena, offset, bytes, dtype) equals a tensor written (or an input, or mutable
    state: time 0) at or before that first read; of those, the one written last (the earliest value on a tie).

    On columns: the candidates are sorted once by (storage key, write time, -index) and each view finds its
    base with one ``searchsorted`` of (its key, its first read): no Python loop over tensors."""
    first_write, first_read = first_uses(f, e)
    m = f.m
    views = np.flatnonzero((f.storage == STORAGE["planned"]) & ~f.input_mask & (first_write == m)
                           & (first_read < m))
    if not views.size:
        return {}
    planned = np.flatnonzero(f.planned)
    at_zero = f.input_mask[planned] | (f.storage[planned] == STORAGE["mutable"])
    timed = at_zero | (first_write[planned] < m)
    cand = planned[timed]
    ctime = np.where(at_zero[timed], 0, first_write[cand]).astype(np.int64)
    key = np.stack([f.memory_id, f.offset, f.raw_nbytes, f.scalar_type.astype(np.int64)], axis=1)
    rows = np.concatenate([cand, views])
    k = key[rows]
    order = np.lexsort(k.T[::-1])
    change = np.r_[True, np.any(k[order][1:] != k[order][:-1], axis=1)]
    gid = np.empty(rows.size, dtype=np.int64)
    gid[order] = np.cumsum(change) - 1
    gc, gv = gid[:cand.size], gid[cand.size:]
    span = m + 2  # times are 0..m: (group, time) packed in one int64
    packed = gc * span + ctime
    by = np.lexsort((-cand, packed))  # within a (group, time) tie the smallest index comes last
    packed, cand = packed[by], cand[by]
    use = first_read[views].astype(np.int64)
    pos = np.searchsorted(packed, gv * span + use, side="right") - 1
    hit = pos >= 0
    hit[hit] = packed[pos[hit]] // span == gv[hit]
    return dict(zip(views[hit].tolist(), cand[pos[hit]].tolist()))


def state_values(plan: Plan, f: Facts | None = None, e: Edges | None = None,
                 alias: dict[int, int] | None = None) -> np.ndarray:
    """Planned non-input tensors that carry state between calls (see the module doc), as indices.

    Scratch tensors (read, never written, unnamed) are not state: they keep the lifetime of their uses."""
    f = f if f is not None else Facts(plan)
    e = e if e is not None else edges(plan, f)
    first_write, first_read = first_uses(f, e)
    m = f.m
    state = f.planned & ~f.input_mask & (
        (f.storage == STORAGE["mutable"]) | ((first_read < first_write) & (first_write < m)))
    # Named planned tensors are mutable buffers (only they get a fully-qualified name), even when
    # this plan only reads them. Few values: look at their objects.
    for v in np.flatnonzero(f.planned & ~f.input_mask & ~state & (first_read < first_write)).tolist():
        if getattr(plan.values[v], "name", None):
            state[v] = True
    if alias:
        state[np.fromiter(alias, dtype=np.int64, count=len(alias))] = False
    return np.flatnonzero(state)


def lifetimes(plan: Plan, arrays: tuple[np.ndarray, np.ndarray] | None = None) -> dict[int, Lifetime]:
    """Value index -> :class:`Lifetime` for every value with one (named by an instruction, a plan
    input/output, or mutable state)."""
    first, last = arrays if arrays is not None else lifetime_arrays(plan)
    idx = np.flatnonzero(first >= 0)
    return {v: Lifetime(v, f, l) for v, f, l in zip(idx.tolist(), first[idx].tolist(), last[idx].tolist())}
