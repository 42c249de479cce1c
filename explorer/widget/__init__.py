"""The notebook widgets: :class:`Explorer` (one program) and :class:`Diff` (two), on anywidget.

Both front ends are the browser app (:mod:`explorer.frontend`); :mod:`.base` is what they share,
:mod:`.overlays` and :mod:`.whatif` the parts of ``Explorer`` that colour by numbers and move ops.
"""

from explorer.widget.diff import Diff
from explorer.widget.explorer import Explorer

__all__ = ["Explorer", "Diff"]
