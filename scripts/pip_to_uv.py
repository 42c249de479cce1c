"""Print the uv settings that make ``uv pip install`` pick what ``pip install`` would on this machine.

scripts/test.sh installs the test environment with uv (a proven, maintained installer: the same packages in a
fraction of pip's time, which counts against the suite's 6 minutes on 2 cores). uv does not read pip's
configuration, so this passes it on: pip's index, its extra indexes, its find-links, its constraints and its
certificate bundle, from pip's config files and ``PIP_*`` variables alike (``pip config list`` shows both), as
``NAME=value`` lines, quoted for the shell to export. A ``file://`` index that does not exist is left out (pip only
warns about one; uv would stop). uv's ``unsafe-best-match`` strategy is pip's: the best version across every
index, not the first index that has the package.

    python scripts/pip_to_uv.py        # e.g. UV_FIND_LINKS=/opt/wheels
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from urllib.parse import unquote, urlparse


def pip_settings() -> dict[str, str]:
    """``pip config list`` as a dict: ``global.find-links`` and ``:env:.find-links`` both become ``find-links``
    (an environment variable wins over a file, as in pip)."""
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                         check=False).stdout
    files: dict[str, str] = {}
    env: dict[str, str] = {}
    for line in out.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        section, _, name = key.rpartition(".")
        value = value.strip().strip("'\"")
        (env if section == ":env:" else files)[name] = value
    return {**files, **env}


def _usable(location: str) -> bool:
    """An index or find-links location uv can open: any URL, or a local folder that exists."""
    parsed = urlparse(location)
    if parsed.scheme == "file":
        return os.path.isdir(unquote(parsed.path))
    if parsed.scheme:
        return True
    return os.path.isdir(location)


def uv_settings(pip: dict[str, str]) -> dict[str, str]:
    """The uv environment variables for pip's settings ``pip``."""
    uv = {"UV_INDEX_STRATEGY": "unsafe-best-match"}
    if pip.get("index-url") and _usable(pip["index-url"]):
        uv["UV_DEFAULT_INDEX"] = pip["index-url"]
    extra = [u for u in pip.get("extra-index-url", "").split() if _usable(u)]
    if extra:
        uv["UV_INDEX"] = " ".join(extra)
    links = [u for u in pip.get("find-links", "").split() if _usable(u)]
    if links:
        uv["UV_FIND_LINKS"] = ",".join(links)
    constraints = [c for c in pip.get("constraint", "").split() if os.path.isfile(c)]
    if constraints:
        uv["UV_CONSTRAINT"] = " ".join(constraints)
    if pip.get("cert") and "SSL_CERT_FILE" not in os.environ:
        uv["SSL_CERT_FILE"] = pip["cert"]
    return uv


def main() -> int:
    for name, value in uv_settings(pip_settings()).items():
        print(f"{name}={shlex.quote(value)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
