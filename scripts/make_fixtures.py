"""Export the real ``.pte`` fixtures under ``tests/fixtures/`` with ExecuTorch itself.

Needs the ``interop`` extra (torch==2.13.0, executorch==1.5.1); nothing at run time depends on it.

    python scripts/make_fixtures.py             # export every fixture, the bundled sample,
                                                # tests/fixtures/README.md and expected.json
    python scripts/make_fixtures.py --expected  # only rewrite expected.json from the files on disk
    python scripts/make_fixtures.py --check     # export again in memory; exit 1 if any file differs

Every export starts from ``torch.manual_seed(0)`` so the weights (and so the bytes) are the same on
each run. Each fixture is also exported twice in one process and the two byte strings compared; the
README's "deterministic" column records the outcome. ``stacktrace.pte`` contains source file paths:
they are rewritten to machine-independent forms (``scripts/make_fixtures.py``, ``<site-packages>/...``)
before emission so that file is reproducible too.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import shutil
import site
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE = ROOT / "explorer" / "data" / "sample.pte"
SAMPLE_SOURCE = "device_mlp.pte"  # the fixture bundled as the demo sample
SIZE_BUDGET = 200 * 1024


def _load_reference():
    """tests/reference.py, loaded by path (tests/ is not a package)."""
    spec = importlib.util.spec_from_file_location("_fixture_reference", ROOT / "tests" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------------
# Models (classes made inside a function so importing this script needs no torch).
# --------------------------------------------------------------------------------------------------

def _models():
    import torch

    class MLP(torch.nn.Module):
        """Linear(4, 8) -> ReLU -> Linear(8, 3)."""

        def __init__(self) -> None:
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 8)
            self.fc2 = torch.nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = torch.nn.Linear(4, 2)

        def forward(self, x):
            return torch.tanh(self.proj(x))

    class Decoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = torch.nn.Linear(2, 4)

        def forward(self, z):
            return torch.sigmoid(self.proj(z)) * 2.0

    class Stateful(torch.nn.Module):
        """A running state with initial contents and a KV-cache-like buffer written by index."""

        def __init__(self) -> None:
            super().__init__()
            # Initial state that matches no constant's bytes (the emitter dedups named mutable
            # buffers against the *constant* table: see build_mutable_dedup_bug).
            self.register_buffer("state", torch.arange(6, dtype=torch.float32).reshape(2, 3) + 0.5)
            self.register_buffer("cache", torch.zeros(4, 3))
            self.proj = torch.nn.Linear(3, 3)

        def forward(self, x, pos):
            self.state.add_(x)
            y = self.proj(self.state)
            self.cache.index_copy_(0, pos, x)
            return y, self.cache.sum(0)

    class Add(torch.nn.Module):
        def forward(self, x, y):
            return x + y

    class DeviceMLP(torch.nn.Module):
        """Adds (delegated to the device) mixed with CPU linear/relu/mul.

        Only activations feed the adds: an add that reads a parameter/buffer directly makes
        executorch 1.5.1 fail at emission (the h2d copy of a constant has no storage).
        """

        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x, y):
            a = x + y  # device
            h = torch.relu(self.fc(a))  # cpu
            c = h + a  # device, reuses a device tensor
            d = c * 2.0  # cpu
            e = d + h  # device, h copied to the device a second time
            f = torch.relu(e) + x  # device, x copied to the device a second time
            return f, c

    class StateLikeBias(torch.nn.Module):
        """A mutable buffer whose initial bytes equal a constant's (the Linear bias)."""

        def __init__(self) -> None:
            super().__init__()
            self.proj = torch.nn.Linear(3, 3)
            self.register_buffer("state", self.proj.bias.detach().clone())

        def forward(self, x):
            self.state.add_(x)
            return self.proj(x)

    return MLP, Encoder, Decoder, Stateful, Add, DeviceMLP, StateLikeBias


# --------------------------------------------------------------------------------------------------
# Exports. Each returns the .pte bytes; each starts from torch.manual_seed(0).
# --------------------------------------------------------------------------------------------------

def _export(module, example):
    import torch

    return torch.export.export(module.eval(), example)


def build_mlp() -> bytes:
    import torch
    from executorch.exir import to_edge

    torch.manual_seed(0)
    MLP = _models()[0]
    ep = _export(MLP(), (torch.randn(2, 4),))
    return to_edge(ep).to_executorch().buffer


def build_xnnpack_mlp() -> bytes:
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    torch.manual_seed(0)
    MLP = _models()[0]
    ep = _export(MLP(), (torch.randn(2, 4),))
    return to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch().buffer


def build_two_methods() -> bytes:
    import torch
    from executorch.exir import to_edge

    torch.manual_seed(0)
    _, Encoder, Decoder, *_ = _models()
    encode = _export(Encoder(), (torch.randn(1, 4),))
    forward = _export(Decoder(), (torch.randn(1, 2),))
    return to_edge({"encode": encode, "forward": forward}).to_executorch().buffer


def build_mutable_state() -> bytes:
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    torch.manual_seed(0)
    Stateful = _models()[3]
    ep = _export(Stateful(), (torch.randn(2, 3), torch.tensor([0, 1])))
    config = ExecutorchBackendConfig(
        # Write fully-qualified names (extra_tensor_info.fully_qualified_name) for mutable buffers.
        emit_mutable_buffer_names=True,
        # Only buffers whose name matches get their initial state serialised (data_buffer_idx > 0
        # into mutable_data_segments); the others are planned with no data ("meaningless initial
        # state").
        passes=[InitializedMutableBufferPass(["state"])],
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Mutation on a buffer")  # about `cache`: intended
        return to_edge(ep).to_executorch(config).buffer


def build_mutable_dedup_bug() -> bytes:
    """executorch 1.5.1 bug, kept as a real malformed file for the bad-reference check.

    With ``emit_mutable_buffer_names=True`` the emitter looks a named mutable buffer's initial
    bytes up in the *constant* dedup table; when they equal a constant's, the buffer gets that
    constant's ``data_buffer_idx`` and no mutable data segment is written at all. The file then has
    a tensor with ``data_buffer_idx > 0`` + ``allocation_info`` (storage "mutable") and no
    ``mutable_data_segments`` for the index to point into.
    """
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    torch.manual_seed(0)
    StateLikeBias = _models()[6]
    ep = _export(StateLikeBias(), (torch.randn(3),))
    config = ExecutorchBackendConfig(
        emit_mutable_buffer_names=True, passes=[InitializedMutableBufferPass(["state"])])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Mutation on a buffer")
        return to_edge(ep).to_executorch(config).buffer


def _device_export(module, example, target: str) -> bytes:
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.backend.test.device_util import DeviceAwarePartitioner

    ep = _export(module, example)
    edge = to_edge(ep).to_backend(DeviceAwarePartitioner(target))
    return edge.to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)).buffer


def build_device_add() -> bytes:
    import torch

    torch.manual_seed(0)
    Add = _models()[4]
    return _device_export(Add(), (torch.randn(2, 2), torch.randn(2, 2)), "cuda:0")


def build_device_mlp() -> bytes:
    import torch

    torch.manual_seed(0)
    DeviceMLP = _models()[5]
    return _device_export(DeviceMLP(), (torch.randn(2, 4), torch.randn(2, 4)), "cuda:0")


def build_device_cuda1() -> bytes:
    import torch

    torch.manual_seed(0)
    DeviceMLP = _models()[5]
    return _device_export(DeviceMLP(), (torch.randn(2, 4), torch.randn(2, 4)), "cuda:1")


def _portable_prefixes() -> list[tuple[str, str]]:
    """Absolute path prefixes in stack traces -> machine-independent replacements."""
    prefixes = []
    for path in {*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["purelib"]}:
        if path:
            prefixes.append((os.path.realpath(path) + os.sep, "<site-packages>/"))
            prefixes.append((path.rstrip(os.sep) + os.sep, "<site-packages>/"))
    stdlib = sysconfig.get_paths()["stdlib"]
    prefixes.append((os.path.realpath(stdlib) + os.sep, "<stdlib>/"))
    prefixes.append((stdlib.rstrip(os.sep) + os.sep, "<stdlib>/"))
    prefixes.append((str(ROOT) + os.sep, ""))
    prefixes.append((os.path.realpath(ROOT) + os.sep, ""))
    return sorted(set(prefixes), key=lambda p: -len(p[0]))  # longest first


def build_stacktrace() -> bytes:
    """The MLP with emit_stacktrace=True (per-instruction source frames in Chain.stacktrace).

    Portable only: with device copies the export fails, because the h2d/d2h copy nodes that
    PropagateDevicePass inserts carry no ``stack_trace`` meta (KeyError in the emitter).
    """
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge

    torch.manual_seed(0)
    MLP = _models()[0]
    edge = to_edge(_export(MLP(), (torch.randn(2, 4),)))
    prefixes = _portable_prefixes()
    for node in edge.exported_program().graph_module.graph.nodes:
        trace = node.meta.get("stack_trace")
        if trace:
            for old, new in prefixes:
                trace = trace.replace(old, new)
            node.meta["stack_trace"] = trace
    return edge.to_executorch(ExecutorchBackendConfig(emit_stacktrace=True)).buffer


# name -> (builder, model description, what it is for)
FIXTURE_SPECS: dict[str, tuple[Callable[[], bytes], str, str]] = {
    "mlp.pte": (build_mlp, "MLP Linear(4,8)-ReLU-Linear(8,3), x[2,4]",
                "portable kernels only, constants in segment 0, one CPU arena"),
    "xnnpack_mlp.pte": (build_xnnpack_mlp, "same MLP lowered with XnnpackPartitioner",
                        "one XnnpackBackend delegate, weights as named_data segments, an empty segment"),
    "two_methods.pte": (build_two_methods, "encode: Linear(4,2)+tanh; forward: Linear(2,4)+sigmoid*2",
                        "two execution plans (stored sorted by name)"),
    "mutable_state.pte": (build_mutable_state, "buffer `state` += x (initialised), `cache`.index_copy_(0, pos, x), Linear(3,3)",
                          "mutable buffer with initial state (data_buffer_idx>0 + allocation_info), fully-qualified names on CPU tensors, aten::copy_ (empty overload), int64 input"),
    "mutable_dedup_bug.pte": (build_mutable_dedup_bug, "buffer `state` (initialised, = Linear bias bytes) += x; Linear(3,3)",
                              "executorch bug: the mutable buffer reuses the constant's data_buffer_idx and no mutable_data_segments exist (dangling reference)"),
    "device_add.pte": (build_device_add, "x + y, add delegated by DeviceAwarePartitioner('cuda:0')",
                       "CPU + CUDA arenas, h2d/d2h copy kernels, target_device compile spec"),
    "device_mlp.pte": (build_device_mlp, "4 adds on cuda:0 mixed with CPU linear/relu/mul",
                       "several delegates and copies, a host tensor copied to the device twice, reused device slots, two outputs"),
    "device_cuda1.pte": (build_device_cuda1, "device_mlp with DeviceAwarePartitioner('cuda:1')",
                         "device_index = 1 actually written to the bytes"),
    "stacktrace.pte": (build_stacktrace, "the MLP, ExecutorchBackendConfig(emit_stacktrace=True)",
                       "Chain.stacktrace frames (paths made machine-independent)"),
}


# --------------------------------------------------------------------------------------------------
# Summaries (README table, expected.json), computed from executorch's own reader.
# --------------------------------------------------------------------------------------------------

def is_copy_op(op: str | None) -> bool:
    return bool(op) and op.startswith("et_copy::")


def summarize(view: dict) -> dict:
    """The small hand-checkable summary of one fixture that other tests use as data."""
    plans = {}
    for plan in view["plans"]:
        tensors = [v for v in plan["values"] if v["type"] == "Tensor"]
        plans[plan["name"]] = {
            "inputs": plan["inputs"],
            "outputs": plan["outputs"],
            "values": len(plan["values"]),
            "tensors": len(tensors),
            "instructions": len(plan["instructions"]),
            "arenas": [[b["memory_id"], b["size"], b["device"]] for b in plan["buffers"]],
            "tensors_per_device": dict(sorted(collections.Counter(t["device"] for t in tensors).items())),
            "tensors_per_storage": dict(sorted(collections.Counter(t["storage"] for t in tensors).items())),
            "copy_ops": [i["op"] for i in plan["instructions"] if i["kind"] == "KernelCall" and is_copy_op(i["op"])],
            "delegates": [d["id"] for d in plan["delegates"]],
            "target_devices": [d["compile_specs"].get("target_device") for d in plan["delegates"]],
            "named_tensors": {str(t["index"]): t["name"] for t in tensors if "name" in t},
        }
    return {
        "size": view["size"],
        "segments": len(view["segments"]),
        "plan_names": [p["name"] for p in view["plans"]],
        "plans": plans,
    }


def _exercises(summary: dict) -> str:
    parts = []
    for name, plan in summary["plans"].items():
        arenas = ", ".join(f"#{m} {s} B {d}" for m, s, d in plan["arenas"]) or "none"
        bits = [f"`{name}`: {plan['values']} values, {plan['instructions']} instrs; arenas {arenas}"]
        bits.append("tensors " + ", ".join(f"{d} {n}" for d, n in plan["tensors_per_device"].items()))
        bits.append("storage " + ", ".join(f"{s} {n}" for s, n in plan["tensors_per_storage"].items()))
        if plan["copy_ops"]:
            counts = collections.Counter(plan["copy_ops"])
            bits.append("copies " + ", ".join(f"{op.split('::')[1]}×{n}" for op, n in sorted(counts.items())))
        if plan["delegates"]:
            counts = collections.Counter(plan["delegates"])
            bits.append("delegates " + ", ".join(f"{d}×{n}" for d, n in counts.items()))
        if plan["named_tensors"]:
            bits.append("names " + ", ".join(plan["named_tensors"].values()))
        parts.append("; ".join(bits))
    return " — ".join(parts) + f"; {summary['segments']} segments"


def write_expected(reference) -> dict:
    expected = {}
    for name in FIXTURE_SPECS:
        expected[name] = summarize(reference.executorch_view(FIXTURES / name))
    path = FIXTURES / "expected.json"
    path.write_text(json.dumps(expected, indent=1, sort_keys=False) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")
    return expected


def write_readme(expected: dict, deterministic: dict[str, bool]) -> None:
    import executorch.version
    import torch

    lines = [
        "# Fixtures",
        "",
        "Real `.pte` files exported by ExecuTorch. **Generated — do not edit by hand**: run",
        "`python scripts/make_fixtures.py` (needs the `interop` extra:",
        f"torch {torch.__version__.split('+')[0]}, executorch {executorch.version.__version__.split('+')[0]}).",
        "`expected.json` is a summary of each file computed with executorch's own reader",
        "(`tests/reference.py`); `python scripts/make_fixtures.py --expected` rewrites only it.",
        f"`explorer/data/sample.pte` is a copy of `{SAMPLE_SOURCE}`.",
        "",
        "| file | model | exercises | contents (from executorch's reader) | bytes | deterministic |",
        "|---|---|---|---|---|---|",
    ]
    for name, (_, model, purpose) in FIXTURE_SPECS.items():
        summary = expected[name]
        det = "yes" if deterministic.get(name) else ("NO" if name in deterministic else "?")
        lines.append(f"| `{name}` | {model} | {purpose} | {_exercises(summary)} | {summary['size']} | {det} |")
    lines += [
        "",
        "\"deterministic\": exported twice in one process with byte-identical results; regenerating",
        "with the same torch/executorch versions overwrites every file with identical bytes (checked",
        "with `--check` in a fresh process). `stacktrace.pte` stores this script's line numbers, so",
        "editing the model classes in `scripts/make_fixtures.py` changes its bytes (and only its).",
        "",
        "## What these exports show (executorch 1.5.1)",
        "",
        "- Plans are stored sorted by name: `two_methods.pte` has `encode` before `forward`.",
        "- `mutable_state.pte`: `state` has `data_buffer_idx = 1` *and* `allocation_info` (arena 1)",
        "  and indexes `mutable_data_segments[0].offsets` (segment 1), while the constant weight",
        "  (value 0) also has `data_buffer_idx = 1`, into `constant_segment.offsets` (segment 0).",
        "  `cache` (no initial state) is planned with `data_buffer_idx = 0`. Both carry",
        "  `extra_tensor_info` (for the name) with device CPU. Initial state is only written for",
        "  buffers matched by `InitializedMutableBufferPass`; names only with",
        "  `emit_mutable_buffer_names=True`.",
        "- Device files: every delegate blob is a segment; the constant segment may be empty",
        "  (`{offset 0, size 0}`) and share offset 0 with the next segment. Copies are",
        "  `et_copy::_h2d_copy.out` / `_d2h_copy.out` with args `[src, dst, dst]`; in `device_mlp.pte`",
        "  input `x` and the CPU tensor `h` are each copied to the device twice, and the 128-byte",
        "  device arena holds 11 tensors in 4 reused 32-byte slots.",
        "- `mutable_dedup_bug.pte` is malformed *by executorch*: with `emit_mutable_buffer_names=True` a",
        "  mutable buffer whose initial bytes equal a constant's is deduplicated against the constant",
        "  table, so `state` gets the bias's `data_buffer_idx = 2` and no `mutable_data_segments` are",
        "  written (its initial state is lost). A checker should flag the dangling index. It also has",
        "  a *view*: value 6 (`float32[1,3]`) is `x` (value 3) unsqueezed by `exir.memory.view`, with",
        "  the same arena bytes and no instruction writing it - an alias, not a live overlap.",
        "- `device_cuda1.pte` writes `device_index = 1`; in `device_*` files with cuda:0 the index is",
        "  the schema default and is absent from the bytes.",
        "- Not possible with executorch 1.5.1: `emit_stacktrace=True` together with device copies",
        "  (KeyError `stack_trace` on the inserted copy nodes), and a device-delegated op reading a",
        "  parameter/buffer directly (the emitter fails on the h2d copy of a constant).",
        "",
    ]
    (FIXTURES / "README.md").write_text("\n".join(lines))
    print(f"wrote {(FIXTURES / 'README.md').relative_to(ROOT)}")


def export_all(write: bool) -> tuple[dict[str, bytes], dict[str, bool]]:
    outputs: dict[str, bytes] = {}
    deterministic: dict[str, bool] = {}
    for name, (builder, _, _) in FIXTURE_SPECS.items():
        first = bytes(builder())
        second = bytes(builder())
        deterministic[name] = first == second
        outputs[name] = first
        if len(first) > SIZE_BUDGET:
            print(f"warning: {name} is {len(first)} bytes (> {SIZE_BUDGET})", file=sys.stderr)
        if write:
            path = FIXTURES / name
            old = path.read_bytes() if path.exists() else None
            path.write_bytes(first)
            state = "new" if old is None else ("unchanged" if old == first else "CHANGED")
            print(f"{name:20s} {len(first):7d} bytes  {state}  deterministic={deterministic[name]}")
    return outputs, deterministic


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--expected", action="store_true", help="only rewrite tests/fixtures/expected.json")
    group.add_argument("--check", action="store_true", help="export in memory and compare with the files on disk")
    args = parser.parse_args(argv)

    reference = _load_reference()
    if args.expected:
        write_expected(reference)
        return 0

    FIXTURES.mkdir(parents=True, exist_ok=True)
    if args.check:
        outputs, _ = export_all(write=False)
        differing = [n for n, data in outputs.items()
                     if not (FIXTURES / n).exists() or (FIXTURES / n).read_bytes() != data]
        for name in differing:
            print(f"differs: {name}")
        print("all fixtures reproduce byte for byte" if not differing else f"{len(differing)} differ")
        return 1 if differing else 0

    _, deterministic = export_all(write=True)
    SAMPLE.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / SAMPLE_SOURCE, SAMPLE)
    print(f"copied {SAMPLE_SOURCE} -> {SAMPLE.relative_to(ROOT)}")
    expected = write_expected(reference)
    write_readme(expected, deterministic)
    print()
    print(f"| file | bytes | summary |")
    for name, summary in expected.items():
        print(f"| {name} | {summary['size']} | {_exercises(summary)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
