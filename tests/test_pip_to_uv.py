"""scripts/pip_to_uv.py: uv gets pip's index, extra indexes, find-links, constraints and certificate, and never a
local index that does not exist (pip only warns about one; uv would stop the install)."""

import importlib.util
import shlex
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "pip_to_uv.py"
spec = importlib.util.spec_from_file_location("pip_to_uv", SCRIPT)
pip_to_uv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pip_to_uv)


def test_pips_settings_become_uvs_and_missing_local_indexes_are_left_out(tmp_path, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    wheels, index = tmp_path / "wheels", tmp_path / "index"
    wheels.mkdir()
    index.mkdir()
    constraints = tmp_path / "c.txt"
    constraints.write_text("torch<=9\n")
    uv = pip_to_uv.uv_settings({
        "index-url": "https://example.invalid/simple",
        "extra-index-url": f"{index.as_uri()} {(tmp_path / 'gone').as_uri()} https://mirror.invalid/simple",
        "find-links": f"{wheels} {tmp_path / 'no-such-folder'}",
        "constraint": f"{constraints} {tmp_path / 'absent.txt'}",
        "cert": "/etc/ssl/certs/ca.pem",
    })
    assert uv == {"UV_INDEX_STRATEGY": "unsafe-best-match", "UV_DEFAULT_INDEX": "https://example.invalid/simple",
                  "UV_INDEX": f"{index.as_uri()} https://mirror.invalid/simple", "UV_FIND_LINKS": str(wheels),
                  "UV_CONSTRAINT": str(constraints), "SSL_CERT_FILE": "/etc/ssl/certs/ca.pem"}


def test_an_environment_variable_wins_over_a_config_file_and_the_lines_are_shell_quoted(tmp_path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    conf = tmp_path / "pip.conf"
    conf.write_text(f"[global]\nfind-links = {tmp_path}\n")
    indexes = "https://one.invalid/simple https://two.invalid/simple"
    env = {"PIP_CONFIG_FILE": str(conf), "PIP_FIND_LINKS": str(folder), "PIP_EXTRA_INDEX_URL": indexes,
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, check=True).stdout
    lines = dict(line.split("=", 1) for line in out.splitlines())
    assert shlex.split(lines["UV_FIND_LINKS"]) == [str(folder)]
    assert shlex.split(lines["UV_INDEX"]) == [indexes]
