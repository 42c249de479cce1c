"""A reference view of a ``.pte`` file built only from ExecuTorch's own reader.

``executorch_view(path)`` returns a dict in the JSON shape of ``device-explorer inspect FILE --json``
(README, "JSON"), so the cross-check test can compare our reader with executorch field for field. It
must not share code with ``explorer``: the point is two independent readings of the same bytes.

What it uses from executorch (1.5.1):

* ``executorch.exir._serialize._program.deserialize_pte_binary`` - the full reader. It parses the
  flatbuffer into the dataclasses of ``executorch.exir.schema`` and then *folds the segments back
  inline*: constants move into ``program.constant_buffer``, delegate blobs into
  ``program.backend_delegate_data`` (every ``processed.location`` becomes INLINE),
  ``mutable_data_segments`` into ``PTEFile.mutable_data``, and it clears ``program.segments``,
  ``program.constant_segment.offsets``, ``program.mutable_data_segments`` and
  ``program.named_data``. None of that touches the execution plans (values, instructions,
  operators, delegate ids and compile specs, buffer sizes/devices stay exactly as stored), so the
  plans are read from it.
* Because the fold-back erases the segment table, the top-level ``segments`` list is read from the
  same parser *before* restoration: ``_get_extended_header`` + ``_flatbuffer_to_program`` on the
  flatbuffer part (``program_size`` bytes), which is exactly what ``deserialize_pte_binary`` does
  first. Without a valid ``eh00`` header the whole file is the flatbuffer and the segments are
  listed as stored (normally none).

What executorch's reader cannot tell us (and so this view does not claim):

* Schema defaults are applied by the generated ``*T`` classes: a missing ``device_index`` reads as
  0, a missing ``location`` as SEGMENT, a missing ``mutable_data_segments_idx`` as 0. Absent vs.
  default-valued fields cannot be told apart (our reader doesn't need to either).
* An absent ``extra_tensor_info`` table is ``None`` (-> device "cpu"), an absent
  ``non_const_buffer_device`` vector is ``None`` (-> all arenas "cpu"); an *empty* vector may also
  come back as ``[]`` or ``None`` - both mean all-CPU, so that difference is not observable here.
* ``data_buffer_idx`` alone does not say which table it indexes (``constant_segment`` for a
  constant, ``mutable_data_segments[0]`` for a mutable buffer with initial state); the storage
  class below is derived from ``data_buffer_idx``/``allocation_info``/``location`` exactly as in
  docs/format.md's table, not from the restored tables.
* Device types outside executorch's ``DeviceType`` IntEnum (CPU 0, CUDA 1) would fail inside
  executorch's reader before we see them; such files can't be cross-checked with it.
* ``Double`` EValues of +/-inf come back as the strings "inf"/"-inf" (executorch's dataclass
  convention); they are turned back into floats here.

Importing this module never imports executorch (or torch); ``executorch_view`` imports lazily.
"""

from __future__ import annotations

import math
import os
from typing import Any

__all__ = ["executorch_view", "JSON_FORMAT"]

JSON_FORMAT = "device-explorer/1"

# executorch ScalarType *names* (exir/scalar_type.py) -> torch-style dtype names. Keyed by name on
# purpose, so this table is independent of the byte values our reader hard-codes.
_TORCH_DTYPE_BY_SCALAR_TYPE_NAME = {
    "BYTE": "uint8", "CHAR": "int8", "SHORT": "int16", "INT": "int32", "LONG": "int64",
    "HALF": "float16", "FLOAT": "float32", "DOUBLE": "float64", "BOOL": "bool",
    "QINT8": "qint8", "QUINT8": "quint8", "QINT32": "qint32", "BFLOAT16": "bfloat16",
    "QUINT4X2": "quint4x2", "QUINT2X4": "quint2x4", "BITS16": "bits16",
    "FLOAT8E5M2": "float8_e5m2", "FLOAT8E4M3FN": "float8_e4m3fn",
    "FLOAT8E5M2FNUZ": "float8_e5m2fnuz", "FLOAT8E4M3FNUZ": "float8_e4m3fnuz",
    "UINT16": "uint16", "UINT32": "uint32", "UINT64": "uint64",
}

_DEVICE_KIND = {0: "cpu", 1: "cuda"}


def _dtype_and_itemsize(scalar_type: Any) -> tuple[str, int | None]:
    """(torch-style name, bytes per element); itemsize is taken from torch itself."""
    name = getattr(scalar_type, "name", None)
    dtype = _TORCH_DTYPE_BY_SCALAR_TYPE_NAME.get(name) if name else None
    if dtype is None:
        return f"unknown({int(scalar_type)})", None
    import torch  # executorch depends on torch, so it is there whenever executorch is

    torch_dtype = getattr(torch, dtype, None)
    if torch_dtype is None:
        return dtype, None
    try:
        itemsize = torch.empty((), dtype=torch_dtype).element_size()
    except Exception:  # some exotic dtypes can't be materialised; fall back to the dtype object
        itemsize = getattr(torch_dtype, "itemsize", None)
    return dtype, itemsize


def _device(device_type: Any, device_index: Any) -> str:
    """PyTorch-style device string: "cpu", "cuda:0", "cuda:1"; unknown types as "unknown(N):i"."""
    code = int(device_type)
    index = int(device_index)
    kind = _DEVICE_KIND.get(code, f"unknown({code})")
    if code == 0 and index == 0:
        return "cpu"
    return f"{kind}:{index}"


def _spec_text(value: bytes) -> str:
    """Compile-spec value as UTF-8 text when printable, else lowercase hex (the JSON form's rule)."""
    value = bytes(value)
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        return value.hex()
    return text if text.isprintable() else value.hex()


def _double(x: Any) -> float:
    return float(x)  # also turns executorch's "inf"/"-inf" strings back into floats


def _scalar_value(val: Any) -> Any:
    kind = type(val).__name__
    if kind == "Null":
        return None
    if kind == "Int":
        return int(val.int_val)
    if kind == "Bool":
        return bool(val.bool_val)
    if kind == "Double":
        return _double(val.double_val)
    if kind == "String":
        return val.string_val
    if kind in ("IntList", "TensorList", "OptionalTensorList"):
        return [int(i) for i in val.items]
    if kind == "DoubleList":
        return [_double(i) for i in val.items]
    if kind == "BoolList":
        return [bool(i) for i in val.items]
    raise TypeError(f"unexpected EValue kind {kind}")


def _tensor_view(index: int, t: Any) -> dict:
    from executorch.exir.schema import TensorDataLocation

    dtype, itemsize = _dtype_and_itemsize(t.scalar_type)
    sizes = [int(s) for s in t.sizes]
    numel = math.prod(sizes)  # prod([]) == 1: a 0-d tensor holds one element
    info = t.extra_tensor_info  # None when the table is absent
    alloc = t.allocation_info  # None when the table is absent

    if info is None:
        device = "cpu"  # docs/format.md: absent extra_tensor_info = CPU:0
    else:
        device = _device(info.device_type, info.device_index)

    if alloc is not None:
        memory_id: int | None = int(alloc.memory_id)
        offset: int | None = int(alloc.memory_offset_low) | (int(alloc.memory_offset_high) << 32)
    else:
        memory_id = offset = None

    # docs/format.md's table; EXTERNAL first, because an external tensor's data_buffer_idx indexes the
    # external constant table (it can legitimately be 0) and it is never planned.
    if info is not None and int(info.location) == int(TensorDataLocation.EXTERNAL):
        storage = "external"
    elif t.data_buffer_idx > 0 and alloc is not None:
        storage = "mutable"
    elif t.data_buffer_idx > 0:
        storage = "constant"
    elif alloc is not None:
        storage = "planned"
    else:
        storage = "runtime"

    out = {
        "index": index,
        "type": "Tensor",
        "dtype": dtype,
        "sizes": sizes,
        "device": device,
        "memory_id": memory_id,
        "offset": offset,
        "nbytes": None if itemsize is None else numel * itemsize,
        "storage": storage,
    }
    if info is not None and info.fully_qualified_name is not None:
        out["name"] = info.fully_qualified_name
    return out


def _value_view(index: int, evalue: Any) -> dict:
    val = evalue.val
    if val is None:  # union tag NONE
        return {"index": index, "type": None, "value": None}
    kind = type(val).__name__
    if kind == "Tensor":
        return _tensor_view(index, val)
    return {"index": index, "type": kind, "value": _scalar_value(val)}


def _instruction_view(index: int, instr: Any, plan: Any) -> dict:
    args = instr.instr_args
    kind = type(args).__name__ if args is not None else None
    out: dict[str, Any] = {"index": index, "kind": kind}
    if kind == "KernelCall":
        op = None
        if 0 <= args.op_index < len(plan.operators):
            operator = plan.operators[args.op_index]
            op = f"{operator.name}.{operator.overload}" if operator.overload else operator.name
        out["op"] = op
        out["args"] = [int(a) for a in args.args]
    elif kind == "DelegateCall":
        delegate = None
        if 0 <= args.delegate_index < len(plan.delegates):
            delegate = plan.delegates[args.delegate_index].id
        out["delegate"] = delegate
        out["args"] = [int(a) for a in args.args]
    elif kind == "MoveCall":
        out["move_from"] = int(args.move_from)
        out["move_to"] = int(args.move_to)
    elif kind == "JumpFalseCall":
        out["cond_value_index"] = int(args.cond_value_index)
        out["destination_instruction"] = int(args.destination_instruction)
    elif kind == "FreeCall":
        out["value_index"] = int(args.value_index)
    return out


def _plan_view(plan: Any) -> dict:
    sizes = [int(s) for s in plan.non_const_buffer_sizes]
    # Sparse list; buffer_idx uses memory_id numbering (0 reserved). Unlisted arenas are CPU.
    devices = {}
    for entry in plan.non_const_buffer_device or []:
        devices[int(entry.buffer_idx)] = _device(entry.device_type, entry.device_index)
    buffers = [
        {"memory_id": memory_id, "size": size, "device": devices.get(memory_id, "cpu")}
        for memory_id, size in enumerate(sizes)
        if memory_id >= 1
    ]
    instructions = []
    for chain in plan.chains:
        for instr in chain.instructions:
            instructions.append(_instruction_view(len(instructions), instr, plan))
    delegates = [
        {"id": d.id, "compile_specs": {spec.key: _spec_text(spec.value) for spec in d.compile_specs}}
        for d in plan.delegates
    ]
    return {
        "name": plan.name,
        "inputs": [int(i) for i in plan.inputs],
        "outputs": [int(i) for i in plan.outputs],
        "buffers": buffers,
        "values": [_value_view(i, v) for i, v in enumerate(plan.values)],
        "instructions": instructions,
        "delegates": delegates,
    }


def executorch_view(path: str | os.PathLike) -> dict:
    """The inspect-JSON view of ``path``, computed with executorch's reader only."""
    from executorch.exir._serialize._flatbuffer_program import _flatbuffer_to_program
    from executorch.exir._serialize._program import _get_extended_header, deserialize_pte_binary

    with open(path, "rb") as f:
        data = f.read()

    # Segment table as stored (deserialize_pte_binary clears it after folding segments back).
    header = _get_extended_header(data)
    program_size = header.program_size if header is not None and header.is_valid() else len(data)
    raw = _flatbuffer_to_program(data[:program_size])
    segments = [{"offset": int(s.offset), "size": int(s.size)} for s in raw.segments or []]

    program = deserialize_pte_binary(data).program
    return {
        "format": JSON_FORMAT,
        "file": os.path.basename(os.fspath(path)),
        "size": len(data),
        "segments": segments,
        "plans": [_plan_view(plan) for plan in program.execution_plan],
    }


if __name__ == "__main__":  # python tests/reference.py FILE.pte  -> the view as JSON
    import json
    import sys

    for arg in sys.argv[1:]:
        print(json.dumps(executorch_view(arg), indent=1))
