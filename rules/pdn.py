"""PDN (Portable Draughts Notation) games in and out, and FEN positions, for Dame 100.

PDN is the PGN of draughts: tag pairs, then the movetext (move numbers, moves in the
square numbers 1-50, ``{comments}``, ``(variations)``) and a result.  Several games may
follow each other in one file.

>>> text = '''[Event "Club"]
... [Result "2-0"]
...
... 1. 32-28 19-23 {sharp} 2. 28x19 14x23 2-0
... '''
>>> game = read_game(text)
>>> game.tags["Event"], game.turns, game.result, game.move_comments
('Club', ['32-28', '19-23', '28x19', '14x23'], '2-0', {1: ['sharp']})
>>> print(write_game(game), end="")
[Event "Club"]
[Result "2-0"]
[GameType "20"]
<BLANKLINE>
1. 32-28 19-23 {sharp} 2. 28x19 14x23 2-0

What the reader keeps: tags (in order), the main line's moves as written, comments
(before the first move in ``comments``, after a move in ``move_comments`` by the move's
0-based index) and the result token (``None`` for ``*`` or none).  It drops variations,
NAGs (``$1``), move marks (``!``, ``?``, ``(!?)``), the ``...`` that holds White's place
in ``1. ... 19-23`` and escape lines (``%``): they are read past,
not kept.  The writer emits standard PDN that other draughts software reads: the tags
(adding ``GameType "20"`` (international draughts) and ``Result`` when missing), numbered
moves wrapped at 79 columns, the result.  Writing a game that was read from our own
output gives the same text again.

Results: ``2-0``/``0-2``/``1-1`` (FMJD points) and ``1-0``/``0-1``/``1/2-1/2`` (PGN style, the draw
also as ``½-½``, as some databases export it),
``0-0`` (both lost) and ``*`` (unknown), kept as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from rules.base import BLACK, WHITE, Colour, IllegalTurn
from rules.dame import NAME_OF_SQUARE, Dame100
from rules.record import Record, RecordError, read_turn

RESULTS = ("2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "\u00bd-\u00bd", "0-0", "*")
START_FEN = "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
LINE_WIDTH = 79

_ALPHA = r"[a-jA-J](?:10|[1-9])"
_SQUARE = r"(?:\d{1,2}|" + _ALPHA + ")"
_JOINED = _ALPHA + _ALPHA + r"(?![\w-])"
"""A move between algebraic squares written without its '-' (``a3b4``), which PDN 3.0
allows for alphanumeric squares only; it is kept as ``a3-b4`` (:data:`_JOINED_MOVE`)."""
_JOINED_MOVE = re.compile("^(" + _ALPHA + ")(" + _ALPHA + ")$")
_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
    |(?P<comment>\{(?P<text>[^}]*)\})
    |(?P<escape>(?:^|(?<=\n))%[^\n]*|;[^\n]*)
    |(?P<result>(?:""" + "|".join(map(re.escape, RESULTS)) + r""")(?=\s|$|[\[{;)]))
    |(?P<number>\d+\s*\.(?:\s*\.{2,3})?)
    |(?P<move>"""
    + _SQUARE + r"(?:\s*[-xX:]\s*" + _SQUARE + r")+|" + _JOINED + r""")(?P<marks>[!?]*(?:\([!?]+\))?)
    |(?P<nag>\$\d+)
    |(?P<open>\()
    |(?P<close>\))""",
    re.VERBOSE,
)


@dataclass
class PdnRecord(Record):
    """A PDN game: a :class:`Record` plus the comments that follow moves."""

    move_comments: dict[int, list[str]] = field(default_factory=dict)
    """Comments after move i (0-based index into ``turns``)."""


def iter_games(text: str) -> Iterator[PdnRecord]:
    """Every game of a PDN text, in order.

    Raises :class:`RecordError` naming the line of anything that is not PDN.  A comment
    between a game's result and the next game's tags stays with the game before.

    >>> [g.turns for g in iter_games('1. 32-28 * [White "A"] 1. 33-29 1-1')]
    [['32-28'], ['33-29']]
    """
    game: PdnRecord | None = None
    opened: list[int] = []  # where each variation still open starts: an unclosed one is named by its line
    pos = 0
    last: PdnRecord | None = None
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            line = text.count("\n", 0, pos) + 1
            if text[pos] == "{":  # the comment token needs its '}'
                raise RecordError(f"line {line}: comment '{{' is never closed")
            if text[pos] == "}":
                raise RecordError(f"line {line}: '}}' closes no comment (PDN comments do not nest)")
            bad = text[pos:].split(None, 1)[0][:30]
            raise RecordError(f"line {line}: cannot read {bad!r} as PDN")
        pos = m.end()
        kind = next(k for k in ("space", "tag", "comment", "escape", "result", "number", "move", "nag", "open", "close")
                    if m.group(k) is not None)
        if kind in ("space", "escape", "nag", "number"):
            continue
        if kind == "open":
            opened.append(m.start())
            continue
        if kind == "close":
            if not opened:
                raise RecordError(f"line {text.count(chr(10), 0, pos) + 1}: ')' closes no variation")
            opened.pop()
            continue
        if opened:
            continue
        if kind == "comment":
            target = game if game is not None else last
            if target is None:
                game = target = PdnRecord(turns=[])
            if target.turns:
                target.move_comments.setdefault(len(target.turns) - 1, []).append(m.group("text"))
            else:
                target.comments.append(m.group("text"))
            continue
        if kind == "tag":
            # A tag after moves, or one the game has already (a game of tags alone, with
            # no result, before it: a tag section names a tag once), starts the next game.
            if game is not None and (game.turns or game.move_comments or m.group("name") in game.tags):
                yield _tagged_result(game)
                game = None
            if game is None:
                game = PdnRecord(turns=[])
            game.tags[m.group("name")] = re.sub(r"\\(.)", r"\1", m.group("value"))
            continue
        if game is None:
            game = PdnRecord(turns=[])
        if kind == "move":
            move = re.sub(r"\s+", "", m.group("move"))
            game.turns.append(_JOINED_MOVE.sub(r"\1-\2", move))
        else:  # result
            token = m.group("result")
            game.result = None if token == "*" else token
            yield game
            last, game = game, None
    if opened:
        raise RecordError(f"line {text.count(chr(10), 0, opened[0]) + 1}: variation '(' is never closed")
    if game is not None:
        yield _tagged_result(game)


def _tagged_result(game: PdnRecord) -> PdnRecord:
    """``game`` with its last move taken for its result where it is written as its ``Result``
    tag is and has no result of its own: match points out of more than a game's 2
    (``[Result "4-6"]`` ... ``13-19 4-6``), which are no PDN result and would read as a move.

    >>> g = read_game('[Result "4-6"] 1. 32-28 19-23 4-6')
    >>> g.turns, g.result
    (['32-28', '19-23'], '4-6')
    """
    tag = game.tags.get("Result", "").strip()
    if game.result is None and game.turns and game.turns[-1] == tag and re.fullmatch(r"\d+-\d+", tag):
        game.result = game.turns.pop()
    return game


def split_games(text: str) -> list[tuple[int, str]]:
    """A PDN text cut into its games' texts, each with the line it starts on (1-based): a game
    starts at a tag line that follows moves, or that names a tag the game has already (after
    a game of tags alone, as :func:`iter_games` reads it).  For reading a collection game by
    game, so that a game that cannot be read loses only itself.

    >>> [(line, game.split()[0]) for line, game in split_games('[Event "a"]\\n1. 32-28 *\\n\\n[Event "b"]\\n1. 33-28 *')]
    [(1, '[Event'), (4, '[Event')]
    """
    games: list[tuple[int, list[str]]] = []
    in_moves = False
    names: set[str] = set()
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        starts_tag = line.lstrip().startswith("[")
        name = re.match(r"\s*\[\s*([A-Za-z0-9_]+)", line)
        if not games or (starts_tag and (in_moves or (name is not None and name.group(1) in names))):
            games.append((number, []))
            in_moves = False
            names = set()
        if name is not None:
            names.add(name.group(1))
        games[-1][1].append(line)
        in_moves = in_moves or (bool(line.strip()) and not starts_tag)
    return [(number, "".join(lines)) for number, lines in games]


def read_games(text: str) -> list[PdnRecord]:
    """All games of a PDN text."""
    return list(iter_games(text))


def read_game(text: str) -> PdnRecord:
    """The first game of a PDN text."""
    game = next(iter_games(text), None)
    if game is None:
        raise RecordError("no PDN game in the text")
    return game


def read_standard_game(text: str) -> PdnRecord:
    """The first game of a PDN text, checked to start from the standard start position
    (what a replay from :class:`Dame100`'s start needs).

    >>> read_standard_game('[FEN "W:W33:B12"] 1. 33-28 *')
    Traceback (most recent call last):
    rules.record.RecordError: the game starts from a set-up position (FEN tag); only games from the start position can be replayed here (rules.pdn.replay plays set-ups)
    """
    game = read_game(text)
    if "FEN" in game.tags and normalise_fen(game.tags["FEN"]) != START_FEN:
        raise RecordError("the game starts from a set-up position (FEN tag); only games from the start "
                          "position can be replayed here (rules.pdn.replay plays set-ups)")
    return game


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    """A PDN comment; a ``}`` inside (which PDN cannot hold) becomes ``)``."""
    return "{" + text.replace("}", ")") + "}"


def write_game(record: Record) -> str:
    """One game as PDN text (tags, blank line, movetext wrapped at 79 columns, newline)."""
    tags = dict(record.tags)
    result = record.result or tags.get("Result") or "*"
    tags.setdefault("Result", result)
    tags.setdefault("GameType", "20")
    move_comments = record.move_comments if isinstance(record, PdnRecord) else {}
    black_first = "FEN" in tags and tags["FEN"].strip().upper().startswith("B")
    tokens = [_comment(c) for c in record.comments]
    need_number = True
    for i, move in enumerate(record.turns):
        ply = i + black_first
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + 1}. {move}")
        elif need_number:
            tokens.append(f"{ply // 2 + 1}... {move}")
        else:
            tokens.append(move)
        comments = move_comments.get(i, [])
        tokens.extend(_comment(c) for c in comments)
        need_number = bool(comments)
    tokens.append(result)
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    head = "".join(f'[{name} "{_quote(value)}"]\n' for name, value in tags.items())
    return head + "\n" + "\n".join(lines) + "\n"


def write_games(records: Sequence[Record]) -> str:
    """Several games, separated by a blank line."""
    return "\n".join(write_game(r) for r in records)


# --- FEN positions ------------------------------------------------------------------------
def parse_fen(text: str) -> tuple[dict[int, str], Colour]:
    """The pieces (PDN square -> ``"w"``, ``"b"``, ``"ww"``, ``"bb"``) and side to move of a
    PDN FEN such as ``W:W31-33,K40:B1,2`` (ranges and a trailing ``.`` allowed).  A side to
    move of ``?`` (not known, which PDN 3.0 allows) reads as White; :func:`start_board`
    settles it by the game's first move.

    >>> parse_fen('B:W31,K40:BK1,2-3')
    ({31: 'w', 40: 'ww', 1: 'bb', 2: 'b', 3: 'b'}, 'b')
    """
    fen = text.strip().strip('"').rstrip(".").replace(" ", "")
    parts = fen.split(":")
    if not parts or parts[0].upper() not in ("W", "B", "?"):
        raise RecordError(f"FEN {text!r}: must start with W or B (the side to move), or ? (not known)")
    turn: Colour = BLACK if parts[0].upper() == "B" else WHITE
    pieces: dict[int, str] = {}
    for part in parts[1:]:
        if not part:
            continue
        colour = part[0].upper()
        if colour not in ("W", "B"):
            raise RecordError(f"FEN {text!r}: piece list {part!r} must start with W or B")
        for item in filter(None, part[1:].split(",")):
            king = item[0].upper() == "K"
            body = item[1:] if king else item
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", body)
            if not m:
                raise RecordError(f"FEN {text!r}: cannot read square {item!r}")
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            if not 1 <= lo <= hi <= 50:
                raise RecordError(f"FEN {text!r}: squares are 1 to 50, got {item!r}")
            for n in range(lo, hi + 1):
                if n in pieces:
                    raise RecordError(f"FEN {text!r}: square {n} is given twice")
                pieces[n] = colour.lower() * (2 if king else 1)
    return pieces, turn


def fen(pieces: dict[int, str], turn: Colour) -> str:
    """The PDN FEN of a position (squares in increasing order, kings prefixed ``K``).

    >>> fen({40: 'ww', 31: 'w', 2: 'b'}, 'w')
    'W:W31,K40:B2'
    """
    def side(colour: str) -> str:
        return ",".join(("K" if len(s) == 2 else "") + str(n) for n, s in sorted(pieces.items()) if s[0] == colour)
    return f"{turn.upper()}:W{side('w')}:B{side('b')}"


def normalise_fen(text: str) -> str:
    """A FEN in the canonical form :func:`fen` writes."""
    return fen(*parse_fen(text))


def board_fen(board: Dame100) -> str:
    """The FEN of a board's current position."""
    pieces = {n: board.stacks[board.geometry.index(name)] for n, name in NAME_OF_SQUARE.items()}
    return fen({n: s for n, s in pieces.items() if s}, board.turn)


def board_from_fen(text: str) -> Dame100:
    """A board set up from a FEN (no history)."""
    pieces, turn = parse_fen(text)
    board = Dame100()
    board.set_position({NAME_OF_SQUARE[n]: s for n, s in pieces.items()}, turn=turn)
    return board


GAME_TYPES = {"21": "English draughts", "22": "Italian draughts", "23": "American pool checkers",
              "24": "Spanish draughts", "25": "Russian draughts", "26": "Brazilian draughts",
              "27": "Canadian draughts", "28": "Portuguese draughts", "29": "Czech draughts",
              "30": "Turkish draughts", "31": "Thai draughts", "40": "Frisian draughts"}
"""PDN GameType numbers of other draughts games, for naming the game a record is of."""


def check_game_type(record: Record) -> None:
    """Raise :class:`RecordError` if the record's ``GameType`` tag names another game than
    international draughts (20; its first field, as in ``20,W,10,10,N1,0``).  A record of
    English or Russian draughts is refused as such, not by its first move being illegal.

    >>> check_game_type(Record([], tags={"GameType": "21"}))
    Traceback (most recent call last):
    rules.record.RecordError: the game is English draughts (GameType "21"), not international draughts (GameType 20)
    """
    value = record.tags.get("GameType", "").strip()
    number = value.split(",")[0].strip()
    if value and number != "20":
        name = GAME_TYPES.get(number, "another game")
        raise RecordError(f'the game is {name} (GameType "{value}"), not international draughts (GameType 20)')


def start_board(record: Record) -> Dame100:
    """The board a PDN game starts from: its FEN tag's position (the side to move of a FEN
    that gives ``?`` is the one that can play the first move), or the start position.
    Raises :class:`RecordError` for a game that is not international draughts."""
    check_game_type(record)
    if "FEN" not in record.tags:
        return Dame100()
    fen = record.tags["FEN"].strip().strip('"')
    board = board_from_fen(fen)
    if fen.startswith("?") and record.turns and not _plays_first(board, record):
        black = board_from_fen("B" + fen[1:])
        if _plays_first(black, record):
            return black
    return board  # White's, or neither side can: the replay names the move


def _plays_first(board: Dame100, record: Record) -> bool:
    """Whether the record's first move can be played on ``board``."""
    try:
        read_turn(board, record.turns[0], record.turns[1:])
    except IllegalTurn:
        return False
    return True


def replay(record: Record) -> Dame100:
    """Play a game from its FEN tag (or the start) to its last move, checking every move (a
    capture that may mean several is settled by the moves after it: :func:`rules.record.read_turn`).

    Raises :class:`IllegalTurn` naming the move (1 = the first move of the game) and its text.

    >>> replay(read_game('1. 32-28 19-23 2. 28x19 14x23 *')).material()
    {'w': 20, 'b': 20}
    """
    board = start_board(record)
    for i, text in enumerate(record.turns):
        try:
            board.push(read_turn(board, text, record.turns[i + 1:]))
        except IllegalTurn as e:
            raise IllegalTurn(f"move {i + 1} ({text}): {e}") from None
    return board
