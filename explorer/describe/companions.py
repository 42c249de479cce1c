"""Human text about companions, for ``inspect`` and the details panel: a ``.ptd``'s entries, a bundle's
test suites, named data and who uses it, external tensors and where their bytes are, delegate payloads.
"""

from __future__ import annotations

from collections import Counter

from explorer.model.program import DataFile, Payload, Plan, Program
from explorer.analysis.companions import external_bytes_by_device, external_links, external_tensors, named_data_usage
from explorer.units import count, nbytes_text

__all__ = ["data_file_lines", "bundle_lines", "companion_lines", "payload_lines", "shape_text", "segment_lines"]

_LIST = 20  # entries listed before "... and N more"


def shape_text(dtype: str | None, sizes) -> str:
    return f"{dtype or '?'}[{','.join(str(s) for s in sizes)}]"


def _short(key: str, width: int = 40) -> str:
    return key if len(key) <= width else key[:width - 3] + "..."


def data_file_lines(data_file: DataFile, name: str, *, limit: int | None = _LIST) -> list[str]:
    """The summary of a ``.ptd``: header, then one line per entry (key, layout, segment, bytes)."""
    h = data_file.header
    tensors = sum(1 for e in data_file.entries if e.is_tensor)
    total = sum(s for _, s in data_file.segments)
    lines = [f"{name}: {data_file.size:,} bytes, identifier {data_file.identifier} (ExecuTorch data file), "
             f"version {data_file.version}",
             (f"  flatbuffer {h.flatbuffer_size:,} B at byte {h.flatbuffer_offset}; "
              f"{count(len(data_file.segments), 'segment')}, {nbytes_text(total)} from byte {h.segment_base_offset:,} "
              f"(not read)") if h else
             f"  no FH01 header; {count(len(data_file.segments), 'segment')}",
             f"  entries ({len(data_file.entries)}: {count(tensors, 'tensor')}, {len(data_file.entries) - tensors} opaque):"]
    listed = data_file.listed  # an entry the file lists again is one line with its count
    shown = listed if limit is None else listed[:limit]
    for e, times in shown:
        layout = shape_text(e.dtype, e.sizes) if e.is_tensor else "opaque"
        where = (f"segment {e.segment_index} at byte {e.offset:,}, {nbytes_text(e.nbytes)}" if e.offset is not None
                 else f"segment {e.segment_index} (no such segment)")
        again = f"  (listed {times:,} times: one table)" if times > 1 else ""
        lines.append(f"    {e.key}  {layout}  ({where}){again}")
    left = len(data_file.entries) - sum(times for _, times in shown)
    if left:
        lines.append(f"    ... and {left} more")
    return lines


def bundle_lines(program: Program) -> list[str]:
    """The test suites of a bundled program: per method, how many cases and their inputs/outputs."""
    b = program.bundle
    if b is None:
        return []
    lines = [f"  bundled program (version {b.version}, {b.file_size:,} bytes): the program above is embedded at byte "
             f"{b.program_offset:,}; {count(len(b.suites), 'test suite')}"]
    for s in b.suites:
        lines.append(f"    {s.method_name!r}: {count(len(s.test_cases), 'test case')}")
        signatures = Counter((tuple(_value_text(v) for v in c.inputs), tuple(_value_text(v) for v in c.expected_outputs))
                             for c in s.test_cases)
        for (ins, outs), n in signatures.items():
            lines.append(f"      {n} x inputs ({', '.join(ins) or '-'}) -> expected ({', '.join(outs) or '-'})")
    return lines


def _value_text(v) -> str:
    if v.kind == "Tensor":
        return shape_text(v.dtype, v.sizes)
    return f"{v.kind} {v.value}" if v.value is not None else v.kind


def payload_lines(p: Payload, indent: str = "      ") -> list[str]:
    """What a delegate's payload is: format, magic, where it is stored; its subgraph or keys when known."""
    size = nbytes_text(p.size) if p.size is not None else "?"
    head = f"{indent}payload: {p.format}, {size} {p.storage}" + (f", magic {p.magic!r}" if p.magic else "")
    lines = [head]
    if p.graph is not None:
        g = p.graph
        ops = Counter(n.op for n in g.nodes)
        kinds = Counter(v.kind for v in g.values)
        lines.append(f"{indent}  subgraph: {count(len(g.nodes), 'node')} ({', '.join(f'{n} {op}' for op, n in ops.most_common())}); "
                     f"{count(len(g.values), 'value')} ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}); "
                     f"constants {nbytes_text(g.constant_bytes)}"
                     + (f" ({count(len(g.named_keys), 'named-data key')})" if g.named_keys else ""))
        dtypes = Counter(v.dtype for v in g.values)
        lines.append(f"{indent}  datatypes: {', '.join(f'{n} {d}' for d, n in dtypes.most_common())}")
    for label, text in p.header:  # what an Ethos-U / VGF / Core ML / QNN header says
        lines.append(f"{indent}  {label}: {text}")
    if p.graph is None and p.named_keys:
        lines.append(f"{indent}  named-data keys: {', '.join(_short(k) for k in p.named_keys)}")
    if p.error:
        lines.append(f"{indent}  does not decode: {p.error}")
    if p.compile_specs:
        lines.append(f"{indent}  compile specs: " + ", ".join(f"{k}={spec_value_text(v)}" for k, v in p.compile_specs))
    return lines


_HEX = frozenset("0123456789abcdef")


def spec_value_text(value: str, limit: int = 64) -> str:
    """A compile-spec value for a summary line: short ones as they are; a long binary one (given as hex,
    e.g. a QNN context's options, 600+ characters) as its size and first bytes; long text cut."""
    if len(value) <= limit:
        return value
    if len(value) % 2 == 0 and set(value) <= _HEX:
        return f"<{len(value) // 2} bytes: {value[:16]}…>"
    return f"{value[:limit]}… ({len(value)} characters)"


def companion_lines(program: Program, plan: Plan, items: tuple[Payload, ...]) -> list[str]:
    """Per plan: external tensors (with their data file and key when linked), delegate payloads."""
    lines: list[str] = []
    external = external_tensors(plan)
    if external:
        links = external_links(program, plan)
        by_device = external_bytes_by_device(plan)
        per = ", ".join(f"{d}: {nbytes_text(n)}" for d, n in sorted(by_device.items()))
        state = ("not linked (no data files given)" if program.data_files is None
                 else f"{len(links)} of {len(external)} found in {', '.join(f.name for f in program.data_files)}")
        lines.append(f"  external tensors ({len(external)}; {per}, in no arena and not in this file): {state}")
        for t in external[:_LIST]:
            link = links.get(t.index)
            where = f"{link.file} [{link.key}]" if link else ("missing" if program.data_files is not None else "-")
            lines.append(f"    %{t.index} {t.name or '(no name)'}  {shape_text(t.dtype, t.sizes)}  {t.device}  -> {where}")
        if len(external) > _LIST:
            lines.append(f"    ... and {len(external) - _LIST} more")
    if items:
        lines.append("  delegate payloads:")
        lines.extend(_payload_runs(items))
    return lines


def _payload_runs(items: tuple[Payload, ...]) -> list[str]:
    """Consecutive delegates of one backend whose payloads read the same are listed once with their
    index range: 200 XNNPACK partitions with equal payload summaries make one entry, not 200."""
    runs: list[tuple[int, int, str, list[str]]] = []
    for p in items:
        body = payload_lines(p)
        if runs and runs[-1][2] == p.backend and runs[-1][3] == body and runs[-1][1] + 1 == p.delegate:
            first, _, backend, _ = runs[-1]
            runs[-1] = (first, p.delegate, backend, body)
        else:
            runs.append((p.delegate, p.delegate, p.backend, body))
    lines: list[str] = []
    for first, last, backend, body in runs:
        head = f"    #{first} {backend}" if first == last else f"    #{first}..#{last} {backend}  ({last - first + 1} delegates, alike)"
        lines.append(head)
        lines.extend(body)
    return lines


def named_data_lines(program: Program, found: dict[str, tuple[Payload, ...]]) -> list[str]:
    """The program's own named data: key, size, and which delegates use it."""
    uses = named_data_usage(program, found)
    if not uses:
        return []
    total = sum(u.size or 0 for u in uses)
    lines = [f"  named data ({count(len(uses), 'key')}, {nbytes_text(total)}):"]
    for u in uses[:_LIST]:
        who = ", ".join(f"{plan}#{d}" for plan, d in u.delegates) or "no decoded delegate names it"
        size = nbytes_text(u.size) if u.size is not None else "no such segment"
        lines.append(f"    {_short(u.key)}  segment {u.segment_index}, {size}  used by {who}")
    if len(uses) > _LIST:
        lines.append(f"    ... and {len(uses) - _LIST} more")
    return lines


def segment_lines(program: Program) -> list[str]:
    """Segments worth a word: empty ones (executorch writes a 0-byte constant segment when every constant
    is inside a delegate — an Ethos-U or fully delegated XNNPACK export — ``exir/_serialize/_program.py``
    ``serialize_pte_binary`` appends it whenever ``constant_segment_offsets`` holds the placeholder) and
    ones nothing refers to (no constant table, mutable state, delegate or named-data entry)."""
    users: dict[int, list[str]] = {}
    if program.constant_segment is not None:
        users.setdefault(program.constant_segment.segment_index, []).append("the constant segment")
    for i, m in enumerate(program.mutable_data_segments):
        users.setdefault(m.segment_index, []).append(f"mutable data {i}")
    for plan in program.plans:
        for d in plan.delegates:
            if d.location == "segment":
                users.setdefault(d.data_index, []).append(f"{plan.name}#{d.index} {d.id}")
    for nd in program.named_data:
        users.setdefault(nd.segment_index, []).append("named data")
    lines = []
    for seg in program.segments:
        who = users.get(seg.index, [])
        if seg.size == 0:
            what = (f"{who[0]} of a program with no constants outside its delegates" if who == ["the constant segment"]
                    else f"listed for {', '.join(dict.fromkeys(who))}" if who else "referenced by nothing")
            lines.append(f"    segment {seg.index}: empty and unused ({what}; nothing is read from it)")
        elif not who:
            lines.append(f"    segment {seg.index}: {nbytes_text(seg.size)} referenced by nothing (unused bytes)")
    return lines[:_LIST] + ([f"    ... and {len(lines) - _LIST} more"] if len(lines) > _LIST else [])
