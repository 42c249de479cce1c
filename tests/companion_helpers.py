"""Building companion files for tests: a ``.ptd`` from entries (flatc's generated object API, the FH01
header inserted the way executorch's serializer does), and surgery on real fixtures."""

from __future__ import annotations

import struct
from pathlib import Path

import flatbuffers

from explorer._generated.flat_tensor_flatbuffer.DataSegment import DataSegmentT
from explorer._generated.flat_tensor_flatbuffer.FlatTensor import FlatTensorT
from explorer._generated.flat_tensor_flatbuffer.NamedData import NamedDataT
from explorer._generated.flat_tensor_flatbuffer.TensorLayout import TensorLayoutT

COMPANIONS = Path(__file__).parent / "fixtures" / "companions"
_PADDED_HEADER = 48  # the 40-byte FH01 header padded to 16, as serialize.py writes it


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def build_ptd(entries: list[tuple[str, int | None, list[int], bytes]], *, header: bool = True) -> bytes:
    """A ``.ptd`` holding ``(key, scalar_type or None for opaque, sizes, data)`` entries, one segment each."""
    ft = FlatTensorT()
    ft.version = 0
    ft.segments, ft.namedData = [], []
    blob = b""
    for key, scalar_type, sizes, data in entries:
        seg = DataSegmentT()
        seg.offset, seg.size = _align(len(blob), 16), len(data)
        blob = blob.ljust(seg.offset, b"\0") + data
        nd = NamedDataT()
        nd.key, nd.segmentIndex = key, len(ft.segments)
        if scalar_type is not None:
            nd.tensorLayout = TensorLayoutT()
            nd.tensorLayout.scalarType, nd.tensorLayout.sizes = scalar_type, list(sizes)
            nd.tensorLayout.dimOrder = list(range(len(sizes)))
        ft.segments.append(seg)
        ft.namedData.append(nd)
    builder = flatbuffers.Builder(256)
    builder.Finish(ft.Pack(builder), file_identifier=b"FT01")
    fb = bytes(builder.Output())
    if not header:
        return fb
    base = _align(_PADDED_HEADER + len(fb), 16)
    head = struct.pack("<4sIQQQQ", b"FH01", 40, _PADDED_HEADER, len(fb), base, len(blob)).ljust(_PADDED_HEADER, b"\0")
    root = struct.unpack_from("<I", fb, 0)[0] + _PADDED_HEADER
    out = struct.pack("<I", root) + fb[4:8] + head + fb[8:]
    assert len(out) == _PADDED_HEADER + len(fb)
    return out.ljust(base, b"\0") + blob


def replace_once(data: bytes, old: bytes, new: bytes) -> bytes:
    """``data`` with its only occurrence of ``old`` replaced by the same-length ``new``."""
    assert len(old) == len(new) and data.count(old) == 1, (old, data.count(old))
    return data.replace(old, new)
