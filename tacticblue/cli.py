"""The ``tacticblue`` command: one entry point, one subcommand module per concern.

Each module in :data:`COMMAND_MODULES` (``tacticblue/commands/<name>.py``) provides
``register(subparsers)`` which adds its subcommand and sets ``func`` on its parser;
``func(args)`` returns the exit status.  Errors the user can fix are raised as
:class:`CLIError` (or ``ValueError``/``OSError``) and printed as one line.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn, Sequence

from tacticblue import __version__
from tacticblue.commands import CLIError

COMMAND_MODULES: tuple[str, ...] = (
    "rules",
    "panel",
    "scenes",
    "calibrate",
    "live",
    "read",
)


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like every other error of the CLI
    (argparse prints the whole usage first); subcommand parsers inherit it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="tacticblue",
        description="Camera companion for the tactic blue games: read the board, infer and referee the moves.",
    )
    parser.add_argument("--version", action="version", version=f"tacticblue {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"tacticblue.commands.{name}").register(sub)
    return parser


OPENCV_QUIET = {"OPENCV_LOG_LEVEL": "SILENT", "OPENCV_FFMPEG_LOGLEVEL": "-8"}
"""The environment that keeps OpenCV's own log, and that of the FFmpeg inside it, quiet (-8:
FFmpeg's AV_LOG_QUIET): a camera that cannot be opened or a damaged video is said in one line
of the CLI's own.  OpenCV reads them when it is loaded, which registering the subcommands
does (OpenCV 4 has no call to set its log level afterwards); a value set already is kept."""


def main(argv: Sequence[str] | None = None) -> int:
    for name, value in OPENCV_QUIET.items():
        os.environ.setdefault(name, value)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # output piped into head & co.: not an error
        sys.stdout = open(os.devnull, "w")
        return 0
    except CLIError as e:
        print(f"tacticblue {args.command}: error: {e}", file=sys.stderr)
        return e.status
    except (ValueError, OSError, KeyError) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"tacticblue {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tacticblue {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
