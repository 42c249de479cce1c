"""Analysis results: plain frozen records the views, widget and CLI share.

These are the contract between ``explorer.analysis`` (which computes them from the model) and
everything above it. Instruction and value numbers are the model's: ``Instruction.index`` (run order
over all chains) and ``Value.index`` / ``Tensor.index``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.model.program import Device
from explorer.units import nbytes_text

__all__ = [
    "Dataflow", "Lifetime", "Block", "ArenaMap", "DeviceTotals", "MemoryMap", "Transfer",
    "TransferTotals", "Finding", "Layout", "PlanAnalysis",
]


@dataclass(frozen=True)
class Dataflow:
    """Who reads and who writes each value, per plan (see graph.py for the write rule)."""

    plan: str
    reads: tuple[tuple[int, ...], ...]  # per instruction index: value indices it reads (deduplicated, in arg order)
    writes: tuple[tuple[int, ...], ...]  # per instruction index: value indices it writes
    producers: dict[int, tuple[int, ...]]  # value index -> instruction indices writing it (run order)
    consumers: dict[int, tuple[int, ...]]  # value index -> instruction indices reading it (run order)


@dataclass(frozen=True)
class Lifetime:
    """When a value is alive, in instruction indices (inclusive)."""

    value: int
    first: int  # 0 for plan inputs
    last: int  # len(instructions) - 1 for plan outputs


@dataclass(frozen=True)
class Block:
    """One planned tensor in its arena: a rectangle over lifetime (x) and byte range (y)."""

    value: int
    memory_id: int
    offset: int
    nbytes: int
    first: int | None  # lifetime; None when no instruction names the tensor
    last: int | None
    device: Device  # the tensor's own device (may differ from the arena's: device-mismatch)
    alias_of: int | None = None  # a view sharing these bytes and this lifetime with another value (optional)


@dataclass(frozen=True)
class ArenaMap:
    memory_id: int
    size: int  # declared arena size in bytes
    device: Device  # the arena's device
    blocks: tuple[Block, ...]  # sorted by (offset, first)
    peak_live_bytes: int  # max over instructions of the bytes of tensors alive at that instruction
    peak_at: int | None  # instruction index where that peak is reached (optional)
    high_water: int  # max(offset + nbytes) over blocks: the bytes actually touched

    @property
    def utilisation(self) -> float:
        """Peak live bytes / arena size (0 for an empty arena)."""
        return self.peak_live_bytes / self.size if self.size else 0.0


@dataclass(frozen=True)
class EmptyArenas:
    """The arenas a view or a text does not list one by one: no planned tensor in any of them. A file may
    declare a million arenas in 8 MB; what is shown scales with the tensors, and these are one line."""

    count: int
    size: int  # their declared bytes together
    devices: tuple[tuple[Device, int, int], ...] = ()  # (device, arenas, bytes), cpu first

    def text(self) -> str:
        """``… and 999,990 empty arenas (61.0 MiB: cpu 999,990)``."""
        per = ", ".join(f"{d} {n:,}" for d, n, _ in self.devices)
        return f"… and {self.count:,} empty arena{'s' if self.count != 1 else ''} ({nbytes_text(self.size)}: {per})"


@dataclass(frozen=True)
class DeviceTotals:
    device: Device
    arena_bytes: int  # sum of arena sizes on this device
    planned_bytes: int  # sum of nbytes of planned (and mutable) tensors on this device
    constant_bytes: int  # sum of nbytes of constant tensors on this device
    peak_live_bytes: int  # max over instructions of live planned bytes on this device (all arenas together)
    tensors: int  # how many tensors live on this device
    transfers_in: int  # copies whose destination is on this device from another device
    transfers_out: int  # copies whose source is on this device to another device
    bytes_in: int
    bytes_out: int


@dataclass(frozen=True)
class MemoryMap:
    plan: str
    arenas: tuple[ArenaMap, ...]  # one per memory_id >= 1, in memory_id order
    devices: tuple[DeviceTotals, ...]  # one per device seen (cpu first)


@dataclass(frozen=True)
class Transfer:
    """Data crossing (or staying on) a device in one instruction."""

    instruction: int
    op: str  # e.g. "et_copy::_h2d_copy.out" or the delegate id
    kind: str  # "h2d" | "d2h" | "d2d" (between two non-CPU devices) | "same" (same device)
    source: int  # value index read
    destination: int  # value index written
    src_device: Device
    dst_device: Device
    nbytes: int


@dataclass(frozen=True)
class TransferTotals:
    src_device: Device
    dst_device: Device
    count: int
    nbytes: int


@dataclass(frozen=True)
class Finding:
    """One placement-check result; the same fields as its JSON form."""

    code: str  # device-mismatch | out-of-bounds | ... (docs/analysis.md lists every code); no-placement-check on a .ptd
    severity: str  # error | warning | info
    plan: str
    message: str
    values: tuple[int, ...] = ()
    instructions: tuple[int, ...] = ()
    memory_id: int | None = None

    def to_json(self) -> dict:
        return {"code": self.code, "severity": self.severity, "plan": self.plan, "message": self.message,
                "values": list(self.values), "instructions": list(self.instructions), "memory_id": self.memory_id}


@dataclass(frozen=True)
class Layout:
    """Layered coordinates for the dataflow graph: nodes are ("v", value) or ("i", instruction)."""

    nodes: tuple[tuple[str, int], ...]
    x: tuple[float, ...]  # position within the layer
    y: tuple[float, ...]  # layer (0 = inputs), growing downward in dataflow depth
    edges: tuple[tuple[int, int], ...]  # (source node position, target node position) into `nodes`
    # per edge, its polyline from source to target: one (x, y) point per layer it passes (empty: a loop)
    paths: tuple[tuple[tuple[float, float], ...], ...] = ()


@dataclass(frozen=True)
class PlanAnalysis:
    """Everything the analysis says about one plan, computed once and shared by every view."""

    plan: str
    dataflow: Dataflow
    lifetimes: dict[int, Lifetime]  # value index -> lifetime (absent: unnamed, and no plan input/output)
    memory: MemoryMap
    transfers: tuple[Transfer, ...]
    transfer_totals: tuple[TransferTotals, ...]
    findings: tuple[Finding, ...]
    aliases: dict[int, int] = field(default_factory=dict)  # view value -> base value whose bytes it shares
