"""scripts/mutants.py's table cannot rot: every mutant's fragment is in its file exactly once, every file it names
under explorer/ is in the script's one FILES table, every test it names exists. Nothing is run or mutated here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("mutants_script", ROOT / "scripts" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


mutants = _script()


def test_the_table_is_current():
    assert mutants.check_table() == []


@pytest.mark.parametrize("m", mutants.MUTANTS, ids=lambda m: m.name)
def test_each_mutant_changes_one_line_of_real_code(m):
    text = (ROOT / mutants.FILES[m.file]).read_text(encoding="utf-8")
    assert text.count(m.find) == 1, m.name
    assert m.find != m.replace
    # a single line: the fragment lies within one line of the file (and the mutant adds no line)
    start = text.index(m.find)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start + len(m.find.rstrip("\n")))
    assert "\n" not in m.find.rstrip("\n") and m.replace.count("\n") <= m.find.count("\n"), m.name
    line = text[line_start:line_end].strip()
    assert line and not line.startswith(("#", "//", "*", "/*")), f"{m.name} mutates a comment: {line!r}"


def test_the_table_covers_every_area_the_issue_names():
    areas = {m.area for m in mutants.MUTANTS}
    for area in ("reader", "lifetimes", "checks", "diff pairing", "what-if", "profile", "ETRecord", "overlays",
                 "escaping", "app search", "app labels", "app folding", "app diff selection"):
        assert area in areas, area
    assert len(mutants.MUTANTS) >= 25


def test_every_explorer_path_is_in_the_one_table():
    import re

    source = (ROOT / "scripts" / "mutants.py").read_text(encoding="utf-8")
    start = source.index("FILES = {")
    outside = source[:start] + source[source.index("}", start):]
    assert not re.findall(r"[\"']explorer/", outside), "an explorer/ path written outside FILES"
    assert all((ROOT / p).is_file() for p in mutants.FILES.values())


def test_a_rotted_fragment_is_refused(monkeypatch, tmp_path):
    bad = mutants.Mutant("rotted", "reader", "reader", "no such line in the reader", "x", ("tests/test_reader.py",), "")
    monkeypatch.setattr(mutants, "MUTANTS", (*mutants.MUTANTS, bad))
    assert any(p.startswith("rotted: the fragment is found 0 times") for p in mutants.check_table())
    assert mutants.main(["--list"]) == 2
