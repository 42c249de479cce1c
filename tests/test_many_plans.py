"""Thousands of small plans within the budget, each answer the same as before (issue 30's 3,500-plan case).

* The program reader decodes the values and instructions of every plan in one columnar pass
  (``format/pte/decode.py`` ``_plans_together``): the model it makes is the one plan-by-plan decoding makes, object
  for object and column for column; a damaged file raises the very error (message, offset, path) plan-by-plan
  decoding raises; a plan listed twice is charged twice against the aliasing budget, as before.
* ``np.unique`` / ``np.isin`` without their fixed cost (``analysis/arrays.py``) answer what numpy answers.
* A plan's findings are computed when first read (``inspect`` prints none) and are the checks' own.
* A report draws at most ``PLANS_DRAWN`` plans (the first ones, and the ones it opens on) and says how many more it
  leaves out; a program with fewer is drawn whole, its payload unchanged; the widget draws every plan.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import random
from pathlib import Path

import numpy as np
import pytest

import explorer
from explorer.analysis.arrays import isin, unique, unique_rows
from explorer.analysis.checks.placement import plan_findings
from explorer.analysis.pipeline import LazyAnalysis, check
from explorer.errors import PteFormatError
from explorer.format.pte import decode as D
from explorer.model.columns import instruction_columns, tensor_layout, tensor_text, value_columns
from explorer.views.payload.app import PLANS_DRAWN, app_payload
from writers.pte import write
from writers.synth import synthetic_program

FIX = Path(__file__).parent / "fixtures"
MULTI = sorted(p for p in FIX.rglob("*.pte") if p.parent.name != "crashes")


def _one_by_one(source):
    """``explorer.load`` with every plan decoded on its own (the reading the batched pass must equal)."""
    orig = D._plans_together
    D._plans_together = lambda r, g, positions: None
    try:
        return explorer.load(source)
    finally:
        D._plans_together = orig


def _outcome(load, source):
    try:
        return load(source)
    except PteFormatError as exc:
        return exc


def _assert_same_plans(a, b) -> None:
    assert len(a.plans) == len(b.plans)
    for pa, pb in zip(a.plans, b.plans):
        assert pa == pb and tuple(pa.values) == tuple(pb.values) and tuple(pa.instructions) == tuple(pb.instructions)
        for cols_a, cols_b in ((value_columns(pa), value_columns(pb)), (instruction_columns(pa), instruction_columns(pb))):
            for f in dataclasses.fields(cols_a):
                x, y = getattr(cols_a, f.name), getattr(cols_b, f.name)
                if isinstance(x, np.ndarray):
                    assert x.dtype == y.dtype and np.array_equal(x, y), f.name
                elif f.name == "traces":
                    assert list(x) == list(y)
        tensors = np.flatnonzero(value_columns(pa).kind == 5)
        assert tensor_text(pa, tensors) == tensor_text(pb, tensors)
        la, lb = tensor_layout(pa, tensors), tensor_layout(pb, tensors)
        assert all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(la, lb))


def test_the_batched_decode_makes_the_model_plan_by_plan_decoding_makes():
    data = write(synthetic_program(20, plans=40))
    _assert_same_plans(explorer.load(data), _one_by_one(data))
    several = [p for p in MULTI if len(explorer.load(p).plans) > 1]
    assert len(several) >= 8
    for path in several:
        _assert_same_plans(explorer.load(path), _one_by_one(path))


def test_a_damaged_many_plan_file_raises_what_plan_by_plan_decoding_raises():
    seeds = [write(synthetic_program(20, plans=4)), write(synthetic_program(6, plans=3)),
             (FIX / "two_methods.pte").read_bytes(), (FIX / "zoo" / "training.pte").read_bytes()]
    rnd = random.Random(30)
    errors = 0
    for _ in range(300):
        data = bytearray(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 4)):
            at = rnd.randrange(len(data)) & ~3
            data[at:at + 4] = rnd.randrange(2 ** 32).to_bytes(4, "little")[:len(data[at:at + 4])]
        a, b = _outcome(explorer.load, bytes(data)), _outcome(_one_by_one, bytes(data))
        if isinstance(a, PteFormatError) or isinstance(b, PteFormatError):
            assert type(a) is type(b) and str(a) == str(b) and (a.offset, a.path) == (b.offset, b.path)
            errors += 1
        else:
            _assert_same_plans(a, b)
    assert 50 < errors < 300  # both kinds of outcome were compared


def _listed(listing: list[int], values: list[int]) -> bytes:
    """Plans of ``values`` tensors each, listed in ``execution_plan`` as ``listing`` says (repeats alias)."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import fuzz

    b = fuzz._builder()
    sizes = fuzz._ints(b, [2, 3])
    plans = [fuzz._plan(b, values=[fuzz._tensor_value(b, sizes) for _ in range(n)]) for n in values]
    return fuzz._finish(b, [plans[k] for k in listing])


@pytest.mark.parametrize("listing, values", [([0, 1, 0, 1, 0], [20, 10]), ([0, 1] + [0] * 3000, [1000, 5]),
                                             ([1, 0] + [0] * 400, [1000, 5])])
def test_a_plan_listed_again_is_charged_again(listing, values):
    """Within the budget the plans are shared objects; past it, the error of reading in order (same plan index)."""
    data = _listed(listing, values)
    a, b = _outcome(explorer.load, data), _outcome(_one_by_one, data)
    if isinstance(b, PteFormatError):
        assert isinstance(a, PteFormatError) and str(a) == str(b) and "alias" in str(a)
    else:
        _assert_same_plans(a, b)
        assert len({id(p.values) for p in a.plans}) == len(values)


def test_unique_and_isin_answer_what_numpy_answers():
    rng = np.random.default_rng(30)
    kinds = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64, bool]
    for k in range(600):
        dt = kinds[k % len(kinds)]
        a = rng.integers(0, 2 if dt is bool else 6, int(rng.integers(0, 200))).astype(dt)
        for flags in itertools.product([False, True], repeat=3):
            want, got = np.unique(a, *flags), unique(a, *flags)
            for x, y in zip(want if flags != (False,) * 3 else (want,), got if flags != (False,) * 3 else (got,)):
                assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), (a, flags)
        for tests in ([1, 2], [], [0], [3, 4, 200], [-1, 5], [True], list(range(20)), (7,)):
            want, got = np.isin(a, tests), isin(a, tests)
            assert want.dtype == got.dtype and want.shape == got.shape and np.array_equal(want, got), (a, tests)
        rows = rng.integers(-3, 4, (int(rng.integers(0, 30)), 2))
        for flags in itertools.product([False, True], repeat=2):
            want = np.unique(rows, axis=0, return_index=flags[0], return_inverse=flags[1])
            got = unique_rows(rows, *flags)
            for x, y in zip(want if any(flags) else (want,), got if any(flags) else (got,)):
                assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), (rows, flags)


def test_findings_on_first_use_are_the_checks_findings():
    program = explorer.load(FIX / "mutable_dedup_bug.pte")
    for plan in program.plans:
        lazy = LazyAnalysis(plan, program)
        assert "findings" not in lazy.__dict__  # not computed until read
        want = tuple(plan_findings(plan, lazy.facts, lazy.edges, lazy.first, lazy.last, lazy.planned, lazy.moving,
                                   program))
        assert lazy.findings == want
    assert check(program)  # the fixture has findings: the comparison above compared some


def _many_plans(extra: int = 6):
    """PLANS_DRAWN + ``extra`` plans, the last one with out-of-bounds findings (its arenas shrunk)."""
    program = synthetic_program(20, plans=PLANS_DRAWN + extra)
    last = program.plans[-1]
    bad = dataclasses.replace(last, buffer_sizes=(0,) + tuple(16 for _ in last.buffer_sizes[1:]))
    return explorer.load(write(dataclasses.replace(program, plans=program.plans[:-1] + (bad,))))


def test_a_report_draws_the_first_plans_and_says_how_many_more():
    program = _many_plans()
    findings = list(check(program))
    last = program.plans[-1].name
    assert any(f.plan == last for f in findings)
    payload = app_payload(program, findings=findings)
    names = [p["name"] for p in payload["plans"]]
    assert names == list(program.plan_names[:PLANS_DRAWN])
    assert payload["plansNotDrawn"].startswith(f"… and 6 more plans not drawn in this report ({PLANS_DRAWN + 6} in all")
    assert "findings: device-explorer check FILE" in payload["plansNotDrawn"]
    assert {f["plan"] for f in payload["findings"]} <= set(names) | {""}  # the app opens a finding's plan
    opened = app_payload(program, findings=findings, plan=last)  # the plan it opens on is drawn too
    assert [p["name"] for p in opened["plans"]] == [*program.plan_names[:PLANS_DRAWN], last]
    assert any(f["plan"] == last for f in opened["findings"])
    assert all(str(k) in {str(i) for i in range(len(opened["findings"]))}
               for p in opened["plans"] for k in p["findingDetails"])
    widget = app_payload(program, findings=findings, limit=None)  # the widget: every plan, as before
    assert len(widget["plans"]) == len(program.plans) and "plansNotDrawn" not in widget


def test_a_program_of_few_plans_is_drawn_whole():
    program = explorer.load(write(synthetic_program(20, plans=PLANS_DRAWN)))
    payload = app_payload(program, findings=list(check(program)))
    assert len(payload["plans"]) == PLANS_DRAWN and "plansNotDrawn" not in payload


def test_show_says_what_the_report_leaves_out(tmp_path):
    from explorer.cli import main

    program = _many_plans(extra=2)
    src = tmp_path / "many.pte"
    src.write_bytes(write(program))
    out = io.StringIO()
    assert main(["show", str(src), "-o", str(tmp_path / "r.html")], stdout=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[1] == f"the report draws {PLANS_DRAWN:,} of the {PLANS_DRAWN + 2:,} plans; --plan NAME draws another"
    assert len([line for line in lines if line.startswith("many.pte: ")]) == PLANS_DRAWN + 2  # every plan listed


@pytest.mark.browser
def test_the_report_says_under_the_plan_selector_how_many_plans_it_leaves_out(tmp_path):
    from browser_helpers import chromium, require_browser

    from explorer.views.html.report import write_report
    from explorer.views.payload.embed import page_payload

    require_browser()
    report = write_report(_many_plans(), tmp_path / "many.html")
    note = page_payload(report.read_text())["plansNotDrawn"]
    with chromium((1400, 900)) as (page, messages):
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
        shown = page.locator(".dx-plans-more")
        assert shown.text_content() == note
        box, controls = shown.bounding_box(), page.locator(".dx-controls").bounding_box()
        assert box["y"] >= controls["y"] + controls["height"] - 1, "under the controls row"
        assert page.locator(".dx-plan option").count() == PLANS_DRAWN
        assert not [m for m in messages if m.startswith(("error", "pageerror"))], messages
