"""What a notebook output shows where no widget manager draws the widget: a static summary, no script.

The widget's ``_repr_mimebundle_`` (:mod:`explorer.widget.base`) adds it as ``text/html`` beside the widget view.
A host that runs widgets (JupyterLab, Notebook 7, Voilà, VS Code) prefers the widget view and never shows it;
``jupyter nbconvert --to html`` of a notebook saved without its widget state (JupyterLab's default), GitHub and
other viewers show it instead of a blank output: the program's devices and arenas per plan, and the command that
writes the interactive report (each path quoted for a shell: ``shell_path``). Every string from the file goes through
:func:`html_text`; there is no style and no script, so a page that forbids both shows it the same.
"""

from __future__ import annotations

from explorer.safe_text import shell_path
from explorer.units import count_text, nbytes_text
from explorer.views.escape import html_text as h
from explorer.views.palette import ordered_devices
from explorer.views.state.plan import PlanView, program_summary

__all__ = ["program_fallback_html", "diff_fallback_html", "ARENAS_LISTED"]

ARENAS_LISTED = 8  # arenas named one by one per plan; the rest are counted


def _devices(view: PlanView) -> str:
    totals = {t.device: t for t in view.analysis.device_totals}
    rows = "".join(f"<tr><td>{h(d)}</td><td>{count_text(totals[d].tensors)}</td><td>{h(nbytes_text(totals[d].arena_bytes))}</td>"
                   f"<td>{h(nbytes_text(totals[d].peak_live_bytes))}</td></tr>" for d in ordered_devices(totals))
    return ("<table class='dx-fallback-devices'><tr><th>device</th><th>tensors</th><th>arenas</th><th>peak live</th></tr>"
            f"{rows}</table>")


def _arenas(view: PlanView) -> str:
    arenas = view.analysis.arenas
    items = "".join(f"<li>arena {a.memory_id} · {h(a.device)} · {h(nbytes_text(a.size))} · peak live "
                    f"{h(nbytes_text(a.peak_live_bytes))}</li>" for a in arenas[:ARENAS_LISTED])
    total = len(view.plan.buffers)
    more = f"<li>and {count_text(total - min(len(arenas), ARENAS_LISTED))} more</li>" if total > ARENAS_LISTED else ""
    return f"<ul class='dx-fallback-arenas'>{items}{more}</ul>" if items or more else ""


def _plans(views: dict[str, PlanView], findings) -> str:
    out = []
    for name, view in views.items():
        mine = [f for f in findings if f.plan == name]
        out.append(f"<p>{h(program_summary(view, mine))}</p>{_devices(view)}{_arenas(view)}")
    return "".join(out)


def program_fallback_html(name: str, views: dict[str, PlanView], findings) -> str:
    """The summary of one program (``name``: its file name) whose ``views`` the widget draws."""
    file = name if name.endswith((".pte", ".ptd")) else "FILE.pte"
    return ("<div class='dx-fallback'>"
            f"<p><b>ExecuTorch device explorer: {h(name)}</b> (a static summary: the interactive view needs a live "
            "Jupyter kernel and widgets)</p>"
            f"{_plans(views, findings)}"
            f"<p>The graph and memory map offline: <code>device-explorer show {h(shell_path(file))} -o report.html</code>, or "
            "<code>ex.save_html(\"report.html\")</code> in the notebook.</p></div>")


def diff_fallback_html(name_a: str, name_b: str, views_a: dict[str, PlanView], views_b: dict[str, PlanView]) -> str:
    """The summary of a diff: each side's plans as :func:`program_fallback_html` lists them."""
    return ("<div class='dx-fallback'>"
            f"<p><b>ExecuTorch device explorer: {h(name_a)} → {h(name_b)}</b> (a static summary: the interactive "
            "diff needs a live Jupyter kernel and widgets)</p>"
            f"<p>A: {h(name_a)}</p>{_plans(views_a, [])}<p>B: {h(name_b)}</p>{_plans(views_b, [])}"
            f"<p>Both graphs and memory maps offline: <code>device-explorer diff {h(shell_path(name_a))} {h(shell_path(name_b))} --html "
            "diff.html</code>, or <code>d.save_html(\"diff.html\")</code> in the notebook.</p></div>")
