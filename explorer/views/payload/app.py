"""Everything the app draws for one program: the payload the widget sends and the report embeds alike.

Per plan the column tables of :mod:`.plan` with the plan's summary, totals and findings (:func:`plan_entry`),
the companions (:mod:`.companions`), an ETRecord's context (:mod:`.context`) and a run profile
(:mod:`.profile`); the findings; the first selection; and the ``"whatif"`` block naming the file a
what-if's CLI line will name (:func:`source_block`; a prediction's own block is :mod:`.whatif`'s).
"""

from __future__ import annotations

from pathlib import Path

from explorer.analysis.types import Finding
from explorer.model.program import Plan, Program
from explorer.units import count
from explorer.views.escape import visible
from explorer.views.fragments.requirements import runtime_needs_html
from explorer.views.fragments.tables import device_table, finding_details, finding_label
from explorer.views.palette import BLOCK_OPACITY, TENSOR_OPACITY
from explorer.views.payload.companions import add_to_plan_payload
from explorer.views.payload.context import context_columns
from explorer.views.payload.plan import lod_devices, lod_payload
from explorer.views.payload.profile import attach_profile
from explorer.views.state.overview import TRACE
from explorer.views.state.plan import PlanView, default_plan, plan_view, program_summary, totals_view
from explorer.views.state.selection import Selection

__all__ = ["app_payload", "drawn_plans", "not_drawn_text", "PLANS_DRAWN", "plan_entry", "TABLE_KEYS", "selection_json",
           "source_block", "program_source", "flag_words", "flag_block"]

# (Prediction field, CLI option): the flags what_if takes, as the CLI spells them
_FLAGS = (("skip_h2d_inputs", "--skip-h2d-inputs"), ("skip_d2h_outputs", "--skip-d2h-outputs"),
          ("alloc_graph_input", "--alloc-graph-input"), ("alloc_graph_output", "--alloc-graph-output"))


def flag_words(pred) -> tuple[list[str], list[str]]:
    """A prediction's flags (what_if's keyword arguments other than the moves) as CLI words and as Python keyword
    arguments (``name=literal``, literals written by ``repr``); the defaults are left out."""
    cli: list[str] = []
    py: list[str] = []
    for name, option in _FLAGS:
        value = getattr(pred, name)
        if value is not None:
            cli.append(option if value else "--no-" + option[2:])
            py.append(f"{name}={bool(value)!r}")
    if pred.constants != "owned":
        cli += ["--constants", pred.constants]
        py.append(f"constants={pred.constants!r}")
    if pred.method is not None:
        cli += ["--method", pred.method]
        py.append(f"method={pred.method!r}")
    return cli, py


def flag_block(pred) -> dict:
    """A prediction's flags for the page's toggles: ``flags`` (what_if's five keyword arguments as set, None: as the
    original shows it) and ``method`` (its ``--method`` as CLI words and Python argument, or none)."""
    method = {"cli": ["--method", pred.method], "py": [f"method={pred.method!r}"]} if pred.method is not None \
        else {"cli": [], "py": []}
    return {"flags": {**{name: getattr(pred, name) for name, _o in _FLAGS}, "constants": pred.constants},
            "method": method}


NO_FLAGS = {"flags": {**{name: None for name, _o in _FLAGS}, "constants": "owned"}, "method": {"cli": [], "py": []}}


def program_source(program: Program) -> dict:
    """What the page's what-if commands start from: ``file``, the file on disk the CLI line names (None when
    there is none: the line is not offered), ``program``, the Python expression that gives the program shown
    (``explorer.load(FILE)``, or the ``explorer.what_if`` of the file a prediction was made from; None when there
    is none) and ``nofile``, why there is no CLI line ("" when there is one). Never a command on a file that does
    not exist: a program read from bytes, a path that is no file any more, a prediction (no file holds it)."""
    pred = program.prediction
    if pred is not None:
        base = pred.original
        if base and Path(base).is_file():
            _cli, py = flag_words(pred)
            moves = ", ".join(repr(f"{s}={d}") for s, d in pred.moves)
            expr = "".join([f"explorer.what_if(explorer.load({str(base)!r}), [{moves}]"] + [", " + k for k in py] + [")"])
            return {"file": None, "program": expr,
                    "nofile": f"no command line: this program is a prediction of {base} (explorer.what_if), which no "
                              f"file holds, and device-explorer whatif predicts from a file"}
        return {"file": None, "program": None,
                "nofile": "no command line: this program is a prediction, which no file holds, and the program it "
                          "was predicted from is no file either"}
    src = program.source
    if not src:
        return {"file": None, "program": None,
                "nofile": "no command line: this program was read from bytes, so there is no file to run it on "
                          "(write the bytes to a .pte file and load that)"}
    if not Path(src).is_file():
        return {"file": None, "program": None,
                "nofile": f"no command line: {src} is not a file (any more), so there is nothing to run it on"}
    return {"file": str(src), "program": f"explorer.load({str(src)!r})", "nofile": ""}


def source_block(program: Program) -> dict:
    """``"whatif"`` of a program shown as it is (no moves): what the browser's commands run on
    (:func:`program_source`)."""
    return {**program_source(program), **NO_FLAGS, "moves": [], "cli": [], "py": [], "origins": {}}


# the keys of a plan entry holding its tables (:func:`plan_entry`): what a widget's what-if diff takes from the app
# payload the page holds already instead of sending them again (views/payload/whatif.py, base=)
TABLE_KEYS = ("devices", "lod")


def plan_entry(view: PlanView, findings: list[Finding], all_findings: list[Finding], *,
               index_of: dict | None = None, tables: bool = True) -> dict:
    """One plan at any size: the column tables the app builds its figures from (``frontend/lod/figures.js``) and
    folds, lays out, draws and describes it with (:mod:`.plan`); no figure, no HTML per tensor or instruction.
    ``index_of``: each finding's first position in ``all_findings`` (:func:`first_index`), so that many plans with
    many findings do not search the list once per finding. ``tables=False``: the tables (``TABLE_KEYS``) left
    ``None``, for a page that has them already (they are most of the entry's size and of its time)."""
    plan = view.plan
    return {
        "name": plan.name,
        "label": visible(plan.name),
        "summary": visible(program_summary(view, findings)),
        # a million declared arenas with no tensor: one line under the memory map, never a lane each (issue 30)
        "emptyArenas": visible(empty.text()) if (empty := view.analysis.empty_arenas) is not None else None,
        "totals": device_table(plan, totals_view(view)) + runtime_needs_html(view),
        "devices": lod_devices(view) if tables else None,
        "nInstructions": len(plan.instructions),
        "nValues": len(plan.values),
        "findingDetails": {str(index_of[f] if index_of is not None else all_findings.index(f)): finding_details(plan, f)
                           for f in findings},
        "lod": lod_payload(view) if tables else None,
    }


PLANS_DRAWN = 64  # plans a report draws; past them, the others are one line (as empty arenas are: issue 30)


def drawn_plans(program: Program, opening: tuple = (), limit: int | None = PLANS_DRAWN) -> list[Plan]:
    """The plans a report draws, in the program's order: every plan, or past ``limit`` plans the first ``limit``
    and the ones named in ``opening`` (the plan it opens on, the selection's). A program of 3,500 small plans
    took 20 s to draw them all, a plan's tables and figures each; the report's work stays bounded by ``limit``
    plans and the analysis every plan gets for its findings (``check``), whatever the file lists."""
    plans = list(program.plans)
    if limit is None or len(plans) <= limit:
        return plans
    keep = {p.name for p in plans[:limit]} | {name for name in opening if name}
    return [p for p in plans if p.name in keep]


def not_drawn_text(program: Program, drawn: list[Plan], findings: list[Finding]) -> str | None:
    """The line saying which plans a report leaves out and where to see them (None: it draws every plan)."""
    left = len(program.plans) - len(drawn)
    if left <= 0:
        return None
    names = {p.name for p in drawn}
    hidden = sum(1 for f in findings if f.plan and f.plan not in names)
    where = f"; their {count(hidden, 'finding')}: device-explorer check FILE" if hidden else ""
    return (f"… and {left:,} more plans not drawn in this report ({len(program.plans):,} in all; draw one with "
            f"device-explorer show FILE --plan NAME{where})")


def app_payload(program: Program, *, findings: list[Finding], plan: str | None = None,
                selected: Selection | None = None, title: str | None = None,
                views: dict[str, PlanView] | None = None, profile=None, limit: int | None = PLANS_DRAWN,
                also: tuple = ()) -> dict:
    """Everything the app draws for ``program``: its plans (past ``limit`` plans, :func:`drawn_plans`, the plans
    named in ``also`` among them; None: all), their findings, the first selection. The widget sends the same payload as the page embeds (every plan: it can
    be asked for any). ``profile``: a joined run profile (:func:`explorer.views.payload.profile.open_profile`),
    drawn on the plans it has runs of."""
    views = views or {}
    opening = plan or (default_plan(program) if program.plans else None)  # no plans: nothing to open
    drawn = drawn_plans(program, (opening, selected.plan if selected else None, *also), limit)
    left_out = not_drawn_text(program, drawn, findings)
    if left_out is not None:  # only the findings of the plans drawn (and the program's): the app opens their plan
        names = {p.name for p in drawn}
        findings = [f for f in findings if not f.plan or f.plan in names]
    plans = [views.get(p.name) or plan_view(p, program) for p in drawn]
    of_plan: dict[str, list[Finding]] = {}
    for f in findings:
        of_plan.setdefault(f.plan, []).append(f)
    index_of = first_index(findings)
    out = {
        "title": visible(title or (Path(program.source).name if program.source else "program")),
        "trace": TRACE,
        "opacity": {"tensor": TENSOR_OPACITY, "block": BLOCK_OPACITY},
        "plan": opening,
        "plans": [_with_context(add_to_plan_payload(plan_entry(v, of_plan.get(v.plan.name, []), findings,
                                                               index_of=index_of), program, v.plan),
                                context_columns(program, v.plan)) for v in plans],  # + data files, delegate insides
        "findings": [{"label": finding_label(f), "plan": f.plan, "severity": f.severity,
                      "values": list(f.values), "instructions": list(f.instructions)} for f in findings],
        "selected": None if not selected else selection_json(selected, findings),
        # the file a what-if's CLI line names ("Move to ▸" in the details: explorer/frontend/shell/moves.js)
        "whatif": source_block(program),
    }
    if left_out is not None:
        out["plansNotDrawn"] = visible(left_out)
    if profile is not None:
        attach_profile(out, profile)
    return out




def first_index(findings: list) -> dict | None:
    """Each finding's first position in ``findings`` (what ``findings.index`` answers), None when one cannot be
    hashed (then callers search the list)."""
    out: dict = {}
    try:
        for i, f in enumerate(findings):
            out.setdefault(f, i)
    except TypeError:
        return None
    return out


def _with_context(plan_payload: dict, context: dict | None) -> dict:
    """``plans[].context``: an ETRecord's module, source and nodes per instruction, when one is joined."""
    if context is not None:
        plan_payload["context"] = context
    return plan_payload


def selection_json(selected: Selection, findings: list[Finding]) -> dict:
    """A :class:`Selection` as the app keeps it (the finding by its index in ``findings``)."""
    return {"plan": selected.plan, "values": list(selected.values), "instructions": list(selected.instructions),
            "finding": str(findings.index(selected.finding)) if selected.finding in findings else None,
            "query": selected.query, "group": selected.group}
