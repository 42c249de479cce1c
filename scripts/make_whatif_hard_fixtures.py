"""Export the second, harder what-if corpus under ``tests/fixtures/whatif_hard/`` (issue 31): twins of one model
exported by executorch 1.5.1 for several placements, and the cases pairing them (a source export, moves and
flags, and the export executorch makes for that placement, or the exception it raises).

    python scripts/make_whatif_hard_fixtures.py          # (re)write the .pte files, cases.json and README.md
    python scripts/make_whatif_hard_fixtures.py --check  # export again in memory; exit 1 if any file differs

Needs the ``interop`` extra (torch 2.13.0, executorch 1.5.1); reading the files never does.

What the first corpus (scripts/make_whatif_fixtures.py) does not have, each in at least one case: two devices at
once (one partitioner per device, run one after the other as ``to_backend`` does), partial delegate moves (one
delegate to cuda:0, the others left CPU delegates: a CPU delegate reading a device delegate's output), every
selector kind (``delegate:*``, ``delegate:N``, ``delegate:BACKEND``, ``op:``, ``@N``, ``group:``), several mutable
buffers (float and int64) written back at the end, views/slices/transposes around delegates, a dynamic batch
dimension, multi-output ops (``topk``, ``split``) feeding delegates, int64 and bool tensors, a delegate output used
as a method output, by CPU ops and by another delegate, an attention block whose Linear weights a module move
captures (both conventions: the partitioner owns them, ``tag_constant_data``, or leaves them as arguments), the
skip flags on two devices, and placements executorch refuses.

Placements are lowering recipes: a list of ``Pick`` partitioners applied one after the other
(``edge.to_backend(p1).to_backend(p2)``), each a ``generate_pattern_op_partitions`` partitioner (as
``DeviceAwarePartitioner`` of ``exir/backend/test/device_util.py``) over the nodes it picks (by edge operator, by
node name or by module path), delegating to ``AnyOpDemo`` (a test backend defined here that takes any op, since
``BackendWithCompilerDemo`` takes only a few), with a ``target_device`` compile spec per partition or none. Every
placement is emitted with ``ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)`` and the case's
``PropagateDeviceConfig`` / ``MemoryPlanningPass`` flags.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "whatif_hard"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/fixture_io.py
from fixture_io import differing, write_all  # noqa: E402

def _models() -> dict[str, tuple[str, Callable[[], tuple], dict]]:
    """name -> (what it is, builder of (module, example inputs, dynamic shapes or None), placements)."""
    import torch
    from torch.export import Dim

    class TwoDev(torch.nn.Module):
        """adds for cuda:0 and sins for cuda:1; ``a`` feeds a sin delegate, a CPU relu and a later add."""

        def forward(self, x, y, z):
            a = x + y
            b = torch.sin(a)
            c = torch.relu(b) + a
            d = torch.sin(c) + z
            return d, b

    class Uses(torch.nn.Module):
        """A delegate output used as a method output, by a CPU op and by another delegate (sin), plus an
        independent bool op (``logical_or``) the re-sort lands between a delegate call and its output."""

        def forward(self, x, y, z):
            a = x + y
            m = torch.logical_or(z > 0, x > 1)
            r = torch.relu(a)
            s = torch.sin(a)
            return a, r, s + z, m

    class Buffers(torch.nn.Module):
        """Three mutable buffers (float cache, float accumulator, int64 counter), written back at the end."""

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("cache", torch.zeros(2, 4))
            self.register_buffer("acc", torch.zeros(2, 4))
            self.register_buffer("count", torch.zeros(1, dtype=torch.int64))

        def forward(self, x, y):
            h = x + self.cache
            self.cache.copy_(h)
            g = torch.tanh(h) + y
            self.acc.add_(g)
            self.count.add_(1)
            return g * 2, self.count + 0

    class Views(torch.nn.Module):
        """Views, slices and transposes around delegates: a delegate output viewed, sliced and transposed by CPU
        ops, a delegate reading a transposed and a sliced tensor."""

        def forward(self, x, y):
            a = x + y
            t = a.transpose(0, 1)
            s = a[:, 2:]
            b = t.contiguous().view(4, 4) + torch.ones(4, 4)
            c = s + y[:, :2]
            return b.view(16), torch.relu(c), a.view(4, 4)

    class Dynamic(torch.nn.Module):
        """A dynamic batch dimension (upper bound 8): every tensor planned at its bound."""

        def forward(self, x, y):
            a = x + y
            r = torch.relu(a)
            return r + x, torch.sin(a)

    class MultiOut(torch.nn.Module):
        """topk (values and int64 indices) and split feeding delegates."""

        def forward(self, x, y):
            v, i = torch.topk(x, 2)
            s0, s1 = torch.split(y, 2, dim=1)
            a = v + s0
            b = torch.sin(s1) + a
            return a, i, b

    class Attention(torch.nn.Module):
        """A small attention block: q/k/v/out Linear layers around scaled_dot_product_attention."""

        def __init__(self) -> None:
            super().__init__()
            self.q = torch.nn.Linear(8, 8)
            self.k = torch.nn.Linear(8, 8)
            self.v = torch.nn.Linear(8, 8)
            self.out = torch.nn.Linear(8, 8)

        def forward(self, x):
            q, k, v = self.q(x), self.k(x), self.v(x)
            h = torch.nn.functional.scaled_dot_product_attention(q, k, v)
            return self.out(h) + x

    def seeded(make: Callable[[], tuple]) -> Callable[[], tuple]:
        def build() -> tuple:
            torch.manual_seed(0)
            return make()
        return build

    r = torch.randn
    batch = Dim("batch", min=1, max=8)
    add, sin = "op:aten.add.Tensor", "op:aten.sin.default"
    adds3 = "node:aten_add_tensor,aten_add_tensor_1,aten_add_tensor_2"  # the adds that read no constant
    return {
        "two_dev": (TwoDev.__doc__, seeded(lambda: (TwoDev(), (r(2, 4), r(2, 4), r(2, 4)), None)), {
            "portable": [],
            "cpu": [(add, None, False), (sin, None, False)],
            "two": [(add, "cuda:0", False), (sin, "cuda:1", False)],
            "add0": [(add, "cuda:0", False), (sin, None, False)],
            "sin1": [(add, None, False), (sin, "cuda:1", False)],
            "add0only": [(add, "cuda:0", False)],
        }),
        "uses": (Uses.__doc__, seeded(lambda: (Uses(), (r(2, 4), r(2, 4), r(2, 4)), None)), {
            "portable": [],
            "cpu": [(add, None, False), (sin, None, False)],
            "add0": [(add, "cuda:0", False), (sin, None, False)],
            "two": [(add, "cuda:0", False), (sin, "cuda:1", False)],
        }),
        "buffers": (Buffers.__doc__, seeded(lambda: (Buffers(), (r(2, 4), r(2, 4)), None)), {
            "portable": [],
            "add0": [(adds3, "cuda:0", False)],
            "cpu": [(adds3, None, False)],
            "all0": [(add, "cuda:0", False)],  # count.add_(1) and count + 0 read a lifted constant: refused
        }),
        "views": (Views.__doc__, seeded(lambda: (Views(), (r(4, 4), r(4, 4)), None)), {
            "portable": [],
            "cpu": [(add, None, False)],
            "add0": [(add, "cuda:0", False)],
        }),
        "dynamic": (Dynamic.__doc__, seeded(lambda: (Dynamic(), (r(2, 4), r(2, 4)),
                                                      ({0: batch}, {0: batch}))), {
            "portable": [],
            "cpu": [(add, None, False), (sin, None, False)],
            "two": [(add, "cuda:0", False), (sin, "cuda:1", False)],
        }),
        "multi_out": (MultiOut.__doc__, seeded(lambda: (MultiOut(), (r(2, 4), r(2, 4)), None)), {
            "portable": [],
            "cpu": [(add, None, False)],
            "add0": [(add, "cuda:0", False)],
        }),
        "attention": (Attention.__doc__, seeded(lambda: (Attention(), (r(1, 4, 8),), None)), {
            "portable": [],
            "q_owned": [("module:q", "cuda:0", True)],
            "q_args": [("module:q", "cuda:0", False)],
            "out_owned": [("module:out", "cuda:0", True)],
        }),
    }


def _backend():
    """``AnyOpDemo``: a test backend that takes any graph (its blob: the ops it was given, one per line)."""
    from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult

    existing = next((c for c in BackendDetails.__subclasses__() if c.__name__ == "AnyOpDemo"), None)
    if existing is not None:
        return existing

    class AnyOpDemo(BackendDetails):
        @staticmethod
        def preprocess(edge_program, compile_specs) -> PreprocessResult:
            ops = [str(n.target) for n in edge_program.graph.nodes if n.op == "call_function"]
            return PreprocessResult(processed_bytes="\n".join(ops).encode())

    _KEEP.append(AnyOpDemo)  # executorch finds backends among BackendDetails.__subclasses__() (weak references)
    return AnyOpDemo


_KEEP: list = []


def _partitioner(pick: str, device, own: bool):
    from executorch.exir.backend.canonical_partitioners.pattern_op_partitioner import generate_pattern_op_partitions
    from executorch.exir.backend.compile_spec_schema import CompileSpec
    from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
    from executorch.exir.backend.utils import tag_constant_data
    from torch.fx.passes.operator_support import OperatorSupportBase

    kind, _, arg = pick.partition(":")
    backend = _backend().__name__

    def picked(node) -> bool:
        if node.op != "call_function" or "getitem" in str(node.target):
            return False
        if kind == "op":
            return getattr(node.target, "__name__", str(node.target)) == arg
        if kind == "node":
            return node.name in arg.split(",")
        stack = node.meta.get("nn_module_stack") or {}
        return any(path == arg or path.startswith(arg + ".") for path, _ in stack.values())

    class Support(OperatorSupportBase):
        def is_node_supported(self, submodules, node) -> bool:
            return picked(node)

    def spec(dev):
        specs = [CompileSpec("max_value", bytes([4]))]
        if dev is not None:
            specs.append(CompileSpec("target_device", dev.encode("utf-8")))
        return DelegationSpec(backend, specs)

    class Pick(Partitioner):
        def partition(self, exported_program) -> PartitionResult:
            tags = {}
            for part in generate_pattern_op_partitions(exported_program.graph_module, op_support=Support()):
                tag = f"tag{part.id}"
                names = sorted(n.name for n in part.nodes)
                dev = device if not isinstance(device, dict) else next(
                    (device[n] for n in names if n in device), device.get("*"))
                for node in part.nodes:
                    node.meta["delegation_tag"] = tag
                tags[tag] = spec(dev)
            if own:
                tag_constant_data(exported_program)
            return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)

    return Pick()


# case: (model, source placement, target placement, moves, flags). flags: skip_h2d, skip_d2h (each with its
# MemoryPlanningPass alloc flag turned off, as the first corpus pairs them)
CASES: list[tuple[str, str, str, list[str], tuple[bool, bool]]] = [
    # two devices at once, every selector kind (two_dev's delegates: 0, 2, 4 the adds, 1, 3 the sins)
    ("two_dev", "portable", "two", ["op:aten::add=cuda:0", "op:aten::sin=cuda:1"], (False, False)),
    ("two_dev", "cpu", "two", ["delegate:0=cuda:0", "@3=cuda:0", "delegate:4=cuda:0", "delegate:1=cuda:1", "@4=cuda:1"],
     (False, False)),
    ("two_dev", "two", "cpu", ["delegate:*=cpu"], (False, False)),
    ("two_dev", "cpu", "two", ["delegate:AnyOpDemo=cuda:0", "delegate:1=cuda:1", "delegate:3=cuda:1"], (False, True)),
    ("two_dev", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1", "delegate:3=cuda:1"], (True, True)),
    # partial moves: one partitioner's delegates on a device, the other's CPU delegates reading their outputs
    ("two_dev", "cpu", "add0", ["delegate:0=cuda:0", "delegate:2=cuda:0", "delegate:4=cuda:0"], (False, False)),
    ("two_dev", "cpu", "sin1", ["delegate:1=cuda:1", "delegate:3=cuda:1"], (False, False)),
    ("two_dev", "two", "add0", ["delegate:1=cpu", "delegate:3=cpu"], (False, False)),
    ("two_dev", "portable", "add0only", ["op:add=cuda:0"], (False, False)),
    ("uses", "cpu", "add0", ["delegate:0=cuda:0", "delegate:2=cuda:0"], (False, False)),
    ("uses", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1"], (False, False)),
    ("uses", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1"], (False, True)),
    ("uses", "two", "cpu", ["delegate:*=cpu"], (False, False)),
    ("uses", "portable", "two", ["op:aten::add.out=cuda:0", "op:sin=cuda:1"], (False, False)),
    # mutable buffers (float, float, int64): write-backs stay at the end; @0 @2 @3 are the adds reading no constant
    ("buffers", "portable", "add0", ["@0=cuda:0", "@2=cuda:0", "@3=cuda:0"], (False, False)),
    ("buffers", "cpu", "add0", ["delegate:*=cuda:0"], (False, False)),
    ("buffers", "add0", "cpu", ["delegate:AnyOpDemo=cpu"], (False, False)),
    # views, slices, transposes
    ("views", "cpu", "add0", ["delegate:*=cuda:0"], (False, False)),
    ("views", "portable", "add0", ["op:aten::add=cuda:0"], (False, False)),
    ("views", "add0", "cpu", ["delegate:*=cpu"], (False, False)),
    # a dynamic dimension (delegates 0 and 2 the adds, 1 the sin)
    ("dynamic", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1"], (False, False)),
    ("dynamic", "portable", "two", ["op:aten::add=cuda:0", "op:aten::sin=cuda:1"], (False, False)),
    ("dynamic", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1"], (False, True)),
    # multi-output ops feeding delegates, int64 indices
    ("multi_out", "cpu", "add0", ["delegate:*=cuda:0"], (False, False)),
    ("multi_out", "portable", "add0", ["op:aten::add=cuda:0"], (False, False)),
    ("multi_out", "cpu", "add0", ["delegate:*=cuda:0"], (False, True)),
    # module moves that capture parameters (the partitioner owns them: tag_constant_data)
    ("attention", "portable", "q_owned", ["group:q=cuda:0"], (False, False)),
    ("attention", "portable", "out_owned", ["group:out=cuda:0"], (False, False)),
    # refusals: weights left as delegate arguments, a lifted constant read by a device delegate, skip_h2d on
    # inputs with several users (two devices)
    ("attention", "portable", "q_args", ["group:q=cuda:0"], (False, False)),
    ("buffers", "portable", "all0", ["op:aten::add=cuda:0"], (False, False)),
    ("two_dev", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1", "delegate:3=cuda:1"], (True, False)),
    ("uses", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1"], (True, False)),
    ("dynamic", "cpu", "two", ["delegate:*=cuda:0", "delegate:1=cuda:1"], (True, False)),
]


def export(model: str, placement: str, skip_h2d: bool = False, skip_d2h: bool = False, etrecord: bool = False):
    """Lower ``model`` for ``placement`` and emit it with the flags (raises what executorch raises). ``etrecord``:
    return ``(program, ETRecord)``, the ETRecord saved as scripts/make_etrecord_fixtures.py saves it (for
    ``group:`` moves by module path)."""
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes import MemoryPlanningPass
    from executorch.exir.passes.propagate_device_config import PropagateDeviceConfig

    _, make, placements = _models()[model]
    module, example, dynamic = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        edge = to_edge(torch.export.export(module.eval(), example, dynamic_shapes=dynamic),
                       generate_etrecord=etrecord)
        for pick, device, own in placements[placement]:
            edge = edge.to_backend(_partitioner(pick, device, own))
        config = ExecutorchBackendConfig(
            enable_non_cpu_memory_planning=True,
            propagate_device_config=PropagateDeviceConfig(skip_h2d_for_method_inputs=skip_h2d,
                                                          skip_d2h_for_method_outputs=skip_d2h),
            memory_planning_pass=MemoryPlanningPass(alloc_graph_input=not skip_h2d,
                                                    alloc_graph_output=not skip_d2h))
        manager = edge.to_executorch(config)
        if etrecord:
            from make_etrecord_fixtures import etrecord_bytes

            return bytes(manager.buffer), etrecord_bytes(manager)
        return bytes(manager.buffer)


def _file(model: str, placement: str, skip: tuple[bool, bool]) -> str:
    suffix = {(False, False): "", (True, False): "_skip_h2d", (False, True): "_skip_d2h", (True, True): "_skip_both"}
    return f"{model}_{placement}{suffix[skip]}.pte"


def build_all() -> tuple[dict[str, bytes], dict]:
    files: dict[str, bytes] = {}
    cases = []
    for model, source, target, moves, skip in CASES:
        owned = any(own for _, _, own in _models()[model][2][target])
        case = {"model": model, "source": _file(model, source, (False, False)), "moves": moves,
                "constants": "owned" if owned else "arguments",
                "skip_h2d": skip[0], "skip_d2h": skip[1], "target": None, "refused": None}
        if any(m.startswith("group:") for m in moves):  # module paths come from the source's ETRecord
            case["etrecord"] = case["source"].replace(".pte", ".etrecord")
        if case["source"] not in files:
            if "etrecord" in case:
                files[case["source"]], files[case["etrecord"]] = export(model, source, etrecord=True)
            else:
                files[case["source"]] = export(model, source)
        name = _file(model, target, skip)
        try:
            if name not in files:
                files[name] = export(model, target, *skip)
            case["target"] = name
        except Exception as exc:  # executorch refused this placement: keep its reason, write no file
            case["refused"] = {"type": type(exc).__name__, "message": str(exc).strip().splitlines()[0][:300]}
        cases.append(case)
    doc = {"generator": "scripts/make_whatif_hard_fixtures.py", "versions": {"torch": "2.13.0", "executorch": "1.5.1"},
           "models": {m: " ".join((what or "").split()) for m, (what, _, _) in _models().items()},
           "placements": {m: {p: [list(x) for x in recipe] for p, recipe in pl.items()}
                          for m, (_, _, pl) in _models().items()},
           "cases": cases}
    files["cases.json"] = (json.dumps(doc, indent=1) + "\n").encode()
    files["README.md"] = _readme(doc).encode()
    return files, doc


def _readme(doc: dict) -> str:
    rows = "\n".join(f"| `{c['source']}` | `{' '.join(c['moves'])}` | {'skip_h2d ' if c['skip_h2d'] else ''}"
                     f"{'skip_d2h' if c['skip_d2h'] else ''} | "
                     + (f"`{c['target']}`" if c["target"] else f"refused: `{c['refused']['type']}`") + " |"
                     for c in doc["cases"])
    models = "\n".join(f"- `{m}`: {what}" for m, what in doc["models"].items())
    return f"""# The harder what-if corpus

**Generated — do not edit by hand**: `python scripts/make_whatif_hard_fixtures.py` (torch 2.13.0, executorch
1.5.1; `--check` re-exports in memory and compares). `cases.json` lists each case: a source export, the moves
(and skip flags, each with its `MemoryPlanningPass` alloc flag off), and executorch's own export of that
placement (`target`) or the exception executorch raised (`refused`). `placements` gives each placement's
partitioners, run one after the other: (what they pick, target device, whether they own the constants with
`tag_constant_data`). `tests/test_whatif_hard.py` requires each prediction to equal its target value by value.

Models:
{models}

| source | moves | flags | executorch |
|---|---|---|---|
{rows}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="export in memory and compare with the files on disk")
    args = parser.parse_args(argv)
    files, _ = build_all()
    if args.check:
        on_disk = {p.name for p in OUT.glob("*")} if OUT.exists() else set()
        from make_etrecord_fixtures import stable_members

        records = {n: files.pop(n) for n in list(files) if n.endswith(".etrecord")}
        bad = differing(OUT, files)
        for n, data in records.items():  # an ETRecord is a zip: compare what executorch reads of it
            if not (OUT / n).exists() or stable_members((OUT / n).read_bytes()) != stable_members(data):
                print(f"differs: {OUT / n}")
                bad.append(n)
        files.update(records)
        for n in sorted(on_disk - set(files)):
            print(f"differs: {OUT / n}")
            bad.append(n)
        print("all hard what-if fixtures reproduce byte for byte" if not bad else f"{len(bad)} differ")
        return 1 if bad else 0
    for stale in {p.name for p in OUT.glob("*")} - set(files) if OUT.exists() else ():
        (OUT / stale).unlink()
    write_all(OUT, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
