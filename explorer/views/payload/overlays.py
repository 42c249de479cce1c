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
"""

from __future__ import annotations

import numpy as np

from explorer.analysis.overlays import Overlay, group_aggregates
from explorer.views.escape import visible

__all__ = ["overlay_payload", "overlays_payload", "plan_groups", "NO_DATA_COLOR"]

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


def overlays_payload(shown: str | None, per_plan: dict[str, list[Overlay]], groups_of: dict) -> dict:
    """``{"shown", "plans": {plan: [overlay payload...]}}`` for every plan's overlays, in the order given;
    ``groups_of``: plan name -> its group tree."""
    if shown is not None and not any(o.name == shown for ovs in per_plan.values() for o in ovs):
        raise KeyError(f"no overlay {shown!r} to show")
    return {"shown": shown, "plans": {plan: [overlay_payload(o, groups_of[plan]) for o in ovs]
                                      for plan, ovs in per_plan.items()}}
