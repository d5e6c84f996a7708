"""Is the board still?  Frame differencing with a settle time.

A turn is read only from a board that has stopped changing: hands gone, pieces put
down.  :class:`StillnessDetector` compares each frame with the previous one on a small
blurred grey copy (cheap: ~1 ms at 1280 x 720) and reports when the picture has been
steady for ``settle_s`` seconds.  Slow light changes (flicker, a passing cloud) change
all pixels a little and are tolerated; a hand changes some pixels a lot.  A piece moved
with no hand in view (a time-lapse camera, a recording that dropped the hand's frames)
changes only a small patch: the picture is also compared with the one the board settled
in, and a patch that changed a lot counts as movement (:func:`local_change`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


def motion_fraction(previous: np.ndarray, current: np.ndarray, threshold: float = 18.0) -> float:
    """Share of pixels (0..1) that changed by more than ``threshold`` grey levels.

    Both inputs are small grey images from :func:`thumbnail`.  The global brightness
    change is removed first, so flicker does not count as motion."""
    diff = current.astype(np.float32) - previous.astype(np.float32)
    diff -= float(np.median(diff))
    return float(np.mean(np.abs(diff) > threshold))


def local_change(reference: np.ndarray, current: np.ndarray, where: np.ndarray | None = None, block: int = 3) -> float:
    """The largest mean change (grey levels) over any ``block`` x ``block`` square of two
    :func:`thumbnail` pictures centred in ``where`` (a mask; anywhere if None), the global
    brightness change removed.

    A piece moved with no hand in view (a time-lapse, frames dropped) changes a few such
    squares a lot and too few pixels for :func:`motion_fraction`: a black man moved on a
    dark square of a 640 x 360 picture changes 0.1% of them.

    >>> board = np.full((90, 160), 60, np.uint8)
    >>> moved = board.copy(); moved[40:45, 70:75] = 30
    >>> round(local_change(board, moved), 1), motion_fraction(board, moved) > 0.002
    (30.0, False)
    """
    diff = current.astype(np.float32) - reference.astype(np.float32)
    diff -= float(np.median(diff))
    change = cv2.blur(np.abs(diff), (block, block))
    return float(change.max() if where is None else change[where].max(initial=0.0))


CHANGE_WIDTH = 320
"""The width of the pictures compared with the settled one (pixels): a man placed on the far
side of a 960x540 picture is 2-3 pixels wide at 160."""


def thumbnail(image: np.ndarray, width: int = 160) -> np.ndarray:
    """A small blurred grey copy for motion checks (``width`` pixels wide)."""
    h, w = image.shape[:2]
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(grey, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (5, 5), 0)


@dataclass
class StillnessDetector:
    """Feed frames in time order; :meth:`update` says whether the board has settled."""

    settle_s: float = 0.4
    motion_limit: float = 0.002
    """A frame with more than this share of changed pixels counts as movement."""
    change_limit: float = 8.0
    """A frame that differs from the picture the board settled in by more than this
    (:func:`local_change` on pictures :data:`CHANGE_WIDTH` wide, grey levels) on the board
    (:meth:`watch`), and so did the frame before, counts as movement too, however few pixels
    changed (a camera shaken for a frame does not)."""

    def __post_init__(self) -> None:
        self._previous: np.ndarray | None = None
        self._last_motion: float | None = None
        self._settled: np.ndarray | None = None
        self._where: np.ndarray | None = None
        self._changed = False

    def watch(self, area: np.ndarray | None, size: tuple[int, int]) -> None:
        """Where the board is in frames of ``size`` (width, height): the polygon ``area``
        (pixels, N x 2; its convex hull counts, None: the whole picture).  Only there does a
        change from the settled picture count (a clock or a screen beside the board does not)."""
        if area is None:
            self._where = None
            return
        w, h = size
        small = (max(1, round(h * CHANGE_WIDTH / w)), CHANGE_WIDTH)
        hull = cv2.convexHull(np.round(np.asarray(area, np.float64) * CHANGE_WIDTH / w).astype(np.int32))
        mask = cv2.fillConvexPoly(np.zeros(small, np.uint8), hull, 1)
        self._where = cv2.dilate(mask, np.ones((9, 9), np.uint8)).astype(bool)

    def update(self, image: np.ndarray, t: float) -> bool:
        """True when the picture has not moved for at least ``settle_s`` up to time ``t``."""
        small = thumbnail(image)
        # Frames of another size (a camera back at another, a phone turned) are a new picture.
        moving = (self._previous is None or self._previous.shape != small.shape
                  or motion_fraction(self._previous, small) > self.motion_limit)
        self._previous = small
        if not moving and self._settled is not None:
            fine = thumbnail(image, CHANGE_WIDTH)
            where = self._where if self._where is not None and self._where.shape == fine.shape else None
            changed = local_change(self._settled, fine, where) > self.change_limit
            moving, self._changed = changed and self._changed, changed
        if moving:
            self._last_motion, self._settled, self._changed = t, None, False
            return False
        still = self._last_motion is not None and t - self._last_motion >= self.settle_s
        if still and self._settled is None:
            self._settled = thumbnail(image, CHANGE_WIDTH)
        return still

    def reset(self) -> None:
        self._previous = None
        self._last_motion = None
        self._settled = None
        self._changed = False
