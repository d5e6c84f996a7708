"""``tacticblue calibrate``: camera intrinsics, finding the board, and checking the result.

    tacticblue calibrate camera left*.jpg --pattern chessboard:9x6 --square-mm 25 -o camera.json
    tacticblue calibrate camera pattern.mp4 --pattern chessboard:9x6 -o camera.json   # a film of it
    tacticblue calibrate camera 0 --pattern chessboard:9x6 -o camera.json             # the camera itself
    tacticblue calibrate board frame.png --game accasta [--camera camera.json] -o board.json
    tacticblue calibrate board frame.png --game dame100 --corners 102,640 1180,655 1010,80 250,70 -o board.json
    tacticblue calibrate show frame.png --calibration board.json -o overlay.png
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tacticblue.commands import (CLIError, add_discs_argument, board_spec, camera_size, finite_number, print_json,
                                 write_overlay)
from tacticblue.sources import CAMERA_SIZE

if TYPE_CHECKING:
    from calibration.intrinsics import PatternViews
    from rules.geometry import Geometry


def register(sub: argparse._SubParsersAction) -> None:
    from calibration.board_file import WHITE_SIDES

    parser = sub.add_parser("calibrate", help="calibrate the camera, find the board, check a calibration",
                            description="Calibrate the camera and find the board's pose in a picture.")
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)

    cam = steps.add_parser("camera", help="camera intrinsics from photos or films of a chessboard or ChArUco pattern",
                           description="Fit the camera's focal length, centre and lens distortion to pictures of a "
                                       "printed pattern: photos, films of it being moved about, or the camera "
                                       "itself while you hold the pattern before it at other places, distances and "
                                       "tilts (it takes views until it has --views of them; Ctrl-C ends sooner).")
    cam.add_argument("images", nargs="+", metavar="INPUT",
                     help="a photo, a folder of photos, a film, or a camera (its index, device or stream address, "
                          "as for watch)")
    cam.add_argument("--pattern", required=True,
                     help="chessboard:COLSxROWS (inner corners) or charuco:COLSxROWS[:DICT] (squares)")
    cam.add_argument("--square-mm", type=millimetres, default=25.0, help="side of one pattern square (mm, default 25)")
    cam.add_argument("--marker-mm", type=millimetres, help="ChArUco marker side (mm, default 0.75 of a square)")
    cam.add_argument("--views", type=views_count, default=DEFAULT_VIEWS,
                     help="the most views taken from films and cameras, each unlike the others "
                          f"(default {DEFAULT_VIEWS})")
    cam.add_argument("--camera-size", type=camera_size, default=CAMERA_SIZE, metavar="WxH",
                     help="frame size to ask of a camera: calibrate at the size you watch at (default "
                          f"{CAMERA_SIZE[0]}x{CAMERA_SIZE[1]}, as watch; 'native': the camera's own)")
    cam.add_argument("-o", "--output", help="write the camera to this JSON file")
    cam.add_argument("--json", action="store_true", help="print the result as JSON")
    cam.set_defaults(func=run_camera)

    board = steps.add_parser("board", help="find the board in a picture and write a calibration file")
    board.add_argument("image", metavar="IMAGE")
    _add_board_choice(board)
    board.add_argument("--camera", help="camera file from 'calibrate camera' (default: estimated from the picture)")
    board.add_argument("--white-side", choices=WHITE_SIDES, default="near",
                       help="where White sits as the camera sees it (default: the side nearest the camera); "
                            "the pieces of the start position override it when they are clear")
    board.add_argument("--corners", nargs="+", metavar="X,Y",
                       help="the board border's corners in pixels (4 square, 6 hex), when finding fails")
    add_discs_argument(board, calibrating=True)
    board.add_argument("-o", "--output", help="write the calibration to this file")
    board.add_argument("--json", action="store_true", help="print the result as JSON")
    board.set_defaults(func=run_board)

    show = steps.add_parser("show", help="draw a calibration's grid, point names and White's side on a picture")
    show.add_argument("image", metavar="IMAGE")
    show.add_argument("--calibration", "-c", required=True, help="calibration file from 'calibrate board'")
    show.add_argument("--game", "-g", help="label the points of this game (default: the calibration's)")
    show.add_argument("-o", "--output", required=True, help="overlay image to write (PNG or JPEG)")
    show.set_defaults(func=run_show)


def millimetres(text: str) -> float:
    """A pattern length in mm (an argparse type): finite and above 0, as OpenCV asserts it to be
    (and a 0 mm square would fit a camera to nothing).

    >>> millimetres("24.5")
    24.5
    """
    return finite_number(text, "a length in mm above 0", zero_allowed=False)


def _add_board_choice(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--game", "-g", help="the game to be played (sets the board side)")
    group.add_argument("--board", choices=("hex", "square"), help="the board side, when no game is given")


def game_board(name: str) -> tuple[Geometry, dict[str, str] | None]:
    """(geometry, start position) of a game; the start position is None for a game the rules
    engine does not know yet (its board side still comes from the renderer's game table)."""
    from rules import GAMES, new_game
    from vision.synth.games import game_info

    if name in GAMES:
        game = new_game(name)
        return game.geometry, dict(zip(game.geometry.names, game.stacks))
    try:
        return game_info(name).geometry, None
    except ValueError as e:
        raise CLIError(str(e)) from None


DEFAULT_VIEWS = 20
"""The most views :func:`run_camera` takes from films and cameras: OpenCV's own calibration
photos are 13, and more views spread over the picture steady the lens's distortion, while the
fit's time grows with them."""
LOOK_EVERY_S = 0.2
"""How often a film's or camera's frames are looked at for the pattern (seconds): a hand
moving it shows little new in less, and a frame looked at costs up to 0.1 s."""
CAMERA_VIEWS_WAIT_S = 5.0
"""How long a camera that stops delivering frames is waited for while views are taken (seconds)."""


def views_count(text: str) -> int:
    """``--views``: a whole number of views, 3..200 (an argparse type)."""
    from calibration.intrinsics import MIN_VIEWS

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of views, not {text!r}") from None
    if not MIN_VIEWS <= n <= 200:
        raise argparse.ArgumentTypeError(f"views must be {MIN_VIEWS}..200")
    return n


def run_camera(args: argparse.Namespace) -> int:
    from calibration.intrinsics import PatternViews, parse_pattern, read_image, save_camera

    pattern = parse_pattern(args.pattern)
    if pattern.kind == "charuco" and args.marker_mm is not None and args.marker_mm >= args.square_mm:
        raise CLIError(f"--marker-mm must be less than --square-mm: a ChArUco marker sits inside its square "
                       f"({args.marker_mm:g} >= {args.square_mm:g})")
    views = PatternViews(pattern, args.square_mm, args.marker_mm, args.views)
    films = []
    for spec in args.images:
        photos = _photos(spec)
        if photos is None:
            films.append(_film_views(spec, views, args.camera_size))
        for path in photos or ():
            views.photo(read_image(path, grey=True), str(path))
    result = views.fit()
    if args.output:
        save_camera(result, args.output)
    if args.json:
        print_json(result.to_dict())
    else:
        K = result.camera.K
        print(f"camera: fx={K[0, 0]:.1f} fy={K[1, 1]:.1f} cx={K[0, 2]:.1f} cy={K[1, 2]:.1f} px, "
              f"dist={np.round(result.camera.dist, 4).tolist()}")
        for film in films:
            print(film)
        print(f"RMS reprojection error {result.rms:.3f} px over {len(result.used)} views of {views.pictures} pictures"
              + (f"; pattern not found in: {', '.join(result.rejected)}" if result.rejected else ""))
        for advice in result.advice:
            print(f"advice: {advice}")
        if args.output:
            print(f"wrote {args.output}")
    return 0


def _photos(spec: str) -> list[Path] | None:
    """The photos ``spec`` names (itself, or a folder's image files), or None for a film or camera."""
    from tacticblue.sources import IMAGE_SUFFIXES, image_files, is_camera

    path = Path(spec)
    if is_camera(spec) or (not path.is_dir() and path.suffix.lower() not in IMAGE_SUFFIXES):
        return None
    if path.is_dir():
        photos = image_files(path)
        if not photos:
            raise CLIError(f"{spec}: a folder without image files ({', '.join(IMAGE_SUFFIXES)})")
        return photos
    return [path]


def _film_views(spec: str, views: PatternViews, size: tuple[int, int] | None) -> str:
    """Offer ``views`` a frame of the film or camera ``spec`` every :data:`LOOK_EVERY_S`
    until it is full or the film ends (a camera: until Ctrl-C, too); a line saying what
    was taken."""
    from tacticblue.sources import SourceError, is_camera, open_source

    camera = is_camera(spec)
    try:
        source = open_source(spec, camera_size=size, wait_s=CAMERA_VIEWS_WAIT_S) if camera else open_source(Path(spec))
    except SourceError as e:
        raise CLIError(str(e)) from None
    if camera:
        print(f"{source.description}: hold the pattern before it at other places, distances and tilts; "
              f"{views.most} views are taken (Ctrl-C ends sooner)", file=sys.stderr, flush=True)
    before, looked, last = len(views.views), 0, -math.inf
    try:
        for frame in source:
            if frame.t < last + LOOK_EVERY_S - 1e-6:  # frame times are rounded: 0.6 is 0.6000000000000001
                continue
            last, looked = frame.t, looked + 1
            taken = len(views.views)
            views.frame(frame.image, f"{spec} at {frame.t:.1f} s")
            if camera and len(views.views) > taken:
                print(f"view {len(views.views) - before} taken at {frame.t:.1f} s", file=sys.stderr, flush=True)
            if views.full:
                break
    except KeyboardInterrupt:
        if not camera:
            raise
    except ValueError as e:  # a frame of another size than the pictures before
        raise CLIError(str(e)) from None
    finally:
        source.close()
    return f"{source.description}: {len(views.views) - before} views of {looked} frames looked at"


def _parse_corners(items: list[str]) -> np.ndarray:
    pts = []
    for item in items:
        try:
            x, y = (float(v) for v in item.split(","))
        except ValueError:
            raise CLIError(f"--corners takes X,Y pixel pairs, not {item!r}") from None
        pts.append((x, y))
    return np.array(pts)


MIN_CORNER_GAP = 0.01
"""Corners nearer each other than this share of the picture's longer side are one place
(real boards' sides, even seen 12 degrees up and far off, are 2.5% or more)."""
CORNER_ANGLES_DEG = (10.0, 175.0)
"""The interior angles an outline's corners may have: a hex board seen 12 degrees up has
corners of 38 to 172 degrees, a square one 21 to 165; flatter than 175 is three corners in a line."""
MIN_OUTLINE_AREA = 0.005
"""The least share of the picture the outline may enclose: half the 1% the finder looks for,
as the corners are the fallback for boards seen low and far that it misses."""


def outline_problem(corners: np.ndarray, size: tuple[int, int]) -> str | None:
    """What makes the corners of ``--corners`` (N x 2 px, sorted round their centre by
    :func:`vision.board_finder.clockwise`) no board's outline in a picture of ``size`` (w, h),
    or None: two at one place, one inside the others, three in a line, a needle's point, or a
    few pixels' outline.  The pose fit refused some of these only as "the given corners do not
    form a board outline", and made a calibration of a tiny one.

    >>> outline_problem(np.array([[100, 100], [900, 100], [900, 600], [100, 600.0]]), (1280, 720))
    >>> outline_problem(np.array([[100, 100], [900, 100], [900, 100], [100, 600.0]]), (1280, 720))
    'two corners are 0 px apart (900,100 and 900,100): give 4 different corners'
    """
    n = len(corners)
    edges = np.roll(corners, -1, axis=0) - corners  # edges[i]: corner i to corner i + 1
    gaps = np.hypot(edges[:, 0], edges[:, 1])
    i = int(np.argmin(gaps))
    if gaps[i] < MIN_CORNER_GAP * max(size):
        a, b = (f"{x:.0f},{y:.0f}" for x, y in (corners[i], corners[(i + 1) % n]))
        return f"two corners are {gaps[i]:.0f} px apart ({a} and {b}): give {n} different corners"
    turns = _cross(np.roll(edges, 1, axis=0), edges)  # at each corner: one sign all round if convex
    if not (np.all(turns < 0) or np.all(turns > 0)):
        return f"the {n} corners are not convex: one lies inside the outline of the others"
    before = -np.roll(edges, 1, axis=0)
    cosines = np.einsum("ij,ij->i", before, edges) / (np.roll(gaps, 1) * gaps)
    angles = np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0)))
    lo, hi = CORNER_ANGLES_DEG
    flat, sharp = int(np.argmax(angles)), int(np.argmin(angles))
    if angles[flat] > hi:
        return "three corners are almost in one line (an angle of {:.0f} degrees at {:.0f},{:.0f})".format(
            angles[flat], *corners[flat])
    if angles[sharp] < lo:
        return "the corner at {:.0f},{:.0f} is too sharp for a board ({:.0f} degrees)".format(
            *corners[sharp], angles[sharp])
    share = abs(float(np.sum(_cross(corners, np.roll(corners, -1, axis=0))))) / 2 / (size[0] * size[1])
    if share < MIN_OUTLINE_AREA:
        return f"the outline is too small for a board ({share:.2%} of the picture; at least {MIN_OUTLINE_AREA:.1%})"
    return None


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The z of the cross products of rows of 2-vectors (NumPy 2 deprecates ``np.cross`` of 2-vectors)."""
    return a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]


def run_board(args: argparse.Namespace) -> int:
    from calibration.board_file import BoardCalibration
    from calibration.intrinsics import load_camera, read_image
    from vision.board_finder import BoardNotFound, board_model, clockwise, locate_board, outline_pose, white_side_note
    from vision.discs import discs_note, estimate_discs
    from vision.reader import StackReader

    image = read_image(args.image)
    geometry, start = game_board(args.game) if args.game else (None, None)
    kind = geometry.kind if geometry is not None else args.board
    camera = load_camera(args.camera) if args.camera else None
    size = (image.shape[1], image.shape[0])
    if camera is not None and camera.image_size != size:  # the board finder takes it as the picture's
        raise CLIError(f"{args.camera}: the camera was calibrated at {camera.image_size[0]}x{camera.image_size[1]}, "
                       f"but the picture is {size[0]}x{size[1]}: calibrate the camera at the size it takes photos")
    outline = None
    if args.corners:
        outline = _parse_corners(args.corners)
        n = board_model(kind).symmetry
        if len(outline) != n:
            raise CLIError(f"the {kind} board has {n} border corners; --corners gave {len(outline)}")
        outline = clockwise(outline)
        problem = outline_problem(outline, size)
        if problem:
            raise CLIError(f"--corners: {problem}")
    method = "manual" if outline is not None else "auto"
    spec = board_spec(args.discs, kind)
    try:
        found = locate_board(image, kind, camera, spec=spec, white_side=args.white_side, outline=outline,
                             start=(geometry, start) if start else None)
        pose, how, support = found.pose, found.orientation, found.fit.support
    except BoardNotFound as e:
        if outline is None:
            raise CLIError(f"{e}; give the border's corners with --corners X,Y ... "
                           "or check the picture with 'calibrate show'") from None
        # The user's corners are trusted when the grid cannot confirm them (e.g. covered by pieces).
        (pose, how), support = outline_pose(image, kind, outline, camera, args.white_side, spec=spec), 0.0
    calib = BoardCalibration(pose, args.game, args.white_side, method, camera is not None)
    if args.output:
        calib.save(args.output)
    # Told at setup, while the camera can still be moved and the discs' size said, not first
    # during the game: the discs only where the start position stands (the pieces showed it)
    # and the view lets heights be read.
    reader = StackReader(args.game, pose) if args.game else None
    view = reader.view_note() if reader else None
    size_note = (discs_note(reader.read(image).observation, start, pose.spec)
                 if reader and start and how == "pieces" and view is None else None)
    guess = None
    if size_note and start:
        # A size the picture suggests, offered where the start position reads right with it.
        size = estimate_discs(image, pose, args.game, start)
        sized = replace(pose, spec=pose.spec.with_discs(size))
        if discs_note(StackReader(args.game, sized).read(image).observation, start, sized.spec) is None:
            guess = size
            size_note += f"; the picture suggests --discs {size[0]:g}x{size[1]:g}, which reads the start position right"
    info: dict[str, Any] = {**calib.to_dict(), "orientation_from": how, "grid_support": round(support, 3),
                            "elevation_deg": round(pose.elevation_deg(), 1), "view_note": view,
                            "discs_note": size_note, "discs_suggested": list(guess) if guess else None}
    if args.json:
        print_json(info)
    else:
        print(f"{kind} board found ({method}): {support:.0%} of the grid seen, camera {pose.elevation_deg():.0f} "
              f"degrees above the board, {white_side_note(pose, how, args.white_side)}")
        for note in (view, size_note):
            if note:
                print(f"note: {note}")
        if args.output:
            print(f"wrote {args.output}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from calibration.board_file import load_calibration
    from calibration.intrinsics import read_image
    from calibration.overlay import draw_overlay

    image = read_image(args.image)
    calib = load_calibration(args.calibration, image_size=(image.shape[1], image.shape[0]))
    name = args.game or calib.game
    geometry = game_board(name)[0] if name else None
    if geometry is not None and geometry.kind != calib.kind:
        raise CLIError(f"{name} is played on the {geometry.kind} board; the calibration is for the {calib.kind} board")
    write_overlay(args.output, draw_overlay(image, calib.pose, geometry))
    print(f"wrote {args.output}")
    return 0
