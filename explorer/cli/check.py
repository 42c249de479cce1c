"""``device-explorer check FILE [--json] [--plan NAME] [--limit N]``: the placement checks.

Exit status (docs/analysis.md, "Checks"): 0 when no finding has severity ``error`` (warnings and infos allowed), 1 when
one has, 2 when the file can't be read (``main`` maps PteFormatError/OSError to 2).

Human output: a headline with counts, then findings grouped by severity (errors first), one per line,
each starting with ``[code] plan 'name':`` (see :func:`explorer.analysis.describe.finding_lines`).

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
import json
import os
from typing import TextIO

from ..analysis import check
from ..analysis.checks import DEFAULT_LIMIT
from ..analysis.describe import SEVERITIES, finding_lines
from ..model import DataFile, Program
from .data_option import add_data_option, load_with_data

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
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    program = load_with_data(args.file, args.data)
    if args.plan and isinstance(program, DataFile):
        raise KeyError(f"{os.path.basename(args.file)} is a data file (.ptd): it has no plan {args.plan!r}")
    if args.plan:
        program.plan(args.plan)  # KeyError naming the plans when it doesn't exist
    findings = check(program, limit=args.limit if args.limit and args.limit > 0 else None)
    if args.plan:
        findings = [f for f in findings if f.plan in (args.plan, "")]
    name = os.path.basename(args.file)
    if args.json:
        doc = {"format": JSON_FORMAT, "file": name,
               "counts": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
               "findings": [f.to_json() for f in findings]}
        json.dump(doc, out, indent=1)
        out.write("\n")
    else:
        for line in finding_lines(findings, file=name):
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
    from ..analysis.companions import external_tensors
    from ..analysis.describe import count

    n = sum(len(external_tensors(plan)) for plan in program.plans)
    if not n:
        return None
    return (f"note: {count(n, 'external tensor')} live in a .ptd data file that was not given: whether it holds "
            f"them was not checked (pass it with --data FILE)")
