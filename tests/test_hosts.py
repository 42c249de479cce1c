"""The widget in every notebook host a user may have, in headless Chromium (how they run: docs/testing.md).

JupyterLab 4 is covered by ``test_browser.py`` (light and dark, a re-run, a click read back in Python). Here: Notebook 7,
Voilà, marimo (``mo.ui.anywidget``: ``marimo run`` and the editor, ``marimo edit``) and the HTML page ``jupyter nbconvert
--to html`` writes. Every server starts once, all at once when the module starts (their start-up overlaps; each test waits
only for its own), and each host runs one page: drawn (the bundled sample: one marker per tensor), clicked (the details
name the tensor) and the click read back in Python through the host; its dark theme read (text contrast ≥ 4.5, light
text on the host's dark background); a cell showing a big program run again where the host runs cells (every group of
its overview drawn after the re-run). A page without a kernel shows the static summary, and one line where a widget
manager runs. Screenshots go to ``artifacts/hosts_*.png``; the measured times to ``artifacts/hosts_timings.json``.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    CONTRAST_JS,
    TRACE_POINTS_JS,
    _kernel_env,
    assert_overview_shows_its_groups,
    chromium,
    contrasts,
    free_port,
    point_of,
    require_browser,
    rerun_cell,
    run_all,
    screenshot_on_failure,
    stop_server,
    write_notebook,
)

import explorer
from explorer import frontend
from explorer.views.state.overview import OVERVIEW_TRACE, TRACE

pytestmark = pytest.mark.browser

TIMINGS: dict[str, dict[str, float]] = {}
BIG = Path(__file__).parent / "fixtures" / "named" / "transformer3k"  # 3k values: drawn in stages, folded into groups
SAMPLE_CELL = "import explorer\nex = explorer.Explorer()\nex"
PRINT_CELL = "print('selected:', ex.selected)"
# Voilà shows no code and runs no cell on request: a person's click reaches Python through an observer of the widget
OBSERVER_CELL = '''import ipywidgets
seen = ipywidgets.Output()
def show_selection(change):
    with seen:
        seen.clear_output(wait=True)
        print("observed:", change["new"])
ex.observe(show_selection, "selected")
seen'''
BIG_CELL = "big = explorer.Explorer('transformer3k.pte', data=['transformer3k.ptd'])\nbig"
NOTEBOOK7_CELLS = [SAMPLE_CELL, PRINT_CELL, OBSERVER_CELL, BIG_CELL]
VOILA_CELLS = [SAMPLE_CELL, OBSERVER_CELL]
EXPORT_CELLS = [SAMPLE_CELL, PRINT_CELL]

MARIMO_CELLS = '''

@app.cell
def _():
    import marimo as mo
    import explorer
    ex = mo.ui.anywidget(explorer.Explorer())
    ex
    return ex, explorer, mo


@app.cell
def _(ex, mo):
    ex.value
    mo.plain_text(f"selected: {ex.widget.selected}")
    return
'''
# `marimo run`: the app in marimo's dark theme (the notebook's own settings, as a script header: PEP 723)
MARIMO_APP = '''# /// script
# [tool.marimo.display]
# theme = "dark"
# ///
import marimo
app = marimo.App(width="medium")
''' + MARIMO_CELLS + '''

if __name__ == "__main__":
    app.run()
'''
# marimo's editor: the same cells, a widget given its own height, and the big program (its cell run again); its theme
# the system's (the page's prefers-color-scheme: light, then dark in the test)
MARIMO_EDIT_APP = '''# /// script
# [tool.marimo.display]
# theme = "system"
# ///
import marimo
app = marimo.App(width="medium")
''' + MARIMO_CELLS + '''

@app.cell
def _(explorer, mo):
    short = mo.ui.anywidget(explorer.Explorer(height=420))
    short
    return


@app.cell
def _(explorer, mo):
    big = mo.ui.anywidget(explorer.Explorer("transformer3k.pte", data=["transformer3k.ptd"]))
    big
    return


if __name__ == "__main__":
    app.run()
'''

# A widget in its box (the host's cap or its `height`), at the box's scroll top: the box, the parts' edges against it, and
# whether the compact layout is on (app/fit.js)
FIT_JS = """(el) => { const box = el.getBoundingClientRect(), part = (sel) => el.querySelector(sel).getBoundingClientRect();
  const inside = (r) => r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  const c = part('.dx-controls'), g = part('.dx-graph-card'), m = part('.dx-memory'), s = part('.dx-memory-card');
  return {fit: el.classList.contains('dx-fit'), compact: !!el.querySelector('.dx-app.dx-compact'), max: el.style.maxHeight,
          h: box.height, scrollTop: el.scrollTop, controlsH: c.height, controls: inside(c), graph: inside(g), memory: inside(m),
          memoryCard: inside(s), sideBySide: Math.abs(g.top - s.top) < 2 && s.left >= g.right}; }"""
# the relative luminance of an element's text: a dark theme writes light text (> 0.4), a light one dark text
TEXT_LUMINANCE_JS = """(el) => { const m = /rgba?\\(([^)]+)\\)/.exec(getComputedStyle(el).color), p = m[1].split(/[\\s,\\/]+/).map(Number);
  return p.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0); }"""


@pytest.fixture(scope="module", autouse=True)
def _browser_available():
    require_browser()
    ARTIFACTS.mkdir(exist_ok=True)
    yield
    (ARTIFACTS / "hosts_timings.json").write_text(json.dumps(TIMINGS, indent=1))


@pytest.fixture(scope="module")
def sample():
    """What a click must show: the first cuda:0 tensor of the bundled sample, its label and value id."""
    ex = explorer.Explorer()
    plan = ex.program.plan(ex.plan)
    flow = ex.analysis.dataflow  # the graph draws every tensor an instruction reads or writes
    tensors = sorted({v for i in range(len(plan.instructions)) for v in (*flow.reads[i], *flow.writes[i])
                      if isinstance(plan.values[v], explorer.Tensor)})
    value = next(v for v in tensors if str(plan.values[v].device) == "cuda:0")
    return {"n": len(tensors), "value": value, "label": plan.values[value].label}


class Started:
    """A process the tests started (a host's server, a conversion), stopped by its own handle."""

    def __init__(self, name: str, args: list[str], root: Path, ready_url: str | None = None):
        self.name, self.root, self.ready_url, self.ok = name, root, ready_url, False
        self.log = open(root / f"{name}.log", "w")  # noqa: SIM115 - closed by stop, after the process
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, cwd=root, env=_kernel_env())

    def ready(self, timeout: float = 120) -> None:
        """Wait until the server answers ``ready_url`` (or, with none, until the process ended well)."""
        deadline = time.monotonic() + timeout
        while not self.ok:
            done = self.proc.poll()
            if done is not None and (self.ready_url or done != 0):
                raise RuntimeError(f"{self.name} exited ({done}):\n{(self.root / f'{self.name}.log').read_text()[-3000:]}")
            if self.ready_url is None:
                self.ok = done == 0
            else:
                with contextlib.suppress(OSError):
                    with urllib.request.urlopen(self.ready_url, timeout=2) as r:
                        self.ok = r.status == 200
            if not self.ok:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{self.name} not ready within {timeout} s")
                time.sleep(0.2)

    def stop(self) -> None:
        if self.proc.poll() is None:
            stop_server(self.proc, self.log)
        else:
            self.log.close()


@pytest.fixture(scope="module")
def notebook_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("hosts")
    write_notebook(root / "explorer.ipynb", NOTEBOOK7_CELLS)
    write_notebook(root / "voila.ipynb", VOILA_CELLS)
    write_notebook(root / "export.ipynb", EXPORT_CELLS)
    (root / "app.py").write_text(MARIMO_APP)
    (root / "edit.py").write_text(MARIMO_EDIT_APP)
    for suffix in (".pte", ".ptd"):
        shutil.copy(BIG.with_suffix(suffix), root)
    return root


HTML_MANAGER = "@jupyter-widgets/html-manager@1.0.15"
# index.js: how long a widget waits for a kernel's answer before it says it has none
NO_KERNEL_MS = int(re.search(r"const NO_KERNEL_MS = (\d+);", frontend.source("index.js")).group(1))


@pytest.fixture(scope="module")
def hosts(notebook_dir):
    """Every server and the slow preparations, started at once: their start-ups overlap the first tests' pages."""
    from importlib.metadata import version

    py, root = sys.executable, notebook_dir
    marimo = [py, "-m", "marimo"]
    ports = {k: free_port() for k in ("marimo", "marimo_edit", "notebook")}
    token = secrets.token_hex(16)
    (root / "npm").mkdir()
    started: dict[str, Started] = {}
    specs = {
        "marimo": ([*marimo, "run", "app.py", "--headless", "--host", "127.0.0.1", "--port", str(ports["marimo"]), "--no-token"],
                   f"http://127.0.0.1:{ports['marimo']}/"),
        "marimo_edit": ([*marimo, "edit", "edit.py", "--headless", "--host", "127.0.0.1", "--port", str(ports["marimo_edit"]),
                         "--no-token"], f"http://127.0.0.1:{ports['marimo_edit']}/"),
        "notebook": ([py, "-m", "notebook", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={ports['notebook']}",
                      f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
                      # settings of its own (the page saves them through JupyterLab's handler, also loaded): the theme
                      # the test picks from the menu stays in this folder
                      *(f"--{app}.{kind}_dir={root / ('.nb-' + kind)}" for app in ("JupyterNotebookApp", "LabApp")
                        for kind in ("user_settings", "workspaces"))],
                     f"http://127.0.0.1:{ports['notebook']}/api/status?token={token}"),
        # the notebook executed once with its widget state saved, as `--to html --execute` does
        "execute": ([py, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                     "--ExecutePreprocessor.store_widget_state=True", "--output-dir", "executed", "export.ipynb"], None),
        # what an exported page fetches from a CDN to draw widgets (the html-manager, anywidget's front end at the
        # installed version), fetched once with npm's ordinary client so the page is replayed offline
        "npm": (["npm", "pack", "--silent", "--pack-destination", "npm", HTML_MANAGER, f"anywidget@{version('anywidget')}"], None),
    }
    try:
        for name, (args, url) in specs.items():
            started[name] = Started(name, args, root, url)
        yield {"started": started, "root": root,
               "urls": {"marimo": specs["marimo"][1], "marimo_edit": specs["marimo_edit"][1] + "?file=edit.py",
                        "notebook": f"http://127.0.0.1:{ports['notebook']}/notebooks/explorer.ipynb?token={token}",
                        # Voilà as the server's extension (the `voila` command serves the same handler on its own)
                        "voila": f"http://127.0.0.1:{ports['notebook']}/voila/render/voila.ipynb?token={token}"}}
    finally:
        for s in started.values():  # all asked to stop first: their shutdowns overlap too
            if s.proc.poll() is None:
                s.proc.terminate()
        for s in started.values():
            s.stop()


def host_url(hosts, name: str) -> str:
    hosts["started"]["notebook" if name == "voila" else name].ready()
    return hosts["urls"][name]


def draw_and_click(page, sample: dict, name: str, start: float) -> dict:
    """Wait for the graph drawn in full, click the sample's cuda:0 tensor, wait for its details."""
    times = {}
    app = page.locator(".dx-explorer").first
    graph = app.locator(".dx-graph")
    graph.wait_for(state="attached", timeout=90_000)
    # locators and handles, not document.querySelector: marimo renders the widget inside a shadow root
    page.wait_for_function("([g, n]) => g.querySelectorAll('.scatterlayer .point').length >= n",
                           arg=[graph.element_handle(), sample["n"]], timeout=90_000)
    times["open_to_drawn_s"] = time.monotonic() - start
    graph.scroll_into_view_if_needed()
    points = graph.evaluate(f"(gd, i) => ({TRACE_POINTS_JS})([gd, i])", TRACE["tensors"])
    assert points is not None and len(points) == sample["n"], "one marker per tensor"
    page.screenshot(path=str(ARTIFACTS / f"hosts_{name}.png"))
    target = point_of(points, sample["value"])
    page.mouse.move(target["x"], target["y"])
    app.locator(".dx-graph .hoverlayer .hovertext").first.wait_for(timeout=5_000)
    clicked = time.monotonic()
    page.mouse.click(target["x"], target["y"])
    page.wait_for_function("([d, label]) => d.textContent.includes(label) && d.textContent.includes('written by')",
                           arg=[app.locator(".dx-details").element_handle(), sample["label"]], timeout=10_000)
    times["click_to_details_s"] = time.monotonic() - clicked
    return times


def assert_dark(page, root: str = ".dx-explorer") -> dict:
    """The widget follows the host's dark theme: its text reads (contrast ≥ 4.5) and is light, a device chip shows its
    name (issue 32: in JupyterLab Dark the title was dark grey on black, the chips a dot with no text)."""
    dark = contrasts(page, root)
    assert all(r >= 4.5 for r in dark.values()), dark
    title = page.locator(f"{root} .dx-title").first
    assert title.evaluate(TEXT_LUMINANCE_JS) > 0.4, "the title is light text on the host's dark background"
    assert page.locator(f"{root} .dx-dev").first.inner_text().strip(), "a device chip shows its name"
    return dark


def assert_summary_hidden(page) -> None:
    """Beside a live widget, the static summary (the output after it: widget/base.py) is in the page but not shown."""
    summaries = page.locator(".dx-fallback")
    assert summaries.count() >= 1, "the static summary is in the page"
    assert not any(summaries.nth(k).is_visible() for k in range(summaries.count())), "and hidden beside a live widget"


def page_errors(messages: list[str]) -> list[str]:
    # Notebook 7.6 throws this one from its own settings loader on every page, its empty file browser too
    return [m for m in messages if m.startswith("pageerror") and "reading 'schema'" not in m]


def test_marimo_run_dark(hosts, notebook_dir, sample):
    """``marimo run`` of an app whose own settings ask for marimo's dark theme: the widget takes marimo's colours (its
    CSS variables reach the widget's shadow root), is drawn, and a click re-runs the cell reading its value."""
    url = host_url(hosts, "marimo")
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_marimo_failure.png", notebook_dir / "marimo.log"):
        start = time.monotonic()
        page.goto(url)
        times = draw_and_click(page, sample, "marimo", start)
        clicked = time.monotonic()
        # the second cell is reactive to the widget's value: marimo re-runs it after the click
        page.get_by_text(f"values=({sample['value']},)").first.wait_for(timeout=20_000)
        times["click_to_python_s"] = times["click_to_details_s"] + time.monotonic() - clicked
        assert page.evaluate("() => document.body.classList.contains('dark')"), "marimo runs the app dark"
        times["dark"] = assert_dark(page)
        page.locator(".dx-explorer .dx-head").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_marimo_dark.png"))
        TIMINGS["marimo"] = times
        assert not [m for m in messages if m.startswith("pageerror")]


def test_voila_dark_and_a_click_reaches_python(hosts, notebook_dir, sample):
    """Voilà with its dark theme (``?theme=dark``: JupyterLab's dark theme, whose variables the widget follows): drawn,
    and a click reaches Python: the widget's observer prints the selection into an Output widget under it. Voilà shows
    no code and runs no cell on request, so there is no re-run to check (docs/testing.md)."""
    url = host_url(hosts, "voila") + "&theme=dark"
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_voila_failure.png", notebook_dir / "notebook.log"):
        start = time.monotonic()
        page.goto(url)
        times = draw_and_click(page, sample, "voila", start)
        clicked = time.monotonic()
        page.locator(".jp-OutputArea-output", has_text=f"observed: Selection(plan='forward', values=({sample['value']},)")\
            .first.wait_for(timeout=20_000)
        times["click_to_python_s"] = times["click_to_details_s"] + time.monotonic() - clicked
        assert page.evaluate("() => document.body.dataset.jpThemeLight") == "false", "Voilà shows its dark theme"
        times["dark"] = assert_dark(page)
        assert_summary_hidden(page)
        page.locator(".dx-explorer .dx-head").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_voila_dark.png"))
        TIMINGS["voila"] = times
        assert not page_errors(messages)


def run_marimo_editor(page, widgets: int) -> None:
    """The editor opens with its cells not run ("outdated"): once they are there and its kernel is connected (the footer's
    status a check mark), press its "run all" button (the last run button) until the cells are queued, then wait for
    ``widgets`` widgets drawn."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.locator('[data-status="outdated"]').first.wait_for(state="attached", timeout=60_000)
    page.locator('[data-testid="backend-status"] .lucide-circle-check').wait_for(state="attached", timeout=60_000)
    for attempt in range(3):
        page.locator('[data-testid="run-button"]').last.click(timeout=60_000)
        try:
            page.locator('[data-status="queued"], [data-status="running"], .dx-explorer').first.wait_for(
                state="attached", timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    page.locator(".dx-explorer[data-drawn]").nth(widgets - 1).wait_for(state="attached", timeout=120_000)


# every widget element of the page, inside marimo's shadow roots too
DEEP_APPS_JS = """() => { const out = [], walk = (root) => { root.querySelectorAll('.dx-explorer').forEach((el) => out.push(el));
  root.querySelectorAll('*').forEach((el) => { if (el.shadowRoot) walk(el.shadowRoot); }); }; walk(document); return out; }"""


def rerun_marimo_cell(page, text: str, timeout_ms: int = 120_000):
    """Run the editor's cell whose code holds ``text`` again (its editor focused, Ctrl+Enter: marimo's "run cell") and
    wait for the widget it shows to be a new app, drawn in full (marimo may draw it in the element it had: the app, not
    the element, is new); returns that app's graph (an element handle)."""
    page.evaluate(f"() => {{ window.__dxOld = new Set(({DEEP_APPS_JS})().map((el) => el.dxApp)); }}")
    cell = page.locator(".marimo-cell", has=page.locator(".cm-content", has_text=text))
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+Enter")
    fresh = f"() => ({DEEP_APPS_JS})().find((el) => el.dxApp && el.dataset.drawn && !window.__dxOld.has(el.dxApp))"
    page.wait_for_function(fresh, timeout=timeout_ms)
    return page.evaluate_handle(f"() => ({fresh})().querySelector('.dx-graph')").as_element()


def test_marimo_edit_fits_its_box_reruns_and_is_reactive(hosts, notebook_dir, sample):
    """Issue 32 item 13: marimo's editor caps an output at ~610 px. In that box the app takes its compact layout
    (app/fit.js): the controls row on one line, the graph and the memory map side by side, all three inside the box with
    no scroll; ``Explorer(height=420)`` gets a box of its own, laid out the same. A click re-runs the cell reading the
    widget's value (marimo 0.25 does in the editor too). The cell showing a big program, run again, draws every group
    of its overview (issue 32 item 11). Then the system's theme turns dark: the editor and the widgets follow it."""
    url = host_url(hosts, "marimo_edit")
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_marimo_edit_failure.png", notebook_dir / "marimo_edit.log"):
        start = time.monotonic()
        page.goto(url)
        run_marimo_editor(page, widgets=3)
        first, short = page.locator(".dx-explorer").nth(0), page.locator(".dx-explorer").nth(1)
        for app, box in ((first, None), (short, "420px")):
            page.wait_for_function("(el) => el.classList.contains('dx-fit') && el.querySelector('.dx-compact')",
                                   arg=app.element_handle(), timeout=10_000)
            fit = app.evaluate(FIT_JS)
            assert fit["fit"] and fit["compact"] and fit["scrollTop"] == 0, fit
            assert fit["controls"] and fit["graph"] and fit["memory"] and fit["memoryCard"], fit  # no scroll needed
            assert fit["sideBySide"] and fit["controlsH"] < 48, fit  # the controls row on one line
            if box:
                assert fit["max"] == box, fit
        first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_marimo_edit_compact.png"))
        times = draw_and_click(page, sample, "marimo_edit", start)
        page.get_by_text(f"values=({sample['value']},)").first.wait_for(timeout=20_000)
        # the big program: drawn by "run all", then its cell run again
        big = page.locator(".dx-explorer").nth(2)
        assert_overview_shows_its_groups(page, big.locator(".dx-graph").element_handle(), OVERVIEW_TRACE["groups"])
        rerun = time.monotonic()
        graph = rerun_marimo_cell(page, "transformer3k")
        times["rerun_to_drawn_s"] = time.monotonic() - rerun
        assert_overview_shows_its_groups(page, graph, OVERVIEW_TRACE["groups"])
        assert page.locator(".dx-explorer").count() == 3, "the re-run cell shows one widget, not two"
        graph.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_marimo_edit_rerun.png"))
        # the system turns dark: marimo's editor follows it, and so do the widgets (marimo's own colours)
        assert not page.evaluate("() => document.body.classList.contains('dark')"), "the editor opened light"
        page.emulate_media(color_scheme="dark")
        page.wait_for_function("() => document.body.classList.contains('dark')", timeout=10_000)
        times["dark"] = assert_dark(page)
        first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_marimo_edit_dark.png"))
        TIMINGS["marimo_edit"] = times
        assert not [m for m in messages if m.startswith("pageerror")]


def switch_theme(page, theme: str) -> None:
    """Settings ▸ Theme ▸ ``theme``, as a person picks it in Notebook 7 (JupyterLab's menu), until the page says so."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel").get_by_text(theme, exact=True).click()
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false' && getComputedStyle(document.body)"
                           ".getPropertyValue('--jp-layout-color0').trim() !== '#fff'", timeout=15_000)


def run_all_taken(page) -> None:
    """Run ▸ Run All Cells, pressed again when the notebook did not take it (its kernel still connecting: the first
    cell's prompt neither queued nor counted)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(3):
        run_all(page)
        try:  # (read anew each time: the notebook may draw the prompt again)
            page.wait_for_function("() => /\\[[*0-9]/.test(document.querySelector('.jp-Notebook .jp-Cell .jp-InputPrompt')"
                                   ".textContent)", timeout=10_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise


def test_notebook7(hosts, notebook_dir, sample):
    """Notebook 7, one page: the sample drawn and clicked, the click read back by running the ``print(ex.selected)``
    cell again and by the widget's observer; light and dark (JupyterLab Dark from the Settings menu) both read; the cell
    showing a big program, drawn by "Run all" and run again (Shift+Enter), shows every group of its overview (issue 32
    item 11: a re-run drew one group)."""
    url = host_url(hosts, "notebook")
    big = ".dx-explorer:not([data-old]) .dx-graph"
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_notebook7_failure.png", notebook_dir / "notebook.log"):
        start = time.monotonic()
        page.goto(url)
        # its kernel connected: the execution indicator is idle once before there is a kernel ("No Kernel"), then again
        page.wait_for_function("() => { const i = document.querySelector('.jp-Notebook-ExecutionIndicator'),"
                               " k = document.querySelector('.jp-Toolbar-kernelName');"
                               " return i && i.dataset.status === 'idle' && k && /\\S/.test(k.textContent)"
                               " && k.textContent.trim() !== 'No Kernel'; }", timeout=60_000)
        run_all_taken(page)
        times = draw_and_click(page, sample, "notebook7", start)
        clicked = time.monotonic()
        # Python sees the click: the `print(ex.selected)` cell run again, and the observer's Output
        page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.locator(".jp-OutputArea-output", has_text=f"values=({sample['value']},)").first.wait_for(timeout=20_000)
        page.locator(".jp-OutputArea-output", has_text=f"observed: Selection(plan='forward', values=({sample['value']},)")\
            .first.wait_for(timeout=20_000)
        times["click_to_python_s"] = times["click_to_details_s"] + time.monotonic() - clicked
        light = contrasts(page, ".dx-explorer")
        assert all(r >= 4.5 for r in light.values()), light
        switch_theme(page, "JupyterLab Dark")
        times["dark"] = assert_dark(page)
        # the big program (the fourth cell): drawn by "Run all", then run again
        page.locator(".dx-explorer[data-drawn]").nth(1).wait_for(state="attached", timeout=120_000)
        first_run = page.locator(".dx-explorer").nth(1).locator(".dx-graph").element_handle()
        assert_overview_shows_its_groups(page, first_run, OVERVIEW_TRACE["groups"])
        rerun = time.monotonic()
        rerun_cell(page, cell=3)
        times["rerun_to_drawn_s"] = time.monotonic() - rerun
        assert page.locator(big).count() == 1
        assert_overview_shows_its_groups(page, big, OVERVIEW_TRACE["groups"])
        page.locator(big).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_notebook7_dark_rerun.png"))
        assert_summary_hidden(page)
        TIMINGS["notebook7"] = times
        assert not page_errors(messages)


def offline_cdn(scripts: Path):
    """Serve the page's CDN requests from ``scripts`` (require.js from Voilà's copy); abort anything else."""
    require = Path(sys.prefix) / "share" / "jupyter" / "voila" / "templates" / "base" / "static" / "require.min.js"

    def handle(route):
        url = route.request.url
        if url.startswith("file:"):
            return route.continue_()
        if url.endswith("require.min.js"):
            return route.fulfill(path=str(require), content_type="text/javascript")
        m = re.search(r"@jupyter-widgets/html-manager@[^/]*/dist/(.*)$", url)
        if m:
            return route.fulfill(path=str(scripts / "html-manager" / "package" / "dist" / m.group(1)),
                                 content_type="text/javascript")
        m = re.search(r"anywidget@[^/]*/dist/(.*?)(\.js)?$", url)
        if m:
            return route.fulfill(path=str(scripts / "anywidget" / "package" / "dist" / (m.group(1) + ".js")),
                                 content_type="text/javascript")
        return route.abort()
    return handle


def widget_scripts(hosts) -> Path:
    """The npm packages the `npm` start fetched, unpacked: html-manager/ and anywidget/."""
    hosts["started"]["npm"].ready(timeout=180)
    root = hosts["root"] / "npm"
    for tgz in root.glob("*.tgz"):
        folder = root / ("anywidget" if "anywidget" in tgz.name else "html-manager")
        folder.mkdir(exist_ok=True)
        subprocess.run(["tar", "xzf", str(tgz), "-C", str(folder)], check=True)
    return root


def to_html(notebook, out: Path, **options) -> Path:
    """What ``jupyter nbconvert --to html`` writes (its HTMLExporter, in this process; ``options``: its traits)."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(**options).from_notebook_node(notebook)
    out.write_text(body, encoding="utf-8")
    return out


def test_nbconvert_pages(hosts, notebook_dir, sample):
    """The page ``jupyter nbconvert --to html --execute`` writes, opened from disk. Saved with its widget state (issue 32
    item 14): offline, where the widget manager cannot load, nbconvert writes the widget view alone and the output was
    blank; the static summary (the output after the view: widget/base.py) now shows. The same page with the widget
    manager replayed from its CDN: the widget says in one line that it needs a kernel, and the summary shows with it.
    Saved without its state (JupyterLab's default): the summary, its names as text. In nbconvert's dark theme it reads."""
    import nbformat

    hosts["started"]["execute"].ready(timeout=180)
    saved = nbformat.read(str(notebook_dir / "executed" / "export.ipynb"), as_version=4)
    assert "application/vnd.jupyter.widget-state+json" in saved.metadata.get("widgets", {}), "the state is saved"
    plain = nbformat.from_dict(json.loads(json.dumps(saved)))
    plain.metadata.pop("widgets")  # as JupyterLab saves it ("Save Widget State Automatically" is off)
    pages = {"saved": to_html(saved, notebook_dir / "saved.html"), "plain": to_html(plain, notebook_dir / "plain.html"),
             "dark": to_html(saved, notebook_dir / "dark.html", theme="dark")}
    assert 'type="application/vnd.jupyter.widget-view+json"' in pages["saved"].read_text(encoding="utf-8")
    offline = lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()  # noqa: E731
    with chromium((1280, 800)) as (page, messages), screenshot_on_failure(page, "hosts_nbconvert_failure.png"):
        page.route("**/*", offline)
        for name in ("saved", "plain", "dark"):
            page.goto(pages[name].as_uri())
            summary = page.locator(".dx-fallback")
            summary.wait_for(state="visible", timeout=30_000)
            assert summary.count() == 1
            text = summary.inner_text()
            assert "sample.pte" in text and "arena 2 · cuda:0" in text and f"{sample['n']} tensors" in text, text
            assert "device-explorer show sample.pte -o report.html" in text and "save_html" in text
            assert summary.locator("script, style, [style]").count() == 0
            assert page.locator(".dx-explorer").count() == 0, "no widget manager ran"
            if name == "dark":
                assert page.evaluate("() => document.body.dataset.jpThemeLight") == "false"
                assert summary.locator("p").first.evaluate(CONTRAST_JS) >= 4.5
            summary.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"hosts_nbconvert_offline_{name}.png"))
    scripts = widget_scripts(hosts)
    with chromium((1280, 800)) as (page, messages), screenshot_on_failure(page, "hosts_nbconvert_cdn_failure.png"):
        page.route("**/*", offline_cdn(scripts))
        page.clock.install()  # the page's timers, run forward below rather than waited for
        start = time.monotonic()
        page.goto(pages["saved"].as_uri())
        page.wait_for_selector(".dx-explorer .dx-loading", timeout=60_000)  # the widget's own code runs
        assert page.locator(".dx-explorer .dx-no-kernel").count() == 0, "it waits for a kernel first (index.js NO_KERNEL_MS)"
        page.clock.run_for(NO_KERNEL_MS)  # nobody answers the request for plotly.js meanwhile
        page.wait_for_selector(".dx-explorer .dx-no-kernel", timeout=30_000)
        TIMINGS["nbconvert"] = {"open_to_message_s": time.monotonic() - start}
        text = page.locator(".dx-explorer .dx-no-kernel").inner_text()
        assert "live Python kernel" in text and "save_html" in text and "device-explorer show" in text
        assert "drawing" not in page.locator(".dx-explorer").inner_text()
        assert page.locator(".dx-fallback").is_visible(), "without a kernel the summary shows under the line"
        page.locator(".dx-explorer").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_nbconvert.png"))
