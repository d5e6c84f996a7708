"""Fit the patch net of :mod:`vision.stack_net` on rendered stills and write it as ONNX.

    pip install -e '.[fit]'     # PyTorch and onnx: only this tool needs them
    python3 tools/fit_stack_net.py vision/stack_net.onnx DIR [DIR ...] [--epochs 7]
    python3 tools/fit_stack_net.py new.onnx DIR [DIR ...] --start vision/stack_net.onnx --epochs 3 --rate 1e-3
    python3 tools/fit_stack_net.py vision/stack_net_steep.onnx DIR [DIR ...] --start vision/stack_net.onnx \
        --epochs 8 --rate 1e-3 --rise-below 0.27     # the steep net: points seen steeply only
    python3 tools/fit_stack_net.py vision/stack_net_behind.onnx DIR [DIR ...] --start vision/stack_net.onnx \
        --behind 0.6     # the behind net: points whose board nearer stacks hide

Every point of every still (folders written by ``tacticblue scenes render`` or
``tools/povray_scenes.py``; a folder named twice counts twice) gives one patch
(:func:`vision.stack_net.cut_patches`), once with the true pose and once with the pose a
little off as the board finder gives it (:func:`tools.height_data.perturbed`), labelled with
its true height and top colour (the colour only helps it learn: the reader does not use it).
Each batch's pictures are varied as other cameras, lights and discs would make them
(:func:`varied`), so that the net learns shapes, not our renderer's colours.

``--films N`` writes such a folder from frames of rendered films instead
(:func:`tools.height_data.films`: N per stacking game, 640x360 to 1280x720, through H.264 or
MPEG-4 part 2), with the pose the board finder gave on the film's first frame as their
truth's camera: small, compressed video is what a live session reads.

``--backlit N`` writes N stills per game of :data:`BACKLIT_GAMES` with single discs and
2-stacks side by side (:func:`low_stacks`), lit from beyond the board (:func:`backlit`):
there a white disc's shaded side looks like a black disc under it.  A refit on the random
stills alone read such a disc as two at 0.98; 1,280 of these stills brought that to 0.87,
not yet below the landed net's 0.58.

``--crowded N`` writes N stills per game of :data:`CROWDED_GAMES` or ``--games`` (Accasta's
of :func:`tall_stacks`, the others' of :func:`vision.synth.games.crowded_position`), seen from
``--elevation``: there stacks stand behind taller ones, which random games' positions seldom
show.

``--kings N`` writes N stills of Dame 100 positions where about a third of the pieces are kings
(:func:`kings_position`), seen from ``--elevation``: random games seldom crown a man, and the
patch nets read black kings as men until they were fitted on such stills.

``--start`` goes on fitting a net already fitted (its ONNX file) on new stills, at a
lower ``--rate``: a few epochs teach it a new look of the discs without the hours a
fresh fit on every still takes on two cores.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
import warnings
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rules  # noqa: E402
from rules import dame  # noqa: E402
from height_data import films, net_patches  # noqa: E402
from tacticblue.commands import frame_size  # noqa: E402
from tacticblue.commands.scenes import elevation_range  # noqa: E402
from vision.stack_net import HEIGHTS, LAYERS, PATCH_SIZE, net_input  # noqa: E402
from vision.synth.photo import jpeg  # noqa: E402
from vision.synth.games import CROWDED, crowded_position  # noqa: E402
from vision.synth.render import Lighting, Scene  # noqa: E402
from vision.synth.rig import rig_at  # noqa: E402
from vision.synth.scene import Sample, camera_truth, lamp_at, random_lighting, render_samples  # noqa: E402

TALL_HEIGHTS = np.array([1, 1, 1.5, 2, 2.5, 2.5])
"""How often a stack of each height 1..6 is drawn by :func:`tall_stacks`."""
TOP_WEIGHT = 0.5
"""How much the top colour's loss counts beside the height's."""
LAYER_WEIGHT = 0.5
"""How much the layers' colours' loss (over the layers a stack has) counts beside the height's."""
LAYER_WIDTH, LAYER_HIDDEN = 48, 64
CROWDED_GAMES = ("accasta", *CROWDED)
"""The games whose crowded positions ``--crowded`` renders: Accasta's of :func:`tall_stacks`."""
LOW_STACKS = {"": 0.45, "w": 0.18, "b": 0.17, "wb": 0.07, "bw": 0.07, "ww": 0.03, "bb": 0.03}
"""How often :func:`low_stacks` puts each stack on a point."""
BACKLIT_GAMES = ("abande", "attangle", "abande-square", "attangle-square")
KING_SHARE = 1 / 3
"""The share of :func:`kings_position`'s pieces that are kings."""
FILM_SIZES = ((640, 360), (960, 540), (1280, 720))
FILM_ENCODERS = ("h264", "mp4v")


class StackNet(nn.Module):
    """Four 3x3 convolution blocks (ReLU, 2x2 max-pooling), then one hidden layer of 96: the
    heights' and the top colours' scores (:data:`vision.stack_net.HEIGHTS` + 3).  Beside the
    last two blocks, one more on the second's finer rows, pooled across only, then a hidden
    layer of 64: each layer's black-over-white score (:data:`vision.stack_net.LAYERS`), for a
    layer's side may be a few rows of the patch, finer than the last blocks' cells."""

    def __init__(self) -> None:
        super().__init__()
        widths, hidden = (4, 16, 32, 64, 96), 96
        self.features = nn.Sequential(*(nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
                                        for a, b in zip(widths, widths[1:])))
        cells = (PATCH_SIZE[0] >> 4) * (PATCH_SIZE[1] >> 4)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(widths[-1] * cells, hidden), nn.ReLU(),
                                  nn.Linear(hidden, HEIGHTS + 3))
        rows = (PATCH_SIZE[0] >> 3) * (PATCH_SIZE[1] >> 2)
        self.layers = nn.Sequential(nn.Conv2d(widths[2], LAYER_WIDTH, 3, padding=1), nn.ReLU(), nn.MaxPool2d((1, 2)),
                                    nn.Flatten(), nn.Linear(LAYER_WIDTH * rows, LAYER_HIDDEN), nn.ReLU(),
                                    nn.Linear(LAYER_HIDDEN, LAYERS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fine = self.features[:2](x)
        return torch.cat([self.head(self.features[2:](fine)), self.layers(fine)], dim=1)


def tall_stacks(rng: np.random.Generator) -> dict[str, str]:
    """An Accasta-like position of stacks mostly 4-6 high, at most 3 discs of a colour in
    each, from 10-20 discs a side: random games seldom build them, a real game often does."""
    names = rules.GAMES["accasta"].geometry.names
    left = dict.fromkeys("wb", int(rng.integers(10, 21)))
    points = dict.fromkeys(names, "")
    for name in rng.permutation(names):
        most = {c: min(3, n) for c, n in left.items()}
        if not most["w"] + most["b"]:
            break
        height = min(1 + int(rng.choice(6, p=TALL_HEIGHTS / TALL_HEIGHTS.sum())), most["w"] + most["b"])
        whites = int(rng.integers(max(0, height - most["b"]), min(height, most["w"]) + 1))
        discs = list("w" * whites + "b" * (height - whites))
        rng.shuffle(discs)
        points[str(name)] = "".join(discs)
        left["w"] -= whites
        left["b"] -= height - whites
    return points


def kings_position(rng: np.random.Generator) -> dict[str, str]:
    """A Dame 100 position of 5-20 pieces a side, :data:`KING_SHARE` of them kings (2-stacks),
    no man on the row that would have crowned it: random games seldom crown a man, and a black
    king on its dark cell shows little of its side and no groove.

    >>> stacks = [s for s in kings_position(np.random.default_rng(3)).values() if s]
    >>> len(stacks), sum(len(s) == 2 for s in stacks)
    (23, 7)
    """
    squares = list(dame.NAME_OF_SQUARE)
    points = dict.fromkeys(dame.NAME_OF_SQUARE.values(), "")
    whites, blacks = (int(n) for n in rng.integers(5, 21, 2))
    for k, square in enumerate(rng.choice(squares, size=whites + blacks, replace=False)):
        side = dame.W_BIT if k < whites else dame.B_BIT
        king = rng.random() < KING_SHARE or square in dame.PROMOTION_ROW[side]
        points[dame.NAME_OF_SQUARE[square]] = dame.STACK_OF[side | dame.KING if king else side]
    return points


def low_stacks(game: str) -> Callable[[np.random.Generator], dict[str, str]]:
    """Positions of ``game`` of single discs and 2-stacks side by side (:data:`LOW_STACKS`):
    in the shade a white disc's side looks like a black disc under a white one, and only the
    side's length tells them apart."""
    names = [str(n) for n in rules.GAMES[game].geometry.names]
    stacks, weights = zip(*LOW_STACKS.items())

    def draw(rng: np.random.Generator) -> dict[str, str]:
        return dict(zip(names, rng.choice(stacks, size=len(names), p=weights)))
    return draw


def backlit(scene: Scene, rng: np.random.Generator) -> Lighting:
    """A lamp beyond the board as the camera sees it, over dim room light: the discs' sides
    that face the camera are in their own shade."""
    light = random_lighting(rng)
    camera = scene.pose.camera_position_mm()
    az = math.atan2(camera[1], camera[0]) + math.pi + rng.uniform(-0.8, 0.8)
    lamp = lamp_at(az, math.radians(rng.uniform(35, 80)), rng.uniform(700, 2200))
    return replace(light, lamp_mm=lamp, ambient=float(rng.uniform(0.1, 0.35)), overhead=float(rng.uniform(0.2, 1)))


def film_stills(count: int, seed: int) -> Iterator[Sample]:
    """The frames of ``count`` films per stacking game (:func:`tools.height_data.films`) as
    stills, each with the pose its film's board finder gave as its truth's camera."""
    for k, (game, pose, image, points) in enumerate(films(count, seed, FILM_SIZES, FILM_ENCODERS)):
        yield Sample(f"film-{seed}-{k:05d}", jpeg(image, 95), {"game": game, "points": points, "camera": camera_truth(pose)})


def varied(patches: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``patches`` as other cameras, lights and disc colours could show them: gain, white
    balance and a little crosstalk between the channels, less colour, gamma, blur, noise,
    all shifted by up to a pixel, half of them mirrored (a stack looks the same so)."""
    n = len(patches)
    x = patches.astype(np.float32) / 255
    mix = np.eye(3) + rng.uniform(-0.2, 0.2, (n, 3, 3))
    x = np.einsum("nhwc,ndc->nhwd", x, mix * rng.uniform(0.6, 1.4, (n, 3, 1)) * rng.uniform(0.7, 1.3, (n, 1, 1)))
    grey = x.mean(axis=3, keepdims=True)
    x = grey + (x - grey) * rng.uniform(0.0, 1.2, (n, 1, 1, 1))
    x = 255 * np.clip(x, 0, 1) ** rng.uniform(0.6, 1.6, (n, 1, 1, 1))
    for k in np.flatnonzero(rng.random(n) < 0.5):
        x[k] = cv2.GaussianBlur(x[k], (0, 0), rng.uniform(0.3, 1.2))
    x += rng.normal(0, 1, x.shape) * rng.uniform(0, 6, (n, 1, 1, 1))
    mirrored = rng.random(n) < 0.5
    x[mirrored] = x[mirrored, :, ::-1]
    return np.roll(x, tuple(rng.integers(-1, 2, 2)), axis=(1, 2))


def fitted_net(path: Path) -> StackNet:
    """The net an ONNX file written by this tool holds, as PyTorch weights (to go on fitting it)."""
    import onnx
    from onnx import numpy_helper

    weights = {w.name: torch.from_numpy(numpy_helper.to_array(w).copy()) for w in onnx.load(str(path)).graph.initializer}
    net = StackNet()
    missing = net.load_state_dict(weights, strict=False).missing_keys
    if any(not key.startswith("layers.") for key in missing):
        raise ValueError(f"{path} is not a net this tool fits: it has no {', '.join(missing)}")
    return net  # a net fitted before it read the layers' colours: their branch starts afresh


def fit(data: dict[str, np.ndarray], epochs: int, seed: int = 0, start: StackNet | None = None,
        rate: float = 3e-3, layers_only: bool = False) -> StackNet:
    """The net fitted on ``data`` (:func:`height_data.net_patches`), from ``start`` if given, its learning
    rate rising to ``rate`` and falling again (one cycle); with ``layers_only``, only the
    layers' colours are fitted, on the stacks of two or more, and the heights and top colours
    stay as ``start`` reads them."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = start or StackNet()
    if layers_only:
        keep = np.flatnonzero(data["height"] > 1)
        data = {k: v[keep] for k, v in data.items()}
        for part in (net.features, net.head):
            part.requires_grad_(False)
    n, batch = len(data["height"]), 256
    steps = n // batch
    optimiser = torch.optim.AdamW([w for w in net.parameters() if w.requires_grad], 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, rate, total_steps=epochs * steps)
    loss_of = nn.CrossEntropyLoss()
    layer_loss = nn.BCEWithLogitsLoss(reduction="sum")
    for epoch in range(epochs):
        order, began, total = rng.permutation(n), time.time(), 0.0
        for b in range(steps):
            i = np.sort(order[b * batch:(b + 1) * batch])
            x = torch.from_numpy(net_input(varied(data["patches"][i], rng), data["rise"][i]))
            out = net(x)
            layers = torch.from_numpy(data["layers"][i])
            has = layers >= 0
            loss = LAYER_WEIGHT * layer_loss(out[:, HEIGHTS + 3:][has], layers[has].float()) / max(1, int(has.sum()))
            if not layers_only:
                loss = loss + loss_of(out[:, :HEIGHTS], torch.from_numpy(data["height"][i])) + \
                    TOP_WEIGHT * loss_of(out[:, HEIGHTS:HEIGHTS + 3], torch.from_numpy(data["top"][i]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        print(f"epoch {epoch + 1}/{epochs}: loss {total / steps:.4f} ({time.time() - began:.0f} s)", flush=True)
    return net.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the .onnx file to write, or with --tall, --kings, --backlit, --crowded or --films "
                                    "the folder to write the stills into")
    parser.add_argument("dirs", nargs="*", help="folders of rendered stills (tacticblue scenes render, tools/povray_scenes.py)")
    parser.add_argument("--epochs", type=int, default=7)
    parser.add_argument("--start", type=Path, metavar="ONNX",
                        help="go on fitting this net (e.g. vision/stack_net.onnx) instead of starting afresh")
    parser.add_argument("--layers-only", action="store_true",
                        help="with --start: fit only the layers' colours, leaving its heights and top colours as they are")
    parser.add_argument("--rate", type=float, default=3e-3, help="the highest learning rate (default 3e-3)")
    parser.add_argument("--rise-below", type=float, metavar="R",
                        help="fit only on the points whose layers rise less than R (the steep net: "
                             "vision.stack_net.STEEP_RISE and a little more)")
    parser.add_argument("--tall", type=int, metavar="N",
                        help="instead, render N Accasta stills of tall stacks (tall_stacks) into OUT")
    parser.add_argument("--kings", type=int, metavar="N",
                        help="instead, render N Dame 100 stills of positions rich in kings (kings_position) into OUT")
    parser.add_argument("--backlit", type=int, metavar="N",
                        help="instead, render N stills a game of low stacks lit from beyond the board (backlit) into OUT")
    parser.add_argument("--crowded", type=int, metavar="N",
                        help="instead, render N stills a game of crowded positions (of --games) into OUT")
    parser.add_argument("--games", nargs="+", choices=CROWDED_GAMES, default=CROWDED_GAMES,
                        help="with --crowded: these games (default: all of CROWDED_GAMES)")
    parser.add_argument("--films", type=int, metavar="N",
                        help="instead, write the frames of N films per stacking game into OUT")
    parser.add_argument("--seed", type=int, default=0,
                        help="with --tall, --kings, --backlit, --crowded or --films: the first seed")
    parser.add_argument("--size", type=frame_size, default=(1280, 720), metavar="WxH",
                        help="with --tall, --kings, --backlit or --crowded: the stills' size (default 1280x720)")
    parser.add_argument("--elevation", type=elevation_range, metavar="LO-HI",
                        help="with --tall, --kings, --backlit or --crowded: cameras this many degrees above the board")
    parser.add_argument("--behind", type=float, metavar="S",
                        help="fit only on the points where nearer stacks leave less than S of the board in view (the "
                             "behind net: vision.stack_net.BEHIND_SHARE), not seen steeply")
    args = parser.parse_args()
    if args.tall or args.kings or args.backlit or args.crowded or args.films:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        rig = rig_at(args.elevation)
        if args.tall:
            samples = render_samples("accasta", args.tall, args.seed, args.size, position=tall_stacks, rig=rig)
        elif args.kings:
            samples = render_samples("dame100", args.kings, args.seed, args.size, position=kings_position, rig=rig)
        elif args.backlit:
            samples = itertools.chain.from_iterable(
                render_samples(game, args.backlit, args.seed, args.size, position=low_stacks(game), lighting=backlit,
                               rig=rig)
                for game in BACKLIT_GAMES)
        elif args.crowded:
            samples = itertools.chain.from_iterable(
                render_samples(game, args.crowded, args.seed, args.size, rig=rig,
                               position=tall_stacks if game == "accasta" else partial(crowded_position, game))
                for game in args.games)
        else:
            samples = film_stills(args.films, args.seed)
        for sample in samples:
            sample.write(out)
        return
    if not args.dirs:
        parser.error("give folders of stills to fit on")
    data = net_patches(args.dirs, args.rise_below, args.behind)
    print(f"{len(data['height'])} patches; heights {np.bincount(data['height']).tolist()}", flush=True)
    torch.set_num_threads(2)
    if args.layers_only and not args.start:
        parser.error("--layers-only goes on fitting a net: give it with --start")
    net = fit(data, args.epochs, start=fitted_net(args.start) if args.start else None, rate=args.rate,
              layers_only=args.layers_only)
    example = torch.from_numpy(net_input(data["patches"][:2], data["rise"][:2]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(net, (example,), args.out, dynamo=False, input_names=["patches"], output_names=["scores"],
                          dynamic_axes={"patches": {0: "points"}, "scores": {0: "points"}}, opset_version=13)
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
