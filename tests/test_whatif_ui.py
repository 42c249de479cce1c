"""What-if in the widget and the report, without a browser (the mouse: tests/test_whatif_browser.py).

* ``Explorer.moves``: ``move`` / ``undo`` / ``clear_moves``, pairs stored as strings, a bad or refused move raising
  from Python and leaving ``moves`` as they were, the same sent from the page (``set_state``) kept out with its
  reason in ``whatif_error``; the payload switching to the diff of original vs predicted and back.
* Every entry point writes the same what-if page: ``whatif -o``, ``show --move -o``, ``Explorer(moves=).save_html``.
* The selector the page offers for a selection (``shell/moves.js`` selectorOf, run in node on real payloads) names,
  by ``explorer.whatif.predict.select``, exactly what was selected — on real exports with delegates, copies,
  buffer write-backs and module groups; and a selection on the predicted side maps back through the origins.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

import explorer
from explorer import frontend
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges, is_copy
from explorer.whatif.predict import MoveError, Refusal, select
from explorer.cli import main
from explorer.views.payload.embed import pack, page_payload, unpack
from explorer.views.payload.app import app_payload
from explorer.views.payload.whatif import resolve_base, whatif_payload

FIX = Path(__file__).parent / "fixtures"
RESIDUAL = FIX / "whatif" / "residual_cpu_only.pte"
# @0=cuda:0: a region reads a weight; left a delegate argument (constants="arguments"), executorch's emitter fails
REFUSED = FIX / "zoo" / "tied_weights.pte"


def test_moves_trait_move_undo_clear_and_the_payload_it_draws():
    ex = explorer.Explorer(RESIDUAL)
    original = ex._payload
    assert ex.moves == [] and ex.predicted is None and "mode" not in unpack(original)
    ex.move("delegate:0", "cuda:0")
    ex.move("@1", explorer.Device.parse("cuda:0"))
    assert ex.moves == ["delegate:0=cuda:0", "@1=cuda:0"]
    data = unpack(ex._payload)
    assert data["mode"] == "diff" and data["whatif"]["moves"] == ex.moves
    assert data["whatif"]["file"] == str(RESIDUAL)
    assert ex.predicted.prediction.moves == (("delegate:0", "cuda:0"), ("@1", "cuda:0"))
    ex.move("delegate:0", "cuda:1")  # the same selector again: the earlier move goes
    assert ex.moves == ["@1=cuda:0", "delegate:0=cuda:1"]
    ex.undo(0)
    assert ex.moves == ["delegate:0=cuda:1"]
    ex.moves = [("delegate:*", "cuda:0")]  # pairs are stored as the CLI spells them
    assert ex.moves == ["delegate:*=cuda:0"]
    ex.undo()
    assert ex.moves == [] and ex.predicted is None and ex._payload == original
    with pytest.raises(IndexError):
        ex.undo()
    ex.move("op:aten::relu", "cuda:0")
    ex.clear_moves()
    assert ex.moves == [] and ex._payload == original


def test_a_bad_or_refused_move_from_python_raises_and_changes_nothing():
    ex = explorer.Explorer(REFUSED, constants="arguments")
    original = ex._payload
    with pytest.raises(Refusal):
        ex.move("@0", "cuda:0")
    assert ex.moves == [] and ex._payload == original
    with pytest.raises(MoveError, match="names nothing"):
        ex.moves = ["op:aten::nothing=cuda:0"]
    assert ex.moves == [] and "op:aten::nothing=cuda:0: selector" in ex.whatif_error
    with pytest.raises(MoveError, match="expected SELECTOR=DEVICE"):
        ex.moves = ["@1"]
    with pytest.raises(Exception, match="SELECTOR=DEVICE"):
        ex.moves = [3]
    ex.move("@1", "cuda:0")  # a good one clears the error
    assert ex.whatif_error == "" and ex.moves == ["@1=cuda:0"]


def test_a_refused_move_from_the_page_is_kept_out_with_executorchs_reason():
    """ipywidgets applies the page's changes with set_state: no exception reaches the kernel's log, the list goes
    back (and is sent back), the reason is in whatif_error for the page to show."""
    ex = explorer.Explorer(REFUSED, constants="arguments")
    ex.move("@1", "cuda:0")
    sent = []
    ex.comm.kernel = object()  # ipywidgets sends state only when its comm has a kernel
    ex.send_state = lambda key=None: sent.append((key, getattr(ex, key) if isinstance(key, str) else None))
    ex.set_state({"moves": ["@1=cuda:0", "@0=cuda:0"]})  # no exception: it came from the page
    assert ex.moves == ["@1=cuda:0"]
    assert ex.whatif_error.startswith("@0=cuda:0: executorch 1.5.1 would refuse to export this placement: a device "
                                      "delegate reads constant")
    assert ("moves", ["@1=cuda:0"]) in sent, "the page's list is put back"
    assert ("whatif_error", ex.whatif_error) in sent


def test_moves_need_a_program_with_plans():
    with pytest.raises(ValueError, match="nothing to move"):
        explorer.Explorer(FIX / "companions" / next(p.name for p in (FIX / "companions").glob("*.ptd")), moves=["@0=cpu"])


def test_every_entry_point_writes_the_same_whatif_page(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    moves = ["delegate:*=cuda:0"]
    assert main(["whatif", str(RESIDUAL), "--move", moves[0], "-o", "a.html"], stdout=io.StringIO()) == 0
    assert main(["show", str(RESIDUAL), "--move", moves[0], "-o", "b.html"], stdout=io.StringIO()) == 0
    explorer.Explorer(RESIDUAL, moves=moves).save_html(tmp_path / "c.html")
    pages = [page_payload((tmp_path / n).read_text(encoding="utf-8")) for n in ("a.html", "b.html", "c.html")]
    assert pages[0] == pages[1] == pages[2]
    assert pages[0]["mode"] == "diff" and pages[0]["whatif"]["moves"] == moves
    assert pages[0]["whatif"]["file"] == str(RESIDUAL)
    # a report without moves names its file for the page's CLI line
    assert main(["show", str(RESIDUAL), "-o", "d.html"], stdout=io.StringIO()) == 0
    plain = page_payload((tmp_path / "d.html").read_text(encoding="utf-8"))
    assert plain["whatif"]["file"] == str(RESIDUAL) and plain["whatif"]["moves"] == []


def test_show_move_exits_as_whatif_does(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["show", str(REFUSED), "--move", "@0=cuda:0", "--constants", "arguments", "-o", str(out)]) == 1
    assert "would refuse to export this placement" in capsys.readouterr().err and not out.exists()
    assert main(["show", str(RESIDUAL), "--move", "op:nothing=cuda:0", "-o", str(out)]) == 2
    assert "names nothing" in capsys.readouterr().err and not out.exists()
    overlay = tmp_path / "o.json"
    overlay.write_text(json.dumps({"@0": 1}))
    assert main(["show", str(RESIDUAL), "--move", "@0=cuda:0", "--overlay", str(overlay), "-o", str(out)]) == 2
    assert "cannot go with --move" in capsys.readouterr().err and not out.exists()


def test_whatif_block_carries_the_flags_as_cli_words_and_python_arguments():
    from explorer.views.payload.whatif import whatif_block

    program = explorer.load(FIX / "whatif" / "multi_out_cpu_only.pte")
    predicted = explorer.what_if(program, ["delegate:*=cuda:0"], skip_d2h_outputs=True, alloc_graph_output=False,
                                 method="forward")
    block = whatif_block(program, predicted)
    assert block["cli"] == ["--skip-d2h-outputs", "--no-alloc-graph-output", "--method", "forward"]
    assert block["py"] == ["skip_d2h_outputs=True", "alloc_graph_output=False", "method='forward'"]
    # the CLI words, run, give the same prediction
    args = ["whatif", str(FIX / "whatif" / "multi_out_cpu_only.pte"), "--move", "delegate:*=cuda:0", *block["cli"],
            "--json"]
    out = io.StringIO()
    assert main(args, stdout=out) == 0
    assert json.loads(out.getvalue())["prediction"]["text"] == predicted.prediction.text
    # and the Python arguments, evaluated, give the same prediction too
    kwargs = eval("dict(" + ", ".join(block["py"]) + ")")  # noqa: S307 - literals written by repr
    assert explorer.what_if(program, block["moves"], **kwargs).prediction == predicted.prediction


# -- the selector of a selection (shell/moves.js), checked against what_if's own selectors ------------------------------

OFFERS_JS = """
import fs from "node:fs";
import {selectorOf, predictedSelectorOf} from %s;
const data = JSON.parse(fs.readFileSync(process.argv[2], "utf-8"));
const out = [];
for (const P of data.plans) {
  if (P.sides) {  // a what-if diff: the predicted side (B), through the origins
    const LA = P.sides.a.lod, LB = P.sides.b.lod, O = data.whatif.origins[P.name];
    for (let i = 0; i < LB.m; i++) out.push({plan: P.name, side: "b", kind: "instr", index: i, ...predictedSelectorOf(LA, LB, O, "instr", i)});
    continue;
  }
  const L = P.lod;
  const X = P.context || null;
  for (let i = 0; i < L.m; i++) out.push({plan: P.name, kind: "instr", index: i, ...selectorOf(L, "instr", i, X)});
  for (const v of L.tensors.index) out.push({plan: P.name, kind: "value", index: v, ...selectorOf(L, "value", v, X)});
  for (let g = 0; g < L.groups.label.length; g++) out.push({plan: P.name, kind: "group", index: g, start: L.groups.start[g],
    stop: L.groups.stop[g], ...selectorOf(L, "group", g, X)});
}
process.stdout.write(JSON.stringify(out));
"""


def _offers(tmp_path: Path, payload: dict) -> list[dict]:
    from explorer.views.payload.embed import pack

    node = shutil.which("node")
    assert node, "node is needed for the app's tests"
    (tmp_path / "p.json").write_text(json.dumps(unpack(pack(payload))), encoding="utf-8")
    script = tmp_path / "offers.mjs"
    script.write_text(OFFERS_JS % json.dumps((Path(frontend.__file__).parent / "shell/moves.js").as_uri()), encoding="utf-8")
    done = subprocess.run([node, str(script), str(tmp_path / "p.json")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _movable(ins) -> bool:
    base = (ins.op or "").split(".", 1)[0]
    return ins.kind == "KernelCall" and not is_copy(ins) and not (base.endswith("_") and not base.endswith("__"))


PROGRAMS = [RESIDUAL, FIX / "device_mlp.pte", FIX / "mutable_state.pte", FIX / "xnnpack_mlp.pte",
            FIX / "two_methods.pte", FIX / "named" / "transformer3k.pte", FIX / "whatif" / "chain_cuda0.pte"]


ETRECORDS = {"net.pte": FIX / "etrecord" / "net.etrecord", "split_xnnpack.pte": FIX / "etrecord" / "split_xnnpack.etrecord"}
PROGRAMS += [FIX / "etrecord" / name for name in ETRECORDS]  # groups by the model's modules


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_the_selector_offered_for_a_selection_names_exactly_it(tmp_path, path):
    program = explorer.load(path, etrecord=ETRECORDS.get(path.name))
    offers = _offers(tmp_path, app_payload(program, findings=[]))
    kinds = {"instr": 0, "value": 0, "group": 0}
    writers = {}  # per plan: value -> the first instruction writing it (the analysis' own edges)
    for plan in program.plans:
        f = Facts(plan)
        e = edges(plan, f)
        first: dict[int, int] = {}
        for i, v, w in zip(e.instr.tolist(), e.value.tolist(), e.write.tolist()):
            if w and v not in first:
                first[v] = i
        writers[plan.name] = first
    for o in offers:
        plan = program.plan(o["plan"])
        if o["kind"] == "instr":
            ins = plan.instructions[o["index"]]
            movable = ins.kind == "DelegateCall" or _movable(ins)
            assert bool(o["selectors"]) == movable, (o, ins.op)
            if not movable:
                with pytest.raises(MoveError):  # what_if refuses to move it too
                    select(plan, f"@{o['index']}", program)
                continue
            (sel,) = o["selectors"]
            got = select(plan, sel, program)
            want = ((ins.delegate_index,), ()) if ins.kind == "DelegateCall" else ((), (ins.index,))
            assert (got.delegates, got.kernels) == want, (sel, got)
        elif o["kind"] == "value":
            writer = writers[o["plan"]].get(o["index"])
            assert bool(o["selectors"]) == (writer is not None and (
                plan.instructions[writer].kind == "DelegateCall" or _movable(plan.instructions[writer]))), o
            if o["selectors"]:
                ins = plan.instructions[writer]
                assert o["selectors"] == ([f"delegate:{ins.delegate_index}"] if ins.kind == "DelegateCall"
                                          else [f"@{writer}"]), (o, writer)
        else:
            if not o["selectors"]:
                continue
            (sel,) = o["selectors"]
            got = select(plan, sel, program)
            inside = [plan.instructions[k] for k in range(o["start"], o["stop"])]
            assert set(got.delegates) == {i.delegate_index for i in inside if i.kind == "DelegateCall"}, sel
            assert list(got.kernels) == [i.index for i in inside if _movable(i)], sel
        kinds[o["kind"]] += bool(o["selectors"])
    assert kinds["instr"] > 0 and kinds["value"] > 0
    if path.name == "transformer3k.pte":
        assert kinds["group"] >= 50, kinds


def test_a_selection_on_the_predicted_side_maps_back_to_the_original(tmp_path):
    """Each predicted instruction's offer names, in the original, the instructions it stands for (its origins)."""
    for path, moves in ((FIX / "whatif" / "chain_portable.pte", ["op:aten::add=cuda:0"]),
                        (FIX / "whatif" / "residual_portable.pte", ["@1=cuda:0", "@2=cuda:0", "@3=cuda:0"]),
                        (FIX / "whatif" / "residual_cpu_only.pte", ["delegate:*=cuda:0"])):
        program = explorer.load(path)
        predicted = explorer.what_if(program, moves)
        offers = _offers(tmp_path, whatif_payload(program, predicted))
        origins = predicted.prediction.origins["forward"]
        plan = program.plan("forward")
        assert len(offers) == len(predicted.plan("forward").instructions)
        regions = 0
        for o in offers:
            stands_for = [k for k in origins[o["index"]]]
            if not stands_for:
                assert not o["selectors"] and "copy" in o["why"]
                continue
            named = set()
            for sel in o["selectors"]:
                got = select(plan, sel, program)
                named |= set(got.kernels) | {i.index for i in plan.instructions
                                             if i.kind == "DelegateCall" and i.delegate_index in got.delegates}
            assert named == {k for k in stands_for if plan.instructions[k].kind == "DelegateCall"
                             or _movable(plan.instructions[k])}, (o, stands_for)
            regions += len(stands_for) > 1
        if len(moves) == 3:
            assert regions == 1, "the predicted region of three kernels offers the three"


@pytest.mark.interop
def test_module_groups_with_an_etrecord_offer_module_paths_only(tmp_path):
    """With an ETRecord, the overview groups by the model's modules and ``group:PATH`` reads module paths: a group
    labelled by a module path is offered and names exactly its instructions; the model's own ops (labelled by its
    class) and bundles of modules ("layers.0 … layers.31") are not offered. Exported here: 40 blocks (more than a
    group's 32 children: bundled), 200+ ops."""
    import torch
    from executorch.exir import to_edge

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin, self.norm = torch.nn.Linear(8, 8), torch.nn.LayerNorm(8)

        def forward(self, x):
            return torch.relu(self.norm(self.lin(x))) + x

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers, self.head = torch.nn.ModuleList([Block() for _ in range(40)]), torch.nn.Linear(8, 4)

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return torch.sigmoid(self.head(x))

    manager = to_edge(torch.export.export(Net().eval(), (torch.randn(2, 8),)), generate_etrecord=True).to_executorch()
    program = explorer.load(manager, etrecord=manager)
    plan = program.plan("forward")
    offered = refused = 0
    for o in _offers(tmp_path, app_payload(program, findings=[])):
        if o["kind"] != "group":
            continue
        if not o["selectors"]:
            refused += 1
            continue
        got = select(plan, o["selectors"][0], program)
        inside = [plan.instructions[k] for k in range(o["start"], o["stop"])]
        assert list(got.kernels) == [i.index for i in inside if _movable(i)], o
        offered += 1
    assert offered >= 40 and refused >= 5, (offered, refused)


def test_whatif_of_an_explorer_with_an_etrecord_keeps_the_originals_modules_on_a():
    ex = explorer.Explorer(FIX / "etrecord" / "net_xnnpack.pte", etrecord=FIX / "etrecord" / "net_xnnpack.etrecord")
    original = unpack(ex._payload)
    ex.move("delegate:*", "cuda:0")
    plan = resolve_base(unpack(ex._payload), original)["plans"][0]  # A's context: a reference to the original's
    assert plan["contexts"]["b"] is None, "the prediction has no ETRecord of its own"
    a = plan["contexts"]["a"]
    assert len(a["module"]) == len(ex.program.plan("forward").instructions)
    assert any(m >= 0 for m in a["module"]), "the original's instructions keep their modules"


def test_the_widgets_whatif_sends_the_changed_pairs_texts_on_request():
    """Issue 31: writing every changed pair's before -> after table (5,499 on the transformer) was half the diff
    payload; the widget's payload leaves them out and answers the page's request with the very text a report
    embeds."""
    ex = explorer.Explorer(RESIDUAL)
    ex.move("delegate:*", "cuda:0")
    plans = unpack(ex._payload)["plans"]
    eager = whatif_payload(ex.program, ex.predicted)["plans"]
    assert [p["vd"] for p in plans] == [p["vd"] for p in eager]
    assert any(p["texts"] for p in plans) and all(t is None for p in plans for t in p["texts"])
    sent = []
    ex.send = lambda content, buffers=None: sent.append(content)
    for p, e in zip(plans, eager):
        for k in range(len(p["texts"])):
            ex._on_message(ex, {"type": "pair_text", "plan": p["name"], "k": k}, [])
            assert sent.pop() == {"type": "pair_text", "plan": p["name"], "k": k, "html": e["texts"][k]}
        for bad in ({"plan": p["name"], "k": len(p["texts"])}, {"plan": "no such plan", "k": 0}, {"plan": p["name"], "k": "0"}):
            ex._on_message(ex, {"type": "pair_text", **bad}, [])
            assert not sent, bad


def test_the_flags_are_widget_traits_both_ways_and_the_pages_words_are_pythons():
    """Issue 31: the skip/alloc flags and constants= in the widget's what-if bar: traits the page's toggles set (and
    Python sets), predicted with the moves; a refused flag is kept out; the page writes them as flag_words does."""
    from explorer.views.payload.app import flag_words
    from explorer.views.payload.whatif import whatif_block

    ex = explorer.Explorer(FIX / "whatif" / "multi_out_cpu_only.pte")
    ex.move("delegate:*", "cuda:0")
    ex.skip_d2h_outputs = True
    ex.alloc_graph_output = False
    pred = ex.predicted.prediction
    assert (pred.skip_d2h_outputs, pred.alloc_graph_output, pred.moves) == (True, False, (("delegate:*", "cuda:0"),))
    block = unpack(ex._payload)["whatif"]
    assert block["flags"] == {"skip_h2d_inputs": None, "skip_d2h_outputs": True, "alloc_graph_input": None,
                              "alloc_graph_output": False, "constants": "owned"}
    assert ex.predicted.prediction == explorer.what_if(ex.program, ex.moves, skip_d2h_outputs=True,
                                                       alloc_graph_output=False).prediction
    # executorch refuses skip_h2d on an input with several users: from Python it raises, from the page it is kept out
    residual = explorer.Explorer(RESIDUAL, moves=["delegate:*=cuda:0"])
    before = residual._payload
    with pytest.raises(Refusal):
        residual.skip_h2d_inputs = True
    assert residual.skip_h2d_inputs is None and residual._payload == before
    residual.set_state({"skip_h2d_inputs": True})
    assert residual.skip_h2d_inputs is None and "skip_h2d_inputs=True: executorch 1.5.1 would refuse" in residual.whatif_error
    # a flag alone changes a plan (no move): predicted; back to None: the program as it is
    alone = explorer.Explorer(FIX / "whatif" / "multi_out_cuda0.pte")
    original = alone._payload
    alone.skip_d2h_outputs = True
    assert alone.predicted is not None and alone.predicted.prediction.moves == () and alone._payload != original
    alone.skip_d2h_outputs = None
    assert alone.predicted is None and alone._payload == original
    # the page's words for the toggles are flag_words' (moves.js flagWords; --method comes from the payload)
    program = explorer.load(FIX / "whatif" / "multi_out_cpu_only.pte")
    combos = [dict(skip_h2d_inputs=False, skip_d2h_outputs=True), dict(alloc_graph_input=False, alloc_graph_output=True),
              dict(constants="arguments", skip_d2h_outputs=False), {}]
    module = (Path(frontend.__file__).parent / "shell" / "moves.js").as_uri()
    for kwargs in combos:
        try:
            predicted = explorer.what_if(program, ["delegate:*=cuda:0"], method="forward", **kwargs)
        except Refusal:
            continue
        block = whatif_block(program, predicted)
        code = (f"import {{flagWords}} from {json.dumps(module)};"
                f"process.stdout.write(JSON.stringify(flagWords({json.dumps(block['flags'])})));")
        done = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        words = json.loads(done.stdout)
        cli, py = flag_words(predicted.prediction)
        assert (words["cli"] + block["method"]["cli"], words["py"] + block["method"]["py"]) == (cli, py), kwargs


def test_a_diff_of_two_programs_names_each_sides_file_for_move_to():
    """explorer.Diff and `diff --html` carry what each side's "Move to ▸" commands run on (shell/moves.js
    sidesMovesView); the what-if's own diff carries its original's instead."""
    b = FIX / "whatif" / "residual_cuda0.pte"
    sides = unpack(explorer.Diff(RESIDUAL, b)._payload)["whatifSides"]
    assert (sides["a"]["file"], sides["b"]["file"]) == (str(RESIDUAL), str(b))
    assert "whatifSides" not in whatif_payload(explorer.load(RESIDUAL), explorer.what_if(explorer.load(RESIDUAL), ["delegate:*=cuda:0"]))


# -- a move sends only what is new (issue 31: a move on a 3k-instruction program drawn in <= 1.5 s) --------------------

def _packed_paths(packed: bytes) -> list[list]:
    """Where the binary columns of a packed payload sit (its "$bin" table, read without unpacking them)."""
    import zlib

    raw = zlib.decompress(packed, wbits=31)
    n = int.from_bytes(raw[4:8], "little")
    return [row[0] for row in json.loads(raw[8:8 + n].decode("utf-8")).get("$bin", [])]


@pytest.mark.parametrize("pte, moves, etrecord", [
    ("named/transformer3k.pte", ["op:aten::add=cuda:0"], None),
    ("two_methods.pte", ["@0=cuda:0"], None),
    ("etrecord/net_xnnpack.pte", ["delegate:*=cuda:0"], "etrecord/net_xnnpack.etrecord"),
])
def test_a_widget_move_sends_the_predicted_side_and_refers_to_the_original(pte, moves, etrecord):
    """The original (A) was analysed and sent when the widget opened: a move's payload holds none of A's tables (no
    binary column under A's side, each table a reference into the app payload the page holds, listed in "$base"), the
    kernel reuses A's plan views (analysis and groups) instead of making them again, and the payload with its
    references resolved is exactly the one that sends A in full (what the page draws is unchanged)."""
    ex = explorer.Explorer(FIX / pte, etrecord=FIX / etrecord if etrecord else None)
    original = unpack(ex._payload)
    ex.moves = moves
    packed = ex._payload
    assert not [p for p in _packed_paths(packed) if p[2:4] == ["sides", "a"] or p[2:4] == ["contexts", "a"]], \
        "no column of A travels with a move"
    data = unpack(packed)
    order = ex.program.plan_names
    slots = []
    for j, plan in enumerate(data["plans"]):
        k = order.index(plan["name"])
        assert plan["sides"]["a"]["lod"] == {"$base": ["plans", k, "lod"]}
        assert plan["sides"]["a"]["devices"] == {"$base": ["plans", k, "devices"]}
        slots += [["plans", j, "sides", "a", "devices"], ["plans", j, "sides", "a", "lod"]]
        if etrecord:
            assert plan["contexts"]["a"] == {"$base": ["plans", k, "context"]}
            slots.append(["plans", j, "contexts", "a"])
        assert ex._whatif_views[plan["name"]].a is ex._views[plan["name"]], "A's view is the widget's own"
    assert data["$base"] == slots
    full = whatif_payload(ex.program, ex.predicted, plan=ex.plan, lazy=True)
    assert resolve_base(data, original) == unpack(pack(full))


def test_the_kernel_sends_the_original_payload_when_the_page_asks_for_it():
    """A page with no app payload decoded (a widget opened with moves, a view of it made later) asks for the one the
    references point into: the answer is the widget's original packed payload as one binary buffer."""
    ex = explorer.Explorer(RESIDUAL, moves=["delegate:*=cuda:0"])
    sent = []
    ex.send = lambda content, buffers=None: sent.append((content, buffers))
    ex._on_message(ex, {"type": "base"}, [])
    assert sent == [({"type": "base"}, [ex._original_payload])]
    assert "mode" not in unpack(ex._original_payload) and unpack(ex._payload)["$base"]


def test_the_pages_resolve_base_gives_what_python_resolves(tmp_path):
    """host/base.js resolveBase in node, over the packed payloads the widget sends (its app payload, then a move's):
    the same payload as explorer.views.payload.whatif.resolve_base gives, which is the payload with A in full."""
    node = shutil.which("node")
    assert node, "node is needed for the app's tests (CI installs it; see .ci/run)"
    ex = explorer.Explorer(FIX / "two_methods.pte")
    (tmp_path / "base.bin").write_bytes(ex._payload)
    original = unpack(ex._payload)
    ex.moves = ["@0=cuda:0"]
    (tmp_path / "move.bin").write_bytes(ex._payload)
    host = Path(frontend.__file__).parent / "host"
    script = tmp_path / "resolve.mjs"
    script.write_text(f"""import fs from "node:fs";
import {{decodePayload}} from {json.dumps((host / "model.js").as_uri())};
import {{resolveBase}} from {json.dumps((host / "base.js").as_uri())};
const read = (name) => decodePayload(new Uint8Array(fs.readFileSync(process.argv[2] + "/" + name)));
process.stdout.write(JSON.stringify(resolveBase(await read("move.bin"), await read("base.bin"))));""", encoding="utf-8")
    done = subprocess.run([node, str(script), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    expected = json.loads(json.dumps(resolve_base(unpack(ex._payload), original)))
    assert json.loads(done.stdout) == expected


def test_a_move_is_predicted_with_the_garbage_collector_paused(monkeypatch):
    """The collector ran ~270 times in a 3k-instruction move, twice over all the kernel holds: the widget predicts, packs
    and sends with it off, from Python (moves, move) and from the page alike, and leaves it as it found it (on, or off
    when the user turned it off); a refused move too."""
    import gc

    import explorer.widget.whatif as W

    seen = []

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return explorer.what_if(*args, **kwargs)

    monkeypatch.setattr(W, "what_if", spy)
    ex = explorer.Explorer(RESIDUAL)
    ex.moves = ["delegate:*=cuda:0"]
    ex.move("@1", "cuda:0")
    with pytest.raises(MoveError):
        ex.moves = ["no-such-selector=cuda:0"]
    assert len(seen) >= 2 and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        ex.moves = ["delegate:0=cuda:1"]
        assert not gc.isenabled(), "left off, as it was"
    finally:
        gc.enable()
