"""Runtime requirements per plan (explorer.analysis.requirements): what the runtime's MemoryManager,
DeviceAllocatorRegistry and copy kernels will be asked for, on real exports and crafted programs, and
how `inspect` shows them (human and --json)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from analysis_helpers import PlanBuilder, roundtrip

from explorer import load
from explorer.analysis.pipeline import analyze
from explorer.analysis.requirements import requirements, requirements_lines
from explorer.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


def _req(name: str, plan: str = "forward"):
    program = load(FIXTURES / name)
    return requirements(program.plan(plan))


def _run(*argv) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue()


# -- real exports ----------------------------------------------------------------------------------

def test_device_mlp_needs_a_cuda_allocator_for_arena_2_and_its_copies():
    req = _req("device_mlp.pte")
    cpu, cuda = req.devices
    assert (str(cpu.device), cpu.provider, cpu.arena_bytes) == ("cpu", "memory-manager", 160)
    assert [(a.memory_id, a.runtime_index, a.size) for a in cpu.arenas] == [(1, 0, 160)]
    assert (cpu.h2d_count, cpu.d2h_count) == (0, 0)  # the host never serves a copy itself
    assert (str(cuda.device), cuda.provider) == ("cuda:0", "device-allocator")
    assert [(a.memory_id, a.runtime_index, a.size) for a in cuda.arenas] == [(2, 1, 128)]
    assert (cuda.h2d_count, cuda.h2d_bytes, cuda.d2h_count, cuda.d2h_bytes) == (7, 224, 4, 128)
    assert cuda.backends == ("BackendWithCompilerDemo",)
    assert [(a.device_type, a.kind, a.indices) for a in req.allocators] == [(1, "cuda", (0,))]
    assert req.copy_kernels == ("et_copy::_d2h_copy.out", "et_copy::_h2d_copy.out")
    assert req.backends == ("BackendWithCompilerDemo",)
    assert req.problems == ()
    assert any("share_memory_arenas" in n for n in req.notes)


def test_cuda1_export_asks_the_same_allocator_type_for_index_1():
    req = _req("device_cuda1.pte")
    assert [str(d.device) for d in req.devices] == ["cpu", "cuda:1"]
    assert [(a.device_type, a.indices) for a in req.allocators] == [(1, (1,))]
    assert req.device("cuda:1").arenas[0].memory_id == 2
    assert req.device("cuda:0") is None


def test_cpu_only_exports_need_no_allocator():
    for name, backends in (("mlp.pte", ()), ("xnnpack_mlp.pte", ("XnnpackBackend",))):
        req = _req(name)
        assert [str(d.device) for d in req.devices] == ["cpu"]
        assert req.allocators == () and req.copy_kernels == () and req.notes == () and req.problems == ()
        assert req.backends == backends


def test_each_plan_has_its_own_requirements():
    program = load(FIXTURES / "two_methods.pte")
    assert [(requirements(p).plan, requirements(p).devices[0].arena_bytes) for p in program.plans] == \
        [("encode", 64), ("forward", 64)]


def test_analysis_transfers_are_reused_and_agree():
    plan = load(FIXTURES / "device_add.pte").plans[0]
    assert requirements(plan, analyze(plan)) == requirements(plan)
    cuda = requirements(plan).device("cuda:0")
    assert (cuda.h2d_count, cuda.d2h_count, cuda.arena_bytes) == (2, 1, 48)


# -- crafted programs ------------------------------------------------------------------------------

def test_copies_are_served_by_their_non_cpu_side_and_allocators_grouped_by_type():
    b = PlanBuilder(arenas=[(64, "cpu"), (32, "cuda:0"), (32, "cuda:1"), (16, "unknown(7):0")])
    x = b.tensor(arena=1, offset=0)
    d0 = b.tensor(arena=2, offset=0, device="cuda:0")
    d1 = b.tensor(arena=3, offset=0, device="cuda:1")
    back = b.tensor(arena=1, offset=16)
    b.h2d(x, d0)
    b.h2d(x, d1)
    b.d2h(d1, back)  # served by cuda:1's allocator (the source's device)
    b.inputs(x)
    b.outputs(back)
    req = requirements(roundtrip(b.program()).plans[0])
    got = {str(d.device): (d.h2d_count, d.h2d_bytes, d.d2h_count, d.arena_bytes) for d in req.devices}
    assert got == {"cpu": (0, 0, 0, 64), "cuda:0": (1, 16, 0, 32), "cuda:1": (1, 16, 1, 32),
                   "unknown(7):0": (0, 0, 0, 16)}
    assert [(a.device_type, a.kind, a.indices) for a in req.allocators] == \
        [(1, "cuda", (0, 1)), (7, "unknown(7)", (0,))]
    assert any("unknown(7)" in n for n in req.notes)
    lines = requirements_lines(req)
    assert any("DeviceAllocator for cuda (type 1; indexes 0, 1)" in line for line in lines)


def test_a_copy_on_the_wrong_sides_is_a_problem_not_a_served_copy():
    b = PlanBuilder(arenas=[(32, "cpu"), (32, "cuda:0")])
    dev = b.tensor(arena=2, offset=0, device="cuda:0")
    host = b.tensor(arena=1, offset=0)
    b.h2d(dev, host)  # an h2d kernel asked to copy device -> host: fails its device check at run time
    b.inputs(dev)
    b.outputs(host)
    req = requirements(b.build())
    assert req.device("cuda:0").h2d_count == 0 and req.device("cuda:0").d2h_count == 0
    assert len(req.problems) == 1
    assert "_h2d_copy only copies from the CPU to a device" in req.problems[0]
    assert req.copy_kernels == ("et_copy::_h2d_copy.out",)
    assert any(line.strip().startswith("PROBLEM:") for line in requirements_lines(req))


def test_device_resident_plan_inputs_are_noted():
    b = PlanBuilder(arenas=[(32, "cuda:0")])
    x = b.tensor(arena=1, offset=0, device="cuda:0")
    y = b.tensor(arena=1, offset=16, device="cuda:0")
    b.delegate("CudaBackend", x, y, target_device="cuda:0")
    b.inputs(x)
    b.outputs(y)
    req = requirements(b.build())
    assert [str(d.device) for d in req.devices] == ["cuda:0"]  # no CPU arena at all
    assert any("input 0 (%0 (float32[2,2])) on cuda:0" in n for n in req.notes)
    assert req.device("cuda:0").backends == ("CudaBackend",)


def test_no_arenas_at_all():
    b = PlanBuilder()
    x = b.tensor()
    b.inputs(x)
    b.outputs(x)
    req = requirements(b.build())
    assert req.devices == () and req.allocators == ()
    assert requirements_lines(req) == []


# -- inspect ---------------------------------------------------------------------------------------

def test_inspect_prints_the_runtime_needs_block():
    code, text = _run("inspect", str(FIXTURES / "device_mlp.pte"))
    assert code == 0
    assert "runtime needs" in text
    assert ("cuda:0:    DeviceAllocator for device type 1 (cuda) index 0 must allocate arena #2 (128 B); "
            "serves 7 h2d copies (224 B), 4 d2h (128 B)") in text
    assert "cpu:       planned buffer #1 (160 B) from the MemoryManager" in text


def test_inspect_json_has_requirements_per_plan_and_keeps_the_other_keys():
    code, text = _run("inspect", str(FIXTURES / "device_mlp.pte"), "--json")
    plan = json.loads(text)["plans"][0]
    assert code == 0
    assert {"name", "inputs", "outputs", "buffers", "values", "instructions", "delegates"} <= set(plan)
    req = plan["requirements"]
    assert list(req) == ["devices", "allocators", "copy_kernels", "backends", "notes", "problems", "min_runtime"]
    assert req["min_runtime"] == "executorch 1.4"  # device arenas: older loaders give them host memory
    cuda = req["devices"][1]
    assert cuda == {"device": "cuda:0", "provider": "device-allocator", "device_type": 1, "device_index": 0,
                    "arenas": [{"memory_id": 2, "runtime_index": 1, "size": 128}], "arena_bytes": 128,
                    "copies": {"h2d": {"count": 7, "nbytes": 224}, "d2h": {"count": 4, "nbytes": 128}},
                    "backends": ["BackendWithCompilerDemo"]}
    assert req["allocators"] == [{"device_type": 1, "kind": "cuda", "indices": [0]}]
    code, text = _run("inspect", str(FIXTURES / "two_methods.pte"), "--json")
    assert [p["requirements"]["devices"][0]["arenas"] for p in json.loads(text)["plans"]] == \
        [[{"memory_id": 1, "runtime_index": 0, "size": 64}]] * 2


def test_min_runtime_only_for_device_arenas():
    device = load(FIXTURES / "device_mlp.pte").plans[0]
    host = load(FIXTURES / "mlp.pte").plans[0]
    assert requirements(device).min_runtime == "executorch 1.4"
    assert any(line.strip().startswith("runtime:") and "#19746" in line and "host memory" in line
               for line in requirements_lines(requirements(device)))
    assert requirements(host).min_runtime is None
    assert not any("runtime:" in line for line in requirements_lines(requirements(host)))
