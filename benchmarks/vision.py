"""Stack reading on synthetic scenes: accuracy per point and per image, and time per frame.

    python3 benchmarks/vision.py [--games accasta dame100] [--count 200] [--seed 7]
    python3 benchmarks/vision.py --dir scenes/accasta --dir scenes/dame100   # pre-rendered sets
    python3 benchmarks/vision.py --find 20    # also find the board in the first 20 images of each game
    python3 benchmarks/vision.py --effect tone=1.6   # as a camera with a darker tone curve takes them
    python3 benchmarks/vision.py --elevation 60-70   # only cameras looking down steeply
    python3 benchmarks/vision.py --size 1920x1080    # as a 1080p camera takes them
    python3 benchmarks/vision.py --games accasta --count 40 --wrong   # and every point read wrong
    python3 benchmarks/vision.py --discs 31x8 [--read-as 29x7]   # discs of another size, told (or not)

Scenes come from the renderer (every camera placement, board look, lighting and photo
effect it draws, at 1280x720 unless ``--size``) or from folders written by ``tacticblue scenes render`` or by
``tools/povray_scenes.py`` (the same scenes ray traced by POV-Ray, a renderer the height
model was not fitted on).
For every game it prints the share of points whose top colour, height and full stack were read
right (a ``?`` layer counts as wrong), the share of images read without a single error, the same
two counting as right a ``?`` on a layer that the truth's stacks in front hide or whose side is
too flat to see, the top layer only where its top face is hidden too, and a point said not seen
(not read, or with a confidence of 0) where they hide all of it (``stack?``, ``clean?``;
:func:`vision.reader.shown_layers`, :func:`vision.reader.out_of_sight`: the issue asks for ``?``
there, and "not readable"), the share of points read wrong yet sure (confidence at least
:data:`rules.infer.LOW_CONFIDENCE`, so the move inference takes them as read), and the median time
to prepare a pose (once per board placement) and to read a frame with the pose known, on one core:
the reader's first frame (``read ms``) and its next (``next ms``: the same frame again, as the
live loop reads every new frame with the reader it keeps, with the processor's caches warm; 1-2 ms
less). ``--find N`` also times the board finder plus reading, and the full-stack accuracy with the
found pose (turned to the truth's White's side). A second table gives ``stack?`` and ``clean?`` by
how steeply the camera looks down (:data:`ELEVATION_BANDS`): a layer's side looks thinner the
steeper the view, and hidden layers are more common the flatter. A third gives ``stack?`` of the
points holding a stack by how tall a layer's side looks there (:data:`SIDE_BANDS`), which the
elevation, the board's distance and the frame's size decide together. ``--wrong`` lists every
point read wrong: the scene, the camera's elevation, the point, its stack and the reading, the
reading's confidence, and whether it is sure (taken as read) or honest (right as far as it can be
seen).

Targets (issue 5): full stack right on 99.9% of points, 98% of images without an error,
30 ms per frame with the pose known and 0.5 s with board finding.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

cv2.setNumThreads(1)

import rules  # noqa: E402
from rules.geometry import DEFAULT_SPEC  # noqa: E402
from rules.infer import LOW_CONFIDENCE  # noqa: E402
from tacticblue.commands import disc_size, frame_size, placement_error  # noqa: E402
from tacticblue.commands.scenes import elevation_range  # noqa: E402
from vision.reader import THIN_SIDE_PX, StackReader, out_of_sight, shown_layers  # noqa: E402
from vision.synth.render import Placement  # noqa: E402
from vision.synth.rig import rig_at  # noqa: E402
from vision.synth.scene import pose_from_truth, render_samples  # noqa: E402


def scenes(args: argparse.Namespace) -> Iterator[tuple[str, np.ndarray, dict]]:
    if args.dir:
        for d in args.dir:
            for path in sorted(Path(d).glob("*.json"))[args.skip:args.skip + args.count]:
                yield path.stem, cv2.imread(str(path.with_suffix(".jpg"))), json.loads(path.read_text())
        return
    rig = rig_at(args.elevation)
    for game in args.games:
        spec = DEFAULT_SPEC.with_discs(args.discs)
        for s in render_samples(game, args.count, args.seed, size=args.size or (1280, 720), rig=rig, spec=spec,
                                placement=args.placement or Placement()):
            yield s.name, cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR), s.truth


EFFECTS = ("tone", "cast", "noise", "jpeg", "blur", "sharpen")
"""Camera effects the renderer does not draw (or not as strongly), for ``--effect NAME=VALUE``:
the 8-bit values raised to VALUE (1.3-1.6: a tone curve that darkens the shadows; 0.6-0.8:
a flat one), a colour cast of VALUE (0.2-0.3) in linear light (red times 1 + VALUE, blue
times 1 - VALUE: warm light and a daylight white balance), Gaussian noise of VALUE grey levels,
JPEG at quality VALUE, a Gaussian blur of VALUE pixels, and sharpening of strength VALUE (1:
an unsharp mask as strong as the picture, as many webcams apply)."""


def camera_effect(image: np.ndarray, effect: str, value: float, rng: np.random.Generator) -> np.ndarray:
    """``image`` (BGR, 8 bits) as a camera with ``effect`` (:data:`EFFECTS`) of strength ``value`` takes it."""
    if effect == "jpeg":
        _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(value)])
        return cv2.imdecode(data, cv2.IMREAD_COLOR)
    img = image.astype(np.float32)
    if effect == "tone":
        img = 255.0 * (img / 255.0) ** value
    elif effect == "cast":
        linear = (img / 255.0) ** 2.2 * np.array([1 - value, 1.0, 1 + value], np.float32)
        img = 255.0 * np.clip(linear, 0, 1) ** (1 / 2.2)
    elif effect == "noise":
        img = img + rng.normal(0.0, value, img.shape)
    elif effect == "blur":
        img = cv2.GaussianBlur(img, (0, 0), value)
    elif effect == "sharpen":
        img = cv2.addWeighted(img, 1 + value, cv2.GaussianBlur(img, (0, 0), 2.0), -value, 0)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def effect_argument(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    if name not in EFFECTS or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with NAME one of {', '.join(EFFECTS)}")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None


ELEVATION_BANDS = ((0.0, 30.0), (30.0, 45.0), (45.0, 60.0), (60.0, 90.0))
"""Camera elevations (degrees above the board) the second table splits the images by.  The
renderer's cameras stand 30-70 degrees up; ``--elevation 10-30`` fills the first band, the
views the reader trusts less (:data:`vision.reader.LOW_VIEW_DEG`)."""
SIDE_BANDS = ((0.0, 2.5), (2.5, THIN_SIDE_PX), (THIN_SIDE_PX, 5.0), (5.0, float("inf")))
"""How tall a layer's side looks (pixels, :attr:`vision.stacks.StackModel.side_px`) at the
points the third table splits the stacks by: what decides how well a height can be counted,
more than the elevation, as the board's distance and the frame's size count too
(:data:`vision.reader.THIN_SIDE_PX`: where a quarter of the points' sides look thinner, the
players are told the camera looks down too steeply)."""


def unseen_layers(reader: StackReader, stacks: dict[str, str]) -> dict[str, set[int] | None]:
    """Per point of ``stacks`` (the truth), its layers that cannot be seen, where a ``?`` is the
    right reading: a side hidden by the stacks in front or too flat, and for the top layer its
    top face hidden too.  None for a point nothing of which can be seen (the stacks in front
    hide every layer of its stack, or the board there and a disc on it when it is empty:
    :func:`vision.reader.out_of_sight`), where saying so is right too."""
    model = reader.model
    heights = np.array([len(stacks.get(n, "")) for n in model.names])
    every = np.arange(len(model.names))
    visible = model.visible(every, heights)
    shown = shown_layers(model, every, heights, visible)
    top_seen = np.take_along_axis(visible, model.cap_index[heights], axis=1).any(axis=1)
    hidden = out_of_sight(model, every, visible)
    layers = {n: {k for k in range(heights[i]) if not shown[i, k] and (k < heights[i] - 1 or not top_seen[i])}
              for i, n in enumerate(model.names)}
    return {n: None if hidden[i] and len(layers[n]) == heights[i] else layers[n] for i, n in enumerate(model.names)}


def honest(got: str | None, want: str, unseen: set[int] | None, confidence: float) -> bool:
    """Whether ``got`` reads the truth ``want`` as far as it can be seen (``unseen``: its
    :func:`unseen_layers`): every layer right or ``?`` where unseen; where nothing of it can
    be seen, also not read, or read with a ``confidence`` of 0 (not seen)."""
    if unseen is None and (got is None or float(confidence) == 0.0):
        return True
    if got is None:
        return False
    hidden = set(range(len(want))) if unseen is None else unseen
    return len(got) == len(want) and all(g == w or (g == "?" and k in hidden)
                                         for k, (g, w) in enumerate(zip(got, want)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=sorted(rules.GAMES))
    parser.add_argument("--count", type=int, default=200, help="images per game (default 200)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", action="append", help="read pre-rendered scenes from this folder instead")
    parser.add_argument("--skip", type=int, default=0, help="with --dir: leave out the first N images of a folder")
    parser.add_argument("--find", type=int, default=0, help="also find the board in the first N images of each game")
    parser.add_argument("--effect", type=effect_argument, metavar="NAME=VALUE",
                        help="read the scenes as a camera with this effect takes them (see EFFECTS): "
                             + ", ".join(EFFECTS))
    parser.add_argument("--elevation", type=elevation_range, metavar="LO-HI",
                        help="render only cameras this many degrees above the table (not with --dir)")
    parser.add_argument("--size", type=frame_size, metavar="WxH",
                        help="render the scenes at this frame size (default 1280x720; not with --dir)")
    parser.add_argument("--wrong", action="store_true", help="also list every point read wrong")
    parser.add_argument("--discs", type=disc_size, metavar="DxT",
                        help="render discs of this diameter and thickness (mm; default the box's 29x7; not with --dir)")
    parser.add_argument("--placement", type=placement_error, metavar="STACK[,DISC]",
                        help="render the discs this far off their points at most (mm; default 1.6,0.7: "
                             "vision.synth.render.Placement; not with --dir)")
    parser.add_argument("--read-as", type=disc_size, metavar="DxT",
                        help="read the scenes as if their discs were of this size, as a reader not told theirs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.elevation and args.dir:
        parser.error("--elevation chooses the cameras of rendered scenes; it cannot be used with --dir")
    if args.discs and args.dir:
        parser.error("--discs is the size of rendered scenes' discs; a folder's scenes say theirs")
    if args.size and args.dir:
        parser.error("--size is the frame size of rendered scenes; it cannot be used with --dir")
    if args.placement and args.dir:
        parser.error("--placement is how rendered scenes' discs stand; a folder's scenes stand as they were rendered")
    for d in args.dir or ():
        if not any(Path(d).glob("*.json")):  # a folder of folders, a typo: no figures, and no word why
            parser.error(f"{d}: no rendered scenes in it (NAME.jpg + NAME.json, "
                         "as tacticblue scenes render --out writes)")
    stats: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    rng = np.random.default_rng(args.seed)
    for name, image, truth in scenes(args):
        if args.effect:
            image = camera_effect(image, *args.effect, rng)
        game = truth["game"]
        st = stats[game]
        pose = pose_from_truth(truth)
        pose = replace(pose, spec=pose.spec.with_discs(args.read_as))
        t0 = time.perf_counter()
        reader = StackReader(game, pose)
        t1 = time.perf_counter()
        reading = reader.read(image)
        t2 = time.perf_counter()
        reader.read(image)
        st["prepare"].append(t1 - t0)
        st["read"].append(t2 - t1)
        st["next"].append(time.perf_counter() - t2)
        points = reading.observation.points
        unseen = unseen_layers(reader, truth["points"])
        side_px = dict(zip(reader.model.names, reader.model.side_px))
        wrong = dishonest = 0
        for p, want in truth["points"].items():
            got = points.get(p)
            st["top"].append(got is not None and (got[-1:] == want[-1:]))
            st["height"].append(got is not None and len(got) == len(want))
            st["stack"].append(got == want)
            confidence = reading.observation.conf(p)
            right = honest(got, want, unseen[p], confidence)
            st["honest"].append(right)
            if want:
                st["stack_sides"].append((side_px[p], right))
            dishonest += not right
            sure = bool(got is not None and got != want and confidence >= LOW_CONFIDENCE)
            st["sure_wrong"].append(sure)
            wrong += got != want
            if got != want:
                st["wrong"].append({"scene": name, "elevation": round(float(pose.elevation_deg()), 1), "point": p,
                                    "truth": want, "read": got, "confidence": round(float(confidence), 3),
                                    "sure": sure, "honest": right})
        st["image"].append(wrong == 0)
        st["honest_image"].append(dishonest == 0)
        st["elevation"].append(pose.elevation_deg())
        st["dishonest"].append((dishonest, len(truth["points"])))
        if len(st["found"]) < args.find:
            from vision.board_finder import BoardNotFound, board_model, find_board
            from vision.tracking import nearest_orientation

            t0 = time.perf_counter()
            try:
                found = find_board(image, pose.kind, start=None)
                # White's side as the truth has it: a random position need not show it, and
                # orientation is the calibration benchmark's business.
                found = nearest_orientation(found, pose, board_model(pose.kind))
                got = StackReader(game, found).read(image).observation.points
                st["found"].append(float(np.mean([got.get(p) == w for p, w in truth["points"].items()])))
            except BoardNotFound:
                st["found"].append(0.0)
            st["find_time"].append(time.perf_counter() - t0)
    report = {}
    for game, st in sorted(stats.items()):
        report[game] = {
            "images": len(st["image"]), "top_colour": float(np.mean(st["top"])),
            "height": float(np.mean(st["height"])), "full_stack": float(np.mean(st["stack"])),
            "full_stack_or_unseen": float(np.mean(st["honest"])),
            "images_without_error": float(np.mean(st["image"])),
            "images_without_error_or_unseen": float(np.mean(st["honest_image"])),
            "sure_and_wrong": float(np.mean(st["sure_wrong"])),
            "prepare_ms": 1000 * statistics.median(st["prepare"]), "read_ms": 1000 * statistics.median(st["read"]),
            "next_ms": 1000 * statistics.median(st["next"]),
        }
        if args.wrong:
            report[game]["wrong"] = st["wrong"]
        elevation, dishonest = np.array(st["elevation"]), np.array(st["dishonest"])
        bands = report[game]["by_elevation"] = {}
        for lo, hi in ELEVATION_BANDS:
            bad, points = dishonest[(elevation > lo) & (elevation <= hi)].T
            if len(points):
                bands[f"{lo:g}-{hi:g}"] = {"images": len(points),
                                           "full_stack_or_unseen": float(1 - bad.sum() / points.sum()),
                                           "images_without_error_or_unseen": float(np.mean(bad == 0))}
        sides = report[game]["by_side_px"] = {}
        for lo, hi in SIDE_BANDS:
            right = [r for px, r in st["stack_sides"] if lo <= px < hi]
            if right:
                sides[f"{lo:g}-{hi:g}"] = {"stacks": len(right), "full_stack_or_unseen": float(np.mean(right))}
        if st["found"]:
            report[game].update(found_full_stack=float(np.mean(st["found"])),
                                find_and_read_s=statistics.median(st["find_time"]))
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'game':16} {'images':>6} {'top':>7} {'height':>7} {'stack':>7} {'stack?':>7} {'clean':>7} {'clean?':>7}"
          f" {'sure&bad':>8} {'prep ms':>8} {'read ms':>8} {'next ms':>8} {'found':>7} {'find s':>7}")
    for game, r in report.items():
        extra = f" {r['found_full_stack']:7.4f} {r['find_and_read_s']:7.2f}" if "found_full_stack" in r else ""
        print(f"{game:16} {r['images']:6d} {r['top_colour']:7.4f} {r['height']:7.4f} {r['full_stack']:7.4f} "
              f"{r['full_stack_or_unseen']:7.4f} {r['images_without_error']:7.4f} "
              f"{r['images_without_error_or_unseen']:7.4f} {r['sure_and_wrong']:8.4f} {r['prepare_ms']:8.0f} "
              f"{r['read_ms']:8.0f} {r['next_ms']:8.0f}{extra}")
    bands = [f"{lo:g}-{hi:g}" for lo, hi in ELEVATION_BANDS]
    print(f"\nby the camera's elevation (degrees): stack?, clean?, images\n{'game':16}"
          + "".join(f" {b + ' deg':>21}" for b in bands))
    for game, r in report.items():
        cells = [r["by_elevation"].get(b) for b in bands]
        print(f"{game:16}" + "".join(f" {c['full_stack_or_unseen']:7.4f} {c['images_without_error_or_unseen']:7.4f}"
                                     f" {c['images']:5d}" if c else f" {'-':>21}" for c in cells))
    sides = [f"{lo:g}-{hi:g}" for lo, hi in SIDE_BANDS]
    print(f"\nstacks by how tall a layer's side looks (pixels): stack?, stacks\n{'game':16}"
          + "".join(f" {b + ' px':>14}" for b in sides))
    for game, r in report.items():
        cells = [r["by_side_px"].get(b) for b in sides]
        print(f"{game:16}" + "".join(f" {c['full_stack_or_unseen']:7.4f} {c['stacks']:6d}" if c else f" {'-':>14}"
                                     for c in cells))
    if args.wrong:
        print("\npoints read wrong: scene, elevation (deg), point, truth, reading ('.' empty, '-' not read), "
              "confidence, sure or honest")
        for r in report.values():
            for w in r["wrong"]:
                tag = "sure" if w["sure"] else "honest" if w["honest"] else ""
                print(f"{w['scene']:32} {w['elevation']:5.1f} {w['point']:4} {w['truth'] or '.':>7} "
                      f"{'-' if w['read'] is None else w['read'] or '.':>7} {w['confidence']:5.2f} {tag}")


if __name__ == "__main__":
    main()
