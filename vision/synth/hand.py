"""A player's hand and forearm as capsules, posed to pinch a pile of discs.

The hand comes from the player's side of the board: ``approach`` is the unit vector
(board x, y) from the player towards the board.  The pinch point is where thumb and
fingers meet, at the middle of the pile they hold; ``opening`` is 0 for a closed grip
and 1 for a hand opened wide enough to pass over a disc.
"""

from __future__ import annotations

import numpy as np

from vision.synth.render import Capsule

FINGER_SIDE_MM = (-8.0, 6.0, 19.0, 29.0)
"""Index, middle, ring and little finger across the hand (mm, towards the little finger)."""


def hand_capsules(pinch_mm: np.ndarray, approach: np.ndarray, opening: float, disc_radius_mm: float = 14.5
                  ) -> tuple[Capsule, ...]:
    """The capsules of a right hand reaching along ``approach`` to pinch at ``pinch_mm``."""
    p = np.asarray(pinch_mm, float)
    u = np.array([approach[0], approach[1], 0.0])
    u /= np.linalg.norm(u)
    s = np.array([u[1], -u[0], 0.0])  # across the hand, towards the little finger
    z = np.array([0.0, 0.0, 1.0])
    grip = disc_radius_mm + 5.0 + 14.0 * opening

    def cap(a: np.ndarray, b: np.ndarray, r: float) -> Capsule:
        return Capsule(tuple(a), tuple(b), r)  # type: ignore[arg-type]

    knuckles = p - u * 28 + z * 52
    wrist = p - u * 100 + z * 72 + s * 6
    elbow = p - u * 400 + z * 190 + s * 40
    parts = [
        cap(wrist, (wrist + elbow) / 2, 27.0),
        cap((wrist + elbow) / 2, elbow, 33.0),
        cap(wrist - s * 10, knuckles - s * 12, 17.0),
        cap(wrist + s * 12, knuckles + s * 20, 16.0),
        cap(wrist + z * 4, knuckles + s * 4 + z * 4, 19.0),
    ]
    curl = (0.0, 0.0, 12.0, 20.0)
    for side, lift, r in zip(FINGER_SIDE_MM, curl, (8.0, 8.5, 8.0, 6.8)):
        base = knuckles + s * side
        tip = p + u * (grip - lift * 0.6) + s * (side * 0.55) + z * lift
        joint = base + (tip - base) * 0.5 + z * 16 + u * 8
        parts += [cap(base, joint, r), cap(joint, tip, r * 0.9)]
    thumb_base = wrist - s * 26 + u * 25 - z * 6
    thumb_tip = p - u * grip - s * 4 + z * 3
    thumb_joint = thumb_base + (thumb_tip - thumb_base) * 0.5 - s * 10 + z * 6
    parts += [cap(thumb_base, thumb_joint, 10.5), cap(thumb_joint, thumb_tip, 9.0)]
    return tuple(parts)
