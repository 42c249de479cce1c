"""The budget as a contract: any input of at most 10 MB is answered by inspect, check and show within 10 s and 1 GiB.

    python bench/bench_budget.py [--scale 1.0] [--cases arenas plans ...] [--repeat 1] [--commands inspect ... json]

``json`` is ``inspect --json``.
Every crafted case of ``writers/amplify.py`` (a million arenas, thousands of plans / delegates / chains, hundreds
of thousands of values, 4 KB names, an ETDump of hundreds of thousands of events, an ETRecord with a huge graph,
tables listed again millions of times)
is written to a temp folder and each command runs on it in a fresh process (``python -m explorer.cli``), its CPU
time (user + system; the wall time is printed too) and peak memory read from the child's own rusage
(``os.wait4``): the machines are shared, and CPU time is what the command itself costs. A run over budget, or one that
ends in a traceback, is marked ``OVER`` / ``CRASH`` and the script exits 1. Each row also gives the peer: a bare
``explorer.load`` of the same file in its own process, so the ratio says what the command adds to reading.
tests/test_budget.py runs the same cases at a small scale; docs/testing.md has the full figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from writers.amplify import CASES, Case, make  # noqa: E402

BUDGET_S = 10.0
BUDGET_MIB = 1024.0
MAX_BYTES = 10 * 1000 * 1000
COMMANDS = ("inspect", "check", "show")
JSON = "json"  # inspect --json: the full run measures it too (--commands)


def command_line(case: Case, command: str, folder: Path) -> list[str]:
    argv = [sys.executable, "-m", "explorer.cli", *(("inspect", "--json") if command == JSON else (command,)),
            str(folder / case.program)]
    for word in case.options:
        argv.append(str(folder / word) if word in case.files else word)
    if command == "show":
        argv += ["-o", str(folder / "report.html")]
    if command == "check" and case.options and case.options[0] == "--profile":
        argv = argv[:5]  # check takes no profile: the program alone
    return argv


def run(argv: list[str], cwd: Path) -> tuple[float, float, int, str, float]:
    """(CPU seconds, peak MiB, exit status, stderr's last line, wall seconds) of one child. The budget is held
    on CPU time (user + system, the child's own rusage): on 2 cores shared by several people wall time
    measures the neighbours; the wall time is printed beside it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    peak_file = Path(tempfile.mkstemp(prefix="dex-peak-")[1])
    env["DEX_PEAK_FILE"] = str(peak_file)
    if argv[0] == sys.executable and argv[1] in ("-m", "-c"):
        argv = [sys.executable, "-c", _PEAK_WRAPPER, *argv[1:]]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    last = err.strip().splitlines()[-1] if err.strip() else ""
    written = peak_file.read_text().strip()
    peak_file.unlink()
    peak = int(written) / 1024 if written else usage.ru_maxrss / 1024
    return usage.ru_utime + usage.ru_stime, peak, proc.returncode, last, wall


# The child's peak is its own address space's high-water mark (VmHWM), written at exit. The rusage maxrss is not
# the child's own: Linux carries it across fork and exec, so a child of a large pytest process reads its parent's.
_PEAK_WRAPPER = """
import atexit, os, runpy, sys
def _peak():
    with open("/proc/self/status") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["DEX_PEAK_FILE"], "w") as out:
        out.write(kib)
atexit.register(_peak)
mode, target, *rest = sys.argv[1:]
if mode == "-m":
    sys.argv = [target, *rest]
    runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    sys.argv = ["-c", *rest]
    exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
"""


def measure(case: Case, command: str, folder: Path, repeat: int = 1) -> dict:
    runs = [run(command_line(case, command, folder), folder) for _ in range(repeat)]
    seconds = statistics.median(r[0] for r in runs)
    peak = max(r[1] for r in runs)
    code, last, wall = runs[-1][2], runs[-1][3], statistics.median(r[4] for r in runs)
    crashed = code not in (0, 1, 2) or "Traceback" in last or "Error:" in last and not last.startswith("device-")
    return {"case": case.name, "command": command, "seconds": seconds, "wall": wall, "peak_mib": peak, "code": code,
            "stderr": last, "over": seconds > BUDGET_S or peak > BUDGET_MIB, "crash": crashed}


def peer(case: Case, folder: Path) -> tuple[float, float]:
    """explorer.load of the same program in its own process: the reading every command starts with."""
    code = f"import explorer; explorer.load({str(folder / case.program)!r})"
    seconds, peak, _, _, _ = run([sys.executable, "-c", code], folder)
    return seconds, peak


def write_case(case: Case, folder: Path) -> None:
    for name, data in case.files.items():
        (folder / name).write_bytes(data)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--cases", nargs="+", default=list(CASES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--commands", nargs="+", default=[*COMMANDS, JSON], choices=[*COMMANDS, JSON])
    args = ap.parse_args(argv)
    bad = 0
    print(f"{'case':>14} {'bytes':>11} {'command':>8} {'CPU s':>7} {'wall s':>7} {'peak MiB':>9} {'exit':>5} "
          f"{'load s':>7} {'cmd/load':>8}")
    with tempfile.TemporaryDirectory(prefix="dex-budget-") as tmp:
        folder = Path(tmp)
        for name in args.cases:
            case = make(name, args.scale)
            if case.size > MAX_BYTES:
                print(f"{name:>14} {case.size:>11,} is over 10 MB: not a budget case (lower its size)")
                bad += 1
                continue
            write_case(case, folder)
            load_s, _ = peer(case, folder)
            for command in args.commands:
                r = measure(case, command, folder, args.repeat)
                flag = " OVER" if r["over"] else (" CRASH " + r["stderr"] if r["crash"] else "")
                bad += bool(r["over"] or r["crash"])
                print(f"{name:>14} {case.size:>11,} {command:>8} {r['seconds']:>7.2f} {r['wall']:>7.2f} {r['peak_mib']:>9.0f} "
                      f"{r['code']:>5} {load_s:>7.2f} {r['seconds'] / load_s:>8.1f}x{flag}", flush=True)
            for p in folder.iterdir():
                p.unlink()
    print(f"budget {BUDGET_S:.0f} s CPU / {BUDGET_MIB:.0f} MiB per command: {'all within' if not bad else f'{bad} over'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
