"""Abande (Dieter Stein, 2005): place pieces in one connected chain, capture by stepping on top.

Rules as in the tactic blue booklet, with the open points decided as the game's
community plays them (AbstractPlay, Vying; see ``shared/rules-notes.md``):

* 18 pieces each in hand.  Black opens with the *initiative turn*: a placement anywhere.
* Then a turn is one of: **place** a piece from the hand on an empty point next to any
  piece; **move** an own piece or complete stack (the top piece is the owner's) one step
  onto a neighbouring stack whose top is the opponent's (a capture; never onto an empty
  point or an own stack); **pass**.
* Moves are allowed only once Black has placed his second piece (Black cannot capture
  White's reply to the initiative turn).
* Stacks are at most 3 high and never split.
* The chain: all pieces are connected at all times, checked on the board after the turn
  (a path may change, as the booklet's Q&A says).
* Passing is allowed only with an empty hand, and then even when a capture is possible
  (the booklet's sample game passes twice with captures on the board).  The booklet also
  says a player *must* pass when no regular turn is possible: we allow a pass then too,
  so a player always has a turn until the game ends.  (With pieces in hand that cannot
  happen on a connected board that is not full, and 36 pieces never fill 37 points.)
* The game ends when both players pass one right after the other.
* Sleeping pieces are decided once, on the final position, by the top pieces only: a
  stack with no neighbour whose top is the opponent's does not score.  Removing them does
  not wake or put to sleep anything else.  Each awake stack scores its height (1, 2 or 3)
  for the owner of its top; more points wins, equal points is a draw.

Pieces never leave the board (sleeping pieces are only left out of the score), so the
inherited :meth:`~rules.base.Board.material` is right.

Notation: ``d4`` places, ``d5-d4`` moves the stack on d5 onto d4, ``pass``.

>>> b = Abande()
>>> b.turn, len(b.legal_turns())
('b', 37)
>>> for t in ["d4", "d5", "e4"]:
...     _ = b.push_notation(t)
>>> sorted(b.turn_notation(t) for t in b.legal_turns() if not isinstance(t, Place))
['d5-d4', 'd5-e4']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from rules.base import BLACK, COLOUR_NAMES, WHITE, Board, Colour, IllegalTurn, Outcome, other, register
from rules.geometry import KING, Geometry, hex_geometry, square_intersections
from rules.stacking import Place, point_index


@dataclass(frozen=True, order=True)
class Step:
    """Move the whole stack on ``origin`` one step onto the opposing stack on ``target``."""

    origin: int
    target: int


@dataclass(frozen=True)
class Pass:
    """Do nothing (only with an empty hand)."""


AbandeTurn = Union[Place, Step, Pass]


@register
class Abande(Board[AbandeTurn]):
    """Abande on the 37 points of the hex side."""

    name = "abande"
    title = "Abande"
    geometry: ClassVar[Geometry] = hex_geometry()
    first_player = BLACK
    max_height = 3
    pieces_each: ClassVar[int] = 18
    _state_fields = ("passes",)

    passes: int
    """Passes played one right after the other up to now (2 ends the game)."""

    @classmethod
    def can_stand(cls, stack: str) -> bool:
        """A single piece, or a stack whose top two pieces differ: a capture puts the mover's
        stack on one whose top is the opponent's, and stacks never split.

        >>> Abande.can_stand("wbw"), Abande.can_stand("bww"), Abande.can_stand("ww")
        (True, False, False)
        """
        return super().can_stand(stack) and (len(stack) == 1 or stack[-1] != stack[-2])

    def reset(self) -> None:
        self.stacks = [""] * len(self.geometry)
        self.turn = self.first_player
        self.hands = {WHITE: self.pieces_each, BLACK: self.pieces_each}
        self.passes = 0

    # --- the rules ------------------------------------------------------------------
    def moves_allowed(self) -> bool:
        """Whether moving has started: only once Black has placed his second piece."""
        return self.hands[BLACK] <= self.pieces_each - 2

    def chain_intact(self, occupied: list[bool]) -> bool:
        """Whether the occupied points form one connected group (the chain rule).

        An empty board counts as connected."""
        start = next((i for i, o in enumerate(occupied) if o), None)
        if start is None:
            return True
        seen = {start}
        todo = [start]
        while todo:
            i = todo.pop()
            for j in self.geometry.neighbours(i):
                if occupied[j] and j not in seen:
                    seen.add(j)
                    todo.append(j)
        return len(seen) == sum(occupied)

    def _placements(self) -> list[Place]:
        if self.hands[self.turn] == 0:
            return []
        occupied = [bool(s) for s in self.stacks]
        if not any(occupied):  # the initiative turn: anywhere
            return [Place(i) for i in range(len(occupied))]
        touching = [Place(i) for i, o in enumerate(occupied)
                    if not o and any(occupied[j] for j in self.geometry.neighbours(i))]
        if self.chain_intact(occupied):  # the usual case: a touching piece keeps the chain
            return touching
        return [p for p in touching if self.chain_intact(occupied[:p.point] + [True] + occupied[p.point + 1:])]

    def _steps(self) -> list[Step]:
        if not self.moves_allowed():
            return []
        me = self.turn
        occupied = [bool(s) for s in self.stacks]
        steps: list[Step] = []
        for i, stack in enumerate(self.stacks):
            if not stack or stack[-1] != me:
                continue
            targets = [j for j in self.geometry.neighbours(i)
                       if self.stacks[j] and self.stacks[j][-1] != me
                       and len(stack) + len(self.stacks[j]) <= self.max_height]
            if not targets:
                continue
            occupied[i] = False
            if self.chain_intact(occupied):
                steps.extend(Step(i, j) for j in sorted(targets))
            occupied[i] = True
        return steps

    def legal_turns(self) -> list[AbandeTurn]:
        if self.passes >= 2:
            return []
        turns: list[AbandeTurn] = [*self._placements(), *self._steps()]
        if self.hands[self.turn] == 0 or not turns:
            turns.append(Pass())
        return turns

    def _apply(self, turn: AbandeTurn) -> None:
        if isinstance(turn, Pass):
            self.passes += 1
        else:
            self.passes = 0
            if isinstance(turn, Place):
                self.stacks[turn.point] = self.turn
                self.hands[self.turn] -= 1
            else:
                self.stacks[turn.target] += self.stacks[turn.origin]
                self.stacks[turn.origin] = ""
        self.turn = other(self.turn)

    # --- the end --------------------------------------------------------------------
    def sleeping(self) -> list[str]:
        """The points whose stacks sleep: no neighbouring stack has the opponent's colour on top.

        >>> b = Abande()
        >>> b.set_position({"d4": "w", "d5": "b", "a1": "w", "a2": "ww"})
        >>> b.sleeping()
        ['a1', 'a2']
        """
        out = []
        for i, stack in enumerate(self.stacks):
            if stack and not any(self.stacks[j] and self.stacks[j][-1] != stack[-1]
                                 for j in self.geometry.neighbours(i)):
                out.append(self.geometry.name(i))
        return out

    def score(self) -> tuple[int, int]:
        """(white, black) points: the height of every awake stack for the owner of its top."""
        asleep = {self.geometry.index(n) for n in self.sleeping()}
        points = {WHITE: 0, BLACK: 0}
        for i, stack in enumerate(self.stacks):
            if stack and i not in asleep:
                points[stack[-1]] += len(stack)  # type: ignore[index]
        return points[WHITE], points[BLACK]

    def outcome(self) -> Outcome | None:
        if self.passes < 2:
            return None
        white, black = self.score()
        if white == black:
            return Outcome(None, draw=True, score=(white, black), reason=f"both passed, a tie at {white}:{black}")
        winner: Colour = WHITE if white > black else BLACK
        return Outcome(winner, score=(white, black), reason=f"both passed, {COLOUR_NAMES[winner]} scores more")

    # --- notation -------------------------------------------------------------------
    def turn_notation(self, turn: AbandeTurn) -> str:
        """``d4``, ``d5-d4`` or ``pass``."""
        if isinstance(turn, Pass):
            return "pass"
        if isinstance(turn, Place):
            return self.geometry.name(turn.point)
        return f"{self.geometry.name(turn.origin)}-{self.geometry.name(turn.target)}"

    def parse_turn(self, text: str) -> AbandeTurn:
        """The legal turn written ``text``; :class:`IllegalTurn` says which rule forbids it.

        >>> b = Abande()
        >>> b.parse_turn("pass")
        Traceback (most recent call last):
        ...
        rules.base.IllegalTurn: passing is allowed only with no pieces in hand (black has 18)
        """
        written = text.strip().lower()
        turn: AbandeTurn
        if written == "pass":
            turn = Pass()
        elif "-" in written:
            origin, _, target = written.partition("-")
            turn = Step(point_index(self.geometry, origin), point_index(self.geometry, target))
        else:
            turn = Place(point_index(self.geometry, written))
        if turn in self.legal_turns():
            return turn
        raise IllegalTurn(self._why_illegal(turn))

    def explain_illegal(self, seen: dict[str, str]) -> str | None:
        """Why the observed board ``seen`` (point -> stack) is no legal turn, for move inference:
        the placement or move the players made, read from the stacks, and the rule it breaks.

        >>> b = Abande()
        >>> for t in ["d4", "d5"]:
        ...     _ = b.push_notation(t)
        >>> b.explain_illegal({"a1": "b"})
        'a new piece must touch a piece on the board and keep all pieces connected (a1 does not)'
        """
        from rules.infer import movement

        moved = movement(self, seen)
        if moved is None or len(moved.landed) != 1:
            return None
        target = next(iter(moved.landed))
        if moved.source is None:
            return self._why_illegal(Place(target))
        if moved.left != self.stacks[moved.source]:
            return f"stacks never split: the whole stack on {self.geometry.name(moved.source)} moves"
        return self._why_illegal(Step(moved.source, target))

    def _why_illegal(self, turn: AbandeTurn) -> str:
        """The rule that forbids an illegal turn, in words."""
        me = self.turn
        who = COLOUR_NAMES[me]
        if self.passes >= 2:
            return "the game is over (both players passed)"
        if isinstance(turn, Pass):
            return f"passing is allowed only with no pieces in hand ({who} has {self.hands[me]})"
        if isinstance(turn, Place):
            name = self.geometry.name(turn.point)
            if self.hands[me] == 0:
                return f"{who} has no pieces left in hand"
            if self.stacks[turn.point]:
                return f"{name} is occupied"
            return f"a new piece must touch a piece on the board and keep all pieces connected ({name} does not)"
        origin, target = self.geometry.name(turn.origin), self.geometry.name(turn.target)
        stack, victim = self.stacks[turn.origin], self.stacks[turn.target]
        if not stack:
            return f"there is no piece on {origin}"
        if stack[-1] != me:
            return f"the stack on {origin} is not {who}'s"
        if turn.target not in self.geometry.neighbours(turn.origin):
            return f"a move goes one step to a neighbouring point, and {target} is not next to {origin}"
        if not self.moves_allowed():
            return "no moves until Black has placed his second piece"
        if not victim:
            return f"a move must capture, and {target} is empty"
        if victim[-1] == me:
            return f"a move must capture, and {target} is {who}'s own"
        if len(stack) + len(victim) > self.max_height:
            return f"the stack would be {len(stack) + len(victim)} high (at most {self.max_height})"
        return f"moving {origin} breaks the chain (all pieces must stay connected)"


@register
class AbandeSquare(Abande):
    """Abande on the 7 x 7 middle intersections of the square side; diagonal neighbours count.

    >>> b = AbandeSquare()
    >>> _ = b.push_notation("d4")
    >>> len(b.legal_turns())
    8
    """

    name = "abande-square"
    title = "Abande (square board)"
    geometry = square_intersections(7, KING)
