"""The browser app's folders and its bundler (explorer/frontend/__init__.py): imports point one way between the
folders (docs/frontend.md, "The modules"), the bundler follows real relative paths (one line or several, ``as``),
gives each module its own scope named after its path, refuses cycles, paths out of the app and scope clashes, and
the wheel's package data names every file the app needs."""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from explorer import frontend

FRONTEND = Path(frontend.__file__).parent
ROOT = FRONTEND.parent.parent

# a module imports from its own folder or from folders listed after its own, never before
ORDER = ["", "app", "diff", "shell", "profile", "overlay", "lod", "panels", "layout", "host", "util"]


def _folder(name: str) -> str:
    return name.rsplit("/", 1)[0] if "/" in name else ""


def test_imports_point_one_way_between_folders():
    names = set(frontend.MODULES) | {"index.js", "page.js"}
    assert {_folder(n) for n in names} == set(ORDER), "every folder is placed in the order"
    wrong = [f"{name} -> {dep}" for name in sorted(names) for _n, dep in frontend.imports(name)
             if _folder(dep) != _folder(name) and ORDER.index(_folder(dep)) < ORDER.index(_folder(name))]
    assert wrong == []


def test_no_folder_holds_a_prefix_family():
    """lod/graph.js, not lod/lod_graph.js: within a folder no file repeats the folder's name as a prefix, and no two
    files share a prefix before "_"."""
    for folder in {p.parent for p in FRONTEND.rglob("*.js") if "vendor" not in p.parts}:
        stems = [p.name.split(".")[0] for p in folder.iterdir() if p.suffix in (".js", ".ts")]
        prefixes = [s.split("_")[0] for s in stems if "_" in s]
        assert not [s for s in stems if folder != FRONTEND and s.startswith(folder.name + "_")], folder
        assert len(prefixes) == len(set(prefixes)), (folder, stems)


@pytest.fixture
def fake(monkeypatch):
    files: dict[str, str] = {}
    monkeypatch.setattr(frontend, "source", lambda name: files[name])
    return files


def test_the_bundler_follows_relative_paths_and_multi_line_imports(fake):
    fake["util/format.js"] = "export function bytesText(n) { return n + ' B'; }\nexport const K = 1;\n"
    fake["lod/graph.js"] = ('import {\n  bytesText,\n  K as kilo,\n} from "../util/format.js";\n'
                            'export function draw() { return bytesText(kilo); }\n')
    fake["main.js"] = 'import {draw} from "./lod/graph.js";\nexport function start() { return draw(); }\n'
    assert frontend.modules("main.js") == ("util/format.js", "lod/graph.js", "main.js")
    text = frontend._wrap("lod/graph.js")
    assert "const {bytesText, K: kilo} = __dx_util_format;" in text
    assert text.startswith("// ---- lod/graph.js\nconst __dx_lod_graph = (() => {")
    js = "".join(frontend._wrap(m) for m in frontend.modules("main.js")) + "console.log(__dx_main.start());\n"
    node = shutil.which("node")
    assert node
    done = subprocess.run([node, "--input-type=module", "-e", js], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "1 B", done.stderr


def test_the_bundler_refuses_cycles_paths_out_and_what_it_cannot_join(fake):
    fake["a/x.js"] = 'import {y} from "../b/y.js";\nexport const x = 1;\n'
    fake["b/y.js"] = 'import {x} from "../a/x.js";\nexport const y = 2;\n'
    with pytest.raises(ValueError, match="import cycle in the app's modules: a/x.js -> b/y.js -> a/x.js"):
        frontend.modules("a/x.js")
    fake["out.js"] = 'import {z} from "../../z.js";\n'
    with pytest.raises(ValueError, match="outside the app's modules"):
        frontend.modules("out.js")
    fake["star.js"] = 'import * as all from "./a/x.js";\n'
    with pytest.raises(ValueError, match="joins only"):
        frontend.modules("star.js")
    with pytest.raises(ValueError, match="would share the bundle scope __dx_a_b"):
        frontend._check_unique(["a_b.js", "a/b.js"])


def test_the_worker_marker_takes_a_relative_path(fake):
    fake["layout/layout.js"] = "export function layered() { return 1; }\n"
    fake["layout/worker.js"] = 'const LAYOUT = /* bundler: ./layout.js */ null;\nexport function run() { return LAYOUT; }\n'
    assert frontend._shipped(["layout/worker.js"]) == {"layout/layout.js"}
    text = frontend._wrap("layout/worker.js")
    assert ('const LAYOUT = {source: "const __dx_layout_layout = (" + __dx_src_layout_layout + ")();\\n", '
            'scope: "__dx_layout_layout"};') in text


def test_package_data_ships_every_file_of_the_app():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"\[tool\.setuptools\.package-data\]\nexplorer = \[(.*?)\]", text, re.S).group(1)
    globs = re.findall(r'"([^"]+)"', block)
    files = [p.relative_to(FRONTEND.parent).as_posix() for p in FRONTEND.rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc") and not p.name.endswith(".d.ts") and "__pycache__" not in p.parts]
    assert len(files) > 35
    # setuptools' globs: "*" does not cross "/"
    unshipped = [f for f in files if not any(fnmatch.fnmatch(f, g) and f.count("/") == g.count("/") for g in globs)]
    assert unshipped == []
