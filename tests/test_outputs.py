"""Outputs never replace inputs, and a failed write keeps what was there (issue #30).

Every command and API that writes is tried with its output naming one of its inputs, by the same path, another
spelling, a symlink and a hard link: each refuses (exit 2 / OutputIsInput) and the input keeps its bytes. A
write stopped by a real file-size limit (RLIMIT_FSIZE) leaves the previous report whole and no temporary file.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import explorer
from explorer.cli import main
from explorer.errors import OutputIsInput
from explorer.outputs import write_text

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[1]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("mlp.pte", "device_mlp.pte"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    shutil.copy(FIXTURES / "companions" / "external.pte", tmp_path / "external.pte")
    shutil.copy(FIXTURES / "companions" / "external.ptd", tmp_path / "external.ptd")
    shutil.copy(FIXTURES / "etdump" / "mlp.etdp", tmp_path / "mlp.etdp")
    (tmp_path / "link.pte").symlink_to("mlp.pte")
    os.link(tmp_path / "device_mlp.pte", tmp_path / "hard.pte")
    (tmp_path / "ov.json").write_text('{"@0": 1}')
    return tmp_path


def _cli(folder: Path, *argv: str, capsys) -> tuple[int, str]:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code = main(list(argv), stdout=io.StringIO())
    finally:
        os.chdir(cwd)
    return code, capsys.readouterr().err


CASES = [
    ("show", "mlp.pte", "-o", "mlp.pte"),
    ("show", "mlp.pte", "-o", "./mlp.pte"),
    ("show", "mlp.pte", "-o", "link.pte"),
    ("show", "link.pte", "-o", "mlp.pte"),
    ("show", "device_mlp.pte", "-o", "hard.pte"),
    ("show", "external.ptd", "-o", "external.ptd"),  # the data-file page
    ("show", "external.pte", "--data", "external.ptd", "-o", "external.ptd"),
    ("show", "mlp.pte", "--profile", "mlp.etdp", "-o", "mlp.etdp"),
    ("show", "mlp.pte", "--overlay", "ov.json", "-o", "ov.json"),
    ("show", "device_mlp.pte", "--move", "delegate:*=cpu", "-o", "device_mlp.pte"),
    ("whatif", "device_mlp.pte", "--move", "delegate:*=cpu", "-o", "device_mlp.pte"),
    ("whatif", "device_mlp.pte", "--move", "delegate:*=cpu", "-o", "hard.pte"),
    ("diff", "mlp.pte", "device_mlp.pte", "--html", "device_mlp.pte"),
    ("diff", "mlp.pte", "device_mlp.pte", "--html", "link.pte"),
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_every_command_refuses_to_write_over_an_input(folder, argv, capsys):
    before = {p.name: _digest(p) for p in folder.iterdir() if p.is_file()}
    code, err = _cli(folder, *argv, capsys=capsys)
    assert code == 2, err
    assert "refusing to write" in err and "input file" in err
    after = {p.name: _digest(p) for p in folder.iterdir() if p.is_file()}
    assert after == before  # nothing written, nothing replaced
    assert sorted(p.name for p in folder.iterdir()) == sorted(before)


def test_a_distinct_output_is_still_written(folder, capsys):
    code, err = _cli(folder, "show", "mlp.pte", "-o", "report.html", capsys=capsys)
    assert code == 0, err
    assert (folder / "report.html").read_text().startswith("<!doctype html") or "<html" in (folder / "report.html").read_text()


def test_the_python_api_refuses_alike(folder):
    program = explorer.load(folder / "mlp.pte")
    other = explorer.load(folder / "device_mlp.pte")
    before = _digest(folder / "mlp.pte")
    for target in (folder / "mlp.pte", folder / "link.pte", str(folder / "." / "mlp.pte")):
        with pytest.raises(OutputIsInput):
            explorer.Explorer(program).save_html(target)
    with pytest.raises(OutputIsInput):
        explorer.Diff(program, other).save_html(folder / "hard.pte")
    with pytest.raises(OutputIsInput):
        explorer.Explorer(folder / "device_mlp.pte", moves=["delegate:*=cpu"]).save_html(folder / "device_mlp.pte")
    with pytest.raises(OutputIsInput):  # a .ptd linked with data=[...] is an input too
        explorer.Explorer(folder / "external.pte", data=[folder / "external.ptd"]).save_html(folder / "external.ptd")
    assert _digest(folder / "mlp.pte") == before
    assert explorer.Explorer(program).save_html(folder / "ok.html").exists()


def test_write_text_follows_a_symlinked_report_and_keeps_the_mode(tmp_path):
    (tmp_path / "real.html").write_text("old")
    os.chmod(tmp_path / "real.html", 0o640)
    (tmp_path / "report.html").symlink_to("real.html")
    write_text(tmp_path / "report.html", "new")
    assert (tmp_path / "report.html").is_symlink()
    assert (tmp_path / "real.html").read_text() == "new"
    assert (tmp_path / "real.html").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.html", "report.html"]


_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
from explorer.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("argv", [("show", "mlp.pte", "-o", "report.html"),
                                  ("whatif", "device_mlp.pte", "--move", "delegate:*=cpu", "-o", "report.html"),
                                  ("diff", "mlp.pte", "device_mlp.pte", "--html", "report.html")])
def test_a_failed_write_keeps_the_previous_report(folder, argv):
    """A real file-size limit stops the write part-way: the good report stays, whole, and no temporary file."""
    (folder / "report.html").write_text("the previous good report")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _LIMITED, *argv], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "File too large" in done.stderr
    assert (folder / "report.html").read_text() == "the previous good report"
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".part")]
