"""What a white disc and a black disc look like in this frame.

Lighting, white balance and exposure change from frame to frame, so the reader does not
use fixed colours: it gathers the brightness of every disc it found and splits them into
two groups.  The two groups' levels are not constants over the board: a lamp lights the
board unevenly, and a glossy black disc mirrors the lamp more at one side of the board
than at the other, so that a black disc at the bright end can look lighter than a white
one at the dim end while it stays far darker than a white one beside it.  So each
group's level is an affine function of the position on the board (fitted by least
squares, its slope held in by a ridge penalty), and a disc belongs to the group whose
level is nearer at its place (two-line k-means).  When every disc in view has one colour
the two groups are not well apart, and the level compared with the frame's brightest
surfaces (``reference``: white discs or the board) decides.

Levels are linear brightness, not logarithms: a glossy black disc is lightened by an
amount (the lamp it mirrors), not by a factor: on the benchmark's 1000 rendered scenes,
splitting the tops' levels with flat groups read 78 of 19,971 top faces wrong, splitting
their logarithms 561; sloping groups read 34 wrong.

Top faces and sides are lit differently (the lamp is above: a glossy black top can look
grey, or as light as a white one, while its side and its rounded rim stay dark), so the
reader fits one model to the tops (the darkest of a top's middle and rims: a highlight
only lightens) and one to the sides, and a disc's top and side scores add up.  Each model
is then fitted again to the colours the two read together (:meth:`ColourModel.refit`): a
cue whose levels stray far within those groups separates them less well and counts less.

>>> model = ColourModel.fit(np.array([0.9, 0.85, 0.4, 0.05, 0.06, 0.08]), reference=0.9)
>>> [model.colour(v)[0] for v in (0.8, 0.3, 0.07)]
['w', 'b', 'b']
>>> ColourModel.fit(np.array([0.3, 0.32, 0.35]), reference=0.95).colour(0.3)[0]
'b'

Across the board (``positions``: x, y in board units), a black disc at the bright end
(0.55) is lighter than a white one at the dim end (0.5), yet read black:

>>> xy = np.array([[-1, 0], [-0.8, 0.2], [-0.9, -0.3], [0.9, 0.1], [1, -0.2], [0.8, 0.3]] * 2, float)
>>> lv = np.array([0.5, 0.52, 0.5, 0.95, 0.93, 0.96, 0.1, 0.12, 0.11, 0.55, 0.5, 0.56])
>>> model = ColourModel.fit(lv, xy)
>>> "".join(model.colour(v, p)[0] for v, p in zip(lv, xy))
'wwwwwwbbbbbb'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.percentiles import percentile

MIN_RATIO = 1.3
"""Two brightness groups at least this far apart (a factor, at the discs' places) ..."""
MIN_SEPARATION = 1.5
"""... and this many times their spreads apart are two colours; otherwise one colour."""
SINGLE_SPLIT = 0.45
"""Brightness, as a share of the frame's reference brightness, splitting the colours when
only one is in view: a black disc, even lit, stays under half of the brightest surfaces."""
SLOPE_PENALTY = 1.0
"""Ridge penalty on each group's slope over the board (positions in board units, about
-1..1): as much as one more disc saying the level is flat."""
MIN_SPREAD = 0.02
"""The least brightness difference at which a disc's colour counts as certain."""


def channel_sum(colour: np.ndarray, dtype: type | None = None) -> np.ndarray:
    """The sum of the three channels of colours (... x 3), in ``dtype`` if given: numpy's sum,
    mean or norm along an axis of three is about ten times slower on the reader's arrays."""
    return np.add(np.add(colour[..., 0], colour[..., 1], dtype=dtype), colour[..., 2], dtype=dtype)


DARKEST = 0.03
"""Brightness (0..1) a camera's black level and glare hardly go under: added to brightnesses
before their ratios are taken, so that noise in the darkest parts makes no great ratio."""


def brightness(colour: np.ndarray) -> np.ndarray:
    """Display brightness 0..1 of BGR colours (0..1): the mean of the channels, so a colour cast
    changes it little."""
    return channel_sum(np.asarray(colour), float) / 3


def log_brightness(colour: np.ndarray) -> np.ndarray:
    """The log of :func:`brightness` plus :data:`DARKEST`: differences of it are ratios of
    brightness, which a shadow or the lamp's fall-off leaves as they are."""
    return np.log(brightness(colour) + DARKEST)


def log_chroma(colour: np.ndarray) -> np.ndarray:
    """The hue of BGR colours (0..1, ... x 3) as the logs of their blue and red to their green
    (... x 2; each channel plus :data:`DARKEST`): a shadow leaves it as it is, and a colour
    cast moves every colour's alike.  White and black discs are near grey; most boards' cells
    and lines are not.

    >>> log_chroma(np.array([[0.8, 0.8, 0.8], [0.2, 0.2, 0.2], [0.5, 0.2, 0.1]])).round(2).tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.83, -0.57]]
    """
    c = np.asarray(colour, float) + DARKEST
    return np.log(c[..., [0, 2]] / c[..., 1:2])


def reference_brightness(frame) -> float:
    """The brightness of a frame's brightest surfaces: the 95th percentile over every fourth of
    its samples (``frame``: a :class:`vision.stacks.FrameSamples`; its tens of thousands of
    samples give the same figure to 0.002 with a quarter of the work)."""
    return percentile(brightness(frame.colour[::4]), 95)


INITIAL_SPLITS = 3
"""Besides the flat two-means splits, the two-line fit starts from this many splits at the
widest gaps between the levels."""


def _design(positions: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones(len(positions)), positions])


_RIDGE = np.diag([1e-9, SLOPE_PENALTY, SLOPE_PENALTY])


def _line(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares level c (3) with y ~ X c, the slopes held in by :data:`SLOPE_PENALTY`."""
    return np.linalg.solve(X.T @ X + _RIDGE, X.T @ y)


def _lines(terms: tuple[np.ndarray, np.ndarray], light: np.ndarray) -> np.ndarray:
    """:func:`_line` of the levels not ``light`` and of those ``light`` (2 x 3), from the
    levels' ``terms`` (:func:`_terms`) in one solve: the k-means below fits both groups many
    times a frame, and a call of numpy's costs more than its sums."""
    products, moments = terms
    groups = np.stack([~light, light]).astype(float)  # 2 x levels
    A = (groups @ products).reshape(2, 3, 3) + _RIDGE
    return np.linalg.solve(A, (groups @ moments)[..., None])[..., 0]


def _terms(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each level's share of the normal equations of :func:`_line`: X x X (levels x 9) and X y (levels x 3)."""
    return (X[:, :, None] * X[:, None, :]).reshape(len(X), 9), X * y[:, None]


def _two_lines(y: np.ndarray, X: np.ndarray, light: np.ndarray) -> tuple[float, np.ndarray, np.ndarray] | None:
    """Two-line k-means of levels ``y`` (design ``X``) from the split ``light``: the sum of
    squared residuals, which levels are light, and the dark and light groups' levels (c, 2 x 3);
    none when a group empties."""
    terms = _terms(X, y)
    for _ in range(20):
        if light.all() or not light.any():
            return None
        fits = _lines(terms, light)
        dark_at, light_at = X @ fits[0], X @ fits[1]
        new = np.abs(y - light_at) < np.abs(y - dark_at)
        if np.array_equal(new, light):
            break
        light = new
    sse = float(((y - np.where(light, light_at, dark_at)) ** 2).sum())
    return sse, light, fits


@dataclass(frozen=True)
class ColourModel:
    """The brightness of black discs and of white discs, each an affine function of the
    position on the board: level = c0 + c1 x + c2 y."""

    dark: tuple[float, float, float]
    light: tuple[float, float, float]
    noise: float = 0.0
    """How far (brightness) the discs' levels stray from their group's level."""
    two_groups: bool = True
    """False for :meth:`single`: a split by brightness alone, not by groups seen in the frame."""

    @classmethod
    def single(cls, reference: float) -> "ColourModel":
        """The model when only one colour is in view: split at :data:`SINGLE_SPLIT` of the
        reference brightness, a disc half as bright again (or half as dark) read with a
        confidence of 0.88."""
        split = SINGLE_SPLIT * max(reference, 0.05)
        return cls((0.0, 0.0, 0.0), (2.0 * split, 0.0, 0.0), two_groups=False)

    @classmethod
    def fit(cls, levels: np.ndarray, positions: np.ndarray | None = None, reference: float = 1.0) -> "ColourModel":
        """The model for the discs' brightness levels (0..1) of one frame at ``positions``
        (discs x 2, board units; none: all at one place); ``reference`` is the brightness of the
        frame's brightest surfaces (0..1)."""
        y = np.asarray(levels, float)
        if len(y) < 2:
            return cls.single(reference)
        flat = _design(np.zeros((len(y), 2)))
        X = flat if positions is None else _design(np.asarray(positions, float))

        def two_means(v: np.ndarray) -> np.ndarray:
            """Which of levels ``v`` are light by their flat two-means split."""
            found = _two_lines(v, flat, v >= 0.5 * (v.min() + v.max()))
            return v >= v.max() if found is None else found[1]

        # Two-line k-means finds a local best only: start it from the two-means split of the
        # levels, of the levels less their common slope over the board, and from splits at
        # the widest gaps between levels, and keep the closest fit.
        s = np.sort(y)
        gaps = 0.5 * (s[1:] + s[:-1])[np.argsort(np.diff(s))[::-1][:INITIAL_SPLITS]]
        starts = [two_means(y), two_means(y - X @ _line(X, y))] + [y >= cut for cut in gaps]
        best, tried = None, set()
        for start in starts:
            if start.tobytes() in tried:  # the starts often coincide: one fit each
                continue
            tried.add(start.tobytes())
            found = _two_lines(y, X, start)
            if found is not None and (best is None or found[0] < best[0]):
                best = found
        if best is None:
            return cls.single(reference)
        _, light, fits = best
        dark_at, light_at = X @ fits[0], X @ fits[1]
        spreads = sum(float(np.std(y[g] - at[g])) for g, at in ((~light, dark_at), (light, light_at)))
        gap = light_at - dark_at
        if gap.min() <= 0 or light_at.mean() < MIN_RATIO * max(dark_at.mean(), 1e-3) \
                or gap.mean() < MIN_SEPARATION * (spreads + 0.01):
            return cls.single(reference)
        return cls(tuple(map(float, fits[0])), tuple(map(float, fits[1])))

    @classmethod
    def split(cls, levels: np.ndarray, light: np.ndarray, positions: np.ndarray | None = None
              ) -> "ColourModel | None":
        """The model whose groups are the discs ``light`` (white) and the others, as another
        cue decided them, with how far their ``levels`` stray from their group's level
        (:attr:`noise`): a cue fooled on some discs (a glossy black top mirroring a lamp)
        separates them less well and counts less (:meth:`scores`).  None where a group is
        empty or the white group would not be the lighter one."""
        y, light = np.asarray(levels, float), np.asarray(light, bool)
        if light.all() or not light.any():
            return None
        X = _design(np.zeros((len(y), 2)) if positions is None else np.asarray(positions, float))
        dark, bright = _lines(_terms(X, y), light)
        dark_at, light_at = X @ dark, X @ bright
        if (light_at - dark_at).min() <= 0:
            return None
        noise = float(np.sqrt(np.mean((y - np.where(light, light_at, dark_at)) ** 2)))
        return cls(tuple(map(float, dark)), tuple(map(float, bright)), noise)

    def refit(self, levels: np.ndarray, light: np.ndarray, positions: np.ndarray | None = None) -> "ColourModel":
        """:meth:`split` by ``light``; the model itself where it is :meth:`single` or the split
        gives none.

        Two black discs' glossy tops (0.7, 0.75) mirror a lamp, as their sides said: fitted
        to those colours the tops' levels stray far within a group, and a top as light as
        theirs counts for much less than before.

        >>> tops = np.array([0.9, 0.85, 0.88, 0.1, 0.12, 0.7, 0.75])
        >>> model = ColourModel.fit(tops, reference=0.9)
        >>> again = model.refit(tops, np.array([1, 1, 1, 0, 0, 0, 0], bool))
        >>> [round(float(m.scores(np.array([0.75]))[0]), 2) for m in (model, again)]
        [1.63, 0.43]
        """
        if not self.two_groups:
            return self
        return ColourModel.split(levels, light, positions) or self

    def levels(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The brightness levels of black discs and of white discs at ``positions`` (N x 2, as in :meth:`fit`)."""
        X = _design(np.asarray(positions, float).reshape(-1, 2))
        return X @ np.array(self.dark), X @ np.array(self.light)

    def scores(self, levels: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
        """How white brightness levels are at ``positions`` (as in :meth:`fit`): above 0 white,
        below 0 black, in units of a quarter of the gap between the two levels there (smaller
        where the levels stray more than an eighth of the gap: :attr:`noise`).  Scores of one
        disc seen in different ways (top face, side) add up."""
        y = np.asarray(levels, float)
        dark, light = self.levels(np.zeros((y.size, 2)) if positions is None else positions)
        gap = light - dark
        # Half the log-likelihood ratio of two groups of levels with a spread of at least
        # an eighth of the gap (the score is then in units of a quarter gap) and MIN_SPREAD.
        var = np.maximum(np.maximum(self.noise ** 2, gap ** 2 / 8), gap * MIN_SPREAD / 2)
        return ((y.ravel() - 0.5 * (dark + light)) * gap / (2 * var)).reshape(y.shape)

    def colour(self, level: float, position: tuple[float, float] | np.ndarray = (0.0, 0.0)) -> tuple[str, float]:
        """``"w"`` or ``"b"`` for a brightness level at a position, and a confidence 0.5..1."""
        score = float(self.scores(np.array([level]), np.array([position]))[0])
        return ("w" if score >= 0 else "b"), float(confidence(score))


def confidence(scores: np.ndarray | float) -> np.ndarray:
    """How sure a colour read from :meth:`ColourModel.scores` (or a sum of them) is, 0.5..1,
    elementwise.

    >>> round(float(confidence(-2.0)), 2), round(float(confidence(0.1)), 2)
    (0.98, 0.55)
    """
    return 0.5 + 0.5 * np.tanh(np.abs(scores))
