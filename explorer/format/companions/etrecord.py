"""``load_etrecord``: an ETRecord (a zip) in, an :class:`~explorer.model.etrecord.Etrecord` out — no torch.

What executorch 1.5.1 writes (``devtools/etrecord/_etrecord.py``, ``ETRecord.save``), checked on the
exports in ``tests/fixtures/etrecord/``:

* ``ETRECORD_V0`` — an empty member that marks the zip as an ETRecord (``parse_etrecord`` refuses a zip
  without it, and so do we);
* ``edge_dialect_exported_program/<method>`` — the edge-dialect program of each method, as the JSON of
  ``exir/serde/serialize.py`` (``serialize`` -> ``SerializedArtifact.exported_program``), taken *before*
  partitioning: a delegated region still appears as its original nodes. An ETRecord of the older layout
  has one member ``edge_dialect_exported_program``, read as method ``forward`` (as ``parse_etrecord`` does);
* ``exported_program`` (optional) — the program ``torch.export`` made, JSON too (not needed to join);
* ``debug_handle_map`` — JSON ``{method: {instruction id: handle | [handles]}}``;
* ``delegate_map`` — JSON ``{method: {instruction id: {"name": backend, "delegate_map": {debug id:
  [handles]}}}}``;
* ``instruction_id_to_num_outs_map`` — JSON ``{method: {instruction id: count}}``;
* ``export_graph_id`` — JSON, a Python ``id()`` (ignored);
* ``*_state_dict``, ``*_constants``, ``*_example_inputs``, ``reference_outputs``, ``representative_inputs``
  — ``torch.save`` pickles. **Never opened**: unpickling runs code, and we need none of it.

Of each graph node (``graph_module.graph.nodes[]``: ``name``, ``target``, ``metadata``, all strings) we keep
``debug_handle`` (an integer written as text, ``serialize.py`` ``serialize_metadata``), ``stack_trace``
(Python's traceback text, outermost frame first) and ``nn_module_stack`` (``"key,path,class;..."``,
outermost module first; each item split on commas outside brackets, as ``export_serialize.py``
``deserialize_metadata.metadata_split`` does). ``_operator.getitem`` nodes are skipped, as executorch's
``FXOperatorGraph.gen_operator_graph`` (``devtools/debug_format/et_schema.py``) skips them.

Anything that is not such a zip raises :class:`~explorer.errors.EtrecordFormatError` naming the member and
what was expected; a live ``ETRecord`` object (or an ``ExecutorchProgramManager`` made with
``generate_etrecord=True``) is first saved to memory with executorch's own ``save``.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib
from typing import Any

from explorer.bounded_json import loads
from explorer.errors import EtrecordFormatError, JsonInputError
from explorer.model.etrecord import DelegateRecord, Etrecord, EtrecordMethod, GraphNode, ModuleFrame, SourceFrame

__all__ = ["load_etrecord", "parse_module_stack", "parse_stack_trace", "IDENTIFIER", "PICKLED_SUFFIXES"]

IDENTIFIER = "ETRECORD_V0"
EDGE = "edge_dialect_exported_program"
PICKLED_SUFFIXES = ("_state_dict", "_constants", "_example_inputs")
PICKLED = ("reference_outputs", "representative_inputs")
MAX_MEMBER = 1 << 30  # a JSON member larger than this (uncompressed) is refused, not inflated
# Every JSON member read, inflated, together: at most this much plus MAX_RATIO times the archive's bytes. executorch
# stores its members (ETRecord.save: ZipFile(path, "w"), ZIP_STORED), so a real ETRecord inflates to less than its
# own size; a zip bomb (1 MB declaring a 1 GiB member) is refused from the directory, before anything is inflated.
INFLATE_FLOOR = 16 << 20
MAX_RATIO = 4
_EDGE_PREFIX = "executorch.exir.dialects.edge.ops."
_SKIPPED_TARGETS = ("_operator.getitem",)
_FRAME = re.compile(r'^\s*File "(?P<file>.*)", line (?P<line>\d+), in (?P<func>.*)$')
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
               OSError, ValueError, KeyError)


def load_etrecord(source: Any) -> Etrecord:
    """Read an ETRecord from a path, bytes, a memoryview, a binary file object, an executorch ``ETRecord``
    object or an ``ExecutorchProgramManager`` holding one (``get_etrecord()``).

    Raises EtrecordFormatError for anything damaged or not an ETRecord; OSError only for a path that can't
    be opened."""
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        with open(name, "rb") as fh:  # OSError for a missing path, as load() gives
            size = os.fstat(fh.fileno()).st_size
            # the zip is read where it lies: only the directory and the JSON members, never the (large) pickles
            return _open(fh, name, size)
    data = _bytes_of(source)
    return _open(io.BytesIO(data), None, len(data))


def _open(fh, name: str | None, size: int) -> Etrecord:
    try:
        archive = zipfile.ZipFile(fh)
    except _ZIP_ERRORS as exc:
        raise EtrecordFormatError(f"not a zip archive ({exc}); an ETRecord is the zip executorch's "
                                  f"ETRecord.save writes", file=name) from None
    with archive:
        return _read(archive, name, size)


def _bytes_of(source: Any) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if callable(getattr(source, "get_etrecord", None)):
        try:
            source = source.get_etrecord()  # an ExecutorchProgramManager made with generate_etrecord=True
        except RuntimeError as exc:
            raise EtrecordFormatError(f"the program manager has no ETRecord ({exc}): export with "
                                      f"generate_etrecord=True") from None
    if callable(getattr(source, "read", None)):
        data = source.read()
        if isinstance(data, str):
            raise TypeError("the ETRecord file object is open in text mode: open it with 'rb'")
        return bytes(data)
    if callable(getattr(source, "save", None)) and hasattr(source, "edge_dialect_program"):
        buf = io.BytesIO()
        try:
            source.save(buf)  # executorch's own writer: the same bytes its file would hold
        except RuntimeError as exc:
            raise EtrecordFormatError(f"executorch could not save this ETRecord: {exc}") from None
        return buf.getvalue()
    raise TypeError(f"an ETRecord is a path, bytes, a binary file object or executorch's ETRecord object; "
                    f"got {type(source).__name__}")


def _member(archive: zipfile.ZipFile, member: str, name: str | None) -> Any:
    """The JSON in ``member``, or an EtrecordFormatError saying what is wrong with it."""
    try:
        info = archive.getinfo(member)
    except KeyError:
        raise EtrecordFormatError("missing", member=member, file=name) from None
    if info.file_size > MAX_MEMBER:
        raise EtrecordFormatError(f"{info.file_size:,} bytes uncompressed, more than this reader inflates "
                                  f"({MAX_MEMBER:,})", member=member, file=name)
    try:
        raw = archive.read(member)
    except _ZIP_ERRORS as exc:
        raise EtrecordFormatError(f"cannot be read from the zip ({exc})", member=member, file=name) from None
    try:
        return loads(raw)  # explorer.bounded_json: nesting and number length bounded, one error type
    except JsonInputError as exc:
        raise EtrecordFormatError(str(exc), member=member, offset=exc.pos, file=name) from None


def _read(archive: zipfile.ZipFile, name: str | None, size: int) -> Etrecord:
    members = tuple(archive.namelist())
    if IDENTIFIER not in members:
        raise EtrecordFormatError(f"the identifier member {IDENTIFIER!r} is missing: not an ETRecord, or a "
                                  f"damaged one (a zip with {len(members)} member(s))", file=name)
    if "debug_handle_map" not in members:
        raise EtrecordFormatError("missing: an ETRecord saved by executorch always has it (ETRecord.save refuses "
                                  "to write one without)", member="debug_handle_map", file=name)
    _check_inflated_sizes(archive, members, name, size)
    handle_maps = _method_maps(_member(archive, "debug_handle_map", name), "debug_handle_map", name, _handles)
    delegate_maps = _method_maps(_member(archive, "delegate_map", name), "delegate_map", name, _delegate) \
        if "delegate_map" in members else {}
    outs_maps = _method_maps(_member(archive, "instruction_id_to_num_outs_map", name),
                             "instruction_id_to_num_outs_map", name, _num_outs) \
        if "instruction_id_to_num_outs_map" in members else {}
    graphs: dict[str, tuple[GraphNode, ...]] = {}
    prefix = EDGE + "/"
    for member in members:
        if member.endswith(PICKLED_SUFFIXES) or member in PICKLED:
            continue  # torch.save pickles: never opened
        if member.startswith(prefix):
            graphs[member[len(prefix):]] = _graph_nodes(_member(archive, member, name), member, name)
        elif member == EDGE:  # the layout before multi-method ETRecords: one program, read as forward
            graphs.setdefault("forward", _graph_nodes(_member(archive, member, name), member, name))
    if not graphs:
        raise EtrecordFormatError(f"no edge dialect program ({EDGE}/<method>): an ETRecord saved by executorch "
                                  f"always has one", file=name)
    methods = {}
    for method in dict.fromkeys([*graphs, *handle_maps]):
        handles = handle_maps.get(method, {})
        delegates = {i: DelegateRecord(i, backend, debug) for i, (backend, debug) in delegate_maps.get(method, {}).items()}
        methods[method] = EtrecordMethod(method, graphs.get(method, ()), handles, outs_maps.get(method, {}),
                                         delegates, has_graph=method in graphs)
    return Etrecord(methods, members, name, size)


def _json_members(members: tuple[str, ...]) -> list[str]:
    """The members :func:`_read` parses (the maps and the edge programs), never the pickles."""
    maps = ("debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map")
    return [m for m in members if m in maps or m == EDGE or (m.startswith(EDGE + "/")
                                                             and not m.endswith(PICKLED_SUFFIXES))]


def _check_inflated_sizes(archive: zipfile.ZipFile, members: tuple[str, ...], name: str | None, size: int) -> None:
    """Refuse, from the zip's directory alone, members that would inflate past :data:`MAX_MEMBER` each or past
    ``INFLATE_FLOOR + MAX_RATIO * size`` together. ``zipfile`` never inflates past a member's declared size
    (it stops there and fails the CRC), so the declared sizes bound the memory the JSON can take."""
    budget = INFLATE_FLOOR + MAX_RATIO * size
    total = 0
    for member in _json_members(members):
        info = archive.getinfo(member)
        if info.file_size > MAX_MEMBER:
            raise EtrecordFormatError(f"{info.file_size:,} bytes uncompressed, more than this reader inflates "
                                      f"({MAX_MEMBER:,})", member=member, file=name)
        total += info.file_size
        if total > budget:
            raise EtrecordFormatError(
                f"declares {info.file_size:,} bytes uncompressed from {info.compress_size:,} compressed, which "
                f"brings the JSON members to {total:,} bytes, more than this reader inflates from a "
                f"{size:,}-byte archive ({budget:,}: {INFLATE_FLOOR >> 20} MiB + {MAX_RATIO}x its size; executorch "
                f"stores its members uncompressed): a zip bomb, or an ETRecord re-compressed", member=member, file=name)


def _method_maps(doc: Any, member: str, name: str | None, convert) -> dict[str, dict[int, Any]]:
    """``{method: {instruction id: value}}`` with the ids as integers and each value converted."""
    if not isinstance(doc, dict):
        raise EtrecordFormatError(f"expected a JSON object of methods, found {type(doc).__name__}", member=member,
                                  file=name)
    out: dict[str, dict[int, Any]] = {}
    for method, per in doc.items():
        if not isinstance(per, dict):
            raise EtrecordFormatError(f"method {method!r}: expected an object of instruction ids, found "
                                      f"{type(per).__name__}", member=member, file=name)
        table = {}
        for key, value in per.items():
            try:
                index = int(key)
            except (TypeError, ValueError):
                index = -1
            if index < 0 or str(index) != str(key).strip():
                raise EtrecordFormatError(f"method {method!r}: instruction id {key!r} is not a non-negative integer",
                                          member=member, file=name)
            try:
                table[index] = convert(value)
            except (TypeError, ValueError) as exc:
                raise EtrecordFormatError(f"method {method!r}, instruction {index}: {exc}", member=member,
                                          file=name) from None
        out[str(method)] = table
    return out


def _int(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"expected an integer, found {json.dumps(x)[:40]}")
    return x


def _handles(value: Any) -> tuple[int, ...]:
    """A handle or a list of handles (a delegate call: every handle of its lowered graph)."""
    if isinstance(value, list):
        return tuple(_int(x) for x in value)
    return (_int(value),)


def _num_outs(value: Any):
    return tuple(_int(x) for x in value) if isinstance(value, list) else _int(value)


def _delegate(value: Any) -> tuple[str, dict[str, tuple[int, ...]]]:
    if not isinstance(value, dict) or not isinstance(value.get("name", ""), str):
        raise TypeError("expected {\"name\": backend, \"delegate_map\": {...}}")
    inner = value.get("delegate_map") or {}
    if not isinstance(inner, dict):
        raise TypeError("its delegate_map is not an object")
    return value.get("name", ""), {str(k): _handles(v) for k, v in inner.items()}


def _graph_nodes(doc: Any, member: str, name: str | None) -> tuple[GraphNode, ...]:
    try:
        graph = doc["graph_module"]["graph"]
        nodes = graph["nodes"]
        if not isinstance(nodes, list):
            raise TypeError
    except (KeyError, TypeError):
        raise EtrecordFormatError("expected an exported program's JSON with graph_module.graph.nodes[]",
                                  member=member, file=name) from None
    out: list[GraphNode] = []
    todo = [(nodes, "nodes")]
    while todo:  # the graph, then the graphs its nodes take as arguments (cond/map bodies), depth first
        items, where = todo.pop(0)
        for k, node in enumerate(items):
            at = f"{where}[{k}]"
            if not isinstance(node, dict) or not isinstance(node.get("target"), str) \
                    or not isinstance(node.get("name"), str):
                raise EtrecordFormatError(f"graph {at}: expected a node with a name and a target", member=member,
                                          file=name)
            meta = node.get("metadata") or {}
            if not isinstance(meta, dict):
                raise EtrecordFormatError(f"graph {at} ({node['name']}): metadata is not an object", member=member,
                                          file=name)
            if node["target"] not in _SKIPPED_TARGETS:
                out.append(_node(node, meta, f"graph {at} ({node['name']})", member, name))
            for j, arg in enumerate(node.get("inputs") or ()):
                sub = ((arg or {}).get("arg") or {}).get("as_graph") if isinstance(arg, dict) else None
                if isinstance(sub, dict) and isinstance((sub.get("graph") or {}).get("nodes"), list):
                    todo.append((sub["graph"]["nodes"], f"{at}.inputs[{j}].graph.nodes"))
    return tuple(out)


def _node(node: dict, meta: dict, at: str, member: str, name: str | None) -> GraphNode:
    handle = meta.get("debug_handle")
    if handle in (None, ""):
        debug_handle = None
    else:
        try:
            debug_handle = int(str(handle).strip())
        except ValueError:
            raise EtrecordFormatError(f"{at}: debug_handle {str(handle)[:40]!r} is not an integer", member=member,
                                      file=name) from None
    trace = meta.get("stack_trace")
    modules = meta.get("nn_module_stack")
    if trace is not None and not isinstance(trace, str) or modules is not None and not isinstance(modules, str):
        raise EtrecordFormatError(f"{at}: stack_trace and nn_module_stack must be strings", member=member, file=name)
    try:
        frames = parse_module_stack(modules) if modules else ()
    except ValueError as exc:
        raise EtrecordFormatError(f"{at}: nn_module_stack {exc}", member=member, file=name) from None
    target = node["target"]
    op = target[len(_EDGE_PREFIX):] if target.startswith(_EDGE_PREFIX) else target
    return GraphNode(node["name"], op, debug_handle, frames, parse_stack_trace(trace) if trace else (), trace, modules)


def parse_module_stack(text: str) -> tuple[ModuleFrame, ...]:
    """``"key,path,class;..."`` (outermost first) -> frames; executorch's ``metadata_split`` rules: items on
    ``;``, each split on the commas outside ``[]``/``()`` into exactly three parts."""
    out = []
    for item in text.split(";"):
        parts, start, depth = [], 0, 0
        for pos, ch in enumerate(item):
            if ch in "[(":
                depth += 1
            elif ch in ")]":
                depth -= 1
                if depth < 0:
                    raise ValueError(f"has mismatched brackets in {item[:60]!r}")
            elif ch == "," and depth == 0:
                parts.append(item[start:pos].strip())
                start = pos + 1
        parts.append(item[start:].strip())
        if len(parts) != 3:
            raise ValueError(f"item {item[:60]!r} has {len(parts)} parts, expected key,path,class")
        out.append(ModuleFrame(*parts))
    return tuple(out)


def parse_stack_trace(text: str) -> tuple[SourceFrame, ...]:
    """Python's traceback text (``File "x.py", line 3, in f`` then the code line), outermost first."""
    frames: list[SourceFrame] = []
    for line in text.splitlines():
        m = _FRAME.match(line)
        if m:
            frames.append(SourceFrame(m["file"], int(m["line"]), m["func"].strip()))
        elif frames and line.strip() and not frames[-1].code:
            last = frames[-1]
            frames[-1] = SourceFrame(last.file, last.line, last.function, line.strip())
    return tuple(frames)
