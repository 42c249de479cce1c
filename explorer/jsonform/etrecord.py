"""The keys an ETRecord adds to the ``inspect --json`` form (docs/etrecord.md): added, never changed.

* ``etrecord``: ``{"file", "methods": [...], "members": [...], "warnings": [...]}``;
* per joined instruction, ``plans[].instructions[]`` gains ``module`` (the innermost module its nodes share,
  ``"layers.0.lin"``; ``""`` for the model's own ``forward``), ``module_type`` (its class),
  ``modules`` (``[{"path", "type"}]``, outermost first), ``source`` (``"file:line"``, the model's line),
  ``stack`` (``[{"file", "line", "function", "code"}]``, outermost first), ``op_before`` (the distinct
  edge-dialect ops of its nodes, before lowering), ``debug_handles`` and ``nodes`` (``[{"name", "op",
  "module", "source", "debug_handle"}]`` — for a delegate call, every original node it holds); a delegate
  call also ``backend`` (as ``delegate_map`` names it);
* ``plans[].delegates[]`` gains ``nodes``: the names of the original nodes its calls hold.
"""

from __future__ import annotations

from explorer.model.etrecord import GraphNode, InstructionContext, ProgramContext, SourceFrame
from explorer.model.program import Program
from explorer.analysis.context import delegate_event_handles
from explorer.analysis.context import handle_nodes
from explorer.analysis.context import source_frame
import os

__all__ = ["add_etrecord", "instruction_context_json", "frame_json", "side_context", "diff_context", "add_profile_context"]


def frame_json(frame: SourceFrame) -> dict:
    return {"file": frame.file, "line": frame.line, "function": frame.function, "code": frame.code}


def _node_json(node: GraphNode) -> dict:
    src = source_frame(node.stack)
    return {"name": node.name, "op": node.op, "module": node.module_path,
            "source": src.location if src else None, "debug_handle": node.debug_handle}


def instruction_context_json(ctx: InstructionContext) -> dict:
    out = {
        "module": ctx.module_path,
        "module_type": ctx.module[-1].type if ctx.module else None,
        "modules": [{"path": m.path, "type": m.type} for m in ctx.module],
        "source": ctx.source.location if ctx.source else None,
        "stack": [frame_json(f) for f in ctx.stack],
        "op_before": list(ctx.ops),
        "debug_handles": list(ctx.handles),
        "nodes": [_node_json(n) for n in ctx.nodes],
    }
    if ctx.backend is not None:
        out["backend"] = ctx.backend
    return out


def add_etrecord(doc: dict, program: Program, file: str | None = None) -> dict:
    """Add the ETRecord's keys to ``doc`` (a ``program_json`` result) in place; returns it."""
    ctx: ProgramContext | None = program.etrecord
    if ctx is None:
        return doc

    source = ctx.record.source
    doc["etrecord"] = {"file": file or (os.path.basename(source) if source else None),
                       "methods": list(ctx.record.methods), "members": list(ctx.record.members),
                       "warnings": list(ctx.warnings)}
    for plan_doc in doc.get("plans", ()):
        pc = ctx.plan(plan_doc["name"])
        if pc is None:
            continue
        held: dict[int, list[str]] = {}
        for ins_doc in plan_doc.get("instructions", ()):
            ic = pc.at(ins_doc["index"])
            if ic is None:
                continue
            ins_doc.update(instruction_context_json(ic))
            d = ins_doc.get("delegate_index")
            if d is not None:
                held.setdefault(d, []).extend(n.name for n in ic.nodes)
        for k, d_doc in enumerate(plan_doc.get("delegates", ())):
            if k in held:
                d_doc["nodes"] = list(dict.fromkeys(held[k]))
    return doc


def side_context(program: Program) -> dict | None:
    """Per plan, ``[{"index", "module", "source", "op_before"}]`` of the instructions the ETRecord knows."""
    ctx = program.etrecord
    if ctx is None:
        return None
    return {name: [{"index": ic.index, "module": ic.module_path, "source": ic.source.location if ic.source else None,
                    "op_before": list(ic.ops)} for ic in pc.instructions if ic is not None]
            for name, pc in ctx.plans.items()}


def diff_context(a: Program, b: Program) -> dict:
    """The ``etrecord`` key of ``diff --json --etrecord A B``: each side's :func:`side_context` (None: no ETRecord)."""
    return {"a": side_context(a), "b": side_context(b)}


def add_profile_context(doc: dict, program: Program) -> dict:
    """With both an ETDump and an ETRecord: each event reported inside a delegate call
    (``plans[].profile.delegate_nodes[]``) gains ``debug_handles`` and ``nodes`` (the original nodes), found as
    executorch's Inspector finds them (:func:`explorer.analysis.context.delegate_event_handles`; null when the
    backend's delegate map has nothing for the event — XNNPACK in executorch 1.5.1 writes an empty one)."""

    ctx: ProgramContext | None = program.etrecord
    if ctx is None:
        return doc
    for plan_doc in doc.get("plans", ()):
        pc = ctx.plan(plan_doc["name"])
        prof = plan_doc.get("profile")
        if pc is None or not prof:
            continue
        plan = program.plan(plan_doc["name"])
        base = plan.chains[0].start if plan.chains else 0
        for ev in prof.get("delegate_nodes", ()):
            handles = delegate_event_handles(pc.method, ev["instruction"] - base, ev["debug_id"])
            ev["debug_handles"] = None if handles is None else list(handles)
            ev["nodes"] = None if handles is None else [n.name for n in handle_nodes(pc.method, handles)]
    return doc
