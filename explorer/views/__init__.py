"""Facts -> what the browser app draws: payload tables, a few HTML tables and the static report (no widgets here).

* :func:`plan_view` — a plan analysed and prepared once, shared by every panel.
* :func:`report_html` / :func:`write_report` — the offline HTML export.
* :mod:`.palette` — the one device palette; :mod:`.escape` — escaping for every sink.
"""

from explorer.views.palette import device_color, device_style
from explorer.views.state.plan import PlanView, plan_view, sample_path
from explorer.views.html.report import report_html, write_report
from explorer.views.state.selection import Selection

__all__ = ["plan_view", "PlanView", "report_html", "write_report", "device_style", "device_color", "sample_path",
           "Selection"]
