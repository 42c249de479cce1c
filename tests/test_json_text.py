"""The CLI's JSON text (explorer/jsonform/text.py): the same document as the standard encoder's, a record per line.

With ``indent`` the standard library encodes in pure Python chunk by chunk: ``inspect --json`` of a 10 MB program of
47k values took 17 s (3.7M chunks, each through the terminal filter); written a record per line, 2.4 s.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.jsonform.text import json_text

FIX = Path(__file__).parent / "fixtures"

DOCS = [
    {}, [], {"a": []}, {"a": {}}, 3, "x", None, [[]], [{}],
    {"format": "f", "plans": [{"values": [{"index": 0, "sizes": [2, 3], "name": "é\u202e<b>"}], "inputs": [0]}]},
    {"nested": {"deep": {"deeper": [{"x": [1, [2, 3]]}, [1, 2], {"y": None}]}}, "z": [1.5, -0.0, 1e300]},
    {"b": 1, "a": {"d": 2, "c": [3]}, "0": True},
    {"nan": [math.inf, -math.inf]},
]


@pytest.mark.parametrize("doc", DOCS)
def test_the_text_is_the_same_document(doc):
    text = json_text(doc)
    assert text.endswith("\n") and text.isascii()
    assert json.loads(text) == doc
    assert json.loads(json_text(doc, sort_keys=True)) == doc


def test_sorted_keys_are_sorted_at_every_level():
    text = json_text({"b": 1, "a": {"d": 2, "c": [3]}}, sort_keys=True)
    assert text == '{\n "a": {"c": [3], "d": 2},\n "b": 1\n}\n'


def test_a_record_is_one_line_and_what_holds_records_is_indented():
    doc = {"plans": [{"name": "forward", "values": [{"index": 0, "sizes": [2]}, {"index": 1, "sizes": []}]}]}
    assert json_text(doc).splitlines() == [
        "{", ' "plans": [', "  {", '   "name": "forward",', '   "values": [',
        '    {"index": 0, "sizes": [2]},', '    {"index": 1, "sizes": []}', "   ]", "  }", " ]", "}"]


@pytest.mark.parametrize("name", ["mlp.pte", "device_mlp.pte", "named/transformer3k.pte"])
def test_inspect_json_writes_a_line_per_value_and_instruction(name, capsys):
    """The document is the one the model gives; its text a line per value and per instruction (was one per key and
    per list item: 12 lines and more per value)."""
    from explorer import load
    from explorer.jsonform import program_json

    assert main(["inspect", "--json", str(FIX / name)]) == 0
    text = capsys.readouterr().out
    doc = json.loads(text)
    assert doc == json.loads(json.dumps(program_json(load(FIX / name), Path(name).name)))
    records = sum(len(p["values"]) + len(p["instructions"]) for p in doc["plans"])
    assert records <= len(text.splitlines()) < records + 200 * len(doc["plans"]) + 200
