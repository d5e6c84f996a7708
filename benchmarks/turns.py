"""Turns recorded end to end: rendered stills read and inferred as the live loop keeps its game.

    python3 benchmarks/turns.py [--games abande accasta] [--sessions 4] [--plies 40] [--seed 1] [--jobs 2]
    python3 benchmarks/turns.py --elevation 60-70   # only cameras looking down steeply
    python3 benchmarks/turns.py --size 1920x1080     # as a 1080p camera films them
    python3 benchmarks/turns.py --discs 25x5         # another set's discs (the reader told their size)
    python3 benchmarks/turns.py --games dame100 --record ../shared/draughts-games/nk2003-amsterdam.pdn --sessions 8

For every game, ``--sessions`` random games of up to ``--plies`` turns (with ``--record``, the
games of a record file, played to their end unless ``--plies`` says), each seen by one
camera (placement, board look and light as the renderer draws them, 1280x720 unless ``--size``; the
box's discs unless ``--discs``, whose size the reader is told as ``calibrate board --discs`` tells it) with fresh
photo effects on every picture: after every turn the board is rendered, read
(:class:`vision.reader.StackReader` with the true pose) and given to a
:class:`rules.infer.GameState` as the live loop does (no "turn done": an Accasta turn stays
pending until the reply, or until the game's end confirms it, as the end of a recording
does).  A pass changes nothing to see and is seen with the reply; the passes that end a game
(Abande's rulebook game ends with two) have none, and are left to the players, who say them
(:meth:`tacticblue.session.Session.pass_turn`).

Every turn ends up recorded right, recorded wrong (the record left the game, at this turn or at an
earlier one it now tells differently (:func:`record_keys`): counted once,
then the record is put right, as the players would), or left to the players (an illegal
board, or still not recorded three turns later; then put right too, as the players do by
confirming the turn played: the readings that board shows wrong are taken as misreadings
from then on, while they stay the same).  A turn recorded wrong must stay rare: it is the one failure the
players are not told about.

This measures vision and inference together on what the players care about; the per-point
figures are ``benchmarks/vision.py``'s.  ``--verbose`` prints every turn not recorded right
with the readings that differ from the truth.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rules  # noqa: E402
from rules.geometry import DEFAULT_SPEC  # noqa: E402
from rules.infer import GameState  # noqa: E402
from rules.record import Record, read_turn  # noqa: E402
from tacticblue.commands import CLIError, disc_size, frame_size, placement_error  # noqa: E402
from tacticblue.commands.rules import read_record_files  # noqa: E402
from tacticblue.commands.scenes import elevation_range  # noqa: E402
from vision.reader import StackReader  # noqa: E402
from vision.synth.photo import random_photo_look  # noqa: E402
from vision.synth.render import Placement  # noqa: E402
from vision.synth.rig import rig_at  # noqa: E402
from vision.synth.scene import random_scene, render_image  # noqa: E402

PLIES = 40
"""Turns of a random game, unless ``--plies`` says."""
MAX_LAG = 3
"""Turns a record may fall behind (a turn seen unsure waits for the reply) before the
players are taken to put it right."""


def record_keys(board: rules.Board) -> list:
    """The position after every turn of ``board``'s record, from the start: a record is right
    only if each is the game's (a turn placed on the wrong point, then moved where the
    game's went, ends in the game's position yet is recorded wrong)."""
    b = board.copy()
    out = [b.key()]
    while b.move_stack:
        b.pop()
        out.append(b.key())
    return out[::-1]


def session(game: str, seed: int, number: int, plies: int | None, verbose: bool,
            elevation_deg: tuple[float, float] | None = None, size: tuple[int, int] = (1280, 720),
            placement: Placement = Placement(), record: Record | None = None,
            discs: tuple[float, float] | None = None) -> dict[str, int]:
    """One game seen by one camera (its elevation drawn from ``elevation_deg``, degrees,
    when given; its frames ``size`` pixels; its discs ``discs`` (diameter, thickness in mm; the
    box's when None), set ``placement`` off their points): how
    many turns were recorded right, wrong, or left.  The game is ``record``'s, from its start,
    or a random one; ``plies`` (None: the record's end) turns at the most."""
    rng = np.random.default_rng([seed, number, sum(map(ord, game))])
    moves = random.Random(int(rng.integers(2**31)))
    truth = rules.new_game(game) if record is None else type(rules.new_game(game)).from_record(record)
    count = min(len(record.turns), plies or len(record.turns)) if record is not None else plies or PLIES
    scene = replace(random_scene(game, rng, points=truth.visible(), size=size, rig=rig_at(elevation_deg),
                                 spec=DEFAULT_SPEC.with_discs(discs)), placement=placement)
    reader = StackReader(game, scene.pose)
    state = GameState(rules.new_game(game))
    keys = [truth.key()]  # the position after every turn of the true game
    tally = {"turns": 0, "wrong": 0, "left": 0}
    for n in range(count):
        if truth.is_game_over() or not truth.legal_turns():
            break
        truth.push(moves.choice(truth.legal_turns()) if record is None
                   else read_turn(truth, record.turns[n], record.turns[n + 1:]))
        keys.append(truth.key())
        tally["turns"] += 1
        reading = reader.read(render_image(replace(scene, points=truth.visible()), random_photo_look(rng), rng))
        result = state.update(reading.observation) if reading.readable else None
        at = state.board.ply
        in_line = at < len(keys) and record_keys(state.board) == keys[:at + 1]
        behind = len(keys) - 1 - at
        if in_line and result is not None and result.kind != "illegal" and behind <= MAX_LAG:
            continue
        if in_line:
            tally["left"] += behind
        else:
            tally["wrong"] += 1
            tally["left"] += max(behind - 1, 0)
        if verbose:
            seen, want = reading.observation, truth.visible()
            differ = {p: (s, seen.points.get(p), round(seen.conf(p), 2)) for p, s in want.items() if seen.points.get(p) != s}
            print(f"{game} session {number} turn {len(keys) - 1}: {'WRONG' if not in_line else 'left'}: "
                  f"{result.message if result else reading.reason}; read differently: {differ}", flush=True)
        # The players put the record right, confirming the board as it is: the live session's
        # game state keeps the misreadings it knew of, where the record's stacks are unchanged.
        known, state = state.misread, GameState(truth.copy())
        state.misread = {i: m for i, m in known.items() if state.board.stacks[i] == m[0]}
        if reading.readable:
            state.accept(reading.observation)
    state.turn_done()  # the game's end confirms a turn left pending, as the end of a recording does
    if record_keys(state.board) != keys[:state.board.ply + 1]:
        tally["wrong"] += 1  # that turn was not the game's (it went on unseen)
    else:
        tally["left"] += len(keys) - 1 - state.board.ply
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=sorted(rules.GAMES), choices=sorted(rules.GAMES), metavar="GAME")
    parser.add_argument("--sessions", type=int, default=4, help="games (cameras) per game (default 4)")
    parser.add_argument("--plies", type=int, help=f"turns per game at most (default {PLIES}; a record's: all)")
    parser.add_argument("--record", type=Path, metavar="FILE",
                        help="play this record file's games (PDN for dame100, the rulebook format for the "
                             "others) instead of random ones, one a session, again from the first when they run out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--verbose", action="store_true", help="print every turn not recorded right")
    parser.add_argument("--elevation", type=elevation_range, metavar="LO-HI",
                        help="draw the cameras' elevations (degrees above the board) from this range only")
    parser.add_argument("--size", type=frame_size, default=(1280, 720), metavar="WxH",
                        help="the cameras' frame size (default 1280x720)")
    parser.add_argument("--placement", type=placement_error, default=Placement(), metavar="STACK[,DISC]",
                        help="how far the discs stand off their points at most (mm; default 1.6,0.7)")
    parser.add_argument("--discs", type=disc_size, metavar="DxT",
                        help="discs of this diameter and thickness (mm; default the box's 29x7), "
                             "the reader told their size")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    records: list[Record | None] = [None] * args.sessions
    if args.record:
        if len(args.games) != 1:
            parser.error("--record: name the record's game with --games")
        try:
            played = read_record_files(args.record, args.games[0])
        except CLIError as e:
            parser.error(f"--record: {e}")
        records = [played[n % len(played)] for n in range(args.sessions)]
    tasks = [(g, args.seed, n, args.plies, args.verbose, args.elevation, args.size, args.placement, record, args.discs)
             for g in args.games for n, record in enumerate(records)]
    with ProcessPoolExecutor(args.jobs) as pool:
        tallies = list(pool.map(session, *zip(*tasks)))
    report: dict[str, dict[str, float]] = {}
    for (game, *_), tally in zip(tasks, tallies):
        total = report.setdefault(game, {"turns": 0, "wrong": 0, "left": 0})
        for k, v in tally.items():
            total[k] += v
    for total in report.values():
        total["right"] = (total["turns"] - total["wrong"] - total["left"]) / max(total["turns"], 1)
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'game':16} {'turns':>6} {'right':>7} {'wrong':>6} {'left':>6}")
    for game, r in report.items():
        print(f"{game:16} {r['turns']:6d} {r['right']:7.3f} {r['wrong']:6d} {r['left']:6d}")


if __name__ == "__main__":
    main()
