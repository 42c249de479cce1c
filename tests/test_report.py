"""The offline HTML report and ``device-explorer show``: self-contained, escaped, all plans."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from analysis_helpers import PlanBuilder

from explorer import load
from explorer.cli import main
from writers.pte import write
from explorer import frontend
from explorer.views.payload.embed import DATA_TYPE, page_payload
from explorer.views.html.report import report_html, write_report

FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE = "<img src=x onerror=alert(1)>"
BREAKOUT = "</script><script>window.__pwned=1</script>"


def payload(html: str) -> dict:
    return page_payload(html)


def hostile_program():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0, name=BREAKOUT)
    d = b.tensor(arena=2, offset=0, device="cuda:0", name=HOSTILE)
    y = b.tensor(arena=2, offset=16, device="cuda:0", name="a&b\u2028c")
    b.h2d(x, d)
    b.kernel(HOSTILE + ".out", d, y, y)
    b.delegate(HOSTILE, y, target_device="cuda:0")
    b.inputs(x)
    b.outputs(y)
    return load(write(b.program()))


@pytest.fixture(scope="module")
def sample_html():
    return report_html(load(FIXTURES / "device_mlp.pte"))


def test_self_contained_with_plotly_inlined_once(sample_html):
    assert not re.search(r"<script[^>]*\bsrc\s*=", sample_html, re.I), "no external scripts"
    assert not re.search(r"<link[^>]*\bhref\s*=", sample_html, re.I), "no external stylesheets"
    plotly_js = frontend.plotly_js()
    assert sample_html.count(plotly_js[:200]) == 1 and plotly_js[-200:] in sample_html
    assert "plotly.js (basic - minified) v4.1.1" in sample_html, "the vendored partial bundle, not all of plotly.js"
    # as the bundle ships it: without its JSDoc (frontend.strip_comments)
    assert sample_html.count(frontend.strip_comments(frontend.source("app/app.js"))[-300:]) == 1, "the app's modules, inlined once"
    assert "require.js" not in sample_html and "cdn.plot.ly" not in sample_html.replace(plotly_js, "")
    assert sample_html.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in sample_html


def test_report_has_the_same_panels(sample_html, tmp_path):
    from app_js import run_payload_js

    data = payload(sample_html)
    (plan,) = data["plans"]
    assert plan["name"] == "forward" and data["plan"] == "forward"
    assert "graph" not in plan and "memory" not in plan, "no figure in the page: the app builds them (lod/figures.js)"
    drawn = run_payload_js(tmp_path, plan, [{"op": "noop", "figures": True}])[0]["figures"]
    graph, memory = drawn["graph"], drawn["memory"]
    assert graph["data"][data["trace"]["tensors"]]["name"] == "tensors"
    lanes = [a["text"] for a in memory["layout"]["annotations"]]
    assert any("arena 1 · cpu" in t for t in lanes) and any("arena 2 · cuda:0" in t for t in lanes)
    program = load(FIXTURES / "device_mlp.pte")
    lod = plan["lod"]  # the tables the app draws and describes every node from
    assert sorted(lod["tensors"]["index"]) == sorted(t.index for t in program.plans[0].tensors)
    assert lod["m"] == len(program.plans[0].instructions) and "details" not in plan
    assert [d for d, _ in plan["devices"]] == ["cpu", "cuda:0"]
    for anchor in ('"dx-graph"', '"dx-memory"', '"dx-details"', '"dx-findings"', '"dx-devices"', '"dx-totals"'):
        assert anchor in frontend.source("app/app.js"), "the one-program mode draws every panel"
    for anchor in ('"dx-plan"', '"dx-search"', '"dx-controls"'):  # the frame's controls: both modes get them
        assert anchor in frontend.source("shell/shell.js"), "the shell builds the controls row"
    assert 'id="dx-app"' in sample_html


def test_runtime_needs_open_only_for_a_device_program(sample_html):
    device = payload(sample_html)["plans"][0]["totals"]
    assert "<details open><summary>Runtime needs" in device and "1 device besides the CPU" in device
    cpu = payload(report_html(load(FIXTURES / "mlp.pte")))["plans"][0]["totals"]
    assert "<details><summary>Runtime needs" in cpu and "CPU only" in cpu


def test_every_plan_is_in_the_report():
    data = payload(report_html(load(FIXTURES / "two_methods.pte"), plan="encode"))
    assert [p["name"] for p in data["plans"]] == ["encode", "forward"] and data["plan"] == "encode"


def test_strings_from_the_file_cannot_break_out():
    program = hostile_program()
    html = report_html(program)
    head, rest = html.split(f'<script type="{DATA_TYPE}" id="dx-data">', 1)
    data_block, tail = rest.split("</script>", 1)
    # HTML outside the data block: only escaped text
    assert HOSTILE not in head + tail and "__pwned" not in head + tail
    # inside it, nothing the HTML tokenizer reacts to: no end tag, no comment opener, no line separators
    assert "</" not in data_block and "<!" not in data_block and "\u2028" not in data_block
    # base64 text only: nothing inside can end the element
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", data_block)
    # the page's own script elements are exactly ours: plotly.js and the app (and the data block)
    assert len(re.findall(r"<script\b", head + tail)) == 2
    data = payload(html)
    tensors = data["plans"][0]["lod"]["tensors"]
    label = dict(zip(tensors["index"], tensors["label"]))
    assert label[1] == HOSTILE  # plain text in the tables: the app escapes it where it shows it (tests/test_injection.py)


def test_findings_are_listed_with_their_selection():
    b = PlanBuilder(arenas=[(32, "cpu"), (32, "cuda:0")])
    x = b.tensor(arena=1)
    wrong = b.tensor(arena=2, device="cpu")
    b.kernel("aten::relu.out", x, wrong, wrong)
    b.inputs(x)
    data = payload(report_html(load(write(b.program()))))
    (finding,) = [f for f in data["findings"] if "device-mismatch" in f["label"]]
    assert finding["values"] == [wrong] and finding["plan"] == "forward"
    assert data["plans"][0]["findingDetails"]


def test_write_report_returns_the_path(tmp_path):
    path = write_report(load(FIXTURES / "device_add.pte"), tmp_path / "r.html")
    assert path == tmp_path / "r.html" and path.stat().st_size > 1_000_000


def test_cli_without_arguments_explores_the_bundled_sample(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert main([], stdout=out) == 0
    report = tmp_path / "device-explorer-report.html"
    assert report.exists()
    text = out.getvalue()
    assert f"wrote {report}" in text and "sample.pte (the bundled sample)" in text
    assert "cpu" in text and "cuda:0" in text and "arenas #1" in text
    assert payload(report.read_text(encoding="utf-8"))["plans"][0]["name"] == "forward"
    out = io.StringIO()
    assert main(["demo", "-o", "demo.html"], stdout=out) == 0 and (tmp_path / "demo.html").exists()


def test_cli_show_file_plan_and_errors(tmp_path, capsys):
    out = io.StringIO()
    target = tmp_path / "two.html"
    assert main(["show", str(FIXTURES / "two_methods.pte"), "-o", str(target), "--plan", "encode"], stdout=out) == 0
    assert payload(target.read_text(encoding="utf-8"))["plan"] == "encode"
    assert out.getvalue().count("two_methods.pte: ") == 2
    assert main(["show", str(FIXTURES / "two_methods.pte"), "--plan", "nope", "-o", str(target)]) == 2
    assert "no plan named 'nope'" in capsys.readouterr().err
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a program")
    assert main(["show", str(bad), "-o", str(target)]) == 2


def test_program_without_plans_gets_a_page_that_says_so(tmp_path):
    from explorer.cli import main
    from writers.pte import write
    from explorer.model.program import Program
    path = tmp_path / "empty.pte"
    path.write_bytes(write(Program(0, ())))
    out = tmp_path / "empty.html"
    assert main(["show", str(path), "-o", str(out)]) == 0
    page = out.read_text()
    assert "no execution plans" in page and "<script" not in page
