"""``load_etdump``: an ExecuTorch ETDump (``.etdp``) in, an :class:`~explorer.model.profile.ETDump` out.

The same guarantees as :func:`explorer.load`: bytes or a path (read, never written), no torch or
executorch needed, and anything structurally wrong raises :class:`~explorer.errors.PteFormatError`
with the byte offset and schema path (``run_data[3].events[17].profile_event.name``). A long
profiling session writes hundreds of thousands of events, so after the few run tables every event
field is read with one bounds-checked numpy gather for all events (:class:`~.gather.Gather`), not table
by table.

Layout (``schema/etdump_schema_flatcc.fbs``, written by flatcc): executorch's ``ETDumpGen`` writes a
*size-prefixed* flatbuffer — a little-endian u32 with the size of what follows, then the root offset
and the identifier ``ED00`` at bytes 8-12. A dump without the prefix (identifier at bytes 4-8) is read
too. A debug event keeps where it was recorded and its entry (:func:`_value`: a tensor's dtype, sizes, strides
and offset into the debug buffer, or a scalar); the tensors' bytes are in the debug buffer, read by
:mod:`explorer.analysis.numerics.join` with the same checks.
"""

from __future__ import annotations

import os
import struct
from typing import Union

import numpy as np

from explorer.errors import PteFormatError
from explorer.model.numerics import VALUE_KINDS, LoggedTensor, LoggedValue
from explorer.model.profile import AllocationColumns, DebugEvent, ETDump, ProfileColumns, RunData
from explorer.format.flatbuf import FlatReader
from explorer.format.gather import NONE, Gather

__all__ = ["load_etdump", "IDENTIFIER"]

IDENTIFIER = b"ED00"

# Field slots of schema/etdump_schema_flatcc.fbs (declaration order; tests/test_etdump.py builds dumps
# with the flatc-generated builders and reads them back through these).
ETDUMP_VERSION, ETDUMP_RUN_DATA = 0, 1
RUN_NAME, RUN_BUNDLED_INPUT_INDEX, RUN_ALLOCATORS, RUN_EVENTS = 0, 1, 2, 3
ALLOCATOR_NAME = 0
EVENT_PROFILE, EVENT_ALLOCATION, EVENT_DEBUG = 0, 1, 2
PE_NAME, PE_CHAIN_INDEX, PE_INSTRUCTION_ID, PE_DELEGATE_ID_INT, PE_DELEGATE_ID_STR = 0, 1, 2, 3, 4
PE_DELEGATE_METADATA, PE_START_TIME, PE_END_TIME = 5, 6, 7
AE_ALLOCATOR_ID, AE_ALLOCATION_SIZE = 0, 1
DE_CHAIN_INDEX, DE_INSTRUCTION_ID, DE_DEBUG_ENTRY, DE_DELEGATE_ID_INT, DE_DELEGATE_ID_STR, DE_NAME = 0, 1, 2, 3, 4, 5
V_VAL, V_TENSOR, V_TENSOR_LIST, V_INT, V_FLOAT, V_DOUBLE, V_BOOL, V_OUTPUT = 0, 1, 2, 3, 4, 5, 6, 7
T_SCALAR_TYPE, T_SIZES, T_STRIDES, T_OFFSET = 0, 1, 2, 3

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
_U32 = struct.Struct("<I").unpack_from


def load_etdump(source: Source) -> ETDump:
    """Decode an ETDump from a path or bytes. PteFormatError for bad bytes; OSError for an unreadable path."""
    path = None
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        path = os.fspath(source)
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        return _decode(data, path)
    except RecursionError:  # defensive: decoding is iterative
        raise PteFormatError("structure nested too deeply") from None


def _container(data: bytes) -> tuple[int, int, bool]:
    """(root table position, end of the flatbuffer, size-prefixed?) after checking the identifier."""
    size = len(data)
    if size >= 12 and data[8:12] == IDENTIFIER:
        declared = _U32(data, 0)[0]
        if 4 + declared > size:
            raise PteFormatError(f"size prefix says {declared} bytes follow, but the file has only {size - 4} "
                                 f"(truncated?)", offset=0, path="size_prefix")
        base, end, prefixed = 4, 4 + declared, True
    elif size >= 8 and data[4:8] == IDENTIFIER:
        base, end, prefixed = 0, size, False
    else:
        found = data[8:12] if size >= 12 else data[4:8]
        raise PteFormatError(f"expected file identifier 'ED00' at bytes 8-12 (after the size prefix), found "
                             f"{bytes(found)!r}: not an ETDump", offset=8 if size >= 12 else 4)
    root = base + _U32(data, base)[0]
    if root < base + 8 or root + 4 > end:
        raise PteFormatError(f"root table offset points to byte {root}, outside the flatbuffer "
                             f"({base + 8}..{end})", offset=base)
    return root, end, prefixed


def _decode(data: bytes, path: str | None) -> ETDump:
    root, end, prefixed = _container(data)
    r = FlatReader(data, end)
    g = Gather(data, r)
    try:
        vt = r.table(root)
        version = r.field(root, vt, ETDUMP_VERSION, "I")
        run_pos = r.tables(r.ref(root, vt, ETDUMP_RUN_DATA))
    except PteFormatError as exc:
        raise exc.within("etdump") from None
    ev, run_of, within, heads = _runs(r, g, np.asarray(run_pos, dtype=np.int64))

    def where(sub: np.ndarray, field: str):
        return lambda k: f"run_data[{int(run_of[sub[k]])}].events[{int(within[sub[k]])}]{field}"

    every = np.arange(len(ev), dtype=np.int64)
    ef = g.tables(ev, "{}", where(every, ""))
    prof = g.refs(ev, ef, EVENT_PROFILE, "{}", where(every, ".profile_event"))
    alloc = g.refs(ev, ef, EVENT_ALLOCATION, "{}", where(every, ".allocation_event"))
    dbg = g.refs(ev, ef, EVENT_DEBUG, "{}", where(every, ".debug_event"))

    texts = _Interner()
    profile = _profile_columns(g, prof, run_of, where, texts)
    allocations = _allocation_columns(g, alloc, run_of, where)
    debug = _debug_events(r, g, dbg, run_of, where, texts)
    texts_final = texts.names()
    profile = ProfileColumns(**{**profile, "names": texts_final})

    runs = []
    p_bounds = np.searchsorted(profile.run, np.arange(len(heads) + 1))
    a_bounds = np.searchsorted(allocations.run, np.arange(len(heads) + 1))
    for i, (name, bundled, allocators) in enumerate(heads):
        runs.append(RunData(i, name, bundled, allocators, tuple(debug.get(i, ())), profile, allocations,
                            (int(p_bounds[i]), int(p_bounds[i + 1])), (int(a_bounds[i]), int(a_bounds[i + 1]))))
    return ETDump(version, tuple(runs), profile, allocations, len(data), path, prefixed)


def _runs(r: FlatReader, g: Gather, runs: np.ndarray):
    """The run tables, all at once: (event table positions, their run, their index in it, per-run heads).

    A session of 10k runs is 10k RunData tables; each field is one gather over all of them, and the
    events vectors' lengths and elements are checked together before anything is allocated from them.
    """
    label = lambda k: f"run_data[{k}]"  # noqa: E731
    rf = g.tables(runs, "{}", label)
    names = _Interner()
    name = names.codes(g, g.refs(runs, rf, RUN_NAME, "{}", lambda k: f"run_data[{k}].name"), "{}",
                       lambda k: f"run_data[{k}].name")
    texts = names.names()
    bundled = g.field(runs, rf, RUN_BUNDLED_INPUT_INDEX, "<i4", -1)
    alloc_refs = g.refs(runs, rf, RUN_ALLOCATORS, "{}", lambda k: f"run_data[{k}].allocators")
    vecs = g.refs(runs, rf, RUN_EVENTS, "{}", lambda k: f"run_data[{k}].events")
    present = vecs != NONE
    counts = np.zeros(len(runs), np.int64)
    if present.any():
        at = vecs[present]
        counts[present] = g.read(at, "<u4").astype(np.int64)
        bad = counts[present] * 4 > r.end - (at + 4)
        if bad.any():
            k = int(np.flatnonzero(present)[int(np.argmax(bad))])
            raise PteFormatError(f"vector declares {int(counts[k])} elements of 4 bytes, more than the "
                                 f"{r.end - int(vecs[k]) - 4} bytes left in the flatbuffer", offset=int(vecs[k]),
                                 path=f"run_data[{k}].events")
    total = int(counts.sum())
    r.charge(4 * total, int(vecs[present][0]) if present.any() else None)
    run_of = np.repeat(np.arange(len(runs), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    within = np.arange(total, dtype=np.int64) - first[run_of]
    slots = np.where(present, vecs, 0)[run_of] + 4 + 4 * within
    ev = slots + g.read(slots, "<u4").astype(np.int64) if total else np.zeros(0, np.int64)
    bad = ev + 4 > r.end
    if bad.any():
        k = int(np.argmax(bad))
        raise PteFormatError(f"element {int(within[k])} points to byte {int(ev[k])}, past the end of the "
                             f"flatbuffer ({r.end} bytes)", offset=int(slots[k]),
                             path=f"run_data[{int(run_of[k])}].events")
    heads = []
    for k in range(len(runs)):
        allocators: tuple = ()
        if alloc_refs[k] != NONE:
            try:
                allocators = r.once("allocators", int(alloc_refs[k]), lambda q: _allocators(r, q))
            except PteFormatError as exc:
                raise exc.within(f"run_data[{k}].allocators") from None
        heads.append((texts[name[k]] if name[k] >= 0 else None, int(bundled[k]), allocators))
    return ev, run_of, within, heads


def _allocators(r: FlatReader, vec: int) -> tuple:
    out = []
    for k, a in enumerate(r.tables(vec)):
        try:
            avt = r.table(a)
            out.append(r.string(r.ref(a, avt, ALLOCATOR_NAME)))
        except PteFormatError as exc:
            raise exc.within(f"[{k}]") from None
    return tuple(out)


class _Interner:
    """Event names and delegate ids repeat thousands of times: keep each distinct text once."""

    def __init__(self) -> None:
        self._ids: dict[bytes, int] = {}

    def codes(self, g: Gather, refs: np.ndarray, path: str, rows) -> np.ndarray:
        out = np.full(len(refs), -1, np.int64)
        present = refs != NONE
        if not present.any():
            return out
        flat, starts, row = g.ragged(refs[present], "u1", path, lambda k: rows(int(np.flatnonzero(present)[k])))
        n = len(starts) - 1
        lengths = np.diff(starts)
        width = int(lengths.max()) if n else 0
        if n > 256 and width * n <= 8 * len(flat) + (1 << 20):
            # many short strings (one per event): find the distinct ones with one np.unique over a padded
            # table (a length column keeps "a" and "a\0" apart); only those reach Python
            table = np.zeros((n, width + 8), np.uint8)
            col = np.arange(len(flat), dtype=np.int64) - np.repeat(starts[:-1], lengths)
            table[np.repeat(np.arange(n), lengths), col] = flat
            table[:, width:] = lengths.astype("<u8").view(np.uint8).reshape(n, 8)
            keys = table.view(np.dtype((np.void, width + 8))).reshape(n)
            _, pick, inverse = np.unique(keys, return_index=True, return_inverse=True)
            firsts = pick.tolist()
        else:
            firsts, inverse = list(range(n)), np.arange(n)
        raw = flat.tobytes()
        bounds = starts.tolist()
        ids = self._ids
        code = np.asarray([ids.setdefault(raw[bounds[k]:bounds[k + 1]], len(ids)) for k in firsts], np.int64)
        out[present] = code[np.asarray(inverse).reshape(-1)][row]
        return out

    def unset_if_empty(self, codes: np.ndarray) -> np.ndarray:
        """``codes`` with every empty string turned into -1 (absent). The runtime writes ``""`` for a delegate
        debug id it did not set, and executorch's Inspector reads ``""`` as None
        (``devtools/inspector/_inspector.py``, ``ProfileEventSignature._gen_from_event`` and
        ``DebugEventSignature._gen_from_event``): an event with an empty id string is not a delegate's."""
        empty = self._ids.get(b"")
        if empty is None:
            return codes
        return np.where(codes == empty, -1, codes)

    def names(self) -> tuple[str, ...]:
        return tuple(b.decode("utf-8", "replace") for b in self._ids)


def _profile_columns(g: Gather, prof: np.ndarray, run_of: np.ndarray, where, texts: _Interner) -> dict:
    sub = np.flatnonzero(prof != NONE)
    pp = prof[sub]
    rows = where(sub, ".profile_event")
    pf = g.tables(pp, "{}", rows)
    name = texts.codes(g, g.refs(pp, pf, PE_NAME, "{}", where(sub, ".profile_event.name")), "{}",
                       where(sub, ".profile_event.name"))
    did_str = texts.unset_if_empty(texts.codes(
        g, g.refs(pp, pf, PE_DELEGATE_ID_STR, "{}", where(sub, ".profile_event.delegate_debug_id_str")),
        "{}", where(sub, ".profile_event.delegate_debug_id_str")))
    meta_refs = g.refs(pp, pf, PE_DELEGATE_METADATA, "{}", where(sub, ".profile_event.delegate_debug_metadata"))
    metadata: tuple[bytes, ...] = ()
    has_meta = meta_refs != NONE
    if has_meta.any():
        flat, starts, row = g.ragged(meta_refs[has_meta], "u1", "{}",
                                     lambda k: where(sub, ".profile_event.delegate_debug_metadata")(
                                         int(np.flatnonzero(has_meta)[k])))
        raw, bounds = flat.tobytes(), starts.tolist()
        blobs = [raw[bounds[k]:bounds[k + 1]] for k in range(len(bounds) - 1)]
        items = [b""] * len(pp)
        for k, j in zip(np.flatnonzero(has_meta).tolist(), row.tolist()):
            items[k] = blobs[j]
        if any(items):
            metadata = tuple(items)
    return dict(
        run=run_of[sub],
        name=name,
        chain_index=g.field(pp, pf, PE_CHAIN_INDEX, "<i4", 0).astype(np.int64),
        instruction_id=g.field(pp, pf, PE_INSTRUCTION_ID, "<i4", -1).astype(np.int64),
        delegate_id_int=g.field(pp, pf, PE_DELEGATE_ID_INT, "<i4", -1).astype(np.int64),
        delegate_id_str=did_str,
        start=g.field(pp, pf, PE_START_TIME, "<u8", 0),
        end=g.field(pp, pf, PE_END_TIME, "<u8", 0),
        metadata=metadata,
    )


def _allocation_columns(g: Gather, alloc: np.ndarray, run_of: np.ndarray, where) -> AllocationColumns:
    sub = np.flatnonzero(alloc != NONE)
    ap = alloc[sub]
    af = g.tables(ap, "{}", where(sub, ".allocation_event"))
    return AllocationColumns(run_of[sub], g.field(ap, af, AE_ALLOCATOR_ID, "<i4", 0).astype(np.int64),
                             g.field(ap, af, AE_ALLOCATION_SIZE, "<u8", 0))


def _debug_events(r: FlatReader, g: Gather, dbg: np.ndarray, run_of: np.ndarray, where,
                  texts: _Interner) -> dict[int, list]:
    sub = np.flatnonzero(dbg != NONE)
    if not len(sub):
        return {}
    dp = dbg[sub]
    df = g.tables(dp, "{}", where(sub, ".debug_event"))
    chain = g.field(dp, df, DE_CHAIN_INDEX, "<u8", 0)
    instr = g.field(dp, df, DE_INSTRUCTION_ID, "<i4", -1)
    did = g.field(dp, df, DE_DELEGATE_ID_INT, "<i4", -1)
    dstr = texts.unset_if_empty(texts.codes(
        g, g.refs(dp, df, DE_DELEGATE_ID_STR, "{}", where(sub, ".debug_event.delegate_debug_id_str")),
        "{}", where(sub, ".debug_event.delegate_debug_id_str")))
    name = texts.codes(g, g.refs(dp, df, DE_NAME, "{}", where(sub, ".debug_event.name")), "{}",
                       where(sub, ".debug_event.name"))
    entries = g.refs(dp, df, DE_DEBUG_ENTRY, "{}", where(sub, ".debug_event.debug_entry"))
    names = list(texts._ids)  # noqa: SLF001 - the interner's current table, decoded below as needed
    out: dict[int, list] = {}
    for k in range(len(sub)):
        s, n = int(dstr[k]), int(name[k])
        entry = None
        if entries[k] != NONE:
            try:
                entry = r.once("value", int(entries[k]), lambda q: _value(r, q))  # listed again: once
            except PteFormatError as exc:
                raise exc.within(where(sub, ".debug_event.debug_entry")(k)) from None
        out.setdefault(int(run_of[sub[k]]), []).append(DebugEvent(
            int(chain[k]), int(instr[k]), int(did[k]),
            names[s].decode("utf-8", "replace") if s >= 0 else None,
            names[n].decode("utf-8", "replace") if n >= 0 else None, entry))
    return out


def _value(r: FlatReader, pos: int) -> LoggedValue:
    """A debug entry (``Value``): its kind, its tensors' (dtype, sizes, strides, offset), or its scalar.

    Every vector is checked against the flatbuffer and charged to the file's budget (:meth:`FlatReader.charge`),
    so entries aliasing one long ``sizes`` vector cannot make a small file decode gigabytes; a tensor table listed
    again is decoded once (:meth:`FlatReader.once`), so a list of 2.4M entries naming one tensor is not 2.4M objects.
    """
    vt = r.table(pos)
    code = r.field(pos, vt, V_VAL, "B")
    kind = VALUE_KINDS[code] if code < len(VALUE_KINDS) else f"unknown({code})"
    out_ref = r.ref(pos, vt, V_OUTPUT)
    output = False
    if out_ref is not None:
        output = bool(r.field(out_ref, r.table(out_ref), 0, "B"))
    tensors: tuple[LoggedTensor, ...] = ()
    scalar: int | float | bool | None = None
    if kind == "tensor":
        ref = r.ref(pos, vt, V_TENSOR)
        tensors = (r.once("tensor", ref, lambda q: _tensor(r, q)),) if ref is not None else ()
    elif kind == "tensor_list":
        ref = r.ref(pos, vt, V_TENSOR_LIST)
        if ref is not None:
            items = r.tables(r.ref(ref, r.table(ref), 0))
            tensors = tuple(r.once("tensor", t, lambda q: _tensor(r, q)) for t in items)
    elif kind in ("int", "float", "double", "bool"):
        slot, fmt = {"int": (V_INT, "q"), "float": (V_FLOAT, "f"), "double": (V_DOUBLE, "d"),
                     "bool": (V_BOOL, "B")}[kind]
        ref = r.ref(pos, vt, slot)
        if ref is not None:
            scalar = r.field(ref, r.table(ref), 0, fmt)
            if kind == "bool":
                scalar = bool(scalar)
    return LoggedValue(kind, tensors, scalar, output)


def _tensor(r: FlatReader, pos: int) -> LoggedTensor:
    vt = r.table(pos)
    return LoggedTensor(int(r.field(pos, vt, T_SCALAR_TYPE, "b")), tuple(r.scalars(r.ref(pos, vt, T_SIZES), "q")),
                        tuple(r.scalars(r.ref(pos, vt, T_STRIDES), "q")), int(r.field(pos, vt, T_OFFSET, "q")))
