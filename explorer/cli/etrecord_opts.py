"""``--etrecord FILE`` for ``inspect``, ``show``, ``check`` (and ``diff``, one per program): join an ETRecord.

A damaged ETRecord is reported like a bad program (exit 2, naming the ETRecord and its member: an
:class:`~explorer.errors.EtrecordFormatError`); an ETRecord of another program is refused with what does not
line up (:class:`~explorer.analysis.context.EtrecordMismatch`, exit 2); what lines up only partly is said on
stderr as notes, and the command goes on.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from explorer.analysis.context import EtrecordMismatch, attach_etrecord
from explorer.errors import PteFormatError
from explorer.model.etrecord import InstructionContext
from explorer.model.program import Program
from explorer.cli.profile_opts import ProfileExit
from explorer.analysis.context import op_name

__all__ = ["add_etrecord_option", "with_etrecord", "context_lines", "short_context"]

_LINES = 200  # context lines printed per plan by inspect before "... (N more; --json has all)"


def add_etrecord_option(p: argparse.ArgumentParser, *, nargs: str | int | None = None) -> None:
    p.add_argument("--etrecord", metavar="ETRECORD", nargs=nargs,
                   help="the ETRecord of this export (generate_etrecord=True): each instruction's module, source "
                        "line and ops before lowering; groups named by the model's modules"
                        + (" (diff: one per program, A then B)" if nargs else ""))


def with_etrecord(program: Program, path: str | None, err: TextIO | None = None) -> Program:
    """``program`` with the ETRecord at ``path`` joined (unchanged when ``path`` is None); a mismatch is
    printed and ends the command with status 2 (ProfileExit)."""
    if not path:
        return program
    if not isinstance(program, Program):
        raise PteFormatError("an ETRecord can only be joined to a program, and this is a data file (.ptd)", offset=4)
    err = err if err is not None else sys.stderr
    try:
        joined = attach_etrecord(program, path)
    except EtrecordMismatch as exc:
        print(f"device-explorer: {path}: {exc}", file=err)
        raise ProfileExit from None
    for note in joined.etrecord.warnings:
        print(f"device-explorer: note: {os.path.basename(path)}: {note}", file=err)
    return joined


def short_context(ctx: InstructionContext) -> str:
    """``layers.0.lin (Linear) at model.py:62`` — what one line says of an instruction."""
    src = f" at {ctx.source.location}" if ctx.source else ""
    if not ctx.module:
        return f"(no module){src}"
    kind = ctx.module[-1].type_name
    return (f"{ctx.module_path} ({kind})" if ctx.module_path else f"{kind} (the model itself)") + src


def context_lines(program: Program, plan_name: str, indent: str = "  ", limit: int | None = _LINES) -> list[str]:
    """Per run of consecutive instructions with the same module and source line, one line:
    ``#0..#1  layers.0.lin (Linear) at model.py:62  [permute_copy, addmm]``."""
    ctx = program.etrecord.plan(plan_name) if program.etrecord else None
    if ctx is None:
        return []

    runs: list[list] = []
    for ic in ctx.instructions:
        if ic is None:
            continue
        key = (short_context(ic), ic.backend)
        if runs and runs[-1][0] == key and runs[-1][2] == ic.index - 1:
            runs[-1][2] = ic.index
            runs[-1][3].extend(ic.ops)
        else:
            runs.append([key, ic.index, ic.index, list(ic.ops)])
    record = os.path.basename(program.etrecord.record.source) if program.etrecord.record.source else "ETRecord"
    lines = [f"{indent}model context ({record}; module at source line, ops before lowering):"]
    shown = runs if limit is None else runs[:limit]
    for (text, backend), a, b, ops in shown:
        span = f"#{a}" if a == b else f"#{a}..#{b}"
        names = list(dict.fromkeys(op_name(o) for o in ops))
        more = f", +{len(names) - 6}" if len(names) > 6 else ""
        holds = f"{backend} holds " if backend else ""
        lines.append(f"{indent}  {span:<10} {text}  [{holds}{', '.join(names[:6])}{more}]")
    if len(shown) < len(runs):
        lines.append(f"{indent}  ... ({len(runs) - len(shown)} more runs; --json has every instruction)")
    return lines
