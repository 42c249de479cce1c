"""``device-explorer inspect FILE [--json] [--plan NAME]``: what the program is and where it lives."""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from typing import TextIO

from ..analysis import analyze_program
from ..analysis.describe import device_summary_lines, nbytes_text
from ..analysis.requirements import requirements, requirements_lines
from ..format.reader import load
from ..json_form import program_json
from ..model import Plan, Program
from .profile_opts import ProfileExit, add_profile_options, joined_profile

__all__ = ["register", "run", "summary_lines"]


def register(sub) -> None:
    p = sub.add_parser("inspect", help="summarise plans, arenas, devices and delegates (or --json)",
                       description="Summarise a .pte: plans, values, instructions, arenas and their devices, "
                                   "tensors and bytes per device, delegates and their target devices.")
    p.add_argument("file", help="path to a .pte program")
    p.add_argument("--json", action="store_true", help="print the device-explorer/1 JSON form")
    p.add_argument("--plan", help="only this plan (method)")
    add_profile_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    program = load(args.file)
    if args.plan:
        program.plan(args.plan)  # a clear KeyError-style message below if it doesn't exist
    profile = None
    if getattr(args, "profile", None):
        try:
            profile = joined_profile(args, program, args.profile)
        except ProfileExit:
            return 2
    if args.json:
        doc = program_json(program, os.path.basename(args.file))
        if args.plan:
            doc["plans"] = [p for p in doc["plans"] if p["name"] == args.plan]
        if profile is not None:
            from ..analysis.profile import profile_json
            profile_json(doc, profile, os.path.basename(args.profile))
        json.dump(doc, out, indent=1)
        out.write("\n")
        return 0
    for line in summary_lines(program, os.path.basename(args.file), only=args.plan):
        print(line, file=out)
    if profile is not None:
        from ..analysis.describe_profile import profile_header_lines, profile_lines
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
    if program.header:
        h = program.header
        seg_bytes = sum(s.size for s in program.segments)
        lines.append(f"  flatbuffer {h.program_size:,} B; {len(program.segments)} segment(s), {nbytes_text(seg_bytes)} "
                     f"from byte {h.segment_base_offset:,} (not read)")
    else:
        lines.append(f"  no extended header; {len(program.segments)} segment(s)")
    if program.named_data:
        lines.append(f"  named data: {len(program.named_data)} blob(s)")
    lines.append(f"  plans: {', '.join(program.plan_names) or '(none)'}")
    analyses = analyze_program(program)
    for plan in program.plans:
        if only and plan.name != only:
            continue
        lines.append("")
        lines.extend(_plan_lines(plan))
        per_device = device_summary_lines(program, analyses, plan=plan.name, indent="    ")
        lines.append("  per device (peak live = most planned bytes alive at one instruction):")
        lines.extend(per_device[1:])  # the first line repeats the plan's name
        lines.append("  runtime needs (MethodMeta::memory_planned_buffer_*(i) is arena #i+1):")
        lines.extend(requirements_lines(requirements(plan, analyses.get(plan.name)), indent="    "))
    return lines


def _plan_lines(plan: Plan) -> list[str]:
    tensors = plan.tensors
    kinds: dict[str, int] = defaultdict(int)
    for i in plan.instructions:
        kinds[str(i.kind)] += 1
    kind_text = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"
    lines = [f"plan {plan.name!r}: {len(plan.values)} values ({len(tensors)} tensors), "
             f"{len(plan.instructions)} instructions ({kind_text}), {len(plan.operators)} operators, "
             f"{len(plan.delegates)} delegates",
             f"  inputs {_refs(plan.inputs)}   outputs {_refs(plan.outputs)}"]
    buffers = plan.buffers
    lines.append(f"  arenas ({len(buffers)}):" if buffers else "  arenas: none (nothing memory-planned)")
    planned_in: dict[int, int] = defaultdict(int)
    for t in tensors:
        if t.memory_id is not None:
            planned_in[t.memory_id] += 1
    for b in buffers:
        lines.append(f"    #{b.memory_id:<3} {nbytes_text(b.size):>10}  {str(b.device):<10} {planned_in[b.memory_id]} planned tensors")
    if plan.delegates:
        calls_of: dict[int, int] = defaultdict(int)
        for i in plan.instructions:
            if i.delegate_index is not None:
                calls_of[i.delegate_index] += 1
        lines.append("  delegates:")
        for d in plan.delegates:
            target = f" -> {d.target_device}" if d.target_device else ""
            where = f"{d.location} #{d.data_index}" + (f", {nbytes_text(d.data_size)}" if d.data_size is not None else ", dangling")
            calls = calls_of[d.index]
            lines.append(f"    #{d.index} {d.id}{target}  ({where}; {calls} call(s))")
    return lines


def _refs(indices) -> str:
    shown = " ".join(f"%{i}" for i in indices[:12])
    return (shown + f" ... (+{len(indices) - 12})") if len(indices) > 12 else (shown or "-")
