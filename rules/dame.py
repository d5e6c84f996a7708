"""Dame 100: international draughts on the 50 dark cells of the 10 x 10 side, FMJD rules.

Squares are named two ways: algebraically like every square-board game here (``a1`` is
White's dark left corner) and by the PDN/FMJD numbers 1-50 that draughts players use
(1 is ``b10``, top left as White sees the board; 46 is ``a1``, 50 is ``i1``).  Turns, notation and the
PDN files of :mod:`rules.pdn` use the numbers.

>>> b = Dame100()
>>> len(b.legal_turns()), b.turn_notation(b.legal_turns()[0])
(9, '31-27')
>>> b.push_notation("32-28"); b.push_notation("19-23"); b.push_notation("28x19")
DameTurn(path=(32, 28), captured=())
DameTurn(path=(19, 23), captured=())
DameTurn(path=(28, 19), captured=(23,))
>>> b["c3"], b.material()
('w', {'w': 20, 'b': 20})

The rules, as the FMJD plays them (the booklet's second half only in the raw seed copy):

* Men move one square diagonally forward and capture forward and backward.  Kings
  (shown on the board as a two-high stack, ``"ww"``/``"bb"``: the booklet crowns with
  "a second piece not in play") fly: they move and capture along a diagonal at any
  distance and may land on any empty square beyond the captured piece.
* Capturing is compulsory and the turn must take the most pieces possible (kings and
  men count the same); among equally long captures the player chooses.
* Captured pieces are removed only after the whole turn: until then they block, and
  none may be jumped twice (the same empty square may be crossed again).
* A man promotes only when its turn ENDS on the far row; passing over it during a
  capture does not promote.
* A player who cannot move (no pieces or all blocked) loses.
* Draws, FMJD Annex 1 article 6: the same position with the same player to move for the
  third time; 25 successive moves by each side (50 plies) with only kings moving and no
  capture; three pieces with at least one king against a lone king: at most 16 more
  moves each (32 plies); two pieces or one with at least one king against a lone king:
  at most 5 more moves each (10 plies).  Each endgame clock starts on the position where
  its material first appears and keeps running after later captures (so 3 v 1 turning
  into 2 v 1 ends at whichever clock runs out first; the FMJD text says the 16-move
  maximum "remains valid" after a capture).  A player who has no legal move loses even
  when a clock has just run out.  The old "lone king holds the long diagonal" clause is
  not part of the current rules and is not implemented.

Turns.  A :class:`DameTurn` is the path of squares the piece stops on (start first) plus
the squares captured, in capture order.  Two capture paths with the same start, end and
captured set leave the same position and are written the same way in PDN (``start x
end``), so they are ONE turn: :meth:`Dame100.legal_turns` lists each such turn once (its
path is the first found), and turns compare and hash by (start, end, captured set).
This is also what the camera can see (a piece leaves, a piece arrives, pieces vanish)
and how the standard perft counts (9, 81, 658, 4265, ...) are defined.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from rules.base import BLACK, COLOUR_NAMES, WHITE, AmbiguousTurn, Board, Colour, IllegalTurn, Outcome, other, register
from rules.geometry import DIAGONAL, square_cells

if TYPE_CHECKING:
    from rules.record import Record

GEOMETRY = square_cells(10, DIAGONAL, dark_only=True)
PIECES_PER_SIDE = 20

# Piece codes of the internal board (a list indexed by PDN square, 0 unused).
W_BIT, B_BIT, KING = 1, 2, 4
STACK_OF = {0: "", W_BIT: "w", B_BIT: "b", W_BIT | KING: "ww", B_BIT | KING: "bb"}
CODE_OF = {v: k for k, v in STACK_OF.items()}
SIDE_BIT: dict[str, int] = {WHITE: W_BIT, BLACK: B_BIT}


def geometry_index(square: int) -> int:
    """Index in ``GEOMETRY.names`` of PDN square 1..50 (row 1 of the numbers is rank 10).

    >>> [GEOMETRY.name(geometry_index(n)) for n in (1, 5, 46, 50)]
    ['b10', 'j10', 'a1', 'i1']
    """
    return (9 - (square - 1) // 5) * 5 + (square - 1) % 5


GI: tuple[int, ...] = (-1, *(geometry_index(n) for n in range(1, 51)))
"""PDN square -> geometry index."""
SQUARE_OF_NAME: dict[str, int] = {GEOMETRY.name(GI[n]): n for n in range(1, 51)}
NAME_OF_SQUARE: dict[int, str] = {n: name for name, n in SQUARE_OF_NAME.items()}

# Rays from every square in the geometry's DIAGONAL order NE, NW, SW, SE (N = towards
# Black, i.e. towards square 1).  White men step NE/NW, Black men SW/SE.
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = ((),) + tuple(
    tuple(tuple(SQUARE_OF_NAME[GEOMETRY.name(j)] for j in GEOMETRY.ray(GI[n], d)) for d in range(4))
    for n in range(1, 51)
)
JUMPS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((r[0], r[1]) for r in rays if len(r) >= 2) for rays in RAYS
)
"""Per square, the (jumped square, landing square) pairs of a man's capture."""
STEPS: dict[int, tuple[tuple[int, ...], ...]] = {
    W_BIT: tuple(tuple(r[0] for r in rays[:2] if r) for rays in RAYS),
    B_BIT: tuple(tuple(r[0] for r in rays[2:] if r) for rays in RAYS),
}
"""Per side and square, the squares a man moves to (forward)."""
PROMOTION_ROW: dict[int, frozenset[int]] = {W_BIT: frozenset(range(1, 6)), B_BIT: frozenset(range(46, 51))}

KING_MOVE_PLIES = 50
"""25 moves by each side with only kings moving and no capture draw the game."""


class DameTurn(NamedTuple):
    """One turn: the squares the piece stops on (start first) and the squares it captures.

    Equality and hashing use (start, end, set of captured squares) only: see the
    module docstring.  A king on e3 (38) taking the four men round it, either way round:

    >>> DameTurn((38, 29, 18, 27, 38), (33, 23, 22, 32)) == DameTurn((38, 27, 18, 29, 38), (32, 22, 23, 33))
    True
    """

    path: tuple[int, ...]
    captured: tuple[int, ...] = ()

    @property
    def start(self) -> int:
        return self.path[0]

    @property
    def end(self) -> int:
        return self.path[-1]

    def identity(self) -> tuple[int, int, frozenset[int]]:
        return self.path[0], self.path[-1], frozenset(self.captured)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DameTurn):
            return NotImplemented
        return self.identity() == other.identity()

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self.identity())


_new_turn = tuple.__new__

# Every possible move without capture, built once: generation hands out these shared values.
MAN_MOVES: dict[int, tuple[tuple[tuple[int, DameTurn], ...], ...]] = {
    side: tuple(tuple((t, DameTurn((s, t))) for t in targets) for s, targets in enumerate(steps))
    for side, steps in STEPS.items()
}
"""Per side and square, (target, turn) for each forward step of a man."""
KING_MOVES: tuple[tuple[tuple[tuple[int, DameTurn], ...], ...], ...] = tuple(
    tuple(tuple((t, DameTurn((s, t))) for t in ray) for ray in rays) for s, rays in enumerate(RAYS)
)
"""Per square and direction, (target, turn) along the ray for a king."""


def _man_captures(sq: list[int], cur: int, opp: int, path: list[int], caps: list[int],
                  out: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> None:
    """Every maximal capture sequence of a man on ``cur`` (its start square already empty)."""
    extended = False
    for over, land in JUMPS[cur]:
        if sq[over] & opp and not sq[land] and over not in caps:
            extended = True
            caps.append(over)
            path.append(land)
            _man_captures(sq, land, opp, path, caps, out)
            path.pop()
            caps.pop()
    if not extended and caps:
        out.append((tuple(path), tuple(caps)))


def _king_captures(sq: list[int], cur: int, opp: int, path: list[int], caps: list[int],
                   out: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> None:
    """Every maximal capture sequence of a flying king on ``cur`` (start square empty).

    Captured pieces stay on the board (``sq`` unchanged), so they block the ray and
    cannot be jumped twice."""
    extended = False
    for ray in RAYS[cur]:
        n = len(ray)
        i = 0
        while i < n and not sq[ray[i]]:
            i += 1
        if i >= n - 1:
            continue
        victim = ray[i]
        j = i + 1
        if not sq[victim] & opp or sq[ray[j]] or victim in caps:
            continue
        extended = True
        caps.append(victim)
        while j < n and not sq[ray[j]]:
            path.append(ray[j])
            _king_captures(sq, ray[j], opp, path, caps, out)
            path.pop()
            j += 1
        caps.pop()
    if not extended and caps:
        out.append((tuple(path), tuple(caps)))


_TURN_TEXT = re.compile(r"^\s*(?:[a-j](?:10|[1-9])|\d{1,2})(?:\s*[-x:]\s*(?:[a-j](?:10|[1-9])|\d{1,2}))+\s*$", re.I)
_SQUARE_TEXT = re.compile(r"[a-j](?:10|[1-9])|\d{1,2}", re.I)


@register
class Dame100(Board[DameTurn]):
    """International draughts (FMJD) with flying kings and majority capture."""

    name = "dame100"
    title = "Dame 100"
    geometry = GEOMETRY
    max_height = 2
    """A king is a man crowned with a second piece."""

    captured: dict[Colour, int]
    """Pieces of each colour captured so far (set beside the board)."""

    @classmethod
    def can_stand(cls, stack: str) -> bool:
        """A man, or a king: two pieces of one colour.

        >>> Dame100.can_stand("bb"), Dame100.can_stand("wb")
        (True, False)
        """
        return stack in ("w", "b", "ww", "bb")

    # --- set-up -----------------------------------------------------------------------
    def reset(self) -> None:
        """The start position: Black on squares 1-20, White on 31-50, White to move."""
        self.stacks = [""] * len(self.geometry)
        for n in range(1, 21):
            self.stacks[GI[n]] = "b"
        for n in range(31, 51):
            self.stacks[GI[n]] = "w"
        self.turn = WHITE
        self.ply = 0
        self.move_stack.clear()
        self._undo.clear()
        self._load()

    def set_position(self, points: dict[str, str], turn: Colour | None = None) -> None:
        """Set up a position (algebraic names; kings as ``"ww"``/``"bb"``); history is cleared.

        Pieces missing from a side's 20 count as captured.

        >>> b = Dame100(); b.set_position({"e1": "ww", "g3": "b"}, turn="w")
        >>> [b.turn_notation(t) for t in b.legal_turns()], b.material()
        (['48x34', '48x30', '48x25'], {'w': 20, 'b': 20})
        """
        super().set_position(points, turn)
        self.ply = 0
        self._load()

    def _load(self) -> None:
        """Build the fast internal state from ``stacks`` and ``turn``."""
        sq = [0] * 51
        pieces: dict[int, set[int]] = {W_BIT: set(), B_BIT: set()}
        for n in range(1, 51):
            stack = self.stacks[GI[n]]
            if stack not in CODE_OF:
                raise ValueError(f"square {NAME_OF_SQUARE[n]} holds {stack!r}: a Dame 100 square is "
                                 "empty, a man ('w', 'b') or a king ('ww', 'bb')")
            sq[n] = CODE_OF[stack]
            if sq[n] in (W_BIT, B_BIT) and n in PROMOTION_ROW[sq[n]]:
                raise ValueError(f"a {COLOUR_NAMES[COLOUR_OF_BIT[sq[n]]]} man on square {n} ({NAME_OF_SQUARE[n]}) "
                                 f"would have been crowned: a man on the far row is a king ({stack * 2!r})")
            if sq[n]:
                pieces[sq[n] & 3].add(n)
        for bit, colour in ((W_BIT, WHITE), (B_BIT, BLACK)):
            if len(pieces[bit]) > PIECES_PER_SIDE:
                raise ValueError(f"{COLOUR_NAMES[colour]} has {len(pieces[bit])} pieces; at most {PIECES_PER_SIDE}")
        sq[0] = SIDE_BIT[self.turn]
        self._sq = sq
        self._pieces = pieces
        self.captured = {WHITE: PIECES_PER_SIDE - len(pieces[W_BIT]), BLACK: PIECES_PER_SIDE - len(pieces[B_BIT])}
        self._king_plies = 0
        self._endgame = self._endgame_clocks((-1, -1), fresh=True)
        self._reversible: list[tuple[int, ...]] = []

    # --- move generation --------------------------------------------------------------
    def _generate(self, every_path: bool = False) -> list[DameTurn]:
        """The legal turns ignoring draws.  ``every_path`` keeps equivalent capture paths."""
        sq = self._sq
        me = SIDE_BIT[self.turn]
        opp = me ^ 3
        steps = MAN_MOVES[me]
        found: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        quiet: list[DameTurn] = []
        for s in sorted(self._pieces[me]):  # one pass: captures, and quiet moves until one is found
            p = sq[s]
            if p & KING:
                sq[s] = 0
                _king_captures(sq, s, opp, [s], [], found)
                sq[s] = p
                if not found:
                    for ray in KING_MOVES[s]:
                        for t, turn in ray:
                            if sq[t]:
                                break
                            quiet.append(turn)
                continue
            for over, land in JUMPS[s]:  # cheap test first: most men cannot capture
                if sq[over] & opp and not sq[land]:
                    sq[s] = 0
                    _man_captures(sq, s, opp, [s], [], found)
                    sq[s] = p
                    break
            else:
                if not found:
                    for t, turn in steps[s]:
                        if not sq[t]:
                            quiet.append(turn)
        if not found:
            return quiet
        most = max(len(c) for _, c in found)
        turns = [_new_turn(DameTurn, f) for f in found if len(f[1]) == most]
        return turns if every_path else list(dict.fromkeys(turns))

    def legal_turns(self) -> list[DameTurn]:
        """Every legal turn (majority capture applied; empty when the game is over)."""
        if (self._king_plies or self._endgame != (-1, -1)) and self._draw_reason() is not None:
            return []
        return self._generate()

    # --- playing ----------------------------------------------------------------------
    def push(self, turn: DameTurn) -> None:
        """Play a legal turn (fast path; the generic snapshot would be too slow for perft)."""
        path, caps = turn
        sq = self._sq
        stacks = self.stacks
        s, e = path[0], path[-1]
        p = sq[s]
        me = p & 3
        opp = me ^ 3
        taken = tuple(sq[c] for c in caps)
        key = tuple(sq) if p & KING and not caps else None
        sq[s] = 0
        stacks[GI[s]] = ""
        if caps:
            opp_pieces = self._pieces[opp]
            for c in caps:
                sq[c] = 0
                stacks[GI[c]] = ""
                opp_pieces.discard(c)
            self.captured[COLOUR_OF_BIT[opp]] += len(caps)
        moved = p | KING if not p & KING and e in PROMOTION_ROW[me] else p
        sq[e] = moved
        stacks[GI[e]] = STACK_OF[moved]
        own = self._pieces[me]
        own.discard(s)
        own.add(e)
        # The last item: the king move's position key, or the reversible keys a capture or a
        # man's move ends (pop tells them apart).
        undo: tuple[int, tuple[int, ...], int, tuple[int, int], tuple[int, ...] | list[tuple[int, ...]] | None]
        undo = (p, taken, self._king_plies, self._endgame, key)
        if key is not None:
            self._reversible.append(key)
            self._king_plies += 1
        else:
            undo = (p, taken, self._king_plies, self._endgame, self._reversible)
            self._reversible = []
            self._king_plies = 0
        sq[0] = opp
        if self._endgame != (-1, -1) or len(self._pieces[opp]) + len(own) <= 4:
            self._endgame = self._endgame_clocks(self._endgame, fresh=False)
        self._undo.append(undo)
        self.move_stack.append(turn)
        self.ply += 1
        self.turn = COLOUR_OF_BIT[opp]

    def pop(self) -> DameTurn:
        """Take back the last turn."""
        if not self.move_stack:
            raise IndexError("no turn to take back")
        turn = self.move_stack.pop()
        p, taken, self._king_plies, self._endgame, reversible = self._undo.pop()
        path, caps = turn
        sq = self._sq
        stacks = self.stacks
        s, e = path[0], path[-1]
        me = p & 3
        sq[e] = 0
        stacks[GI[e]] = ""
        sq[s] = p
        stacks[GI[s]] = STACK_OF[p]
        own = self._pieces[me]
        own.discard(e)
        own.add(s)
        if caps:
            opp_pieces = self._pieces[me ^ 3]
            for c, q in zip(caps, taken):
                sq[c] = q
                stacks[GI[c]] = STACK_OF[q]
                opp_pieces.add(c)
            self.captured[COLOUR_OF_BIT[me ^ 3]] -= len(caps)
        if isinstance(reversible, list):
            self._reversible = reversible
        else:
            self._reversible.pop()
        sq[0] = me
        self.ply -= 1
        self.turn = COLOUR_OF_BIT[me]
        return turn

    def _apply(self, turn: DameTurn) -> None:  # pragma: no cover - push is overridden
        raise NotImplementedError("Dame100.push plays turns directly")

    # --- for move inference ---------------------------------------------------------------
    def partial_chains(self, turn: DameTurn, changes: dict[int, str]) -> list[list[tuple[dict[int, str], str]]]:
        """How a player carries out ``turn`` on the real board, for move inference.

        The piece is lifted and hops along its path (each stop a step, the last one
        crowned if it promotes); then the captured pieces are lifted, in any order (FMJD: only after
        the whole move).  Of capture paths with the same start, end and captured pieces
        only the one :meth:`legal_turns` lists is followed.

        >>> b = Dame100()
        >>> b.set_position({"c3": "w", "d4": "b", "d6": "b"}, turn="w")
        >>> [[text for _, text in chain] for chain in b.partial_chains(b.legal_turns()[0], {})]
        [['lift the piece on 37', '37x28', '28x17'], ['remove 32'], ['remove 22']]
        """
        piece = self.stacks[GI[turn.start]]
        hops = list(zip(turn.path, turn.path[1:]))
        sign = "x" if turn.captured else "-"
        moving = [({GI[turn.start]: ""}, f"lift the piece on {turn.start}")]
        moving += [({GI[a]: "", GI[b]: changes.get(GI[b], piece) if k == len(hops) - 1 else piece},
                    f"{a}{sign}{b}") for k, (a, b) in enumerate(hops)]
        return [moving, *([({GI[c]: ""}, f"remove {c}")] for c in turn.captured)]

    # --- end of the game --------------------------------------------------------------
    def _endgame_clocks(self, clocks: tuple[int, int], fresh: bool) -> tuple[int, int]:
        """Advance the (16-move, 5-move) endgame clocks by one ply and start new ones.

        Remaining plies, -1 for a clock not started.  ``fresh`` starts clocks on a
        set-up position without advancing."""
        a, b = clocks
        if not fresh:
            a = max(0, a - 1) if a >= 0 else -1
            b = max(0, b - 1) if b >= 0 else -1
        pieces = self._pieces
        if len(pieces[W_BIT]) + len(pieces[B_BIT]) <= 4:
            sq = self._sq
            for lone, strong in ((W_BIT, B_BIT), (B_BIT, W_BIT)):
                if len(pieces[lone]) == 1 and all(sq[n] & KING for n in pieces[lone]) \
                        and any(sq[n] & KING for n in pieces[strong]):
                    count = len(pieces[strong])
                    if count == 3 and a < 0:
                        a = 32
                    if count <= 2 and b < 0:
                        b = 10
        return a, b

    def _draw_reason(self) -> str | None:
        """Why the position is a draw by rule, or ``None`` (the side to move's moves not checked)."""
        if self._king_plies >= KING_MOVE_PLIES:
            return "25 moves each with only kings moving and no capture"
        if self._endgame[0] == 0:
            return "16 moves each in three pieces with a king against a lone king"
        if self._endgame[1] == 0:
            return "5 moves each in two pieces or one with a king against a lone king"
        if len(self._reversible) >= 4 and self._reversible.count(tuple(self._sq)) >= 2:
            return "threefold repetition"
        return None

    def outcome(self) -> Outcome | None:
        """A loss for the side that cannot move (this wins over a draw clock), else a rule draw.

        >>> b = Dame100(); b.set_position({"a1": "w", "b2": "b", "c3": "b"}, turn="w")
        >>> b.outcome().reason
        'white cannot move'
        """
        if not self._generate():
            loser = self.turn
            why = "has no pieces left" if not self._pieces[SIDE_BIT[loser]] else "cannot move"
            return Outcome(other(loser), reason=f"{COLOUR_NAMES[loser]} {why}")
        reason = self._draw_reason()
        return Outcome(None, draw=True, reason=reason) if reason else None

    def material(self) -> dict[Colour, int]:
        """Pieces in play on the board (a king is one piece: its crown is not in play) plus
        the pieces captured; always 20 each for a game started from the start position."""
        return {WHITE: len(self._pieces[W_BIT]) + self.captured[WHITE],
                BLACK: len(self._pieces[B_BIT]) + self.captured[BLACK]}

    # --- notation ---------------------------------------------------------------------
    def turn_notation(self, turn: DameTurn) -> str:
        """PDN notation: ``32-28``, ``19x28``; the full path ``19x30x39`` only where two legal
        captures share start and end square (so the text always names one turn)."""
        if not turn.captured:
            return f"{turn.start}-{turn.end}"
        twins = [t for t in self._generate() if t.captured and t.start == turn.start and t.end == turn.end]
        if len(twins) > 1:
            return "x".join(map(str, turn.path))
        return f"{turn.start}x{turn.end}"

    def parse_turn(self, text: str) -> DameTurn:
        """The legal turn written ``text``: PDN numbers (``32-28``, ``19x28``, full capture
        paths ``26x37x48``, ``:`` for ``x``) or algebraic names (``c3-d4``, ``c3xe5``).

        The squares name the turn; ``-`` or ``x`` between them is not held against it, as
        published records now and then write a capture ``30-39`` or a move ``38x33`` (two of
        the 16 games of the PDN standard's test file ``PROF2.pdn``) and either way only one
        legal turn goes there: captures are compulsory.

        >>> b = Dame100(); b.parse_turn("d4-e5"), b.parse_turn("33 - 28")
        (DameTurn(path=(32, 28), captured=()), DameTurn(path=(33, 28), captured=()))
        >>> b.parse_turn("33x28") == b.parse_turn("33-28")
        True
        """
        if not _TURN_TEXT.match(text):
            raise IllegalTurn(f"cannot read {text!r}: write a move as 32-28 or c3-d4 and a capture as 19x28")
        squares = [self._square(t) for t in _SQUARE_TEXT.findall(text)]
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalTurn(f"the game is over ({outcome.reason})")
        legal = self.legal_turns()
        if not legal or not legal[0].captured:
            turn = DameTurn((squares[0], squares[1]))
            if len(squares) == 2 and turn in legal:
                return turn
            raise IllegalTurn(self._why_not(text, legal))
        pool = self._generate(every_path=True) if len(squares) > 2 else legal
        matches = list(dict.fromkeys(t for t in pool if t.captured and _follows(t.path, squares)))
        if len(matches) == 1:
            return legal[legal.index(matches[0])]
        if len(matches) > 1:
            names = ", ".join("x".join(map(str, t.path)) for t in matches)
            raise AmbiguousTurn(f"{text!r} is ambiguous: it can be {names} (write the whole path)",
                                [legal[legal.index(t)] for t in matches if t in legal])
        raise IllegalTurn(self._why_not(text, legal))

    def _square(self, token: str) -> int:
        if token[0].isdigit():
            n = int(token)
            if not 1 <= n <= 50:
                raise IllegalTurn(f"square {n} does not exist: squares are numbered 1 to 50")
            return n
        try:
            return SQUARE_OF_NAME[token.lower()]
        except KeyError:
            raise IllegalTurn(f"{token} is a light square: Dame 100 is played on the dark squares") from None

    def _why_not(self, text: str, legal: list[DameTurn]) -> str:
        if not legal:
            return f"{text!r} is not legal: {COLOUR_NAMES[self.turn]} has no legal turn"
        shown = [self.turn_notation(t) for t in legal[:12]]
        more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
        if legal[0].captured:
            most = len(legal[0].captured)
            return (f"{text!r} is not legal: capturing is compulsory and must take the most pieces "
                    f"({most}): {', '.join(shown)}{more}")
        return f"{text!r} is not legal here; legal turns: {', '.join(shown)}{more}"

    # --- records ------------------------------------------------------------------------
    @classmethod
    def read_record(cls, text: str) -> "Record":
        """The first game of a PDN text (see :mod:`rules.pdn`), which must start from the start."""
        from rules.pdn import read_standard_game

        return read_standard_game(text)

    @classmethod
    def read_records(cls, text: str) -> "list[Record]":
        """Every game of a PDN text, set-up positions (FEN tags) included.

        >>> [len(r.turns) for r in Dame100.read_records('1. 32-28 * [FEN "W:W33:B12"] 1. 33-28 *')]
        [1, 1]
        """
        from rules.pdn import read_games

        return list(read_games(text))

    @classmethod
    def from_record(cls, record: "Record") -> "Dame100":
        """The board a PDN game starts from: its FEN tag's position, or the start position
        (:func:`rules.pdn.start_board`; a game of another GameType is refused)."""
        from rules.pdn import start_board

        return start_board(record)

    @classmethod
    def write_record(cls, record: "Record") -> str:
        """A record as a PDN game."""
        from rules.pdn import write_game

        return write_game(record)


COLOUR_OF_BIT: dict[int, Colour] = {W_BIT: WHITE, B_BIT: BLACK}


def _follows(path: tuple[int, ...], squares: list[int]) -> bool:
    """Whether ``squares`` names ``path``: same start and end, the rest in order along it.

    >>> _follows((26, 37, 48), [26, 48]), _follows((26, 37, 48), [26, 37, 48]), _follows((26, 37, 48), [26, 41, 48])
    (True, True, False)
    """
    if path[0] != squares[0] or path[-1] != squares[-1]:
        return False
    it = iter(path[1:-1])
    return all(s in it for s in squares[1:-1])
