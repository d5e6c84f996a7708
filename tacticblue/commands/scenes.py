"""``tacticblue scenes``: synthetic photos and videos of the board with exact ground truth."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tacticblue.commands import CLIError, print_json


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, not {text!r}") from None
    if not (64 <= w <= 4096 and 64 <= h <= 4096):
        raise argparse.ArgumentTypeError("width and height must be 64..4096 pixels")
    return w, h


def _game(text: str) -> str:
    from vision.synth import game_names

    if text not in game_names():
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; choose one of: {', '.join(game_names())}")
    return text


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("scenes", help="render synthetic photos and videos of the board with ground truth",
                            description="The project's own camera: photo-like renderings of the tactic blue "
                                        "board with exact ground truth, for tests, benchmarks and the demo.")
    ssub = parser.add_subparsers(dest="scenes_command", metavar="ACTION", required=True)

    p = ssub.add_parser("render", help="render random positions of a game as photos",
                        description="Write DIR/NAME.jpg and DIR/NAME.json (game, points, pixels, camera) for "
                                    "COUNT random positions, cameras, looks and lights. The same seed gives the "
                                    "same images.")
    p.add_argument("--game", "-g", required=True, type=_game, metavar="GAME", help="game to render")
    p.add_argument("--count", "-n", type=int, default=1, help="number of images (default 1)")
    p.add_argument("--seed", "-s", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", "-o", type=Path, required=True, metavar="DIR", help="output folder (created)")
    p.add_argument("--size", type=_size, metavar="WxH", help="image size (default: random 720p..1080p)")
    p.add_argument("--top-down", choices=("yes", "no", "auto"), default="auto",
                   help="camera straight above the board (auto: sometimes, for flat games)")
    p.add_argument("--look", metavar="NAME", help="board colour scheme (default random)")
    p.add_argument("--json", action="store_true", help="print one JSON line per image")
    p.set_defaults(func=cmd_render)


def cmd_render(args: argparse.Namespace) -> int:
    from vision.synth import render_samples
    from vision.synth.looks import BOARD_LOOKS

    if args.count < 1:
        raise CLIError("--count must be at least 1")
    if args.look is not None and args.look not in BOARD_LOOKS:
        raise CLIError(f"unknown look {args.look!r}; choose one of: {', '.join(sorted(BOARD_LOOKS))}")
    args.out.mkdir(parents=True, exist_ok=True)
    top_down = {"yes": True, "no": False, "auto": None}[args.top_down]
    start = time.perf_counter()
    for sample in render_samples(args.game, args.count, args.seed, args.size, top_down, args.look):
        sample.write(args.out)
        if args.json:
            print_json({"image": str(args.out / f"{sample.name}.jpg"), "truth": str(args.out / f"{sample.name}.json"),
                        "size": sample.truth["camera"]["image_size"]})
        else:
            print(args.out / f"{sample.name}.jpg", flush=True)
    if not args.json:
        seconds = time.perf_counter() - start
        print(f"{args.count} images in {seconds:.1f} s ({args.count / seconds:.2f} per second)")
    return 0
