"""Attangle (Dieter Stein, 1998): place pieces, capture with two pieces meeting at an angle.

Three editions:

* :class:`Attangle` (``attangle``), the tactic blue booklet rules on the hex side;
* :class:`AttangleSquare` (``attangle-square``), the booklet's square variant;
* :class:`Attangle2008` (``attangle-2008``), the 2008 edition (the one AbstractPlay plays).

Booklet rules (``shared/seeds/002``), with the open points decided as noted:

* White opens; a turn is a **placement** from the hand on any vacant point (not on the
  centre d4 on White's very first turn of the game) or a **capture**.
* A capture moves exactly two own units -- two single pieces, or a single piece and an
  own 3-stack -- each in a straight line any distance over empty points (no jumping),
  onto the same opposing piece or stack, where they land on top.  The two come from
  different directions; opposite directions (180 degrees) are allowed, as in the sample
  game's ``17. d6,b4-c5`` and ``9... e6,f1-e1``.
* After the capture the mover must have a majority of exactly one piece in the new
  stack: a 3-stack (2:1) or a 5-stack (3:2).  No stack exceeds 5; stacks never split;
  5-stacks never move and are never captured.
* A stack belongs to the majority of its pieces (the booklet: "the topmost piece, or
  more precisely the majority").
* The first player to own three 5-stacks wins, at once.

Decisions where the booklet is silent:

* Pieces: 50 each (the box has 100).  A player whose hand is empty can only capture.
* A player with no legal turn (no piece in hand or no vacant point, and no capture)
  **loses**.  The booklet says a turn must always be taken (no passing); the 2008 edition
  by the same author states this rule outright, so we apply it to every edition.
* Order inside a captured stack: the booklet says it "plays no role", players stack in
  any order.  We write the target's pieces at the bottom, then the capturing 3-stack,
  then the capturing single piece(s) on top, so the top piece is always the capturer's;
  :meth:`Attangle.stack_fits` accepts any order with the right colour counts.  The
  orders players make, the target at the bottom and the two units on it whole either way,
  are :meth:`Attangle.usual_stacks`: vision prefers them where a disc's colour is unsure.
* Pieces never leave the game (2008: the returned piece goes to the hand), so the
  inherited :meth:`~rules.base.Board.material` is right for every edition.

Notation: a placement is the point (``d4``); a capture is the two origins, then the
target: ``d4,c5-d6``.  Either origin order is read; origins are written in alphabetical
order.

>>> b = Attangle()
>>> len(b.legal_turns())  # every point but d4
36
>>> for t in ["a1", "b1", "c1", "g4"]:
...     _ = b.push_notation(t)
>>> [b.turn_notation(t) for t in b.legal_turns() if isinstance(t, Capture)]
['a1,c1-b1']
>>> _ = b.push_notation("c1,a1-b1")
>>> b["b1"], b["a1"], b["c1"]
('bww', '', '')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import ClassVar, Union

from rules.base import BLACK, COLOUR_NAMES, WHITE, Board, Colour, IllegalTurn, Outcome, other, register
from rules.geometry import KING, Geometry, hex_geometry, square_cells
from rules.stacking import Place, point_index


@dataclass(frozen=True, order=True)
class Capture:
    """Two own units on ``origins`` (sorted point indices) slide onto the opposing stack on ``target``."""

    origins: tuple[int, int]
    target: int

    @classmethod
    def of(cls, a: int, b: int, target: int) -> "Capture":
        """The capture from ``a`` and ``b`` in either order."""
        return cls((min(a, b), max(a, b)), target)


AttangleTurn = Union[Place, Capture]


@register
class Attangle(Board[AttangleTurn]):
    """Attangle, booklet rules, on the 37 points of the hex side."""

    name = "attangle"
    title = "Attangle"
    geometry: ClassVar[Geometry] = hex_geometry()
    max_height = 5
    """A stack this high is complete: it never moves, is never captured, and counts for the win."""
    pieces_each: ClassVar[int] = 50
    unit_heights: ClassVar[frozenset[int]] = frozenset({1, 3})
    """Heights of own stacks that may take part in a capture."""
    win_count: ClassVar[int] = 3
    """Complete stacks a player must own to win."""
    opening_closed: ClassVar[frozenset[str]] = frozenset({"d4"})
    """Points the first turn of the game may not use."""
    closed: ClassVar[frozenset[str]] = frozenset()
    """Points that stay empty all game."""
    returns_top: ClassVar[bool] = False
    """Whether the capturer takes the top piece of the new stack back into the hand (2008)."""

    def reset(self) -> None:
        self.stacks = [""] * len(self.geometry)
        self.turn = self.first_player
        self.hands = {WHITE: self.pieces_each, BLACK: self.pieces_each}

    # --- stacks ---------------------------------------------------------------------
    @staticmethod
    def owner(stack: str) -> Colour:
        """The colour that owns a (non-empty) stack: the majority of its pieces, else its top.

        >>> Attangle.owner("wbb"), Attangle.owner("bbw")
        ('b', 'b')
        """
        w, b = stack.count(WHITE), stack.count(BLACK)
        if w != b:
            return WHITE if w > b else BLACK
        return stack[-1]  # type: ignore[return-value]

    @staticmethod
    def stack_fits(expected: str, seen: str) -> bool:
        """Whether an observed stack can be the expected one, in any order of its pieces.

        The booklet lets players stack captured pieces in any order, so only the number of
        pieces of each colour matters; ``?`` layers can be either colour.

        >>> Attangle.stack_fits("bww", "wbw"), Attangle.stack_fits("bww", "w?w"), Attangle.stack_fits("bww", "bbw")
        (True, True, False)
        """
        return (len(expected) == len(seen) and seen.count(WHITE) <= expected.count(WHITE)
                and seen.count(BLACK) <= expected.count(BLACK))

    @classmethod
    def can_stand(cls, stack: str) -> bool:
        """A single piece, or a stack captures can build (in any order of its pieces where
        :meth:`stack_fits` allows that).

        >>> Attangle.can_stand("wbw"), Attangle.can_stand("ww"), Attangle.can_stand("wwwwb")
        (True, False, False)
        >>> Attangle2008.can_stand("bw"), Attangle2008.can_stand("wbb")
        (True, False)
        """
        return any(cls.stack_fits(built, stack) for built in _built_stacks(cls))

    @classmethod
    def usual_stacks(cls) -> tuple[str, ...]:
        """The stacks captures build as the booklet has players stack them: the two capturing
        units land whole on the target, in either order ("the order plays no role").  The
        other orders of the same pieces, which :meth:`stack_fits` accepts too, come only from
        restacking by hand.

        >>> [s for s in Attangle.usual_stacks() if len(s) > 1]  # 2:1 on a single, 3:2 on a single or on a 3-stack
        ['bww', 'wbb', 'bbwww', 'bwbww', 'bwwbb', 'wbbww', 'wbwbb', 'wwbbb']
        >>> len(Attangle.possible_stacks())  # with every order of the same pieces
        28
        """
        usual = _built_stacks(cls, either_order=True)
        return tuple(s for s in cls.possible_stacks() if s in usual)

    def captured_stack(self, target: str, unit_a: str, unit_b: str) -> str:
        """The stack a capture makes as the game records it: the target, then the taller unit,
        then the other on top.

        >>> Attangle().captured_stack("b", "w", "bww")
        'bbwww'
        """
        low, high = sorted((unit_a, unit_b), key=len)
        return self.stacked(target, high, low)

    def stacked(self, target: str, lower: str, upper: str) -> str:
        """The stack units ``lower`` and then ``upper`` make on ``target`` (less its top piece
        where that goes back to the hand)."""
        new = target + lower + upper
        return new[:-1] if self.returns_top else new

    def capture_problem(self, mover: Colour, new: str) -> str | None:
        """Why a capture making stack ``new`` is illegal, or ``None`` if it may stand.

        Booklet: at most 5 high, and the mover has a majority of exactly one piece.

        >>> Attangle().capture_problem("w", "bbwww"), Attangle().capture_problem("w", "bwww")
        (None, 'the mover must have a majority of exactly one piece, not 3:1')
        """
        if len(new) > self.max_height:
            return f"the stack would be {len(new)} high (at most {self.max_height})"
        mine, theirs = new.count(mover), len(new) - new.count(mover)
        if mine - theirs != 1:
            return f"the mover must have a majority of exactly one piece, not {mine}:{theirs}"
        return None

    # --- the rules ------------------------------------------------------------------
    def _shut(self) -> set[int]:
        """The vacant points that may not be placed on now."""
        names = self.closed | (self.opening_closed if not any(self.stacks) else frozenset())
        return {self.geometry.index(n) for n in names}

    def _units_towards(self, target: int) -> list[int]:
        """The mover's stacks that can slide onto ``target``: the first stack along each
        straight line from it, if it is the mover's and of a height that may capture."""
        units = []
        step, stacks = self.geometry.step, self.stacks
        for d in range(len(self.geometry.directions)):
            j = step(target, d)
            while j >= 0 and not stacks[j]:
                j = step(j, d)
            if j >= 0 and self.owner(stacks[j]) == self.turn and len(stacks[j]) in self.unit_heights:
                units.append(j)
        return units

    def _turns(self) -> list[AttangleTurn]:
        """Every legal turn, whether or not the game is already won."""
        me = self.turn
        turns: list[AttangleTurn] = []
        if self.hands[me] > 0:
            shut = self._shut()
            turns.extend(Place(i) for i, s in enumerate(self.stacks) if not s and i not in shut)
        for t, victim in enumerate(self.stacks):
            if not victim or self.owner(victim) == me or len(victim) >= self.max_height:
                continue
            for a, b in combinations(self._units_towards(t), 2):
                if self.capture_problem(me, self.captured_stack(victim, self.stacks[a], self.stacks[b])) is None:
                    turns.append(Capture.of(a, b, t))
        return turns

    def complete_stacks(self) -> dict[Colour, int]:
        """How many complete (``max_height``) stacks each colour owns."""
        counts = {WHITE: 0, BLACK: 0}
        for s in self.stacks:
            if len(s) == self.max_height:
                counts[self.owner(s)] += 1
        return counts

    def _stack_winner(self) -> Colour | None:
        counts = self.complete_stacks()
        for colour in (other(self.turn), self.turn):  # the player who just moved first
            if counts[colour] >= self.win_count:
                return colour
        return None

    def legal_turns(self) -> list[AttangleTurn]:
        return [] if self._stack_winner() else self._turns()

    def _apply(self, turn: AttangleTurn) -> None:
        me = self.turn
        if isinstance(turn, Place):
            self.stacks[turn.point] = me
            self.hands[me] -= 1
        else:
            a, b = turn.origins
            self.stacks[turn.target] = self.captured_stack(self.stacks[turn.target], self.stacks[a], self.stacks[b])
            self.stacks[a] = self.stacks[b] = ""
            if self.returns_top:
                self.hands[me] += 1
        self.turn = other(me)

    def outcome(self) -> Outcome | None:
        winner = self._stack_winner()
        if winner is not None:
            return Outcome(winner, reason=f"{COLOUR_NAMES[winner]} owns {self.win_count} stacks of {self.max_height}")
        if not self._turns():
            return Outcome(other(self.turn), reason=f"{COLOUR_NAMES[self.turn]} has no legal turn")
        return None

    # --- notation -------------------------------------------------------------------
    def turn_notation(self, turn: AttangleTurn) -> str:
        """``d4`` or ``c5,d4-d6`` (origins in alphabetical order)."""
        if isinstance(turn, Place):
            return self.geometry.name(turn.point)
        a, b = sorted(self.geometry.name(i) for i in turn.origins)
        return f"{a},{b}-{self.geometry.name(turn.target)}"

    def parse_turn(self, text: str) -> AttangleTurn:
        """The legal turn written ``text``; :class:`IllegalTurn` says which rule forbids it.

        >>> b = Attangle()
        >>> b.parse_turn("d4")
        Traceback (most recent call last):
        ...
        rules.base.IllegalTurn: the first turn of the game may not use d4
        """
        written = "".join(text.split()).lower()
        turn: AttangleTurn
        origins, dash, target = written.partition("-")
        if dash:
            a, comma, b = origins.partition(",")
            if not comma:
                raise IllegalTurn(f"{written!r}: a capture is written with two origins, like d4,c5-d6")
            turn = Capture.of(point_index(self.geometry, a), point_index(self.geometry, b),
                              point_index(self.geometry, target))
        else:
            turn = Place(point_index(self.geometry, written))
        if turn in self.legal_turns():
            return turn
        raise IllegalTurn(self._why_illegal(turn))

    def _why_illegal(self, turn: AttangleTurn) -> str:
        """The rule that forbids an illegal turn, in words."""
        if self.is_game_over():
            return f"the game is over ({self.outcome().reason})"  # type: ignore[union-attr]
        me = self.turn
        who = COLOUR_NAMES[me]
        if isinstance(turn, Place):
            name = self.geometry.name(turn.point)
            if self.stacks[turn.point]:
                return f"{name} is occupied"
            if name in self.closed:
                return f"{name} must stay empty all game in this edition"
            if self.hands[me] == 0:
                return f"{who} has no pieces left in hand"
            return f"the first turn of the game may not use {name}"
        target = self.geometry.name(turn.target)
        victim = self.stacks[turn.target]
        if not victim:
            return f"a capture must land on an opposing stack, and {target} is empty"
        if self.owner(victim) == me:
            return f"a capture must land on an opposing stack, and {target} is {who}'s"
        if len(victim) >= self.max_height:
            return f"stacks of {self.max_height} are never captured"
        if turn.origins[0] == turn.origins[1]:
            return "a capture moves two different units"
        for o in turn.origins:
            name, stack = self.geometry.name(o), self.stacks[o]
            if not stack or self.owner(stack) != me:
                return f"{name} holds no stack of {who}'s"
            if len(stack) not in self.unit_heights:
                return f"the stack on {name} is {len(stack)} high; only stacks of " \
                       f"{' or '.join(map(str, sorted(self.unit_heights)))} may capture"
            line = next((r for d in range(len(self.geometry.directions))
                         if turn.target in (r := self.geometry.ray(o, d))), None)
            if line is None:
                return f"{name} is not in a straight line with {target}"
            blocker = next((j for j in line[:line.index(turn.target)] if self.stacks[j]), None)
            if blocker is not None:
                return f"{name} cannot reach {target}: {self.geometry.name(blocker)} is in the way (no jumping)"
        a, b = turn.origins
        problem = self.capture_problem(me, self.captured_stack(victim, self.stacks[a], self.stacks[b]))
        return problem or "not a legal capture"


@register
class AttangleSquare(Attangle):
    """Attangle on the 8 x 8 middle cells of the square side: 8 directions, five 5-stacks win.

    The board has no single centre point, so the first turn may go anywhere (the hex
    rule forbids "the exact centre (d4)"; d4 here is just one of the four middle cells).
    """

    name = "attangle-square"
    title = "Attangle (square board)"
    geometry = square_cells(8, KING)
    win_count = 5
    opening_closed = frozenset()


@register
class Attangle2008(Attangle):
    """Attangle, 2008 edition (``shared/seeds/004``): 18 pieces, triple stacks, the centre stays empty.

    After a capture the top piece (always the capturer's) goes back to the hand, and no
    stack is higher than 3 after that.  Double stacks may capture with a single piece;
    triple stacks never move and win.  A stack belongs to its top piece, and the order
    is fixed: the double goes on first and the single on top ("stacked so that two pieces
    of the current player are directly on top"), so observed stacks must match exactly.

    >>> b = Attangle2008()
    >>> b.set_position({"a1": "w", "c1": "w", "b1": "b"})
    >>> b.hands = {"w": 16, "b": 17}
    >>> b.push_notation("a1,c1-b1")
    Capture(origins=(0, 9), target=4)
    >>> b["b1"], b.hands
    ('bw', {'w': 17, 'b': 17})
    """

    name = "attangle-2008"
    title = "Attangle (2008 edition)"
    max_height = 3
    pieces_each = 18
    unit_heights = frozenset({1, 2})
    closed = frozenset({"d4"})
    returns_top = True
    stack_fits = staticmethod(Board.stack_fits)

    @staticmethod
    def owner(stack: str) -> Colour:
        """The colour of the top piece."""
        return stack[-1]  # type: ignore[return-value]

    def capture_problem(self, mover: Colour, new: str) -> str | None:
        """Only the height limit (there is no majority rule in this edition)."""
        if len(new) > self.max_height:
            return f"the stack would be {len(new)} high after the top piece goes back (at most {self.max_height})"
        return None


@cache
def _built_stacks(cls: type[Attangle], either_order: bool = False) -> frozenset[str]:
    """Every stack of ``cls``'s game, as :meth:`Attangle.captured_stack` builds it (with
    ``either_order``, also with the two capturing units the other way round): single pieces,
    then whatever legal captures make of the stacks found so far."""
    board = cls()
    built: set[str] = {WHITE, BLACK}
    while True:
        new: set[str] = set()
        for target in (t for t in built if len(t) < cls.max_height):  # complete stacks are never captured
            mover = other(cls.owner(target))
            units = [u for u in built if cls.owner(u) == mover and len(u) in cls.unit_heights]
            pairs = combinations_with_replacement(units, 2)
            made = ({board.stacked(target, x, y) for a, b in pairs for x, y in ((a, b), (b, a))} if either_order
                    else {board.captured_stack(target, a, b) for a, b in pairs})
            new |= {m for m in made if board.capture_problem(mover, m) is None}
        if new <= built:
            return frozenset(built)
        built |= new
