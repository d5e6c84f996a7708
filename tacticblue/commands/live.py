"""``tacticblue watch | replay | demo``: the live companion.

``watch`` follows a game through a camera, ``replay`` through a video file, a folder of
frames or an observation log, ``demo`` replays the bundled Accasta sample.  All three
run one loop (:func:`run`): frames -> :class:`~tacticblue.session.Session` -> reporters.

Observation logs (``*.jsonl``) are what vision hands the referee, one settled board a
line: ``{"t": 12.5, "points": {"a1": "ww", ...}, "confidence": {...}, "presence": {...}}``
(presence optional: :class:`rules.infer.Observation`); a line
``{"t": .., "hand": true}`` is a frame with a hand in view (skipped) and
``{"t": .., "command": "pass"}`` a key the players pressed (done, undo, pass, 1-9).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import select
import sys
from pathlib import Path
from typing import Any, Iterator

from rules import GAMES, Board, new_game
from rules.base import Outcome
from rules.infer import Observation
from tacticblue.commands import CLIError, add_discs_argument, add_game_argument, board_spec, camera_size, seconds
from tacticblue.commands.panel import add_led_arguments, open_game_panel
from tacticblue.journal import Journal, JournalError, export_record, replay_journal
from tacticblue.session import Event, Reading, Session
from tacticblue.sources import (CAMERA_SIZE, CAMERA_WAIT_S, FolderSource, Frame, FrameSource, SourceError,
                                is_camera, open_source)
from tacticblue.stillness import StillnessDetector

ROOT = Path(__file__).resolve().parents[2]
DEMO_VIDEO = ROOT / "samples" / "video" / "accasta-rulebook.mp4"
"""The bundled recording of the Accasta rulebook game (``tools/render_live_videos.py --demo``):
1280x720 at 10 frames a second, read by the whole vision path like any recording; its
ground truth beside it (``.json``) is for ``--truth`` and the tests."""


def add_live_options(p: argparse.ArgumentParser) -> None:
    from calibration.board_file import WHITE_SIDES

    add_game_argument(p, required=False)  # --resume takes the game from the journal
    p.add_argument("--calibration", type=Path, metavar="FILE",
                   help="board calibration file from `tacticblue calibrate board` (default: find the board)")
    p.add_argument("--white-side", default="near", choices=WHITE_SIDES,
                   help="where White sits as the camera sees it, when the start position cannot show it "
                        "(default: near)")
    add_discs_argument(p)
    p.add_argument("--journal", type=Path, metavar="FILE",
                   help="write the journal here (default: a new file in $XDG_DATA_HOME/tacticblue/journals)")
    p.add_argument("--resume", type=Path, metavar="JOURNAL", help="continue the game of this journal")
    p.add_argument("--record", type=Path, metavar="FILE",
                   help="write the game in the rulebook's notation (PDN for dame100) here on exit and on 'e'")
    p.add_argument("--no-window", action="store_true", help="no window: print the events as lines")
    p.add_argument("--json", action="store_true", help="print the events as JSON lines (implies --no-window)")
    p.add_argument("--teach", action="store_true",
                   help="teaching mode: show where a lifted stack may go, and what was wrong after an illegal move")
    p.add_argument("--settle", type=seconds, default=0.3, metavar="S",
                   help="seconds the picture must be still before the board is read (default 0.3)")
    p.add_argument("--truth", type=Path, metavar="JSON",
                   help="for synthetic videos (`tacticblue scenes video`): take the stacks from the video's "
                        "ground truth instead of reading them, to check the loop and the referee apart from vision")
    add_led_arguments(p)
    # A camera index given to replay; replay --photos.
    p.set_defaults(camera_size=CAMERA_SIZE, camera_wait=CAMERA_WAIT_S, photos=False)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="referee and record a game through a camera",
                       description="Watch the board through a camera, referee every turn and record the game. "
                                   "Keys (window or terminal): d = turn done, u = undo, p = pass, 1-9 = confirm "
                                   "a candidate, e = export the record, q = quit.")
    p.add_argument("--camera", type=camera_spec, default="0", metavar="CAMERA",
                   help="the camera: its index (default 0), its device (/dev/video2) or the address of its stream "
                        "(rtsp://..., or a phone's webcam app: http://192.168.1.20:8080/video)")
    p.add_argument("--camera-wait", type=seconds, default=CAMERA_WAIT_S, metavar="S",
                   help="how long to wait for a camera that stops delivering frames (unplugged, its network down) "
                        "before the session ends, the game kept (default %g s)" % CAMERA_WAIT_S)
    p.add_argument("--camera-size", type=camera_size, default=CAMERA_SIZE, metavar="WxH",
                   help="frame size to ask of the camera (default %dx%d; 'native': the camera's own)" % CAMERA_SIZE)
    add_live_options(p)
    p.set_defaults(func=lambda a: run(a, a.camera, recording=False))

    p = sub.add_parser("replay", help="referee and record a game from a video, frames or an observation log",
                       description="Referee a recorded game: a video file, a folder of frames, or an "
                                   "observation log (.jsonl). Exits 0 at the end of the recording.")
    p.add_argument("source", help="video file, folder of frames, or observation log (.jsonl)")
    p.add_argument("--photos", action="store_true",
                   help="SOURCE is a folder of photos of the board, one taken after each move (a phone on a "
                        "stand, a time-lapse camera), in name order; each is read as a board at rest")
    add_live_options(p)
    p.set_defaults(func=lambda a: run(a, a.source, recording=True))

    p = sub.add_parser("demo", help="replay the bundled sample: the Accasta rulebook game",
                       description="Referee the bundled recording of the Accasta rulebook game.")
    add_live_options(p)
    p.set_defaults(func=cmd_demo, game=None)


def camera_spec(text: str) -> str:
    """``--camera``: a camera's index, device or stream (an argparse type,
    :func:`tacticblue.sources.is_camera`); anything else would be taken for a video file, and
    a missing one said as 'no such video file'."""
    if not is_camera(text):
        raise argparse.ArgumentTypeError(f"a camera is given by its index (0, 1, ...), its device (/dev/video0) or "
                                         f"its stream's address (rtsp://..., http://...), not {text!r}; "
                                         "'tacticblue replay' takes a video file")
    return text


def cmd_demo(args: argparse.Namespace) -> int:
    if args.game not in (None, "accasta"):
        raise CLIError("the demo recording is an Accasta game: leave out --game")
    args.game = "accasta"
    if not DEMO_VIDEO.is_file():
        raise CLIError(f"the sample recording {DEMO_VIDEO.relative_to(ROOT)} is missing from this checkout")
    return run(args, str(DEMO_VIDEO), recording=True)


# --- the pieces of the loop ------------------------------------------------------------------

def open_game(args: argparse.Namespace) -> tuple[Board[Any], Journal, list[str], dict[str, tuple[str, str]]]:
    """The board and journal: a resumed journal's game, or a new one.  Notes to tell the user,
    and the misreadings the players confirmed that still stand (:meth:`Session.remember`)."""
    if args.resume is not None:
        if args.journal is not None:
            raise CLIError("give --journal or --resume, not both")
        try:
            journal, contents = Journal.resume(args.resume)
        except JournalError as e:
            raise CLIError(f"cannot resume: {e} (the file is left as it is)") from None
        if args.game is not None and args.game != contents.game:
            journal.close()
            raise CLIError(f"{args.resume} is a {contents.game} game, not {args.game}")
        args.game = contents.game
        try:
            board_spec(args.discs, GAMES[args.game].geometry.kind)  # discs given that cannot stand there
        except CLIError:
            journal.close()
            raise
        notes = [f"resumed {args.resume}: {len(contents.turns)} turns played"]
        if args.discs is None and contents.discs is not None:
            args.discs = contents.discs
            notes.append(f"discs {args.discs[0]:g}x{args.discs[1]:g} mm, as the journal says (--discs to change them)")
        elif args.discs is not None and args.discs != contents.discs:
            journal.discs(args.discs)
        if contents.torn_tail is not None:
            notes.append(f"a half-written last line was moved to {args.resume}.torn")
        return replay_journal(contents), journal, notes, contents.misread
    board_spec(args.discs, GAMES[args.game].geometry.kind)  # discs that cannot stand there, before a journal opens
    path = args.journal or default_journal_path(args.game)
    try:
        journal = Journal.create(path, args.game, **({"discs": list(args.discs)} if args.discs else {}))
    except JournalError as e:
        raise CLIError(str(e)) from None
    return new_game(args.game), journal, [f"journal: {path}"], {}


def discard_unused_journal(journal: Journal) -> None:
    """Remove the journal a run created when the run stops on an error before anything was
    written to it but its header (a calibration is checked against the first frame, after the
    journal is opened): it holds no game, and left behind it would make the same command, run
    again once the error is fixed, refuse its --journal as existing already."""
    journal.close()
    try:
        if journal.path.read_text(encoding="utf-8").count("\n") <= 1:
            journal.path.unlink()
    except (OSError, UnicodeDecodeError):
        pass  # it stays as it is


def default_journal_path(game: str) -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return base / "tacticblue" / "journals" / f"{stamp}-{game}.journal"


def result_line(board: Board[Any], outcome: Outcome | None) -> str | None:
    """The record's result line: PDN scores for draughts, words for the tactic blue games."""
    if outcome is None:
        return None
    if board.name == "dame100":
        return "1-1" if outcome.draw else ("2-0" if outcome.winner == "w" else "0-2")
    if outcome.draw:
        return "Draw."
    who = "White" if outcome.winner == "w" else "Black"
    return f"{who} wins {outcome.score[0]}:{outcome.score[1]}." if outcome.score else f"{who} wins."


def check_record_path(path: Path) -> None:
    """Refuse a ``--record`` path the record cannot be written to before the game starts: the
    record is written after every turn, and a path that never works would be found out only
    then (:class:`RecordWriter` tells the players and goes on)."""
    if path.is_dir():
        problem = "it is a folder"
    elif not path.parent.is_dir():
        problem = f"no such folder {path.parent}"
    elif not os.access(path.parent, os.W_OK):
        problem = f"the folder {path.parent} is not writable"
    else:
        return
    raise CLIError(f"{path}: cannot write the record ({problem})")


def export(session: Session, path: Path) -> None:
    """Write the game's record, atomically (:func:`calibration.board_file.write_atomically`)."""
    from calibration.board_file import write_atomically

    board = session.board
    write_atomically(path, export_record(board, result_line(board, board.outcome())))


class RecordWriter:
    """The game's record (``--record``, or ``e``), written after every turn and at the end.

    Writing may fail in the middle of a game (the USB stick holding it pulled, the disk full):
    that must not stop the referee, as every turn is in the journal already.  The players are
    told once, every later write tries again, and they are told once when one succeeds."""

    def __init__(self, path: Path, journal: Path) -> None:
        self.path = path
        self.journal = journal
        self.problem: str | None = None
        """Why the last write failed ("PATH: cannot write (reason)"), or None."""

    def write(self, session: Session, final: bool = False) -> str | None:
        """Write the record; the note for the players, or None when there is nothing new to tell:
        that it cannot be written (once, until a write succeeds), that it is written again, and
        when ``final`` (the end of the run, or ``e``) that it is not written and where the turns are."""
        failed_before = self.problem is not None
        try:
            export(session, self.path)
        except OSError as e:
            self.problem = str(e)
        else:
            self.problem = None
            return f"record written to {self.path} again" if failed_before else None
        if final:
            return f"{self.problem}: the record is not written; every turn played is in the journal {self.journal}"
        if failed_before:
            return None
        return (f"{self.problem}: the game goes on and every turn is in the journal; "
                "writing the record is tried again after every turn and at the end")


def make_reader(args: argparse.Namespace, board: Board[Any]) -> Any:
    """The reader of frames: the video's ground truth (``--truth``) or vision."""
    if args.truth is not None:
        return TruthReader.load(args.truth, board)
    from tacticblue.vision_reader import VisionReader

    return VisionReader(board, args.calibration, args.white_side, args.discs)


class TruthReader:
    """Reads a synthetic video's frames from its ground truth (see ``--truth``): a hand when
    the truth says one is in view, else the position the board is in.

    The truth names the position only from the moment the hand is gone from the scene; from
    the moment it left the picture the board is already that position (pieces only move in
    a hand, in view), so those frames get it too.  Between the moves of one turn the truth
    does not say what stands where: no observation there."""

    def __init__(self, positions: list[dict[str, str]], frames: list[dict[str, Any]], pose: Any = None) -> None:
        self.positions = positions
        self.frames = frames
        self.pose = pose
        self.seen: list[int | None] = [None] * len(frames)
        """The position index each frame shows, where the truth implies it."""
        upcoming: int | None = None
        for n in range(len(frames) - 1, -1, -1):
            f = frames[n]
            if f.get("hand"):
                upcoming = None
            elif f.get("position") is not None:
                upcoming = int(f["position"])
            self.seen[n] = upcoming

    @classmethod
    def load(cls, path: Path, board: Board[Any]) -> "TruthReader":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            positions, frames = data["positions"], data["frames"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise CLIError(f"{path} is not a video's ground truth ({e})") from None
        if data.get("game") != board.name:
            raise CLIError(f"{path} is the ground truth of a {data.get('game')} video, not {board.name}")
        from vision.synth.scene import pose_from_truth

        return cls(positions, frames, pose_from_truth(data))

    def read(self, frame: Frame) -> Reading:
        if frame.index >= len(self.frames):
            return Reading(None)
        if self.frames[frame.index].get("hand"):
            return Reading(None, hand=True)
        seen = self.seen[frame.index]
        if seen is None:
            return Reading(None)
        return Reading(Observation(dict(self.positions[seen])), overlay=self.pose)


class ObservationLog(FrameSource):
    """An observation log (JSON lines) as a source: yields ``(t, entry)``."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise SourceError(f"no such observation log: {path}")
        self.path = path
        self.description = f"observations {path}"

    def entries(self) -> Iterator[tuple[float, dict[str, Any]]]:
        """The log's entries; a line that is no UTF-8 JSON object with a finite time is an error
        naming it (Python's JSON reads NaN and Infinity, which would go into the journal and
        make the --json events invalid JSON)."""
        with open(self.path, "rb") as f:
            for n, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                try:
                    entry = json.loads(raw.decode("utf-8"))
                    t = float(entry.get("t", n))
                except UnicodeDecodeError:
                    raise CLIError(f"{self.path}, line {n}: not UTF-8 text") from None
                except (ValueError, AttributeError, TypeError):
                    t = math.nan
                if not math.isfinite(t):
                    raise CLIError(f"{self.path}, line {n}: not a JSON object with a time 't'")
                yield t, entry
        self.ended_by = "end of the observation log"


def terminal_commands() -> list[str]:
    """Lines typed in the terminal since the last call (only when stdin is a terminal)."""
    if not sys.stdin.isatty():
        return []
    out = []
    while select.select([sys.stdin], [], [], 0)[0]:
        line = sys.stdin.readline()
        if not line:
            break
        out.append(line.strip() or "done")
    return out


# --- the loop --------------------------------------------------------------------------------

def run(args: argparse.Namespace, spec: str, recording: bool) -> int:
    if args.json:
        args.no_window = True
    if args.game is None and args.resume is None:
        raise CLIError("give --game (or --resume a journal)")
    if args.record is not None:
        check_record_path(args.record)
    headless = not args.no_window and sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if headless:
        args.no_window = True  # the events as lines, as with --no-window
    is_log = str(spec).endswith(".jsonl")
    try:
        if is_log and args.photos:
            raise SourceError("--photos is for a folder of photos, not an observation log")
        source: FrameSource = (ObservationLog(Path(spec)) if is_log else
                               open_source(spec, args.camera_size, args.photos, args.camera_wait))
    except SourceError as e:
        raise CLIError(str(e)) from None
    board, journal, notes, misread = open_game(args)
    session: Session | None = None
    record = None if args.record is None else RecordWriter(args.record, journal.path)
    if source.note:
        notes.append(source.note)
    if headless:
        notes.append("no display for the window: the events are printed as lines (as with --no-window)")
    if args.truth is not None and not is_log:
        notes.append(f"stacks taken from the ground truth {args.truth.name}, not read from the images")
    try:
        reader = None if is_log else make_reader(args, board)
        session = Session(board, reader, journal=journal, teach=args.teach,
                          stillness=StillnessDetector(settle_s=args.settle))
        session.remember(misread)
        from tacticblue.reporters import JsonReporter, PanelReporter, TextReporter, WindowReporter

        reporters: list[Any] = [JsonReporter() if args.json else TextReporter()]
        window = None if args.no_window else WindowReporter()
        panel = open_game_panel(args, board.name)
        panel_reporter = None if panel is None else PanelReporter(panel)
        if panel_reporter is not None:
            reporters.append(panel_reporter)

        def report(events: list[Event]) -> None:
            for event in events:
                for r in reporters:
                    r.show(event, session)
                if event.event in ("turn", "end") and record is not None:
                    note = record.write(session)
                    if note:
                        report([Event(event.t, "info", note, ply=board.ply)])
            news = journal.news()
            if news:
                report([Event(events[-1].t if events else 0.0, "info", news, ply=board.ply)])

        def panel_news(t: float, final: bool = False) -> None:
            news = None if panel_reporter is None else panel_reporter.news(final)
            if news:
                report([Event(t, "info", news, ply=board.ply)])

        def commands(t: float, image: Any = None) -> bool:
            panel_news(t)
            keys = terminal_commands()
            if window is not None:
                keys += window.frame(image, session, source.description)
            if panel_reporter is not None:
                keys += panel_reporter.commands()
            for key in keys:
                if key in ("q", "quit"):
                    return False
                if key in ("e", "export"):
                    target = record or RecordWriter(
                        journal.path.with_suffix(".pdn" if board.name == "dame100" else ".txt"), journal.path)
                    note = target.write(session, final=True)
                    report([Event(t, "info", note or f"record written to {target.path}", ply=board.ply)])
                    continue
                report(session.command(key, t))
            return True

        report([Event(0.0, "info", f"{board.title}: {note}", ply=board.ply) for note in notes])
        t = 0.0

        def source_note(at: float, message: str) -> None:
            nonlocal t
            t = max(t, at)
            report([Event(t, "info", message, ply=board.ply)])

        source.on_note = source_note
        stopped = False
        if isinstance(source, ObservationLog):
            for t, entry in source.entries():
                if "command" in entry:
                    report(session.command(str(entry["command"]), t))
                elif not entry.get("hand"):
                    try:
                        observation = Observation.from_json(entry)
                        observation.check(board)
                    except ValueError as e:
                        raise CLIError(f"{spec}: at t={t}: {e}") from None
                    report(session.settled(observation, t))
                panel_news(t)
        else:
            for frame in source:
                t = frame.t
                report(session.feed(frame))
                if not commands(t, frame.image):
                    stopped = True
                    break
        ended_by = "stopped" if stopped else (source.ended_by or "the source ended")
        if isinstance(source, FolderSource) and source.repeat == 1 and len(source.files) > 1 and session.reading is None:
            report([Event(t, "info", "no two frames in a row showed the board still: if they are photos, one per "
                                     "move, replay them with --photos", ply=board.ply)])
        camera_lost = not recording and not stopped
        panel_news(t, final=True)
        report(session.finish(t, ended_by, confirm_pending=recording and not stopped))
        if record is not None:
            note = record.write(session, final=True)
            record = None  # written at the end: not again on the way out (``finally``)
            if note:
                report([Event(t, "info", note, ply=board.ply)])
        if window is not None:
            window.close()
        if panel is not None:
            panel.panel.wait_shown(1.0)  # the last frame reaches the panel before the port closes
            panel.close()
        return 1 if camera_lost else 0
    except Exception:
        if args.resume is None:
            discard_unused_journal(journal)
        raise
    finally:  # also on Ctrl-C: the journal has every turn already, the record is written too
        if session is not None and record is not None:
            note = record.write(session, final=True)
            if record.problem is not None:
                print(f"tacticblue: {note}", file=sys.stderr)
        if journal.problem is not None:  # the game's last turns are nowhere else but on screen
            print(f"tacticblue: {journal.problem}: the journal lacks the game's last {journal.lacking} entries; "
                  f"the game so far:\n{export_record(board, result_line(board, board.outcome()))}", file=sys.stderr)
        source.close()
        journal.close()
