"""Two programs, diffed and placed once, shared by the diff widget and the diff report.

:func:`open_diff` loads both sides and runs :func:`explorer.analysis.diff.compare.diff`; :class:`DiffPlanView`
joins one plan's :class:`~explorer.analysis.diff.compare.PlanDiff` with the two :class:`~.prepare.PlanView`
(analysis, groups, memory lanes) the app draws from, and answers "what is this on the other side?"
for tensors (``PlanDiff.pairs``) and instructions (the writer of the counterpart of what it writes:
the diff pairs tensors, not instructions). :class:`DiffSelection` is the linked selection both
front ends keep: a click on one side selects the thing *and* its counterpart.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

from explorer.analysis.diff.compare import PlanDiff, ProgramDiff, ValueChange, diff
from explorer.analysis.pipeline import LazyAnalysis
from explorer.model.program import Program
from explorer.views.state.plan import PlanView, open_program, plan_view

__all__ = ["SIDES", "DiffSelection", "DiffPlanView", "open_diff", "diff_plan_view", "default_diff_plan", "other_side"]

SIDES = ("a", "b")


@dataclass(frozen=True)
class DiffSelection:
    """What both sides highlight: values and instructions of A, their counterparts in B (or the reverse).

    ``side`` is where the selection was made (``"a"``, ``"b"``, or ``""`` when empty); the other
    side's entries are derived through the pairing, so a tensor with no counterpart selects nothing
    there.
    """

    plan: str
    values_a: tuple[int, ...] = ()
    values_b: tuple[int, ...] = ()
    instructions_a: tuple[int, ...] = ()
    instructions_b: tuple[int, ...] = ()
    side: str = ""

    def __bool__(self) -> bool:
        return bool(self.values_a or self.values_b or self.instructions_a or self.instructions_b)

    def values(self, side: str) -> tuple[int, ...]:
        return self.values_a if side == "a" else self.values_b

    def instructions(self, side: str) -> tuple[int, ...]:
        return self.instructions_a if side == "a" else self.instructions_b

    def to_json(self) -> dict:
        return {"plan": self.plan, "side": self.side, "values": {"a": list(self.values_a), "b": list(self.values_b)},
                "instructions": {"a": list(self.instructions_a), "b": list(self.instructions_b)}}


@dataclass(frozen=True)
class DiffPlanView:
    """One plan of both programs, ready to draw side by side."""

    diff: PlanDiff
    a: PlanView
    b: PlanView
    name_a: str  # how the page names each side (file name, or "A"/"B")
    name_b: str

    def side(self, side: str) -> PlanView:
        return self.a if side == "a" else self.b

    def status(self, side: str) -> dict[int, str]:
        return self.diff.status_a if side == "a" else self.diff.status_b

    def op_status(self, side: str) -> dict[int, str]:
        return self.diff.instruction_status_a if side == "a" else self.diff.instruction_status_b

    @cached_property
    def copy_index(self) -> tuple[dict, dict]:
        """Positions in ``diff.copies``, built once (a details box per changed tensor looked them all up):
        ``made[(side, v)]``: the first copy writing ``v``; ``touching[(side, v)]``: the changed copies of ``v``
        (its source, destination or the tensor copied), in order."""
        made: dict[tuple[str, int], int] = {}
        touching: dict[tuple[str, int], list[int]] = {}
        for k, c in enumerate(self.diff.copies):
            for side, cs, of in (("a", c.a, c.of_a), ("b", c.b, c.of_b)):
                if cs is not None:
                    made.setdefault((side, cs.destination), k)
                if c.status == "same":
                    continue
                for v in dict.fromkeys(x for x in ((cs.source, cs.destination) if cs else ()) + (of,)
                                       if x is not None):
                    touching.setdefault((side, v), []).append(k)
        return made, touching

    @cached_property
    def b2a(self) -> dict[int, int]:
        return {b: a for a, b in self.diff.pairs.items()}

    @cached_property
    def changes(self) -> dict[tuple[str, int], ValueChange]:
        """(side, value) -> the ValueChange naming it (only tensors whose status isn't ``same``)."""
        out: dict[tuple[str, int], ValueChange] = {}
        for c in self.diff.values:
            if c.a is not None:
                out[("a", c.a.index)] = c
            if c.b is not None:
                out[("b", c.b.index)] = c
        return out

    def pair(self, side: str, value: int) -> int | None:
        """The counterpart of ``value`` on the other side (None: added/removed, or not a tensor)."""
        return (self.diff.pairs if side == "a" else self.b2a).get(value)

    def instruction_pair(self, side: str, index: int) -> int | None:
        """The instruction of the other side writing the counterpart of a tensor ``index`` writes."""
        mine, other = self.side(side).analysis.dataflow, self.side(other_side(side)).analysis.dataflow
        if not 0 <= index < len(mine.writes):
            return None
        for w in mine.writes[index]:
            o = self.pair(side, w)
            if o is not None and other.producers.get(o):
                return other.producers[o][0]
        return None

    def instruction_pairs(self, side: str) -> tuple[list[int], list[int]]:
        """Every instruction of ``side`` with a pair: (its instructions, their :meth:`instruction_pair`) in order, in
        one pass (a call per instruction cost a what-if move ~20 ms on a 3k-instruction plan)."""
        mine, other = self.side(side).analysis.dataflow, self.side(other_side(side)).analysis.dataflow
        pairs, producers = (self.diff.pairs if side == "a" else self.b2a), other.producers
        got_i: list[int] = []
        got_o: list[int] = []
        for i, writes in enumerate(mine.writes):
            for w in writes:
                o = pairs.get(w)
                if o is not None and producers.get(o):
                    got_i.append(i)
                    got_o.append(producers[o][0])
                    break
        return got_i, got_o

    def linked(self, side: str, values=(), instructions=()) -> DiffSelection:
        """A selection made on ``side``, with its counterparts on the other side."""
        values = tuple(dict.fromkeys(values))
        instructions = tuple(dict.fromkeys(instructions))
        o_values = tuple(dict.fromkeys(p for p in (self.pair(side, v) for v in values) if p is not None))
        o_instr = tuple(dict.fromkeys(p for p in (self.instruction_pair(side, i) for i in instructions) if p is not None))
        if not (values or instructions):
            return DiffSelection(self.diff.plan)
        if side == "a":
            return DiffSelection(self.diff.plan, values, o_values, instructions, o_instr, "a")
        return DiffSelection(self.diff.plan, o_values, values, o_instr, instructions, "b")


def other_side(side: str) -> str:
    return "b" if side == "a" else "a"


def _name(program: Program, fallback: str) -> str:
    return os.path.basename(program.source) if program.source else fallback


def open_diff(a, b, *, plan: str | None = None,
              analyses: tuple[dict[str, LazyAnalysis], dict[str, LazyAnalysis]] | None = None,
              ) -> tuple[Program, Program, ProgramDiff]:
    """Both programs (paths, bytes or Programs) and their diff (restricted to ``plan`` when given); ``analyses``:
    (A's, B's) by plan name, reused and filled in (:func:`~explorer.analysis.diff.compare.diff`), so the views
    :func:`diff_plan_view` makes next analyse neither side again."""
    pa, pb = open_program(a), open_program(b)
    return pa, pb, diff(pa, pb, plan=plan, analyses=analyses)


def default_diff_plan(result: ProgramDiff) -> str:
    """``forward`` when both programs have it, else their first common plan."""
    names = [p.plan for p in result.plans]
    if not names:
        raise ValueError("the two programs have no plan (method) in common: nothing to compare")
    return "forward" if "forward" in names else names[0]


def diff_plan_view(result: ProgramDiff, pa: Program, pb: Program, name: str, *,
                   analyses: tuple[dict[str, LazyAnalysis], dict[str, LazyAnalysis]] | None = None,
                   side_a: PlanView | None = None) -> DiffPlanView:
    """Analyse plan ``name`` of both programs and prepare each side as one program's plan is prepared, so the
    two sides fold and read alike. ``analyses``: (A's, B's) analyses by plan name, as :func:`diff` made or reused
    them (a side analysed again cost a what-if move ~0.1 s on a 3k-instruction plan); ``side_a``: A's plan view made
    already (the widget's own, whose groups the app's payload was made from)."""
    made_a, made_b = analyses if analyses is not None else ({}, {})
    a = side_a if side_a is not None else plan_view(pa.plan(name), pa, analysis=made_a.get(name))
    b = plan_view(pb.plan(name), pb, analysis=made_b.get(name))
    names = (_name(pa, "A"), _name(pb, "B"))
    if names[0] == names[1]:
        names = (f"A: {names[0]}", f"B: {names[1]}")
    return DiffPlanView(result.plan(name), a, b, *names)
