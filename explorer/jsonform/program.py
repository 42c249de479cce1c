"""The JSON contract of ``device-explorer inspect --json`` (README, "JSON"): model -> plain dicts.

Other tools and tests depend on these keys; add keys freely, never change the meaning of one.
Non-finite doubles become the strings ``"nan"``, ``"inf"``, ``"-inf"`` so the output stays valid JSON.
Each plan also carries ``requirements``: what the runtime must provide to run it
(:mod:`explorer.analysis.requirements`).
"""

from __future__ import annotations

import math
import os

import numpy as np

from explorer.model.columns import value_columns
from explorer.model.program import Instruction, Plan, Program, Tensor, Value
from explorer.analysis.requirements import requirements
from explorer.jsonform.companions import add_companions
from explorer.jsonform.etrecord import add_etrecord

__all__ = ["FORMAT", "program_json", "plan_json", "value_json", "instruction_json", "listed_values"]

FORMAT = "device-explorer/1"


def program_json(program: Program, file: str | None = None) -> dict:
    name = file if file is not None else (os.path.basename(program.source) if program.source else None)
    return add_etrecord(add_companions({
        "format": FORMAT,
        "file": name,
        "size": program.size,
        "identifier": program.identifier,
        "version": program.version,
        "extended_header": None if program.header is None else {
            "program_size": program.header.program_size,
            "segment_base_offset": program.header.segment_base_offset,
            "segment_data_size": program.header.segment_data_size,
        },
        "segments": [{"offset": s.offset, "size": s.size} for s in program.segments],
        "named_data": [{"key": n.key, "segment_index": n.segment_index} for n in program.named_data],
        "plans": [plan_json(p) for p in program.plans],
        **({"prediction": {"text": program.prediction.text,
                           "moves": [{"selector": s, "device": d} for s, d in program.prediction.moves]}}
           if program.prediction is not None else {}),
    }, program), program)  # data_files, bundle, external links, delegate payloads and graphs; the ETRecord's keys


def plan_json(plan: Plan) -> dict:
    return {
        "name": plan.name,
        "inputs": list(plan.inputs),
        "outputs": list(plan.outputs),
        "buffers": [{"memory_id": b.memory_id, "size": b.size, "device": str(b.device)} for b in plan.buffers],
        "values": listed_values(plan),
        "instructions": [instruction_json(i) for i in plan.instructions],
        "delegates": [{
            "id": d.id,
            "compile_specs": {s.key: s.text for s in d.compile_specs},
            "location": d.location,
            "data_index": d.data_index,
            "data_size": d.data_size,
            "target_device": None if d.target_device is None else str(d.target_device),
        } for d in plan.delegates],
        "requirements": requirements(plan).to_json(),
    }


def listed_values(plan: Plan) -> list[dict]:
    """The plan's values, each as :func:`value_json`; a table the file lists at several value indices is written once,
    at its first, with ``"listed_at"``: every index that lists it. An executorch export writes a table per value, so
    its JSON is one entry per value; a 9.6 MB file listing one tensor table 2.4M times would be 2.4M dicts, ~600 MB of
    text and minutes (issue 30: work linear in what the file holds)."""
    table = value_columns(plan).table
    n = len(plan.values)
    if table is None or n < 2:
        return [value_json(v) for v in plan.values]
    _, first, inverse = np.unique(table, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if len(first) == n:
        return [value_json(v) for v in plan.values]
    counts = np.bincount(inverse, minlength=len(first))
    order = np.argsort(inverse, kind="stable")  # each table's value indices, ascending, one run per table
    starts = np.concatenate(([0], np.cumsum(counts)))
    out = []
    for k in np.argsort(first, kind="stable").tolist():  # the tables in the order the file first lists them
        entry = value_json(plan.values[int(first[k])])
        if counts[k] > 1:
            entry["listed_at"] = order[starts[k]:starts[k + 1]].tolist()
        out.append(entry)
    return out


def _plain(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, tuple):
        return [_plain(i) for i in x]
    return x


def value_json(v: Tensor | Value) -> dict:
    if isinstance(v, Tensor):
        out = {"index": v.index, "type": "Tensor", "dtype": v.dtype, "sizes": list(v.sizes),
               "device": str(v.device), "memory_id": v.memory_id, "offset": v.offset, "nbytes": v.nbytes,
               "storage": v.storage, "dim_order": list(v.dim_order), "shape_dynamism": v.shape_dynamism}
        if v.name is not None:
            out["name"] = v.name
        if v.data_buffer_idx:
            out["data_buffer_idx"] = v.data_buffer_idx
        return out
    return {"index": v.index, "type": v.type, "value": _plain(v.value)}


def instruction_json(i: Instruction) -> dict:
    out: dict = {"index": i.index, "kind": i.kind}
    if i.kind == "KernelCall":
        out["op"] = i.op
        out["op_index"] = i.op_index
        out["args"] = list(i.args)
    elif i.kind == "DelegateCall":
        out["delegate"] = i.delegate
        out["delegate_index"] = i.delegate_index
        out["args"] = list(i.args)
    elif i.kind == "MoveCall":
        out["move_from"], out["move_to"] = i.move_from, i.move_to
    elif i.kind == "JumpFalseCall":
        out["cond_value_index"], out["destination_instruction"] = i.cond_value_index, i.destination
    elif i.kind == "FreeCall":
        out["value_index"] = i.value_index
    if i.chain:
        out["chain"] = i.chain
    return out
