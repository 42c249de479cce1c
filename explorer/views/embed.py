"""The app's data as it travels: compact JSON, gzip-compressed; raw bytes in the widget's binary trait,
base64 text in a report page. The browser decompresses it with its own ``DecompressionStream``.

base64 text has no ``<``, ``&`` or quote, so no string from a ``.pte`` file can end or escape the
page's data element, whatever it holds; the app shows strings from the file only as text
(``textContent``) or as HTML escaped in Python.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
import zlib

import numpy as np

__all__ = ["to_json", "pack", "data_element", "page_payload", "DATA_TYPE"]

DATA_TYPE = "application/x-dx-gzip-base64"  # inert for the browser: never run, read by the page's module


def _plain(obj):
    """numpy values as JSON (NaN, the edge separator, as null)."""
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind != "f":
            return obj.tolist()
        if obj.ndim > 1:  # a heatmap's z: gaps (NaN) as null, float32 noise rounded away
            return np.where(np.isnan(obj), None, np.round(obj.astype(np.float64), 4)).tolist()
        return [None if math.isnan(x) else x for x in obj.tolist()]
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"cannot send {type(obj).__name__} to the browser")


def to_json(payload: dict) -> str:
    # not plotly's encoder: it writes every "<" as \u003c, which grows HTML fragments sixfold
    return json.dumps(payload, default=_plain, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


def pack(payload: dict) -> bytes:
    """``payload`` as gzip-compressed UTF-8 JSON (reproducible: no timestamp)."""
    return gzip.compress(to_json(payload).encode("utf-8"), compresslevel=3, mtime=0)


def data_element(payload: dict) -> str:
    """The page's data element: the packed payload as base64 text."""
    return f'<script type="{DATA_TYPE}" id="dx-data">{base64.b64encode(pack(payload)).decode("ascii")}</script>'


def page_payload(html: str) -> dict:
    """The payload a report page carries (for tests and tools reading a saved report)."""
    match = re.search(rf'<script type="{re.escape(DATA_TYPE)}" id="dx-data">([A-Za-z0-9+/=]*)</script>', html)
    if not match:
        raise ValueError("no device-explorer data element in this page")
    return json.loads(zlib.decompress(base64.b64decode(match.group(1)), wbits=31).decode("utf-8"))
