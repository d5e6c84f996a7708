#!/usr/bin/env python3
"""Games refereed from rendered films, end to end, as ``tacticblue replay`` referees a recording.

    python3 benchmarks/films.py [--games accasta dame100] [--films 2] [--plies 8] [--seed 1] [--jobs 2] [--povray]

For every game, ``--films`` random games of up to ``--plies`` turns are filmed by one camera
each (:func:`vision.synth.video.render_video`: hands, camera shake, flicker, passing
shadows; the camera anywhere around the board or behind White's edge) at 1280x720,
960x540 or 640x360, written as MPEG-4 part 2 (OpenCV's own) or, when ffmpeg is installed,
H.264 at a CRF of 23 to 33.  Each film is then replayed through the live path itself: the
board found in the first frames (:class:`tacticblue.vision_reader.VisionReader`, no
calibration; the players say where White sits, ``--white-side``, as they are told to when
the start position cannot show it), stillness, the hand check, stack reading, re-reads of a doubtful board and
the referee (:class:`tacticblue.session.Session`).

Where the session asks the players (an ambiguous board, or an illegal one with nearest
legal turns), a player answers :data:`ANSWER_S` seconds later by confirming the turn
played, if it is offered and the session has not settled the board by itself meanwhile.
Every turn of the film ends up:

``right``     recorded as played with no one's help;
``asked``     recorded once a player confirmed it;
``wrong``     recorded, but not as played: the one failure the players are not told of (the
              film's count stops there, its later turns are ``lost``);
``missed``    never recorded (the turn played was not among those offered, or the film ended
              first), or lost after a wrong turn.

Besides, ``alarms`` counts the boards reported illegal: the films' players make no illegal
move, so each is a misreading or a board taken mid-move that the players were told to put right.

``--povray`` films each game with POV-Ray instead (:func:`tools.povray_scenes.render_film`):
another renderer's discs, light and camera, one ray-traced picture per position held for
``--still`` seconds, cut to the next as a time-lapse camera does, no hand between.

``benchmarks/turns.py`` measures the same on stills, one reading per turn; this one adds
what a camera adds (compression, motion, the board found rather than given, the moment a
board is taken as still).  Rendering dominates its time: about half a minute per film.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rules  # noqa: E402
from tacticblue.session import Event, Session  # noqa: E402
from tacticblue.sources import open_source  # noqa: E402
from tacticblue.vision_reader import VisionReader  # noqa: E402
from tools.povray_scenes import render_film, write_time_lapse  # noqa: E402
from tools.render_live_videos import compress  # noqa: E402
from vision.board_finder import white_side_of  # noqa: E402
from vision.board_model import board_model  # noqa: E402
from vision.synth.scene import pose_from_truth  # noqa: E402
from vision.synth.video import VideoLook, render_video, write_video  # noqa: E402

SIZES = ((1280, 720), (960, 540), (640, 360))
ANSWER_S = 3.0
"""How long a player takes to confirm a turn the session asks about (seconds of the film)."""
OUTCOMES = ("right", "asked", "wrong", "missed")


def film(game: str, seed: int, number: int, plies: int, still_s: float, verbose: bool, povray: bool = False
         ) -> dict[str, Any]:
    """Render one film, replay it through the live session; the tally of its turns."""
    pick = np.random.default_rng([seed, number, sum(map(ord, game))])
    size = SIZES[int(pick.integers(len(SIZES)))]
    crf = int(pick.integers(23, 34)) if shutil.which("ffmpeg") and pick.random() < 0.5 else None
    film_seed = int(pick.integers(2**31))
    behind_white = bool(pick.random() < 0.5)
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "film.mp4"
        if povray:
            textures = Path(tmp) / "textures"
            textures.mkdir()
            header, images = render_film(game, film_seed, plies, size, textures)
            write_time_lapse(images, video, fps=10.0, hold_s=still_s, seed=film_seed)
        else:
            header, frames = render_video(game, random_turns=plies, seed=film_seed, size=size,
                                          look=VideoLook(fps=10.0, still_s=still_s), behind_white=behind_white)
            write_video(header, frames, video, None, Path(tmp) / "film.json")
        if crf is not None:
            compress(video, crf)
        tally, log = replay(game, video, header)
    where = f"{game} film {number} ({size[0]}x{size[1]}, {'H.264 CRF %d' % crf if crf else 'MPEG-4'})"
    if verbose:
        for line in log:
            print(f"{where}: {line}", flush=True)
    return {**tally, "films": 1, "film": where}


def replay(game: str, video: Path, header: dict[str, Any]) -> tuple[dict[str, int], list[str]]:
    """Referee ``video`` with vision and a player who answers questions right; tally the turns
    of the film's truth ``header`` (see the module docstring) and log what did not go by itself.

    A turn counts as recorded as played when it leaves the position the film shows: two
    turns that do (an Accasta stack moved whole, or a disc at a time) cannot be told apart
    by any camera."""
    board = rules.new_game(game)
    white_side = white_side_of(pose_from_truth(header), board_model(board.geometry.kind))
    session = Session(board, VisionReader(board, white_side=white_side))
    truth: list[dict[str, str]] = header["positions"]
    tally = dict.fromkeys(OUTCOMES, 0)
    log: list[str] = []
    question: Event | None = None
    asked = alarms = 0  # turns recorded by a player's confirmation; boards reported illegal
    checked = 0  # the ply whose record was last compared with the truth
    t = 0.0
    for frame in open_source(video):
        t = frame.t
        events = session.feed(frame)
        if question is not None and t >= question.t + ANSWER_S and session.last is question:
            events += answer(session, question, truth, t, log)
            asked += sum(e.event == "turn" for e in events)
            question = None
        for event in events:
            if event.event in ("ambiguous", "illegal"):
                question = event
                alarms += event.event == "illegal"
                log.append(f"{event.t:.1f} s {event.event}: {event.message}")
            elif event.event == "takeback":
                log.append(f"{event.t:.1f} s takeback: {event.message}")
        if session.board.ply != checked:
            checked = session.board.ply
            if agreeing(session.board, truth) < checked:
                break
    session.finish(t, "the film ended", confirm_pending=True)
    played = len(truth) - 1
    agree = agreeing(session.board, truth)
    if agree < session.board.ply:
        tally["wrong"] = 1
        log.append(f"turn {agree + 1} recorded {session.notations[agree]!r}, played {header['turns'][agree]!r}")
    tally["asked"] = min(asked, agree)
    tally["right"] = agree - tally["asked"]
    tally["missed"] = played - agree - tally["wrong"]
    tally["alarms"] = alarms
    if tally["missed"]:
        log.append(f"{tally['missed']} of {played} turns not recorded")
    return tally, log


def agreeing(board: rules.Board[Any], truth: list[dict[str, str]]) -> int:
    """How many of ``board``'s turns, from the first, leave the positions of ``truth``."""
    replay = board.copy()
    seen = []
    while replay.ply:
        seen.append(replay.visible())
        replay.pop()
    seen.reverse()
    return next((i for i, s in enumerate(seen) if i + 1 >= len(truth) or s != truth[i + 1]), len(seen))


def answer(session: Session, question: Event, truth: list[dict[str, str]], t: float, log: list[str]) -> list[Event]:
    """The player confirms the turn played, if the question offers it."""
    offered = question.data.get("candidates") or question.data.get("nearest") or []
    for n, notation in enumerate(offered, 1):
        trial = session.board.copy()
        for text in notation.split(" "):
            trial.push(trial.parse_turn(text))
        if trial.ply < len(truth) and trial.visible() == truth[trial.ply]:
            log.append(f"{t:.1f} s the player confirms {notation}")
            return session.confirm(n, t)
    log.append(f"{t:.1f} s the turn played is not offered")
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=sorted(rules.GAMES), choices=sorted(rules.GAMES), metavar="GAME")
    parser.add_argument("--films", type=int, default=2, help="films (cameras) per game (default 2)")
    parser.add_argument("--plies", type=int, default=8, help="turns per film at most (default 8)")
    parser.add_argument("--still", type=float, default=2.0, metavar="S",
                        help="seconds the board stays still between turns (about; default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--povray", action="store_true",
                        help="ray-trace the films with POV-Ray as time-lapses (tools/povray_scenes.py: no hands)")
    parser.add_argument("--verbose", action="store_true", help="print what did not go by itself, film by film")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for name, value in (("--films", args.films), ("--plies", args.plies), ("--jobs", args.jobs)):
        if value < 1:
            parser.error(f"{name} must be at least 1")
    if args.povray and shutil.which("povray") is None:
        parser.error("--povray needs POV-Ray (apt-get install povray)")
    tasks = [(g, args.seed, n, args.plies, args.still, args.verbose, args.povray)
             for g in args.games for n in range(args.films)]
    with ProcessPoolExecutor(args.jobs) as pool:
        tallies = list(pool.map(film, *zip(*tasks)))
    report: dict[str, dict[str, int]] = {}
    for (game, *_), tally in zip(tasks, tallies):
        total = report.setdefault(game, dict.fromkeys(("films", "turns", *OUTCOMES, "alarms"), 0))
        for k in ("films", *OUTCOMES, "alarms"):
            total[k] += tally[k]
        total["turns"] += sum(tally[k] for k in OUTCOMES)
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'game':16} {'films':>5} {'turns':>6} {'right':>6} {'asked':>6} {'wrong':>6} {'missed':>6} {'alarms':>6}")
    for game, r in report.items():
        print(f"{game:16} {r['films']:5d} {r['turns']:6d} {r['right']:6d} {r['asked']:6d} {r['wrong']:6d} "
              f"{r['missed']:6d} {r['alarms']:6d}")


if __name__ == "__main__":
    main()
