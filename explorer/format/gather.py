"""Vectorised, bounds-checked reads of many flatbuffer tables at once (numpy gathers).

The values and instructions of a plan are tens of thousands of small tables that share a handful
of vtables. Reading them one by one in Python costs microseconds each; here each *field* costs one
numpy gather over all tables, and vtables are parsed once per distinct layout (through the scalar
reader, which validates them). Every array of positions is checked against the buffer before it is
used to index, and the first bad element is reported with its index and byte offset.
"""

from __future__ import annotations

import numpy as np

from explorer.errors import PteFormatError
from explorer.format.flatbuf import FlatReader

__all__ = ["Gather", "Fields", "NONE"]

NONE = -1  # position of an absent table/vector


def _where(path: str, rows, i: int) -> str:
    """Error path for element ``i``: ``path`` has a ``{}`` for its label: ``rows[i]``, ``rows(i)`` or ``i``."""
    label = rows(int(i)) if callable(rows) else int(rows[i]) if rows is not None else int(i)
    return path.format(label) if "{}" in path else f"{path}[{label}]"
_ARANGE = {n: np.arange(n, dtype=np.int64) for n in (1, 2, 4, 8)}


class Gather:
    __slots__ = ("bytes", "end", "reader")

    def __init__(self, buf, reader: FlatReader) -> None:
        self.end = reader.end
        self.bytes = np.frombuffer(buf, dtype=np.uint8, count=self.end)
        self.reader = reader

    # -- checks --------------------------------------------------------------------------------

    def check(self, pos: np.ndarray, size: int | np.ndarray, what: str, path: str, rows=None) -> None:
        """Raise for the first position whose ``size`` bytes don't lie inside the flatbuffer."""
        bad = (pos < 0) | (pos + size > self.end)
        if bad.any():
            i = int(np.argmax(bad))
            raise PteFormatError(f"{what} at byte {int(pos[i])} lies outside the {self.end}-byte flatbuffer",
                                 offset=int(pos[i]) if pos[i] >= 0 else None, path=_where(path, rows, i))

    # -- raw gathers (positions already checked) -----------------------------------------------------

    def read(self, pos: np.ndarray, dtype: str) -> np.ndarray:
        dt = np.dtype(dtype)
        if dt.itemsize == 1:
            return self.bytes[pos].view(dt)
        raw = self.bytes[pos[:, None] + _ARANGE[dt.itemsize]]
        return raw.view(dt).reshape(-1)

    # -- tables ---------------------------------------------------------------------------------

    def tables(self, pos: np.ndarray, path: str, rows=None) -> "Fields":
        """The field offsets of the tables at ``pos`` (0 = field absent), ``F.column(slot)`` per field; slots =
        ``reader.slots_read``."""
        width = self.reader.slots_read  # MAX_SLOTS, unless the reader reads wider tables
        if not len(pos):
            return Fields(np.zeros((0, width), np.int64), np.zeros(0, np.intp))
        self.check(pos, 4, "table", path, rows)
        vt = pos - self.read(pos, "<i4").astype(np.int64)
        uniq, inverse = np.unique(vt, return_inverse=True)
        layouts = np.empty((len(uniq), width), np.int64)
        first = np.zeros(len(uniq), np.int64)
        first[inverse[::-1]] = np.arange(len(pos) - 1, -1, -1)  # an example table for each vtable
        for k, j in enumerate(first):
            try:
                layouts[k] = self.reader.table(int(pos[j]))
            except PteFormatError as exc:
                raise exc.within(_where(path, rows, int(j))) from None
        # a table's own extent was checked for the example table; check it for every table
        sizes = self._table_sizes(uniq)[inverse.reshape(-1)]
        self.check(pos, sizes, "table", path, rows)
        return Fields(layouts, inverse.reshape(-1))

    def _table_sizes(self, vtables: np.ndarray) -> np.ndarray:
        return self.read(vtables + 2, "<u2").astype(np.int64)

    def field(self, pos: np.ndarray, fields: "Fields", slot: int, dtype: str, default=0) -> np.ndarray:
        """A scalar field of every table (the schema default where absent)."""
        off = fields.column(slot)
        present = off != 0
        out = np.full(len(pos), default, dtype=np.dtype(dtype).newbyteorder("="))
        if present.any():
            at = pos[present] + off[present]
            self._check_field(at, np.dtype(dtype).itemsize, slot)
            out[present] = self.read(at, dtype)
        return out

    def _check_field(self, at: np.ndarray, size: int, slot: int) -> None:
        """A field's offset lies inside its table, but a wide field there may still end past the buffer."""
        bad = at + size > self.end
        if bad.any():
            k = int(np.argmax(bad))
            raise PteFormatError(f"the {size}-byte field in slot {slot} of a table starts at byte {int(at[k])} and "
                                 f"runs past the end of the {self.end}-byte flatbuffer", offset=int(at[k]))

    def refs(self, pos: np.ndarray, fields: "Fields", slot: int, path: str, rows=None) -> np.ndarray:
        """Targets of an offset field of every table; NONE where absent."""
        off = fields.column(slot)
        present = off != 0
        out = np.full(len(pos), NONE, np.int64)
        if present.any():
            at = pos[present] + off[present]
            self._check_field(at, 4, slot)
            target = at + self.read(at, "<u4").astype(np.int64)
            bad = target + 4 > self.end
            if bad.any():
                i = int(np.flatnonzero(present)[int(np.argmax(bad))])
                raise PteFormatError(f"offset points to byte {int(target[bad][0])}, past the end of the "
                                     f"flatbuffer ({self.end} bytes)", offset=int(at[bad][0]), path=_where(path, rows, i))
            out[present] = target
        return out

    def vector_elements(self, vec: int, count: int) -> np.ndarray:
        """Positions of the tables a vector of ``count`` offsets at ``vec`` points to (checked)."""
        slots = vec + 4 + 4 * np.arange(count, dtype=np.int64)
        return slots + self.read(slots, "<u4").astype(np.int64)

    def vectors_elements(self, vecs: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Positions of the tables of several vectors of offsets, one after the other: vector k at ``vecs[k]``
        holds ``counts[k]`` offsets, each count already checked against the buffer (``FlatReader.vector``)."""
        total = int(counts.sum())
        firsts = np.cumsum(counts) - counts
        slots = np.repeat(vecs + 4 - 4 * firsts, counts) + 4 * np.arange(total, dtype=np.int64)
        return slots + self.read(slots, "<u4").astype(np.int64)

    # -- ragged vectors of scalars ------------------------------------------------------------------

    def ragged(self, vecs: np.ndarray, dtype: str, path: str, rows=None, *, dedupe: bool = True):
        """Decode the scalar vectors at ``vecs`` (NONE = absent -> empty).

        Returns ``(flat, starts, row)``: vector k is ``flat[starts[k]:starts[k+1]]``, and element i of
        ``vecs`` uses vector ``row[i]``. With ``dedupe`` each distinct position is decoded once, so a
        file whose tables all share one long vector can't make us allocate more than the file holds;
        the shared elements still count against the reader's budget once per reference
        (:meth:`FlatReader.charge`), so what the model hands on stays proportional to the file too.
        """
        dt = np.dtype(dtype)
        if dedupe:
            uniq, row = np.unique(vecs, return_inverse=True)
            row = row.reshape(-1)
        else:
            uniq, row = vecs, np.arange(len(vecs))
        present = uniq != NONE
        counts = np.zeros(len(uniq), np.int64)
        if present.any():
            at = uniq[present]
            counts[present] = self.read(at, "<u4").astype(np.int64)
            bad = counts[present] * dt.itemsize > self.end - (at + 4)
            if bad.any():
                k = int(np.argmax(bad))
                i = int(np.flatnonzero(vecs == at[k])[0]) if dedupe else int(np.flatnonzero(present)[k])
                raise PteFormatError(f"vector declares {int(counts[present][k])} elements of {dt.itemsize} bytes, "
                                     f"more than the {self.end - int(at[k]) - 4} bytes left in the flatbuffer",
                                     offset=int(at[k]), path=_where(path, rows, i))
        total = int(counts.sum())
        if total > self.end:  # only possible when vectors alias each other (dedupe off)
            raise PteFormatError(f"vectors declare {total} elements in all, more than the {self.end}-byte "
                                 f"flatbuffer can hold without aliasing", path=path)
        # decoded once per distinct vector, but every table that points at one hands its elements to
        # the model's readers (JSON, analysis): charge them as many times as they are referenced
        expanded = int(counts[row].sum()) if dedupe else total
        self.reader.charge(expanded * dt.itemsize, int(uniq[present][0]) if present.any() else None)
        starts = np.zeros(len(uniq) + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        if not total:
            return np.zeros(0, dt.newbyteorder("=")), starts, row
        first = np.where(present, uniq + 4, 0)
        elem = np.repeat(first - starts[:-1] * dt.itemsize, counts) + np.arange(total, dtype=np.int64) * dt.itemsize
        return self.read(elem, dtype).astype(dt.newbyteorder("=")), starts, row

    def strings(self, vecs: np.ndarray, path: str, rows=None) -> tuple["Texts", np.ndarray]:
        """Distinct strings at ``vecs`` (decoded on access) and, per element, its index there (-1 = absent)."""
        flat, starts, row = self.ragged(vecs, "u1", path, rows)
        index = np.where(vecs == NONE, -1, row)
        return Texts(flat.tobytes(), starts.tolist()), index


class Fields:
    """The field offsets of many tables, kept once per distinct vtable: ``layouts`` (a row of offsets per vtable)
    and, per table, the row of its vtable. ``F.column(slot)`` is that field's offset in every table, ``F[mask]``
    the tables ``mask`` selects. A row of offsets per table (16 int64: 128 bytes) made a 10 MB file whose 2.4M-entry
    values vector points at one table ask for 300 MB per table kind; this is 8 bytes per table."""

    __slots__ = ("layouts", "row")

    def __init__(self, layouts: np.ndarray, row: np.ndarray) -> None:
        self.layouts, self.row = layouts, row

    def __len__(self) -> int:
        return len(self.row)

    def column(self, slot: int) -> np.ndarray:
        """The offset of field ``slot`` in every table (0: absent)."""
        return self.layouts[:, slot][self.row]

    def __getitem__(self, key) -> "Fields":
        """The tables ``key`` (a mask or indices) selects."""
        return Fields(self.layouts, self.row[key])


class Texts:
    """UTF-8 strings cut from one bytes object, decoded (invalid bytes shown as U+FFFD) when first read."""

    __slots__ = ("_raw", "_bounds", "_cache")

    def __init__(self, raw: bytes, bounds: list[int]) -> None:
        self._raw, self._bounds = raw, bounds
        self._cache: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._bounds) - 1

    def sizes(self) -> np.ndarray:
        """Bytes of each string: what decoding them was charged, per string (see ``FlatReader.charge``)."""
        return np.diff(np.asarray(self._bounds, dtype=np.int64))

    def __getitem__(self, k: int) -> str:
        text = self._cache.get(k)
        if text is None:
            text = self._cache[k] = self._raw[self._bounds[k]:self._bounds[k + 1]].decode("utf-8", "replace")
        return text
