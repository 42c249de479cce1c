"""Campaign: every zoo model exported again with an ETRecord; our join checked against executorch's.

    python scripts/check_etrecord_zoo.py            # all zoo builders (a few minutes)
    python scripts/check_etrecord_zoo.py cnn cond   # some of them

For each builder of ``scripts/make_zoo.py`` (``SPECS``), ``to_edge`` / ``to_edge_transform_and_lower`` are
called with ``generate_etrecord=True`` and the ETRecord of the program the builder returns is saved in
memory with executorch's ``ETRecord.save``. Then, with our reader (no torch):

1. the ETRecord must join its own program with no refusal and no warning — a mismatch reported on a real
   export is a bug in our inference;
2. per method and per instruction the ETRecord maps, the nodes we join must be the nodes executorch's
   Inspector joins: ``parse_etrecord``, ``FXOperatorGraph.gen_operator_graph`` and
   ``create_debug_handle_to_op_node_mapping`` (``devtools/inspector/_inspector_utils.py``), with the handles
   of ``debug_handle_map`` as ``EventBlock._gen_resolve_debug_handles`` takes them for an instruction's event
   — same node names (Inspector adds ``_``), module stacks and stack traces.

Needs the ``interop`` extra. Prints one line per model and a summary; exit 1 when any model fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import sys
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _zoo():
    spec = importlib.util.spec_from_file_location("_make_zoo", ROOT / "scripts" / "make_zoo.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _record_managers():
    """Make every to_edge* call generate an ETRecord and remember each ExecutorchProgramManager made."""
    import executorch.exir as exir
    from executorch.exir.program._program import EdgeProgramManager

    made = []
    for name in ("to_edge", "to_edge_transform_and_lower"):
        real = getattr(exir, name)

        def wrapped(*args, _real=real, **kwargs):
            kwargs.setdefault("generate_etrecord", True)
            return _real(*args, **kwargs)
        setattr(exir, name, wrapped)
    real_to_et = EdgeProgramManager.to_executorch

    def to_executorch(self, *args, **kwargs):
        manager = real_to_et(self, *args, **kwargs)
        made.append(manager)
        return manager
    EdgeProgramManager.to_executorch = to_executorch
    return made


def inspector_nodes(record, method: str) -> dict[int, list]:
    """instruction id -> [(name, module stack, stack trace)] as executorch's Inspector joins them."""
    from executorch.devtools.debug_format.et_schema import FXOperatorGraph
    from executorch.devtools.inspector._inspector_utils import create_debug_handle_to_op_node_mapping

    edge = record.edge_dialect_program
    ep = edge[method] if isinstance(edge, dict) else edge
    mapping = create_debug_handle_to_op_node_mapping(FXOperatorGraph.gen_operator_graph(ep.graph_module))
    out = {}
    for key, handles in record._debug_handle_map[method].items():
        handles = handles if isinstance(handles, list) else [handles]
        nodes: dict[str, tuple] = {}
        for h in handles:
            for node in mapping.get(h, ()):
                meta = node.metadata or {}
                # no module stack: deserialize sets {} ("serialization throws away empty dicts"); we say None
                nodes.setdefault(node.name[:-1], (meta.get("nn_module_stack") or None, meta.get("stack_trace")))
        out[int(key)] = [(n, m, s) for n, (m, s) in nodes.items()]
    return out


def check_one(manager) -> tuple[str, int]:
    import explorer
    from executorch.devtools.etrecord import parse_etrecord

    buf = io.BytesIO()
    try:
        manager.get_etrecord().save(buf)
    except Exception as exc:  # noqa: BLE001 - executorch's own serializer fails (cond/map bodies in 1.5.1)
        return f"executorch cannot save its ETRecord: {type(exc).__name__}: {str(exc)[:90]}", -1
    data = buf.getvalue()
    program = explorer.load(manager.buffer, etrecord=data)  # raises EtrecordMismatch on a refusal
    if program.etrecord.warnings:
        return "warning: " + "; ".join(program.etrecord.warnings), 0
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".etrecord") as tmp:  # parse_etrecord wants a path
        tmp.write(data)
        tmp.flush()
        record = parse_etrecord(tmp.name)
    methods = list(record._debug_handle_map)
    compared = 0
    for method in methods:
        edge = record.edge_dialect_program
        if isinstance(edge, dict) and method not in edge:
            continue
        theirs = inspector_nodes(record, method)
        ctx = program.etrecord.plan(method)
        for i, nodes in theirs.items():
            ours = ctx.at(i)
            got = [(n.name, {f.key: (f.path, f.type) for f in n.modules} or None, n.stack_trace) for n in ours.nodes]
            if got != nodes:
                return f"{method} instruction {i}: ours {[g[0] for g in got]} vs Inspector {[n[0] for n in nodes]}", compared
            compared += 1
    return "ok", compared


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="zoo builders to check (default: all)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    zoo = _zoo()
    made = _record_managers()
    failed = total = instructions = unsaved = 0
    for name, (_what, build) in zoo._specs().items():
        if args.names and name not in args.names:
            continue
        total += 1
        made.clear()
        try:
            export = build()
        except Exception as exc:  # noqa: BLE001 - a model this executorch can't export with an ETRecord
            print(f"{name:28} not exported with an ETRecord: {type(exc).__name__}: {str(exc)[:100]}")
            continue
        manager = next((m for m in reversed(made) if m.buffer == export.pte), None)
        if manager is None:
            print(f"{name:28} skipped: its program was not made by to_executorch() (or was rewritten after)")
            continue
        try:
            verdict, n = check_one(manager)
        except Exception as exc:  # noqa: BLE001 - reported, counted as a failure
            verdict, n = f"error: {type(exc).__name__}: {str(exc)[:300]}", 0
            traceback.print_exc(limit=2)
        if n < 0:
            unsaved += 1
            print(f"{name:28} {verdict}")
            continue
        instructions += n
        failed += verdict != "ok"
        print(f"{name:28} {verdict} ({n} instructions compared)")
    print(f"{total} models, {instructions} instructions compared with Inspector, {failed} failed, "
          f"{unsaved} ETRecord(s) executorch itself could not save")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
