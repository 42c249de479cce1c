"""Bombs are refused in bounded memory, before anything is inflated or allocated for them (issue #30).

A 1 MB ETRecord whose member inflates to ~1 GiB of valid JSON (writers/zipbomb.py) took 6 GB and a minute; it is
now refused from the zip's directory: a clean EtrecordFormatError (exit 2 from the CLI), measured in a fresh
process for time and peak memory. A real ETRecord, stored as executorch writes it or re-compressed, still loads.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import explorer
from explorer.errors import EtrecordFormatError
from explorer.format.companions.etrecord import INFLATE_FLOOR, load_etrecord
from writers.zipbomb import json_bomb_zip

ROOT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).parent / "fixtures" / "etrecord"


def _real_members(skip: str) -> dict[str, bytes]:
    with zipfile.ZipFile(FIX / "net.etrecord") as z:
        return {n: z.read(n) for n in z.namelist() if n != skip}


_MEASURE = """
import json, sys, time
from explorer.format.companions.etrecord import load_etrecord
from explorer.errors import EtrecordFormatError
start = time.process_time()
try:
    load_etrecord(sys.argv[1])
    outcome = "loaded"
except EtrecordFormatError as exc:
    outcome = "refused: " + str(exc)
# VmHWM is this address space's peak; ru_maxrss is not: Linux keeps it across fork and exec, so a child of a
# large pytest process would report its parent's peak.
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"outcome": outcome, "seconds": time.process_time() - start,
                  "peak_mib": int(hwm.split()[1]) / 1024}))
"""


def _measured(path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("member", ["debug_handle_map", "edge_dialect_exported_program/forward"])
def test_a_gib_bomb_is_refused_within_256_mib_and_a_second(tmp_path, member):
    bomb = tmp_path / "bomb.etrecord"
    bomb.write_bytes(json_bomb_zip(_real_members(member), member, 1023))  # ~1 MB declaring 1,023 MiB + 2 bytes
    assert bomb.stat().st_size < 1_200_000
    got = _measured(bomb)
    assert got["outcome"].startswith("refused: ") and "zip bomb" in got["outcome"] and repr(member) in got["outcome"]
    assert got["peak_mib"] < 256 and got["seconds"] < 1.0, got


def test_the_cli_refuses_the_bomb_as_the_api_does(tmp_path, capsys):
    from explorer.cli import main
    bomb = tmp_path / "bomb.etrecord"
    bomb.write_bytes(json_bomb_zip(_real_members("debug_handle_map"), "debug_handle_map", 64))
    with pytest.raises(EtrecordFormatError) as caught:
        explorer.load(FIX / "net.pte", etrecord=bomb)
    code = main(["inspect", str(FIX / "net.pte"), "--etrecord", str(bomb)], stdout=io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and str(caught.value) in err


def test_just_over_the_budget_is_refused_and_just_under_is_read(tmp_path):
    """The budget is the JSON members' declared sizes together: INFLATE_FLOOR + 4x the archive's bytes."""
    members = _real_members("debug_handle_map")
    over = json_bomb_zip(members, "debug_handle_map", (INFLATE_FLOOR >> 20) + 1)  # the archive is ~100 KB
    with pytest.raises(EtrecordFormatError, match="zip bomb"):
        load_etrecord(over)
    under = json_bomb_zip(members, "debug_handle_map", 4)  # 4 MiB of spaces around []: valid, and within
    with pytest.raises(EtrecordFormatError, match="expected a JSON object of methods, found list"):
        load_etrecord(under)  # read and parsed: refused for what it says, not for its size


def test_a_real_etrecord_recompressed_still_loads(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(FIX / "net.etrecord") as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info in zin.infolist():
            z.writestr(info.filename, zin.read(info))
    assert load_etrecord(out.getvalue()).methods == load_etrecord(FIX / "net.etrecord").methods
