"""``device-explorer``: inspect, check, show, diff and what-if ExecuTorch programs from the shell.

Each subcommand lives in its own module exposing ``register(subparsers)`` (adds its parser and sets
``func``) and a ``run(args, out) -> int``. ``main`` catches :class:`PteFormatError` once, prints one
line and returns 2, so a bad file never gives a stack trace unless ``--traceback`` is asked for.
A reader that stops early (``device-explorer inspect x.pte | head``) ends the output quietly, with
the status a shell gives a process killed by SIGPIPE (141), as ``cat`` or ``grep`` do.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence, TextIO

from explorer.cli import calibrate, check, diff, inspect, numerics, show, whatif
from explorer.cli.profile_opts import ProfileExit
from explorer.errors import OutputIsInput, PteFormatError
from explorer.outputs import refuse_inputs
from explorer.safe_text import visible

__all__ = ["main"]

_SUBCOMMANDS = (inspect, check, show, diff, whatif, numerics, calibrate)  # in the order ``--help`` lists them
_BROKEN_PIPE = 128 + 13  # what a shell reports for a process ended by SIGPIPE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="device-explorer",
        description="See where every tensor and memory-planned buffer of an ExecuTorch .pte lives. "
                    "Without a command, writes an offline HTML report of the bundled sample to "
                    "./device-explorer-report.html (same as `device-explorer show`) and prints its file:// URL.")
    parser.add_argument("--traceback", action="store_true", help="show the Python traceback on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in _SUBCOMMANDS:
        command.register(sub)
    return parser


class _TerminalText:
    """A text stream that shows control and bidi characters from file names as escapes (text.visible),
    line by line, so no name can drive or reorder the user's terminal. JSON output is ASCII already."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if text.isascii() and text.replace("\n", "").isprintable():  # the JSON forms, whole blocks: checked in C
            return self._stream.write(text)
        return self._stream.write("\n".join(visible(line) for line in text.split("\n")))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    """Entry point of the ``device-explorer`` script; returns the exit status."""
    out = _TerminalText(stdout if stdout is not None else sys.stdout)
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    bare = not argv or argv[0] in ("demo", "-o", "--output")  # the first run: say how to open the report
    if not argv or argv[0] == "demo":
        argv = ["show", *argv[1:]]  # no file: explore the bundled sample and write its report
    elif argv[0] in ("-o", "--output", "--plan"):
        argv = ["show", *argv]  # `device-explorer -o report.html`: the demo with options
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(out)
        return 2
    try:
        _refuse_outputs_over_inputs(args)
        status = int(args.func(args, out))
        if bare and status == 0:
            url = Path(os.path.abspath(args.output)).as_uri()
            print(f"open it in a browser: {url}", file=out)
        return status
    except BrokenPipeError:
        _silence_stdout()
        return _BROKEN_PIPE
    except ProfileExit:  # a --profile that fits no plan: its reason is already printed
        return 2
    except OutputIsInput as exc:
        print(f"device-explorer: {exc}", file=sys.stderr)
        return 2
    except PteFormatError as exc:
        if args.traceback:
            raise
        if exc.file:  # a --data file: its error names it
            print(f"device-explorer: {exc}", file=sys.stderr)
        else:
            print(f"device-explorer: cannot read {getattr(args, 'file', '')}: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:  # Program.plan(name) for a plan the file doesn't have
        if args.traceback:
            raise
        print(f"device-explorer: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if args.traceback:
            raise
        print(f"device-explorer: {exc}", file=sys.stderr)
        return 2


_OUTPUTS = ("output", "html")  # the options that name a file to write (show/whatif -o, diff --html)
_INPUTS = ("file", "other", "data", "profile", "etrecord", "overlay")  # the options that name files read


def _refuse_outputs_over_inputs(args: argparse.Namespace) -> None:
    """Before any work: an output naming one of the command's input files (any spelling, a symlink, a hard
    link) is refused (OutputIsInput, exit 2); the writers check again with what they loaded."""
    inputs: list[str] = []
    for name in _INPUTS:
        value = getattr(args, name, None)
        inputs.extend(v for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, str))
    for name in _OUTPUTS:
        target = getattr(args, name, None)
        if isinstance(target, str):
            refuse_inputs(target, inputs)


def _silence_stdout() -> None:
    """The reader has gone: point stdout at /dev/null so the interpreter's final flush can't raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests pass a StringIO)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
