"""Placement checks: each code fires on a crafted bad program (and through load(write(p))), and stays
silent on every real export; `device-explorer check` exit statuses and JSON."""

from __future__ import annotations

import io
import json
import time

import pytest

from analysis_helpers import FIXTURES, PlanBuilder, fixture_paths, reader, roundtrip
from writers import synth
from explorer.analysis.pipeline import check
from explorer.analysis.checks.placement import SEVERITY
from explorer.model.program import Instruction, SubsegmentOffsets, NamedData


def _only(findings, code):
    got = [f for f in findings if f.code == code]
    assert got, f"expected a {code} finding, got {[f.code for f in findings]}"
    assert all(f.severity == SEVERITY[code] for f in got)
    return got


def _both(program):
    """Findings of the program and of load(write(program)); they must agree."""
    direct = check(program)
    again = check(roundtrip(program))
    assert [(f.code, f.values, f.instructions, f.memory_id) for f in again] == \
        [(f.code, f.values, f.instructions, f.memory_id) for f in direct]
    return direct


# -- device-mismatch ---------------------------------------------------------------------------------

def test_device_mismatch_names_tensor_arena_and_writer():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x, y = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    out = b.tensor(arena=1, offset=32, device="cuda:0")  # cuda:0 tensor in the cpu arena
    stray = b.tensor(arena=2, offset=0)                  # cpu tensor in the cuda:0 arena
    b.kernel("aten::add.out", x, y, b.scalar(1), out, out)
    b.kernel("aten::relu.out", out, stray, stray)
    b.inputs(x, y)
    b.outputs(stray)
    found = _only(_both(b.program()), "device-mismatch")
    assert [(f.values, f.instructions, f.memory_id) for f in found] == [((out,), (0,), 1), ((stray,), (1,), 2)]
    assert found[0].message == (f"%{out} (float32[2,2]) is on cuda:0 but arena 1 is cpu; it is written by "
                                f"aten::add.out (instruction 0)")
    assert "is on cpu but arena 2 is cuda:0" in found[1].message


# -- out-of-bounds -------------------------------------------------------------------------------------

def test_out_of_bounds_says_by_how_much():
    b = PlanBuilder(arenas=[(32, "cpu")])
    x = b.tensor(arena=1, offset=0, name="x")
    edge = b.tensor(arena=1, offset=16)       # exactly fits: [16, 32)
    over = b.tensor(arena=1, offset=24)       # [24, 40): 8 past
    b.kernel("aten::relu.out", x, edge, edge)
    b.kernel("aten::relu.out", edge, over, over)
    b.inputs(x)
    b.outputs(over)
    found = _only(_both(b.program()), "out-of-bounds")
    assert [(f.values, f.instructions, f.memory_id) for f in found] == [((over,), (1,), 1)]
    assert "bytes [24, 40) of arena 1 (cpu), which has only 32 bytes (8 past the end)" in found[0].message
    assert "aten::relu.out (instruction 1)" in found[0].message


# -- live-overlap --------------------------------------------------------------------------------------

def _overlap_plan():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor(arena=1, offset=0, name="x")
    a = b.tensor(arena=1, offset=16)          # lives 0..2
    c = b.tensor(arena=1, offset=24)          # lives 1..3: shares bytes [24, 32) with a at 1..2
    reuse = b.tensor((2,), arena=1, offset=16)  # [16, 24) at 3..3: a's bytes after a died: normal reuse
    b.kernel("aten::relu.out", x, a, a)              # 0
    b.kernel("aten::relu.out", x, c, c)              # 1
    b.kernel("aten::add.out", a, c, b.scalar(1), x, x)  # 2
    b.kernel("aten::relu.out", c, reuse, reuse)      # 3
    b.inputs(x)
    b.outputs(reuse)
    return b, x, a, c, reuse


def test_live_overlap_reports_each_pair_once_and_not_reuse():
    b, x, a, c, reuse = _overlap_plan()
    found = _only(_both(b.program()), "live-overlap")
    assert [(f.values, f.instructions, f.memory_id) for f in found] == [((a, c), (1, 2), 1)]
    msg = found[0].message
    assert f"%{a} (float32[2,2]) at bytes [16, 32) and %{c} (float32[2,2]) at bytes [24, 40)" in msg
    assert "share bytes [24, 32)" in msg and "instructions 1..2" in msg
    assert f"aten::relu.out (instruction 1) writes %{c}" in msg


def test_live_overlap_touching_lifetimes_overlap_disjoint_do_not():
    b = PlanBuilder(arenas=[(32, "cpu")])
    x = b.tensor(arena=1, offset=16)
    p = b.tensor(arena=1, offset=0)
    q = b.tensor(arena=1, offset=0)
    b.kernel("aten::relu.out", x, p, p)  # 0: p written
    b.kernel("aten::relu.out", p, q, q)  # 1: p read while q written into the same bytes
    b.inputs(x)
    b.outputs(q)
    assert [f.values for f in _only(check(b.program()), "live-overlap")] == [(p, q)]


def test_live_overlap_many_pairs_in_one_arena_are_all_found():
    b = PlanBuilder(arenas=[(16, "cpu")])
    ts = [b.tensor((4,), arena=1, offset=0) for _ in range(5)]  # all alive together at 0..
    b.kernel("custom::use", *ts, b.null())
    b.inputs(*ts)
    found = check(b.program(), limit=None)
    assert sorted(f.values for f in found if f.code == "live-overlap") == sorted(
        (ts[i], ts[j]) for i in range(5) for j in range(i + 1, 5))


# -- bad-reference -------------------------------------------------------------------------------------

def _base():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x, y = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    b.kernel("aten::relu.out", x, y, y)
    b.inputs(x)
    b.outputs(y)
    return b, x, y


def _bad_arg(b, x, y):
    b.kernel("aten::relu.out", y, 99, 99)


def _bad_input(b, x, y):
    b.inputs(x, 50)


def _bad_output(b, x, y):
    b.outputs(y, -3)


def _bad_op_index(b, x, y):
    b.raw(Instruction(0, 0, "KernelCall", (x, y, y), op_index=7, op=None))


def _bad_delegate_index(b, x, y):
    b.raw(Instruction(0, 0, "DelegateCall", (x, y), delegate_index=3, delegate=None))


def _bad_memory_id(b, x, y):
    b.tensor(arena=5, offset=0)


def _memory_id_zero(b, x, y):
    b.tensor(arena=0, offset=8)


def _bad_buffer_device(b, x, y):
    from explorer.model.program import BufferDevice, Device
    b.buffer_devices = (BufferDevice(4, Device.parse("cuda:0")),)


def _bad_tensorlist_item(b, x, y):
    b.tensor_list([x, 77])


def _bad_intlist_item(b, x, y):
    b.scalar((b.scalar(1), 88), "IntList")


def _bad_jump(b, x, y):
    b.jump(b.scalar(True, "Bool"), 9)


def _bad_move(b, x, y):
    b.move(x, 40)


def _bad_free(b, x, y):
    b.free(41)


def _bad_constant(b, x, y):
    b.constant()
    b.tensor(data_buffer_idx=9)  # constant beyond constant_segment.offsets (which has 2 entries)


@pytest.mark.parametrize("make,needle", [
    (_bad_arg, "names %99"), (_bad_input, "plan input 1 is value %50"), (_bad_output, "plan output 1 is value %-3"),
    (_bad_op_index, "calls operator 7, but the plan has 1 operators"),
    (_bad_delegate_index, "calls delegate 3, but the plan has 0 delegates"),
    (_bad_memory_id, "is planned in arena 5 at offset 0, but the plan has arenas 1..1"),
    (_memory_id_zero, "memory_id 0 is reserved"),
    (_bad_buffer_device, "non_const_buffer_device lists buffer 4 on cuda:0"),
    (_bad_tensorlist_item, "TensorList %2 has item %77"),
    (_bad_intlist_item, "has item %88"),
    (_bad_jump, "jumps to 9, outside its chain 0"),
    (_bad_move, "names %40"), (_bad_free, "names %41"),
    (_bad_constant, "has data_buffer_idx 9, but constant_segment.offsets has 2 entries"),
])
def test_bad_reference_fires(make, needle):
    b, x, y = _base()
    make(b, x, y)
    found = _only(_both(b.program()), "bad-reference")
    assert any(needle in f.message for f in found), [f.message for f in found]
    assert all(f.code == "bad-reference" for f in check(b.program()))


def test_bad_reference_delegate_blob_and_segments():
    b, x, y = _base()
    b.delegate("XnnpackBackend", x, b.tensor(arena=1, offset=32))
    program = b.program(delegate_data_sizes=())  # the delegate's inline blob 0 doesn't exist
    found = _only(check(program), "bad-reference")
    assert any("points at backend_delegate_data[0], but the program has 0" in f.message for f in found)
    program = b.program(named_data=(NamedData("w", 3),), constant_segment=SubsegmentOffsets(2, (0, 16)))
    messages = [f.message for f in _only(check(program), "bad-reference")]
    assert any("named data 'w' is segment 3" in m for m in messages)
    assert any("constant_segment is segment 2" in m for m in messages)
    assert all(f.plan == "" for f in check(program) if "segment" in f.message and "is segment" in f.message)


def test_mutable_and_constant_data_indices_use_different_tables():
    b, x, y = _base()
    w = b.constant()                                    # data_buffer_idx 1 -> constant_segment.offsets
    m = b.tensor(arena=1, offset=32, data_buffer_idx=1)  # mutable: -> mutable_data_segments[0].offsets
    b.kernel("aten::add.out", y, w, b.scalar(1), m, m)
    ok = b.program(mutable_data_segments=(SubsegmentOffsets(0, (0, 16)),))
    assert check(ok) == []
    missing = b.program()  # no mutable_data_segments at all
    found = _only(check(missing), "bad-reference")
    assert [f.values for f in found] == [(m,)] and "mutable_data_segments[0]" in found[0].message
    short = b.program(mutable_data_segments=(SubsegmentOffsets(0, (0,)),))
    assert "mutable_data_segments[0].offsets has 1 entries" in _only(check(short), "bad-reference")[0].message


# -- cross-device-no-copy ------------------------------------------------------------------------------

def test_host_kernel_on_device_memory_is_an_error_with_a_hint():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0, name="x")
    out = b.tensor(device="cuda:0")  # a device output the caller provides (alloc_graph_output=False)
    b.kernel("aten::relu.out", x, out, out)
    b.inputs(x)
    b.outputs(out)
    found = _both(b.program())
    assert [f.code for f in found] == ["cross-device-no-copy"]  # not also a cross-device warning
    assert [(f.values, f.instructions, f.severity) for f in found] == [((out,), (0,), "error")]
    assert found[0].message.startswith(f"instruction runs the host kernel aten::relu.out on cuda:0 memory "
                                       f"(instruction 0; tensors %{out} (float32[2,2]))")
    assert "et_copy::_h2d_copy" in found[0].message and "target_device is cuda:0" in found[0].message


def test_host_kernels_on_device_memory_are_grouped_per_operator():
    b = PlanBuilder(arenas=[(64, "cpu"), (256, "cuda:0")])
    d = [b.tensor(arena=2, offset=16 * k, device="cuda:0") if 0 < k < 8 else b.tensor(device="cuda:0")
         for k in range(9)]  # device input and output provided by the caller (not planned)
    for k in range(8):
        b.kernel("aten::add.out", d[k], d[k], b.scalar(1), d[k + 1], d[k + 1])
    b.inputs(d[0])
    b.outputs(d[8])
    found = check(b.program())
    assert [f.code for f in found] == ["cross-device-no-copy"]
    assert found[0].message.startswith("8 instructions run the host kernel aten::add.out on cuda:0 memory "
                                       "(instructions 0, 1, 2, 3, 4, 5, 6, 7; tensors")
    assert found[0].instructions == tuple(range(8)) and set(found[0].values) == set(d)


def test_copies_and_views_of_device_tensors_are_not_host_kernels():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0)
    d = b.tensor(arena=2, offset=0, device="cuda:0")
    v = b.tensor(arena=2, offset=0, device="cuda:0")
    h = b.tensor(arena=1, offset=16)
    b.h2d(x, d)
    b.kernel("executorch_prim::et_view.default", d, b.scalar(4), v)
    b.kernel("aten::sym_size.int", d, b.scalar(0), b.scalar(2))  # metadata only
    b.d2h(v, h)
    b.inputs(x)
    b.outputs(h)
    assert check(b.program()) == []


def test_delegates_move_data_across_devices_only_when_they_target_a_device():
    def plan(target, out_device="cuda:0"):
        b = PlanBuilder(arenas=[(64, "cpu"), (64, out_device)])
        x = b.tensor(arena=1, offset=0)
        out = b.tensor(device=out_device)  # provided by the caller: planned device outputs are their own fault
        b.delegate("BackendWithCompilerDemo", x, out, target_device=target)
        b.inputs(x)
        b.outputs(out)
        return b.program()

    assert check(plan("cuda:0")) == []                               # device-targeted: allowed
    assert [f.code for f in check(plan(None))] == ["cross-device-no-copy"]    # no target: warned
    wrong = check(plan("cuda:0", out_device="cuda:1"))                 # writes outside its target
    assert [f.code for f in wrong] == ["cross-device-no-copy", "delegate-device-mismatch"]
    assert "targets cuda:0" in wrong[0].message and "targets cuda:0" in wrong[1].message


def test_move_across_devices_is_not_a_copy():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x, d = b.tensor(arena=1, offset=0), b.tensor(arena=2, offset=0, device="cuda:0")
    b.move(x, d)
    b.inputs(x)
    b.outputs(d)
    assert [f.instructions for f in _only(check(b.program()), "cross-device-no-copy")] == [(0,)]


# -- round-trip ----------------------------------------------------------------------------------------

def _round_trip(host_also_used=False, host_is_output=False):
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0)
    d = b.tensor(arena=2, offset=0, device="cuda:0")
    h = b.tensor(arena=1, offset=16)
    d2 = b.tensor(device="cuda:0")  # a device output the caller provides (skip_d2h done right)
    b.h2d(x, d)   # 0
    b.d2h(d, h)   # 1
    b.h2d(h, d2)  # 2
    if host_also_used:
        b.kernel("aten::relu.out", h, x, x)
    b.inputs(x)
    b.outputs(d2, *([h] if host_is_output else []))
    return b.program(), d, h, d2


def test_round_trip_fires_when_the_host_copy_only_feeds_a_copy_back():
    program, d, h, d2 = _round_trip()
    found = _only(_both(program), "round-trip")
    assert [(f.values, f.instructions) for f in found] == [((d, h, d2), (1, 2))]
    assert "goes cuda:0 -> cpu -> cuda:0" in found[0].message
    assert "et_copy::_d2h_copy.out (instruction 1)" in found[0].message
    assert "et_copy::_h2d_copy.out (instruction 2)" in found[0].message
    assert [f.code for f in check(program)] == ["round-trip"]


def test_round_trip_silent_when_the_host_copy_is_used_or_returned():
    assert check(_round_trip(host_also_used=True)[0]) == []
    assert check(_round_trip(host_is_output=True)[0]) == []


# -- unknown-device ------------------------------------------------------------------------------------

def test_unknown_device_groups_tensors_and_names_arenas():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "unknown(7):0")])
    ts = [b.tensor((4,), arena=2, offset=16 * k, device="unknown(7):0") for k in range(3)]
    b.kernel("custom::use", *ts, b.null())
    b.inputs(*ts)
    found = _only(_both(b.program()), "unknown-device")
    assert [(f.values, f.memory_id) for f in found] == [(tuple(ts), None), ((), 2)]
    assert found[0].message.startswith("3 tensors on unknown(7):0, a device type this version doesn't know")
    assert "arena 2 (64 B) is on unknown(7):0" in found[1].message
    assert [f.code for f in check(b.program())] == ["unknown-device", "unknown-device"]


# -- bounded output --------------------------------------------------------------------------------------

def test_findings_are_capped_per_code_with_a_final_count():
    b = PlanBuilder(arenas=[(8, "cpu")])
    ts = [b.tensor((4,), arena=1, offset=8) for _ in range(40)]
    found = check(b.program())
    oob = [f for f in found if f.code == "out-of-bounds"]
    assert len(oob) == 26
    assert oob[-1].message == "... and 15 more out-of-bounds findings (only the first 25 are listed)"
    assert oob[-1].severity == "error" and oob[-1].values == ()
    assert len([f for f in check(b.program(), limit=None) if f.code == "out-of-bounds"]) == len(ts)


# -- real exports ----------------------------------------------------------------------------------------

# Real exports that are broken *by executorch*, and what the checks must say about them.
KNOWN_BAD = {
    # The mutable buffer `state` (%2) got the constant bias's data_buffer_idx (dedup against the
    # constant table) and no mutable_data_segments were written: a dangling index. Its view %6 of
    # input %3 shares %3's bytes and must not be reported as a live overlap.
    "mutable_dedup_bug.pte": [("bad-reference", (2,))],
}


@pytest.mark.parametrize("path", fixture_paths(), ids=lambda p: p.name)
def test_silent_on_every_real_fixture(path):
    found = check(reader()(path))
    assert [(f.code, f.values) for f in found] == KNOWN_BAD.get(path.name, [])


def test_the_dedup_bug_is_explained():
    (finding,) = check(reader()(FIXTURES / "mutable_dedup_bug.pte"))
    assert finding.message == (
        "mutable state (%2, float32[3]) has initial state (data_buffer_idx 2) in mutable_data_segments[0], but "
        "the program has 0 mutable data segments; index 2 exists in the constant table instead, so the "
        "exporter probably deduplicated the initial state against a constant and lost it")


@pytest.mark.parametrize("values,kwargs", [(20_000, {}), (20_000, {"devices": ("cuda:0", "cuda:1")}),
                                           (5_000, {"plans": 2, "devices": ()})])
def test_large_synthetic_programs_are_silent_and_checked_fast(values, kwargs):
    """20k values: an O(n^2) step would take minutes here (a hang to the user); the check takes ~0.03 s.
    The bound is CPU seconds (a loaded machine's waiting is not a slow check) and ~150x the time it takes:
    it catches the wrong complexity, not a slower constant. Speed is measured in bench/bench_load.py
    (load+check against executorch's reader, same bytes)."""
    program = roundtrip(synth.synthetic_program(values, **kwargs))
    start = time.process_time()
    found = check(program)
    cpu = time.process_time() - start
    assert found == []
    assert cpu < 5.0, f"check of {sum(len(p.values) for p in program.plans)} values took {cpu:.2f} CPU s"


def test_synthetic_back_to_back_offloads_are_round_trips():
    program = synth.synthetic_program(200, devices=("cuda:0",), device_every=1)
    found = check(program, limit=None)
    assert found and {f.code for f in found} == {"round-trip"}
    assert all("-> cpu -> cuda:0" in f.message for f in found)


def test_there_are_real_fixtures():
    names = {p.name for p in fixture_paths()}
    assert {"device_add.pte", "mutable_state.pte", "two_methods.pte", "xnnpack_mlp.pte"} <= names


# -- CLI ---------------------------------------------------------------------------------------------------

def _cli(*argv):
    from explorer.cli import main

    out = io.StringIO()
    return main(["check", *map(str, argv)], stdout=out), out.getvalue()


@pytest.mark.parametrize("path", [p for p in fixture_paths() if p.name not in KNOWN_BAD], ids=lambda p: p.name)
def test_cli_exits_0_on_real_fixtures(path):
    status, text = _cli(path)
    assert status == 0 and "no findings" in text
    status, text = _cli(path, "--json")
    doc = json.loads(text)
    assert status == 0 and doc == {"format": "device-explorer/1", "file": path.name,
                                   "counts": {"error": 0, "warning": 0, "info": 0}, "findings": []}


def _crafted():
    b = PlanBuilder(arenas=[(32, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0)
    b.tensor(arena=1, offset=24)  # out-of-bounds
    b.tensor(arena=1, offset=0, device="cuda:0")  # device-mismatch
    b.inputs(x)
    return b


def test_cli_exit_1_with_the_codes_and_grouped_text(tmp_path):
    from writers.pte import write

    path = tmp_path / "bad.pte"
    path.write_bytes(write(_crafted().program()))
    status, text = _cli(path, "--json")
    doc = json.loads(text)
    assert status == 1
    assert doc["file"] == "bad.pte" and doc["counts"] == {"error": 2, "warning": 0, "info": 0}
    assert [f["code"] for f in doc["findings"]] == ["device-mismatch", "out-of-bounds"]
    assert set(doc["findings"][0]) == {"code", "severity", "plan", "message", "values", "instructions", "memory_id"}
    status, text = _cli(path)
    lines = text.splitlines()
    assert status == 1
    assert lines[0] == "bad.pte: 2 errors, 0 warnings, 0 infos"
    assert lines[2] == "ERRORS (2)"
    assert lines[3].startswith("  [device-mismatch] plan 'forward': %2 (float32[2,2]) is on cuda:0 but arena 1")


def test_cli_exit_0_on_warnings_only(tmp_path):
    from writers.pte import write

    path = tmp_path / "warn.pte"
    path.write_bytes(write(_round_trip()[0]))
    status, text = _cli(path)
    assert status == 0 and "WARNINGS (1)" in text and "[round-trip]" in text


def test_cli_exit_1_on_the_broken_export():
    paths = [p for p in fixture_paths() if p.name in KNOWN_BAD]
    for path in paths:
        status, text = _cli(path, "--json")
        assert status == 1
        assert [(f["code"], tuple(f["values"])) for f in json.loads(text)["findings"]] == KNOWN_BAD[path.name]


def test_cli_plan_and_limit_options(tmp_path):
    from writers.pte import write

    b = PlanBuilder(arenas=[(8, "cpu")])
    for _ in range(30):
        b.tensor((4,), arena=1, offset=8)
    other = PlanBuilder("encode")
    path = tmp_path / "many.pte"
    path.write_bytes(write(b.program(other)))
    status, text = _cli(path, "--json", "--limit", "3")
    codes = [f["message"] for f in json.loads(text)["findings"]]
    assert status == 1 and len(codes) == 4 and codes[-1].startswith("... and 27 more out-of-bounds")
    status, text = _cli(path, "--json", "--limit", "0")
    assert len(json.loads(text)["findings"]) == 30
    status, text = _cli(path, "--plan", "encode")
    assert status == 0 and "no findings" in text


def test_explorer_check_is_the_analysis_check():
    import explorer

    assert explorer.check is check


def test_cli_exit_2_on_unreadable(tmp_path):
    path = tmp_path / "junk.pte"
    path.write_bytes(b"\0" * 64)
    assert _cli(path)[0] == 2
    assert _cli(tmp_path / "missing.pte")[0] == 2


def test_each_crafted_error_program_exits_1_with_its_code(tmp_path):
    from writers.pte import write

    b, *_ = _overlap_plan()
    cases = {"live-overlap": b.program()}
    b, x, y = _base()
    _bad_arg(b, x, y)
    cases["bad-reference"] = b.program()
    for code, program in cases.items():
        path = tmp_path / f"{code}.pte"
        path.write_bytes(write(program))
        status, text = _cli(path, "--json")
        assert status == 1 and [f["code"] for f in json.loads(text)["findings"]] == [code]
