"""Details panel, device totals and findings as HTML fragments (shared by the widget and the report).

Every string from the file goes through :func:`html_text`. Styles are classes under ``dx-`` defined
once in the app's stylesheet (explorer/frontend/style.css).
"""

from __future__ import annotations

from ..analysis.types import Finding, PlanAnalysis
from ..model import Device, Plan, Tensor
from .escape import html_text as h
from .escape import visible
from .palette import device_style, ordered_devices
from .text import fmt_bytes, fmt_shape, op_kind, where

__all__ = ["swatch", "value_details", "instruction_details", "finding_details",
           "device_table", "finding_label", "SEVERITY_MARK"]

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


def _findings_about(analysis: PlanAnalysis, values=(), instructions=()) -> list[Finding]:
    vs, ins = set(values), set(instructions)
    return [f for f in analysis.findings if vs & set(f.values) or ins & set(f.instructions)]


def _finding_line(f: Finding) -> str:
    return f"<span class='dx-badge dx-{h(f.severity)}'>{SEVERITY_MARK.get(f.severity, '')} {h(f.code)}</span>{h(f.message)}"


def value_details(plan: Plan, analysis: PlanAnalysis, index: int) -> str:
    value = plan.value(index)
    if not isinstance(value, Tensor):
        return f"<h4>%{index}</h4>{_value_ref(plan, index)}"
    rows = [("dtype", h(value.dtype)), ("shape", h(fmt_shape(value.sizes))), ("bytes", h(fmt_bytes(value.nbytes))),
            ("device", swatch(value.device)), ("storage", h(value.storage))]
    if value.memory_id is not None:
        arena = plan.buffer(value.memory_id)
        arena_text = f"arena {value.memory_id}"
        if arena is not None:
            arena_text += f" on {swatch(arena.device)} ({h(fmt_bytes(arena.size))})"
            if arena.device != value.device:
                arena_text += " <span class='dx-badge dx-error'>device differs from the tensor's</span>"
        else:
            arena_text += " <span class='dx-badge dx-error'>no such arena</span>"
        end = value.offset + value.nbytes if value.nbytes is not None else "?"
        rows += [("arena", arena_text), ("bytes at", f"[{value.offset}, {end})")]
    else:
        rows.append(("lives", h(where(value))))
    lifetime = analysis.lifetimes.get(index)
    if lifetime is not None:
        rows.append(("alive", f"#{lifetime.first} – #{lifetime.last}"))
    if value.shape_dynamism != "static":
        rows.append(("shape", h(value.shape_dynamism)))
    roles = [("plan input" if index in plan.inputs else ""), ("plan output" if index in plan.outputs else "")]
    if any(roles):
        rows.append(("role", " · ".join(r for r in roles if r)))
    producers = analysis.dataflow.producers.get(index, ())
    consumers = analysis.dataflow.consumers.get(index, ())
    if producers:
        rows.append(("written by", _ul(_instr_ref(plan, i) for i in producers)))
    if consumers:
        rows.append(("read by", _ul(_instr_ref(plan, i) for i in consumers)))
    findings = _findings_about(analysis, values=[index])
    if findings:
        rows.append(("findings", _ul(_finding_line(f) for f in findings)))
    suffix = f" <span class='dx-muted'>%{index}</span>" if value.name else ""
    return f"<h4>{swatch(value.device)} {h(value.label)}{suffix}</h4>{_rows(rows)}"


def instruction_details(plan: Plan, analysis: PlanAnalysis, index: int) -> str:
    if not 0 <= index < len(plan.instructions):
        return f"<h4>#{index}</h4><span class='dx-muted'>no such instruction</span>"
    ins = plan.instructions[index]
    rows = [("kind", f"{h(ins.kind)} · {op_kind(ins)}"), ("chain", str(ins.chain))]
    reads = analysis.dataflow.reads[index] if index < len(analysis.dataflow.reads) else ()
    writes = analysis.dataflow.writes[index] if index < len(analysis.dataflow.writes) else ()
    if ins.kind == "DelegateCall" and ins.delegate_index is not None and 0 <= ins.delegate_index < len(plan.delegates):
        delegate = plan.delegates[ins.delegate_index]
        blob = f"blob {h(delegate.location)} {h(fmt_bytes(delegate.data_size))}"
        rows.append(("delegate", f"<span class='dx-code'>{h(delegate.id)}</span> · {blob}"))
        if delegate.compile_specs:
            rows.append(("compile specs", _ul(f"<span class='dx-code'>{h(s.key)} = {h(s.text)}</span>"
                                              for s in delegate.compile_specs)))
    for t in analysis.transfers:
        if t.instruction == index and t.kind != "same":
            rows.append(("moves", f"{swatch(t.src_device)} → {swatch(t.dst_device)} · {h(fmt_bytes(t.nbytes))} ({t.kind})"))
    if reads:
        rows.append(("reads", _ul(_value_ref(plan, v) for v in reads)))
    if writes:
        rows.append(("writes", _ul(_value_ref(plan, v) for v in writes)))
    rows.append(("args", f"<span class='dx-code'>{h(', '.join('%' + str(a) for a in ins.values))}</span>"))
    if ins.stacktrace:
        # each field escaped on its own: only our newlines break lines (a "\n" in a context shows as \n)
        frames = "\n".join(h(f"{f.filename or '?'}:{f.lineno} in {f.name or '?'}") + (f"\n    {h(f.context)}" if f.context else "")
                           for f in ins.stacktrace)
        rows.append(("stack", f"<div class='dx-trace'>{frames}</div>"))
    findings = _findings_about(analysis, instructions=[index])
    if findings:
        rows.append(("findings", _ul(_finding_line(f) for f in findings)))
    return f"<h4><span class='dx-muted'>#{index}</span> <span class='dx-code'>{h(ins.label)}</span></h4>{_rows(rows)}"


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


def device_table(plan: Plan, analysis: PlanAnalysis) -> str:
    """Per-device totals: tensors, arenas, peak live bytes and utilisation, constants, transfers."""
    head = ("device", "tensors", "arenas", "peak live", "use", "planned", "constants", "copies in", "copies out")
    rows = []
    totals = {t.device: t for t in analysis.memory.devices}
    for device in ordered_devices(totals):
        t = totals[device]
        use = f"{t.peak_live_bytes / t.arena_bytes:.0%}" if t.arena_bytes else "–"
        rows.append((swatch(device), str(t.tensors), h(fmt_bytes(t.arena_bytes)), h(fmt_bytes(t.peak_live_bytes)), use,
                     h(fmt_bytes(t.planned_bytes)), h(fmt_bytes(t.constant_bytes)),
                     f"{t.transfers_in} · {h(fmt_bytes(t.bytes_in))}" if t.transfers_in else "–",
                     f"{t.transfers_out} · {h(fmt_bytes(t.bytes_out))}" if t.transfers_out else "–"))
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return (f"<div class='dx-root'><table class='dx-tot'><tr>{''.join(f'<th>{c}</th>' for c in head)}</tr>"
            f"{body}</table></div>")


def finding_label(finding: Finding) -> str:
    """Plain text (not HTML; controls and bidi characters shown as escapes) for a findings list entry."""
    return visible(f"{SEVERITY_MARK.get(finding.severity, '·')} {finding.code} · {finding.plan}: {finding.message}")
