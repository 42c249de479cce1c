"""The device faults that crash real runtimes (explorer/analysis/device_faults.py; docs/checks.md).

Real exports first: tests/fixtures/faults/ holds executorch 1.5.1's own output for correct and faulty
export configurations (scripts/make_fault_fixtures.py). Each faulty one gets exactly its finding, the
correct ones none, and so does every other real program we keep (the zoo, the fixtures, the companions).
Faults executorch cannot be made to write are built with our writer and read back through it.
"""

from __future__ import annotations

import glob
from pathlib import Path

import pytest
from analysis_helpers import PlanBuilder, roundtrip

import explorer
from explorer.analysis.device_faults import PLAUSIBLE_INDEX_MAX
from explorer.analysis.device_faults import SEVERITY as FAULTS
from explorer.model import BufferDevice, Device

FIX = Path(__file__).parent / "fixtures"
FAULT_CODES = set(FAULTS)

# each real export -> the device-fault codes it must carry (tests/fixtures/faults/README.md says how it was made)
EXPECTED = {
    "ok_cuda0": set(), "ok_cuda1": set(), "ok_skip_io": set(),
    "skip_h2d_planned": {"planned-device-input"},
    "skip_d2h_planned": {"planned-device-output"},
    "skip_h2d_weight": {"constant-on-device"},
    "no_alloc_output": {"unplanned-device-tensor"},
    "no_device_planning": {"device-memory-not-planned"},
}


def _codes(program) -> set[str]:
    return {f.code for f in explorer.check(program)} & FAULT_CODES


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_exports_carry_exactly_their_fault(name):
    program = explorer.load(FIX / "faults" / f"{name}.pte")
    assert _codes(program) == EXPECTED[name]
    if not EXPECTED[name]:
        assert [f for f in explorer.check(program) if f.severity != "info"] == []


def test_every_fault_fixture_is_listed():
    assert {Path(p).stem for p in glob.glob(str(FIX / "faults" / "*.pte"))} == set(EXPECTED)


def test_silent_on_every_other_real_program():
    paths = sorted(set(glob.glob(str(FIX / "**" / "*.pte"), recursive=True))
                   - set(glob.glob(str(FIX / "faults" / "*.pte"))) - set(glob.glob(str(FIX / "crashes" / "*"))))
    assert len(paths) >= 50
    for path in paths:
        assert _codes(explorer.load(path)) == set(), path


def test_messages_say_what_the_runtime_does_and_the_fix():
    cases = {
        "skip_h2d_planned": ("planned-device-input", "Method::set_input", "alloc_graph_input=False"),
        "skip_d2h_planned": ("planned-device-output", "set_output_data_ptr", "alloc_graph_output=False"),
        "skip_h2d_weight": ("constant-on-device", "host memory", "skip_h2d"),
        "no_alloc_output": ("unplanned-device-tensor", "no allocation", "alloc_graph_output=True"),
        "no_device_planning": ("device-memory-not-planned", "host memory", "enable_non_cpu_memory_planning=True"),
    }
    for name, (code, runtime, fix) in cases.items():
        (f,) = [f for f in explorer.check(explorer.load(FIX / "faults" / f"{name}.pte")) if f.code == code]
        assert f.severity == "error" and runtime in f.message and "Fix: " in f.message and fix in f.message
        assert f.values, f.message


def test_planned_device_input_names_every_input():
    program = explorer.load(FIX / "faults" / "skip_h2d_planned.pte")
    (f,) = [f for f in explorer.check(program) if f.code == "planned-device-input"]
    assert set(f.values) == set(program.plan("forward").inputs)


# -- patched with our writer ----------------------------------------------------------------------

def _delegate_program(target: str, tensor_device: str):
    b = PlanBuilder(arenas=[(64, "cpu"), (64, target)])
    x = b.tensor(arena=1, offset=0, name="x")
    d = b.tensor(arena=2, offset=0, device=tensor_device)
    y = b.tensor(arena=2, offset=16, device=tensor_device)
    out = b.tensor(arena=1, offset=16)
    b.h2d(x, d)
    b.delegate("DeviceBackend", d, y, target_device=target)
    b.d2h(y, out)
    b.inputs(x)
    b.outputs(out)
    return b.program()


def test_delegate_device_mismatch():
    assert _codes(roundtrip(_delegate_program("cuda:0", "cuda:0"))) == set()
    program = roundtrip(_delegate_program("cuda:0", "cuda:1"))
    found = [f for f in explorer.check(program) if f.code == "delegate-device-mismatch"]
    assert len(found) == 1 and "targets cuda:0" in found[0].message and "cuda:1" in found[0].message
    assert found[0].instructions == (1,) and set(found[0].values) == {1, 2}


def test_initial_state_in_a_device_arena():
    b = PlanBuilder(arenas=[(64, "cuda:0")])
    state = b.tensor(arena=1, offset=0, device="cuda:0", data_buffer_idx=1, mutable_segment=0, name="cache")
    b.inputs()
    b.outputs(state)
    program = roundtrip(b.program())
    found = [f for f in explorer.check(program) if f.code == "initial-state-in-device-arena"]
    assert len(found) == 1 and found[0].memory_id == 1 and found[0].values == (state,)
    assert "host memcpy" in found[0].message


def test_duplicate_buffer_device_uses_the_first_as_the_runtime_does():
    b = PlanBuilder(arenas=[(64, "cpu")], buffer_devices=[(1, "cuda:0"), (1, "cuda:1")])
    t = b.tensor(arena=1, offset=0, device="cuda:0")
    b.inputs(t)
    b.outputs(t)
    program = roundtrip(b.program())
    plan = program.plan("forward")
    assert plan.buffer_devices == (BufferDevice(1, Device.parse("cuda:0")), BufferDevice(1, Device.parse("cuda:1")))
    assert plan.buffer(1).device == Device.parse("cuda:0")  # MethodMeta::memory_planned_buffer_device: first match
    (f,) = [f for f in explorer.check(program) if f.code == "buffer-device-duplicate"]
    assert f.memory_id == 1 and "uses the first (cuda:0)" in f.message
    assert not [f for f in explorer.check(program) if f.code == "device-mismatch"]


def test_buffer_device_entry_pointing_nowhere_says_the_arena_stays_host_memory():
    b = PlanBuilder(arenas=[(64, "cpu")], buffer_devices=[(0, "cuda:0"), (5, "cuda:0")])
    t = b.tensor(arena=1, offset=0)
    b.inputs(t)
    b.outputs(t)
    found = [f for f in explorer.check(roundtrip(b.program())) if f.code == "bad-reference"]
    assert len(found) == 2 and all("ignores the entry" in f.message for f in found)


@pytest.mark.parametrize("index,severity", [(-2, "error"), (PLAUSIBLE_INDEX_MAX + 1, "warning")])
def test_device_index_invalid(index, severity):
    device = f"cuda:{index}"
    b = PlanBuilder(arenas=[(64, "cpu"), (64, device)])
    x = b.tensor(arena=1, offset=0)
    d = b.tensor(arena=2, offset=0, device=device)
    out = b.tensor(arena=1, offset=16)
    b.h2d(x, d)
    b.d2h(d, out)
    b.inputs(x)
    b.outputs(out)
    found = [f for f in explorer.check(roundtrip(b.program())) if f.code == "device-index-invalid"]
    assert {f.severity for f in found} == {severity}
    assert any(f.values == (d,) for f in found) and any(f.memory_id == 2 for f in found)


def test_device_index_minus_one_and_plausible_ones_are_fine():
    for index in (-1, 0, 1, PLAUSIBLE_INDEX_MAX):
        device = f"cuda:{index}"
        b = PlanBuilder(arenas=[(64, "cpu"), (64, device)])
        x = b.tensor(arena=1, offset=0)
        d = b.tensor(arena=2, offset=0, device=device)
        out = b.tensor(arena=1, offset=16)
        b.h2d(x, d)
        b.d2h(d, out)
        b.inputs(x)
        b.outputs(out)
        assert "device-index-invalid" not in _codes(roundtrip(b.program()))


def test_unknown_device_names_known_types_from_the_registry():
    from explorer.devices import DEVICE_TYPES

    b = PlanBuilder(arenas=[(64, "cpu"), (64, "unknown(7):0")])
    x = b.tensor(arena=1, offset=0)
    d = b.tensor(arena=2, offset=0, device="unknown(7):0")
    b.inputs(x)
    b.outputs(d)
    found = [f for f in explorer.check(roundtrip(b.program())) if f.code == "unknown-device"]
    assert len(found) == 2  # the tensor and the arena
    known = ", ".join(t.name for t in DEVICE_TYPES)
    assert all(f"(known: {known})" in f.message for f in found)
    assert _codes(roundtrip(b.program())) == set()  # the device checks leave unknown types to unknown-device


def test_cli_exit_status_on_a_fault():
    import io

    from explorer.cli import main

    out = io.StringIO()
    assert main(["check", str(FIX / "faults" / "skip_h2d_planned.pte")], stdout=out) == 1
    assert "[planned-device-input]" in out.getvalue()
    out = io.StringIO()
    assert main(["check", str(FIX / "faults" / "ok_skip_io.pte")], stdout=out) == 0
