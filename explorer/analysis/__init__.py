"""Model -> facts: dataflow graph, lifetimes, memory map, transfers, placement checks.

Public entry points (pure functions over :mod:`explorer.model`; results are the frozen records of
:mod:`.types`):

* :func:`analyze` ``(plan, program=None, *, limit=25) -> PlanAnalysis`` — everything about one plan.
  With ``program``, the checks also resolve segment, constant and delegate-blob indices.
* :func:`analyze_program` ``(program, *, limit=25) -> dict[str, PlanAnalysis]`` — per plan name.
* :func:`check` ``(program, *, limit=25) -> list[Finding]`` — program-wide findings, then each plan's.
* The pieces: :func:`dataflow`, :func:`lifetimes`, :func:`memory_map`, :func:`transfers`,
  :func:`transfer_totals`; human text in :mod:`.describe`.

``limit`` caps the findings kept per (plan, code) (``None``: keep all); see :mod:`.checks`.
"""

from __future__ import annotations

import os

from ..model import DataFile, Plan, Program
from .companions import companion_findings
from .checks import DEFAULT_LIMIT, SEVERITY, plan_findings, program_findings
from .facts import Facts
from .graph import Edges, dataflow, edges
from .lifetimes import aliases, lifetime_arrays, lifetimes
from .memory import memory_map, planned_arrays
from .transfers import transfer_arrays, transfer_totals, transfers
from .lazy import LazyAnalysis
from .types import (ArenaMap, Block, Dataflow, DeviceTotals, Finding, Layout, Lifetime, MemoryMap,
                    PlanAnalysis, Transfer, TransferTotals)

__all__ = [
    "analyze", "analyze_program", "check", "dataflow", "edges", "Edges", "lifetimes", "lifetime_arrays",
    "aliases", "memory_map", "transfers", "transfer_totals", "SEVERITY",
    "ArenaMap", "Block", "Dataflow", "DeviceTotals", "Finding", "Layout", "Lifetime", "MemoryMap",
    "PlanAnalysis", "Transfer", "TransferTotals",
]


def analyze(plan: Plan, program: Program | None = None, *, limit: int | None = DEFAULT_LIMIT) -> PlanAnalysis:
    """Dataflow, lifetimes, memory map, transfers and findings of one plan (each computed once)."""
    return LazyAnalysis(plan, program, limit=limit).complete()


def analyze_program(program: Program, *, limit: int | None = DEFAULT_LIMIT) -> dict[str, PlanAnalysis]:
    """:func:`analyze` for every plan, keyed by plan name (in the program's order)."""
    return {plan.name: analyze(plan, program, limit=limit) for plan in program.plans}


def check(program: Program | DataFile, *, limit: int | None = DEFAULT_LIMIT,
          analyses: dict[str, LazyAnalysis] | None = None) -> list[Finding]:
    """Every placement finding of ``program``: program-wide ones (``plan == ""``) first, then per plan.

    Runs the whole analysis (dataflow, lifetimes, memory map, transfers) on numpy columns, without
    building the per-value records nobody reads here, so it stays fast on very large programs.

    A data file (``.ptd``, what :func:`explorer.load` returns for one) has no plan to check: it gets one
    ``info`` finding ``no-placement-check`` saying so and how to check its program, so an empty list is
    never mistaken for a pass. A bundled program (``.bpte``) loads as its program and is checked as one.

    ``analyses``, when given, receives each plan's analysis by plan name, so a caller that also draws the
    plans (the widget) reuses them instead of analysing twice.
    """
    if isinstance(program, DataFile):
        return [not_a_program(program)]
    found = program_findings(program, limit)
    for plan in program.plans:
        lazy = LazyAnalysis(plan, program, limit=limit)
        if analyses is not None:
            analyses[plan.name] = lazy
        found.extend(lazy.findings)
    found.extend(companion_findings(program))  # missing-external, bad-delegate-payload
    return found


def not_a_program(data: DataFile) -> Finding:
    """The one finding of ``check`` on a data file: placement checks apply to the program that uses it."""
    name = os.path.basename(data.source) if data.source else None
    n = len(data.entries)
    what = f"{name} is a data file" if name else "This is a data file"
    arg = name or "DATA.ptd"
    return Finding(
        "no-placement-check", "info", "",
        f"{what} (.ptd, {n} named entr{'y' if n == 1 else 'ies'}): it holds tensors, not a plan, so no placement "
        f"check applies. Check the program that uses it, with the data file attached: device-explorer check "
        f"MODEL.pte --data {arg} (explorer.load('MODEL.pte', data=['{arg}'])); then missing-external compares "
        f"every external tensor with its entry here.")
