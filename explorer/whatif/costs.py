"""What a copy and a device launch cost: the cost model the what-if time estimate reads, as data.

An h2d or d2h copy costs a fixed latency plus bytes / bandwidth, and the bandwidth depends on the direction and
on whether host memory is pinned — so the model is, per device kind, a measured table of (bytes, seconds) per
direction and host-memory kind, interpolated linearly between its rows (latency + bytes / bandwidth is linear
in bytes), the first row's time below it (the latency floor) and the last segment's slope past the end; plus
the cost of launching one instruction on the device. Arithmetic of 12 GB/s with no fixed cost put 60 copies of
4 KiB at 20 us; measured, they take about 1 ms.

The built-in model (:data:`H200`) is the table of issue 31, measured on an NVIDIA H200 (torch 2.11, CUDA 13)
with synchronous copies between preallocated buffers, as ``et_copy::_h2d_copy.out`` / ``_d2h_copy.out`` do,
medians of 10-50. ``device-explorer calibrate -o costs.json`` measures the machine it runs on and writes the
same form; ``--costs FILE`` / ``costs=`` read it (:func:`load_costs`).

File form (``device-explorer-costs/1``)::

    {"format": "device-explorer-costs/1", "name": "...", "source": "...", "host_memory": "pageable",
     "devices": {"cuda": {"launch_s": 6.9e-6,
                          "h2d": {"pageable": [[64, 1.35e-05], ...], "pinned": [...]},
                          "d2h": {"pageable": [...], "pinned": [...]}}}}

``devices`` is keyed by device kind (``cuda``) or one device (``cuda:1``, which wins over its kind).
``host_memory`` says which host-memory kind the copies use: executorch's planned CPU arenas are plain host
memory (pageable) unless a runtime pins them, so pageable is the default.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from explorer.model.program import Device

__all__ = ["CostModel", "DeviceCosts", "H200", "load_costs", "FORMAT", "DIRECTIONS", "HOST_MEMORY"]

FORMAT = "device-explorer-costs/1"
DIRECTIONS = ("h2d", "d2h")
HOST_MEMORY = ("pageable", "pinned")


@dataclass(frozen=True)
class DeviceCosts:
    """One device kind's costs: per (direction, host memory) a table of (bytes, seconds), and the launch cost."""

    launch_s: float
    tables: dict = field(default_factory=dict)  # (direction, host memory) -> ((bytes, seconds), ...), bytes rising

    def copy_s(self, direction: str, nbytes: int, host: str) -> float:
        """Seconds one copy of ``nbytes`` takes (module doc: interpolated, latency floor, last slope past the end)."""
        rows = self.tables.get((direction, host)) or self.tables.get((direction, "pageable"))
        if not rows:
            raise ValueError(f"cost model has no {direction} table")
        if nbytes <= rows[0][0] or len(rows) == 1:
            return rows[0][1] if nbytes <= rows[0][0] else rows[0][1] * nbytes / max(rows[0][0], 1)
        for (b0, t0), (b1, t1) in zip(rows, rows[1:]):
            if nbytes <= b1:
                return t0 + (t1 - t0) * (nbytes - b0) / (b1 - b0)
        (b0, t0), (b1, t1) = rows[-2], rows[-1]
        return t1 + (t1 - t0) * (nbytes - b1) / (b1 - b0)


@dataclass(frozen=True)
class CostModel:
    """A named, sourced cost model (module doc)."""

    name: str
    source: str
    devices: dict  # "cuda" or "cuda:1" -> DeviceCosts
    host_memory: str = "pageable"

    def for_device(self, device: Device | str) -> DeviceCosts:
        d = device if isinstance(device, Device) else Device.parse(str(device))
        found = self.devices.get(str(d)) or self.devices.get(d.kind)
        if found is None:
            raise ValueError(f"cost model {self.name!r} has no costs for {d} (it has {', '.join(self.devices)})")
        return found

    def copy_s(self, direction: str, nbytes: int, device: Device | str) -> float:
        """One copy between the host and ``device``."""
        return self.for_device(device).copy_s(direction, int(nbytes), self.host_memory)

    def launch_s(self, device: Device | str) -> float:
        return self.for_device(device).launch_s

    def to_json(self) -> dict:
        devices = {}
        for key, dc in self.devices.items():
            entry: dict = {"launch_s": dc.launch_s}
            for (direction, host), rows in dc.tables.items():
                entry.setdefault(direction, {})[host] = [[b, t] for b, t in rows]
            devices[key] = entry
        return {"format": FORMAT, "name": self.name, "source": self.source, "host_memory": self.host_memory,
                "devices": devices}


def _parse(doc: object, where: str) -> CostModel:
    """A :class:`CostModel` from its JSON form; ValueError saying what is wrong and where."""
    def bad(what: str) -> ValueError:
        return ValueError(f"{where}: {what}")

    if not isinstance(doc, dict):
        raise bad("expected a JSON object")
    if doc.get("format") != FORMAT:
        raise bad(f"format is {doc.get('format')!r}, expected {FORMAT!r} (what `device-explorer calibrate` writes)")
    name, source = doc.get("name"), doc.get("source")
    if not isinstance(name, str) or not name or not isinstance(source, str):
        raise bad("needs a name and a source (strings)")
    host = doc.get("host_memory", "pageable")
    if host not in HOST_MEMORY:
        raise bad(f"host_memory {host!r}: expected one of {', '.join(HOST_MEMORY)}")
    raw = doc.get("devices")
    if not isinstance(raw, dict) or not raw:
        raise bad("devices: expected an object with at least one device kind, e.g. 'cuda'")
    devices = {}
    for key, entry in raw.items():
        try:
            Device.parse(key) if ":" in key else Device.parse(f"{key}:0")
        except ValueError as exc:
            raise bad(f"devices.{key}: {exc}") from None
        if not isinstance(entry, dict):
            raise bad(f"devices.{key}: expected an object")
        launch = entry.get("launch_s")
        if not isinstance(launch, (int, float)) or isinstance(launch, bool) or not (0 <= launch < math.inf):
            raise bad(f"devices.{key}.launch_s: expected a number of seconds >= 0")
        tables = {}
        for direction in DIRECTIONS:
            kinds = entry.get(direction)
            if not isinstance(kinds, dict) or "pageable" not in kinds:
                raise bad(f"devices.{key}.{direction}: expected an object with at least a 'pageable' table")
            for kind, rows in kinds.items():
                if kind not in HOST_MEMORY:
                    raise bad(f"devices.{key}.{direction}.{kind}: expected {' or '.join(HOST_MEMORY)}")
                tables[(direction, kind)] = _rows(rows, bad, f"devices.{key}.{direction}.{kind}")
        devices[key] = DeviceCosts(float(launch), tables)
    return CostModel(name, source, devices, host)


def _rows(rows: object, bad, where: str) -> tuple[tuple[int, float], ...]:
    if not isinstance(rows, list) or not rows:
        raise bad(f"{where}: expected a list of [bytes, seconds] rows")
    out = []
    for row in rows:
        ok = isinstance(row, list) and len(row) == 2 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x < math.inf for x in row)
        if not ok:
            raise bad(f"{where}: row {row!r} is not [bytes >= 0, seconds >= 0]")
        out.append((int(row[0]), float(row[1])))
    if any(b1 <= b0 for (b0, _), (b1, _) in zip(out, out[1:])):
        raise bad(f"{where}: bytes must rise from row to row")
    return tuple(out)


def load_costs(source: "CostModel | dict | str | Path | None") -> CostModel:
    """The cost model ``source`` names: ``None`` for the built-in :data:`H200`, a :class:`CostModel`, its JSON
    form as a dict, or a path to a file ``device-explorer calibrate`` wrote. ValueError for anything else."""
    if source is None:
        return H200
    if isinstance(source, CostModel):
        return source
    if isinstance(source, dict):
        return _parse(source, "costs")
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"costs file {str(path)!r} cannot be read: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"costs file {str(path)!r} is not JSON: {exc}") from None
    return _parse(doc, f"costs file {str(path)!r}")


_KIB, _MIB = 1024, 1024 * 1024
_US, _MS = 1e-6, 1e-3
H200 = _parse({
    "format": FORMAT,
    "name": "H200 (built-in)",
    "source": "issue 31: NVIDIA H200, torch 2.11, CUDA 13, synchronous copies between preallocated buffers "
              "(as et_copy::_h2d_copy.out / _d2h_copy.out do), medians of 10-50; launch: a 16x64 add in a chain, "
              "6.9 us per op",
    "host_memory": "pageable",
    "devices": {"cuda": {
        "launch_s": 6.9 * _US,
        "h2d": {"pageable": [[64, 13.5 * _US], [16 * _KIB, 17.9 * _US], [256 * _KIB, 46 * _US],
                             [4 * _MIB, 416 * _US], [64 * _MIB, 7.1 * _MS], [256 * _MIB, 33 * _MS]],
                "pinned": [[64, 13.8 * _US], [16 * _KIB, 18.8 * _US], [256 * _KIB, 26.5 * _US],
                           [4 * _MIB, 103 * _US], [64 * _MIB, 1.35 * _MS], [256 * _MIB, 4.9 * _MS]]},
        "d2h": {"pageable": [[64, 16.7 * _US], [16 * _KIB, 17.5 * _US], [256 * _KIB, 54 * _US],
                             [4 * _MIB, 346 * _US], [64 * _MIB, 4.8 * _MS], [256 * _MIB, 17.4 * _MS]],
                "pinned": [[64, 14.0 * _US], [16 * _KIB, 13.8 * _US], [256 * _KIB, 24 * _US],
                           [4 * _MIB, 96 * _US], [64 * _MIB, 1.29 * _MS], [256 * _MIB, 4.9 * _MS]]},
    }},
}, "the built-in H200 model")
