"""Which LED sits under which board point: the panel's wiring, read from a config file.

A panel has one LED under each point of one side of the board: the 37 points of the
hex side, or the 100 cells of the square side.  The LEDs form one WS2812 chain, and
the order the chain runs through the points is the panel's *wiring*, given in a JSON
file (``hardware/layouts/hex.json`` and ``square.json`` are the defaults)::

    {"board": "hex", "wiring": "serpentine", "turn_leds": {"white": 37, "black": 38}}

* ``board``: ``"hex"`` (points a1..g4) or ``"square"`` (cells a1..j10).
* ``wiring``: ``"rows"`` (row a from White's left to right, then row b, ...),
  ``"serpentine"`` (row a left to right, row b right to left, ...), or the explicit list
  of point names in chain order.
* ``turn_leds`` (optional): two extra LEDs (chain indices after the board's) that show
  whose turn it is.
* ``brightness`` (optional, 1..255, default 160).

Games on the square side use the cells, the intersections or part of the board; each
game point lights the nearest LED, ties going to the LED nearer White's left corner (an
intersection lights the cell to its lower left), so every game point has its own LED.

>>> layout = LedLayout.default("hex")
>>> layout.count, layout.chain[:5], layout.chain[4:6]
(37, ('a1', 'a2', 'a3', 'a4', 'b5'), ('b5', 'b4'))
>>> layout.for_game("alva")
Traceback (most recent call last):
ValueError: the game alva is played on the square side; this panel is a hex panel
>>> sq = LedLayout.default("square").for_game("alva")
>>> sq.layout.chain[sq.index("a1")], sq.layout.chain[sq.index("i9")], sq.index("b1")
('a1', 'i9', 1)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rules import GAMES
from rules.geometry import Geometry, hex_geometry, square_cells

LAYOUTS_DIR = Path(__file__).resolve().parent / "layouts"

PANEL_BOARDS: dict[str, Callable[[], Geometry]] = {
    "hex": hex_geometry,
    "square": lambda: square_cells(10),
}
"""The points a panel of each kind has an LED under."""



def game_geometry(game: str) -> Geometry:
    """The points of ``game`` (the rules' geometry: the one source of point names)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of: {', '.join(sorted(GAMES))}")
    return GAMES[game].geometry


def wiring_order(geometry: Geometry, wiring: str | list[str]) -> tuple[str, ...]:
    """The point names in chain order for a named wiring or an explicit list."""
    if isinstance(wiring, list):
        if sorted(wiring) != sorted(geometry.names):
            missing = sorted(set(geometry.names) - set(wiring))
            extra = sorted(set(wiring) - set(geometry.names))
            raise ValueError(f"the wiring must name every point once (missing {missing}, unknown or repeated "
                             f"{extra or 'duplicates'})")
        return tuple(wiring)
    if wiring not in ("rows", "serpentine"):
        raise ValueError(f"unknown wiring {wiring!r}: use 'rows', 'serpentine' or a list of points")
    rows: dict[int, list[int]] = {}
    for i, (x, y) in enumerate(geometry.lattice):
        rows.setdefault(y, []).append(i)
    order: list[str] = []
    for r, y in enumerate(sorted(rows)):
        row = sorted(rows[y], key=lambda i: geometry.lattice[i][0])
        if wiring == "serpentine" and r % 2:
            row.reverse()
        order += [geometry.names[i] for i in row]
    return tuple(order)


@dataclass(frozen=True)
class LedLayout:
    """A panel: its board side, its chain order and its optional turn LEDs."""

    board: str
    chain: tuple[str, ...]
    turn_leds: dict[str, int] = field(default_factory=dict)
    brightness: int = 160

    @property
    def count(self) -> int:
        """Number of LEDs in the chain (board points plus turn LEDs)."""
        return max([len(self.chain) - 1, *self.turn_leds.values()]) + 1

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LedLayout":
        unknown = set(data) - {"board", "wiring", "turn_leds", "brightness"}
        if unknown:
            raise ValueError(f"unknown layout keys: {', '.join(sorted(unknown))}")
        board = data.get("board")
        if board not in PANEL_BOARDS:
            raise ValueError(f"layout 'board' must be one of {', '.join(PANEL_BOARDS)}")
        chain = wiring_order(PANEL_BOARDS[board](), data.get("wiring", "serpentine"))
        turn = data.get("turn_leds", {})
        if set(turn) - {"white", "black"} or any(not isinstance(i, int) or i < len(chain) for i in turn.values()) \
                or len(set(turn.values())) != len(turn):
            raise ValueError(f"turn_leds maps 'white' and 'black' to distinct chain indices from {len(chain)} on")
        brightness = data.get("brightness", 160)
        if not isinstance(brightness, int) or not 1 <= brightness <= 255:
            raise ValueError("layout brightness must be 1..255")
        return cls(board, chain, dict(turn), brightness)

    @classmethod
    def load(cls, path: Path) -> "LedLayout":
        """Read a layout file; ``ValueError`` naming the file when it is not a valid layout."""
        try:
            return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError, AttributeError) as e:
            raise ValueError(f"{path}: not a panel layout: {e}") from None

    @classmethod
    def default(cls, board: str) -> "LedLayout":
        """The layout shipped for a ``"hex"`` or ``"square"`` panel."""
        return cls.load(LAYOUTS_DIR / f"{board}.json")

    def for_game(self, game: str) -> "GameLeds":
        """The LED of every point of ``game`` on this panel."""
        geometry = game_geometry(game)
        if geometry.kind != self.board:
            raise ValueError(f"the game {game} is played on the {geometry.kind} side; this panel is a {self.board} panel")
        panel_points = PANEL_BOARDS[self.board]()
        led_of = {name: i for i, name in enumerate(self.chain)}
        led_xy = [(led_of[n], xy) for n, xy in panel_points.positions_mm().items()]
        index: dict[str, int] = {}
        for name, (x, y) in geometry.positions_mm().items():
            # nearest LED; among equals the one lowest (nearest White), then leftmost
            index[name] = min(led_xy, key=lambda lx: (round((lx[1][0] - x) ** 2 + (lx[1][1] - y) ** 2, 6),
                                                      lx[1][1], lx[1][0]))[0]
        if len(set(index.values())) != len(index):
            raise ValueError(f"the game {game} has more points than this panel has LEDs for")
        return GameLeds(game, self, geometry.names, index)


@dataclass(frozen=True)
class GameLeds:
    """One game on one panel: point name -> LED index."""

    game: str
    layout: LedLayout
    names: tuple[str, ...]
    leds: dict[str, int]

    def index(self, point: str) -> int:
        try:
            return self.leds[point]
        except KeyError:
            raise KeyError(f"no point {point!r} in {self.game}") from None
