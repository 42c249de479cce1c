"""The offline page of a what-if: :func:`explorer.views.payload.whatif.whatif_payload` in the report's shell.

``device-explorer whatif FILE --move ... -o r.html`` and ``show FILE --move ... -o r.html`` write it; the page
cannot predict (the emulation is Python), so moves added in the browser become a pending command.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.outputs import refuse_inputs, write_text
from explorer.model.program import Program
from explorer.views.html.page import page_html
from explorer.views.payload.whatif import whatif_payload

__all__ = ["whatif_report_html", "write_whatif_report"]


def whatif_report_html(original: Program, predicted: Program, *, plan: str | None = None, result=None) -> str:
    """The offline page of :func:`whatif_payload`."""
    name = Path(original.source).name if original.source else "program"
    moves = ", ".join(f"{s}={d}" for s, d in predicted.prediction.moves) if predicted.prediction else ""
    return page_html(f"{name} · what-if {moves}".strip(), whatif_payload(original, predicted, plan=plan, result=result))


def write_whatif_report(original: Program, predicted: Program, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`whatif_report_html` to ``path`` (UTF-8) and return the path: atomically, and never
    over an input (:mod:`explorer.outputs`)."""
    refuse_inputs(path, (original, predicted))  # before the work, not after it
    return write_text(path, whatif_report_html(original, predicted, **kwargs), inputs=(original, predicted))
