"""What the what-if tests share: a prediction compared with executorch's export of the same placement."""

from __future__ import annotations

import explorer


def same_program(predicted: explorer.Program, export: explorer.Program, *, ids: bool = True) -> None:
    """Equal value by value (device, storage, arena, offset, extra info), instruction by instruction and argument
    by argument, arena by arena with its device, inputs, outputs and the delegates' target devices. ``ids``:
    compare the delegates' backend ids too (not for regions made of moved kernels)."""
    assert [p.name for p in predicted.plans] == [p.name for p in export.plans]
    for a, b in zip(predicted.plans, export.plans):
        assert len(a.values) == len(b.values), a.name
        for x, y in zip(a.values, b.values):
            assert x.type == y.type, (a.name, x, y)
            if x.type == "Tensor":
                got = (x.sizes, x.scalar_type, x.device, x.storage, x.memory_id, x.offset, x.has_extra_info)
                want = (y.sizes, y.scalar_type, y.device, y.storage, y.memory_id, y.offset, y.has_extra_info)
                assert got == want, f"{a.name} %{x.index}"
            else:
                assert x.value == y.value, f"{a.name} %{x.index}"
        got = [(i.kind, i.op, i.args, i.delegate if ids else None) for i in a.instructions]
        want = [(i.kind, i.op, i.args, i.delegate if ids else None) for i in b.instructions]
        assert got == want, a.name
        assert a.buffer_sizes == b.buffer_sizes, a.name
        assert [(x.memory_id, x.device) for x in a.buffers] == [(x.memory_id, x.device) for x in b.buffers]
        assert (a.inputs, a.outputs) == (b.inputs, b.outputs), a.name
        assert [d.target_device for d in a.delegates] == [d.target_device for d in b.delegates]
