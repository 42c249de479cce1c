"""An ETRecord's per-instruction context as payload columns (``plans[].context``; docs/frontend.md).

Strings are sent once each in tables and instructions point into them with integer columns (-1: nothing),
so a 100k-instruction plan costs a few int32 columns plus its distinct modules, lines and stacks. Every
string from the ETRecord is made :func:`~.escape.visible` here; the app writes them with ``textContent``.
"""

from __future__ import annotations

import os

import numpy as np

from explorer.analysis.context import op_name, source_frame
from explorer.model.etrecord import ModuleFrame, SourceFrame
from explorer.model.program import Plan, Program
from explorer.views.escape import visible

__all__ = ["context_columns"]


def _frame_text(fr: SourceFrame) -> str:
    return f"{fr.file}:{fr.line} in {fr.function}"


def context_columns(program: Program, plan: Plan) -> dict | None:
    """The ``context`` object of a plan's payload, or None when no ETRecord is joined for ``plan``.

    * ``modules``: ``{"path", "type", "parent"}`` columns, one row per distinct module stack (a row's
      ``parent`` is the row of the stack one module shorter, -1 for the model itself), so the app can print
      the hierarchy ``Net › layers.0 (Block) › layers.0.lin (Linear)``; ``module``: per instruction the row
      of the module stack all its nodes share;
    * ``sources`` (``"file:line in function"``) and ``source``: the model's line per instruction;
    * ``stacks`` (each distinct stack once, as lines: ``file:line in function`` then the indented code) and
      ``stack``: per instruction;
    * ``nodes``: ``{"name", "op", "module", "source", "handle"}`` columns, one row per graph node joined to
      some instruction; ``nodeStart`` (len m + 1) and ``nodeIndex``: instruction i holds nodes
      ``nodeIndex[nodeStart[i]:nodeStart[i + 1]]`` (a delegate call: every original node it holds);
      ``ops``: the distinct ops of ``nodes.op`` (edge dialect, before lowering), ``nodes.op`` indexes it;
    * ``backend`` (per instruction, index into ``backends``; -1 unless a delegate call) and ``file``,
      ``warnings`` (what did not line up).
    """
    ctx = program.etrecord.plan(plan.name) if program.etrecord is not None else None
    if ctx is None:
        return None
    m = len(plan.instructions)
    mod_rows: dict[tuple[ModuleFrame, ...], int] = {}
    mod_path: list[str] = []
    mod_type: list[str] = []
    mod_parent: list[int] = []

    def module_row(stack: tuple[ModuleFrame, ...]) -> int:
        if not stack:
            return -1
        row = mod_rows.get(stack)
        if row is None:
            parent = module_row(stack[:-1])
            row = mod_rows[stack] = len(mod_path)
            mod_path.append(visible(stack[-1].path))
            mod_type.append(visible(stack[-1].type))
            mod_parent.append(parent)
        return row

    sources: dict[str, int] = {}
    stacks: dict[tuple, int] = {}
    ops: dict[str, int] = {}
    backends: dict[str, int] = {}
    node_rows: dict[str, int] = {}
    nodes = {"name": [], "op": [], "module": [], "source": [], "handle": []}
    module = np.full(m, -1, np.int64)
    source = np.full(m, -1, np.int64)
    stack = np.full(m, -1, np.int64)
    backend = np.full(m, -1, np.int64)
    starts = np.zeros(m + 1, np.int64)
    index: list[int] = []
    for i in range(m):
        ic = ctx.at(i)
        if ic is not None:
            module[i] = module_row(ic.module)
            if ic.source is not None:
                source[i] = sources.setdefault(visible(_frame_text(ic.source)), len(sources))
            if ic.stack:
                stack[i] = stacks.setdefault(ic.stack, len(stacks))
            if ic.backend is not None:
                backend[i] = backends.setdefault(visible(ic.backend), len(backends))
            for node in ic.nodes:
                row = node_rows.get(node.name)
                if row is None:
                    row = node_rows[node.name] = len(nodes["name"])
                    src = source_frame(node.stack)
                    nodes["name"].append(visible(node.name))
                    nodes["op"].append(ops.setdefault(visible(node.op), len(ops)))
                    nodes["module"].append(module_row(node.modules))
                    nodes["source"].append(-1 if src is None else sources.setdefault(visible(_frame_text(src)),
                                                                                    len(sources)))
                    nodes["handle"].append(-1 if node.debug_handle is None else node.debug_handle)
                index.append(row)
        starts[i + 1] = len(index)
    record = program.etrecord.record
    return {
        "file": visible(os.path.basename(record.source)) if record.source else None,
        "warnings": [visible(w) for w in program.etrecord.warnings],
        "modules": {"path": mod_path, "type": mod_type, "parent": mod_parent},
        "module": module,
        "sources": list(sources), "source": source,
        "stacks": [[line for fr in frames for line in [visible(_frame_text(fr))] + ([visible("    " + fr.code)]
                                                                                  if fr.code else [])]
                   for frames in stacks],
        "stack": stack,
        "nodes": {k: np.asarray(v, np.int64) if k != "name" else v for k, v in nodes.items()},
        "ops": list(ops), "opNames": [visible(op_name(o)) for o in ops],
        "nodeStart": starts, "nodeIndex": np.asarray(index, np.int64),
        "backends": list(backends), "backend": backend,
    }
