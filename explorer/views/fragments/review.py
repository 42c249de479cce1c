"""HTML of a placement diff: the review header (summary counts) and the details of a selected pair.

The header answers the review questions in one glance, as chips: how many tensors moved between
devices (and where to), copies added/removed (bytes per run), arenas changed, what the runtime must
now provide differently, and how trustworthy the pairing is (guesses by op occurrence, ambiguous
pairs). The details panel shows a tensor and its counterpart as a before → after table (A column, B
column, rows that changed highlighted — the fields :class:`~explorer.analysis.diff.compare.ValueChange` names),
plus the copies of that tensor that appeared or disappeared; an instruction shows both sides' ops.
Strings from either file go through ``html_text``; ``visible`` keeps plain text honest.
"""

from __future__ import annotations

from explorer.analysis.arrays import unique
from explorer.analysis.diff.compare import CopyChange
from explorer.model.program import Tensor
from explorer.views.fragments.tables import swatch
from explorer.views.state.diff import DiffPlanView
from explorer.views.diff_style import graph_legend_html, legend_html, status_badge
from explorer.views.escape import html_text as h
from explorer.views.state.plan import PlanView
from explorer.views.fragments.requirements import requirement_changes
from explorer.units import nbytes_text
from explorer.views.words import fmt_shape, where
from explorer.analysis.groups import OP_KINDS

__all__ = ["summary_html", "pair_details", "EMPTY_DETAILS"]

EMPTY_DETAILS = ("<div class='dx-root dx-diff'><span class='dx-muted'>Click a tensor or an op in either graph (or a "
                 "block of the memory map): it and its counterpart on the other side are selected, and the "
                 "change is shown here field by field.</span></div>")
# ValueChange.changes entry -> the rows of the comparison table it marks
_CHANGED_ROWS = {"device": ("device",), "arena": ("arena",), "offset": ("bytes at",), "storage": ("storage",),
                 "dtype": ("dtype", "bytes"), "sizes": ("shape", "bytes")}


def _side_tag(side: str) -> str:
    return f"<span class='dx-side-{side}'>{side.upper()}</span>"


def _chip(label: str, value: str, hot: bool = False) -> str:
    return f"<span class='dx-chip{' dx-hot' if hot else ''}'>{label} <b>{value}</b></span>"


def summary_html(dv: DiffPlanView) -> str:
    """Header: ``A → B``, chips with the review counts (as ``device-explorer diff`` counts them) and the
    ring legend."""
    p = dv.diff
    moved = [v for v in p.values if v.status == "device"]  # computed tensors and copy targets: what is ringed
    computed = sum(1 for v in moved if v.kind == "value")
    routes: dict[str, int] = {}
    for v in moved:
        key = f"{v.a.device} → {v.b.device}"  # type: ignore[union-attr]
        routes[key] = routes.get(key, 0) + 1
    added = [c for c in p.copies if c.status == "added"]
    removed = [c for c in p.copies if c.status == "removed"]
    retargeted = sum(1 for c in p.copies if c.status == "device")
    delta = sum(c.b.nbytes or 0 for c in added if c.b) - sum(c.a.nbytes or 0 for c in removed if c.a)
    arenas = [a for a in p.arenas if a.status != "same"]
    needs = requirement_changes(p.requirements_a, p.requirements_b)
    m = p.matching
    chips = [
        _chip("moved between devices", str(len(moved)) + (f" ({', '.join(f'{n} {r}' for r, n in routes.items())}"
                                                         + (f"; {computed} computed, {len(moved) - computed} copy targets"
                                                            if computed != len(moved) else "") + ")"
                                                         if routes else ""), hot=bool(moved)),
        _chip("copies", f"+{len(added)} −{len(removed)}" + (f" ({'+' if delta >= 0 else '−'}{nbytes_text(abs(delta))}"
                                                            f" per run)" if added or removed else "")
              + (f", {retargeted} retargeted" if retargeted else ""), hot=bool(added or removed or retargeted)),
        _chip("arena changes", str(len(arenas)) + (f" ({', '.join(sorted({a.status for a in arenas}))})" if arenas else ""),
              hot=bool(arenas)),
        _chip("runtime-needs changes", str(len(needs)), hot=bool(needs)),
    ]
    other = sum(p.counts["values"][s] for s in ("shape", "arena", "added", "removed"))
    if other:
        chips.append(_chip("other tensor changes", str(other)))
    new = sum(1 for f in p.findings if f.status == "new")
    fixed = sum(1 for f in p.findings if f.status == "fixed")
    chips.append(_chip("findings", f"{new} new, {fixed} fixed", hot=bool(new)))
    guesses = m.get("op-occurrence", 0) + m.get("ambiguous", 0)
    if guesses:
        chips.append(_chip("pairs to double-check", f"{m.get('op-occurrence', 0)} by op occurrence, "
                                                     f"{m.get('ambiguous', 0)} ambiguous", hot=True))
    statuses = set(p.status_a.values()) | set(p.status_b.values())
    ops = set(p.instruction_status_a.values()) | set(p.instruction_status_b.values())
    return (f"<div class='dx-root dx-diff'><div style='font-size:15px'>{_side_tag('a')}<b>{h(dv.name_a)}</b> → "
            f"{_side_tag('b')}<b>{h(dv.name_b)}</b> <span class='dx-muted'>· plan {h(p.plan)}</span></div>"
            f"<div class='dx-chips'>{''.join(chips)}</div>"
            f"{legend_html(statuses, ops)}{_graph_legend(dv)}{_overview_note(dv)}</div>")


def _overview_note(dv: DiffPlanView) -> str:
    """Say how a folded group shows the changes it holds; nothing when both sides open with every group expanded (a
    small pair): there is no folded group to speak of."""
    if not any(dv.side(s).overview.opens_folded for s in ("a", "b")):
        return ""
    return ("<div class='dx-legend dx-muted'><span><span class='dx-delta'>Δ12</span> a folded group holding 12 "
            "changes (ringed in the colour of its weightiest change, in the order above) — click it to expand (its "
            "counterpart on the other side opens with it); a click on a tensor or op selects its counterpart on the "
            "other side and opens the group holding it</span></div>")


def _graph_legend(dv: DiffPlanView) -> str:
    parts = [_legend_parts(dv.side(s)) for s in ("a", "b")]
    return graph_legend_html([d for p in parts for d in p[0]], {k for p in parts for k in p[1]},
                             {k for p in parts for k in p[2]})


def _legend_parts(view: PlanView) -> tuple[list, set[str], set[str]]:
    """(tensor devices, op kinds, edge kinds) a side draws, from its columns (no per-tensor records)."""
    f = view.analysis.facts
    devices = [f.device(int(c)) for c in unique(f.dcode[f.is_tensor])]
    kinds = {OP_KINDS[int(k)] for k in unique(view.overview.groups.op_kind)}
    return devices, kinds, {t.kind for t in view.analysis.transfers}


# -- one tensor and its counterpart ----------------------------------------------------------------

def _writer(view: PlanView, v: int) -> str:
    writers = view.analysis.dataflow.producers.get(v, ())
    if not writers:
        return "<span class='dx-muted'>no writer (input or constant)</span>"
    ins = view.plan.instructions[writers[0]]
    return f"<span class='dx-muted'>#{ins.index}</span> <span class='dx-code'>{h(ins.label)}</span>"


def _role(view: PlanView, v: int) -> str:
    plan = view.plan
    roles = [f"input {k}" for k, x in enumerate(plan.inputs) if x == v] + \
        [f"output {k}" for k, x in enumerate(plan.outputs) if x == v]
    return ", ".join(roles)


def _cells(view: PlanView, v: int | None) -> dict[str, str]:
    """The comparison rows of one side's tensor (empty when there is no such tensor)."""
    if v is None:
        return {}
    t = view.plan.value(v)
    if not isinstance(t, Tensor):
        return {"value": f"%{v}"}
    cells = {"value": f"%{v}" + (f" <b>{h(t.name)}</b>" if t.name else ""), "dtype": h(t.dtype),
             "shape": h(fmt_shape(t.sizes)), "bytes": h(nbytes_text(t.nbytes)), "device": swatch(t.device),
             "storage": h(t.storage)}
    if t.memory_id is not None:
        arena = view.plan.buffer(t.memory_id)
        cells["arena"] = f"#{t.memory_id}" + (f" on {swatch(arena.device)}" if arena else "")
        end = t.offset + t.nbytes if t.nbytes is not None else "?"
        cells["bytes at"] = f"[{t.offset}, {end})"
    else:
        cells["arena"] = h(where(t))
    lifetime = view.analysis.lifetimes.get(v)
    if lifetime is not None:
        cells["alive"] = f"#{lifetime.first} – #{lifetime.last}"
    cells["written by"] = _writer(view, v)
    role = _role(view, v)
    if role:
        cells["role"] = h(role)
    return cells


def _copy_line(c: CopyChange) -> str:
    side = c.b or c.a
    mark = {"added": "+", "removed": "−", "device": "~"}.get(c.status, "")
    which = "B" if c.b else "A"
    route = f"{swatch(side.src_device)} → {swatch(side.dst_device)}"  # type: ignore[union-attr]
    if c.status == "device" and c.a:
        route += f" <span class='dx-muted'>(was {h(c.a.src_device)} → {h(c.a.dst_device)})</span>"
    return (f"<li>{status_badge(c.status)}<b>{mark}</b> {h(c.direction)} {route} · {h(nbytes_text(side.nbytes))} "  # type: ignore[union-attr]
            f"<span class='dx-muted'>#{side.instruction} in {which}</span></li>")  # type: ignore[union-attr]


def pair_details(dv: DiffPlanView, side: str, v: int) -> str:
    """A changed tensor of ``side`` and its counterpart: status, before → after table, copies of it that
    changed. Each side's own details are written in the browser from its tables (diff_lod.js)."""
    a_v, b_v = (v, dv.pair("a", v)) if side == "a" else (dv.pair("b", v), v)
    status = dv.status(side).get(v, "same")
    change = dv.changes.get((side, v))
    ca, cb = _cells(dv.a, a_v), _cells(dv.b, b_v)
    marked = {row for c in (change.changes if change else ()) for row in _CHANGED_ROWS.get(c, ())}
    if ca.get("written by") and cb.get("written by") and _op_text(dv.a, a_v) != _op_text(dv.b, b_v):
        marked.add("written by")
    none = {"a": "<span class='dx-none'>not in A (added in B)</span>",
            "b": "<span class='dx-none'>not in B (removed)</span>"}
    rows = []
    for key in dict.fromkeys([*ca, *cb]):
        a_cell = ca.get(key, none["a"] if a_v is None and key == "value" else "")
        b_cell = cb.get(key, none["b"] if b_v is None and key == "value" else "")
        cls = " class='dx-changed'" if key in marked else ""
        arrow = " →" if key in marked else ""
        rows.append(f"<tr{cls}><td>{h(key)}{arrow}</td><td>{a_cell}</td><td>{b_cell}</td></tr>")
    label = (dv.side(side).plan.value(v).label if isinstance(dv.side(side).plan.value(v), Tensor) else f"%{v}")
    rule = ""
    if change and change.rule:
        rule = f"paired by {h(change.rule)}" + (" · <b>ambiguous</b> (chosen among equal candidates)"
                                                 if change.ambiguous else "")
    elif a_v is not None and b_v is not None:
        rule = "paired"
    notes = [rule] if rule else []
    made_at, touching = dv.copy_index
    if change and change.kind == "copy":
        found = [made_at[k] for k in (("a", a_v), ("b", b_v)) if k in made_at]
        made = dv.diff.copies[min(found)] if found else None
        notes.append(f"{h(made.direction)} copy of {h(made.of)}" if made else "a copy (et_copy)")
    at = sorted(set(touching.get(("a", a_v), []) if a_v is not None else []) |
                set(touching.get(("b", b_v), []) if b_v is not None else []))
    copies = [dv.diff.copies[k] for k in at]
    copy_html = (f"<div style='margin-top:6px'><b>copies of it that changed</b><ul class='dx-list'>"
                 f"{''.join(_copy_line(c) for c in copies[:12])}</ul></div>") if copies else ""
    return (f"<div class='dx-root dx-diff'><h4>{status_badge(status)}{h(label)} "
            f"<span class='dx-muted'>{'%' + str(a_v) if a_v is not None else '—'} → "
            f"{'%' + str(b_v) if b_v is not None else '—'}</span></h4>"
            f"<div class='dx-muted'>{' · '.join(notes)}</div>"
            f"<table class='dx-cmp'><tr><th></th><th>{_side_tag('a')}{h(dv.name_a)}</th>"
            f"<th>{_side_tag('b')}{h(dv.name_b)}</th></tr>{''.join(rows)}</table>{copy_html}</div>")


def _op_text(view: PlanView, v: int | None) -> str | None:
    if v is None:
        return None
    writers = view.analysis.dataflow.producers.get(v, ())
    return view.plan.instructions[writers[0]].label if writers else None
