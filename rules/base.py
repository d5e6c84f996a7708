"""The typed core shared by every game: colours, outcomes and the abstract :class:`Board`.

A board is mutable, like python-chess's: :meth:`Board.push` plays a legal turn,
:meth:`Board.pop` takes it back.  Each game is a small subclass (see ``rules/games/``)
that supplies its geometry, start position, turn generation and notation; variants
subclass a game and override only what differs.

Stacks are strings bottom-to-top of ``w`` and ``b``; ``""`` is an empty point.
"""

from __future__ import annotations

import copy as _copy
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Hashable, Iterator, Literal, Self, TypeVar

from rules.geometry import Geometry

if TYPE_CHECKING:
    from rules.record import Record

Colour = Literal["w", "b"]
WHITE: Colour = "w"
BLACK: Colour = "b"
COLOUR_NAMES: dict[str, str] = {"w": "white", "b": "black"}


def other(colour: Colour) -> Colour:
    """The opponent's colour.

    >>> other("w")
    'b'
    """
    return BLACK if colour == WHITE else WHITE


class IllegalTurn(ValueError):
    """A turn that is not legal in the position it was tried in (or cannot be parsed)."""


class AmbiguousTurn(IllegalTurn):
    """A turn written so that it may mean several legal turns (a draughts capture given by its
    start and end squares where two paths join them): ``turns`` are those it may mean."""

    def __init__(self, message: str, turns: list[Any]) -> None:
        super().__init__(message)
        self.turns = turns


@dataclass(frozen=True)
class Outcome:
    """How a game ended: a winner or a draw, an optional score, and why."""

    winner: Colour | None
    draw: bool = False
    score: tuple[int, int] | None = None
    """(white, black) points where the game is scored (Abande, Alva)."""
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": COLOUR_NAMES[self.winner] if self.winner else None,
            "draw": self.draw,
            "score": list(self.score) if self.score is not None else None,
            "reason": self.reason,
        }


TurnT = TypeVar("TurnT", bound=Hashable)


class Board(ABC, Generic[TurnT]):
    """A position of one game plus its history.

    Subclasses set the class attributes and implement the abstract methods.  The
    state every game has is ``stacks`` (one string per point, indexed like
    ``geometry.names``), ``turn`` (whose turn it is), ``hands`` (pieces each colour
    still has off the board to place; 0 in games without placing) and ``ply``.
    Game-specific state lives in extra attributes listed in ``_state_fields`` so that
    :meth:`push`/:meth:`pop` and :meth:`copy` keep it."""

    name: ClassVar[str]
    """Stable game name used on the command line, e.g. ``"accasta"``."""
    title: ClassVar[str]
    geometry: ClassVar[Geometry]
    first_player: ClassVar[Colour] = WHITE
    max_height: ClassVar[int] = 1
    """Highest stack the game can build (vision tests only heights up to this)."""
    discs_per_player: ClassVar[int | None] = None
    """How many discs of each colour every position of the game holds, when no turn ever adds
    or removes one (Accasta); ``None`` where placing or capturing changes the count.  Vision
    makes the heights it reads add up to it."""
    _state_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.stacks: list[str] = [""] * len(self.geometry)
        self.turn: Colour = self.first_player
        self.hands: dict[Colour, int] = {WHITE: 0, BLACK: 0}
        self.ply: int = 0
        self.move_stack: list[TurnT] = []
        self._undo: list[tuple[Any, ...]] = []
        self.reset()

    # --- what a game supplies -------------------------------------------------------
    @abstractmethod
    def reset(self) -> None:
        """Set up the start position (called by ``__init__``)."""

    @abstractmethod
    def legal_turns(self) -> list[TurnT]:
        """Every legal complete turn of the player to move (empty when none or game over)."""

    @abstractmethod
    def _apply(self, turn: TurnT) -> None:
        """Play a turn known to be legal: update stacks, hands, extra state and ``turn``."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result if the game is over, else ``None``."""

    @abstractmethod
    def turn_notation(self, turn: TurnT) -> str:
        """The rulebook notation of a turn in this position (before it is played)."""

    @abstractmethod
    def parse_turn(self, text: str) -> TurnT:
        """The legal turn written ``text`` in this position; :class:`IllegalTurn` if none."""

    # --- generic behaviour ----------------------------------------------------------
    def _snapshot(self) -> tuple[Any, ...]:
        return (
            list(self.stacks), self.turn, dict(self.hands), self.ply,
            *(_copy.deepcopy(getattr(self, f)) for f in self._state_fields),
        )

    def _restore(self, snap: tuple[Any, ...]) -> None:
        self.stacks, self.turn, self.hands, self.ply = snap[0], snap[1], snap[2], snap[3]
        for f, v in zip(self._state_fields, snap[4:]):
            setattr(self, f, v)

    def push(self, turn: TurnT) -> None:
        """Play a turn.  It must be legal: use :meth:`push_checked` for untrusted input."""
        self._undo.append(self._snapshot())
        self._apply(turn)
        self.move_stack.append(turn)
        self.ply += 1

    def push_checked(self, turn: TurnT) -> None:
        """Play a turn after checking it is among :meth:`legal_turns`.

        >>> from rules.dame import Dame100
        >>> board = Dame100()
        >>> opening = board.parse_turn("32-28")
        >>> board.push_checked(opening)
        >>> board.push_checked(opening)  # White's man has moved: Black is to play
        Traceback (most recent call last):
        ...
        rules.base.IllegalTurn: DameTurn(path=(32, 28), captured=()) is not a legal turn here
        """
        if turn not in self.legal_turns():
            raise IllegalTurn(f"{turn!r} is not a legal turn here")
        self.push(turn)

    def push_notation(self, text: str) -> TurnT:
        """Parse a turn in this game's notation, play it and return it."""
        turn = self.parse_turn(text)
        self.push(turn)
        return turn

    def pop(self) -> TurnT:
        """Take back the last turn and return it."""
        if not self.move_stack:
            raise IndexError("no turn to take back")
        self._restore(self._undo.pop())
        return self.move_stack.pop()

    def notations(self, last: int | None = None) -> list[str]:
        """The notation of every turn played (or of the ``last`` ones), each as it was written
        in the position it was played in.

        >>> from rules.dame import Dame100
        >>> board = Dame100()
        >>> for text in ("32-28", "19-23", "28x19"):
        ...     _ = board.push_notation(text)
        >>> board.notations(), board.notations(1), board.ply
        (['32-28', '19-23', '28x19'], ['28x19'], 3)
        """
        count = len(self.move_stack) if last is None else last
        taken = [self.pop() for _ in range(count)][::-1]
        out = []
        for turn in taken:
            out.append(self.turn_notation(turn))
            self.push(turn)
        return out

    def copy(self) -> "Board[TurnT]":
        return _copy.deepcopy(self)

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def visible(self) -> dict[str, str]:
        """What a camera sees: every point's stack, bottom to top (``""`` empty)."""
        return dict(zip(self.geometry.names, self.stacks))

    @staticmethod
    def stack_fits(expected: str, seen: str) -> bool:
        """Whether an observed stack can be the ``expected`` one.

        ``seen`` may hold ``?`` for layers whose colour could not be read.  Games where
        the order inside a stack does not matter (Attangle) override this.

        >>> Board.stack_fits("wbw", "?bw"), Board.stack_fits("wb", "bw")
        (True, False)
        """
        return len(expected) == len(seen) and all(s in ("?", e) for e, s in zip(expected, seen))

    @classmethod
    def can_stand(cls, stack: str) -> bool:
        """Whether ``stack`` (bottom to top, ``w``/``b``) can stand on a point in some position
        of the game.  Vision reads only such stacks.  By default any of 1 to ``max_height``
        pieces in any order; games whose stacks are built by rules override this.

        >>> from rules import GAMES
        >>> GAMES["abande"].can_stand("wbw"), GAMES["abande"].can_stand("wbwb")
        (True, False)
        """
        return 0 < len(stack) <= cls.max_height and not stack.strip(WHITE + BLACK)

    @classmethod
    def usual_stacks(cls) -> tuple[str, ...]:
        """The :meth:`possible_stacks` players build when they stack as the rules say: every
        one, unless the rules accept stacks in orders play does not make (Attangle).

        >>> from rules import GAMES
        >>> GAMES["accasta"].usual_stacks() == GAMES["accasta"].possible_stacks()
        True
        """
        return cls.possible_stacks()

    @classmethod
    def possible_stacks(cls) -> tuple[str, ...]:
        """Every stack that :meth:`can_stand`, lowest first.

        >>> from rules import GAMES
        >>> GAMES["dame100"].possible_stacks()
        ('b', 'w', 'bb', 'ww')
        """
        return _possible_stacks(cls)

    def material(self) -> dict[Colour, int]:
        """Every piece of each colour the game has: on the board, in hand, and set aside.

        Constant through a game (pieces are never created or lost); games that take
        pieces off the board override this to count them where they went."""
        counts: dict[Colour, int] = {WHITE: self.hands[WHITE], BLACK: self.hands[BLACK]}
        for s in self.stacks:
            counts[WHITE] += s.count(WHITE)
            counts[BLACK] += s.count(BLACK)
        return counts

    def key(self) -> Hashable:
        """A hashable summary of the whole position (for repetitions and take-backs)."""
        snap = self._snapshot()
        return (tuple(snap[0]), snap[1], tuple(sorted(snap[2].items())), *map(repr, snap[4:]))

    def __getitem__(self, point: str) -> str:
        return self.stacks[self.geometry.index(point)]

    def set_position(self, points: dict[str, str], turn: Colour | None = None) -> None:
        """Put stacks on the board (for tests and set-up positions); other points empty."""
        self.stacks = [""] * len(self.geometry)
        for name, stack in points.items():
            if set(stack) - {"w", "b"}:
                raise ValueError(f"stack {stack!r} at {name} must be made of 'w' and 'b'")
            self.stacks[self.geometry.index(name)] = stack
        if turn is not None:
            self.turn = turn
        self.move_stack.clear()
        self._undo.clear()

    def play_random(self, rng: "random.Random", plies: int) -> "Board[TurnT]":
        """Play up to ``plies`` uniformly random legal turns (fewer if the game ends); returns self.

        Random legal games are how tests, benchmarks and the scene renderer get realistic
        positions of any game.

        >>> import random
        >>> from rules import new_game
        >>> new_game("attraktion").play_random(random.Random(1), 5).ply
        5
        """
        for _ in range(plies):
            turns = self.legal_turns()
            if not turns:
                break
            self.push(rng.choice(turns))
        return self

    def perft(self, depth: int) -> int:
        """Number of leaf positions ``depth`` turns deep (the standard move-generator check)."""
        if depth <= 0:
            return 1
        turns = self.legal_turns()
        if depth == 1:
            return len(turns)
        total = 0
        for t in turns:
            self.push(t)
            total += self.perft(depth - 1)
            self.pop()
        return total

    @classmethod
    def read_record(cls, text: str) -> "Record":
        """Parse a game record of this game (the rulebook format; Dame 100 also reads PDN)."""
        from rules.record import parse_record

        return parse_record(text)

    @classmethod
    def read_records(cls, text: str) -> "list[Record]":
        """Every game of a record file (a rulebook record holds one; a PDN file many)."""
        return [cls.read_record(text)]

    @classmethod
    def from_record(cls, record: "Record") -> "Self":
        """A board at the start of a record's game (a set-up position where the record gives one)."""
        return cls()

    @classmethod
    def write_record(cls, record: "Record") -> str:
        """A record as text in this game's usual format (inverse of :meth:`read_record`)."""
        return record.format(cls.first_player)

    def diagram(self) -> str:
        """A text picture of the board as White sees it (row 1 at the bottom)."""
        from rules.diagram import diagram

        return diagram(self.geometry, self.stacks)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(zip(self.geometry.names, self.stacks))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} ply={self.ply} turn={self.turn}>"


GAMES: dict[str, type[Board[Any]]] = {}
"""Every game and variant by its stable name (filled by :func:`register`)."""

BoardT = TypeVar("BoardT", bound=type)


def register(cls: BoardT) -> BoardT:
    """Class decorator adding a game to :data:`GAMES` under ``cls.name``."""
    name = cls.name  # type: ignore[attr-defined]
    if name in GAMES:
        raise ValueError(f"game {name!r} registered twice")
    GAMES[name] = cls
    return cls


def new_game(name: str) -> Board[Any]:
    """A board at the start of the game called ``name`` (see :data:`GAMES`)."""
    try:
        cls = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of: {', '.join(sorted(GAMES))}") from None
    return cls()


@cache
def _possible_stacks(cls: type[Board[Any]]) -> tuple[str, ...]:
    found: list[str] = []
    layer = [""]
    for _ in range(cls.max_height):
        layer = [s + c for s in layer for c in (BLACK, WHITE)]
        found += [s for s in layer if cls.can_stand(s)]
    return tuple(found)
