"""Delegate node events -> nodes of the decoded delegate subgraph (the join's ``resolver``).

XNNPACK's runtime names its per-operator events after XNNPACK's own operators, not after the XNodes of the
payload: ``Fully Connected (NC, F32) GEMM #1``, ``#2``... (operator kind, layout and kernel, then an
occurrence number; seen in dumps executorch 1.5.1 wrote here), with no integer debug id. XNNPACK may fuse
nodes (a ReLU into the GEMM before it), so the match is made only where it is unambiguous: the events of
one kind are paired in order with the subgraph's nodes of the matching XNode types **only when the counts
agree**; anything else stays unresolved (``node`` None) rather than guessed. An integer debug id, which
other backends report, is matched to the node with that ``debug_handle`` when exactly one has it.
"""

from __future__ import annotations

import re
from collections import defaultdict

from explorer.model.program import Plan, Program
from explorer.analysis.companions import payloads

__all__ = ["xnnpack_kinds", "subgraph_resolver", "NodeRef"]

# XNNPACK operator kind (the text before " (") -> the XNode types that become such an operator
XNNPACK_KINDS: dict[str, tuple[str, ...]] = {
    "Fully Connected": ("XNNFullyConnected",),
    "Convolution": ("XNNConv2d", "XNNDepthwiseConv2d"),
    "Deconvolution": ("XNNConvTranspose2d",),
    "Add": ("XNNAdd",), "Subtract": ("XNNSubtract",), "Multiply": ("XNNMultiply",), "Divide": ("XNNDiv",),
    "Max Pooling": ("XNNMaxPooling2d",), "Average Pooling": ("XNNAvgPooling2d",),
    "Global Average Pooling": ("XNNGlobalAvgPooling2d",), "Softmax": ("XNNSoftmax",),
    "Sigmoid": ("XNNSigmoid",), "Tanh": ("XNNTanh",), "HardSwish": ("XNNHardswish",),
    "Concatenate": ("XNNConcatenate2", "XNNConcatenate3", "XNNConcatenate4", "XNNConcatenate5"),
    "Transpose": ("XNNStaticTranspose",), "Batch Matrix Multiply": ("XNNBatchMatrixMultiply",),
}
_KIND = re.compile(r"^[^(#]*")
_ORDINAL = re.compile(r"#(\d+)\s*$")


def xnnpack_kinds(debug_id: str) -> tuple[str, int | None]:
    """``"Fully Connected (NC, F32) GEMM #2"`` -> (``"Fully Connected"``, 2)."""
    kind = _KIND.match(debug_id).group(0).strip()
    k = _ORDINAL.search(debug_id)
    return kind, int(k.group(1)) if k else None


class NodeRef(tuple):
    """(delegate index, node index, XNode type, how it was matched)."""

    __slots__ = ()

    def __new__(cls, delegate: int, node: int, op: str, how: str):
        return super().__new__(cls, (delegate, node, op, how))

    @property
    def node(self) -> int:
        return self[1]


def subgraph_resolver(program: Program, plan: Plan, reported: dict[int, list] | None = None):
    """A ``resolver(delegate_index, debug_id)`` for :func:`~.profile.join_profile`, over the decoded delegate
    subgraphs of ``plan``. ``reported``: delegate index -> every debug id its events carry (so counts can be
    compared); without it, string ids are not resolved."""
    graphs = {p.delegate: p.graph for p in payloads(program).get(plan.name, ()) if p.graph is not None}
    by_kind: dict[tuple[int, str], list[str]] = defaultdict(list)  # (delegate, kind) -> ids in report order
    for d, ids in (reported or {}).items():
        for i in ids:
            if isinstance(i, str):
                kind, _ = xnnpack_kinds(i)
                if i not in by_kind[(d, kind)]:
                    by_kind[(d, kind)].append(i)

    def resolve(delegate: int, debug_id):
        graph = graphs.get(delegate)
        if graph is None:
            return None
        if isinstance(debug_id, int):
            hits = [n for n in graph.nodes if n.debug_handle == debug_id]
            return NodeRef(delegate, hits[0].index, hits[0].op, "debug handle") if len(hits) == 1 else None
        kind, _ = xnnpack_kinds(debug_id)
        types = XNNPACK_KINDS.get(kind)
        if not types:
            return None
        nodes = [n for n in graph.nodes if n.op in types]
        ids = by_kind.get((delegate, kind), [])
        if len(nodes) != len(ids) or debug_id not in ids:
            return None
        n = nodes[ids.index(debug_id)]
        return NodeRef(delegate, n.index, n.op, "kind and order")

    return resolve
