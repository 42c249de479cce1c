"""The dataflow write rule (explorer/analysis/graph.py), on crafted plans and on the real exports."""

from __future__ import annotations

import pytest

from analysis_helpers import FIXTURES, PlanBuilder, reader
from explorer.analysis import dataflow


def _fixture(name: str):
    return reader()(FIXTURES / name)  # committed: a missing file is a failure


# -- crafted ----------------------------------------------------------------------------------------

def test_out_variant_writes_its_trailing_return_and_reads_the_rest():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x, y = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    alpha = b.scalar(1)
    out = b.tensor(arena=1, offset=32)
    b.kernel("aten::add.out", x, y, alpha, out, out)
    flow = dataflow(b.build())
    assert flow.reads == ((x, y, alpha),)
    assert flow.writes == ((out,),)
    assert flow.producers == {out: (0,)}
    assert flow.consumers == {x: (0,), y: (0,), alpha: (0,)}


def test_inplace_copy_writes_self_even_though_it_comes_first():
    b = PlanBuilder(arenas=[(64, "cpu")])
    buf, src = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    nb = b.scalar(False, "Bool")
    b.kernel("aten::copy_", buf, src, nb, buf)
    flow = dataflow(b.build())
    assert flow.writes == ((buf,),)
    assert flow.reads == ((src, nb),)


def test_several_outputs_come_back_as_a_tensorlist_whose_items_are_written():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor((4,), arena=1, offset=0)
    o1, o2 = b.tensor((2,), arena=1, offset=16), b.tensor((2,), arena=1, offset=24)
    ret = b.tensor_list([o1, o2])
    b.kernel("aten::split_copy.Tensor_out", x, b.scalar(2), b.scalar(0), ret, ret)
    flow = dataflow(b.build())
    assert flow.writes == ((ret, o1, o2),)
    assert x in flow.reads[0] and o1 not in flow.reads[0]
    assert flow.producers[o1] == (0,) and flow.producers[o2] == (0,)


def test_a_tensorlist_argument_is_read_with_its_items():
    b = PlanBuilder(arenas=[(64, "cpu")])
    a, c = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    lst = b.tensor_list([a, c])
    out = b.tensor((4, 2), arena=1, offset=32)
    b.kernel("aten::cat.out", lst, b.scalar(0), out, out)
    flow = dataflow(b.build())
    assert flow.reads[0][:3] == (lst, a, c)
    assert flow.consumers[a] == (0,)


def test_intlist_items_are_value_indices_and_are_read():
    b = PlanBuilder(arenas=[(64, "cpu")])
    w = b.constant((4, 2))
    one, zero = b.scalar(1), b.scalar(0)
    dims = b.scalar((one, zero), "IntList")
    out = b.tensor((2, 4), arena=1, offset=0)
    b.kernel("aten::permute_copy.out", w, dims, out, out)
    flow = dataflow(b.build())
    assert flow.reads == ((w, dims, one, zero),)


def test_a_constant_or_null_in_last_place_is_not_a_result():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x, w = b.tensor(arena=1, offset=0), b.constant()
    b.kernel("custom::check", x, w)
    b.kernel("custom::assert", x, b.null())
    flow = dataflow(b.build())
    assert flow.writes == ((), ())
    assert flow.reads[0] == (x, w)


def test_delegate_outputs_are_the_trailing_args_never_named_before():
    b = PlanBuilder(arenas=[(128, "cpu")])
    x = b.tensor(arena=1, offset=0)
    h = b.tensor(arena=1, offset=16)
    b.kernel("aten::relu.out", x, h, h)
    o1, o2 = b.tensor(arena=1, offset=32), b.tensor(arena=1, offset=48)
    b.delegate("XnnpackBackend", x, h, o1, o2)
    b.inputs(x)
    flow = dataflow(b.build())
    assert flow.reads[1] == (x, h)
    assert flow.writes[1] == (o1, o2)


def test_delegate_reading_a_plan_input_named_nowhere_else_keeps_it_as_an_input():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x, out = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    b.delegate("XnnpackBackend", x, out)
    b.inputs(x)
    flow = dataflow(b.build())
    assert flow.reads == ((x,),) and flow.writes == ((out,),)


def test_delegate_with_nothing_fresh_writes_its_last_argument():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x, y = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    b.inputs(x, y)
    b.delegate("Backend", x, y)
    flow = dataflow(b.build())
    assert flow.writes == ((y,),) and flow.reads == ((x,),)


def test_move_jump_and_free():
    b = PlanBuilder(arenas=[(64, "cpu")])
    a, c = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    cond = b.scalar(True, "Bool")
    b.move(a, c)
    b.jump(cond, 0)
    b.free(c)
    flow = dataflow(b.build())
    assert flow.reads == ((a,), (cond,), (c,))
    assert flow.writes == ((c,), (), ())


def test_indices_pointing_nowhere_are_dropped_not_raised():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor(arena=1, offset=0)
    b.kernel("aten::relu.out", x, 99, 99)
    b.move(-1, 42)
    flow = dataflow(b.build())
    assert flow.reads == ((x,), ()) and flow.writes == ((), ())


# -- real exports -------------------------------------------------------------------------------------

def test_device_add_copies_and_delegate():
    plan = _fixture("device_add.pte").plan("forward")
    flow = dataflow(plan)
    # h2d(0 -> 2), h2d(1 -> 3), delegate(2, 3 -> 4), d2h(4 -> 5): args [src, dst, dst] and [in, in, out].
    assert flow.reads == ((0,), (1,), (2, 3), (4,))
    assert flow.writes == ((2,), (3,), (4,), (5,))
    assert flow.producers == {2: (0,), 3: (1,), 4: (2,), 5: (3,)}
    assert flow.consumers == {0: (0,), 1: (1,), 2: (2,), 3: (2,), 4: (3,)}


def test_device_mlp_every_copy_and_delegate_writes_one_fresh_tensor():
    plan = _fixture("device_mlp.pte").plan("forward")
    flow = dataflow(plan)
    for instr in plan.instructions:
        if instr.kind == "KernelCall" and instr.op.startswith("et_copy::"):
            src, dst, ret = instr.args
            assert dst == ret and flow.writes[instr.index] == (dst,) and flow.reads[instr.index] == (src,)
        if instr.kind == "DelegateCall":
            assert flow.writes[instr.index] == (instr.args[-1],)
            assert flow.reads[instr.index] == instr.args[:-1]
    # Each tensor is written exactly once; the host tensor h (%16) and input x (%3) are copied twice.
    assert all(len(w) == 1 for w in flow.producers.values())
    assert len(flow.consumers[3]) == 2 and len(flow.consumers[16]) == 2


def test_mutable_state_buffers_are_read_first_and_written_back_by_copy_():
    plan = _fixture("mutable_state.pte").plan("forward")
    flow = dataflow(plan)
    names = {t.name: t.index for t in plan.tensors if t.name}
    state, cache = names["state"], names["cache"]
    copies = [i.index for i in plan.instructions if i.op == "aten::copy_"]
    assert len(copies) == 2
    # Each buffer is read before anything writes it, and written only by its copy_ back.
    assert flow.producers[state] == (copies[0],) and flow.consumers[state][0] < copies[0]
    assert flow.producers[cache] == (copies[1],) and flow.consumers[cache][0] < copies[1]
    # Every other planned tensor has exactly one writer, its first mention.
    for t in plan.tensors:
        if t.planned and t.index not in (state, cache) and t.index not in plan.inputs:
            first_mention = min(flow.producers.get(t.index, (99,)) + flow.consumers.get(t.index, (99,)))
            assert flow.producers[t.index] == (first_mention,)


def test_two_methods_have_independent_dataflows():
    program = _fixture("two_methods.pte")
    assert program.plan_names == ("encode", "forward")
    for plan in program.plans:
        flow = dataflow(plan)
        assert flow.plan == plan.name
        assert len(flow.reads) == len(plan.instructions)
        # Every kernel writes its last argument, which no earlier instruction named.
        for instr, w in zip(plan.instructions, flow.writes):
            assert w == (instr.args[-1],)
        # The plan output is produced by the last instruction.
        assert flow.producers[plan.outputs[0]] == (len(plan.instructions) - 1,)


def test_xnnpack_delegate_reads_the_input_and_writes_the_output():
    plan = _fixture("xnnpack_mlp.pte").plan("forward")
    flow = dataflow(plan)
    assert flow.reads == ((plan.inputs[0],),) and flow.writes == ((plan.outputs[0],),)


def test_et_copy_index_writes_its_accumulator_not_its_index():
    """``executorch_prim::et_copy_index(copy_to, copy_from, index)``, emitted for ``map``, writes its first
    argument (real export: tests/fixtures/zoo/map.pte)."""
    plan = reader()(FIXTURES / "zoo" / "map.pte").plan("forward")
    (i,) = [i.index for i in plan.instructions if i.op == "executorch_prim::et_copy_index.tensor"]
    copy_to, copy_from, index = plan.instructions[i].values
    flow = dataflow(plan)
    assert flow.writes[i] == (copy_to,) and set(flow.reads[i]) == {copy_from, index}
    assert copy_to in plan.outputs
