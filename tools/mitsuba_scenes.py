"""Render scenes with Mitsuba 3: a third, independent renderer, to check the stack reader on.

    pip install mitsuba
    python3 tools/mitsuba_scenes.py --game accasta --count 20 --seed 950 --out mitsuba/accasta

Writes NAME.jpg + NAME.json as ``tacticblue scenes render`` and ``tools/povray_scenes.py``
do (the same ground truth, so ``benchmarks/vision.py --dir`` reads them), but the picture is
path traced: light bounces between the board, the table and the discs (a blue board tints
the sides of white discs, a stack lights its neighbour), the lamp is a glowing sphere and
the room a uniform sky, and the discs are glossy (rough plastic, GGX) with a stepped rim of
their own size, not the rounded rims of the other two renderers.  What the scene holds
(position, camera placement, board print, table and lamp) comes from
:func:`vision.synth.scene.random_scene`; the camera is a pinhole (:func:`povray_scenes.pinhole_scene`).

The exposure is that of a camera metering the frame (:func:`povray_scenes.meter`): the picture
is scaled so that a random share near the brightest of it is just short of white.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.povray_scenes import camera_view, linear_rgb, meter, print_textures, render_stills, with_sensor_noise  # noqa: E402
from vision.synth.looks import board_half_mm  # noqa: E402
from vision.synth.render import BOARD_THICKNESS_MM, PIECE_LOOKS, TABLE_HALF_MM, Scene  # noqa: E402
from vision.synth.render import stack_discs  # noqa: E402

SAMPLES_PER_PIXEL = 48
"""Paths traced per pixel: about 35 s a 1280x720 picture on two cores (the scalar variant:
the LLVM one needs a newer LLVM than Debian 12 has); the rest of the noise is the sensor's."""


def _move(mi: Any, x: float, y: float, z: float, sx: float = 1.0, sy: float = 1.0, sz: float = 1.0) -> Any:
    """Scaled by ``sx, sy, sz`` about the origin, then moved to ``x, y, z`` (board frame, mm)."""
    return mi.ScalarTransform4f().translate([x, y, z]) @ mi.ScalarTransform4f().scale([sx, sy, sz])


def scene_dict(mi: Any, scene: Scene, rng: np.random.Generator, textures: Path, foreign: bool = False) -> dict:
    """The Mitsuba scene (``mi``: the mitsuba module, its variant set) of a scene whose camera is
    a pinhole (board frame: mm, z up; textures are written to ``textures``)."""
    spec, light = scene.spec, scene.lighting
    R, centre, (w, h), f = camera_view(scene.pose)
    half = board_half_mm(spec)
    out: dict = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 6},
        "sensor": {"type": "perspective", "fov_axis": "x", "fov": float(np.degrees(2 * np.arctan(w / 2 / f))),
                   "to_world": mi.ScalarTransform4f().look_at(origin=centre.tolist(), target=(centre + R[2]).tolist(),
                                                              up=(-R[1]).tolist()),
                   "film": {"type": "hdrfilm", "width": w, "height": h, "rfilter": {"type": "gaussian"}},
                   "sampler": {"type": "independent", "sample_count": SAMPLES_PER_PIXEL}},
        "sky": {"type": "constant", "radiance": {"type": "rgb", "value": list(linear_rgb(light.ambient_colour,
                                                                                       light.ambient))}},
    }
    # The lamp lights the board (1 - ambient) / ambient times as much as the sky does, whatever its size.
    lamp_r = max(light.lamp_size_mm, 5.0)
    power = (1 - light.ambient) * float(np.dot(light.lamp_mm, light.lamp_mm)) / lamp_r ** 2
    out["lamp"] = {"type": "sphere", "center": list(light.lamp_mm), "radius": lamp_r,
                   "emitter": {"type": "area", "radiance": {"type": "rgb",
                                                            "value": list(linear_rgb(light.lamp_colour, power))}}}
    print_png, table_png = print_textures(scene, rng, textures, foreign)
    upright = mi.ScalarTransform4f().translate([0, 1, 0]) @ mi.ScalarTransform4f().scale([1, -1, 1])  # row 0 at +y
    board_bsdf = {"type": "roughplastic", "alpha": float(rng.uniform(0.2, 0.5)),
                  "diffuse_reflectance": {"type": "bitmap", "filename": str(print_png), "to_uv": upright}}
    out["board"] = {"type": "rectangle", "to_world": _move(mi, 0, 0, 0, half, half), "bsdf": board_bsdf}
    out["slab"] = {"type": "cube", "to_world": _move(mi, 0, 0, -BOARD_THICKNESS_MM / 2 - 0.05, half, half,
                                                     BOARD_THICKNESS_MM / 2),
                   "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.3, 0.3, 0.35]}}}
    out["table"] = {"type": "rectangle", "to_world": _move(mi, 0, 0, -BOARD_THICKNESS_MM, TABLE_HALF_MM, TABLE_HALF_MM),
                    "bsdf": {"type": "diffuse", "reflectance": {"type": "bitmap", "filename": str(table_png),
                                                                 "to_uv": upright}}}
    look = PIECE_LOOKS[scene.piece_look]
    colours = {"w": np.clip(np.array(look.white) * rng.uniform(0.9, 1.06, 3), 0, 1),
               "b": np.clip(np.array(look.black) + rng.uniform(0, 0.08) + rng.uniform(-0.02, 0.02, 3), 0, 1)}
    alpha = float(rng.uniform(0.08, 0.35))
    bsdfs = {c: {"type": "roughplastic", "alpha": alpha,
                 "diffuse_reflectance": {"type": "rgb", "value": list(linear_rgb(v, gamma=2.2))}}
             for c, v in colours.items()}
    r, t = spec.piece_diameter_mm / 2, spec.piece_height_mm
    e = float(rng.uniform(0.3, 1.2))  # the rims' step (mm)
    for k, d in enumerate(stack_discs(scene)):
        bsdf = bsdfs[d.colour]
        # A stepped rim: a narrower slice at the top and bottom, a ledge between.
        parts = {"top": ("disk", t, r - e), "ledge": ("disk", t - e, r),
                 "upper": ("cylinder", (t - e, t), r - e), "side": ("cylinder", (e, t - e), r),
                 "lower": ("cylinder", (0.0, e), r - e)}
        for name, (kind, z, radius) in parts.items():
            if kind == "disk":
                shape = {"type": "disk", "to_world": _move(mi, d.x, d.y, d.z + z, radius, radius)}
            else:
                shape = {"type": "cylinder", "p0": [d.x, d.y, d.z + z[0]], "p1": [d.x, d.y, d.z + z[1]],
                         "radius": radius}
            out[f"disc{k}-{name}"] = {**shape, "bsdf": bsdf}
    return out


def render(scene: Scene, rng: np.random.Generator, textures: Path, foreign: bool = False) -> np.ndarray:
    """The 8-bit BGR picture Mitsuba traces of a scene with a pinhole camera, exposed as a
    camera meters it, with sensor noise."""
    import mitsuba as mi
    mi.set_variant("scalar_rgb")
    linear = np.array(mi.render(mi.load_dict(scene_dict(mi, scene, rng, textures, foreign)), seed=int(scene.seed)))
    meter(linear, rng, rng.uniform(0.85, 1.0))
    display = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.clip(linear, 0, None) ** (1 / 2.4) - 0.055)
    return with_sensor_noise(display[..., ::-1], rng)


def main() -> None:
    render_stills(__doc__.splitlines()[0], render, 950, "mitsuba", "pip install mitsuba")


if __name__ == "__main__":
    main()
