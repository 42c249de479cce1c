"""Our reader vs. ExecuTorch's own reader, field for field, on every real fixture.

For each ``tests/fixtures/*.pte`` the JSON of ``device-explorer inspect FILE --json`` is compared with
``tests/reference.py``'s ``executorch_view`` (built with executorch's ``deserialize_pte_binary``):
segments, plan names, inputs/outputs, arenas and their devices, every value (type, scalar value,
dtype, sizes, device, memory id, offset, nbytes, storage, name), every instruction (kind, op or
delegate, args) and every delegate (id, compile specs).

Skipped when executorch is not importable - except when the ``CI`` environment variable is set:
then a missing executorch is a failure, so the cross-check can't silently stop running.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import math
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.interop

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
FIXTURE_FILES = sorted(FIXTURES.glob("*.pte"))
ZOO_FILES = sorted((FIXTURES / "zoo").glob("*.pte"))  # tests/test_zoo.py checks the analysis on them

MAX_REPORTED = 40  # mismatches listed per file before the message is cut


def _load_reference():
    spec = importlib.util.spec_from_file_location("_crosscheck_reference", HERE / "reference.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


reference = _load_reference()  # importing it never imports executorch


def _require_executorch() -> None:
    """Interop tests need the interop extra; without it they fail (deselect them with -m 'not interop')."""
    import executorch.exir._serialize._program  # noqa: F401


def _our_json(path: Path) -> dict:
    """``device-explorer inspect PATH --json``, run in process, parsed."""
    from explorer import cli

    argv = ["inspect", str(path), "--json"]
    buf = io.StringIO()
    try:
        status = cli.main(argv, stdout=buf)
    except TypeError as exc:
        if "stdout" not in str(exc):
            raise
        buf = io.StringIO()  # main() takes no stdout argument: capture sys.stdout instead
        with contextlib.redirect_stdout(buf):
            try:
                status = cli.main(argv)
            except SystemExit as stop:
                status = stop.code
    except SystemExit as stop:
        status = stop.code
    assert status in (None, 0), f"device-explorer inspect {path.name} --json exited with {status!r}:\n{buf.getvalue()}"
    text = buf.getvalue()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"inspect --json output for {path.name} is not JSON ({exc}):\n{text[:2000]}") from exc


# --------------------------------------------------------------------------------------------------
# Comparison. Every difference becomes one line naming the file, plan and value/instruction.
# --------------------------------------------------------------------------------------------------

def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b  # True must not compare equal to 1
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b  # ints, floats (1 == 1.0), strings, None, dicts of compile specs


TENSOR_FIELDS = ("dtype", "sizes", "device", "memory_id", "offset", "nbytes", "storage")


def compare_views(ours: dict, theirs: dict) -> list[str]:
    """Differences between our inspect JSON and executorch's view, one message each."""
    problems: list[str] = []

    def check(where: str, field: str, mine, ref) -> None:
        if not _same(mine, ref):
            problems.append(f"{where}: {field} is {mine!r} in our JSON, executorch says {ref!r}")

    check("file", "format", ours.get("format"), theirs["format"])
    check("file", "size", ours.get("size"), theirs["size"])
    check("file", "file (basename)", os.path.basename(str(ours.get("file", ""))), theirs["file"])
    check("file", "segments", [{"offset": s.get("offset"), "size": s.get("size")} for s in ours.get("segments", [])],
          theirs["segments"])

    our_plans = ours.get("plans", [])
    check("file", "plan names (in stored order)", [p.get("name") for p in our_plans],
          [p["name"] for p in theirs["plans"]])
    by_name = {p.get("name"): p for p in our_plans}
    for ref_plan in theirs["plans"]:
        name = ref_plan["name"]
        plan = by_name.get(name)
        if plan is None:
            problems.append(f"plan {name!r}: missing from our JSON")
            continue
        where = f"plan {name!r}"
        check(where, "inputs", plan.get("inputs"), ref_plan["inputs"])
        check(where, "outputs", plan.get("outputs"), ref_plan["outputs"])

        # Arenas.
        our_buffers = plan.get("buffers", [])
        check(where, "number of buffers", len(our_buffers), len(ref_plan["buffers"]))
        our_buf_by_id = {b.get("memory_id"): b for b in our_buffers}
        for ref_buf in ref_plan["buffers"]:
            mid = ref_buf["memory_id"]
            buf = our_buf_by_id.get(mid)
            if buf is None:
                problems.append(f"{where} buffer memory_id={mid}: missing from our JSON")
                continue
            check(f"{where} buffer memory_id={mid}", "size", buf.get("size"), ref_buf["size"])
            check(f"{where} buffer memory_id={mid}", "device", buf.get("device"), ref_buf["device"])

        # Values.
        our_values = plan.get("values", [])
        check(where, "number of values", len(our_values), len(ref_plan["values"]))
        our_val_by_index = {v.get("index"): v for v in our_values}
        for ref_val in ref_plan["values"]:
            idx = ref_val["index"]
            val = our_val_by_index.get(idx)
            vwhere = f"{where} value {idx}"
            if val is None:
                problems.append(f"{vwhere}: missing from our JSON")
                continue
            check(vwhere, "type", val.get("type"), ref_val["type"])
            if ref_val["type"] == "Tensor":
                for field in TENSOR_FIELDS:
                    check(f"{vwhere} (Tensor)", field, val.get(field), ref_val.get(field))
                # `name` is present only when the file has a fully-qualified name.
                check(f"{vwhere} (Tensor)", "name", val.get("name"), ref_val.get("name"))
            else:
                check(f"{vwhere} ({ref_val['type']})", "value", val.get("value"), ref_val["value"])

        # Instructions, in run order over all chains.
        our_instrs = plan.get("instructions", [])
        check(where, "number of instructions", len(our_instrs), len(ref_plan["instructions"]))
        for ref_ins, ins in zip(ref_plan["instructions"], our_instrs):
            iwhere = f"{where} instruction {ref_ins['index']}"
            check(iwhere, "index", ins.get("index"), ref_ins["index"])
            check(iwhere, "kind", ins.get("kind"), ref_ins["kind"])
            if ref_ins["kind"] == "KernelCall":
                check(iwhere, "op", ins.get("op"), ref_ins["op"])
                check(iwhere, "args", ins.get("args"), ref_ins["args"])
            elif ref_ins["kind"] == "DelegateCall":
                check(iwhere, "delegate", ins.get("delegate"), ref_ins["delegate"])
                check(iwhere, "args", ins.get("args"), ref_ins["args"])

        # Delegates.
        our_delegates = plan.get("delegates", [])
        check(where, "number of delegates", len(our_delegates), len(ref_plan["delegates"]))
        for i, (ref_del, dlg) in enumerate(zip(ref_plan["delegates"], our_delegates)):
            check(f"{where} delegate {i}", "id", dlg.get("id"), ref_del["id"])
            check(f"{where} delegate {i}", "compile_specs", dlg.get("compile_specs"), ref_del["compile_specs"])
    return problems


# --------------------------------------------------------------------------------------------------
# Tests.
# --------------------------------------------------------------------------------------------------

def test_fixtures_exist():
    assert FIXTURE_FILES, f"no .pte fixtures in {FIXTURES}; run scripts/make_fixtures.py"


@pytest.mark.parametrize("path", FIXTURE_FILES + ZOO_FILES,
                         ids=[p.name for p in FIXTURE_FILES] + [f"zoo/{p.name}" for p in ZOO_FILES])
def test_inspect_json_matches_executorch(path: Path):
    _require_executorch()
    theirs = reference.executorch_view(path)
    ours = _our_json(path)
    problems = compare_views(ours, theirs)
    if problems:
        shown = "\n  ".join(problems[:MAX_REPORTED])
        more = f"\n  ... and {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
        pytest.fail(f"{path.name}: {len(problems)} difference(s) between our inspect JSON and executorch's reader:\n"
                    f"  {shown}{more}", pytrace=False)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.name for p in FIXTURE_FILES])
def test_expected_summary_matches_executorch(path: Path):
    """tests/fixtures/expected.json (the "tests as data" summary) is what executorch reads today."""
    _require_executorch()
    expected = json.loads((FIXTURES / "expected.json").read_text())
    assert path.name in expected, f"{path.name} has no entry in expected.json; run scripts/make_fixtures.py --expected"
    spec = importlib.util.spec_from_file_location("_make_fixtures", HERE.parent / "scripts" / "make_fixtures.py")
    make_fixtures = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(make_fixtures)
    assert make_fixtures.summarize(reference.executorch_view(path)) == expected[path.name], (
        f"expected.json entry for {path.name} is stale; rerun scripts/make_fixtures.py --expected")


def test_compare_views_reports_differences():
    """The comparison itself notices a changed device, offset, op and compile spec (no executorch needed)."""
    theirs = {
        "format": "device-explorer/1", "file": "x.pte", "size": 10, "segments": [],
        "plans": [{
            "name": "forward", "inputs": [0], "outputs": [1],
            "buffers": [{"memory_id": 1, "size": 32, "device": "cuda:0"}],
            "values": [
                {"index": 0, "type": "Tensor", "dtype": "float32", "sizes": [2], "device": "cuda:0",
                 "memory_id": 1, "offset": 0, "nbytes": 8, "storage": "planned"},
                {"index": 1, "type": "Int", "value": 1},
            ],
            "instructions": [{"index": 0, "kind": "KernelCall", "op": "et_copy::_h2d_copy.out", "args": [0, 0, 0]}],
            "delegates": [{"id": "D", "compile_specs": {"target_device": "cuda:0"}}],
        }],
    }
    assert compare_views(json.loads(json.dumps(theirs)), theirs) == []
    ours = json.loads(json.dumps(theirs))
    plan = ours["plans"][0]
    plan["values"][0]["device"] = "cpu"
    plan["values"][0]["offset"] = 16
    plan["values"][1]["value"] = True  # a bool is not the int 1
    plan["instructions"][0]["op"] = "et_copy::_d2h_copy.out"
    plan["delegates"][0]["compile_specs"]["target_device"] = "cuda:1"
    plan["buffers"][0]["device"] = "cpu"
    problems = compare_views(ours, theirs)
    text = "\n".join(problems)
    assert len(problems) == 6, text
    for needle in ("value 0 (Tensor): device", "value 0 (Tensor): offset", "value 1 (Int): value",
                   "instruction 0: op", "delegate 0: compile_specs", "buffer memory_id=1: device"):
        assert needle in text, text
