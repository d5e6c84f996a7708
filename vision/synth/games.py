"""What the renderer needs to know about each game: board side, points and stack heights.

The rules engine is the source of truth (``rules.GAMES[name].geometry`` and
``max_height``); games not registered there yet fall back to the geometry functions of
:mod:`rules.geometry` with the heights the rule books allow, so the renderer works on
every game name as soon as the board geometry exists.

>>> info = game_info("accasta")
>>> info.kind, len(info.geometry), info.max_height
('hex', 37, 6)
>>> game_info("dame100").geometry.names[:3]
('a1', 'c1', 'e1')
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rules.geometry import BoardKind, Geometry, hex_geometry, square_cells, square_intersections

GAME_NAMES: tuple[str, ...] = (
    "accasta", "abande", "abande-square", "attangle", "attangle-square", "attangle-2008",
    "attraktion", "attraktion-8x8", "alva", "dame100",
)

# (geometry, highest stack) for games the rules engine does not register (yet).
_FALLBACK: dict[str, tuple[Callable[[], Geometry], int]] = {
    "accasta": (hex_geometry, 6),
    "abande": (hex_geometry, 3),
    "attangle": (hex_geometry, 5),
    "attangle-2008": (hex_geometry, 3),
    "abande-square": (lambda: square_intersections(7), 3),
    "attangle-square": (lambda: square_cells(8), 5),
    "attraktion": (lambda: square_cells(10), 1),
    "attraktion-8x8": (lambda: square_cells(8), 1),
    "alva": (lambda: square_intersections(9), 1),
    "dame100": (lambda: square_cells(10, dark_only=True), 2),
}


@dataclass(frozen=True)
class GameInfo:
    name: str
    geometry: Geometry
    max_height: int
    registered: bool
    """True when the rules engine knows the game (legal random positions are possible)."""

    @property
    def kind(self) -> BoardKind:
        return self.geometry.kind


def _registry() -> dict:
    import rules

    return rules.GAMES


def game_names() -> list[str]:
    """Every game the renderer can draw: the registered ones and the known names."""
    return sorted(set(GAME_NAMES) | set(_registry()))


def game_info(name: str) -> GameInfo:
    """Geometry and stack height of a game; ``ValueError`` for an unknown name."""
    games = _registry()
    if name in games:
        cls = games[name]
        return GameInfo(name, cls.geometry, max(1, int(cls.max_height)), True)
    if name in _FALLBACK:
        make, height = _FALLBACK[name]
        return GameInfo(name, make(), height, False)
    raise ValueError(f"unknown game {name!r}; choose one of: {', '.join(game_names())}")


def random_position(name: str, rng: random.Random, max_turns: int = 80) -> dict[str, str]:
    """A plausible position of a game: point -> stack (``""`` empty).

    Registered games play a random legal game of random length from the start (so
    stacks are ones the game can build); others get random stacks within the game's
    height on a random share of the points."""
    info = game_info(name)
    if info.registered:
        from rules import new_game

        board = new_game(name)
        for _ in range(rng.randint(0, max_turns)):
            turns = board.legal_turns()
            if not turns or board.is_game_over():
                break
            board.push(rng.choice(turns))
        return board.visible()
    fill = rng.uniform(0.2, 0.7)
    points = {}
    for n in info.geometry.names:
        if rng.random() < fill:
            points[n] = "".join(rng.choice("wb") for _ in range(rng.randint(1, info.max_height)))
        else:
            points[n] = ""
    return points



CROWDED: dict[str, dict[int, float]] = {
    "attangle": {0: 0.3, 1: 0.3, 3: 0.25, 5: 0.15}, "attangle-square": {0: 0.3, 1: 0.3, 3: 0.25, 5: 0.15},
    "attangle-2008": {0: 0.35, 1: 0.35, 2: 0.1, 3: 0.2}, "abande": {0: 0.35, 1: 0.35, 2: 0.2, 3: 0.1},
    "abande-square": {0: 0.35, 1: 0.35, 2: 0.2, 3: 0.1}}
"""How often :func:`crowded_position` puts a stack of each height on a point, per game."""


def crowded_position(name: str, rng: np.random.Generator) -> dict[str, str]:
    """A late position of a stacking game (:data:`CROWDED`), where stacks stand behind taller
    ones, as random games seldom leave them: on every point a stack the game can build of a
    height drawn as :data:`CROWDED` says, the points the game keeps empty empty.

    >>> position = crowded_position("attangle", np.random.default_rng(1))
    >>> len(position), sorted({len(s) for s in position.values()})
    (37, [0, 1, 3, 5])
    """
    from rules import GAMES

    game = GAMES[name]
    heights, weights = zip(*CROWDED[name].items())
    chances = np.array(weights) / sum(weights)
    stacks = {h: sorted(s for s in game.possible_stacks() if len(s) == h) for h in heights}
    closed = getattr(game, "closed", frozenset())
    points = {}
    for point in game.geometry.names:
        choices = stacks[heights[rng.choice(len(heights), p=chances)]]
        points[point] = "" if point in closed or not choices else str(rng.choice(choices))
    return points
