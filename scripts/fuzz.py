"""Fuzz the reader: mutated real exports in, nothing but a Program or a PteFormatError out.

    python scripts/fuzz.py                       # 100000 cases, seed 0
    python scripts/fuzz.py --cases 2000 --seed 7 --timeout-per-case 1.0

Every case runs in this process: ``explorer.load`` on mutated bytes (now and then through a file, to
cover the read-only mapping), then, when it loads, the JSON form and every value and instruction
materialised, then ``explorer.analysis.check`` when it exists. Outcomes are counted by kind:

* ``loaded`` / ``format-error``: the two allowed results of ``load``;
* ``crash[stage] Type @ file:function``: any other exception (stage ``load``; ``json``: the JSON form
  and every object materialised; ``model``: the decoder's columns disagree with its objects, see
  :func:`consistency`; ``analysis``: ``explorer.analysis.check``; ``views``: the HTML report, built for
  every ``--views-every``-th loaded case);
* ``slow[stage]``: a case that took longer than ``--timeout-per-case`` (it is interrupted after
  ``--hard-timeout-factor`` times that, so a hang can't stall the campaign);
* ``memory[stage]``: a case that raised the process's peak RSS by more than ``--memory-step-mb``
  (an address-space limit, ``--memory-limit-mb`` above the start, turns a runaway allocation into a
  MemoryError instead of a stalled machine).

Inputs of every failing kind (up to ``--keep-per-kind`` each) are saved as
``tests/fixtures/crashes/<sha1[:12]>.pte`` with an entry in ``tests/fixtures/crashes/index.json``;
``tests/test_fuzz.py`` loads each of them on every test run. The mutators are importable (the test
suite uses them): :class:`Landmarks` / :func:`walk` find the structure of a valid file (tables,
vtables, vectors, offsets, union tags, scalar fields) and :class:`Mutator` corrupts it.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import resource
import signal
import struct
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CRASHES = FIXTURES / "crashes"

sys.path.append(str(ROOT))  # last: an installed (or PYTHONPATH) explorer wins, so old versions can be fuzzed too

from explorer import PteFormatError  # noqa: E402
from explorer.format.pte import slots as S  # noqa: E402
from explorer.format.pte.container import read_container  # noqa: E402
from explorer.format.flatbuf import FlatReader  # noqa: E402
from explorer.format.reader import load  # noqa: E402

__all__ = ["Landmarks", "walk", "fit_header", "headerless", "Mutator", "run_case", "Outcome", "seed_files", "force", "consistency", "CRAFTED"]


# -- the structure of a file ----------------------------------------------------------------------

# Each table type: slot -> (kind, detail). Kinds: "s" scalar (struct code), "t" table, "vt" vector of
# tables, "vs" vector of scalars (struct code), "str" string, "tag" union type tag, "u" union value
# (detail: the union's tag -> table type).
_KERNEL_TYPES = {1: "Null", 2: "Int", 3: "Bool", 4: "Double", 5: "Tensor", 6: "String", 7: "IntList",
                 8: "DoubleList", 9: "BoolList", 10: "TensorList", 11: "OptionalTensorList"}
_INSTRUCTION_TYPES = {1: "KernelCall", 2: "DelegateCall", 3: "MoveCall", 4: "JumpFalseCall", 5: "FreeCall"}
SCHEMA: dict[str, dict[int, tuple]] = {
    "Program": {0: ("s", "I"), 1: ("vt", "ExecutionPlan"), 2: ("vt", "Buffer"), 3: ("vt", "InlineData"),
                4: ("vt", "DataSegment"), 5: ("t", "SubsegmentOffsets"), 6: ("vt", "SubsegmentOffsets"),
                7: ("vt", "NamedData")},
    "ExecutionPlan": {0: ("str", None), 1: ("t", "ContainerMetadata"), 2: ("vt", "EValue"), 3: ("vs", "i"),
                      4: ("vs", "i"), 5: ("vt", "Chain"), 6: ("vt", "Operator"), 7: ("vt", "BackendDelegate"),
                      8: ("vs", "q"), 9: ("vt", "NonConstBufferDevice")},
    "ContainerMetadata": {0: ("str", None), 1: ("str", None)},
    "EValue": {0: ("tag", None), 1: ("u", _KERNEL_TYPES)},
    "Null": {},
    "Int": {0: ("s", "q")},
    "Bool": {0: ("s", "B")},
    "Double": {0: ("s", "d")},
    "String": {0: ("str", None)},
    "IntList": {0: ("vs", "q")},
    "DoubleList": {0: ("vs", "d")},
    "BoolList": {0: ("vs", "B")},
    "TensorList": {0: ("vs", "i")},
    "OptionalTensorList": {0: ("vs", "i")},
    "Tensor": {0: ("s", "b"), 1: ("s", "i"), 2: ("vs", "i"), 3: ("vs", "B"), 4: ("s", "B"), 5: ("s", "I"),
               6: ("t", "AllocationDetails"), 7: ("s", "b"), 8: ("s", "b"), 9: ("t", "ExtraTensorInfo")},
    "AllocationDetails": {0: ("s", "I"), 1: ("s", "I"), 2: ("s", "I")},
    "ExtraTensorInfo": {0: ("s", "Q"), 1: ("str", None), 2: ("s", "b"), 3: ("s", "b"), 4: ("s", "b")},
    "Chain": {0: ("vs", "i"), 1: ("vs", "i"), 2: ("vt", "Instruction"), 3: ("vt", "FrameList")},
    "Instruction": {0: ("tag", None), 1: ("u", _INSTRUCTION_TYPES)},
    "KernelCall": {0: ("s", "i"), 1: ("vs", "i")},
    "DelegateCall": {0: ("s", "i"), 1: ("vs", "i")},
    "MoveCall": {0: ("s", "i"), 1: ("s", "i")},
    "JumpFalseCall": {0: ("s", "i"), 1: ("s", "i")},
    "FreeCall": {0: ("s", "i")},
    "FrameList": {0: ("vt", "Frame")},
    "Frame": {0: ("str", None), 1: ("s", "i"), 2: ("str", None), 3: ("str", None)},
    "Operator": {0: ("str", None), 1: ("str", None)},
    "BackendDelegate": {0: ("str", None), 1: ("t", "DataReference"), 2: ("vt", "CompileSpec")},
    "DataReference": {0: ("s", "b"), 1: ("s", "I")},
    "CompileSpec": {0: ("str", None), 1: ("vs", "B")},
    "NonConstBufferDevice": {0: ("s", "i"), 1: ("s", "b"), 2: ("s", "b")},
    "Buffer": {0: ("vs", "B")},
    "InlineData": {0: ("vs", "B")},
    "DataSegment": {0: ("s", "Q"), 1: ("s", "Q")},
    "SubsegmentOffsets": {0: ("s", "I"), 1: ("vs", "Q")},
    "NamedData": {0: ("str", None), 1: ("s", "I")},
}
# the fields that index something else (value, operator, delegate, arena, buffer, segment indices)
INDEX_FIELDS = {("Tensor", 5), ("AllocationDetails", 0), ("KernelCall", 0), ("DelegateCall", 0),
                ("MoveCall", 0), ("MoveCall", 1), ("JumpFalseCall", 0), ("JumpFalseCall", 1), ("FreeCall", 0),
                ("NonConstBufferDevice", 0), ("DataReference", 1), ("SubsegmentOffsets", 0), ("NamedData", 1),
                ("ExtraTensorInfo", 0)}


@dataclass
class Landmarks:
    """Where the structure of one file is, found by walking it from the root."""

    size: int = 0
    end: int = 0  # end of the flatbuffer
    root: int | None = None
    header: bool = False
    tables: list = field(default_factory=list)  # (pos, type name)
    vtables: list = field(default_factory=list)  # (pos, vtable size, table size)
    uoffsets: list = field(default_factory=list)  # positions of stored uoffsets (fields and vector slots)
    vectors: list = field(default_factory=list)  # (pos of the length, element size, what)
    table_vectors: list = field(default_factory=list)  # (pos of the length, count, element type)
    scalars: list = field(default_factory=list)  # (pos, struct code, table type, slot)
    tags: list = field(default_factory=list)  # (pos, union kind "EValue" | "Instruction")
    index_elems: list = field(default_factory=list)  # (pos, code) of scalar index fields and i32 vector items

    def boundaries(self) -> list[int]:
        """Every structural boundary: tables, vtables, vectors, offsets (sorted, distinct)."""
        points = {p for p, _ in self.tables} | {p for p, _, _ in self.vtables} | set(self.uoffsets)
        points |= {p for p, _, _ in self.vectors} | {p for p, *_ in self.scalars}
        return sorted(points)


def walk(data: bytes) -> Landmarks:
    """Landmarks of ``data``; a corrupt part is skipped (whatever can be reached is returned)."""
    marks = Landmarks(size=len(data))
    try:
        c = read_container(data, len(data))
    except PteFormatError:
        return marks
    marks.end, marks.root, marks.header = c.flatbuffer_end, c.root, c.header is not None
    r = FlatReader(data, c.flatbuffer_end)
    seen_tables: set = set()
    seen_vt: set = set()
    seen_vec: set = set()
    stack = [(c.root, "Program")]
    budget = 200_000  # a corrupt file may alias itself into a huge tree; the walk stays bounded
    while stack and budget > 0:
        pos, kind = stack.pop()
        budget -= 1
        if (pos, kind) in seen_tables:
            continue
        seen_tables.add((pos, kind))
        try:
            vt = r.table(pos)
        except PteFormatError:
            continue
        marks.tables.append((pos, kind))
        vtpos = pos - struct.unpack_from("<i", data, pos)[0]
        if vtpos not in seen_vt:
            seen_vt.add(vtpos)
            vt_size, table_size = struct.unpack_from("<HH", data, vtpos)
            marks.vtables.append((vtpos, vt_size, table_size))
        spec = SCHEMA.get(kind, {})
        tag_value = 0
        for slot, (fk, detail) in sorted(spec.items()):
            off = vt[slot]
            if not off:
                continue
            at = pos + off
            try:
                if fk == "s":
                    marks.scalars.append((at, detail, kind, slot))
                    if (kind, slot) in INDEX_FIELDS:
                        marks.index_elems.append((at, detail))
                elif fk == "tag":
                    marks.tags.append((at, kind))
                    tag_value = r.scalar(at, "B")
                elif fk in ("t", "u"):
                    marks.uoffsets.append(at)
                    target = r.deref(at)
                    sub = detail if fk == "t" else detail.get(tag_value)
                    if sub:
                        stack.append((target, sub))
                elif fk in ("vt", "vs", "str"):
                    marks.uoffsets.append(at)
                    vec = r.deref(at)
                    if fk == "vt":
                        slots = r.tables(vec)
                        start, count = r.vector(vec, 4)
                        marks.vectors.append((vec, 4, detail))
                        marks.table_vectors.append((vec, count, detail))
                        marks.uoffsets.extend(start + 4 * i for i in range(min(count, 10_000)))
                        stack.extend((p, detail) for p in slots[:10_000])
                    else:
                        code = "B" if fk == "str" else detail
                        size = struct.calcsize("<" + code)
                        start, count = r.vector(vec, size)
                        if vec not in seen_vec:
                            seen_vec.add(vec)
                            marks.vectors.append((vec, size, "string" if fk == "str" else code))
                            if code == "i":
                                marks.index_elems.extend((start + 4 * i, "i") for i in range(min(count, 10_000)))
            except PteFormatError:
                continue
    marks.tables.sort()
    marks.vtables.sort()
    marks.uoffsets = sorted(set(marks.uoffsets))
    return marks


def seed_files() -> list[Path]:
    """The real exports every mutation starts from."""
    return sorted(FIXTURES.glob("*.pte"))


# -- mutations ----------------------------------------------------------------------------------

def fit_header(buf: bytes | bytearray) -> bytearray:
    """``buf`` with its extended header's sizes shrunk to fit its length (when it has one), so a cut or
    spliced file reaches the flatbuffer decoder instead of failing the container check at byte 16."""
    out = bytearray(buf)
    if len(out) < 40 or out[8:12] != b"eh00":
        return out
    program_size, base, data = struct.unpack_from("<QQQ", out, 16)
    program_size = min(program_size, len(out))
    base = min(max(base, program_size), len(out))
    data = min(data, len(out) - base)
    struct.pack_into("<QQQ", out, 16, program_size, base, data)
    return out


_INTERESTING_32 = [0, 1, 2, 3, 4, 7, 8, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
                   0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFC, 0x40000000, 0x3FFFFFFF]
_INTERESTING_8 = [0, 1, 2, 5, 6, 11, 12, 0x7F, 0x80, 0xFE, 0xFF]
_INTERESTING_64 = [0, 1, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 1 << 32, (1 << 32) - 1,
                   1 << 40, 1 << 62]


class Mutator:
    """Random corruptions of a corpus of valid files, each named so a failure can be reproduced."""

    def __init__(self, seeds: list[tuple], rng: random.Random) -> None:
        """``seeds``: (name, bytes) pairs, or (name, bytes, landmarks) when already walked."""
        self.rng = rng
        self.corpus = [seed if len(seed) == 3 else (seed[0], seed[1], walk(seed[1])) for seed in seeds]
        self.extra: list[tuple[str, bytes, Landmarks | None]] = []  # loaded mutants, mutated again later
        self.ops = [
            (self.bitflip, 6), (self.bytes_random, 4), (self.int_at_landmark, 10), (self.soffset, 6),
            (self.vtable_entry, 6), (self.vector_length, 6), (self.redirect, 8), (self.union_tag, 5),
            (self.truncate, 5), (self.splice, 4), (self.header_lie, 4), (self.chunk, 4), (self.alias_all, 5),
            (self.index_value, 6),
        ]
        self.weights = [w for _, w in self.ops]

    def add(self, name: str, data: bytes) -> None:
        """Keep a mutant that loaded, to stack further mutations on it (bounded pool)."""
        if len(self.extra) >= 300:
            self.extra[self.rng.randrange(len(self.extra))] = (name, data, None)
        else:
            self.extra.append((name, data, None))

    def pick(self) -> tuple[str, bytes, Landmarks]:
        rng = self.rng
        if self.extra and rng.random() < 0.25:
            k = rng.randrange(len(self.extra))
            name, data, marks = self.extra[k]
            if marks is None:
                marks = walk(data)
                self.extra[k] = (name, data, marks)
            return name, data, marks
        return rng.choice(self.corpus)

    def mutate(self) -> tuple[str, bytes]:
        """One mutant: 1-3 stacked corruptions of one corpus file."""
        name, data, marks = self.pick()
        steps = []
        buf = bytearray(data)
        for _ in range(self.rng.choice((1, 1, 1, 2, 2, 3))):
            op = self.rng.choices(self.ops, self.weights)[0][0]
            buf, what = op(buf, marks)
            steps.append(what)
        return f"{name}: {' + '.join(steps)}", bytes(buf)

    # each operation: (bytearray, landmarks) -> (new bytearray, description)

    def _pos(self, buf, marks: Landmarks, size: int, aligned: int = 1) -> int:
        end = marks.end or len(buf)
        hi = max(0, min(end, len(buf)) - size)
        p = self.rng.randint(0, hi) if hi else 0
        return p - p % aligned

    def bitflip(self, buf, marks):
        n = self.rng.choice((1, 1, 2, 4, 8))
        where = []
        for _ in range(n):
            if not buf:
                break
            p = self._pos(buf, marks, 1)
            bit = self.rng.randrange(8)
            buf[p] ^= 1 << bit
            where.append(f"{p}.{bit}")
        return buf, f"bitflip({','.join(where)})"

    def bytes_random(self, buf, marks):
        n = self.rng.choice((1, 2, 4, 16))
        for _ in range(n):
            if buf:
                buf[self._pos(buf, marks, 1)] = self.rng.choice(_INTERESTING_8 + [self.rng.randrange(256)])
        return buf, f"bytes({n})"

    def _int32(self, p: int, marks: Landmarks) -> int:
        rng = self.rng
        end = marks.end or marks.size
        choices = _INTERESTING_32 + [end - p, end - p - 4, end - p + 4, (-p) & 0xFFFFFFFF, p,
                                     rng.randrange(1 << 32), rng.randrange(-64, 64) & 0xFFFFFFFF]
        return rng.choice(choices) & 0xFFFFFFFF  # end - p is negative for a landmark past the flatbuffer's end

    def int_at_landmark(self, buf, marks):
        rng = self.rng
        candidates = marks.uoffsets or [0]
        if marks.scalars and rng.random() < 0.5:
            p, code, kind, slot = rng.choice(marks.scalars)
            size = struct.calcsize("<" + code)
            if p + size > len(buf):
                return buf, "scalar(skip)"
            if size == 8:
                v = rng.choice(_INTERESTING_64 + [rng.randrange(1 << 64)])
                struct.pack_into("<Q", buf, p, v)
            elif size == 4:
                struct.pack_into("<I", buf, p, self._int32(p, marks))
            elif size == 2:
                struct.pack_into("<H", buf, p, rng.randrange(1 << 16))
            else:
                buf[p] = rng.choice(_INTERESTING_8 + [rng.randrange(256)])
            return buf, f"scalar({kind}.{slot}@{p})"
        p = rng.choice(candidates) if rng.random() < 0.8 else self._pos(buf, marks, 4, 4)
        if p + 4 > len(buf):
            return buf, "int(skip)"
        v = self._int32(p, marks)
        struct.pack_into("<I", buf, p, v)
        return buf, f"int32({p}={v:#x})"

    def soffset(self, buf, marks):
        """A table's vtable soffset pointed outside, at the table itself, at odd/other spots."""
        rng = self.rng
        if not marks.tables:
            return self.bitflip(buf, marks)
        pos, kind = rng.choice(marks.tables)
        end = marks.end or len(buf)
        other = rng.choice(marks.vtables)[0] if marks.vtables else 0
        choice = rng.choice([0, pos, pos + 1, pos - end, pos - end - 4, -(1 << 31), (1 << 31) - 1, pos - other,
                             pos - other + 2, pos - other - 2, -4, 4, 2, -2, pos - (end - 2), pos - (end - 4),
                             rng.randrange(-(1 << 31), 1 << 31)])
        choice = ((choice + (1 << 31)) % (1 << 32)) - (1 << 31)
        if pos + 4 <= len(buf):
            struct.pack_into("<i", buf, pos, choice)
        return buf, f"soffset({kind}@{pos}={choice})"

    def vtable_entry(self, buf, marks):
        """A vtable's size, its table's size or one of its field offsets set to a lie."""
        rng = self.rng
        if not marks.vtables:
            return self.bitflip(buf, marks)
        vt, vt_size, table_size = rng.choice(marks.vtables)
        which = rng.randrange(max(1, vt_size // 2))
        v = rng.choice([0, 1, 2, 3, 4, 5, table_size - 1, table_size, table_size + 1, table_size - 2,
                        table_size - 4, vt_size + 2, 0x7FFF, 0xFFFF, 0xFFFE, rng.randrange(1 << 16)]) & 0xFFFF
        if vt + 2 * which + 2 <= len(buf):
            struct.pack_into("<H", buf, vt + 2 * which, v)
        return buf, f"vtable({vt}[{which}]={v})"

    def vector_length(self, buf, marks):
        rng = self.rng
        if not marks.vectors:
            return self.bitflip(buf, marks)
        pos, elem, what = rng.choice(marks.vectors)
        end = marks.end or len(buf)
        left = max(0, end - pos - 4)
        v = rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x40000000, left // elem, left // elem + 1,
                        left // elem - 1, (left + 1) // elem, 1 << 20, rng.randrange(1 << 16)]) & 0xFFFFFFFF
        if pos + 4 <= len(buf):
            struct.pack_into("<I", buf, pos, v)
        return buf, f"veclen({what}@{pos}={v})"

    def redirect(self, buf, marks):
        """A stored uoffset pointed at another structure (type confusion), itself, or past the end."""
        rng = self.rng
        if not marks.uoffsets:
            return self.bitflip(buf, marks)
        at = rng.choice(marks.uoffsets)
        end = marks.end or len(buf)
        targets = [p for p, _ in marks.tables] + [p for p, _, _ in marks.vectors] + [p for p, _, _ in marks.vtables]
        target = rng.choice(targets + [at, end - 4, end - 1, end, end + 4, at + 4]) if targets else at
        v = (target - at) & 0xFFFFFFFF
        if at + 4 <= len(buf):
            struct.pack_into("<I", buf, at, v)
        return buf, f"redirect({at}->{target})"

    def union_tag(self, buf, marks):
        rng = self.rng
        if not marks.tags:
            return self.bitflip(buf, marks)
        p, kind = rng.choice(marks.tags)
        v = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 6, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        if p < len(buf):
            buf[p] = v
        return buf, f"tag({kind}@{p}={v})"

    def truncate(self, buf, marks):
        rng = self.rng
        points = marks.boundaries()
        if points and rng.random() < 0.7:
            cut = rng.choice(points) + rng.choice((0, 0, 1, 2, 4, -1))
        else:
            cut = rng.randrange(len(buf) + 1)
        cut = max(0, min(cut, len(buf)))
        if rng.random() < 0.7:  # else the header's sizes reject it before the flatbuffer is even looked at
            return fit_header(buf[:cut]), f"truncate({cut},fit)"
        return buf[:cut], f"truncate({cut})"

    def splice(self, buf, marks):
        rng = self.rng
        _, other, _ = rng.choice(self.corpus)
        fit = rng.random() < 0.7
        if rng.random() < 0.5:
            k = rng.randrange(min(len(buf), len(other)) + 1)
            out = bytearray(buf[:k] + other[k:])
            return (fit_header(out) if fit else out), f"splice({k}{',fit' if fit else ''})"
        a, b = rng.randrange(len(buf) + 1), rng.randrange(len(other) + 1)
        out = bytearray(buf[:a] + other[b:])
        return (fit_header(out) if fit else out), f"splice({a},{b}{',fit' if fit else ''})"

    def header_lie(self, buf, marks):
        """An extended header that lies about sizes (or one inserted where there was none)."""
        rng = self.rng
        if len(buf) < 40:
            return buf, "header(skip)"
        if not marks.header and rng.random() < 0.3:
            head = b"eh00" + struct.pack("<IQQQ", 32, rng.choice([len(buf), 40, 0, len(buf) + 32]),
                                         rng.choice([len(buf), 0, 1 << 63]), rng.choice([0, 1 << 40]))
            buf[8:40] = head
            return buf, "header(insert)"
        field_at, fmt = rng.choice([(12, "<I"), (16, "<Q"), (24, "<Q"), (32, "<Q")])
        size = len(buf)
        v = rng.choice([0, 8, 24, 25, 31, 32, 33, 40, size, size - 1, size + 1, size // 2, 1 << 31, 1 << 32,
                        (1 << 63) - 1, (1 << 64) - 1, rng.randrange(size + 1)])
        v &= 0xFFFFFFFF if fmt == "<I" else 0xFFFFFFFFFFFFFFFF
        struct.pack_into(fmt, buf, field_at, v)
        return buf, f"header({field_at}={v})"

    def chunk(self, buf, marks):
        """Copy, insert or delete a chunk (shifts everything after it)."""
        rng = self.rng
        if len(buf) < 8:
            return buf, "chunk(skip)"
        a = rng.randrange(len(buf))
        n = rng.choice((1, 2, 4, 8, 16, 64))
        op = rng.randrange(3)
        if op == 0:
            b = rng.randrange(len(buf))
            piece = buf[a:a + n]
            buf[b:b + len(piece)] = piece
            return buf, f"copy({a},{n}->{b})"
        if op == 1:
            return fit_header(buf[:a] + bytes(rng.randrange(256) for _ in range(n)) + buf[a:]), f"insert({a},{n})"
        return fit_header(buf[:a] + buf[a + n:]), f"delete({a},{n})"

    def alias_all(self, buf, marks):
        """Every element of a vector of tables pointed at one table (the aliasing blow-up attack)."""
        rng = self.rng
        vecs = [v for v in marks.table_vectors if v[1] > 0]
        if not vecs:
            return self.bitflip(buf, marks)
        vec, count, kind = rng.choice(vecs)
        first = vec + 4
        if first + 4 > len(buf):
            return buf, "alias(skip)"
        target = first + struct.unpack_from("<I", buf, first)[0]
        for i in range(count):
            slot = first + 4 * i
            if slot + 4 > len(buf) or target < slot:
                break
            struct.pack_into("<I", buf, slot, target - slot)
        return buf, f"alias({kind}@{vec}x{count})"

    def index_value(self, buf, marks):
        """A value/operator/delegate/arena/segment index set to a negative or giant number."""
        rng = self.rng
        if not marks.index_elems:
            return self.bitflip(buf, marks)
        p, code = rng.choice(marks.index_elems)
        size = struct.calcsize("<" + code)
        if p + size > len(buf):
            return buf, "index(skip)"
        if size == 8:
            v = rng.choice(_INTERESTING_64)
            struct.pack_into("<Q", buf, p, v)
        else:
            v = rng.choice([0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFE, 1000, 65536, 0, 1, 2, 3])
            struct.pack_into("<I", buf, p, v)
        return buf, f"index({p}={v:#x})"


# -- crafted attacks: small files that alias themselves into huge trees --------------------------

def _builder():
    import flatbuffers

    return flatbuffers.Builder(1024)


def _offsets(b, offs) -> int:
    b.StartVector(4, len(offs), 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _ints(b, xs, dtype="<i4") -> int:
    import numpy as np

    return b.CreateNumpyVector(np.asarray(xs, dtype=dtype))


def _finish(b, plans: list[int]) -> bytes:
    from explorer._generated.executorch_flatbuffer import Program as P

    pv = _offsets(b, plans)
    P.ProgramStart(b)
    P.ProgramAddExecutionPlan(b, pv)
    b.Finish(P.ProgramEnd(b), file_identifier=b"ET12")
    return bytes(b.Output())


def _plan(b, *, values=None, chains=None, operators=None, delegates=None, name="forward") -> int:
    from explorer._generated.executorch_flatbuffer import ExecutionPlan as EP

    nm = b.CreateString(name)
    vv = _offsets(b, values) if values is not None else None
    cv = _offsets(b, chains) if chains is not None else None
    ov = _offsets(b, operators) if operators is not None else None
    dv = _offsets(b, delegates) if delegates is not None else None
    EP.ExecutionPlanStart(b)
    EP.ExecutionPlanAddName(b, nm)
    for add, v in ((EP.ExecutionPlanAddValues, vv), (EP.ExecutionPlanAddChains, cv),
                   (EP.ExecutionPlanAddOperators, ov), (EP.ExecutionPlanAddDelegates, dv)):
        if v is not None:
            add(b, v)
    return EP.ExecutionPlanEnd(b)


def _tensor_value(b, sizes_vec: int, scalar_type: int = 6) -> int:
    from explorer._generated.executorch_flatbuffer import EValue as EV, Tensor as T

    T.TensorStart(b)
    T.TensorAddScalarType(b, scalar_type)
    T.TensorAddSizes(b, sizes_vec)
    t = T.TensorEnd(b)
    EV.EValueStart(b)
    EV.EValueAddValType(b, 5)
    EV.EValueAddVal(b, t)
    return EV.EValueEnd(b)


def _kernel(b, op_index: int, args_vec: int) -> int:
    from explorer._generated.executorch_flatbuffer import Instruction as I, KernelCall as K

    K.KernelCallStart(b)
    K.KernelCallAddOpIndex(b, op_index)
    K.KernelCallAddArgs(b, args_vec)
    k = K.KernelCallEnd(b)
    I.InstructionStart(b)
    I.InstructionAddInstrArgsType(b, 1)
    I.InstructionAddInstrArgs(b, k)
    return I.InstructionEnd(b)


def craft_shared_sizes(tensors: int = 3000, dims: int = 3000) -> bytes:
    """``tensors`` distinct Tensor tables whose ``sizes`` all point at one ``dims``-long vector."""
    b = _builder()
    sizes = _ints(b, [1] * dims)
    values = [_tensor_value(b, sizes) for _ in range(tensors)]
    return _finish(b, [_plan(b, values=values)])


def craft_shared_args(instructions: int = 3000, args: int = 3000) -> bytes:
    """``instructions`` KernelCalls whose ``args`` all point at one ``args``-long vector."""
    from explorer._generated.executorch_flatbuffer import Chain as C

    b = _builder()
    sizes = _ints(b, [2, 2])
    values = [_tensor_value(b, sizes) for _ in range(4)]
    shared = _ints(b, [i % 4 for i in range(args)])
    ins = [_kernel(b, 0, shared) for _ in range(instructions)]
    iv = _offsets(b, ins)
    C.ChainStart(b)
    C.ChainAddInstructions(b, iv)
    chain = C.ChainEnd(b)
    return _finish(b, [_plan(b, values=values, chains=[chain])])


def craft_aliased_plans(plans: int = 3000, values: int = 1000) -> bytes:
    """One plan of ``values`` tensors listed ``plans`` times in ``execution_plan``."""
    b = _builder()
    sizes = _ints(b, [2, 3])
    vals = [_tensor_value(b, sizes) for _ in range(values)]
    plan = _plan(b, values=vals)
    return _finish(b, [plan] * plans)


def craft_aliased_chains(chains: int = 3000, instructions: int = 3000) -> bytes:
    """``chains`` entries that are all one chain of ``instructions`` kernel calls."""
    from explorer._generated.executorch_flatbuffer import Chain as C

    b = _builder()
    sizes = _ints(b, [2])
    values = [_tensor_value(b, sizes) for _ in range(2)]
    args = _ints(b, [0, 1])
    ins = [_kernel(b, 0, args) for _ in range(instructions)]
    iv = _offsets(b, ins)
    C.ChainStart(b)
    C.ChainAddInstructions(b, iv)
    chain = C.ChainEnd(b)
    return _finish(b, [_plan(b, values=values, chains=[chain] * chains)])


def craft_aliased_frames(framelists: int = 3000, frames: int = 3000) -> bytes:
    """A chain whose ``framelists`` stack traces all share one ``frames``-long item vector."""
    from explorer._generated.executorch_flatbuffer import Chain as C, Frame as F, FrameList as FL

    b = _builder()
    fname = b.CreateString("model.py" * 8)
    fs = []
    for i in range(frames):
        F.FrameStart(b)
        F.FrameAddFilename(b, fname)
        F.FrameAddLineno(b, i)
        fs.append(F.FrameEnd(b))
    items = _offsets(b, fs)
    FL.FrameListStart(b)
    FL.FrameListAddItems(b, items)
    fl = FL.FrameListEnd(b)
    st = _offsets(b, [fl] * framelists)
    C.ChainStart(b)
    C.ChainAddStacktrace(b, st)
    chain = C.ChainEnd(b)
    return _finish(b, [_plan(b, chains=[chain])])


def craft_aliased_specs(delegates: int = 2000, specs: int = 2000, value_len: int = 256) -> bytes:
    """``delegates`` entries of one delegate whose ``specs`` compile specs share one long value."""
    from explorer._generated.executorch_flatbuffer import BackendDelegate as D, CompileSpec as CS

    b = _builder()
    value = b.CreateByteVector(b"v" * value_len)
    key = b.CreateString("target_device")
    cs = []
    for _ in range(specs):
        CS.CompileSpecStart(b)
        CS.CompileSpecAddKey(b, key)
        CS.CompileSpecAddValue(b, value)
        cs.append(CS.CompileSpecEnd(b))
    sv = _offsets(b, cs)
    ident = b.CreateString("Backend")
    D.BackendDelegateStart(b)
    D.BackendDelegateAddId(b, ident)
    D.BackendDelegateAddCompileSpecs(b, sv)
    d = D.BackendDelegateEnd(b)
    return _finish(b, [_plan(b, delegates=[d] * delegates)])


def craft_aliased_names(operators: int = 3000, name_len: int = 20000) -> bytes:
    """``operators`` entries of one operator whose name is ``name_len`` bytes long."""
    from explorer._generated.executorch_flatbuffer import Operator as O

    b = _builder()
    name = b.CreateString("a" * name_len)
    O.OperatorStart(b)
    O.OperatorAddName(b, name)
    op = O.OperatorEnd(b)
    return _finish(b, [_plan(b, operators=[op] * operators)])


def craft_overlapping_vtables(values: int = 12000, pad: int = 64) -> bytes:
    """``values`` EValue tables, each with its own vtable, all overlapping and each claiming to span
    to the end of the file (before the fix, validating every claimed slot cost values^2 steps)."""
    from writers.pte import write
    from explorer.model.program import Plan, Program, Value

    n = values
    plan = Plan("forward", tuple(Value(i, "Null") for i in range(n)), (), (), (), (), (), (), ())
    buf = bytearray(write(Program(version=0, plans=(plan,))))
    tables = sorted(p for p, kind in walk(bytes(buf)).tables if kind == "EValue")[:n]
    base = len(buf) + (-len(buf)) % 4
    buf += bytes(base - len(buf))
    end = base + 4 * n + pad
    region = bytearray(4 * n + pad)
    for j in range(n):
        x = 4 * (n - j) + pad  # vt_size: this vtable runs to the end of the file
        y = x + 2  # table size: larger than every later vtable's fields, which are this one's slots
        struct.pack_into("<HH", region, 4 * j, min(x, 0xFFFE), min(y, 0xFFFF))
    buf += region
    for j, t in enumerate(tables):
        struct.pack_into("<i", buf, t, t - (base + 4 * j))
    assert len(buf) == end
    return bytes(buf)


CRAFTED = {
    "shared_sizes": craft_shared_sizes, "shared_args": craft_shared_args, "aliased_plans": craft_aliased_plans,
    "aliased_chains": craft_aliased_chains, "aliased_frames": craft_aliased_frames,
    "aliased_specs": craft_aliased_specs, "aliased_names": craft_aliased_names,
    "overlapping_vtables": craft_overlapping_vtables,
}


# -- running one case ---------------------------------------------------------------------------


class _Timeout(BaseException):
    """Raised by the alarm inside a case that ran far past its budget (not an Exception: never caught)."""


def _alarm(signum, frame):
    raise _Timeout()


def force(program) -> int:
    """Everything ``inspect --json`` and a Python user reach: the JSON form (which includes the plans'
    runtime requirements, from the analysis), every value and instruction, every segment's bytes."""
    from explorer.jsonform.program import program_json

    if getattr(program, "kind", "program") == "data":  # a .ptd: its JSON form and every entry's fields
        from explorer.jsonform.companions import data_file_json

        return len(json.dumps(data_file_json(program))) + sum(
            hash((e.key, e.dtype, e.tensor_nbytes, e.offset)) & 1 for e in program.entries)
    text = json.dumps(program_json(program))
    n = len(text)
    for plan in program.plans:
        for v in plan.values:
            n += hash((v.index, v.type)) & 1
            if getattr(v, "type", None) == "Tensor":
                _ = (v.dtype, v.numel, v.nbytes, str(v.device), v.label, v.planned, v.device.kind)
        for ins in plan.instructions:
            _ = (ins.values, ins.label, ins.stacktrace)
        _ = (plan.tensors, plan.buffers, [plan.buffer(b.memory_id) for b in plan.buffers], plan.inputs,
             plan.outputs, plan.chains, [d.target_device for d in plan.delegates])
        for k in (-1, 0, len(plan.values), 1 << 40):
            plan.value(k)
    _ = (program.plan_names, list(program.iter_tensors()))
    for i in range(len(program.segments)):
        try:
            program.segment_data(i)
        except PteFormatError:
            pass
    return n


_KIND_CODES = {"None": 0, "Null": 1, "Int": 2, "Bool": 3, "Double": 4, "Tensor": 5, "String": 6, "IntList": 7,
               "DoubleList": 8, "BoolList": 9, "TensorList": 10, "OptionalTensorList": 11}


def consistency(program) -> None:
    """The decoder's columns (what the analysis reads) say what the objects (what users read) say.

    Two different code paths compute them (numpy gathers vs. per-object slicing), so agreement on a
    mutated file is a strong oracle. Raises AssertionError naming the first disagreement.
    """
    from explorer.model.columns import INSTRUCTION_CODES, OFFSET_SATURATED, STORAGE_CODES

    for plan in getattr(program, "plans", ()):  # (a .ptd data file has none)
        if plan._columns is None:
            continue
        vc, ic = plan._columns
        n = len(plan.values)
        for name in ("kind", "scalar_type", "device_type", "device_index", "memory_id", "offset", "nbytes",
                     "storage", "data_buffer_idx"):
            got = len(getattr(vc, name))
            assert got == n, f"{plan.name}: ValueColumns.{name} has {got} rows for {n} values"
        for i, v in enumerate(plan.values):
            assert v.index == i, (plan.name, i, v.index)
            assert int(vc.kind[i]) == _KIND_CODES.get(v.type, 0), (plan.name, i, v.type, int(vc.kind[i]))
            if v.type != "Tensor":
                continue
            row = (int(vc.scalar_type[i]), int(vc.device_type[i]), int(vc.device_index[i]), int(vc.memory_id[i]),
                   int(vc.offset[i]) if v.memory_id is not None else None, int(vc.nbytes[i]), int(vc.storage[i]),
                   int(vc.data_buffer_idx[i]))
            offset = None if v.offset is None else min(v.offset, OFFSET_SATURATED)
            want = (v.scalar_type, v.device.type, v.device.index, -1 if v.memory_id is None else v.memory_id,
                    offset, -1 if v.nbytes is None else v.nbytes, STORAGE_CODES[v.storage], v.data_buffer_idx)
            assert row == want, f"{plan.name}: value {i}: columns {row} != object {want}"
        m = len(plan.instructions)
        assert len(ic.kind) == m and len(ic.target) == m and len(ic.starts) == m + 1, (plan.name, m)
        for k, ins in enumerate(plan.instructions):
            assert ins.index == k, (plan.name, k, ins.index)
            assert int(ic.kind[k]) == INSTRUCTION_CODES.get(str(ins.kind), 0), (plan.name, k, ins.kind)
            got = tuple(ic.args[ic.starts[k]:ic.starts[k + 1]].tolist())
            assert got == tuple(ins.values), f"{plan.name}: instruction {k}: columns {got} != object {ins.values}"


@dataclass
class Outcome:
    kind: str  # "loaded", "format-error", or a failure kind (see the module doc)
    stage: str  # where it happened: load, json, analysis
    seconds: float  # whole case
    load_seconds: float
    detail: str = ""  # exception text / traceback for failures
    rss_step_mb: float = 0.0

    @property
    def failure(self) -> bool:
        return self.kind not in ("loaded", "format-error")


def signature(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{os.path.basename(frames[-1].filename)}:{frames[-1].name}" if frames else "?"
    for fr in reversed(frames):
        if "/explorer/" in fr.filename.replace(os.sep, "/"):
            rel = fr.filename.replace(os.sep, "/").split("/explorer/", 1)[1]
            where = f"explorer/{rel}:{fr.name}"
            break
    return f"{type(exc).__name__} @ {where}"


def _check_fn():
    try:
        from explorer.analysis.pipeline import check
    except Exception:  # noqa: BLE001 - being written by someone else; absent is fine
        return None
    return lambda program: [] if getattr(program, "kind", "program") == "data" else check(program)


def _views_fn():
    """The HTML report of a program (what ``device-explorer show`` writes), or None if not built yet."""
    try:
        from explorer.views.html.report import report_html
    except Exception:  # noqa: BLE001 - someone else's layer, maybe not importable in this checkout
        return None
    check = _check_fn()
    return lambda program: None if getattr(program, "kind", "program") == "data" else report_html(
        program, findings=list(check(program)) if check else None)


def run_case(data: bytes, *, path: str | None = None, analysis=None, views=None, slow: float = 1.0,
             hard: float | None = None, memory_step_mb: float = 200.0) -> Outcome:
    """Load (from ``path`` when given, else the bytes), force the model, run ``analysis`` and ``views``
    (each a function of the program, or None); classify what happened."""
    stage = "load"
    t0 = time.perf_counter()
    load_s = 0.0
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if hard:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, hard)
    try:
        try:
            program = load(path if path is not None else data)
        except PteFormatError:
            kind = "format-error"
            program = None
        load_s = time.perf_counter() - t0
        if program is not None:
            kind = "loaded"
            stage = "model"  # the reader's own oracle first, so a crash downstream can't hide it
            consistency(program)
            stage = "json"
            force(program)
            if analysis is not None:
                stage = "analysis"
                analysis(program)
            if views is not None:
                stage = "views"
                views(program)
        detail = ""
    except _Timeout:
        kind, detail = f"slow[{stage}] interrupted", f"interrupted after {hard} s"
    except Exception as exc:  # noqa: BLE001 - anything else is what we are looking for
        kind = f"crash[{stage}] {signature(exc)}"
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]
    finally:
        if hard:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    seconds = time.perf_counter() - t0
    if not load_s:
        load_s = seconds
    step = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
    if kind in ("loaded", "format-error"):
        if seconds > slow:
            kind, detail = f"slow[{stage if load_s <= slow else 'load'}]", f"{seconds:.2f} s (load {load_s:.2f} s)"
        elif step > memory_step_mb:
            kind, detail = f"memory[{stage}]", f"peak RSS rose by {step:.0f} MB"
    return Outcome(kind, stage, seconds, load_s, detail, step)


# -- the campaign ---------------------------------------------------------------------------------

# who fixes a crash, by the module its innermost explorer frame is in (the reader: this campaign's owner)
_OWNERS = (("explorer/analysis/", "analysis"), ("explorer/views/", "views"), ("explorer/jsonform/program.py", "json_form"),
           ("explorer/cli/", "cli"), ("explorer/widget/explorer.py", "widget"))


def owner_of(kind: str) -> str:
    """``reader`` for explorer/format, errors, columns, model (and the consistency oracle); else whose layer."""
    where = kind.split(" @ ", 1)[-1]
    return next((owner for prefix, owner in _OWNERS if where.startswith(prefix)), "reader")


def _load_index(out: Path) -> dict:
    try:
        return json.loads((out / "index.json").read_text())
    except (OSError, ValueError):
        return {}


def save_failure(data: bytes, outcome: Outcome, what: str, index: dict, out: Path = CRASHES) -> str:
    """Keep ``data`` as ``<out>/<sha1[:12]>.pte`` with an entry in ``<out>/index.json``.

    A crash inside someone else's layer (analysis, views, JSON form, CLI: see :func:`owner_of`) is marked
    ``open``: tests/test_fuzz.py replays it as ``xfail(strict=True)`` until that layer is fixed and the
    mark removed. Reader failures get no mark: they must be fixed before the input is committed.
    """
    digest = hashlib.sha1(data).hexdigest()[:12]
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{digest}.pte").write_bytes(data)
    entry = {"kind": outcome.kind, "stage": outcome.stage, "mutation": what,
             "detail": outcome.detail.strip().splitlines()[-1][:300] if outcome.detail else "",
             "seconds": round(outcome.seconds, 3)}
    owner = owner_of(outcome.kind) if outcome.kind.startswith("crash") else "reader"
    if owner != "reader":
        entry["open"] = f"{owner} bug: {outcome.kind}"
    index[digest] = entry
    (out / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    return digest


def headerless(data: bytes) -> bytes:
    """The same program rewritten by our writer without an extended header (segments left out)."""
    from writers.pte import write

    return write(load(data), extended_header=False)


def _seed_corpus(synthetic: bool) -> list[tuple[str, bytes]]:
    seeds = [(p.name, p.read_bytes()) for p in seed_files()]
    seeds += [(f"headerless:{name}", headerless(data)) for name, data in seeds
              if name in ("device_mlp.pte", "stacktrace.pte", "mutable_state.pte", "two_methods.pte")]
    # companions: .ptd data files, a .bpte bundle, programs with XNNPACK payloads (decoded by the JSON form)
    seeds += [(f"companions/{p.name}", p.read_bytes()) for p in sorted((FIXTURES / "companions").glob("*"))
              if p.suffix in (".pte", ".ptd", ".bpte")]
    # Ethos-U, VGF, Core ML and QNN payloads (scripts/make_payload_fixtures.py): their header readers
    seeds += [(f"payloads/{p.name}", p.read_bytes()) for p in sorted((FIXTURES / "payloads").glob("*.pte"))]
    if synthetic:  # a bigger, many-valued program from the writer, so scale-sensitive paths get hit too
        from writers.synth import synthetic_program
        from writers.pte import write

        seeds.append(("synthetic", write(synthetic_program(300, plans=2))))
    return seeds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000, help="number of mutated inputs to run")
    ap.add_argument("--seed", type=int, default=0, help="random seed (the same seed replays the same cases)")
    ap.add_argument("--timeout-per-case", type=float, default=1.0,
                    help="a case slower than this (seconds) is a failure ('slow')")
    ap.add_argument("--hard-timeout-factor", type=float, default=10.0,
                    help="interrupt a case after this many times --timeout-per-case")
    ap.add_argument("--memory-step-mb", type=float, default=200.0,
                    help="a case raising peak RSS by more than this is a failure ('memory')")
    ap.add_argument("--memory-limit-mb", type=float, default=3072.0,
                    help="address-space limit above the start, so a runaway allocation fails fast")
    ap.add_argument("--keep-per-kind", type=int, default=3, help="inputs saved per distinct failure kind")
    ap.add_argument("--path-every", type=int, default=20, help="load every Nth case through a file (mmap)")
    ap.add_argument("--no-analysis", action="store_true", help="don't run explorer.analysis.check")
    ap.add_argument("--views-every", type=int, default=0,
                    help="also build the HTML report (explorer.views.html.report) for every Nth loaded case (0: never)")
    ap.add_argument("--no-save", action="store_true", help="don't save failing inputs")
    ap.add_argument("--out", type=Path, default=CRASHES, help="where failing inputs go (default tests/fixtures/crashes)")
    ap.add_argument("--report-every", type=float, default=60.0, help="progress line every N seconds")
    args = ap.parse_args(argv)

    rng = random.Random(args.seed)
    mut = Mutator(_seed_corpus(True), rng)
    check = None if args.no_analysis else _check_fn()
    if check is not None:  # the analysis is someone else's work in progress: only fuzz it once it works
        for name, data, _ in mut.corpus:
            try:
                check(load(data))
            except Exception as exc:  # noqa: BLE001
                print(f"analysis off: it fails on the unmodified {name}: {signature(exc)}: {exc}", flush=True)
                check = None
                break
    if args.memory_limit_mb:
        with open("/proc/self/statm") as fh:
            vm = int(fh.read().split()[0]) * resource.getpagesize()
        limit = vm + int(args.memory_limit_mb * 2**20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    views = _views_fn() if args.views_every else None
    if views is not None:
        try:
            views(load(mut.corpus[0][1]))
        except Exception as exc:  # noqa: BLE001
            print(f"views off: the report fails on the unmodified {mut.corpus[0][0]}: {signature(exc)}", flush=True)
            views = None
    loaded_count = 0
    index = _load_index(args.out)
    kept: Counter = Counter(v["kind"] for v in index.values())
    counts: Counter = Counter()
    examples: dict[str, tuple[str, str, str]] = {}
    slowest = (0.0, "")
    slowest_load = (0.0, "", b"")
    load_times: list[float] = []
    tmpdir = tempfile.mkdtemp(prefix="fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    tmp = os.path.join(tmpdir, "case.pte")
    hard = args.timeout_per_case * args.hard_timeout_factor
    t_start = last_report = time.perf_counter()
    print(f"fuzz: {args.cases} cases, seed {args.seed}, {len(mut.corpus)} seed files, "
          f"analysis {'on' if check else 'off'}, views {f'every {args.views_every}' if views else 'off'}", flush=True)
    try:
        for case in range(args.cases):
            what, data = mut.mutate()
            path = None
            if args.path_every and case % args.path_every == 0:
                with open(tmp, "wb") as fh:
                    fh.write(data)
                path = tmp
            report = views if views is not None and loaded_count % args.views_every == 0 else None
            out = run_case(data, path=path, analysis=check, views=report, slow=args.timeout_per_case, hard=hard,
                           memory_step_mb=args.memory_step_mb)
            loaded_count += out.kind == "loaded" or out.stage in ("analysis", "views")
            counts[out.kind] += 1
            load_times.append(out.load_seconds)
            if out.load_seconds > slowest_load[0]:
                slowest_load = (out.load_seconds, what, data)
            if out.seconds > slowest[0]:
                slowest = (out.seconds, what)
            if out.kind == "loaded" and rng.random() < 0.05:
                mut.add(what, data)
            if out.failure:
                if out.kind not in examples:
                    examples[out.kind] = (what, out.detail, hashlib.sha1(data).hexdigest()[:12])
                    print(f"\nNEW {out.kind}\n  input: {what}\n  {out.detail.strip()[-1500:]}", flush=True)
                if not args.no_save and kept[out.kind] < args.keep_per_kind:
                    kept[out.kind] += 1
                    save_failure(data, out, what, index, args.out)
            now = time.perf_counter()
            if now - last_report > args.report_every:
                last_report = now
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                print(f"[{now - t_start:7.0f} s] {case + 1} cases, {(case + 1) / (now - t_start):.0f}/s, "
                      f"failures {sum(v for k, v in counts.items() if k not in ('loaded', 'format-error'))}, "
                      f"peak RSS {rss:.0f} MB", flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted", flush=True)
    finally:
        try:
            os.unlink(tmp)
            os.rmdir(tmpdir)
        except OSError:
            pass
    elapsed = time.perf_counter() - t_start
    total = sum(counts.values())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n== fuzz summary: {total} cases in {elapsed:.1f} s ({total / max(elapsed, 1e-9):.0f} cases/s), "
          f"seed {args.seed}")
    times = sorted(load_times) or [0.0]
    pct = {q: times[min(len(times) - 1, int(q / 100 * len(times)))] * 1000 for q in (50, 99, 99.9)}
    print(f"   load time: median {pct[50]:.1f} ms, p99 {pct[99]:.1f} ms, p99.9 {pct[99.9]:.1f} ms, "
          f"max {slowest_load[0] * 1000:.0f} ms ({slowest_load[1]}; sha1 "
          f"{hashlib.sha1(slowest_load[2]).hexdigest()[:12]}, {len(slowest_load[2])} bytes)")
    print(f"   slowest whole case {slowest[0] * 1000:.0f} ms ({slowest[1]}); peak RSS {rss:.0f} MB")
    for kind, n in counts.most_common():
        print(f"   {n:8d}  {kind}")
    failures = [k for k in counts if k not in ("loaded", "format-error")]
    print(f"   distinct failure kinds: {len(failures)}")
    for kind in failures:
        what, detail, digest = examples[kind]
        print(f"   - {kind}\n       e.g. {digest}: {what}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
