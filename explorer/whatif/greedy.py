"""executorch 1.5.1's greedy memory planner, re-implemented over plain numbers for the what-if engine.

What it emulates, from ``exir/memory_planning.py`` of the executorch 1.5.1 wheel:

* ``greedy``: the specs of one device are sorted by ``allocated_memory`` (bytes rounded up to the
  alignment, 16 by default: ``TensorSpec.allocated_memory``/``realign``) with ``bisect.insort`` and the
  list reversed, so the largest come first and specs of equal size are taken in *reverse* collection
  order (insort puts an equal spec after the ones already there).
* ``pick_shared_obj``: a spec goes into the first shared object none of whose allocations overlap its
  lifetime (at offset 0), else into the first object where it fits above the highest overlapping
  allocation (``_find_max_overlapping_allocations_offset``, only when that offset is > 0), else into a
  new object of its own size. Lifetimes are inclusive ``[first, last]`` node indices; two overlap unless
  one ends strictly before the other starts (``_does_not_overlap``).
* ``_compute_total_sizes``: objects are laid out one after another in creation order; the arena size
  is their sum plus ``extra_padding`` (64 when the graph holds an XNNPACK delegate).
* ``apply_algo`` with ``enable_non_cpu_memory_planning=True`` (``_partition_specs_by_device``,
  ``_build_non_const_buffer_device``): specs are split by (device type, index), keeping collection
  order; ``cpu`` is planned first when it has specs, then the other devices sorted by (type, index);
  each device's arenas are appended after the previous ones (``memory_id`` 1, 2, ...), and the
  ``non_const_buffer_device`` list names every non-CPU arena (none when all are CPU). No spec at all
  still gives one empty CPU arena (``[0, 0]``).

The numbers are node indices of the graph the planner sees (see :mod:`.graph`); only their
order matters. Overlap tests run vectorised over the allocations made so far, so a plan with thousands of
tensors plans in a fraction of a second, with exactly the decisions of the quadratic original
(tests/test_whatif.py checks them against a plain transcription on random lifetimes).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

__all__ = ["Spec", "plan_device", "plan_all", "ALIGNMENT", "aligned"]

ALIGNMENT = 16  # MemoryPlanningPass(alignment=16), exir/passes/memory_planning_pass.py


def aligned(nbytes: int, alignment: int = ALIGNMENT) -> int:
    """``calculate_aligned_num_bytes`` (exir/memory_planning.py / exir/tensor.py)."""
    return (nbytes + alignment - 1) // alignment * alignment


@dataclass
class Spec:
    """One planned tensor as the planner sees it."""

    key: int  # the caller's id (a value index)
    nbytes: int
    first: int  # lifetime, inclusive node indices
    last: int
    device: tuple[int, int] = (0, 0)  # (device type, index)
    mem_id: int = 0  # result: global arena id
    offset: int = 0  # result: byte offset in the arena


def plan_device(specs: list[Spec], alignment: int = ALIGNMENT, extra_padding: int = 0) -> int:
    """Greedy-plan one device's specs (in collection order) into one arena; set their ``offset``; return
    the arena size (``greedy`` + ``_compute_total_sizes``).

    ``pick_shared_obj`` scans every shared object's allocations for each spec; here the allocations made so far
    are columns (first, last, top, object), so one vectorised test per spec finds which objects overlap it: the
    first object none of whose allocations overlap takes it at offset 0, else the first whose highest
    overlapping allocation leaves room above it (``_find_max_overlapping_allocations_offset``, offset > 0),
    else a new object of its own size — the same decisions, in the same order."""
    if not specs:
        return 0
    ordered: list[Spec] = []
    sizes: list[int] = []
    for spec in specs:  # bisect.insort(sorted_specs, spec, key=allocated_memory)
        size = aligned(spec.nbytes, alignment)
        k = bisect.bisect_right(sizes, size)
        sizes.insert(k, size)
        ordered.insert(k, spec)
    ordered.reverse()
    n = len(ordered)
    first = np.empty(n, np.int64)
    last = np.empty(n, np.int64)
    top = np.empty(n, np.int64)  # offset + allocated size, within its object
    owner = np.empty(n, np.int64)  # object index
    object_size = np.empty(n, np.int64)
    allocs: list[list[tuple[int, Spec]]] = []
    count = 0
    for spec in ordered:
        size = aligned(spec.nbytes, alignment)
        k = len(allocs)
        target, offset = k, 0
        if count:
            hit = (first[:count] <= spec.last) & (last[:count] >= spec.first)
            objs = owner[:count][hit]
            busy = np.zeros(k, dtype=bool)
            busy[objs] = True
            free = np.flatnonzero(~busy)
            if free.size:
                target = int(free[0])
            else:
                highest = np.zeros(k, dtype=np.int64)
                np.maximum.at(highest, objs, top[:count][hit])
                room = np.flatnonzero((highest > 0) & (highest + size <= object_size[:k]))
                if room.size:
                    target = int(room[0])
                    offset = int(highest[target])
        if target == k:
            allocs.append([])
            object_size[k] = size
        allocs[target].append((offset, spec))
        first[count], last[count], top[count], owner[count] = spec.first, spec.last, offset + size, target
        count += 1
    total = 0
    for k, placed in enumerate(allocs):
        for offset, spec in placed:
            spec.offset = total + offset
        total += int(object_size[k])
    return total + extra_padding


def plan_all(specs: list[Spec], alignment: int = ALIGNMENT, extra_padding: int = 0
             ) -> tuple[list[int], list[tuple[int, int]]]:
    """``apply_algo`` with per-device planning: ``(non_const_buffer_sizes, device of each buffer slot)``,
    slot 0 being the reserved constant slot; sets every spec's ``mem_id`` and ``offset``."""
    groups: dict[tuple[int, int], list[Spec]] = {}
    for spec in specs:
        groups.setdefault(spec.device, []).append(spec)
    order = sorted(groups, key=lambda d: (d != (0, 0), d[0], d[1]))
    sizes = [0]
    devices = [(0, 0)]
    for dev in order:
        size = plan_device(groups[dev], alignment, extra_padding)
        mem_id = len(sizes)
        sizes.append(size)
        devices.append(dev)
        for spec in groups[dev]:
            spec.mem_id = mem_id
    if len(sizes) < 2:
        sizes.append(0)
        devices.append((0, 0))
    return sizes, devices
