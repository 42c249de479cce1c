"""Placement diff (explorer.diff / explorer.analysis.diff.compare / `device-explorer diff`): the real pairs in
tests/fixtures/diff/ (made by scripts/make_diff_fixtures.py) pin what moved, copies, arenas and runtime
needs; crafted programs pin each matching rule, statuses, findings new/fixed and the JSON form."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from analysis_helpers import PlanBuilder

import explorer
from explorer.jsonform.text import json_text
from explorer.describe.diff import diff_lines
from explorer.analysis.diff.compare import FORMAT, STATUSES, diff
from explorer.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
PAIRS = FIXTURES / "diff"


def _diff(a: str, b: str):
    return diff(PAIRS / a, PAIRS / b).plan("forward")


def _run(*argv) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue()


def _moved(p):
    return [(v.a.index, v.b.index, str(v.a.device), str(v.b.device)) for v in p.values
            if v.kind == "value" and v.status == "device"]


def _copies(p, status):
    return [(c.direction, c.of_a, c.of_b) for c in p.copies if c.status == status]


# -- real pairs: same model, without / with device partitioning ----------------------------------------

def test_cpu_only_to_cuda0_moves_the_four_adds_and_adds_eleven_copies():
    p = _diff("cpu_only.pte", "device_cuda0.pte")
    m = p.matching
    assert (m["input"], m["constant"], m["output"], m["dataflow"], m["op-occurrence"], m["copy"]) == (2, 3, 2, 7, 0, 0)
    assert (m["ambiguous"], m["unmatched_a"], m["unmatched_b"]) == (0, 0, 11)
    # The adds (aten::add.out on the CPU) are now delegate calls writing cuda:0 tensors.
    assert _moved(p) == [(5, 11, "cpu", "cuda:0"), (15, 18, "cpu", "cuda:0"), (18, 23, "cpu", "cuda:0"),
                         (21, 28, "cpu", "cuda:0")]
    first = next(v for v in p.values if v.status == "device")
    assert (first.a.producer, first.b.producer, first.rule) == ("aten::add.out", "BackendWithCompilerDemo", "dataflow")
    assert [v.b.role for v in p.values if v.status == "device"] == [None, "output 1", None, "output 0"]
    # Every B-only tensor is a copy: 7 h2d (inputs x, y, ...) and 4 d2h.
    assert p.counts["values"]["added"] == 0 and p.counts["copies"]["added"] == 11
    added = _copies(p, "added")
    assert sorted(d for d, _, _ in added) == ["d2h"] * 4 + ["h2d"] * 7
    assert ("h2d", 3, 3) in added and added.count(("h2d", 3, 3)) == 2  # input x copied to the device twice
    assert _copies(p, "removed") == []
    assert [(t.src_device.__str__(), t.dst_device.__str__(), t.count_a, t.count_b, t.bytes_b) for t in p.transfers] == \
        [("cpu", "cuda:0", 0, 7, 224), ("cuda:0", "cpu", 0, 4, 128)]
    assert [(a.status, a.a and a.a.size, a.b and (a.b.memory_id, str(a.b.device), a.b.size)) for a in p.arenas] == \
        [("resized", 192, (1, "cpu", 160)), ("added", None, (2, "cuda:0", 128))]
    assert p.findings == ()
    req = p.to_json()["requirements"]
    assert (req["devices_added"], req["devices_removed"]) == (["cuda:0"], [])
    assert p.requirements_a.allocators == () and p.requirements_b.allocators[0].indices == (0,)
    # For views: every tensor has a status on both sides; copy and delegate instructions are marked.
    assert set(p.status_a) == {v for v, t in enumerate(explorer.load(PAIRS / "cpu_only.pte").plans[0].values)
                               if t.type == "Tensor"}
    assert p.status_b[9] == "added" and p.status_b[11] == "device" and p.status_a[5] == "device"
    assert p.instruction_status_b[1] == "added"  # et_copy::_h2d_copy.out
    assert p.instruction_status_b[3] == "changed"  # the delegate call that replaced aten::add.out
    assert p.instruction_status_a[0] == "changed" and 1 not in p.instruction_status_a  # permute: same


def test_the_reverse_diff_removes_what_the_forward_one_added():
    p = _diff("device_cuda0.pte", "cpu_only.pte")
    assert _moved(p) == [(11, 5, "cuda:0", "cpu"), (18, 15, "cuda:0", "cpu"), (23, 18, "cuda:0", "cpu"),
                         (28, 21, "cuda:0", "cpu")]
    assert len(_copies(p, "removed")) == 11 and _copies(p, "added") == []
    assert [a.status for a in p.arenas] == ["resized", "removed"]
    assert p.to_json()["requirements"]["devices_removed"] == ["cuda:0"]


def test_cuda0_to_cuda1_retargets_everything_on_the_device():
    p = _diff("device_cuda0.pte", "device_cuda1.pte")
    assert p.matching["unmatched_a"] == p.matching["unmatched_b"] == 0 and p.matching["copy"] == 11
    assert p.pairs == {v: v for v in p.pairs}  # identical structure: identical numbering
    assert [(a, b, s, d) for a, b, s, d in _moved(p)] == [(11, 11, "cuda:0", "cuda:1"), (18, 18, "cuda:0", "cuda:1"),
                                                         (23, 23, "cuda:0", "cuda:1"), (28, 28, "cuda:0", "cuda:1")]
    assert [c.status for c in p.copies] == ["device"] * 11  # h2d and d2h alike now talk to cuda:1
    assert p.counts["copies"]["device"] == 7  # destinations on cuda:1 (the 4 d2h land on the cpu in both)
    assert [(a.status, str(a.a.device), str(a.b.device)) for a in p.arenas] == \
        [("same", "cpu", "cpu"), ("moved", "cuda:0", "cuda:1")]
    assert [(a.device_type, a.indices) for a in p.requirements_b.allocators] == [(1, (1,))]
    text = "\n".join(diff_lines(diff(PAIRS / "device_cuda0.pte", PAIRS / "device_cuda1.pte")))
    assert "~ register: DeviceAllocator for cuda (device type 1) still needed, now called with index 1 (was 0)" in text
    assert "- cuda:0: no longer needed" in text and "+ cuda:1: DeviceAllocator for device type 1 (cuda) index 1" in text


def test_partitioner_change_add_to_add_and_sin():
    p = _diff("partition_add.pte", "partition_add_sin.pte")
    m = p.matching
    assert (m["name"], m["input"], m["output"], m["unmatched_a"], m["unmatched_b"]) == (1, 2, 2, 3, 2)
    # Both sins now run in the delegates, on cuda:0; the first is plan output 1.
    assert _moved(p) == [(17, 16, "cpu", "cuda:0"), (24, 22, "cpu", "cuda:0")]
    sins = [v for v in p.values if v.status == "device"]
    assert [(v.a.producer, v.b.producer) for v in sins] == [("aten::sin.out", "BackendWithCompilerDemo")] * 2
    # c = h + a was a delegate output on cuda:0; fused with its sin it is no value any more.
    removed = [v for v in p.values if v.status == "removed"]
    assert [(v.kind, v.a.index, str(v.a.device), v.a.producer) for v in removed if v.kind == "value"] == \
        [("value", 22, "cuda:0", "BackendWithCompilerDemo")]
    # The d2h copies of a and c are replaced by d2h copies of sin(a) and sin(c): same count and bytes.
    assert _copies(p, "removed") == [("d2h", 15, 15), ("d2h", 22, None)]
    assert _copies(p, "added") == [("d2h", 17, 16), ("d2h", 24, 22)]
    assert [(t.count_a, t.count_b) for t in p.transfers] == [(3, 3), (2, 2)]
    assert [(a.status, a.a.size, a.b.size) for a in p.arenas] == [("same", 160, 160), ("resized", 96, 128)]
    steps = next(v for v in explorer.load(PAIRS / "partition_add.pte").plans[0].values
                 if getattr(v, "name", None) == "steps")
    assert p.pairs[steps.index] == steps.index and p.status_a[steps.index] == "same"


def test_a_program_against_itself_changes_nothing():
    p = diff(FIXTURES / "device_mlp.pte", FIXTURES / "device_mlp.pte").plan("forward")
    assert p.values == () and p.findings == ()
    assert all(c.status == "same" for c in p.copies) and all(a.status == "same" for a in p.arenas)
    assert p.counts["values"]["same"] == 14 and p.counts["copies"]["same"] == 11
    assert p.pairs == {v: v for v in p.pairs} and len(p.pairs) == 25
    assert p.instruction_status_a == {} and p.instruction_status_b == {}


def test_two_methods_are_diffed_plan_by_plan_and_plans_only_on_one_side_are_listed():
    d = diff(FIXTURES / "two_methods.pte", FIXTURES / "mlp.pte")
    assert [p.plan for p in d.plans] == ["forward"]
    assert (d.plans_only_a, d.plans_only_b) == (("encode",), ())
    assert [p.plan for p in diff(FIXTURES / "two_methods.pte", FIXTURES / "two_methods.pte").plans] == \
        ["encode", "forward"]
    with pytest.raises(KeyError):
        diff(FIXTURES / "two_methods.pte", FIXTURES / "mlp.pte", plan="encode")


# -- crafted programs: rules, statuses, findings -----------------------------------------------------

def _chain(*, out_shape=(2, 2), moved_offset=False, rename=False):
    """x -> relu -> y (output), planned in one CPU arena; knobs change one thing at a time."""
    b = PlanBuilder(arenas=[(64, "cpu")])
    if rename:
        b.scalar(0)  # shift every value index by one
    x = b.tensor(arena=1, offset=0, name="x")
    y = b.tensor(out_shape, arena=1, offset=40 if moved_offset else 16)
    b.kernel("aten::relu.out", x, y, y)
    b.inputs(x)
    b.outputs(y)
    return b.program()


def test_statuses_shape_offset_and_name_matching_through_renumbering():
    base = _chain()
    p = diff(base, _chain(out_shape=(4, 2), rename=True)).plan("forward")
    assert p.pairs == {0: 1, 1: 2}
    assert p.status_a == {0: "same", 1: "shape"}
    change = next(v for v in p.values if v.status == "shape")
    assert (change.changes, change.rule) == (("sizes",), "dataflow")  # shapes differ: not by output position
    p = diff(base, _chain(moved_offset=True)).plan("forward")
    assert p.status_a[1] == "offset" and next(iter(p.values)).changes == ("offset",)


def test_findings_new_and_fixed_are_matched_through_the_pairing():
    clean = _chain()
    b = PlanBuilder(arenas=[(32, "cpu")])
    x = b.tensor(arena=1, offset=0, name="x")
    y = b.tensor(arena=1, offset=24)  # [24, 40) past a 32-byte arena: out-of-bounds
    b.kernel("aten::relu.out", x, y, y)
    b.inputs(x)
    b.outputs(y)
    broken = b.program()
    p = diff(clean, broken).plan("forward")
    assert [(f.status, f.finding.code) for f in p.findings] == [("new", "out-of-bounds")]
    back = diff(broken, clean).plan("forward")
    assert [(f.status, f.finding.code, f.finding.values) for f in back.findings] == [("fixed", "out-of-bounds", (1,))]
    assert diff(broken, broken).plan("forward").findings == ()


def _fanout(n_relus: int, *, scalar_ops: bool = False):
    """x read by several identical ops whose results are never outputs: the pairing must guess."""
    b = PlanBuilder(arenas=[(256, "cpu")])
    x = b.tensor(arena=1, offset=0)
    outs = []
    for k in range(n_relus):
        o = b.tensor(arena=1, offset=16 * (k + 1))
        b.kernel("aten::relu.out", x, o, o)
        outs.append(o)
    full = b.tensor(arena=1, offset=200)
    b.kernel("aten::full.out", b.scalar(3), full, full)  # reads no tensor: only op occurrence can pair it
    b.inputs(x)
    return b.program()


def test_ambiguous_and_op_occurrence_pairs_are_counted():
    p = diff(_fanout(2), _fanout(2)).plan("forward")
    assert p.matching["ambiguous"] == 1  # the first relu had two equal candidates
    assert p.matching["op-occurrence"] == 1  # aten::full.out
    assert p.matching["unmatched_a"] == p.matching["unmatched_b"] == 0
    assert "1 ambiguous" in "\n".join(diff_lines(diff(_fanout(2), _fanout(2))))


def test_copies_pair_by_root_and_rank_and_delegates_match_kernels_by_inputs():
    def build(device: str, second_copy: bool):
        b = PlanBuilder(arenas=[(64, "cpu"), (64, device)])
        x = b.tensor(arena=1, offset=0)
        d1 = b.tensor(arena=2, offset=0, device=device)
        r = b.tensor(arena=2, offset=16, device=device)
        h = b.tensor(arena=1, offset=16)
        b.h2d(x, d1)
        b.delegate("CudaBackend", d1, r, target_device=device)
        b.d2h(r, h)
        if second_copy:
            d2 = b.tensor(arena=2, offset=32, device=device)
            b.h2d(x, d2)
        b.inputs(x)
        b.outputs(h)
        return b.program()

    p = diff(build("cuda:0", False), build("cuda:1", True)).plan("forward")
    assert [(c.status, c.direction, c.of_a) for c in p.copies] == \
        [("device", "h2d", 0), ("device", "d2h", 2), ("added", "h2d", 0)]
    assert [a.status for a in p.arenas] == ["same", "moved"]
    assert p.status_a[2] == "device" and p.pairs[2] == 2  # the delegate's output, paired by output position
    cpu = PlanBuilder(arenas=[(64, "cpu")])
    x = cpu.tensor(arena=1, offset=0)
    r = cpu.tensor(arena=1, offset=16)
    cpu.kernel("aten::sin.out", x, r, r)
    cpu.inputs(x)
    cpu.outputs(r)
    p = diff(cpu.program(), build("cuda:0", False)).plan("forward")
    assert p.pairs == {0: 0, 1: 2} and p.status_a[1] == "device"
    assert [c.status for c in p.copies] == ["added", "added"]


# -- JSON and CLI ----------------------------------------------------------------------------------

def test_json_is_stable_ordered_and_plain():
    code, first = _run("diff", str(PAIRS / "cpu_only.pte"), str(PAIRS / "device_cuda0.pte"), "--json")
    _, again = _run("diff", str(PAIRS / "cpu_only.pte"), str(PAIRS / "device_cuda0.pte"), "--json")
    assert code == 0 and first == again
    doc = json.loads(first)
    assert json_text(doc, sort_keys=True) == first  # keys sorted at every level (records on one line)
    assert (doc["format"], doc["a"], doc["b"]) == (FORMAT, "cpu_only.pte", "device_cuda0.pte")
    plan = doc["plans"][0]
    assert set(plan) == {"name", "matching", "counts", "pairs", "values", "arenas", "copies", "transfers", "devices",
                         "findings", "requirements"}
    assert list(plan["counts"]["values"]) == sorted(STATUSES)
    assert plan["pairs"] == sorted(plan["pairs"])
    moved = [v for v in plan["values"] if v["status"] == "device"]
    assert moved[0]["a"]["device"] == "cpu" and moved[0]["b"]["device"] == "cuda:0"
    assert moved[0]["b"]["sizes"] == [2, 4] and moved[0]["changes"] == ["device", "arena"]  # offset only compared within one arena
    a_side = [v["a"]["index"] for v in plan["values"] if v["a"] is not None]
    assert a_side == sorted(a_side)  # A's changes in value order, then B's additions
    assert plan["copies"][0]["b"]["op"] == "et_copy::_h2d_copy.out"
    assert plan["requirements"]["b"]["devices"][1]["copies"]["h2d"] == {"count": 7, "nbytes": 224}


def test_cli_human_summary_and_exit_statuses(tmp_path):
    code, text = _run("diff", str(PAIRS / "cpu_only.pte"), str(PAIRS / "device_cuda0.pte"))
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "cpu_only.pte -> device_cuda0.pte"
    assert lines[2] == ("plan 'forward': 4 tensors moved (4 cpu -> cuda:0); copies +11 -0 (+352 B per run); "
                        "device arenas 0 B -> 128 B; findings 0 new, 0 fixed")
    assert "    %5->%11 float32[2,4]: cpu -> cuda:0, arena #1@128 -> #2@32, aten::add.out -> BackendWithCompilerDemo" in lines
    assert "    + h2d of %3 (input 0): cpu -> cuda:0, 2 x 32 B (instructions 1, 17 in B)" in lines  # %3 once
    assert ("    + cuda:0: DeviceAllocator for device type 1 (cuda) index 0: #2 (128 B); serves 7 h2d copies (224 B), "
            "4 d2h (128 B)") in lines
    assert len(lines) < 40  # a review summary, not a dump
    code, text = _run("diff", str(FIXTURES / "two_methods.pte"), str(FIXTURES / "two_methods.pte"), "--plan", "encode")
    assert code == 0 and "plan 'encode'" in text and "plan 'forward'" not in text
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a program")
    assert _run("diff", str(PAIRS / "cpu_only.pte"), str(bad))[0] == 2
    assert _run("diff", str(tmp_path / "missing.pte"), str(PAIRS / "cpu_only.pte"))[0] == 2
    assert _run("diff", str(FIXTURES / "two_methods.pte"), str(FIXTURES / "mlp.pte"), "--plan", "encode")[0] == 2


def test_explorer_diff_is_exported_lazily_and_takes_paths_or_programs():
    assert "diff" in explorer.__all__
    a = explorer.load(PAIRS / "device_cuda0.pte")
    assert explorer.diff(a, PAIRS / "device_cuda1.pte").plans[0].counts == \
        diff(PAIRS / "device_cuda0.pte", PAIRS / "device_cuda1.pte").plans[0].counts


def test_the_cuda0_pair_member_is_the_bundled_device_mlp_export():
    """The pairs compare one model: device_cuda0.pte is device_mlp.pte byte for byte."""
    assert (PAIRS / "device_cuda0.pte").read_bytes() == (FIXTURES / "device_mlp.pte").read_bytes()


def test_headline_counts_copy_targets_that_moved_too():
    code, text = _run("diff", str(PAIRS / "device_cuda0.pte"), str(PAIRS / "device_cuda1.pte"))
    assert code == 0
    assert text.splitlines()[2].startswith(
        "plan 'forward': 11 tensors moved (11 cuda:0 -> cuda:1; 4 computed, 7 copy targets); ")
    assert "    %11 float32[2,4]: cuda:0 -> cuda:1, arena #2@32 -> #2@32, written by BackendWithCompilerDemo" in text
    assert "->%11 " not in text and "warning" not in text


def test_unrelated_programs_get_a_pairing_warning():
    code, text = _run("diff", str(FIXTURES / "mlp.pte"), str(FIXTURES / "zoo" / "cnn.pte"))
    assert code == 0
    assert "  warning: only 10% of the tensors could be paired: these look like different programs" in text


def _faulty(pad: int):
    """A program with a live overlap and a scratch-like unwritten tensor; ``pad`` unused scalars first
    renumber every value without changing anything else."""
    b = PlanBuilder(arenas=[(64, "cpu")])
    for _ in range(pad):
        b.scalar(7)
    x = b.tensor(arena=1, offset=0)
    y = b.tensor(arena=1, offset=16)
    z = b.tensor(arena=1, offset=16)  # overlaps y while y is alive
    scratch = b.tensor((6,), arena=1, offset=40)
    b.kernel("aten::relu.out", x, y, y)
    b.kernel("cortex_m::quantized_avg_pool2d.out", x, scratch, z, z)
    b.kernel("aten::add.out", y, z, b.scalar(1), x, x)
    b.inputs(x)
    b.outputs(x)
    return b.program()


@pytest.mark.parametrize("pad", [0, 3])
def test_the_same_findings_are_neither_fixed_nor_new(pad):
    a, b = _faulty(0), _faulty(pad)
    assert [f.code for f in explorer.check(a)] == ["live-overlap"]
    result = diff(a, b)
    assert result.plans[0].findings == ()
    text = "\n".join(diff_lines(result))
    assert "findings 0 new, 0 fixed" in text


def test_alike_new_findings_are_one_line_with_a_count():
    b = PlanBuilder(arenas=[(64, "cpu"), (256, "cuda:0")])
    xs = [b.tensor(arena=1, offset=16 * k) for k in range(3)]
    ds = [b.tensor(arena=2, offset=16 * k, device="cuda:0") for k in range(3)]
    for x, d in zip(xs, ds):  # three moves across devices without a copy: the same problem three times
        b.move(x, d)
    b.inputs(*xs)
    b.outputs(*ds)
    program = b.program()
    lines = diff_lines(diff(program, program))
    assert not any("[cross-device-no-copy]" in line for line in lines)  # identical: nothing new or fixed
    a = PlanBuilder(arenas=[(64, "cpu")])
    y = a.tensor(arena=1, offset=0)
    a.inputs(y)
    a.outputs(y)
    lines = diff_lines(diff(a.program(), program))
    new = [line for line in lines if line.startswith("    new   [cross-device-no-copy]")]
    assert new == ["    new   [cross-device-no-copy] 3 alike, the first: " + explorer.check(program)[0].message]
    from explorer.describe.program import finding_lines
    text = finding_lines(explorer.check(program))
    assert text[3].startswith("  [cross-device-no-copy] plan 'forward': 3 alike (instructions 0, 1, 2), the first: ")


def test_a_name_duplicated_on_one_side_only_is_an_ambiguous_pair():
    """Pairing by name guesses when either side holds the name twice (a damaged or hand-made program): A has two
    buffers named ``cache``, B one; the pair made is counted ambiguous (scripts/mutants.py match-ambiguous-names)."""
    def build(copies: int):
        b = PlanBuilder(arenas=[(256, "cpu")])
        x = b.tensor(arena=1, offset=0)
        for k in range(copies):
            cache = b.tensor(arena=1, offset=32 + 32 * k, name="cache")
            out = b.tensor(arena=1, offset=128 + 32 * k)
            b.kernel("aten::add.out", x, cache, b.scalar(1), out, out)
        b.inputs(x)
        return b.program()

    for a, b in ((build(2), build(1)), (build(1), build(2))):
        p = diff(a, b).plan("forward")
        assert p.matching["name"] == 1 and p.matching["ambiguous"] == 1, p.matching
    assert diff(build(1), build(1)).plan("forward").matching["ambiguous"] == 0


def test_twins_whose_b_only_adds_copies_get_no_pairing_warning():
    """Every tensor of A paired and B's extra ones the new copies: the same program, pairing counted over what can
    pair (issue 31: a what-if of the chain said only 40% could be paired)."""
    whatif = FIXTURES / "whatif"
    code, text = _run("diff", str(whatif / "chain_cpu_only.pte"), str(whatif / "chain_cuda0.pte"))
    assert code == 0 and "only in A: 0" in text and "warning" not in text
    code, text = _run("whatif", str(whatif / "chain_cpu_only.pte"), "--move", "delegate:*=cuda:0")
    assert code == 0 and "only in A: 0" in text and "could be paired" not in text


def test_analyses_made_already_are_reused_and_the_ones_made_are_handed_back():
    """diff(analyses=(A's, B's)): a side's analysis the caller has (the widget analysed the original when it opened) is
    used as it is, a missing one is made and put in, so the views made next analyse neither side again; the diff is
    the same as without them."""
    from explorer.analysis.pipeline import LazyAnalysis
    from explorer.views.payload.diff import diff_views

    a, b = explorer.load(FIXTURES / "diff" / "cpu_only.pte"), explorer.load(FIXTURES / "diff" / "device_cuda0.pte")
    mine = {p.name: LazyAnalysis(p, a) for p in a.plans}
    made: dict = {}
    result = diff(a, b, analyses=(dict(mine), made))
    assert result.to_json() == diff(a, b).to_json()
    assert set(made) == set(b.plan_names) and all(isinstance(x, LazyAnalysis) for x in made.values())
    views = diff_views(result, a, b, analyses=(mine, made))
    for name, dv in views.items():
        assert dv.a.analysis is mine[name] and dv.b.analysis is made[name]
        for side in ("a", "b"):  # every instruction's pair at once, as one at a time gives them
            each = [(i, dv.instruction_pair(side, i)) for i in range(len(dv.side(side).plan.instructions))]
            paired = [(i, o) for i, o in each if o is not None]
            assert paired and dv.instruction_pairs(side) == ([i for i, _ in paired], [o for _, o in paired])
