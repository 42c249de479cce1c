"""Short human text shared by every panel: byte sizes, shapes, op kinds, hover lines.

Functions here return *unescaped* text; each sink escapes it (see :mod:`.escape`), except the
``*_hover`` functions, which return plotly text already escaped.
"""

from __future__ import annotations

from explorer.units import nbytes_text
from explorer.analysis.graph import is_copy
from explorer.model.program import Instruction, Tensor
from explorer.views.escape import plotly_text

__all__ = ["fmt_shape", "op_kind", "op_short", "where", "tensor_hover", "instruction_hover"]



def fmt_shape(sizes: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def op_kind(ins: Instruction) -> str:
    """``kernel`` | ``delegate`` | ``copy`` | ``other`` (moves, jumps, frees)."""
    if ins.kind == "DelegateCall":
        return "delegate"
    if ins.kind == "KernelCall":
        return "copy" if is_copy(ins) else "kernel"
    return "other"


def op_short(ins: Instruction) -> str:
    """The op without namespace and ``.out`` overload: ``_h2d_copy``, ``add``, a delegate id."""
    label = ins.label
    if ins.kind == "KernelCall" and ins.op:
        label = label.split("::", 1)[-1].removesuffix(".out")
    return label


def where(tensor: Tensor) -> str:
    """``arena 2 @ 16`` for planned tensors, else the storage kind."""
    if tensor.memory_id is not None:
        return f"arena {tensor.memory_id} @ {tensor.offset}"
    return {"constant": "constant (in the file)", "runtime": "supplied at run time",
            "external": "external (.ptd)"}.get(tensor.storage, tensor.storage)


def tensor_hover(tensor: Tensor, lifetime: tuple[int, int] | None = None) -> str:
    """Plotly hover text (escaped): name, dtype, shape, device, arena, offset, bytes, lifetime."""
    index = f"  <span style='color:#6E7781'>%{tensor.index}</span>" if tensor.name else ""
    lines = [f"<b>{plotly_text(tensor.label)}</b>{index}",
             f"{plotly_text(tensor.dtype)} {fmt_shape(tensor.sizes)}  ·  {plotly_text(nbytes_text(tensor.nbytes))}",
             f"device <b>{plotly_text(tensor.device)}</b>  ·  {plotly_text(tensor.storage)}"]
    if tensor.memory_id is not None:
        lines.append(f"arena {tensor.memory_id}  offset {tensor.offset}  bytes {tensor.nbytes if tensor.nbytes is not None else '?'}")
    if lifetime is not None:
        lines.append(f"alive #{lifetime[0]} – #{lifetime[1]}")
    return "<br>".join(lines)


def instruction_hover(ins: Instruction, kind: str, device: str | None = None) -> str:
    lines = [f"<b>{plotly_text(ins.label)}</b>", f"#{ins.index}  ·  {kind}"]
    if device:
        lines[1] += f"  ·  on {plotly_text(device)}"
    lines.append(f"args {plotly_text(', '.join('%' + str(a) for a in ins.values))}")
    return "<br>".join(lines)
