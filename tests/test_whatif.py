"""What-if placement (explorer.what_if, docs/whatif.md) on synthetic programs built with our writer.

The comparisons with real executorch exports are in test_whatif_interop.py (interop marker)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

import explorer
from explorer.analysis.diff.compare import diff
from explorer.whatif.predict import MoveError, Refusal, parse_moves, select, what_if
from explorer.whatif.greedy import Spec, plan_all, plan_device
from explorer.cli import main
from explorer.model.program import Device

from analysis_helpers import PlanBuilder, roundtrip


def _two_delegates(backend: str = "Demo", target: str | None = None):
    """x, y -> D(x, y) = a -> relu(a) = b -> D(b, x) = c; outputs c, a. All CPU (a cpu-only export's shape)."""
    b = PlanBuilder(arenas=[(512, "cpu")])
    x = b.tensor((2, 8), arena=1, offset=0)
    y = b.tensor((2, 8), arena=1, offset=64)
    a = b.tensor((2, 8), arena=1, offset=128)
    b.delegate(backend, x, y, a, target_device=target)
    r = b.tensor((2, 8), arena=1, offset=192)
    b.kernel("aten::relu.out", a, r, r)
    c = b.tensor((2, 8), arena=1, offset=256)
    b.delegate(backend, r, x, c, target_device=target)
    b.inputs(x, y)
    b.outputs(c, a)
    return roundtrip(b.program())


def _copies(plan):
    out = {"h2d": [], "d2h": []}
    for ins in plan.instructions:
        if ins.op and ins.op.startswith("et_copy::_h2d_copy"):
            out["h2d"].append(plan.values[ins.args[0]].nbytes)
        elif ins.op and ins.op.startswith("et_copy::_d2h_copy"):
            out["d2h"].append(plan.values[ins.args[0]].nbytes)
    return out


def _placement(plan):
    """Everything the issue compares: every tensor's device and arena, copies per direction, arenas."""
    return ([(v.index, str(v.device), v.memory_id, v.offset, v.sizes) for v in plan.tensors],
            [(i.label, i.args) for i in plan.instructions],
            [(b.memory_id, b.size, str(b.device)) for b in plan.buffers], plan.inputs, plan.outputs)


def test_delegates_to_cuda_insert_copies_per_consumer_and_plan_a_device_arena():
    p = _two_delegates()
    got = what_if(p, ["delegate:*=cuda:0"])
    plan = got.plans[0]
    copies = _copies(plan)
    # h2d per argument position: x, y before the first delegate; relu's output and x again before the second
    assert len(copies["h2d"]) == 4 and sum(copies["h2d"]) == 4 * 64
    # d2h after each delegate output: a (read by relu and returned) and c (returned)
    assert len(copies["d2h"]) == 2
    devices = {str(b.device) for b in plan.buffers}
    assert devices == {"cpu", "cuda:0"}
    assert [str(plan.values[o].device) for o in plan.outputs] == ["cpu", "cpu"]
    assert all(d.target_device == Device.parse("cuda:0") for d in plan.delegates)
    assert got.prediction is not None and got.prediction.moves == (("delegate:*", "cuda:0"),)
    assert p.prediction is None
    assert explorer.check(got) == [] or all(f.severity != "error" for f in explorer.check(got))


def test_same_device_round_trip_is_elided_and_cross_device_is_not():
    b = PlanBuilder(arenas=[(512, "cpu")])
    x = b.tensor((4,), arena=1, offset=0)
    a = b.tensor((4,), arena=1, offset=16)
    b.delegate("A", x, a)
    c = b.tensor((4,), arena=1, offset=32)
    b.delegate("B", a, c)
    b.inputs(x)
    b.outputs(c)
    p = roundtrip(b.program())
    same = what_if(p, {"delegate:A": "cuda:0", "delegate:B": "cuda:0"}).plans[0]
    # B reads A's device output directly: one h2d (x), and d2h only for c (a's d2h died with no reader)
    assert len(_copies(same)["h2d"]) == 1 and len(_copies(same)["d2h"]) == 1
    cross = what_if(p, {"delegate:A": "cuda:0", "delegate:B": "cuda:1"}).plans[0]
    assert len(_copies(cross)["h2d"]) == 2 and len(_copies(cross)["d2h"]) == 2
    assert [str(b.device) for b in cross.buffers] == ["cpu", "cuda:0", "cuda:1"]


def test_move_and_reverse_give_back_the_placement():
    p = _two_delegates()
    assert what_if(p, ["delegate:*=cpu"]).plans[0] is p.plans[0]  # already there: the program itself
    there = what_if(p, ["delegate:*=cuda:0"])
    back = what_if(there, ["delegate:*=cpu"])
    # the synthetic original was not planned by executorch's greedy planner, so offsets may differ; every
    # device, arena and instruction is back
    strip = lambda plan: ([(v.index, str(v.device), v.memory_id, v.sizes) for v in plan.tensors],  # noqa: E731
                          [(i.label, i.args) for i in plan.instructions], [str(b.device) for b in plan.buffers])
    assert strip(back.plans[0]) == strip(p.plans[0])
    again = what_if(back, ["delegate:*=cuda:0"])
    assert _placement(again.plans[0]) == _placement(there.plans[0])
    assert _placement(what_if(again, ["delegate:*=cpu"]).plans[0]) == _placement(back.plans[0])


def test_no_moves_and_same_device_give_an_empty_diff():
    there = what_if(_two_delegates(), ["delegate:*=cuda:0"])
    relu = next(i.index for i in there.plans[0].instructions if i.op == "aten::relu.out")
    for moves in ([], ["delegate:*=cuda:0"], [f"@{relu}=cpu"], ["op:aten::relu=cpu"]):
        d = diff(there, what_if(there, moves)).plans[0]
        assert d.values == () and all(c.status == "same" for c in d.copies) and d.copies, moves
        assert all(a.status == "same" for a in d.arenas), moves


def test_skip_flags_retag_the_input_and_keep_outputs_on_the_device():
    b = PlanBuilder(arenas=[(512, "cpu")])
    x = b.tensor((4,), arena=1, offset=0)
    a = b.tensor((4,), arena=1, offset=16)
    b.delegate("A", x, a)
    b.inputs(x)
    b.outputs(a)
    p = roundtrip(b.program())
    got = what_if(p, ["delegate:*=cuda:0"], skip_h2d_inputs=True, skip_d2h_outputs=True).plans[0]
    assert _copies(got) == {"h2d": [], "d2h": []}
    assert str(got.values[got.inputs[0]].device) == "cuda:0" and str(got.values[got.outputs[0]].device) == "cuda:0"
    # an input with two users cannot be retagged: executorch raises, we predict the refusal
    with pytest.raises(Refusal, match="exactly one user"):
        what_if(_two_delegates(), ["delegate:*=cuda:0"], skip_h2d_inputs=True)


def test_output_spec_quirk_keeps_the_device_tensor_alive_to_the_end():
    b = PlanBuilder(arenas=[(512, "cpu")])
    x = b.tensor((16,), arena=1, offset=0)
    a = b.tensor((16,), arena=1, offset=64)
    b.delegate("A", x, a)
    r = b.tensor((16,), arena=1, offset=128)
    b.kernel("aten::relu.out", a, r, r)
    c = b.tensor((16,), arena=1, offset=192)
    b.delegate("B", r, c)
    b.inputs(x)
    b.outputs(a, c)
    got = what_if(roundtrip(b.program()), {"delegate:B": "cuda:0", "delegate:A": "cuda:0"}).plans[0]
    cuda = next(bf for bf in got.buffers if str(bf.device) == "cuda:0")
    # device tensors: x's h2d copy, a, r's h2d copy, c. The two copies never overlap and share 64 B. a is
    # returned through its d2h copy but the output node's stale spec keeps a itself alive to the end, so
    # it cannot share with r's copy: 3 x 64 B (without the quirk a and r's copy would share: 128 B)
    assert cuda.size == 3 * 64


def test_kernel_moves_become_one_region_per_connected_group():
    b = PlanBuilder(arenas=[(1024, "cpu")])
    x = b.tensor((8,), arena=1, offset=0)
    s = b.tensor((8,), arena=1, offset=32)
    b.kernel("aten::sin.out", x, s, s)
    t = b.tensor((8,), arena=1, offset=64)
    b.kernel("aten::cos.out", s, t, t)
    u = b.tensor((8,), arena=1, offset=96)
    b.kernel("aten::relu.out", t, u, u)
    v = b.tensor((8,), arena=1, offset=128)
    b.kernel("aten::sin.out", u, v, v)
    b.inputs(x)
    b.outputs(v)
    p = roundtrip(b.program())
    got = what_if(p, ["op:aten::sin=cuda:0", "op:aten::cos.out=cuda:0"])
    plan = got.plans[0]
    labels = [i.label for i in plan.instructions]
    # sin+cos connected: one region; the last sin is separated by relu: another region
    assert labels.count("PredictedDelegate") == 2 and "aten::relu.out" in labels
    assert len(plan.delegates) == 2 and all(str(d.target_device) == "cuda:0" for d in plan.delegates)
    assert got.prediction.origins["forward"][labels.index("PredictedDelegate")] == (0, 1)
    assert not [f for f in explorer.check(got) if f.code == "bad-reference"]


def test_unconnected_moved_kernels_are_fused_when_no_cycle_results():
    """CapabilityBasedPartitioner's horizontal fusion: two adds with no path between them become one region
    with two outputs; an add that depends on one of them through a CPU kernel stays apart."""
    b = PlanBuilder(arenas=[(1024, "cpu")])
    x = b.tensor((8,), arena=1, offset=0)
    y = b.tensor((8,), arena=1, offset=32)
    a = b.tensor((8,), arena=1, offset=64)
    b.kernel("aten::add.out", x, y, a, a)
    r = b.tensor((8,), arena=1, offset=96)
    b.kernel("aten::relu.out", x, r, r)
    c = b.tensor((8,), arena=1, offset=128)
    b.kernel("aten::add.out", r, y, c, c)
    s = b.tensor((8,), arena=1, offset=160)
    b.kernel("aten::sin.out", a, s, s)
    d = b.tensor((8,), arena=1, offset=192)
    b.kernel("aten::add.out", s, x, d, d)
    m = b.tensor((8,), arena=1, offset=224)
    b.kernel("aten::mul.out", a, c, m, m)
    b.inputs(x, y)
    b.outputs(m, d)
    got = what_if(roundtrip(b.program()), ["op:aten::add=cuda:0"])
    plan = got.plans[0]
    regions = [o for o in got.prediction.origins["forward"] if len(o) > 1 or
               (o and plan.instructions[got.prediction.origins["forward"].index(o)].kind == "DelegateCall")]
    assert sorted(regions) == [(0,), (2, 4)]


def test_selectors():
    p = _two_delegates(backend="Demo")
    plan = p.plans[0]
    assert select(plan, "delegate:*").delegates == (0,)
    assert select(plan, "delegate:demo").delegates == (0,)
    assert select(plan, "delegate:0").delegates == (0,) and not select(plan, "delegate:5")
    assert select(plan, "op:aten::relu").kernels == (1,)
    assert select(plan, "op:aten::relu.out").kernels == (1,) and not select(plan, "op:aten::relu.default")
    assert select(plan, "op:relu").kernels == (1,) and select(plan, "op:relu.out").kernels == (1,)
    assert not select(plan, "op:elu") and not select(plan, "op:other::relu")
    assert select(plan, "@1").kernels == (1,) and select(plan, "@2").delegates == (0,)
    for bad, words in (("@99", "has 3 instructions"), ("bogus", "expected delegate"),
                       ("kind:x", "unknown kind"), ("@x", "instruction index")):
        with pytest.raises(MoveError, match=words) as info:
            select(plan, bad)
        assert repr(bad) in str(info.value)


def test_moves_that_cannot_be_honoured_name_their_selector():
    there = what_if(_two_delegates(), ["delegate:*=cuda:0"])
    copy_at = next(i.index for i in there.plans[0].instructions if i.op and "h2d" in i.op)
    for moves, words in (([f"@{copy_at}=cpu"], "is a device copy"), (["op:aten::nope=cuda:0"], "names nothing"),
                         (["delegate:*=tpu:0"], "not a device"), (["delegate:*=unknown(9):0"], "does not know"),
                         (["delegate:*"], "SELECTOR=DEVICE")):
        with pytest.raises(MoveError, match=words):
            what_if(there, moves)
    assert parse_moves({"op:aten::add": "cuda:1"}) == (("op:aten::add", Device(1, 1)),)
    assert parse_moves([("delegate:*", Device(1, 0))]) == (("delegate:*", Device(1, 0)),)


def test_greedy_matches_executorchs_rules_on_a_small_case():
    # sizes round up to 16; largest first; equal sizes in reverse collection order; a spec goes to the first
    # object whose allocations it doesn't overlap, else above the highest overlapping one if it fits
    specs = [Spec(0, 64, 0, 2), Spec(1, 60, 1, 3), Spec(2, 32, 3, 5), Spec(3, 20, 4, 4)]
    assert plan_device(specs) == 128
    assert [(s.key, s.offset) for s in specs] == [(0, 64), (1, 0), (2, 64), (3, 0)]
    sizes, devices = plan_all([Spec(0, 16, 0, 1, (1, 0)), Spec(1, 16, 0, 1, (0, 0))])
    assert sizes == [0, 16, 16] and devices == [(0, 0), (0, 0), (1, 0)]
    assert plan_all([]) == ([0, 0], [(0, 0), (0, 0)])


def test_cli_whatif_text_json_and_exit_codes(tmp_path, capsys):
    from writers.pte import write

    path = tmp_path / "p.pte"
    path.write_bytes(write(_two_delegates()))
    out = io.StringIO()
    assert main(["whatif", str(path), "--move", "delegate:*=cuda:0"], stdout=out) == 0
    text = out.getvalue()
    assert "predicted by what-if (not an export): delegate:*=cuda:0" in text
    assert "copies +6 -0" in text and "cuda:0" in text
    out = io.StringIO()
    assert main(["whatif", str(path), "--move", "delegate:*=cuda:0", "--json"], stdout=out) == 0
    doc = json.loads(out.getvalue())
    assert doc["moves"] == [{"selector": "delegate:*", "device": "cuda:0"}]
    assert doc["prediction"]["moves"] == doc["moves"]
    assert doc["diff"]["format"] == "device-explorer-diff/1"
    assert {b["device"] for b in doc["plans"][0]["buffers"]} == {"cpu", "cuda:0"}
    assert main(["whatif", str(path), "--move", "delegate:*=cuda:0", "--skip-h2d-inputs"], stdout=io.StringIO()) == 1
    assert "would refuse" in capsys.readouterr().err
    assert main(["whatif", str(path), "--move", "op:nothing=cuda:0"], stdout=io.StringIO()) == 2
    assert "'op:nothing'" in capsys.readouterr().err


def test_inspect_says_a_program_is_predicted():
    from explorer.cli.inspect import summary_lines
    from explorer.jsonform.program import program_json

    got = what_if(_two_delegates(), ["delegate:0=cuda:1"])
    assert any("predicted by what-if" in line for line in summary_lines(got, "p.pte"))
    assert program_json(got)["prediction"]["moves"] == [{"selector": "delegate:0", "device": "cuda:1"}]
    assert "prediction" not in program_json(_two_delegates())


def test_time_estimate_divides_moved_time_and_charges_copies_by_the_cost_model():
    import numpy as np

    from explorer.analysis.profile.join import join_profile
    from explorer.whatif.costs import H200
    from explorer.whatif.review import estimate
    from explorer.format.companions.etdump import load_etdump

    from analysis_helpers import FIXTURES

    program = explorer.load(FIXTURES / "mlp.pte")
    profile = join_profile(program, load_etdump(FIXTURES / "etdump" / "mlp.etdp"))
    predicted = what_if(program, ["op:aten::addmm=cuda:0"])
    (est,) = estimate(program, predicted, profile, speedup="cuda:0=8")
    prof = profile.plans["forward"]
    times = np.nan_to_num(np.nanmedian(prof.times, axis=0)) * prof.tick_ns * 1e-9
    moved = [i.index for i in program.plans[0].instructions if i.op == "aten::addmm.out"]
    regions = sum(1 for i in predicted.plans[0].instructions if i.kind == "DelegateCall")
    assert regions >= 1
    # every moved kernel pays the built-in launch cost once (each region is made of moved kernels only)
    assert est.after["cuda:0"] == pytest.approx(sum(times[moved]) / 8 + len(moved) * H200.launch_s("cuda:0"))
    assert est.before["cpu"] == pytest.approx(sum(times))
    plan = predicted.plans[0]
    want = sum(H200.copy_s("h2d" if "h2d" in i.op else "d2h", plan.values[i.args[0]].nbytes, "cuda:0")
               for i in plan.instructions if i.op and "et_copy" in i.op)
    assert est.after["copies"] == pytest.approx(want) == pytest.approx(est.copy_s)
    assert "ESTIMATE" in est.lines()[0] and any("cost model" in a for a in est.assumptions)
    assert any("your assumption" in a for a in est.assumptions)


def test_many_regions_legalized_once_equal_one_legalize_per_region(monkeypatch):
    """Above SEQUENTIAL_LIMIT regions the graph is re-ordered once instead of once per region (executorch's
    way); both must give the same program."""
    import explorer.whatif.regions as regions
    from writers.synth import synthetic_program

    program = synthetic_program(600)
    moves = ["op:aten::linear=cuda:0", "op:aten::add=cuda:1"]
    monkeypatch.setattr(regions, "SEQUENTIAL_LIMIT", 10 ** 9)
    each = what_if(program, moves)
    monkeypatch.setattr(regions, "SEQUENTIAL_LIMIT", 0)
    once = what_if(program, moves)
    assert len(each.plans[0].delegates) > 60
    assert _placement(each.plans[0]) == _placement(once.plans[0])


# Re-deriving a plan from itself must give the file back. Known difference (docs/whatif.md): the plan made
# with the naive planner (we emulate greedy). Control-flow plans are refused.
ZOO_KNOWN = {"planner_naive.pte"}


def test_every_real_plan_re_derived_unchanged_gives_the_file_back():
    from explorer.whatif.predict import _predict_plan

    from analysis_helpers import FIXTURES

    files = sorted((FIXTURES / "zoo").glob("*.pte")) + sorted(FIXTURES.glob("*.pte")) + \
        sorted((FIXTURES / "diff").glob("*.pte"))
    exact, refused = 0, 0
    for path in files:
        program = explorer.load(path)
        for plan in program.plans:
            try:
                got, origins = _predict_plan(plan, [], None, None, rederive=True)
            except MoveError as exc:
                assert "control flow" in str(exc), path.name
                refused += 1
                continue
            same = _placement(got) == _placement(plan) and \
                [(v.type, getattr(v, "value", None)) for v in got.values if v.type != "Tensor"] == \
                [(v.type, getattr(v, "value", None)) for v in plan.values if v.type != "Tensor"]
            assert same or path.name in ZOO_KNOWN, f"{path.name} {plan.name}"
            if same:
                exact += 1
                from explorer.analysis.graph import is_copy
                assert list(origins) == [() if is_copy(i) else (i.index,) for i in plan.instructions] \
                    or not plan.instructions
    assert exact >= 61 and refused == 2


def test_group_selector_takes_a_module_and_everything_below_it():
    from analysis_helpers import FIXTURES

    base = FIXTURES / "etrecord"
    program = explorer.load(base / "net.pte", etrecord=base / "net.etrecord")
    plan = program.plans[0]
    assert select(plan, "group:layers.1", program).kernels == (3, 4, 5)
    assert select(plan, "group:layers.1.act", program).kernels == (5,)
    assert not select(plan, "group:layers.9", program)
    got = what_if(program, ["group:layers.1=cuda:0"])
    assert got.prediction.origins["forward"].count((3, 4, 5)) == 1
    with pytest.raises(MoveError, match="'group:nowhere'"):
        what_if(program, ["group:nowhere=cuda:0"])


def test_cli_profile_estimate_and_report(tmp_path):
    from analysis_helpers import FIXTURES

    out = io.StringIO()
    status = main(["whatif", str(FIXTURES / "mlp.pte"), "--move", "op:aten::addmm=cuda:0", "--profile",
                   str(FIXTURES / "etdump" / "mlp.etdp"), "--speedup", "cuda:0=8"], stdout=out)
    text = out.getvalue()
    assert status == 0 and "time ESTIMATE for plan 'forward'" in text
    assert "H200 (built-in)" in text and "cuda:0=8" in text and "your assumption" in text
    out = io.StringIO()
    assert main(["whatif", str(FIXTURES / "mlp.pte"), "--move", "op:aten::addmm=cuda:0", "--json", "--profile",
                 str(FIXTURES / "etdump" / "mlp.etdp")], stdout=out) == 0
    est = json.loads(out.getvalue())["estimate"][0]
    assert est["estimate"] is True and est["speedups"] == {} and est["assumptions"]
    assert est["cost_model"] == "H200 (built-in)" and est["copy_s"]["total"] > 0
    report = tmp_path / "r.html"
    assert main(["whatif", str(FIXTURES / "mlp.pte"), "--move", "op:aten::addmm=cuda:0", "-o", str(report)],
                stdout=io.StringIO()) == 0
    assert report.stat().st_size > 10_000
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["whatif", str(FIXTURES / "mlp.pte"), "--move", "op:aten::addmm=cuda:0", "--profile",
                     str(FIXTURES / "etdump" / "mlp.etdp"), "--speedup", "cuda:0=fast"], stdout=io.StringIO()) == 2
    assert "expected a number" in err.getvalue()


def test_damaged_plans_get_a_clear_error_never_a_traceback():
    import random
    from dataclasses import replace

    p = _two_delegates()
    plan = p.plans[0]
    ins = list(plan.instructions)
    dangling = replace(p, plans=(replace(plan, instructions=(replace(ins[0], args=(0, 1, 99)),) + tuple(ins[1:])),))
    with pytest.raises(MoveError, match="names value 99, which does not exist"):
        what_if(dangling, ["delegate:*=cuda:0"])
    no_op = replace(p, plans=(replace(plan, instructions=(ins[0], replace(ins[1], op_index=7), ins[2])),))
    with pytest.raises(MoveError, match="calls operator 7"):
        what_if(no_op, ["delegate:*=cuda:0"])
    rng = random.Random(3)
    for _ in range(200):  # well-formed references, nonsense dataflow: a MoveError or a prediction
        shuffled = [replace(i, args=tuple(rng.sample(i.args, len(i.args)))) for i in ins]
        q = replace(p, plans=(replace(plan, instructions=tuple(shuffled)),))
        try:
            what_if(q, ["delegate:*=cuda:0"])
        except (MoveError, Refusal):
            pass


def test_moving_a_kernel_that_reads_a_mutable_buffer_written_back_later():
    """partition_add.pte: sub reads buffer `steps`, which copy_ writes back at the end; the write-back is no
    producer of what sub reads (the placeholder is), so no cycle."""
    from analysis_helpers import FIXTURES

    program = explorer.load(FIXTURES / "diff" / "partition_add.pte")
    sub = next(i.index for i in program.plans[0].instructions if i.op == "aten::sub.out")
    got = what_if(program, [f"@{sub}=cuda:0"])
    labels = [i.label for i in got.plans[0].instructions]
    assert labels.count("PredictedDelegate") == 1 and "aten::sub.out" not in labels


def test_mixed_devices_in_one_method_round_trip_through_the_cpu():
    """device_two_gpus.pte (an export with delegates on cuda:0, cuda:1, cuda:0): all to the CPU and each back
    to its own device gives executorch's export again, value for value."""
    from analysis_helpers import FIXTURES

    original = explorer.load(FIXTURES / "zoo" / "device_two_gpus.pte")
    cpu = what_if(original, ["delegate:*=cpu"])
    assert not [i for i in cpu.plans[0].instructions if i.op and i.op.startswith("et_copy")]
    back = what_if(cpu, ["delegate:0=cuda:0", "delegate:1=cuda:1", "delegate:2=cuda:0"])
    assert _placement(back.plans[0]) == _placement(original.plans[0])
    assert [d.compile_specs for d in back.plans[0].delegates] == [d.compile_specs for d in original.plans[0].delegates]
    swapped = what_if(original, {"delegate:0": "cuda:1", "delegate:1": "cuda:0", "delegate:2": "cuda:1"})
    assert [str(b.device) for b in swapped.plans[0].buffers] == ["cpu", "cuda:0", "cuda:1"]


def test_groups_of_a_transformer_move_with_their_static_views():
    from analysis_helpers import FIXTURES

    program = explorer.load(FIXTURES / "named" / "transformer3k.pte")
    got = what_if(program, ["group:layers.1.attention=cuda:0"])
    assert any(d.id == "PredictedDelegate" for d in got.plans[0].delegates) and not explorer.check(got)
    # a group with no such kernel moves; its buffer write-backs stay (they come after partitioning), and a
    # static view it reads stays a value of its own, copied to the device
    got = what_if(program, ["group:output=cuda:0"])
    plan = got.plans[0]
    assert sum(d.id == "PredictedDelegate" for d in plan.delegates) == 1
    assert sum(i.op == "aten::copy_" for i in plan.instructions) == \
        sum(i.op == "aten::copy_" for i in program.plans[0].instructions)
    assert not explorer.check(got)
    with pytest.raises(MoveError, match="writes a mutable buffer in place"):
        what_if(program, ["op:aten::copy_=cuda:0"])


def _greedy_reference(specs, alignment=16):
    """exir/memory_planning.py's greedy + pick_shared_obj + _compute_total_sizes, written as plainly as it reads
    there (lists scanned in full): what plan_device's interval bookkeeping must reproduce decision for decision."""
    import bisect

    def size_of(s):
        return (s.nbytes + alignment - 1) // alignment * alignment

    ordered, keys = [], []
    for s in specs:
        k = bisect.bisect_right(keys, size_of(s))
        keys.insert(k, size_of(s))
        ordered.insert(k, s)
    ordered.reverse()
    objects = []  # [size, [(offset, spec)]]
    for s in ordered:
        size = size_of(s)
        over = [[(o, t) for o, t in allocs if not (t.last < s.first or s.last < t.first)] for _, allocs in objects]
        k = next((i for i, o in enumerate(over) if not o), None)
        if k is not None:
            objects[k][1].append((0, s))
            continue
        for i, (osize, allocs) in enumerate(objects):
            top = max((o + size_of(t) for o, t in over[i]), default=0)
            if top > 0 and top + size <= osize:
                allocs.append((top, s))
                break
        else:
            objects.append([size, [(0, s)]])
    offsets, total = {}, 0
    for osize, allocs in objects:
        for o, t in allocs:
            offsets[t.key] = total + o
        total += osize
    return total, offsets


def test_greedy_equals_the_plain_reference_on_random_lifetimes():
    import random

    rng = random.Random(31)
    for trial in range(300):
        n = rng.randint(1, 60)
        specs = []
        for key in range(n):
            first = rng.randint(0, 80)
            specs.append(Spec(key, rng.choice([16, 32, 48, 64, 100, 256, 1000]), first, first + rng.randint(0, 30)))
        want_total, want = _greedy_reference(specs)
        assert plan_device(specs) == want_total, trial
        assert {s.key: s.offset for s in specs} == want, trial


def test_emit_renews_records_as_dataclasses_replace_does():
    """emit's _renewed copies a value's or an instruction's fields instead of calling dataclasses.replace (a fifth of a
    3k-instruction what-if): the same record for each kind it takes, and those kinds stay plain records (fields only:
    no __post_init__, no cached property) so a copy of their fields is the record."""
    import dataclasses
    from functools import cached_property

    from pathlib import Path

    from explorer.whatif.emit import _PLAIN, _renewed

    program = explorer.load(Path(__file__).parent / "fixtures" / "named" / "transformer3k.pte")
    plan = program.plan("forward")
    seen = set()
    values = list(plan.values)
    some = values[:400] + [next(v for v in values if type(v).__name__ == "Value")]  # tensors and a scalar
    for record, changes in [(v, {"index": 7}) for v in some] + \
            [(i, {"index": 3, "chain": 0, "args": (1, 2)}) for i in list(plan.instructions)[:50]]:
        seen.add(type(record))
        assert _renewed(record, **changes) == dataclasses.replace(record, **changes)
        assert type(_renewed(record, **changes)) is type(record)
    assert seen == set(_PLAIN)
    for cls in _PLAIN:
        assert not hasattr(cls, "__post_init__")
        assert not any(isinstance(v, cached_property) for v in vars(cls).values())
