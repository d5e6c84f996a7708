"""The live session's reader of camera frames: board pose, hand check and stacks from vision.

:class:`VisionReader` puts the vision pieces together for :class:`tacticblue.session.Session`:
the board's pose from a calibration file or found in the first readable frame
(:func:`vision.board_finder.locate_board`, White's side from the game's position; the
players are told when the position cannot show it and ``--white-side`` decided), kept
through the game by :class:`vision.tracking.BoardTracker` (a bumped board is found
again: status ``moved``), and every point's stack by :class:`vision.reader.StackReader`
(rebuilt only when the pose changes).  A frame with a hand over the board, too blurred,
or without the board gives no observation.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from rules import Board
from rules.geometry import DEFAULT_SPEC
from tacticblue.session import Reading
from tacticblue.sources import Frame


SEARCH_EVERY_S = 1.0
"""While no board is found, look for it this often (seconds of the source)."""


class VisionReader:
    """Reads frames of ``board``'s game (see the module docstring)."""

    def __init__(self, board: Board[Any], calibration: Path | None = None, white_side: str = "near",
                 discs: tuple[float, float] | None = None) -> None:
        self.board = board
        self.calibration = calibration
        self.white_side = white_side
        self.discs = discs
        """The discs' diameter and thickness (mm) the players gave, over the calibration's."""
        self._tracker: Any = None
        self._stacks: Any = None
        self._next_search = 0.0
        self._note: str | None = None
        self._area: Any = None
        self._told = False
        """Whether the players have had :meth:`vision.reader.StackReader.view_note` (once a game)."""
        self._told_size: tuple[int, int] | None = None
        """The frame size the players were last told a calibration does not fit."""
        self._set_up: dict[str, str] | None = None
        """The position the pieces showed when the board was found, until a frame is read: its
        heights tell whether the discs are the size the reader takes (:func:`vision.discs.discs_note`)."""

    def _start(self, image: Any) -> str:
        """Find the pose in the first frame; ``"steady"`` or ``"lost"``."""
        from calibration.board_file import WHITE_SIDES
        from vision.board_finder import BoardNotFound, locate_board, white_side_note
        from vision.tracking import BoardTracker

        geometry = self.board.geometry
        size = (image.shape[1], image.shape[0])
        if self.calibration is not None:
            from calibration.board_file import load_calibration

            pose = load_calibration(self.calibration, geometry.kind, size).pose
            pose = replace(pose, spec=pose.spec.with_discs(self.discs))
        else:
            try:
                found = locate_board(image, geometry.kind, white_side=self.white_side,
                                     spec=DEFAULT_SPEC.with_discs(self.discs), start=(geometry, self.board.visible()))
            except BoardNotFound:
                return "lost"
            pose = found.pose
            if found.orientation == "pieces":
                self._set_up = self.board.visible()
            else:
                self._note = (f"{white_side_note(pose, found.orientation, self.white_side)}: the pieces do not show it "
                              "(if White sits elsewhere, start again with --white-side " + "|".join(WHITE_SIDES) + ")")
        self._tracker = BoardTracker(pose)
        self._tracker.update(image)
        self._use(pose)
        return "steady"

    def _use(self, pose: Any) -> None:
        from vision.board_model import game_extent_mm
        from vision.reader import StackReader

        self._stacks = StackReader(self.board.name, pose)
        tallest = self._stacks.model.max_height * pose.spec.piece_height_mm
        self._area = pose.project(game_extent_mm(self.board.geometry, tallest, pose.spec))
        advice = self._stacks.view_note()
        if advice and not self._told:
            self._told = True
            self._note = advice if self._note is None else f"{self._note}; {advice}"

    def _resized(self, image: Any) -> bool:
        """Follow the camera to the frame size of ``image`` (it came back at another, a phone
        was turned): the same view at another resolution keeps the board's pose, scaled; another
        view is searched for the board again, unless it was calibrated; whether such frames can
        be read."""
        from vision.tracking import BoardTracker

        pose = self._tracker.pose
        (w, h), (was_w, was_h) = (image.shape[1], image.shape[0]), pose.camera.image_size
        news = f"the camera's frames are now {w}x{h}, not {was_w}x{was_h}"
        if abs(w * was_h - h * was_w) <= 0.01 * w * was_h:  # the same view, resized
            pose = replace(pose, camera=pose.camera.scaled((w, h)))
            self._tracker = BoardTracker(pose)
            self._use(pose)
            self._note = f"{news}: the board's pose is scaled to them"
            return True
        if self.calibration is None:
            self._tracker, self._next_search = None, 0.0
            self._note = f"{news}: finding the board again"
            return True
        if self._told_size != (w, h):
            self._told_size = (w, h)
            self._note = (f"{news}, and the board was calibrated at {was_w}x{was_h}: they are not read until the "
                          "camera gives those again (or calibrate the board at this size and --resume the game)")
        return False

    def _take_note(self) -> str | None:
        note, self._note = self._note, None
        return note

    def read(self, frame: Frame) -> Reading:
        image = frame.image
        if self._tracker is not None and (image.shape[1], image.shape[0]) != self._tracker.pose.camera.image_size:
            if not self._resized(image):
                w, h = self._tracker.pose.camera.image_size
                return Reading(None, reason=f"the frames are {image.shape[1]}x{image.shape[0]}, the board was "
                                            f"calibrated at {w}x{h}", note=self._take_note())
        if self._tracker is None:
            if frame.t < self._next_search:
                return Reading(None, status="lost")
            status = self._start(image)
            if status == "lost":
                self._next_search = frame.t + SEARCH_EVERY_S  # a full search is slow: not on every frame
                return Reading(None, status="lost")
        else:
            track = self._tracker.update(image)
            status = track.status
            if status == "lost":
                return Reading(None, status="lost")
            if status == "moved":
                self._use(track.pose)
        reading = self._stacks.read(image)
        pose = self._tracker.pose
        note = self._take_note()
        if not reading.readable:
            return Reading(None, hand=reading.hand, reason=None if reading.hand else reading.reason, status=status,
                           overlay=pose, note=note, area=self._area)
        if self._set_up is not None:
            from vision.discs import discs_note

            # Where the view hides heights the players have been told to move the camera first.
            off = None if self._stacks.view_note() else discs_note(reading.observation, self._set_up, pose.spec)
            self._set_up = None
            if off:
                note = off if note is None else f"{note}; {off}"
        return Reading(reading.observation, status=status, overlay=pose, note=note, area=self._area)
