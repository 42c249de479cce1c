"""The browser app: real ES modules and one stylesheet, shipped as package data.

The notebook widgets (:mod:`explorer.widget`) hand :func:`bundle` to anywidget as ``_esm``; the HTML
reports (:mod:`explorer.views.html.report`) inline the same bundle with a page entry. :func:`bundle` joins
the modules in dependency order into one module, each in its own function scope: an ``import {a, b}
from "./m.js"`` becomes a read of module ``m``'s exports. There is no build step and no npm at run
time; node and the browser's devtools load the same files unbundled.

A module can also ship another module to a Web Worker made from a Blob URL (``layout_worker.js``):
``/* bundler: layout.js */ null`` becomes ``{source, scope}``, the text of that module and its imports as the
bundle holds them (read from their functions at run time, so the bundle holds the code once) and the name of
its scope: the worker runs the same code as the page, not a copy kept beside it.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

__all__ = ["bundle", "css", "plotly_js", "PLOTLY_VERSION", "source", "modules", "MODULES", "strip_comments"]

ENTRIES = {"widget": ("index.js", "export default {{render: {m}.render}};"),
           "page": ("page.js", "{m}.startPage();")}

_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([a-z_]+)\.js";$', re.M)
_EXPORT = re.compile(r"^export (?:async function|function|const|class) (\w+)", re.M)
_EXPORT_DEFAULT = re.compile(r"^export default .*$", re.M)
_SHIP = re.compile(r"/\* bundler: ([a-z_]+\.js) \*/ null")
_COMMENT_LINE = re.compile(r"^[ \t]*//[^\n]*\n", re.M)  # a line holding only a comment (no module has one inside a string)
# JSDoc (``/** ... */``): the types tsc checks (tests/test_tsc.py), a quarter of the modules' text, nothing at run
# time. Whole lines of it go, and what is inline (``/** @type {T} */ (x)``) becomes one space. No module has
# "/**" inside a string or a regex: tests/test_bundle_strip.py compares every module's tokens before and after.
_JSDOC_LINES = re.compile(r"^[ \t]*/\*\*(?:[^*]|\*(?!/))*\*/[ \t]*\n", re.M)
_JSDOC = re.compile(r"/\*\*(?:[^*]|\*(?!/))*\*/")


def _all_modules() -> tuple[str, ...]:
    out: list[str] = []
    for entry, _tail in ENTRIES.values():
        out += [m for m in modules(entry) if m not in out and m != entry]
    return tuple(out)


def source(name: str) -> str:
    """The text of one file of the app."""
    return (resources.files(__name__) / name).read_text(encoding="utf-8")


def modules(entry: str) -> tuple[str, ...]:
    """The modules ``entry`` (a file name) needs, dependencies first, ending with it: its ``import`` lines
    followed depth-first. No list to keep by hand: a new module is bundled once something imports it."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise ValueError(f"import cycle in the app's modules: {' -> '.join(path + (name,))}")
        for _names, dep in _IMPORT.findall(source(name)):
            visit(dep + ".js", path + (name,))
        order.append(name)

    visit(entry, ())
    return tuple(order)


def _scope(name: str) -> str:
    return "__dx_" + name.removesuffix(".js")


def _shipped(names) -> set[str]:
    """The modules some module of ``names`` ships to a worker (``/* bundler: m.js */`` markers), with their imports."""
    out: set[str] = set()
    for name in names:
        for target in _SHIP.findall(source(name)):
            out.update(modules(target))
    return out


def _wrap(name: str, shipped: bool = False) -> str:
    """One module as a scope: its imports read from the modules before it, its exports returned. A module shipped
    to a worker is a named function called once (``function __dx_src_m() {...}``), so that the page can hand
    the worker that function's own text (``Function.prototype.toString`` gives a function's source exactly):
    the worker runs the bundle's code, and the bundle holds it once."""
    text = source(name)
    exports = _EXPORT.findall(text)
    text = _IMPORT.sub(lambda m: f"const {{{m.group(1)}}} = {_scope(m.group(2))};", text)
    text = _EXPORT_DEFAULT.sub("", text)
    text = re.sub(r"^export (?=async function|function|const|class)", "", text, flags=re.M)
    text = _SHIP.sub(lambda m: _ship(m.group(1)), text)
    text = strip_comments(text)  # the files keep their explanations and types; what ships needs neither
    body = f"{{\n{text}\nreturn {{{', '.join(exports)}}};\n}}"
    if shipped:
        return f"// ---- {name}\nfunction {_source_fn(name)}() {body}\nconst {_scope(name)} = {_source_fn(name)}();\n"
    return f"// ---- {name}\nconst {_scope(name)} = (() => {body})();\n"


def strip_comments(text: str) -> str:
    """A module's text without its comment-only lines and its JSDoc: what the bundle ships of it."""
    return _COMMENT_LINE.sub("", _JSDOC.sub(" ", _JSDOC_LINES.sub("", text)))


def _source_fn(name: str) -> str:
    return "__dx_src_" + name.removesuffix(".js")


def _ship(name: str) -> str:
    """What ``/* bundler: name */ null`` becomes: a JS expression ``{source, scope}``, the text a worker runs
    (``name`` and its imports, each ``const __dx_m = (function __dx_src_m() {...})();`` from its function's own
    text, read when the page runs) and the scope holding ``name``'s exports."""
    parts = " + ".join(f'"const {_scope(m)} = (" + {_source_fn(m)} + ")();\\n"' for m in modules(name))
    return f'{{source: {parts}, scope: {json.dumps(_scope(name))}}}'


@lru_cache(maxsize=None)
def bundle(entry: str = "widget") -> str:
    """The app as one ES module: every module in its own scope, then the ``entry`` (``"widget"``: the
    default export anywidget calls ``render`` on; ``"page"``: starts a report page)."""
    name, tail = ENTRIES[entry]
    shipped = _shipped(modules(name))
    return "".join(_wrap(m, m in shipped) for m in modules(name)) + tail.format(m=_scope(name)) + "\n"


@lru_cache(maxsize=None)
def css() -> str:
    return source("style.css") + source("profile.css")


@lru_cache(maxsize=None)
def plotly_js() -> str:
    """plotly.js, vendored (see ``vendor/``): the only copy the widget and the reports load."""
    return source("vendor/plotly.min.js")


PLOTLY_VERSION = "vendor"


# every module either entry bundles, dependencies first (the entries themselves left out)
MODULES = _all_modules()
