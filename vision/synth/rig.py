"""Where the camera is: random but realistic placements of a camera looking at the board.

Players put a phone or webcam on a tripod or a lamp arm at one side of the board,
30-70 degrees above the table, or straight above it for games where stack height
does not matter.  A placement is a :class:`calibration.camera.BoardPose`, so the
renderer and the ground truth use exactly the camera model vision works with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.camera import BoardPose, CameraModel, look_at_pose
from rules.geometry import DEFAULT_SPEC, BoardSpec, Geometry
from vision.board_model import game_extent_mm
from vision.synth.raycast import LensFoldsOver, normalized_rays, undistort_normalized

RESOLUTIONS: tuple[tuple[int, int], ...] = ((1280, 720), (1600, 900), (1920, 1080))


@dataclass(frozen=True)
class RigRange:
    """The ranges random placements are drawn from."""

    elevation_deg: tuple[float, float] = (30.0, 70.0)
    hfov_deg: tuple[float, float] = (50.0, 80.0)
    roll_deg: float = 4.0
    top_down_elevation_deg: tuple[float, float] = (82.0, 90.0)
    top_down_share: float = 0.4
    """How often a flat game (no stacks) is seen from straight above, when not said."""
    fill: tuple[float, float] = (1.0, 1.2)
    """Distance as a multiple of the closest one that keeps every point in view."""


DEFAULT_RIG = RigRange()


def rig_at(elevation_deg: tuple[float, float] | None) -> RigRange:
    """The default ranges with the camera's elevation (degrees above the table) drawn from
    ``elevation_deg`` instead, and never straight above; the default ranges when None.

    >>> rig_at((55.0, 70.0)).elevation_deg, rig_at((55.0, 70.0)).top_down_share, rig_at(None) == DEFAULT_RIG
    ((55.0, 70.0), 0.0, True)
    """
    return DEFAULT_RIG if elevation_deg is None else replace(DEFAULT_RIG, elevation_deg=elevation_deg,
                                                             top_down_share=0.0)


def random_camera(rng: np.random.Generator, size: tuple[int, int] | None = None,
                  rig: RigRange = DEFAULT_RIG) -> CameraModel:
    """A camera: field of view, slightly off-centre principal point and a mild lens distortion."""
    if size is None:
        size = RESOLUTIONS[rng.integers(len(RESOLUTIONS))]
    w, h = size
    hfov = rng.uniform(*rig.hfov_deg)
    f = (w / 2.0) / math.tan(math.radians(hfov) / 2.0)
    cx = (w - 1) / 2.0 + rng.uniform(-0.015, 0.015) * w
    cy = (h - 1) / 2.0 + rng.uniform(-0.015, 0.015) * h
    K = np.array([[f, 0, cx], [0, f * rng.uniform(0.995, 1.005), cy], [0, 0, 1]])
    # Wide lenses barrel more.  A model that folds over inside the frame cannot be ray cast:
    # draw the distortion again.
    wide = (hfov - 50.0) / 30.0
    while True:
        k1 = rng.uniform(-0.05 - 0.12 * wide, 0.03)
        k2 = rng.uniform(-0.01, 0.04)
        p1, p2 = rng.uniform(-0.0015, 0.0015, 2)
        k3 = rng.uniform(-0.005, 0.005)
        camera = CameraModel(K, np.array([k1, k2, p1, p2, k3]), (w, h))
        try:
            normalized_rays(camera)
        except LensFoldsOver:
            continue
        return camera


def _fits(pose: BoardPose, points_mm: np.ndarray, margin: float) -> bool:
    """Whether every point is in front of the camera and inside the frame with a margin (share of the width).

    Points must also lie inside the frame's undistorted cone, since a distortion
    polynomial folds far-off points back into the image."""
    w, h = pose.camera.image_size
    R, _ = cv2.Rodrigues(pose.rvec)
    cam = points_mm @ R.T + pose.tvec
    if np.any(cam[:, 2] <= 1.0):
        return False
    corners_u = np.array([0, w - 1, 0, w - 1], float)
    corners_v = np.array([0, 0, h - 1, h - 1], float)
    xn, yn = undistort_normalized(corners_u, corners_v, pose.camera)
    reach = np.hypot(xn, yn).max()
    if np.any(np.hypot(cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]) > reach):
        return False
    px = pose.project(points_mm)
    m = margin * w
    return bool(np.all((px[:, 0] >= m) & (px[:, 0] <= w - 1 - m) & (px[:, 1] >= m) & (px[:, 1] <= h - 1 - m)))


def random_pose(camera: CameraModel, geometry: Geometry, rng: np.random.Generator, max_height_mm: float,
                top_down: bool = False, rig: RigRange = DEFAULT_RIG, spec: BoardSpec = DEFAULT_SPEC,
                azimuth_deg: float | None = None) -> BoardPose:
    """A camera placement around the board, every point (and its tallest stack) in view.

    ``azimuth_deg`` is where the camera stands seen from the board centre, counter-clockwise
    from White's right (270 = behind White); random (any side) when None."""
    must_see = game_extent_mm(geometry, max_height_mm, spec)
    for _ in range(50):
        az = math.radians(rng.uniform(0, 360) if azimuth_deg is None else azimuth_deg)
        el = math.radians(rng.uniform(*(rig.top_down_elevation_deg if top_down else rig.elevation_deg)))
        target = (rng.uniform(-15, 15), rng.uniform(-15, 15), 0.0)
        roll = rng.uniform(-rig.roll_deg, rig.roll_deg)
        direction = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])

        def pose_at(dist: float) -> BoardPose:
            eye = np.asarray(target) + dist * direction
            return look_at_pose(camera, tuple(eye), geometry.kind, target, roll, spec)

        lo, hi = 200.0, 6000.0
        if not _fits(pose_at(hi), must_see, 0.02):
            continue
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if _fits(pose_at(mid), must_see, 0.02) else (mid, hi)
        pose = pose_at(hi * rng.uniform(*rig.fill))
        if _fits(pose, must_see, 0.01):
            return pose
    raise ValueError("no camera placement keeps the whole board in view")
