"""Escaping for every string that comes from a ``.pte`` before it reaches a browser.

A program is untrusted input: tensor names, operator names, delegate ids, compile specs and stack
traces are whatever bytes the file holds. Three sinks, three rules:

* HTML (details panel, findings list, the report page): :func:`html_text` — ``&<>"'`` escaped.
* Plotly text (hover text, tick labels, annotations): plotly renders a small HTML subset (``<b>``,
  ``<br>``, ``<a href>``...) from these strings, and decodes only ``&amp; &lt; &gt;`` and numeric
  entities back — so :func:`plotly_text` escapes exactly ``&<>`` (``&quot;`` would print literally).
* JSON inside ``<script>``: :func:`script_json`. In a script element the HTML tokenizer only looks
  for ``</`` (an end tag) and ``<!--`` (an escaped-data state); so ``</`` becomes ``<\\/`` and ``<!``
  becomes ``\\u003c!`` (both still parse as the same JSON string), as do the JS line separators.
  Other ``<`` stay as they are: escaping every one would grow a report of HTML fragments sixfold.
"""

from __future__ import annotations

import html
import json

__all__ = ["html_text", "plotly_text", "script_json", "shorten"]


def html_text(text: object) -> str:
    """``text`` as HTML character data or a quoted attribute value."""
    return html.escape(str(text), quote=True)


def plotly_text(text: object) -> str:
    """``text`` for plotly's pseudo-HTML strings (hover text, labels, annotations)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_SCRIPT_UNSAFE = {"</": "<\\/", "<!": "\\u003c!", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(obj: object = None, *, encoded: str | None = None) -> str:
    """JSON text safe to place inside ``<script type="application/json">`` (or a JS expression).

    Pass ``encoded`` to make already-serialised JSON (e.g. ``fig.to_json()``) safe instead.
    """
    text = encoded if encoded is not None else json.dumps(obj, separators=(",", ":"), allow_nan=False)
    for unsafe, replacement in _SCRIPT_UNSAFE.items():
        text = text.replace(unsafe, replacement)
    return text


def shorten(text: str, limit: int = 36) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (before escaping, never inside an entity)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
