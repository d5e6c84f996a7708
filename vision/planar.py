"""Small plane-geometry helpers the board finder and the line-pattern stage share.

Pixels are (x right, y down); a homography H maps homogeneous points of one plane (a board
frame in millimetres, or a frame's pixels) to another as ``H @ (x, y, 1)``.
"""

from __future__ import annotations

import cv2
import numpy as np


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """``pts`` (N x 2) mapped by ``H`` (3 x 3: N x 2; M stacked homographies, M x 3 x 3: M x N x 2).

    >>> apply_homography(np.diag([2.0, 3.0, 1.0]), np.array([[1.0, 1.0], [0.5, -1.0]])).tolist()
    [[2.0, 3.0], [1.0, -3.0]]
    >>> apply_homography(np.stack([np.eye(3), np.diag([1.0, 1.0, 2.0])]), np.array([[4.0, 2.0]])).tolist()
    [[[4.0, 2.0]], [[2.0, 1.0]]]
    """
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ np.swapaxes(H, -1, -2)
    return p[..., :2] / p[..., 2:3]


def to_width(image: np.ndarray, width: int) -> tuple[np.ndarray, float]:
    """``image`` resized to ``width`` pixels wide, its aspect kept (area averaging when it
    shrinks), and the scale from its pixels to the result's; the image itself at scale 1.

    >>> small, scale = to_width(np.zeros((720, 1280, 3), np.uint8), 640)
    >>> small.shape, scale
    ((360, 640, 3), 0.5)
    """
    h, w = image.shape[:2]
    scale = width / w
    if scale == 1:
        return image, 1.0
    return cv2.resize(image, (width, max(1, int(round(h * scale)))),
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR), scale
