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

import numpy as np

from explorer.model.columns import LazySeq
from explorer.errors import PteFormatError
from explorer.model.companions import DelegateGraph, GraphNode, GraphValue
from explorer.format.companions import slots as C
from explorer.format.flatbuf import FlatReader, root_offset
from explorer.format.gather import NONE, Gather

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
    root = root_offset(buf, size)
    r = _Reader(buf, size)
    g = Gather(buf, r)
    vt = r.table(root)
    version = r.string(r.ref(root, vt, C.XG_VERSION)) or ""
    try:
        input_ids = tuple(r.scalars(r.ref(root, vt, C.XG_INPUT_IDS), "I"))
        output_ids = tuple(r.scalars(r.ref(root, vt, C.XG_OUTPUT_IDS), "I"))
    except PteFormatError as exc:
        raise exc.within("input_ids/output_ids") from None
    sizes, keys = _constants(r, g, root, vt)
    values, ids, const = _values(g, _elements(r, g, r.ref(root, vt, C.XG_XVALUES), "xvalues"), set(input_ids),
                                 set(output_ids), sizes, keys)
    nodes = _nodes(g, _elements(r, g, r.ref(root, vt, C.XG_XNODES), "xnodes"), ids)
    known = set(ids.tolist())
    for name, given in (("input_ids", input_ids), ("output_ids", output_ids)):
        for i, vid in enumerate(given):
            if vid not in known:
                raise PteFormatError(f"names value {vid}, which the subgraph does not define", path=f"{name}[{i}]")
    used = np.unique(const[const > 0])
    named = tuple(dict.fromkeys(keys[i] for i in used.tolist() if keys[i]))
    total = int(sizes[used].sum()) if len(used) else 0
    return DelegateGraph("xnnpack", version, nodes, values, input_ids, output_ids, total, inline_constant_bytes,
                         named)


def _elements(r: FlatReader, g: Gather, vec: int | None, name: str) -> np.ndarray:
    """Positions of the tables of the vector at ``vec`` (all checked to lie in the buffer)."""
    if vec is None:
        return np.zeros(0, np.int64)
    try:
        _, n = r.vector(vec, 4)
        r.charge(4 * n, vec)
    except PteFormatError as exc:
        raise exc.within(name) from None
    pos = g.vector_elements(vec, n)
    g.check(pos, 4, "table", name + "[{}]")
    return pos


def _constants(r: FlatReader, g: Gather, root: int, vt) -> tuple[np.ndarray, list]:
    """(bytes, named key or None) per constant index; index 0 is the "no constant" placeholder."""
    data = r.ref(root, vt, C.XG_CONSTANT_DATA)
    if data is not None:
        pos = _elements(r, g, data, "constant_data")
        F = g.tables(pos, "constant_data[{}]")
        sizes = g.field(pos, F, C.CDO_SIZE, "<u8").astype(np.int64, copy=False)
        refs = g.refs(pos, F, C.CDO_NAMED_KEY, "constant_data[{}]")
        flat, starts, row = g.ragged(refs, "u1", "constant_data[{}].named_key")
        raw = flat.tobytes()  # every key's bytes, one after the other: decoded once, then sliced
        text = raw.decode("ascii") if raw.isascii() else None
        bounds = starts.tolist()
        distinct = [(text[a:b] if text is not None else raw[a:b].decode("utf-8", "replace")) or None
                    for a, b in zip(bounds, bounds[1:])]
        keys = [None if p == NONE else distinct[k] for p, k in zip(refs.tolist(), row.tolist())]
        return sizes, keys
    sizes = []
    for i, p in enumerate(r.tables(r.ref(root, vt, C.XG_CONSTANT_BUFFER))):  # deprecated inline buffers
        try:
            bvt = r.table(p)
            storage = r.ref(p, bvt, C.BUFFER_STORAGE)
            sizes.append(0 if storage is None else r.vector(storage, 1)[1])
        except PteFormatError as exc:
            raise exc.within(f"constant_buffer[{i}]") from None
    return np.array(sizes, np.int64), [None] * len(sizes)


def _first(mask: np.ndarray) -> int:
    return int(np.argmax(mask))


def _values(g: Gather, pos: np.ndarray, inputs: set, outputs: set, sizes: np.ndarray, keys: list):
    path = "xvalues[{}]"
    F = g.tables(pos, path)
    tag = g.field(pos, F, C.XVALUE_UNION_TYPE, "u1")
    val = g.refs(pos, F, C.XVALUE_UNION, path)
    bad = ((tag != 1) & (tag != 2)) | (val == NONE)
    if bad.any():
        i = _first(bad)
        raise PteFormatError(f"expected an XNNTensorValue or XNNQuantizedTensorValue, found union tag {int(tag[i])}"
                             + ("" if val[i] != NONE else " with no table"), offset=int(pos[i]),
                             path=path.format(i) + ".xvalue_union")
    quantized = np.flatnonzero(tag == 2)
    tpos = val.copy()
    quant = np.zeros(len(pos), np.int64)
    if len(quantized):
        qpos = val[quantized]
        QF = g.tables(qpos, "xvalues[{}].xvalue_union(XNNQuantizedTensorValue)", quantized)
        quant[quantized] = g.field(qpos, QF, C.XQTV_QUANT_PARAMS_TYPE, "u1").astype(np.int64) + 1000
        inner = g.refs(qpos, QF, C.XQTV_TENSOR_VALUE, path, quantized)
        if (inner == NONE).any():
            k = _first(inner == NONE)
            raise PteFormatError("quantized value without its tensor_value", offset=int(qpos[k]),
                                 path=path.format(int(quantized[k])) + ".tensor_value")
        tpos[quantized] = inner
    TF = g.tables(tpos, path + ".tensor_value")
    dtype = g.field(tpos, TF, C.XTV_DATATYPE, "<i2")
    const = g.field(tpos, TF, C.XTV_CONSTANT_BUFFER_IDX, "<u4").astype(np.int64)
    external = g.field(tpos, TF, C.XTV_EXTERNAL_ID, "<u4").astype(np.int64)
    flags = g.field(tpos, TF, C.XTV_FLAGS, "<u4").astype(np.int64)
    ids = g.field(tpos, TF, C.XTV_ID_OUT, "<u4").astype(np.int64)
    flat, starts, row = g.ragged(g.refs(tpos, TF, C.XTV_DIMS, path), "<u4", path + ".dims")
    uniq, first, counts = np.unique(ids, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = int(uniq[_first(counts > 1)])
        i = int(np.flatnonzero(ids == dup)[1])
        raise PteFormatError(f"value id {dup} is defined twice", offset=int(tpos[i]), path=path.format(i) + ".id_out")
    if (const >= len(sizes)).any():
        i = _first(const >= len(sizes))
        raise PteFormatError(f"constant_buffer_idx {int(const[i])} points past the {len(sizes)} constant entries",
                             offset=int(tpos[i]), path=path.format(i) + ".constant_buffer_idx")
    is_in = np.isin(ids, np.fromiter(inputs, np.int64, len(inputs))) | ((flags & C.XNN_FLAG_EXTERNAL_INPUT) != 0)
    is_out = ~is_in & (np.isin(ids, np.fromiter(outputs, np.int64, len(outputs)))
                       | ((flags & C.XNN_FLAG_EXTERNAL_OUTPUT) != 0))
    role = np.where(is_in, 0, np.where(is_out, 1, np.where(const > 0, 2, 3)))
    id_l, code_l, role_l, ext_l, const_l, q_l = (a.tolist() for a in (ids, dtype, role, external, const, quant))
    row_l, flat_l, starts_l, size_list = row.tolist(), flat.tolist(), starts.tolist(), sizes.tolist()

    def make(i: int) -> GraphValue:
        vid, code, kind, ext, c, q, k = id_l[i], code_l[i], role_l[i], ext_l[i], const_l[i], q_l[i], row_l[i]
        dims = tuple(flat_l[starts_l[k]:starts_l[k + 1]])
        name = C.XNN_DATATYPES.get(code) or f"unknown({code})"
        q_name = None if not q else C.XNN_QUANT_PARAMS.get(q - 1000, f"unknown({q - 1000})")
        role_name = _ROLES[kind]
        ext_id = ext if kind < 2 and ext != _INVALID_ID else None
        if c:
            return GraphValue(vid, name, dims, role_name, ext_id, c, size_list[c], keys[c], q_name)
        return GraphValue(vid, name, dims, role_name, ext_id, quantization=q_name)

    return LazySeq(len(pos), make), ids, const


_ROLES = ("input", "output", "constant", "internal")


_FEW = 48  # node tables of one type below which they are read one by one


def _undefined(op: str, name: str, vid: int, offset: int, where: str):
    raise PteFormatError(f"{op}.{name} names value {vid}, which the subgraph does not define", offset=offset,
                         path=f"{where}.xnode_union({op}).{name}")


def _few_fields(r: FlatReader, positions: list[int], slots: list[int], rows, path: str, op: str) -> list[list[int]]:
    """uint fields ``slots`` of the tables at ``positions``, read with the scalar reader, as columns."""
    out = [[0] * len(positions) for _ in slots]
    for j, p in enumerate(positions):
        try:
            vt = r.table(p)
            for k, slot in enumerate(slots):
                out[k][j] = r.field(p, vt, slot, "I")
        except PteFormatError as exc:
            raise exc.within(path.format(int(rows[j])) + f".xnode_union({op})") from None
    return out


def _nodes(g: Gather, pos: np.ndarray, ids: np.ndarray):
    path = "xnodes[{}]"
    F = g.tables(pos, path)
    tag = g.field(pos, F, C.XNODE_UNION_TYPE, "u1").astype(np.int64)
    ref = g.refs(pos, F, C.XNODE_UNION, path)
    debug = g.field(pos, F, C.XNODE_DEBUG_HANDLE, "<u4").tolist()
    n = len(pos)
    known = np.isin(tag, np.fromiter(C.XNODE_TYPES, np.int64, len(C.XNODE_TYPES)))
    missing = known & (ref == NONE)
    if missing.any():
        i = _first(missing)
        raise PteFormatError(f"{C.XNODE_TYPES[int(tag[i])][0]} node has no table", offset=int(pos[i]),
                             path=path.format(i) + ".xnode_union")
    defined = np.sort(ids)
    defined_set: set[int] | None = None  # for the node types read one by one
    group = np.full(n, -1, np.int64)  # which (op, inputs, columns) group a node's edges are in
    row_in = np.zeros(n, np.int64)  # its row there
    groups: list[tuple[str, int, list]] = []
    for t in np.unique(tag[known]).tolist():
        op, table = C.XNODE_TYPES[t]
        rows = np.flatnonzero(tag == t)
        npos = ref[rows]
        ins, outs = C.NODE_IO[table]
        if table == "_XNNCat":
            ins = ins[:int(op[-1])]  # XNNConcatenateN reads its first N inputs
        fields = ins + outs
        if len(rows) < _FEW:  # a handful of tables: one by one beats a dozen numpy calls each
            if defined_set is None:
                defined_set = set(ids.tolist())
            cols = _few_fields(g.reader, npos.tolist(), [slot for slot, _ in fields], rows, path, op)
            for k, (_, name) in enumerate(fields):
                for j, v in enumerate(cols[k]):
                    if v != _INVALID_ID and v not in defined_set:
                        _undefined(op, name, v, int(npos[j]), path.format(int(rows[j])))
        else:
            NF = g.tables(npos, path + f".xnode_union({op})", rows)
            cols = []
            for slot, name in fields:
                v = g.field(npos, NF, slot, "<u4").astype(np.int64)
                where = np.minimum(np.searchsorted(defined, v), max(len(defined) - 1, 0))
                bad = (v != _INVALID_ID) & ((defined[where] != v) if len(defined) else True)
                if np.any(bad):
                    k = _first(np.broadcast_to(bad, v.shape))
                    _undefined(op, name, int(v[k]), int(npos[k]), path.format(int(rows[k])))
                cols.append(v.tolist())
        group[rows] = len(groups)
        row_in[rows] = np.arange(len(rows))
        groups.append((op, len(ins), cols))
    group_l, row_l = group.tolist(), row_in.tolist()
    unknown = {i: f"unknown({int(tag[i])})" for i in np.flatnonzero(~known).tolist()}  # newer than our schema

    def make(i: int) -> GraphNode:
        gi = group_l[i]
        if gi < 0:  # kept, without edges
            return GraphNode(i, unknown[i], (), (), debug[i])
        op, k_in, cols = groups[gi]
        j = row_l[i]
        values = [c[j] for c in cols]
        return GraphNode(i, op, tuple(x for x in values[:k_in] if x != _INVALID_ID),
                         tuple(x for x in values[k_in:] if x != _INVALID_ID), debug[i])

    return LazySeq(n, make)
