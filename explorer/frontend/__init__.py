"""The browser app: real ES modules and one stylesheet, shipped as package data.

The notebook widgets (:mod:`explorer.widget`) hand :func:`bundle` to anywidget as ``_esm``; the HTML
reports (:mod:`explorer.views.html.report`) inline the same bundle with a page entry. :func:`bundle` joins
the modules in dependency order into one module, each in its own function scope named after its path
(``lod/graph.js`` -> ``__dx_lod_graph``): an ``import {a, b} from "../util/format.js"`` (relative, its names on one
line or several) becomes a read of that module's exports. There is no build step and no npm at run time; node and
the browser's devtools load the same files unbundled. The modules live in folders by what they are
(docs/frontend.md, "The modules"); the entries ``index.js`` (widget) and ``page.js`` (report) sit at the top.

A module can also ship another module to a Web Worker made from a Blob URL (``layout/worker.js``):
``/* bundler: ./layout.js */ null`` (a path relative to the module, as an import's) becomes ``{source, scope}``,
the text of that module and its imports as the bundle holds them (read from their functions at run time, so the
bundle holds the code once) and the name of its scope: the worker runs the same code as the page, not a copy kept
beside it.
"""

from __future__ import annotations

import json
import posixpath
import re
from functools import lru_cache
from importlib import resources

__all__ = ["bundle", "css", "page_css", "plotly_js", "PLOTLY_VERSION", "source", "modules", "imports", "resolve", "MODULES",
           "strip_comments"]

ENTRIES = {"widget": ("index.js", "export default {{render: {m}.render}};"),
           "page": ("page.js", "{m}.startPage();")}

# ``import {a, b as c} from "./x.js";`` or ``"../util/format.js"``, its name list on one line or several (a module's
# imports are its first statements: ``^import`` cannot meet one inside a string or a comment).
_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"(\.{1,2}/[^"]+\.js)";[ \t]*$', re.M)
_IMPORT_OTHER = re.compile(r"^import\b(?!\s*\{[^}]*\}\s*from\s*\"\.{1,2}/)", re.M)  # what the bundler cannot join
_EXPORT = re.compile(r"^export (?:async function|function|const|class) (\w+)", re.M)
_EXPORT_DEFAULT = re.compile(r"^export default .*$", re.M)
_SHIP = re.compile(r"/\* bundler: (\.{1,2}/[^ *]+\.js) \*/ null")
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
    """The text of one file of the app, by its path under ``explorer/frontend`` (``"lod/graph.js"``)."""
    return resources.files(__name__).joinpath(*name.split("/")).read_text(encoding="utf-8")


def resolve(importer: str, spec: str) -> str:
    """The module a relative import names, as a path under ``explorer/frontend``: ``resolve("lod/graph.js",
    "../util/format.js") == "util/format.js"``. A path that leaves the app is an error."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    if path.startswith("../") or path == ".." or posixpath.isabs(path):
        raise ValueError(f"{importer}: {spec!r} is outside the app's modules")
    return path


def imports(name: str) -> list[tuple[str, str]]:
    """``name``'s imports in order: (the names it binds, the module's path under ``explorer/frontend``)."""
    text = source(name)
    other = _IMPORT_OTHER.search(text)
    if other:
        line = text[other.start():text.find("\n", other.start())]
        raise ValueError(f"{name}: the bundler joins only `import {{...}} from \"./relative/path.js\";`, not {line!r}")
    return [(names, resolve(name, spec)) for names, spec in _IMPORT.findall(text)]


def modules(entry: str) -> tuple[str, ...]:
    """The modules ``entry`` (a path under ``explorer/frontend``) needs, dependencies first, ending with it: its
    ``import`` lines followed depth-first. No list to keep by hand: a new module is bundled once something imports it."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise ValueError(f"import cycle in the app's modules: {' -> '.join(path + (name,))}")
        for _names, dep in imports(name):
            visit(dep, path + (name,))
        order.append(name)

    visit(entry, ())
    return tuple(order)


def _ident(name: str) -> str:
    """``"lod/graph.js"`` -> ``"lod_graph"``: the module's path as one identifier. Unique: a clash (``a_b.js`` beside
    ``a/b.js``) is refused by :func:`_check_unique`."""
    return re.sub(r"[^A-Za-z0-9_$]", "_", name.removesuffix(".js"))


def _scope(name: str) -> str:
    return "__dx_" + _ident(name)


def _check_unique(names) -> None:
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(_scope(name), name)
        if other != name:
            raise ValueError(f"{other} and {name} would share the bundle scope {_scope(name)}: rename one")


def _shipped(names) -> set[str]:
    """The modules some module of ``names`` ships to a worker (``/* bundler: ./m.js */`` markers), with their imports."""
    out: set[str] = set()
    for name in names:
        for target in _SHIP.findall(source(name)):
            out.update(modules(resolve(name, target)))
    return out


def _names(listed: str) -> str:
    """An import's name list as a destructuring pattern: ``a, b as c`` -> ``a, b: c``."""
    parts = [p.strip() for p in listed.replace("\n", " ").split(",") if p.strip()]
    return ", ".join(re.sub(r"^(\w+)\s+as\s+(\w+)$", r"\1: \2", p) for p in parts)


def _wrap(name: str, shipped: bool = False) -> str:
    """One module as a scope: its imports read from the modules before it, its exports returned. A module shipped
    to a worker is a named function called once (``function __dx_src_m() {...}``), so that the page can hand
    the worker that function's own text (``Function.prototype.toString`` gives a function's source exactly):
    the worker runs the bundle's code, and the bundle holds it once."""
    text = source(name)
    exports = _EXPORT.findall(text)
    text = _IMPORT.sub(lambda m: f"const {{{_names(m.group(1))}}} = {_scope(resolve(name, m.group(2)))};", text)
    text = _EXPORT_DEFAULT.sub("", text)
    text = re.sub(r"^export (?=async function|function|const|class)", "", text, flags=re.M)
    text = _SHIP.sub(lambda m: _ship(resolve(name, m.group(1))), text)
    text = strip_comments(text)  # the files keep their explanations and types; what ships needs neither
    body = f"{{\n{text}\nreturn {{{', '.join(exports)}}};\n}}"
    if shipped:
        return f"// ---- {name}\nfunction {_source_fn(name)}() {body}\nconst {_scope(name)} = {_source_fn(name)}();\n"
    return f"// ---- {name}\nconst {_scope(name)} = (() => {body})();\n"


def strip_comments(text: str) -> str:
    """A module's text without its comment-only lines and its JSDoc: what the bundle ships of it."""
    return _COMMENT_LINE.sub("", _JSDOC.sub(" ", _JSDOC_LINES.sub("", text)))


def _source_fn(name: str) -> str:
    return "__dx_src_" + _ident(name)


def _ship(name: str) -> str:
    """What ``/* bundler: ./name.js */ null`` becomes: a JS expression ``{source, scope}``, the text a worker runs
    (``name`` and its imports, each ``const __dx_m = (function __dx_src_m() {...})();`` from its function's own
    text, read when the page runs) and the scope holding ``name``'s exports."""
    parts = " + ".join(f'"const {_scope(m)} = (" + {_source_fn(m)} + ")();\\n"' for m in modules(name))
    return f'{{source: {parts}, scope: {json.dumps(_scope(name))}}}'


@lru_cache(maxsize=None)
def bundle(entry: str = "widget") -> str:
    """The app as one ES module: every module in its own scope, then the ``entry`` (``"widget"``: the
    default export anywidget calls ``render`` on; ``"page"``: starts a report page)."""
    name, tail = ENTRIES[entry]
    _check_unique(modules(name))
    shipped = _shipped(modules(name))
    return "".join(_wrap(m, m in shipped) for m in modules(name)) + tail.format(m=_scope(name)) + "\n"


@lru_cache(maxsize=None)
def css() -> str:
    return source("style.css") + source("profile/profile.css")


def page_css() -> str:
    """The report page's own stylesheet (``page.css``: the page's width and colours; the widget lives in its host's)."""
    return source("page.css")


@lru_cache(maxsize=None)
def plotly_js() -> str:
    """plotly.js, vendored (see ``vendor/``): the only copy the widget and the reports load."""
    return source("vendor/plotly.min.js")


PLOTLY_VERSION = "vendor"


# every module either entry bundles, dependencies first (the entries themselves left out)
MODULES = _all_modules()
