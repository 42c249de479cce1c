"""tests/browser_helpers.py ``chromium``: report tests share one context for speed, never state. What one test's page
set up (an init script, a route, a listener, emulated media) is gone for the next; a test that visited a server or
failed leaves the next one a new context."""

from __future__ import annotations

import contextlib
import http.server
import threading
from pathlib import Path

import pytest

from browser_helpers import _REPORT, chromium, require_browser

pytestmark = pytest.mark.browser

PAGE = "<!doctype html><meta charset=utf-8><title>t</title><p>page</p>"
STATE_JS = "() => [window.leaked === undefined, matchMedia('(prefers-color-scheme: dark)').matches, innerWidth]"


@pytest.fixture(scope="module")
def page_file(tmp_path_factory) -> Path:
    require_browser()
    path = tmp_path_factory.mktemp("isolation") / "page.html"
    path.write_text(PAGE)
    return path


def test_a_page_leaves_nothing_to_the_next(page_file):
    with chromium((900, 700)) as (page, _):
        page.add_init_script("window.leaked = 1")
        page.route("**/*", lambda r: r.abort())  # would fail every later load in this page
        page.emulate_media(color_scheme="dark")
        first = page
        context = _REPORT["context"]
    assert first.is_closed()
    with chromium((1000, 800)) as (page, messages):
        assert _REPORT["context"] is context, "the context is kept"
        page.goto(page_file.as_uri())
        assert page.evaluate(STATE_JS) == [True, False, 1000]
        assert [p for p in context.pages if p is not _REPORT["keeper"]] == [page]
        assert messages == []


def test_a_popup_is_closed_with_its_test(page_file):
    with chromium() as (page, _):
        page.goto(page_file.as_uri())
        with page.expect_popup() as popup:
            page.evaluate("(u) => { window.open(u); }", page_file.as_uri())
        popup.value.wait_for_load_state()
        context = _REPORT["context"]
    assert [p for p in context.pages] == [_REPORT["keeper"]]


def test_a_server_page_or_a_failure_drops_the_context(page_file):
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(page_file.parent))  # noqa: E731
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with chromium() as (page, _):
                before = _REPORT["context"]
                page.goto(f"http://127.0.0.1:{server.server_address[1]}/page.html")
                page.evaluate("() => { document.cookie = 'server=1'; localStorage.setItem('server', '1'); }")
        finally:
            server.shutdown()
    assert not _REPORT, "dropped after a server's page"
    with chromium() as (page, _):
        assert _REPORT["context"] is not before and _REPORT["context"].cookies() == []
        kept = _REPORT["context"]
    with contextlib.suppress(AssertionError), chromium() as (page, _):
        raise AssertionError("a failing test")
    assert not _REPORT or _REPORT["context"] is not kept, "dropped after a failure"
