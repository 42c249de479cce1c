"""Runtime requirements as HTML: the "Runtime needs" block of one plan, and the comparison of two.

``device-explorer inspect`` prints what the runtime must provide (:mod:`explorer.analysis.requirements`:
planned buffers per device, the ``DeviceAllocator`` registrations, copy kernels and backends to link,
notes, problems). A runtime integrator reads the same facts in the widget and the report:

* :func:`requirements_html` — one plan, a collapsible ``<details>`` block (self-contained: it needs
  only the ``dx-req`` classes of the app's stylesheet, explorer/frontend/style.css); meant to sit under the
  per-device table of the single-program widget and report.
* :func:`requirements_diff_html` — both sides of a diff in one table, a row per device and per
  registration/kernel/backend, rows that differ marked ``+`` (new in B), ``-`` (gone) or ``~``
  (changed, both values shown); :func:`requirement_changes` counts them for the diff header.

Every string from the file (backend ids, kernel names, notes naming tensors) goes through ``html_text``.
"""

from __future__ import annotations

from explorer.analysis.requirements import DeviceNeed, Requirements, arena_list_text, copy_text
from explorer.views.fragments.tables import swatch
from explorer.views.escape import html_text as h
from explorer.analysis.requirements import requirements

__all__ = ["requirements_html", "requirements_diff_html", "requirement_changes"]

def _provider(d: DeviceNeed) -> str:
    if d.device.is_cpu:
        return "MemoryManager planned buffers"
    return f"DeviceAllocator (type {d.device.type}, {h(d.device.kind)}, index {d.device.index})"


def _need(d: DeviceNeed | None) -> str:
    """One device's needs as HTML: arenas, copies served, backends targeting it."""
    if d is None:
        return "<span class='dx-none'>not needed</span>"
    arenas = h(arena_list_text(d.arenas)) or "no arenas"
    parts = [f"{_provider(d)}: {arenas}"]
    served = copy_text(d)
    if served:
        parts.append(f"serves {h(served)}")
    if d.backends:
        parts.append("targeted by " + ", ".join(f"<span class='dx-code'>{h(b)}</span>" for b in d.backends))
    return "; ".join(parts)


def _registers(req: Requirements) -> dict[int, str]:
    return {a.device_type: f"DeviceAllocator for {h(a.kind)} (type {a.device_type}), index "
                           f"{', '.join(map(str, a.indices))}" for a in req.allocators}


def _rows(ra: Requirements | None, rb: Requirements) -> list[tuple[str, str, str, str, str]]:
    """(mark, key, what html, A html, B html) rows; mark is ``+``, ``-``, ``~`` or ``""``; key is plain
    text naming the row. ``ra`` None: one side only (every mark empty)."""
    rows = []
    before = {d.device: d for d in ra.devices} if ra else {}
    after = {d.device: d for d in rb.devices}
    for dev in sorted(set(before) | set(after)):
        a, b = before.get(dev), after.get(dev)
        mark = "" if ra is None else "+" if a is None else "-" if b is None else "~" if _need(a) != _need(b) else ""
        rows.append((mark, str(dev), swatch(dev), _need(a), _need(b)))
    regs_a, regs_b = (_registers(ra) if ra else {}), _registers(rb)
    for t in sorted(set(regs_a) | set(regs_b)):
        x, y = regs_a.get(t), regs_b.get(t)
        mark = "" if ra is None or x == y else "+" if x is None else "-" if y is None else "~"
        none = "<span class='dx-none'>not needed</span>"
        rows.append((mark, f"register device type {t}", "register", x or none, y or none))
    for label, xa, xb in (("link kernels", ra.copy_kernels if ra else (), rb.copy_kernels),
                          ("link backends", ra.backends if ra else (), rb.backends)):
        if not (xa or xb):
            continue

        def names(items) -> str:
            return ", ".join(f"<span class='dx-code'>{h(i)}</span>" for i in items) or "<span class='dx-none'>none</span>"

        mark = "" if ra is None or set(xa) == set(xb) else "+" if not xa else "-" if not xb else "~"
        rows.append((mark, label, label, names(xa), names(xb)))
    for label, xa, xb in (("note", ra.notes if ra else (), rb.notes), ("problem", ra.problems if ra else (), rb.problems)):
        for text in dict.fromkeys([*xa, *xb]):
            cls = "dx-problem" if label == "problem" else ""
            cell = f"<span class='{cls}'>{h(text)}</span>"
            in_a, in_b = text in xa, text in xb
            mark = "" if ra is None or (in_a and in_b) else "+" if in_b else "-"
            rows.append((mark, f"{label}: {text}", label, cell if in_a else "", cell if in_b else ""))
    return rows


def requirement_changes(ra: Requirements, rb: Requirements) -> list[tuple[str, str]]:
    """(mark, what) for every requirement row that differs between A and B (plain text ``what``)."""
    return [(mark, key) for mark, key, *_ in _rows(ra, rb) if mark]


def requirements_html(req: Requirements, *, open_: bool = False) -> str:
    """One plan's runtime needs as a collapsible block (``open_`` expands it)."""
    rows = _rows(None, req)
    body = "".join(f"<tr><td>{what}</td><td>{b}</td></tr>" for _, _, what, _, b in rows)
    needs = sum(1 for d in req.devices if not d.device.is_cpu)
    summary = (f"{needs} device{'s' * (needs != 1)} besides the CPU" if needs else "CPU only") + \
        (f" · <span class='dx-problem'>{len(req.problems)} problem{'s' * (len(req.problems) != 1)}</span>"
         if req.problems else "")
    return (f"<div class='dx-root dx-req'><details{' open' if open_ else ''}><summary>Runtime needs "
            f"<span class='dx-muted' style='font-weight:400'>· {summary} · what the runtime must provide to load "
            f"and run {h(req.plan)}</span></summary><table><colgroup><col style='width:110px'><col></colgroup>"
            f"{body}</table></details></div>")


def requirements_diff_html(ra: Requirements, rb: Requirements, name_a: str = "A", name_b: str = "B") -> str:
    """Both sides' runtime needs, one row per device/registration/kernels/backends/note, changes marked."""
    rows = _rows(ra, rb)
    cls = {"+": "dx-plus", "-": "dx-minus", "~": "dx-tilde"}
    body = "".join(f"<tr class='{cls.get(m, '')}'><td class='dx-mark'>{h(m)}</td><td>{what}</td><td>{a}</td>"
                   f"<td>{b}</td></tr>" for m, _, what, a, b in rows)
    changed = sum(1 for m, *_ in rows if m)
    note = (f"{changed} change{'s' * (changed != 1)}: + new in B, - no longer needed, ~ changed" if changed
            else "the runtime needs exactly the same")
    return (f"<div class='dx-root dx-req'><div class='dx-muted'>{h(note)}</div><table><colgroup>"
            f"<col style='width:18px'><col style='width:104px'><col><col></colgroup><tr><th></th><th></th>"
            f"<th><span class='dx-side-a'>A</span>{h(name_a)}</th><th><span class='dx-side-b'>B</span>{h(name_b)}</th>"
            f"</tr>{body}</table></div>")


def runtime_needs_html(view) -> str:
    """The "Runtime needs" block of one plan view (widget and report), from the analysis it already has.

    Open from the start when the plan needs a device besides the CPU: that is when the runtime must be set
    up specially (device registration, device kernels), the first thing a deployer has to know."""
    req = requirements(view.plan, view.analysis)
    return requirements_html(req, open_=any(not d.device.is_cpu for d in req.devices))
