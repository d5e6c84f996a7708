"""Dame 100 against two independent draughts libraries (test oracles, never product code).

py-draughts (GPL-3) and pydraughts (MIT) both install as the import name ``draughts``,
so each lives in its own virtualenv under .venv-oracles/ (built by tools/oracles.sh,
which the ``oracle`` fixture runs when a venv is missing) and answers through
tests/oracles/draughts_oracle.py in a subprocess, in bulk.

The positions come from our engine: random games and random set-ups with many kings,
from a fixed seed.  Sample sizes: DAME_ORACLE_POSITIONS (default 3000 for py-draughts;
pydraughts, about 10 times slower, gets a tenth).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from rules.dame import NAME_OF_SQUARE, Dame100, DameTurn
from rules.pdn import board_fen, board_from_fen, normalise_fen, read_game, replay, write_game
from rules.record import Record

ROOT = Path(__file__).resolve().parents[1]
ORACLES = ("py-draughts", "pydraughts")
POSITIONS = int(os.environ.get("DAME_ORACLE_POSITIONS", "3000"))
SAMPLE = {"py-draughts": POSITIONS, "pydraughts": max(50, POSITIONS // 10)}


class Oracle:
    """One oracle library in its own process: ``ask(request) -> answer``."""

    def __init__(self, name: str) -> None:
        self.name = name
        python = ROOT / ".venv-oracles" / name / "bin" / "python"
        self.proc = subprocess.Popen([str(python), str(ROOT / "tests" / "oracles" / "draughts_oracle.py"), name],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"oracle {self.name} died")
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="session")
def oracles() -> Iterator[Callable[[str], Oracle]]:
    """A factory starting an oracle by name, building its venv first if missing.

    Skips (with the installer's message) only when the install itself fails."""
    started: dict[str, Oracle] = {}

    def get(name: str) -> Oracle:
        if name not in started:
            build = subprocess.run(["bash", str(ROOT / "tools" / "oracles.sh"), name], capture_output=True,
                                   text=True, timeout=600, cwd=ROOT)
            if build.returncode != 0:
                tail = " | ".join((build.stderr or build.stdout).strip().splitlines()[-3:])
                pytest.skip(f"ORACLE {name} COULD NOT BE INSTALLED (tools/oracles.sh {name}): {tail}")
            started[name] = Oracle(name)
        return started[name]

    yield get
    for oracle in started.values():
        oracle.close()


def random_positions(seed: int, count: int) -> list[str]:
    """FENs of positions from random games (two thirds) and random set-ups with kings (a third)."""
    rng = random.Random(seed)
    fens: list[str] = []
    games = count * 2 // 3
    while len(fens) < games:
        board = Dame100()
        while len(fens) < games and board.legal_turns():
            fens.append(board_fen(board))
            board.push(rng.choice(board.legal_turns()))
    while len(fens) < count:
        squares = rng.sample(range(1, 51), rng.randint(2, 24))
        pieces = {}
        for i, n in enumerate(squares):
            colour = "w" if i % 2 == 0 else "b"
            back_row = range(1, 6) if colour == "w" else range(46, 51)
            pieces[NAME_OF_SQUARE[n]] = colour * 2 if n in back_row or rng.random() < 0.4 else colour
        board = Dame100()
        board.set_position(pieces, turn=rng.choice("wb"))
        fens.append(board_fen(board))
    return fens


def _fen_of(text: str) -> str:
    m = re.search(r'"([^"]*)"', text)
    return normalise_fen(m.group(1) if m else text)


@pytest.mark.parametrize("name", ORACLES)
def test_legal_moves_agree_with_oracle(oracles, name):
    oracle = oracles(name)
    fens = random_positions(seed=20260 + len(name), count=SAMPLE[name])
    answer = oracle.ask({"op": "moves", "fens": fens})
    assert "error" not in answer, answer
    kinds = {"king captures": 0, "multi captures": 0}
    disagreements = []
    for fen, theirs in zip(fens, answer["moves"]):
        expected = {(s, e, frozenset(c)) for s, e, c in theirs}
        board = board_from_fen(fen)
        ours = {t.identity() for t in board.legal_turns()}
        if ours != expected:
            disagreements.append((fen, sorted(ours - expected, key=str), sorted(expected - ours, key=str)))
        kinds["multi captures"] += any(len(c) > 1 for _, _, c in ours)
        kinds["king captures"] += any(c and len(board[NAME_OF_SQUARE[s]]) == 2 for s, _, c in ours)
    assert not disagreements, f"{len(disagreements)} of {len(fens)} positions differ, first: {disagreements[:3]}"
    # the sample must exercise the hard rules, or agreement means little
    assert kinds["multi captures"] >= len(fens) // 50 and kinds["king captures"] >= len(fens) // 100, kinds


def _random_game(seed: int, plies: int = 400) -> Record:
    rng = random.Random(seed)
    board = Dame100()
    turns = []
    while board.ply < plies and board.legal_turns():
        turn = rng.choice(board.legal_turns())
        turns.append(board.turn_notation(turn))
        board.push(turn)
    return Record(turns=turns, tags={"Event": f"random {seed}"}, result=None)


@pytest.mark.parametrize("name", ORACLES)
def test_oracle_reads_our_pdn(oracles, name):
    oracle = oracles(name)
    for seed in range(4):
        record = _random_game(seed)
        text = write_game(record)
        answer = oracle.ask({"op": "replay", "pdn": text})
        assert "error" not in answer, (answer, text)
        assert answer["plies"] == len(record.turns)
        assert _fen_of(answer["fen"]) == board_fen(replay(read_game(text)))


@pytest.mark.parametrize("name", ORACLES)
def test_we_read_oracle_pdn(oracles, name):
    oracle = oracles(name)
    for seed in range(4, 6):
        record = _random_game(seed, plies=120)
        answer = oracle.ask({"op": "write", "moves": record.turns})
        assert "error" not in answer, answer
        ours, theirs = replay(record), replay(read_game(answer["pdn"]))
        assert theirs.move_stack == ours.move_stack  # the same turns (they may write whole capture paths)
        assert board_fen(theirs) == board_fen(ours)


def test_real_games_end_where_the_oracle_ends(oracles, shared):
    """Every game of the real collection replays to the same final position in py-draughts."""
    from rules.pdn import read_games

    text = (shared / "draughts-games" / "nk2003-amsterdam.pdn").read_text(encoding="utf-8")
    oracle = oracles("py-draughts")
    for game in read_games(text):
        if not game.turns:
            continue
        answer = oracle.ask({"op": "replay", "pdn": write_game(game)})
        assert "error" not in answer, answer
        assert _fen_of(answer["fen"]) == board_fen(replay(game)), game.tags


def _result(board: Dame100) -> str:
    outcome = board.outcome()
    if outcome is None:
        return "-"
    return "1/2-1/2" if outcome.draw else "1-0" if outcome.winner == "w" else "0-1"


def _careful_choice(board: Dame100, rng: random.Random, shuffle: float) -> DameTurn:
    """A random turn that leaves the opponent no capture where there is one (so king
    endgames last long enough to meet the draw rules), often the last move taken back."""
    turns = board.legal_turns()
    safe = []
    for turn in turns:
        board.push(turn)
        replies = board.legal_turns()
        if not replies or not replies[0].captured:
            safe.append(turn)
        board.pop()
    if len(board.move_stack) >= 2 and rng.random() < shuffle:
        last = board.move_stack[-2]
        back = DameTurn((last.end, last.start))
        if back in safe:
            return back
    return rng.choice(safe or turns)


def test_game_ends_agree_with_py_draughts(oracles):
    """Random games from set-ups rich in kings, to their end: wins, and every FMJD draw rule."""
    oracle = oracles("py-draughts")
    rng = random.Random(77)
    reasons: dict[str, int] = {}
    for _ in range(120):
        pieces: dict[str, str] = {}
        for colour, count in (("w", rng.randint(1, 4)), ("b", rng.randint(1, 4))):
            for _ in range(count):
                free = [n for n in range(1, 51) if NAME_OF_SQUARE[n] not in pieces]
                n = rng.choice(free)
                crowned = n in (range(1, 6) if colour == "w" else range(46, 51)) or rng.random() < 0.7
                pieces[NAME_OF_SQUARE[n]] = colour * (2 if crowned else 1)
        board = Dame100()
        board.set_position(pieces, turn=rng.choice("wb"))
        fen = board_fen(board)
        ours, texts = [_result(board)], []
        shuffle = rng.choice((0.0, 0.8))  # how often a king steps back: repetitions
        while ours[-1] == "-" and len(texts) < 150:
            turn = _careful_choice(board, rng, shuffle)
            texts.append("x".join(map(str, turn.path)) if turn.captured else f"{turn.start}-{turn.end}")
            board.push(turn)
            ours.append(_result(board))
        outcome = board.outcome()
        reason = outcome.reason.split(" ", 1)[1] if outcome and not outcome.draw else outcome.reason if outcome else "-"
        reasons[reason] = reasons.get(reason, 0) + 1
        answer = oracle.ask({"op": "results", "fen": fen, "moves": texts})
        assert "error" not in answer, answer
        assert answer["results"] == ours, (fen, texts)
    for rule in ("threefold repetition", "25 moves each", "16 moves each", "5 moves each"):
        assert any(r.startswith(rule) for r in reasons), reasons
