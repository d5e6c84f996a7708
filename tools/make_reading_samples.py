"""Render the committed sample pictures of stack reading (samples/reading/), seeded.

    python3 tools/make_reading_samples.py [--out samples/reading]

Each sample is NAME.jpg (960x540, small JPEG) and NAME.json (the renderer's ground truth:
game, every point's stack, the camera pose).  They cover what reading must get right:
the tallest Accasta stacks (6 high, mixed), Attangle 5-stacks, Dame 100 kings, crowded
boards seen low (stacks hiding each other), dim and uneven light, and a hand over the
board.  The same command always writes the same files.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.camera import look_at_pose  # noqa: E402
from vision.synth.photo import jpeg, random_photo_look  # noqa: E402
from vision.synth.render import Capsule, Lighting  # noqa: E402
from vision.synth.scene import Sample, random_scene, render_image, scene_truth  # noqa: E402

SIZE = (960, 540)

POSITIONS: dict[str, tuple[str, dict[str, str]]] = {
    "accasta-tall": ("accasta", {"d4": "wbwbbw", "c3": "bbwwbw", "e5": "wwbbwb", "b2": "ww", "f3": "b", "d2": "bwb",
                                 "c5": "w", "e2": "bbw", "a1": "bwbbw", "g4": "wbw"}),
    "attangle-five": ("attangle", {"d4": "wbwwb", "c2": "bbbww", "e5": "wwwww", "d6": "bwb", "b3": "w", "f2": "bb",
                                   "c4": "bw", "e3": "wbbbw", "a2": "b", "g3": "w"}),
    "dame-kings": ("dame100", {"a1": "w", "c3": "ww", "e5": "bb", "g7": "b", "d4": "b", "f4": "w", "h6": "ww",
                               "b8": "bb", "j8": "b", "i9": "w", "c7": "w", "d2": "bb"}),
}


def hand_over(x: float, y: float, reach_from: tuple[float, float] = (0.0, -520.0)) -> tuple[Capsule, ...]:
    """A forearm coming from ``reach_from`` (mm, beside the board) and a hand with fingers above (x, y)."""
    wrist = (x + 0.25 * (reach_from[0] - x), y + 0.25 * (reach_from[1] - y), 70.0)
    elbow = (reach_from[0], reach_from[1], 140.0)
    palm = (x, y, 45.0)
    caps = [Capsule(elbow, wrist, 32.0), Capsule(wrist, palm, 28.0)]
    for dx in (-18.0, -6.0, 6.0, 18.0):
        caps.append(Capsule((x + dx, y, 45.0), (x + dx * 1.2, y + 45.0, 22.0), 8.0))
    return tuple(caps)


def make(name: str, seed: int) -> Sample:
    rng = np.random.default_rng(seed)
    if name in POSITIONS:
        game, points = POSITIONS[name]
        scene = random_scene(game, rng, points=points, size=SIZE)
    elif name == "crowded-low":
        from rules import new_game

        game = "dame100"
        scene = random_scene(game, rng, points=new_game(game).visible(), size=SIZE)
        cam = scene.pose.camera
        scene = replace(scene, pose=look_at_pose(cam, (40.0, -470.0, 300.0), "square", (0.0, 10.0, 0.0)))
    elif name == "dim-uneven":
        game = "accasta"
        scene = random_scene(game, rng, size=SIZE)
        scene = replace(scene, lighting=replace(scene.lighting, ambient=0.12, lamp_mm=(-700.0, 300.0, 600.0)),
                        blobs=((60.0, 40.0, 120.0, 0.55), (-120.0, -80.0, 90.0, 0.4)))
    elif name == "hand":
        from rules import new_game

        game = "accasta"
        scene = random_scene(game, rng, points=new_game(game).visible(), size=SIZE)
        scene = replace(scene, hand=hand_over(0.0, 0.0))
    else:
        raise ValueError(name)
    photo = replace(random_photo_look(rng), defocus_px=0.5, motion_px=0.0, jpeg_quality=85)
    if name == "dim-uneven":
        photo = replace(photo, exposure=0.55, vignette=0.35)
    return Sample(name, jpeg(render_image(scene, photo, rng), photo.jpeg_quality), scene_truth(scene))


SAMPLES = {"accasta-tall": 11, "attangle-five": 12, "dame-kings": 13, "crowded-low": 14, "dim-uneven": 15, "hand": 16}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("samples/reading"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, seed in SAMPLES.items():
        make(name, seed).write(args.out)
        print(f"wrote {args.out / name}.jpg")


if __name__ == "__main__":
    main()
