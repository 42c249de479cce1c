"""The file-format table (explorer/format/registry.py): one entry per identifier decides the reader, the
model and the view, and is where "this is not a program, it is X" comes from."""

from __future__ import annotations

import re

import pytest

import explorer
from explorer import PteFormatError
from explorer.format import registry
from explorer.format.registry import FORMATS, KNOWN_MAGIC, FileFormat, reader_for
from explorer.model.program import DataFile, Program

from companion_helpers import COMPANIONS


def test_each_identifier_picks_its_reader_model_and_view():
    assert [(f.name, f.model, f.view) for f in FORMATS if f.read is not None] == [
        ("program", "Program", "plans"), ("data", "DataFile", "data"), ("bundle", "Program", "plans")]
    assert reader_for(b"ET12").name == "program" and reader_for(b"FT01").name == "data"
    assert reader_for(b"FT02").name == "data" and reader_for(b"BP08").name == "bundle"
    assert reader_for(b"ED00").name == "program"  # recognised, not opened: the program reader refuses it
    for name, path, model in (("external.pte", COMPANIONS / "external.pte", Program),
                              ("external.ptd", COMPANIONS / "external.ptd", DataFile),
                              ("bundled.bpte", COMPANIONS / "bundled.bpte", Program)):
        assert type(explorer.load(path)) is model, name


@pytest.mark.parametrize("ident", [f.magic for f in FORMATS if f.read is None])
def test_recognised_formats_not_opened_are_refused_with_their_table_text(ident):
    data = bytes(4) + ident + bytes(56)
    with pytest.raises(PteFormatError) as err:
        explorer.load(data)
    assert KNOWN_MAGIC[ident] in str(err.value) and err.value.offset == 4


def test_a_new_format_is_one_entry(monkeypatch):
    """What docs/format.md promises: an entry plus its reader, and load opens the new identifier."""
    seen = []

    def read(buf, size, source, read):
        seen.append(bytes(buf[4:8]))
        return explorer.load(COMPANIONS / "external.ptd")

    entry = FileFormat("toy", b"TY01", "a toy file, not a program", pattern=re.compile(rb"TY0[0-9]"), read=read,
                       model="DataFile", view="data")
    monkeypatch.setattr(registry, "FORMATS", FORMATS + (entry,))
    assert isinstance(explorer.load(bytes(4) + b"TY03" + bytes(24)), DataFile) and seen == [b"TY03"]


def test_the_program_reader_is_the_fallback_and_keeps_its_errors():
    data = (COMPANIONS / "external.pte").read_bytes()
    with pytest.raises(PteFormatError, match="expected file identifier 'ET12' at bytes 4-8, found b'ZZ99'"):
        explorer.load(data[:4] + b"ZZ99" + data[8:])
    with pytest.raises(PteFormatError, match="ExecuTorch program of schema version 11"):
        explorer.load(data[:4] + b"ET11" + data[8:])
