"""``device-explorer check FILE [--json] [--plan NAME] [--limit N]``: the placement checks.

Exit status (docs/analysis.md, "Checks"): 0 when no finding has severity ``error`` (warnings and infos allowed), 1 when
one has, 2 when the file can't be read (``main`` maps PteFormatError/OSError to 2).

Human output: a headline with counts, then findings grouped by severity (errors first), one per line,
each starting with ``[code] plan 'name':`` (see :func:`explorer.describe.program.finding_lines`).

``--json`` prints one object, stable for tools::

    {"format": "device-explorer/1", "file": "model.pte",
     "counts": {"error": 1, "warning": 0, "info": 0},
     "findings": [{"code": "device-mismatch", "severity": "error", "plan": "forward",
                   "message": "...", "values": [12], "instructions": [3], "memory_id": 1}]}

``file`` is the base name (as in ``inspect --json``); ``plan`` is ``""`` for program-wide findings.
``--limit`` caps findings kept per (plan, code) before a final ``... and N more`` finding (default 25;
0 keeps all).
"""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from explorer.jsonform.text import write_json
from explorer.analysis.pipeline import check
from explorer.analysis.checks.placement import DEFAULT_LIMIT
from explorer.describe.program import SEVERITIES, finding_lines
from explorer.model.program import DataFile, Program
from explorer.cli.data_option import add_data_option, load_with_data
from explorer.cli.etrecord_opts import add_etrecord_option, short_context, with_etrecord
from explorer.analysis.companions import external_tensors
from explorer.units import count

__all__ = ["register", "run", "JSON_FORMAT"]

JSON_FORMAT = "device-explorer/1"


def register(sub) -> None:
    p = sub.add_parser(
        "check", help="placement checks: device mismatches, out-of-bounds, live overlaps, missing copies",
        description="Check that every planned tensor sits inside an arena of its own device without "
                    "overlapping a live neighbour, that every index points somewhere, and that data "
                    "crossing devices goes through a copy. Exit 0: no errors; 1: errors; 2: unreadable.")
    p.add_argument("file", help="path to a .pte program")
    p.add_argument("--json", action="store_true", help=f"print findings as {JSON_FORMAT} JSON")
    p.add_argument("--plan", help="only findings of this plan (method)")
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                   help=f"findings kept per plan and code before '... and N more' (default {DEFAULT_LIMIT}; 0: all)")
    add_data_option(p)
    add_etrecord_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    program = load_with_data(args.file, args.data)
    if args.plan and isinstance(program, DataFile):
        raise KeyError(f"{os.path.basename(args.file)} is a data file (.ptd): it has no plan {args.plan!r}")
    if args.plan:
        program.plan(args.plan)  # KeyError naming the plans when it doesn't exist
    program = with_etrecord(program, getattr(args, "etrecord", None))
    findings = check(program, limit=args.limit if args.limit and args.limit > 0 else None)
    if args.plan:
        findings = [f for f in findings if f.plan in (args.plan, "")]
    name = os.path.basename(args.file)
    if args.json:
        doc = {"format": JSON_FORMAT, "file": name,
               "counts": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
               "findings": [_with_context(f.to_json(), program) for f in findings]}
        write_json(doc, out)
    else:
        for line in finding_lines(findings, file=name):
            print(line, file=out)
        for line in _context_lines(findings, program):
            print(line, file=out)
        note = _unlinked_note(program)
        if note:
            print(note, file=out)
    return 1 if any(f.severity == "error" for f in findings) else 0


def _unlinked_note(program) -> str | None:
    """Said on stdout with the findings (the sibling-file hint goes to stderr): a program whose external
    weights were not supplied was checked without them, so "no findings" says nothing about them."""
    if not isinstance(program, Program) or program.data_files is not None:
        return None

    n = sum(len(external_tensors(plan)) for plan in program.plans)
    if not n:
        return None
    return (f"note: {count(n, 'external tensor')} live in a .ptd data file that was not given: whether it holds "
            f"them was not checked (pass it with --data FILE)")


def _contexts(finding, program):
    """``(instruction, InstructionContext)`` for the instructions a finding names that the ETRecord knows."""
    ctx = getattr(program, "etrecord", None)
    pc = ctx.plan(finding.plan) if ctx is not None and finding.plan else None
    if pc is None:
        return []
    return [(i, pc.at(i)) for i in finding.instructions if pc.at(i) is not None]


def _with_context(doc: dict, program) -> dict:
    """A finding's JSON plus ``context``: per instruction it names, the ETRecord's module and source line."""
    found = _contexts_from_doc(doc, program)
    if found:
        doc["context"] = found
    return doc


def _contexts_from_doc(doc: dict, program) -> list[dict]:
    ctx = getattr(program, "etrecord", None)
    pc = ctx.plan(doc.get("plan") or "") if ctx is not None else None
    if pc is None:
        return []
    out = []
    for i in doc.get("instructions") or ():
        ic = pc.at(i)
        if ic is not None:
            out.append({"instruction": i, "module": ic.module_path, "source": ic.source.location if ic.source else None,
                        "op_before": list(ic.ops)})
    return out


def _context_lines(findings, program) -> list[str]:
    """With an ETRecord: where in the model the instructions the findings name come from."""
    rows = []
    for f in findings:
        for i, ic in _contexts(f, program):
            rows.append(f"  [{f.code}] {f.plan} #{i}: {short_context(ic)}")
    if not rows:
        return []
    return ["in the model (ETRecord):"] + list(dict.fromkeys(rows))
