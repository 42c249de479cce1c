"""``device-explorer whatif PROGRAM --move SELECTOR=DEVICE [...]``: what executorch would emit for that placement.

Text: a placement review of original -> predicted (what moved, copies added/removed with bytes, arenas
per device before -> after, runtime needs before -> after, findings on the predicted program).
``--json``: the ``inspect --json`` document of the predicted program plus ``"moves"`` and ``"diff"`` (the
``diff --json`` form, original as A). ``-o report.html``: the diff view of original vs predicted with the moves
listed (``show FILE --move ... -o`` writes the same page).
The predicted copies' time per run, from the cost model (``--costs FILE``, default the built-in H200 figures,
explorer/whatif/costs.py), is always given; ``--profile run.etdp`` adds a run-time ESTIMATE before -> after
(``--speedup``, the user's assumption), labelled as one.

Exit status: 0 for a prediction, 1 when executorch would refuse to export that placement (its reason
is printed), 2 for a move that cannot be honoured or a file that cannot be read.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from explorer.jsonform.text import write_json
from explorer.whatif.predict import CONSTANTS, MoveError, Refusal, what_if
from explorer.cli.data_option import add_data_option, load_program
from explorer.cli.etrecord_opts import add_etrecord_option, with_etrecord
from explorer.cli.profile_opts import joined_profile
from explorer.describe.diff import diff_lines
from explorer.describe.program import finding_lines
from explorer.jsonform.program import program_json
from explorer.views.html.whatif import write_whatif_report
from explorer.whatif.review import estimate
from explorer.whatif.review import review

__all__ = ["register", "run"]


def register(sub) -> None:
    p = sub.add_parser(
        "whatif", help="predict what executorch would export if delegates, ops or groups ran on another device",
        description="Move delegates, ops, instructions or groups to another device and print the program "
                    "executorch 1.5.1 would export for that placement (copies, devices, arenas), as a placement "
                    "review against the original. Exit 0 for a prediction, 1 when executorch would refuse to "
                    "export it, 2 for a move that cannot be honoured.")
    p.add_argument("file", help="path to a .pte program")
    p.add_argument("--move", action="append", default=[], metavar="SELECTOR=DEVICE",
                   help="delegate:*|delegate:N|delegate:BACKEND|op:NAME|@N|group:PATH = cpu|cuda:N (repeatable)")
    p.add_argument("--skip-h2d-inputs", action=argparse.BooleanOptionalAction, default=None,
                   help="PropagateDeviceConfig(skip_h2d_for_method_inputs=...) (default: as the original)")
    p.add_argument("--skip-d2h-outputs", action=argparse.BooleanOptionalAction, default=None,
                   help="PropagateDeviceConfig(skip_d2h_for_method_outputs=...) (default: as the original)")
    p.add_argument("--alloc-graph-input", action=argparse.BooleanOptionalAction, default=None,
                   help="MemoryPlanningPass(alloc_graph_input=...) (default: as the original; executorch pairs "
                        "--skip-h2d-inputs with --no-alloc-graph-input)")
    p.add_argument("--alloc-graph-output", action=argparse.BooleanOptionalAction, default=None,
                   help="MemoryPlanningPass(alloc_graph_output=...) (default: as the original)")
    p.add_argument("--method", help="only this method (plan)")
    p.add_argument("--json", action="store_true", help="inspect --json of the predicted program + moves + diff")
    p.add_argument("-o", "--output", metavar="HTML", help="write the diff view of original vs predicted")
    p.add_argument("--profile", metavar="ETDP", help="an ETDump of the original: add a time estimate")
    p.add_argument("--profile-method", metavar="NAME", help=argparse.SUPPRESS)
    p.add_argument("--speedup", metavar="DEV=X,...",
                   help="your assumption: time on DEV = time on the CPU / X (estimate with --profile only)")
    p.add_argument("--costs", metavar="FILE",
                   help="the cost model of copies and launches (what `device-explorer calibrate` writes; "
                        "default: the built-in H200 figures)")
    p.add_argument("--constants", choices=CONSTANTS, default="owned",
                   help="constants a region of moved kernels reads: owned by its delegate (tag_constant_data, as "
                        "executorch's CUDA partitioner does; default) or left as arguments (executorch refuses)")
    add_etrecord_option(p)
    add_data_option(p)
    p.set_defaults(func=run)


def predict(program, moves, command: str, **flags):
    """``(what_if(program, moves, **flags), 0)``, or ``(None, code)`` after saying on stderr why not, the message
    prefixed with ``command``: 1 for a placement executorch would refuse, 2 for a move that cannot be honoured.
    ``whatif`` and ``show --move`` answer alike through it."""
    try:
        return what_if(program, moves, **flags), 0
    except Refusal as exc:
        print(f"{command}: executorch 1.5.1 would refuse to export this placement: {exc}", file=sys.stderr)
        return None, 1
    except MoveError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return None, 2


def run(args: argparse.Namespace, out: TextIO) -> int:
    program = with_etrecord(load_program(args.file, args.data), args.etrecord)  # group:PATH by module path
    predicted, code = predict(program, args.move, "device-explorer whatif", skip_h2d_inputs=args.skip_h2d_inputs,
                              skip_d2h_outputs=args.skip_d2h_outputs, method=args.method,
                              alloc_graph_input=args.alloc_graph_input, alloc_graph_output=args.alloc_graph_output,
                              constants=args.constants)
    if predicted is None:
        return code

    rev = review(program, predicted)
    profile = joined_profile(args, program, args.profile) if args.profile else None
    try:
        estimates = estimate(program, predicted, profile, speedup=args.speedup, costs=args.costs)
    except ValueError as exc:
        print(f"device-explorer whatif: {exc}", file=sys.stderr)
        return 2
    if args.output:  # the diff view with the moves listed (views/html/whatif.py); the page writer: only when asked for
        write_whatif_report(program, predicted, args.output, result=rev.diff, plan=args.method)
    name = os.path.basename(args.file)
    if args.json:
        doc = program_json(predicted, name)
        doc.update(rev.to_json())
        if estimates:
            doc["estimate"] = [e.to_json() for e in estimates]
        write_json(doc, out)
        return 0
    for line in review_lines(rev, name):
        print(line, file=out)
    for e in estimates:
        print("", file=out)
        for line in e.lines():
            print(line, file=out)
    if args.output:
        print(f"\nwrote {args.output}", file=out)
    return 0


def review_lines(rev, name: str) -> list[str]:
    """Header (what was predicted from what), the diff review, and the predicted program's findings."""
    pred = rev.predicted.prediction
    lines = [f"{name}: {pred.text}"]
    lines.append("  the predicted program is what executorch 1.5.1 would export for this placement "
                 "(docs/whatif.md); review of original -> predicted:")
    lines.append("")
    lines.extend(diff_lines(rev.diff, limit=10))
    lines.append("")
    if rev.findings:
        lines.append(f"findings on the predicted program ({len(rev.findings)}):")
        lines.extend("  " + line for line in finding_lines(rev.findings))
    else:
        lines.append("findings on the predicted program: none")
    return lines
