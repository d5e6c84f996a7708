"""How tall each stack is: the evidence of :mod:`vision.stacks` and :mod:`vision.placement`
weighed by a small fitted model.

For every height a point could have, :func:`height_features` gathers one row of evidence
(:data:`FEATURES`): the outlines a stack of that height on its point would have, the
colours of its bands and top face, and what the best offset for that height predicts
(:func:`vision.placement.offset_evidence`).  :class:`HeightModel` scores the rows, a
softmax over the heights gives their probabilities, and those of heights the game never
builds go to its nearest ones (:attr:`vision.shapes.StackShapes.fold`).

The games share one model, except where a game's own reads its heights clearly better:
Accasta, the only game with stacks up to 6, whose held-out heights the shared model reads
0.9766 right and its own 0.9901.  The other games' own models read at most 3 more of their
1110-1920 held-out points right and were surer of their mistakes (Abande's read a white disc
on a test film as two discs, surely, where the shared model is unsure).

:func:`read_heights` goes through the points from the camera outwards, so a stack's height
decides what it hides of the stacks behind it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.placement import FEATURES as FIT_FEATURES
from vision.placement import offset_evidence
from vision.stacks import FrameSamples, StackModel, band_colours, outline_evidence, outline_strength


def height_features(model: StackModel, frame: FrameSamples, points: np.ndarray, vis: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Evidence for every height 0..H of each of ``points`` (indices; ``vis``: their samples'
    visibility, :meth:`StackModel.visible`): one row of :data:`FEATURES` per height (points x
    (H + 1) x features), and the offset (mm, points x (H + 1) x 2) each height's stack would
    stand at."""
    H, P = model.max_height, len(points)
    strength = outline_strength(model, frame, points)
    ev = outline_evidence(model, frame, points, vis, strength)
    nothing = np.broadcast_to(np.array([0.0, 0.0, 1.0, 0.0]), (P, 4))
    rim = [ev[:, k] for k in range(H)] + [nothing]  # rim[-1]: nothing, for h = 0 and above H
    near, side = ev[:, H:2 * H + 1], ev[:, 2 * H + 1:]
    med, spr = band_colours(model, frame, points, vis)
    seen = ~np.isnan(spr)
    rows = np.zeros((P, H + 1, len(FEATURES)))
    offsets, rows[..., len(FEATURES) - len(FIT_FEATURES):] = offset_evidence(model, points, vis, strength)
    strongest = ev[:, :H, 3].max(axis=1) + 0.05
    side_scale = np.minimum(model.side_px[points], 10.0) / 10.0
    zero, one = np.zeros(P), np.ones(P)
    for h in range(H + 1):
        top, above = rim[h - 1], rim[h] if h < H else nothing
        side_above = side[:, h] if h < H else nothing
        shown = side[:, :h, 2] > 0  # the layers below whose sides are in view
        lowest = np.where(shown[..., None], side[:, :h, :2], np.inf).min(1, initial=np.inf)
        weakest = np.where(shown.any(1)[:, None], lowest, 0.0)  # edge and contrast of the weakest of those sides
        spread = np.where(seen[:, :h], spr[:, :h], 0.0).max(1, initial=0.0)
        if h:
            both = seen[:, H + h] & seen[:, h - 1]
            match = np.where(both, np.abs(med[:, H + h] - med[:, h - 1]).sum(-1), 0.0)
        else:
            match = zero
        rows[:, h, :len(_BASE_FEATURES)] = np.column_stack([
            np.full(P, float(h == 0)), top[:, 0], top[:, 1], above[:, 0], above[:, 1], weakest[:, 0], weakest[:, 1],
            side_above[:, 0], side_above[:, 1], top[:, 2], spread, match, np.full(P, h / H),
            near[:, 0, 0] if h else zero, near[:, 0, 1] if h else zero, near[:, h, 0] if h else zero,
            near[:, h, 1] if h else zero, near[:, 1:h + 1, 0].min(1) if h else zero,
            near[:, h + 1, 0] if h < H else zero, near[:, 0, 2] if h else one,
            side[:, :h, 2].min(1, initial=1.0)])
        below = rim[h - 2] if h >= 2 else nothing
        rows[:, h, len(_BASE_FEATURES):len(FEATURES) - len(FIT_FEATURES)] = np.column_stack([
            top[:, 3], above[:, 3], below[:, 3], top[:, 3] / strongest,
            top[:, 3] - np.maximum(above[:, 3], below[:, 3] if h >= 2 else zero), top[:, 1] - above[:, 1],
            near[:, h, 3] if h else zero, near[:, h + 1, 3] if h < H else zero, side_scale])
    return rows, offsets


_BASE_FEATURES = ("empty", "rim_edge", "rim_contrast", "above_rim_edge", "above_rim_contrast",
                  "side_edge_min", "side_contrast_min", "above_side_edge", "above_side_contrast", "rim_visible",
                  "band_spread_max", "cap_band_mismatch", "height_share",
                  "foot_edge", "foot_contrast", "near_rim_edge", "near_rim_contrast",
                  "groove_edge_min", "above_near_rim_edge", "foot_visible", "side_visible_min")
FEATURES = _BASE_FEATURES + ("rim_strength", "above_rim_strength", "below_rim_strength", "rim_strength_share",
                             "rim_strength_peak", "rim_contrast_step", "near_rim_strength",
                             "above_near_rim_strength", "side_scale") + FIT_FEATURES

HEIGHT_MODEL_FILE = Path(__file__).with_name("height_model.json")
"""The fitted height models: one shared by the games, and the games' own where they have one
(``tools/fit_stack_weights.py`` writes them)."""


class HeightModel:
    """How much a height's row of :data:`FEATURES` counts for that height: a small neural net
    (standardised features, one hidden tanh layer, plus a linear term) whose scores over a
    point's allowed heights go through a softmax at a temperature above 1, so that a wrong
    height is unsure rather than sure (``tools/fit_stack_weights.TEMPERATURE``).  Fitted by
    ``tools/fit_stack_weights.py`` on rendered scenes of the games it reads (see
    ``HEIGHT_MODEL_FILE``'s ``fitted_on``)."""

    def __init__(self, params: dict) -> None:
        if tuple(params["features"]) != FEATURES:
            raise ValueError("the height model was fitted on other features; refit it with tools/fit_stack_weights.py")
        self.mean = np.array(params["mean"])
        self.scale = 1.0 / np.array(params["std"])
        self.W1 = np.array(params["W1"])
        self.b1 = np.array(params["b1"])
        self.w2 = np.array(params["w2"])
        self.v = np.array(params["v"])
        self.temperature = float(params.get("temperature", 1.0))

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """The score of every row (height) of :func:`height_features`; higher is likelier."""
        x = (rows - self.mean) * self.scale
        return (np.tanh(x @ self.W1 + self.b1) @ self.w2 + x @ self.v) / self.temperature

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """The probability of every row's height (a softmax of :meth:`scores` along the last
        axis: ``rows`` is heights x features, or points x heights x features)."""
        s = self.scores(rows)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        return p / p.sum(axis=-1, keepdims=True)


@lru_cache(maxsize=1)
def _fitted(path: Path = HEIGHT_MODEL_FILE) -> dict:
    return json.loads(path.read_text())


def game_model(fitted: dict, game: str) -> HeightModel:
    """``game``'s model among fitted height models (``{"shared": params, "games": {game:
    params}}``, as in ``HEIGHT_MODEL_FILE``): its own, or the shared one."""
    return HeightModel(fitted["games"].get(game, fitted["shared"]))


def height_model(game: str) -> HeightModel:
    """The height model the reader uses for ``game`` (:func:`game_model` of ``HEIGHT_MODEL_FILE``)."""
    return game_model(_fitted(), game)


def read_heights(model: StackModel, frame: FrameSamples, net: HeightModel, hidden: np.ndarray | None = None,
                 fold: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every point's height, its probability, visibility mask (points x samples of a block) and
    offset (mm, points x 2: where the stack stands, :mod:`vision.placement`), the evidence
    weighed by ``net`` (the game's :func:`height_model`).

    A stack's height decides what it hides of the stacks behind it, so a point is read with
    its samples' visibility given the heights of the nearer points.  All points are read at
    once with nothing hidden, then those whose visibility the heights found change are read
    again, until none changes: as a point's visibility depends only on nearer points, this
    ends with every point read as if the points had been read one by one from the camera
    outwards.  ``hidden`` (per sample, bool) marks pixels known to show something else (a hand);
    ``fold`` (heights x heights) moves the probability of heights the game never builds to
    those it does (:attr:`vision.shapes.StackShapes.fold`; default: every height is built)."""
    n = len(model.names)
    heights = np.zeros(n, int)
    prob = np.zeros(n)
    offsets = np.zeros((n, 2))
    every = np.arange(n)

    free = None if hidden is None else ~hidden[model.starts[:, None] + np.arange(model.block)]

    def visibility() -> np.ndarray:
        vis = model.visible(every, heights)
        return vis if free is None else vis & free

    used = visibility()
    todo = every
    while len(todo):
        x, at = height_features(model, frame, todo, used[todo])
        p = net.probabilities(x) if fold is None else net.probabilities(x) @ fold
        heights[todo] = np.argmax(p, axis=1)
        prob[todo] = p[np.arange(len(todo)), heights[todo]]
        offsets[todo] = at[np.arange(len(todo)), heights[todo]]
        vis = visibility()
        todo = every[np.any(vis != used, axis=1)]
        used = vis
    return heights, prob, used, offsets
