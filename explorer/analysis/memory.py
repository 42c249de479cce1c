"""Memory map: every planned tensor as a rectangle (lifetime x byte range) in its arena, and totals.

Peak live bytes of an arena is the largest, over instruction steps, sum of ``nbytes`` of its planned
tensors alive at that step (lifetimes from :mod:`.lifetimes`, inclusive). It is computed with a sweep
over sorted start/end events, so it costs O(k log k) for k tensors whatever the arena count; tensors
sharing an offset at disjoint times (normal reuse) simply never count together. Utilisation is peak
live bytes over the declared arena size: how much of the arena is ever needed at once.

Per device, all arenas on that device are swept together (the device's peak is not the sum of the
arenas' peaks, which may happen at different steps). Which device a planned tensor counts for:
``planned_bytes``/``tensors`` use the tensor's own device, ``arena_bytes``/``peak_live_bytes`` the
arena's (that is where the memory is allocated); they differ only for a device-mismatch finding.
``constant_bytes`` counts each constant buffer once, as executorch deduplicates constants that
several values share (same ``data_buffer_idx``).

Views (aliases, see :mod:`.lifetimes`) get a block of their own, marked ``alias_of``, but their bytes
are counted once, through their base: they are left out of peaks and ``planned_bytes``.

Tensors whose ``memory_id`` points nowhere are in no arena (``bad-reference`` reports them); tensors
of unknown dtype have ``nbytes`` 0 here.
"""

from __future__ import annotations

import numpy as np

from explorer.analysis.arrays import unique, unique_rows
from explorer.model.program import Plan
from explorer.analysis.facts import STORAGE, Facts
from explorer.analysis.types import ArenaMap, Block, DeviceTotals, MemoryMap, Transfer

__all__ = ["memory_map", "peak", "planned_arrays"]


def peak(first: np.ndarray, last: np.ndarray, nbytes: np.ndarray) -> tuple[int, int | None]:
    """``(peak live bytes, step where reached)`` of inclusive intervals; ``(0, None)`` when empty.

    Events are sorted by (time, delta) so an interval ending at ``t - 1`` is released before one
    starting at ``t`` is counted.
    """
    keep = (first >= 0) & (nbytes > 0)
    if not keep.any():
        return 0, None
    f, l, b = first[keep], last[keep], nbytes[keep]
    times = np.concatenate([f, l + 1])
    deltas = np.concatenate([b, -b])
    order = np.lexsort((deltas, times))
    running = np.cumsum(deltas[order])
    k = int(np.argmax(running))
    return int(running[k]), int(times[order][k])


def planned_arrays(f: Facts, alias: dict[int, int] | None = None) -> dict[str, np.ndarray]:
    """Planned tensors whose arena exists, as parallel arrays: value, memory_id, offset, nbytes, and
    alias (the base's value index for a view, else -1)."""
    n_buf = len(f.plan.buffer_sizes)
    v = np.flatnonzero(f.planned & (f.memory_id >= 1) & (f.memory_id < n_buf))
    a = np.full(v.size, -1, dtype=np.int64)
    if alias:
        views = np.fromiter(alias, dtype=np.int64, count=len(alias))
        bases = np.fromiter(alias.values(), dtype=np.int64, count=len(alias))
        pos = np.searchsorted(v, views)
        hit = (pos < v.size) & (v[np.minimum(pos, v.size - 1)] == views) if v.size else np.zeros(0, bool)
        a[pos[hit]] = bases[hit]
    return {"value": v, "memory_id": f.memory_id[v], "offset": np.maximum(f.offset[v], 0),
            "nbytes": f.nbytes[v], "alias": a}


def memory_map(plan: Plan, f: Facts, first: np.ndarray, last: np.ndarray, transfers: tuple[Transfer, ...] = (),
               planned: dict[str, np.ndarray] | None = None) -> MemoryMap:
    """The memory map of ``plan`` given lifetime arrays (see :func:`.lifetimes.lifetime_arrays`)."""
    p = planned if planned is not None else planned_arrays(f)
    pv, pm, po, pn, pa = p["value"], p["memory_id"], p["offset"], p["nbytes"], p["alias"]
    pf, pl = first[pv], last[pv]
    counted = np.where(pa < 0, pn, 0)  # views' bytes are their base's
    codes = f.dcode[pv].tolist()
    device_of = {c: f.device(c) for c in set(codes)}
    arenas: list[ArenaMap] = []
    order = np.lexsort((np.where(pf < 0, -1, pf), po, pm))  # by arena, then offset, then first
    bounds = np.searchsorted(pm[order], np.arange(1, len(plan.buffer_sizes) + 1))
    for k, buf in enumerate(plan.buffers):
        sel = order[bounds[k]:bounds[k + 1]]
        blocks = tuple(
            Block(v, buf.memory_id, o, b, None if fi < 0 else fi, None if fi < 0 else li, device_of[codes[j]],
                  None if a < 0 else a)
            for j, v, o, b, fi, li, a in zip(sel.tolist(), pv[sel].tolist(), po[sel].tolist(), pn[sel].tolist(),
                                             pf[sel].tolist(), pl[sel].tolist(), pa[sel].tolist()))
        top, at = peak(pf[sel], pl[sel], counted[sel])
        high = int((po[sel] + pn[sel]).max()) if sel.size else 0
        arenas.append(ArenaMap(buf.memory_id, buf.size, buf.device, blocks, top, at, high))
    return MemoryMap(plan.name, tuple(arenas), device_totals(f, p, first, last, transfers))


def device_totals(f: Facts, p: dict[str, np.ndarray], first: np.ndarray, last: np.ndarray,
                  transfers: tuple[Transfer, ...]) -> tuple[DeviceTotals, ...]:
    """One :class:`DeviceTotals` per device seen (tensors or arenas), cpu first."""
    plan = f.plan
    tensor = f.is_tensor
    codes = f.dcode
    views = np.zeros(f.n, dtype=bool)
    views[p["value"][p["alias"] >= 0]] = True
    rows: dict[int, dict[str, int]] = {}

    def row(code: int) -> dict[str, int]:
        r = rows.get(code)
        if r is None:
            r = rows[code] = dict.fromkeys(("tensors", "planned", "constant", "arena", "in", "out", "bytes_in",
                                            "bytes_out", "peak"), 0)
        return r

    for code, count in zip(*(a.tolist() for a in unique(codes[tensor], return_counts=True))):
        row(code)["tensors"] = count
    planned = f.planned & ~views
    for code in unique(codes[planned]).tolist():
        row(code)["planned"] = int(f.nbytes[planned & (codes == code)].sum())
    const = np.flatnonzero(tensor & (f.storage == STORAGE["constant"]))
    if const.size:  # each (device, data_buffer_idx) once: executorch deduplicates constants
        _, first_of = unique_rows(np.stack([codes[const], f.data_buffer_idx[const]], axis=1), return_index=True)
        for v in const[first_of].tolist():
            row(int(codes[v]))["constant"] += int(f.nbytes[v])
    if len(plan.buffer_sizes) > 1:  # arena bytes per device, as columns: a million arenas are one bincount
        codes, sizes = f.arena_code[1:], f.arena_size[1:]
        for code in unique(codes).tolist():
            mine = sizes[codes == code]
            exact = mine.size == 0 or int(np.abs(mine).max()) < (1 << 62) // mine.size  # int64 cannot overflow
            row(int(code))["arena"] += int(mine.sum()) if exact else sum(mine.tolist())
    for t in transfers:
        if t.src_device == t.dst_device:
            continue
        dst, src = row(_code(t.dst_device)), row(_code(t.src_device))
        dst["in"] += 1
        dst["bytes_in"] += t.nbytes
        src["out"] += 1
        src["bytes_out"] += t.nbytes
    pv = p["value"]
    block_code = f.arena_code[p["memory_id"]]
    counted = np.where(p["alias"] < 0, p["nbytes"], 0)
    for code in unique(block_code).tolist():
        mask = block_code == code
        row(code)["peak"] = peak(first[pv][mask], last[pv][mask], counted[mask])[0]
    out = []
    for code in sorted(rows, key=lambda c: f.device(c)):
        r = rows[code]
        out.append(DeviceTotals(f.device(code), r["arena"], r["planned"], r["constant"], r["peak"], r["tensors"],
                                r["in"], r["out"], r["bytes_in"], r["bytes_out"]))
    return tuple(out)


def _code(device) -> int:
    return device.code
