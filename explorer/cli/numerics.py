"""``device-explorer numerics PROGRAM --profile RUN.etdp --debug-buffer RUN.bin [--etrecord E]
[--against PROGRAM_B --profile B.etdp --debug-buffer B.bin [--etrecord EB]] [--tol T] [--json | -o report.html]``.

What each instruction produced in a run (executorch's ETDump debug events and its debug buffer; docs/numerics.md):
dtype, shape, min/max/mean over the finite values and the NaN/Inf counts; with ``--against``, the gap per paired
instruction, the program outputs' gap and the first instruction where the runs part by more than ``--tol``.
``--profile``, ``--debug-buffer`` and ``--etrecord`` given after ``--against`` are B's. Exit 0; 1 when a run
produced NaN/Inf or the runs diverge; 2 when a file can't be read or does not fit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TextIO

from explorer.analysis.context import EtrecordMismatch
from explorer.analysis.numerics.compare import DEFAULT_TOL
from explorer.analysis.numerics.load import load_numerics
from explorer.errors import PteFormatError
from explorer.describe.numerics import numerics_lines
from explorer.jsonform.numerics import numerics_json
from explorer.views.html.numerics import numerics_report_html
from explorer.views.payload.profile import open_profile

__all__ = ["register", "run"]


class _Side(argparse.Action):
    """Stores the value under A's or B's name, by whether ``--against`` came before it on the command line
    (argparse runs actions in command-line order)."""

    def __call__(self, parser, namespace, values, option_string=None):
        side = "b" if getattr(namespace, "against", None) else "a"
        key = f"{self.dest}_{side}"
        if getattr(namespace, key, None) is not None:
            parser.error(f"{option_string} given twice for {'B' if side == 'b' else 'A'}")
        setattr(namespace, key, values)


def register(sub) -> None:
    p = sub.add_parser(
        "numerics", help="intermediate outputs of a run (ETDump debug events): ranges, NaN/Inf, where two runs part",
        description="Read the tensors a run logged (run the program with a debug buffer: load_program(..., "
                    "enable_etdump=True, debug_buffer_size=N), then write_etdump_result_to_file(etdp, bin)) and show "
                    "per instruction its outputs' dtype, shape, range and NaN/Inf counts. With --against, compare "
                    "with another run (of this program or another export of the model) and name the first "
                    "divergence. Options after --against are B's.")
    p.add_argument("file", help="the .pte that ran")
    for opt, meta, what in (("--profile", "ETDP", "the run's ETDump (.etdp)"),
                            ("--debug-buffer", "BIN", "the run's debug buffer (.bin)"),
                            ("--etrecord", "ETRECORD", "the export's ETRecord (pairs by debug handle)")):
        p.add_argument(opt, metavar=meta, action=_Side, help=what + " (after --against: B's)")
    p.add_argument("--against", metavar="PROGRAM_B", help="the other run's program")
    p.add_argument("--tol", type=float, default=DEFAULT_TOL,
                   help=f"first divergence: max|a-b| / max(1, max|a|) above this (default {DEFAULT_TOL:g})")
    p.add_argument("--plan", help="only this plan (method)")
    p.add_argument("--profile-method", metavar="NAME", help="join every run block to this method")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print device-explorer/1 JSON")
    fmt.add_argument("-o", "--output", metavar="HTML", help="write an offline HTML report instead")
    p.set_defaults(func=run)


def _need(args, side: str) -> None:
    for key, opt in (("profile", "--profile"), ("debug_buffer", "--debug-buffer")):
        if getattr(args, f"{key}_{side}", None) is None:
            raise SystemExit(f"device-explorer numerics: {opt} is required"
                             + (" for B (after --against)" if side == "b" else ""))


def run(args: argparse.Namespace, out: TextIO) -> int:
    _need(args, "a")
    against = None
    if args.against:
        _need(args, "b")
        against = (args.against, args.profile_b, args.debug_buffer_b, getattr(args, "etrecord_b", None))
    try:
        report = load_numerics(args.file, args.profile_a, args.debug_buffer_a, etrecord=getattr(args, "etrecord_a", None),
                               against=against, tol=args.tol, method=args.profile_method)
    except EtrecordMismatch as exc:
        print(f"device-explorer: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        if isinstance(exc, PteFormatError):
            raise
        print(f"device-explorer: {args.file}: {exc}", file=sys.stderr)
        return 2
    if args.plan is not None:
        report.a.program.plan(args.plan)  # KeyError naming the plans
    if args.output:
        # the same run's times too, as `show --profile --debug-buffer` draws them (one page, whichever command wrote it)
        profile = open_profile(report.a.program, args.profile_a, method=args.profile_method)
        html = numerics_report_html(report, plan=args.plan, profile=profile)
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(html)
        print(f"wrote {os.path.abspath(args.output)}", file=out)
    elif args.json:
        print(json.dumps(numerics_json(report, args.plan), indent=2, ensure_ascii=True, allow_nan=False), file=out)
    else:
        print("\n".join(numerics_lines(report, args.plan)), file=out)
    bad = any(f.code == "numerics-nonfinite" for f in report.a.numerics.findings)
    if report.comparison is not None:
        bad = bad or any(c.first_divergence.a_instruction is not None for c in report.comparison.plans.values())
    return 1 if bad else 0
