"""Subcommands of the ``tacticblue`` CLI and the helpers they share."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


class CLIError(Exception):
    """An error the user can fix; printed as one line, exit status ``status``."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def add_game_argument(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """The ``--game`` option every command shares, validated against the registry."""
    from rules import GAMES

    parser.add_argument(
        "--game", "-g", required=required, choices=sorted(GAMES), metavar="GAME",
        help="game to play: " + ", ".join(sorted(GAMES)),
    )


def frame_size(text: str) -> tuple[int, int]:
    """A frame size written ``WxH`` (an argparse type)."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, not {text!r}") from None
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        raise argparse.ArgumentTypeError("width and height must be 64..4096 pixels")
    return w, h


def finite_number(text: str, what: str, zero_allowed: bool) -> float:
    """``text`` as a finite number, 0 or more (``zero_allowed``) or above 0, for an argparse
    type: float() reads "nan" and "inf", which no time or length means.  ``what`` says in the
    error what is asked for ("a number of seconds, 0 or more")."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and (value >= 0 if zero_allowed else value > 0)):
        raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}")
    return value


def seconds(text: str) -> float:
    """A time in seconds, finite and 0 or more (an argparse type): a wait of nan lasts for ever,
    a negative sleep raises, and a settle time of inf never lets the picture settle."""
    return finite_number(text, "a number of seconds, 0 or more", zero_allowed=True)


def make_folder(path: Path) -> None:
    """Create the output folder ``path`` and its parents (an existing folder is fine).  CLIError
    "PATH: not a folder" naming the part of the user's path that is a file, or "PATH: cannot
    create the folder (reason)": ``mkdir`` says only "[Errno 17] File exists"."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        for part in (*reversed(path.parents), path):
            if part.exists() and not part.is_dir():
                raise CLIError(f"{part}: not a folder") from None
        raise CLIError(f"{path}: cannot create the folder ({e.strerror or e})") from None


def write_overlay(path: str, image: Any) -> None:
    """Write an overlay picture to ``path``; CLIError if it cannot be written.  OpenCV answers
    False for a folder it cannot write in, but raises for a name whose suffix has no image
    writer (``overlay.txt``, ``overlay``): both are the same one-line error."""
    import cv2

    try:
        written = cv2.imwrite(path, image)
    except cv2.error:
        written = False
    if not written:
        raise CLIError(f"{path}: cannot write the overlay (use a .png or .jpg name)")


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    sys.stdout.flush()
