"""The one page shell every offline report shares: plotly.js, the app's stylesheet and modules, the data.

The app's modules are :func:`explorer.frontend.bundle`'s (the same code the widget runs); the data is packed by
:func:`explorer.views.payload.embed.data_element` (gzip, base64), so no string from a file can end the element
that carries it. No CDN, no require.js, no widget manager.
"""

from __future__ import annotations

from explorer import frontend
from explorer.views.escape import html_text
from explorer.views.payload.embed import data_element

__all__ = ["page_html", "PAGE_CSS"]

# the page around the app: its width and its colours, light or dark as the reader's system asks (frontend/page.css)
PAGE_CSS = frontend.page_css()


def page_html(title: str, payload: dict, entry: str = "page", extra_css: str = "") -> str:
    """A self-contained page running the app's ``entry`` over ``payload``."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html_text(title)} · ExecuTorch device explorer</title>
<style>{frontend.css()}{PAGE_CSS}{extra_css}</style>
<script>{frontend.plotly_js()}</script>
</head><body><div class="dx-page">
<div id="dx-app" class="dx-root"><noscript>This report draws with JavaScript; please enable it.</noscript></div>
<p class="dx-root dx-muted">Made by executorch-device-explorer from {html_text(title)}; works offline.</p>
</div>
{data_element(payload)}
<script type="module">{frontend.bundle(entry)}</script>
</body></html>
"""
