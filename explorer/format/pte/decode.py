"""Flatbuffer tables -> the frozen model (``explorer.model``).

Decodes only what the model needs, table by table, through :class:`FlatReader` (cached vtables,
one ``unpack_from`` per field). Errors raised deep down carry a byte offset; each level here adds its
schema path on the way out (``execution_plan[0].values[12].val(Tensor).sizes``), which costs
nothing when nothing goes wrong. Segment *data* is never touched: only the segment table is read.
"""

from __future__ import annotations

import dataclasses

from explorer.errors import PteFormatError
from explorer.model.program import (BufferDevice, Chain, CompileSpec, Delegate, Frame, NamedData, Operator, Plan,
    Segment, SubsegmentOffsets)
from explorer.format.pte import slots as S
from explorer.format.pte.columnar import (decode_instructions, decode_instructions_many, decode_values,
    decode_values_many, device as _device)
from explorer.format.flatbuf import FlatReader
from explorer.format.gather import Gather

__all__ = ["decode_program_fields"]


def decode_program_fields(r: FlatReader, root: int, segment_base: int | None) -> dict:
    """Decode the root Program table into keyword arguments for :class:`~explorer.model.Program`."""
    try:
        vt = r.table(root)
    except PteFormatError as exc:
        raise exc.within("program") from None
    out: dict = {"version": r.field(root, vt, S.PROGRAM_VERSION, "I")}
    g = Gather(r.buf, r)
    positions = _tables(r, root, vt, S.PROGRAM_EXECUTION_PLAN, "execution_plan")
    plans = _plans_together(r, g, positions) if len(set(positions)) > 1 else None
    if plans is None:
        plans = _plans_one_by_one(r, g, positions)
    out["plans"] = tuple(plans)
    try:
        out["segments"] = tuple(_segments(r, root, vt, segment_base))
        out["constant_segment"] = _subsegment(r, r.ref(root, vt, S.PROGRAM_CONSTANT_SEGMENT))
        out["mutable_data_segments"] = tuple(
            _subsegment(r, p) for p in r.tables(r.ref(root, vt, S.PROGRAM_MUTABLE_DATA_SEGMENTS)))
        out["named_data"] = tuple(r.once("named_data", p, lambda q: _named_data(r, q))
                                  for p in r.tables(r.ref(root, vt, S.PROGRAM_NAMED_DATA)))
        out["constant_buffer_sizes"] = _blob_sizes(r, r.ref(root, vt, S.PROGRAM_CONSTANT_BUFFER))
        out["delegate_data_sizes"] = _blob_sizes(r, r.ref(root, vt, S.PROGRAM_BACKEND_DELEGATE_DATA))
    except PteFormatError as exc:
        raise exc.within("program") from None
    return out


def _plans_one_by_one(r: FlatReader, g: Gather, positions: list[int]) -> list[Plan]:
    """Each plan decoded on its own, in order: the first error is the one a reader meets reading in order."""
    plans = []
    decoded: dict[int, tuple[Plan, int]] = {}  # plan position -> (plan, bytes of elements it decoded)
    for i, pos in enumerate(positions):
        try:
            seen = decoded.get(pos)
            if seen is None:  # a plan listed twice is decoded once, but counts twice (its readers pay twice)
                before = r.budget
                seen = decoded[pos] = (_plan(r, g, pos), before - r.budget)
            else:
                r.charge(seen[1], pos)
            plans.append(seen[0])
        except PteFormatError as exc:
            raise exc.within(f"execution_plan[{i}]") from None
    return plans


def _plans_together(r: FlatReader, g: Gather, positions: list[int]) -> list[Plan] | None:
    """Every plan decoded at once: the values of all plans in one columnar pass, and their instructions in
    another. 3,500 plans of twenty values each took 8 s one by one (a few hundred numpy calls of fixed cost
    per plan) and take what one plan of 70,000 values takes together. None when anything is wrong with the
    file (or its aliasing would overspend the reader's budget): the caller then decodes plan by plan, so the
    error raised, its path and its offset are exactly those of reading in order."""
    mark = r.mark()  # as it was, for the plan-by-plan reading
    try:
        distinct = list(dict.fromkeys(positions))
        heads = []
        for pos in distinct:
            before = r.budget
            heads.append((_plan_head(r, pos), before - r.budget))
        value_parts, value_costs = decode_values_many(g, [h.values for h, _ in heads])
        instruction_parts, instruction_costs = decode_instructions_many(
            g, [(h.chain_vecs, [op.full_name for op in h.operators], [d.id for d in h.delegates], h.traces)
                for h, _ in heads])
    except PteFormatError:
        r.rewind(mark)
        return None
    decoded: dict[int, tuple[Plan, int]] = {}
    for k, pos in enumerate(distinct):
        head, cost = heads[k]
        values, value_cols = value_parts[k]
        instructions, instruction_cols, bounds = instruction_parts[k]
        chains = tuple(Chain(c, head.chain_inputs[c], head.chain_outputs[c], bounds[c], bounds[c + 1])
                       for c in range(len(head.chain_vecs)))
        plan = Plan(head.name, values, head.inputs, head.outputs, chains, instructions, tuple(head.operators),
                    tuple(head.delegates), head.sizes, tuple(head.devices), head.enc_in, head.enc_out,
                    _columns=(value_cols, instruction_cols))
        decoded[pos] = (plan, cost + int(value_costs[k]) + int(instruction_costs[k]))
    again = sum(decoded[pos][1] for pos in positions) - sum(decoded[pos][1] for pos in distinct)
    if again > r.budget:  # a plan listed again is charged again; past the budget, say where in order
        r.rewind(mark)
        return None
    r.budget -= again
    return [decoded[pos][0] for pos in positions]


# -- program-level tables ----------------------------------------------------------------------

def _each(positions: list[int], name: str, decode) -> list:
    """``decode(position, index)`` for every table of a vector; an error names ``name[index]``."""
    out = []
    for i, p in enumerate(positions):
        try:
            out.append(decode(p, i))
        except PteFormatError as exc:
            raise exc.within(f"{name}[{i}]") from None
    return out


def _tables(r: FlatReader, pos: int, vt, slot: int, name: str) -> list[int]:
    try:
        return r.tables(r.ref(pos, vt, slot))
    except PteFormatError as exc:
        raise exc.within(name) from None


def _segments(r: FlatReader, root: int, vt, base: int | None):
    for i, pos in enumerate(r.tables(r.ref(root, vt, S.PROGRAM_SEGMENTS))):
        try:
            offset, size = r.once("segment", pos, lambda p: _segment(r, p))
        except PteFormatError as exc:
            raise exc.within(f"segments[{i}]") from None
        yield Segment(i, offset, size, None if base is None else base + offset)


def _segment(r: FlatReader, pos: int) -> tuple[int, int]:
    svt = r.table(pos)
    return r.field(pos, svt, S.SEGMENT_OFFSET, "Q"), r.field(pos, svt, S.SEGMENT_SIZE, "Q")


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
    return tuple(r.once("blob", p, lambda q: _blob_size(r, q)) for p in r.tables(pos))


def _blob_size(r: FlatReader, pos: int) -> int:
    vt = r.table(pos)
    data = r.ref(pos, vt, S.BLOB_DATA)
    return 0 if data is None else r.vector(data, 1)[1]


# -- execution plan ------------------------------------------------------------------------------

def _plan(r: FlatReader, g: Gather, pos: int) -> Plan:
    """One plan, its parts read in the order of the schema (which decides which error a bad file shows)."""
    vt = r.table(pos)
    name, enc_in, enc_out = _plan_names(r, pos, vt)
    try:
        values, value_cols = decode_values(g, r.ref(pos, vt, S.PLAN_VALUES))
    except PteFormatError as exc:
        raise exc if (exc.path or "").startswith("values") else exc.within("values") from None
    inputs, outputs = _plan_io(r, pos, vt)
    operators, delegates = _plan_operators(r, pos, vt), _plan_delegates(r, pos, vt)
    chains, instructions, instruction_cols = _chains(r, g, _tables(r, pos, vt, S.PLAN_CHAINS, "chains"),
                                                     operators, delegates)
    sizes, devices = _plan_buffers(r, pos, vt)
    return Plan(name, values, inputs, outputs, chains, instructions, tuple(operators), tuple(delegates),
                sizes, tuple(devices), enc_in, enc_out, _columns=(value_cols, instruction_cols))


@dataclasses.dataclass
class _Head:
    """A plan's tables read one by one (names, operators, delegates, chains' own fields, arenas); its values
    and instructions, the columnar bulk, are decoded with every other plan's."""

    name: str
    enc_in: str | None
    enc_out: str | None
    values: int | None  # position of the values vector
    inputs: tuple
    outputs: tuple
    operators: list
    delegates: list
    chain_inputs: list
    chain_outputs: list
    chain_vecs: list
    traces: list
    sizes: tuple
    devices: list


def _plan_head(r: FlatReader, pos: int) -> _Head:
    vt = r.table(pos)
    name, enc_in, enc_out = _plan_names(r, pos, vt)
    values = r.ref(pos, vt, S.PLAN_VALUES)
    inputs, outputs = _plan_io(r, pos, vt)
    operators, delegates = _plan_operators(r, pos, vt), _plan_delegates(r, pos, vt)
    chain_inputs, chain_outputs, vecs, traces = _chain_tables(r, _tables(r, pos, vt, S.PLAN_CHAINS, "chains"))
    sizes, devices = _plan_buffers(r, pos, vt)
    return _Head(name, enc_in, enc_out, values, inputs, outputs, operators, delegates, chain_inputs,
                 chain_outputs, vecs, traces, sizes, devices)


def _plan_names(r: FlatReader, pos: int, vt) -> tuple[str, str | None, str | None]:
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
    return name, enc_in, enc_out


def _plan_io(r: FlatReader, pos: int, vt) -> tuple[tuple, tuple]:
    try:
        return r.scalars(r.ref(pos, vt, S.PLAN_INPUTS), "i"), r.scalars(r.ref(pos, vt, S.PLAN_OUTPUTS), "i")
    except PteFormatError as exc:
        raise exc.within("inputs/outputs") from None


def _plan_operators(r: FlatReader, pos: int, vt) -> list[Operator]:
    def operator(p: int, _i: int) -> Operator:
        ovt = r.table(p)
        return Operator(r.string(r.ref(p, ovt, S.OPERATOR_NAME)) or "",
                        r.string(r.ref(p, ovt, S.OPERATOR_OVERLOAD)) or "")

    return _each(_tables(r, pos, vt, S.PLAN_OPERATORS, "operators"), "operators",
                 lambda p, i: r.once("operator", p, lambda q: operator(q, i)))  # listed again: decoded once


def _plan_delegates(r: FlatReader, pos: int, vt) -> list[Delegate]:
    return _each(_tables(r, pos, vt, S.PLAN_DELEGATES, "delegates"), "delegates", lambda p, i: _delegate(r, p, i))


def _plan_buffers(r: FlatReader, pos: int, vt) -> tuple[tuple, list[BufferDevice]]:
    try:
        sizes = r.scalars(r.ref(pos, vt, S.PLAN_NON_CONST_BUFFER_SIZES), "q")
    except PteFormatError as exc:
        raise exc.within("non_const_buffer_sizes") from None

    def buffer_device(p: int, _i: int) -> BufferDevice:
        bvt = r.table(p)
        return BufferDevice(r.field(p, bvt, S.BUFDEV_BUFFER_IDX, "i"),
                            _device(r.field(p, bvt, S.BUFDEV_DEVICE_TYPE, "b"), r.field(p, bvt, S.BUFDEV_DEVICE_INDEX, "b")))

    devices = _each(_tables(r, pos, vt, S.PLAN_NON_CONST_BUFFER_DEVICE, "non_const_buffer_device"),
                    "non_const_buffer_device", lambda p, i: r.once("buffer_device", p, lambda q: buffer_device(q, i)))
    return sizes, devices


def _delegate(r: FlatReader, pos: int, index: int) -> Delegate:
    """Delegate ``index``; a table listed again is decoded once (its index is the listing's own)."""
    return Delegate(index, *r.once("delegate", pos, lambda p: _delegate_fields(r, p)))


def _delegate_fields(r: FlatReader, pos: int) -> tuple:
    vt = r.table(pos)
    ident = r.string(r.ref(pos, vt, S.DELEGATE_ID)) or ""
    location, data_index = "inline", 0
    ref = r.ref(pos, vt, S.DELEGATE_PROCESSED)
    if ref is not None:
        rvt = r.table(ref)
        code = r.field(ref, rvt, S.DATAREF_LOCATION, "b")
        location = S.DATA_LOCATION.get(code, f"unknown({code})")
        data_index = r.field(ref, rvt, S.DATAREF_INDEX, "I")
    def spec(p: int, _i: int) -> CompileSpec:
        svt = r.table(p)
        return CompileSpec(r.string(r.ref(p, svt, S.COMPILE_SPEC_KEY)) or "",
                           r.raw_bytes(r.ref(p, svt, S.COMPILE_SPEC_VALUE)))

    specs = _each(r.tables(r.ref(pos, vt, S.DELEGATE_COMPILE_SPECS)), "compile_specs",
                  lambda p, i: r.once("compile_spec", p, lambda q: spec(q, i)))
    return ident, location, data_index, tuple(specs)


# -- chains ----------------------------------------------------------------------------------------

def _chains(r: FlatReader, g: Gather, positions: list[int], operators: list, delegates: list):
    inputs, outputs, vecs, traces = _chain_tables(r, positions)
    instructions, columns, bounds = decode_instructions(
        g, vecs, [op.full_name for op in operators], [d.id for d in delegates], traces)
    chains = tuple(Chain(c, inputs[c], outputs[c], bounds[c], bounds[c + 1]) for c in range(len(positions)))
    return chains, instructions, columns


def _chain_tables(r: FlatReader, positions: list[int]) -> tuple[list, list, list, list]:
    """Each chain's inputs, outputs, instruction vector (its position) and stacktraces."""
    inputs, outputs, vecs, traces = [], [], [], []
    for c, pos in enumerate(positions):
        try:
            vt = r.table(pos)
            inputs.append(r.scalars(r.ref(pos, vt, S.CHAIN_INPUTS), "i"))
            outputs.append(r.scalars(r.ref(pos, vt, S.CHAIN_OUTPUTS), "i"))
            vecs.append(r.ref(pos, vt, S.CHAIN_INSTRUCTIONS))
            traces.append(_stacktrace(r, r.ref(pos, vt, S.CHAIN_STACKTRACE)))
        except PteFormatError as exc:
            raise exc.within(f"chains[{c}]") from None
    return inputs, outputs, vecs, traces


def _stacktrace(r: FlatReader, pos: int | None) -> list:
    traces = []
    for i, p in enumerate(r.tables(pos)):
        try:
            traces.append(r.once("frame_list", p, lambda q: _frames(r, q)))
        except PteFormatError as exc:
            raise exc.within(f"stacktrace[{i}]") from None
    return traces


def _frames(r: FlatReader, pos: int) -> tuple:
    """A FrameList's frames; a frame (or a list) listed again is decoded once (FlatReader.once)."""
    vt = r.table(pos)
    return tuple(r.once("frame", f, lambda q: _frame(r, q)) for f in r.tables(r.ref(pos, vt, S.FRAMELIST_ITEMS)))


def _frame(r: FlatReader, pos: int) -> Frame:
    fvt = r.table(pos)
    return Frame(r.string(r.ref(pos, fvt, S.FRAME_FILENAME)), r.field(pos, fvt, S.FRAME_LINENO, "i"),
                 r.string(r.ref(pos, fvt, S.FRAME_NAME)), r.string(r.ref(pos, fvt, S.FRAME_CONTEXT)))
