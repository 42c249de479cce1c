#!/usr/bin/env bash
# The README's test command: every set-up step the tests need on a fresh Debian machine, then the whole suite.
# .ci/run calls exactly this. Arguments go to pytest (e.g. `bash scripts/test.sh -m "not interop and not browser"`).
# The heavy campaigns (every fixture re-exported, every byte fuzzed) are scripts/campaigns.sh, not this.
#
#  - Debian's chromium (the browser tests; never a browser download of Playwright's own), nodejs and npm (the app's
#    JavaScript tests and `tsc --checkJs`), installed with apt-get when missing (as root, or through sudo);
#  - typescript and the other dev-time node packages pinned in tests/js/package.json;
#  - a fresh virtual environment ($DEX_VENV, default .venv) with the package and its test and interop extras
#    (torch + executorch: the real exports and executorch's own readers the tests compare with), installed by uv.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
(cd tests/js && npm install --no-package-lock --no-audit --no-fund --silent)

VENV="${DEX_VENV:-.venv}"
rm -rf "$VENV"
python3 -m venv "$VENV"
# shellcheck disable=SC1091
source "$VENV/bin/activate"
# uv installs the same packages as pip in a fraction of its time (the 6-minute budget), from the indexes, find-links
# and constraints pip is configured with (scripts/pip_to_uv.py); pip does it where uv cannot.
python -m pip install -q uv
set -a
eval "$(python scripts/pip_to_uv.py)"
set +a
# No --compile-bytecode: that compiles all ~21,000 modules of the environment (torch, executorch, marimo...; 32 s of
# the two cores), where the suite imports ~5,800 of them, compiled as they are first imported: 20 CPU-s in all, counted
# in every process of one run (docs/testing.md).
if ! python -m uv pip install -q --python "$VENV/bin/python" -e ".[test,interop]"; then
    echo "scripts/test.sh: uv could not install the test environment; pip installs it" >&2
    python -m pip install -q -e ".[test,interop]"
fi

# Bytecode cached even where the machine sets PYTHONDONTWRITEBYTECODE: the suite starts a Python process for each CLI
# run, kernel and campaign sample, and each compiled the package (and torch...) from source again (0.55 -> 0.32 s a
# start), and each worker rewrote every test module's asserts (~4 s). In __pycache__ next to each source (ignored by
# git): a PYTHONPYCACHEPREFIX was measured slower (a cold torch import 6 -> 14 s).
unset PYTHONDONTWRITEBYTECODE
python -m compileall -q -j 2 explorer writers tests bench scripts > /dev/null

# Two workers (2 cores); a test file stays on one worker, so its module-scoped pages and servers start once. The
# files go out in tests/conftest.py's order (the long browser files first), not xdist's (most tests first).
# A browser wait that timed out (Playwright's TimeoutError: a page on two busy cores) runs once more, shown as R and
# named in the summary (-rR); an assertion, or any other error, fails at once: tests/conftest.py marks the browser
# tests so (docs/testing.md).
python -m pytest -q -rfER -n 2 --dist loadfile --no-loadscope-reorder "$@"
