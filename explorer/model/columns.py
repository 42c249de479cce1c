"""Columnar twins of ``Plan.values`` and ``Plan.instructions``, and the lazy sequences over them.

A 100k-value program would need ~0.4 s just to construct its frozen ``Tensor`` objects on these
machines, more than the whole load + check budget. So the decoder produces numpy columns, the
analysis reads the columns, and the frozen objects of the public model are built only when someone
indexes or iterates ``Plan.values`` / ``Plan.instructions`` (then cached). Hand-built plans (tests,
the writer's inputs) have no columns; :func:`value_columns` / :func:`instruction_columns` derive them
from the objects, so every consumer can rely on columns existing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Generic, Iterator, TypeVar

import numpy as np

from explorer.model.program import DTYPES, Instruction, Plan, Tensor

__all__ = ["LazySeq", "ValueColumns", "InstructionColumns", "value_columns", "instruction_columns", "tensor_text",
           "STORAGE_CODES", "KIND_CODES", "INSTRUCTION_CODES", "ITEMSIZE", "OFFSET_SATURATED"]

T = TypeVar("T")

STORAGE_CODES = {"constant": 1, "planned": 2, "mutable": 3, "runtime": 4, "external": 5}  # 0: not a tensor
# EValue kind name -> the code of a value's ``kind`` column (0: no value)
KIND_CODES = {"None": 0, "Null": 1, "Int": 2, "Bool": 3, "Double": 4, "Tensor": 5, "String": 6, "IntList": 7,
              "DoubleList": 8, "BoolList": 9, "TensorList": 10, "OptionalTensorList": 11}
INSTRUCTION_CODES = {"None": 0, "KernelCall": 1, "DelegateCall": 2, "MoveCall": 3, "JumpFalseCall": 4,
                     "FreeCall": 5}
OFFSET_SATURATED = np.iinfo(np.int64).max  # offset column value for offsets an int64 can't hold (Tensor.offset is exact)
ITEMSIZE = np.full(256, -1, dtype=np.int64)  # ScalarType byte (as uint8) -> bytes per element, -1 unknown
for _code, (_name, _size) in DTYPES.items():
    ITEMSIZE[_code] = _size


class LazySeq(Sequence, Generic[T]):
    """An immutable sequence whose items are made on first access and then kept.

    Compares equal to any sequence with equal items (a tuple included), so code written against
    tuples keeps working.
    """

    __slots__ = ("_make", "_items", "_len")

    def __init__(self, length: int, make: Callable[[int], T]) -> None:
        self._len = length
        self._make = make
        self._items: list | None = None  # made on the first access: a check of 2.4M values reads none

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._len)))
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("index out of range")
        items = self._items
        if items is None:
            items = self._items = [None] * self._len
        item = items[index]
        if item is None:
            item = items[index] = self._make(index)
        return item

    def __iter__(self) -> Iterator[T]:
        # the items list itself, not self[i]: __getitem__'s slice, sign and bounds checks were most of a walk over a
        # plan's values (a what-if walks the original's ~40k times a move)
        items, make = self._items, self._make
        if items is None:
            items = self._items = [None] * self._len
        for i in range(self._len):
            item = items[i]
            if item is None:
                item = items[i] = make(i)
            yield item

    def __eq__(self, other) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == self._len and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"LazySeq({list(self)!r})" if self._len <= 8 else f"LazySeq(<{self._len} items>)"


@dataclass(frozen=True, eq=False)
class ValueColumns:
    """One row per value of a plan; tensor columns hold -1 / 0 for non-tensors."""

    kind: np.ndarray  # uint8 KernelTypes tag (5 = Tensor)
    scalar_type: np.ndarray  # int16 ScalarType byte, -1 for non-tensors
    device_type: np.ndarray  # int16
    device_index: np.ndarray  # int16
    memory_id: np.ndarray  # int64, -1 when not planned
    offset: np.ndarray  # int64, -1 when not planned; OFFSET_SATURATED for a (hostile) uint64 offset >= 2**63
    nbytes: np.ndarray  # int64, -1 for non-tensors and unknown dtypes
    storage: np.ndarray  # uint8 STORAGE_CODES, 0 for non-tensors
    data_buffer_idx: np.ndarray  # int64
    # (tensor value indices) -> (names or None, shapes): the decoder reads them without making objects
    text: Callable[[np.ndarray], tuple[list, list]] | None = None
    # (tensor value indices) -> tensor_layout's answer: the details' layout rows, also without objects
    layout: Callable[[np.ndarray], tuple] | None = None
    # int64 byte position of each value's EValue table (the decoder's; None for hand-built plans): equal positions
    # are one table the file lists again, written once by the JSON form (jsonform/program.py listed_values)
    table: np.ndarray | None = None

    @property
    def is_tensor(self) -> np.ndarray:
        return self.kind == 5


@dataclass(frozen=True, eq=False)
class InstructionColumns:
    """One row per instruction (run order); ``args`` of row i are ``args[starts[i]:starts[i+1]]``.

    For every kind, ``args`` holds the value indices the instruction names (Move: from, to; Jump:
    cond; Free: value), so dataflow code needs no per-kind cases to find them.
    """

    kind: np.ndarray  # uint8 INSTRUCTION_CODES
    target: np.ndarray  # int64 op_index (Kernel) / delegate_index (Delegate) / destination (Jump); -1 otherwise
    starts: np.ndarray  # int64, len n + 1
    args: np.ndarray  # int64 value indices, flat
    traces: Sequence | None = None  # per instruction its stacktrace frames (None: not kept), as decoded


def value_columns(plan: Plan) -> ValueColumns:
    """The plan's value columns: the decoder's when it made them, else derived from the objects."""
    cols = getattr(plan, "_columns", None)
    if cols is not None and cols[0] is not None:
        return cols[0]
    derived = plan.__dict__.get("_derived_values")  # made once per plan (a prediction's: no decoder columns)
    if derived is not None:
        return derived
    values = plan.values
    n = len(values)
    kind = np.zeros(n, np.uint8)
    st, dt, di = np.full(n, -1, np.int16), np.zeros(n, np.int16), np.zeros(n, np.int16)
    mem, off, nb = np.full(n, -1, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    storage, dbi = np.zeros(n, np.uint8), np.zeros(n, np.int64)
    kinds = KIND_CODES
    for i, v in enumerate(values):
        kind[i] = kinds.get(v.type, 0)
        if isinstance(v, Tensor):
            st[i], dt[i], di[i] = v.scalar_type, v.device.type, v.device.index
            if v.memory_id is not None:
                mem[i], off[i] = v.memory_id, min(v.offset, OFFSET_SATURATED) if v.offset is not None else 0
            nb[i] = v.nbytes if v.nbytes is not None else -1
            storage[i], dbi[i] = STORAGE_CODES.get(v.storage, 0), v.data_buffer_idx
    out = ValueColumns(kind, st, dt, di, mem, off, nb, storage, dbi)
    if isinstance(values, tuple):  # frozen values in a tuple never change: kept, as a cached_property would be
        plan.__dict__["_derived_values"] = out
    return out


def tensor_text(plan: Plan, values) -> tuple[list, list]:
    """Names (None when unnamed) and shapes of the tensors at ``values``, from the decoder's columns when
    it made them (no Tensor objects), else from the objects."""
    text = value_columns(plan).text
    if text is not None:
        return text(np.asarray(values, dtype=np.int64))
    objs = [plan.values[v] for v in values]
    return [t.name or None for t in objs], [t.sizes for t in objs]


def tensor_layout(plan: Plan, values) -> tuple:
    """Dim orders and shape dynamism of the tensors at ``values``, each as (an index per tensor, the distinct
    items): ``(dim_index, dim_orders, dyn_index, dynamisms)``, from the decoder's columns when it made them
    (no Tensor objects), else from the objects."""
    layout = value_columns(plan).layout
    if layout is not None:
        return layout(np.asarray(values, dtype=np.int64))
    objs = [plan.values[v] for v in values]
    dims: dict[tuple, int] = {}
    dyns: dict[str, int] = {}
    dim_index = np.asarray([dims.setdefault(t.dim_order, len(dims)) for t in objs], dtype=np.int64)
    dyn_index = np.asarray([dyns.setdefault(t.shape_dynamism, len(dyns)) for t in objs], dtype=np.int64)
    return dim_index, list(dims), dyn_index, list(dyns)


def instruction_traces(plan: Plan) -> Sequence:
    """Per instruction its stacktrace frames or None, from the decoder's columns when it kept them."""
    traces = instruction_columns(plan).traces
    return traces if traces is not None else [i.stacktrace for i in plan.instructions]


def instruction_columns(plan: Plan) -> InstructionColumns:
    cols = getattr(plan, "_columns", None)
    if cols is not None and cols[1] is not None:
        return cols[1]
    derived = plan.__dict__.get("_derived_instructions")
    if derived is not None:
        return derived
    ins: Sequence[Instruction] = plan.instructions
    n = len(ins)
    kind, target = np.zeros(n, np.uint8), np.full(n, -1, np.int64)
    lengths = np.zeros(n + 1, np.int64)
    flat: list[int] = []
    for k, i in enumerate(ins):
        kind[k] = INSTRUCTION_CODES.get(str(i.kind), 0)
        t = i.op_index if i.kind == "KernelCall" else i.delegate_index if i.kind == "DelegateCall" else \
            i.destination if i.kind == "JumpFalseCall" else None
        if t is not None:
            target[k] = t
        vals = [-1 if v is None else v for v in i.values]  # a hand-built call may leave an index unset
        flat.extend(vals)
        lengths[k + 1] = len(vals)
    out = InstructionColumns(kind, target, np.cumsum(lengths), np.asarray(flat, dtype=np.int64))
    if isinstance(ins, tuple):
        plan.__dict__["_derived_instructions"] = out
    return out
