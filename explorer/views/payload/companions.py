"""What a plan points at, for the browser app: external tensors' data file and key, delegate payloads and
the subgraphs inside delegate calls (laid out, coloured by the delegate's device, joined to the outer
tensors), as payload data and as details-panel fragments.

:func:`add_to_plan_payload` is the one entry point: given a plan's payload dict (with ``details`` ``v``/``i``
HTML per tensor/instruction and ``totals`` HTML), it appends the companion rows to those fragments and
adds a ``companions`` key the frontend's delegate expansion draws from (``frontend/panels/delegate.js``)::

    {"rows": {"v"|"i": {"<index>": HTML}} (big plans only, whose details are made in the browser),
     "external": {"<value index>": [file, key]},
     "externalBytes": [[device, bytes, tensors]],
     "delegates": [{"instruction", "delegate", "backend", "device", "color", "format", "size", "storage",
                    "magic", "error", "graph": null | {"op": [..], "in": [[ids]], "out": [[ids]],
                    "depth": [..], "col": [..], "width": n, "values": {"id", "label", "kind"},
                    "bindIn": [[id, outer value]], "bindOut": [[id, outer value]]}}]}

Strings that come from the file (keys, backend ids) are data here: the frontend escapes them, and the
HTML fragments made here escape them with :func:`~.escape.html_text`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from explorer.analysis.companions import (ExternalLink, external_bytes_by_device, external_links, external_tensors,
    payloads)
from explorer.analysis.delegate_graph import DelegateInside, delegate_insides
from explorer.model.columns import instruction_columns
from explorer.model.program import DelegateGraph, Device, Payload, Plan, Program
from explorer.views.escape import html_text as h
from explorer.views.palette import device_style, ordered_devices
from explorer.units import nbytes_text

__all__ = ["CompanionView", "companion_view", "add_to_plan_payload", "subgraph_layout", "value_rows",
           "instruction_rows", "external_table"]

_KEYS_SHOWN = 8
_INSIDES = 500  # delegate calls whose inside the payload carries (each a small graph)
_ROWS = 5000  # details rows sent with a plan, per kind (the app writes the rest of the details itself)


@dataclass(frozen=True)
class CompanionView:
    """Everything about one plan's companions the views need, computed once."""

    links: dict[int, ExternalLink]  # value index -> where its bytes are (supplied data files only)
    linked: bool  # data files were supplied (so an unlinked external tensor is missing, not unknown)
    payloads: tuple[Payload, ...]  # per delegate, in delegate order
    insides: tuple[DelegateInside, ...]  # per delegate call with a decoded subgraph, run order
    external_bytes: dict[Device, int]
    external_counts: dict[Device, int]

    @cached_property
    def bindings(self) -> dict[int, list[tuple[str, DelegateInside, int]]]:
        """Outer value -> (input|output, delegate call, subgraph value id) for each call binding it."""
        out: dict[int, list] = {}
        for x in self.insides:
            for role, pairs in (("input", x.inputs), ("output", x.outputs)):
                for vid, outer in pairs:
                    out.setdefault(outer, []).append((role, x, vid))
        return out

    @cached_property
    def by_instruction(self) -> dict[int, DelegateInside]:
        return {x.instruction: x for x in self.insides}

    @property
    def bound(self) -> set[int]:
        """Outer values a delegate call binds to its subgraph's inputs or outputs."""
        return set(self.bindings)


def companion_view(program: Program, plan: Plan, found: dict[str, tuple[Payload, ...]] | None = None) -> CompanionView:
    items = (payloads(program) if found is None else found).get(plan.name, ())
    counts = Counter(t.device for t in external_tensors(plan))
    return CompanionView(external_links(program, plan), program.data_files is not None, items,
                         tuple(delegate_insides(plan, items)), external_bytes_by_device(plan), dict(counts))


def subgraph_layout(graph: DelegateGraph) -> tuple[list[int], list[int], int]:
    """(depth, column, widest layer) per node: depth = longest chain of producers before it, columns
    numbered within each depth in node order — a small layered layout for a delegate's inside."""
    producer: dict[int, int] = {}
    depth: list[int] = []
    for n in graph.nodes:
        d = 0
        for v in n.inputs:
            k = producer.get(v)
            if k is not None and depth[k] + 1 > d:
                d = depth[k] + 1
        depth.append(d)
        for v in n.outputs:
            producer[v] = n.index
    used: Counter = Counter()
    column = []
    for d in depth:
        column.append(used[d])
        used[d] += 1
    return depth, column, max(used.values(), default=0)


def _graph_payload(inside: DelegateInside) -> dict:
    g = inside.graph
    depth, column, width = subgraph_layout(g)
    return {"op": [n.op for n in g.nodes], "in": [list(n.inputs) for n in g.nodes],
            "out": [list(n.outputs) for n in g.nodes], "depth": depth, "col": column, "width": width,
            "values": {"id": [v.id for v in g.values],
                       "label": [f"{v.dtype}[{','.join(str(d) for d in v.dims)}]" for v in g.values],
                       "kind": [v.kind for v in g.values]},
            "bindIn": [list(p) for p in inside.inputs], "bindOut": [list(p) for p in inside.outputs]}


def add_to_plan_payload(doc: dict, program: Program, plan: Plan, cv: CompanionView | None = None) -> dict:
    """Append the external-tensor table to ``doc["totals"]`` and add ``doc["companions"]``: the decoded insides
    of delegate calls and the details rows the app appends to a tensor's or a delegate call's details."""
    cv = companion_view(program, plan) if cv is None else cv
    table = external_table(cv)
    if table and "totals" in doc:
        doc["totals"] = doc["totals"] + table
    delegates = []  # only calls whose inside decoded: what the expansion draws (9,999 calls of an
    for inside in cv.insides[:_INSIDES]:  # unknown backend add nothing to the payload)
        p = cv.payloads[inside.delegate]
        delegates.append({"instruction": inside.instruction, "delegate": p.delegate, "backend": p.backend,
                          "device": str(inside.device), "color": device_style(inside.device).color,
                          "format": p.format, "size": p.size, "storage": p.storage, "magic": p.magic, "error": p.error,
                          "graph": _graph_payload(inside)})
    values = sorted({t.index for t in external_tensors(plan)} | cv.bound)[:_ROWS]
    calls = np.flatnonzero(instruction_columns(plan).kind == 2)[:_ROWS].tolist()  # every delegate call
    rows = {"v": {str(v): _append_rows("", r) for v in values for r in [value_rows(cv, plan, v)] if r},
            "i": {str(i): _append_rows("", r) for i in calls for r in [instruction_rows(cv, plan, i)] if r}}
    doc["companions"] = {
        "rows": rows,
        "external": {str(k): [link.file, link.key] for k, link in cv.links.items()},
        "externalBytes": [[str(d), cv.external_bytes[d], cv.external_counts.get(d, 0)]
                          for d in ordered_devices(cv.external_bytes)],
        "delegates": delegates,
    }
    return doc


def _append_rows(html: str, rows: list[tuple[str, str]]) -> str:
    table = "<table class='dx-kv dx-companion'>" + "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows) + \
        "</table>"
    # inside the fragment's outer wrapper when it has one, so the rows keep its styles
    return html[:-len("</div>")] + table + "</div>" if html.endswith("</div>") else html + table


def value_rows(cv: CompanionView, plan: Plan, index: int) -> list[tuple[str, str]]:
    """Details rows for a tensor: where an external tensor's bytes are; which delegate subgraph value it is."""
    rows = []
    value = plan.value(index)
    if getattr(value, "storage", None) == "external":
        link = cv.links.get(index)
        if link is not None:
            where = f" · {h(nbytes_text(link.nbytes))} at byte {link.offset:,}" if link.offset is not None else ""
            rows.append(("stored in", f"<span class='dx-code'>{h(link.file)}</span> · key "
                                      f"<span class='dx-code'>{h(link.key)}</span>{where}"))
        elif cv.linked:
            rows.append(("stored in", "<span class='dx-sev-error'>in none of the data files given</span>"))
        else:
            rows.append(("stored in", "an external data file (.ptd), not given: "
                                      "<span class='dx-code'>--data FILE</span> / <span class='dx-code'>data=[...]</span>"))
    for role, x, vid in cv.bindings.get(index, ()):
        rows.append((f"delegate {role}", f"#{x.instruction} <span class='dx-code'>{h(x.backend)}</span> "
                                         f"subgraph value {vid}"))
    return rows


def instruction_rows(cv: CompanionView, plan: Plan, index: int) -> list[tuple[str, str]]:
    """Details rows for a delegate call: its payload, the subgraph inside, named data it uses."""
    if not 0 <= index < len(plan.instructions):
        return []
    ins = plan.instructions[index]
    if ins.kind != "DelegateCall" or ins.delegate_index is None or not 0 <= ins.delegate_index < len(cv.payloads):
        return []
    p = cv.payloads[ins.delegate_index]
    magic = f" · magic <span class='dx-code'>{h(p.magic)}</span>" if p.magic else ""
    rows = [("payload", f"{h(p.format)} · {h(nbytes_text(p.size))} {h(p.storage)}{magic}")]
    rows.extend((h(label), h(text)) for label, text in p.header)  # a Vela / VGF / Core ML / QNN header
    inside = cv.by_instruction.get(index)
    if inside is not None:
        g = inside.graph
        ops = Counter(n.op for n in g.nodes)
        text = ", ".join(f"{n} {op}" for op, n in ops.most_common())
        rows.append(("inside", f"{len(g.nodes)} nodes ({h(text)}) · {len(g.values)} values · constants "
                               f"{h(nbytes_text(g.constant_bytes))} · runs on {h(inside.device)} "
                               + "<span class='dx-muted'>(a click on the delegate in the graph opens or closes it)</span>"))
        if inside.problem:
            rows.append(("problem", h(inside.problem)))
    if p.named_keys:
        keys = [f"<span class='dx-code'>{h(k if len(k) <= 44 else k[:43] + '…')}</span>" for k in p.named_keys[:_KEYS_SHOWN]]
        more = f" … and {len(p.named_keys) - _KEYS_SHOWN} more" if len(p.named_keys) > _KEYS_SHOWN else ""
        rows.append(("named data", "<br>".join(keys) + more))
    if p.error:
        rows.append(("does not decode", f"<span class='dx-sev-error'>{h(p.error)}</span>"))
    return rows


def external_table(cv: CompanionView) -> str:
    """Per-device bytes of external tensors: counted apart (in no arena and not in the program file)."""
    if not cv.external_bytes:
        return ""
    files = sorted({link.file for link in cv.links.values()})
    where = ", ".join(h(f) for f in files) if files else ("none of the data files given" if cv.linked else "not given")
    rows = "".join(f"<tr><td>{_dot(d)}</td><td>{cv.external_counts.get(d, 0)}</td><td>{h(nbytes_text(n))}</td></tr>"
                   for d, n in ((d, cv.external_bytes[d]) for d in ordered_devices(cv.external_bytes)))
    return (f"<div class='dx-root'><table class='dx-tot dx-external'><tr><th>external</th><th>tensors</th>"
            f"<th>bytes</th></tr>{rows}</table><span class='dx-muted'>in data files ({where}): in no arena and "
            f"not in the program file</span></div>")


def _dot(device: Device) -> str:
    return f"<span class='dx-sw' style='background-color:{device_style(device).color}'></span>{h(device)}"
