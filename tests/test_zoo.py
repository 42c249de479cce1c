"""The zoo of real exports (``tests/fixtures/zoo``, made by ``scripts/make_zoo.py``): ``check`` is
silent on every program and no arena is ever more than 100% used; plus the rules the zoo forced on
the analysis (views by ``et_view``, scratch tensors), each also pinned on a synthetic program.

Reading the zoo needs neither torch nor executorch; only ``test_zoo_reproduces`` (interop) exports
it again with executorch and compares the bytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import explorer
from explorer.analysis import aliases
from explorer.analysis.pipeline import analyze, analyze_program, check
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.lifetimes import lifetime_arrays, state_values
from explorer.cli import main
from writers.pte import write

from analysis_helpers import PlanBuilder

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "fixtures" / "zoo"
INDEX = json.loads((ZOO / "zoo.json").read_text())
PROGRAMS = sorted(ZOO.glob("*.pte"))


def test_the_zoo_is_complete_small_and_every_program_has_a_verdict():
    names = {p.stem for p in PROGRAMS}
    assert len(names) >= 30
    assert names == set(INDEX), "zoo.json and the .pte files disagree: run scripts/make_zoo.py"
    assert sum(p.stat().st_size for p in ZOO.iterdir()) < 5 * 1024 * 1024
    for name, record in INDEX.items():
        if record["device"]:
            assert record["runtime"].startswith("verified (InternalConsistency)"), (name, record["runtime"])
        else:  # executorch's runtime loaded, ran and (where there is an eager model) matched it
            assert record["runtime"].startswith("runs ("), (name, record["runtime"])
        for ptd in record["ptd"]:
            assert (ZOO / ptd).is_file()


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_check_is_silent_on_every_zoo_program(path, capsys):
    assert main(["check", str(path)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == f"{path.name}: no findings (0 errors, 0 warnings)", lines
    # the only other line: weights in a .ptd not given here (the test below links them)
    assert lines[1:] == [] or (len(lines) == 2 and "live in a .ptd data file that was not given" in lines[1]), lines


@pytest.mark.parametrize("name", [n for n, r in INDEX.items() if r["ptd"]])
def test_check_is_silent_with_the_data_files_attached(name, capsys):
    """With ``--data`` the external tensors are looked up too (``missing-external``): still silent."""
    (ptd,) = INDEX[name]["ptd"]
    assert main(["check", str(ZOO / f"{name}.pte"), "--data", str(ZOO / ptd)]) == 0
    assert "no findings" in capsys.readouterr().out


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_no_arena_is_more_than_full(path):
    for name, result in analyze_program(explorer.load(path)).items():
        for arena in result.memory.arenas:
            assert arena.peak_live_bytes <= arena.size, (name, arena.memory_id, arena.peak_live_bytes, arena.size)
        for totals in result.memory.devices:
            assert totals.peak_live_bytes <= totals.arena_bytes, (name, totals)


def test_the_zoo_covers_what_it_claims():
    ops = {p.stem: {i.op.split(".")[0] for plan in explorer.load(p).plans for i in plan.instructions if i.op}
           for p in PROGRAMS}
    assert "executorch_prim::et_view" in ops["view_dynamic"] and "executorch_prim::et_view" in ops["dynamic_seq"]
    assert any(op.startswith("quantized_decomposed::") for op in ops["quant_portable"])
    assert "aten::copy_" in ops["counter_state"]
    assert "executorch_prim::et_copy_index" in ops["map"]
    devices = {str(b.device) for b in explorer.load(ZOO / "device_two_methods.pte").plan("device").buffers}
    assert devices == {"cpu", "cuda:1"}
    assert not explorer.load(ZOO / "device_two_methods.pte").plan("host").buffer_devices
    mixed = {str(b.device) for b in explorer.load(ZOO / "device_two_gpus.pte").plan("forward").buffers}
    assert mixed == {"cpu", "cuda:0", "cuda:1"}
    assert explorer.load(ZOO / "xnnpack_partial.pte").plan("forward").delegates
    assert len(explorer.load(ZOO / "multi_method.pte").plans) == 3


# -- views written by executorch_prim::et_view ------------------------------------------------------

@pytest.mark.parametrize("name", ["view_dynamic", "dynamic_seq", "detector_dynamic", "detector_xnnpack_dynamic"])
def test_et_view_outputs_are_aliases_whose_base_outlives_them(name):
    plan = explorer.load(ZOO / f"{name}.pte").plan("forward")
    f = Facts(plan)
    e = edges(plan, f)
    alias = aliases(plan, f, e)
    first, last = lifetime_arrays(plan, f, e, alias)
    views = [i for i in plan.instructions if i.op == "executorch_prim::et_view.default"]
    assert views
    for instr in views:
        src, out = instr.values[0], instr.values[-1]
        base = alias[out]
        assert base not in alias  # a view of a view points at the first base
        assert base == alias.get(src, src)
        t, b = plan.values[out], plan.values[base]
        if t.memory_id is not None:  # the planner's _ViewSpec: same arena and bytes as the base
            assert (t.memory_id, t.offset) == (b.memory_id, b.offset)
        assert first[base] <= first[out] and last[base] >= last[out]


def test_a_view_used_after_its_base_is_overwritten_is_still_caught():
    """The alias rule must not hide a real fault: the base's bytes reused while a view still reads them."""
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor(arena=1, offset=32)
    base = b.tensor(arena=1, offset=0)
    view = b.tensor((4,), arena=1, offset=0)
    other = b.tensor(arena=1, offset=0)  # the planner (wrongly) reuses base's bytes
    out = b.tensor(arena=1, offset=32)
    b.kernel("aten::relu.out", x, base, base)
    b.kernel("executorch_prim::et_view.default", base, b.scalar((), "IntList"), view)
    b.kernel("aten::neg.out", x, other, other)
    b.kernel("aten::add.out", view, other, b.scalar(1), out, out)
    b.inputs(x)
    b.outputs(out)
    codes = [f.code for f in check(b.program())]
    assert "live-overlap" in codes


# -- scratch tensors (the Cortex-M pattern, rebuilt with our writer) --------------------------------

def _scratch_program():
    """``cortex_m::quantized_avg_pool2d.out(input, kernel, stride, padding, zp, mult, shift, scratch, out)``:
    the planner gives ``scratch`` the lifetime of its one call, so its bytes are reused before
    (by the input) and after (by the result). executorch can't export Cortex-M kernels here
    (tosa_serializer missing), so the same bytes pattern is written by our writer."""
    b = PlanBuilder(arenas=[(160, "cpu")])
    x = b.tensor((1, 4, 4, 4), "int8", arena=1, offset=0, name=None)         # 64 B, instruction 0 only
    w = b.constant((4, 4, 1, 1), "int8")
    a = b.tensor((1, 4, 4, 4), "int8", arena=1, offset=64)                   # 64 B, instructions 0..1
    scratch = b.tensor((48,), "int8", arena=1, offset=0)                    # reuses x's bytes
    p = b.tensor((1, 4, 2, 4), "int8", arena=1, offset=128)                  # 32 B
    y = b.tensor((1, 4, 2, 4), "int8", arena=1, offset=0)                    # reuses scratch's bytes
    b.kernel("cortex_m::quantized_conv2d.out", x, w, a, a)
    ints = [b.scalar(2) for _ in range(2)]
    kernel = b.scalar(tuple(ints), "IntList")
    b.kernel("cortex_m::quantized_avg_pool2d.out", a, kernel, kernel, kernel, b.scalar(0), b.scalar(1),
             b.scalar(0), scratch, p, p)
    b.kernel("cortex_m::quantized_add.out", p, p, y, y)
    b.inputs(x)
    b.outputs(y)
    return explorer.load(write(b.program())), scratch


def test_a_scratch_tensor_lives_only_for_the_call_that_uses_it():
    program, scratch = _scratch_program()
    plan = program.plan("forward")
    f = Facts(plan)
    e = edges(plan, f)
    first, last = lifetime_arrays(plan, f, e)
    assert (int(first[scratch]), int(last[scratch])) == (1, 1)
    assert scratch not in state_values(plan, f, e).tolist()
    assert check(program) == []
    arena = analyze(plan, program).memory.arenas[0]
    assert arena.peak_live_bytes == 144 and arena.size == 160  # 90%; as whole-plan state it was 110%


def test_state_read_before_written_still_lives_for_the_whole_plan():
    """The scratch rule must not shorten mutable state: read first, written back later (``copy_``)."""
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor(arena=1, offset=0)
    state = b.tensor(arena=1, offset=16)
    t = b.tensor(arena=1, offset=32)
    named = b.tensor(arena=1, offset=48, name="cache")  # a named buffer this plan only reads
    out = b.tensor(arena=1, offset=0)
    b.kernel("aten::add.out", state, x, b.scalar(1), t, t)
    b.kernel("aten::copy_", state, t, b.scalar(False, "Bool"), state)
    b.kernel("aten::add.out", t, named, b.scalar(1), out, out)
    b.inputs(x)
    b.outputs(out)
    plan = b.program().plan("forward")
    f = Facts(plan)
    e = edges(plan, f)
    assert sorted(state_values(plan, f, e).tolist()) == [state, named]
    first, last = lifetime_arrays(plan, f, e)
    assert (first[state], last[state]) == (0, 2) and (first[named], last[named]) == (0, 2)


# -- the rule: peak live > 100% only when an error explains it --------------------------------------

def _random_plan(rng: np.random.Generator):
    arenas = [(int(rng.integers(32, 160)) // 16 * 16 + 16, "cpu") for _ in range(int(rng.integers(1, 3)))]
    b = PlanBuilder(arenas=arenas)
    made: list[int] = []

    def tensor(written=True):
        arena = int(rng.integers(1, len(arenas) + 1))
        size = arenas[arena - 1][0]
        n = int(rng.choice([1, 2, 4, 8]))
        offset = int(rng.integers(0, size // 16)) * 16 if rng.random() < 0.95 else size  # sometimes past the end
        return b.tensor((n,), arena=arena, offset=offset)

    x = tensor()
    made.append(x)
    for _ in range(int(rng.integers(1, 10))):
        kind = rng.random()
        src = made[int(rng.integers(0, len(made)))]
        if kind < 0.15:  # an et_view of an earlier tensor, planned at its bytes
            t = plan_view = b.tensor((1,), arena=b.values[src].memory_id, offset=b.values[src].offset)
            b.kernel("executorch_prim::et_view.default", src, b.scalar((), "IntList"), plan_view)
            made.append(t)
        elif kind < 0.3:  # a kernel with a scratch argument
            scratch, out = tensor(), tensor()
            b.kernel("cortex_m::quantized_avg_pool2d.out", src, scratch, out, out)
            made.append(out)
        elif kind < 0.4:  # state: read, then written back
            state = tensor()
            t = tensor()
            b.kernel("aten::add.out", state, src, b.scalar(1), t, t)
            b.kernel("aten::copy_", state, t, b.scalar(False, "Bool"), state)
            made.append(t)
        else:
            other = made[int(rng.integers(0, len(made)))]
            out = tensor()
            b.kernel("aten::add.out", src, other, b.scalar(1), out, out)
            made.append(out)
    b.inputs(x)
    b.outputs(made[-1])
    return b.program()


def test_peak_live_above_100_percent_always_comes_with_an_error_explaining_it():
    rng = np.random.default_rng(0)
    over = explained = 0
    for _ in range(300):
        program = _random_plan(rng)
        plan = program.plans[0]
        result = analyze(plan, program, limit=None)
        for arena in result.memory.arenas:
            if arena.peak_live_bytes <= arena.size:
                continue
            over += 1
            codes = {f.code for f in result.findings if f.memory_id == arena.memory_id}
            assert codes & {"live-overlap", "out-of-bounds"}, (plan, arena)
            explained += 1
    assert over > 20  # the generator does make over-full arenas, and each one was explained


# -- the zoo is reproducible -------------------------------------------------------------------------

# The suite re-exports a sample (a device program with two methods: ~10 s of CPU, most of it importing
# executorch); the campaign re-exports all 43 (minutes).
ZOO_SAMPLE = ("device_two_methods",)


@pytest.mark.interop
@pytest.mark.parametrize("only", [ZOO_SAMPLE, pytest.param((), marks=pytest.mark.campaign)], ids=["sample", "all"])
def test_zoo_reproduces(only):
    """``scripts/make_zoo.py --check`` exports programs again and compares bytes: the sample, or every program."""
    argv = [sys.executable, str(ROOT / "scripts" / "make_zoo.py"), "--check"]
    for name in only:
        argv += ["--only", name]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "all zoo programs reproduce byte for byte" in done.stdout
    checked = [line.split()[0] for line in done.stdout.splitlines() if line.endswith(" same")]
    assert checked == list(only) if only else len(checked) == len(list(ZOO.glob("*.pte"))), done.stdout


# -- host kernels on device memory, from a real device export --------------------------------------

def test_host_kernels_reading_device_tensors_of_a_real_export_are_errors(tmp_path, capsys):
    """``device_cuda0.pte`` with its d2h copies bypassed, as a partitioner that forgot them would write
    it: the host kernels ``addmm``, ``mul`` and ``view_copy`` now read the delegates' cuda:0 results."""
    import dataclasses

    program = explorer.load(ZOO / "device_cuda0.pte")
    plan = program.plan("forward")
    copied = {i.args[-1]: i.args[0] for i in plan.instructions if i.op == "et_copy::_d2h_copy.out"}
    instructions = tuple(
        i if i.kind != "KernelCall" or i.op.startswith("et_copy::")
        else dataclasses.replace(i, args=tuple(copied.get(a, a) for a in i.args))
        for i in plan.instructions)
    broken = dataclasses.replace(program, plans=(dataclasses.replace(plan, instructions=instructions),))
    path = tmp_path / "no_d2h.pte"
    path.write_bytes(write(broken))
    found = [f for f in check(explorer.load(path)) if f.code == "cross-device-no-copy"]
    ops = sorted(f.message.split(" the host kernel ")[1].split(" ")[0] for f in found)
    assert ops == ["aten::addmm.out", "aten::mul.out", "aten::view_copy.out"]
    assert all(f.severity == "error" and "on cuda:0 memory" in f.message for f in found)
    assert main(["check", str(path)]) == 1
    assert "[cross-device-no-copy]" in capsys.readouterr().out


# -- loops (map) ---------------------------------------------------------------------------------------

def test_values_carried_around_the_map_loop_live_through_it():
    """``map.pte``: instructions 1..9 are the loop body (jump back at 9); the input read by the body and
    the accumulator ``et_copy_index`` fills row by row keep their bytes across every iteration."""
    plan = explorer.load(ZOO / "map.pte").plan("forward")
    (jump,) = [i for i in plan.instructions if i.kind == "JumpFalseCall"]
    top, bottom = jump.destination, jump.index
    (update,) = [i for i in plan.instructions if i.op == "executorch_prim::et_copy_index.tensor"]
    accumulator = update.args[0]
    first, last = lifetime_arrays(plan)
    assert (first[accumulator], last[accumulator]) == (top, len(plan.instructions) - 1)
    xs = plan.inputs[0]
    assert first[xs] == 0 and last[xs] == bottom
    body = [v for v in plan.instructions[top].args if plan.values[v].type == "Tensor" and v not in plan.inputs]
    assert all(top <= first[v] and last[v] < bottom for v in body)  # temporaries keep their own


def test_an_accumulator_overwritten_inside_the_loop_is_caught():
    """A temporary planned on the accumulator's bytes, used before the accumulator's update in the loop
    body, destroys the rows of earlier iterations: a real overlap only the loop rule can see."""
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor(arena=1, offset=32)
    acc = b.tensor(arena=1, offset=0)
    tmp = b.tensor(arena=1, offset=0)   # shares the accumulator's bytes
    row = b.tensor(arena=1, offset=16)
    i = b.scalar(0)
    done = b.scalar(False, "Bool")
    b.kernel("aten::neg.out", x, tmp, tmp)                          # 0: loop top
    b.kernel("aten::relu.out", tmp, row, row)                       # 1
    b.kernel("executorch_prim::et_copy_index.tensor", acc, row, i)  # 2: acc[i] = row
    b.kernel("executorch_prim::add.Scalar", i, b.scalar(1), i)      # 3
    b.jump(done, 0)                                                 # 4: back to 0
    b.inputs(x)
    b.outputs(acc)
    found = check(b.program())
    assert [f.code for f in found] == ["live-overlap"] and set(found[0].values) == {acc, tmp}
    straight = PlanBuilder(arenas=[(64, "cpu")])  # the same without the jump back: no overlap
    x = straight.tensor(arena=1, offset=32)
    acc = straight.tensor(arena=1, offset=0)
    tmp = straight.tensor(arena=1, offset=0)
    row = straight.tensor(arena=1, offset=16)
    straight.kernel("aten::neg.out", x, tmp, tmp)
    straight.kernel("aten::relu.out", tmp, row, row)
    straight.kernel("executorch_prim::et_copy_index.tensor", acc, row, straight.scalar(0))
    straight.inputs(x)
    straight.outputs(acc)
    assert check(straight.program()) == []
