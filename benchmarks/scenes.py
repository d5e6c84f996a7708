"""Synthetic scene speed: photos per second at 1280x720 and video frames per second.

Textures are painted once per look and cached, so the first images are not counted
(``--warm`` images first).  Wall time and CPU time are both printed: on a busy machine
CPU time is the fairer figure.  From them: the time of a 300-image benchmark set and of
a whole filmed game (the Accasta rulebook game, 30 turns, at 15 fps).

    python3 benchmarks/scenes.py               # 1280x720, 20 images, 6-turn video
    python3 benchmarks/scenes.py --json        # one JSON object
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.record import parse_record  # noqa: E402
from vision.synth import game_names, render_samples  # noqa: E402
from vision.synth.video import VideoLook, render_video  # noqa: E402


def timed(run) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    n = run()
    return time.perf_counter() - wall, time.process_time() - cpu, n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--images", type=int, default=20)
    ap.add_argument("--warm", type=int, default=10, help="images rendered first, not counted")
    ap.add_argument("--turns", type=int, default=6, help="turns of the rulebook Accasta game in the video")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    games = game_names()
    for k in range(args.warm):
        next(render_samples(games[k % len(games)], 1, 1000 + k, size=size))

    def images() -> int:
        for k in range(args.images):
            next(render_samples(games[k % len(games)], 1, k, size=size))
        return args.images

    wall, cpu, n = timed(images)
    turns = parse_record((ROOT / "samples" / "records" / "accasta.txt").read_text()).turns
    header, frames = render_video("accasta", turns[:args.turns], 0, 1, size, VideoLook(fps=15.0))
    whole, _ = render_video("accasta", turns, 0, 1, size, VideoLook(fps=15.0))
    vwall, vcpu, frames_n = timed(lambda: sum(1 for _ in frames))
    out = {
        "size": args.size,
        "images_per_s_wall": round(n / wall, 2), "images_per_s_cpu": round(n / cpu, 2),
        "video_frames_per_s_wall": round(frames_n / vwall, 2), "video_frames_per_s_cpu": round(frames_n / vcpu, 2),
        "benchmark_300_images_min_cpu": round(300 * cpu / n / 60, 1),
        "rulebook_game_frames": whole["frames"],
        "rulebook_game_video_min_cpu": round(whole["frames"] * vcpu / frames_n / 60, 1),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"photos {args.size}: {out['images_per_s_wall']} /s wall, {out['images_per_s_cpu']} /s CPU "
              f"(300 images: {out['benchmark_300_images_min_cpu']} min CPU)")
        print(f"video frames {args.size}: {out['video_frames_per_s_wall']} /s wall, {out['video_frames_per_s_cpu']} /s CPU; "
              f"whole rulebook Accasta game = {whole['frames']} frames at 15 fps: "
              f"{out['rulebook_game_video_min_cpu']} min CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
