"""How text read from a file is made safe to *show*: the one rule every sink shares.

Names in a ``.pte`` are data. Beyond markup (escaped per sink in ``views/escape.py``), a name can hide
or reorder what surrounds it: U+202E RIGHT-TO-LEFT OVERRIDE, isolates, zero-width characters, ESC
sequences that drive a terminal. :func:`visible` shows every character ``str.isprintable`` rejects as
its Python escape (``\u202e``, ``\x1b``), so a name reads the same in the browser, the widget and
the terminal. It lives here, below every layer, so the CLI can use it without importing plotly.
"""

from __future__ import annotations

__all__ = ["visible"]


def visible(text: object) -> str:
    """``text`` with every non-printable character shown as its Python escape (module docstring).

    For plain-text sinks (``textContent``, widget descriptions and tooltips); :func:`html_text` and
    :func:`plotly_text` apply it themselves.
    """
    text = str(text)
    if text.isprintable():  # the common case, checked in C
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
