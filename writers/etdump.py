"""Runs and events -> valid ETDump bytes, through the flatc-generated builders of the vendored schema.

No GPU runs here, so the device-specific profile views (copies timed on the host<->device path, a
delegate running on ``cuda:0``) are tested on dumps this writer makes, laid out as executorch's
``ETDumpGen`` lays them out: size-prefixed, identifier ``ED00``, one ``RunData`` per event block. A
test builds dumps here and reads them with :func:`~explorer.format.companions.etdump.load_etdump`, and re-writes
real dumps and reads them back equal, which ties the hand-written reader to the schema.

Within a run the writer puts profile events first, then allocation events, then debug events (the
reader keeps each kind's order, not the interleaving between kinds). Debug events are written
without their ``debug_entry`` payload (the reader does not decode it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

import flatbuffers

from explorer._generated.etdump import (AllocationEvent as AE, Allocator as AL, DebugEvent as DE, ETDump as ED,
    Event as EV, ProfileEvent as PE, RunData as RD)
from explorer.model.profile import NO_ID, AllocationEvent, DebugEvent, ProfileEvent
from explorer.format.companions.etdump import IDENTIFIER

__all__ = ["write_etdump", "SynthRun"]


class RunLike(Protocol):
    name: str | None
    bundled_input_index: int
    allocators: Sequence[str | None]
    profile_events: Sequence[ProfileEvent]
    allocation_events: Sequence[AllocationEvent]
    debug_events: Sequence[DebugEvent]


@dataclass(frozen=True)
class SynthRun:
    """A run to write: the same attributes as :class:`~explorer.model.profile.RunData`."""

    name: str | None
    profile_events: Sequence[ProfileEvent] = ()
    allocation_events: Sequence[AllocationEvent] = ()
    debug_events: Sequence[DebugEvent] = ()
    allocators: Sequence[str | None] = ()
    bundled_input_index: int = -1


def write_etdump(runs: Sequence[RunLike], *, version: int = 0, size_prefixed: bool = True,
                 shared_events: bool = False) -> bytes:
    """Serialize ``runs`` (``ETDump.runs`` of a loaded dump, or :class:`SynthRun`) as an ``.etdp``.

    ``shared_events``: equal profile events are written once and every run's events vector points at that one
    table (a flatbuffer may share tables; executorch's writer does not): four bytes per event, the densest a dump
    can declare events (tests/test_bounded_readers.py)."""
    b = flatbuffers.Builder(1024)
    written: dict[ProfileEvent, int] = {}

    def profile(e: ProfileEvent) -> int:
        if not shared_events:
            return _profile(b, e, text)
        off = written.get(e)
        if off is None:
            off = written[e] = _profile(b, e, text)
        return off

    strings: dict[str, int] = {}

    def text(s: str | None) -> int | None:  # shared strings, as flatcc's builder does not do but may
        if s is None:
            return None
        off = strings.get(s)
        if off is None:
            off = strings[s] = b.CreateString(s)
        return off

    run_offsets = []
    for run in runs:
        events = [profile(e) for e in run.profile_events]
        for a in run.allocation_events:
            AE.Start(b)
            AE.AddAllocatorId(b, a.allocator_id)
            AE.AddAllocationSize(b, a.allocation_size)
            events.append(_event(b, EV.AddAllocationEvent, AE.End(b)))
        events.extend(_debug(b, d, text) for d in run.debug_events)
        RD.StartEventsVector(b, len(events))
        for off in reversed(events):
            b.PrependUOffsetTRelative(off)
        events_vec = b.EndVector()
        allocators = []
        for name in run.allocators:
            n = text(name)
            AL.Start(b)
            if n is not None:
                AL.AddName(b, n)
            allocators.append(AL.End(b))
        alloc_vec = None
        if allocators:
            RD.StartAllocatorsVector(b, len(allocators))
            for off in reversed(allocators):
                b.PrependUOffsetTRelative(off)
            alloc_vec = b.EndVector()
        name = text(run.name)
        RD.Start(b)
        if name is not None:
            RD.AddName(b, name)
        RD.AddBundledInputIndex(b, run.bundled_input_index)
        if alloc_vec is not None:
            RD.AddAllocators(b, alloc_vec)
        RD.AddEvents(b, events_vec)
        run_offsets.append(RD.End(b))
    ED.StartRunDataVector(b, len(run_offsets))
    for off in reversed(run_offsets):
        b.PrependUOffsetTRelative(off)
    run_vec = b.EndVector()
    ED.Start(b)
    ED.AddVersion(b, version)
    ED.AddRunData(b, run_vec)
    root = ED.End(b)
    if size_prefixed:
        b.FinishSizePrefixed(root, IDENTIFIER)
    else:
        b.Finish(root, IDENTIFIER)
    return bytes(b.Output())


def _event(b: flatbuffers.Builder, add, off: int) -> int:
    EV.Start(b)
    add(b, off)
    return EV.End(b)


def _profile(b: flatbuffers.Builder, e: ProfileEvent, text) -> int:
    name, did = text(e.name), text(e.delegate_debug_id_str)
    meta = b.CreateByteVector(e.delegate_debug_metadata) if e.delegate_debug_metadata else None
    PE.Start(b)
    if name is not None:
        PE.AddName(b, name)
    PE.AddChainIndex(b, e.chain_index)
    PE.AddInstructionId(b, e.instruction_id)
    if e.delegate_debug_id_int != NO_ID:
        PE.AddDelegateDebugIdInt(b, e.delegate_debug_id_int)
    if did is not None:
        PE.AddDelegateDebugIdStr(b, did)
    if meta is not None:
        PE.AddDelegateDebugMetadata(b, meta)
    PE.AddStartTime(b, e.start_time)
    PE.AddEndTime(b, e.end_time)
    return _event(b, EV.AddProfileEvent, PE.End(b))


def _debug(b: flatbuffers.Builder, d: DebugEvent, text) -> int:
    name, did = text(d.name), text(d.delegate_debug_id_str)
    DE.Start(b)
    DE.AddChainIndex(b, d.chain_index)
    DE.AddInstructionId(b, d.instruction_id)
    if d.delegate_debug_id_int != NO_ID:
        DE.AddDelegateDebugIdInt(b, d.delegate_debug_id_int)
    if did is not None:
        DE.AddDelegateDebugIdStr(b, did)
    if name is not None:
        DE.AddName(b, name)
    return _event(b, EV.AddDebugEvent, DE.End(b))
