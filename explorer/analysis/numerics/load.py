"""One entry for every caller (CLI, Python API, widget, report): read a run — program, ETDump, debug buffer,
optional ETRecord — join its numbers, and compare it with another run when one is given.

Each side is read by the readers the rest of the explorer uses (``explorer.format.reader.load``,
``load_etdump``, ``load_etrecord`` through :func:`~explorer.analysis.context.attach_etrecord`), so a bad file
raises the same errors wherever it is named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.format.companions.etdump import load_etdump
from explorer.format.reader import load
from explorer.model.numerics import Numerics, NumericsComparison
from explorer.model.profile import ETDump
from explorer.model.program import Program
from explorer.analysis.context import attach_etrecord
from explorer.analysis.numerics.compare import DEFAULT_TOL, compare_numerics
from explorer.analysis.numerics.join import join_numerics

__all__ = ["NumericsRun", "NumericsReport", "read_run", "load_numerics"]


@dataclass(frozen=True)
class NumericsRun:
    """One side: the program (with its ETRecord joined, if given) and its run's numbers."""

    program: Program
    numerics: Numerics
    name: str | None = None  # the program's file name, for messages


@dataclass(frozen=True)
class NumericsReport:
    a: NumericsRun
    b: NumericsRun | None = None
    comparison: NumericsComparison | None = None

    @property
    def tol(self) -> float:
        return self.comparison.tol if self.comparison is not None else DEFAULT_TOL


def read_run(program: Any, etdump: Any, debug_buffer: Any, *, etrecord: Any = None,
             method: str | None = None) -> NumericsRun:
    """Read one side. ``program``: a path, bytes or a loaded Program; ``etdump``: a path, bytes or an ETDump;
    ``debug_buffer``: a path or bytes; ``etrecord``: anything ``attach_etrecord`` takes."""
    name = program if isinstance(program, str) else None
    prog = program if isinstance(program, Program) else load(program)
    if not isinstance(prog, Program):
        raise ValueError("numerics need a program (.pte), not a data file")
    if etrecord is not None:
        prog = attach_etrecord(prog, etrecord)
    dump = etdump if isinstance(etdump, ETDump) else load_etdump(etdump)
    return NumericsRun(prog, join_numerics(prog, dump, debug_buffer, method=method), name)


def load_numerics(program: Any, etdump: Any, debug_buffer: Any, *, etrecord: Any = None,
                  against: "tuple | dict | None" = None, tol: float = DEFAULT_TOL,
                  method: str | None = None) -> NumericsReport:
    """Read a run and, with ``against`` = ``(program_b, etdump_b, debug_buffer_b[, etrecord_b])`` or a dict of
    those names (``program``, ``etdump``, ``debug_buffer``, ``etrecord``), compare the two at tolerance ``tol``."""
    if tol < 0 or tol != tol:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}")
    a = read_run(program, etdump, debug_buffer, etrecord=etrecord, method=method)
    if against is None:
        return NumericsReport(a)
    if isinstance(against, dict):
        kw = dict(against)
        b = read_run(kw.pop("program"), kw.pop("etdump"), kw.pop("debug_buffer"), etrecord=kw.pop("etrecord", None),
                     method=method)
        if kw:
            raise TypeError(f"unknown key(s) of against: {sorted(kw)}")
    else:
        items = tuple(against)
        if len(items) not in (3, 4):
            raise TypeError("against is (program, etdump, debug_buffer[, etrecord])")
        b = read_run(*items[:3], etrecord=items[3] if len(items) == 4 else None, method=method)
    return NumericsReport(a, b, compare_numerics(a.numerics, b.numerics, a.program, b.program, tol=tol))
