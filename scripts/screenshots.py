"""The review set of screenshots: every kind of view a reviewer should look at after a change to the app.

    python scripts/screenshots.py OUT_DIR [--only NAME ...] [--sizes 1600x1000 ...] [--schemes light dark]

Writes reports with the public API (the same code as ``device-explorer show`` / ``diff --html``), opens each
in headless Chromium (Debian's, as the browser tests use) at 1600×1000 and 1280×800, each in the light and the dark
colour scheme (the browser's ``prefers-color-scheme``), and saves a full-page PNG per view, size and scheme
(``NAME-WIDTHxHEIGHT-SCHEME.png``):

* ``small``      the bundled sample (two devices, every group open)
* ``wide``       a 1,400-value synthetic program spread over several devices
* ``chain3k``    a 3k-op chain (``bench/fixtures/chain3k.pte``)
* ``transformer`` the 3k-op transformer export with its data file (folded overview, a level open)
* ``big100k``    a 100k-value synthetic program (overview of groups)
* ``diff``       cpu-only vs cuda:0 export of the same model (``tests/fixtures/diff``)
* ``profile``    the XNNPACK MLP with its ETDump (ops sized by time, the time bar)
* ``delegate``   the XNNPACK MLP with its first delegate opened in place
* ``whatif``     what-if: a CPU-only program with its delegate calls moved to cuda:0 (original vs predicted)
* ``etrecord``   the XNNPACK net joined with its ETRecord (module names on groups, a tensor selected)
* ``overlay``    the XNNPACK MLP coloured by the ``time`` overlay of its ETDump (legend, picker)

The script checks nothing: it is for looking. The browser tests assert what can be asserted; a view that is
crowded, clipped or empty is found by a person looking at these files.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
FIX = ROOT / "tests" / "fixtures"


def _reports(work: Path, only: set[str]) -> dict[str, Path]:
    import explorer
    from writers.synth import synthetic_program
    from writers.pte import write
    from explorer.views.html.diff import write_diff_report
    from explorer.views.html.report import write_report

    def want(name: str) -> bool:
        return not only or name in only

    out: dict[str, Path] = {}
    if want("small"):
        out["small"] = write_report(explorer.load(ROOT / "explorer" / "data" / "sample.pte"), work / "small.html")
    if want("wide"):
        wide = work / "wide.pte"
        wide.write_bytes(write(synthetic_program(values=1_400)))
        out["wide"] = write_report(explorer.load(wide), work / "wide.html")
    if want("chain3k"):
        out["chain3k"] = write_report(explorer.load(ROOT / "bench" / "fixtures" / "chain3k.pte"), work / "chain3k.html")
    if want("transformer"):
        named = FIX / "named"
        out["transformer"] = write_report(explorer.load(named / "transformer3k.pte", data=[named / "transformer3k.ptd"]),
                                          work / "transformer.html")
    if want("big100k"):
        big = work / "big.pte"
        big.write_bytes(write(synthetic_program(values=100_000)))
        out["big100k"] = write_report(explorer.load(big), work / "big100k.html")
    if want("diff"):
        out["diff"] = write_diff_report(FIX / "diff" / "cpu_only.pte", FIX / "diff" / "device_cuda0.pte", work / "diff.html")
    if want("profile") or want("delegate") or want("overlay"):
        program = explorer.load(FIX / "xnnpack_mlp.pte")
        profiled = explorer.Explorer(program, profile=FIX / "etdump" / "xnnpack_mlp.etdp")
        if want("profile"):
            out["profile"] = Path(profiled.save_html(work / "profile.html"))
        if want("delegate"):
            out["delegate"] = write_report(program, work / "delegate.html")
        if want("overlay"):
            profiled.show_overlay("time")
            out["overlay"] = Path(profiled.save_html(work / "overlay.html"))
    if want("whatif"):
        moved = explorer.Explorer(FIX / "whatif" / "residual_cpu_only.pte", moves=["delegate:*=cuda:0"])
        out["whatif"] = Path(moved.save_html(work / "whatif.html"))
    if want("etrecord"):
        rec = FIX / "etrecord"
        joined = explorer.Explorer(rec / "net_xnnpack.pte", etrecord=rec / "net_xnnpack.etrecord")
        out["etrecord"] = Path(joined.save_html(work / "etrecord.html"))
    return out


# the first delegate call drawn as itself, opened in place as a click on its diamond does
OPEN_DELEGATE = """() => { const dg = window.dxReport.delegates();
  for (let i = 0; dg && i < 100000; i++) if (dg.expandable(i) && dg.toggle(i)) return i;
  return null; }"""


SIZES = ((1600, 1000), (1280, 800))
SCHEMES = ("light", "dark")


def _shoot_one(browser, name: str, report: Path, size: tuple[int, int], scheme: str, path: Path) -> None:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=300_000)
        if name == "delegate":
            print(f"delegate: opened instruction {page.evaluate(OPEN_DELEGATE)}")
        if name == "etrecord":
            page.evaluate("() => window.dxReport.select({values: [], instructions: [1]})")
        page.wait_for_timeout(500)  # the labels' and overlays' last frame: this is a picture, not a test
        page.screenshot(path=str(path), full_page=True)
    finally:
        context.close()


def shoot(reports: dict[str, Path], out_dir: Path, sizes=SIZES, schemes=SCHEMES) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out_dir.mkdir(parents=True, exist_ok=True)
    shots = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for name, report in reports.items():
                for width, height in sizes:
                    for scheme in schemes:
                        path = out_dir / f"{name}-{width}x{height}-{scheme}.png"
                        _shoot_one(browser, name, report, (width, height), scheme, path)
                        shots.append(path)
                        print(path, flush=True)
        finally:
            browser.close()
    return shots


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--sizes", nargs="*", default=[f"{w}x{h}" for w, h in SIZES], help="WIDTHxHEIGHT viewports")
    ap.add_argument("--schemes", nargs="*", default=list(SCHEMES), choices=SCHEMES, help="prefers-color-scheme")
    args = ap.parse_args(argv)
    sizes = [tuple(int(n) for n in s.split("x")) for s in args.sizes]
    with tempfile.TemporaryDirectory() as tmp:
        shoot(_reports(Path(tmp), set(args.only)), args.out, sizes, args.schemes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
