"""Every exception the explorer raises on purpose, in one place beneath every layer.

:class:`PteFormatError` is the one bad bytes may raise (:class:`EtrecordFormatError` for an ETRecord). The
others say that well-formed input does not fit: a move that cannot be honoured (:class:`MoveError`), a
placement executorch would refuse (:class:`Refusal`), an ETDump or ETRecord of another program
(:class:`ProfileMismatch`, :class:`EtrecordMismatch`), an overlay that cannot be drawn
(:class:`OverlayError`), a payload of another contract (:class:`PayloadVersionError`), an output that would
replace an input (:class:`OutputIsInput`).

Every structural problem found while decoding a ``.pte`` becomes a :class:`PteFormatError` that
says *where* (a byte offset and, when known, the schema path such as
``execution_plan[0].values[12].val(Tensor).sizes``) and *what was expected*, so a user can tell a
truncated download from a writer bug without reading a flatbuffers stack trace.
"""

from __future__ import annotations

__all__ = ["PteFormatError", "EtrecordFormatError", "MoveError", "Refusal", "OverlayError", "ProfileMismatch",
           "EtrecordMismatch", "PayloadVersionError", "OutputIsInput",
           "JsonInputError"]


class PteFormatError(ValueError):
    """The bytes are not a structurally valid ExecuTorch program."""

    def __init__(self, message: str, *, offset: int | None = None, path: str | None = None,
                 file: str | None = None) -> None:
        self.offset = offset  # byte offset into the file where the problem was found (optional)
        self.path = path  # schema path of the table/field being decoded (optional)
        self.file = file  # the file at fault when it is not the one the user named first (a --data file)
        self.reason = message  # what was expected, without the location
        where = []
        if path:
            where.append(path)
        if offset is not None:
            where.append(f"at byte {offset}")
        super().__init__(f"{' '.join(where)}: {message}" if where else message)

    def within(self, path: str) -> "PteFormatError":
        """The same error, located one level further out (``path`` is prefixed)."""
        inner = self.path
        full = path if not inner else (f"{path}{inner}" if inner.startswith(("[", ".")) else f"{path}.{inner}")
        return PteFormatError(self.reason, offset=self.offset, path=full, file=self.file)


class EtrecordFormatError(PteFormatError):
    """An ETRecord (the zip executorch writes beside a ``.pte``) that is damaged or is not an ETRecord.

    Says which file and which member of the zip, and what was expected; ``offset`` is a byte offset inside
    that member when the JSON parser names one."""

    def __init__(self, message: str, *, member: str | None = None, offset: int | None = None,
                 file: str | None = None) -> None:
        where = f"member {member!r}" + (f" at byte {offset}" if offset is not None else "") + ": " if member else ""
        ValueError.__init__(self, f"ETRecord{' ' + file if file else ''}: {where}{message}")
        self.offset, self.path, self.file, self.reason, self.member = offset, member, file, message, member


class MoveError(ValueError):
    """A move that cannot be honoured (unknown selector, a copy, an unknown device kind...)."""


class Refusal(Exception):
    """A placement executorch 1.5.1 refuses to export; ``str()`` is the reason it would give."""


class OverlayError(ValueError):
    """An overlay argument or key that cannot be used; the message names it and what would do."""


class ProfileMismatch(ValueError):
    """No run of the dump fits any plan of the program (wrong program, or a dump of another export)."""


class EtrecordMismatch(ValueError):
    """The ETRecord does not belong to this program (``explorer.analysis.context`` says what is compared)."""


class PayloadVersionError(ValueError):
    """A payload written for another contract than this reader's (``explorer.views.payload.embed.PAYLOAD_VERSION``)."""


class OutputIsInput(ValueError):
    """A write refused because its target is one of the inputs (same path, symlink or hard link):
    :mod:`explorer.outputs` says why; the input is left untouched. The CLI exits 2 on it."""

    def __init__(self, message: str, *, target: str, source: str) -> None:
        super().__init__(message)
        self.target, self.source = target, source


class JsonInputError(ValueError):
    """JSON from a user's file that is not JSON or exceeds :mod:`explorer.bounded_json`'s limits (nesting depth,
    length of a number); ``pos`` is the character offset when the parser names one."""

    def __init__(self, message: str, *, pos: int | None = None) -> None:
        super().__init__(message)
        self.pos = pos
