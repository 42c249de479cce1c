"""Which tensor of program B is which tensor of program A: the matching behind :mod:`.diff`.

Two exports of one model share no value numbering: a partitioner change inserts copies, fuses ops into
delegates and renumbers everything. Most tensors have no fully-qualified name either (executorch
writes names only for mutable buffers and external data). So tensors are matched by what they *are*,
in this order (each rule only pairs tensors that are still unpaired on both sides):

1. ``name`` — the same fully-qualified name (unique on each side; duplicates are paired in order and
   flagged ambiguous).
2. ``input`` — plan input k with plan input k.
3. ``constant`` — constants with the same (``data_buffer_idx``, dtype, shape); executorch deduplicates
   constants, so tensors sharing a key share their bytes and are interchangeable.
4. ``output`` — plan output k with plan output k, looking through copies (see below), when dtype and
   shape agree.
5. ``dataflow`` — two ways, repeated until nothing new is found:

   * *backward*: when a and b are paired and their producers are the same op (same kernel, or the same
     delegate id) reading as many tensors, those reads are paired position by position, and the
     producers' other outputs too when both write as many;
   * *forward*, in A's run order: an instruction of A whose tensor reads are all paired is matched
     with an instruction of B reading exactly the counterparts (as a set, since a delegate orders its
     inputs as it likes), preferring the same op; their outputs are paired by position when the op is
     the same and writes as many, else greedily by dtype and shape. This is what pairs ``aten::add.out``
     on the CPU with the delegate call that now computes the same sum on a GPU.
6. ``op-occurrence`` — what is left: the k-th call of the same op in run order, output position p
   (and, for tensors only read, such as a kernel's scratch buffer or a static view, read position p
   when both calls read as many), only when dtype and shape agree (a guess; the summary says how
   many were made this way).
7. ``copy`` — values written by ``et_copy::_h2d_copy``/``_d2h_copy`` are not matched as values of their
   own: a copy stands for its *source* (followed through chains of copies: the "root"), and the j-th
   h2d (or d2h) copy of a root in A is paired with the j-th one of its counterpart in B. Unpaired
   copies are the copies a change added or removed.

Non-tensor values (scalars, lists) are not matched: nothing is placed on a device for them. Arenas
are paired by :func:`match_arenas` (per device, then by ``memory_id``), and :func:`instruction_status`
says which instructions a view should highlight.
"Ambiguous" marks pairs chosen among several equally good candidates. The cost is linear in values
and instructions (plus the candidate lists of the forward pass, short in practice).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from explorer.model.program import Device, Plan, Tensor
from explorer.analysis.facts import Facts
from explorer.analysis.graph import H2D_OPS
from explorer.analysis.types import Dataflow

__all__ = ["RULES", "Matching", "SideGraph", "match", "match_arenas", "instruction_status"]

RULES = ("name", "input", "constant", "output", "dataflow", "op-occurrence", "copy")
_ROUNDS = 4  # backward/forward rounds; each is linear, and real pairs settle in two


class SideGraph:
    """One side's tensors seen through copies: roots, producers, op occurrences (plain dicts)."""

    def __init__(self, plan: Plan, flow: Dataflow) -> None:
        self.plan = plan
        f = Facts(plan)
        self.is_tensor: list[bool] = f.is_tensor.tolist()
        kind, copy = f.ic.kind.tolist(), f.is_copy.tolist()
        tensor = self.is_tensor
        self.copy_src: dict[int, int] = {}  # copy destination -> the tensor it copies
        self.copy_instr: dict[int, int] = {}  # copy destination -> its copy instruction
        self.copy_dir: dict[int, str] = {}  # copy destination -> "h2d" | "d2h" (from the op's name)
        self.copy_op: dict[int, str] = {}  # copy destination -> the copy op's full name
        self.compute: list[int] = []  # non-copy kernel and delegate calls, run order
        self.label: dict[int, str] = {}
        ops = [o.full_name for o in plan.operators]
        dels = [d.id for d in plan.delegates]
        target = f.ic.target.tolist()
        for i in range(f.m):
            if kind[i] == 1 and copy[i]:
                reads = [v for v in flow.reads[i] if tensor[v]]
                op = ops[target[i]]
                direction = "h2d" if op.split(".", 1)[0] in H2D_OPS else "d2h"
                for w in flow.writes[i]:
                    if tensor[w] and reads and w not in self.copy_src and w != reads[0]:
                        self.copy_src[w], self.copy_instr[w], self.copy_dir[w] = reads[0], i, direction
                        self.copy_op[w] = op
            elif kind[i] in (1, 2):
                self.compute.append(i)
                t = target[i]
                names = ops if kind[i] == 1 else dels
                self.label[i] = names[t] if 0 <= t < len(names) else f.label(i)
        self.flow = flow
        self.treads: dict[int, tuple[int, ...]] = {}
        self.twrites: dict[int, tuple[int, ...]] = {}
        self.producer: dict[int, tuple[int, int]] = {}  # primary tensor -> (first compute writer, output position)
        self.occurrence: dict[int, int] = {}
        seen: dict[str, int] = defaultdict(int)
        copy_src = self.copy_src
        for i in self.compute:
            self.treads[i] = tuple(dict.fromkeys(self.root(v) if v in copy_src else v
                                                 for v in flow.reads[i] if tensor[v]))
            self.twrites[i] = writes = tuple(w for w in flow.writes[i] if tensor[w] and w not in copy_src)
            for pos, w in enumerate(writes):
                if w not in self.producer:
                    self.producer[w] = (i, pos)
            label = self.label[i]
            self.occurrence[i] = seen[label]
            seen[label] += 1

    def scalars(self, i: int) -> tuple:
        """The non-tensor values instruction ``i`` reads (to tell ``x * 2`` from ``x * 3``)."""
        values = self.plan.values
        return tuple(_literal(values[v]) for v in self.flow.reads[i] if not self.is_tensor[v])

    @cached_property
    def roles(self) -> dict[int, str]:
        """``input k`` / ``output k`` per tensor (an output is its root: the tensor its copies stand for)."""
        roles: dict[int, str] = {}
        for k, v in enumerate(self.plan.outputs):
            if 0 <= v < len(self.is_tensor):
                roles.setdefault(self.root(v), f"output {k}")
        for k, v in enumerate(self.plan.inputs):
            roles[v] = f"input {k}"
        return roles

    def root(self, v: int) -> int:
        """The tensor a copy (of a copy...) stands for; ``v`` itself when it is no copy."""
        hops = 0
        while v in self.copy_src and hops <= len(self.copy_src):
            v, hops = self.copy_src[v], hops + 1
        return v

    def tensor(self, v: int) -> Tensor:
        return self.plan.values[v]  # type: ignore[return-value]

    def primaries(self) -> list[int]:
        """Tensors that are not copies, in value order."""
        return [v for v, t in enumerate(self.is_tensor) if t and v not in self.copy_src]


@dataclass
class Matching:
    """The result: tensor pairs and how each was made (keys are A's value indices)."""

    a: SideGraph
    b: SideGraph
    a2b: dict[int, int] = field(default_factory=dict)
    b2a: dict[int, int] = field(default_factory=dict)
    rule: dict[int, str] = field(default_factory=dict)  # A value -> rule that paired it
    ambiguous: set[int] = field(default_factory=set)  # A values paired among several candidates

    def pair(self, a: int, b: int, rule: str, ambiguous: bool = False) -> bool:
        if a in self.a2b or b in self.b2a:
            return False
        self.a2b[a], self.b2a[b], self.rule[a] = b, a, rule
        if ambiguous:
            self.ambiguous.add(a)
        return True

    def counts(self) -> dict[str, int]:
        """How many pairs each rule made, plus ``ambiguous``, ``unmatched_a`` and ``unmatched_b``."""
        out = {r: 0 for r in RULES}
        for r in self.rule.values():
            out[r] += 1
        out["ambiguous"] = len(self.ambiguous)
        out["unmatched_a"] = sum(1 for v, t in enumerate(self.a.is_tensor) if t and v not in self.a2b)
        out["unmatched_b"] = sum(1 for v, t in enumerate(self.b.is_tensor) if t and v not in self.b2a)
        return out


def match(a_plan: Plan, a_flow: Dataflow, b_plan: Plan, b_flow: Dataflow) -> Matching:
    """Pair the tensors of two plans by the rules of the module doc."""
    m = Matching(SideGraph(a_plan, a_flow), SideGraph(b_plan, b_flow))
    _by_name(m)
    _by_input(m)
    _by_constant(m)
    _by_output(m)
    queue = list(m.a2b.items())
    index = _read_index(m.b)
    for _ in range(_ROUNDS):
        _backward(m, queue)
        before = len(m.a2b)
        _forward(m, index)
        if len(m.a2b) == before:
            break
        queue = [(a, b) for a, b in m.a2b.items() if m.rule[a] == "dataflow"]
    _by_occurrence(m)
    _copies(m)
    return m


def match_arenas(a: list[tuple[int, Device]], b: list[tuple[int, Device]]) -> dict[int, int]:
    """Pair arenas given as (memory_id, device): the k-th arena of a device in A with the k-th of that
    device in B, then leftovers with the same memory_id (the same arena, now on another device)."""
    by_device: dict[Device, list[int]] = defaultdict(list)
    for mid, dev in b:
        by_device[dev].append(mid)
    pairs: dict[int, int] = {}
    for mid, dev in a:
        if by_device.get(dev):
            pairs[mid] = by_device[dev].pop(0)
    left = {mid for mid, _ in b} - set(pairs.values())
    for mid, _ in a:
        if mid not in pairs and mid in left:
            pairs[mid] = mid
            left.discard(mid)
    return pairs


def instruction_status(m: Matching, writes: Sequence[tuple[int, ...]], status: dict[int, str], first: bool
                       ) -> dict[int, str]:
    """Instructions that changed (absent: ``same``): ``removed`` (A) / ``added`` (B) when every tensor
    they write is unpaired; ``changed`` when a tensor they write moved device or shape, or its
    counterpart is written by another op (``aten::add.out`` became a delegate call)."""
    g, other = (m.a, m.b) if first else (m.b, m.a)
    pairs = m.a2b if first else m.b2a
    gone = "removed" if first else "added"
    out = {}
    tensor = g.is_tensor
    for i, written in enumerate(writes):
        ts = [w for w in written if tensor[w]]
        if not ts:
            continue
        states = [status[w] for w in ts]
        if all(s == gone for s in states):
            out[i] = gone
        elif "device" in states or "shape" in states or _op_changed(g, other, pairs, i, ts):
            out[i] = "changed"
    return out


# PRIVATE

def _literal(value) -> tuple:
    return (value.type, value.value if isinstance(value.value, (int, float, bool, str, type(None))) else None)


def _compatible(m: Matching, a: int, b: int) -> bool:
    ta, tb = m.a.tensor(a), m.b.tensor(b)
    return ta.scalar_type == tb.scalar_type and ta.sizes == tb.sizes


def _group_pair(m: Matching, a_groups: dict, b_groups: dict, rule: str, flag_duplicates: bool) -> None:
    for key, a_list in a_groups.items():
        b_list = b_groups.get(key)
        if not b_list:
            continue
        ambiguous = flag_duplicates and (len(a_list) > 1 or len(b_list) > 1)
        for a, b in zip(a_list, b_list):
            m.pair(a, b, rule, ambiguous)


def _by_name(m: Matching) -> None:
    groups = []
    for side in (m.a, m.b):
        named: dict[str, list[int]] = defaultdict(list)
        for v in side.primaries():
            name = side.tensor(v).name
            if name:
                named[name].append(v)
        groups.append(named)
    _group_pair(m, groups[0], groups[1], "name", flag_duplicates=True)


def _by_input(m: Matching) -> None:
    for a, b in zip(m.a.plan.inputs, m.b.plan.inputs):
        if _is_primary(m.a, a) and _is_primary(m.b, b):
            m.pair(a, b, "input")


def _is_primary(side: SideGraph, v: int) -> bool:
    return 0 <= v < len(side.is_tensor) and side.is_tensor[v] and v not in side.copy_src


def _by_constant(m: Matching) -> None:
    groups = []
    for side in (m.a, m.b):
        consts: dict[tuple, list[int]] = defaultdict(list)
        for v in side.primaries():
            t = side.tensor(v)
            if t.storage == "constant":
                consts[(t.data_buffer_idx, t.scalar_type, t.sizes)].append(v)
        groups.append(consts)
    _group_pair(m, groups[0], groups[1], "constant", flag_duplicates=False)


def _by_output(m: Matching) -> None:
    for a, b in zip(m.a.plan.outputs, m.b.plan.outputs):
        if not (0 <= a < len(m.a.is_tensor) and m.a.is_tensor[a] and 0 <= b < len(m.b.is_tensor) and m.b.is_tensor[b]):
            continue
        ra, rb = m.a.root(a), m.b.root(b)
        if _compatible(m, ra, rb):
            m.pair(ra, rb, "output")


def _backward(m: Matching, queue: list[tuple[int, int]]) -> None:
    """From paired tensors to their producers' reads (and sibling outputs), when the ops agree."""
    while queue:
        a, b = queue.pop()
        pa, pb = m.a.producer.get(a), m.b.producer.get(b)
        if pa is None or pb is None:
            continue
        ia, ib = pa[0], pb[0]
        if m.a.label[ia] != m.b.label[ib]:
            continue
        pairs = []
        if len(m.a.treads[ia]) == len(m.b.treads[ib]):
            pairs += zip(m.a.treads[ia], m.b.treads[ib])
        if len(m.a.twrites[ia]) == len(m.b.twrites[ib]):
            pairs += zip(m.a.twrites[ia], m.b.twrites[ib])
        for x, y in pairs:
            if x not in m.a2b and y not in m.b2a and _compatible(m, x, y) and m.pair(x, y, "dataflow"):
                queue.append((x, y))


def _read_index(b: SideGraph) -> dict[frozenset, list[int]]:
    index: dict[frozenset, list[int]] = defaultdict(list)
    for j in b.compute:
        if b.treads[j]:
            index[frozenset(b.treads[j])].append(j)
    return index


def _forward(m: Matching, index: dict[frozenset, list[int]]) -> None:
    """In A's run order: an instruction whose reads are all paired meets the B instruction reading
    exactly their counterparts; their outputs are paired."""
    A, B = m.a, m.b
    for i in A.compute:
        outs = [w for w in A.twrites[i] if w not in m.a2b]
        reads = A.treads[i]
        if not outs or not reads or any(r not in m.a2b for r in reads):
            continue
        cands = [j for j in index.get(frozenset(m.a2b[r] for r in reads), ())
                 if any(w not in m.b2a for w in B.twrites[j])]
        if not cands:
            continue
        same = [j for j in cands if B.label[j] == A.label[i]]
        pool = same or cands
        if len(pool) > 1:  # prefer the same scalars and read order, then run order
            exact = [j for j in pool if B.scalars(j) == A.scalars(i)
                     and tuple(m.a2b[r] for r in reads) == B.treads[j]]
            pool = exact or pool
        j, ambiguous = pool[0], len(pool) > 1
        if same and len(A.twrites[i]) == len(B.twrites[j]):
            for x, y in zip(A.twrites[i], B.twrites[j]):
                m.pair(x, y, "dataflow", ambiguous)
            continue
        free = [w for w in B.twrites[j] if w not in m.b2a]
        for x in outs:
            fits = [y for y in free if _compatible(m, x, y)]
            if fits and m.pair(x, fits[0], "dataflow", ambiguous or len(fits) > 1):
                free.remove(fits[0])


def _by_occurrence(m: Matching) -> None:
    calls = {(m.b.label[j], m.b.occurrence[j]): j for j in m.b.compute}
    for i in m.a.compute:
        j = calls.get((m.a.label[i], m.a.occurrence[i]))
        if j is None:
            continue
        pairs = list(zip(m.a.twrites[i], m.b.twrites[j]))
        if len(m.a.treads[i]) == len(m.b.treads[j]):
            pairs += zip(m.a.treads[i], m.b.treads[j])
        for x, y in pairs:
            if x not in m.a2b and y not in m.b2a and _compatible(m, x, y):
                m.pair(x, y, "op-occurrence")


def _copies(m: Matching) -> None:
    groups = []
    for side in (m.a, m.b):
        by_root: dict[tuple[int, str], list[int]] = defaultdict(list)
        for w in sorted(side.copy_src, key=lambda v: (side.copy_instr[v], v)):
            by_root[(side.root(w), side.copy_dir[w])].append(w)
        groups.append(by_root)
    a_groups = {(m.a2b[r], d): ws for (r, d), ws in groups[0].items() if r in m.a2b}
    _group_pair(m, a_groups, groups[1], "copy", flag_duplicates=False)


def _op_changed(g: SideGraph, other: SideGraph, pairs: dict[int, int], i: int, writes: list[int]) -> bool:
    if i not in g.label:
        return False
    for w in writes:
        p = other.producer.get(pairs[w]) if w in pairs else None
        if p is not None:
            return other.label[p[0]] != g.label[i]
    return False
