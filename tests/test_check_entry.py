"""``explorer.check`` answers for every file ``explorer.load`` opens, as ``device-explorer check`` does.

A data file (.ptd) has no plan: both say so with one ``no-placement-check`` info finding (never an
AttributeError from the API, never a pass-looking "no findings" from the CLI). A bundled program (.bpte)
is checked as the program it carries.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import explorer
from explorer.cli import main

FIX = Path(__file__).parent / "fixtures"


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


def test_check_of_a_data_file_says_no_placement_check_applies():
    path = FIX / "zoo" / "external_weights.ptd"
    data = explorer.load(path)
    (finding,) = explorer.check(data)
    assert finding.code == "no-placement-check" and finding.severity == "info" and finding.plan == ""
    assert "external_weights.ptd is a data file" in finding.message and "--data external_weights.ptd" in finding.message
    code, text = _cli("check", str(path), "--json")
    assert code == 0 and json.loads(text)["findings"] == [finding.to_json()]
    code, text = _cli("check", str(path))
    assert code == 0 and "no placement check applies" in text and "no findings" not in text


def test_check_of_a_data_file_given_as_bytes_names_no_path():
    data = explorer.load((FIX / "zoo" / "external_weights.ptd").read_bytes())
    (finding,) = explorer.check(data)
    assert finding.message.startswith("This is a data file (.ptd, 6 named entries)")
    assert "--data DATA.ptd" in finding.message


def test_check_of_a_data_file_with_a_plan_is_refused_clearly():
    code, text = _cli("check", str(FIX / "zoo" / "external_weights.ptd"), "--plan", "forward")
    assert code == 2


def test_check_of_a_bundled_program_is_its_programs_check():
    bundle = explorer.load(FIX / "companions" / "bundled.bpte")
    assert bundle.kind == "program" and bundle.plans
    found = explorer.check(bundle)
    code, text = _cli("check", str(FIX / "companions" / "bundled.bpte"), "--json")
    assert [f.to_json() for f in found] == json.loads(text)["findings"]
    assert code == (1 if any(f.severity == "error" for f in found) else 0)
