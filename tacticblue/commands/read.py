"""``tacticblue read``: every point's stack in one picture of the board.

    tacticblue read frame.jpg --game accasta --json
    tacticblue read frame.jpg --game dame100 --calibration board.json --overlay read.png
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from tacticblue.commands import CLIError, add_discs_argument, add_game_argument, board_spec, print_json, write_overlay

if TYPE_CHECKING:
    from rules.infer import Observation


def register(sub: argparse._SubParsersAction) -> None:
    from calibration.board_file import WHITE_SIDES

    parser = sub.add_parser("read", help="read every point's stack (colours and height) in a picture",
                            description="Read what stands on every point of the board in one picture: "
                                        "empty, or a stack written bottom to top with w/b (? for a layer "
                                        "that cannot be seen), with a confidence per point. Points that "
                                        "cannot be read at all (out of view, under a hand) are left out.")
    parser.add_argument("image", metavar="IMAGE")
    add_game_argument(parser)
    parser.add_argument("--calibration", "-c", help="board calibration from 'calibrate board' "
                                                    "(default: find the board in the picture)")
    parser.add_argument("--white-side", choices=WHITE_SIDES, default="near",
                        help="where White sits as the camera sees it, when the board is found in the picture "
                             "(default: the side nearest the camera; near-left etc. for a hex board's slanted "
                             "sides or a square board seen from a corner)")
    add_discs_argument(parser)
    parser.add_argument("--overlay", "-o", help="draw what was read on the picture and write it here (PNG/JPEG)")
    parser.add_argument("--json", action="store_true",
                        help='print {"game", "points", "confidence", "presence", "readable", "reason", "view_note"} '
                             '(presence: how sure it is that a point holds a stack at all, or none; view_note: why '
                             'this camera is read less surely (too low, or too steep for stack heights), or null)')
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration.board_file import load_calibration
    from calibration.intrinsics import read_image
    from rules import GAMES
    from rules.diagram import diagram
    from vision.board_finder import BoardNotFound, locate_board, white_side_note
    from vision.reader import StackReader

    image = read_image(args.image)
    geometry = GAMES[args.game].geometry
    size = (image.shape[1], image.shape[0])
    if args.calibration:
        pose = load_calibration(args.calibration, geometry.kind, size).pose
        pose = replace(pose, spec=board_spec(args.discs, geometry.kind, pose.spec))
    else:
        try:
            found = locate_board(image, geometry.kind, white_side=args.white_side,
                                 spec=board_spec(args.discs, geometry.kind))
        except BoardNotFound as e:
            raise CLIError(f"{e}; calibrate the board with 'tacticblue calibrate board' and pass --calibration") from None
        pose = found.pose
        print(f"note: board found in the picture, {white_side_note(pose, found.orientation, args.white_side)} "
              "(--white-side to change it)", file=sys.stderr)
    reader = StackReader(args.game, pose)
    note = reader.view_note()
    if note:
        print(f"note: {note}", file=sys.stderr)
    reading = reader.read(image)
    if args.overlay:
        from vision.reader import draw_reading

        write_overlay(args.overlay, draw_reading(image, pose, geometry, reading))
    if args.json:
        print_json({**reading.to_json(), "view_note": note})
    else:
        obs = reading.observation
        print(diagram(geometry, {n: obs.points.get(n, "-") for n in geometry.names}))  # "-": not seen
        if not reading.readable:
            print(f"not readable: {reading.reason}")
        unseen = [n for n in geometry.names if n not in obs.points]
        if unseen:
            print(f"not seen (hidden by nearer stacks or a hand, or out of the picture): {', '.join(unseen)}")
        low = unsure_points(obs)
        if low:
            print(low)
        if args.overlay:
            print(f"wrote {args.overlay}")
    return 0 if reading.readable else 1


def unsure_points(obs: Observation, below: float = 0.5) -> str | None:
    """The line naming the points read with a confidence under ``below``, or None if there are
    none: an empty point read with no confidence at all is one that nearer stacks hide.

    >>> from rules.infer import Observation
    >>> unsure_points(Observation({"d4": "wb", "d5": "", "d6": "", "d7": "b"}, {"d4": 0.3, "d5": 0.2, "d6": 0.0}))
    'unsure: d4 wb (0.30), d5 empty (0.20), d6 hidden (0.00)'
    """
    low = sorted(n for n, c in obs.confidence.items() if n in obs.points and c < below)
    if not low:
        return None
    return "unsure: " + ", ".join(f"{n} {obs.points[n] or ('empty' if obs.confidence[n] else 'hidden')} "
                                  f"({obs.confidence[n]:.2f})" for n in low)
