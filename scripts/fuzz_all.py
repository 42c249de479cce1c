"""One campaign over every format the explorer opens, through the Python API and the CLI.

    python scripts/fuzz_all.py --cases 1000000 --seed 0
    python scripts/fuzz_all.py --cases 300 --seed 1      # the sample tests/test_fuzz_all.py runs

Each case is a mutant of one seed file, made by the mutators the per-format campaigns already have
(``scripts/fuzz.py`` for programs, ``.ptd`` data files, ``.bpte`` bundles and programs carrying XNNPACK
payloads; ``scripts/fuzz_etdump.py`` for ETDump). The mutant then goes where a user's file goes:

* a program-like mutant: ``explorer.load`` then ``explorer.check`` (the public API, data files and
  bundles included), every ``--payload-every``-th one the widget/report payload
  (``explorer.views.html.report.app_payload``, packed as a page embeds it) and ``explorer.diff`` against its seed;
* an ETDump mutant: ``explorer.load_etdump``;
* every ``--cli-every``-th mutant: ``explorer.cli.main(["check", file])`` (an ETDump as
  ``inspect <its program> --profile file``), whose only allowed answers are an exit status and text.

Size-amplifying mutants (``--amplify-rate`` of the cases): one of ``writers/amplify.py``'s crafted adversaries
(a million-arena program, thousands of plans / delegates / chains, 4 KB names, an ETDump of many events, an
ETRecord with a huge graph) at a random small scale, its main file then corrupted by 0-2 of the program
mutators; it goes through the API and, every ``--cli-every``-th, the CLI (with its companion file).

Every case is held to the budget: more than 10 s of CPU, or a peak RSS of the process past 1 GiB since the campaign
began (Linux's ``VmHWM``, reset at the start: a test worker that other tests grew earlier is held to the campaign's
own peak, not to its history), is counted as ``over-budget`` (and logged) beside the crashes.

Allowed results: a value, or our own ``PteFormatError`` (plus ``ProfileMismatch`` from a join and
``EtrecordMismatch`` from an ETRecord of another program, which are refusals by design). Anything else is counted as ``crash[stage] Type @ file:function`` and its input
saved to ``tests/fixtures/crashes/all/`` with ``index.json``. The summary line gives the case count, the
unexpected exceptions and the slowest case (CPU time, since the machine is shared).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import fuzz as program_fuzz  # noqa: E402
import fuzz_etdump as etdump_fuzz  # noqa: E402

import resource  # noqa: E402

import explorer  # noqa: E402
from explorer import PteFormatError  # noqa: E402
from explorer.errors import EtrecordMismatch  # noqa: E402
from writers.amplify import CASES as AMPLIFY_CASES, Case, make as make_amplified  # noqa: E402

AMPLIFY_SCALES = (0.001, 0.005, 0.02)  # of the 10 MB adversaries: kilobytes to a few hundred
BUDGET_CPU_S = 10.0
BUDGET_RSS_MIB = 1024.0

SAVE = ROOT / "tests" / "fixtures" / "crashes" / "all"


def _cli(argv: list[str]) -> None:
    from explorer.cli import main

    main(argv, io.StringIO())


def _payload(program) -> None:
    from explorer.views.payload.embed import pack
    from explorer.views.payload.app import app_payload

    if getattr(program, "kind", "program") != "program":
        return
    pack(app_payload(program, findings=list(explorer.check(program))))


def run_program(seed: bytes, data: bytes, *, payload: bool, cli_path: Path | None) -> str:
    """The program-like path of one case; returns 'loaded' or 'format-error' or raises."""
    try:
        program = explorer.load(data)
    except PteFormatError as exc:
        assert str(exc)
        kind = "format-error"
        program = None
    if program is not None:
        kind = "loaded"
        list(explorer.check(program))
        if payload:
            _payload(program)
            if getattr(program, "kind", "program") == "program":
                try:
                    before = explorer.load(seed)
                except PteFormatError:
                    before = None
                if getattr(before, "kind", None) == "program":
                    explorer.diff(before, program)
    if cli_path is not None:
        cli_path.write_bytes(data)
        _cli(["check", str(cli_path)])
    return kind


def run_etdump(seed_name: str, data: bytes, *, cli_path: Path | None) -> str:
    try:
        explorer.load_etdump(data)
        kind = "loaded"
    except PteFormatError as exc:
        assert str(exc)
        kind = "format-error"
    if cli_path is not None:
        cli_path.write_bytes(data)
        program = etdump_fuzz.FIXTURES / etdump_fuzz.PROGRAMS.get(seed_name, etdump_fuzz.OTHER)
        _cli(["inspect", str(program), "--profile", str(cli_path)])
    return kind


def amplified_pool() -> list[tuple[Case, str, object]]:
    """Every crafted adversary at every scale of AMPLIFY_SCALES, made once per campaign: (case, the name of its
    main file, the program mutators' landmarks of it, or None for a companion file, mutated as bytes)."""
    out = []
    for name in AMPLIFY_CASES:
        for scale in AMPLIFY_SCALES:
            case = make_amplified(name, scale)
            main = case.options[1] if case.options else case.program
            out.append((case, main, None if case.options else program_fuzz.walk(case.files[main])))
    return out


def run_amplified(case: Case, main: bytes, *, cli_dir: Path | None) -> str:
    """One amplified case whose main file (the program, or its companion) is ``main``, as a user would open it."""
    companion = case.options[1] if case.options else None
    files = dict(case.files)
    files[companion or case.program] = main
    program_bytes = files[case.program]
    kind = "loaded"
    if companion is None:
        kind = run_program(program_bytes, program_bytes, payload=True, cli_path=None)
    elif case.options[0] == "--profile":
        try:
            explorer.load_etdump(main)
        except PteFormatError as exc:
            assert str(exc)
            kind = "format-error"
    else:
        try:
            explorer.load(program_bytes, etrecord=main)
        except (PteFormatError, EtrecordMismatch) as exc:
            assert str(exc)
            kind = "format-error"
    if cli_dir is not None:
        for name, data in files.items():
            (cli_dir / name).write_bytes(data)
        argv = ["inspect" if companion else "show", str(cli_dir / case.program)]
        argv += [str(cli_dir / w) if w in files else w for w in case.options]
        if not companion:
            argv += ["-o", str(cli_dir / "report.html")]
        _cli(argv)
    return kind


def signature(exc: BaseException) -> str:
    return program_fuzz.signature(exc)


def _reset_peak() -> bool:
    """Count the process's peak memory afresh from here (Linux: writing 5 to /proc/self/clear_refs resets
    ``VmHWM``); False where that cannot be done, and the peak is then the process's whole history (``ru_maxrss``)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _peak_mib(fresh: bool) -> float:
    """The process's peak resident memory: since ``_reset_peak`` when ``fresh``, else since it started."""
    if fresh:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def campaign(cases: int, seed: int, *, payload_every: int = 50, cli_every: int = 100, save: Path | None = SAVE,
             report_every: float = 60.0, log=print, amplify_rate: float = 0.02) -> tuple[Counter, float, str]:
    """Run ``cases`` mutants; returns (outcome counts, slowest case in CPU seconds, its description). Counts
    ``over-budget`` for a case past BUDGET_CPU_S of CPU or one that takes the process past BUDGET_RSS_MIB."""
    rng = random.Random(seed)
    pool = amplified_pool() if amplify_rate > 0 else []
    programs = program_fuzz.Mutator(program_fuzz._seed_corpus(synthetic=False), rng)
    seeds = {name: data for name, data, _ in programs.corpus}
    dumps = etdump_fuzz.Mutator([(p.name, p.read_bytes()) for p in etdump_fuzz.seed_files()], rng)
    counts: Counter = Counter()
    slowest, slowest_what = 0.0, ""
    tmp = Path(tempfile.mkdtemp(prefix="fuzz_all_"))
    t_start = last = time.perf_counter()
    fresh = _reset_peak()  # a process that other work grew earlier (a test worker) is held to the campaign's peak
    try:
        for case in range(cases):
            amplified = None
            if pool and rng.random() < amplify_rate:
                amplified, main_name, marks = rng.choice(pool)
                buf, steps = bytearray(amplified.files[main_name]), []
                for _ in range(rng.choice((0, 1, 1, 2))):
                    if marks is None:  # a companion: bytes, not a program's landmarks
                        buf[rng.randrange(len(buf))] = rng.randrange(256)
                        steps.append("byte")
                        continue
                    op = rng.choices(programs.ops, programs.weights)[0][0]
                    buf, what_op = op(buf, marks)
                    steps.append(what_op)
                what, data = f"amplified {amplified.name} ({amplified.size:,} B): {' + '.join(steps) or 'as made'}", \
                    bytes(buf)
            is_dump = amplified is None and rng.random() < 0.2
            if is_dump:
                seed_name, what, data = dumps.mutate()
                what = f"{seed_name}: {what}"
            elif amplified is None:
                what, data = programs.mutate()
                seed_name = what.split(": ", 1)[0]
            cli_path = tmp / ("case.etdp" if is_dump else "case.pte") if cli_every and case % cli_every == 0 else None
            t0 = time.process_time()
            stage = "amplified" if amplified is not None else "etdump" if is_dump else "program"
            try:
                if amplified is not None:
                    kind = run_amplified(amplified, data, cli_dir=tmp if cli_path is not None else None)
                elif is_dump:
                    kind = run_etdump(seed_name, data, cli_path=cli_path)
                else:
                    kind = run_program(seeds.get(seed_name, data), data,
                                       payload=bool(payload_every) and case % payload_every == 0, cli_path=cli_path)
            except Exception as exc:  # noqa: BLE001 - the point: anything else is a finding
                kind = f"crash[{stage}] {signature(exc)}"
                detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:]
                if save is not None:
                    save.mkdir(parents=True, exist_ok=True)
                    name = hashlib.sha1(data).hexdigest()[:12] + (".etdp" if is_dump else ".pte")
                    (save / name).write_bytes(data)
                    index_path = save / "index.json"
                    index = json.loads(index_path.read_text()) if index_path.exists() else {}
                    index[name] = {"kind": kind, "mutation": what, "detail": detail.strip().splitlines()[-1][:300]}
                    index_path.write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
                log(f"case {case}: {kind} ({what})\n{detail}")
            seconds = time.process_time() - t0
            rss = _peak_mib(fresh)
            if seconds > BUDGET_CPU_S or (rss > BUDGET_RSS_MIB and not counts["over-budget-rss"]):
                tag = "over-budget" if seconds > BUDGET_CPU_S else "over-budget-rss"
                counts[tag] += 1
                log(f"case {case}: {tag}: {seconds:.1f} s CPU, process peak {rss:.0f} MiB ({what})")
            counts[kind] += 1
            if seconds > slowest:
                slowest, slowest_what = seconds, what
            now = time.perf_counter()
            if report_every and now - last > report_every:
                last = now
                log(f"{case + 1} cases, {now - t_start:.0f} s: {dict(counts)}; slowest {slowest * 1000:.0f} ms")
    finally:
        for p in tmp.iterdir():
            p.unlink()
        tmp.rmdir()
    return counts, slowest, slowest_what


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--payload-every", type=int, default=50, help="build the widget payload and diff every Nth case")
    ap.add_argument("--cli-every", type=int, default=100, help="run the CLI on every Nth case")
    ap.add_argument("--amplify-rate", type=float, default=0.02, help="share of cases that are size-amplified")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--report-every", type=float, default=60.0)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    counts, slowest, what = campaign(args.cases, args.seed, payload_every=args.payload_every,
                                     cli_every=args.cli_every, save=None if args.no_save else SAVE,
                                     report_every=args.report_every, log=lambda s: print(s, flush=True),
                                     amplify_rate=args.amplify_rate)
    crashes = sum(n for k, n in counts.items() if k.startswith("crash"))
    over = sum(n for k, n in counts.items() if k.startswith("over-budget"))
    print(f"done: {sum(counts.values())} cases in {time.perf_counter() - t0:.0f} s; {dict(counts)}; "
          f"unexpected exceptions {crashes}; over budget {over}; slowest {slowest * 1000:.0f} ms CPU ({what}); "
          f"process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB", flush=True)
    return 1 if crashes or over else 0


if __name__ == "__main__":
    sys.exit(main())
