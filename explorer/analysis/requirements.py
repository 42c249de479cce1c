"""Runtime requirements of one plan: what the ExecuTorch runtime will be asked to provide to run it.

A program with device arenas fails at load time ("No device allocator registered for device type 1")
unless the runtime registered a ``DeviceAllocator`` for every device type it uses; this module says so
up front, per device, with the numbers the runtime will ask for. What it models, checked against
executorch 1.5.1's runtime (the headers shipped in the wheel and ``extension/module/module.cpp``):

* ``MethodMeta::memory_planned_buffer_size(i)`` / ``memory_planned_buffer_device(i)`` are 0-based:
  runtime index ``i`` is arena ``memory_id == i + 1`` (``non_const_buffer_sizes[0]`` is reserved).
* ``Module::load_method`` allocates every CPU arena itself (a host ``std::vector``) and hands all arenas to
  a ``HierarchicalAllocator`` inside the ``MemoryManager``; a caller passing its own planned memory must
  supply the same spans. So a CPU arena is "provided by the MemoryManager".
* A non-CPU arena goes through ``DeviceMemoryBuffer::create(size, type, index)``, which looks the
  allocator up with ``get_device_allocator(type)`` in the ``DeviceAllocatorRegistry`` (one allocator
  *per device type*, keyed by type only; the device index is an argument of ``allocate``) and fails
  with "No device allocator registered for device type N" when none is registered.
* ``Module`` refuses device arenas together with ``share_memory_arenas`` (``Error::NotSupported``).
* ``et_copy::_h2d_copy.out`` checks the source is on the CPU and ``out`` is not, then calls
  ``copy_host_to_device`` on the allocator of ``out``'s device type with ``out``'s index;
  ``et_copy::_d2h_copy.out`` checks the reverse and calls ``copy_device_to_host`` on the allocator of
  the *source*'s device. Each call copies ``self.nbytes()``. So every copy is served by the allocator of
  its non-CPU side; a copy whose tensors sit on the wrong sides fails at run time whatever is
  registered (reported in ``problems``).

Copies done inside a delegate (a device-targeted backend reading host tensors) are the backend's own
business and are not counted here; the backends the plan calls are listed so they can be registered.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from explorer.analysis.arrays import isin, unique
from explorer.model.columns import instruction_columns
from explorer.model.program import CPU, Device, Plan, Tensor
from explorer.analysis.naming import instruction_text, value_text
from explorer.units import count_text, nbytes_text
from explorer.analysis.graph import D2H_OPS, H2D_OPS
from explorer.analysis.types import PlanAnalysis, Transfer
from explorer.analysis.transfers import transfers

# Device arenas are honoured by loaders that read non_const_buffer_device. In executorch's history:
# MethodMeta::memory_planned_buffer_device (#19568) and DeviceMemoryBuffer (#19567) came in v1.3.0, but the loader
# that uses them, Module allocating device memory for device-planned buffers (#19746,
# extension/module/module.cpp make_planned_memory_with_devices), first shipped in v1.4.0; before it every planned
# buffer was host memory. Checked on the tags of executorch's repository (git tag --contains).
DEVICE_RUNTIME = "executorch 1.4"
DEVICE_RUNTIME_WHY = ("older loaders (before executorch 1.4, PR #19746) ignore non_const_buffer_device and give "
                      "every device arena host memory")

__all__ = ["DEVICE_RUNTIME", "ArenaNeed", "DeviceNeed", "AllocatorNeed", "Requirements", "requirements", "requirements_lines",
           "arena_list_text", "ARENAS_LISTED"]


@dataclass(frozen=True)
class ArenaNeed:
    """One memory-planned arena the runtime must allocate before the method can load."""
    memory_id: int  # as in the file (>= 1)
    size: int  # bytes
    runtime_index: int  # memory_id - 1: the index MethodMeta::memory_planned_buffer_size/device(i) takes

    def to_json(self) -> dict:
        return {"memory_id": self.memory_id, "runtime_index": self.runtime_index, "size": self.size}


class ArenaNeeds(Sequence[ArenaNeed]):
    """One device's arenas as columns (memory ids, sizes), each :class:`ArenaNeed` made on access: a file may
    declare a million CPU arenas, and the needs are built, counted and summed without a record per arena."""

    __slots__ = ("_ids", "_sizes")

    def __init__(self, ids: np.ndarray, sizes: np.ndarray) -> None:
        self._ids, self._sizes = ids, sizes

    def __len__(self) -> int:
        return int(self._ids.size)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return ArenaNeeds(self._ids[index], self._sizes[index])
        memory_id = int(self._ids[index])
        return ArenaNeed(memory_id, int(self._sizes[index]), memory_id - 1)

    def __iter__(self) -> Iterator[ArenaNeed]:
        for memory_id, size in zip(self._ids.tolist(), self._sizes.tolist()):
            yield ArenaNeed(memory_id, size, memory_id - 1)

    def __eq__(self, other: object) -> bool:
        return tuple(self) == tuple(other) if isinstance(other, (ArenaNeeds, tuple)) else NotImplemented

    def __hash__(self) -> int:
        return hash((self._ids.tobytes(), self._sizes.tobytes()))

    def __repr__(self) -> str:
        return f"ArenaNeeds({list(self)!r})" if len(self) <= 8 else f"ArenaNeeds({len(self)} arenas)"

    @property
    def total(self) -> int:
        """Their bytes together (exact: Python ints past what int64 sums hold)."""
        return int(self._sizes.sum()) if self._sizes.size and int(self._sizes.max()) < (1 << 62) // self._sizes.size \
            else sum(self._sizes.tolist())


@dataclass(frozen=True)
class DeviceNeed:
    """Everything one device must provide: its arenas and the host<->device copies it serves."""
    device: Device
    provider: str  # "memory-manager" (CPU: host planned buffers) | "device-allocator" (registered per type)
    arenas: Sequence[ArenaNeed]  # in memory_id order (ArenaNeeds: columns, a record made per access)
    arena_bytes: int
    h2d_count: int = 0  # copy_host_to_device calls (et_copy::_h2d_copy writing to this device)
    h2d_bytes: int = 0
    d2h_count: int = 0  # copy_device_to_host calls (et_copy::_d2h_copy reading from this device)
    d2h_bytes: int = 0
    backends: tuple[str, ...] = ()  # delegate ids whose target_device is this device

    def to_json(self) -> dict:
        out = {"device": str(self.device), "provider": self.provider, "device_type": self.device.type,
               "device_index": self.device.index, "arenas": [a.to_json() for a in self.arenas],
               "arena_bytes": self.arena_bytes,
               "copies": {"h2d": {"count": self.h2d_count, "nbytes": self.h2d_bytes},
                          "d2h": {"count": self.d2h_count, "nbytes": self.d2h_bytes}},
               "backends": list(self.backends)}
        return out


@dataclass(frozen=True)
class AllocatorNeed:
    """One ``DeviceAllocator`` registration: the registry is keyed by device type only."""
    device_type: int  # the runtime's DeviceType value (1 = CUDA)
    kind: str  # "cuda", or "unknown(N)" for a type this version doesn't know
    indices: tuple[int, ...]  # device indices that allocator will be called with (sorted)

    def to_json(self) -> dict:
        return {"device_type": self.device_type, "kind": self.kind, "indices": list(self.indices)}


@dataclass(frozen=True)
class Requirements:
    """What the runtime must provide to load and run one plan (see the module doc for the sources)."""
    plan: str
    devices: tuple[DeviceNeed, ...]  # sorted (cpu first); a device is listed when it has arenas, serves copies or is targeted
    allocators: tuple[AllocatorNeed, ...]  # device types needing a registered DeviceAllocator, by type
    copy_kernels: tuple[str, ...]  # et_copy kernels the plan calls (must be linked in), sorted
    backends: tuple[str, ...]  # delegate backend ids the plan calls (must be registered), sorted
    notes: tuple[str, ...] = ()  # facts a runtime integrator should know (not errors)
    problems: tuple[str, ...] = ()  # what will fail at run time whatever is registered
    min_runtime: str | None = None  # the oldest runtime that honours the plan's device arenas (None: any)

    def device(self, device: Device | str) -> DeviceNeed | None:
        wanted = Device.parse(device)
        return next((d for d in self.devices if d.device == wanted), None)

    def to_json(self) -> dict:
        """The ``requirements`` key of a plan in ``inspect --json`` (lists in a fixed order)."""
        return {"devices": [d.to_json() for d in self.devices],
                "allocators": [a.to_json() for a in self.allocators],
                "copy_kernels": list(self.copy_kernels), "backends": list(self.backends),
                "notes": list(self.notes), "problems": list(self.problems), "min_runtime": self.min_runtime}


def requirements(plan: Plan, analysis: PlanAnalysis | None = None) -> Requirements:
    """The runtime requirements of ``plan``; pass its :class:`PlanAnalysis` to reuse its transfers."""
    moves: tuple[Transfer, ...]
    if analysis is not None:
        moves = analysis.transfers
    else:
        moves = transfers(plan)
    arenas = _arena_needs(plan)
    copies: dict[Device, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # h2d count, bytes, d2h count, bytes
    kernels: set[str] = set()
    problems: list[str] = []
    for t in moves:
        name = t.op.split(".", 1)[0]
        if name not in H2D_OPS and name not in D2H_OPS:
            continue
        kernels.add(t.op)
        h2d = name in H2D_OPS
        host, dev = (t.src_device, t.dst_device) if h2d else (t.dst_device, t.src_device)
        if not host.is_cpu or dev.is_cpu:
            problems.append(_copy_problem(plan, t, h2d))
            continue
        row = copies[dev]
        row[0 if h2d else 2] += 1
        row[1 if h2d else 3] += t.nbytes
    kernels |= _called_copy_kernels(plan)
    targeted: dict[Device, set[str]] = defaultdict(set)
    for d in plan.delegates:
        if d.target_device is not None:
            targeted[d.target_device].add(d.id)
    devices = []
    for device in sorted(set(arenas) | set(copies) | set(targeted)):
        own = arenas.get(device, _NO_ARENAS)
        c = copies.get(device, [0, 0, 0, 0])
        devices.append(DeviceNeed(device, "memory-manager" if device.is_host else "device-allocator", own,
                                  own.total, c[0], c[1], c[2], c[3],
                                  tuple(sorted(targeted.get(device, ())))))
    by_type: dict[int, set[int]] = defaultdict(set)
    for d in devices:
        if not d.device.is_host and (d.arenas or d.h2d_count or d.d2h_count):
            by_type[d.device.type].add(d.device.index)
    allocators = tuple(AllocatorNeed(t, Device(t, 0).kind, tuple(sorted(ix))) for t, ix in sorted(by_type.items()))
    device_arenas = any(not d.device.is_host and d.arenas for d in devices)
    return Requirements(plan.name, tuple(devices), allocators, tuple(sorted(kernels)),
                        tuple(sorted({d.id for d in plan.delegates})), tuple(_notes(plan, devices)),
                        tuple(problems), DEVICE_RUNTIME if device_arenas else None)


ARENAS_LISTED = 16  # arenas a need names one by one; the rest are counted (a file may declare a million)


def arena_list_text(arenas, item=lambda a: f"#{a.memory_id} ({nbytes_text(a.size)})") -> str:
    """``#1 (256 B), #3 (64 B), … and 999,981 more (61.0 MiB)``: the first ``ARENAS_LISTED`` arenas by ``item``,
    the rest as one count, so a need's text scales with what is shown, not with the arenas declared."""
    shown = ", ".join(item(a) for a in arenas[:ARENAS_LISTED])
    rest = len(arenas) - ARENAS_LISTED
    if rest <= 0:
        return shown
    more = arenas[ARENAS_LISTED:]
    total = more.total if isinstance(more, ArenaNeeds) else sum(a.size for a in more)
    return f"{shown}, … and {rest:,} more ({nbytes_text(total)})"


_NO_ARENAS = ArenaNeeds(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


def _arena_needs(plan: Plan) -> dict[Device, ArenaNeeds]:
    """Per device, its arenas as columns: the listed ones from the (sparse) device list, the CPU the rest."""
    n = len(plan.buffer_sizes)
    if n <= 1:
        return {}
    sizes = np.asarray(plan.buffer_sizes, dtype=np.int64)
    owner = np.zeros(n, dtype=np.int64)  # 0: the CPU; k: the k-th distinct listed device
    number = {CPU: 0}
    for memory_id, device in plan.listed_devices.items():
        owner[memory_id] = number.setdefault(device, len(number))
    devices = list(number)
    out: dict[Device, ArenaNeeds] = {}
    ids = np.arange(n, dtype=np.int64)
    for k, device in enumerate(devices):
        mine = np.flatnonzero(owner[1:] == k) + 1
        if mine.size:
            out[device] = ArenaNeeds(ids[mine], sizes[mine])
    return out


def requirements_lines(req: Requirements, *, indent: str = "  ") -> list[str]:
    """The "runtime needs" block of ``device-explorer inspect``: one line per device, then kernels,
    backends, notes and problems."""
    lines = []
    for d in req.devices:
        arenas = arena_list_text(d.arenas)
        if d.device.is_host:
            what = (f"planned buffer{'s' if len(d.arenas) != 1 else ''} {arenas} from the MemoryManager"
                    if d.arenas else "no planned buffers")
        else:
            what = (f"DeviceAllocator for device type {d.device.type} ({d.device.kind}) index {d.device.index}"
                    + (f" must allocate arena{'s' if len(d.arenas) != 1 else ''} {arenas}" if d.arenas
                       else " (no arenas)"))
            served = copy_text(d)
            if served:
                what += f"; serves {served}"
        if d.backends:
            what += f"; targeted by {', '.join(d.backends)}"
        lines.append(f"{indent}{str(d.device) + ':':<10} {what}")
    if req.allocators:
        regs = ", ".join(f"{a.kind} (type {a.device_type}; index{'es' if len(a.indices) > 1 else ''} "
                         f"{', '.join(map(str, a.indices))})" for a in req.allocators)
        lines.append(f"{indent}{'register:':<10} DeviceAllocator for {regs}")
    extra = []
    if req.copy_kernels:
        extra.append("kernels " + ", ".join(req.copy_kernels))
    if req.backends:
        extra.append("backends " + ", ".join(req.backends))
    if extra:
        lines.append(f"{indent}{'link:':<10} " + "; ".join(extra))
    if req.min_runtime:
        lines.append(f"{indent}{'runtime:':<10} {req.min_runtime} or later: {DEVICE_RUNTIME_WHY}")
    lines.extend(f"{indent}{'note:':<10} {n}" for n in req.notes)
    lines.extend(f"{indent}{'PROBLEM:':<10} {p}" for p in req.problems)
    return lines


def copy_text(d: DeviceNeed) -> str:
    """``7 h2d copies (224 B), 4 d2h (128 B)``; empty when the device serves none."""
    parts = []
    if d.h2d_count:
        parts.append(f"{count_text(d.h2d_count)} h2d cop{'ies' if d.h2d_count != 1 else 'y'} ({nbytes_text(d.h2d_bytes)})")
    if d.d2h_count:
        parts.append(f"{count_text(d.d2h_count)} d2h ({nbytes_text(d.d2h_bytes)})")
    return ", ".join(parts)


# PRIVATE

def _copy_problem(plan: Plan, t: Transfer, h2d: bool) -> str:
    kernel = "_h2d_copy" if h2d else "_d2h_copy"
    want = "from the CPU to a device" if h2d else "from a device to the CPU"
    return (f"{instruction_text(plan, t.instruction)} copies {value_text(plan, t.source)} on {t.src_device} to "
            f"{value_text(plan, t.destination)} on {t.dst_device}, but {kernel} only copies {want}: "
            f"it fails its device check at run time")


def _called_copy_kernels(plan: Plan) -> set[str]:
    """Copy kernels the plan calls, even with nothing to move (empty tensors): they must be linked in."""
    ops = [k for k, op in enumerate(plan.operators) if op.name in H2D_OPS or op.name in D2H_OPS]
    if not ops:
        return set()
    ic = instruction_columns(plan)  # the columns alone: a whole Facts per plan cost 3,500 plans a second
    called = unique(ic.target[(ic.kind == 1) & isin(ic.target, ops)]).tolist()
    return {plan.operators[k].full_name for k in called}


def _notes(plan: Plan, devices: list[DeviceNeed]) -> list[str]:
    notes = []
    if any(not d.device.is_host and d.arenas for d in devices):
        notes.append("Module(share_memory_arenas=true) is not supported with device arenas "
                     "(load_method returns NotSupported)")
    io = []
    for kind, indices in (("input", plan.inputs), ("output", plan.outputs)):
        for pos, v in enumerate(indices):
            value = plan.value(v)
            if isinstance(value, Tensor) and not value.device.is_host:
                io.append(f"{kind} {pos} ({value_text(plan, v)}) on {value.device}")
    if io:
        notes.append("plan inputs/outputs living in device memory: " + ", ".join(io[:6])
                     + (f" and {len(io) - 6} more" if len(io) > 6 else ""))
    unknown = sorted({d.device.kind for d in devices if not d.device.known})
    if unknown:
        notes.append(f"device type{'s' if len(unknown) != 1 else ''} {', '.join(unknown)} unknown to this tool; the runtime build must know them")
    return notes
