"""Export the real companion fixtures under ``tests/fixtures/companions/``: programs with ``.ptd`` data
files, delegates that keep weights in named data, a ``.bpte`` bundled program, XNNPACK programs.

Needs the ``interop`` extra (torch==2.13.0, executorch==1.5.1); nothing at run time depends on it.

    python scripts/make_companion_fixtures.py          # export every file (+ README.md)
    python scripts/make_companion_fixtures.py --check  # export in memory; exit 1 if any file differs

Every export starts from ``torch.manual_seed(0)``; each builder runs twice in one process and the two
results are compared (``deterministic=``), so ``--check`` can demand byte equality.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "companions"


def _models():
    import torch

    class Linear2(torch.nn.Module):
        """Two linears: four weight/bias constants for a data file to hold."""

        def __init__(self) -> None:
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 8)
            self.fc2 = torch.nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    class ConvLinearAdd(torch.nn.Module):
        """conv, linear and add split by CPU-only ops, so XNNPACK makes several delegates."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.fc = torch.nn.Linear(16, 5)

        def forward(self, x, y):
            a = torch.relu(self.conv(x))                # delegate 0: conv + relu
            b = torch.cumsum(a, dim=-1)                  # not supported by XNNPACK: splits the graph
            c = self.fc(b.reshape(b.shape[0], 4, 16))    # delegate 1: linear
            d = torch.cumsum(c, dim=-1)                  # another split
            return d + y                                 # delegate 2: add

    class DeviceLinear(torch.nn.Module):
        """A CPU linear whose activations feed adds delegated to a device (weights external)."""

        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x, y):
            return self.fc(x) + y

    return Linear2, ConvLinearAdd, DeviceLinear


def _export(module, example):
    import torch

    return torch.export.export(module.eval(), example, strict=True)


def _data_file(et) -> bytes:
    """The one .ptd an export wrote, through executorch's documented ``write_tensor_data_to_file``."""
    import tempfile

    et.buffer  # serialises the program, which fills in the tensor data
    with tempfile.TemporaryDirectory() as tmp:
        et.write_tensor_data_to_file(tmp)
        files = sorted(Path(tmp).glob("*.ptd"))
        assert len(files) == 1, files
        return files[0].read_bytes()


def build_external() -> dict[str, bytes]:
    """Linear2 with every constant moved to a .ptd (``external_constants=True``)."""
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge

    torch.manual_seed(0)
    Linear2 = _models()[0]
    et = to_edge(_export(Linear2(), (torch.randn(2, 4),))).to_executorch(
        ExecutorchBackendConfig(external_constants=True))
    return {"external.pte": et.buffer, "external.ptd": _data_file(et)}


def build_xnnpack_multi() -> dict[str, bytes]:
    """ConvLinearAdd lowered to XNNPACK in fp32: three delegates (conv+relu, linear, add), weights in
    the program's named data."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    torch.manual_seed(0)
    model = _models()[1]()
    ep = _export(model, (torch.randn(1, 3, 4, 4), torch.randn(1, 4, 5)))
    return {"xnnpack_multi.pte": to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
            .to_executorch().buffer}


def build_xnnpack_int8() -> dict[str, bytes]:
    """The same model quantized to int8 with the XNNPACK quantizer (pt2e), then lowered."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config,
    )
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(0)
    model = _models()[1]().eval()
    example = (torch.randn(1, 3, 4, 4), torch.randn(1, 4, 5))
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(torch.export.export(model, example, strict=True).module(), quantizer)
    prepared(*example)
    converted = convert_pt2e(prepared)
    ep = torch.export.export(converted, example, strict=True)
    return {"xnnpack_int8.pte": to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
            .to_executorch().buffer}


def build_bundled() -> dict[str, bytes]:
    """Linear2 as a bundled program: the program plus two test cases for ``forward``."""
    import torch
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.core import BundledProgram
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
    from executorch.exir import to_edge

    torch.manual_seed(0)
    model = _models()[0]().eval()
    et = to_edge(_export(model, (torch.randn(2, 4),))).to_executorch()
    cases = []
    for _ in range(2):
        x = torch.randn(2, 4)
        cases.append(MethodTestCase(inputs=[x], expected_outputs=[model(x).detach()]))
    bundled = BundledProgram(et, [MethodTestSuite(method_name="forward", test_cases=cases)])
    return {"bundled.bpte": serialize_from_bundled_program_to_flatbuffer(bundled)}


def build_device_external() -> dict[str, bytes]:
    """DeviceLinear: its add delegated to cuda:0 (DeviceAwarePartitioner), its weights in a .ptd."""
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.backend.test.device_util import DeviceAwarePartitioner

    torch.manual_seed(0)
    model = _models()[2]()
    edge = to_edge(_export(model, (torch.randn(2, 4), torch.randn(2, 4)))).to_backend(
        DeviceAwarePartitioner("cuda:0"))
    et = edge.to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True, external_constants=True))
    return {"device_external.pte": et.buffer, "device_external.ptd": _data_file(et)}


# builder -> what it makes
BUILDERS: dict[Callable[[], dict[str, bytes]], str] = {
    build_external: "Linear2 (two linears), every constant external: `external.pte` + `external.ptd`",
    build_xnnpack_multi: "conv+relu / linear / add lowered to XNNPACK fp32: three delegates, weights in named data",
    build_xnnpack_int8: "the same model quantized to int8 (XNNPACKQuantizer, pt2e) and lowered to XNNPACK",
    build_bundled: "Linear2 as a bundled program with two `forward` test cases",
    build_device_external: "a linear whose add is delegated to cuda:0 (DeviceAwarePartitioner), weights in a .ptd",
}

README = """# Companion fixtures

Real files made by executorch 1.5.1. **Generated - do not edit by hand**: run
`python scripts/make_companion_fixtures.py` (torch 2.13.0, executorch 1.5.1; `--check` re-exports in
memory and compares byte for byte). They live in their own folder because `tests/test_reader.py` pins
the `*.pte` files directly in `tests/fixtures/` to `expected.json`.

| files | what they are |
|---|---|
{rows}
"""


def export_all() -> tuple[dict[str, bytes], dict[str, bool]]:
    files: dict[str, bytes] = {}
    deterministic: dict[str, bool] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for builder in BUILDERS:
            first, second = builder(), builder()
            for name, data in first.items():
                files[name] = bytes(data)
                deterministic[name] = bytes(data) == bytes(second[name])
    return files, deterministic


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="export in memory and compare with the files on disk")
    args = parser.parse_args(argv)
    files, deterministic = export_all()
    differing = []
    if not args.check:
        OUT.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        path = OUT / name
        old = path.read_bytes() if path.exists() else None
        if args.check:
            if old != data:
                differing.append(name)
            continue
        path.write_bytes(data)
        state = "new" if old is None else ("unchanged" if old == data else "CHANGED")
        print(f"{name:24s} {len(data):7d} bytes  {state}  deterministic={deterministic[name]}")
    if args.check:
        for name in differing:
            print(f"differs: {name}")
        print("all companion fixtures reproduce byte for byte" if not differing else f"{len(differing)} differ")
        return 1 if differing else 0
    rows = []
    for builder, what in BUILDERS.items():
        names = ", ".join(f"`{n}`" for n in files if n in _names_of(builder, files))
        rows.append(f"| {names} | {what} |")
    (OUT / "README.md").write_text(README.format(rows="\n".join(rows)))
    return 0


def _names_of(builder, files: dict[str, bytes]) -> set[str]:
    stem = builder.__name__.removeprefix("build_")
    return {n for n in files if n.rsplit(".", 1)[0] == stem}


if __name__ == "__main__":
    sys.exit(main())
