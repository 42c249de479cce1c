"""A run's numbers answer the same on every entry point (docs/numerics.md "Where it shows"): ``numerics -o``,
``show --profile --debug-buffer`` and ``Explorer(profile=, debug_buffer=)`` (its widget payload and ``save_html``) give
one ``payload["numerics"]``, one set of NaN/Inf findings and the same overlays; ``diff --profile A B --debug-buffer A
B`` and ``Diff(profiles=, debug_buffers=)`` one diff payload's numbers, and the CLI's JSON the same comparison as
``explorer.load_numerics``. Wrong combinations are refused with one line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import explorer
from explorer.cli import main
from explorer.jsonform.numerics import numerics_json
from explorer.views.payload.embed import page_payload, unpack

F = Path(__file__).parent / "fixtures" / "numerics"


def files(name: str) -> tuple[str, str, str, str]:
    return tuple(str(F / f"{name}.{ext}") for ext in ("pte", "etdp", "bin", "etrecord"))  # type: ignore[return-value]


def overlay_names(payload: dict) -> dict:
    return {p: [o["name"] for o in ovs] for p, ovs in payload["overlays"]["plans"].items()}


def finding_labels(payload: dict) -> list[str]:
    return [f["label"] for f in payload["findings"]]


@pytest.mark.parametrize("name", ["nonfinite_portable", "attention_xnnpack"])
def test_show_numerics_and_explorer_give_one_report(tmp_path, name):
    pte, etdp, bin_, rec = files(name)
    assert main(["numerics", pte, "--profile", etdp, "--debug-buffer", bin_, "--etrecord", rec,
                 "-o", str(tmp_path / "n.html")], stdout=io.StringIO()) in (0, 1)
    assert main(["show", pte, "--profile", etdp, "--debug-buffer", bin_, "--etrecord", rec,
                 "-o", str(tmp_path / "s.html")], stdout=io.StringIO()) == 0
    ex = explorer.Explorer(pte, profile=etdp, debug_buffer=bin_, etrecord=rec)
    ex.save_html(tmp_path / "e.html")
    pages = {k: page_payload((tmp_path / f"{k}.html").read_text()) for k in ("n", "s", "e")}
    pages["widget"] = unpack(ex._payload)
    want = pages["n"]
    assert want["numerics"]["plans"]["forward"]["rows"], "no rows"
    for k, got in pages.items():
        assert got["numerics"] == want["numerics"], k
        assert finding_labels(got) == finding_labels(want), k
        if k != "widget":  # the widget sends its overlays as a trait of their own
            assert overlay_names(got) == overlay_names(want), k
            assert got["overlays"]["shown"] == want["overlays"]["shown"] == "output_range", k
    assert ex.shown_overlay == "output_range"
    assert "output_range" in ex.overlays
    nonfinite = [f for f in ex.findings if f.code == "numerics-nonfinite"]
    assert bool(nonfinite) == (name == "nonfinite_portable")


def test_diff_cli_and_diff_widget_give_one_comparison(tmp_path):
    a, b = files("diverge_portable"), files("diverge_xnnpack")
    args = ["diff", a[0], b[0], "--etrecord", a[3], b[3], "--profile", a[1], b[1], "--debug-buffer", a[2], b[2]]
    assert main([*args, "--html", str(tmp_path / "d.html")], stdout=io.StringIO()) == 0
    out = io.StringIO()
    assert main([*args, "--json"], stdout=out) == 0
    doc = json.loads(out.getvalue())
    d = explorer.Diff(a[0], b[0], etrecords=(a[3], b[3]), profiles=(a[1], b[1]), debug_buffers=(a[2], b[2]))
    d.save_html(tmp_path / "w.html")
    cli = page_payload((tmp_path / "d.html").read_text())["numerics"]
    assert cli == unpack(d._payload)["numerics"] == page_payload((tmp_path / "w.html").read_text())["numerics"]
    pn = cli["plans"]["forward"]
    assert (pn["first"], pn["firstB"]) == (5, 1)
    assert pn["rowsB"]["1"][-1][0] == "gap vs A #5" and pn["rowsB"]["1"][-1][2] == "first"
    report = explorer.load_numerics(a[0], a[1], a[2], etrecord=a[3], against=(b[0], b[1], b[2], b[3]))
    api = numerics_json(report)
    assert doc["numerics"]["compare"] == api["compare"]
    assert [p["compare"] for p in doc["numerics"]["plans"]] == [p["compare"] for p in api["plans"]]
    assert doc["numerics"]["compare"]["first_divergence"]["a_instruction"] == 5
    # each side's built-in overlays, gap first; A's instruction and B's paired one (and the A instructions B's
    # delegate holds) show the pair's gap
    overlays = page_payload((tmp_path / "d.html").read_text())["overlays"]
    assert overlays == unpack(d._payload)["overlays"] == page_payload((tmp_path / "w.html").read_text())["overlays"]
    assert overlays["shown"] == d.shown_overlay == "gap"
    gap = {s: next(o for o in overlays["sides"][s]["plans"]["forward"] if o["name"] == "gap") for s in "ab"}
    assert "output_range" in d.overlays and "gap" in d.overlays
    pair = {p["a_instruction"]: p for p in report.comparison.plan("forward").to_json()["pairs"]}[5]
    assert gap["a"]["instr"][5] == gap["b"]["instr"][1] == pytest.approx(pair["relative"]) and pair["relative"] > 1e-4
    assert all(gap["a"]["instr"][i] == gap["a"]["instr"][5] for i in pair["folded"])
    assert gap["b"]["group"][0] == max(v for v in gap["b"]["instr"] if v is not None)  # a group: the max
    # the trait: checked, kept by save_html ("" the device colours)
    with pytest.raises(Exception, match="Invalid value of 'shown_overlay'"):
        d.shown_overlay = "nope"
    d.show_overlay("output_range")
    assert page_payload(d.save_html(tmp_path / "r.html").read_text())["overlays"]["shown"] == "output_range"
    d.show_overlay(None)
    assert page_payload(d.save_html(tmp_path / "n.html").read_text())["overlays"]["shown"] is None


def test_text_of_diff_with_runs_names_the_first_divergence():
    a, b = files("diverge_portable"), files("diverge_xnnpack")
    out = io.StringIO()
    assert main(["diff", a[0], b[0], "--etrecord", a[3], b[3], "--profile", a[1], b[1],
                 "--debug-buffer", a[2], b[2]], stdout=out) == 0
    assert "first divergence: A #5 / B #1" in out.getvalue()


def test_debug_buffer_without_its_run_is_refused(tmp_path, capsys):
    pte, _etdp, bin_, _rec = files("mlp_portable")
    assert main(["show", pte, "--debug-buffer", bin_, "-o", str(tmp_path / "x.html")], stdout=io.StringIO()) == 2
    assert "--debug-buffer needs --profile" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()
    with pytest.raises(ValueError, match="needs profile="):
        explorer.Explorer(pte, debug_buffer=bin_)
    with pytest.raises(ValueError, match="needs debug_buffer="):
        explorer.Explorer(pte, against=files("mlp_xnnpack")[:3])


def test_a_run_of_another_program_is_one_line_and_exit_2(tmp_path, capsys):
    pte = files("mlp_portable")[0]
    _, etdp, bin_, _ = files("attention_portable")
    assert main(["show", pte, "--profile", etdp, "--debug-buffer", bin_, "-o", str(tmp_path / "x.html")],
                stdout=io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("device-explorer: ")
