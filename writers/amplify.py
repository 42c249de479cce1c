"""Crafted inputs that amplify one dimension of a file as far as a size allows: the budget's adversaries.

Each maker returns the files of one case (name -> bytes) and the inputs each command gets (the program first,
then ``--profile``/``--etrecord`` companions): a million memory-planned arenas in 8 MB, thousands of plans,
delegates or chains, hundreds of thousands of values and instructions, tensor names of 4 KB, an ETDump with
hundreds of thousands of events, an ETRecord whose graph holds a hundred thousand nodes. ``scale`` shrinks a
case for the suite (tests/test_budget.py) and the fuzz campaign; ``bench/bench_budget.py`` runs them at full
size. Test-only, like the other writers: valid files, written with the project's own writer.
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path
from typing import Callable

from explorer.model.program import Chain, CompileSpec, Delegate, Instruction
from explorer.model.profile import ProfileEvent
from writers.etdump import SynthRun, write_etdump
from writers.pte import write
from writers.synth import synthetic_program

__all__ = ["CASES", "LISTED", "Case", "make"]

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


@dataclasses.dataclass(frozen=True)
class Case:
    """One crafted input: its files, and the command-line inputs (program first; then options)."""

    name: str
    files: dict[str, bytes]
    program: str  # the file each command opens
    options: tuple[str, ...] = ()  # e.g. ("--profile", "run.etdp"): names among ``files``

    @property
    def size(self) -> int:
        return sum(len(b) for b in self.files.values())


def _arenas(scale: float) -> Case:
    n = max(2, int(1_000_000 * scale))
    p = synthetic_program(200)
    plan = p.plans[0]
    sizes = plan.buffer_sizes + tuple([64] * max(0, n - len(plan.buffer_sizes)))
    p = dataclasses.replace(p, plans=(dataclasses.replace(plan, buffer_sizes=sizes),))
    return Case("arenas", {"arenas.pte": write(p)}, "arenas.pte")


def _plans(scale: float) -> Case:
    p = synthetic_program(20, plans=max(1, int(3500 * scale)))
    return Case("plans", {"plans.pte": write(p)}, "plans.pte")


def _values(scale: float) -> Case:
    return Case("values", {"values.pte": write(synthetic_program(max(10, int(45_000 * scale))))}, "values.pte")


def _delegates(scale: float) -> Case:
    """Delegates, each called once, each with a compile spec: a DelegateCall per step."""
    n = max(1, int(70_000 * scale))
    p = synthetic_program(200)
    plan = p.plans[0]
    spec = (CompileSpec("target_device", b"cuda:0"),)
    delegates = tuple(Delegate(k, f"Backend{k % 7}", "inline", 0, spec) for k in range(n))
    x = plan.inputs[0]
    calls = tuple(Instruction(len(plan.instructions) + k, 0, "DelegateCall", (x, x), delegate_index=k,
                              delegate=delegates[k].id) for k in range(n))
    instructions = tuple(plan.instructions) + calls
    chains = (Chain(0, plan.chains[0].inputs, plan.chains[0].outputs, 0, len(instructions)),)
    p = dataclasses.replace(p, plans=(dataclasses.replace(plan, delegates=delegates, instructions=instructions,
                                                          chains=chains),))
    return Case("delegates", {"delegates.pte": write(p)}, "delegates.pte")


def _chains(scale: float) -> Case:
    """Many chains, each one instruction long (executorch's control flow splits a plan into chains)."""
    n = max(1, int(100_000 * scale))
    p = synthetic_program(200)
    plan = p.plans[0]
    first = plan.instructions[0]
    instructions = tuple(dataclasses.replace(first, index=k, chain=k) for k in range(n))
    chains = tuple(Chain(k, plan.inputs, plan.outputs, k, k + 1) for k in range(n))
    p = dataclasses.replace(p, plans=(dataclasses.replace(plan, instructions=instructions, chains=chains),))
    return Case("chains", {"chains.pte": write(p)}, "chains.pte")


def _names(scale: float) -> Case:
    """Every tensor named with 4 KB (a unicode-heavy name, so escaping is exercised too)."""
    n = max(4, int(2_000 * scale))
    p = synthetic_program(n)
    plan = p.plans[0]
    word = ("layer\u202e<b>&" * 400)[:4096]
    values = tuple(dataclasses.replace(v, name=f"{word}{k}") if getattr(v, "name", None) else v
                   for k, v in enumerate(plan.values))
    p = dataclasses.replace(p, plans=(dataclasses.replace(plan, values=values),))
    return Case("names", {"names.pte": write(p)}, "names.pte")


def _etdump(scale: float) -> Case:
    """A real program and a dump of it whose one run has hundreds of thousands of events."""
    program = (FIXTURES / "mlp.pte").read_bytes()
    n = max(10, int(220_000 * scale))
    events = [ProfileEvent("OPERATOR_CALL", 0, k % 5, start_time=k * 10, end_time=k * 10 + 7) for k in range(n)]
    dump = write_etdump([SynthRun("forward", profile_events=events)])
    return Case("etdump", {"mlp.pte": program, "run.etdp": dump}, "mlp.pte", ("--profile", "run.etdp"))


def _etrecord(scale: float) -> Case:
    """The real ETRecord of net.pte with its forward graph's nodes repeated to about 9 MB, stored."""
    source = FIXTURES / "etrecord" / "net.etrecord"
    member = "edge_dialect_exported_program/forward"
    with zipfile.ZipFile(source) as z:
        members = {i.filename: z.read(i) for i in z.infolist()}
    doc = json.loads(members[member])
    graph = _graph_of(doc)
    nodes = list(graph["nodes"])
    target = int(9_000_000 * scale)
    one = max(1, len(json.dumps(nodes)) // max(1, len(nodes)))
    graph["nodes"] = nodes * max(1, target // (one * len(nodes)))
    members[member] = json.dumps(doc).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:  # stored, as executorch's ETRecord.save writes
        for name, data in members.items():
            z.writestr(name, data)
    return Case("etrecord", {"net.pte": (FIXTURES / "etrecord" / "net.pte").read_bytes(),
                             "big.etrecord": out.getvalue()}, "net.pte", ("--etrecord", "big.etrecord"))


def _graph_of(doc: dict) -> dict:
    """The ``graph`` object of a serialized ExportedProgram (``graph_module.graph``)."""
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("nodes"), list) and "inputs" in node:
                return node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    raise ValueError("no graph with nodes in this ExportedProgram JSON")


def _listed_values(scale: float) -> Case:
    """A plan whose 2.4M values are one tensor table listed again (writers/listed_again.py)."""
    from writers.listed_again import pte_one_value

    return Case("listed_values", {"values.pte": pte_one_value(max(2, int(2_400_000 * scale)))}, "values.pte")


def _listed_entries(scale: float) -> Case:
    """A ``.ptd`` whose 2.4M entries are one table listed again."""
    from writers.listed_again import ptd_one_entry

    return Case("listed_entries", {"one.ptd": ptd_one_entry(max(2, int(2_400_000 * scale)))}, "one.ptd")


def _listed_cases(scale: float) -> Case:
    """A bundled program (mlp.pte) whose one suite lists one test case 2.3M times."""
    from writers.listed_again import bpte_one_case

    program = (FIXTURES / "mlp.pte").read_bytes()
    return Case("listed_cases", {"one.bpte": bpte_one_case(program, max(2, int(2_300_000 * scale)))}, "one.bpte")


CASES: dict[str, Callable[[float], Case]] = {
    "arenas": _arenas, "plans": _plans, "values": _values, "delegates": _delegates, "chains": _chains,
    "names": _names, "etdump": _etdump, "etrecord": _etrecord,
    "listed_values": _listed_values, "listed_entries": _listed_entries, "listed_cases": _listed_cases,
}
# the cases of a table listed again: tests/test_bounded_readers.py holds them to tighter bounds, at half size
LISTED = ("listed_values", "listed_entries", "listed_cases")


def make(name: str, scale: float = 1.0) -> Case:
    """Case ``name`` at ``scale`` (1.0: as big as 10 MB allows)."""
    return CASES[name](scale)
