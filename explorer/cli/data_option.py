"""``--data FILE`` (repeatable) for every command, and the hint about ``.ptd`` files lying next to a program.

A program whose tensors are ``external`` needs the ``.ptd`` that holds them, but nothing in the ``.pte``
names that file. So data files are only ever used when given: ``--data`` links them (and turns on the
``missing-external`` check); without it, ``*.ptd`` files in the program's folder are *offered* in a hint
on stderr, never silently assumed.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from typing import TextIO, Union

from explorer.errors import PteFormatError
from explorer.analysis.companions import external_tensors
from explorer.units import count
from explorer.safe_text import shell_path
from explorer.format.reader import load
from explorer.model.program import DataFile, Program

_SIBLINGS = 8  # sibling .ptd files looked at for the hint

__all__ = ["add_data_option", "load_with_data", "load_program", "sibling_data_files", "data_hint"]


def add_data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", action="append", default=None, metavar="FILE",
                        help="a .ptd data file holding the program's external tensors or delegate data "
                             "(repeatable); enables the missing-external check")


def sibling_data_files(path: str) -> list[str]:
    """``*.ptd`` files in the same folder as ``path`` (sorted), for offering to the user."""
    folder = os.path.dirname(os.path.abspath(path))
    return sorted(glob.glob(os.path.join(glob.escape(folder), "*.ptd")))


def data_hint(program: Program, path: str) -> str | None:
    """One line offering sibling ``.ptd`` files when the program has external tensors and no data files
    were given; None when there is nothing to say. Siblings are read (metadata only) to offer the ones
    that hold the program's keys; one that doesn't decode is simply not offered."""
    if program.data_files is not None:
        return None
    found = [t for plan in program.plans for t in external_tensors(plan)]
    keys = {t.name for t in found if t.name}
    external = len(found)
    if not external:
        return None
    offers = []
    for candidate in sibling_data_files(path)[:_SIBLINGS]:
        try:
            data_file = load(candidate)
        except (PteFormatError, OSError):
            continue
        held = sum(1 for k in keys if isinstance(data_file, DataFile) and data_file.entry(k) is not None)
        if held:
            offers.append((candidate, held))
    head = f"note: {count(external, 'external tensor')} live in a .ptd data file"
    if not offers:
        return head + "; give it with --data FILE to link them"
    found = ", ".join(f"{os.path.basename(f)} holds {n} of {len(keys)}" for f, n in offers)
    return f"{head}; next to the program, {found}: add {' '.join(f'--data {shell_path(os.path.relpath(f))}' for f, _ in offers)}"


def load_with_data(path: str, data: list[str] | None, err: TextIO | None = None) -> Union[Program, DataFile]:
    """``load(path, data=...)``, printing :func:`data_hint` to ``err`` (stderr) when it has one."""
    loaded = load(path, data=data) if data else load(path)
    if isinstance(loaded, Program):
        hint = data_hint(loaded, path)
        if hint:
            print(hint, file=err if err is not None else sys.stderr)
    return loaded


def load_program(path: str, data: list[str] | None, err: TextIO | None = None) -> Program:
    """:func:`load_with_data` for commands that need a program: a ``.ptd`` is refused with a clear message."""
    loaded = load_with_data(path, data, err)
    if not isinstance(loaded, Program):
        raise PteFormatError("this is an ExecuTorch data file (.ptd), not a program: give it to a program "
                             "with --data, or run `device-explorer inspect` on it", offset=4)
    return loaded
