"""JSON from other people's files, parsed within limits: a clear error, never a RecursionError or a bignum.

``json.loads`` alone turns a file of ten thousand ``[`` into a ``RecursionError``, a 5,000-digit number into a
``ValueError`` from ``int()`` (Python's 4,300-digit guard) or seconds of bignum work under that guard, and lets a
document nest as deep as the interpreter allows, which the code walking it afterwards may not. :func:`loads`
bounds all three: numbers longer than ``max_number`` characters are refused as the parser meets them (the
hooks see the literal before any conversion), nesting past ``max_depth`` is refused after one linear walk, and
the interpreter's own recursion limit becomes the same :class:`~explorer.errors.JsonInputError`. Every reader
of JSON a user gives us goes through here (overlay files; an ETRecord's members keep their own reader's
messages but the same limits).
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from explorer.errors import JsonInputError

__all__ = ["loads", "MAX_DEPTH", "MAX_NUMBER"]

MAX_DEPTH = 256  # nesting of arrays and objects; real overlays nest 2, an ETRecord's graph JSON under 50
MAX_NUMBER = 400  # characters of one number literal: a double needs under 30, an int64 20


def _number(limit: int, convert):
    def parse(literal: str):
        if len(literal) > limit:
            raise JsonInputError(f"a number of {len(literal):,} characters (more than {limit} is not a number "
                                 f"any reader here uses)")
        return convert(literal)
    return parse


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_number: int = MAX_NUMBER) -> Any:
    """``json.loads(text)`` within the limits; :class:`JsonInputError` (a ``ValueError``, with ``pos`` when the
    parser names one) for anything that is not JSON or exceeds them."""
    try:
        doc = json.loads(text, parse_int=_number(max_number, int), parse_float=_number(max_number, float))
    except JsonInputError:
        raise
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})", pos=exc.pos) from None
    except UnicodeDecodeError as exc:
        raise JsonInputError(f"not UTF-8 text ({exc.reason})", pos=exc.start) from None
    except RecursionError:
        raise JsonInputError(f"nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # anything else the decoder refuses
        raise JsonInputError(f"not JSON ({exc})") from None
    _check_depth(doc, max_depth)
    return doc


def _check_depth(doc: Any, max_depth: int) -> None:
    """One walk over every container (iterative: the walk itself never recurses)."""
    stack = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            raise JsonInputError(f"nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
