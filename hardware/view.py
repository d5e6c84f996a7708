"""What the panel shows during a game, as one :class:`~hardware.protocol.LedFrame`.

The companion describes the moment in a :class:`PanelView` (point names of the game)
and :func:`render` turns it into the LED frame for one panel:

* **game over**: every point blinks slowly in the winner's colour (white for White,
  blue for Black), yellow for a draw;
* **illegal move**: only the points to put back, blinking fast in red;
* otherwise **last move**: its last point in the colour of the player now to move, the
  points it came from in that colour dimmed (so the last move also says **whose turn**
  it is; panels with turn LEDs light the mover's one as well; yellow when no side is given);
* **teaching mode**: the touched stack in cyan and its legal targets in green.

>>> from hardware.layout import LedLayout
>>> leds = LedLayout.default("hex").for_game("accasta")
>>> frame = render(PanelView(to_move="b", last_move=("a1", "b2")), leds)
>>> [(i, Colour(frame.colours[i]).name) for i in range(len(frame)) if frame.colours[i]]
[(0, 'DIM_BLUE'), (7, 'BLUE')]

The points come from the rules without knowing any game's turn type: :func:`moved_points`
compares the visible board before and after a turn, :func:`targets` tries every legal turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from hardware.layout import GameLeds
from hardware.protocol import Colour, LedFrame, Pattern
from rules import Board

Side = Literal["w", "b"]

TO_MOVE: dict[str | None, Colour] = {"w": Colour.WHITE, "b": Colour.BLUE}
CAME_FROM: dict[str | None, Colour] = {"w": Colour.DIM_WHITE, "b": Colour.DIM_BLUE}


@dataclass(frozen=True)
class PanelView:
    """The moment of the game to show; every point is a point name of the game."""

    to_move: Side | None = None
    last_move: tuple[str, ...] = ()
    """The points of the last turn in order (from ... to); one point for a placement."""
    touched: str | None = None
    """A stack the player has picked up or touched (teaching mode)."""
    targets: tuple[str, ...] = ()
    """Where the touched stack may legally go (teaching mode)."""
    illegal: tuple[str, ...] = ()
    """The points to put back after an illegal move."""
    winner: Side | Literal["draw"] | None = None
    """Set when the game is over."""


def moved_points(before: dict[str, str], after: dict[str, str]) -> tuple[str, ...]:
    """The points a turn changed, for :attr:`PanelView.last_move`: the points that lost
    pieces or changed first, then the points that grew, the one that grew most last (where
    the mover arrived).  Game-agnostic: it needs only the visible stacks.

    >>> moved_points({"a1": "ww", "b2": "", "c3": "b"}, {"a1": "w", "b2": "w", "c3": "b"})
    ('a1', 'b2')
    >>> moved_points({"b4": "w", "c5": "b", "d6": ""}, {"b4": "", "c5": "", "d6": "w"})  # a capture
    ('b4', 'c5', 'd6')
    """
    changed = [p for p in before if before[p] != after.get(p, "")]
    grew = sorted((p for p in changed if len(after[p]) > len(before[p])),
                  key=lambda p: (len(after[p]) - len(before[p]), changed.index(p)))
    return tuple(p for p in changed if p not in grew) + tuple(grew)


def targets(board: Board[Any], point: str) -> tuple[str, ...]:
    """Where the stack on ``point`` may go this turn (teaching mode): the points that grow
    in the legal turns that take pieces from ``point``, in board order.

    >>> from rules import new_game
    >>> targets(new_game("dame100"), "b4")
    ('a5', 'c5')
    """
    before = board.visible()
    reached: set[str] = set()
    for turn in board.legal_turns():
        board.push(turn)
        after = board.visible()
        board.pop()
        if len(after[point]) < len(before[point]):
            reached.update(p for p in after if len(after[p]) > len(before[p]))
    return tuple(p for p in before if p in reached)


def render(view: PanelView, leds: GameLeds) -> LedFrame:
    """The LED frame showing ``view`` on the panel ``leds`` (see the module docstring)."""
    for name in (*view.last_move, *view.targets, *view.illegal, *([view.touched] if view.touched else [])):
        leds.index(name)  # KeyError naming an unknown point, whatever is shown
    frame = LedFrame.blank(leds.layout.count, leds.layout.brightness)
    if view.winner is not None:
        colour = Colour.YELLOW if view.winner == "draw" else TO_MOVE[view.winner]
        for name in leds.names:
            frame = frame.set(leds.index(name), colour, Pattern.BLINK_SLOW)
        return frame
    if view.illegal:
        for name in view.illegal:
            frame = frame.set(leds.index(name), Colour.RED, Pattern.BLINK_FAST)
        return frame
    for name in view.last_move[:-1]:
        frame = frame.set(leds.index(name), CAME_FROM.get(view.to_move, Colour.DIM_WHITE))
    if view.last_move:
        frame = frame.set(leds.index(view.last_move[-1]), TO_MOVE.get(view.to_move, Colour.YELLOW))
    if view.to_move is not None:
        turn_led = leds.layout.turn_leds.get("white" if view.to_move == "w" else "black")
        if turn_led is not None:
            frame = frame.set(turn_led, TO_MOVE[view.to_move])
    for name in view.targets:
        frame = frame.set(leds.index(name), Colour.GREEN)
    if view.touched is not None:
        frame = frame.set(leds.index(view.touched), Colour.CYAN)
    return frame
