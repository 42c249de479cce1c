"""Join an ETDump's debug events and its debug buffer to a program: per instruction, the tensors it produced.

Which run is which plan's is decided by the profile join's rule (:func:`explorer.analysis.profile.join.assign_runs`,
on the same run blocks' profile events); a program of one plan takes every run with debug events. As executorch's
``Inspector`` does (``EventBlock._gen_from_etdump``: the first run of a signature gives ``debug_data``), the first
run of each plan is read; the others are counted.

What each instruction logged (executorch 1.5.1, checked on the fixtures' runs):

* a **kernel** logs its outputs (the generated kernel wrapper calls ``event_tracer_log_evalue`` on each out
  argument): one tensor per written tensor, in argument order — tied here to the values
  :func:`explorer.analysis.graph.edges` says it writes;
* a **delegate call** logs *every* argument (``runtime/executor/method.cpp``: "we cannot know from the arguments
  which are the inputs and which are the outputs, so we just log everything"), inputs then outputs: with one entry
  per argument they are tied argument by argument and the written ones are its outputs; otherwise the last
  ``num_outputs`` are (the ETRecord's ``instruction_id_to_num_outs_map``, as Inspector reads it, else the number of
  tensors the call writes);
* the **program outputs** are logged after the run with ``output`` set (chain index 2**64-1).

Each output says on which device the plan puts it (the value's device; a delegate's target device when the
value says nothing). NaN/Inf an instruction produced — a kind (NaN, +Inf, -Inf) in an output that none of the
logged tensors it reads has — is a ``numerics-nonfinite`` finding at that instruction, with the counts and the
index of the first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.errors import PteFormatError
from explorer.format.companions.debug_buffer import load_debug_buffer, read_tensor
from explorer.model.numerics import InstructionNumerics, LoggedOutput, Numerics, PlanNumerics
from explorer.model.profile import DebugEvent, ETDump
from explorer.model.program import Plan, Program
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.groups import op_devices
from explorer.analysis.profile.join import assign_runs
from explorer.analysis.types import Finding
from explorer.analysis.numerics.stats import tensor_stats

__all__ = ["join_numerics", "OUTPUT_CHAIN"]

OUTPUT_CHAIN = 2 ** 64 - 1  # chain_index executorch writes on the program outputs' debug events (-1 as u64)


def join_numerics(program: Program, dump: ETDump, buffer: Any, *, method: str | None = None,
                  debug_buffer_name: str | None = None) -> Numerics:
    """Join ``dump``'s debug events to ``program``, reading tensors from ``buffer`` (a path, bytes or a memoryview).

    PteFormatError when a logged tensor does not fit the buffer; ValueError when no run of the dump logged
    anything, or its runs fit no plan."""
    data, path = load_debug_buffer(buffer) if not isinstance(buffer, memoryview) else (buffer, None)
    logged = [r for r in dump.runs if r.debug_events]
    if not logged:
        raise ValueError("the ETDump has no debug events: run the program with a debug buffer "
                         "(load_program(..., enable_etdump=True, debug_buffer_size=N))")
    assignment, findings = assign_runs(program, dump, method)
    if method is None and len(program.plans) == 1:
        only = program.plans[0].name
        assignment = [a if a is not None else (only if r.debug_events and r.profile_count == 0 else None)
                      for a, r in zip(assignment, dump.runs)]
    elif method is not None:
        assignment = [a if a is not None else (method if r.debug_events and r.profile_count == 0 else None)
                      for a, r in zip(assignment, dump.runs)]
    found = list(findings)
    plans = {}
    for plan in program.plans:
        runs = [r.index for r, a in zip(dump.runs, assignment) if a == plan.name and r.debug_events]
        if runs:
            pn, more = _plan_numerics(program, plan, dump.runs[runs[0]].debug_events, runs[0], len(runs), data)
            plans[plan.name] = pn
            found.extend(more)
    if not plans:
        why = findings[0].message if findings else "no run with debug events fits a plan"
        raise ValueError(f"the ETDump's debug events do not fit the program: {why}")
    return Numerics(plans, tuple(found), dump.source, debug_buffer_name or path, len(data))


def _where(run: int, k: int) -> str:
    return f"run_data[{run}].debug_events[{k}].debug_entry"


def _plan_numerics(program: Program, plan: Plan, events: tuple[DebugEvent, ...], run: int, runs: int,
                   data: memoryview) -> tuple[PlanNumerics, list[Finding]]:
    f = Facts(plan)
    e = edges(plan, f)
    devs = op_devices(plan, f, e)
    chains = plan.chains
    m = len(plan.instructions)
    per: dict[int, list[tuple[int, Any, Any]]] = {}  # instruction -> [(event index, LoggedTensor | None, entry)]
    program_out: list[LoggedOutput] = []
    findings: list[Finding] = []
    read = _reader(data, run)
    for k, ev in enumerate(events):
        entry = ev.entry
        if entry is None:
            continue
        if entry.output or ev.chain_index == OUTPUT_CHAIN:
            for t in entry.tensors:
                stats, arr = read(t, k)
                program_out.append(LoggedOutput(stats, None, "cpu", k, arr))
            continue
        if ev.chain_index >= len(chains) or not 0 <= ev.instruction_id < chains[ev.chain_index].stop - \
                chains[ev.chain_index].start:
            raise PteFormatError(f"debug event names instruction {ev.instruction_id} of chain {ev.chain_index}, "
                                 f"which plan {plan.name!r} does not have", path=f"run_data[{run}].debug_events[{k}]")
        i = chains[ev.chain_index].start + ev.instruction_id
        slot = per.setdefault(i, [])
        if entry.tensors:
            for t in entry.tensors:
                slot.append((k, t, entry))
        else:
            slot.append((k, None, entry))  # a scalar argument of a delegate call: keeps the argument count
    # program outputs: the plan's outputs, in order, when the counts agree
    outs = [v for v in plan.outputs if 0 <= v < f.n and f.kind[v] == 5]
    if len(outs) == len(program_out):
        program_out = [LoggedOutput(o.stats, v, str(f.value_device(v)), o.event, o.array)
                       for o, v in zip(program_out, outs)]
    writes = _writes(e, f, m)
    out = []
    for i in sorted(per):
        ins = plan.instructions[i]
        entries = per[i]
        tensor_entries = [(k, t) for k, t, _ in entries if t is not None]
        written = writes[i]
        dev = str(f.device(int(devs[i]))) if devs[i] >= 0 else "cpu"
        o_items: list[tuple[int, Any, int | None]]
        i_items: list[tuple[int, Any, int | None]]
        if ins.kind == "DelegateCall":
            args = list(ins.args)
            if len(entries) == len(args):
                w = set(written)
                pairs = [(k, t, a) for (k, t, _), a in zip(entries, args) if t is not None]
                o_items = [(k, t, a) for k, t, a in pairs if a in w]
                i_items = [(k, t, a) for k, t, a in pairs if a not in w]
            else:
                n_out = min(len(written) or 1, len(tensor_entries))
                o_items = [(k, t, v) for (k, t), v in zip(tensor_entries[len(tensor_entries) - n_out:],
                                                         written[len(written) - n_out:] if len(written) >= n_out
                                                         else [None] * n_out)]
                i_items = [(k, t, None) for k, t in tensor_entries[:len(tensor_entries) - n_out]]
            name = ins.delegate
        else:
            vals: list = written if len(written) == len(tensor_entries) else [None] * len(tensor_entries)
            o_items = [(k, t, v) for (k, t), v in zip(tensor_entries, vals)]
            i_items = []
            name = ins.op
        outputs = tuple(_logged(read, k, t, v, f, dev) for k, t, v in o_items)
        inputs = tuple(_logged(read, k, t, v, f, dev) for k, t, v in i_items)
        out.append(InstructionNumerics(i, outputs, inputs, name))
    findings.extend(_nonfinite(plan, out, e))
    return PlanNumerics(plan.name, run, runs, tuple(out), tuple(program_out)), findings


def _writes(e, f: Facts, m: int) -> list[list[int]]:
    tw = e.write & f.is_tensor[e.value]
    vals = e.value[tw].tolist()
    cuts = np.searchsorted(e.instr[tw], np.arange(m + 1)).tolist()
    return [vals[a:b] for a, b in zip(cuts, cuts[1:])]


def _reader(data: memoryview, run: int):
    """``read(t, k)``: the stats and elements of logged tensor ``t`` (event ``k``), each distinct tensor read and
    summed once. A dump may list one tensor entry in many events (a flatbuffer table listed again): read each time,
    2.4M events naming one 1 MB tensor would scan 2.4 TB (issue 30: work linear in what the file holds)."""
    seen: dict[Any, tuple[Any, Any]] = {}

    def read(t, k: int):
        got = seen.get(t)
        if got is None:
            arr = read_tensor(data, t, _where(run, k))
            got = seen[t] = (tensor_stats(t, arr), arr)
        return got

    return read


def _logged(read, k: int, t, v: int | None, f: Facts, dev: str) -> LoggedOutput:
    stats, arr = read(t, k)
    device = str(f.value_device(v)) if v is not None and 0 <= v < f.n else dev
    return LoggedOutput(stats, v, device, k, arr)


def _kinds(o: LoggedOutput) -> set[str]:
    s = o.stats
    return {w for n, w in ((s.nan, "NaN"), (s.posinf, "+Inf"), (s.neginf, "-Inf")) if n}


def _nonfinite(plan: Plan, instrs: list[InstructionNumerics], e) -> list[Finding]:
    """NaN/Inf first produced at an instruction: a kind of non-finite value (NaN, +Inf, -Inf) in its outputs that no
    logged tensor it reads has (Inf - Inf making NaN is a finding; a NaN passed along is not)."""
    kinds_of: dict[int, set[str]] = {}
    found = []
    for ins in instrs:
        lo, hi = int(e.bounds[ins.instruction]), int(e.bounds[ins.instruction + 1])
        reads = e.value[lo:hi][~e.write[lo:hi]].tolist()
        seen: set[str] = set()
        for v in reads:
            seen |= kinds_of.get(v, set())
        for x in ins.inputs:
            seen |= _kinds(x)
        new: list[tuple[LoggedOutput, set[str]]] = []
        for o in ins.outputs:
            k = _kinds(o)
            if o.value is not None:
                kinds_of[o.value] = k
            if k - seen:
                new.append((o, k - seen))
        if new:
            o, k = new[0]
            s = o.stats
            counts = ", ".join(f"{n} {w}" for n, w in ((s.nan, "NaN"), (s.posinf, "+Inf"), (s.neginf, "-Inf")) if n)
            at = f", first at [{', '.join(map(str, s.first_nonfinite))}]" if s.first_nonfinite is not None else ""
            what = f"%{o.value}" if o.value is not None else "its output"
            found.append(Finding("numerics-nonfinite", "error", plan.name,
                                 f"instruction {ins.instruction} ({ins.name or 'instruction'}) produced "
                                 f"{' and '.join(sorted(k))} on {o.device}: {what} ({s.dtype} {list(s.shape)}) holds "
                                 f"{counts} of {s.numel} values{at}; none of that kind in what it reads",
                                 values=tuple(x.value for x, _ in new if x.value is not None),
                                 instructions=(ins.instruction,)))
    return found
