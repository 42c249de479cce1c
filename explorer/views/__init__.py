"""Facts -> what the browser app draws: payload tables, a few HTML tables and the static report (no widgets here).

* :func:`plan_view` — a plan analysed and prepared once, shared by every panel.
* :func:`report_html` / :func:`write_report` — the offline HTML export.
* :mod:`.palette` — the one device palette; :mod:`.escape` — escaping for every sink.
"""

from .palette import device_color, device_style
from .prepare import PlanView, plan_view, sample_path
from .report import report_html, write_report
from .selection import Selection

__all__ = ["plan_view", "PlanView", "report_html", "write_report", "device_style", "device_color", "sample_path",
           "Selection"]
