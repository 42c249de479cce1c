"""What if this ran on another device? Predict the program executorch 1.5.1 would export for a placement.

:func:`what_if` takes a program and *moves* (``selector -> device``) and returns the
:class:`~explorer.model.Program` executorch would emit for that placement, with
``program.prediction`` saying it is a prediction and from which moves. Everything that takes a program
(inspect, check, diff, show, the widget) takes it.

How (docs/whatif.md has the whole story and the upstream references):

1. each affected plan is read back into the graph ``PropagateDevicePass`` saw (:mod:`.whatif_graph`:
   copies out, tensors back on the CPU, each delegate with its ``target_device``);
2. the moves change delegates' ``target_device`` compile spec, or turn host kernels into delegated
   regions (:mod:`.whatif_regions`);
3. the pass is run again (h2d per consumer, d2h per delegate output, same-device round trips elided,
   the skip flags) and memory is planned per device with executorch's greedy algorithm over the same
   lifetimes (:mod:`.whatif_emit`, :mod:`.whatif_greedy`).

Selectors (:func:`select`): ``delegate:*``, ``delegate:N``, ``delegate:BACKEND``, ``op:NAME`` (overload
and namespace optional), ``@N`` (instruction N of the original), ``group:PATH`` (a group of the graph overview,
:mod:`.groups`). A move that cannot be honoured raises :class:`MoveError` naming the selector; a
placement executorch would refuse to export raises :class:`~.whatif_graph.Refusal` with executorch's reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from typing import Iterable, Mapping, Union

from explorer.errors import MoveError
from explorer.model.program import CompileSpec, Delegate, Device, Plan, Prediction, Program, Tensor, Value
from explorer.analysis.graph import is_copy
from explorer.whatif.emit import emit
from explorer.whatif.graph import Refusal, neutralize, propagate
from explorer.analysis.context import module_scopes
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.groups import Groups
from explorer.format.reader import load
from explorer.whatif.regions import make_regions

__all__ = ["what_if", "parse_moves", "select", "MoveError", "Refusal", "Selection", "MovesLike", "CONSTANTS"]

CONSTANTS = ("owned", "arguments")  # what_if(constants=...): the partitioner owns a region's constants, or not

MovesLike = Union[Mapping[str, object], Iterable[Union[str, tuple[str, object]]], None]


@dataclass(frozen=True)
class Selection:
    """What one selector names in one plan: delegates (by index) and host kernel calls (instructions)."""
    delegates: tuple[int, ...] = ()
    kernels: tuple[int, ...] = ()
    module: bool = False  # named by a group: (module) selector: its static views go with it (whatif/regions.py)

    def __bool__(self) -> bool:
        return bool(self.delegates or self.kernels)


def parse_moves(moves: MovesLike) -> tuple[tuple[str, Device], ...]:
    """``[(selector, device)]``, ``{selector: device}`` or ``["SELECTOR=DEVICE"]`` -> ``((selector, Device), ...)``."""
    if moves is None:
        return ()
    items = list(moves.items()) if isinstance(moves, Mapping) else list(moves)
    out = []
    for item in items:
        if isinstance(item, str):
            selector, sep, dev = item.rpartition("=")
            if not sep or not selector.strip():
                raise MoveError(f"move {item!r}: expected SELECTOR=DEVICE, e.g. 'delegate:*=cuda:0'")
        else:
            try:
                selector, dev = item
            except (TypeError, ValueError):
                raise MoveError(f"move {item!r}: expected a (selector, device) pair or 'SELECTOR=DEVICE'") from None
        selector = str(selector).strip()
        try:
            device = Device.parse(dev)
        except ValueError as exc:
            raise MoveError(f"move {selector!r}: {exc}") from None
        if not device.known:
            raise MoveError(f"move {selector!r}: device {device} is of a kind this version does not know")
        if device.index < 0:
            raise MoveError(f"move {selector!r}: device {device} has a negative index")
        out.append((selector, device))
    return tuple(out)


def select(plan: Plan, selector: str, program: Program | None = None) -> Selection:
    """The delegates and host kernels ``selector`` names in ``plan`` (empty when it names nothing here).

    Raises :class:`MoveError` for a selector that is malformed or names something that cannot move
    (a copy, a jump). ``program``: the plan's program, so ``group:`` sees the model's modules when an
    ETRecord is joined to it (the groups the overview draws)."""
    kind, sep, arg = selector.partition(":")
    instructions = list(plan.instructions)
    if selector.startswith("@"):
        try:
            k = int(selector[1:])
        except ValueError:
            raise MoveError(f"selector {selector!r}: expected @N, an instruction index") from None
        if not 0 <= k < len(instructions):
            raise MoveError(f"selector {selector!r}: plan {plan.name!r} has {len(instructions)} instructions")
        ins = instructions[k]
        if is_copy(ins):
            raise MoveError(f"selector {selector!r}: instruction {k} is a device copy ({ins.op}); executorch "
                            f"places copies itself, move what they feed instead")
        if ins.kind == "DelegateCall" and ins.delegate_index is not None:
            return Selection(delegates=(ins.delegate_index,))
        if ins.kind == "KernelCall":
            if _in_place(ins):
                raise MoveError(f"selector {selector!r}: {_IN_PLACE_WHY.format(k=k, op=ins.op)}")
            return Selection(kernels=(k,))
        raise MoveError(f"selector {selector!r}: instruction {k} is a {ins.kind}, which runs on no device")
    if not sep:
        raise MoveError(f"selector {selector!r}: expected delegate:*, delegate:N, delegate:BACKEND, op:NAME, @N "
                        f"or group:PATH")
    if kind == "delegate":
        called = sorted({i.delegate_index for i in instructions
                         if i.kind == "DelegateCall" and i.delegate_index is not None
                         and 0 <= i.delegate_index < len(plan.delegates)})
        if arg == "*":
            return Selection(delegates=tuple(called))
        if arg.isdigit():
            k = int(arg)
            return Selection(delegates=(k,) if k in called else ())
        return Selection(delegates=tuple(k for k in called if plan.delegates[k].id.lower() == arg.lower()))
    if kind == "op":
        name = arg.strip()
        if not name:
            raise MoveError(f"selector {selector!r}: expected op:NAME, e.g. op:aten::add")
        hits = []
        for ins in instructions:
            if ins.kind != "KernelCall" or ins.op is None:
                continue
            base = ins.op.split(".", 1)[0]
            short = ins.op.split("::", 1)[-1]  # op:add.out / op:add: any namespace
            if ins.op == name or base == name or ("::" not in name and (short == name or short.split(".")[0] == name)):
                if is_copy(ins):
                    raise MoveError(f"selector {selector!r}: {ins.op} is a device copy; executorch places copies "
                                    f"itself, move what they feed instead")
                if _in_place(ins):
                    raise MoveError(f"selector {selector!r}: {_IN_PLACE_WHY.format(k=ins.index, op=ins.op)}")
                hits.append(ins.index)
        return Selection(kernels=tuple(hits))
    if kind == "group":
        return _group(plan, selector, arg.strip(), program)
    raise MoveError(f"selector {selector!r}: unknown kind {kind!r} (expected delegate, op, group or @N)")


def _group(plan: Plan, selector: str, path: str, program: Program | None) -> Selection:
    """The kernels and delegates of a group: with an ETRecord joined, every instruction that ran in module
    ``path`` or below it (``layers.1`` takes ``layers.1.lin`` and ``layers.1.act``), as the overview groups
    by modules; without one, the instructions whose scope the overview groups by (parameter-name prefix or
    stack frame, :mod:`.groups`) is ``path`` at some depth, else those of the first group of the overview's
    tree labelled ``path``."""

    instructions = list(plan.instructions)
    modules = module_scopes(program, plan) if program is not None else None
    if modules is not None:
        paths = modules[0]
        picked = [k for k, p in enumerate(paths) if p and (p == path or p.startswith(path + "."))]
    else:
        f = Facts(plan)
        groups = Groups(plan, f, edges(plan, f))
        # the scopes the overview groups by (parameter-name prefixes or stack frames), at every depth, so a
        # small plan whose overview never splits still has its groups
        picked = [k for start, stop in groups.scope_runs(path) for k in range(start, stop)]
        if not picked:
            groups.build_all()
            found = next((g for g in groups.groups if g is not None and g.label == path and g.id != 0), None)
            picked = list(range(found.start, found.stop)) if found is not None else []
    delegates, kernels = [], []
    for k in picked:
        ins = instructions[k]
        if ins.kind == "DelegateCall" and ins.delegate_index is not None:
            delegates.append(ins.delegate_index)
        elif ins.kind == "KernelCall" and not is_copy(ins) and not _in_place(ins):
            kernels.append(k)  # a group's buffer write-backs stay on the host, as a partitioner leaves them
    return Selection(tuple(dict.fromkeys(delegates)), tuple(kernels), module=True)


_IN_PLACE_WHY = ("instruction {k} ({op}) writes a mutable buffer in place: executorch adds these write-backs "
                 "(insert_write_back_for_buffers_pass, the reinplace pass) after partitioning, so no partitioner "
                 "ever moves them")


def _in_place(ins) -> bool:
    """An in-place kernel (``aten::copy_``, ``aten::index_put_``...): in a program, only buffer write-backs."""
    return bool(ins.op) and ins.op.split(".", 1)[0].endswith("_") and not ins.op.split(".", 1)[0].endswith("__")


def what_if(program: "Program | str | bytes", moves: MovesLike, *, skip_h2d_inputs: bool | None = None,
            skip_d2h_outputs: bool | None = None, method: str | None = None,
            alloc_graph_input: bool | None = None, alloc_graph_output: bool | None = None,
            constants: str = "owned") -> Program:
    """The program executorch 1.5.1 would export with ``moves`` applied (module doc).

    ``moves``: ``[(selector, device)]``, ``{selector: device}`` or ``["SELECTOR=DEVICE"]``, applied in order
    (a later move of the same thing wins). ``skip_h2d_inputs`` / ``skip_d2h_outputs``: executorch's
    ``PropagateDeviceConfig`` flags; ``None`` keeps what the original shows (an input tensor that lives
    on a device without a copy says it was exported with ``skip_h2d_for_method_inputs``). ``method``: only
    that plan; otherwise every plan, and a selector must name something in at least one.
    ``alloc_graph_input`` / ``alloc_graph_output``: ``MemoryPlanningPass``'s flags (executorch pairs the skip
    flags with them turned off); ``None`` keeps what the original shows (an unplanned input or output).
    ``constants``: what the partitioner does with the constants (weights, lifted constants) a region of moved
    kernels reads — ``"owned"`` (the default, as executorch's CUDA partitioner does with ``tag_constant_data``:
    the delegate owns them, and a constant nothing else reads leaves the program) or ``"arguments"`` (they stay
    delegate arguments, and executorch 1.5.1 refuses the h2d copy of a constant: a :class:`Refusal`).

    Raises :class:`MoveError` (a move that cannot be honoured, naming its selector) or :class:`Refusal`
    (executorch would refuse to export this placement; the message is its reason).
    """
    if not isinstance(program, Program):  # a path, bytes or file object, as explorer.diff takes them

        program = load(program)
        if not isinstance(program, Program):
            raise MoveError("what_if needs a program; this is a data file (.ptd)")
    if constants not in CONSTANTS:
        raise MoveError(f"constants={constants!r}: expected one of {', '.join(CONSTANTS)}")
    parsed = parse_moves(moves)
    if method is not None:
        program.plan(method)  # KeyError naming the plans when it doesn't exist
    plans = [p for p in program.plans if method is None or p.name == method]
    chosen: dict[str, list[tuple[Selection, Device]]] = {p.name: [] for p in plans}
    for selector, device in parsed:
        hit = False
        for plan in plans:
            sel = select(plan, selector, program)
            if sel:
                hit = True
                chosen[plan.name].append((sel, device))
        if not hit:
            where = f"plan {method!r}" if method else "any plan"
            raise MoveError(f"selector {selector!r} names nothing in {where}")
    new_plans = []
    regions = False
    origins: dict[str, tuple[tuple[int, ...], ...]] = {}
    for plan in program.plans:
        picks = chosen.get(plan.name)
        flags = (skip_h2d_inputs, skip_d2h_outputs, alloc_graph_input, alloc_graph_output)
        if plan.name not in chosen or (not picks and not any(f is not None for f in flags)):
            new_plans.append(plan)  # another method than the one asked for, or nothing asked of this one
            continue
        try:
            predicted, origins[plan.name] = _predict_plan(plan, picks or [], skip_h2d_inputs, skip_d2h_outputs,
                                                          alloc_graph_input, alloc_graph_output,
                                                          constants=constants)
            regions |= any(not d.is_cpu for sel, d in picks or [] for _ in sel.kernels)
        except (MoveError, Refusal):
            raise
        except (KeyError, IndexError, ValueError, TypeError, StopIteration) as exc:
            # references all resolve (checked first) but the dataflow is not one executorch emits (a value
            # used before anything makes it, a delegate output read before the call...): say so, no traceback
            raise MoveError(f"plan {plan.name!r} cannot be predicted ({type(exc).__name__}: {exc}): its dataflow "
                            f"is not one executorch emits (`device-explorer check` shows what is wrong), or it "
                            f"uses something what-if does not emulate") from None
        new_plans.append(predicted)
    prediction = Prediction(moves=tuple((s, str(d)) for s, d in parsed), skip_h2d_inputs=skip_h2d_inputs,
                            skip_d2h_outputs=skip_d2h_outputs, method=method,
                            alloc_graph_input=alloc_graph_input, alloc_graph_output=alloc_graph_output,
                            original=program.source, origins=origins, constants=constants, regions=regions)
    # shown wherever the program is named (diff headers, report titles, the widget): "model.pte (what-if)"
    label = f"{program.source} (what-if)" if program.source else "(what-if)"
    return replace(program, plans=tuple(new_plans), prediction=prediction, source=label)


def _predict_plan(plan: Plan, picks: list[tuple[Selection, Device]], skip_h2d: bool | None,
                  skip_d2h: bool | None, alloc_in: bool | None = None, alloc_out: bool | None = None,
                  *, rederive: bool = False, constants: str = "owned") -> tuple[Plan, tuple[tuple[int, ...], ...]]:
    """One plan's prediction and its instructions' origins. ``rederive``: run the emulation even when
    nothing changes (tests use it to check the emulation gives each real plan back)."""
    unsupported = {i.kind for i in plan.instructions} - {"KernelCall", "DelegateCall"}
    if unsupported or len(plan.chains) > 1:
        what = ", ".join(sorted(str(k) for k in unsupported)) or f"{len(plan.chains)} chains"
        raise MoveError(f"plan {plan.name!r}: what-if supports straight-line plans (kernel and delegate calls in "
                        f"one chain); this one has {what} (control flow is not emulated)")
    if not plan.instructions:  # a constant getter: nothing runs, nothing is planned or placed
        return plan, ()
    _require_well_formed(plan)
    # the emulation indexes values ~10x per value: a tuple once instead of the decoder's lazy sequence each time
    g = neutralize(replace(plan, values=tuple(plan.values)))
    seen = (g.skip_inputs_seen, any(isinstance(t := plan.values[o], Tensor) and not t.device.is_cpu
                                    for o in plan.outputs if 0 <= o < len(plan.values)),
            g.alloc_inputs, g.alloc_outputs)
    if alloc_in is not None:
        g.alloc_inputs = alloc_in
    if alloc_out is not None:
        g.alloc_outputs = alloc_out
    skip_h2d = seen[0] if skip_h2d is None else skip_h2d
    skip_d2h = seen[1] if skip_d2h is None else skip_d2h
    same_flags = (skip_h2d, skip_d2h, g.alloc_inputs, g.alloc_outputs) == seen
    targets: dict[int, Device] = {}
    kernels: dict[int, Device] = {}
    modules = frozenset(k for sel, _ in picks if sel.module for k in sel.kernels)
    for sel, device in picks:
        for d in sel.delegates:
            targets[d] = device
        for k in sel.kernels:
            kernels[k] = device
    retargeted: dict[int, Delegate] = {}
    for op in g.ops:
        if op.kind != "delegate" or op.delegate is None:
            continue
        index = op.delegate.index
        if index not in targets:
            continue
        device = targets[index]
        if index not in retargeted:
            retargeted[index] = _retarget(op.delegate, device)
        op.delegate = retargeted[index]
        op.device = None if device.is_cpu else device
    moved = {k: d for k, d in kernels.items() if not d.is_cpu}
    current = {d.index: d.target_device for d in plan.delegates}
    unchanged = all((None if dev.is_cpu else dev) == current.get(k) for k, dev in targets.items())
    if not rederive and same_flags and not moved and unchanged:
        # nothing changes: executorch would export this very program again (whatever planner made it)
        return plan, tuple(() if is_copy(i) else (i.index,) for i in plan.instructions)
    if moved:
        make_regions(g, moved, owned=constants == "owned", modules=modules)
    stale = list(g.outputs)
    propagate(g, bool(skip_h2d), bool(skip_d2h))
    _refuse_constant_copies(g)
    return emit(g, stale)


def _require_well_formed(plan: Plan) -> None:
    """A prediction re-emits the plan, so every reference in it must point somewhere (``check`` reports
    the ones that don't as ``bad-reference``); say which one doesn't instead of guessing."""
    n = len(plan.values)

    def refuse(what: str) -> None:
        raise MoveError(f"plan {plan.name!r} cannot be predicted: {what} (see `device-explorer check`)")

    for ins in plan.instructions:
        for v in ins.values:
            if not 0 <= v < n:
                refuse(f"instruction {ins.index} names value {v}, which does not exist")
        if ins.kind == "KernelCall" and (ins.op_index is None or not 0 <= ins.op_index < len(plan.operators)):
            refuse(f"instruction {ins.index} calls operator {ins.op_index}, which does not exist")
        if ins.kind == "DelegateCall" and (ins.delegate_index is None
                                           or not 0 <= ins.delegate_index < len(plan.delegates)):
            refuse(f"instruction {ins.index} calls delegate {ins.delegate_index}, which does not exist")
    for v in (*plan.inputs, *plan.outputs):
        if not 0 <= v < n:
            refuse(f"the plan's inputs or outputs name value {v}, which does not exist")
    for val in plan.values:
        if isinstance(val, Value) and val.type in ("TensorList", "OptionalTensorList", "IntList") \
                and isinstance(val.value, tuple) and any(isinstance(x, int) and x >= n for x in val.value):
            refuse(f"list value {val.index} holds an index past the value table")


def _retarget(d: Delegate, device: Device) -> Delegate:
    """The delegate with its ``target_device`` compile spec set to ``device`` (removed for the CPU, as
    ``CpuOnlyPartitioner`` leaves it out), other specs kept in order."""
    specs = tuple(s for s in d.compile_specs if s.key != "target_device")
    if not device.is_cpu:
        specs += (CompileSpec("target_device", str(device).encode("utf-8")),)
    return replace(d, compile_specs=specs)


def _refuse_constant_copies(g) -> None:
    """executorch 1.5.1 cannot emit an h2d copy of a constant (docs/whatif.md, "Refusals")."""
    values = g.plan.values
    for op in g.ops:
        if op.kind == "h2d":
            src = op.reads[0]
            t = values[src] if src < len(values) else None
            if t is not None and getattr(t, "storage", None) in ("constant", "external"):
                raise Refusal(f"a device delegate reads constant {t.label} directly: PropagateDevicePass inserts an "
                              f"h2d copy of it, and executorch 1.5.1's emitter fails on that copy (InternalError: "
                              f"'NoneType' object has no attribute 'nbytes', in _tensor_spec_to_evalue)")
