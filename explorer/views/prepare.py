"""One plan, analysed and placed once, shared by the widget and the HTML report."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..analysis.types import Finding, Layout, PlanAnalysis
from ..model import Plan, Program
from .graph import GraphGeometry, graph_geometry

if TYPE_CHECKING:
    from .memory_lod import MemoryLod
    from .overview import Overview

__all__ = ["PlanView", "plan_view", "program_summary", "default_plan", "sample_path", "open_program", "wants_lod",
           "totals_view"]


def sample_path() -> Path:
    """The device-annotated sample program bundled with the package (``explorer/data/sample.pte``)."""
    return Path(str(resources.files("explorer") / "data" / "sample.pte"))


def open_program(source=None) -> Program:
    """A Program from a path, bytes, a Program, or None (the bundled sample)."""
    if isinstance(source, Program):
        return source
    from ..format.reader import load

    return load(sample_path() if source is None else source)


@dataclass(frozen=True)
class PlanView:
    """A plan ready to draw. A big plan (``overview`` set) has a :class:`~explorer.analysis.lazy.LazyAnalysis`,
    an :class:`~.overview.Overview` and a :class:`~.memory_lod.MemoryLod` instead of a layout and geometry."""

    plan: Plan
    analysis: PlanAnalysis
    layout: Layout | None
    geometry: GraphGeometry | None
    overview: Overview | None = None
    memory: MemoryLod | None = None

    @property
    def lod(self) -> bool:
        return self.overview is not None


def plan_view(plan: Plan, program: Program | None = None, *, analysis: PlanAnalysis | None = None,
              layout: Layout | None = None, lod: bool = False) -> PlanView:
    """Analyse ``plan`` (unless given; ``program`` lets the checks resolve segments) and place its graph.

    ``lod=True``: the level-of-detail view of a big plan (overview of groups, binned memory map),
    whose analysis records are made only when something reads them.
    """
    if lod:
        from ..analysis.lazy import LazyAnalysis
        from .memory_lod import MemoryLod
        from .overview import Overview

        lazy = analysis if isinstance(analysis, LazyAnalysis) else LazyAnalysis(plan, program)
        modules = None
        if program is not None and program.etrecord is not None:
            from ..analysis.context import module_scopes

            modules = module_scopes(program, plan)
        return PlanView(plan, lazy, None, None, Overview(plan, lazy, modules=modules), MemoryLod(plan, lazy))
    from ..analysis import analyze
    from ..analysis import layout as layered

    analysis = analysis or analyze(plan, program)
    layout = layout or layered(plan, analysis.dataflow)
    return PlanView(plan, analysis, layout, graph_geometry(plan, analysis, layout))


def wants_lod(plan: Plan, lod: bool | None = None) -> bool:
    """``lod`` as asked, or (None) whether ``plan`` is big enough for the overview."""
    if lod is not None:
        return bool(lod)
    from .overview import needs_overview

    return needs_overview(plan)


def totals_view(view: PlanView):
    """What :func:`.details.device_table` reads, without building a big plan's memory blocks."""
    if not view.lod:
        return view.analysis
    from types import SimpleNamespace

    return SimpleNamespace(memory=SimpleNamespace(devices=view.analysis.device_totals, arenas=view.analysis.arenas))


def default_plan(program: Program) -> str:
    """``forward`` when the program has it, else its first plan."""
    names = program.plan_names
    if not names:
        raise ValueError("the program has no execution plans to show")
    return "forward" if "forward" in names else names[0]


def program_summary(view: PlanView, findings: list[Finding]) -> str:
    """One plain line: ``forward: 25 tensors (cpu 14, cuda:0 11) · 20 instructions · 2 arenas · no findings``."""
    from .palette import ordered_devices

    plan = view.plan
    per_device: dict = {}
    if view.lod:  # counted from the columns: a big plan's Tensor objects are made only when needed
        f = view.analysis.facts
        codes, counts = np.unique(f.dcode[f.is_tensor], return_counts=True)
        per_device = {f.device(int(c)): int(k) for c, k in zip(codes, counts)}
    else:
        for t in plan.tensors:
            per_device[t.device] = per_device.get(t.device, 0) + 1
    devices = ", ".join(f"{d} {per_device[d]}" for d in ordered_devices(per_device))
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    found = ", ".join(f"{counts[sev]} {sev}{'s' * (counts[sev] != 1)}" for sev in ("error", "warning", "info")
                      if sev in counts) or "no findings"
    arenas = len(view.analysis.arenas if view.lod else view.analysis.memory.arenas)
    n_tensors = sum(per_device.values()) if view.lod else len(plan.tensors)
    from ..analysis.describe import count

    return (f"{plan.name}: {count(n_tensors, 'tensor')} ({devices or 'none'}) · "
            f"{count(len(plan.instructions), 'instruction')} · "
            f"{arenas} arena{'s' * (arenas != 1)} · {found}")
