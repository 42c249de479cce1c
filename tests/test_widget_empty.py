"""``Explorer(program)`` of a program with no execution plans answers like ``device-explorer show``: the
report's "no execution plans" page (the app's plain ``data`` mode), not a ValueError."""

from __future__ import annotations

import pytest

import explorer
from explorer.cli import main
from writers.pte import write
from explorer.model.program import Program
from explorer.views.payload.embed import unpack
from explorer.views.html.empty_program import NO_PLANS
from explorer.views.html.report import report_html


def _no_plans() -> bytes:
    return write(Program(0, ()))


def test_explorer_of_a_program_without_plans_shows_what_the_report_shows(tmp_path):
    program = explorer.load(_no_plans())
    w = explorer.Explorer(program)
    payload = unpack(w._payload)
    assert payload["mode"] == "data" and w.findings == [] and w.plan == ""
    assert NO_PLANS in payload["html"] and "no findings" in payload["html"]
    page = tmp_path / "empty.pte"
    page.write_bytes(_no_plans())
    out = tmp_path / "empty.html"
    assert main(["show", str(page), "-o", str(out)]) == 0
    html = " ".join(out.read_text().split())  # the report wraps its sentence over two lines
    assert NO_PLANS in html and NO_PLANS in " ".join(report_html(program).split())


def test_a_plan_asked_of_a_program_without_plans_is_a_clear_key_error():
    with pytest.raises(KeyError, match="no plan 'forward': the program has no execution plans"):
        explorer.Explorer(explorer.load(_no_plans()), plan="forward")
