"""The placement review of a what-if, and its time estimate (which says it is one).

:func:`review` pairs the original and the predicted program: the diff (:mod:`.diff`: what moved between
devices, copies added/removed with bytes, arenas per device, runtime needs before -> after) and the
findings of the checks on the predicted program. :func:`estimate` gives per re-derived plan what the
predicted copies cost per run, from a cost model (:mod:`explorer.whatif.costs`: measured latency + bandwidth
per direction and host-memory kind; the built-in one measured on an H200) — no profile needed. With a profile of
the *original* it also predicts the run time per device, under stated assumptions:

* an instruction that keeps its device keeps its measured median time;
* an instruction moved from device a to device b takes ``time * speedup[a] / speedup[b]`` (``speedup``
  is the user's assumption, relative to the CPU, which is 1; a region made of moved kernels takes the sum of its
  kernels), and each kernel it runs on a device pays the model's launch cost;
* every copy of the predicted program costs what the cost model says for its direction and size; measured
  copies of the original keep their measured time in "before".

It is arithmetic on a measurement and a cost table, not a measurement: caches and overlap of copies and compute
are not modelled, and the text and JSON say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from explorer.model.program import Device, Program
from explorer.analysis.diff.compare import diff
from explorer.analysis.graph import D2H_OPS, H2D_OPS, is_copy
from explorer.analysis.pipeline import check
from explorer.units import nbytes_text
from explorer.whatif.costs import CostModel, load_costs

__all__ = ["Review", "review", "estimate", "Estimate", "parse_speedups", "copy_times"]


@dataclass(frozen=True)
class Review:
    original: Program
    predicted: Program
    diff: object  # explorer.analysis.diff.compare.ProgramDiff
    findings: tuple  # Finding on the predicted program

    def to_json(self) -> dict:
        return {"moves": [{"selector": s, "device": d} for s, d in self.predicted.prediction.moves],
                "diff": self.diff.to_json()}


def review(original: Program, predicted: Program) -> Review:
    """Diff and findings of a prediction (:func:`explorer.what_if`'s result) against its original."""
    if predicted.prediction is None:
        raise ValueError("review() takes the program explorer.what_if returned")
    return Review(original, predicted, diff(original, predicted), tuple(check(predicted)))


def parse_speedups(text: str | dict | None) -> dict[Device, float]:
    """``"cuda:0=8,cuda:1=4"`` or ``{"cuda:0": 8}`` -> {Device: factor} (the CPU is 1)."""
    if not text:
        return {}
    items = text.items() if isinstance(text, dict) else (p.split("=", 1) for p in str(text).split(",") if p.strip())
    out = {}
    for key, value in items:
        try:
            factor = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"speedup {key}={value}: expected a number, e.g. cuda:0=8") from None
        if not factor > 0:
            raise ValueError(f"speedup {key}={value}: must be > 0")
        out[Device.parse(str(key).strip())] = factor
    return out


def copy_times(plan, costs: CostModel) -> dict[str, dict]:
    """Per direction (h2d, d2h) of ``plan``'s ``et_copy`` copies: count, bytes and seconds per run by ``costs``
    (a copy of a dynamic tensor counts at its upper bound)."""
    out = {d: {"count": 0, "bytes": 0, "seconds": 0.0} for d in ("h2d", "d2h")}
    values = plan.values
    for ins in plan.instructions:
        if not is_copy(ins) or not ins.args:
            continue
        base = (ins.op or "").split(".", 1)[0]
        direction = "h2d" if base in H2D_OPS else "d2h" if base in D2H_OPS else None
        src, dst = ins.args[0], ins.args[-1]
        if direction is None or not (0 <= src < len(values) and 0 <= dst < len(values)):
            continue
        nbytes = getattr(values[src], "nbytes", None) or 0
        device = values[dst].device if direction == "h2d" else values[src].device
        row = out[direction]
        row["count"] += 1
        row["bytes"] += nbytes
        row["seconds"] += costs.copy_s(direction, nbytes, device if not device.is_cpu else "cuda")
    return out


@dataclass(frozen=True)
class Estimate:
    """One plan's estimate: what its predicted copies cost per run (always), and with a profile of the original
    the run time per device before -> after (seconds, median-based; module doc)."""
    plan: str
    copies: dict  # "h2d" / "d2h" -> {"count", "bytes", "seconds"}
    cost_model: str
    cost_source: str
    before: dict | None = None  # device (or "copies") -> seconds, measured (None: no profile)
    after: dict | None = None  # estimated
    speedups: dict = field(default_factory=dict)
    assumptions: tuple[str, ...] = field(default=())

    @property
    def copy_s(self) -> float:
        return sum(c["seconds"] for c in self.copies.values())

    @property
    def total_before(self) -> float:
        return sum((self.before or {}).values())

    @property
    def total_after(self) -> float:
        return sum((self.after or {}).values())

    @property
    def slower(self) -> bool:
        """Whether the estimate says the placement makes the run slower (needs a profile)."""
        return bool(self.before is not None and self.total_after > self.total_before)

    def to_json(self) -> dict:
        doc: dict = {"plan": self.plan, "estimate": True, "cost_model": self.cost_model,
                     "cost_model_source": self.cost_source,
                     "copy_s": {**{d: c["seconds"] for d, c in self.copies.items()}, "total": self.copy_s},
                     "copies": {d: {"count": c["count"], "bytes": c["bytes"]} for d, c in self.copies.items()}}
        if self.before is not None:
            doc.update(before_s=self.before, after_s=self.after, total_before_s=self.total_before,
                       total_after_s=self.total_after, slower=self.slower, speedups=self.speedups)
        doc["assumptions"] = list(self.assumptions)
        return doc

    def lines(self) -> list[str]:
        parts = [f"{d} {c['count']} x, {nbytes_text(c['bytes'])}: {_ms(c['seconds'])}"
                 for d, c in self.copies.items() if c["count"]]
        out = [f"copies per run, plan {self.plan!r} (ESTIMATE from the cost model {self.cost_model!r}): "
               + ("; ".join(parts) + f"; total {_ms(self.copy_s)}" if parts else "none")]
        if self.before is not None and self.after is not None:
            keys = list(dict.fromkeys([*self.before, *self.after]))
            out.append(f"time ESTIMATE for plan {self.plan!r} (arithmetic on the measured profile, not a measurement):")
            for k in keys:
                out.append(f"  {k:<8} {_ms(self.before.get(k, 0.0)):>12} -> {_ms(self.after.get(k, 0.0)):>12}")
            out.append(f"  {'total':<8} {_ms(self.total_before):>12} -> {_ms(self.total_after):>12}")
            if self.slower:
                out.append(f"  moving makes this run SLOWER by this estimate: {_ms(self.total_before)} -> "
                           f"{_ms(self.total_after)}, the copies alone {_ms(self.after.get('copies', 0.0))} per run")
        out.append("  assumptions: " + "; ".join(self.assumptions))
        return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def estimate(original: Program, predicted: Program, profile=None, *, speedup=None, costs=None) -> list[Estimate]:
    """Per re-derived plan, its :class:`Estimate` (module doc): the predicted copies' cost per run from ``costs``
    (a :class:`~explorer.whatif.costs.CostModel`, its JSON form or a file; ``None``: the built-in H200 model),
    and with ``profile`` (a :class:`~.profile.Profile` of ``original``) the run time before -> after.
    ``speedup``: a dict or the CLI's text form, the user's assumption."""

    model = load_costs(costs)
    speeds = parse_speedups(speedup)
    pred = predicted.prediction
    if pred is None:
        raise ValueError("estimate() takes the program explorer.what_if returned")
    out = []
    copy_words = (f"copies cost the cost model's latency + bytes / bandwidth for their direction and size "
                  f"({model.name}: {model.source}; {model.host_memory} host memory)")
    for name, origins in pred.origins.items():
        b = predicted.plan(name)
        copies = copy_times(b, model)
        prof = profile.plans.get(name) if profile is not None else None
        if prof is None:
            out.append(Estimate(name, copies, model.name, model.source, assumptions=(
                copy_words, "synchronous copies, one after the other (no overlap with compute)")))
            continue
        a = original.plan(name)
        tick = prof.tick_ns * 1e-9
        with np.errstate(all="ignore"):
            times = np.nanmedian(prof.times, axis=0) if prof.times.size else np.zeros(len(a.instructions))
        times = np.nan_to_num(times) * tick
        dev_a = _devices(a)
        before: dict[str, float] = {}
        for i, t in enumerate(times.tolist()):
            before[dev_a[i]] = before.get(dev_a[i], 0.0) + t
        dev_b = _devices(b)
        after: dict[str, float] = {}
        for i, (origin, dev) in enumerate(zip(origins, dev_b)):
            ins = b.instructions[i]
            if dev == "copies":
                t = _one_copy(b, ins, model)
            else:
                t = float(sum(times[o] * _speed(speeds, dev_a[o]) / _speed(speeds, dev) for o in origin))
                if dev not in ("cpu", "other"):
                    t += model.launch_s(dev) * max(1, len(origin))
            after[dev] = after.get(dev, 0.0) + t
        assumptions = (
            "kept instructions keep their measured median time",
            "moved ones take time x speedup(from) / speedup(to), speedups " +
            (", ".join(f"{d}={f:g}" for d, f in speeds.items()) or "none given (all 1)") +
            " (cpu = 1; the speedup is your assumption, not a measurement)",
            "each kernel run on a device pays the cost model's launch cost",
            copy_words, "no overlap of copies and compute")
        out.append(Estimate(name, copies, model.name, model.source, before, after,
                            {str(d): f for d, f in speeds.items()}, assumptions))
    return out


def _one_copy(plan, ins, model: CostModel) -> float:
    one = copy_times(replace(plan, instructions=(ins,)), model)
    return sum(c["seconds"] for c in one.values())


def _speed(speeds: dict[Device, float], device: str) -> float:
    if device in ("cpu", "copies", "other"):
        return 1.0
    try:
        return speeds.get(Device.parse(device), 1.0)
    except ValueError:
        return 1.0


def _devices(plan) -> list[str]:
    """Where each instruction's time counts: a delegate's target device, ``copies`` for copies, else cpu."""
    out = []
    for ins in plan.instructions:
        if is_copy(ins):
            out.append("copies")
        elif ins.kind == "DelegateCall" and ins.delegate_index is not None and \
                0 <= ins.delegate_index < len(plan.delegates) and plan.delegates[ins.delegate_index].target_device:
            out.append(str(plan.delegates[ins.delegate_index].target_device))
        else:
            out.append("cpu")
    return out
