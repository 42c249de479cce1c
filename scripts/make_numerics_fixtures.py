"""Make the numerics corpus under ``tests/fixtures/numerics/``: real exports run by executorch with a debug buffer.

    python scripts/make_numerics_fixtures.py           # export, run, write every file and the README
    python scripts/make_numerics_fixtures.py --check   # do it again in memory; exit 1 if anything that must
                                                       # not change differs

Five small models (below), each exported three ways — ``portable`` (``to_edge``), ``xnnpack``
(``to_edge_transform_and_lower`` with ``XnnpackPartitioner``) and ``qxnnpack`` (pt2e int8 with
``XNNPACKQuantizer``, then the same lowering) — with ``generate_etrecord=True``. Each program is run once by
executorch's runtime (``Runtime.get().load_program(pte, enable_etdump=True, debug_buffer_size=N)``,
``execute``, ``write_etdump_result_to_file(etdp, bin)``), inputs from ``torch.manual_seed(0)``. ``N`` is what the
run needs: a first run with a large buffer measures the bytes used (the last tensor's end plus 64 per tensor for
the alignment, which depends on the buffer's address), rounded up to 256; the run written is a second one with
that size. Per program: ``.pte``, ``.etrecord`` (stack-trace paths made machine-independent, as
``make_etrecord_fixtures.py`` does), ``.etdp`` and ``.bin``.

``--check`` compares the ``.pte`` bytes, the ETRecords' deterministic members, and of each run what must not
change: the debug events (instruction, dtype, shape) and every logged tensor's values. The ``.bin`` bytes
themselves are not compared: tensor offsets shift with the buffer's address from one process to the next.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "numerics"
sys.path.insert(0, str(ROOT))

VARIANTS = ("portable", "xnnpack", "qxnnpack")
# XNNPACK refuses the quantized ``diverge`` at load (``XNNCompiler::compileModel failed: 0x1``, its 1e4-sized int8
# weights after a portable cumsum), so that model has no qxnnpack run.
SKIP = {("diverge", "qxnnpack")}


def _etrecord_script():
    spec = importlib.util.spec_from_file_location("_make_etrecord", ROOT / "scripts" / "make_etrecord_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------------
# Models (made inside a function so importing this script needs no torch). Moving these lines changes the
# ETRecords' source lines: keep them where they are.
# --------------------------------------------------------------------------------------------------

def _models():
    import torch

    class MLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = torch.nn.Linear(8, 16)
            self.fc2 = torch.nn.Linear(16, 4)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    class ConvBN(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)
            self.bn = torch.nn.BatchNorm2d(4)
            self.fc = torch.nn.Linear(4 * 4 * 4, 5)

        def forward(self, x):
            return self.fc(torch.relu(self.bn(self.conv(x))).reshape(1, -1))

    class Attention(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.q = torch.nn.Linear(8, 8)
            self.k = torch.nn.Linear(8, 8)
            self.v = torch.nn.Linear(8, 8)
            self.out = torch.nn.Linear(8, 8)

        def forward(self, x):
            w = torch.softmax(torch.matmul(self.q(x), self.k(x).transpose(1, 2)) * 0.35, -1)
            return self.out(torch.matmul(w, self.v(x)))

    class NonFinite(torch.nn.Module):
        """exp of a large activation overflows to +Inf; Inf - Inf is NaN: both made midway, on purpose (the run's input is
        3x the export's, so quantization calibrates on finite ranges)."""

        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 6)
            self.head = torch.nn.Linear(6, 3)

        def forward(self, x):
            h = torch.exp(self.fc(x) * 60.0)
            return self.head(torch.relu(h - h * 0.5) - h)

    class Diverge(torch.nn.Module):
        """cumsum (portable everywhere), then a Linear whose terms cancel (1e4-sized products summing to ~1): fp32
        accumulation order decides the answer, so XNNPACK's GEMM parts from portable's addmm inside the delegate."""

        def __init__(self) -> None:
            super().__init__()
            self.big = torch.nn.Linear(16, 8)
            self.fc = torch.nn.Linear(8, 4)
            with torch.no_grad():
                g = torch.Generator().manual_seed(1)
                w = torch.randn(8, 16, generator=g) * 1e4
                w[:, 8:] = -w[:, :8]  # column j + 8 cancels column j for inputs with x[j] == x[j + 8]
                self.big.weight.copy_(w + torch.randn(8, 16, generator=g))
                self.big.bias.zero_()

        def forward(self, x):
            s = torch.cumsum(x, 1)
            return torch.cumsum(self.fc(torch.relu(self.big(s))), 1)

    return {"mlp": (MLP, (2, 8), 1.0), "convbn": (ConvBN, (1, 3, 6, 6), 1.0), "attention": (Attention, (1, 4, 8), 1.0),
            "nonfinite": (NonFinite, (2, 4), 1.0), "diverge": (Diverge, (1, 16), 1.0)}


def _inputs(name: str, shape, scale: float):
    import torch

    torch.manual_seed(0)
    x = torch.randn(*shape) * scale
    if name == "diverge":  # an x whose cumsum is (u, u): column j + 8 of the big Linear cancels column j
        u = torch.randn(8)
        s = torch.cat([u, u]).reshape(1, 16)
        x = s.clone()
        x[:, 1:] = s[:, 1:] - s[:, :-1]
    return (x,)


def export(name: str, variant: str):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge, to_edge_transform_and_lower

    model_cls, shape, scale = _models()[name]
    torch.manual_seed(0)
    model = model_cls().eval()
    example = _inputs(name, shape, scale)
    run_with = (example[0] * 3,) if name == "nonfinite" else example
    if variant == "portable":
        return to_edge(torch.export.export(model, example), generate_etrecord=True).to_executorch(), run_with
    module = model
    if variant == "qxnnpack":
        import executorch.kernels.quantized  # noqa: F401  (registers quantized_decomposed out variants)
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                             get_symmetric_quantization_config)
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

        gm = torch.export.export(model, example).module()
        gm = prepare_pt2e(gm, XNNPACKQuantizer().set_global(get_symmetric_quantization_config()))
        gm(*example)
        module = convert_pt2e(gm)
    edge = to_edge_transform_and_lower(torch.export.export(module, example), partitioner=[XnnpackPartitioner()],
                                       generate_etrecord=True)
    return edge.to_executorch(), run_with


def run(pte: bytes, example, size: int) -> tuple[bytes, bytes]:
    """Run ``pte`` once with executorch's runtime and a debug buffer of ``size`` bytes: (ETDump, debug buffer)."""
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte, enable_etdump=True, debug_buffer_size=size)
    program.load_method("forward").execute(list(example))
    with tempfile.TemporaryDirectory() as tmp:
        etdp, bin_ = Path(tmp) / "run.etdp", Path(tmp) / "run.bin"
        program.write_etdump_result_to_file(str(etdp), str(bin_))
        return etdp.read_bytes(), bin_.read_bytes()


def needed(etdp: bytes) -> int:
    """The buffer a run needs: the last logged tensor's end + 64 per tensor (alignment), rounded up to 256."""
    from explorer.format.companions.etdump import load_etdump
    from explorer.format.companions.debug_buffer import NUMPY_DTYPES
    import numpy as np

    end, count = 0, 0
    for r in load_etdump(etdp).runs:
        for e in r.debug_events:
            for t in (e.entry.tensors if e.entry else ()):
                n = int(np.prod(t.sizes)) * np.dtype(NUMPY_DTYPES.get(t.scalar_type, "<u1")).itemsize
                end, count = max(end, t.offset + n), count + 1
    return -(-(end + 64 * count) // 256) * 256


def build(only: str | None = None) -> dict[str, bytes]:
    etr = _etrecord_script()
    files: dict[str, bytes] = {}
    rows = []
    for name in _models():
        if only is not None and name != only:
            rows.extend(line for line in _old_rows() if line.startswith(f"| `{name}_"))
            continue
        for variant in VARIANTS:
            if (name, variant) in SKIP:
                continue
            manager, example = export(name, variant)
            pte = manager.buffer
            probe, _ = run(pte, example, 1 << 20)
            size = needed(probe)
            etdp, bin_ = run(pte, example, size)
            stem = f"{name}_{variant}"
            files[f"{stem}.pte"] = pte
            files[f"{stem}.etrecord"] = etr.etrecord_bytes(manager)
            files[f"{stem}.etdp"] = etdp
            files[f"{stem}.bin"] = bin_
            rows.append(f"| `{stem}` | {len(pte):,} | {len(etdp):,} | {len(bin_):,} |")
    files["README.md"] = README.format(rows="\n".join(rows)).encode()
    return files


def run_signature(etdp: bytes, bin_: bytes) -> list:
    """What must not change between two runs of one program: the debug events and the values they logged."""
    import numpy as np
    from explorer.format.companions.etdump import load_etdump
    from explorer.format.companions.debug_buffer import read_tensor

    out = []
    for r in load_etdump(etdp).runs:
        for e in r.debug_events:
            entry = e.entry
            tensors = entry.tensors if entry else ()
            out.append((e.chain_index, e.instruction_id, entry.kind if entry else None,
                        [(t.scalar_type, t.sizes, None if (a := read_tensor(memoryview(bin_), t)) is None
                          else np.asarray(a).tobytes()) for t in tensors]))
    return out


def _old_rows() -> list[str]:
    path = OUT / "README.md"
    return [line for line in path.read_text().splitlines() if line.startswith("| `")] if path.exists() else []


README = """# Numerics corpus

Real exports and runs made by `scripts/make_numerics_fixtures.py` with executorch 1.5.1 (**generated — do not edit
by hand**; `--check` makes them again and compares). Five models (`mlp`; `convbn`, a conv with batchnorm; `attention`;
`nonfinite`, which makes +Inf and NaN midway on purpose; `diverge`, whose delegated Linear cancels 1e4-sized terms so
that XNNPACK and portable kernels part), each `portable`, `xnnpack` and `qxnnpack` (pt2e int8; not `diverge`, which XNNPACK refuses to load quantized). Per program: the
`.pte`, its `.etrecord`, the `.etdp` of one run with a debug buffer and that buffer (`.bin`, as big as the run needed).

| program | .pte bytes | .etdp bytes | .bin bytes |
|---|---|---|---|
{rows}
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="make everything in memory and compare with the files")
    parser.add_argument("--only", metavar="MODEL", help="make only this model's files (the others stay)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    files = build(args.only)
    if not args.check:
        OUT.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (OUT / name).write_bytes(data)
            print(f"wrote {OUT / name} ({len(data):,} bytes)")
        return 0
    etr = _etrecord_script()
    bad = 0
    for name, data in files.items():
        path = OUT / name
        if not path.exists():
            print(f"missing: {path}")
            bad += 1
            continue
        old = path.read_bytes()
        if name.endswith(".etrecord"):
            same = etr.stable_members(old) == etr.stable_members(data)
        elif name.endswith(".etdp"):
            stem = name[:-5]
            same = run_signature(old, (OUT / f"{stem}.bin").read_bytes()) == \
                run_signature(data, files[f"{stem}.bin"])
        elif name.endswith(".bin") or name == "README.md":
            same = True  # compared through the .etdp (values, not offsets); sizes may differ by alignment
        else:
            same = old == data
        if not same:
            print(f"differs: {path}")
            bad += 1
    print("all fixtures match" if not bad else f"{bad} fixture(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
