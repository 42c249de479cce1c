"""Python's folding (``Overview``: what ``Explorer.expand``/``collapse``/``reveal`` do) on the shared table of
cases, ``tests/fixtures/shared/fold_cases.json``; the app's ``lod/expand.js`` is checked on the same rows by
``tests/js/fold.test.js``. The table's payload must be what Python sends today, so both sides read one plan."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import make_fold_cases  # noqa: E402

from explorer.views.payload.app import plan_entry  # noqa: E402
from explorer.views.payload.embed import to_json  # noqa: E402
from explorer.views.state.overview import Overview  # noqa: E402

TABLE = json.loads(make_fold_cases.OUT.read_text(encoding="utf-8"))
CASES = {c["name"]: c for c in TABLE["cases"]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_python_folds_as_the_table_says(name):
    case = CASES[name]
    view = make_fold_cases.view_of(case["program"], case["limit"])
    ov = Overview(view.plan, view.analysis, view.overview.groups, limit=case["limit"])
    for k, (step, want) in enumerate(zip(case["steps"], case["after"])):
        make_fold_cases.apply(ov, step)
        assert {"expanded": ov.expanded, "note": ov.note} == want, (k, step)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_table_holds_the_payload_python_sends(name):
    case = CASES[name]
    payload = json.loads(to_json(plan_entry(make_fold_cases.view_of(case["program"], case["limit"]), [], [])))
    payload["lod"]["limits"]["visible"] = case["limit"]
    assert payload == case["payload"]


def test_the_cases_reach_every_rule():
    """Expands that close others (a note), collapses, reveals that open groups and ones that need none."""
    steps = [s for c in CASES.values() for s in c["steps"]]
    notes = [a["note"] for c in CASES.values() for a in c["after"] if a["note"]]
    assert {s["op"] for s in steps} == {"collapse_all", "expand", "collapse", "reveal"} and len(notes) >= 10
