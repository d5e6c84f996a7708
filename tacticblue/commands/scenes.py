"""``tacticblue scenes``: synthetic photos and videos of the board with exact ground truth."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tacticblue.commands import CLIError, board_spec, disc_size, frame_size, make_folder, placement_error, print_json


def _game(text: str) -> str:
    from vision.synth import game_names

    if text not in game_names():
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; choose one of: {', '.join(game_names())}")
    return text


LOOK_HELP = "board colour scheme (default: drawn at random; slate only when asked for)"


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
    p.add_argument("--size", type=frame_size, metavar="WxH", help="image size (default: random 720p..1080p)")
    p.add_argument("--top-down", choices=("yes", "no", "auto"), default="auto",
                   help="camera straight above the board (auto: sometimes, for flat games)")
    p.add_argument("--look", metavar="NAME", help=LOOK_HELP)
    p.add_argument("--elevation", type=elevation_range, metavar="LO-HI",
                   help="how high the camera looks down at the board, degrees above the table "
                        "(default: the renderer's whole range; not with --top-down yes)")
    p.add_argument("--discs", type=disc_size, metavar="DxT",
                   help="discs of this diameter and thickness in millimetres (default: the box's, 29x7)")
    p.add_argument("--placement", type=placement_error, metavar="STACK[,DISC]",
                   help="how far hands set the discs off their points, at most, in millimetres along each board "
                        "axis: each stack, and each disc off its stack's place (default 1.6,0.7)")
    p.add_argument("--json", action="store_true", help="print one JSON line per image")
    p.set_defaults(func=cmd_render)
    _add_video_parser(ssub)
    _add_samples_parser(ssub)


def _check_look(look: str | None) -> None:
    from vision.synth.looks import BOARD_LOOKS

    if look is not None and look not in BOARD_LOOKS:
        raise CLIError(f"unknown look {look!r}; choose one of: {', '.join(sorted(BOARD_LOOKS))}")


def elevation_range(text: str) -> tuple[float, float]:
    """A camera elevation range written ``LO-HI`` in degrees (an argparse type).

    >>> elevation_range("55-70")
    (55.0, 70.0)
    """
    try:
        lo, hi = (float(v) for v in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"elevation must look like 55-70 (degrees), not {text!r}") from None
    if not 10 <= lo <= hi <= 80:
        raise argparse.ArgumentTypeError("elevation must be LO-HI degrees above the table, 10 <= LO <= HI <= 80")
    return lo, hi


def cmd_render(args: argparse.Namespace) -> int:
    from rules import GAMES
    from vision.synth import render_samples
    from vision.synth.rig import rig_at

    if args.count < 1:
        raise CLIError("--count must be at least 1")
    _check_look(args.look)
    top_down = {"yes": True, "no": False, "auto": None}[args.top_down]
    if args.elevation and args.top_down == "yes":
        raise CLIError("--elevation is for a camera at the side; leave it out with --top-down yes")
    spec = board_spec(args.discs, GAMES[args.game].geometry.kind)
    make_folder(args.out)
    start = time.perf_counter()
    for sample in render_samples(args.game, args.count, args.seed, args.size, top_down, args.look,
                                 rig=rig_at(args.elevation), spec=spec,
                                 **({"placement": args.placement} if args.placement else {})):
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


def _add_video_parser(ssub: argparse._SubParsersAction) -> None:
    p = ssub.add_parser("video", help="film a played game: hand, moves, stills, with per-frame ground truth",
                        description="Render a game as a camera on a tripod films it: for each turn a hand reaches "
                                    "in, moves the pieces and leaves, then the board stays still. Writes OUT (mp4) "
                                    "and OUT with .json (ground truth: positions, per frame hand and position).")
    p.add_argument("--game", "-g", required=True, type=_game, metavar="GAME", help="game to film")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--record", type=Path, metavar="FILE", help="play the turns of this record")
    src.add_argument("--turns", type=int, default=10, help="otherwise play this many random legal turns (default 10)")
    p.add_argument("--first", type=int, metavar="N", help="film only the first N turns of the record")
    p.add_argument("--seed", "-s", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--size", type=frame_size, default=(1280, 720), metavar="WxH", help="frame size (default 1280x720)")
    p.add_argument("--fps", type=float, default=15.0, help="frames per second (default 15)")
    p.add_argument("--out", "-o", type=Path, required=True, metavar="FILE.mp4", help="the video to write")
    p.add_argument("--look", metavar="NAME", help=LOOK_HELP)
    p.add_argument("--frames", type=Path, metavar="DIR", help="also write every frame as DIR/000000.jpg ...")
    p.add_argument("--no-mp4", action="store_true", help="write only the frames folder and the ground truth")
    p.add_argument("--camera-side", choices=["any", "white"], default="any",
                   help="where the camera stands: any side of the board (default), or behind White as players "
                        "usually put it")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=cmd_video)


def cmd_video(args: argparse.Namespace) -> int:
    from rules import new_game
    from tacticblue.commands.rules import read_record_file
    from vision.synth.video import VideoLook, render_video, write_video

    if not 0 < args.fps <= 120:  # written so that NaN fails it too
        raise CLIError("--fps must be in 0..120")
    if args.first is not None and args.first < 1:
        raise CLIError("--first must be at least 1")
    _check_look(args.look)
    if args.no_mp4 and args.frames is None:
        raise CLIError("--no-mp4 needs --frames DIR")
    if args.out.suffix.lower() != ".mp4":
        raise CLIError(f"--out must end in .mp4, not {args.out.name!r}")
    turns = None
    if args.record is not None:
        try:
            board = new_game(args.game)
        except ValueError as e:
            raise CLIError(f"{e} (videos need the game's rules)") from None
        turns = list(read_record_file(args.record, board).turns)[:args.first]
        if not turns:  # a video of no turns is refused like --turns 0; junk text reads as a result line
            raise CLIError(f"{args.record}: no turns to film (is it a record of {args.game}?)")
    elif args.turns < 1:
        raise CLIError("--turns must be at least 1")
    make_folder(args.out.parent)
    if args.frames is not None:
        make_folder(args.frames)
    start = time.perf_counter()
    try:
        header, frames = render_video(args.game, turns, args.turns, args.seed, args.size, VideoLook(fps=args.fps),
                                      args.look, behind_white=args.camera_side == "white")
    except ValueError as e:
        raise CLIError(str(e), status=1) from None
    truth_path = args.out.with_suffix(".json")
    truth = write_video(header, frames, None if args.no_mp4 else args.out, args.frames, truth_path)
    seconds = time.perf_counter() - start
    summary = {"video": None if args.no_mp4 else str(args.out), "truth": str(truth_path),
               "frames": len(truth["frames"]), "turns": len(truth["turns"]),
               "duration_s": round(len(truth["frames"]) / args.fps, 2), "render_s": round(seconds, 1)}
    if args.json:
        print_json(summary)
    else:
        print(f"{summary['frames']} frames ({summary['duration_s']} s of video, {summary['turns']} turns) "
              f"in {seconds:.1f} s -> {args.out if not args.no_mp4 else args.frames}, truth {truth_path}")
    return 0


RULEBOOK_ACCASTA = Path(__file__).resolve().parents[2] / "samples" / "records" / "accasta.txt"


def _add_samples_parser(ssub: argparse._SubParsersAction) -> None:
    p = ssub.add_parser("samples", help="make the small sample set: images of every game, a contact sheet, a video",
                        description="Write IMAGES images of every game (1280x720) with ground truth, "
                                    "contact-sheet.jpg (one image per game) and a short video of the first PLIES "
                                    "turns of the Accasta rulebook game (640x360), all reproducible from the seed.")
    p.add_argument("--out", "-o", type=Path, required=True, metavar="DIR", help="output folder (created)")
    p.add_argument("--seed", "-s", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--images", type=int, default=2, help="images per game (default 2)")
    p.add_argument("--plies", type=int, default=6, help="turns of the rulebook game in the video (default 6; 0: none)")
    p.set_defaults(func=cmd_samples)


def cmd_samples(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from rules.record import parse_record
    from vision.synth import contact_sheet, game_names, render_samples
    from vision.synth.video import VideoLook, render_video, write_video

    if args.images < 1 or args.plies < 0:
        raise CLIError("--images must be at least 1 and --plies at least 0")
    make_folder(args.out)
    tiles = []
    start = time.perf_counter()
    for game in game_names():
        for k, sample in enumerate(render_samples(game, args.images, args.seed, size=(1280, 720))):
            sample = type(sample)(f"{game}-{k + 1}", sample.jpeg, sample.truth)
            sample.write(args.out)
            if k == 0:
                tiles.append((game, cv2.imdecode(np.frombuffer(sample.jpeg, np.uint8), cv2.IMREAD_COLOR)))
    ok, buf = cv2.imencode(".jpg", contact_sheet(tiles), [cv2.IMWRITE_JPEG_QUALITY, 85])
    (args.out / "contact-sheet.jpg").write_bytes(buf.tobytes())
    print(f"{len(tiles) * args.images} images and contact-sheet.jpg in {time.perf_counter() - start:.1f} s")
    if args.plies:
        turns = parse_record(RULEBOOK_ACCASTA.read_text(encoding="utf-8")).turns[:args.plies]
        start = time.perf_counter()
        header, frames = render_video("accasta", turns, 0, args.seed, (640, 360), VideoLook(fps=8.0), "blue")
        truth = write_video(header, frames, args.out / "accasta-rulebook.mp4", None, args.out / "accasta-rulebook.json")
        print(f"accasta-rulebook.mp4: {len(truth['frames'])} frames in {time.perf_counter() - start:.1f} s")
    return 0
