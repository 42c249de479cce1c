"""What the CLI prints reads as English: counts agree with their nouns, and a method with nothing to place
(an LLM export's constant getter) says so instead of printing empty "per device" / "runtime needs" headings."""

from __future__ import annotations

import io
import re
from pathlib import Path

from analysis_helpers import PlanBuilder, make_program

from explorer.units import count
from explorer.cli import main
from writers.pte import write

FIX = Path(__file__).parent / "fixtures"
# "1 values", "1 instructions", "(1 runs;", "1 segments", "1 planned tensors" ..., and the old "(s)" hedges
WRONG = re.compile(r"(?<![\d,.])1 (values|tensors|instructions|operators|delegates|runs|segments|calls|planned tensors)\b"
                   r"|\w\(s\)")


def _cli(*argv: str) -> str:
    out = io.StringIO()
    main(list(argv), stdout=out)
    return out.getvalue()


def _getter_program(tmp_path) -> Path:
    getter = PlanBuilder(name="get_max_seq_len")
    v = getter.scalar(128)
    getter.inputs()
    getter.outputs(v)
    forward = PlanBuilder(name="forward", arenas=[(64, "cpu")])
    x = forward.tensor(arena=1)
    y = forward.tensor(arena=1, offset=16)
    forward.kernel("aten::relu.out", x, y, y)
    forward.inputs(x)
    forward.outputs(y)
    path = tmp_path / "getter.pte"
    path.write_bytes(write(make_program(getter, forward)))
    return path


def test_count():
    assert count(1, "value") == "1 value" and count(0, "value") == "0 values" and count(2048, "run") == "2,048 runs"
    assert count(3, "entry", "entries") == "3 entries" and count(1, "entry", "entries") == "1 entry"


def test_a_constant_getter_says_there_is_nothing_to_place(tmp_path):
    text = _cli("inspect", str(_getter_program(tmp_path)))
    getter = text.split("plan 'get_max_seq_len'")[1].split("plan 'forward'")[0]
    assert ": 1 value (0 tensors), 0 instructions (none), 0 operators, 0 delegates" in getter
    assert "per device (" not in getter and "runtime needs (" not in getter
    assert "nothing to place on a device" in getter
    forward = text.split("plan 'forward'")[1]
    assert "1 instruction (1 KernelCall), 1 operator," in forward and "runtime needs (" in forward
    assert not WRONG.search(text), WRONG.search(text)


def test_real_programs_print_no_miscounted_nouns():
    for path in [*sorted(FIX.glob("*.pte")), *sorted((FIX / "zoo").glob("*.pte")), FIX / "zoo" / "external_weights.ptd"]:
        text = _cli("inspect", str(path))
        assert not WRONG.search(text), (path.name, WRONG.search(text))



def test_program_summary_of_a_one_instruction_plan_is_singular():
    """'1 tensors · 1 instructions' was printed for a plan with one of each."""
    from analysis_helpers import PlanBuilder

    from explorer.views.state.plan import plan_view, program_summary

    b = PlanBuilder()
    x = b.tensor(arena=1, offset=0)
    b.kernel("aten::relu.out", x, x)
    program = b.program()
    assert program_summary(plan_view(program.plans[0], program), []).startswith(
        "forward: 1 tensor (cpu 1) · 1 instruction · ")


def test_program_summary_separates_thousands_in_the_device_counts(tmp_path):
    """"5,200 tensors (cpu 5200)": the total had separators, the per-device counts did not."""
    from explorer.views.state.plan import plan_view, program_summary

    b = PlanBuilder()
    x = b.tensor(arena=1, offset=0)
    for _ in range(1100):
        y = b.tensor(arena=1, offset=0)
        b.kernel("aten::relu.out", x, y)
    program = b.program()
    line = program_summary(plan_view(program.plans[0], program), [])
    assert line.startswith("forward: 1,101 tensors (cpu 1,101) · 1,100 instructions · "), line
    (tmp_path / "wide.pte").write_bytes(write(program))
    text = _cli("inspect", str(tmp_path / "wide.pte"))  # the per-device lines, as the summary
    assert "cpu         1,101 tensors" in text, text


def test_show_says_what_was_attached(tmp_path):
    """``show`` never said whether the profile, ETRecord or overlay it was given were used."""
    fix = FIX / "etrecord"
    (tmp_path / "lat.json").write_text('{"@1": 3, "@2": 4}')
    report = tmp_path / "r.html"
    text = _cli("show", str(fix / "net.pte"), "-o", str(report), "--profile", str(fix / "net.etdp"),
                "--etrecord", str(fix / "net.etrecord"), "--overlay", str(tmp_path / "lat.json"))
    assert ("attached: profile net.etdp (3 runs of forward), ETRecord net.etrecord (1 method joined), "
            "overlay lat on forward (2 keys)") in text, text
    assert "attached" not in _cli("show", str(fix / "net.pte"), "-o", str(report))


def test_runtime_needs_separate_thousands_in_the_copy_counts():
    """"serves 9999 h2d copies (624.9 KiB), 9999 d2h" in a 100k-value program's runtime needs (issue 32 item 10)."""
    from explorer import Device
    from explorer.analysis.requirements import DeviceNeed, copy_text

    need = DeviceNeed(Device.parse("cuda:0"), "device-allocator", (), 0, h2d_count=9_999, h2d_bytes=639_936,
                      d2h_count=1_000, d2h_bytes=64)
    assert copy_text(need) == "9,999 h2d copies (624.9 KiB), 1,000 d2h (64 B)"
