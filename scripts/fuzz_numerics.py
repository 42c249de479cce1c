"""Fuzz the numbers path: a run's ETDump debug entries and its debug buffer, mutated, through
``explorer.load_numerics`` (read, join, statistics; every other case compared with the seed's own run), the report
payload (``views/payload/numerics.py``) and the ``numerics-nonfinite`` findings.

    python scripts/fuzz_numerics.py --cases 20000 --seed 0
    python scripts/fuzz_numerics.py --seconds 600            # as many as fit

Seeds: the 14 real runs of ``tests/fixtures/numerics`` (program, ``.etdp``, ``.bin``). A case mutates one of:

* **the debug buffer** (bytes): truncated, emptied, grown, bytes flipped, float32 words set to NaN/±Inf/huge/denormal;
* **the ETDump's bytes**: ``scripts/fuzz_etdump.py``'s structural mutators (bitflips, scalars, offsets, vtables,
  vector lengths, truncation, splices) on the seed's ``.etdp``;
* **the debug entries** (the decoded events, so every case reaches the reader): a tensor's sizes (0, negative,
  2^31, 2^62, many dims), its offset (-1, negative, past the end, unaligned), its dtype byte (every ScalarType and
  past them), the entry's kind (list, scalar, unknown), an event's instruction id or chain index, events dropped,
  duplicated or reordered.

Allowed answers: numbers, or ``PteFormatError`` / ``ValueError`` (our refusals: bytes that do not fit, a run that
fits no plan). Anything else is a crash; a case over ``--hard`` CPU seconds is a hang (interrupted), over ``--slow``
slow; a case whose peak traced allocation passes ``--max-mb`` is counted as a memory blow-up. Each case's memory
is measured with ``tracemalloc`` every ``--mem-every``-th case (it slows the reader). Prints the count, the rate, the
outcomes and the slowest case; crashing inputs go to ``tests/fixtures/crashes/numerics/``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import signal
import struct
import sys
import time
import tracemalloc
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import fuzz_etdump  # noqa: E402

import explorer  # noqa: E402
from explorer.errors import PteFormatError  # noqa: E402
from explorer.analysis.numerics.load import load_numerics  # noqa: E402
from explorer.model.numerics import LoggedTensor, LoggedValue  # noqa: E402
from explorer.model.profile import DebugEvent  # noqa: E402
from explorer.views.payload.numerics import numerics_payload  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "numerics"
SAVE = ROOT / "tests" / "fixtures" / "crashes" / "numerics"
SIZES = (0, 1, -1, -7, 3, 1 << 31, 1 << 62, (1 << 63) - 1)
WORDS = (float("nan"), float("inf"), float("-inf"), 3.4e38, -3.4e38, 1e-45, 0.0, -0.0)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def seeds() -> list[dict]:
    out = []
    for pte in sorted(FIX.glob("*.pte")):
        stem = pte.with_suffix("")
        out.append({"name": pte.stem, "pte": pte, "program": explorer.load(pte),
                    "etdp": stem.with_suffix(".etdp").read_bytes(), "bin": stem.with_suffix(".bin").read_bytes(),
                    "dump": explorer.load_etdump(stem.with_suffix(".etdp"))})
    return out


# -- mutators ------------------------------------------------------------------------------------------------

def mutate_buffer(rng: random.Random, buf: bytes) -> tuple[str, bytes]:
    b = bytearray(buf)
    k = rng.randrange(5)
    if k == 0:
        n = rng.randrange(len(b) + 1)
        return f"truncate({n})", bytes(b[:n])
    if k == 1:
        return "empty", b""
    if k == 2:
        n = rng.choice((1, 63, 64, 4096))
        return f"grow({n})", bytes(b) + bytes(rng.randrange(256) for _ in range(n))
    if k == 3 and b:
        for _ in range(rng.randint(1, 32)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return "flip", bytes(b)
    words = len(b) // 4
    if not words:
        return "floats(none)", bytes(b)
    for _ in range(rng.randint(1, 16)):
        struct.pack_into("<f", b, 4 * rng.randrange(words), rng.choice(WORDS))
    return "floats", bytes(b)


def _tensor(rng: random.Random, t: LoggedTensor) -> tuple[str, LoggedTensor]:
    k = rng.randrange(5)
    if k == 0:
        sizes = tuple(rng.choice(SIZES) if rng.random() < 0.5 else s for s in t.sizes) or (rng.choice(SIZES),)
        return f"sizes{sizes}", dataclasses.replace(t, sizes=sizes)
    if k == 1:
        sizes = tuple(rng.choice((1, 2, 0, 1 << 20)) for _ in range(rng.choice((0, 9, 40))))
        return f"dims({len(sizes)})", dataclasses.replace(t, sizes=sizes)
    if k == 2:
        off = rng.choice((-1, -2, -(1 << 40), 1, 3, 1 << 20, 1 << 62, t.offset + 1, t.offset + 4096))
        return f"offset({off})", dataclasses.replace(t, offset=off)
    if k == 3:
        st = rng.choice((*range(0, 30), 255, -1, 1 << 20))
        return f"dtype({st})", dataclasses.replace(t, scalar_type=st)
    strides = tuple(rng.choice((0, -1, 1 << 40)) for _ in t.sizes)
    return "strides", dataclasses.replace(t, strides=strides)


def _entry(rng: random.Random, e: LoggedValue) -> tuple[str, LoggedValue]:
    k = rng.randrange(4)
    if k == 0 and e.tensors:
        j = rng.randrange(len(e.tensors))
        what, t = _tensor(rng, e.tensors[j])
        return what, dataclasses.replace(e, tensors=e.tensors[:j] + (t,) + e.tensors[j + 1:])
    if k == 1:
        kind = rng.choice(("tensor_list", "tensor", "int", "float", "bool", "null", "unknown(99)", "string"))
        return f"kind({kind})", dataclasses.replace(e, kind=kind)
    if k == 2:
        n = rng.choice((0, 2, 50))
        return f"tensors×{n}", dataclasses.replace(e, tensors=tuple(e.tensors[:1]) * n)
    return "output", dataclasses.replace(e, output=not e.output, scalar=rng.choice((None, 1, 1e308, True)))


def _event(rng: random.Random, ev: DebugEvent) -> tuple[str, DebugEvent]:
    k = rng.randrange(3)
    if k == 0 and ev.entry is not None:
        what, e = _entry(rng, ev.entry)
        return what, dataclasses.replace(ev, entry=e)
    if k == 1:
        i = rng.choice((-1, 0, 1, 10_000, (1 << 31) - 1, ev.instruction_id + 1))
        return f"instruction({i})", dataclasses.replace(ev, instruction_id=i)
    c = rng.choice((0, 1, 7, (1 << 64) - 1, -1))
    return f"chain({c})", dataclasses.replace(ev, chain_index=c)


def mutate_entries(rng: random.Random, dump):
    runs = [r for r in dump.runs if r.debug_events]
    if not runs:
        return "no-events", dump
    run = rng.choice(runs)
    evs = list(run.debug_events)
    steps = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        k = rng.randrange(6)
        if k <= 2 and evs:
            j = rng.randrange(len(evs))
            what, evs[j] = _event(rng, evs[j])
            steps.append(f"event{j}.{what}")
        elif k == 3 and evs:
            evs.pop(rng.randrange(len(evs)))
            steps.append("drop")
        elif k == 4 and evs:
            evs.insert(rng.randrange(len(evs) + 1), rng.choice(evs))
            steps.append("duplicate")
        else:
            rng.shuffle(evs)
            steps.append("shuffle")
    new = dataclasses.replace(run, debug_events=tuple(evs))
    runs_all = tuple(new if r is run else r for r in dump.runs)
    return " + ".join(steps), dataclasses.replace(dump, runs=runs_all)


# -- one case ----------------------------------------------------------------------------------------------------

def run_case(seed: dict, other: dict | None, etdump, buf: bytes, *, hard: float, mem: bool) -> tuple[str, float, float, str]:
    """(outcome, CPU seconds, peak MB (0 unmeasured), traceback)."""
    t0 = time.process_time()
    old = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, hard)
    if mem:
        tracemalloc.start()
    stage = "load"
    try:
        try:
            against = (other["program"], other["dump"], other["bin"]) if other is not None else None
            report = load_numerics(seed["program"], etdump, buf, against=against)
        except (PteFormatError, ValueError) as exc:
            assert str(exc)
            return "refused", time.process_time() - t0, _peak(mem), ""
        stage = "payload"
        json.dumps(numerics_payload(report), allow_nan=False)
        for f in report.a.numerics.findings:  # NaN/Inf made, or a run that fits no plan: findings, as JSON
            json.dumps(f.to_json(), allow_nan=False)
        return "numbers", time.process_time() - t0, _peak(mem), ""
    except _Timeout:
        return f"hang[{stage}]", time.process_time() - t0, _peak(mem), ""
    except Exception as exc:  # noqa: BLE001 - the point: classify anything unexpected
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(tb[-1].filename).name}:{tb[-1].name}" if tb else "?"
        return (f"crash[{stage}] {type(exc).__name__} @ {where}", time.process_time() - t0, _peak(mem),
                "".join(traceback.format_exception(exc))[-2000:])
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
        if mem:
            tracemalloc.stop()


def _peak(mem: bool) -> float:
    return tracemalloc.get_traced_memory()[1] / 2**20 if mem and tracemalloc.is_tracing() else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=None, help="stop after this much wall time instead")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slow", type=float, default=1.0, help="CPU seconds over which a case counts as slow")
    ap.add_argument("--hard", type=float, default=10.0, help="CPU seconds after which a case is interrupted (hang)")
    ap.add_argument("--max-mb", type=float, default=256.0, help="peak traced MB over which a case is a memory blow-up")
    ap.add_argument("--mem-every", type=int, default=10)
    ap.add_argument("--every", type=int, default=5000, help="a progress line every this many cases")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    corpus = seeds()
    by_model: dict[str, list[dict]] = {}
    for s in corpus:
        by_model.setdefault(s["name"].split("_")[0], []).append(s)
    etdump_mut = fuzz_etdump.Mutator([(s["name"], s["etdp"]) for s in corpus], rng)
    counts: Counter = Counter()
    slowest = (0.0, "")
    peak = (0.0, "")
    crashes = 0
    start = time.monotonic()
    n = 0
    while (n < args.cases) if args.seconds is None else (time.monotonic() - start < args.seconds):
        seed = rng.choice(corpus)
        kind = rng.choice(("buffer", "etdump", "entries", "entries"))
        etdump, buf = seed["dump"], seed["bin"]
        if kind == "buffer":
            what, buf = mutate_buffer(rng, buf)
        elif kind == "etdump":
            name, what, data = etdump_mut.mutate()
            seed = next(s for s in corpus if s["name"] == name)
            etdump, buf = data, seed["bin"]
        else:
            what, etdump = mutate_entries(rng, etdump)
            if rng.random() < 0.3:
                more, buf = mutate_buffer(rng, buf)
                what += " + buffer." + more
        other = rng.choice(by_model[seed["name"].split("_")[0]]) if n % 2 else None
        outcome, cpu, mb, tb = run_case(seed, other, etdump, buf, hard=args.hard, mem=n % args.mem_every == 0)
        label = f"{seed['name']} {kind}: {what}"
        if mb > args.max_mb:
            outcome = "memory"
        if cpu > args.slow and outcome in ("numbers", "refused"):
            outcome = "slow"
        counts[outcome] += 1
        if cpu > slowest[0]:
            slowest = (cpu, label)
        if mb > peak[0]:
            peak = (mb, label)
        if outcome.startswith(("crash", "hang", "memory")):
            crashes += 1
            SAVE.mkdir(parents=True, exist_ok=True)
            (SAVE / f"case{n}.txt").write_text(f"seed {args.seed} case {n}\n{label}\n{outcome}\n{tb}\n")
            if kind != "entries":
                (SAVE / f"case{n}.etdp").write_bytes(etdump if isinstance(etdump, bytes) else seed["etdp"])
                (SAVE / f"case{n}.bin").write_bytes(buf)
        n += 1
        if n % args.every == 0:
            el = time.monotonic() - start
            print(f"{n} cases in {el:.0f} s ({n / el:.0f}/s): {dict(counts)}", flush=True)
    el = time.monotonic() - start
    print(f"{n} cases in {el:.1f} s ({n / max(el, 1e-9):.0f} cases/s), seed {args.seed}: {dict(sorted(counts.items()))}")
    print(f"unexpected (crash/hang/memory): {crashes}; slowest {slowest[0] * 1000:.0f} ms CPU ({slowest[1]}); "
          f"largest traced peak {peak[0]:.1f} MB ({peak[1]})")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
