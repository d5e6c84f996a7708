#!/usr/bin/env python3
"""Speed figures of the live loop: frames per second at 1280x720, the delay from the board
becoming still to the turn being announced, and peak memory over a long game.

    python3 benchmarks/live.py [VIDEO]    # default: the demo recording samples/video/accasta-rulebook.mp4

The video must be a synthetic one with its ground truth beside it (``VIDEO.json``,
``tools/render_live_videos.py``): the truth says when the board became still and gives
the stacks, so the loop figures are those of stillness, settling, refereeing and the
journal.  Vision's own cost (finding the board once, reading one frame) is measured apart
on a rendered 1280x720 photo; the loop reads one frame per still period, so
the delay with vision is about the loop's delay plus one read.  The board counts
as still from the first frame after the hand left the picture.  Frames are scaled
to 1280x720 first (not timed).

Targets: keep up with a 30 fps camera on one core; announce within 0.5 s of the board
becoming still; under 500 MB for a two-hour game.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import new_game  # noqa: E402
from rules.infer import Observation  # noqa: E402
from tacticblue.commands.live import DEMO_VIDEO, TruthReader  # noqa: E402
from tacticblue.journal import Journal  # noqa: E402
from tacticblue.session import Session  # noqa: E402
from tacticblue.sources import Frame, open_source  # noqa: E402

SIZE = (1280, 720)


def frames_of(video: Path) -> Iterator[Frame]:
    """The video's frames scaled to 1280x720, one at a time (as a camera delivers them)."""
    for f in open_source(str(video)):
        yield Frame(cv2.resize(f.image, SIZE, interpolation=cv2.INTER_LINEAR), f.t, f.index)


def still_since(frames: list[dict]) -> dict[int, float]:
    """When the picture came to rest in each position: the first frame after the last one
    with a hand in view before the position's still period (the renderer's ground truth)."""
    out: dict[int, float] = {}
    calm_from = 0.0
    for f in frames:
        if f["hand"]:
            calm_from = -1.0
        elif calm_from < 0:
            calm_from = f["time"]
        if f["position"] is not None and f["position"] not in out:
            out[f["position"]] = max(calm_from, 0.0)
    return out


def loop_figures(video: Path, game: str) -> None:
    board = new_game(game)
    truth = TruthReader.load(video.with_suffix(".json"), board)
    reader, what = truth, "the video's ground truth (vision's cost: see 'vision read' below)"
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal.create(Path(tmp) / "j", game)
        session = Session(board, reader, journal=journal)
        announced: dict[int, float] = {}
        per_frame = []
        for frame in frames_of(video):
            start = time.perf_counter()
            events = session.feed(frame)
            per_frame.append(time.perf_counter() - start)
            for e in events:
                if e.event in ("turn", "partial") and e.ply is not None:
                    announced.setdefault(e.ply + (e.event == "partial"), frame.t)
        journal.close()
    still_from = still_since(truth.frames)
    delays = [announced[k] - still_from[k] for k in still_from if k in announced and k > 0]
    missing = [k for k in still_from if k > 0 and k not in announced]
    total = sum(per_frame)
    per_frame.sort()
    fps = len(truth.frames) / max(1e-9, truth.frames[-1]["time"])
    print(f"video: {video.name}, {len(per_frame)} frames at {SIZE[0]}x{SIZE[1]} ({fps:g} fps), reader: {what}")
    print(f"loop: {len(per_frame) / total:.0f} frames/s on one core (median {1e3 * per_frame[len(per_frame) // 2]:.2f} ms,"
          f" slowest {1e3 * per_frame[-1]:.1f} ms per frame); target >= 30")
    if delays:
        delays.sort()
        print(f"delay still -> announced: median {delays[len(delays) // 2]:.2f} s, worst {delays[-1]:.2f} s "
              f"over {len(delays)} turns (video time; frame period {1 / fps:.3f} s); target <= 0.5 s")
    if missing:
        print(f"positions never announced: {missing}")


def vision_figures(game: str) -> None:
    """Seconds to find the board and to read one 1280x720 frame with vision."""
    import numpy as np

    from vision.board_finder import BoardNotFound, find_board
    from vision.reader import StackReader
    from vision.synth.photo import random_photo_look
    from vision.synth.scene import random_scene, render_image

    board = new_game(game)
    rng = np.random.default_rng(5)
    scene = random_scene(game, rng, points=board.visible(), size=SIZE, top_down=False)
    image = render_image(scene, random_photo_look(rng), rng)
    start = time.perf_counter()
    try:
        find_board(image, board.geometry.kind, start=(board.geometry, board.visible()))
        found = f"{time.perf_counter() - start:.2f} s"
    except BoardNotFound as e:
        found = f"not found ({e})"
    reader = StackReader(game, scene.pose)
    reader.read(image)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        reading = reader.read(image)
        times.append(time.perf_counter() - start)
    right = sum(reading.observation.points.get(n) == s for n, s in board.visible().items())
    print(f"vision: find the board {found}; read one frame {min(times):.2f} s "
          f"({right}/{len(board.geometry)} points right on this photo)")


def memory_figures(game: str, hours: float = 2.0, plies: int = 400) -> None:
    """A long game through the referee (one settled board per ply), then the peak resident
    memory of the whole run.  The loop keeps nothing per frame (one thumbnail, the last
    reading); what grows with a game is its move list and the cached positions (at most 64)."""
    rng = random.Random(1)
    replay = new_game(game)
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal.create(Path(tmp) / "j", game)
        session = Session(new_game(game), journal=journal)
        start = time.perf_counter()
        t = 0.0
        for _ in range(plies):
            turns = replay.legal_turns()
            if not turns or replay.is_game_over():
                break
            replay.push(rng.choice(turns))
            t += hours * 3600 / plies
            session.settled(Observation(replay.visible()), t)
        journal.close()
    elapsed = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"memory: {game}, {len(session.notations)} plies refereed in {elapsed:.1f} s; "
          f"peak resident memory of the loop and referee so far {peak_mb:.0f} MB; target < 500 MB for a two-hour game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("video", nargs="?", type=Path, default=DEMO_VIDEO)
    parser.add_argument("--game", default="accasta")
    args = parser.parse_args()
    if not args.video.is_file() or not args.video.with_suffix(".json").is_file():
        sys.exit(f"need {args.video} and its ground truth {args.video.with_suffix('.json')} "
                 "(tools/render_live_videos.py)")
    loop_figures(args.video, args.game)
    memory_figures("dame100")  # before rendering the photo for vision, which takes memory of its own
    vision_figures(args.game)


if __name__ == "__main__":
    main()
