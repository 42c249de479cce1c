"""Export the real ``.pte`` *pairs* under ``tests/fixtures/diff/`` for ``device-explorer diff``.

Needs the ``interop`` extra (torch==2.13.0, executorch==1.5.1); nothing at run time depends on it.

    python scripts/make_diff_fixtures.py          # export every pair into tests/fixtures/diff/ (+ README.md)
    python scripts/make_diff_fixtures.py --check  # export in memory; exit 1 if any file differs

The pairs are what a placement review compares:

* ``cpu_only.pte`` vs ``device_cuda0.pte``: the *same* model (``DeviceMLP`` of
  ``scripts/make_fixtures.py``, so ``device_cuda0.pte`` is byte-identical to
  ``tests/fixtures/device_mlp.pte``) without partitioning, and with ``DeviceAwarePartitioner("cuda:0")``
  delegating its four adds.
* ``device_cuda0.pte`` vs ``device_cuda1.pte``: the same partitioning aimed at another GPU.
* ``partition_add.pte`` vs ``partition_add_sin.pte``: a model before/after a *partitioner change*: an
  ``OpsPartitioner`` (below; ``DeviceAwarePartitioner`` is ``@final`` and only knows add) delegating
  ``add`` only, then ``add`` + ``sin`` (both supported by ``BackendWithCompilerDemo``). The model
  also has a named mutable buffer on the CPU, so the fully-qualified-name matching rule meets a real
  file.

The pairs live in a subfolder because ``tests/test_reader.py`` pins the ``*.pte`` files directly in
``tests/fixtures/`` to ``expected.json``. Every export starts from ``torch.manual_seed(0)``; each file
is exported twice in one process and the two byte strings compared.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "diff"


def _make_fixtures():
    """scripts/make_fixtures.py, loaded by path (for its DeviceMLP, so the model is the very same)."""
    spec = importlib.util.spec_from_file_location("_make_fixtures", ROOT / "scripts" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _models():
    import torch

    class PartitionModel(torch.nn.Module):
        """adds and sins around a CPU linear, plus a named mutable step counter on the CPU.

        Only activations feed the delegated ops (a device op reading a parameter/buffer directly
        fails at emission in executorch 1.5.1).
        """

        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.register_buffer("steps", torch.zeros(1))

        def forward(self, x, y):
            a = x + y  # device in both
            s = torch.sin(a)  # cpu with add only, device with add+sin (fused with the add)
            h = self.fc(s)  # cpu
            c = h + a  # device
            out = torch.sin(c) * 2.0  # sin: cpu / device; mul: cpu
            self.steps.sub_(1.0)  # cpu (sub is never delegated), named mutable buffer
            return out, s

    return PartitionModel


def _ops_partitioner(target_device: str, op_names: tuple[str, ...]):
    """A partitioner like executorch's ``DeviceAwarePartitioner`` that delegates the given edge ops."""
    from executorch.exir.backend.canonical_partitioners.pattern_op_partitioner import (
        generate_pattern_op_partitions,
    )
    from executorch.exir.backend.compile_spec_schema import CompileSpec
    from executorch.exir.backend.partitioner import (
        DelegationSpec,
        Partitioner,
        PartitionResult,
    )
    from executorch.exir.dialects._ops import ops as exir_ops
    from executorch.exir.passes.propagate_device_pass import (
        TARGET_DEVICE_COMPILE_SPEC_KEY,
    )
    from torch.fx.passes.operator_support import OperatorSupportBase, any_chain

    targets = [{"add": exir_ops.edge.aten.add.Tensor, "sin": exir_ops.edge.aten.sin.default}[n] for n in op_names]

    class Support(OperatorSupportBase):
        def is_node_supported(self, submodules, node) -> bool:
            return node.op == "call_function" and node.target in targets

    class OpsPartitioner(Partitioner):
        def __init__(self) -> None:
            super().__init__()
            self.op_support = any_chain(Support())
            self.delegation_spec = DelegationSpec("BackendWithCompilerDemo", [
                CompileSpec("max_value", bytes([4])),
                CompileSpec(TARGET_DEVICE_COMPILE_SPEC_KEY, target_device.encode("utf-8"))])

        def partition(self, exported_program) -> PartitionResult:
            tags = {}
            for partition in generate_pattern_op_partitions(exported_program.graph_module,
                                                            op_support=self.op_support):
                for node in partition.nodes:
                    node.meta["delegation_tag"] = f"tag{partition.id}"
                    tags[f"tag{partition.id}"] = self.delegation_spec
            return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)

    return OpsPartitioner()


def build_cpu_only() -> bytes:
    import torch
    from executorch.exir import to_edge

    torch.manual_seed(0)
    DeviceMLP = _make_fixtures()._models()[5]
    ep = torch.export.export(DeviceMLP().eval(), (torch.randn(2, 4), torch.randn(2, 4)))
    return to_edge(ep).to_executorch().buffer


def build_device(target: str) -> Callable[[], bytes]:
    def build() -> bytes:
        import torch

        mf = _make_fixtures()
        torch.manual_seed(0)
        DeviceMLP = mf._models()[5]
        return mf._device_export(DeviceMLP(), (torch.randn(2, 4), torch.randn(2, 4)), target)
    return build


def build_partition(op_names: tuple[str, ...]) -> Callable[[], bytes]:
    def build() -> bytes:
        import torch
        from executorch.exir import ExecutorchBackendConfig, to_edge

        torch.manual_seed(0)
        model = _models()()
        ep = torch.export.export(model.eval(), (torch.randn(2, 4), torch.randn(2, 4)))
        edge = to_edge(ep).to_backend(_ops_partitioner("cuda:0", op_names))
        config = ExecutorchBackendConfig(enable_non_cpu_memory_planning=True, emit_mutable_buffer_names=True)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Mutation on a buffer")
            return edge.to_executorch(config).buffer
    return build


# name -> (builder, what it is)
PAIRS: dict[str, tuple[Callable[[], bytes], str]] = {
    "cpu_only.pte": (build_cpu_only, "DeviceMLP, no partitioning (all CPU)"),
    "device_cuda0.pte": (build_device("cuda:0"), "DeviceMLP, DeviceAwarePartitioner('cuda:0') (= ../device_mlp.pte)"),
    "device_cuda1.pte": (build_device("cuda:1"), "DeviceMLP, DeviceAwarePartitioner('cuda:1')"),
    "partition_add.pte": (build_partition(("add",)), "PartitionModel, add delegated to cuda:0"),
    "partition_add_sin.pte": (build_partition(("add", "sin")), "PartitionModel, add and sin delegated to cuda:0"),
}


README = """# Diff fixtures

Pairs of real `.pte` files for `device-explorer diff`. **Generated - do not edit by hand**: run
`python scripts/make_diff_fixtures.py` (torch 2.13.0, executorch 1.5.1; `--check` re-exports in memory
and compares). They live here, not in `tests/fixtures/`, because `tests/test_reader.py` pins that
folder's `*.pte` files to `expected.json`.

| file | what it is |
|---|---|
{rows}

Pairs the tests compare (`tests/test_diff.py`):

- `cpu_only.pte` -> `device_cuda0.pte`: the same model without and with device partitioning; the four
  adds move to cuda:0 (aten::add.out becomes a delegate call), 7 h2d + 4 d2h copies appear, arena #2
  (cuda:0, 128 B) appears and the CPU arena shrinks from 192 to 160 B. `device_cuda0.pte` is
  byte-identical to `../device_mlp.pte`.
- `device_cuda0.pte` -> `device_cuda1.pte`: the same structure aimed at another GPU; value numbering is
  identical, arena #2 and every device tensor and copy move from cuda:0 to cuda:1.
- `partition_add.pte` -> `partition_add_sin.pte`: the partitioner now also delegates `sin`; both sins move
  to cuda:0, the add result `c` disappears inside its fused delegate, the d2h copies of `a` and `c` are
  replaced by d2h copies of `sin(a)` and `sin(c)`, and the cuda:0 arena grows from 96 to 128 B. The
  named mutable buffer `steps` stays on the CPU (paired by name).
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="export in memory and compare with the files on disk")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    differing = []
    for name, (builder, what) in PAIRS.items():
        first, second = bytes(builder()), bytes(builder())
        path = OUT / name
        old = path.read_bytes() if path.exists() else None
        if args.check:
            if old != first:
                differing.append(name)
            continue
        path.write_bytes(first)
        state = "new" if old is None else ("unchanged" if old == first else "CHANGED")
        print(f"{name:24s} {len(first):6d} bytes  {state}  deterministic={first == second}  ({what})")
    if not args.check:
        rows = "\n".join(f"| `{name}` | {what} |" for name, (_, what) in PAIRS.items())
        (OUT / "README.md").write_text(README.format(rows=rows))
    if args.check:
        for name in differing:
            print(f"differs: {name}")
        print("all diff fixtures reproduce byte for byte" if not differing else f"{len(differing)} differ")
        return 1 if differing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
