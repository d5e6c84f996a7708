"""Draw a found board over its frame, so a user can check the calibration at a glance.

The printed lines and border are drawn where the pose puts them, every point is labelled
with its name, and White's edge is drawn thick with the word "White".
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import BoardPose
from rules.geometry import Geometry, board_outline_mm, hex_geometry, hex_lines, square_cells

GRID = (0, 255, 255)
WHITE_EDGE = (255, 255, 255)
LABEL = (0, 0, 255)


def _segments_mm(pose: BoardPose) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    if pose.kind == "hex":
        pos = hex_geometry().positions_mm(pose.spec)
        return [(pos[a], pos[b]) for a, b in hex_lines()]
    c = pose.spec.cell_mm
    out = []
    for i in range(11):
        v = (i - 5) * c
        out += [((v, -5 * c), (v, 5 * c)), ((-5 * c, v), (5 * c, v))]
    return out


def _polyline(image: np.ndarray, pose: BoardPose, a, b, colour, thickness: int, closed: bool = False) -> None:
    """A straight board segment, drawn through enough points to follow lens distortion."""
    t = np.linspace(0, 1, 16)[:, None]
    pts = pose.project(np.asarray(a) * (1 - t) + np.asarray(b) * t)
    cv2.polylines(image, [np.round(pts * 16).astype(np.int32)], closed, colour, thickness, cv2.LINE_AA, shift=4)


def draw_overlay(image: np.ndarray, pose: BoardPose, geometry: Geometry | None = None) -> np.ndarray:
    """A copy of the BGR frame with the grid, point names and White's side drawn on it."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    scale = max(out.shape[:2]) / 1280
    thick = max(1, round(2 * scale))
    for a, b in _segments_mm(pose):
        _polyline(out, pose, a, b, GRID, thick)
    outline = np.array(board_outline_mm(pose.kind, pose.spec))
    for i in range(len(outline)):
        _polyline(out, pose, outline[i], outline[(i + 1) % len(outline)], GRID, thick)
    lowest = np.argsort(outline[:, 1])[:2]
    a, b = outline[lowest[0]], outline[lowest[1]]
    _polyline(out, pose, a, b, WHITE_EDGE, 4 * thick)
    label_at = pose.project(((a + b) / 2 * 1.08)[None])[0]
    _text(out, "White", label_at, 0.9 * scale, WHITE_EDGE)
    geometry = geometry or (hex_geometry() if pose.kind == "hex" else square_cells(10))
    for name, (u, v) in pose.point_pixels(geometry).items():
        cv2.circle(out, (round(u), round(v)), max(2, thick + 1), LABEL, -1, cv2.LINE_AA)
        _text(out, name, (u + 4 * scale, v - 4 * scale), 0.45 * scale, LABEL)
    return out


def _text(image: np.ndarray, text: str, at, size: float, colour) -> None:
    org = (int(round(at[0])), int(round(at[1])))
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, colour, 1, cv2.LINE_AA)
