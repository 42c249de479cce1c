"""Facts -> pictures: plotly figures, HTML fragments and the static report (no widgets here).

* :func:`build_graph_figure` / :func:`build_memory_figure` — the two panels as ``go.Figure``.
* :func:`plan_view` — a plan analysed and placed once, shared by every panel.
* :func:`report_html` / :func:`write_report` — the offline HTML export.
* :mod:`.palette` — the one device palette; :mod:`.escape` — escaping for every sink.
"""

from .graph import build_graph_figure, graph_geometry
from .memory import build_memory_figure
from .palette import device_color, device_style
from .prepare import PlanView, plan_view, sample_path
from .report import report_html, write_report
from .selection import Selection

__all__ = ["build_graph_figure", "build_memory_figure", "graph_geometry", "plan_view", "PlanView",
           "report_html", "write_report", "device_style", "device_color", "sample_path", "Selection"]
