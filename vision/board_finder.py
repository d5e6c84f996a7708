"""Find the board in a camera frame: its full pose, to sub-pixel accuracy, or a clear error.

API (used by the CLI, the live session and stack reading)::

    from vision.board_finder import find_board, BoardNotFound
    pose = find_board(image, "hex")                      # BoardPose; raises BoardNotFound
    pose = find_board(image, "square", camera, white_side="left",
                      start=(geometry, {"a1": "w", ...}))   # orientation from the pieces

    from vision.tracking import BoardTracker, check_pose
    check_pose(image, pose).support                      # cheap per-frame check
    BoardTracker(pose).update(frame).status              # "steady" | "moved" (re-found) | "lost"

    from vision.board_finder import locate_board
    locate_board(image, "hex").fit.support               # the same, with the grid evidence

``image`` is a BGR ``uint8`` array (as ``cv2.imread`` gives), ``camera`` a
:class:`calibration.camera.CameraModel` for this image size or ``None`` (then the focal
length is estimated from the board's perspective, 60 degrees field of view where that is
not possible, e.g. straight from above, and the lens's radial distortion from how the
printed lines bend).  The returned pose maps the board frame of
:mod:`rules.geometry` (mm, ``x`` to White's right, ``y`` away from White) into the image.

How it works (nothing depends on the board's colours: only on its printed lines):

1. **Outline.** Colour edges (Canny on each channel of the frame, at most 1280 px wide, at three
   sensitivities, small blobs such as printed letters left out) are traced into
   contours; the convex hull of each large one gives rough board homographies in three
   stages: a hexagon (hex side) or quadrilateral (square side) fitted to it, taken as the
   border or as the outermost grid lines; four consecutive corners of a hexagon whose far
   side pieces hide; and a square slab (a side cut by the picture's edge is extended) with
   the border somewhere inside it, its size searched.  The hull bridges the notches
   pieces cut into an outline.  Each stage's hypotheses are ranked by a quick probe; at
   most twelve are locked on in all.  On the hex side, when neither the outlines nor their
   corners give a board, the grid the line segments' own directions and spacing show
   (:mod:`vision.grid_lines`: a board printed without a border) is locked on too, before
   the slabs are.
2. **Lock on the grid.** Each outline hypothesis gives a homography from the printed
   border.  The model's printed lines (:mod:`vision.board_model`) are projected and the
   image probed across each line at many places for the nearest strong colour edge or
   thin line (a line printed or blurred wider, whose two sides give separate edges, by its
   middle where most probes of that line see both sides on one plain ground); the
   homography is refitted to these observations (every observation must lie
   on its line: a linear equation in the inverse homography) with Tukey weights, which
   drop the probes that hit pieces, hands or shadows.  The search window shrinks from
   0.4 of a line spacing to 3 px; the last rounds fit the grid lines alone.  Frames wider
   than :data:`GRID_WIDTH` are locked on downscaled to it, as probing works in pixels.
3. **Verify.** The fit is accepted only if the board looks plausible (in front of the
   camera, convex, seen from above), 80 % of it is in the picture, 40 % (hex) or 50 % (square)
   of the probes see a sharp edge within 1.5 px of their line in at least three quarters of the board,
   every direction of lines is seen at least half as well as the whole (a grid sheared
   along one direction still matches the others), and it beats the grid moved by one line
   in any direction and locked on again; otherwise
   :class:`BoardNotFound`.  The pose must also explain the crossings to within 3 px.
4. **Pose.** The image lines are fitted one by one and crossed at the keypoints (hex
   points, cell corners); ``cv2.solvePnP`` (IPPE) on these crossings and the grid
   homography's keypoints, again without the points it cannot explain, then
   ``cv2.solvePnPRefineLM`` give the pose.
5. **Orientation.** The grid looks the same turned by 60 (90) degrees; White's side is
   chosen by ``white_side`` (the border edge whose bearing from the centre, measured from
   the camera's side and positive to its right, is nearest the side's:
   :data:`calibration.board_file.WHITE_SIDE_BEARINGS`; on the square side only among the
   turns that put the printed dark cells where they are) or, when a known position (e.g. the
   start position) is given and the piece colours are decisive, by where the white and
   black pieces stand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterator, Mapping, Sequence

import cv2
import numpy as np

from calibration.board_file import WHITE_SIDE_BEARINGS, WHITE_SIDES
from calibration.camera import BoardPose, CameraModel
from rules.geometry import DEFAULT_SPEC, BoardKind, BoardSpec, Geometry, square_cells
from vision.board_model import BoardModel, board_model
from vision.grid_lines import line_hypotheses
from vision.planar import apply_homography, to_width

OUTLINE_WIDTH = 1280
"""The outline search works on frames of this width (pixels): wider ones are downscaled to it,
narrower ones upscaled.  The plain band between the border's rim and the grid is only 6-8 px
wide on a board's far side at 1280x720; at half that width it closed up under the smoothing,
and a checked tablecloth's lines then ran through the rim into the grid (15 of 149 square
boards on a cloth were not found at 640).  Frames taken at 640x480 (webcams) are upscaled for
the same reason: on the calibration benchmark at that size, boards not found went from 10 to 5
of 150 square scenes with the camera known (8 and 8 unknown) and from 9 to 9 and 11 to 10 of
100 hex scenes, no pose wrong; finding takes 0.18-0.22 s (median) instead of 0.12-0.14 s."""
GRID_WIDTH = 1920
"""The grid is locked on in frames at most this wide (pixels): wider ones are downscaled to it
and the fit scaled back.  Probing works in pixels (:data:`TOLERANCE_PX`, :data:`FINAL_RADIUS`,
:data:`HALF`), set for printed lines 1-5 px wide; in a 3840x2160 frame the lines are 4-10 px
wide, and on the calibration benchmark at that size (seed 4, 4 scenes a game) 8 of 20 hex
boards were not found and one was returned 306 px off; at 1920x1080 and 2560x1440 all 50 were
found.  See :func:`grid_frame` (a 2560 px wide frame is halved to 1280, one 3840 px wide to 1920)."""
MIN_SUPPORT: dict[BoardKind, float] = {"hex": 0.4, "square": 0.5}
"""Fraction of the probes inside the image that must see their line for a board to count, per
side of the board.  A square grid has look-alikes (a checked tablecloth, the grid slid or
scaled by whole cells): on the calibration benchmark at 640x480 (seeds 4 and 5, 500 square
findings each) wrong fits reached 0.28-0.46 and right ones went down to 0.37.  The hex grid's
three directions of lines leave none: of 800 hex findings (seeds 4 and 5, 640x480 and
1280x720) none with 0.25 or more was wrong by 10 px, but 3 under 0.4 were 4-11 px off,
while at 640x480 the thin far lines leave right fits at 0.4-0.5 (22 of 400), which 0.5
turned away."""
FINAL_RADIUS = 3.0
"""Search window (px) of the last lock-on rounds."""
LATTICE_STEPS = 8
"""At most this many moves of a locked-on grid by one line (:func:`lock_on`); each must see more
of its lines than the last, so it cannot go round in circles.  A grid first locked on where
nearer stacks hide much of the board can lie several lines off, or on the right place seeing
few lines, and climb back one line a move: on the calibration benchmark at 640x480 (seed 5,
Accasta scene 1 from White's side) the true place locked on at 0.24 of its probes, moved a line
off (0.31), two (0.45), and back (0.51, 0.64); stopped after 3 moves, the board was found a row
off, 90 px at worst, and nothing said so.  Only a grid that would be taken for a board
(:data:`MIN_SUPPORT`) moves more than :data:`FREE_STEPS` times: grids locked on elsewhere
climbed on for nothing (at 640x360, seed 4, hex findings over 0.5 s went from 14 of 100 to 23;
with this limit 12).  At 1280x720 (seeds 4 and 5) the median finding takes 0.13-0.15 s as before."""
FREE_STEPS = 3
MAX_TRIES = 6
"""At most this many rough hypotheses are locked on (the costly step), best first."""
MAX_LOCKS = 12
"""At most this many lock-ons in all (each costs up to 50 ms: a board the outlines show is found
in under 0.5 s; only a frame where every stage has to be tried takes longer)."""
MAX_LOCKS_FOUND = 4
"""Once a board is accepted, other hypotheses are locked on only up to this many lock-ons in all
(most lead to the same grid; a better one is rare)."""
GOOD_SUPPORT = 0.7
"""A fit this well supported ends the search early."""
MIN_VISIBLE = 0.8
"""Fraction of the probes that must fall inside the image (else: board not fully in view)."""
MIN_DIRECTION_SHARE = 0.5
"""Every line direction must be seen at least this share as well as the board as a whole (see
:attr:`GridFit.weakest_direction`; a true grid is hidden about evenly, 0.67 at worst on the
benchmark's scenes; a sheared one sees under 0.35)."""
TOLERANCE_PX = 1.5
"""How near its line a probe's edge must be to support it."""
SPECK = 0.015
"""Edge blobs smaller than this share of the frame's width are dropped from the outline search."""
PEAKINESS = 2.5
"""An edge counts only if it is this many times the median edge strength across the probe."""


MIN_ELEVATION_DEG = 12.0
"""Flatter views than this are not a board a camera can read (and are refused as implausible)."""
PIECES_MIN_CORRELATION = 0.6
PIECES_MARGIN = 0.25
"""How clearly the pieces must show White's side before they overrule ``white_side``."""
PIECES_SEPARATION = 0.5
"""Or: the turn that correlates best also separates the white and black tops' brightness
most, and no other turn by more than this share of it.  A correlation does not see how much
brighter: turned a quarter, Dame 100's men land on light squares and white men (199 and 185
grey levels), which correlates 0.78 with the colours, against the right turn's 1.00 (215 and 11)."""
NEAREST_PEAK = 0.5
"""A probe takes the nearest edge at least this strong relative to its strongest."""
HALF = 4
"""Half-width (px) of the window whose centre of edge strength locates a line: both edges of
a thin printed line, or a single colour edge."""
_COARSE = cv2.getGaussianKernel(9, 2.0).ravel().astype(np.float32)


class BoardNotFound(ValueError):
    """No board (of the requested kind) could be found with certainty in the frame."""


@dataclass(frozen=True)
class GridFit:
    """A homography locked on the printed lines, and how well the image supports it."""

    H: np.ndarray
    """Board plane (mm) -> undistorted pixels."""
    support: float
    """Fraction of the probes inside the image that see an edge on their line."""
    visible: float
    """Fraction of the probes inside the image."""
    coverage: int
    """How many of the board's four quadrants have supporting probes."""
    weakest_direction: float
    """Support of the grid lines (border left out) of the direction seen least: a grid sheared
    or slid along one direction of lines still matches the others (a checkerboard's rows
    seen, its columns running diagonally across the cells), so every direction must be seen."""
    observations: np.ndarray
    """S x 2 observed edge positions (px), NaN where a probe saw nothing on its line."""


# --------------------------------------------------------------------------- probing

def _grid_scale(image_size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
    """The pixel map from frames of ``image_size`` to their :func:`grid_frame`, and its size."""
    w, h = image_size
    k = -(-w // GRID_WIDTH)
    return np.array([[1 / k, 0, 0.5 / k - 0.5], [0, 1 / k, 0.5 / k - 0.5], [0, 0, 1.0]]), (w // k, h // k)


def grid_frame(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``image`` shrunk by the smallest whole factor that makes it at most :data:`GRID_WIDTH`
    wide (each pixel the mean of a block: quick, and no pixel straddles two), and the pixel map
    from ``image`` to it (3 x 3; the identity for a frame kept as it is)."""
    to_small, (w, h) = _grid_scale((image.shape[1], image.shape[0]))
    if w == image.shape[1]:
        return image, to_small
    k = image.shape[1] // w
    return cv2.resize(image[:h * k, :w * k], (w, h), interpolation=cv2.INTER_AREA), to_small


def _mapped(fit: GridFit, to: np.ndarray) -> GridFit:
    """A fit in the frame that the pixel map ``to`` (scale and shift) makes of its own."""
    H = to @ fit.H
    return replace(fit, H=H / H[2, 2], observations=apply_homography(to, fit.observations))


def _project_lines(H: np.ndarray, model: BoardModel) -> np.ndarray:
    """Image lines (L x 3, unit normal) of the model's board lines under ``H``."""
    lines = model.lines @ np.linalg.inv(H)
    return lines / np.linalg.norm(lines[:, :2], axis=1, keepdims=True)


def _probe(image: np.ndarray, centres: np.ndarray, normals: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Strongest edge across each probe: (offset along the normal in px, NaN if none; strength ratio).

    See :func:`_probe_lines` (here every edge is taken as it is)."""
    offset, _, ratio, _ = _probe_lines(image, centres, normals, radius)
    return offset, ratio


def _probe_lines(image: np.ndarray, centres: np.ndarray, normals: np.ndarray, radius: float,
                 max_width: np.ndarray | float | None = None, beyond: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Strongest edge across each probe: (offset along the normal in px, NaN if none; the middle
    of the line it is one side of, NaN if none; strength ratio; whether the edge is one colour
    change, which may be a line's side, rather than both sides of a thin line at once).

    The image is read along ``centres + t * normals`` for t in [-radius, radius] px; the
    colour gradient magnitude (all channels) is smoothed so a thin line gives one peak at
    its middle, and the peak is located to sub-pixel by a parabola.

    ``max_width`` (px, per probe or one for all): a printed line up to this wide whose two
    sides give separate peaks (near the camera, or blurred) is located by its middle too:
    an edge peak with the opposite colour change within this distance, on one plain ground,
    is one side of a line, and the line lies midway.  ``None``: no middles.  ``beyond``: a
    probe that sees no edge within the radius looks for a wide line's side up to half that
    width beyond it, and takes a wide line's middle as far off (a fit that slid on to one side
    of every line in the first, wide windows, where middles are not used, is brought back to
    them)."""
    r = max(1, int(math.ceil(radius)))
    wide = 0 if max_width is None else int(math.ceil(float(np.max(max_width))))
    reach = r + min(wide, 3 * HALF) // 2 if beyond else r
    R0 = max(r, 8) + HALF  # the background strength is measured over at least +-8 px
    R = max(R0, min(wide, 3 * HALF) + HALF, reach + 5)  # (read further for a wide line's other side)
    t = np.arange(-R - 2, R + 3, dtype=np.float32)
    xs = (centres[:, 0:1] + t * normals[:, 0:1]).astype(np.float32)
    ys = (centres[:, 1:2] + t * normals[:, 1:2]).astype(np.float32)
    prof = cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    if prof.ndim == 2:
        prof = prof[:, :, None]
    d = prof[:, 2:] - prof[:, :-2]
    mag = np.sqrt(np.einsum("ijk,ijk->ij", d, d))
    mag = 0.25 * mag[:, :-2] + 0.5 * mag[:, 1:-1] + 0.25 * mag[:, 2:]  # t = -R .. R
    coarse = cv2.filter2D(mag, -1, _COARSE[None, :], borderType=cv2.BORDER_REPLICATE)
    k, seen = _nearest_peak(coarse, R, r)
    if reach > r:
        k = np.where(seen, k, _nearest_peak(coarse, R, reach)[0])
    background = np.median(mag[:, R - R0:R + R0 + 1], axis=1)
    offset, total = _centroid(mag, background, k)
    offset = k - R + offset
    middle, one_side = np.full(len(k), np.nan), np.zeros(len(k), bool)
    if max_width is not None:
        middle, one_side = _line_middles(prof, d, coarse, k, R, offset, mag, background,
                                         np.broadcast_to(max_width, k.shape))
    ratio = np.take_along_axis(mag, k[:, None], axis=1).ravel() / (background + 1.0)
    side = (total > 0) & (np.abs(offset) < reach)
    middle = np.where(side & (np.abs(middle) < reach), middle, np.nan)
    offset = np.where((total > 0) & (np.abs(offset) < r), offset, np.nan)
    return offset, middle, ratio, one_side & side


def _nearest_peak(coarse: np.ndarray, R: int, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Per profile (its centre at column R), the column of the blob within +-r nearest the
    centre among the strong ones (at least half the strongest there: a piece's rim beside a
    line must not pull the fit away from it), and whether there is one."""
    win = coarse[:, R - r - 1:R + r + 2]
    inner = win[:, 1:-1]
    peaks = (inner >= win[:, :-2]) & (inner >= win[:, 2:]) & (inner >= NEAREST_PEAK * inner.max(axis=1, keepdims=True))
    distance = np.where(peaks, np.abs(np.arange(-r, r + 1))[None, :], 10 * r + 10)
    return R - r + np.argmin(distance + 1e-3 * (inner.max(axis=1, keepdims=True) - inner), axis=1), peaks.any(axis=1)


def _centroid(mag: np.ndarray, background: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centre of edge strength above the background within +-HALF of column ``k`` (relative to k), and its total."""
    cols = np.clip(k[:, None] + np.arange(-HALF, HALF + 1), 0, mag.shape[1] - 1)
    w = np.clip(np.take_along_axis(mag, cols, axis=1) - background[:, None], 0, None)
    total = w.sum(axis=1)
    return (w * (cols - k[:, None])).sum(axis=1) / np.maximum(total, 1e-6), total


EDGE_PURITY = 0.6
"""A peak is one colour edge (not both sides of a thin line at once) when its smoothed signed
colour change keeps this share of its smoothed strength."""
PARTNER_PEAK = 0.4
"""A line's other side must change the colour back at least this strongly relative to the first."""
SAME_SIDES = 0.25
"""Both sides of a printed line are plain and alike: they differ (and vary) by at most this
share of the line's contrast."""
LINE_WIDTH = 0.2
"""Printed lines are at most this share of the line spacing wide (a checkerboard's next cell
edge, one spacing away, is never taken for a line's other side)."""
MIDDLES_RADIUS = 8.0
"""Probes whose window is at most this wide (px either side: the last lock-on rounds, and every
score of a fit) locate printed lines whose two sides show by their middles.  In the first,
wider rounds a pair of opposite edges is too often a piece's rim and a line beside it: with
middles there, a board of our renderer's looks ray traced by POV-Ray (attangle seed 900 scene
18) was no longer found; without them in the 7 px round, a board printed with 3 mm lines at
1920x1080 (foreign print attangle-2008 seed 920 scene 13) slid 7 px off its lines and on to a
grid 119 px away."""
WIDE_SHARE = 0.5
"""A line is taken as printed wide (located by its middles) where this share of its probes that
see one side of it see both its sides.  Probes where its two sides merge into one peak do not
count: a line 4-6 px wide in the picture shows one peak at its middle on some probes and two
on others."""


def _line_middles(prof: np.ndarray, d: np.ndarray, coarse: np.ndarray, k: np.ndarray, R: int, offset: np.ndarray,
                  mag: np.ndarray, background: np.ndarray, max_width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The middle of the printed line whose one side each offset is on, NaN where it is no line's
    side, and whether each peak is one colour change at all (see :func:`_probe_lines`)."""
    n, T = coarse.shape
    out = np.full(n, np.nan)
    signed = d[:, 1:-1] * 0.5 + 0.25 * (d[:, :-2] + d[:, 2:])  # as mag: t = -R .. R
    taps = np.clip(k[:, None] + np.arange(-4, 5), 0, T - 1)  # _COARSE's 9 taps around the peak
    here = np.einsum("ntc,t->nc", signed[np.arange(n)[:, None], taps], _COARSE)  # the colour change at the peak
    strength = np.linalg.norm(here, axis=1)
    # Only a peak that is one colour change (not both sides of a thin line at once) can be a line's side.
    one_side = np.isfinite(offset) & (strength >= EDGE_PURITY * coarse[np.arange(n), k])
    sel = np.flatnonzero(one_side)
    if not len(sel):
        return out, one_side
    k, strength = k[sel], strength[sel]
    # Along that colour change: a line's other side is the nearest strong change back.
    proj = np.einsum("ntc,nc->nt", signed[sel], here[sel] / np.maximum(strength, 1e-6)[:, None])
    proj = cv2.filter2D(proj, -1, _COARSE[None, :], borderType=cv2.BORDER_REPLICATE)
    local = np.zeros_like(proj, bool)
    local[:, 1:-1] = (proj[:, 1:-1] <= proj[:, :-2]) & (proj[:, 1:-1] <= proj[:, 2:])
    gap = np.abs(np.arange(T)[None, :] - k[:, None])
    partner = local & (proj <= -PARTNER_PEAK * strength[:, None]) & (gap >= 2) & (gap <= max_width[sel, None])
    has = partner.any(axis=1)
    sel, k, partner, gap = sel[has], k[has], partner[has], gap[has]
    if not len(sel):
        return out, one_side
    j = np.argmin(np.where(partner, gap, 10 * T), axis=1)
    # A line lies on one plain ground: the same colour on both sides (not a cell's edge beside a piece's rim).
    lo, hi = np.minimum(k, j), np.maximum(k, j)
    p = prof[sel]
    rows = np.arange(len(sel))
    side = lambda i: p[rows[:, None], np.clip(i[:, None] + 2 + np.arange(3), 0, p.shape[1] - 1)]  # noqa: E731
    before, after = side(lo - 5), side(hi + 3)  # 3 px beyond each edge (prof starts 2 px before mag)
    ink = p[rows, (lo + hi) // 2 + 2]
    b_mean, a_mean = before.mean(axis=1), after.mean(axis=1)
    contrast = np.linalg.norm(ink - 0.5 * (b_mean + a_mean), axis=1)
    spread = np.maximum(np.linalg.norm(before - b_mean[:, None], axis=2).max(axis=1),
                        np.linalg.norm(after - a_mean[:, None], axis=2).max(axis=1))
    line = (np.linalg.norm(b_mean - a_mean, axis=1) <= SAME_SIDES * contrast) & (spread <= SAME_SIDES * contrast)
    other, _ = _centroid(mag[sel], background[sel], j)
    out[sel] = np.where(line, 0.5 * (offset[sel] + (j - R + other)), np.nan)
    return out, one_side


def _probe_model(image: np.ndarray, H: np.ndarray, model: BoardModel, radius: float, step: int = 1,
                 beyond: bool = False):
    """Probe every ``step``-th model sample under ``H``: (centres, normals, offsets, ratios, inside mask).

    Wide printed lines are located by their middles within :data:`MIDDLES_RADIUS` (see
    :func:`_probe_lines`, also for ``beyond``)."""
    h, w = image.shape[:2]
    centres = apply_homography(H, model.samples[::step])
    normals = _project_lines(H, model)[model.sample_line[::step], :2]
    m = radius + 3
    inside = (centres[:, 0] > m) & (centres[:, 0] < w - 1 - m) & (centres[:, 1] > m) & (centres[:, 1] < h - 1 - m)
    offsets = np.full(len(centres), np.nan)
    ratios = np.zeros(len(centres))
    if inside.any():
        width = None
        if radius <= MIDDLES_RADIUS:
            samples, board_normals = model.samples[::step][inside], model.lines[model.sample_line[::step][inside], :2]
            half = 0.5 * model.spacing_mm * board_normals
            span = apply_homography(H, samples + half) - apply_homography(H, samples - half)
            width = LINE_WIDTH * np.linalg.norm(span, axis=1)
        edge, middle, ratios[inside], one_side = _probe_lines(image, centres[inside], normals[inside], radius, width,
                                                              beyond)
        # A line is printed wide where most of its probes that see one side of it see both its
        # sides; elsewhere a pair is a cell's edge beside a piece's rim or another cell's edge.
        line = model.sample_line[::step][inside]
        seen = np.bincount(line, one_side, minlength=len(model.lines))
        paired = np.bincount(line, np.isfinite(middle), minlength=len(model.lines))
        wide = paired >= WIDE_SHARE * np.maximum(seen, 1)
        offsets[inside] = np.where(wide[line] & np.isfinite(middle), middle, edge)
    return centres, normals, offsets, ratios, inside


# --------------------------------------------------------------------------- fitting

def _normaliser(pts: np.ndarray) -> np.ndarray:
    m = pts.mean(axis=0)
    s = math.sqrt(2) / max(np.sqrt(((pts - m) ** 2).sum(axis=1)).mean(), 1e-9)
    return np.array([[s, 0, -s * m[0]], [0, s, -s * m[1]], [0, 0, 1]])


def _fit_homography(H0: np.ndarray, obs: np.ndarray, lines: np.ndarray, c_px: float, rounds: int = 4) -> np.ndarray:
    """Refit H so that every observed image point lies on its board line (Tukey IRLS).

    With G = H^-1, "point o lies on board line L" is L . (G o) = 0: linear in G, so each
    round is one weighted SVD; rows are scaled by the previous round's depth so that the
    residuals are board-plane distances."""
    Ti = _normaliser(obs)
    Tb = np.diag([0.01, 0.01, 1.0])  # board coordinates in units of 100 mm
    o = np.hstack([obs, np.ones((len(obs), 1))]) @ Ti.T
    L = lines @ np.linalg.inv(Tb)
    G = Tb @ np.linalg.inv(H0) @ np.linalg.inv(Ti)
    weights = np.ones(len(obs))
    H = H0
    for _ in range(rounds):
        depth = o @ G[2]
        A = (L[:, :, None] * o[:, None, :]).reshape(len(o), 9) / depth[:, None]
        _, _, vt = np.linalg.svd(A * weights[:, None], full_matrices=False)
        G = vt[-1].reshape(3, 3)
        H = np.linalg.inv(np.linalg.inv(Tb) @ G @ Ti)  # G is in the normalised frames
        img_lines = lines @ np.linalg.inv(H)
        img_lines /= np.linalg.norm(img_lines[:, :2], axis=1, keepdims=True)
        res = np.abs((img_lines * np.hstack([obs, np.ones((len(obs), 1))])).sum(axis=1))
        u = np.clip(res / c_px, 0, 1)
        weights = (1 - u * u) ** 2
        if weights.sum() < 8:
            break
    return H / H[2, 2]


def plausible(H: np.ndarray, model: BoardModel, image_size: tuple[int, int]) -> bool:
    """Whether ``H`` shows the board as a board can look: in front of the camera, seen from
    above (clockwise border on screen), convex, and neither a speck nor far bigger than the frame."""
    return bool(_plausibles(H[None], model, image_size)[0])


def _refine(image: np.ndarray, H: np.ndarray, model: BoardModel, radii: Sequence[float]) -> np.ndarray:
    """Lock ``H`` on the printed lines, probing with shrinking windows."""
    size = (image.shape[1], image.shape[0])
    for r in radii:
        if not plausible(H, model, size):
            raise BoardNotFound("board not found: the grid fit collapsed")
        # (a wide line's sides lie beyond the final rounds' window)
        centres, normals, offsets, ratios, _ = _probe_model(image, H, model, r, beyond=r <= FINAL_RADIUS)
        ok = np.isfinite(offsets) & (ratios >= PEAKINESS * 0.8)
        if r <= FINAL_RADIUS:  # locked on: the grid alone sets the final fit
            ok &= ~model.on_border
        if ok.sum() < 12:
            raise BoardNotFound("board not found: too few grid lines visible")
        obs = centres[ok] + offsets[ok, None] * normals[ok]
        H = _fit_homography(H, obs, model.lines[model.sample_line[ok]], c_px=max(1.5, 0.6 * r))
    if not plausible(H, model, size):
        raise BoardNotFound("board not found: the grid fit collapsed")
    return H


def _spacing_px(H: np.ndarray, model: BoardModel) -> float:
    """The smallest projected distance between neighbouring lines near the board (px)."""
    return float(_spacings_px(H[None], model)[0])


def _spacings_px(Hs: np.ndarray, model: BoardModel) -> np.ndarray:
    """:func:`_spacing_px` of M homographies (M x 3 x 3) at once."""
    pts = np.vstack([model.outline * 0.8, [[0.0, 0.0]]])
    step = model.spacing_mm
    at = apply_homography(Hs, pts)
    dx = np.linalg.norm(apply_homography(Hs, pts + [step, 0]) - at, axis=2)
    dy = np.linalg.norm(apply_homography(Hs, pts + [0, step]) - at, axis=2)
    return np.minimum(dx.min(axis=1), dy.min(axis=1))


def _plausibles(Hs: np.ndarray, model: BoardModel, image_size: tuple[int, int]) -> np.ndarray:
    """:func:`plausible` of M homographies at once (the convexity test only where the rest passes)."""
    p = np.hstack([model.outline, np.ones((len(model.outline), 1))]) @ Hs.transpose(0, 2, 1)
    front = np.all(p[..., 2] > 0, axis=1) | np.all(p[..., 2] < 0, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        poly = p[..., :2] / p[..., 2:3]
        x, y = poly[..., 0], poly[..., 1]
        area = -0.5 * ((x * np.roll(y, -1, axis=1)).sum(axis=1) - (y * np.roll(x, -1, axis=1)).sum(axis=1))
    w, h = image_size
    ok = front & (0.005 * w * h <= area) & (area <= 4.0 * w * h)
    for i in np.flatnonzero(ok):
        ok[i] = cv2.isContourConvex(poly[i].astype(np.float32))
    return ok


def _supporting(offsets: np.ndarray, ratios: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """Which probes see their line: inside the picture, a sharp edge within :data:`TOLERANCE_PX`."""
    return inside & (np.abs(np.nan_to_num(offsets, nan=99)) <= TOLERANCE_PX) & (ratios >= PEAKINESS)


def _evaluate(image: np.ndarray, H: np.ndarray, model: BoardModel) -> GridFit:
    radius = float(np.clip(0.3 * _spacing_px(H, model), 3, 8))
    centres, normals, offsets, ratios, inside = _probe_model(image, H, model, radius)
    good = _supporting(offsets, ratios, inside)
    n_in = max(int(inside.sum()), 1)
    quads = [(np.sign(model.samples[:, 0]) == sx) & (np.sign(model.samples[:, 1]) == sy)
             for sx in (-1, 1) for sy in (-1, 1)]
    coverage = sum(int(good[q].sum() >= 0.15 * max(int((q & inside).sum()), 1)) for q in quads)
    direction = model.line_direction[model.sample_line]
    grid = inside & ~model.on_border
    weakest = min(float(good[grid & (direction == d)].sum()) / max(int((grid & (direction == d)).sum()), 1)
                  for d in range(int(direction.max()) + 1))
    obs = np.where(good[:, None], centres + np.nan_to_num(offsets)[:, None] * normals, np.nan)
    return GridFit(H, float(good.sum()) / n_in, float(inside.mean()), coverage, weakest, obs)


def _lattice_shifts(model: BoardModel) -> list[np.ndarray]:
    """Board-frame translations that move the grid by one line (the ambiguities to rule out)."""
    if model.kind == "hex":
        s = model.spacing_mm * 2 / math.sqrt(3)
        return [np.array([s * math.cos(a), s * math.sin(a)]) for a in np.radians(np.arange(0, 360, 60))]
    c = model.spacing_mm
    return [np.array(v, float) for v in ((c, 0), (-c, 0), (0, c), (0, -c))]


def _translate(H: np.ndarray, v: np.ndarray) -> np.ndarray:
    return H @ np.array([[1, 0, v[0]], [0, 1, v[1]], [0, 0, 1.0]])


def _moved(H: np.ndarray, model: BoardModel) -> list[np.ndarray]:
    """``H`` moved by one line each way (:func:`_lattice_shifts`)."""
    return [_translate(H, v) for v in _lattice_shifts(model)]


def _locked_again(image: np.ndarray, H: np.ndarray, model: BoardModel) -> np.ndarray:
    """``H`` locked on the lines near it (the lock-on's last rounds alone: it is nearly there)."""
    return _refine(image, H, model, [FINAL_RADIUS, FINAL_RADIUS])


def lock_on(image: np.ndarray, H0: np.ndarray, model: BoardModel) -> GridFit:
    """Refine an approximate homography onto the grid and verify it (raises BoardNotFound)."""
    small, to_small = grid_frame(image)
    if small is not image:
        return _mapped(lock_on(small, to_small @ H0, model), np.linalg.inv(to_small))
    r0 = float(np.clip(0.4 * _spacing_px(H0, model), 3, 30))
    radii = [r for r in (r0, r0, r0 / 1.5, r0 / 2, r0 / 3) if r > FINAL_RADIUS] + [FINAL_RADIUS, FINAL_RADIUS]
    fit = _evaluate(image, _refine(image, H0, model, radii), model)
    for step in range(LATTICE_STEPS):  # is the grid a line off? (compared by their plain edges, all read at once)
        if step >= FREE_STEPS and fit.support < MIN_SUPPORT[model.kind]:
            break  # still no board after a few moves: not worth more
        # The grid moved by one line is compared as moved and locked on again: a fit one line
        # off may also be bent a little to match (on the calibration benchmark at 640x480, seed
        # 5, a square board's grid one cell off and up to 11 px further off had 0.51 of its
        # probes, the one cell back 0.45 as moved, the true grid 0.69), but locking on can also
        # bend the true grid away (seed 4, Dame 100 scene 2: one cell off 0.64, the true grid
        # 0.70 as moved, 0.63 locked on, and the board was found one cell off).
        moved = _moved(fit.H, model)
        Hs = [fit.H] + [_locked_again(image, H, model) for H in moved] + moved
        support = _plain_supports(image, Hs, model)
        if support[0] < MIN_SUPPORT[model.kind]:
            # Lines printed wide show no edge on their middle: only their middles tell which
            # lattice position is seen.
            support = [fit.support] + [_evaluate(image, H, model).support for H in Hs[1:]]
        best = 1 + int(np.argmax(support[1:]))
        if support[best] <= support[0] + 0.02:
            break
        fit = _evaluate(image, _locked_again(image, Hs[best], model), model)
    if model.kind == "square":
        fit = _onto_checks(image, fit, model)
    return fit


def _onto_checks(image: np.ndarray, fit: GridFit, model: BoardModel) -> GridFit:
    """``fit`` moved by a cell where the printed checks say it is one off (:data:`CHECK_ROWS_GAIN`).

    On a checked board every cell's edge is a line, and so is the edge of the frame around the
    cells: a grid one cell off can see as many of its lines as the true one.  Its outer row of
    cells then lies on the frame, whose shade does not alternate."""
    for _ in range(2):
        moved = _moved(fit.H, model)
        rows = _check_rows(image, [fit.H] + moved, model)
        if not np.isfinite(rows[0]):
            break
        best = int(np.nanargmax(np.where(np.isfinite(rows[1:]), rows[1:], -np.inf)))
        if not rows[1 + best] > rows[0] + CHECK_ROWS_GAIN:
            break
        fit = _evaluate(image, _locked_again(image, moved[best], model), model)
    return fit


def _check_rows(image: np.ndarray, Hs: Sequence[np.ndarray], model: BoardModel) -> np.ndarray:
    """Per homography of the square side, how well its outer rows and columns of cells show the
    printed checks: the least correlation of their brightness with the checks' (signed as the
    whole board's; rows with fewer than :data:`CHECK_ROW_CELLS` cells in the picture left out).
    NaN where the board as a whole does not show the checks (:data:`CELLS_MIN_CORRELATION`)."""
    i, j = np.divmod(np.arange(100), 10)
    centres = np.column_stack([i - 4.5, j - 4.5]) * model.spacing_mm
    shade = ((i + j) % 2) * 2.0 - 1.0
    xy = (centres[:, None] + _corner_offsets(model.spacing_mm)).reshape(-1, 2)
    gray = _smoothed_gray(image)
    h, w = gray.shape
    out = np.full(len(Hs), np.nan)
    for k, px in enumerate(apply_homography(np.array(Hs, float), xy)):
        inside = ((px >= 0) & (px <= [w - 1, h - 1])).all(axis=1).reshape(-1, 4).all(axis=1)
        values = np.median(_gray_at(gray, px).reshape(-1, 4), axis=1)
        whole = _correlation(values[inside], shade[inside]) if inside.sum() > 10 else 0.0
        if abs(whole) < CELLS_MIN_CORRELATION:
            continue
        rows = [np.sign(whole) * _correlation(values[m & inside], shade[m & inside])
                for m in (i == 0, i == 9, j == 0, j == 9) if (m & inside).sum() >= CHECK_ROW_CELLS]
        out[k] = min(rows, default=np.nan)
    return out


def _plain_supports(image: np.ndarray, Hs: Sequence[np.ndarray], model: BoardModel) -> list[float]:
    """:attr:`GridFit.support` of each homography as :func:`_evaluate` measures it, but every probe
    taking its edge as it is (no line middles)."""
    radii = [float(np.clip(0.3 * d, 3, 8)) for d in _spacings_px(np.array(Hs, float), model)]
    out = []
    for offsets, ratios, inside in _probe_many(image, Hs, model, radii):
        good = _supporting(offsets, ratios, inside)
        out.append(float(good.sum()) / max(int(inside.sum()), 1))
    return out


def accept(fit: GridFit, kind: BoardKind) -> str | None:
    """Why a fit of a board of ``kind`` is not a board (``None`` when it is)."""
    if fit.visible < MIN_VISIBLE:
        return f"board not found: only {fit.visible:.0%} of the board is in the picture"
    if fit.support < MIN_SUPPORT[kind]:
        return f"board not found: the grid lines are not where a board's would be ({fit.support:.0%} seen)"
    if fit.coverage < 3:
        return "board not found: grid lines seen on only part of the board"
    if fit.weakest_direction < MIN_DIRECTION_SHARE * fit.support:
        return (f"board not found: the grid lines of one direction are not where a board's would be "
                f"({fit.weakest_direction:.0%} seen)")
    return None


# --------------------------------------------------------------------------- outline

def _signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _intersect(p1, p2, q1, q2) -> np.ndarray | None:
    a = np.cross(np.append(p1, 1), np.append(p2, 1))
    b = np.cross(np.append(q1, 1), np.append(q2, 1))
    x = np.cross(a, b)
    return None if abs(x[2]) < 1e-9 else x[:2] / x[2]


def _on_frame(poly: np.ndarray, frame: tuple[int, int] | None) -> np.ndarray:
    """Which sides (poly[i] - poly[i+1]) run along the picture's edge: cut off there, not real."""
    if frame is None:
        return np.zeros(len(poly), bool)
    w, h = frame
    q = np.roll(poly, -1, axis=0)
    near = lambda a, v: np.abs(a - v) < 6  # noqa: E731 - tiny local helper (hulls come from a smoothed frame)
    return ((near(poly[:, 0], 0) & near(q[:, 0], 0)) | (near(poly[:, 0], w - 1) & near(q[:, 0], w - 1))
            | (near(poly[:, 1], 0) & near(q[:, 1], 0)) | (near(poly[:, 1], h - 1) & near(q[:, 1], h - 1)))


def fit_polygon(hull: np.ndarray, n: int, frame: tuple[int, int] | None = None) -> np.ndarray | None:
    """An n-gon approximating a convex hull (K x 2): corners found or recovered by extending sides.

    Sides along the picture's edge (``frame`` = (w, h)) are dropped first: a corner outside
    the picture is where its two neighbouring sides meet."""
    peri = cv2.arcLength(hull.astype(np.float32), True)
    poly = None
    for eps in np.geomspace(0.004, 0.08, 14):
        approx = cv2.approxPolyDP(hull.astype(np.float32), eps * peri, True).reshape(-1, 2).astype(float)
        if len(approx) - int(_on_frame(approx, frame).sum()) < n:
            break
        poly = approx
        if len(approx) - int(_on_frame(approx, frame).sum()) == n:
            break
    if poly is None:
        return None
    while len(poly) > n:  # drop a cut or the shortest side, meeting its neighbours where they cross
        cut = _on_frame(poly, frame)
        lengths = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
        i = int(np.argmax(cut)) if cut.any() else int(np.argmin(lengths))
        poly = np.roll(poly, -i, axis=0)  # the side to drop: poly[0] - poly[1]
        p = _intersect(poly[-1], poly[0], poly[1], poly[2])
        if p is None:
            return None
        poly = np.vstack([p, poly[2:]])
    return poly


def clockwise(corners: np.ndarray) -> np.ndarray:
    """Corners (N x 2 px, any order) sorted around their centre the way the finder expects.

    (Clockwise on screen, i.e. negative signed area in pixel coordinates: the board's
    counter-clockwise border seen from above.)"""
    pts = np.asarray(corners, float).reshape(-1, 2)
    c = pts.mean(axis=0)
    pts = pts[np.argsort(np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]))]
    return pts[::-1] if _signed_area(pts) > 0 else pts


def _without_specks(edges: np.ndarray) -> np.ndarray:
    """An edge map without its small separate blobs (the letters and numbers printed on a
    border, dots): dilated, they would cut the plain band around the grid into pieces, and
    the band's outer rim is the outline to find when a patterned table's edges run into it."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(edges, connectivity=8)
    small = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) < SPECK * edges.shape[1]
    small[0] = False
    return np.where(small[labels], 0, edges).astype(np.uint8)


def _sobel_x_every_third(channel: np.ndarray) -> np.ndarray:
    """``abs(cv2.Sobel(channel, CV_32F, 1, 0))[::3, ::3]`` without filtering the whole frame (same values)."""
    p = np.pad(channel, 1, mode="reflect").astype(np.int16)  # OpenCV's default border (reflect 101)
    h, w = channel.shape
    col = lambda dx: p[:, 1 + dx:w + 1 + dx:3]  # noqa: E731 - columns 0, 3, 6, ... shifted by dx
    diff = col(1) - col(-1)
    return np.abs(diff[0:h:3] + 2 * diff[1:h + 1:3] + diff[2:h + 2:3]).astype(np.float32)


def _large_hulls(image: np.ndarray, limit: int = 8) -> list[np.ndarray]:
    """Convex hulls (full-resolution px) of the large edge contours of a frame, largest first.

    Colour edges: Canny on every channel of a smoothed frame (:data:`OUTLINE_WIDTH`), so a border
    that differs from its surroundings only in hue is found too; at three sensitivities,
    because a textured table (wood grain) joins its edges to the board's at the finest."""
    small, scale = to_width(image, OUTLINE_WIDTH)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    chans = cv2.split(small) if small.ndim == 3 else [small]
    meds = [float(np.median(_sobel_x_every_third(ch))) + 4 for ch in chans]
    area_img = small.shape[0] * small.shape[1]
    hulls = []
    for gain in (1.0, 2.5, 6.0):
        edges = np.zeros(small.shape[:2], np.uint8)
        for ch, med in zip(chans, meds):
            edges |= cv2.Canny(ch, 2.0 * gain * med, 5.0 * gain * med, L2gradient=True)
        edges = cv2.dilate(_without_specks(edges), np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        level = []
        for c in contours:
            _, _, bw, bh = cv2.boundingRect(c)
            if bw * bh < 0.01 * area_img:  # too small to be a board (most contours: checks, grain)
                continue
            hull = cv2.convexHull(c).reshape(-1, 2)
            area = cv2.contourArea(hull)
            if len(hull) >= 4 and 0.01 * area_img <= area <= 0.95 * area_img:
                level.append((area, hull.astype(float) / scale))
        level.sort(key=lambda t: -t[0])
        hulls += [hull for _, hull in level[:limit]]
    return hulls


def _as_polygon(hull: np.ndarray, n: int, frame: tuple[int, int]) -> np.ndarray | None:
    """An n-gon for a hull, clockwise on screen, if it covers most of the hull and is convex."""
    poly = fit_polygon(hull, n, frame)
    if poly is None or not cv2.isContourConvex(poly.astype(np.float32)):
        return None
    signed = _signed_area(poly)
    if abs(signed) < 0.7 * cv2.contourArea(hull.astype(np.float32)) or abs(signed) > 20 * frame[0] * frame[1]:
        return None
    return poly[::-1] if signed > 0 else poly


def outline_candidates(image: np.ndarray, n: int, hulls: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """Convex n-gons (full-resolution px, clockwise on screen) that may be the printed border.

    Near-duplicates removed."""
    frame = (image.shape[1], image.shape[0])
    found: list[np.ndarray] = []
    for hull in _large_hulls(image) if hulls is None else hulls:
        poly = _as_polygon(hull, n, frame)
        if poly is None or any(np.abs(poly[:, None] - q[None]).max(axis=2).min(axis=1).max() < 6 for q in found):
            continue
        found.append(poly)
    return found


def _corner_runs(model: BoardModel, hulls: list[np.ndarray]) -> list[np.ndarray]:
    """Homographies from four consecutive corners of a border partly hidden by pieces.

    Stacks near the far edge stick out over the border and bend the outline's far
    side, but the border nearer the camera stays whole: any four consecutive corners
    of a hexagon fix the board plane."""
    out = []
    for hull in hulls:
        for m in range(model.symmetry, model.symmetry + 3):
            poly = fit_polygon(hull, m)
            if poly is None or len(poly) != m:
                continue
            poly = poly[::-1] if _signed_area(poly) > 0 else poly
            for i in range(m):
                H, _ = cv2.findHomography(model.outline[:4], np.roll(poly, -i, axis=0)[:4])
                if H is not None:
                    out.append(H)
    return out


# --------------------------------------------------------------------------- pose

def focal_from_homography(H: np.ndarray, principal: tuple[float, float]) -> float | None:
    """Focal length (px) implied by a plane's homography with square pixels and a known
    principal point; ``None`` where the view is too square-on to tell."""
    T = np.array([[1, 0, -principal[0]], [0, 1, -principal[1]], [0, 0, 1.0]])
    Hc = T @ H
    Hc = Hc / np.linalg.norm(Hc[:, 0])
    (a1, b1, c1), (a2, b2, c2) = Hc[:, 0], Hc[:, 1]
    A = np.array([a1 * a2 + b1 * b2, a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2])
    C = np.array([c1 * c2, c1 * c1 - c2 * c2])
    if float(A @ A) < 1e-18:
        return None
    u = -float(A @ C) / float(A @ A)
    if u <= 0:
        return None
    return 1.0 / math.sqrt(u)


def _camera_for(H: np.ndarray, image_size: tuple[int, int], model: BoardModel) -> CameraModel:
    """The default camera: focal length from the board's perspective when the view is oblique."""
    default = CameraModel.from_fov(image_size, 60.0)
    f = focal_from_homography(H, (default.K[0, 2], default.K[1, 2]))
    if f is None:
        return default
    cam = CameraModel(np.array([[f, 0, default.K[0, 2]], [0, f, default.K[1, 2]], [0, 0, 1]]), np.zeros(5), image_size)
    hfov = math.degrees(2 * math.atan(image_size[0] / 2 / f))
    if not 20 <= hfov <= 120:
        return default
    # Trust it only where the board is clearly tilted (f is unobservable square-on).
    pose = _pose_from_points(model.keypoints, apply_homography(H, model.keypoints), cam, model)
    if pose is None or pose.elevation_deg() > 75:
        return default
    return cam


def _pose_from_points(obj_mm: np.ndarray, img_px: np.ndarray, camera: CameraModel, model: BoardModel,
                      spec: BoardSpec = DEFAULT_SPEC) -> BoardPose | None:
    """Pose from matched board points and *undistorted* pixels, robust to outliers.

    ``cv2.solvePnP`` (IPPE, exact for a plane) on all points, then again without the
    points it cannot explain (reprojection error over 3 px and 3 x the median), then
    Levenberg-Marquardt (``cv2.solvePnPRefineLM``) on the inliers."""
    obj = np.hstack([obj_mm, np.zeros((len(obj_mm), 1))]).astype(np.float64)
    img = img_px.astype(np.float64).reshape(-1, 2)
    keep = np.ones(len(obj), bool)
    rvec = tvec = None
    for _ in range(3):
        if keep.sum() < 6:
            return None
        ok, rvec, tvec = cv2.solvePnP(obj[keep], img[keep], camera.K, None, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            return None
        err = np.linalg.norm(cv2.projectPoints(obj, rvec, tvec, camera.K, None)[0].reshape(-1, 2) - img, axis=1)
        now = err <= max(3.0, 3.0 * float(np.median(err)))
        if np.array_equal(now, keep):
            break
        keep = now
    if keep.sum() < 6 or float(np.median(err[keep])) > 3.0:
        return None
    rvec, tvec = cv2.solvePnPRefineLM(obj[keep], img[keep], camera.K, None, rvec, tvec)
    return BoardPose(camera, rvec.ravel(), tvec.ravel(), model.kind, spec)


def _keypoints_from_lines(fit: GridFit, model: BoardModel) -> tuple[np.ndarray, np.ndarray]:
    """Keypoints where two independently fitted image lines cross: (board mm, px)."""
    img_lines: dict[int, np.ndarray] = {}
    for li in range(len(model.lines)):
        o = fit.observations[(model.sample_line == li) & np.isfinite(fit.observations[:, 0])]
        if len(o) >= 4:
            vx, vy, x0, y0 = cv2.fitLine(o.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            img_lines[li] = np.array([-vy, vx, vy * x0 - vx * y0])
    obj, img = [], []
    for k, (i, j) in zip(model.keypoints, model.keypoint_lines):
        if i in img_lines and j in img_lines:
            x = np.cross(img_lines[i], img_lines[j])
            if abs(x[2]) > 1e-9:
                obj.append(k)
                img.append(x[:2] / x[2])
    return np.array(obj).reshape(-1, 2), np.array(img).reshape(-1, 2)


def pose_from_fit(fit: GridFit, model: BoardModel, camera: CameraModel | None, image_size: tuple[int, int],
                  spec: BoardSpec = DEFAULT_SPEC) -> BoardPose:
    """The metric pose of a verified grid fit (in the fit's arbitrary one-of-N orientation).

    Without a camera, the focal length comes from the board's perspective and the lens's
    radial distortion from how the printed lines bend (:func:`_lens_from_lines`).  Worked out
    in the fit's :func:`grid_frame`, whose pixels the tolerances are set in."""
    to_small, small_size = _grid_scale(image_size)
    if small_size != tuple(image_size):
        small_camera = None if camera is None else camera.resampled(to_small, small_size)
        pose = pose_from_fit(_mapped(fit, to_small), model, small_camera, small_size, spec)
        return replace(pose, camera=camera or pose.camera.resampled(np.linalg.inv(to_small), image_size))
    if camera is None:
        camera, fit = _lens_from_lines(fit, model, image_size)
    cam_undist = CameraModel(camera.K, np.zeros(5), image_size)
    obj, img = _keypoints_from_lines(fit, model)
    if len(obj) < 8:  # too few crossings seen: use the grid homography's keypoints
        obj, img = model.keypoints, apply_homography(fit.H, model.keypoints)
    else:  # both: the crossings follow what the plane's homography cannot (a lens's leftover bend), the
        # homography's keypoints are steadier than two short lines crossing
        obj, img = np.vstack([obj, model.keypoints]), np.vstack([img, apply_homography(fit.H, model.keypoints)])
    pose = _pose_from_points(obj, img, cam_undist, model, spec)
    if pose is None or pose.tvec[2] <= 0 or pose.elevation_deg() < MIN_ELEVATION_DEG:
        raise BoardNotFound("board not found: no consistent pose for the grid")
    return BoardPose(camera, pose.rvec, pose.tvec, model.kind, spec)


LENS_K1_RANGE = (-0.5, 0.3)
"""Radial distortion (OpenCV's k1) searched for when the camera is not known."""
LENS_PRIOR = 0.3
"""px^2: a k1 must straighten the lines by at least this times k1^2 (mean truncated square of
the points' distances from their lines) to be taken: lenses rarely bend much, and a board's
printed lines carry some bend of their own (a piece's rim, a wide line's side)."""


def _straightness(pts: np.ndarray, line: np.ndarray, n_lines: int, c_px: float = 1.0) -> float:
    """How far points lie from the straight line best through their own line's points (mean
    truncated square, px^2; Tukey-weighted line fits): a whole line seen a little off its place
    costs nothing, a line that bends does."""
    w = np.ones(len(pts))
    for _ in range(2):
        sw = np.bincount(line, w, n_lines) + 1e-9
        dx = pts[:, 0] - (np.bincount(line, w * pts[:, 0], n_lines) / sw)[line]
        dy = pts[:, 1] - (np.bincount(line, w * pts[:, 1], n_lines) / sw)[line]
        sxx, syy, sxy = (np.bincount(line, w * a * b, n_lines) for a, b in ((dx, dx), (dy, dy), (dx, dy)))
        angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # each line's direction
        res = dy * np.cos(angle)[line] - dx * np.sin(angle)[line]
        w = (1 - np.clip(np.abs(res) / (2.5 * c_px), 0, 1) ** 2) ** 2
    return float(np.mean(np.minimum(res * res, c_px * c_px)))


def _lens_from_lines(fit: GridFit, model: BoardModel, image_size: tuple[int, int]) -> tuple[CameraModel, GridFit]:
    """A camera for a frame of unknown intrinsics, and the fit with its observations undistorted.

    Focal length from the board's perspective (:func:`_camera_for`); radial distortion k1 by
    the plumb-line rule: printed lines are straight, so the k1 that straightens the observed
    lines best (every line fitted on its own, so a line seen a little off its place does not
    count), a large k1 only on clear evidence (:data:`LENS_PRIOR`)."""
    cam = _camera_for(fit.H, image_size, model)
    seen = np.isfinite(fit.observations[:, 0]) & ~model.on_border
    seen &= np.bincount(model.sample_line[seen], minlength=len(model.lines))[model.sample_line] >= 5
    if seen.sum() < 20:
        return cam, fit
    obs, line = fit.observations[seen], model.sample_line[seen]

    def undistorted(pts: np.ndarray, k1: float) -> np.ndarray:
        return _undistort_points(pts.reshape(-1, 1, 2).astype(np.float64), cam.K, np.array([k1, 0, 0, 0, 0.0]),
                                 (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6)).reshape(-1, 2)

    def cost(k1: float) -> float:
        return _straightness(undistorted(obs, k1), line, len(model.lines)) + LENS_PRIOR * k1 * k1

    grid = np.linspace(*LENS_K1_RANGE, 17)
    i = int(np.argmin([cost(k) for k in grid]))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    for _ in range(10):  # ternary search in the best grid cell's neighbourhood
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        lo, hi = (lo, b) if cost(a) < cost(b) else (a, hi)
    k1 = 0.5 * (lo + hi)
    if not cost(k1) < cost(0.0):
        return cam, fit
    all_seen = np.isfinite(fit.observations[:, 0])
    obs_und = np.full_like(fit.observations, np.nan)
    obs_und[all_seen] = undistorted(fit.observations[all_seen], k1)
    good = all_seen & ~model.on_border
    H = _fit_homography(fit.H, obs_und[good], model.lines[model.sample_line[good]], c_px=1.5)
    lens = CameraModel(cam.K, np.array([k1, 0, 0, 0, 0.0]), image_size)
    return lens, replace(fit, H=H, observations=obs_und)


def _undistort_points(pts: np.ndarray, K: np.ndarray, dist: np.ndarray, criteria: tuple[int, int, float]
                      ) -> np.ndarray:
    """``cv2.undistortPoints`` into pixels of ``K``, iterated until ``criteria``: OpenCV 5 takes
    them as an argument, OpenCV 4 has ``cv2.undistortPointsIter`` for it."""
    if hasattr(cv2, "undistortPointsIter"):
        return cv2.undistortPointsIter(pts, K, dist, None, K, criteria)
    return cv2.undistortPoints(pts, K, dist, None, K, criteria=criteria)


# --------------------------------------------------------------------------- orientation

def rotated(pose: BoardPose, quarter: int, symmetry: int) -> BoardPose:
    """The same pose with the board frame turned by ``quarter`` steps of 360/symmetry degrees."""
    Rz = np.eye(3)
    Rz[:2, :2] = _turning(quarter, symmetry)
    R, _ = cv2.Rodrigues(pose.rvec)
    rvec, _ = cv2.Rodrigues(R @ Rz)
    return BoardPose(pose.camera, rvec.ravel(), pose.tvec, pose.kind, pose.spec)


def orient(pose: BoardPose, model: BoardModel, white_side: str = "near", image: np.ndarray | None = None,
           start: tuple[Geometry, Mapping[str, str]] | None = None) -> tuple[BoardPose, str]:
    """Turn the board frame so that White's side is where the pieces or ``white_side`` say
    (on the square side, among the turns the printed cells allow when ``image`` is given).

    Returns the pose and what decided it: ``"pieces"``, ``"white-side"``, or ``"cells"`` when
    the printed cells rule out the side ``white_side`` names (a camera at the side of a square
    board asked for the near side): the nearest side they allow is taken
    (:func:`white_side_of` names it)."""
    if white_side not in WHITE_SIDES:
        raise ValueError(f"white side must be one of {', '.join(WHITE_SIDES)}, not {white_side!r}")
    options = [rotated(pose, k, model.symmetry) for k in range(model.symmetry)]
    if start is not None and image is not None:
        by_pieces = _orient_by_pieces(options, image, *start)
        if by_pieces is not None:
            return by_pieces, "pieces"
    off = _bearing_gaps(_bearings(pose, model), WHITE_SIDE_BEARINGS[white_side])
    choice = int(np.argmin(off))
    if model.kind == "square" and image is not None:
        fits = _printed_cells_fit(options, image)
        if not fits[choice]:
            off[~fits] = np.inf
            return options[int(np.argmin(off))], "cells"
    return options[choice], "white-side"


def _bearings(pose: BoardPose, model: BoardModel) -> np.ndarray:
    """Per turn of :func:`rotated`, the bearing (degrees, :data:`WHITE_SIDE_BEARINGS`) of White's edge."""
    near, right = _viewer_axes(pose)
    mids = [_turning(k, model.symmetry) @ model.white_edge for k in range(model.symmetry)]
    return np.degrees([math.atan2(m @ right, m @ near) for m in mids])


def _bearing_gaps(bearings: np.ndarray | float, bearing: float) -> np.ndarray:
    """How far (degrees, 0..180) each of ``bearings`` is from ``bearing``."""
    return np.abs((np.asarray(bearings) - bearing + 180.0) % 360.0 - 180.0)


def white_side_note(pose: BoardPose, how: str, asked: str) -> str:
    """How White's side of ``pose`` was chosen (``how``, as :func:`orient` says), for a note to the
    user; ``asked``: the ``white_side`` given."""
    if how == "pieces":
        return "White's side from the pieces"
    if how == "cells":
        side = white_side_of(pose, board_model(pose.kind, pose.spec))
        return f"White's side taken to be the {side} one, as the printed cells rule out the {asked} one"
    return f"White's side taken to be the {asked} one"


def white_side_of(pose: BoardPose, model: BoardModel) -> str:
    """Where ``pose`` puts White's side as the camera sees it, named as ``white_side`` names it
    (the four edges of the square side, the six of the hex side)."""
    names = [s for s, b in WHITE_SIDE_BEARINGS.items() if (b / (360.0 / model.symmetry)).is_integer()]
    bearing = float(_bearings(pose, model)[0])
    return min(names, key=lambda s: float(_bearing_gaps(bearing, WHITE_SIDE_BEARINGS[s])))


def _turning(k: int, symmetry: int) -> np.ndarray:
    """The 2 x 2 turn of the board plane by ``k`` steps of 360/symmetry degrees (:func:`rotated`)."""
    a = 2 * math.pi * k / symmetry
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


VIEWER_OFF_AXIS = 0.1
"""A camera whose foot is this share of its height away from the board's centre is clearly on
one side: that side is the near one.  Nearer straight above, the picture's bottom is."""


def _viewer_axes(pose: BoardPose) -> tuple[np.ndarray, np.ndarray]:
    """Unit board-plane directions (mm frame) towards the camera's side and towards its right."""
    R, _ = cv2.Rodrigues(pose.rvec)
    eye = -R.T @ pose.tvec  # the camera's centre in the board frame
    px = pose.project(np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]]))
    to_board = np.linalg.inv(np.column_stack([px[1] - px[0], px[2] - px[0]]))  # image px -> board (10 mm)
    near = eye[:2] if np.hypot(*eye[:2]) > VIEWER_OFF_AXIS * abs(eye[2]) else to_board @ [0.0, 1.0]
    near = near / np.linalg.norm(near)
    right = np.array([-near[1], near[0]])
    return near, (right if right @ (to_board @ [1.0, 0.0]) > 0 else -right)


CELLS_MIN_CORRELATION = 0.5
"""The printed checks decide the quarter turn of the square side when the cells' brightness
correlates with their shade this strongly (on one turn; the next turn gives the opposite)."""
CHECK_ROWS_GAIN = 0.2
"""A square grid is moved by a cell where the move makes its outer rows of cells show the
printed checks this much better (:func:`_check_rows`, a correlation).  On the calibration
benchmark's 300 square scenes at 1280x720 (seeds 4 and 5), the true grid's outer rows
correlated 0.85 or more, the same grid one cell off 0.63 at most (on the frame one row lies
on, the shade does not alternate); the least gain was 0.36."""
CHECK_ROW_CELLS = 6
"""An outer row of cells counts in :func:`_check_rows` with at least this many cells in the picture."""
CELL_CORNER = 0.38
"""Where a cell's brightness is read: this share of a cell from its centre towards each corner,
beside the disc that may stand on it (a disc's radius is 0.42 of a cell, its corners 0.71)."""


def _printed_cells_fit(options: list[BoardPose], image: np.ndarray) -> np.ndarray:
    """Per option, whether the square side's printed checks lie where it puts them (all True
    when the picture does not tell).

    A quarter turn of the 10 x 10 board swaps its dark and light cells, so the checks fix
    White's side up to half a turn: a camera at the side of the table then never turns the
    board a quarter (which reads Dame 100's points on the light cells, all empty).  Each
    cell's brightness is the median of four places near its corners, beside its disc."""
    cells = square_cells(10)
    spec = options[0].spec
    centres = np.array(list(cells.positions_mm(spec).values()))
    xy = (centres[:, None, :] + _corner_offsets(spec.cell_mm)).reshape(-1, 2)
    xyz = np.column_stack([xy, np.zeros(len(xy))])
    shade = np.array(cells.shades(), float)
    fit = np.array([_correlation(np.median(v.reshape(-1, 4), axis=1), -shade) >= CELLS_MIN_CORRELATION
                    for v in _brightness(options, image, xyz)])
    return fit if fit.any() else np.ones(len(options), bool)


def _brightness(options: list[BoardPose], image: np.ndarray, xyz: np.ndarray) -> list[np.ndarray]:
    """Per option, the smoothed grey level of ``image`` where it puts the board-frame points ``xyz`` (mm)."""
    gray = _smoothed_gray(image)
    return [_gray_at(gray, option.project(xyz)) for option in options]


def _smoothed_gray(image: np.ndarray) -> np.ndarray:
    """``image`` in grey levels, smoothed so that a cell's level is not one pixel's (print grain, noise)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.GaussianBlur(gray, (5, 5), 0)


def _gray_at(gray: np.ndarray, px: np.ndarray) -> np.ndarray:
    """``gray``'s level at the pixels ``px`` (N x 2), the nearest edge's beyond the picture."""
    px = px.astype(np.float32)
    return cv2.remap(gray, px[:, 0:1], px[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).ravel()


def _corner_offsets(cell_mm: float) -> np.ndarray:
    """Where a cell's brightness is read, from its centre (4 x 2 mm): :data:`CELL_CORNER`."""
    return np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]]) * CELL_CORNER * cell_mm


def _correlation(values: np.ndarray, label: np.ndarray) -> float:
    """Pearson correlation, 0 for values that do not vary."""
    return float(np.corrcoef(values, label)[0, 1]) if values.std() > 1e-6 else 0.0


def _orient_by_pieces(options: list[BoardPose], image: np.ndarray, geometry: Geometry,
                      stacks: Mapping[str, str]) -> BoardPose | None:
    """The option under which the image best shows the known position's top colours, if decisive.

    For each option the brightness at the centre of every known stack's top face is
    correlated with its top colour (white +1, black -1): the right turn correlates
    strongly, the others (pieces landing on other pieces, or on the board) do not."""
    pos = geometry.positions_mm(options[0].spec)
    tops = [(pos[n], len(s), s[-1]) for n, s in stacks.items() if s and s[-1] in "wb" and n in pos]
    label = np.array([1.0 if t == "w" else -1.0 for *_, t in tops])
    if len(tops) < 4 or abs(label.sum()) == len(label):
        return None
    h = options[0].spec.piece_height_mm
    xyz = np.array([[x, y, n * h] for (x, y), n, _ in tops])
    scores, separations = [], []
    for v in _brightness(options, image, xyz):
        scores.append(_correlation(v, label))
        separations.append(float(v[label > 0].mean() - v[label < 0].mean()))
    order = np.argsort(scores)[::-1]
    best, second = scores[order[0]], scores[order[1]]
    apart = np.delete(separations, order[0])
    if best >= PIECES_MIN_CORRELATION and (best - second >= PIECES_MARGIN or (
            separations[order[0]] > 0 and apart.max() <= PIECES_SEPARATION * separations[order[0]])):
        return options[int(order[0])]
    return None


# --------------------------------------------------------------------------- entry points

def undistort(image: np.ndarray, camera: CameraModel | None) -> np.ndarray:
    """The frame with lens distortion removed (same K), or the frame itself if there is none."""
    if camera is None or not np.any(camera.dist):
        return image
    mx, my = _undistort_maps(camera.K.tobytes(), camera.dist.tobytes(), camera.image_size)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR)


@lru_cache(maxsize=4)
def _undistort_maps(K: bytes, dist: bytes, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's undistortion maps for one camera (built once: a video keeps its camera)."""
    Km = np.frombuffer(K).reshape(3, 3)
    return cv2.initUndistortRectifyMap(Km, np.frombuffer(dist), None, Km, size, cv2.CV_16SC2)


def _coarse_supports(image: np.ndarray, Hs: Sequence[np.ndarray], model: BoardModel) -> list[float]:
    """Per hypothesis (homography of ``Hs``): the fraction of probes with a sharp edge near their
    line, a quick score for a rough hypothesis."""
    size = (image.shape[1], image.shape[0])
    if not len(Hs):
        return []
    stack = np.array(Hs, float)
    ok = _plausibles(stack, model, size)
    spacing = _spacings_px(stack, model)
    plausible = [H if good else None for H, good in zip(Hs, ok)]
    radii = [float(np.clip(0.15 * d, 2, 6)) for d in spacing]
    n = len(model.samples[::3])
    return [0.0 if p is None else float((np.isfinite(p[0]) & (p[1] >= PEAKINESS)).sum()) / n
            for p in _probe_many(image, plausible, model, radii, step=3)]


def _probe_many(image: np.ndarray, Hs: Sequence[np.ndarray | None], model: BoardModel, radii: Sequence[float],
                step: int = 1) -> list[tuple[np.ndarray, np.ndarray, np.ndarray] | None]:
    """:func:`_probe_model` (edges only) of many homographies, read together where their windows
    match (one call of :func:`_probe` is far cheaper than many): (offsets, ratios, inside) each, None for None."""
    size = (image.shape[1], image.shape[0])
    samples = model.samples[::step]
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None] * len(Hs)
    groups: dict[int, list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]] = {}
    for i, (H, radius) in enumerate(zip(Hs, radii)):
        if H is None:
            continue
        centres = apply_homography(H, samples)
        normals = _project_lines(H, model)[model.sample_line[::step], :2]
        m = radius + 3
        inside = ((centres[:, 0] > m) & (centres[:, 0] < size[0] - 1 - m)
                  & (centres[:, 1] > m) & (centres[:, 1] < size[1] - 1 - m))
        out[i] = (np.full(len(samples), np.nan), np.zeros(len(samples)), inside)
        if inside.any():  # _probe depends on the radius only through its ceiling
            groups.setdefault(max(1, int(math.ceil(radius))), []).append((i, inside, centres[inside], normals[inside]))
    for r, members in groups.items():
        offsets, ratios = _probe(image, np.vstack([c for *_, c, _ in members]),
                                 np.vstack([nm for *_, nm in members]), r)
        start = 0
        for i, inside, c, _ in members:
            out[i][0][inside], out[i][1][inside] = offsets[start:start + len(c)], ratios[start:start + len(c)]
            start += len(c)
    return out


def _slab_hypotheses(image: np.ndarray, model: BoardModel, quad: np.ndarray, keep: int = 2) -> list[np.ndarray]:
    """Homographies for a printed border somewhere inside a square slab seen as ``quad``.

    The slab's size is not known (the hex side is printed on a square board; a square
    side may have a margin beyond its frame), so the border's size relative to the slab
    is searched (and, for the hex side, which pair of slab edges its corners face)."""
    unit = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)  # counter-clockwise, like the model
    Hq, _ = cv2.findHomography(unit, quad)
    if Hq is None:
        return []
    radius = float(np.abs(model.outline).max())
    turns = (0, 1) if model.symmetry == 6 else (0,)
    scored = []
    for k in turns:
        a = k * math.pi / 2
        rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        for fill in np.arange(0.5, 1.001, 0.02):
            scored.append(Hq @ rot @ np.diag([fill / radius, fill / radius, 1.0]))
    scored = list(zip(_coarse_supports(image, scored, model), scored))
    scored.sort(key=lambda t: -t[0])
    return [H for _, H in scored[:keep]]


THREE_CORNER_FOVS_DEG = (45.0, 60.0, 75.0)
"""Horizontal fields of view tried when a square border is rebuilt from three of its corners."""
THREE_CORNER_TRIES = 3
"""At most this many rebuilt borders are locked on (the best few are the same board)."""


def _three_corner_hypotheses(image: np.ndarray, model: BoardModel, quads: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Homographies for square borders of which only three corners are right in ``quads``.

    A checked tablecloth's lines can run into a far corner of the border, and the hull
    then cuts that corner off.  Three corners of a square and the camera fix its plane
    (P3P), so for each quad, each corner left out and a few likely focal lengths, the
    square is rebuilt; the lock-on forgives the focal length's error."""
    size = (image.shape[1], image.shape[0])
    cameras = [CameraModel.from_fov(size, fov).K for fov in THREE_CORNER_FOVS_DEG]
    corners = np.column_stack([model.outline, np.zeros(len(model.outline))])
    out = []
    for quad in quads:
        for lost in range(len(quad)):
            kept = [i for i in range(len(quad)) if i != lost]
            for K in cameras:
                _, rvecs, tvecs = cv2.solveP3P(corners[kept], np.asarray(quad, np.float64)[kept], K, None,
                                               flags=cv2.SOLVEPNP_P3P)
                for rvec, tvec in zip(rvecs, tvecs):
                    if tvec[2, 0] > 0:
                        R, _ = cv2.Rodrigues(rvec)
                        out.append(K @ np.column_stack([R[:, 0], R[:, 1], tvec.ravel()]))
    return out


CORNER_RUN_TRIES = 3
"""At most this many hypotheses from four consecutive corners of a hexagon are locked on (of
the 10 hex boards found from them among 880 pictures, POV-Ray's and our benchmark's at
640x480 to 1280x720, the first found every one)."""
LINE_TRIES = 2
"""At most this many hypotheses from the lines' own pattern (:mod:`vision.grid_lines`) are
locked on, over :data:`MAX_LOCKS`: they are tried when the outlines and their corners gave no
board, before slabs are (which found none of those 880 hex boards, while the lines found 4)."""


def _hypotheses(image: np.ndarray, model: BoardModel) -> Iterator[tuple[list[np.ndarray], bool]]:
    """Rough board homographies worth locking on, in stages from cheap to costly, each with
    whether its lock-ons count towards :data:`MAX_LOCKS`.

    First outlines shaped like the border (taken as the border, or as the outermost grid
    lines); then four consecutive corners of a partly hidden hexagon, or square borders
    rebuilt from three corners of an outline; then, on the hex side, the grid the line
    segments' directions and spacing show (:func:`vision.grid_lines.line_hypotheses`: a
    board printed without a border, whose corner points pieces take); last, square slabs
    with the border somewhere inside.  Each stage is sorted by a quick support score and
    cut to the few best."""
    hulls = _large_hulls(image)
    polygons = outline_candidates(image, model.symmetry, hulls)
    stages = [(lambda: [H for H in (cv2.findHomography(corners, p)[0] for p in polygons
                                    for corners in (model.outline, model.grid_outline)) if H is not None],
               MAX_TRIES, True)]
    if model.symmetry > 4:
        stages.append((lambda: _corner_runs(model, hulls), CORNER_RUN_TRIES, True))
        stages.append((lambda: line_hypotheses(image, model), LINE_TRIES, False))
    else:
        stages.append((lambda: _three_corner_hypotheses(image, model, polygons[:4]), THREE_CORNER_TRIES, True))
    quads = (lambda: polygons) if model.symmetry == 4 else (lambda: outline_candidates(image, 4, hulls))
    stages.append((lambda: [H for quad in quads()[:4] for H in _slab_hypotheses(image, model, quad)], MAX_TRIES, True))
    for stage, tries, budgeted in stages:
        found = stage()
        scored = sorted(((score, i) for i, score in enumerate(_coarse_supports(image, found, model))), reverse=True)
        yield [found[i] for score, i in scored[:tries] if score > 0], budgeted


def find_grid(image: np.ndarray, kind: BoardKind, spec: BoardSpec = DEFAULT_SPEC,
              outline: np.ndarray | None = None) -> GridFit:
    """The best verified grid fit in an (undistorted) frame; ``BoardNotFound`` if none.

    ``outline``: the border's corners in the image (clockwise), to skip the outline search."""
    if image is None or image.size == 0:
        raise BoardNotFound("board not found: empty image")
    small, to_small = grid_frame(image)
    if small is not image:
        corners = None if outline is None else apply_homography(to_small, np.asarray(outline, float))
        return _mapped(find_grid(small, kind, spec, corners), np.linalg.inv(to_small))
    model = board_model(kind, spec)
    if outline is not None:
        H, _ = cv2.findHomography(model.outline, np.asarray(outline, float))
        stages: Iterator[tuple[list[np.ndarray], bool]] = iter([([H] if H is not None else [], True)])
    else:
        stages = _hypotheses(image, model)
    best: GridFit | None = None
    reason = f"board not found: no {'hexagonal' if kind == 'hex' else 'square'} board outline in the picture"
    locks, refused = 0, -1.0
    for hypotheses, budgeted in stages:
        for H0 in hypotheses:
            if (locks >= MAX_LOCKS and budgeted) or (best is not None and locks >= MAX_LOCKS_FOUND):
                break
            locks += 1
            try:
                fit = lock_on(image, H0, model)
            except (BoardNotFound, np.linalg.LinAlgError, cv2.error):
                continue
            why = accept(fit, kind)
            if why is None and (best is None or fit.support > best.support):
                best = fit
            elif why is not None and best is None and fit.support > refused:
                reason, refused = why, fit.support  # the best refused fit says why
            if best is not None and best.support > GOOD_SUPPORT:
                return best
        if best is not None:
            return best
    if best is None:
        raise BoardNotFound(reason)
    return best


def outline_pose(image: np.ndarray, kind: BoardKind, corners: np.ndarray, camera: CameraModel | None = None,
                 white_side: str = "near", spec: BoardSpec = DEFAULT_SPEC) -> tuple[BoardPose, str]:
    """The pose from the border's corners alone (the manual fallback when the grid cannot be seen),
    and what set White's side (as :func:`orient` says)."""
    size = (image.shape[1], image.shape[0])
    if camera is not None and camera.image_size != size:
        camera = camera.scaled(size)
    model = board_model(kind, spec)
    corners = clockwise(corners)
    if camera is not None and np.any(camera.dist):
        corners = cv2.undistortPoints(corners.reshape(-1, 1, 2), camera.K, camera.dist, P=camera.K).reshape(-1, 2)
    H, _ = cv2.findHomography(model.outline, corners)
    if H is None:
        raise BoardNotFound("board not found: the given corners do not form a board outline")
    cam = (CameraModel(camera.K, np.zeros(5), size) if camera is not None else _camera_for(H, size, model))
    pose = _pose_from_points(model.keypoints, apply_homography(H, model.keypoints), cam, model, spec)
    if pose is None:
        raise BoardNotFound("board not found: the given corners do not form a board outline")
    return orient(BoardPose(camera or cam, pose.rvec, pose.tvec, kind, spec), model, white_side, image)


@dataclass(frozen=True)
class FoundBoard:
    """A board found in a frame: its pose, the grid evidence and what set White's side."""

    pose: BoardPose
    fit: GridFit
    orientation: str
    """``"pieces"`` (the known position decided), ``"white-side"`` (the rule decided) or
    ``"cells"`` (the printed cells ruled out the side the rule named: see :func:`orient`)."""


def locate_board(image: np.ndarray, kind: BoardKind, camera: CameraModel | None = None, *,
                 spec: BoardSpec = DEFAULT_SPEC, white_side: str = "near",
                 start: tuple[Geometry, Mapping[str, str]] | None = None,
                 outline: np.ndarray | None = None) -> FoundBoard:
    """:func:`find_board` with the evidence: grid support and how White's side was chosen."""
    if image is None or image.ndim not in (2, 3) or image.size == 0:
        raise BoardNotFound("board not found: empty image")
    if white_side not in WHITE_SIDES:
        raise ValueError(f"white side must be one of {', '.join(WHITE_SIDES)}, not {white_side!r}")
    size = (image.shape[1], image.shape[0])
    if camera is not None and camera.image_size != size:
        camera = camera.scaled(size)
    flat = undistort(image, camera)
    model = board_model(kind, spec)
    try:
        fit = find_grid(flat, kind, spec, outline)
        pose, how = orient(pose_from_fit(fit, model, camera, size, spec), model, white_side, image, start)
    except BoardNotFound as missed:
        if np.median(image) >= DARK_PICTURE * 255:
            raise
        raise BoardNotFound(f"{missed}, in a picture this dark (more light on the board, or a camera not exposed "
                            "for a lamp in view, may help)") from missed
    return FoundBoard(pose, fit, how)


DARK_PICTURE = 0.05
"""A picture whose median brightness (0..1) is under this is named dark when no board is found
in it (it is still searched: a lit board on a black table may be found).  The samples' pictures
are at 0.41-0.63; a Mitsuba still whose camera is exposed for the lamp in view
(samples/reading/lamp-in-view) at 0.013."""


def find_board(image: np.ndarray, kind: BoardKind, camera: CameraModel | None = None, *,
               spec: BoardSpec = DEFAULT_SPEC, white_side: str = "near",
               start: tuple[Geometry, Mapping[str, str]] | None = None,
               outline: np.ndarray | None = None) -> BoardPose:
    """The board's pose in a BGR frame, White's side chosen as described in the module docstring.

    ``start``: a position known to be on the board (geometry, point -> stack), e.g. the
    game's start position, to read White's side from the pieces.  ``outline``: the
    border's corners in the image, given by the user, to skip the outline search.
    Raises :class:`BoardNotFound` (a ``ValueError``) with a one-line reason when there is
    no board of this kind, or it is not fully in view, or the evidence is not conclusive."""
    return locate_board(image, kind, camera, spec=spec, white_side=white_side, start=start, outline=outline).pose
