"""What the Explorer and the Diff widgets share: the browser app as their anywidget front end, the packed
payload trait, and plotly.js handed over once per page.

The front end (``explorer/frontend/index.js``) asks for plotly.js with a custom message only when the
page has none yet; the answer carries the vendored file as one binary buffer. So a notebook with ten
widgets loads plotly.js once, and no widget's state (which a saved notebook keeps) holds a copy.
"""

from __future__ import annotations

import anywidget
import traitlets
from IPython.display import display

from explorer import frontend

__all__ = ["AppWidget"]

# the widget view's own text/html in a notebook (AppWidget._ipython_display_): nothing to see, the summary follows
VIEW_HTML = "<!-- ExecuTorch device explorer: the static summary is the next output -->"


class AppWidget(anywidget.AnyWidget):
    """An anywidget running the app (one program or a diff, as its payload says)."""

    _esm = frontend.bundle("widget")
    _css = frontend.css()
    _payload = traitlets.Bytes(help="the app's data: gzip-compressed JSON and binary integer columns (explorer.views.payload.embed)").tag(sync=True)
    height = traitlets.Int(0, help="the output's height in px: the app scrolls in a box of this height (0: as tall as it "
                                   "is, or the host's cap, e.g. marimo's editor's ~610 px)").tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.on_msg(self._on_message)

    def _repr_mimebundle_(self, **kwargs):
        """The widget view, and beside it a static ``text/html`` summary that shows where no widget manager draws
        the view (a page nbconvert wrote from a notebook saved without widget state, a notebook viewer): hosts that
        run widgets prefer the view and never show it (views/fragments/fallback.py)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        if data is not None:
            data = {**data, "text/html": self._fallback_html()}
        return data, metadata

    def _ipython_display_(self, **kwargs):
        """In a notebook: two outputs, the widget view, then the static summary on its own. nbconvert's HTML of a
        notebook whose widget state was saved writes an output's widget view alone, dropping its ``text/html``, so a
        page opened where the widget manager cannot load (offline) showed nothing; the second output shows there. A
        live widget's stylesheet (``style.css``, which anywidget puts in the page's head) hides every summary; a widget
        that finds no kernel shows them again. The view's own bundle keeps an empty ``text/html`` (not ipywidgets'
        ``text/plain`` repr), so a page without widgets shows the summary once."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        if data is None:  # no view (ipywidgets: the widget has no view name)
            return
        display({**data, "text/html": VIEW_HTML}, metadata=metadata, raw=True)
        display({"text/html": self._fallback_html()}, raw=True)

    def _fallback_html(self) -> str:
        """The static summary of what this widget draws (HTML, every name escaped)."""
        raise NotImplementedError

    def _on_message(self, _widget, content, _buffers) -> None:
        if isinstance(content, dict) and content.get("type") == "plotly":
            self.send({"type": "plotly"}, [frontend.plotly_js().encode("utf-8")])
        elif isinstance(content, dict) and content.get("type") == "pair_text" and hasattr(self, "_on_pair_text"):
            self._on_pair_text(content)  # a what-if's changed pair, written on request (widget/whatif.py)
        elif isinstance(content, dict) and content.get("type") == "base" and hasattr(self, "_on_base"):
            self._on_base(content)  # the app payload a what-if refers to (widget/whatif.py)
