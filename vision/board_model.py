"""What board finding looks for: the printed lines of one board side, in millimetres.

Both sides are drawn as straight printed lines: the hex side as the segments between
neighbouring points (:func:`rules.geometry.hex_lines`) inside a hexagonal border, the
square side as the 11 + 11 cell boundaries of the 10 x 10 cells inside a frame
(:func:`rules.geometry.board_outline_mm`).  Whatever the colours, every such line is an
edge or a thin line in the image, which is all the finder relies on.

Sample points sit away from the board's points (where pieces stand and point marks are
printed) so that they see the line itself.

>>> m = board_model("hex")
>>> m.symmetry, len(m.keypoints), m.lines.shape[1]
(6, 37, 3)
>>> board_model("square").keypoints.shape
(121, 2)
>>> int(m.line_direction.max()) + 1, int(board_model("square").line_direction.max()) + 1
(3, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rules.geometry import DEFAULT_SPEC, BoardKind, BoardSpec, Geometry, board_outline_mm, hex_geometry, hex_lines


@dataclass(frozen=True)
class BoardModel:
    """The printed lines of one board side and the points they meet at (board frame, mm)."""

    kind: BoardKind
    lines: np.ndarray
    """L x 3 board-plane lines (a, b, c) with a*x + b*y + c = 0 and a^2 + b^2 = 1."""
    samples: np.ndarray
    """S x 2 points on the printed lines where the image is probed."""
    sample_line: np.ndarray
    """S indices into ``lines``: which line each sample lies on."""
    on_border: np.ndarray
    """S booleans: which samples lie on the printed border (its distance from the grid
    varies between printings, so the final fit leaves it out)."""
    line_direction: np.ndarray
    """L indices: which direction each line runs in (0..2 on the hex side, 0..1 on the square
    side).  A grid sheared or slid along one direction still matches the lines of the others,
    so a fit must be seen in every direction."""
    keypoints: np.ndarray
    """P x 2 points where two or more lines cross (hex points, square cell corners)."""
    keypoint_lines: np.ndarray
    """P x 2 indices of two lines crossing at each keypoint."""
    outline: np.ndarray
    """N x 2 corners of the printed border, counter-clockwise (as :func:`board_outline_mm`)."""
    grid_outline: np.ndarray
    """N x 2 corners of the outermost grid lines (the cells' edge on the square side, the
    outer ring of points on the hex side), in the order of ``outline``: where the border's
    outer edge melts into the table, this is often the outline that is seen."""
    white_edge: np.ndarray
    """Midpoint of White's edge of the border (the edge at -y)."""
    spacing_mm: float
    """Distance between neighbouring lines (sets how far the finder may be off and still lock on)."""

    @property
    def symmetry(self) -> int:
        """How many rotations about the centre map the printed lines onto themselves."""
        return len(self.outline)


def _line_through(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    d = (q - p) / np.linalg.norm(q - p)
    n = np.array([-d[1], d[0]])
    return np.array([n[0], n[1], -n @ p])


def _canonical(line: np.ndarray) -> tuple[float, float, float]:
    """A hashable form of a line, the same for both signs of its normal."""
    a, b, c = line
    if a < -1e-9 or (abs(a) <= 1e-9 and b < 0):
        a, b, c = -a, -b, -c
    return (round(a, 6), round(b, 6), round(c, 3))


@lru_cache(maxsize=None)
def board_model(kind: BoardKind, spec: BoardSpec = DEFAULT_SPEC) -> BoardModel:
    """The finder's model of a board side for the given measurements."""
    outline = np.array(board_outline_mm(kind, spec))
    segments: list[tuple[np.ndarray, np.ndarray, tuple[float, ...]]] = []
    if kind == "hex":
        pos = hex_geometry().positions_mm(spec)
        for a, b in hex_lines():
            segments.append((np.array(pos[a]), np.array(pos[b]), (0.36, 0.5, 0.64)))
        spacing = spec.hex_spacing_mm * math.sqrt(3) / 2
        keypoints = np.array(list(pos.values()))
        grid_scale = 3 * spec.hex_spacing_mm / np.linalg.norm(outline[0])
    else:
        c = spec.cell_mm
        for i in range(11):
            v = (i - 5) * c
            ts = tuple((j + f) / 10 for j in range(10) for f in (0.3, 0.7))
            segments.append((np.array([v, -5 * c]), np.array([v, 5 * c]), ts))
            segments.append((np.array([-5 * c, v]), np.array([5 * c, v]), ts))
        spacing = c
        keypoints = np.array([((i - 5) * c, (j - 5) * c) for j in range(11) for i in range(11)], float)
        grid_scale = 5 * c / np.abs(outline).max()
    for i in range(len(outline)):
        segments.append((outline[i], outline[(i + 1) % len(outline)], tuple(np.linspace(0.1, 0.9, 9))))

    index: dict[tuple[float, float, float], int] = {}
    lines, samples, sample_line, on_border = [], [], [], []
    for k, (p, q, ts) in enumerate(segments):
        line = _line_through(p, q)
        key = _canonical(line)
        if key not in index:
            index[key] = len(lines)
            lines.append(line)
        for t in ts:
            samples.append(p + t * (q - p))
            sample_line.append(index[key])
            on_border.append(k >= len(segments) - len(outline))
    lines_a = np.array(lines)
    angles = np.round(np.degrees(np.arctan2(lines_a[:, 1], lines_a[:, 0])) % 180.0, 3) % 180.0
    line_direction = np.unique(angles, return_inverse=True)[1].ravel()
    # Two crossing lines through every keypoint (the first two found, at a real angle).
    kl = []
    for k in keypoints:
        through = [i for i, ln in enumerate(lines_a) if abs(ln[:2] @ k + ln[2]) < 1e-6]
        pair = next((i, j) for i in through for j in through if i < j and abs(lines_a[i, :2] @ lines_a[j, :2]) < 0.9)
        kl.append(pair)
    lowest = np.argsort(outline[:, 1])[:2]
    white_edge = outline[lowest].mean(axis=0)
    return BoardModel(kind, lines_a, np.array(samples), np.array(sample_line), np.array(on_border), line_direction,
                      keypoints, np.array(kl),
                      outline, outline * grid_scale, white_edge, spacing)


def game_extent_mm(geometry: Geometry, max_height_mm: float, spec: BoardSpec = DEFAULT_SPEC) -> np.ndarray:
    """The 3-D points (board frame, mm) that bound what a game shows: the printed border and
    the rims of a stack ``max_height_mm`` tall on every point (a camera must keep them in
    view; a piece moving shows within them).

    >>> from rules.geometry import hex_geometry
    >>> game_extent_mm(hex_geometry(), 42.0).shape, float(game_extent_mm(hex_geometry(), 42.0)[:, 2].max())
    ((154, 3), 42.0)
    """
    outline = np.array(board_outline_mm(geometry.kind, spec))
    pos = np.array(list(geometry.positions_mm(spec).values()))
    r = spec.piece_diameter_mm / 2
    tops = [np.column_stack([pos + off, np.full(len(pos), max_height_mm)]) for off in ((r, 0), (-r, 0), (0, r), (0, -r))]
    return np.vstack([np.column_stack([outline, np.zeros(len(outline))]), *tops])
