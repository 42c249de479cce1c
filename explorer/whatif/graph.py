"""The graph executorch's device pass and memory planner see, rebuilt from a plan, and the pass re-run on it.

A plan is read back into the shape of the FX graph ``to_executorch`` had when it ran
``PropagateDevicePass`` (``exir/passes/propagate_device_pass.py``, executorch 1.5.1): every
``et_copy`` copy is taken out again (a copy's output stands for the tensor it copies, so a value that
went through ``h2d(d2h(x))`` is ``x`` again), every tensor is back on the CPU, and each delegate call keeps
its ``target_device``. That *neutral* graph is what the partitioner left; moves change delegates'
target devices (or turn host kernels into delegated regions, :mod:`.whatif_regions`), and
:func:`propagate` then does what the pass does:

* ``_insert_h2d_copies``: before every delegate with a ``target_device``, one ``_h2d_copy`` per tensor
  argument *position* (per consumer, not per value: a CPU input feeding 30 device delegates is copied
  30 times), method inputs, buffers and constants included. With ``skip_h2d_for_method_inputs`` a
  placeholder argument is re-tagged to the device instead, and the pass raises unless the placeholder
  has exactly one user (we predict that as a refusal with executorch's message).
* ``_insert_d2h_for_getitem``: every output of such a delegate is on its device, and a ``_d2h_copy``
  follows it with *all* its uses (method output included) rewired to the copy; with
  ``skip_d2h_for_method_outputs`` no copy when every user is the output node.
* ``_elide_redundant_same_device_copies``: an ``_h2d_copy`` of a ``_d2h_copy`` of ``x`` reads ``x``
  directly when ``x`` is already on the h2d's device (``cuda:0 -> cuda:1`` never is), then dead d2h
  copies go (``eliminate_dead_code``).

The result is a list of :class:`Op` in run order, with ``getitem`` pseudo-ops where FX has them (they
emit no instruction but count in lifetimes), which :mod:`.whatif_emit` plans and emits.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from explorer.errors import Refusal
from explorer.model.program import Delegate, Device, Plan, Tensor, Value
from explorer.analysis.facts import Facts
from explorer.analysis.graph import dataflow, edges, is_copy
from explorer.analysis.lifetimes import aliases, state_values

__all__ = ["Op", "Neutral", "neutralize", "propagate", "Refusal", "CopyValue"]


@dataclass
class Op:
    """One node of the emulated graph: a kernel, delegate call, copy, getitem, or other instruction."""

    kind: str  # kernel | delegate | h2d | d2h | getitem | other
    orig: int | None = None  # original instruction index (None: made by the prediction)
    reads: list[int] = field(default_factory=list)  # tensor arguments, in argument order (duplicates kept)
    writes: list[int] = field(default_factory=list)  # values it writes (a delegate: its outputs, in order)
    args: list[int] = field(default_factory=list)  # every argument as emitted (kernels, other)
    device: Device | None = None  # a delegate's target_device; a copy's destination
    delegate: Delegate | None = None  # a delegate call's delegate (original, retargeted or new)
    source: "Op | None" = None  # getitem: its delegate
    region: tuple[int, ...] = ()  # a delegate made from moved kernels: the original instructions in it
    owned: list[int] = field(default_factory=list)  # values the emitter creates at this node, in order
    region_views: dict = field(default_factory=dict)  # a region's call: output -> static views of it


@dataclass(frozen=True)
class CopyValue:
    """A tensor a predicted copy writes: ``source``'s shape and dtype on ``device``."""

    source: int
    device: Device


@dataclass
class Neutral:
    """A plan with its copies taken out (module doc), plus what emitting it again needs."""

    plan: Plan
    ops: list[Op]
    outputs: list[int]  # plan outputs, through copies
    inputs: list[int]
    lists: dict[int, Value]  # list values whose items were rewritten through copies
    placeholders: list[int]  # values the emitter makes before the first instruction, in order
    state: set[int]  # mutable buffers (lifetime to the end)
    alias: dict[int, int]  # static/kernel views -> base
    alloc_inputs: bool  # MemoryPlanningPass(alloc_graph_input=...)
    alloc_outputs: bool  # MemoryPlanningPass(alloc_graph_output=...)
    skip_inputs_seen: bool = False  # the original had an input retagged by skip_h2d (no copy)
    extra: dict[int, CopyValue] = field(default_factory=dict)  # new values (index >= len(plan.values))
    device: dict[int, Device] = field(default_factory=dict)  # tensors off the CPU after propagate


def neutralize(plan: Plan) -> Neutral:
    """Take the copies out of ``plan`` and put every tensor back on the CPU (module doc).

    long-function: one walk over the values and instructions that builds four tables at once (who creates each
    value, the ops, the lists, the placeholders), each step reading what the step before it left; apart they
    would pass the same half-built tables back and forth."""
    values = plan.values
    n = len(values)
    facts = Facts(plan)
    flow_edges = edges(plan, facts)
    flow = dataflow(plan, flow_edges)
    instructions = list(plan.instructions)
    subst: dict[int, int] = {}
    for ins in instructions:
        if is_copy(ins):
            reads = [v for v in flow.reads[ins.index] if isinstance(values[v], Tensor)]
            writes = flow.writes[ins.index]
            if reads and writes:
                subst[writes[0]] = reads[0]

    def root(v: int) -> int:
        seen = set()
        while v in subst and v not in seen:
            seen.add(v)
            v = subst[v]
        return v

    first = _first_mentions(plan, n)
    inputs = set(plan.inputs)
    alias = aliases(plan, facts, flow_edges)
    state = set(state_values(plan, facts, flow_edges, alias).tolist())
    instructions_ = instructions

    def creates(v: int, f: int | None) -> bool:
        """Whether instruction f makes value v (a scalar or list it names first, a tensor it writes that
        is not the ``self`` of an in-place op such as ``index_put_`` / ``copy_``, which existed before)."""
        if f is None:
            return False
        if not isinstance(values[v], Tensor):
            return True
        if v not in flow.writes[f]:
            return False
        ins = instructions_[f]
        if ins.kind == "KernelCall" and ins.op and ins.op.split(".", 1)[0].endswith("_") and ins.args[:1] == (v,):
            return False
        return True

    born = _placeholder_born(plan, first, inputs, state, creates)
    # a planned placeholder that is no user input is a mutable buffer (other buffers become constants)
    state |= {v for v in born if isinstance(values[v], Tensor) and values[v].memory_id is not None
              and v not in inputs}
    ops: list[Op] = []
    # Which node creates each value (the emitter numbers values in node order): a value an instruction
    # first names and writes (or a scalar/list it first names) is that instruction's; a tensor first named
    # as a read (a static view, a scratch buffer) or never named was made by the node just before it, so it
    # goes with the value before it (after the placeholders' values when that one is a placeholder's).
    owned_by: dict[int, list[int]] = {}
    late_born: list[int] = []
    owner: dict[int, int] = {}
    for v in range(n):
        if v in born:
            continue
        f = first[v]
        if creates(v, f):
            owner[v] = f
        elif v - 1 in owner:
            owner[v] = owner[v - 1]
        else:
            late_born.append(v)
            continue
        owned_by.setdefault(owner[v], []).append(v)
    lists: dict[int, Value] = {}
    for v in range(n):
        val = values[v]
        if isinstance(val, Value) and val.type in ("TensorList", "OptionalTensorList") and isinstance(val.value, tuple):
            items = tuple(root(x) if isinstance(x, int) and x >= 0 else x for x in val.value)
            if items != val.value:
                lists[v] = Value(v, val.type, items)
    carry: list[int] = []  # values a dropped copy named first (a view it copies): with the op before it
    for ins in instructions:
        if is_copy(ins):
            extra = [v for v in owned_by.get(ins.index, []) if v not in subst]
            if ops:
                ops[-1 if ops[-1].kind != "getitem" else _last_real(ops)].owned.extend(extra)
            else:
                carry.extend(extra)
            continue
        i = ins.index
        owned = [v for v in owned_by.get(i, []) if v not in subst]
        if ins.kind == "DelegateCall":
            writes = list(flow.writes[i])
            args = [root(a) for a in ins.args]
            ins_args = args[:len(args) - len(writes)] if writes else args
            reads = [a for a in ins_args if 0 <= a < n and isinstance(values[a], Tensor)]
            d = plan.delegates[ins.delegate_index] if ins.delegate_index is not None and \
                0 <= ins.delegate_index < len(plan.delegates) else None
            op = Op("delegate", i, reads, writes, args, d.target_device if d else None, d, owned=owned)
            ops.append(op)
            for w in writes:
                ops.append(Op("getitem", None, [], [w], [], source=op))
            continue
        kind = "kernel" if ins.kind == "KernelCall" else "other"
        args = [root(a) if 0 <= a < n else a for a in ins.values]
        reads = [root(v) for v in flow.reads[i] if isinstance(values[v], Tensor)]
        ops.append(Op(kind, i, reads, list(flow.writes[i]), args, owned=owned))
    outputs = [root(o) for o in plan.outputs]
    placeholders = sorted(born) + late_born + carry
    tensor_ins = [v for v in plan.inputs if 0 <= v < n and isinstance(values[v], Tensor)]
    alloc_inputs = not tensor_ins or any(values[v].memory_id is not None for v in tensor_ins)
    out_tensors = [v for v in outputs if 0 <= v < n and isinstance(values[v], Tensor)
                   and values[v].storage != "constant" and v not in inputs
                   and values[v].shape_dynamism != "dynamic_unbound"]
    alloc_outputs = all(values[v].memory_id is not None for v in out_tensors)
    skip_seen = any(not values[v].device.is_cpu for v in tensor_ins)
    # a view of a copy's output is a view of the tensor it copies again; a view of a delegate output is made
    # after that output's getitem (and after the d2h copy the pass puts there), so its getitem owns it
    alias = {v: root(b) for v, b in alias.items() if v not in subst}
    for k, op in enumerate(ops):
        if op.kind != "delegate":
            continue
        getitems = {gi.writes[0]: gi for gi in ops[k + 1:k + 1 + len(op.writes)] if gi.kind == "getitem"}
        moved = [v for v in op.owned if alias.get(v) in getitems]
        for v in moved:
            getitems[alias[v]].owned.append(v)
        op.owned = [v for v in op.owned if v not in moved]
    ops = settle_getitems(ops, alias)
    return Neutral(plan, ops, outputs, list(plan.inputs), lists, placeholders, state, alias,
                   alloc_inputs, alloc_outputs, skip_seen)


def settle_getitems(ops: list[Op], alias: dict[int, int]) -> list[Op]:
    """Put each delegate's ``getitem`` nodes where ``to_backend``'s last re-sort left them.

    After lowering, ``create_submodule_from_nodes`` (``exir/lowered_backend_module.py``) runs ``legalize_graph``
    (``torch/fx/passes/tools_common.py``): Kahn's sort with a FIFO queue, so the order is the order nodes became
    ready. A delegate's getitems become ready when the call is taken from the queue, after every node that was
    already waiting: the nodes after the call whose inputs were all made before it (an independent CPU op, a
    ``logical_or`` of two method inputs) come between the call and its getitems — and the d2h copies
    ``_insert_d2h_for_getitem`` (``exir/passes/propagate_device_pass.py``) puts after the getitems come after
    them. The emitted plan shows no getitem, but it shows that order, so it is restored from it: the getitems of
    the earliest pending call go just before the first node that reads something made at or after that call."""
    base = [op for op in ops if op.kind != "getitem"]
    getitems: dict[int, list[Op]] = {}
    for op in ops:
        if op.kind == "getitem" and op.source is not None:
            getitems.setdefault(id(op.source), []).append(op)
    if not getitems:
        return ops
    made_at: dict[int, int] = {}  # value -> position of the node that made it (placeholders: absent)
    waiting: set[int] = set()  # values of getitems not placed yet
    pending: deque[tuple[int, list[Op]]] = deque()  # (position of the call, its getitems)
    out: list[Op] = []

    def flush() -> None:
        _, items = pending.popleft()
        for gi in items:
            for w in gi.writes:
                made_at[w] = len(out)
                waiting.discard(w)
            out.append(gi)

    for op in base:
        reads = [alias.get(v, v) for v in op.reads]
        while pending and any(v in waiting or made_at.get(v, -1) >= pending[0][0] for v in reads):
            flush()
        if op.kind != "delegate":
            for w in op.writes:
                made_at.setdefault(w, len(out))
        out.append(op)
        items = getitems.get(id(op), [])
        if items:
            pending.append((len(out) - 1, items))
            waiting.update(w for gi in items for w in gi.writes)
    while pending:
        flush()
    return out


def _last_real(ops: list[Op]) -> int:
    """Index of the last op that is not a getitem (a delegate's getitems follow it)."""
    k = len(ops) - 1
    while k > 0 and ops[k].kind == "getitem":
        k -= 1
    return k


def _first_mentions(plan: Plan, n: int) -> list[int | None]:
    """Per value: the first instruction naming it (list items count as named by the list's instruction)."""
    first: list[int | None] = [None] * n
    values = plan.values
    for ins in plan.instructions:
        for v in ins.values:
            if 0 <= v < n:
                val = values[v]
                if isinstance(val, Value) and val.type in ("TensorList", "OptionalTensorList", "IntList") \
                        and isinstance(val.value, tuple):
                    for x in val.value:
                        if isinstance(x, int) and 0 <= x < n and first[x] is None:
                            first[x] = ins.index
                if first[v] is None:
                    first[v] = ins.index
    return first


def _placeholder_born(plan: Plan, first: list[int | None], inputs: set[int], state: set[int], creates) -> set[int]:
    """Values the emitter makes for placeholders, before any instruction: the prefix of the value table
    below the first value an instruction creates (inputs, parameters, constants, mutable buffers)."""
    values = plan.values
    n = len(values)
    start = n
    for v in range(n):
        if first[v] is None or v in inputs or v in state or not creates(v, first[v]):
            continue
        val = values[v]
        if isinstance(val, Tensor) and (val.storage == "constant" or val.name):
            continue
        start = v
        break
    return set(range(start)) | {v for v in inputs if 0 <= v < n}


def propagate(g: Neutral, skip_h2d: bool, skip_d2h: bool) -> None:
    """Re-run ``PropagateDevicePass`` (enable_non_cpu_memory_planning=True) on ``g.ops`` in place.

    The readers of each value and the lists holding it are indexed once, so the pass is linear in the plan."""
    values = g.plan.values
    n = len(values)
    placeholders = set(g.placeholders)
    readers: dict[int, list[Op]] = {}  # value -> ops reading it (each op once)
    for op in g.ops:
        if op.kind != "getitem":
            for v in dict.fromkeys(op.reads):
                readers.setdefault(v, []).append(op)
    holders: dict[int, list[int]] = {}  # tensor -> TensorList values holding it
    for v in range(n):
        val = g.lists.get(v, values[v])
        if isinstance(val, Value) and val.type in ("TensorList", "OptionalTensorList") and isinstance(val.value, tuple):
            for x in dict.fromkeys(val.value):
                if isinstance(x, int) and x >= 0:
                    holders.setdefault(x, []).append(v)
    outputs = set(g.outputs)
    views_of: dict[int, list[int]] = {}  # base -> its static views (a view node is a user of its base)
    for v, b in g.alias.items():
        views_of.setdefault(b, []).append(v)

    def rewire(old: int, new: int, users: list[Op]) -> None:
        for u in users:
            u.reads = [new if r == old else r for r in u.reads]
            u.args = [new if r == old else r for r in u.args]
        have = readers.setdefault(new, [])
        have.extend(u for u in users if all(u is not h for h in have))
        readers[old] = [u for u in readers.get(old, []) if all(u is not x for x in users)]

    new_ops: list[Op] = []
    # Pass 1: h2d copies before every device delegate's tensor arguments (or a retag with skip_h2d).
    for op in g.ops:
        if op.kind == "delegate" and op.device is not None:
            reads = []
            for a in op.reads:
                if skip_h2d and a in placeholders:
                    users = len(readers.get(a, [])) + (1 if a in outputs else 0)
                    if users != 1:
                        name = _name(values[a], a)
                        raise Refusal(
                            f"skip_h2d_for_method_inputs=True requires placeholder '{name}' to have exactly one "
                            f"user, but it has {users} users (executorch 1.5.1, PropagateDevicePass."
                            f"_insert_h2d_copies raises RuntimeError)")
                    g.device[a] = op.device
                    reads.append(a)
                    continue
                c = n + len(g.extra)
                g.extra[c] = CopyValue(a, op.device)
                g.device[c] = op.device
                h2d = Op("h2d", None, [a], [c], [a, c, c], op.device, owned=[c])
                new_ops.append(h2d)
                readers.setdefault(a, []).append(h2d)
                readers.setdefault(c, []).append(op)
                reads.append(c)
            for a in set(op.reads) - set(reads):
                readers[a] = [u for u in readers.get(a, []) if u is not op]
            op.reads = reads
            for w in op.writes:
                g.device[w] = op.device
        new_ops.append(op)
    g.ops = new_ops
    # Pass 2: a d2h copy after every output of a device delegate, every use rewired to it.
    new_ops = []
    for op in g.ops:
        new_ops.append(op)
        if op.kind != "getitem" or op.source.device is None:
            continue
        w = op.writes[0]
        users = list(readers.get(w, []))
        views = views_of.get(w, [])
        if skip_d2h and not users and not holders.get(w) and not views:
            continue  # every user is the output node: the output stays on the device
        c = n + len(g.extra)
        g.extra[c] = CopyValue(w, Device(0, 0))
        rewire(w, c, users)
        if w in outputs:
            g.outputs = [c if o == w else o for o in g.outputs]
            outputs.discard(w)
            outputs.add(c)
        for lv in holders.pop(w, []):
            val = g.lists.get(lv, values[lv])
            g.lists[lv] = Value(lv, val.type, tuple(c if x == w else x for x in val.value))
            holders.setdefault(c, []).append(lv)
        for v in views:  # the view reads the copy now (replace_all_uses_with): a CPU view of it
            g.alias[v] = c
        d2h = Op("d2h", None, [w], [c], [w, c, c], Device(0, 0), owned=[c, *op.owned])
        op.owned = []
        readers.setdefault(w, []).append(d2h)
        new_ops.append(d2h)
    g.ops = new_ops
    # Pass 3: h2d(d2h(x)) with x already on the h2d's device reads x.
    made_by = {op.writes[0]: op for op in g.ops if op.kind in ("h2d", "d2h")}
    elided: set[int] = set()
    for op in g.ops:
        if op.kind != "h2d":
            continue
        src = made_by.get(op.reads[0])
        if src is None or src.kind != "d2h":
            continue
        x = src.reads[0]
        if g.device.get(x) != op.device:
            continue
        c = op.writes[0]
        rewire(c, x, list(readers.get(c, [])))
        readers[op.reads[0]] = [u for u in readers.get(op.reads[0], []) if u is not op]
        elided.add(id(op))
    if elided:  # eliminate_dead_code: d2h copies nobody reads any more go too (a view of one is a reader)
        viewed = set(g.alias.values())
        g.ops = [op for op in g.ops if id(op) not in elided and not (
            op.kind == "d2h" and op.writes[0] not in outputs and not readers.get(op.writes[0])
            and not holders.get(op.writes[0]) and op.writes[0] not in viewed)]


def _name(value, index: int) -> str:
    return getattr(value, "name", None) or f"%{index}"
