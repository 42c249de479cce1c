"""The one registry of device types: what the schema's DeviceType byte means, whether the CPU addresses
that memory directly, how each device is drawn, and the integer code the analysis groups by.

Everything that knows a device type reads it from here: parsing and printing (:class:`explorer.model.Device`),
the analysis' device codes (:func:`device_code`), the palette of every panel (:mod:`explorer.views.palette`)
and the device table sent to the browser app. A new device type is one more :class:`DeviceType` row.

Colours are Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008; also Wong, Nature
Methods 8:441, 2011): ``cpu`` is always blue, ``cuda:i`` always the same hue in every program.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DeviceType", "DEVICE_TYPES", "BY_CODE", "BY_NAME", "UNKNOWN_COLOR", "device_code", "code_device",
           "DEVICE_PATTERN"]


@dataclass(frozen=True)
class DeviceType:
    code: int  # the DeviceType byte in the schema (ExtraTensorInfo.device_type, non_const_buffer_device)
    name: str  # how it prints and parses, PyTorch style: "cpu", "cuda"
    host: bool  # memory the CPU reads and writes directly (copies to / from it are h2d / d2h)
    colors: tuple[str, ...]  # fill colour of index 0, 1, ...; past the end the hues repeat with another marker


DEVICE_TYPES: tuple[DeviceType, ...] = (
    DeviceType(0, "cpu", True, ("#0072B2",)),  # blue
    # cuda:0, cuda:1, ...: orange, bluish green, reddish purple, vermillion, sky blue, yellow
    DeviceType(1, "cuda", False, ("#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442")),
)
BY_CODE: dict[int, DeviceType] = {t.code: t for t in DEVICE_TYPES}
BY_NAME: dict[str, DeviceType] = {t.name: t for t in DEVICE_TYPES}
UNKNOWN_COLOR = "#8C8C8C"  # a type this version doesn't know (also drawn with its own marker and hatch)

# "cpu", "cuda:1", "unknown(7):0" (any registered name, or unknown(N), then an optional :index)
DEVICE_PATTERN = re.compile(r"^\s*(" + "|".join(re.escape(t.name) for t in DEVICE_TYPES)
                            + r"|unknown\((-?\d+)\))(?::(-?\d+))?\s*$")


def device_code(type_: int, index: int) -> int:
    """One integer per (type, index), for numpy grouping: ``type * 1024 + index + 512`` (index is a signed byte)."""
    return type_ * 1024 + index + 512


def code_device(code: int) -> tuple[int, int]:
    """The (type, index) of a :func:`device_code`."""
    return code // 1024, code % 1024 - 512
