"""Does a report with a run's numbers open as fast as one without? Time to first draw in headless Chromium.

    python bench/bench_numerics.py [--runs 7] [--out DIR]

For each program of the numerics corpus (tests/fixtures/numerics, real exports and runs) three reports are written:
``show P`` (the program alone), ``show P --profile R.etdp`` (its run's times) and ``show P --profile R.etdp
--debug-buffer R.bin`` (times and numbers: details rows, the NaN/Inf findings, the ``output_range`` overlay drawn
first), and for the runs compared (portable vs XNNPACK) ``numerics P --against Q ... -o`` (the ``gap`` overlay and the
first-divergence button). Each report is opened ``--runs`` times, each in a fresh browser context, and timed from
navigation start until the page says it is drawn (``document.body.dataset.ready``, set when every stage of the first
view is drawn) — ``performance.now()`` at that moment, read in the page. Prints the medians side by side and each
report's size.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.cli import main as cli  # noqa: E402

F = ROOT / "tests" / "fixtures" / "numerics"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
READY = "() => document.body && document.body.dataset.ready === '1'"
PAIRS = {"mlp": "xnnpack", "attention": "xnnpack", "diverge": "xnnpack", "convbn": "xnnpack", "nonfinite": "xnnpack"}


def files(name: str) -> list[str]:
    return [str(F / f"{name}.pte"), "--profile", str(F / f"{name}.etdp"), "--debug-buffer", str(F / f"{name}.bin")]


def write_reports(out: Path, names: list[str]) -> dict[str, dict[str, Path]]:
    reports: dict[str, dict[str, Path]] = {}
    for name in names:
        r = reports.setdefault(name, {})
        pte, etdp = str(F / f"{name}.pte"), str(F / f"{name}.etdp")
        for key, argv in (("plain", ["show", pte]), ("profile", ["show", pte, "--profile", etdp]),
                          ("numerics", ["show", *files(name)])):
            path = out / f"{name}.{key}.html"
            assert cli([*argv, "-o", str(path)], io.StringIO()) == 0, (name, key)
            r[key] = path
        model, kind = name.split("_", 1)
        if kind == "portable" and model in PAIRS:
            path = out / f"{name}.compared.html"
            assert cli(["numerics", *files(name), "--against", *files(f"{model}_{PAIRS[model]}"), "-o", str(path)],
                       io.StringIO()) in (0, 1)
            r["compared"] = path
    return reports


def first_draw_ms(browser, path: Path) -> float:
    ctx = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        page = ctx.new_page()
        page.goto(path.as_uri())
        page.wait_for_function(READY, timeout=120_000)
        return float(page.evaluate("() => performance.now()"))
    finally:
        ctx.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--out", type=Path, default=None, help="keep the reports here (default: a temporary folder)")
    ap.add_argument("--only", nargs="*", default=None, help="programs (stems) to bench (default: every portable and "
                                                            "xnnpack run)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    names = args.only or sorted(p.stem for p in F.glob("*.pte") if not p.stem.endswith("qxnnpack"))
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        reports = write_reports(out, names)
        kinds = ["plain", "profile", "numerics", "compared"]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                first_draw_ms(browser, reports[names[0]]["plain"])  # warm the browser once
                times: dict[tuple[str, str], list[float]] = {}
                for _ in range(args.runs):  # interleaved, so a busy moment of the machine hits every kind alike
                    for name in names:
                        for kind, path in reports[name].items():
                            times.setdefault((name, kind), []).append(first_draw_ms(browser, path))
            finally:
                browser.close()
        print(f"time to first draw, median of {args.runs} fresh contexts (ms); report size (KiB)")
        print(f"{'program':<22}" + "".join(f"{k:>18}" for k in kinds))
        ratios = []
        for name in names:
            row = f"{name:<22}"
            base = statistics.median(times[(name, "plain")])
            for k in kinds:
                if (name, k) in times:
                    med = statistics.median(times[(name, k)])
                    size = reports[name][k].stat().st_size / 1024
                    row += f"{med:>10.0f} ({size:>5.0f})"
                    if k in ("numerics", "compared"):
                        ratios.append(med / base)
                else:
                    row += f"{'-':>18}"
            print(row)
        print(f"with numbers / plain: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
