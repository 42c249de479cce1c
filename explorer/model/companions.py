"""The vocabulary of what a program points at: ``.ptd`` data files, ``.bpte`` bundles, delegate payloads.

Frozen dataclasses like :mod:`explorer.model` (which re-exports them): plain values, no I/O. A ``.ptd``
holds named entries (a tensor layout, or opaque bytes such as a backend's weights blob); a bundled
program holds an ordinary program plus per-method test cases; a delegate's payload is identified by
backend, storage and magic bytes, and — for XNNPACK — decoded into the subgraph it runs.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, TypeVar

from explorer.model.dtypes import dtype_itemsize, dtype_name

__all__ = ["listed_once", "DataHeader", "DataEntry", "DataFile", "TestValue", "TestCase", "MethodTestSuite",
           "Bundle", "GraphValue", "GraphNode", "DelegateGraph", "Payload"]


T = TypeVar("T")


def listed_once(items: Iterable[T]) -> tuple[tuple[T, int], ...]:
    """Each item once, in first-listed order, with how many times ``items`` holds it: the readers share the object of
    a table the file lists again (``FlatReader.once``), so identity is the table. Real files list each table once."""
    out: dict[int, list] = {}
    for item in items:
        got = out.get(id(item))
        if got is None:
            out[id(item)] = [item, 1]
        else:
            got[1] += 1
    return tuple((item, n) for item, n in out.values())


@dataclass(frozen=True)
class DataHeader:
    """The ``FH01`` header of a ``.ptd`` at byte 8."""

    length: int
    flatbuffer_offset: int  # where the FlatTensor flatbuffer starts (bytes)
    flatbuffer_size: int
    segment_base_offset: int  # where segment data starts; DataSegment offsets are relative to it
    segment_data_size: int


@dataclass(frozen=True)
class DataEntry:
    """One named entry of a data file (``.ptd``) or of a program's own ``named_data``."""

    key: str  # the name a program looks it up by (a tensor's fully-qualified name, or a backend's key)
    segment_index: int  # which segment holds its bytes, as stored
    offset: int | None  # absolute byte position of those bytes in the file (optional: None when the segment index points nowhere)
    nbytes: int | None  # size of that segment in bytes (optional: None when the segment index points nowhere)
    scalar_type: int | None = None  # ScalarType byte of its tensor_layout (optional: None for opaque data)
    sizes: tuple[int, ...] = ()  # tensor_layout.sizes
    dim_order: tuple[int, ...] = ()  # tensor_layout.dim_order

    @property
    def is_tensor(self) -> bool:
        return self.scalar_type is not None

    @property
    def dtype(self) -> str | None:
        return None if self.scalar_type is None else dtype_name(self.scalar_type)

    @property
    def tensor_nbytes(self) -> int | None:
        """numel x itemsize of the layout (None for opaque data or an unknown dtype)."""
        item = None if self.scalar_type is None else dtype_itemsize(self.scalar_type)
        return None if item is None else item * math.prod(self.sizes)


@dataclass(frozen=True)
class DataFile:
    """A ``.ptd`` FlatTensor data file: named tensors (external weights) and opaque named blobs."""

    version: int
    entries: tuple[DataEntry, ...]
    segments: tuple[tuple[int, int], ...]  # (offset relative to segment_base_offset, size) as stored
    header: DataHeader | None
    size: int  # file size in bytes
    source: str | None = None  # path it was loaded from (optional)
    identifier: str = "FT01"

    kind = "data"  # class constant: what explorer.load returned (a Program says "program")

    def entry(self, key: str) -> DataEntry | None:
        """The entry named ``key`` (the first, if a hostile file repeats one), or None."""
        return self._by_key.get(key)

    @cached_property
    def _by_key(self) -> dict[str, DataEntry]:
        out: dict[str, DataEntry] = {}
        for e in self.entries:
            out.setdefault(e.key, e)
        return out

    @property
    def name(self) -> str:
        """The file name shown to people (the path's last part, or ``<bytes>``)."""
        return os.path.basename(self.source) if self.source else "<bytes>"

    @cached_property
    def listed(self) -> tuple[tuple[DataEntry, int], ...]:
        """Each entry once, in the file's order, with how many times the file lists it. The reader shares the
        entry of a table listed again (``FlatReader.once``), so a 10 MB file listing one entry 2.4M times is
        one line of a summary, not 2.4M; entries of distinct tables are listed each (as many as the bytes hold)."""
        return listed_once(self.entries)


@dataclass(frozen=True)
class TestValue:
    """One input or expected output of a bundled test case."""

    kind: str  # Tensor | Int | Bool | Double | None (union tag NONE) | unknown(N)
    scalar_type: int | None = None  # Tensor: ScalarType byte
    sizes: tuple[int, ...] = ()  # Tensor: shape
    nbytes: int = 0  # Tensor: bytes of data stored in the bundle
    value: object = None  # Int/Bool/Double: the number

    @property
    def dtype(self) -> str | None:
        return None if self.scalar_type is None else dtype_name(self.scalar_type)


@dataclass(frozen=True)
class TestCase:
    inputs: tuple[TestValue, ...]
    expected_outputs: tuple[TestValue, ...]


@dataclass(frozen=True)
class MethodTestSuite:
    method_name: str
    test_cases: tuple[TestCase, ...]


@dataclass(frozen=True)
class Bundle:
    """What a ``.bpte`` adds around its program: the test suites and where the program sits."""

    version: int
    suites: tuple[MethodTestSuite, ...]
    program_offset: int  # byte position of the embedded .pte inside the .bpte
    program_size: int
    file_size: int = 0  # the .bpte's own size in bytes


@dataclass(frozen=True)
class GraphValue:
    """A value of a delegate's subgraph (XNNPACK: an XValue)."""

    id: int  # position in the subgraph's value list (what nodes name)
    dtype: str  # backend datatype name, e.g. fp32, qint8, qcint8 (XNNDatatype without its prefix)
    dims: tuple[int, ...]
    kind: str  # input | output | constant | internal
    external_id: int | None = None  # for inputs/outputs: the id the runtime binds the delegate's args to (optional)
    constant_index: int | None = None  # constant: index into the subgraph's constant_data (optional)
    constant_bytes: int = 0  # constant: size of its data
    constant_key: str | None = None  # constant: the named-data key holding its bytes (optional: inline data)
    quantization: str | None = None  # quantized tensor: PerTensorQuant, PerChannelQuant, ... (optional)


@dataclass(frozen=True)
class GraphNode:
    """A node of a delegate's subgraph (XNNPACK: an XNode)."""

    index: int  # position in the node list (execution order)
    op: str  # the schema's node type name exactly: XNNConv2d, XNNAdd, ...
    inputs: tuple[int, ...]  # GraphValue ids read
    outputs: tuple[int, ...]  # GraphValue ids written
    debug_handle: int = 0


@dataclass(frozen=True)
class DelegateGraph:
    """The subgraph a delegate runs, decoded from its payload."""

    format: str  # "xnnpack"
    version: str  # the payload's own version string
    nodes: tuple[GraphNode, ...]
    values: tuple[GraphValue, ...]
    input_ids: tuple[int, ...]  # value ids bound, in order, to the delegate call's leading args
    output_ids: tuple[int, ...]  # value ids bound, in order, to the args after the inputs
    constant_bytes: int  # bytes of all constant data the subgraph uses (inline + named data)
    inline_constant_bytes: int = 0  # of which inside the payload itself
    named_keys: tuple[str, ...] = ()  # named-data keys holding its constants


@dataclass(frozen=True)
class Payload:
    """What is known about one delegate's processed blob without running its backend."""

    delegate: int  # Delegate.index
    backend: str  # Delegate.id
    storage: str  # inline | segment | unknown(N)
    size: int | None  # bytes (optional: None when the blob index points nowhere)
    magic: str  # the first bytes (up to 8) that identify a format, printable or hex; "" when empty
    format: str  # xnnpack | aoti-keys | ethos-u-vela | vgf | coreml | qnn-context | unknown | unavailable
    named_keys: tuple[str, ...] = ()  # named-data keys the payload refers to
    graph: DelegateGraph | None = None  # the decoded subgraph (optional)
    error: str | None = None  # why a payload of a known format did not decode (optional)
    compile_specs: tuple[tuple[str, str], ...] = ()  # decoded compile specs (key, readable value)
    header: tuple[tuple[str, str], ...] = ()  # what the payload's own header says (label, text), e.g. Ethos-U blocks
