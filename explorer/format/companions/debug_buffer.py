"""The debug buffer (``.bin``) beside an ETDump: the bytes of every tensor a run logged, read torch-free.

executorch's ``ETDumpGen`` copies each logged tensor into the buffer the runtime was given
(``debug_buffer_size``), each copy aligned to 64 bytes *of its address* (``devtools/etdump/data_sinks/
buffer_data_sink.cpp``, ``alignPointer``), and ``write_etdump_result_to_file`` writes the whole buffer, used or not.
So an offset depends on where the buffer happened to be allocated and shifts from one process to the next, while
the values at it do not. The debug event names the dtype, sizes and offset; executorch's Inspector reads
``prod(sizes) * itemsize`` bytes there as a contiguous tensor (``devtools/inspector/_inspector_utils.py``,
``_parse_tensor_value``; strides are not used, an empty tensor — offset -1 — is zeros). :func:`read_tensor` does
exactly that with numpy, after checking every size against the bytes present: a hostile entry gets a
:class:`~explorer.errors.PteFormatError` naming the event and the offset, never an allocation of what it claims.
"""

from __future__ import annotations

import os
from typing import Union

import numpy as np

from explorer.errors import PteFormatError
from explorer.model.dtypes import dtype_name
from explorer.model.numerics import LoggedTensor

__all__ = ["load_debug_buffer", "read_tensor", "NUMPY_DTYPES"]

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

# ScalarType byte -> numpy dtype of its bytes. bfloat16 (15) is read as uint16 and widened to float32 by
# read_tensor. Missing: types whose bytes are not one number per element here (quint4x2, ...) or that numpy
# lacks (float8): such tensors are reported with their dtype and shape but no statistics.
NUMPY_DTYPES: dict[int, str] = {0: "<u1", 1: "<i1", 2: "<i2", 3: "<i4", 4: "<i8", 5: "<f2", 6: "<f4", 7: "<f8",
                                11: "?", 12: "<i1", 13: "<u1", 14: "<i4", 15: "<u2", 22: "<u2", 27: "<u2", 28: "<u4",
                                29: "<u8"}


def load_debug_buffer(source: Source) -> tuple[memoryview, str | None]:
    """The buffer's bytes (read-only view) and its path (None for bytes). OSError for an unreadable path."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return memoryview(bytes(source)), None
    path = os.fspath(source)
    with open(path, "rb") as fh:
        return memoryview(fh.read()), path


def read_tensor(buffer: memoryview, t: LoggedTensor, where: str = "") -> np.ndarray | None:
    """The logged tensor's elements, flat, in memory order (a view of ``buffer``; bfloat16 widened to float32).

    None for a dtype without a numpy twin. PteFormatError when a size is negative or the bytes run past the buffer.
    """
    for k, d in enumerate(t.sizes):
        if d < 0:
            raise PteFormatError(f"tensor size {d} in dimension {k} is negative", offset=None,
                                 path=f"{where}.sizes")
    numel = 1
    for d in t.sizes:
        numel *= d
    code = NUMPY_DTYPES.get(t.scalar_type)
    if code is None:
        return None
    itemsize = np.dtype(code).itemsize
    nbytes = numel * itemsize
    if nbytes == 0:
        return np.zeros(0, np.dtype(code) if t.scalar_type != 15 else np.float32)
    size = len(buffer)
    if t.offset < 0 or t.offset + nbytes > size:
        raise PteFormatError(f"{dtype_name(t.scalar_type)} tensor of shape {list(t.sizes)} needs {nbytes} bytes at "
                             f"offset {t.offset} of the debug buffer, which has {size} bytes (a buffer of another "
                             f"run, or truncated?)", offset=t.offset if t.offset >= 0 else None, path=f"{where}.offset")
    arr = np.frombuffer(buffer, dtype=code, count=numel, offset=t.offset)
    if t.scalar_type == 15:  # bfloat16: the high half of a float32
        arr = (arr.astype(np.uint32) << 16).view(np.float32)
    return arr
