"""How values and instructions are named in every message a person reads.

The checks' messages, the CLI and the details panel name things the same way: a tensor is its
fully-qualified name when the file has one, else ``%index``, followed by dtype and shape
(``%12 (float32[2,2])``, ``linear.weight (%3, float32[4,4])``); an instruction is its op or delegate and
its run-order index (``aten::add.out (instruction 3)``). Part of the analysis layer, since the checks
word their findings with it; :mod:`explorer.describe` builds the CLI's text on top.
"""

from __future__ import annotations

import re
from typing import Iterable

from explorer.model.program import Plan, Tensor

__all__ = ["value_text", "values_text", "instruction_text", "unnumbered"]


def value_text(plan: Plan, index: int) -> str:
    """``%12 (float32[2,2])``, ``mod.w (%3, float32[4])``, ``%5 (Int)``; says so when it points nowhere."""
    value = plan.value(index)
    if value is None:
        return f"%{index} (no such value)"
    if isinstance(value, Tensor):
        shape = f"{value.dtype}[{','.join(str(s) for s in value.sizes)}]"
        return f"{value.name} (%{index}, {shape})" if value.name else f"%{index} ({shape})"
    return f"%{index} ({value.type})"


def values_text(plan: Plan, indices: Iterable[int], limit: int = 4) -> str:
    """A short list of values: the first ``limit`` then ``and N more``."""
    items = list(dict.fromkeys(indices))
    shown = ", ".join(value_text(plan, v) for v in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def instruction_text(plan: Plan, index: int) -> str:
    """``aten::add.out (instruction 3)``, ``delegate XnnpackBackend (instruction 0)``."""
    if not 0 <= index < len(plan.instructions):
        return f"instruction {index} (no such instruction)"
    instr = plan.instructions[index]
    if instr.kind == "DelegateCall":
        target = None
        if instr.delegate_index is not None and 0 <= instr.delegate_index < len(plan.delegates):
            target = plan.delegates[instr.delegate_index].target_device
        where = f" targeting {target}" if target else ""
        return f"delegate {instr.label}{where} (instruction {index})"
    return f"{instr.label} (instruction {index})"


_NUMBERS = re.compile(r"%\d+|\b(instructions?|delegates?) [\d, .]*\d")


def unnumbered(message: str) -> str:
    """A message without value, instruction and delegate numbers: what stays the same when a program
    is renumbered, or when one problem repeats at many places."""
    return _NUMBERS.sub(lambda x: x.group(1) or "%", message)
