"""Transfers: data that crosses a device boundary (or is copied within one device) in one instruction.

Two sources:

* **Copy ops** (``et_copy::_h2d_copy`` / ``_d2h_copy``, any overload): one transfer from the tensor they
  read to the tensor they write. The kind comes from the two tensors' *actual* devices, not from the
  op's name, so a copy that stays on one device is reported as ``same`` and a mislabelled one shows.
* **Any other instruction** whose tensors sit on more than one device: each tensor read whose device
  no written tensor shares is a transfer to the first written tensor (bytes = the read tensor's), and
  each tensor written whose device no read tensor shares is a transfer from the first read tensor
  (bytes = the written tensor's). A device-targeted delegate reading host tensors and writing CUDA
  ones shows up here as ``h2d``; whether that's allowed is the checks' business, not this module's.

Empty tensors (``nbytes == 0``, e.g. the placeholder the emitter writes for an optional tensor
argument that is None) move nothing and are ignored. Only Tensor values count; scalars and lists are
looked through (lists via their items, see :mod:`.graph`).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from explorer.analysis.arrays import unique
from explorer.model.program import Device, Plan
from explorer.analysis.facts import Facts
from explorer.analysis.graph import Edges, edges
from explorer.analysis.types import Transfer, TransferTotals

__all__ = ["transfers", "transfer_arrays", "transfer_totals", "transfer_kind"]


def transfer_kind(src: Device, dst: Device) -> str:
    """``same`` | ``h2d`` (host to a device) | ``d2h`` | ``d2d`` (between two non-host devices)."""
    if src == dst or (src.is_host and dst.is_host):
        return "same"
    if src.is_host:
        return "h2d"
    if dst.is_host:
        return "d2h"
    return "d2d"


def transfer_arrays(f: Facts, e: Edges) -> dict[str, np.ndarray]:
    """Transfers as parallel arrays (instr, src, dst, nbytes), in run order; what :func:`transfers`
    makes records of, and what the checks read. Copies are found vectorised; only instructions whose
    tensors sit on several devices (and aren't copies) are looked at one by one."""
    moving = f.is_tensor[e.value] & (f.nbytes[e.value] > 0)
    instr, value, write = e.instr[moving], e.value[moving], e.write[moving]
    m = f.m
    has_r = np.bincount(instr[~write], minlength=m) > 0
    has_w = np.bincount(instr[write], minlength=m) > 0
    code = f.dcode[value]
    lo = np.full(m, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.full(m, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(lo, instr, code)
    np.maximum.at(hi, instr, code)
    both = has_r & has_w
    # Copies: first tensor read -> first tensor written.
    copies = np.flatnonzero(both & f.is_copy)
    first_r = _first_per_instr(instr[~write], value[~write], m)
    first_w = _first_per_instr(instr[write], value[write], m)
    parts = [(copies, first_r[copies], first_w[copies], f.nbytes[first_w[copies]])]
    # Anything else touching several devices: per the module doc.
    mixed = np.flatnonzero(both & ~f.is_copy & (lo != hi))
    if mixed.size:
        bounds = np.searchsorted(instr, np.arange(m + 1))
        rows: list[tuple[int, int, int, int]] = []
        for i in mixed.tolist():
            a, b = int(bounds[i]), int(bounds[i + 1])
            vals, wr = value[a:b].tolist(), write[a:b].tolist()
            reads = [v for v, w in zip(vals, wr) if not w]
            writes = [v for v, w in zip(vals, wr) if w]
            rdev = {int(f.dcode[v]) for v in reads}
            wdev = {int(f.dcode[v]) for v in writes}
            found: dict[tuple[int, int], int] = {}
            for v in reads:
                if int(f.dcode[v]) not in wdev:
                    found.setdefault((v, writes[0]), int(f.nbytes[v]))
            for v in writes:
                if int(f.dcode[v]) not in rdev:
                    found.setdefault((reads[0], v), int(f.nbytes[v]))
            rows.extend((i, s, d, nb) for (s, d), nb in found.items())
        arr = np.asarray(rows, dtype=np.int64).reshape(-1, 4)
        parts.append((arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]))
    cols = [np.concatenate([p[k] for p in parts]).astype(np.int64) for k in range(4)]
    order = np.argsort(cols[0], kind="stable")
    return dict(zip(("instr", "src", "dst", "nbytes"), (c[order] for c in cols)))


def transfers(plan: Plan, f: Facts | None = None, e: Edges | None = None,
              arrays: dict[str, np.ndarray] | None = None) -> tuple[Transfer, ...]:
    """Every transfer of ``plan`` in run order (see the module doc for what counts)."""
    f = f if f is not None else Facts(plan)
    t = arrays if arrays is not None else transfer_arrays(f, e if e is not None else edges(plan, f))
    out = []
    for i, src, dst, nbytes in zip(*(t[k].tolist() for k in ("instr", "src", "dst", "nbytes"))):
        sd, dd = f.value_device(src), f.value_device(dst)
        out.append(Transfer(i, f.label(i), transfer_kind(sd, dd), src, dst, sd, dd, nbytes))
    return tuple(out)


def _first_per_instr(instr: np.ndarray, value: np.ndarray, m: int) -> np.ndarray:
    """Per instruction, the first value among (sorted-by-instruction) edges; 0 where none."""
    out = np.zeros(m, dtype=np.int64)
    if instr.size:
        uniq, pos = unique(instr, return_index=True)
        out[uniq] = value[pos]
    return out


def transfer_totals(items: tuple[Transfer, ...]) -> tuple[TransferTotals, ...]:
    """Count and bytes per (source device, destination device), sorted by device pair."""
    acc: dict[tuple[Device, Device], list[int]] = defaultdict(lambda: [0, 0])
    for t in items:
        row = acc[(t.src_device, t.dst_device)]
        row[0] += 1
        row[1] += t.nbytes
    return tuple(TransferTotals(src, dst, c, b) for (src, dst), (c, b) in sorted(acc.items()))
