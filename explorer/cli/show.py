"""``device-explorer show [FILE] [-o report.html] [--plan NAME]``: write the offline HTML report.

With no FILE it explores the device-annotated sample bundled with the package, so
``device-explorer`` alone (or ``device-explorer demo``) is a complete first run. The report is one
self-contained file — plotly.js inlined, no network — with the widget's panels: the dataflow graph
coloured by device, the memory map, per-device totals, details on click and the findings list. One
drawing at every size: a plan of up to 2,000 graph nodes opens with every group of instructions
expanded, a bigger one as an overview of groups that expand on click; memory lanes are binned until zoomed.
With ``--move SELECTOR=DEVICE`` (repeatable) the report is the what-if view: the original vs what executorch would
export for that placement, the moves listed (the page ``whatif FILE --move ... -o`` writes; docs/whatif.md).
Exit status 0 when the report was written (findings don't change it: ``check`` is for gating), 2 when
the file can't be read or the plan doesn't exist.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from explorer.analysis.pipeline import check
from explorer.units import count, nbytes_text
from explorer.model.program import DataFile
from explorer.cli.data_option import add_data_option, load_with_data
from explorer.cli.etrecord_opts import add_etrecord_option, with_etrecord
from explorer.cli.profile_opts import add_profile_options, optional_profile, run_numerics
from explorer.analysis.overlays import OverlayError
from explorer.cli.whatif import predict
from explorer.whatif.predict import CONSTANTS
from explorer.views.html.data_file import data_file_html
from explorer.views.payload.numerics import numerics_shown
from explorer.views.html.overlay import write_overlay_report
from explorer.views.html.whatif import write_whatif_report
from explorer.views.payload.overlays import OverlaySet
from explorer.views.payload.overlays import read_overlay_file
from explorer.views.state.plan import open_program
from explorer.views.state.plan import plan_view
from explorer.views.state.plan import arena_summary, program_summary
from explorer.views.state.plan import default_plan, sample_path
from explorer.views.payload.app import PLANS_DRAWN, drawn_plans
from explorer.outputs import write_text

__all__ = ["register", "run", "DEFAULT_OUTPUT"]

DEFAULT_OUTPUT = "device-explorer-report.html"


def register(sub) -> None:
    p = sub.add_parser(
        "show", help="write a self-contained HTML report: graph by device, memory map, findings",
        description="Write one offline HTML file showing where every tensor and memory-planned arena "
                    "lives. Without FILE, uses the bundled device-annotated sample.")
    p.add_argument("file", nargs="?", help="path to a .pte program (default: the bundled sample)")
    p.add_argument("-o", "--output", default=DEFAULT_OUTPUT, help=f"where to write the report (default {DEFAULT_OUTPUT})")
    p.add_argument("--plan", help="the plan (method) shown first (default: forward, else the first)")
    add_data_option(p)
    add_profile_options(p, numerics=True)
    add_etrecord_option(p)
    p.add_argument("--overlay", action="append", default=None, metavar="FILE.json",
                   help="colour the graph by your numbers: a JSON object of keys (@N instruction, %%N value, a module "
                        "path) to numbers, or with options (docs/overlays.md); repeatable")
    p.add_argument("--show-overlay", metavar="NAME",
                   help="the overlay drawn when the report opens (yours, or a built-in: time, copy_bytes, size, "
                        "lifetime, output_range, gap)")
    p.add_argument("--move", action="append", default=None, metavar="SELECTOR=DEVICE",
                   help="write the what-if view instead: original vs what executorch would export with this move "
                        "(as `whatif FILE --move ... -o`; docs/whatif.md); repeatable")
    p.add_argument("--constants", choices=CONSTANTS, default="owned",
                   help="with --move: constants a region of moved kernels reads are owned by its delegate (default) "
                        "or left as arguments (as `whatif --constants`)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    source = args.file or sample_path()
    program = load_with_data(str(source), args.data) if args.file else open_program(source)
    if isinstance(program, DataFile):  # a .ptd: a page with its entries (no graph, no arenas)
        with_etrecord(program, getattr(args, "etrecord", None))  # refused with an ETRecord: nothing to join
        return _data_file_page(program, args, out)
    if args.plan and args.plan not in program.plan_names:
        names = ", ".join(program.plan_names) or "none"
        print(f"device-explorer: no plan named {args.plan!r} in {os.path.basename(str(source))} (it has: {names})",
              file=sys.stderr)
        return 2
    program = with_etrecord(program, getattr(args, "etrecord", None))
    if args.move:
        return _whatif_page(program, args, out)
    profile = optional_profile(args, program)
    numerics = None
    if getattr(args, "debug_buffer", None):
        if not args.profile:
            print("device-explorer: --debug-buffer needs --profile (the ETDump of the same run)", file=sys.stderr)
            return 2
        numerics = run_numerics(args, program, args.profile, args.debug_buffer)
    analyses: dict = {}
    findings = list(check(program, analyses=analyses))  # each plan analysed once: the views reuse it
    findings += list(numerics.a.numerics.findings) if numerics is not None else []
    views = {plan.name: plan_view(plan, program, analysis=analyses.get(plan.name)) for plan in program.plans}
    overlays, loaded = _overlays(program, views, profile, args, numerics)
    if overlays is None:
        return 2
    # a file given alone opens drawn (the last one), as ``Explorer.load_overlay`` draws it at once
    shown = args.show_overlay or (numerics_shown(numerics, args.plan) if numerics is not None else None) or loaded
    written = write_overlay_report(program, args.output, findings=findings, plan=args.plan, views=views,
                                   profile=profile, overlays=overlays, shown=shown, numerics=numerics)
    name = os.path.basename(str(source)) + (" (the bundled sample)" if not args.file else "")
    print(f"wrote {written.resolve()} ({nbytes_text(written.stat().st_size)}; self-contained, works offline)", file=out)
    if len(program.plans) > PLANS_DRAWN:  # thousands of plans: the report draws some, every one is listed below
        drawn = drawn_plans(program, (args.plan or default_plan(program), *overlays.planned_on()))
        print(f"the report draws {len(drawn):,} of the {len(program.plans):,} plans; --plan NAME draws another",
              file=out)
    of_plan: dict[str, list] = {}
    for f in findings:  # grouped once: thousands of plans with findings each are not a quadratic scan
        of_plan.setdefault(f.plan, []).append(f)
    for plan in program.plans:
        view = views[plan.name]
        arenas = arena_summary(view)
        line = program_summary(view, of_plan.get(plan.name, []))
        print(f"{name}: {line}" + (f" [arenas {arenas}]" if arenas else ""), file=out)
    attached = attached_words(program, args, profile, overlays)
    if attached:
        print(f"attached: {attached}", file=out)
    return 0


def attached_words(program, args: argparse.Namespace, profile, overlays: OverlaySet) -> str:
    """What was joined to the report, so a run says it was used: ``profile run.etdp (5 runs of forward),
    debug buffer run.bin, ETRecord model.etrecord (2 methods), overlay lat (60 keys)``; "" when nothing was."""
    words = []
    if profile is not None:
        runs = ", ".join(f"{count(len(p.runs), 'run')} of {p.plan}" for p in profile.plans.values())
        words.append(f"profile {os.path.basename(str(args.profile))} ({runs or 'no run joined'})")
    if getattr(args, "debug_buffer", None):
        words.append(f"debug buffer {os.path.basename(str(args.debug_buffer))}")
    if program.etrecord is not None:
        words.append(f"ETRecord {os.path.basename(str(args.etrecord))} "
                     f"({count(len(program.etrecord.plans), 'method')} joined)")
    for ov in (ov for per in overlays.user.values() for ov in per.values()):
        words.append(f"overlay {ov.name} on {ov.plan} ({count(ov.keys, 'key')})")
    return ", ".join(words)


def _whatif_page(program, args: argparse.Namespace, out: TextIO) -> int:
    """``show --move``: the page ``whatif FILE --move ... -o`` writes (the Python side: ``Explorer(FILE,
    moves=[...]).save_html(path)``). Exit 1 when executorch would refuse the placement, 2 for a bad move."""

    unused = [opt for opt, given in (("--overlay", args.overlay), ("--show-overlay", args.show_overlay),
                                     ("--profile", getattr(args, "profile", None)),
                                     ("--debug-buffer", getattr(args, "debug_buffer", None))) if given]
    if unused:
        print(f"device-explorer: {', '.join(unused)} cannot go with --move: the what-if view compares the original "
              f"with a prediction, which has no overlays or run profile", file=sys.stderr)
        return 2
    predicted, code = predict(program, args.move, "device-explorer", constants=args.constants)
    if predicted is None:
        return code
    written = write_whatif_report(program, predicted, args.output, plan=args.plan)
    print(f"wrote {written.resolve()} ({nbytes_text(written.stat().st_size)}; self-contained, works offline)", file=out)
    print(f"{os.path.basename(str(args.file or 'sample'))}: {predicted.prediction.text}", file=out)
    return 0


def _overlays(program, views: dict, profile, args: argparse.Namespace, numerics=None):
    """The report's overlays: the built-ins and each ``--overlay`` file (as ``Explorer.load_overlay`` reads
    it) and the name of the last file's overlay (None without one); (None, None) after printing why one cannot be used."""

    overlays = OverlaySet(program, views, profile, *((numerics.a.numerics, numerics.comparison)
                                                     if numerics is not None else ()))
    if args.plan:
        overlays.default_plan = args.plan  # a file without "plan" goes on the plan shown, as in the widget
    loaded = None
    for path in args.overlay or ():
        try:
            spec = read_overlay_file(path)
            loaded = overlays.add(spec.pop("name"), spec.pop("values"), **spec).name
        except OverlayError as exc:
            print(f"device-explorer: --overlay {path}: {exc}", file=sys.stderr)
            return None, None
    if args.show_overlay and args.show_overlay not in overlays.names():
        print(f"device-explorer: --show-overlay {args.show_overlay!r}: no such overlay (there are: "
              f"{', '.join(overlays.names()) or 'none'})", file=sys.stderr)
        return None, None
    return overlays, loaded


def _data_file_page(data_file: DataFile, args: argparse.Namespace, out: TextIO) -> int:
    name = os.path.basename(str(args.file))
    written = write_text(args.output, data_file_html(data_file, name), inputs=(data_file, args.file))
    print(f"wrote {written.resolve()} ({nbytes_text(written.stat().st_size)}; self-contained, works offline)", file=out)
    print(f"{name}: data file, {len(data_file.entries)} entries", file=out)
    return 0
