"""The public, stable vocabulary: what a ``.pte`` program and its companions *are*, as frozen dataclasses.

``explorer.model`` is the name users import; each kind of thing lives in a module of its own:
:mod:`.program` (programs, plans, values, instructions, delegates), :mod:`.devices` (the one device
registry), :mod:`.dtypes` (scalar types), :mod:`.companions` (data files, bundles, delegate subgraphs),
:mod:`.profile` (ETDump runs and events), :mod:`.etrecord` (what an ETRecord says), :mod:`.columns`
(columnar twins of a plan's values and instructions). Modules here import only each other and
:mod:`explorer.errors`.
"""

from explorer.model import program as _program
from explorer.model.program import *  # noqa: F403  (the names ``explorer.model`` always had)

__all__ = list(_program.__all__)
