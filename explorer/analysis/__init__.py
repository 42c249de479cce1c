"""Model -> facts: dataflow graph, lifetimes, memory map, transfers, placement checks.

Public entry points (pure functions over :mod:`explorer.model`, defined in :mod:`.pipeline`; results are
the frozen records of :mod:`.types`):

* :func:`analyze` ``(plan, program=None, *, limit=25) -> PlanAnalysis`` — everything about one plan.
  With ``program``, the checks also resolve segment, constant and delegate-blob indices.
* :func:`analyze_program` ``(program, *, limit=25) -> dict[str, PlanAnalysis]`` — per plan name.
* :func:`check` ``(program, *, limit=25) -> list[Finding]`` — program-wide findings, then each plan's.
* The pieces: :func:`dataflow`, :func:`lifetimes`, :func:`memory_map`, :func:`transfers`,
  :func:`transfer_totals`; human text in :mod:`.describe`.

``limit`` caps the findings kept per (plan, code) (``None``: keep all); see :mod:`.checks`.
"""

from __future__ import annotations

from explorer.analysis.checks.placement import SEVERITY
from explorer.analysis.graph import Edges, dataflow, edges
from explorer.analysis.lifetimes import aliases, lifetime_arrays, lifetimes
from explorer.analysis.memory import memory_map
from explorer.analysis.pipeline import analyze, analyze_program, check
from explorer.analysis.transfers import transfer_totals, transfers
from explorer.analysis.types import (ArenaMap, Block, Dataflow, DeviceTotals, Finding, Layout, Lifetime, MemoryMap,
                                     PlanAnalysis, Transfer, TransferTotals)

__all__ = [
    "analyze", "analyze_program", "check", "dataflow", "edges", "Edges", "lifetimes", "lifetime_arrays",
    "aliases", "memory_map", "transfers", "transfer_totals", "SEVERITY",
    "ArenaMap", "Block", "Dataflow", "DeviceTotals", "Finding", "Layout", "Lifetime", "MemoryMap",
    "PlanAnalysis", "Transfer", "TransferTotals",
]
