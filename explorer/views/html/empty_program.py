"""A program with no execution plans (valid, if useless), as the app's plain page: the same words as the
report's page for it (``views/html/report.py`` ``_empty_report``), so ``Explorer(program)`` answers what
``device-explorer show`` writes instead of raising.

The fragment goes through the app's ``data`` mode (``frontend/app/datafile.js``: an escaped fragment, no graph).
"""

from __future__ import annotations

from pathlib import Path

from explorer.analysis.types import Finding
from explorer.model.program import Program
from explorer.views.escape import html_text as h
from explorer.views.escape import visible
from explorer.views.fragments.tables import finding_label

__all__ = ["empty_program_fragment", "empty_program_payload", "NO_PLANS"]

NO_PLANS = ("This program has no execution plans (methods), so no tensor or arena is placed on any device: "
            "there is nothing to draw.")


def _name(program: Program, title: str | None) -> str:
    return title or (Path(program.source).name if program.source else "program")


def empty_program_fragment(program: Program, findings: list[Finding], title: str | None = None) -> str:
    """Heading, the no-plans sentence with the program's segments and size, and its findings."""
    items = "".join(f"<li>{h(finding_label(f))}</li>" for f in findings) or "<li>no findings</li>"
    return (f"<div class='dx-root'><h4>{h(_name(program, title))} <span class='dx-muted'>· no execution plans"
            f"</span></h4><p>{NO_PLANS} {len(program.segments)} segment(s), {program.size:,} bytes.</p>"
            f"<h4>Findings</h4><ul>{items}</ul></div>")


def empty_program_payload(program: Program, findings: list[Finding], title: str | None = None) -> dict:
    """What the app draws for it: ``mode: "data"`` with the fragment (no plans, no selection)."""
    return {"mode": "data", "title": visible(_name(program, title)),
            "html": empty_program_fragment(program, findings, title)}
