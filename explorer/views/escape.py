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

Invisible and reordering characters (:func:`visible`, applied by :func:`html_text` and
:func:`plotly_text`, and on its own to text that reaches the page as plain text — ``textContent``,
widget labels, tooltips, dropdown options): escaping markup is not enough, because a name can also
*look* like something else. U+202E RIGHT-TO-LEFT OVERRIDE turns ``abc\u202eexe.txt`` into
``abctxt.exe`` and, unclosed, reorders the UI text after it; the isolates U+2066–U+2069, the marks,
zero-width characters, ESC and the other controls hide in plain sight. Policy: every character
Python's :meth:`str.isprintable` calls non-printable — controls (C0, DEL, C1, including tab and
newline), format characters (bidi embeddings/overrides/isolates/marks, zero-width space/joiners, BOM,
soft hyphen, tag characters), line/paragraph separators, spaces other than U+0020, private-use and
unassigned code points — is *shown* as its Python escape (``\u202e``, ``\x1b``, ``\n``), the same
form ``repr()`` prints, so a name reads the same in the browser, the widget and the terminal. Nothing
is dropped (the user sees that the file holds a control character), the text stays one line (a
stack-trace context can't forge frames), and the transform is idempotent (a backslash is printable).
A name that literally contains the six characters ``\u202e`` shows the same as one holding U+202E;
that ambiguity is harmless (both are shown, neither acts). Names are never made into links: no
string from the file becomes an ``href``/``src``, so ``javascript:`` is just text.

Values that are compared but never displayed (an ``<option value>`` matched against a plan name in
the report's script) keep the raw text: :func:`html_attr`.
"""

from __future__ import annotations

import html
import json

from explorer.safe_text import visible

__all__ = ["html_attr", "html_text", "plotly_text", "script_json", "shorten", "visible"]


def html_text(text: object) -> str:
    """``text`` as HTML character data or a quoted attribute value that is displayed."""
    return html.escape(visible(text), quote=True)


def html_attr(text: object) -> str:
    """``text`` as a quoted attribute value that is compared, not displayed (keeps it as it is)."""
    return html.escape(str(text), quote=True)


def plotly_text(text: object) -> str:
    """``text`` for plotly's pseudo-HTML strings (hover text, labels, annotations)."""
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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
