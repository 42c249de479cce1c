"""What the bundle ships of each module is the same program as the file: the bundler drops comment-only lines and
JSDoc (``explorer/frontend/__init__.py`` ``strip_comments``) by pattern, not by parsing, so this parses both with
TypeScript's own parser (tests/js/node_modules, as tests/test_tsc.py) and compares them printed without comments.
A "/**" inside a string, a regex or a line comment would make the pattern eat code; this is where it would show.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from explorer import frontend

JS = Path(__file__).parent / "js"
FRONTEND = Path(frontend.__file__).parent

PRINT = """
const ts = require(process.argv[2]);
const pairs = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
const printer = ts.createPrinter({removeComments: true});
const show = (name, text) => printer.printFile(ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS));
const out = {};
for (const [name, original, stripped] of pairs) out[name] = [show(name, original) === show(name, stripped), stripped.length / original.length];
console.log(JSON.stringify(out));
"""


def _compare(tmp_path, pairs):
    (tmp_path / "print.cjs").write_text(PRINT)
    (tmp_path / "pairs.json").write_text(json.dumps(pairs))
    done = subprocess.run(["node", str(tmp_path / "print.cjs"), str(JS / "node_modules" / "typescript"),
                           str(tmp_path / "pairs.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_every_module_ships_as_the_same_program(tmp_path):
    names = sorted(p.relative_to(FRONTEND).as_posix() for p in FRONTEND.rglob("*.js") if "vendor" not in p.parts)
    assert len(names) > 30
    pairs = [(n, frontend.source(n), frontend.strip_comments(frontend.source(n))) for n in names]
    result = _compare(tmp_path, pairs)
    assert [n for n, (same, _) in result.items() if not same] == []
    assert sum(len(s) for _, _, s in pairs) < 0.85 * sum(len(o) for _, o, _ in pairs)  # the JSDoc did go


def test_the_comparison_sees_eaten_code(tmp_path):
    """A "/**" in a line comment makes the pattern run on to the next "*/": the comparison must catch it."""
    text = "// see /** below\nconst a = 1;\nconst b = /** @type {number} */ (2);\n"
    result = _compare(tmp_path, [("bad.js", text, frontend.strip_comments(text))])
    assert result["bad.js"][0] is False
