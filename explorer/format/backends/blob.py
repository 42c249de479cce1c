"""A delegate's processed blob: its bytes (read only when asked) and what can be said about them.

``load`` never reads delegate blobs. Here, on request, a blob is fetched (a segment through
``Program.segment_data``; an inline ``backend_delegate_data`` entry by re-reading the program's
flatbuffer) and identified: size, magic bytes, storage, and for formats that are public the contents —
XNNPACK's subgraph (:mod:`.xnnpack`), the AOTInductor backends' list of named-data keys (CUDA, Metal:
their payload is the keys of the ``.so`` and weights blobs, one per line) and Vulkan's compile specs; the
headers of Ethos-U, VGF, Core ML and QNN payloads (:mod:`.backend_payloads`), which read only the bytes
their header points at.
An unknown payload is described, never rejected.
"""

from __future__ import annotations

import dataclasses
import re

from explorer.errors import PteFormatError
from explorer.model.program import CompileSpec, Delegate, Program
from explorer.model.companions import Payload
from explorer.format.pte import slots as S
from explorer.format.pte.container import read_container
from explorer.format.flatbuf import FlatReader
from explorer.format.backends.arm_specs import ARM_IDS, arm_spec_pairs
from explorer.format.backends.headers import QNN_IDS, format_for
from explorer.format.backends.qnn_options import QNN_SPEC_KEY, qnn_spec_pairs
from explorer.format.backends.xnnpack import decode_xnnpack, is_xnnpack, needed_prefix

__all__ = ["delegate_bytes", "identify", "identify_all", "inline_spans", "describe_payload", "decode_compile_specs", "XNNPACK_IDS", "AOTI_IDS"]

XNNPACK_IDS = frozenset({"XnnpackBackend"})
AOTI_IDS = frozenset({"CudaBackend", "MetalBackend", "AotiBackend"})  # payload = named-data keys, one per line
_KEY_LINE = re.compile(r"[\x21-\x7e]{1,256}")

# Vulkan compile specs (backends/vulkan/vulkan_preprocess.py parse_compile_spec): key -> decoder
_VK_STORAGE = {0: "BUFFER", 1: "TEXTURE_3D", 2: "TEXTURE_2D", 255: "DEFAULT_STORAGE"}
_VK_LAYOUT = {0: "TENSOR_WIDTH_PACKED", 1: "TENSOR_HEIGHT_PACKED", 2: "TENSOR_CHANNELS_PACKED",
              3: "PACKED_INT8_4W4C", 4: "PACKED_INT8_4H4W", 5: "PACKED_INT8_4W", 6: "PACKED_INT8_4C",
              8: "PACKED_INT8_4C1W", 9: "PACKED_INT8_CONV2D", 255: "DEFAULT_LAYOUT"}


def _le(v: bytes) -> int:
    return int.from_bytes(v, "little")


_VULKAN_SPECS = {
    "storage_type_override": lambda v: _VK_STORAGE.get(_le(v), f"unknown({_le(v)})"),
    "memory_layout_override": lambda v: _VK_LAYOUT.get(_le(v), f"unknown({_le(v)})"),
    **{k: lambda v: str(_le(v)) for k in ("texture_limits_x", "texture_limits_y", "texture_limits_z",
                                          "external_constants_max_data_bytes")},
    **{k: lambda v: str(bool(_le(v))) for k in ("skip_tag_memory_metadata", "downcast_64_bit", "force_fp16",
                                                "small_texture_limits", "skip_memory_planning",
                                                "alias_buffer_mutations", "require_dynamic_shapes")},
}


_HEAD = 64  # bytes read to identify a payload whose format we can't decode
_SMALL = 16 << 20  # a payload of a decodable format read whole up to this size (else only its head)


def delegate_bytes(program: Program, delegate: Delegate, *, head_only: bool = False,
                   inline: list[tuple[int, int]] | None = None) -> bytes | None:
    """The processed blob of ``delegate``; None when its index points nowhere (a bad-reference finding).

    ``head_only``: only what identifying and decoding need — an XNNPACK payload's header and flatbuffer
    (its inline constants can be most of a model), the first bytes of a payload no decoder here reads (a
    QNN or Core ML blob can be hundreds of MB). ``inline``: :func:`inline_spans`, when already known.
    """
    if delegate.location == "segment":
        if not 0 <= delegate.data_index < len(program.segments):
            return None
        seg = program.segments[delegate.data_index]
        if head_only and seg.file_offset is not None and program._read is not None and seg.size > _HEAD \
                and seg.file_offset + seg.size <= program.size:
            head = program._read(seg.file_offset, _HEAD)
            prefix = needed_prefix(head)
            if prefix is not None:
                return program._read(seg.file_offset, min(max(prefix, _HEAD), seg.size))
            if not _decodable(delegate) or seg.size > _SMALL:
                return head
        return program.segment_data(delegate.data_index)
    if delegate.location != "inline" or not 0 <= delegate.data_index < len(program.delegate_data_sizes):
        return None
    spans = inline_spans(program) if inline is None else inline
    offset, size = spans[delegate.data_index]
    if head_only and size > _HEAD:
        prefix = needed_prefix(program._read(offset, _HEAD))
        if prefix is not None:
            size = min(max(prefix, _HEAD), size)
        elif not _decodable(delegate) or size > _SMALL:
            size = _HEAD
    return program._read(offset, size)


def _decodable(delegate: Delegate) -> bool:
    return delegate.id in XNNPACK_IDS or delegate.id in AOTI_IDS


def inline_spans(program: Program) -> list[tuple[int, int]]:
    """(byte position, size) of every inline ``backend_delegate_data`` blob, read once from the flatbuffer."""
    if program._read is None:
        raise PteFormatError("inline delegate data is not available: the program was built in memory",
                             path="backend_delegate_data")
    end = program.header.program_size if program.header else program.size
    flat = program._read(0, end)  # the flatbuffer only: segments are checked against the whole file's size
    container = read_container(flat, max(program.size, len(flat)))
    r = FlatReader(flat, container.flatbuffer_end)
    vt = r.table(container.root)
    spans = []
    for i, pos in enumerate(r.tables(r.ref(container.root, vt, S.PROGRAM_BACKEND_DELEGATE_DATA))):
        try:
            bvt = r.table(pos)
            data = r.ref(pos, bvt, S.BLOB_DATA)
            spans.append((0, 0) if data is None else r.vector(data, 1))
        except PteFormatError as exc:
            raise exc.within(f"program.backend_delegate_data[{i}]") from None
    return spans


def _magic(data: bytes) -> str:
    """The identifying bytes: a flatbuffer identifier (bytes 4-8) when it looks like one, else the first 8."""
    flatbuffer = len(data) >= 8 and 8 <= int.from_bytes(data[:4], "little") < len(data) \
        and re.fullmatch(rb"[A-Za-z0-9]{4}", data[4:8])
    head = data[4:8] if flatbuffer or data[4:8] == b"XH00" else data[:8]
    text = head.decode("ascii", "replace")
    return text if head.isascii() and text.isprintable() else head.hex()


def decode_compile_specs(delegate: Delegate) -> tuple[tuple[str, str], ...]:
    """Compile specs with values decoded where the backend's format is public (Vulkan's values, QNN's
    ``qnn_compile_spec`` flatbuffer as ``qnn_compile_spec.<option>`` pairs, the Arm backends' compiler flags
    and pipeline options one pair each), else as text/hex."""
    vulkan = delegate.id == "VulkanBackend"
    out: list[tuple[str, str]] = []
    for spec in delegate.compile_specs:
        pairs = qnn_spec_pairs(spec.key, spec.value) if spec.key == QNN_SPEC_KEY and delegate.id in QNN_IDS else \
            arm_spec_pairs(spec.key, spec.value) if delegate.id in ARM_IDS else None
        if pairs is not None:
            out.extend(pairs)
            continue
        decode = _VULKAN_SPECS.get(spec.key) if vulkan else None
        out.append((spec.key, decode(spec.value) if decode and spec.value else CompileSpec.text.fget(spec)))
    return tuple(out)


def identify(program: Program, delegate: Delegate, *, inline: list[tuple[int, int]] | None = None) -> Payload:
    """Fetch and describe the payload of ``delegate``; decoding problems go to ``Payload.error``."""
    specs = decode_compile_specs(delegate)
    try:
        if inline is None and delegate.location == "inline" and program._read is not None:
            inline = inline_spans(program)
        data = delegate_bytes(program, delegate, head_only=True, inline=inline)
    except PteFormatError as exc:
        return Payload(delegate.index, delegate.id, delegate.location, delegate.data_size, "", "unavailable",
                       error=str(exc), compile_specs=specs)
    if data is None:
        return Payload(delegate.index, delegate.id, delegate.location, None, "", "unavailable",
                       compile_specs=specs)
    return describe_payload(delegate, data, delegate.data_size if delegate.data_size is not None else len(data),
                            read=_payload_read(program, delegate, inline))


def _payload_read(program: Program, delegate: Delegate, inline: list[tuple[int, int]] | None):
    """``read(offset, count)`` inside the delegate's blob, for readers that need more than its head (a
    Vela stream's block headers, a Core ML file tree at the end); None when the blob is read whole anyway."""
    if program._read is None:
        return None
    if delegate.location == "segment" and 0 <= delegate.data_index < len(program.segments):
        seg = program.segments[delegate.data_index]
        if seg.file_offset is None or seg.file_offset + seg.size > program.size:
            return None
        start, size = seg.file_offset, seg.size
    elif delegate.location == "inline" and inline is not None and 0 <= delegate.data_index < len(inline):
        start, size = inline[delegate.data_index]
    else:
        return None
    return lambda off, n: program._read(start + off, max(0, min(n, size - off))) if 0 <= off < size else b""


def identify_all(program: Program) -> dict[str, tuple[Payload, ...]]:
    """Plan name -> the payload of each of its delegates. A blob several delegates share (same storage,
    index and backend) is read and decoded once; inline blobs are located with one pass over the program."""
    inline: list[tuple[int, int]] | None = None
    if program._read is not None and any(d.location == "inline" for p in program.plans for d in p.delegates):
        try:
            inline = inline_spans(program)
        except PteFormatError:
            inline = None  # each inline delegate then says why on its own
    seen: dict[tuple, Payload] = {}
    out = {}
    for plan in program.plans:
        items = []
        for d in plan.delegates:
            key = (d.location, d.data_index, d.id, d.compile_specs)
            known = seen.get(key)
            if known is None:
                known = seen[key] = identify(program, d, inline=inline)
            items.append(known if known.delegate == d.index else dataclasses.replace(known, delegate=d.index))
        out[plan.name] = tuple(items)
    return out


def describe_payload(delegate: Delegate, data: bytes, size: int | None = None, *, read=None) -> Payload:
    """What ``data`` (the payload, or its head when ``size`` says it is longer) is, for ``delegate``.

    ``read(offset, count)``: the rest of the payload, for header readers that need more than the head
    (defaults to slicing ``data``)."""
    size = len(data) if size is None else size
    base = dict(delegate=delegate.index, backend=delegate.id, storage=delegate.location, size=size,
                magic=_magic(data), compile_specs=decode_compile_specs(delegate))
    if delegate.id in XNNPACK_IDS or (delegate.id not in AOTI_IDS and is_xnnpack(data)):
        try:
            graph = decode_xnnpack(data, size)
        except PteFormatError as exc:
            return Payload(**base, format="xnnpack", error=str(exc))
        return Payload(**base, format="xnnpack", named_keys=graph.named_keys, graph=graph)
    if delegate.id in AOTI_IDS:
        text = data.decode("utf-8", "replace")
        keys = tuple(line for line in text.split("\n") if line)
        bad = [k for k in keys if not _KEY_LINE.fullmatch(k)]
        if bad or not keys:
            return Payload(**base, format="aoti-keys",
                           error="expected named-data keys, one per line" + (f"; found {bad[0][:40]!r}" if bad else
                                                                              "; the payload is empty"))
        return Payload(**base, format="aoti-keys", named_keys=keys)
    container = format_for(delegate.id, data[:64])
    if container is not None:
        decoded = container.decode(read if read is not None else (lambda off, n: data[off:off + n]), size)
        base["magic"] = container.magic(data[:64]) or base["magic"]
        return Payload(**base, format=container.name, named_keys=decoded.named_keys, error=decoded.error,
                       header=decoded.header)
    return Payload(**base, format="unknown")
