"""What a real camera does to the light: exposure, colour cast, vignetting, blur, noise, JPEG.

Input is a linear-light float image (BGR); output an 8-bit BGR image as a camera
file would hold it.  Every effect's strength is in :class:`PhotoLook`, drawn at
random by :func:`random_photo_look` so a data set covers good and poor cameras.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

GAMMA = 2.2


@dataclass(frozen=True)
class PhotoLook:
    exposure: float
    """Multiplier on the linear light before the tone curve."""
    white_balance: tuple[float, float, float]
    """BGR gains: the colour cast of a wrong white balance."""
    vignette: float
    """Darkening at the image corners (0 none, 0.4 strong)."""
    defocus_px: float
    """Gaussian sigma of the defocus blur."""
    motion_px: float
    """Length of a straight motion blur (camera shake during the exposure)."""
    motion_angle_deg: float
    noise: float
    """Read noise sigma in 8-bit levels at mid grey; shot noise scales with it."""
    jpeg_quality: int


def random_photo_look(rng: np.random.Generator) -> PhotoLook:
    warm = rng.uniform(-0.12, 0.12)
    tint = rng.uniform(-0.04, 0.04)
    return PhotoLook(
        exposure=float(rng.uniform(0.75, 1.3)),
        white_balance=(1.0 - warm, 1.0 + tint, 1.0 + warm),
        vignette=float(rng.uniform(0.0, 0.35)),
        defocus_px=float(rng.choice([0.0, rng.uniform(0.3, 1.0), rng.uniform(0.8, 1.8)], p=[0.3, 0.5, 0.2])),
        motion_px=float(rng.choice([0.0, rng.uniform(1.0, 4.0)], p=[0.8, 0.2])),
        motion_angle_deg=float(rng.uniform(0, 180)),
        noise=float(rng.uniform(0.8, 4.5)),
        jpeg_quality=int(rng.integers(68, 96)),
    )


_LUT_SIZE = 8192
_LUT_MAX_SQRT = 2.0
"""Tone curve tables are indexed by sqrt(linear light), up to linear 4 (sqrt spacing keeps shadows smooth)."""


@lru_cache(maxsize=4)
def _tone_tables(exposure_key: float) -> tuple[np.ndarray, np.ndarray]:
    x = (np.linspace(0, _LUT_MAX_SQRT, _LUT_SIZE) ** 2) * exposure_key
    display = tone_map(x, 1.0) * 255.0
    return display.astype(np.float32), np.sqrt(0.35 + display / 255.0).astype(np.float32)


def tone_map(linear: np.ndarray, exposure: float) -> np.ndarray:
    """Linear light -> display values 0..1 with a soft shoulder (no hard clipping of highlights)."""
    x = linear * exposure
    x = x / (1 + 0.18 * x)  # gentle roll-off; 1.0 in maps to about 0.85
    return np.power(np.clip(x / 0.85, 0, 1), 1 / GAMMA)


@lru_cache(maxsize=4)
def _noise_bank(shape: tuple[int, int, int]) -> np.ndarray:
    """A fixed field of blotchy unit noise a little larger than a frame; frames take random windows of it."""
    h, w, c = shape
    rng = np.random.default_rng(12345)
    noise = rng.standard_normal((h + _NOISE_PAD, w + _NOISE_PAD, c), dtype=np.float32)
    noise = cv2.GaussianBlur(noise, (0, 0), 0.6)
    noise /= noise.std()
    noise.setflags(write=False)
    return noise


_NOISE_PAD = 97


def motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    n = int(math.ceil(length_px)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    for s in np.linspace(-length_px / 2, length_px / 2, 4 * n):
        k[int(round(c + s * dy)), int(round(c + s * dx))] += 1
    return k / k.sum()


def develop(linear: np.ndarray, look: PhotoLook, rng: np.random.Generator) -> np.ndarray:
    """The 8-bit BGR image a camera makes of linear light (before JPEG compression)."""
    h, w = linear.shape[:2]
    img = linear * np.asarray(look.white_balance, np.float32)
    if look.vignette:
        yy, xx = np.ogrid[:h, :w]
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        img *= (1 - look.vignette * r2.astype(np.float32))[..., None]
    if look.defocus_px > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), look.defocus_px)
    if look.motion_px >= 1.0:
        img = cv2.filter2D(img, -1, motion_kernel(look.motion_px, look.motion_angle_deg))
    exposure = round(look.exposure, 3)
    display, sigma = _tone_tables(exposure)
    idx = np.clip(cv2.sqrt(np.maximum(img, 0)) * ((_LUT_SIZE - 1) / _LUT_MAX_SQRT), 0, _LUT_SIZE - 1).astype(np.int32)
    out = display[idx]
    # Sensor noise: read noise plus shot noise growing with brightness, slightly blotchy like demosaiced noise.
    oy, ox = rng.integers(_NOISE_PAD, size=2)
    noise = _noise_bank(out.shape)[oy:oy + h, ox:ox + w]
    if rng.random() < 0.5:
        noise = noise[::-1, ::-1]
    out += (look.noise * sigma[idx]) * noise
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def jpeg(image: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()
