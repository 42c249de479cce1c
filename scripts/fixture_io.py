"""What every fixture script does with the bytes it exported: compare them with the committed files (``--check``)
or write them. Shared by scripts/make_*_fixtures.py, each of which exports its own programs."""

from __future__ import annotations

from pathlib import Path


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
