"""Synthetic programs real exports can't give, built by our writer and read back."""

import dataclasses
from pathlib import Path

import pytest

import explorer
from explorer import CPU, Device, PteFormatError
from writers.synth import synthetic_program
from writers.pte import layout_segments, write
from explorer.model.program import BufferDevice, Chain, Instruction, Operator, Plan, Program, Tensor, Value


def _plan(**kw) -> Plan:
    base = dict(name="forward", values=(), inputs=(), outputs=(), chains=(), instructions=(), operators=(),
                delegates=(), buffer_sizes=())
    base.update(kw)
    return Plan(**base)


def _tensor(i, device=CPU, memory_id=1, offset=0, **kw):
    return Tensor(i, 6, (2, 2), (0, 1), device, "planned" if memory_id is not None else "runtime",
                  memory_id, offset if memory_id is not None else None, **kw)


def test_unknown_device_type_loads_and_prints():
    plan = _plan(values=(_tensor(0, Device(7, 2), memory_id=1),), buffer_sizes=(0, 16),
                 buffer_devices=(BufferDevice(1, Device(7, 2)),))
    back = explorer.load(write(Program(0, (plan,)))).plan("forward")
    assert str(back.tensors[0].device) == "unknown(7):2" and not back.tensors[0].device.known
    assert str(back.buffers[0].device) == "unknown(7):2"


def test_cuda1_and_negative_device_index_round_trip():
    plan = _plan(values=(_tensor(0, Device(1, 1)), _tensor(1, Device(1, -1), offset=16)), buffer_sizes=(0, 32),
                 buffer_devices=(BufferDevice(1, Device(1, 1)),))
    back = explorer.load(write(Program(0, (plan,)))).plans[0]
    assert [str(t.device) for t in back.tensors] == ["cuda:1", "cuda:-1"]


def _device_index_slot(data: bytes) -> int:
    """vtable entry of ExtraTensorInfo.device_index of value 0, read with flatc's generated classes."""
    from explorer._generated.executorch_flatbuffer.Program import Program as FbProgram
    from explorer._generated.executorch_flatbuffer.Tensor import Tensor as FbTensor
    from explorer.format.pte import slots as S
    table = FbProgram.GetRootAs(data, 0).ExecutionPlan(0).Values(0).Val()
    tensor = FbTensor()
    tensor.Init(table.Bytes, table.Pos)
    return tensor.ExtraTensorInfo()._tab.Offset(4 + 2 * S.EXTRA_DEVICE_INDEX)


def test_device_index_zero_is_not_written_but_one_is():
    zero = write(Program(0, (_plan(values=(_tensor(0, Device(1, 0)),), buffer_sizes=(0, 16)),)))
    one = write(Program(0, (_plan(values=(_tensor(0, Device(1, 1)),), buffer_sizes=(0, 16)),)))
    assert _device_index_slot(zero) == 0, "schema defaults are left out, like executorch's serializer"
    assert _device_index_slot(one) != 0


def test_no_extended_header_and_no_segments():
    data = write(Program(0, (_plan(),)))
    assert data[8:12] != b"eh00"
    program = explorer.load(data)
    assert program.header is None and program.segments == () and program.plans[0].values == ()


def test_segments_without_header_are_listed_but_unreadable():
    data = write(Program(0, (_plan(),), segments=layout_segments([16])), extended_header=False)
    program = explorer.load(data)
    assert program.header is None and program.segments[0].file_offset is None
    with pytest.raises(PteFormatError, match="no extended header"):
        program.segment_data(0)


def test_empty_program_and_empty_plan():
    assert explorer.load(write(Program(0, ()))).plans == ()
    plan = explorer.load(write(Program(0, (_plan(name=""),)))).plans[0]
    assert plan.name == "" and plan.buffers == () and plan.instructions == ()


def test_huge_declared_sizes_load_without_allocating():
    big = 1 << 40
    plan = _plan(values=(_tensor(0, offset=(1 << 33) + 16),), buffer_sizes=(0, big))
    program = Program(0, (plan,), segments=layout_segments([big]))
    data = write(program, fill_segments=False)
    assert len(data) < 4096
    with pytest.raises(PteFormatError, match="segment_data_size"):
        explorer.load(data)  # the header promises a terabyte the file doesn't have
    loose = explorer.load(write(program, fill_segments=False, extended_header=False))
    assert loose.plans[0].buffers[0].size == big
    assert loose.plans[0].tensors[0].offset == (1 << 33) + 16, "offset = low | high << 32"


def test_sparse_file_with_big_segment(tmp_path):
    size = 1 << 32
    program = Program(0, (_plan(),), segments=layout_segments([size]))
    head = write(program, fill_segments=False)
    path = tmp_path / "sparse.pte"
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(len(head) + size)
    loaded = explorer.load(path)
    assert loaded.segments[0].size == size and loaded.size == len(head) + size


def test_dangling_references_still_load():
    plan = _plan(values=(_tensor(0, memory_id=9),),
                 instructions=(Instruction(0, 0, "KernelCall", (0, 42), op_index=5),
                               Instruction(1, 0, "DelegateCall", (0,), delegate_index=3)),
                 chains=(Chain(0, (), (), 0, 2),), buffer_sizes=(0, 16),
                 buffer_devices=(BufferDevice(5, Device(1, 0)),))
    back = explorer.load(write(Program(0, (plan,)))).plans[0]
    assert back.instructions[0].op is None and back.instructions[0].op_index == 5
    assert back.instructions[1].delegate is None and back.instructions[1].label == "<delegate 3>"
    assert back.tensors[0].memory_id == 9 and back.buffer(9) is None
    assert [b.device for b in back.buffers] == [CPU], "an entry for a missing arena changes nothing"


def test_every_value_kind_round_trips():
    values = (Value(0, "Null"), Value(1, "Int", -5), Value(2, "Bool", True), Value(3, "Double", 2.5),
              Value(4, "String", "héllo <b>"), Value(5, "IntList", (1, 2, 3)), Value(6, "DoubleList", (0.5,)),
              Value(7, "BoolList", (True, False)), Value(8, "TensorList", (10,)),
              Value(9, "OptionalTensorList", (10, -1)), _tensor(10, name="w", has_extra_info=True))
    back = explorer.load(write(Program(0, (_plan(values=values, buffer_sizes=(0, 16)),)))).plans[0]
    assert back.values == values


def test_other_instruction_kinds_round_trip():
    ins = (Instruction(0, 0, "MoveCall", move_from=0, move_to=1),
           Instruction(1, 0, "JumpFalseCall", cond_value_index=2, destination=0),
           Instruction(2, 0, "FreeCall", value_index=1))
    plan = _plan(values=(_tensor(0), _tensor(1, offset=16), Value(2, "Bool", True)), instructions=ins,
                 chains=(Chain(0, (0,), (1,), 0, 3),), buffer_sizes=(0, 32))
    back = explorer.load(write(Program(0, (plan,)))).plans[0]
    assert back.instructions == ins
    assert [i.values for i in back.instructions] == [(0, 1), (2,), (1,)]


def test_synthetic_program_round_trips_and_scales():
    program = synthetic_program(2000, devices=("cuda:0", "cuda:1"))
    back = explorer.load(write(program))
    assert back.plans == tuple(dataclasses.replace(p, delegates=tuple(
        dataclasses.replace(d, data_size=16) for d in p.delegates)) for p in program.plans)
    plan = back.plans[0]
    assert len(plan.values) >= 1990
    assert {str(b.device) for b in plan.buffers} == {"cpu", "cuda:0", "cuda:1"}
    ops = {i.op for i in plan.instructions if i.op}
    assert {"et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"} <= ops
