"""Where each stack really stands: hands put discs a few millimetres off their point.

A stack 2-3 mm off its point, seen from 60 degrees up, is shifted in the picture by most of
a layer's side.  Two things go wrong if the reader assumes it stands on its point: the bands
where each layer's colour is read catch the layer above, or the board under the lowest one;
and a single disc set back looks, by its top rim alone, like a stack of two on the point.

For each height ``h`` it could have, a stack's top face's far rim (seen against whatever
lies behind it) and its left and right outlines are each an edge at some distance from
where they would be on the point; :func:`offset_evidence` finds each edge within a few
millimetres (:data:`vision.stacks.RADIAL_MM`) and solves for the 2-D offset that explains
them best.  Then it checks what that offset predicts elsewhere: the foot's front edge on
the board, the grooves between layers and the top face's near rim must be edges exactly
there, and the far rim one layer higher must not.  A single disc set back explains its
rim with an offset but has no groove, and its foot is not where a stack of two on the
point would have it.  Where the edges say little (a white stack before a white one) the
offset stays near 0.  An edge found where the board behind shows a printed line running
along the outline (:attr:`vision.stacks.StackModel.on_print`: a square cell's border seen
just beyond a top face's rim) is left out: it may be the print's.  Offsets are millimetres
in the board frame.

Real discs' rims are rounded: the camera sees a top face's far rim and a disc's foot where
its ray grazes the rounding, inside a sharp cylinder's outline (:func:`rim_inset`), which
a fit that takes them for sharp reads as a stack set towards the camera (on rendered
scenes by 0.43 mm on average, a third of a layer's side seen from 60 degrees).  And hands
set each disc of a stack a millimetre or so off the one below: :func:`disc_offsets` finds
where each disc of a stack stands, by its foot, to read its colour there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.stacks import EDGE_SHARE, NEAR_MM, RADIAL_MM, FrameSamples, StackModel

PRIOR = 0.6
"""How strongly an offset is pulled to 0, against one clear edge's pull (a ridge term)."""
INLIER_MM = 1.0
"""An edge this far from where the fitted offset puts it is left out of the second fit."""
FEATURES = ("fit_rim", "fit_above_rim", "fit_foot", "fit_near_min", "fit_offset", "fit_residual")
"""Per height: the far rim's edge where the offset puts it, the far rim's one layer higher,
the foot's front edge, the weakest of the grooves and the top's near rim, the offset's length
(mm) and how far the fitted edges are from the offset's prediction (mm, weighted RMS)."""


def _fit(directions: np.ndarray, radial: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """For every point and fit (``weights``: points x fits x places): the 2-D offset (points x
    fits x 2) whose projections on the point's ``directions`` (points x places x 2) best match
    its ``radial`` (points x places, mm) in the weighted least squares, pulled to 0 by
    :data:`PRIOR`.  For given weights the offset is linear in ``radial``."""
    dx, dy = directions[..., 0], directions[..., 1]
    # The 2 x 2 normal equations, solved in closed form for every point and fit.
    a, b, d = np.moveaxis(weights @ np.stack([dx * dx, dx * dy, dy * dy], axis=-1), -1, 0)
    a, d = a + PRIOR, d + PRIOR
    u, v = np.moveaxis((weights * radial[:, None]) @ directions, -1, 0)
    det = a * d - b * b
    return np.stack([(d * u - b * v) / det, (a * v - b * u) / det], axis=-1)


def _solve(directions: np.ndarray, radial: np.ndarray, weights: np.ndarray, suspect: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fit` to the edges not ``suspect`` (points x places: they may be the print's),
    then fitted again to every edge the first fit explains (:data:`INLIER_MM`), suspect or
    not: the offsets (points x fits x 2) and the weighted RMS miss of the edges kept (mm,
    points x fits)."""
    across = directions.transpose(0, 2, 1)
    offsets = _fit(directions, radial, np.where(suspect[:, None], 0.0, weights))
    miss = np.abs(offsets @ across - radial[:, None])
    w = np.where(miss <= INLIER_MM, weights, 0.0)
    offsets = _fit(directions, radial, w)
    miss = np.abs(offsets @ across - radial[:, None])
    w = np.where(miss <= INLIER_MM, w, 0.0)
    rms = np.sqrt((w * miss ** 2).sum(-1) / np.maximum(w.sum(-1), 1e-9))
    return offsets, rms


def _edges(strength: np.ndarray, ok: np.ndarray, printed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where across every outline place its edge is (mm, :data:`RADIAL_MM`, to a fraction of a
    step: the strongest row of ``strength``, points x rows x places), how strong (0 where the
    place is not ``ok``, the edge is weak, or its peak is at an end of the rows: likely
    another edge) and whether it may be a printed line's (``printed``, as ``strength``:
    :attr:`vision.stacks.StackModel.on_print`), as three (points x places) arrays."""
    R = strength.shape[1]
    step = float(RADIAL_MM[1] - RADIAL_MM[0])
    point, place = np.arange(strength.shape[0])[:, None], np.arange(strength.shape[2])

    def along(k: np.ndarray) -> np.ndarray:
        """The strength at row ``k`` (points x places) of every place."""
        return strength[point, k, place]

    # The strongest row of every place (the first of equals): numpy's argmax of floats along a
    # short middle axis is slower than max() and an argmax of booleans.
    peak = strength.max(axis=1)
    best = (strength == peak[:, None]).argmax(axis=1)
    k = np.clip(best, 1, R - 2)
    a, b, c = along(k - 1), along(k), along(k + 1)
    curve = a - 2 * b + c
    frac = np.clip(0.5 * (a - c) / np.where(np.abs(curve) > 1e-9, curve, -1e-9), -0.5, 0.5)
    radial = RADIAL_MM[0] + (k + frac) * step
    clear = ok & (peak >= EDGE_SHARE) & (best > 0) & (best < R - 1)
    return radial, np.where(clear, peak, 0.0), printed[point, best, place]


ROUND_RIM_MM = 1.0
"""How far a disc's rims are rounded (mm, the radius of the rounding): checkers-style discs'
are, by 0.3-2 mm as the renderer draws them.  On the benchmark's scenes of Attangle,
Accasta, Abande and Attangle square (seed 7, every other one: 2,545 discs read at their
height) the offsets found towards the camera were 0.43 mm too far on average taking the
rims for sharp (error s.d. 0.83 mm), -0.02 with this rounding (0.76 mm)."""


def elevations(model: StackModel, points: np.ndarray) -> np.ndarray:
    """How high the camera is above the board seen from each of ``points`` (radians)."""
    cam = model.pose.camera_position_mm()
    return np.arctan2(cam[2], np.hypot(*(cam[:2] - model.centres_mm[points]).T))


def rim_inset(model: StackModel, points: np.ndarray, round_mm: float = ROUND_RIM_MM) -> np.ndarray:
    """How far inside a sharp cylinder's outline (mm, per point) a disc with rims rounded by
    ``round_mm`` shows the outline of its top face's far rim and of its foot: the camera,
    ``e`` above the board, sees them where its ray grazes the rounding, which looks as if
    the disc were ``round_mm * (sin e + cos e - 1) / sin e`` narrower there (0.59 of the
    rounding seen from 45 degrees, 0.42 from 60, 0.30 from 70)."""
    e = elevations(model, points)
    return round_mm * (np.sin(e) + np.cos(e) - 1) / np.maximum(np.sin(e), 1e-6)


def offset_evidence(model: StackModel, points: np.ndarray, vis: np.ndarray, strength: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """For every height 0..H of each of ``points``: the offset (mm, points x (H + 1) x 2) that
    best explains a stack of that height, and the evidence rows (points x (H + 1) x
    len(:data:`FEATURES`)) it leaves (``vis``: points x samples of a block; ``strength``:
    :func:`vision.stacks.outline_strength`).  The far rims' and the foot's edges are looked
    for :func:`rim_inset` inside a sharp disc's."""
    H, P = model.max_height, len(points)
    offsets = np.zeros((P, H + 1, 2))
    rows = np.zeros((P, H + 1, len(FEATURES)))
    o, groups, member = model.outline_index, model.outline_groups, model.outline_member
    directions = model.directions[points]
    R = len(RADIAL_MM)
    step = float(RADIAL_MM[1] - RADIAL_MM[0])
    ok = vis[:, o[R // 2]]
    point, place = np.arange(P)[:, None], np.arange(strength.shape[2])
    radial, weights, suspect = _edges(strength, ok, model.on_print[points])
    # Groups: far rims at heights 1..H (0..H-1), near rims at 0..H (H..2H), sides of layers (2H+1..3H).
    h = np.arange(1, H + 1)[:, None]
    fits = (groups[None] == h - 1) | ((groups[None] > 2 * H) & (groups[None] <= 2 * H + h))
    used = fits.any(axis=0)  # only the places some fit uses: the near rims are checked, not fitted on
    fitted = np.where(fits[:, used][None], weights[:, None, used], 0.0)
    directions, radial = directions[:, used], radial[:, used]
    # A rounded rim shows its outline inside a sharp cylinder's: the far rims' and the foot's
    # edges are nearer the point than the offset alone puts them.
    inset = np.where(groups <= H, rim_inset(model, points)[:, None], 0.0)
    offsets[:, 1:], rms = _solve(directions, radial + inset[:, used], fitted, suspect[:, used])
    # Every outline's edge strength where each height's offset puts it (half a millimetre's slack).
    shift = offsets[:, 1:] @ model.directions[points].transpose(0, 2, 1) - inset[:, None]
    r = np.clip(np.round((shift - RADIAL_MM[0]) / step).astype(int), 1, R - 2)
    widest = np.maximum(np.maximum(strength[:, :-2], strength[:, 1:-1]), strength[:, 2:])  # rows 1..R-2, +-1
    at = widest[point[..., None], r - 1, place]
    seen = ok @ member
    mean = ((at * ok[:, None]) @ member) / np.maximum(seen, 1)[:, None]
    # Per height h = j + 1: its far rim, the far rim above, the foot, the weakest near rim up to its top.
    j = np.arange(H)
    rows[:, 1:, 0] = mean[:, j, j]
    rows[:, 1:H, 1] = mean[:, j[:-1], j[:-1] + 1]
    rows[:, 1:, 2] = mean[:, :, H]
    rows[:, 1:, 3] = np.minimum.accumulate(mean[:, :, H + 1:2 * H + 1], axis=2)[:, j, j]
    rows[:, 1:, 4] = np.hypot(offsets[:, 1:, 0], offsets[:, 1:, 1])
    rows[:, 1:, 5] = rms
    return offsets, rows


@dataclass(frozen=True)
class StackColours:
    """Colours (0..1, BGR) read on the stacks of some points, where they really stand."""

    points: np.ndarray
    """The points (indices) with a stack."""
    layers: np.ndarray
    """(points x H x samples x 3): on the side of every layer k = 0..H-1 facing the camera
    (:meth:`StackModel.front_mm`; layers above a stack's height are not on it)."""
    cap: np.ndarray
    """(points x samples x 3): on the top face (:meth:`StackModel.cap_mm`)."""
    rims: np.ndarray
    """(points x rings x samples x 3): on the rings of the top face's rim
    (:meth:`StackModel.cap_rims_mm`), NaN where a nearer stack hides them."""


def stack_colours(model: StackModel, frame: FrameSamples, heights: np.ndarray, offsets: np.ndarray,
                  discs: np.ndarray) -> StackColours | None:
    """The colours of every stack of ``heights``, read at its real place (``offsets``: points x
    2, mm; each layer's side where its disc stands, ``discs``: points x H x 2, mm), the layers'
    and the top face's in the order of the reader's samples, so their visibility masks apply (a
    layer's side, read at :data:`vision.stacks.COLOUR_HEIGHTS`, takes those of the reader's
    samples of it at the same angles, a little lower: :data:`vision.stacks.FRONT_HEIGHTS`); None
    where there is no stack (or no filtered frame)."""
    todo = np.flatnonzero(heights > 0)
    if frame.crop is None or not len(todo):
        return None
    (cx, cy), h = (model.centres_mm[todo] + offsets[todo]).T, heights[todo]
    shift = np.column_stack([offsets[todo], np.zeros(len(todo))])[:, None]
    start = model.starts[todo][:, None]
    # The samples of the layers' colours and the top face, moved to where the stack stands.
    layers = model.colour_mm[todo] + np.concatenate([discs[todo], np.zeros((len(todo), model.max_height, 1))],
                                                    axis=-1)[:, :, None]
    parts = [layers, model.bank_mm[start + model.cap_index[h]] + shift, model.cap_rims_mm(cx, cy, h)]
    px = model.pose.project(np.concatenate([p.reshape(-1, 3) for p in parts]))
    ends = np.cumsum([p[..., 0].size for p in parts])[:-1]
    read = np.split(frame.crop.colours(px, smoothed=False) / 255.0, ends)  # as taken: see Crop.colours
    layers, cap, rims = (c.reshape(*p.shape[:-1], 3) for c, p in zip(read, parts))
    rims[model.hidden_by_nearer(todo, np.split(px, ends)[2].reshape(*parts[2].shape[:-1], 2), heights)] = np.nan
    return StackColours(todo, layers, cap, rims)


GROOVE_WINDOW = 0.45
"""A disc's foot is looked for within this share of the distance (across the outline) between
two grooves' pictures of where the stack's offset puts it, at most :data:`NEAR_MM`: the
grooves above and below are farther."""


def disc_offsets(model: StackModel, points: np.ndarray, heights: np.ndarray, vis: np.ndarray,
                 strength: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Where each disc of the stacks of ``heights`` on ``points`` stands (mm, points x H x 2),
    for reading its colour: hands set a disc a millimetre or so off the one below, which from
    a steep camera moves its side's picture by a third of a layer.

    Whatever shows below a disc's side (the board, the side of the disc below or a sliver of
    its top face), the boundary is the disc's own foot, so the near rim at its foot
    (:attr:`vision.stacks._PointSamples.near`, seen :func:`rim_inset` inside) says where it
    stands.  It is looked for close to where the stack's offset (``offsets``: points x 2)
    puts it (:data:`GROOVE_WINDOW`) and solved for as the stack's offset is (:func:`_solve`),
    pulled towards the stack's; a foot that shows no edge (on a disc of its own colour)
    leaves the disc where the stack is, as are layers above a stack's height.  ``vis``,
    ``strength``: as for :func:`offset_evidence`.  On the benchmark's scenes of four stacking
    games (seed 7) a disc on one of the other colour is found 0.46 mm off towards the camera
    in the mean, where its stack's offset is 0.55 mm off (a disc on one of its own colour:
    no better).  On 560 of our renderer's scenes of seven games (seeds 7 and 8) and 180 of
    POV-Ray's of six (``tools/povray_scenes.py --seed 931``), reading the layers there rather
    than all at the stack's offset read 211 points wrong instead of 216 (:func:`rim_inset`
    had made it 241 -> 216)."""
    H, P = model.max_height, len(points)
    out = np.repeat(offsets[:, None], H, axis=1).astype(float)
    if not P:
        return out
    feet = (model.outline_groups >= H) & (model.outline_groups < 2 * H)  # disc k's foot: the near rim k layers up
    groups, strength = model.outline_groups[feet], strength[..., feet]
    R = len(RADIAL_MM)
    step = float(RADIAL_MM[1] - RADIAL_MM[0])
    directions = model.directions[points][:, feet]
    # Each place's edge moved by the stack's offset; a foot shows inside a sharp disc's (rim_inset).
    expected = np.einsum("pxd,pd->px", directions, offsets) - rim_inset(model, points)[:, None]
    groove = model.layer_mm / np.maximum(np.tan(elevations(model, points)), 1e-6)  # grooves' distance across (mm)
    window = np.minimum(GROOVE_WINDOW * groove, NEAR_MM)
    allowed = np.abs(RADIAL_MM[None, :, None] - expected[:, None]) <= window[:, None, None] + 1e-9
    ok = vis[:, model.outline_index[R // 2, feet]]
    radial, weights, suspect = _edges(np.where(allowed, strength, 0.0), ok, model.on_print[points][..., feet])
    # A peak on the window's edge is the next groove's slope.
    k = np.clip(np.round((radial - RADIAL_MM[0]) / step).astype(int), 1, R - 2)
    inside = np.take_along_axis(allowed, (k - 1)[:, None], 1)[:, 0] & np.take_along_axis(allowed, (k + 1)[:, None], 1)[:, 0]
    disc = np.arange(H)[:, None]
    fits = (groups[None, None] == H + disc[None]) & (disc[None] < heights[:, None, None])
    delta, _ = _solve(directions, radial - expected, np.where(fits & inside[:, None], weights[:, None], 0.0), suspect)
    return out + delta
