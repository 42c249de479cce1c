"""The ``--profile`` options shared by ``inspect``, ``show`` and ``diff``: read an ETDump, join it; and, with
``--debug-buffer`` (``show``, ``diff``), the run's numbers (docs/numerics.md).

Kept apart from the subcommands so each of them only adds an option and a call. A dump that can't be
read is reported like a bad program (exit 2, naming the dump); a dump that fits no plan of the program
is reported with the reason (:class:`~explorer.analysis.profile.join.ProfileMismatch`) and exit 2 — never a
silent overlay on the wrong instructions.
"""

from __future__ import annotations

import argparse
import sys

from explorer.errors import PteFormatError
from explorer.analysis.numerics.compare import DEFAULT_TOL
from explorer.analysis.numerics.load import NumericsReport, load_numerics
from explorer.analysis.profile.join import Profile, ProfileMismatch, join_profile
from explorer.format.companions.etdump import load_etdump
from explorer.model.program import Program

__all__ = ["add_profile_options", "joined_profile", "optional_profile", "ProfileExit", "run_numerics"]


class ProfileExit(Exception):
    """Raised after the error was printed; ``explorer.cli.main`` turns it into exit status 2."""


def add_profile_options(p: argparse.ArgumentParser, *, nargs: str | None = None, numerics: bool = False) -> None:
    p.add_argument("--profile", metavar="ETDP", nargs=nargs,
                   help="an ETDump (.etdp) of runs of this program: time per instruction, device and copy"
                        + (" (diff: one per program, A then B)" if nargs else ""))
    p.add_argument("--profile-method", metavar="NAME",
                   help="join every run of the dump to this method (default: each run to the method it fits)")
    if not numerics:
        return
    p.add_argument("--debug-buffer", metavar="BIN", nargs=nargs,
                   help="the debug buffer (.bin) written with the --profile run: each op's outputs in the details, "
                        "NaN/Inf findings, the output_range overlay"
                        + (" (diff: one per program, A then B; both runs compared: the gap overlay on A, the first "
                           "divergence)" if nargs else " (docs/numerics.md)"))
    p.add_argument("--tol", type=float, default=DEFAULT_TOL,
                   help=f"with --debug-buffer: the first divergence is max|a-b| / max(1, max|a|) above this "
                        f"(default {DEFAULT_TOL:g})")


def joined_profile(args: argparse.Namespace, program: Program, path: str) -> Profile:
    """Load ``path`` and join it to ``program``; on failure print one line and raise ProfileExit."""
    previous = getattr(args, "file", None)
    args.file = path  # main() names this file if the dump is unreadable (PteFormatError)
    dump = load_etdump(path)
    args.file = previous
    try:
        return join_profile(program, dump, method=getattr(args, "profile_method", None))
    except ProfileMismatch as exc:
        print(f"device-explorer: {path}: {exc}", file=sys.stderr)
        raise ProfileExit from None


def run_numerics(args: argparse.Namespace, program: Program, profile: str, debug_buffer: str,
                 against: tuple | None = None) -> NumericsReport:
    """``--debug-buffer`` with ``--profile``: the run's numbers (and, with ``against`` = ``(program_b, etdp_b,
    bin_b)``, compared with B's) as ``device-explorer numerics`` reads them; a run that does not fit is one line and
    ProfileExit."""
    try:
        return load_numerics(program, profile, debug_buffer, against=against, tol=args.tol,
                             method=getattr(args, "profile_method", None))
    except ValueError as exc:  # a run that fits no plan, no debug events, an ETRecord of another export
        if isinstance(exc, PteFormatError):
            raise  # bad bytes: main names the file
        print(f"device-explorer: {debug_buffer}: {exc}", file=sys.stderr)
        raise ProfileExit from None


def optional_profile(args: argparse.Namespace, program: Program) -> Profile | None:
    """The joined ``--profile`` of a one-program command, or None when none was given."""
    path = getattr(args, "profile", None)
    return joined_profile(args, program, path) if path else None
