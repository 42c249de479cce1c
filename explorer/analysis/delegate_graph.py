"""The inside of each delegate call: its decoded subgraph placed on the delegate's device, with the
subgraph's inputs and outputs joined to the outer tensors the call passes.

XNNPACK binds a call's arguments by external id: argument ``k`` is the subgraph value whose
``external_id`` is ``k`` (inputs first, then outputs — the order ``xnnpack_preprocess.py`` assigns
them in); a value without an external id falls back to its position in ``input_ids``/``output_ids``.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.model.program import CPU, DelegateGraph, Device, Payload, Plan

__all__ = ["DelegateInside", "delegate_insides", "bindings"]


@dataclass(frozen=True)
class DelegateInside:
    """One delegate call and the subgraph it runs."""

    instruction: int  # the DelegateCall's index in Plan.instructions
    delegate: int  # Delegate.index
    backend: str
    device: Device  # where the subgraph runs: the delegate's target_device, else cpu
    graph: DelegateGraph
    inputs: tuple[tuple[int, int], ...]  # (subgraph value id, outer value index) for each bound input
    outputs: tuple[tuple[int, int], ...]  # (subgraph value id, outer value index) for each bound output
    problem: str | None = None  # why the call's arguments don't match the subgraph (optional)


def bindings(graph: DelegateGraph, args: tuple[int, ...]):
    """(inputs, outputs, problem): subgraph inputs/outputs paired with the call's argument value indices."""
    by_id = {v.id: v for v in graph.values}
    expected = len(graph.input_ids) + len(graph.output_ids)
    problem = None
    if len(args) != expected:
        problem = (f"the call passes {len(args)} arguments, the subgraph has {len(graph.input_ids)} inputs and "
                   f"{len(graph.output_ids)} outputs")

    def pair(ids, base):
        out = []
        for pos, vid in enumerate(ids):
            ext = by_id[vid].external_id if vid in by_id else None
            k = ext if ext is not None else base + pos
            if 0 <= k < len(args):
                out.append((vid, args[k]))
        return tuple(out)

    return pair(graph.input_ids, 0), pair(graph.output_ids, len(graph.input_ids)), problem


def delegate_insides(plan: Plan, items: tuple[Payload, ...]) -> list[DelegateInside]:
    """Every delegate call of ``plan`` whose payload decoded to a subgraph, in run order."""
    graphs = {p.delegate: p.graph for p in items if p.graph is not None}
    if not graphs:
        return []
    out = []
    for ins in plan.instructions:
        if ins.kind != "DelegateCall" or ins.delegate_index not in graphs:
            continue
        graph = graphs[ins.delegate_index]
        d = plan.delegates[ins.delegate_index]
        inputs, outputs, problem = bindings(graph, ins.args)
        out.append(DelegateInside(ins.index, d.index, d.id, d.target_device or CPU, graph, inputs, outputs,
                                  problem))
    return out
