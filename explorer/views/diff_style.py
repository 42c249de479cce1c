"""How a placement diff looks: one ring colour per change status, shared by the widget and the report.

A diff view draws each program with the single-program palette (fill = device, :mod:`.palette`) and
adds a **ring** around what changed, coloured by the status :mod:`explorer.analysis.diff.compare` gave it.
Ring colours stay clear of the device hues (blue, orange, bluish green, reddish purple...) so a ring is
never read as a device: saturated magenta for "moved to another device" (the change a placement
review is about), GitHub's diff green/red for added/removed, violet, dark cyan and grey for the
quieter changes. Unchanged things are drawn as in one program, unringed, so the eye lands on the changes.
The legends are HTML (:func:`legend_html` for rings, :func:`graph_legend_html` for what plotly's own
legend says in the Explorer: devices, op kinds, copy edges), shared by both graphs: plotly's legend
wraps differently in two half-width plots and would push one graph's nodes below the other's.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.views.escape import html_text as h
from explorer.views.palette import EDGE_STYLES, INK, OP_STYLES, device_style, ordered_devices

__all__ = ["StatusStyle", "STATUS_STYLES", "OP_STATUS_STYLES",
           "legend_html", "graph_legend_html", "status_badge", "ring"]


@dataclass(frozen=True)
class StatusStyle:
    color: str
    label: str  # legend text
    width: float  # ring stroke width in px


# tensor statuses (explorer.analysis.diff.compare.STATUSES, "same" is not ringed)
STATUS_STYLES = {
    "device": StatusStyle("#E3008C", "moved to another device", 3.5),
    "added": StatusStyle("#1A7F37", "only in B (added)", 3.5),
    "removed": StatusStyle("#CF222E", "only in A (removed)", 3.5),
    "shape": StatusStyle("#8250DF", "dtype or shape changed", 3.0),
    "arena": StatusStyle("#0E7490", "another arena or storage", 3.0),
    "offset": StatusStyle("#8C959F", "same arena, another offset", 2.0),
}
# instruction statuses (PlanDiff.instruction_status_a/_b; absent = same)
OP_STATUS_STYLES = {
    "changed": StatusStyle("#E3008C", "op replaced, or its output moved", 3.0),
    "added": StatusStyle("#1A7F37", "op only in B", 3.0),
    "removed": StatusStyle("#CF222E", "op only in A", 3.0),
}

def ring(color: str, width: float, op: bool = False) -> str:
    """A small HTML ring (square for ops) in a status colour, for legends and badges."""
    return f"<span class='dx-ring{' dx-op' if op else ''}' style='border:{max(width - 0.5, 2):.1f}px solid {color}'></span>"


def legend_html(tensor_statuses, op_statuses) -> str:
    """The shared legend: a ring per status present (tensors, then ops), and 'unchanged' (no ring)."""
    items = [f"<span>{ring(STATUS_STYLES[s].color, STATUS_STYLES[s].width)}{h(STATUS_STYLES[s].label)}</span>"
             for s in STATUS_STYLES if s in tensor_statuses]
    items += [f"<span>{ring(OP_STATUS_STYLES[s].color, OP_STATUS_STYLES[s].width, op=True)}"
              f"{h(OP_STATUS_STYLES[s].label)}</span>" for s in OP_STATUS_STYLES if s in op_statuses]
    items.append("<span>unchanged: no ring</span>")
    return ("<div class='dx-legend'><span class='dx-group' style='margin-left:0'>rings: what changed</span>"
            + "".join(items) + "</div>")


def status_badge(status: str, *, op: bool = False) -> str:
    """A filled pill in the status colour (``same`` in grey)."""
    style = (OP_STATUS_STYLES if op else STATUS_STYLES).get(status)
    color = style.color if style else "#8C959F"
    text = {"device": "moved device", "same": "unchanged", "changed": "changed"}.get(status, status)
    return f"<span class='dx-status' style='background:{color}'>{h(text)}</span>"


_DASH = {"solid": "", "dash": "6 3", "dot": "2 3", "dashdot": "6 3 2 3"}
_OP_SVG = {"square": "<rect x='2' y='2' width='9' height='9'/>", "diamond": "<polygon points='6.5,0.5 12.5,6.5 6.5,12.5 0.5,6.5'/>",
           "triangle-down": "<polygon points='1,2 12,2 6.5,11.5'/>", "cross-thin": "<path d='M6.5 1v11M1 6.5h11'/>"}


def graph_legend_html(devices, op_kinds, edge_kinds) -> str:
    """Devices (fill colours), op kinds (outline symbols) and copy edges present in either graph."""
    items = ["<span class='dx-group' style='margin-left:0'>fill: device</span>"]
    for d in ordered_devices(devices):
        style = device_style(d)
        items.append(f"<span><svg width='12' height='12'><circle cx='6' cy='6' r='5' fill='{style.color}' "
                     f"stroke='white'/></svg>{h(style.label)}</span>")
    items.append("<span class='dx-group'>ops</span>")
    for kind in ("kernel", "delegate", "copy", "other"):
        if kind in op_kinds:
            shape = _OP_SVG.get(OP_STYLES[kind]["symbol"], _OP_SVG["square"])
            # outlined in the text's colour (currentColor): the light scheme's ink, the dark scheme's light text
            items.append(f"<span><svg width='13' height='13' fill='none' stroke='currentColor' stroke-width='1.6'>{shape}"
                         f"</svg>{h(OP_STYLES[kind]['label'])}</span>")
    moves = [k for k in ("h2d", "d2h", "d2d") if k in edge_kinds]
    if moves:
        items.append("<span class='dx-group'>copies</span>")
    for kind in moves:
        style = EDGE_STYLES[kind]
        stroke = "currentColor" if style["color"].upper() == INK.upper() else style["color"]  # ink: the text's colour
        items.append(f"<span><svg width='24' height='10'><line x1='1' y1='5' x2='23' y2='5' stroke='{stroke}' "
                     f"stroke-width='2' stroke-dasharray='{_DASH[style['dash']]}'/></svg>{h(style['label'])}</span>")
    return "<div class='dx-legend'>" + "".join(items) + "</div>"
