"""The app's JavaScript unit tests (tests/js/*.test.js) under node's own test runner.

Node is required, not optional: CI (.ci/run) installs it. The modules are imported as they ship
(explorer/frontend/*.js, real ES modules), with no bundler and no npm package at run time.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from explorer import frontend

TESTS = Path(__file__).parent / "js"


def test_js_unit_tests_pass(tmp_path):
    """Every tests/js/*.test.js, imported by one module that node's runner runs in one process: a process per file (its
    default) cost ~0.3 s of start-up each, 13 s of the suite's wall time on 2 busy cores, for 1.6 s of tests."""
    node = shutil.which("node")
    assert node, "node is needed for the app's tests (CI installs it; see .ci/run)"
    files = sorted(TESTS.glob("*.test.js"))
    assert len(files) >= 3
    runner = tmp_path / "all.test.mjs"
    runner.write_text("".join(f"import {json.dumps(f.as_uri())};\n" for f in files), encoding="utf-8")
    done = subprocess.run([node, "--test", str(runner)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
    count = int(re.search(r"^# tests (\d+)$", done.stdout, re.M).group(1))
    declared = sum(len(re.findall(r"^test\(", f.read_text(encoding="utf-8"), re.M)) for f in files)
    assert count >= declared > 100, (count, declared)  # every file's tests ran


def test_bundles_are_valid_modules(tmp_path):
    """What anywidget and the report page load: each bundle parses as an ES module."""
    node = shutil.which("node")
    assert node
    for entry in ("widget", "page"):
        path = tmp_path / f"{entry}.mjs"
        path.write_text(frontend.bundle(entry), encoding="utf-8")
        done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_python_packed_payload_decodes_in_node_as_unpack_reads_it(tmp_path):
    """explorer.views.payload.embed.pack -> the page's decodePayload (host/model.js) gives what embed.unpack gives: the big
    integer columns (int32, and float64 past int32) back in place, short ones and strings as JSON."""
    import json

    import numpy as np

    from explorer.views.payload.embed import BINARY_MIN, NAMED_LABELS, pack, unpack

    named = np.zeros(BINARY_MIN, dtype=bool)
    named[[1, 5]] = True  # the other rows' labels are made by the decoders: "%" and the value index
    payload = {"plans": [{"lod": {"tensors": {"first": np.arange(-1, 300, dtype=np.int64), NAMED_LABELS: ["a<b", "é"],
                                              "index": np.arange(BINARY_MIN) + 10, "named": named},
                                  "arenas": [{"rows": np.arange(5), "size": 2**40}]}}],
               "huge": np.array([2**40] * BINARY_MIN, dtype=np.int64), "short": np.arange(3)}
    packed = pack(payload)
    (tmp_path / "p.bin").write_bytes(packed)
    script = tmp_path / "decode.mjs"
    script.write_text(f"""import fs from "node:fs";
import {{decodePayload}} from {json.dumps((Path(frontend.__file__).parent / "host/model.js").as_uri())};
const out = await decodePayload(new Uint8Array(fs.readFileSync(process.argv[2])));
process.stdout.write(JSON.stringify(out));""", encoding="utf-8")
    node = shutil.which("node")
    done = subprocess.run([node, str(script), str(tmp_path / "p.bin")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got, expected = json.loads(done.stdout), unpack(packed)
    assert got == expected
    assert got["plans"][0]["lod"]["tensors"]["first"] == list(range(-1, 300)) and got["huge"][0] == 2**40
    assert got["plans"][0]["lod"]["tensors"]["named"] == named.astype(int).tolist() and got["short"] == [0, 1, 2]
    label = got["plans"][0]["lod"]["tensors"]["label"]
    assert label[:7] == ["%10", "a<b", "%12", "%13", "%14", "é", "%16"] and len(label) == BINARY_MIN
    assert NAMED_LABELS not in got["plans"][0]["lod"]["tensors"]


def test_payload_version_is_one_number_on_both_ends():
    """The packed payload carries its contract's version ("$v"); Python's reader and host/model.js agree on the number,
    and a payload of another version is refused by both (never misread)."""
    import gzip
    import re

    import pytest

    from explorer.views.payload.embed import MAGIC, PAYLOAD_VERSION, PayloadVersionError, pack, unpack

    js = (Path(frontend.__file__).parent / "host/model.js").read_text(encoding="utf-8")
    assert re.search(r"export const PAYLOAD_VERSION = (\d+);", js).group(1) == str(PAYLOAD_VERSION)
    assert unpack(pack({"a": 1})) == {"a": 1}
    text = b'{"a":1,"$v":%d}' % (PAYLOAD_VERSION + 1)
    other = gzip.compress(MAGIC + len(text).to_bytes(4, "little") + text)
    with pytest.raises(PayloadVersionError, match=f"this reader reads version {PAYLOAD_VERSION}"):
        unpack(other)


def test_modules_declare_with_const_and_let():
    """Issue 21: modern modules — block-scoped declarations only, no `var` (hoisting hid loop-variable reuse)."""
    import re

    from explorer import frontend

    folder = Path(frontend.__file__).parent
    files = [p for p in sorted(folder.rglob("*.js")) if "vendor" not in p.parts]
    assert len(files) > 30
    found = [f"{p.relative_to(folder)}:{k}" for p in files
             for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if re.search(r"\bvar\s", line)]
    assert not found, found
