"""``device-explorer calibrate -o costs.json``: measure this machine's copy and launch costs for the what-if estimate.

The what-if time estimate reads a cost model (explorer/whatif/costs.py): per device kind, the time of an h2d and
a d2h copy by size, for pageable and pinned host memory, and the cost of one launch. The built-in one was
measured on an H200; this command measures the machine it runs on, the same way — synchronous copies between
preallocated buffers (what ``et_copy::_h2d_copy.out`` / ``_d2h_copy.out`` do), medians — and writes the file
``whatif --costs`` and ``estimate(costs=...)`` read. It needs torch with CUDA (an optional dependency); without
it, it says so and exits 2. It takes well under a minute: six sizes from 64 B to 256 MiB, fewer repetitions for
the big ones.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
import time
from typing import TextIO

from explorer.whatif.costs import FORMAT, load_costs

__all__ = ["register", "run", "SIZES"]

SIZES = (64, 16 << 10, 256 << 10, 4 << 20, 64 << 20, 256 << 20)  # the built-in model's rows


def register(sub) -> None:
    p = sub.add_parser(
        "calibrate", help="measure this machine's copy and launch costs (needs torch with CUDA)",
        description="Measure h2d/d2h copy times (pageable and pinned host memory, 64 B to 256 MiB) and the cost of "
                    "one launch on a CUDA device, and write the cost model `whatif --costs FILE` reads. Needs torch "
                    "with CUDA; exit 2 without it.")
    p.add_argument("-o", "--output", required=True, metavar="JSON", help="where to write the cost model")
    p.add_argument("--device", default="cuda:0", help="the CUDA device to measure (default cuda:0)")
    p.set_defaults(func=run)


def _torch_with_cuda(device: str):
    """torch, or None after saying on stderr why it cannot measure."""
    try:
        import torch  # optional and heavy: only calibrate needs it, and only with CUDA
    except ImportError:
        print("device-explorer calibrate: needs torch with CUDA to measure copies, and torch is not installed "
              "(pip install torch; the built-in H200 model needs nothing)", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"device-explorer calibrate: torch {torch.__version__} sees no CUDA device here, so there is nothing "
              f"to measure (the built-in H200 model needs nothing)", file=sys.stderr)
        return None
    index = int(device.split(":", 1)[1]) if ":" in device else 0
    if not 0 <= index < torch.cuda.device_count():
        print(f"device-explorer calibrate: no device {device} (torch sees {torch.cuda.device_count()})",
              file=sys.stderr)
        return None
    return torch


def _median_s(fn, sync, reps: int) -> float:
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(torch, device: str = "cuda:0") -> dict:
    """The cost model of ``device`` in its JSON form (explorer/whatif/costs.py)."""
    dev = torch.device(device)
    sync = torch.cuda.synchronize
    tables: dict[str, dict[str, list]] = {"h2d": {"pageable": [], "pinned": []}, "d2h": {"pageable": [], "pinned": []}}
    for nbytes in SIZES:
        reps = 50 if nbytes <= 256 << 10 else 20 if nbytes <= 4 << 20 else 5
        gpu = torch.empty(nbytes, dtype=torch.uint8, device=dev)
        for host in ("pageable", "pinned"):
            cpu = torch.empty(nbytes, dtype=torch.uint8, pin_memory=host == "pinned")
            tables["h2d"][host].append([nbytes, _median_s(lambda g=gpu, c=cpu: g.copy_(c), sync, reps)])
            tables["d2h"][host].append([nbytes, _median_s(lambda g=gpu, c=cpu: c.copy_(g), sync, reps)])
    a = torch.randn(16, 64, device=dev)
    b = torch.randn(16, 64, device=dev)
    chain = 200

    def adds() -> None:
        y = a
        for _ in range(chain):
            y = y + b

    launch = _median_s(adds, sync, 5) / chain
    index = dev.index or 0
    name = torch.cuda.get_device_name(index)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return {"format": FORMAT, "name": f"{name} (calibrated)",
            "source": f"device-explorer calibrate on {name}, {platform.node() or 'this machine'}, {when}: torch "
                      f"{torch.__version__}, CUDA {torch.version.cuda}; synchronous copies between preallocated "
                      f"buffers, medians of 5-50; launch: a 16x64 add in a chain of {chain}",
            "host_memory": "pageable",
            "devices": {"cuda": {"launch_s": launch, **tables}}}


def run(args: argparse.Namespace, out: TextIO) -> int:
    torch = _torch_with_cuda(args.device)
    if torch is None:
        return 2
    doc = measure(torch, args.device)
    load_costs(doc)  # what we write must read back
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    except OSError as exc:
        print(f"device-explorer calibrate: cannot write {args.output}: {exc}", file=sys.stderr)
        return 2
    cuda = doc["devices"]["cuda"]
    print(f"wrote {args.output}: {doc['name']}; launch {cuda['launch_s'] * 1e6:.1f} us; 4 MiB h2d pageable "
          f"{cuda['h2d']['pageable'][3][1] * 1e6:.0f} us, pinned {cuda['h2d']['pinned'][3][1] * 1e6:.0f} us", file=out)
    return 0
