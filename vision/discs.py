"""Whether the discs on the board are the size the reader takes them to be.

Stack heights are read by how far a stack rises per disc (:class:`rules.geometry.BoardSpec`),
and the box holds ordinary draughts discs, whose size differs from set to set: read as the
box's 29 x 7 mm, discs of 31 x 8 mm put many stacks a disc too tall or too short.  Where a
position is known to stand on the board (the game's start, set up as the pieces showed),
:func:`discs_note` tells the players so while they can still say their discs' size, and
:func:`estimate_discs` finds the size its stacks' outlines fit best.

On our renderer's Accasta start positions (seed 7931, 10 each, cameras 35-67 degrees up,
the true pose), the box's discs had no stack of the 18 read at another height; discs of
27 x 6 mm had 3-13, 31 x 8 mm 0-17 (three of the ten under 4), 33 x 9 mm 9-18.  Dame 100's
men were read as men in discs of 27 x 6 and 31 x 8 mm; 33 x 9 mm made 1-15 of the 40 kings.
With the pose ``calibrate board --game accasta`` found in those pictures, the note was given for
6 of the 10 starts in 27 x 6 mm discs, 4 of 31 x 8 and 7 of 33 x 9, and for none of the 16
starts of Accasta and Dame 100 in the box's discs; the starts it missed were mostly those whose
pieces did not show White's side (2 of 10) or seen too steeply (1 of 10), where it is not asked.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

import numpy as np

import rules
from calibration.camera import BoardPose
from rules.geometry import DISC_RANGE_MM, BoardSpec
from rules.infer import Observation
from vision.stacks import FrameSamples, StackModel, outline_evidence, outline_strength

OFF_AT_LEAST = 4
"""So many stacks of the known position read at another height ask for the note, and
:data:`OFF_SHARE` of those seen."""
OFF_SHARE = 0.2


def discs_note(observation: Observation, position: Mapping[str, str], spec: BoardSpec) -> str | None:
    """What to tell the players when the stacks of a ``position`` known to stand on the board
    are read at other heights than they have, as discs of another size than ``spec``'s make
    them; None when the heights read agree.  Only stacks read as stacks count: one hidden by
    nearer stacks is read empty, and says nothing about the discs.

    >>> position = {f"a{k}": "www" for k in range(1, 7)}
    >>> discs_note(Observation({**position, "a1": "wwww", "a2": "wwww", "a3": "wwww"}), position, BoardSpec()) is None
    True
    >>> discs_note(Observation({p: "wwww" for p in position}), position, BoardSpec())[:48]
    '6 of the 6 stacks on the board are read taller t'
    """
    seen = [p for p, s in position.items() if s and observation.points.get(p)]
    off = [p for p in seen if len(observation.points[p]) != len(position[p])]
    if len(off) < max(OFF_AT_LEAST, OFF_SHARE * len(seen)):
        return None
    taller = sum(len(observation.points[p]) > len(position[p]) for p in off)
    way = ("taller" if taller == len(off) else "shorter" if taller == 0 else "taller or shorter")
    return (f"{len(off)} of the {len(seen)} stacks on the board are read {way} than they stand: if your "
            f"discs are not {spec.piece_diameter_mm:g} mm across and {spec.piece_height_mm:g} mm thick, measure "
            "one and give --discs DIAMETERxTHICKNESS (in mm)")


SEARCH_STEPS_MM = ((2.0, 1.0), (1.0, 0.5), (0.5, 0.25))
"""The rounds of :func:`estimate_discs`: each tries the diameter and then the thickness at up
to three of these steps (diameter, thickness) either side of the best so far."""


def estimate_discs(image: np.ndarray, pose: BoardPose, game: str, position: Mapping[str, str]
                   ) -> tuple[float, float]:
    """The discs' diameter and thickness (mm) whose outlines the stacks of ``position``, known to
    stand on the board, show most plainly in ``image``: the top rim of each stack and its foot.

    On Accasta's start (our renderer, seed 7931, 10 pictures each of 27 x 6, 29 x 7, 31 x 8 and
    33 x 9 mm discs, the true pose) the thickness came within 1 mm and the diameter within 2.5
    mm, the two errors trading against each other; Dame 100's single men tell neither well.  So
    it is offered only where reading the position with it confirms it (:func:`discs_note`)."""
    cls = rules.GAMES[game]

    def shown(diameter: float, thickness: float) -> float:
        model = StackModel(replace(pose, spec=pose.spec.with_discs((diameter, thickness))), cls.geometry,
                           cls.max_height)
        frame = FrameSamples.of(model, image)
        heights = np.array([len(position.get(n, "")) for n in model.names])
        stacks = np.flatnonzero((heights > 0) & (model.in_view >= 0.9))
        if not len(stacks):
            return 0.0
        vis = model.visible(np.arange(len(heights)), heights)[stacks]
        ev = outline_evidence(model, frame, stacks, vis, outline_strength(model, frame, stacks))
        top = ev[np.arange(len(stacks)), heights[stacks] - 1, 3]
        foot = ev[:, model.max_height, 3]
        return float(top.mean() + foot.mean())

    (d_lo, d_hi), (t_lo, t_hi) = DISC_RANGE_MM
    diameter, thickness = pose.spec.piece_diameter_mm, pose.spec.piece_height_mm
    for d_step, t_step in SEARCH_STEPS_MM:
        diameter = max((diameter + k * d_step for k in range(-3, 4) if d_lo <= diameter + k * d_step <= d_hi),
                       key=lambda d: shown(d, thickness))
        thickness = max((thickness + k * t_step for k in range(-3, 4) if t_lo <= thickness + k * t_step <= t_hi),
                        key=lambda t: shown(diameter, t))
    return diameter, thickness
