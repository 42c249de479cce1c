"""Flatbuffer tables -> the frozen model (``explorer.model``).

Decodes only what the model needs, table by table, through :class:`FlatReader` (cached vtables,
one ``unpack_from`` per field). Errors raised deep down carry a byte offset; each level here adds its
schema path on the way out (``execution_plan[0].values[12].val(Tensor).sizes``), which costs
nothing when nothing goes wrong. Segment *data* is never touched: only the segment table is read.
"""

from __future__ import annotations

from ..errors import PteFormatError
from ..model import (
    CPU, BufferDevice, Chain, CompileSpec, Delegate, Device, Frame, Instruction, NamedData, Operator,
    Plan, Segment, SubsegmentOffsets, Tensor, Value,
)
from . import schema as S
from .flatbuf import FlatReader

__all__ = ["decode_program_fields"]


def decode_program_fields(r: FlatReader, root: int, segment_base: int | None) -> dict:
    """Decode the root Program table into keyword arguments for :class:`~explorer.model.Program`."""
    try:
        vt = r.table(root)
    except PteFormatError as exc:
        raise exc.within("program") from None
    out: dict = {"version": r.field(root, vt, S.PROGRAM_VERSION, "I")}
    plans = []
    for i, pos in enumerate(_tables(r, root, vt, S.PROGRAM_EXECUTION_PLAN, "execution_plan")):
        try:
            plans.append(_plan(r, pos))
        except PteFormatError as exc:
            raise exc.within(f"execution_plan[{i}]") from None
    out["plans"] = tuple(plans)
    try:
        out["segments"] = tuple(_segments(r, root, vt, segment_base))
        out["constant_segment"] = _subsegment(r, r.ref(root, vt, S.PROGRAM_CONSTANT_SEGMENT))
        out["mutable_data_segments"] = tuple(
            _subsegment(r, p) for p in r.tables(r.ref(root, vt, S.PROGRAM_MUTABLE_DATA_SEGMENTS)))
        out["named_data"] = tuple(_named_data(r, p) for p in r.tables(r.ref(root, vt, S.PROGRAM_NAMED_DATA)))
        out["constant_buffer_sizes"] = _blob_sizes(r, r.ref(root, vt, S.PROGRAM_CONSTANT_BUFFER))
        out["delegate_data_sizes"] = _blob_sizes(r, r.ref(root, vt, S.PROGRAM_BACKEND_DELEGATE_DATA))
    except PteFormatError as exc:
        raise exc.within("program") from None
    return out


# -- program-level tables ----------------------------------------------------------------------

def _tables(r: FlatReader, pos: int, vt, slot: int, name: str) -> list[int]:
    try:
        return r.tables(r.ref(pos, vt, slot))
    except PteFormatError as exc:
        raise exc.within(name) from None


def _segments(r: FlatReader, root: int, vt, base: int | None):
    for i, pos in enumerate(r.tables(r.ref(root, vt, S.PROGRAM_SEGMENTS))):
        try:
            svt = r.table(pos)
            offset = r.field(pos, svt, S.SEGMENT_OFFSET, "Q")
            size = r.field(pos, svt, S.SEGMENT_SIZE, "Q")
        except PteFormatError as exc:
            raise exc.within(f"segments[{i}]") from None
        yield Segment(i, offset, size, None if base is None else base + offset)


def _subsegment(r: FlatReader, pos: int | None) -> SubsegmentOffsets | None:
    if pos is None:
        return None
    vt = r.table(pos)
    return SubsegmentOffsets(r.field(pos, vt, S.SUBSEGMENT_SEGMENT_INDEX, "I"),
                             r.scalars(r.ref(pos, vt, S.SUBSEGMENT_OFFSETS), "Q"))


def _named_data(r: FlatReader, pos: int) -> NamedData:
    vt = r.table(pos)
    return NamedData(r.string(r.ref(pos, vt, S.NAMED_DATA_KEY)) or "",
                     r.field(pos, vt, S.NAMED_DATA_SEGMENT_INDEX, "I"))


def _blob_sizes(r: FlatReader, pos: int | None) -> tuple[int, ...]:
    sizes = []
    for p in r.tables(pos):
        vt = r.table(p)
        data = r.ref(p, vt, S.BLOB_DATA)
        sizes.append(0 if data is None else r.vector(data, 1)[1])
    return tuple(sizes)


# -- execution plan ------------------------------------------------------------------------------

def _plan(r: FlatReader, pos: int) -> Plan:
    vt = r.table(pos)
    name = r.string(r.ref(pos, vt, S.PLAN_NAME)) or ""
    enc_in = enc_out = None
    meta = r.ref(pos, vt, S.PLAN_CONTAINER_META_TYPE)
    if meta is not None:
        try:
            mvt = r.table(meta)
            enc_in = r.string(r.ref(meta, mvt, S.CONTAINER_ENCODED_INP_STR))
            enc_out = r.string(r.ref(meta, mvt, S.CONTAINER_ENCODED_OUT_STR))
        except PteFormatError as exc:
            raise exc.within("container_meta_type") from None
    values = _values(r, _tables(r, pos, vt, S.PLAN_VALUES, "values"))
    try:
        inputs = r.scalars(r.ref(pos, vt, S.PLAN_INPUTS), "i")
        outputs = r.scalars(r.ref(pos, vt, S.PLAN_OUTPUTS), "i")
    except PteFormatError as exc:
        raise exc.within("inputs/outputs") from None
    operators = []
    for i, p in enumerate(_tables(r, pos, vt, S.PLAN_OPERATORS, "operators")):
        try:
            ovt = r.table(p)
            operators.append(Operator(r.string(r.ref(p, ovt, S.OPERATOR_NAME)) or "",
                                      r.string(r.ref(p, ovt, S.OPERATOR_OVERLOAD)) or ""))
        except PteFormatError as exc:
            raise exc.within(f"operators[{i}]") from None
    delegates = []
    for i, p in enumerate(_tables(r, pos, vt, S.PLAN_DELEGATES, "delegates")):
        try:
            delegates.append(_delegate(r, p, i))
        except PteFormatError as exc:
            raise exc.within(f"delegates[{i}]") from None
    chains, instructions = _chains(r, _tables(r, pos, vt, S.PLAN_CHAINS, "chains"), operators, delegates)
    try:
        sizes = r.scalars(r.ref(pos, vt, S.PLAN_NON_CONST_BUFFER_SIZES), "q")
    except PteFormatError as exc:
        raise exc.within("non_const_buffer_sizes") from None
    devices = []
    for i, p in enumerate(_tables(r, pos, vt, S.PLAN_NON_CONST_BUFFER_DEVICE, "non_const_buffer_device")):
        try:
            bvt = r.table(p)
            devices.append(BufferDevice(
                r.field(p, bvt, S.BUFDEV_BUFFER_IDX, "i"),
                _device(r.field(p, bvt, S.BUFDEV_DEVICE_TYPE, "b"), r.field(p, bvt, S.BUFDEV_DEVICE_INDEX, "b"))))
        except PteFormatError as exc:
            raise exc.within(f"non_const_buffer_device[{i}]") from None
    return Plan(name, values, inputs, outputs, chains, instructions, tuple(operators), tuple(delegates),
                sizes, tuple(devices), enc_in, enc_out)


_DEVICES: dict[tuple[int, int], Device] = {(0, 0): CPU}


def _device(kind: int, index: int) -> Device:
    dev = _DEVICES.get((kind, index))
    if dev is None:
        dev = _DEVICES[(kind, index)] = Device(kind, index)
    return dev


def _delegate(r: FlatReader, pos: int, index: int) -> Delegate:
    vt = r.table(pos)
    ident = r.string(r.ref(pos, vt, S.DELEGATE_ID)) or ""
    location, data_index = "inline", 0
    ref = r.ref(pos, vt, S.DELEGATE_PROCESSED)
    if ref is not None:
        rvt = r.table(ref)
        code = r.field(ref, rvt, S.DATAREF_LOCATION, "b")
        location = S.DATA_LOCATION.get(code, f"unknown({code})")
        data_index = r.field(ref, rvt, S.DATAREF_INDEX, "I")
    specs = []
    for i, p in enumerate(r.tables(r.ref(pos, vt, S.DELEGATE_COMPILE_SPECS))):
        try:
            svt = r.table(p)
            specs.append(CompileSpec(r.string(r.ref(p, svt, S.COMPILE_SPEC_KEY)) or "",
                                     r.raw_bytes(r.ref(p, svt, S.COMPILE_SPEC_VALUE))))
        except PteFormatError as exc:
            raise exc.within(f"compile_specs[{i}]") from None
    return Delegate(index, ident, location, data_index, tuple(specs))


# -- values ------------------------------------------------------------------------------------

_KINDS = S.KERNEL_TYPES
_LIST_CODES = {7: "q", 8: "d", 9: "?", 10: "i", 11: "i"}


def _values(r: FlatReader, positions: list[int]) -> tuple:
    out = []
    append = out.append
    table, field, ref = r.table, r.field, r.ref
    for i, pos in enumerate(positions):
        try:
            vt = table(pos)
            tag = field(pos, vt, S.EVALUE_VAL_TYPE, "B")
            val = ref(pos, vt, S.EVALUE_VAL)
            if tag == 5:
                if val is None:
                    raise PteFormatError("Tensor value has no table", offset=pos)
                append(_tensor(r, val, i))
                continue
            kind = _KINDS.get(tag)
            if kind is None:
                raise PteFormatError(f"EValue union tag {tag} is not a KernelTypes member (0-11)", offset=pos)
            append(Value(i, kind, _scalar_value(r, tag, val)))
        except PteFormatError as exc:
            raise exc.within(f"values[{i}]") from None
    return tuple(out)


def _scalar_value(r: FlatReader, tag: int, pos: int | None):
    if tag <= 1 or pos is None:  # NONE / Null (or a member table the writer left out)
        return None
    vt = r.table(pos)
    if tag == 2:
        return r.field(pos, vt, S.SCALAR_VALUE_SLOT, "q")
    if tag == 3:
        return r.field(pos, vt, S.SCALAR_VALUE_SLOT, "?", False)
    if tag == 4:
        return r.field(pos, vt, S.SCALAR_VALUE_SLOT, "d", 0.0)
    if tag == 6:
        return r.string(r.ref(pos, vt, S.SCALAR_VALUE_SLOT)) or ""
    return r.scalars(r.ref(pos, vt, S.SCALAR_VALUE_SLOT), _LIST_CODES[tag])


def _tensor(r: FlatReader, pos: int, index: int) -> Tensor:
    try:
        vt = r.table(pos)
        field, ref = r.field, r.ref
        scalar_type = field(pos, vt, S.TENSOR_SCALAR_TYPE, "b")
        sizes = r.scalars(ref(pos, vt, S.TENSOR_SIZES), "i")
        dim_order = r.scalars(ref(pos, vt, S.TENSOR_DIM_ORDER), "B")
        data_buffer_idx = field(pos, vt, S.TENSOR_DATA_BUFFER_IDX, "I")
        memory_id = offset = None
        alloc = ref(pos, vt, S.TENSOR_ALLOCATION_INFO)
        if alloc is not None:
            avt = r.table(alloc)
            memory_id = field(alloc, avt, S.ALLOC_MEMORY_ID, "I")
            offset = (field(alloc, avt, S.ALLOC_MEMORY_OFFSET_LOW, "I")
                      | field(alloc, avt, S.ALLOC_MEMORY_OFFSET_HIGH, "I") << 32)
        device, name, external, mutable_idx = CPU, None, False, None
        extra = ref(pos, vt, S.TENSOR_EXTRA_TENSOR_INFO)
        if extra is not None:
            evt = r.table(extra)
            device = _device(field(extra, evt, S.EXTRA_DEVICE_TYPE, "b"), field(extra, evt, S.EXTRA_DEVICE_INDEX, "b"))
            name = r.string(ref(extra, evt, S.EXTRA_FULLY_QUALIFIED_NAME))
            external = field(extra, evt, S.EXTRA_LOCATION, "b") == S.TENSOR_DATA_LOCATION_EXTERNAL
            if evt[S.EXTRA_MUTABLE_DATA_SEGMENTS_IDX]:
                mutable_idx = field(extra, evt, S.EXTRA_MUTABLE_DATA_SEGMENTS_IDX, "Q")
        if external:
            storage = "external"
        elif memory_id is not None:
            storage = "mutable" if data_buffer_idx > 0 else "planned"
        else:
            storage = "constant" if data_buffer_idx > 0 else "runtime"
        dynamism = field(pos, vt, S.TENSOR_SHAPE_DYNAMISM, "b")
        return Tensor(
            index, scalar_type, sizes, dim_order, device, storage, memory_id, offset, data_buffer_idx, name,
            S.SHAPE_DYNAMISM.get(dynamism) or f"unknown({dynamism})",
            field(pos, vt, S.TENSOR_REQUIRES_GRAD, "?", False), field(pos, vt, S.TENSOR_STORAGE_OFFSET, "i"),
            field(pos, vt, S.TENSOR_LAYOUT, "b"), mutable_idx, extra is not None)
    except PteFormatError as exc:
        raise exc.within("val(Tensor)") from None


# -- chains and instructions -----------------------------------------------------------------------

def _chains(r: FlatReader, positions: list[int], operators: list, delegates: list):
    chains, instructions = [], []
    op_names = [op.full_name for op in operators]
    delegate_ids = [d.id for d in delegates]
    for c, pos in enumerate(positions):
        try:
            vt = r.table(pos)
            inputs = r.scalars(r.ref(pos, vt, S.CHAIN_INPUTS), "i")
            outputs = r.scalars(r.ref(pos, vt, S.CHAIN_OUTPUTS), "i")
            start = len(instructions)
            traces = _stacktrace(r, r.ref(pos, vt, S.CHAIN_STACKTRACE))
            for k, ipos in enumerate(r.tables(r.ref(pos, vt, S.CHAIN_INSTRUCTIONS))):
                try:
                    trace = traces[k] if k < len(traces) else None
                    instructions.append(_instruction(r, ipos, len(instructions), c, op_names, delegate_ids, trace))
                except PteFormatError as exc:
                    raise exc.within(f"instructions[{k}]") from None
            chains.append(Chain(c, inputs, outputs, start, len(instructions)))
        except PteFormatError as exc:
            raise exc.within(f"chains[{c}]") from None
    return tuple(chains), tuple(instructions)


def _instruction(r: FlatReader, pos: int, index: int, chain: int, op_names: list, delegate_ids: list, trace):
    vt = r.table(pos)
    tag = r.field(pos, vt, S.INSTRUCTION_ARGS_TYPE, "B")
    kind = S.INSTRUCTION_KINDS.get(tag)
    if kind is None:
        raise PteFormatError(f"Instruction union tag {tag} is not an InstructionArguments member (0-5)", offset=pos)
    apos = r.ref(pos, vt, S.INSTRUCTION_ARGS)
    if apos is None or tag == 0:
        return Instruction(index, chain, kind, stacktrace=trace)
    try:
        avt = r.table(apos)
        first = r.field(apos, avt, 0, "i")
        if tag == 1:
            args = r.scalars(r.ref(apos, avt, S.CALL_ARGS), "i")
            op = op_names[first] if 0 <= first < len(op_names) else None
            return Instruction(index, chain, kind, args, op_index=first, op=op, stacktrace=trace)
        if tag == 2:
            args = r.scalars(r.ref(apos, avt, S.CALL_ARGS), "i")
            ident = delegate_ids[first] if 0 <= first < len(delegate_ids) else None
            return Instruction(index, chain, kind, args, delegate_index=first, delegate=ident, stacktrace=trace)
        if tag == 3:
            return Instruction(index, chain, kind, move_from=first, move_to=r.field(apos, avt, S.MOVE_TO, "i"),
                               stacktrace=trace)
        if tag == 4:
            return Instruction(index, chain, kind, cond_value_index=first,
                               destination=r.field(apos, avt, S.JUMP_DESTINATION, "i"), stacktrace=trace)
        return Instruction(index, chain, kind, value_index=first, stacktrace=trace)
    except PteFormatError as exc:
        raise exc.within(f"instr_args({kind})") from None


def _stacktrace(r: FlatReader, pos: int | None) -> list:
    traces = []
    for i, p in enumerate(r.tables(pos)):
        try:
            vt = r.table(p)
            frames = []
            for f in r.tables(r.ref(p, vt, S.FRAMELIST_ITEMS)):
                fvt = r.table(f)
                frames.append(Frame(r.string(r.ref(f, fvt, S.FRAME_FILENAME)), r.field(f, fvt, S.FRAME_LINENO, "i"),
                                    r.string(r.ref(f, fvt, S.FRAME_NAME)), r.string(r.ref(f, fvt, S.FRAME_CONTEXT))))
            traces.append(tuple(frames))
        except PteFormatError as exc:
            raise exc.within(f"stacktrace[{i}]") from None
    return traces
