"""A placement diff as the app draws it: both sides as one-program plans, plus the diff as columns.

Per plan each side is exactly the one-program payload of that plan (:func:`.app.plan_entry`), and the diff
is columns (:func:`diff_marks`: statuses, pairings, badges) with the before → after table of every *changed*
tensor pair, so the page grows with what changed, not with the programs. The Diff widget sends it, the diff
report embeds it (:mod:`explorer.views.html.diff`), the what-if adds its moves to it (:mod:`.whatif`). With two
runs' numbers compared, each side also carries its built-in overlays (:func:`diff_overlays`: the one-program
``overlays`` per side, the gap on both sides of each pair).
"""

from __future__ import annotations

from explorer.analysis.diff.compare import STATUSES, ProgramDiff
from explorer.analysis.pipeline import LazyAnalysis
from explorer.model.program import Program
from explorer.views.diff_style import OP_STATUS_STYLES, STATUS_STYLES, status_badge
from explorer.views.escape import visible
from explorer.views.fragments.review import EMPTY_DETAILS, pair_details, summary_html
from explorer.views.fragments.requirements import requirements_diff_html
from explorer.views.payload.numerics import numerics_payload, numerics_shown
from explorer.views.payload.overlays import OverlaySet
from explorer.views.payload.app import plan_entry, source_block
from explorer.views.payload.context import context_columns
from explorer.views.payload.profile import attach_profile_pair
from explorer.views.state.diff import SIDES, DiffPlanView, DiffSelection, default_diff_plan, diff_plan_view
from explorer.views.state.overview import TRACE
from explorer.views.state.plan import PlanView

__all__ = ["plan_payload", "lod_plan_payload", "diff_marks", "diff_payload", "diff_views", "diff_overlays",
           "pair_keys", "pair_text"]

def plan_payload(dv: DiffPlanView, *, lazy: bool = False, base: bool = False) -> dict:
    """Everything the page script needs for one plan (see the module docstring)."""
    return lod_plan_payload(dv, lazy=lazy, base=base)


def pair_keys(dv: DiffPlanView) -> tuple[list[tuple[str, int]], dict[str, dict[str, list[int]]]]:
    """The changed tensor pairs of a plan: ``keys[k]`` the (side, value) whose before → after text is text ``k``
    (a pair is written once, from A when it has an A value), and ``vd``: per side the changed values and their
    text's ``k``."""
    keys: list[tuple[str, int]] = []
    vd: dict[str, dict[str, list[int]]] = {s: {"v": [], "t": []} for s in SIDES}
    seen: dict[int, int] = {}  # A value -> its pair's text
    for side in SIDES:
        for v, status in sorted(dv.status(side).items()):
            if status == "same":
                continue
            a_v = v if side == "a" else dv.pair(side, v)
            if side == "b" and a_v is not None and a_v in seen:
                k = seen[a_v]
            else:
                k = len(keys)
                keys.append((side, v))
                if a_v is not None:
                    seen[a_v] = k
            vd[side]["v"].append(v)
            vd[side]["t"].append(k)
    return keys, vd


def pair_text(dv: DiffPlanView, k: int) -> str:
    """Text ``k`` of :func:`pair_keys` (what ``texts[k]`` of an eager payload holds); IndexError past the end."""
    keys, _vd = pair_keys(dv)
    if not 0 <= k < len(keys):
        raise IndexError(f"no changed pair {k} in plan {dv.diff.plan!r}")
    return pair_details(dv, *keys[k])


def lod_plan_payload(dv: DiffPlanView, *, lazy: bool = False, base: bool = False) -> dict:
    """A pair, at any size: each side exactly as the one-program report sends a plan (the column tables the
    app folds, lays out and describes in the browser), plus the diff as columns (:func:`diff_marks`) and the
    before → after table of every *changed* tensor pair. Unchanged pairs and instructions are described in the
    browser from the two sides' tables, so the page grows with what changed, not with the programs.
    ``lazy`` (a widget, which a kernel answers): every text is ``None`` and the page asks for text ``k`` when a
    pair is selected (``{"type": "pair_text", "plan", "k"}``, :func:`pair_text`): writing all of them (5,499 on a
    what-if of a 3k-instruction transformer) cost about half the diff payload. ``base`` (a widget's what-if): A's
    tables are left ``None`` (``plan_entry(tables=False)``): the page has them in the app payload it drew A from
    (:func:`explorer.views.payload.whatif.whatif_payload` says where)."""
    keys, vd = pair_keys(dv)
    texts = [None] * len(keys) if lazy else [pair_details(dv, side, v) for side, v in keys]
    return {
        "name": dv.diff.plan, "label": visible(dv.diff.plan), "header": summary_html(dv),
        "requirements": requirements_diff_html(dv.diff.requirements_a, dv.diff.requirements_b, dv.name_a, dv.name_b),
        "lod": True,
        "sides": {s: plan_entry(dv.side(s), [], [], tables=not (base and s == "a")) for s in SIDES},
        **diff_marks(dv),
        "texts": texts, "vd": vd,
    }


def diff_marks(dv: DiffPlanView) -> dict:
    """The diff as columns: per side the changed tensors and instructions with a status code (an index into
    ``statuses``), the value pairing (A values, B values) and the instruction pairing of each side, and a
    badge (escaped HTML) per status."""
    tensor_codes = {s: k for k, s in enumerate(STATUSES)}
    op_names = tuple(OP_STATUS_STYLES)
    op_codes = {s: k for k, s in enumerate(op_names)}
    marks = {}
    for side in SIDES:
        changed = sorted((v, s) for v, s in dv.status(side).items() if s != "same")
        ops = sorted(dv.op_status(side).items())
        marks[side] = {"v": [v for v, _ in changed], "vs": [tensor_codes[s] for _, s in changed],
                       "i": [i for i, _ in ops], "is": [op_codes[s] for _, s in ops]}
    pairs = sorted(dv.diff.pairs.items())
    ipairs = {}
    for side in SIDES:
        got_i, got_o = dv.instruction_pairs(side)
        ipairs[side] = {"i": got_i, "o": got_o}

    def style(table, name):
        st = table.get(name)
        return {"name": name, "color": st.color if st else None, "width": st.width if st else 0,
                "label": st.label if st else "unchanged"}

    return {
        "marks": marks,
        "statuses": {"tensor": [style(STATUS_STYLES, s) for s in STATUSES],
                     "op": [style(OP_STATUS_STYLES, s) for s in op_names]},
        "badges": {"tensor": [status_badge(s) for s in STATUSES], "op": [status_badge(s, op=True) for s in op_names],
                   "same": status_badge("same")},
        "pairs": {"a": [a for a, _ in pairs], "b": [b for _, b in pairs]},
        "ipairs": ipairs,
    }


def diff_payload(result: ProgramDiff, views: dict[str, DiffPlanView], *, plan: str | None = None,
                 selected: DiffSelection | None = None, title: str | None = None, profiles=None,
                 programs: tuple[Program, Program] | None = None, numerics=None,
                 shown_overlay: str | None = None, lazy: bool = False, base: bool = False) -> dict:
    """Everything the app's diff mode draws: every common plan, both names, the first selection.
    The Diff widget sends the same payload as the page embeds. ``profiles``: (profile of A, profile of B),
    joined run profiles compared per paired instruction and per device (docs/profiles.md). ``programs``: when
    either has an ETRecord joined, each plan gets ``contexts: {"a", "b"}`` (``views/payload/context.py``).
    ``numerics``: a :class:`~explorer.analysis.numerics.load.NumericsReport` of a run of A compared with a run of B
    (``payload["numerics"]``, :mod:`.numerics`: each side's outputs and the gap in its details, the first
    divergence) and each side's built-in overlays (``payload["overlays"]``, :func:`diff_overlays`), drawn first
    ``shown_overlay`` (None: ``gap``, else ``output_range``, as a numbers report opens; ``""``: the device colours).
    ``lazy``: the changed pairs' texts are left for the page to ask for; ``base``: A's tables are left out, the page
    has them (:func:`lod_plan_payload`)."""
    shown = views[result.plans[0].plan]
    only = [f"plans only in A: {', '.join(result.plans_only_a)}"] if result.plans_only_a else []
    only += [f"plans only in B: {', '.join(result.plans_only_b)}"] if result.plans_only_b else []
    out = {"mode": "diff", "title": visible(title or f"{shown.name_a} → {shown.name_b}"),
            "nameA": visible(shown.name_a), "nameB": visible(shown.name_b), "only": visible(" · ".join(only)),
            "trace": TRACE, "plan": plan or default_diff_plan(result), "empty": EMPTY_DETAILS,
            "plans": [plan_payload(views[p.plan], lazy=lazy, base=base) for p in result.plans],
            "selected": selected.to_json() if selected else None}
    if profiles is not None:
        attach_profile_pair(out, views, profiles)
    if programs is not None:  # "Move to ▸" on either side: the commands run on that side's file (shell/moves.js)
        out["whatifSides"] = {side: source_block(prog) for side, prog in zip(SIDES, programs)}
    if programs is not None and any(p.etrecord is not None for p in programs):
        for p in out["plans"]:
            name = p.get("name")
            p["contexts"] = {side: context_columns(prog, prog.plan(name)) if name in prog.plan_names else None
                             for side, prog in zip(("a", "b"), programs)}
    if numerics is not None:
        out["numerics"] = numerics_payload(numerics)
        shown_plan = views[out["plan"]]
        profile_of = {s: None if profiles is None else profiles[k] for k, s in enumerate(SIDES)}
        shown = numerics_shown(numerics, shown_plan.diff.plan) if shown_overlay is None else shown_overlay or None
        out["overlays"] = diff_overlays({p.plan: views[p.plan] for p in result.plans}, numerics, profile_of, shown,
                                        programs)
    return out


def diff_overlays(views: dict[str, DiffPlanView], numerics, profiles: dict, shown: str | None,
                  programs: tuple[Program, Program] | None = None) -> dict:
    """``{"shown", "sides": {"a": overlays, "b": overlays}}``: each side's built-in overlays as the one-program
    report carries them (:meth:`~.overlays.OverlaySet.payload`, over the side's plan views, so group ids are those
    its ``lod.groups`` lists), ``output_range`` from that side's run and ``gap`` on both sides of each pair (A's
    instruction and B's paired one show the same number). ``numerics``: a NumericsReport of A's run compared with
    B's; ``profiles``: side -> its joined profile or None; ``shown``: the overlay drawn first (None: none);
    ``programs``: (A, B), else the runs' programs."""
    runs = {"a": numerics.a, "b": numerics.b}
    sides = {}
    for k, s in enumerate(SIDES):
        run = runs[s]
        program = programs[k] if programs is not None else run.program
        sets = OverlaySet(program, {name: dv.side(s) for name, dv in views.items()}, profiles[s],
                          run.numerics if run is not None else None, numerics.comparison, side=s)
        sides[s] = sets.payload(shown if shown in sets.names() else None)
    return {"shown": shown, "sides": sides}


def diff_views(result: ProgramDiff, pa: Program, pb: Program,
               views: dict[str, DiffPlanView] | None = None, *,
               analyses: tuple[dict[str, LazyAnalysis], dict[str, LazyAnalysis]] | None = None,
               sides_a: dict[str, PlanView] | None = None) -> dict[str, DiffPlanView]:
    """A view per common plan, reusing ``views`` made already, the ``analyses`` (A's, B's) the diff made or reused
    and A's plan views ``sides_a`` (:func:`~explorer.views.state.diff.diff_plan_view`)."""
    views = dict(views or {})
    for p in result.plans:
        if p.plan not in views:
            views[p.plan] = diff_plan_view(result, pa, pb, p.plan, analyses=analyses,
                                           side_a=(sides_a or {}).get(p.plan))
    return views
