"""A joined profile as the browser app draws it (``P.profile`` of a plan's payload; ``frontend/profile/profile.js``).

Only numbers and labels the app needs, compact: per instruction the median / min / max / n over the
runs (``null`` where the instruction never ran), each run's time per instruction (for the details
panel's per-run bars; left out, and said so, past ``PER_RUN_LIMIT`` numbers), the device buckets with
their colours (the same palette as the graph and memory map; copies and "other" in neutral greys), copies
per direction, and the run time. Times stay in the dump's ticks; ``tickNs`` says how many nanoseconds a
tick is (1: executorch's CPU runtime).
"""

from __future__ import annotations

import math

import numpy as np

from explorer.analysis.profile.join import PlanProfile
from explorer.model.program import Device
from explorer.views.palette import device_color
from explorer.analysis.profile.compare import profile_diff
from explorer.analysis.profile.join import Profile
from explorer.analysis.profile.join import join_profile
from explorer.format.companions.etdump import load_etdump
from explorer.model.profile import ETDump
import os

__all__ = ["profile_payload", "open_profile", "attach_profile", "attach_profile_pair", "bucket_color", "PER_RUN_LIMIT", "COPIES_COLOR", "OTHER_COLOR"]

PER_RUN_LIMIT = 400_000  # runs x instructions sent for the per-run bars
COPIES_COLOR = "#57606A"  # host<->device copies: dark grey (no device owns them)
OTHER_COLOR = "#C9D1D9"  # instructions with no single device


def bucket_color(name: str) -> str:
    if name == "copies":
        return COPIES_COLOR
    if name == "other":
        return OTHER_COLOR
    try:
        return device_color(Device.parse(name))
    except ValueError:
        return OTHER_COLOR


def _list(a: np.ndarray) -> list:
    return [None if not math.isfinite(x) else (int(x) if float(x).is_integer() else round(float(x), 3))
            for x in a.tolist()]


def _stat(s) -> dict:
    return {"median": _list(np.array([s.median]))[0], "min": _list(np.array([s.min]))[0],
            "max": _list(np.array([s.max]))[0], "n": s.n}


def profile_payload(pp: PlanProfile, name: str | None = None) -> dict:
    """The plan's profile for the app (see the module doc)."""
    stats = pp.stats
    R, m = pp.times.shape
    per_run = None
    if R * m <= PER_RUN_LIMIT:
        per_run = [_list(row) for row in pp.times]
    return {
        "file": name,
        "runs": R,
        "runIndex": list(pp.runs),
        "unit": "ticks",
        "tickNs": pp.tick_ns,
        "run": _stat(pp.run),
        "median": _list(np.array([s.median for s in stats], dtype=float)),
        "min": _list(np.array([s.min for s in stats], dtype=float)),
        "max": _list(np.array([s.max for s in stats], dtype=float)),
        "n": [s.n for s in stats],
        "perRun": per_run,
        "bucket": list(pp.instruction_device),
        "devices": [{"name": d.device, "color": bucket_color(d.device), **_stat(d.stat),
                     "share": None if not math.isfinite(d.share) else round(d.share, 4),
                     "instructions": d.instructions} for d in pp.devices],
        "copies": [{"direction": c.direction, "count": c.count, "bytes": c.nbytes, **_stat(c.stat),
                    "bytesPerS": None if not math.isfinite(c.bytes_per_s) else round(c.bytes_per_s, 1)}
                   for c in pp.copies],
        "top": [i for i, _ in pp.top(10)],
        "nodes": [{"instruction": d.instruction, "id": str(d.debug_id), **_stat(d.stat),
                   "node": (f"node {d.node[1]} {d.node[2]}" if isinstance(d.node, tuple) and len(d.node) == 4
                            else None if d.node is None else str(d.node))} for d in pp.delegate_nodes],
    }


def open_profile(program, profile, *, method: str | None = None):
    """``profile`` as a joined :class:`~explorer.analysis.profile.join.Profile`: a path or bytes of an ETDump, an
    already loaded ETDump, or a Profile (returned as is); None stays None. Raises PteFormatError for a bad
    dump and ProfileMismatch when it does not fit ``program``."""

    if profile is None or isinstance(profile, Profile):
        return profile
    dump = profile if isinstance(profile, ETDump) else load_etdump(profile)
    return join_profile(program, dump, method=method)


def attach_profile(payload: dict, profile) -> dict:
    """Give every plan of an app payload its ``profile`` (plans without runs get none)."""
    name = os.path.basename(profile.source) if profile.source else None
    for p in payload.get("plans", []):
        pp = profile.plans.get(p["name"])
        if pp is not None:
            p["profile"] = profile_payload(pp, name)
    payload["profileFindings"] = [f.message for f in profile.findings]
    return payload


def attach_profile_pair(payload: dict, views: dict, profiles) -> dict:
    """Give every plan of a diff payload both sides' profiles (``P.profiles = {a, b}``) and their comparison
    per paired instruction and per device (``P.profileDiff``), where both profiles have runs of the plan.
    ``views``: plan name -> DiffPlanView; ``profiles``: (Profile of A, Profile of B)."""


    pa, pb = profiles
    for p in payload.get("plans", []):
        xa, xb, dv = pa.plans.get(p["name"]), pb.plans.get(p["name"]), views.get(p["name"])
        if xa is None or xb is None or dv is None:
            continue
        p["profiles"] = {"a": profile_payload(xa, os.path.basename(pa.source) if pa.source else None),
                         "b": profile_payload(xb, os.path.basename(pb.source) if pb.source else None)}
        p["profileDiff"] = profile_diff(dv.a.plan, dv.b.plan, xa, xb, dv.diff).to_json()
    return payload
