"""A hand or arm over the board: find it so its pixels are never read as discs.

Discs are near-neutral (white or black); skin is a warm, moderately saturated colour
(YCrCb's Cr/Cb box that skin of every tone falls in under ordinary light).  Colour
alone cannot tell a hand from a board printed in a skin-like colour (wood), or from a
board under a warm lamp, so a skin-coloured region counts as a hand only where it
hides the board's printed lines: with the pose known, every line of
:func:`vision.board_model.board_model` is at a known place, and a printed line shows
as a sharp dark-light change across it, which skin never has.  A hand is a large
skin-coloured region over the board where the printed lines are gone, and that is not
mostly the stacks read there: discs hide the lines under them too, and a warm lamp can
make white ones skin-coloured (:func:`beyond_stacks`).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import BoardPose
from rules.geometry import board_outline_mm
from vision.board_model import board_model
from vision.stacks import tuned_scale

SKIN_CR = (135, 180)
SKIN_CB = (75, 130)
LINE_CONTRAST = 25
"""Grey levels between the darkest and brightest pixel across a printed line (within
``LINE_REACH_PX``) for the line to count as seen."""
LINE_REACH_PX = 4
MARGIN_PX = 9
"""A hand's mask reaches this far beyond its skin (pixels, the side of a square): its soft
edge and shadow are not discs either."""
STACK_SHARE = 0.5
"""A skin-coloured region that has at least this share of its pixels on the stacks read there
(:func:`beyond_stacks`) is their discs, not a hand: under a warm lamp white discs' tops can
look skin-coloured and, hiding the printed lines, pass for a hand.  Measured on the test
films (2,013 frames with a hand, every second one) and on 220 stills (the benchmark's 100
Abande square scenes and 120 under a warm colour cast): the 1,049 hands the check found had
at most 0.20 of their pixels on the stacks read with nothing hidden (99% under 0.14); the
9 false hands in the stills 0.77-0.86.  On the benchmark's 1000 scenes and 1,960 copies
under 14 camera effects, the frames taken for a hand went from 23 to none."""


def _skin(ycc: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels of a YCrCb image (uint8: 255 on skin, else 0)."""
    return cv2.inRange(ycc, (31, SKIN_CR[0], SKIN_CB[0]), (255, SKIN_CR[1], SKIN_CB[1]))


def line_probes(pose: BoardPose) -> tuple[np.ndarray, np.ndarray]:
    """Pixels on the board's printed lines and the image normal of the line at each (both N x 2)."""
    model = board_model(pose.kind, pose.spec)
    lines = model.lines[model.sample_line]
    tangent = np.stack([-lines[:, 1], lines[:, 0]], axis=1)
    a, b = pose.project(model.samples - tangent), pose.project(model.samples + tangent)
    d = b - a
    normal = np.stack([-d[:, 1], d[:, 0]], axis=1) / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    return pose.project(model.samples), normal


def lines_seen(grey: np.ndarray, centres: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Which probes show a printed line: enough contrast across the line near the expected place."""
    steps = np.arange(-LINE_REACH_PX, LINE_REACH_PX + 1, dtype=np.float32)
    pts = centres[:, None, :] + steps[None, :, None] * normals[:, None, :]
    values = cv2.remap(grey, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32), cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    return (values.max(axis=1) - values.min(axis=1)) >= LINE_CONTRAST


class HandFinder:
    """Finds a hand or arm over the board in frames taken with one pose: what depends only on
    the pose (the board's part of the frame, where its printed lines are) is worked out once.

    ``min_area_px``: smallest skin region that counts (default: four discs' top faces: a
    hand is far larger than any spot of odd colour on the board)."""

    def __init__(self, pose: BoardPose, min_area_px: float | None = None) -> None:
        w, h = pose.camera.image_size
        outline = pose.project(np.array(board_outline_mm(pose.kind, pose.spec)))
        x0, y0 = np.clip(np.floor(outline.min(0)).astype(int), 0, [w - 1, h - 1])
        x1, y1 = np.clip(np.ceil(outline.max(0)).astype(int) + 1, [x0 + 1, y0 + 1], [w, h])
        self.box = int(x0), int(y0), int(x1), int(y1)
        """The board's part of the frame (x0, y0, x1, y1), where hands are looked for."""
        self.scale = tuned_scale(pose)
        """How much the box is shrunk to be looked at (:data:`vision.stacks.TUNED_PX_PER_MM`); the rest of
        the finder's pixels are those of the shrunk box."""
        size = (max(1, round((x1 - x0) * self.scale)), max(1, round((y1 - y0) * self.scale)))
        self.region = np.zeros(size[::-1], np.uint8)
        """Within the box, 255 on the board."""
        self.margin_px = MARGIN_PX / self.scale
        """How far (frame pixels, the side of a square) a hand's mask reaches beyond its skin:
        :data:`MARGIN_PX` in the shrunk box."""
        cv2.fillPoly(self.region, [np.round((outline - [x0, y0]) * self.scale).astype(np.int32)], 255)
        if min_area_px is None:
            c = pose.project(np.array([[0.0, 0.0, 0.0], [pose.spec.piece_diameter_mm / 2, 0.0, 0.0]]))
            min_area_px = 4 * np.pi * float(np.hypot(*(c[1] - c[0]))) ** 2
        self.min_area_px = min_area_px * self.scale ** 2
        centres, normals = line_probes(pose)
        centres = (centres - [x0, y0]) * self.scale
        inside = (centres >= 0).all(axis=1) & (centres[:, 0] < size[0]) & (centres[:, 1] < size[1])
        self.centres, self.normals = centres[inside], normals[inside]
        """The line probes (:func:`line_probes`) inside the box, in the shrunk box's pixels."""

    def mask(self, image: np.ndarray) -> np.ndarray:
        """Pixels (bool, image size) of a hand or arm over the board in a BGR frame; all False
        when there is none."""
        h, w = image.shape[:2]
        x0, y0, x1, y1 = self.box
        crop = image[y0:y1, x0:x1]
        if self.scale < 1.0:
            crop = cv2.resize(crop, self.region.shape[::-1], interpolation=cv2.INTER_AREA)
        # Byte masks (0, 255) with OpenCV's operations: boolean arrays took twice as long.
        skin = cv2.bitwise_and(_skin(cv2.cvtColor(crop, cv2.COLOR_BGR2YCrCb)), self.region)
        skin = cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        out = np.zeros((h, w), bool)
        if not cv2.countNonZero(skin):
            return out
        centres, normals = self.centres, self.normals
        on_skin = skin[centres[:, 1].astype(int), centres[:, 0].astype(int)] > 0
        if not on_skin.any():
            return out
        seen = lines_seen(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), centres[on_skin],
                          normals[on_skin])
        # Skin near printed lines that are gone, away from lines that are still there.
        reach = max(3, int(round(np.sqrt(self.min_area_px / (4 * np.pi)))))
        gone = np.zeros_like(skin)
        kept = np.zeros_like(skin)
        for (u, v), ok in zip(centres[on_skin].astype(int), seen):
            cv2.circle(kept if ok else gone, (int(u), int(v)), reach // 2 if ok else reach, 1, -1)
        hand = (skin > 0) & gone & (1 - kept)
        if np.count_nonzero(hand) < self.min_area_px:  # too little for even one hand: nothing to label
            return out
        # Only the regions' areas are needed: OpenCV's labelling with statistics took 2.2 ms on
        # a board seen as skin under warm light (440 x 640 pixels), the labels alone 0.26.
        count, labels = cv2.connectedComponents(hand, connectivity=8)
        large = np.bincount(labels.ravel(), minlength=count) >= self.min_area_px
        large[0] = False  # the background
        if large.any():
            mask = cv2.dilate(large[labels].astype(np.uint8), np.ones((MARGIN_PX, MARGIN_PX), np.uint8))
            out[y0:y1, x0:x1] = cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST) > 0
        return out


def beyond_stacks(hand: np.ndarray, stacks: np.ndarray, margin_px: float = MARGIN_PX) -> np.ndarray:
    """``hand`` (:meth:`HandFinder.mask`) without its regions whose skin, the mask less its
    margin (``margin_px``: :attr:`HandFinder.margin_px`), is mostly (:data:`STACK_SHARE`) on
    ``stacks`` (bool, image size: the pixels of the stacks read there,
    :meth:`vision.stacks.StackModel.covered`).

    >>> hand = np.zeros((40, 40), bool); hand[2:22, 2:22] = hand[26:40, 26:40] = True
    >>> stacks = np.zeros((40, 40), bool); stacks[24:40, 24:40] = True
    >>> int(beyond_stacks(hand, stacks).sum())  # the small region lies on a stack, the big one does not
    400
    """
    count, labels = cv2.connectedComponents(hand.astype(np.uint8), connectivity=8)
    side = max(1, int(round(margin_px)))
    core = cv2.erode(hand.astype(np.uint8), np.ones((side, side), np.uint8)) > 0  # its skin, roughly
    on = np.bincount(labels[core & stacks], minlength=count)
    size = np.bincount(labels[core], minlength=count)
    keep = on < STACK_SHARE * np.maximum(size, 1)
    keep[0] = False
    return keep[labels]
