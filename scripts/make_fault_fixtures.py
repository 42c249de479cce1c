"""Export the device-fault programs under ``tests/fixtures/faults/`` with ExecuTorch 1.5.1 itself.

Each program is what executorch writes for one export configuration of a small model whose ``aten.add``
ops are delegated to a device by ``executorch.exir.backend.test.device_util.DeviceAwarePartitioner``.
Some configurations are correct (the checks must be silent on them), others carry a fault that crashes
a real runtime (the checks must name it): skip flags without the matching ``alloc_graph_*=False``, and
device memory planning turned off. ``tests/test_device_faults.py`` reads them; faults executorch cannot be
made to write are patched in the tests with our own writer.

Needs the ``interop`` extra (torch 2.13.0, executorch 1.5.1):

    python scripts/make_fault_fixtures.py            # export every program, write README.md
    python scripts/make_fault_fixtures.py --check    # export again in memory; exit 1 if any file differs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "faults"

# name -> (what it is, expected finding codes of the new device checks, export options)
PROGRAMS: dict[str, tuple[str, tuple[str, ...], dict]] = {
    "ok_cuda0": ("device copies, defaults (correct)", (), {}),
    "ok_cuda1": ("the same on cuda:1 (correct)", (), {"target": "cuda:1"}),
    "ok_skip_io": ("skip_h2d + skip_d2h with alloc_graph_input/output=False, as PropagateDeviceConfig's docstring "
                   "asks (correct)", (),
                   {"skip_h2d": True, "skip_d2h": True, "alloc_input": False, "alloc_output": False}),
    "skip_h2d_planned": ("skip_h2d_for_method_inputs without alloc_graph_input=False",
                         ("planned-device-input",), {"skip_h2d": True}),
    "skip_d2h_planned": ("skip_d2h_for_method_outputs without alloc_graph_output=False",
                         ("planned-device-output",), {"skip_d2h": True}),
    "skip_h2d_weight": ("skip_h2d_for_method_inputs with alloc_graph_input=False, the second add reading a "
                        "parameter: the pass re-tags the parameter placeholder", ("constant-on-device",),
                        {"weight": True, "skip_h2d": True, "alloc_input": False}),
    "no_alloc_output": ("alloc_graph_output=False without skip_d2h: the output spec is set before the d2h copy "
                        "exists, so the device tensor behind it is left unplanned", ("unplanned-device-tensor",),
                        {"alloc_output": False}),
    "no_device_planning": ("enable_non_cpu_memory_planning=False: device tensors planned in the CPU arena",
                           ("device-memory-not-planned",), {"device_planning": False}),
}


def _model(weight: bool = False):
    import torch

    class ResidualAdd(torch.nn.Module):
        """Two delegated adds with a host op between them: each method input feeds one device delegate
        directly (skip_h2d re-tags a placeholder only when it has exactly one user) and the last add is the
        method output (so skip_d2h applies). With ``weight`` the second add reads a parameter instead of z."""

        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(4, 8)) if weight else None

        def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
            b = torch.relu(x + y)
            return b + (self.w if self.w is not None else z)

    torch.manual_seed(0)
    return ResidualAdd(), (torch.randn(4, 8), torch.randn(4, 8), torch.randn(4, 8))


def export(target: str = "cuda:0", weight: bool = False, skip_h2d: bool = False, skip_d2h: bool = False, alloc_input: bool = True,
           alloc_output: bool = True, device_planning: bool = True) -> bytes:
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.backend.test.device_util import DeviceAwarePartitioner
    from executorch.exir.passes import MemoryPlanningPass
    from executorch.exir.passes.propagate_device_config import PropagateDeviceConfig

    model, example = _model(weight)
    edge = to_edge(torch.export.export(model, example)).to_backend(DeviceAwarePartitioner(target))
    config = ExecutorchBackendConfig(
        propagate_device_config=PropagateDeviceConfig(skip_h2d_for_method_inputs=skip_h2d,
                                                      skip_d2h_for_method_outputs=skip_d2h),
        enable_non_cpu_memory_planning=device_planning,
        memory_planning_pass=MemoryPlanningPass(alloc_graph_input=alloc_input, alloc_graph_output=alloc_output))
    return edge.to_executorch(config).buffer


def _readme() -> str:
    rows = "\n".join(f"| `{name}.pte` | {what} | {', '.join(f'`{c}`' for c in codes) or 'none'} |"
                     for name, (what, codes, _) in PROGRAMS.items())
    return ("# Device-fault programs\n\nReal exports made by executorch 1.5.1 with "
            "`python scripts/make_fault_fixtures.py` (needs the `interop` extra; `--check` re-exports in memory "
            "and compares). The model: `x + y`, `relu`, `+ y` (the adds delegated to a device by "
            "`DeviceAwarePartitioner`). `tests/test_device_faults.py` expects exactly these findings of the "
            "device checks; faults executorch cannot be made to write are patched there with our writer.\n\n"
            "| file | export | device findings |\n|---|---|---|\n" + rows + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="export in memory and compare with the files on disk")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    differ = []
    for name, (_, _, options) in PROGRAMS.items():
        data = export(**options)
        path = OUT / f"{name}.pte"
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                differ.append(name)
        else:
            path.write_bytes(data)
    if args.check:
        if (OUT / "README.md").read_text() != _readme():
            differ.append("README.md")
        print("differ: " + ", ".join(differ) if differ else "all programs are byte-identical")
        return 1 if differ else 0
    (OUT / "README.md").write_text(_readme())
    print(f"wrote {len(PROGRAMS)} programs to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
