"""Groups of consecutive instructions: the level of detail of a big plan's graph.

A plan with tens of thousands of instructions can't be drawn node by node and still be read, so the
overview draws *groups*: ranges of consecutive instructions (run order), arranged in a tree. The root
is the whole plan; a group either splits into child groups or, when it is small enough
(``leaf_nodes``: its ops plus the tensors they make), is a *leaf* that expands into its own ops and
tensors. Every instruction is in exactly one child of each group that splits, so counts add up at
every level and nothing is dropped.

How a group splits (the first rule that applies):

0. **Modules**, when an ETRecord is joined (:mod:`.context`): the same rule as the name prefix below, with
   each instruction's scope the innermost module its graph nodes ran in (``layers.3.attention.wq``), so
   groups are the model's modules, named as in the model; the model's own ops are labelled by its class.
1. **Name prefix**, when the file names the parameters (constants, mutable buffers) its instructions
   read: an instruction's *scope* is the name of the first such tensor it reads, without its last
   component (``layers.3.attention.wq.weight`` -> ``layers.3.attention.wq``); an instruction reading
   none inherits the scope before it — unless it comes after the last instruction reading a result
   of that scope directly, in which case it belongs to the next scope (a layer's norm computes
   ``pow``/``mean``/``rsqrt`` before it reads its weight; those start the layer). At the shallowest depth deeper than the parent's where the
   scope changes inside the group, runs of equal scope prefix become children (``tok_embeddings``,
   ``layers``, ``norm``; inside ``layers``: ``layers.0`` ... ``layers.31``). More than ``max_children``
   runs are cut into chunks of whole runs with about equal node counts (``layers.0 … layers.6``),
   which split again at the same depth. Names
   cost a model object each, so when more than ``NAME_BUDGET`` distinct parameters would have to be
   named (a synthetic plan with a weight per kernel; real exports have a few hundred), names are not
   used (``Groups.names_skipped`` says how many there were).
   Without parameter names, the **stack traces** the export kept (``frames``) scope the same way: at
   depth d an instruction's scope is its d outermost frames, so the ops of each call in the model's
   ``forward`` form a run (labelled by the frame, ``model.py:64 in forward``), and inside it the ops of
   each call below.
2. **Units**: a delegate call together with the copies that feed it (just before it, writing what it
   reads) and the copies that take its results (just after, reading what it writes); and maximal runs
   of the remaining instructions whose ops run on one device (an op runs where its outputs live; moves
   and frees, which write no tensor, join the run they are in). Up to ``max_children`` units become
   children; more are cut into chunks of consecutive units with about equal node counts.
3. A single unit too big to draw (one run of 5,000 CPU kernels) is cut into chunks of consecutive
   instructions with about equal node counts.

A tensor belongs to the group of its *home* instruction: the first that writes it, else the first that
reads it (constants, plan inputs). Children are computed on first use; :meth:`Groups.build_all`
makes the whole tree (for the offline report).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from explorer.analysis.arrays import isin, unique, unique_rows
from explorer.model.program import Device, Plan
from explorer.analysis.facts import STORAGE, Facts
from explorer.analysis.graph import Edges

__all__ = ["Group", "Groups", "LEAF_NODES", "MAX_CHILDREN", "NAME_BUDGET", "OP_KINDS", "tensor_homes", "op_devices"]

LEAF_NODES = 600  # a group with at most this many nodes expands into its ops and tensors
MAX_CHILDREN = 32  # a group splits into at most this many children
NAME_BUDGET = 5_000  # name prefixes are looked at when at most this many parameters have to be named
FRAME_BUDGET = 20_000  # stack traces are looked at (when nothing is named) in plans of at most this many instructions
OP_KINDS = ("kernel", "delegate", "copy", "other")  # op kind codes 0..3 (as views.text.op_kind)


@dataclass(frozen=True)
class Group:
    """A range of consecutive instructions drawn as one node while collapsed."""

    id: int  # position in Groups.groups (0 = the root, the whole plan)
    parent: int  # -1 for the root
    start: int  # first instruction (run order)
    stop: int  # one past the last
    kind: str  # root | delegate | run | prefix | prefixes (a chunk of name runs) | chunk
    label: str  # short text next to the node: "412 kernels on cpu", "layers.3", "#1200–#1899"
    device: Device | None  # where most of its ops run (None: no op says)
    depth: int  # 0 for the root
    scope: int = 0  # name-prefix depth its children start looking at

    @property
    def size(self) -> int:
        return self.stop - self.start


def op_devices(plan: Plan, f: Facts, e: Edges) -> np.ndarray:
    """Device code per instruction: a delegate's ``target_device``, else the one device of the tensors it
    writes; -1 when it writes none or several."""
    m = f.m
    tw = e.write & f.is_tensor[e.value]
    wi, wd = e.instr[tw], f.dcode[e.value[tw]]
    lo = np.full(m, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.full(m, -1, dtype=np.int64)
    np.minimum.at(lo, wi, wd)
    np.maximum.at(hi, wi, wd)
    dev = np.where((hi >= 0) & (lo == hi), lo, -1)
    for k, d in enumerate(plan.delegates):
        target = d.target_device
        if target is not None:
            dev[(f.ic.kind == 2) & (f.ic.target == k)] = target.code
    return dev


def tensor_homes(f: Facts, e: Edges) -> np.ndarray:
    """Home instruction per value: the first writing it, else the first reading it; -1 for values that
    are not tensors or that no instruction names.

    A planned tensor read before anything writes it, and not a plan input, is almost always an alias: a
    static view the emitter elided (``view``, ``permute`` on contiguous data) or the new value of a KV
    cache that ``copy_`` writes back after the output — another EValue over the same bytes. Its home is
    then the last instruction that wrote a tensor at the same arena and offset before that first read (the
    base's writer), so the overview draws it, and the edge it carries, where its data comes from; without
    this a model's output head and its cache write-backs float unconnected above the graph."""
    home = np.full(f.n, -1, dtype=np.int64)
    t = f.is_tensor[e.value]
    for mask in (t & ~e.write, t & e.write):  # writers last, so they win
        vals, ins = e.value[mask], e.instr[mask]
        if vals.size:
            uniq, pos = unique(vals, return_index=True)
            home[uniq] = ins[pos]
    _alias_homes(f, e, home)
    return home


def _alias_homes(f: Facts, e: Edges, home: np.ndarray) -> None:
    """Re-home read-first planned tensors at the last earlier writer of their bytes (see tensor_homes)."""
    w = e.write & f.planned[e.value]
    if not w.any():
        return
    first_write = np.full(f.n, f.m, dtype=np.int64)
    np.minimum.at(first_write, e.value[w], e.instr[w])
    cand = np.flatnonzero(f.planned & (home >= 0) & (home < first_write) & ~f.input_mask)
    if not cand.size:
        return
    wv, wi = e.value[w], e.instr[w]
    spots, spot = unique_rows(np.stack([np.concatenate([f.memory_id[wv], f.memory_id[cand]]),
                                        np.concatenate([f.offset[wv], f.offset[cand]])], axis=1), return_inverse=True)
    spot = spot.ravel()
    span = f.m + 1
    writes = np.sort(spot[:wv.size] * span + wi)
    want = spot[wv.size:] * span + home[cand]
    k = np.searchsorted(writes, want, side="left") - 1
    ok = k >= 0
    found = np.where(ok, writes[np.maximum(k, 0)], -1)
    ok &= found // span == spot[wv.size:]
    home[cand[ok]] = found[ok] % span


class Groups:
    """The group tree of one plan (rules in the module docstring)."""

    def __init__(self, plan: Plan, facts: Facts, flow: Edges, *, names: bool = True,
                 leaf_nodes: int = LEAF_NODES, max_children: int = MAX_CHILDREN,
                 modules: "tuple[list[str | None], str] | None" = None):
        self.plan, self.facts, self.flow = plan, facts, flow
        self.leaf_nodes, self.max_children = leaf_nodes, max_children
        f, m = facts, facts.m
        self.m = m
        kind = f.ic.kind
        self.op_kind = np.where(kind == 2, 1, np.where(f.is_copy, 2, np.where(kind == 1, 0, 3))).astype(np.int8)
        self.op_device = op_devices(plan, f, flow)
        self.home = tensor_homes(f, flow)
        homed = np.bincount(self.home[self.home >= 0], minlength=m)[:m] if m else np.zeros(0, np.int64)
        self._nodes = np.concatenate([[0], np.cumsum(1 + homed)])  # nodes of [a, b): _nodes[b] - _nodes[a]
        self._kinds = np.stack([np.concatenate([[0], np.cumsum(self.op_kind == k)]) for k in range(4)])
        self.device_codes = sorted({int(c) for c in unique(self.op_device) if c >= 0}, key=f.device)
        self._devs = np.stack([np.concatenate([[0], np.cumsum(self.op_device == c)]) for c in self.device_codes]) \
            if self.device_codes else np.zeros((0, m + 1), np.int64)
        self._bundle = self._bundles()
        self._unit_start = self._units()
        self.names_skipped = 0
        self._scope_names: list[list[str]] = []  # per depth, the names its keys index (set with the keys)
        self._scopes = self._module_keys(*modules) if names and modules is not None else []
        if names and not self._scopes:
            self._scopes = self._scope_keys()
        if names and not self._scopes:
            self._scopes = self._frame_keys()
        self.groups: list[Group] = [Group(0, -1, 0, m, "root", plan.name, None, 0)]
        self._children: dict[int, tuple[int, ...]] = {}

    # -- the tree -----------------------------------------------------------------------------------

    def nodes(self, gid: int) -> int:
        """Ops plus tensors at home in the group."""
        g = self.groups[gid]
        return int(self._nodes[g.stop] - self._nodes[g.start])

    def children(self, gid: int) -> tuple[int, ...]:
        """Child group ids in run order; () for a leaf."""
        got = self._children.get(gid)
        if got is None:
            got = self._children[gid] = self._split(self.groups[gid])
        return got

    def build_all(self) -> None:
        """Compute every level of the tree."""
        todo = [0]
        while todo:
            todo.extend(self.children(todo.pop()))

    def path(self, instruction: int) -> list[int]:
        """Group ids from a child of the root down to the leaf holding ``instruction``."""
        out, gid = [], 0
        while True:
            kids = self.children(gid)
            if not kids:
                return out
            starts = [self.groups[k].start for k in kids]
            gid = kids[int(np.searchsorted(starts, instruction, side="right")) - 1]
            out.append(gid)

    def scope_runs(self, name: str) -> list[tuple[int, int]]:
        """The runs ``[start, stop)`` of consecutive instructions whose scope is ``name`` (a name prefix such
        as ``layers.3``, or a frame label), at the shallowest depth that has it; [] when no scope is so named.
        A module inside a leaf group has no group of its own, but its instructions are still known."""
        for depth, names in enumerate(self._scope_names):
            if name in names:
                hit = np.flatnonzero(self._scopes[depth] == names.index(name))
                cuts = np.flatnonzero(np.diff(hit) != 1) + 1
                return [(int(r[0]), int(r[-1]) + 1) for r in np.split(hit, cuts)]
        return []

    def scope_names(self) -> list[str]:
        """Every scope name the instructions were scoped by, shallowest first (``layers``, ``layers.0``, ...)."""
        return [nm for names in self._scope_names for nm in names]

    def counts(self, gid: int) -> dict:
        """Ops by kind and by device, and tensors at home, in group ``gid``."""
        g = self.groups[gid]
        kinds = {name: int(self._kinds[k, g.stop] - self._kinds[k, g.start]) for k, name in enumerate(OP_KINDS)}
        devices = {self.facts.device(c): int(self._devs[k, g.stop] - self._devs[k, g.start])
                   for k, c in enumerate(self.device_codes)}
        return {"ops": g.size, "kinds": {k: v for k, v in kinds.items() if v},
                "devices": {d: v for d, v in devices.items() if v}, "tensors": self.nodes(gid) - g.size}

    # -- splitting ----------------------------------------------------------------------------------

    def _split(self, g: Group) -> tuple[int, ...]:
        a, b = g.start, g.stop
        small = self.nodes(g.id) <= self.leaf_nodes
        if b - a <= 1 or (small and g.kind != "prefixes"):
            return ()  # a leaf: it opens into its ops and tensors (a small chunk of name runs into its runs)
        for depth, keys in enumerate(self._scopes[g.scope:], start=g.scope + 1):
            cuts = a + 1 + np.flatnonzero(keys[a + 1:b] != keys[a:b - 1])
            if not cuts.size:
                continue
            names = self._scope_names[depth - 1]
            if cuts.size < self.max_children:
                bounds = [a, *cuts.tolist(), b]
                return tuple(self._add(g, s, t, "prefix", names[keys[s]], depth) for s, t in zip(bounds, bounds[1:]))
            if small:
                return ()
            # too many runs: chunks of whole runs ("layers.0 … layers.6"), split again at this depth
            parts = min(self.max_children, math.ceil(self.nodes(g.id) / self.leaf_nodes))
            bounds = self._balanced(a, b, cuts, max(parts, 2))
            return tuple(self._add(g, s, t, "prefix", names[keys[s]], depth) if keys[s] == keys[t - 1] else
                         self._add(g, s, t, "prefixes", f"{names[keys[s]]} … {names[keys[t - 1]]}", depth - 1)
                         for s, t in zip(bounds, bounds[1:]))
        if small:
            return ()
        units = a + 1 + np.flatnonzero(self._unit_start[a + 1:b])
        if 0 < units.size < self.max_children:
            bounds = [a, *units.tolist(), b]
        else:
            candidates = units if units.size else np.arange(a + 1, b)
            parts = min(self.max_children, math.ceil(self.nodes(g.id) / self.leaf_nodes))
            bounds = self._balanced(a, b, candidates, max(parts, 2))
        return tuple(self._add(g, s, t, None, None, g.scope) for s, t in zip(bounds, bounds[1:]))

    def _balanced(self, a: int, b: int, candidates: np.ndarray, parts: int) -> list[int]:
        """Cut [a, b) at ``candidates`` into about ``parts`` pieces of equal node count."""
        base = self._nodes[a]
        total = self._nodes[b] - base
        at = self._nodes[candidates] - base
        targets = total * np.arange(1, parts) / parts
        pos = np.clip(np.searchsorted(at, targets), 0, len(candidates) - 1)
        left = np.clip(pos - 1, 0, len(candidates) - 1)
        pick = np.where(np.abs(at[left] - targets) <= np.abs(at[pos] - targets), left, pos)
        cuts = sorted(set(candidates[pick].tolist()))
        return [a, *cuts, b]

    def _add(self, parent: Group, s: int, t: int, kind: str | None, label: str | None, scope: int) -> int:
        unit = kind is None and not self._unit_start[s + 1:t].any()
        device = self._dominant(s, t)
        if kind is not None:
            pass
        elif unit and self._bundle[s] >= 0:
            kind, label = "delegate", self._bundle_label(s, t)
        elif unit and self._unit_start[s] and self._unit_start[t]:
            kind, label = "run", self._run_label(s, t, device)
        elif unit:
            kind, label = "run", f"{self._run_label(s, t, device)} · #{s}–#{t - 1}"
        else:
            kind, label = "chunk", f"#{s}–#{t - 1} · {t - s:,} ops"
        gid = len(self.groups)
        self.groups.append(Group(gid, parent.id, s, t, kind, label, device, parent.depth + 1, scope))
        return gid

    def _dominant(self, s: int, t: int) -> Device | None:
        if not self.device_codes:
            return None
        per = self._devs[:, t] - self._devs[:, s]
        k = int(np.argmax(per))
        return self.facts.device(self.device_codes[k]) if per[k] > 0 else None

    def _run_label(self, s: int, t: int, device: Device | None) -> str:
        kinds = [int(self._kinds[k, t] - self._kinds[k, s]) for k in range(4)]
        n = t - s
        if kinds[0] == n:
            what = f"{n:,} kernel{'s' * (n != 1)}"
        elif kinds[2] == n:
            what = f"{n:,} cop{'ies' if n != 1 else 'y'}"
        elif n == 1:
            what = self.facts.label(s)
        else:
            what = f"{n:,} ops"
        return what + (f" on {device}" if device is not None else "")

    def _bundle_label(self, s: int, t: int) -> str:
        calls = [i for i in range(s, t) if self.op_kind[i] == 1]
        name = self.facts.label(calls[0]) if calls else "delegate"
        dev = self.op_device[calls[0]] if calls else -1
        copies = (t - s) - len(calls)
        return (f"{name}" + (f" on {self.facts.device(int(dev))}" if dev >= 0 else "")
                + (f" (+{copies} cop{'ies' if copies != 1 else 'y'})" if copies else ""))

    # -- units and scopes ---------------------------------------------------------------------------

    def _bundles(self) -> np.ndarray:
        """Per instruction, the delegate call whose bundle it is in (-1: none)."""
        e, m = self.flow, self.m
        bundle = np.full(m, -1, dtype=np.int64)
        calls = np.flatnonzero(self.op_kind == 1)
        if not calls.size:
            return bundle
        bounds = e.bounds
        vals, wr = e.value, e.write

        def io(i: int) -> tuple[set, set]:
            a, b = int(bounds[i]), int(bounds[i + 1])
            v, w = vals[a:b].tolist(), wr[a:b].tolist()
            return {x for x, y in zip(v, w) if not y}, {x for x, y in zip(v, w) if y}

        for d in calls.tolist():
            reads, writes = io(d)
            bundle[d] = d
            i = d - 1
            while i >= 0 and self.op_kind[i] == 2 and bundle[i] < 0 and io(i)[1] & reads:
                bundle[i] = d
                i -= 1
            i = d + 1
            while i < m and self.op_kind[i] == 2 and io(i)[0] & writes:
                bundle[i] = d
                i += 1
        return bundle

    def _units(self) -> np.ndarray:
        """``unit_start[i]``: instruction i starts a unit (len m + 1; the end counts as a start)."""
        m = self.m
        start = np.zeros(m + 1, dtype=bool)
        if not m:
            return start
        dev = self.op_device.copy()
        known = np.flatnonzero(dev >= 0)
        if known.size:  # moves, frees, ops writing nothing: the device before them (after, at the start)
            fill = np.maximum.accumulate(np.where(dev >= 0, np.arange(m), -1))
            dev = np.where(fill >= 0, dev[np.maximum(fill, 0)], dev[known[0]])
        b = self._bundle
        start[0] = start[m] = True
        start[1:m] = (b[1:] != b[:-1]) | ((b[1:] < 0) & (dev[1:] != dev[:-1]))
        return start

    def _settle_gaps(self, own: list[np.ndarray], keys: list[np.ndarray]) -> None:
        """Move each boundary between two scopes to where the data says (in place, every depth alike).

        Between the last instruction reading a parameter of scope A and the first reading one of scope B
        the instructions read no parameter; forward-filled, all of them went to A. Those after the last
        one that reads a result of A directly (the residual add that ends a layer) go to B instead: the
        next layer's norm starts before its weight is read (``pow``, ``mean``, ``rsqrt`` of ``layers.3``
        belong to ``layers.3``). A is taken at the shallowest depth where the two scopes differ, and the
        one cut is applied at that depth and below, so the groups of every depth still nest."""
        e, home = self.flow, self.home
        named = np.flatnonzero(own[0] >= 0)
        for p, c in zip(named[:-1].tolist(), named[1:].tolist()):
            if c - p < 2:
                continue
            d0 = next((d for d in range(len(own)) if own[d][p] != own[d][c]), None)
            if d0 is None:
                continue
            a_key, cut = keys[d0][p], p + 1
            for i in range(p + 1, c):
                lo, hi = int(e.bounds[i]), int(e.bounds[i + 1])
                writers = home[e.value[lo:hi][~e.write[lo:hi]]]
                writers = writers[(writers >= 0) & (writers <= p)]
                if writers.size and (keys[d0][writers] == a_key).any():
                    cut = i + 1
            for d in range(d0, len(own)):
                keys[d][cut:c] = own[d][c]

    def _frame_keys(self) -> list[np.ndarray]:
        """Scope keys from the stack traces the export kept, when no parameter has a name: at depth d an
        instruction's key is its d outermost frames (``model.py:64 in forward`` > ``linear.py:134 in
        forward``), so the ops of one call in the model's ``forward`` form a run, and inside it the ops of
        each call below. Instructions without a trace inherit the key before them. Labelled by the
        innermost frame of the key. Skipped past ``FRAME_BUDGET`` instructions (each trace is an object)."""
        m = self.m
        if not m or m > FRAME_BUDGET:
            return []
        traces = [ins.stacktrace or () for ins in self.plan.instructions]
        deepest = max((len(t) for t in traces), default=0)
        if not deepest:
            return []
        paths = [tuple(f"{fr.filename.rsplit('/', 1)[-1]}:{fr.lineno} in {fr.name}" for fr in t) for t in traces]
        out: list[np.ndarray] = []
        self._scope_names = []
        for d in range(1, min(deepest, 8) + 1):
            names: dict[tuple, int] = {}
            key = np.asarray([names.setdefault(p[:d], len(names)) if p else -1 for p in paths], dtype=np.int64)
            known = np.flatnonzero(key >= 0)
            fill = np.maximum.accumulate(np.where(key >= 0, np.arange(m), -1))
            out.append(np.where(fill >= 0, key[np.maximum(fill, 0)], key[known[0]]))
            self._scope_names.append([p[-1] for p in names])
        return out

    def _module_keys(self, paths: list, root: str) -> list[np.ndarray]:
        """Scope keys from the model's modules (an ETRecord's ``nn_module_stack``; rule 0 of the module doc):
        at depth d an instruction's key is the first d dotted components of the innermost module its nodes
        share (``layers`` > ``layers.0`` > ``layers.0.lin``); ops of the model's own ``forward`` are labelled by
        its class (``root``). Instructions the ETRecord says nothing of inherit the key before them."""
        m = self.m
        comps = [None if p is None else (tuple(p.split(".")) if p else ()) for p in paths[:m]]
        comps += [None] * (m - len(comps))
        known = [c for c in comps if c is not None]
        if not m or not known:
            return []
        out: list[np.ndarray] = []
        self._scope_names = []
        for d in range(1, min(max(len(c) for c in known), 8) + 1 if any(known) else 2):
            names: dict[str, int] = {}
            key = np.asarray([-1 if c is None else names.setdefault(".".join(c[:d]), len(names)) for c in comps],
                             dtype=np.int64)
            have = np.flatnonzero(key >= 0)
            fill = np.maximum.accumulate(np.where(key >= 0, np.arange(m), -1))
            out.append(np.where(fill >= 0, key[np.maximum(fill, 0)], key[have[0]]))
            self._scope_names.append([n or root for n in names])
        return out

    def _scope_keys(self) -> list[np.ndarray]:
        """Per depth d (1, 2, ...), the scope key of every instruction (forward-filled); names in
        ``self._scope_names[d - 1]``. Empty when no parameter the instructions read has a name."""
        f, e, m = self.facts, self.flow, self.m
        self._scope_names: list[list[str]] = []
        param = ~e.write & f.is_tensor[e.value] & isin(f.storage[e.value],
                                                       (STORAGE["constant"], STORAGE["mutable"], STORAGE["external"]))
        if not param.any():
            return []
        ins, vals = e.instr[param], e.value[param]
        uniq_i, pos = unique(ins, return_index=True)  # the first parameter each instruction reads
        first = vals[pos]
        params = unique(first)
        if params.size > NAME_BUDGET:
            self.names_skipped = int(params.size)
            return []
        values = self.plan.values
        comps = {}
        for v in params.tolist():
            name = getattr(values[v], "name", None)
            if name:
                comps[v] = name.split(".")[:-1]
        if not comps:
            return []
        depth = min(max(len(c) for c in comps.values()), 8)
        out, own = [], []
        for d in range(1, depth + 1):
            names: dict[str, int] = {}
            key = np.full(m, -1, dtype=np.int64)
            for i, v in zip(uniq_i.tolist(), first.tolist()):
                c = comps.get(v)
                if c:
                    key[i] = names.setdefault(".".join(c[:d]), len(names))
            known = np.flatnonzero(key >= 0)
            if not known.size:
                continue
            fill = np.maximum.accumulate(np.where(key >= 0, np.arange(m), -1))
            own.append(key)
            out.append(np.where(fill >= 0, key[np.maximum(fill, 0)], key[known[0]]))
            self._scope_names.append(list(names))
        if out:
            self._settle_gaps(own, out)
        return out
