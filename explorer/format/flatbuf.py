"""A bounds-checked flatbuffer table reader, built for speed over large programs.

flatc's generated Python accessors re-read a table's vtable for every field and build an object per
access: a plain walk of a 6k-value program with them takes ~0.3 s. Here a table costs one dict
lookup for its (cached, pre-validated) vtable plus one ``struct.unpack_from`` per field, and vectors
of scalars come out in one call. The field *slots* come from the schema (see ``format/pte/slots.py``, which a
test ties to the generated bindings), so ``schema/*.fbs`` stays the single source of truth.

Every read is checked against the buffer before it happens and failures raise
:class:`~explorer.errors.PteFormatError` naming the byte offset and what was expected. Offsets in a
flatbuffer are unsigned and point forward from where they are stored, so following them always
terminates; declared vector lengths are checked against the bytes that remain before anything is
allocated, so a small input can never make us allocate much. Vectors and tables may still point at
each other (aliasing), which lets a small file describe a huge tree: every vector decoded is
charged against a budget proportional to the file (:meth:`FlatReader.charge`), so decoding stays
linear in the input size whatever the file claims.
"""

from __future__ import annotations

import struct

from explorer.errors import PteFormatError


__all__ = ["FlatReader", "MAX_SLOTS", "ALIAS_FACTOR", "ALIAS_SLACK", "require_prefix", "root_offset"]

MAX_SLOTS = 16  # vtables are padded to this many slots so field lookups never need a length check
# Bytes of vector elements one load may decode: ALIAS_FACTOR x the flatbuffer + ALIAS_SLACK. A file
# without aliasing decodes each element once (<= 1x); the margin leaves room for shared strings.
ALIAS_FACTOR = 4
ALIAS_SLACK = 1 << 16

_I32 = struct.Struct("<i").unpack_from
_U32 = struct.Struct("<I").unpack_from
_U16x2 = struct.Struct("<HH").unpack_from
_SCALAR = {code: struct.Struct("<" + code) for code in "bBhHiIqQfd?"}
_VEC_STRUCTS: dict[tuple[str, int], struct.Struct] = {}


def _vec_struct(code: str, count: int) -> struct.Struct:
    key = (code, count)
    s = _VEC_STRUCTS.get(key)
    if s is None:
        s = struct.Struct(f"<{count}{code}")
        if count <= 64:  # small shapes repeat a lot; don't let giant vectors fill the cache
            _VEC_STRUCTS[key] = s
    return s


class FlatReader:
    """Reads tables, scalars, strings and vectors from ``buf[0:end]`` with every access checked."""

    __slots__ = ("buf", "end", "_vtables", "budget", "_seen")
    slots_read = MAX_SLOTS  # field slots validated and returned per table (a subclass may read more)

    def __init__(self, buf, end: int) -> None:
        self.buf = buf  # bytes, memoryview or mmap: anything struct.unpack_from accepts
        self.end = end  # bytes that belong to the flatbuffer; nothing at or past this is read
        self._vtables: dict[int, tuple[int, ...]] = {}
        self.budget = ALIAS_FACTOR * end + ALIAS_SLACK  # bytes of vector elements still allowed (see charge)
        self._seen: dict[str, dict[int, tuple]] = {}  # what once() decoded: kind -> position -> (object, cost)

    def charge(self, nbytes: int, pos: int | None = None) -> None:
        """Count ``nbytes`` of vector elements about to be decoded; raise once the file's budget is spent.

        Every vector checks its own length against the buffer, but vectors and tables that alias each
        other (N plans sharing one table, N chains sharing one long instruction vector...) can make a
        1 KB file describe gigabytes. A well-formed file decodes each element once, so its total is at
        most its size; past ``ALIAS_FACTOR`` times that the file is rejected before anything is allocated.
        """
        self.budget -= nbytes
        if self.budget < 0:
            raise PteFormatError(f"vectors alias each other: decoding would read more than "
                                 f"{ALIAS_FACTOR * self.end + ALIAS_SLACK} bytes of elements from a "
                                 f"{self.end}-byte flatbuffer", offset=pos)

    def once(self, kind: str, pos: int, decode):
        """``decode(pos)`` the first time the ``kind`` table at ``pos`` is met, then the same object, charged again.

        A vector may list one table a million times (4 bytes each): decoding it each time made a 10 MB
        ``.ptd`` of one entry listed 2.4M times take 26 s and 1 GB. Met again, the table costs a dict lookup, and
        the elements its decoding read are charged again (:meth:`charge`), as decoding it again would: the file's
        aliasing budget holds whichever way it is read. The object is shared, so it must not depend on where
        the table is listed (a caller adds an index itself)."""
        cache = self._seen.get(kind)
        if cache is None:
            cache = self._seen[kind] = {}
        hit = cache.get(pos)
        if hit is None:
            before = self.budget
            obj = decode(pos)
            cache[pos] = (obj, before - self.budget)
            return obj
        self.charge(hit[1], pos)
        return hit[0]

    def mark(self) -> tuple:
        """The reader's state (budget left, vtables validated), to :meth:`rewind` to: a caller that tries a
        faster reading order and, on any error, reads again in the schema's order must meet the same checks
        (a cached vtable skips its table-size check, so what is cached decides which table is checked; a table
        :meth:`once` decoded is charged whole, where decoding it again would fail part way)."""
        return self.budget, dict(self._vtables), {k: dict(v) for k, v in self._seen.items()}

    def rewind(self, mark: tuple) -> None:
        self.budget, self._vtables, self._seen = mark[0], dict(mark[1]), {k: dict(v) for k, v in mark[2].items()}

    # -- tables ------------------------------------------------------------------------------

    def table(self, pos: int) -> tuple[int, ...]:
        """Field offsets (relative to ``pos``) of the table at ``pos``, padded to MAX_SLOTS; 0 = absent."""
        end = self.end
        if pos < 0 or pos + 4 > end:
            raise PteFormatError(f"expected a table inside the {end}-byte flatbuffer", offset=pos)
        vt = pos - _I32(self.buf, pos)[0]
        cached = self._vtables.get(vt)
        if cached is not None:
            return cached
        if vt < 0 or vt + 4 > end or vt & 1:
            raise PteFormatError(f"table's vtable offset points to byte {vt}, outside the flatbuffer "
                                 f"(0..{end}) or unaligned", offset=pos)
        vt_size, table_size = _U16x2(self.buf, vt)
        if vt_size < 4 or vt_size & 1 or vt + vt_size > end:
            raise PteFormatError(f"vtable size {vt_size} is not an even number >= 4 that fits in the "
                                 f"flatbuffer", offset=vt)
        if table_size < 4 or pos + table_size > end:
            raise PteFormatError(f"table size {table_size} runs past the end of the flatbuffer ({end} bytes)",
                                 offset=pos)
        # only the first MAX_SLOTS slots are ever read (later ones are fields of a newer schema):
        # validating just those keeps a vtable's cost constant however large it claims to be
        slots = min((vt_size - 4) // 2, self.slots_read)
        offsets = _vec_struct("H", slots).unpack_from(self.buf, vt + 4) if slots else ()
        for slot, off in enumerate(offsets):
            if off and (off < 4 or off >= table_size):
                raise PteFormatError(f"field slot {slot} at table offset {off} lies outside the "
                                     f"{table_size}-byte table", offset=vt + 4 + 2 * slot)
        padded = tuple(offsets) + (0,) * (self.slots_read - slots)
        self._vtables[vt] = padded
        return padded

    # -- scalars -----------------------------------------------------------------------------

    def scalar(self, pos: int, code: str):
        """One little-endian scalar of struct format ``code`` at ``pos``."""
        s = _SCALAR[code]
        if pos < 0 or pos + s.size > self.end:
            raise PteFormatError(f"expected a {s.size}-byte value inside the flatbuffer ({self.end} bytes)",
                                 offset=pos)
        return s.unpack_from(self.buf, pos)[0]

    def field(self, pos: int, vt: tuple[int, ...], slot: int, code: str, default=0):
        """A scalar field of the table at ``pos``, or the schema ``default`` when absent."""
        off = vt[slot]
        return self.scalar(pos + off, code) if off else default

    # -- references ----------------------------------------------------------------------------

    def deref(self, pos: int) -> int:
        """Follow the uoffset stored at ``pos``; the target must lie inside the flatbuffer."""
        if pos < 0 or pos + 4 > self.end:
            raise PteFormatError("expected a 4-byte offset inside the flatbuffer", offset=pos)
        target = pos + _U32(self.buf, pos)[0]
        if target + 4 > self.end:
            raise PteFormatError(f"offset points to byte {target}, past the end of the flatbuffer "
                                 f"({self.end} bytes)", offset=pos)
        return target

    def ref(self, pos: int, vt: tuple[int, ...], slot: int) -> int | None:
        """Position of the table/vector/string a field points to, or None when the field is absent."""
        off = vt[slot]
        return self.deref(pos + off) if off else None

    def vector(self, pos: int, elem_size: int) -> tuple[int, int]:
        """(start of elements, count) of the vector at ``pos``, its whole length checked."""
        count = _U32(self.buf, pos)[0]
        start = pos + 4
        if count * elem_size > self.end - start:
            raise PteFormatError(f"vector declares {count} elements of {elem_size} bytes, more than the "
                                 f"{self.end - start} bytes left in the flatbuffer", offset=pos)
        return start, count

    def scalars(self, pos: int | None, code: str) -> tuple:
        """A vector of scalars as a tuple (empty when the field is absent)."""
        if pos is None:
            return ()
        size = _SCALAR[code].size
        start, count = self.vector(pos, size)
        if not count:
            return ()
        self.charge(count * size, pos)
        return _vec_struct(code, count).unpack_from(self.buf, start)

    def raw_bytes(self, pos: int | None) -> bytes:
        """A [ubyte] vector as bytes (empty when absent)."""
        if pos is None:
            return b""
        start, count = self.vector(pos, 1)
        self.charge(count, pos)
        return bytes(self.buf[start:start + count])

    def tables(self, pos: int | None) -> list[int]:
        """Positions of the tables of a vector of tables (empty when absent)."""
        if pos is None:
            return []
        start, count = self.vector(pos, 4)
        if not count:
            return []
        self.charge(4 * count, pos)
        rel = _vec_struct("I", count).unpack_from(self.buf, start)
        end = self.end
        out = [start + 4 * i + r for i, r in enumerate(rel)]
        for i, target in enumerate(out):
            if target + 4 > end:
                raise PteFormatError(f"element {i} points to byte {target}, past the end of the "
                                     f"flatbuffer ({end} bytes)", offset=start + 4 * i)
        return out

    def string(self, pos: int | None) -> str | None:
        """A string field's text (None when absent); invalid UTF-8 is shown with replacement marks."""
        if pos is None:
            return None
        start, count = self.vector(pos, 1)
        self.charge(count, pos)
        return bytes(self.buf[start:start + count]).decode("utf-8", "replace")


def require_prefix(size: int) -> None:
    """Every flatbuffer file starts with a root offset and a 4-byte identifier: 8 bytes at least."""
    if size < 8:
        raise PteFormatError(f"file is {size} bytes, too short for a flatbuffer (root offset + identifier "
                             f"need 8)", offset=0)


def root_offset(buf, end: int) -> int:
    """The root table's offset (bytes 0-4), checked to lie inside the ``end``-byte flatbuffer.

    One check for every format we read (program, .ptd, .bpte, XNNPACK payload), so a bad root reads the
    same everywhere."""
    root = struct.unpack_from("<I", buf, 0)[0]
    if root < 8 or root + 4 > end:
        raise PteFormatError(f"root table offset {root} lies outside the {end}-byte flatbuffer", offset=0)
    return root
