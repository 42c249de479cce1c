"""The what-if placement fixtures (tests/fixtures/whatif/, scripts/make_whatif_fixtures.py) hold what their
manifest claims, read with OUR reader, so a broken regeneration (or a reader regression) is caught before
the what-if tests compare predictions with them. The manifest's per-method summary was computed at export
time with executorch's own reader (tests/reference.py); here it is recomputed from ``explorer.load`` alone,
so this file needs neither torch nor executorch.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import explorer
from explorer.model.program import Tensor

WHATIF = Path(__file__).parent / "fixtures" / "whatif"
MANIFEST = json.loads((WHATIF / "manifest.json").read_text())
ENTRIES = MANIFEST["entries"]
FILES = [e for e in ENTRIES if e["file"] is not None]
COPY_OPS = {"et_copy::_h2d_copy.out": "h2d", "et_copy::_d2h_copy.out": "d2h"}


def _summary(plan) -> dict:
    """The manifest's per-method summary, from our model of the plan."""
    values = plan.values
    tensors = [v for v in values if isinstance(v, Tensor)]
    copies = {"h2d": {"count": 0, "bytes": 0}, "d2h": {"count": 0, "bytes": 0}}
    kernels: Counter = Counter()
    for ins in plan.instructions:
        if ins.kind != "KernelCall":
            continue
        kernels[ins.op] += 1
        if ins.op in COPY_OPS:
            way = copies[COPY_OPS[ins.op]]
            way["count"] += 1
            way["bytes"] += values[ins.args[0]].nbytes
    targets = Counter(str(d.target_device) if d.target_device is not None else "none" for d in plan.delegates)

    def device_of(i: int) -> str:
        v = values[i]
        return str(v.device) if isinstance(v, Tensor) else v.type

    return {
        "values": len(values),
        "instructions": len(plan.instructions),
        "tensors": dict(sorted(Counter(str(t.device) for t in tensors).items())),
        "planned": dict(sorted(Counter(str(t.device) for t in tensors if t.memory_id is not None).items())),
        "copies": copies,
        "arenas": [{"memory_id": b.memory_id, "device": str(b.device), "bytes": b.size} for b in plan.buffers],
        "delegates": dict(sorted(targets.items())),
        "kernels": dict(sorted(kernels.items())),
        "unplanned_device": [t.index for t in tensors if not t.device.is_cpu and t.memory_id is None
                             and t.index not in plan.inputs + plan.outputs],
        "inputs": [device_of(i) for i in plan.inputs],
        "outputs": [device_of(i) for i in plan.outputs],
    }


def _load(entry):
    return explorer.load(WHATIF / entry["file"])


def test_manifest_and_folder_agree():
    on_disk = {p.name for p in WHATIF.glob("*.pte")}
    assert on_disk == {e["file"] for e in FILES}
    # every model is there in every placement (a file, or executorch's refusal)
    variants = {e["variant"] for e in ENTRIES}
    assert variants == {"cpu_only", "cuda0", "cuda1", "cuda0_skip_h2d", "cuda0_skip_d2h", "cuda0_skip_both", "portable"}
    for model in MANIFEST["models"]:
        assert {e["variant"] for e in ENTRIES if e["model"] == model} == variants, model
    for e in FILES:
        assert (WHATIF / e["file"]).stat().st_size == e["bytes"] < 64 * 1024, e["file"]


@pytest.mark.parametrize("entry", FILES, ids=lambda e: e["file"])
def test_file_holds_what_the_manifest_says(entry):
    program = _load(entry)
    assert {p.name: _summary(p) for p in program.plans} == entry["methods"]


@pytest.mark.parametrize("entry", FILES, ids=lambda e: e["file"])
def test_placement_matches_the_partitioner(entry):
    """What each placement must look like, from the manifest's partitioner/device/flags alone."""
    program = _load(entry)
    device, f = entry["device"], entry["flags"]
    for plan in program.plans:
        devices = {str(t.device) for t in plan.tensors}
        copies = Counter(COPY_OPS[i.op] for i in plan.instructions if i.kind == "KernelCall" and i.op in COPY_OPS)
        arenas = [str(b.device) for b in plan.buffers]
        if device is None:  # cpu-only partitioner or portable: nothing leaves the host
            assert devices == {"cpu"} and not copies and arenas == ["cpu"], plan.name
            assert all(d.target_device is None for d in plan.delegates)
        else:
            assert devices == {"cpu", device}, plan.name
            assert plan.delegates and {str(d.target_device) for d in plan.delegates} == {device}
            assert copies["d2h"] > 0, plan.name  # every model has a delegate output read on the host
            assert arenas == ["cpu", device], plan.name  # CPU arena first, then the device's
            inputs = [str(plan.values[i].device) for i in plan.inputs]
            if f["skip_h2d_for_method_inputs"]:
                assert device in inputs, plan.name
            else:
                assert set(inputs) == {"cpu"} and copies["h2d"] > 0, plan.name
            if not f["skip_d2h_for_method_outputs"]:
                assert {str(plan.values[i].device) for i in plan.outputs} == {"cpu"}, plan.name
        if entry["partitioner"] is None:
            assert not plan.delegates and any(i.op == "aten::add.out" for i in plan.instructions)
        else:
            assert plan.delegates and not any(i.op == "aten::add.out" for i in plan.instructions)


def _twin(entry, variant):
    return next(e for e in ENTRIES if e["model"] == entry["model"] and e["variant"] == variant)


@pytest.mark.parametrize("entry", [e for e in FILES if e["variant"] == "cuda1"], ids=lambda e: e["model"])
def test_cuda1_is_cuda0_on_another_gpu(entry):
    """Same structure, every device string cuda:0 -> cuda:1 (what a retarget what-if must reproduce)."""
    cuda0 = json.dumps(_twin(entry, "cuda0")["methods"]).replace("cuda:0", "cuda:1")
    assert json.loads(cuda0) == entry["methods"]


@pytest.mark.parametrize("model", sorted(MANIFEST["models"]))
def test_twins_delegate_the_same_regions(model):
    """The cpu-only and device exports delegate the same regions; the portable one runs each add as a kernel."""
    by_variant = {e["variant"]: e for e in ENTRIES if e["model"] == model and e["file"]}
    cpu_only, cuda0, portable = (by_variant[v]["methods"] for v in ("cpu_only", "cuda0", "portable"))
    for method in cpu_only:
        assert sum(cpu_only[method]["delegates"].values()) == sum(cuda0[method]["delegates"].values()) > 0
        assert cpu_only[method]["delegates"].keys() == {"none"}
        assert portable[method]["kernels"]["aten::add.out"] >= sum(cpu_only[method]["delegates"].values())


def test_the_chain_has_fifty_plus_regions():
    chain = _twin({"model": "chain"}, "cuda0")["methods"]["forward"]
    assert chain["delegates"] == {"cuda:0": 53}
    # the input y feeds every region: copied to the device once per region (h2d is per consumer)
    assert chain["copies"]["h2d"]["count"] == 2 * 53


@pytest.mark.parametrize("model,views", [("reshape", 1), ("view_out", 1)])
def test_a_delegate_output_is_read_through_a_static_view(model, views):
    """What ``reshape`` and ``view_out`` are for: in the cuda:0 export the d2h copy of a delegate output has a
    static view (a tensor of another shape on the copy's very bytes that no instruction writes, executorch's
    ``memory.view``) read by a CPU op, so a prediction must number the copy and its view as the emitter does."""
    plan = _load(_twin({"model": model}, "cuda0")).plans[0]
    written = {v for i in plan.instructions if i.kind == "KernelCall" for v in i.args[-1:]}
    copies = [i.args[-1] for i in plan.instructions if i.op == "et_copy::_d2h_copy.out"]
    found = []
    for c in copies:
        t = plan.values[c]
        found += [v.index for v in plan.tensors if v.index != c and v.memory_id == t.memory_id and
                  v.offset == t.offset and v.sizes != t.sizes and v.index not in written and
                  any(v.index in i.args[:-1] for i in plan.instructions if i.kind == "KernelCall")]
    assert len(found) == views, (model, found)


def test_refusals_are_executorchs_skip_h2d_rule():
    refused = [e for e in ENTRIES if e["file"] is None]
    assert {(e["model"], e["variant"]) for e in refused} == {
        ("residual", "cuda0_skip_h2d"), ("residual", "cuda0_skip_both"),
        ("chain", "cuda0_skip_h2d"), ("chain", "cuda0_skip_both")}
    for e in refused:
        assert e["flags"]["skip_h2d_for_method_inputs"]
        assert e["refused"]["type"] == "RuntimeError"
        assert "to have exactly one user" in e["refused"]["message"]


@pytest.mark.parametrize("entry", FILES, ids=lambda e: e["file"])
def test_checks_find_only_executorchs_unplanned_device_tensor(entry):
    """A finding on a real export is a bug in our analysis unless executorch's reader proves it: the only one
    here is the device tensor nothing allocates, which the manifest lists from executorch's reader."""
    findings = explorer.check(_load(entry))
    expected = {(m, i) for m, s in entry["methods"].items() for i in s["unplanned_device"]}
    assert {(f.plan, v) for f in findings for v in f.values} == expected
    assert {f.code for f in findings} == ({"unplanned-device-tensor"} if expected else set())


def test_the_unplanned_device_tensor_is_the_skip_d2h_quirk():
    """Only where skip_d2h + alloc_graph_output=False meet a delegate output both returned and read on the host."""
    with_quirk = {e["file"] for e in FILES if any(s["unplanned_device"] for s in e["methods"].values())}
    assert with_quirk == {"multi_out_cuda0_skip_d2h.pte", "multi_out_cuda0_skip_both.pte"}


def test_readme_names_every_file():
    text = (WHATIF / "README.md").read_text()
    for e in FILES:
        assert f"`{e['file']}`" in text


@pytest.mark.interop
@pytest.mark.campaign
def test_fixtures_are_what_the_script_makes():
    """scripts/make_whatif_fixtures.py --check: executorch 1.5.1 re-exports every file byte for byte (~1 min)."""
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "scripts" / "make_whatif_fixtures.py"), "--check"],
                          capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
