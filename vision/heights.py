"""How tall each stack is: the evidence of :mod:`vision.stacks` and :mod:`vision.placement`
weighed by a small fitted model.

For every height a point could have, :func:`height_features` gathers one row of evidence
(:data:`FEATURES`): the outlines a stack of that height on its point would have, the
colours of its bands and top face, and what the best offset for that height predicts
(:func:`vision.placement.offset_evidence`).  :class:`HeightModel` scores the rows, a
softmax over the heights gives their probabilities, and those of heights the game never
builds go to its nearest ones (:attr:`vision.shapes.StackShapes.fold`).  Where a layer's side
is a sliver a few pixels tall, the shared model's heights lean towards taller stacks
(:func:`sliver_lean`).

The games share one model, except where a game's own reads its heights clearly better:
Accasta, the only game with stacks up to 6, whose held-out heights the shared model reads
0.9766 right and its own 0.9901.  The other games' own models read at most 3 more of their
1110-1920 held-out points right and were surer of their mistakes (Abande's read a white disc
on a test film as two discs, surely, where the shared model is unsure).

:func:`read_heights` goes through the points from the camera outwards, so a stack's height
decides what it hides of the stacks behind it.  In a game that never adds or removes a disc
(Accasta) the heights must add up to the discs the board holds: :func:`heights_adding_up`
finds the likeliest that do.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

from vision.adding_up import likeliest_adding_up
from vision.placement import FEATURES as FIT_FEATURES
from vision.placement import offset_evidence
from vision.stack_net import BEHIND_NET, BEHIND_SHARE, PatchHeights
from vision.stacks import (FrameSamples, StackModel, band_colours, line_contrast, outline_evidence, outline_strength,
                           printed_lines)


def height_features(model: StackModel, frame: FrameSamples, points: np.ndarray, vis: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Evidence for every height 0..H of each of ``points`` (indices; ``vis``: their samples'
    visibility, :meth:`StackModel.visible`): one row of :data:`FEATURES` per height (points x
    (H + 1) x features), and the offset (mm, points x (H + 1) x 2) each height's stack would
    stand at."""
    H, P = model.max_height, len(points)
    strength = outline_strength(model, frame, points)
    ev = outline_evidence(model, frame, points, vis, strength)
    # The rims, near rims and sides per height h = 0..H; "nothing" (no edge, all in view) stands
    # for the rim below the board and the outlines above the tallest stack.
    nothing = np.broadcast_to(np.array([0.0, 0.0, 1.0, 0.0]), (P, 1, 4))
    rims = np.concatenate([ev[:, :H], nothing], axis=1)  # rims[:, k]: the top of layer k; rims[:, H]: nothing
    # Per height h: the rim of its top (layer h - 1's), the rim a layer above and a layer below it.
    top, above, below = rims[:, np.r_[H, :H]], rims, rims[:, np.r_[H, H, :H - 1]]
    near, side = ev[:, H:2 * H + 1], ev[:, 2 * H + 1:]
    side_above = np.concatenate([side, nothing], axis=1)
    med, spr = band_colours(model, frame, points, vis)
    seen = ~np.isnan(spr)
    rows = np.zeros((P, H + 1, len(FEATURES)))
    offsets, rows[..., len(FEATURES) - len(FIT_FEATURES):] = offset_evidence(model, points, vis, strength)
    strongest = ev[:, :H, 3].max(axis=1) + 0.05
    side_scale = np.minimum(model.side_px[points], 10.0) / 10.0

    def under(values: np.ndarray, ufunc: np.ufunc, start: float) -> np.ndarray:
        """Per h = 0..H, ``ufunc`` over ``values`` (points x H x ...) of the layers below h, from ``start``."""
        first = np.full((P, 1, *values.shape[2:]), start)
        return ufunc.accumulate(np.concatenate([first, values], axis=1), axis=1)

    shown = side[:, :, 2] > 0  # the layers whose sides are in view
    lowest = under(np.where(shown[..., None], side[:, :, :2], np.inf), np.minimum, np.inf)
    weakest = np.where(under(shown, np.logical_or, False)[..., None], lowest, 0.0)  # the weakest of those sides
    spread = under(np.where(seen[:, :H], spr[:, :H], 0.0), np.maximum, 0.0)
    match = np.zeros((P, H + 1))
    both = seen[:, H + 1:2 * H + 1] & seen[:, :H]
    match[:, 1:] = np.where(both, np.abs(med[:, H + 1:2 * H + 1] - med[:, :H]).sum(-1), 0.0)
    some = np.arange(H + 1) > 0  # a stack stands
    rim_at = np.concatenate([near[:, 1:], np.zeros((P, 1, 4))], axis=1)  # the near rim one layer up
    foot = np.where(some, near[:, :1, :].transpose(2, 0, 1), [[[0.0]], [[0.0]], [[1.0]], [[0.0]]])
    rows[..., :len(_BASE_FEATURES)] = np.stack([
        np.broadcast_to(~some, (P, H + 1)), top[..., 0], top[..., 1], above[..., 0], above[..., 1], weakest[..., 0],
        weakest[..., 1], side_above[..., 0], side_above[..., 1], top[..., 2], spread, match,
        np.broadcast_to(np.arange(H + 1) / H, (P, H + 1)), foot[0], foot[1], np.where(some, near[..., 0], 0.0),
        np.where(some, near[..., 1], 0.0), np.where(some, under(near[:, 1:, 0], np.minimum, np.inf), 0.0),
        rim_at[..., 0], foot[2], under(side[:, :, 2], np.minimum, 1.0)], axis=-1)
    rows[..., len(_BASE_FEATURES):len(FEATURES) - len(FIT_FEATURES)] = np.stack([
        top[..., 3], above[..., 3], below[..., 3], top[..., 3] / strongest[:, None],
        top[..., 3] - np.maximum(above[..., 3], below[..., 3]), top[..., 1] - above[..., 1],
        np.where(some, near[..., 3], 0.0), rim_at[..., 3], np.broadcast_to(side_scale[:, None], (P, H + 1))], axis=-1)
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

    def __init__(self, params: dict, sliver_nats: float | None = None) -> None:
        if tuple(params["features"]) != FEATURES:
            raise ValueError("the height model was fitted on other features; refit it with tools/fit_stack_weights.py")
        self.mean = np.array(params["mean"])
        self.scale = 1.0 / np.array(params["std"])
        self.W1 = np.array(params["W1"])
        self.b1 = np.array(params["b1"])
        self.w2 = np.array(params["w2"])
        self.v = np.array(params["v"])
        self.temperature = float(params.get("temperature", 1.0))
        self.sliver_nats = SLIVER_NATS if sliver_nats is None else sliver_nats
        """How far the heights are leaned towards taller stacks where a layer's side is a
        sliver (:func:`sliver_lean`; default :data:`SLIVER_NATS`)."""

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
    own = fitted["games"].get(game)  # Accasta's own does not lean (SLIVER_NATS)
    return HeightModel(fitted["shared"]) if own is None else HeightModel(own, sliver_nats=0.0)


def height_model(game: str) -> HeightModel:
    """The height model the reader uses for ``game`` (:func:`game_model` of ``HEIGHT_MODEL_FILE``)."""
    return game_model(_fitted(), game)


class HeightsRead(NamedTuple):
    """What :func:`read_heights` finds, per point."""
    heights: np.ndarray
    """The height read (points)."""
    probabilities: np.ndarray
    """The evidence's probability of each height 0..H (points x (H + 1)), without the patch net's word."""
    masks: np.ndarray
    """Which of the point's samples are in view (points x samples of a block)."""
    offsets: np.ndarray
    """Where the stack stands off its point (mm, points x 2: :mod:`vision.placement`)."""
    weighed: np.ndarray
    """The probability of each height with the patch net's word, as the heights were chosen by
    (points x (H + 1); where the count of discs decided, a height may not be the likeliest)."""


def read_heights(model: StackModel, frame: FrameSamples, net: HeightModel, hidden: np.ndarray | None = None,
                 fold: np.ndarray | None = None, total: int | None = None,
                 patch_heights: PatchHeights | None = None,
                 seen_share: Callable[[np.ndarray], np.ndarray] | None = None) -> HeightsRead:
    """Every point's height, the probability of each height, its visibility mask and offset
    (:class:`HeightsRead`), the evidence weighed by ``net`` (the game's :func:`height_model`).

    A stack's height decides what it hides of the stacks behind it, so a point is read with
    its samples' visibility given the heights of the nearer points.  All points are read at
    once with nothing hidden, then those whose visibility the heights found change are read
    again, until none changes: as a point's visibility depends only on nearer points, this
    ends with every point read as if the points had been read one by one from the camera
    outwards.  ``hidden`` (per sample, bool) marks pixels known to show something else (a hand);
    ``fold`` (heights x heights) moves the probability of heights the game never builds to
    those it does (:attr:`vision.shapes.StackShapes.fold`; default: every height is built).

    ``total``: how many discs the board holds, when the game says (Accasta never adds or
    removes one): heights that do not add up to it are replaced by the likeliest that do
    (:func:`heights_adding_up`), unless the pixels favour them by more than
    :data:`ADD_UP_NATS`; a height changed so has the probability its own evidence gives it,
    and the points behind it are read again with what it hides.  ``seen_share`` (the
    samples' visibility to how much of each point nearer stacks leave in view, 0..1) tells
    the count how far to trust the evidence of empty against one disc
    (:func:`partly_seen_heights`).

    On the hex side, how plainly the printed lines show around a point
    (:func:`vision.stacks.printed_lines`) is part of the evidence: it counts for the point's
    being empty or not (:func:`lines_log_odds`), and leaves the odds of the heights of a
    stack as they are.  A black disc on a board printed near black with light lines hides
    the lines, while its outline and colour hardly show: on 20 POV-Ray scenes of Attangle
    on boards printed in styles of their own (seed 920) 8 such discs were read empty, none
    now, and are read as there (presence) at 0.63-0.95.

    ``patch_heights``: what the patch net makes of each point's picture (log-probabilities of every
    height 0..H, :class:`vision.stack_net.PatchHeights`), weighed with the evidence's by
    :func:`patch_weight` (more where a layer's side is thin; :data:`BEHIND_WEIGHT` at points
    where nearer stacks hide most of the board, which the behind net reads) to choose
    the heights, its odds of a stack at all by up to :data:`PATCH_EMPTY_WEIGHT`; asked only
    where the evidence is less sure than :data:`PATCH_NEEDED_NATS` (and
    :data:`PATCH_NEEDED_SLIVER_NATS` where sides are slivers), and about every point where the
    count decides (``total``): there a point read surely by the evidence alone would otherwise
    take a disc the count lacks at a lower cost than the net's word gives it (Accasta, seen from
    61 degrees: a stack of 3 read as 5, where two of 3 read as 2 were the ones to grow; of 300
    held-out scenes, 2 read better, none worse, a frame about 2 ms slower).  The probabilities a reading's
    confidence is taken from are the evidence's alone (:attr:`HeightsRead.probabilities`; the
    weighed ones are :attr:`HeightsRead.weighed`): the net may change which height is read,
    never make a reading surer (the two often fail together, where a lower disc shows as a sliver: on 60 POV-Ray
    Abande scenes the weighed probabilities read 12 points wrong surely, the evidence's alone
    8, as without the net)."""
    n, width = len(model.names), model.max_height + 1
    heights = np.zeros(n, int)
    probs = np.zeros((n, width))
    evidence = np.zeros((n, width))  # the probabilities without the net's word
    places = np.zeros((n, width, 2))
    pinned = np.zeros(n, bool)
    every = np.arange(n)

    free = None if hidden is None else ~hidden[model.starts[:, None] + np.arange(model.block)]

    def visibility() -> np.ndarray:
        vis = model.visible(every, heights)
        return vis if free is None else vis & free

    used = visibility()
    todo = every
    lines = line_contrast(model, frame)
    built = np.ones(width, bool) if fold is None else fold.sum(axis=0) > 0
    # Where the count decides, it moves a disc to the point whose reading that costs least,
    # which it can weigh only where every point's heights weigh the net's word alike.
    needed = (np.full(n, np.inf) if total is not None
              else PATCH_NEEDED_NATS + PATCH_NEEDED_SLIVER_NATS * sliver(model.side_px))
    settled = total is None
    while True:
        while len(todo):
            x, places[todo] = height_features(model, frame, todo, used[todo])
            p = net.probabilities(x)
            empty = np.exp(lines_log_odds(printed_lines(model, frame, todo, used[todo], lines), lines))
            p = np.column_stack([p[:, 0] * empty, p[:, 1:]])
            p /= p.sum(axis=1, keepdims=True)
            evidence[todo] = p if fold is None else p @ fold
            if patch_heights is not None:
                ranked = np.sort(evidence[todo], axis=1)
                unsure = np.log(ranked[:, -1] + 1e-300) - np.log(ranked[:, -2] + 1e-300) < needed[todo]
                asked = todo[unsure]
                behind = model.board_in_view(used[asked]) < BEHIND_SHARE
                seen = patch_heights.of(asked, behind)
                weight = np.where(patch_heights.kinds[asked] == BEHIND_NET, BEHIND_WEIGHT,
                                  patch_weight(model.side_px[asked]))[:, None]
                q = p[unsure] * np.exp(weight * (seen - seen.max(axis=1, keepdims=True)))
                # Whether there is a stack at all counts more where nearer stacks hide nothing.
                stack = np.logaddexp.reduce(seen[:, 1:], axis=1)
                clear = np.clip((used[asked][:, model.points[0].watched].mean(axis=1) - PATCH_CLEAR) / (1 - PATCH_CLEAR),
                                0, 1)
                q[:, 0] *= np.exp(clear * np.maximum(PATCH_EMPTY_WEIGHT - weight[:, 0], 0.0)
                                  * np.clip(seen[:, 0] - stack, -30, 30))
                p[unsure] = q / q.sum(axis=1, keepdims=True)
            probs[todo] = sliver_lean(p if fold is None else p @ fold, model.side_px[todo], built, net.sliver_nats)
            heights[todo] = np.where(pinned[todo], heights[todo], np.argmax(probs[todo], axis=1))
            vis = visibility()
            todo = every[np.any(vis != used, axis=1)]
            used = vis
        if settled:
            break
        settled = True
        share = np.ones(n) if seen_share is None else seen_share(used)
        fit = heights_adding_up(partly_seen_heights(probs, share), total)
        if fit is None or fit[1] > ADD_UP_NATS:
            break
        pinned = fit[0] != heights
        heights[:] = fit[0]
        vis = visibility()
        todo = every[np.any(vis != used, axis=1)]
        used = vis
    return HeightsRead(heights, evidence, used, places[every, heights], probs)


LINES_SLOPE = 20.0
LINES_EVEN = 0.27
LINES_NATS = (-4.0, 1.0)
"""How much likelier (nats) an empty point is than a stack for how plainly the printed lines
show around it (:func:`lines_log_odds`): :data:`LINES_SLOPE` nats per unit of
:func:`vision.stacks.printed_lines` from :data:`LINES_EVEN`, within these bounds.  On 496
rendered stills of the hex games (ours at 1280x720 and slate, true pose, nearer stacks hiding
what they hide; 18,352 points), shares under 0.1 were 8,113 stacks and 1 empty point, 0.1-0.2
403 and 21, 0.2-0.3 137 and 60, 0.3-0.4 66 and 189, over 0.6 41 and 7,730: the bound against
an empty point is the larger, as a mixed stack seen from the side can show stripes where the
lines would be."""
LINES_PLAIN = 0.4
"""Printed lines whose contrast (:func:`vision.stacks.line_contrast`, absolute) is under this
count for less, in proportion to its square: where the lines are faint (small frames, thin
lines) a share is mostly noise.  On 736 stills of the hex games (those and ours at 640x480
and 800x600), with the contrast under 0.25 a twentieth of the stacks showed more than
0.33-0.64 of it, with 0.4-0.7 more than 0.12."""


def lines_log_odds(shown: np.ndarray, contrast: float) -> np.ndarray:
    """How much likelier (nats) each point is empty than not, for how plainly the printed lines
    show around it (``shown``: :func:`vision.stacks.printed_lines`; NaN counts for nothing),
    where the frame's lines have this ``contrast`` (:func:`vision.stacks.line_contrast`).

    >>> lines_log_odds(np.array([0.0, 0.27, 0.9, np.nan]), 0.5).tolist()
    [-4.0, 0.0, 1.0, 0.0]
    >>> lines_log_odds(np.array([0.0]), 0.2).tolist()
    [-1.0]
    """
    trust = min(1.0, abs(contrast) / LINES_PLAIN) ** 2 if np.isfinite(contrast) else 0.0
    return trust * np.nan_to_num(np.clip(LINES_SLOPE * (shown - LINES_EVEN), *LINES_NATS))


PATCH_WEIGHT = 0.25
"""How much the patch net's log-probabilities of a point's heights count beside the evidence's
(a power of its probabilities) where a layer's side looks tall (:data:`PATCH_THIN_WEIGHT` where
it looks thin): sure of itself, it is worth a quarter of its word.  Chosen for
pictures unlike those the net was fitted on: on 60 scenes a game of POV-Ray's (seed 900) 0.25
read the most stacks right (Accasta 0.9896, 0.9860 at 0.5, 0.9829 at 0.75), though on 45 new
scenes a game of our own renderer (1280x720 and 640x480) 0.5-0.75 read a few more right
(Accasta 0.9946 at 0.25, 0.9958 at 0.5).  Checked again with a larger net fitted on steep
views too (16-64 channels, the stills of :mod:`vision.stack_net` but seeds 307 and 308): at
0.5 our renderer's views above 60 degrees gained (Accasta 0.9743 -> 0.9811 on 40 scenes)
but 30 POV-Ray Accasta scenes (seed 900) lost (0.9919 -> 0.9874, all above 45 degrees)."""
BEHIND_WEIGHT = 0.9
"""How much the behind net's log-probabilities count beside the height model's at points where
nearer stacks leave little of the board in view (:data:`vision.stack_net.BEHIND_SHARE`), however
tall a layer's side looks: there the evidence has little to go on, the outlines and bands of the
stack in front lying where the point's would.  Chosen on 300 stills from 30-58 degrees that
neither model was fitted on (``benchmarks/vision.py --seed 8330 --elevation 30-58 --count 150``,
Attangle and Attangle square): with the behind net weighed so, the points read wrong, but for
those nothing of which shows, went from 30 to 22, and the pictures read with no such error from
0.967 to 0.993 and from 0.893 to 0.913 (at 0.5, with an earlier fit, Attangle's 0.987).  Checked
on 700 more (seed 8430, 100 each of the six stacking games and Dame 100): 22 -> 20 points;
Attangle's pictures 0.98 -> 1.0, Abande's 0.96 -> 0.98, Abande square's 0.98 -> 0.97, Attangle
square's 0.90 as before, where two empty points behind tall stacks were read as tall stacks
themselves, surely neither (0.00 and 0.03)."""
PATCH_THIN_WEIGHT = 0.9
PATCH_THIN_PX = (4.0, 8.0)
"""How much the patch net's log-probabilities count beside the height model's where a
layer's side looks under the first of these many pixels tall (:func:`patch_weight`;
:data:`PATCH_WEIGHT` from the second).  A steep view shows the side of a stack's lower disc
as a sliver a pixel or two tall, which the evidence reads badly: at the benchmark's
abande-square-6001-0012 (65 degrees, sides 2.2-2.5 px) it read three 2-stacks one disc tall
at 0.67 against 0.23-0.27, where the net read them two at 0.75-0.95.  Fitted as a power of
each side's probabilities on the points the net was asked about in 720 tuning stills of the six
stacking games (steep and from every elevation, seeds 5601 and 5602; 11,019 points), the
net's weight came to 0.9-1.2 times the evidence's on thin sides and 0.6 on thick ones, and
its word on an empty point needed nothing of :data:`PATCH_EMPTY_WEIGHT` beyond that.  On the
held-out steep stills (seed 5611) the points read wrong went from 88 to 78, from 185 to 172
with those from every elevation, at 1920x1080 and POV-Ray's (these 19 and 19), as many sure
and wrong (11); the benchmark's Abande and Abande square pictures read with no error went
from 0.88 and 0.74 to 0.91 and 0.79 (seed 6001).  Where the net was not fitted, as well:
at 640x480 from 55-70 degrees (seed 5603, 175 stills) 102 -> 91 wrong, on slate from 50-72
(seed 6011, 100) 29 -> 21, with camera noise, blur or sharpening (``benchmarks/vision.py
--effect``, seed 6021, 120 each) 39-42 -> 36-40, none of them sure; there a white king seen
from 70 degrees, which the net takes for a man at 0.91, went the net's way.  Accasta's own
model (:func:`game_model`) reads its thin sides better than the shared one, and there the
net's greater weight first lost (the benchmark's 0.90 -> 0.87, the tuning stills' heights
51 -> 57 wrong); it kept a quarter of the net's word until the steep net
(:data:`vision.stack_net.STEEP_RISE`) read its steep points as well as it now does.  With
that net, Accasta's points read wrong went from 143 to 120 on 150 new stills of our renderer
(90 from 55-75 degrees, 60 at 640x480 from every elevation; seeds 7371-7373), from 58 to 46 on
the other renderers' held-out steep Accasta (POV-Ray, seeds 7151 and 7153; Mitsuba, 7152),
and from 155 to 113 on the 18 held-out sets of :mod:`vision.stack_net` (the same two surer than
0.6); 0.7 did as well, 0.5 a little worse.  On a foreign print a stack's sides can be 15 px
tall and the net still take it for an empty point (POV-Ray's attangle-920-0003, e4): thick
sides keep the net's quarter."""
PATCH_NEEDED_NATS = 3.0
"""The patch net is asked about a point only where the evidence favours its likeliest height over
the next by less than this (nats, a probability of 0.95).  On 30 scenes each of Attangle square
and Attraktion (seed 5310) the evidence read every point above 2 nats right (1,650 of 1,920 and
2,798 of 3,000); 799 and 899 of them, most of them empty cells, were between 3 and 4 nats.
Asked about from 3 nats instead of 4 as before, the net leaves the reader reading Attraktion in
31 ms instead of 39 and Attangle square in 38 instead of 42 (one core), with as many points
wrong, and as many surely: on 25 scenes each of six games (seed 5310: 26 and 1), 15 each of
five on the slate look (5311: 30 and 2), 25 each of five seen from 55-70 degrees (5312: 33 and
0), 20 each of six at 640x480 (5313: 38 and 0) and POV-Ray's 78 (seed 960, and 920 on foreign
prints: 20 and 3 against 21 and 3).  From 2.5 nats, slate read 3 more wrong."""
PATCH_NEEDED_SLIVER_NATS = 2.0
"""Where a layer's side is a sliver (thinner than :data:`SLIVER_PX`), the net is asked up to
this many nats beyond :data:`PATCH_NEEDED_NATS`, in proportion to how thin it is: there the
evidence can favour one disc by 3-3.5 nats where a lower disc's sliver makes two.  On 18 held-out
sets (1,086 pictures from our renderer at 60-75 degrees and every elevation, Mitsuba and
POV-Ray) two such stacks, read one disc too low at 0.71 and 0.78, are now unsure (sure and
wrong 6 -> 4); every point reads the same stack, in at most 4 ms more a frame, and Accasta's
turns from 60-70 degrees (``benchmarks/turns.py``, seeds 6202 and 6203) are recorded as before."""
PATCH_EMPTY_WEIGHT = 0.75
PATCH_CLEAR = 0.9
"""How much the patch net's odds of a stack at all (against an empty point) count where nearer
stacks leave all of the point's samples in view (or the rest of its word, where that counts
more: :func:`patch_weight`); as much as the rest of its word where they leave
:data:`PATCH_CLEAR` of them or less, in proportion between.  The net tells a black disc on a
cell printed near black from the cell far better than it counts a stack's discs: in a picture
of Dame 100 on the slate look (benchmark seed 500, scene 7) it gave 7 of 9 black men there
0.95-0.999, where the evidence read empty cells at 0.7-0.96.  But where a nearer stack stands
in its picture it takes that stack for one on the point: counted so everywhere, a few empty
points behind stacks were read as discs (slate Accasta's full stacks right .9919 -> .9892),
none where it counts only on points in the clear."""
ADD_UP_NATS = float(np.log(50.0))
"""How much likelier (nats) the heights read point by point may be than the likeliest heights
that add up to the game's disc count, for :func:`read_heights` to keep them: a position that
has lost a disc is far rarer than a stack read one layer short or long.  On 100 Accasta scenes
not used to fit the height model, 22 readings did not add up to 40 discs; the likeliest
heights that do cost 0.08-2.8 nats and left 21 height errors instead of 36.  The bound is for
the whole reading, not per disc it is off: per disc (and with every height a layer off at
most) a POV-Ray scene read 4 discs short came right (Accasta, seed 960, scene 11: 4.0 nats),
but so did a position set up with 36 discs, as a teacher may, go 4 points wrong
(samples/reading/accasta-tall, its pose found: 13.5 nats)."""


UNSEEN_EMPTY = 0.68
"""How likely a point that nearer stacks hide wholly is empty rather than a single disc: of
112 such points in six held-out sets, 76 were empty and 36 single discs (see
:data:`vision.reader.OUT_OF_SIGHT`).  The pixels cannot tell the two apart there, but the
evidence reads the stack in front and so says "empty" surely: when the heights must add up to
the game's disc count, such a point never took a disc the count lacked, and the count made
one up in view instead, on a point read empty or on a stack.  :func:`read_heights` weighs the
two by this share there, and keeps the evidence's word on taller stacks, whose tops may show
above the one in front.  Of 200 Accasta pictures (benchmark seed 6001) 3 had a disc made up
so, of 150 seen from 30-45 degrees (seed 6801) 2; none now, and no point read wrong that was
read right.  Of 140 POV-Ray pictures (``tools/povray_scenes.py``, seed 6950 from 30-45 degrees
and 6951) one, read right before, now gives the disc a point in view lacks to a hidden empty
point, both read with a confidence of 0: the evidence had given the point in view's disc 0.15."""


SLIVER_NATS = 0.5
SLIVER_PX = 6.0
"""Where a layer's side looks thinner than :data:`SLIVER_PX` pixels, each height the game builds
above one disc is taken as up to :data:`SLIVER_NATS` likelier than the weighed probabilities
say, in proportion to how thin it is (:func:`sliver_lean`).  There a lower disc's side shows as
a sliver that the evidence and the patch net take for a stack's shadow more often than the
other way round: of the heights held-out stills from 60-70 degrees read wrong by a disc, five
in six were read too low (Abande, our renderer, seed 6702: 38 of 43).  Fitted on 420 stills
from 60-70 degrees (seven games, seed 6620; neither the height model nor the net had seen
them): the likeliest heights 143 wrong, 130 at 0.5 nats, 129 at 1 and 189 at 2; most of it in
Abande and Abande square, where stacks of two and three are common, and none of the games worse
by more than 2.  The lean is the shared height model's, which was fitted on games mostly of
single discs; Accasta's own model, fitted on its tall stacks, does not lean: there the lean
read 3 more of 4,440 held-out points right but recorded fewer turns of its films from 60-70
degrees (``benchmarks/turns.py --elevation 60-70``, seeds 6202 and 6203: 22 of 634 turns left
unrecorded against 13).

The lean and :data:`PATCH_THIN_WEIGHT` were checked again with the steep net as it now is, on
300 stills from 60-70 degrees of six games but Accasta (50 each, seed 8400; 13,700 points, the
net asked about 7,730): weighed again with the lean at 0-0.75 nats and the net's weight on thin
sides at 0.5-1.3, the heights read wrong were 32-36, 34 as they are.  The net put right 205
heights the evidence read wrong and put wrong 13 it read right; on 19 of the 34 both were
wrong.  What is left there is not in how the two are weighed."""


def patch_weight(side_px: np.ndarray) -> np.ndarray:
    """How much the patch net's log-probabilities count beside the height model's at points
    whose layers' sides look ``side_px`` pixels tall: :data:`PATCH_THIN_WEIGHT` up to the first
    of :data:`PATCH_THIN_PX`, :data:`PATCH_WEIGHT` from the second, in proportion between.

    >>> patch_weight(np.array([2.0, 6.0, 9.0])).tolist()
    [0.9, 0.575, 0.25]
    """
    thick = np.clip((side_px - PATCH_THIN_PX[0]) / (PATCH_THIN_PX[1] - PATCH_THIN_PX[0]), 0.0, 1.0)
    return PATCH_THIN_WEIGHT + (PATCH_WEIGHT - PATCH_THIN_WEIGHT) * thick


def sliver(side_px: np.ndarray) -> np.ndarray:
    """How much of a sliver layers' sides ``side_px`` tall are: 1 at no height, 0 from
    :data:`SLIVER_PX` up.

    >>> sliver(np.array([0.0, 3.0, 6.0, 9.0])).tolist()
    [1.0, 0.5, 0.0, 0.0]
    """
    return np.clip(1.0 - side_px / SLIVER_PX, 0.0, 1.0)


def sliver_lean(p: np.ndarray, side_px: np.ndarray, built: np.ndarray, nats: float = SLIVER_NATS) -> np.ndarray:
    """The probabilities ``p`` (points x heights 0..H) of points whose layers' sides look
    ``side_px`` tall, leaned towards the taller of the heights the game builds (``built``, bool
    per height): each further one up to ``nats`` likelier (see :data:`SLIVER_NATS`).

    >>> sliver_lean(np.array([[0.0, 0.6, 0.4], [0.0, 0.6, 0.4]]), np.array([3.0, 8.0]), np.ones(3, bool)).round(3).tolist()
    [[0.0, 0.539, 0.461], [0.0, 0.6, 0.4]]
    """
    steps = np.maximum(np.cumsum(built) - 1 - built[0], 0)  # the buildable heights above one disc, up to each
    q = p * np.exp(nats * sliver(side_px)[:, None] * steps[None, :])
    return q / q.sum(axis=1, keepdims=True)


def unseen_heights(p: np.ndarray) -> np.ndarray:
    """The probabilities of heights ``p`` (points x heights 0..H) of points hidden wholly: the
    chances of empty and of one disc shared as :data:`UNSEEN_EMPTY` says, the others kept.

    >>> unseen_heights(np.array([[0.9, 0.0, 0.1]])).round(3).tolist()
    [[0.612, 0.288, 0.1]]
    """
    low = p[:, :2].sum(axis=1, keepdims=True) * [UNSEEN_EMPTY, 1.0 - UNSEEN_EMPTY]
    return np.column_stack([low, p[:, 2:]])


def partly_seen_heights(p: np.ndarray, share: np.ndarray) -> np.ndarray:
    """The probabilities of heights ``p`` (points x heights 0..H) of points of which nearer
    stacks leave ``share`` (0..1, :func:`vision.reader.seen_share`) in view, as the count
    weighs them: of points hidden wholly (a share of 0) as :func:`unseen_heights` says, of the
    others between that and ``p``, geometrically in proportion to the share seen.

    Where a stack in front leaves only the far part of a disc's top in view, the evidence of a
    white disc behind a white top can read the point surely empty, and the count then makes the
    disc it lacks up on a point in plain view read empty as surely (Accasta, benchmark seed
    6001, scene 16: a4's disc, 43% of its top in view, went to d1).  Of 590 Accasta pictures
    (100 of seed 6001, 100 of seed 6010 from 30-45 degrees, 390 of 6 held-out sets) that is the
    one reading this changes.

    >>> partly_seen_heights(np.array([[0.9, 0.1, 0.0]] * 3), np.array([0.0, 0.5, 1.0])).round(3).tolist()
    [[0.68, 0.32, 0.0], [0.814, 0.186, 0.0], [0.9, 0.1, 0.0]]
    """
    w = np.clip(share, 0.0, 1.0)[:, None]
    q = p ** w * unseen_heights(p) ** (1.0 - w)
    return q / q.sum(axis=1, keepdims=True)


def heights_adding_up(p: np.ndarray, total: int) -> tuple[np.ndarray, float] | None:
    """The likeliest heights of points read independently, with probabilities ``p`` (points x
    heights 0..H), that add up to ``total``, and how much less likely they are than the
    likeliest heights point by point (nats); None when no heights do.

    >>> p = np.array([[0.1, 0.6, 0.3], [0.0, 0.9, 0.1], [0.5, 0.5, 0.0]])
    >>> heights, cost = heights_adding_up(p, 4)
    >>> heights.tolist(), round(cost, 2)  # the first point's 2 costs ln(0.6 / 0.3), the last's 1 nothing
    ([2, 1, 1], 0.69)
    >>> heights_adding_up(p, 7) is None
    True
    """
    with np.errstate(divide="ignore"):
        log_p = np.log(p)
    heights = np.arange(p.shape[1])
    fit = likeliest_adding_up([(heights, row) for row in log_p], total)
    if fit is None:
        return None
    chosen, best = fit
    return np.array(chosen), float(log_p.max(axis=1).sum() - best)
