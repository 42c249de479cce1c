"""Join an ETRecord to its program: per instruction the model's module, source line, stack and ops.

The join is executorch's Inspector's (``devtools/inspector/_inspector.py``, ``EventBlock.
_gen_resolve_debug_handles`` and ``Event._associate_with_op_graph_nodes``; ``_inspector_utils.py``
``create_debug_handle_to_op_node_mapping``):

* instruction ``i`` of a method has the debug handles ``debug_handle_map[method][str(i)]`` — one handle,
  or for a delegate call the list of every handle of its lowered graph (``exir/emit/_emitter.py``
  ``_add_debug_handle``). The id is the instruction's index in its chain (the emitter writes
  ``len(chain.instructions) - 1``); executorch emits one chain per method, so it is the plan's index;
* a handle names every node of the method's edge-dialect graph whose ``debug_handle`` metadata equals it
  (several nodes can share one: a ``linear`` decomposed to ``permute_copy`` + ``addmm`` keeps its handle on
  both), in graph order;
* an event *inside* a delegate call (a delegate debug id) gets its handles from ``delegate_map[method]
  [str(i)]["delegate_map"]``: the id itself as key, else ``str(id)``, else — Inspector's rule, kept
  exactly — the last key that is a substring of ``str(id)`` (:func:`delegate_event_handles`).

From the nodes: ``module`` is the module stack all of them share (``nn_module_stack``, outermost first;
a delegate holding two blocks gets their common parent), ``stack`` the ``stack_trace`` frames of the first
node that has one, and ``source`` the innermost of those frames that is not torch's own code (the line of
the model that made the op: ``model.py:12`` rather than ``torch/nn/modules/linear.py:134``; the innermost
frame when all are torch's).

Nothing in an ETRecord names its ``.pte``, so whether it belongs to this program is inferred. Refused
(:class:`EtrecordMismatch`), naming what does not line up: a method the program does not have; an
instruction id past the end of its plan; a ``delegate_map`` entry on an instruction that is no delegate
call, or naming another backend than the call's delegate; a delegate call the ETRecord has no entry for;
more than half of the kernels whose op is not one the ETRecord's nodes for them have (ops compared by
name: ``aten::addmm.out`` and ``aten.addmm.default`` are ``addmm``; ``executorch_prim`` and ``et_copy``
kernels, which executorch's passes make from other ops, are not compared). Fewer such kernels, handles no
node holds, and plans the ETRecord has nothing for are warnings (:attr:`ProgramContext.warnings`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from explorer.errors import EtrecordMismatch
from explorer.model.etrecord import (Etrecord, EtrecordMethod, GraphNode, InstructionContext, ModuleFrame,
    PlanContext, ProgramContext, SourceFrame)
from explorer.model.program import Plan, Program
from explorer.format.companions.etrecord import load_etrecord

__all__ = ["EtrecordMismatch", "join_etrecord", "attach_etrecord", "delegate_event_handles", "source_frame",
           "op_name", "kernel_name", "module_scopes"]

_LIBRARY = re.compile(r"(^|[/\\])(site-packages>?|dist-packages>?)[/\\](torch|executorch)[/\\]|^<")
_UNCOMPARED = ("executorch_prim", "et_copy")  # kernels executorch's passes make from other ops
_SHOWN = 3  # mismatches named in a message


def attach_etrecord(program: Program, source: Any, *, strict: bool = True) -> Program:
    """``program`` with an ETRecord joined (``program.etrecord``): ``source`` is anything
    :func:`~explorer.format.companions.etrecord.load_etrecord` reads, or an already read :class:`Etrecord`."""

    record = source if isinstance(source, Etrecord) else load_etrecord(source)
    return dataclasses.replace(program, etrecord=join_etrecord(program, record, strict=strict))


def join_etrecord(program: Program, record: Etrecord, *, strict: bool = True) -> ProgramContext:
    """Join ``record`` to ``program``; with ``strict`` a record of another program raises
    :class:`EtrecordMismatch` (else its problems become warnings)."""
    errors: list[str] = []
    warnings: list[str] = []
    plans = {p.name: p for p in program.plans}
    foreign = [m for m in record.methods if m not in plans]
    if foreign:
        errors.append(f"the ETRecord has method(s) {', '.join(map(repr, foreign))} that the program does not have "
                      f"(it has {', '.join(map(repr, plans)) or 'none'})")
    joined = {}
    for name, method in record.methods.items():
        plan = plans.get(name)
        if plan is None:
            continue
        ctx, errs, warns = _join_plan(plan, method)
        errors.extend(f"method {name!r}: {e}" for e in errs)
        warnings.extend(f"method {name!r}: {w}" for w in warns)
        joined[name] = ctx
    missing = [p.name for p in program.plans if p.name not in record.methods and p.instructions]
    if missing and joined:
        warnings.append(f"the ETRecord says nothing about method(s) {', '.join(map(repr, missing))}")
    if errors and strict:
        head = "this ETRecord does not belong to this program"
        raise EtrecordMismatch(f"{head}: {'; '.join(errors)}")
    return ProgramContext(record, joined, tuple(errors + warnings))


def _join_plan(plan: Plan, method: EtrecordMethod) -> tuple[PlanContext, list[str], list[str]]:
    errors: list[str] = []
    warnings: list[str] = []
    m = len(plan.instructions)
    base = plan.chains[0].start if plan.chains else 0
    if not method.has_graph:
        warnings.append("the ETRecord has its debug handles but not its graph: no module or source to show")
    by_handle: dict[int, list[GraphNode]] = {}
    for node in method.nodes:
        if node.debug_handle is not None:
            by_handle.setdefault(node.debug_handle, []).append(node)
    past = sorted(i for i in method.handles if base + i >= m)
    if past:
        errors.append(f"debug_handle_map names instruction {past[-1]} but the plan has {m} instruction(s)")
    for i, rec in sorted(method.delegates.items()):
        if base + i >= m:
            errors.append(f"delegate_map names instruction {i} but the plan has {m} instruction(s)")
            continue
        ins = plan.instructions[base + i]
        if ins.kind != "DelegateCall":
            errors.append(f"delegate_map says instruction {i} calls {rec.backend!r}, but it is a {ins.kind} "
                          f"({ins.label})")
        elif rec.backend and ins.delegate and rec.backend != ins.delegate:
            errors.append(f"delegate_map says instruction {i} calls {rec.backend!r}, but it calls {ins.delegate!r}")
    calls = [ins for ins in plan.instructions if ins.kind == "DelegateCall"]
    unmapped = [ins.index - base for ins in calls if ins.index - base not in method.handles]
    if calls and method.handles and unmapped:
        errors.append(f"instruction {unmapped[0]} is a delegate call ({calls[0].delegate}) the ETRecord has no "
                      f"debug handles for ({len(unmapped)} such)")
    contexts: list[InstructionContext | None] = [None] * m
    compared, wrong, lost = 0, [], []
    for i, handles in sorted(method.handles.items()):
        k = base + i
        if k >= m:
            continue
        nodes = _nodes_of(handles, by_handle)
        ins = plan.instructions[k]
        if method.has_graph and handles and not nodes:
            lost.append(i)
        if ins.kind == "KernelCall" and ins.op and nodes is not None and method.has_graph:
            ns = ins.op.split("::", 1)[0]
            if ns not in _UNCOMPARED:
                compared += 1
                if kernel_name(ins.op) not in {op_name(n.op) for n in nodes}:
                    wrong.append((i, ins.op, list(dict.fromkeys(n.op for n in nodes))))
        rec = method.delegates.get(i)
        contexts[k] = _instruction_context(k, handles, nodes, rec.backend if rec else None)
    if wrong:
        shown = "; ".join(f"instruction {i} runs {op} but the ETRecord's nodes for it are "
                          f"{', '.join(ops[:4]) + (' ...' if len(ops) > 4 else '') or 'none'}"
                          for i, op, ops in wrong[:_SHOWN])
        text = f"{len(wrong)} of {compared} kernels are not the op the ETRecord says ({shown})"
        (errors if len(wrong) * 2 > compared else warnings).append(text)
    if lost:
        warnings.append(f"{len(lost)} instruction(s) have debug handles no node of the graph holds "
                        f"(first: instruction {lost[0]})")
    return PlanContext(plan.name, tuple(contexts), method), errors, warnings


def _nodes_of(handles: tuple[int, ...], by_handle: dict[int, list[GraphNode]]) -> tuple[GraphNode, ...]:
    """The nodes holding ``handles`` (Inspector's order: per handle, in graph order; each node once)."""
    seen: dict[str, GraphNode] = {}
    for h in handles:
        for node in by_handle.get(h, ()):
            seen.setdefault(node.name, node)
    return tuple(seen.values())


def _instruction_context(index: int, handles: tuple[int, ...], nodes: tuple[GraphNode, ...],
                         backend: str | None) -> InstructionContext:
    module: tuple[ModuleFrame, ...] = nodes[0].modules if nodes else ()
    for node in nodes[1:]:
        n = 0
        while n < len(module) and n < len(node.modules) and module[n] == node.modules[n]:
            n += 1
        module = module[:n]
    stack = next((n.stack for n in nodes if n.stack), ())
    return InstructionContext(index, tuple(handles), nodes, module, source_frame(stack), stack, backend)


def source_frame(stack: tuple[SourceFrame, ...]) -> SourceFrame | None:
    """The innermost frame outside torch's and executorch's own code (the model's line), else the innermost."""
    for frame in reversed(stack):
        if not _LIBRARY.search(frame.file):
            return frame
    return stack[-1] if stack else None


def op_name(op: str) -> str:
    """``aten.addmm.default`` -> ``addmm`` (a graph node's op, namespace and overload dropped)."""
    parts = op.split(".")
    return parts[-2] if len(parts) >= 3 else parts[0]


def kernel_name(op: str) -> str:
    """``aten::addmm.out`` -> ``addmm`` (an instruction's kernel, namespace and overload dropped)."""
    return op.split("::", 1)[-1].split(".", 1)[0]


def delegate_event_handles(method: EtrecordMethod, instruction: int, debug_id: "int | str") -> tuple[int, ...] | None:
    """The handles of an event inside delegate call ``instruction`` (its chain index) with delegate debug id
    ``debug_id``, exactly as ``EventBlock._gen_resolve_debug_handles`` finds them; None when the delegate map
    has nothing for it (then Inspector leaves the event without handles too)."""
    rec = method.delegates.get(instruction)
    if rec is None:
        return method.handles.get(instruction)  # Inspector: no delegate mapping -> the call's own handles
    table = rec.debug_map
    found = table.get(debug_id) if isinstance(debug_id, str) else None  # keys are JSON strings
    if found is not None:
        return found
    found = table.get(str(debug_id))
    for key, value in table.items():
        if key in str(debug_id):
            found = value
    return found


def handle_nodes(method: EtrecordMethod, handles: tuple[int, ...]) -> tuple[GraphNode, ...]:
    """The nodes holding ``handles`` in ``method``'s graph (graph order per handle)."""
    by_handle: dict[int, list[GraphNode]] = {}
    for node in method.nodes:
        if node.debug_handle is not None:
            by_handle.setdefault(node.debug_handle, []).append(node)
    return _nodes_of(handles, by_handle)


def module_scopes(program: Program, plan: Plan) -> "tuple[list[str | None], str] | None":
    """What :class:`~.groups.Groups` groups by when an ETRecord is joined: per instruction its module path
    (None where the ETRecord says nothing) and the model's class name (the label of its own ops); None
    without an ETRecord for ``plan``."""
    ctx = program.etrecord.plan(plan.name) if program.etrecord is not None else None
    if ctx is None:
        return None
    paths = [None if ic is None or not ic.module else ic.module_path for ic in ctx.instructions]
    root = next((ic.module[0].type_name for ic in ctx.instructions if ic is not None and ic.module), "model")
    return paths, root
