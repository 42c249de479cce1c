"""Which file is which: one table, identifier -> reader -> model -> view.

Every format this project recognises by its identifier (bytes 4-8, the flatbuffer ``file_identifier``,
or 8-12 behind a size prefix) is one :class:`FileFormat` in :data:`FORMATS`:

* ``pattern`` picks the reader ``explorer.load`` uses (the ``.ptd`` and ``.bpte`` writers accept any two
  characters after ``FT``/``BP``, so their patterns do too);
* ``read(buf, size, source, read)`` returns the model (``Program`` or ``DataFile``); ``None`` for a format
  ``load`` recognises but does not open (an ETDump is a ``--profile``, an XNNPACK blob lives inside a
  program) — those are refused by the program reader with ``what``, which says what the file is and what
  to do with it instead;
* ``view`` names what the app shows for the model: ``plans`` (the graph, memory and details panels) or
  ``data`` (the data-file page).

A new companion format is one entry here plus its reader module (docs/format.md, "Adding a file
format"). Zip archives (ETRecord, ``.pt2``, TorchScript, checkpoints) and text files are told apart by
:func:`.container.identify` from their entry names and bytes, not by an identifier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from . import bpte, ptd
from .program_file import read_bundled_program, read_program

__all__ = ["FileFormat", "FORMATS", "KNOWN_MAGIC", "reader_for", "what_is"]


@dataclass(frozen=True)
class FileFormat:
    name: str  # short name: program, data, bundle, etdump, ...
    magic: bytes  # the identifier executorch 1.5.1 writes
    what: str  # what a file with it is when a program was expected, and what to do ("" for the program)
    pattern: re.Pattern[bytes] | None = None  # identifiers this reader accepts (default: exactly ``magic``)
    read: Callable | None = None  # (buf, size, source, read) -> model; None: recognised, not opened by load
    model: str | None = None  # what ``read`` returns
    view: str | None = None  # what the app shows for it: "plans" | "data"

    def accepts(self, ident: bytes) -> bool:
        return (self.pattern.fullmatch(ident) is not None) if self.pattern is not None else ident == self.magic


def _data_file(buf, size: int, source: str | None, read):
    return ptd.read_data_file(buf, size, source)


FORMATS: tuple[FileFormat, ...] = (
    FileFormat("program", b"ET12", "", read=read_program, model="Program", view="plans"),
    FileFormat("data", b"FT01",
               "an ExecuTorch data file (.ptd, FlatTensor: weights kept outside the program), not a program; "
               "explorer.load and `device-explorer inspect` read it as a data file, and `--data FILE` attaches "
               "it to the .pte that names it", pattern=ptd.IDENTIFIER, read=_data_file, model="DataFile",
               view="data"),
    FileFormat("bundle", b"BP08",
               "an ExecuTorch bundled program (.bpte: a program plus test inputs and expected outputs), not a "
               "bare program; explorer.load and the CLI read the program inside it",
               pattern=bpte.IDENTIFIER, read=read_bundled_program, model="Program", view="plans"),
    FileFormat("etdump", b"ED00",
               "an ETDump (run-time profiling/debug events written by the executorch runtime), not a program; "
               "pass it with --profile to the .pte that produced it (`device-explorer show program.pte --profile "
               "run.etdp`, or explorer.Explorer(program, profile=...))"),
    FileFormat("xnnpack-payload", b"XH00",
               "an XNNPACK delegate payload (the blob a .pte stores in a segment), not a program; open the .pte "
               "that contains it"),
    FileFormat("xnnpack-flatbuffer", b"XN01",
               "an XNNPACK delegate flatbuffer (the inside of a delegate blob), not a program; open the .pte "
               "that contains it"),
)

# identifier -> what the file is (bytes 4-8, or 8-12 behind a size prefix); read by container.identify
KNOWN_MAGIC: dict[bytes, str] = {f.magic: f.what for f in FORMATS if f.what}


def reader_for(ident: bytes) -> FileFormat:
    """The format whose reader opens a file with identifier ``ident``; the program's for anything no entry
    accepts (its container check then says what the file is, from :data:`KNOWN_MAGIC`)."""
    for f in FORMATS:
        if f.read is not None and f.accepts(ident):
            return f
    return FORMATS[0]


def what_is(ident: bytes) -> str | None:
    """What a file with identifier ``ident`` is, when it is one this table knows but not a program."""
    return KNOWN_MAGIC.get(ident)
