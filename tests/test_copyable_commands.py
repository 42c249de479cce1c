"""Copyable commands read back exactly: the line the page offers, run by bash, reaches argparse as written (#30).

File names are data: a name starting with ``-`` (argparse would take it for an option), with spaces, quotes or
``$(...)``. The browser's what-if line (``cliLine`` in explorer/frontend/shell/moves.js, evaluated by node on the
payload's ``file``) and the Python hints (``--data FILE`` in ``data_hint`` and the ``no-placement-check``
finding) are each run by bash with ``device-explorer`` bound to this checkout's CLI, in a folder that holds the
oddly named file: the command must succeed on that very file.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import explorer
from explorer.cli.data_option import data_hint
from explorer.safe_text import shell_path

ROOT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).parent / "fixtures"
NAMES = ["-x.pte", "--help.pte", "-o", "it's $(touch pwned) -v.pte", "a b\"c\".pte", "--", "-"]


def _bash(line: str, cwd: Path) -> subprocess.CompletedProcess:
    script = f'device-explorer() {{ "{sys.executable}" -m explorer.cli "$@"; }}\n{line}\n'
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _cli_line(file: str, moves: list[str]) -> str:
    module = (ROOT / "explorer" / "frontend" / "shell" / "moves.js").as_uri()
    code = (f"import {{cliLine}} from {json.dumps(module)};"
            f"process.stdout.write(cliLine({json.dumps(file)}, {json.dumps(moves)}));")
    done = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", NAMES)
def test_the_pages_whatif_line_runs_on_the_file_it_names(tmp_path, name):
    shutil.copy(FIX / "device_mlp.pte", tmp_path / name)
    program = explorer.load(tmp_path / name)
    os.chdir(tmp_path)  # the payload names the file as the user gave it: relative
    try:
        file = explorer.load(name).source
    finally:
        os.chdir(ROOT)
    assert program.source and file == name
    line = _cli_line(file, ["delegate:*=cpu"])
    done = _bash(line, tmp_path)
    assert done.returncode == 0, (line, done.stderr)
    assert (tmp_path / "whatif.html").exists()
    assert not (tmp_path / "pwned").exists()
    assert done.stdout.startswith(f"{name}: predicted by what-if")


@pytest.mark.parametrize("name", ["-ext.ptd", "it's -x.ptd", "--data.ptd"])
def test_the_data_hint_runs_as_printed(tmp_path, name):
    shutil.copy(FIX / "companions" / "external.pte", tmp_path / "-prog.pte")
    shutil.copy(FIX / "companions" / "external.ptd", tmp_path / name)
    os.chdir(tmp_path)
    try:
        hint = data_hint(explorer.load("-prog.pte"), "-prog.pte")
    finally:
        os.chdir(ROOT)
    assert hint is not None
    words = re.search(r"add (--data .*)$", hint)
    assert words, hint
    done = _bash(f"device-explorer inspect {shell_path('-prog.pte')} {words.group(1)}", tmp_path)
    assert done.returncode == 0, (hint, done.stderr)
    assert "live in a .ptd data file" not in done.stdout + done.stderr  # linked: no hint again


@pytest.mark.parametrize("name", ["-w.ptd", "x y.ptd"])
def test_the_data_file_findings_command_runs_as_printed(tmp_path, name):
    shutil.copy(FIX / "companions" / "external.pte", tmp_path / "MODEL.pte")
    shutil.copy(FIX / "companions" / "external.ptd", tmp_path / name)
    (finding,) = explorer.check(tmp_path / name)
    command = re.search(r"(device-explorer check MODEL\.pte --data .*?) \(explorer", finding.message)
    assert command, finding.message
    done = _bash(command.group(1), tmp_path)
    assert done.returncode == 0, (command.group(1), done.stderr)
    call = re.search(r"\((explorer\.load\(.*?\]\))\)", finding.message)
    assert call, finding.message
    os.chdir(tmp_path)
    try:
        linked = eval(call.group(1), {"explorer": explorer})  # the Python call the finding offers, as written
    finally:
        os.chdir(ROOT)
    assert linked.data_files and linked.data_files[0].source == name


def _page_commands(block: dict, moves: list[str]) -> tuple[str | None, str | None]:
    """The what-if bar's CLI line and Python call for ``moves`` over a payload's ``whatif`` block, as the page writes
    them (moves.js; None where the page offers none)."""
    module = (ROOT / "explorer" / "frontend" / "shell" / "moves.js").as_uri()
    code = (f"import {{cliLine, whatIfCall}} from {json.dumps(module)}; const W = {json.dumps(block)}, m = {json.dumps(moves)};"
            f"process.stdout.write(JSON.stringify([W.file ? cliLine(W.file, m, W.cli) : null,"
            f" W.program ? whatIfCall(W.program, m, W.py) : null]));")
    done = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return tuple(json.loads(done.stdout))


def test_an_explorer_of_a_prediction_or_of_bytes_offers_no_command_on_a_missing_file(tmp_path):
    """Issue 31: ``Explorer(what_if(...))`` named ``x.pte (what-if)`` in its CLI line, a file that does not exist.
    Every command the page offers runs as written; where there is no file, the page says so instead."""
    from explorer.views.payload.embed import unpack

    shutil.copy(FIX / "device_mlp.pte", tmp_path / "it's m.pte")
    # read from a temporary path that is no file any more
    gone_program = dataclasses.replace(explorer.load(FIX / "device_mlp.pte"), source=str(tmp_path / "gone.pte"))
    cases = {"prediction": explorer.what_if(explorer.load(tmp_path / "it's m.pte"), ["delegate:*=cpu"], skip_d2h_outputs=True),
             "bytes": explorer.load((FIX / "device_mlp.pte").read_bytes()),
             "prediction of bytes": explorer.what_if(explorer.load((FIX / "device_mlp.pte").read_bytes()), ["delegate:*=cpu"]),
             "deleted file": gone_program, "prediction of a deleted file": explorer.what_if(gone_program, ["delegate:*=cpu"])}
    for what, program in cases.items():
        block = unpack(explorer.Explorer(program)._payload)["whatif"]
        cli, py = _page_commands(block, ["delegate:*=cuda:0"])
        assert cli is None and "no command line" in block["nofile"], (what, block)
        if what == "prediction":
            assert "prediction of" in block["nofile"] and str(tmp_path / "it's m.pte") in block["nofile"]
            done = subprocess.run([sys.executable, "-c", f"import explorer\np = {py}\nprint(p.prediction.moves)"],
                                  cwd=tmp_path, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
            assert done.returncode == 0, (py, done.stderr)
            assert "delegate:*" in done.stdout
        else:
            assert py is None, (what, py)
    # a file that is there: both commands, and the CLI line runs
    block = unpack(explorer.Explorer(tmp_path / "it's m.pte")._payload)["whatif"]
    cli, py = _page_commands(block, ["delegate:*=cpu"])
    assert block["nofile"] == "" and py == f"explorer.what_if(explorer.load({str(tmp_path / chr(39).join(['it', 's m.pte']))!r}), [\"delegate:*=cpu\"])"
    done = _bash(cli, tmp_path)
    assert done.returncode == 0, (cli, done.stderr)
