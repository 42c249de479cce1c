"""Time to first view: our HTML report against Netron on the same file, side by side in one run.

    python bench/bench_view.py [--runs 5] [--lab] [--skip-netron]

For each program: write our report (``device-explorer show``), serve Netron on the same ``.pte``
(``pip install netron`` into its own virtualenv: ``NETRON_PYTHON=/path/to/venv/bin/python``, default
``/tmp/netron-venv/bin/python``), then in headless Chromium (Debian's, fresh browser context per run,
the two tools interleaved) count from navigation start to the last DOM change once the page shows
its view and has stayed still for 300 ms. "Shown" for our page: every panel's plotly SVG present; for
Netron: body class ``default`` with ``#canvas g.node`` present (a Netron failure, body class ``alert``,
is reported with its message). Every page and tool is visited once per round, round robin, so all
see the same machine load. Prints medians and the ratio ours ÷ Netron; device programs (which
Netron cannot open) are read against the small XNNPACK program (``over_small_program``; the bound is 1.5).

The diff report of the 5k-value pair (``tests/diff_helpers.big_pair``: both sides over the overview
threshold, so each is drawn as an overview of groups with the diff's marks) is timed and sized the same way;
Netron has no diff, so it has no peer in the run.

Also measured: the report's size, click → highlight in every panel and details filled on a 10k-node
plan, as it opens (in the page, no kernel), and with ``--lab`` the JupyterLab cell (warm kernel)
from Shift+Enter to every panel drawn, for a small program and 100k values.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # browser_helpers: Chromium and JupyterLab as the tests run them

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
NETRON_PYTHON = os.environ.get("NETRON_PYTHON", "/tmp/netron-venv/bin/python")

# records the time of every DOM change (ms since navigation start), before any page script runs
WATCH = """(() => { window.__dxLast = 0; new MutationObserver(() => { window.__dxLast = performance.now(); })
  .observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); })();"""
OURS_SHOWN = """(() => { const p = document.querySelectorAll('.js-plotly-plot');
  return document.body && document.body.dataset.ready === '1' && p.length >= 2 &&
         Array.from(p).every(g => g.querySelector('.main-svg')) ? 'shown' : ''; })()"""
NETRON_SHOWN = """(() => { const b = document.body; if (!b) return '';
  if (b.classList.contains('alert')) return 'alert: ' + ((document.getElementById('message-text') || {}).textContent || '');
  return b.classList.contains('default') && !b.classList.contains('spinner') && !b.classList.contains('welcome') &&
         document.querySelector('#canvas g.node') ? 'shown' : ''; })()"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Netron:
    """``netron.start`` on one file in its own process (its own virtualenv), stopped by its handle."""

    def __init__(self, path: Path):
        self.port = free_port()
        code = ("import netron, sys; netron.start(sys.argv[1], address=('127.0.0.1', int(sys.argv[2])), browse=False);"
                " netron.wait()")
        self.proc = subprocess.Popen([NETRON_PYTHON, "-c", code, str(path), str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise RuntimeError("netron did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def evaluate(cdp, expression: str):
    """Runtime.evaluate through CDP (Netron replaces window.eval, which page.evaluate relies on)."""
    return cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})["result"].get("value")


def time_view(browser, url: str, shown: str, *, netron: bool, timeout_s: float = 180) -> float | str:
    """ms from navigation start to the last DOM change of the first view (see the module docstring)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    if netron:
        ctx.add_cookies([{"name": "consent", "value": str(int(time.time() * 1000)), "url": url}])
    ctx.add_init_script(WATCH)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    try:
        page.goto(url, wait_until="commit")
        deadline = time.monotonic() + timeout_s
        state = ""
        while time.monotonic() < deadline:
            state = evaluate(cdp, shown) or ""
            if state:
                break
            time.sleep(0.02)
        if state != "shown":
            return state or "timeout"
        while time.monotonic() < deadline:  # then 300 ms with no DOM change
            now, last = evaluate(cdp, "[performance.now(), window.__dxLast]")
            if now - last >= 300:
                return last
            time.sleep(0.05)
        return "never settled"
    finally:
        ctx.close()


def click_latency(browser, report: Path, value: int, runs: int) -> float:
    """ms from a tensor selection (what a click calls) to the next frame: rings, outlines, details."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    page.goto(report.as_uri())
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=180_000)
    page.wait_for_timeout(500)
    times = []
    for k in range(runs):
        times.append(page.evaluate("""async (v) => { const app = window.dxReport;
          const t0 = performance.now(); app.select({values: [v]});
          await new Promise(r => requestAnimationFrame(() => r()));
          const ok = document.querySelector('.dx-details').textContent.includes('%' + v);
          return ok ? performance.now() - t0 : -1; }""", value + k))
        page.evaluate("() => window.dxReport.select({values: []})")
    ctx.close()
    assert min(times) >= 0, "details not filled"
    return statistics.median(times)


def lab_times(runs: int, programs: dict[str, Path]) -> dict[str, float]:
    """JupyterLab, warm kernel: Shift+Enter on the Explorer cell -> every panel drawn (median of runs)."""
    from browser_helpers import chromium, jupyter_lab, wait_kernel_idle, write_notebook

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cells = ["import explorer, time"]
        for name, path in programs.items():
            cells.append(f"ex = explorer.Explorer({str(path)!r})\nex")
        notebook = root / "bench.ipynb"
        write_notebook(notebook, cells)
        with jupyter_lab(root) as (base, token), chromium((1280, 1000)) as (page, _messages):
            page.goto(f"{base}/lab/tree/{notebook.name}?token={token}")
            wait_kernel_idle(page)
            first = page.locator(".jp-Notebook .jp-Cell").nth(0)
            first.locator(".jp-InputArea-editor").click()
            page.keyboard.press("Shift+Enter")  # imports: warm the kernel
            page.wait_for_timeout(3000)
            for k, name in enumerate(programs, start=1):
                times = []
                for _ in range(runs):
                    cell = page.locator(".jp-Notebook .jp-Cell").nth(k)
                    cell.locator(".jp-InputArea-editor").click()
                    # widgets already on the page are marked, so only the one this run makes counts
                    page.evaluate("() => document.querySelectorAll('.dx-explorer').forEach(e => { e.dataset.old = '1'; })")
                    start = time.monotonic()
                    page.keyboard.press("Control+Enter")
                    page.wait_for_function(
                        """() => Array.from(document.querySelectorAll('.dx-explorer')).some(el => {
                           if (el.dataset.old) return false;
                           const p = el.querySelectorAll('.js-plotly-plot');
                           return el.dxApp && p.length >= 2 && Array.from(p).every(g => g.querySelector('.main-svg')); })""",
                        timeout=180_000)
                    times.append(time.monotonic() - start)
                    page.wait_for_timeout(800)
                out[name] = statistics.median(times)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lab", action="store_true", help="also time the widget in JupyterLab")
    parser.add_argument("--skip-netron", action="store_true")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from explorer import load
    from writers.synth import synthetic_program
    from writers.pte import write
    from explorer.views.html.report import write_report

    fixtures = ROOT / "tests" / "fixtures"
    work = Path(tempfile.mkdtemp(prefix="bench_view_"))
    wide = work / "wide_device_1k.pte"  # 1k instructions, cpu + cuda:0 + cuda:1 arenas, copies, delegates
    wide.write_bytes(write(synthetic_program(values=1_400)))
    portable = {"small XNNPACK (xnnpack_mlp.pte)": fixtures / "xnnpack_mlp.pte",
                "3k-op portable chain (chain3k.pte)": ROOT / "bench" / "fixtures" / "chain3k.pte"}
    device = {"small device program (device_mlp.pte)": fixtures / "device_mlp.pte",
              "1k-op wide device program (synthetic)": wide}
    reports = {}
    for name, path in {**portable, **device}.items():
        out = work / (path.stem + ".html")
        write_report(load(path), out)
        reports[name] = out
    from diff_helpers import big_pair

    from explorer.views.html.diff import write_diff_report
    reports["5k-value diff pair (synthetic, diff --html)"] = write_diff_report(*big_pair(work), work / "diff_5k.html")
    results: dict[str, dict] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        servers = {} if args.skip_netron else {name: Netron(path) for name, path in portable.items()}
        try:
            ours = {name: [] for name in reports}
            theirs = {name: [] for name in servers}
            for _ in range(args.runs):  # round robin: every page and tool sees the same machine load
                for name in reports:
                    ours[name].append(time_view(browser, reports[name].as_uri(), OURS_SHOWN, netron=False))
                    if name in servers:
                        theirs[name].append(time_view(browser, servers[name].url, NETRON_SHOWN, netron=True))
            for name in reports:
                row = {"ours_ms": _median(ours[name]), "report_mb": round(reports[name].stat().st_size / 1e6, 2)}
                if name in theirs:
                    row["netron_ms"] = _median(theirs[name])
                    if isinstance(row["netron_ms"], (int, float)) and isinstance(row["ours_ms"], (int, float)):
                        row["ours_over_netron"] = round(row["ours_ms"] / row["netron_ms"], 2)
                small = _median(ours["small XNNPACK (xnnpack_mlp.pte)"])
                if name in device and isinstance(row["ours_ms"], (int, float)) and isinstance(small, (int, float)):
                    row["over_small_program"] = round(row["ours_ms"] / small, 2)  # the bound: <= 1.5
                results[name] = row
                print(name, row, flush=True)
            # click -> highlight on a 10k-node plan (drawn as it opens: an overview of its groups)
            big = work / "plan_10k.html"
            program = synthetic_program(values=6_000)
            write_report(program, big)
            nodes = len(program.plans[0].tensors) + len(program.plans[0].instructions)
            results["click_to_highlight_ms"] = {"graph_nodes": nodes,
                                                "median_ms": round(click_latency(browser, big, 100, args.runs), 1)}
            print("click", results["click_to_highlight_ms"], flush=True)
        finally:
            for server in servers.values():
                server.close()
            browser.close()
    hundred_k = work / "values_100k.pte"
    hundred_k.write_bytes(write(synthetic_program(values=100_000)))
    write_report(load(hundred_k), work / "values_100k.html")
    results["report_100k_mb"] = round((work / "values_100k.html").stat().st_size / 1e6, 2)
    if args.lab:
        results["lab_cell_to_drawn_s"] = {k: round(v, 2) for k, v in lab_times(
            args.runs, {"small (device_mlp.pte)": fixtures / "device_mlp.pte", "100k values": hundred_k}).items()}
    print(json.dumps(results, indent=1))
    return 0


def _median(xs):
    nums = [float(x) for x in xs if isinstance(x, (int, float))]
    if len(nums) < len(xs):
        return next(x for x in xs if not isinstance(x, (int, float)))  # a failure: say what it was
    return round(statistics.median(nums), 1)


if __name__ == "__main__":
    sys.exit(main())
