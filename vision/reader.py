"""Read a whole frame: every point's stack with a confidence, or why the frame is not readable.

>>> import numpy as np
>>> from vision.synth.scene import random_scene, render_image
>>> from vision.synth.photo import random_photo_look
>>> rng = np.random.default_rng(3)
>>> scene = random_scene("dame100", rng, size=(640, 360))
>>> reading = StackReader("dame100", scene.pose).read(render_image(scene, random_photo_look(rng), rng))
>>> reading.readable, len(reading.observation.confidence)
(True, 50)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

import rules
from calibration.camera import BoardPose
from rules.geometry import Geometry
from rules.infer import Observation
from vision.colours import DARKEST, ColourModel, brightness, confidence, log_chroma, reference_brightness
from vision.hands import HandFinder, beyond_stacks
from vision.heights import height_model, read_heights
from vision.percentiles import nan_percentile
from vision.placement import StackColours, disc_offsets, stack_colours
from vision.shapes import SURE_LAYER, StackShapes
from vision.stack_net import STEEP_RISE, PatchHeights, patch_frames
from vision.stacks import (HIDDEN_LAYER, TUNED_PX_PER_MM, FrameSamples, StackModel, outline_evidence,
                           outline_strength)

MIN_SHARPNESS = 0.09
"""Below this :attr:`vision.stacks.FrameSamples.sharpness` the frame is too blurred to read:
on rendered scenes blurred step by step, a quarter of the points were read wrong below it
(a tenth confidently), a sixth just above it."""
MIN_LIGHTNESS = 0.05
"""Below this :attr:`vision.stacks.FrameSamples.lightness` the board is too dark to read: its
colours are a few grey levels of noise and JPEG blocks.  Of 304 pictures of the held-out sets
and the samples (our renderer on the near-black slate look, POV-Ray's, Mitsuba's), all read
well, the darkest board was at 0.12 (slate Dame 100 in a dim light); a Mitsuba still whose
camera sees the lamp and is exposed for it (samples/reading/lamp-in-view) shows the board at
0.03, which the sharpness test took for a blurred frame.  Samples darkened (their 8-bit values
scaled, JPEG again, no noise added): slate-dame read right at 0.07, 4 points wrong at 0.033,
13 (2 sure) at 0.021 and 20 (all sure) at 0.012; dame-kings, a light board, read right down to
0.02, which a real camera's noise in such light would not leave it."""
SURE_SHARPNESS = 0.14
"""Between the two, every confidence is lowered in proportion: edges are soft, heights less
sure (confidently wrong points: 2% at 0.09-0.105, 1% at 0.105-0.12, 0.5% above, as on sharp photos)."""
TORN = 0.5 + 1e-9
"""The least confidence of a disc's colour: no better than a coin's, yet the colour read
leads when the disc is weighed with the rest of its stack (:mod:`vision.shapes`)."""
MIN_IN_VIEW = 0.6
"""A point with less of its samples inside the frame than this is not read."""
FLAT_SIDE_PX = 1.5
"""A layer's side shorter than this (pixels, camera straight above) shows no colour."""
OUT_OF_SIGHT = 0.1
"""A point is out of sight where nearer stacks leave less than this share in view of the board
there and of the top face of a single disc on it, and too little of that disc's side to read
(:func:`out_of_sight`).  Unless its reading shows some disc of a taller stack (or the discs
the game holds tell its colours: Accasta), it is read empty, as most such points are, with a
confidence and presence of 0: "not seen", which the move inference lets any turn overrule
(``tacticblue read`` says "hidden").  A camera low over the board cannot tell an empty point
behind a tall stack from a disc on it: on six held-out sets (1,100 pictures of our renderer
and POV-Ray's) 112 points read empty or with no layer seen were so hidden: 69 empty ones and
15 discs read empty, 21 discs and 7 empty ones read ``?`` (a disc of a colour not seen),
those 7 now read right.  The share matters little: at 0.05-0.3 the same points are out of
sight."""
MIN_RIM_SEEN = 0.4
"""A top face's rim ring is read where at least this share of it is not hidden by nearer stacks."""
UNLIKE_EMPTY = (0.1, 0.3)
"""An empty point whose board looks unlike the frame's other sure empty points of its shade
(:meth:`rules.geometry.Geometry.shades`) by more than the first (the largest difference of
a colour channel, 0..1) is less sure, down to :data:`UNLIKE_EMPTY_TRUST` at the second:
a black disc on a dark cell, its outline lost, still hides the cell's colour.  On the
benchmark's 300 scenes this left 1 of 8 confidently missed discs sure, and 52 of 10,333
sure empty points unsure (shadows of tall stacks)."""
UNLIKE_EMPTY_RATIO = (0.3, 0.6)
"""The same for how many times darker or brighter it is (the log of the ratio of brightnesses,
each plus :data:`DARKEST`): on a dark cell a black disc is only 0.05-0.1 darker, but a third
darker or more.  On the benchmark's 1000 scenes this leaves 14 of 19 confidently missed discs
sure, and 2 more of 35,000 sure empty points unsure."""
DISC_LIKE_EMPTY = (-0.05, 0.0)
"""An empty point whose board is less than 0.05 of the gap between black and white tops lighter
than the black tops is less sure, down to :data:`UNLIKE_EMPTY_TRUST` where it is no lighter
(:func:`_disc_like_trust`).  On 100 POV-Ray scenes with boards printed in styles of their own
(tools/povray_scenes.py --foreign-print: Dame 100, Attraktion 10x10 and 8x8, Attangle hex and
square, 20 each) black discs on cells printed near black were read empty with a confidence of
0.6 or more 30 times, 22 of them on a board no lighter than that; on 150 of the benchmark's
scenes (25 each of Dame 100, Attraktion, Attraktion 8x8, Attangle square, Abande, Accasta) 231 of
4,993 sure empty points are within 0.05 (shadows of tall stacks, dark cells in a dim light), yet
benchmarks/turns.py records the same turns on both seeds (one more on seed 1)."""
BOARD_LIKE_DISC = (0.4, 0.8)
"""A stack whose top face's hue is nearer the board's than the sure tops' of its colour by
more than the first (a share of the distance between the two) is less sure, down to
:data:`UNLIKE_EMPTY_TRUST` at the second (:func:`_board_likeness`).  On 100 rendered scenes
of Attangle square (seed 5306) empty dark cells in the shadows of tall stacks were read as
black discs with confidences of 0.64-0.89 five times, at 0.63-0.97; of the 4,333 discs read
right on those and on 60 scenes each of Dame 100, Abande, Accasta and Attraktion (seed 5307)
where the hues are 0.3 or more apart, 1 was at more than 0.5."""
BOARD_LIKE_EMPTY = 0.85
"""A single disc whose top face's hue is at least this much nearer the board's than the sure
tops' of its colour (:func:`_board_likeness`) is read as the empty board it looks like, as
unsure as the disc would have been, unless Accasta's count of discs needs it.  Dark cells in
the shadows of stacks, which the outlines and the patch net take for black discs, lie there:
on 940 rendered scenes (seeds 9060-9063, all ten games, 1280x720) 4 single discs read were
empty points, at 0.61, 0.88, 0.97 and 0.99; of the 11,217 real ones whose hue could be
checked, none was above 0.68.  Either way the reading is unsure (:data:`BOARD_LIKE_DISC`)."""
HUES_APART = {False: 0.3, True: 0.1}
"""The least distance of the board's hue from the black (False) and the white (True) discs'
tops (:func:`vision.colours.log_chroma`) that tells the two apart: a grey print or slate
board has none; blue, green and wooden cells are 0.1-1.3 from the discs'.  A white disc's hue
is measured well (a frame's sure white tops' within 0.01-0.03 of each other), a black one's is
dim.  In the benchmark's attangle-square-6001-0196 (seed 6001, 33 degrees; now
samples/reading/pale-cells-low) two empty cells of a pale blue 0.11 from the white tops were
read as white discs at 0.98 and 0.71, their would-be tops' hue the cell's within 0.01; at 0.1
they are unsure, and on 1,125 held-out stills (our renderer, POV-Ray's and Mitsuba's) nothing
else changed.  :data:`BOARD_HUES_APART` is the same for the board at a white stack's point."""
BOARD_HUES_APART = 0.2
"""The least distance of the board's hue from the white discs' tops for a white stack to be
checked by the board at its point (:func:`_board_likeness`).  The lower discs of a stack
show there too, and a black one's dim hue can be near the board's: at 0.1, 8 right readings
of stacks on black discs in the held-out stills became unsure (bbw at 0.92-0.95 to 0.27-0.28)
and none wrong."""
UNLIKE_EMPTY_TRUST = 0.3
CELL_DARKER = (0.2, 0.3)
"""An empty point in the middle of a cell whose board looks darker than the cell around it
(:data:`vision.stacks.SURROUND_MM`; the log of the ratio of brightnesses, each plus
:data:`vision.colours.DARKEST`) by more than the first is less sure, down to
:data:`UNLIKE_EMPTY_TRUST` at the second: a black disc on a dark cell seen from above shows
little outline, and where most cells are taken there are few empty ones to compare with.
On the benchmark's Dame 100, Attraktion (10x10, 8x8) and Attangle square scenes this made
7 of the 10 discs missed with a confidence of 0.6 or more unsure, and 119 of 17,321 sure
empty cell points (in the shadow of a neighbour)."""
OUTLINE_SEEN = 0.9
"""Seen from straight above (a layer's side shorter than :data:`FLAT_SIDE_PX`), an empty point
whose disc outline has an edge along this share of its far half or more is only
:data:`UNLIKE_EMPTY_TRUST` sure: no circle shows on an empty point there (a cell's edges are
millimetres off it, printed lines cross it), while a disc whose near half its shadow or a cell
of its colour hides still shows the rest.  On 600 rendered scenes of Attraktion, Attraktion
8x8 and Alva (seed 505, not the benchmark's), this made 1 of 6,601 empty points read empty
from above unsure, and all 5 discs missed there with a confidence of 0.6 or more."""
THIN_SIDE_PX = 3.5
"""A layer's side shorter than this (pixels) makes a stack's height hard to count: on the
benchmark's 700 scenes of the stacking and draughts games (1000 scenes, 1280x720) heights
were wrong on 9% of the stacks whose layer side looks 1.5-2.5 px tall, 4% at 2.5-3.5 px, 2%
at 3.5-5 px and 0.3-0.5% above."""
THIN_SIDE_SHARE = 0.25
"""The share of a board's points in view seen from too low (:data:`LOW_VIEW_DEG`), or whose
layer sides look thinner than :data:`THIN_SIDE_PX`, from which the players are told
(:meth:`StackReader.view_note`)."""
LOW_VIEW_DEG = (10.0, 25.0)
"""A point seen from less than the second of these above the board (degrees, the line of sight
from the camera to it) is read less surely, down to not at all at the first; where a quarter
(:data:`THIN_SIDE_SHARE`) of the points in view are, the players are told the camera is too low
(:meth:`StackReader.view_note`).  The renderer's cameras stand 30-70 degrees up; below, nearer
discs hide more of each point and a top face is a thin sliver, and the reader had never seen
such views.  On 160 pictures of all ten games from 10-35 degrees (``tacticblue scenes render
--elevation 10-35``, seeds 9201 and 9202, 1280x720) the stacks read right, or ``?`` where hidden,
were 43% of those seen from 6-9 degrees, 64% at 9-12, 79% at 12-15, 94-96% at 15-21, 98-99% at
21-27 and all of them from 27 up; 7 were read wrong with a confidence of 0.6 or more, all seen
from under 15 degrees (a white disc read empty at 0.94).  Pictures without an error: 14% with
the camera 10-15 degrees up, 43% at 15-20, 69% at 20-25, 90% at 25-30 and 97% at 30-35."""
JOINT_ROUNDS = 3
"""How often the top faces' and the sides' colour models are fitted again to the colours both
read together (:meth:`vision.colours.ColourModel.refit`).  On the benchmark's 1000 scenes this
changes Dame 100 alone: a glossy black man whose top mirrors the lamp is no longer read white
surely (full stacks right .9960 -> .9964, sure and wrong .0008 -> .0006).  On 40 scenes of each
of 14 camera effects (tone curves, colour casts, blur, noise, JPEG, vignetting) Dame 100's sure
and wrong points go from up to .0015 to none, and two other games lose one unsure point each."""
NET_DOUBT = 0.75
"""A stack's confidence is multiplied by the patch net's probability of the height read, to this
power, where the net was asked (:data:`vision.heights.PATCH_NEEDED_NATS`): the net never makes
a reading surer (:func:`vision.heights.read_heights`), but where it sees another height, or
is torn, the reading is less sure.  On the benchmark's 700 scenes of the stacking and draughts
games (seed 7) the stacks read wrong with a confidence of 0.6 or more went from 8 to 5 (mixed
2-stacks seen from about 60 degrees, their lower disc missed), and 36 of 11,233 right ones
became unsure; benchmarks/turns.py left 3 turns fewer to the players on seeds 3 and 4, none
more on 1 and 2.  The net's word averaged over :data:`vision.stack_net.VIEWS` is less sure
where the views disagree: the benchmark's abande-7-0045 d2 (a ``wb`` read ``b``, the net 0.87
sure of two discs as cut, 0.13 a pixel aside) is unsure.  The power is 0.75 rather than 0.5:
with the share below, that made d2 unsure (0.61 -> 0.54), and six held-out sets (1,100
pictures) read alike (5,870 right points unsure, 5,869 at 0.5).

The probability was first taken as a share of that of the net's likeliest height, so a net
torn between one disc and two left a reading of one as sure as the evidence made it.  Seen
from 60-72 degrees the evidence reads a 2-stack's lower disc as the stack's shadow, at times
surely: 11 of the 14 points read wrong with a confidence of 0.6 or more on six held-out sets
(1,053 pictures of our renderer and POV-Ray's, 47,381 points) were such stacks read a disc
short, 8 of them Accasta's, and benchmarks/turns.py (seed 5901) left 6 Accasta turns to the
players, most for them, and recorded 1 wrong.  With the net's probability itself, 3 of them (the
evidence 0.81-0.90 sure of one disc, the net 0.50-0.65) are unsure, and 72 more of the 47,097
points read right (7,451 unsure); turns.py's Accasta went from 0.956 of its 160 turns right
to 0.975 (none wrong, 4 left), and seen from 62-72 degrees (seed 6201) from 2 wrong and 10
left to 1 and 13."""
NET_COLOUR_DOUBT = 0.5
"""A stack's confidence is multiplied by the patch net's probability of the top colour read, as
a share of that of the colour it finds likelier, to this power, that share taken as at least
:data:`NET_COLOUR_FLOOR` (so it is at most halved).  The net tells a glossy black top that
mirrors the lamp from a white one where the frame's colour levels cannot (on six held-out sets,
34,180 points of our renderer and POV-Ray's, it saw the right colour of 18 of the 19 tops read
wrong), but across looks and renderers it is no surer than they (it saw the other colour on 35
of 14,610 tops read right), so it doubts, and votes no more than :data:`NET_COLOUR_VOTE`:
there the stacks read wrong with a confidence of 0.6 or more went from 14 to 12, and 26 of
29,147 right ones became unsure.  Asking it only about tops the levels read less than 99.9%
sure would doubt 15 right ones, not 38, but leave one of the two sure misreadings sure (its
top 0.9992).  It is asked about the tops where its vote could turn the colour (their levels'
score under :data:`NET_COLOUR_VOTE`) and where it has run for the heights anyway: asked about
every top it ran on 11.1 patches a frame more in Attangle square's pictures (seed 5309), not
0.4, and took 1.9 ms more of about 30 (one core).  On 1,478 held-out pictures (the benchmark's
seed 5801, 60 of each game; our renderer's stills seen steeply and from every elevation, on
slate and at 640x480; POV-Ray's), and on 540 more under a warm colour cast and tone curves
(``benchmarks/vision.py --effect``), every point reads as it did, as surely but for one
point read wrong (unsure at 0.50, not 0.25)."""
NET_COLOUR_FLOOR = 0.25
NET_COLOUR_VOTE = 3.0
"""The most the patch net's top colour adds to a top layer's colour score (in the units of
:meth:`vision.colours.ColourModel.scores`: a quarter of the gap between the two colours'
levels), whole from :data:`NET_COLOUR_WHOLE`.  The vote decides where the frame's levels
are unsure, and the colours' groups are fitted again to what it decided
(:data:`JOINT_ROUNDS`), but it never makes a disc surer than the levels alone, nor through
those fits: a colour the vote turned is unsure where the levels fitted without it read the
other colour.  A lamp's
fall-off and glossy black tops mirroring the room can light black tops at one side of the
board like white ones at the other; where the colours stand apart (a draughts game, White's
men on one half) the levels' groups then mix them, and no disc's level tells them apart.
On five held-out sets (1,100 pictures: our renderer at 1280x720, 640x480 and on slate,
POV-Ray's, and its boards printed in styles of their own) the points read wrong went from
195 to 182 (colours 61 to 48), none more on any set; sure and wrong stayed at 5.  A whole
vote of 4 read as well on the 1280x720 and POV-Ray sets; one of 4 whole from log-odds of 6
made white discs on white cells black on POV-Ray's pictures (the net takes out each patch's
brightness)."""
NET_COLOUR_WHOLE = 12.0
"""The net's log-odds of white over black (or black over white) from which its vote is whole;
it reads most tops at 10-27, and its wrong ones at under 7."""
NET_LAYER_VOTE = 3.0
"""The most the patch net's colour of a layer under the top adds to the layer's side's colour
score (units as :data:`NET_COLOUR_VOTE`), whole from :data:`NET_LAYER_WHOLE`.  A lower layer's
side seen from 60 degrees and steeper is 2-4 pixels tall, and its level, read along a band of
it, mixes with the discs' rims and shadows; the net reads the side's shape too.  Like the top's
vote it never makes a disc surer.  On six held-out sets (1,100 pictures: our renderer at
1280x720, 640x480, seen steeply and on slate, and POV-Ray's, level and with boards printed in
styles of their own) the lower layers read the wrong colour went from 46 to 32 with the
fitted net, and to 30 with its 8-bit copy (the points read wrong from 143 to 132, sure and
wrong 4 to 5: a single black disc whose top the net, before as now, sees white, 0.49 -> 0.73
sure).  A vote of 5 read 35 wrong, one of 8 40, one of 3 whole from 8 36: the levels are right
more often than the net where both are sure."""
NET_LAYER_WHOLE = 16.0
"""The net's log-odds of a layer's colour from which its vote is whole."""
SURE_EMPTY = 0.9
"""Points read empty with at least this probability show what an empty point looks like."""
SURE_STACK = 0.5
SURE_TOP = 0.9
"""Stacks whose height has at least the first probability and whose top disc's colour at least
the second confidence show what a top face of that colour looks like (:func:`_board_likeness`)."""
HEIGHT_BLUR_PX = 1.5
"""How fast heights become readable as a layer's side grows (pixels): adjacent heights' rims
are one side apart, and edges are smeared over a pixel or two, so on rendered scenes of the
stacking games heights were wrong on 69% of stacks whose layer side looks 1.5-2.5 px tall,
24% at 2.5-3.5 px, 15% at 3.5-5 px and 3-6% above.  See :func:`height_reliability`."""


def view_angles_deg(pose: BoardPose, centres_mm: np.ndarray) -> np.ndarray:
    """How far above the board the camera sees each of the points at ``centres_mm`` (mm on the
    board plane, points x 2): the angle between the board and the line of sight (degrees)."""
    camera = pose.camera_position_mm()
    return np.degrees(np.arctan2(camera[2], np.hypot(*(centres_mm - camera[:2]).T)))


def view_trust(angle_deg: np.ndarray) -> np.ndarray:
    """How far a point's reading can be trusted when the camera sees it ``angle_deg`` above the
    board (:data:`LOW_VIEW_DEG`).

    >>> view_trust(np.array([8.0, 17.5, 25.0, 60.0])).tolist()
    [0.0, 0.5, 1.0, 1.0]
    """
    low, enough = LOW_VIEW_DEG
    return np.clip((angle_deg - low) / (enough - low), 0.0, 1.0)


def height_reliability(side_px: float) -> float:
    """How far a stack's height can be trusted when one layer's side looks ``side_px`` tall.

    >>> [round(height_reliability(x), 2) for x in (1.0, 2.0, 3.0, 5.0, 10.0)]
    [0.0, 0.41, 0.7, 0.92, 1.0]
    """
    return 1.0 - math.exp(-max(side_px - FLAT_SIDE_PX + 0.3, 0.0) / HEIGHT_BLUR_PX)


@dataclass(frozen=True)
class Reading:
    """What one frame shows: the observation (points not seen are left out) and whether the
    frame could be read as a whole, and if not, whether because a hand is over the board."""

    game: str
    observation: Observation
    readable: bool
    reason: str | None = None
    hand: bool = False

    def to_json(self) -> dict[str, Any]:
        obs = self.observation
        return {"game": self.game, "points": obs.points,
                "confidence": {k: round(v, 3) for k, v in obs.confidence.items()},
                "presence": {k: round(v, 3) for k, v in obs.presence.items()},
                "readable": self.readable, "reason": self.reason}


class StackReader:
    """Reads frames of one game from one board pose (the per-pose work is done once)."""

    def __init__(self, game: str, pose: BoardPose) -> None:
        if game not in rules.GAMES:
            raise ValueError(f"unknown game {game!r}")
        cls = rules.GAMES[game]
        if cls.geometry.kind != pose.kind:
            raise ValueError(f"{game} is played on the {cls.geometry.kind} side, the pose is of the {pose.kind} side")
        self.game = game
        self.pose = pose
        self.model = StackModel(pose, cls.geometry, cls.max_height)
        self.shapes = StackShapes(cls.possible_stacks(), cls.max_height, cls.usual_stacks())
        self.heights = height_model(game)
        self.discs = cls.discs_per_player
        self.hands = HandFinder(pose)
        self.where = self.model.centres_mm / np.abs(self.model.centres_mm).max()
        """Per point, where it is on the board (board units, -1..1): disc colours' levels slope over it."""
        self.reliability = np.array([height_reliability(ps.side_px) for ps in self.model.points])
        """Per point, :func:`height_reliability` of its stacks' layers."""
        self.view_angles = view_angles_deg(pose, self.model.centres_mm)
        """Per point, how far above the board the camera sees it (degrees, :func:`view_angles_deg`)."""
        self.sight = view_trust(self.view_angles)
        """Per point, how far its reading can be trusted from there (:func:`view_trust`)."""
        self.patch_maps, self.patch_rise = patch_frames(self.model)
        """Per point, where its picture is cut out for the patch net, and how far a layer rises
        there (:func:`vision.stack_net.patch_frames`)."""
        self.steep_rise = STEEP_RISE
        """Points whose layers rise less than this are read with the steep patch net instead
        (:class:`vision.stack_net.PatchHeights`; 0: with the net of every view alone)."""

    def view_note(self) -> str | None:
        """Advice for the players when the camera sees much of the board (:data:`THIN_SIDE_SHARE`)
        from too low (:data:`LOW_VIEW_DEG`), or, in games with stacks, sees their sides too thin
        to count their discs; None otherwise."""
        model = self.model
        seen = model.in_view >= MIN_IN_VIEW
        many = THIN_SIDE_SHARE * max(seen.sum(), 1)
        low = seen & (self.view_angles < LOW_VIEW_DEG[1])
        if low.sum() >= many:
            return (f"the camera is low: it sees {low.sum()} of the {seen.sum()} points from under "
                    f"{LOW_VIEW_DEG[1]:g} degrees above the board, where nearer discs hide them and their tops look thin, "
                    "so they are read less surely (a camera 30-60 degrees up sees them better)")
        thin = seen & (model.side_px < THIN_SIDE_PX)
        if model.max_height < 2 or thin.sum() < many:
            return None
        return (f"the camera looks down steeply: a disc's side looks under {THIN_SIDE_PX:g} px tall (at "
                f"{TUNED_PX_PER_MM:g} px a millimetre) on {thin.sum()} of the {seen.sum()} points, so stack heights "
                "there are read less surely (a lower camera shows them better; a larger frame hardly does)")

    def read(self, image: np.ndarray) -> Reading:
        """Read a BGR frame taken with the reader's pose (same size as its camera)."""
        model = self.model
        h, w = image.shape[:2]
        names = model.names
        unread = Observation({}, {n: 0.0 for n in names})
        if not (model.in_view >= MIN_IN_VIEW).any():
            return Reading(self.game, unread, False,
                           "the board is not in the picture (a calibration of another camera placement?)")
        frame = FrameSamples.of(model, image)  # a frame of another size than the pose's is refused here
        if frame.lightness < MIN_LIGHTNESS:
            return Reading(self.game, unread, False, "the board is too dark to read (no light on it, or a lamp in "
                           "view that the camera exposes for)")
        if frame.sharpness < MIN_SHARPNESS:
            return Reading(self.game, unread, False,
                           "the frame is too blurred to read (the camera moving, or out of focus)")
        blur = min(1.0, (frame.sharpness - MIN_SHARPNESS) / (SURE_SHARPNESS - MIN_SHARPNESS))
        patch_heights = PatchHeights(image, self.patch_maps, self.patch_rise, model.max_height, self.steep_rise)
        hand = self.hands.mask(image)
        first = None
        if hand.any():
            # Under a warm lamp white discs' tops can look skin-coloured: a "hand" that lies
            # mostly on the stacks read with nothing hidden is those stacks.
            first = self._observe(frame, blur, None, patch_heights)
            hand = beyond_stacks(hand, model.covered(np.array([len(first.points.get(n, "")) for n in names])),
                                 self.hands.margin_px)
        if hand.any():
            px = np.clip(np.round(model.bank_px).astype(int), 0, [w - 1, h - 1])
            return Reading(self.game, self._observe(frame, blur, hand[px[:, 1], px[:, 0]], patch_heights), False,
                           "a hand is over the board", hand=True)
        return Reading(self.game, first or self._observe(frame, blur, None, patch_heights), True)

    def _observe(self, frame: FrameSamples, blur: float, hidden: np.ndarray | None,
                 patch_heights: PatchHeights) -> Observation:
        """Every point's stack, confidence and presence (a point not read is left out of the
        stacks), ``blur`` (0..1) scaling the confidences; ``hidden`` (per sample of the bank,
        bool) marks a hand's pixels; ``patch_heights``: what the patch net makes of the points
        whose evidence asks for its word."""
        model, names = self.model, self.model.names
        # A game that never adds or removes a disc says how many the heights add up to, when
        # every point is in view and no hand hides one.
        total = 2 * self.discs if self.discs and hidden is None and (model.in_view >= MIN_IN_VIEW).all() else None
        every = np.arange(len(names))
        heights, probs, masks, offsets, weighed = read_heights(model, frame, self.heights, hidden, self.shapes.fold,
                                                               total, patch_heights,
                                                               lambda vis: seen_share(model, every, vis))
        prob = probs[every, heights]
        board = _board_colours(model, frame, masks)
        empty_trust = (_empty_trust(model, board, heights, prob) * _outline_trust(model, frame, heights, masks)
                       * _cell_trust(model, frame, board, heights))
        # Colours are read where each disc seems to stand (a single disc where its stack's
        # outline says: that is its own) and where its point is: where the two disagree, the
        # place found decides the colour, and the disc is unsure.
        stacked = np.flatnonzero(heights > 1)
        discs = np.repeat(offsets[:, None], model.max_height, axis=1)
        discs[stacked] = disc_offsets(model, stacked, heights[stacked], masks[stacked],
                                      outline_strength(model, frame, stacked), offsets[stacked])
        readings = [_layer_levels(model, heights, masks, stack_colours(model, frame, heights, at, per_disc))
                    for at, per_disc in ((offsets, discs), (np.zeros_like(offsets), np.zeros_like(discs)))]
        reference = reference_brightness(frame)
        where, reliability, sight = self.where, self.reliability, self.sight
        tops, sides = readings[0]
        seen = np.isfinite(tops)
        top_layer_at = (every, np.maximum(heights - 1, 0))  # each point's top layer
        # Sides are read with flat levels: a side's light depends on which way it faces the
        # lamp more than on where it stands (on the benchmark's 1000 scenes sloping levels
        # read 46 lower layers wrong, flat ones 39).
        side_seen = np.isfinite(sides)
        top_colours = ColourModel.fit(tops[seen], where[seen], reference)
        side_colours = ColourModel.fit(sides[side_seen], reference=reference)
        if side_colours.two_groups and not top_colours.two_groups:
            # The tops look alike but the sides tell two colours apart: the tops' groups are
            # those their top layers' sides say.  Glossy black tops mirroring a bright room can
            # look as light as white ones: in benchmarks/films.py's Attangle square film 0 (seed
            # 1) they read 0.62-0.72 against 0.80-0.91, too close for two groups, while their
            # sides read 0.16-0.20 against 0.39-0.48; read by their tops, three black discs were
            # white and a wrong turn was recorded.  None of the 740 still scenes reads otherwise.
            by_side = side_colours.scores(sides[top_layer_at])
            known = seen & np.isfinite(by_side)
            top_colours = ColourModel.split(tops[known], by_side[known] >= 0, where[known]) or top_colours
        # Per reading, every layer's score: its side's, plus its top face's for the top layer.
        top_layer = np.arange(model.max_height)[None] == (heights - 1)[:, None]

        def layer_scores(tops_model: ColourModel, sides_model: ColourModel, vote: np.ndarray | float,
                         side_vote: np.ndarray | float) -> list[np.ndarray]:
            return [np.nan_to_num(reliability[:, None] * sides_model.scores(sd)) + side_vote
                    + np.where(top_layer, (np.nan_to_num(tops_model.scores(t, where)) + vote)[:, None], 0.0)
                    for t, sd in readings]

        def read_together(vote: np.ndarray | float, side_vote: np.ndarray | float
                          ) -> tuple[list[np.ndarray], ColourModel, ColourModel]:
            """The layers' scores after :data:`JOINT_ROUNDS` fits of the colour models to the
            colours read with them (and the votes), and those models."""
            tops_model, sides_model = top_colours, side_colours
            scores = layer_scores(tops_model, sides_model, vote, side_vote)
            for _ in range(JOINT_ROUNDS):
                white = scores[0] >= 0
                tops_model = tops_model.refit(tops[seen], white[top_layer_at][seen], where[seen])
                sides_model = sides_model.refit(sides[side_seen], white[side_seen])
                scores = layer_scores(tops_model, sides_model, vote, side_vote)
            return scores, tops_model, sides_model

        # The net's word on a top where its vote could turn the colour, or where it has seen the point already.
        first = layer_scores(top_colours, side_colours, 0.0, 0.0)[0]  # the levels alone, as first fitted
        unsure = np.abs(first[top_layer_at]) < NET_COLOUR_VOTE
        net_tops = unsure | ~np.isnan(patch_heights.tops[:, 0])
        vote = _net_colour_vote(heights, np.isfinite(tops) & net_tops, patch_heights)
        side_vote = _net_layer_vote(heights, model.max_height, patch_heights)
        scores, voted_tops, voted_sides = read_together(vote, side_vote)
        empty_trust = empty_trust * _disc_like_trust(board, heights, voted_tops, where)
        # The colour read where the stack seems to stand, as sure as the frame's colours make
        # it; a hair over 0.5 where its point, or those colours without the net's vote, would
        # say the other colour: with the models fitted to what the vote decided, or, where the
        # vote turned a colour the levels first read, fitted to the levels alone (else the
        # refits carry the vote into the levels: a black disc lit like white ones, voted white,
        # became white at 0.75 that the levels alone read black).
        white = scores[0] >= 0
        plain = layer_scores(voted_tops, voted_sides, 0.0, 0.0)[0]
        alone = read_together(0.0, 0.0)[0][0] if np.any(white != (first >= 0)) else first
        agree = (white == (scores[1] >= 0)) & (white == (plain >= 0)) & (white == (alone >= 0))
        layer_confidence = np.maximum(np.where(agree, confidence(plain), 0.5), TORN)
        # A disc is one colour: where its top face and its own side say opposite colours, one
        # of them is misread (a glossy black top mirroring a lamp, a white side in shadow), and
        # the disc is as unsure as the weaker of the two is sure.  On 1,965 pictures
        # (our renderer's, POV-Ray's and Mitsuba's) 45 top layers disagreed by more than 0.5:
        # the top face was right on 39, and 2 of those had been sure; the side was right on 6.
        face = np.nan_to_num(voted_tops.scores(tops, where)) + vote
        side = np.nan_to_num(reliability * voted_sides.scores(sides[top_layer_at]))
        torn = np.where(face * side < 0, np.minimum(np.abs(face), np.abs(side)), 0.0)
        layer_confidence[top_layer_at] = np.maximum(0.5 + (layer_confidence[top_layer_at] - 0.5) * (1 - np.tanh(torn)),
                                                    TORN)
        likeness = _board_likeness(model, frame, masks, board, heights, (heights == 0) & (prob >= SURE_EMPTY),
                                   white[top_layer_at],
                                   (prob >= SURE_STACK) & (layer_confidence[top_layer_at] >= SURE_TOP))
        disc_trust = _trust(likeness, BOARD_LIKE_DISC)

        # Each stack's discs weighed together, as the game builds them.
        seen = side_seen | (top_layer & np.isfinite(tops)[:, None])
        counted = total is not None and heights.sum() == total
        white_p = np.where(white, layer_confidence, 1 - layer_confidence)  # each layer's probability of being white
        if total is None:  # where the count of discs decides the heights, they add up as read
            heights, white_p, seen = _one_shorter(self.shapes, heights, weighed, white_p, seen)
            prob = probs[every, heights]
        doubt = _net_doubt(heights, patch_heights)
        # A single disc that looks as the board does is the board (a dark cell in a shadow),
        # unless the count of the game's discs needs it.
        board_like = (heights == 1) & (likeness >= BOARD_LIKE_EMPTY) & (not counted)
        stacks, shares = self.shapes.best(heights, white_p, seen, self.discs if counted else None)
        if counted:
            stacks = self.shapes.deduce_unseen(stacks, self.discs)  # confidences stay those of discs not seen
        colour_doubt = _colour_doubt(stacks, net_tops, patch_heights)
        points: dict[str, str] = {}
        sure: dict[str, float] = {}
        presence: dict[str, float] = {}
        # Out of sight, and no disc of it seen nor told by the discs the game holds.
        unseen = out_of_sight(model, every, masks) & np.array([not s.strip("?") for s in stacks])
        for i, name in enumerate(names):
            ps, s = model.points[i], model.starts[i]
            in_view = model.in_view[i]
            under_hand = hidden is not None and hidden[s:s + model.block].mean() > 0.05
            if in_view < MIN_IN_VIEW or under_hand:
                sure[name] = presence[name] = 0.0
                continue
            if unseen[i]:  # nothing of it in view: read as most such points are, and not at all sure
                points[name], sure[name], presence[name] = "", 0.0, 0.0
                continue
            seen_well = min(1.0, in_view / 0.9) * blur * sight[i]
            stack, conf = "", float(prob[i])
            if heights[i] and model.max_height > 1:
                conf *= reliability[i] * doubt[i]  # a man or a king, 3 or 4 high
            if heights[i] == 0:
                # The board at the point seen is what says "empty"; where nearer stacks hide it,
                # only the missing outlines do, and they may have been hidden too.
                conf *= float(masks[i][ps.cap[0]].mean()) * empty_trust[i]
            if heights[i]:
                stack = "" if board_like[i] else stacks[i]  # read empty as unsure as the disc would be
                conf *= (shares[i] * 0.5 ** (heights[i] - seen[i].sum())  # a disc not seen: a coin toss
                         * colour_doubt[i] * disc_trust[i])
            points[name] = stack
            sure[name] = conf * seen_well
            # Whether there is a stack at all: surer than which stack where heights are hard to
            # tell apart (seen steeply from above) or lower discs' colours are, as sure as its
            # top disc's colour is clear (a shadow or a dark cell read as a disc seldom is).
            if heights[i] and not board_like[i]:
                p = float(white_p[i, heights[i] - 1])
                top = max(p, 1.0 - p) if seen[i, heights[i] - 1] else 0.5
                presence[name] = max(sure[name], (1.0 - float(probs[i, 0])) * top * seen_well * disc_trust[i])
            else:
                presence[name] = sure[name]
        return Observation(points, sure, presence)


def _one_shorter(shapes: StackShapes, heights: np.ndarray, weighed: np.ndarray, white: np.ndarray,
                 seen: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``heights``, each layer's probability of being white (``white``) and whether it was seen
    (``seen``; both points x layers), with the stacks whose colours say they are a disc
    shorter (:meth:`vision.shapes.StackShapes.shorter`, by the heights' probabilities
    ``weighed``: points x heights) read so, their top disc's two readings taken together.

    Seen from above 60 degrees a layer's side is a sliver of 2-4 px and a stack of one disc
    can be read as two; in Abande its disc then reads black twice, and the reader wrote the
    stack the game allows, white under black.  On 120 stills of the stacking games at 58-75
    degrees (seed 9463) 4 of the 55 points read wrong are read right now and no point read
    right changed; on 340 more at 55-75 degrees (seeds 9971 and 9973, held out) 4 were mended
    and 1 (a black disc under a white one read as the white one alone) was read wrong."""
    every = np.arange(len(heights))
    below = np.maximum(heights - 1, 0)
    odds = np.log(weighed[every, below] + 1e-300) - np.log(weighed[every, heights] + 1e-300)
    short = np.flatnonzero(shapes.shorter(heights, white, seen, odds))
    if not len(short):
        return heights, white, seen
    heights, white, seen = heights.copy(), white.copy(), seen.copy()
    top, under = heights[short] - 1, heights[short] - 2
    log_odds = np.zeros(len(short))  # of the top disc's being white, both readings together
    for k in (under, top):
        p = np.clip(white[short, k], SURE_LAYER, 1 - SURE_LAYER)
        log_odds += np.where(seen[short, k], np.log(p / (1 - p)), 0.0)
    read = seen[short, under] | seen[short, top]
    sure = np.maximum(confidence(log_odds / 2), TORN)  # as a colour score says (a score is half the log-odds)
    white[short, under] = np.where(read, np.where(log_odds >= 0, sure, 1 - sure), white[short, under])
    seen[short, under] = read
    seen[short, top] = False
    heights[short] -= 1
    return heights, white, seen


def _net_doubt(heights: np.ndarray, patch_heights: PatchHeights) -> np.ndarray:
    """Per point, how far the patch net's word on its height leaves a stack read sure
    (:data:`NET_DOUBT`): 1 where the net was not asked."""
    doubt = np.ones(len(heights))
    asked = np.flatnonzero(~np.isnan(patch_heights.table[:, 0]))
    doubt[asked] = np.exp(NET_DOUBT * patch_heights.table[asked, heights[asked]])
    return doubt


def _net_colour_vote(heights: np.ndarray, top_seen: np.ndarray, patch_heights: PatchHeights) -> np.ndarray:
    """Per point, what the patch net's top colour adds to its top layer's colour score
    (:data:`NET_COLOUR_VOTE`; 0 where there is no stack or its top face is hidden)."""
    vote = np.zeros(len(heights))
    at = np.flatnonzero((heights > 0) & top_seen)
    if len(at):
        said = patch_heights.top_colours(at)
        vote[at] = NET_COLOUR_VOTE * np.clip((said[:, 0] - said[:, 1]) / NET_COLOUR_WHOLE, -1.0, 1.0)
    return vote


def _net_layer_vote(heights: np.ndarray, max_height: int, patch_heights: PatchHeights) -> np.ndarray:
    """Per point and layer (points x ``max_height``), what the patch net's colour of each layer
    under the top adds to its side's colour score (:data:`NET_LAYER_VOTE`; 0 on top layers and
    where there is no stack of two or more)."""
    vote = np.zeros((len(heights), max_height))
    at = np.flatnonzero(heights > 1)
    if len(at):
        said = patch_heights.layer_colours(at)[:, :max_height]
        under = np.arange(max_height)[None] < (heights[at] - 1)[:, None]
        vote[at] = np.where(under, NET_LAYER_VOTE * np.clip(said / NET_LAYER_WHOLE, -1.0, 1.0), 0.0)
    return vote


def _colour_doubt(stacks: list[str], net_tops: np.ndarray, patch_heights: PatchHeights) -> np.ndarray:
    """Per point, how far the patch net's top colour leaves the stack read sure
    (:data:`NET_COLOUR_DOUBT`): 1 where it agrees, no top colour was read, or ``net_tops`` does
    not ask the net about it."""
    doubt = np.ones(len(stacks))
    tops = np.array([s[-1:] for s in stacks])
    read = np.flatnonzero(((tops == "w") | (tops == "b")) & net_tops)
    if len(read):
        seen = patch_heights.top_colours(read)
        said = seen[np.arange(len(read)), (tops[read] == "b").astype(int)]
        doubt[read] = np.exp(NET_COLOUR_DOUBT * np.maximum(said - seen.max(axis=1), np.log(NET_COLOUR_FLOOR)))
    return doubt


def _board_colours(model: StackModel, frame: FrameSamples, masks: np.ndarray,
                   heights: np.ndarray | int = 0) -> np.ndarray:
    """Per point, the colours (BGR 0..1) of its samples of the board at the point (points x
    samples x 3), NaN where nearer stacks hide them (``masks``); with ``heights``, those of
    the top face of a stack that tall there instead."""
    cap = model.cap_index[np.broadcast_to(heights, len(model.names))]
    return np.where(np.take_along_axis(masks, cap, axis=1)[..., None], frame.colour[model.starts[:, None] + cap],
                    np.nan)


def _board_likeness(model: StackModel, frame: FrameSamples, masks: np.ndarray, board: np.ndarray,
                    heights: np.ndarray, sure_empty: np.ndarray, top_white: np.ndarray, sure_top: np.ndarray
                    ) -> np.ndarray:
    """Per point read as a stack, how much nearer the hue of its top face
    (:func:`vision.colours.log_chroma`) is to the board's at the sure empty points of its
    shade (``sure_empty``; ``board``: :func:`_board_colours`) than to the hue of the sure tops
    (``sure_top``) of its top's colour (``top_white``), in shares of the distance between the
    two (1: the board's hue, -1: the discs'), where that is at least :data:`HUES_APART`
    (:data:`BOARD_LIKE_DISC`, :data:`BOARD_LIKE_EMPTY`).  A coloured cell
    in a stack's shadow can look as dark as a black disc, and the net and the outlines may
    take it for one; it keeps the cell's hue.  A white stack is checked so by the board at its
    point too (where that is :data:`BOARD_HUES_APART` from the white tops), which it covers:
    seen low, the top face of an empty point's would-be disc lies on the white stack behind
    it, and the net and the outlines may take that for its own.
    Where fewer than three points of a shade are surely empty (a small or blurred picture,
    where the outlines' evidence is weak everywhere) the board's hue is that of all its points
    read empty; -inf where there are fewer than three of those either, or fewer than two sure
    tops to compare with, and at empty points."""
    likeness = np.full(len(heights), -np.inf)
    look = nan_percentile(log_chroma(board), 50, axis=1)
    cells = {}  # each shade's board hue
    for shade in np.unique(model.shades):
        ones = (model.shades == shade) & np.isfinite(look).all(axis=1)
        empty = sure_empty & ones
        if empty.sum() < 3:
            empty = (heights == 0) & ones
        if empty.sum() >= 3:
            cells[shade] = np.median(look[empty], axis=0)
    # The top face, and the board at the point: a disc there covers that too (a white one: a
    # black disc's hue is dim, and its side mirrors the board beside it).
    for seen, least in ((nan_percentile(log_chroma(_board_colours(model, frame, masks, heights)), 50, axis=1),
                         HUES_APART), (look, {True: BOARD_HUES_APART})):
        shown = (heights > 0) & np.isfinite(seen).all(axis=1)
        kinds = {white: shown & (top_white == white) for white in least}
        discs = {white: np.median(seen[kind & sure_top], axis=0) for white, kind in kinds.items()
                 if (kind & sure_top).sum() >= 2}  # each colour's sure stacks' hue there
        for (shade, cell), (white, disc) in itertools.product(cells.items(), discs.items()):
            apart = float(np.hypot(*(cell - disc)))
            at = kinds[white] & (model.shades == shade)
            if apart >= least[white] and at.any():
                nearer = (np.hypot(*(seen[at] - disc).T) - np.hypot(*(seen[at] - cell).T)) / apart
                likeness[at] = np.maximum(likeness[at], nearer)
    return likeness


def _empty_trust(model: StackModel, board: np.ndarray, heights: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """Per point, how far an empty reading there can be trusted (:data:`UNLIKE_EMPTY_TRUST`..1)
    for how unlike the sure empty points of its shade the board at the point (``board``:
    :func:`_board_colours`) looks (the largest channel difference of their median colours,
    0..1, and the ratio of their brightnesses; trusted fully where there are fewer than
    three to compare with)."""
    look = nan_percentile(board, 50, axis=1)
    unlike, ratio = np.zeros(len(model.names)), np.zeros(len(model.names))
    for shade in np.unique(model.shades):
        ones = model.shades == shade
        sure = ones & (heights == 0) & (prob >= SURE_EMPTY) & np.isfinite(look).all(axis=1)
        if sure.sum() >= 3:
            usual = np.median(look[sure], axis=0)
            unlike[ones] = np.nan_to_num(np.abs(look[ones] - usual).max(axis=1))
            times = (brightness(look[ones]) + DARKEST) / (brightness(usual) + DARKEST)
            ratio[ones] = np.nan_to_num(np.abs(np.log(times)))
    return np.minimum(_trust(unlike, UNLIKE_EMPTY), _trust(ratio, UNLIKE_EMPTY_RATIO))


def _outline_trust(model: StackModel, frame: FrameSamples, heights: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Per point, :data:`UNLIKE_EMPTY_TRUST` where an empty point seen from above shows a
    disc's outline (:data:`OUTLINE_SEEN`), else 1."""
    trust = np.ones(len(model.names))
    flat = np.flatnonzero((heights == 0) & (model.side_px < FLAT_SIDE_PX))
    if len(flat):
        rim = outline_evidence(model, frame, flat, masks[flat], outline_strength(model, frame, flat))[:, 0, 0]
        trust[flat[rim >= OUTLINE_SEEN]] = UNLIKE_EMPTY_TRUST
    return trust


def _cell_trust(model: StackModel, frame: FrameSamples, board: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """Per point, how far an empty reading there can be trusted for how much darker the board
    at the point (``board``: :func:`_board_colours`) looks than its own cell around it
    (:data:`CELL_DARKER`; 1 off the cells, and where nearer stacks hide either)."""
    trust = np.ones(len(model.names))
    at = np.flatnonzero(model.on_cells & (heights == 0))
    if frame.crop is None or not len(at):
        return trust
    px = model.surround_px[at]
    around = brightness(frame.crop.colours(px.reshape(-1, 2)).reshape(len(at), 2, 3) / 255.0)
    around = np.where(model.hidden_by_nearer(at, px, heights), np.nan, around)
    middle = brightness(board[at])
    darker = np.log((np.fmax(around[:, 0], around[:, 1]) + DARKEST) / (nan_percentile(middle, 50) + DARKEST))
    trust[at] = _trust(np.nan_to_num(darker), CELL_DARKER)
    return trust


def _disc_like_trust(board: np.ndarray, heights: np.ndarray, tops: ColourModel, where: np.ndarray) -> np.ndarray:
    """Per point, how far an empty reading there can be trusted for how far the board at the
    point (``board``: :func:`_board_colours`) is lighter than the black discs' tops there
    (``tops``, where: board units), in shares of the gap up to the white ones'
    (:data:`DISC_LIKE_EMPTY`): a black disc on a board or a cell printed as dark shows no
    colour of its own there, only its outline."""
    trust = np.ones(len(heights))
    if not tops.two_groups:
        return trust
    dark, light = tops.levels(where)
    lighter = (nan_percentile(brightness(board), 30) - dark) / np.maximum(light - dark, 1e-3)
    at = (heights == 0) & np.isfinite(lighter)
    trust[at] = _trust(-lighter[at], DISC_LIKE_EMPTY)
    return trust


def _trust(unlike: np.ndarray, span: tuple[float, float]) -> np.ndarray:
    """1 up to ``span``'s start, :data:`UNLIKE_EMPTY_TRUST` from its end, linear between."""
    lo, hi = span
    return np.clip(1 - (1 - UNLIKE_EMPTY_TRUST) * (unlike - lo) / (hi - lo), UNLIKE_EMPTY_TRUST, 1.0)


def _layer_levels(model: StackModel, heights: np.ndarray, masks: np.ndarray, colours: StackColours | None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Brightness of every point's top face (points) and of its layers' sides (points x H), from
    :func:`vision.placement.stack_colours`: NaN where nothing is read (no stack, hidden by
    nearer stacks (``masks``), a side too flat to show).  A side's level is a low percentile of
    its samples, so that a lamp's highlight on a glossy disc does not make it white; a top's is
    the darkest of that of its middle and the medians of its rims' rings
    (:data:`vision.stacks.CAP_RIM_FRACTIONS`), as a glossy black top mirrors the lamp where it
    is flat and stays dark where it rounds over."""
    n, H = len(model.names), model.max_height
    tops, sides = np.full(n, np.nan), np.full((n, H), np.nan)
    if colours is None:
        return tops, sides
    at, hgt = colours.points, heights[colours.points]
    seen = masks[at]
    cap_seen = np.take_along_axis(seen, model.cap_index[hgt], axis=1)
    middle = nan_percentile(np.where(cap_seen, brightness(colours.cap), np.nan), 30)
    ring = brightness(colours.rims)
    enough = np.sum(np.isfinite(ring), axis=-1) >= MIN_RIM_SEEN * ring.shape[-1]
    rims = np.where(enough, nan_percentile(ring, 50), np.inf).min(axis=1)
    tops[at] = np.where(np.isfinite(middle), np.fmin(middle, rims), np.nan)
    side_seen = seen[:, model.front_index]
    side = nan_percentile(np.where(side_seen, brightness(colours.layers), np.nan), 30)
    sides[at] = np.where(shown_layers(model, at, hgt, seen), side, np.nan)
    return tops, sides


def shown_layers(model: StackModel, points: np.ndarray, heights: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Which layers of stacks of ``heights`` on ``points`` show their side's colour (points x
    H): those on the stack whose front band is at least :data:`HIDDEN_LAYER` visible
    (``masks``: the points' samples' visibility, :meth:`StackModel.visible`) and whose side is
    not too flat to see (:data:`FLAT_SIDE_PX`).  The others are read ``?`` (or by the top face,
    for the top layer)."""
    side_seen = masks[:, model.front_index]
    return ((np.arange(model.max_height)[None] < heights[:, None])
            & (side_seen.sum(-1) >= max(HIDDEN_LAYER * side_seen.shape[-1], 1))
            & (model.side_px[points] >= FLAT_SIDE_PX)[:, None])


def seen_share(model: StackModel, points: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """How much of each of ``points`` nearer stacks leave in view (0..1): the larger share of
    the board there and of a single disc's top face on it, 1 where that disc's side shows, 0
    where the share is under :data:`OUT_OF_SIGHT` (``masks``: the points' samples' visibility,
    :meth:`StackModel.visible`, which depends on the nearer stacks' heights only)."""
    board = model.board_in_view(masks)
    top = masks[:, model.cap_index[1]].mean(axis=1)
    side = shown_layers(model, points, np.ones(len(points), int), masks)[:, 0]
    share = np.where(side, 1.0, np.maximum(board, top))
    return np.where(share < OUT_OF_SIGHT, 0.0, share)


def out_of_sight(model: StackModel, points: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Which of ``points`` nearer stacks hide wholly (:data:`OUT_OF_SIGHT`): the board there and
    a single disc on it (``masks``: as :func:`seen_share`)."""
    return seen_share(model, points, masks) == 0.0


def draw_reading(image: np.ndarray, pose: BoardPose, geometry: Geometry, reading: Reading) -> np.ndarray:
    """The picture with every point's reading written at the point: green sure, orange unsure,
    red not read."""
    import cv2

    out = image.copy()
    obs = reading.observation
    scale = max(0.35, image.shape[1] / 2400)
    for name, (u, v) in pose.point_pixels(geometry).items():
        conf = obs.conf(name) if name in obs.points else 0.0
        text = obs.points.get(name, "x") or "."
        colour = (60, 200, 60) if conf >= 0.8 else (0, 160, 255) if conf > 0 else (40, 40, 230)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        org = (int(u - tw / 2), int(v + th / 2))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)
    if not reading.readable:
        cv2.putText(out, f"not readable: {reading.reason}", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (40, 40, 230), 2,
                    cv2.LINE_AA)
    return out
