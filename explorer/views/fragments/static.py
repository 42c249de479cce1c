"""What a notebook output shows where no script runs: a saved page opened offline (its widget manager comes from a CDN),
a notebook viewer, an export made without the widgets' state.

The widget's output bundle carries this ``text/html`` beside its widget view (``Explorer._repr_mimebundle_``): a host
that draws widgets shows the widget, anything else shows this — the program's plans, tensors per device, arenas and
findings in words (the lines ``device-explorer show`` prints), and how to get the interactive view without a kernel.
Plain HTML, no drawing and no script; every name from the file escaped.
"""

from __future__ import annotations

import shlex

from explorer.analysis.types import Finding
from explorer.views.escape import html_text as h
from explorer.views.state.plan import PlanView, arena_summary, program_summary

__all__ = ["static_summary_html"]


def static_summary_html(title: str, views: dict[str, PlanView], findings: list[Finding], source: str | None) -> str:
    """``title``'s plans in words, and the two ways to the offline report (``source``: the file, when there is one)."""
    items = []
    for name, view in views.items():
        arenas = arena_summary(view)
        line = program_summary(view, [f for f in findings if f.plan == name]) + (f" [arenas {arenas}]" if arenas else "")
        items.append(f"<li>{h(line)}</li>")
    command = f"device-explorer show {shlex.quote(str(source))}" if source else "device-explorer show FILE.pte"
    return (f"<div class='dx-root dx-static'><p><b>{h(title)}</b> · ExecuTorch device explorer — a summary in words: "
            f"the interactive graph and memory map need a live Python kernel here.</p><ul>{''.join(items)}</ul>"
            f"<p>To see them without a kernel, save the offline report: <code>ex.save_html(\"report.html\")</code> "
            f"in Python, or <code>{h(command)}</code>.</p></div>")
