"""Frame sources: a camera, a video file or a folder of frames, all read the same way.

A source yields :class:`Frame` objects (BGR ``uint8`` image, time in seconds since the
start).  A camera that stops delivering (unplugged, its network down) is waited for a while;
when it is not back, or a video ends, iteration stops and ``source.ended_by`` says why, so
the live session can keep the game and say so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".heic", ".heif")


def image_files(folder: Path) -> list[Path]:
    """The image files (:data:`IMAGE_SUFFIXES`) in ``folder``, in name order."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    t: float
    """Seconds since the source started (video/folder: from the frame rate)."""
    index: int


class SourceError(OSError):
    """A source that cannot be opened; the message says what to check."""


class FrameSource:
    """Base class: iterate to get frames; ``ended_by`` is set when iteration stops."""

    description: str = "source"
    ended_by: str | None = None
    note: str | None = None
    """Something the user should know about the source (a camera giving smaller frames than asked)."""
    on_note: Callable[[float, str], None] | None = None
    """Told, as it happens, what the players should know while the source yields no frames (a
    camera waited for), with the time (seconds, as the frames')."""

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file."""

    def _tell(self, t: float, message: str) -> None:
        if self.on_note is not None:
            self.on_note(t, message)


CAMERA_SIZE = (1280, 720)
"""The frame size (pixels) asked of a camera: the one vision is measured at.  Webcams start at
640x480 unless asked.  On 60 scenes each of Accasta and Abande rendered at both sizes (seed 7),
``benchmarks/vision.py`` read 95.1% and 96.2% of the stacks right at 640x480 against 98.1%
and 98.5% at 1280x720, and with the board found in the picture 86% and 81% against 98% and 99%."""


STREAM_SCHEMES = ("rtsp", "rtsps", "rtmp", "http", "https", "udp", "tcp", "srt")
"""The network protocols of cameras that stream their picture: IP cameras (``rtsp://``) and
phones running a webcam app (``http://192.168.1.20:8080/video``)."""
STREAM_TIMEOUT_MS = 5000
"""How long opening a stream, or waiting for its next frame, may take (milliseconds): a
network gone quiet fails a read after this, rather than hanging the referee."""
CAMERA_WAIT_S = 60.0
"""How long a camera or stream that stopped delivering frames is waited for (seconds) before
the session ends: a USB cable pulled and put back, a phone's Wi-Fi dropping for a moment."""
RETRY_S = 1.0
"""How often a camera that stopped delivering frames is opened again while it is waited for (seconds)."""
FROZEN_S = 10.0
"""A camera whose picture has not changed by a single level for this long (seconds) has frozen:
a USB camera short of bandwidth, or a driver or stream that hangs, can go on giving its last
frame, and the referee would see a still board while the players go on.  A working camera's
sensor noise changes every frame.  The players are told, and the camera is opened again."""


def is_stream(text: str) -> bool:
    """Whether ``text`` is the address of a camera's stream (one of :data:`STREAM_SCHEMES`).

    >>> is_stream("rtsp://192.168.1.20:554/live"), is_stream("http://phone:8080/video"), is_stream("game.mp4")
    (True, True, False)
    """
    scheme, sep, rest = text.partition("://")
    return bool(sep and rest) and scheme.lower() in STREAM_SCHEMES


class CaptureSource(FrameSource):
    """A camera, a camera's stream or a video file, through OpenCV's VideoCapture.

    ``target``: a camera's index (int), a camera device's path or a stream's address (str),
    or a video file (Path).  A camera is asked for frames of ``size`` (width, height); ``size``
    is what it really delivers, which may be less (``note`` then says so).  A camera or stream
    that stops delivering frames is opened again every :data:`RETRY_S` for up to ``wait_s``
    seconds, and :attr:`on_note` is told that it is waited for and when it is back; one whose
    picture stays the same to the level for ``frozen_s`` (:data:`FROZEN_S`) is opened again
    once, and :attr:`on_note` told that and when its picture is live again."""

    def __init__(self, target: int | str | Path, fps: float | None = None, max_failures: int = 30,
                 size: tuple[int, int] | None = CAMERA_SIZE, wait_s: float = CAMERA_WAIT_S,
                 frozen_s: float = FROZEN_S) -> None:
        self.is_camera = not isinstance(target, Path)
        self.is_stream = isinstance(target, str) and is_stream(target)
        if isinstance(target, Path) and not target.is_file():
            raise SourceError(f"no such video file: {target}")
        if isinstance(target, str) and not self.is_stream and not Path(target).exists():
            raise SourceError(f"no such camera device: {target}")
        self._target = target
        self._size_asked = size if self.is_camera and not self.is_stream else None
        self.wait_s = wait_s
        self.frozen_s = frozen_s
        self.description = (f"stream {target}" if self.is_stream else f"camera {target}" if self.is_camera
                            else f"video {target}")
        self._cap = self._open()
        if not self._cap.isOpened():
            raise SourceError(f"cannot open {self.description}" + (
                " (is the camera on and its address right?)" if self.is_stream else
                " (is it plugged in and not used by another program?)" if self.is_camera else
                " (not a video OpenCV can decode)"))
        self.size = (int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        if self._size_asked is not None and self.size[0] * self.size[1] < size[0] * size[1]:
            self.note = (f"{self.description} gives {self.size[0]}x{self.size[1]} frames, not the "
                         f"{size[0]}x{size[1]} asked: stack heights are read less surely at this size")
        reported = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps or (reported if reported and reported > 0 else 30.0)
        self._max_failures = max_failures
        self.frame_count = 0 if self.is_camera else max(0, int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT)))
        """The frames the video file says it holds (0: it does not say)."""
        self._first: np.ndarray | None = None
        self._start = time.monotonic()
        self._probe: np.ndarray | None = None  # a sample of the camera's last picture,
        self._changed = 0.0  # when it last changed,
        self._frozen_told = False  # and whether the players were told it seems frozen
        if not self.is_camera:
            # A file OpenCV opens may still hold no frame it can decode (e.g. a damaged picture).
            ok, self._first = self._cap.read()
            if not ok or self._first is None:
                self._cap.release()
                raise SourceError(f"cannot read a frame from {self.description} (not a video OpenCV can decode)")

    def _open(self) -> cv2.VideoCapture:
        if self.is_stream:
            return cv2.VideoCapture(self._target, cv2.CAP_FFMPEG, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
                                                                   cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS])
        cap = cv2.VideoCapture(self._target if self.is_camera else str(self._target))
        if self._size_asked is not None and cap.isOpened():
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self._size_asked[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self._size_asked[1])
        return cap

    def _come_back(self) -> bool:
        """Open the camera again until it gives a frame (kept for the next read) or
        :attr:`wait_s` has passed; whether it came back."""
        if self.wait_s <= 0:
            return False
        mend = "check the camera and its network" if self.is_stream else "plug it back in"
        self._tell(time.monotonic() - self._start, f"{self.description} stopped delivering frames: waiting up to "
                                                   f"{self.wait_s:g} s for it ({mend}); the game is kept")
        deadline = time.monotonic() + self.wait_s
        while time.monotonic() < deadline:
            self._cap.release()
            time.sleep(min(RETRY_S, max(0.0, deadline - time.monotonic())))
            self._cap = self._open()
            ok, image = self._cap.read() if self._cap.isOpened() else (False, None)
            if ok and image is not None:
                self._first = image
                self._tell(time.monotonic() - self._start, f"{self.description} is back: the game goes on")
                return True
        return False

    def __iter__(self) -> Iterator[Frame]:
        index, failures, self._start = 0, 0, time.monotonic()
        damaged = 0
        while True:
            if self._first is not None:
                ok, image, self._first = True, self._first, None
            else:
                ok, image = self._cap.read()
            if not ok or image is None:
                if not self.is_camera:
                    # A damaged stretch of a file fails to decode and the frames after it decode
                    # again: go on while the file says frames are left, counting the lost ones
                    # as frames so that times (and a video's ground truth) stay in step.
                    if index < self.frame_count:
                        index += 1
                        damaged += 1
                        continue
                    self.ended_by = "end of video" + (f", {damaged} damaged frames skipped" if damaged else "")
                    return
                failures += 1  # a camera may drop a frame; many in a row means it is gone
                if failures >= self._max_failures:
                    if self._come_back():
                        failures = 0
                        continue
                    self.ended_by = (f"{self.description} stopped delivering frames and was not back within "
                                     f"{self.wait_s:g} s")
                    return
                time.sleep(0.01)
                continue
            failures = 0
            t = time.monotonic() - self._start if self.is_camera else index / self.fps
            if self.is_camera:
                self._watch_frozen(image, t)
            yield Frame(image, t, index)
            index += 1

    def _watch_frozen(self, image: np.ndarray, t: float) -> None:
        """Open the camera again, and say so, once its picture has stayed the same for
        :attr:`frozen_s`; say when it changes again after that."""
        probe = image[::8, ::8]  # a frozen picture is the same everywhere; noise changes it all over
        if self._probe is None or probe.shape != self._probe.shape or not np.array_equal(probe, self._probe):
            if self._frozen_told:
                self._tell(t, f"{self.description}'s picture is live again: the game goes on")
            self._probe, self._changed, self._frozen_told = probe.copy(), t, False
        elif not self._frozen_told and t - self._changed >= self.frozen_s:
            self._frozen_told = True
            self._tell(t, f"{self.description}'s picture has not changed for {self.frozen_s:g} s: it seems frozen, "
                          "and is opened again (if it stays so, unplug the camera and plug it back in)")
            self._cap.release()
            self._cap = self._open()

    def close(self) -> None:
        self._cap.release()


PHOTO_HOLD_S = 4.0
"""How long each photo of a folder of photos is shown for (seconds): time to settle, read the
board and read a doubtful one again (:data:`tacticblue.session.REREADS`)."""
PHOTO_FPS = 4.0


class FolderSource(FrameSource):
    """Image files in a folder, in name order, at a nominal frame rate: the frames of a video,
    or with ``hold_s`` photos of the board at rest, one per move (a phone on a stand, a
    time-lapse camera), each shown for ``hold_s`` seconds as a still camera would show it."""

    def __init__(self, folder: Path, fps: float = 30.0, hold_s: float | None = None) -> None:
        if not folder.is_dir():
            raise SourceError(f"no such folder: {folder}")
        self.files = image_files(folder)
        if not self.files:
            raise SourceError(f"no image files in {folder}")
        self.description = f"{'photos' if hold_s else 'frames'} in {folder}"
        self.fps = fps
        self.repeat = 1 if hold_s is None else max(1, round(hold_s * fps))

    def __iter__(self) -> Iterator[Frame]:
        from calibration.intrinsics import read_image  # decodes without libpng's own stderr lines

        unreadable: list[str] = []
        for number, path in enumerate(self.files):
            try:
                image = read_image(path)
            except ValueError:
                # A frame file cut short (a capture stopped while writing it) is skipped, not
                # taken for the end: the frames after it are read, its index and time kept.
                unreadable.append(path.name)
                continue
            for index in range(number * self.repeat, (number + 1) * self.repeat):
                yield Frame(image, index / self.fps, index)
        self.ended_by = "end of photos" if self.repeat > 1 else "end of frames"
        if unreadable:
            n = len(unreadable)
            names = ", ".join(unreadable[:3]) + (f" and {n - 3} more" if n > 3 else "")
            self.ended_by += f", {n} unreadable frame{'s' if n > 1 else ''} skipped ({names})"


def is_camera(spec: str) -> bool:
    """Whether ``spec`` names a camera rather than a recording: its index (``0``), its device
    (``/dev/video2``) or its stream's address (:func:`is_stream`).

    >>> [is_camera(s) for s in ("0", "/dev/video2", "rtsp://cam/live", "game.mp4", "frames/")]
    [True, True, True, False, False]
    """
    return spec.isdigit() or spec.startswith("/dev/") or is_stream(spec)


def open_source(spec: str | int | Path, camera_size: tuple[int, int] | None = CAMERA_SIZE,
                photos: bool = False, wait_s: float = CAMERA_WAIT_S) -> FrameSource:
    """A camera (:func:`is_camera`: asked for frames of ``camera_size``, None: the camera's own
    default; waited for ``wait_s`` when it stops delivering frames), a video file or a folder
    of frames (with ``photos``: of photos, one per move)."""
    path = Path(str(spec))
    if photos:
        if not path.is_dir():
            raise SourceError(f"photos are read from a folder of image files; {spec} is not a folder")
        return FolderSource(path, PHOTO_FPS, PHOTO_HOLD_S)
    if isinstance(spec, int) or is_camera(str(spec)):
        return CaptureSource(int(spec) if str(spec).isdigit() else str(spec), size=camera_size, wait_s=wait_s)
    if path.is_dir():
        return FolderSource(path)
    return CaptureSource(path)
