"""The committed flatc bindings in explorer/_generated are current and usable."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import flatbuffers
import pytest

from explorer._generated.executorch_flatbuffer.Chain import ChainT
from explorer._generated.executorch_flatbuffer.DeviceType import DeviceType
from explorer._generated.executorch_flatbuffer.EValue import EValueT
from explorer._generated.executorch_flatbuffer.ExecutionPlan import ExecutionPlanT
from explorer._generated.executorch_flatbuffer.ExtraTensorInfo import ExtraTensorInfoT
from explorer._generated.executorch_flatbuffer.Instruction import InstructionT
from explorer._generated.executorch_flatbuffer.InstructionArguments import InstructionArguments
from explorer._generated.executorch_flatbuffer.Int import Int, IntT
from explorer._generated.executorch_flatbuffer.IntList import IntList, IntListT
from explorer._generated.executorch_flatbuffer.KernelCall import KernelCall, KernelCallT
from explorer._generated.executorch_flatbuffer.KernelTypes import KernelTypes
from explorer._generated.executorch_flatbuffer.NonConstBufferDevice import NonConstBufferDeviceT
from explorer._generated.executorch_flatbuffer.Operator import OperatorT
from explorer._generated.executorch_flatbuffer.Program import Program, ProgramT
from explorer._generated.executorch_flatbuffer.ScalarType import ScalarType
from explorer._generated.executorch_flatbuffer.Tensor import Tensor, TensorT

REPO_ROOT = Path(__file__).resolve().parents[1]


def _load_gen_bindings():
    path = REPO_ROOT / "scripts" / "gen_bindings.py"
    spec = importlib.util.spec_from_file_location("gen_bindings", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_bindings", module)
    spec.loader.exec_module(module)
    return module


def test_committed_bindings_match_schema():
    gen = _load_gen_bindings()
    problems = gen.check()
    assert not problems, "explorer/_generated is stale; run `python scripts/gen_bindings.py`:\n" + "\n".join(
        problems
    )


def _build_program() -> bytes:
    tensor = TensorT(
        scalarType=ScalarType.FLOAT,
        sizes=[2, 3],
        dimOrder=[0, 1],
        dataBufferIdx=0,
        extraTensorInfo=ExtraTensorInfoT(deviceType=DeviceType.CUDA, deviceIndex=1),
    )
    plan = ExecutionPlanT(
        name="forward",
        values=[
            EValueT(valType=KernelTypes.Tensor, val=tensor),
            EValueT(valType=KernelTypes.Int, val=IntT(intVal=-7)),
            EValueT(valType=KernelTypes.IntList, val=IntListT(items=[0, 1, 1 << 40])),
        ],
        inputs=[0],
        outputs=[0],
        operators=[OperatorT(name="aten::add", overload="out")],
        chains=[
            ChainT(
                inputs=[0],
                outputs=[0],
                instructions=[
                    InstructionT(
                        instrArgsType=InstructionArguments.KernelCall,
                        instrArgs=KernelCallT(opIndex=0, args=[0, 1, 0]),
                    )
                ],
            )
        ],
        nonConstBufferSizes=[0, 64],
        nonConstBufferDevice=[NonConstBufferDeviceT(bufferIdx=1, deviceType=DeviceType.CUDA, deviceIndex=1)],
    )
    builder = flatbuffers.Builder(1024)
    root = ProgramT(version=0, executionPlan=[plan]).Pack(builder)
    builder.Finish(root, file_identifier=b"ET12")
    return bytes(builder.Output())


def test_object_api_round_trip():
    buf = _build_program()
    assert buf[4:8] == b"ET12"
    assert Program.ProgramBufferHasIdentifier(buf, 0)

    program = Program.GetRootAs(buf, 0)
    assert program.ExecutionPlanLength() == 1
    plan = program.ExecutionPlan(0)
    assert plan.Name() == b"forward"
    assert plan.ValuesLength() == 3

    v0 = plan.Values(0)
    assert v0.ValType() == KernelTypes.Tensor
    tensor = Tensor()
    tensor.Init(v0.Val().Bytes, v0.Val().Pos)
    assert tensor.ScalarType() == ScalarType.FLOAT
    assert [tensor.Sizes(i) for i in range(tensor.SizesLength())] == [2, 3]
    info = tensor.ExtraTensorInfo()
    assert info is not None
    assert (info.DeviceType(), info.DeviceIndex()) == (DeviceType.CUDA, 1)

    v1 = plan.Values(1)
    assert v1.ValType() == KernelTypes.Int
    int_val = Int()
    int_val.Init(v1.Val().Bytes, v1.Val().Pos)
    assert int_val.IntVal() == -7

    v2 = plan.Values(2)
    assert v2.ValType() == KernelTypes.IntList
    int_list = IntList()
    int_list.Init(v2.Val().Bytes, v2.Val().Pos)
    assert [int_list.Items(i) for i in range(int_list.ItemsLength())] == [0, 1, 1 << 40]

    assert plan.ChainsLength() == 1
    instr = plan.Chains(0).Instructions(0)
    assert instr.InstrArgsType() == InstructionArguments.KernelCall
    call = KernelCall()
    call.Init(instr.InstrArgs().Bytes, instr.InstrArgs().Pos)
    assert call.OpIndex() == 0
    assert [call.Args(i) for i in range(call.ArgsLength())] == [0, 1, 0]
    assert plan.Operators(0).Name() == b"aten::add"

    assert [plan.NonConstBufferSizes(i) for i in range(plan.NonConstBufferSizesLength())] == [0, 64]
    assert plan.NonConstBufferDeviceLength() == 1
    dev = plan.NonConstBufferDevice(0)
    assert (dev.BufferIdx(), dev.DeviceType(), dev.DeviceIndex()) == (1, DeviceType.CUDA, 1)


def test_object_api_unpack():
    """Unpacking exercises the rewritten (relative) imports in the union creators."""
    program = ProgramT.InitFromPackedBuf(_build_program(), 0)
    (plan,) = program.executionPlan
    tensor, int_val, int_list = (v.val for v in plan.values)
    assert isinstance(tensor, TensorT)
    assert (tensor.extraTensorInfo.deviceType, tensor.extraTensorInfo.deviceIndex) == (DeviceType.CUDA, 1)
    assert isinstance(int_val, IntT) and int_val.intVal == -7
    assert isinstance(int_list, IntListT) and list(int_list.items) == [0, 1, 1 << 40]
    kernel = plan.chains[0].instructions[0].instrArgs
    assert isinstance(kernel, KernelCallT) and list(kernel.args) == [0, 1, 0]
    assert list(plan.nonConstBufferSizes) == [0, 64]
    (dev,) = plan.nonConstBufferDevice
    assert (dev.bufferIdx, dev.deviceType, dev.deviceIndex) == (1, DeviceType.CUDA, 1)


# schema/<file> -> its path inside the executorch wheel (see schema/README.md).
UPSTREAM = {
    "program.fbs": "schema/program.fbs",
    "scalar_type.fbs": "schema/scalar_type.fbs",
    "flat_tensor.fbs": "extension/flat_tensor/serialize/flat_tensor.fbs",
    "bundled_program_schema.fbs": "devtools/bundled_program/schema/bundled_program_schema.fbs",
    "xnnpack_schema.fbs": "backends/xnnpack/serialization/schema.fbs",
    "etdump_schema_flatcc.fbs": "devtools/etdump/etdump_schema_flatcc.fbs",
}


@pytest.mark.interop
def test_vendored_schemas_are_executorchs():
    """Every schema/*.fbs is byte-identical to the file executorch 1.5.1 ships (and none is unlisted)."""
    import executorch

    root = Path(list(executorch.__path__)[0])
    ours = sorted(p.name for p in (REPO_ROOT / "schema").glob("*.fbs"))
    assert ours == sorted(UPSTREAM)
    for name, upstream in UPSTREAM.items():
        assert (REPO_ROOT / "schema" / name).read_bytes() == (root / upstream).read_bytes(), name


def test_companion_bindings_import():
    """The companion namespaces are generated as subpackages and read their own identifiers."""
    from explorer._generated.bundled_program_flatbuffer.BundledProgram import BundledProgram
    from explorer._generated.etdump.ETDump import ETDump
    from explorer._generated.fb_xnnpack.XNNGraph import XNNGraph
    from explorer._generated.flat_tensor_flatbuffer.FlatTensor import FlatTensor

    for cls in (BundledProgram, ETDump, XNNGraph, FlatTensor):
        assert callable(cls.GetRootAs)
