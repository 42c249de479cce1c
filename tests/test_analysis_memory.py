"""Lifetimes, memory map and transfers: crafted cases and the device fixtures worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from analysis_helpers import FIXTURES, PlanBuilder, reader
from explorer.analysis.pipeline import analyze
from explorer.analysis import lifetimes
from explorer.analysis.memory import peak
from explorer.model.program import CPU, Device

CUDA0 = Device.parse("cuda:0")


def _fixture(name: str):
    return reader()(FIXTURES / name)  # committed: a missing file is a failure


def _spans(result) -> dict[int, tuple[int, int]]:
    return {v: (lt.first, lt.last) for v, lt in result.items()}


# -- lifetimes, crafted ---------------------------------------------------------------------------

def test_lifetime_definition_inputs_from_start_outputs_to_end():
    b = PlanBuilder(arenas=[(128, "cpu")])
    x, unused_in = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    h, out = b.tensor(arena=1, offset=32), b.tensor(arena=1, offset=48)
    never = b.tensor(arena=1, offset=64)
    b.kernel("aten::relu.out", x, h, h)        # 0
    b.kernel("aten::relu.out", h, out, out)    # 1
    b.kernel("aten::relu.out", h, h, h)        # 2 (h re-named)
    b.kernel("aten::abs.out", h, h, h)         # 3
    b.inputs(x, unused_in)
    b.outputs(out)
    plan = b.build()
    spans = _spans(lifetimes(plan))
    assert spans[x] == (0, 0)
    assert spans[unused_in] == (0, 0)
    assert spans[h] == (0, 3)
    assert spans[out] == (1, 3)  # output: to the end
    assert never not in spans


def test_moves_jumps_and_frees_count_as_uses():
    b = PlanBuilder(arenas=[(64, "cpu")])
    a, c = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    cond = b.scalar(True, "Bool")
    b.kernel("aten::relu.out", a, a, a)  # 0
    b.move(a, c)                          # 1
    b.jump(cond, 0)                       # 2
    b.free(c)                             # 3
    plan = b.build()
    spans = _spans(lifetimes(plan))
    assert spans[a] == (0, 1) and spans[c] == (1, 3) and spans[cond] == (2, 2)


def test_list_items_live_where_the_list_is_named():
    b = PlanBuilder(arenas=[(128, "cpu")])
    p, q = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    lst = b.tensor_list([p, q])
    out = b.tensor((4, 2), arena=1, offset=32)
    b.kernel("aten::relu.out", p, p, p)   # 0
    b.kernel("aten::relu.out", q, q, q)   # 1
    b.kernel("aten::abs.out", out, out, out)  # 2
    b.kernel("aten::cat.out", lst, b.scalar(0), out, out)  # 3: p and q must still be alive
    plan = b.build()
    spans = _spans(lifetimes(plan))
    assert spans[p] == (0, 3) and spans[q] == (1, 3) and spans[lst] == (3, 3)


def test_state_read_before_written_lives_for_the_whole_plan():
    b = PlanBuilder(arenas=[(128, "cpu")])
    x, buf, tmp = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16), b.tensor(arena=1, offset=32)
    init = b.tensor(arena=1, offset=48, data_buffer_idx=1)  # mutable with initial state, never named
    b.kernel("aten::relu.out", x, x, x)                        # 0
    b.kernel("aten::add.out", buf, x, b.scalar(1), tmp, tmp)  # 1: reads buf first
    b.kernel("aten::copy_", buf, tmp, b.scalar(False, "Bool"), buf)  # 2: writes it back
    b.kernel("aten::relu.out", x, x, x)                        # 3
    b.inputs(x)
    plan = b.build()
    spans = _spans(lifetimes(plan))
    assert spans[buf] == (0, 3)
    assert spans[init] == (0, 3)
    assert spans[tmp] == (1, 2)


def test_plan_without_instructions_has_one_step():
    b = PlanBuilder(arenas=[(16, "cpu")])
    x = b.tensor((2,), arena=1, offset=0)
    b.inputs(x)
    b.outputs(x)
    result = analyze(b.build())
    assert _spans(result.lifetimes) == {x: (0, 0)}
    assert result.memory.arenas[0].peak_live_bytes == 8


# -- memory map, crafted -----------------------------------------------------------------------------

def test_peak_counts_reuse_at_disjoint_times_once():
    first, last, nb = np.array([0, 3, 2]), np.array([2, 5, 3]), np.array([16, 16, 8])
    # t=0..1: 16; t=2: 16+8; t=3: 16+8 (the first ended at 2, the second starts at 3); t=4..5: 16
    assert peak(first, last, nb) == (24, 2)
    assert peak(np.array([0, 3]), np.array([2, 5]), np.array([16, 16])) == (16, 0)
    assert peak(np.array([-1]), np.array([-1]), np.array([16])) == (0, None)


def test_memory_map_blocks_arena_totals_and_devices():
    b = PlanBuilder(arenas=[(64, "cpu"), (32, "cuda:0")])
    x = b.tensor((4,), arena=1, offset=0)
    w = b.constant((4,))
    w2 = b.tensor((4,), data_buffer_idx=1)  # shares w's constant buffer: counted once
    y = b.tensor((4,), arena=1, offset=16)
    d = b.tensor((4,), arena=2, offset=16, device="cuda:0")
    stray = b.tensor((4,), arena=7, offset=0)  # dangling memory_id: in no arena
    b.kernel("aten::mul.out", x, w, y, y)  # 0
    b.kernel("aten::mul.out", y, w2, y, y)  # 1
    b.h2d(y, d)  # 2
    b.inputs(x)
    b.outputs(d)
    memory = analyze(b.build()).memory
    cpu, cuda = memory.arenas
    assert [(k.value, k.offset, k.nbytes, k.first, k.last) for k in cpu.blocks] == [(x, 0, 16, 0, 0), (y, 16, 16, 0, 2)]
    assert (cpu.size, cpu.device, cpu.peak_live_bytes, cpu.peak_at, cpu.high_water) == (64, CPU, 32, 0, 32)
    assert cpu.utilisation == 0.5
    assert [(k.value, k.first, k.last, k.device) for k in cuda.blocks] == [(d, 2, 2, CUDA0)]
    assert (cuda.peak_live_bytes, cuda.high_water) == (16, 32)
    dev = {t.device: t for t in memory.devices}
    assert list(dev) == [CPU, CUDA0]  # cpu first
    assert (dev[CPU].arena_bytes, dev[CPU].planned_bytes, dev[CPU].constant_bytes, dev[CPU].tensors) == (64, 48, 16, 5)
    assert (dev[CPU].transfers_out, dev[CPU].bytes_out, dev[CPU].transfers_in) == (1, 16, 0)
    assert (dev[CUDA0].arena_bytes, dev[CUDA0].planned_bytes, dev[CUDA0].peak_live_bytes) == (32, 16, 16)
    assert (dev[CUDA0].transfers_in, dev[CUDA0].bytes_in) == (1, 16)
    assert stray not in {k.value for a in memory.arenas for k in a.blocks}


# -- transfers, crafted --------------------------------------------------------------------------------

def test_device_targeted_delegate_crossing_is_a_transfer_per_host_tensor():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x, y = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    out = b.tensor(arena=2, offset=0, device="cuda:0")
    b.delegate("CudaBackend", x, y, out, target_device="cuda:0")
    b.inputs(x, y)
    result = analyze(b.build())
    assert [(t.kind, t.source, t.destination, t.nbytes, t.op) for t in result.transfers] == [
        ("h2d", x, out, 16, "CudaBackend"), ("h2d", y, out, 16, "CudaBackend")]
    assert [(str(t.src_device), str(t.dst_device), t.count, t.nbytes) for t in result.transfer_totals] == [
        ("cpu", "cuda:0", 2, 32)]


def test_copy_kind_comes_from_devices_not_the_op_name():
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0"), (64, "cuda:1")])
    a, c = b.tensor(arena=2, offset=0, device="cuda:0"), b.tensor(arena=2, offset=16, device="cuda:0")
    e = b.tensor(arena=3, offset=0, device="cuda:1")
    b.h2d(a, c)  # mislabelled: stays on cuda:0
    b.d2h(c, e)  # device to device
    b.kernel("aten::relu.out", a, a, a)  # not a transfer
    kinds = [(t.instruction, t.kind) for t in analyze(b.build()).transfers]
    assert kinds == [(0, "same"), (1, "d2d")]


# -- the device fixtures, worked out by hand from `inspect --json` -------------------------------------

def test_device_add_by_hand():
    plan = _fixture("device_add.pte").plan("forward")
    # inspect --json: inputs [0, 1], outputs [5]; 0 h2d [0,2,2]; 1 h2d [1,3,3]; 2 delegate [2,3,4]; 3 d2h [4,5,5]
    # values: %0 cpu 1@16, %1 cpu 1@0, %2 cuda:0 2@32, %3 cuda:0 2@16, %4 cuda:0 2@0, %5 cpu 1@0; 16 B each
    result = analyze(plan)
    assert _spans(result.lifetimes) == {0: (0, 0), 1: (0, 1), 2: (0, 2), 3: (1, 2), 4: (2, 3), 5: (3, 3)}
    cpu, cuda = result.memory.arenas
    # arena 1: %1 [0,16) at 0..1 and %5 [0,16) at 3..3 share a slot at disjoint times; %0 [16,32) at 0.
    assert [(k.value, k.offset, k.nbytes, k.first, k.last) for k in cpu.blocks] == [
        (1, 0, 16, 0, 1), (5, 0, 16, 3, 3), (0, 16, 16, 0, 0)]
    assert (cpu.memory_id, cpu.size, cpu.device, cpu.peak_live_bytes, cpu.peak_at, cpu.high_water) == (
        1, 32, CPU, 32, 0, 32)
    assert [(k.value, k.offset, k.nbytes, k.first, k.last) for k in cuda.blocks] == [
        (4, 0, 16, 2, 3), (3, 16, 16, 1, 2), (2, 32, 16, 0, 2)]
    assert (cuda.memory_id, cuda.size, cuda.device, cuda.peak_live_bytes, cuda.peak_at, cuda.high_water) == (
        2, 48, CUDA0, 48, 2, 48)
    assert cpu.utilisation == cuda.utilisation == 1.0
    assert [(t.instruction, t.kind, t.source, t.destination, t.nbytes) for t in result.transfers] == [
        (0, "h2d", 0, 2, 16), (1, "h2d", 1, 3, 16), (3, "d2h", 4, 5, 16)]
    dev = {str(t.device): t for t in result.memory.devices}
    assert list(dev) == ["cpu", "cuda:0"]
    c, g = dev["cpu"], dev["cuda:0"]
    assert (c.arena_bytes, c.planned_bytes, c.constant_bytes, c.peak_live_bytes, c.tensors) == (32, 48, 0, 32, 3)
    assert (c.transfers_in, c.bytes_in, c.transfers_out, c.bytes_out) == (1, 16, 2, 32)
    assert (g.arena_bytes, g.planned_bytes, g.constant_bytes, g.peak_live_bytes, g.tensors) == (48, 48, 0, 48, 3)
    assert (g.transfers_in, g.bytes_in, g.transfers_out, g.bytes_out) == (2, 32, 1, 16)
    assert result.findings == ()


@pytest.mark.parametrize("name,device", [("device_mlp.pte", "cuda:0"), ("device_cuda1.pte", "cuda:1")])
def test_device_mlp_by_hand(name, device):
    plan = _fixture(name).plan("forward")
    result = analyze(plan)
    spans = _spans(result.lifetimes)
    # Input x (%3) is copied to the device at instructions 1 and 17, so it lives 0..17; the second
    # output %19 (written at 9) lives to the end; the device slots are reused four times each.
    assert spans[3] == (0, 17) and spans[19] == (9, 19) and spans[29] == (19, 19)
    cpu, dev = result.memory.arenas
    assert (cpu.size, cpu.peak_live_bytes, cpu.peak_at) == (160, 160, 5)  # %3 32 + %5 64 + %12 32 + %13 32
    assert (dev.size, str(dev.device), dev.peak_live_bytes, dev.peak_at) == (128, device, 96, 3)  # %9 %10 %11
    slots = {}
    for k in dev.blocks:
        slots.setdefault(k.offset, []).append((k.first, k.last))
    assert {o: len(v) for o, v in slots.items()} == {0: 4, 32: 3, 64: 3, 96: 1}
    for spans_at in slots.values():  # reuse only at disjoint times
        spans_at.sort()
        assert all(a[1] < b[0] for a, b in zip(spans_at, spans_at[1:]))
    totals = {(str(t.src_device), str(t.dst_device)): (t.count, t.nbytes) for t in result.transfer_totals}
    assert totals == {("cpu", device): (7, 224), (device, "cpu"): (4, 128)}
    d = {str(t.device): t for t in result.memory.devices}
    assert (d["cpu"].constant_bytes, d["cpu"].tensors, d[device].tensors) == (84, 14, 11)
    assert result.findings == ()


def test_memory_map_agrees_with_inspect_json():
    from explorer.jsonform.program import program_json

    for path in sorted(FIXTURES.glob("*.pte")):
        program = reader()(path)
        doc = program_json(program, path.name)
        for plan, pdoc in zip(program.plans, doc["plans"]):
            memory = analyze(plan).memory
            assert [(a.memory_id, a.size, str(a.device)) for a in memory.arenas] == [
                (b["memory_id"], b["size"], b["device"]) for b in pdoc["buffers"]]
            by_index = {v["index"]: v for v in pdoc["values"]}
            blocks = [k for a in memory.arenas for k in a.blocks]
            assert len(blocks) == sum(1 for v in pdoc["values"] if v.get("memory_id") is not None)
            for k in blocks:
                v = by_index[k.value]
                assert (k.memory_id, k.offset, k.nbytes, str(k.device)) == (
                    v["memory_id"], v["offset"], v["nbytes"], v["device"])


def test_mutable_state_buffers_live_for_the_whole_plan():
    plan = _fixture("mutable_state.pte").plan("forward")
    result = analyze(plan)
    end = len(plan.instructions) - 1
    names = {t.name: t.index for t in plan.tensors if t.name}
    assert _spans(result.lifetimes)[names["state"]] == (0, end)  # storage "mutable": initial state in the file
    assert _spans(result.lifetimes)[names["cache"]] == (0, end)  # read by index_put before copy_ writes it
    (arena,) = result.memory.arenas
    assert (arena.size, arena.peak_live_bytes, arena.peak_at, arena.high_water) == (240, 208, 3, 240)
    assert result.findings == ()


# -- views (aliases) -------------------------------------------------------------------------------------

def _view_plan(reuse_while_view_alive: bool):
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor((3,), arena=1, offset=0)
    view = b.tensor((1, 3), arena=1, offset=0)  # same bytes and dtype as x, written by nobody
    other = b.tensor((3,), arena=1, offset=0 if reuse_while_view_alive else 16)
    out = b.tensor((1, 3), arena=1, offset=32)
    b.kernel("aten::relu.out", x, other, other)          # 0: last use of x itself
    b.kernel("aten::add.out", view, other, b.scalar(1), out, out)  # 1: the view keeps x's bytes alive
    b.inputs(x)
    b.outputs(out)
    return b, x, view, other


def test_a_view_shares_its_base_bytes_and_extends_its_lifetime():
    b, x, view, other = _view_plan(False)
    result = analyze(b.build())
    assert result.aliases == {view: x}
    spans = _spans(result.lifetimes)
    assert spans[x] == (0, 1) and spans[view] == (1, 1)  # base kept alive through the view's use
    blocks = {k.value: k for k in result.memory.arenas[0].blocks}
    assert blocks[view].alias_of == x and blocks[x].alias_of is None
    assert result.memory.arenas[0].peak_live_bytes == 36  # x (= view) 12 + other 12 + out 12
    assert result.memory.devices[0].planned_bytes == 36
    assert result.findings == ()


def test_reusing_a_base_while_its_view_is_alive_is_a_live_overlap():
    b, x, view, other = _view_plan(True)
    found = [f for f in analyze(b.build()).findings if f.code == "live-overlap"]
    assert [f.values for f in found] == [(x, other)]


def test_mutable_dedup_bug_fixture_view_is_an_alias():
    program = _fixture("mutable_dedup_bug.pte")
    result = analyze(program.plan("forward"), program)
    # %6 (float32[1,3]) is x (%3) unsqueezed by exir.memory.view: same arena bytes, no writer.
    assert result.aliases == {6: 3}
    spans = _spans(result.lifetimes)
    assert spans[3] == (0, 2) and spans[6] == (2, 2)
    assert [f.code for f in result.findings] == ["bad-reference"]  # the dangling mutable index, only
    assert analyze(program.plan("forward")).findings == ()  # without the program, indices into it go unchecked
