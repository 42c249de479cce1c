"""notebooks/tour.ipynb runs top to bottom (so it cannot rot) and is committed without outputs."""

from __future__ import annotations

from pathlib import Path

# nbformat and nbclient are imported in the tests that use them: nbformat's import builds jsonschema's URI grammar
# (~3 s), which every worker would otherwise pay while collecting the whole suite

TOUR = Path(__file__).resolve().parent.parent / "notebooks" / "tour.ipynb"


def test_tour_is_committed_without_outputs():
    import nbformat

    nb = nbformat.read(TOUR, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "the tour has code"
    assert all(not c.outputs and c.execution_count is None for c in code)
    assert "widgets" not in nb.metadata  # no stored widget state (it would carry all of plotly.js)


def test_tour_runs_and_finds_the_planted_bug(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(TOUR, as_version=4)
    # A busy machine can deliver a cell's printed output after its reply; by default nbclient then waits
    # 4 s and drops it silently (seen once in CI). Wait longer, and fail loudly rather than lose output.
    NotebookClient(nb, timeout=120, kernel_name="python3", iopub_timeout=60, raise_on_iopub_timeout=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "arena 2 on cuda:0" in text
    assert "error device-mismatch - %17" in text, text
    assert "%17 says cpu, its arena 2 is on cuda:0" in text, text
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widgets) == 2, "the explorer is shown twice: the sample and the planted bug"
    assert (tmp_path / "planted-bug-report.html").stat().st_size > 1_000_000


def test_the_planted_bug_file_is_what_the_script_writes():
    """The tour loads ``explorer/data/sample_planted_bug.pte`` (the writer is not shipped): it must stay the
    sample with value 17 relabelled, as scripts/make_planted_bug.py writes it."""
    import sys

    sys.path.insert(0, str(TOUR.parent.parent / "scripts"))
    import make_planted_bug

    assert make_planted_bug.OUT.read_bytes() == make_planted_bug.planted()
