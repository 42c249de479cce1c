"""Host kernels moved to a device become delegated regions, as a device partitioner would make them.

A partitioner built on ``generate_pattern_op_partitions``
(``exir/backend/canonical_partitioners/pattern_op_partitioner.py``; ``DeviceAwarePartitioner`` of
``exir/backend/test/device_util.py`` is one) tags the supported nodes, and torch's
``CapabilityBasedPartitioner`` groups them (:mod:`.whatif_partition`, emulated decision for decision:
connected kernels, and unconnected ones too when that makes no cycle); ``to_backend`` turns each partition
into one delegate call, in the partitioner's order. The moved kernels are the supported nodes (one
partitioner run per target device, each on the original graph). Each partition becomes one delegate call:

* its inputs are the tensors its kernels read that no kernel of the region writes, in first-use order
  (``fuse_as_graphmodule``); constants only the region reads go inside the delegate, as a device
  partitioner tags the weights it consumes (a constant also read outside would stay an argument, and
  executorch 1.5.1 cannot emit the h2d copy of a constant: a refusal);
* its outputs are the tensors its kernels write that something outside reads (or the method returns),
  in the order the kernels write them; everything else it computes lives inside the delegate and is
  no longer memory-planned;
* the call goes where ``insert_subgm`` (``torch/fx/passes/utils/fuser_utils.py``) puts it — after the
  region's last output — followed by a ``getitem`` per output, and the whole graph is then re-ordered
  by ``legalize_graph`` (``torch/fx/passes/tools_common.py``), which executorch runs after every
  partition (``create_submodule_from_nodes`` in ``exir/lowered_backend_module.py``): a breadth-first
  topological sort (Kahn's algorithm with a FIFO queue, roots in graph order, users in the order they
  were added — the new call last among its inputs' users). That is why a delegated export runs its
  instructions in another order than the portable one (weight transposes first).
"""

from __future__ import annotations

from collections import deque

from explorer.model.program import CompileSpec, Delegate, Device, Tensor
from explorer.whatif.graph import Neutral, Op
from explorer.errors import MoveError
from explorer.whatif.partition import propose_partitions

__all__ = ["make_regions", "PREDICTED_BACKEND"]

PREDICTED_BACKEND = "PredictedDelegate"  # the backend id of a region made by a what-if move


def make_regions(g: Neutral, moved: dict[int, Device], *, owned: bool = True, modules: frozenset[int] = frozenset()
                 ) -> None:
    """Replace the moved kernels (original instruction -> device) of ``g.ops`` by delegated regions.

    ``owned``: the partitioner owns the constants its regions read (``tag_constant_data``,
    ``exir/backend/utils.py``, which executorch's CUDA partitioner calls): they are no delegate argument, and
    a constant nothing outside the regions reads leaves the program (``_unsafe_adjust_original_program`` in
    ``exir/lowered_backend_module.py`` erases its placeholder; one still read outside is kept). Otherwise
    every constant a region reads is an argument of its call (and the device pass copies it: a refusal).

    ``modules``: the kernels a ``group:`` (module) move named. A module partitioner tags the module's nodes, and
    at partition time a static view is a ``view_copy`` node of the module too: in a region with such kernels, a
    static view only the region reads goes inside (the call reads its base), and a region result read only
    through static views is returned as those views (``Linear`` on a 3-d input: view, addmm, view).

    long-function: one pass per device over the partitions torch's partitioner proposes, each region's inputs,
    outputs, constants and views decided from what the passes before it left in ``g``; the steps share a dozen
    half-built tables.
    """
    values = g.plan.values
    n = len(values)
    by_orig = {op.orig: op for op in g.ops if op.kind == "kernel" and op.orig is not None}
    members = [by_orig[k] for k in sorted(moved) if k in by_orig]
    position = {id(op): k for k, op in enumerate(g.ops)}
    ordered: list[list[Op]] = []
    for device in dict.fromkeys(moved.values()):  # one partitioner run per device, in the order of the moves
        chosen = {id(op) for op in members if moved[op.orig] == device}
        for part in _partitions(g, chosen):
            ordered.append([g.ops[k] for k in part])
    readers: dict[int, list[Op]] = {}
    for op in g.ops:
        for v in set(op.reads):
            readers.setdefault(v, []).append(op)
    listed = _listed(g)
    returned = set(g.outputs)
    calls: list[tuple[Op, set[int], int]] = []  # (call, ids of its kernels, the kernel it goes after)
    strays: list[tuple[int, int]] = []  # (value, position of its region's first kernel)
    views_of: dict[int, list[int]] = {}
    for v, b in g.alias.items():
        views_of.setdefault(b, []).append(v)
    swallowed: set[int] = set()  # static views a module region takes inside
    moved_writes = {w for op in members for w in op.writes}  # a view of these goes with the region making it
    for ops in ordered:
        device = moved[ops[0].orig]
        inside = {id(op) for op in ops}
        written = [w for op in ops for w in op.writes]
        written_set = computed = set(written)
        module = any(op.orig in modules for op in ops)
        bases: set[int] = set()  # region results returned through their views
        if module:
            swallowed |= {v for op in ops for v in op.reads if v in g.alias and g.alias[v] not in moved_writes
                          and v not in returned and v not in listed and v not in views_of
                          and all(id(r) in inside for r in readers.get(v, []))}
            results: list[int] = []
            for w in written:
                through = views_of.get(w, [])
                if through and w not in returned and w not in listed and \
                        all(id(r) in inside for r in readers.get(w, [])):
                    results.extend(through)  # returned as its views: the view nodes are the module's
                    bases.add(w)
                    for v in through:
                        del g.alias[v]
                else:
                    results.append(w)
            written, written_set = results, set(results)
        inputs: list[int] = []
        for op in ops:
            for v in op.reads:
                if v in swallowed:
                    v = g.alias[v]
                if v in written_set or v in inputs:
                    continue
                t = values[v] if v < n else None
                if owned and isinstance(t, Tensor) and t.storage in ("constant", "external"):
                    continue  # tagged with the partition: inside the delegate, not an argument
                inputs.append(v)
        viewed = set(g.alias.values())
        outputs = [w for w in written if w in returned or w in listed or w in viewed
                   or any(id(r) not in inside for r in readers.get(w, []))]
        if not outputs:
            raise MoveError(f"instructions {', '.join('@' + str(op.orig) for op in ops)}: a region whose results "
                            f"nothing reads would be dropped by executorch, not moved")
        delegate = Delegate(index=-1, id=PREDICTED_BACKEND, location="predicted", data_index=-1,
                            compile_specs=(CompileSpec("target_device", str(device).encode("utf-8")),))
        call = Op("delegate", None, inputs, outputs, [], device, delegate,
                  region=tuple(op.orig for op in ops), owned=list(outputs))
        out_set = set(outputs)
        after = max((op for op in ops if any(w in out_set or w in bases for w in op.writes)),
                    key=lambda o: position[id(o)])
        calls.append((call, inside, id(after)))
        # values the emitter made between these kernels that the region does not compute (a static view)
        strays.extend((v, first_pos) for op in ops for v in op.owned if v not in computed and v not in out_set and v < n
                      and v not in swallowed and isinstance(values[v], Tensor)
                      for first_pos in (position[id(ops[0])],))
    # a stray view of a region's output comes with that output's getitem (then after its d2h copy); any other
    # stays where it was: with the last op before its region that no region takes
    made_by_call = {w: call for call, _, _ in calls for w in call.writes}
    absorbed = set().union(*(inside for _, inside, _ in calls)) if calls else set()
    displaced: list[int] = []  # static views whose maker went into a region: re-homed after the last sort
    for v, first_pos in strays:
        call = made_by_call.get(g.alias.get(v))
        if call is not None:
            call.region_views.setdefault(g.alias[v], []).append(v)
            continue
        host = next((g.ops[j] for j in range(first_pos - 1, -1, -1)
                     if id(g.ops[j]) not in absorbed and g.ops[j].kind not in ("getitem", "delegate")), None)
        (host.owned if host is not None else g.placeholders).append(v)
        displaced.append(v)
    if swallowed:  # inside a delegate now: no value of the program
        g.placeholders = [v for v in g.placeholders if v not in swallowed]
        for op in g.ops:
            op.owned = [v for v in op.owned if v not in swallowed]
        for v in swallowed:
            g.alias.pop(v, None)
    if owned:  # a constant only the regions read leaves the program with its value
        read = {v for op in g.ops if id(op) not in absorbed for v in op.reads} | set(g.outputs) | listed
        gone = {v for op in g.ops if id(op) in absorbed for v in op.reads
                if v < n and v not in read and isinstance(values[v], Tensor)
                and values[v].storage in ("constant", "external")}
        if gone:
            g.placeholders = [v for v in g.placeholders if v not in gone]
    placed: dict[int, tuple[int, Op | None]] = {}  # static view -> (its rank in the sort, the op before it)
    if len(calls) <= SEQUENTIAL_LIMIT:
        for call, inside, after in calls:  # executorch: fuse one partition, legalize, the next...
            g.ops = _legalize(g, _insert(g.ops, [(call, inside, after)]), [call], placed)
    else:  # many regions: insert all, legalize once (docs/whatif.md, "Where a prediction can differ")
        g.ops = _legalize(g, _insert(g.ops, calls), [c for c, _, _ in calls], placed)
    _rehome(g, list(g.alias), placed)


def _rehome(g: Neutral, views: list[int], placed: dict[int, tuple[int, "Op | None"]]) -> None:
    """The emitter numbers a static view where its view node is in the sorted graph: after the values of the
    node before it (``placed``: view -> its rank in the last sort and the op just before it)."""
    moving = sorted((v for v in views if v in placed), key=lambda v: placed[v][0])  # in the sort's order
    if not moving:
        return
    gone = set(moving)
    g.placeholders = [v for v in g.placeholders if v not in gone]
    for op in g.ops:
        if any(v in gone for v in op.owned):
            op.owned = [v for v in op.owned if v not in gone]
    for v in moving:
        host = placed[v][1]
        (host.owned if host is not None else g.placeholders).append(v)


SEQUENTIAL_LIMIT = 64  # up to this many regions, one legalize_graph per region as executorch does


def _insert(ops: list[Op], calls: list[tuple[Op, set[int], int]]) -> list[Op]:
    """``ops`` without the regions' kernels, each call (and its getitems) after the kernel named for it."""
    gone = set().union(*(inside for _, inside, _ in calls)) if calls else set()
    at = {after: call for call, _, after in calls}
    out: list[Op] = []
    for op in ops:
        if id(op) not in gone:
            out.append(op)
        call = at.get(id(op))
        if call is not None:
            out.append(call)
            views = call.region_views
            out.extend(Op("getitem", None, [], [w], [], source=call, owned=list(views.get(w, [])))
                       for w in call.writes)
    return out


def _listed(g: Neutral) -> set[int]:
    """Tensors held by a TensorList (a kernel reading the list reads them)."""
    out: set[int] = set()
    for v, val in enumerate(g.plan.values):
        val = g.lists.get(v, val)
        if getattr(val, "type", None) in ("TensorList", "OptionalTensorList") and isinstance(val.value, tuple):
            out.update(x for x in val.value if isinstance(x, int) and x >= 0)
    return out


def _partitions(g: Neutral, chosen: set[int]) -> list[list[int]]:
    """The partitions ``generate_pattern_op_partitions`` makes of the ``chosen`` kernels, as op indices
    (:mod:`.whatif_partition`). At partition time a static view is a ``view_copy`` node (never a moved
    kernel) right after its base's producer, between it and the view's readers; the output node is last."""

    born = set(g.placeholders)  # placeholders' values (a mutable buffer written back at the end included)
    views_of: dict[int, list[int]] = {}
    for v, b in g.alias.items():
        views_of.setdefault(b, []).append(v)
    node_of_op: list[int] = []
    op_of_node: list[int] = []  # -1 for a view node
    producer: dict[int, int] = {}  # value -> node making it
    view_at: dict[int, int] = {}  # view node -> its value
    for k, op in enumerate(g.ops):
        node = len(op_of_node)
        node_of_op.append(node)
        op_of_node.append(k)
        made = [] if op.kind == "delegate" else [w for w in op.writes if w not in born]
        for w in made:
            producer.setdefault(w, node)
        for w in made:
            for v in views_of.get(w, []):
                producer[v] = len(op_of_node)
                view_at[len(op_of_node)] = v
                op_of_node.append(-1)
    count = len(op_of_node)
    users: list[list[int]] = [[] for _ in range(count + 1)]

    def use(src: int | None, dst: int) -> None:
        if src is not None and src < dst and dst not in users[src]:
            users[src].append(dst)

    for node, k in enumerate(op_of_node):
        if k < 0:  # a view node reads its base
            use(producer.get(g.alias[view_at[node]]), node)
            continue
        op = g.ops[k]
        if op.kind == "getitem":
            use(node_of_op[next(j for j in range(k - 1, -1, -1) if g.ops[j] is op.source)], node)
            continue
        for v in dict.fromkeys(op.reads):
            use(producer.get(v), node)
    for v in g.outputs:
        use(producer.get(v), count)
    supported = [k >= 0 and id(g.ops[k]) in chosen for k in op_of_node] + [False]
    return [[op_of_node[node] for node in part] for part in propose_partitions(users, supported)]


def _legalize(g: Neutral, ops: list[Op], new_calls: list[Op], placed: dict | None = None) -> list[Op]:
    """``legalize_graph``: Kahn's topological sort with a FIFO queue over placeholders, ops and the
    ``view_copy`` nodes static views are at that point (each right after its base's producer)."""
    views_of: dict[int, list[int]] = {}
    for v, b in g.alias.items():
        views_of.setdefault(b, []).append(v)
    nodes: list[Op | None] = []  # None: a placeholder or a view node
    producer: dict[int, int] = {}
    view_base: dict[int, int] = {}  # view node -> base value

    view_value: dict[int, int] = {}  # view node -> its value

    def add_views(made: list[int]) -> None:
        for w in made:
            for v in views_of.get(w, []):
                producer[v] = len(nodes)
                view_base[len(nodes)] = w
                view_value[len(nodes)] = v
                nodes.append(None)

    for v in g.placeholders:
        producer.setdefault(v, len(nodes))
        nodes.append(None)
    add_views(list(g.placeholders))
    index_of: dict[int, int] = {}
    fresh = {id(c) for c in new_calls}
    lowered: dict[int, int] = {}  # a delegate call made before this sort -> its get_attr node
    # buffer write-backs do not exist yet when to_backend sorts: insert_write_back_for_buffers_pass adds them
    # after partitioning, just before the output (exir/passes/insert_write_back_for_buffers_pass.py)
    write_backs = [op for op in ops if _write_back(g, op)]
    if write_backs:
        ops = [op for op in ops if not _write_back(g, op)]
    for op in ops:
        if op.kind == "delegate" and id(op) not in fresh:
            # _insert_lowered_submodule (exir/backend/backend_api.py) put a get_attr of the lowered module
            # before the call: a root of the sort, so the call waits for no placeholder-only input after it
            lowered[id(op)] = len(nodes)
            nodes.append(None)
        k = len(nodes)
        index_of[id(op)] = k
        nodes.append(op)
        if op.kind == "getitem":
            producer[op.writes[0]] = k
            add_views(op.writes)
        elif op.kind != "delegate":
            made = [w for w in op.writes if w not in producer]
            for w in made:
                producer[w] = k
            add_views(made)
    count = len(nodes)
    users: list[list[int]] = [[] for _ in range(count)]
    late: list[list[int]] = [[] for _ in range(count)]  # a new call: last among its producers' users
    indeg = [0] * count
    for k, op in enumerate(nodes):
        if op is None:
            base = view_base.get(k)
            ds = [producer[base]] if base is not None and base in producer and producer[base] != k else []
        elif op.kind == "getitem":
            ds = [index_of[id(op.source)]]
        else:
            ds = list(dict.fromkeys(producer[v] for v in op.reads if v in producer and producer[v] != k))
            if id(op) in lowered:
                ds.append(lowered[id(op)])
        indeg[k] = len(ds)
        for d in ds:
            (late if op is not None and id(op) in fresh else users)[d].append(k)
    for d in range(count):
        users[d].extend(late[d])
    queue = deque(k for k in range(count) if indeg[k] == 0)
    out: list[Op] = []
    while queue:
        k = queue.popleft()
        if nodes[k] is not None:
            out.append(nodes[k])
        elif placed is not None and k in view_value:
            placed[view_value[k]] = (len(placed), out[-1] if out else None)
        for u in users[k]:
            indeg[u] -= 1
            if indeg[u] == 0:
                queue.append(u)
    if len(out) != len(ops):  # a cycle: keep the order we had
        return ops + write_backs
    return out + write_backs


def _write_back(g: Neutral, op: Op) -> bool:
    """An in-place kernel writing a mutable buffer (``aten::copy_(buffer, new)``): a write-back."""
    if op.kind != "kernel" or op.orig is None:
        return False
    name = g.plan.instructions[op.orig].op or ""
    base = name.split(".", 1)[0]
    return base.endswith("_") and not base.endswith("__") and any(w in g.state for w in op.writes)
