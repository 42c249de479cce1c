"""``CapabilityBasedPartitioner.propose_partitions`` (torch/fx/passes/infra/partitioner.py), re-implemented.

``generate_pattern_op_partitions`` (executorch's ``exir/backend/canonical_partitioners/
pattern_op_partitioner.py``, which ``DeviceAwarePartitioner`` and most backends use) runs torch's
``CapabilityBasedPartitioner(..., allows_single_node_partition=True)``. Its algorithm, emulated here
decision for decision:

* nodes are visited in *reverse* graph order; a supported node not yet assigned starts a new partition
  (ids 0, 1, ... in that order), whose users and downstream partitions are recorded;
* after every node, all partitions (in id order) are offered to the first one: ``maybe_merge_partition``
  merges two when no path leaves the pair and comes back into it (through unsupported nodes or other
  partitions — the ``dfs_iter_find_cycle`` check), the smaller into the larger. So *unconnected*
  supported nodes are fused too ("horizontal fusion") whenever that makes no cycle;
* the partitions come out in id order, which is the order ``to_backend`` delegates them in.

A round of merges changes nothing when nothing changed since the previous round (no new partition, no
merge), so those rounds are skipped: the result is the same, the cost is not quadratic in unsupported
nodes. Reachability is kept as Python integers used as bit sets.
"""

from __future__ import annotations

__all__ = ["propose_partitions"]


def propose_partitions(users: list[list[int]], supported: list[bool]) -> list[list[int]]:
    """Partitions (lists of node indices, ascending) of a graph given by ``users`` (node -> nodes using it,
    indices in graph order), in the order the partitioner returns them."""
    count = len(users)
    down = [0] * count  # node -> bit set of every node downstream of it
    for k in range(count - 1, -1, -1):
        mask = 0
        for u in users[k]:
            mask |= (1 << u) | down[u]
        down[k] = mask
    assignment: dict[int, int] = {}
    parts: dict[int, int] = {}  # partition id -> bit set of its nodes
    sizes: dict[int, int] = {}
    order: dict[int, int] = {}  # partition id -> its first (smallest) id, for the merge order
    reach: dict[int, int] = {}  # partition id -> bit set of the partition ids downstream of it (as torch keeps it)
    part_users: dict[int, int] = {}  # partition id -> bit set of its users outside it
    spans: dict[int, int] = {}  # partition id -> its users and everything downstream of them
    next_id = 0

    def downstream_partitions(span: int, sources: tuple[int, ...]) -> int:
        """Partitions with a node in ``span`` (users and their downstream), with what each reaches."""
        found = 0
        for pid, nodes in parts.items():
            if nodes & span:
                found |= (1 << pid) | reach[pid]
        for src in sources:
            found &= ~(1 << src)
        return found

    def span_of(user_mask: int) -> int:
        span = 0
        m = user_mask
        while m:
            low = m & -m
            span |= low | down[low.bit_length() - 1]
            m ^= low
        return span

    def would_cycle(a: int, b: int, span: int) -> bool:
        """``dfs_iter_find_cycle``: a path from the pair's users back into the pair, directly or through a
        partition that reaches either (the per-user walk, taken as one union: the same answer)."""
        if span & (parts[a] | parts[b]):
            return True
        pair = (1 << a) | (1 << b)
        return any(nodes & span and reach[pid] & pair for pid, nodes in parts.items() if pid != a and pid != b)

    def merge(a: int, b: int) -> tuple[int, bool]:
        user_mask = (part_users[a] | part_users[b]) & ~(parts[a] | parts[b])
        if part_users[a] & parts[b] or part_users[b] & parts[a]:
            span = span_of(user_mask)  # directly connected: their users inside the pair don't count
        else:
            span = spans[a] | spans[b]
        if would_cycle(a, b, span):
            return a, False
        keep, gone = (a, b) if sizes[a] >= sizes[b] else (b, a)
        parts[keep] |= parts[gone]
        sizes[keep] += sizes[gone]
        m = parts[gone]
        while m:
            low = m & -m
            assignment[low.bit_length() - 1] = keep
            m ^= low
        del parts[gone], sizes[gone]
        order[keep] = min(order[keep], order[gone])
        del order[gone]
        reach[keep] = reach[keep] | reach.pop(gone)
        part_users[keep] = user_mask
        spans[keep] = span
        del part_users[gone], spans[gone]
        reach[keep] |= downstream_partitions(span, (keep, gone))
        reach[keep] &= ~((1 << keep) | (1 << gone))
        return keep, True

    dirty = False
    for node in range(count - 1, -1, -1):
        created = None
        if supported[node] and node not in assignment:
            pid = next_id
            next_id += 1
            order[pid] = pid
            assignment[node] = pid
            parts[pid] = 1 << node
            sizes[pid] = 1
            mask = 0
            for u in users[node]:
                mask |= 1 << u
            part_users[pid] = mask
            spans[pid] = span_of(mask)
            reach[pid] = downstream_partitions(spans[pid], (pid,))
            dirty = True
            created = pid
        if not dirty or len(parts) < 2:
            continue
        dirty = False
        # the new partition first, then every partition by its order (a dict keeps the first insertion)
        candidates = list(dict.fromkeys(([created] if created is not None else []) + sorted(order, key=order.get)))
        self_id = candidates[0]
        for other in candidates[1:]:
            if other not in parts or self_id not in parts:
                continue
            self_id, merged = merge(self_id, other)
            dirty |= merged
    out = []
    for pid in parts:  # creation order, as partitions_by_id.values()
        m, nodes = parts[pid], []
        while m:
            low = m & -m
            nodes.append(low.bit_length() - 1)
            m ^= low
        out.append(sorted(nodes))
    return out
