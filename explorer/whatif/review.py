"""The placement review of a what-if, and its time estimate (which says it is one).

:func:`review` pairs the original and the predicted program: the diff (:mod:`.diff`: what moved between
devices, copies added/removed with bytes, arenas per device, runtime needs before -> after) and the
findings of the checks on the predicted program. :func:`estimate` turns a profile of the *original*
into a predicted run time per device, under stated assumptions:

* an instruction that keeps its device keeps its measured median time;
* an instruction moved from device a to device b takes ``time * speedup[a] / speedup[b]`` (``speedup``
  is relative to the CPU, which is 1; a region made of moved kernels takes the sum of its kernels);
* every copy of the predicted program costs ``bytes / bandwidth`` of its direction (h2d, d2h; d2d uses
  the slower of the two), measured copies of the original keep their measured time in "before".

It is arithmetic on a measurement, not a measurement: caches, launch overheads, overlap of copies
and compute are not modelled, and the text and JSON say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from explorer.model.program import Device, Program
from explorer.analysis.transfers import transfer_kind
from explorer.analysis.diff.compare import diff
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.graph import is_copy
from explorer.analysis.pipeline import check
from explorer.analysis.transfers import transfer_arrays

__all__ = ["Review", "review", "estimate", "Estimate", "parse_speedups", "parse_bandwidths",
           "DEFAULT_BANDWIDTH"]

DEFAULT_BANDWIDTH = {"h2d": 12e9, "d2h": 12e9}  # bytes/s: a PCIe 4.0 x16 link's order of magnitude


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


_UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "ki": 1024, "mi": 1024 ** 2, "gi": 1024 ** 3}


def parse_bandwidths(text: str | dict | None) -> dict[str, float]:
    """``"h2d=12GB/s,d2h=12GB/s"`` -> {"h2d": 12e9, "d2h": 12e9} (bytes per second; defaults filled in)."""
    out = dict(DEFAULT_BANDWIDTH)
    if not text:
        return out
    items = text.items() if isinstance(text, dict) else (p.split("=", 1) for p in str(text).split(",") if p.strip())
    for key, value in items:
        key = str(key).strip().lower()
        if key not in ("h2d", "d2h"):
            raise ValueError(f"bandwidth {key}: expected h2d or d2h")
        if isinstance(value, (int, float)):
            rate = float(value)
        else:
            m = re.fullmatch(r"\s*([0-9.]+(?:e[0-9]+)?)\s*([kmgt]i?)?b/s\s*", str(value).lower())
            if not m:
                raise ValueError(f"bandwidth {key}={value}: expected e.g. 12GB/s")
            rate = float(m.group(1)) * _UNITS[m.group(2) or ""]
        if not rate > 0:
            raise ValueError(f"bandwidth {key}={value}: must be > 0")
        out[key] = rate
    return out


@dataclass(frozen=True)
class Estimate:
    """Predicted run time per device of one plan, seconds (median-based; see the module doc)."""
    plan: str
    before: dict[str, float]  # device (or "copies") -> seconds, measured
    after: dict[str, float]  # estimated
    speedups: dict[str, float]
    bandwidths: dict[str, float]
    assumptions: tuple[str, ...] = field(default=())

    @property
    def total_before(self) -> float:
        return sum(self.before.values())

    @property
    def total_after(self) -> float:
        return sum(self.after.values())

    def to_json(self) -> dict:
        return {"plan": self.plan, "estimate": True, "before_s": self.before, "after_s": self.after,
                "total_before_s": self.total_before, "total_after_s": self.total_after,
                "speedups": self.speedups, "bandwidths_bytes_per_s": self.bandwidths,
                "assumptions": list(self.assumptions)}

    def lines(self) -> list[str]:
        keys = list(dict.fromkeys([*self.before, *self.after]))
        out = [f"time ESTIMATE for plan {self.plan!r} (arithmetic on the measured profile, not a measurement):"]
        for k in keys:
            out.append(f"  {k:<8} {_ms(self.before.get(k, 0.0)):>12} -> {_ms(self.after.get(k, 0.0)):>12}")
        out.append(f"  {'total':<8} {_ms(self.total_before):>12} -> {_ms(self.total_after):>12}")
        out.append("  assumptions: " + "; ".join(self.assumptions))
        return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def estimate(original: Program, predicted: Program, profile, *, speedup=None, bandwidth=None) -> list[Estimate]:
    """Per re-derived plan with a joined profile (``profile``: :class:`~.profile.Profile` of ``original``),
    its :class:`Estimate` (module doc). ``speedup``/``bandwidth``: dicts or the CLI's text forms."""

    speeds = parse_speedups(speedup)
    rates = parse_bandwidths(bandwidth)
    pred = predicted.prediction
    out = []
    for name, origins in pred.origins.items():
        prof = profile.plans.get(name)
        if prof is None:
            continue
        a, b = original.plan(name), predicted.plan(name)
        tick = prof.tick_ns * 1e-9
        with np.errstate(all="ignore"):
            times = np.nanmedian(prof.times, axis=0) if prof.times.size else np.zeros(len(a.instructions))
        times = np.nan_to_num(times) * tick
        dev_a = _devices(a)
        before: dict[str, float] = {}
        for i, t in enumerate(times.tolist()):
            before[dev_a[i]] = before.get(dev_a[i], 0.0) + t
        dev_b = _devices(b)
        fb = Facts(b)
        tr = transfer_arrays(fb, edges(b, fb))
        copy_cost: dict[int, float] = {}
        for i, s, d, nb in zip(tr["instr"].tolist(), tr["src"].tolist(), tr["dst"].tolist(), tr["nbytes"].tolist()):
            kind = transfer_kind(fb.value_device(s), fb.value_device(d))
            rate = rates.get(kind, min(rates.values()))
            copy_cost[i] = copy_cost.get(i, 0.0) + nb / rate
        after: dict[str, float] = {}
        for i, (origin, dev) in enumerate(zip(origins, dev_b)):
            if dev == "copies":
                t = copy_cost.get(i, 0.0)
            else:
                t = 0.0
                for o in origin:
                    was = dev_a[o]
                    t += times[o] * _speed(speeds, was) / _speed(speeds, dev)
            after[dev] = after.get(dev, 0.0) + t
        assumptions = (
            "kept instructions keep their measured median time",
            "moved ones take time x speedup(from) / speedup(to), speedups " +
            (", ".join(f"{d}={f:g}" for d, f in speeds.items()) or "none given (all 1)") + " (cpu = 1)",
            "copies cost bytes / bandwidth: " + ", ".join(f"{k} {v / 1e9:g} GB/s" for k, v in rates.items()) +
            (" (defaults)" if not bandwidth else ""),
            "no overlap of copies and compute, no launch overhead")
        out.append(Estimate(name, before, after, {str(d): f for d, f in speeds.items()}, rates, assumptions))
    return out


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
