"""``device-explorer numerics --json``: a run's numbers per instruction and, with ``--against``, the comparison.

::

    {"format": "device-explorer/1", "file": "a.pte", "etdump": "a.etdp", "debug_buffer": "a.bin",
     "plans": [{"name": "forward", "run": 1, "runs": 1,
                "instructions": [{"instruction": 0, "name": "aten::addmm.out",
                                  "outputs": [{"dtype", "shape", "min", "max", "mean", "nan", "posinf", "neginf",
                                               "device", "value"}],
                                  "inputs": [...]}],           # a delegate call's logged inputs
                "program_outputs": [...],
                "compare": {...}}],                              # with --against: this plan's comparison
     "findings": [{"code": "numerics-nonfinite", ...}],
     "against": {"file", "etdump", "debug_buffer", "plans": [...], "findings": [...]},
     "compare": {"plan": "forward", "tol": 1e-4, "pairing": "debug_handle", "notes": [...],
                 "output_gap": {"max_abs", "mse", "l1", "cosine", "snr_db", "nonfinite_mismatch", "relative"},
                 "first_divergence": {"tol", "a_instruction", "b_instruction", "relative"},
                 "pairs": [{"a_instruction", "b_instruction", "by", "a_device", "b_device", "folded", ...gap}]}}

min/max/mean are over the finite values (null when none); an SNR of identical tensors is ``"inf"``. The top-level
``compare`` is the comparison of the plan ``--plan`` names, else ``forward``, else the first plan both runs have.
"""

from __future__ import annotations

import os

from explorer.model.numerics import LoggedOutput, Numerics, PlanNumerics
from explorer.analysis.numerics.load import NumericsReport

__all__ = ["numerics_json", "FORMAT"]

FORMAT = "device-explorer/1"


def _out(o: LoggedOutput) -> dict:
    return o.stats.to_json() | {"device": o.device, "value": o.value}


def _plan(p: PlanNumerics) -> dict:
    return {"name": p.plan, "run": p.run, "runs": p.runs,
            "instructions": [{"instruction": i.instruction, "name": i.name, "outputs": [_out(o) for o in i.outputs],
                              **({"inputs": [_out(o) for o in i.inputs]} if i.inputs else {})}
                             for i in p.instructions],
            "program_outputs": [_out(o) for o in p.outputs]}


def _base(path: str | None) -> str | None:
    return os.path.basename(path) if path else None


def _side(n: Numerics, name: str | None, plan: str | None) -> dict:
    return {"file": _base(name), "etdump": _base(n.etdump), "debug_buffer": _base(n.debug_buffer),
            "plans": [_plan(p) for k, p in n.plans.items() if plan is None or k == plan],
            "findings": [f.to_json() for f in n.findings if plan is None or f.plan in ("", plan)]}


def numerics_json(report: NumericsReport, plan: str | None = None) -> dict:
    doc = {"format": FORMAT, **_side(report.a.numerics, report.a.name, plan)}
    cmp = report.comparison
    if report.b is not None and cmp is not None:
        doc["against"] = _side(report.b.numerics, report.b.name, plan)
        for entry in doc["plans"]:
            pc = cmp.plan(entry["name"])
            if pc is not None:
                entry["compare"] = pc.to_json()
        names = list(cmp.plans)
        pick = plan if plan in cmp.plans else ("forward" if "forward" in cmp.plans else (names[0] if names else None))
        doc["compare"] = {"plan": pick, "tol": cmp.tol, **cmp.plans[pick].to_json()} if pick is not None else None
    return doc
