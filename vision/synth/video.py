"""Videos of a played game as a camera on a tripod films it, with ground truth per frame.

For every turn a hand reaches in from the mover's side, lifts pieces, carries them
through the turn's intermediate states (a pause between the moves of an Accasta turn;
in draughts the captured pieces are taken off one by one after the move), leaves, and
the board stays still for a while.  The camera shakes a little, the light flickers and
now and then a shadow passes over the board.

Ground truth per frame: whether the hand is in view, and the position (an index into
``positions``, the position after each ply) whenever the board is still, i.e. no hand
is anywhere over the scene.  Frames are shifted by the camera shake: a point's pixel in
frame ``i`` is its pixel in the still camera plus ``frames[i]["shift"]``.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2
import numpy as np

from rules import Board, new_game
from vision.synth.hand import hand_capsules
from vision.synth.photo import develop, jpeg, random_photo_look
from vision.synth.render import Disc, Scene, moving_region, render_linear
from vision.synth.raycast import Rays
from vision.synth.scene import camera_truth, random_scene

Position = dict[str, str]


def turn_stages(board: Board[Any], turn: Any) -> list[Position]:
    """The visible positions a player's hands go through while playing ``turn`` (last = after it).

    Multi-move turns (Accasta: ``origin`` and ``moves``, every prefix a turn of its own)
    stop after every move; other turns are one stage, whose hand actions
    :func:`actions_between` orders.  ``board`` is left unchanged."""
    stages: list[Position] = []
    moves = getattr(turn, "moves", None)
    if moves is not None and hasattr(turn, "origin"):
        for i in range(1, len(moves)):
            partial = board.copy()
            partial.push(type(turn)(turn.origin, tuple(moves[:i])))
            stages.append(partial.visible())
    after = board.copy()
    after.push(turn)
    stages.append(after.visible())
    return stages


@dataclass(frozen=True)
class Action:
    """One thing a hand does: carry a pile from ``src`` to ``dst``; ``src`` None brings
    pieces from beside the board, ``dst`` None takes them away."""

    src: str | None
    dst: str | None
    pieces: str


def actions_between(a: Position, b: Position, pos: dict[str, tuple[float, float]]) -> list[Action]:
    """The hand actions that turn position ``a`` into ``b``: carries first, then placings, then removals.

    Removals (captured pieces) go one by one, each time the nearest one left, starting
    from where the move began: the order a draughts player takes off a capture chain.

    >>> actions_between({"a1": "wb", "a2": ""}, {"a1": "w", "a2": "b"}, {"a1": (0, 0), "a2": (50, 0)})
    [Action(src='a1', dst='a2', pieces='b')]
    """
    gone: dict[str, str] = {}
    came: dict[str, str] = {}
    for n in pos:
        x, y = a.get(n, ""), b.get(n, "")
        if x == y:
            continue
        if y.startswith(x):
            came[n] = y[len(x):]
        elif x.startswith(y):
            gone[n] = x[len(y):]
        else:
            gone[n], came[n] = x, y
    out: list[Action] = []
    for dst, pieces in list(came.items()):
        src = next((s for s, p in gone.items() if p and pieces.startswith(p)), None)
        if src is None:
            continue
        out.append(Action(src, dst, gone.pop(src)))
        if pieces[len(out[-1].pieces):]:
            came[dst] = pieces[len(out[-1].pieces):]
        else:
            del came[dst]
    out += [Action(None, dst, pieces) for dst, pieces in came.items()]
    here = pos[out[0].src or out[0].dst] if out else (0.0, 0.0)  # type: ignore[index]
    while gone:
        src = min(gone, key=lambda n: math.dist(pos[n], here))
        out.append(Action(src, None, gone.pop(src)))
        here = pos[src]
    return out


@dataclass(frozen=True)
class Key:
    """The hand and board at one moment; the hand moves smoothly between keys."""

    t: float
    pinch: np.ndarray | None
    """Pinch point (mm); None when the hand is away."""
    opening: float
    carried: str
    board: Position
    approach: tuple[float, float] = (0.0, 1.0)
    """Direction (board x, y) from the player to the board."""


@dataclass(frozen=True)
class VideoLook:
    fps: float = 15.0
    still_s: float = 1.0
    speed_mm_s: float = 800.0
    pause_s: float = 0.6
    shake_px: float = 0.4
    flicker: float = 0.02
    shadow_chance: float = 0.25


def _ease(x: float) -> float:
    return x * x * (3 - 2 * x)


class _Timeline:
    """Builds the keys of a game: the hand's path through every turn."""

    def __init__(self, scene: Scene, look: VideoLook, rng: np.random.Generator) -> None:
        self.scene, self.look, self.rng = scene, look, rng
        self.pos = scene.geometry.positions_mm(scene.spec)
        self.h = scene.spec.piece_height_mm
        self.keys: list[Key] = []
        self.t = 0.0
        self.marks: list[tuple[float, float, int]] = []
        """(start, end, position index) of every still period."""

    def still(self, board: Position, index: int, seconds: float) -> None:
        self.keys.append(Key(self.t, None, 1.0, "", board))
        self.marks.append((self.t, self.t + seconds, index))
        self.t += seconds
        self.keys.append(Key(self.t, None, 1.0, "", board))

    def _go(self, pinch: np.ndarray, opening: float, carried: str, board: Position, minimum: float = 0.2,
            speed: float = 1.0) -> None:
        """Move the hand to ``pinch`` at the look's speed times ``speed`` (at least ``minimum`` seconds)."""
        last = self.keys[-1]
        dist = float(np.linalg.norm(pinch - last.pinch)) if last.pinch is not None else 0.0
        self.t += max(minimum, dist / (self.look.speed_mm_s * speed))
        self.keys.append(Key(self.t, pinch, opening, carried, board, last.approach))

    def _hold(self, seconds: float) -> None:
        last = self.keys[-1]
        self.t += seconds
        self.keys.append(replace(last, t=self.t))

    def turn(self, stages: list[Position], before: Position, mover: str) -> None:
        """Keys for one turn: enter, perform every stage's actions, leave."""
        angle = math.radians(self.rng.uniform(-25, 25))
        forward = np.array([math.sin(angle), math.cos(angle)]) * (1 if mover == "w" else -1)
        rest = np.array([*(-forward * 480 + np.array([-forward[1], forward[0]]) * self.rng.uniform(-120, 120)),
                         200.0])
        away = rest + np.array([*(-forward * 600), 150.0])
        board = dict(before)
        # The hand appears far outside the picture and comes in.
        self.keys.append(Key(self.t, away, 1.0, "", board, (float(forward[0]), float(forward[1]))))
        self._go(rest, 1.0, "", board, speed=1.8)
        for k, stage in enumerate(stages):
            if k:
                self._hold(self.look.pause_s)
            for action in actions_between(board, stage, self.pos):
                board = self._act(action, board, rest)
        self._go(rest, 1.0, "", board, speed=1.5)
        self._go(away, 1.0, "", board, speed=1.8)
        self.keys.append(Key(self.t, None, 1.0, "", board))

    def _top(self, board: Position) -> float:
        return max([len(s) for s in board.values()] + [0]) * self.h

    def _act(self, action: Action, board: Position, rest: np.ndarray) -> Position:
        h, n = self.h, len(action.pieces)
        over = self._top(board) + 55 + n * h
        if action.src is None:
            self._go(rest, 0.3, action.pieces, board)
        else:
            x, y = self.pos[action.src]
            height = len(board[action.src]) * h
            self._go(np.array([x, y, over]), 1.0, "", board)
            self._go(np.array([x, y, height - n * h / 2]), 1.0, "", board, 0.25)
            self._hold(0.08)
            board = {**board, action.src: board[action.src][:len(board[action.src]) - n]}
            self.keys.append(replace(self.keys[-1], opening=0.0, carried=action.pieces, board=board))
            self._hold(0.1)
            self._go(np.array([x, y, over]), 0.0, action.pieces, board, 0.25)
        if action.dst is None:
            self._go(rest, 0.0, action.pieces, board)
            return board
        x, y = self.pos[action.dst]
        height = len(board[action.dst]) * h
        self._go(np.array([x, y, over]), 0.0, action.pieces, board)
        self._go(np.array([x, y, height + n * h / 2]), 0.0, action.pieces, board, 0.25)
        board = {**board, action.dst: board[action.dst] + action.pieces}
        self._hold(0.08)
        self.keys.append(replace(self.keys[-1], opening=1.0, carried="", board=board))
        self._hold(0.1)
        self._go(np.array([x, y, over]), 1.0, "", board, 0.2)
        return board

    def at(self, t: float) -> tuple[np.ndarray | None, float, str, Position, tuple[float, float]]:
        """The hand (pinch point or None, opening, carried pile), the board and the approach at time t."""
        keys = self.keys
        i = max(0, np.searchsorted([k.t for k in keys], t, side="right") - 1)
        a = keys[i]
        b = keys[min(i + 1, len(keys) - 1)]
        if a.pinch is None or b.pinch is None or b.t <= a.t:
            return a.pinch, a.opening, a.carried, a.board, a.approach
        f = _ease((t - a.t) / (b.t - a.t))
        return (a.pinch + (b.pinch - a.pinch) * f, a.opening + (b.opening - a.opening) * f, a.carried, a.board,
                a.approach)


def _plane_xy(rays: Rays) -> tuple[np.ndarray, np.ndarray]:
    """Board-plane point (mm) every pixel sees (far away where the ray goes up)."""
    o, d = rays.origin, rays.d
    t = -o[2] / np.minimum(d[2], -1e-6)
    return (o[0] + t * d[0]).astype(np.float32), (o[1] + t * d[1]).astype(np.float32)


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    truth: dict[str, Any]


def game_plies(game: str, turns: list[str] | None, random_turns: int, seed: int) -> tuple[Board[Any], list[Any]]:
    """The start board and the turns to film: a record's turns, or random legal ones."""
    board = new_game(game)
    replay = board.copy()
    played = []
    if turns is not None:
        for i, text in enumerate(turns, 1):
            try:
                t = replay.parse_turn(text)
            except ValueError as e:
                raise ValueError(f"turn {i} {text!r}: {e}") from None
            replay.push(t)
            played.append(t)
        return board, played
    pick = random.Random(seed)
    for _ in range(random_turns):
        legal = replay.legal_turns()
        if not legal or replay.is_game_over():
            break
        t = pick.choice(legal)
        replay.push(t)
        played.append(t)
    return board, played


def render_video(game: str, turns: list[str] | None = None, random_turns: int = 10, seed: int = 0,
                 size: tuple[int, int] = (1280, 720), look: VideoLook = VideoLook(), board_look: str | None = None,
                 progress: Callable[[int, int], None] | None = None, behind_white: bool = False
                 ) -> tuple[dict[str, Any], Iterator[Frame]]:
    """A game filmed by a still camera: the header of the ground truth and a lazy frame iterator.

    The camera stands at any side of the board, or with ``behind_white`` within 25 degrees
    of straight behind White's edge, where players usually put it.

    The header holds the game, fps, camera, the turns (notation) and ``positions``; each
    frame's truth is ``{"index", "time", "hand", "position", "shift"}``."""
    rng = np.random.default_rng([seed, 7919])
    board, plies = game_plies(game, turns, random_turns, seed)
    azimuth = 270.0 + rng.uniform(-25.0, 25.0) if behind_white else None
    scene = random_scene(game, rng, points=board.visible(), size=size, top_down=False, board_look=board_look,
                         azimuth_deg=azimuth)
    # A camera filming a game is focused on the board and holds still during the exposure.
    photo = random_photo_look(rng)
    photo = replace(photo, motion_px=0.0, defocus_px=min(photo.defocus_px, 0.7))
    timeline = _Timeline(scene, look, rng)
    positions = [board.visible()]
    notations = []
    timeline.still(positions[0], 0, look.still_s * 1.5)
    for ply in plies:
        stages = turn_stages(board, ply)
        notations.append(board.turn_notation(ply))
        mover = board.turn
        before = board.visible()
        board.push(ply)
        timeline.turn(stages, before, mover)
        positions.append(board.visible())
        timeline.still(positions[-1], len(positions) - 1, look.still_s * rng.uniform(0.8, 1.3))
    duration = timeline.t
    count = int(duration * look.fps)
    header = {"game": game, "fps": look.fps, "frames": count, "camera": camera_truth(scene.pose),
              "pixels": {n: list(p) for n, p in scene.pose.point_pixels(scene.geometry).items()},
              "turns": notations, "positions": positions}
    return header, _frames(scene, photo, timeline, look, count, rng, progress)


def _frames(scene: Scene, photo: Any, timeline: _Timeline, look: VideoLook, count: int, rng: np.random.Generator,
            progress: Callable[[int, int], None] | None) -> Iterator[Frame]:
    px, py = _plane_xy(Rays.of(scene.pose))
    cache: dict[tuple[str, ...], np.ndarray] = {}
    flicker_hz, flicker_phase = rng.uniform(0.3, 2.0), rng.uniform(0, 2 * math.pi)
    shake = np.zeros(2)
    # Passing shadows: (start time, direction) for some still periods.
    shadows = [(s + rng.uniform(0, max(0.0, e - s - 1.0)), rng.uniform(0, 2 * math.pi))
               for s, e, _ in timeline.marks if rng.random() < look.shadow_chance]
    r = scene.spec.piece_diameter_mm / 2
    for i in range(count):
        t = i / look.fps
        pinch, opening, carried, board, approach = timeline.at(t)
        key = tuple(board[n] for n in scene.geometry.names)
        if key not in cache:
            cache.clear()
            cache[key] = render_linear(replace(scene, points=board))[0]
        linear, hand_px = cache[key].copy(), 0
        if pinch is not None:
            # Only the part of the picture the hand and what it holds can change is rendered again.
            n = len(carried)
            discs = tuple(Disc(float(pinch[0]), float(pinch[1]), float(pinch[2] - n * scene.spec.piece_height_mm / 2
                                                                          + k * scene.spec.piece_height_mm), c)
                          for k, c in enumerate(carried))
            moving = replace(scene, points=board, hand=hand_capsules(pinch, np.asarray(approach), opening, r),
                             extra_discs=discs)
            region = moving_region(moving)
            if region is not None:
                x0, y0, x1, y1 = region
                part, mask = render_linear(moving, region)
                linear[y0:y1, x0:x1] = part
                hand_px = int(mask.sum())
        gain = 1 + look.flicker * math.sin(2 * math.pi * flicker_hz * t + flicker_phase) + rng.normal(0, 0.003)
        linear *= np.float32(gain)
        for start, direction in shadows:
            if start <= t <= start + 1.6:
                f = (t - start) / 1.6
                cx, cy = (f * 2 - 1) * 700 * math.cos(direction), (f * 2 - 1) * 700 * math.sin(direction)
                d2 = ((px - cx) ** 2 + (py - cy) ** 2) / (260.0 ** 2)
                linear *= (1 - 0.35 * np.exp(-d2))[..., None]
        shake = 0.85 * shake + rng.normal(0, look.shake_px * 0.5, 2)
        shake = np.clip(shake, -2 * look.shake_px, 2 * look.shake_px)
        if look.shake_px:
            m = np.float32([[1, 0, shake[0]], [0, 1, shake[1]]])
            linear = cv2.warpAffine(linear, m, (linear.shape[1], linear.shape[0]), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        image = develop(linear, photo, rng)
        still = pinch is None
        index = next((k for s, e, k in timeline.marks if s <= t < e), None) if still else None
        if progress is not None:
            progress(i + 1, count)
        yield Frame(image, {"index": i, "time": round(t, 4), "hand": hand_px > 0, "position": index,
                            "shift": [round(float(shake[0]), 4), round(float(shake[1]), 4)]})


def write_video(header: dict[str, Any], frames: Iterator[Frame], mp4: Path | None, frames_dir: Path | None,
                truth_path: Path, jpeg_quality: int = 90) -> dict[str, Any]:
    """Write the frames as mp4 and/or a folder of JPEG frames, and the ground truth as JSON."""
    writer = None
    truths = []
    try:
        for frame in frames:
            if mp4 is not None and writer is None:
                h, w = frame.image.shape[:2]
                writer = cv2.VideoWriter(str(mp4), cv2.VideoWriter_fourcc(*"mp4v"), header["fps"], (w, h))
                if not writer.isOpened():
                    raise OSError(f"cannot write video {mp4}")
            if writer is not None:
                writer.write(frame.image)
            if frames_dir is not None:
                (frames_dir / f"{frame.truth['index']:06d}.jpg").write_bytes(jpeg(frame.image, jpeg_quality))
            truths.append(frame.truth)
    finally:
        if writer is not None:
            writer.release()
    truth = {**header, "frames": truths}
    truth_path.write_text(json.dumps(truth, separators=(",", ":")) + "\n")
    return truth
