"""How the physical board and the table look: colour schemes and their textures.

Textures are images of a flat surface in millimetres: pixel (row, col) of a texture
with ``ppm`` pixels per millimetre and half-width ``half_mm`` covers the board-frame
point x = -half_mm + (col + 0.5) / ppm, y = half_mm - (row + 0.5) / ppm (rows run
away from White at the top, so a texture looks like the board seen from above with
White at the bottom).  Colours are BGR floats in 0..1 (OpenCV order).

Textures depend only on the look and the size, never on an image's random state, so
they are painted once and cached.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from rules.geometry import DEFAULT_SPEC, FILES, HEX_ROW_LENGTHS, BoardKind, BoardSpec, board_outline_mm, hex_geometry, hex_lines

BGR = tuple[float, float, float]


def rgb(hex_colour: str) -> BGR:
    """'#rrggbb' -> BGR floats.

    >>> rgb("#ff8000")
    (0.0, 0.5019607843137255, 1.0)
    """
    v = int(hex_colour.lstrip("#"), 16)
    return ((v & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v >> 16) / 255.0)


@dataclass(frozen=True)
class BoardLook:
    """One printing of the double-sided board."""

    name: str
    surface: BGR
    """Hex side background."""
    ink: BGR
    """Hex side lines, points and border."""
    light_cell: BGR
    dark_cell: BGR
    frame: BGR
    """Square side frame around the cells."""
    frame_ink: BGR
    edge: BGR
    """The cut edge of the board slab."""
    grain: float = 0.0
    """Strength of wood grain (0 = printed card)."""
    gloss: float = 0.15
    """Specular strength of the board surface."""


BOARD_LOOKS: dict[str, BoardLook] = {look.name: look for look in (
    BoardLook("blue", rgb("#1d3f8f"), rgb("#dfe8f5"), rgb("#b9cce8"), rgb("#1c3a82"), rgb("#16306c"),
              rgb("#e2eaf6"), rgb("#10204a"), 0.0, 0.12),
    BoardLook("wood", rgb("#d9b27c"), rgb("#4a2c14"), rgb("#e4c28e"), rgb("#7a4a24"), rgb("#a87443"),
              rgb("#3a200c"), rgb("#8a5a2e"), 0.6, 0.08),
    BoardLook("green", rgb("#e9e3c8"), rgb("#1f4d2c"), rgb("#efe8cf"), rgb("#2f6b3f"), rgb("#24563a"),
              rgb("#efe8cf"), rgb("#1b3322"), 0.0, 0.1),
    BoardLook("print", rgb("#f1f0ea"), rgb("#222222"), rgb("#f3f2ec"), rgb("#3b3b3e"), rgb("#2a2a2c"),
              rgb("#f3f2ec"), rgb("#303030"), 0.0, 0.12),
    BoardLook("sky", rgb("#3f7fcf"), rgb("#f4f6fa"), rgb("#d6e6f7"), rgb("#2e68b5"), rgb("#24559a"),
              rgb("#f4f6fa"), rgb("#1a3d70"), 0.0, 0.1),
    BoardLook("slate", rgb("#26272a"), rgb("#d9d9d2"), rgb("#b4b4ae"), rgb("#1b1b1d"), rgb("#202023"),
              rgb("#d9d9d2"), rgb("#121213"), 0.0, 0.18),
)}

DRAWN_LOOKS: tuple[str, ...] = ("blue", "green", "print", "sky", "wood")
"""The looks a random scene draws from.  ``slate`` (a near-black print: black discs on it and on
its dark cells show little outline) is rendered only when asked for (``--look slate``), so that
every seed keeps drawing the scene it drew before it came: committed samples, tests and
benchmark sets are rendered from seeds."""


@dataclass(frozen=True)
class TableLook:
    name: str
    base: BGR
    accent: BGR
    pattern: str
    """'planks' (wood), 'cloth' (woven fabric), 'plain' (laminate), 'check' (tablecloth)."""


TABLE_LOOKS: dict[str, TableLook] = {look.name: look for look in (
    TableLook("oak", rgb("#b08a5c"), rgb("#8a6238"), "planks"),
    TableLook("walnut", rgb("#5a3a22"), rgb("#3c2414"), "planks"),
    TableLook("felt", rgb("#3d5a45"), rgb("#2e4535"), "cloth"),
    TableLook("linen", rgb("#d8d2c4"), rgb("#c2baa8"), "cloth"),
    TableLook("laminate", rgb("#c9c9c4"), rgb("#b5b5b0"), "plain"),
    TableLook("tablecloth", rgb("#e8e4dc"), rgb("#b0473f"), "check"),
)}


def fractal_noise(shape: tuple[int, int], rng: np.random.Generator, cell_px: float, octaves: int = 4,
                  stretch: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """Smooth random field of ``shape`` (zero mean, about unit deviation), features about ``cell_px`` wide.

    ``stretch`` (rows, cols) lengthens the features along an axis (wood grain)."""
    h, w = shape
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    size = cell_px
    for _ in range(octaves):
        gh = max(2, int(h / (size * stretch[0])) + 2)
        gw = max(2, int(w / (size * stretch[1])) + 2)
        grid = rng.standard_normal((gh, gw)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp * amp
        amp *= 0.5
        size /= 2.0
    return out / math.sqrt(total)


def _c(colour: BGR) -> tuple[int, int, int]:
    """A BGR float colour as 8-bit drawing colour (OpenCV draws text on 8-bit images only)."""
    return tuple(int(round(255 * v)) for v in colour)  # type: ignore[return-value]


def _tint(shape: tuple[int, int], colour: BGR) -> np.ndarray:
    img = np.empty((*shape, 3), np.float32)
    img[:] = colour
    return img


def _grain(shape: tuple[int, int], ppm: float, rng: np.random.Generator, strength: float,
           ring_mm: float = 6.0) -> np.ndarray:
    """Multiplicative wood grain running along the image rows (brightness factor around 1)."""
    h, w = shape
    warp = fractal_noise(shape, rng, 60 * ppm, 3, stretch=(1.0, 6.0)) * 6.0
    rows = np.arange(h, dtype=np.float32)[:, None] / ppm
    rings = np.sin((rows + warp * 4.0) * (2 * math.pi / ring_mm)) * 0.5 + 0.5
    fine = fractal_noise(shape, rng, 1.5 * ppm, 2, stretch=(1.0, 12.0))
    return 1.0 + strength * (0.12 * (rings - 0.5) + 0.04 * fine)


def _paper(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """Faint mottling of printed card."""
    return 1.0 + 0.025 * fractal_noise(shape, rng, 25 * ppm, 4)


def board_half_mm(spec: BoardSpec = DEFAULT_SPEC) -> float:
    """Half the side of the square board slab (both sides are printed on one slab)."""
    return 5 * spec.cell_mm + spec.square_frame_mm


def _to_px(xy_mm: np.ndarray, half: float, ppm: float, shift: int) -> np.ndarray:
    """Board mm -> fixed-point texture pixels for cv2 drawing with ``shift`` fraction bits."""
    xy = np.asarray(xy_mm, np.float64)
    col = (xy[..., 0] + half) * ppm - 0.5
    row = (half - xy[..., 1]) * ppm - 0.5
    return np.round(np.stack([col, row], -1) * (1 << shift)).astype(np.int32)


def _text(img: np.ndarray, text: str, xy_mm: tuple[float, float], height_mm: float, colour: BGR,
          half: float, ppm: float) -> None:
    """Centred text of a given cap height at a board position."""
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = height_mm * ppm / 22.0
    thick = max(1, int(round(height_mm * ppm / 9)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    c = _to_px(np.array(xy_mm), half, ppm, 0)
    cv2.putText(img, text, (int(c[0] - tw / 2), int(c[1] + th / 2)), font, scale, _c(colour), thick, cv2.LINE_AA)


def _paint_hex(img: np.ndarray, look: BoardLook, spec: BoardSpec, half: float, ppm: float) -> None:
    g = hex_geometry()
    pos = g.positions_mm(spec)
    sh = 4
    w = lambda mm: max(1, int(round(mm * ppm)))  # noqa: E731 - tiny local helper
    outline = np.array(board_outline_mm("hex", spec))
    # The playing area inside the border is printed a shade lighter than the margin.
    inner = outline * (3 * spec.hex_spacing_mm + spec.hex_border_mm * 0.55) / (3 * spec.hex_spacing_mm + spec.hex_border_mm)
    shade = tuple(min(1.0, c * 1.08 + 0.02) for c in look.surface)
    cv2.fillPoly(img, [_to_px(inner, half, ppm, sh)], _c(shade), cv2.LINE_AA, sh)
    cv2.polylines(img, [_to_px(outline, half, ppm, sh)], True, _c(look.ink), w(2.5), cv2.LINE_AA, sh)
    cv2.polylines(img, [_to_px(inner, half, ppm, sh)], True, _c(look.ink), w(1.0), cv2.LINE_AA, sh)
    for a, b in hex_lines():
        p = _to_px(np.array([pos[a], pos[b]]), half, ppm, sh)
        cv2.line(img, tuple(p[0]), tuple(p[1]), _c(look.ink), w(1.6), cv2.LINE_AA, sh)
    for name, xy in pos.items():
        c = tuple(_to_px(np.array(xy), half, ppm, sh))
        cv2.circle(img, c, int(4.0 * ppm * (1 << sh)), _c(look.ink), -1, cv2.LINE_AA, sh)
        cv2.circle(img, c, int(9.0 * ppm * (1 << sh)), _c(look.ink), w(0.8), cv2.LINE_AA, sh)
    # Row letters beside both ends of every row, as printed boards label them.
    s = spec.hex_spacing_mm
    for r, length in enumerate(HEX_ROW_LENGTHS):
        y = (r - 3) * s * math.sqrt(3) / 2
        x_end = (length - 1) * s / 2 + s * 0.55
        _text(img, FILES[r], (-x_end, y), 6.0, look.ink, half, ppm)
        _text(img, FILES[r], (x_end, y), 6.0, look.ink, half, ppm)


def _paint_square(img: np.ndarray, look: BoardLook, spec: BoardSpec, half: float, ppm: float) -> None:
    sh = 4
    c = spec.cell_mm
    img[:] = _c(look.frame)
    for row in range(10):
        for col in range(10):
            x0, y0 = -5 * c + col * c, -5 * c + row * c
            colour = look.dark_cell if (col + row) % 2 == 0 else look.light_cell
            quad = np.array([[x0, y0], [x0 + c, y0], [x0 + c, y0 + c], [x0, y0 + c]])
            cv2.fillPoly(img, [_to_px(quad, half, ppm, sh)], _c(colour), cv2.LINE_AA, sh)
    inner = np.array([[-5 * c, -5 * c], [5 * c, -5 * c], [5 * c, 5 * c], [-5 * c, 5 * c]])
    cv2.polylines(img, [_to_px(inner, half, ppm, sh)], True, _c(look.frame_ink), max(1, int(round(0.8 * ppm))),
                  cv2.LINE_AA, sh)
    m = 5 * c + spec.square_frame_mm / 2
    for i in range(10):
        t = -5 * c + (i + 0.5) * c
        _text(img, FILES[i], (t, -m), 7.0, look.frame_ink, half, ppm)
        _text(img, FILES[i], (t, m), 7.0, look.frame_ink, half, ppm)
        _text(img, str(i + 1), (-m, t), 7.0, look.frame_ink, half, ppm)
        _text(img, str(i + 1), (m, t), 7.0, look.frame_ink, half, ppm)


@lru_cache(maxsize=12)
def board_texture(kind: BoardKind, look_name: str, ppm: float, spec: BoardSpec = DEFAULT_SPEC) -> np.ndarray:
    """The printed side ``kind`` of the board in ``look``: float32 BGR, covering the whole slab."""
    look = BOARD_LOOKS[look_name]
    half = board_half_mm(spec)
    n = int(round(2 * half * ppm))
    rng = np.random.default_rng(_stable_seed(kind, look_name))
    canvas = np.empty((n, n, 3), np.uint8)
    canvas[:] = _c(look.surface)
    (_paint_hex if kind == "hex" else _paint_square)(canvas, look, spec, half, ppm)
    img = canvas.astype(np.float32) / 255.0
    factor = _grain((n, n), ppm, rng, look.grain) if look.grain else _paper((n, n), ppm, rng)
    img *= factor[..., None]
    # Slight wear: the print is never perfectly crisp.
    img = cv2.GaussianBlur(img, (0, 0), 0.25 * ppm)
    img.setflags(write=False)
    return img


@lru_cache(maxsize=6)
def table_texture(look_name: str, half_mm: float, ppm: float) -> np.ndarray:
    """The table top around the board (float32 BGR), ``2 * half_mm`` wide."""
    look = TABLE_LOOKS[look_name]
    n = int(round(2 * half_mm * ppm))
    rng = np.random.default_rng(_stable_seed("table", look_name))
    img = _tint((n, n), look.base)
    base, accent = np.array(look.base, np.float32), np.array(look.accent, np.float32)
    if look.pattern == "planks":
        plank_mm = 140.0
        rows = np.arange(n, dtype=np.float32)[:, None] / ppm
        plank = np.floor(rows / plank_mm)
        mix = 0.5 + 0.5 * np.sin(plank * 12.9898) * np.ones((1, n), np.float32)
        img = base + (accent - base) * (0.35 * mix)[..., None]
        img *= _grain((n, n), ppm, rng, 1.0, ring_mm=14.0)[..., None]
        seam = np.abs(rows - (plank + 0.5) * plank_mm) > plank_mm / 2 - 0.8
        img[np.broadcast_to(seam, (n, n))] *= 0.55
    elif look.pattern == "cloth":
        weave = np.sin(np.arange(n, dtype=np.float32) * (2 * math.pi * 0.9 / ppm))
        img *= (1.0 + 0.04 * (weave[:, None] * weave[None, :]))[..., None]
        img *= (1.0 + 0.02 * fractal_noise((n, n), rng, 12 * ppm, 3))[..., None]
    elif look.pattern == "check":
        idx = (np.arange(n) / ppm // 60).astype(int)
        band_r, band_c = (idx % 2 == 0)[:, None], (idx % 2 == 0)[None, :]
        amount = 0.45 * band_r + 0.45 * band_c
        img = base + (accent - base) * amount[..., None].astype(np.float32)
        img *= (1.0 + 0.015 * fractal_noise((n, n), rng, 30 * ppm, 3))[..., None]
    else:
        img *= (1.0 + 0.012 * fractal_noise((n, n), rng, 150 * ppm, 3))[..., None]
    img = np.clip(img, 0, 1).astype(np.float32)
    img.setflags(write=False)
    return img


def _stable_seed(*parts: str) -> int:
    """A seed that is the same in every process (``hash`` of str is salted per process)."""
    return zlib.crc32("/".join(parts).encode())
