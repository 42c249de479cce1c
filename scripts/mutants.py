"""Mutation testing by hand: single-line mutants of real logic, each run against the tests that should catch it.

    python scripts/mutants.py                  # every mutant (~25 minutes on 2 shared cores); table and score
    python scripts/mutants.py --list           # the table, nothing run
    python scripts/mutants.py --only NAME ...  # some mutants (a name, or a prefix ending in '*': 'app-*')
    python scripts/mutants.py --json OUT       # also write the results as JSON
    python scripts/mutants.py --no-baseline    # skip the first run of each test set on the unmutated copy

Run it before a release and put the score in docs/testing.md ("Mutation testing"). Each mutant is one line of
one file changed (``MUTANTS``: the exact original fragment, found exactly once in its file, and its
replacement) - the kind of slip a review misses: a comparison off by one, a clause dropped, an order swapped, a
side forgotten. A mutant is *caught* when one of its tests fails (or times out), *survived* when all pass: a
survivor is a hole in the suite, to be closed with a test that fails on it (shown failing, then the mutant
reverted), or explained in docs/testing.md when the mutant cannot change behaviour.

Safety: the repository is never touched. The tracked and untracked-but-not-ignored files are copied once into a
temporary directory (``tests/js/node_modules`` linked), every mutant is applied there and put back in a
``finally`` (and the file compared with the original afterwards), and the directory is removed at the end.
A fragment that is not found exactly once is an error before anything runs, so the table cannot rot silently
(``tests/test_mutants.py`` checks the same on every test run, without running anything).

Every path this table names under ``explorer/`` is in ``FILES``, so that moving a module means editing one
table. Tests are pytest files or node ids (``tests/x.py``, ``tests/x.py::test_y``) and node test files
(``tests/js/x.test.js``), run with the copy first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The one table of explorer/ paths the mutants touch (moving a module: edit it here).
FILES = {
    "reader": "explorer/format/reader.py",
    "lifetimes": "explorer/analysis/lifetimes.py",
    "checks": "explorer/analysis/checks/placement.py",
    "match": "explorer/analysis/diff/match.py",
    "whatif_graph": "explorer/whatif/graph.py",
    "whatif_greedy": "explorer/whatif/greedy.py",
    "profile": "explorer/analysis/profile/join.py",
    "context": "explorer/analysis/context.py",
    "overlays": "explorer/analysis/overlays.py",
    "escape": "explorer/views/escape.py",
    "text": "explorer/safe_text.py",
    "search_js": "explorer/frontend/shell/search.js",
    "labels_js": "explorer/frontend/panels/labels.js",
    "lod_fold_js": "explorer/frontend/lod/fold.js",
    "diff_js": "explorer/frontend/diff/diff.js",
    "links_js": "explorer/frontend/host/links.js",
}

DEFAULT_TIMEOUT = 600  # seconds per mutant (all its tests); a mutant that hangs them counts as caught


@dataclass(frozen=True)
class Mutant:
    name: str
    area: str
    file: str  # a key of FILES
    find: str  # the exact original fragment (found exactly once in the file)
    replace: str
    tests: tuple[str, ...]
    why: str  # what the mutant breaks


def M(name, area, file, find, replace, tests, why):  # noqa: N802 - a table row
    return Mutant(name, area, file, find, replace, tuple(tests), why)


CHECKS_T = ("tests/test_analysis_checks.py", "tests/test_device_faults.py")
MEMORY_T = ("tests/test_analysis_memory.py", "tests/test_analysis_checks.py")
WHATIF_T = ("tests/test_whatif_fixtures_predict.py", "tests/test_whatif.py")
ETRECORD_T = ("tests/test_etrecord.py", "tests/test_etrecord_details.py")

MUTANTS: tuple[Mutant, ...] = (
    # -- reader
    M("reader-empty-file", "reader", "reader", "if size == 0:", "if size < 0:",
      ["tests/test_reader.py", "tests/test_errors.py"], "an empty file is no longer refused by name"),
    M("reader-ptd-name", "reader", "reader", "source=names[len(files)])", "source=names[0])",
      ["tests/test_reader.py", "tests/test_companions.py"],
      "every in-memory data file of a manager takes the first one's name"),
    # -- lifetimes
    M("lifetimes-outputs-to-end", "lifetimes", "lifetimes", "        last[outs] = end", "        last[outs] = last[outs]",
      MEMORY_T, "a plan output no longer lives to the end of the method"),
    M("lifetimes-view-keeps-base", "lifetimes", "lifetimes", "last[base] = max(last[base], last[view])",
      "last[base] = last[base]", MEMORY_T, "a static view no longer keeps its base's bytes alive"),
    M("lifetimes-state-read-first", "lifetimes", "lifetimes", "((first_read < first_write) & (first_write < m)))",
      "((first_read <= first_write) & (first_write < m)))", MEMORY_T,
      "a tensor read and written by one instruction counts as state"),
    # -- checks
    M("checks-out-of-bounds-edge", "checks", "checks", "(po + pn > f.arena_size[pm])", "(po + pn >= f.arena_size[pm])",
      CHECKS_T, "a tensor ending exactly at its arena's end is out of bounds"),
    M("checks-round-trip-outputs", "checks", "checks", "(users[h] == back[h]) & ~outputs[h]]", "(users[h] == back[h])]",
      CHECKS_T, "a d2h copy the method returns is called a round trip"),
    M("checks-overlap-touching", "checks", "checks", "            if oj + N[kj] > o:", "            if oj + N[kj] >= o:",
      CHECKS_T, "two tensors that only touch overlap"),
    # -- diff pairing
    M("match-inputs-order", "diff pairing", "match", "for a, b in zip(m.a.plan.inputs, m.b.plan.inputs):",
      "for a, b in zip(m.a.plan.inputs, m.b.plan.inputs[::-1]):", ["tests/test_diff.py"],
      "method inputs paired in reverse order"),
    M("match-ambiguous-names", "diff pairing", "match",
      "ambiguous = flag_duplicates and (len(a_list) > 1 or len(b_list) > 1)",
      "ambiguous = flag_duplicates and (len(a_list) > 1 and len(b_list) > 1)", ["tests/test_diff.py"],
      "a name duplicated on one side only is not flagged ambiguous"),
    M("match-output-roots", "diff pairing", "match", "ra, rb = m.a.root(a), m.b.root(b)", "ra, rb = a, b",
      ["tests/test_diff.py"], "outputs paired through their copies instead of the tensors they copy"),
    # -- what-if
    M("whatif-view-owned-order", "what-if", "whatif_graph", "owned=[c, *op.owned])", "owned=[*op.owned, c])",
      WHATIF_T, "a d2h copy's value numbered after the static views of the delegate output it copies"),
    M("whatif-skip-d2h-views", "what-if", "whatif_graph", "not holders.get(w) and not views:", "not holders.get(w):",
      WHATIF_T, "skip_d2h skips the copy of a delegate output read through a static view"),
    M("whatif-elide-other-device", "what-if", "whatif_graph", "if g.device.get(x) != op.device:",
      "if g.device.get(x) is None:", WHATIF_T, "h2d(d2h(x)) elided across two devices"),
    M("whatif-greedy-ties", "what-if", "whatif_greedy", "k = bisect.bisect_right(sizes, size)",
      "k = bisect.bisect_left(sizes, size)", WHATIF_T, "equal-size tensors planned in the other order"),
    # -- profile
    M("profile-median", "profile", "profile", "return Stat(float(np.median(s)), float(s.min())",
      "return Stat(float(np.mean(s)), float(s.min())", ["tests/test_etdump.py"],
      "an instruction's time is the mean of its runs, not the median"),
    M("profile-unseen-zero", "profile", "profile", "    out[~seen] = np.nan", "    out[~seen] = 0",
      ["tests/test_etdump.py"], "an instruction never profiled gets 0 ns instead of no time"),
    M("profile-top-order", "profile", "profile", "key=lambda i: (-self.stats[i].median, i))",
      "key=lambda i: (self.stats[i].median, i))", ["tests/test_etdump.py"], "the slowest instructions listed fastest first"),
    # -- ETRecord
    M("etrecord-wrong-ops-error", "ETRecord", "context", "(errors if len(wrong) * 2 > compared else warnings)",
      "(warnings if len(wrong) * 2 > compared else warnings)", ETRECORD_T,
      "an ETRecord of another program (most kernels wrong) only warns"),
    M("etrecord-common-module", "ETRecord", "context", "        module = module[:n]", "        module = module",
      ETRECORD_T, "a delegate's module is its first node's, not what all its nodes share"),
    M("etrecord-source-frame", "ETRecord", "context", "    for frame in reversed(stack):", "    for frame in stack:",
      ETRECORD_T, "the model's line is the outermost frame outside the libraries, not the innermost"),
    # -- overlays
    M("overlays-scale-min-max", "overlays", "overlays", "if lo is not None and hi is not None and not lo < hi:",
      "if lo is not None and hi is not None and lo > hi:", ["tests/test_overlays.py"],
      "a scale with min == max is accepted"),
    M("overlays-group-in-range", "overlays", "overlays", "            keep = t[a:b] <= stops[g]",
      "            keep = t[a:b] <= stops[g] + 1", ["tests/test_overlays.py"],
      "a folded group's number takes an item that ends past the group"),
    # -- escaping
    M("escape-plotly-lt", "escaping", "escape", '.replace("<", "&lt;").replace(">", "&gt;")',
      '.replace(">", "&gt;")', ["tests/test_injection.py", "tests/test_views.py"],
      "plotly text keeps a file's '<' (markup in hover text)"),
    M("escape-script-end-tag", "escaping", "escape", '_SCRIPT_UNSAFE = {"</": "<\\\\/", ',
      '_SCRIPT_UNSAFE = {"</": "</", ', ["tests/test_views.py", "tests/test_injection.py"],
      "a '</script>' in a name ends the report's data script"),
    M("escape-visible", "escaping", "text", "ch if ch.isprintable() else repr(ch)[1:-1]",
      "ch if ch.isprintable() or ch == '\\u202e' else repr(ch)[1:-1]", ["tests/test_injection.py", "tests/test_views.py"],
      "a right-to-left override reaches the page as itself"),
    # -- the app: search, labels, folding, links, diff selection
    M("app-search-instruction-bound", "app search", "search_js",
      'instructions: k < P.nInstructions ? [k] : []', 'instructions: k <= P.nInstructions ? [k] : []',
      ["tests/js/search.test.js"], '"#N" one past the last instruction selects it'),
    M("app-search-substring-start", "app search", "search_js",
      "if (P.labels.v[k].toLowerCase().indexOf(needle) >= 0) values.push(+k);",
      "if (P.labels.v[k].toLowerCase().indexOf(needle) > 0) values.push(+k);",
      ["tests/js/search.test.js"], "a name that starts with the query is not found"),
    M("app-labels-bottom-edge", "app labels", "labels_js", " && b[1] >= area[1] + e && b[3] <= area[3] - e;",
      " && b[1] >= area[1] + e;", ["tests/js/labels.test.js"], "a label box may hang past the plot's bottom"),
    M("app-labels-priority", "app labels", "labels_js", "order.sort((a, b) => items[b].prio - items[a].prio ||",
      "order.sort((a, b) => items[a].prio - items[b].prio ||", ["tests/js/labels.test.js"],
      "low-priority labels take the space first"),
    M("app-fold-self-edges", "app folding", "lod_fold_js", "      if (src === dst) continue;\n", "\n",
      ["tests/test_lod_js.py", "tests/js/context.test.js"], "a folded group draws an edge to itself"),
    M("app-fold-edge-bytes", "app folding", "lod_fold_js", "e.bytes += Math.max(TT.nbytes[rr], 0);",
      "e.bytes += TT.nbytes[rr];", ["tests/test_lod_js.py", "tests/js/context.test.js"],
      "a merged edge's bytes count unknown sizes (-1)"),
    M("app-links-side-instruction", "app links", "links_js", 'instructions: m[2] === "#" ? [k] : []};',
      'instructions: []};', ["tests/js/links.test.js"], '"a:@5" in the address selects nothing'),
    M("app-diff-other-side-instructions", "app diff selection", "diff_js",
      '(state.instructions[s].map((i) => counterpart(s, "i", i)).filter(found));',
      '(state.instructions[s].map((i) => i).filter(found));',
      ["tests/test_browser_links.py::test_the_diff_reports_hash_selects_a_side_or_searches_both"],
      "an instruction selected on one side selects the same index, not its counterpart, on the other"),
    M("app-diff-other-side-values", "app diff selection", "diff_js",
      'state.values[other(s)] = /** @type {number[]} */ (state.values[s].map((v) => counterpart(s, "v", v)).filter(found));',
      "state.values[other(s)] = [];",
      ["tests/test_browser_diff.py::test_hostile_names_in_a_big_pair_stay_text"],
      "a value selected on one side selects nothing on the other"),
)


@dataclass
class Result:
    name: str
    area: str
    outcome: str  # caught | survived | timeout | error
    seconds: float
    detail: str


def check_table(root: Path = ROOT) -> list[str]:
    """Problems with the table (nothing run): a fragment not found exactly once, an unknown file, a missing test."""
    problems = []
    names = [m.name for m in MUTANTS]
    problems += [f"duplicate mutant name {n}" for n in sorted({n for n in names if names.count(n) > 1})]
    for m in MUTANTS:
        if m.file not in FILES:
            problems.append(f"{m.name}: unknown file key {m.file!r}")
            continue
        path = root / FILES[m.file]
        if not path.is_file():
            problems.append(f"{m.name}: {FILES[m.file]} does not exist")
            continue
        count = path.read_text(encoding="utf-8").count(m.find)
        if count != 1:
            problems.append(f"{m.name}: the fragment is found {count} times in {FILES[m.file]} (must be once): {m.find!r}")
        if m.find == m.replace:
            problems.append(f"{m.name}: the replacement is the original")
        if not m.tests:
            problems.append(f"{m.name}: no tests")
        for t in m.tests:
            file, _, func = t.partition("::")
            if not (root / file).is_file():
                problems.append(f"{m.name}: test file {file} does not exist")
            elif func and f"def {func}(" not in (root / file).read_text(encoding="utf-8"):
                problems.append(f"{m.name}: {file} has no test {func}")
    return problems


def _copy_repo(dest: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if not src.is_file():  # deleted in the work tree but still in the index
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    modules = ROOT / "tests" / "js" / "node_modules"
    if modules.is_dir():
        (dest / "tests" / "js" / "node_modules").symlink_to(modules)


def _commands(tests: tuple[str, ...]) -> list[list[str]]:
    js = [t for t in tests if t.endswith(".js")]
    py = [t for t in tests if not t.endswith(".js")]
    out = []
    if py:
        out.append([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *py])
    if js:
        out.append(["node", "--test", *js])
    return out


def _run(tests: tuple[str, ...], where: Path, timeout: float) -> tuple[str, float, str]:
    """('passed' | 'failed' | 'timeout', seconds, last line of the failing output)."""
    env = dict(os.environ, PYTHONPATH=str(where) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONDONTWRITEBYTECODE="1")
    start = time.monotonic()
    for cmd in _commands(tests):
        left = timeout - (time.monotonic() - start)
        try:
            done = subprocess.run(cmd, cwd=where, env=env, capture_output=True, text=True, timeout=max(left, 1))
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - start, f"over {timeout:.0f} s: {' '.join(cmd[-3:])}"
        if done.returncode != 0:
            lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
            key = [ln for ln in lines if ln.startswith(("FAILED", "ERROR", "not ok", "E "))]
            return "failed", time.monotonic() - start, (key or lines or ["(no output)"])[0][:200]
    return "passed", time.monotonic() - start, ""


def run_mutant(m: Mutant, where: Path, timeout: float) -> Result:
    path = where / FILES[m.file]
    original = path.read_bytes()
    text = original.decode("utf-8")
    if text.count(m.find) != 1:
        raise SystemExit(f"{m.name}: the fragment is found {text.count(m.find)} times in {FILES[m.file]}")
    try:
        path.write_bytes(text.replace(m.find, m.replace, 1).encode("utf-8"))
        status, seconds, detail = _run(m.tests, where, timeout)
    finally:
        path.write_bytes(original)
    if path.read_bytes() != original:
        raise SystemExit(f"{m.name}: could not restore {path}")
    outcome = {"failed": "caught", "timeout": "timeout", "passed": "survived"}[status]
    return Result(m.name, m.area, outcome, round(seconds, 1), detail)


def select(patterns: list[str] | None) -> list[Mutant]:
    if not patterns:
        return list(MUTANTS)
    chosen = [m for m in MUTANTS if any(fnmatch.fnmatchcase(m.name, p) for p in patterns)]
    unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(m.name, p) for m in MUTANTS)]
    if unknown:
        raise SystemExit(f"no mutant named {', '.join(unknown)} (--list shows them)")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these mutants (shell-style patterns)")
    parser.add_argument("--list", action="store_true", help="print the table and run nothing")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per mutant (default %(default)s)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="do not first check each test set passes on the unmutated copy")
    args = parser.parse_args(argv)
    problems = check_table()
    if problems:
        print("the mutant table has rotted:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    chosen = select(args.only)
    if args.list:
        for m in chosen:
            print(f"{m.name:36} {m.area:18} {FILES[m.file]}:  {m.find.strip()!r} -> {m.replace.strip()!r}\n"
                  f"{'':36} {m.why}; tests: {' '.join(m.tests)}")
        print(f"{len(chosen)} mutants")
        return 0
    results: list[Result] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dx-mutants-") as tmp:
        where = Path(tmp)
        _copy_repo(where)
        if not args.no_baseline:  # a test set that fails unmutated would call every mutant caught
            for tests in dict.fromkeys(tuple(sorted(m.tests)) for m in chosen):  # each set once, in any order
                status, seconds, detail = _run(tests, where, args.timeout)
                print(f"baseline {' '.join(tests)}: {status} ({seconds:.0f} s)", flush=True)
                if status != "passed":
                    print(f"  {detail}\nfix the suite first: a failing test set catches every mutant", file=sys.stderr)
                    return 2
        for k, m in enumerate(chosen, 1):
            r = run_mutant(m, where, args.timeout)
            results.append(r)
            print(f"[{k}/{len(chosen)}] {r.outcome:8} {r.seconds:6.1f} s  {m.name}" +
                  (f"  ({r.detail})" if r.detail else ""), flush=True)
    caught = sum(r.outcome in ("caught", "timeout") for r in results)
    print()
    print(f"{'mutant':36} {'area':18} {'outcome':9} {'time':>7}")
    for r in results:
        print(f"{r.name:36} {r.area:18} {r.outcome:9} {r.seconds:6.1f}s")
    score = caught / len(results) if results else 0.0
    survivors = [r.name for r in results if r.outcome == "survived"]
    print(f"\nscore: {caught}/{len(results)} caught ({score:.0%}) in {time.monotonic() - started:.0f} s"
          + (f"; survived: {', '.join(survivors)}" if survivors else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d"), "caught": caught, "total": len(results), "score": round(score, 4),
            "results": [asdict(r) for r in results],
        }, indent=1) + "\n", encoding="utf-8")
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
