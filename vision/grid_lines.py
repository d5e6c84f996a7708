"""Rough board homographies from the printed lines themselves, for a hex board whose outline
cannot be seen (printed without a border, its corner points taken by pieces).

The board finder's other hypotheses come from the board's outline.  Here the grid is found
from its lines alone: line segments (OpenCV's LSD) are grouped by vanishing point; three
vanishing points on one horizon are the hex grid's three directions of lines.  Taking the
horizon to infinity and the three directions to 60 degrees apart gives the board plane up to
scale and shift (a metric rectification); the lines' positions across each direction then
repeat with the lines' spacing (the scale), and the window of seven lines in each direction
whose middle lines meet at one point is the board (the shift).

Coordinates: image pixels (x right, y down) in, board frame millimetres (as
:mod:`rules.geometry`) out; a homography maps board mm to pixels, as
:func:`vision.board_finder.find_grid` uses them.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from vision.board_model import BoardModel
from vision.planar import apply_homography, to_width

SEGMENT_WIDTH = 1280
"""Segments are detected in the frame scaled to this width (pixels)."""
MIN_SEGMENT = 0.012
"""Shortest segment used, as a share of the frame's width: shorter ones' directions are too
uncertain to tell their vanishing point."""
ANGLE_TOLERANCE_DEG = 1.0
"""A segment points at a vanishing point when its direction is within this of the direction to it."""
VANISHING_POINTS = 6
"""At most this many vanishing points are looked for: the grid's three, and up to three of a
table's grain or the board's slab, which can be stronger (a wooden table's grain took two of
four places from the grid on a board printed without a border)."""
RANSAC_TRIALS = 400
HORIZON = 0.05
"""Three vanishing points lie on one horizon when the determinant of their unit vectors
(frame centred) is at most this."""
WINDOWS = 8
"""Of each direction's windows of the board's lines, the ones holding the most segment length
that :func:`_placement` tries to meet at one point.  Segments near the horizon (a table's grain)
lie thousands of line spacings out in the rectified plane: trying every window there took
minutes."""
PERIOD_SHARE = 0.8
"""The lines' spacing is the longest period whose score is at least this share of the best (a
period of half the spacing fits the lines as well)."""


def segments(image: np.ndarray) -> np.ndarray:
    """N x 4 line segments (x1, y1, x2, y2, full-resolution px) of a BGR or grey frame."""
    w = image.shape[1]
    small, scale = to_width(image, SEGMENT_WIDTH)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    found = cv2.createLineSegmentDetector().detect(grey)[0]
    if found is None:
        return np.zeros((0, 4))
    s = found.reshape(-1, 4).astype(float) / scale
    return s[np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]) >= MIN_SEGMENT * w]


def vanishing_points(segs: np.ndarray, count: int = VANISHING_POINTS,
                     seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Up to ``count`` vanishing points (homogeneous, unit norm), each with the indices of the
    segments pointing at it, strongest (most segment length) first.  RANSAC over pairs of
    segments, refined by least squares; each point's segments are taken out before the next."""
    rng = np.random.default_rng(seed)
    ends = np.concatenate([segs.reshape(-1, 2, 2), np.ones((len(segs), 2, 1))], axis=2)
    lines = np.cross(ends[:, 0], ends[:, 1])
    lines /= np.linalg.norm(lines[:, :2], axis=1, keepdims=True)
    mid = segs.reshape(-1, 2, 2).mean(axis=1)
    d = segs[:, 2:] - segs[:, :2]
    length = np.linalg.norm(d, axis=1)
    d /= length[:, None]
    tolerance = math.sin(math.radians(ANGLE_TOLERANCE_DEG))

    def pointing(v: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """|sin| of the angle between each segment of ``idx`` and the direction to each ``v``."""
        u = v[..., None, :2] - mid[idx] * v[..., None, 2:3]
        return np.abs(u[..., 0] * d[idx, 1] - u[..., 1] * d[idx, 0]) / (np.linalg.norm(u, axis=-1) + 1e-12)

    left = np.ones(len(segs), bool)
    out = []
    for _ in range(count):
        idx = np.flatnonzero(left)
        if len(idx) < 4:
            break
        pairs = rng.choice(idx, size=(RANSAC_TRIALS, 2), p=length[idx] / length[idx].sum())
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        v = np.cross(lines[pairs[:, 0]], lines[pairs[:, 1]])
        v /= np.linalg.norm(v, axis=1, keepdims=True) + 1e-12
        score = ((pointing(v, idx) < tolerance) * length[idx]).sum(axis=1)
        members = idx[pointing(v[int(np.argmax(score))], idx) < tolerance]
        if len(members) < 3:
            break
        vp = np.linalg.eigh((lines[members] * length[members, None]).T @ lines[members])[1][:, 0]
        members = idx[pointing(vp, idx) < tolerance]
        out.append((vp, members))
        left[members] = False
    return out


def _board_directions(model: BoardModel) -> tuple[np.ndarray, list[np.ndarray]]:
    """The grid's line normals per direction (D x 2, board frame) and each direction's line
    positions along its normal (mm), the border left out."""
    border = np.zeros(len(model.lines), bool)
    border[model.sample_line[model.on_border]] = True
    normals, positions = [], []
    for k in range(int(model.line_direction.max()) + 1):
        mine = model.lines[(model.line_direction == k) & ~border]
        n = mine[0, :2]
        sign = np.sign(mine[:, :2] @ n)
        normals.append(n)
        positions.append(np.sort(-mine[:, 2] * sign))
    return np.array(normals), positions


def _rectification(vps: list[np.ndarray], image_size: tuple[int, int]) -> np.ndarray | None:
    """Pixels -> a plane where ``vps`` lie at infinity (an affine view of the board plane), or None."""
    w, h = image_size
    centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1.0]])
    V = np.array([centre @ v for v in vps])
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    if abs(np.linalg.det(V)) > HORIZON:
        return None
    horizon = np.linalg.svd(V)[2][-1]
    if abs(horizon[2]) < 1e-9:
        return None
    return np.array([[1, 0, 0], [0, 1, 0], horizon / horizon[2]]) @ centre


def _metric(directions: list[np.ndarray], board_normals: np.ndarray) -> np.ndarray | None:
    """2 x 2 map from the board frame to the rectified plane (up to scale) that takes the
    board's three line directions to ``directions``, or None."""
    u = np.stack([-board_normals[:, 1], board_normals[:, 0]], axis=1)  # along the lines
    basis = np.column_stack([u[0], u[1]])
    alpha, beta = np.linalg.solve(basis, u[2])
    cross = lambda a, b: a[0] * b[1] - a[1] * b[0]  # noqa: E731 - 2-D cross product
    c12 = cross(directions[1], directions[2])
    if abs(c12) < 1e-9 or abs(beta) < 1e-9:
        return None
    b = -alpha * cross(directions[0], directions[2]) / (beta * c12)  # alpha a d0 + beta b d1 parallel to d2
    M = np.column_stack([directions[0], b * directions[1]]) @ np.linalg.inv(basis)
    return M if abs(np.linalg.det(M)) > 1e-9 else None


def _period(positions: list[np.ndarray], weights: list[np.ndarray]) -> float | None:
    """The spacing at which the segments' positions across their lines repeat best (see :data:`PERIOD_SHARE`)."""
    every = np.concatenate(positions)
    span = float(np.percentile(every, 95) - np.percentile(every, 5))
    if span <= 0:
        return None
    periods = np.exp(np.linspace(math.log(span / 14), math.log(span / 2.5), 500))
    angles = [(2 * math.pi / periods)[:, None] * x[None, :] for x in positions]
    score = sum(np.hypot(np.cos(a) @ w, np.sin(a) @ w) for a, w in zip(angles, weights))
    return float(periods[np.flatnonzero(score >= PERIOD_SHARE * score.max()).max()])


def _placement(positions: list[np.ndarray], weights: list[np.ndarray], period: float, normals: np.ndarray,
               board_positions: list[np.ndarray]) -> np.ndarray | None:
    """Where the board's centre is in the rectified plane: each direction's window of the
    board's lines over the segments' lines, the windows chosen so that the board's centre
    lines meet at one point and cover the most segment length; None if none do."""
    options = []
    for x, w, board in zip(positions, weights, board_positions):
        count = len(board)
        phase = np.angle((w * np.exp(2j * math.pi * x / period)).sum()) * period / (2 * math.pi)
        j = np.round(np.clip((x - phase) / period, -1e12, 1e12)).astype(np.int64)  # each segment's line
        order = np.argsort(j)
        j, total = j[order], np.concatenate([[0.0], np.cumsum(w[order])])
        # Windows of the board's lines holding at least one segment's line, the best few.
        starts = np.unique((j[:, None] - np.arange(count)[None]).ravel())
        covered = total[np.searchsorted(j, starts + count)] - total[np.searchsorted(j, starts)]
        top = np.argsort(-covered, kind="stable")[:WINDOWS]
        centre_line = round(-board[0] / (board[1] - board[0]))  # lines from the first to the centre
        options.append([(covered[k], phase + (starts[k] + centre_line) * period) for k in top])
    # Every choice of one window per direction: choice x direction x (covered, middle).
    choices = np.array(list(itertools.product(*options))).reshape(-1, len(options), 2)
    middles = choices[..., 1]
    centres = middles @ np.linalg.pinv(normals).T  # least squares, all choices at once
    meet = np.abs(centres @ normals.T - middles).max(axis=1) < 0.25 * period
    if not meet.any():
        return None
    return centres[np.argmax(np.where(meet, choices[..., 0].sum(axis=1), -np.inf))]


def line_hypotheses(image: np.ndarray, model: BoardModel) -> list[np.ndarray]:
    """Board mm -> pixel homographies of hex grids the frame's line segments show (see the
    module docstring), both handednesses; empty for a board without three line directions."""
    normals, board_positions = _board_directions(model)
    if len(normals) != 3:
        return []
    segs = segments(image)
    if len(segs) < 10:
        return []
    vps = vanishing_points(segs)
    mid = segs.reshape(-1, 2, 2).mean(axis=1)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    size = (image.shape[1], image.shape[0])
    out = []
    for trio in itertools.combinations(range(len(vps)), 3):
        Ha = _rectification([vps[i][0] for i in trio], size)
        if Ha is None:
            continue
        direction = {}
        for i in trio:
            v = Ha @ vps[i][0]
            direction[i] = v[:2] / np.linalg.norm(v[:2])
        for order in (trio, (trio[0], trio[2], trio[1])):
            M = _metric([direction[i] for i in order], normals)
            if M is None:
                continue
            to_board = np.eye(3)
            to_board[:2, :2] = np.linalg.inv(M)
            to_board = to_board @ Ha  # pixels -> board frame, up to scale and shift
            on_board = apply_homography(to_board, mid)
            positions = [on_board[vps[i][1]] @ n for i, n in zip(order, normals)]
            weights = [length[vps[i][1]] for i in order]
            period = _period(positions, weights)
            if period is None:
                continue
            centre = _placement(positions, weights, period, normals, board_positions)
            if centre is None:
                continue
            scale = period / model.spacing_mm
            H = np.linalg.inv(to_board) @ np.array([[scale, 0, centre[0]], [0, scale, centre[1]], [0, 0, 1.0]])
            out.append(H / H[2, 2])
    return out
