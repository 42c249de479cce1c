"""What-if placement vs executorch re-exporting the model for that placement (issue 22), same run, same model.

    python bench/bench_whatif.py [--regions 150] [--ops 36] [--export-repeat 3] [--repeat 7] [--quick]

The model (built at bench time; needs the ``interop`` extra) is a chain of ``--regions`` adds, each followed by
``--ops`` CPU ops (relu/sin/tanh/neg in turn) and each reading the method input ``y``; the defaults give a
6,006-value plan once the adds are delegated to cuda:0. It is exported once with ``CpuOnlyPartitioner()``
(exir/backend/test/device_util.py) - the program the what-if starts from. Then, alternately:

* **executorch**: ``to_edge_transform_and_lower(ep, partitioner=[DeviceAwarePartitioner("cuda:0")])`` +
  ``to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True))`` - what a placement review
  has to run today for the same answer. ``torch.export`` is redone before each run and NOT timed (in
  executorch's favour).
* **what-if**: ``explorer.what_if(cpu_only_program, [("delegate:*", "cuda:0")])`` on the loaded program, and
  ``explorer.load`` + ``what_if`` from the bytes.

Both run in this process after their imports; medians are reported, and the ratio is what to read (2 shared
cores here). The prediction is compared with the re-export (tensors per device, copies per direction with
bytes, arenas per device) and the bench says whether they are equal. Target (issue 22): what-if <= 1 s and
>= 20x faster than the re-export.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MOVES = [("delegate:*", "cuda:0")]
TARGET_SECONDS, TARGET_RATIO = 1.0, 20.0


def make_model(regions: int, ops: int):
    """The chain model and its example inputs (seeded)."""
    import torch

    class Chain(torch.nn.Module):
        def forward(self, x, y):
            fns = (torch.relu, torch.sin, torch.tanh, torch.neg)
            for i in range(regions):
                x = x + y  # delegated (the device partitioners of device_util take aten.add only)
                for k in range(ops):
                    x = fns[(i + k) % len(fns)](x)
            return x + y

    torch.manual_seed(0)
    return Chain().eval(), (torch.randn(2, 4), torch.randn(2, 4))


def lower(model, example, partitioner) -> bytes:
    """executorch's export for one placement: the lowering + emission (``torch.export`` done beforehand)."""
    import torch
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower

    ep = torch.export.export(model, example)
    start = time.perf_counter()
    edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    data = bytes(edge.to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True)).buffer)
    return data, time.perf_counter() - start


def placement(program) -> dict:
    """What a placement review compares, per plan: tensors per device, copies per direction, arenas."""
    from explorer.model.program import Tensor

    out = {}
    for plan in program.plans:
        copies: Counter = Counter()
        for ins in plan.instructions:
            if ins.kind == "KernelCall" and ins.op in ("et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"):
                way = "h2d" if "h2d" in ins.op else "d2h"
                copies[way] += 1
                copies[way + " bytes"] += plan.values[ins.args[0]].nbytes
        out[plan.name] = {
            "values": len(plan.values),
            "tensors": dict(Counter(str(v.device) for v in plan.values if isinstance(v, Tensor))),
            "copies": dict(copies),
            "arenas": [(str(b.device), b.size) for b in plan.buffers],
        }
    return out


def _median_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regions", type=int, default=150, help="delegated add regions (default 150)")
    parser.add_argument("--ops", type=int, default=36, help="CPU ops after each add (default 36)")
    parser.add_argument("--export-repeat", type=int, default=3, help="executorch re-exports timed (default 3)")
    parser.add_argument("--repeat", type=int, default=7, help="what-if runs timed (default 7)")
    parser.add_argument("--quick", action="store_true", help="a small model and one re-export (smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        args.regions, args.ops, args.export_repeat, args.repeat = 20, 8, 1, 3

    import explorer
    from executorch.exir.backend.test.device_util import CpuOnlyPartitioner, DeviceAwarePartitioner

    warnings.simplefilter("ignore")
    model, example = make_model(args.regions, args.ops)
    cpu_bytes, cpu_seconds = lower(model, example, CpuOnlyPartitioner())
    cpu_only = explorer.load(cpu_bytes)
    print(f"model: {args.regions} add regions x {args.ops} CPU ops; cpu-only export: "
          f"{len(cpu_only.plans[0].values):,} values, {len(cpu_bytes):,} bytes ({cpu_seconds:.1f} s to lower)")

    predicted = explorer.what_if(cpu_only, MOVES)  # warm-up (and the prediction compared below)
    ours = _median_of(lambda: explorer.what_if(cpu_only, MOVES), args.repeat)
    ours_load = _median_of(lambda: explorer.what_if(explorer.load(cpu_bytes), MOVES), args.repeat)

    export_times = []
    real_bytes = b""
    for _ in range(args.export_repeat):
        real_bytes, seconds = lower(model, example, DeviceAwarePartitioner("cuda:0"))
        export_times.append(seconds)
    theirs = statistics.median(export_times)
    real = explorer.load(real_bytes)

    print(f"placement: {MOVES[0][0]} -> {MOVES[0][1]}; device plan: {len(real.plans[0].values):,} values, "
          f"{len(real.plans[0].instructions):,} instructions")
    print(f"{'':>34} {'median':>10} {'runs':>5} {'vs what-if':>11}")
    print(f"{'executorch lower + to_executorch':>34} {theirs:>9.2f}s {args.export_repeat:>5} {theirs / ours:>10.0f}x")
    print(f"{'explorer.what_if':>34} {ours:>9.3f}s {args.repeat:>5} {1:>10.0f}x")
    print(f"{'explorer.load + what_if':>34} {ours_load:>9.3f}s {args.repeat:>5} {ours_load / ours:>10.1f}x")
    print(f"ratio executorch / what-if: {theirs / ours:.0f}x (load + what-if: {theirs / ours_load:.0f}x); "
          f"target <= {TARGET_SECONDS:g} s and >= {TARGET_RATIO:g}x: "
          f"{'met' if ours_load <= TARGET_SECONDS and theirs / ours_load >= TARGET_RATIO else 'NOT met'}")
    want, got = placement(real), placement(predicted)
    if want == got:
        print("prediction equals the re-export: tensors per device, copies per direction and bytes, arenas")
    else:
        print("prediction DIFFERS from the re-export:")
        for name in sorted(set(want) | set(got)):
            for key in sorted(set(want.get(name, {})) | set(got.get(name, {}))):
                a, b = want.get(name, {}).get(key), got.get(name, {}).get(key)
                if a != b:
                    print(f"  {name}.{key}: export {a} / what-if {b}")
    return 0 if want == got else 1


if __name__ == "__main__":
    sys.exit(main())
