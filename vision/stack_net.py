"""What a small convolutional net sees in each point's picture: how tall its stack is, from
the pixels themselves.

The hand-made evidence of :mod:`vision.heights` weighs outlines and bands where a model of
the stack says they are; where a layer's side is only a few pixels tall (a camera looking
down steeply, a far point) the lower disc of a mixed stack shows as a sliver that the
evidence mistakes for a shadow, and the other way round.  The net looks at the same point
turned upright and scaled to one disc size (:func:`patch_frames`), and gives every height a
probability; :func:`vision.heights.read_heights` weighs them with the evidence's.

The net is fitted by ``tools/fit_stack_net.py`` (PyTorch, only there) into ``FITTED_NET_FILE``
(ONNX, 32-bit floats) and run here from its 8-bit copy ``STACK_NET_FILE``
(``tools/quantize_stack_net.py``) by ONNX Runtime, in 17 ms for 100 points on one core of an
AVX2 machine where the fitted net takes 25 ms (OpenCV's dnn module took 40 ms on a faster
one); the copy's branch that reads the layers' colours is a net of its own
(``LAYER_NET_FILE``), run only on the points asked about them, as it costs a seventh of that.
The copy's weights have 7 bits: ONNX Runtime adds pairs of 8-bit products in 16 bits on CPUs
without 8-bit dot-product instructions (AVX-VNNI), and full 8-bit weights overflow there.
An earlier copy with them, which matched the fitted net on a VNNI machine, gave another
likeliest height than the fitted net on 0.5% of the POV-Ray samples' points on an AVX2 one,
and read a mixed 2-stack as one disc, surely, that the fitted net reads unsure (the
benchmark's abande-7-0045, d2: 0.78 against 0.52).  The copy was calibrated on the stills of
``tacticblue scenes render`` of all ten games (``--size 1280x720 --count 8 --seed 611``), of
Abande, Accasta, Attangle square, Dame 100 and Alva at ``--size 640x480 --count 4 --seed
612``, and of Abande, Accasta, Attangle square, Dame 100 and Attraktion on the ``slate`` look
(``--size 1280x720 --count 4 --seed 613``).  On the AVX2 machine it gives the fitted net's
likeliest height on all 556 points of the POV-Ray samples.

``FITTED_NET_FILE`` was first fitted (7 epochs) on the 237,074 points of 4,890 stills, each with
the true pose and with one a little off: ``tacticblue scenes render --size 1280x720`` of the
seven stacking and draughts games (``--count 40 --seed 101`` and ``--count 160 --seed 202``),
of attraktion, attraktion-8x8 and alva (``--count 120 --seed 202``), and
``tools/fit_stack_net.py --tall 300 --seed 303``; as smaller cameras see the board, of
all ten games at ``--size 640x480 --count 40 --seed 111`` and ``--size 800x600 --count 20
--seed 112``, and ``tools/fit_stack_net.py --tall 100 --seed 304 --size 640x480``; of all
ten games on the dark ``slate`` look (``--look slate``, ``--size 1280x720 --count 16 --seed
121`` and ``--size 640x480 --count 8 --seed 122``); and, as a camera looking down steeply
shows a layer's side only a few pixels tall, of the seven stacking and draughts games at
``--elevation 55-70`` (``--size 1280x720 --count 60 --seed 305`` and ``--count 150 --seed
307``, ``--size 640x480 --count 20 --seed 306`` and ``--count 40 --seed 308``).  Fitted on
1280x720 alone, it took the dark cells of a board seen at 640x480 for black discs; fitted on
the lighter looks alone, it took black discs on slate's near-black cells for empty ones.
The net before this one had 12-48 channels and 64 hidden units and no steep stills: above 60
degrees it read the heights of its own training stills only 0.9863 right (held-out: 0.9836),
too small to learn them; this one reads them there 0.9906 (held-out, true pose).  On its
own, with the true pose, it reads the heights of the benchmark's held-out scenes (seed 7)
0.9916 (Accasta) to 1.0000 right, and of POV-Ray's (``tools/povray_scenes.py``, Abande and
Accasta at seed 900 and seven games' foreign prints at seed 920) 0.9697 to 1.0000.
Those stills' discs had sharp rims, shaded as if round, and their sides took as much of the
room's light as their tops; a real disc's rims are round, and under ceiling light its side is
darker than its top.  The net was then fitted on for 3 epochs (``tools/fit_stack_net.py
--start --rate 1e-3``) on 175,100 patches of stills whose discs have rounded rims, rings and
colours of their own (:class:`vision.synth.render.DiscFinish`) and whose room light comes more
or less from above (:attr:`vision.synth.render.Lighting.overhead`): the seven stacking and
draughts games at 1280x720 (``--count 100 --seed 501``, ``--elevation 55-70 --count 60 --seed
502``) and 640x480 (``--count 30 --seed 503``), attraktion, attraktion-8x8 and alva (``--count
40 --seed 501``), and the steep stills of seed 402 drawn before; and for 2 more (rate 5e-4)
on 275,800 patches: those stills and, of the seven games, ``--count 80 --seed 511``,
``--elevation 58-72 --count 50 --seed 512`` and ``--size 960x540 --count 20 --seed 513``,
and ``tools/fit_stack_net.py --tall 100 --seed 514``.

Crowded late Attangle positions are not what it lacks.  Fitted on for 3 more epochs (rate 3e-4)
on 116,360 patches, half of them of 600 stills of Attangle, Attangle 2008 and Attangle square
with 3- and 5-stacks on 40% of the points, lit by lamps 20-40 degrees up, and half of stills of
all ten games (seeds 8311-8314), it read 150 held-out Attangle square stills from 30-58 degrees
(``benchmarks/vision.py --seed 8330 --elevation 30-58``) as this net does: 0.9975 of the stacks
right against 0.9974, 0.887 of the stills without an error against 0.893.  There the shadows of
tall stacks taken for black discs, and the top of a 5-stack behind a 5-stack taken for a disc
on the point behind it, fool the evidence as they fool the net.

Hands set discs further off their points than the renderer did for all those stills (stacks
up to 1.6 mm off along each board axis: :class:`vision.synth.render.Placement`), and a stack
3-4.5 mm off its point the net took for one of another height.  It was then fitted on for 2
epochs (``--rate 4e-4``) on 260,878 patches of the stills the height model was last fitted on
(``vision/height_model.json``'s ``fitted_on``), 595 of them with ``--placement 3.2`` or ``4.5``.
On 40 held-out stills each of Abande, Accasta, Attangle square and Dame 100 from 30-58 degrees
(seed 8560, 1,880 points a game) it alone reads 64 heights wrong with stacks up to 3.2 mm off
(71 before), 158 at 4.5 mm (266), and 31 with the renderer's own placement (26).  Fitted on
for 3 epochs (``--rate 5e-4``) on the placement stills and only those of seeds 501 and 503 of
the others, it read the off stills as well, and in the reader 7 more points of held-out stills
with the renderer's placement wrong (seeds 8430 and 8501); this one reads 2 more there and 1
fewer.

Random games, which nearly all those stills show, seldom make a Dame 100 king, and the net
read black kings as men: a black king's groove does not show, and on its dark cell little of its
side does.  On 160 held-out stills of Dame 100 positions where a third of the men are kings
(every elevation, seed 9424, and 50-70 degrees, seed 9425; 8,000 points, 2,113 kings) the reader
read 341 points wrong, 19 of them surely (0.6 or more), nearly all black kings read as men: 87
of those this net reads, 185 of those the steep net reads.  So it was fitted on for 3 epochs
(``--rate 2e-4``) on 158,040 patches: 200 stills of such positions (seeds 9420-9421, every
elevation) and 150 from 50-72 degrees (seed 9423), and, so that it forgets nothing else, stills
of all ten games (``--count 40``, seed 9410, and ``--elevation 30-58``, seed 9411;
``--elevation 58-72 --count 20``, seed 9426) and, counted twice, Accasta's ``--tall 80 --seed
9429 --elevation 30-58``.  Its 8-bit copy was calibrated as before (seeds 611-613).  Of this
net's black kings the reader now reads 1 wrong, and those held-out stills 247 points wrong, 15
surely: the steep net's kings.  On 800 held-out stills of all ten games (seeds 9412, every
elevation, and 9413, 30-58 degrees; 44,480 points) it reads 68 points wrong where it read 71,
none surely either way, and the committed POV-Ray, Mitsuba and Blender samples as before.

The net reads each layer's colour too, on a branch of its own beside its heights' head: one
more convolution on the second block's rows, which are fine enough to see a layer's side a few
pixels tall.  The layers' colours were fitted alone (``tools/fit_stack_net.py --start
vision/stack_net.onnx --layers-only --epochs 8 --rate 3e-3``), so the heights and top colours
stay what they were, on the stacks of two or more of 4,260 stills (45,448 patches, with the
true pose and a little off): of the seven
stacking and draughts games ``tacticblue scenes render --size 1280x720`` at ``--count 100
--seed 501`` and ``--seed 521``, at ``--elevation 55-70 --count 60`` of seeds 402, 502 and
522, ``--size 640x480 --count 30`` of seeds 503 and 523, on slate (seeds 121 and 122 as
above) and at 800x600 (``--count 10 --seed 112``); of the six stacking games ``--elevation
58-70 --count 50 --seed 531`` and ``--size 640x480 --elevation 55-70 --count 20 --seed 532``;
of Attangle square and Accasta at ``--elevation 30-45`` (seeds 533, 534); and
``--tall 150 --seed 5001`` and ``--tall 60 --seed 5002 --size 640x480``.  With the true
heights and pose it reads the colours of the layers under the top (hidden ones too) 0.987 right on
the benchmark's held-out scenes (seed 7; 0.963 seen from 60 degrees and steeper) and 0.957 on
POV-Ray's; a branch on the last block's coarse cells read them 0.967 and 0.887.  The reader
weighs them in where a side's levels are unsure (:data:`vision.reader.NET_LAYER_VOTE`).

Patch convention: ``PATCH_SIZE`` (width, height) pixels, the point's centre on the board at
``(width / 2, BASE_ROW)``, the board's up direction (its z axis, as the camera sees it at the
point) pointing to row 0, and a disc's radius ``RADIUS_PX`` pixels across the line of sight.
Seen from 65 degrees a layer's side is then about 2.5 rows of the patch (3.5 pixels in a
1280x720 frame).  Patches stretched along the stack's axis where that is under 3.6 rows (at
most 1.5 times, the point's row moved up to keep the foot in the patch) did not read those
views better: fitted on from this net for 6 epochs on 1,195 new stills (114,230 points, half
of the stills from 55-72 degrees), the net alone read the heights of 280 held-out stills seen
from 60-70 degrees (seven games, 12,440 points) 158 wrong, where this net fitted on the same
stills unstretched read 112 wrong, and this net 116.  Seen steeply, the near half of a disc's
foot reaches the patch's last rows or beyond them, but that is not what loses those heights:
a patch 16 rows taller below (80 rows, this net's weights with the new rows' starting at 0),
fitted on for 4 epochs on 1,450 new stills (134,060 patches, a third of the stills from 55-75
degrees), read the heights of 180 held-out stills from 62-75 degrees (Abande, Accasta,
Attangle square; 8,280 points) 235 wrong, this net 216, and no better where the foot lies
lowest (23 wrong of 162 points both).  Nor is it the patch's scale, which a larger frame
does not change: from 1920x1080 instead of 1280x720 (the same 60 scenes from 60-70 degrees,
Accasta and Abande) the net read as many heights wrong (81 and 80 of 4,440), and of two nets
fitted afresh alike (4 epochs on 940 stills, a third of them steep), one on these patches and
one on patches 1.5 times as fine (48x96, a disc's radius 18 pixels), the finer read 6% fewer
heights wrong on 360 held-out stills from 60-70 degrees (795 against 846 of 13,320) and 28%
fewer on 120 from every elevation (156 against 218 of 5,520).

The net's first block is a third of its time, as it works on every pixel of the patch.  Taken
at every second pixel with no pooling after it, or at every second pixel across and pooled over
two rows, the 8-bit net takes 22-26% and 17% less time a patch; but fitted on from this net
(its first weights kept) on those stills, 6 and 4 epochs, the first read the heights of the
steep held-out stills 131 wrong (126 with this net's outputs as a second target) and of 280
held-out stills from every elevation (seed 5612, 12,440 points) 96, the second 122 and 77;
this net reads them 116 and 71 wrong, and fitted on as it is for 3 epochs 107 and 78.  Fewer
channels in the later blocks save less (48 and 64 instead of 64 and 96: 11%), and OpenVINO
runs the 8-bit copy only 7% faster than ONNX Runtime (its 32-bit one no faster).

Points seen steeply (:data:`STEEP_RISE`) are read by a net of their own instead.  The steep
net is this net fitted on further on such points alone (``tools/fit_stack_net.py --start
vision/stack_net.onnx --rise-below 0.27``), with the true pose and a little off, half of the
patches mirrored: for 8 epochs (``--rate 1e-3``) on 264,747 patches, of the seven stacking and
draughts games ``tacticblue scenes render --size 1280x720 --elevation 58-75`` (``--count 90``
of seeds 6801 and 6803), ``--size 640x480 --elevation 55-72 --count 30 --seed 6802`` and
``--size 960x540 --elevation 55-75 --count 20 --seed 6804``, the stills of the two
experiments above (seeds 6601-6606) and of seed 502, and, each counted twice, ``--backlit 80
--seed 6821`` and ``--films 3 --seed 6822``; then for 4 (``--rate 5e-4``) on 358,524: those
and ``--size 1280x720 --elevation 58-75 --count 100 --seed 7001``, ``--size 960x540
--elevation 55-75 --count 40 --seed 7002`` and ``--size 640x480 --elevation 55-72 --count 40
--seed 7003``; then for 4 (``--rate 4e-4``) on 467,670: those and ``--size 1280x720
--elevation 58-75 --count 150 --seed 7101`` of the seven games, ``--size 1024x576 --elevation
55-75 --count 50 --seed 7102`` of Accasta, Abande, Attangle and Attangle square, and
Accasta's ``--size 800x450 --elevation 55-72 --count 100 --seed 7103`` and ``--size 1280x720
--elevation 60-72 --count 100 --seed 7104``; then for 3 (``--rate 3e-4``) on 503,716: those
and, counted twice, 260 POV-Ray stills (``tools/povray_scenes.py --elevation 58-75``, seeds
7161-7163: Accasta 160, 40 of them on foreign prints, Abande 40, Attangle and Attangle square
30 each); then its layers' colours alone for 3 (``--layers-only --rate 1e-3``) on the same;
then for 2 (``--rate 2e-4``) on 550,921: those, with the POV-Ray stills counted three times
and 145 more of them (seeds 7361-7365: Accasta 90, 30 of them on foreign prints, Abande 25,
Abande square and Attangle 2008 15 each); then its layers' colours alone again for 3.  Then,
so that it learns the looks of more than our renderer and POV-Ray without forgetting the
films', for 3 (``--rate 2e-4``) on 64,019 patches of new stills alone: the frames of
``--films 5 --seed 9100`` counted three times, ``--elevation 58-78 --seed 9200`` of the six
stacking games (Accasta 60, Abande and Attangle 20, the others 10), 60 stills of a third
renderer counted twice (``tools/mitsuba_scenes.py --size 640x480 --elevation 58-78``, seeds
9301-9304: Accasta 40, 10 of them on foreign prints, Abande and Attangle 10), ``--backlit 10
--seed 9400 --size 960x540`` and, counted twice, ``--tall 150 --seed 9500``; then its layers'
colours alone for 2.  Its 8-bit copy was measured on the first four games' ``--seed 9200``
stills, Mitsuba's Accasta and ``--tall 150 --seed 9500``.
The last fit was judged on a renderer it never saw, Blender's Cycles (``tools/blender_scenes.py
--elevation 58-78``: Accasta seed 7501, 24 pictures; Abande 7502, 12): the reader reads 47 of
those 36 pictures' points wrong instead of 62, none of them surer than 0.6, where one was.  On
held-out pictures of the others it reads about as before: 73 points wrong on 120 of ours
(``--seed 6101 --elevation 58-78``, Accasta, Abande, Attangle; 73 before), 25 on 30 of
POV-Ray's (seeds 7601-7602; 24), one more in three of the four stacking games of
``benchmarks/vision.py --seed 6001 --count 100`` (Accasta 13, 3,700 points), and in the Abande
film of ``tests/test_live.py`` its surest wrong reading drops from 0.59 to 0.55.  Candidates
that started from the net Mitsuba's stills taught before (reverted: it read that film's white
disc as two surely), or that averaged this net's weights with the one before, or that added 120
stills of Accasta's tall stacks seen steeply, each read the film surely wrong once or read
Accasta worse.  The figures that follow are those of the net before its last fit.  On the points
seen steeply of 1,020 held-out stills from 60-75 degrees (seeds 6620, 6702 and 6501; 31,354
points) this net alone reads 615 heights wrong and the steep net 322 (Accasta's 167).  Before
the second POV-Ray stills it read 325 (175), fitted without POV-Ray's stills 329
(180), before that 389 (215), and the mean of its and this net's scores 425; fitted on the
first stills unmirrored, 459, and the mean of that net's and this net's scores, which the
reader used before, 453.  With the true heights, it reads the colours of the 14,169 layers of
those stills' stacks 246 wrong (266 before the second POV-Ray stills, 255 without any, 300
before that).  On the 3,144 steep points of 120 held-out pictures from 58-72 degrees by the
other renderers (Mitsuba, Accasta and Abande, seeds 7152 and 7154, which it was never fitted
on; POV-Ray, Accasta, seed 7151 and, on foreign prints, 7153) it reads 99 heights wrong (103
before the second POV-Ray stills, 175 without any) and 103 of 2,198 layer colours (121, 160).
With the steep net alone, and Accasta's thin sides weighing its word as the other games'
(:data:`vision.heights.PATCH_THIN_WEIGHT`), the reader reads 233 points of 18 held-out sets
(1,086 pictures from 60-75 degrees and every elevation; our renderer, Mitsuba and POV-Ray)
wrong: Accasta's 113, the other games' 120.  With the net before the second POV-Ray stills,
and a quarter of its word in Accasta, it read 263 (151 and 112); without POV-Ray's stills 256
(131 and 125), before that 266 (133 and 133), with the mean of this net and the steep net
fitted unmirrored 315 (146 and 169), with this net alone 372 (189 and 183); those surer than
0.6 are two (as before the second POV-Ray stills; four without any, five before).  Of those
120 pictures by the other renderers it reads 57 points wrong, where it read 74 before the
second POV-Ray stills and 108 without any (Mitsuba's Accasta 26, 32 and 44, Abande 11, 12 and
20; POV-Ray's 13, 27 and 35, on foreign prints 7, 3 and 9): the steep views of one renderer's
discs that a net learns carry over to another's only in part.
A steep net fitted on the random stills alone read a white disc whose side lies in shadow in the
Abande film of ``tests/test_live.py`` as a white disc on a black one at 0.5-0.64 in 12 frames:
the backlit and film stills are in its fit for that.

Like the net of every view, the steep net read Dame 100's black kings as men.  So it was fitted
on for 3 more epochs (``--rate 2e-4``) on 128,365 patches of stills made by the repository's
tools alone: ``tools/fit_stack_net.py --kings 200 --elevation 50-75 --seed 9450`` and
``--kings 100 --seed 9451``; Dame 100's random games, ``--count 60 --seed 9455 --elevation
58-75``, and Accasta's, ``--count 60 --seed 9454 --elevation 58-72``, each counted twice, and
all ten games' ``--count 20 --seed 9452 --elevation 58-75``; Accasta's ``--tall 80 --seed 9453
--elevation 58-72`` twice; POV-Ray's ``--count 14 --seed 9430 --elevation 58-75`` of all ten
games and ``--foreign-print --seed 9435`` (Accasta 30, Abande and Dame 100 10 each), each
counted three times; and ``--films 2 --seed 9433`` twice.  Its 8-bit copy was calibrated on
the POV-Ray stills of seed 9430 and Accasta's of seed 9454.  On 160 held-out stills of
positions rich in kings (``--kings 80``, seed 9460 every elevation and seed 9461 50-70
degrees; 8,000 points) the reader reads 103 points wrong where it read 277, 1 surely (0.6 or
more) where 16; on 400 held-out stills of all ten games (``--count 20 --seed 9463 --elevation
58-75`` and ``--count 30 --seed 9464``; 27,800 points) 74 where 76, none surely either way;
of ``benchmarks/vision.py --count 60 --seed 9401 --elevation 58-70`` it reads Abande's pictures
without an error 0.867 where 0.833, Accasta's 0.783 where 0.800, Attangle's 0.883 where 0.933
(its three new errors unsure, 0.28 or less) and Dame 100's 0.967 as before.
What it gave up is on the committed samples: their steep points (``tests/test_stack_net.py``)
17 heights wrong by the net alone where 10, four of them men of one Dame 100 picture read as
kings, and in the reader the POV-Ray, Mitsuba, Blender and scene samples 8 points wrong where
7, the benchmark samples 13 where 10, none of the new ones surer than 0.31.  Fitted on at
``--rate 1e-4`` instead, or its weights averaged with the net before's (seven tenths this
fit's), it read the kings worse and the samples no better.  Accasta's 2-stack ``ww`` of the
committed accasta-5612-0025 (b3, seen from 70 degrees) is read as one disc, unsure (0.25);
the net before this fit read it right.

Points where nearer stacks leave less than :data:`BEHIND_SHARE` of the board in view, and that
are not seen steeply, are read by a net of their own too, the behind net.  In such a point's
picture the net of every view sees the stack in front, and the top of the stack on the point,
if any, only above it; fitted on every point, it had seen few such pictures (a few percent of
the points of random games' stills).  The behind net is this net fitted on further for 8 epochs
(``--rate 1e-3``) on such points alone (``tools/fit_stack_net.py --start vision/stack_net.onnx
--behind 0.6``), 22,097 patches with the true pose and a little off: of crowded late positions
(``--crowded 220 --elevation 25-58``; Attangle, Attangle square and Attangle 2008 at seeds 9301
and 9303, Accasta's tall stacks, Abande and Abande square at 9302 and 9304) and of random games
(``tacticblue scenes render --count 100 --elevation 25-58``: Accasta, Abande, Attangle and
Attangle square at seed 9111, Attangle 2008, Abande square and Dame 100 at 9112).  Its 8-bit
copy was calibrated on every point of ``--crowded 40 --seed 9310 --elevation 25-58``.  On the
1,003 such points of 240 held-out stills (``--crowded 40 --seed 9320 --elevation 25-58``, true
pose) it reads 0.908 of the heights right, the net of every view 0.846; 0.867 and 0.763 where
nearer stacks leave under a fifth of the board in view, where often nothing of the point
shows.  The reader weighs its word by :data:`vision.heights.BEHIND_WEIGHT`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import onnxruntime

from rules.geometry import DEFAULT_SPEC
from vision.stacks import StackModel

PATCH_SIZE = (32, 64)
"""Patch width and height (pixels): a disc and a half across, a 6-stack seen low fits above its point."""
RADIUS_PX = 12.0
"""A disc's radius in the patch (pixels)."""
FITTED_DISCS = (DEFAULT_SPEC.piece_diameter_mm, DEFAULT_SPEC.piece_height_mm)
"""The discs the nets were fitted on (diameter, thickness in mm): the box's."""
BASE_ROW = 50.0
"""The patch row of the point's centre: under it, the near half of a disc's foot and a little board."""
HEIGHTS = 7
"""The net's height classes: 0 (empty) to 6 (Accasta's tallest stack)."""
LAYERS = HEIGHTS - 1
"""The layers whose colours the net reads, from the bottom: a score each, black over white."""
FITTED_DIGEST_KEY = "fitted_sha256"
"""The metadata key under which each 8-bit net carries the SHA-256 (hex) of the fitted net it
was copied from (``tools/quantize_stack_net.py``)."""
FITTED_NET_FILE = Path(__file__).with_name("stack_net.onnx")
"""The fitted net (ONNX, 32-bit floats, written by ``tools/fit_stack_net.py``)."""
STACK_NET_FILE = Path(__file__).with_name("stack_net_int8.onnx")
"""The net the reader runs: ``FITTED_NET_FILE`` with 8-bit activations and 7-bit weights
(``tools/quantize_stack_net.py``), but for its layer branch: ``patches`` (:func:`net_input`)
to ``scores`` (the heights' and the top colour's) and ``features`` (8-bit, what the layer
branch reads)."""
LAYER_NET_FILE = Path(__file__).with_name("stack_net_layers_int8.onnx")
"""The layer branch of the net the reader runs: ``features`` to ``layers`` (each layer's score
of black over white)."""
STEEP_RISE = 0.25
"""Points whose layers rise less than this for a disc's radius across (:func:`patch_frames`;
a camera about 58 degrees or more above the board) are read by the steep net instead
(``STEEP_NET_FILE``) and their layers by its branch
(``STEEP_LAYER_NET_FILE``), where the reader asks for it (:class:`PatchHeights`)."""
FITTED_STEEP_NET_FILE = Path(__file__).with_name("stack_net_steep.onnx")
"""The steep net as fitted (``tools/fit_stack_net.py --rise-below``)."""
STEEP_NET_FILE = Path(__file__).with_name("stack_net_steep_int8.onnx")
"""The steep net's 8-bit copy the reader runs, as ``STACK_NET_FILE``."""
STEEP_LAYER_NET_FILE = Path(__file__).with_name("stack_net_steep_layers_int8.onnx")
"""The steep net's layer branch, as ``LAYER_NET_FILE``."""
BEHIND_SHARE = 0.6
"""Points where nearer stacks leave less than this share of the board in view are read by the
behind net instead (``BEHIND_NET_FILE``, its layers by ``BEHIND_LAYER_NET_FILE``), unless seen
steeply."""
FITTED_BEHIND_NET_FILE = Path(__file__).with_name("stack_net_behind.onnx")
"""The behind net as fitted."""
BEHIND_NET_FILE = Path(__file__).with_name("stack_net_behind_int8.onnx")
"""The behind net's 8-bit copy the reader runs, as ``STACK_NET_FILE``."""
BEHIND_LAYER_NET_FILE = Path(__file__).with_name("stack_net_behind_layers_int8.onnx")
"""The behind net's layer branch, as ``LAYER_NET_FILE``."""
NETS = ((STACK_NET_FILE, LAYER_NET_FILE), (STEEP_NET_FILE, STEEP_LAYER_NET_FILE),
        (BEHIND_NET_FILE, BEHIND_LAYER_NET_FILE))
"""The nets (heights, layers) a point is read by (:func:`net_kinds`), at these indices:"""
EVERY_VIEW_NET, STEEP_NET, BEHIND_NET = range(len(NETS))
CONTRAST_FLOOR = 12.0
"""Added to a patch's standard deviation (0..255 levels) before dividing by it, so that the
grain of an empty board is not blown up into edges."""


def patch_frames(model: StackModel) -> tuple[np.ndarray, np.ndarray]:
    """Per point of ``model``, the affine map from image to patch pixels (points x 2 x 3),
    and how far a layer rises in the image for a disc's radius across (the net's fourth
    channel: 0 straight above, 0.48 seen from the side).

    The nets were fitted on the box's discs (:data:`FITTED_DISCS`), whose layers rise 0.48 of
    their radius seen from the side; a thinner disc's less, and in its patch as cut a stack of
    three looks about as tall as the box's two (the nets read them so, though told the rise).
    Their patches are stretched along the stack's axis so that how flat a disc's top looks and
    how far a layer rises fit together as for a box disc seen from some other elevation, and
    the rise given is the stretched one: seen as a camera looks at the box's discs, nothing the
    nets were fitted on is out of place.

    >>> from vision.synth.scene import random_scene
    >>> import rules
    >>> scene = random_scene("accasta", np.random.default_rng(1), size=(1280, 720))
    >>> model = StackModel(scene.pose, rules.GAMES["accasta"].geometry, 6)
    >>> maps, rise = patch_frames(model)
    >>> centre = scene.pose.project(model.centres_mm[:1])[0]
    >>> np.round(maps[0] @ [*centre, 1.0], 6).tolist()  # the point's centre lands on its patch spot
    [16.0, 50.0]
    """
    base, up, radius, flatness = _disc_views(model, model.radius_mm, model.layer_mm)
    rise = np.hypot(*up.T) / radius
    stretch = np.ones(len(rise))
    if (model.radius_mm * 2, model.layer_mm) != FITTED_DISCS:
        fitted = FITTED_DISCS[1] / (FITTED_DISCS[0] / 2)  # how far their layer rises for a radius, seen side on
        _, up_fitted, radius_fitted, flatness_fitted = _disc_views(model, FITTED_DISCS[0] / 2, FITTED_DISCS[1])
        rise_fitted = np.hypot(*up_fitted.T) / radius_fitted
        stretch = np.sqrt((rise_fitted**2 + (fitted * flatness_fitted)**2) / (rise**2 + (fitted * flatness)**2))
    turn = np.arctan2(up[:, 0], -up[:, 1])  # the image's up direction to the board's
    scale = RADIUS_PX / radius
    cos, sin = np.cos(turn) * scale, np.sin(turn) * scale
    maps = np.zeros((len(rise), 2, 3))
    maps[:, 0, :2] = np.column_stack([cos, sin])
    maps[:, 1, :2] = np.column_stack([-sin, cos]) * stretch[:, None]
    maps[:, :, 2] = np.array([PATCH_SIZE[0] / 2, BASE_ROW]) - np.einsum("nij,nj->ni", maps[:, :, :2], base)
    return maps, rise * stretch


def _disc_views(model: StackModel, radius_mm: float, layer_mm: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How a disc of ``radius_mm`` and ``layer_mm`` on each point of ``model`` looks (pixels):
    where the point is in the image and how far a layer rises from it (points x 2 each, image x
    and y), the disc's radius across the line of sight, and how flat its top looks (the
    ellipse's extent along the line of sight over its width)."""
    pose, centres = model.pose, model.centres_mm
    flat = np.zeros(len(centres))
    base = pose.project(np.column_stack([centres, flat]))
    up = pose.project(np.column_stack([centres, flat + layer_mm])) - base
    towards = np.column_stack([np.cos(model.towards), np.sin(model.towards)])
    across = towards @ np.array([[0.0, 1.0], [-1.0, 0.0]])
    left, right, near, far = (pose.project(np.column_stack([centres + side * radius_mm * way, flat]))
                              for way in (across, towards) for side in (1, -1))
    radius = np.hypot(*(left - right).T) / 2
    return base, up, radius, np.hypot(*(near - far).T) / 2 / radius


def cut_patches(image: np.ndarray, maps: np.ndarray, margin: int = 0) -> np.ndarray:
    """The BGR patches (points x height x width x 3, uint8) of ``image`` under ``maps``
    (:func:`patch_frames`), ``margin`` pixels wider on either side."""
    width, height = PATCH_SIZE[0] + 2 * margin, PATCH_SIZE[1]
    if not len(maps):
        return np.zeros((0, height, width, 3), np.uint8)
    wider = maps + [[0.0, 0.0, margin], [0.0, 0.0, 0.0]]
    return np.stack([cv2.warpAffine(image, m, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                     for m in wider])


VIEWS: tuple[tuple[int, bool], ...] = ((0, False), (0, True), (-1, False), (1, False))
"""The views of a point's patch whose heights' log-probabilities the net averages where the
patch as cut (the first view) leaves it unsure (:data:`VIEWS_BELOW_NATS`): (shift across,
pixels; mirrored).
A stack looks the same mirrored and a pixel aside, but the net errs a little differently on
each.  On six held-out sets (1,100 pictures: our renderer at 1280x720, 640x480, seen steeply
and on slate, POV-Ray's, level and with boards printed in styles of their own) the reader read
160 points wrong with the patch as cut alone, 146 with its mirror image too, 142 with these
four views on every point (sure and wrong: 4, 5, 4); views scaled by 5%, moved a pixel up and
down as well, or mirrored a pixel aside too, read 147-152.  On the benchmark's 1,000 scenes of
seed 4901 these four views read as many points wrong as the patch alone, within 2.  The top's
colour is read on the patch as cut."""
VIEWS_BELOW_NATS = 5.0
"""The net's word on a patch as cut is averaged with :data:`VIEWS` where it favours its
likeliest height over the next by less than this (nats).  On the six sets 143 points were read
wrong (38, 29, 22, 9, 20, 25 against 43, 29, 24, 9, 26, 29 with no other view; sure and wrong
4), 150 with 2 nats, 142 with 8 or with every point.  Under 5 nats are 2% of the points asked
about in Attangle square and Dame 100 pictures and 6-12% in Abande and Accasta ones (15 held-out
pictures each): the views cost little where a frame asks about every point."""


def net_input(patches: np.ndarray, rise: np.ndarray) -> np.ndarray:
    """The net's input (points x 4 x height x width, float32): each patch's colours less their
    mean over its pixels, over their spread (:data:`CONTRAST_FLOOR`), so that the light and
    the camera's white balance matter less than the shapes; and ``rise`` as a fourth plane."""
    n, height, width, _ = patches.shape
    out = np.empty((n, 4, height, width), np.float32)
    out[:, :3] = patches.transpose(0, 3, 1, 2)
    colours = out[:, :3].reshape(n, 3, height * width)  # a view: changed in place
    means = colours.mean(axis=2, keepdims=True)
    overall = means[:, :, 0].mean(axis=1)
    spread = np.sqrt(np.maximum((colours * colours).mean(axis=(1, 2)) - overall * overall, 0.0))
    colours -= means
    colours /= (spread + CONTRAST_FLOOR)[:, None, None]
    out[:, 3] = np.asarray(rise, np.float32)[:, None, None]
    return out


@lru_cache(maxsize=2 * len(NETS))  # each net of NETS and its layer branch
def _net(path: Path) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1  # reading is timed on one core
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def net_kinds(rise: np.ndarray, steep_rise: float = STEEP_RISE, behind: np.ndarray | None = None) -> np.ndarray:
    """Which of :data:`NETS` reads each point: the steep net where its layers rise less than
    ``steep_rise``, else the behind net where ``behind`` (bool) says nearer stacks hide it."""
    rise = np.asarray(rise)
    kinds = np.where(rise < steep_rise, STEEP_NET, EVERY_VIEW_NET)
    if behind is not None:
        kinds = np.where((kinds == EVERY_VIEW_NET) & behind, BEHIND_NET, kinds)
    return kinds


def net_log_probabilities(image: np.ndarray, maps: np.ndarray, rise: np.ndarray, max_height: int,
                          steep_rise: float = STEEP_RISE, behind: np.ndarray | None = None
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the net makes of every point's picture in ``image`` (``maps`` and ``rise``:
    :func:`patch_frames`): the log-probabilities of the heights 0..``max_height`` a game builds
    (points x (max_height + 1); averaged over :data:`VIEWS` of the picture where the one as
    cut leaves the net unsure), of the top disc being white or black, were there one
    (points x 2), and the features of the picture as cut from which :func:`layer_log_odds`
    reads its layers' colours.  Each point is read by the net :func:`net_kinds` chooses from
    ``steep_rise`` and ``behind``.

    The top colour doubts the reader's (:data:`vision.reader.NET_COLOUR_DOUBT`) and has a
    bounded vote in it (:data:`vision.reader.NET_COLOUR_VOTE`), no more: with each patch's
    brightness taken out, a black disc on a darker print looked white to it, and weighed in as
    full evidence it made black discs surely white in six of the POV-Ray foreign prints'
    Accasta and Attraktion 8x8 pictures, which the reader's colour levels of the whole frame
    read right."""
    if not len(maps):
        return np.zeros((0, max_height + 1)), np.zeros((0, 2)), _no_features(0)
    margin = max(abs(dx) for dx, _ in VIEWS)
    wide = cut_patches(image, maps, margin)
    views = [wide[:, :, margin + dx:margin + dx + PATCH_SIZE[0]][:, :, ::-1 if mirrored else 1]
             for dx, mirrored in VIEWS]
    kinds = net_kinds(rise, steep_rise, behind)
    scores, features = _scores(views[0], rise, kinds)
    heights = log_softmax(scores[:, :max_height + 1])
    ranked = np.sort(heights, axis=1)
    again = np.flatnonzero(ranked[:, -1] - ranked[:, -2] < VIEWS_BELOW_NATS)
    if len(again):
        more = _scores(np.concatenate([v[again] for v in views[1:]]), np.tile(rise[again], len(views) - 1),
                       np.tile(kinds[again], len(views) - 1))[0]
        each = log_softmax(more[:, :max_height + 1]).reshape(len(views) - 1, len(again), -1)
        heights[again] = log_softmax((heights[again] + each.sum(axis=0)) / len(views))
    return heights, log_softmax(scores[:, HEIGHTS + 1:HEIGHTS + 3]), features


def layer_log_odds(features: np.ndarray, rise: np.ndarray, steep_rise: float = STEEP_RISE,
                   kinds: np.ndarray | None = None) -> np.ndarray:
    """The log-odds of white over black of each layer from the bottom, were there a stack that
    tall (points x :data:`LAYERS`), from the ``features`` of its picture and its ``rise``
    (:func:`net_log_probabilities`: the steep net's features where under ``steep_rise``), or
    by the branch of the net ``kinds`` says read it (:func:`net_kinds`)."""
    out = np.zeros((len(features), LAYERS))
    kinds = net_kinds(rise, steep_rise) if kinds is None else kinds
    for k, (_, path) in enumerate(NETS):
        chosen = kinds == k
        if chosen.any():
            out[chosen] = -_net(path).run(None, {"features": features[chosen]})[0]
    return out


def _no_features(n: int) -> np.ndarray:
    """Zeros shaped as the features of ``n`` patches that the layer branch reads (8-bit)."""
    return np.zeros((n, *_net(STACK_NET_FILE).get_outputs()[1].shape[1:]), np.uint8)


def _scores(patches: np.ndarray, rise: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The net's raw scores of the heights and top colours (points x (:data:`HEIGHTS` + 3)) of
    BGR ``patches``, and the features the layer branch reads, each by the net of :data:`NETS`
    its ``kinds`` (:func:`net_kinds`) says."""
    x = net_input(patches, rise)
    scores = np.zeros((len(x), HEIGHTS + 3))
    features = _no_features(len(x))
    for k, (path, _) in enumerate(NETS):
        chosen = kinds == k
        if chosen.any():
            scores[chosen], features[chosen] = _net(path).run(None, {"patches": x[chosen]})
    return scores, features


class PatchHeights:
    """What the patch net makes of the points of one frame (:func:`net_log_probabilities`),
    worked out only for the points asked about, each once: the net is much of a frame's reading
    time (7 of 30 ms for Attangle square's 64 points on one AVX2 core), and most points'
    evidence needs no second word about their heights (see
    :data:`vision.heights.PATCH_NEEDED_NATS`).

    ``table`` holds the heights' log-probabilities found so far (points x (max_height + 1)),
    ``tops`` the top colour's (points x 2: white, black), ``layers`` each layer's log-odds of
    white (points x :data:`LAYERS`, only where asked about: the layer branch is run apart);
    NaN for the points not asked about; ``kinds`` which of :data:`NETS` read each (-1: none
    yet).  Points whose layers rise less than ``steep_rise`` are read with the steep net
    instead (0: by the net of every view alone), and those :meth:`of` is told nearer stacks
    hide with the behind net."""

    def __init__(self, image: np.ndarray, maps: np.ndarray, rise: np.ndarray, max_height: int,
                 steep_rise: float = STEEP_RISE) -> None:
        self.image, self.maps, self.rise, self.max_height = image, maps, rise, max_height
        self.steep_rise = steep_rise
        self.table = np.full((len(maps), max_height + 1), np.nan)
        self.tops = np.full((len(maps), 2), np.nan)
        self.layers = np.full((len(maps), LAYERS), np.nan)
        self._features: np.ndarray | None = None  # per point, what the layer branch reads
        self.kinds = np.full(len(maps), -1)

    def of(self, points: np.ndarray, behind: np.ndarray | None = None) -> np.ndarray:
        """The heights' log-probabilities of ``points`` (indices, no repeats), running the net on
        those not yet seen, or seen by another net than ``behind`` (bool per point: nearer
        stacks hide it) now chooses."""
        self._run(points, behind)
        return self.table[points]

    def top_colours(self, points: np.ndarray) -> np.ndarray:
        """The top colour's log-probabilities (white, black) of ``points``, as :meth:`of`."""
        self._run(points)
        return self.tops[points]

    def layer_colours(self, points: np.ndarray) -> np.ndarray:
        """Each layer's log-odds of white over black at ``points``, as :meth:`of`."""
        self._run(points)
        new = points[np.isnan(self.layers[points, 0])]
        if len(new):
            self.layers[new] = layer_log_odds(self._features[new], self.rise[new], kinds=self.kinds[new])
        return self.layers[points]

    def _run(self, points: np.ndarray, behind: np.ndarray | None = None) -> None:
        kinds = np.where(self.kinds[points] < 0, net_kinds(self.rise[points], self.steep_rise), self.kinds[points]) \
            if behind is None else net_kinds(self.rise[points], self.steep_rise, behind)
        changed = kinds != self.kinds[points]
        new = points[changed]
        if len(new):
            self.kinds[new] = kinds[changed]
            self.layers[new] = np.nan
            self.table[new], self.tops[new], features = net_log_probabilities(
                self.image, self.maps[new], self.rise[new], self.max_height, self.steep_rise,
                self.kinds[new] == BEHIND_NET)
            if self._features is None:
                self._features = np.zeros((len(self.maps), *features.shape[1:]), features.dtype)
            self._features[new] = features


def log_softmax(scores: np.ndarray) -> np.ndarray:
    """Scores made log-probabilities along the last axis.

    >>> np.exp(log_softmax(np.array([[0.0, np.log(3.0)]]))).round(2).tolist()
    [[0.25, 0.75]]
    """
    top = scores.max(axis=-1, keepdims=True)
    return scores - top - np.log(np.exp(scores - top).sum(axis=-1, keepdims=True))
