"""Two runs compared op by op: which instruction of B is which of A, the gap between their outputs, and the first
instruction where the two part.

The runs may be of one program or of two exports of one model (portable vs XNNPACK vs quantized XNNPACK, CPU vs a
device). Pairs are made, in order of preference:

1. **by debug handle**, through each side's ETRecord (``debug_handle_map``, joined by
   :mod:`explorer.analysis.context`): instructions sharing a handle belong together. A delegate call holds the
   handles of every op it swallowed, so a connected group of instructions (A's ``permute``, ``addmm``, ``relu``
   folded into B's ``XnnpackBackend`` call) pairs through its *last* instruction on each side: the op folded into a
   delegate pairs with the delegate's output, the others are listed as ``folded``. A group with the same ops in the
   same order on both sides pairs one to one.
   Handles are numbers the export hands out in graph order, so two exports number them alike only when their graphs
   are alike: a quantized export's handles name other nodes. Before trusting them, each handle shared by both sides
   must name nodes of the same name on both; if one does not, handles are not used (and the comparison says so).
2. **by module and source line**, through the ETRecords' nodes (``layers.0.lin`` at ``model.py:12``): the same
   grouping with those for keys.
3. **by op and order** (no ETRecord, or nothing paired): the kernels' op names aligned as sequences
   (:class:`difflib.SequenceMatcher`), delegates not paired.

Per pair the gap of :func:`~.stats.gap` (max |a-b|, MSE, L1, cosine, SNR in dB, non-finite mismatches); the
**first divergence** is the pair with the smallest A instruction whose gap exceeds ``tol``: ``max |a-b| /
max(1, max |a|) > tol`` (absolute for values up to 1, relative above), or any element finite on one side only.
"""

from __future__ import annotations

import difflib

from explorer.model.numerics import (FirstDivergence, Gap, InstructionNumerics, Numerics, NumericsComparison,
                                     NumericsPair, PlanComparison, PlanNumerics)
from explorer.model.program import Program
from explorer.analysis.context import source_frame
from explorer.analysis.numerics.stats import gap

__all__ = ["compare_numerics", "DEFAULT_TOL"]

DEFAULT_TOL = 1e-4


def compare_numerics(a: Numerics, b: Numerics, program_a: Program, program_b: Program, *,
                     tol: float = DEFAULT_TOL) -> NumericsComparison:
    """Compare every plan both runs have (by name)."""
    plans = {}
    for name, pa in a.plans.items():
        pb = b.plan(name)
        if pb is not None:
            plans[name] = _compare_plan(pa, pb, _context(program_a, name), _context(program_b, name), tol)
    return NumericsComparison(plans, tol)


def _context(program: Program, plan: str):
    ctx = getattr(program, "etrecord", None)
    return ctx.plan(plan) if ctx is not None else None


def _keys(pc, instrs: list[InstructionNumerics], by: str) -> dict[int, set]:
    out: dict[int, set] = {}
    for ins in instrs:
        c = pc.at(ins.instruction) if pc is not None else None
        if c is None:
            continue
        out[ins.instruction] = set(c.handles) if by == "debug_handle" else {_origin(n) for n in c.nodes}
    return out


def _origin(node) -> tuple[str, str | None]:
    """Where in the model a node comes from: its module path and the model's source line."""
    frame = source_frame(node.stack)
    return node.module_path, frame.location if frame is not None else None


def _handles_agree(ca, cb) -> tuple[bool, str | None]:
    """Whether every handle both ETRecords use names nodes from the same place of the model (module path and source
    line) on both sides. A portable export names ``linear`` as ``permute_copy`` + ``addmm`` where XNNPACK's keeps
    ``linear``: the op names differ, the place does not."""
    def origins(pc) -> dict[int, set]:
        out: dict[int, set] = {}
        for node in pc.method.nodes:
            if node.debug_handle is not None:
                out.setdefault(node.debug_handle, set()).add(_origin(node))
        return out
    na, nb = origins(ca), origins(cb)
    for h in sorted(set(na) & set(nb)):
        if not na[h] & nb[h]:
            wa, wb = sorted(na[h], key=str)[0], sorted(nb[h], key=str)[0]
            return False, (f"debug handle {h} is {wa[0] or 'the model'} at {wa[1]} in A but {wb[0] or 'the model'} at "
                           f"{wb[1]} in B: the exports number their nodes differently (a quantized export does), so "
                           f"pairs are made by module and source line")
    return True, None


def _components(ka: dict[int, set], kb: dict[int, set]) -> list[tuple[list[int], list[int]]]:
    """Groups of A and B instructions connected by shared keys (union-find over both sides)."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict[object, tuple[str, int]] = {}
    for side, keys in (("a", ka), ("b", kb)):
        for i, ks in keys.items():
            find((side, i))
            for k in ks:
                if k in owner:
                    parent[find((side, i))] = find(owner[k])
                else:
                    owner[k] = (side, i)
    groups: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for node in list(parent):
        root = find(node)
        g = groups.setdefault(root, ([], []))
        (g[0] if node[0] == "a" else g[1]).append(node[1])
    return [(sorted(x), sorted(y)) for x, y in groups.values() if x and y]


def _matched(x: InstructionNumerics, y: InstructionNumerics) -> list:
    """Output pairs: in order when both have as many; else (a delegate of B with several outputs against A's last op)
    each A output with the last B output of the same shape, else of the same number of elements."""
    if len(x.outputs) == len(y.outputs):
        return list(zip(x.outputs, y.outputs))
    out = []
    for ox in x.outputs:
        same = [oy for oy in y.outputs if oy.stats.shape == ox.stats.shape] or \
            [oy for oy in y.outputs if oy.stats.numel == ox.stats.numel]
        if same:
            out.append((ox, same[-1]))
    return out


def _pair_gap(x: InstructionNumerics, y: InstructionNumerics) -> Gap:
    worst: Gap | None = None
    for ox, oy in _matched(x, y):
        g = gap(ox.array, oy.array, ox.stats.shape, oy.stats.shape)
        if worst is None or _worse(g, worst):
            worst = g
    if worst is None:
        return Gap(None, None, None, None, None, 0, 0.0, False, "a side logged no output")
    return worst


def _worse(g: Gap, than: Gap) -> bool:
    key = lambda z: (z.comparable, z.nonfinite_mismatch, z.relative or 0.0)  # noqa: E731
    return key(g) > key(than)


def _compare_plan(pa: PlanNumerics, pb: PlanNumerics, ca, cb, tol: float) -> PlanComparison:
    ia = [i for i in pa.instructions if i.outputs]
    ib = [i for i in pb.instructions if i.outputs]
    by_a = {i.instruction: i for i in ia}
    by_b = {i.instruction: i for i in ib}
    notes: list[str] = []
    pairs: list[NumericsPair] = []
    how = "op_order"
    if ca is not None and cb is not None:
        agree, why = _handles_agree(ca, cb)
        how = "debug_handle" if agree else "source"
        if why:
            notes.append(why)
        for ga, gb in _components(_keys(ca, ia, how), _keys(cb, ib, how)):
            xs, ys = [by_a[i] for i in ga], [by_b[j] for j in gb]
            if len(xs) == len(ys) and [x.name for x in xs] == [y.name for y in ys]:
                pairs.extend(_pair(x, y, how) for x, y in zip(xs, ys))
            else:
                pairs.append(_pair(xs[-1], ys[-1], how, tuple(x.instruction for x in xs[:-1])))
        if not pairs:
            notes.append("the ETRecords share no debug handle or source line: paired by op and order")
    elif ca is None or cb is None:
        notes.append("without an ETRecord on both sides, instructions are paired by op name and order "
                     "(delegate calls are not paired)")
    if not pairs:
        how = "op_order"
        names_a = [i.name if not _is_delegate(i) else None for i in ia]
        names_b = [i.name if not _is_delegate(i) else None for i in ib]
        sm = difflib.SequenceMatcher(a=names_a, b=names_b, autojunk=False)
        for blk in sm.get_matching_blocks():
            for k in range(blk.size):
                x, y = ia[blk.a + k], ib[blk.b + k]
                if x.name is not None:
                    pairs.append(_pair(x, y, how))
    pairs.sort(key=lambda p: (p.a_instruction, p.b_instruction))
    out_gap = None
    if pa.outputs and pb.outputs:
        gs = [gap(x.array, y.array, x.stats.shape, y.stats.shape) for x, y in zip(pa.outputs, pb.outputs)]
        out_gap = gs[0]
        for g in gs[1:]:
            if _worse(g, out_gap):
                out_gap = g
    first = next((p for p in pairs if p.gap.exceeds(tol)), None)
    fd = FirstDivergence(tol, first.a_instruction if first else None, first.b_instruction if first else None,
                         first.gap if first else None)
    return PlanComparison(pa.plan, tuple(pairs), out_gap, fd, how, tuple(notes))


def _is_delegate(i: InstructionNumerics) -> bool:
    return bool(i.inputs) or (i.name is not None and "::" not in i.name)


def _pair(x: InstructionNumerics, y: InstructionNumerics, how: str, folded: tuple[int, ...] = ()) -> NumericsPair:
    return NumericsPair(x.instruction, y.instruction, how, _pair_gap(x, y), x.outputs[0].device, y.outputs[0].device,
                        folded)
