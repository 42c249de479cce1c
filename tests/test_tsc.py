"""The browser app type-checks: ``tsc --noEmit --checkJs`` over explorer/frontend/*.js (tests/js/jsconfig.json).

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


def test_strict_modules_type_check():
    """The modules in tests/js/jsconfig.strict.json pass the whole strict family (``strict``: no implicit any, strict
    null checks, ...) and ``noUnusedLocals``. A module joins the list once it passes; the list only grows (the
    modules it imports must pass too, or tsc reports them). docs/frontend.md says which are still out and why."""
    assert TSC.exists(), "typescript is not installed: run `npm install --no-package-lock` in tests/js (.ci/run does)"
    done = subprocess.run([str(TSC), "-p", str(JS / "jsconfig.strict.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


STRICT_MODULES = {"cells.js", "datafile.js", "delegate.js", "figures.js", "frame.js", "keys.js", "labels.js",
                  "links.js", "memstrip.js", "model.js", "moves.js", "nav.js", "overlay.js", "overlay_data.js",
                  "overlay_view.js", "profile.js", "profile_diff.js", "search.js", "shell.js", "util.js"}


def test_strict_list_only_grows():
    """The strict config keeps the strict family on and names at least the modules that passed it when it was made,
    and every name is a shipped module."""
    import json

    config = json.loads((JS / "jsconfig.strict.json").read_text())
    assert config["compilerOptions"] == {"strict": True, "noUnusedLocals": True}
    names = {Path(f).name for f in config["files"]}
    assert STRICT_MODULES <= names
    frontend = JS.parent.parent / "explorer" / "frontend"
    assert all((frontend / name).exists() for name in names)


def test_type_check_covers_every_module():
    """The config names the shipped modules by a glob, so a new module is checked without an edit; and the
    declarations of what the page provides (globals.d.ts) are part of it."""
    import json

    from explorer import frontend

    config = json.loads((JS / "jsconfig.json").read_text())
    assert "../../explorer/frontend/*.js" in config["include"]
    assert config["compilerOptions"]["checkJs"] is True
    shipped = {p.name for p in Path(frontend.__file__).parent.glob("*.js")}
    # every module is bundled (found from the entries' imports, frontend.modules), none left unused
    assert set(frontend.MODULES) | {"index.js", "page.js"} == shipped
    assert (Path(frontend.__file__).parent / "globals.d.ts").exists()


STRICT_ON = ("noImplicitThis", "strictBindCallApply", "strictFunctionTypes", "alwaysStrict",
             "useUnknownInCatchVariables", "noImplicitReturns", "noFallthroughCasesInSwitch")


def test_strict_flags_that_pass_stay_on():
    """The strict checks the app already passes are on, so a regression in them fails test_frontend_type_checks;
    the payload's declaration is in the checked set (docs/frontend.md lists the flags still off)."""
    import json

    options = json.loads((JS / "jsconfig.json").read_text())["compilerOptions"]
    assert {f: options.get(f) for f in STRICT_ON} == {f: True for f in STRICT_ON}
    assert (JS.parent.parent / "explorer" / "frontend" / "payload.d.ts").exists()
