"""One plan, analysed and placed once, shared by the widget and the HTML report."""

from __future__ import annotations

from functools import cached_property
from types import SimpleNamespace
from importlib import resources
from pathlib import Path

from explorer.analysis.arrays import unique
from explorer.analysis.types import Finding
from explorer.model.program import Plan, Program
from explorer.analysis.context import module_scopes
from explorer.analysis.pipeline import LazyAnalysis
from explorer.views.state.memory import MemoryLod
from explorer.views.state.overview import Overview
from explorer.format.reader import load
from explorer.units import count, count_text, nbytes_text
from explorer.views.palette import ordered_devices


__all__ = ["PlanView", "plan_view", "program_summary", "arena_summary", "default_plan", "sample_path", "open_program", "totals_view"]


def sample_path() -> Path:
    """The device-annotated sample program bundled with the package (``explorer/data/sample.pte``)."""
    return Path(str(resources.files("explorer") / "data" / "sample.pte"))


def open_program(source=None) -> Program:
    """A Program from a path, bytes, a Program, or None (the bundled sample)."""
    if isinstance(source, Program):
        return source

    return load(sample_path() if source is None else source)


class PlanView:
    """A plan ready to draw at every size: its :class:`~explorer.analysis.pipeline.LazyAnalysis` (records made only
    when something reads them), the :class:`~.overview.Overview` of its groups (every group open when the plan
    fits on screen) and its :class:`~.memory_lod.MemoryLod`, each made when first read: ``show`` prints a line for
    every plan of a program of thousands, from the analysis alone, and draws only some of them (views/payload/app.py).
    The browser app folds, lays out and draws it."""

    def __init__(self, plan: Plan, analysis: "LazyAnalysis", modules=None) -> None:
        self.plan = plan
        self.analysis = analysis
        self._modules = modules  # an ETRecord's module per instruction, for the groups' names

    @cached_property
    def overview(self) -> "Overview":
        return Overview(self.plan, self.analysis, modules=self._modules)

    @cached_property
    def memory(self) -> "MemoryLod":
        return MemoryLod(self.plan, self.analysis)

    def __repr__(self) -> str:
        return f"PlanView({self.plan.name!r})"


def plan_view(plan: Plan, program: Program | None = None, *, analysis=None) -> PlanView:
    """Analyse ``plan`` (``program`` lets the checks resolve segments; an analysis already made is reused)
    and prepare its groups and memory lanes (when first read)."""

    lazy = analysis if isinstance(analysis, LazyAnalysis) else LazyAnalysis(plan, program)
    modules = None
    if program is not None and program.etrecord is not None:
        modules = module_scopes(program, plan)
    return PlanView(plan, lazy, modules)


def totals_view(view: PlanView):
    """What :func:`.tables.device_table` reads, without building a big plan's memory blocks."""
    return SimpleNamespace(memory=SimpleNamespace(devices=view.analysis.device_totals, arenas=view.analysis.arenas))


def default_plan(program: Program) -> str:
    """``forward`` when the program has it, else its first plan."""
    names = program.plan_names
    if not names:
        raise ValueError("the program has no execution plans to show")
    return "forward" if "forward" in names else names[0]


def arena_summary(view: PlanView) -> str:
    """``#1 160 B cpu, #2 128 B cuda:0`` (and "..., 999,998 more empty arenas" past a million declared); "" without
    arenas: what ``show`` prints after a plan's line and a notebook's static summary says."""
    # the arenas' records, not their maps: a line per plan of thousands, without each arena's peak
    text = ", ".join(f"#{a.memory_id} {nbytes_text(a.size)} {a.device}" for a in view.analysis.listed_buffers)
    if view.analysis.empty_arenas is not None:  # a million declared arenas: one count, not a million words
        text += ", " + view.analysis.empty_arenas.text()
    return text


def program_summary(view: PlanView, findings: list[Finding]) -> str:
    """One plain line: ``forward: 25 tensors (cpu 14, cuda:0 11) · 20 instructions · 2 arenas · no findings``."""
    plan = view.plan
    f = view.analysis.facts  # counted from the columns: a big plan's Tensor objects are made only when needed
    codes, counts = unique(f.dcode[f.is_tensor], return_counts=True)
    per_device = {f.device(int(c)): int(k) for c, k in zip(codes, counts)}
    devices = ", ".join(f"{d} {count_text(per_device[d])}" for d in ordered_devices(per_device))
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    found = ", ".join(count(counts[sev], sev) for sev in ("error", "warning", "info") if sev in counts) or "no findings"
    arenas = len(plan.buffers)  # every arena declared, listed or summarised
    n_tensors = sum(per_device.values())

    return (f"{plan.name}: {count(n_tensors, 'tensor')} ({devices or 'none'}) · "
            f"{count(len(plan.instructions), 'instruction')} · "
            f"{count(arenas, 'arena')} · {found}")
