"""Plan the emulated graph's memory as executorch does and write it out as a :class:`~explorer.model.Plan`.

**Lifetimes** follow ``update_all_tensors_lifetime`` / ``update_tensor_lifetime``
(``exir/memory_planning.py``): the graph's nodes are numbered in order — placeholders, then per
instruction the ``memory.alloc`` node of each out tensor it creates followed by the op itself, a delegate
call followed by one ``getitem`` per output (each ``getitem`` names the whole output tuple, so every
output of a delegate lives at least to its last ``getitem``), each inserted copy as alloc + copy, and
the ``output`` node last. A tensor lives from the first to the last node naming it; placeholders from
0, mutable buffers to the last node.

**The output node's stale spec** (a quirk we emulate): ``SpecPropPass`` sets the output node's
``meta["spec"]`` before ``PropagateDevicePass`` inserts d2h copies, and nothing refreshes it. The
lifetime walk and ``get_graph_output_tensors`` read that spec, so the device tensor *behind* an
output's d2h copy lives to the end of the method (device arenas get bigger), and with
``alloc_graph_output=False`` that device tensor — not the copy the method returns — is left unplanned.

**Which tensors are planned** follows ``collect_specs_from_nodes`` in node order (the order ties are
broken by): not constants, not dynamic-unbound, not out-variant kernels' own nodes (their ``alloc``
node is collected instead), not graph inputs when ``alloc_graph_input=False`` nor the (stale) graph
outputs when ``alloc_graph_output=False``. Both flags are read from the original file (an unplanned
input or output says it was exported with that flag off). The specs are then planned per device by
:mod:`.whatif_greedy`.

**Value numbering** follows the emitter (``exir/emit/_emitter.py``): values are created as nodes are
emitted, so the placeholders' values come first, then each instruction's new values (an alloc'd out
tensor before the scalars of its call, a delegate's outputs, a copy's destination) in run order. An
original value keeps its place relative to the others; values of removed copies disappear. On an
export this reproduces executorch's own numbering, so a prediction can be compared value by value.
"""

from __future__ import annotations

from dataclasses import replace

from explorer.model.program import (CPU, BufferDevice, Chain, Delegate, Device, Instruction, Operator, Plan, Tensor,
    Value)
from explorer.whatif.graph import Neutral, Op
from explorer.whatif.greedy import Spec, plan_all

__all__ = ["emit"]

# value and instruction records whose instances hold exactly their fields (frozen dataclasses with no __post_init__,
# no cached property, no field left out of __init__): what _renewed copies without dataclasses.replace
_PLAIN = (Tensor, Value, Instruction)


def _renewed(obj, **changes):
    """``dataclasses.replace(obj, **changes)`` for a record of ``_PLAIN`` (else replace itself): the same object, made
    by copying its fields instead of calling ``__init__`` with every one of them — emit renews every value and
    instruction of a plan, and replace's per-call field walk was a fifth of a 3k-instruction what-if."""
    if type(obj) not in _PLAIN:
        return replace(obj, **changes)
    new = object.__new__(type(obj))
    fields = new.__dict__
    fields.update(obj.__dict__)
    fields.update(changes)
    return new


_COPY_OPS = {"h2d": Operator("et_copy::_h2d_copy", "out"), "d2h": Operator("et_copy::_d2h_copy", "out")}
_LISTS = ("TensorList", "OptionalTensorList", "IntList")


def emit(g: Neutral, stale_outputs: list[int]) -> tuple[Plan, tuple[tuple[int, ...], ...]]:
    """The plan executorch would emit for ``g`` (after :func:`~.whatif_graph.propagate`), and per predicted
    instruction the original instructions it stands for (empty for a copy the prediction added)."""
    plan = g.plan
    values = plan.values
    n = len(values)
    order = list(g.placeholders)
    for op in g.ops:
        order.extend(op.owned)
    life = _lifetimes(g, stale_outputs)
    specs = _collect(g, order, life, stale_outputs)
    padding = 64 if any(op.delegate is not None and op.delegate.id == "XnnpackBackend" for op in g.ops) else 0
    end = max((span[1] for span in life.values()), default=0)
    sizes, devices = plan_all(list(specs.values()) + _write_back_phantoms(g, end), extra_padding=padding)
    new_index = {v: k for k, v in enumerate(order)}

    def tensor_of(v: int) -> Tensor | None:
        if v < n:
            val = values[v]
            return val if isinstance(val, Tensor) else None
        return values[g.extra[v].source] if isinstance(values[g.extra[v].source], Tensor) else None

    out_values = []
    for k, v in enumerate(order):
        base = tensor_of(v)
        if base is None:
            val = g.lists.get(v, values[v])
            if isinstance(val, Value) and val.type in _LISTS and isinstance(val.value, tuple):
                items = tuple(new_index.get(x, x) if isinstance(x, int) and x >= 0 else x for x in val.value)
                out_values.append(Value(k, val.type, items))
            else:
                out_values.append(_renewed(val, index=k))
            continue
        spec = specs.get(v)
        view_of = g.alias.get(v)
        if view_of is not None and view_of in specs:
            spec = specs[view_of]
        device = g.device.get(v, CPU) if v < n else g.extra[v].device
        if view_of is not None:  # a view lives where its base lives
            device = g.device.get(view_of, CPU) if view_of < n else g.extra[view_of].device
        if v < n and base.storage in ("constant", "external"):
            device = CPU
        fields = dict(index=k, device=device, memory_id=spec.mem_id if spec else None,
                      offset=spec.offset if spec else None)
        if v >= n:
            fields.update(name=None, storage="planned" if spec else "runtime", data_buffer_idx=0,
                          mutable_data_segments_idx=None, requires_grad=False,
                          has_extra_info=not device.is_cpu)
        elif base.storage in ("planned", "runtime") and not base.planned == bool(spec):
            fields["storage"] = "planned" if spec else "runtime"
        if v < n and base.storage not in ("constant", "external"):
            # extra_tensor_info is written for a tensor off the CPU (and kept for what else had it on the CPU)
            fields["has_extra_info"] = not device.is_cpu or (base.has_extra_info and base.device.is_cpu)
        out_values.append(_renewed(base, **fields))

    operators: list[Operator] = []
    op_index: dict[Operator, int] = {}
    delegates: list[Delegate] = []
    del_index: dict[int, int] = {}
    instructions: list[Instruction] = []
    origins: list[tuple[int, ...]] = []
    orig = list(plan.instructions)
    for op in g.ops:
        if op.kind == "getitem":
            continue
        k = len(instructions)
        origins.append(op.region if op.region else ((op.orig,) if op.orig is not None else ()))
        if op.kind in ("h2d", "d2h"):
            oper = _COPY_OPS[op.kind]
            o = op_index.setdefault(oper, len(operators))
            if o == len(operators):
                operators.append(oper)
            args = tuple(new_index[a] for a in op.args)
            instructions.append(Instruction(k, 0, "KernelCall", args, op_index=o, op=oper.full_name))
        elif op.kind == "delegate":
            d = op.delegate
            di = del_index.setdefault(id(d), len(delegates))
            if di == len(delegates):
                delegates.append(replace(d, index=di))
            args = tuple(new_index[a] for a in _delegate_args(op, values, n))
            src = orig[op.orig] if op.orig is not None else None
            instructions.append(Instruction(k, 0, "DelegateCall", args, delegate_index=di, delegate=d.id,
                                            stacktrace=src.stacktrace if src else None))
        else:
            src = orig[op.orig]
            args = tuple(new_index.get(a, a) if a >= 0 else a for a in op.args)
            if op.kind == "kernel":
                oper = plan.operators[src.op_index] if src.op_index is not None and \
                    0 <= src.op_index < len(plan.operators) else None
                if oper is None:
                    instructions.append(_renewed(src, index=k, chain=0, args=args))
                    continue
                o = op_index.setdefault(oper, len(operators))
                if o == len(operators):
                    operators.append(oper)
                instructions.append(_renewed(src, index=k, chain=0, args=args, op_index=o))
            else:
                instructions.append(_remap_other(src, k, new_index))
    inputs = tuple(new_index[v] for v in g.inputs)
    outputs = tuple(new_index[v] for v in g.outputs)
    buffer_devices = ()
    if any(dt != 0 for dt, _ in devices):
        buffer_devices = tuple(BufferDevice(i, Device(dt, di)) for i, (dt, di) in enumerate(devices)
                               if (dt, di) != (0, 0))
    return Plan(name=plan.name, values=tuple(out_values), inputs=inputs, outputs=outputs,
                chains=(Chain(0, inputs, outputs, 0, len(instructions)),), instructions=tuple(instructions),
                operators=tuple(operators), delegates=tuple(delegates), buffer_sizes=tuple(sizes),
                buffer_devices=buffer_devices, encoded_inputs=plan.encoded_inputs,
                encoded_outputs=plan.encoded_outputs), tuple(origins)


def _delegate_args(op: Op, values, n: int) -> list[int]:
    """A delegate call's arguments: its inputs (tensor positions now the h2d copies or device tensors)
    then its outputs. A tensor argument the device pass rewired to a copy (a CPU delegate reading a device
    delegate's output reads its d2h copy, a value past the original table) is still a tensor position: executorch
    rewires that one argument and no other (``replace_all_uses_with`` in ``_insert_d2h_for_getitem``)."""
    if op.orig is None:
        return list(op.reads) + list(op.writes)
    ins = op.args[:len(op.args) - len(op.writes)] if op.writes else list(op.args)
    reads = iter(op.reads)
    out = []
    for a in ins:
        out.append(next(reads) if a >= n or (0 <= a and isinstance(values[a], Tensor)) else a)
    return out + list(op.writes)


def _remap_other(src: Instruction, k: int, new_index: dict[int, int]) -> Instruction:
    m = lambda v: v if v is None else new_index.get(v, v)  # noqa: E731
    return _renewed(src, index=k, chain=0, move_from=m(src.move_from), move_to=m(src.move_to),
                   cond_value_index=m(src.cond_value_index), value_index=m(src.value_index))


def _lifetimes(g: Neutral, stale_outputs: list[int]) -> dict[int, list[int]]:
    """Value -> [first, last] node index (module doc)."""
    values = g.plan.values
    n = len(values)
    life: dict[int, list[int]] = {}
    alias = g.alias

    def touch(v: int, at: int, placeholder: bool = False) -> None:
        v = alias.get(v, v)
        span = life.get(v)
        start = 0 if placeholder else at
        if span is None:
            life[v] = [start, at]
        else:
            if start < span[0]:
                span[0] = start
            if at > span[1]:
                span[1] = at

    idx = 0
    for v in g.placeholders:
        touch(v, idx, placeholder=True)
        idx += 1
    for op in g.ops:
        if op.kind in ("kernel", "h2d", "d2h"):
            for w in op.owned:
                if w in op.writes and _is_tensor(g, w):
                    touch(w, idx)
                    idx += 1
            for v in op.reads:
                touch(v, idx)
            for v in op.writes:
                touch(v, idx)
        elif op.kind == "delegate":
            for v in op.reads + op.writes:
                touch(v, idx)
        elif op.kind == "getitem":
            for v in op.source.writes:
                touch(v, idx)
        else:
            for v in op.reads + op.writes:
                touch(v, idx)
        idx += 1
    for v in set(stale_outputs) | set(g.outputs):
        if 0 <= v < n + len(g.extra) and _is_tensor(g, v):
            touch(v, idx)
    for v in g.state:
        if v in life:
            life[v][1] = idx
    return life


def _write_back_phantoms(g: Neutral, end: int) -> list[Spec]:
    """One planned spec per mutated buffer, alive only at the output node.

    A mutated buffer is returned from the graph (``insert_write_back_for_buffers_pass``: the result of its
    ``copy_(buffer, new_value)`` write-back, or of the in-place op that mutated it). The output node's spec
    was taken while that result was still a spec of its own; ``_alias_inplace_result_specs`` later points
    the op's node (not the output's stale spec) at the buffer. So the planner sees, at the output node, one
    extra tensor of the buffer's size per mutated buffer that no value names, and it takes arena space
    (checked on exports: the output node's spec holds one such tensor per buffer, lifetime [last, last])."""
    out = []
    seen: set[int] = set()
    values = g.plan.values
    for op in g.ops:
        if op.kind != "kernel":
            continue
        for w in op.writes:
            if w in g.state and w not in seen and isinstance(values[w], Tensor) and values[w].nbytes is not None:
                seen.add(w)
                t = values[w]
                out.append(Spec(-1 - len(out), t.nbytes, end, end, (t.device.type, t.device.index)))
    return out


def _is_tensor(g: Neutral, v: int) -> bool:
    n = len(g.plan.values)
    return v >= n or isinstance(g.plan.values[v], Tensor)


def _collect(g: Neutral, order: list[int], life: dict[int, list[int]], stale_outputs: list[int]) -> dict[int, Spec]:
    """The planned tensors in ``collect_specs_from_nodes`` order, as greedy specs (module doc)."""
    values = g.plan.values
    n = len(values)
    user_inputs = set(g.inputs)
    stale = set(stale_outputs)
    specs: dict[int, Spec] = {}
    for v in order:
        if v in g.alias or v not in life:
            continue
        if v < n:
            t = values[v]
            if not isinstance(t, Tensor) or t.storage in ("constant", "external") \
                    or t.shape_dynamism == "dynamic_unbound" or t.nbytes is None:
                continue
            if not g.alloc_inputs and v in user_inputs:
                continue
            nbytes = t.nbytes
        else:
            src = values[g.extra[v].source]
            if src.shape_dynamism == "dynamic_unbound":  # the copy's spec is a clone: not planned either
                continue
            nbytes = src.nbytes or 0
        if not g.alloc_outputs and v in stale:
            continue
        dev = g.device.get(v, CPU) if v < n else g.extra[v].device
        first, last = life[v]
        specs[v] = Spec(v, nbytes, first, last, (dev.type, dev.index))
    return specs
