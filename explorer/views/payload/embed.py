"""The app's data as it travels: compact JSON, gzip-compressed; raw bytes in the widget's binary trait,
base64 text in a report page. The browser decompresses it with its own ``DecompressionStream``.

Big integer columns (a 100k-value plan's tables: ~9 MB as JSON text, ~0.45 s to encode) travel as
binary: :func:`pack` lifts every 1-D integer or bool numpy array of at least ``BINARY_MIN`` items out of
the payload into a block of little-endian arrays after the JSON, and the JSON names each one's place
(``"$bin": [[path, dtype, byte offset, count], ...]``). The page (``frontend/host/model.js``) and
:func:`unpack` put them back as plain arrays, so the app and the tests see the same payload as before.
The packed bytes are ``DXB1``, the JSON's length (uint32 LE), the JSON, zero padding to a multiple of 8,
then the arrays, each starting at a multiple of 8 (a typed array view needs its item size's alignment).

base64 text has no ``<``, ``&`` or quote, so no string from a ``.pte`` file can end or escape the
page's data element, whatever it holds; the app shows strings from the file only as text
(``textContent``) or as HTML escaped in Python.
"""

from __future__ import annotations

import base64
import json
import math
import re
import zlib

import numpy as np

from explorer.errors import PayloadVersionError
__all__ = ["to_json", "pack", "unpack", "fill_labels", "NAMED_LABELS", "data_element", "page_payload", "DATA_TYPE",
           "BINARY_MIN", "PAYLOAD_VERSION",
           "PayloadVersionError"]

DATA_TYPE = "application/x-dx-gzip-base64"  # inert for the browser: never run, read by the page's module
MAGIC = b"DXB1"
BINARY_MIN = 64  # shorter arrays stay JSON: a path and an offset would cost more than their text
# The payload's contract (its tables, their meaning: frontend/types/payload.d.ts). Raised when a table's meaning changes
# so that a page or widget front end cannot draw a payload it would misread; written as "$v" beside "$bin" and
# checked by model.js (PAYLOAD_VERSION there must be the same number: test_embed checks it).
PAYLOAD_VERSION = 2
# a tensor table's labels of its named rows only; the decoders fill in "label" (fill_labels; model.js fillLabels)
NAMED_LABELS = "namedLabels"


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


def _lift(payload: dict) -> tuple[dict, list[tuple[list, np.ndarray, str]]]:
    """``payload`` with its big integer arrays taken out (the dicts and lists on the way copied, the rest
    shared), and those arrays with their paths and wire types: ``<i4`` where every item fits (JavaScript numbers hold
    every int32), else ``<f8`` (every integer to 2**53: past that, plans do not go: byte sizes and offsets). The
    arrays are not converted here: :func:`pack` converts one at a time as it compresses, so a 2.4M-tensor plan's
    columns are never all copied at once."""
    found: list[tuple[list, np.ndarray, str]] = []

    def walk(obj, path):
        if isinstance(obj, np.ndarray):
            if obj.ndim == 1 and obj.size >= BINARY_MIN and obj.dtype.kind in "iub":
                small = obj.dtype.itemsize < 4 or obj.dtype == np.int32 or (
                    int(obj.min()) >= -2**31 and int(obj.max()) < 2**31)
                found.append((path, obj, "<i4" if small else "<f8"))
                return None
            return obj
        if isinstance(obj, dict):
            return {k: walk(v, path + [k]) for k, v in obj.items()}
        if isinstance(obj, list) and obj and isinstance(obj[0], (dict, list, np.ndarray)):
            return [walk(v, path + [k]) for k, v in enumerate(obj)]
        return obj

    return walk(payload, []), found


# the header zlib writes for gzip (``gzip.compress(..., mtime=0)`` on Python 3.11): no name, no timestamp, Unix
_GZIP_HEADER = b"\x1f\x8b\x08\x00" + b"\0\0\0\0" + b"\x00\x03"


def pack(payload: dict) -> bytes:
    """``payload`` as gzip-compressed bytes: JSON, then its big integer arrays as binary (module docstring);
    reproducible (no timestamp). Compressed as it goes, an array at a time: the whole uncompressed block is never
    held (a 2.4M-tensor plan's is ~130 MB, and joining it took three copies of it)."""
    body, arrays = _lift(payload)
    table, at = [], 0
    for path, a, wire in arrays:
        size = a.size * (4 if wire == "<i4" else 8)
        table.append([path, wire[1:], at, int(a.size)])
        at += size + (-size % 8)
    body["$v"] = PAYLOAD_VERSION
    if table:
        body["$bin"] = table
    text = to_json(body).encode("utf-8")
    head = MAGIC + len(text).to_bytes(4, "little") + text
    deflate = zlib.compressobj(3, zlib.DEFLATED, -zlib.MAX_WBITS)
    crc, total, out = 0, 0, [_GZIP_HEADER]

    def feed(chunk) -> None:
        nonlocal crc, total
        crc = zlib.crc32(chunk, crc)
        total += len(chunk)
        out.append(deflate.compress(chunk))

    feed(head + b"\0" * (-len(head) % 8))
    for _, a, wire in arrays:
        raw = np.ascontiguousarray(a.astype(wire, copy=False)).data.cast("B")
        feed(raw)
        if len(raw) % 8:
            feed(b"\0" * (-len(raw) % 8))
        del raw
    out.append(deflate.flush())
    out.append(crc.to_bytes(4, "little") + (total & 0xFFFFFFFF).to_bytes(4, "little"))
    return b"".join(out)


def unpack(data: bytes) -> dict:
    """What :func:`pack` packed, with the binary arrays back as lists (as the page reads it)."""
    raw = zlib.decompress(data, wbits=31)
    if raw[:4] != MAGIC:
        raise ValueError("not a device-explorer payload (no DXB1 header)")
    n = int.from_bytes(raw[4:8], "little")
    obj = json.loads(raw[8:8 + n].decode("utf-8"))
    if obj.get("$v") != PAYLOAD_VERSION:
        raise PayloadVersionError(f"payload version {obj.get('$v')!r}, this reader reads version {PAYLOAD_VERSION}")
    del obj["$v"]
    base = 8 + n + (-(8 + n) % 8)
    for path, dtype, offset, count in obj.pop("$bin", []):
        values = np.frombuffer(raw, dtype="<" + dtype, count=count, offset=base + offset)
        target = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = values.astype(np.int64).tolist() if dtype == "i4" else [int(x) for x in values.tolist()]
    fill_labels(obj)
    return obj


def fill_labels(obj) -> None:
    """Give every tensor table its ``label`` column, in place: the payload carries only its named rows' labels
    (``NAMED_LABELS``, in row order); every other row is labelled ``%`` and its value index. What the page's
    decoder (``frontend/host/model.js`` fillLabels) does, so that the tests read the payload the app draws. A plan
    of 2.4M values pointing at one tensor table held 150 MB of ``"%N"`` strings in Python, then in the JSON."""
    if isinstance(obj, list):
        if obj and isinstance(obj[0], (dict, list)):
            for item in obj:
                fill_labels(item)
        return
    if not isinstance(obj, dict):
        return
    if NAMED_LABELS in obj and "label" not in obj:
        names = iter(obj.pop(NAMED_LABELS))
        obj["label"] = [next(names) if named else f"%{v}" for v, named in zip(obj["index"], obj["named"])]
        return
    for value in obj.values():
        fill_labels(value)


def data_element(payload: dict) -> str:
    """The page's data element: the packed payload as base64 text."""
    return f'<script type="{DATA_TYPE}" id="dx-data">{base64.b64encode(pack(payload)).decode("ascii")}</script>'


def page_payload(html: str) -> dict:
    """The payload a report page carries (for tests and tools reading a saved report)."""
    match = re.search(rf'<script type="{re.escape(DATA_TYPE)}" id="dx-data">([A-Za-z0-9+/=]*)</script>', html)
    if not match:
        raise ValueError("no device-explorer data element in this page")
    return unpack(base64.b64decode(match.group(1)))
