"""The reader on real exports: tests as data (tests/fixtures/expected.json, computed with executorch's
own reader when the fixtures were made) plus the device rules of docs/format.md pinned on real bytes."""

import json
from collections import Counter
from pathlib import Path

import pytest

import explorer
from explorer import Device, PteFormatError
from explorer.model.program import Tensor

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
FILES = sorted(EXPECTED)


def test_every_fixture_is_described():
    assert sorted(p.name for p in FIXTURES.glob("*.pte")) == FILES


@pytest.mark.parametrize("name", FILES)
def test_fixture_matches_expected_summary(name):
    want = EXPECTED[name]
    program = explorer.load(FIXTURES / name)
    assert program.size == want["size"]
    assert len(program.segments) == want["segments"]
    assert list(program.plan_names) == want["plan_names"]
    for plan_name, wp in want["plans"].items():
        plan = program.plan(plan_name)
        assert list(plan.inputs) == wp["inputs"] and list(plan.outputs) == wp["outputs"]
        assert len(plan.values) == wp["values"]
        assert len(plan.tensors) == wp["tensors"]
        assert len(plan.instructions) == wp["instructions"]
        assert [[b.memory_id, b.size, str(b.device)] for b in plan.buffers] == wp["arenas"]
        assert dict(Counter(str(t.device) for t in plan.tensors)) == wp["tensors_per_device"]
        assert dict(Counter(t.storage for t in plan.tensors)) == wp["tensors_per_storage"]
        assert [i.op for i in plan.instructions if i.op and "_copy" in i.op and "et_copy" in i.op] == wp["copy_ops"]
        assert [d.id for d in plan.delegates] == wp["delegates"]
        assert [d.target_device and str(d.target_device) for d in plan.delegates] == wp["target_devices"]
        assert {str(t.index): t.name for t in plan.tensors if t.name} == wp["named_tensors"]


def test_load_accepts_bytes_path_and_pathlike():
    path = FIXTURES / "device_add.pte"
    assert explorer.load(path) .plans == explorer.load(str(path)).plans == explorer.load(path.read_bytes()).plans
    assert explorer.load(bytearray(path.read_bytes())).plans == explorer.load(memoryview(path.read_bytes())).plans


def test_device_add_by_hand():
    """x + y with the add delegated to cuda:0: h2d(x), h2d(y), delegate, d2h(out)."""
    plan = explorer.load(FIXTURES / "device_add.pte").plan("forward")
    kinds = [(i.kind, i.label) for i in plan.instructions]
    assert kinds == [("KernelCall", "et_copy::_h2d_copy.out"), ("KernelCall", "et_copy::_h2d_copy.out"),
                     ("DelegateCall", "BackendWithCompilerDemo"), ("KernelCall", "et_copy::_d2h_copy.out")]
    h2d = plan.instructions[0]
    src, dst, ret = h2d.args
    assert dst == ret, "out-variant lists its out tensor twice"
    assert plan.values[src].device == explorer.CPU and plan.values[dst].device == Device(1, 0)
    cuda = [t for t in plan.tensors if t.device == Device.parse("cuda:0")]
    assert all(t.memory_id == 2 and t.has_extra_info for t in cuda)
    assert all(not t.has_extra_info for t in plan.tensors if t.device.is_cpu), "CPU tensors carry no extra info"
    assert [b.device for b in plan.buffers] == [Device.parse("cpu"), Device.parse("cuda:0")]
    assert [(bd.buffer_idx, str(bd.device)) for bd in plan.buffer_devices] == [(2, "cuda:0")], "sparse list"
    assert plan.delegates[0].target_device == Device.parse("cuda:0")
    for t in plan.tensors:
        assert t.offset + t.nbytes <= plan.buffer_sizes[t.memory_id]


def test_cuda1_index_is_read_from_the_bytes():
    plan = explorer.load(FIXTURES / "device_cuda1.pte").plan("forward")
    assert {str(t.device) for t in plan.tensors} == {"cpu", "cuda:1"}
    assert str(plan.buffers[1].device) == "cuda:1"


def test_mutable_state_tensor_has_initial_state_and_name():
    plan = explorer.load(FIXTURES / "mutable_state.pte").plan("forward")
    state = [t for t in plan.tensors if t.storage == "mutable"]
    assert len(state) == 1 and state[0].data_buffer_idx > 0 and state[0].memory_id is not None
    assert state[0].name == "state" and state[0].device == explorer.CPU and state[0].has_extra_info
    ops = {i.op for i in plan.instructions}
    assert "aten::copy_" in ops, "an empty overload prints without a suffix"


def test_two_methods_are_selected_by_name():
    program = explorer.load(FIXTURES / "two_methods.pte")
    assert program.plan_names == ("encode", "forward")
    assert program.plan("forward").name == "forward"
    with pytest.raises(KeyError, match="encode"):
        program.plan("decode")


def test_stacktrace_frames():
    plan = explorer.load(FIXTURES / "stacktrace.pte").plan("forward")
    traced = [i for i in plan.instructions if i.stacktrace]
    assert traced and all(f.lineno > 0 and f.filename for i in traced for f in i.stacktrace)


def test_xnnpack_named_data_and_segment_delegate():
    program = explorer.load(FIXTURES / "xnnpack_mlp.pte")
    d = program.plan("forward").delegates[0]
    assert d.id == "XnnpackBackend" and d.location == "segment"
    assert d.data_size == program.segments[d.data_index].size
    assert program.named_data and all(0 <= n.segment_index < len(program.segments) for n in program.named_data)


def test_segments_are_read_only_on_request():
    program = explorer.load(FIXTURES / "device_add.pte")
    raw = (FIXTURES / "device_add.pte").read_bytes()
    for seg in program.segments:
        assert program.segment_data(seg.index) == raw[seg.file_offset:seg.file_offset + seg.size]
    with pytest.raises(IndexError):
        program.segment_data(len(program.segments))


@pytest.mark.parametrize("name", FILES)
def test_round_trip_through_writer(name):
    from writers.pte import write
    original = (FIXTURES / name).read_bytes()
    program = explorer.load(original)
    rebuilt = explorer.load(write(program))
    assert rebuilt.plans == program.plans
    assert rebuilt.segments == program.segments
    assert (rebuilt.constant_segment, rebuilt.mutable_data_segments, rebuilt.named_data) == \
        (program.constant_segment, program.mutable_data_segments, program.named_data)
    for seg in program.segments:
        assert rebuilt.segment_data(seg.index) == program.segment_data(seg.index)


def test_tensor_label_and_types():
    plan = explorer.load(FIXTURES / "mutable_state.pte").plan("forward")
    kinds = {v.type for v in plan.values}
    assert {"Tensor", "Int"} <= kinds
    t = plan.tensors[0]
    assert isinstance(t, Tensor) and t.type == "Tensor" and t.label in (t.name, f"%{t.index}")


def test_a_managers_in_memory_data_files_keep_their_own_names():
    """``load(manager)`` names each of an ExecutorchProgramManager's in-memory data files as
    ``write_tensor_data_to_file`` would (``<key>.ptd``), each its own (scripts/mutants.py reader-ptd-name)."""
    from pathlib import Path

    import explorer

    comp = Path(__file__).parent / "fixtures" / "companions"

    class Manager:  # what the reader needs of executorch's ExecutorchProgramManager
        buffer = (comp / "external.pte").read_bytes()
        _tensor_data = {"external": (comp / "external.ptd").read_bytes(),
                        "more.ptd": (comp / "device_external.ptd").read_bytes()}

    live = explorer.load(Manager())
    assert [f.source for f in live.data_files] == ["external.ptd", "more.ptd"]
