"""Overlays: a user's own numbers (or ones we measured) laid on a plan's instructions and tensors.

An :class:`Overlay` is one named set of numbers for one plan, resolved to columns aligned with the plan:
``instr`` (one float per instruction) and ``value`` (one float per value), NaN where there is no number.
Where the numbers come from:

* **instruction keys** — ``5`` or ``"@5"`` (the instruction's index in the plan, as the report's ``#@5``
  link and the details say it);
* **value keys** — ``"%12"`` (the value's index; only tensors are drawn, so only tensors take a number);
* **module keys** — a module path such as ``"layers.3"``: the label of a group of the plan's overview
  (:mod:`.groups`; with an ETRecord those are the model's modules), else a scope the groups are cut
  from (:meth:`.groups.Groups.scope_runs`: a module too small for a group of its own, or in a plan drawn
  as one group). The number belongs to the module as a whole; each of its instructions shows it, marked
  as the module's (``instr_from``);
* **group keys** (``by="group"``) — a group id of that tree, the same as a module key.

Items never overlap: an instruction inside a module that has its own number, or two nested modules both
given, is an error naming both (which of the two numbers should a folded group count?).

A **folded group** shows one number made from the items inside it with the overlay's rule — ``sum``,
``max`` or ``mean`` — over the items (an instruction, a tensor at home in the group — see
:func:`.groups.tensor_homes` — or a whole module counted once). A group lying inside a module that has a
number shows that module's number (``source`` says whose). The rule is stated in the legend and the hover.

Built-in overlays (:func:`builtin_overlays`), from what the program and a joined profile already say:
``time`` (median measured time per instruction, :mod:`.profile`), ``copy_bytes`` (bytes each copy
instruction moves, :mod:`.transfers`), ``size`` (bytes per tensor) and ``lifetime`` (how many
instructions a tensor stays alive, :mod:`.lifetimes`); with a run's numbers (:mod:`.numerics`) ``output_range``
(the largest finite |value| each instruction produced) and, compared with another run, ``gap`` (each paired
instruction's max|a-b| / max(1, max|a|); the A instructions a delegate of B holds share its pair's; on B's side of a
diff, ``side="b"``, each B instruction shows its pair's, the largest when several A instructions pair with it).

Bad arguments raise :class:`OverlayError` (a ``ValueError``) naming the argument or key and, where there
is a fixed set, the valid choices.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from explorer.errors import OverlayError
from explorer.model.program import Plan
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.groups import Groups
from explorer.analysis.lifetimes import aliases
from explorer.analysis.lifetimes import lifetime_arrays
from explorer.analysis.transfers import transfer_arrays
from explorer.model.columns import value_columns

__all__ = ["Overlay", "OverlayError", "Scale", "Threshold", "ModuleItem", "GroupAggregate", "make_overlay",
           "group_aggregates", "builtin_overlays", "AGGREGATES", "BY", "FORMATS", "SCALES", "BUILTINS",
           "parse_scale", "parse_thresholds"]

AGGREGATES = ("sum", "max", "mean")
BY = ("instruction", "value", "module", "group")
FORMATS = ("number", "bytes", "time", "count")  # how the app writes a number: as is (+ unit), KiB/MiB, ns/µs/ms/s
BUILTINS = ("time", "copy_bytes", "size", "lifetime", "output_range", "gap")
# colour scales by name, as (position, colour) stops: perceptually uniform and readable with the common
# colour-vision deficiencies (matplotlib's viridis family); the first is the default
SCALES: dict[str, tuple[tuple[float, str], ...]] = {
    name: tuple((k / (len(stops) - 1), c) for k, c in enumerate(stops)) for name, stops in {
        "viridis": ("#440154", "#472D7B", "#3B528B", "#2C728E", "#21918C", "#28AE80", "#5EC962", "#ADDC30", "#FDE725"),
        "cividis": ("#00224E", "#123570", "#3B496C", "#575D6D", "#707173", "#8A8779", "#A69D75", "#C4B56C", "#FEE838"),
        "magma": ("#000004", "#1C1044", "#4F127B", "#812581", "#B5367A", "#E55064", "#FB8761", "#FEC287", "#FCFDBF"),
        "plasma": ("#0D0887", "#4C02A1", "#7E03A8", "#A92395", "#CC4778", "#E56B5D", "#F89441", "#FDC328", "#F0F921"),
    }.items()}
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_INSTR_KEY = re.compile(r"^@(\d+)$")
_VALUE_KEY = re.compile(r"^%(\d+)$")
_SCALE_KEYS = ("name", "min", "max", "log")


@dataclass(frozen=True)
class Scale:
    """A continuous colour scale: ``name`` (one of :data:`SCALES`), the numbers at its two ends (None: the
    smallest / largest number drawn) and whether positions are taken on a log axis."""

    name: str = "viridis"
    min: float | None = None
    max: float | None = None
    log: bool = False

    @property
    def stops(self) -> tuple[tuple[float, str], ...]:
        return SCALES[self.name]


@dataclass(frozen=True)
class Threshold:
    """Numbers from ``bound`` up (to the next bound) get ``color``; ``bound`` None: from minus infinity."""
    bound: float | None
    color: str
    label: str


@dataclass(frozen=True)
class ModuleItem:
    """A module (or group) given one number: its label and instruction range [start, stop)."""
    label: str
    start: int
    stop: int
    number: float
    group: int  # the group id it was resolved to (-1: a run of the module's instructions inside a leaf group)


@dataclass(frozen=True)
class GroupAggregate:
    """Per group id: the folded number (NaN: nothing inside), how many items made it, and the module item
    whose number a group inside it shows (index into ``Overlay.modules``; -1: made by the rule)."""

    value: np.ndarray
    count: np.ndarray
    source: np.ndarray


@dataclass(frozen=True, eq=False)
class Overlay:
    """One named set of numbers on one plan (module docstring)."""
    name: str
    plan: str
    instr: np.ndarray  # float64 (instructions,): NaN = no number
    value: np.ndarray  # float64 (values,)
    instr_from: np.ndarray  # int64 (instructions,): -1 its own number (or none), else index into modules
    modules: tuple[ModuleItem, ...] = ()
    scale: Scale | None = None  # None when thresholds are given
    thresholds: tuple[Threshold, ...] = ()
    aggregate: str = "sum"
    unit: str = ""
    format: str = "number"
    builtin: bool = False
    note: str = ""  # where the numbers come from (the built-ins say)
    keys: int = 0  # how many keys the user gave

    @property
    def own(self) -> np.ndarray:
        """Per instruction: has a number of its own (not a module's)."""
        return (self.instr_from < 0) & ~np.isnan(self.instr)

    def items(self, home: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every item as ``(start, stop, number, module)`` arrays sorted by start: instructions with their own
        number ([i, i+1)), tensors with a number at their home instruction, modules over their range (module:
        the index into ``modules``, -1 for the others). Tensors without a home instruction are in no group."""
        own = np.flatnonzero(self.own)
        vals = np.flatnonzero(~np.isnan(self.value))
        vals = vals[home[vals] >= 0] if vals.size else vals
        starts = np.concatenate([own, home[vals], [mi.start for mi in self.modules]]).astype(np.int64)
        stops = np.concatenate([own + 1, home[vals] + 1, [mi.stop for mi in self.modules]]).astype(np.int64)
        nums = np.concatenate([self.instr[own], self.value[vals], [mi.number for mi in self.modules]]).astype(np.float64)
        mod = np.concatenate([np.full(own.size + vals.size, -1), np.arange(len(self.modules))]).astype(np.int64)
        order = np.argsort(starts, kind="stable")
        return starts[order], stops[order], nums[order], mod[order]

    @property
    def noun(self) -> str:
        """What a folded group's count counts: ``op``, ``tensor`` or ``entry`` (mixed or modules)."""
        ops, tensors = bool(self.own.any()), bool((~np.isnan(self.value)).any())
        if self.modules or (ops and tensors):
            return "entry"
        return "tensor" if tensors else "op"

    @property
    def rule_text(self) -> str:
        """The aggregation rule as the legend states it."""
        noun = {"op": "ops", "tensor": "tensors", "entry": "entries"}[self.noun]
        what = {"sum": "the sum", "max": "the largest", "mean": "the mean"}[self.aggregate]
        return f"a folded group shows {what} of its {noun}"


# -- validation -------------------------------------------------------------------------------------

def _choice(arg: str, value, choices: Sequence[str], name: str) -> str:
    if not isinstance(value, str) or value not in choices:
        raise OverlayError(f"Invalid value of {arg!r} for overlay {name!r}: {value!r}. Expected one of {list(choices)}")
    return value


def _number(x, where: str, name: str) -> float:
    """A key's number: int or float (numpy's too); None and NaN mean no number; inf and the rest are errors."""
    if x is None:
        return math.nan
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise OverlayError(f"Invalid number for {where} of overlay {name!r}: {x!r} ({type(x).__name__}). "
                           "Expected an int or a float (None or NaN for no number)")
    v = float(x)
    if math.isinf(v):
        raise OverlayError(f"Invalid number for {where} of overlay {name!r}: {v}. Expected a finite number")
    return v


def _hex(color, where: str, name: str) -> str:
    if not isinstance(color, str) or not _HEX.match(color):
        raise OverlayError(f"Invalid colour {color!r} in {where} of overlay {name!r}. Expected '#RRGGBB' or '#RGB'")
    if len(color) == 4:
        color = "#" + "".join(c * 2 for c in color[1:])
    return color.upper()


def parse_scale(scale, name: str) -> Scale:
    """``None`` (viridis over the numbers drawn), a scale name, or a dict with keys name/min/max/log."""
    if scale is None:
        return Scale()
    if isinstance(scale, Scale):
        spec = {"name": scale.name, "min": scale.min, "max": scale.max, "log": scale.log}
    elif isinstance(scale, str):
        spec = {"name": scale}
    elif isinstance(scale, Mapping):
        bad = [k for k in scale if k not in _SCALE_KEYS]
        if bad:
            raise OverlayError(f"Invalid key {bad[0]!r} in 'scale' of overlay {name!r}. Expected keys among {list(_SCALE_KEYS)}")
        spec = dict(scale)
    else:
        raise OverlayError(f"Invalid value of 'scale' for overlay {name!r}: {scale!r}. Expected a scale name "
                           f"(one of {list(SCALES)}) or a dict with keys among {list(_SCALE_KEYS)}")
    sname = _choice("scale", spec.get("name", "viridis"), tuple(SCALES), name)
    lo = None if spec.get("min") is None else _number(spec["min"], "scale min", name)
    hi = None if spec.get("max") is None else _number(spec["max"], "scale max", name)
    log = spec.get("log", False)
    if not isinstance(log, bool):
        raise OverlayError(f"Invalid value of 'scale.log' for overlay {name!r}: {log!r}. Expected True or False")
    if lo is not None and hi is not None and not lo < hi:
        raise OverlayError(f"Invalid 'scale' for overlay {name!r}: min {lo} is not below max {hi}")
    if log and ((lo is not None and lo <= 0) or (hi is not None and hi <= 0)):
        raise OverlayError(f"Invalid 'scale' for overlay {name!r}: a log scale needs min and max above 0")
    return Scale(sname, lo, hi, log)


def parse_thresholds(thresholds, name: str) -> tuple[Threshold, ...]:
    """A list of ``(bound, colour)`` or ``(bound, colour, label)``, bounds increasing (the first may be None:
    from minus infinity). Numbers below the first bound get no colour of their own (drawn as 'below')."""
    if isinstance(thresholds, (str, bytes, Mapping)) or not isinstance(thresholds, Sequence) or not thresholds:
        raise OverlayError(f"Invalid value of 'thresholds' for overlay {name!r}: {thresholds!r}. Expected a "
                           "non-empty list of (bound, colour) or (bound, colour, label)")
    out: list[Threshold] = []
    for k, t in enumerate(thresholds):
        where = f"thresholds[{k}]"
        if isinstance(t, Mapping):
            t = (t.get("bound"), t.get("color"), t.get("label"))
        if isinstance(t, (str, bytes)) or not isinstance(t, Sequence) or len(t) not in (2, 3):
            raise OverlayError(f"Invalid {where} of overlay {name!r}: {t!r}. Expected (bound, colour) or (bound, colour, label)")
        bound = None if t[0] is None and k == 0 else _number(t[0], where, name)
        if bound is not None and math.isnan(bound):
            raise OverlayError(f"Invalid {where} of overlay {name!r}: its bound is NaN (only the first bound may be "
                               "None, meaning from minus infinity)")
        if out and out[-1].bound is not None and not bound > out[-1].bound:
            raise OverlayError(f"Invalid {where} of overlay {name!r}: bound {bound} is not above the one before "
                               f"({out[-1].bound}); bounds must increase")
        color = _hex(t[1], where, name)
        label = t[2] if len(t) == 3 and t[2] is not None else ("below" if bound is None else f"≥ {bound:g}")
        if not isinstance(label, str):
            raise OverlayError(f"Invalid label in {where} of overlay {name!r}: {label!r}. Expected text")
        out.append(Threshold(bound, color, label))
    return tuple(out)


# -- resolving keys ---------------------------------------------------------------------------------

def _index_key(key, pattern: re.Pattern, sigil: str, kind: str, limit: int, name: str) -> int:
    if isinstance(key, (bool, np.bool_)):
        raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: expected {kind} index as an int or '{sigil}N'")
    if isinstance(key, (int, np.integer)):
        k = int(key)
    else:
        m = pattern.match(key.strip()) if isinstance(key, str) else None
        if not m:
            raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: expected {kind} index as an int or '{sigil}N'")
        k = int(m.group(1))
    if not 0 <= k < limit:
        span = f"{sigil}0–{sigil}{limit - 1}" if limit else "none"
        raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: no {kind} {sigil}{k} (the plan has {span})")
    return k


def _key_kind(key, by: str | None, name: str) -> str:
    if by is not None:
        return by
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return "instruction"
    if isinstance(key, str):
        s = key.strip()
        if _INSTR_KEY.match(s):
            return "instruction"
        if _VALUE_KEY.match(s):
            return "value"
        if s.startswith(("@", "%", "#")):
            raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: expected '@N' (instruction), '%N' "
                               "(value) or a module path such as 'layers.3'")
        return "module"
    raise OverlayError(f"Invalid key {key!r} of overlay {name!r} ({type(key).__name__}): expected an instruction "
                       "index (int or '@N'), a value '%N', or a module path (str); by='group' takes group ids")


def _outermost(groups, gids: list[int]) -> list[int]:
    """Of groups with one label, those not inside another of them."""
    G = groups.groups
    return [g for g in gids if not any(o != g and G[o].start <= G[g].start and G[g].stop <= G[o].stop
                                       and G[o].depth < G[g].depth for o in gids)]


def _module_ranges(groups, key, by: str, name: str) -> list[tuple[str, int, int, int]]:
    """``(label, start, stop, group id or -1)`` of each run a module or group key names: the outermost groups
    labelled so, else the runs of instructions in that scope (:meth:`.groups.Groups.scope_runs`: a module
    inside a leaf group, e.g. any module of a plan small enough to be one group)."""
    G = groups.groups
    if by == "group":
        gid = _module_groups(groups, key, by, name)[0]
        return [(G[gid].label, G[gid].start, G[gid].stop, gid)]
    if not isinstance(key, str):
        raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: by='module' takes module paths (str)")
    path = key.strip()
    if any(g.label == path for g in G):
        return [(G[g].label, G[g].start, G[g].stop, g) for g in _module_groups(groups, key, by, name)]
    runs = groups.scope_runs(path)
    if runs:
        by_range = {(g.start, g.stop): g.id for g in G}
        return [(path, s, t, by_range.get((s, t), -1)) for s, t in runs]
    return [(G[g].label, G[g].start, G[g].stop, g) for g in _module_groups(groups, key, by, name)]  # raises


def _module_groups(groups, key, by: str, name: str) -> list[int]:
    G = groups.groups
    if by == "group":
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
            raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: by='group' takes group ids (int)")
        if not 0 <= int(key) < len(G):
            raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: no group {int(key)} (ids 0–{len(G) - 1})")
        return [int(key)]
    if not isinstance(key, str):
        raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: by='module' takes module paths (str)")
    path = key.strip()
    found = [g.id for g in G if g.label == path]
    if not found:
        known = list(dict.fromkeys([g.label for g in G if g.kind == "prefix"] + groups.scope_names()))
        hint = (f"modules of this plan: {', '.join(known[:12])}{' …' if len(known) > 12 else ''}" if known else
                "this plan's groups have no module names (give instruction or value keys, or by='group' ids)")
        raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: no module or group labelled {path!r}; {hint}")
    return _outermost(groups, found)


def make_overlay(plan: Plan, name: str, values, *, by: str | None = None, groups=None, scale=None,
                 thresholds=None, aggregate: str = "sum", unit: str = "", fmt: str = "number",
                 builtin: bool = False, note: str = "") -> Overlay:
    """Resolve a user's numbers on ``plan`` (module docstring for the key forms and rules).

    ``values``: a mapping key -> number (a dict, a pandas Series: anything with ``items()``), or, with
    ``by="instruction"`` / ``by="value"``, a sequence of one number per instruction / value. ``by``: read
    every key as that kind (None: from each key's form). ``groups``: the plan's
    :class:`~.groups.Groups` (module and group keys resolve through it; built when needed and not given).
    """
    if not isinstance(name, str) or not name.strip():
        raise OverlayError(f"Invalid overlay name {name!r}: expected non-empty text")
    if by is not None:
        _choice("by", by, BY, name)
    aggregate = _choice("aggregate", aggregate, AGGREGATES, name)
    fmt = _choice("format", fmt, FORMATS, name)
    if not isinstance(unit, str):
        raise OverlayError(f"Invalid value of 'unit' for overlay {name!r}: {unit!r}. Expected text")
    if thresholds is not None and scale is not None:
        raise OverlayError(f"Overlay {name!r}: give 'scale' or 'thresholds', not both")
    ths = parse_thresholds(thresholds, name) if thresholds is not None else ()
    sc = None if ths else parse_scale(scale, name)
    m, n = len(plan.instructions), len(plan.values)
    instr = np.full(m, np.nan)
    value = np.full(n, np.nan)
    instr_from = np.full(m, -1, dtype=np.int64)
    modules: list[ModuleItem] = []
    if hasattr(values, "items") and callable(values.items):
        pairs = list(values.items())
    elif isinstance(values, (Sequence, np.ndarray)) and not isinstance(values, (str, bytes)):
        if by not in ("instruction", "value"):
            raise OverlayError(f"Invalid 'values' for overlay {name!r}: a sequence of numbers needs by='instruction' "
                               "or by='value' (one number per instruction / value); else give a dict key -> number")
        want = m if by == "instruction" else n
        if len(values) != want:
            raise OverlayError(f"Invalid 'values' for overlay {name!r}: {len(values)} numbers, but the plan has "
                               f"{want} {by}s")
        pairs = list(enumerate(values))
    else:
        raise OverlayError(f"Invalid 'values' for overlay {name!r}: {type(values).__name__}. Expected a dict "
                           "key -> number (or a sequence with by='instruction' / by='value')")
    tensor = None
    given_i: dict[int, object] = {}
    given_v: dict[int, object] = {}
    for key, x in pairs:
        kind = _key_kind(key, by, name)
        where = f"key {key!r}"
        if kind == "instruction":
            i = _index_key(key, _INSTR_KEY, "@", "instruction", m, name)
            if i in given_i:
                raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: instruction @{i} is given twice "
                                   f"(also as {given_i[i]!r})")
            given_i[i] = key
            instr[i] = _number(x, where, name)
        elif kind == "value":
            v = _index_key(key, _VALUE_KEY, "%", "value", n, name)
            if tensor is None:
                tensor = value_columns(plan).kind == 5
            if not tensor[v]:
                raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: value %{v} is not a tensor (only "
                                   "tensors are drawn)")
            if v in given_v:
                raise OverlayError(f"Invalid key {key!r} of overlay {name!r}: value %{v} is given twice "
                                   f"(also as {given_v[v]!r})")
            given_v[v] = key
            value[v] = _number(x, where, name)
        else:
            if groups is None:
                groups = _plan_groups(plan)
            groups.build_all()
            number = _number(x, where, name)
            for label, start, stop, gid in _module_ranges(groups, key, kind, name):
                if not math.isnan(number):
                    modules.append(ModuleItem(label, start, stop, number, gid))
    modules.sort(key=lambda mi: mi.start)
    for a, b in zip(modules, modules[1:]):
        if b.start < a.stop:
            raise OverlayError(f"Overlay {name!r}: modules {a.label!r} and {b.label!r} overlap (one holds the other); "
                               "give a number to one of them")
    for k, mi in enumerate(modules):
        inside = np.flatnonzero(~np.isnan(instr[mi.start:mi.stop]))
        if inside.size:
            i = mi.start + int(inside[0])
            raise OverlayError(f"Overlay {name!r}: instruction @{i} (key {given_i[i]!r}) is inside module {mi.label!r}, "
                               "which has its own number; give one or the other")
        instr[mi.start:mi.stop] = mi.number
        instr_from[mi.start:mi.stop] = k
    return Overlay(name, plan.name, instr, value, instr_from, tuple(modules), sc, ths, aggregate, unit, fmt,
                   builtin, note, len(pairs))


def _plan_groups(plan: Plan):
    f = Facts(plan)
    return Groups(plan, f, edges(plan, f))


# -- folded groups ----------------------------------------------------------------------------------

def group_aggregates(ov: Overlay, starts: np.ndarray, stops: np.ndarray, home: np.ndarray) -> GroupAggregate:
    """The number each group shows when folded (module docstring), for groups given as instruction ranges
    ``[starts[g], stops[g])``; ``home``: each value's home instruction (-1: none), as the groups place tensors."""
    starts = np.asarray(starts, dtype=np.int64)
    stops = np.asarray(stops, dtype=np.int64)
    ng = starts.size
    out = np.full(ng, np.nan)
    count = np.zeros(ng, dtype=np.int64)
    source = np.full(ng, -1, dtype=np.int64)
    s, t, x, mod = ov.items(np.asarray(home, dtype=np.int64))
    lo = np.searchsorted(s, starts, side="left")
    hi = np.searchsorted(s, stops, side="left")
    mstart = np.asarray([mi.start for mi in ov.modules], dtype=np.int64)
    mstop = np.asarray([mi.stop for mi in ov.modules], dtype=np.int64)
    for g in range(ng):
        a, b = int(lo[g]), int(hi[g])
        if b > a:
            keep = t[a:b] <= stops[g]
            xs = x[a:b][keep]
            if xs.size:
                count[g] = xs.size
                k = int(mod[a:b][keep][0])
                if xs.size == 1 and k >= 0 and ov.modules[k].start == starts[g] and ov.modules[k].stop == stops[g]:
                    source[g] = k  # the group is that module: its number, not a rule over one item
                out[g] = xs.sum() if ov.aggregate == "sum" else xs.max() if ov.aggregate == "max" else xs.mean()
                continue
        if mstart.size:  # nothing inside: a module holding the whole group lends it its number
            k = int(np.searchsorted(mstart, starts[g], side="right")) - 1
            if k >= 0 and mstop[k] >= stops[g] and stops[g] > starts[g]:
                out[g] = ov.modules[k].number
                source[g] = k
    return GroupAggregate(out, count, source)


# -- built-ins --------------------------------------------------------------------------------------

def builtin_overlays(plan: Plan, analysis=None, profile=None, numerics=None, comparison=None,
                     side: str = "a") -> dict[str, Overlay]:
    """The built-in overlays that have data on ``plan``, by name (:data:`BUILTINS` order).

    ``analysis``: a :class:`~.lazy.LazyAnalysis` of the plan (its arrays are reused; else computed);
    ``profile``: the plan's :class:`~.profile.PlanProfile` (``time`` needs it); ``numerics``: the plan's
    :class:`~explorer.model.numerics.PlanNumerics` (``output_range``); ``comparison``: its
    :class:`~explorer.model.numerics.PlanComparison` with another run (``gap``), this plan its A, or its B with
    ``side="b"`` (a diff's right side: each pair's gap on its B instruction)."""

    f = getattr(analysis, "facts", None)
    if f is None or not hasattr(analysis, "moving"):
        f = Facts(plan)
        e = edges(plan, f)
        first, last = lifetime_arrays(plan, f, e, aliases(plan, f, e))
        moving = transfer_arrays(f, e)
    else:
        first, last, moving = analysis.first, analysis.last, analysis.moving
    m, n = f.m, f.n
    none_from = np.full(m, -1, dtype=np.int64)
    out: dict[str, Overlay] = {}
    if profile is not None and profile.times.shape[1] == m and profile.times.shape[0]:
        t = profile.median * profile.tick_ns
        if (~np.isnan(t)).any():
            out["time"] = Overlay("time", plan.name, t.astype(np.float64), np.full(n, np.nan), none_from, (), Scale(),
                                  (), "sum", "", "time", True,
                                  f"median of {len(profile.runs)} run{'s' * (len(profile.runs) != 1)} (ETDump)")
    copy_rows = f.is_copy[moving["instr"]] if moving["instr"].size else np.zeros(0, dtype=bool)
    if copy_rows.any():
        moved = np.bincount(moving["instr"][copy_rows], weights=moving["nbytes"][copy_rows], minlength=m)[:m]
        has = np.zeros(m, dtype=bool)
        has[moving["instr"][copy_rows]] = True
        out["copy_bytes"] = Overlay("copy_bytes", plan.name, np.where(has, moved, np.nan), np.full(n, np.nan),
                                    none_from, (), Scale(), (), "sum", "", "bytes", True,
                                    "bytes each copy instruction moves (h2d, d2h, d2d)")
    tensors = f.is_tensor & (f.raw_nbytes >= 0)
    if tensors.any():
        out["size"] = Overlay("size", plan.name, np.full(m, np.nan), np.where(tensors, f.raw_nbytes, np.nan).astype(np.float64),
                              none_from, (), Scale(), (), "sum", "", "bytes", True, "bytes per tensor")
    alive = f.is_tensor & (first >= 0)
    if alive.any():
        out["lifetime"] = Overlay("lifetime", plan.name, np.full(m, np.nan),
                                  np.where(alive, last - first + 1, np.nan).astype(np.float64), none_from, (), Scale(),
                                  (), "max", "instructions", "count", True,
                                  "instructions a tensor stays alive, first to last use (inclusive)")
    out.update(_numeric_overlays(plan, m, n, numerics, comparison, side))
    return out


def _numeric_overlays(plan: Plan, m: int, n: int, numerics, comparison, side: str = "a") -> dict[str, Overlay]:
    out: dict[str, Overlay] = {}
    none_from = np.full(m, -1, dtype=np.int64)
    if numerics is not None:
        rng = np.full(m, np.nan)
        for ins in numerics.instructions:
            tops = [max(abs(o.stats.min), abs(o.stats.max)) for o in ins.outputs if o.stats.min is not None]
            if tops and ins.instruction < m:
                rng[ins.instruction] = max(tops)
        if (~np.isnan(rng)).any():
            # on a log scale: the ranges of one run span many orders of magnitude (an exp overflowing to 1e28 next to
            # activations of 1), and a linear scale would draw all but the largest in one colour
            out["output_range"] = Overlay("output_range", plan.name, rng, np.full(n, np.nan), none_from, (),
                                          Scale(log=True), (), "max", "", "number", True,
                                          "largest finite |value| each instruction produced (ETDump debug buffer; "
                                          "log scale)")
    if comparison is not None and comparison.pairs:
        g = np.full(m, np.nan)
        for p in comparison.pairs:
            rel = p.gap.relative
            if not p.gap.comparable or rel is None:
                continue
            v = max(rel, 1.0) if p.gap.nonfinite_mismatch else rel
            # A: its instruction and those a delegate of B holds; B: its instruction (several pairs: the largest)
            for i in ((p.a_instruction, *p.folded) if side == "a" else (p.b_instruction,)):
                if 0 <= i < m:
                    g[i] = v if np.isnan(g[i]) else max(g[i], v)
        if (~np.isnan(g)).any():
            vs = "B" if side == "a" else "A"
            out["gap"] = Overlay("gap", plan.name, g, np.full(n, np.nan), none_from, (), Scale(), (), "max", "", "number",
                                 True, f"gap vs {vs}: max|a-b| / max(1, max|a|) of each paired op (first divergence "
                                       f"above {comparison.first_divergence.tol:g})")
    return out
