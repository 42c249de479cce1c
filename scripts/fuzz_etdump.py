"""Fuzz the ETDump reader and the join: mutated dumps in, nothing but a dump or a PteFormatError out.

    python scripts/fuzz_etdump.py                    # 200000 cases, seed 0
    python scripts/fuzz_etdump.py --cases 5000 --seed 3

Seeds are the dumps in ``tests/fixtures/etdump/`` (real runs and synthetic device runs). Each case
corrupts one of them at its structural landmarks — found by walking it (:func:`walk`): tables, vtables,
vectors, offset fields, scalar fields — or at random (bit flips, truncation, splices, aliasing every
events vector onto one), then:

* ``load_etdump`` must return an ETDump or raise PteFormatError, in well under a second of CPU time (a
  case over ``--timeout-per-case`` is run twice more and counts as ``slow`` only if it is slow every time);
* a loaded dump must agree with what flatc's generated accessors read from the same bytes, whenever
  those (which check nothing) manage to read it at all (:func:`consistency`);
* every event is materialised and the dump is joined to its program (and to another one): the join
  returns a Profile or raises ProfileMismatch, nothing else.

Failures are counted by kind and the first inputs of each kind saved under ``--save-dir``
(default ``tests/fixtures/crashes/etdump/``); ``tests/test_fuzz_etdump.py`` replays them and runs a
bounded sample of the same mutators on every test run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import struct
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
DUMPS = FIXTURES / "etdump"
SAVE = FIXTURES / "crashes" / "etdump"
sys.path.append(str(ROOT))  # last: an installed explorer wins, so other versions can be fuzzed too

from explorer import PteFormatError, load  # noqa: E402
from explorer.analysis.profile.join import ProfileMismatch, join_profile  # noqa: E402
from explorer.format.companions import etdump as E  # noqa: E402
from explorer.format.companions.etdump import load_etdump  # noqa: E402

__all__ = ["Landmarks", "walk", "Mutator", "run_case", "seed_files", "consistency", "PROGRAMS"]

# which program each seed dump is a run of (plus one it is not, to exercise the mismatch path)
PROGRAMS = {"mlp.etdp": "mlp.pte", "xnnpack_mlp.etdp": "xnnpack_mlp.pte", "two_methods.etdp": "two_methods.pte",
            "synthetic_device_add.etdp": "device_add.pte", "synthetic_device_mlp.etdp": "device_mlp.pte",
            "synthetic_slow_copies.etdp": "device_mlp.pte", "zoo_cond.etdp": "zoo/cond.pte",
            "zoo_map.etdp": "zoo/map.pte", "zoo_multi_method.etdp": "zoo/multi_method.pte",
            "zoo_quant_xnnpack.etdp": "zoo/quant_xnnpack.pte"}
OTHER = "device_mlp.pte"
INTERESTING_U32 = (0, 1, 2, 3, 4, 7, 8, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF,
                   0x80000000, 0xFFFFFFFE, 0xFFFFFFFF)
INTERESTING_U64 = (0, 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1)


def seed_files() -> list[Path]:
    return sorted(p for p in DUMPS.glob("*.etdp"))


@dataclass
class Landmarks:
    tables: list[int] = field(default_factory=list)  # table starts (their soffset to the vtable)
    vtables: list[tuple[int, int]] = field(default_factory=list)  # (position, size in bytes)
    vectors: list[int] = field(default_factory=list)  # length words
    offsets: list[int] = field(default_factory=list)  # uoffset fields and vector-of-table slots
    scalars: list[tuple[int, int]] = field(default_factory=list)  # (position, size)
    end: int = 0


def walk(data: bytes) -> Landmarks:
    """The structure of a valid dump, found with our own slot constants and plain reads."""
    m = Landmarks(end=len(data))
    u32 = lambda p: struct.unpack_from("<I", data, p)[0]  # noqa: E731
    base = 4 if data[8:12] == b"ED00" else 0

    def table(pos: int) -> list[int]:
        vt = pos - struct.unpack_from("<i", data, pos)[0]
        size = struct.unpack_from("<H", data, vt)[0]
        m.tables.append(pos)
        m.vtables.append((vt, size))
        return [struct.unpack_from("<H", data, vt + 4 + 2 * k)[0] for k in range((size - 4) // 2)]

    def ref(pos: int, fields: list[int], slot: int) -> int | None:
        if slot >= len(fields) or not fields[slot]:
            return None
        at = pos + fields[slot]
        m.offsets.append(at)
        return at + u32(at)

    def scalar(pos: int, fields: list[int], slot: int, size: int) -> None:
        if slot < len(fields) and fields[slot]:
            m.scalars.append((pos + fields[slot], size))

    def vector(pos: int | None) -> list[int]:
        if pos is None:
            return []
        m.vectors.append(pos)
        out = []
        for k in range(u32(pos)):
            slot = pos + 4 + 4 * k
            m.offsets.append(slot)
            out.append(slot + u32(slot))
        return out

    root = base + u32(base)
    m.offsets.append(base)
    f = table(root)
    scalar(root, f, E.ETDUMP_VERSION, 4)
    for run in vector(ref(root, f, E.ETDUMP_RUN_DATA)):
        rf = table(run)
        s = ref(run, rf, E.RUN_NAME)
        if s is not None:
            m.vectors.append(s)
        scalar(run, rf, E.RUN_BUNDLED_INPUT_INDEX, 4)
        for a in vector(ref(run, rf, E.RUN_ALLOCATORS)):
            table(a)
        for ev in vector(ref(run, rf, E.RUN_EVENTS)):
            ef = table(ev)
            p = ref(ev, ef, E.EVENT_PROFILE)
            if p is not None:
                pf = table(p)
                for slot, size in ((E.PE_CHAIN_INDEX, 4), (E.PE_INSTRUCTION_ID, 4), (E.PE_DELEGATE_ID_INT, 4),
                                   (E.PE_START_TIME, 8), (E.PE_END_TIME, 8)):
                    scalar(p, pf, slot, size)
                for slot in (E.PE_NAME, E.PE_DELEGATE_ID_STR, E.PE_DELEGATE_METADATA):
                    s = ref(p, pf, slot)
                    if s is not None:
                        m.vectors.append(s)
            a = ref(ev, ef, E.EVENT_ALLOCATION)
            if a is not None:
                af = table(a)
                scalar(a, af, E.AE_ALLOCATOR_ID, 4)
                scalar(a, af, E.AE_ALLOCATION_SIZE, 8)
            d = ref(ev, ef, E.EVENT_DEBUG)
            if d is not None:
                table(d)
    return m


class Mutator:
    """Named random corruptions of the seed dumps (the name says how to reproduce the case)."""

    def __init__(self, seeds: list[tuple[str, bytes]], rng: random.Random) -> None:
        self.rng = rng
        self.corpus = [(n, d, walk(d)) for n, d in seeds]
        self.ops = [(self.bitflip, 5), (self.scalar, 8), (self.offset, 10), (self.soffset, 5), (self.vtable, 6),
                    (self.vector_length, 7), (self.truncate, 4), (self.splice, 3), (self.size_prefix, 3),
                    (self.alias_events, 3), (self.chunk, 3)]
        self.weights = [w for _, w in self.ops]

    def mutate(self) -> tuple[str, str, bytes]:
        """(seed name, description, mutated bytes)."""
        name, data, marks = self.rng.choice(self.corpus)
        buf = bytearray(data)
        steps = []
        for _ in range(self.rng.choice((1, 1, 1, 2, 3))):
            op = self.rng.choices(self.ops, self.weights)[0][0]
            buf, what = op(buf, marks)
            steps.append(what)
        return name, " + ".join(steps), bytes(buf)

    def _put(self, buf: bytearray, pos: int, fmt: str, value: int) -> None:
        if 0 <= pos and pos + struct.calcsize(fmt) <= len(buf):
            struct.pack_into(fmt, buf, pos, value)

    def bitflip(self, buf, marks):
        if not buf:
            return buf, "bitflip(empty)"
        p = self.rng.randrange(len(buf))
        buf[p] ^= 1 << self.rng.randrange(8)
        return buf, f"bitflip@{p}"

    def scalar(self, buf, marks):
        if not marks.scalars:
            return self.bitflip(buf, marks)
        pos, size = self.rng.choice(marks.scalars)
        if size == 8:
            value = self.rng.choice(INTERESTING_U64)
            self._put(buf, pos, "<Q", value)
        else:
            value = self.rng.choice(INTERESTING_U32)
            self._put(buf, pos, "<I", value)
        return buf, f"scalar@{pos}={value}"

    def offset(self, buf, marks):
        pos = self.rng.choice(marks.offsets)
        value = self.rng.choice(INTERESTING_U32 + (len(buf), len(buf) - pos, len(buf) - pos - 4))
        if self.rng.random() < 0.4:  # point at another landmark (aliasing, tables as vectors...)
            target = self.rng.choice(marks.tables + marks.vectors + [v for v, _ in marks.vtables])
            value = (target - pos) & 0xFFFFFFFF
        self._put(buf, pos, "<I", value)
        return buf, f"offset@{pos}={value}"

    def soffset(self, buf, marks):
        pos = self.rng.choice(marks.tables)
        value = self.rng.choice((0, 4, -4, pos, pos + 1, -len(buf), 2 ** 31 - 1, -(2 ** 31)))
        self._put(buf, pos, "<i", value)
        return buf, f"soffset@{pos}={value}"

    def vtable(self, buf, marks):
        vt, size = self.rng.choice(marks.vtables)
        k = self.rng.randrange(max(1, size // 2))
        value = self.rng.choice((0, 1, 2, 3, 4, 5, 0xFF, 0xFFFF, size, size + 4))
        self._put(buf, vt + 2 * k, "<H", value)
        return buf, f"vtable@{vt}[{k}]={value}"

    def vector_length(self, buf, marks):
        pos = self.rng.choice(marks.vectors)
        value = self.rng.choice(INTERESTING_U32 + (len(buf) // 4, len(buf)))
        self._put(buf, pos, "<I", value)
        return buf, f"veclen@{pos}={value}"

    def truncate(self, buf, marks):
        cut = self.rng.choice([self.rng.randrange(len(buf) + 1)] + [p for p in marks.tables[:50]] + [len(buf) - 1])
        return buf[:max(0, cut)], f"truncate@{cut}"

    def splice(self, buf, marks):
        _, other, _ = self.rng.choice(self.corpus)
        a = self.rng.randrange(len(buf) + 1)
        b = self.rng.randrange(len(other) + 1)
        return bytearray(buf[:a] + other[b:]), f"splice@{a}/{b}"

    def size_prefix(self, buf, marks):
        value = self.rng.choice((0, 4, 8, len(buf) - 4, len(buf) - 3, len(buf), 0xFFFFFFFF))
        self._put(buf, 0, "<I", value)
        return buf, f"prefix={value}"

    def alias_events(self, buf, marks):
        """Every vector-of-tables slot in the file points at one table: a small file describing a lot."""
        target = self.rng.choice(marks.tables)
        for pos in marks.offsets:
            self._put(buf, pos, "<I", (target - pos) & 0xFFFFFFFF)
        return buf, f"alias->{target}"

    def chunk(self, buf, marks):
        a = self.rng.randrange(len(buf) + 1)
        n = self.rng.randrange(1, 64)
        fill = self.rng.choice((b"\x00", b"\xff", bytes([self.rng.randrange(256)])))
        buf[a:a + n] = fill * len(buf[a:a + n])
        return buf, f"chunk@{a}+{n}"


# -- oracles ----------------------------------------------------------------------------------------------

def generated_view(data: bytes):
    """What flatc's generated accessors read (no checks at all): runs of (name, events) or None if they fail."""
    from explorer._generated.etdump.ETDump import ETDump as G

    try:
        prefixed = data[8:12] == b"ED00"
        root = G.GetRootAs(data, 4 if prefixed else 0)
        runs = []
        for i in range(root.RunDataLength()):
            r = root.RunData(i)
            events = []
            for k in range(r.EventsLength()):
                p = r.Events(k).ProfileEvent()
                if p is not None:
                    events.append((_text(p.Name()), p.ChainIndex(), p.InstructionId(), p.DelegateDebugIdInt(),
                                   _text(p.DelegateDebugIdStr()) or None,  # "" is unset, as the Inspector reads it
                                   p.StartTime(), p.EndTime()))
            runs.append((_text(r.Name()), r.BundledInputIndex(), tuple(events)))
        return root.Version(), runs
    except Exception:  # noqa: BLE001 - unchecked code on hostile bytes: anything may happen
        return None


def _text(b):
    return None if b is None else b.decode("utf-8", "replace")


def consistency(data: bytes, dump) -> None:
    """Our dump says what the generated accessors say (when those could read the bytes at all)."""
    seen = generated_view(data)
    if seen is None:
        return
    version, runs = seen
    ours = [(r.name, r.bundled_input_index, tuple((e.name, e.chain_index, e.instruction_id, e.delegate_debug_id_int,
                                                   e.delegate_debug_id_str, e.start_time, e.end_time)
                                                  for e in r.profile_events)) for r in dump.runs]
    assert version == dump.version, f"version {dump.version} != generated {version}"
    assert ours == runs, "events differ from flatc's generated accessors"


_PROGRAMS: dict[str, object] = {}


def _program(name: str):
    if name not in _PROGRAMS:
        _PROGRAMS[name] = load(FIXTURES / name)
    return _PROGRAMS[name]


@dataclass
class Outcome:
    kind: str  # loaded | format-error | crash[stage] ... | slow
    seconds: float
    detail: str = ""

    @property
    def failure(self) -> bool:
        return self.kind not in ("loaded", "format-error")


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_case(seed: str, data: bytes, *, slow: float = 1.0, hard: float | None = None) -> Outcome:
    """One case; its time is this process's CPU time (the machines are shared: waiting for a core is not
    the reader being slow), and ``hard`` interrupts it after that much CPU time."""
    t0 = time.process_time()
    stage = "load"
    if hard:
        old = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, hard)
    try:
        try:
            dump = load_etdump(data)
        except PteFormatError as exc:
            assert str(exc)
            return Outcome("format-error", time.process_time() - t0)
        stage = "model"
        consistency(data, dump)
        for r in dump.runs:
            _ = (r.profile_events, r.allocation_events, r.debug_events)
        stage = "join"
        for program in (PROGRAMS.get(seed, OTHER), OTHER):
            try:
                profile = join_profile(_program(program), dump, strict=True)
                for pp in profile.plans.values():
                    json.dumps(pp.to_json())
            except ProfileMismatch:
                pass
        seconds = time.process_time() - t0
        return Outcome("slow" if seconds > slow else "loaded", seconds)
    except _Timeout:
        return Outcome(f"hang[{stage}]", time.process_time() - t0)
    except Exception as exc:  # noqa: BLE001 - the point: classify anything unexpected
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(tb[-1].filename).name}:{tb[-1].name}" if tb else "?"
        return Outcome(f"crash[{stage}] {type(exc).__name__} @ {where}", time.process_time() - t0,
                       "".join(traceback.format_exception(exc))[-2000:])
    finally:
        if hard:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, old)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout-per-case", type=float, default=1.0)
    ap.add_argument("--save-dir", type=Path, default=SAVE)
    ap.add_argument("--keep-per-kind", type=int, default=3)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    mut = Mutator([(p.name, p.read_bytes()) for p in seed_files()], rng)
    counts: Counter = Counter()
    kept: Counter = Counter()
    slowest = 0.0
    t0 = time.perf_counter()
    for case in range(args.cases):
        seed, what, data = mut.mutate()
        out = run_case(seed, data, slow=args.timeout_per_case, hard=10 * args.timeout_per_case)
        if out.kind == "slow":  # the machine is shared: slow only if it is slow every time
            again = [run_case(seed, data, slow=args.timeout_per_case, hard=10 * args.timeout_per_case) for _ in range(2)]
            if any(a.kind != "slow" for a in again):
                out = min(again, key=lambda a: a.seconds)
                counts["re-timed"] += 1
        counts[out.kind] += 1
        slowest = max(slowest, out.seconds)
        if out.failure and kept[out.kind] < args.keep_per_kind:
            kept[out.kind] += 1
            args.save_dir.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha1(data).hexdigest()[:12] + ".etdp"
            (args.save_dir / name).write_bytes(data)
            index = args.save_dir / "index.json"
            entries = json.loads(index.read_text()) if index.exists() else {}
            entries[name] = {"kind": out.kind, "seed": seed, "mutation": what, "detail": out.detail[-600:]}
            index.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n")
            print(f"case {case}: {out.kind} ({seed}: {what}) -> {name}", flush=True)
        if (case + 1) % 10000 == 0:
            print(f"{case + 1} cases, {time.perf_counter() - t0:.0f} s: {dict(counts)}", flush=True)
    failures = sum(n for k, n in counts.items() if k not in ("loaded", "format-error", "re-timed"))
    print(f"done: {args.cases} cases in {time.perf_counter() - t0:.0f} s, slowest {slowest * 1000:.1f} ms; "
          f"{dict(counts)}; failures {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
