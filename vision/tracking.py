"""Keep the board's pose through a game: a cheap per-frame check, and re-finding when it moved.

API::

    from vision.tracking import BoardTracker, check_pose
    tracker = BoardTracker(pose, first_frame)      # the pose from find_board / a calibration file
    state = tracker.update(frame)                  # every frame
    state.pose, state.status                       # "steady", "moved" (re-found), or "lost"

:func:`check_pose` probes the printed lines where the pose says they are (a few hundred
1-D probes, no full-frame work): the board is still there if about as many probes see
their line as when it was found.  Hands and newly placed pieces hide some lines, so the
bar is relative.  When the check fails the tracker first re-locks on the grid from the
old pose (a nudge), then searches the whole frame; White's side is kept as the
orientation nearest the old one, so the game goes on.  While nothing is found the old
pose is kept and the status is ``"lost"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

from calibration.camera import BoardPose
from vision.board_finder import (
    PEAKINESS, TOLERANCE_PX, BoardNotFound, _probe, accept, find_grid, grid_frame, lock_on, pose_from_fit,
    rotated, undistort,
)
from vision.board_model import BoardModel, board_model
from vision.planar import apply_homography

PROBES = 300
"""Probes per frame check: plenty to tell a board from a moved one, cheap enough for every frame."""
STEADY_FRACTION = 0.6
"""The board counts as unmoved while this fraction of the found support is still seen."""


@dataclass(frozen=True)
class PoseCheck:
    """How well a frame still matches a pose."""

    support: float
    """Fraction of the probes inside the image that see their line within tolerance."""
    visible: float


@dataclass
class ProbeSet:
    """The probes of one pose, projected once (the pose does not change between frames)."""

    centres: np.ndarray
    normals: np.ndarray

    @classmethod
    def for_pose(cls, pose: BoardPose, model: BoardModel, limit: int = PROBES) -> "ProbeSet":
        pick = np.unique(np.linspace(0, len(model.samples) - 1, min(limit, len(model.samples))).astype(int))
        samples = model.samples[pick]
        lines = model.lines[model.sample_line[pick]]
        tangent = np.stack([-lines[:, 1], lines[:, 0]], axis=1)
        a, b = pose.project(samples - tangent), pose.project(samples + tangent)
        d = b - a
        normals = np.stack([-d[:, 1], d[:, 0]], axis=1) / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
        return cls(pose.project(samples), normals)

    def check(self, image: np.ndarray, radius: float = 4.0) -> PoseCheck:
        """How many probes see their line in ``image`` (probed as the finder does: in its
        :func:`~vision.board_finder.grid_frame`, ``radius`` in that frame's pixels)."""
        image, to_small = grid_frame(image)
        h, w = image.shape[:2]
        m = radius + 12
        c = apply_homography(to_small, self.centres)
        inside = (c[:, 0] > m) & (c[:, 0] < w - 1 - m) & (c[:, 1] > m) & (c[:, 1] < h - 1 - m)
        if not inside.any():
            return PoseCheck(0.0, 0.0)
        off, ratio = _probe(image, c[inside], self.normals[inside], radius)
        good = np.isfinite(off) & (np.abs(np.nan_to_num(off, nan=99.0)) <= TOLERANCE_PX) & (ratio >= PEAKINESS)
        return PoseCheck(float(good.mean()), float(inside.mean()))


def check_pose(image: np.ndarray, pose: BoardPose) -> PoseCheck:
    """How many of the pose's printed lines the frame still shows (see :class:`PoseCheck`)."""
    return ProbeSet.for_pose(pose, board_model(pose.kind, pose.spec)).check(image)


def pose_homography(pose: BoardPose) -> np.ndarray:
    """Board plane (mm) -> undistorted pixels, the homography of a pose."""
    R, _ = cv2.Rodrigues(pose.rvec)
    H = pose.camera.K @ np.column_stack([R[:, 0], R[:, 1], pose.tvec])
    return H / H[2, 2]


def nearest_orientation(pose: BoardPose, previous: BoardPose, model: BoardModel) -> BoardPose:
    """Of the symmetric turns of ``pose``, the one whose White edge is where ``previous`` had it."""
    target = previous.project(model.white_edge[None])[0]
    options = [rotated(pose, k, model.symmetry) for k in range(model.symmetry)]
    return min(options, key=lambda p: float(np.linalg.norm(p.project(model.white_edge[None])[0] - target)))


@dataclass(frozen=True)
class TrackState:
    pose: BoardPose
    status: Literal["steady", "moved", "lost"]
    check: PoseCheck


@dataclass
class BoardTracker:
    """Follows one board through a video (see the module docstring)."""

    pose: BoardPose
    baseline: float = 0.0
    """Support when the pose was found; measured on the first frame if 0."""
    _probes: ProbeSet | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._model = board_model(self.pose.kind, self.pose.spec)
        self._probes = ProbeSet.for_pose(self.pose, self._model)

    def _set(self, pose: BoardPose, frame: np.ndarray) -> PoseCheck:
        self.pose = pose
        self._probes = ProbeSet.for_pose(pose, self._model)
        check = self._probes.check(frame)
        self.baseline = check.support
        return check

    def update(self, frame: np.ndarray) -> TrackState:
        assert self._probes is not None
        check = self._probes.check(frame)
        if self.baseline <= 0:
            self.baseline = check.support
        if check.support >= STEADY_FRACTION * self.baseline and check.support > 0:
            return TrackState(self.pose, "steady", check)
        moved = self.refind(frame)
        if moved is None:
            return TrackState(self.pose, "lost", check)
        check = self._set(moved, frame)
        return TrackState(self.pose, "moved", check)

    def refind(self, frame: np.ndarray) -> BoardPose | None:
        """The board's new pose (orientation kept), or ``None`` if it cannot be seen now."""
        camera = self.pose.camera
        flat = undistort(frame, camera)
        size = (frame.shape[1], frame.shape[0])
        fit = None
        try:
            nudged = lock_on(flat, pose_homography(self.pose), self._model)
            if accept(nudged, self._model.kind) is None and nudged.support >= STEADY_FRACTION * self.baseline:
                fit = nudged
        except (BoardNotFound, np.linalg.LinAlgError, cv2.error):
            pass
        if fit is None:
            try:
                fit = find_grid(flat, self.pose.kind, self.pose.spec)
            except BoardNotFound:
                return None
        try:
            pose = pose_from_fit(fit, self._model, camera, size, self.pose.spec)
        except BoardNotFound:
            return None
        return nearest_orientation(pose, self.pose, self._model)

