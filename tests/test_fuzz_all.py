"""A fast sample of ``scripts/fuzz_all.py``: mutants of every format we open (programs, .ptd, .bpte,
XNNPACK-carrying programs, ETDump) through ``explorer.load``/``check``/``diff``, the report payload and
the CLI; each must end in a result or our own PteFormatError. The long campaign is the script."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import fuzz_all  # noqa: E402


def test_a_sample_of_the_campaign_over_every_format_has_no_unexpected_exception(capsys):
    log: list[str] = []
    counts, _, _ = fuzz_all.campaign(400, seed=3, payload_every=8, cli_every=8, save=None, report_every=0,
                                     log=log.append)
    assert not log, log[0][:3000]
    assert set(counts) == {"loaded", "format-error"} and sum(counts.values()) == 400
    assert counts["loaded"] > 20 and counts["format-error"] > 20  # both paths ran, deep and shallow


def test_the_memory_budget_counts_the_campaigns_own_peak(monkeypatch):
    """A test worker that other tests grew past 1 GiB earlier is not a case over budget (the sample failed at case 0
    in CI: "process peak 1025 MiB" was the worker's history); a case past the budget still is."""
    grown = bytearray(1100 * 1024 * 1024)
    grown[::4096] = b"\x01" * len(range(0, len(grown), 4096))  # touched: resident, the process's peak past 1 GiB
    del grown
    log: list[str] = []
    counts, _, _ = fuzz_all.campaign(5, seed=3, payload_every=0, cli_every=0, save=None, report_every=0,
                                     log=log.append, amplify_rate=0)
    assert not counts["over-budget-rss"], log
    monkeypatch.setattr(fuzz_all, "BUDGET_RSS_MIB", 1)  # every case's own peak is past 1 MiB
    counts, _, _ = fuzz_all.campaign(5, seed=3, payload_every=0, cli_every=0, save=None, report_every=0,
                                     log=log.append, amplify_rate=0)
    assert counts["over-budget-rss"] == 1 and "over-budget-rss" in log[-1]


def test_a_campaign_reports_an_unexpected_exception(monkeypatch):
    """The oracle can fail: a reader that raises something else is counted and logged as a crash."""
    import explorer

    def broken(data, *a, **k):
        raise IndexError("boom")

    monkeypatch.setattr(explorer, "load", broken)
    log: list[str] = []
    counts, _, _ = fuzz_all.campaign(20, seed=0, payload_every=0, cli_every=0, save=None, report_every=0,
                                     log=log.append)
    assert any(k.startswith("crash[program] IndexError") for k in counts) and log


CRASHES = Path(__file__).resolve().parent / "fixtures" / "crashes" / "all"


def test_every_input_the_campaign_crashed_on_now_answers():
    """Each saved input (tests/fixtures/crashes/all/index.json) goes the whole way again: load, check,
    the report payload and the CLI. The first two were programs with no plans, on which the payload
    builder raised ValueError (views/state/plan.py default_plan) while the report said 'no execution plans'."""
    import json

    index = json.loads((CRASHES / "index.json").read_text())
    assert index
    for name in index:
        data = (CRASHES / name).read_bytes()
        fuzz_all.run_program(data, data, payload=True, cli_path=None)


def test_a_sample_over_the_backend_payload_seeds_answers_every_case():
    """Mutants of the Ethos-U, VGF, Core ML and QNN carriers (tests/fixtures/payloads/, seeds of the
    campaign) through load, check (which identifies every payload), the report payload and the CLI."""
    import random
    import tempfile

    import fuzz as program_fuzz

    seeds = [(n, d) for n, d in program_fuzz._seed_corpus(synthetic=False) if n.startswith("payloads/")]
    assert len(seeds) == 8  # 6 built from the layouts, 2 real exports (Ethos-U, Core ML)
    mut = program_fuzz.Mutator(seeds, random.Random(5))
    corpus = dict(seeds)
    kinds = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(300):
            what, data = mut.mutate()
            kinds.append(fuzz_all.run_program(corpus.get(what.split(": ", 1)[0], data), data, payload=case % 10 == 0,
                                              cli_path=Path(tmp) / "case.pte" if case % 25 == 0 else None))
    assert kinds.count("loaded") > 30 and kinds.count("format-error") > 30
