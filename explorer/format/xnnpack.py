"""An ``XnnpackBackend`` delegate payload -> the subgraph it runs (:class:`DelegateGraph`).

The payload, as ``backends/xnnpack/serialization/xnnpack_graph_serialize.py`` writes it: a 30-byte
little-endian header — 4 zero bytes, magic ``XH00`` (bytes 4-7), header length (uint16, 8-9),
flatbuffer offset (uint32, 10-13) and size (uint32, 14-17), constant data offset (uint32, 18-21) and
size (uint64, 22-29) — then an ``XNNGraph`` flatbuffer (identifier ``XN01``) and inline constant data.
Older payloads are the bare flatbuffer. Constants may instead live in named data (``named_key``).

Decoded by our own bounds-checked reader (never flatc's object API), so a bad payload becomes a
PteFormatError naming the byte offset *inside the payload*; the analysis turns that into a
``bad-delegate-payload`` finding instead of a crash.
"""

from __future__ import annotations

import struct

from ..errors import PteFormatError
from ..model_companions import DelegateGraph, GraphNode, GraphValue
from . import companion_schema as C
from .flatbuf import FlatReader

__all__ = ["decode_xnnpack", "is_xnnpack", "needed_prefix", "HEADER_MAGIC", "IDENTIFIER"]

HEADER_MAGIC = b"XH00"
IDENTIFIER = b"XN01"
_HEADER = struct.Struct("<4s4sHIIIQ")  # zeros, magic, length, fb offset, fb size, const offset, const size
_INVALID_ID = 0xFFFFFFFF  # XNN_INVALID_VALUE_ID: an optional input (no bias, no mask) left out


class _Reader(FlatReader):
    """XNNPACK's convolution tables have 20 fields; read them all."""

    __slots__ = ()
    slots_read = C.MAX_NODE_SLOT


def needed_prefix(head: bytes) -> int | None:
    """Bytes of a payload starting with ``head`` (>= 30 bytes) that decoding reads: the header and the
    flatbuffer, not the constant data after them. None: read it all (no XH00 header)."""
    if len(head) < _HEADER.size or head[4:8] != HEADER_MAGIC:
        return None
    _, _, _, fb_start, fb_size, _, _ = _HEADER.unpack_from(head, 0)
    return fb_start + fb_size


def is_xnnpack(payload: bytes) -> bool:
    """Whether the payload starts like an XNNPACK one (``XH00`` header, or a bare ``XN01`` flatbuffer)."""
    return payload[4:8] in (HEADER_MAGIC, IDENTIFIER)


def decode_xnnpack(payload: bytes, total_size: int | None = None) -> DelegateGraph:
    """Decode the nodes and values of an XNNPACK payload; PteFormatError (payload offsets) when bad.

    ``total_size``: the whole payload's size when ``payload`` is only its head (header + flatbuffer, see
    :func:`needed_prefix`), so inline constant data need not be read.
    """
    size = len(payload) if total_size is None else total_size
    if len(payload) < min(size, 8):
        raise PteFormatError(f"payload of {size} bytes given as {len(payload)}", offset=len(payload))
    fb_start, fb_size, const_size = 0, size, 0
    if payload[4:8] == HEADER_MAGIC:
        if size < _HEADER.size:
            raise PteFormatError(f"XH00 header needs {_HEADER.size} bytes, the payload has {size}", offset=0)
        _, _, length, fb_start, fb_size, const_start, const_size = _HEADER.unpack_from(payload, 0)
        if length < _HEADER.size:
            raise PteFormatError(f"XH00 header length {length} is shorter than {_HEADER.size}", offset=8)
        if fb_start < length or fb_start + fb_size > min(size, len(payload)) or fb_size < 8:
            raise PteFormatError(f"XH00 header puts the flatbuffer at bytes {fb_start}..{fb_start + fb_size}, "
                                 f"outside the {size}-byte payload (after its {length}-byte header)", offset=10)
        if const_size and (const_start < fb_start + fb_size or const_start + const_size > size):
            raise PteFormatError(f"XH00 header puts {const_size} bytes of constant data at byte {const_start}, "
                                 f"outside the payload after the flatbuffer ({size} bytes)", offset=18)
    elif payload[4:8] != IDENTIFIER:
        raise PteFormatError(f"expected the XNNPACK header magic 'XH00' or identifier 'XN01' at bytes 4-8, "
                             f"found {bytes(payload[4:8])!r}", offset=4)
    view = memoryview(payload)[fb_start:fb_start + fb_size]
    try:
        return _graph(view, fb_size, const_size)
    except PteFormatError as exc:
        if exc.offset is not None:  # locate it in the payload, not in the flatbuffer
            exc = PteFormatError(exc.reason, offset=exc.offset + fb_start, path=exc.path)
        raise exc.within("xnn_graph") from None
    except RecursionError:  # defensive: decoding is iterative
        raise PteFormatError("structure nested too deeply") from None
    finally:
        view.release()


def _graph(buf, size: int, inline_constant_bytes: int) -> DelegateGraph:
    if bytes(buf[4:8]) != IDENTIFIER:
        raise PteFormatError(f"expected flatbuffer identifier 'XN01' at bytes 4-8, found {bytes(buf[4:8])!r}",
                             offset=4)
    root = struct.unpack_from("<I", buf, 0)[0]
    if root < 8 or root + 4 > size:
        raise PteFormatError(f"root table offset {root} lies outside the {size}-byte flatbuffer", offset=0)
    r = _Reader(buf, size)
    vt = r.table(root)
    version = r.string(r.ref(root, vt, C.XG_VERSION)) or ""
    try:
        input_ids = tuple(r.scalars(r.ref(root, vt, C.XG_INPUT_IDS), "I"))
        output_ids = tuple(r.scalars(r.ref(root, vt, C.XG_OUTPUT_IDS), "I"))
    except PteFormatError as exc:
        raise exc.within("input_ids/output_ids") from None
    constants = _constants(r, root, vt)
    values = _values(r, r.ref(root, vt, C.XG_XVALUES), set(input_ids), set(output_ids), constants)
    known = {v.id for v in values}
    nodes = _nodes(r, r.ref(root, vt, C.XG_XNODES), known)
    for name, ids in (("input_ids", input_ids), ("output_ids", output_ids)):
        for i, vid in enumerate(ids):
            if vid not in known:
                raise PteFormatError(f"names value {vid}, which the subgraph does not define", path=f"{name}[{i}]")
    used = {v.constant_index for v in values if v.constant_index is not None}
    keys = tuple(dict.fromkeys(constants[i][1] for i in sorted(used) if constants[i][1]))
    total = sum(constants[i][0] for i in used)
    return DelegateGraph("xnnpack", version, nodes, values, input_ids, output_ids, total,
                         inline_constant_bytes, keys)


def _constants(r: FlatReader, root: int, vt) -> list[tuple[int, str | None]]:
    """(bytes, named key or None) per constant index; index 0 is the "no constant" placeholder."""
    out: list[tuple[int, str | None]] = []
    data = r.ref(root, vt, C.XG_CONSTANT_DATA)
    if data is not None:
        for i, p in enumerate(r.tables(data)):
            try:
                cvt = r.table(p)
                out.append((r.field(p, cvt, C.CDO_SIZE, "Q"), r.string(r.ref(p, cvt, C.CDO_NAMED_KEY)) or None))
            except PteFormatError as exc:
                raise exc.within(f"constant_data[{i}]") from None
        return out
    for i, p in enumerate(r.tables(r.ref(root, vt, C.XG_CONSTANT_BUFFER))):  # deprecated inline buffers
        try:
            bvt = r.table(p)
            storage = r.ref(p, bvt, C.BUFFER_STORAGE)
            out.append((0 if storage is None else r.vector(storage, 1)[1], None))
        except PteFormatError as exc:
            raise exc.within(f"constant_buffer[{i}]") from None
    return out


def _values(r: FlatReader, pos: int | None, inputs: set, outputs: set, constants: list) -> tuple[GraphValue, ...]:
    out = []
    seen: set[int] = set()
    for i, p in enumerate(r.tables(pos)):
        try:
            value = _value(r, p, inputs, outputs, constants)
        except PteFormatError as exc:
            raise exc.within(f"xvalues[{i}]") from None
        if value.id in seen:
            raise PteFormatError(f"value id {value.id} is defined twice", offset=p, path=f"xvalues[{i}].id_out")
        seen.add(value.id)
        out.append(value)
    return tuple(out)


def _value(r: FlatReader, pos: int, inputs: set, outputs: set, constants: list) -> GraphValue:
    vt = r.table(pos)
    tag = r.field(pos, vt, C.XVALUE_UNION_TYPE, "B")
    kind = C.XVALUE_KINDS.get(tag)
    target = r.ref(pos, vt, C.XVALUE_UNION)
    if kind is None or target is None:
        raise PteFormatError(f"expected an XNNTensorValue or XNNQuantizedTensorValue, found union tag {tag}"
                             + ("" if target is not None else " with no table"), offset=pos, path="xvalue_union")
    quant = None
    if kind == "XNNQuantizedTensorValue":
        qvt = r.table(target)
        qtag = r.field(target, qvt, C.XQTV_QUANT_PARAMS_TYPE, "B")
        quant = C.XNN_QUANT_PARAMS.get(qtag, f"unknown({qtag})")
        tensor = r.ref(target, qvt, C.XQTV_TENSOR_VALUE)
        if tensor is None:
            raise PteFormatError("quantized value without its tensor_value", offset=target, path="tensor_value")
        target = tensor
    tvt = r.table(target)
    code = r.field(target, tvt, C.XTV_DATATYPE, "h")
    dims = tuple(r.scalars(r.ref(target, tvt, C.XTV_DIMS), "I"))
    const = r.field(target, tvt, C.XTV_CONSTANT_BUFFER_IDX, "I")
    external = r.field(target, tvt, C.XTV_EXTERNAL_ID, "I")
    flags = r.field(target, tvt, C.XTV_FLAGS, "I")
    vid = r.field(target, tvt, C.XTV_ID_OUT, "I")
    dtype = C.XNN_DATATYPES.get(code, f"unknown({code})")
    if vid in inputs or flags & C.XNN_FLAG_EXTERNAL_INPUT:
        role = "input"
    elif vid in outputs or flags & C.XNN_FLAG_EXTERNAL_OUTPUT:
        role = "output"
    elif const:
        role = "constant"
    else:
        role = "internal"
    ext = external if role in ("input", "output") and external != _INVALID_ID else None
    if const:
        if const >= len(constants):
            raise PteFormatError(f"constant_buffer_idx {const} points past the {len(constants)} constant entries",
                                 offset=target, path="constant_buffer_idx")
        nbytes, key = constants[const]
        return GraphValue(vid, dtype, dims, role, ext, const, nbytes, key, quant)
    return GraphValue(vid, dtype, dims, role, ext, quantization=quant)


def _nodes(r: FlatReader, pos: int | None, known: set) -> tuple[GraphNode, ...]:
    out = []
    for i, p in enumerate(r.tables(pos)):
        try:
            out.append(_node(r, p, i, known))
        except PteFormatError as exc:
            raise exc.within(f"xnodes[{i}]") from None
    return tuple(out)


def _node(r: FlatReader, pos: int, index: int, known: set) -> GraphNode:
    vt = r.table(pos)
    tag = r.field(pos, vt, C.XNODE_UNION_TYPE, "B")
    debug = r.field(pos, vt, C.XNODE_DEBUG_HANDLE, "I")
    member = C.XNODE_TYPES.get(tag)
    if member is None:  # a node type newer than our schema: keep it, without edges
        return GraphNode(index, f"unknown({tag})", (), (), debug)
    op, table = member
    target = r.ref(pos, vt, C.XNODE_UNION)
    if target is None:
        raise PteFormatError(f"{op} node has no table", offset=pos, path="xnode_union")
    nvt = r.table(target)
    ins, outs = C.NODE_IO[table]
    if table == "_XNNCat":
        ins = ins[:int(op[-1])]  # XNNConcatenateN reads its first N inputs
    inputs = _ids(r, target, nvt, ins, known, op)
    outputs = _ids(r, target, nvt, outs, known, op)
    return GraphNode(index, op, inputs, outputs, debug)


def _ids(r: FlatReader, pos: int, vt, fields, known: set, op: str) -> tuple[int, ...]:
    out = []
    for slot, name in fields:
        vid = r.field(pos, vt, slot, "I")
        if vid == _INVALID_ID:
            continue
        if vid not in known:
            raise PteFormatError(f"{op}.{name} names value {vid}, which the subgraph does not define",
                                 offset=pos + vt[slot] if vt[slot] else pos, path=f"xnode_union({op}).{name}")
        out.append(vid)
    return tuple(out)
