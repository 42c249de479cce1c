"""The widget's what-if: move ops, delegates or groups to another device and see what executorch would export.

Mixed into :class:`explorer.Explorer`. Synced traits:

* ``moves`` — a list of ``"SELECTOR=DEVICE"`` strings, the CLI's spelling (``"delegate:0=cuda:0"``, ``"@5=cpu"``,
  ``"group:layers.1=cuda:1"``; docs/whatif.md lists the selectors), applied in order. Strings, not pairs, so the
  trait reads the same in Python, in the browser and on the command line; setting it from Python also takes
  ``(selector, device)`` pairs, stored as strings. "Move to ▸" in the page's details appends to it.
* ``skip_h2d_inputs``, ``skip_d2h_outputs``, ``alloc_graph_input``, ``alloc_graph_output`` (None: as the original
  shows it) and ``constants`` (``"owned"`` / ``"arguments"``) — what_if's flags, the bar's toggles; a change of one
  predicts again as a change of ``moves`` does (a flag alone changes a plan too).
* ``whatif_error`` — why the last change of ``moves`` (or of a flag) was not applied ("" when it was): a move that cannot be
  honoured (:class:`~explorer.whatif.predict.MoveError`) or a placement executorch would refuse to export
  (:class:`~explorer.whatif.predict.Refusal`, its reason). The page shows it; ``moves`` stays as it was.

On every change of ``moves`` the kernel runs :func:`explorer.what_if` on the original program and sends the app a
new payload: the diff of original vs predicted (the app's diff mode, ``explorer/frontend/diff/diff.js``) with the
moves, or the original program again when ``moves`` is empty. :attr:`predicted` is the predicted program.
A move set from the page that fails is undone and reported in ``whatif_error``; one set from Python raises.
"""

from __future__ import annotations

import functools
import gc

import traitlets

from explorer.whatif.predict import CONSTANTS, MoveError, Refusal, parse_moves, what_if
from explorer.views.payload.diff import pair_text
from explorer.views.payload.embed import pack
from explorer.views.payload.whatif import whatif_payload

__all__ = ["WhatIfWidget", "add_move"]

_CACHE = 8  # predictions kept (undo and redo of recent moves cost nothing)
# what_if's keyword arguments the widget has a trait of (the bar's toggles)
FLAGS = ("skip_h2d_inputs", "skip_d2h_outputs", "alloc_graph_input", "alloc_graph_output", "constants")


def _gc_paused(method):
    """``method`` run with Python's cyclic garbage collector off (as it was, after): a prediction makes a few hundred
    thousand small objects that live on (the predicted program, both sides' analyses, the diff), so the collector
    started ~270 times during a 3k-instruction move, twice over everything the kernel holds (a notebook's torch and
    executorch included): a quarter to a third of the move's time here, more in a bigger kernel. The payload is sent
    while it is still off; what the move left for it is collected at its next run."""
    @functools.wraps(method)
    def paused(*args, **kwargs):
        was = gc.isenabled()
        gc.disable()
        try:
            return method(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return paused


def add_move(moves: list[str], move: str) -> list[str]:
    """``moves`` with ``move`` appended; an earlier move of the same selector is dropped (``what_if`` applies
    moves in order, so the later one would win anyway; the list stays what it means). The page's
    ``addMove`` (moves.js) does the same."""
    selector = move.rpartition("=")[0].strip()
    return [m for m in moves if m.rpartition("=")[0].strip() != selector] + [move]


def _as_text(item) -> str:
    if isinstance(item, str):
        return item.strip()
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return f"{str(item[0]).strip()}={str(item[1]).strip()}"
    raise traitlets.TraitError(f"a move is 'SELECTOR=DEVICE' or a (selector, device) pair, not {item!r}")


def reason(exc: Exception) -> str:
    """The text the page shows for a move that failed (no traceback)."""
    if isinstance(exc, Refusal):
        return f"executorch 1.5.1 would refuse to export this placement: {exc}"
    if isinstance(exc, KeyError):
        return str(exc.args[0]) if exc.args else str(exc)
    return str(exc)


class WhatIfWidget(traitlets.HasTraits):
    """What-if API of the Explorer widget (module docstring)."""
    moves = traitlets.List(help="'SELECTOR=DEVICE' moves applied to the program, in order (docs/whatif.md)").tag(sync=True)
    whatif_error = traitlets.Unicode("", help="why the last change of moves was not applied ('' when it was)").tag(sync=True)
    # what_if's flags, the CLI's --skip-h2d-inputs / --skip-d2h-outputs / --[no-]alloc-graph-input / -output /
    # --constants (None: as the original shows it); the bar's toggles set them from the page
    skip_h2d_inputs = traitlets.Bool(None, allow_none=True, help="what_if(skip_h2d_inputs=); None: as the original").tag(sync=True)
    skip_d2h_outputs = traitlets.Bool(None, allow_none=True, help="what_if(skip_d2h_outputs=); None: as the original").tag(sync=True)
    alloc_graph_input = traitlets.Bool(None, allow_none=True, help="what_if(alloc_graph_input=); None: as the original").tag(sync=True)
    alloc_graph_output = traitlets.Bool(None, allow_none=True, help="what_if(alloc_graph_output=); None: as the original").tag(sync=True)
    constants = traitlets.Enum(CONSTANTS, "owned", help="what_if(constants=): 'owned' or 'arguments'").tag(sync=True)
    # the diff view's selection ({plan, side, values: {a, b}, instructions: {a, b}}): kept apart from `selected`,
    # which is a selection of the original program
    _whatif_selected = traitlets.Dict().tag(sync=True)

    _reverting = False
    _whatif_views: dict = {}  # plan -> DiffPlanView of the what-if shown (the page asks for its pairs' texts)
    predicted = None  # the Program explorer.what_if predicted for `moves` and the flags (None: nothing moved or flagged)

    def _init_whatif(self, moves, constants: str = "owned") -> None:
        """Called by the widget once its original payload is set; ``moves``: the constructor's; ``constants``:
        what_if's convention for the constants of moved-kernel regions (``"owned"`` or ``"arguments"``)."""
        if constants not in CONSTANTS:
            raise ValueError(f"constants={constants!r}: expected one of {', '.join(CONSTANTS)}")
        self._original_payload = self._payload
        self._predictions: dict[tuple, tuple] = {}
        self.constants = constants  # (before observing: nothing to predict yet)
        self.observe(self._on_moves, names=["moves", *FLAGS])
        if moves:
            self.moves = list(moves)

    @property
    def whatif_constants(self) -> str:
        """what_if's ``constants=`` (the ``constants`` trait)."""
        return self.constants

    def _flags(self, change=None) -> dict:
        """what_if's keyword arguments as the traits hold them (``change``: one of them changing, its new value)."""
        flags = {name: getattr(self, name) for name in FLAGS}
        if change is not None and change["name"] in flags:
            flags[change["name"]] = change["new"]
        return flags

    def _changes_something(self, moves, flags: dict) -> bool:
        return bool(moves) or any(flags[n] is not None for n in FLAGS if n != "constants")

    # -- public API ---------------------------------------------------------------------------------

    @_gc_paused
    def move(self, selector: str, device) -> None:
        """Move what ``selector`` names to ``device`` (``"cuda:0"``, ``"cpu"``, a Device): ``moves`` gains
        ``"SELECTOR=DEVICE"`` and the view shows original vs predicted. Raises MoveError / Refusal (and leaves
        ``moves`` as it was) when the move cannot be honoured or executorch would refuse the placement."""
        target = add_move(list(self.moves), _as_text((selector, str(device))))
        self._prediction(tuple(target), self._flags())  # raises before anything changes
        self.moves = target

    def undo(self, index: int = -1) -> None:
        """Take back move ``index`` of ``moves`` (default the last); the others stay, predicted again."""
        if not self.moves:
            raise IndexError("no moves to undo")
        kept = list(self.moves)
        del kept[index]
        self.moves = kept

    def clear_moves(self) -> None:
        """Take back every move: the view shows the program as it is."""
        self.moves = []

    # -- prediction ---------------------------------------------------------------------------------

    def _prediction(self, moves: tuple[str, ...], flags: dict):
        """(predicted program, packed diff payload, its plans' diff views) for ``moves`` and what_if's ``flags``,
        cached; raises MoveError / Refusal."""
        key = (moves, tuple(flags[n] for n in FLAGS))
        if key in self._predictions:
            return self._predictions[key]

        parse_moves(moves)  # MoveError for a malformed one, before any work
        predicted = what_if(self.program, list(moves), **flags)
        views: dict = {}  # the changed pairs' texts are written when the page asks (_on_pair_text)
        # base: A is the original, analysed when the widget opened and already in the page (its app payload): reused
        # here, referred to in the payload, so only the predicted side and the pairing are made and sent (_on_base)
        got = (predicted, pack(whatif_payload(self.program, predicted, plan=self.plan, views=views, lazy=True,
                                              base=self._views)), views)
        if len(self._predictions) >= _CACHE:
            self._predictions.pop(next(iter(self._predictions)))
        self._predictions[key] = got
        return got

    @traitlets.validate("moves")
    def _valid_moves(self, proposal) -> list[str]:
        if not getattr(getattr(self, "program", None), "plans", None):
            raise traitlets.TraitError("nothing to move: this program has no plans (or it is a data file)")
        return [_as_text(m) for m in proposal["value"]]

    @_gc_paused
    def _on_moves(self, change) -> None:
        """``moves`` or one of what_if's flags changed: predict again (a flag alone changes a plan too)."""
        name = change["name"]
        moves = tuple(change["new"]) if name == "moves" else tuple(self.moves)
        flags = self._flags(change)
        try:
            predicted, packed, views = self._prediction(moves, flags) if self._changes_something(moves, flags) \
                else (None, self._original_payload, {})
        except (MoveError, Refusal, KeyError) as exc:
            from_page = name in getattr(self, "_property_lock", {})  # ipywidgets: set by the front end
            if name == "moves":
                added = [m for m in change["new"] if m not in change["old"]]
            else:
                added = [f"{name}={change['new']!r}"]
            self.whatif_error = (", ".join(added) + ": " if added else "") + reason(exc)
            self._reverting = True
            try:
                setattr(self, name, list(change["old"]) if name == "moves" else change["old"])  # the page is told too
            finally:
                self._reverting = False
            if not from_page:
                raise
            return
        self.predicted = predicted
        self._whatif_views = views
        if not self._reverting:  # (a revert keeps the error that caused it)
            self.whatif_error = ""
        self._payload = packed

    def _on_base(self, _content: dict) -> None:
        """The page asks for the app payload a what-if's references point into (``views/payload/whatif.py`` base): it
        has none decoded when the widget opened with moves (its first payload was a diff), or in a view of it made
        later; the answer carries the packed payload as one binary buffer (``explorer/frontend/host/base.js``)."""
        self.send({"type": "base"}, [self._original_payload])

    def _on_pair_text(self, content: dict) -> None:
        """The page asks for the before -> after text of changed pair ``k`` of ``plan`` (the what-if payload
        leaves them out: ``views/payload/diff.py`` ``lazy``); the answer names the plan and ``k`` it is for."""
        dv = self._whatif_views.get(content.get("plan"))
        k = content.get("k")
        if dv is None or not isinstance(k, int):
            return  # a request of a payload no longer shown
        try:
            html = pair_text(dv, k)
        except IndexError:
            return
        self.send({"type": "pair_text", "plan": content.get("plan"), "k": k, "html": html})
