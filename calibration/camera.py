"""The pinhole camera model and the board's pose in front of it.

Conventions (shared by the renderer, board finding, reading and the calibration files):

* Board frame: millimetres, origin at the board centre, ``x`` to White's right, ``y``
  away from White, ``z`` up out of the board (see :mod:`rules.geometry`).
* ``rvec``/``tvec`` map board-frame points into the camera frame exactly as OpenCV's
  ``cv2.projectPoints``/``cv2.solvePnP`` use them; pixels are (x right, y down) with
  the centre of the top-left pixel at (0, 0).
* ``dist`` is OpenCV's distortion vector (k1, k2, p1, p2[, k3 ...]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from rules.geometry import DEFAULT_SPEC, BoardKind, BoardSpec, Geometry


@dataclass(frozen=True)
class CameraModel:
    """Intrinsics of one camera at one resolution."""

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]
    """(width, height) in pixels."""

    def __post_init__(self) -> None:
        K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        dist = np.asarray(self.dist, dtype=np.float64).ravel()
        if dist.size not in (0, 4, 5, 8, 12, 14):
            raise ValueError(f"distortion must have 4, 5, 8, 12 or 14 coefficients, not {dist.size}")
        if K[0, 0] <= 0 or K[1, 1] <= 0:
            raise ValueError("focal lengths must be positive")
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "dist", dist if dist.size else np.zeros(5))
        object.__setattr__(self, "image_size", (int(self.image_size[0]), int(self.image_size[1])))

    @classmethod
    def from_fov(cls, image_size: tuple[int, int], hfov_deg: float = 60.0) -> "CameraModel":
        """A distortion-free camera with the given horizontal field of view, centred principal point.

        The default when no intrinsics are known: most phones and webcams are 55-75 degrees."""
        w, h = image_size
        f = (w / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
        K = np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1]])
        return cls(K, np.zeros(5), (w, h))

    def scaled(self, image_size: tuple[int, int]) -> "CameraModel":
        """The same camera at another resolution (same aspect ratio assumed): its frames resized,
        pixel centres kept where they are (``x' = (x + 0.5) * s - 0.5``, as ``cv2.resize`` maps them)."""
        sx, sy = image_size[0] / self.image_size[0], image_size[1] / self.image_size[1]
        return self.resampled(np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]]), image_size)

    def resampled(self, to_new: np.ndarray, image_size: tuple[int, int]) -> "CameraModel":
        """The camera whose frames (``image_size``) are this one's resampled by the pixel map
        ``to_new`` (3 x 3, scale and shift: a resize, a crop)."""
        return CameraModel(np.asarray(to_new, float) @ self.K, self.dist.copy(), image_size)

    def to_dict(self) -> dict[str, Any]:
        return {"K": self.K.tolist(), "dist": self.dist.tolist(), "image_size": list(self.image_size)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CameraModel":
        try:
            return cls(np.array(data["K"], dtype=float), np.array(data["dist"], dtype=float),
                       tuple(data["image_size"]))  # type: ignore[arg-type]
        except (KeyError, TypeError) as e:
            raise ValueError(f"camera model needs K, dist and image_size ({e})") from None


@dataclass(frozen=True)
class BoardPose:
    """Where a board is in front of a camera: enough to project any board-frame point."""

    camera: CameraModel
    rvec: np.ndarray
    tvec: np.ndarray
    kind: BoardKind
    spec: BoardSpec = field(default=DEFAULT_SPEC)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rvec", np.asarray(self.rvec, dtype=np.float64).reshape(3))
        object.__setattr__(self, "tvec", np.asarray(self.tvec, dtype=np.float64).reshape(3))

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixels (N x 2) of board-frame points (N x 3, or N x 2 on the board plane)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, np.shape(points_mm)[-1])
        if pts.shape[1] == 2:
            pts = np.hstack([pts, np.zeros((len(pts), 1))])
        if len(pts) == 0:
            return np.zeros((0, 2))
        return _project(pts, self.rvec, self.tvec, self.camera.K, self.camera.dist)

    def point_pixels(self, geometry: Geometry, height_mm: float = 0.0) -> dict[str, tuple[float, float]]:
        """Every point of a game's geometry in pixels, at ``height_mm`` above the board."""
        pos = geometry.positions_mm(self.spec)
        xyz = np.array([[x, y, height_mm] for x, y in pos.values()])
        return {n: (float(u), float(v)) for n, (u, v) in zip(pos, self.project(xyz))}

    def px_per_mm(self) -> float:
        """How many pixels a millimetre of the board is at its centre (the root of a square
        millimetre's area in the picture): how large the frame shows the board."""
        o, x, y = self.project(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
        (a, b), (c, d) = x - o, y - o
        return float(np.sqrt(abs(a * d - b * c)))

    def camera_position_mm(self) -> np.ndarray:
        """The camera centre in the board frame."""
        R, _ = cv2.Rodrigues(self.rvec)
        return (-R.T @ self.tvec.reshape(3, 1)).ravel()

    def elevation_deg(self) -> float:
        """Angle of the camera above the board plane, seen from the board centre."""
        c = self.camera_position_mm()
        return math.degrees(math.atan2(c[2], math.hypot(c[0], c[1])))

    def to_dict(self) -> dict[str, Any]:
        return {"camera": self.camera.to_dict(), "rvec": self.rvec.tolist(), "tvec": self.tvec.tolist(),
                "kind": self.kind, "spec": self.spec.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BoardPose":
        try:
            kind = data["kind"]
            if kind not in ("hex", "square"):
                raise ValueError(f"board kind must be 'hex' or 'square', not {kind!r}")
            return cls(CameraModel.from_dict(data["camera"]), np.array(data["rvec"], float),
                       np.array(data["tvec"], float), kind, BoardSpec.from_dict(data.get("spec", {})))
        except (KeyError, TypeError) as e:
            raise ValueError(f"board pose needs camera, rvec, tvec and kind ({e})") from None


def look_at_pose(camera: CameraModel, eye_mm: tuple[float, float, float], kind: BoardKind,
                 target_mm: tuple[float, float, float] = (0.0, 0.0, 0.0), roll_deg: float = 0.0,
                 spec: BoardSpec = DEFAULT_SPEC) -> BoardPose:
    """The pose of a camera at ``eye_mm`` (board frame) looking at ``target_mm``.

    The image's "up" is the board's +z as far as possible, turned by ``roll_deg``."""
    eye = np.asarray(eye_mm, float)
    forward = np.asarray(target_mm, float) - eye
    forward /= np.linalg.norm(forward)
    up_hint = np.array([0.0, 0.0, 1.0]) if abs(forward[2]) < 0.999 else np.array([0.0, 1.0, 0.0])
    right = np.cross(forward, up_hint)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    R = np.vstack([right, down, forward])  # rows: camera x (right), y (down), z (forward)
    if roll_deg:
        c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
        R = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]) @ R
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ eye.reshape(3, 1)
    return BoardPose(camera, rvec.ravel(), tvec.ravel(), kind, spec)


def _project(pts: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """``cv2.projectPoints`` (N x 3 points -> N x 2 pixels) without the Jacobian, which OpenCV's
    Python binding always computes (2N x 15 numbers: 80 ms for the stack reader's 100,000
    samples).  The pinhole and OpenCV's radial, tangential and rational terms are written out;
    thin-prism and tilted models (12 and 14 coefficients) go to OpenCV."""
    if dist.size > 8:
        px, _ = cv2.projectPoints(pts, rvec, tvec, K, dist)
        return px.reshape(-1, 2)
    R, _ = cv2.Rodrigues(rvec)
    cam = pts @ R.T + tvec
    x, y = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
    k = np.zeros(8)
    k[:dist.size] = dist
    r2 = x * x + y * y
    radial = (1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]))) / (1 + r2 * (k[5] + r2 * (k[6] + r2 * k[7])))
    xy = 2 * x * y
    xd = x * radial + k[2] * xy + k[3] * (r2 + 2 * x * x)
    yd = y * radial + k[2] * (r2 + 2 * y * y) + k[3] * xy
    return np.column_stack([K[0, 0] * xd + K[0, 2], K[1, 1] * yd + K[1, 2]])  # as OpenCV: no skew
