"""Render a photo-like image of the board, its stacks and (in videos) a hand, with exact ground truth.

The scene is real 3-D geometry in the board frame (mm, :mod:`rules.geometry`):

* the board slab (top face at z = 0, both printed sides share one square slab),
  standing on a table at z = -``BOARD_THICKNESS_MM``;
* discs as upright cylinders (Ø and height from :class:`rules.geometry.BoardSpec`)
  whose rims are rounded, each set of discs as round as its :class:`DiscFinish` says, so
  stacked discs show real grooves between them;
* optionally a hand and arm made of capsules, and discs the hand carries.

Every pixel's ray goes through OpenCV's camera model (:mod:`vision.synth.raycast`);
the nearest surface wins (a depth buffer: near stacks hide what is behind them, as
a camera sees them).  Surfaces are lit by one lamp (a point light with soft shadows,
Lambert and Blinn-Phong highlights) plus ambient light, from all round or more from
above (:attr:`Lighting.overhead`), in linear light; the photo
effects of :mod:`vision.synth.photo` come after.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import BoardPose
from rules.geometry import BoardKind, BoardSpec, Geometry
from vision.synth.looks import BOARD_LOOKS, board_half_mm, board_texture, table_texture
from vision.synth.raycast import Rays, hit_capsule, hit_rounded_disc, pixel_box, pyramid

BOARD_THICKNESS_MM = 9.0
TABLE_HALF_MM = 1100.0
"""The table is a square this far from the board centre each way; beyond it is the room."""
BOARD_PPM = 4.0
TABLE_PPM = 1.0
GAMMA = 2.2


@dataclass(frozen=True)
class Disc:
    """One disc: bottom-face centre (x, y, z) in mm and colour ``"w"``/``"b"``."""

    x: float
    y: float
    z: float
    colour: str


@dataclass(frozen=True)
class Capsule:
    """A segment ``a``-``b`` (mm) swept by a sphere: the building block of hands and arms."""

    a: tuple[float, float, float]
    b: tuple[float, float, float]
    radius: float


@dataclass(frozen=True)
class PieceLook:
    white: tuple[float, float, float]
    black: tuple[float, float, float]
    gloss: float
    shininess: float


PIECE_LOOKS: dict[str, PieceLook] = {
    "plastic": PieceLook((0.86, 0.88, 0.89), (0.05, 0.05, 0.055), 0.55, 60.0),
    "ivory": PieceLook((0.78, 0.86, 0.9), (0.07, 0.06, 0.06), 0.35, 40.0),
    "matte": PieceLook((0.83, 0.84, 0.84), (0.08, 0.08, 0.085), 0.15, 20.0),
}


@dataclass(frozen=True)
class Lighting:
    lamp_mm: tuple[float, float, float]
    """Position of the main light (point light), board frame."""
    lamp_colour: tuple[float, float, float]
    """BGR, linear, about 1."""
    lamp_size_mm: float
    """Radius of the lamp (how soft its shadows are)."""
    ambient: float
    ambient_colour: tuple[float, float, float]
    room: tuple[float, float, float]
    """Colour of what is seen beyond the table (display BGR)."""
    overhead: float = 0.0
    """How much of the ambient light comes from above (0: from all round alike, 1: a sky
    over the table): an upright side gets half of that part, so under ceiling light a
    disc's side is darker than its top."""


@dataclass(frozen=True)
class DiscFinish:
    """How a set's discs are made, beyond their :class:`PieceLook`: sets differ in how round
    their rims are, whether a ring is pressed into their faces and in their exact colours."""

    edge_mm: float = 1.3
    """Radius of the rounded rims (mm)."""
    ring: float = 0.25
    """How far the ring on the top face tilts it (radians; negative: engraved, 0: no ring)."""
    white_tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    """The white discs' colour is the look's times this (BGR)."""
    black_lift: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Added to the black discs' colour (BGR, linear)."""


@dataclass(frozen=True)
class Placement:
    """How far hands set the discs off their points: each stack as a whole, and each disc off
    the stack's place, at most this many millimetres along each board axis (drawn evenly).
    Players centre discs on the hex side's printed points to a few millimetres; on the
    square side a 29 mm disc has 4.5 mm of play every way in its 38 mm cell, and a stack
    built in a hurry leans."""

    stack_mm: float = 1.6
    disc_mm: float = 0.7

    @classmethod
    def parse(cls, text: str) -> "Placement":
        """``STACK`` or ``STACK,DISC`` (mm); DISC is the default share of STACK when not given.

        >>> Placement.parse("3.2"), Placement.parse("4,1.5")
        (Placement(stack_mm=3.2, disc_mm=1.4), Placement(stack_mm=4.0, disc_mm=1.5))
        """
        try:
            parts = [float(v) for v in text.split(",")]
        except ValueError:
            parts = []
        if not (1 <= len(parts) <= 2 and all(0 <= v <= 10 for v in parts)):  # also false for nan
            raise ValueError(f"give how far discs stand off their points as STACK or STACK,DISC in millimetres "
                             f"(0-10), not {text!r}")
        default = cls()
        disc = parts[1] if len(parts) == 2 else round(parts[0] * default.disc_mm / default.stack_mm, 3)
        return cls(parts[0], disc)


@dataclass(frozen=True)
class Scene:
    """Everything that decides an image (the photo effects aside)."""

    game: str
    geometry: Geometry
    points: dict[str, str]
    pose: BoardPose
    board_look: str
    table_look: str
    piece_look: str
    lighting: Lighting
    seed: int
    """Fixes the small placement errors of the discs (stable across video frames)."""
    extra_discs: tuple[Disc, ...] = ()
    """Discs off their points, e.g. held by the hand."""
    hand: tuple[Capsule, ...] = ()
    skin: tuple[float, float, float] = (0.42, 0.55, 0.78)
    finish: DiscFinish = DiscFinish()
    placement: Placement = Placement()

    @property
    def kind(self) -> BoardKind:
        return self.geometry.kind

    @property
    def spec(self) -> BoardSpec:
        return self.pose.spec


def _jitter(seed: int, *key: object) -> tuple[float, float]:
    """Deterministic small offset in -1..1 for a key (placement errors stay put across frames)."""
    h = zlib.crc32(repr((seed, *key)).encode())
    return ((h & 0xFFFF) / 32767.5 - 1.0, ((h >> 16) & 0xFFFF) / 32767.5 - 1.0)


def stack_discs(scene: Scene) -> list[Disc]:
    """The discs of every stack, each off-centre as hands place them (:class:`Placement`)."""
    spec, off = scene.spec, scene.placement
    pos = scene.geometry.positions_mm(spec)
    out = []
    for name, stack in scene.points.items():
        if not stack:
            continue
        x, y = pos[name]
        jx, jy = _jitter(scene.seed, name)
        x, y = x + off.stack_mm * jx, y + off.stack_mm * jy
        for k, c in enumerate(stack):
            if c not in "wb":
                raise ValueError(f"stack {stack!r} at {name} must be made of 'w' and 'b'")
            dx, dy = _jitter(scene.seed, name, k)
            out.append(Disc(x + off.disc_mm * dx, y + off.disc_mm * dy, k * spec.piece_height_mm, c))
    return out


def _to_linear(img: np.ndarray) -> np.ndarray:
    return np.power(np.maximum(img, 0), GAMMA).astype(np.float32)


@lru_cache(maxsize=12)
def _board_pyramid(kind: BoardKind, look: str, spec: BoardSpec) -> list[np.ndarray]:
    return pyramid(_to_linear(board_texture(kind, look, BOARD_PPM, spec)), 7)


@lru_cache(maxsize=6)
def _table_pyramid(look: str) -> list[np.ndarray]:
    return pyramid(_to_linear(table_texture(look, TABLE_HALF_MM, TABLE_PPM)), 7)


@dataclass
class _Frame:
    """The buffers of one rendering: depth, linear colour and the surface point per pixel."""

    depth: np.ndarray
    colour: np.ndarray


def _lamp(light: Lighting, p: np.ndarray, n: np.ndarray, view: np.ndarray, shininess: float
          ) -> tuple[np.ndarray, np.ndarray]:
    """Diffuse and specular factors of the lamp at points p (3, N) with normals n and view directions."""
    lv = np.asarray(light.lamp_mm, np.float32).reshape(3, 1) - p
    dist2 = (lv * lv).sum(0)
    lv = lv / np.sqrt(dist2)
    ref2 = float(np.dot(light.lamp_mm, light.lamp_mm))
    falloff = ref2 / dist2
    diffuse = np.maximum((n * lv).sum(0), 0) * falloff
    h = lv + view
    h /= np.sqrt((h * h).sum(0)) + 1e-9
    spec = np.power(np.maximum((n * h).sum(0), 0), shininess) * falloff * (diffuse > 0)
    return diffuse.astype(np.float32), spec.astype(np.float32)


@dataclass(frozen=True)
class _Occluder:
    """Something that casts a shadow: a tapered segment a-b with radii (mm)."""

    a: np.ndarray
    b: np.ndarray
    ra: float
    rb: float
    reach: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    """Bounding box (x0, y0, x1, y1) of its shadow on the board plane (covers higher planes too)."""
    soft: bool = False
    """High above the board (a hand): its shadow is blurred enough to compute at a quarter resolution."""


def _occluders(scene: Scene, discs: list[Disc]) -> list[_Occluder]:
    r = scene.spec.piece_diameter_mm / 2
    h = scene.spec.piece_height_mm
    parts = [(np.array([d.x, d.y, d.z + 0.3]), np.array([d.x, d.y, d.z + h]), r, r, False) for d in discs]
    parts += [(np.array(c.a, float), np.array(c.b, float), c.radius, c.radius, True) for c in scene.hand]
    out = []
    for a, b, ra, rb, soft in parts:
        o = _Occluder(a, b, ra, rb, soft=soft)
        out.append(replace(o, reach=_shadow_reach(scene.lighting, o, 0.0)))
    return out


def _shadow_amount(light: Lighting, o: _Occluder, px: np.ndarray, py: np.ndarray, pz: np.ndarray) -> np.ndarray:
    """How much of the lamp ``o`` hides from receiving points (0 none .. 1 all), soft-edged.

    Only the part of the occluder above a receiver counts.  Its shadow on the
    horizontal plane through the receiver is the projection of that part from the
    lamp, a tapered capsule (exact for an upright cylinder); the penumbra widens with
    the distance between occluder and receiver, as under a lamp of finite size."""
    L = light.lamp_mm
    ends = []
    for e, re, q, rq in ((o.a, o.ra, o.b, o.rb), (o.b, o.rb, o.a, o.ra)):
        span = q[2] - e[2]
        u = np.clip((pz - e[2]) / span, 0, 1) if span > 1e-9 else np.zeros_like(pz)
        ex, ey, ez = e[0] + u * (q[0] - e[0]), e[1] + u * (q[1] - e[1]), np.maximum(e[2] + u * span, pz)
        rr = re + u * (rq - re)
        k = (L[2] - pz) / np.maximum(L[2] - ez, 1e-3)
        ends.append((L[0] + (ex - L[0]) * k, L[1] + (ey - L[1]) * k, rr * k, (ez - pz) / np.maximum(L[2] - ez, 1e-3)))
    (ax, ay, ra, ha), (bx, by, rb, hb) = ends
    vx, vy = bx - ax, by - ay
    s = np.clip(((px - ax) * vx + (py - ay) * vy) / (vx * vx + vy * vy + 1e-9), 0, 1)
    dist = np.hypot(px - (ax + s * vx), py - (ay + s * vy))
    pen = 0.3 + light.lamp_size_mm * (ha + s * (hb - ha))
    return _smoothstep(0.5 + (ra + s * (rb - ra) - dist) / (2 * pen))


def _shadow_reach(light: Lighting, o: _Occluder, z: float) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) mm of an occluder's shadow on the plane at height z."""
    L = light.lamp_mm
    xs, ys = [], []
    for e, re in ((o.a, o.ra), (o.b, o.rb)):
        ez = max(e[2], z)
        k = (L[2] - z) / max(L[2] - ez, 1e-3)
        grow = re * k + 0.3 + light.lamp_size_mm * (ez - z) / max(L[2] - ez, 1e-3)
        cx, cy = L[0] + (e[0] - L[0]) * k, L[1] + (e[1] - L[1]) * k
        xs += [cx - grow, cx + grow]
        ys += [cy - grow, cy + grow]
    return min(xs), min(ys), max(xs), max(ys)


def _shadow_points(light: Lighting, p: np.ndarray, occluders: list[_Occluder]) -> np.ndarray:
    """Lamp light reaching points p (3, N) above the board: 1 lit .. 0 in full shadow."""
    lit = np.ones(p.shape[1], np.float32)
    if p.shape[1] == 0:
        return lit
    px0, py0, px1, py1 = float(p[0].min()), float(p[1].min()), float(p[0].max()), float(p[1].max())
    pz0 = float(p[2].min())
    for o in occluders:
        x0, y0, x1, y1 = o.reach
        if x1 < px0 or x0 > px1 or y1 < py0 or y0 > py1 or max(o.a[2], o.b[2]) <= pz0:
            continue
        near = (p[0] >= x0) & (p[0] <= x1) & (p[1] >= y0) & (p[1] <= y1)
        if near.any():
            idx = np.nonzero(near)[0]
            lit[idx] *= 1 - _shadow_amount(light, o, p[0, idx], p[1, idx], p[2, idx])
    return lit


def _shadow_board(scene: Scene, rays: Rays, x: np.ndarray, y: np.ndarray, occluders: list[_Occluder]) -> np.ndarray:
    """Lamp light (times ambient occlusion at the foot of stacks) on the board plane, per pixel.

    ``x``, ``y`` (H x W) are the board-plane points the pixels see; each occluder is
    handled only inside the pixel box of its shadow, so this stays fast."""
    light = scene.lighting
    lit = np.ones(x.shape, np.float32)
    r = scene.spec.piece_diameter_mm / 2
    for o in occluders:
        x0, y0, x1, y1 = o.reach
        corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]])
        box = rays.local(pixel_box(scene.pose, corners))
        if box is None:
            continue
        bx0, by0, bx1, by1 = box
        step = 4 if o.soft else 1
        wx, wy = x[by0:by1:step, bx0:bx1:step], y[by0:by1:step, bx0:bx1:step]
        amount = _shadow_amount(light, o, wx, wy, np.zeros_like(wx)).astype(np.float32)
        if o.soft:
            amount = cv2.resize(amount, (bx1 - bx0, by1 - by0), interpolation=cv2.INTER_LINEAR)
        elif o.a[2] < 1.0 and o.ra == o.rb:
            # A disc standing on the board: the ambient occlusion at its foot.
            dist = np.hypot(wx - o.a[0], wy - o.a[1]) - r
            amount = 1 - (1 - amount) * (1 - 0.5 * np.exp(-np.maximum(dist, 0) / 2.5))
        lit[by0:by1, bx0:bx1] *= 1 - amount
    return lit


def _smoothstep(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0, 1)
    return x * x * (3 - 2 * x)


def _plane_light(light: Lighting, x: np.ndarray, y: np.ndarray, z: float, view: np.ndarray, shininess: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Lamp diffuse and specular factors on a horizontal plane (normal +z), full-frame arrays."""
    lx, ly, lz = (np.float32(v) for v in light.lamp_mm)
    vx, vy, vz = lx - x, ly - y, lz - np.float32(z)
    dist2 = vx * vx + vy * vy + vz * vz
    inv = 1 / np.sqrt(dist2)
    falloff = np.float32(np.dot(light.lamp_mm, light.lamp_mm)) / dist2
    diffuse = np.maximum(vz * inv, 0) * falloff
    hx, hy, hz = vx * inv + view[0], vy * inv + view[1], vz * inv + view[2]
    cos_h = np.maximum(hz / np.sqrt(hx * hx + hy * hy + hz * hz), 0)
    return diffuse, cv2.pow(cos_h, shininess) * falloff


def _one_period(c: np.ndarray, n: int) -> np.ndarray:
    """Texture coordinates (px) far outside a texture ``n`` px across taken back into one period
    of its mirrored repetition (2n, as ``cv2.BORDER_REFLECT`` repeats it): remap walks back to
    the texture a period at a time, which never ends for a table seen out to the horizon (a
    portrait frame's tall view).  Coordinates nearer are left as they are; non-finite ones
    (rays that never meet the plane) go to 0."""
    far = ~(np.abs(c) <= 4 * n)
    if not far.any():
        return c
    return np.where(far, np.nan_to_num(np.mod(c, np.float32(2 * n)), nan=0.0, posinf=0.0, neginf=0.0), c)


def _sample_plane(pyr: list[np.ndarray], ppm: float, half_mm: float, x: np.ndarray, y: np.ndarray,
                  footprint_mm: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Texture colours (H x W x 3) of board-plane points, mip-mapped for the pixel footprint (full frame)."""
    level = np.log2(np.maximum(footprint_mm * ppm, 1e-6))
    lv = level[mask]
    if lv.size == 0:
        return np.zeros((*x.shape, 3), np.float32)
    lo_level = int(np.clip(np.floor(lv.min()), 0, len(pyr) - 1))
    hi_level = int(np.clip(np.ceil(lv.max()), 0, len(pyr) - 1))
    level = np.clip(level, 0, len(pyr) - 1)
    u0 = (x + np.float32(half_mm)) * np.float32(ppm) - np.float32(0.5)
    v0 = (np.float32(half_mm) - y) * np.float32(ppm) - np.float32(0.5)
    out = np.zeros((*x.shape, 3), np.float32)
    for i in range(lo_level, hi_level + 1):
        w = np.maximum(1 - np.abs(level - i), 0).astype(np.float32)
        if i == lo_level:
            w = np.where(level < i, 1, w).astype(np.float32)
        if i == hi_level:
            w = np.where(level > i, 1, w).astype(np.float32)
        # pyrDown keeps level-0 pixel 2^i * j at level-i pixel j.
        h, w_px = pyr[i].shape[:2]
        col = cv2.remap(pyr[i], _one_period(u0 / 2 ** i, w_px), _one_period(v0 / 2 ** i, h), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REFLECT)
        out += col * w[..., None]
    return out


def _slab_shadow(light: Lighting, x: np.ndarray, y: np.ndarray, half: float) -> tuple[np.ndarray, np.ndarray]:
    """Lamp light and ambient occlusion on the table around the board slab (its shadow and its foot)."""
    lx, ly, lz = light.lamp_mm
    k = np.float32(BOARD_THICKNESS_MM / (lz + BOARD_THICKNESS_MM))
    # Where the ray from a table point to the lamp crosses the board's top plane.
    qx, qy = x + (np.float32(lx) - x) * k, y + (np.float32(ly) - y) * k
    inside = np.maximum(np.abs(qx), np.abs(qy)) - np.float32(half)
    pen = np.float32(0.5 + light.lamp_size_mm * BOARD_THICKNESS_MM / lz)
    lit = 1 - _smoothstep(0.5 - inside / (2 * pen))
    outside = np.maximum(np.abs(x), np.abs(y)) - np.float32(half)
    ao = 1 - np.float32(0.45) * np.exp(-np.maximum(outside, 0) / np.float32(5.0))
    return lit.astype(np.float32), ao.astype(np.float32)


def _surfaces(scene: Scene, rays: Rays, occluders: list[_Occluder]) -> _Frame:
    """Board top, board edge, table and room: every pixel's colour and depth before pieces."""
    spec, light = scene.spec, scene.lighting
    half = board_half_mm(spec)
    o, d = rays.origin.astype(np.float32), rays.d
    H, W = d.shape[1:]
    f = np.float32(scene.pose.camera.K[0, 0])
    dz = d[2]
    down = dz < -1e-6
    safe = np.where(down, dz, np.float32(-1e-6))
    t_top = -o[2] / safe
    t_tab = (np.float32(-BOARD_THICKNESS_MM) - o[2]) / safe
    xt, yt = o[0] + t_top * d[0], o[1] + t_top * d[1]
    xb, yb = o[0] + t_tab * d[0], o[1] + t_tab * d[1]
    on_top = down & (np.abs(xt) <= half) & (np.abs(yt) <= half)
    under = down & (np.abs(xb) <= half) & (np.abs(yb) <= half) & ~on_top
    on_table = down & ~on_top & ~under & (np.abs(xb) <= TABLE_HALF_MM) & (np.abs(yb) <= TABLE_HALF_MM)

    dnorm = np.sqrt(d[0] * d[0] + d[1] * d[1] + dz * dz)
    view = -d / dnorm
    # Size of a pixel on the plane (geometric mean of its two axes): picks the texture's mip level.
    footprint_per_t = dnorm / f / np.sqrt(np.maximum(-dz / dnorm, 1e-3))

    look = BOARD_LOOKS[scene.board_look]
    lamp = np.asarray(light.lamp_colour, np.float32)
    ambient = np.asarray(light.ambient_colour, np.float32) * np.float32(light.ambient)

    room = _to_linear(np.array(light.room, np.float32))
    colour = np.empty((H, W, 3), np.float32)
    colour[:] = room
    colour *= np.linspace(0.6, 1.0, H, dtype=np.float32)[:, None, None]
    depth = np.full((H, W), np.inf, np.float32)

    rows, cols = np.nonzero(on_top.any(1))[0], np.nonzero(on_top.any(0))[0]
    if rows.size:
        # Only the board's bounding box of pixels is worked on.
        win = np.s_[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
        bx, by, bt, bmask = xt[win], yt[win], t_top[win], on_top[win]
        board_lit = _shadow_board(scene, rays, xt, yt, occluders)[win]
        albedo = _sample_plane(_board_pyramid(scene.kind, scene.board_look, spec), BOARD_PPM, half, bx, by,
                               bt * footprint_per_t[win], bmask)
        diffuse, specular = _plane_light(light, bx, by, 0.0, view[(slice(None), *win)], 25.0)
        shade = ambient * (0.3 + 0.7 * board_lit)[..., None] + \
            (diffuse * board_lit * (1 - light.ambient))[..., None] * lamp
        board = albedo * shade + (look.gloss * specular * board_lit)[..., None] * lamp
        np.copyto(colour[win], board, where=bmask[..., None])
        np.copyto(depth[win], bt, where=bmask)

    if on_table.any():
        albedo = _sample_plane(_table_pyramid(scene.table_look), TABLE_PPM, TABLE_HALF_MM, xb, yb,
                               t_tab * footprint_per_t, on_table)
        diffuse, specular = _plane_light(light, xb, yb, -BOARD_THICKNESS_MM, view, 12.0)
        lit, ao = _slab_shadow(light, xb, yb, half)
        table = albedo * (ambient * ao[..., None] + (diffuse * lit * (1 - light.ambient))[..., None] * lamp) + \
            (0.06 * specular * lit)[..., None] * lamp
        np.copyto(colour, table, where=on_table[..., None])
        np.copyto(depth, t_tab, where=on_table)

    # The cut edge of the slab: find the face each ray crosses.
    idx = np.nonzero(under.ravel())
    if idx[0].size:
        dd = np.stack([d[i].ravel()[idx] for i in range(3)])
        best_t = np.full(idx[0].size, np.inf, np.float32)
        normal = np.zeros((3, idx[0].size), np.float32)
        for axis, sign in ((0, 1), (0, -1), (1, 1), (1, -1)):
            with np.errstate(divide="ignore", invalid="ignore"):
                tf = (sign * half - o[axis]) / dd[axis]
            z = o[2] + tf * dd[2]
            other = o[1 - axis] + tf * dd[1 - axis]
            ok = (tf > 0) & (z <= 0) & (z >= -BOARD_THICKNESS_MM) & (np.abs(other) <= half + 1e-3) & (tf < best_t)
            best_t = np.where(ok, tf, best_t)
            normal[:, ok] = 0
            normal[axis, ok] = sign
        best_t = np.where(np.isfinite(best_t), best_t, t_tab.ravel()[idx])
        p = o.reshape(3, 1) + best_t * dd
        diffuse, _ = _lamp(light, p.astype(np.float32), normal, -dd / dnorm.ravel()[idx], 10.0)
        edge = _to_linear(np.array(look.edge, np.float32))
        shade = light.ambient * 0.7 + diffuse * (1 - light.ambient)
        colour.reshape(-1, 3)[idx] = edge * shade[:, None]
        depth.ravel()[idx] = best_t
    return _Frame(depth, colour)


def _front_hits(o: np.ndarray, d: np.ndarray, t: np.ndarray, zbuf: np.ndarray
                ) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray, np.ndarray] | None:
    """Of a window's rays from ``o`` (directions ``d``: 3 x h x w) that hit a surface at
    distance ``t`` (not finite where they miss), those nearer than what the window shows so
    far (``zbuf``): their indices in the window, distances, directions and the points hit
    (3 x n, mm); None when there are none."""
    win = np.isfinite(t) & (t < zbuf)
    if not win.any():
        return None
    idx = np.nonzero(win)
    tt = t[idx]
    dd = d[:, idx[0], idx[1]]
    return idx, tt, dd, o.reshape(3, 1).astype(np.float32) + tt * dd


def _draw_discs(scene: Scene, rays: Rays, frame: _Frame, discs: list[Disc], occluders: list[_Occluder]) -> None:
    """Ray-cast every disc into the frame (depth-tested): rounded rims, a ring on the face,
    dark grooves where discs touch."""
    spec, light, finish = scene.spec, scene.lighting, scene.finish
    look = PIECE_LOOKS[scene.piece_look]
    r, h = spec.piece_diameter_mm / 2, spec.piece_height_mm
    o = rays.origin
    albedos = {"w": _to_linear(np.array(look.white, np.float32)) * np.asarray(finish.white_tint, np.float32),
               "b": _to_linear(np.array(look.black, np.float32)) + np.asarray(finish.black_lift, np.float32)}
    for disc in discs:
        corners = np.array([[disc.x + sx * r, disc.y + sy * r, disc.z + sz * h]
                            for sx in (-1, 1) for sy in (-1, 1) for sz in (0, 1)])
        box = rays.local(pixel_box(scene.pose, corners))
        if box is None:
            continue
        x0, y0, x1, y1 = box
        d = rays.window(box)
        t, normal = hit_rounded_disc(o, d, (disc.x, disc.y), r, disc.z, h, finish.edge_mm)
        zbuf = frame.depth[y0:y1, x0:x1]
        hits = _front_hits(o, d, t, zbuf)
        if hits is None:
            continue
        idx, tt, dd, p = hits
        n = normal[:, idx[0], idx[1]]
        rx, ry = p[0] - disc.x, p[1] - disc.y
        rad = np.sqrt(rx * rx + ry * ry) + 1e-6
        zl = p[2] - disc.z
        # The ring pressed into the flat face tilts it inwards and outwards of a circle at 2/3 of the radius.
        face = n[2] > 0.999
        ring = np.where(face, finish.ring * np.exp(-((rad - 0.66 * r) / 0.6) ** 2) * np.sign(rad - 0.66 * r), 0.0)
        n = np.stack([n[0] + ring * rx / rad, n[1] + ring * ry / rad, n[2]])
        n = (n / np.sqrt((n * n).sum(0))).astype(np.float32)
        view = -dd / np.sqrt((dd * dd).sum(0))
        diffuse, specular = _lamp(light, p, n, view, look.shininess)
        lit = _shadow_points(light, p, [oc for oc in occluders if not _same_stack(oc, disc)])
        # The gap between two stacked discs (and the foot of a stack) gets little ambient light.
        covered = any(abs(e.x - disc.x) < 3 and abs(e.y - disc.y) < 3 and abs(e.z - disc.z - h) < 0.5 for e in discs)
        width = max(1.2, finish.edge_mm)
        groove = 0.35 + 0.65 * _smoothstep(zl / width)
        if covered:
            groove = groove * (0.35 + 0.65 * _smoothstep((h - zl) / width))
        sky = (1 - light.overhead) + light.overhead * (0.5 + 0.5 * n[2])
        albedo = albedos[disc.colour]
        shade = (light.ambient * groove * sky)[:, None] * np.asarray(light.ambient_colour, np.float32) + \
            (diffuse * lit * (1 - light.ambient))[:, None] * np.asarray(light.lamp_colour, np.float32)
        rgb = albedo * shade + (look.gloss * specular * lit * groove)[:, None] * np.asarray(light.lamp_colour, np.float32)
        sub = frame.colour[y0:y1, x0:x1]
        sub[idx] = rgb
        zbuf[idx] = tt


def _same_stack(o: _Occluder, disc: Disc) -> bool:
    """Whether an occluder is a disc of the same stack (which cannot shade this disc's visible parts)."""
    return o.ra == o.rb and o.a[0] == o.b[0] and abs(o.a[0] - disc.x) < 3 and abs(o.a[1] - disc.y) < 3


def _draw_hand(scene: Scene, rays: Rays, frame: _Frame, occluders: list[_Occluder]) -> np.ndarray:
    """Ray-cast the hand's capsules; returns the mask of pixels where the hand is seen."""
    light = scene.lighting
    o = rays.origin
    H, W = frame.depth.shape
    mask = np.zeros((H, W), bool)
    skin = _to_linear(np.array(scene.skin, np.float32))
    for c in scene.hand:
        a, b = np.array(c.a, float), np.array(c.b, float)
        corners = np.array([[(a if i else b)[0] + sx * c.radius, (a if i else b)[1] + sy * c.radius,
                             (a if i else b)[2] + sz * c.radius]
                            for i in (0, 1) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        box = rays.local(pixel_box(scene.pose, corners, margin=4))
        if box is None:
            continue
        x0, y0, x1, y1 = box
        d = rays.window(box)
        t, n = hit_capsule(o, d, a, b, c.radius)
        zbuf = frame.depth[y0:y1, x0:x1]
        hits = _front_hits(o, d, t, zbuf)
        if hits is None:
            continue
        idx, tt, dd, p = hits
        nn = n[:, idx[0], idx[1]]
        view = -dd / np.sqrt((dd * dd).sum(0))
        diffuse, specular = _lamp(light, p, nn, view, 8.0)
        # Skin scatters light: soften the terminator and warm the shadow side.
        wrap = np.clip((diffuse + 0.35) / 1.35, 0, None)
        shade = light.ambient + wrap * (1 - light.ambient)
        rgb = skin * shade[:, None] * np.asarray(light.lamp_colour, np.float32) + \
            (0.08 * specular)[:, None] * np.asarray(light.lamp_colour, np.float32)
        frame.colour[y0:y1, x0:x1][idx] = rgb
        zbuf[idx] = tt
        mask[y0:y1, x0:x1][idx] = True
    return mask


def render_linear(scene: Scene, region: tuple[int, int, int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The scene in linear light (float32 BGR) and the mask of hand pixels.

    ``region`` (x0, y0, x1, y1) renders only that box of the image (arrays of its size):
    videos re-render just the part a moving hand changes."""
    rays = Rays.of(scene.pose, region)
    discs = stack_discs(scene) + list(scene.extra_discs)
    occluders = _occluders(scene, discs)
    frame = _surfaces(scene, rays, occluders)
    _draw_discs(scene, rays, frame, discs, occluders)
    hand = _draw_hand(scene, rays, frame, occluders) if scene.hand else np.zeros(frame.depth.shape, bool)
    return frame.colour, hand


def moving_region(scene: Scene) -> tuple[int, int, int, int] | None:
    """The pixel box a scene's hand and held discs can change (themselves and their shadows); None if nothing."""
    r, h = scene.spec.piece_diameter_mm / 2, scene.spec.piece_height_mm
    light = scene.lighting
    pts = []
    cube = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    for c in scene.hand:
        # Points along the capsule, so a capsule leaving the frame still bounds what is in it.
        for f in np.linspace(0, 1, 9):
            pts += list(np.array(c.a) + f * (np.array(c.b) - np.array(c.a)) + cube * c.radius)
        o = _Occluder(np.array(c.a, float), np.array(c.b, float), c.radius, c.radius)
        x0, y0, x1, y1 = _shadow_reach(light, o, 0.0)
        pts += [np.array([x, y, 0.0]) for x in (x0, x1) for y in (y0, y1)]
    for d in scene.extra_discs:
        pts += [np.array([d.x + sx * r, d.y + sy * r, d.z + sz * h]) for sx in (-1, 1) for sy in (-1, 1) for sz in (0, 1)]
        o = _Occluder(np.array([d.x, d.y, d.z]), np.array([d.x, d.y, d.z + h]), r, r)
        x0, y0, x1, y1 = _shadow_reach(light, o, 0.0)
        pts += [np.array([x, y, 0.0]) for x in (x0, x1) for y in (y0, y1)]
    if not pts:
        return None
    return pixel_box(scene.pose, np.array(pts), margin=6)
