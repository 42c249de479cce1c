"""Dataflow: which instruction reads and which writes each value.

A ``.pte`` stores each instruction's arguments as a flat list of value indices, with no marker saying
which are outputs. This module decides, with one rule per instruction kind, derived from how the
emitter (``exir/emit/_emitter.py``, executorch 1.5.1) lays the arguments out:

**KernelCall** — the emitter appends the schema arguments in order (an out-variant's ``out=`` is one of
them), then the flattened *return value*: one value for a single return, or one ``TensorList`` value
holding every output for several (``aten::split_copy.Tensor_out`` included). So the **last argument is
what the kernel returns, and it is written** (except for the few prim ops of :data:`.ops.WRITTEN_ARG`,
e.g. ``executorch_prim::et_copy_index(copy_to, copy_from, index)``, which writes its first); when it is a TensorList, its items are written too. An
out-variant therefore lists its out tensor twice (``et_copy::_h2d_copy.out`` args ``[src, dst, dst]``),
and an in-place op returns ``self`` (``aten::copy_`` args ``[self, src, non_blocking, self]``), so both
come out right. Exceptions: a constant tensor or ``Null`` in last place can't be a result (the op
returns nothing), so such a call writes nothing. Every other argument is read.

**DelegateCall** — the emitter appends the delegate's inputs, then its freshly emitted outputs. So the
**outputs are the longest run of trailing arguments that no earlier instruction named** and that are
not plan inputs or constants (if there is no such run, the last argument), and each above every argument
before it (the emitter makes the outputs after the inputs exist, so a lower index is an input: a mutable
buffer first read by the delegate as its last input, as in tests/fixtures/whatif_hard/buffers_cpu.pte). A
scalar input emitted just before the outputs would be miscounted as an output; that does not occur in real
exports we have seen.

**MoveCall** reads ``move_from`` and writes ``move_to``. **JumpFalseCall** reads its condition.
**FreeCall** consumes (reads) the value it frees.

A value may be written by more than one instruction: mutable buffers (read first, then written back by
``aten::copy_``), in-place copies and control-flow moves all re-write existing values; ``producers``
lists them all in run order. A written value is not also listed as read by the same instruction (an
in-place op's ``self`` counts as written), which keeps the graph free of two-node cycles.

TensorList, OptionalTensorList and IntList arguments stand for their items (all three store value
indices; the runtime resolves an IntList's items to Int values): ``reads``/``writes`` list the list
value followed by its (in-range) items. Indices that point nowhere are dropped here; the
``bad-reference`` check reports them.

On the real exports this agrees with the simpler "a planned non-input tensor is written by its first
mention" for every tensor except the two kinds that rule gets wrong: mutable state (first mentioned as
a read, written back later) and static views (never written at all; see lifetimes.py).

Everything is computed vectorised over the plan's columns (:mod:`.facts`) as flat :class:`Edges`;
:func:`dataflow` turns those into the :class:`~.types.Dataflow` record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.analysis.arrays import isin, unique
from explorer.model.program import Instruction, Plan, Value
from explorer.analysis.facts import LIST_KINDS, STORAGE, Facts
from explorer.analysis.ops import COPY_OPS, D2H_OPS, H2D_OPS, written_position
from explorer.analysis.types import Dataflow

__all__ = ["dataflow", "edges", "Edges", "COPY_OPS", "H2D_OPS", "D2H_OPS", "is_copy", "list_items"]

_LIST_TYPES = ("TensorList", "OptionalTensorList", "IntList")


def is_copy(instruction: Instruction) -> bool:
    """Whether the instruction is an explicit device copy (``et_copy::_h2d_copy``/``_d2h_copy``, any overload)."""
    op = instruction.op
    return op is not None and op.split(".", 1)[0] in COPY_OPS


def list_items(value: object, n_values: int) -> tuple[int, ...]:
    """The in-range item indices of a TensorList/OptionalTensorList/IntList value (``-1`` = None is skipped)."""
    if isinstance(value, Value) and value.type in _LIST_TYPES and isinstance(value.value, tuple):
        return tuple(i for i in value.value if isinstance(i, int) and 0 <= i < n_values)
    return ()


@dataclass(frozen=True, eq=False)
class Edges:
    """The dataflow as flat arrays, in run order: edge k says instruction ``instr[k]`` reads (or, when
    ``write[k]``, writes) value ``value[k]``. Per instruction, edges follow argument order (a list's
    items right after it), deduplicated, and a value written is not also read. Instruction i's edges
    are ``bounds[i]:bounds[i + 1]``."""

    instr: np.ndarray  # int64
    value: np.ndarray  # int64, always a valid value index
    write: np.ndarray  # bool
    bounds: np.ndarray  # int64, len(instructions) + 1


def edges(plan: Plan, facts: Facts | None = None) -> Edges:
    """The dataflow of ``plan`` as :class:`Edges` (vectorised; see the module doc for the rule)."""
    f = facts if facts is not None else Facts(plan)
    n, m, ic = f.n, f.m, f.ic
    counts = np.diff(ic.starts)
    e_i = np.repeat(np.arange(m, dtype=np.int64), counts)
    e_v = ic.args.astype(np.int64, copy=False)
    e_pos = np.arange(len(e_v), dtype=np.int64) - ic.starts[e_i]
    if n == 0:  # a plan without values: every argument points nowhere (bad-reference), so no edges
        empty = np.zeros(0, np.int64)
        return Edges(empty, empty, np.zeros(0, bool), np.zeros(m + 1, np.int64))
    valid = (e_v >= 0) & (e_v < n)
    safe_v = np.where(valid, e_v, 0)
    vkind = np.where(valid, f.kind[safe_v], 255)
    # List expansion: items follow their list (same instruction, same write flag, decided below).
    x_parent, x_value = _expand(plan, np.flatnonzero(isin(vkind, LIST_KINDS)), e_v, n)
    # First instruction naming each value (after expansion): for the delegate rule.
    all_i = np.concatenate([e_i[valid], e_i[x_parent]])
    all_v = np.concatenate([e_v[valid], x_value])
    first_named = np.full(n, m, dtype=np.int64)
    np.minimum.at(first_named, all_v, all_i)
    # Write flags on the arguments as stored.
    kind_i = ic.kind[e_i] if e_i.size else np.zeros(0, np.uint8)
    written_at = counts - 1  # per instruction: the argument a KernelCall writes (the last, by the rule)
    special = {k: pos for k, op in enumerate(plan.operators) if (pos := written_position(op.name)) is not None}
    if special:
        for k, pos in special.items():
            hit = (ic.kind == 1) & (ic.target == k) & (counts > pos)
            written_at[hit] = pos
    last = e_pos == written_at[e_i]
    storage = np.where(valid, f.storage[safe_v], 0)
    writable = valid & (vkind > 1) & ~((vkind == 5) & (storage == STORAGE["constant"]))
    write = ((kind_i == 1) & last & writable) | ((kind_i == 3) & (e_pos == 1) & valid)
    delegate = kind_i == 2
    if delegate.any():
        # Outputs start after the last argument that isn't fresh (named before, a plan input, data).
        sealed = (vkind == 5) & isin(storage, (STORAGE["constant"], STORAGE["external"], STORAGE["mutable"]))
        fresh = valid & (first_named[safe_v] == e_i) & ~f.input_mask[safe_v] & ~sealed
        # an output is made after every input of its call: an argument below an earlier one of the same call
        # is an input (a mutable buffer the delegate reads first, as the last input)
        seg = e_i * (n + 1)
        running = np.maximum.accumulate(seg + safe_v) if e_v.size else seg
        before = np.concatenate([np.full(1, -1, np.int64), running[:-1]]) if e_v.size else running
        fresh &= ~((before >= seg) & (safe_v < before - seg))
        split = np.full(m, -1, dtype=np.int64)
        np.maximum.at(split, e_i[delegate & ~fresh], e_pos[delegate & ~fresh])
        split += 1
        split = np.where(split == counts, counts - 1, split)  # nothing fresh: the last argument
        split = np.where((split == 0) & (counts > 1), 1, split)  # all fresh: the first is still an input
        write |= delegate & (e_pos >= split[e_i]) & valid
    # Merge items after their lists, drop invalid, then dedupe.
    base = np.flatnonzero(valid)
    order_key = np.concatenate([base, x_parent])
    sub = np.concatenate([np.zeros(base.size, np.int64), np.arange(1, x_parent.size + 1, dtype=np.int64)])
    order = np.lexsort((sub, order_key))
    instr = np.concatenate([e_i[base], e_i[x_parent]])[order]
    value = np.concatenate([e_v[base], x_value])[order]
    wr = np.concatenate([write[base], write[x_parent]])[order]
    key = instr * (n + 1) + value
    if wr.any():
        keep = wr | ~isin(key, key[wr])  # a value written here is not also read here
        instr, value, wr, key = instr[keep], value[keep], wr[keep], key[keep]
    _, first = unique(key * 2 + wr, return_index=True)
    first.sort()
    instr, value, wr = instr[first], value[first], wr[first]
    return Edges(instr, value, wr, np.searchsorted(instr, np.arange(m + 1, dtype=np.int64)))


def dataflow(plan: Plan, flow_edges: Edges | None = None) -> Dataflow:
    """Reads and writes of every instruction of ``plan`` and, per value, its producers and consumers."""
    e = flow_edges if flow_edges is not None else edges(plan)
    m = len(e.bounds) - 1
    per_instr = []
    for mask in (~e.write, e.write):
        vals = e.value[mask].tolist()
        cuts = np.searchsorted(e.instr[mask], np.arange(m + 1)).tolist()
        per_instr.append(tuple(tuple(vals[a:b]) for a, b in zip(cuts, cuts[1:])))
    return Dataflow(plan=plan.name, reads=per_instr[0], writes=per_instr[1],
                    producers=_group(e.value[e.write], e.instr[e.write]),
                    consumers=_group(e.value[~e.write], e.instr[~e.write]))


# PRIVATE

def _expand(plan: Plan, list_edges: np.ndarray, e_v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(parent edge, item value) for every in-range item of every list argument."""
    parents: list[int] = []
    items: list[int] = []
    values = plan.values
    cache: dict[int, tuple[int, ...]] = {}
    for k, v in zip(list_edges.tolist(), e_v[list_edges].tolist()):
        got = cache.get(v)
        if got is None:
            got = cache[v] = list_items(values[v], n)
        parents.extend([k] * len(got))
        items.extend(got)
    return np.asarray(parents, dtype=np.int64), np.asarray(items, dtype=np.int64)


def _group(values: np.ndarray, instrs: np.ndarray) -> dict[int, tuple[int, ...]]:
    """value -> instruction indices (run order), from parallel arrays sorted by instruction."""
    if not values.size:
        return {}
    order = np.argsort(values, kind="stable")
    sv, si = values[order], instrs[order]
    cuts = np.flatnonzero(np.diff(sv)) + 1
    starts = np.concatenate([[0], cuts]).tolist()
    ends = np.concatenate([cuts, [sv.size]]).tolist()
    si_list = si.tolist()
    return {v: tuple(si_list[a:b]) for v, a, b in zip(sv[starts].tolist(), starts, ends)}
