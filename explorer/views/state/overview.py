"""Graph panel of every plan: which groups (:mod:`explorer.analysis.groups`) are open.

A plan of up to ``LOD_NODES`` graph nodes opens with every group open; a bigger one as an overview, opened a
whole level at a time while at most ``FIRST_VIEW`` nodes are drawn (:meth:`Overview.initial`, sent to the app as
``lod.expanded``). The browser app builds the figure (``explorer/frontend/lod/figures.js``), folds the groups, lays
them out and draws them (``explorer/frontend/lod/``): each collapsed group one marker (coloured by the device
most of its ops run on, sized by its op count, outlined red when it holds a value an error finding names),
expanded groups as their members inside a tinted box with a "▾" header that collapses them. Python keeps only
what the notebook API needs without a browser: the expansion state behind the widget's ``expanded`` trait
(:meth:`Overview.expand`, :meth:`Overview.collapse`, :meth:`Overview.reveal`, ``Explorer.expand`` & co.), kept
by the same rules as the app's ``lod/expand.js`` (``openGroup``/``dropGroup``/``revealGroups``): both are checked on
one table of cases, ``tests/fixtures/shared/fold_cases.json`` (``tests/test_fold_cases.py`` here,
``tests/js/fold.test.js`` in node), and ``tests/test_lod_js.py`` runs the two side by side on random clicks. ``TRACE`` / ``OVERVIEW_TRACE``: the graph's trace order, which ``figures.js`` builds
and every module reads by name: 0–3 edges by kind, 4 tensors, 5 ops, 6–7 selection, then 8 groups, 9 headers,
10 crossings (a dot on each edge that touches a group), then legend entries. At most ``VISIBLE_LIMIT`` nodes are
drawn: expanding more collapses the oldest other expansions first, and :attr:`Overview.note` says so.
"""

from __future__ import annotations

import numpy as np

from explorer.analysis.groups import Groups
from explorer.model.program import Plan
from explorer.units import count_text

__all__ = ["Overview", "OVERVIEW_TRACE", "TRACE", "LOD_NODES", "VISIBLE_LIMIT", "FIRST_VIEW", "visible_nodes"]

# trace positions of the graph figure (frontend/lod/figures.js builds it): 0-3 edges by kind, tensors, ops, selection
TRACE = {"edges": 0, "tensors": 4, "ops": 5, "hl_edges": 6, "hl_nodes": 7}
LOD_NODES = 2_000  # graph nodes (tensors + instructions) above which the graph is an overview
VISIBLE_LIMIT = 2_500  # nodes drawn at most at once
FIRST_VIEW = 48  # a big plan's first view opens groups while it draws at most this many nodes
FOCUS_LAYERS = 60  # after an expansion the view shows at most this many layers of it
OVERVIEW_TRACE = {**TRACE, "groups": 8, "headers": 9, "crossings": 10}
GROUP_SYMBOLS = {"delegate": "diamond-wide", "run": "square", "prefix": "hexagon", "prefixes": "hexagon",
                 "chunk": "hexagon", "root": "circle"}
_LABELS = 80  # raw nodes drawn with text labels at most
_GROUP_LABELS = 150


def visible_nodes(groups: Groups, expanded) -> int:
    """How many nodes the overview draws for ``expanded`` (root included): a collapsed group is one node,
    an expanded leaf its instructions and the tensors at home there."""
    total, stack = 0, [0]
    while stack:
        gid = stack.pop()
        kids = groups.children(gid)
        if not kids:
            total += groups.nodes(gid)
            continue
        for c in kids:
            if c in expanded:
                stack.append(c)
            else:
                total += 1
    return total


class Overview:
    """Expansion state of one plan's overview."""

    def __init__(self, plan: Plan, analysis, groups: Groups | None = None, modules=None, *,
                 limit: int = VISIBLE_LIMIT):
        self.plan, self.analysis = plan, analysis
        self.limit = limit  # nodes drawn at most; the app gets it as lod.limits.visible
        # modules: an ETRecord's module per instruction (analysis.context.module_scopes): groups named by the model
        self.groups = groups or Groups(plan, analysis.facts, analysis.edges, modules=modules)
        self.expanded: list[int] = self.initial()  # in the order they were expanded
        self.note = ""

    def initial(self) -> list[int]:
        """The groups open when the plan is first drawn: every group when the whole plan fits (``LOD_NODES``: a
        small plan is simply a plan with every group expanded); else the top of the tree opened level by level,
        a whole level at a time, while at most ``FIRST_VIEW`` nodes are drawn — so a big plan whose root splits into
        a handful of groups (``tok_embeddings``, ``layers``, ``norm``, ``output``) opens on its layers, not on
        four markers."""
        if self.groups.nodes(0) <= LOD_NODES:
            self.groups.build_all()
            return list(range(1, len(self.groups.groups)))
        opened: list[int] = []
        level = [c for c in self.groups.children(0) if self.groups.children(c)]
        while level:  # a whole level at a time, so the first view is even: no group open beside a closed twin
            if visible_nodes(self.groups, set(opened) | set(level)) > FIRST_VIEW:
                break
            opened += level
            level = [c for g in level for c in self.groups.children(g) if self.groups.children(c)]
        return opened

    @property
    def opens_folded(self) -> bool:
        """Whether the first view folds some group (the plan does not fit whole: :meth:`initial`)."""
        return self.groups.nodes(0) > LOD_NODES

    # -- state (the same rules as the app's lod/expand.js: open, collapse, reveal) ---------------------

    def expand(self, gid: int) -> None:
        """Open group ``gid`` (and the groups around it) in place."""
        g = self._group(gid)
        path = [p for p in self.groups.path(g.start) if self.groups.groups[p].depth <= g.depth]
        self.note = ""
        for p in path:
            if p not in self.expanded:
                self.expanded.append(p)
        closed = []
        while visible_nodes(self.groups, set(self.expanded)) > self.limit:
            victim = next((e for e in self.expanded if e not in path), None)
            if victim is None:
                break
            self._drop(victim)
            closed.append(self.groups.groups[victim].label)
        if closed:
            self.note = f"collapsed {', '.join(closed)} to draw at most {count_text(self.limit)} nodes"

    def collapse(self, gid: int) -> None:
        """Close group ``gid`` and every group inside it."""
        self._group(gid)
        self._drop(gid)
        self.note = ""

    def collapse_all(self) -> None:
        self.expanded, self.note = [], ""

    def reset(self) -> None:
        """Back to :meth:`initial` (a plan shown again opens as it first did)."""
        self.expanded, self.note = self.initial(), ""

    def folded_away(self, instruction: int) -> bool:
        """Whether ``instruction`` is drawn inside a collapsed group (not as itself)."""
        open_ = set(self.expanded)
        return any(g not in open_ for g in self.groups.path(instruction))

    def reveal(self, values=(), instructions=()) -> list[int]:
        """Expand what it takes to draw these values and instructions as themselves (a few at most);
        returns the groups it expanded."""
        anchors = [int(self.groups.home[v]) for v in values if 0 <= v < len(self.groups.home) and self.groups.home[v] >= 0]
        anchors += [i for i in instructions if 0 <= i < self.groups.m]
        opened = []
        for i in anchors[:4]:
            path = self.groups.path(i)
            if path and self.folded_away(i):
                self.expand(path[-1])
                opened.append(path[-1])
        return opened

    def _group(self, gid: int):
        if not isinstance(gid, (int, np.integer)) or not 0 < gid < len(self.groups.groups):
            raise IndexError(f"no group {gid!r} (groups are numbered 1..{len(self.groups.groups) - 1} as they are made)")
        return self.groups.groups[int(gid)]

    def _drop(self, gid: int) -> None:
        g = self.groups.groups[gid]
        self.expanded = [e for e in self.expanded
                         if not (g.start <= self.groups.groups[e].start and self.groups.groups[e].stop <= g.stop
                                 and self.groups.groups[e].depth >= g.depth)]
