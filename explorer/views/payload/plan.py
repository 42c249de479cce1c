"""A plan's data for the app, at every size: compact column tables from which the app builds both figures
(``explorer/frontend/lod/figures.js``: the graph's traces and legend, the memory lanes' axes, titles and arena ends,
from ``devices``, ``style`` and ``arenas``), folds, lays out and draws the graph (``explorer/frontend/lod*.js``),
bins the memory lanes and writes every detail and hover text — no figure, no HTML fragment per tensor or
instruction.

Tables are columns, one per field: the per-tensor, per-instruction and per-edge integer columns as numpy
arrays (sent as binary arrays by :func:`.embed.pack`, read back as plain arrays), the few per-group ones and
strings as lists, so a 100k-value plan costs ~1 MB of
numbers and a few MB of names rather than tens of MB of HTML. Strings from the file are stored as plain text made
:func:`~.escape.visible`; the script escapes them for plotly (``&<>``) and writes them into the page
with ``textContent`` (or its own escaping), never as markup.
"""

from __future__ import annotations

import numpy as np

from explorer.analysis.arrays import unique
from explorer.analysis.facts import STORAGE
from explorer.analysis.groups import OP_KINDS
from explorer.model.columns import instruction_traces, tensor_layout, tensor_text
from explorer.model.program import dtype_name
from explorer.views.escape import visible
from explorer.views.payload.embed import NAMED_LABELS
from explorer.views.state.memory import BINS, BLOCK_LIMIT
from explorer.views.state.overview import (FOCUS_LAYERS, GROUP_SYMBOLS, OVERVIEW_TRACE, VISIBLE_LIMIT, _GROUP_LABELS,
    _LABELS)
from explorer.views.palette import (BLOCK_OPACITY, EDGE_STYLES, ERROR, FONT, INK, MUTED, OP_STYLES, SELECT,
    TENSOR_OPACITY, device_style, ordered_devices)
from explorer.views.state.plan import PlanView
from explorer.views.words import fmt_shape

__all__ = ["lod_payload"]

_STORAGE_NAMES = {code: name for name, code in STORAGE.items()}


def lod_payload(view: PlanView) -> dict:
    """Everything the report script needs to draw and explore a big plan (see the module docstring)."""
    plan, lazy, ov, mem = view.plan, view.analysis, view.overview, view.memory
    f, G = lazy.facts, ov.groups
    G.build_all()
    # the devices in the order legends list them (palette.ordered_devices): the app's legends keep this order
    devices = ordered_devices([f.device(int(c)) for c in unique(f.dcode[f.is_tensor])]
                              + [f.device(c) for c in G.device_codes] + list(plan.arena_devices))
    dev_index = {d.code: k for k, d in enumerate(devices)}

    def dev_of(code: int) -> int:
        return dev_index.get(int(code), -1)

    def devs_of(codes_: np.ndarray) -> np.ndarray:  # dev_of over a column, by its few distinct codes
        uniq, inv = unique(codes_, return_inverse=True)
        return np.asarray([dev_of(c) if c >= 0 else -1 for c in uniq.tolist()], dtype=np.int64)[inv.ravel()]

    groups = G.groups
    children: list[int] = []
    child_start: list[int] = []
    for g in groups:
        child_start.append(len(children))
        children.extend(G.children(g.id))
    child_start.append(len(children))
    counts = [G.counts(g.id) for g in groups]
    tensors = np.flatnonzero(f.is_tensor)
    names, sizes = tensor_text(plan, tensors)  # no Tensor objects: ~1 s saved at 100k values
    dim_index, dim_orders, dyn_index, dynamisms = tensor_layout(plan, tensors)
    codes_st, st_index = unique(f.scalar_type[tensors], return_inverse=True)
    dtypes = [dtype_name(int(c)) for c in codes_st.tolist()]
    edges = lazy.edges
    flow = f.is_tensor[edges.value]
    moving = lazy.moving
    return {
        "trace": OVERVIEW_TRACE,
        "devices": [{"name": visible(d), "color": device_style(d).color, "ink": block_text_color(device_style(d).color),
                     "symbol": device_style(d).symbol,
                     "pattern": device_style(d).pattern, "host": d.is_host, "known": d.known} for d in devices],
        "expanded": list(ov.expanded), "window": None,
        "groups": {"parent": [g.parent for g in groups], "start": [g.start for g in groups],
                   "stop": [g.stop for g in groups], "kind": [g.kind for g in groups],
                   "label": [visible(g.label) for g in groups],
                   "dev": [dev_of(_code(g.device)) if g.device else -1 for g in groups],
                   "nodes": [G.nodes(g.id) for g in groups], "childStart": child_start, "children": children,
                   "kinds": [[c["kinds"].get(k, 0) for k in OP_KINDS] for c in counts],
                   "devs": [[c["devices"].get(d, 0) for d in devices] for c in counts]},
        "ops": {"kind": G.op_kind, "dev": devs_of(G.op_device),
                **_op_table(plan, f), "chain": _chains(plan, G.m),
                "argStart": f.ic.starts, "args": f.ic.args, **_stacks(instruction_traces(plan))},
        "valueKind": f.kind.astype(np.int8), "valueKinds": list(_VALUE_KINDS),
        "tensors": {"index": tensors,
                    # the labels of the named rows only: the decoder makes "label", "%N" for the rest (embed.py)
                    NAMED_LABELS: [visible(nm) for nm in names if nm],
                    "named": np.fromiter((bool(nm) for nm in names), dtype=np.int8, count=len(names)),
                    "dtype": st_index.ravel(),
                    **_shapes(sizes),
                    "dev": devs_of(f.dcode[tensors]),
                    "dyn": dyn_index, "dyns": dynamisms,
                    "dimOrder": dim_index, "dimOrders": ["(" + ", ".join(map(str, d)) + ")" for d in dim_orders],
                    **_interned("storage", [_STORAGE_NAMES.get(int(s), "?") for s in f.storage[tensors].tolist()]),
                    "mem": f.memory_id[tensors], "off": f.offset[tensors], "nbytes": f.raw_nbytes[tensors],
                    "first": lazy.first[tensors], "last": lazy.last[tensors], "home": G.home[tensors]},
        "dtypes": dtypes,
        "flow": {"i": edges.instr[flow], "v": edges.value[flow], "w": edges.write[flow].astype(np.int8)},
        "moving": {"i": moving["instr"], "s": moving["src"], "d": moving["dst"], "nbytes": moving["nbytes"]},
        "delegates": [{"id": visible(d.id), "location": visible(d.location), "dataIndex": d.data_index,
                       "size": d.data_size, "specs": [[visible(s.key), visible(s.text)] for s in d.compile_specs]}
                      for d in plan.delegates],
        "delegateOf": np.where(f.ic.kind == 2, f.ic.target, -1).astype(np.int64),
        "inputs": list(plan.inputs), "outputs": list(plan.outputs),
        "errors": sorted({v for fd in lazy.findings if fd.severity == "error" for v in fd.values}),
        "arenas": [{"id": a.memory_id, "size": a.size, "high": a.high_water, "dev": dev_of(_code(a.device)),
                    "peak": a.peak_live_bytes, "peakAt": a.peak_at, "past": past,
                    "rows": np.asarray(rows["value"])} for a, rows, past in zip(mem.arenas, mem.rows, mem.past_end())],
        "names": {"plan": visible(plan.name), "opKinds": list(OP_KINDS)},
        "limits": {"visible": VISIBLE_LIMIT, "focus": FOCUS_LAYERS, "labels": _LABELS, "groupLabels": _GROUP_LABELS,
                   "blocks": BLOCK_LIMIT, "bins": list(BINS)},
        "style": {"op": OP_STYLES, "group": GROUP_SYMBOLS, "edge": EDGE_STYLES, "error": ERROR,
                  "ink": INK, "muted": MUTED, "select": SELECT, "font": FONT,
                  "opacity": {"tensor": TENSOR_OPACITY, "block": BLOCK_OPACITY}},
        "m": G.m, "n": f.n,
    }


def block_text_color(color: str) -> str:
    """Ink or white, whichever reads on a block of ``color`` (``#RRGGBB``): a block's name inside it."""
    r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return INK if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "#FFFFFF"


def lod_devices(view: PlanView) -> list[list[str]]:
    """``[[device, colour], ...]`` for the device filter of a big plan."""
    f = view.analysis.facts
    devices = [f.device(int(c)) for c in unique(f.dcode[f.is_tensor])] + list(view.plan.arena_devices)
    return [[visible(d), device_style(d).color] for d in ordered_devices(devices)]


_VALUE_KINDS = ("None", "Null", "Int", "Bool", "Double", "Tensor", "String", "IntList", "DoubleList", "BoolList",
                "TensorList", "OptionalTensorList")  # the value kind codes of explorer.model.columns.value_columns


def _stacks(traces) -> dict:
    """``stack`` (per instruction an index into ``stacks``, -1: no frames kept) and ``stacks`` (each distinct
    stacktrace once, as lines of visible text: ``file:line in name`` then its indented context line)."""
    table: dict[tuple, int] = {}
    index = np.full(len(traces), -1, dtype=np.int64)
    for i, frames in enumerate(traces):
        if frames:
            index[i] = table.setdefault(tuple(frames), len(table))
    stacks = [[line for fr in frames for line in
               [visible(f"{fr.filename or '?'}:{fr.lineno} in {fr.name or '?'}")] +
               ([visible("    " + fr.context)] if fr.context else [])] for frames in table]
    return {"stack": index, "stacks": stacks}


def _interned(name: str, items: list[str]) -> dict:
    """``{name: [index...], name + "s": [distinct...]}``: a column of few distinct strings, compactly."""
    table: dict[str, int] = {}
    index = np.fromiter((table.setdefault(x, len(table)) for x in items), dtype=np.int64, count=len(items))
    return {name: index, name + "s": list(table)}


def _shapes(sizes: list[tuple]) -> dict:
    """``shape`` (an index per tensor) and ``shapes`` (the distinct shapes, written once each)."""
    table: dict[tuple, int] = {}
    index = np.fromiter((table.setdefault(sz, len(table)) for sz in sizes), dtype=np.int64, count=len(sizes))
    return {"shape": index, "shapes": [fmt_shape(sz) for sz in table]}


def _op_table(plan, f) -> dict:
    """Per instruction an index into a table of (label, short label, kind name), from the columns
    (no Instruction objects): ``op`` and ``opTable``."""
    kinds = {0: "None", 1: "KernelCall", 2: "DelegateCall", 3: "MoveCall", 4: "JumpFalseCall", 5: "FreeCall"}
    keys = (f.ic.kind.astype(np.int64) << 32) + (f.ic.target + 1)
    uniq, first, index = unique(keys, return_index=True, return_inverse=True)
    table = []
    for i in first.tolist():
        kind, target, label = int(f.ic.kind[i]), int(f.ic.target[i]), f.label(i)
        known = kind == 1 and 0 <= target < len(plan.operators)
        short = label.split("::", 1)[-1].removesuffix(".out") if known else label  # as text.op_short
        table.append([visible(label), visible(short), kinds.get(kind, "None")])
    return {"op": index.ravel(), "opTable": table}


def _chains(plan, m: int) -> np.ndarray:
    chain = np.zeros(m, dtype=np.int64)
    for c in plan.chains:
        chain[max(c.start, 0):min(c.stop, m)] = c.index
    return chain


def _code(device) -> int:
    return device.code
