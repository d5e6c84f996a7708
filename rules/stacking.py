"""What the placing-and-stacking games Abande and Attangle share: the placement turn and point names.

Both games bring pieces from the hand onto an empty point (``Place``, written as the
point's name, e.g. ``d4``) and build stacks that are never split.  Turns refer to points
by their index in the game's :class:`~rules.geometry.Geometry`, so they are small,
hashable and comparable; notation converts to and from point names.

>>> from rules.geometry import hex_geometry
>>> g = hex_geometry()
>>> point_index(g, "d4"), Place(point_index(g, "d4"))
(18, Place(point=18))
>>> point_index(g, "h9")
Traceback (most recent call last):
...
rules.base.IllegalTurn: no point 'h9' on this board
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.base import IllegalTurn
from rules.geometry import Geometry


@dataclass(frozen=True, order=True)
class Place:
    """Put one piece from the mover's hand on the empty point ``point``."""

    point: int


def point_index(geometry: Geometry, name: str) -> int:
    """The index of a point named in a turn; :class:`IllegalTurn` if the board has no such point."""
    if name not in geometry:
        raise IllegalTurn(f"no point {name!r} on this board")
    return geometry.index(name)

