"""Dump height evidence for fitting the height model (tools/fit_stack_weights.py).

    python3 tools/height_data.py OUT.npz DIR [DIR ...]                # rendered stills
    python3 tools/height_data.py --pose-error OUT.npz DIR [DIR ...]   # the pose a little wrong
    python3 tools/height_data.py --films 16 --seed 1000 OUT.npz       # frames of rendered films

For every point of every picture: the rows of :func:`vision.heights.height_features`
(padded to 7 heights), the true height, the number of heights the game allows, how tall a
layer's side looks, the picture's index and the game.  Nearer stacks' true heights decide
what is hidden, as the reader's front-to-back pass does.

Stills come from folders written by ``tacticblue scenes render`` (the first ``--limit`` of each).
``--pose-error`` reads them with the pose slightly off (:func:`perturbed`), as the board
finder and tracker give it on films (0.2-0.7 px, at most 2 px, on the 1280x720 films of
tests/test_live.py).

``--films N`` renders N short films per stacking game as a tripod camera takes them
(:func:`vision.synth.video.render_video`'s camera, look and photo settings: any side of
the board or behind White, no top-down view, a sharp focus), each a random game of
FILM_PLIES plies seen every FILM_EVERY plies, compressed as a video is (H.264 through
ffmpeg when it is installed), with the pose the board finder returns on the first frame.
:func:`films` can also draw each film's size and encoder from several (``tools/fit_stack_net.py --films``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rules  # noqa: E402
from calibration.camera import BoardPose  # noqa: E402
from vision.board_finder import BoardNotFound, board_model, find_board  # noqa: E402
from vision.heights import height_features  # noqa: E402
from vision.stack_net import LAYERS, STEEP_RISE, cut_patches, patch_frames  # noqa: E402
from vision.stacks import FrameSamples, StackModel  # noqa: E402
from vision.synth.photo import develop, random_photo_look  # noqa: E402
from vision.synth.render import render_linear  # noqa: E402
from vision.synth.scene import pose_from_truth, random_scene  # noqa: E402
from vision.synth.video import game_plies  # noqa: E402
from vision.tracking import nearest_orientation  # noqa: E402

ROWS = 7
ROTATION_ERROR = 0.0015
"""Standard deviation of the pose's rotation error (radians, per axis)."""
SHIFT_ERROR_MM = 0.4
"""Standard deviation of the pose's translation error (millimetres, per axis)."""
STACKING_GAMES = ("accasta", "abande", "abande-square", "attangle", "attangle-2008", "attangle-square", "dame100")
FILM_PLIES = 30
FILM_EVERY = 3


def perturbed(pose: BoardPose, rng: np.random.Generator) -> BoardPose:
    """``pose`` a little wrong (see ``ROTATION_ERROR``, ``SHIFT_ERROR_MM``)."""
    return replace(pose, rvec=pose.rvec + rng.normal(0, ROTATION_ERROR, 3),
                   tvec=pose.tvec + rng.normal(0, SHIFT_ERROR_MM, 3))


def stills(dirs: list[str], pose_error: bool, limit: int | None = None
           ) -> Iterator[tuple[str, BoardPose, np.ndarray, dict[str, str]]]:
    """The scenes of rendered folders (the first ``limit`` of each), with their poses a little
    off if ``pose_error``."""
    rng = np.random.default_rng(5)
    for path in sorted(p for d in dirs for p in sorted(Path(d).glob("*.json"))[:limit]):
        truth = json.loads(path.read_text())
        pose = pose_from_truth(truth)
        yield truth["game"], perturbed(pose, rng) if pose_error else pose, cv2.imread(str(path.with_suffix(".jpg"))), \
            truth["points"]


def patches_of(dirs: list[str], pose_error: bool) -> dict[str, np.ndarray]:
    """Every point's patch (uint8), layer rise, true height, top colour (0 none, 1 white,
    2 black), each layer's colour from the bottom (points x 6: 0 white, 1 black, -1 no
    such layer) and the share of the board there that the nearer stacks leave in view
    (``board``) in the stills of ``dirs``."""
    data: dict[str, list[np.ndarray]] = {"patches": [], "rise": [], "height": [], "top": [], "layers": [], "board": []}
    for game, pose, image, points in stills(dirs, pose_error):
        g = rules.GAMES[game]
        model = StackModel(pose, g.geometry, g.max_height)
        maps, rise = patch_frames(model)
        stacks = [points.get(n, "") for n in model.names]
        heights = np.array([len(s) for s in stacks])
        data["board"].append(model.board_in_view(model.visible(np.arange(len(stacks)), heights)))
        data["patches"].append(cut_patches(image, maps))
        data["rise"].append(rise)
        data["height"].append(heights)
        data["top"].append(np.array([0 if not s else 1 if s[-1] == "w" else 2 for s in stacks]))
        data["layers"].append(np.array([[-1 if k >= len(s) else int(s[k] == "b") for k in range(LAYERS)]
                                        for s in stacks], np.int64).reshape(-1, LAYERS))
    return {k: np.concatenate(v) for k, v in data.items()}


def net_patches(dirs: list[str], rise_below: float | None = None, behind: float | None = None
                ) -> dict[str, np.ndarray]:
    """:func:`patches_of` the stills of ``dirs`` with their true poses and a little off, as
    the patch net is fitted and its 8-bit copy measured; with ``rise_below``, only the points
    whose layers rise less than that (:func:`vision.stack_net.patch_frames`), as for the steep
    net; with ``behind``, only the others where nearer stacks leave less than that share of the
    board in view, as for the behind net."""
    parts = [patches_of(dirs, pose_error) for pose_error in (False, True)]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    keep = np.ones(len(data["rise"]), bool)
    if rise_below is not None:
        keep &= data["rise"] < rise_below
    if behind is not None:
        keep &= (data["rise"] >= STEEP_RISE) & (data["board"] < behind)
    return {k: v[keep] for k, v in data.items()}


def _as_video(images: list[np.ndarray], encoder: str = "h264", crf: int = 30) -> list[np.ndarray]:
    """The frames after a video encoder's compression: H.264 at ``crf``, as a phone or webcam
    records (JPEG at quality 40 without ffmpeg), or ``"mp4v"``, MPEG-4 part 2 as OpenCV writes
    it (:func:`vision.synth.video.write_video`)."""
    if encoder == "h264" and shutil.which("ffmpeg") is None:
        return [cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, 40])[1], cv2.IMREAD_COLOR)
                for im in images]
    with tempfile.TemporaryDirectory() as tmp:
        if encoder == "mp4v":
            h, w = images[0].shape[:2]
            writer = cv2.VideoWriter(f"{tmp}/v.mp4", cv2.VideoWriter_fourcc(*"mp4v"), 8.0, (w, h))
            for im in images:
                writer.write(im)
            writer.release()
        else:
            for k, im in enumerate(images):
                cv2.imwrite(f"{tmp}/{k:04d}.png", im)
            subprocess.run(["ffmpeg", "-y", "-loglevel", "error", "-framerate", "8", "-i", f"{tmp}/%04d.png",
                            "-c:v", "libx264", "-crf", str(crf), "-bf", "0", "-g", "4", "-pix_fmt", "yuv420p",
                            f"{tmp}/v.mp4"], check=True)
        capture = cv2.VideoCapture(f"{tmp}/v.mp4")
        out = [frame for ok, frame in iter(capture.read, (False, None)) if ok]
    if len(out) != len(images):
        raise RuntimeError(f"ffmpeg gave {len(out)} frames for {len(images)}")
    return out


def films(count: int, seed: int, sizes: tuple[tuple[int, int], ...] = ((1280, 720),), encoders: tuple[str, ...] = ("h264",)
          ) -> Iterator[tuple[str, BoardPose, np.ndarray, dict[str, str]]]:
    """The frames of ``count`` films per stacking game (see the module's docstring), each film
    at one of ``sizes`` (width, height) and through one of ``encoders`` (:func:`_as_video`;
    H.264 at a CRF of 30, or of 23-33 when the encoder is drawn too), drawn apart from the
    scene, so that one size and encoder give the films they always gave."""
    for game in STACKING_GAMES:
        geometry = rules.GAMES[game].geometry
        for n in range(seed, seed + count):
            rng = np.random.default_rng([n, 7919])
            pick = np.random.default_rng([n, 104729, zlib.crc32(game.encode())])
            size = sizes[int(pick.integers(len(sizes)))]
            encoder = encoders[int(pick.integers(len(encoders)))]
            crf = int(pick.integers(23, 34)) if len(encoders) > 1 else 30
            board, plies = game_plies(game, None, FILM_PLIES, n)
            behind = rng.random() < 0.5
            scene = random_scene(game, rng, points=board.visible(), size=size, top_down=False,
                                 azimuth_deg=270.0 + rng.uniform(-25, 25) if behind else None)
            photo = random_photo_look(rng)
            photo = replace(photo, motion_px=0.0, defocus_px=min(photo.defocus_px, 0.7))
            positions = [board.visible()]
            for ply in plies:
                board.push(ply)
                positions.append(board.visible())
            positions = positions[::FILM_EVERY]
            images = []
            for position in positions:
                linear = render_linear(replace(scene, points=position))[0] * np.float32(1 + rng.normal(0, 0.03))
                images.append(develop(linear, photo, rng))
            images = _as_video(images, encoder, crf)
            try:
                found = find_board(images[0], geometry.kind, start=(geometry, positions[0]))
            except BoardNotFound:
                print(f"{game} film {n}: board not found, left out", file=sys.stderr)
                continue
            # White's side as the truth has it (an empty start position cannot show it).
            pose = nearest_orientation(found, scene.pose, board_model(geometry.kind))
            for image, position in zip(images, positions):
                yield game, pose, image, position


def dump(out: str, pictures: Iterator[tuple[str, BoardPose, np.ndarray, dict[str, str]]]) -> None:
    data: dict[str, list[Any]] = {k: [] for k in ("X", "y", "nh", "side", "scene", "game")}
    models: dict[tuple[str, bytes], StackModel] = {}
    n = -1
    for n, (game, pose, image, points) in enumerate(pictures):
        g = rules.GAMES[game]
        key = (game, pose.rvec.tobytes() + pose.tvec.tobytes())
        if key not in models:
            models.clear()
            models[key] = StackModel(pose, g.geometry, g.max_height)
        model = models[key]
        frame = FrameSamples.of(model, image)
        heights = np.array([len(points[p]) for p in model.names])
        every = np.arange(len(model.names))
        features, _ = height_features(model, frame, every, model.visible(every, heights))
        for i, rows in enumerate(features):
            pad = np.zeros((ROWS, rows.shape[1]))
            pad[:len(rows)] = rows
            for k, v in zip(data, (pad, heights[i], len(rows), model.points[i].side_px, n, game)):
                data[k].append(v)
    np.savez_compressed(out, **{k: np.array(v) for k, v in data.items()})
    print(f"{len(data['y'])} points of {n + 1} pictures -> {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the .npz file to write")
    parser.add_argument("dirs", nargs="*", help="folders of rendered stills (tacticblue scenes render)")
    parser.add_argument("--pose-error", action="store_true", help="read the stills with the pose a little off")
    parser.add_argument("--limit", type=int, help="read at most this many stills of each folder")
    parser.add_argument("--films", type=int, default=0, help="instead, render this many films per stacking game")
    parser.add_argument("--seed", type=int, default=1000, help="with --films: the first film's seed")
    args = parser.parse_args()
    if bool(args.films) == bool(args.dirs):
        parser.error("give folders of stills, or --films N")
    dump(args.out, films(args.films, args.seed) if args.films else stills(args.dirs, args.pose_error, args.limit))


if __name__ == "__main__":
    main()
