"""The board calibration file: one JSON document the other commands load.

Written by ``tacticblue calibrate board`` and read by everything that looks at the
board.  Version 1 holds::

    {"format": "tacticblue-board-calibration", "version": 1,
     "game": "accasta" | null, "kind": "hex" | "square",
     "image_size": [w, h], "white_side": "near" | "far" | "left" | "right" | "near-left" | ...,
     "method": "auto" | "manual", "camera_known": true | false,
     "pose": {"camera": {"K", "dist", "image_size"}, "rvec", "tvec", "kind", "spec"}}

The pose is in the board frame (White's side is built into it), so ``white_side`` only
records how it was chosen.  Loading checks everything and raises
:class:`CalibrationFileError` (a ``ValueError``) with one readable line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import BoardPose
from rules.geometry import BoardKind

FORMAT = "tacticblue-board-calibration"
VERSION = 1
WHITE_SIDE_BEARINGS = {"near": 0.0, "far": 180.0, "left": -90.0, "right": 90.0,
                       "near-left": -60.0, "near-right": 60.0, "far-left": -120.0, "far-right": 120.0}
"""Where White may sit, as the camera sees it: degrees round the board from the camera's side,
positive towards the camera's right.  The board's edge nearest that bearing is White's (the
diagonal ones name a hex board's slanted edges, or a square board's edges seen from a corner)."""
WHITE_SIDES = tuple(WHITE_SIDE_BEARINGS)


class CalibrationFileError(ValueError):
    """A calibration file that cannot be used: missing, corrupt, truncated, wrong version or board."""


@dataclass(frozen=True)
class BoardCalibration:
    """A found board: its pose (with camera and spec), and how it was found."""

    pose: BoardPose
    game: str | None = None
    white_side: str = "near"
    method: str = "auto"
    camera_known: bool = False

    @property
    def kind(self) -> BoardKind:
        return self.pose.kind

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "game": self.game, "kind": self.pose.kind,
                "image_size": list(self.pose.camera.image_size), "white_side": self.white_side,
                "method": self.method, "camera_known": self.camera_known, "pose": self.pose.to_dict()}

    @classmethod
    def from_dict(cls, data: Any) -> "BoardCalibration":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationFileError("not a tacticblue board calibration (no \"format\": \"%s\")" % FORMAT)
        version = data.get("version")
        if version != VERSION:
            raise CalibrationFileError(f"calibration file version {version!r} is not supported "
                                       f"(this tacticblue reads version {VERSION}): recalibrate the board")
        try:
            pose = BoardPose.from_dict(data["pose"])
        except (KeyError, TypeError, ValueError) as e:
            raise CalibrationFileError(f"calibration file has no valid pose: {e}") from None
        if data.get("kind") != pose.kind:
            raise CalibrationFileError(f"calibration file says board {data.get('kind')!r} but its pose is for "
                                       f"{pose.kind!r}")
        if list(data.get("image_size", [])) != list(pose.camera.image_size):
            raise CalibrationFileError("calibration file's image_size does not match its camera")
        values = np.concatenate([pose.rvec, pose.tvec, pose.camera.K.ravel(), pose.camera.dist])
        if not all(math.isfinite(v) for v in values) or pose.tvec[2] <= 0:
            raise CalibrationFileError("calibration file's pose is not finite or puts the board behind the camera")
        side = data.get("white_side", "near")
        if side not in WHITE_SIDES:
            raise CalibrationFileError(f"white_side must be one of {', '.join(WHITE_SIDES)}, not {side!r}")
        game = data.get("game")
        if game is not None and not isinstance(game, str):
            raise CalibrationFileError("calibration file's game must be a name or null")
        return cls(pose, game, side, str(data.get("method", "auto")), bool(data.get("camera_known", False)))

    def save(self, path: str | Path) -> None:
        """Write atomically, so a crash loses nothing (:func:`write_atomically`)."""
        write_atomically(Path(path), json.dumps(self.to_dict(), indent=1) + "\n")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed over it, so a crash mid-write
    never leaves half a file.  ``OSError`` "PATH: cannot write (reason)" names ``path``, not the
    temporary file the user never gave, which is removed again."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        if tmp.is_file():
            tmp.unlink()
        raise OSError(f"{path}: cannot write ({e.strerror or e})") from None


def load_calibration(path: str | Path, kind: BoardKind | None = None,
                     image_size: tuple[int, int] | None = None) -> BoardCalibration:
    """Read and check a calibration file; optionally require a board kind and image size.

    >>> load_calibration("/nonexistent.json")
    Traceback (most recent call last):
    ...
    calibration.board_file.CalibrationFileError: /nonexistent.json: no such calibration file
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationFileError(f"{path}: no such calibration file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CalibrationFileError(f"{path}: cannot read calibration file ({e})") from None
    if not text.strip():
        raise CalibrationFileError(f"{path}: calibration file is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        unclosed = text.count("{") + text.count("[") > text.count("}") + text.count("]")
        what = "truncated" if unclosed or e.pos >= len(text.rstrip()) else "corrupt"
        raise CalibrationFileError(f"{path}: calibration file is {what} (invalid JSON at line {e.lineno}, "
                                   f"column {e.colno}): recalibrate the board") from None
    try:
        calib = BoardCalibration.from_dict(data)
    except CalibrationFileError as e:
        raise CalibrationFileError(f"{path}: {e}") from None
    if kind is not None and calib.kind != kind:
        raise CalibrationFileError(f"{path}: calibration is for the {calib.kind} board, not the {kind} board "
                                   "this game is played on")
    if image_size is not None and tuple(image_size) != calib.pose.camera.image_size:
        w, h = calib.pose.camera.image_size
        raise CalibrationFileError(f"{path}: calibrated at {w}x{h}, but the frames are "
                                   f"{image_size[0]}x{image_size[1]}")
    return calib
