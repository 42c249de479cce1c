"""Device-placement faults that crash real ExecuTorch runtimes, named at the export with the fix.

The planner checks of :mod:`.checks` find what a memory planner could get wrong; these find what device
exports actually get wrong (executorch 1.5.1), each of which surfaces far away, at load or run time on the
device. Every message says what the runtime will do and how to fix the export. Sources (docs/checks.md
has the full table with the upstream reports):

* ``runtime/executor/method.cpp`` (``Method::set_input``, ``Method::set_output_data_ptr``): an input the
  plan allocates gets the caller's data copied in with a host ``memcpy``; an output the plan allocates
  refuses the caller's buffer. When that memory is a device arena the host touches device memory.
* ``runtime/executor/tensor_parser_exec_aten.cpp`` (``parseTensor``/``getTensorDataPtr``): a constant's
  data pointer is the program's host data whatever its device label; a mutable buffer's initial state is
  copied into its planned memory with a host ``memcpy``.
* ``runtime/executor/method.cpp`` (``Method::init``, device buffers): ``non_const_buffer_device`` entries
  are looked up by ``buffer_idx``; the first entry for an arena wins, entries for 0 or past
  ``non_const_buffer_sizes`` match nothing and that arena stays host memory.
* ``exir/passes/propagate_device_pass.py``: re-tags placeholders and outputs with the delegate's
  ``target_device``; with the skip flags it leaves specs it already set (the unplanned intermediate).
* ``exir/memory_planning.py``/``exir/emit/_emitter.py``: with ``enable_non_cpu_memory_planning=False``
  every arena is emitted without a device although tensors keep their device label.

Host-or-not always comes from the device registry (:mod:`explorer.model.devices`), never from ``type == 0``.
All checks are vectorised over the plan's columns; messages are made only for findings that are kept.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from explorer.analysis.arrays import isin, unique
from explorer.model.devices import BY_CODE, DEVICE_TYPES
from explorer.model.program import Device, Plan
from explorer.units import nbytes_text
from explorer.analysis.naming import value_text, values_text
from explorer.analysis.facts import STORAGE, Facts
from explorer.analysis.graph import Edges

__all__ = ["device_fault_findings", "CODES", "known_devices_text", "MAX_PLAUSIBLE_INDEX"]

CODES = {
    "planned-device-input": "error", "planned-device-output": "error", "constant-on-device": "error",
    "initial-state-in-device-arena": "error", "unplanned-device-tensor": "error",
    "delegate-device-mismatch": "error", "buffer-device-duplicate": "error", "device-index-invalid": "error",
    "device-planning-off": "error",
}
# Severity of device-index-invalid when the index is only implausibly large (not below -1).
INDEX_WARNING = "warning"
MAX_PLAUSIBLE_INDEX = 15  # no single host exposes more than 16 devices of one type to a CUDA runtime


def known_devices_text() -> str:
    """``cpu (0), cuda (1)``: the device types this version knows, from the registry."""
    return ", ".join(f"{t.name} ({t.code})" for t in DEVICE_TYPES)


def host_mask(device_type: np.ndarray) -> np.ndarray:
    """Per row: the registry says the CPU addresses this device type directly (unknown types: False)."""
    return isin(device_type, [t.code for t in DEVICE_TYPES if t.host])


def device_fault_findings(plan: Plan, f: Facts, e: Edges, sink) -> None:
    """Add every device-fault finding of ``plan`` to ``sink`` (a :class:`.checks.Sink`)."""
    host = host_mask(f.device_type)
    on_device = f.is_tensor & ~host & f.known_device
    arena_host = _arena_host(plan)
    _planning_off(plan, f, on_device, arena_host, sink)
    _planned_io(plan, f, on_device, arena_host, sink)
    _constants(plan, f, on_device, sink)
    _initial_state(plan, f, arena_host, sink)
    _unplanned(plan, f, on_device, sink)
    _delegates(plan, f, e, host, sink)
    _buffer_devices(plan, sink)
    _device_index(plan, f, host, sink)


# PRIVATE

def _arena_host(plan: Plan) -> np.ndarray:
    """Per memory_id: the arena is host memory as the runtime allocates it (first entry wins; index 0
    unused)."""
    out = np.ones(max(1, len(plan.buffer_sizes)), dtype=bool)  # a plan without sizes still indexes row 0
    for memory_id, device in plan.listed_devices.items():  # unlisted arenas are the CPU's: host
        t = BY_CODE.get(device.type)
        out[memory_id] = bool(t and t.host)
    return out


def _each(sink, code: str, rows: np.ndarray):
    """Rows to report for ``code``, counting the rest as dropped."""
    for n_done, v in enumerate(rows.tolist()):
        if sink.full(code):
            sink.skip(code, int(rows.size) - n_done)
            return
        yield v


def _planning_off(plan: Plan, f: Facts, on_device: np.ndarray, arena_host: np.ndarray, sink) -> None:
    """Planned tensors labelled with a device while no arena is device-planned."""
    planned_dev = on_device & (f.memory_id >= 1)
    if not planned_dev.any() or not arena_host[1:].all() or not len(arena_host) > 1:
        return
    vals = np.flatnonzero(planned_dev).tolist()
    devices = sorted({str(f.value_device(v)) for v in vals})
    sink.add("device-planning-off",
             f"{len(vals)} planned tensor{'s' if len(vals) != 1 else ''} labelled {', '.join(devices)} "
             f"({values_text(plan, vals)}) sit in arenas the file gives no device, so the runtime allocates every "
             f"arena in host memory and hands host pointers to code expecting {devices[0]} memory (device memory "
             f"planning was off: the export ran with ExecutorchBackendConfig(enable_non_cpu_memory_planning=False)); "
             f"re-export with enable_non_cpu_memory_planning=True, or keep these tensors on the CPU",
             tuple(vals[:64]))


def _planned_io(plan: Plan, f: Facts, on_device: np.ndarray, arena_host: np.ndarray, sink) -> None:
    """Method inputs/outputs on a device whose planned arena is device memory (a host arena is
    device-planning-off's business: there the memcpy is host to host)."""
    mid = f.memory_id
    in_device_arena = (mid >= 1) & (mid < len(arena_host))
    in_device_arena[in_device_arena] = ~arena_host[mid[in_device_arena]]
    for code, indices, what in (("planned-device-input", plan.inputs, "input"),
                                ("planned-device-output", plan.outputs, "output")):
        idx = np.asarray([v for v in indices if 0 <= v < f.n], dtype=np.int64)
        if not idx.size:
            continue
        hit = idx[on_device[idx] & in_device_arena[idx]]
        for v in _each(sink, code, unique(hit)):
            pos = indices.index(v)
            dev = f.value_device(v)
            if what == "input":
                runtime = ("Method::set_input copies the caller's tensor into it with a host memcpy (a segfault "
                           "on device memory; runtimes since executorch PR #21960 return NotSupported)")
                fix = ("export with MemoryPlanningPass(alloc_graph_input=False) alongside "
                       "skip_h2d_for_method_inputs, so the caller passes device memory, or drop the skip flag")
            else:
                runtime = ("Method::set_output_data_ptr refuses the caller's buffer and host readers of the "
                           "output touch device memory")
                fix = ("export with MemoryPlanningPass(alloc_graph_output=False) alongside "
                       "skip_d2h_for_method_outputs, or drop the skip flag so a d2h copy brings it to the host")
            sink.add(code,
                     f"method {what} {pos} ({value_text(plan, v)}) is on {dev} and memory-planned in arena "
                     f"{int(f.memory_id[v])}: {runtime}; {fix}", (v,), memory_id=int(f.memory_id[v]))


def _constants(plan: Plan, f: Facts, on_device: np.ndarray, sink) -> None:
    hit = np.flatnonzero(on_device & ((f.storage == STORAGE["constant"]) | (f.storage == STORAGE["external"])))
    if not hit.size:
        return
    groups: dict[str, list[int]] = defaultdict(list)
    for v in hit.tolist():
        groups[str(f.value_device(v))].append(v)
    for dev, vals in sorted(groups.items()):
        if sink.full("constant-on-device"):
            sink.skip("constant-on-device")
            continue
        sink.add("constant-on-device",
                 f"{len(vals)} constant{'s' if len(vals) != 1 else ''} labelled {dev} ({values_text(plan, vals)}): "
                 f"the runtime serves constants from the program's host memory whatever the label, so a kernel "
                 f"trusting the label reads host memory as {dev} memory (the CUDA backend rejects such "
                 f"tensors, executorch issue #21545); keep weights on cpu in the export (skip_h2d re-tags "
                 f"parameter/buffer placeholders: apply it to user inputs only) and let the delegate copy them",
                 tuple(vals[:64]))


def _initial_state(plan: Plan, f: Facts, arena_host: np.ndarray, sink) -> None:
    mid = f.memory_id
    ok = (mid >= 1) & (mid < len(arena_host))
    mutable = f.is_tensor & (f.storage == STORAGE["mutable"]) & ok
    hit = np.flatnonzero(mutable & ~arena_host[np.where(ok, mid, 0)])
    for v in _each(sink, "initial-state-in-device-arena", hit):
        m = int(mid[v])
        sink.add("initial-state-in-device-arena",
                 f"mutable buffer {value_text(plan, v)} has initial data in the file and is planned in arena {m} "
                 f"({plan.buffers[m - 1].device}): at load the runtime copies the initial bytes into it with a "
                 f"host memcpy, writing device memory from the CPU (a crash or garbage); keep mutable buffers "
                 f"on cpu in the export, or plan them without initial state", (v,), memory_id=m)


def _unplanned(plan: Plan, f: Facts, on_device: np.ndarray, sink) -> None:
    io = f.input_mask.copy()
    io[[v for v in plan.outputs if 0 <= v < f.n]] = True
    hit = np.flatnonzero(on_device & (f.storage == STORAGE["runtime"]) & ~io & (f.nbytes > 0))
    for v in _each(sink, "unplanned-device-tensor", hit):
        sink.add("unplanned-device-tensor",
                 f"{value_text(plan, v)} is on {f.value_device(v)} but neither planned nor a method input or "
                 f"output: nothing allocates it, so the runtime leaves its data pointer null and the first "
                 f"kernel or copy touching it crashes (executorch sets this spec before inserting the d2h "
                 f"copies of skip_d2h_for_method_outputs and never refreshes it); use the skip flags together "
                 f"with MemoryPlanningPass(alloc_graph_input/alloc_graph_output=False), or drop them", (v,))


def _delegates(plan: Plan, f: Facts, e: Edges, host: np.ndarray, sink) -> None:
    """One finding per device-targeted delegate touching non-host tensors of another device (vectorised
    over the edges: a program with thousands of delegate calls costs one pass)."""
    if not plan.delegates or not e.value.size:
        return
    want = np.asarray([d.target_device.code if d.target_device is not None else -1 for d in plan.delegates],
                      dtype=np.int64)
    if (want < 0).all():
        return
    kind, target = f.ic.kind[e.instr], f.ic.target[e.instr]
    is_del = (kind == 2) & (target >= 0) & (target < len(want))
    edge_want = np.full(e.value.size, -1, dtype=np.int64)
    edge_want[is_del] = want[target[is_del]]
    v = e.value
    bad = np.flatnonzero((edge_want >= 0) & f.is_tensor[v] & ~host[v] & (f.dcode[v] != edge_want) & (f.nbytes[v] > 0))
    if not bad.size:
        return
    for k in unique(target[bad]).tolist():
        if sink.full("delegate-device-mismatch"):
            sink.skip("delegate-device-mismatch")
            continue
        d = plan.delegates[k]
        rows = bad[target[bad] == k]
        vals = list(dict.fromkeys(v[rows].tolist()))
        instrs = list(dict.fromkeys(e.instr[rows].tolist()))
        devices = sorted({str(f.value_device(x)) for x in vals})
        sink.add("delegate-device-mismatch",
                 f"delegate #{d.index} {d.id} targets {d.target_device} (compile spec target_device) but reads/writes "
                 f"{values_text(plan, vals)} on {', '.join(devices)}: only the export reads "
                 f"target_device; the runtime never compares, so the backend runs on {d.target_device} with pointers "
                 f"into {devices[0]} memory; give the partitioner the tensors' device (or re-export with one "
                 f"target_device)", tuple(vals[:64]), tuple(instrs[:64]))


def _buffer_devices(plan: Plan, sink) -> None:
    seen: dict[int, list[Device]] = defaultdict(list)
    for bd in plan.buffer_devices:
        seen[bd.buffer_idx].append(bd.device)
    for idx, devs in sorted(seen.items()):
        if len(devs) < 2 or not 1 <= idx < len(plan.buffer_sizes):
            continue
        sink.add("buffer-device-duplicate",
                 f"non_const_buffer_device lists arena {idx} {len(devs)} times ({', '.join(map(str, devs))}): "
                 f"the runtime uses the first entry, so the arena is allocated on {devs[0]} and the other "
                 f"entr{'ies are' if len(devs) > 2 else 'y is'} ignored; emit one entry per arena (this tool "
                 f"shows the arena on {devs[0]}, as the runtime does)", memory_id=idx)


def _device_index(plan: Plan, f: Facts, host: np.ndarray, sink) -> None:
    idx = f.device_index
    dev = f.is_tensor & ~host
    low = np.flatnonzero(dev & (idx < -1))
    high = np.flatnonzero(dev & (idx > MAX_PLAUSIBLE_INDEX))
    arenas = [plan.buffers[m - 1] for m, d in sorted(plan.listed_devices.items()) if not d.is_host]
    by: dict[tuple, list[int]] = defaultdict(list)
    for rows in (low, high):
        for v in rows.tolist():
            by[(str(f.value_device(v)), int(idx[v]) < -1)].append(v)
    for (device, is_low), vals in sorted(by.items()):
        _index_finding(sink, plan, device, is_low, f"{len(vals)} tensor{'s' if len(vals) != 1 else ''} "
                       f"({values_text(plan, vals)})", tuple(vals[:64]), None)
    for b in arenas:
        if b.device.index < -1 or b.device.index > MAX_PLAUSIBLE_INDEX:
            _index_finding(sink, plan, str(b.device), b.device.index < -1,
                           f"arena {b.memory_id} ({nbytes_text(b.size)})", (), b.memory_id)


def _index_finding(sink, plan: Plan, device: str, is_low: bool, what: str, values, memory_id) -> None:
    if is_low:
        sink.add("device-index-invalid",
                 f"{what} on {device}: a device index below -1 (-1 means the current device), which the CUDA "
                 f"allocator rejects at load; export with a valid index (cuda:0, cuda:1...)", values,
                 memory_id=memory_id)
    else:
        sink.add("device-index-invalid",
                 f"{what} on {device}: an implausibly large device index (over {MAX_PLAUSIBLE_INDEX}); the CUDA "
                 f"runtime ignores the failing cudaSetDevice and the memory lands on the current GPU; export "
                 f"with the index of a device the target has", values, memory_id=memory_id,
                 severity=INDEX_WARNING)
