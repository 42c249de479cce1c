"""Write ``tests/fixtures/shared/fold_cases.json``: the one table both folding implementations are checked on.

Which groups of a plan's graph are open is kept twice, on purpose: by Python (``explorer.views.state.overview``
``Overview``: ``Explorer.expand``/``collapse``/``reveal`` work with no browser) and by the app
(``explorer/frontend/lod/expand.js``: a report folds with no kernel). This table holds, per case, a plan's payload
as the app receives it, a list of clicks (collapse all, expand, collapse, reveal) and the open groups and note
after each, so each side is checked against the same rows on its own (``tests/test_fold_cases.py``,
``tests/js/fold.test.js``). The visible-node limit of each case is small, so that opening a group closes
others on plans small enough to keep the file short.

The rows are what Python's ``Overview`` does today; ``--check`` compares the committed table with a fresh one.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from lod_helpers import llm_builder  # noqa: E402

from explorer import load  # noqa: E402
from explorer.views.payload.app import plan_entry  # noqa: E402
from explorer.views.payload.embed import to_json  # noqa: E402
from explorer.views.state.overview import Overview, visible_nodes  # noqa: E402
from explorer.views.state.plan import plan_view  # noqa: E402
from writers.pte import write  # noqa: E402
from writers.synth import synthetic_program  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "shared" / "fold_cases.json"

# name -> (how the program is made, the visible-node limit, clicks, seed)
CASES = {
    "chain_with_copies": ({"synthetic": {"values": 800}}, 300, 16, 1),
    "layers": ({"llm": {"layers": 16}}, 80, 40, 2),
    "at_the_limit": ({"llm": {"layers": 16}}, None, 0, 0),  # the limit and the clicks: at_the_limit
}


def program(spec: dict):
    """The case's program, made again the same way by the script and by the Python test."""
    if "synthetic" in spec:
        return load(write(synthetic_program(**spec["synthetic"])))
    return load(write(llm_builder(**spec["llm"]).program()))


def view_of(spec: dict, limit: int | None):
    plan = program(spec).plans[0]
    view = plan_view(plan)
    if limit is not None:
        view.overview.limit = limit
    return view


def apply(ov: Overview, step: dict) -> None:
    """One click, as ``Explorer`` does it (and the app: tests/js/fold.test.js)."""
    op = step["op"]
    if op == "collapse_all":
        ov.collapse_all()
    elif op == "expand":
        ov.expand(step["group"])
    elif op == "collapse":
        ov.collapse(step["group"])
    else:
        ov.reveal(step.get("values", ()), step.get("instructions", ()))


def clicks(view, n: int, seed: int) -> list[dict]:
    """A seeded walk: collapse all, then expands at every depth, collapses of open groups and reveals of values
    and instructions folded away."""
    rng = random.Random(seed)
    ov = Overview(view.plan, view.analysis, view.overview.groups, limit=view.overview.limit)
    G = ov.groups
    G.build_all()
    ids = list(range(1, len(G.groups)))
    steps: list[dict] = [{"op": "collapse_all"}]
    apply(ov, steps[0])
    for _ in range(n):
        r = rng.random()
        if r < 0.55 or not ov.expanded:
            step = {"op": "expand", "group": rng.choice(ids)}
        elif r < 0.75:
            step = {"op": "collapse", "group": rng.choice(ov.expanded)}
        elif r < 0.9:
            step = {"op": "reveal", "values": [rng.randrange(len(view.plan.values)) for _ in range(rng.randint(1, 6))]}
        else:
            step = {"op": "reveal", "instructions": [rng.randrange(len(view.plan.instructions))]}
        apply(ov, step)
        steps.append(step)
    return steps


def at_the_limit(spec: dict) -> tuple[int, list[dict]]:
    """A limit equal to what one group opened beside a deep one draws: the deep one opens with nothing closed
    (the limit is "at most", not "fewer than"), and the next expand closes the oldest group off its path."""
    view = view_of(spec, 10**9)
    G = view.overview.groups
    G.build_all()
    deep = max(range(1, len(G.groups)), key=lambda g: (G.groups[g].depth, -g))
    path = [q for q in G.path(G.groups[deep].start) if G.groups[q].depth <= G.groups[deep].depth]
    beside = next(g for g in G.children(0) if g not in path)
    other = next(g for g in G.children(0) if g not in path and g != beside)
    return visible_nodes(G, set(path) | {beside}), [
        {"op": "collapse_all"}, {"op": "expand", "group": beside}, {"op": "expand", "group": deep},
        {"op": "expand", "group": other}]


def table() -> dict:
    cases = []
    for name, (spec, limit, n, seed) in CASES.items():
        view = view_of(spec, limit)
        steps = clicks(view, n, seed)
        if limit is None:
            limit, steps = at_the_limit(spec)
            view = view_of(spec, limit)
        ov = Overview(view.plan, view.analysis, view.overview.groups, limit=limit)
        after = []
        for step in steps:
            apply(ov, step)
            after.append({"expanded": list(ov.expanded), "note": ov.note})
        payload = json.loads(to_json(plan_entry(view, [], [])))
        payload["lod"]["limits"]["visible"] = limit
        cases.append({"name": name, "program": spec, "limit": limit, "steps": steps, "after": after,
                      "payload": payload})
    return {"about": __doc__.split("\n\n")[0], "cases": cases}


def text() -> str:
    return json.dumps(table(), separators=(",", ":"), sort_keys=True) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed table instead of writing")
    args = parser.parse_args(argv)
    fresh = text()
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == fresh
        print(f"{OUT.relative_to(ROOT)}: {'same' if same else 'DIFFERS'}")
        return 0 if same else 1
    OUT.write_text(fresh, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(fresh):,} bytes, {sum(len(c['steps']) for c in table()['cases'])} clicks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
