"""How sizes and counts read: one rule for the CLI, the HTML pages and the browser app.

The browser's twin is ``explorer/frontend`` ``bytesText``/``countText``; both are checked on one table,
``tests/fixtures/shared/number_formats.json``, so "1,280 B" reads "1.2 KiB" everywhere. A leaf module:
it imports nothing of the project, so every layer (the checks' messages included) can use it.

Rules: below 1 KiB a size is ``N B`` with thousands separators; above, the largest binary unit that fits
(KiB, MiB, GiB, TiB) with one decimal, rounded as ``format(x, ".1f")`` rounds (exact ties to even), moving
up a unit when that would read ``1024.0``; an unknown or negative size is ``?``. A count has a comma every
three digits.
"""

from __future__ import annotations

__all__ = ["nbytes_text", "count_text", "count"]

_UNITS = (("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40))


def nbytes_text(n: int | None) -> str:
    """``48 B``, ``1,023 B``, ``1.5 KiB``, ``3.0 MiB``; ``?`` when unknown (``None`` or negative)."""
    if n is None or n < 0:
        return "?"
    if n < 1024:
        return f"{n:,} B"
    for k, (unit, scale) in enumerate(_UNITS):
        bigger = _UNITS[k + 1] if k + 1 < len(_UNITS) else None
        if bigger is None or n < bigger[1]:
            text = format(n / scale, ".1f")
            if text == "1024.0" and bigger is not None:
                return f"1.0 {bigger[0]}"
            whole, _, tenth = text.partition(".")
            return f"{int(whole):,}.{tenth} {unit}"
    raise AssertionError("unreachable: the last unit takes every size")


def count_text(n: int) -> str:
    """``5,200``: an integer with a comma every three digits."""
    return f"{n:,}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 value``, ``2 values``, ``1,024 entries`` (``plural`` when adding an s is wrong): every count a
    person reads, so a plan with one value never says "1 values"."""
    return f"{count_text(n)} {noun if n == 1 else (plural or noun + 's')}"
