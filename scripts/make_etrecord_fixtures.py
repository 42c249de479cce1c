"""Make the ETRecord fixtures under ``tests/fixtures/etrecord/``: real exports with executorch 1.5.1.

    python scripts/make_etrecord_fixtures.py           # write every .pte, .etrecord, .etdp and the README
    python scripts/make_etrecord_fixtures.py --check   # export again in memory; exit 1 if any differs

Each model is exported with ``generate_etrecord=True`` (``to_edge`` or ``to_edge_transform_and_lower``),
the program saved from ``manager.buffer`` and its ETRecord from ``manager.get_etrecord().save(...)`` —
executorch's own writer, untouched except that the source paths in the nodes' ``stack_trace`` are made
machine-independent first (``<site-packages>/...``, paths inside this repository relative to it), so the
fixtures do not depend on where the repository or the virtualenv live. Every program is then run with
executorch's runtime (pybindings, ``enable_etdump=True``) to get an ETDump of it, which the interop tests
hand to executorch's ``Inspector`` together with the ETRecord.

What ``--check`` compares: the ``.pte`` bytes, and every JSON member of the ETRecord that executorch
writes deterministically — ``debug_handle_map``, ``delegate_map``, ``instruction_id_to_num_outs_map`` and,
of each exported program's nodes, name, target and the metadata we read (``debug_handle``,
``nn_module_stack``, ``stack_trace``). Left out: ``from_node`` and ``export_graph_id`` (they hold Python
``id()`` values, new on every run), the torch.save members (their pickles hold the same ids) and the
ETDumps' times (see ``make_etdump_fixtures.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "etrecord"
RUNS = 3
JSON_MEMBERS = ("debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map")


def _make_fixtures_module():
    spec = importlib.util.spec_from_file_location("_make_fixtures", ROOT / "scripts" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------------
# Models (made inside a function so importing this script needs no torch).
# --------------------------------------------------------------------------------------------------

def _models():
    import torch

    class Block(torch.nn.Module):
        def __init__(self, width: int) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(width, width)
            self.act = torch.nn.ReLU()

        def forward(self, x):
            return self.act(self.lin(x))

    class Net(torch.nn.Module):
        """Two Blocks in a ModuleList, a Linear head, softmax + 1: nested module names."""

        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList([Block(4), Block(4)])
            self.head = torch.nn.Linear(4, 3)

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return torch.softmax(self.head(x), -1) + 1

    class Split(torch.nn.Module):
        """encoder Block -> cumsum (XNNPACK has no cumsum) -> decoder Block: two XNNPACK delegates."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = Block(4)
            self.decoder = Block(4)

        def forward(self, x):
            return self.decoder(torch.cumsum(self.encoder(x), 1))

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = torch.nn.Linear(4, 2)

        def forward(self, x):
            return torch.tanh(self.proj(x))

    class Decoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.out = Block(2)

        def forward(self, z):
            return torch.sigmoid(self.out(z)) * 2

    return Net, Split, Encoder, Decoder


def _portable(model, inputs):
    import torch
    from executorch.exir import to_edge

    return to_edge(torch.export.export(model, inputs), generate_etrecord=True)


def _xnnpack(model, inputs):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    return to_edge_transform_and_lower(torch.export.export(model, inputs), partitioner=[XnnpackPartitioner()],
                                       generate_etrecord=True)


def export_all() -> dict[str, tuple]:
    """name -> (manager, runs [(method, input shapes)], description)."""
    import torch
    from executorch.exir import to_edge

    Net, Split, Encoder, Decoder = _models()
    out = {}
    torch.manual_seed(0)
    out["net"] = (_portable(Net().eval(), (torch.randn(2, 4),)).to_executorch(), [("forward", [(2, 4)])],
                  "Net (layers.0/1 Blocks of Linear+ReLU, head Linear, softmax + 1), portable kernels")
    torch.manual_seed(0)
    out["net_xnnpack"] = (_xnnpack(Net().eval(), (torch.randn(2, 4),)).to_executorch(), [("forward", [(2, 4)])],
                          "the same Net lowered with XnnpackPartitioner: one delegate + portable kernels")
    torch.manual_seed(0)
    out["split_xnnpack"] = (_xnnpack(Split().eval(), (torch.randn(2, 4),)).to_executorch(), [("forward", [(2, 4)])],
                            "encoder Block, cumsum, decoder Block with XnnpackPartitioner: two delegates "
                            "around a portable cumsum")
    torch.manual_seed(0)
    enc = torch.export.export(Encoder().eval(), (torch.randn(1, 4),))
    dec = torch.export.export(Decoder().eval(), (torch.randn(1, 2),))
    two = to_edge({"encode": enc, "forward": dec}, generate_etrecord=True).to_executorch()
    out["two_methods"] = (two, [("encode", [(1, 4)]), ("forward", [(1, 2)])],
                          "encode: Linear(4,2)+tanh; forward: Block(2)+sigmoid*2 — two methods in one ETRecord")
    return out


def etrecord_bytes(manager) -> bytes:
    """The manager's ETRecord saved by executorch, with the stack traces' paths made portable."""
    record = manager.get_etrecord()
    prefixes = _make_fixtures_module()._portable_prefixes()
    programs = record.edge_dialect_program
    programs = list(programs.values()) if isinstance(programs, dict) else [programs]
    if record.exported_program is not None:
        programs.append(record.exported_program)
    for ep in programs:
        for node in ep.graph_module.graph.nodes:
            trace = node.meta.get("stack_trace")
            if trace:
                for old, new in prefixes:
                    trace = trace.replace(old, new)
                node.meta["stack_trace"] = trace
    buf = io.BytesIO()
    record.save(buf)
    return buf.getvalue()


def run_etdump(pte: bytes, calls) -> bytes:
    """Run ``pte`` with executorch's runtime RUNS times per method; the ETDump it writes."""
    import torch
    from executorch.extension.pybindings import portable_lib as pl

    torch.manual_seed(0)
    module = pl._load_for_executorch_from_buffer(pte, enable_etdump=True, debug_buffer_size=0)
    for _ in range(RUNS):
        for method, shapes in calls:
            module.run_method(method, [torch.randn(*s) for s in shapes])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.etdp"
        module.write_etdump_result_to_file(str(path), str(Path(tmp) / "debug.bin"))
        return path.read_bytes()


def stable_members(data: bytes) -> dict:
    """What ``--check`` compares of an ETRecord (see the module docstring)."""
    out = {}
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in sorted(z.namelist()):
            if name in JSON_MEMBERS:
                out[name] = json.loads(z.read(name))
            elif (name.startswith("edge_dialect_exported_program") or name == "exported_program") and \
                    not name.endswith(("_state_dict", "_constants", "_example_inputs")):
                graph = json.loads(z.read(name))["graph_module"]["graph"]
                out[name] = [[n["name"], n["target"], {k: v for k, v in n.get("metadata", {}).items()
                                                       if k in ("debug_handle", "nn_module_stack", "stack_trace")}]
                             for n in graph["nodes"]]
            else:
                out[name] = None  # present (contents not compared)
    return out


def etdump_signature(data: bytes) -> list:
    sys.path.insert(0, str(ROOT))
    from explorer.format.companions.etdump import load_etdump

    dump = load_etdump(data)
    return [(r.name, [(e.name, e.chain_index, e.instruction_id, e.delegate_debug_id_int, e.delegate_debug_id_str)
                      for e in r.profile_events]) for r in dump.runs]


def build() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    rows = []
    for name, (manager, calls, what) in export_all().items():
        pte = manager.buffer
        files[f"{name}.pte"] = pte
        files[f"{name}.etrecord"] = etrecord_bytes(manager)
        files[f"{name}.etdp"] = run_etdump(pte, calls)
        rows.append(f"| `{name}` | {what} | {len(pte):,} | {len(files[f'{name}.etrecord']):,} |")
    files["README.md"] = README.format(rows="\n".join(rows)).encode()
    return files


README = """# ETRecord fixtures

Real exports made by `scripts/make_etrecord_fixtures.py` with executorch 1.5.1 (`generate_etrecord=True`;
**generated — do not edit by hand**; `--check` exports again and compares). For each model: the program
(`.pte`), its ETRecord (`.etrecord`, executorch's own writer; stack-trace paths made machine-independent) and
an ETDump of a few runs with executorch's runtime (`.etdp`, for comparing our join with executorch's
`Inspector`). The ETRecords keep their torch.save members (state dict, constants, example inputs): executorch's
`parse_etrecord` reads them, and they are small here.

| name | model | .pte bytes | .etrecord bytes |
|---|---|---|---|
{rows}
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="export in memory and compare with the files")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    files = build()
    if not args.check:
        OUT.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (OUT / name).write_bytes(data)
            print(f"wrote {OUT / name} ({len(data):,} bytes)")
        return 0
    bad = 0
    for name, data in files.items():
        path = OUT / name
        if not path.exists():
            print(f"missing: {path}")
            bad += 1
            continue
        old = path.read_bytes()
        if name.endswith(".etrecord"):
            same = stable_members(old) == stable_members(data)
        elif name.endswith(".etdp"):
            same = etdump_signature(old) == etdump_signature(data)
        elif name == "README.md":
            same = True  # sizes of the .etrecord vary with the pickled ids' digits
        else:
            same = old == data
        if not same:
            print(f"differs: {path}")
            bad += 1
    print("all fixtures match" if not bad else f"{bad} fixture(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
