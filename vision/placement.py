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
offset stays near 0.  Offsets are millimetres in the board frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.stacks import EDGE_SHARE, RADIAL_MM, FrameSamples, StackModel

PRIOR = 0.6
"""How strongly an offset is pulled to 0, against one clear edge's pull (a ridge term)."""
INLIER_MM = 1.0
"""An edge this far from where the fitted offset puts it is left out of the second fit."""
FEATURES = ("fit_rim", "fit_above_rim", "fit_foot", "fit_near_min", "fit_offset", "fit_residual")
"""Per height: the far rim's edge where the offset puts it, the far rim's one layer higher,
the foot's front edge, the weakest of the grooves and the top's near rim, the offset's length
(mm) and how far the fitted edges are from the offset's prediction (mm, weighted RMS)."""


def _solve(directions: np.ndarray, radial: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every point and fit (``weights``: points x fits x places): the 2-D offset whose
    projections on the point's ``directions`` (points x places x 2) best match its ``radial``
    (points x places, mm), and the weighted RMS miss (mm), as (points x fits x 2) and
    (points x fits)."""
    w = weights
    dx, dy = directions[..., 0], directions[..., 1]
    products = np.stack([dx * dx, dx * dy, dy * dy], axis=-1)  # points x places x 3
    across = directions.transpose(0, 2, 1)
    for _ in range(2):  # refit without the edges the first fit does not explain
        # The 2 x 2 normal equations, ridge PRIOR, solved in closed form for every point and fit.
        a, b, d = np.moveaxis(w @ products, -1, 0)
        a, d = a + PRIOR, d + PRIOR
        u, v = np.moveaxis((w * radial[:, None]) @ directions, -1, 0)
        det = a * d - b * b
        offsets = np.stack([(d * u - b * v) / det, (a * v - b * u) / det], axis=-1)
        miss = np.abs(offsets @ across - radial[:, None])
        w = np.where(miss <= INLIER_MM, w, 0.0)
    rms = np.sqrt((w * miss ** 2).sum(-1) / np.maximum(w.sum(-1), 1e-9))
    return offsets, rms


def offset_evidence(model: StackModel, points: np.ndarray, vis: np.ndarray, strength: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """For every height 0..H of each of ``points``: the offset (mm, points x (H + 1) x 2) that
    best explains a stack of that height, and the evidence rows (points x (H + 1) x
    len(:data:`FEATURES`)) it leaves (``vis``: points x samples of a block; ``strength``:
    :func:`vision.stacks.outline_strength`)."""
    H, P = model.max_height, len(points)
    offsets = np.zeros((P, H + 1, 2))
    rows = np.zeros((P, H + 1, len(FEATURES)))
    o, groups, member = model.outline_index, model.outline_groups, model.outline_member
    directions = model.directions[points]
    R = len(RADIAL_MM)
    step = float(RADIAL_MM[1] - RADIAL_MM[0])
    ok = vis[:, o[R // 2]]
    point, place = np.arange(P)[:, None], np.arange(strength.shape[2])

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
    # A peak at the end of the range is likely another edge; a weak one is no edge.
    weights = np.where(ok & (peak >= EDGE_SHARE) & (best > 0) & (best < R - 1), peak, 0.0)
    # Groups: far rims at heights 1..H (0..H-1), near rims at 0..H (H..2H), sides of layers (2H+1..3H).
    h = np.arange(1, H + 1)[:, None]
    fits = (groups[None] == h - 1) | ((groups[None] > 2 * H) & (groups[None] <= 2 * H + h))
    offsets[:, 1:], rms = _solve(directions, radial, np.where(fits[None], weights[:, None], 0.0))
    # Every outline's edge strength where each height's offset puts it (half a millimetre's slack).
    shift = offsets[:, 1:] @ directions.transpose(0, 2, 1)
    r = np.clip(np.round((shift - RADIAL_MM[0]) / step).astype(int), 1, R - 2)
    widest = np.maximum(np.maximum(strength[:, :-2], strength[:, 1:-1]), strength[:, 2:])  # rows 1..R-2, +-1
    at = widest[point[..., None], r - 1, place]
    seen = ok @ member
    mean = ((at * ok[:, None]) @ member) / np.maximum(seen, 1)[:, None]
    for j in range(H):
        hj = j + 1
        rows[:, hj] = np.column_stack([mean[:, j, hj - 1], mean[:, j, hj] if hj < H else np.zeros(P), mean[:, j, H],
                                       mean[:, j, H + 1:H + hj + 1].min(axis=1),
                                       np.hypot(offsets[:, hj, 0], offsets[:, hj, 1]), rms[:, j]])
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


def stack_colours(model: StackModel, frame: FrameSamples, heights: np.ndarray, offsets: np.ndarray
                  ) -> StackColours | None:
    """The colours of every stack of ``heights``, read at its real place (``offsets``: points x
    2, mm), the layers' and the top face's in the order of the reader's samples, so their
    visibility masks apply (a layer's side, read at :data:`vision.stacks.COLOUR_HEIGHTS`, takes
    those of the reader's samples of it at the same angles, a tenth of a layer lower); None where
    there is no stack (or no filtered frame)."""
    todo = np.flatnonzero(heights > 0)
    if frame.crop is None or not len(todo):
        return None
    (cx, cy), h = (model.centres_mm[todo] + offsets[todo]).T, heights[todo]
    shift = np.column_stack([offsets[todo], np.zeros(len(todo))])[:, None]
    start = model.starts[todo][:, None]
    # The samples of the layers' colours and the top face, moved to where the stack stands.
    layers = model.colour_mm[todo] + shift[..., None, :]
    parts = [layers, model.bank_mm[start + model.cap_index[h]] + shift, model.cap_rims_mm(cx, cy, h)]
    px = model.pose.project(np.concatenate([p.reshape(-1, 3) for p in parts]))
    ends = np.cumsum([p[..., 0].size for p in parts])[:-1]
    layers, cap, rims = (c.reshape(*p.shape[:-1], 3) for c, p in zip(np.split(frame.crop.colours(px) / 255.0, ends),
                                                                        parts))
    rims[model.hidden_by_nearer(todo, np.split(px, ends)[2].reshape(*parts[2].shape[:-1], 2), heights)] = np.nan
    return StackColours(todo, layers, cap, rims)
