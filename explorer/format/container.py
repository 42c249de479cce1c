"""The container around the flatbuffer: identifier, ``eh00`` extended header, segment region.

Checked before any decoding so that "this is not a .pte" and "this .pte is truncated" are told
apart from a corrupt program, each with the byte offset where the expectation failed.

The identifier must be exactly ``ET12``, the ``file_identifier`` of ``schema/program.fbs``: executorch's
runtime (``Program::load``) rejects any other, so a file we accepted with another one would be a
file executorch can't run. When bytes 4-8 hold something else, the format table
(:data:`.registry.KNOWN_MAGIC`) says what the file most likely is (the other ExecuTorch flatbuffers
carry their own identifiers, see ``schema/*.fbs``) and what to do instead.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from ..errors import PteFormatError
from ..model import ExtendedHeader
from .flatbuf import require_prefix, root_offset

__all__ = ["Container", "read_container", "identify", "HEADER_MAGIC", "HEADER_OFFSET", "IDENTIFIER"]

HEADER_OFFSET = 8  # the extended header sits right after the root offset and file identifier
HEADER_MAGIC = b"eh00"
IDENTIFIER = b"ET12"  # schema/program.fbs file_identifier; the only one executorch 1.5.1 loads
_OTHER_VERSION = re.compile(rb"ET[0-9]{2}")

_ZIP = b"PK\x03\x04"
_ZIP_HINT = ("a zip archive (a TorchScript model, a torch.export .pt2, or an ETRecord), not an ExecuTorch "
             "program; export it to .pte with executorch (to_edge(...).to_executorch()) first")
_EXPORT_ADVICE = "export it to .pte with executorch (to_edge(...).to_executorch()) first"
# which zip it is, from its entry names (the first entry is in the local header at byte 30; the central
# directory, at the end, lists the rest). ETRecord: devtools/etrecord/_etrecord.py ETRecord.save writes
# ETRECORD_V0 (ETRecordReservedFileNames.ETRECORD_IDENTIFIER) first; torch.save and torch.jit.save both
# start with <name>/data.pkl, and only TorchScript has code/ and constants.pkl; torch.export.save (.pt2)
# writes an archive_format entry and models/*.json.
_ZIP_KINDS = (
    (b"ETRECORD_V0", "an ETRecord (executorch's export record for the devtools Inspector), not a program; open "
                     "the .pte of the same export, and pass the ETRecord to executorch's Inspector"),
    (b"archive_format", "a torch.export archive (.pt2, torch.export.save), not an ExecuTorch program; "
                        + _EXPORT_ADVICE),
    (b"constants.pkl", "a TorchScript model (torch.jit.save), not an ExecuTorch program; ExecuTorch exports "
                       "start from the nn.Module with torch.export, then " + _EXPORT_ADVICE.replace("export it ", "")),
    (b"data.pkl", "a PyTorch checkpoint (torch.save), not an ExecuTorch program; load it into its nn.Module and "
                  + _EXPORT_ADVICE.replace("it", "that", 1)),
)
_TEXT = frozenset(range(32, 127)) | {9, 10, 13}
_HEADER_MIN_LENGTH = 24  # magic, length, program_size, segment_base_offset


@dataclass(frozen=True)
class Container:
    identifier: str  # bytes 4-8, e.g. "ET12"
    root: int  # position of the root Program table
    flatbuffer_end: int  # bytes belonging to the flatbuffer (program_size, or the whole file)
    header: ExtendedHeader | None
    size: int  # file size


def read_container(buf, size: int) -> Container:
    """Validate the container of a ``size``-byte buffer and say where the flatbuffer is."""
    require_prefix(size)
    ident = bytes(buf[4:8])
    if ident != IDENTIFIER:
        raise PteFormatError(f"expected file identifier 'ET12' at bytes 4-8, found {ident!r}: "
                             f"{identify(bytes(buf[:512]), bytes(buf[max(0, size - 65536):size]))}", offset=4)
    header = _read_header(buf, size)
    end = size
    if header is not None:
        if header.program_size < HEADER_OFFSET + header.length or header.program_size > size:
            raise PteFormatError(f"extended header says the program is {header.program_size} bytes, but the "
                                 f"file is {size} bytes (and the headers need {HEADER_OFFSET + header.length})",
                                 offset=16, path="extended_header.program_size")
        if header.segment_base_offset < header.program_size:
            raise PteFormatError(f"extended header puts segments at byte {header.segment_base_offset}, inside "
                                 f"the {header.program_size}-byte program", offset=24,
                                 path="extended_header.segment_base_offset")
        if header.segment_base_offset > size:
            raise PteFormatError(f"extended header puts segments at byte {header.segment_base_offset}, past "
                                 f"the end of the {size}-byte file (truncated?)", offset=24,
                                 path="extended_header.segment_base_offset")
        if header.segment_data_size is not None and header.segment_base_offset + header.segment_data_size > size:
            raise PteFormatError(f"extended header declares {header.segment_data_size} bytes of segment data "
                                 f"from byte {header.segment_base_offset}, but the file ends at byte {size} "
                                 f"(truncated?)", offset=32, path="extended_header.segment_data_size")
        end = header.program_size
    root = root_offset(buf, end)
    return Container(ident.decode("ascii"), root, end, header, size)


def identify(head: bytes, tail: bytes = b"") -> str:
    """What a file whose first bytes are ``head`` (and last bytes ``tail``, where a zip lists its entries)
    is, when it is not an ET12 program (with advice that fits it)."""
    if head[:4] == _ZIP:
        return _zip_kind(head, tail)
    if head and all(b in _TEXT for b in head[:64]):
        return "a text file, not an ExecuTorch program (a .pte is binary: a flatbuffer with identifier 'ET12')"
    from .registry import what_is  # the table imports the program reader, which imports this module

    ident = head[4:8]
    known = what_is(ident) or what_is(head[8:12])  # 8-12: a size-prefixed flatbuffer (ETDump is written that way)
    if known:
        return known
    if _OTHER_VERSION.fullmatch(ident):
        return (f"an ExecuTorch program of schema version {ident[2:].decode()}, but this tool and executorch "
                f"1.5.1 read only ET12; re-export it with executorch 1.5.1 (or use the executorch release "
                f"that wrote it)")
    return "not an ExecuTorch program"


def _zip_kind(head: bytes, tail: bytes) -> str:
    name_len = int.from_bytes(head[26:28], "little") if len(head) >= 30 else 0
    names = head[30:30 + name_len] + b"\n" + tail
    first = head[30:30 + name_len]
    for marker, what in _ZIP_KINDS:
        if marker == b"ETRECORD_V0" and first != marker:
            continue  # an ETRecord says so in its first entry
        if marker in names:
            return what
    return _ZIP_HINT


def _read_header(buf, size: int) -> ExtendedHeader | None:
    if size < HEADER_OFFSET + 8 or bytes(buf[HEADER_OFFSET:HEADER_OFFSET + 4]) != HEADER_MAGIC:
        return None
    length = struct.unpack_from("<I", buf, HEADER_OFFSET + 4)[0]
    if length < _HEADER_MIN_LENGTH:
        raise PteFormatError(f"extended header length {length} is shorter than the {_HEADER_MIN_LENGTH} bytes "
                             f"it needs", offset=HEADER_OFFSET + 4, path="extended_header.length")
    if HEADER_OFFSET + length > size:
        raise PteFormatError(f"extended header of {length} bytes runs past the end of the {size}-byte file",
                             offset=HEADER_OFFSET + 4, path="extended_header.length")
    program_size, segment_base = struct.unpack_from("<QQ", buf, HEADER_OFFSET + 8)
    data_size = struct.unpack_from("<Q", buf, HEADER_OFFSET + 24)[0] if length > 24 else None
    return ExtendedHeader(length, program_size, segment_base, data_size)
