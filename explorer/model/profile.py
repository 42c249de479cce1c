"""What an ETDump (``.etdp``) *is*: the runs a program made and the events its runtime recorded.

ExecuTorch's runtime writes one ``RunData`` block per ``create_event_block`` call (``Default`` for
loading and init, ``Execute`` per run of a method) holding profile events (a name, ``chain_index``,
``instruction_id`` or a delegate debug id, ``start_time``/``end_time``), allocation events and debug
events. A dump of a long session holds hundreds of thousands of events, so they are kept as numpy
columns over the whole file (:class:`ProfileColumns`) — what the join reads — and frozen
:class:`ProfileEvent` records are only made when someone iterates a run's events.

Nothing here knows the flatbuffer layout; :mod:`explorer.format.companions.etdump` fills these from the bytes and
:mod:`writers.etdump` writes them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

import numpy as np

from explorer.model.numerics import LoggedValue

__all__ = ["ETDump", "RunData", "ProfileEvent", "AllocationEvent", "DebugEvent", "ProfileColumns",
           "AllocationColumns", "NO_ID"]

NO_ID = -1  # instruction_id / delegate_debug_id_int when the runtime did not set one (the schema default)


@dataclass(frozen=True)
class ProfileEvent:
    """One timed span: an instruction, a kernel inside it, a delegate's node, or a method-level step."""

    name: str | None  # "OPERATOR_CALL", "native_call_add.out", "DELEGATE_CALL", "Method::execute"... (optional)
    chain_index: int  # the instruction's chain; < 0 (executorch writes -1) for method-level events
    instruction_id: int  # run-order index of the instruction inside its chain; -1 when not set
    delegate_debug_id_int: int = NO_ID  # a delegate's own node id (-1: none)
    delegate_debug_id_str: str | None = None  # a delegate's node name, e.g. XNNPACK's "Fully Connected (NC, F32) GEMM #1"
    delegate_debug_metadata: bytes = b""
    start_time: int = 0  # ticks as stored (executorch's CPU runtime writes nanoseconds)
    end_time: int = 0

    @property
    def duration(self) -> int:
        """``end_time - start_time`` as stored (negative when the clock wrapped or the file lies)."""
        return self.end_time - self.start_time

    @property
    def is_delegate(self) -> bool:
        """Recorded by a backend for one of its own nodes (it carries a delegate debug id)."""
        return self.delegate_debug_id_int != NO_ID or self.delegate_debug_id_str is not None


@dataclass(frozen=True)
class AllocationEvent:
    allocator_id: int  # index into the run's allocators
    allocation_size: int  # bytes


@dataclass(frozen=True)
class DebugEvent:
    """An intermediate-output record: where it was logged and its entry (a tensor's dtype, sizes and offset into
    the debug buffer, or a scalar); the tensor's bytes live in the debug buffer (:mod:`explorer.analysis.numerics`).
    executorch writes the program's outputs with ``chain_index`` 2**64-1 and ``entry.output`` set."""

    chain_index: int
    instruction_id: int
    delegate_debug_id_int: int = NO_ID
    delegate_debug_id_str: str | None = None
    name: str | None = None
    entry: LoggedValue | None = None


@dataclass(frozen=True, eq=False)
class ProfileColumns:
    """Every profile event of the file, one row each, in file order (run by run)."""

    run: np.ndarray  # int64: index of its RunData
    name: np.ndarray  # int64: index into ``names`` (-1: absent)
    chain_index: np.ndarray  # int64
    instruction_id: np.ndarray  # int64
    delegate_id_int: np.ndarray  # int64 (-1: none)
    delegate_id_str: np.ndarray  # int64: index into ``names`` (-1: absent)
    start: np.ndarray  # uint64 ticks
    end: np.ndarray  # uint64 ticks
    names: Sequence[str]  # the distinct strings (event names and delegate ids share it)
    metadata: tuple[bytes, ...] = ()  # delegate_debug_metadata per row (b"" when absent)

    def __len__(self) -> int:
        return len(self.run)

    def text(self, k: int) -> str | None:
        return None if k < 0 else self.names[k]

    def event(self, i: int) -> ProfileEvent:
        return ProfileEvent(self.text(int(self.name[i])), int(self.chain_index[i]), int(self.instruction_id[i]),
                            int(self.delegate_id_int[i]), self.text(int(self.delegate_id_str[i])),
                            self.metadata[i] if self.metadata else b"", int(self.start[i]), int(self.end[i]))

    @cached_property
    def duration(self) -> np.ndarray:
        """int64 ``end - start`` per event; a start after the end keeps its negative sign (see the join)."""
        return self.end.astype(np.int64) - self.start.astype(np.int64)


@dataclass(frozen=True, eq=False)
class AllocationColumns:
    run: np.ndarray  # int64
    allocator_id: np.ndarray  # int64
    size: np.ndarray  # uint64 bytes

    def __len__(self) -> int:
        return len(self.run)


@dataclass(frozen=True)
class RunData:
    """One event block: a run of a method (``Execute``) or the loading before it (``Default``)."""

    index: int  # position in ETDump.runs
    name: str | None  # as the runtime named the block (executorch: "Default", "Execute")
    bundled_input_index: int = -1  # which bundled input was used (-1: none)
    allocators: tuple[str | None, ...] = ()
    debug_events: tuple[DebugEvent, ...] = ()
    _profile: ProfileColumns | None = field(default=None, repr=False, compare=False)
    _alloc: AllocationColumns | None = field(default=None, repr=False, compare=False)
    _rows: tuple[int, int] = (0, 0)  # this run's rows of the dump's profile columns
    _alloc_rows: tuple[int, int] = (0, 0)

    @cached_property
    def profile_events(self) -> tuple[ProfileEvent, ...]:
        cols = self._profile
        return tuple(cols.event(i) for i in range(*self._rows)) if cols is not None else ()

    @cached_property
    def allocation_events(self) -> tuple[AllocationEvent, ...]:
        a = self._alloc
        if a is None:
            return ()
        lo, hi = self._alloc_rows
        return tuple(AllocationEvent(int(i), int(s)) for i, s in zip(a.allocator_id[lo:hi], a.size[lo:hi]))

    @property
    def profile_count(self) -> int:
        return self._rows[1] - self._rows[0]


@dataclass(frozen=True, eq=False)
class ETDump:
    """A decoded ``.etdp``: schema version, the runs in file order, and all profile events as columns."""

    version: int
    runs: tuple[RunData, ...]
    profile: ProfileColumns
    allocations: AllocationColumns
    size: int = 0  # bytes of the file
    source: str | None = None  # path it was read from (optional)
    size_prefixed: bool = True  # executorch writes a 4-byte size before the flatbuffer

    @property
    def event_count(self) -> int:
        return len(self.profile)
