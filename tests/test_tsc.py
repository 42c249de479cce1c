"""The browser app type-checks: ``tsc --noEmit --checkJs`` over explorer/frontend/**/*.js (tests/js/jsconfig.json).

typescript is a dev-time npm package pinned in tests/js/package.json; .ci/run installs it with
``npm install`` in tests/js. Missing, it is a failure, never a skip: an unchecked app is what this guards.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

JS = Path(__file__).parent / "js"
TSC = JS / "node_modules" / ".bin" / "tsc"


def test_frontend_type_checks():
    assert TSC.exists(), "typescript is not installed: run `npm install --no-package-lock` in tests/js (.ci/run does)"
    done = subprocess.run([str(TSC), "-p", str(JS / "jsconfig.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def test_the_check_is_strict(tmp_path):
    """The one config runs the whole strict family (no implicit any, strict null checks, ...) and ``noUnusedLocals``
    over every module, and they are not just named: the same options reject a module with an untyped parameter, a
    possibly-null read and an unused local, each by its own error code."""
    import json

    options = json.loads((JS / "jsconfig.json").read_text())["compilerOptions"]
    assert options["strict"] is True and options["noUnusedLocals"] is True
    assert TSC.exists(), "typescript is not installed: run `npm install --no-package-lock` in tests/js (.ci/run does)"
    (tmp_path / "bad.js").write_text(
        "export function f(x) { return x; }\n"
        "/** @param {string | null} s */ export function g(s) { const unused = 1; return s.length; }\n")
    (tmp_path / "jsconfig.json").write_text(json.dumps({"compilerOptions": options, "files": ["bad.js"]}))
    done = subprocess.run([str(TSC), "-p", str(tmp_path / "jsconfig.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    for code in ("TS7006", "TS18047", "TS6133"):  # implicit any, possibly null, declared but never read
        assert code in done.stdout, done.stdout


def test_type_check_covers_every_module():
    """The config names the shipped modules by a glob, so a new module is checked without an edit; and the
    declarations of what the page provides (types/globals.d.ts) are part of it."""
    import json

    from explorer import frontend

    config = json.loads((JS / "jsconfig.json").read_text())
    assert "../../explorer/frontend/**/*.js" in config["include"]
    assert config["exclude"] == ["../../explorer/frontend/vendor"], "only plotly.js, vendored, is left out"
    assert config["compilerOptions"]["checkJs"] is True
    folder = Path(frontend.__file__).parent
    shipped = {p.relative_to(folder).as_posix() for p in folder.rglob("*.js") if "vendor" not in p.parts}
    # every module is bundled (found from the entries' imports, frontend.modules), none left unused
    assert set(frontend.MODULES) | {"index.js", "page.js"} == shipped
    assert (folder / "types/globals.d.ts").exists()


def test_payload_declaration_is_checked():
    """The payload's and the apps' declarations are in the checked set (docs/frontend.md "Its types")."""
    frontend = JS.parent.parent / "explorer" / "frontend"
    assert (frontend / "types/payload.d.ts").exists() and (frontend / "types/app.d.ts").exists()
