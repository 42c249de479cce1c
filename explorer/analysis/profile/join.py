"""Join an ETDump to its program: time per instruction, per delegate node, per device and per copy.

What executorch's runtime records (checked on dumps it wrote here, ``tests/fixtures/etdump/``): one
``RunData`` block per event block — ``Default`` for loading and ``Method::init``, then one ``Execute``
per run of a method. In a run, every instruction gets an *envelope* event (``OPERATOR_CALL`` for a
kernel, ``DELEGATE_CALL`` for a delegate call, ``MOVE_CALL``, ``JF_CALL``, ``FREE_CALL``) with ``chain_index`` and ``instruction_id`` (its index
inside the chain), a kernel also gets the kernel's own span (``native_call_<op>``), a backend may add
one event per node of its subgraph carrying a delegate debug id (XNNPACK: the operator's name), and
``Method::execute`` (``chain_index`` -1) spans the whole run. The block does *not* say which method
ran, so each run is matched to the plan it fits (:func:`assign_runs`):

* an event's instruction must exist (chain in range, ``instruction_id`` below the chain's length);
* ``OPERATOR_CALL`` / ``native_call_*`` only on a KernelCall, and ``native_call_<name>`` must name that
  instruction's operator; ``DELEGATE_CALL`` and delegate node events only on a DelegateCall; the other
  envelopes only on an instruction of their kind.

A run that fits no plan, or several equally, is reported as a finding and left out — never drawn on
the wrong instructions (when several fit, the one whose every instruction the run executed wins);
when no run fits at all :class:`ProfileMismatch` is raised. A run block named
like a plan is that plan's (and must fit it).

Times: a duration is ``end_time - start_time`` in the dump's ticks (executorch's CPU runtime writes
nanoseconds). As executorch's ``Inspector`` does, a span whose 32-bit counter wrapped (start > end, both
below 2**32) is ``2**32 - 1 - start + end``; any other negative span is dropped with a finding. An
instruction's time in a run is the sum of its envelope events (several when a loop ran it again —
``calls``; executorch's Inspector keeps only the last of them), or of its kernel spans when the runtime
wrote no envelope. Over the runs of a plan each instruction gets
median, min, max and ``n`` (runs that executed it); per device, per copy direction and for the whole
run the per-run totals are aggregated the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Mapping

import numpy as np

from explorer.analysis.arrays import isin
from explorer.errors import ProfileMismatch
from explorer.model.program import Plan, Program
from explorer.model.profile import ETDump
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.groups import op_devices
from explorer.analysis.transfers import transfer_arrays, transfer_kind
from explorer.analysis.types import Finding
from explorer.analysis.profile.nodes import subgraph_resolver

__all__ = ["join_profile", "profile_json", "assign_runs", "Profile", "PlanProfile", "Stat", "DelegateNodeTime", "DeviceTime",
           "CopyTime", "ProfileMismatch", "NodeResolver", "UNIT", "ENVELOPES"]

UNIT = "ticks"
# the span executorch's Method::execute_instruction opens around each instruction, by instruction kind
# (KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall = instruction kind codes 1..5)
ENVELOPES = ("OPERATOR_CALL", "DELEGATE_CALL", "MOVE_CALL", "JF_CALL", "FREE_CALL")
KERNEL_PREFIX = "native_call_"
RUN_EVENT = "Method::execute"
_WRAP = 2 ** 32 - 1  # executorch's Inspector: max uint32, for counters that wrapped

# (delegate index, debug id int or str) -> a node of the decoded delegate subgraph, or None
NodeResolver = Callable[[int, "int | str"], object]


@dataclass(frozen=True)
class Stat:
    """Median, min and max over the runs that had a value, and how many did."""
    median: float
    min: float
    max: float
    n: int

    @staticmethod
    def of(samples: np.ndarray) -> "Stat":
        s = samples[~np.isnan(samples)]
        if not s.size:
            return Stat(float("nan"), float("nan"), float("nan"), 0)
        return Stat(float(np.median(s)), float(s.min()), float(s.max()), int(s.size))

    def to_json(self) -> dict:
        return {"median": _num(self.median), "min": _num(self.min), "max": _num(self.max), "n": self.n}


@dataclass(frozen=True)
class DelegateNodeTime:
    """Time of one node inside a delegate call, as the backend reported it by debug id."""
    instruction: int
    debug_id: "int | str"
    stat: Stat
    node: object = None  # what the resolver found in the decoded delegate subgraph (None: not resolved)


@dataclass(frozen=True)
class DeviceTime:
    device: str  # "cpu", "cuda:0"... or "copies", "other" (instructions with no single device)
    stat: Stat  # per-run total
    share: float  # median total / median run time
    instructions: int  # how many profiled instructions count here


@dataclass(frozen=True)
class CopyTime:
    direction: str  # h2d | d2h | d2d | same
    count: int  # copy instructions per run
    nbytes: int  # bytes per run
    stat: Stat  # per-run total time
    bytes_per_s: float  # nbytes / median total, ticks read as nanoseconds (see tick_ns)


@dataclass(frozen=True, eq=False)
class PlanProfile:
    """The runs of one plan, joined to its instructions."""
    plan: str
    runs: tuple[int, ...]  # RunData indices (in the dump) joined to this plan
    times: np.ndarray  # float64 (len(runs), instructions): each run's time per instruction; NaN = not run
    kernel_times: np.ndarray  # same shape: the kernel's own span (native_call_*), NaN when none
    run_times: np.ndarray  # float64 (len(runs),): Method::execute per run (NaN when not recorded)
    delegate_nodes: tuple[DelegateNodeTime, ...]
    devices: tuple[DeviceTime, ...]
    copies: tuple[CopyTime, ...]
    instruction_device: tuple[str | None, ...]  # the bucket each instruction's time counts in
    tick_ns: float = 1.0
    calls: np.ndarray | None = None  # int64 (len(runs), instructions): envelope events per run (0: not run)

    @cached_property
    def stats(self) -> tuple[Stat, ...]:
        return tuple(Stat.of(self.times[:, i]) for i in range(self.times.shape[1]))

    @cached_property
    def median(self) -> np.ndarray:
        """Median time per instruction (NaN for instructions never profiled)."""
        return np.array([s.median for s in self.stats], dtype=np.float64)

    @cached_property
    def run(self) -> Stat:
        """The whole run: Method::execute, else the sum of its instructions."""
        totals = np.where(np.isnan(self.run_times), np.nansum(self.times, axis=1), self.run_times)
        return Stat.of(totals)

    def top(self, k: int = 10) -> list[tuple[int, Stat]]:
        """The ``k`` instructions with the largest median time, largest first."""
        ranked = sorted((i for i, s in enumerate(self.stats) if s.n), key=lambda i: (-self.stats[i].median, i))
        return [(i, self.stats[i]) for i in ranked[:k]]

    def _instruction_json(self, i: int, s: "Stat") -> dict:
        out = {"index": i, **s.to_json()}
        if self.calls is not None:
            per_run = self.calls[:, i][self.calls[:, i] > 0]
            if per_run.size and per_run.max() > 1:  # a loop ran it several times per run: its time is their sum
                out["calls"] = _num(float(np.median(per_run)))
        return out

    def to_json(self) -> dict:
        """The ``plans[].profile`` object of ``inspect --profile --json``."""
        return {
            "runs": len(self.runs),
            "unit": UNIT,
            "tick_ns": self.tick_ns,
            "run": self.run.to_json(),
            "instructions": [self._instruction_json(i, s) for i, s in enumerate(self.stats) if s.n],
            "devices": {d.device: {**d.stat.to_json(), "share": _num(d.share), "instructions": d.instructions}
                        for d in self.devices},
            "copies": {c.direction: {"count": c.count, "bytes": c.nbytes, "time": c.stat.to_json(),
                                     "bytes_per_s": _num(c.bytes_per_s)} for c in self.copies},
            "top": [{"index": i, "median": _num(s.median)} for i, s in self.top(10)],
            "delegate_nodes": [{"instruction": d.instruction, "debug_id": d.debug_id, **d.stat.to_json(),
                                "node": _node_json(d.node)} for d in self.delegate_nodes],
        }


@dataclass(frozen=True, eq=False)
class Profile:
    """A dump joined to a program: one PlanProfile per plan that has runs, and what did not fit."""
    plans: Mapping[str, PlanProfile]
    findings: tuple[Finding, ...] = ()
    assignment: tuple["str | None", ...] = ()  # per RunData: the plan it was joined to (None: not a run / left out)
    source: str | None = None

    def plan(self, name: str) -> PlanProfile | None:
        return self.plans.get(name)


def _node_json(node) -> dict | None:
    """A resolved subgraph node (profile_nodes.NodeRef) as JSON; other resolvers' results as their text."""
    if node is None:
        return None
    if isinstance(node, tuple) and len(node) == 4:
        return {"delegate": node[0], "index": node[1], "op": node[2], "match": node[3]}
    return {"text": str(node)}


def _num(x: float):
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return None
    return int(x) if float(x).is_integer() else round(float(x), 3)


# -- which run belongs to which plan -------------------------------------------------------------------

@dataclass
class _Rows:
    """Classified profile rows of the whole dump."""
    dur: np.ndarray  # int64 duration after the wrap rule; -1 where invalid
    valid: np.ndarray  # bool
    instr: np.ndarray  # bool: names an instruction (chain >= 0, id >= 0)
    envelope: np.ndarray  # 0 none, 1 OPERATOR_CALL, 2 DELEGATE_CALL
    kernel: np.ndarray  # index into kernel_names (-1 none)
    kernel_names: list[str]
    delegate: np.ndarray  # bool: carries a delegate debug id
    method_run: np.ndarray  # bool: Method::execute


def _rows(dump: ETDump) -> _Rows:
    p = dump.profile
    start, end = p.start.astype(np.uint64), p.end.astype(np.uint64)
    dur = (end.astype(np.int64) - start.astype(np.int64)) if len(p) else np.zeros(0, np.int64)
    neg = end < start
    wrap = neg & (start <= _WRAP) & (end <= _WRAP)
    dur = np.where(wrap, _WRAP - start.astype(np.int64) + end.astype(np.int64), dur)
    huge = (start > np.uint64(2 ** 62)) | (end > np.uint64(2 ** 62))  # int64 arithmetic would overflow
    valid = ~(neg & ~wrap) & ~huge
    names = p.names
    code = {n: k for k, n in enumerate(names)}
    envelope = np.zeros(len(p), np.int8)
    for k, env in enumerate(ENVELOPES, 1):
        if env in code:
            envelope[p.name == code[env]] = k
    kernel_of = np.full(len(names) + 1, -1, np.int64)
    kernel_names = []
    for k, n in enumerate(names):
        if n.startswith(KERNEL_PREFIX):
            kernel_of[k] = len(kernel_names)
            kernel_names.append(n[len(KERNEL_PREFIX):])
    kernel = kernel_of[p.name] if len(p) else np.zeros(0, np.int64)  # name -1 hits the padding slot
    delegate = (p.delegate_id_int != -1) | (p.delegate_id_str != -1)
    method_run = (p.chain_index < 0) & (p.name == code.get(RUN_EVENT, -2))
    instr = (p.chain_index >= 0) & (p.instruction_id >= 0)
    return _Rows(np.where(valid, dur, -1), valid, instr, envelope, kernel, kernel_names, delegate, method_run)


def _short(op: str | None) -> str | None:
    """``aten::add.out`` -> ``add.out``: how executorch's kernel wrappers name their spans."""
    return None if op is None else op.split("::", 1)[-1]


def _misfit(plan: Plan, rows: _Rows, sel: np.ndarray, p) -> str | None:
    """Why the instruction events ``sel`` can't be this plan's, or None when they fit."""
    chains = plan.chains
    chain = p.chain_index[sel]
    iid = p.instruction_id[sel]
    if not len(sel):
        return None
    if int(chain.max()) >= len(chains):
        return f"chain {int(chain.max())} does not exist ({plan.name!r} has {len(chains)})"
    starts = np.array([c.start for c in chains], np.int64)
    lengths = np.array([c.stop - c.start for c in chains], np.int64)
    bad = iid >= lengths[chain]
    if bad.any():
        k = int(np.argmax(bad))
        return (f"instruction_id {int(iid[k])} of chain {int(chain[k])} is out of range ({plan.name!r} chain "
                f"{int(chain[k])} has {int(lengths[chain[k]])} instructions)")
    index = starts[chain] + iid
    f_kind = Facts(plan).ic.kind
    kind = f_kind[index]
    env, ker, dlg = rows.envelope[sel], rows.kernel[sel], rows.delegate[sel]
    for mask, what, need in (((env == 1) | (ker >= 0)) & (kind != 1), "a kernel event", "a KernelCall"), \
                             (((env == 2) | dlg) & (kind != 2), "a delegate event", "a DelegateCall"), \
                             ((env > 2) & (env != kind), "a move/jump/free event", "an instruction of that kind"):
        if mask.any():
            k = int(np.argmax(mask))
            return f"{what} lands on instruction {int(index[k])}, which is not {need} in {plan.name!r}"
    if (ker >= 0).any():
        ops = [_short(i.op) if i.kind == "KernelCall" else None for i in _instructions_at(plan, index[ker >= 0])]
        for j, (k, op) in enumerate(zip(ker[ker >= 0].tolist(), ops)):
            if op is not None and rows.kernel_names[k] != op:
                at = int(index[ker >= 0][j])
                return (f"instruction {at} ran kernel {rows.kernel_names[k]!r}, but {plan.name!r} has "
                        f"{op!r} there")
    return None


def _instructions_at(plan: Plan, index: np.ndarray):
    ins = plan.instructions
    return [ins[i] for i in index.tolist()]


def assign_runs(program: Program, dump: ETDump, method: str | None = None,
                rows: _Rows | None = None) -> tuple[list["str | None"], list[Finding]]:
    """The plan each run block of ``dump`` belongs to (None: not a run of any plan) and why not."""
    rows = rows if rows is not None else _rows(dump)
    p = dump.profile
    names = set(program.plan_names)
    out: list[str | None] = []
    findings: list[Finding] = []
    rows_at = np.flatnonzero(rows.instr)  # instruction events, in run order
    bounds = np.searchsorted(p.run[rows_at], np.arange(len(dump.runs) + 1))
    # runs repeat: the same (chain, id, kind, kernel) signature fits the same plans, so a run's key is
    # the bytes of its rows of one table, and each distinct key is checked once
    sig = np.stack([p.chain_index[rows_at], p.instruction_id[rows_at], rows.envelope[rows_at].astype(np.int64),
                    rows.kernel[rows_at], rows.delegate[rows_at].astype(np.int64)], axis=1) if len(rows_at) else None
    cache: dict[bytes, dict] = {}
    for run in dump.runs:
        lo, hi = int(bounds[run.index]), int(bounds[run.index + 1])
        if lo == hi:
            out.append(None)  # loading/init blocks, or runs that recorded no instruction
            continue
        sel = rows_at[lo:hi]
        key = sig[lo:hi].tobytes()
        fits = cache.get(key)
        if fits is None:
            fits = cache[key] = {plan.name: _misfit(plan, rows, sel, p) for plan in program.plans}
        wanted = method if method is not None else (run.name if run.name in names else None)
        if wanted is not None:
            why = fits.get(wanted, f"the program has no plan {wanted!r}")
            if why is None:
                out.append(wanted)
                continue
            out.append(None)
            findings.append(Finding("profile-mismatch", "error", wanted,
                                    f"run block {run.index} ({run.name!r}) does not fit plan {wanted!r}: {why}"))
            continue
        ok = [name for name, why in fits.items() if why is None]
        if len(ok) > 1:  # several fit: a plan whose every instruction the run executed is the one that ran
            touched = len(set(zip(p.chain_index[sel].tolist(), p.instruction_id[sel].tolist())))
            complete = [n for n in ok if touched == len(program.plan(n).instructions)]
            ok = complete if complete else ok
        if len(ok) == 1:
            out.append(ok[0])
        elif ok:
            out.append(None)
            findings.append(Finding("profile-ambiguous", "warning", "",
                                    f"run block {run.index} fits plans {', '.join(map(repr, ok))} equally; "
                                    f"left out (name the method to join it)"))
        else:
            out.append(None)
            reasons = "; ".join(f"{n}: {why}" for n, why in fits.items())
            findings.append(Finding("profile-mismatch", "error", "",
                                    f"run block {run.index} ({run.name!r}) fits no plan of the program ({reasons})"))
    return out, findings


# -- the join -------------------------------------------------------------------------------------------

def join_profile(program: Program, dump: ETDump, *, method: str | None = None,
                 resolver: "NodeResolver | str | None" = "auto", tick_ns: float = 1.0,
                 strict: bool = True) -> Profile:
    """Join ``dump`` to ``program`` (see the module doc). ``method`` forces every run onto one plan;
    ``resolver`` maps delegate node events to nodes of a decoded delegate subgraph (``"auto"``: the
    decoded XNNPACK subgraphs, :mod:`.profile_nodes`; None: don't); ``tick_ns`` is how
    many nanoseconds a tick is (1 for executorch's CPU runtime), used only for bytes/s. With ``strict``
    a dump none of whose runs fits raises :class:`ProfileMismatch`."""
    if method is not None:
        program.plan(method)  # KeyError naming the plans when it doesn't exist
    rows = _rows(dump)
    assignment, findings = assign_runs(program, dump, method, rows)
    had_runs = any(a is not None for a in assignment) or findings
    if strict and had_runs and all(a is None for a in assignment) and any(f.severity == "error" for f in findings):
        raise ProfileMismatch("the profile does not fit the program: " + findings[0].message)
    bad = (~rows.valid) & isin(dump.profile.run, [i for i, a in enumerate(assignment) if a is not None])
    if bad.any():
        findings.append(Finding("profile-clock", "warning", "",
                                f"{int(bad.sum())} event(s) end before they start (and not by a 32-bit wrap); "
                                f"left out"))
    plans = {}
    runs_of: dict[str, list[int]] = {}
    for i, a in enumerate(assignment):  # once, not once per plan: thousands of plans, thousands of runs
        if a is not None:
            runs_of.setdefault(a, []).append(i)
    for plan in program.plans:
        runs = tuple(runs_of.get(plan.name, ()))
        if runs:
            kept, cut = _bounded_runs(plan, dump, runs)
            if cut is not None:
                findings.append(cut)
                for i in runs[len(kept):]:
                    assignment[i] = None
            plans[plan.name] = _plan_profile(program, plan, dump, rows, kept, resolver, tick_ns)
    return Profile(plans, tuple(findings), tuple(assignment), dump.source)


TABLE_FLOOR = 1 << 22  # cells of a plan's runs x instructions tables always joined
CELLS_PER_EVENT = 16  # ... and this many more per event those runs recorded


def _bounded_runs(plan: Plan, dump: ETDump, runs: tuple[int, ...]) -> tuple[tuple[int, ...], Finding | None]:
    """The runs of ``plan`` its time tables are built for, and the finding that says which were left out.

    A plan's times are a table of runs x instructions, dense: a real dump records about one event per
    instruction per run, so the table is the size of the events. A crafted one can record one event in each of
    60,000 runs of a plan of 1,400 instructions: 3.6 MB asking for 84 million cells (2.4 GB). The tables are
    held to ``TABLE_FLOOR + CELLS_PER_EVENT`` x the events those runs recorded: past that, the first runs that
    fit are joined and the rest left out with a ``profile-truncated`` finding."""
    m = max(1, len(plan.instructions))
    if len(runs) * m <= TABLE_FLOOR:
        return runs, None
    events = int(isin(dump.profile.run, np.asarray(runs, dtype=np.int64)).sum())
    allowed = TABLE_FLOOR + CELLS_PER_EVENT * events
    if len(runs) * m <= allowed:
        return runs, None
    keep = max(1, allowed // m)
    return runs[:keep], Finding(
        "profile-truncated", "warning", plan.name,
        f"{len(runs):,} runs of {plan.name!r} record {events:,} events in all, too few for a table of their times "
        f"on its {len(plan.instructions):,} instructions ({len(runs) * m:,} cells); the first {keep:,} runs are "
        f"joined, the other {len(runs) - keep:,} left out")


def _plan_profile(program: Program, plan: Plan, dump: ETDump, rows: _Rows, runs: tuple[int, ...],
                  resolver: NodeResolver | None, tick_ns: float) -> PlanProfile:
    p = dump.profile
    m = len(plan.instructions)
    R = len(runs)
    starts = np.array([c.start for c in plan.chains] or [0], np.int64)
    run_pos = np.full(len(dump.runs), -1, np.int64)
    run_pos[list(runs)] = np.arange(R)
    r_of = run_pos[p.run] if len(p) else np.zeros(0, np.int64)
    mine = (r_of >= 0) & rows.valid
    at = mine & rows.instr
    index = np.where(at, starts[np.clip(p.chain_index, 0, len(starts) - 1)] + p.instruction_id, 0)
    env = at & (rows.envelope > 0)
    times = _sum_matrix(R, m, r_of, index, rows.dur, env)
    calls = np.zeros((R, m), np.int64)  # envelopes per run: > 1 where a loop ran the instruction again
    if env.any():
        np.add.at(calls, (r_of[env], index[env]), 1)
    kernel = _sum_matrix(R, m, r_of, index, rows.dur, at & (rows.kernel >= 0))
    missing = np.isnan(times)
    times[missing] = kernel[missing]  # no envelope: the runtime timed only the kernel
    run_times = np.full(R, np.nan)  # NaN where the run recorded no Method::execute
    sel = mine & rows.method_run
    if sel.any():
        run_times = np.zeros(R)
        seen = np.zeros(R, bool)
        np.add.at(run_times, r_of[sel], rows.dur[sel])
        seen[r_of[sel]] = True
        run_times[~seen] = np.nan
    nodes = _delegate_nodes(program, plan, p, rows, at & rows.delegate, r_of, index, R, resolver)
    devices, copies, bucket = _device_split(plan, times, run_times, tick_ns)
    return PlanProfile(plan.name, runs, times, kernel, run_times, nodes, devices, copies, bucket, tick_ns, calls)


def _sum_matrix(R: int, m: int, r_of, index, dur, sel) -> np.ndarray:
    out = np.zeros((R, m))
    seen = np.zeros((R, m), bool)
    if sel.any():
        np.add.at(out, (r_of[sel], index[sel]), dur[sel])
        seen[r_of[sel], index[sel]] = True
    out[~seen] = np.nan
    return out


def _delegate_nodes(program: Program, plan: Plan, p, rows: _Rows, sel, r_of, index, R: int,
                    resolver) -> tuple[DelegateNodeTime, ...]:
    if not sel.any():
        return ()
    # per (instruction, debug id) its time in each run that reported it: only those runs (a table of every run
    # per node would be runs x nodes, both as many as the events of a crafted dump)
    acc: dict[tuple, dict[int, float]] = {}
    for k in np.flatnonzero(sel).tolist():
        did = int(p.delegate_id_int[k])
        key = (int(index[k]), did if did != -1 else p.text(int(p.delegate_id_str[k])))
        per_run = acc.get(key)
        if per_run is None:
            per_run = acc[key] = {}
        r = int(r_of[k])
        per_run[r] = per_run.get(r, 0) + float(rows.dur[k])
    if resolver == "auto":
        reported: dict[int, list] = {}
        for (i, did) in acc:
            d = plan.instructions[i].delegate_index
            if d is not None:
                reported.setdefault(d, []).append(did)
        resolver = subgraph_resolver(program, plan, reported)
    out = []
    for (i, did), per_run in acc.items():
        node = None
        if resolver is not None:
            d = plan.instructions[i].delegate_index
            node = resolver(d, did) if d is not None else None
        out.append(DelegateNodeTime(i, did, Stat.of(np.fromiter(per_run.values(), np.float64, len(per_run))), node))
    return tuple(out)


def _device_split(plan: Plan, times: np.ndarray, run_times: np.ndarray, tick_ns: float):
    """Per-run totals per device bucket and per copy direction (copies are their own bucket)."""
    f = Facts(plan)
    e = edges(plan, f)
    dev = op_devices(plan, f, e)
    copy = f.is_copy
    direction: dict[int, str] = {}
    nbytes: dict[int, int] = {}
    t = transfer_arrays(f, e)
    for i, s, d, nb in zip(*(t[k].tolist() for k in ("instr", "src", "dst", "nbytes"))):
        if copy[i] and i not in direction:
            direction[i] = transfer_kind(f.value_device(s), f.value_device(d))
            nbytes[i] = nb
    m = times.shape[1]
    bucket: list[str | None] = []
    for i in range(m):
        if copy[i]:
            bucket.append("copies")
        elif dev[i] >= 0:
            bucket.append(str(f.device(int(dev[i]))))
        else:
            bucket.append("other")
    profiled = ~np.all(np.isnan(times), axis=0) if times.shape[0] else np.zeros(m, bool)
    totals = np.where(np.isnan(run_times), np.nansum(times, axis=1), run_times)
    run_median = float(np.median(totals)) if totals.size else float("nan")
    devices = []
    names = sorted({bucket[i] for i in range(m) if profiled[i]},
                   key=lambda b: (b in ("copies", "other"), b != "cpu", b))
    for name in names:
        cols = [i for i in range(m) if bucket[i] == name and profiled[i]]
        per_run = np.nansum(times[:, cols], axis=1)
        stat = Stat.of(per_run)
        devices.append(DeviceTime(name, stat, stat.median / run_median if run_median > 0 else float("nan"), len(cols)))
    copies = []
    for d in ("h2d", "d2h", "d2d", "same"):
        cols = [i for i in range(m) if direction.get(i) == d]
        if not cols:
            continue
        per_run = np.nansum(times[:, cols], axis=1) if times.shape[0] else np.zeros(0)
        if not profiled[cols].any():
            per_run = np.full(times.shape[0], np.nan)
        stat = Stat.of(per_run)
        total = sum(nbytes[i] for i in cols)
        rate = total / (stat.median * tick_ns * 1e-9) if stat.n and stat.median > 0 else float("nan")
        copies.append(CopyTime(d, len(cols), total, stat, rate))
    return tuple(devices), tuple(copies), tuple(bucket)


def profile_json(doc: dict, profile: Profile, name: str | None) -> dict:
    """Add the profile to an ``inspect --json`` document: ``plans[].profile`` (null for a plan with no
    run) and a top-level ``profile`` saying which dump, how its runs were assigned and what did not fit."""
    for p in doc.get("plans", []):
        pp = profile.plans.get(p["name"])
        p["profile"] = None if pp is None else pp.to_json()
    doc["profile"] = {"file": name, "unit": UNIT, "runs": {n: len(pp.runs) for n, pp in profile.plans.items()},
                      "assignment": list(profile.assignment),
                      "findings": [f.to_json() for f in profile.findings]}
    return doc
