"""The HTML the app shows as it comes: per-device totals, a finding's details and its list entry.

These are program-level tables, not drawings: the app draws every figure, label, hover text and the details of
tensors and instructions itself from the payload's column tables (explorer/frontend/lod_*.js). Every string from
the file goes through :func:`html_text`; styles are ``dx-`` classes of the app's stylesheet.
"""

from __future__ import annotations

from explorer.analysis.types import Finding
from explorer.model.program import Device, Plan, Tensor
from explorer.views.escape import html_text as h
from explorer.views.escape import visible
from explorer.views.palette import device_style, ordered_devices
from explorer.units import count_text, nbytes_text

__all__ = ["swatch", "finding_details", "device_table", "finding_label", "SEVERITY_MARK"]

SEVERITY_MARK = {"error": "✖", "warning": "▲", "info": "ℹ"}
_MAX_LIST = 40


def swatch(device: Device) -> str:
    """A coloured dot and the device name, as HTML."""
    style = device_style(device)
    extra = "" if device.known else " dx-unknown"
    return f"<span class='dx-sw{extra}' style='background-color:{style.color}'></span>{h(device)}"


def _rows(pairs) -> str:
    return "<table class='dx-kv'>" + "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in pairs) + "</table>"


def _value_ref(plan: Plan, index: int) -> str:
    value = plan.value(index)
    if isinstance(value, Tensor):
        suffix = f" <span class='dx-muted'>%{index}</span>" if value.name else ""
        return f"{swatch(value.device)} <b>{h(value.label)}</b>{suffix}"
    if value is None:
        return f"<span class='dx-muted'>%{index} (points nowhere)</span>"
    shown = "" if value.value is None else f" = {h(_short_repr(value.value))}"
    return f"<span class='dx-muted'>%{index} {h(value.type)}{shown}</span>"


def _short_repr(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _instr_ref(plan: Plan, index: int) -> str:
    if not 0 <= index < len(plan.instructions):
        return f"#{index} (points nowhere)"
    ins = plan.instructions[index]
    return f"<span class='dx-muted'>#{index}</span> <span class='dx-code'>{h(ins.label)}</span>"


def _ul(items) -> str:
    items = list(items)
    more = f"<li class='dx-muted'>… and {len(items) - _MAX_LIST} more</li>" if len(items) > _MAX_LIST else ""
    return "<ul class='dx-list'>" + "".join(f"<li>{i}</li>" for i in items[:_MAX_LIST]) + more + "</ul>"


def _finding_line(f: Finding) -> str:
    return f"<span class='dx-badge dx-{h(f.severity)}'>{SEVERITY_MARK.get(f.severity, '')} {h(f.code)}</span>{h(f.message)}"


def finding_details(plan: Plan, finding: Finding) -> str:
    rows = [("plan", h(finding.plan))]
    if finding.memory_id is not None:
        arena = plan.buffer(finding.memory_id)
        rows.append(("arena", f"{finding.memory_id}" + (f" on {swatch(arena.device)}" if arena else "")))
    if finding.values:
        rows.append(("values", _ul(_value_ref(plan, v) for v in finding.values)))
    if finding.instructions:
        rows.append(("instructions", _ul(_instr_ref(plan, i) for i in finding.instructions)))
    return f"<h4>{_finding_line(finding)}</h4>{_rows(rows)}"


def device_table(plan: Plan, analysis) -> str:
    """Per-device totals: tensors, arenas, peak live bytes and utilisation, constants, transfers."""
    head = ("device", "tensors", "arenas", "peak live", "use", "planned", "constants", "copies in", "copies out")
    rows = []
    totals = {t.device: t for t in analysis.memory.devices}
    for device in ordered_devices(totals):
        t = totals[device]
        use = f"{t.peak_live_bytes / t.arena_bytes:.0%}" if t.arena_bytes else "–"
        rows.append((swatch(device), count_text(t.tensors), h(nbytes_text(t.arena_bytes)), h(nbytes_text(t.peak_live_bytes)), use,
                     h(nbytes_text(t.planned_bytes)), h(nbytes_text(t.constant_bytes)),
                     f"{count_text(t.transfers_in)} · {h(nbytes_text(t.bytes_in))}" if t.transfers_in else "–",
                     f"{count_text(t.transfers_out)} · {h(nbytes_text(t.bytes_out))}" if t.transfers_out else "–"))
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return (f"<div class='dx-root'><table class='dx-tot'><tr>{''.join(f'<th>{c}</th>' for c in head)}</tr>"
            f"{body}</table></div>")


def finding_label(finding: Finding) -> str:
    """Plain text (not HTML; controls and bidi characters shown as escapes) for a findings list entry."""
    return visible(f"{SEVERITY_MARK.get(finding.severity, '·')} {finding.code} · {finding.plan}: {finding.message}")
