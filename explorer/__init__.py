"""executorch-device-explorer: where every tensor and arena of an ExecuTorch program lives.

``load`` reads a ``.pte`` (no torch or executorch needed; also a ``.bpte``'s program, or a ``.ptd`` as a
``DataFile``; ``load(pte, data=[ptd, ...])`` links external weights), ``check`` runs the placement checks,
``diff`` compares the placement of two programs, ``Explorer`` is the notebook widget and ``Diff`` the
widget of a diff, ``what_if`` predicts the program executorch would export for another placement. The widgets are
imported lazily (module ``__getattr__``) so the reader and the CLI never pay for ipywidgets and anywidget. The figures are built in the browser (plotly.js is vendored): the plotly Python package is not needed.
"""

from __future__ import annotations

from explorer.analysis.context import attach_etrecord
from explorer.analysis.diff.compare import diff
from explorer.analysis.numerics.load import load_numerics
from explorer.analysis.pipeline import check
from explorer.errors import EtrecordFormatError, PteFormatError
from explorer.format.companions.etdump import load_etdump
from explorer.format.companions.etrecord import load_etrecord
from explorer.format.reader import load as _load
from explorer.whatif.predict import what_if
from explorer.model.program import CPU, Buffer, DataFile, Delegate, Device, Instruction, Plan, Program, Tensor, Value

__all__ = ["load", "load_etdump", "load_etrecord", "load_numerics", "EtrecordFormatError", "check", "diff", "what_if", "Explorer", "Diff", "PteFormatError", "Program", "Plan", "Tensor", "Value",
           "Buffer", "Instruction", "Delegate", "Device", "CPU", "DataFile", "__version__"]

__version__ = "0.1.0"


def load(source, data=None, *, etrecord=None):
    """Decode a ``.pte`` (a path, bytes, a memoryview, a binary file object, or the
    ``ExecutorchProgramManager`` that ``to_executorch()`` returns), a ``.bpte``'s program or a ``.ptd``
    (:func:`explorer.format.reader.load`; ``data``: ``.ptd`` files to link).

    ``etrecord``: the ETRecord of this export (a path, bytes, a file object, executorch's ``ETRecord`` object
    or a manager made with ``generate_etrecord=True``), read without torch and joined to the program
    (``program.etrecord``: per instruction the model's module, source line, stack and ops; docs/etrecord.md).
    An ETRecord of another program raises ``explorer.analysis.context.EtrecordMismatch`` naming what does
    not line up; a damaged one :class:`EtrecordFormatError`.
    """
    loaded = _load(source, data)
    if etrecord is None:
        return loaded
    if not isinstance(loaded, Program):
        raise PteFormatError("an ETRecord can only be joined to a program, and this is a data file (.ptd)", offset=4)
    return attach_etrecord(loaded, etrecord)


def __getattr__(name: str):
    if name == "Explorer":
        from explorer.widget.explorer import Explorer  # heavy: ipywidgets + anywidget, only a notebook needs them
        return Explorer
    if name == "Diff":
        from explorer.widget.diff import Diff  # heavy: ipywidgets + anywidget, only a notebook needs them
        return Diff
    raise AttributeError(f"module 'explorer' has no attribute {name!r}")
