"""No injection (issue 6, item 4): every string from a ``.pte`` that reaches HTML or the widget is escaped.

One hostile program puts script tags, attribute break-outs, ``javascript:`` URLs, a ``</script>``
break-out, template-looking text (``{{7*7}}``, ``${7*7}``, plotly's ``%{x}``, TeX ``$\\href{..}$``),
bidi controls (U+202E, the U+2066–U+2069 isolates, RLM) and terminal controls (ESC, BEL, NUL) into
every name the views show: tensor names, operator names and overloads, delegate ids, compile spec keys
and values, stack-trace filenames/function names/context, and plan names.

Checked three ways:

* Python, on what the views produce: the report's page and data block parse to exactly our own
  elements and attributes; the widget's FigureWidget text/hovertext/customdata/names and its HTML
  widgets' ``.value`` hold only escaped forms; no displayed string keeps a raw control character
  (the policy of :mod:`explorer.views.escape`: shown as ``\\u202e``-style escapes).
* In headless Chromium on the exported report (``file://``): no dialog, no injected element, no
  request beyond the page, the hostile text shown literally after a hover, a click on an op and a
  tensor, a click on a finding and a plan switch. Screenshot: ``artifacts/injection_report.png``.
* In JupyterLab on the widget: the same, through the kernel. Screenshot: ``artifacts/injection_lab.png``.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from explorer import Explorer, Tensor, load
from writers.pte import write
from explorer.model.program import CompileSpec, Frame
from explorer.views.escape import html_attr, html_text, plotly_text, visible
from explorer.views.state.overview import TRACE
from explorer.views.state.plan import plan_view
from explorer.views.payload.embed import DATA_TYPE, page_payload, unpack
from explorer.views.html.report import report_html, write_report
from app_js import run_js, run_payload_js

FIXTURES = Path(__file__).parent / "fixtures"

ALERT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
JS_URL = "javascript:alert(1)"
BREAKOUT = "</script><script>window.__pwned=1</script>"
TEMPLATE = "{{7*7}}${7*7}%{x}"
TEX = "$\\href{javascript:alert(1)}{tex}$"
BIDI = "\u202eRLO\u2066LRI\u2067RLI\u2068FSI\u2069PDI\u200fRLM"
CONTROL = "\x1b[31mESC\x07BEL\x00NUL"
PAYLOADS = (ALERT, IMG, JS_URL, BREAKOUT, TEMPLATE, TEX, BIDI, CONTROL)
FORGED = "\n  forged.py:1 in pwn"  # a newline in a stack-trace context must not make a fake frame
PLAN_NAMES = (IMG + BIDI + "\x1b[2Jfwd", BREAKOUT + TEMPLATE)
DELEGATE_CALL = 3  # instruction 3 of device_mlp.pte calls delegate 0

# characters no displayed text may hold raw: C0 controls (tab/newline/CR aside: they are the page's own
# whitespace), DEL, C1, the bidi marks, embeddings, overrides and isolates
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
RAW_JS = r"/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/"


def hostile_program():
    """device_mlp.pte with every name the views show replaced by hostile text; two plans."""
    program = load(FIXTURES / "device_mlp.pte")
    plan = program.plan("forward")
    values = list(plan.values)
    tensors = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    for k, i in enumerate(tensors):
        values[i] = dataclasses.replace(values[i], name=f"{PAYLOADS[k % len(PAYLOADS)]}·t{i}")
    # Instruction.op comes from the operators table at load, so rename the table
    operators = tuple(dataclasses.replace(o, name=o.name + PAYLOADS[(k + 2) % len(PAYLOADS)], overload=o.overload + IMG)
                      for k, o in enumerate(plan.operators))
    delegates = tuple(dataclasses.replace(d, id="Backend" + PAYLOADS[k % len(PAYLOADS)], compile_specs=d.compile_specs + (
        CompileSpec(IMG + BIDI, (BREAKOUT + JS_URL).encode()), CompileSpec(TEMPLATE, TEX.encode()),
        CompileSpec("bidi", BIDI.encode()))) for k, d in enumerate(plan.delegates))
    frames = (Frame(BREAKOUT + ".py", 7, IMG, ALERT + TEMPLATE + BIDI + FORGED), Frame(JS_URL, 8, TEX, CONTROL))
    instructions = tuple(dataclasses.replace(i, stacktrace=frames) for i in plan.instructions)
    first = dataclasses.replace(plan, name=PLAN_NAMES[0], values=tuple(values), operators=operators,
                                delegates=delegates, instructions=instructions)
    second = dataclasses.replace(first, name=PLAN_NAMES[1])
    return load(write(dataclasses.replace(program, plans=(first, second))))


@pytest.fixture(scope="module")
def program():
    p = hostile_program()
    assert p.plan_names == PLAN_NAMES
    plan = p.plans[0]
    assert plan.instructions[DELEGATE_CALL].label == "Backend" + ALERT
    assert {t.name.split("·")[0] for t in plan.tensors} == set(PAYLOADS)
    assert plan.instructions[0].stacktrace[0].context.endswith(FORGED)
    return p


# -- checking what the views produced -------------------------------------------------------------

class Fragment(HTMLParser):
    """Tags, attributes and text of an HTML (or plotly pseudo-HTML) string, entities decoded."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.texts: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.texts.append(data)

    @property
    def text(self) -> str:
        return "".join(self.texts)


HTML_TAGS = {"div", "h4", "table", "tr", "td", "th", "ul", "li", "span", "b", "style",
             "details", "summary", "colgroup", "col"}  # what details.py and views/fragments/requirements.py write
PLOTLY_TAGS = {"b", "br", "span"}  # what text.py / graph.py / memory.py write into plotly strings


def check_fragment(text: str, tags=HTML_TAGS, allow=("\u2002",)) -> str:
    """Assert ``text`` holds only our own markup and no raw control character; returns its text."""
    parsed = Fragment(text)
    for tag, attrs in parsed.tags:
        assert tag in tags, f"unexpected <{tag}> in {text[:200]!r}"
        ours = {"class", "style"} | ({"open"} if tag == "details" else set())  # "Runtime needs" starts open
        assert set(attrs) <= ours, f"unexpected attributes {attrs} in {text[:200]!r}"
        assert attrs.get("open") is None, "open is a bare boolean attribute (a <details> shown unfolded)"
    shown = parsed.text
    for ch in allow:
        shown = shown.replace(ch, "")
    assert not RAW.search(shown), f"raw control character in {shown[:200]!r}"
    return parsed.text


def check_plain(text: str) -> None:
    """Plain text (textContent, widget labels, tooltips): no raw control characters."""
    assert not RAW.search(text), f"raw control character in {text[:200]!r}"


def figure_strings(fig: dict) -> list[str]:
    """Every string plotly draws from a figure: trace text, hover text, names, annotations, ticks."""
    out = []
    for trace in fig.get("data", ()):
        for key in ("text", "hovertext", "name", "hovertemplate", "texttemplate"):
            value = trace.get(key)
            if isinstance(value, str):
                out.append(value)
            elif value is not None and not isinstance(value, dict):
                out.extend(str(v) for v in value)
    layout = fig.get("layout", {})
    out.extend(a.get("text", "") for a in layout.get("annotations", ()))
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")):
            out.extend(str(t) for t in axis.get("ticktext", ()))
    return out


def payload(page: str) -> dict:
    return page_payload(page)


# -- the policy -------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, shown", [
    ("abc\u202eexe.txt", "abc\\u202eexe.txt"),
    ("\u2066a\u2067b\u2068c\u2069", "\\u2066a\\u2067b\\u2068c\\u2069"),
    ("\u200e\u200f\u061c\u202a\u202b\u202c\u202d", "\\u200e\\u200f\\u061c\\u202a\\u202b\\u202c\\u202d"),
    ("\x1b[31mred\x07\x00\x7f\x85", "\\x1b[31mred\\x07\\x00\\x7f\\x85"),
    ("a\tb\nc\rd", "a\\tb\\nc\\rd"),
    ("zero\u200bwidth\u200d\ufeff\xad", "zero\\u200bwidth\\u200d\\ufeff\\xad"),
    ("line\u2028para\u2029nbsp\xa0", "line\\u2028para\\u2029nbsp\\xa0"),
    ("tag\U000e0041", "tag\\U000e0041"),
])
def test_invisible_and_reordering_characters_are_shown_as_escapes(raw, shown):
    assert visible(raw) == shown == repr(raw)[1:-1]  # the form the terminal's repr() prints
    assert visible(shown) == shown  # idempotent: escaping twice changes nothing
    assert html_text("<b>" + raw) == "&lt;b&gt;" + shown
    assert plotly_text(raw + "&") == shown + "&amp;"


@pytest.mark.parametrize("text", ["linear.weight", "aten::add.out", "中文名", "café", "emoji 😀", "a b", ALERT, TEMPLATE])
def test_printable_names_are_left_alone(text):
    assert visible(text) == text


def test_compared_attribute_values_keep_the_raw_text():
    assert html_attr('"' + BIDI) == "&quot;" + BIDI
    assert html_text('"' + BIDI) == "&quot;" + visible(BIDI)


# -- the report, from Python ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(program):
    return report_html(program)


class Page(HTMLParser):
    """The report's own elements (script bodies are raw text to the parser, as to a browser)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.data: list[tuple[str, str]] = []
        self._open: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open.append(tag)

    def handle_endtag(self, tag):
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag):]

    def handle_data(self, data):
        self.data.append((self._open[-1] if self._open else "", data))


def test_report_page_has_only_its_own_elements(program, page):
    parsed = Page(page)
    tags = [t for t, _ in parsed.tags]
    # the app builds the rest with createElement / textContent (checked in Chromium below)
    assert set(tags) <= {"html", "head", "meta", "title", "style", "script", "body", "div", "p", "noscript"}, set(tags)
    assert tags.count("script") == 3, "plotly.js, the data element and the app: nothing injected"
    for tag, attrs in parsed.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not any("javascript:" in (value or "").lower() for value in attrs.values()), (tag, attrs)
        assert not (set(attrs) & {"href", "src", "action", "formaction"}), (tag, attrs)
    for tag, text in parsed.data:
        if tag not in ("script", "style"):
            check_plain(text)
    data_block = page.split(f'<script type="{DATA_TYPE}" id="dx-data">', 1)[1].split("</script>", 1)[0]
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", data_block), "base64 only: nothing in it can end the element"


def test_report_payload_holds_only_escaped_text(program, page, tmp_path):
    check_payload(payload(page), tmp_path)


def check_payload(data: dict, tmp_path) -> None:
    """What the app is given — HTML fragments escaped in Python, plain text for textContent, the column tables
    as plain text — and what it makes of them: every tensor's and instruction's details and hover text, as the
    app writes them (its drawing modules run under node, tests/app_js.py), show the hostile names literally."""
    assert [p["name"] for p in data["plans"]] == list(PLAN_NAMES)  # keys, compared, never shown
    assert [p["label"] for p in data["plans"]] == [visible(n) for n in PLAN_NAMES]  # shown in the plan selector
    check_plain(data["title"])
    for k, p in enumerate(data["plans"]):
        L = p["lod"]
        rows = p.get("companions", {}).get("rows", {})
        fragments = [p["totals"], *p["findingDetails"].values(), *rows.get("v", {}).values(), *rows.get("i", {}).values()]
        for text in [p["summary"], *L["tensors"]["label"], *(t for row in L["ops"]["opTable"] for t in row[:2]),
                     *L["groups"]["label"], *(line for st in L["ops"]["stacks"] for line in st),
                     *(d[key] for d in L["delegates"] for key in ("id", "location"))]:
            check_plain(text)  # the app escapes them where it shows them (util/common.js esc / ptext)
        assert "graph" not in p and "memory" not in p, "no figure from Python: the app builds them (lod/figures.js)"
        tensors, m = list(L["tensors"]["index"]), L["m"]
        out = run_payload_js(tmp_path / f"plan{k}", p, [  # every tensor's and every instruction's details
            {"op": "noop", "figures": j == 0, "detail": tensors[j % len(tensors)], "instr": j % m}
            for j in range(max(len(tensors), m))])
        shown = "\n".join(check_fragment(f) for f in fragments + [d for o in out for d in o["details"]])
        for text in (ALERT, IMG, JS_URL, BREAKOUT, TEMPLATE, TEX, visible(BIDI), visible(CONTROL)):
            assert text in shown, f"{text!r} is not shown literally"
        graph = out[0]["figures"]["graph"]
        for text in figure_strings(graph) + figure_strings(out[0]["figures"]["memory"]):
            check_fragment(text, PLOTLY_TAGS)
        hover = " ".join(Fragment(t).text for t in graph["data"][TRACE["ops"]]["hovertext"])
        assert "Backend" + ALERT in hover and visible(BIDI) in hover and TEMPLATE in hover
    assert data["findings"], "the renamed copy ops make findings that quote the names"
    for f in data["findings"]:
        check_plain(f["label"])
    assert any(IMG in f["label"] and visible(BIDI) in f["label"] for f in data["findings"])


def test_figures_built_in_the_browser_escape_every_name_they_show(program, tmp_path):
    """The skeletons the app builds from the tables (frontend/lod/figures.js: legends, lane titles, the note past an
    arena's end) show device names; a device name is text from the payload like any other, so even a hostile one
    (a payload not made by our reader) is escaped for plotly there, and the lanes' blocks name hostile tensors
    escaped too."""
    from explorer.views.payload.app import plan_entry

    view = plan_view(program.plans[0], program)
    p = plan_entry(view, [], [])
    for d in p["lod"]["devices"]:
        d["name"] = visible(IMG + BIDI + d["name"])
    for a in p["lod"]["arenas"]:  # every lane past its end: the overflow note too
        a["high"], a["past"] = a["size"] + 48, 1
    out = run_payload_js(tmp_path, p, [{"op": "noop", "figures": True}])[0]["figures"]
    texts = figure_strings(out["graph"]) + figure_strings(out["memory"])
    shown = "\n".join(check_fragment(t, PLOTLY_TAGS) for t in texts)
    assert IMG in shown and visible(BIDI) in shown, "the names are shown literally"
    titles = [a["text"] for a in out["memory"]["layout"]["annotations"] if not a.get("name")]
    assert titles and all(plotly_text(IMG) in t for t in titles), "each lane's title names its device, escaped"
    legend = [t["name"] for t in out["graph"]["data"][11:]]
    assert plotly_text(visible(IMG + BIDI)) + "cpu" in legend
    assert [a for a in out["memory"]["layout"]["annotations"] if a.get("name") == "overflow"]
    blocks = [t for b in out["memory"]["data"][::2] if b.get("type") == "bar" and b.get("text") for t in b["text"]]
    assert blocks and any("&lt;script&gt;alert(1)" in t for t in blocks) and not any("<script" in t for t in blocks)


def test_stack_trace_context_cannot_forge_frames(program, tmp_path):
    view = plan_view(program.plans[0], program)
    fragment = run_js(tmp_path, view, [{"op": "noop", "detail": 0, "instr": 0}])[0]["details"][1]
    trace = fragment.split("<div class='dx-trace'>", 1)[1].split("</div>", 1)[0]
    lines = Fragment(trace).text.split("\n")
    assert lines == [f"{BREAKOUT}.py:7 in {IMG}", "    " + visible(ALERT + TEMPLATE + BIDI + FORGED),
                     f"{JS_URL}:8 in {TEX}", "    " + visible(CONTROL)]
    # the real stack traces of the fixture read as before
    real = load(FIXTURES / "stacktrace.pte")
    rview = plan_view(real.plans[0], real)
    text = Fragment(run_js(tmp_path / "real", rview, [{"op": "noop", "detail": 0, "instr": 0}])[0]["details"][1]).text
    assert "scripts/make_fixtures.py:64 in forward\n    return self.fc2(torch.relu(self.fc1(x)))" in text
    assert "<site-packages>/torch/nn/modules/linear.py:134 in forward" in text


# -- the widget, from Python ------------------------------------------------------------------------



def test_widget_shows_only_escaped_text(program, tmp_path):
    """The widget runs the report's app on the same payload, so the same checks hold; the traits carry
    indices and raw names only as keys."""

    ex = Explorer(program)
    assert ex.plan == PLAN_NAMES[0]
    check_payload(unpack(ex._payload), tmp_path)
    ex.select(instructions=[DELEGATE_CALL])
    state = ex.get_state()
    assert state["selected"]["instructions"] == [DELEGATE_CALL] and state["plan"] == PLAN_NAMES[0]
    finding = next(f for f in ex.findings if IMG in f.message)
    ex.select(finding)
    assert ex.get_state()["selected"]["finding"] == str(ex.findings.index(finding))
    ex.plan = PLAN_NAMES[1]  # the real plan name, whatever it holds
    assert ex.get_state()["plan"] == PLAN_NAMES[1] and ex.selected.plan == PLAN_NAMES[1]


def test_widget_export_is_the_escaped_report(program, tmp_path):
    ex = Explorer(program)
    ex.select(instructions=[DELEGATE_CALL])
    page = ex.save_html(tmp_path / "w.html").read_text(encoding="utf-8")
    assert [t for t, _ in Page(page).tags].count("script") == 3
    assert payload(page)["selected"]["instructions"] == [DELEGATE_CALL]


# -- the terminal -----------------------------------------------------------------------------------

def cli_text(args) -> str:
    from explorer.cli import main

    out = io.StringIO()
    main(args, stdout=out)
    return out.getvalue()


def test_cli_json_output_escapes_control_characters(program, tmp_path):
    path = tmp_path / "hostile.pte"
    path.write_bytes(write(program))
    for command in ("inspect", "check"):
        text = cli_text([command, "--json", str(path)])
        assert not RAW.search(text) and json.loads(text)


def test_cli_text_output_does_not_pass_terminal_controls(program, tmp_path):
    path = tmp_path / "hostile.pte"
    path.write_bytes(write(program))
    texts = [cli_text(["inspect", str(path)]), cli_text(["check", str(path)]),
             cli_text(["show", str(path), "-o", str(tmp_path / "r.html")]),
             cli_text(["diff", str(FIXTURES / "device_mlp.pte"), str(path)])]
    for text in texts:
        assert not RAW.search(text), RAW.search(text)


# -- in a browser -----------------------------------------------------------------------------------

INJECTED_JS = """
(root) => {
  const bad = BAD_RE;
  const scope = root ? document.querySelector(root) : document.body;
  const out = {imgs: scope.querySelectorAll('img, iframe, object, embed').length,
               imgx: document.querySelector('img[src="x"]') !== null,
               pwned: typeof window.__pwned, scripts: document.scripts.length,
               attrs: [], raw: [], mathjax: scope.querySelectorAll('mjx-container, .MathJax').length};
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      if (/^on/i.test(a.name)) out.attrs.push(el.tagName + ' ' + a.name + '=' + a.value);
      // URL-bearing attributes (plotly keeps label text in data-unformatted: text, not a link)
      if (/^(href|xlink:href|src|srcdoc|action|formaction|data|poster|background|style)$/i.test(a.name) &&
          /javascript:/i.test(a.value)) out.attrs.push(el.tagName + ' ' + a.name + '=' + a.value);
    }
  }
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentNode ? n.parentNode.nodeName : '';
    if (p === 'SCRIPT' || p === 'STYLE' || p === 'style') continue;
    if (bad.test(n.data)) out.raw.push(n.data.slice(0, 120));
  }
  for (const el of scope.querySelectorAll('[title], [data-title]'))
    for (const t of [el.getAttribute('title'), el.getAttribute('data-title')]) if (t && bad.test(t)) out.raw.push('title: ' + t);
  return out;
}
""".replace("BAD_RE", RAW_JS)


def assert_clean(page, root: str | None = None, scripts: int | None = 3) -> None:
    state = page.evaluate(INJECTED_JS, root)
    assert state["imgs"] == 0 and not state["imgx"], state
    assert state["pwned"] == "undefined", state
    assert state["attrs"] == [], state["attrs"]
    assert state["raw"] == [], state["raw"]
    assert state["mathjax"] == 0, "TeX-looking names must not be typeset"
    if scripts is not None:
        assert state["scripts"] == scripts, state


@pytest.fixture
def browser_ready():
    from browser_helpers import ARTIFACTS, require_browser

    require_browser()
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def hover_text(page, graph: str, expect: str, point: dict | None = None) -> str:
    """The hover label once it shows ``expect`` (the previous label may linger for a moment). With
    ``point``, the mouse is moved off and back onto it between tries: on a busy machine plotly can miss
    a single mouse move."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    script = ("([sel, text]) => { const h = document.querySelector(sel + ' .hoverlayer .hovertext');"
              " return h && h.textContent.includes(text) }")
    for attempt in range(4 if point else 1):
        if point:
            page.mouse.move(point["x"] + 40, point["y"] + 40)
            page.mouse.move(point["x"], point["y"], steps=3)
        try:
            page.wait_for_function(script, arg=[graph, expect], timeout=5_000)
            break
        except PlaywrightTimeout:
            if attempt == (3 if point else 0):
                raise
    return page.locator(f"{graph} .hoverlayer .hovertext").first.text_content()


@pytest.mark.browser
def test_hostile_report_in_chromium(program, tmp_path, browser_ready):
    from browser_helpers import HOVERED_JS, SINGLE_CLICK_JS, TRACE_POINTS_JS, chromium, point_of

    plan = program.plans[0]
    bidi_tensor = next(t.index for t in plan.tensors if BIDI in (t.name or ""))
    report = write_report(program, tmp_path / "hostile.html")
    with chromium((1280, 1000)) as (page, messages):
        dialogs, requests = [], []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_())
        page.goto(report.as_uri())
        page.wait_for_function("() => document.querySelectorAll('.dx-graph .point').length > 0 &&"
                               " document.querySelectorAll('.dx-memory .point').length > 0", timeout=30_000)
        assert_clean(page)
        assert page.evaluate("() => window.dxReport.state.plan") == PLAN_NAMES[0]
        assert page.locator(".dx-plan option").all_inner_texts() == [visible(n) for n in PLAN_NAMES]
        summary = page.locator(".dx-summary").inner_text()
        assert IMG in summary and visible(BIDI) in summary
        # node labels drawn in the graph (frontend/panels/labels.js): literal text
        labels = page.evaluate("() => Array.from(document.querySelectorAll('.dx-graph .dx-labels text'))"
                               ".map(t => t.textContent)")
        assert any("img src=x" in t for t in labels) and any("\\u202e" in t for t in labels), labels

        op_points = page.evaluate(f"() => ({TRACE_POINTS_JS})([document.querySelector('.dx-graph'), {TRACE['ops']}])")
        target = point_of(op_points, DELEGATE_CALL)
        assert "#3" in hover_text(page, ".dx-graph", "Backend" + ALERT, target)
        page.mouse.click(target["x"], target["y"])
        page.wait_for_function("(id) => document.querySelector('.dx-details').textContent.includes(id)",
                               arg="Backend" + ALERT, timeout=5_000)
        details = page.locator(".dx-details").inner_text()
        for text in (visible(IMG + BIDI) + " = " + BREAKOUT + JS_URL, TEMPLATE + " = " + TEX, BIDI.encode().hex(),
                     f"{BREAKOUT}.py:7 in {IMG}", visible(ALERT + TEMPLATE + BIDI + FORGED), f"{JS_URL}:8 in {TEX}"):
            assert text in details, text
        trace = page.locator(".dx-details .dx-trace").inner_text()
        assert len(trace.strip().split("\n")) == 4, trace  # two frames, two context lines: nothing forged
        assert_clean(page)
        page.evaluate("() => window.scrollTo(0, 0)")  # a click may scroll its memory block into view (panels/rings.js)
        page.mouse.move(5, 5)  # the pointer leaves the clicked op, as a person's does, before the next hover
        page.wait_for_function("() => !document.querySelector('.dx-graph .hoverlayer .hovertext')", timeout=10_000)

        tensor_points = page.evaluate(f"() => ({TRACE_POINTS_JS})([document.querySelector('.dx-graph'), {TRACE['tensors']}])")
        point = point_of(tensor_points, bidi_tensor)
        hover = hover_text(page, ".dx-graph", visible(BIDI), point)
        assert not RAW.search(hover), hover
        name = plan.values[bidi_tensor].name
        # the click reuses plotly's last hover: it is on this tensor (not only its label, a move before); and it
        # is not the second half of a double click with the click on the op (plotly would reset the axes)
        page.wait_for_function(HOVERED_JS, arg=[".dx-graph", point["id"], point["trace"]], timeout=10_000)
        page.wait_for_function(SINGLE_CLICK_JS, arg=".dx-graph", timeout=10_000)
        page.mouse.click(point["x"], point["y"])
        page.wait_for_function("(n) => document.querySelector('.dx-details h4').textContent.includes(n)",
                               arg=visible(name), timeout=5_000)
        page.screenshot(path=str(browser_ready / "injection_report.png"), full_page=True)
        assert_clean(page)

        finding = page.locator(".dx-findings button", has_text=IMG).first
        label = finding.inner_text()
        assert IMG in label and visible(BIDI) in label
        finding.click()
        assert page.locator(".dx-findings button[aria-current=true]").count() == 1
        details = page.locator(".dx-details").inner_text()
        assert IMG in details and visible(BIDI) in details
        assert_clean(page)

        page.fill(".dx-search", "\\u202e")  # search matches what is shown
        assert page.evaluate("() => window.dxReport.state.values.length") > 0
        assert ALERT not in page.locator(".dx-details").inner_html()
        page.select_option(".dx-plan", index=1)
        assert page.evaluate("() => window.dxReport.state.plan") == PLAN_NAMES[1]
        assert BREAKOUT in page.locator(".dx-summary").inner_text()
        assert_clean(page)

        assert dialogs == []
        assert requests == [report.as_uri()], "nothing but the page itself was requested"
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


@pytest.mark.browser
def test_hostile_widget_in_jupyterlab(program, tmp_path, browser_ready):
    from browser_helpers import (
        TRACE_POINTS_JS,
        point_of,
        jupyter_lab,
        lab_browser,
        open_notebook,
        run_all,
        screenshot_on_failure,
        settled,
        write_notebook,
    )

    (tmp_path / "hostile.pte").write_bytes(write(program))
    notebook = tmp_path / "hostile.ipynb"
    write_notebook(notebook, ["import explorer\nex = explorer.Explorer('hostile.pte')\nex"])
    graph = ".dx-explorer .dx-graph"
    with jupyter_lab(tmp_path) as (base, token), lab_browser((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "injection_lab_failure.png", tmp_path / "jupyter.log"):
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        open_notebook(page, base, token, notebook)
        run_all(page)
        page.wait_for_function(
            "(sel) => { const gds = document.querySelectorAll(sel); return gds.length === 2 && Array.from(gds)"
            ".every(g => g._fullLayout && g.querySelectorAll('.point').length > 0) }",
            arg=".dx-explorer .js-plotly-plot", timeout=90_000)
        page.locator(".dx-explorer").first.scroll_into_view_if_needed()
        settled(page, graph)  # the notebook may re-lay out its cells after the scroll
        assert_clean(page, ".dx-explorer", scripts=None)
        points = page.evaluate(f"([sel, i]) => ({TRACE_POINTS_JS})([document.querySelector(sel), i])", [graph, TRACE["ops"]])
        target = point_of(points, DELEGATE_CALL)
        page.mouse.move(target["x"], target["y"])
        assert "#3" in hover_text(page, graph, "Backend" + ALERT)
        page.mouse.click(target["x"], target["y"])
        page.wait_for_function("(id) => { const d = document.querySelector('.dx-explorer .dx-details');"
                               " return d && d.textContent.includes(id) }", arg="Backend" + ALERT, timeout=15_000)
        details = page.locator(".dx-explorer .dx-details").inner_text()
        assert TEMPLATE + " = " + TEX in details and visible(ALERT + TEMPLATE + BIDI + FORGED) in details
        assert_clean(page, ".dx-explorer", scripts=None)
        page.screenshot(path=str(browser_ready / "injection_lab.png"))
        page.locator(".dx-explorer .dx-findings button", has_text=IMG).first.click()
        page.wait_for_function("() => document.querySelector('.dx-explorer .dx-findings button[aria-current=true]') !== null",
                               timeout=15_000)
        assert IMG in page.locator(".dx-explorer .dx-details").inner_text()
        assert_clean(page, ".dx-explorer", scripts=None)
        assert dialogs == []
        assert not [m for m in messages if m.startswith("pageerror")], messages


def test_widget_static_summary_escapes_every_name(program):
    """The widget's text/html summary (views/fragments/fallback.py), shown where no widget manager runs: hostile plan
    names and a hostile file name stay text; its only markup is its own plain tags, with no style and no script."""
    from explorer.views.fragments.fallback import program_fallback_html

    ex = Explorer(program)
    data, _ = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    for html in (data["text/html"], program_fallback_html(IMG + BREAKOUT + ".pte", ex._views, ex.findings)):
        frag = Fragment(html)
        assert {t for t, _ in frag.tags} <= {"div", "p", "b", "table", "tr", "th", "td", "ul", "li", "code"}, frag.tags
        assert all(set(attrs) <= {"class"} for _, attrs in frag.tags), frag.tags
        text = "".join(frag.texts)
        assert all(html_text(name) in html for name in PLAN_NAMES) and not RAW.search(text)
    assert "device-explorer show" in data["text/html"]
