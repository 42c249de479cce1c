"""Per-plan numpy facts every analysis step shares: value columns, device codes, arena devices.

A loaded plan carries the decoder's columns (:mod:`explorer.model.columns`), so a 100k-value program can be
checked without building 100k frozen ``Tensor`` objects; a hand-built plan gets columns derived from
its objects. Model objects are touched only for the few values a message names, and for list values
(whose items live only in the objects).

Devices become integer codes (``type * 1024 + index + 512``) so comparisons and grouping are
vectorised; :meth:`Facts.device` turns a code back into the shared :class:`Device`.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from explorer.analysis.arrays import isin
from explorer.analysis.ops import COPY_OPS
from explorer.model.columns import INSTRUCTION_CODES, KIND_CODES, STORAGE_CODES, instruction_columns, value_columns
from explorer.model.devices import code_device
from explorer.model.devices import device_code as _device_code
from explorer.model.program import DEVICE_TYPES, Device, Plan

__all__ = ["Facts", "STORAGE", "KIND", "LIST_KINDS", "device_code"]

STORAGE = STORAGE_CODES  # constant 1, planned 2, mutable 3, runtime 4, external 5 (0: not a tensor)
KIND = KIND_CODES  # the value kind codes of the columns (model/columns.py)
LIST_KINDS = (7, 10, 11)  # lists whose items are value indices
INSTR = INSTRUCTION_CODES  # the instruction kind codes of the columns (model/columns.py)


def device_code(device: Device) -> int:
    return device.code


class Facts:
    """Arrays about one plan, computed on first use and kept."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        vc = value_columns(plan)
        self.ic = instruction_columns(plan)
        self.n = n = len(vc.kind)
        self.m = len(self.ic.kind)
        self._devices: dict[int, Device] = {}
        self.kind = vc.kind
        # Tensor columns may stop at the last tensor (the decoder's); pad them to one row per value.
        self.scalar_type = _pad(vc.scalar_type, n, -1)
        self.memory_id = _pad(vc.memory_id, n, -1).astype(np.int64, copy=False)
        self.offset = _pad(vc.offset, n, -1).astype(np.int64, copy=False)
        self.raw_nbytes = _pad(vc.nbytes, n, -1).astype(np.int64, copy=False)  # -1: non-tensor or unknown dtype
        self.storage = _pad(vc.storage, n, 0)
        self.data_buffer_idx = _pad(vc.data_buffer_idx, n, 0).astype(np.int64, copy=False)
        self.device_type = _pad(vc.device_type, n, 0).astype(np.int64, copy=False)
        self.device_index = _pad(vc.device_index, n, 0).astype(np.int64, copy=False)

    @cached_property
    def is_tensor(self) -> np.ndarray:
        return self.kind == 5

    @cached_property
    def nbytes(self) -> np.ndarray:
        """Bytes per value: 0 for non-tensors, unknown dtypes and negative sizes."""
        return np.maximum(self.raw_nbytes, 0)

    @cached_property
    def dcode(self) -> np.ndarray:
        return _device_code(self.device_type, self.device_index)

    @cached_property
    def planned(self) -> np.ndarray:
        """Tensors with allocation_info (any memory_id, even one pointing nowhere)."""
        return self.is_tensor & (self.memory_id >= 0)

    @cached_property
    def input_mask(self) -> np.ndarray:
        mask = np.zeros(self.n, dtype=bool)
        idx = np.asarray([i for i in self.plan.inputs if 0 <= i < self.n], dtype=np.int64)
        mask[idx] = True
        return mask

    @cached_property
    def arena_code(self) -> np.ndarray:
        """Device code per memory_id (index 0 unused)."""
        codes = np.full(len(self.plan.buffer_sizes), device_code(Device(0, 0)), dtype=np.int64)
        for memory_id, device in self.plan.listed_devices.items():  # the rest are on the CPU: never walked
            codes[memory_id] = device_code(device)
        return codes

    @cached_property
    def arena_size(self) -> np.ndarray:
        return np.asarray(self.plan.buffer_sizes, dtype=np.int64)

    @cached_property
    def known_device(self) -> np.ndarray:
        return isin(self.device_type, list(DEVICE_TYPES))

    def device(self, code: int) -> Device:
        dev = self._devices.get(code)
        if dev is None:
            dev = self._devices[code] = Device(*code_device(code))
        return dev

    def value_device(self, v: int) -> Device:
        return self.device(int(self.dcode[v]))

    def label(self, i: int) -> str:
        """What an instruction is called (as ``Instruction.label``) without building the Instruction."""
        kind, target = int(self.ic.kind[i]), int(self.ic.target[i])
        if kind == 1:
            ops = self.plan.operators
            return ops[target].full_name if 0 <= target < len(ops) else f"<operator {target}>"
        if kind == 2:
            dels = self.plan.delegates
            return dels[target].id if 0 <= target < len(dels) else f"<delegate {target}>"
        return next((name for name, code in INSTR.items() if code == kind), "None")

    @cached_property
    def copy_ops(self) -> np.ndarray:
        """Operator indices of explicit device copies (see ops.COPY_OPS)."""
        return np.asarray([k for k, op in enumerate(self.plan.operators) if op.name in COPY_OPS], dtype=np.int64)

    @cached_property
    def is_copy(self) -> np.ndarray:
        """Per instruction: a KernelCall of a copy op."""
        return (self.ic.kind == 1) & isin(self.ic.target, self.copy_ops)


def _pad(column: np.ndarray, n: int, fill) -> np.ndarray:
    if len(column) >= n:
        return column[:n]
    out = np.full(n, fill, dtype=column.dtype)
    out[:len(column)] = column
    return out
