"""The ``--profile`` options shared by ``inspect``, ``show`` and ``diff``: read an ETDump, join it.

Kept apart from the subcommands so each of them only adds an option and a call. A dump that can't be
read is reported like a bad program (exit 2, naming the dump); a dump that fits no plan of the program
is reported with the reason (:class:`~explorer.analysis.profile.join.ProfileMismatch`) and exit 2 — never a
silent overlay on the wrong instructions.
"""

from __future__ import annotations

import argparse
import sys

from explorer.analysis.profile.join import Profile, ProfileMismatch, join_profile
from explorer.format.companions.etdump import load_etdump
from explorer.model.program import Program

__all__ = ["add_profile_options", "joined_profile", "optional_profile", "ProfileExit"]


class ProfileExit(Exception):
    """Raised after the error was printed; ``explorer.cli.main`` turns it into exit status 2."""


def add_profile_options(p: argparse.ArgumentParser, *, nargs: str | None = None) -> None:
    p.add_argument("--profile", metavar="ETDP", nargs=nargs,
                   help="an ETDump (.etdp) of runs of this program: time per instruction, device and copy"
                        + (" (diff: one per program, A then B)" if nargs else ""))
    p.add_argument("--profile-method", metavar="NAME",
                   help="join every run of the dump to this method (default: each run to the method it fits)")


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


def optional_profile(args: argparse.Namespace, program: Program) -> Profile | None:
    """The joined ``--profile`` of a one-program command, or None when none was given."""
    path = getattr(args, "profile", None)
    return joined_profile(args, program, path) if path else None
