"""The one device palette every panel shares (graph, memory map, legend, details, HTML report).

Colours are Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008; also Wong, Nature
Methods 8:441, 2011). ``cpu`` is always blue and ``cuda:i`` always the same hue in every program, so a
screenshot of one plan reads like another. Devices this version doesn't know are grey and, because
grey alone is easy to miss, also carry a different marker symbol and a hatch pattern in the memory map.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.model.devices import BY_CODE, BY_NAME, UNKNOWN_COLOR
from explorer.model.program import Device

__all__ = ["DeviceStyle", "device_style", "device_color", "ordered_devices", "EDGE_STYLES", "OP_STYLES",
           "FONT", "INK", "MUTED", "SELECT", "ERROR"]

# The colours of each device type live in the registry (explorer/model/devices.py): cpu blue, cuda:0, cuda:1, ...
# orange, bluish green, ... (past the last, the hues repeat with another marker symbol so they stay apart).
CPU_COLOR = BY_NAME["cpu"].colors[0]
CUDA_COLORS = BY_NAME["cuda"].colors

FONT = "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
INK = "#1F2328"  # text and outlines
MUTED = "#6E7781"  # secondary text, same-device edges
SELECT = "#000000"  # selection ring
ERROR = "#B31B1B"  # outline of values named by an error finding

# Opacity of tensors (graph) and blocks (memory map), shown / faded by the device filter.
TENSOR_OPACITY = (1.0, 0.12)
BLOCK_OPACITY = (0.92, 0.15)

_REPEAT_SYMBOLS = ("circle", "square", "diamond", "triangle-up")


@dataclass(frozen=True)
class DeviceStyle:
    color: str  # fill colour (hex)
    symbol: str  # plotly marker symbol for tensor nodes
    pattern: str  # plotly bar pattern shape for memory blocks ("" = solid)
    label: str  # what the legend says


def device_style(device: Device) -> DeviceStyle:
    """Colour, marker and pattern of ``device``: fixed per device, not per program."""
    kind = BY_CODE.get(device.type)
    if kind is not None and device.index >= 0 and (not device.is_cpu or device.index == 0):
        lap, hue = divmod(device.index, len(kind.colors))
        return DeviceStyle(kind.colors[hue], _REPEAT_SYMBOLS[lap % len(_REPEAT_SYMBOLS)], "", str(device))
    # an unknown device type, cpu:n or a negative index: grey, crossed marker, hatched block
    return DeviceStyle(UNKNOWN_COLOR, "circle-x", "x", str(device))


def device_color(device: Device) -> str:
    return device_style(device).color


def ordered_devices(devices) -> list[Device]:
    """Distinct devices, cpu first, then cuda:0, cuda:1, ..., unknown types last."""
    return sorted(set(devices), key=lambda d: (not d.is_cpu, not d.known, d.type, d.index))


# How graph edges look, by what they carry (Transfer.kind, "same" for everything that stays put).
EDGE_STYLES = {
    "same": {"label": "same device", "color": "#A0A7B0", "width": 1.2, "dash": "solid"},
    "h2d": {"label": "host → device", "color": INK, "width": 2.4, "dash": "dash"},
    "d2h": {"label": "device → host", "color": INK, "width": 2.4, "dash": "dot"},
    "d2d": {"label": "device → device", "color": INK, "width": 2.4, "dash": "dashdot"},
}

# How op nodes look, by kind. Ops are drawn hollow-ish (light fill, dark outline) so device colour
# stays the tensors' alone; a delegate with a target device takes that device's colour as its outline.
OP_STYLES = {
    "kernel": {"label": "kernel", "symbol": "square", "size": 11},
    "delegate": {"label": "delegate", "symbol": "diamond", "size": 15},
    "copy": {"label": "copy", "symbol": "triangle-down", "size": 13},
    "other": {"label": "move / jump / free", "symbol": "cross-thin", "size": 9},
}
