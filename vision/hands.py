"""A hand or arm over the board: find it so its pixels are never read as discs.

Discs are near-neutral (white or black) and the board is printed in a few flat
colours; skin is a warm, moderately saturated colour (YCrCb's Cr/Cb box that skin of
every tone falls in under ordinary light).  Some boards are printed in a skin-like
colour (wood), so a pixel counts as skin only when it is also far from every colour
the board shows in this frame (sampled between the points, where no disc stands).
A skin region larger than a disc over the board is a hand.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import BoardPose
from rules.geometry import Geometry, board_outline_mm

SKIN_CR = (135, 180)
SKIN_CB = (75, 130)
BOARD_DISTANCE = 8.0
"""Chroma distance (Lab a*, b*) from the nearest board colour below which a skin-coloured
pixel is board: lightness is left out, since shading changes it across the board."""


def _skin(ycc: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels of a YCrCb image."""
    return (ycc[..., 1] >= SKIN_CR[0]) & (ycc[..., 1] <= SKIN_CR[1]) & \
        (ycc[..., 2] >= SKIN_CB[0]) & (ycc[..., 2] <= SKIN_CB[1]) & (ycc[..., 0] > 30)


def board_palette(image: np.ndarray, pose: BoardPose, geometry: Geometry, colours: int = 4) -> np.ndarray:
    """The board's colours in this frame (Lab, ``colours`` x 3), sampled between the points and
    along the border."""
    pos = np.array(list(geometry.positions_mm(pose.spec).values()))
    d = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    spacing = float(d.min())
    # Points a little off the middle between neighbours, where no disc reaches.
    offsets = np.array([[0.5, 0.0], [0.0, 0.5], [0.5, 0.5], [-0.5, 0.5]]) * spacing
    pts = (pos[:, None] + offsets[None]).reshape(-1, 2)
    far = np.min(np.hypot(*(pts[:, None] - pos[None]).transpose(2, 0, 1)), axis=1) > 0.45 * spacing
    # ... and along the border, inside the board's edge (frame or margin: no points there).
    outline = np.array(board_outline_mm(pose.kind, pose.spec)) * 0.97
    t = np.linspace(0, 1, 16, endpoint=False)[:, None]
    border = np.vstack([a + t * (b - a) for a, b in zip(outline, np.roll(outline, -1, axis=0))])
    px = pose.project(np.vstack([pts[far], border]))
    h, w = image.shape[:2]
    ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    px = px[ok].astype(int)
    bgr = image[px[:, 1], px[:, 0]].reshape(-1, 1, 3)
    skin = _skin(cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)).ravel()
    if skin.mean() < 0.2:  # a skin-coloured small minority is a hand over the board, not the board's print
        bgr = bgr[~skin]
    if len(bgr) < colours:
        return np.zeros((0, 3), np.float32)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, _, centres = cv2.kmeans(lab, colours, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    return centres


def hand_mask(image: np.ndarray, pose: BoardPose, geometry: Geometry, min_area_px: float | None = None) -> np.ndarray:
    """Pixels (bool, image size) of a hand or arm over the board; all False when there is none.

    ``min_area_px``: smallest skin region that counts (default: four discs' top faces: a
    hand is far larger than any spot of odd colour on the board)."""
    h, w = image.shape[:2]
    outline = pose.project(np.array(board_outline_mm(pose.kind, pose.spec)))
    x0, y0 = np.clip(np.floor(outline.min(0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(outline.max(0)).astype(int) + 1, [x0 + 1, y0 + 1], [w, h])
    region = np.zeros((h, w), np.uint8)
    cv2.fillPoly(region, [np.round(outline).astype(np.int32)], 255)
    skin = np.zeros((h, w), bool)
    skin[y0:y1, x0:x1] = _skin(cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2YCrCb)) & (region[y0:y1, x0:x1] > 0)
    if not skin.any():
        return skin
    palette = board_palette(image, pose, geometry)
    if len(palette):
        ys, xs = np.nonzero(skin)
        lab = cv2.cvtColor(image[ys, xs].reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
        near = np.min(np.linalg.norm(lab[:, None, 1:] - palette[None, :, 1:], axis=2), axis=1) < BOARD_DISTANCE
        skin[ys[near], xs[near]] = False
    mask = cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    if min_area_px is None:
        c = pose.project(np.array([[0.0, 0.0, 0.0], [pose.spec.piece_diameter_mm / 2, 0.0, 0.0]]))
        min_area_px = 4 * np.pi * float(np.hypot(*(c[1] - c[0]))) ** 2
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    keep = [k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] >= min_area_px]
    out = np.isin(labels, keep) if keep else np.zeros((h, w), bool)
    if keep:  # a margin: the hand's soft edge and shadow are not discs either
        out = cv2.dilate(out.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    return out
