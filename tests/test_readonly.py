"""Reading never writes: a ``.pte`` is opened and memory-mapped read-only, and its bytes and times stay.

The file under test is made immutable where the system allows it (``chattr +i``: even root then gets
EPERM on any attempt to open it for writing), else read-only by mode; its content hash, size,
modification and status-change times are compared before and after ``load``, segment reads,
``device-explorer inspect`` (text and JSON), ``explorer.check``, ``device-explorer check`` and the
HTML report (``device-explorer show``) — each of the last three when it exists in this checkout.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import mmap
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import explorer
from explorer import Program, PteFormatError
from explorer.cli import main
from explorer.format import reader

FIXTURES = Path(__file__).parent / "fixtures"
OLD = 1_000_000_000 * 10**9  # 2001-09-09, in ns: any write would move the mtime off it


def _state(path: Path) -> tuple:
    st = os.stat(path)
    return hashlib.sha256(path.read_bytes()).hexdigest(), st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _chattr(flag: str, path: Path) -> bool:
    if sys.platform != "linux" or not shutil.which("chattr"):
        return False
    return subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0


@pytest.fixture(params=["device_mlp.pte", "mutable_state.pte", "xnnpack_mlp.pte"])
def frozen(request, tmp_path):
    """A copy of a fixture with an old mtime, made immutable (or at least read-only); yields (path, state)."""
    path = tmp_path / request.param
    shutil.copyfile(FIXTURES / request.param, path)
    os.utime(path, ns=(OLD, OLD))
    immutable = _chattr("+i", path)
    path.chmod(0o444) if not immutable else None
    if immutable:  # prove the guard is real: even this process (root, here) can't open it for writing
        with pytest.raises(PermissionError):
            open(path, "r+b").close()
    try:
        yield path, _state(path)
    finally:
        if immutable:
            _chattr("-i", path)
        path.chmod(0o644)


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out)
    return code, out.getvalue()


def test_load_opens_read_only_and_maps_read_only(frozen, monkeypatch):
    path, _ = frozen
    seen = []
    real = mmap.mmap

    def spy(fileno, length, *args, **kwargs):
        seen.append((fcntl.fcntl(fileno, fcntl.F_GETFL) & os.O_ACCMODE, kwargs.get("access"), args))
        return real(fileno, length, *args, **kwargs)

    monkeypatch.setattr(reader.mmap, "mmap", spy)
    program = explorer.load(path)
    assert isinstance(program, Program)
    assert seen == [(os.O_RDONLY, mmap.ACCESS_READ, ())]


def test_load_inspect_check_and_report_leave_the_file_untouched(frozen, tmp_path):
    path, before = frozen
    program = explorer.load(path)
    explorer.load(str(path))
    for i in range(len(program.segments)):
        program.segment_data(i)
    code, text = _run(["inspect", str(path)])
    assert code == 0 and path.name in text
    code, text = _run(["inspect", "--json", str(path)])
    assert code == 0 and text.startswith("{")
    ran = ["load", "inspect"]
    explorer.check(program)
    ran.append("explorer.check")
    code, _ = _run(["check", str(path)])
    assert code in (0, 1)
    ran.append("check")
    report = tmp_path / "out" / "report.html"
    report.parent.mkdir()
    code, _ = _run(["show", str(path), "-o", str(report)])
    assert code == 0 and report.stat().st_size > 0
    ran.append("show")
    assert _state(path) == before, f"the file changed during {ran}"


def _mapped(path: Path) -> bool:
    """Whether this process maps ``path`` (Linux's /proc; the project and its CI run on Linux)."""
    with open("/proc/self/maps") as fh:
        return str(path) in fh.read()


def test_no_mapping_is_left_behind(frozen, tmp_path):
    path, before = frozen
    program = explorer.load(path)
    assert not _mapped(path)  # the mapping is closed when load returns; segments are read afresh
    if program.segments:
        program.segment_data(0)
        assert not _mapped(path)
    assert _state(path) == before


def test_a_corrupt_file_gives_a_format_error_and_closes_its_mapping(tmp_path):
    """Regression: an error raised after the numpy gathers started left views of the mapping alive in
    the traceback, and ``mmap.close`` then replaced the PteFormatError with a BufferError."""
    data = bytearray((FIXTURES / "device_add.pte").read_bytes())
    from explorer.format.pte import slots as S
    from explorer.format.pte.container import read_container
    from explorer.format.flatbuf import FlatReader

    c = read_container(bytes(data), len(data))
    r = FlatReader(bytes(data), c.flatbuffer_end)
    plan = r.tables(r.ref(c.root, r.table(c.root), S.PROGRAM_EXECUTION_PLAN))[0]
    evalue = r.tables(r.ref(plan, r.table(plan), S.PLAN_VALUES))[0]
    data[evalue + r.table(evalue)[S.EVALUE_VAL_TYPE]] = 99  # an EValue union tag out of range
    path = tmp_path / "bad.pte"
    path.write_bytes(bytes(data))
    with pytest.raises(PteFormatError, match="union tag 99") as info:
        explorer.load(path)
    assert not _mapped(path)  # closed even while the error (and its traceback) is still alive
    del info
