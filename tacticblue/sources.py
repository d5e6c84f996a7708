"""Frame sources: a camera, a video file or a folder of frames, all read the same way.

A source yields :class:`Frame` objects (BGR ``uint8`` image, time in seconds since the
start).  When a camera stops delivering (unplugged) or a video ends, iteration stops and
``source.ended_by`` says why, so the live session can keep the game and say so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


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

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file."""


CAMERA_SIZE = (1280, 720)
"""The frame size (pixels) asked of a camera: the one vision is measured at.  Webcams start at
640x480 unless asked.  On 60 scenes each of Accasta and Abande rendered at both sizes (seed 7),
``benchmarks/vision.py`` read 95.1% and 96.2% of the stacks right at 640x480 against 98.1%
and 98.5% at 1280x720, and with the board found in the picture 86% and 81% against 98% and 99%."""


class CaptureSource(FrameSource):
    """A camera (by index) or a video file, through OpenCV's VideoCapture.

    A camera is asked for frames of ``size`` (width, height); ``size`` is what it really
    delivers, which may be less (``note`` then says so)."""

    def __init__(self, target: int | Path, fps: float | None = None, max_failures: int = 30,
                 size: tuple[int, int] | None = CAMERA_SIZE) -> None:
        self.is_camera = isinstance(target, int)
        if not self.is_camera and not Path(target).is_file():
            raise SourceError(f"no such video file: {target}")
        self.description = f"camera {target}" if self.is_camera else f"video {target}"
        self._cap = cv2.VideoCapture(target if self.is_camera else str(target))
        if not self._cap.isOpened():
            raise SourceError(f"cannot open {self.description}" +
                              (" (is it plugged in and not used by another program?)" if self.is_camera else
                               " (not a video OpenCV can decode)"))
        if self.is_camera and size is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.size = (int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        if self.is_camera and size is not None and self.size[0] * self.size[1] < size[0] * size[1]:
            self.note = (f"{self.description} gives {self.size[0]}x{self.size[1]} frames, not the "
                         f"{size[0]}x{size[1]} asked: stack heights are read less surely at this size")
        reported = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps or (reported if reported and reported > 0 else 30.0)
        self._max_failures = max_failures
        self.frame_count = 0 if self.is_camera else max(0, int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT)))
        """The frames the video file says it holds (0: it does not say)."""
        self._first: np.ndarray | None = None
        if not self.is_camera:
            # A file OpenCV opens may still hold no frame it can decode (e.g. a damaged picture).
            ok, self._first = self._cap.read()
            if not ok or self._first is None:
                self._cap.release()
                raise SourceError(f"cannot read a frame from {self.description} (not a video OpenCV can decode)")

    def __iter__(self) -> Iterator[Frame]:
        index, failures, start = 0, 0, time.monotonic()
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
                    self.ended_by = "camera stopped delivering frames (unplugged?)"
                    return
                time.sleep(0.01)
                continue
            failures = 0
            t = time.monotonic() - start if self.is_camera else index / self.fps
            yield Frame(image, t, index)
            index += 1

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
        self.files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
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


def open_source(spec: str | int | Path, camera_size: tuple[int, int] | None = CAMERA_SIZE,
                photos: bool = False) -> FrameSource:
    """A camera index (``0``, asked for frames of ``camera_size``; None: the camera's own
    default), a video file or a folder of frames (with ``photos``: of photos, one per move)."""
    path = Path(str(spec))
    if photos:
        if not path.is_dir():
            raise SourceError(f"photos are read from a folder of image files; {spec} is not a folder")
        return FolderSource(path, PHOTO_FPS, PHOTO_HOLD_S)
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return CaptureSource(int(spec), size=camera_size)
    if path.is_dir():
        return FolderSource(path)
    return CaptureSource(path)
