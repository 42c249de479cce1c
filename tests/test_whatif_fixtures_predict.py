"""What-if predictions equal executorch 1.5.1's own exports of every placement in tests/fixtures/whatif/.

The fixtures (``scripts/make_whatif_fixtures.py``, manifest.json) are one model exported per placement, so
a prediction made from one file must equal the file of the other placement, value by value: every tensor's
device, storage, arena and offset, every instruction and argument, every arena and its device, inputs and
outputs — from the cpu-only export, from the cuda:0 and cuda:1 exports, and from the portable one (moving
``op:aten::add``, as ``DeviceAwarePartitioner`` delegates it). No torch or executorch needed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import explorer
from whatif_helpers import same_program
from explorer.analysis.diff.compare import diff
from explorer.whatif.predict import Refusal, what_if

HERE = Path(__file__).parent / "fixtures" / "whatif"
MANIFEST = json.loads((HERE / "manifest.json").read_text())
ENTRIES = {(e["model"], e["variant"]): e for e in MANIFEST["entries"]}
MODELS = sorted({e["model"] for e in MANIFEST["entries"]})


def _exported(model: str, variant: str) -> bool:
    """False for a placement executorch refused to export (the manifest keeps it, with no file)."""
    return ENTRIES[(model, variant)]["file"] is not None


def _load(model: str, variant: str) -> explorer.Program:
    return explorer.load(HERE / ENTRIES[(model, variant)]["file"])


def _kwargs(variant: str) -> dict:
    flags = ENTRIES[next(k for k in ENTRIES if k[1] == variant)]["flags"]
    return dict(skip_h2d_inputs=flags["skip_h2d_for_method_inputs"], skip_d2h_outputs=flags["skip_d2h_for_method_outputs"],
                alloc_graph_input=flags["alloc_graph_input"], alloc_graph_output=flags["alloc_graph_output"])


_same = same_program  # one comparison for both what-if corpora (tests/whatif_helpers.py)


def _cases():
    for model in MODELS:
        for variant in ("cuda0", "cuda1", "cuda0_skip_h2d", "cuda0_skip_d2h", "cuda0_skip_both"):
            device = "cuda:1" if variant == "cuda1" else "cuda:0"
            yield model, "cpu_only", variant, f"delegate:*={device}"
        yield model, "cuda0", "cpu_only", "delegate:*=cpu"
        yield model, "cuda0", "cuda1", "delegate:*=cuda:1"
        yield model, "cuda1", "cuda0", "delegate:BackendWithCompilerDemo=cuda:0"
        yield model, "portable", "cuda0", "op:aten::add=cuda:0"


@pytest.mark.parametrize("model,source,target,move", list(_cases()))
def test_prediction_equals_the_export(model, source, target, move):
    original = _load(model, source)
    kwargs = _kwargs(target)
    if not _exported(model, target):  # executorch refused this placement: so must we
        import re

        users = re.search(r"but it has (\d+) users", ENTRIES[(model, target)]["refused"]["message"]).group(1)
        with pytest.raises(Refusal, match=f"exactly one user, but it has {users} users"):
            what_if(original, [move], **kwargs)
        return
    got = what_if(original, [move], **kwargs)
    _same(got, _load(model, target), ids=not move.startswith("op:"))
    assert got.prediction.moves == ((move.split("=")[0], move.split("=")[1]),)


@pytest.mark.parametrize("model", MODELS)
def test_skip_export_back_to_cpu_is_the_cpu_only_export(model):
    for variant in ("cuda0_skip_h2d", "cuda0_skip_d2h", "cuda0_skip_both"):
        if not _exported(model, variant):
            continue
        got = what_if(_load(model, variant), ["delegate:*=cpu"], **_kwargs("cpu_only"))
        _same(got, _load(model, "cpu_only"))


@pytest.mark.parametrize("model", MODELS)
def test_nothing_moved_or_moved_where_it_is_gives_an_empty_diff(model):
    for variant, moves in (("cuda0", []), ("cuda0", ["delegate:*=cuda:0"]), ("cpu_only", ["delegate:*=cpu"]),
                           ("portable", ["op:aten::add=cpu"]), ("cuda0_skip_d2h", ["delegate:*=cuda:0"])):
        original = _load(model, variant)
        got = what_if(original, moves)
        _same(got, original)
        for plan in diff(original, got).plans:
            assert plan.values == () and all(c.status == "same" for c in plan.copies)
            assert all(a.status == "same" for a in plan.arenas)


def test_method_limits_the_prediction_to_one_plan():
    original = _load("two_methods", "cpu_only")
    got = what_if(original, ["delegate:*=cuda:0"], method="encode")
    export = _load("two_methods", "cuda0")
    _same(type(got)(**{**got.__dict__, "plans": (got.plan("encode"),)}),
          type(export)(**{**export.__dict__, "plans": (export.plan("encode"),)}))
    assert got.plan("forward") is original.plan("forward")
    assert set(got.prediction.origins) == {"encode"}
    flagged = what_if(original, ["delegate:*=cuda:0"], method="encode", skip_d2h_outputs=True)
    assert flagged.plan("forward") is original.plan("forward")
    with pytest.raises(KeyError, match="no plan named 'decode'"):
        what_if(original, ["delegate:*=cuda:0"], method="decode")


def test_cli_flags_reach_the_prediction():
    import io

    from explorer.cli import main

    out = io.StringIO()
    path = HERE / ENTRIES[("multi_out", "cuda0_skip_both")]["file"]
    assert main(["whatif", str(path), "--move", "delegate:*=cpu", "--no-skip-h2d-inputs", "--no-skip-d2h-outputs",
                 "--alloc-graph-input", "--alloc-graph-output", "--json"], stdout=out) == 0
    doc = json.loads(out.getvalue())
    export = _load("multi_out", "cpu_only").plans[0]
    plan = doc["plans"][0]
    assert [b["size"] for b in plan["buffers"]] == [b.size for b in export.buffers]
    assert [v.get("memory_id") for v in plan["values"]] == [getattr(v, "memory_id", None) for v in export.values]
    assert "alloc_graph_input=True" in doc["prediction"]["text"]


def test_what_if_takes_a_path_too():
    path = HERE / ENTRIES[("residual", "cpu_only")]["file"]
    _same(explorer.what_if(str(path), ["delegate:*=cuda:0"]), _load("residual", "cuda0"))
