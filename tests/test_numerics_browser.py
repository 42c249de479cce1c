"""A run's numbers seen in a real browser (headless Chromium, 1600x1000), on the corpus of real runs
(tests/fixtures/numerics): the report ``device-explorer numerics -o`` writes, ``show --debug-buffer`` and the diff view
``diff --profile A B --debug-buffer A B --html``. What a person sees, read from the drawn page:

* a NaN an instruction produced is a finding; a click on it rings that instruction and the tensor on the graph, and
  the instruction's details say how many NaN/+Inf/-Inf each output holds, marked;
* the built-in overlays colour the ops: ``gap`` (opened first when compared) gives the first divergence the top of
  the scale and unpaired ops the no-data grey; ``output_range`` is on a log scale;
* the diff view has the same "colour" picker, ``gap`` picked: both sides' ops on one scale, A's instruction and B's
  paired one in the same colour;
* the "first divergence" button selects it: in the report one instruction, ringed, with both sides' outputs and the
  gap in its details; in the diff view A's instruction and B's paired one, each side's details with its own outputs;
  in the widget (JupyterLab, ``Explorer(..., debug_buffer=, against=)``) the same, and the selection reaches Python.

Screenshots: ``artifacts/numerics_*.png``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    TRACE_POINTS_JS,
    chromium,
    hex_to_rgb,
    jupyter_lab,
    lab_browser,
    open_notebook,
    require_browser,
    run_all,
    screenshot_on_failure,
    settled,
    write_notebook,
)

from explorer.cli import main
from explorer.views.payload.embed import page_payload
from explorer.views.state.overview import OVERVIEW_TRACE as T

pytestmark = pytest.mark.browser

F = Path(__file__).parent / "fixtures" / "numerics"
GREY = "#D0D7DE"
RINGS_JS = """() => Array.from(document.querySelectorAll('.dx-graph .dx-overlay .dx-ring'))
  .map(r => { const b = r.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2] })"""


@pytest.fixture(scope="module", autouse=True)
def _browser_available():
    require_browser()
    ARTIFACTS.mkdir(exist_ok=True)


def run(name: str) -> list[str]:
    return [str(F / f"{name}.pte"), "--profile", str(F / f"{name}.etdp"), "--debug-buffer", str(F / f"{name}.bin"),
            "--etrecord", str(F / f"{name}.etrecord")]


def open_report(page, path: Path) -> None:
    page.goto(path.as_uri())
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
    page.wait_for_timeout(300)  # the labels' last frame


def op_points(page, sel: str = ".dx-graph") -> dict[int, dict]:
    got = page.evaluate(f"(i) => ({TRACE_POINTS_JS})([document.querySelector('{sel}'), i])", T["ops"]) or []
    return {p["id"]: p for p in got}


def near(a: list[float], b: dict, tol: float = 3.0) -> bool:
    return abs(a[0] - b["x"]) <= tol and abs(a[1] - b["y"]) <= tol


def test_nan_finding_rings_its_instruction_and_the_details_count_nan(tmp_path):
    out = tmp_path / "nonfinite.html"
    assert main(["numerics", *run("nonfinite_portable"), "-o", str(out)]) == 1
    payload = page_payload(out.read_text())
    nan = [k for k, f in enumerate(payload["findings"]) if "numerics-nonfinite" in f["label"] and "produced NaN" in f["label"]]
    assert len(nan) == 1
    at = payload["findings"][nan[0]]["instructions"][0]
    with chromium((1600, 1000)) as (page, console):
        open_report(page, out)
        with screenshot_on_failure(page, "numerics_nan_failure.png"):
            page.locator(".dx-findings button").nth(nan[0]).click()
            page.wait_for_timeout(400)
            rings = page.evaluate(RINGS_JS)
            ops = op_points(page)
            assert any(near(r, ops[at]) for r in rings), f"instruction {at} is not ringed: {rings}"
            page.screenshot(path=str(ARTIFACTS / "numerics_nan_finding.png"))
            # its details: the output's NaN count, marked as bad
            page.evaluate(f"() => window.dxReport.select({{values: [], instructions: [{at}]}})")
            page.wait_for_timeout(200)
            bad = page.locator(".dx-details .dx-num-bad").all_inner_texts()
            assert any(re.match(r"^4 / 0 / 0 of 12$", t) for t in bad), bad
            text = page.locator(".dx-details").inner_text()
            assert "min / max / mean" in text and "first values" in text and "on cpu" in text
            page.screenshot(path=str(ARTIFACTS / "numerics_nan_details.png"))
        assert not [m for m in console if m.startswith(("error", "pageerror"))], console


def test_gap_overlay_and_first_divergence_in_the_report(tmp_path):
    out = tmp_path / "diverge.html"
    assert main(["numerics", *run("diverge_portable"), "--against", *run("diverge_xnnpack"), "-o", str(out)]) == 1
    payload = page_payload(out.read_text())
    pn = payload["numerics"]["plans"]["forward"]
    gap = next(o for o in payload["overlays"]["plans"]["forward"] if o["name"] == "gap")
    first = pn["first"]
    with chromium((1600, 1000)) as (page, console):
        open_report(page, out)
        with screenshot_on_failure(page, "numerics_gap_failure.png"):
            assert page.locator("select.dx-ov-pick").input_value() == "gap"
            ops = op_points(page)
            top = hex_to_rgb(gap["scale"]["stops"][-1][1])
            numbered = {i for i, v in enumerate(gap["instr"]) if v is not None}
            best = max(numbered, key=lambda i: gap["instr"][i])
            assert ops[best]["fill"] == top, (best, ops[best]["fill"], top)
            for i, p in ops.items():
                if i not in numbered:
                    assert p["fill"] == hex_to_rgb(GREY), (i, p["fill"])
            assert len({ops[i]["fill"] for i in numbered}) >= 2, "the gap overlay draws every op alike"
            page.screenshot(path=str(ARTIFACTS / "numerics_gap_overlay.png"))
            page.locator("button.dx-num-first").click()
            page.wait_for_timeout(400)
            rings = page.evaluate(RINGS_JS)
            assert any(near(r, ops[first]) for r in rings), f"#{first} is not ringed: {rings}"
            head = page.locator(".dx-details h4").first.inner_text()
            assert head.startswith(f"#{first} "), head
            flagged = page.locator(".dx-details .dx-num-first").all_inner_texts()
            assert flagged and flagged[0].endswith("first divergence"), flagged
            labels = page.locator(".dx-details td:first-child").all_inner_texts()
            assert f"B #{pn['firstB']} output 0" in labels and f"gap vs B #{pn['firstB']}" in labels, labels
            page.screenshot(path=str(ARTIFACTS / "numerics_first_divergence.png"))
        assert not [m for m in console if m.startswith(("error", "pageerror"))], console


def scale_rgb(stops: list, t: float) -> tuple[int, ...]:
    """A continuous scale's colour at t (0..1), as overlay/data.js scaleColor interpolates its stops."""
    rgb = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for _, c in stops]
    for k in range(1, len(stops)):
        if t <= stops[k][0]:
            u = (t - stops[k - 1][0]) / (stops[k][0] - stops[k - 1][0])
            return tuple(round(a + u * (b - a)) for a, b in zip(rgb[k - 1], rgb[k]))
    return rgb[-1]


def rgb_of(fill: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", fill)[:3])


def test_first_divergence_in_the_diff_view_selects_both_sides(tmp_path):
    out = tmp_path / "diff.html"
    a, b = "diverge_portable", "diverge_xnnpack"
    assert main(["diff", str(F / f"{a}.pte"), str(F / f"{b}.pte"), "--etrecord", str(F / f"{a}.etrecord"),
                 str(F / f"{b}.etrecord"), "--profile", str(F / f"{a}.etdp"), str(F / f"{b}.etdp"),
                 "--debug-buffer", str(F / f"{a}.bin"), str(F / f"{b}.bin"), "--html", str(out)]) == 0
    payload = page_payload(out.read_text())
    pn = payload["numerics"]["plans"]["forward"]
    gaps = {s: next(o for o in payload["overlays"]["sides"][s]["plans"]["forward"] if o["name"] == "gap") for s in "ab"}
    numbered = {s: {i: v for i, v in enumerate(gaps[s]["instr"]) if v is not None} for s in "ab"}
    lo, hi = min(min(n.values()) for n in numbered.values()), max(max(n.values()) for n in numbered.values())
    stops = gaps["a"]["scale"]["stops"]
    with chromium((1600, 1000)) as (page, console):
        open_report(page, out)
        with screenshot_on_failure(page, "numerics_diff_failure.png"):
            # the picker, gap opened first; both sides' ops coloured by their gap on one scale over both
            assert page.locator(".dx-diff select.dx-ov-pick").input_value() == "gap"
            assert "gap" in page.locator(".dx-diff .dx-ov-legend").inner_text()
            fills = {}
            for side in "ab":
                ops = op_points(page, f".dx-graph-{side}")
                assert set(numbered[side]) <= set(ops), (side, sorted(ops))
                for i, p in ops.items():
                    want = scale_rgb(stops, (numbered[side][i] - lo) / (hi - lo)) if i in numbered[side] else rgb_of(hex_to_rgb(GREY))
                    assert all(abs(x - y) <= 1 for x, y in zip(rgb_of(p["fill"]), want)), (side, i, p["fill"], want)
                fills[side] = {i: rgb_of(ops[i]["fill"]) for i in ops}
            # the first divergence: the same colour on A and B, in the top of the scale with the largest gaps
            first_a, first_b = fills["a"][pn["first"]], fills["b"][pn["firstB"]]
            assert first_a == first_b, (first_a, first_b)
            top = rgb_of(hex_to_rgb(stops[-1][1]))
            best = max(numbered["b"], key=lambda i: numbered["b"][i])
            assert fills["b"][best] == top and fills["a"][max(numbered["a"], key=lambda i: numbered["a"][i])] == top
            bottom = rgb_of(hex_to_rgb(stops[0][1]))
            assert sum((x - y) ** 2 for x, y in zip(first_a, top)) < sum((x - y) ** 2 for x, y in zip(first_a, bottom))
            assert len({c for f in fills.values() for c in f.values()}) >= 3, "the gap overlay draws every op alike"
            page.screenshot(path=str(ARTIFACTS / "numerics_diff_gap_overlay.png"))
            page.locator("button.dx-num-first").click()
            page.wait_for_timeout(500)
            for side, at in (("a", pn["first"]), ("b", pn["firstB"])):
                rings = page.evaluate(f"""() => Array.from(document.querySelectorAll('.dx-graph-{side} .dx-overlay .dx-ring'))
                  .map(r => {{ const b = r.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2] }})""")
                ops = op_points(page, f".dx-graph-{side}")
                assert any(near(r, ops[at]) for r in rings), f"{side} #{at} is not ringed: {rings}"
            text = page.locator(".dx-details").inner_text()
            assert f"gap vs B #{pn['firstB']}" in text and f"gap vs A #{pn['first']}" in text, text
            # each side's details start with the overlay's row: the pair's gap on both
            cells = page.locator(".dx-details .dx-ov-cell").all_inner_texts()
            assert len(cells) == 2 and cells[0].split("\n")[0] == cells[1].split("\n")[0] != "no data", cells
            assert text.count("min / max / mean") == 2  # each side's own output
            page.screenshot(path=str(ARTIFACTS / "numerics_diff_first_divergence.png"), full_page=False)
        assert not [m for m in console if m.startswith(("error", "pageerror"))], console


def test_widget_first_divergence_reaches_python(tmp_path):
    a, b = (tuple(str(F / f"{n}.{x}") for x in ("pte", "etdp", "bin", "etrecord")) for n in ("diverge_portable",
                                                                                                 "diverge_xnnpack"))
    notebook = tmp_path / "numerics.ipynb"
    write_notebook(notebook, [
        f"import explorer\nex = explorer.Explorer({a[0]!r}, profile={a[1]!r}, debug_buffer={a[2]!r}, etrecord={a[3]!r},"
        f" against={b!r})\nex",
        "print('selected:', list(ex.selected.instructions))",
    ])
    with jupyter_lab(tmp_path) as (base, token), lab_browser((1600, 1000)) as (page, messages), \
            screenshot_on_failure(page, "numerics_lab_failure.png", tmp_path / "jupyter.log"):
        open_notebook(page, base, token, notebook)
        run_all(page)
        page.wait_for_selector(".dx-explorer button.dx-num-first", timeout=90_000)
        page.locator(".dx-explorer").first.scroll_into_view_if_needed()
        settled(page, ".dx-explorer .dx-graph")
        assert page.locator(".dx-explorer select.dx-ov-pick").input_value() == "gap"
        page.locator(".dx-explorer button.dx-num-first").click()
        page.wait_for_function("() => { const h = document.querySelector('.dx-explorer .dx-details h4');"
                               " return h && h.textContent.startsWith('#5 '); }", timeout=15_000)
        assert "first divergence" in page.locator(".dx-explorer .dx-details .dx-num-first").first.inner_text()
        page.screenshot(path=str(ARTIFACTS / "numerics_lab_widget.png"))
        cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "([sel, text]) => Array.from(document.querySelectorAll(sel)).some(o => o.textContent.includes(text))",
            arg=[".jp-Notebook .jp-Cell .jp-OutputArea-output", "selected: [5]"], timeout=15_000)
        assert not [m for m in messages if m.startswith("pageerror")], messages
