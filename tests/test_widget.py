"""The Explorer widget without a browser: its traits (as the front end reads and writes them), the payload
it sends, the messages it answers. What the page does with them is tested in Chromium (test_browser.py)
and under node (tests/js)."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_helpers import PlanBuilder

import explorer
from explorer import Explorer, load
from explorer import frontend
from writers.pte import write
from explorer.views.payload.embed import unpack
from explorer.views.state.selection import Selection

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def sample():
    return Explorer()


@pytest.fixture
def ex():
    return Explorer(FIXTURES / "device_add.pte")


def payload(widget: Explorer) -> dict:
    return unpack(widget._payload)


def from_browser(widget: Explorer, **state) -> None:
    """Apply a state update as the front end sends it (JSON, through the traits' deserialisers)."""
    widget.set_state(state)


def planted_program():
    """A cpu tensor planned in the cuda:0 arena (device-mismatch) — the tour's kind of bug."""
    b = PlanBuilder(arenas=[(32, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0, name="x")
    d = b.tensor(arena=2, offset=0, device="cuda:0", name="x_cuda")
    wrong = b.tensor(arena=2, offset=16, device="cpu", name="wrong")
    b.h2d(x, d)
    b.kernel("aten::relu.out", d, wrong, wrong)
    b.inputs(x)
    b.outputs(wrong)
    return load(write(b.program()))


def test_opens_the_bundled_sample(sample):
    assert Path(sample.program.source).name == "sample.pte"
    assert sample.plan == "forward" and sample.selected == Selection("forward")
    assert sample.devices == ("cpu", "cuda:0") and sample.expanded == ()
    data = payload(sample)
    assert data["title"] == "sample.pte" and data["plan"] == "forward"
    assert "cuda:0 11" in data["plans"][0]["summary"]


def test_the_front_end_is_the_app_and_plotly_comes_once(sample):
    assert sample._esm == frontend.bundle("widget") and "export default {render: __dx_index.render}" in sample._esm
    assert "createApp(el, model, data)" in sample._esm and sample._css == frontend.css()
    assert "plotly.js (basic" not in sample._esm, "plotly.js is sent once per page, not in each widget's module"
    assert len(sample._esm) < 350_000 and len(sample._payload) < 50_000  # the app alone (301 KB): plotly.js is 1.2 MB
    sent = []
    sample.send = lambda content, buffers=None: sent.append((content, buffers))
    sample._on_message(sample, {"type": "plotly"}, [])
    sample._on_message(sample, {"type": "something else"}, [])
    ((content, buffers),) = sent
    assert content == {"type": "plotly"} and buffers[0].startswith(b"/**\n* plotly.js (basic - minified)")


def test_accepts_path_bytes_and_program():
    data = (FIXTURES / "device_add.pte").read_bytes()
    assert Explorer(data).program.plans[0].name == "forward"
    program = load(FIXTURES / "device_add.pte")
    assert Explorer(program).program is program
    assert Explorer(str(FIXTURES / "device_add.pte")).plan == "forward"


def test_select_from_code_is_sent_as_json(ex):
    plan = ex.view.plan
    cuda = next(t for t in plan.tensors if not t.device.is_cpu)
    sel = ex.select(cuda.index)
    assert ex.selected == sel == Selection("forward", (cuda.index,))
    assert sel.tensors(plan) == [cuda]
    assert ex.get_state("selected")["selected"] == {"plan": "forward", "values": [cuda.index], "instructions": [],
                                                    "finding": None, "query": "", "group": None}
    assert ex.select(cuda.label).values == (cuda.index,)
    assert ex.select(cuda).values == (cuda.index,)
    ex.select(instructions=[2])
    assert ex.get_state("selected")["selected"]["instructions"] == [2]
    ex.select()
    assert not ex.selected


def test_clicks_in_the_page_set_the_trait(ex):
    from_browser(ex, selected={"plan": "forward", "values": [3], "instructions": [], "finding": None, "query": ""})
    assert ex.selected == Selection("forward", (3,))
    from_browser(ex, selected={"plan": "forward", "values": [], "instructions": [1, 2], "finding": None,
                               "query": "h2d"})
    assert ex.selected == Selection("forward", (), (1, 2), query="h2d")


def test_a_group_clicked_in_the_page_is_the_selection_in_python():
    """Issue 32: a click on an overview group showed it in the page, but ``ex.selected`` never changed."""
    from writers.synth import synthetic_program

    grouped = Explorer(synthetic_program(values=400))
    group = grouped.overview.groups.children(0)[0]
    from_browser(grouped, selected={"plan": "forward", "values": [], "instructions": [], "finding": None, "query": "",
                                    "group": group})
    assert grouped.selected == Selection("forward", group=group) and grouped.selected
    assert grouped.get_state("selected")["selected"]["group"] == group  # and back to the page as it came
    grouped.select(3)
    assert grouped.selected.group is None and grouped.get_state("selected")["selected"]["group"] is None


def test_the_output_carries_the_program_in_words_for_pages_without_script(tmp_path):
    """Issue 32: a notebook exported to HTML and opened where no widget script runs showed nothing; beside its widget
    view the output bundle has a text/html summary (plans, devices, arenas, how to get the report), escaped."""
    import nbformat
    from nbconvert import HTMLExporter

    path = tmp_path / "a<b>&.pte"
    path.write_bytes((FIXTURES / "device_mlp.pte").read_bytes())
    data, _ = Explorer(path)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data  # a host that draws widgets still draws this one
    cell = nbformat.v4.new_code_cell("ex", outputs=[nbformat.v4.new_output("display_data", data=data)])
    page, _ = HTMLExporter().from_notebook_node(nbformat.v4.new_notebook(cells=[cell]))
    assert "forward: 25 tensors (cpu 14, cuda:0 11) · 20 instructions · 2 arenas · no findings" in page
    assert "arena 1 · cpu · 160 B" in page and "arena 2 · cuda:0 · 128 B" in page
    assert 'ex.save_html("report.html")' in page
    assert "ExecuTorch device explorer: a&lt;b&gt;&amp;.pte</b>" in page and "a<b>&" not in page
    import html
    assert "device-explorer show 'a<b>&.pte' -o report.html" in html.unescape(page)  # quoted for a shell, escaped



def test_a_page_saved_with_its_widget_state_still_shows_the_summary(sample):
    """Issue 32: with the widget state saved in the notebook (JupyterLab's "Save Widget State Automatically",
    ``nbconvert --execute``), nbconvert writes an output's widget view alone and drops its text/html: opened where the
    widget manager cannot load (offline), the output was blank. Displayed in a notebook, the widget is two outputs: the
    view (its own text/html empty) and the summary, which nbconvert writes either way, once."""
    import nbformat
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from nbconvert import HTMLExporter

    InteractiveShell.instance()
    with capture_output() as shown:
        sample._ipython_display_()
    view, summary = (o.data for o in shown.outputs)
    model = view["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert "dx-fallback" not in view["text/html"] and "dx-fallback" in summary["text/html"]
    assert "application/vnd.jupyter.widget-view+json" not in summary
    cell = nbformat.v4.new_code_cell("ex", outputs=[nbformat.v4.new_output("display_data", data=d) for d in (view, summary)])
    for saved in (True, False):
        nb = nbformat.v4.new_notebook(cells=[cell])
        if saved:
            nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
                "version_major": 2, "version_minor": 0, "state": {model: {"model_name": "AnyModel", "state": {}}}}}
        page, _ = HTMLExporter().from_notebook_node(nb)
        assert ('type="application/vnd.jupyter.widget-view+json"' in page) is saved  # the view, where its state is
        assert page.count('class="dx-fallback"') == 1, saved
        assert "sample.pte</b> (a static summary" in page

def test_select_rejects_what_the_plan_does_not_have(ex):
    with pytest.raises(KeyError):
        ex.select("no-such-tensor")
    with pytest.raises(IndexError):
        ex.select(10_000)
    with pytest.raises(KeyError, match="no plan named"):
        ex.select(0, plan="nope")


def test_findings_travel_by_index():
    ex = Explorer(planted_program())
    mismatch = [f for f in ex.findings if f.code == "device-mismatch"]
    assert mismatch, ex.findings
    k = ex.findings.index(mismatch[0])
    assert "device-mismatch" in payload(ex)["findings"][k]["label"]
    ex.select(mismatch[0])
    assert ex.selected.values == mismatch[0].values and ex.selected.instructions == mismatch[0].instructions
    assert ex.get_state("selected")["selected"]["finding"] == str(k)
    ex.select(0)
    from_browser(ex, selected={"plan": "forward", "values": list(mismatch[0].values),
                               "instructions": list(mismatch[0].instructions), "finding": str(k), "query": ""})
    assert ex.selected.finding is mismatch[0]  # a click on the findings list


def test_plan_switch_and_select_follow_plans():
    ex = Explorer(FIXTURES / "two_methods.pte")
    assert ex.plan == "forward" and [p["name"] for p in payload(ex)["plans"]] == ["encode", "forward"]
    ex.select(0)
    from_browser(ex, plan="encode")  # the plan selector
    assert ex.plan == "encode" and ex.selected == Selection("encode")
    sel = ex.select(1, plan="forward")
    assert ex.plan == "forward" and ex.selected == sel == Selection("forward", (1,))
    with pytest.raises(Exception, match="no plan 'nope'"):
        ex.plan = "nope"


def test_device_filter_is_a_trait(ex):
    assert ex.devices == ("cpu", "cuda:0")
    from_browser(ex, devices=["cpu"])  # the cuda:0 button pressed
    assert ex.devices == ("cpu",)
    ex.devices = ("cpu", "cuda:0")
    assert list(ex.get_state("devices")["devices"]) == ["cpu", "cuda:0"]


def test_search_rules_are_the_pages(ex):
    """The page searches with the rules of explorer.views.state.selection.search: %N any value, #N an instruction."""
    rules = frontend.source("shell/search.js")  # run under node in tests/js/search.test.js
    assert "k < P.nValues" in rules and "k < P.nInstructions" in rules
    data = payload(ex)["plans"][0]
    assert data["nValues"] == len(ex.view.plan.values) and data["nInstructions"] == len(ex.view.plan.instructions)


def test_save_html(ex, tmp_path):
    from explorer.views.payload.embed import page_payload

    ex.select(0)
    path = ex.save_html(tmp_path / "r.html")
    html = path.read_text(encoding="utf-8")
    assert html.count("plotly.js (basic - minified) v") == 1
    assert page_payload(html)["selected"]["values"] == [0]


def test_findings_are_explorer_check_itself(monkeypatch, sample):
    """The widget asks ``explorer.check`` (no copy of it to drift), and shows exactly its answer."""
    import explorer.analysis.pipeline as pipeline
    import explorer.widget.explorer as widget

    assert widget.check is pipeline.check is explorer.check
    calls = []
    real = pipeline.check

    def spy(program, **kwargs):
        calls.append(program)
        return real(program, **kwargs)

    monkeypatch.setattr(widget, "check", spy)
    program = sample.program
    ex = Explorer(program)
    assert calls == [program]
    assert ex.findings == real(program)
