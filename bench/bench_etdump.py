"""Benchmark: reading and joining a large real ETDump, against executorch's own Inspector, same file.

    python bench/bench_etdump.py [--runs 11000] [--repeat 5]

The dump is real: ``tests/fixtures/mlp.pte`` run ``--runs`` times by executorch's runtime with ETDump
on (11 profile events per run and block: 11,000 runs make 121,002 events). Every measurement runs in its own
child process (imports excluded), repeated; medians are reported with the ratio to ours:

* ``load_etdump`` — our bounds-checked reader alone;
* ``load_etdump + join`` — reader plus the join to the program (per-instruction, device, copy stats);
* ``Inspector`` — ``executorch.devtools.Inspector(etdump_path=...)`` with nanosecond time scales: what a
  user runs today to get per-instruction times (it parses the dump and builds its event blocks).

These machines are noisy and shared: read the ratios, not the absolute times.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_dump(runs: int, out: Path) -> Path:
    import torch
    from executorch.extension.pybindings import portable_lib as pl

    data = (ROOT / "tests" / "fixtures" / "mlp.pte").read_bytes()
    module = pl._load_for_executorch_from_buffer(data, enable_etdump=True, debug_buffer_size=0)
    x = torch.randn(2, 4)
    for _ in range(runs):
        module.forward([x])
    path = out / "mlp_runs.etdp"
    module.write_etdump_result_to_file(str(path), str(out / "debug.bin"))
    return path


def _child(kind: str, path: str, repeat: int, queue) -> None:
    try:
        import warnings
        warnings.simplefilter("ignore")
        if kind in ("load_etdump", "load_etdump + join"):
            import explorer
            from explorer.analysis.profile.join import join_profile
            program = explorer.load(ROOT / "tests" / "fixtures" / "mlp.pte")
            if kind == "load_etdump":
                run = lambda: explorer.load_etdump(path)  # noqa: E731
            else:
                run = lambda: join_profile(program, explorer.load_etdump(path))  # noqa: E731
        elif kind == "Inspector":
            from executorch.devtools import Inspector
            from executorch.devtools.inspector._inspector_utils import TimeScale
            run = lambda: Inspector(etdump_path=path, etrecord=None, source_time_scale=TimeScale.NS,  # noqa: E731
                                    target_time_scale=TimeScale.NS)
        else:
            raise ValueError(kind)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        queue.put(times)
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        queue.put(f"{type(exc).__name__}: {exc}")


def measure(kind: str, path: str, repeat: int):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(kind, path, repeat, q))
    p.start()
    result = q.get()
    p.join()
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = make_dump(args.runs, Path(tmp))
        import explorer
        dump = explorer.load_etdump(path)
        print(f"dump: {path.stat().st_size:,} bytes, {len(dump.runs):,} run blocks, {dump.event_count:,} profile events")
        results = {k: measure(k, str(path), args.repeat) for k in ("load_etdump", "load_etdump + join", "Inspector")}
    ours = results["load_etdump + join"]
    print(f"| reader | median of {args.repeat} | ÷ (load_etdump + join) |")
    print("|---|---|---|")
    for kind, times in results.items():
        if isinstance(times, str):
            print(f"| {kind} | failed: {times} | |")
            continue
        med = statistics.median(times)
        ratio = med / statistics.median(ours) if not isinstance(ours, str) else float("nan")
        print(f"| {kind} | {med * 1000:.0f} ms | {ratio:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
