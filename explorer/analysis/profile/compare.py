"""Two profiles side by side: what got faster or slower, per paired instruction and per device.

Profile A belongs to program A, profile B to program B (the same file twice to compare two runs of
one program). Instructions are paired through the diff's tensor matching (:mod:`.match`): instruction
*i* of A and *j* of B are a pair when the first tensor *i* writes is paired with a tensor *j* writes —
so ``aten::add.out`` on the CPU pairs with the device delegate that now computes the same sum. An
instruction with no counterpart is listed as only-A / only-B with its time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.model.program import Plan, Program
from explorer.analysis.diff.compare import PlanDiff, ProgramDiff
from explorer.analysis.facts import Facts
from explorer.analysis.graph import dataflow, edges
from explorer.analysis.profile.join import PlanProfile, Profile, _num

__all__ = ["InstructionDelta", "DeviceDelta", "ProfileDiff", "profile_diff", "profile_diffs", "pair_instructions"]


@dataclass(frozen=True)
class InstructionDelta:
    a: int | None  # instruction of A (None: only in B)
    b: int | None
    label: str
    a_median: float  # NaN when that side has no time for it
    b_median: float

    @property
    def delta(self) -> float:
        return (0.0 if np.isnan(self.b_median) else self.b_median) - (0.0 if np.isnan(self.a_median) else self.a_median)

    @property
    def ratio(self) -> float:
        return self.b_median / self.a_median if self.a_median and self.a_median > 0 else float("nan")

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "label": self.label, "a_median": _num(self.a_median),
                "b_median": _num(self.b_median), "delta": _num(self.delta), "ratio": _num(self.ratio)}


@dataclass(frozen=True)
class DeviceDelta:
    device: str
    a: float  # median per-run total on that device (NaN: none)
    b: float

    def to_json(self) -> dict:
        return {"device": self.device, "a": _num(self.a), "b": _num(self.b),
                "delta": _num((0 if np.isnan(self.b) else self.b) - (0 if np.isnan(self.a) else self.a))}


@dataclass(frozen=True)
class ProfileDiff:
    plan: str
    run_a: float
    run_b: float
    instructions: tuple[InstructionDelta, ...]  # largest |delta| first
    devices: tuple[DeviceDelta, ...]

    def to_json(self) -> dict:
        return {"plan": self.plan, "run": {"a": _num(self.run_a), "b": _num(self.run_b)},
                "instructions": [d.to_json() for d in self.instructions],
                "devices": [d.to_json() for d in self.devices]}


def pair_instructions(pa: Plan, pb: Plan, value_pairs: dict[int, int]) -> dict[int, int]:
    """A instruction -> B instruction, through the tensors they write (see the module doc)."""
    fa, fb = dataflow(pa, edges(pa, Facts(pa))), dataflow(pb, edges(pb, Facts(pb)))
    producer_b: dict[int, int] = {}
    for j, writes in enumerate(fb.writes):
        for v in writes:
            producer_b.setdefault(v, j)
    out: dict[int, int] = {}
    taken: set[int] = set()
    for i, writes in enumerate(fa.writes):
        for v in writes:
            j = producer_b.get(value_pairs.get(v, -1))
            if j is not None and j not in taken:
                out[i] = j
                taken.add(j)
                break
    if pa is pb or (not value_pairs and len(pa.instructions) == len(pb.instructions)):
        out = {i: i for i in range(len(pa.instructions))}
    return out


def profile_diff(pa: Plan, pb: Plan, prof_a: PlanProfile, prof_b: PlanProfile,
                 plan_diff: PlanDiff | None) -> ProfileDiff:
    """Compare two joined profiles of paired plans (``plan_diff`` from :func:`~.diff.diff`)."""
    pairs = pair_instructions(pa, pb, plan_diff.pairs if plan_diff is not None else {})
    ma, mb = prof_a.median, prof_b.median
    rows = []
    seen_b = set(pairs.values())
    for i in range(len(pa.instructions)):
        j = pairs.get(i)
        a_t = float(ma[i])
        b_t = float(mb[j]) if j is not None else float("nan")
        if np.isnan(a_t) and np.isnan(b_t):
            continue
        label = pa.instructions[i].label
        if j is not None and pb.instructions[j].label != label:
            label = f"{label} -> {pb.instructions[j].label}"
        rows.append(InstructionDelta(i, j, label, a_t, b_t))
    for j in range(len(pb.instructions)):
        if j not in seen_b and not np.isnan(mb[j]):
            rows.append(InstructionDelta(None, j, pb.instructions[j].label, float("nan"), float(mb[j])))
    rows.sort(key=lambda d: (-abs(d.delta), d.a if d.a is not None else 1 << 30, d.b or 0))
    da = {d.device: d.stat.median for d in prof_a.devices}
    db = {d.device: d.stat.median for d in prof_b.devices}
    names = list(dict.fromkeys([*da, *db]))
    devices = tuple(DeviceDelta(n, da.get(n, float("nan")), db.get(n, float("nan"))) for n in names)
    return ProfileDiff(pa.name, prof_a.run.median, prof_b.run.median, tuple(rows), devices)


def profile_diffs(a: Program, b: Program, result: ProgramDiff, prof_a: Profile, prof_b: Profile) -> list[ProfileDiff]:
    """One :class:`ProfileDiff` per plan the diff pairs and both profiles have runs of."""
    out = []
    for pd in result.plans:
        xa, xb = prof_a.plans.get(pd.plan), prof_b.plans.get(pd.plan)
        if xa is not None and xb is not None:
            out.append(profile_diff(a.plan(pd.plan), b.plan(pd.plan), xa, xb, pd))
    return out
