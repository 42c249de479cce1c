"""Programs carrying Ethos-U, Arm VGF, Core ML and QNN delegate payloads, under ``tests/fixtures/payloads/``.

    python scripts/make_payload_fixtures.py          # (re)write the files
    python scripts/make_payload_fixtures.py --check  # build in memory; exit 1 if any file differs
    python scripts/make_payload_fixtures.py --check --no-real  # only the built ones (no Arm/Core ML tools)

Two are REAL exports by executorch 1.5.1 (``real_ethos_u.pte``: Ethos-U55 through Vela, with the Arm
backend's pinned requirements installed beside the venv, e.g. ``pip install --target DIR ethos-u-vela==5.1.0
tosa-tools==2026.5.0 ml_dtypes==0.5.1`` and ``PYTHONPATH=DIR``; ``real_coreml.pte``: Core ML through
coremltools 9.0, an ML program package). The rest, and everything the VGF and QNN exporters would make
(the ML SDK's model-converter and the QNN SDK are not installable here), are built from the layout the
backend's own code writes, cited in ``explorer/format/backends/headers.py``: ``backends/arm/arm_vela.py``
``vela_compile``; ``src/header.hpp`` of arm/ai-ml-sdk-vgf-library (what ``backends/arm/vgf/backend.py``
stores); ``backends/apple/coreml/compiler/coreml_preprocess.py`` and its ``inmemoryfs``;
``backends/qualcomm/runtime/backends/QnnCustomProtocol.h``. The carrier is a real export,
``tests/fixtures/zoo/xnnpack_mlp.pte`` (one fully delegated call), with its delegate's backend id, compile
specs and blob replaced through our writer; segment 0 stays the empty constant segment executorch 1.5.1
writes for a program whose constants are all inside its delegate. They are seeds of the fuzz campaigns.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "payloads"
ZOO = ROOT / "tests" / "fixtures" / "zoo"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/fixture_io.py
from fixture_io import differing, write_all  # noqa: E402

import explorer  # noqa: E402
from writers.pte import layout_segments, write  # noqa: E402
from explorer.model.program import CompileSpec  # noqa: E402

ETHOS_SPECS = (("output_format", b"vela"), ("compile_flags", b"--accelerator-config=ethos-u55-128"))


def vela_stream(blocks: dict[str, bytes] | None = None, *, external: dict[str, str] | None = None) -> bytes:
    """``vela_compile``'s output: each block a 32-byte header (name, unpadded size, external flag, 11
    reserved) and its data padded to 16 bytes; ``external`` names blocks replaced by a 64-char key."""
    ios = struct.pack("<i", 1) + struct.pack("<9i", 1, 1, 1, 1, 4, 4, 1, 0, 1)
    blocks = blocks if blocks is not None else {
        "vela_bin_stream": b"", "cmd_data": b"COP1" + bytes(60), "weight_data": bytes(100),
        "scratch_size": struct.pack("<I", 4096), "inputs": ios,
        "outputs": struct.pack("<i", 1) + struct.pack("<9i", 1, 1, 1, 1, 1, 3, 1, 16, 1),
        "vela_end_stream": b""}
    out = b""
    for name, data in blocks.items():
        flag = 0
        if external and name in external:
            data, flag = external[name].encode("ascii"), 1
        out += struct.pack("<16sIB11s", name.encode()[:15], len(data), flag, bytes(11))
        out += data + bytes(-len(data) % 16)
    return out


def vgf_file(sections: tuple[tuple[int, int], ...] = ((128, 64), (192, 32), (224, 48), (272, 16)),
             version: tuple[int, int, int] = (0, 4, 0), vk: int = 310, total: int = 288) -> bytes:
    """A VGF header (128 bytes) with four {offset, size} sections, padded to ``total`` bytes."""
    head = b"VGF1" + struct.pack("<HH", vk, 0) + bytes(version) + bytes(5)
    head += b"".join(struct.pack("<QQ", o, s) for o, s in sections) + bytes(48)
    assert len(head) == 128
    return head + bytes(max(0, total - 128))


def qnn_context(binary: bytes = b"\x01" * 40, *, declared: int | None = None, signature: int = 1733289600123) -> bytes:
    """QnnContextCustomProtocol: magic 0x5678ABCD, int64 signature, uint64 size, pad to 256, the binary."""
    head = struct.pack("<IqQ", 0x5678ABCD, signature, len(binary) if declared is None else declared)
    return head + bytes(256 - len(head)) + binary


def coreml_directory(files: dict[str, bytes] | None = None, alignment: int = 64) -> bytes:
    """``flatten_directory_contents``: files' bytes (aligned), then the node tree as JSON, reversed."""
    files = files if files is not None else {
        "metadata.json": json.dumps({"inputNames": ["x"], "outputNames": ["y"],
                                     "identifier": "executorch_1234"}).encode(),
        "model.mlmodelc/coremldata.bin": b"\x07" * 90, "model.mlmodelc/model.mil": b"program(1.0)\n"}
    data, nodes = b"", []
    tree: dict = {}
    for path in files:
        d = tree
        *dirs, leaf = path.split("/")
        for part in dirs:
            d = d.setdefault(part, {})
        d[leaf] = path

    def add(name: str, node) -> int:
        nonlocal data
        if isinstance(node, str):
            data += bytes(-len(data) % alignment)
            nodes.append({"children": {}, "dataRegion": {"offset": len(data), "size": len(files[node])},
                          "kind": 0, "name": name})
            data += files[node]
        else:
            children = {k: add(k, v) for k, v in node.items()}
            nodes.append({"children": children, "dataRegion": {"offset": 0, "size": 0}, "kind": 1, "name": name})
        return len(nodes) - 1

    add("lowered_module", tree)
    data += bytes(-len(data) % alignment)
    return data + json.dumps({"nodes": nodes}, separators=(",", ":")).encode()[::-1]


def program_with_payload(backend: str, payload: bytes, specs: tuple[tuple[str, bytes], ...] = ()) -> bytes:
    """xnnpack_mlp.pte with its one delegate re-labelled ``backend`` and its blob (segment 1) ``payload``;
    segment 0 stays the empty constant segment executorch writes for a program without constants."""
    p = explorer.load(ZOO / "xnnpack_mlp.pte")
    [plan] = p.plans
    [d] = plan.delegates
    d = dataclasses.replace(d, id=backend, compile_specs=tuple(CompileSpec(k, v) for k, v in specs))
    plan = dataclasses.replace(plan, delegates=(d,))
    program = dataclasses.replace(p, plans=(plan,), segments=layout_segments([0, len(payload)]), named_data=())
    return write(program, [b"", payload])


# -- real exports -----------------------------------------------------------------------------------

def _tiny_model():
    import torch

    class Tiny(torch.nn.Module):
        def __init__(self, n_in: int, n_out: int):
            super().__init__()
            self.fc = torch.nn.Linear(n_in, n_out)

        def forward(self, x):
            return torch.relu(self.fc(x))

    return Tiny


def real_ethos_u() -> bytes:
    """A linear + relu quantized with EthosUQuantizer and fully delegated by EthosUPartitioner
    (ethos-u55-128): executorch 1.5.1 with the Arm backend's own requirements (ethos-u-vela 5.1.0,
    tosa-tools 2026.5.0 for ``tosa_serializer``, ml_dtypes 0.5.1; ``backends/arm/requirements-arm-*.txt``).
    Deterministic: the bytes are compared."""
    import torch
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(0)
    x = (torch.randn(1, 8),)
    spec = EthosUCompileSpec("ethos-u55-128")
    quantizer = EthosUQuantizer(spec)
    quantizer.set_global(get_symmetric_quantization_config())
    module = prepare_pt2e(torch.export.export(_tiny_model()(8, 4).eval(), x).module(), quantizer)
    module(*x)
    ep = torch.export.export(convert_pt2e(module), x)
    return bytes(to_edge_transform_and_lower(ep, partitioner=[EthosUPartitioner(spec)]).to_executorch().buffer)


def real_coreml() -> bytes:
    """A linear + relu fully delegated by CoreMLPartitioner as an ML program package (``model_type=MODEL``:
    compiling to ``.mlmodelc`` needs macOS), coremltools 9.0. ``uuid.uuid4`` is made a counter so the
    model identifier repeats; coremltools' own package manifest still carries fresh ids, so ``--check``
    compares the program's flatbuffer and what our reader says of the payload, not its bytes."""
    import itertools
    import uuid

    import coremltools as ct
    import torch
    from executorch.backends.apple.coreml.compiler import CoreMLBackend
    from executorch.backends.apple.coreml.partition import CoreMLPartitioner
    from executorch.exir import to_edge_transform_and_lower

    counter = itertools.count()
    original, uuid.uuid4 = uuid.uuid4, lambda: uuid.UUID(int=next(counter))
    try:
        torch.manual_seed(0)
        ep = torch.export.export(_tiny_model()(4, 3).eval(), (torch.randn(2, 4),))
        specs = CoreMLBackend.generate_compile_specs(model_type=CoreMLBackend.MODEL_TYPE.MODEL,
                                                     minimum_deployment_target=ct.target.iOS16)
        lowered = to_edge_transform_and_lower(ep, partitioner=[CoreMLPartitioner(compile_specs=specs)])
        return bytes(lowered.to_executorch().buffer)
    finally:
        uuid.uuid4 = original


REAL = {"real_ethos_u.pte": real_ethos_u, "real_coreml.pte": real_coreml}


def same_real(name: str, fresh: bytes, committed: bytes) -> bool:
    """Whether a re-export matches the committed file: byte for byte, except Core ML's package ids."""
    if name != "real_coreml.pte":
        return fresh == committed
    from explorer.analysis.companions import payloads

    a, b = explorer.load(fresh), explorer.load(committed)
    if a.header is None or b.header is None or a.header.program_size != b.header.program_size:
        return False
    return fresh[:a.header.program_size] == committed[:b.header.program_size] and payloads(a) == payloads(b)


def build_all() -> dict[str, bytes]:
    """File name -> bytes of every fixture."""
    ref = b"CMJR" + json.dumps({"version": 1, "key": "coreml_model_0", "functionName": "forward"}).encode()
    return {
        "ethos_u.pte": program_with_payload("EthosUBackend", vela_stream(), ETHOS_SPECS),
        "ethos_u_external.pte": program_with_payload("EthosUBackend", vela_stream(external={"weight_data": "ab" * 32}),
                                                     ETHOS_SPECS),
        "vgf.pte": program_with_payload("VgfBackend", vgf_file(), (("output_format", b"vgf"),)),
        "coreml.pte": program_with_payload("CoreMLBackend", coreml_directory()),
        "coreml_reference.pte": program_with_payload("CoreMLBackend", ref),
        "qnn.pte": program_with_payload("QnnBackend", qnn_context()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="build in memory and compare with the files on disk")
    parser.add_argument("--no-real", action="store_true", help="only the payloads built from their layouts "
                                                               "(the real exports need the Arm and Core ML tools)")
    args = parser.parse_args(argv)
    files = build_all()
    real = {} if args.no_real else {n: make() for n, make in REAL.items()}
    if args.check:
        bad = differing(OUT, files)
        for n, data in real.items():  # real exports: compared by what a rebuild may change (same_real)
            if not (OUT / n).exists() or not same_real(n, data, (OUT / n).read_bytes()):
                print(f"differs: {OUT / n}")
                bad.append(n)
        return 1 if bad else 0
    write_all(OUT, {**files, **real})
    return 0


if __name__ == "__main__":
    sys.exit(main())
