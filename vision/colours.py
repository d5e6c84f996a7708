"""What a white disc and a black disc look like in this frame.

Lighting, white balance and exposure change from frame to frame, so the reader does
not use fixed colours: it gathers the colour of every layer it found (the median of
the layer's side facing the camera, so a highlight or a groove does not decide) and
splits them into two groups by brightness on a log scale, where a shadow darkens a
disc by a factor, not by an amount.  A shadowed white disc stays far brighter than a
black one (the albedos differ some tenfold), so the split falls between the two
colours, not between lit and shadowed discs.  When every disc in view has one colour
the two groups are not far apart, and the absolute level decides.

>>> model = ColourModel.fit(np.array([0.9, 0.85, 0.4, 0.05, 0.06, 0.08]))
>>> [model.colour(v)[0] for v in (0.8, 0.3, 0.07)]
['w', 'w', 'b']
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_RATIO = 2.5
"""Two brightness groups this far apart (a factor) are two colours; closer, one colour."""
SINGLE_SPLIT = 0.2
"""Brightness (0..1, display values) splitting the colours when only one is in view."""


def brightness(colour: np.ndarray) -> np.ndarray:
    """Display brightness 0..1 of BGR colours (0..1): the mean of the channels, so a colour cast
    changes it little."""
    return np.asarray(colour, float).mean(axis=-1)


@dataclass(frozen=True)
class ColourModel:
    """A brightness threshold between black and white discs, with the spread of each group."""

    split: float
    """log brightness between the two colours."""
    spread: float
    """log distance at which a disc's colour counts as certain."""

    @classmethod
    def fit(cls, levels: np.ndarray) -> "ColourModel":
        """The model for the layers' brightness levels (0..1) of one frame."""
        logs = np.log(np.clip(np.asarray(levels, float), 1e-3, 1.0))
        if len(logs) < 2:
            return cls(math.log(SINGLE_SPLIT), 0.5)
        lo, hi = float(logs.min()), float(logs.max())
        for _ in range(20):  # two-means in one dimension
            t = 0.5 * (lo + hi)
            dark, light = logs[logs < t], logs[logs >= t]
            if len(dark) == 0 or len(light) == 0:
                break
            lo, hi = float(dark.mean()), float(light.mean())
        if hi - lo < math.log(MIN_RATIO):
            return cls(math.log(SINGLE_SPLIT), 0.5)
        return cls(0.5 * (lo + hi), max(0.25 * (hi - lo), 0.2))

    def colour(self, level: float) -> tuple[str, float]:
        """``"w"`` or ``"b"`` for a brightness level, and a confidence 0.5..1."""
        d = (math.log(max(level, 1e-3)) - self.split) / self.spread
        return ("w" if d >= 0 else "b"), 0.5 + 0.5 * math.tanh(abs(d))
