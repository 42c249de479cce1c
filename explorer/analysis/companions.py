"""What a program points at, as facts and findings: external tensors and the data files holding them,
named data and the delegates using it, delegate payloads.

* :func:`external_links` — each external tensor -> (data file, key) when a supplied ``.ptd`` holds it.
* :func:`named_data_usage` — the program's own ``named_data`` keys, their sizes and which delegates use them.
* :func:`payloads` — every delegate's payload identified (XNNPACK decoded), per plan.
* :func:`companion_findings` — ``missing-external`` (error; only when data files were supplied) and
  ``bad-delegate-payload`` (warning: a payload of a known format that does not decode).

Pure functions over the model; reading delegate blobs (never weights) happens in :mod:`explorer.format.backends.blob`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from explorer.model.program import Device, Payload, Plan, Program, Tensor
from explorer.format.backends.blob import identify_all
from explorer.analysis.delegate_graph import delegate_insides
from explorer.analysis.types import Finding
from explorer.model.columns import STORAGE_CODES

__all__ = ["external_tensors", "ExternalLink", "NamedDataUse", "external_links", "named_data_usage", "payloads",
           "companion_findings", "external_bytes_by_device", "COMPANION_SEVERITY"]

COMPANION_SEVERITY = {"missing-external": "error", "bad-delegate-payload": "warning"}
_LIMIT = 25  # findings kept per (plan, code), like the placement checks


@dataclass(frozen=True)
class ExternalLink:
    """Where an external tensor's bytes are: a supplied data file and the entry's key."""
    file: str  # the data file's name (path's last part)
    key: str
    offset: int | None  # byte position of the entry's data in that file (optional)
    nbytes: int | None  # bytes the entry holds (optional)


@dataclass(frozen=True)
class NamedDataUse:
    key: str
    segment_index: int
    size: int | None  # bytes of its segment (None when the index points nowhere)
    delegates: tuple[tuple[str, int], ...]  # (plan name, delegate index) of the delegates naming the key


def external_tensors(plan: Plan) -> list[Tensor]:
    """The plan's external tensors; found through the decoder's storage column when there is one, so a plan
    of 100k values doesn't make 100k Tensor objects to find none."""
    if plan._columns is not None:
        rows = (plan._columns[0].storage == STORAGE_CODES["external"]).nonzero()[0]
        return [t for t in (plan.values[int(i)] for i in rows) if isinstance(t, Tensor)]  # storage: tensors only
    return [t for t in plan.tensors if t.storage == "external"]


def external_links(program: Program, plan: Plan) -> dict[int, ExternalLink]:
    """Value index -> link, for the plan's external tensors found in a supplied data file."""
    out: dict[int, ExternalLink] = {}
    if not program.data_files:
        return out
    for t in external_tensors(plan):
        if t.name:
            hit = program.external_entry(t.name)
            if hit is not None:
                data_file, entry = hit
                out[t.index] = ExternalLink(data_file.name, entry.key, entry.offset, entry.nbytes)
    return out


def external_bytes_by_device(plan: Plan) -> dict[Device, int]:
    """Bytes of external tensors per device (they are in no arena and not in the program file)."""
    out: dict[Device, int] = {}
    for t in external_tensors(plan):
        out[t.device] = out.get(t.device, 0) + (t.nbytes or 0)
    return out


_FOUND: dict[int, tuple[weakref.ref, dict[str, tuple[Payload, ...]]]] = {}  # id(program) -> (program, payloads)


def payloads(program: Program) -> dict[str, tuple[Payload, ...]]:
    """Plan name -> the payload of each of its delegates (in delegate order).

    Identified once per program object and kept while it lives: a report asks for each plan's payloads, and
    identifying every delegate of the program per plan made thousands of plans quadratic."""
    key = id(program)
    hit = _FOUND.get(key)
    if hit is not None and hit[0]() is program:
        return dict(hit[1])
    found = identify_all(program)
    def forget(_ref: object, key: int = key) -> None:  # the program is gone: so is its entry
        _FOUND.pop(key, None)

    _FOUND[key] = (weakref.ref(program, forget), found)
    return dict(found)


def named_data_usage(program: Program, found: dict[str, tuple[Payload, ...]] | None = None) -> list[NamedDataUse]:
    """The program's named data, each key with its size and the delegates whose payload names it."""
    found = payloads(program) if found is None else found
    users: dict[str, list[tuple[str, int]]] = {}
    for plan_name, items in found.items():
        for p in items:
            for key in p.named_keys:
                users.setdefault(key, []).append((plan_name, p.delegate))
    out = []
    for nd in program.named_data:
        size = program.segments[nd.segment_index].size if 0 <= nd.segment_index < len(program.segments) else None
        out.append(NamedDataUse(nd.key, nd.segment_index, size, tuple(users.get(nd.key, ()))))
    return out


def companion_findings(program: Program, found: dict[str, tuple[Payload, ...]] | None = None) -> list[Finding]:
    """``missing-external`` and ``bad-delegate-payload`` findings, per plan."""
    found = payloads(program) if found is None else found
    out: list[Finding] = []
    own_keys = {nd.key for nd in program.named_data}
    for plan in program.plans:
        kept: list[Finding] = []
        if program.data_files is not None:
            kept.extend(_cap(plan.name, "missing-external", _missing(program, plan, own_keys, found.get(plan.name, ()))))
        kept.extend(_cap(plan.name, "bad-delegate-payload", _bad_payloads(plan, found.get(plan.name, ()))))
        kept.extend(_cap(plan.name, "bad-delegate-payload", (
            (f"delegate {d.delegate} ({d.backend}) call #{d.instruction}: {d.problem}", [], [d.instruction])
            for d in delegate_insides(plan, found.get(plan.name, ())) if d.problem)))
        out.extend(kept)
    return out


def _cap(plan: str, code: str, messages):
    """Findings of one code, the first ``_LIMIT`` kept and the rest summarised."""
    out: list[Finding] = []
    dropped = 0
    for message, values, instructions in messages:
        if len(out) >= _LIMIT:
            dropped += 1
            continue
        out.append(Finding(code, COMPANION_SEVERITY[code], plan, message, tuple(values), tuple(instructions)))
    if dropped:
        out.append(Finding(code, COMPANION_SEVERITY[code], plan,
                           f"... and {dropped} more {code} findings (only the first {_LIMIT} are listed)"))
    return out


def _missing(program: Program, plan: Plan, own_keys: set[str], items: tuple[Payload, ...]):
    names = ", ".join(f.name for f in program.data_files or ()) or "no data files"
    for t in external_tensors(plan):
        if not t.name:
            yield (f"external tensor %{t.index} has no fully-qualified name to look up in a data file",
                   [t.index], [])
            continue
        hit = program.external_entry(t.name)
        if hit is None:
            yield (f"external tensor {t.name!r} (%{t.index}) is in none of the data files ({names})", [t.index], [])
            continue
        data_file, entry = hit
        problem = _mismatch(t, entry)
        if problem:
            yield (f"external tensor {t.name!r} (%{t.index}) differs from entry {entry.key!r} of "
                   f"{data_file.name}: {problem}", [t.index], [])
    calls = _delegate_calls(plan)
    for p in items:
        for key in p.named_keys:
            if key not in own_keys and program.external_entry(key) is None:
                yield (f"delegate {p.delegate} ({p.backend}) uses named data {key!r}, which is neither in the "
                       f"program nor in the data files ({names})", [], calls.get(p.delegate, []))


def _mismatch(t: Tensor, entry) -> str | None:
    if entry.scalar_type is None:
        return "the entry is opaque data, not a tensor"
    if entry.scalar_type != t.scalar_type:
        return f"dtype {t.dtype} here, {entry.dtype} in the file"
    if tuple(entry.sizes) != tuple(t.sizes):
        return f"shape {list(t.sizes)} here, {list(entry.sizes)} in the file"
    need = t.nbytes
    if need is not None and entry.nbytes is not None and entry.nbytes < need:
        return f"needs {need} bytes, the file holds {entry.nbytes}"
    if entry.nbytes is None:
        return f"its segment {entry.segment_index} does not exist in the file"
    return None


def _delegate_calls(plan: Plan) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for ins in plan.instructions:
        if ins.kind == "DelegateCall" and ins.delegate_index is not None:
            out.setdefault(ins.delegate_index, []).append(ins.index)
    return out


def _bad_payloads(plan: Plan, items: tuple[Payload, ...]):
    calls = None
    for p in items:
        if p.error is None or p.format == "unavailable":  # unreadable blobs are bad-reference's business
            continue
        calls = _delegate_calls(plan) if calls is None else calls
        yield (f"delegate {p.delegate} ({p.backend}, {p.size if p.size is not None else '?'} bytes, {p.storage}): "
               f"its {p.format} payload does not decode: {p.error}", [], calls.get(p.delegate, []))
