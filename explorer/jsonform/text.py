"""The JSON documents' text, as the CLI writes them (``inspect``, ``check``, ``diff``, ``whatif`` with ``--json``).

Indented as ``json.dumps(doc, indent=1)`` is, except that a record (a dict or list holding no dict or list of more
than scalars, such as one value, one instruction or a list of indices) is written on one line. Why: with ``indent``,
the standard library encodes in pure Python, chunk by chunk; a 10 MB program of 47k values took 17 s to print
(3.7M chunks) and one listing a table 2.4M times ~12 s. Records go through the C encoder in one call each, so the
document costs about what its records hold. Parsed, the text is the same document (``json.loads``); ASCII only, as
the standard encoder writes it, so no name from a file reaches the terminal unescaped.
"""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Callable, Iterator, TextIO

__all__ = ["json_text", "write_json"]

_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_record(obj) -> bool:
    """A dict or list whose items are scalars or lists of scalars: written on one line. By the items' types, as sets
    (checked in C: a million arenas' records are two million checks)."""
    items = obj.values() if isinstance(obj, dict) else obj
    types = set(map(type, items))
    if types <= _SCALARS:
        return True
    if not types <= _SCALARS | {list}:
        return False
    return all(set(map(type, item)) <= _SCALARS for item in items if type(item) is list)


def _inline(obj) -> bool:
    """Written on one line: a scalar, an empty dict or list, or a record."""
    return not isinstance(obj, (dict, list)) or not obj or _is_record(obj)


def json_text(doc, *, sort_keys: bool = False) -> str:
    """``doc`` as indented JSON text, its records one per line (module docstring), ending with a newline."""
    return "".join(_pieces(doc, sort_keys))


def write_json(doc, out: TextIO, *, sort_keys: bool = False) -> None:
    """:func:`json_text` written to ``out`` in pieces of about 64 KiB: never the whole text at once (a pipe's reader
    that leaves, ``| head``, is then seen at the next piece: the CLI's quiet SIGPIPE status), nor a write per token."""
    block: list[str] = []
    size = 0
    for piece in _pieces(doc, sort_keys):
        block.append(piece)
        size += len(piece)
        if size >= 1 << 16:
            out.write("".join(block))
            block, size = [], 0
    out.write("".join(block))


def _one_line(sort_keys: bool) -> Callable[[object], str]:
    """A record as compact JSON text on one line (``", "`` and ``": "`` between items), as ``json.dumps`` writes it:
    through one C encoder made once (``json.dumps`` makes one per call: most of the time of a million small records)."""
    encoder = json.JSONEncoder(sort_keys=sort_keys, separators=(", ", ": "))
    if c_make_encoder is None:  # no C accelerator: the standard library's own path
        return encoder.encode
    make = c_make_encoder(None, encoder.default, encode_basestring_ascii, None, ": ", ", ", sort_keys, False, True)
    return lambda obj: "".join(make(obj, 0))


def _pieces(doc, sort_keys: bool) -> Iterator[str]:
    one_line = _one_line(sort_keys)

    def put(obj, depth: int) -> Iterator[str]:
        if _inline(obj):
            yield one_line(obj)
            return
        pad, inner = "\n" + " " * depth, "\n" + " " * (depth + 1)
        if isinstance(obj, dict):
            yield "{"
            keys = sorted(obj) if sort_keys else list(obj)
            for k, key in enumerate(keys):
                yield ("," if k else "") + inner + one_line(str(key)) + ": "
                yield from put(obj[key], depth + 1)
            yield pad + "}"
        else:
            yield "["
            sep = inner
            for item in obj:  # a list of records (values, instructions, arenas) without a generator per item
                if _inline(item):
                    yield sep + one_line(item)
                else:
                    yield sep
                    yield from put(item, depth + 1)
                sep = "," + inner
            yield pad + "]"

    yield from put(doc, 0)
    yield "\n"
