"""``device-explorer diff A B [--json] [--plan NAME] [--limit N]``: a placement review of two programs.

Human output is the review summary of :mod:`explorer.describe.diff` (what moved between
devices, copies added/removed, arenas, findings new/fixed, what the runtime must now provide).
``--json`` prints :meth:`explorer.analysis.diff.compare.ProgramDiff.to_json` (``device-explorer-diff/1``) with
sorted keys, so the same two files always give the same bytes. ``--html OUT`` also writes the diff view
(:mod:`explorer.views.html.diff`) as a self-contained, offline page.

Exit status: 0 when both files were read (a diff is information, not a verdict), 2 when a file can't
be read or ``--plan`` names a plan one of them lacks (``main`` maps those errors to 2).
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from explorer.jsonform.text import write_json
from explorer.describe.diff import diff_lines
from explorer.analysis.diff.compare import diff
from explorer.cli.data_option import add_data_option, load_program
from explorer.cli.etrecord_opts import add_etrecord_option, with_etrecord
from explorer.cli.profile_opts import add_profile_options, joined_profile, run_numerics
from explorer.views.html.diff import write_diff_report
from explorer.analysis.profile.compare import profile_diffs
from explorer.describe.profile import profile_diff_lines
from explorer.jsonform.etrecord import diff_context
from explorer.jsonform.numerics import numerics_json
from explorer.describe.numerics import numerics_lines

__all__ = ["register", "run"]


def register(sub) -> None:
    p = sub.add_parser(
        "diff", help="placement review of two programs: what moved between devices, copies, arenas, runtime needs",
        description="Compare where two .pte programs put their tensors: tensors that moved between devices, "
                    "copies added or removed, arenas added/resized/moved, findings new or fixed, and what the "
                    "runtime must now provide. Exit 0 when both files were read, 2 when one can't be.")
    p.add_argument("file", help="the program before (A)")
    p.add_argument("other", help="the program after (B)")
    p.add_argument("--json", action="store_true", help="print the device-explorer-diff/1 JSON form")
    p.add_argument("--plan", help="only this plan (method)")
    p.add_argument("--limit", type=int, default=10, help="items listed per section before '... and N more' (default 10)")
    p.add_argument("--html", metavar="OUT", help="also write the diff view (both graphs, memory maps, runtime needs) "
                                                 "as one self-contained, offline HTML file")
    add_data_option(p)
    add_profile_options(p, nargs=2, numerics=True)
    add_etrecord_option(p, nargs=2)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    a = load_program(args.file, args.data)
    args.file = args.other  # so main's "cannot read" message names the file that failed
    b = load_program(args.other, args.data)
    records = getattr(args, "etrecord", None) or (None, None)
    a, b = with_etrecord(a, records[0]), with_etrecord(b, records[1])
    result = diff(a, b, plan=args.plan)
    profiles = None
    if getattr(args, "profile", None):
        profiles = (joined_profile(args, a, args.profile[0]), joined_profile(args, b, args.profile[1]))
    numerics = None
    if getattr(args, "debug_buffer", None):
        if not profiles:
            print("device-explorer: --debug-buffer needs --profile (the ETDumps of the same runs, A then B)",
                  file=sys.stderr)
            return 2
        numerics = run_numerics(args, a, args.profile[0], args.debug_buffer[0],
                                against=(b, args.profile[1], args.debug_buffer[1]))
    if args.html and not result.plans:
        print("device-explorer: the two programs have no plan in common; no HTML written", file=sys.stderr)
    elif args.html:
        write_diff_report(a, b, args.html, result=result, programs=(a, b), plan=args.plan, profiles=profiles,
                          numerics=numerics)
    if args.json:
        doc = result.to_json()
        if any(records):
            doc["etrecord"] = diff_context(a, b)
        if profiles is not None:
            doc["profile"] = [d.to_json() for d in profile_diffs(a, b, result, *profiles)]
        if numerics is not None:
            doc["numerics"] = numerics_json(numerics, args.plan)
        write_json(doc, out, sort_keys=True)
        return 0
    for line in diff_lines(result, limit=max(args.limit, 1)):
        print(line, file=out)
    if profiles is not None:
        for d in profile_diffs(a, b, result, *profiles):
            print("", file=out)
            for line in profile_diff_lines(d, limit=max(args.limit, 1)):
                print(line, file=out)
    if numerics is not None:
        print("", file=out)
        for line in numerics_lines(numerics, args.plan):
            print(line, file=out)
    if args.html and result.plans:
        print(f"\nwrote {args.html}", file=out)
    return 0
