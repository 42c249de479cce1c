"""executorch-device-explorer: where every tensor and arena of an ExecuTorch program lives.

``load`` reads a ``.pte`` (no torch or executorch needed; also a ``.bpte``'s program, or a ``.ptd`` as a
``DataFile``; ``load(pte, data=[ptd, ...])`` links external weights), ``check`` runs the placement checks,
``diff`` compares the placement of two programs, ``Explorer`` is the notebook widget and ``Diff`` the
widget of a diff. The widgets and ``diff`` are imported lazily so the reader and the CLI never pay for
ipywidgets or plotly.
"""

from __future__ import annotations

from .errors import PteFormatError
from .format.etdump import load_etdump
from .format.reader import load
from .model import CPU, Buffer, DataFile, Delegate, Device, Instruction, Plan, Program, Tensor, Value

__all__ = ["load", "load_etdump", "check", "diff", "Explorer", "Diff", "PteFormatError", "Program", "Plan", "Tensor", "Value",
           "Buffer", "Instruction", "Delegate", "Device", "CPU", "DataFile", "__version__"]

__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "Explorer":
        from .widget import Explorer
        return Explorer
    if name == "Diff":
        from .widget_diff import Diff
        return Diff
    if name == "check":
        from .analysis import check
        return check
    if name == "diff":
        from .analysis.diff import diff
        return diff
    raise AttributeError(f"module 'explorer' has no attribute {name!r}")
