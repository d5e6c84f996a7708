"""Render the committed sample pictures of stack reading (samples/reading/), seeded.

    python3 tools/make_reading_samples.py [NAME ...] [--out samples/reading]

Each sample is NAME.jpg (960x540, small JPEG) and NAME.json (the renderer's ground truth:
game, every point's stack, the camera pose).  They cover what reading must get right:
the tallest Accasta stacks (6 high, mixed), Attangle 5-stacks, Dame 100 kings (also seen
from high up and steeply), crowded boards seen low (stacks hiding each other), a camera too
low to read surely, dim and uneven light, late Attangle positions seen low (stacks behind taller ones),
glossy black tops seen from above under a lamp beside the camera or low at one side (they
look grey), a hand over the board, black men on the near-black cells of a dark (slate) board,
and discs of other sets (thicker and wider than the box's, also in the start position; thinner
and narrower).  The same command always writes the same files.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.camera import look_at_pose  # noqa: E402
from rules import GAMES, new_game  # noqa: E402
from rules.geometry import BoardSpec  # noqa: E402
from vision.synth.photo import develop, jpeg, random_photo_look  # noqa: E402
from vision.synth.render import render_linear  # noqa: E402
from vision.synth.rig import rig_at  # noqa: E402
from vision.synth.games import crowded_position  # noqa: E402
from vision.synth.hand import hand_capsules  # noqa: E402
from vision.synth.scene import Sample, random_scene, scene_truth  # noqa: E402

SIZE = (960, 540)

class Position(NamedTuple):
    """A sample's set position: the game, its stacks, and the camera's elevation range in
    degrees above the table (None: the default rig's)."""

    game: str
    points: dict[str, str]
    elevation_deg: tuple[float, float] | None = None


POSITIONS: dict[str, Position] = {
    "accasta-tall": Position("accasta", {"d4": "wbwbbw", "c3": "bbwwbw", "e5": "wwbbwb", "b2": "ww", "f3": "b", "d2": "bwb",
                                 "c5": "w", "e2": "bbw", "a1": "bwbbw", "g4": "wbw"}),
    "attangle-five": Position("attangle", {"d4": "wbwwb", "c2": "bbbww", "e5": "bbwww", "d6": "bwb", "b3": "w", "f2": "bwb",
                                   "c4": "wbb", "e3": "wbbbw", "a2": "b", "g3": "w"}),
    "dame-kings": Position("dame100", {"a1": "w", "c3": "ww", "e5": "bb", "g7": "b", "d4": "b", "f4": "w", "h6": "ww",
                               "b8": "bb", "j8": "b", "i9": "w", "c7": "w", "d2": "bb"}),
    # Kings seen from high up: a black king's groove does not show, and on its dark cell little
    # of its side does.
    "dame-kings-high": Position("dame100", {"b2": "bb", "f2": "b", "c3": "ww", "g3": "bb", "d4": "b", "h4": "bb",
                                            "a5": "w", "e5": "bb", "i5": "ww", "d6": "bb", "h6": "w", "c7": "bb",
                                            "g7": "ww", "b8": "b", "f8": "bb", "e9": "w", "i9": "bb", "d10": "ww"},
                                (50.0, 56.0)),
    # Kings seen from higher still, where the reader reads with its steep net.
    "dame-kings-steep": Position("dame100", {"a1": "bb", "e3": "b", "d2": "ww", "h2": "bb", "c3": "bb", "g3": "w",
                                             "b4": "bb", "f4": "ww", "j4": "b", "e5": "bb", "i5": "bb", "d6": "w",
                                             "h6": "bb", "c7": "ww", "g7": "bb", "b8": "bb", "f8": "b", "j8": "ww",
                                             "e9": "bb", "c9": "w", "h10": "bb"},
                                 (62.0, 68.0)),
}


def make(name: str, seed: int) -> Sample:
    rng = np.random.default_rng(seed)
    if name in POSITIONS:
        game, points, elevation_deg = POSITIONS[name]
        cannot = [p for p, s in points.items() if s and not GAMES[game].can_stand(s)]
        if cannot:
            raise SystemExit(f"{name}: {game} cannot build the stacks on {', '.join(cannot)}")
        scene = random_scene(game, rng, points=points, size=SIZE, rig=rig_at(elevation_deg))
    elif name == "thick-discs":
        # Discs of another set, thicker and wider than the box's: read right only when told so.
        game, points, _ = POSITIONS["accasta-tall"]
        scene = random_scene(game, rng, points=points, size=SIZE, spec=BoardSpec().with_discs((32.0, 9.0)))
    elif name == "thin-discs":
        # A game's stacks in discs thinner and narrower than the box's, seen as most cameras are.
        game = "accasta"
        scene = random_scene(game, rng, size=SIZE, spec=BoardSpec().with_discs((26.0, 5.0)), rig=rig_at((35.0, 50.0)))
    elif name == "start-32x9":
        # The start position in those discs, as calibrate board sees it before a game.
        game = "accasta"
        scene = random_scene(game, rng, points=new_game(game).visible(), size=SIZE,
                             spec=BoardSpec().with_discs((32.0, 9.0)), rig=rig_at((35.0, 50.0)))
    elif name in ("attangle-behind", "attangle-square-behind"):
        # A late position seen low: stacks stand behind taller ones, their tops in view above them.
        game = name.removesuffix("-behind")
        scene = random_scene(game, rng, points=crowded_position(game, rng), size=SIZE, rig=rig_at((32.0, 40.0)))
    elif name == "crowded-low":
        game = "dame100"
        scene = random_scene(game, rng, points=new_game(game).visible(), size=SIZE)
        cam = scene.pose.camera
        scene = replace(scene, pose=look_at_pose(cam, (40.0, -470.0, 300.0), "square", (0.0, 10.0, 0.0)))
    elif name == "too-low":
        game = "accasta"
        scene = random_scene(game, rng, points=new_game(game).visible(), size=SIZE)
        # A camera 15 degrees up at White's side: nearer stacks hide much of each point behind.
        scene = replace(scene, pose=look_at_pose(scene.pose.camera, (30.0, -640.0, 175.0), "hex", (0.0, 20.0, 0.0)))
    elif name == "slate-dame":
        game = "dame100"
        scene = random_scene(game, rng, points=new_game(game).visible(), size=SIZE, board_look="slate")
    elif name == "dim-uneven":
        game = "accasta"
        scene = random_scene(game, rng, size=SIZE)
        scene = replace(scene, lighting=replace(scene.lighting, ambient=0.12, lamp_mm=(-700.0, 300.0, 600.0)))
    elif name == "glossy-above":
        game = "attraktion"
        scene = random_scene(game, rng, size=SIZE, top_down=True)
        # A lamp beside the camera: glossy black tops mirror it and look grey, their rims stay dark.
        x, y, z = scene.pose.camera_position_mm()
        scene = replace(scene, piece_look="plastic",
                        lighting=replace(scene.lighting, lamp_mm=(x + 150.0, y, z + 150.0), lamp_size_mm=120.0))
    elif name == "lamp-aside":
        game = "alva"
        scene = random_scene(game, rng, size=SIZE, top_down=True)
        # A lamp low at one side: the glossy black discs near it mirror it and look grey.
        x, y, z = scene.pose.camera_position_mm()
        scene = replace(scene, piece_look="plastic",
                        lighting=replace(scene.lighting, lamp_mm=(x + 500.0, y + 100.0, z - 150.0), lamp_size_mm=150.0))
    elif name == "hand":
        game = "accasta"
        scene = random_scene(game, rng, points=new_game(game).visible(), size=SIZE)
        scene = replace(scene, hand=hand_capsules(np.array([0.0, 0.0, 12.0]), np.array([0.0, 1.0]), 0.6))
    else:
        raise ValueError(name)
    photo = replace(random_photo_look(rng), defocus_px=0.5, motion_px=0.0, jpeg_quality=85)
    linear, _ = render_linear(scene)
    if name == "dim-uneven":
        photo = replace(photo, exposure=0.55, vignette=0.35)
        # Uneven: light falling off across the picture and the soft shadow of someone nearby.
        h, w = linear.shape[:2]
        yy, xx = np.mgrid[:h, :w].astype(np.float32)
        shade = (0.45 + 0.55 * xx / w) * (1 - 0.5 * np.exp(-((xx - 0.4 * w) ** 2 + (yy - 0.55 * h) ** 2) / (0.18 * w) ** 2))
        linear = linear * shade[..., None]
    return Sample(name, jpeg(develop(linear, photo, rng), photo.jpeg_quality), scene_truth(scene))


SAMPLES = {"accasta-tall": 11, "attangle-five": 12, "dame-kings": 13, "dame-kings-high": 61, "dame-kings-steep": 62,
           "crowded-low": 14, "dim-uneven": 15, "hand": 16, "glossy-above": 17, "lamp-aside": 22, "slate-dame": 27,
           "too-low": 31, "thick-discs": 41, "thin-discs": 45, "start-32x9": 43, "attangle-behind": 53,
           "attangle-square-behind": 57}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="render only these samples (default: all)")
    parser.add_argument("--out", type=Path, default=Path("samples/reading"))
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in SAMPLES]
    if unknown:
        parser.error(f"no sample {unknown[0]!r}; the samples are {', '.join(SAMPLES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names or SAMPLES:
        make(name, SAMPLES[name]).write(args.out)
        print(f"wrote {args.out / name}.jpg")


if __name__ == "__main__":
    main()
