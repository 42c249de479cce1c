"""Decode time of a large XNNPACK delegate payload: our reader vs ``flatc --json`` with the same schema.

The payload is made by executorch's own XNNPACK serializer (``serialize_xnnpack_binary`` over its
``xnnpack_graph_schema`` dataclasses; needs the ``interop`` extra): a chain of N nodes cycling through
every node type of the schema, each reading the previous output (and constants for weights). Each
reader runs in its own process on the same bytes, imports excluded; medians of 5 runs; the ratio is
what to read (2 shared cores here).

    python bench/bench_xnnpack.py [--nodes 1000 10000]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_payload(nodes: int) -> tuple[bytes, list]:
    """An XNNPACK payload of ``nodes`` nodes (all types in turn) from executorch's serializer, and the
    executorch dataclass of each node (for cross-checks: ``tests/test_companions.py`` uses it too)."""
    from executorch.backends.xnnpack.serialization import xnnpack_graph_schema as s
    from executorch.backends.xnnpack.serialization.xnnpack_graph_serialize import serialize_xnnpack_binary

    kinds = typing.get_args(s.XNodeUnion)
    values: list = []
    constants = [s.ConstantDataOffset(0, 0)]

    def value(dims, *, ext=0xFFFFFFFF, flags=0, const=0) -> int:
        vid = len(values)
        values.append(s.XValue(s.XNNTensorValue(s.XNNDatatype.xnn_datatype_fp32, len(dims), list(dims), const,
                                                ext, flags, vid)))
        return vid

    def constant(dims) -> int:
        constants.append(s.ConstantDataOffset(0, 4 * max(1, len(dims)), named_key=f"w{len(constants)}"))
        return value(dims, const=len(constants) - 1)

    first = value([1, 8], ext=0, flags=1)
    prev = first
    xnodes, made = [], []
    for i in range(nodes):
        cls = kinds[i % len(kinds)]
        fields = {}
        for f in dataclasses.fields(cls):
            hint = typing.get_type_hints(cls)[f.name]
            if f.name.startswith("output"):
                continue
            if f.name.endswith("_id"):
                fields[f.name] = prev if f.name in ("input_id", "input1_id", "query_id") else constant([8])
            elif hint is float:
                fields[f.name] = 1.0
            elif typing.get_origin(hint) in (list, typing.List):
                fields[f.name] = [1, 1]
            else:
                fields[f.name] = 1
        outs = [f.name for f in dataclasses.fields(cls) if f.name.startswith("output")]
        last = i == nodes - 1
        for name in outs:
            fields[name] = value([1, 8], ext=1 if last and name == outs[0] else 0xFFFFFFFF,
                                 flags=2 if last and name == outs[0] else 0)
        node = cls(**fields)
        made.append(node)
        xnodes.append(s.XNode(node, debug_handle=i))
        prev = fields[outs[0]]
    graph = s.XNNGraph("0", xnodes, values, 2, [first], [prev], constants)
    return serialize_xnnpack_binary(graph, bytearray()), made


_OURS = """
import sys, time
from explorer.format.backends.xnnpack import decode_xnnpack
data = open(sys.argv[1], 'rb').read()
t = time.perf_counter(); g = decode_xnnpack(data); decoded = time.perf_counter() - t
n = sum(len(x.inputs) for x in g.nodes) + sum(len(v.dims) for v in g.values)  # every object made
print(decoded, time.perf_counter() - t, len(g.nodes))
"""


def _time_ours(path: str) -> tuple[float, float]:
    """(decode, decode + every node and value object made), seconds."""
    out = subprocess.run([sys.executable, "-c", _OURS, path], capture_output=True, text=True, check=True, cwd=ROOT)
    decoded, everything, _ = out.stdout.split()
    return float(decoded), float(everything)


def _time_flatc(path: str, tmp: str) -> float:
    sys.path.insert(0, str(ROOT / "scripts"))
    import gen_bindings
    import time

    data = Path(path).read_bytes()
    start, size = int.from_bytes(data[10:14], "little"), int.from_bytes(data[14:18], "little")
    fb = Path(tmp) / "graph.bin"
    fb.write_bytes(data[start:start + size])
    cmd = [gen_bindings.find_flatc(), "--json", "--strict-json", "--raw-binary", "-o", tmp,
           str(ROOT / "schema" / "xnnpack_schema.fbs"), "--", str(fb)]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    print("| payload | bytes | decode_xnnpack | + every node/value object | flatc --json | flatc / decode | "
          "flatc / (decode + objects) |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.nodes:
            payload, _ = build_payload(n)
            path = os.path.join(tmp, f"x{n}.bin")
            Path(path).write_bytes(payload)
            ours, full, flatc = [], [], []
            for _ in range(args.runs):  # interleaved, so both see the same machine load
                a, b = _time_ours(path)
                ours.append(a)
                full.append(b)
                flatc.append(_time_flatc(path, tmp))
            ours, full, flatc = (statistics.median(x) for x in (ours, full, flatc))
            print(f"| {n:,} nodes | {len(payload):,} | {ours * 1000:.1f} ms | {full * 1000:.1f} ms | "
                  f"{flatc * 1000:.0f} ms | {flatc / ours:.1f}x | {flatc / full:.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
