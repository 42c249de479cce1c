"""What-if with the mouse, in headless Chromium: the offline report and the widget in JupyterLab.

Report (``device-explorer show FILE -o``): a real click on a delegate call, "Move to ▸" cuda:0 in its details, and
the pending list shows the CLI line that predicts it — which is then run, as written, and writes the what-if report,
which opens in the diff view with its move listed (and the moved delegate's outputs on cuda:0 in B). Widget: the
same click in JupyterLab sets ``ex.moves`` in the kernel, the output re-renders as the diff of original vs predicted,
a refused placement shows executorch's reason and keeps the moves, and undo goes back to the program as it is.
Screenshots go to ``artifacts/`` (docs/testing.md).
"""

from __future__ import annotations

import ast
import io
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from browser_helpers import ARTIFACTS, chromium, click_point, require_browser, screenshot_on_failure, settled, trace_points

import explorer
from explorer.cli import main
from explorer.views.state.overview import TRACE

pytestmark = pytest.mark.browser

FIXTURE = Path(__file__).parent / "fixtures" / "whatif" / "residual_cpu_only.pte"
REFUSED = Path(__file__).parent / "fixtures" / "zoo" / "tied_weights.pte"  # @0=cuda:0: a delegate reads a weight

# every plotly call that draws or changes a figure, per div, until the page says it is ready (an init script: the page's
# Plotly wrapped as it is defined)
PLOTLY_CALLS_JS = """(() => { window.__dxCalls = []; let P;
  const wrap = (o) => { for (const k of ['newPlot', 'react', 'relayout', 'restyle', 'update', 'redraw']) {
      const f = o[k]; if (typeof f !== 'function') continue;
      o[k] = function (gd, ...rest) {
        if (document.body.dataset.ready !== '1') window.__dxCalls.push([k, String((gd && gd.className) || '').split(' ')[0]]);
        return f.call(this, gd, ...rest); }; }
    return o; };
  Object.defineProperty(window, 'Plotly', {configurable: true, get: () => P, set: (v) => { P = wrap(v); }}); })()"""

# boxes of the what-if bar's parts that overlap each other or stick out of the bar (crowding, clipped text)
BAR_LAYOUT_JS = """
(sel) => {
  const bar = document.querySelector(sel), out = [];
  if (!bar) return ['no bar'];
  const b = bar.getBoundingClientRect();
  const parts = Array.from(bar.querySelectorAll('.dx-move-chip, button, code, .dx-whatif-note, h3'));
  for (const p of parts) {
    const r = p.getBoundingClientRect();
    if (r.right > b.right + 1 || r.left < b.left - 1) out.push('outside: ' + p.textContent.slice(0, 40));
    if (p.scrollWidth > p.clientWidth + 1 && p.tagName !== 'CODE') out.push('clipped: ' + p.textContent.slice(0, 40));
  }
  for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
    if (parts[i].contains(parts[j]) || parts[j].contains(parts[i])) continue;
    const r = parts[i].getBoundingClientRect(), s = parts[j].getBoundingClientRect();
    if (r.left < s.right - 1 && s.left < r.right - 1 && r.top < s.bottom - 1 && s.top < r.bottom - 1)
      out.push('overlap: ' + parts[i].textContent.slice(0, 30) + ' / ' + parts[j].textContent.slice(0, 30));
  }
  return out;
}
"""


@pytest.fixture(scope="module", autouse=True)
def _browser_available():
    require_browser()


def _delegate_call(path: Path) -> tuple[int, int]:
    """(instruction, delegate index) of the first delegate call of the forward plan."""
    plan = explorer.load(path).plan("forward")
    ins = next(i for i in plan.instructions if i.kind == "DelegateCall")
    return ins.index, ins.delegate_index


def _changed_b(path: Path, delegate: int) -> int:
    """A tensor of the prediction that changed (its pair has a before -> after text) when delegate moves to cuda:0."""
    from explorer.views.payload.diff import pair_keys
    from explorer.views.payload.whatif import whatif_payload

    program = explorer.load(path)
    views: dict = {}
    whatif_payload(program, explorer.what_if(program, [f"delegate:{delegate}=cuda:0"]), views=views, lazy=True)
    return next(v for s, v in pair_keys(views["forward"])[0] if s == "b")


def _click_op(page, graph: str, instruction: int) -> None:
    ops = trace_points(page, graph, TRACE["ops"])
    target = next(p for p in ops if p["id"] == instruction and p["w"] > 0)
    click_point(page, graph, target)


def test_report_move_to_gives_the_command_and_its_report_opens_in_the_diff_view(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a file name that is markup and shell at once: shown as text, quoted in the command, which still runs
    hostile = tmp_path / "it's <b>bold<b> $(touch pwned).pte"
    hostile.write_bytes(FIXTURE.read_bytes())
    report = tmp_path / "report.html"
    assert main(["show", str(hostile), "-o", str(report)], stdout=io.StringIO()) == 0
    instruction, delegate = _delegate_call(FIXTURE)
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "whatif_report_failure.png"):
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
        assert page.locator(".dx-whatif").is_hidden(), "no bar before any move"
        _click_op(page, ".dx-graph", instruction)
        move = page.locator(".dx-details .dx-move-to", has_text="cuda:0")
        move.wait_for(timeout=10_000)
        details = page.locator(".dx-details").inner_text()
        assert "Move to" in details and f"delegate:{delegate}" in details, details
        assert page.locator(".dx-details .dx-move-to", has_text="cpu").is_disabled(), "it runs on the cpu already"
        page.locator(".dx-details").screenshot(path=str(ARTIFACTS / "whatif_report_move_to.png"))
        move.click()
        cli = page.locator(".dx-whatif .dx-whatif-cli")
        cli.wait_for(timeout=5_000)
        line = cli.inner_text()
        assert shlex.split(line) == ["device-explorer", "whatif", str(hostile), "--move", f"delegate:{delegate}=cuda:0",
                                     "-o", "whatif.html"], line
        python = page.locator(".dx-whatif .dx-whatif-py").inner_text()
        call = ast.parse(python, mode="eval").body
        assert ast.unparse(call.func) == "explorer.what_if" and ast.literal_eval(call.args[1]) == [f"delegate:{delegate}=cuda:0"]
        assert ast.unparse(call.args[0].func) == "explorer.load" and ast.literal_eval(call.args[0].args[0]) == str(hostile)
        assert page.locator(".dx-whatif b, .dx-details b:has-text('bold')").count() == 0, "the name is text, not markup"
        # the copy buttons hand the clipboard the very text shown
        page.evaluate("() => Object.defineProperty(navigator, 'clipboard', {configurable: true, value: {writeText:"
                      " (t) => { window.__copied = t; return Promise.resolve(); }}})")
        page.locator(".dx-whatif .dx-whatif-cmd", has=page.locator(".dx-whatif-cli")).locator("button.dx-copy").click()
        page.wait_for_function("() => document.querySelector('.dx-whatif .dx-copy').textContent === 'copied'", timeout=5_000)
        assert page.evaluate("() => window.__copied") == line
        bar = page.locator(".dx-whatif").inner_text()
        assert "cannot predict offline" in bar, bar
        assert page.evaluate(BAR_LAYOUT_JS, ".dx-whatif") == []
        page.locator(".dx-whatif").screenshot(path=str(ARTIFACTS / "whatif_report_pending.png"))
        page.screenshot(path=str(ARTIFACTS / "whatif_report_pending_page.png"))
        # the undo of the one move empties the list and hides the bar
        page.locator(".dx-whatif .dx-undo-one").click()
        page.wait_for_function("() => document.querySelector('.dx-whatif').hidden", timeout=5_000)
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages

    # the command, as the page wrote it, predicts and writes the what-if report (run by a shell: nothing else runs)
    words = shlex.split(line)
    assert words[0] == "device-explorer"
    script = f'device-explorer() {{ {shlex.quote(sys.executable)} -m explorer.cli "$@"; }}\n{line}\n'
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "pwned").exists()
    written = tmp_path / "whatif.html"
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "whatif_diff_report_failure.png"):
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.add_init_script(PLOTLY_CALLS_JS)
        page.goto(written.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
        assert page.locator(".dx-diff").count() >= 1, "the diff view"
        # each of the four figures (two programs' graphs and memory maps) drawn by one Plotly.react (issue 32: eight
        # calls, a skeleton first and the plan over it, and the what-if slower to be ready than a 100k-value report)
        calls = page.evaluate("() => window.__dxCalls")
        assert sorted(calls) == sorted(["react", f"dx-{fig}-{s}"] for fig in ("graph", "memory") for s in "ab"), calls
        # and none drawn twice by plotly: margins that already hold the legend, the tick labels and the axis title (a
        # margin plotly grows after a draw is a second whole draw: B's graph 56 -> 86 px, the lanes' left 64 -> 81)
        grown = page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((gd) => {
          const m = gd.layout.margin, s = gd._fullLayout._size;
          return [gd.className.split(' ')[0], ['l', 'r', 't', 'b'].filter((k) => Math.abs(s[k] - m[k]) > 0.5)]; })""")
        assert len(grown) == 4 and all(not g[1] for g in grown), grown
        chips = page.locator(".dx-whatif .dx-move-chip").all_inner_texts()
        assert [c.replace("\u2715", "").strip() for c in chips] == [f"delegate:{delegate}=cuda:0"]
        assert "This report shows original (A) vs what executorch 1.5.1 would export (B)" in \
            page.locator(".dx-whatif").inner_text()
        assert "cuda:0" in page.locator(".dx-header").inner_text()
        assert page.evaluate(BAR_LAYOUT_JS, ".dx-whatif") == []
        page.screenshot(path=str(ARTIFACTS / "whatif_diff_report.png"))
        # the same delegate on B ("Move to ▸" of the prediction maps back to the original's selector)
        pred = explorer.what_if(explorer.load(FIXTURE), [f"delegate:{delegate}=cuda:0"]).plan("forward")
        b_call = next(i.index for i in pred.instructions if i.kind == "DelegateCall" and i.delegate_index == delegate)
        _click_op(page, ".dx-graph-b", b_call)
        page.locator(".dx-details .dx-move-to", has_text="cpu").wait_for(timeout=10_000)
        assert f"delegate:{delegate}" in page.locator(".dx-details .dx-move-sel").inner_text()
        assert page.locator(".dx-details .dx-move-to", has_text="cuda:0").first.is_disabled(), "on cuda:0 already in B"
        page.locator(".dx-details .dx-move-to", has_text="cpu").click()
        page.wait_for_function("() => document.querySelector('.dx-whatif .dx-whatif-cli').textContent.includes('=cpu')",
                               timeout=5_000)
        assert shlex.split(page.locator(".dx-whatif .dx-whatif-cli").inner_text())[2:] == \
            [str(hostile), "--move", f"delegate:{delegate}=cpu", "-o", "whatif.html"]
        assert "cannot predict offline" in page.locator(".dx-whatif").inner_text()
        page.locator(".dx-whatif").screenshot(path=str(ARTIFACTS / "whatif_diff_report_pending.png"))
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_diff_report_moves_either_side_in_its_own_program(tmp_path):
    """Issue 31: "Move to ▸" in `diff A B --html`: a node of B moves in B's program (a bar per side), and the command
    the page writes runs on B's file."""
    a, b = FIXTURE, FIXTURE.parent / "residual_cuda0.pte"
    report = tmp_path / "diff.html"
    assert main(["diff", str(a), str(b), "--html", str(report)], stdout=io.StringIO()) in (0, 1)
    instruction, delegate = _delegate_call(b)
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "whatif_diff_sides_failure.png"):
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
        assert page.locator(".dx-whatif").count() == 2 and page.locator(".dx-whatif:visible").count() == 0
        settled(page, ".dx-graph-b")
        _click_op(page, ".dx-graph-b", instruction)
        page.locator(".dx-details .dx-move-to", has_text="cpu").wait_for(timeout=10_000)
        assert f"delegate:{delegate}" in page.locator(".dx-details .dx-move-sel").inner_text()
        assert page.locator(".dx-details .dx-move-to", has_text="cuda:0").first.is_disabled(), "on cuda:0 already in B"
        page.locator(".dx-details .dx-move-to", has_text="cpu").click()
        bar = page.locator(".dx-whatif:visible")
        bar.wait_for(timeout=5_000)
        assert bar.count() == 1 and "What-if on B" in bar.inner_text() and "cannot predict offline" in bar.inner_text()
        line = bar.locator(".dx-whatif-cli").inner_text()
        assert shlex.split(line) == ["device-explorer", "whatif", str(b), "--move", f"delegate:{delegate}=cpu", "-o",
                                     "whatif.html"], line
        page.locator(".dx-whatif:visible").screenshot(path=str(ARTIFACTS / "whatif_diff_sides_pending.png"))
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages
    script = f'device-explorer() {{ {shlex.quote(sys.executable)} -m explorer.cli "$@"; }}\n{line}\n'
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "whatif.html").exists()


def test_report_move_to_on_a_group_of_a_big_plan(tmp_path):
    """A transformer's overview: a click on a group opens it and its details offer group:LABEL, which what_if reads
    as exactly that group; "Move to ▸ cuda:0" puts it in the pending command."""
    from explorer.whatif.predict import select
    from explorer.views.state.overview import OVERVIEW_TRACE

    path = Path(__file__).parent / "fixtures" / "named" / "transformer3k.pte"
    report = tmp_path / "big.html"
    assert main(["show", str(path), "-o", str(report)], stdout=io.StringIO()) == 0
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "whatif_group_failure.png"):
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
        settled(page, ".dx-graph")
        groups = trace_points(page, ".dx-graph", OVERVIEW_TRACE["groups"])
        assert groups, "the plan opens as an overview of groups"
        click_point(page, ".dx-graph", groups[0])
        move = page.locator(".dx-details .dx-move-to", has_text="cuda:0")
        move.wait_for(timeout=15_000)
        sel = page.locator(".dx-details .dx-move-sel .dx-code").inner_text()
        assert sel.startswith("group:"), sel
        page.locator(".dx-details").screenshot(path=str(ARTIFACTS / "whatif_report_group.png"))
        move.click()
        line = page.locator(".dx-whatif .dx-whatif-cli").inner_text()
        assert shlex.split(line) == ["device-explorer", "whatif", str(path), "--move", f"{sel}=cuda:0", "-o", "whatif.html"]
        assert page.evaluate(BAR_LAYOUT_JS, ".dx-whatif") == []
        page.screenshot(path=str(ARTIFACTS / "whatif_report_group_page.png"))
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages
    program = explorer.load(path)
    plan = program.plan("forward")
    got = select(plan, sel, program)
    assert got.kernels or got.delegates, sel


def _outputs_include(page, text: str, timeout_ms: int = 20_000) -> None:
    page.wait_for_function(
        "(text) => Array.from(document.querySelectorAll('.jp-OutputArea-output')).some(o => o.textContent.includes(text))",
        arg=text, timeout=timeout_ms)


def _run_cell(page, k: int) -> None:
    cell = page.locator(".jp-Notebook .jp-Cell").nth(k)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_widget_move_with_the_mouse_in_jupyterlab(tmp_path):
    from browser_helpers import jupyter_lab, lab_browser, open_notebook, run_all, write_notebook

    instruction, delegate = _delegate_call(FIXTURE)
    notebook = tmp_path / "whatif.ipynb"
    write_notebook(notebook, [f"import explorer\nex = explorer.Explorer({str(FIXTURE)!r})\nex",
                              "print('moves:', ex.moves, ex.predicted is not None)",
                              f"ex2 = explorer.Explorer({str(REFUSED)!r}, constants='arguments')\nex2",
                              "print('refused:', ex2.moves, ex2.whatif_error.startswith('@0=cuda:0: executorch 1.5.1 would refuse'))",
                              # a changed tensor of B selected from Python: its before -> after text comes on request
                              "ex._whatif_selected = {}\nex._whatif_selected = {'plan': 'forward', 'side': 'b', "
                              f"'values': {{'a': [], 'b': [{_changed_b(FIXTURE, delegate)}]}}, 'instructions': {{'a': [], 'b': []}}}}",
                              "print('flags:', ex.skip_d2h_outputs, ex.predicted.prediction.skip_d2h_outputs)"])
    with jupyter_lab(tmp_path) as (base, token), lab_browser((1400, 1000)) as (page, messages), \
            screenshot_on_failure(page, "whatif_lab_failure.png", tmp_path / "jupyter.log"):
        open_notebook(page, base, token, notebook)
        run_all(page)
        # both explorers drawn in full (index.js data-drawn: every stage of the first view, and the box fitted after
        # it): the page is still before the first click
        page.wait_for_function("() => { const w = document.querySelectorAll('.dx-explorer');"
                               " return w.length === 2 && Array.from(w).every((e) => e.dataset.drawn) &&"
                               " document.querySelectorAll('.dx-explorer .dx-graph .point').length > 0 }", timeout=90_000)
        page.evaluate("() => document.querySelectorAll('.dx-explorer').forEach((e, k) => { e.id = 'w' + (k + 1); })")
        page.locator("#w1").scroll_into_view_if_needed()
        settled(page, "#w1 .dx-graph")
        _click_op(page, "#w1 .dx-graph", instruction)
        move = page.locator("#w1 .dx-details .dx-move-to", has_text="cuda:0")
        move.wait_for(timeout=10_000)
        page.locator("#w1 .dx-details").screenshot(path=str(ARTIFACTS / "whatif_lab_move_to.png"))
        move.click()
        # the kernel predicts; the same output re-renders as original vs predicted
        page.wait_for_function("() => document.querySelectorAll('#w1 .dx-graph-b .point').length > 0", timeout=60_000)
        chips = page.locator("#w1 .dx-whatif .dx-move-chip").all_inner_texts()
        assert [c.replace("\u2715", "").strip() for c in chips] == [f"delegate:{delegate}=cuda:0"]
        assert page.locator("#w1 .dx-graph").count() == 0, "the one-program view is gone (purged, not stacked)"
        assert page.locator("#w1 .dx-whatif .dx-whatif-cli").inner_text() == \
            f"device-explorer whatif {FIXTURE} --move delegate:{delegate}=cuda:0 -o whatif.html"
        assert "cuda:0" in page.locator("#w1 .dx-header").inner_text()
        assert page.evaluate(BAR_LAYOUT_JS, "#w1 .dx-whatif") == []
        page.locator("#w1").scroll_into_view_if_needed()
        settled(page, "#w1 .dx-graph-b")
        page.screenshot(path=str(ARTIFACTS / "whatif_lab_diff.png"))
        _run_cell(page, 1)
        _outputs_include(page, f"moves: ['delegate:{delegate}=cuda:0'] True")
        # B's delegate: its details end with "Move to ▸", mapped back to the original's selector
        pred = explorer.what_if(explorer.load(FIXTURE), [f"delegate:{delegate}=cuda:0"]).plan("forward")
        b_call = next(i.index for i in pred.instructions if i.kind == "DelegateCall" and i.delegate_index == delegate)
        page.locator("#w1 .dx-graph-b").scroll_into_view_if_needed()
        settled(page, "#w1 .dx-graph-b")
        _click_op(page, "#w1 .dx-graph-b", b_call)
        page.locator("#w1 .dx-details .dx-move-block").wait_for(timeout=10_000)
        blocks = page.locator("#w1 .dx-details .dx-move-block").all_inner_texts()  # what each offers, or why not
        assert any(f"delegate:{delegate}" in b for b in blocks), page.locator("#w1 .dx-details").inner_text()
        page.locator("#w1 .dx-details").scroll_into_view_if_needed()
        page.locator("#w1 .dx-details").screenshot(path=str(ARTIFACTS / "whatif_lab_diff_details.png"))
        # a changed pair's text is not in the widget's payload: the page asks the kernel and shows it when it comes
        _run_cell(page, 4)
        page.wait_for_function("() => { const d = document.querySelector('#w1 .dx-details');"
                               " return d && d.querySelector('table.dx-cmp:not(.dx-cols)') && !d.querySelector('.dx-pair-wait'); }",
                               timeout=30_000)
        # the flags' toggles: skip d2h of outputs on -> predicted again with it, the CLI line says it, Python sees it
        page.locator("#w1 .dx-whatif select.dx-whatif-skip-d2h-outputs").select_option("true")
        page.wait_for_function("() => { const c = document.querySelector('#w1 .dx-whatif .dx-whatif-cli');"
                               " return c && c.textContent.includes('--skip-d2h-outputs') &&"
                               " !document.querySelector('#w1 .dx-whatif').textContent.includes('predicting'); }", timeout=60_000)
        assert page.locator("#w1 .dx-whatif select.dx-whatif-skip-d2h-outputs").input_value() == "true"
        _run_cell(page, 5)
        _outputs_include(page, "flags: True True")
        page.locator("#w1 .dx-whatif select.dx-whatif-skip-d2h-outputs").select_option("")
        page.wait_for_function("() => { const c = document.querySelector('#w1 .dx-whatif .dx-whatif-cli');"
                               " return c && !c.textContent.includes('--skip-d2h-outputs') &&"
                               " !document.querySelector('#w1 .dx-whatif').textContent.includes('predicting'); }", timeout=60_000)
        page.locator("#w1 .dx-whatif").scroll_into_view_if_needed()
        # undo: back to the program as it is, in the same output
        page.locator("#w1 .dx-whatif .dx-undo-one").click()
        page.wait_for_function("() => document.querySelectorAll('#w1 .dx-graph .point').length > 0 &&"
                               " !document.querySelector('#w1 .dx-graph-b')", timeout=60_000)
        assert page.locator("#w1 .dx-whatif").is_hidden()
        _run_cell(page, 1)
        _outputs_include(page, "moves: [] False")
        # the frame's keys inside the output (host/keys.js): a press on the graph gives the widget the keys, "/" its
        # search box, Escape clears; the notebook's own keys stay the notebook's elsewhere
        page.locator("#w1 .dx-graph").click(position={"x": 8, "y": 8})
        page.keyboard.press("/")
        assert page.evaluate("() => !!document.activeElement && document.activeElement.matches('#w1 .dx-search')")
        page.keyboard.type("%1")
        page.wait_for_function("() => document.querySelector('#w1').dxApp.state.values[0] === 1")
        page.keyboard.press("Escape")
        page.wait_for_function("() => document.querySelector('#w1').dxApp.state.values.length === 0")

        # a placement executorch refuses: its reason in the view, the moves as they were
        page.locator("#w2").scroll_into_view_if_needed()
        settled(page, "#w2 .dx-graph")
        _click_op(page, "#w2 .dx-graph", 0)
        page.locator("#w2 .dx-details .dx-move-to", has_text="cuda:0").click()
        error = page.locator("#w2 .dx-whatif .dx-whatif-error")
        error.wait_for(timeout=60_000)
        assert "executorch 1.5.1 would refuse to export this placement" in error.inner_text()
        assert "Traceback" not in page.locator("#w2").inner_text()
        assert page.locator("#w2 .dx-whatif .dx-move-chip").count() == 0, "the refused move is not kept"
        assert page.locator("#w2 .dx-graph-b").count() == 0
        assert page.evaluate(BAR_LAYOUT_JS, "#w2 .dx-whatif") == []
        page.locator("#w2 .dx-whatif").screenshot(path=str(ARTIFACTS / "whatif_lab_refused.png"))
        _run_cell(page, 3)
        _outputs_include(page, "refused: [] True")
        assert not [m for m in messages if m.startswith("pageerror")], messages


# the widget's front end (the anywidget bundle) in a plain page over a stand-in model whose kernel answers the page's
# {type: "base"} with the widget's app payload (widget/whatif.py _on_base): no JupyterLab, the widget's own code
STAND_IN = """<!doctype html><html><head><meta charset="utf-8"><style>CSS</style><script src="PLOTLY"></script></head>
<body><div id="out" style="width:1180px"></div><script type="module">ESM
const b64 = (s) => { const b = atob(s), u = new Uint8Array(b.length); for (let k = 0; k < b.length; k++) u[k] = b.charCodeAt(k);
                     return new DataView(u.buffer); };
const data = DATA, state = Object.assign({}, data.state, {_payload: b64(data.payloads.first)}), handlers = new Map();
const fire = (e, ...args) => { for (const cb of (handlers.get(e) || []).slice()) cb(...args); };
window.__asked = [];
window.__model = {
  get: (k) => state[k], set(k, v) { state[k] = v; fire("change:" + k); }, save_changes() {},
  on(e, cb) { if (!handlers.has(e)) handlers.set(e, []); handlers.get(e).push(cb); },
  off(e, cb) { handlers.set(e, (handlers.get(e) || []).filter((f) => cb && f !== cb)); },
  send(msg) { window.__asked.push(msg.type);  // the kernel answers, later, as a comm does
    if (msg.type === "base") setTimeout(() => fire("msg:custom", {type: "base"}, [b64(data.payloads.base)]), 50); },
};
window.__show = (name) => window.__model.set("_payload", b64(data.payloads[name]));
window.__el = document.getElementById("out");
globalThis.__dxWidget.render({model: window.__model, el: window.__el});
</script></body></html>"""


def test_a_widget_opened_with_moves_asks_for_its_original_once(tmp_path):
    """Issue 31: a move's payload refers to the original's tables in the app payload the page decoded when the widget
    opened. Opened with moves, the page has none: it asks the kernel once ({type: "base"}), draws the diff with A from
    the answer, and later moves, the original again and another move never ask again (nor decode A again)."""
    import base64
    import json

    from explorer import frontend

    ex = explorer.Explorer(FIXTURE, moves=["delegate:*=cuda:0"])
    state = {k: v for k, v in ex.get_state().items() if k not in ("_esm", "_css") and not isinstance(v, (bytes, memoryview))}
    payloads = {"first": ex._payload, "base": ex._original_payload}
    ex.moves = ["@1=cuda:0"]
    payloads["second"] = ex._payload
    payloads["original"] = ex._original_payload
    html = (STAND_IN.replace("CSS", frontend.css())
            .replace("PLOTLY", (Path(frontend.__file__).parent / "vendor" / "plotly.min.js").as_uri())
            .replace("DATA", json.dumps({"state": state, "payloads": {k: base64.b64encode(v).decode() for k, v in payloads.items()}}))
            .replace("ESM", frontend.bundle("widget").replace("export default {render:", "globalThis.__dxWidget = {render:")))
    (tmp_path / "widget.html").write_text(html, encoding="utf-8")
    points = """(sel) => { const gd = document.querySelector(sel); return gd && gd.data ? gd.data.reduce((n, t) => n + (t.x || []).length, 0) : 0; }"""
    with chromium() as (page, messages), screenshot_on_failure(page, "whatif_widget_base_failure.png"):
        page.goto((tmp_path / "widget.html").as_uri())
        drawn = 0
        for step in ("first", "second", "original", "second"):
            if step != "first":
                page.evaluate("(name) => window.__show(name)", step)
            drawn += 1
            page.wait_for_function("(n) => window.__el.dataset.drawn === String(n)", arg=drawn, timeout=60_000)
            mode = page.evaluate("() => window.__el.dxApp.mode")
            assert mode == ("app" if step == "original" else "diff"), step
            if mode == "diff":
                assert page.evaluate(points, ".dx-graph-a") > 0 and page.evaluate(points, ".dx-graph-b") > 0, step
            assert page.evaluate("() => window.__asked.filter((t) => t === 'base').length") == 1, step
        assert not [m for m in messages if m.startswith(("error", "pageerror"))], messages
