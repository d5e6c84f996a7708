"""Alva (Alvydas Jakeliunas): place pieces, capture by jumping single pieces or rows of 3 or more.

Played on the 9 x 9 interior intersections of the square side; 32 pieces each
(the booklet; the description at jpneto.github.io/world_abstract_games and the
BoardGameGeek entry say 34 from the designer's older web version: that would be a
subclass setting ``pieces_each = 34``).  White begins on the empty board.

A turn is one of
* a **capture**, compulsory when any of the mover's pieces can jump: a piece jumps
  along a line (orthogonally) over one opposing piece, or over an unbroken row of
  at least 3 opposing pieces, onto the empty point right behind them -- never over
  exactly 2.  The jumped pieces are removed at once.  While the same piece can jump
  again it must, in any direction; which capture to start is free (no majority rule).
* otherwise an optional **shift** of one of the mover's pieces to an orthogonally
  adjacent empty point, then a compulsory **placement** of a piece from hand on any
  empty point.

Captured pieces are set beside the board.  If the opponent captures in his very next
turn the *same number* of pieces, he gives his captures back; otherwise each keeps
his (see :meth:`Alva._apply` for the decision and why).  Kept captures are the
capturer's prisoners and are worth a point each at the end.

The game ends when the player to move cannot take a turn (no capture and no piece in
hand).  Each player scores his prisoners plus the opponent's pieces on the edge
points (the outer ring of the 9 x 9); the higher score wins, equal scores draw.

Notation (none is printed; this follows the other games' style): a placement is the
point, ``e5``; a shift and placement is ``e5-e6,f7`` (shift first, as played); a
capture lists the start and every landing point, ``e5xe7`` or ``e5xe7xg7`` (the
jumped pieces are the ones between).

>>> b = Alva()
>>> b.push_notation("e5"), b.push_notation("e6")
(AlvaTurn(place='e5', shift=None, jumps=()), AlvaTurn(place='e6', shift=None, jumps=()))
>>> [b.turn_notation(t) for t in b.legal_turns()]
['e5xe7']
>>> _ = b.push_notation("e5xe7")
>>> b.prisoners, b.pending_captures, b.hands, b.material()
({'w': 1, 'b': 0}, 1, {'w': 31, 'b': 31}, {'w': 32, 'b': 32})
"""

from __future__ import annotations

from types import EllipsisType
from typing import ClassVar, NamedTuple

from rules.base import BLACK, WHITE, Board, Colour, IllegalTurn, Outcome, other, register
from rules.geometry import Geometry, square_intersections


class AlvaTurn(NamedTuple):
    """One Alva turn: a capture (``jumps``: start and landing points) or an optional shift
    (from, to) followed by a placement.  (A named tuple: a position has thousands of turns.)"""

    place: str | None = None
    shift: tuple[str, str] | None = None
    jumps: tuple[str, ...] = ()


@register
class Alva(Board[AlvaTurn]):
    """Alva.  Besides the board, the state holds what the camera cannot see:

    ``hands`` -- pieces each player still has to place (given-back captures return here);
    ``prisoners`` -- opposing pieces each player has captured and kept (worth a point each);
    ``pending_captures`` -- how many pieces the previous turn captured and kept, still lying
    beside the board: an equal capture in reply is given back.
    """

    name = "alva"
    title = "Alva"
    geometry = square_intersections(9)
    pieces_each: ClassVar[int] = 32
    _state_fields = ("prisoners", "pending_captures")

    def reset(self) -> None:
        self.stacks = [""] * len(self.geometry)
        self.turn = WHITE
        self.hands = {WHITE: self.pieces_each, BLACK: self.pieces_each}
        self.prisoners: dict[Colour, int] = {WHITE: 0, BLACK: 0}
        self.pending_captures = 0

    def set_position(self, points: dict[str, str], turn: Colour | None = None, *,
                     prisoners: dict[Colour, int] | None = None, pending_captures: int = 0) -> None:
        """Put pieces on the board; ``prisoners`` are the captures each colour holds, and each
        hand gets the rest of that colour's pieces."""
        super().set_position(points, turn)
        self.prisoners = {WHITE: 0, BLACK: 0, **(prisoners or {})}
        self.pending_captures = pending_captures
        for c in (WHITE, BLACK):
            self.hands[c] = self.pieces_each - sum(s.count(c) for s in self.stacks) - self.prisoners[other(c)]
        if any(len(s) > 1 for s in self.stacks) or min(self.hands.values()) < 0:
            raise ValueError(f"Alva has single pieces only, {self.pieces_each} of each colour in all")

    def material(self) -> dict[Colour, int]:
        """Pieces on the board, in hand and held by the opponent as prisoners."""
        return {c: sum(s.count(c) for s in self.stacks) + self.hands[c] + self.prisoners[other(c)]
                for c in (WHITE, BLACK)}

    # --- turn generation ---------------------------------------------------------------
    def _jump_targets(self, at: int) -> list[tuple[int, list[int]]]:
        """The jumps the piece on ``at`` can make now: (landing point, jumped points).

        Only opposing pieces are jumped: the booklet's "over a single piece" does not say
        whose, but jumping is how one captures and every published description jumps
        enemy pieces only.  Lines are the grid lines (orthogonal), as the shift's."""
        own = self.stacks[at]
        opp = other(own)  # type: ignore[arg-type]
        out = []
        for d in range(len(self.geometry.directions)):
            ray = self.geometry.ray(at, d)
            k = 0
            while k < len(ray) and self.stacks[ray[k]] == opp:
                k += 1
            # one piece, or a row of 3+ (never exactly 2), with the empty point right behind it
            if k == 1 or k >= 3:
                if k < len(ray) and not self.stacks[ray[k]]:
                    out.append((ray[k], ray[:k]))
        return out

    def _captures(self) -> list[tuple[int, ...]]:
        """Every complete capture of the mover as point paths (start, landing, landing, ...).

        Walks the jumps depth first on ``stacks`` itself, undoing each jump on the way back."""
        paths: list[tuple[int, ...]] = []

        def extend(path: tuple[int, ...]) -> None:
            at = path[-1]
            targets = self._jump_targets(at)
            if not targets:
                if len(path) > 1:
                    paths.append(path)
                return
            for land, jumped in targets:
                saved = [self.stacks[j] for j in jumped]
                self.stacks[land], self.stacks[at] = self.stacks[at], ""
                for j in jumped:
                    self.stacks[j] = ""
                extend(path + (land,))
                self.stacks[at], self.stacks[land] = self.stacks[land], ""
                for j, s in zip(jumped, saved):
                    self.stacks[j] = s

        for i, s in enumerate(self.stacks):
            if s == self.turn:
                extend((i,))
        return paths

    def legal_turns(self) -> list[AlvaTurn]:
        return self._turns()

    def _turns(self, shift: tuple[str, str] | None | EllipsisType = ...) -> list[AlvaTurn]:
        """The legal turns; given ``shift`` (a shift, or ``None`` for none) only the placements
        after that shift, unless a capture is due (then every capture).  ``...``: every shift."""
        names = self.geometry.names
        captures = self._captures()
        if captures:
            return [AlvaTurn(jumps=tuple(names[i] for i in p)) for p in captures]
        if self.hands[self.turn] <= 0:
            return []
        empty = [i for i, s in enumerate(self.stacks) if not s]
        legal_shifts: list[tuple[str, str] | None] = [None] + [
            (names[src], names[dst]) for src, s in enumerate(self.stacks) if s == self.turn
            for dst in self.geometry.neighbours(src) if not self.stacks[dst]
        ]
        turns: list[AlvaTurn] = []
        for sh in legal_shifts if shift is ... else [shift] if shift in legal_shifts else []:
            if sh is None:
                targets = empty
            else:  # after the shift its start is empty and its end is taken: place anywhere empty then
                src, dst = self.geometry.index(sh[0]), self.geometry.index(sh[1])
                targets = sorted({*empty, src} - {dst})
            turns.extend(AlvaTurn(place=names[p], shift=sh) for p in targets)
        return turns

    def _apply(self, turn: AlvaTurn) -> None:
        """Play a turn.

        The give-back rule, decided: the booklet says that if the opponent also
        captures in his very next turn "he keeps them if the number of captured pieces
        for each player differs; otherwise these pieces must be given back to the player
        to whom they belong".  Read word for word only the *answering* capture goes
        back, and that is how the published descriptions play it (jpneto's World of
        Abstract Games: "these last ones are returned to the enemy"; BoardGameGeek: "the
        pieces are returned to the opponent and not placed in your captured pile").  So
        an equal capture in reply returns its pieces to their owner's hand (they are
        his pieces to place again) and the first capture stands.  The reply is compared
        with what lies beside the board, i.e. what the previous turn captured *and
        kept*: a capture that was given back leaves nothing to compare with.
        """
        g = self.geometry
        me, opp = self.turn, other(self.turn)
        if turn.jumps:
            path = [g.index(n) for n in turn.jumps]
            captured = 0
            for a, b in zip(path, path[1:]):
                d = _direction(g, a, b)
                for j in g.ray(a, d):
                    if j == b:
                        break
                    self.stacks[j] = ""
                    captured += 1
                self.stacks[a], self.stacks[b] = "", me
            if captured == self.pending_captures:
                self.hands[opp] += captured
                self.pending_captures = 0
            else:
                self.prisoners[me] += captured
                self.pending_captures = captured
        else:
            for point, stack in self._shift_and_place(turn).items():
                self.stacks[point] = stack
            self.hands[me] -= 1
            self.pending_captures = 0
        self.turn = opp

    def _shift_and_place(self, turn: AlvaTurn) -> dict[int, str]:
        """The points a turn without capture changes: index -> stack after it."""
        g = self.geometry
        out: dict[int, str] = {}
        if turn.shift:
            src, dst = (g.index(n) for n in turn.shift)
            out[src], out[dst] = "", self.turn
        out[g.index(turn.place)] = self.turn  # type: ignore[arg-type]
        return out

    def turn_results(self) -> list[tuple[AlvaTurn, dict[int, str]]]:
        """Every legal turn with the stacks it changes, for move inference: placements are
        worked out directly (thousands per position), captures played and taken back."""
        from rules.infer import played_changes

        out = []
        for turn in self.legal_turns():
            changes = played_changes(self, turn) if turn.jumps else {
                p: s for p, s in self._shift_and_place(turn).items() if s != self.stacks[p]}
            out.append((turn, changes))
        return out

    # --- end and score -------------------------------------------------------------------
    def edge_pieces(self) -> dict[Colour, int]:
        """Each colour's pieces on the edge points (each is a point for the opponent)."""
        counts: dict[Colour, int] = {WHITE: 0, BLACK: 0}
        g = self.geometry
        for i, s in enumerate(self.stacks):
            if s and len(g.neighbours(i)) < len(g.directions):
                counts[s] += 1  # type: ignore[index]
        return counts

    def score(self) -> tuple[int, int]:
        """(white, black): prisoners plus the opponent's pieces on the edge.

        >>> b = Alva()
        >>> b.set_position({"a1": "b", "e5": "b", "a5": "w"}, prisoners={WHITE: 2})
        >>> b.score()
        (3, 1)
        """
        edge = self.edge_pieces()
        return (self.prisoners[WHITE] + edge[BLACK], self.prisoners[BLACK] + edge[WHITE])

    def outcome(self) -> Outcome | None:
        """Over when the player to move can neither capture nor place.

        A shift alone is no turn (the placement after it is compulsory), so with an empty
        hand only a capture keeps a player in the game.  Captures of the last turn still
        beside the board count for their capturer: the give-back rule needs a capture in
        reply, and none can come any more."""
        if self.hands[self.turn] > 0 or self._captures():
            return None
        w, b = self.score()
        reason = f"{'white' if self.turn == WHITE else 'black'} cannot take a turn; score {w}:{b}"
        if w == b:
            return Outcome(None, draw=True, score=(w, b), reason=reason)
        return Outcome(WHITE if w > b else BLACK, score=(w, b), reason=reason)

    # --- notation --------------------------------------------------------------------------
    def turn_notation(self, turn: AlvaTurn) -> str:
        if turn.jumps:
            return "x".join(turn.jumps)
        place = turn.place or ""
        return f"{turn.shift[0]}-{turn.shift[1]},{place}" if turn.shift else place

    def parse_turn(self, text: str) -> AlvaTurn:
        t = text.strip()
        if "x" in t:
            turn = AlvaTurn(jumps=tuple(t.split("x")))
        elif "," in t:
            shift, _, place = t.partition(",")
            a, _, b = shift.partition("-")
            turn = AlvaTurn(place=place, shift=(a, b))
        else:
            turn = AlvaTurn(place=t)
        points = [*turn.jumps, *(turn.shift or ()), *([turn.place] if turn.place is not None else [])]
        bad = [p for p in points if p not in self.geometry]
        if bad or (turn.jumps and len(turn.jumps) < 2):
            raise IllegalTurn(f"{text!r} is not an Alva turn (e5, e5-e6,f7 or e5xe7...)")
        legal = self._turns(... if turn.jumps else turn.shift)
        if turn in legal:
            return turn
        if (out := self.outcome()) is not None:
            raise IllegalTurn(f"{t}: the game is over ({out.reason})")
        if legal and legal[0].jumps and not turn.jumps:
            raise IllegalTurn(f"{t}: a capture is possible, so {self.turn_notation(legal[0])} or another capture "
                              "must be played")
        raise IllegalTurn(f"{t} is not a legal turn here")


def _direction(g: Geometry, a: int, b: int) -> int:
    """The direction from point a in which point b lies on a straight line."""
    for d in range(len(g.directions)):
        if b in g.ray(a, d):
            return d
    raise ValueError(f"{g.name(b)} is not in line with {g.name(a)}")
