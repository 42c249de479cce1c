"""Zip bombs for the bounded readers' tests: a small archive whose member inflates to a huge, valid JSON.

Deflating a GiB takes a dozen seconds; repeating one full-flushed deflate block does not. A block of spaces
compressed with ``Z_FULL_FLUSH`` ends on a byte boundary with the window reset, so ``k`` copies of it followed
by an empty final block are one valid raw deflate stream that inflates to ``k`` times the block: the archive is
written by hand (local header, data, central directory, end record), with the true CRC-32 and sizes, so an
unbounded reader would inflate and parse all of it. Test-only, like the other writers.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["json_bomb_zip"]

_CHUNK = 1 << 20  # one block inflates to 1 MiB of spaces


def _block() -> bytes:
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    return comp.compress(b" " * _CHUNK) + comp.flush(zlib.Z_FULL_FLUSH)


def _deflate(head: bytes, mib: int, tail: bytes) -> tuple[bytes, int, int]:
    """(raw deflate of head + mib MiB of spaces + tail, CRC-32, inflated size)."""
    first = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = first.compress(head) + first.flush(zlib.Z_FULL_FLUSH)
    last = zlib.compressobj(9, zlib.DEFLATED, -15)
    end = last.compress(tail) + last.flush(zlib.Z_FINISH)
    block = _block()
    crc = zlib.crc32(head)
    spaces = b" " * _CHUNK
    for _ in range(mib):
        crc = zlib.crc32(spaces, crc)
    crc = zlib.crc32(tail, crc)
    return start + block * mib + end, crc & 0xFFFFFFFF, len(head) + mib * _CHUNK + len(tail)


def json_bomb_zip(members: dict[str, bytes], bomb: str, mib: int) -> bytes:
    """A zip of ``members`` (stored, as executorch writes them) plus ``bomb``: ``[`` + ``mib`` MiB of spaces +
    ``]``, deflated (a valid JSON array once inflated; ``mib`` < 4096 keeps it a plain, non-zip64 archive)."""
    out = bytearray()
    directory = bytearray()
    entries = [(name, data, 0, zlib.crc32(data) & 0xFFFFFFFF, len(data)) for name, data in members.items()]
    data, crc, size = _deflate(b"[", mib, b"]")
    entries.append((bomb, data, 8, crc, size))
    for name, payload, method, crc, size in entries:
        raw = name.encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(payload), size, len(raw), 0)
        out += raw + payload
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc, len(payload),
                                 size, len(raw), 0, 0, 0, 0, 0, offset) + raw
    start = len(out)
    out += directory
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(directory), start, 0)
    return bytes(out)
