"""The one way sizes and counts read, checked on the table the browser's formatter is checked on too
(``tests/fixtures/shared/number_formats.json``; the node side reads the same file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.describe.profile import time_text
from explorer.units import count, count_text, nbytes_text

TABLE = json.loads((Path(__file__).parent / "fixtures" / "shared" / "number_formats.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("n, text", TABLE["bytes"])
def test_bytes_read_as_the_shared_table_says(n, text):
    assert nbytes_text(n) == text


@pytest.mark.parametrize("n, text", TABLE["count"])
def test_counts_read_as_the_shared_table_says(n, text):
    assert count_text(n) == text


@pytest.mark.parametrize("ns, text", TABLE["time"])
def test_times_read_as_the_shared_table_says(ns, text):
    """The CLI's times (``inspect --profile``) in µs as the page writes them, never "us"."""
    assert time_text(ns) == text


def test_the_table_holds_the_cases_that_once_disagreed():
    """1,280 B read "1.2 KiB" in Python and "1.3 KiB" in the graph's details; ties and unit edges are in."""
    rows = dict((n, t) for n, t in TABLE["bytes"] if n is not None)
    assert rows[1280] == "1.2 KiB" and rows[1792] == "1.8 KiB" and rows[1048575] == "1.0 MiB"


def test_count_says_the_noun_once_or_in_plural():
    assert count(1, "value") == "1 value" and count(1024, "entry", "entries") == "1,024 entries"
