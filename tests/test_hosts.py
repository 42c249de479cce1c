"""The widget in every notebook host a user may have, in headless Chromium (how they run: docs/testing.md).

JupyterLab 4 is covered by ``test_browser.py``. Here: marimo (``mo.ui.anywidget``, the app server the
tests launch), Voilà (a server the tests launch), Notebook 7, and the HTML page ``jupyter nbconvert --to
html --execute`` writes with the widget state saved. Each host is started once per run (module-scoped fixtures) and shared;
each is drawn (the bundled sample: one marker per tensor), clicked (the details panel names the tensor),
and where there is a kernel the click is read back in Python through the host itself. A page without a
kernel must say so in one line (never "drawing…" forever). Screenshots go to ``artifacts/hosts_*.png``;
the measured times to ``artifacts/hosts_timings.json``.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    TRACE_POINTS_JS,
    assert_overview_shows_its_groups,
    point_of,
    rerun_cell,
    _kernel_env,
    chromium,
    free_port,
    require_browser,
    stop_server,
    run_all,
    screenshot_on_failure,
    write_notebook,
)

import explorer
from explorer.views.state.overview import OVERVIEW_TRACE, TRACE

pytestmark = pytest.mark.browser

TIMINGS: dict[str, dict[str, float]] = {}
NOTEBOOK_CELLS = ["import explorer\nex = explorer.Explorer()\nex", "print('selected:', ex.selected)"]
MARIMO_APP = '''import marimo
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import explorer
    ex = mo.ui.anywidget(explorer.Explorer())
    ex
    return ex, mo


@app.cell
def _(ex, mo):
    ex.value
    mo.plain_text(f"selected: {ex.widget.selected}")
    return


if __name__ == "__main__":
    app.run()
'''


# marimo's editor: the same two cells, and a widget given its own height
MARIMO_EDIT_APP = MARIMO_APP.replace('''

if __name__ == "__main__":''', '''

@app.cell
def _(explorer, mo):
    short = mo.ui.anywidget(explorer.Explorer(height=420))
    short
    return


if __name__ == "__main__":''')
FIT_JS = """(el) => { const box = el.getBoundingClientRect(), part = (sel) => el.querySelector(sel).getBoundingClientRect();
  let host = el.parentElement || el.getRootNode().host, cap = null;
  for (let d = 0; host && d < 40 && cap === null; d++) { const m = parseFloat(getComputedStyle(host).maxHeight);
    if (m > 0) cap = m; host = host.parentElement || (host.getRootNode && host.getRootNode().host); }
  const c = part('.dx-controls'), m = part('.dx-memory');
  return {fit: el.classList.contains('dx-fit'), max: el.style.maxHeight, h: box.height, cap,
          controls: c.top >= box.top - 1 && c.bottom <= box.bottom + 1, memory: m.top < box.bottom && m.bottom > box.top}; }"""


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


@contextlib.contextmanager
def server(args: list[str], root: Path, ready_url: str, name: str, timeout: float = 90):
    """Start a host's server in ``root``; wait until ``ready_url`` answers; stop it by its handle."""
    log = open(root / f"{name}.log", "w")  # noqa: SIM115 - closed below, after the server
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=root, env=_kernel_env())
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited early:\n{(root / f'{name}.log').read_text()[-3000:]}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(ready_url, timeout=2) as r:
                    if r.status == 200:
                        break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} did not answer on {ready_url} within {timeout} s")
            time.sleep(0.3)
        yield
    finally:
        stop_server(proc, log)


@pytest.fixture(scope="module")
def notebook_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("hosts")
    write_notebook(root / "explorer.ipynb", NOTEBOOK_CELLS)
    (root / "app.py").write_text(MARIMO_APP)
    (root / "edit.py").write_text(MARIMO_EDIT_APP)
    return root


@pytest.fixture(scope="module")
def marimo_server(notebook_dir):
    port = free_port()
    with server([sys.executable, "-m", "marimo", "run", "app.py", "--headless", "--host", "127.0.0.1",
                 "--port", str(port), "--no-token"], notebook_dir, f"http://127.0.0.1:{port}/", "marimo"):
        yield f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="module")
def marimo_edit_server(notebook_dir):
    port = free_port()
    with server([sys.executable, "-m", "marimo", "edit", "edit.py", "--headless", "--host", "127.0.0.1",
                 "--port", str(port), "--no-token"], notebook_dir, f"http://127.0.0.1:{port}/", "marimo_edit"):
        yield f"http://127.0.0.1:{port}/?file=edit.py"


@pytest.fixture(scope="module")
def voila_server(notebook_dir):
    port = free_port()
    with server([sys.executable, "-m", "voila", "explorer.ipynb", "--no-browser", f"--port={port}",
                 "--Voila.ip=127.0.0.1", "--show_tracebacks=True"], notebook_dir,
                f"http://127.0.0.1:{port}/voila/static/require.min.js", "voila"):
        yield f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="module")
def notebook7_server(notebook_dir):
    import secrets

    token, port = secrets.token_hex(16), free_port()
    with server([sys.executable, "-m", "notebook", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
                 f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebook_dir}"], notebook_dir,
                f"http://127.0.0.1:{port}/api/status?token={token}", "notebook"):
        yield f"http://127.0.0.1:{port}/notebooks/explorer.ipynb?token={token}"


def draw_and_click(page, sample: dict, name: str, start: float) -> dict:
    """Wait for the graph drawn in full, click the sample's cuda:0 tensor, wait for its details."""
    times = {}
    graph = page.locator(".dx-explorer .dx-graph").first
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
    page.locator(".dx-explorer .dx-graph .hoverlayer .hovertext").first.wait_for(timeout=5_000)
    clicked = time.monotonic()
    page.mouse.click(target["x"], target["y"])
    details = page.locator(".dx-explorer .dx-details").first.element_handle()
    page.wait_for_function("([d, label]) => d.textContent.includes(label) && d.textContent.includes('written by')",
                           arg=[details, sample["label"]], timeout=10_000)
    times["click_to_details_s"] = time.monotonic() - clicked
    page.screenshot(path=str(ARTIFACTS / f"hosts_{name}_clicked.png"))
    return times


def test_marimo(marimo_server, notebook_dir, sample):
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_marimo_failure.png", notebook_dir / "marimo.log"):
        start = time.monotonic()
        page.goto(marimo_server)
        times = draw_and_click(page, sample, "marimo", start)
        clicked = time.monotonic()
        # the second cell is reactive to the widget's value: marimo re-runs it after the click
        page.get_by_text(f"values=({sample['value']},)").first.wait_for(timeout=20_000)
        times["click_to_python_s"] = times["click_to_details_s"] + time.monotonic() - clicked
        TIMINGS["marimo"] = times
        assert page.locator(".dx-fallback").count() == 0, "the static summary stays hidden beside the live widget"
        assert not [m for m in messages if m.startswith("pageerror")]


def run_marimo_editor(page, timeout_s: float = 120) -> None:
    """The editor opens with its cells not run: press its "run all" button (the last run button) until the cells run
    (a press before the kernel is connected does nothing)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout_s
    while True:
        page.locator('[data-testid="run-button"]').last.click(timeout=60_000)
        try:
            page.locator(".dx-explorer").first.wait_for(state="attached", timeout=15_000)
            return
        except PlaywrightTimeout:
            if time.monotonic() > deadline:
                raise


def test_marimo_edit_fits_its_box_and_is_reactive(marimo_edit_server, notebook_dir, sample):
    """Issue 32 item 13: marimo's editor caps an output at ~610 px. The app scrolls in a box of that height with
    its controls row kept at the top (sticky) and the memory map reachable inside it; ``Explorer(height=...)`` sets
    the box; a click reaches a cell reading the widget's value (marimo 0.25 re-runs it in the editor too)."""
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_marimo_edit_failure.png", notebook_dir / "marimo_edit.log"):
        start = time.monotonic()
        page.goto(marimo_edit_server)
        run_marimo_editor(page)
        page.wait_for_function("([a, b]) => a.dataset.drawn && b.dataset.drawn",
                               arg=[page.locator(".dx-explorer").nth(0).element_handle(timeout=90_000),
                                    page.locator(".dx-explorer").nth(1).element_handle(timeout=90_000)], timeout=90_000)
        first, short = page.locator(".dx-explorer").nth(0), page.locator(".dx-explorer").nth(1)
        page.wait_for_function("(el) => el.classList.contains('dx-fit')", arg=first.element_handle(), timeout=10_000)
        fit = first.evaluate(FIT_JS)
        assert fit["fit"] and fit["cap"] and fit["h"] <= fit["cap"], fit
        assert short.evaluate(FIT_JS)["max"] == "420px"
        first.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")  # to the end of its box: the memory map
        page.wait_for_function("(el) => el.scrollTop > 0", arg=first.element_handle())
        scrolled = first.evaluate(FIT_JS)
        assert scrolled["memory"] and scrolled["controls"], scrolled
        page.screenshot(path=str(ARTIFACTS / "hosts_marimo_edit_scrolled.png"))
        first.evaluate("(el) => { el.scrollTop = 0; }")
        times = draw_and_click(page, sample, "marimo_edit", start)
        page.get_by_text(f"values=({sample['value']},)").first.wait_for(timeout=20_000)
        TIMINGS["marimo_edit"] = times
        assert not [m for m in messages if m.startswith("pageerror")]


def test_notebook7(notebook7_server, notebook_dir, sample):
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_notebook7_failure.png", notebook_dir / "notebook.log"):
        start = time.monotonic()
        page.goto(notebook7_server)
        page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=60_000)
        run_all(page)
        times = draw_and_click(page, sample, "notebook7", start)
        clicked = time.monotonic()
        # Python sees the click: run the `print(ex.selected)` cell again
        page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.locator(".jp-OutputArea-output", has_text=f"values=({sample['value']},)").first.wait_for(timeout=20_000)
        times["click_to_python_s"] = times["click_to_details_s"] + time.monotonic() - clicked
        TIMINGS["notebook7"] = times
        assert page.locator(".dx-fallback").count() == 0, "the static summary stays hidden beside the live widget"
        # Notebook 7.6 throws this one from its own settings loader on every page, its empty file browser too
        ours = [m for m in messages if m.startswith("pageerror") and "reading 'schema'" not in m]
        assert not ours


def test_notebook7_rerun_draws_every_group(notebook7_server, notebook_dir):
    """Issue 32 item 11: running a cell that shows a big program again (Shift+Enter) drew one group of it (the
    widget's overlays, decoded first, drew before the staged first view, at the skeleton's ranges). The first run and
    each re-run show the overview's groups."""
    import shutil

    named = Path(__file__).parent / "fixtures" / "named"
    for suffix in (".pte", ".ptd"):
        shutil.copy(named / f"transformer3k{suffix}", notebook_dir)
    write_notebook(notebook_dir / "rerun.ipynb", ["import explorer\nex = explorer.Explorer('transformer3k.pte', "
                                                  "data=['transformer3k.ptd'])\nex"])
    graph = ".dx-explorer .dx-graph"
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_notebook7_rerun_failure.png", notebook_dir / "notebook.log"):
        page.goto(notebook7_server.replace("explorer.ipynb", "rerun.ipynb"))
        page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=60_000)
        for _ in range(3):  # the first run, then twice again
            rerun_cell(page)
            assert page.locator(graph).count() == 1
            assert_overview_shows_its_groups(page, graph, OVERVIEW_TRACE["groups"])
        assert page.locator(".dx-fallback").count() == 0
        ours = [m for m in messages if m.startswith("pageerror") and "reading 'schema'" not in m]
        assert not ours


def test_voila(voila_server, notebook_dir, sample):
    with chromium((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "hosts_voila_failure.png", notebook_dir / "voila.log"):
        start = time.monotonic()
        page.goto(voila_server)
        times = draw_and_click(page, sample, "voila", start)
        TIMINGS["voila"] = times
        assert page.locator(".dx-fallback").count() == 0, "the static summary stays hidden beside the live widget"
        assert not [m for m in messages if m.startswith("pageerror")]


HTML_MANAGER = "@jupyter-widgets/html-manager@1.0.15"


@pytest.fixture(scope="module")
def widget_scripts(tmp_path_factory) -> Path:
    """What an exported page fetches from a CDN to draw widgets (the html-manager, anywidget's front end at
    the installed version), fetched once with npm's ordinary client so the page is replayed offline."""
    from importlib.metadata import version

    root = tmp_path_factory.mktemp("npm")
    specs = [HTML_MANAGER, f"anywidget@{version('anywidget')}"]
    done = subprocess.run(["npm", "pack", "--silent", *specs], cwd=root, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"npm pack {specs} failed: {done.stderr[-2000:]}"
    for tgz, name in zip(sorted(root.glob("*.tgz"), key=lambda p: "anywidget" not in p.name), ("anywidget", "html-manager")):
        (root / name).mkdir()
        subprocess.run(["tar", "xzf", str(tgz), "-C", str(root / name)], check=True)
    return root


def offline_cdn(scripts: Path):
    """Serve the page's CDN requests from ``scripts`` (require.js from Voilà's copy); abort anything else."""
    import re

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


@pytest.fixture(scope="module")
def executed_notebook(notebook_dir) -> Path:
    """The notebook executed once by nbconvert with its widget state saved (as ``--to html --execute`` does)."""
    out = notebook_dir / "executed"
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                    "--ExecutePreprocessor.store_widget_state=True", "--output-dir", str(out),
                    str(notebook_dir / "explorer.ipynb")], check=True, env=_kernel_env(), capture_output=True)
    return out / "explorer.ipynb"


def to_html(notebook: Path, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(out), str(notebook)],
                   check=True, env=_kernel_env(), capture_output=True)
    return out / (notebook.stem + ".html")


def test_nbconvert_export_says_it_needs_a_kernel(notebook_dir, executed_notebook, widget_scripts):
    """The saved page has the widget's state but no kernel to hand over plotly.js: one line, no spinner."""
    out = notebook_dir / "export"
    html = to_html(executed_notebook, out).read_text(encoding="utf-8")
    assert "application/vnd.jupyter.widget-state+json" in html, "the widget state is saved in the page"
    with chromium((1280, 800)) as (page, messages), screenshot_on_failure(page, "hosts_nbconvert_failure.png"):
        page.route("**/*", offline_cdn(widget_scripts))
        start = time.monotonic()
        page.goto((out / "explorer.html").as_uri())
        page.wait_for_selector(".dx-explorer .dx-loading", timeout=60_000)  # the widget's own code runs
        page.wait_for_selector(".dx-explorer .dx-no-kernel", timeout=30_000)
        TIMINGS["nbconvert"] = {"open_to_message_s": time.monotonic() - start}
        text = page.locator(".dx-explorer .dx-no-kernel").inner_text()
        assert "live Python kernel" in text and "save_html" in text and "device-explorer show" in text
        assert "drawing" not in page.locator(".dx-explorer").inner_text()
        assert page.locator(".dx-fallback").count() == 0, "nbconvert writes the widget view alone when its state is saved"
        page.locator(".dx-explorer").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hosts_nbconvert.png"))


def test_nbconvert_page_offline_shows_the_static_summary(notebook_dir, executed_notebook, sample):
    """A notebook executed and saved without its widget state (JupyterLab's default), converted to HTML and opened
    with every request refused: no widget manager runs, and the output shows the widget's static summary
    (views/fragments/fallback.py) instead of nothing; its names are text, nothing in it runs."""
    import nbformat

    nb = nbformat.read(str(executed_notebook), as_version=4)
    nb.metadata.pop("widgets", None)  # as JupyterLab saves it ("Save Widget State Automatically" is off)
    plain = notebook_dir / "plain" / "explorer.ipynb"
    plain.parent.mkdir()
    nbformat.write(nb, str(plain))
    out = notebook_dir / "export_plain"
    assert "dx-fallback" in to_html(plain, out).read_text(encoding="utf-8")
    with chromium((1280, 800)) as (page, messages), screenshot_on_failure(page, "hosts_nbconvert_offline_failure.png"):
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
        page.goto((out / "explorer.html").as_uri())
        summary = page.locator(".dx-fallback")
        summary.wait_for(timeout=30_000)
        text = summary.inner_text()
        assert "sample.pte" in text and "cuda:0" in text and "arena 2 · cuda:0" in text, text
        assert "device-explorer show sample.pte -o report.html" in text and "save_html" in text
        assert f"{sample['n']} tensors" in text
        assert summary.locator("script, style, [style]").count() == 0
        page.screenshot(path=str(ARTIFACTS / "hosts_nbconvert_offline.png"))
