"""A plan's values and instructions, decoded column-wise and materialised lazily.

Everything is validated here, at load time: once ``load`` returns, building a ``Tensor`` or an
``Instruction`` object only slices arrays already decoded (no buffer access, so nothing can fail and
the file mapping can be closed). See ``explorer/model/columns.py`` for why objects are lazy.
"""

from __future__ import annotations

import numpy as np

from explorer.model.columns import (ITEMSIZE, OFFSET_SATURATED, STORAGE_CODES, InstructionColumns, LazySeq,
    ValueColumns)
from explorer.errors import PteFormatError
from explorer.model.program import CPU, Device, Instruction, Tensor, Value, _nbytes
from explorer.format.pte import slots as S
from explorer.format.gather import NONE, Gather

__all__ = ["decode_values", "decode_values_many", "decode_instructions", "decode_instructions_many"]

_STORAGE_NAMES = {code: name for name, code in STORAGE_CODES.items()}
_KIND_NAMES = S.KERNEL_TYPES
# KernelTypes tag -> (element dtype of its `items`/value field)
_SCALAR_DTYPES = {2: "<i8", 3: "u1", 4: "<f8"}
_LIST_DTYPES = {7: "<i8", 8: "<f8", 9: "u1", 10: "<i4", 11: "<i4"}
_DEVICES: dict[tuple[int, int], Device] = {(0, 0): CPU}


def device(kind: int, index: int) -> Device:
    """One shared Device object per (type, index): thousands of tensors name the same few devices."""
    dev = _DEVICES.get((kind, index))
    if dev is None:
        dev = _DEVICES[(kind, index)] = Device(kind, index)
    return dev


def decode_values(g: Gather, vec: int | None, path: str = "values[{}]"):
    """-> (LazySeq of Value/Tensor, ValueColumns) of one plan's ``values`` vector."""
    return decode_values_many(g, [vec], path)[0][0]


def decode_values_many(g: Gather, vecs: list, path: str = "values[{}]") -> tuple[list, np.ndarray]:
    """The ``values`` vectors of several plans decoded in one columnar pass -> (per plan its (LazySeq,
    ValueColumns), per plan the bytes of elements charged for it).

    A program of thousands of small plans spent ~2 ms per plan in the fixed cost of a few hundred numpy
    calls on arrays of twenty elements; one pass over all of them costs what one big plan costs. Each plan's
    columns are views of the shared ones and its objects carry plan-local indices, so the model is the same
    as decoding plan by plan. Element paths in errors count from the first plan: a caller that needs the
    plan's own path decodes that plan alone (``decode_program_fields`` does, on any error)."""
    counts, heads = [], []
    for vec in vecs:
        if vec is None:
            counts.append(0)
            heads.append(0)
        else:
            start, n = g.reader.vector(vec, 4)
            g.reader.charge(4 * n, vec)
            counts.append(n)
            heads.append(vec)
    n_plans = len(vecs)
    count_arr = np.asarray(counts, np.int64)
    bounds = np.zeros(n_plans + 1, np.int64)
    np.cumsum(count_arr, out=bounds[1:])
    n = int(bounds[-1])
    if n_plans == 1:
        pos = np.zeros(0, np.int64) if vecs[0] is None else g.vector_elements(vecs[0], n)
        owner = None
    else:
        pos = g.vectors_elements(np.asarray(heads, np.int64), count_arr)
        owner = np.repeat(np.arange(n_plans, dtype=np.int64), count_arr)  # the plan of each value
    ledger = 4 * count_arr  # bytes charged per plan (the element decoders add theirs)
    F = g.tables(pos, path)
    tag = g.field(pos, F, S.EVALUE_VAL_TYPE, "u1")
    bad = tag > 11
    if bad.any():
        i = int(np.argmax(bad))
        raise PteFormatError(f"EValue union tag {int(tag[i])} is not a KernelTypes member (0-11)",
                             offset=int(pos[i]), path=path.format(i))
    val = g.refs(pos, F, S.EVALUE_VAL, path)
    missing = (tag == 5) & (val == NONE)
    if missing.any():
        i = int(np.argmax(missing))
        raise PteFormatError("Tensor value has no table", offset=int(pos[i]), path=path.format(i))

    owe = _Ledger(ledger, owner)
    tensors = _decode_tensors(g, val[tag == 5], np.flatnonzero(tag == 5), path, n, owe)
    scalars = _decode_scalars(g, tag, val, path, owe)
    tensor_row = np.cumsum(tag == 5) - 1
    text, layout = tensors["text"], tensors["layout"]
    make_tensor, make_scalar = tensors["make"], scalars
    lists: list = []  # tag and tensor row as lists, made with the first object: a check makes none
    columns = tensors["columns"]
    out = []
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        if n_plans == 1:
            cols = ValueColumns(tag, *columns, text=text, layout=layout, table=pos)
        else:
            cols = ValueColumns(tag[lo:hi], *(c[lo:hi] for c in columns), text=_shifted(text, lo),
                                layout=_shifted(layout, lo), table=pos[lo:hi])
        out.append((LazySeq(hi - lo, _value_maker(lo, (tag, tensor_row), lists, make_tensor, make_scalar)), cols))
    return out, owe.ledger


# Objects made before a plan's columns become lists: those reading a few values (one value's details, the JSON of a
# table listed again) read the arrays item by item, so a 2.4M-value plan makes no 2.4M-item lists for them
FEW_OBJECTS = 64


class _Items:
    """A column read item by item as Python numbers (``Sequence``-like: ``[k]`` only)."""

    __slots__ = ("column",)

    def __init__(self, column: np.ndarray) -> None:
        self.column = column

    def __getitem__(self, k: int):
        return self.column[k].item()


def _value_maker(lo: int, columns: tuple, lists: list, make_tensor, make_scalar):
    """Value ``i`` of a plan whose first value is row ``lo`` of the shared columns (its object says ``i``)."""
    at, made = tuple(_Items(c) for c in columns), [0]

    def make(i: int):
        if not lists:
            made[0] += 1
            if made[0] > FEW_OBJECTS:
                lists.extend(c.tolist() for c in columns)
        tag_list, row_list = lists or at
        j = lo + i
        t = tag_list[j]
        if t == 5:
            return make_tensor(i, row_list[j])
        return make_scalar(i, j, t)

    return make


def _shifted(fn, lo: int):
    """A column reader of plan-local value indices over the shared columns (the plan starts at row ``lo``)."""
    if not lo:
        return fn
    return lambda values: fn(np.asarray(values, dtype=np.int64) + lo)


class _Ledger:
    """Bytes of elements charged per plan when several plans decode in one pass: a plan listed twice in a
    program is charged twice (``decode_program_fields``), so its own share must be known."""

    __slots__ = ("ledger", "owner")

    def __init__(self, ledger: np.ndarray, owner: np.ndarray | None) -> None:
        self.ledger, self.owner = ledger, owner

    def ragged(self, values: np.ndarray, starts: np.ndarray, row: np.ndarray, itemsize: int) -> None:
        """What ``Gather.ragged`` charged for vectors read for the values at ``values`` (global indices)."""
        if self.owner is None or not len(row):
            return
        lengths = np.diff(starts)[row] * itemsize
        self.ledger = self.ledger + np.bincount(self.owner[values], weights=lengths,
                                                minlength=len(self.ledger)).astype(np.int64)

    def strings(self, values: np.ndarray, texts, index: np.ndarray) -> None:
        """What ``Gather.strings`` charged for the strings of the values at ``values`` (-1 in ``index``: none)."""
        if self.owner is None or not len(index):
            return
        lengths = np.where(index < 0, 0, texts.sizes()[np.maximum(index, 0)]) if len(texts) else np.zeros(len(index))
        self.ledger = self.ledger + np.bincount(self.owner[values], weights=lengths,
                                                minlength=len(self.ledger)).astype(np.int64)


def _allocations(g: Gather, tp: np.ndarray, F: np.ndarray, tpath: str, index: np.ndarray):
    """Per tensor: planned or not, its arena (``memory_id``, -1 none) and offset (-1 none), and the offsets past
    int64 kept exactly by tensor row (the column saturates them, past any arena)."""
    alloc = g.refs(tp, F, S.TENSOR_ALLOCATION_INFO, tpath, index)
    planned = alloc != NONE
    ap = alloc[planned]
    AF = g.tables(ap, f"{tpath}.allocation_info", index[planned])
    memory_id = np.full(len(tp), -1, np.int64)
    offset = np.full(len(tp), -1, np.int64)
    memory_id[planned] = g.field(ap, AF, S.ALLOC_MEMORY_ID, "<u4")
    low = g.field(ap, AF, S.ALLOC_MEMORY_OFFSET_LOW, "<u4").astype(np.int64)
    high = g.field(ap, AF, S.ALLOC_MEMORY_OFFSET_HIGH, "<u4").astype(np.int64)
    # the offset is a uint64: one past int64 saturates in the column (past any arena), exact in the object
    offset[planned] = np.where(high >= 1 << 31, OFFSET_SATURATED, low | (high << 32))
    giant = high >= 1 << 31
    giant_offsets = dict(zip(np.flatnonzero(planned)[giant].tolist(),
                             (lo | hi << 32 for lo, hi in zip(low[giant].tolist(), high[giant].tolist()))))
    return planned, memory_id, offset, giant_offsets


def _tensor_nbytes(scalar_type: np.ndarray, sizes_flat: np.ndarray, sizes_starts: np.ndarray,
                   sizes_row: np.ndarray) -> np.ndarray:
    """numel x itemsize per tensor, -1 for an unknown dtype or a size no int64 holds."""
    itemsize = ITEMSIZE[scalar_type.astype(np.int64) & 0xFF]
    numel = _products(sizes_flat, sizes_starts)[sizes_row] if len(scalar_type) else np.zeros(0, np.int64)
    nbytes = np.where(itemsize >= 0, numel * itemsize, -1)
    if len(scalar_type):  # int64 products wrap silently: settle shapes near the limit exactly (hostile files only)
        with np.errstate(over="ignore", invalid="ignore"):
            estimate = _products(np.abs(sizes_flat.astype(np.float64)), sizes_starts)[sizes_row] * itemsize
        risky = np.flatnonzero((itemsize >= 0) & ~(estimate < 2.0 ** 62))
        if len(risky):
            shapes = _tuples(sizes_flat, sizes_starts)
            nbytes[risky] = [-1 if b is None else b for b in
                             (_nbytes(shapes[r], s) for r, s in zip(sizes_row[risky].tolist(), itemsize[risky].tolist()))]
    return nbytes


def _decode_tensors(g: Gather, tp: np.ndarray, index: np.ndarray, path: str, n_all: int, owe: "_Ledger") -> dict:
    tpath = f"{path}.val(Tensor)"
    F = g.tables(tp, tpath, index)
    scalar_type = g.field(tp, F, S.TENSOR_SCALAR_TYPE, "i1").astype(np.int16)
    storage_offset = g.field(tp, F, S.TENSOR_STORAGE_OFFSET, "<i4")
    requires_grad = g.field(tp, F, S.TENSOR_REQUIRES_GRAD, "u1")
    data_buffer_idx = g.field(tp, F, S.TENSOR_DATA_BUFFER_IDX, "<u4").astype(np.int64)
    layout = g.field(tp, F, S.TENSOR_LAYOUT, "i1")
    dynamism = g.field(tp, F, S.TENSOR_SHAPE_DYNAMISM, "i1")
    sizes_flat, sizes_starts, sizes_row = g.ragged(g.refs(tp, F, S.TENSOR_SIZES, tpath, index), "<i4", f"{tpath}.sizes", index)
    dims_flat, dims_starts, dims_row = g.ragged(g.refs(tp, F, S.TENSOR_DIM_ORDER, tpath, index), "u1", f"{tpath}.dim_order", index)
    owe.ragged(index, sizes_starts, sizes_row, 4)
    owe.ragged(index, dims_starts, dims_row, 1)

    planned, memory_id, offset, giant_offsets = _allocations(g, tp, F, tpath, index)

    extra = g.refs(tp, F, S.TENSOR_EXTRA_TENSOR_INFO, tpath, index)
    has_extra = extra != NONE
    ep = extra[has_extra]
    epath = f"{tpath}.extra_tensor_info"
    erows = index[has_extra]
    EF = g.tables(ep, epath, erows)
    device_type = np.zeros(len(tp), np.int16)
    device_index = np.zeros(len(tp), np.int16)
    external = np.zeros(len(tp), bool)
    mutable_idx = np.full(len(tp), -1, np.int64)
    device_type[has_extra] = g.field(ep, EF, S.EXTRA_DEVICE_TYPE, "i1")
    device_index[has_extra] = g.field(ep, EF, S.EXTRA_DEVICE_INDEX, "i1")
    external[has_extra] = g.field(ep, EF, S.EXTRA_LOCATION, "i1") == S.TENSOR_DATA_LOCATION_EXTERNAL
    has_mut = np.zeros(len(tp), bool)
    has_mut[has_extra] = EF.column(S.EXTRA_MUTABLE_DATA_SEGMENTS_IDX) != 0
    mutable_idx[has_extra] = g.field(ep, EF, S.EXTRA_MUTABLE_DATA_SEGMENTS_IDX, "<u8").astype(np.int64)
    mutable_idx[~has_mut] = -1
    names, name_row = g.strings(g.refs(ep, EF, S.EXTRA_FULLY_QUALIFIED_NAME, epath, erows),
                                 f"{epath}.fully_qualified_name", erows)
    owe.strings(erows, names, name_row)
    name_of = np.full(len(tp), -1, np.int64)
    name_of[has_extra] = name_row

    storage = np.where(external, 5, np.where(planned, np.where(data_buffer_idx > 0, 3, 2),
                                             np.where(data_buffer_idx > 0, 1, 4))).astype(np.uint8)
    nbytes = _tensor_nbytes(scalar_type, sizes_flat, sizes_starts, sizes_row)

    columns = []
    every = len(tp) == n_all  # every value a tensor: the tensor columns are the value columns, not copied
    for arr, fill in ((scalar_type, -1), (device_type, 0), (device_index, 0), (memory_id, -1), (offset, -1),
                      (nbytes, -1), (storage, 0), (data_buffer_idx, 0)):
        if every:
            columns.append(arr)
            continue
        full = np.full(n_all, fill, arr.dtype)
        full[index] = arr
        columns.append(full)

    cache: dict = {}

    make = _tensor_maker(sizes_flat, sizes_starts, dims_flat, dims_starts, names, giant_offsets,
                         (memory_id, offset, name_of, mutable_idx, dynamism, scalar_type, sizes_row, dims_row,
                          device_type, device_index, storage, data_buffer_idx, requires_grad, storage_offset, layout,
                          has_extra))

    row_of = np.full(n_all, -1, np.int64)
    row_of[index] = np.arange(len(tp))

    def text(values: np.ndarray) -> tuple[list, list]:
        """Names (None: unnamed) and shapes of the tensors at these value indices, without making Tensor
        objects: what a big plan's tables need (a 100k-value plan would spend ~1 s making objects)."""
        rows = row_of[np.asarray(values, dtype=np.int64)]
        sizes_t = cache.get("sizes")
        if sizes_t is None:
            sizes_t = cache["sizes"] = _tuples(sizes_flat, sizes_starts)
        return ([None if k < 0 else names[k] for k in name_of[rows].tolist()],
                [sizes_t[r] for r in sizes_row[rows].tolist()])

    def layout_text(values: np.ndarray) -> tuple:
        """Dim orders and shape dynamism of the tensors at these value indices, each as (an index per tensor,
        the distinct items): no Tensor objects, one tuple per distinct dim order."""
        rows = row_of[np.asarray(values, dtype=np.int64)]
        dims, dim_index = np.unique(dims_row[rows], return_inverse=True)
        dyns, dyn_index = np.unique(dynamism[rows], return_inverse=True)
        # rows are per tensor: deduplicate by content; the usual contiguous order (0, 1, .., k-1) by its length
        # alone, vectorised (a 100k-tensor plan would spend 0.1 s making a tuple per row)
        lo, lens = dims_starts[dims], np.diff(dims_starts)[dims]
        pos = np.repeat(lo - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()), dtype=np.int64)
        step = pos - np.repeat(lo, lens)
        wrong = np.bincount(np.repeat(np.arange(len(dims)), lens), weights=dims_flat[pos] != step, minlength=len(dims))
        table: dict[tuple, int] = {}
        content = np.empty(len(dims), dtype=np.int64)
        plain = wrong == 0
        for k in np.unique(lens[plain]).tolist():
            content[plain & (lens == k)] = table.setdefault(tuple(range(k)), len(table))
        for r in np.flatnonzero(~plain).tolist():
            content[r] = table.setdefault(tuple(dims_flat[lo[r]:lo[r] + lens[r]].tolist()), len(table))
        return (content[dim_index.ravel()], list(table),
                dyn_index.ravel(), [S.SHAPE_DYNAMISM.get(d) or f"unknown({d})" for d in dyns.tolist()])

    # full-length columns padded to the number of values are built by the caller's index space
    return {"columns": columns, "make": make, "text": text, "layout": layout_text}


def _tensor_maker(sizes_flat: np.ndarray, sizes_starts: np.ndarray, dims_flat: np.ndarray, dims_starts: np.ndarray,
                  names, giant_offsets: dict, columns: tuple):
    """``make(i, row)``: the Tensor of value ``i`` whose tensor row is ``row``, read from the columns (as lists,
    made on the first object: a few ms for 100k tensors; then each object reads Python ints, not numpy scalars:
    3,500 small plans make ~60k objects for their summaries)."""
    shared: dict = {}  # (vector, ragged row) -> its tuple: tensors sharing one sizes vector share one tuple
    rows: list = []
    every = (*columns, sizes_starts, dims_starts)
    at, made = tuple(_Items(c) for c in every), [0]  # the first few objects read the arrays: no lists

    def shape_of(flat: np.ndarray, starts: list, r: int) -> tuple:
        key = (flat is sizes_flat, r)
        got = shared.get(key)
        if got is None:
            got = shared[key] = tuple(flat[starts[r]:starts[r + 1]].tolist())
        return got

    def make(i: int, row: int) -> Tensor:
        if not rows:
            made[0] += 1
            if made[0] > FEW_OBJECTS:
                rows.extend(c.tolist() for c in every)
        (mem_l, off_l, name_l, mut_l, dyn_l, st_l, srow_l, drow_l, dt_l, di_l, storage_l, dbi_l, grad_l, so_l,
         layout_l, extra_l, sstarts_l, dstarts_l) = rows or at
        mem = mem_l[row]
        off = giant_offsets.get(row, off_l[row])
        nm, mut = name_l[row], mut_l[row]
        dyn = dyn_l[row]
        return Tensor(i, st_l[row], shape_of(sizes_flat, sstarts_l, srow_l[row]),
                      shape_of(dims_flat, dstarts_l, drow_l[row]),
                      device(dt_l[row], di_l[row]), _STORAGE_NAMES[storage_l[row]],
                      None if mem < 0 else mem, None if mem < 0 else off, dbi_l[row],
                      None if nm < 0 else names[nm], S.SHAPE_DYNAMISM.get(dyn) or f"unknown({dyn})",
                      bool(grad_l[row]), so_l[row], layout_l[row],
                      None if mut < 0 else mut, bool(extra_l[row]))

    return make


def _products(flat: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """numel of each ragged vector (1 for an empty shape, i.e. a scalar tensor); int64 or float64 as ``flat``."""
    counts = np.diff(starts)
    dt = np.float64 if flat.dtype.kind == "f" else np.int64
    out = np.ones(len(counts), dt)
    nz = counts > 0
    if nz.any():
        vals = flat.astype(dt)
        out[nz] = np.multiply.reduceat(vals, starts[:-1][nz])
    return out


def _tuples(flat: np.ndarray, starts: np.ndarray) -> list[tuple]:
    items = flat.tolist()
    bounds = starts.tolist()
    return [tuple(items[bounds[k]:bounds[k + 1]]) for k in range(len(bounds) - 1)]


def _decode_scalars(g: Gather, tag: np.ndarray, val: np.ndarray, path: str, owe: "_Ledger"):
    """Non-tensor values: every field read and checked now; objects made on access."""
    values: dict[int, object] = {}
    for code, dtype in _SCALAR_DTYPES.items():
        idx = np.flatnonzero((tag == code) & (val != NONE))
        if len(idx):
            F = g.tables(val[idx], f"{path}.val({_KIND_NAMES[code]})", idx)
            got = g.field(val[idx], F, S.SCALAR_VALUE_SLOT, dtype)
            conv = bool if code == 3 else (lambda x: x)
            values.update(zip(idx.tolist(), (conv(x) for x in got.tolist())))
    for code, dtype in _LIST_DTYPES.items():
        idx = np.flatnonzero((tag == code) & (val != NONE))
        if len(idx):
            sub = f"{path}.val({_KIND_NAMES[code]})"
            F = g.tables(val[idx], sub, idx)
            flat, starts, row = g.ragged(g.refs(val[idx], F, S.SCALAR_VALUE_SLOT, sub, idx), dtype, f"{sub}.items", idx)
            owe.ragged(idx, starts, row, np.dtype(dtype).itemsize)
            items = _tuples(flat.astype(bool) if code == 9 else flat, starts)
            values.update(zip(idx.tolist(), (items[r] for r in row.tolist())))
    idx = np.flatnonzero((tag == 6) & (val != NONE))
    if len(idx):
        sub = f"{path}.val(String)"
        F = g.tables(val[idx], sub, idx)
        texts, row = g.strings(g.refs(val[idx], F, S.SCALAR_VALUE_SLOT, sub, idx), f"{sub}.string_val", idx)
        owe.strings(idx, texts, row)
        values.update(zip(idx.tolist(), (texts[r] if r >= 0 else "" for r in row.tolist())))
    defaults = {2: 0, 3: False, 4: 0.0, 6: "", 7: (), 8: (), 9: (), 10: (), 11: ()}

    def make(i: int, j: int, t: int) -> Value:
        """Value ``i`` of its plan, row ``j`` of the columns."""
        return Value(i, _KIND_NAMES[t], values.get(j, defaults.get(t)))

    return make


# -- instructions -------------------------------------------------------------------------------------

def decode_instructions(g: Gather, chain_vecs: list[int | None], op_names: list[str], delegate_ids: list[str],
                        traces: list[list], path: str = "chains"):
    """All chains' instructions in run order -> (LazySeq of Instruction, InstructionColumns, chain bounds)."""
    return decode_instructions_many(g, [(chain_vecs, op_names, delegate_ids, traces)], path)[0][0]


def decode_instructions_many(g: Gather, plans: list[tuple], path: str = "chains") -> tuple[list, np.ndarray]:
    """The instructions of several plans (each ``(chain_vecs, op_names, delegate_ids, traces)``) decoded in one
    columnar pass -> (per plan its (LazySeq of Instruction, InstructionColumns, chain bounds), per plan the
    bytes of elements charged for it). Chains are numbered from the first plan's in error paths; see
    :func:`decode_values_many` for why plans are decoded together."""
    chain_vecs = [vec for vecs, *_ in plans for vec in vecs]
    chains_per_plan = np.asarray([len(p[0]) for p in plans], np.int64)
    traces = [t for p in plans for t in p[3]]
    counts_l, heads, bounds = [], [], [0]
    for c, vec in enumerate(chain_vecs):
        if vec is None:
            bounds.append(bounds[-1])
            counts_l.append(0)
            heads.append(0)
            continue
        try:
            _, count = g.reader.vector(vec, 4)
            g.reader.charge(4 * count, vec)
        except PteFormatError as exc:
            raise exc.within(f"{path}[{c}].instructions") from None
        counts_l.append(count)
        heads.append(vec)
        bounds.append(bounds[-1] + count)
    vec_counts = np.asarray(counts_l, np.int64)
    pos = g.vectors_elements(np.asarray(heads, np.int64), vec_counts)
    chain = np.repeat(np.arange(len(chain_vecs), dtype=np.int64), vec_counts)
    bounds_arr = np.asarray(bounds, np.int64)

    def label(i: int) -> str:
        c = int(chain[i])
        return f"{path}[{c}].instructions[{i - int(bounds_arr[c])}]"

    ipath = "{}"
    F = g.tables(pos, ipath, label)
    tag = g.field(pos, F, S.INSTRUCTION_ARGS_TYPE, "u1")
    bad = tag > 5
    if bad.any():
        i = int(np.argmax(bad))
        c = int(chain[i])
        raise PteFormatError(f"Instruction union tag {int(tag[i])} is not an InstructionArguments member (0-5)",
                             offset=int(pos[i]), path=f"{path}[{c}].instructions[{i - bounds[c]}]")
    ap = g.refs(pos, F, S.INSTRUCTION_ARGS, ipath, label)
    live = (ap != NONE) & (tag != 0)
    lp = ap[live]
    live_idx = np.flatnonzero(live)
    AF = g.tables(lp, "{}.instr_args", lambda i: label(int(live_idx[i])))
    n = len(pos)
    first = np.full(n, -1, np.int64)
    second = np.full(n, -1, np.int64)
    first[live] = g.field(lp, AF, 0, "<i4")
    second[live] = g.field(lp, AF, 1, "<i4")  # slot 1: args offset (calls), move_to / destination
    calls = live & ((tag == 1) | (tag == 2))
    arg_vecs = np.full(n, NONE, np.int64)
    is_call = calls[live]
    call_idx_all = live_idx[is_call]
    arg_vecs[calls] = g.refs(lp[is_call], AF[is_call], S.CALL_ARGS, "{}.instr_args",
                             lambda i: label(int(call_idx_all[i])))
    flat, starts, row = g.ragged(arg_vecs, "<i4", "{}.instr_args.args", label)
    counts = np.diff(starts)[row]
    # values each instruction names, flat in run order (Move: from,to; Jump: cond; Free: value)
    names_count = np.where(calls, counts, np.where(live & (tag == 3), 2, np.where(live & ((tag == 4) | (tag == 5)), 1, 0)))
    total = int(names_count.sum())
    if total > g.end:
        raise PteFormatError(f"instructions name {total} values in all, more than the {g.end}-byte flatbuffer "
                             f"can hold without aliasing", path=f"{path}[*].instructions")
    out_starts = np.zeros(n + 1, np.int64)
    np.cumsum(names_count, out=out_starts[1:])
    out_args = np.empty(total, np.int64)
    call_idx = np.flatnonzero(calls & (counts > 0))
    if len(call_idx):
        ck = counts[call_idx]
        j = np.arange(int(ck.sum()), dtype=np.int64) - np.repeat(np.cumsum(ck) - ck, ck)
        out_args[np.repeat(out_starts[call_idx], ck) + j] = flat[np.repeat(starts[row[call_idx]], ck) + j]
    moves = np.flatnonzero(live & (tag == 3))
    out_args[out_starts[moves]] = first[moves]
    out_args[out_starts[moves] + 1] = second[moves]
    singles = np.flatnonzero(live & ((tag == 4) | (tag == 5)))
    out_args[out_starts[singles]] = first[singles]
    target = np.where(live & ((tag == 1) | (tag == 2)), first, np.where(live & (tag == 4), second, -1))
    trace_of = [None] * n
    for c, chain_traces in enumerate(traces):
        for k, frames in enumerate(chain_traces[:bounds[c + 1] - bounds[c]]):
            trace_of[bounds[c] + k] = frames
    # the columns as lists, made with the first Instruction object (a check makes none)
    shared = _Lists((tag, first, second, chain, live, out_starts, out_args), trace_of)
    if len(plans) == 1:
        cols = InstructionColumns(tag, target, out_starts, out_args, traces=trace_of)
        charged = 4 * (int(vec_counts.sum()) + int(counts.sum()))
        return [(LazySeq(n, _instruction_maker(0, 0, plans[0][1], plans[0][2], shared)), cols, bounds)], \
            np.asarray([charged], np.int64)
    first_chain = np.zeros(len(plans) + 1, np.int64)
    np.cumsum(chains_per_plan, out=first_chain[1:])
    owner_of_chain = np.repeat(np.arange(len(plans), dtype=np.int64), chains_per_plan)
    # what the reader was charged: each chain's vector of offsets, each call's arguments (per reference)
    ledger = np.bincount(owner_of_chain, weights=4 * vec_counts, minlength=len(plans)).astype(np.int64)
    if n:
        ledger += np.bincount(owner_of_chain[chain], weights=4 * counts, minlength=len(plans)).astype(np.int64)
    out = []
    for k, (c0, c1) in enumerate(zip(first_chain[:-1].tolist(), first_chain[1:].tolist())):
        lo, hi = bounds[c0], bounds[c1]
        a0, a1 = int(out_starts[lo]), int(out_starts[hi])
        cols = InstructionColumns(tag[lo:hi], target[lo:hi], out_starts[lo:hi + 1] - a0, out_args[a0:a1],
                                  traces=trace_of[lo:hi])
        out.append((LazySeq(hi - lo, _instruction_maker(lo, c0, plans[k][1], plans[k][2], shared)), cols,
                    [b - lo for b in bounds[c0:c1 + 1]]))
    return out, ledger


class _Lists:
    """Columns turned into lists on first use, shared by the plans of one pass."""

    __slots__ = ("columns", "traces", "lists")

    def __init__(self, columns: tuple, traces: list) -> None:
        self.columns, self.traces, self.lists = columns, traces, None

    def get(self) -> tuple:
        if self.lists is None:
            self.lists = tuple(c.tolist() for c in self.columns)
        return self.lists


def _instruction_maker(lo: int, c0: int, op_names: list[str], delegate_ids: list[str], shared: _Lists):
    """Instruction ``k`` of a plan whose first instruction is row ``lo`` and first chain ``c0`` of the shared
    columns: its object carries plan-local indices, as decoding the plan alone makes it."""
    kinds, trace_of = S.INSTRUCTION_KINDS, shared.traces
    n_ops, n_dels = len(op_names), len(delegate_ids)

    def make(k: int) -> Instruction:
        tag_l, first_l, second_l, chain_l, live_l, start_l, args_l = shared.get()
        j = lo + k
        t = tag_l[j]
        kind = kinds[t]
        trace = trace_of[j]
        c = chain_l[j] - c0
        if not live_l[j]:
            return Instruction(k, c, kind, stacktrace=trace)
        a, b = first_l[j], second_l[j]
        if t == 1:
            return Instruction(k, c, kind, tuple(args_l[start_l[j]:start_l[j + 1]]), op_index=a,
                               op=op_names[a] if 0 <= a < n_ops else None, stacktrace=trace)
        if t == 2:
            return Instruction(k, c, kind, tuple(args_l[start_l[j]:start_l[j + 1]]), delegate_index=a,
                               delegate=delegate_ids[a] if 0 <= a < n_dels else None, stacktrace=trace)
        if t == 3:
            return Instruction(k, c, kind, move_from=a, move_to=b, stacktrace=trace)
        if t == 4:
            return Instruction(k, c, kind, cond_value_index=a, destination=b, stacktrace=trace)
        return Instruction(k, c, kind, value_index=a, stacktrace=trace)

    return make
