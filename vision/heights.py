"""How tall each stack is: the evidence of :mod:`vision.stacks` and :mod:`vision.placement`
weighed by a small fitted model.

For every height a point could have, :func:`height_features` gathers one row of evidence
(:data:`FEATURES`): the outlines a stack of that height on its point would have, the
colours of its bands and top face, and what the best offset for that height predicts
(:func:`vision.placement.offset_evidence`).  :class:`HeightModel` scores the rows and a
softmax over the heights the game allows gives their probabilities.  :func:`read_heights`
goes through the points from the camera outwards, so a stack's height decides what it hides
of the stacks behind it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.placement import FEATURES as FIT_FEATURES
from vision.placement import offset_evidence
from vision.stacks import FrameSamples, StackModel, band_colours, outline_evidence, outline_strength


def height_features(model: StackModel, frame: FrameSamples, i: int, vis: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Evidence for every height 0..H of point ``i``: one row of :data:`FEATURES` per height,
    and the offset (mm, (H + 1) x 2) each height's stack would stand at."""
    ps = model.points[i]
    H = model.max_height
    strength = outline_strength(model, frame, i)
    ev = [tuple(row) for row in outline_evidence(model, frame, i, vis, strength)]
    rim, near, side = ev[:H], ev[H:2 * H + 1], ev[2 * H + 1:]
    med, spr = band_colours(model, frame, i, vis)
    seen = ~np.isnan(spr)
    bands = [(med[k], spr[k]) if seen[k] else None for k in range(H)]
    caps = [(med[H + k], spr[H + k]) if seen[H + k] else None for k in range(H + 1)]
    nothing = (0.0, 0.0, 1.0, 0.0)
    rows = np.zeros((H + 1, len(FEATURES)))
    offsets, rows[:, len(FEATURES) - len(FIT_FEATURES):] = offset_evidence(model, i, vis, strength)
    strongest = max((r[3] for r in rim), default=0.0) + 0.05
    side_scale = min(ps.side_px, 10.0) / 10.0
    for h in range(H + 1):
        top = rim[h - 1] if h else nothing
        above = rim[h] if h < H else nothing
        side_above = side[h] if h < H else nothing
        below = [side[k] for k in range(h) if side[k][2] > 0]
        spread = max((bands[k][1] for k in range(h) if bands[k] is not None), default=0.0)
        cap, band = caps[h], bands[h - 1] if h else None
        match = float(np.abs(cap[0] - band[0]).sum()) if cap is not None and band is not None else 0.0
        rows[h, :len(_BASE_FEATURES)] = [h == 0, top[0], top[1], above[0], above[1],
                   min((b[0] for b in below), default=0.0), min((b[1] for b in below), default=0.0),
                   side_above[0], side_above[1], top[2], spread, match, h / H,
                   near[0][0] if h else 0.0, near[0][1] if h else 0.0, near[h][0] if h else 0.0,
                   near[h][1] if h else 0.0,
                   min(near[k][0] for k in range(1, h + 1)) if h else 0.0,
                   near[h + 1][0] if h < H else 0.0,
                   near[0][2] if h else 1.0, min((side[k][2] for k in range(h)), default=1.0)]
        below = rim[h - 2] if h >= 2 else nothing
        rows[h, len(_BASE_FEATURES):len(FEATURES) - len(FIT_FEATURES)] = [
            top[3], above[3], below[3], top[3] / strongest, top[3] - max(above[3], below[3] if h >= 2 else 0.0),
            top[1] - above[1], near[h][3] if h else 0.0, near[h + 1][3] if h < H else 0.0, side_scale]
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
"""The fitted height model (``tools/fit_stack_weights.py`` writes it)."""


class HeightModel:
    """How much a height's row of :data:`FEATURES` counts for that height: a small neural net
    (standardised features, one hidden tanh layer, plus a linear term) whose scores over a
    point's allowed heights go through a softmax at a temperature above 1, so that a wrong
    height is unsure rather than sure (``tools/fit_stack_weights.TEMPERATURE``).  Fitted by
    ``tools/fit_stack_weights.py`` on rendered scenes of every stacking game (see
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

    @classmethod
    def load(cls, path: Path = HEIGHT_MODEL_FILE) -> "HeightModel":
        return cls(json.loads(path.read_text()))

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """The score of every row (height) of :func:`height_features`; higher is likelier."""
        x = (rows - self.mean) * self.scale
        return (np.tanh(x @ self.W1 + self.b1) @ self.w2 + x @ self.v) / self.temperature

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """The probability of every row's height (a softmax of :meth:`scores`)."""
        s = self.scores(rows)
        p = np.exp(s - s.max())
        return p / p.sum()


@lru_cache(maxsize=1)
def height_model() -> HeightModel:
    """The height model the reader uses (read from ``HEIGHT_MODEL_FILE`` once)."""
    return HeightModel.load()


def read_heights(model: StackModel, frame: FrameSamples, hidden: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], np.ndarray]:
    """Every point's height, its probability, visibility mask and offset (mm, points x 2: where
    the stack stands, :mod:`vision.placement`), nearest point first.

    ``hidden`` (per sample, bool) marks pixels known to show something else (a hand)."""
    n = len(model.names)
    heights = np.zeros(n, int)
    prob = np.zeros(n)
    offsets = np.zeros((n, 2))
    masks: list[np.ndarray] = [np.zeros(0, bool)] * n
    heights_model = height_model()
    for i in model.order:
        vis = model.visible(i, heights)
        if hidden is not None:
            vis &= ~hidden[model.starts[i]:model.starts[i] + len(vis)]
        x, at = height_features(model, frame, i, vis)
        p = heights_model.probabilities(x)
        heights[i] = int(np.argmax(p))
        prob[i] = float(p[heights[i]])
        offsets[i] = at[heights[i]]
        masks[i] = vis
    return heights, prob, masks, offsets
