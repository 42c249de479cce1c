"""One plan, analysed and placed once, shared by the widget and the HTML report."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..analysis.types import Finding, Layout, PlanAnalysis
from ..model import Plan, Program
from .graph import GraphGeometry, graph_geometry

__all__ = ["PlanView", "plan_view", "program_summary", "default_plan", "sample_path", "open_program"]


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
    plan: Plan
    analysis: PlanAnalysis
    layout: Layout
    geometry: GraphGeometry


def plan_view(plan: Plan, program: Program | None = None, *, analysis: PlanAnalysis | None = None,
              layout: Layout | None = None) -> PlanView:
    """Analyse ``plan`` (unless given; ``program`` lets the checks resolve segments) and place its graph."""
    from ..analysis import analyze
    from ..analysis import layout as layered

    analysis = analysis or analyze(plan, program)
    layout = layout or layered(plan, analysis.dataflow)
    return PlanView(plan, analysis, layout, graph_geometry(plan, analysis, layout))


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
    for t in plan.tensors:
        per_device[t.device] = per_device.get(t.device, 0) + 1
    devices = ", ".join(f"{d} {per_device[d]}" for d in ordered_devices(per_device))
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    found = ", ".join(f"{counts[sev]} {sev}{'s' * (counts[sev] != 1)}" for sev in ("error", "warning", "info")
                      if sev in counts) or "no findings"
    arenas = len(view.analysis.memory.arenas)
    return (f"{plan.name}: {len(plan.tensors)} tensors ({devices or 'none'}) · {len(plan.instructions)} instructions · "
            f"{arenas} arena{'s' * (arenas != 1)} · {found}")
