"""``device-explorer inspect FILE [--json] [--plan NAME]``: what the program is and where it lives."""

from __future__ import annotations

import argparse
import os
from collections import defaultdict
from typing import TextIO

import numpy as np

from explorer.jsonform.text import write_json
from explorer.analysis.arrays import unique
from explorer.analysis.pipeline import LazyAnalysis
from explorer.units import count, nbytes_text
from explorer.describe.program import device_summary_lines
from explorer.analysis.requirements import requirements, requirements_lines
from explorer.analysis.companions import payloads
from explorer.describe.companions import (bundle_lines, companion_lines, data_file_lines, named_data_lines,
    segment_lines)
from explorer.jsonform.companions import data_file_json
from explorer.jsonform.program import FORMAT, program_json
from explorer.model.columns import INSTRUCTION_CODES, instruction_columns, value_columns
from explorer.model.program import CPU, DataFile, Plan, Program
from explorer.cli.data_option import add_data_option, load_with_data
from explorer.cli.etrecord_opts import add_etrecord_option, context_lines, with_etrecord
from explorer.cli.profile_opts import add_profile_options, optional_profile
from explorer.analysis.profile.join import profile_json
from explorer.describe.profile import profile_header_lines
from explorer.describe.profile import profile_lines
from explorer.jsonform.etrecord import add_profile_context

__all__ = ["register", "run", "summary_lines"]


def register(sub) -> None:
    p = sub.add_parser("inspect", help="summarise plans, arenas, devices and delegates (or --json)",
                       description="Summarise a .pte: plans, values, instructions, arenas and their devices, "
                                   "tensors and bytes per device, delegates and their target devices.")
    p.add_argument("file", help="path to a .pte program")
    p.add_argument("--json", action="store_true", help="print the device-explorer/1 JSON form")
    p.add_argument("--plan", help="only this plan (method)")
    add_data_option(p)
    add_profile_options(p)
    add_etrecord_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    program = load_with_data(args.file, args.data)
    if isinstance(program, DataFile):  # a .ptd on its own: its entries
        with_etrecord(program, getattr(args, "etrecord", None))  # refused with an ETRecord: nothing to join
        return _data_file(program, args, out)
    if args.plan:
        program.plan(args.plan)  # a clear KeyError-style message below if it doesn't exist
    program = with_etrecord(program, getattr(args, "etrecord", None))
    profile = optional_profile(args, program)
    if args.json:
        doc = program_json(program, os.path.basename(args.file))
        if args.plan:
            doc["plans"] = [p for p in doc["plans"] if p["name"] == args.plan]
        if profile is not None:
            profile_json(doc, profile, os.path.basename(args.profile))
            add_profile_context(doc, program)  # delegate events -> original nodes, as Inspector joins them
        write_json(doc, out)
        return 0
    for line in summary_lines(program, os.path.basename(args.file), only=args.plan):
        print(line, file=out)
    if profile is not None:
        print("", file=out)
        for line in profile_header_lines(profile, os.path.basename(args.profile)):
            print(line, file=out)
        for plan in program.plans:
            if (not args.plan or plan.name == args.plan) and plan.name in profile.plans:
                print(f"plan {plan.name!r}:", file=out)
                for line in profile_lines(plan, profile.plans[plan.name]):
                    print(line, file=out)
    return 0


def summary_lines(program: Program, name: str, only: str | None = None) -> list[str]:
    """The human summary: container, then per plan its arenas, delegates and per-device totals."""
    lines = [f"{name}: {program.size:,} bytes, identifier {program.identifier}, schema version {program.version}"]
    if program.prediction is not None:
        lines.append(f"  {program.prediction.text}")
    if program.header:
        h = program.header
        seg_bytes = sum(s.size for s in program.segments)
        lines.append(f"  flatbuffer {h.program_size:,} B; {count(len(program.segments), 'segment')}, {nbytes_text(seg_bytes)} "
                     f"from byte {h.segment_base_offset:,} (not read)")
    else:
        lines.append(f"  no extended header; {count(len(program.segments), 'segment')}")
    lines.extend(segment_lines(program))  # empty (an Ethos-U program's constant segment) or unreferenced
    found = payloads(program)
    lines.extend(named_data_lines(program, found))  # keys, sizes and the delegates using each
    lines.append(f"  plans: {', '.join(program.plan_names) or '(none)'}")
    lines.extend(bundle_lines(program))
    analyses = {plan.name: LazyAnalysis(plan, program) for plan in program.plans  # no per-arena records
                if not only or plan.name == only}
    for plan in program.plans:
        if only and plan.name != only:
            continue
        lines.append("")
        plan_text, n_tensors = _plan_lines(plan)
        lines.extend(plan_text)
        lines.extend(companion_lines(program, plan, found.get(plan.name, ())))
        lines.extend(context_lines(program, plan.name))  # with an ETRecord: module and source line per instruction
        per_device = device_summary_lines(program, analyses, plan=plan.name, indent="    ")[1:]  # [0]: the plan's name
        needs = requirements_lines(requirements(plan, analyses.get(plan.name)), indent="    ")
        if not n_tensors and not needs:  # a constant getter (an LLM export's get_max_seq_len): nothing to place
            lines.append("  no tensors: nothing to place on a device, and the runtime needs nothing for it")
            continue
        lines.append("  per device (planned = every planned tensor's bytes summed over all lifetimes, can exceed the "
                     "arenas; peak live = most bytes alive at one instruction; copies = transfers in/out):")
        lines.extend(per_device)
        if needs:
            lines.append("  runtime needs (MethodMeta::memory_planned_buffer_*(i) is arena #i+1):")
            lines.extend(needs)
        else:
            lines.append("  runtime needs: nothing (no arena, no device, no copy kernel, no backend)")
    return lines


def _plan_lines(plan: Plan) -> tuple[list[str], int]:
    """The plan's own lines (values, instructions, arenas, delegates) and how many tensors it has."""
    n_tensors, planned_in, kinds, calls_of = _plan_counts(plan)
    kind_text = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"
    lines = [f"plan {plan.name!r}: {count(len(plan.values), 'value')} ({count(n_tensors, 'tensor')}), "
             f"{count(len(plan.instructions), 'instruction')} ({kind_text}), {count(len(plan.operators), 'operator')}, "
             f"{count(len(plan.delegates), 'delegate')}",
             f"  inputs {_refs(plan.inputs)}   outputs {_refs(plan.outputs)}"]
    buffers = plan.buffers
    lines.append(f"  arenas ({len(buffers)}):" if buffers else "  arenas: none (nothing memory-planned)")
    lines.extend(_grouped_arenas(plan, planned_in))
    if plan.delegates:
        lines.append("  delegates:")
        lines.extend(_grouped_delegates(plan, calls_of))
    return lines, n_tensors


_KIND_NAMES = {code: name for name, code in INSTRUCTION_CODES.items()}


def _plan_counts(plan: Plan) -> tuple[int, dict[int, int], dict[str, int], dict[int, int]]:
    """(tensors, planned tensors per arena, instructions per kind, calls per delegate index), from the decoder's
    columns when it made them: a Tensor and an Instruction object per row cost 3,500 small plans seconds of
    objects the summary only counts. A hand-built plan is counted on its objects (its kinds may be any text)."""
    planned_in: dict[int, int] = defaultdict(int)
    kinds: dict[str, int] = defaultdict(int)
    calls_of: dict[int, int] = defaultdict(int)
    if getattr(plan, "_columns", None) is None:
        tensors = plan.tensors
        for t in tensors:
            if t.memory_id is not None:
                planned_in[t.memory_id] += 1
        for i in plan.instructions:
            kinds[str(i.kind)] += 1
            if i.delegate_index is not None:
                calls_of[i.delegate_index] += 1
        return len(tensors), planned_in, kinds, calls_of
    vc, ic = value_columns(plan), instruction_columns(plan)
    is_tensor = vc.kind == 5
    mids = vc.memory_id[is_tensor]
    for memory_id, k in zip(*(a.tolist() for a in unique(mids[mids >= 0], return_counts=True))):
        planned_in[memory_id] = k
    for code, k in zip(*(a.tolist() for a in unique(ic.kind, return_counts=True))):
        kinds[_KIND_NAMES[code]] = k
    targets = ic.target[(ic.kind == 2) & (ic.target >= 0)]  # a delegate's index is never negative
    for index, k in zip(*(a.tolist() for a in unique(targets, return_counts=True))):
        calls_of[index] = k
    return int(is_tensor.sum()), planned_in, kinds, calls_of


def _runs(items: list, key) -> list[list]:
    """Consecutive items with equal ``key(item)``, as lists."""
    runs: list[list] = []
    for item in items:
        if runs and key(runs[-1][0]) == key(item):
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def _span(numbers: list[int]) -> str:
    return f"#{numbers[0]}" if len(numbers) == 1 else f"#{numbers[0]}..#{numbers[-1]}"


EMPTY_RUNS_SHOWN = 16  # runs of empty arenas listed before the rest are one summary line


def _grouped_arenas(plan: Plan, planned_in: dict[int, int]) -> list[str]:
    """One line per arena; a run of arenas alike (size, device, tensor count) as one line with a count. Runs
    found on columns, and past the first ``EMPTY_RUNS_SHOWN`` runs of empty arenas the rest are one line: the
    text scales with the tensors, not with the arenas a file declares (a million in 8 MB)."""
    n = len(plan.buffer_sizes) - 1
    if n <= 0:
        return []
    sizes = np.asarray(plan.buffer_sizes[1:], dtype=np.int64)
    codes = np.zeros(n, dtype=np.int64)
    listed = plan.listed_devices
    device_of = {0: CPU}
    for memory_id, device in listed.items():
        codes[memory_id - 1] = device.code
        device_of[device.code] = device
    tensors = np.zeros(n, dtype=np.int64)
    for memory_id, k in planned_in.items():
        if 1 <= memory_id <= n:
            tensors[memory_id - 1] = k
    start = np.flatnonzero(np.r_[True, (sizes[1:] != sizes[:-1]) | (codes[1:] != codes[:-1])
                                 | (tensors[1:] != tensors[:-1])])
    end = np.r_[start[1:], n]
    empty_run = tensors[start] == 0
    shown = ~empty_run | (np.cumsum(empty_run) <= EMPTY_RUNS_SHOWN)
    lines = []
    for a, b in zip(start[shown].tolist(), end[shown].tolist()):
        ids = _span([a + 1] if b - a == 1 else [a + 1, b])
        times = f"  (×{b - a})" if b - a > 1 else ""
        lines.append(f"    {ids:<4} {nbytes_text(int(sizes[a])):>10}  {str(device_of[int(codes[a])]):<10} "
                     f"{count(int(tensors[a]), 'planned tensor')}{' each' if b - a > 1 else ''}{times}")
    rest = np.repeat(~shown, end - start)
    if rest.any():
        per = ", ".join(f"{device_of[int(c)]} {int((codes[rest] == c).sum()):,}" for c in unique(codes[rest]))
        lines.append(f"    … and {int(rest.sum()):,} more empty arenas in {int((~shown).sum()):,} runs "
                     f"({nbytes_text(sum(sizes[rest].tolist()))}: {per})")
    return lines


def _grouped_delegates(plan: Plan, calls_of: dict[int, int]) -> list[str]:
    """One line per delegate; a run of delegates alike (backend, target, where the blob is, calls) as one
    line with their count, blob range and total size: 200 XNNPACK partitions read as one line."""
    lines = []
    key = lambda d: (d.id, d.target_device, d.location, d.data_size is None, calls_of[d.index])  # noqa: E731
    for run in _runs(list(plan.delegates), key):
        d = run[0]
        target = f" -> {d.target_device}" if d.target_device else ""
        calls = calls_of[d.index]
        if len(run) == 1:
            where = f"{d.location} #{d.data_index}" + (f", {nbytes_text(d.data_size)}" if d.data_size is not None else ", dangling")
            lines.append(f"    #{d.index} {d.id}{target}  ({where}; {count(calls, 'call')})")
            continue
        blobs = sorted(x.data_index for x in run)
        size = ", dangling" if d.data_size is None else f", {nbytes_text(sum(x.data_size or 0 for x in run))} in all"
        lines.append(f"    {_span([x.index for x in run])} {d.id}{target}  ({len(run)} delegates; {d.location} "
                     f"{_span(blobs)}{size}; {count(calls, 'call')} each)")
    return lines


def _refs(indices) -> str:
    shown = " ".join(f"%{i}" for i in indices[:12])
    return (shown + f" ... (+{len(indices) - 12})") if len(indices) > 12 else (shown or "-")


def _data_file(data_file: DataFile, args: argparse.Namespace, out: TextIO) -> int:
    name = os.path.basename(args.file)
    if args.json:
        write_json({"format": FORMAT, "file": name, "data_file": data_file_json(data_file, name)}, out)
        return 0
    for line in data_file_lines(data_file, name, limit=None):
        print(line, file=out)
    return 0
