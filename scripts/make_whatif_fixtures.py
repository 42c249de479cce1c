"""Export the what-if placement fixtures under ``tests/fixtures/whatif/`` (issue 22): the SAME models, each
exported for every placement executorch 1.5.1 offers, plus a manifest pairing them.

    python scripts/make_whatif_fixtures.py          # (re)write the .pte files, manifest.json and README.md
    python scripts/make_whatif_fixtures.py --check  # export again in memory; exit 1 if any file differs

Needs the ``interop`` extra (torch 2.13.0, executorch 1.5.1); reading the files never does.

Placements (``VARIANTS``), all lowered with ``to_edge(...).to_backend(partitioner)`` and emitted with
``ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)`` so that only the placement differs (for the
all-CPU placements the flag changes no byte; the script checks that against the default config when writing):

* ``cpu_only``: ``CpuOnlyPartitioner()`` (exir/backend/test/device_util.py) - every ``aten.add`` delegated to
  ``BackendWithCompilerDemo`` with no ``target_device`` compile spec, so ``PropagateDevicePass`` leaves all on
  the CPU: the twin a what-if starts from.
* ``cuda0`` / ``cuda1``: ``DeviceAwarePartitioner("cuda:0" | "cuda:1")`` - the same regions with
  ``target_device``, so exir/passes/propagate_device_pass.py inserts the ``et_copy`` copies and memory planning
  makes one arena per device.
* ``cuda0_skip_h2d`` / ``cuda0_skip_d2h`` / ``cuda0_skip_both``: ``PropagateDeviceConfig``
  (exir/passes/propagate_device_config.py) ``skip_h2d_for_method_inputs`` with
  ``MemoryPlanningPass(alloc_graph_input=False)``, ``skip_d2h_for_method_outputs`` with
  ``alloc_graph_output=False``, and both. Where executorch refuses the export (``skip_h2d`` on a method input
  with several users raises in ``PropagateDevicePass._insert_h2d_copies``) no file is written and the manifest
  keeps the refusal (exception type and message) instead.
* ``portable``: no partitioner - every add is an ``aten::add.out`` kernel (for ``op:aten::add`` moves).

Every ``aten.add`` of the models reads activations or method inputs only: a device delegate reading a
parameter directly fails in executorch 1.5.1's emitter.

``manifest.json`` lists each entry with its model, partitioner, device, flags and - computed with
executorch's OWN reader (``tests/reference.py``, ``deserialize_pte_binary``), not with this tool - what the
file holds per method: tensors per device, planned tensors per device, ``et_copy`` copies per direction (count
and bytes of the copied source), arenas (memory id, device, bytes), delegates per target device, and the
devices of the method inputs and outputs. ``tests/test_whatif_fixtures.py`` checks our reader agrees.
Every file is exported twice in one process and must be byte-identical (deterministic); ``--check`` exports
once and compares with the files on disk (``tests/test_whatif_fixtures.py`` runs it as an interop test).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "whatif"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/fixture_io.py
from fixture_io import differing, write_all  # noqa: E402

CHAIN_REGIONS = 52  # adds in the chain model's loop, each separated from the next by a CPU op (+1 final add)


def _models() -> dict[str, tuple[str, Callable[[], dict]]]:
    """name -> (what it is, builder of {method name: (module, example inputs)}). Seeded per model."""
    import torch

    class Residual(torch.nn.Module):
        """Residual adds: ``a`` (a delegate output) feeds two later device regions and the CPU linear; the
        final region also reads the method input ``x`` again (two users: skip_h2d refuses)."""

        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x, y):
            a = x + y
            h = torch.relu(self.fc(a))
            b = h + a
            c = torch.sigmoid(b) + a
            return c + x

    class MultiOut(torch.nn.Module):
        """Several outputs: a delegate output returned AND read by a CPU op (``a``), a CPU output (``e``), a
        delegate output that only feeds the output (``f``); each method input has one user."""

        def forward(self, x, y, z):
            a = x + y
            r = torch.relu(a)
            b = r + z
            e = torch.sigmoid(b)
            f = e + a
            return a, f, e

    class Encode(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x, y):
            return torch.tanh(self.fc(x + y))

    class Decode(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(2, 4)

        def forward(self, x, y, z):
            r = torch.relu(self.fc(x) + y)
            return r + z, r

    class Chain(torch.nn.Module):
        """CHAIN_REGIONS adds, each followed by a CPU op (relu/sin/tanh/neg in turn), each reading the method
        input ``y`` again (y is copied to the device once per region), then a final add."""

        def forward(self, x, y):
            ops = (torch.relu, torch.sin, torch.tanh, torch.neg)
            for i in range(CHAIN_REGIONS):
                x = ops[i % len(ops)](x + y)
            return x + y

    class Reshape(torch.nn.Module):
        """A device delegate's output read through a static view (``reshape`` of a contiguous tensor becomes a
        ``memory.view``, no kernel) by a CPU op, and a CPU result's static view read by a device region; each
        method input has one user."""

        def forward(self, x, y, z):
            a = (x + y).reshape(8)
            r = torch.relu(a)
            return r.reshape(2, 4) + z

    class ViewOut(torch.nn.Module):
        """A device delegate's output feeding the method outputs through views: a static view read by a CPU op
        whose result is returned, a ``transpose`` (a ``permute_copy`` kernel) returned, and a ``view`` returned
        (a returned view stays a ``view_copy`` kernel); each method input has one user."""

        def forward(self, x, y):
            a = x + y
            return torch.relu(a.view(8)), a.transpose(0, 1), a.view(2, 2, 2)

    class Between(torch.nn.Module):
        """A CPU op independent of the first region (``relu(z)``) that ``to_backend`` places between the
        delegate call and its ``getitem``, so executorch emits it before the d2h copy of ``a``; ``a`` is returned
        as ``a.view(8)`` and read through ``transpose``; ``b`` (a delegate output) is returned only as
        ``b.view(8)``; each method input has one user."""

        def forward(self, x, y, z):
            a = x + y
            t = torch.sigmoid(a.transpose(0, 1))
            b = torch.tanh(a) + torch.relu(z)
            return a.view(8), t, b.view(8)

    def seeded(make: Callable[[], dict]) -> Callable[[], dict]:
        def build() -> dict:
            torch.manual_seed(0)
            return make()
        return build

    return {
        "residual": ("x+y, linear+relu, two residual adds reusing a, a final add reading x again; forward(x, y)",
                     seeded(lambda: {"forward": (Residual(), (torch.randn(2, 4), torch.randn(2, 4)))})),
        "multi_out": ("three outputs: a delegate output also read on the CPU, a CPU output, a device-only output; "
                      "forward(x, y, z)",
                      seeded(lambda: {"forward": (MultiOut(), (torch.randn(2, 4), torch.randn(2, 4),
                                                               torch.randn(2, 4)))})),
        "two_methods": ("two methods: encode(x, y) = tanh(fc(x+y)); forward(x, y, z) = (relu(fc(x)+y)+z, relu(...))",
                        seeded(lambda: {"encode": (Encode(), (torch.randn(2, 4), torch.randn(2, 4))),
                                        "forward": (Decode(), (torch.randn(2, 2), torch.randn(2, 4),
                                                               torch.randn(2, 4)))})),
        "chain": (f"{CHAIN_REGIONS + 1} separate add regions, alternating with relu/sin/tanh/neg on the CPU, each "
                  "reading the input y; forward(x, y)",
                  seeded(lambda: {"forward": (Chain(), (torch.randn(2, 4), torch.randn(2, 4)))})),
        "reshape": ("a delegate output read through a static view (reshape) by a CPU op, whose reshaped result "
                    "feeds a last region; forward(x, y, z) = relu((x+y).reshape(8)).reshape(2, 4) + z",
                    seeded(lambda: {"forward": (Reshape(), (torch.randn(2, 4), torch.randn(2, 4),
                                                            torch.randn(2, 4)))})),
        "view_out": ("a delegate output returned through views: relu(a.view(8)), a.transpose(0, 1) and "
                     "a.view(2, 2, 2) with a = x+y; forward(x, y)",
                     seeded(lambda: {"forward": (ViewOut(), (torch.randn(2, 4), torch.randn(2, 4)))})),
        "between": ("a CPU op independent of the first region (relu(z)) ordered between its delegate call and "
                    "getitem: a = x+y returned as a.view(8) and read through a transpose by sigmoid and by tanh; "
                    "b = tanh(a)+relu(z) returned only as b.view(8); forward(x, y, z)",
                    seeded(lambda: {"forward": (Between(), (torch.randn(2, 4), torch.randn(2, 4),
                                                            torch.randn(2, 4)))})),
    }


# variant -> (partitioner name or None, device or None, skip_h2d, skip_d2h)
VARIANTS: dict[str, tuple[str | None, str | None, bool, bool]] = {
    "cpu_only": ("CpuOnlyPartitioner", None, False, False),
    "cuda0": ("DeviceAwarePartitioner", "cuda:0", False, False),
    "cuda1": ("DeviceAwarePartitioner", "cuda:1", False, False),
    "cuda0_skip_h2d": ("DeviceAwarePartitioner", "cuda:0", True, False),
    "cuda0_skip_d2h": ("DeviceAwarePartitioner", "cuda:0", False, True),
    "cuda0_skip_both": ("DeviceAwarePartitioner", "cuda:0", True, True),
    "portable": (None, None, False, False),
}


def flags(variant: str) -> dict:
    """The ExecutorchBackendConfig / PropagateDeviceConfig / MemoryPlanningPass settings of a variant."""
    _, _, skip_h2d, skip_d2h = VARIANTS[variant]
    return {"enable_non_cpu_memory_planning": True,
            "skip_h2d_for_method_inputs": skip_h2d, "skip_d2h_for_method_outputs": skip_d2h,
            "alloc_graph_input": not skip_h2d, "alloc_graph_output": not skip_d2h}


def _partitioner(variant: str):
    from executorch.exir.backend.test.device_util import CpuOnlyPartitioner, DeviceAwarePartitioner

    name, device, _, _ = VARIANTS[variant]
    if name is None:
        return None
    return CpuOnlyPartitioner() if name == "CpuOnlyPartitioner" else DeviceAwarePartitioner(device)


def export(methods: dict, variant: str, default_config: bool = False) -> bytes:
    """Lower ``{method: (module, example)}`` for ``variant`` and emit it (raises what executorch raises).
    ``default_config``: emit with ``ExecutorchBackendConfig()`` instead (for the all-CPU placements)."""
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes import MemoryPlanningPass
    from executorch.exir.passes.propagate_device_config import PropagateDeviceConfig

    f = flags(variant)
    programs = {name: torch.export.export(module.eval(), example) for name, (module, example) in methods.items()}
    edge = to_edge(programs)
    partitioner = _partitioner(variant)
    if partitioner is not None:
        edge = edge.to_backend(partitioner)
    if default_config:
        return bytes(edge.to_executorch().buffer)
    config = ExecutorchBackendConfig(
        enable_non_cpu_memory_planning=f["enable_non_cpu_memory_planning"],
        propagate_device_config=PropagateDeviceConfig(skip_h2d_for_method_inputs=f["skip_h2d_for_method_inputs"],
                                                      skip_d2h_for_method_outputs=f["skip_d2h_for_method_outputs"]),
        memory_planning_pass=MemoryPlanningPass(alloc_graph_input=f["alloc_graph_input"],
                                                alloc_graph_output=f["alloc_graph_output"]))
    return bytes(edge.to_executorch(config).buffer)


def summary(data: bytes) -> dict:
    """What the file holds, per method, read with executorch's own reader (tests/reference.py)."""
    from reference import executorch_view

    with tempfile.NamedTemporaryFile(suffix=".pte") as tmp:
        tmp.write(data)
        tmp.flush()
        view = executorch_view(tmp.name)
    methods = {}
    for plan in view["plans"]:
        values = plan["values"]
        tensors = [v for v in values if v["type"] == "Tensor"]
        copies: dict[str, dict[str, int]] = {"h2d": {"count": 0, "bytes": 0}, "d2h": {"count": 0, "bytes": 0}}
        for ins in plan["instructions"]:
            if ins["kind"] == "KernelCall" and ins["op"] in ("et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"):
                way = "h2d" if "h2d" in ins["op"] else "d2h"
                copies[way]["count"] += 1
                copies[way]["bytes"] += values[ins["args"][0]]["nbytes"]
        targets = Counter(d["compile_specs"].get("target_device", "none") for d in plan["delegates"])

        def device_of(i: int) -> str:
            return values[i]["device"] if values[i]["type"] == "Tensor" else values[i]["type"]

        methods[plan["name"]] = {
            "values": len(values),
            "instructions": len(plan["instructions"]),
            "tensors": dict(sorted(Counter(t["device"] for t in tensors).items())),
            "planned": dict(sorted(Counter(t["device"] for t in tensors if t["memory_id"] is not None).items())),
            "copies": copies,
            "arenas": [{"memory_id": b["memory_id"], "device": b["device"], "bytes": b["size"]}
                       for b in plan["buffers"]],
            "delegates": dict(sorted(targets.items())),
            "kernels": dict(sorted(Counter(i["op"] for i in plan["instructions"] if i["kind"] == "KernelCall").items())),
            # a device tensor nothing allocates: not planned, not a method input/output (executorch 1.5.1 leaves
            # one behind when skip_d2h + alloc_graph_output=False meet a delegate output that is both returned
            # and read by a host op - the output spec is never refreshed after the d2h copy is inserted)
            "unplanned_device": [t["index"] for t in tensors if t["device"] != "cpu" and t["memory_id"] is None
                                 and t["index"] not in plan["inputs"] + plan["outputs"]],
            "inputs": [device_of(i) for i in plan["inputs"]],
            "outputs": [device_of(i) for i in plan["outputs"]],
        }
    return methods


def build_all(twice: bool = True) -> tuple[dict[str, bytes], dict]:
    """Every file's bytes and the manifest. ``twice``: export each file twice and raise unless the two are
    byte-identical (``--check`` exports once: the comparison with the files on disk, written by another
    process, is the stronger determinism test)."""
    files: dict[str, bytes] = {}
    entries = []
    for model, (what, make) in _models().items():
        for variant, (partitioner, device, _, _) in VARIANTS.items():
            entry = {"model": model, "variant": variant, "partitioner": partitioner, "device": device,
                     "flags": flags(variant)}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    first = export(make(), variant)
                    second = export(make(), variant) if twice else first
            except Exception as exc:  # executorch refused this placement: keep its reason, write no file
                entry.update(file=None, refused={"type": type(exc).__name__, "message": str(exc)})
                entries.append(entry)
                continue
            if first != second:
                raise RuntimeError(f"{model}/{variant}: two exports in one process differ")
            if twice and device is None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if export(make(), variant, default_config=True) != first:
                        raise RuntimeError(f"{model}/{variant}: enable_non_cpu_memory_planning changed an all-CPU "
                                           "export")
            name = f"{model}_{variant}.pte"
            files[name] = first
            entry.update(file=name, bytes=len(first), methods=summary(first))
            entries.append(entry)
    manifest = {
        "generator": "scripts/make_whatif_fixtures.py",
        "versions": {"torch": "2.13.0", "executorch": "1.5.1"},
        "models": {model: what for model, (what, _) in _models().items()},
        "entries": entries,
    }
    files["manifest.json"] = (json.dumps(manifest, indent=1, sort_keys=False) + "\n").encode()
    files["README.md"] = readme(manifest).encode()
    return files, manifest


def _methods_line(methods: dict) -> str:
    parts = []
    for name, m in methods.items():
        arenas = ", ".join(f"{a['bytes']} B {a['device']}" for a in m["arenas"])
        parts.append(f"`{name}`: {m['values']} values, {m['instructions']} instrs, h2d×{m['copies']['h2d']['count']} "
                     f"d2h×{m['copies']['d2h']['count']}, arenas {arenas or 'none'}")
    return "; ".join(parts)


def readme(manifest: dict) -> str:
    rows = []
    for e in manifest["entries"]:
        if e["file"] is None:
            rows.append(f"| — | {e['model']} | {e['variant']} | refused by executorch: `{e['refused']['type']}` "
                        f"({e['refused']['message'].split('.')[0]}) |")
        else:
            rows.append(f"| `{e['file']}` | {e['model']} | {e['variant']} | {_methods_line(e['methods'])} |")
    models = "\n".join(f"- `{m}`: {what}" for m, what in manifest["models"].items())
    variants = "\n".join(f"- `{v}`: {p or 'no partitioner'}{f'({d!r})' if d else '()' if p else ''}, "
                         + ", ".join(f"{k}={val}" for k, val in flags(v).items() if k != "enable_non_cpu_memory_planning")
                         for v, (p, d, _, _) in VARIANTS.items())
    table = "\n".join(rows)
    return f"""# What-if placement fixtures

**Generated — do not edit by hand**: `python scripts/make_whatif_fixtures.py` (torch 2.13.0, executorch 1.5.1;
`--check` re-exports in memory and compares). Each model is exported once per placement, so a what-if made
from one file can be compared with executorch's own export of the other placement. `manifest.json` pairs
them: model, variant, partitioner, device, flags, and (from executorch's reader) per method the tensors and
planned tensors per device, the `et_copy` copies per direction with bytes, the arenas, the delegates per
target device, the devices of the method inputs/outputs, and `unplanned_device`: the device tensors that are
neither planned nor a method input/output. Every export is emitted with
`ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)`; the `cpu_only` and `portable` files are
byte-identical to exports with the default `ExecutorchBackendConfig()` (the script checks it when writing).

`unplanned_device` is non-empty only in `multi_out_cuda0_skip_d2h.pte` and `multi_out_cuda0_skip_both.pte`,
and it is executorch's doing: the delegate output `a` is both returned and read by `relu`; with
`skip_d2h_for_method_outputs` its d2h copy stays (a host op reads it) and becomes the method output, but the
output node's spec was taken before the copy was inserted, so `MemoryPlanningPass(alloc_graph_output=False)`
skips the device tensor `a` instead of the copy. Nothing allocates `a`, yet the first delegate writes it and
the last one reads it; `device-explorer check` reports it as `unplanned-device-tensor` (as for
`../faults/real_paired_skip_unplanned.pte`). Every other file gets no finding.

`reshape` and `view_out` read a device delegate's output through a static view (`memory.view`: a tensor on the
d2h copy's own bytes), so a prediction must number the copy and its view as the emitter does. `between` is the
case `explorer.what_if` gets wrong (pinned in `tests/test_whatif_fixtures_predict.py`, `KNOWN_WRONG`): `to_backend`
orders the independent `relu(z)` between the first delegate call and its `getitem`, so executorch emits `relu`
before that output's d2h copy, while the prediction emits the copy right after the call.

Models:
{models}

Placements:
{variants}

| file | model | placement | contents (executorch's reader) |
|---|---|---|---|
{table}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="export in memory and compare with the files on disk")
    args = parser.parse_args(argv)
    files, _ = build_all(twice=not args.check)
    if args.check:
        on_disk = {p.name for p in OUT.glob("*")} if OUT.exists() else set()
        bad = differing(OUT, files)
        for n in sorted(on_disk - set(files)):  # stale files a regeneration would not write
            print(f"differs: {OUT / n}")
            bad.append(n)
        print("all what-if fixtures reproduce byte for byte" if not bad else f"{len(bad)} differ")
        return 1 if bad else 0
    for stale in set(p.name for p in OUT.glob("*")) - set(files) if OUT.exists() else ():
        (OUT / stale).unlink()
    write_all(OUT, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
