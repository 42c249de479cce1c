"""Concise builders of model Plans/Programs for the analysis tests, and access to the real fixtures.

    b = PlanBuilder(arenas=[(32, "cpu"), (48, "cuda:0")])
    x = b.tensor(arena=1, offset=0, name="x")          # float32[2,2], planned on cpu
    d = b.tensor(arena=2, offset=0, device="cuda:0")
    b.h2d(x, d)                                         # et_copy::_h2d_copy.out args [x, d, d]
    b.inputs(x); b.outputs(d)
    program = b.program()                               # a Program with segments/constants consistent

Values and instructions are numbered in creation order, so tests can name them by the returned
indices. ``roundtrip(program)`` is ``load(write(program))`` when the reader and writer exist.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from explorer.model.program import (Chain, CompileSpec, Delegate, Device, DTYPES, Instruction, Operator, Plan,
    Program, Segment, SubsegmentOffsets, Tensor, Value, BufferDevice)

FIXTURES = Path(__file__).parent / "fixtures"
_DTYPE_CODES = {name: code for code, (name, _) in DTYPES.items()}


def fixture_paths() -> list[Path]:
    return sorted(FIXTURES.glob("*.pte"))


def reader():
    """``explorer.load`` (kept as a function so tests read ``reader()(path)``)."""
    from explorer.format.reader import load
    return load


def roundtrip(program: Program) -> Program:
    """``load(write(program))``."""
    from explorer.format.reader import load
    from writers.pte import write
    return load(write(program))


class PlanBuilder:
    """Builds one Plan from short calls; see the module doc."""

    def __init__(self, name: str = "forward", arenas: list[tuple[int, str]] | None = None,
                 buffer_devices: list[tuple[int, str]] | None = None) -> None:
        self.name = name
        self.values: list = []
        self.instructions: list[Instruction] = []
        self.operators: list[Operator] = []
        self.delegates: list[Delegate] = []
        self._inputs: tuple[int, ...] = ()
        self._outputs: tuple[int, ...] = ()
        arenas = arenas or []
        self.buffer_sizes = (0, *(size for size, _ in arenas))
        if buffer_devices is not None:
            self.buffer_devices = tuple(BufferDevice(i, Device.parse(d)) for i, d in buffer_devices)
        else:
            self.buffer_devices = tuple(BufferDevice(i, Device.parse(dev))
                                        for i, (_, dev) in enumerate(arenas, start=1) if dev != "cpu")
        self.constants = 0  # constant_segment entries used (data_buffer_idx 1..)

    # -- values ---------------------------------------------------------------------------------
    def tensor(self, shape=(2, 2), dtype: str = "float32", *, device: str = "cpu", arena: int | None = None,
               offset: int = 0, name: str | None = None, storage: str | None = None,
               data_buffer_idx: int = 0, scalar_type: int | None = None, mutable_segment: int | None = None) -> int:
        """A tensor; planned when ``arena`` is given (``storage`` defaults accordingly)."""
        index = len(self.values)
        if storage is None:
            storage = ("mutable" if data_buffer_idx else "planned") if arena is not None else \
                ("constant" if data_buffer_idx else "runtime")
        dev = Device.parse(device)
        self.values.append(Tensor(
            index=index, scalar_type=_DTYPE_CODES[dtype] if scalar_type is None else scalar_type,
            sizes=tuple(shape), dim_order=tuple(range(len(shape))), device=dev, storage=storage,
            memory_id=arena, offset=offset if arena is not None else None, data_buffer_idx=data_buffer_idx,
            name=name, mutable_data_segments_idx=mutable_segment,
            has_extra_info=bool(name) or not dev.is_cpu or mutable_segment is not None))
        return index

    def constant(self, shape=(2, 2), dtype: str = "float32", *, device: str = "cpu", name: str | None = None) -> int:
        self.constants += 1
        return self.tensor(shape, dtype, device=device, name=name, data_buffer_idx=self.constants)

    def scalar(self, value=1, type: str = "Int") -> int:
        self.values.append(Value(len(self.values), type, value))
        return len(self.values) - 1

    def null(self) -> int:
        return self.scalar(None, "Null")

    def tensor_list(self, items, optional: bool = False) -> int:
        return self.scalar(tuple(items), "OptionalTensorList" if optional else "TensorList")

    # -- instructions -----------------------------------------------------------------------------
    def kernel(self, op: str, *args: int) -> int:
        name, _, overload = op.partition(".")
        operator = Operator(name, overload)
        if operator not in self.operators:
            self.operators.append(operator)
        k = self.operators.index(operator)
        return self._add(Instruction(len(self.instructions), 0, "KernelCall", tuple(args), op_index=k,
                                     op=operator.full_name))

    def h2d(self, src: int, dst: int) -> int:
        return self.kernel("et_copy::_h2d_copy.out", src, dst, dst)

    def d2h(self, src: int, dst: int) -> int:
        return self.kernel("et_copy::_d2h_copy.out", src, dst, dst)

    def delegate(self, backend: str, *args: int, target_device: str | None = None) -> int:
        specs = (CompileSpec("target_device", target_device.encode()),) if target_device else ()
        key = next((d.index for d in self.delegates if d.id == backend and d.compile_specs == specs), None)
        if key is None:
            key = len(self.delegates)
            self.delegates.append(Delegate(key, backend, "inline", key, specs, 8))
        return self._add(Instruction(len(self.instructions), 0, "DelegateCall", tuple(args), delegate_index=key,
                                     delegate=backend))

    def move(self, src: int, dst: int) -> int:
        return self._add(Instruction(len(self.instructions), 0, "MoveCall", move_from=src, move_to=dst))

    def jump(self, cond: int, destination: int) -> int:
        return self._add(Instruction(len(self.instructions), 0, "JumpFalseCall", cond_value_index=cond,
                                     destination=destination))

    def free(self, value: int) -> int:
        return self._add(Instruction(len(self.instructions), 0, "FreeCall", value_index=value))

    def raw(self, instruction: Instruction) -> int:
        """An instruction exactly as given (its index is replaced), for dangling references."""
        from dataclasses import replace
        return self._add(replace(instruction, index=len(self.instructions), chain=0))

    def _add(self, instr: Instruction) -> int:
        self.instructions.append(instr)
        return instr.index

    # -- plan / program ---------------------------------------------------------------------------
    def inputs(self, *values: int) -> None:
        self._inputs = tuple(values)

    def outputs(self, *values: int) -> None:
        self._outputs = tuple(values)

    def build(self) -> Plan:
        n = len(self.instructions)
        return Plan(name=self.name, values=tuple(self.values), inputs=self._inputs, outputs=self._outputs,
                    chains=(Chain(0, self._inputs, self._outputs, 0, n),), instructions=tuple(self.instructions),
                    operators=tuple(self.operators), delegates=tuple(self.delegates),
                    buffer_sizes=self.buffer_sizes, buffer_devices=self.buffer_devices)

    def program(self, *others: "PlanBuilder", **overrides) -> Program:
        return make_program(self, *others, **overrides)


def make_program(*builders: PlanBuilder, **overrides) -> Program:
    """A Program around the builders' plans, with a constant segment big enough for their constants
    and one inline delegate blob per delegate index used."""
    plans = tuple(b.build() for b in builders)
    n_const = max((b.constants for b in builders), default=0)
    n_del = max((len(b.delegates) for b in builders), default=0)
    const_bytes = 0
    for b in builders:
        for v in b.values:
            if isinstance(v, Tensor) and v.storage == "constant":
                const_bytes += v.nbytes or 0
    fields = dict(
        version=0, plans=plans,
        segments=(Segment(0, 0, max(const_bytes, 1)),) if n_const else (),
        constant_segment=SubsegmentOffsets(0, tuple(range(n_const + 1))) if n_const else SubsegmentOffsets(0, ()),
        delegate_data_sizes=(8,) * n_del,
    )
    fields.update(overrides)
    return Program(**fields)


def nbytes(shape, dtype: str = "float32") -> int:
    return math.prod(shape) * DTYPES[_DTYPE_CODES[dtype]][1]
