"""Reading every point's stack from one frame with the 3-D model of the stacks.

With the board pose known, a stack of height ``h`` at a point is an upright cylinder
(disc diameter and height from :class:`rules.geometry.BoardSpec`) whose top face and
sides land at known pixels.  :class:`StackModel` precomputes, once per pose, where to
look for every point and every height the game allows:

* the *far rim* of the top face at height ``h``: pairs of pixels just inside and just
  outside the top face's far edge, where a stack of height ``h`` has its silhouette
  against whatever is behind it (board, or a stack further back);
* the *side silhouette* of every layer: pairs inside/outside the stack's left and
  right outline at the layer's mid-height;
* the *front band* of every layer: pixels on the side facing the camera, whose colour
  is the layer's colour;
* which of those pixels each nearer stack hides, as a function of that stack's height.

:meth:`StackModel.read` then goes through the points from the camera outwards: it
picks the height whose silhouette the pixels support best (a stack of the right
height has a strong colour edge along its far rim and along every layer's outline;
one too high finds no edge above its top, one too low finds its "rim" inside the
stack), reads each layer's colour with the frame's colour model
(:mod:`vision.colours`), and leaves ``?`` where nearer stacks hide a layer.

Pixels are (x right, y down) as in :mod:`calibration.camera`; millimetres are the
board frame (origin at the board centre, z up).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import BoardPose
from rules.geometry import Geometry

RIM_ANGLES_DEG = np.linspace(-65.0, 65.0, 11)
"""Where on the far rim to look, degrees from the direction straight away from the camera."""
FRONT_ANGLES_DEG = np.array([-40.0, -20.0, 0.0, 20.0, 40.0])
"""Where on a layer's side to read its colour, degrees from the direction towards the camera."""
RADIAL_MM = np.array([-1.5, -0.75, 0.0, 0.75, 1.5])
"""Offsets (mm) around an expected outline where its edge is looked for: discs sit a
few millimetres off their point."""
SILHOUETTE_MARGIN_MM = 2.5
"""Discs sit up to about this far off their point: nearer stacks are drawn this much larger."""


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
    blockers: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    """Nearer points whose stacks can hide some of this point's pixels."""
    hidden_from: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int16))
    """(samples, blockers): the lowest height of each blocker that hides each sample (H + 1: never)."""
    side_px: float = 0.0
    """How tall one layer's side looks in pixels (0 seen from straight above)."""


def _circle(cx: float, cy: float, r: float, z: float, angles: np.ndarray) -> np.ndarray:
    return np.column_stack([cx + r * np.cos(angles), cy + r * np.sin(angles), np.full(len(angles), z)])


def _inside_convex(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Which pixels ``pts`` (N x 2) lie inside the convex polygon ``poly`` (K x 2, any winding)."""
    a = poly
    b = np.roll(poly, -1, axis=0)
    cross = (b[:, 0] - a[:, 0])[None] * (pts[:, 1:2] - a[:, 1][None]) - \
        (b[:, 1] - a[:, 1])[None] * (pts[:, 0:1] - a[:, 0][None])
    return np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)


class StackModel:
    """Where every point's stack of every allowed height appears in the image of one pose.

    Build it once per board pose (it takes a few tens of milliseconds) and call
    :meth:`read` on every frame taken from that pose."""

    def __init__(self, pose: BoardPose, geometry: Geometry, max_height: int) -> None:
        self.pose = pose
        self.geometry = geometry
        self.max_height = max(1, int(max_height))
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
        blocks: list[np.ndarray] = []
        self.points: list[_PointSamples] = []
        self.starts: list[int] = []
        n = 0
        for i, (cx, cy) in enumerate(self.centres_mm):
            towards = math.atan2(cam[1] - cy, cam[0] - cx)
            pts, samples = self._samples(cx, cy, towards)
            self.starts.append(n)
            n += len(pts)
            blocks.append(pts)
            self.points.append(samples)
        bank_mm = np.vstack(blocks)
        self.bank_px = pose.project(bank_mm).astype(np.float32)
        w, h = pose.camera.image_size
        self.in_frame = (self.bank_px[:, 0] >= 0) & (self.bank_px[:, 0] <= w - 1) & \
            (self.bank_px[:, 1] >= 0) & (self.bank_px[:, 1] <= h - 1)
        # cv2.remap wants maps shorter than 32767 pixels a side: fold the bank into rows.
        rows = -(-len(self.bank_px) // 1024)
        self._map = np.zeros((rows * 1024, 2), np.float32)
        self._map[:len(self.bank_px)] = self.bank_px
        self._map = self._map.reshape(rows, 1024, 2)
        self._occlusion(depth)
        self.outlines = [self._outline_table(i) for i in range(len(self.names))]
        self.bands = [self._band_table(i) for i in range(len(self.names))]

    def _samples(self, cx: float, cy: float, towards: float) -> tuple[np.ndarray, _PointSamples]:
        r, L, H = self.radius_mm, self.layer_mm, self.max_height
        pts: list[np.ndarray] = []

        def add(block: np.ndarray) -> np.ndarray:
            start = sum(len(p) for p in pts)
            pts.append(block)
            return np.arange(start, start + len(block))

        def outline(z: float, angles: np.ndarray) -> np.ndarray:
            return add(np.vstack([_circle(cx, cy, r + d, z, angles) for d in RADIAL_MM])).reshape(len(RADIAL_MM), -1)

        away = towards + math.pi + np.radians(RIM_ANGLES_DEG)
        rim = [outline(h * L, away) for h in range(1, H + 1)]
        near = [outline(max(h * L, 0.5), towards + np.radians(RIM_ANGLES_DEG)) for h in range(H + 1)]
        sides = towards + np.radians([88.0, -88.0])
        side = [outline((k + f) * L, sides) for k in range(H) for f in (0.3, 0.7)]
        side = [np.hstack(side[2 * k:2 * k + 2]) for k in range(H)]
        front_a = towards + np.radians(FRONT_ANGLES_DEG)
        front = [add(np.vstack([_circle(cx, cy, r, (k + f) * L, front_a) for f in (0.35, 0.65)])) for k in range(H)]
        cap_a = np.radians(np.arange(0, 360, 60))
        cap = [add(np.vstack([[[cx, cy, h * L]], _circle(cx, cy, 0.4 * r, h * L, cap_a)])) for h in range(H + 1)]
        # How tall a layer's side looks: the front point at the foot and one layer up.
        foot = self.pose.project(np.array([[cx + r * math.cos(towards), cy + r * math.sin(towards), z]
                                           for z in (0.0, L)]))
        return np.vstack(pts), _PointSamples(rim, near, side, front, cap, side_px=float(np.hypot(*(foot[1] - foot[0]))))

    def _outline_table(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Point ``i``'s outlines (rims, near rims, sides) side by side: sample indices
        (offsets x places), the outline each place belongs to, and the image normal per place."""
        ps = self.points[i]
        parts = [*ps.rim, *ps.near, *ps.side]
        o = np.hstack(parts)
        groups = np.concatenate([np.full(p.shape[1], k) for k, p in enumerate(parts)])
        px = self.bank_px[self.starts[i] + o]
        normal = px[-2] - px[1]
        normal /= np.linalg.norm(normal, axis=-1, keepdims=True) + 1e-9
        return o, groups, normal

    def _band_table(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Point ``i``'s front bands and top faces as one padded (bands x samples) index array
        and its mask of real entries."""
        parts = [*self.points[i].front, *self.points[i].cap]
        width = max(len(p) for p in parts)
        idx = np.zeros((len(parts), width), int)
        valid = np.zeros((len(parts), width), bool)
        for k, p in enumerate(parts):
            idx[k, :len(p)] = p
            valid[k, :len(p)] = True
        return idx, valid

    def silhouette(self, i: int, height: int, margin_mm: float = SILHOUETTE_MARGIN_MM) -> np.ndarray:
        """The outline (K x 2 pixels, convex) of a stack of ``height`` discs at point ``i``."""
        cx, cy = self.centres_mm[i]
        a = np.radians(np.arange(0, 360, 15))
        r = self.radius_mm + margin_mm
        px = self.pose.project(np.vstack([_circle(cx, cy, r, 0.0, a), _circle(cx, cy, r, height * self.layer_mm, a)]))
        return cv2.convexHull(px.astype(np.float32)).reshape(-1, 2).astype(np.float64)

    def _occlusion(self, depth: np.ndarray) -> None:
        """For every point, which nearer stacks can hide which of its pixels, from what height."""
        H = self.max_height
        hulls = [[self.silhouette(j, h) for h in range(1, H + 1)] for j in range(len(self.names))]
        boxes = [(hl[-1].min(0), hl[-1].max(0)) for hl in hulls]
        for i, ps in enumerate(self.points):
            px = self._block(i)
            lo, hi = px.min(0), px.max(0)
            blockers, table = [], []
            for j in range(len(self.names)):
                if depth[j] >= depth[i] or j == i:
                    continue
                blo, bhi = boxes[j]
                if np.any(bhi < lo) or np.any(blo > hi):
                    continue
                first = np.full(len(px), H + 1, np.int16)
                for h in range(H, 0, -1):
                    first[_inside_convex(hulls[j][h - 1], px)] = h
                if np.any(first <= H):
                    blockers.append(j)
                    table.append(first)
            ps.blockers = np.array(blockers, int)
            ps.hidden_from = np.column_stack(table) if table else np.zeros((len(px), 0), np.int16)

    def _block(self, i: int) -> np.ndarray:
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.bank_px)
        return self.bank_px[self.starts[i]:end]

    def sample(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Colours (samples x 3, BGR 0..255) and grey-level gradients (samples x 2, per pixel)
        of every sample pixel in a BGR frame, lightly smoothed; and of the part of the frame the
        samples cover (the board), the steepest edges (99th percentile of the gradient) and the
        spread of grey levels (5-95 percentile).  Only that part of the frame is filtered."""
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        h, w = image.shape[:2]
        x0, y0 = np.clip(np.floor(self.bank_px.min(0)).astype(int) - 4, 0, [w - 1, h - 1])
        x1, y1 = np.clip(np.ceil(self.bank_px.max(0)).astype(int) + 5, [x0 + 1, y0 + 1], [w, h])
        smooth = cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), 1.0)
        grey = cv2.cvtColor(smooth, cv2.COLOR_BGR2GRAY).astype(np.float32)
        grad = cv2.merge([cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)])
        steepest = float(np.percentile(cv2.magnitude(grad[..., 0], grad[..., 1])[::2, ::2], 99)) / 8.0
        spread = max(float(np.percentile(grey[::2, ::2], 95) - np.percentile(grey[::2, ::2], 5)), 1.0)
        where = self._map - np.array([x0, y0], np.float32)
        colour = cv2.remap(smooth, where, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        g = cv2.remap(grad, where, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        n = len(self.bank_px)
        return colour.reshape(-1, 3)[:n].astype(np.float32), g.reshape(-1, 2)[:n] / 8.0, steepest, spread

    def visible(self, i: int, heights: np.ndarray) -> np.ndarray:
        """Which of point ``i``'s samples are in the frame and not hidden by nearer stacks of ``heights``."""
        ps = self.points[i]
        s = self.starts[i]
        vis = self.in_frame[s:s + len(ps.hidden_from)].copy()
        if len(ps.blockers):
            vis &= np.all(heights[ps.blockers][None, :] < ps.hidden_from, axis=1)
        return vis


EDGE_COHERENCE = 0.85
"""An outline sample counts as an edge where the grey-level gradient points along the
outline's normal within about 30 degrees (board lines and cell borders run other ways)."""
EDGE_SHARE = 0.15
"""... and where it is at least this share of the frame's typical strong edge."""


BOARD_EDGE_SHARE = 0.8
"""A frame's strong edges are at least this share of the board's steepest: where pieces stand,
their outlines' edges (95th percentile at the samples) are 0.76-1.02 of it on rendered scenes."""


@dataclass(frozen=True)
class FrameSamples:
    """One frame's samples, normalised: colours 0..1 and gradients in units of the frame's strong edges."""

    colour: np.ndarray
    grad: np.ndarray
    sharpness: float
    """How steep the steepest edges of the board's part of the frame are for its contrast: the
    99th percentile of the gradient (grey levels per pixel) over the 5-95 percentile range of
    grey levels.  The board's printed lines and cells are always there, so an empty board is as
    sharp as a full one.  Sharp photos are above 0.13; a blur of 4 pixels brings most under 0.12."""

    @classmethod
    def of(cls, model: StackModel, image: np.ndarray) -> "FrameSamples":
        colour, grad, steepest, spread = model.sample(image)
        mag = np.linalg.norm(grad, axis=1)[model.in_frame]
        if len(mag) == 0:
            return cls(colour / 255.0, grad, 0.0)
        # The samples' strong edges are the discs' outlines; on an empty board there are none,
        # and the board's own lines and cells set the scale (paper grain is no edge).
        edge = max(float(np.percentile(mag, 95)), BOARD_EDGE_SHARE * steepest, 4.0)
        return cls(colour / 255.0, grad / edge, steepest / spread)


def outline_evidence(model: StackModel, frame: FrameSamples, i: int, vis: np.ndarray) -> np.ndarray:
    """(edge share, contrast, visible share) of every outline of point ``i`` (rims, near rims,
    sides, in :attr:`StackModel.outlines` order), as an (outlines x 3) array.

    Edge share: the share of visible places with an edge along the outline.  Contrast:
    the median colour difference between just inside and just outside it."""
    o, groups, normal = model.outlines[i]
    count = int(groups[-1]) + 1
    s = model.starts[i]
    ok = vis[o[0]] & vis[o[-1]] & vis[o[len(RADIAL_MM) // 2]]
    g = frame.grad[s + o]
    along = np.abs((g * normal[None]).sum(-1))
    coherent = along >= EDGE_COHERENCE * (np.linalg.norm(g, axis=-1) + 1e-9)
    edge = np.any(coherent & (along >= EDGE_SHARE), axis=0)
    contrast = np.linalg.norm(frame.colour[s + o[0]] - frame.colour[s + o[-1]], axis=-1)
    places = np.bincount(groups, minlength=count)
    seen = np.bincount(groups, weights=ok, minlength=count)
    out = np.zeros((count, 3))
    out[:, 0] = np.bincount(groups, weights=edge & ok, minlength=count) / np.maximum(seen, 1)
    out[:, 2] = seen / places
    # Medians of every group at once: sort by (group, contrast), take each group's middle.
    gv, cv = groups[ok], contrast[ok]
    order = np.lexsort((cv, gv))
    n = seen.astype(int)
    first = np.concatenate([[0], np.cumsum(n)[:-1]])
    has = n > 0
    out[has, 1] = cv[order][first[has] + (n[has] - 1) // 2]
    return out


def band_colours(model: StackModel, frame: FrameSamples, i: int, vis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median colour (bands x 3) and spread (bands) of point ``i``'s visible front bands
    and top faces (:attr:`StackModel.bands` order); NaN where nothing of a band is visible."""
    idx, valid = model.bands[i]
    c = frame.colour[model.starts[i] + idx]
    c[~(valid & vis[idx])] = np.nan
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN band is "not seen"
        med = np.nanmedian(c, axis=1)
        spread = np.nanmedian(np.abs(c - med[:, None]).sum(-1), axis=1)
    return med, spread


def height_features(model: StackModel, frame: FrameSamples, i: int, vis: np.ndarray) -> np.ndarray:
    """Evidence for every height 0..H of point ``i``: one row of :data:`FEATURES` per height."""
    ps = model.points[i]
    H = model.max_height
    ev = [tuple(row) for row in outline_evidence(model, frame, i, vis)]
    rim, near, side = ev[:H], ev[H:2 * H + 1], ev[2 * H + 1:]
    med, spr = band_colours(model, frame, i, vis)
    seen = ~np.isnan(spr)
    bands = [(med[k], spr[k]) if seen[k] else None for k in range(H)]
    caps = [(med[H + k], spr[H + k]) if seen[H + k] else None for k in range(H + 1)]
    nothing = (0.0, 0.0, 1.0)
    rows = np.zeros((H + 1, len(FEATURES)))
    for h in range(H + 1):
        top = rim[h - 1] if h else nothing
        above = rim[h] if h < H else nothing
        side_above = side[h] if h < H else nothing
        below = [side[k] for k in range(h) if side[k][2] > 0]
        spread = max((bands[k][1] for k in range(h) if bands[k] is not None), default=0.0)
        cap, band = caps[h], bands[h - 1] if h else None
        match = float(np.abs(cap[0] - band[0]).sum()) if cap is not None and band is not None else 0.0
        rows[h] = [h == 0, top[0], top[1], above[0], above[1],
                   min((b[0] for b in below), default=0.0), min((b[1] for b in below), default=0.0),
                   side_above[0], side_above[1], top[2], spread, match, h / H,
                   near[0][0] if h else 0.0, near[0][1] if h else 0.0, near[h][0] if h else 0.0,
                   near[h][1] if h else 0.0,
                   min(near[k][0] for k in range(1, h + 1)) if h else 0.0,
                   near[h + 1][0] if h < H else 0.0,
                   near[0][2] if h else 1.0, min((side[k][2] for k in range(h)), default=1.0)]
    return rows


FEATURES = ("empty", "rim_edge", "rim_contrast", "above_rim_edge", "above_rim_contrast",
            "side_edge_min", "side_contrast_min", "above_side_edge", "above_side_contrast", "rim_visible",
            "band_spread_max", "cap_band_mismatch", "height_share",
            "foot_edge", "foot_contrast", "near_rim_edge", "near_rim_contrast",
            "groove_edge_min", "above_near_rim_edge", "foot_visible", "side_visible_min")

HEIGHT_WEIGHTS = np.array([6.990, 3.652, 3.264, 0.415, 0.294, 2.185, 0.023, -0.343, -0.730, 0.009, -0.956, -0.089,
                           -2.105, 3.410, 1.549, 2.390, 0.080, 1.071, -0.841, -0.373, -0.132])
"""How much each of :data:`FEATURES` counts for a height: a multinomial logistic regression
fitted by ``tools/fit_stack_weights.py`` on rendered scenes of every stacking game (40 a
game: accasta, abande, abande-square, attangle, attangle-2008, attangle-square, dame100,
``tacticblue scenes render --count 40 --seed 101``): heights right on 97.4% of the points
of held-out images."""
HIDDEN_LAYER = 0.3
"""A layer whose front band is less visible than this share is read as ``?``."""


@dataclass(frozen=True)
class PointReading:
    """What one point shows: its stack (``?`` for layers that cannot be seen) and how sure we are."""

    stack: str
    confidence: float
    height_probability: float
    seen: bool = True
    """False when the point is out of the frame (or under a hand): nothing was read."""


def read_heights(model: StackModel, frame: FrameSamples, hidden: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Every point's height, its probability and visibility mask, nearest point first.

    ``hidden`` (per sample, bool) marks pixels known to show something else (a hand)."""
    n = len(model.names)
    heights = np.zeros(n, int)
    prob = np.zeros(n)
    masks: list[np.ndarray] = [np.zeros(0, bool)] * n
    for i in model.order:
        vis = model.visible(i, heights)
        if hidden is not None:
            vis &= ~hidden[model.starts[i]:model.starts[i] + len(vis)]
        x = height_features(model, frame, i, vis)
        s = x @ HEIGHT_WEIGHTS
        p = np.exp(s - s.max())
        p /= p.sum()
        heights[i] = int(np.argmax(p))
        prob[i] = float(p[heights[i]])
        masks[i] = vis
    return heights, prob, masks
