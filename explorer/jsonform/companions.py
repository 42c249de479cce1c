"""The companion keys of the ``device-explorer/1`` JSON form (docs/companions.md describes them):

* top level ``"data_files": [{"file", "size", "version", "entries": [{"key", "dtype", "sizes",
  "dim_order", "segment_index", "offset", "nbytes"}]}]`` (supplied ``.ptd`` files; a ``.ptd`` inspected
  alone is one such object under ``"data_file"``), ``"bundle"`` for a ``.bpte``; an entry or test case whose table
  the file lists again is written once, with ``"listed"``: how many times;
* on a linked external tensor ``"external": {"file", "key"}``;
* on each delegate ``"payload": {"format", "size", "storage", "magic", "named_keys", "error", "compile_specs", "header"}`` and, when
  decoded, ``"graph": {"format": "xnnpack", "nodes": [{"index", "op", "inputs", "outputs"}],
  "values": [{"id", "dtype", "dims", "kind"}], "constant_bytes"}`` with ``op`` the schema's node type name.
"""

from __future__ import annotations

from explorer.model.companions import listed_once
from explorer.model.program import Bundle, DataFile, DelegateGraph, Payload, Program
from explorer.analysis.companions import external_links
from explorer.analysis.companions import payloads

__all__ = ["data_file_json", "bundle_json", "graph_json", "payload_json", "add_companions"]


def data_file_json(data_file: DataFile, file: str | None = None) -> dict:
    return {
        "file": file if file is not None else data_file.name,
        "size": data_file.size,
        "identifier": data_file.identifier,
        "version": data_file.version,
        # a table listed again is one entry with its count (DataFile.listed): a 9.6 MB file listing one entry 2.4M
        # times wrote 338 MB of JSON in 4 minutes
        "entries": [{"key": e.key, "dtype": e.dtype, "sizes": list(e.sizes), "dim_order": list(e.dim_order),
                     "segment_index": e.segment_index, "offset": e.offset, "nbytes": e.nbytes,
                     **({"listed": n} if n > 1 else {})}
                    for e, n in data_file.listed],
    }


def bundle_json(bundle: Bundle) -> dict:
    def value(v) -> dict:
        if v.kind == "Tensor":
            return {"type": "Tensor", "dtype": v.dtype, "sizes": list(v.sizes), "nbytes": v.nbytes}
        return {"type": v.kind, "value": v.value}

    return {"version": bundle.version, "file_size": bundle.file_size, "program_offset": bundle.program_offset, "program_size": bundle.program_size,
            "suites": [{"method": s.method_name, "test_cases": len(s.test_cases),
                        "cases": [{"inputs": [value(v) for v in c.inputs],
                                   "expected_outputs": [value(v) for v in c.expected_outputs],
                                   **({"listed": n} if n > 1 else {})}
                                  for c, n in listed_once(s.test_cases)]} for s in bundle.suites]}


def graph_json(g: DelegateGraph) -> dict:
    return {
        "format": g.format,
        "version": g.version,
        "nodes": [{"index": n.index, "op": n.op, "inputs": list(n.inputs), "outputs": list(n.outputs)}
                  for n in g.nodes],
        "values": [{"id": v.id, "dtype": v.dtype, "dims": list(v.dims), "kind": v.kind,
                    **({"external_id": v.external_id} if v.external_id is not None else {}),
                    **({"constant_bytes": v.constant_bytes} if v.kind == "constant" else {}),
                    **({"constant_key": v.constant_key} if v.constant_key else {}),
                    **({"quantization": v.quantization} if v.quantization else {})} for v in g.values],
        "input_ids": list(g.input_ids),
        "output_ids": list(g.output_ids),
        "constant_bytes": g.constant_bytes,
    }


def payload_json(p: Payload) -> dict:
    return {"format": p.format, "size": p.size, "storage": p.storage, "magic": p.magic,
            "named_keys": list(p.named_keys), "error": p.error,
            "compile_specs": {k: v for k, v in p.compile_specs}, "header": {k: v for k, v in p.header}}


def add_companions(doc: dict, program: Program) -> dict:
    """Add the companion keys to ``program_json``'s document (in place; returned for convenience)."""
    if program.data_files is not None:
        doc["data_files"] = [data_file_json(f) for f in program.data_files]
    if program.bundle is not None:
        doc["bundle"] = bundle_json(program.bundle)
    found = payloads(program)
    for plan_doc, plan in zip(doc["plans"], program.plans):
        links = external_links(program, plan)
        if links:
            for v in plan_doc["values"]:
                link = links.get(v["index"])
                if link is not None:
                    v["external"] = {"file": link.file, "key": link.key}
        for d_doc, p in zip(plan_doc["delegates"], found.get(plan.name, ())):  # (a repeated plan name: same delegates)
            d_doc["payload"] = payload_json(p)
            if p.graph is not None:
                d_doc["graph"] = graph_json(p.graph)
    return doc
