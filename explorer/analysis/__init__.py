"""Model -> facts: dataflow graph, lifetimes, memory map, transfers, placement checks, layout.

Public entry points (pure functions over :mod:`explorer.model`; results are the frozen records of
:mod:`.types`):

* :func:`analyze` ``(plan, program=None, *, limit=25) -> PlanAnalysis`` — everything about one plan.
  With ``program``, the checks also resolve segment, constant and delegate-blob indices.
* :func:`analyze_program` ``(program, *, limit=25) -> dict[str, PlanAnalysis]`` — per plan name.
* :func:`check` ``(program, *, limit=25) -> list[Finding]`` — program-wide findings, then each plan's.
* The pieces: :func:`dataflow`, :func:`lifetimes`, :func:`memory_map`, :func:`transfers`,
  :func:`transfer_totals`, :func:`layout`; human text in :mod:`.describe`.

``limit`` caps the findings kept per (plan, code) (``None``: keep all); see :mod:`.checks`.
"""

from __future__ import annotations

from ..model import Plan, Program
from .companions import companion_findings
from .checks import DEFAULT_LIMIT, SEVERITY, plan_findings, program_findings
from .facts import Facts
from .graph import Edges, dataflow, edges
from .layout import crossings, layout
from .lifetimes import aliases, lifetime_arrays, lifetimes
from .memory import memory_map, planned_arrays
from .transfers import transfer_arrays, transfer_totals, transfers
from .lazy import LazyAnalysis
from .types import (ArenaMap, Block, Dataflow, DeviceTotals, Finding, Layout, Lifetime, MemoryMap,
                    PlanAnalysis, Transfer, TransferTotals)

__all__ = [
    "analyze", "analyze_program", "check", "dataflow", "edges", "Edges", "lifetimes", "lifetime_arrays",
    "aliases", "memory_map", "transfers", "transfer_totals", "layout", "crossings", "SEVERITY",
    "ArenaMap", "Block", "Dataflow", "DeviceTotals", "Finding", "Layout", "Lifetime", "MemoryMap",
    "PlanAnalysis", "Transfer", "TransferTotals",
]


def analyze(plan: Plan, program: Program | None = None, *, limit: int | None = DEFAULT_LIMIT) -> PlanAnalysis:
    """Dataflow, lifetimes, memory map, transfers and findings of one plan (each computed once)."""
    return LazyAnalysis(plan, program, limit=limit).complete()


def analyze_program(program: Program, *, limit: int | None = DEFAULT_LIMIT) -> dict[str, PlanAnalysis]:
    """:func:`analyze` for every plan, keyed by plan name (in the program's order)."""
    return {plan.name: analyze(plan, program, limit=limit) for plan in program.plans}


def check(program: Program, *, limit: int | None = DEFAULT_LIMIT,
          analyses: dict[str, LazyAnalysis] | None = None) -> list[Finding]:
    """Every placement finding of ``program``: program-wide ones (``plan == ""``) first, then per plan.

    Runs the whole analysis (dataflow, lifetimes, memory map, transfers) on numpy columns, without
    building the per-value records nobody reads here, so it stays fast on very large programs.
    ``analyses``, when given, receives each plan's analysis by plan name, so a caller that also draws the
    plans (the widget) reuses them instead of analysing twice.
    """
    found = program_findings(program, limit)
    for plan in program.plans:
        lazy = LazyAnalysis(plan, program, limit=limit)
        if analyses is not None:
            analyses[plan.name] = lazy
        found.extend(lazy.findings)
    found.extend(companion_findings(program))  # missing-external, bad-delegate-payload
    return found
