"""The rules of the tactic blue games: geometry, positions, legal turns and notation.

Pure Python with no image or I/O dependencies.

>>> from rules import hex_geometry
>>> hex_geometry().names[:3]
('a1', 'a2', 'a3')
"""

from rules.base import (
    BLACK, COLOUR_NAMES, GAMES, WHITE, AmbiguousTurn, Board, Colour, IllegalTurn, Outcome, new_game, other, register,
)
from rules.geometry import DEFAULT_SPEC, BoardSpec, Geometry, hex_geometry, square_cells, square_intersections

# Importing a game module registers it in GAMES.
from rules import accasta  # noqa: F401,E402
from rules import abande  # noqa: E402,F401
from rules import attangle  # noqa: E402,F401
from rules import dame  # noqa: E402,F401
from rules import attraktion  # noqa: E402,F401
from rules import alva  # noqa: E402,F401

__all__ = [
    "BLACK", "COLOUR_NAMES", "DEFAULT_SPEC", "GAMES", "WHITE", "AmbiguousTurn", "Board", "BoardSpec", "Colour",
    "Geometry", "IllegalTurn", "Outcome", "hex_geometry", "new_game", "other", "register", "square_cells",
    "square_intersections",
]
