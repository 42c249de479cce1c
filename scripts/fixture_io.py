"""What the fixture scripts share: running a program with executorch's runtime for its ETDump, and comparing the
exported bytes with the committed files (``--check``) or writing them. Each scripts/make_*_fixtures.py exports its
own programs. (Scripts that define models keep their own code above the models: an export records the models'
source lines, so moving lines there changes the committed fixtures.)"""

from __future__ import annotations

import tempfile
from pathlib import Path


def run_etdump(pte: bytes, calls, runs: int) -> bytes:
    """Run the program ``pte`` with executorch's runtime ``runs`` times per ``(method, input shapes)`` of
    ``calls``, inputs from ``torch.manual_seed(0)``; the ETDump it writes. Needs the interop extra."""
    import torch
    from executorch.extension.pybindings import portable_lib as pl

    torch.manual_seed(0)
    module = pl._load_for_executorch_from_buffer(pte, enable_etdump=True, debug_buffer_size=0)
    for _ in range(runs):
        for method, shapes in calls:
            module.run_method(method, [torch.randn(*s) for s in shapes])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.etdp"
        module.write_etdump_result_to_file(str(path), str(Path(tmp) / "debug.bin"))
        return path.read_bytes()


def differing(out: Path, files: dict[str, bytes]) -> list[str]:
    """The names whose committed file is missing or differs from the fresh export, printed as they are found."""
    bad = [n for n, data in files.items() if not (out / n).exists() or (out / n).read_bytes() != data]
    for n in bad:
        print(f"differs: {out / n}")
    return bad


def write_all(out: Path, files: dict[str, bytes]) -> None:
    """Write every file into ``out`` (made if missing), saying where and how big."""
    out.mkdir(parents=True, exist_ok=True)
    for n, data in files.items():
        (out / n).write_bytes(data)
        print(f"wrote {out / n} ({len(data)} bytes)")
