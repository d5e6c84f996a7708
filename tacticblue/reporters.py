"""Where the live session's events go: terminal lines, JSON lines, a window, the LED panel.

Every reporter has ``show(event, session)``; the window also draws every frame
(``frame(image, session)``) and hands back the keys pressed.  The window's picture is
made by :func:`render_window`, a pure function (image and session in, image out), so it
is tested without a display.
"""

from __future__ import annotations

import sys
import textwrap
import time
from typing import Any, TextIO

import cv2
import numpy as np

from rules import Board
from rules.geometry import DEFAULT_SPEC
from rules.infer import played_changes
from tacticblue.session import Event, Session

PANEL_WIDTH = 400
"""Width in pixels of the window's side panel."""
VIEW_HEIGHT = 540
"""Height the camera image is scaled to in the window."""

LABELS = {"turn": "TURN", "partial": "in progress", "ambiguous": "AMBIGUOUS", "illegal": "ILLEGAL",
          "takeback": "take-back", "end": "GAME OVER", "info": "note"}


def format_event(event: Event) -> str:
    """One terminal line: ``  12.4s  TURN 2: black played e4:+e3``, numbered as the game's
    record numbers its turns (White's and Black's turn share a number).

    >>> format_event(Event(12.36, "turn", "black played e4:+e3", "e4:+e3", ply=4, number=2))
    '  12.4s  TURN 2: black played e4:+e3'
    """
    label = LABELS.get(event.event, event.event)
    if event.event == "turn":
        label += f" {event.number if event.number is not None else event.ply}"
    return f"{event.t:6.1f}s  {label}: {event.message}"


class TextReporter:
    """Events as lines for a terminal or a log."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def show(self, event: Event, session: Session) -> None:
        self.stream.write(format_event(event) + "\n")
        self.stream.flush()


class JsonReporter:
    """Events as JSON lines (``{"t": .., "event": .., "turn": .., "message": ..}``) for scripts;
    ``info`` notes (the journal's name, the board out of view, the end of the video) go to
    ``notes`` as text lines, so the JSON stream holds only the game's events."""

    def __init__(self, stream: TextIO | None = None, notes: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.notes = notes or sys.stderr

    def show(self, event: Event, session: Session) -> None:
        import json

        if event.event == "info":
            self.notes.write(format_event(event) + "\n")
            self.notes.flush()
            return
        self.stream.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
        self.stream.flush()


class PanelReporter:
    """The game on the serial LED panel: last move and whose turn, points to put back, result,
    and in teaching mode the targets of a lifted stack.  The panel's buttons are keyboard commands."""

    BUTTON_COMMANDS = ("done", "undo", "1")

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self._online: bool | None = None  # as last told; None: nothing told yet
        self._since = time.monotonic()

    def news(self, final: bool = False) -> str | None:
        """What the players should hear of the panel since the last call, or None: that it
        answers, that it stopped answering, or that none has answered within the driver's
        handshake time (or by the end of the run, ``final``).  The game goes on either way:
        the panel is a display, and is shown the game as it stands when it answers again.

        At the end of a run shorter than a handshake (a short replay, a busy machine), a panel
        whose port is open, or not yet tried, is given up to a handshake's time to answer, so
        that it is shown the last turn rather than told it was never there, and a port that
        cannot be opened is told with its reason."""
        driver = self.panel.panel
        if final and self._online is None:
            driver.wait_settled(driver.timing.handshake_timeout)
        if driver.online:
            if self._online:
                return None
            self._online = True
            return f"LED panel answers on {driver.connected_port}"
        if self._online is False:
            return None
        waited = time.monotonic() - self._since > driver.timing.handshake_timeout + 0.5
        if self._online is None and not (waited or final):
            return None
        problem = f" ({driver.last_problem})" if driver.last_problem else ""
        was_online, self._online = self._online, False
        if was_online:
            return (f"the LED panel stopped answering{problem}: the game goes on and is recorded; "
                    "the panel is shown it again when it answers")
        return f"no LED panel answers{problem}: the game goes on without it"

    def show(self, event: Event, session: Session) -> None:
        from hardware.view import PanelView

        board = session.board
        to_move = board.turn
        if event.event == "end":
            result = event.data.get("result") or {}
            winner = "draw" if result.get("draw") else ({"white": "w", "black": "b"}.get(result.get("winner")))
            view = PanelView(winner=winner)  # type: ignore[arg-type]
        elif event.event == "illegal":
            view = PanelView(to_move=to_move, illegal=tuple(event.data.get("put_back", {})))
        elif event.event == "partial" and event.data.get("targets"):
            view = PanelView(to_move=to_move, targets=tuple(event.data["targets"]))
        else:
            view = PanelView(to_move=to_move, last_move=last_move_points(board))
        self.panel.show(view)

    def commands(self) -> list[str]:
        return [self.BUTTON_COMMANDS[e.button] for e in self.panel.events()
                if e.pressed and e.button < len(self.BUTTON_COMMANDS)]


def last_move_points(board: Board[Any]) -> tuple[str, ...]:
    """The points of the last turn, those that lost pieces first (from ... to)."""
    if not board.move_stack:
        return ()
    previous = board.copy()
    turn = previous.pop()
    names = board.geometry.names
    changes = played_changes(previous, turn)
    return tuple(names[i] for i in sorted(changes, key=lambda i: len(changes[i]) >= len(previous.stacks[i])))


# --- the window --------------------------------------------------------------------------------

WHITE = (235, 235, 235)
BLACK = (40, 40, 40)
BLUE = (170, 90, 20)
TEXT = (230, 230, 230)
MESSAGE_COLOURS = {"turn": (120, 220, 120), "illegal": (80, 80, 255), "ambiguous": (60, 200, 255),
                   "partial": (230, 200, 120), "end": (255, 255, 120), "takeback": (200, 160, 255)}


def render_window(image: np.ndarray | None, session: Session, status: str = "") -> np.ndarray:
    """The window's picture: the camera image with the read stacks on it, and the side panel
    (board diagram, move list, current message).  BGR ``uint8``, ``VIEW_HEIGHT`` rows."""
    if image is None:
        view = np.zeros((VIEW_HEIGHT, VIEW_HEIGHT * 16 // 9, 3), np.uint8)
    else:
        scale = VIEW_HEIGHT / image.shape[0]
        view = cv2.resize(image, (round(image.shape[1] * scale), VIEW_HEIGHT), interpolation=cv2.INTER_AREA)
        reading = session.reading
        if reading is not None and reading.overlay is not None and reading.observation is not None:
            _draw_stacks(view, reading.overlay, session, reading.observation.points, scale)
    panel = np.full((VIEW_HEIGHT, PANEL_WIDTH, 3), 32, np.uint8)
    _draw_board(panel, session, (10, 10, PANEL_WIDTH - 20, 230))
    y = 260
    moves = _move_lines(session)
    cv2.putText(panel, f"{session.board.title}: {len(session.notations)} turns", (10, y), cv2.FONT_HERSHEY_SIMPLEX,
                0.5, TEXT, 1, cv2.LINE_AA)
    for line in moves[-8:]:
        y += 18
        cv2.putText(panel, line, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, TEXT, 1, cv2.LINE_AA)
    event = session.last
    y = max(y + 28, 430)
    if event is not None:
        colour = MESSAGE_COLOURS.get(event.event, TEXT)
        for line in textwrap.wrap(f"{LABELS[event.event]}: {event.message}", 46)[:5]:
            cv2.putText(panel, line, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
            y += 18
    if status:
        cv2.putText(panel, status[:50], (10, VIEW_HEIGHT - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (150, 150, 150), 1,
                    cv2.LINE_AA)
    return np.hstack([view, panel])


def _move_lines(session: Session) -> list[str]:
    """The move list two plies a line, numbered from 1."""
    notes = session.notations
    return [f"{n // 2 + 1}. {' '.join(notes[n:n + 2])}" for n in range(0, len(notes), 2)]


def _draw_stacks(view: np.ndarray, pose: Any, session: Session, seen: dict[str, str], scale: float) -> None:
    """Each read stack as a label at its point: what vision saw, red where the game disagrees."""
    board = session.board
    expected = dict(zip(board.geometry.names, session.state.visible_now()))
    for name, (u, v) in pose.point_pixels(board.geometry).items():
        stack = seen.get(name)
        if stack is None:
            continue
        at = (round(u * scale), round(v * scale))
        ok = board.stack_fits(expected[name], stack)
        cv2.circle(view, at, 4, (0, 200, 0) if ok else (0, 0, 255), -1, cv2.LINE_AA)
        if stack:
            cv2.putText(view, stack, (at[0] + 5, at[1] - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 255), 1,
                        cv2.LINE_AA)


def _draw_board(panel: np.ndarray, session: Session, box: tuple[int, int, int, int]) -> None:
    """The position as White sees it: a disc per point, the top piece's colour, the height written on it;
    points to put back after an illegal move ringed in red, in teaching mode the targets of a
    lifted stack in green."""
    board = session.board
    geometry = board.geometry
    stacks = session.state.visible_now()
    pos = np.array(list(geometry.positions_mm(DEFAULT_SPEC).values()))
    x0, y0, w, h = box
    lo, hi = pos.min(0), pos.max(0)
    span = max(hi - lo) or 1.0
    scale = min(w, h) / (span * 1.1)
    r = max(3, int(min(np.linalg.norm(pos[1] - pos[0]), 60.0) * scale * 0.42))
    cx, cy = x0 + w / 2, y0 + h / 2
    centre = (lo + hi) / 2
    last = session.last
    put_back = last.data.get("put_back", {}) if last and last.event == "illegal" else {}
    targets = set(last.data.get("targets", ())) if last and last.event == "partial" else set()
    for name, (px, py), stack in zip(geometry.names, pos, stacks):
        at = (round(cx + (px - centre[0]) * scale), round(cy - (py - centre[1]) * scale))
        cv2.circle(panel, at, r, (90, 90, 90), 1, cv2.LINE_AA)
        if stack:
            top_white = stack[-1] == "w"
            cv2.circle(panel, at, r - 1, WHITE if top_white else BLACK, -1, cv2.LINE_AA)
            cv2.circle(panel, at, r - 1, (150, 150, 150), 1, cv2.LINE_AA)
            if len(stack) > 1:
                cv2.putText(panel, str(len(stack)), (at[0] - 4, at[1] + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                            BLUE if top_white else (255, 200, 120), 1, cv2.LINE_AA)
        if name in put_back:
            cv2.circle(panel, at, r + 2, (0, 0, 255), 2, cv2.LINE_AA)
        if name in targets:  # teaching mode: where the lifted pieces may go
            cv2.circle(panel, at, r + 2, (0, 220, 0), 2, cv2.LINE_AA)


class WindowReporter:
    """An OpenCV window: :func:`render_window` on every frame; keys become commands."""

    KEYS = {ord("d"): "done", ord(" "): "done", ord("u"): "undo", ord("p"): "pass", 27: "quit", ord("q"): "quit"}

    def __init__(self, title: str = "tacticblue") -> None:
        self.title = title
        cv2.namedWindow(title, cv2.WINDOW_NORMAL)

    def show(self, event: Event, session: Session) -> None:
        """Events appear in the side panel on the next frame."""

    def frame(self, image: np.ndarray | None, session: Session, status: str = "") -> list[str]:
        cv2.imshow(self.title, render_window(image, session, status))
        key = cv2.waitKey(1) & 0xFF
        if key == 255:
            return []
        if ord("1") <= key <= ord("9"):
            return [chr(key)]
        return [self.KEYS[key]] if key in self.KEYS else []

    def close(self) -> None:
        cv2.destroyWindow(self.title)
