"""The widget's overlays: a user's numbers (or built-in measures) colouring the graph's nodes.

Mixed into :class:`explorer.Explorer`. Two synced traits:

* ``shown_overlay`` — the name of the overlay drawn ("" for none); set by :meth:`OverlayWidget.show_overlay`
  (or :meth:`~OverlayWidget.overlay`) or by the page's overlay picker. In a widget this trait is what is
  shown; the ``"shown"`` inside the data is only what it was when the data was last sent;
* ``_overlay_data`` — every plan's overlays as the app reads them (``{"shown", "plans"}`` of
  :mod:`explorer.views.payload.overlays`, packed by :func:`explorer.views.payload.embed.pack`), sent again
  whenever an overlay is added, replaced or removed; the page colours nodes from it without asking
  Python, so hover and folding stay in the browser.

Built-ins (``time`` with a profile, ``copy_bytes``, ``size``, ``lifetime``) are listed by
:attr:`overlays` on the plans where they have data. :meth:`save_html` keeps every overlay and the
one shown; ``device-explorer show --overlay FILE.json`` writes the same report.
"""

from __future__ import annotations

import os

import traitlets

from explorer.analysis.overlays import OverlayError
from explorer.views.payload.embed import pack
from explorer.views.payload.overlays import OverlaySet, read_overlay_file

__all__ = ["OverlayWidget"]


class OverlayWidget(traitlets.HasTraits):
    """Overlay API of the Explorer widget (module docstring)."""

    shown_overlay = traitlets.Unicode("", help="the overlay drawn on the graph ('' for none)").tag(sync=True)
    _overlay_data = traitlets.Bytes(b"", help="every plan's overlays (explorer.views.payload.overlays), packed").tag(sync=True)

    _overlay_set: OverlaySet | None = None  # None: a data file (.ptd), no plans to draw on

    def _init_overlays(self, program, views: dict, profile, numerics=None) -> None:
        """Called by the widget once its plan views exist; ``numerics``: a NumericsReport of a run of ``program``
        (the built-ins ``output_range`` and, compared, ``gap``)."""
        self._overlay_set = OverlaySet(program, views, profile, *((numerics.a.numerics, numerics.comparison)
                                                                  if numerics is not None else ()))
        self._send_overlays()

    # -- public API ---------------------------------------------------------------------------------

    @property
    def overlays(self) -> list[str]:
        """The overlays of the plan shown: built-ins with data, then yours in the order added."""
        return self._overlay_set.names(self.plan) if self._overlay_set is not None else []

    def overlay_data(self, name: str, plan: str | None = None):
        """The resolved :class:`~explorer.analysis.overlays.Overlay` ``name`` of ``plan`` (default: the one shown)."""
        ov = self._overlay_set.get(name, plan or self.plan)
        if ov is None:
            raise KeyError(f"no overlay {name!r} on plan {plan or self.plan!r}; it has {self._overlay_set.names(plan or self.plan)}")
        return ov

    def overlay(self, name: str, values, *, by: str | None = None, scale=None, thresholds=None,
                aggregate: str = "sum", unit: str = "", plan: str | None = None, show: bool = True) -> str:
        """Colour nodes by your numbers (added, or replacing ``name`` on that plan); returns the name.

        ``values``: a dict key -> number — ``5`` / ``"@5"`` instruction 5, ``"%12"`` value 12, ``"layers.3"`` a
        module (a group of the overview), with ``by="group"`` group ids — or, with ``by="instruction"`` /
        ``by="value"``, one number per instruction / value. None or NaN: no number. ``scale``: a colour scale
        name (``viridis``, ``cividis``, ``magma``, ``plasma``) or ``{"name", "min", "max", "log"}``; or
        ``thresholds``: ``[(bound, "#RRGGBB", label), ...]`` with increasing bounds. ``aggregate``: what a
        folded group shows — ``sum``, ``max`` or ``mean`` of what it holds (the legend says which). ``plan``:
        default the one shown. ``show``: draw it now. Bad arguments raise OverlayError (a ValueError)."""
        self._overlay_set.add(name, values, plan=plan or self.plan, by=by, scale=scale, thresholds=thresholds,
                              aggregate=aggregate, unit=unit)
        if show:
            self.shown_overlay = name
        self._send_overlays()
        return name

    def load_overlay(self, path: str | os.PathLike, *, show: bool = True) -> str:
        """Add the overlay of a JSON file (the format ``device-explorer show --overlay`` reads); returns its name."""
        spec = read_overlay_file(path)
        return self.overlay(spec.pop("name"), spec.pop("values"), show=show, **spec)

    def show_overlay(self, name: str | None) -> None:
        """Draw overlay ``name`` (None: none)."""
        self.shown_overlay = name or ""

    def remove_overlay(self, name: str) -> None:
        """Forget one of your overlays (built-ins stay; hide them with ``show_overlay(None)``)."""
        self._overlay_set.remove(name)
        if self.shown_overlay == name:
            self.shown_overlay = ""
        self._send_overlays()

    # -- sync ---------------------------------------------------------------------------------------

    def _overlay_payload(self) -> dict:
        return self._overlay_set.payload(self.shown_overlay or None)

    def _send_overlays(self) -> None:
        self._overlay_data = pack(self._overlay_payload())

    @traitlets.validate("shown_overlay")
    def _valid_overlay(self, proposal) -> str:
        name = proposal["value"]
        if name and (self._overlay_set is None or name not in self._overlay_set.names()):
            raise traitlets.TraitError(str(OverlayError(
                f"Invalid value of 'shown_overlay': {name!r}. Expected one of "
                f"{self._overlay_set.names() if self._overlay_set is not None else []} (or '' for none)")))
        return name
