"""The overlays of one opened program: the built-ins that have data, the user's, which one is shown.

One :class:`OverlaySet` serves the widget (:mod:`explorer.widget.overlays`) and the CLI (``device-explorer
show --overlay FILE.json``), so both resolve keys, validate and aggregate the same way and write the same
payload (:mod:`.overlay_payload`). A JSON overlay file (:func:`read_overlay_file`) is either a plain
mapping of keys to numbers (the overlay is named after the file) or an object with the keyword arguments
of :meth:`OverlaySet.add` (``name``, ``values``, ``by``, ``scale``, ``thresholds``, ``aggregate``, ``unit``,
``plan``). JSON keys are text, so a key of digits only (``"5"``) is read as the int ``5``: instruction 5, or
group 5 with ``"by": "group"`` — what the int key means in Python.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from explorer.analysis.overlays import BUILTINS, Overlay, OverlayError, builtin_overlays, make_overlay
from explorer.views.payload.overlays import overlays_payload, plan_groups
from explorer.views.state.plan import default_plan

__all__ = ["OverlaySet", "read_overlay_file", "FILE_KEYS"]

FILE_KEYS = ("name", "values", "by", "scale", "thresholds", "aggregate", "unit", "plan")
_DIGITS = re.compile(r"^\d+$")


class OverlaySet:
    """Overlays over ``program``'s plans. ``views``: plan name -> PlanView (the ones the payload draws, so
    group ids match); ``profile``: a joined :class:`~explorer.analysis.profile.join.Profile` or None."""

    def __init__(self, program, views: dict, profile=None):
        self.program, self.views, self.profile = program, views, profile
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
            got = self._builtins[plan] = builtin_overlays(view.plan, view.analysis, pp)
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

    def payload(self, shown: str | None = None) -> dict:
        """``{"shown", "plans": {plan: [overlay...]}}`` (:mod:`.overlay_payload`) for every plan."""
        per_plan = {p: [ov for ov in (self.get(nm, p) for nm in self.names(p)) if ov is not None] for p in self.views}
        return overlays_payload(shown, per_plan, {p: self.groups(p) for p in self.views})


def read_overlay_file(path: str | os.PathLike) -> dict:
    """The keyword arguments of :meth:`OverlaySet.add` from a JSON overlay file (module docstring)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OverlayError(f"{p}: cannot read the overlay file ({exc})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OverlayError(f"{p}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
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
        spec["values"] = {(int(k) if _DIGITS.match(k) else k): v for k, v in spec["values"].items()}
    return spec
