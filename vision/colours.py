"""What a white disc and a black disc look like in this frame.

Lighting, white balance and exposure change from frame to frame, so the reader does
not use fixed colours: it gathers the colour of every layer it found (a low percentile
of the layer's side facing the camera, so a highlight or a groove does not decide) and
splits them into two groups by brightness on a log scale, where a shadow darkens a
disc by a factor, not by an amount.  A shadowed white disc stays far brighter than a
black one (the albedos differ some tenfold), so the split falls between the two
colours, not between lit and shadowed discs.  When every disc in view has one colour
the two groups are not well apart, and the level compared with the frame's brightest
surfaces (``reference``: white discs or the board) decides.

Top faces and sides are lit differently (the lamp is above: a glossy black top can look
grey, or as light as a white one, while its side and its rounded rim stay dark), so the
reader fits one model to the tops' middles, one to each ring of their rims and one to the
sides; a top's score is the darkest of its middle's and rims' (a highlight only lightens),
and a disc's top and side scores add up (:func:`decide`).

>>> model = ColourModel.fit(np.array([0.9, 0.85, 0.4, 0.05, 0.06, 0.08]), reference=0.9)
>>> [model.colour(v)[0] for v in (0.8, 0.3, 0.07)]
['w', 'w', 'b']
>>> ColourModel.fit(np.array([0.22, 0.3, 0.37, 0.67, 0.8, 0.83]), reference=0.9).colour(0.39)[0]
'b'
>>> ColourModel.fit(np.array([0.3, 0.32, 0.35]), reference=0.95).colour(0.3)[0]
'b'

"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_RATIO = 1.3
"""Two brightness groups at least this far apart (a factor) ..."""
MIN_SEPARATION = 1.5
"""... and this many times their spreads apart are two colours; otherwise one colour."""
SINGLE_SPLIT = 0.45
"""Brightness, as a share of the frame's reference brightness, splitting the colours when
only one is in view: a black disc, even lit, stays under half of the brightest surfaces."""


def brightness(colour: np.ndarray) -> np.ndarray:
    """Display brightness 0..1 of BGR colours (0..1): the mean of the channels, so a colour cast
    changes it little."""
    return np.asarray(colour, float).mean(axis=-1)


def reference_brightness(frame) -> float:
    """The brightness of a frame's brightest surfaces: the 95th percentile over its samples
    (``frame``: a :class:`vision.stacks.FrameSamples`)."""
    return float(np.percentile(brightness(frame.colour), 95))


@dataclass(frozen=True)
class ColourModel:
    """A brightness threshold between black and white discs, with the spread of each group."""

    split: float
    """log brightness between the two colours."""
    spread: float
    """log distance at which a disc's colour counts as certain."""

    @classmethod
    def fit(cls, levels: np.ndarray, reference: float = 1.0) -> "ColourModel":
        """The model for the layers' brightness levels (0..1) of one frame; ``reference`` is the
        brightness of the frame's brightest surfaces (0..1)."""
        logs = np.log(np.clip(np.asarray(levels, float), 1e-3, 1.0))
        single = cls(math.log(SINGLE_SPLIT * max(reference, 0.05)), 0.5)
        if len(logs) < 2:
            return single
        lo, hi = float(logs.min()), float(logs.max())
        dark, light = logs[:1], logs[:1]
        for _ in range(20):  # two-means in one dimension
            t = 0.5 * (lo + hi)
            dark, light = logs[logs < t], logs[logs >= t]
            if len(dark) == 0 or len(light) == 0:
                return single
            lo, hi = float(dark.mean()), float(light.mean())
        if hi - lo < math.log(MIN_RATIO) or hi - lo < MIN_SEPARATION * (dark.std() + light.std() + 0.02):
            return single
        return cls(0.5 * (lo + hi), max(0.25 * (hi - lo), 0.2))

    def score(self, level: float) -> float:
        """How white a brightness level is: above 0 white, below 0 black, in units of the spread.
        Scores of one disc seen in different ways (top face, side) add up."""
        return (math.log(max(level, 1e-3)) - self.split) / self.spread

    def colour(self, level: float) -> tuple[str, float]:
        """``"w"`` or ``"b"`` for a brightness level, and a confidence 0.5..1."""
        return decide(self.score(level))


def decide(score: float) -> tuple[str, float]:
    """``"w"`` or ``"b"`` for a :meth:`ColourModel.score` (or a sum of them), and a confidence 0.5..1.

    >>> decide(-2.0)[0], round(decide(-2.0)[1], 2), decide(0.1)[0]
    ('b', 0.98, 'w')
    """
    return ("w" if score >= 0 else "b"), 0.5 + 0.5 * math.tanh(abs(score))
