"""The graph at one level of detail: collapsed groups as single nodes, expanded leaves as their ops
and tensors, every dataflow edge carried by the visible nodes at its two ends.

Given a :class:`~.groups.Groups` tree and the set of expanded groups (the root always is), every
instruction is shown by exactly one *unit*: itself when its leaf group is expanded, else the
outermost collapsed group holding it; a tensor by itself when its home instruction is shown as
itself, else by the unit showing its home. Each dataflow edge (instruction reads or writes a tensor)
becomes an edge between the units of its ends; edges inside one unit vanish (they are inside it), the
others are merged per pair of units, counting the distinct tensors they carry and their bytes. So a
group-to-group edge says "12 tensors, 3.4 KiB cross here". An edge at a single op is styled as the
full graph styles it (a copy's edges as host→device...); edges between groups carry no style of
their own, since the copies they stand for are inside the groups.

Layout: the units are layered as :mod:`.layout` layers the whole plan (one pass in run order — a
group sits where its first instruction would; inputs on top; a tensor read before anything wrote it
just above its first reader; edges pointing back, such as state written back, are drawn but don't
layer), then ordered within layers by the same barycenter sweeps; each expanded group then gets an
empty layer above its members, where the view draws its header. The result has the shape of a
:class:`~.types.Layout`, with ``("g", group)`` nodes besides ``("v", value)`` and ``("i", instr)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .groups import Groups
from .layout import _order
from .transfers import transfer_kind

__all__ = ["Folded", "fold", "visible_nodes"]


@dataclass(frozen=True, eq=False)
class Folded:
    """What the overview draws, in layout order (layer by layer, left to right)."""

    nodes: tuple[tuple[str, int], ...]  # ("g", group) | ("i", instruction) | ("v", value)
    x: np.ndarray  # rank within the layer, centred on 0
    y: np.ndarray  # layer (0 at the top)
    edges: np.ndarray  # (k, 2) int: source and target node positions
    tensors: np.ndarray  # per edge: distinct tensors it carries
    nbytes: np.ndarray  # per edge: their bytes
    kinds: tuple[str, ...]  # per edge: same | h2d | d2h | d2d (as the full graph styles an op's edges)
    devices: np.ndarray  # per edge: device code of the tensors it carries (-1: several devices)
    instruction_unit: np.ndarray = field(repr=False)  # per instruction: its node position
    value_unit: np.ndarray = field(repr=False)  # per value: its node position (-1: not drawn)
    expanded: frozenset = frozenset()  # the expanded group ids this was folded with (root included)

    def position(self, node: tuple[str, int]) -> int | None:
        return self._index.get(node)

    @property
    def _index(self) -> dict:
        index = self.__dict__.get("_idx")
        if index is None:
            index = {n: k for k, n in enumerate(self.nodes)}
            object.__setattr__(self, "_idx", index)
        return index


def visible_nodes(groups: Groups, expanded) -> int:
    """How many nodes :func:`fold` would draw for ``expanded`` (without folding)."""
    total, stack = 0, [0]
    while stack:
        gid = stack.pop()
        kids = groups.children(gid)
        if not kids:
            total += groups.nodes(gid)
            continue
        for c in kids:
            if c in expanded:
                stack.append(c)
            else:
                total += 1
    return total


def fold(groups: Groups, expanded=(), moving: dict[str, np.ndarray] | None = None, *, sweeps: int = 4) -> Folded:
    """The visible graph for ``expanded`` group ids; ``moving`` (transfer arrays) styles op-level edges
    exactly as the full graph does."""
    f, e, m, n = groups.facts, groups.flow, groups.m, groups.facts.n
    expanded = frozenset(expanded) | {0}
    gbase = m + n  # unit codes: instruction i -> i, value v -> m + v, group g -> m + n + g
    inst_unit = np.empty(m, dtype=np.int64)
    stack = [0]
    while stack:
        gid = stack.pop()
        g = groups.groups[gid]
        kids = groups.children(gid)
        if not kids:
            inst_unit[g.start:g.stop] = np.arange(g.start, g.stop)
            continue
        for c in kids:
            if c in expanded:
                stack.append(c)
            else:
                cg = groups.groups[c]
                inst_unit[cg.start:cg.stop] = gbase + c
    home = groups.home
    tv = np.flatnonzero(home >= 0)
    hu = inst_unit[home[tv]]
    value_code = np.full(n, -1, dtype=np.int64)
    value_code[tv] = np.where(hu < m, m + tv, hu)

    # edges between units, merged per pair (distinct tensors, their bytes)
    t = f.is_tensor[e.value] & (value_code[e.value] >= 0)
    ei, ev, ew = e.instr[t], e.value[t], e.write[t]
    iu, vu = inst_unit[ei], value_code[ev]
    src, dst = np.where(ew, iu, vu), np.where(ew, vu, iu)
    keep = src != dst
    src, dst, ev, ei, ew = src[keep], dst[keep], ev[keep], ei[keep], ew[keep]
    span = gbase + len(groups.groups)
    pair = src * span + dst
    _, first = np.unique(pair * n + ev, return_index=True)  # one row per (pair, tensor)
    pairs, rep, inverse = np.unique(pair[first], return_index=True, return_inverse=True)
    counts = np.bincount(inverse, minlength=pairs.size)
    sizes = np.bincount(inverse, weights=f.nbytes[ev[first]].astype(np.float64), minlength=pairs.size)
    row = first[rep]  # an (instruction, tensor) edge of each pair: the only one when an end is a single op
    lo = np.full(pairs.size, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.full(pairs.size, -1, dtype=np.int64)
    np.minimum.at(lo, inverse, f.dcode[ev[first]])
    np.maximum.at(hi, inverse, f.dcode[ev[first]])
    device = np.where(lo == hi, lo, -1)  # device of the tensors an edge carries (-1: several)
    at_op = ((pairs // span) < m) | ((pairs % span) < m)
    kinds_arr = np.full(pairs.size, "same", dtype=object)
    if moving is not None and at_op.any():
        kinds_arr[at_op] = _raw_kinds(groups, moving, ei[row[at_op]], ev[row[at_op]], ew[row[at_op]])

    # nodes in run order
    written = np.zeros(n, dtype=bool)
    written[e.value[e.write]] = True
    units = np.unique(np.concatenate([inst_unit, value_code[tv]]))
    key = np.empty(units.size, dtype=np.int64)
    is_op, is_val = units < m, (units >= m) & (units < gbase)
    key[is_op] = 3 * units[is_op] + 1
    vals = units[is_val] - m
    key[is_val] = 3 * home[vals] + np.where(written[vals], 2, 0)
    gids = units[~is_op & ~is_val] - gbase
    key[~is_op & ~is_val] = 3 * np.asarray([groups.groups[g].start for g in gids.tolist()], dtype=np.int64) + 1
    order = np.argsort(key, kind="stable")
    units, key = units[order], key[order]
    pos = {u: k for k, u in enumerate(units.tolist())}
    a = np.asarray([pos[u] for u in (pairs // span).tolist()], dtype=np.int64)
    b = np.asarray([pos[u] for u in (pairs % span).tolist()], dtype=np.int64)

    inputs = set(groups.plan.inputs)
    deferred = np.zeros(units.size, dtype=bool)  # raw tensors read before written: above their reader
    deferred[is_val[order]] = ~written[units[is_val[order]] - m]
    layer = _layers(units.size, a, b, key, deferred, units, m, inputs, home)
    x = _order(layer, list(zip(a.tolist(), b.tolist())), sweeps)
    _header_rows(groups, expanded, units, layer, m, gbase)
    final = sorted(range(units.size), key=lambda k: (layer[k], x[k]))
    new = np.empty(units.size, dtype=np.int64)
    new[final] = np.arange(units.size)
    nodes = tuple(_node(u, m, gbase) for u in units[final].tolist())

    code_pos = np.full(span, -1, dtype=np.int64)
    code_pos[units[final]] = np.arange(units.size)
    value_unit = np.full(n, -1, dtype=np.int64)
    value_unit[tv] = code_pos[value_code[tv]]
    return Folded(nodes=nodes, x=np.asarray([x[k] for k in final], dtype=float),
                  y=np.asarray([layer[k] for k in final], dtype=float),
                  edges=np.stack([new[a], new[b]], axis=1) if a.size else np.zeros((0, 2), np.int64),
                  tensors=counts.astype(np.int64), nbytes=sizes.astype(np.int64), kinds=tuple(kinds_arr.tolist()),
                  devices=device,
                  instruction_unit=code_pos[inst_unit], value_unit=value_unit, expanded=expanded)


# PRIVATE

def _node(u: int, m: int, gbase: int) -> tuple[str, int]:
    if u < m:
        return ("i", u)
    if u < gbase:
        return ("v", u - m)
    return ("g", u - gbase)


def _header_rows(groups: Groups, expanded, units: np.ndarray, layer: list[int], m: int, gbase: int) -> None:
    """Give each expanded group an empty layer of its own above its members (for its header), with
    what was beside its first members staying a layer above that; outermost groups first."""
    home = groups.home
    anchor = [u if u < m else int(home[u - m]) if u < gbase else groups.groups[u - gbase].start for u in units.tolist()]
    for gid in sorted((g for g in expanded if g), key=lambda g: (groups.groups[g].depth, g)):
        g = groups.groups[gid]
        inside = [g.start <= a < g.stop for a in anchor]
        tops = [layer[k] for k, yes in enumerate(inside) if yes]
        if tops:  # members and everything below move down two layers; others on the members' top layer stay
            top = min(tops)
            for k in range(len(layer)):
                if layer[k] > top or (layer[k] == top and inside[k]):
                    layer[k] += 2


def _layers(count: int, a: np.ndarray, b: np.ndarray, key: np.ndarray, deferred: np.ndarray, units: np.ndarray,
            m: int, inputs: set, home: np.ndarray) -> list[int]:
    """Layer per unit (units in run order), as :func:`.layout.layout` layers single nodes."""
    preds: list[list[int]] = [[] for _ in range(count)]
    for s, d in zip(a.tolist(), b.tolist()):
        if key[s] < key[d]:
            preds[d].append(s)
    waiting: dict[int, list[int]] = {}  # op unit -> deferred tensors it places
    unit_pos = {u: k for k, u in enumerate(units.tolist())}
    for k in np.flatnonzero(deferred).tolist():
        v = int(units[k]) - m
        if v in inputs:
            deferred[k] = False
        else:
            waiting.setdefault(unit_pos.get(int(home[v]), -1), []).append(k)
    layer = [-1] * count
    for k in range(count):
        if deferred[k]:
            continue
        if m <= units[k] < m + len(home) and units[k] - m in inputs:
            layer[k] = 0
        else:
            placed = [layer[p] for p in preds[k] if layer[p] >= 0]
            layer[k] = max(placed, default=0) + 1
        for t in waiting.get(k, ()):
            layer[t] = layer[k] - 1
    for k in range(count):  # a deferred tensor whose reader isn't drawn as itself: on top of its layer
        if layer[k] < 0:
            layer[k] = 0
    low = min(layer, default=0)
    return [v - low for v in layer]


def _raw_kinds(groups: Groups, moving: dict[str, np.ndarray], instr: np.ndarray, value: np.ndarray,
               write: np.ndarray) -> list[str]:
    """Per (instruction, tensor) edge: the transfer kind the full graph gives it ("same" if none)."""
    f = groups.facts
    styled: dict[tuple[int, int, bool], str] = {}
    for i, s, d in zip(moving["instr"].tolist(), moving["src"].tolist(), moving["dst"].tolist()):
        kind = transfer_kind(f.value_device(s), f.value_device(d))
        if kind != "same":
            styled[(i, s, False)] = kind
            styled[(i, d, True)] = kind
    if not styled:
        return ["same"] * len(instr)
    return [styled.get((i, v, w), "same") for i, v, w in zip(instr.tolist(), value.tolist(), write.tolist())]
