"""Guards of the package layout (docs/architecture.md): no import circle, imports at the top of each module,
one folder per family of modules, ruff and mypy clean, and docs that name only modules that exist.

Each guard is a plain reading of the tree (``ast``, file names) or a run of the tool itself, so a change that
breaks the layout fails here with the module and line to look at.
"""

from __future__ import annotations

import ast
import collections
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "explorer"
GENERATED = PACKAGE / "_generated"

# imports that may stay inside a function: heavy optional dependencies only, each with its reason on its line
LAZY_ALLOWED = {"explorer.widget.explorer", "explorer.widget.diff", "torch"}  # torch: calibrate only


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        if GENERATED in path.parents:
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]):
    """(imported module, node, at module level) for every import of one of our modules in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    top = set()
    for node in tree.body:  # module level, including ``if TYPE_CHECKING:`` and ``try:`` blocks
        top.update(id(n) for n in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                if target in modules or not target.startswith("explorer"):
                    yield target, node, id(node) in top
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node, id(node) in top


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for target, _node, _top in _imports(name, path, modules):
            if target in modules and target != name:
                graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_package():
    """Imports inside functions count too: a circle hidden in a function is still a circle."""
    assert _cycles(_graph()) == []


def test_imports_sit_at_the_top_of_each_module():
    """Only heavy optional dependencies are imported inside a function, each with a comment saying why."""
    modules = _modules()
    lines_of = {}
    bad = []
    for name, path in modules.items():
        for target, node, top in _imports(name, path, modules):
            if top:
                continue
            lines = lines_of.setdefault(path, path.read_text(encoding="utf-8").splitlines())
            commented = "#" in lines[node.end_lineno - 1]
            if target not in LAZY_ALLOWED or not commented:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target} inside a function")
    assert bad == []


# the layers of docs/architecture.md, bottom first: a module imports only from its own layer or one beneath
LAYERS = [
    ["explorer.errors", "explorer.units", "explorer.safe_text", "explorer.outputs", "explorer.bounded_json"],
    ["explorer.model"],
    ["explorer.format"],
    ["explorer.analysis"],
    ["explorer.whatif"],
    ["explorer.describe", "explorer.jsonform"],
    ["explorer.views.escape", "explorer.views.palette", "explorer.views.words", "explorer.views.diff_style"],
    ["explorer.views.state"],
    ["explorer.views.fragments"],
    ["explorer.views.payload"],
    ["explorer.views.html", "explorer.frontend", "explorer.views"],
    ["explorer.widget", "explorer.cli", "explorer"],
]


def _layer(module: str) -> int:
    best, rank = -1, None
    for k, layer in enumerate(LAYERS):
        for prefix in layer:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), k
    assert rank is not None, f"{module} is in no layer of LAYERS (docs/architecture.md)"
    return rank


def test_layers_import_only_downward():
    """The order of docs/architecture.md, checked on every import (inside functions too)."""
    graph = _graph()
    upward = [f"{a} -> {b}" for a, targets in sorted(graph.items()) for b in sorted(targets) if _layer(b) > _layer(a)]
    assert upward == []


LONG = 120  # lines; a longer function says why at its head ("long-function: ...")


def _long_functions(paths) -> list[str]:
    out = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > LONG and "long-function:" not in (ast.get_docstring(node) or ""):
                    out.append(f"{path.name}:{node.lineno} {node.name} ({length} lines)")
    return out


def test_no_function_is_longer_than_a_screenful_without_a_reason():
    """The JS side has its twin (tests/js/function_length.test.js)."""
    assert _long_functions(p for p in PACKAGE.rglob("*.py") if GENERATED not in p.parents) == []


def test_the_length_check_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{k} = {k}" for k in range(LONG))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n\n\ndef told():\n    \"\"\"long-function: why.\"\"\"\n{body}\n")
    assert _long_functions([tmp_path / "long.py"]) == [f"long.py:1 long ({LONG + 1} lines)"]


def _families(folder: Path, suffixes: tuple[str, ...]) -> dict[str, list[str]]:
    groups = collections.defaultdict(list)
    for f in folder.iterdir():
        if f.is_file() and f.name.endswith(suffixes) and f.name != "__init__.py":
            groups[f.name.split(".")[0].split("_")[0]].append(f.name)
    # a module and its own stylesheet (profile.js, profile.css) share a stem, not a prefix: no family
    return {k: sorted(v) for k, v in groups.items() if len({n.split(".")[0] for n in v}) > 1}


def test_no_family_of_modules_shares_a_prefix_in_one_folder():
    """``whatif_*.py`` beside each other wants a ``whatif/`` package: a shared prefix is a folder not made."""
    found = {}
    for folder in [PACKAGE, *sorted(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        if folder == GENERATED or GENERATED in folder.parents or folder.name in ("__pycache__", "vendor"):
            continue
        families = _families(folder, (".py", ".js", ".css", ".d.ts"))
        if families:
            found[str(folder.relative_to(ROOT))] = families
    assert found == {}


def test_the_family_check_sees_a_family(tmp_path):
    for name in ("whatif_graph.py", "whatif_emit.py", "facts.py"):
        (tmp_path / name).write_text("")
    assert _families(tmp_path, (".py",)) == {"whatif": ["whatif_emit.py", "whatif_graph.py"]}


def test_ruff_finds_nothing():
    """pyflakes and bugbear (pyproject.toml ``[tool.ruff.lint]``) over the package and the test-only writers."""
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "explorer", "writers"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_passes():
    """mypy over the package (pyproject.toml ``[tool.mypy]``); modules not yet clean are listed there, and the
    list only shrinks (docs/testing.md)."""
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_the_mypy_ratchet_names_only_modules_that_exist():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.findall(r'"(explorer\.[\w.]+)"', text.split("[[tool.mypy.overrides]]", 1)[-1])
    assert listed and set(listed) <= set(_modules())


_PATH = re.compile(r"(?<![\w/.-])((?:explorer/)?(?:analysis|cli|describe|format|frontend|jsonform|model|views|whatif|widget)"
                   r"/[\w/]*\w\.(?:py|js|css|d\.ts))\b")
_DOTTED = re.compile(r"(?<![\w./-])(explorer(?:\.[A-Za-z_]\w*)+)(?!\w)")
_FILE_SUFFIXES = {"py", "js", "css", "ipynb", "html", "json", "md", "pte", "toml"}


def _texts():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))
    yield from sorted(p for p in PACKAGE.rglob("*.py") if GENERATED not in p.parents)
    yield from sorted(p for p in (PACKAGE / "frontend").rglob("*.js") if "vendor" not in p.parts)


def _missing_paths(text: str) -> list[str]:
    out = []
    for match in _PATH.finditer(text):
        path = match.group(1)
        full = ROOT / (path if path.startswith("explorer/") else "explorer/" + path)
        if not full.exists():
            out.append(path)
    return out


def _missing_dotted(text: str, modules: set[str]) -> list[str]:
    out = []
    for match in _DOTTED.finditer(text):
        parts = match.group(1).split(".")
        if parts[-1] in _FILE_SUFFIXES:  # a file name such as widget/explorer.py, not a dotted module name
            continue
        known = max((k for k in range(1, len(parts) + 1) if ".".join(parts[:k]) in modules), default=0)
        if known == len(parts):
            continue
        if known == 0:
            out.append(match.group(1))
            continue
        module = importlib.import_module(".".join(parts[:known]))
        if not hasattr(module, parts[known]):
            out.append(match.group(1))
    return out


def test_docs_and_comments_name_only_modules_that_exist():
    """Every ``explorer/...py`` path and ``explorer.x.y`` name in the README, docs/, docstrings and comments
    points at a module (or a module's attribute) that exists: a move that leaves a stale name fails here."""
    modules = set(_modules())
    bad = []
    for path in _texts():
        text = path.read_text(encoding="utf-8")
        bad += [f"{path.relative_to(ROOT)}: {p}" for p in _missing_paths(text)]
        bad += [f"{path.relative_to(ROOT)}: {d}" for d in _missing_dotted(text, modules)]
    assert bad == []


def test_the_docs_check_sees_a_stale_name():
    modules = set(_modules())
    assert _missing_paths("see `explorer/analysis/layered.py` and views/report.py") == [
        "explorer/analysis/layered.py", "views/report.py"]
    assert _missing_dotted("explorer.analysis.whatif_graph.Refusal and explorer.analysis.check", modules) == [
        "explorer.analysis.whatif_graph.Refusal"]


def test_test_only_writers_are_not_shipped():
    """The writers that build valid files for tests live in ``writers/``, outside the shipped package."""
    assert not any((PACKAGE / "format" / name).exists() for name in ("writers/pte.py", "writers/synth.py", "writers/etdump.py"))
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'include = \["explorer", "explorer\.\*"\]', text)


@pytest.mark.parametrize("name", ["explorer.model", "explorer.widget", "explorer.analysis", "explorer.whatif"])
def test_public_packages_keep_their_names(name):
    module = importlib.import_module(name)
    assert module.__all__ and all(hasattr(module, n) for n in module.__all__)
