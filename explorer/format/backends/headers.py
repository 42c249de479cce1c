"""Delegate payloads of the backends whose container is public: Ethos-U, Arm VGF, Core ML, Qualcomm QNN.

None of these is decoded to a subgraph (their contents are a command stream, SPIR-V modules, a Core ML
model, a QNN context binary); what their own header or wrapper says is read: format, version, block and
section sizes, the named-data keys a payload refers to. Each layout is the one the backend's own code
writes and reads (executorch 1.5.1's wheel for the Python side; the C++ side from the executorch
repository, identical in v1.4.1 and on main):

* **Ethos-U** (``vela_bin_stream``) — ``backends/arm/arm_vela.py`` ``vela_compile`` writes blocks of a
  32-byte header (16-byte NUL-padded name, uint32 unpadded size, uint8 external flag, 11 reserved bytes)
  and data padded to 16 bytes: ``vela_bin_stream`` (empty), ``cmd_data`` (starts ``COP1``/``COP2``),
  ``weight_data``, ``scratch_size`` (uint32), ``inputs``/``outputs`` (int32 count, then per tensor 6
  int32 dims, elem_size, offset, region), ``vela_end_stream``. A block with the external flag holds the
  64-character named-data key of its bytes instead. ``backends/arm/runtime/VelaBinStream.cpp``
  ``vela_bin_read`` reads them.
* **Arm VGF** (``VGF1``) — the ML SDK's ``model-converter`` output, which ``backends/arm/vgf/backend.py``
  ``vgf_compile`` stores as is. Its 128-byte header (``src/header.hpp`` of arm/ai-ml-sdk-vgf-library):
  magic ``VGF1`` (or the deprecated uint32 ``0xF0E1D2C3``), uint16 Vulkan header version, 2 reserved,
  format version major/minor/patch (uint8 each), 5 reserved, then four ``{uint64 offset, uint64 size}``
  sections at byte 16: modules, model sequence, model resources, constants.
* **Core ML** — ``backends/apple/coreml/compiler/coreml_preprocess.py``: a method of a multifunction
  model is ``CMJR`` + JSON ``{version, key, functionName}`` (the model is named data under ``key``);
  otherwise ``flatten_directory_contents`` of the model directory (``runtime/inmemoryfs/
  inmemory_filesystem.cpp`` ``serialize``): the files' bytes, then the file tree as JSON written
  *reversed* at the very end (``inmemory_filesystem_utils.cpp`` ``serialize_metadata``):
  ``{"nodes": [{"name", "kind" (0 file, 1 directory), "dataRegion": {"offset", "size"}, "children":
  {name: index}}]}``, the root last. ``metadata.json`` (``inputNames``, ``outputNames``, ``identifier``)
  is one of the files.
* **QNN** — ``backends/qualcomm/runtime/backends/QnnCustomProtocol.h``: uint32 magic ``0x5678ABCD``
  (bytes ``cd ab 78 56``), int64 signature, uint64 context binary size, padding to 256 bytes, then the
  QNN context binary (the SDK's own format).

Every reader here is bounds-checked: a damaged payload gives ``error`` (with the byte offset inside the
payload), never an exception.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import Callable

__all__ = ["Decoded", "PayloadFormat", "PAYLOAD_FORMATS", "format_for", "ETHOS_U_IDS", "VGF_IDS", "COREML_IDS",
           "QNN_IDS", "VELA_MAGIC", "VGF_MAGIC", "VGF_MAGIC_OLD", "QNN_MAGIC", "COREML_REFERENCE_MAGIC"]

Read = Callable[[int, int], bytes]  # (offset inside the payload, count) -> bytes (fewer at the end)

ETHOS_U_IDS = frozenset({"EthosUBackend"})
VGF_IDS = frozenset({"VgfBackend"})
COREML_IDS = frozenset({"CoreMLBackend"})
QNN_IDS = frozenset({"QnnBackend"})

VELA_MAGIC = b"vela_bin_stream"
_VELA_END = b"vela_end_stream"
_VELA_BLOCK = struct.Struct("<16sIB11s")
_VELA_IO = struct.Struct("<9i")  # 6 dims, elem_size, offset, region
_VELA_MAX_BLOCKS = 64
_VELA_KEY = 64  # kVelaExternalBlockKeySize: an external block holds a sha256 hex digest
_VELA_BLOCKS = frozenset({"vela_bin_stream", "cmd_data", "weight_data", "scratch_size", "inputs", "outputs",
                          "vela_end_stream"})
_VELA_MAX_IOS = 1024
VGF_MAGIC = b"VGF1"
VGF_MAGIC_OLD = (0xF0E1D2C3).to_bytes(4, "little")
_VGF_HEADER = 128
_VGF_SECTIONS = ("modules", "model sequence", "model resources", "constants")
QNN_MAGIC = (0x5678ABCD).to_bytes(4, "little")
_QNN_HEADER = 256  # QNN_CTX_BIN_ALIGNMENT
COREML_REFERENCE_MAGIC = b"CMJR"
_COREML_TAIL = 1 << 20  # the reversed file-tree JSON is read from at most this many final bytes
_COREML_FILES_SHOWN = 8
_COREML_REFERENCE_MAX = 1 << 16  # a reference is a short JSON object: {version, key, functionName}


@dataclass(frozen=True)
class Decoded:
    """What a payload's own header says: (label, text) rows, named-data keys it refers to, or why not."""

    header: tuple[tuple[str, str], ...] = ()
    named_keys: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class PayloadFormat:
    """One payload container: the backends that write it, how its first bytes are recognised (for a
    payload whose backend id is unfamiliar), and the reader of its header."""

    name: str
    backends: frozenset[str]
    sniff: Callable[[bytes], bool]
    decode: Callable[[Read, int], Decoded]
    by_backend: bool = True  # a payload of these backends without the magic is still this format (damaged)
    magic: Callable[[bytes], str | None] = lambda head: None  # how to print the identifying bytes, when recognised


def _nbytes(n: int) -> str:
    return f"{n:,} B"


class _Bad(Exception):
    pass


def _need(read: Read, offset: int, count: int, size: int, what: str) -> bytes:
    if offset < 0 or offset + count > size:
        raise _Bad(f"{what}: {count} bytes at payload byte {offset:,} run past the {size:,}-byte payload")
    data = read(offset, count)
    if len(data) != count:
        raise _Bad(f"{what}: only {len(data)} of {count} bytes readable at payload byte {offset:,}")
    return data


# -- Ethos-U --------------------------------------------------------------------------------------

def _next16(n: int) -> int:
    return (n + 15) // 16 * 16


def _vela_ios(data: bytes, what: str) -> str:
    if len(data) < 4:
        raise _Bad(f"{what} block of {len(data)} bytes has no count")
    n = int.from_bytes(data[:4], "little", signed=True)
    if not 0 <= n <= _VELA_MAX_IOS or 4 + n * _VELA_IO.size > len(data):
        raise _Bad(f"{what} block says {n} tensors, which its {len(data)} bytes do not hold")
    parts = []
    for i in range(n):
        *dims, elem, _offset, _region = _VELA_IO.unpack_from(data, 4 + i * _VELA_IO.size)
        parts.append("x".join(str(d) for d in dims) + f" ({elem} B elements)")
    return f"{n}: " + ", ".join(parts) if n else "0"


def decode_vela(read: Read, size: int) -> Decoded:
    """The blocks of an Ethos-U ``vela_bin_stream`` (see the module docstring for the layout). What
    ``vela_bin_read`` refuses (``InvalidProgram``) is reported as the error: a block name it does not know,
    a command stream not tagged ``COP1``/``COP2``, an external block whose key is not 64 bytes, bytes after
    ``vela_end_stream``."""
    rows: list[tuple[str, str]] = []
    keys: list[str] = []
    names: list[str] = []
    pos = 0
    try:
        while True:
            if len(names) >= _VELA_MAX_BLOCKS:
                raise _Bad(f"more than {_VELA_MAX_BLOCKS} blocks without 'vela_end_stream'")
            if pos >= size:
                raise _Bad(f"the stream ends at payload byte {pos:,} without a 'vela_end_stream' block")
            raw_name, length, external, _ = _VELA_BLOCK.unpack(_need(read, pos, _VELA_BLOCK.size, size,
                                                                     f"block header {len(names)}"))
            name = raw_name.split(b"\x00", 1)[0].decode("ascii", "replace")
            if not names and name != VELA_MAGIC.decode():
                raise _Bad("expected the 'vela_bin_stream' block first")
            if name not in _VELA_BLOCKS:
                raise _Bad(f"unknown block {name[:16]!r} at payload byte {pos:,} (vela_bin_read refuses it)")
            names.append(name)
            start = pos + _VELA_BLOCK.size
            if start + length > size:
                raise _Bad(f"block {name!r} of {length:,} bytes at payload byte {start:,} runs past the "
                           f"{size:,}-byte payload")
            if external == 1:
                if length != _VELA_KEY:
                    raise _Bad(f"external block {name!r} holds {length:,} bytes, not a {_VELA_KEY}-byte "
                               f"named-data key")
                key = _need(read, start, length, size, f"block {name!r}").decode("ascii", "replace")
                keys.append(key)
                rows.append((name.replace("_", " "), f"named data {key[:16]}… (its bytes are outside the payload)"))
            elif name == "cmd_data":
                tag = _need(read, start, min(length, 4), size, "block 'cmd_data'")
                if tag not in (b"COP1", b"COP2"):
                    raise _Bad(f"the command stream at payload byte {start:,} starts with {tag!r}, not 'COP1' "
                               f"or 'COP2'")
                rows.append(("command stream", f"{_nbytes(length)}, {tag.decode()!r}"))
            elif name == "weight_data":
                rows.append(("weights", _nbytes(length)))
            elif name == "scratch_size":
                if length < 4:
                    raise _Bad(f"'scratch_size' block of {length} bytes (expected a uint32)")
                scratch = int.from_bytes(_need(read, start, 4, size, "block 'scratch_size'"), "little")
                rows.append(("scratch", f"{_nbytes(scratch)} (allocated by the runtime)"))
            elif name in ("inputs", "outputs"):
                data = _need(read, start, min(length, 4 + _VELA_MAX_IOS * _VELA_IO.size), size, f"block {name!r}")
                rows.append((name, _vela_ios(data, name)))
            pos = start + _next16(length)
            if name == _VELA_END.decode():
                break
        if pos != size:
            raise _Bad(f"{size - pos:,} bytes follow 'vela_end_stream' at payload byte {pos:,} (vela_bin_read "
                       f"expects the stream to end there)")
    except _Bad as exc:
        return Decoded(tuple(rows), tuple(keys), str(exc))
    return Decoded((("blocks", ", ".join(names)),) + tuple(rows), tuple(keys))


# -- Arm VGF -------------------------------------------------------------------------------------

def decode_vgf(read: Read, size: int) -> Decoded:
    """The 128-byte header of a VGF file (``src/header.hpp`` of the ML SDK's VGF library)."""
    try:
        head = _need(read, 0, _VGF_HEADER, size, "VGF header")
    except _Bad as exc:
        return Decoded((), (), str(exc))
    if head[:4] not in (VGF_MAGIC, VGF_MAGIC_OLD):
        return Decoded((), (), f"expected the VGF magic 'VGF1' at payload bytes 0-4, found {head[:4]!r}")
    vk = int.from_bytes(head[4:6], "little")
    rows = [("VGF version", f"{head[8]}.{head[9]}.{head[10]}" + (" (deprecated magic)" if head[:4] == VGF_MAGIC_OLD
                                                                else "")),
            ("Vulkan header version", str(vk))]
    problems = []
    for i, label in enumerate(_VGF_SECTIONS):
        offset, length = struct.unpack_from("<QQ", head, 16 + 16 * i)
        rows.append((label, f"{_nbytes(length)} at byte {offset:,}"))
        if offset + length > size:
            problems.append(f"section {label!r} ({length:,} bytes at byte {offset:,}) runs past the "
                            f"{size:,}-byte payload")
    return Decoded(tuple(rows), (), "; ".join(problems) or None)


# -- QNN ----------------------------------------------------------------------------------------

def decode_qnn(read: Read, size: int) -> Decoded:
    """The 256-byte custom-protocol header in front of a QNN context binary (``QnnCustomProtocol.h``)."""
    try:
        head = _need(read, 0, 20, size, "QNN context header")
    except _Bad as exc:
        return Decoded((), (), str(exc))
    signature, binary = struct.unpack_from("<qQ", head, 4)
    rows = (("context binary", f"{_nbytes(binary)} from byte {_QNN_HEADER} (QNN SDK format)"),
            ("signature", str(signature)))
    if _QNN_HEADER + binary > size:
        return Decoded(rows, (), f"the header says the context binary is {binary:,} bytes from byte {_QNN_HEADER}, "
                                 f"past the end of the {size:,}-byte payload")
    return Decoded(rows)


# -- Core ML -------------------------------------------------------------------------------------

def _json_object(text: str, what: str) -> dict:
    try:
        value, _ = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        raise _Bad(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise _Bad(f"{what} is not a JSON object")
    return value


def _coreml_reference(read: Read, size: int) -> Decoded:
    count = min(size - 4, _COREML_REFERENCE_MAX)
    ref = _json_object(_need(read, 4, count, size, "reference").decode("utf-8", "replace"), "the CMJR reference")
    key = ref.get("key")
    if not isinstance(key, str) or not key:
        raise _Bad("the CMJR reference has no 'key'")
    rows = [("reference", f"version {ref.get('version')!s}, function {str(ref.get('functionName'))!r}: the "
                          f"multifunction model is named data {key[:40]!r}")]
    return Decoded(tuple(rows), (key,))


def _coreml_tree(read: Read, size: int) -> Decoded:
    tail_len = min(size, _COREML_TAIL)
    tail = _need(read, size - tail_len, tail_len, size, "file tree")[::-1]
    if not tail.startswith(b"{"):
        raise _Bad("expected the reversed file-tree JSON at the end of the payload (its last byte is '{')")
    meta = _json_object(tail.decode("utf-8", "replace"),
                        f"the file tree at the end of the payload (read from its last {tail_len:,} bytes)")
    nodes = meta.get("nodes")
    if not isinstance(nodes, list) or not nodes or not all(isinstance(n, dict) for n in nodes):
        raise _Bad("the file tree has no 'nodes'")
    files: list[tuple[str, int, int]] = []
    todo = [(len(nodes) - 1, "")]  # the root is last
    seen = set()
    while todo:
        index, path = todo.pop()
        if not isinstance(index, int) or not 0 <= index < len(nodes) or index in seen:
            raise _Bad(f"the file tree refers to node {index!r}, which is not a node or is reached twice")
        seen.add(index)
        node = nodes[index]
        if node.get("kind") == 1:
            children = node.get("children")
            if not isinstance(children, dict):
                raise _Bad(f"directory {path or '/'!r} has no children map")
            for name, child in sorted(children.items(), reverse=True):
                todo.append((child, f"{path}/{name}" if path else str(name)))
        else:
            region = node.get("dataRegion")
            offset = region.get("offset") if isinstance(region, dict) else None
            length = region.get("size") if isinstance(region, dict) else None
            if not isinstance(offset, int) or not isinstance(length, int) or offset < 0 or length < 0 \
                    or offset + length > size:
                raise _Bad(f"file {path!r} has no data region inside the {size:,}-byte payload")
            files.append((path, offset, length))
    model = sorted({p.split("/", 1)[0] for p, _, _ in files if p.split("/", 1)[0].startswith("model.")})
    kind = {"model.mlmodelc": "compiled model (model.mlmodelc)",
            "model.mlpackage": "model package (model.mlpackage)"}
    rows = [("model", ", ".join(kind.get(m, m) for m in model) or "no model.* directory"),
            ("files", f"{len(files)}, {_nbytes(sum(n for _, _, n in files))}: "
                      + ", ".join(f"{p} ({_nbytes(n)})" for p, _, n in files[:_COREML_FILES_SHOWN])
                      + (f" … and {len(files) - _COREML_FILES_SHOWN} more" if len(files) > _COREML_FILES_SHOWN else ""))]
    info = [f for f in files if f[0] == "metadata.json"]
    if info and info[0][2] <= 1 << 20:
        try:
            doc = _json_object(_need(read, info[0][1], info[0][2], size, "metadata.json").decode("utf-8", "replace"),
                               "metadata.json")
        except _Bad as exc:
            return Decoded(tuple(rows), (), str(exc))
        for label, key in (("inputs", "inputNames"), ("outputs", "outputNames")):
            names = doc.get(key)
            if isinstance(names, list):
                rows.append((label, ", ".join(str(n) for n in names[:16]) + (" …" if len(names) > 16 else "")))
        if isinstance(doc.get("identifier"), str):
            rows.append(("identifier", doc["identifier"][:80]))
    return Decoded(tuple(rows))


def decode_coreml(read: Read, size: int) -> Decoded:
    """A Core ML payload: a CMJR reference to named data, or a flattened model directory."""
    try:
        if read(0, 4) == COREML_REFERENCE_MAGIC:
            return _coreml_reference(read, size)
        return _coreml_tree(read, size)
    except _Bad as exc:
        return Decoded((), (), str(exc))


PAYLOAD_FORMATS: tuple[PayloadFormat, ...] = (
    PayloadFormat("ethos-u-vela", ETHOS_U_IDS, lambda head: head.startswith(VELA_MAGIC + b"\x00"), decode_vela,
                  magic=lambda head: VELA_MAGIC.decode() if head.startswith(VELA_MAGIC) else None),
    PayloadFormat("vgf", VGF_IDS, lambda head: head[:4] in (VGF_MAGIC, VGF_MAGIC_OLD), decode_vgf,
                  magic=lambda head: "VGF1" if head[:4] == VGF_MAGIC else None),
    # QnnExecuTorchBackend::init reads a payload without the magic as a bare context binary (DLC): not damaged
    PayloadFormat("qnn-context", QNN_IDS, lambda head: head[:4] == QNN_MAGIC, decode_qnn, by_backend=False),
    PayloadFormat("coreml", COREML_IDS,
                  lambda head: head[:4] == COREML_REFERENCE_MAGIC, decode_coreml),
)


def format_for(backend: str, head: bytes) -> PayloadFormat | None:
    """The container of a payload: by its recognisable first bytes, else by the backend that wrote it
    (a Core ML directory or a damaged header is still that backend's format, reported as not decoding)."""
    for f in PAYLOAD_FORMATS:
        if f.sniff(head):
            return f
    for f in PAYLOAD_FORMATS:
        if f.by_backend and backend in f.backends:
            return f
    return None
