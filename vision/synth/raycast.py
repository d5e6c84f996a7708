"""Exact ray casting for the renderer: one ray per pixel through OpenCV's camera model.

Every pixel's ray is found by inverting the lens distortion (the inverse of
``cv2.projectPoints``), so whatever is drawn where a ray meets a surface lands exactly
where ``cv2.projectPoints`` puts that surface point: the ground truth and the image
agree to a small fraction of a pixel.

Rays are in the board frame (mm, see :mod:`rules.geometry`): ``origin + t * d`` with
``d`` scaled so that its camera-frame z component is 1 (``t`` is the depth in mm),
which makes ``t`` directly comparable between surfaces for the depth buffer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import BoardPose, CameraModel

_GRID_STEP = 4
"""Rays are inverted exactly every _GRID_STEP pixels and interpolated (bicubic) between."""


def _distort(x: np.ndarray, y: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's forward distortion of normalized coordinates (k1 k2 p1 p2 k3 k4 k5 k6)."""
    k = np.zeros(8)
    k[:min(8, dist.size)] = dist[:8]
    k1, k2, p1, p2, k3, k4, k5, k6 = k
    r2 = x * x + y * y
    radial = (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) / (1 + r2 * (k4 + r2 * (k5 + r2 * k6)))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return xd, yd


def undistort_normalized(u: np.ndarray, v: np.ndarray, camera: CameraModel,
                         iterations: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Normalized undistorted coordinates (x/z, y/z) of pixels (u, v): Newton's method on the forward model."""
    if camera.dist.size > 8 and np.any(camera.dist[8:]):
        raise ValueError("the renderer supports up to 8 distortion coefficients")
    K = camera.K
    yd = (v - K[1, 2]) / K[1, 1]
    xd = (u - K[0, 2] - K[0, 1] * yd) / K[0, 0]
    x, y = xd.copy(), yd.copy()
    eps = 1e-6
    for _ in range(iterations):
        fx, fy = _distort(x, y, camera.dist)
        ex, ey = fx - xd, fy - yd
        # Numerical Jacobian of the forward distortion.
        ax, ay = _distort(x + eps, y, camera.dist)
        bx, by = _distort(x, y + eps, camera.dist)
        j11, j21 = (ax - fx) / eps, (ay - fy) / eps
        j12, j22 = (bx - fx) / eps, (by - fy) / eps
        det = j11 * j22 - j12 * j21
        x = x - (j22 * ex - j12 * ey) / det
        y = y - (-j21 * ex + j11 * ey) / det
        if max(np.abs(ex).max(initial=0), np.abs(ey).max(initial=0)) < 1e-12:
            break
    return x, y


class LensFoldsOver(ValueError):
    """A camera's distortion model folds over inside its frame: some pixels have no single ray."""


@lru_cache(maxsize=8)
def _normalized_grid(K: bytes, dist: bytes, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    camera = CameraModel(np.frombuffer(K).reshape(3, 3), np.frombuffer(dist), size)
    w, h = size
    gu = np.arange(0, w + _GRID_STEP, _GRID_STEP, dtype=np.float64)
    gv = np.arange(0, h + _GRID_STEP, _GRID_STEP, dtype=np.float64)
    U, V = np.meshgrid(gu, gv)
    x, y = undistort_normalized(U, V, camera)
    px, _ = cv2.projectPoints(np.stack([x.ravel(), y.ravel(), np.ones(x.size)], 1), np.zeros(3), np.zeros(3),
                              camera.K, camera.dist)
    err = np.abs(px.reshape(-1, 2) - np.stack([U.ravel(), V.ravel()], 1)).max()
    if not err < 1e-3:
        raise LensFoldsOver(f"lens distortion cannot be inverted over the image (error {err:.3g} px): "
                         "the model folds over inside the frame")
    mu, mv = np.meshgrid(np.arange(w, dtype=np.float32) / _GRID_STEP, np.arange(h, dtype=np.float32) / _GRID_STEP)
    xs = cv2.remap(x.astype(np.float32), mu, mv, cv2.INTER_CUBIC)
    ys = cv2.remap(y.astype(np.float32), mu, mv, cv2.INTER_CUBIC)
    xs.setflags(write=False)
    ys.setflags(write=False)
    return xs, ys


def normalized_rays(camera: CameraModel) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel (H x W float32): the undistorted normalized coordinates (x/z, y/z) it sees."""
    return _normalized_grid(camera.K.tobytes(), camera.dist.tobytes(), camera.image_size)


@dataclass(frozen=True)
class Rays:
    """The rays of the pixels in a box of the image, in the board frame: ``origin + t * d``,
    ``t`` = camera depth in mm."""

    origin: np.ndarray
    """(3,) camera centre, mm."""
    d: np.ndarray
    """(3, h, w) float32 directions (camera-frame z component 1) of the box's pixels."""
    box: tuple[int, int, int, int]
    """(x0, y0, x1, y1) the pixels covered, exclusive ends (the whole image by default)."""

    @classmethod
    def of(cls, pose: BoardPose, box: tuple[int, int, int, int] | None = None) -> "Rays":
        w, h = pose.camera.image_size
        x0, y0, x1, y1 = box or (0, 0, w, h)
        xn, yn = normalized_rays(pose.camera)
        xn, yn = xn[y0:y1, x0:x1], yn[y0:y1, x0:x1]
        R, _ = cv2.Rodrigues(pose.rvec)
        Rt = R.T.astype(np.float32)
        d = np.empty((3, *xn.shape), np.float32)
        for i in range(3):
            d[i] = Rt[i, 0] * xn + Rt[i, 1] * yn + Rt[i, 2]
        return cls(pose.camera_position_mm(), d, (x0, y0, x1, y1))

    def local(self, box: tuple[int, int, int, int] | None) -> tuple[int, int, int, int] | None:
        """An image pixel box as a box in these rays' arrays (clipped), or None if they do not meet."""
        if box is None:
            return None
        x0, y0 = max(box[0], self.box[0]) - self.box[0], max(box[1], self.box[1]) - self.box[1]
        x1, y1 = min(box[2], self.box[2]) - self.box[0], min(box[3], self.box[3]) - self.box[1]
        return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None

    def window(self, local: tuple[int, int, int, int]) -> np.ndarray:
        """Directions (3, h, w) inside a local box (see :meth:`local`)."""
        x0, y0, x1, y1 = local
        return self.d[:, y0:y1, x0:x1]


def view_extent(camera: CameraModel) -> tuple[float, float, float, float, float]:
    """What the image sees in normalized coordinates (x/z, y/z): the extremes of its left,
    right, top and bottom edges, and the radius of its farthest corner."""
    xn, yn = normalized_rays(camera)
    corners = np.hypot(xn[[0, 0, -1, -1], [0, -1, 0, -1]], yn[[0, 0, -1, -1], [0, -1, 0, -1]])
    return float(xn[:, 0].min()), float(xn[:, -1].max()), float(yn[0].min()), float(yn[-1].max()), float(corners.max())


def pixel_box(pose: BoardPose, corners_mm: np.ndarray, margin: int = 3) -> tuple[int, int, int, int] | None:
    """Pixel box (x0, y0, x1, y1) around projected 3-D points, clipped to the image; None if off-image.

    Points far outside the field of view cannot be projected reliably (a distortion
    polynomial folds them back into the frame): the box then reaches the image border
    on their side (None if no point is in view), or is the whole image if any point is
    behind the camera.  Callers pass enough points (corners, points along segments) to
    bound an object."""
    w, h = pose.camera.image_size
    R, _ = cv2.Rodrigues(pose.rvec)
    pts = np.asarray(corners_mm, float)
    cam = pts @ R.T + pose.tvec
    if np.any(cam[:, 2] <= 1.0):
        return 0, 0, w, h
    nx, ny = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
    left, right, top, bottom, reach = view_extent(pose.camera)
    inside = np.hypot(nx, ny) <= 1.02 * reach
    if not inside.any():
        return None
    px = pose.project(pts[inside])
    x0, y0 = np.floor(px.min(0)).astype(int) - margin
    x1, y1 = np.ceil(px.max(0)).astype(int) + margin + 1
    if not inside.all():
        out_x, out_y = nx[~inside], ny[~inside]
        x0 = 0 if np.any(out_x < left) else x0
        x1 = w if np.any(out_x > right) else x1
        y0 = 0 if np.any(out_y < top) else y0
        y1 = h if np.any(out_y > bottom) else y1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x0 >= x1 or y0 >= y1:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def hit_vertical_cylinder(origin: np.ndarray, d: np.ndarray, centre: tuple[float, float], radius: float,
                          z0: float, z1: float) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hit of rays with a closed upright cylinder (side and top cap) seen from above.

    Returns (t, on_cap): depth per ray (inf where missed) and whether the hit is on the cap."""
    ox, oy = origin[0] - centre[0], origin[1] - centre[1]
    dx, dy, dz = d
    a = dx * dx + dy * dy
    b = 2 * (ox * dx + oy * dy)
    c = ox * ox + oy * oy - radius * radius
    disc = b * b - 4 * a * c
    ok = disc >= 0
    t_side = np.where(ok, (-b - np.sqrt(np.maximum(disc, 0))) / (2 * np.maximum(a, 1e-12)), np.inf)
    z_side = origin[2] + t_side * dz
    t_side = np.where(ok & (z_side >= z0) & (z_side <= z1), t_side, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_cap = (z1 - origin[2]) / dz
    cx, cy = ox + t_cap * dx, oy + t_cap * dy
    t_cap = np.where((t_cap > 0) & (cx * cx + cy * cy <= radius * radius), t_cap, np.inf)
    on_cap = t_cap < t_side
    return np.minimum(t_side, t_cap).astype(np.float32), on_cap


def hit_rounded_disc(origin: np.ndarray, d: np.ndarray, centre: tuple[float, float], radius: float,
                     z0: float, height: float, edge: float, steps: int = 16
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hit of rays with an upright disc whose rims are rounded with radius ``edge`` (mm;
    a cylinder of ``radius`` and ``height`` from ``z0``, the quarter-circle profile of a
    turned or moulded disc), seen from above: the grooves between stacked discs are real
    notches that show what lies behind and below them.

    Returns (t, normal): depth per ray (inf where missed) and the unit surface normal (3, ...;
    zero where missed).

    >>> down = np.array([[0.0], [0.0], [-1.0]])
    >>> t, n = hit_rounded_disc(np.array([0.0, 0.0, 100.0]), down, (0.0, 0.0), 14.5, 0.0, 7.0, 1.5)
    >>> round(float(t[0]), 3), np.round(n[:, 0].astype(float), 3).tolist()  # the flat top
    (93.0, [0.0, 0.0, 1.0])
    >>> t, n = hit_rounded_disc(np.array([14.0, 0.0, 100.0]), down, (0.0, 0.0), 14.5, 0.0, 7.0, 1.5)
    >>> round(float(t[0]), 3), np.round(n[:, 0].astype(float), 3).tolist()  # 0.5 mm in from the edge: the rim, lower
    (93.382, [0.667, 0.0, 0.745])
    """
    t, _ = hit_vertical_cylinder(origin, d, centre, radius, z0, z0 + height)
    e = float(min(max(edge, 1e-3), radius, height / 2))
    zc, inner, half = z0 + height / 2, radius - e, height / 2 - e
    # Only rays into the disc's bounding cylinder can meet it: they alone are traced.
    into = np.nonzero(np.isfinite(t))
    rays = d[(slice(None), *into)].astype(np.float32)
    o = np.asarray(origin, np.float32).reshape(3, 1)

    def field(p: np.ndarray) -> tuple[np.ndarray, ...]:
        x, y = p[0] - centre[0], p[1] - centre[1]
        rad = np.sqrt(x * x + y * y) + 1e-9
        qr, qz = rad - inner, np.abs(p[2] - zc) - half
        dist = np.minimum(np.maximum(qr, qz), 0) + np.hypot(np.maximum(qr, 0), np.maximum(qz, 0)) - e
        return dist, x / rad, y / rad, qr, qz

    tt = t[into].astype(np.float32)
    for _ in range(steps):
        tt = tt + np.maximum(field(o + tt * rays)[0], 0)
    dist, ux, uy, qr, qz = field(o + tt * rays)
    up = np.sign(o[2] + tt * rays[2] - zc)
    nr, nz = np.maximum(qr, 0), np.maximum(qz, 0) * up
    corner = (qr > 0) & (qz > 0)
    nr = np.where(corner, nr, (qr >= qz).astype(np.float32))
    nz = np.where(corner, nz, np.where(qr >= qz, 0, up))
    norm = np.sqrt(nr * nr + nz * nz) + 1e-9
    depth = np.full(t.shape, np.inf, np.float32)
    depth[into] = np.where(dist < 0.02, tt, np.inf)
    normal = np.zeros((3, *t.shape), np.float32)
    normal[(slice(None), *into)] = np.stack([ux * nr / norm, uy * nr / norm, nz / norm])
    return depth, normal


def hit_capsule(origin: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray, radius: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hit of rays with a capsule (segment a-b swept by a sphere of ``radius``).

    Returns (t, normal): depth per ray (inf where missed) and the unit surface normal (3, ...)."""
    ba = (b - a).astype(np.float64)
    oa = (origin - a).astype(np.float64)
    baba = float(ba @ ba)
    bard = ba[0] * d[0] + ba[1] * d[1] + ba[2] * d[2]
    baoa = float(ba @ oa)
    rdoa = oa[0] * d[0] + oa[1] * d[1] + oa[2] * d[2]
    oaoa = float(oa @ oa)
    rdrd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    qa = baba * rdrd - bard * bard
    qb = baba * rdoa - baoa * bard
    qc = baba * oaoa - baoa * baoa - radius * radius * baba
    h = qb * qb - qa * qc
    t = np.full(d.shape[1:], np.inf, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        tb = (-qb - np.sqrt(np.maximum(h, 0))) / qa
        y = baoa + tb * bard
        body = (h >= 0) & (y > 0) & (y < baba) & (tb > 0)
        t = np.where(body, tb, t)
        # Caps: spheres at a and b.
        for end, oc in ((a, oa), (b, origin - b)):
            oc = np.asarray(oc, np.float64)
            bq = oc[0] * d[0] + oc[1] * d[1] + oc[2] * d[2]
            cq = float(oc @ oc) - radius * radius
            hq = bq * bq - rdrd * cq
            ts = (-bq - np.sqrt(np.maximum(hq, 0))) / rdrd
            use = (hq >= 0) & (ts > 0) & ~body & (ts < t)
            t = np.where(use, ts, t)
    p = origin.reshape(3, *([1] * (d.ndim - 1))) + np.where(np.isfinite(t), t, 0) * d
    s = np.clip(((p - a.reshape(3, *([1] * (d.ndim - 1)))) * ba.reshape(3, *([1] * (d.ndim - 1)))).sum(0) / baba, 0, 1)
    axis = a.reshape(3, *([1] * (d.ndim - 1))) + s * ba.reshape(3, *([1] * (d.ndim - 1)))
    n = (p - axis) / radius
    return t.astype(np.float32), n.astype(np.float32)


def pyramid(texture: np.ndarray, levels: int) -> list[np.ndarray]:
    out = [texture]
    for _ in range(levels - 1):
        if min(out[-1].shape[:2]) < 8:
            break
        out.append(cv2.pyrDown(out[-1]))
    return out
