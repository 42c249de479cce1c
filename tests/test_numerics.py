"""Numerics torch-free: the corpus (tests/fixtures/numerics/, real runs) read, compared and reported by the CLI and
the API alike; hostile debug buffers and entries give PteFormatError, never a traceback or an allocation of what
they claim. (Agreement with executorch's Inspector and comparators: tests/test_numerics_interop.py.)"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import time
from pathlib import Path

import numpy as np
import pytest

import explorer
from explorer.cli import main
from explorer.errors import PteFormatError
from explorer.analysis.numerics.load import load_numerics
from explorer.format.companions.debug_buffer import read_tensor
from explorer.jsonform.numerics import numerics_json
from explorer.model.numerics import LoggedTensor

FIX = Path(__file__).parent / "fixtures" / "numerics"


def files(stem: str, etrecord: bool = True) -> list[str]:
    out = [str(FIX / f"{stem}.{ext}") for ext in ("pte", "etdp", "bin")]
    return out + ([str(FIX / f"{stem}.etrecord")] if etrecord else [])


def report(a: str, b: str | None = None, **kw):
    fa = files(a)
    return load_numerics(*fa[:3], etrecord=fa[3], against=tuple(files(b)) if b else None, **kw)


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


def test_api_and_cli_json_are_one_document():
    r = report("mlp_portable", "mlp_xnnpack")
    a = files("mlp_portable")
    b = files("mlp_xnnpack")
    code, text = cli("numerics", a[0], "--profile", a[1], "--debug-buffer", a[2], "--etrecord", a[3],
                     "--against", b[0], "--profile", b[1], "--debug-buffer", b[2], "--etrecord", b[3], "--json")
    assert code == 0
    assert json.loads(text) == json.loads(json.dumps(numerics_json(r)))
    doc = json.loads(text)
    ins = doc["plans"][0]["instructions"]
    assert [i["instruction"] for i in ins] == [0, 1, 2, 3, 4]
    assert set(ins[1]["outputs"][0]) >= {"dtype", "shape", "min", "max", "mean", "nan", "posinf", "neginf"}
    assert ins[2]["outputs"][0]["min"] == 0.0  # relu
    assert set(doc["compare"]["output_gap"]) >= {"max_abs", "mse", "cosine", "snr_db"}
    assert doc["compare"]["first_divergence"] == {"tol": 1e-4, "a_instruction": None, "b_instruction": None,
                                                  "relative": None}


def test_no_divergence_portable_vs_xnnpack_mlp():
    c = report("mlp_portable", "mlp_xnnpack").comparison.plan("forward")
    assert c.pairing == "debug_handle"
    assert c.first_divergence.a_instruction is None
    assert c.output_gap.relative < 1e-6
    # the whole portable MLP is folded into XNNPACK's one call: its last addmm pairs with the call's output
    assert [(p.a_instruction, p.b_instruction, p.folded) for p in c.pairs] == [(4, 0, (0, 1, 2, 3))]


def test_first_divergence_inside_the_delegate():
    r = report("diverge_portable", "diverge_xnnpack")
    c = r.comparison.plan("forward")
    b_plan = r.b.program.plan("forward")
    call = next(i.index for i in b_plan.instructions if i.kind == "DelegateCall")
    fd = c.first_divergence
    assert fd.b_instruction == call
    assert r.a.program.plan("forward").instructions[fd.a_instruction].op == "aten::addmm.out"
    cumsum = next(p for p in c.pairs if p.a_instruction == 0)
    assert cumsum.gap.max_abs == 0.0  # the portable cumsum before the delegate is the same on both sides
    # at a looser tolerance there is none
    assert report("diverge_portable", "diverge_xnnpack", tol=0.5).comparison.plan("forward") \
        .first_divergence.a_instruction is None


def test_quantized_handles_are_not_trusted():
    c = report("mlp_portable", "mlp_qxnnpack").comparison.plan("forward")
    assert c.pairing == "source"
    assert any("number their nodes differently" in n for n in c.notes)
    assert c.first_divergence.b_instruction == 0  # int8 parts from float at the delegate


def test_nonfinite_findings_where_they_are_made():
    r = report("nonfinite_portable")
    plan = r.a.program.plan("forward")
    found = [f for f in r.a.numerics.findings if f.code == "numerics-nonfinite"]
    # exp overflows to +Inf; Inf - Inf*0.5 makes NaN; relu and the last sub only pass the NaN along
    assert [(f.instructions, plan.instructions[f.instructions[0]].op) for f in found] == \
        [((3,), "aten::exp.out"), ((5,), "aten::sub.out")]
    assert "4 +Inf of 12 values, first at [0, 0]" in found[0].message
    assert "produced NaN" in found[1].message
    for before in r.a.numerics.plan("forward").instructions[:3]:
        assert not any(o.stats.nonfinite for o in before.outputs)


def test_nonfinite_inside_a_delegate_is_the_calls():
    r = report("nonfinite_xnnpack")
    (f,) = [f for f in r.a.numerics.findings if f.code == "numerics-nonfinite"]
    assert f.instructions == (0,) and "XnnpackBackend" in f.message and "6 NaN of 6" in f.message
    # int8 keeps the range finite: no NaN, and the comparison says where the two part
    q = report("nonfinite_portable", "nonfinite_qxnnpack")
    assert not [f for f in q.b.numerics.findings if f.code == "numerics-nonfinite"]
    c = q.comparison.plan("forward")
    assert c.output_gap.nonfinite_mismatch == 6
    assert c.first_divergence.b_instruction == 0


def test_quantized_xnnpack_logs_float32():
    r = report("mlp_qxnnpack")
    (call,) = r.a.numerics.plan("forward").instructions
    assert [o.stats.dtype for o in call.outputs + call.inputs] == ["float32", "float32"]


def test_text_output_names_the_first_divergence():
    a, b = files("diverge_portable"), files("diverge_xnnpack")
    code, text = cli("numerics", a[0], "--profile", a[1], "--debug-buffer", a[2], "--etrecord", a[3],
                     "--against", b[0], "--profile", b[1], "--debug-buffer", b[2], "--etrecord", b[3])
    assert code == 1
    assert "first divergence: A #5 / B #1" in text


# -- hostile input ----------------------------------------------------------------------------------------

def test_offset_past_the_buffer_is_a_format_error():
    a = files("mlp_portable", etrecord=False)
    short = Path(a[2]).read_bytes()[:100]
    with pytest.raises(PteFormatError, match=r"needs \d+ bytes at offset \d+ of the debug buffer, which has 100"):
        load_numerics(a[0], a[1], short)

def test_cli_short_buffer_is_one_line_and_exit_2(tmp_path, capsys):
    a = files("mlp_portable", etrecord=False)
    short = tmp_path / "short.bin"
    short.write_bytes(Path(a[2]).read_bytes()[:100])
    before = short.read_bytes()
    code, text = cli("numerics", a[0], "--profile", a[1], "--debug-buffer", str(short))
    assert code == 2 and text == ""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "of the debug buffer, which has 100 bytes" in err
    assert short.read_bytes() == before  # read, never written


def test_hostile_tensor_entries_allocate_nothing():
    buf = memoryview(bytes(256))
    for t in (LoggedTensor(6, (1 << 40, 1 << 40), (), 0), LoggedTensor(6, (4,), (), -5), LoggedTensor(6, (-1, 3), (), 0),
              LoggedTensor(6, (8,), (), 250)):
        with pytest.raises(PteFormatError):
            read_tensor(buf, t, "x")
    assert read_tensor(buf, LoggedTensor(6, (0, 5), (), -1)).size == 0  # an empty tensor: offset -1, no bytes
    assert read_tensor(buf, LoggedTensor(16, (4,), (), 0)) is None  # quint4x2: no numbers, no error


def test_corrupted_dumps_and_buffers_stay_bounded():
    """A bounded sample of corruptions (bytes flipped in the .etdp, the buffer truncated or overwritten): each case
    gives numbers or PteFormatError/ValueError within a second. scripts/fuzz_numerics.py runs the campaign."""
    rng = random.Random(3)
    pte, etdp, bin_ = files("nonfinite_portable", etrecord=False)
    program = explorer.load(pte)
    dump, buf = Path(etdp).read_bytes(), Path(bin_).read_bytes()
    for case in range(120):
        d, b = bytearray(dump), bytearray(buf)
        if case % 3 == 0:
            for _ in range(rng.randint(1, 4)):
                d[rng.randrange(len(d))] = rng.randrange(256)
        elif case % 3 == 1:
            b = b[:rng.randrange(len(b))]
        else:
            for _ in range(16):
                b[rng.randrange(len(b))] = rng.randrange(256)
        t0 = time.process_time()
        try:
            load_numerics(program, bytes(d), bytes(b))
        except (PteFormatError, ValueError):
            pass
        assert time.process_time() - t0 < 1.0, case


def test_values_do_not_depend_on_offsets():
    """Offsets shift with the buffer's address from run to run; the numbers read must not: move every tensor."""
    pte, etdp, bin_ = files("mlp_portable", etrecord=False)
    dump = explorer.load_etdump(etdp)
    base = load_numerics(pte, dump, bin_).a.numerics.plan("forward")
    raw = Path(bin_).read_bytes()
    shifted = b"\0" * 64 + raw
    runs = tuple(dataclasses.replace(r, debug_events=tuple(
        dataclasses.replace(e, entry=dataclasses.replace(e.entry, tensors=tuple(
            dataclasses.replace(t, offset=t.offset + 64) for t in e.entry.tensors))) if e.entry else e
        for e in r.debug_events)) for r in dump.runs)
    moved = load_numerics(pte, dataclasses.replace(dump, runs=runs), shifted).a.numerics.plan("forward")
    assert [[o.stats for o in i.outputs] for i in base.instructions] == \
        [[o.stats for o in i.outputs] for i in moved.instructions]
    np.testing.assert_array_equal(base.instructions[1].outputs[0].array, moved.instructions[1].outputs[0].array)


def test_fuzz_numerics_sample(capsys):
    """scripts/fuzz_numerics.py's sample: mutated debug buffers, ETDump bytes and debug entries, each answered with
    numbers or our refusal (the campaign's count and rate: docs/numerics.md)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fuzz_numerics", Path(__file__).parent.parent / "scripts" / "fuzz_numerics.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--cases", "80", "--seed", "5", "--mem-every", "4"]) == 0
    out = capsys.readouterr().out
    assert "80 cases" in out and "unexpected (crash/hang/memory): 0" in out


def test_a_tensor_entry_listed_in_many_events_is_read_once(monkeypatch):
    """A dump may list one debug entry in many events (a flatbuffer table listed again: four bytes an event). Each
    distinct logged tensor is read and summed once (issue 30): 20,000 copies of a run's events made 20,000 reads of
    each tensor; the join now reads what the distinct tensors hold, and gives each event its stats."""
    import explorer.analysis.numerics.join as J
    from explorer.format.companions.etdump import load_etdump

    program = explorer.load(FIX / "mlp_portable.pte")
    dump = load_etdump(FIX / "mlp_portable.etdp")
    run = next(r for r in dump.runs if r.debug_events)
    events = run.debug_events * 2000
    big = dataclasses.replace(dump, runs=tuple(dataclasses.replace(r, debug_events=events) if r is run else r
                                               for r in dump.runs))
    calls = []
    monkeypatch.setattr(J, "read_tensor", lambda *a: calls.append(a[1]) or read_tensor(*a))
    numerics = J.join_numerics(program, big, FIX / "mlp_portable.bin")
    distinct = {t for ev in run.debug_events if ev.entry is not None for t in ev.entry.tensors}
    assert 0 < len(calls) == len(distinct), (len(calls), len(distinct))
    once = J.join_numerics(program, dump, FIX / "mlp_portable.bin")
    def stats(n):  # every logged output's stats, as text
        return {repr(o.stats) for p in n.plans.values() for i in p.instructions for o in i.outputs}
    assert stats(numerics) == stats(once) != set()
