"""Synthetic, *valid* programs of any size, for scale tests, benchmarks and edge cases.

The shape imitates a device-partitioned export: a long chain of CPU kernels whose every
``device_every``-th step is offloaded -- ``_h2d_copy``, a device-targeted delegate call on the
device, ``_d2h_copy`` back -- with weights as constants in segment 0. Planned tensors are placed in
per-device arenas by a ring of slots sized so that no two live tensors overlap, so every placement
check stays silent on the result when ``device_every >= 2`` (tests rely on that: a finding there is a
bug in a check). With ``device_every=1`` each device result is copied to the host only to go straight
back to a device: a genuine ``round-trip`` warning.
"""

from __future__ import annotations

from explorer.model.program import (CPU, BufferDevice, Chain, CompileSpec, Delegate, Device, Instruction, Operator,
    Plan, Program, SubsegmentOffsets, Tensor, Value)
from writers.pte import layout_segments

__all__ = ["synthetic_program"]

_FLOAT = 6
_RING = 4  # slots per arena; a chain value dies one step after it is made, so 4 never collide


def synthetic_program(values: int = 1000, *, devices: tuple[str, ...] = ("cuda:0",), device_every: int = 4,
                      width: int = 8, plans: int = 1, constant_segment_size: int | None = None,
                      names: bool = True) -> Program:
    """A program with about ``values`` values per plan (tensors, ints, int lists)."""
    dev_list = [Device.parse(d) for d in devices]
    built = [_plan(f"forward{'' if p == 0 else p}", values, dev_list, device_every, width, names)
             for p in range(plans)]
    n_const = max(len(c) for _, c in built)
    weight_bytes = width * width * 4
    offsets = tuple(i * weight_bytes for i in range(n_const + 1))
    seg_size = constant_segment_size if constant_segment_size is not None else (n_const + 1) * weight_bytes
    return Program(version=0, plans=tuple(p for p, _ in built), segments=layout_segments([seg_size]),
                   constant_segment=SubsegmentOffsets(0, offsets), delegate_data_sizes=(16,))


def _plan(name: str, target: int, devs: list[Device], every: int, width: int, names: bool):
    values: list = []
    instructions: list[Instruction] = []
    consts: list[int] = []
    ops = [Operator("aten::linear", "out"), Operator("aten::relu", "out"), Operator("aten::add", "out"),
           Operator("et_copy::_h2d_copy", "out"), Operator("et_copy::_d2h_copy", "out")]
    delegates = [Delegate(k, "DeviceBackend", "inline", 0, (CompileSpec("target_device", str(d).encode()),))
                 for k, d in enumerate(devs)]
    arena_of = {CPU: 1, **{d: k + 2 for k, d in enumerate(devs)}}
    nbytes = 2 * width * 4
    ring = dict.fromkeys(arena_of, 0)

    def planned(dev: Device) -> int:
        slot = ring[dev] % _RING
        ring[dev] += 1
        idx = len(values)
        values.append(Tensor(idx, _FLOAT, (2, width), (0, 1), dev, "planned", arena_of[dev], slot * nbytes,
                             name=f"{name}.act{idx}" if names else None, has_extra_info=not dev.is_cpu or names))
        return idx

    def kernel(op: int, args: tuple[int, ...]) -> None:
        instructions.append(Instruction(len(instructions), 0, "KernelCall", args, op_index=op, op=ops[op].full_name))

    x = planned(CPU)
    first = x
    alpha = len(values)
    values.append(Value(alpha, "Int", 1))
    step = 0
    while len(values) < target - 2:
        step += 1
        if devs and step % every == 0:
            dev = devs[(step // every) % len(devs)]
            y = planned(dev)
            kernel(3, (x, y, y))
            z = planned(dev)
            k = devs.index(dev)
            instructions.append(Instruction(len(instructions), 0, "DelegateCall", (y, z), delegate_index=k,
                                            delegate=delegates[k].id))
            x = planned(CPU)
            kernel(4, (z, x, x))
            continue
        w = len(values)
        consts.append(w)
        values.append(Tensor(w, _FLOAT, (width, width), (0, 1), CPU, "constant", data_buffer_idx=len(consts),
                             name=f"{name}.layer{step}.weight" if names else None, has_extra_info=names))
        y = planned(CPU)
        kernel(0, (x, w, y, y))
        if step % 3 == 0:
            z = planned(CPU)
            kernel(2, (y, y, alpha, z, z))
            y = z
        x = y
    sizes = (0, _RING * nbytes, *(_RING * nbytes for _ in devs))
    plan = Plan(name, tuple(values), (first,), (x,), (Chain(0, (first,), (x,), 0, len(instructions)),),
                tuple(instructions), tuple(ops), tuple(delegates), sizes,
                tuple(BufferDevice(arena_of[d], d) for d in devs))
    return plan, consts
