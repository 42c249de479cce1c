"""`device-explorer inspect` (human and --json) on real fixtures, and the CLI's error contract."""

import io
import json
from pathlib import Path

import pytest

from explorer.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


def _run(*argv) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue()


def test_inspect_human_summary_names_arenas_devices_and_totals():
    code, text = _run("inspect", str(FIXTURES / "device_mlp.pte"))
    assert code == 0
    assert "plan 'forward': 30 values (25 tensors), 20 instructions (4 DelegateCall, 16 KernelCall)" in text
    assert "#1        160 B  cpu" in text and "#2        128 B  cuda:0" in text
    assert "BackendWithCompilerDemo -> cuda:0" in text
    assert "transfers: cpu->cuda:0 7 (224 B), cuda:0->cpu 4 (128 B)" in text
    cuda = next(line for line in text.splitlines() if line.strip().startswith("cuda:0") and "tensors" in line)
    assert "11 tensors" in cuda and "peak live      96 B (75% of arenas)" in cuda


def test_inspect_plan_filter_and_two_methods():
    code, text = _run("inspect", str(FIXTURES / "two_methods.pte"), "--plan", "encode")
    assert code == 0 and "plan 'encode'" in text and "plan 'forward'" not in text


def test_inspect_json_follows_the_contract():
    code, text = _run("inspect", str(FIXTURES / "device_add.pte"), "--json")
    doc = json.loads(text)
    assert code == 0 and doc["format"] == "device-explorer/1" and doc["file"] == "device_add.pte"
    assert doc["size"] == (FIXTURES / "device_add.pte").stat().st_size
    plan = doc["plans"][0]
    assert plan["buffers"] == [{"memory_id": 1, "size": 32, "device": "cpu"},
                               {"memory_id": 2, "size": 48, "device": "cuda:0"}]
    tensor = plan["values"][plan["instructions"][0]["args"][1]]
    assert {k: tensor[k] for k in ("type", "dtype", "device", "memory_id", "storage")} == \
        {"type": "Tensor", "dtype": "float32", "device": "cuda:0", "memory_id": 2, "storage": "planned"}
    assert tensor["nbytes"] == 4 * (tensor["sizes"][0] * tensor["sizes"][1])
    assert plan["instructions"][0]["op"] == "et_copy::_h2d_copy.out"
    assert plan["instructions"][2] | {} == {"index": 2, "kind": "DelegateCall", "delegate": "BackendWithCompilerDemo",
                                            "delegate_index": 0, "args": plan["instructions"][2]["args"]}
    assert plan["delegates"][0]["compile_specs"] == {"max_value": "04", "target_device": "cuda:0"}


def test_inspect_json_scalars_and_names():
    _, text = _run("inspect", str(FIXTURES / "mutable_state.pte"), "--json")
    values = json.loads(text)["plans"][0]["values"]
    assert any(v["type"] == "Int" and isinstance(v["value"], int) for v in values)
    named = {v["name"]: v["storage"] for v in values if "name" in v}
    assert named == {"state": "mutable", "cache": "planned"}


def test_unknown_plan_is_a_clear_error(capsys):
    code, _ = _run("inspect", str(FIXTURES / "mlp.pte"), "--plan", "nope")
    err = capsys.readouterr().err
    assert code == 2 and "no plan named 'nope'" in err and "'forward'" in err and "Traceback" not in err


def test_missing_file_exit_2(capsys):
    code, _ = _run("inspect", str(FIXTURES / "does_not_exist.pte"))
    assert code == 2 and "No such file" in capsys.readouterr().err


def test_inspect_groups_alike_delegates_and_labels_copies_and_planned(tmp_path):
    from analysis_helpers import PlanBuilder
    from writers.pte import write
    from explorer.model.program import Delegate, Instruction

    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor(arena=1, offset=0)
    cur = x
    for k in range(200):  # one delegate table entry per call, as XNNPACK partitions are written
        y = b.tensor(arena=1, offset=16 * ((k + 1) % 2))
        b.delegates.append(Delegate(k, "XnnpackBackend", "inline", k, (), 8))
        b.raw(Instruction(0, 0, "DelegateCall", (cur, y), delegate_index=k, delegate="XnnpackBackend"))
        cur = y
    b.inputs(x)
    b.outputs(cur)
    path = tmp_path / "many.pte"
    path.write_bytes(write(b.program()))
    code, text = _run("inspect", str(path))
    assert code == 0
    assert "    #0..#199 XnnpackBackend  (200 delegates; inline #0..#199, 1.6 KiB in all; 1 call each)" in text
    # the delegates line, the payloads line (200 alike payloads as one entry) and the runtime needs
    assert text.count("XnnpackBackend") == 3
    assert "#0..#199 XnnpackBackend  (200 delegates, alike)" in text
    code, text = _run("inspect", str(FIXTURES / "device_mlp.pte"))
    assert "planned = every planned tensor's bytes summed over all lifetimes" in text
    assert "copies in 7 (224 B) out 4 (128 B)" in text or "copies in 4 (128 B) out 7 (224 B)" in text


def test_a_closed_pipe_ends_quietly_with_the_sigpipe_status(tmp_path):
    import subprocess
    import sys

    from writers.synth import synthetic_program
    from writers.pte import write

    big = tmp_path / "big.pte"  # its JSON is megabytes: far more than a pipe buffers
    big.write_bytes(write(synthetic_program(5000)))
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(f"{sys.executable} -m explorer.cli inspect --json {big} | head -c 10; "
                          "exit ${PIPESTATUS[0]}", shell=True, executable="/bin/bash", cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == '{\n "format'
    assert done.stderr == "" and done.returncode == 141


def test_bare_command_says_where_its_report_is(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, text = _run()
    assert code == 0
    report = tmp_path / "device-explorer-report.html"
    assert report.is_file()
    assert text.splitlines()[-1] == f"open it in a browser: {report.as_uri()}"
    help_text = io.StringIO()
    with pytest.raises(SystemExit):
        import contextlib
        with contextlib.redirect_stdout(help_text):
            main(["--help"])
    assert "writes an offline HTML report" in " ".join(help_text.getvalue().split())
