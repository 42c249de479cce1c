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

The numbers are node indices of the graph the planner sees (see :mod:`.whatif_graph`); only their
order matters. Overlap tests run on sorted interval lists, so a plan with thousands of tensors plans in
milliseconds, with exactly the decisions of the quadratic original.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

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


@dataclass
class _Shared:
    size: int
    offset: int = -1
    allocs: list = field(default_factory=list)  # (offset, spec), in insertion order
    # intervals of the allocations, sorted by first; with the running max of last, for overlap queries
    firsts: list = field(default_factory=list)
    items: list = field(default_factory=list)  # (first, last, offset + allocated) sorted by first


def _overlapping(obj: _Shared, spec: Spec) -> list:
    """Allocations of ``obj`` whose lifetimes overlap ``spec``'s (any order)."""
    # an allocation overlaps unless it ends before spec starts or starts after spec ends
    hi = bisect.bisect_right(obj.firsts, spec.last)  # those starting at or before spec.last
    return [it for it in obj.items[:hi] if it[1] >= spec.first]


def _pick(objects: list[_Shared], spec: Spec, size: int) -> None:
    """``pick_shared_obj`` with allow_overlapping_allocations=True."""
    for obj in objects:
        if not _overlapping(obj, spec):
            _place(obj, spec, 0, size)
            return
    for obj in objects:
        over = _overlapping(obj, spec)
        top = max((it[2] for it in over), default=0)
        if top > 0 and top + size <= obj.size:
            _place(obj, spec, top, size)
            return
    obj = _Shared(size)
    objects.append(obj)
    _place(obj, spec, 0, size)


def _place(obj: _Shared, spec: Spec, offset: int, size: int) -> None:
    obj.allocs.append((offset, spec))
    k = bisect.bisect_right(obj.firsts, spec.first)
    obj.firsts.insert(k, spec.first)
    obj.items.insert(k, (spec.first, spec.last, offset + size))


def plan_device(specs: list[Spec], alignment: int = ALIGNMENT, extra_padding: int = 0) -> int:
    """Greedy-plan one device's specs (in collection order) into one arena; set their ``offset``; return
    the arena size (``greedy`` + ``_compute_total_sizes``)."""
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
    objects: list[_Shared] = []
    for spec in ordered:
        _pick(objects, spec, aligned(spec.nbytes, alignment))
    total = 0
    for obj in objects:
        obj.offset = total
        total += obj.size
        for offset, spec in obj.allocs:
            spec.offset = obj.offset + offset
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
