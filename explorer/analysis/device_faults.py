"""Device faults that crash real runtimes: placements a correct executorch export never writes, each found
where it was made (the export), with what the runtime will do with it and how to fix the export.

docs/checks.md lists every code with the upstream code and report it comes from. In short:

| code | severity | fires on |
|---|---|---|
| ``planned-device-input`` | error | a method input on a non-host device that is memory-planned |
| ``planned-device-output`` | error | a method output on a non-host device that is memory-planned |
| ``constant-on-device`` | error | a constant (data in the file) labelled with a non-host device |
| ``initial-state-in-device-arena`` | error | a mutable buffer with initial data planned in a non-host arena |
| ``unplanned-device-tensor`` | error | an intermediate tensor on a non-host device with no allocation |
| ``delegate-device-mismatch`` | error | a delegate handed tensors on another device than its ``target_device`` |
| ``buffer-device-duplicate`` | error | two ``non_const_buffer_device`` entries for one arena |
| ``device-index-invalid`` | error / warning | a device index below -1 / implausibly large |
| ``device-memory-not-planned`` | error | tensors labelled with a device while no arena is on that device |

"Host" is the device registry's word (:attr:`explorer.devices.DeviceType.host`), never ``type == 0``. Device
types this version doesn't know are left to ``unknown-device``: nothing here can say what they need.
Everything is vectorised over the plan's columns (:class:`.facts.Facts`); messages are composed only for
findings that are kept.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ..devices import DEVICE_TYPES
from ..model import Plan
from .describe import instruction_text, values_text
from .facts import STORAGE, Facts
from .graph import Edges

if TYPE_CHECKING:
    from .checks import Sink

__all__ = ["SEVERITY", "device_faults", "PLAUSIBLE_INDEX_MAX"]

SEVERITY = {
    "planned-device-input": "error", "planned-device-output": "error", "constant-on-device": "error",
    "initial-state-in-device-arena": "error", "unplanned-device-tensor": "error",
    "delegate-device-mismatch": "error", "buffer-device-duplicate": "error", "device-index-invalid": "error",
    "device-memory-not-planned": "error",
}
# the largest device index taken as plausible: no machine executorch targets has more accelerators of one kind
PLAUSIBLE_INDEX_MAX = 15
_HOST_TYPES = [t.code for t in DEVICE_TYPES if t.host]
_DEVICE_TYPES = [t.code for t in DEVICE_TYPES if not t.host]


def device_faults(plan: Plan, f: Facts, e: Edges, sink: Sink) -> None:
    """Every device fault of one plan into ``sink`` (see the module doc)."""
    on_device = f.is_tensor & np.isin(f.device_type, _DEVICE_TYPES)  # a known, non-host device
    _io(plan, f, on_device, sink)
    _constants(plan, f, on_device, sink)
    _initial_state(plan, f, sink)
    _unplanned(plan, f, e, on_device, sink)
    _delegates(plan, f, sink)
    _buffer_devices(plan, sink)
    _indices(plan, f, sink)
    _not_planned(plan, f, on_device, sink)


# PRIVATE

def _by_device(f: Facts, values: np.ndarray) -> dict:
    groups: dict = defaultdict(list)
    for v in values.tolist():
        groups[f.value_device(v)].append(v)
    return groups


def _io(plan: Plan, f: Facts, on_device: np.ndarray, sink: Sink) -> None:
    """Method inputs/outputs on a device with an arena slot. executorch writes them with
    ``skip_h2d_for_method_inputs`` / ``skip_d2h_for_method_outputs`` when the memory planner still allocates
    graph inputs/outputs (``MemoryPlanningPass(alloc_graph_input/output=True)``, the default)."""
    # planned in an arena of its own device (one on another device is device-mismatch's, and with no arena
    # on the device at all device-memory-not-planned's)
    valid = f.planned & (f.memory_id >= 1) & (f.memory_id < len(f.arena_code))
    same = np.zeros(f.n, dtype=bool)
    same[valid] = f.arena_code[f.memory_id[valid]] == f.dcode[valid]
    planned = on_device & same
    for code, indices, what in (("planned-device-input", plan.inputs, "input"),
                                ("planned-device-output", plan.outputs, "output")):
        mask = np.zeros(f.n, dtype=bool)
        idx = np.asarray([i for i in indices if 0 <= i < f.n], dtype=np.int64)
        mask[idx] = True
        for device, vals in sorted(_by_device(f, np.flatnonzero(mask & planned)).items()):
            if sink.full(code):
                sink.skip(code)
                continue
            n = len(vals)
            if what == "input":
                runtime = ("Method::set_input copies the caller's tensor into that device memory with a host memcpy "
                           "(a segfault in executorch before #21960, NotSupported since)")
                fix = ("export with MemoryPlanningPass(alloc_graph_input=False) beside skip_h2d_for_method_inputs, "
                       "so the caller hands in device memory, or drop skip_h2d so an h2d copy feeds the device")
            else:
                runtime = ("set_output_data_ptr refuses the caller's buffer and host code reading the output "
                           "touches device memory (executorch #21722)")
                fix = ("export with MemoryPlanningPass(alloc_graph_output=False) beside skip_d2h_for_method_outputs, "
                       "or drop skip_d2h so a d2h copy brings the output to the host")
            sink.add(code, f"{n} method {what}{'s' if n != 1 else ''} on {device} planned in a {device} arena: "
                           f"{values_text(plan, vals)}. At run time {runtime}. Fix: {fix}", tuple(vals))


def _constants(plan: Plan, f: Facts, on_device: np.ndarray, sink: Sink) -> None:
    """Constants labelled with a device. The runtime serves every constant from the program's host memory
    whatever its label (``runtime/executor/tensor_parser_exec_aten.cpp``: constant data pointers come from
    the program's constant segment), so a device kernel dereferences a host pointer; the CUDA backend
    rejects such tensors (executorch #21545). Exports write it when skip_h2d re-tags a parameter or buffer
    placeholder, or with device memory planning off."""
    const = on_device & (f.storage == STORAGE["constant"])
    for device, vals in sorted(_by_device(f, np.flatnonzero(const)).items()):
        if sink.full("constant-on-device"):
            sink.skip("constant-on-device")
            continue
        n = len(vals)
        sink.add("constant-on-device",
                 f"{n} constant{'s' if n != 1 else ''} labelled {device}: {values_text(plan, vals)}. The runtime "
                 f"serves constants from host memory whatever their label, so a {device.kind} kernel reading "
                 f"{'them' if n != 1 else 'it'} gets a host pointer (the CUDA backend rejects such tensors). Fix: "
                 f"let the export copy constants to the device (an h2d copy per use, executorch's default) instead "
                 f"of re-tagging them with skip_h2d, or keep device memory planning on "
                 f"(enable_non_cpu_memory_planning=True)", tuple(vals))


def _initial_state(plan: Plan, f: Facts, sink: Sink) -> None:
    """Mutable buffers with initial data in a device arena: the loader copies the initial bytes into the
    arena with a host copy (``tensor_parser``: mutable data is copied with memcpy into the planned pointer)."""
    mutable = np.flatnonzero(f.is_tensor & (f.storage == STORAGE["mutable"]) & (f.memory_id >= 1)
                             & (f.memory_id < len(f.arena_code)))
    if not mutable.size:
        return
    arena_dev = f.arena_code[f.memory_id[mutable]]
    device_arena = np.isin(arena_dev // 1024, _DEVICE_TYPES)
    groups: dict = defaultdict(list)
    for v, code in zip(mutable[device_arena].tolist(), arena_dev[device_arena].tolist()):
        groups[(int(f.memory_id[v]), code)].append(v)
    for (mid, code), vals in sorted(groups.items()):
        if sink.full("initial-state-in-device-arena"):
            sink.skip("initial-state-in-device-arena")
            continue
        device = f.device(code)
        sink.add("initial-state-in-device-arena",
                 f"{len(vals)} mutable buffer{'s' if len(vals) != 1 else ''} with initial data in arena {mid} on "
                 f"{device}: {values_text(plan, vals)}. When the method loads, the runtime copies the initial "
                 f"bytes into the arena with a host memcpy, which writes through a {device.kind} pointer. Fix: keep "
                 f"mutable state on the host (plan it in a CPU arena) and copy it to {device} where a delegate "
                 f"uses it", tuple(vals), memory_id=mid)


def _unplanned(plan: Plan, f: Facts, e: Edges, on_device: np.ndarray, sink: Sink) -> None:
    """Intermediates on a device with no allocation. Nothing supplies their memory (only method inputs and
    outputs get it from the caller), so the kernel that writes them gets a null pointer. executorch writes
    it with ``alloc_graph_output=False`` on a program whose outputs come back through d2h copies: the
    output node's spec is set before the copies exist and never refreshed
    (``exir/passes/propagate_device_pass.py``), so the device tensor is left unplanned, not the output."""
    used = np.zeros(f.n, dtype=bool)
    used[e.value[(e.value >= 0) & (e.value < f.n)]] = True
    io = f.input_mask.copy()
    io[np.asarray([o for o in plan.outputs if 0 <= o < f.n], dtype=np.int64)] = True
    bad = np.flatnonzero(on_device & used & ~io & (f.memory_id < 0) & (f.storage == STORAGE["runtime"]))
    for device, vals in sorted(_by_device(f, bad).items()):
        if sink.full("unplanned-device-tensor"):
            sink.skip("unplanned-device-tensor")
            continue
        n = len(vals)
        sink.add("unplanned-device-tensor",
                 f"{n} intermediate tensor{'s' if n != 1 else ''} on {device} with no allocation: "
                 f"{values_text(plan, vals)}. Neither the memory plan nor the caller gives {'them' if n != 1 else 'it'} "
                 f"memory, so the instruction writing {'them' if n != 1 else 'it'} gets no buffer and the method "
                 f"fails to load or run. executorch writes this with MemoryPlanningPass(alloc_graph_output=False) "
                 f"when outputs come back through d2h copies: the output spec is fixed before the copies exist, so "
                 f"the device tensor behind the copy is left unplanned instead of the host output "
                 f"(exir/passes/propagate_device_pass.py). Fix: keep alloc_graph_output=True, or pair "
                 f"alloc_graph_output=False with skip_d2h_for_method_outputs so the caller owns the output", tuple(vals))


def _delegates(plan: Plan, f: Facts, sink: Sink) -> None:
    """Delegate calls handed tensors on another (non-host) device than their ``target_device``. Only the
    export reads ``target_device`` (``exir/passes/propagate_device_pass.py`` tags the delegate's inputs and
    outputs with it); the runtime never compares, so the backend is handed memory of the wrong device."""
    ic = f.ic
    calls = np.flatnonzero(ic.kind == 2)
    for i in calls.tolist():
        k = int(ic.target[i])
        if not 0 <= k < len(plan.delegates):
            continue
        target = plan.delegates[k].target_device
        if target is None or not target.known:
            continue
        args = ic.args[ic.starts[i]:ic.starts[i + 1]]
        args = args[(args >= 0) & (args < f.n)]
        # host tensors may cross a device-targeted delegate (its own copies; cross-device-no-copy's rule):
        # memory of another *device* is the fault
        tensors = args[f.is_tensor[args] & np.isin(f.device_type[args], _DEVICE_TYPES)]
        wrong = tensors[f.dcode[tensors] != target.code]
        if not wrong.size:
            continue
        if sink.full("delegate-device-mismatch"):
            sink.skip("delegate-device-mismatch")
            continue
        vals = list(dict.fromkeys(wrong.tolist()))
        where = sorted({str(f.value_device(v)) for v in vals})
        sink.add("delegate-device-mismatch",
                 f"{instruction_text(plan, i)} targets {target} (compile spec target_device) but "
                 f"{len(vals)} of its tensor{'s are' if len(vals) != 1 else ' is'} on {', '.join(where)}: "
                 f"{values_text(plan, vals)}. The runtime never compares the two: the backend is handed memory "
                 f"of another device. Fix: re-export so the device pass tags the delegate's tensors with its "
                 f"target (and inserts the copies), or correct the target_device compile spec",
                 tuple(vals), (i,))


def _buffer_devices(plan: Plan, sink: Sink) -> None:
    """Two entries for one arena: ``MethodMeta::memory_planned_buffer_device``
    (``runtime/executor/method_meta.cpp``) returns the first match, so later entries are silently ignored."""
    count = Counter(entry.buffer_idx for entry in plan.buffer_devices)
    for idx, n in sorted(count.items()):
        if n < 2 or not 1 <= idx < len(plan.buffer_sizes):
            continue
        entries = [entry.device for entry in plan.buffer_devices if entry.buffer_idx == idx]
        sink.add("buffer-device-duplicate",
                 f"non_const_buffer_device lists arena {idx} {n} times ({', '.join(map(str, entries))}); the runtime "
                 f"uses the first ({entries[0]}) and ignores the rest. Fix: one entry per arena (a planner or "
                 f"hand-edit wrote it twice)", memory_id=idx)


def _indices(plan: Plan, f: Facts, sink: Sink) -> None:
    """Device indices below -1 (the CUDA allocator rejects them) or implausibly large (``cudaSetDevice``
    failures are ignored, and the memory lands on whatever GPU is current)."""
    tensors = f.is_tensor & np.isin(f.device_type, _DEVICE_TYPES)
    for low, mask in ((True, tensors & (f.device_index < -1)), (False, tensors & (f.device_index > PLAUSIBLE_INDEX_MAX))):
        for device, vals in sorted(_by_device(f, np.flatnonzero(mask)).items()):
            _index_finding(plan, sink, str(device), low, values=tuple(vals),
                           what=f"{len(vals)} tensor{'s' if len(vals) != 1 else ''} ({values_text(plan, vals)})")
    for entry in plan.buffer_devices:
        d = entry.device
        if not d.known or d.is_host:
            continue
        if d.index < -1 or d.index > PLAUSIBLE_INDEX_MAX:
            _index_finding(plan, sink, str(d), d.index < -1, memory_id=entry.buffer_idx,
                           what=f"arena {entry.buffer_idx}")


def _index_finding(plan: Plan, sink: Sink, device: str, low: bool, *, what: str, values=(), memory_id=None) -> None:
    code = "device-index-invalid"
    if sink.full(code):
        sink.skip(code)
        return
    if low:
        sink.add(code, f"{what} on {device}: a device index below -1 (-1 means the current device). The device "
                       f"allocator rejects it and the method fails to load. Fix: export with a device index >= 0",
                 values, memory_id=memory_id)
    else:
        # a plausibility bound, not a rule of the format: a warning
        sink.add(code, f"{what} on {device}: device index above {PLAUSIBLE_INDEX_MAX}, more devices of one kind than "
                       f"any machine executorch targets. Selecting a device that does not exist fails quietly "
                       f"(cudaSetDevice errors are ignored) and the memory lands on the current GPU. Fix: check "
                       f"the target_device the export was given", values, memory_id=memory_id, severity="warning")


def _not_planned(plan: Plan, f: Facts, on_device: np.ndarray, sink: Sink) -> None:
    """Tensors labelled with a device and planned, while no arena is on that device: an export with
    ``enable_non_cpu_memory_planning=False`` (executorch #21682) labels device tensors but plans them in the
    CPU arena, so the runtime hands a device kernel host memory."""
    planned = np.flatnonzero(on_device & f.planned)
    if not planned.size:
        return
    arena_devices = {b.device.code for b in plan.buffers}
    for device, vals in sorted(_by_device(f, planned).items()):
        if device.code in arena_devices:
            continue
        n = len(vals)
        sink.add("device-memory-not-planned",
                 f"{n} tensor{'s' if n != 1 else ''} labelled {device} but no arena is on {device}: "
                 f"{values_text(plan, vals)} sit{'' if n != 1 else 's'} in host arenas, so the runtime hands "
                 f"{device.kind} code host memory (each also shows as device-mismatch). This is an export made "
                 f"with device memory planning off. Fix: export with "
                 f"ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)", tuple(vals))

