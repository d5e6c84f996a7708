"""Camera intrinsics from photos or films of a calibration pattern (OpenCV's ``calibrateCamera``).

Patterns are written as on the command line:

* ``chessboard:9x6``: a chessboard with 9 x 6 *inner* corners;
* ``charuco:7x5`` or ``charuco:7x5:DICT_5X5_100``: a ChArUco board of 7 x 5 *squares*
  (markers from the named ArUco dictionary, ``DICT_4X4_50`` by default).

Square sizes are in millimetres, so the translations of the views are too; the camera
matrix does not depend on them.  Pixels are square (``fx = fy``, OpenCV's
``CALIB_FIX_ASPECT_RATIO``) as on every phone and webcam we know of: it makes the
estimate much steadier with few views.

>>> parse_pattern("chessboard:9x6")
Pattern(kind='chessboard', cols=9, rows=6, dictionary='DICT_4X4_50')
"""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import cv2
import numpy as np

from calibration.camera import CameraModel


@dataclass(frozen=True)
class Pattern:
    """A calibration target: chessboard (inner corners) or ChArUco (squares)."""

    kind: str
    cols: int
    rows: int
    dictionary: str = "DICT_4X4_50"


def parse_pattern(text: str) -> Pattern:
    """``chessboard:COLSxROWS`` or ``charuco:COLSxROWS[:DICT]``; ``ValueError`` otherwise."""
    m = re.fullmatch(r"(chessboard|charuco):(\d+)x(\d+)(?::(DICT_\w+))?", text.strip(), re.IGNORECASE)
    if not m:
        raise ValueError(f"pattern must look like chessboard:9x6 or charuco:7x5[:DICT_4X4_50], not {text!r}")
    kind, cols, rows, dictionary = m.group(1).lower(), int(m.group(2)), int(m.group(3)), m.group(4)
    if cols < 2 or rows < 2:
        raise ValueError("a pattern needs at least 2 x 2 corners or squares")
    if kind == "chessboard" and dictionary:
        raise ValueError("only ChArUco patterns take a marker dictionary")
    dictionary = (dictionary or "DICT_4X4_50").upper()
    if kind == "charuco" and not hasattr(cv2.aruco, dictionary):
        raise ValueError(f"unknown ArUco dictionary {dictionary}")
    return Pattern(kind, cols, rows, dictionary)


@dataclass(frozen=True)
class IntrinsicsResult:
    """The fitted camera, its RMS reprojection error (px), which images were used, and advice
    where the views pin the camera down poorly (:func:`fit_advice`)."""

    camera: CameraModel
    rms: float
    used: tuple[str, ...]
    rejected: tuple[str, ...]
    advice: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**self.camera.to_dict(), "rms": self.rms, "images_used": len(self.used),
                "used": list(self.used), "rejected": list(self.rejected), "advice": list(self.advice)}


@contextmanager
def _native_stderr_quiet() -> Iterator[None]:
    """Send what native code writes to stderr (file descriptor 2) to /dev/null meanwhile:
    libpng prints "libpng error: ..." of a PNG cut short itself, which OpenCV's log level does
    not quiet, and the error is said in one line of the caller's own."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no stderr to quiet
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def read_image(path: str | Path, grey: bool = False) -> np.ndarray:
    """An image file as a BGR (or grey) uint8 array; ``ValueError`` naming the file otherwise.

    Decoded from the bytes so that OpenCV prints no warnings of its own."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such image") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot read ({e.strerror})") from None
    with _native_stderr_quiet():
        image = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR) if data.size else None
    if image is None and is_heif(data[:32].tobytes()):
        image = _read_heif(data.tobytes(), path, grey)
    if image is None:
        raise ValueError(f"{path}: not a readable image")
    return image


HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")
"""The ISO base media file brands of HEIF pictures: the HEIC photos phones take (iPhones
by default), which OpenCV does not decode."""


def is_heif(head: bytes) -> bool:
    """Whether a file beginning with ``head`` (its first 12 bytes or more) is a HEIF picture.

    >>> is_heif(b"\\x00\\x00\\x00\\x18ftypheic\\x00\\x00\\x00\\x00"), is_heif(b"\\xff\\xd8\\xff\\xe0")
    (True, False)
    """
    return len(head) >= 12 and head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS


def _read_heif(data: bytes, path: str | Path, grey: bool) -> np.ndarray:
    """A HEIF picture's pixels (BGR or grey), as its file says to show them (turned as the
    phone was held), by libheif through pillow-heif."""
    import pillow_heif

    try:
        heif = pillow_heif.open_heif(data, convert_hdr_to_8bit=True)
        rgb = np.asarray(heif.to_pillow().convert("RGB"))
    except (ValueError, RuntimeError, OSError) as e:
        raise ValueError(f"{path}: not a readable HEIF picture ({e})") from None
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY if grey else cv2.COLOR_RGB2BGR)


def charuco_board(pattern: Pattern, square_mm: float, marker_mm: float) -> "cv2.aruco.CharucoBoard":
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, pattern.dictionary))
    return cv2.aruco.CharucoBoard((pattern.cols, pattern.rows), square_mm, marker_mm, dictionary)


def detect_pattern(gray: np.ndarray, pattern: Pattern, square_mm: float,
                   marker_mm: float | None = None, quick: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """The pattern's corners in one grey image: (object points N x 3 mm, image points N x 2 px).

    ``None`` when the pattern is not found (or, for ChArUco, fewer than 6 corners are).
    ``quick``: a chessboard is first looked for roughly (OpenCV's ``CALIB_CB_FAST_CHECK``), so
    that the frames of a film without it cost little."""
    if pattern.kind == "chessboard":
        size = (pattern.cols, pattern.rows)
        found, corners = cv2.findChessboardCorners(
            gray, size, flags=cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
            | (cv2.CALIB_CB_FAST_CHECK if quick else 0))
        if not found:
            return None
        corners = cv2.cornerSubPix(gray, corners, (11, 11), (-1, -1),
                                   (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01))
        grid = np.mgrid[0:pattern.cols, 0:pattern.rows].T.reshape(-1, 2) * square_mm
        obj = np.hstack([grid, np.zeros((len(grid), 1))])
        return obj.astype(np.float32), corners.reshape(-1, 2).astype(np.float32)
    board = charuco_board(pattern, square_mm, marker_mm or 0.75 * square_mm)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if ids is None or len(ids) < 6:
        return None
    obj = board.getChessboardCorners()[ids.ravel()]
    return obj.astype(np.float32), corners.reshape(-1, 2).astype(np.float32)


@dataclass(frozen=True)
class PatternView:
    """One view of the pattern: where it was seen (a file, or a video's name and time), its
    corners on the pattern (N x 3, mm) and in the picture (N x 2, pixels)."""

    name: str
    object_mm: np.ndarray
    image_px: np.ndarray


def calibrate_camera(images: Sequence[str | Path], pattern: Pattern, square_mm: float = 25.0,
                     marker_mm: float | None = None) -> IntrinsicsResult:
    """Fit K and distortion (k1, k2, p1, p2, k3) to every image where the pattern is found.

    All images must have the same size.  ``ValueError`` when fewer than 3 views are usable
    (too few to separate focal length from distortion) or an image cannot be read."""
    views = PatternViews(pattern, square_mm, marker_mm)
    for path in images:
        views.photo(read_image(path, grey=True), str(path))
    return views.fit()


MIN_VIEWS = 3
"""The fewest views of the pattern that separate the focal length from the lens's distortion."""


def same_size(size: tuple[int, int] | None, image: np.ndarray, name: str) -> tuple[int, int]:
    """``image``'s size (width, height), which must be ``size`` unless that is None (the
    first picture); ``ValueError`` naming ``name`` otherwise: one camera gives one size."""
    this = (image.shape[1], image.shape[0])
    if size is not None and this != size:
        raise ValueError(f"{name}: image size {this[0]}x{this[1]} differs from {size[0]}x{size[1]}")
    return this


COVERAGE_CELLS = 4
"""The picture is cut into this many cells across and down to see where the pattern was seen (:func:`coverage`)."""
LEAST_COVERAGE = 0.5
"""Views of the pattern that reach fewer of the picture's cells than this share pin the lens's
distortion down poorly where the board will be seen, which is most of the picture."""
MOST_RMS_PX = 1.0
"""An RMS reprojection error above this (pixels) means some views were misread (blurred, the
pattern bent or partly hidden): OpenCV's own photos fit at 0.39 px, a film of them at 0.41."""


def coverage(corners_px: Sequence[np.ndarray], size: tuple[int, int], cells: int = COVERAGE_CELLS) -> float:
    """The share of a picture of ``size`` (width, height), cut into ``cells`` x ``cells``, in
    which some view's corners (each N x 2 pixels) lie.

    >>> coverage([np.array([[10.0, 10.0], [630.0, 470.0]])], (640, 480))
    0.125
    """
    seen = np.zeros((cells, cells), bool)
    for px in corners_px:
        cell = np.clip((np.asarray(px, float).reshape(-1, 2) / size * cells).astype(int), 0, cells - 1)
        seen[cell[:, 1], cell[:, 0]] = True
    return float(seen.mean())


def fit_advice(rms: float, covered: float) -> tuple[str, ...]:
    """What to do where a fit of this ``rms`` (pixels), whose views reach ``covered`` of the
    picture (:func:`coverage`), pins the camera down poorly.

    >>> fit_advice(0.4, 0.9)
    ()
    >>> [text.split(":")[0] for text in fit_advice(1.8, 0.3)]
    ['the views fit the camera poorly (RMS 1.80 px)', 'the pattern was seen in 30% of the picture']
    """
    advice = []
    if rms > MOST_RMS_PX:
        advice.append(f"the views fit the camera poorly (RMS {rms:.2f} px): some are blurred, or the pattern is "
                      "bent or partly hidden; hold it flat and still, and calibrate again")
    if covered < LEAST_COVERAGE:
        advice.append(f"the pattern was seen in {covered:.0%} of the picture: the lens's distortion near its edges "
                      "is guessed; hold it near the edges and corners too, and calibrate again")
    return tuple(advice)


def view_signature(image_px: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Where and how the pattern lies in a picture of ``size`` (width, height), whatever order
    its corners ``image_px`` (N x 2) were found in: their centre (shares of the picture's longer
    side), the log of their spread, and their shape (the spread's anisotropy and its direction,
    which turning or tilting the pattern changes).

    >>> grid = np.mgrid[0:9, 0:6].T.reshape(-1, 2) * 20.0 + 100.0
    >>> a, b = view_signature(grid, (640, 480)), view_signature(grid[::-1], (640, 480))
    >>> bool(np.allclose(a, b)), bool(np.allclose(view_signature(grid + 64, (640, 480))[:2], a[:2] + 0.1))
    (True, True)
    """
    pts = np.asarray(image_px, float).reshape(-1, 2) / max(size)
    centre = pts.mean(axis=0)
    cov = np.cov((pts - centre).T)
    trace = float(np.trace(cov))
    shape = np.array([cov[0, 0] - cov[1, 1], 2 * cov[0, 1]]) / trace
    return np.array([*centre, 0.5 * np.log(trace), *shape])


MIN_VIEW_CHANGE = 0.08
"""How far (:func:`view_signature` units) a view of the pattern in a film must differ from
every view kept to be kept too: a pattern held still, or moved a little, adds nothing but
the fit's time, while views spread over the picture, near and far and tilted, are what pin
the lens down.  0.08 is the pattern moved by 8% of the picture, brought 8% nearer, or turned
by about 10 degrees."""


def view_distance(a: np.ndarray, b: np.ndarray) -> float:
    """How unlike two :func:`view_signature` are: the sum of their centres', spreads' and shapes' differences."""
    return float(np.hypot(*(a[:2] - b[:2])) + abs(a[2] - b[2]) + np.hypot(*(a[3:] - b[3:])))


SHARPER = 1.2
"""How much sharper (:func:`pattern_sharpness`) a film's view of the pattern must be than a kept
view it is like to take its place."""


def pattern_sharpness(gray: np.ndarray, corners_px: np.ndarray) -> float:
    """How sharp the pattern looks around its ``corners_px`` (N x 2) in a grey picture: the
    variance of the picture's Laplacian there over that of its levels, which blurring (a hand
    moving the pattern, a lens out of focus) lowers and lighting does not change.

    >>> square = np.kron((np.indices((6, 8)).sum(axis=0) % 2) * 200 + 30, np.ones((20, 20))).astype(np.uint8)
    >>> corners = np.array([[20.0, 20.0], [140.0, 100.0]])
    >>> sharp, blurred = (pattern_sharpness(g, corners) for g in (square, cv2.GaussianBlur(square, (0, 0), 2)))
    >>> bool(sharp > 2 * blurred > 0)
    True
    """
    x0, y0 = np.floor(corners_px.reshape(-1, 2).min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners_px.reshape(-1, 2).max(axis=0)).astype(int) + 1
    region = gray[max(y0, 0):y1, max(x0, 0):x1].astype(np.float32)
    return float(cv2.Laplacian(region, cv2.CV_32F).var() / (region.var() + 1.0))


class PatternViews:
    """The views of the pattern gathered from photos, each used where the pattern shows, and
    from the frames of films or a live camera, of which only views unlike those kept before
    (:data:`MIN_VIEW_CHANGE`) are kept, up to ``most``; and the camera that fits them
    (:meth:`fit`).  One camera takes them all, at one size."""

    def __init__(self, pattern: Pattern, square_mm: float, marker_mm: float | None = None, most: int = 20) -> None:
        self.pattern, self.square_mm, self.marker_mm, self.most = pattern, square_mm, marker_mm, most
        self.views: list[PatternView] = []
        self.rejected: list[str] = []
        """The photos without the pattern."""
        self.size: tuple[int, int] | None = None
        self.pictures = 0
        """Photos and frames looked at so far."""
        self.frames = 0
        """Of those, the frames."""
        self.found = 0
        """The photos and frames showing the pattern."""
        self._signatures: list[np.ndarray] = []  # of the views kept from frames,
        self._sharpness: list[float] = []  # how sharp they are (pattern_sharpness),
        self._frame_views: list[int] = []  # and where they are in views

    @property
    def full(self) -> bool:
        """Whether ``most`` views have been kept from frames."""
        return len(self._signatures) >= self.most

    def photo(self, image: np.ndarray, name: str) -> bool:
        """Use the pattern's view in ``image`` (BGR or grey; named ``name``), if it shows it; whether it did."""
        found = detect_pattern(self._grey(image, name), self.pattern, self.square_mm, self.marker_mm)
        if found is None:
            self.rejected.append(name)
            return False
        self.found += 1
        self.views.append(PatternView(name, *found))
        return True

    def frame(self, image: np.ndarray, name: str) -> bool:
        """Keep the pattern's view in a film's frame ``image``, if it shows it, unlike the
        views kept from frames before, and fewer than ``most`` have been; or in place of such a
        view it is like, where it is sharper (:data:`SHARPER`): a hand moving the pattern blurs
        the first frames of each place, where OpenCV still finds its corners, some pixels off.
        Whether it was kept."""
        if self.full:
            return False
        self.frames += 1
        gray = self._grey(image, name)
        found = detect_pattern(gray, self.pattern, self.square_mm, self.marker_mm, quick=True)
        if found is None:
            return False
        self.found += 1
        signature, sharpness = view_signature(found[1], self.size), pattern_sharpness(gray, found[1])
        like = [k for k, s in enumerate(self._signatures) if view_distance(signature, s) < MIN_VIEW_CHANGE]
        if not like:
            self._signatures.append(signature)
            self._sharpness.append(sharpness)
            self._frame_views.append(len(self.views))
            self.views.append(PatternView(name, *found))
            return True
        k = min(like, key=lambda k: view_distance(signature, self._signatures[k]))
        if sharpness < SHARPER * self._sharpness[k]:
            return False
        self._signatures[k], self._sharpness[k] = signature, sharpness
        self.views[self._frame_views[k]] = PatternView(name, *found)
        return True

    def fit(self) -> IntrinsicsResult:
        """K and distortion (k1, k2, p1, p2, k3) fitted to the views, square pixels assumed;
        ``ValueError`` with fewer than :data:`MIN_VIEWS`."""
        if self.size is None:
            raise ValueError("no pictures of the pattern given")
        if len(self.views) < MIN_VIEWS:
            kept = "" if len(self.views) == self.found else f", {len(self.views)} of them views unlike each other"
            raise ValueError(f"the {self.pattern.kind} pattern was found in {self.found} of {self.pictures} "
                             f"{'pictures' if self.frames else 'images'}{kept}: need at least {MIN_VIEWS} views"
                             + (" (hold it at other places, distances and tilts)" if self.frames else ""))
        w, h = self.size
        K0 = np.array([[max(w, h), 0, (w - 1) / 2], [0, max(w, h), (h - 1) / 2], [0, 0, 1]], float)
        rms, K, dist, _, _ = cv2.calibrateCamera(
            [v.object_mm for v in self.views], [v.image_px for v in self.views], self.size, K0, None,
            flags=cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_USE_INTRINSIC_GUESS)
        return IntrinsicsResult(CameraModel(K, dist.ravel(), self.size), float(rms),
                                tuple(v.name for v in self.views), tuple(self.rejected),
                                fit_advice(float(rms), coverage([v.image_px for v in self.views], self.size)))

    def _grey(self, image: np.ndarray, name: str) -> np.ndarray:
        """``image`` in grey, counted as a picture looked at, of the size of those before."""
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        self.size = same_size(self.size, gray, name)
        self.pictures += 1
        return gray


def save_camera(result: IntrinsicsResult, path: str | Path) -> None:
    """Write the fitted camera as JSON (the ``--json`` output); :func:`load_camera` reads it."""
    Path(path).write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")


def load_camera(path: str | Path) -> CameraModel:
    """A camera file written by ``tacticblue calibrate camera -o``; ``ValueError`` with the reason."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such camera file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a readable camera file ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a camera file (expected a JSON object with K, dist, image_size)")
    try:
        return CameraModel.from_dict(data)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
