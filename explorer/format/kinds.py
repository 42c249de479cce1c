"""Which kind of file this is, when it is not the one a reader expected: one table and the sniffing beside it.

Beneath every reader (it imports none), so that the program reader refusing a ``.ptd``, an ETDump or a zip can
say what the file is and what to do with it instead. :mod:`.registry` names the readers that open the kinds
``explorer.load`` opens; the texts of those it recognises without opening are here.
"""

from __future__ import annotations

import re

__all__ = ["KNOWN_MAGIC", "what_is", "identify"]

# identifier (bytes 4-8, or 8-12 behind a size prefix) -> what the file is when a program was expected
KNOWN_MAGIC: dict[bytes, str] = {
    b"FT01": ("an ExecuTorch data file (.ptd, FlatTensor: weights kept outside the program), not a program; "
              "explorer.load and `device-explorer inspect` read it as a data file, and `--data FILE` attaches "
              "it to the .pte that names it"),
    b"BP08": ("an ExecuTorch bundled program (.bpte: a program plus test inputs and expected outputs), not a "
              "bare program; explorer.load and the CLI read the program inside it"),
    b"ED00": ("an ETDump (run-time profiling/debug events written by the executorch runtime), not a program; "
              "pass it with --profile to the .pte that produced it (`device-explorer show program.pte --profile "
              "run.etdp`, or explorer.Explorer(program, profile=...))"),
    b"XH00": ("an XNNPACK delegate payload (the blob a .pte stores in a segment), not a program; open the .pte "
              "that contains it"),
    b"XN01": ("an XNNPACK delegate flatbuffer (the inside of a delegate blob), not a program; open the .pte "
              "that contains it"),
}

_OTHER_VERSION = re.compile(rb"ET[0-9]{2}")

_ZIP = b"PK\x03\x04"
_ZIP_HINT = ("a zip archive (a TorchScript model, a torch.export .pt2, or an ETRecord), not an ExecuTorch "
             "program; export it to .pte with executorch (to_edge(...).to_executorch()) first")
_EXPORT_ADVICE = "export it to .pte with executorch (to_edge(...).to_executorch()) first"
# which zip it is, from its entry names (the first entry is in the local header at byte 30; the central
# directory, at the end, lists the rest). ETRecord: devtools/etrecord/_etrecord.py ETRecord.save writes
# ETRECORD_V0 (ETRecordReservedFileNames.ETRECORD_IDENTIFIER) first; torch.save and torch.jit.save both
# start with <name>/data.pkl, and only TorchScript has code/ and constants.pkl; torch.export.save (.pt2)
# writes an archive_format entry and models/*.json.
_ZIP_KINDS = (
    (b"ETRECORD_V0", "an ETRecord (executorch's export record for the devtools Inspector), not a program; open "
                     "the .pte of the same export, and pass the ETRecord to executorch's Inspector"),
    (b"archive_format", "a torch.export archive (.pt2, torch.export.save), not an ExecuTorch program; "
                        + _EXPORT_ADVICE),
    (b"constants.pkl", "a TorchScript model (torch.jit.save), not an ExecuTorch program; ExecuTorch exports "
                       "start from the nn.Module with torch.export, then " + _EXPORT_ADVICE.replace("export it ", "")),
    (b"data.pkl", "a PyTorch checkpoint (torch.save), not an ExecuTorch program; load it into its nn.Module and "
                  + _EXPORT_ADVICE.replace("it", "that", 1)),
)
_TEXT = frozenset(range(32, 127)) | {9, 10, 13}


def what_is(ident: bytes) -> str | None:
    """What a file with identifier ``ident`` is, when it is one this table knows but not a program."""
    return KNOWN_MAGIC.get(ident)


def identify(head: bytes, tail: bytes = b"") -> str:
    """What a file whose first bytes are ``head`` (and last bytes ``tail``, where a zip lists its entries)
    is, when it is not an ET12 program (with advice that fits it)."""
    if head[:4] == _ZIP:
        return _zip_kind(head, tail)
    if head and all(b in _TEXT for b in head[:64]):
        return "a text file, not an ExecuTorch program (a .pte is binary: a flatbuffer with identifier 'ET12')"
    ident = head[4:8]
    known = what_is(ident) or what_is(head[8:12])  # 8-12: a size-prefixed flatbuffer (ETDump is written that way)
    if known:
        return known
    if _OTHER_VERSION.fullmatch(ident):
        return (f"an ExecuTorch program of schema version {ident[2:].decode()}, but this tool and executorch "
                f"1.5.1 read only ET12; re-export it with executorch 1.5.1 (or use the executorch release "
                f"that wrote it)")
    return "not an ExecuTorch program"


def _zip_kind(head: bytes, tail: bytes) -> str:
    name_len = int.from_bytes(head[26:28], "little") if len(head) >= 30 else 0
    names = head[30:30 + name_len] + b"\n" + tail
    first = head[30:30 + name_len]
    for marker, what in _ZIP_KINDS:
        if marker == b"ETRECORD_V0" and first != marker:
            continue  # an ETRecord says so in its first entry
        if marker in names:
            return what
    return _ZIP_HINT
