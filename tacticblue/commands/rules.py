"""``tacticblue rules``: replay records, list legal turns, count perft, infer turns."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from rules import COLOUR_NAMES, Board, IllegalTurn, new_game
from rules.base import Colour, Outcome
from rules.infer import Observation, infer
from rules.dame import Dame100
from rules.pdn import split_games
from rules.record import Record, parse_result, read_turn, turn_number
from tacticblue.commands import CLIError, add_game_argument, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("rules", help="replay records, list legal turns, perft counts, infer turns (no camera needed)",
                            description="The rules engine on its own: records, legal turns, perft, move inference.")
    rsub = parser.add_subparsers(dest="rules_command", metavar="ACTION", required=True)

    p = rsub.add_parser("replay", help="replay a game record, checking every turn",
                        description="Replay a record (rulebook format, or PDN for dame100), check every turn "
                                    "against the rules and print the turns, the final position and the result. "
                                    "Exit status 1 on an illegal or unreadable turn.")
    p.add_argument("record", type=Path, metavar="FILE", help="the game record")
    add_game_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--observations", type=Path, metavar="DIR",
                   help="also write the visible board after every turn to DIR/0001.json, 0002.json, ...")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--number", "-n", type=int, default=1, metavar="N",
                       help="replay the N-th game of a file that holds several (PDN; default 1)")
    which.add_argument("--all", action="store_true",
                       help="check every game of the file: one line each (a JSON list with --json; a PDN "
                            "game that cannot be read is one entry, the others still checked); exit status 1 "
                            "if any is illegal or unreadable")
    p.set_defaults(func=cmd_replay)

    p = rsub.add_parser("moves", help="list the legal turns of a position",
                        description="List the legal turns in the start position, or after the turns of --record.")
    add_game_argument(p)
    p.add_argument("--record", type=Path, metavar="FILE", help="play these turns first")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=cmd_moves)

    p = rsub.add_parser("perft", help="count the positions reachable in N turns",
                        description="Print the number of leaf positions for every depth 1..N and the time taken.")
    add_game_argument(p)
    p.add_argument("--depth", "-d", type=int, required=True, help="deepest depth to count (>= 1)")
    p.add_argument("--record", type=Path, metavar="FILE", help="count from the position after these turns")
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.set_defaults(func=cmd_perft)

    p = rsub.add_parser("infer", help="infer the turn played from an observed board",
                        description="Say which legal turn turned the position (the start, or after the turns of "
                                    "--record) into the observed board: turn, partial, ambiguous, illegal, unchanged "
                                    "or restored. OBS.json is {\"points\": {point: stack}, \"confidence\": "
                                    "{point: 0..1}}; a stack is written bottom to top with w, b and ? for an "
                                    "unreadable layer, a point left out was not seen.")
    add_game_argument(p)
    p.add_argument("--record", type=Path, metavar="FILE", help="the game so far (default: the start position)")
    p.add_argument("--observation", type=Path, metavar="OBS.json", required=True, help="the observed board")
    p.add_argument("--done", action="store_true", help="the players said the turn is finished")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_infer)


def read_record_file(path: Path, board: Board[Any]) -> Record:
    """Read a record file for ``board``'s game, with a clear error if it is missing or unreadable."""
    try:
        return board.read_record(_record_text(path))
    except ValueError as e:
        raise CLIError(f"{path}: {e}") from None


def read_record_files(path: Path, game: str) -> list[Record]:
    """Every game of a record file (PDN collections hold many), with a clear error if there is none."""
    try:
        records = type(new_game(game)).read_records(_record_text(path))
    except ValueError as e:
        raise CLIError(f"{path}: {e}") from None
    if not records:
        raise CLIError(f"{path}: no game in the file")
    return records


def _record_text(path: Path) -> str:
    """A record file's text: UTF-8 (records saved on Windows often start with a BOM), else
    Windows-1252 / Latin-1, in which draughts software on Windows saves PDN (PDN, like PGN,
    is Latin-1 text).  A file holding NUL bytes is no text in either.  An empty file (or one
    of white space only) is "no game in the file" for every game: a rulebook record read it
    as a game of no turns, PDN as no game.  A header without turns is a game at its start."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CLIError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise CLIError(f"{path} is not a text file") from None
    if b"\0" in data:
        raise CLIError(f"{path} is not a text file")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            pass
    else:
        text = data.decode("latin-1")  # the five bytes Windows-1252 leaves undefined
    if not text.strip():  # a byte order mark alone is empty too
        raise CLIError(f"{path}: no game in the file")
    return text


def foreign_hint(board: Board[Any], record: Record) -> str:
    """What to add when the first turn of a Dame 100 record without a ``GameType`` tag is
    illegal, or its set-up position impossible: such records are mostly of another draughts
    game (English, Russian, Czech: 8x8 boards) whose first move or position means nothing on
    the 10x10 board."""
    if isinstance(board, Dame100) and "GameType" not in record.tags:
        return ("; the record has no GameType tag: is it another draughts game (English, Russian, ...)? "
                "dame100 replays international draughts (GameType 20) only")
    return ""


def play_turn(board: Board[Any], index: int, text: str, later: Sequence[str] = (), hint: str = "") -> str:
    """Play the ``index``-th turn (0-based) of a record, returning it in canonical notation;
    a turn that may mean several is the one after which the ``later`` turns can be played
    (:func:`rules.record.read_turn`).

    Raises :class:`CLIError` (status 1) naming the turn by the record's own number and
    colour (``turn 15 (black)``), the turn as written and the reason (and ``hint`` after it)."""
    who = COLOUR_NAMES[board.turn]
    number = turn_number(index, type(board).first_player)
    outcome = board.outcome()
    if outcome is not None:
        raise CLIError(f"turn {number} ({who}) {text!r}: the game is already over ({outcome.reason})", status=1)
    try:
        turn = read_turn(board, text, later)
    except IllegalTurn as e:
        raise CLIError(f"turn {number} ({who}) {text!r}: {e}{hint}", status=1) from None
    notation = board.turn_notation(turn)
    board.push(turn)
    return notation


def play_record(board: Board[Any], record: Record,
                after: Callable[[int, Colour, str], None] | None = None) -> list[str]:
    """Play every turn of a record (see :func:`play_turn`; an illegal first turn says
    :func:`foreign_hint`'s question), calling ``after`` with each turn's index, mover and
    notation once it is played."""
    hint = foreign_hint(board, record)
    turns: list[str] = []
    for i, text in enumerate(record.turns):
        mover = board.turn
        turns.append(play_turn(board, i, text, record.turns[i + 1:], hint if i == 0 else ""))
        if after is not None:
            after(i, mover, turns[-1])
    return turns


def _board_after(args: argparse.Namespace) -> Board[Any]:
    board = new_game(args.game)
    if args.record is not None:
        play_record(board, read_record_file(args.record, board))
    return board


def cmd_replay(args: argparse.Namespace) -> int:
    if args.all:
        return _check_all(args, _collection(args.record, args.game))
    records = read_record_files(args.record, args.game)
    if not 1 <= args.number <= len(records):
        raise CLIError(f"{args.record} holds {len(records)} game(s): --number must be 1..{len(records)}")
    record = records[args.number - 1]
    board = start_board(args, record)
    if args.observations is not None:
        args.observations.mkdir(parents=True, exist_ok=True)

    def played(i: int, mover: Colour, notation: str) -> None:
        if args.observations is not None:
            (args.observations / f"{i + 1:04d}.json").write_text(json.dumps({"points": board.visible()}) + "\n")
        if not args.json:
            print(f"{turn_number(i, type(board).first_player):>3}. {COLOUR_NAMES[mover]:<5} {notation}")

    turns = play_record(board, record, played)
    outcome = final_outcome(board, record)
    warnings = record.result_warnings()
    if args.json:
        print_json({
            "game": args.game,
            "turns": turns,
            "final": board.visible(),
            "to_move": None if outcome is not None else COLOUR_NAMES[board.turn],
            "result": outcome.to_json() if outcome else None,
            **({"warnings": warnings} if warnings else {}),
        })
        return 0
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print()
    print(board.diagram())
    print()
    if outcome is None:
        print(f"Game goes on; {COLOUR_NAMES[board.turn]} to move.")
    else:
        score = f" {outcome.score[0]}:{outcome.score[1]}" if outcome.score else ""
        verdict = ("Draw" if outcome.draw else "Both lose" if outcome.winner is None
                   else f"{COLOUR_NAMES[outcome.winner].capitalize()} wins")
        print(f"{verdict}{score} ({outcome.reason}).")
    return 0


def start_board(args: argparse.Namespace, record: Record) -> Board[Any]:
    """The board a record's game starts from (a PDN set-up position where it gives one).  A
    set-up position that cannot be the game's is refused with :func:`foreign_hint`'s question
    too: an English checkers problem's FEN has men where a Dame 100 man would be a king."""
    board = new_game(args.game)
    try:
        return type(board).from_record(record)
    except ValueError as e:
        raise CLIError(f"{args.record}: {e}{foreign_hint(board, record)}") from None


def final_outcome(board: Board[Any], record: Record) -> Outcome | None:
    """The result after a record's last turn: the rules' where they decide it (a record that
    states another is an error, status 1), else the record's own (a concession)."""
    outcome = board.outcome()
    said = record.stated_result()
    stated = parse_result(said) if said else None
    if outcome is not None and stated is not None and (outcome.winner, outcome.draw) != (stated.winner, stated.draw):
        raise CLIError(f"the record says {said!r} but the rules give {outcome.reason}", status=1)
    if outcome is not None and stated is not None and stated.score is not None and outcome.score != stated.score:
        scored = f"score it {outcome.score[0]}:{outcome.score[1]}" if outcome.score else "give no score"
        raise CLIError(f"the record says {said!r} but the rules {scored}", status=1)
    if outcome is None and stated is not None:
        # A result the rules do not decide (a concession): reported as the record states it.
        outcome = type(stated)(stated.winner, stated.draw, stated.score, f"as recorded: {stated.reason}")
    return outcome


def _collection(path: Path, game: str) -> list[Record | CLIError]:
    """Every game of a record file; where a PDN collection cannot be read as a whole, every
    game that can, and for each one that cannot, the reason (:func:`rules.pdn.split_games`)."""
    try:
        return list(read_record_files(path, game))
    except CLIError as e:
        if game != Dame100.name:
            raise
        whole = e
    games: list[Record | CLIError] = []
    for line, text in split_games(_record_text(path)):
        try:
            games += Dame100.read_records("\n" * (line - 1) + text)  # errors name the file's lines
        except ValueError as e:
            games.append(CLIError(str(e)))
    if not any(isinstance(g, Record) for g in games):
        raise whole
    return games


def _check_all(args: argparse.Namespace, records: list[Record | CLIError]) -> int:
    """``replay --all``: every game of a collection, one line (or JSON object) each."""
    results = []
    for n, record in enumerate(records, 1):
        if isinstance(record, CLIError):
            results.append({"number": n, "players": None, "turns": 0, "legal": False, "error": str(record)})
            if not args.json:
                print(f"game {n:>3}: UNREADABLE: {record}")
            continue
        players = " - ".join(record.tags[k] for k in ("White", "Black") if k in record.tags)
        entry: dict[str, Any] = {"number": n, "players": players or None, "turns": len(record.turns)}
        try:
            board = start_board(args, record)
            play_record(board, record)
            outcome = final_outcome(board, record)
            entry.update(legal=True, result=outcome.to_json() if outcome else None)
        except CLIError as e:
            entry.update(legal=False, error=str(e))
        entry["warnings"] = record.result_warnings()
        results.append(entry)
        if not args.json:
            what = (f"{entry['turns']} turns, " + (entry["result"]["reason"] if entry["result"] else "unfinished")
                    if entry["legal"] else f"ILLEGAL: {entry['error']}")
            what += "".join(f" (warning: {w})" for w in entry["warnings"])
            print(f"game {n:>3}{' (' + players + ')' if players else ''}: {what}")
    bad = sum(not e["legal"] for e in results)
    if args.json:
        print_json(results)
    else:
        print(f"{len(results) - bad} of {len(results)} games legal")
    return 1 if bad else 0


def cmd_moves(args: argparse.Namespace) -> int:
    board = _board_after(args)
    notations = [board.turn_notation(t) for t in board.legal_turns()]
    if args.json:
        print_json(notations)
    else:
        for n in notations:
            print(n)
        outcome = board.outcome()
        over = f" (game over: {outcome.reason})" if outcome is not None else ""
        print(f"{len(notations)} legal turns for {COLOUR_NAMES[board.turn]}{over}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    if args.depth < 1:
        raise CLIError("--depth must be at least 1")
    board = _board_after(args)
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        nodes = board.perft(depth)
        seconds = time.perf_counter() - start
        if args.json:
            print_json({"depth": depth, "nodes": nodes, "seconds": round(seconds, 4)})
        else:
            print(f"depth {depth}: {nodes} ({seconds:.3f} s)", flush=True)
    return 0


def read_observation(path: Path) -> Observation:
    """Read an observation file, with a clear error if it is missing or malformed."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CLIError(f"no such file: {path}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CLIError(f"{path} is not a JSON file: {e}") from None
    try:
        return Observation.from_json(data)
    except ValueError as e:
        raise CLIError(f"{path}: {e}") from None


def cmd_infer(args: argparse.Namespace) -> int:
    board = _board_after(args)
    observation = read_observation(args.observation)
    try:
        observation.check(board)
    except ValueError as e:
        raise CLIError(f"{args.observation}: {e}") from None
    result = infer(board, observation, done=args.done)
    if args.json:
        print_json(result.to_json())
        return 0
    print(f"{result.kind}: {result.message}")
    for c in result.candidates[1:] if result.kind == "turn" else result.candidates:
        print(f"  {c.notation}  score {c.score:.2f}" + "".join(f"\n    {d}" for d in c.differences))
    if result.kind == "turn":
        for d in result.differences:
            print(f"  overridden {d}")
    return 0
