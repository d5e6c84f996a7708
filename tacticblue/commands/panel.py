"""``tacticblue panel``: the serial LED panel: emulate one, show a position, probe, self-test.

Companion commands take the panel with :func:`add_led_arguments` and
:func:`open_game_panel`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tacticblue.commands import CLIError, add_game_argument, print_json, seconds


def add_led_arguments(parser: argparse.ArgumentParser) -> None:
    """``--led PATH`` (a serial port, an emulator's pty, or ``auto``) and ``--led-layout``."""
    parser.add_argument("--led", metavar="PORT",
                        help="show the game on the serial LED panel at PORT (e.g. /dev/ttyUSB0, the path "
                             "`tacticblue panel emulate` prints, or 'auto' to scan the USB serial ports)")
    parser.add_argument("--led-layout", metavar="LAYOUT",
                        help="the panel's wiring: 'hex', 'square' or a layout JSON file (default: the "
                             "shipped layout of the game's board side)")


def open_game_panel(args: argparse.Namespace, game: str, **driver: object):  # -> hardware.panel.GamePanel
    """The :class:`hardware.panel.GamePanel` that ``--led`` asks for (None without ``--led``)."""
    from hardware.panel import GamePanel, load_layout

    if not args.led:
        return None
    try:
        layout = load_layout(args.led_layout, game)
        return GamePanel(None if args.led == "auto" else args.led, game, layout, **driver)
    except ValueError as e:
        raise CLIError(str(e)) from None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("panel", help="the serial LED panel: emulate, show, probe, selftest",
                            description="The serial LED panel beside or under the board.")
    psub = parser.add_subparsers(dest="panel_command", metavar="ACTION", required=True)

    p = psub.add_parser("emulate", help="a virtual panel on a pty, drawn in the terminal",
                        description="Create a virtual LED panel on a pty, print its path and draw its LEDs "
                                    "as the companion lights them. Pass the path to --led. Type a button "
                                    "number and Enter to press it. Stop with Ctrl-C.")
    p.add_argument("--layout", default="hex", metavar="LAYOUT",
                   help="'hex' (37 LEDs), 'square' (100 LEDs) or a layout JSON file (default: hex)")
    p.add_argument("--link", type=Path, metavar="PATH", help="also make PATH a symlink to the pty")
    p.set_defaults(func=cmd_emulate)

    p = psub.add_parser("show", help="show one moment of a game on a panel",
                        description="Connect to a panel, show the given last move / targets / illegal "
                                    "move / result, wait until the panel confirms it, and exit. "
                                    "Points are the game's point names, comma separated.")
    add_game_argument(p)
    add_led_arguments(p)
    p.add_argument("--to-move", choices=["w", "b"], help="whose turn it is")
    p.add_argument("--last", default="", metavar="POINTS", help="points of the last move, from first, e.g. a1,b2")
    p.add_argument("--touched", metavar="POINT", help="a touched stack (teaching mode)")
    p.add_argument("--targets", default="", metavar="POINTS", help="its legal targets (teaching mode)")
    p.add_argument("--illegal", default="", metavar="POINTS", help="points to put back after an illegal move")
    p.add_argument("--winner", choices=["w", "b", "draw"], help="the game is over")
    p.add_argument("--timeout", type=seconds, default=5.0, help="seconds to wait for the panel (default 5)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_show)

    p = psub.add_parser("replay", help="play a game record on a panel, turn by turn",
                        description="Replay a record (checked by the rules) on the panel: after every turn "
                                    "the points it changed, in the colour of the side now to move; at the end "
                                    "the result. Exit 1 if the panel does not confirm a turn.")
    p.add_argument("record", type=Path, metavar="FILE", help="the game record")
    add_game_argument(p)
    add_led_arguments(p)
    p.add_argument("--delay", type=seconds, default=1.0, help="seconds per turn (default 1)")
    p.add_argument("--timeout", type=seconds, default=5.0, help="seconds to wait for the panel (default 5)")
    p.set_defaults(func=cmd_replay)

    p = psub.add_parser("probe", help="handshake with a panel and print what it is",
                        description="Open the panel, handshake, and print its protocol and firmware "
                                    "version, LEDs, buttons and capabilities. Exit 1 if none answers.")
    p.add_argument("--led", default="auto", metavar="PORT", help="the serial port (default: scan USB ports)")
    p.add_argument("--timeout", type=seconds, default=5.0, help="seconds to wait (default 5)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_probe)

    p = psub.add_parser("selftest", help="prove the panel stack works, in a simulator",
                        description="Build the firmware, run it in simavr behind a pty and check handshake, "
                                    "LED frames, buttons, garbage on the line, unplugging and dimming with "
                                    "the real host driver. Needs the Debian packages gcc-avr avr-libc simavr "
                                    "libsimavr-dev libelf-dev. Prints one line per check, then "
                                    "'N passed, M failed'; exit 1 on any failure.")
    p.add_argument("--build-dir", type=Path, metavar="DIR", help="build here (default: a temporary directory)")
    p.add_argument("--frames", type=int, default=100, help="frames for the throughput check (default 100)")
    p.set_defaults(func=cmd_selftest)


def _points(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())


def cmd_emulate(args: argparse.Namespace) -> int:
    from hardware.emulator import emulate
    from hardware.layout import LedLayout

    layout = LedLayout.default(args.layout) if args.layout in ("hex", "square") else LedLayout.load(Path(args.layout))
    return emulate(layout, args.link, sys.stdout, stdin=sys.stdin if not sys.stdin.closed else None)


def cmd_show(args: argparse.Namespace) -> int:
    from hardware.view import PanelView

    if not args.led:
        raise CLIError("--led PORT is required (a serial port, an emulator's path, or 'auto')")
    panel = open_game_panel(args, args.game)
    try:
        view = PanelView(to_move=args.to_move, last_move=_points(args.last), touched=args.touched,
                         targets=_points(args.targets), illegal=_points(args.illegal), winner=args.winner)
        try:
            panel.show(view)
        except KeyError as e:
            raise CLIError(e.args[0]) from None
        shown = panel.panel.wait_shown(args.timeout)
        problem = panel.panel.last_problem
    finally:
        panel.close()
    if args.json:
        print_json({"shown": shown, "port": args.led, "problem": None if shown else problem})
    elif shown:
        print(f"shown on {args.led}")
    if not shown:
        raise CLIError(f"the panel at {args.led} did not confirm within {args.timeout:g} s"
                       + (f" ({problem})" if problem else ""), status=1)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from hardware.view import PanelView, moved_points
    from rules import COLOUR_NAMES, new_game
    from tacticblue.commands.rules import play_turn, read_record_file

    if not args.led:
        raise CLIError("--led PORT is required (a serial port, an emulator's path, or 'auto')")
    board = new_game(args.game)
    record = read_record_file(args.record, board)
    panel = open_game_panel(args, args.game)
    try:
        if not panel.panel.wait_online(args.timeout):
            raise CLIError(f"no panel answered at {args.led} ({panel.panel.last_problem})", status=1)
        for number, text in enumerate(record.turns, 1):
            mover, before = COLOUR_NAMES[board.turn], board.visible()
            notation = play_turn(board, number, text)
            moved = moved_points(before, board.visible())
            panel.show(PanelView(to_move=board.turn, last_move=moved))
            if not panel.panel.wait_shown(args.timeout):
                raise CLIError(f"turn {number}: the panel did not confirm ({panel.panel.last_problem})", status=1)
            print(f"{number:>3}. {mover:<5} {notation:<16} lit: {', '.join(moved)}", flush=True)
            time.sleep(args.delay)
        outcome = board.outcome()
        if outcome is not None:
            panel.show(PanelView(winner="draw" if outcome.draw else outcome.winner))
            if not panel.panel.wait_shown(args.timeout):
                raise CLIError("the panel did not confirm the result", status=1)
            print(f"result: {outcome.reason}")
    finally:
        panel.close()
    return 0


def cmd_probe(args: argparse.Namespace) -> int:
    from hardware.driver import Panel

    with Panel(None if args.led == "auto" else args.led, leds=0) as panel:
        online = panel.wait_online(args.timeout)
        info, port, problem = panel.device, panel.connected_port, panel.last_problem
    if not online or info is None:
        raise CLIError(f"no panel answered{' at ' + args.led if args.led != 'auto' else ''}"
                       + (f" ({problem})" if problem else ""), status=1)
    if args.json:
        print_json({"port": port, **info.to_json()})
    else:
        data = info.to_json()
        print(f"panel on {port}: protocol {data['protocol']}, firmware {data['firmware']}, {info.leds} LEDs, "
              f"{info.buttons} buttons; capabilities: {', '.join(data['capabilities'])}")  # type: ignore[arg-type]
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    from hardware.selftest import run

    if args.frames < 1:
        raise CLIError("--frames must be at least 1")
    _, failed = run(lambda line: print(line, flush=True), args.build_dir, args.frames)
    return 1 if failed else 0
