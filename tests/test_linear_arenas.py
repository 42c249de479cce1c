"""Arenas with no tensor are summarised, never walked one by one in views or text (issue #30).

A file may declare a million memory-planned buffers in 8 MB. What is listed (the analysis' arenas, the memory
panel's lanes, inspect's arena lines, the runtime needs, show's summary) scales with the tensors; the totals still
count every arena. Checked here on 100,000 declared arenas (the full million is in bench/bench_budget.py).
"""

from __future__ import annotations

import dataclasses
import io

import pytest

import explorer
from explorer.analysis.pipeline import EMPTY_SHOWN, LazyAnalysis
from explorer.cli import main
from explorer.model.program import CPU, Buffer, BufferDevice, Device
from explorer.views.state.plan import plan_view
from writers.pte import write
from writers.synth import synthetic_program

N = 100_000


@pytest.fixture(scope="module")
def crafted(tmp_path_factory):
    p = synthetic_program(200)
    plan = p.plans[0]
    sizes = plan.buffer_sizes + tuple(64 + (k % 3) for k in range(N - len(plan.buffer_sizes)))
    devices = plan.buffer_devices + (BufferDevice(N - 5, Device.parse("cuda:1")),)  # one empty arena far out
    p = dataclasses.replace(p, plans=(dataclasses.replace(plan, buffer_sizes=sizes, buffer_devices=devices),))
    path = tmp_path_factory.mktemp("arenas") / "arenas.pte"
    path.write_bytes(write(p))
    return path


def test_the_plans_buffers_answer_as_the_eager_tuple_did(crafted):
    plan = explorer.load(crafted).plans[0]
    listed: dict[int, Device] = {}
    for bd in plan.buffer_devices:
        listed.setdefault(bd.buffer_idx, bd.device)
    eager = tuple(Buffer(m, s, listed.get(m, CPU)) for m, s in enumerate(plan.buffer_sizes) if m >= 1)
    assert len(plan.buffers) == len(eager) == N - 1
    for k in (0, 1, 2, 500, N - 6, N - 2, -1):
        assert plan.buffers[k] == eager[k]
    assert plan.buffers[N - 6] == Buffer(N - 5, plan.buffer_sizes[N - 5], Device.parse("cuda:1"))
    assert set(plan.arena_devices) == {b.device for b in eager}


def test_the_analysis_lists_arenas_with_tensors_and_counts_the_rest(crafted):
    program = explorer.load(crafted)
    plan = program.plans[0]
    lazy = LazyAnalysis(plan, program)
    occupied = {t.memory_id for t in plan.tensors if t.memory_id is not None}
    listed = [a.memory_id for a in lazy.arenas]
    assert set(listed) >= occupied and len(listed) == len(occupied) + EMPTY_SHOWN
    empty = lazy.empty_arenas
    assert empty is not None and empty.count == N - 1 - len(listed)
    assert empty.size == sum(plan.buffer_sizes[1:]) - sum(a.size for a in lazy.arenas)
    assert {str(d): n for d, n, _ in empty.devices} == {"cpu": empty.count - 1, "cuda:1": 1}
    totals = {str(d.device): d.arena_bytes for d in lazy.device_totals}
    assert sum(totals.values()) == sum(plan.buffer_sizes[1:])  # every arena counted, none listed one by one
    view = plan_view(plan, program, analysis=lazy)
    assert len(view.memory.rows) == len(listed)  # the memory panel's lanes: the listed arenas


def test_inspect_and_show_text_scale_with_the_tensors(crafted, tmp_path):
    out = io.StringIO()
    assert main(["inspect", str(crafted)], stdout=out) == 0
    text = out.getvalue()
    assert len(text) < 8_000, len(text)  # was one line per run of alike arenas and every arena in the needs
    assert "more empty arenas in" in text and "… and 99,9" in text
    out = io.StringIO()
    assert main(["show", str(crafted), "-o", str(tmp_path / "r.html")], stdout=out) == 0
    assert len(out.getvalue()) < 4_000 and "empty arenas (" in out.getvalue()
    assert f"{N - 1:,} arenas" in out.getvalue()  # the count still says how many the file declares


@pytest.mark.browser
def test_the_memory_panel_says_how_many_empty_arenas_it_does_not_draw(crafted, tmp_path):
    """The report's memory map draws a lane per listed arena and one line for the rest, under the map, as inspect
    and show word it (the payload carries the line: views/payload/app.py)."""
    from browser_helpers import chromium, require_browser

    from explorer.views.html.report import write_report
    from explorer.views.payload.embed import page_payload

    require_browser()
    program = explorer.load(crafted)
    lazy = LazyAnalysis(program.plans[0], program)
    report = write_report(program, tmp_path / "arenas.html")
    (plan,) = page_payload(report.read_text())["plans"]
    assert plan["emptyArenas"] == lazy.empty_arenas.text() and plan["emptyArenas"].startswith("… and 99,")
    assert len(plan["lod"]["arenas"]) == len(lazy.arenas)  # lanes: the listed arenas, not 100,000
    with chromium((1400, 900)) as (page, messages):
        page.goto(report.as_uri())
        page.wait_for_function("() => { const p = document.querySelector('.dx-empty-arenas');"
                               " return p && !p.hidden && p.textContent.length > 0 }", timeout=60_000)
        note = page.locator(".dx-empty-arenas")
        assert note.text_content() == plan["emptyArenas"]
        box, memory = note.bounding_box(), page.locator(".dx-memory").bounding_box()
        assert box["y"] >= memory["y"] + memory["height"] - 1, "under the lanes, not over them"
        assert not [m for m in messages if m.startswith(("error", "pageerror"))], messages
