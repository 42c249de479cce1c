"""Overlays as the browser app reads them: per plan, per overlay, columns aligned with the plan's indices.

``payload["overlays"]`` of a report (and the widget's ``_overlay_data`` trait, packed the same way) is
``{"shown": name or None, "plans": {plan name: [overlay, ...]}}``; each overlay is::

    name, label           the overlay's name (compared) and its visible text (shown)
    unit, format          unit text; how numbers are written: number | bytes | time (ns) | count
    aggregate, rule       sum | max | mean, and the sentence the legend states
    noun                  what a group's count counts: op | tensor | entry
    builtin, note         a built-in overlay, and where its numbers come from
    scale                 {"kind": "continuous", "name", "stops": [[t, colour]...], "min", "max", "log"}
                          or {"kind": "thresholds", "bounds": [...], "colors": [...], "labels": [...]}
    none                  the colour of a node with no number (and of one below the first threshold)
    m, n                  the plan's instruction and value counts (the columns' lengths)
    missing               no number, in this overlay's integer columns: -1 (null when its columns are floats;
                          a float column, e.g. a group's mean, always says null)
    instr                 per instruction its number (a module's number on each of its instructions)
    instrFrom             per instruction -1 (its own number) or the index into ``modules`` it shows
    value                 per value (tensor) its number
    modules               [[label, start, stop, number, group id], ...] the modules given a number
    group, groupCount     per group id of the plan's tree: the folded number, how many items made it
    groupFrom             per group id -1 (made by the rule) or the index into ``modules`` it shows
    range, groupRange     [smallest, largest] of the items' own numbers / of the group numbers (null: none)
    count                 how many items have a number

Folded groups are aggregated here, in Python, with the overlay's rule (:func:`~explorer.analysis.overlays
.group_aggregates`): the tree is Python's, a few hundred groups at most, and the browser then only reads
a number per drawn group. Integer-valued overlays whose numbers cannot be negative (bytes, counts)
travel as integer columns with -1 for no number, so :func:`.embed.pack` sends them as binary arrays.

The overlays of one opened program (:class:`OverlaySet`): the built-ins that have data, the user's, which one
is shown.

One :class:`OverlaySet` serves the widget (:mod:`explorer.widget.overlays`) and the CLI (``device-explorer
show --overlay FILE.json``), so both resolve keys, validate and aggregate the same way and write the same
payload (:func:`overlays_payload`). A JSON overlay file (:func:`read_overlay_file`) is either a plain
mapping of keys to numbers (the overlay is named after the file) or an object with the keyword arguments
of :meth:`OverlaySet.add` (``name``, ``values``, ``by``, ``scale``, ``thresholds``, ``aggregate``, ``unit``,
``plan``). JSON keys are text, so a key of digits only (``"5"``) is read as the int ``5``: instruction 5, or
group 5 with ``"by": "group"`` — what the int key means in Python.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from explorer.bounded_json import loads
from explorer.errors import JsonInputError
from explorer.analysis.overlays import BUILTINS, Overlay, OverlayError, builtin_overlays, make_overlay
from explorer.analysis.overlays import group_aggregates
from explorer.views.escape import visible
from explorer.views.state.plan import default_plan

__all__ = ["overlay_payload", "overlays_payload", "plan_groups", "NO_DATA_COLOR", "OverlaySet", "read_overlay_file", "FILE_KEYS"]

NO_DATA_COLOR = "#D0D7DE"  # a node without a number: the app's neutral grey, never a colour of the scale


def plan_groups(view):
    """The group tree whose ids the app draws for ``view`` (its overview's, every level built: the one renderer
    folds any of them, and ``lod.groups`` of the payload lists the same tree)."""
    view.overview.groups.build_all()
    return view.overview.groups


def _column(x: np.ndarray, ints: bool):
    if ints:
        return np.where(np.isnan(x), -1, x).astype(np.int64)
    return x.astype(np.float64)


def _range(x: np.ndarray):
    x = x[~np.isnan(x)]
    return [float(x.min()), float(x.max())] if x.size else None


def _scale(ov: Overlay) -> dict:
    if ov.thresholds:
        return {"kind": "thresholds", "bounds": [t.bound for t in ov.thresholds],
                "colors": [t.color for t in ov.thresholds], "labels": [visible(t.label) for t in ov.thresholds]}
    s = ov.scale
    return {"kind": "continuous", "name": s.name, "stops": [list(p) for p in s.stops], "min": s.min, "max": s.max,
            "log": s.log}


def overlay_payload(ov: Overlay, groups) -> dict:
    """One overlay for the app (module docstring); ``groups``: the plan's group tree (:func:`plan_groups`)."""
    G = groups.groups
    agg = group_aggregates(ov, np.asarray([g.start for g in G]), np.asarray([g.stop for g in G]), groups.home)
    finite = np.concatenate([ov.instr[~np.isnan(ov.instr)], ov.value[~np.isnan(ov.value)]])
    ints = ov.format in ("bytes", "count") and bool(np.all(finite >= 0)) and bool(np.all(finite == np.round(finite)))
    own = np.concatenate([ov.instr[ov.own], ov.value, [mi.number for mi in ov.modules]])
    return {
        "name": ov.name, "label": visible(ov.name), "unit": visible(ov.unit), "format": ov.format,
        "aggregate": ov.aggregate, "rule": ov.rule_text, "noun": ov.noun,
        "builtin": ov.builtin, "note": visible(ov.note),
        "scale": _scale(ov), "none": NO_DATA_COLOR,
        "m": int(ov.instr.size), "n": int(ov.value.size), "missing": -1 if ints else None,
        "instr": _column(ov.instr, ints), "instrFrom": ov.instr_from.astype(np.int64),
        "value": _column(ov.value, ints),
        "modules": [[visible(mi.label), mi.start, mi.stop, mi.number, mi.group] for mi in ov.modules],
        "group": _column(agg.value, ints and ov.aggregate != "mean"), "groupCount": agg.count,
        "groupFrom": agg.source,
        "range": _range(own.astype(np.float64)), "groupRange": _range(agg.value),
        "count": int((~np.isnan(own)).sum()),
    }


def overlays_payload(shown: str | None, per_plan: dict[str, list[Overlay]], groups_of: dict, *,
                     known: bool = False) -> dict:
    """``{"shown", "plans": {plan: [overlay payload...]}}`` for every plan's overlays, in the order given;
    ``groups_of``: plan name -> its group tree; ``known``: ``shown`` is an overlay of a plan left out of
    ``per_plan`` (a report that does not draw every plan), not a mistake."""
    if shown is not None and not known and not any(o.name == shown for ovs in per_plan.values() for o in ovs):
        raise KeyError(f"no overlay {shown!r} to show")
    return {"shown": shown, "plans": {plan: [overlay_payload(o, groups_of[plan]) for o in ovs]
                                      for plan, ovs in per_plan.items()}}


FILE_KEYS = ("name", "values", "by", "scale", "thresholds", "aggregate", "unit", "plan")
_DIGITS = re.compile(r"^\d+$")


class OverlaySet:
    """Overlays over ``program``'s plans. ``views``: plan name -> PlanView (the ones the payload draws, so
    group ids match); ``profile``: a joined :class:`~explorer.analysis.profile.join.Profile` or None;
    ``numerics``/``comparison``: a run's Numerics and its NumericsComparison with another run, in which this program
    is ``side`` (``"a"``; a diff's right side ``"b"``)."""

    def __init__(self, program, views: dict, profile=None, numerics=None, comparison=None, side: str = "a"):
        self.program, self.views, self.profile = program, views, profile
        self.numerics, self.comparison, self.side = numerics, comparison, side
        self.default_plan = default_plan(program) if program.plans else None
        self._builtins: dict[str, dict[str, Overlay]] = {}
        self.user: dict[str, dict[str, Overlay]] = {}  # name -> plan -> overlay, in the order added

    def groups(self, plan: str):
        return plan_groups(self.views[plan])

    def builtins(self, plan: str) -> dict[str, Overlay]:
        got = self._builtins.get(plan)
        if got is None:
            view = self.views[plan]
            pp = self.profile.plans.get(plan) if self.profile is not None else None
            pn = self.numerics.plan(plan) if self.numerics is not None else None
            pc = self.comparison.plan(plan) if self.comparison is not None else None
            got = self._builtins[plan] = builtin_overlays(view.plan, view.analysis, pp, pn, pc, self.side)
        return got

    def names(self, plan: str | None = None) -> list[str]:
        """Built-ins with data (on ``plan``, or on any plan), then the user's overlays in the order added."""
        plans = [plan] if plan is not None else list(self.views)
        built = [b for b in BUILTINS if any(b in self.builtins(p) for p in plans)]
        return built + [u for u, per in self.user.items() if plan is None or plan in per]

    def add(self, name: str, values, *, plan: str | None = None, by: str | None = None, scale=None, thresholds=None,
            aggregate: str = "sum", unit: str = "") -> Overlay:
        """Resolve ``values`` on ``plan`` (default: ``default_plan``, as the page opens) and keep it under ``name``, replacing
        that name's overlay on that plan."""
        if not isinstance(name, str) or not name.strip():
            raise OverlayError(f"Invalid overlay name {name!r}: expected non-empty text")
        if name in BUILTINS:
            raise OverlayError(f"Invalid overlay name {name!r}: it is a built-in overlay ({', '.join(BUILTINS)}); "
                               "pick another name")
        plan = plan if plan is not None else self.default_plan
        if plan not in self.views:
            raise OverlayError(f"Invalid value of 'plan' for overlay {name!r}: {plan!r}. Expected one of {list(self.views)}")
        ov = make_overlay(self.views[plan].plan, name, values, by=by, groups=self.groups(plan), scale=scale,
                          thresholds=thresholds, aggregate=aggregate, unit=unit)
        self.user.setdefault(name, {})[plan] = ov
        return ov

    def remove(self, name: str) -> None:
        if name in BUILTINS:
            raise OverlayError(f"Cannot remove {name!r}: it is a built-in overlay (show another, or none)")
        if name not in self.user:
            raise KeyError(f"no overlay {name!r}; the overlays are {self.names()}")
        del self.user[name]

    def get(self, name: str, plan: str) -> Overlay | None:
        if name in BUILTINS:
            return self.builtins(plan).get(name)
        return self.user.get(name, {}).get(plan)

    def payload(self, shown: str | None = None, plans=None) -> dict:
        """``{"shown", "plans": {plan: [overlay...]}}`` (:mod:`.overlay_payload`) for every plan, or for the plans
        named in ``plans`` (the ones a report draws: views/payload/app.py ``drawn_plans``)."""
        wanted = set(self.views if plans is None else plans)
        names = [p for p in self.views if p in wanted]
        per_plan = {p: [ov for ov in (self.get(nm, p) for nm in self.names(p)) if ov is not None] for p in names}
        known = (shown is not None and len(names) < len(self.views)
                 and not any(o.name == shown for ovs in per_plan.values() for o in ovs) and shown in self.names())
        return overlays_payload(shown, per_plan, {p: self.groups(p) for p in names}, known=known)

    def planned_on(self) -> list[str]:
        """The plans carrying one of the user's overlays (a report draws them, however many plans it leaves out)."""
        return [p for per in self.user.values() for p in per]


def _key(path: Path, key: str) -> int | str:
    """A key of digits is a value id (int); one too long to be any (a 5,000-digit key) is refused by name."""
    if not _DIGITS.match(key):
        return key
    if len(key) > 18:
        raise OverlayError(f"{path}: key {key[:20]}... ({len(key):,} digits) is no value id: ids are small integers")
    return int(key)


def read_overlay_file(path: str | os.PathLike) -> dict:
    """The keyword arguments of :meth:`OverlaySet.add` from a JSON overlay file (module docstring)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OverlayError(f"{p}: cannot read the overlay file ({exc})") from None
    try:
        doc = loads(text)  # depth and number length bounded: a clear OverlayError, never a RecursionError
    except JsonInputError as exc:
        raise OverlayError(f"{p}: {exc}") from None
    if not isinstance(doc, dict):
        raise OverlayError(f"{p}: expected a JSON object (keys -> numbers, or {{\"values\": ...}} with options), "
                           f"got {type(doc).__name__}")
    if isinstance(doc.get("values"), (dict, list)):
        bad = [k for k in doc if k not in FILE_KEYS]
        if bad:
            raise OverlayError(f"{p}: invalid key {bad[0]!r}. Expected keys among {list(FILE_KEYS)}")
        spec = dict(doc)
    else:
        spec = {"values": doc}
    spec.setdefault("name", p.stem)
    if isinstance(spec["values"], dict):
        spec["values"] = {_key(p, k): v for k, v in spec["values"].items()}
    return spec
