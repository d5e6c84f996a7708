"""Random scenes and their ground truth: the renderer's public entry points.

>>> import numpy as np
>>> scene = random_scene("accasta", np.random.default_rng(1), size=(320, 180))
>>> truth = scene_truth(scene)
>>> sorted(truth), sorted(truth["camera"])[:4]
(['camera', 'game', 'pixels', 'points'], ['K', 'dist', 'image_size', 'kind'])
>>> bool(np.allclose(pose_from_truth(truth).point_pixels(scene.geometry)["d4"], truth["pixels"]["d4"], atol=1e-3))
True
"""

from __future__ import annotations

import json
import math
import random
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2
import numpy as np

from calibration.camera import BoardPose, CameraModel
from rules.geometry import DEFAULT_SPEC, BoardSpec
from vision.synth.games import game_info, random_position
from vision.synth.looks import DRAWN_LOOKS, TABLE_LOOKS, rgb
from vision.synth.photo import PhotoLook, develop, jpeg, random_photo_look
from vision.synth.render import PIECE_LOOKS, DiscFinish, Lighting, Placement, Scene, render_linear
from vision.synth.rig import DEFAULT_RIG, RigRange, random_camera, random_pose

SKIN_TONES = tuple(rgb(c) for c in ("#f1c6a8", "#e0ac8a", "#c68a64", "#a06a48", "#7a4a30", "#5a3422"))


def lamp_at(azimuth: float, elevation: float, distance_mm: float) -> tuple[float, float, float]:
    """The board-frame position (mm) of a lamp seen from the board's centre at ``azimuth`` and
    ``elevation`` (radians), ``distance_mm`` away."""
    return (distance_mm * math.cos(elevation) * math.cos(azimuth), distance_mm * math.cos(elevation) * math.sin(azimuth),
            distance_mm * math.sin(elevation))


def random_lighting(rng: np.random.Generator) -> Lighting:
    """A room lamp or window: somewhere above the table, warm to cool, hard to soft."""
    az = rng.uniform(0, 2 * math.pi)
    lamp = lamp_at(az, math.radians(rng.uniform(35, 85)), rng.uniform(700, 2200))
    warmth = rng.uniform(-0.25, 0.3)
    colour = (1.0 - 0.6 * warmth, 1.0 - 0.1 * warmth, 1.0 + 0.25 * warmth)
    amb = rng.uniform(0.2, 0.55)
    sky = (1.0 + 0.08 * warmth * -1, 1.0, 1.0 - 0.08 * warmth * -1)
    room = tuple(float(v) for v in rng.uniform(0.12, 0.45) * rng.uniform(0.8, 1.2, 3))
    return Lighting(lamp, colour, float(rng.uniform(15, 120)), float(amb), sky, room)  # type: ignore[arg-type]


def random_scene(game: str, rng: np.random.Generator, points: dict[str, str] | None = None,
                 size: tuple[int, int] | None = None, top_down: bool | None = None,
                 board_look: str | None = None, spec: BoardSpec = DEFAULT_SPEC,
                 azimuth_deg: float | None = None, rig: RigRange = DEFAULT_RIG) -> Scene:
    """A random photo set-up of a game: position (random if not given), camera, looks and light.

    ``azimuth_deg``: where the camera stands (see :func:`vision.synth.rig.random_pose`); any side when None.
    ``rig``: the ranges the camera is drawn from."""
    info = game_info(game)
    if points is None:
        points = random_position(game, random.Random(int(rng.integers(2**63))))
    unknown = set(points) - set(info.geometry.names)
    if unknown:
        raise ValueError(f"no point {sorted(unknown)[0]!r} on the {game} board")
    tallest = max([info.max_height, *map(len, points.values())])
    if top_down is None:
        top_down = tallest == 1 and rig.top_down_share > 0 and rng.random() < rig.top_down_share
    camera = random_camera(rng, size, rig)
    pose = random_pose(camera, info.geometry, rng, tallest * spec.piece_height_mm, top_down=top_down, rig=rig,
                       spec=spec, azimuth_deg=azimuth_deg)
    scene = Scene(
        game=game, geometry=info.geometry, points={n: points.get(n, "") for n in info.geometry.names},
        pose=pose,
        board_look=board_look or str(rng.choice(DRAWN_LOOKS)),
        table_look=str(rng.choice(sorted(TABLE_LOOKS))),
        piece_look=str(rng.choice(sorted(PIECE_LOOKS))),
        lighting=random_lighting(rng),
        seed=int(rng.integers(2**31)),
        skin=SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
    )
    return replace(scene, lighting=replace(scene.lighting, overhead=float(rng.uniform(0, 1))),
                   finish=random_finish(rng))


def random_finish(rng: np.random.Generator) -> DiscFinish:
    """A set of discs: rims from nearly sharp to well rounded, a raised, engraved or no ring,
    whites from cool to warm or pinkish, blacks from black to dark grey."""
    ring = rng.choice([0.0, 1.0, -1.0]) * rng.uniform(0.1, 0.35)
    lift = rng.uniform(0, 0.02) + rng.uniform(-0.005, 0.005, 3)
    return DiscFinish(edge_mm=float(rng.uniform(0.3, 2.0)), ring=float(ring),
                      white_tint=tuple(float(v) for v in rng.uniform(0.88, 1.06, 3)),  # type: ignore[arg-type]
                      black_lift=tuple(float(v) for v in np.maximum(lift, 0)))  # type: ignore[arg-type]


def render_image(scene: Scene, photo: PhotoLook, rng: np.random.Generator) -> np.ndarray:
    """The 8-bit BGR photo of a scene (before JPEG compression)."""
    linear, _ = render_linear(scene)
    return develop(linear, photo, rng)


def camera_truth(pose: BoardPose, setup: str = "side") -> dict[str, Any]:
    """The camera as the ground truth records it: exactly what :class:`BoardPose` projects."""
    return {"K": pose.camera.K.tolist(), "dist": pose.camera.dist.tolist(), "rvec": pose.rvec.tolist(),
            "tvec": pose.tvec.tolist(), "image_size": list(pose.camera.image_size), "kind": pose.kind,
            "spec": pose.spec.to_dict(), "setup": setup}


def scene_truth(scene: Scene) -> dict[str, Any]:
    """Ground truth of an image: game, every point's stack, the camera and every point's pixel,
    and how far its discs stand off their points where that is not the renderer's default."""
    setup = "top-down" if scene.pose.elevation_deg() > 80 else "side"
    pixels = scene.pose.point_pixels(scene.geometry)
    truth = {"game": scene.game, "points": dict(scene.points),
             "pixels": {n: [round(u, 4), round(v, 4)] for n, (u, v) in pixels.items()},
             "camera": camera_truth(scene.pose, setup)}
    if scene.placement != Placement():
        truth["placement_mm"] = [scene.placement.stack_mm, scene.placement.disc_mm]
    return truth


def pose_from_truth(truth: dict[str, Any]) -> BoardPose:
    """The :class:`BoardPose` of a ground-truth record (image or video)."""
    cam = truth["camera"]
    return BoardPose(CameraModel(np.array(cam["K"]), np.array(cam["dist"]), tuple(cam["image_size"])),
                     np.array(cam["rvec"]), np.array(cam["tvec"]), cam["kind"], BoardSpec.from_dict(cam["spec"]))


@dataclass(frozen=True)
class Sample:
    name: str
    jpeg: bytes
    truth: dict[str, Any]

    def write(self, out: Path) -> None:
        (out / f"{self.name}.jpg").write_bytes(self.jpeg)
        (out / f"{self.name}.json").write_text(json.dumps(self.truth, indent=1) + "\n")


def sample_rng(game: str, seed: int, index: int) -> np.random.Generator:
    """The random state of image ``index`` of a set: the same seed always gives the same image."""
    return np.random.default_rng([seed, index, zlib.crc32(game.encode())])


def render_samples(game: str, count: int, seed: int, size: tuple[int, int] | None = None,
                   top_down: bool | None = None, board_look: str | None = None,
                   position: Callable[[np.random.Generator], dict[str, str]] | None = None,
                   rig: RigRange = DEFAULT_RIG,
                   lighting: Callable[[Scene, np.random.Generator], Lighting] | None = None,
                   spec: BoardSpec = DEFAULT_SPEC, placement: Placement = Placement()) -> Iterator[Sample]:
    """``count`` random photos of a game with their ground truth, reproducible from ``seed``
    (``position``: draws each photo's position; by default a random game's; ``rig``: the
    ranges the camera is drawn from; ``lighting``: draws each photo's light for its scene, by
    default :func:`random_lighting`; ``spec``: the board and discs; ``placement``: how far
    the discs stand off their points, which draws nothing, so a seed gives the same photo
    with its discs only moved)."""
    game_info(game)
    for i in range(count):
        rng = sample_rng(game, seed, i)
        points = None if position is None else position(rng)
        scene = random_scene(game, rng, points=points, size=size, top_down=top_down, board_look=board_look, rig=rig,
                             spec=spec)
        if lighting is not None:
            scene = replace(scene, lighting=lighting(scene, rng))
        scene = replace(scene, placement=placement)
        photo = random_photo_look(rng)
        image = render_image(scene, photo, rng)
        yield Sample(f"{game}-{seed}-{i:04d}", jpeg(image, photo.jpeg_quality), scene_truth(scene))


def contact_sheet(tiles: list[tuple[str, np.ndarray]], columns: int = 2, tile_size: tuple[int, int] = (640, 360)
                  ) -> np.ndarray:
    """Images side by side, each scaled to ``tile_size`` and labelled in its corner (for looking at a set)."""
    w, h = tile_size
    rows = -(-len(tiles) // columns)
    sheet = np.full((rows * h, columns * w, 3), 255, np.uint8)
    for k, (label, image) in enumerate(tiles):
        tile = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
        cv2.putText(tile, label, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(tile, label, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2, cv2.LINE_AA)
        r, c = divmod(k, columns)
        sheet[r * h:(r + 1) * h, c * w:(c + 1) * w] = tile
    return sheet
