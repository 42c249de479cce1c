"""Model -> valid ``.pte`` bytes, through the flatc-generated object API.

Real exports can't give every case a debugging tool must handle: unknown device types, ``cuda:1``
arenas, files without an extended header, empty plans, dangling indices, huge declared sizes. The
writer builds them from the same frozen model the reader produces, so ``load(write(p)) == p`` is a
test that ties the hand-written reader to the schema-generated code (and executorch's runtime would
accept the result: it is laid out the way ``exir/_serialize/_program.py`` lays out files).

Schema defaults are not written (as executorch's serializer does), and ``extra_tensor_info`` only
when the tensor needs it (non-CPU device, a name, external data, mutable segment index).
"""

from __future__ import annotations

import struct
from typing import Sequence

import flatbuffers

from explorer._generated import executorch_flatbuffer as fb
from explorer._generated.executorch_flatbuffer import (AllocationDetails, BackendDelegate,
    BackendDelegateDataReference, BackendDelegateInlineData, Bool, BoolList, Buffer, Chain, CompileSpec,
    ContainerMetadata, DataSegment, DelegateCall, Double, DoubleList, EValue, ExecutionPlan, ExtraTensorInfo, Frame,
    FrameList, FreeCall, Instruction, Int, IntList, JumpFalseCall, KernelCall, MoveCall, NamedData,
    NonConstBufferDevice, Null, Operator, OptionalTensorList, Program, String, SubsegmentOffsets, Tensor, TensorList)
from explorer.model.program import Plan, Program as ModelProgram, Segment, Tensor as ModelTensor
from explorer.format.pte.container import HEADER_MAGIC, HEADER_OFFSET
from explorer.format.pte.slots import DATA_LOCATION, INSTRUCTION_KINDS, KERNEL_TYPES, SHAPE_DYNAMISM

__all__ = ["write", "layout_segments", "SEGMENT_ALIGNMENT"]

SEGMENT_ALIGNMENT = 128  # executorch's default segment alignment
_HEADER_LENGTH = 32
_KIND_TAGS = {name: tag for tag, name in KERNEL_TYPES.items()}
_INSTRUCTION_TAGS = {name: tag for tag, name in INSTRUCTION_KINDS.items()}
_DYNAMISM_CODES = {name: code for code, name in SHAPE_DYNAMISM.items()}
_LOCATION_CODES = {name: code for code, name in DATA_LOCATION.items()}
del fb


def _align(n: int, alignment: int) -> int:
    return (n + alignment - 1) // alignment * alignment


def layout_segments(sizes: Sequence[int], alignment: int = SEGMENT_ALIGNMENT) -> tuple[Segment, ...]:
    """Segments of the given sizes, each starting on ``alignment`` (offsets relative to the base)."""
    segments, offset = [], 0
    for i, size in enumerate(sizes):
        segments.append(Segment(i, offset, size))
        offset = _align(offset + size, alignment)
    return tuple(segments)


def write(program: ModelProgram, segment_data: Sequence[bytes] | None = None, *,
          extended_header: bool | None = None, fill_segments: bool = True,
          segment_alignment: int = SEGMENT_ALIGNMENT) -> bytes:
    """Serialize ``program``; segments are placed at their stored offsets after the flatbuffer.

    ``segment_data[i]`` gives segment i's bytes (zeros where missing or too short). With
    ``fill_segments=False`` the result stops at the segment base, for callers that make a sparse file
    of the full size themselves. ``extended_header`` defaults to "when there are segments".
    """
    builder = flatbuffers.Builder(1024)
    builder.Finish(_program_t(program).Pack(builder), file_identifier=program.identifier.encode("ascii"))
    flat = bytes(builder.Output())
    has_header = bool(program.segments) if extended_header is None else extended_header
    if not has_header:
        return flat
    # Insert the header after the identifier; everything after byte 8 shifts together, so only the
    # root offset (relative to byte 0) needs fixing. 32 keeps 16-byte alignment of forced fields.
    root = struct.unpack_from("<I", flat, 0)[0] + _HEADER_LENGTH
    program_size = len(flat) + _HEADER_LENGTH
    base = _align(program_size, segment_alignment)
    end = max((s.offset + s.size for s in program.segments), default=0)
    header = HEADER_MAGIC + struct.pack("<IQQQ", _HEADER_LENGTH, program_size, base, end)
    out = bytearray(struct.pack("<I", root) + flat[4:HEADER_OFFSET] + header + flat[HEADER_OFFSET:])
    out += bytes(base - len(out))
    if not fill_segments:
        return bytes(out)
    out += bytes(end)
    for seg in program.segments:
        data = segment_data[seg.index] if segment_data is not None and seg.index < len(segment_data) else None
        if data is None and program._read is not None and seg.file_offset is not None:
            data = program.segment_data(seg.index)
        if data:
            chunk = bytes(data[:seg.size])
            out[base + seg.offset:base + seg.offset + len(chunk)] = chunk
    return bytes(out)


# -- model -> object API --------------------------------------------------------------------------

def _program_t(p: ModelProgram):
    t = Program.ProgramT()
    t.version = p.version
    t.executionPlan = [_plan_t(plan) for plan in p.plans]
    t.constantBuffer = [_blob(Buffer.BufferT, "storage", n) for n in p.constant_buffer_sizes] or None
    t.backendDelegateData = [_blob(BackendDelegateInlineData.BackendDelegateInlineDataT, "data", n)
                             for n in p.delegate_data_sizes] or None
    t.segments = [_segment_t(s) for s in p.segments] or None
    t.constantSegment = _subsegment_t(p.constant_segment) if p.constant_segment else None
    t.mutableDataSegments = [_subsegment_t(s) for s in p.mutable_data_segments] or None
    t.namedData = [_named_t(n) for n in p.named_data] or None
    return t


def _blob(cls, attr: str, size: int):
    t = cls()
    setattr(t, attr, [0] * size)
    return t


def _segment_t(s: Segment):
    t = DataSegment.DataSegmentT()
    t.offset, t.size = s.offset, s.size
    return t


def _subsegment_t(s):
    t = SubsegmentOffsets.SubsegmentOffsetsT()
    t.segmentIndex, t.offsets = s.segment_index, list(s.offsets)
    return t


def _named_t(n):
    t = NamedData.NamedDataT()
    t.key, t.segmentIndex = n.key, n.segment_index
    return t


def _plan_t(plan: Plan):
    t = ExecutionPlan.ExecutionPlanT()
    t.name = plan.name
    if plan.encoded_inputs is not None or plan.encoded_outputs is not None:
        meta = ContainerMetadata.ContainerMetadataT()
        meta.encodedInpStr, meta.encodedOutStr = plan.encoded_inputs, plan.encoded_outputs
        t.containerMetaType = meta
    t.values = [_evalue_t(v) for v in plan.values]
    t.inputs, t.outputs = list(plan.inputs), list(plan.outputs)
    t.chains = [_chain_t(c, plan) for c in plan.chains]
    t.operators = [_operator_t(o) for o in plan.operators]
    t.delegates = [_delegate_t(d) for d in plan.delegates]
    t.nonConstBufferSizes = list(plan.buffer_sizes)
    devices = []
    for bd in plan.buffer_devices:
        d = NonConstBufferDevice.NonConstBufferDeviceT()
        d.bufferIdx, d.deviceType, d.deviceIndex = bd.buffer_idx, bd.device.type, bd.device.index
        devices.append(d)
    t.nonConstBufferDevice = devices or None
    return t


_SCALAR_TABLES = {
    "Int": (Int.IntT, "intVal"), "Bool": (Bool.BoolT, "boolVal"), "Double": (Double.DoubleT, "doubleVal"),
    "String": (String.StringT, "stringVal"), "IntList": (IntList.IntListT, "items"),
    "DoubleList": (DoubleList.DoubleListT, "items"), "BoolList": (BoolList.BoolListT, "items"),
    "TensorList": (TensorList.TensorListT, "items"),
    "OptionalTensorList": (OptionalTensorList.OptionalTensorListT, "items"),
}


def _evalue_t(v):
    t = EValue.EValueT()
    if isinstance(v, ModelTensor):
        t.valType, t.val = _KIND_TAGS["Tensor"], _tensor_t(v)
        return t
    t.valType = _KIND_TAGS[v.type]
    if v.type == "Null":
        t.val = Null.NullT()
    elif v.type in _SCALAR_TABLES:
        cls, attr = _SCALAR_TABLES[v.type]
        t.val = cls()
        setattr(t.val, attr, list(v.value) if isinstance(v.value, tuple) else v.value)
    return t


def _tensor_t(x: ModelTensor):
    t = Tensor.TensorT()
    t.scalarType, t.storageOffset = x.scalar_type, x.storage_offset
    t.sizes, t.dimOrder = list(x.sizes), list(x.dim_order)
    t.requiresGrad, t.dataBufferIdx, t.layout = x.requires_grad, x.data_buffer_idx, x.layout
    t.shapeDynamism = _DYNAMISM_CODES.get(x.shape_dynamism, 0)
    if x.memory_id is not None:
        a = AllocationDetails.AllocationDetailsT()
        offset = x.offset or 0
        a.memoryId, a.memoryOffsetLow, a.memoryOffsetHigh = x.memory_id, offset & 0xFFFFFFFF, offset >> 32
        t.allocationInfo = a
    needs_extra = (x.has_extra_info or not x.device.is_cpu or x.device.index or x.name is not None
                   or x.storage == "external" or x.mutable_data_segments_idx is not None)
    if needs_extra:
        e = ExtraTensorInfo.ExtraTensorInfoT()
        e.mutableDataSegmentsIdx = x.mutable_data_segments_idx or 0
        e.fullyQualifiedName = x.name
        e.location = 1 if x.storage == "external" else 0
        e.deviceType, e.deviceIndex = x.device.type, x.device.index
        t.extraTensorInfo = e
    return t


def _chain_t(c, plan: Plan):
    t = Chain.ChainT()
    t.inputs, t.outputs = list(c.inputs), list(c.outputs)
    instructions = plan.instructions[c.start:c.stop]
    t.instructions = [_instruction_t(i) for i in instructions]
    if any(i.stacktrace is not None for i in instructions):
        t.stacktrace = [_frames_t(i.stacktrace or ()) for i in instructions]
    return t


def _frames_t(frames):
    t = FrameList.FrameListT()
    items = []
    for f in frames:
        ft = Frame.FrameT()
        ft.filename, ft.lineno, ft.name, ft.context = f.filename, f.lineno, f.name, f.context
        items.append(ft)
    t.items = items
    return t


def _instruction_t(i):
    t = Instruction.InstructionT()
    t.instrArgsType = _INSTRUCTION_TAGS.get(i.kind, 0)
    if i.kind == "KernelCall":
        a = KernelCall.KernelCallT()
        a.opIndex, a.args = i.op_index, list(i.args)
    elif i.kind == "DelegateCall":
        a = DelegateCall.DelegateCallT()
        a.delegateIndex, a.args = i.delegate_index, list(i.args)
    elif i.kind == "MoveCall":
        a = MoveCall.MoveCallT()
        a.moveFrom, a.moveTo = i.move_from, i.move_to
    elif i.kind == "JumpFalseCall":
        a = JumpFalseCall.JumpFalseCallT()
        a.condValueIndex, a.destinationInstruction = i.cond_value_index, i.destination
    elif i.kind == "FreeCall":
        a = FreeCall.FreeCallT()
        a.valueIndex = i.value_index
    else:
        a = None
    t.instrArgs = a
    return t


def _operator_t(o):
    t = Operator.OperatorT()
    t.name, t.overload = o.name, o.overload
    return t


def _delegate_t(d):
    t = BackendDelegate.BackendDelegateT()
    t.id = d.id
    ref = BackendDelegateDataReference.BackendDelegateDataReferenceT()
    ref.location, ref.index = _LOCATION_CODES.get(d.location, 0), d.data_index
    t.processed = ref
    specs = []
    for s in d.compile_specs:
        st = CompileSpec.CompileSpecT()
        st.key, st.value = s.key, list(s.value)
        specs.append(st)
    t.compileSpecs = specs
    return t
