"""How text read from a file is made safe to *show*: the one rule every sink shares.

Names in a ``.pte`` are data. Beyond markup (escaped per sink in ``views/escape.py``), a name can hide
or reorder what surrounds it: U+202E RIGHT-TO-LEFT OVERRIDE, isolates, zero-width characters, ESC
sequences that drive a terminal. :func:`visible` shows every character ``str.isprintable`` rejects as
its Python escape (``\u202e``, ``\x1b``), so a name reads the same in the browser, the widget and
the terminal. It lives here, below every layer, so the CLI can use it without importing plotly.

A name put into a command a user copies (``--data FILE`` hints, the what-if line) is data too:
:func:`shell_path` quotes it so that bash and argparse read exactly the original, a leading ``-`` included
(``./-x.pte``; argparse would read ``-x.pte`` as an option). The browser's twin is ``shellQuote`` and
``fileWord`` in ``explorer/frontend/shell/moves.js``.
"""

from __future__ import annotations

import re
import shlex

__all__ = ["visible", "shell_word", "shell_path"]

_BARE = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")  # the words bash and argparse read as written (moves.js: shellQuote)


def visible(text: object) -> str:
    """``text`` with every non-printable character shown as its Python escape (module docstring).

    For plain-text sinks (``textContent``, widget descriptions and tooltips); :func:`html_text` and
    :func:`plotly_text` apply it themselves.
    """
    text = str(text)
    if text.isprintable():  # the common case, checked in C
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def shell_word(text: object) -> str:
    """One POSIX shell word that reads back as ``text``: bare when it holds only safe characters, else in
    single quotes (a quote inside as ``'\\''``), as ``moves.js``'s ``shellQuote``."""
    text = str(text)
    return text if _BARE.match(text) else shlex.quote(text)


def shell_path(path: object) -> str:
    """A file argument of a copyable command: :func:`shell_word`, after ``./`` when it starts with ``-`` so
    argparse takes it for a file, not an option (an absolute path starts with ``/``, never ``-``)."""
    path = str(path)
    return shell_word("./" + path if path.startswith("-") else path)
