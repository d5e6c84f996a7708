"""Subcommands of the ``tacticblue`` CLI and the helpers they share."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.geometry import BoardSpec
    from vision.synth.render import Placement


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


def camera_size(text: str) -> tuple[int, int] | None:
    """``--camera-size``: ``WxH``, or ``native`` (None) for the camera's own default."""
    return None if text.lower() == "native" else frame_size(text)


def placement_error(text: str) -> Placement:
    """How far rendered discs stand off their points (:class:`vision.synth.render.Placement`),
    written ``STACK`` or ``STACK,DISC`` in millimetres (an argparse type).

    >>> placement_error("3.2")
    Placement(stack_mm=3.2, disc_mm=1.4)
    """
    from vision.synth.render import Placement

    try:
        return Placement.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def disc_size(text: str) -> tuple[float, float]:
    """The discs' size written ``DIAMETERxTHICKNESS`` in millimetres, as ``29x7`` or
    ``31.5x8`` (an argparse type).

    >>> disc_size("31.5x8")
    (31.5, 8.0)
    """
    try:
        diameter, thickness = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"give the discs' diameter and thickness in millimetres, as 29x7, "
                                         f"not {text!r}") from None
    from rules.geometry import DISC_RANGE_MM

    (d_lo, d_hi), (t_lo, t_hi) = DISC_RANGE_MM
    if not (d_lo <= diameter <= d_hi and t_lo <= thickness <= t_hi):  # also false for nan
        raise argparse.ArgumentTypeError(f"discs are {d_lo:g}-{d_hi:g} mm across and {t_lo:g}-{t_hi:g} mm thick; "
                                         f"{text!r} is not")
    return diameter, thickness


def add_discs_argument(parser: argparse.ArgumentParser, calibrating: bool = False) -> None:
    """The ``--discs`` option of the commands that read stacks (``calibrating``: of the one that
    writes it into a calibration file)."""
    parser.add_argument("--discs", type=disc_size, metavar="DxT",
                        help="your discs' diameter and thickness in millimetres, as measured; stack heights are "
                             "read by them " + ("(default: the box's, 29x7; kept in the calibration file)"
                                                if calibrating else "(default: the calibration file's, else the "
                                                                    "box's 29x7)"))


def board_spec(discs: tuple[float, float] | None, kind: str, spec: BoardSpec | None = None) -> BoardSpec:
    """``spec`` (:class:`rules.geometry.BoardSpec`; default the box's) with the ``--discs`` given,
    refused in one line where such discs do not fit between the points of the ``kind`` of board."""
    from rules.geometry import DEFAULT_SPEC

    spec = (spec or DEFAULT_SPEC).with_discs(discs)
    spacing = spec.hex_spacing_mm if kind == "hex" else spec.cell_mm
    if spec.piece_diameter_mm >= spacing:
        raise CLIError(f"--discs: discs {spec.piece_diameter_mm:g} mm across do not fit on the {kind} board, whose "
                       f"points are {spacing:g} mm apart")
    return spec


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
