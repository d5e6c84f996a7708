"""Where to look for every point's stack in one frame, with the 3-D model of the stacks.

With the board pose known, a stack of height ``h`` at a point is an upright cylinder
(disc diameter and height from :class:`rules.geometry.BoardSpec`) whose top face and
sides land at known pixels.  :class:`StackModel` precomputes, once per pose, where to
look for every point and every height the game allows:

* the *far rim* of the top face at height ``h``, where a stack of height ``h`` has its
  silhouette against whatever is behind it (board, or a stack further back); the *near
  rims* at every layer (the grooves between discs, the foot on the board); and the *side
  silhouette* of every layer: each as pixels at a range of distances across the outline,
  since discs sit a few millimetres off their point;
* the *front band* of every layer: pixels on the side facing the camera, whose colour
  is the layer's colour, and the top face;
* which of those pixels each nearer stack hides, as a function of that stack's height.

:class:`FrameSamples` samples one frame there; :func:`outline_evidence` and
:func:`band_colours` sum up what the samples show.  :mod:`vision.placement` finds where
each stack really stands, :mod:`vision.heights` decides the heights from all that, and
:mod:`vision.reader` reads the colours and leaves ``?`` where nearer stacks hide a layer.

Pixels are (x right, y down) as in :mod:`calibration.camera`; millimetres are the
board frame (origin at the board centre, z up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import BoardPose
from rules.geometry import Geometry, hex_lines
from vision.board_model import board_model
from vision.colours import brightness, channel_sum, log_brightness
from vision.percentiles import nan_percentile, percentile

RIM_ANGLES_DEG = np.linspace(-65.0, 65.0, 11)
"""Where on the far rim to look, degrees from the direction straight away from the camera."""
FRONT_ANGLES_DEG = np.array([-40.0, -20.0, 0.0, 20.0, 40.0])
"""Where on a layer's side to read its colour, degrees from the direction towards the camera."""
FRONT_HEIGHTS = (0.35, 0.65)
"""At what heights (shares of a layer) the reader's samples of a layer's side are: the height
model is fitted on their bands (:mod:`vision.heights`).  The colours are read a little higher
(:data:`COLOUR_HEIGHTS`)."""
COLOUR_HEIGHTS = (0.5, 0.7)
"""At what heights (shares of a layer) a layer's colour is read on its side: above its middle,
away from its foot, where blur and the groove's shade bring in the colour of the disc below
(rendered stacks: the change of colour between two discs is 0.3 mm above their joint when the
lower disc is white), and below its rounded rim, which shades into the top face or the groove
above.  Discs with sharp rims (240 scenes of Attangle, Attangle square and Accasta, seed 303)
read best at 0.45 and 0.75 (36 stacks' discs wrong; at 0.35 and 0.65, as the height evidence
samples them (:data:`FRONT_HEIGHTS`), 44).  With rounded rims, on 695 held-out scenes of our
renderer (seven games, seeds 7 and 8 at 1280x720, seed 72 at 640x480) 0.5 and 0.7 read 112
points wrong where 0.45 and 0.75 read 116 (0.55 and 0.7: 115; 0.5 and 0.8: 116; 0.4 and 0.6:
130), and the same 66 on 405 of POV-Ray's and on slate."""
TUNED_PX_PER_MM = 2.0
"""The most pixels per millimetre of the board (:meth:`calibration.camera.BoardPose.px_per_mm`)
at which the frame is looked at where constants in pixels decide: a larger picture is shrunk
to it for the frame's sharpness (:attr:`FrameSamples.sharpness`) and for finding a hand
(:class:`vision.hands.HandFinder`).  Those constants were measured on frames of 0.7-1.9 px/mm
(640x480 to 1280x720 of the whole board).  At 3840x2160 (3.9-5.3 px/mm) the same rendered
scenes looked softer per pixel, 7 of 90 under :data:`vision.reader.SURE_SHARPNESS` (none at
1280x720), so every confidence was lowered, and on 2 of 30 a hand was found where there was
none (printed lines wider than :data:`vision.hands.LINE_REACH_PX`), the points behind it
unread: a phone's 12-megapixel photo of the board would fare the same."""


def tuned_scale(pose: BoardPose) -> float:
    """How much a frame taken with ``pose`` is shrunk where constants in pixels decide
    (:data:`TUNED_PX_PER_MM`; 1 for a frame that shows the board no larger)."""
    return min(1.0, TUNED_PX_PER_MM / pose.px_per_mm())


RADIAL_MM = np.arange(-3.5, 3.51, 0.5)
"""Offsets (mm) around an expected outline where its edge is looked for: discs sit a
few millimetres off their point (:mod:`vision.placement` finds where)."""
NEAR_MM = 1.5
"""The height evidence of :func:`outline_evidence` takes an outline's edge this close (mm) to
where a stack on its point would have it."""
NEAR_ROWS = np.flatnonzero(np.abs(RADIAL_MM) <= NEAR_MM + 1e-9)
"""The rows (of :data:`RADIAL_MM`) of an outline within :data:`NEAR_MM`."""
WATCHED_ROWS = NEAR_ROWS[[0, len(NEAR_ROWS) // 2, -1]]
"""The rows of an outline whose visibility is read: the ends of the near range and the middle."""
CAP_RIM_FRACTIONS = (0.9, 0.95)
"""Rings of a top face, as shares of the disc's radius, read besides its middle: a glossy
black top can mirror a lamp and look as light as a white one, but its rounded edge, facing
other ways, stays dark (:mod:`vision.reader` takes the darkest of the three readings)."""
CAP_RIM_ANGLES_DEG = np.arange(0.0, 360.0, 15.0)
"""Where on those rings to read (degrees, board frame)."""
BOARD_RING_DEG = {"hex": 30.0, "square": 0.0}
"""Where the board at a point is read besides its middle: six points 0.4 of a disc's radius
out, every 60 degrees from this angle (board frame).  On the hex side they lie between the
lines that meet at the point (every 60 degrees from 0), so that a board printed with dark
lines does not look at its points as dark as a black disc: read on the lines, as a top face is
read, a hex print with dark lines (POV-Ray foreign print accasta seed 930 scene 1) had its
empty points read at 0.29, as dark as its black discs' tops.  On the hex games, between the
lines, the points read right but unsure (under 0.6) fell on POV-Ray pictures from 711 to 262
(seed 900, 240 scenes), on foreign prints from 503 to 206 (seed 920, 80), on the benchmark's
400 scenes from 663 to 617.  The readings are the same; two white discs the benchmark reads
empty became sure (0.65, 0.66: on a light board, no longer unlike the lines' colour).  On the
square side, at the corners of four cells of two colours, no ring sees one colour, and the
points keep the top face's ring (on the diagonals, 2,989 of Alva's 6,608 empty points on the
benchmark became unsure)."""
SURROUND_MM = 21.0
"""How far from a cell's middle (mm) the cell's own colour is read, on its two diagonals
nearest the camera: beyond a disc set off its point (14.5 + 2.5 mm), so the disc's side
does not cover them, and inside the 38 mm cell, whose corners are 26.9 mm away."""
SILHOUETTE_MARGIN_MM = 2.5
"""Discs sit up to about this far off their point: nearer stacks are drawn this much larger."""
LINE_RING_FRACTIONS = (0.45, 0.7)
"""Where the printed lines that meet at a hex point are looked at (shares of a disc's radius
from the point, on each line and halfway between two): inside a disc standing there even
set off by :data:`SILHOUETTE_MARGIN_MM`, so a stack hides them all, and clear of a printed
point mark.  See :func:`printed_lines`."""
LINE_BESIDE_MM = 4.0
"""How far beside a printed line's midpoint (mm) the board is read to see the line's contrast
in the frame: about as far from the line as the samples between two lines at a point."""


@dataclass
class _PointSamples:
    """Indices (into one point's block of the sample bank) of everything one point needs.

    Outline samples come as (offsets, places) index arrays: ``len(RADIAL_MM)`` radial
    offsets around the expected outline, so the search tolerates discs placed off
    their point; the outline's image normal is the step between neighbouring offsets."""

    rim: list[np.ndarray]
    """Per height h = 1..H: the far rim of the top face at z = h layers."""
    near: list[np.ndarray]
    """Per height h = 0..H: the near rim at z = h layers (h = 0: the stack's foot on the board)."""
    side: list[np.ndarray]
    """Per layer k = 0..H-1: the left and right outline at the layer's mid-height."""
    front: list[np.ndarray]
    """Per layer k: pixels on the side facing the camera."""
    cap: list[np.ndarray]
    """Per height h = 0..H: pixels on the top face (h = 0: the board at the point)."""
    lines: np.ndarray
    """Rings on the board around the point, every 30 degrees from 0 (board frame), one ring per
    :data:`LINE_RING_FRACTIONS`: on the hex side, the even places lie on the lines that may
    meet at the point, the odd ones between them (none on the square side)."""
    side_px: float = 0.0
    """How tall one layer's side looks in pixels (0 seen from straight above), in a frame
    shrunk to :data:`TUNED_PX_PER_MM` where it shows the board larger: the reader's constants
    in side pixels (how far heights can be trusted, the net's weight, when to tell the players)
    were measured on such frames, and more pixels hardly help where the sides look thin.  The
    same 180 stills seen from 62-75 degrees (Abande, Accasta and Attangle square, seed 6501)
    had 141 stacks read at a wrong height at 1280x720 (0.9-1.9 px/mm) and 127 at 1920x1080
    (1.3-2.8 px/mm), whose sides look 1.5 times as tall; counted at their own size, 4 of those
    were sure, and 3 of 15 read wrong at 3840x2160; counted so, 2 and none."""
    watched: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    """The samples whose visibility is read (bands, tops, and each outline's middle and the
    ends of its near range, :data:`NEAR_MM`): only they can be hidden by nearer stacks
    (:meth:`StackModel.visible`)."""
    directions: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    """Per outline place (rims, near rims, sides, in order), the board-plane unit vector
    pointing outwards from the point: a stack offset by d moves the place's edge by its dot product with d."""


def _circle(cx: np.ndarray | float, cy: np.ndarray | float, r: float, z: np.ndarray | float, angles: np.ndarray
            ) -> np.ndarray:
    """Points ((...) x angles x 3, mm) on circles of radius ``r`` at height ``z`` around
    (``cx``, ``cy``), which may be arrays of one shape (...); ``angles`` is (angles,) or (..., angles)."""
    cx, cy, z = (np.asarray(v, float)[..., None] for v in (cx, cy, z))
    return np.stack(np.broadcast_arrays(cx + r * np.cos(angles), cy + r * np.sin(angles), z), axis=-1)


def _inside_convex(corners: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Which points ``pts`` (... x 2) lie inside the convex polygons ``corners`` (... x K x 2,
    any winding, broadcast against the points' leading axes).  A corner may repeat (padding):
    an edge of no length is on every side."""
    b = np.roll(corners, -1, axis=-2)
    p = pts[..., None, :]
    cross = (b[..., 0] - corners[..., 0]) * (p[..., 1] - corners[..., 1]) - \
        (b[..., 1] - corners[..., 1]) * (p[..., 0] - corners[..., 0])
    return np.all(cross >= 0, axis=-1) | np.all(cross <= 0, axis=-1)


class StackModel:
    """Where every point's stack of every allowed height appears in the image of one pose.

    Build it once per board pose (it takes a few tens of milliseconds) and call
    :meth:`read` on every frame taken from that pose."""

    def __init__(self, pose: BoardPose, geometry: Geometry, max_height: int) -> None:
        self.pose = pose
        self.geometry = geometry
        self.max_height = max(1, int(max_height))
        self.shrink = tuned_scale(pose)
        """How much a frame is shrunk where constants in pixels decide (:data:`TUNED_PX_PER_MM`):
        to measure its sharpness, and to count how tall a layer's side looks (:attr:`side_px`)."""
        spec = pose.spec
        self.radius_mm = spec.piece_diameter_mm / 2
        self.layer_mm = spec.piece_height_mm
        pos = geometry.positions_mm(spec)
        self.names: tuple[str, ...] = tuple(pos)
        self.centres_mm = np.array([pos[n] for n in self.names])
        cam = pose.camera_position_mm()
        R, _ = cv2.Rodrigues(pose.rvec)
        depth = (np.column_stack([self.centres_mm, np.zeros(len(self.names))]) @ R.T + pose.tvec)[:, 2]
        self.order = np.argsort(depth)
        """Point indices from the nearest to the camera to the farthest."""
        self.towards = np.arctan2(cam[1] - self.centres_mm[:, 1], cam[0] - self.centres_mm[:, 0])
        """Per point, the direction (radians, board frame) from the point towards the camera."""
        blocks, self.points = self._samples()
        n = blocks.shape[1]
        self.bank_mm = blocks.reshape(-1, 3)
        """Every point's samples (samples x 3, mm on the board), block after block (:attr:`starts`)."""
        self.bank_px = pose.project(self.bank_mm).astype(np.float32)
        w, h = pose.camera.image_size
        self.in_frame = (self.bank_px[:, 0] >= 0) & (self.bank_px[:, 0] <= w - 1) & \
            (self.bank_px[:, 1] >= 0) & (self.bank_px[:, 1] <= h - 1)
        self._crop = self._crop_maps(w, h)
        self.hulls = self.silhouettes()
        """Per point and height 1..H, the image outline of a stack there (:meth:`silhouettes`)."""
        most = max(len(hull) for hl in self.hulls for hull in hl)
        self._hull_table = np.array([[np.vstack([hull, np.repeat(hull[-1:], most - len(hull), axis=0)]) for hull in hl]
                                     for hl in self.hulls])
        """The hulls padded to one length by repeating their last corner (points x H x corners x 2)."""
        self.starts = np.arange(len(self.names)) * n
        """Where every point's block of samples begins in the bank (the blocks are alike:
        the same outlines, bands and tops in the same order)."""
        self.block = n
        """Samples per point."""
        self._occlusion(depth)
        self.in_view = self.in_frame.reshape(len(self.names), self.block).mean(axis=1)
        """Per point, the share of its samples inside the frame."""
        self.cap_index = np.stack(self.points[0].cap)
        """(H + 1) x samples: :attr:`_PointSamples.cap` within a point's block."""
        self.front_index = np.stack(self.points[0].front)
        """H x samples: :attr:`_PointSamples.front` within a point's block."""
        self.colour_mm = np.stack([self.front_mm(*self.centres_mm.T, self.towards, k, COLOUR_HEIGHTS)
                                   for k in range(self.max_height)], axis=1)
        """Where each layer's colour is read on a stack on each point (points x H x samples x 3,
        mm; the samples as in :attr:`front_index`)."""
        self.side_px = np.array([ps.side_px for ps in self.points])
        self.on_cells = np.array(geometry.on_cells())
        """Per point, :meth:`rules.geometry.Geometry.on_cells`."""
        diagonals = np.radians(45.0 + 90.0 * np.arange(4))
        turn = np.abs((diagonals[None] - self.towards[:, None] + math.pi) % (2 * math.pi) - math.pi)
        surround = _circle(*self.centres_mm.T, SURROUND_MM, 0.0, diagonals[np.argsort(turn, axis=1)[:, :2]])
        self.surround_px = pose.project(surround.reshape(-1, 3)).reshape(len(self.names), 2, 2).astype(np.float32)
        """Per point, two pixels of the board :data:`SURROUND_MM` from it, towards the camera (points x 2 x 2)."""
        self.shades = np.array(geometry.shades())
        """Per point, :meth:`rules.geometry.Geometry.shades`: empty points of one shade look alike."""
        self.directions = np.stack([ps.directions for ps in self.points])
        """Per point (points x places x 2): :attr:`_PointSamples.directions`."""
        self.outline_index, self.outline_groups, normals = self._outline_table()
        self.outline_gather = self.starts[:, None, None] + self.outline_index[None]
        """Every point's outline samples in the bank (points x offsets x places)."""
        self.outline_normals = tuple(np.ascontiguousarray(normals[:, None, :, k], np.float32) for k in (0, 1))
        """Per point, the image normal's x and y at its outline places (points x 1 x places each)."""
        count = int(self.outline_groups[-1]) + 1
        self.outline_member = (self.outline_groups[:, None] == np.arange(count)[None]).astype(float)
        """(places x outlines): 1 where a place belongs to an outline."""
        places = self.outline_member.sum(0).astype(int)
        self.outline_places = np.full((count, places.max()), len(self.outline_groups))
        """(outlines x most places): every outline's places, padded with one past the last place."""
        for k in range(count):
            self.outline_places[k, :places[k]] = np.flatnonzero(self.outline_groups == k)
        self.band_index, self.band_valid = self._band_table()
        self.line_ways, self.line_beside_px = self._printed_lines(pos)
        self.on_print = self._on_print()
        """Per point, which outline samples (points x offsets x places) see the board where a
        printed line runs along the outline (:meth:`_on_print`)."""

    def _printed_lines(self, pos: dict[str, tuple[float, float]]) -> tuple[np.ndarray | None, np.ndarray]:
        """On the hex side, which of the six ways from each point (every 60 degrees from 0,
        board frame) a printed line runs (points x 6, bool), and each line's midpoint with
        the places :data:`LINE_BESIDE_MM` either side of it (lines x 3 x 2, pixels); None
        and an empty array on the square side, whose points have no lines through them or
        lie where cells of two shades meet."""
        if self.geometry.kind != "hex":
            return None, np.zeros((0, 3, 2), np.float32)
        index = {n: i for i, n in enumerate(self.names)}
        ways = np.zeros((len(self.names), 6), bool)
        places = []
        for a, b in hex_lines():
            p, q = np.array(pos[a]), np.array(pos[b])
            for i, d in ((index[a], q - p), (index[b], p - q)):
                ways[i, int(round(math.degrees(math.atan2(d[1], d[0])) / 60.0)) % 6] = True
            along = (q - p) / np.linalg.norm(q - p)
            beside = LINE_BESIDE_MM * np.array([-along[1], along[0]])
            middle = (p + q) / 2
            places.append([middle, middle + beside, middle - beside])
        px = self.pose.project(np.array(places).reshape(-1, 2))
        return ways, px.reshape(-1, 3, 2).astype(np.float32)

    def _samples(self) -> tuple[np.ndarray, list[_PointSamples]]:
        """Every point's block of samples (points x samples x 3, mm), all points at once: the
        blocks are alike, turned towards the camera from each point."""
        r, L, H, n = self.radius_mm, self.layer_mm, self.max_height, len(self.names)
        cx, cy, towards = self.centres_mm[:, 0], self.centres_mm[:, 1], self.towards
        pts: list[np.ndarray] = []

        def add(block: np.ndarray) -> np.ndarray:
            start = sum(p.shape[1] for p in pts)
            pts.append(block)
            return np.arange(start, start + block.shape[1])

        directions: list[np.ndarray] = []
        watched: list[np.ndarray] = []

        def outline(z: float, angles: np.ndarray) -> np.ndarray:
            """Rings of ``len(RADIAL_MM)`` radii at ``angles`` (points x places)."""
            directions.append(np.stack([np.cos(angles), np.sin(angles)], axis=-1))
            rr = (r + RADIAL_MM[:, None])[None]
            x = cx[:, None, None] + rr * np.cos(angles)[:, None]
            y = cy[:, None, None] + rr * np.sin(angles)[:, None]
            ring = np.stack([x, y, np.full(x.shape, z)], axis=-1)
            rows = add(ring.reshape(n, -1, 3)).reshape(len(RADIAL_MM), -1)
            watched.append(rows[WATCHED_ROWS].ravel())
            return rows

        facing = towards[:, None]
        away = facing + math.pi + np.radians(RIM_ANGLES_DEG)
        rim = [outline(h * L, away) for h in range(1, H + 1)]
        near = [outline(max(h * L, 0.5), facing + np.radians(RIM_ANGLES_DEG)) for h in range(H + 1)]
        sides = facing + np.radians([88.0, -88.0])
        side = [outline((k + f) * L, sides) for k in range(H) for f in (0.3, 0.7)]
        side = [np.hstack(side[2 * k:2 * k + 2]) for k in range(H)]
        outward = np.concatenate(directions, axis=1)
        front = [add(self.front_mm(cx, cy, towards, k)) for k in range(H)]
        # The board at the point is read between the lines that meet there (BOARD_RING_DEG).
        cap = [add(self.cap_mm(cx, cy, h, BOARD_RING_DEG[self.geometry.kind] if h == 0 else 0.0)) for h in range(H + 1)]
        lines = np.zeros(0, int)
        if self.geometry.kind == "hex":
            every_30 = np.radians(np.arange(0.0, 360.0, 30.0))
            lines = add(np.concatenate([_circle(cx, cy, f * r, 0.0, every_30) for f in LINE_RING_FRACTIONS], axis=-2))
        watched = np.sort(np.concatenate([*watched, *front, *cap, lines]))
        # How tall a layer's side looks: the front point at the foot and one layer up.
        foot = self.pose.project(np.stack([np.column_stack([cx + r * np.cos(towards), cy + r * np.sin(towards),
                                                            np.full(n, z)]) for z in (0.0, L)], axis=1).reshape(-1, 3))
        side_px = np.hypot(*(foot[1::2] - foot[0::2]).T) * self.shrink
        return np.concatenate(pts, axis=1), [
            _PointSamples(rim, near, side, front, cap, lines, side_px=float(side_px[i]), directions=outward[i],
                          watched=watched)
            for i in range(n)]

    def front_mm(self, cx: np.ndarray | float, cy: np.ndarray | float, towards: np.ndarray | float, k: int,
                 heights: tuple[float, ...] = FRONT_HEIGHTS) -> np.ndarray:
        """Points (N x 3, mm) on the side facing the camera (``towards``: radians) of layer ``k``
        of a stack centred at (cx, cy) mm, at ``heights`` (shares of the layer); for arrays of
        stacks, (stacks x N x 3)."""
        a = np.asarray(towards, float)[..., None] + np.radians(FRONT_ANGLES_DEG)
        return np.concatenate([_circle(cx, cy, self.radius_mm, (k + f) * self.layer_mm, a) for f in heights], axis=-2)

    def cap_mm(self, cx: np.ndarray | float, cy: np.ndarray | float, h: np.ndarray | int,
               turn_deg: float = 0.0) -> np.ndarray:
        """Points (N x 3, mm) on the top face of a stack of ``h`` discs centred at (cx, cy) mm
        (``h`` = 0: the board there): the middle and a ring every 60 degrees from ``turn_deg``
        (board frame); for arrays of stacks, (stacks x N x 3)."""
        z = np.asarray(h) * self.layer_mm
        ring = np.radians(turn_deg + np.arange(0, 360, 60))
        return np.concatenate([_circle(cx, cy, 0.0, z, np.zeros(1)),
                               _circle(cx, cy, 0.4 * self.radius_mm, z, ring)], axis=-2)

    def cap_rims_mm(self, cx: np.ndarray, cy: np.ndarray, h: np.ndarray) -> np.ndarray:
        """Points (stacks x rings x N x 3, mm) on the rings :data:`CAP_RIM_FRACTIONS` of the top
        faces of stacks of ``h`` discs centred at (cx, cy) mm (arrays of stacks)."""
        a = np.radians(CAP_RIM_ANGLES_DEG)
        return np.stack([_circle(cx, cy, f * self.radius_mm, np.asarray(h) * self.layer_mm, a)
                         for f in CAP_RIM_FRACTIONS], axis=-3)

    def hidden_by_nearer(self, points: np.ndarray, px: np.ndarray, heights: np.ndarray) -> np.ndarray:
        """Which pixels ``px`` (points x ... x 2) of each of ``points``' stacks the nearer stacks
        of ``heights`` hide (their outlines drawn :data:`SILHOUETTE_MARGIN_MM` wider, as discs sit
        off their points)."""
        flat = px.reshape(len(points), -1, 2)
        blockers = self._blockers[points]
        real = np.arange(blockers.shape[1]) < self._blocker_count[points][:, None]
        row, col = np.nonzero((heights[blockers] > 0) & real)
        j = blockers[row, col]
        inside = _inside_convex(self._hull_table[j, heights[j] - 1][:, None], flat[row])  # pairs x pixels
        hidden = np.zeros(flat.shape[:2], bool)
        np.logical_or.at(hidden, row, inside)
        return hidden.reshape(px.shape[:-1])

    def _on_print(self) -> np.ndarray:
        """Which outline samples (points x offsets x places) show, when what lies behind them
        is the board, a printed line (or a cell's border) running along the outline in the
        picture, within :data:`PRINT_MM`: an edge there may be the print's, not the stack's.

        The board behind a sample at height z is where the camera's ray through it meets the
        board, a long way behind a tall stack's far rim (a square cell's border, 4.5 mm beyond
        a disc's rim on its point, shows just outside the rim of a disc's top face seen from
        the side).  A line crossing the outline is no matter: its edge points the wrong way
        (:data:`EDGE_COHERENCE`)."""
        printed = board_model(self.pose.kind, self.pose.spec)
        at = self.bank_mm[self.outline_gather].reshape(-1, 3)
        cam = self.pose.camera_position_mm()
        behind = cam[:2] + (at[:, :2] - cam[:2]) * (cam[2] / np.maximum(cam[2] - at[:, 2], 1e-6))[:, None]
        # The board plane's homography to the picture (lens distortion left out: it hardly turns a line).
        R, _ = cv2.Rodrigues(self.pose.rvec)
        H = self.pose.camera.K @ np.column_stack([R[:, :2], np.ravel(self.pose.tvec)])
        normals = np.broadcast_to(np.stack(self.outline_normals, axis=-1),
                                  (*self.outline_gather.shape, 2)).reshape(-1, 2)
        out = np.zeros(len(at), bool)
        for way in np.unique(printed.line_direction):
            lines = printed.lines[printed.line_direction == way]
            flip = np.where(lines[:, :2] @ lines[0, :2] < 0, -1.0, 1.0)  # one normal for the parallel lines
            across = np.sort(-lines[:, 2] * flip)
            s = behind @ lines[0, :2]
            k = np.clip(np.searchsorted(across, s), 1, len(across) - 1) if len(across) > 1 else np.zeros(len(s), int)
            gap = np.minimum(np.abs(s - across[k]), np.abs(s - across[np.maximum(k - 1, 0)]))
            near = np.flatnonzero(gap <= PRINT_MM)
            # The line's direction in the picture at each sample near it (the homography's derivative).
            q = np.column_stack([behind[near], np.ones(len(near))]) @ H.T
            image = q[:, :2] / q[:, 2:]
            u = np.array([-lines[0, 1], lines[0, 0]])
            along = (H[:2, :2] @ u - image * (H[2, :2] @ u)) / q[:, 2:]
            along /= np.linalg.norm(along, axis=1, keepdims=True) + 1e-12
            out[near] |= np.abs(along[:, 0] * normals[near, 1] - along[:, 1] * normals[near, 0]) >= PRINT_ALONG
        return out.reshape(self.outline_gather.shape)

    def _outline_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every point's outlines (rims, near rims, sides) side by side: sample indices within
        a point's block ((offsets x places), alike for all points), the outline each place
        belongs to, and per point the image normal per place (points x places x 2)."""
        ps = self.points[0]
        parts = [*ps.rim, *ps.near, *ps.side]
        o = np.hstack(parts)
        groups = np.concatenate([np.full(p.shape[1], k) for k, p in enumerate(parts)])
        mid = len(RADIAL_MM) // 2
        normal = self.bank_px[self.starts[:, None] + o[mid + 1]] - self.bank_px[self.starts[:, None] + o[mid - 1]]
        normal /= np.linalg.norm(normal, axis=-1, keepdims=True) + 1e-9
        return o, groups, normal

    def _band_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Every point's front bands and top faces as one padded (bands x samples) index array
        within a point's block (alike for all points) and its mask of real entries."""
        parts = [*self.points[0].front, *self.points[0].cap]
        width = max(len(p) for p in parts)
        idx = np.zeros((len(parts), width), int)
        valid = np.zeros((len(parts), width), bool)
        for k, p in enumerate(parts):
            idx[k, :len(p)] = p
            valid[k, :len(p)] = True
        return idx, valid

    def silhouettes(self, margin_mm: float = SILHOUETTE_MARGIN_MM) -> list[list[np.ndarray]]:
        """Per point and height 1..H, the outline (K x 2 pixels, convex) of a stack of that many
        discs on the point, drawn ``margin_mm`` wider (discs sit off their point)."""
        H, n = self.max_height, len(self.names)
        a = np.radians(np.arange(0, 360, 15))
        r = self.radius_mm + margin_mm
        rings = np.stack(np.broadcast_arrays(self.centres_mm[:, None, None, 0] + r * np.cos(a),
                                             self.centres_mm[:, None, None, 1] + r * np.sin(a),
                                             np.arange(H + 1)[None, :, None] * self.layer_mm), axis=-1)
        px = self.pose.project(rings.reshape(-1, 3)).reshape(n, H + 1, len(a), 2).astype(np.float32)
        return [[cv2.convexHull(np.vstack([px[j, 0], px[j, h]])).reshape(-1, 2).astype(np.float64)
                 for h in range(1, H + 1)] for j in range(n)]

    def covered(self, heights: np.ndarray) -> np.ndarray:
        """The pixels (bool, image size) that stacks of ``heights`` (per point; 0: none) cover,
        drawn as :attr:`hulls`."""
        w, h = self.pose.camera.image_size
        out = np.zeros((h, w), np.uint8)
        for i in np.flatnonzero(heights):
            cv2.fillConvexPoly(out, np.round(self.hulls[i][heights[i] - 1]).astype(np.int32), 1)
        return out > 0

    def _occlusion(self, depth: np.ndarray) -> None:
        """For every point, which nearer stacks can hide which of its watched pixels, from what
        height: ``_blockers`` (points x most blockers, their point indices), ``_blocker_count``
        and ``_hidden_from`` (points x most blockers x watched samples: the lowest height of
        the blocker that hides the sample, H + 1 for never and for the padding)."""
        H = self.max_height
        boxes = np.array([(hl[-1].min(0), hl[-1].max(0)) for hl in self.hulls])  # points x (lo, hi) x 2
        watched = self.points[0].watched
        found: list[tuple[list[int], list[np.ndarray]]] = []
        for i in range(len(self.names)):
            px = self._block(i)
            lo, hi = px.min(0), px.max(0)
            overlap = ~np.any(boxes[:, 1] < lo, axis=1) & ~np.any(boxes[:, 0] > hi, axis=1)
            near = np.flatnonzero((depth < depth[i]) & overlap)
            if not len(near):
                found.append(([], []))
                continue
            # Every nearer stack's outline at every height against the watched pixels in its
            # tallest outline's box (the lower outlines are inside it).
            p = px[watched]
            k, w = np.nonzero(np.all((p >= boxes[near, None, 0]) & (p <= boxes[near, None, 1]), axis=2))
            inside = _inside_convex(self._hull_table[near[k]], p[w, None])  # pairs x H
            first = np.full((len(near), len(watched)), H + 1, np.int16)
            first[k, w] = np.where(inside.any(axis=1), inside.argmax(axis=1) + 1, H + 1)
            hides = np.flatnonzero((first <= H).any(axis=1))
            found.append(([int(near[k]) for k in hides], [first[k] for k in hides]))
        most = max(1, max(len(b) for b, _ in found))  # one padding column when nothing hides anything
        self._blockers = np.zeros((len(self.points), most), int)
        self._blocker_count = np.array([len(b) for b, _ in found])
        self._hidden_from = np.full((len(self.points), most, len(self.points[0].watched)), H + 1, np.int16)
        for i, (blockers, table) in enumerate(found):
            self._blockers[i, :len(blockers)] = blockers
            if table:
                self._hidden_from[i, :len(blockers)] = np.stack(table)

    def _block(self, i: int) -> np.ndarray:
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.bank_px)
        return self.bank_px[self.starts[i]:end]

    def sample(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float, "Crop"]:
        """Colours (samples x 3, BGR 0..255) and grey-level gradients (samples x 2, per pixel)
        of every sample pixel in a BGR frame, lightly smoothed; of the part of the frame the
        samples cover (the board), the steepest edges (99th percentile of the gradient) and the
        spread of grey levels (5-95 percentile); and that part itself, smoothed and as taken,
        to read colours elsewhere (:class:`Crop`).  Only that part of the frame is filtered.  A
        frame of another size than the pose's camera's is refused (ValueError)."""
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        if image.shape[1::-1] != self.pose.camera.image_size:
            w, h = self.pose.camera.image_size
            raise ValueError(f"the frame is {image.shape[1]}x{image.shape[0]} but the board pose is for {w}x{h} frames")
        (x0, y0, x1, y1), where, fixed = self._crop
        smooth = cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), 1.0)
        grey = cv2.cvtColor(smooth, cv2.COLOR_BGR2GRAY).astype(np.float32)
        dx, dy = _gradients(grey)
        steepest = _steepest(grey, dx, dy, self.shrink)
        every = grey[::4, ::4]
        low, high = percentile(every, 5), percentile(every, 95)
        spread = max(float(high - low), 1.0)
        # Colours at 1/32 pixel (the fixed-point map): within 2 of 255 levels, in a third of the time.
        colour = cv2.remap(smooth, *fixed, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        # One channel at a time: OpenCV interpolates a float image of one channel exactly, of
        # two channels at 1/32 pixel (gradients up to 5 grey levels per pixel off), and slower.
        g = np.stack([cv2.remap(d, where, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE) for d in (dx, dy)],
                     axis=-1)
        n = len(self.bank_px)
        crop = Crop(np.array([x0, y0], np.float32), smooth, image[y0:y1, x0:x1])
        return colour.reshape(-1, 3)[:n].astype(np.float32), g.reshape(-1, 2)[:n] / 8.0, steepest, spread, crop

    def _crop_maps(self, w: int, h: int) -> tuple[tuple[int, int, int, int], np.ndarray, tuple[np.ndarray, ...]]:
        """The part of a w x h frame the samples cover, with a margin for the filters (x0, y0,
        x1, y1), and where the samples are in it: the sample map, shifted, and the same as
        OpenCV's fixed-point map pair.  Worked out with the model: on a reader's first frame it
        took a millisecond of the reading."""
        lo, hi = self.bank_px.min(0), self.bank_px.max(0)
        x0, y0 = np.clip(np.floor(lo).astype(int) - 4, 0, [w - 1, h - 1])
        x1, y1 = np.clip(np.ceil(hi).astype(int) + 5, [x0 + 1, y0 + 1], [w, h])
        # cv2.remap wants maps shorter than 32767 pixels a side: fold the bank into rows.
        rows = -(-len(self.bank_px) // 1024)
        where = np.zeros((rows * 1024, 2), np.float32)
        where[:len(self.bank_px)] = self.bank_px - np.array([x0, y0], np.float32)
        where = where.reshape(rows, 1024, 2)
        return (int(x0), int(y0), int(x1), int(y1)), where, cv2.convertMaps(where, None, cv2.CV_16SC2)

    def visible(self, points: np.ndarray, heights: np.ndarray) -> np.ndarray:
        """Which samples of each of ``points`` (indices) are in the frame and not hidden by
        nearer stacks of ``heights`` (points x samples of a block)."""
        vis = self.in_frame.reshape(len(self.names), self.block)[points]
        blocker_heights = heights[self._blockers[points]]
        hidden_from = self._hidden_from[points]
        hides = blocker_heights[:, :1] >= hidden_from[:, 0]
        for k in range(1, hidden_from.shape[1]):  # a few blockers: a loop, as numpy's any() along a short axis is slow
            hides |= blocker_heights[:, k:k + 1] >= hidden_from[:, k]
        vis[:, self.points[0].watched] &= ~hides
        return vis

    def board_in_view(self, vis: np.ndarray) -> np.ndarray:
        """The share of the board at each point that ``vis`` (points x samples of a block: their
        visibility, :meth:`visible`) leaves in view."""
        return vis[:, self.cap_index[0]].mean(axis=1)


EDGE_COHERENCE = 0.85
"""An outline sample counts as an edge where the grey-level gradient points along the
outline's normal within about 30 degrees (board lines and cell borders run other ways)."""
EDGE_SHARE = 0.15
"""... and where it is at least this share of the frame's typical strong edge."""


STRENGTH_CAP = 1.5
"""Edges steeper than this many of the frame's strong edges count as that steep."""


PRINT_MM = 1.5
"""How near a printed line (mm on the board) an edge seen behind a stack's outline may be the
line's (:meth:`StackModel._on_print`): the lines' half width and the pose's error."""
PRINT_ALONG = 0.77
"""... when the line runs along the outline within 40 degrees in the picture (the sine of
the angle between the line and the outline's normal)."""


BOARD_EDGE_SHARE = 0.8
"""A frame's strong edges are at least this share of the board's steepest: where pieces stand,
their outlines' edges (95th percentile at the samples) are 0.76-1.02 of it on rendered scenes."""


@dataclass(frozen=True)
class Crop:
    """The part of a frame the samples cover (BGR 0..255), smoothed as the samples are and
    as taken, and its top-left pixel."""

    origin: np.ndarray
    smooth: np.ndarray
    image: np.ndarray

    def colours(self, px: np.ndarray, smoothed: bool = True) -> np.ndarray:
        """Colours (N x 3, BGR 0..255) at frame pixels ``px`` (N x 2), of the smoothed frame
        (to compare with the samples' colours) or of the frame as taken.

        The discs' colours are read as taken (:func:`vision.placement.stack_colours`): seen
        from 60-70 degrees a layer's side is 2-4 pixels tall, and a blur of one pixel mixes in
        the layers above and below it, as it mixes a glossy top's mirrored lamp into its darker
        rim.  On 740 scenes (our renderer's seeds 7 and 8, POV-Ray's seed 931) that read 188
        points wrong where the smoothed frame read 211 (a blur of 0.6 pixel: 199); with noise,
        JPEG or blur added to the pictures (``benchmarks/vision.py --effect``) about as many."""
        where = (np.asarray(px, np.float32) - self.origin).reshape(1, -1, 2)
        colour = cv2.remap(self.smooth if smoothed else self.image, where, None, cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
        return colour.reshape(-1, 3).astype(np.float32)


def _gradients(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Sobel derivatives of ``grey`` across and down (grey levels per pixel, times 8)."""
    return cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)


def _steepest(grey: np.ndarray, dx: np.ndarray, dy: np.ndarray, shrink: float) -> float:
    """The 99th percentile of the gradient (grey levels per pixel) of ``grey`` (its Sobel
    derivatives ``dx``, ``dy``) shrunk by ``shrink`` (:data:`TUNED_PX_PER_MM`)."""
    if shrink < 1.0:
        grey = cv2.resize(grey, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        dx, dy = _gradients(grey)
    # Every fourth pixel of every fourth row: as many pixels as a small picture, enough for percentiles.
    return percentile(cv2.magnitude(dx[::4, ::4], dy[::4, ::4]), 99) / 8.0


@dataclass(frozen=True)
class FrameSamples:
    """One frame's samples, normalised: colours 0..1 and gradients in units of the frame's strong edges."""

    colour: np.ndarray
    """Per sample, BGR 0..1 (samples x 3)."""
    grad: np.ndarray
    """Per sample, the grey-level gradient as a complex number, x + iy (complex64; gathered
    for many samples at once this is many times faster than pairs of floats)."""
    strength: np.ndarray
    """Per point, how much of an edge each of its outline samples is on (:func:`outline_strength`):
    worked out once, for every point, as a frame's reading asks for it three or four times."""
    sharpness: float
    """How steep the steepest edges of the board's part of the frame are for its contrast: the
    99th percentile of the gradient (grey levels per pixel) over the 5-95 percentile range of
    grey levels.  The board's printed lines and cells are always there, so an empty board is as
    sharp as a full one.  Sharp photos are above 0.13; a blur of 4 pixels brings most under 0.12."""
    lightness: float
    """The median brightness (0..1, :func:`vision.colours.brightness`) of the board's part of
    the frame: how much light the board sends the camera, whatever its print."""
    crop: Crop | None = None
    """The frame, to read colours where stacks really stand (:mod:`vision.placement`)."""

    @classmethod
    def of(cls, model: StackModel, image: np.ndarray) -> "FrameSamples":
        colour, pairs, steepest, spread, crop = model.sample(image)
        grad = np.ascontiguousarray(pairs, np.float32).view(np.complex64).ravel()
        kept = model.in_frame[::4]  # every fourth sample: enough for a percentile or a median
        mag = np.abs(grad[::4])[kept]
        if len(mag) == 0:
            return cls(colour / 255.0, grad, _edge_strength(model, grad), 0.0, 0.0, crop)
        lightness = float(np.median(brightness(colour[::4][kept]))) / 255.0
        # The samples' strong edges are the discs' outlines; on an empty board there are none,
        # and the board's own lines and cells set the scale (paper grain is no edge).  Times a
        # float32 reciprocal: complex64 over a Python float is a complex division, 10 times slower.
        grad = grad * np.float32(1.0 / max(percentile(mag, 95), BOARD_EDGE_SHARE * steepest, 4.0))
        return cls(colour / 255.0, grad, _edge_strength(model, grad), steepest / spread, lightness, crop)


def outline_strength(model: StackModel, frame: FrameSamples, points: np.ndarray) -> np.ndarray:
    """How much of an edge every outline sample of each of ``points`` is on (points x (rows
    of :data:`RADIAL_MM`) x places, :attr:`StackModel.outline_index` order): the grey-level
    gradient along the outline's normal, in units of the frame's strong edges and at most
    :data:`STRENGTH_CAP`; 0 where the gradient does not point along the normal (a board line
    crossing the outline)."""
    return frame.strength[points]


def _edge_strength(model: StackModel, grad: np.ndarray) -> np.ndarray:
    """:func:`outline_strength` of every point of ``model`` with the samples' gradients ``grad``."""
    g = grad[model.outline_gather]
    xy = g.view(np.float32).reshape(*g.shape, 2)
    nx, ny = model.outline_normals
    along = xy[..., 0] * nx
    along += xy[..., 1] * ny
    np.abs(along, out=along)
    least = np.abs(g)
    least += np.float32(1e-9)
    least *= np.float32(EDGE_COHERENCE)
    along *= along >= least  # in place and unmasked: three times faster than a masked assignment
    return np.minimum(along, STRENGTH_CAP, out=along)


def outline_evidence(model: StackModel, frame: FrameSamples, points: np.ndarray, vis: np.ndarray,
                     strength: np.ndarray) -> np.ndarray:
    """(edge share, contrast, visible share, strength) of every outline (rims, near rims,
    sides, in :attr:`StackModel.outline_index` order) of each of ``points``, as a (points x
    outlines x 4) array, from the samples within :data:`NEAR_MM` (``vis``: points x samples
    of a block; ``strength``: :func:`outline_strength`).

    Edge share: the share of visible places with an edge along the outline.  Contrast:
    the median colour difference between just inside and just outside it.  Strength: the mean
    over visible places of the steepest edge across the outline: unlike the edge share it
    tells a rim from a smeared edge a pixel or two away."""
    o, member = model.outline_index, model.outline_member
    ok = np.all(vis[:, o[WATCHED_ROWS]], axis=1)
    near = strength[:, NEAR_ROWS]
    edge = np.any(near >= EDGE_SHARE, axis=1)
    o = o[NEAR_ROWS]
    s = model.starts[points][:, None]
    step = frame.colour[s + o[0]] - frame.colour[s + o[-1]]
    contrast = np.sqrt(channel_sum(step * step))
    seen = ok @ member
    out = np.zeros((len(points), member.shape[1], 4))
    out[..., 0] = ((edge & ok) @ member) / np.maximum(seen, 1)
    out[..., 3] = ((near.max(axis=1) * ok) @ member) / np.maximum(seen, 1)
    out[..., 2] = seen / member.sum(0)
    # The lower median of every outline's visible contrasts, hidden places sorted last.
    padded = np.concatenate([np.where(ok, contrast, np.inf), np.full((len(points), 1), np.inf)], axis=1)
    ordered = np.sort(padded[:, model.outline_places], axis=-1)
    n = seen.astype(int)
    middle = np.take_along_axis(ordered, np.maximum(n - 1, 0)[..., None] // 2, axis=-1)[..., 0]
    out[..., 1] = np.where(n > 0, middle, 0.0)
    return out


def band_colours(model: StackModel, frame: FrameSamples, points: np.ndarray, vis: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Median colour (points x bands x 3) and spread (points x bands) of each of ``points``'
    visible front bands and top faces (:attr:`StackModel.band_index` order); NaN where nothing
    of a band is visible."""
    idx, valid = model.band_index, model.band_valid
    c = frame.colour[model.starts[points][:, None, None] + idx[None]]
    c[~(valid[None] & vis[:, idx])] = np.nan
    med = nan_percentile(c, 50, axis=-2)
    return med, nan_percentile(channel_sum(np.abs(c - med[..., None, :])), 50)


def printed_lines(model: StackModel, frame: FrameSamples, points: np.ndarray, vis: np.ndarray,
                  usual: float) -> np.ndarray:
    """How plainly the printed lines that meet at each of ``points`` (hex side) show around
    it, as a share of ``usual``, how plainly the frame shows them where no disc stands
    (:func:`line_contrast`): 1 as an empty point, 0 hidden by a disc whatever its colour.  NaN
    where fewer than two of the places are in view (``vis``: the points' samples'
    visibility, :meth:`StackModel.visible`), where the lines are too faint to tell
    (:data:`MIN_LINE_CONTRAST`), and on the square side.

    A line's contrast at a place is the log of the ratio of brightness on the line to that
    halfway to the next lines on either side (:func:`vision.colours.log_brightness`),
    the median over the lines and rings of :data:`LINE_RING_FRACTIONS`; the frame's is the
    same at the lines' midpoints (:func:`line_contrast`).  A stack hides every one of these
    places, so this tells a black disc on a board printed near black from the board, where
    its outline and colour hardly do."""
    out = np.full(len(points), np.nan)
    idx = model.points[0].lines
    if not len(idx) or not abs(usual) >= MIN_LINE_CONTRAST:
        return out
    level = log_brightness(frame.colour[model.starts[points][:, None] + idx])
    level = np.where(vis[:, idx], level, np.nan).reshape(len(points), len(LINE_RING_FRACTIONS), 12)
    on, between = level[..., 0::2], level[..., 1::2]  # between[k]: 30 + 60k degrees
    contrast = on - (between + np.roll(between, 1, axis=-1)) / 2
    contrast = np.where(model.line_ways[points][:, None, :], contrast, np.nan).reshape(len(points), -1)
    enough = np.sum(np.isfinite(contrast), axis=1) >= 2
    out[enough] = nan_percentile(contrast[enough], 50) / usual
    return out


MIN_LINE_CONTRAST = 0.05
"""Lines whose brightness is within this of the board's beside them (log of the ratio) are too
faint to tell a point covered from one not (:func:`printed_lines`)."""


def line_contrast(model: StackModel, frame: FrameSamples) -> float:
    """How the frame's printed lines stand out from the board beside them where no disc stands:
    the median over the lines' midpoints of the log of the ratio of brightnesses (positive
    for lines lighter than the board; the median, as stacks may hide a few); NaN on the
    square side."""
    px = model.line_beside_px
    if not len(px) or frame.crop is None:
        return float("nan")
    level = log_brightness(frame.crop.colours(px.reshape(-1, 2)).reshape(-1, 3, 3) / 255.0)
    return float(np.median(level[:, 0] - (level[:, 1] + level[:, 2]) / 2))


HIDDEN_LAYER = 0.3
"""A layer whose front band is less visible than this share is read as ``?``."""
