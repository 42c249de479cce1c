"""``load``: a path or bytes in, a :class:`~explorer.model.Program` out, or a PteFormatError.

Paths are memory-mapped read-only, so opening a program with gigabytes of weights touches only the
pages of its flatbuffer; segment data is read later, and only through ``Program.segment_data``.
"""

from __future__ import annotations

import dataclasses
import gc
import mmap
import os
import traceback
from typing import Iterable, Union

from explorer.errors import PteFormatError
from explorer.model.program import DataFile, Program
from explorer.format.registry import reader_for

__all__ = ["load", "live_source", "Source"]

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


def load(source: Source, data: Iterable[Source] | None = None) -> Union[Program, DataFile]:
    """Decode a ``.pte`` (or a ``.bpte`` bundle's program, or a ``.ptd`` data file) from a path
    (memory-mapped, read-only) or from bytes; which one is told by the file identifier, not the name.

    ``data``: ``.ptd`` files whose entries the program's external tensors and delegates' named data are
    looked up in (``Program.data_files``; the ``missing-external`` check runs only when given).
    Live objects work too, so a notebook needs no file: a binary file object (its ``read()``), and an
    executorch ``ExecutorchProgramManager`` (anything with a bytes ``.buffer``: what ``to_executorch()``
    returns), whose in-memory data files (``_tensor_data``, else ``data_files``) are linked as ``data``
    when ``data`` is not given — the same program as its saved ``.pte`` and ``.ptd`` files. Duck-typed:
    torch and executorch are never imported.

    Raises PteFormatError for anything structurally wrong; OSError only for a path that can't be opened.
    """
    source, live_data = live_source(source)
    names: list[str] = []
    if data is None and live_data:
        names, data = [n for n, _ in live_data], [b for _, b in live_data]
    loaded = _load_one(source)
    if data is None:
        return loaded
    if not isinstance(loaded, Program):
        raise PteFormatError("data files can only be attached to a program, and this is a data file (.ptd)",
                             offset=4)
    files = []
    for item in ([data] if isinstance(data, (str, os.PathLike, bytes, bytearray, memoryview)) else data):
        name = os.fspath(item) if isinstance(item, (str, os.PathLike)) else "<bytes>"
        try:
            data_file = _load_one(item)
        except PteFormatError as exc:  # blame the data file, not the program it was given to
            error = PteFormatError(f"data file {name} is damaged, or not a data file (.ptd) this reader knows "
                                   f"(the program itself is fine): {exc}", file=name)
            error.offset, error.path = exc.offset, exc.path  # where in the data file (already in the text)
            raise error from None
        if not isinstance(data_file, DataFile):
            raise PteFormatError(f"data file {name}: expected a data file (.ptd, identifier 'FT01'), found a "
                                 f"program", offset=4, file=name)
        if names:  # a manager's in-memory file: named as write_tensor_data_to_file would name it
            data_file = dataclasses.replace(data_file, source=names[len(files)])
        files.append(data_file)
    return dataclasses.replace(loaded, data_files=tuple(files))


def live_source(source) -> tuple:
    """``(path or bytes, [(name, data file bytes)] or None)`` for what :func:`load` accepts: a path or bytes as they are,
    a binary file object read, an ``ExecutorchProgramManager`` (duck-typed: a bytes ``.buffer``) as its
    buffer and its in-memory data files."""
    if isinstance(source, (str, os.PathLike, bytes, bytearray, memoryview)):
        return source, None
    read = getattr(source, "read", None)
    if callable(read):
        data = read()
        if isinstance(data, str):
            raise TypeError("the file object is open in text mode: open the program with 'rb'")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"the file object's read() gave {type(data).__name__}, not bytes")
        return bytes(data), None
    buffer = getattr(source, "buffer", None)
    if isinstance(buffer, (bytes, bytearray, memoryview)):
        files = getattr(source, "_tensor_data", None)  # ExecutorchProgramManager: {name: Cord}
        if not isinstance(files, dict):
            try:
                files = getattr(source, "data_files", None)  # ExecutorchProgram: {name: bytes}
            except Exception:  # noqa: BLE001 - a property of someone else's object; no data files then
                files = None
        blobs = [(k if str(k).endswith(".ptd") else f"{k}.ptd", bytes(v)) for k, v in files.items()] \
            if isinstance(files, dict) else []
        return bytes(buffer), (blobs or None)
    raise TypeError(f"cannot read a program from {type(source).__name__}: give a path, bytes, a memoryview, a binary "
                    f"file object or an ExecutorchProgramManager (what to_executorch() returns)")


_EMPTY = "file is empty: expected a flatbuffer with identifier 'ET12'"


def _load_one(source: Source) -> Union[Program, DataFile]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source) if not isinstance(source, bytes) else source
        if not data:  # the words a path of 0 bytes gets: the same input answers the same, however given
            raise PteFormatError(_EMPTY, offset=0)
        return _decode(data, len(data), None, lambda off, n: data[off:off + n])
    path = os.fspath(source)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            raise PteFormatError(_EMPTY, offset=0)
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)

    def read(offset: int, count: int) -> bytes:
        with open(path, "rb") as seg:  # a fresh read, so the program holds no open mapping for segments
            seg.seek(offset)
            return seg.read(count)

    try:
        return _decode(mapped, size, str(path), read)
    except PteFormatError as exc:
        _drop_frames(exc)  # their locals hold numpy views of the mapping, which would keep it from closing
        raise
    finally:
        try:
            mapped.close()
        except BufferError:  # a view is still referenced (by an unexpected error's traceback): the
            pass  # mapping is unmapped when that goes; never let this hide the error being raised


def _drop_frames(exc: BaseException | None) -> None:
    """Clear the locals of the finished frames in ``exc``'s traceback and its chained errors."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        exc = exc.__context__


def _decode(buf, size: int, source: str | None, read) -> Program:
    # Decoding allocates hundreds of thousands of small acyclic objects; letting the cyclic GC
    # rescan them all every few thousand allocations doubles the time of a large load.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _decode_unguarded(buf, size, source, read)
    finally:
        if enabled:
            gc.enable()


def _decode_unguarded(buf, size: int, source: str | None, read) -> Union[Program, DataFile]:
    """The reader :mod:`.registry` lists for the file's identifier (bytes 4-8); the program reader for
    anything else, whose container check says what the file is instead."""
    return reader_for(bytes(buf[4:8]) if size >= 8 else b"").read(buf, size, source, read)
