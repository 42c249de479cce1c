"""``.ptd`` data files (FlatTensor, identifier ``FT01``, extended header ``FH01``) -> DataFile.

A ``.ptd`` is what executorch writes when a program's weights live outside it (``external_constants``,
backends that share weights between methods, the CUDA backend's weights blob). Its layout, as
``extension/flat_tensor/serialize/serialize.py`` writes it: bytes 0-3 the flatbuffer's root offset,
4-7 ``FT01``, then at byte 8 a little-endian header ``FH01``, ``length`` (uint32),
``flatbuffer_offset``, ``flatbuffer_size``, ``segment_base_offset``, ``segment_data_size`` (uint64 each);
segments follow at ``segment_base_offset``. Only the flatbuffer is decoded; segment data is never read.
"""

from __future__ import annotations

import re
import struct

from explorer.errors import PteFormatError
from explorer.model.companions import DataEntry, DataFile, DataHeader
from explorer.format.companions import slots as C
from explorer.format.flatbuf import FlatReader, require_prefix, root_offset

__all__ = ["read_data_file", "IDENTIFIER", "HEADER_MAGIC"]

IDENTIFIER = re.compile(rb"FT[0-9a-zA-Z]{2}")  # the writer's own pattern; the runtime checks FT01
HEADER_MAGIC = b"FH01"
_HEADER_AT = 8
_HEADER_LENGTH = 40  # magic, length, four uint64


def read_data_file(buf, size: int, source: str | None = None) -> DataFile:
    """Decode the data file in ``buf[0:size]``; PteFormatError (with byte offset) for anything wrong."""
    require_prefix(size)
    ident = bytes(buf[4:8])
    if not IDENTIFIER.fullmatch(ident):
        raise PteFormatError(f"expected file identifier 'FT01' at bytes 4-8, found {ident!r}: not an "
                             f"ExecuTorch data file (.ptd)", offset=4)
    header = _header(buf, size)
    end = size if header is None else header.flatbuffer_offset + header.flatbuffer_size
    base = 0 if header is None else header.segment_base_offset
    root = root_offset(buf, end)
    r = FlatReader(buf, end)
    try:
        vt = r.table(root)
        version = r.field(root, vt, C.FT_VERSION, "I")
        segments = []
        for i, p in enumerate(r.tables(r.ref(root, vt, C.FT_SEGMENTS))):
            try:
                segments.append(r.once("segment", p, lambda q: _segment(r, q)))
            except PteFormatError as exc:
                raise exc.within(f"segments[{i}]") from None
        entries = []
        for i, p in enumerate(r.tables(r.ref(root, vt, C.FT_NAMED_DATA))):
            try:
                entries.append(r.once("named_data", p, lambda q: _entry(r, q, segments, base, size)))
            except PteFormatError as exc:
                raise exc.within(f"named_data[{i}]") from None
    except PteFormatError as exc:
        raise exc.within("flat_tensor") from None
    except RecursionError:  # defensive: decoding is iterative
        raise PteFormatError("structure nested too deeply") from None
    return DataFile(version, tuple(entries), tuple(segments), header, size, source, ident.decode("ascii"))


def _segment(r: FlatReader, pos: int) -> tuple[int, int]:
    svt = r.table(pos)
    return r.field(pos, svt, C.FT_SEGMENT_OFFSET, "Q"), r.field(pos, svt, C.FT_SEGMENT_SIZE, "Q")


def _entry(r: FlatReader, pos: int, segments: list, base: int, size: int) -> DataEntry:
    vt = r.table(pos)
    key = r.string(r.ref(pos, vt, C.FT_NAMED_KEY)) or ""
    index = r.field(pos, vt, C.FT_NAMED_SEGMENT_INDEX, "I")
    offset = nbytes = None
    if 0 <= index < len(segments):
        rel, nbytes = segments[index]
        offset = base + rel
        if offset + nbytes > size:
            raise PteFormatError(f"entry {key!r} lies in segment {index} at bytes {offset}..{offset + nbytes}, "
                                 f"past the end of the {size}-byte file (truncated?)", offset=pos,
                                 path="segment_index")
    layout = r.ref(pos, vt, C.FT_NAMED_TENSOR_LAYOUT)
    if layout is None:
        return DataEntry(key, index, offset, nbytes)
    try:
        lvt = r.table(layout)
        scalar_type = r.field(layout, lvt, C.FT_LAYOUT_SCALAR_TYPE, "b")
        sizes = r.scalars(r.ref(layout, lvt, C.FT_LAYOUT_SIZES), "i")
        dim_order = r.scalars(r.ref(layout, lvt, C.FT_LAYOUT_DIM_ORDER), "B")
    except PteFormatError as exc:
        raise exc.within("tensor_layout") from None
    return DataEntry(key, index, offset, nbytes, scalar_type, tuple(sizes), tuple(dim_order))


def _header(buf, size: int) -> DataHeader | None:
    if size < _HEADER_AT + 8 or bytes(buf[_HEADER_AT:_HEADER_AT + 4]) != HEADER_MAGIC:
        return None  # the runtime requires it, but a bare FlatTensor flatbuffer is still readable
    length = struct.unpack_from("<I", buf, _HEADER_AT + 4)[0]
    if length < _HEADER_LENGTH:
        raise PteFormatError(f"FH01 header length {length} is shorter than the {_HEADER_LENGTH} bytes it "
                             f"needs", offset=_HEADER_AT + 4, path="flat_tensor_header.length")
    if _HEADER_AT + length > size:
        raise PteFormatError(f"FH01 header of {length} bytes runs past the end of the {size}-byte file",
                             offset=_HEADER_AT + 4, path="flat_tensor_header.length")
    fb_offset, fb_size, seg_base, seg_size = struct.unpack_from("<QQQQ", buf, _HEADER_AT + 8)
    if fb_offset + fb_size > size or fb_offset > size:
        raise PteFormatError(f"FH01 header puts the flatbuffer at bytes {fb_offset}..{fb_offset + fb_size}, "
                             f"past the end of the {size}-byte file (truncated?)", offset=_HEADER_AT + 8,
                             path="flat_tensor_header.flatbuffer_offset")
    if fb_offset < _HEADER_AT + length:
        raise PteFormatError(f"FH01 header puts the flatbuffer at byte {fb_offset}, inside the header",
                             offset=_HEADER_AT + 8, path="flat_tensor_header.flatbuffer_offset")
    if seg_base > size or seg_base + seg_size > size:
        raise PteFormatError(f"FH01 header declares {seg_size} bytes of segment data from byte {seg_base}, "
                             f"but the file ends at byte {size} (truncated?)", offset=_HEADER_AT + 24,
                             path="flat_tensor_header.segment_base_offset")
    return DataHeader(length, fb_offset, fb_size, seg_base, seg_size)
