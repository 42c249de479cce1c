"""The browser app: real ES modules and one stylesheet, shipped as package data.

The notebook widgets (:mod:`explorer.widget`) hand :func:`bundle` to anywidget as ``_esm``; the HTML
reports (:mod:`explorer.views.report`) inline the same bundle with a page entry. :func:`bundle` joins
the modules in dependency order into one module: it drops the ``import`` lines between our own files
and the ``export`` keywords except the entry's. There is no build step and no npm at run time.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

__all__ = ["bundle", "css", "plotly_js", "PLOTLY_VERSION", "source"]

# every module, dependencies first; the entries (index.js, page.js, diff_page.js ...) come last
MODULES = ("util.js", "search.js", "lod_base.js", "lod_graph.js", "lod_panels.js", "lod.js", "model.js", "app.js")
ENTRIES = {"widget": "index.js", "page": "page.js"}

_IMPORT = re.compile(r'^import \{[^}]*\} from "\./[a-z_]+\.js";\n', re.M)
_EXPORT = re.compile(r"^export (?=(async )?function |const |class )", re.M)


def source(name: str) -> str:
    """The text of one file of the app."""
    return (resources.files(__name__) / name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def bundle(entry: str = "widget") -> str:
    """The app as one ES module: every module, then the ``entry`` (``"widget"``: exports ``render`` for
    anywidget; ``"page"``: exports ``startPage`` for a report)."""
    parts = []
    for name in (*MODULES, ENTRIES[entry]):
        text = _IMPORT.sub("", source(name))
        if name != ENTRIES[entry]:
            text = _EXPORT.sub("", text)
        parts.append(f"// ---- {name}\n{text}")
    return "\n".join(parts)


@lru_cache(maxsize=None)
def css() -> str:
    return source("style.css")


@lru_cache(maxsize=None)
def plotly_js() -> str:
    """plotly.js, vendored (see ``vendor/``): the only copy the widget and the reports load."""
    return source("vendor/plotly.min.js")


PLOTLY_VERSION = "vendor"
