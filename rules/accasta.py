"""Accasta (Pari), Dieter Stein's first stacking game, as printed in the tactic blue booklet.

Each player has 20 plain pieces.  White starts with 3-stacks on a1..a4, 2-stacks on
b2..b4 and single pieces on c3 and c4; Black mirrors this on g1..g4, f2..f4, e3, e4.
Those nine points are the player's *castle*.  A stack belongs to the owner of its top
piece (the *controlling* piece).

A turn is one to three *moves*, all departing from the same point (the turn's
*origin*).  A move takes the top ``count`` pieces of the origin stack in a straight
line over empty points onto any point (empty or not) at a distance of at most the
move's *range*: the number of the mover's own pieces in the origin stack before that
move.  No stack may hold more than three pieces of either colour.  The turn may go on
only while the origin's new top piece is the mover's own; leaving an opponent's piece
on top (a *release*) ends it, and a release is forbidden on a point of the mover's own
castle.  A player wins with three or more controlling pieces in the opponent's castle,
or when the opponent cannot make a legal turn.

Decisions where the booklet leaves room (see also ../shared/rules-notes.md):

* **The win is decided right after the turn that makes it** (booklet: "the first
  player able to place 3 controlling pieces ... wins"; Vying, co-written by the
  designer, does the same).  AbstractPlay follows a later rule update that waits for
  the opponent's reply; we do not.
* **An omitted count means one piece** ("a 1 may be omitted"), not the whole stack.
* ``-`` is the generic move sign: it is accepted onto any point when reading, while a
  written ``+`` (onto one's own stack) or ``x`` (onto the opponent's) must be true.
  Written notation always uses the specific sign, as the booklet's game does.
* A later move of a turn may land where an earlier one landed (both peers allow it).

Turns
-----
A turn is an :class:`AccastaTurn` ``(origin, moves)``: ``origin`` a point index and
``moves`` a tuple of ``(count, destination index)``.  Every prefix of a legal turn that
ends at a point where the player could stop is itself a legal turn, so the
move-inference module can treat turns as a tree: turn B *extends* turn A when they
share the origin and ``A.moves`` is a proper prefix of ``B.moves`` (see
:meth:`AccastaTurn.extends`).  Different turns can leave the same position (with
single-coloured stacks ``a1:2-b1`` and ``a1:-b1,+b1`` both put two pieces on b1), so a
camera that sees only the result cannot always tell which was played; ``legal_turns``
lists them all.

>>> board = Accasta()
>>> board.push_notation("b4:2-c5")
AccastaTurn(origin=7, moves=((2, 13),))
>>> board["c5"], board["b4"], board.turn
('ww', '', 'b')
>>> board.turn_notation(board.parse_turn("f2 : 1 + f3 , + e3"))
'f2:+f3,+e3'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from rules.base import BLACK, COLOUR_NAMES, WHITE, Board, Colour, IllegalTurn, Outcome, other, register
from rules.geometry import hex_geometry
from rules.stacking import point_index

GEOMETRY = hex_geometry()
MAX_MOVES = 3
"""Moves per turn at most."""
MAX_PER_COLOUR = 3
"""Pieces of one colour a stack may hold at most."""
WIN_COUNT = 3
"""Controlling pieces in the opponent's castle that win."""

START: dict[Colour, dict[str, str]] = {
    WHITE: {"a1": "www", "a2": "www", "a3": "www", "a4": "www", "b2": "ww", "b3": "ww", "b4": "ww",
            "c3": "w", "c4": "w"},
    BLACK: {"g1": "bbb", "g2": "bbb", "g3": "bbb", "g4": "bbb", "f2": "bb", "f3": "bb", "f4": "bb",
            "e3": "b", "e4": "b"},
}
CASTLE: dict[Colour, frozenset[int]] = {c: frozenset(GEOMETRY.index(p) for p in START[c]) for c in (WHITE, BLACK)}
"""Each player's castle: the nine points the player starts on."""

Move = tuple[int, int]
"""One move of a turn: (number of pieces carried, destination point index)."""


class AccastaTurn(NamedTuple):
    """One complete turn: the origin point and its moves in order.

    A tuple underneath, so it is immutable, hashable and cheap to build (the
    generator makes thousands per position).

    >>> a = AccastaTurn(0, ((1, 4),))
    >>> AccastaTurn(0, ((1, 4), (2, 9))).extends(a), a.extends(a)
    (True, False)
    """

    origin: int
    moves: tuple[Move, ...]

    def extends(self, prefix: "AccastaTurn") -> bool:
        """Whether this turn continues ``prefix``: same origin, ``prefix.moves`` a proper prefix."""
        n = len(prefix.moves)
        return self.origin == prefix.origin and len(self.moves) > n and self.moves[:n] == prefix.moves


_new_turn = tuple.__new__
"""Builds an :class:`AccastaTurn` without the keyword handling of its constructor (the generator's hot path)."""
_RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(GEOMETRY.ray(p, d)) for d in range(len(GEOMETRY.directions))) for p in range(len(GEOMETRY)))
"""Every point's straight lines to the edge, one per direction."""

_TURN = re.compile(r"^([a-z]\d+):(.+)$")
_MOVE = re.compile(r"^(\d*)([-+x])([a-z]\d+)$")
_HOLDS = {"-": "nothing", "+": "the mover's own stack", "x": "an opponent's stack"}
_SIGNS = str.maketrans({"×": "x", "X": "x", "–": "-", "—": "-"})


@register
class Accasta(Board[AccastaTurn]):
    """Accasta Pari on the hex side (see the module docstring for the rules and decisions)."""

    name = "accasta"
    title = "Accasta (Pari)"
    geometry = GEOMETRY
    max_height = 2 * MAX_PER_COLOUR
    discs_per_player = sum(map(len, START[WHITE].values()))

    @classmethod
    def can_stand(cls, stack: str) -> bool:
        """At most ``MAX_PER_COLOUR`` pieces of each colour, in any order.

        >>> Accasta.can_stand("wbbwwb"), Accasta.can_stand("wwww")
        (True, False)
        """
        return (super().can_stand(stack) and stack.count(WHITE) <= MAX_PER_COLOUR
                and stack.count(BLACK) <= MAX_PER_COLOUR)

    def reset(self) -> None:
        self.set_position({**START[WHITE], **START[BLACK]}, WHITE)
        self.ply = 0

    # --- turns ------------------------------------------------------------------------
    def legal_turns(self) -> list[AccastaTurn]:
        """Every legal complete turn, shorter turns before the turns extending them.

        A depth-first walk over the moves from each controlled point that plays every
        move on ``self.stacks`` in place and undoes it (strings are immutable, so undo
        is two assignments); no position is copied."""
        if self._castle_winner() is not None:
            return []
        out: list[AccastaTurn] = []
        me = self.turn
        for origin, stack in enumerate(self.stacks):
            if stack and stack[-1] == me:
                self._extend(origin, (), me, origin in CASTLE[me], out)
        return out

    def _extend(self, origin: int, done: tuple[Move, ...], me: Colour, own_castle: bool,
                out: list[AccastaTurn]) -> None:
        """Append every turn made of ``done`` plus one or more further moves from ``origin``."""
        stacks = self.stacks
        source = stacks[origin]
        height = len(source)
        reach = source.count(me)
        may_go_on = len(done) + 1 < MAX_MOVES
        # What carrying 1..height pieces means, the same for every destination:
        # (count, pieces carried, what is left, white and black pieces carried, may go on).
        loads = []
        carried_w = carried_b = 0
        for count in range(1, height + 1):
            if source[height - count] == WHITE:
                carried_w += 1
            else:
                carried_b += 1
            left = source[:height - count]
            released = bool(left) and left[-1] != me
            if released and own_castle:
                continue  # no release in one's own castle
            loads.append((count, source[height - count:], left, carried_w, carried_b,
                          may_go_on and bool(left) and not released))
        new_turn = _new_turn
        for ray in _RAYS[origin]:
            for dest in ray[:reach]:
                target = stacks[dest]
                room_w = MAX_PER_COLOUR - target.count(WHITE)
                room_b = MAX_PER_COLOUR - target.count(BLACK)
                for count, carried, left, carried_w, carried_b, go_on in loads:
                    if carried_w > room_w or carried_b > room_b:
                        break  # carrying more only adds pieces
                    moves = (*done, (count, dest))
                    out.append(new_turn(AccastaTurn, (origin, moves)))
                    if go_on:
                        stacks[origin], stacks[dest] = left, target + carried
                        self._extend(origin, moves, me, own_castle, out)
                        stacks[origin], stacks[dest] = source, target
                if target:
                    break  # no jumping over pieces

    def why_illegal(self, turn: AccastaTurn) -> str | None:
        """Why ``turn`` is not legal here, in words, or ``None`` if it is legal.

        Checks the moves one by one like a referee, so the reason names the first
        rule broken.

        >>> board = Accasta()
        >>> board.why_illegal(board.parse_turn("a1:3-d1")) is None
        True
        >>> board.why_illegal(AccastaTurn(GEOMETRY.index("a1"), ((1, GEOMETRY.index("a3")),)))
        'move 1 (a1:1-a3): cannot jump over a2'
        """
        winner = self._castle_winner()
        if winner is not None:
            return f"the game is over ({self._win_reason(winner)})"
        me = self.turn
        origin, moves = turn
        if not 0 <= origin < len(GEOMETRY):
            return f"no point {origin}"
        if not 1 <= len(moves) <= MAX_MOVES:
            return f"a turn has 1 to {MAX_MOVES} moves, not {len(moves)}"
        stacks = list(self.stacks)
        here = GEOMETRY.name(origin)
        for i, (count, dest) in enumerate(moves, 1):
            source = stacks[origin]
            label = f"move {i} ({here}:{count}-{GEOMETRY.name(dest) if 0 <= dest < len(GEOMETRY) else dest})"
            if not source:
                return f"{label}: {here} is empty"
            if source[-1] != me:
                owner = "the opponent" if i == 1 else "the opponent after the release"
                return f"{label}: {here} is controlled by {owner}"
            path = _path(origin, dest)
            if path is None:
                return f"{label}: not on a straight line from {here}"
            reach = source.count(me)
            if len(path) + 1 > reach:
                return f"{label}: range is {reach}, the move is {len(path) + 1} long"
            blocked = [GEOMETRY.name(p) for p in path if stacks[p]]
            if blocked:
                return f"{label}: cannot jump over {', '.join(blocked)}"
            if not 1 <= count <= len(source):
                return f"{label}: {here} holds {len(source)} pieces, cannot carry {count}"
            landed = stacks[dest] + source[len(source) - count:]
            for colour in (WHITE, BLACK):
                if landed.count(colour) > MAX_PER_COLOUR:
                    return f"{label}: {GEOMETRY.name(dest)} would hold {landed.count(colour)} {COLOUR_NAMES[colour]} pieces"
            left = source[:len(source) - count]
            if left and left[-1] != me and origin in CASTLE[me]:
                return f"{label}: releases a piece in the mover's own castle"
            if i < len(moves) and (not left or left[-1] != me):
                return f"{label}: the turn ends here (the origin is {'empty' if not left else 'released'})"
            stacks[origin], stacks[dest] = left, landed
        return None

    def _apply(self, turn: AccastaTurn) -> None:
        for point, stack in _played(self.stacks, turn).items():
            self.stacks[point] = stack
        self.turn = other(self.turn)

    def turn_results(self) -> list[tuple[AccastaTurn, dict[int, str]]]:
        """Every legal turn with the stacks it changes (point index -> stack after), for
        move inference: much faster than playing and taking back thousands of turns."""
        stacks = self.stacks
        out = []
        for turn in self.legal_turns():
            out.append((turn, {p: s for p, s in _played(stacks, turn).items() if s != stacks[p]}))
        return out

    # --- end of game ------------------------------------------------------------------
    def _castle_winner(self) -> Colour | None:
        """A player with at least three stack tops in the opponent's castle, if any.

        After a turn only the mover can have gained such tops (a release in one's own
        castle is forbidden), so the player who just moved is looked at first."""
        for colour in (other(self.turn), self.turn):
            tops = sum(1 for p in CASTLE[other(colour)] if self.stacks[p][-1:] == colour)
            if tops >= WIN_COUNT:
                return colour
        return None

    @staticmethod
    def _win_reason(colour: Colour) -> str:
        return f"{COLOUR_NAMES[colour]} controls {WIN_COUNT} or more points of {COLOUR_NAMES[other(colour)]}'s castle"

    def outcome(self) -> Outcome | None:
        winner = self._castle_winner()
        if winner is not None:
            return Outcome(winner, reason=self._win_reason(winner))
        if not self.legal_turns():
            return Outcome(other(self.turn), reason=f"{COLOUR_NAMES[self.turn]} has no legal turn")
        return None

    # --- notation ---------------------------------------------------------------------
    def turn_notation(self, turn: AccastaTurn) -> str:
        """The booklet's notation: ``origin:`` then the moves, ``,``-separated.

        Each move is the count (omitted when 1), the sign for what the destination
        holds at that moment (``-`` empty, ``+`` own stack, ``x`` opponent's stack) and
        the destination.

        >>> b = Accasta()
        >>> b.set_position({"c3": "wbw", "d4": "b", "c5": "w"}, "w")
        >>> b.turn_notation(AccastaTurn(GEOMETRY.index("c3"), ((1, GEOMETRY.index("d4")),)))
        'c3:xd4'
        """
        moves = ",".join(f"{count if count != 1 else ''}{sign}{GEOMETRY.name(dest)}"
                         for count, sign, dest in self._signed_moves(turn))
        return f"{GEOMETRY.name(turn.origin)}:{moves}"

    def _signed_moves(self, turn: AccastaTurn) -> list[tuple[int, str, int]]:
        """``(count, sign, destination)`` of each move, the sign saying what the destination
        holds when that move is made: ``-`` nothing, ``+`` a stack of the mover, ``x`` one of
        the opponent."""
        origin, moves = turn
        stacks = list(self.stacks)
        out = []
        for count, dest in moves:
            target = stacks[dest]
            out.append((count, "-" if not target else "+" if target[-1] == self.turn else "x", dest))
            source = stacks[origin]
            stacks[dest] = target + source[len(source) - count:]
            stacks[origin] = source[:len(source) - count]
        return out

    def parse_turn(self, text: str) -> AccastaTurn:
        """The legal turn written ``text`` (booklet notation; spaces, ``×`` and a written
        ``1`` allowed); :class:`IllegalTurn` saying why if it is unreadable or illegal.

        >>> Accasta().parse_turn("b4: 2–c5")
        AccastaTurn(origin=7, moves=((2, 13),))
        >>> Accasta().parse_turn("b4:3-c5")
        Traceback (most recent call last):
        ...
        rules.base.IllegalTurn: move 1 (b4:3-c5): b4 holds 2 pieces, cannot carry 3
        """
        compact = "".join(text.split()).translate(_SIGNS).lower()
        m = _TURN.match(compact)
        if not m:
            raise IllegalTurn(f"cannot read {text!r}: expected origin:moves, e.g. b4:2-c5")
        origin = point_index(GEOMETRY, m.group(1))
        moves, signs = [], []
        for part in m.group(2).split(","):
            mm = _MOVE.match(part)
            if not mm:
                raise IllegalTurn(f"cannot read move {part!r} of {text!r}: expected [count](-|+|x)point, e.g. 2-c5")
            if mm.group(1) and int(mm.group(1)) == 0:
                raise IllegalTurn(f"move {part!r} of {text!r} carries no piece")
            moves.append((int(mm.group(1) or 1), point_index(GEOMETRY, mm.group(3))))
            signs.append(mm.group(2))
        turn = AccastaTurn(origin, tuple(moves))
        reason = self.why_illegal(turn)
        if reason is not None:
            raise IllegalTurn(reason)
        for i, (sign, (_, true_sign, dest)) in enumerate(zip(signs, self._signed_moves(turn)), 1):
            if sign != "-" and sign != true_sign:
                raise IllegalTurn(f"move {i}: written {sign!r} but {GEOMETRY.name(dest)} holds {_HOLDS[true_sign]}")
        return turn

    def explain_illegal(self, seen: dict[str, str]) -> str | None:
        """Why the observed board ``seen`` (point -> stack) is no legal turn, for move inference.

        Reads the turn the players tried from the stacks (:func:`rules.infer.movement`:
        which pieces left which point and where they landed, tried in every order of the
        destinations) and asks :meth:`why_illegal` what it breaks.

        >>> Accasta().explain_illegal({"c3": "", "f1": "w"})
        'move 1 (c3:1-f1): range is 1, the move is 3 long'
        """
        from itertools import permutations

        from rules.infer import movement

        moved = movement(self, seen)
        if moved is None or moved.source is None or len(moved.landed) > MAX_MOVES:
            return None
        reasons = []
        for order in permutations(moved.landed):
            carried = "".join(moved.landed[d] for d in reversed(order))
            if carried != moved.left:
                continue  # the first move takes the top pieces, so they must be the first destination's
            reason = self.why_illegal(AccastaTurn(moved.source, tuple((len(moved.landed[d]), d) for d in order)))
            if reason is None:
                return None
            reasons.append(reason)
        return reasons[0] if reasons else None


def _played(stacks: list[str], turn: AccastaTurn) -> dict[int, str]:
    """The stacks of the points ``turn`` touches after it is played on ``stacks`` (left as they are)."""
    origin, moves = turn
    out = {origin: stacks[origin]}
    for count, dest in moves:
        source = out[origin]
        out[dest] = out.get(dest, stacks[dest]) + source[len(source) - count:]
        out[origin] = source[:len(source) - count]
    return out


def _path(origin: int, dest: int) -> list[int] | None:
    """The points strictly between ``origin`` and ``dest`` on a straight line, or ``None``."""
    for d in range(len(GEOMETRY.directions)):
        ray = GEOMETRY.ray(origin, d)
        if dest in ray:
            return ray[:ray.index(dest)]
    return None
