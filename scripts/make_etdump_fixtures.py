"""Make the ETDump fixtures under ``tests/fixtures/etdump/``: real runs, and synthetic device runs.

    python scripts/make_etdump_fixtures.py           # write every dump and tests/fixtures/etdump/README.md
    python scripts/make_etdump_fixtures.py --check   # make them again in memory; exit 1 if any differs

Real dumps (need the ``interop`` extra): each CPU fixture program is run with executorch's own runtime
(pybindings ``_load_for_executorch_from_buffer(..., enable_etdump=True)``) several times, then
``write_etdump_result_to_file``. Their times differ on every run, so ``--check`` compares what must
not change — the run blocks and every event's name, chain, instruction id and delegate id — and
ignores the times.

Synthetic dumps (``synthetic_*.etdp``): a device program can't run here (no GPU), so for the
``device_*.pte`` fixtures this script writes the events executorch's runtime would record — a
``Default`` block with ``Method::init``, then per run ``OPERATOR_CALL`` around ``native_call_<op>`` for
each kernel, per-node delegate events (integer debug ids) inside ``DELEGATE_CALL``, and
``Method::execute`` around the run — with times from a fixed cost model (below) and a seeded jitter,
through our writer. They are byte-for-byte reproducible and ``--check`` compares bytes. The cost model
is invented, not measured: it only has to make copies, delegates and kernels distinguishable.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "fixtures"
OUT = PROGRAMS / "etdump"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/fixture_io.py
from fixture_io import run_etdump  # noqa: E402

from explorer.format.companions.etdump import load_etdump  # noqa: E402
from writers.etdump import SynthRun, write_etdump  # noqa: E402
from explorer.model.profile import ProfileEvent  # noqa: E402

RUNS = 5

# name -> (program, [(method, input shapes)] run in this order, RUNS times)
REAL = {
    "mlp.etdp": ("mlp.pte", [("forward", [(2, 4)])]),
    "xnnpack_mlp.etdp": ("xnnpack_mlp.pte", [("forward", [(2, 4)])]),
    "two_methods.etdp": ("two_methods.pte", [("encode", [(1, 4)]), ("forward", [(1, 2)])]),
    # from the zoo: control flow (cond's branches, map's loop re-running instructions), three methods,
    # a quantized XNNPACK delegate reporting its operators
    "zoo_cond.etdp": ("zoo/cond.pte", [("forward", [(2, 4)])]),
    "zoo_map.etdp": ("zoo/map.pte", [("forward", [(3, 4), (4,)])]),
    "zoo_multi_method.etdp": ("zoo/multi_method.pte", [("encode", [(1, 6)]), ("decode", [(3, 1)]),
                                                        ("score", [(4,), (4,)])]),
    "zoo_quant_xnnpack.etdp": ("zoo/quant_xnnpack.pte", [("forward", [(1, 3, 6, 6)])]),
}

# Cost model of the synthetic device runs, in nanoseconds.
KERNEL_NS = {"linear": 6000, "addmm": 6000, "relu": 900, "mul": 1100, "add": 1000, "permute_copy": 700}
KERNEL_DEFAULT_NS = 1500
COPY_LATENCY_NS = 8000  # a host<->device copy's fixed cost (launch + sync)
DELEGATE_NODE_NS = 2500  # per node inside a device delegate call
DELEGATE_OVERHEAD_NS = 1500
GAP_NS = 300  # executor bookkeeping between instructions
# name -> (program, host<->device bandwidth in bytes per ns (= GB/s), jitter, seed)
SYNTHETIC = {
    "synthetic_device_add.etdp": ("device_add.pte", 12.0, 0.05, 1),
    "synthetic_device_mlp.etdp": ("device_mlp.pte", 12.0, 0.05, 2),
    "synthetic_slow_copies.etdp": ("device_mlp.pte", 0.002, 0.05, 3),  # copies dominate the run
}


# -- real runs ------------------------------------------------------------------------------------------

def run_real(program: str, calls, runs: int = RUNS) -> bytes:
    """Run ``program`` with executorch's runtime ``runs`` times per method; the ETDump it writes."""
    return run_etdump((PROGRAMS / program).read_bytes(), calls, runs)


def signature(data: bytes) -> list:
    """What a real dump must keep from one run to the next: blocks and events without their times."""
    dump = load_etdump(data)
    return [(r.name, [(e.name, e.chain_index, e.instruction_id, e.delegate_debug_id_int, e.delegate_debug_id_str)
                      for e in r.profile_events]) for r in dump.runs]


# -- synthetic device runs --------------------------------------------------------------------------------

def synthesize(program_path: Path, bandwidth: float, jitter: float, seed: int, runs: int = RUNS) -> bytes:
    """Events executorch's runtime would write for ``runs`` runs of ``forward`` (see the module doc)."""
    import explorer
    from explorer.analysis.facts import Facts
    from explorer.analysis.graph import edges
    from explorer.analysis.transfers import transfer_arrays

    program = explorer.load(program_path)
    plan = program.plan("forward")
    f = Facts(plan)
    t = transfer_arrays(f, edges(plan, f))
    copy_bytes = {}
    for i, nb in zip(t["instr"].tolist(), t["nbytes"].tolist()):
        if f.is_copy[i]:
            copy_bytes.setdefault(i, nb)
    rng = random.Random(seed)

    def cost(base: float) -> int:
        return max(1, int(round(base * (1 + rng.uniform(-jitter, jitter)))))

    clock = 1_000_000
    out = [SynthRun("Default", (ProfileEvent("Method::init", -1, 0, start_time=clock, end_time=clock + 40_000),
                                ProfileEvent("Program::load_method", -1, 0, start_time=clock - 2000,
                                             end_time=clock + 45_000)))]
    clock += 100_000
    for _ in range(runs):
        events = []
        run_start = clock
        clock += 400
        for chain in plan.chains:
            for i in range(chain.start, chain.stop):
                ins = plan.instructions[i]
                local = i - chain.start
                if ins.kind == "KernelCall":
                    op = (ins.op or "").split("::", 1)[-1]
                    if i in copy_bytes:
                        span = cost(COPY_LATENCY_NS + copy_bytes[i] / bandwidth)
                    else:
                        span = cost(KERNEL_NS.get(op.split(".")[0], KERNEL_DEFAULT_NS))
                    outer0 = clock
                    inner0 = outer0 + cost(200)
                    inner1 = inner0 + span
                    outer1 = inner1 + cost(150)
                    events.append(ProfileEvent(f"native_call_{op}", chain.index, local, start_time=inner0,
                                               end_time=inner1))
                    events.append(ProfileEvent("OPERATOR_CALL", chain.index, local, start_time=outer0,
                                               end_time=outer1))
                    clock = outer1
                elif ins.kind == "DelegateCall":
                    outer0 = clock
                    at = outer0 + cost(DELEGATE_OVERHEAD_NS / 2)
                    for node in range(1, 1 + max(1, len(ins.args) // 2)):
                        span = cost(DELEGATE_NODE_NS)
                        events.append(ProfileEvent(None, chain.index, local, delegate_debug_id_int=node,
                                                   start_time=at, end_time=at + span))
                        at += span
                    outer1 = at + cost(DELEGATE_OVERHEAD_NS / 2)
                    events.append(ProfileEvent("DELEGATE_CALL", chain.index, local, start_time=outer0,
                                               end_time=outer1))
                    clock = outer1
                clock += cost(GAP_NS)
        clock += 300
        events.append(ProfileEvent("Method::execute", -1, 0, start_time=run_start, end_time=clock))
        out.append(SynthRun("Execute", tuple(events)))
        clock += 50_000
    return write_etdump(out)


# -- driver -----------------------------------------------------------------------------------------------

def make_all(real: bool = True) -> dict[str, bytes]:
    made = {}
    for name, (program, bandwidth, jitter, seed) in SYNTHETIC.items():
        made[name] = synthesize(PROGRAMS / program, bandwidth, jitter, seed)
    if real:
        for name, (program, calls) in REAL.items():
            made[name] = run_real(program, calls)
    return made


def readme() -> str:
    rows = []
    for name, (program, calls) in REAL.items():
        methods = " then ".join(m for m, _ in calls)
        rows.append(f"| `{name}` | `{program}` | real: executorch 1.5.1 runtime, {RUNS} runs of {methods} |")
    for name, (program, bandwidth, _, seed) in SYNTHETIC.items():
        rows.append(f"| `{name}` | `{program}` | **synthetic** (our writer, cost model; host<->device "
                    f"{bandwidth:g} bytes/ns, seed {seed}), {RUNS} runs of forward |")
    return "\n".join([
        "# ETDump fixtures",
        "",
        "Generated - do not edit: `python scripts/make_etdump_fixtures.py` (real runs need the `interop` extra).",
        "`--check` makes them again: synthetic dumps must be byte-identical, real ones must have the same",
        "blocks and events (their times change on every run).",
        "",
        "| file | program | how |",
        "|---|---|---|",
        *rows,
        "",
        "Synthetic dumps stand in for device runs that can't happen on this machine (no GPU): their times",
        "come from a cost model in the script, not from a device.",
        "",
    ])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="make in memory and compare with the files on disk")
    args = ap.parse_args(argv)
    made = make_all()
    if args.check:
        bad = []
        for name, data in made.items():
            path = OUT / name
            if not path.exists():
                bad.append(f"{name}: missing")
            elif name in SYNTHETIC and path.read_bytes() != data:
                bad.append(f"{name}: bytes differ")
            elif name in REAL and signature(path.read_bytes()) != signature(data):
                bad.append(f"{name}: blocks or events differ")
        if (OUT / "README.md").read_text() != readme():
            bad.append("README.md differs")
        for line in bad:
            print(line)
        print("ok" if not bad else f"{len(bad)} difference(s)")
        return 1 if bad else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in made.items():
        (OUT / name).write_bytes(data)
        print(f"wrote {name} ({len(data)} bytes)")
    (OUT / "README.md").write_text(readme())
    return 0


if __name__ == "__main__":
    sys.exit(main())
