"""Program bytes -> :class:`~explorer.model.Program`: the ``.pte`` reader and the ``.bpte`` bundle reader
(the program inside a bundle, decoded like any other), as :mod:`.registry` lists them.

``read(offset, count)`` reads the file again (segments are read only on request, through it).
"""

from __future__ import annotations

import dataclasses

from explorer.errors import PteFormatError
from explorer.model.program import Program
from explorer.format.companions import bpte
from explorer.format.pte.container import read_container
from explorer.format.pte.decode import decode_program_fields
from explorer.format.flatbuf import FlatReader

__all__ = ["read_program", "read_bundled_program"]


def read_bundled_program(buf, size: int, source: str | None, read) -> Program:
    """The program inside a ``.bpte``, decoded like any other, with the bundle's test suites attached."""
    bundle = bpte.read_bundle(buf, size)
    start, count = bundle.program_offset, bundle.program_size
    view = memoryview(buf)[start:start + count]
    try:
        program = read_program(view, count, source, lambda off, n: read(start + off, n))
    except PteFormatError as exc:
        if exc.offset is not None:  # say where in the .bpte file, and that it is the embedded program
            exc = PteFormatError(exc.reason, offset=exc.offset + start, path=exc.path)
        raise exc.within("bundled_program.program") from None
    finally:
        try:
            view.release()
        except BufferError:  # decoded columns still view the bytes (bytes input): freed with them
            pass
    return dataclasses.replace(program, bundle=bundle)


def read_program(buf, size: int, source: str | None, read) -> Program:
    try:
        container = read_container(buf, size)
        reader = FlatReader(buf, container.flatbuffer_end)
        base = container.header.segment_base_offset if container.header else None
        fields = decode_program_fields(reader, container.root, base)
    except RecursionError:  # defensive: decoding is iterative, but never let one escape
        raise PteFormatError("structure nested too deeply") from None
    segment_sizes = [s.size for s in fields["segments"]]
    plans = tuple(_with_delegate_sizes(p, segment_sizes, fields["delegate_data_sizes"]) for p in fields["plans"])
    fields["plans"] = plans
    return Program(**fields, header=container.header, identifier=container.identifier, size=size,
                   source=source, _read=read)


def _with_delegate_sizes(plan, segment_sizes, inline_sizes):
    """Fill Delegate.data_size where its blob index resolves (a dangling one stays None)."""
    if not plan.delegates:
        return plan
    delegates = []
    for d in plan.delegates:
        table = inline_sizes if d.location == "inline" else segment_sizes if d.location == "segment" else []
        size = table[d.data_index] if 0 <= d.data_index < len(table) else None
        delegates.append(dataclasses.replace(d, data_size=size))
    return dataclasses.replace(plan, delegates=tuple(delegates))
