"""From ``to_executorch()`` to a drawn, clickable explorer in JupyterLab, without writing a file.

The notebook exports a small model with executorch in its kernel and hands the ``ExecutorchProgramManager``
(its buffer, and its ETRecord object) straight to ``explorer.Explorer``; the page must draw both panels, and a
click must reach Python (``ex.selected``).
"""

from __future__ import annotations

import pytest
from browser_helpers import (ARTIFACTS, jupyter_lab, lab_browser, open_notebook, require_browser, run_all,
                             screenshot_on_failure, settled, write_notebook)

pytestmark = [pytest.mark.browser, pytest.mark.interop]

EXPORT = """import warnings
warnings.filterwarnings("ignore")
import torch, explorer
from executorch.exir import to_edge

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2

manager = to_edge(torch.export.export(Net().eval(), (torch.randn(2, 4),)), generate_etrecord=True).to_executorch()
ex = explorer.Explorer(manager, etrecord=manager)
ex"""

DRAWN = """(sel) => { const gds = document.querySelectorAll(sel);
  return gds.length === 2 && Array.from(gds).every(g => g._fullLayout && g.querySelectorAll('.point').length > 0) }"""


def test_a_manager_is_drawn_and_clicked_without_a_file(tmp_path):
    require_browser()
    notebook = tmp_path / "live.ipynb"
    write_notebook(notebook, [EXPORT, "print('source:', ex.program.source, 'module:', "
                                      "ex.program.etrecord.plan('forward').at(0).module_path, 'selected:', ex.selected)"])
    with jupyter_lab(tmp_path) as (base, token), lab_browser((1280, 1000)) as (page, messages), \
            screenshot_on_failure(page, "live_manager_failure.png", tmp_path / "jupyter.log"):
        open_notebook(page, base, token, notebook)
        run_all(page)
        page.wait_for_function(DRAWN, arg=".dx-explorer .js-plotly-plot", timeout=180_000)
        graph = page.locator(".dx-explorer .dx-graph")
        graph.scroll_into_view_if_needed()
        settled(page, ".dx-explorer .dx-graph")  # the notebook may re-lay out its cells after the scroll
        point = graph.locator(".scatterlayer .trace path.point").first
        box = point.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function("(sel) => { const d = document.querySelector(sel); return d && d.textContent.length > 20 }",
                               arg=".dx-explorer .dx-details", timeout=10_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "live_manager_widget.png"))
        cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "(sel) => Array.from(document.querySelectorAll(sel)).some(o => /source: None module: fc selected: "
            "Selection\\(plan='forward', (values=\\(\\d|instructions=\\(\\d|.*instructions=\\(\\d)/.test(o.textContent))",
            arg=".jp-Notebook .jp-Cell .jp-OutputArea-output", timeout=30_000)
        errors = [m for m in messages if m.startswith("pageerror")]
        assert not errors, errors
