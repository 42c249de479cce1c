"""Human text of a joined profile (``inspect --profile``) and of two compared (``diff --profile``).

Times are printed in the dump's ticks with a readable unit when the ticks are nanoseconds (executorch's
CPU runtime): ``12.2 µs``, as the browser app writes them (``profile/profile.js`` ``fmtTime``). Every number says over how many runs it was taken.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.model.program import Plan
from explorer.units import count, nbytes_text
from explorer.analysis.naming import instruction_text
from explorer.analysis.profile.join import PlanProfile, Profile
from explorer.analysis.profile.compare import ProfileDiff

__all__ = ["time_text", "profile_lines", "profile_header_lines", "profile_diff_lines"]


def time_text(ticks: float, tick_ns: float = 1.0) -> str:
    """``850 ns``, ``12.2 µs``, ``3.40 ms``, ``1.20 s``; ``-`` when there is no value."""
    if ticks is None or (isinstance(ticks, float) and math.isnan(ticks)):
        return "-"
    ns = ticks * tick_ns
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}" if abs(ns) / scale < 100 else f"{ns / scale:.0f} {unit}"
    return f"{ns:.0f} ns"


def profile_header_lines(profile: Profile, name: str) -> list[str]:
    """What was joined: runs per plan, and the findings (runs left out, clock problems)."""
    joined = ", ".join(f"{p}: {count(len(pp.runs), 'run')}" for p, pp in profile.plans.items()) or "no runs joined"
    lines = [f"profile {name}: {joined}"]
    for f in profile.findings:
        lines.append(f"  [{f.code}] {f.message}")
    return lines


def profile_lines(plan: Plan, pp: PlanProfile, *, limit: int = 10, indent: str = "  ") -> list[str]:
    """Per plan: run time, per device (total and share), copies per direction, top instructions, and every
    profiled instruction when there are few."""
    t = lambda x: time_text(x, pp.tick_ns)  # noqa: E731
    run = pp.run
    lines = [f"{indent}profile ({count(len(pp.runs), 'run')}; median [min..max] per run, ticks as stored = ns):",
             f"{indent}  run        {t(run.median):>10} [{t(run.min)}..{t(run.max)}]"]
    for d in pp.devices:
        share = f"{100 * d.share:5.1f}%" if not math.isnan(d.share) else "   - "
        lines.append(f"{indent}  {d.device:<10} {t(d.stat.median):>10}  {share} of the run  "
                     f"({d.instructions} instruction{'s' if d.instructions != 1 else ''})")
    for c in pp.copies:
        rate = f"{nbytes_text(int(c.bytes_per_s))}/s" if not math.isnan(c.bytes_per_s) else "-"
        lines.append(f"{indent}  copies {c.direction:<4} {c.count} per run, {nbytes_text(c.nbytes)}, "
                     f"{t(c.stat.median)} [{t(c.stat.min)}..{t(c.stat.max)}], {rate} effective")
    top = pp.top(limit)
    if top:
        lines.append(f"{indent}  top {count(len(top), 'instruction')} by median time:")
        for i, s in top:
            where = pp.instruction_device[i] or "-"
            calls = pp.calls[:, i][pp.calls[:, i] > 0] if pp.calls is not None else None
            loop = f" (x{int(np.median(calls))} per run)" if calls is not None and calls.size and calls.max() > 1 else ""
            lines.append(f"{indent}    {t(s.median):>10} [{t(s.min)}..{t(s.max)}] n={s.n:<3} {where:<8} "
                         f"{instruction_text(plan, i)}{loop}")
    if pp.delegate_nodes:
        lines.extend(_delegate_node_lines(pp, t, limit, indent))
    return lines


def _delegate_node_lines(pp: PlanProfile, t, limit: int, indent: str) -> list[str]:
    """The nodes a delegate's backend named; a backend that timed only the whole call (XNNPACK without its own
    profiler: every node at 0) is said so once, not listed at "0 ns"."""
    timed = any(d.stat.n and d.stat.median > 0 for d in pp.delegate_nodes)
    lines = [f"{indent}  delegate nodes (as the backend reported them):" if timed else
             f"{indent}  delegate nodes: only the delegate's total is reported (its backend gave these "
             f"{count(len(pp.delegate_nodes), 'node')} no time of their own)"]
    for d in sorted(pp.delegate_nodes, key=lambda d: -d.stat.median if d.stat.n else 0)[:limit]:
        node = (f" = subgraph node {d.node[1]} ({d.node[2]})" if isinstance(d.node, tuple) and len(d.node) == 4
                else "")
        when = f"{t(d.stat.median):>10} n={d.stat.n:<3} " if timed else ""
        lines.append(f"{indent}    {when}instruction {d.instruction}: {d.debug_id!s}{node}")
    return lines


def profile_diff_lines(d: ProfileDiff, *, limit: int = 10, tick_ns: float = 1.0) -> list[str]:
    t = lambda x: time_text(x, tick_ns)  # noqa: E731
    lines = [f"profile of plan {d.plan!r}: run {t(d.run_a)} -> {t(d.run_b)}"]
    for dev in d.devices:
        lines.append(f"  {dev.device:<10} {t(dev.a):>10} -> {t(dev.b):<10}")
    changed = [r for r in d.instructions if r.delta]
    if changed:
        lines.append(f"  instructions by change (largest first{', first ' + str(limit) if len(changed) > limit else ''}):")
    for r in changed[:limit]:
        sign = "+" if r.delta > 0 else "-"
        ratio = f" (x{r.ratio:.2f})" if not math.isnan(r.ratio) else ""
        where = f"A#{r.a}" if r.a is not None else "only B"
        where += f" -> B#{r.b}" if r.b is not None and r.a is not None else (f" #{r.b}" if r.b is not None else " only A")
        lines.append(f"    {sign}{t(abs(r.delta)):>10}{ratio:<10} {r.label} [{where}]: {t(r.a_median)} -> {t(r.b_median)}")
    if len(changed) > limit:
        lines.append(f"    ... and {len(changed) - limit} more")
    return lines
