"""The device-fault checks (explorer/analysis/checks/device_faults.py): each fires on a program carrying its fault
(real executorch 1.5.1 exports where executorch writes the fault, else patched through our writer; see
tests/fixtures/faults/README.md) with a message naming the fix, and stays silent on correct exports."""

from __future__ import annotations

from pathlib import Path

import pytest

import explorer
from explorer.analysis.checks.device_faults import CODES, MAX_PLAUSIBLE_INDEX, known_devices_text
from explorer.model.devices import DEVICE_TYPES
from explorer.model.program import Segment, SubsegmentOffsets

from analysis_helpers import FIXTURES, PlanBuilder, roundtrip

FAULTS = FIXTURES / "faults"
NEW = set(CODES)


def _check(path: Path):
    return explorer.check(explorer.load(path))


def _codes(found) -> list[str]:
    return sorted({f.code for f in found})


# file -> (the code that must fire, words its message must carry: the runtime's behaviour and the fix)
EXPECTED = {
    "real_skip_h2d_planned.pte": ("planned-device-input", ["Method::set_input", "alloc_graph_input=False"]),
    "real_skip_d2h_planned.pte": ("planned-device-output", ["set_output_data_ptr", "alloc_graph_output=False"]),
    "real_paired_skip_unplanned.pte": ("unplanned-device-tensor", ["nothing allocates it",
                                                                   "alloc_graph_input/alloc_graph_output=False"]),
    "real_planning_off.pte": ("device-planning-off", ["host memory", "enable_non_cpu_memory_planning=True"]),
    "patched_constant_on_device.pte": ("constant-on-device", ["host memory", "keep weights on cpu"]),
    "patched_delegate_mismatch.pte": ("delegate-device-mismatch", ["runtime never compares", "target_device"]),
    "patched_buffer_duplicate.pte": ("buffer-device-duplicate", ["uses the first entry", "one entry per arena"]),
    "patched_buffer_idx0.pte": ("bad-reference", ["buffer 0 is reserved", "allocated in host memory",
                                                  "buffer_idx = memory_id"]),
    "patched_buffer_idx_past.pte": ("bad-reference", ["the plan has arenas 1..2", "allocated in host memory"]),
    "patched_index_negative.pte": ("device-index-invalid", ["below -1", "CUDA allocator rejects",
                                                            "export with a valid index"]),
    "patched_index_large.pte": ("device-index-invalid", ["cudaSetDevice", "lands on the current GPU"]),
    "patched_unknown_type.pte": ("unknown-device", ["device type byte 7", "known: cpu (0), cuda (1)"]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fault_fires_with_the_fix(name):
    code, words = EXPECTED[name]
    found = [f for f in _check(FAULTS / name) if f.code == code]
    assert found, f"{code} did not fire on {name}"
    for w in words:
        assert any(w in f.message for f in found), (w, [f.message for f in found])


def test_the_real_skip_exports_carry_only_their_fault():
    assert _codes(_check(FAULTS / "real_skip_h2d_planned.pte")) == ["planned-device-input"]
    assert [f.values for f in _check(FAULTS / "real_skip_h2d_planned.pte")] == [(2,), (3,)]  # both inputs
    assert _codes(_check(FAULTS / "real_skip_d2h_planned.pte")) == ["planned-device-output"]


def test_paired_skip_flags_leave_the_delegate_output_unplanned():
    """executorch 1.5.1 itself writes this: the delegate output is re-tagged cuda:0 by PropagateDevicePass
    (exir/passes/propagate_device_pass.py) but, as a method output once, is left for the caller
    (alloc_graph_output=False); the d2h copy inserted for relu then makes the *copy* the output, so the
    delegate writes a tensor nothing allocates."""
    program = explorer.load(FAULTS / "real_paired_skip_unplanned.pte")
    plan = program.plans[0]
    found = explorer.check(program)
    assert _codes(found) == ["unplanned-device-tensor"]
    (v,) = found[0].values
    t = plan.values[v]
    assert str(t.device) == "cuda:0" and t.memory_id is None and v not in plan.inputs + plan.outputs
    assert plan.instructions[0].kind == "DelegateCall" and v in plan.instructions[0].values


def test_planning_off_is_named_as_such_not_only_as_mismatches():
    found = _check(FAULTS / "real_planning_off.pte")
    codes = [f.code for f in found]
    assert codes.count("device-planning-off") == 1 and "device-mismatch" in codes
    # the arenas are host memory there: a host memcpy into them is no planned-device-input fault
    assert "planned-device-input" not in codes and "planned-device-output" not in codes


def test_duplicate_arena_entry_uses_the_first_as_the_runtime_does():
    program = explorer.load(FAULTS / "patched_buffer_duplicate.pte")
    plan = program.plans[0]
    assert [(bd.buffer_idx, str(bd.device)) for bd in plan.buffer_devices] == [(2, "cuda:0"), (2, "cpu")]
    assert str(plan.buffer(2).device) == "cuda:0"
    assert _codes(explorer.check(program)) == ["buffer-device-duplicate"]  # no device-mismatch from the 2nd entry


def test_index_severity_error_below_minus_one_warning_when_large():
    neg = [f for f in _check(FAULTS / "patched_index_negative.pte") if f.code == "device-index-invalid"]
    big = [f for f in _check(FAULTS / "patched_index_large.pte") if f.code == "device-index-invalid"]
    assert {f.severity for f in neg} == {"error"} and {f.severity for f in big} == {"warning"}
    # tensors and the arena, each named
    assert {f.memory_id for f in neg} == {None, 2} and {f.memory_id for f in big} == {None, 2}
    assert f"over {MAX_PLAUSIBLE_INDEX}" in big[0].message


def test_unknown_device_names_the_value_on_tensors_and_arenas():
    found = [f for f in _check(FAULTS / "patched_unknown_type.pte") if f.code == "unknown-device"]
    assert len(found) == 2 and all("unknown(7):0" in f.message and "byte 7" in f.message for f in found)
    assert found[1].memory_id == 2 and "DeviceAllocator for type 7" in found[1].message


def test_known_devices_come_from_the_registry():
    assert known_devices_text() == ", ".join(f"{t.name} ({t.code})" for t in DEVICE_TYPES)


# -- hand-built faults (no exporter writes these plans), checked directly and through our writer ----------

def _both(program):
    direct = explorer.check(program)
    again = explorer.check(roundtrip(program))
    assert [(f.code, f.values, f.memory_id) for f in again] == [(f.code, f.values, f.memory_id) for f in direct]
    return direct


def test_initial_state_in_device_arena():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0)
    m = b.tensor(arena=2, offset=0, device="cuda:0", data_buffer_idx=1, mutable_segment=0)
    b.delegate("BackendWithCompilerDemo", x, m, target_device="cuda:0")
    b.inputs(x)
    found = _both(b.program(segments=(Segment(0, 0, 32),), mutable_data_segments=(SubsegmentOffsets(0, (0, 16)),)))
    hit = [f for f in found if f.code == "initial-state-in-device-arena"]
    assert [(f.values, f.memory_id) for f in hit] == [((m,), 2)]
    assert "host memcpy" in hit[0].message and "keep mutable buffers on cpu" in hit[0].message
    assert _codes(found) == ["initial-state-in-device-arena"]


def test_initial_state_in_a_host_arena_is_fine():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor(arena=1, offset=0)
    m = b.tensor(arena=1, offset=16, data_buffer_idx=1, mutable_segment=0)
    b.kernel("aten::add.out", x, m, b.scalar(1), m, m)
    b.inputs(x)
    assert _both(b.program(segments=(Segment(0, 0, 32),), mutable_data_segments=(SubsegmentOffsets(0, (0, 16)),))) == []


def test_unplanned_device_intermediate():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0)
    d = b.tensor(arena=2, offset=0, device="cuda:0")
    lost = b.tensor(device="cuda:0")  # neither planned nor input/output
    h = b.tensor(arena=1, offset=16)
    b.h2d(x, d)
    b.delegate("BackendWithCompilerDemo", d, lost, target_device="cuda:0")
    b.d2h(lost, h)
    b.inputs(x)
    b.outputs(h)
    found = _both(b.program())
    assert _codes(found) == ["unplanned-device-tensor"]
    assert found[0].values == (lost,) and "alloc_graph_input/alloc_graph_output=False" in found[0].message
    # the same tensor as a method output is the caller's memory (skip_d2h done right): silent
    b.outputs(lost)
    assert _both(b.program()) == []


def test_constant_on_device_groups_per_device():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    w1, w2 = b.constant(device="cuda:0"), b.constant(device="cuda:0")
    x = b.tensor(arena=1, offset=0)
    out = b.tensor(device="cuda:0")
    b.delegate("BackendWithCompilerDemo", x, w1, w2, out, target_device="cuda:0")
    b.inputs(x)
    b.outputs(out)
    found = _both(b.program())
    assert _codes(found) == ["constant-on-device"] and found[0].values == (w1, w2)
    assert "2 constants labelled cuda:0" in found[0].message


# -- silence on correct exports -------------------------------------------------------------------------

def _real_programs() -> list[Path]:
    zoo = sorted((FIXTURES / "zoo").glob("*.pte"))
    top = sorted(FIXTURES.glob("*.pte"))
    ok = sorted(FAULTS.glob("ok_*.pte"))
    assert len(zoo) >= 40 and ok
    return zoo + top + ok


def test_new_checks_silent_on_every_real_program():
    noisy = {p.name: _codes(f for f in _check(p) if f.code in NEW) for p in _real_programs()}
    assert {k: v for k, v in noisy.items() if v} == {}


def test_ok_device_exports_have_no_finding_at_all():
    for p in sorted(FAULTS.glob("ok_*.pte")):
        assert _check(p) == [], p.name
    for name in ("device_cuda0.pte", "device_cuda1.pte", "device_two_gpus.pte", "device_two_methods.pte"):
        assert _check(FIXTURES / "zoo" / name) == [], name


def test_fixture_readme_names_every_file():
    text = (FAULTS / "README.md").read_text()
    for p in FAULTS.glob("*.pte"):
        assert f"`{p.name}`" in text


@pytest.mark.interop
@pytest.mark.campaign
def test_fixtures_are_what_the_script_makes():
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "scripts" / "make_fault_fixtures.py"), "--check"],
                          capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
