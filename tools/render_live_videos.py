#!/usr/bin/env python3
"""Render the small videos the live companion's tests and demo replay (seeded, reproducible).

    python3 tools/render_live_videos.py tests/data/live      # the test clip (a few seconds, 320x180)
    python3 tools/render_live_videos.py --games tests/data/live  # whole sample games: abande, attangle, dame100
    python3 tools/render_live_videos.py --vision tests/data/live # 1280x720 clips the tests read with vision
    python3 tools/render_live_videos.py --demo samples/video # the demo: the whole Accasta rulebook game

Each video ``NAME.mp4`` comes with ``NAME.json``, the renderer's ground truth
(:func:`vision.synth.video.render_video`): the turns, the position after every ply and per
frame whether a hand is in view.  Hands, pauses between the moves of a turn, camera shake,
flicker and passing shadows are the renderer's defaults.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import new_game  # noqa: E402
from vision.synth.video import VideoLook, render_video, write_video  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


RECORDS = {"accasta": "accasta.txt", "abande": "abande.txt", "attangle": "attangle.txt", "dame100": "dame100.pdn"}


def rulebook_turns(game: str) -> list[str]:
    board = new_game(game)
    return board.read_record((ROOT / "samples" / "records" / RECORDS[game]).read_text()).turns


def render(out: Path, name: str, game: str, turns: list[str], seed: int, size: tuple[int, int], fps: float,
           behind_white: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    header, frames = render_video(game, turns=turns, seed=seed, size=size, look=VideoLook(fps=fps),
                                  behind_white=behind_white)
    video = out / f"{name}.mp4"
    write_video(header, frames, video, None, out / f"{name}.json")
    compress(video)
    print(f"{video}: {header['frames']} frames, {len(turns)} turns, {video.stat().st_size / 1e6:.1f} MB")


def compress(video: Path, crf: int = 30) -> None:
    """Re-encode with H.264 at ``crf`` (ffmpeg, when installed): at 30 a tenth of OpenCV's mp4v
    size, every frame kept."""
    if shutil.which("ffmpeg") is None:
        return
    small = video.with_name(video.stem + ".x264.mp4")
    subprocess.run(["ffmpeg", "-y", "-loglevel", "error", "-i", str(video), "-c:v", "libx264", "-preset", "slow",
                    "-crf", str(crf), "-pix_fmt", "yuv420p", "-fps_mode", "passthrough", "-an", str(small)], check=True)
    os.replace(small, video)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--demo", action="store_true", help="render the demo (the whole Accasta rulebook game)")
    parser.add_argument("--games", action="store_true", help="render whole sample games (abande, attangle, dame100)")
    parser.add_argument("--vision", action="store_true",
                        help="render the 1280x720 openings that the tests read with vision")
    args = parser.parse_args()
    if args.games:
        for seed, game in enumerate(("abande", "attangle", "dame100"), 11):
            render(args.out, f"{game}-game", game, rulebook_turns(game), seed=seed, size=(320, 180), fps=8)
    elif args.vision:
        # Frames as a webcam gives them: the whole camera -> board -> stacks -> referee path runs on them.
        render(args.out, "accasta-opening-720", "accasta", rulebook_turns("accasta")[:4], seed=3, size=(1280, 720),
               fps=10)
        render(args.out, "dame100-opening-720", "dame100", rulebook_turns("dame100")[:8], seed=5, size=(1280, 720),
               fps=10)
        # Games that start on an empty board: only the camera's side says where White sits.
        for game, first in (("abande", 8), ("attangle", 6)):
            render(args.out, f"{game}-opening-720", game, rulebook_turns(game)[:first], seed=7, size=(1280, 720),
                   fps=10, behind_white=True)
    elif args.demo:
        # As a webcam on a tripod films it; the demo reads it with vision.
        render(args.out, "accasta-rulebook", "accasta", rulebook_turns("accasta"), seed=3, size=(1280, 720), fps=10)
    else:
        render(args.out, "accasta-opening", "accasta", rulebook_turns("accasta")[:4], seed=3, size=(320, 180),
               fps=10)


if __name__ == "__main__":
    main()
