"""What is selected, and how names, indices, objects and search text turn into a selection.

The widget keeps a :class:`Selection` in its ``selected`` trait. The search box lives in the browser
app only (``explorer/frontend/shell/search.js``, tested under node).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.analysis.types import Finding
from explorer.model.program import Instruction, Plan, Tensor, Value

__all__ = ["Selection", "resolve"]


@dataclass(frozen=True)
class Selection:
    """The values and instructions highlighted in every panel of one plan."""

    plan: str  # the plan (method) shown
    values: tuple[int, ...] = ()  # value indices (Plan.values)
    instructions: tuple[int, ...] = ()  # instruction indices (run order)
    finding: Finding | None = None  # the finding this selection came from (optional)
    query: str = ""  # the search text this selection came from (optional)
    group: int | None = None  # a group of the plan's graph (its id in the group tree) a click in the page selected

    def __bool__(self) -> bool:
        return bool(self.values or self.instructions) or self.group is not None

    def tensors(self, plan: Plan) -> list[Tensor]:
        """The selected values that are tensors, as model objects."""
        return [v for v in (plan.value(i) for i in self.values) if isinstance(v, Tensor)]


def _value_index(plan: Plan, item: object) -> int:
    if isinstance(item, bool):
        raise TypeError("select() takes value indices, names, tensors or findings, not a bool")
    if isinstance(item, int):
        index = item
    elif isinstance(item, (Tensor, Value)):
        index = item.index
    elif isinstance(item, str):
        text = item.strip()
        if text.startswith("%") and text[1:].isdigit():
            index = int(text[1:])
        else:
            named = [t.index for t in plan.tensors if t.name == text]
            if not named:
                raise KeyError(f"no tensor named {item!r} in plan {plan.name!r} "
                               f"(select by name, '%index' or an index 0..{len(plan.values) - 1})")
            return named[0]
    else:
        raise TypeError(f"cannot select {type(item).__name__}: expected an int, a name, a Tensor or a Finding")
    if not 0 <= index < len(plan.values):
        raise IndexError(f"value {index} does not exist: plan {plan.name!r} has values 0..{len(plan.values) - 1}")
    return index


def _instruction_index(plan: Plan, item: object) -> int:
    index = item.index if isinstance(item, Instruction) else item
    if isinstance(index, str) and index.strip().lstrip("#").isdigit():
        index = int(index.strip().lstrip("#"))
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"instructions are selected by index or Instruction, not {type(item).__name__}")
    if not 0 <= index < len(plan.instructions):
        raise IndexError(f"instruction {index} does not exist: plan {plan.name!r} has "
                         f"instructions 0..{len(plan.instructions) - 1}")
    return index


def resolve(plan: Plan, items=(), instructions=()) -> Selection:
    """A selection in ``plan`` from value-like ``items`` and ``instructions`` (see ``Explorer.select``)."""
    values: list[int] = []
    instrs: list[int] = []
    finding = None
    for item in items:
        if isinstance(item, Finding):
            finding = item
            values.extend(v for v in item.values if 0 <= v < len(plan.values))
            instrs.extend(i for i in item.instructions if 0 <= i < len(plan.instructions))
        else:
            values.append(_value_index(plan, item))
    instrs.extend(_instruction_index(plan, i) for i in instructions)
    return Selection(plan.name, tuple(dict.fromkeys(values)), tuple(dict.fromkeys(instrs)),
                     finding if len(items) == 1 and not instructions else None)
