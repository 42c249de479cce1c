"""ScalarType bytes of schema/scalar_type.fbs: the torch-style name and the element size of each.

A module of its own, beneath every other model module: programs, data files and delegate subgraphs all
name dtypes the same way.
"""

from __future__ import annotations

__all__ = ["DTYPES", "dtype_name", "dtype_itemsize"]

# ScalarType byte -> (torch-style dtype name, bytes per element as the runtime's elementSize says).
DTYPES: dict[int, tuple[str, int]] = {
    0: ("uint8", 1), 1: ("int8", 1), 2: ("int16", 2), 3: ("int32", 4), 4: ("int64", 8),
    5: ("float16", 2), 6: ("float32", 4), 7: ("float64", 8), 11: ("bool", 1),
    12: ("qint8", 1), 13: ("quint8", 1), 14: ("qint32", 4), 15: ("bfloat16", 2),
    16: ("quint4x2", 1), 17: ("quint2x4", 1), 22: ("bits16", 2),
    23: ("float8_e5m2", 1), 24: ("float8_e4m3fn", 1), 25: ("float8_e5m2fnuz", 1),
    26: ("float8_e4m3fnuz", 1), 27: ("uint16", 2), 28: ("uint32", 4), 29: ("uint64", 8),
}


def dtype_name(scalar_type: int) -> str:
    """Torch-style name of a ScalarType byte; ``unknown(N)`` for values this version doesn't know."""
    known = DTYPES.get(scalar_type)
    return known[0] if known else f"unknown({scalar_type})"


def dtype_itemsize(scalar_type: int) -> int | None:
    """Bytes per element, or ``None`` for an unknown ScalarType (so nbytes can't be computed)."""
    known = DTYPES.get(scalar_type)
    return known[1] if known else None
