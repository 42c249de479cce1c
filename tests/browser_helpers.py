"""JupyterLab and headless Chromium for the browser tests (how they run here: docs/testing.md).

* Chromium is Debian's (``/usr/bin/chromium``), driven by Python Playwright; never ``playwright install``.
* JupyterLab starts once per test process (the suite's 6 minutes have no room for a server per test) on a free
  loopback port, with its own root, workspace and settings folders; each test's folder is linked under that root,
  opened in a workspace of its own (so no other test's tabs reopen; the news toast stays away), and its kernels
  are shut down when the test leaves. The server stops with the process, through its own handle.
* Chromium is launched once per test process too. Each report test (``chromium``) gets a new page of the
  process's one report context: the page's listeners, routes, scripts, clock and emulated media are its own, and
  the report pages keep no cookies or storage. A test that visits a server's page (http), or fails, drops that
  context: the next test gets a new one. Why not a context per test: a new context starts a new renderer and
  compiles the app and plotly.js again, ~2 CPU-s a page; a page of the kept context costs ~0.75 (docs/testing.md).
  The JupyterLab tests share the process's one Lab page (``lab_browser``, ``open_notebook``), since booting Lab's
  front end costs more CPU than most of them spend on their own checks.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
# --process-per-site: the report pages of a context (file: pages, one site) share one renderer, kept alive between
# tests by the context's keeper page, so each new page reuses the code V8 compiled for the last one
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--process-per-site"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def _kernel_env() -> dict:
    """The server's (and so the kernel's) environment: this checkout's ``explorer`` first on the path, so
    the notebook imports the code under test rather than whatever copy is installed."""
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([repo, *filter(None, [env.get("PYTHONPATH")])])
    return env


def require_browser() -> None:
    """Fail (never skip) without Chromium or Playwright: a skipped browser test would hide a gap.
    `.ci/run` installs both; locally, `apt-get install chromium` and the `test` extra do."""
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(f"{CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install '.[test]')")
    if missing:
        pytest.fail("browser test needs " + " and ".join(missing))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_LAB: dict = {}  # the one JupyterLab of this test process: proc, base, token, root, log
_LINKS = itertools.count()


def _start_lab(timeout: float) -> dict:
    root = Path(tempfile.mkdtemp(prefix="dex-lab-"))
    token = secrets.token_hex(16)
    port = free_port()
    settings = root / ".lab-settings"
    workspaces = root / ".lab-workspaces"
    notification = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    workspaces.mkdir(exist_ok=True)
    log = open(root / "jupyter.log", "w")  # noqa: SIM115 - closed by stop_server, after the server
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         f"--LabApp.workspaces_dir={workspaces}", f"--LabApp.user_settings_dir={settings}",
         "--ServerApp.open_browser=False", "--LabApp.news_url=None",
         # window.jupyterapp: open_notebook opens each test's notebook in the running page with Lab's own command
         "--LabApp.expose_app_in_browser=True"],
        stdout=log, stderr=subprocess.STDOUT, cwd=root, env=_kernel_env())
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            log.close()
            raise RuntimeError(f"jupyter lab exited early:\n{(root / 'jupyter.log').read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_server(proc, log)
            raise TimeoutError(f"jupyter lab did not answer on {base} within {timeout} s")
        time.sleep(0.3)
    atexit.register(stop_server, proc, log)
    return {"proc": proc, "base": base, "token": token, "root": root, "log": log}


def _api(method: str, url: str, token: str):
    request = urllib.request.Request(url, method=method, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as r:
        body = r.read()
    return json.loads(body) if body else None


def _shut_kernels(base: str, token: str) -> None:
    """Shut every kernel down (a test's kernels must not idle on the 2 cores through the next tests)."""
    for kernel in _api("GET", f"{base}/api/kernels", token):
        with contextlib.suppress(OSError):  # it may be gone already (the test restarted or shut it)
            _api("DELETE", f"{base}/api/kernels/{kernel['id']}", token)


@contextlib.contextmanager
def jupyter_lab(root: Path, timeout: float = 90):
    """JupyterLab serving ``root``: yields ``(base, token)``; open a notebook of ``root`` with ``lab_url``.

    The process's one server (started on first use) serves ``root`` through a link under its own root; the
    server's log is linked as ``root / "jupyter.log"`` for screenshot_on_failure. Kernels are shut on exit."""
    if not _LAB or _LAB["proc"].poll() is not None:
        _LAB.clear()
        _LAB.update(_start_lab(timeout))
    link = f"t{next(_LINKS)}"
    (_LAB["root"] / link).symlink_to(Path(root).resolve(), target_is_directory=True)
    with contextlib.suppress(FileExistsError):
        (Path(root) / "jupyter.log").symlink_to(_LAB["root"] / "jupyter.log")
    _LAB.setdefault("links", {})[str(Path(root).resolve())] = link
    try:
        yield _LAB["base"], _LAB["token"]
    finally:
        _shut_kernels(_LAB["base"], _LAB["token"])
        # what a test changed in the settings (a theme picked from the menu) must not reach the next test
        for changed in (_LAB["root"] / ".lab-settings").rglob("*.jupyterlab-settings"):
            if changed.name != "notification.jupyterlab-settings":
                changed.unlink()


def lab_url(base: str, token: str, notebook: Path) -> str:
    """The address that opens ``notebook`` (in a folder given to ``jupyter_lab``) in a workspace of its own."""
    notebook = Path(notebook).resolve()
    link = _LAB["links"][str(notebook.parent)]
    return f"{base}/lab/workspaces/{link}/tree/{link}/{notebook.name}?token={token}"


def _lab_path(notebook: Path) -> str:
    notebook = Path(notebook).resolve()
    return f"{_LAB['links'][str(notebook.parent)]}/{notebook.name}"


def open_notebook(page, base: str, token: str, notebook: Path, timeout_ms: int = 60_000) -> None:
    """Open ``notebook`` (in a folder given to ``jupyter_lab``) in the Lab page of ``lab_browser`` and wait until its
    kernel is idle: the first time by loading JupyterLab at ``lab_url``, later with Lab's ``docmanager:open`` in the
    page that is already running (the previous test closed its documents)."""
    running = page.url.startswith(base) and page.evaluate("() => !!window.jupyterapp")
    if not running:
        page.goto(lab_url(base, token, notebook))
    else:
        # nothing of an earlier test is left in the page: no notebook, no output of ours
        left = page.evaluate("() => [document.querySelectorAll('.jp-Notebook').length,"
                             " document.querySelectorAll('.dx-explorer').length]")
        assert left == [0, 0], f"the shared Lab page still shows an earlier test's notebooks/explorers: {left}"
        page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', {path}); }",
                      _lab_path(notebook))
    page.wait_for_function(
        "(path) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return !!w && !!w.context && w.context.path === path }", arg=_lab_path(notebook), timeout=timeout_ms)
    wait_kernel_idle(page, timeout_ms)


# what lab_browser leaves behind for the next test: no document (closed unsaved, no dialog) and the light theme
_LAB_RESET_JS = """
async () => {
  const app = window.jupyterapp;
  if (!app) return;
  for (const w of Array.from(app.shell.widgets('main'))) {
    if (w.context && w.context.model) w.context.model.dirty = false;
    w.dispose();
  }
  if (document.body.dataset.jpThemeName && document.body.dataset.jpThemeName !== 'JupyterLab Light')
    await app.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'});
}
"""

_LAB_PAGE: dict = {}  # the process's one JupyterLab page: its browser context and page


def _listen(page):
    """The page's console messages and uncaught errors, as lines (``"error: ..."``, ``"pageerror: ..."``), from now
    on; returns ``(messages, stop)``, ``stop()`` removing the listeners (a page shared with the next test)."""
    messages: list[str] = []

    def on_console(m):
        messages.append(f"{m.type}: {m.text}")

    def on_error(e):
        messages.append(f"pageerror: {e}")

    page.on("console", on_console)
    page.on("pageerror", on_error)

    def stop() -> None:
        page.remove_listener("console", on_console)
        page.remove_listener("pageerror", on_error)

    return messages, stop


@contextlib.contextmanager
def lab_browser(viewport=(1280, 1000)):
    """The process's one JupyterLab page, sized ``viewport``: yields ``(page, console_messages)`` like ``chromium``;
    open the test's notebook in it with ``open_notebook``. Nest it inside ``jupyter_lab``.

    Why one page: booting JupyterLab's front end costs ~6 CPU-seconds of Chromium, more than most Lab tests spend on
    their own checks, and the suite has 6 minutes on 2 cores. What a test leaves is undone when it leaves: its
    console listeners are removed, its documents closed unsaved, the light theme is back (and ``jupyter_lab`` shuts
    its kernels and removes the settings it changed). A test that fails takes the page with it: the next one loads
    a fresh page, so a failure never reaches another test."""
    if not _LAB_PAGE or _LAB_PAGE["page"].is_closed():
        context = _browser().new_context(viewport={"width": viewport[0], "height": viewport[1]})
        _LAB_PAGE.clear()
        _LAB_PAGE.update(context=context, page=context.new_page())
    page = _LAB_PAGE["page"]
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    messages, stop_listening = _listen(page)
    passed = False
    try:
        yield page, messages
        passed = True
    finally:
        stop_listening()
        kept = False
        if passed:
            from playwright.sync_api import Error as PlaywrightError

            try:
                page.evaluate(_LAB_RESET_JS)
                kept = True
            except PlaywrightError:
                pass  # a page that cannot be reset is not reused: the next test loads a fresh one
        if not kept:
            _drop_lab_page()


def _drop_lab_page() -> None:
    if _LAB_PAGE:
        with contextlib.suppress(Exception):  # the page may be gone already; either way a fresh one comes next
            _LAB_PAGE["context"].close()
        _LAB_PAGE.clear()


def stop_server(proc: subprocess.Popen, log) -> None:
    """Stop a server the tests started, by its own handle (terminate, then kill), and close its log."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
    log.close()


_BROWSER: dict = {}  # the one Chromium of this test process (and its Playwright)


def shared_browser():
    """The process's one Chromium (a Playwright Browser): for tests that open several pages of their own. Never
    start another Playwright beside it (its sync API refuses to run inside the first one's loop)."""
    return _browser()


def _browser():
    if not _BROWSER or not _BROWSER["browser"].is_connected():
        from playwright.sync_api import sync_playwright

        if _BROWSER:
            with contextlib.suppress(Exception):
                _BROWSER["playwright"].stop()
        playwright = sync_playwright().start()
        _BROWSER.update(playwright=playwright,
                        browser=playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS))
        atexit.register(_close_browser)
    return _BROWSER["browser"]


def _close_browser() -> None:
    if _BROWSER:
        with contextlib.suppress(Exception):
            _BROWSER["browser"].close()
        with contextlib.suppress(Exception):
            _BROWSER["playwright"].stop()
        _BROWSER.clear()


@contextlib.contextmanager
def chromium(viewport=(1280, 1000), **context_options):
    """A new Playwright page of the process's headless Chromium (Debian's), sized ``viewport``; yields
    ``(page, console_messages)``. The page belongs to the process's report context (the module's docstring says
    why); ``context_options`` (e.g. ``color_scheme="dark"``) give it a context of its own instead."""
    own = bool(context_options)
    context = _browser().new_context(**context_options) if own else _report_context()
    page = context.new_page()
    visited: set[str] = set()
    page.on("framenavigated", lambda f: visited.add(f.url.split(":", 1)[0]) if f.parent_frame is None else None)
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    messages, _ = _listen(page)  # the page closes with the test: its listeners go with it
    passed = False
    try:
        yield page, messages
        passed = True
    finally:
        if own:
            context.close()
        elif not passed or visited & {"http", "https"}:
            _drop_report_context()  # a server's cookies and storage, or whatever a failure left, go with it
        else:
            for other in context.pages:  # the test's page and any popup it opened; the keeper stays
                if other is not _REPORT.get("keeper"):
                    other.close()


_REPORT: dict = {}  # the process's report context and its keeper page
_KEEPER_HTML = "<!doctype html><meta charset=utf-8><title>keeper</title>"


def _report_context():
    """The process's report context, with its keeper: a file: page that stays open, so the file: renderer (and the
    code it compiled) outlives each test's page."""
    browser, keeper = _browser(), _REPORT.get("keeper")
    if keeper is None or keeper.is_closed() or _REPORT["context"].browser is not browser:
        _drop_report_context()
        folder = Path(tempfile.mkdtemp(prefix="dex-keeper-"))
        (folder / "keeper.html").write_text(_KEEPER_HTML)
        context = browser.new_context()
        keeper = context.new_page()
        keeper.goto((folder / "keeper.html").as_uri())
        _REPORT.update(context=context, keeper=keeper)
    return _REPORT["context"]


def _drop_report_context() -> None:
    if _REPORT:
        with contextlib.suppress(Exception):  # the browser may be gone already; either way a new one comes next
            _REPORT["context"].close()
        _REPORT.clear()


@contextlib.contextmanager
def screenshot_on_failure(page, name: str, log: Path | None = None):
    """Keep what the page showed (and the server log) in artifacts/ when the block fails."""
    try:
        yield
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        with contextlib.suppress(Exception):
            page.screenshot(path=str(ARTIFACTS / name))
        if log is not None and log.exists():
            (ARTIFACTS / (Path(name).stem + ".log")).write_text(log.read_text(errors="replace"))
        raise


def write_notebook(path: Path, cells: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


def wait_kernel_idle(page, timeout_ms: int = 60_000) -> None:
    """The status bar says ``... | Idle`` once a kernel exists and is idle (the toolbar lies earlier)."""
    page.wait_for_function(
        "() => { const s = document.querySelector('#jp-main-statusbar');"
        " return s && /\\|\\s*Idle/.test(s.textContent) }", timeout=timeout_ms)


def run_all(page, timeout_ms: int = 180_000) -> None:
    """Run every cell (Run > Run All Cells) and wait until they have all run: the first cell's prompt counted and
    none queued or running (``[*]``). A test that clicks before then races the cells still to come: a later cell
    that selects from Python, run under load after the click, would undo it."""
    page.locator('.lm-MenuBar-itemLabel:text-is("Run")').click()
    page.locator('li[data-command="runmenu:run-all"]').click()
    page.wait_for_function(
        "() => { const p = Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt'))"
        ".map((e) => e.textContent); return p.length > 0 && /\\[\\d+\\]/.test(p[0]) && !p.some((t) => t.includes('*')) }",
        timeout=timeout_ms)


# the contrast of an element's text against what is behind it (WCAG 2: relative luminance; translucent colours and
# backgrounds blended over the ancestors' up to the first opaque one, across shadow roots (marimo draws the widget in
# one), the page's white if none). Colours as the browser computes them: rgb()/rgba(), or color(srgb ...) (a host's
# light-dark() or color-mix() colours: marimo's)
CONTRAST_JS = """(el) => {
  const parse = (c) => { let m = /rgba?\\(([^)]+)\\)/.exec(c), k = 1;
    if (!m) { m = /color\\(srgb ([^)]+)\\)/.exec(c); k = 255; }
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0] * k, p[1] * k, p[2] * k, p.length > 3 ? p[3] : 1]; };
  const layers = [];
  for (let n = el; n; n = n.parentElement || (n.getRootNode() instanceof ShadowRoot ? n.getRootNode().host : null)) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
  let bg = [255, 255, 255];
  for (const c of layers.reverse()) bg = bg.map((v, i) => c[i] * c[3] + v * (1 - c[3]));
  const f0 = parse(getComputedStyle(el).color), fg = [0, 1, 2].map((i) => f0[i] * f0[3] + bg[i] * (1 - f0[3]));
  const lum = (c) => c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return Math.round(100 * (a + 0.05) / (b + 0.05)) / 100; }"""
# what a person reads first: the file's name, a device chip's text, the search box's and the colour picker's text
THEMED = (".dx-title", ".dx-dev", ".dx-search", ".dx-ov-pick", ".dx-plan", ".dx-details")


def contrasts(page, root: str) -> dict:
    """Each of THEMED's text contrast inside ``root`` (the first one drawn; locators reach into shadow roots)."""
    return {sel: page.locator(f"{root} {sel}").first.evaluate(CONTRAST_JS) for sel in THEMED}


# What a plotly graph div shows, read from the page: per trace, the drawn points and their fills.
PLOT_STATE_JS = """
(gd) => {
  const traces = Array.from(gd.querySelectorAll('.scatterlayer .trace, .barlayer .trace'));
  return {
    n_data: gd.data.length,
    annotations: Array.from(gd.querySelectorAll('.annotation-text')).map(a => a.textContent),
    yaxes: Object.keys(gd._fullLayout).filter(k => /^yaxis\\d*$/.test(k)).length,
    legend: Array.from(gd.querySelectorAll('.legendtext')).map(t => t.textContent),
  };
}
"""

TRACE_POINTS_JS = """
([gd, index]) => {
  // the drawn points of data trace `index` (plotly keeps the trace object on each group's datum)
  const groups = Array.from(gd.querySelectorAll('.scatterlayer .trace, .barlayer .trace'));
  const group = groups.find(g => { const d = g.__data__; const t = d && (d[0] ? d[0].trace : d.trace);
                                  return t && t.index === index; });
  if (!group) return null;
  const ids = (gd.data[index] || {}).customdata || [];
  return Array.from(group.querySelectorAll('path.point')).map((p, k) => {
    const r = p.getBoundingClientRect();
    return {fill: p.style.fill, x: r.x + r.width / 2, y: r.y + r.height / 2, w: r.width, h: r.height, id: ids[k], trace: index};
  });
}
"""


def trace_points(page, selector, index: int) -> list[dict]:
    """The drawn points (TRACE_POINTS_JS) of data trace ``index`` of the graph ``selector`` (or its element handle: a
    graph in a shadow root); [] when it draws none."""
    return page.evaluate(f"([sel, i]) => ({TRACE_POINTS_JS})([typeof sel === 'string' ? document.querySelector(sel) : sel, i]) || []",
                         [selector, index])


def point_of(points: list[dict], ident) -> dict:
    """The drawn point (TRACE_POINTS_JS) of the node ``ident`` (its customdata: a value or an instruction)."""
    found = [p for p in points if p["id"] == ident and p["w"] > 0]  # a point plotly drew with a size
    assert found, f"node {ident!r} is not drawn (drawn: {[p['id'] for p in points if p['w'] > 0][:40]})"
    return found[0]


def hex_to_rgb(color: str) -> str:
    color = color.lstrip("#")
    r, g, b = (int(color[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgb({r}, {g}, {b})"


# -- waiting for the page ------------------------------------------------------------------------------
# The browser tests wait for something the page does, never for a stretch of time (docs/testing.md, "How the
# browser tests wait"): a redraw counted by the label layer, a quiet panel, plotly's hover on the node, plotly's
# own double-click window. None of them calls page.wait_for_timeout.

SETTLED_JS = """
async ([sel, after, timeout]) => {
  // quiet: for two animation frames in a row nothing under the element changed, its box stayed put, plotly
  // is not in a transition and (with `after`) the label layer (panels/labels.js) has been placed again since then
  const gd = typeof sel === 'string' ? document.querySelector(sel) : sel;  // a selector, or the element (in a shadow root)
  if (!gd) throw new Error('settled: nothing matches ' + sel);
  const count = () => Number(gd.dataset.labels || 0);
  const frame = () => new Promise((done) => requestAnimationFrame(() => done(undefined)));
  const box = () => { const r = gd.getBoundingClientRect(); return [r.left, r.top, r.width, r.height].join(); };
  let changed = false;
  const watch = new MutationObserver(() => { changed = true; });
  watch.observe(gd, {subtree: true, childList: true, attributes: true, characterData: true});
  const start = performance.now();
  try {
    let quiet = 0, was = box();
    while (quiet < 2) {
      if (performance.now() - start > timeout)
        throw new Error('settled: ' + sel + ' still changing after ' + timeout + ' ms (labels placed ' + count() +
                        ' times' + (after === null ? '' : ', waiting for more than ' + after) + ')');
      changed = false;
      await frame();
      const now = box();
      // data-stages: the app still has stages of a draw queued (util/common.js stages: the memory map after the graph)
    const busy = changed || now !== was || (after !== null && count() <= after) || gd._transitioning ||
        (gd._promises && gd._promises.length > 0) || !!document.querySelector('[data-stages]');
      quiet = busy ? 0 : quiet + 1;
      was = now;
    }
    return count();
  } finally { watch.disconnect(); }
}
"""


def label_draws(page, selector: str) -> int:
    """How many times the label layer of the graph ``selector`` placed its labels (panels/labels.js counts them in
    ``data-labels``): read it before an action, pass it to ``settled`` to wait for the redraw it causes."""
    return page.evaluate("(sel) => { const g = document.querySelector(sel); return Number((g && g.dataset.labels) || 0) }",
                         selector)


def settled(page, selector, after: int | None = None, timeout_ms: int = 60_000) -> int:
    """Wait until the element ``selector`` (a plotly graph, a panel; or its element handle) is done drawing: two animation frames in a
    row with no change under it, its box not moving (a scroll, a notebook re-laying out its cells), no plotly
    transition. With ``after`` (``label_draws`` before the action), its label layer must also have been placed
    again since: a wheel zoom, a click that expands a group or a resize redraws a moment later, and waiting
    for quiet alone could end before it began. Returns the label layer's count."""
    return page.evaluate(SETTLED_JS, [selector, after, timeout_ms])


HOVERED_JS = """
([sel, id, trace]) => {
  const hd = (document.querySelector(sel) || {})._hoverdata || [];
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return hd.some((d) => same(d.customdata, id) && (trace === null || d.curveNumber === trace));
}
"""


def hover_point(page, graph: str, point: dict, trace: int | None = None, timeout_ms: int = 10_000) -> None:
    """Move the mouse onto a drawn ``point`` (TRACE_POINTS_JS; its ``id`` is the node's customdata) and wait
    until plotly's hover is on that node (``gd._hoverdata``), so a click there selects it. Plotly can drop a
    single move on a busy page: the mouse goes off and back between tries."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    trace = point.get("trace") if trace is None else trace
    tries = 4
    for attempt in range(tries):
        if attempt:
            page.mouse.move(point["x"] + 40, point["y"] + 40)
        page.mouse.move(point["x"], point["y"], steps=2)
        try:
            page.wait_for_function(HOVERED_JS, arg=[graph, point["id"], trace], timeout=timeout_ms // tries)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                hovered = page.evaluate("(sel) => ((document.querySelector(sel) || {})._hoverdata || [])"
                                        ".map(d => [d.curveNumber, d.customdata])", graph)
                raise AssertionError(f"the hover never reached node {point['id']!r} (trace {trace}) at "
                                     f"({point['x']:.0f}, {point['y']:.0f}); plotly hovers {hovered}") from None


# Plotly counts a mouse-down within `doubleClickDelay` (config, 300 ms) of the previous one on the same plot as a
# double click, wherever it lands (components/dragelement: gd._mouseDownTime), and a double click resets the
# axes. A person does not click two nodes that fast: the next click waits until plotly would see a single one.
SINGLE_CLICK_JS = """
(sel) => { const gd = document.querySelector(sel);
  return !gd || !gd._mouseDownTime || Date.now() - gd._mouseDownTime > ((gd._context || {}).doubleClickDelay || 300); }
"""


def click_point(page, graph: str, point: dict, trace: int | None = None) -> None:
    """Click a drawn node as a person does: onto it, plotly's hover on it, then a click plotly takes for a single
    one (not the second half of a double click with the previous click, which would reset the axes). The button goes
    down and up where the mouse is, with no move between: plotly clicks what it hovers, and a move hovers again. In
    CI a click on a delegate so selected the value drawn 20 px below it, its hover label still on the delegate (the
    page had most likely moved meanwhile: a notebook still scrolling)."""
    hover_point(page, graph, point, trace)
    page.wait_for_function(SINGLE_CLICK_JS, arg=graph, timeout=10_000)
    page.mouse.down()
    page.mouse.up()


def follows_width(page, selector: str, timeout_ms: int = 60_000) -> None:
    """After the window or the box changed size: wait until the plotly figure ``selector`` took its box's width
    (shell/frame.js followWidth relayouts it on the next frame) and is done drawing."""
    page.wait_for_function("(sel) => { const g = document.querySelector(sel); return g && g._fullLayout &&"
                           " g.clientWidth > 0 && Math.abs(g._fullLayout.width - g.clientWidth) < 4 }",
                           arg=selector, timeout=timeout_ms)
    settled(page, selector, timeout_ms=timeout_ms)


# Elements that could still run something: an event-handler attribute (an injected <img onerror> fires when
# its load fails, some time after it was inserted) or a javascript: URL. None means nothing can run later.
HANDLERS_JS = """
() => {
  const out = [];
  for (const el of document.querySelectorAll('*'))
    for (const a of el.attributes)
      if (/^on/i.test(a.name) || (/^(href|xlink:href|src|srcdoc|action|formaction)$/i.test(a.name) && /javascript:/i.test(a.value)))
        out.push(el.tagName + ' ' + a.name + '=' + a.value);
  return out;
}
"""


# A widget's overview as drawn: its fold's groups, those inside the axes' ranges, and the group markers drawn inside the
# plot area (a first view left at the figure skeleton's ranges shows one group: issue 32, a re-run cell).
GROUPS_IN_VIEW_JS = """
(gd) => {
  const L = gd.closest('.dx-explorer').dxApp.lod(), f = L.folded(), fl = gd._fullLayout;
  const [x0, x1] = fl.xaxis.range.slice().sort((a, b) => a - b), [y0, y1] = fl.yaxis.range.slice().sort((a, b) => a - b);
  let total = 0, inRange = 0;
  f.nodes.forEach((nd, p) => {
    if (nd[0] !== 'g') return;
    total++;
    if (f.x[p] >= x0 && f.x[p] <= x1 && -f.y[p] >= y0 && -f.y[p] <= y1) inRange++;
  });
  const r = gd.getBoundingClientRect(), s = fl._size, box = [r.left + s.l, r.top + s.t, r.left + s.l + s.w, r.top + s.t + s.h];
  return {total, inRange, box, xr: fl.xaxis.range, yr: fl.yaxis.range};
}
"""


def rerun_cell(page, cell: int = 0, timeout_ms: int = 180_000) -> None:
    """Run notebook cell ``cell`` (again: Shift+Enter, as a person does) and wait until the widget it shows is a new
    one, drawn in full (index.js sets ``data-drawn`` once every stage of its first view is drawn). A press the
    notebook did not take (its kernel still connecting: the prompt neither busy nor counted up) is made again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate("() => document.querySelectorAll('.dx-explorer').forEach((el) => { el.dataset.old = '1'; })")
    prompt = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".jp-InputPrompt")
    before = prompt.inner_text()
    for attempt in range(3):
        page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_function("([p, was]) => p.textContent !== was", arg=[prompt.element_handle(), before],
                                   timeout=20_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    page.wait_for_function("() => Array.from(document.querySelectorAll('.dx-explorer'))"
                           ".some((el) => !el.dataset.old && el.dataset.drawn)", timeout=timeout_ms)


def assert_overview_shows_its_groups(page, graph, group_trace: int, least: int = 8) -> dict:
    """The widget's overview shows its groups: every group of the fold inside the view's ranges is drawn as a marker
    inside the plot area, and the view holds at least ``least`` of them (or all, when fewer). ``graph``: a selector, or
    the graph's element handle (a widget in a shadow root: marimo)."""
    settled(page, graph)
    seen = page.evaluate(f"(sel) => ({GROUPS_IN_VIEW_JS})(typeof sel === 'string' ? document.querySelector(sel) : sel)", graph)
    x0, y0, x1, y1 = seen["box"]
    drawn = [p for p in trace_points(page, graph, group_trace) if p["w"] > 0 and x0 <= p["x"] <= x1 and y0 <= p["y"] <= y1]
    assert seen["inRange"] >= min(seen["total"], least), f"the view shows {seen['inRange']} of {seen['total']} groups: {seen}"
    assert len(drawn) == seen["inRange"], f"{len(drawn)} group markers drawn in the plot area, {seen['inRange']} in view"
    return seen
