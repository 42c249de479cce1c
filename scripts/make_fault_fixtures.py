"""Export the device-fault programs under ``tests/fixtures/faults/`` (one per check of analysis/checks/device_faults.py).

    python scripts/make_fault_fixtures.py          # (re)write the files and the README
    python scripts/make_fault_fixtures.py --check  # build in memory; exit 1 if any file differs

Where executorch 1.5.1 writes the fault itself the program is a REAL export (``real_*.pte``): the device
flags of ``ExecutorchBackendConfig`` / ``PropagateDeviceConfig`` (exir/passes/propagate_device_config.py)
with ``DeviceAwarePartitioner`` (exir/backend/test/device_util.py, delegates every aten.add to a device).
The rest are a real export with a field patched through our writer (``patched_*.pte``), because no
exporter writes them (duplicate arena entries, bad device indices, unknown device types...). Correct device
exports (``ok_*.pte``) are kept too: every check must stay silent on them.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "faults"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/fixture_io.py
from fixture_io import differing, write_all  # noqa: E402


def _export(skip_h2d=False, skip_d2h=False, planning=True, alloc_input=True, alloc_output=True,
            target="cuda:0", shared_output=False) -> bytes:
    """The small device model (or, with ``shared_output``, one whose delegate output is both returned and
    read by a CPU op) lowered with DeviceAwarePartitioner and the given flags."""
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.backend.test.device_util import DeviceAwarePartitioner
    from executorch.exir.passes import MemoryPlanningPass
    from executorch.exir.passes.propagate_device_config import PropagateDeviceConfig

    torch.manual_seed(0)

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x, y):
            a = x + y
            h = torch.relu(self.fc(a))
            return h + a

    class Shared(torch.nn.Module):
        def forward(self, x, y):
            a = x + y
            return a, torch.relu(a)

    ep = torch.export.export((Shared() if shared_output else M()).eval(), (torch.randn(2, 4), torch.randn(2, 4)))
    edge = to_edge(ep).to_backend(DeviceAwarePartitioner(target))
    config = ExecutorchBackendConfig(
        enable_non_cpu_memory_planning=planning,
        propagate_device_config=PropagateDeviceConfig(skip_h2d_for_method_inputs=skip_h2d,
                                                      skip_d2h_for_method_outputs=skip_d2h),
        memory_planning_pass=MemoryPlanningPass(alloc_graph_input=alloc_input, alloc_graph_output=alloc_output))
    return edge.to_executorch(config).buffer


def _patch(base: Callable[[], bytes], change: Callable) -> Callable[[], bytes]:
    """A real export with one plan changed by ``change(plan) -> plan``, written by our writer."""
    def build() -> bytes:
        from explorer.format.reader import load
        from writers.pte import write
        program = load(base())
        plans = tuple(change(p) for p in program.plans)
        return write(dataclasses.replace(program, plans=plans))
    return build


def _first_device_value(plan, planned: bool):
    from explorer.model.program import Tensor
    return next(v for v in plan.values if isinstance(v, Tensor) and not v.device.is_cpu
                and (v.memory_id is not None) == planned and v.index not in plan.inputs + plan.outputs)


def _relabel(plan, index: int, **fields):
    values = list(plan.values)
    values[index] = dataclasses.replace(values[index], **fields)
    return dataclasses.replace(plan, values=tuple(values), _columns=None)


def _duplicate_arena(plan):
    from explorer.model.program import BufferDevice, Device
    first = plan.buffer_devices[0]
    return dataclasses.replace(plan, buffer_devices=plan.buffer_devices + (BufferDevice(first.buffer_idx, Device(0, 0)),))


def _arena_entry(idx: int):
    def change(plan):
        from explorer.model.program import BufferDevice
        bd = plan.buffer_devices[0]
        return dataclasses.replace(plan, buffer_devices=(BufferDevice(idx if idx >= 0 else len(plan.buffer_sizes),
                                                                      bd.device),))
    return change


def _device_everywhere(device_type: int, index: int | None = None):
    """Every non-CPU tensor and arena moved to ``device_type`` (and ``index`` when given)."""
    def change(plan):
        from explorer.model.program import BufferDevice, Device, Tensor
        def moved(d):
            return Device(device_type, d.index if index is None else index)
        values = tuple(dataclasses.replace(v, device=moved(v.device)) if isinstance(v, Tensor) and not v.device.is_cpu
                       else v for v in plan.values)
        bds = tuple(BufferDevice(b.buffer_idx, moved(b.device)) for b in plan.buffer_devices)
        return dataclasses.replace(plan, values=values, buffer_devices=bds, _columns=None)
    return change


def _constant_on_device(plan):
    from explorer.model.program import Device, Tensor
    const = next(v for v in plan.values if isinstance(v, Tensor) and v.storage == "constant")
    return _relabel(plan, const.index, device=Device(1, 0), has_extra_info=True)


def _retarget(plan):
    from explorer.model.program import CompileSpec
    delegates = tuple(dataclasses.replace(d, compile_specs=tuple(
        CompileSpec(s.key, b"cuda:1") if s.key == "target_device" else s for s in d.compile_specs))
        for d in plan.delegates)
    return dataclasses.replace(plan, delegates=delegates)


def _ok():
    return _export()


# name -> (what it carries, expected new code or None, builder)
FIXTURES: dict[str, tuple[str, str | None, Callable[[], bytes]]] = {
    "ok_device.pte": ("correct: adds delegated to cuda:0, device memory planning on", None, _ok),
    "ok_cuda1.pte": ("correct: the same on cuda:1", None, lambda: _export(target="cuda:1")),
    "ok_skip_flags.pte": ("correct: both skip flags with alloc_graph_input/output=False", None,
                          lambda: _export(skip_h2d=True, skip_d2h=True, alloc_input=False, alloc_output=False)),
    "real_skip_h2d_planned.pte": ("skip_h2d_for_method_inputs without alloc_graph_input=False",
                                  "planned-device-input", lambda: _export(skip_h2d=True)),
    "real_skip_d2h_planned.pte": ("skip_d2h_for_method_outputs without alloc_graph_output=False",
                                  "planned-device-output", lambda: _export(skip_d2h=True)),
    "real_paired_skip_unplanned.pte": ("both skip flags with alloc_graph_input/output=False, a delegate output "
                                       "both returned and read by relu: executorch leaves the delegate's output "
                                       "on cuda:0 unplanned and returns its d2h copy",
                                       "unplanned-device-tensor",
                                       lambda: _export(skip_h2d=True, skip_d2h=True, alloc_input=False,
                                                       alloc_output=False, shared_output=True)),
    "real_planning_off.pte": ("ExecutorchBackendConfig(enable_non_cpu_memory_planning=False), the default",
                              "device-planning-off", lambda: _export(planning=False)),
    "patched_constant_on_device.pte": ("ok_device with its first constant labelled cuda:0",
                                       "constant-on-device", _patch(_ok, _constant_on_device)),
    "patched_delegate_mismatch.pte": ("ok_device with the delegates' target_device changed to cuda:1",
                                      "delegate-device-mismatch", _patch(_ok, _retarget)),
    "patched_buffer_duplicate.pte": ("ok_device with a second non_const_buffer_device entry (cpu) for its "
                                     "device arena", "buffer-device-duplicate", _patch(_ok, _duplicate_arena)),
    "patched_buffer_idx0.pte": ("ok_device with its non_const_buffer_device entry at buffer_idx 0",
                                "bad-reference", _patch(_ok, _arena_entry(0))),
    "patched_buffer_idx_past.pte": ("ok_device with its non_const_buffer_device entry past the arenas",
                                    "bad-reference", _patch(_ok, _arena_entry(-1))),
    "patched_index_negative.pte": ("ok_device with every device tensor and arena on cuda:-2",
                                   "device-index-invalid", _patch(_ok, _device_everywhere(1, -2))),
    "patched_index_large.pte": ("ok_device with every device tensor and arena on cuda:100",
                                "device-index-invalid", _patch(_ok, _device_everywhere(1, 100))),
    "patched_unknown_type.pte": ("ok_device with every device tensor and arena on device type 7",
                                 "unknown-device", _patch(_ok, _device_everywhere(7))),
}


def readme() -> str:
    rows = "\n".join(f"| `{name}` | {'real export' if name.startswith(('real', 'ok')) else 'patched'} | "
                     f"{what} | {('`' + code + '`') if code else 'none (must stay silent)'} |"
                     for name, (what, code, _) in FIXTURES.items())
    return f"""# Device-fault fixtures

Made by `python scripts/make_fault_fixtures.py` (torch 2.13.0, executorch 1.5.1; `--check` rebuilds them in
memory and compares). `real` and `ok` files are exports made by executorch itself with the device flags
named; `patched` files are `ok_device.pte` read and rewritten by this tool's writer with one field changed,
for faults no exporter writes. `tests/test_device_faults.py` checks each fires its code (and names the fix)
and that the `ok` files get no finding.

| file | made by | what it carries | check that fires |
|---|---|---|---|
{rows}
"""


def build_all() -> dict[str, bytes]:
    out = {name: build() for name, (_, _, build) in FIXTURES.items()}
    out["README.md"] = readme().encode()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="build in memory and compare with the files on disk")
    args = parser.parse_args(argv)
    files = build_all()
    if args.check:
        return 1 if differing(OUT, files) else 0
    write_all(OUT, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
