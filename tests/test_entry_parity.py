"""One table of bad inputs, run through the CLI and the Python API: both answer alike (issue #30).

The CLI exits 2 with one ``device-explorer: ...`` line; the API raises the matching clear exception
(PteFormatError, EtrecordFormatError, OverlayError, TypeError) whose message the CLI's line carries. Never a
traceback, a RecursionError, an AttributeError from deep inside, or a ValueError from ``int()``.
"""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

import explorer
from explorer.analysis.overlays import OverlayError
from explorer.cli import main
from explorer.errors import EtrecordFormatError, PteFormatError

FIX = Path(__file__).parent / "fixtures"

PROGRAMS = {  # name -> bytes of a file that is no program
    "empty": b"",
    "junk": b"not a program at all, just some text\n",
    "truncated": (FIX / "mlp.pte").read_bytes()[:100],
    "wrong-identifier": (FIX / "mlp.pte").read_bytes()[:4] + b"ZZ99" + (FIX / "mlp.pte").read_bytes()[8:],
    "root-past-end": b"\xff\xff\xff\x7fET12" + b"\0" * 64,
}

OVERLAYS = {  # name -> text of an overlay file that cannot be used
    "deep-arrays": "[" * 100_000 + "]" * 100_000,
    "deep-objects": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "deep-values": '{"values": ' + "[" * 2_000 + "]" * 2_000 + "}",
    "5000-digit-key": '{"' + "9" * 5000 + '": 1}',
    "5000-digit-number": '{"@0": ' + "9" * 5000 + "}",
    "5000-digit-float": '{"@0": 0.' + "1" * 5000 + "}",
    "not-json": "{@0: 1",
    "not-an-object": "[1, 2]",
}


def _cli(*argv: str, capsys) -> tuple[int, str]:
    code = main(list(argv), stdout=io.StringIO())
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_bad_program_is_refused_alike_by_every_entry(tmp_path, name, capsys):
    path = tmp_path / f"{name}.pte"
    path.write_bytes(PROGRAMS[name])
    answers = []
    for api in (explorer.load, explorer.check, lambda s: explorer.what_if(s, ["delegate:*=cpu"]),
                lambda s: explorer.diff(s, s), explorer.Explorer):
        for source in (path, str(path), PROGRAMS[name]):
            with pytest.raises(PteFormatError) as caught:
                api(source)
            answers.append(str(caught.value))
    assert len(set(answers)) == 1, answers  # one message, whoever asked
    for argv in (("inspect", str(path)), ("check", str(path)), ("show", str(path), "-o", str(tmp_path / "r.html")),
                 ("diff", str(path), str(FIX / "mlp.pte")), ("whatif", str(path), "--move", "delegate:*=cpu")):
        code, err = _cli(*argv, capsys=capsys)
        assert code == 2 and err.count("\n") == 1 and answers[0] in err, (argv, err)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("thing", [None, 3, 2.5, [1, 2], {"a": 1}, object()])
def test_check_takes_what_load_takes_or_raises_type_error(thing):
    for api in (explorer.load, explorer.check):
        with pytest.raises(TypeError, match="cannot read a program from"):
            api(thing)


def test_check_takes_bytes_a_path_and_a_file_object_as_load_does():
    data = (FIX / "mutable_dedup_bug.pte").read_bytes()
    expected = [f.to_json() for f in explorer.check(explorer.load(data))]
    assert expected  # this program has findings: the comparison is not of two empty lists
    for source in (data, bytearray(data), memoryview(data), FIX / "mutable_dedup_bug.pte", str(FIX / "mutable_dedup_bug.pte"),
                   io.BytesIO(data)):
        assert [f.to_json() for f in explorer.check(source)] == expected


@pytest.mark.parametrize("name", sorted(OVERLAYS))
def test_a_bad_overlay_file_is_refused_alike(tmp_path, name, capsys):
    path = tmp_path / f"{name}.json"
    path.write_text(OVERLAYS[name])
    program = FIX / "mlp.pte"
    with pytest.raises(OverlayError) as caught:
        explorer.Explorer(program).load_overlay(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    code, err = _cli("show", str(program), "--overlay", str(path), "-o", str(tmp_path / "r.html"), capsys=capsys)
    assert code == 2 and err == f"device-explorer: --overlay {path}: {message}\n"
    assert not (tmp_path / "r.html").exists()


def _etrecord_with(tmp_path: Path, member: str, text: str) -> Path:
    """The real ETRecord fixture with one JSON member replaced by ``text``."""
    source = FIX / "etrecord" / "net.etrecord"
    out = tmp_path / "bad.etrecord"
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = text.encode() if info.filename == member else zin.read(info)
            zout.writestr(info.filename, data)
    return out


def _json_member(source: Path) -> str:
    with zipfile.ZipFile(source) as z:
        assert "debug_handle_map" in z.namelist(), "the fixture has no JSON map member to spoil"
    return "debug_handle_map"


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 300 + "1" + "}" * 300, '{"forward": ' + "9" * 5000 + "}"],
                         ids=["deep-unclosed", "deep-300", "5000-digits"])
def test_a_bad_etrecord_is_refused_alike(tmp_path, text, capsys):
    shutil.copy(FIX / "etrecord" / "net.pte", tmp_path / "net.pte")
    bad = _etrecord_with(tmp_path, _json_member(FIX / "etrecord" / "net.etrecord"), text)
    with pytest.raises(EtrecordFormatError) as caught:
        explorer.load(tmp_path / "net.pte", etrecord=bad)
    code, err = _cli("inspect", str(tmp_path / "net.pte"), "--etrecord", str(bad), capsys=capsys)
    assert code == 2 and str(caught.value) in err and err.count("\n") == 1, err
