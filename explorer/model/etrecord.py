"""What an ETRecord says about a program, and that knowledge joined to the program's instructions.

An ETRecord (executorch ``devtools/etrecord/_etrecord.py``) is a zip that executorch writes next to a
``.pte``: the exported programs as JSON (``exir/serde``), and the maps from each instruction to the
*debug handles* of the graph nodes it came from. :mod:`explorer.format.companions.etrecord` reads it into an
:class:`Etrecord`; :mod:`explorer.analysis.context` joins it to a program (:class:`InstructionContext`
per instruction). Frozen records only: no torch, no executorch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["ModuleFrame", "SourceFrame", "GraphNode", "DelegateRecord", "EtrecordMethod", "Etrecord",
           "InstructionContext", "PlanContext", "ProgramContext"]


@dataclass(frozen=True)
class ModuleFrame:
    """One entry of a node's ``nn_module_stack``: the module call it ran inside."""

    key: str  # torch.export's key, e.g. "L__self__layers.0"
    path: str  # the module's name in the model ("layers.0"; "" for the root module)
    type: str  # its class, e.g. "torch.nn.modules.linear.Linear"

    @property
    def type_name(self) -> str:
        """The class without its module: ``Linear``."""
        return self.type.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class SourceFrame:
    """One frame of a node's ``stack_trace`` (outermost first in :attr:`GraphNode.stack`)."""

    file: str
    line: int
    function: str
    code: str = ""  # the source line the trace printed under the frame ("" when none)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class GraphNode:
    """A ``call_function`` node of an exported program's graph, with the metadata we read."""

    name: str  # "aten_addmm_default"
    op: str  # the target without executorch's dialect prefix: "aten.addmm.default"
    debug_handle: int | None
    modules: tuple[ModuleFrame, ...] = ()  # nn_module_stack, outermost (the model itself) first
    stack: tuple[SourceFrame, ...] = ()  # stack_trace frames, outermost first
    stack_trace: str | None = None  # the trace as executorch stored it
    nn_module_stack: str | None = None  # the module stack as stored ("key,path,class;...")

    @property
    def module_path(self) -> str:
        """The innermost module's name ("layers.0.lin"; "" when the node ran in the model's own forward)."""
        return self.modules[-1].path if self.modules else ""


@dataclass(frozen=True)
class DelegateRecord:
    """``delegate_map[method][instruction]``: the backend a delegate call runs and its debug-id map."""

    instruction: int
    backend: str  # "XnnpackBackend"
    debug_map: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # delegate debug id -> handles


@dataclass(frozen=True)
class EtrecordMethod:
    """One method of an ETRecord: its edge-dialect graph and the maps of its instructions."""

    name: str
    nodes: tuple[GraphNode, ...]  # the edge dialect graph's call_function nodes, in graph order
    handles: Mapping[int, tuple[int, ...]]  # debug_handle_map: instruction id -> debug handles
    num_outs: Mapping[int, int | tuple[int, ...]] = field(default_factory=dict)  # instruction_id_to_num_outs_map
    delegates: Mapping[int, DelegateRecord] = field(default_factory=dict)  # delegate_map
    has_graph: bool = True  # False when the ETRecord had maps for this method but no graph of it


@dataclass(frozen=True)
class Etrecord:
    """The JSON members of an ETRecord, read (never the torch.save ones)."""

    methods: Mapping[str, EtrecordMethod]
    members: tuple[str, ...]  # every member name in the zip, in order
    source: str | None = None  # path it was read from (None: bytes, a file object or a live ETRecord)
    size: int = 0


@dataclass(frozen=True)
class InstructionContext:
    """What the ETRecord says about one instruction (joined by debug handles, as executorch's Inspector)."""

    index: int
    handles: tuple[int, ...]  # debug handles the ETRecord maps this instruction to
    nodes: tuple[GraphNode, ...]  # the nodes holding those handles, in graph order
    module: tuple[ModuleFrame, ...]  # the module stack all its nodes share (outermost first)
    source: SourceFrame | None  # the frame of the model's code that made it (see analysis.context)
    stack: tuple[SourceFrame, ...]  # the full stack of its first node that has one
    backend: str | None = None  # delegate calls: the backend named in delegate_map

    @property
    def module_path(self) -> str:
        return self.module[-1].path if self.module else ""

    @property
    def ops(self) -> tuple[str, ...]:
        """The distinct ops of its nodes before lowering, in graph order."""
        return tuple(dict.fromkeys(n.op for n in self.nodes))


@dataclass(frozen=True)
class PlanContext:
    """The ETRecord's knowledge of one plan: per instruction (None where it says nothing)."""

    plan: str
    instructions: tuple[InstructionContext | None, ...]
    method: EtrecordMethod

    def at(self, index: int) -> InstructionContext | None:
        return self.instructions[index] if 0 <= index < len(self.instructions) else None


@dataclass(frozen=True)
class ProgramContext:
    """An ETRecord joined to a program: per plan it has, and what did not line up (warnings)."""

    record: Etrecord
    plans: Mapping[str, PlanContext]
    warnings: tuple[str, ...] = ()

    def plan(self, name: str) -> PlanContext | None:
        return self.plans.get(name)
