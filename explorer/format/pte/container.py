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

import struct
from dataclasses import dataclass

from explorer.errors import PteFormatError
from explorer.model.program import ExtendedHeader
from explorer.format.kinds import identify
from explorer.format.flatbuf import require_prefix, root_offset

__all__ = ["Container", "read_container", "HEADER_MAGIC", "HEADER_OFFSET", "IDENTIFIER"]

HEADER_OFFSET = 8  # the extended header sits right after the root offset and file identifier
HEADER_MAGIC = b"eh00"
IDENTIFIER = b"ET12"  # schema/program.fbs file_identifier; the only one executorch 1.5.1 loads
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
