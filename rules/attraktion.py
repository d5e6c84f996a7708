"""Attraktion (Jaroslav Cichocki's *JC Attract*): place a piece, and it pulls its row and column.

A turn places one of the mover's pieces on any empty cell; then the new piece
*attracts*: outward from it, nearest first, along its row and its column (never
diagonally), every piece of either colour moves one cell toward the new piece when
the cell it would enter is empty at that moment.  Working nearest first lets a train
of pieces follow one another; a piece already next to the new piece stays.

After every turn each player's *winning patterns* are counted: one's own piece whose
4 diagonal neighbours are all opposing pieces.  More patterns wins; a tie (also 0:0)
plays on.  A piece on the edge has fewer than 4 diagonal neighbours, so it is never a
pattern.

Notation: the cell the piece was placed on, e.g. ``e5`` (the attraction follows from
the position, so it is not written).

>>> b = Attraktion()
>>> for cell in ("a1", "a5", "a3"):
...     b.push_notation(cell)
'a1'
'a5'
'a3'
>>> b["a1"], b["a2"], b["a3"], b["a4"], b["a5"]
('', 'w', 'w', 'b', '')
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from rules.base import BLACK, COLOUR_NAMES, WHITE, Board, Colour, IllegalTurn, Outcome, other, register
from rules.geometry import Geometry, square_cells

Shift = tuple[str, str]
"""One piece moving one cell: (from, to) point names."""


def attraction(geometry: Geometry, stacks: list[str], at: int) -> list[tuple[int, int]]:
    """The single-piece shifts the piece just placed on point ``at`` causes, in order.

    ``stacks`` is the board with the new piece already on ``at`` (it is not changed).
    Returns (from, to) point indices in the order they happen: by distance from
    ``at``, nearest first; at equal distance in the geometry's direction order (E, N,
    W, S).  Pieces in different directions never interact, so only the order inside
    one direction matters (a follower moves after the piece ahead of it).

    >>> g = square_cells(10)
    >>> board = [""] * len(g)
    >>> for name, s in {"e5": "w", "e7": "b", "e8": "w", "h5": "b"}.items():
    ...     board[g.index(name)] = s
    >>> [(g.name(a), g.name(b)) for a, b in attraction(g, board, g.index("e5"))]
    [('e7', 'e6'), ('h5', 'g5'), ('e8', 'e7')]
    """
    occupied = [bool(s) for s in stacks]
    rays = [geometry.ray(at, d) for d in range(len(geometry.directions))]
    shifts: list[tuple[int, int]] = []
    for k in range(1, max(map(len, rays), default=0)):
        for ray in rays:
            if k < len(ray) and occupied[ray[k]] and not occupied[ray[k - 1]]:
                shifts.append((ray[k], ray[k - 1]))
                occupied[ray[k]], occupied[ray[k - 1]] = False, True
    return shifts


def _trains(shifts: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Group shifts into trains: a shift whose target the previous one of the train vacated follows it."""
    trains: list[list[tuple[int, int]]] = []
    by_source: dict[int, list[tuple[int, int]]] = {}
    for s in shifts:
        train = by_source.pop(s[1], None)
        if train is None:
            train = []
            trains.append(train)
        train.append(s)
        by_source[s[0]] = train
    return trains


@lru_cache(maxsize=None)
def _diagonal_neighbours(geometry: Geometry) -> tuple[tuple[int, ...] | None, ...]:
    """Each cell's 4 diagonal neighbours (reached by two orthogonal steps), or ``None`` on the edge."""
    out: list[tuple[int, ...] | None] = []
    n = len(geometry.directions)
    for i in range(len(geometry)):
        diag = []
        for d in range(n):
            a = geometry.step(i, d)
            diag.append(geometry.step(a, (d + 1) % n) if a >= 0 else -1)
        out.append(tuple(diag) if min(diag) >= 0 else None)
    return tuple(out)


def winning_patterns(geometry: Geometry, stacks: list[str]) -> dict[Colour, int]:
    """How many winning patterns each colour has: own piece, all 4 diagonal neighbours opposing.

    >>> g = square_cells(8)
    >>> board = [""] * len(g)
    >>> for name in ("c3", "e3", "c5", "e5"):
    ...     board[g.index(name)] = "b"
    >>> board[g.index("d4")] = "w"
    >>> winning_patterns(g, board)
    {'w': 1, 'b': 0}
    """
    counts: dict[Colour, int] = {WHITE: 0, BLACK: 0}
    for i, diag in enumerate(_diagonal_neighbours(geometry)):
        own = stacks[i]
        if diag is not None and own:
            opp = other(own)  # type: ignore[arg-type]
            if all(stacks[j] == opp for j in diag):
                counts[own] += 1  # type: ignore[index]
    return counts


@register
class Attraktion(Board[str]):
    """Attraktion on the 10 x 10 cells, 50 pieces each, White first.  A turn is a cell name.

    End of the game: a player wins as soon as he has more winning patterns than the
    opponent after a turn (the mover's turn can also win the game for the opponent).
    The booklet does not say what happens when no one has won by the time the board
    is full.  Every turn adds exactly one piece, so the board fills up exactly when both
    hands are empty (after 100 turns here, 64 on 8 x 8); then no turn is possible and,
    the patterns being tied, we call the game a **draw**: the rule "a tie plays on"
    cannot apply any more, and nothing in the rules favours either player.
    """

    name = "attraktion"
    title = "Attraktion"
    geometry = square_cells(10)
    pieces_each: ClassVar[int] = 50

    def reset(self) -> None:
        self.stacks = [""] * len(self.geometry)
        self.turn = WHITE
        self.hands = {WHITE: self.pieces_each, BLACK: self.pieces_each}

    def set_position(self, points: dict[str, str], turn: Colour | None = None) -> None:
        """Put pieces on the board; each hand holds the pieces of that colour not on it."""
        super().set_position(points, turn)
        on_board = {c: sum(s.count(c) for s in self.stacks) for c in (WHITE, BLACK)}
        if any(len(s) > 1 for s in self.stacks) or max(on_board.values()) > self.pieces_each:
            raise ValueError(f"Attraktion has single pieces only, at most {self.pieces_each} of each colour")
        self.hands = {c: self.pieces_each - on_board[c] for c in (WHITE, BLACK)}

    def legal_turns(self) -> list[str]:
        if self.hands[self.turn] <= 0 or self.outcome() is not None:
            return []
        return [n for n, s in zip(self.geometry.names, self.stacks) if not s]

    def _apply(self, turn: str) -> None:
        at = self.geometry.index(turn)
        self.stacks[at] = self.turn
        for src, dst in attraction(self.geometry, self.stacks, at):
            self.stacks[dst], self.stacks[src] = self.stacks[src], ""
        self.hands[self.turn] -= 1
        self.turn = other(self.turn)

    def patterns(self) -> dict[Colour, int]:
        """Each colour's winning patterns on the current board."""
        return winning_patterns(self.geometry, self.stacks)

    def outcome(self) -> Outcome | None:
        p = self.patterns()
        if p[WHITE] != p[BLACK]:
            winner = WHITE if p[WHITE] > p[BLACK] else BLACK
            return Outcome(winner, reason=f"winning patterns {p[WHITE]}:{p[BLACK]}")
        if self.hands[self.turn] <= 0 or all(self.stacks):
            return Outcome(None, draw=True, reason=f"board full, winning patterns tied {p[WHITE]}:{p[BLACK]}")
        return None

    def turn_notation(self, turn: str) -> str:
        return turn

    def parse_turn(self, text: str) -> str:
        cell = text.strip()
        if cell not in self.geometry:
            raise IllegalTurn(f"{text!r} is not a cell of the {self.title} board")
        if cell not in self.legal_turns():
            why = "the game is over" if self.is_game_over() else f"{cell} is occupied"
            raise IllegalTurn(f"cannot place on {cell}: {why}")
        return cell

    # --- for move inference: the attraction one piece at a time ------------------------
    def shifts(self, turn: str) -> list[Shift]:
        """The single-piece shifts ``turn`` causes in this position, in the order they happen.

        >>> b = Attraktion()
        >>> b.set_position({"c4": "b", "c5": "w", "a2": "w"}, turn=WHITE)
        >>> b.shifts("c2")
        [('c4', 'c3'), ('a2', 'b2'), ('c5', 'c4')]
        """
        return [(self.geometry.name(a), self.geometry.name(b)) for a, b in self._shift_indices(turn)]

    def trains(self, turn: str) -> list[list[Shift]]:
        """The shifts of ``turn`` grouped the way players can carry them out.

        Inside a train each piece follows the one ahead of it into the cell it left, so
        its shifts happen in order; different trains (other lines, or gaps in one line)
        are independent and may be done in any order.

        >>> b = Attraktion()
        >>> b.set_position({"c4": "b", "c5": "w", "c7": "w", "h2": "b"}, turn=WHITE)
        >>> b.trains("c2")
        [[('c4', 'c3'), ('c5', 'c4')], [('h2', 'g2')], [('c7', 'c6')]]
        """
        name = self.geometry.name
        return [[(name(a), name(b)) for a, b in train] for train in _trains(self._shift_indices(turn))]

    def _shift_indices(self, turn: str) -> list[tuple[int, int]]:
        at = self.geometry.index(turn)
        placed = list(self.stacks)
        placed[at] = self.turn
        return attraction(self.geometry, placed, at)

    def partial_chains(self, turn: str, changes: dict[int, str]) -> list[list[tuple[dict[int, str], str]]]:
        """How players carry out ``turn``, for move inference: the placement, then every
        train of attracted pieces as its own chain of shifts (a follower moves once the
        piece ahead of it has; different trains and lines in any order).

        >>> b = Attraktion()
        >>> b.set_position({"c4": "b", "c5": "w", "h2": "b"}, turn=WHITE)
        >>> [[text for _, text in chain] for chain in b.partial_chains("c2", {})]
        [['place white on c2'], ['c4-c3', 'c5-c4'], ['h2-g2']]
        """
        names = self.geometry.names
        placing: list[tuple[dict[int, str], str]] = [
            ({self.geometry.index(turn): self.turn}, f"place {COLOUR_NAMES[self.turn]} on {turn}")]
        return [placing, *([({src: "", dst: self.stacks[src]}, f"{names[src]}-{names[dst]}") for src, dst in train]
                           for train in _trains(self._shift_indices(turn)))]

    def attraction_boards(self, turn: str) -> list[dict[str, str]]:
        """Every board a player's hands pass through while playing ``turn``, one shift at a time.

        The first is the board just after the placement, the last the board after the
        whole turn; each one in between differs from the previous by one shift of
        :meth:`shifts`.
        """
        stacks = list(self.stacks)
        stacks[self.geometry.index(turn)] = self.turn
        boards = [dict(zip(self.geometry.names, stacks))]
        for src, dst in self._shift_indices(turn):
            stacks[dst], stacks[src] = stacks[src], ""
            boards.append(dict(zip(self.geometry.names, stacks)))
        return boards

    def pending_shifts(self, turn: str, seen: dict[str, str]) -> list[Shift] | None:
        """The shifts of ``turn`` still to do when the camera sees ``seen`` mid-turn.

        ``seen`` is an observation (point -> stack, ``?`` for an unreadable colour; a
        point missing from it counts as unreadable).  A player may move the pieces of
        different lines, and of different trains in one line, in any order, but inside
        a train a piece can only follow once the one ahead of it has moved.  Returns the
        remaining shifts in :meth:`shifts` order (``[]`` when the attraction is
        complete), or ``None`` when ``seen`` is no stage of this turn's attraction.

        >>> b = Attraktion()
        >>> b.set_position({"c4": "b", "c5": "w", "h2": "b"}, turn=WHITE)
        >>> b.shifts("c2")
        [('c4', 'c3'), ('c5', 'c4'), ('h2', 'g2')]
        >>> half = {"c2": "w", "c3": "b", "c4": "", "c5": "w", "h2": "b"}
        >>> b.pending_shifts("c2", half)
        [('c5', 'c4'), ('h2', 'g2')]
        >>> b.pending_shifts("c2", {**half, "c3": "w"}) is None
        True
        """
        names = self.geometry.names
        stacks = list(self.stacks)
        stacks[self.geometry.index(turn)] = self.turn

        def fits(i: int, expected: str) -> bool:
            return self.stack_fits(expected, seen.get(names[i], "?" * len(expected)))

        involved: set[int] = set()
        remaining: set[tuple[int, int]] = set()
        shifts = self._shift_indices(turn)
        for train in _trains(shifts):
            # cells[0] is the empty cell the train enters, cells[j] the start of its j-th piece;
            # after i shifts the first i pieces sit one cell forward and cells[i] is the one hole.
            # Where unreadable colours allow several stages the earliest is taken.
            cells = [train[0][1]] + [src for src, _ in train]
            involved.update(cells)
            colours = [stacks[c] for c in cells[1:]]
            stage = next((i for i in range(len(train) + 1)
                          if all(map(fits, cells, colours[:i] + [""] + colours[i:]))), None)
            if stage is None:
                return None
            remaining.update(train[stage:])
        if not all(fits(i, s) for i, s in enumerate(stacks) if i not in involved):
            return None
        return [(names[a], names[b]) for a, b in shifts if (a, b) in remaining]


@register
class Attraktion8x8(Attraktion):
    """Attraktion on the middle 8 x 8 cells with 32 pieces each (the booklet's learning board)."""

    name = "attraktion-8x8"
    title = "Attraktion 8x8"
    geometry = square_cells(8)
    pieces_each = 32
