"""The public, stable vocabulary: what a ``.pte`` program *is*, as frozen dataclasses.

Everything above the ``format`` layer (analysis, views, widget, CLI) sees only these types, never
the flatbuffer schema. Fields are plain Python values so results can be compared, hashed, pickled
and turned into JSON without knowing how the bytes were laid out. Each field's comment gives its
meaning; ``(optional)`` marks fields that are ``None`` when the file does not say.

Indices are kept exactly as stored even when they point nowhere (a dangling operator, delegate,
memory or segment index): this is a debugging tool, and such a program is exactly what its user
needs to see. The analysis layer reports them as ``bad-reference`` findings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, Union
from explorer.errors import PteFormatError
from explorer.model import devices as _devices
from explorer.model.dtypes import DTYPES, dtype_itemsize, dtype_name

from explorer.model.companions import (Bundle, DataEntry, DataFile, DataHeader, DelegateGraph, GraphNode, GraphValue,
    MethodTestSuite, Payload, TestCase, TestValue)

if TYPE_CHECKING:
    from explorer.model.etrecord import ProgramContext

__all__ = [
    "DEVICE_TYPES", "DTYPES", "Device", "CPU", "Value", "Tensor", "Operator", "CompileSpec",
    "Delegate", "Frame", "Instruction", "Chain", "Buffer", "BufferDevice", "Segment",
    "SubsegmentOffsets", "NamedData", "ExtendedHeader", "Plan", "Program", "AnyValue",
    "dtype_name", "dtype_itemsize",
    # the companion vocabulary (explorer.model.companions)
    "DataHeader", "DataEntry", "DataFile", "TestValue", "TestCase", "MethodTestSuite", "Bundle", "GraphValue",
    "GraphNode", "DelegateGraph", "Payload",
]

# DeviceType enum of schema/program.fbs (mirror of the runtime's DeviceType). More will come.
DEVICE_TYPES: dict[int, str] = {t.code: t.name for t in _devices.DEVICE_TYPES}  # from the one registry (explorer/model/devices.py)
_DEVICE_CODES = {v: k for k, v in DEVICE_TYPES.items()}

_NBYTES_LIMIT = 1 << 63  # byte counts are int64 for the runtime (and in the decoder's columns)


def _nbytes(sizes: Sequence[int], itemsize: int) -> int | None:
    """``prod(sizes) * itemsize``, or None when it doesn't fit in an int64 (only hostile files get there:
    a few hundred int32 dims would otherwise make a number too long to print or to put in JSON)."""
    if 0 in sizes:
        return 0
    n = itemsize
    for s in sizes:  # with no zero dim |n| only grows, so stop as soon as it is out of range
        n *= s
        if abs(n) > _NBYTES_LIMIT:
            return None
    return n if n < _NBYTES_LIMIT else None


_DEVICE_RE = _devices.DEVICE_PATTERN


@dataclass(frozen=True, order=True)
class Device:
    """Where a tensor or arena lives, printed and parsed in PyTorch form (``cpu``, ``cuda:1``)."""

    type: int  # raw DeviceType byte: 0 CPU, 1 CUDA, anything else is a type this version doesn't know
    index: int = 0  # device_index (a signed byte): which device of that type

    @property
    def kind(self) -> str:
        """``cpu``, ``cuda`` or ``unknown(N)``: the device type without its index."""
        return DEVICE_TYPES.get(self.type, f"unknown({self.type})")

    @property
    def known(self) -> bool:
        return self.type in DEVICE_TYPES

    @property
    def is_cpu(self) -> bool:
        return self.type == 0

    @property
    def is_host(self) -> bool:
        """Memory the CPU addresses directly (see :mod:`explorer.model.devices`)."""
        t = _devices.BY_CODE.get(self.type)
        return bool(t and t.host)

    @property
    def code(self) -> int:
        """The analysis' integer code for this device (:func:`explorer.model.devices.device_code`)."""
        return _devices.device_code(self.type, self.index)

    def __str__(self) -> str:
        if self.type == 0 and self.index == 0:
            return "cpu"
        return f"{self.kind}:{self.index}"

    def __repr__(self) -> str:
        return f"Device({str(self)!r})"

    @classmethod
    def parse(cls, text: Union[str, "Device"]) -> "Device":
        """``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"unknown(7):0"`` -> Device; ValueError otherwise."""
        if isinstance(text, Device):
            return text
        match = _DEVICE_RE.match(str(text).lower())
        if not match:
            raise ValueError(f"not a device: {text!r} (expected e.g. 'cpu', 'cuda:0', 'unknown(7):0')")
        kind, unknown_code, index = match.groups()
        code = int(unknown_code) if unknown_code is not None else _DEVICE_CODES[kind]
        return cls(code, int(index) if index is not None else 0)


CPU = Device(0, 0)


@dataclass(frozen=True)
class Value:
    """A non-tensor EValue: a scalar, a list, a string or Null."""

    index: int  # position in Plan.values
    type: str  # EValue kind: Null, Int, Bool, Double, String, IntList, DoubleList, BoolList, TensorList, OptionalTensorList (None: union tag NONE)
    value: object = None  # the Python value: int, bool, float, str, or a tuple (list items; value indices for TensorList, -1 = None in OptionalTensorList)


@dataclass(frozen=True)
class Tensor:
    """A tensor EValue and everything the file says about where its bytes live."""

    index: int  # position in Plan.values
    scalar_type: int  # raw ScalarType byte
    sizes: tuple[int, ...]  # shape (the upper bound when shape_dynamism is dynamic_bound)
    dim_order: tuple[int, ...]  # memory layout order of the dimensions, outer to inner
    device: Device  # extra_tensor_info.device_type/index; CPU when extra_tensor_info is absent
    storage: str  # constant | planned | mutable | runtime | external (see docs/format.md's table)
    memory_id: int | None = None  # arena index into Plan.buffer_sizes (optional: None when not planned)
    offset: int | None = None  # byte offset inside the arena, low | high << 32 (optional)
    data_buffer_idx: int = 0  # constant_segment.offsets index (constant) or mutable_data_segments offsets index (mutable)
    name: str | None = None  # fully-qualified name, e.g. "mod.linear.weight" (optional)
    shape_dynamism: str = "static"  # static | dynamic_bound | dynamic_unbound | unknown(N)
    requires_grad: bool = False
    storage_offset: int = 0  # in elements; the runtime only supports 0
    layout: int = 0  # raw layout byte
    mutable_data_segments_idx: int | None = None  # which mutable_data_segments entry holds initial state (optional)
    has_extra_info: bool = False  # whether the file wrote extra_tensor_info at all

    type = "Tensor"  # class constant, so Value and Tensor share `.type` (not a field)

    @property
    def dtype(self) -> str:
        return dtype_name(self.scalar_type)

    @property
    def numel(self) -> int:
        return math.prod(self.sizes)

    @property
    def nbytes(self) -> int | None:
        """numel x itemsize; None for an unknown dtype, or a shape too large for an int64 byte count."""
        itemsize = dtype_itemsize(self.scalar_type)
        return None if itemsize is None else _nbytes(self.sizes, itemsize)

    @property
    def planned(self) -> bool:
        """Memory-planned: it has an arena and offset (storage planned or mutable)."""
        return self.memory_id is not None

    @property
    def label(self) -> str:
        """Name when the file has one, else ``%index`` (what a person reads in every view)."""
        return self.name if self.name else f"%{self.index}"


AnyValue = Union[Value, Tensor]


@dataclass(frozen=True)
class Operator:
    name: str  # e.g. "aten::add" or "et_copy::_h2d_copy"
    overload: str  # e.g. "out"; may be empty

    @property
    def full_name(self) -> str:
        """``name.overload``, or just ``name`` when the overload is empty."""
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass(frozen=True)
class CompileSpec:
    key: str
    value: bytes

    @property
    def text(self) -> str:
        """The value as UTF-8 text when printable, else as hex (the JSON form's rule, README)."""
        try:
            decoded = self.value.decode("utf-8")
        except UnicodeDecodeError:
            return self.value.hex()
        return decoded if decoded.isprintable() else self.value.hex()


@dataclass(frozen=True)
class Delegate:
    """A lowered subgraph handed to a backend at init time."""

    index: int  # position in Plan.delegates
    id: str  # backend id, e.g. "XnnpackBackend", "BackendWithCompilerDemo"
    location: str  # where the processed blob lives: "inline" (Program.backend_delegate_data) | "segment" (Program.segments) | "unknown(N)"
    data_index: int  # index into that list
    compile_specs: tuple[CompileSpec, ...] = ()
    data_size: int | None = None  # size of the blob in bytes, when the index resolves (optional)

    @cached_property
    def target_device(self) -> Device | None:
        """The ``target_device`` compile spec parsed (``b"cuda:0"`` -> cuda:0); None when absent/unparseable.
        Parsed once per delegate: the analysis, the groups and the payload each ask, for every delegate."""
        for spec in self.compile_specs:
            if spec.key == "target_device":
                try:
                    return Device.parse(spec.value.decode("utf-8", "replace"))
                except ValueError:
                    return None
        return None


@dataclass(frozen=True)
class Frame:
    filename: str | None
    lineno: int
    name: str | None
    context: str | None


@dataclass(frozen=True)
class Instruction:
    """One step of a plan, in run order over all chains."""

    index: int  # position in Plan.instructions (run order over all chains)
    chain: int  # which chain it belongs to
    kind: str  # KernelCall | DelegateCall | MoveCall | JumpFalseCall | FreeCall | None (union tag NONE)
    args: tuple[int, ...] = ()  # value indices exactly as stored (Kernel/DelegateCall; an out-variant lists its out tensor twice)
    op_index: int | None = None  # KernelCall: index into Plan.operators
    op: str | None = None  # KernelCall: "name.overload"; None when op_index points nowhere
    delegate_index: int | None = None  # DelegateCall: index into Plan.delegates
    delegate: str | None = None  # DelegateCall: the delegate's id; None when delegate_index points nowhere
    move_from: int | None = None  # MoveCall
    move_to: int | None = None  # MoveCall
    cond_value_index: int | None = None  # JumpFalseCall
    destination: int | None = None  # JumpFalseCall: destination_instruction
    value_index: int | None = None  # FreeCall
    stacktrace: tuple[Frame, ...] | None = None  # frames when the export kept them (optional)

    @property
    def values(self) -> tuple[int, ...]:
        """Every value index this instruction names, whatever its kind (none when its arguments table is
        absent from the file: the union tag names a kind but no table follows)."""
        if self.kind in ("KernelCall", "DelegateCall"):
            return self.args
        named: tuple[int | None, ...]
        if self.kind == "MoveCall":
            named = (self.move_from, self.move_to)
        elif self.kind == "JumpFalseCall":
            named = (self.cond_value_index,)
        elif self.kind == "FreeCall":
            named = (self.value_index,)
        else:
            return ()
        return tuple(v for v in named if v is not None)

    @property
    def label(self) -> str:
        """What a person reads: the op, the delegate id, or the instruction kind."""
        if self.kind == "KernelCall":
            return self.op or f"<operator {self.op_index}>"
        if self.kind == "DelegateCall":
            return self.delegate or f"<delegate {self.delegate_index}>"
        return str(self.kind)


@dataclass(frozen=True)
class Chain:
    index: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    start: int  # first instruction's index in Plan.instructions
    stop: int  # one past the last


@dataclass(frozen=True)
class Buffer:
    """A memory-planned arena (``memory_id >= 1``) and the device that must allocate it."""

    memory_id: int  # index into non_const_buffer_sizes (0 is reserved and never listed)
    size: int  # bytes
    device: Device  # from the sparse non_const_buffer_device list; CPU when unlisted


class Buffers(Sequence[Buffer]):
    """:attr:`Plan.buffers`: arena ``memory_id`` at index ``memory_id - 1``, each :class:`Buffer` made on access."""

    __slots__ = ("_sizes", "_listed")

    def __init__(self, sizes: tuple[int, ...], listed: dict[int, Device]) -> None:
        self._sizes, self._listed = sizes, listed

    def __len__(self) -> int:
        return max(len(self._sizes) - 1, 0)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return tuple(self[k] for k in range(*index.indices(len(self))))
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"arena index {index} out of range ({n} arenas)")
        memory_id = index + 1
        return Buffer(memory_id, self._sizes[memory_id], self._listed.get(memory_id, CPU))

    def __iter__(self) -> Iterator[Buffer]:
        for memory_id in range(1, len(self._sizes)):
            yield Buffer(memory_id, self._sizes[memory_id], self._listed.get(memory_id, CPU))

    def __eq__(self, other: object) -> bool:
        return tuple(self) == tuple(other) if isinstance(other, (Buffers, tuple)) else NotImplemented

    def __repr__(self) -> str:
        return f"Buffers({len(self)} arenas)"


@dataclass(frozen=True)
class BufferDevice:
    """One raw ``non_const_buffer_device`` entry, kept to report entries that point nowhere."""

    buffer_idx: int
    device: Device


@dataclass(frozen=True)
class Segment:
    index: int
    offset: int  # as stored: relative to the extended header's segment_base_offset
    size: int
    file_offset: int | None = None  # absolute position in the file (None without an extended header)


@dataclass(frozen=True)
class SubsegmentOffsets:
    segment_index: int
    offsets: tuple[int, ...]


@dataclass(frozen=True)
class NamedData:
    key: str
    segment_index: int


@dataclass(frozen=True)
class ExtendedHeader:
    """The ``eh00`` header at byte 8."""

    length: int
    program_size: int  # flatbuffer size including headers
    segment_base_offset: int
    segment_data_size: int | None = None  # only when length > 24 (optional)


@dataclass(frozen=True)
class Plan:
    """One method (``forward``, ``encode``...): its values, instructions, arenas and delegates."""

    name: str
    values: Sequence[AnyValue]  # a tuple, or a lazy sequence whose items are made on first access
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    chains: tuple[Chain, ...]
    instructions: Sequence[Instruction]  # all chains, in run order (tuple or lazy sequence)
    operators: tuple[Operator, ...]
    delegates: tuple[Delegate, ...]
    buffer_sizes: tuple[int, ...]  # non_const_buffer_sizes as stored (index 0 reserved)
    buffer_devices: tuple[BufferDevice, ...] = ()  # non_const_buffer_device as stored (sparse)
    encoded_inputs: str | None = None  # container_meta_type.encoded_inp_str (optional)
    encoded_outputs: str | None = None  # container_meta_type.encoded_out_str (optional)
    _columns: tuple | None = field(default=None, repr=False, compare=False)  # decoder's (ValueColumns, InstructionColumns); see model/columns.py

    @cached_property
    def tensors(self) -> tuple[Tensor, ...]:
        return tuple(v for v in self.values if isinstance(v, Tensor))

    @cached_property
    def buffers(self) -> "Buffers":
        """Arenas ``memory_id >= 1`` with their devices (listed ones win; unlisted are CPU). An arena listed
        twice gets its first entry's device, as the runtime's lookup does (the check reports both).

        A sequence whose items are made when asked for: a file may declare a million arenas in 8 MB, so
        code that must scale walks :attr:`listed_devices` (the few arenas not on the CPU) and the sizes as
        columns, never every arena."""
        return Buffers(self.buffer_sizes, self.listed_devices)

    @cached_property
    def listed_devices(self) -> dict[int, Device]:
        """``memory_id -> device`` of the arenas ``non_const_buffer_device`` lists (first entry wins, ids that
        name an arena); every other arena is on the CPU. As small as the list in the file."""
        out: dict[int, Device] = {}
        n = len(self.buffer_sizes)
        for bd in self.buffer_devices:
            if 1 <= bd.buffer_idx < n:
                out.setdefault(bd.buffer_idx, bd.device)
        return out

    @cached_property
    def arena_devices(self) -> tuple[Device, ...]:
        """The distinct devices of the arenas (CPU first when any arena is unlisted), without walking them."""
        listed = self.listed_devices
        devices = [CPU] if len(self.buffer_sizes) - 1 > len(listed) else []
        for device in listed.values():
            if device not in devices:
                devices.append(device)
        return tuple(devices)

    def buffer(self, memory_id: int) -> Buffer | None:
        if 1 <= memory_id < len(self.buffer_sizes):
            return self.buffers[memory_id - 1]
        return None

    def value(self, index: int) -> AnyValue | None:
        """The value at ``index``, or None when the index points nowhere."""
        return self.values[index] if 0 <= index < len(self.values) else None


@dataclass(frozen=True)
class Prediction:
    """Set on a program :func:`explorer.what_if` predicted: not read from a file, and from which moves."""

    moves: tuple[tuple[str, str], ...]  # (selector, device) in the order applied
    skip_h2d_inputs: bool | None = None  # PropagateDeviceConfig flags asked for (None: as the original)
    skip_d2h_outputs: bool | None = None
    method: str | None = None  # only this plan was re-derived (None: every plan a move named)
    alloc_graph_input: bool | None = None  # MemoryPlanningPass flags asked for (None: as the original)
    alloc_graph_output: bool | None = None
    original: str | None = None  # path of the program the moves were applied to (optional)
    # constants a region of moved kernels reads: "owned" by its delegate (tag_constant_data, as executorch's CUDA
    # partitioner does) or left as "arguments" (executorch then refuses the h2d copy of a constant)
    constants: str = "owned"
    regions: bool = False  # whether moved kernels made delegated regions (then ``constants`` was assumed)
    # per re-derived plan, per predicted instruction: the original instructions it stands for (() = a new copy)
    origins: dict = field(default_factory=dict, compare=False)

    @property
    def text(self) -> str:
        """``predicted by what-if: delegate:*=cuda:0, ...`` (what inspect prints)."""
        moves = ", ".join(f"{s}={d}" for s, d in self.moves) or "no moves"
        flags = [name for name, on in (("skip_h2d_inputs", self.skip_h2d_inputs),
                                       ("skip_d2h_outputs", self.skip_d2h_outputs)) if on]
        flags += [f"{name}={on}" for name, on in (("alloc_graph_input", self.alloc_graph_input),
                                                  ("alloc_graph_output", self.alloc_graph_output)) if on is not None]
        if self.regions:
            flags.append(f"constants {self.constants}" + (" by the new delegates (tag_constant_data)"
                                                          if self.constants == "owned" else " of the new delegates"))
        return f"predicted by what-if (not an export): {moves}" + (f"; {', '.join(flags)}" if flags else "")


@dataclass(frozen=True)
class Program:
    """A whole ``.pte``: its methods, segments and the container around them."""

    version: int  # schema version as stored
    plans: tuple[Plan, ...]  # as stored (executorch sorts them by name); select with plan(name)
    segments: tuple[Segment, ...] = ()
    constant_segment: SubsegmentOffsets | None = None
    mutable_data_segments: tuple[SubsegmentOffsets, ...] = ()
    named_data: tuple[NamedData, ...] = ()
    constant_buffer_sizes: tuple[int, ...] = ()  # legacy inline constant_buffer entries (bytes each)
    delegate_data_sizes: tuple[int, ...] = ()  # inline backend_delegate_data entries (bytes each)
    header: ExtendedHeader | None = None  # the eh00 header (optional)
    identifier: str = "ET12"  # file identifier at bytes 4-8
    size: int = 0  # file size in bytes
    source: str | None = None  # path the program was loaded from (optional)
    _read: Callable[[int, int], bytes] | None = field(default=None, repr=False, compare=False)
    data_files: tuple[DataFile, ...] | None = None  # .ptd files supplied with load(..., data=[...]) (optional: None when none were given)
    bundle: Bundle | None = None  # the test suites around it when loaded from a .bpte (optional)
    # an ETRecord joined to it (load(..., etrecord=...); explorer.analysis.context), None when none was given
    etrecord: "ProgramContext | None" = field(default=None, repr=False, compare=False)
    # set when explorer.what_if predicted this program instead of reading it (None for a file)
    prediction: Prediction | None = field(default=None, compare=False)

    kind = "program"  # class constant: what explorer.load returned (a .ptd gives a DataFile, kind "data")

    def external_entry(self, key: str) -> tuple[DataFile, DataEntry] | None:
        """The first supplied data file holding ``key``, and its entry (None when none does)."""
        for data_file in self.data_files or ():
            entry = data_file.entry(key)
            if entry is not None:
                return data_file, entry
        return None

    @cached_property
    def plan_by_name(self) -> dict[str, Plan]:
        """The plans by name (the first of a repeated name, as ``plan`` answers): a lookup per plan stays O(1)
        on a program of thousands of plans."""
        named: dict[str, Plan] = {}
        for plan in self.plans:
            named.setdefault(plan.name, plan)
        return named

    def plan(self, name: str) -> Plan:
        found = self.plan_by_name.get(name)
        if found is not None:
            return found
        names = ", ".join(repr(p.name) for p in self.plans) or "none"
        raise KeyError(f"no plan named {name!r}; the program has: {names}")

    @property
    def plan_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.plans)

    def segment_data(self, index: int) -> bytes:
        """The bytes of segment ``index``, read only now (loading never reads segment data)."""

        if not 0 <= index < len(self.segments):
            raise IndexError(f"segment {index} does not exist (the program has {len(self.segments)})")
        seg = self.segments[index]
        if seg.file_offset is None or self._read is None:
            raise PteFormatError("segment data is not available: the file has no extended header",
                                 path=f"segments[{index}]")
        if seg.file_offset + seg.size > self.size:
            raise PteFormatError(f"segment of {seg.size} bytes runs past the end of the file ({self.size} bytes)",
                                 offset=seg.file_offset, path=f"segments[{index}]")
        return self._read(seg.file_offset, seg.size)

    def iter_tensors(self) -> Iterator[tuple[Plan, Tensor]]:
        for plan in self.plans:
            for tensor in plan.tensors:
                yield plan, tensor
