"""The details panel is one renderer at every size (issue 21): the app's details of a tensor and of an
instruction (``explorer/frontend/lod/details.js``, from the payload's tables) say the same in a ~50-node plan
as in a 20k-node plan, and on real exports say what each kind of node needs (the one renderer: no other
details exist).

The two plans are one LLM-shaped builder (tests/lod_helpers.py) at 2 and 560 layers: their first layer is
the same values and instructions at the same indices, so the same node is opened in both. The first layer
is given what a real export may carry: a stacktrace on instruction 0, a dynamic-bound tensor, and a tensor
in another dim order placed over the bytes of one that died before it (memory planning's reuse)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from lod_helpers import llm_builder
from app_js import run_js

from explorer import load
from explorer.analysis.pipeline import analyze
from writers.pte import write
from explorer.model.program import Frame
from explorer.views.state.plan import plan_view

FRAMES = (Frame("model.py", 12, "forward", "x = self.tok_embeddings(tokens)"), Frame("<&evil>.py", 3, "<lambda>", None))


def parity_program(layers: int):
    b = llm_builder(layers)
    ins = b.instructions
    ins[0] = replace(ins[0], stacktrace=FRAMES)
    x = ins[0].values[2]  # the embedding's output
    b.values[x] = replace(b.values[x], shape_dynamism="dynamic_bound")
    h = ins[1].values[2]  # layer 0's norm output, dead after its h2d copy (#2)
    d2h = next(i for i in ins if i.op == "et_copy::_d2h_copy.out")
    oc = d2h.values[1]  # written later: planned over h's bytes
    b.values[oc] = replace(b.values[oc], offset=b.values[h].offset, dim_order=(1, 0))  # and in the other order
    delegate = next(i.index for i in ins if i.kind == "DelegateCall")
    return load(write(b.program())), {"x": x, "h": h, "oc": oc, "delegate": delegate}


def fields(html: str) -> dict[str, str]:
    """The details' rows: {label: cell html}."""
    return dict(re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", html, flags=re.S))


def app_details(tmp_path, program, values, instructions) -> tuple[list, list]:
    view = plan_view(program.plans[0], program)
    commands = [{"op": "select", "detail": v, "instr": i} for v, i in zip(values, instructions)]
    out = run_js(tmp_path, view, commands)
    return [r["details"][0] for r in out], [r["details"][1] for r in out]


def test_the_same_node_shows_the_same_fields_in_a_small_and_a_big_plan(tmp_path):
    small, nodes = parity_program(2)
    big, nodes_big = parity_program(560)
    assert nodes == nodes_big
    big_view = plan_view(big.plans[0], big)
    assert big_view.overview.groups.m + big_view.analysis.facts.n >= 20_000  # a 20k-node plan
    values = [nodes["x"], nodes["h"], nodes["oc"]]
    instructions = [0, nodes["delegate"], 1]
    (tmp_path / "s").mkdir(), (tmp_path / "b").mkdir()
    sv, si = app_details(tmp_path / "s", small, values, instructions)
    bv, bi = app_details(tmp_path / "b", big, values, instructions)
    for a, b in zip(sv + si, bv + bi):
        fa, fb = fields(a), fields(b)
        assert list(fa) == list(fb)
        for k in fa:
            if k != "arena":  # the arena's size grows with the plan
                assert fa[k] == fb[k], k
    # what each node's details must say, at both sizes
    for vd, idd in ((sv, si), (bv, bi)):
        x, h, oc = (fields(t) for t in vd)
        hv, ocv = nodes["h"], nodes["oc"]
        assert x["dynamism"] == "dynamic_bound" and x["dim order"] == "(0, 1)"
        assert {"dtype", "shape", "bytes", "device", "storage", "arena", "bytes at", "alive", "written by",
                "read by"} <= set(x)
        assert "#0" in x["written by"] and "aten::rms_norm.out" in x["read by"]
        assert f"%{hv}<" in oc["shares bytes with"] and f"%{ocv}<" in h["shares bytes with"]
        assert "alive at the same time" not in oc["shares bytes with"]
        assert oc["dim order"] == "(1, 0)" and h["dim order"] == "(0, 1)" and "dynamism" not in h
        emb, dele, norm = (fields(t) for t in idd)
        for i, f in ((0, emb), (nodes["delegate"], dele), (1, norm)):
            plan = small.plans[0]
            args = plan.instructions[i].values
            assert [int(a) for a in re.findall(r"%(\d+) <span", f["args"])] == list(args)
            written = {int(a) for a in re.findall(r"%(\d+) <span class='dx-muted'>written", f["args"])}
            assert written == {args[-1]}  # an out-variant's out argument (and the delegate's output)
        assert "model.py:12 in forward" in emb["stack"] and "x = self.tok_embeddings(tokens)" in emb["stack"]
        assert "&lt;&amp;evil&gt;.py:3 in &lt;lambda&gt;" in emb["stack"] and "<&evil>" not in emb["stack"]
        assert "CudaBackend" in dele["delegate"] and "blob inline #0 8 B" in dele["delegate"]
        assert "target_device = cuda:1" in dele["compile specs"]
        assert "stack" not in norm


@pytest.mark.parametrize("fixture", ["stacktrace.pte", "xnnpack_mlp.pte", "device_mlp.pte"])
def test_the_app_details_say_what_each_node_needs(tmp_path, fixture):
    """On real exports, every tensor's and instruction's details have the rows a reviewer reads: a tensor its
    dtype, shape, bytes, device, storage and (planned) arena and lifetime, who writes and reads it; an
    instruction its kind, every argument, and a delegate call its backend and blob."""
    program = load(f"tests/fixtures/{fixture}")
    plan = program.plans[0]
    analysis = analyze(plan, program)
    tensors = [t.index for t in plan.values if t.type == "Tensor"]
    m = len(plan.instructions)
    k = max(len(tensors), m)
    values = [tensors[q % len(tensors)] for q in range(k)]
    instructions = [q % m for q in range(k)]
    vd, idd = app_details(tmp_path, program, values, instructions)
    flow = analysis.dataflow
    for v, html in zip(values, vd):
        got, t = fields(html), plan.values[v]
        want = {"dtype", "shape", "bytes", "device", "storage"}
        if t.memory_id is not None:
            want |= {"arena", "bytes at"}
        if flow.producers.get(v):
            want |= {"written by"}
        if flow.consumers.get(v):
            want |= {"read by"}
        assert want <= set(got), (v, want - set(got))
        assert str(t.device) in got["device"] and t.dtype in got["dtype"]
    for i, html in zip(instructions, idd):
        got, ins = fields(html), plan.instructions[i]
        want = {"kind"} | ({"args"} if ins.values else set()) | ({"delegate"} if ins.kind == "DelegateCall" else set())
        assert want <= set(got), (i, want - set(got))
        for a in ins.values:
            assert f"%{a} " in got["args"]
