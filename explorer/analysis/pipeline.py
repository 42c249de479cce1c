"""The one analysis pipeline: a plan's facts as arrays at once, the per-value records when asked for.

:func:`~explorer.analysis.analyze` (:meth:`LazyAnalysis.complete`), :func:`~explorer.analysis.check`
(its ``findings``) and every view run this same sequence — facts, edges, aliases, lifetimes, planned
bytes, moving tensors, findings — and differ only in which records they read afterwards.

:func:`~explorer.analysis.analyze` builds a record per value, instruction and block (``Lifetime``,
``Block``, ``Transfer``, the dataflow tuples): about 1.5 s on a 100k-value plan, most of which a view
of that plan never reads — the overview draws groups, the memory map bins arrays. A
:class:`LazyAnalysis` computes what :func:`~explorer.analysis.check` computes (numpy columns, and the
findings) at once, and every :class:`~.types.PlanAnalysis` field on first access. It has the same
attribute names, so the details panel and the other consumers of a ``PlanAnalysis`` take either.
"""

from __future__ import annotations

import dataclasses
import os
from functools import cached_property

import numpy as np

from explorer.analysis.arrays import unique
from explorer.analysis.companions import companion_findings
from explorer.model.program import DataFile, Plan, Program
from explorer.format.reader import load
from explorer.safe_text import shell_path
from explorer.analysis.checks.placement import DEFAULT_LIMIT, plan_findings, program_findings
from explorer.analysis.facts import Facts
from explorer.analysis.graph import dataflow, edges
from explorer.analysis.lifetimes import aliases, lifetime_arrays, lifetimes
from explorer.analysis.memory import device_totals, memory_map, peak, planned_arrays
from explorer.analysis.transfers import transfer_arrays, transfer_totals, transfers
from explorer.analysis.types import (ArenaMap, EmptyArenas, Finding, Dataflow, DeviceTotals, Lifetime, MemoryMap, PlanAnalysis, Transfer,
    TransferTotals)

EMPTY_SHOWN = 16  # empty arenas listed one by one before the rest are summarised (:attr:`LazyAnalysis.empty_arenas`)

__all__ = ["LazyAnalysis", "analyze", "analyze_program", "check", "not_a_program"]


class LazyAnalysis:
    """A :class:`~.types.PlanAnalysis` look-alike whose record fields are computed on first use.

    Arrays (always there): ``facts`` (:class:`.facts.Facts`), ``edges`` (:class:`.graph.Edges`),
    ``first``/``last`` (lifetime per value, -1 none), ``planned`` (:func:`.memory.planned_arrays`),
    ``moving`` (:func:`.transfers.transfer_arrays`). ``aliases`` is computed at once; ``findings`` on first
    use, like the records: half the analysis of a small plan is its checks, and ``inspect``'s summary, which
    prints no finding, analyses every plan (3,500 plans: seconds of checks nobody read).
    """

    def __init__(self, plan: Plan, program: Program | None = None, *, limit: int | None = DEFAULT_LIMIT):
        self._plan = plan
        self._program, self._limit = program, limit
        self.plan = plan.name
        self.facts = f = Facts(plan)
        self.edges = e = edges(plan, f)
        self.aliases = aliases(plan, f, e)
        self.first, self.last = lifetime_arrays(plan, f, e, self.aliases)
        self.planned = planned_arrays(f, self.aliases)
        self.moving = transfer_arrays(f, e)

    @cached_property
    def findings(self) -> tuple[Finding, ...]:
        """Every placement finding of the plan (:func:`.checks.placement.plan_findings`)."""
        return tuple(plan_findings(self._plan, self.facts, self.edges, self.first, self.last, self.planned,
                                   self.moving, self._program, self._limit))

    def complete(self) -> PlanAnalysis:
        """Every record made: the :class:`~.types.PlanAnalysis` of :func:`explorer.analysis.analyze`."""
        return PlanAnalysis(plan=self.plan, dataflow=self.dataflow, lifetimes=self.lifetimes, memory=self.memory,
                            transfers=self.transfers, transfer_totals=self.transfer_totals, findings=self.findings,
                            aliases=self.aliases)

    @cached_property
    def dataflow(self) -> Dataflow:
        return dataflow(self._plan, self.edges)

    @cached_property
    def lifetimes(self) -> dict[int, Lifetime]:
        return lifetimes(self._plan, (self.first, self.last))

    @cached_property
    def transfers(self) -> tuple[Transfer, ...]:
        return transfers(self._plan, self.facts, self.edges, self.moving)

    @cached_property
    def transfer_totals(self) -> tuple[TransferTotals, ...]:
        return transfer_totals(self.transfers)

    @cached_property
    def memory(self) -> MemoryMap:
        """The full memory map, a :class:`~.types.Block` per planned tensor (slow on big plans)."""
        return memory_map(self._plan, self.facts, self.first, self.last, self.transfers, self.planned)

    @cached_property
    def device_totals(self) -> tuple[DeviceTotals, ...]:
        """``memory.devices`` without building the blocks or the Transfer records: the copies are
        counted from the transfer arrays (as :func:`.memory.device_totals` counts the records)."""
        if "memory" in self.__dict__:
            return self.memory.devices
        f, t = self.facts, self.moving
        src, dst, nbytes = f.dcode[t["src"]], f.dcode[t["dst"]], t["nbytes"]
        cross = (src != dst).nonzero()[0]
        moved: dict[int, list[int]] = {}  # device code -> copies in, bytes in, copies out, bytes out
        for s, d, b in zip(src[cross].tolist(), dst[cross].tolist(), nbytes[cross].tolist()):  # one pass, in ints
            into, away = moved.setdefault(d, [0, 0, 0, 0]), moved.setdefault(s, [0, 0, 0, 0])
            into[0] += 1
            into[1] += b
            away[2] += 1
            away[3] += b
        out = []
        for row in device_totals(f, self.planned, self.first, self.last, ()):
            n_in, b_in, n_out, b_out = moved.get(row.device.code, (0, 0, 0, 0))
            out.append(dataclasses.replace(row, transfers_in=n_in, bytes_in=b_in, transfers_out=n_out,
                                           bytes_out=b_out))
        return tuple(out)

    @cached_property
    def _shown_arenas(self) -> tuple[np.ndarray, np.ndarray]:
        """(memory ids listed one by one, memory ids summarised): every arena holding a planned tensor and the
        first ``EMPTY_SHOWN`` empty ones are listed; the other empty ones only counted (:attr:`empty_arenas`).
        Columns all the way: a million declared arenas cost a few array passes."""
        n = len(self._plan.buffer_sizes)
        occupied = np.zeros(max(n, 1), dtype=bool)
        mids = self.planned["memory_id"]
        occupied[mids[(mids >= 1) & (mids < n)]] = True
        occupied[0] = False
        empty = np.flatnonzero(~occupied[1:]) + 1
        shown = np.union1d(np.flatnonzero(occupied), empty[:EMPTY_SHOWN])
        return shown, empty[EMPTY_SHOWN:]

    @cached_property
    def empty_arenas(self) -> EmptyArenas | None:
        """The empty arenas past the first ``EMPTY_SHOWN``, summarised (None when every arena is listed)."""
        rest = self._shown_arenas[1]
        if not rest.size:
            return None
        codes, sizes = self.facts.arena_code[rest], self.facts.arena_size[rest]
        per = []
        for code in unique(codes).tolist():
            mine = sizes[codes == code]
            per.append((self.facts.device(int(code)), int(mine.size), sum(mine.tolist())))
        per.sort(key=lambda row: row[0])
        return EmptyArenas(int(rest.size), sum(b for _, _, b in per), tuple(per))

    @cached_property
    def arenas(self) -> tuple[ArenaMap, ...]:
        """One summary per arena listed (every arena with a planned tensor, and the first ``EMPTY_SHOWN``
        empty ones; the rest are :attr:`empty_arenas`), as ``memory.arenas`` but with ``blocks=()`` (the
        blocks are the rows of :meth:`arena_rows`): size, device, peak live bytes and where, high water."""
        out = []
        for buf in self.listed_buffers:
            rows = self.arena_rows(buf.memory_id)
            counted = np.where(rows["alias"] < 0, rows["nbytes"], 0)
            top, at = peak(rows["first"], rows["last"], counted)
            high = int((rows["offset"] + rows["nbytes"]).max()) if rows["value"].size else 0
            out.append(ArenaMap(buf.memory_id, buf.size, buf.device, (), top, at, high))
        return tuple(out)

    @cached_property
    def listed_buffers(self) -> tuple:
        """The arenas :attr:`arenas` lists, as the plan's ``Buffer`` records (id, size, device) without the peaks
        and high water :attr:`arenas` computes: what ``show`` prints for each of thousands of plans."""
        buffers = self._plan.buffers
        return tuple(buffers[memory_id - 1] for memory_id in self._shown_arenas[0].tolist())

    @cached_property
    def _by_arena(self) -> tuple[np.ndarray, np.ndarray]:
        """The planned rows sorted by arena, then offset, then first use (one sort for every arena), and their
        memory ids in that order: an arena's rows are one searchsorted slice, not a pass over all rows."""
        p = self.planned
        first = self.first[p["value"]]
        order = np.lexsort((np.where(first < 0, -1, first), p["offset"], p["memory_id"]))
        return order, p["memory_id"][order]

    def arena_rows(self, memory_id: int) -> dict[str, np.ndarray]:
        """The planned tensors of one arena as parallel arrays (value, offset, nbytes, first, last,
        alias, dcode), sorted as ``ArenaMap.blocks`` is: by offset, then first use."""
        cache = self.__dict__.setdefault("_rows", {})
        if memory_id not in cache:
            p = self.planned
            order, ids = self._by_arena
            lo, hi = np.searchsorted(ids, [memory_id, memory_id + 1])
            sel = order[lo:hi]
            value = p["value"][sel]
            cache[memory_id] = {"value": value, "offset": p["offset"][sel], "nbytes": p["nbytes"][sel],
                                "first": self.first[value], "last": self.last[value], "alias": p["alias"][sel],
                                "dcode": self.facts.dcode[value]}
        return cache[memory_id]


def analyze(plan: Plan, program: Program | None = None, *, limit: int | None = DEFAULT_LIMIT) -> PlanAnalysis:
    """Dataflow, lifetimes, memory map, transfers and findings of one plan (each computed once)."""
    return LazyAnalysis(plan, program, limit=limit).complete()


def analyze_program(program: Program, *, limit: int | None = DEFAULT_LIMIT) -> dict[str, PlanAnalysis]:
    """:func:`analyze` for every plan, keyed by plan name (in the program's order)."""
    return {plan.name: analyze(plan, program, limit=limit) for plan in program.plans}


def check(program, *, limit: int | None = DEFAULT_LIMIT,
          analyses: dict[str, LazyAnalysis] | None = None) -> list[Finding]:
    """Every placement finding of ``program``: program-wide ones (``plan == ""``) first, then per plan.

    Runs the whole analysis (dataflow, lifetimes, memory map, transfers) on numpy columns, without
    building the per-value records nobody reads here, so it stays fast on very large programs.

    A data file (``.ptd``, what :func:`explorer.load` returns for one) has no plan to check: it gets one
    ``info`` finding ``no-placement-check`` saying so and how to check its program, so an empty list is
    never mistaken for a pass. A bundled program (``.bpte``) loads as its program and is checked as one.

    ``analyses``, when given, receives each plan's analysis by plan name, so a caller that also draws the
    plans (the widget) reuses them instead of analysing twice.

    ``program`` is what :func:`explorer.load` returned, or anything it takes (a path, bytes, a file object, a
    manager), loaded first, so every entry point answers alike: bad bytes raise ``PteFormatError``, a thing
    that is no program at all (``None``, a number) ``TypeError``, never an ``AttributeError`` from inside.
    """
    if not isinstance(program, (Program, DataFile)):
        program = load(program)
    if isinstance(program, DataFile):
        return [not_a_program(program)]
    found = program_findings(program, limit)
    for plan in program.plans:
        lazy = LazyAnalysis(plan, program, limit=limit)
        if analyses is not None:
            analyses[plan.name] = lazy
        found.extend(lazy.findings)
    found.extend(companion_findings(program))  # missing-external, bad-delegate-payload
    return found


def not_a_program(data: DataFile) -> Finding:
    """The one finding of ``check`` on a data file: placement checks apply to the program that uses it."""
    name = os.path.basename(data.source) if data.source else None
    n = len(data.entries)
    what = f"{name} is a data file" if name else "This is a data file"
    arg = name or "DATA.ptd"
    word = shell_path(arg)  # a name from the user's disk, in a command they copy: quoted, a leading '-' guarded
    return Finding(
        "no-placement-check", "info", "",
        f"{what} (.ptd, {n} named entr{'y' if n == 1 else 'ies'}): it holds tensors, not a plan, so no placement "
        f"check applies. Check the program that uses it, with the data file attached: device-explorer check "
        f"MODEL.pte --data {word} (explorer.load('MODEL.pte', data=[{arg!r}])); then missing-external compares "
        f"every external tensor with its entry here.")
