"""Every file the explorer writes goes through here: never over an input, never half-written.

The explorer writes reports next to files that came from other people, often with a name typed by hand;
``show a.pte -o a.pte`` must not replace the program with its own report, and a write that fails (disk full,
a file-size limit, an interrupt) must leave the previous report as it was. So a write is refused with
:class:`~explorer.errors.OutputIsInput` when the target *is* one of the inputs (the same path, a symlink to
it or a hard link of it: compared by device and inode, not by name), and otherwise goes to a temporary file
in the target's folder that is renamed over the target only once complete (``os.replace`` is atomic on one
file system). Beneath every layer: it knows paths and duck-typed ``source`` attributes, not the model.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable, Iterator, Union

from explorer.errors import OutputIsInput

__all__ = ["write_text", "refuse_inputs", "sources_of"]

PathLike = Union[str, "os.PathLike[str]"]


def sources_of(*things: object) -> list[str]:
    """The paths a loaded thing was read from: its ``source``, its ``.ptd`` files' sources, its ETRecord's and
    the original of a prediction (duck-typed, so any program, data file, profile or record answers)."""
    return [path for thing in things for path in _sources(thing)]


def _sources(thing: object) -> Iterator[str]:
    if thing is None:
        return
    if isinstance(thing, (str, os.PathLike)):
        yield os.fspath(thing)  # type: ignore[misc]
        return
    for name in ("source",):
        value = getattr(thing, name, None)
        if isinstance(value, (str, os.PathLike)):
            yield os.fspath(value)
    for data_file in getattr(thing, "data_files", None) or ():
        yield from _sources(data_file)
    record = getattr(getattr(thing, "etrecord", None), "record", None)
    if record is not None:
        yield from _sources(record)
    original = getattr(getattr(thing, "prediction", None), "original", None)
    if isinstance(original, str):
        yield original


def refuse_inputs(target: PathLike, inputs: Iterable[object]) -> None:
    """Raise :class:`OutputIsInput` when ``target`` is any of ``inputs`` (paths or loaded things): the same
    file by device and inode (a symlink, a hard link, ``./a.pte`` for ``a.pte``), or the same resolved path."""
    out = Path(target)
    try:
        st = os.stat(out)
    except OSError:
        st = None  # not there yet (or unreadable): only a resolved-path match can make it an input
    resolved = os.path.realpath(out)
    for path in sources_of(*inputs):
        try:
            same = st is not None and os.path.samestat(st, os.stat(path))
        except OSError:
            same = False
        if same or os.path.realpath(path) == resolved:
            raise OutputIsInput(f"refusing to write {os.fspath(target)!r}: it is the input file {path!r} "
                                f"(choose another output name; the input is left as it was)", target=os.fspath(target),
                                source=path)


def write_text(target: PathLike, text: str, *, inputs: Iterable[object] = ()) -> Path:
    """Write ``text`` (UTF-8) to ``target`` atomically, after :func:`refuse_inputs`; returns the path.

    The bytes go to a temporary file beside the target, flushed and synced, then renamed over it; on any error
    the temporary file is removed and the target keeps what it had. A symlink is followed (the file it
    names is replaced, the link kept). A new file gets the usual mode (0666 less
    the umask); a replaced one keeps its mode."""
    refuse_inputs(target, inputs)
    out = Path(os.path.realpath(target))  # a symlinked report stays a symlink: the file it names is replaced
    folder = out.parent
    data = text.encode("utf-8")
    try:
        mode = os.stat(out).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, temp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=folder)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp, mode)
        os.replace(temp, out)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    return Path(target)
