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
:func:`.kinds.identify` from their entry names and bytes, not by an identifier. What a file that ``load``
recognises but does not open *is* (its ``what``) lives in :data:`.kinds.KNOWN_MAGIC`, beneath every reader, so the
program reader can say it when it refuses one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from explorer.format.companions import bpte, ptd
from explorer.format.kinds import KNOWN_MAGIC, what_is
from explorer.format.pte.program_file import read_bundled_program, read_program

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
    FileFormat("data", b"FT01", KNOWN_MAGIC[b"FT01"], pattern=ptd.IDENTIFIER, read=_data_file, model="DataFile",
               view="data"),
    FileFormat("bundle", b"BP08", KNOWN_MAGIC[b"BP08"],
               pattern=bpte.IDENTIFIER, read=read_bundled_program, model="Program", view="plans"),
    FileFormat("etdump", b"ED00", KNOWN_MAGIC[b"ED00"]),
    FileFormat("xnnpack-payload", b"XH00", KNOWN_MAGIC[b"XH00"]),
    FileFormat("xnnpack-flatbuffer", b"XN01", KNOWN_MAGIC[b"XN01"]),
)



def reader_for(ident: bytes) -> FileFormat:
    """The format whose reader opens a file with identifier ``ident``; the program's for anything no entry
    accepts (its container check then says what the file is, from :data:`KNOWN_MAGIC`)."""
    for f in FORMATS:
        if f.read is not None and f.accepts(ident):
            return f
    return FORMATS[0]

