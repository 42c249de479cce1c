"""Human text: value/instruction names, findings grouped by severity, the per-device summary."""

from __future__ import annotations

from analysis_helpers import PlanBuilder, fixture_paths, reader
from explorer.analysis.pipeline import analyze_program
from explorer.describe.program import device_summary_lines, finding_lines
from explorer.analysis.naming import instruction_text, value_text, values_text
from explorer.units import nbytes_text
from explorer.analysis.types import Finding


def _device_add():
    return reader()(next(p for p in fixture_paths() if p.name == "device_add.pte"))


def test_value_and_instruction_text():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor((2, 3), name="mod.x", arena=1)
    s = b.tensor((), "int64")
    n = b.scalar(3)
    b.kernel("aten::relu.out", x, x, x)
    b.delegate("CudaBackend", x, b.tensor(), target_device="cuda:1")
    plan = b.build()
    assert value_text(plan, x) == "mod.x (%0, float32[2,3])"
    assert value_text(plan, s) == "%1 (int64[])"
    assert value_text(plan, n) == "%2 (Int)"
    assert value_text(plan, 99) == "%99 (no such value)"
    assert values_text(plan, [s, s, n, x, 99, 1], limit=2) == "%1 (int64[]), %2 (Int) and 2 more"
    assert instruction_text(plan, 0) == "aten::relu.out (instruction 0)"
    assert instruction_text(plan, 1) == "delegate CudaBackend targeting cuda:1 (instruction 1)"
    assert instruction_text(plan, 7) == "instruction 7 (no such instruction)"
    assert [nbytes_text(k) for k in (0, 1023, 1024, 3 << 20, 5 << 30)] == ["0 B", "1,023 B", "1.0 KiB", "3.0 MiB",
                                                                        "5.0 GiB"]


def test_finding_lines_group_by_severity_errors_first():
    findings = [
        Finding("round-trip", "warning", "forward", "w1"),
        Finding("out-of-bounds", "error", "forward", "e1"),
        Finding("bad-reference", "error", "", "e0"),
        Finding("unknown-device", "warning", "encode", "w2"),
    ]
    assert finding_lines(findings, file="m.pte") == [
        "m.pte: 2 errors, 2 warnings, 0 infos",
        "",
        "ERRORS (2)",
        "  [out-of-bounds] plan 'forward': e1",
        "  [bad-reference] program: e0",
        "",
        "WARNINGS (2)",
        "  [round-trip] plan 'forward': w1",
        "  [unknown-device] plan 'encode': w2",
    ]
    assert finding_lines([], file="m.pte") == ["m.pte: no findings (0 errors, 0 warnings)"]


def test_device_summary_lines_for_device_add():
    program = _device_add()
    lines = device_summary_lines(program, analyze_program(program))
    assert lines == [
        "plan 'forward' per device:",
        "  cpu             3 tensors  arenas      32 B  planned (all tensors, all lifetimes)      48 B  constant       0 B"
        "  peak live      32 B (100% of arenas)  copies in 1 (16 B) out 2 (32 B)",
        "  cuda:0          3 tensors  arenas      48 B  planned (all tensors, all lifetimes)      48 B  constant       0 B"
        "  peak live      48 B (100% of arenas)  copies in 2 (32 B) out 1 (16 B)",
        "  transfers: cpu->cuda:0 2 (32 B), cuda:0->cpu 1 (16 B)",
    ]
    assert device_summary_lines(program, analyze_program(program), plan="nope") == []


def test_device_summary_lines_every_fixture():
    for path in fixture_paths():
        program = reader()(path)
        lines = device_summary_lines(program, analyze_program(program))
        assert sum(line.startswith("plan ") for line in lines) == len(program.plans)
        assert all("transfers:" in line for line in lines if "transfers" in line)
