"""Game records in the rulebook's format: one line per full turn, ``N. white black``.

>>> rec = parse_record('''# a comment
... 0. ... d4
... 1. d5 e4
... White wins 14:13.''')
>>> rec.turns, rec.result
(['d4', 'd5', 'e4'], 'White wins 14:13.')
>>> print(rec.format(first_player="b"), end="")
# a comment
0. ... d4
1. d5 e4
White wins 14:13.

``...`` stands for an empty cell (the initiative turn of Abande, which Black plays
before White's first).  Turns never contain spaces; the last line that is not a turn
line is the printed result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from typing import Any, Sequence

from rules.base import BLACK, WHITE, AmbiguousTurn, Board, Colour, IllegalTurn, Outcome

_TURN_LINE = re.compile(r"^\s*(\d+)\.\s*(.*)$")


class RecordError(ValueError):
    """A record file that cannot be read; the message names the line."""


@dataclass
class Record:
    """The turns of one game in notation, in the order played, plus comments and result."""

    turns: list[str]
    result: str | None = None
    comments: list[str] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    """Header tags (PDN); empty for rulebook records."""

    def stated_result(self) -> str | None:
        """The result the record states: its result line (in PDN the token after the moves),
        else its ``Result`` tag; ``None`` where it states none (or ``*``)."""
        tag = self.tags.get("Result", "").strip()
        return self.result or (tag if tag and tag != "*" else None)

    def result_conflict(self) -> str | None:
        """Why the ``Result`` tag and the result after the moves disagree, if they do.

        >>> Record([], "1/2-1/2", tags={"Result": "0-1"}).result_conflict()
        "the Result tag says '0-1' but the moves end with '1/2-1/2'"
        >>> Record([], "2-0", tags={"Result": "1-0"}).result_conflict() is None
        True
        """
        tag = self.tags.get("Result", "").strip()
        if not tag or tag == "*" or not self.result:
            return None
        said, ended = parse_result(tag), parse_result(self.result)
        if said is None or ended is None or (said.winner, said.draw) == (ended.winner, ended.draw):
            return None
        return f"the Result tag says {tag!r} but the moves end with {self.result!r}"

    def result_warnings(self) -> list[str]:
        """What is wrong with the results the record states: :meth:`result_conflict`, and a
        result that states no outcome the rules know (kept as written).

        >>> Record([], "4-6", tags={"Result": "4-6"}).result_warnings()
        ["the result '4-6' states no win, draw or loss (kept as written, not checked)"]
        """
        said = self.stated_result()
        unread = f"the result {said!r} states no win, draw or loss (kept as written, not checked)"
        return [w for w in (self.result_conflict(), unread if said and parse_result(said) is None else None) if w]

    def format(self, first_player: Colour = WHITE) -> str:
        """The record as text, numbered like the rulebook (White's column first); a comment
        not marked ``#`` yet is marked."""
        lines = [c if c.lstrip().startswith("#") else f"# {c}" for c in self.comments]
        cells = (["..."] if first_player == BLACK else []) + list(self.turns)
        number = 0 if first_player == BLACK else 1
        for i in range(0, len(cells), 2):
            lines.append(f"{number}. " + " ".join(cells[i:i + 2]))
            number += 1
        if self.result:
            lines.append(self.result)
        return "\n".join(lines) + "\n"


def parse_record(text: str) -> Record:
    """Read a rulebook-format record.  Raises :class:`RecordError` naming the bad line."""
    turns: list[str] = []
    comments: list[str] = []
    result: str | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if turns:
                raise RecordError(f"line {lineno}: comment after the first turn")
            comments.append(raw.rstrip())
            continue
        if result is not None:
            raise RecordError(f"line {lineno}: text after the result line {result!r}")
        m = _TURN_LINE.match(line)
        if not m:
            result = line
            continue
        cells = m.group(2).split()
        if not 1 <= len(cells) <= 2:
            raise RecordError(f"line {lineno}: expected one or two turns after '{m.group(1)}.', got {len(cells)}")
        for cell in cells:
            if cell == "...":
                if turns:
                    raise RecordError(f"line {lineno}: '...' (empty cell) is only allowed before the first turn")
                continue
            turns.append(cell)
    return Record(turns=turns, result=result, comments=comments)


def read_turn(board: Board[Any], text: str, later: Sequence[str] = ()) -> Any:
    """The legal turn ``text`` of a record means on ``board`` (:meth:`rules.base.Board.parse_turn`);
    one that may mean several is the one after which the record's ``later`` turns can be
    played, or played furthest (:func:`settle`).  Raises :class:`rules.base.IllegalTurn`."""
    try:
        return board.parse_turn(text)
    except AmbiguousTurn as e:
        turn = settle(board, e, later)
        if turn is None:
            raise IllegalTurn(f"{e}; the turns after it do not tell which") from None
        return turn


def settle(board: Board[Any], ambiguous: AmbiguousTurn, later: Sequence[str]) -> Any | None:
    """The one turn, of those an ambiguous turn of a record may mean (``ambiguous.turns``),
    after which the record's ``later`` turns can all be played; None when several can.

    Records give a capture by its start and end squares even where two paths join them;
    the turns after it tell which was played.  When no turn lets them all be played, a later
    turn is wrong whichever was played: the turn after which they can be played furthest
    (the first of those that go as far) is returned, so that the replay names that later
    turn, the record's error, instead of the ambiguous one.

    >>> from rules.pdn import board_from_fen
    >>> board = board_from_fen("W:W32,37,38,42,45,47,K36:B3,6,8,11,12,14,19,27,34")
    >>> try:
    ...     board.parse_turn("36x16")
    ... except AmbiguousTurn as e:
    ...     print(e.turns[0].path, e.turns[1].path, settle(board, e, ["12-17"]).path, settle(board, e, ["19-24"]))
    (36, 18, 7, 16) (36, 13, 2, 16) (36, 13, 2, 16) None
    """
    reach = [_reach(board, turn, later) for turn in ambiguous.turns]
    fits = [turn for turn, n in zip(ambiguous.turns, reach) if n == max(reach)]
    if len(fits) > 1 and max(reach) == len(later):
        return None  # the record does not tell which
    return fits[0] if fits else None


def _reach(board: Board[Any], turn: Any, later: Sequence[str]) -> int:
    """How many of the turns written in ``later`` are legal, one after the other, once ``turn``
    is played on ``board`` (``len(later)``: all of them)."""
    board = board.copy()
    board.push(turn)
    for i, text in enumerate(later):
        try:
            board.push(board.parse_turn(text))
        except AmbiguousTurn as e:
            return max((i + 1 + _reach(board, t, later[i + 1:]) for t in e.turns), default=i)
        except IllegalTurn:
            return i
    return len(later)


def turn_number(index: int, first_player: Colour = WHITE) -> int:
    """The number a record prints before the turn played ``index``-th (0-based).

    White's column comes first, so when Black opens the numbering starts at ``0. ...``.

    >>> [turn_number(i) for i in range(4)], [turn_number(i, first_player="b") for i in range(4)]
    ([1, 1, 2, 2], [0, 1, 1, 2])
    """
    if first_player == BLACK:
        return (index + 1) // 2
    return index // 2 + 1


_RESULT = re.compile(r"^(white|black)\s+(wins|concedes|resigns)(?:\s+(\d+)\s*:\s*(\d+))?\.?$", re.I)


_SCORE_RESULTS: dict[str, Colour] = {"2-0": WHITE, "1-0": WHITE, "0-2": BLACK, "0-1": BLACK}


def parse_result(text: str) -> Outcome | None:
    """The outcome a record's result line states, or ``None`` if it states none.

    >>> parse_result("White wins 14:13.")
    Outcome(winner='w', draw=False, score=(14, 13), reason='white wins')
    >>> parse_result("White concedes.").winner
    'b'
    >>> parse_result("0-2").winner, parse_result("1/2-1/2").draw
    ('b', True)
    >>> parse_result("0-0")  # PDN: both lose (both forfeited, or both over the time limit)
    Outcome(winner=None, draw=False, score=None, reason='both lose')
    """
    line = text.strip()
    if line == "0-0":
        return Outcome(None, reason="both lose")
    if re.fullmatch(r"(draw|remis|1-1|½-½|1/2-1/2)\.?", line, re.I):
        return Outcome(None, draw=True, reason="draw")
    if line in _SCORE_RESULTS:  # PDN/PGN results: 2-0 (FMJD points) or 1-0
        winner = _SCORE_RESULTS[line]
        return Outcome(winner, reason=f"{'white' if winner == WHITE else 'black'} wins")
    m = _RESULT.match(line)
    if not m:
        return None
    side = WHITE if m.group(1).lower() == "white" else BLACK
    verb = m.group(2).lower()
    winner = side if verb == "wins" else (BLACK if side == WHITE else WHITE)
    score = (int(m.group(3)), int(m.group(4))) if m.group(3) else None
    return Outcome(winner, score=score, reason=f"{m.group(1).lower()} {verb}")
