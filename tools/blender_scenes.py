"""Render scenes with Blender's Cycles: a fourth, independent renderer, to check the stack reader on.

    pip install --no-deps bpy==4.2.0   # Blender as a Python module (Python 3.11 only)
    python3 tools/blender_scenes.py --game accasta --count 20 --seed 970 --out blender/accasta

Writes NAME.jpg + NAME.json as ``tacticblue scenes render``, ``tools/povray_scenes.py`` and
``tools/mitsuba_scenes.py`` do (the same ground truth, so ``benchmarks/vision.py --dir`` and
``tools/height_data.py`` read them); no reader net was ever fitted on its pictures.  The
picture is path traced by Cycles (few samples, OpenImageDenoise) and looks unlike the other
three's: the discs are meshes, cylinders whose rims are bevelled flat-and-round (0.3-1.5 mm
wide, 1-4 segments) with a groove, a raised ring or neither on the top face, of Blender's
Principled BSDF (GGX, multiple-scattering) with a clear coat or a sheen at random; the lamp
is a rectangular, square, elliptic or round area light facing the board (a Lambertian
panel, not a glowing sphere; sometimes a second, fainter one), the world lights the scene
with the scene's ambient colour (brighter from above as ``Lighting.overhead`` says) while
the camera sees the room's colour beyond the table; the board print and the table are
image textures (:func:`povray_scenes.print_textures`).  The picture is tone mapped by a view
transform drawn at random, Standard (sRGB), Filmic or AgX (soft highlights, lifted shadows,
AgX desaturating bright colours), sometimes with a contrast look.  What the scene holds
(position, camera placement, board print, table and lamp) comes from
:func:`vision.synth.scene.random_scene`; the camera is a pinhole (:func:`povray_scenes.pinhole_scene`).

The exposure is that of a camera metering the frame, as in ``tools/mitsuba_scenes.py``
(:func:`povray_scenes.meter`): the linear picture is scaled so that a random share near the
brightest of it is just short of white (under Filmic and AgX, which keep highlights from
clipping, a little brighter).
Blender units are millimetres (the board frame: z up, the board's centre at the origin).

On its first small sets (640x480) the reader read 0.97 of Accasta's stacks right from
58-75 degrees (8 stills, seed 970) and 0.99 from every elevation (6, seed 971); Dame's
0.99 and 1.0 (4 and 4).

``samples/blender/GAME.jpg`` (tests/test_read.py) is scene 0 of ``--seed 980 --size 1280x720``
of every game, renamed: 555 of their 556 points are read right; the other, Attangle square's
h4 (one black disc), is read empty at confidence 0.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.povray_scenes import linear_rgb, meter, print_textures, render_stills, with_sensor_noise  # noqa: E402
from vision.synth.looks import board_half_mm  # noqa: E402
from vision.synth.render import BOARD_THICKNESS_MM, PIECE_LOOKS, TABLE_HALF_MM, Scene  # noqa: E402
from vision.synth.render import stack_discs  # noqa: E402

SAMPLES_PER_PIXEL = 20
"""Paths traced per pixel (adaptive, then denoised by OpenImageDenoise): about 15 CPU seconds a
640x480 picture, 41 a 1280x720 one (half that on two idle cores); the rest of the noise is
the sensor's."""

VIEWS = {"Standard": ["None"], "Filmic": ["None", "Medium High Contrast", "Medium Low Contrast"],
         "AgX": ["None", "AgX - Punchy", "AgX - Medium High Contrast"]}
"""The view transforms (tone curves) a picture is drawn with, and the looks each may take."""


def _rgba(bgr: tuple[float, float, float] | np.ndarray, gain: float = 1.0,
          gamma: float = 1.0) -> tuple[float, float, float, float]:
    """BGR as Blender's RGBA (:func:`povray_scenes.linear_rgb`; ``gamma`` 2.2: a display colour made linear)."""
    return (*linear_rgb(bgr, gain, gamma), 1.0)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Blender's render progress, written to the process's stdout, silenced."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        try:
            yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def _object(bpy: Any, name: str, data: Any, location: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> Any:
    ob = bpy.data.objects.new(name, data)
    ob.location = location
    bpy.context.scene.collection.objects.link(ob)
    return ob


def _principled(bpy: Any, name: str, colour: tuple | None = None, image: Path | None = None, **inputs: float) -> Any:
    """A Principled BSDF material of a colour (linear RGBA) or an image texture (sRGB, UV mapped)."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    if image is not None:
        tex = mat.node_tree.nodes.new("ShaderNodeTexImage")
        tex.image = bpy.data.images.load(str(image), check_existing=True)
        tex.interpolation = "Cubic"
        mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    else:
        bsdf.inputs["Base Color"].default_value = colour
    for key, value in inputs.items():
        bsdf.inputs[key].default_value = value
    return mat


def _rectangle(bpy: Any, name: str, half: float, z: float, material: Any) -> Any:
    """A square of half-size ``half`` at height ``z``, centred on the z axis, its UV (0, 0) at
    (-half, -half) and (1, 1) at (half, half): an image's top row lies at +y."""
    me = bpy.data.meshes.new(name)
    me.from_pydata([(-half, -half, z), (half, -half, z), (half, half, z), (-half, half, z)], [], [(0, 1, 2, 3)])
    uv = me.uv_layers.new(name="UVMap")
    for loop, (u, v) in zip(uv.data, [(0, 0), (1, 0), (1, 1), (0, 1)]):
        loop.uv = (u, v)
    me.materials.append(material)
    return _object(bpy, name, me)


def _box(bpy: Any, name: str, lo: tuple[float, float, float], hi: tuple[float, float, float], material: Any) -> Any:
    me = bpy.data.meshes.new(name)
    corners = [(x, y, z) for z in (lo[2], hi[2]) for y in (lo[1], hi[1]) for x in (lo[0], hi[0])]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    me.from_pydata(corners, [], faces)
    me.materials.append(material)
    return _object(bpy, name, me)


def disc_mesh(bpy: Any, name: str, radius: float, height: float, bevel: float, segments: int,
              ring: str, ring_radius: float) -> Any:
    """A disc's mesh: a 72-sided cylinder on z = 0 whose rims are bevelled ``bevel`` mm in
    ``segments`` steps (Blender's bevel, as the Bevel modifier does it), with a groove (``ring``
    "groove", 0.35 mm deep), a raised ring ("raised", 0.3 mm high) or nothing ("none"), 0.6 mm
    wide, inside ``ring_radius`` on its top face; the faces are flat, the rims smooth."""
    import bmesh
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, cap_tris=False, segments=72, radius1=radius, radius2=radius,
                          depth=height)
    bmesh.ops.translate(bm, verts=bm.verts, vec=(0.0, 0.0, height / 2))
    rims = [e for e in bm.edges if abs(e.verts[0].co.z - e.verts[1].co.z) < 1e-6]
    bmesh.ops.bevel(bm, geom=rims, offset=bevel, offset_type="OFFSET", profile_type="SUPERELLIPSE",
                    segments=segments, profile=0.5, affect="EDGES", clamp_overlap=True)
    for face in bm.faces:
        face.smooth = abs(face.normal.z) < 0.999
    if ring != "none":
        top = max(bm.faces, key=lambda f: f.calc_center_median().z + f.normal.z)
        rim_r = radius - bevel
        width, depth = 0.6, (-0.35 if ring == "groove" else 0.3)
        inner = top
        for thickness, lift in ((max(rim_r - ring_radius, 0.2), 0.0), (0.0, depth), (width, 0.0), (0.0, -depth)):
            made = bmesh.ops.inset_individual(bm, faces=[inner], thickness=thickness, depth=lift,
                                              use_even_offset=True)
            for face in made["faces"]:  # the ring's walls and ledges (the inset face stays ``inner``)
                face.smooth = False
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    return me


def _world(bpy: Any, scene: Scene, rng: np.random.Generator) -> None:
    """The world: the ambient light (``overhead`` of it from above) on everything, the room's
    colour where the camera looks past the table."""
    light = scene.lighting
    world = bpy.data.worlds.new("room")
    bpy.context.scene.world = world
    world.use_nodes = True
    world.cycles.sampling_method = "NONE"  # a smooth sky: no importance map to build
    nodes, links = world.node_tree.nodes, world.node_tree.links
    ambient = nodes["Background"]
    ambient.inputs["Color"].default_value = _rgba(light.ambient_colour)
    # Strength: ambient * ((1 - o) + 1.5 o max(z, 0)) -- a level face gets the ambient light whatever o is.
    coords, xyz = nodes.new("ShaderNodeTexCoord"), nodes.new("ShaderNodeSeparateXYZ")
    links.new(coords.outputs["Generated"], xyz.inputs["Vector"])
    up = nodes.new("ShaderNodeMath")
    up.operation, up.use_clamp = "MULTIPLY_ADD", False
    o = float(np.clip(light.overhead, 0.0, 1.0))
    clamp = nodes.new("ShaderNodeMath")
    clamp.operation = "MAXIMUM"
    links.new(xyz.outputs["Z"], clamp.inputs[0])
    clamp.inputs[1].default_value = 0.0
    links.new(clamp.outputs[0], up.inputs[0])
    up.inputs[1].default_value = 1.5 * o * light.ambient
    up.inputs[2].default_value = (1 - o) * light.ambient
    links.new(up.outputs[0], ambient.inputs["Strength"])
    room = nodes.new("ShaderNodeBackground")
    room.inputs["Color"].default_value = _rgba(light.room, rng.uniform(0.4, 1.0), 2.2)
    path, mix = nodes.new("ShaderNodeLightPath"), nodes.new("ShaderNodeMixShader")
    links.new(path.outputs["Is Camera Ray"], mix.inputs["Fac"])
    links.new(ambient.outputs["Background"], mix.inputs[1])
    links.new(room.outputs["Background"], mix.inputs[2])
    links.new(mix.outputs[0], nodes["World Output"].inputs["Surface"])


def _lamp(bpy: Any, name: str, at: np.ndarray, colour: tuple, irradiance: float, size: float, aspect: float,
          shape: str) -> None:
    """An area light at ``at`` facing the board's centre under which a level white face there
    shines ``irradiance`` / pi (as a sky of radiance ``irradiance`` makes it): Cycles' area
    light of power P makes a white face d away shine P / (pi d)^2."""
    lamp = bpy.data.lights.new(name, "AREA")
    lamp.shape, lamp.size, lamp.size_y = shape, size, size * aspect
    lamp.color = colour[:3]
    lamp.energy = math.pi * float(at @ at) * irradiance
    ob = _object(bpy, name, lamp, tuple(at))
    ob.rotation_euler = _facing(at)


def _facing(at: np.ndarray) -> tuple[float, float, float]:
    """The Euler angles (XYZ) that turn a light's -z axis from ``at`` towards the origin."""
    from mathutils import Vector
    return tuple(Vector((-at).tolist()).to_track_quat("-Z", "Y").to_euler())


def _camera(bpy: Any, scene: Scene) -> None:
    """The scene's pinhole camera: its pose, its focal length, the principal point in the middle."""
    from mathutils import Matrix
    pose = scene.pose
    R, _ = cv2.Rodrigues(pose.rvec)
    centre = pose.camera_position_mm()
    w, h = pose.camera.image_size
    cam = bpy.data.cameras.new("camera")
    cam.sensor_fit, cam.sensor_width = "HORIZONTAL", 36.0
    cam.lens = float(pose.camera.K[0, 0]) * 36.0 / w
    cam.clip_start, cam.clip_end = 1.0, 1e5
    ob = _object(bpy, "camera", cam)
    # Blender's camera looks down its -z axis with +y up; OpenCV's down +z with +y down.
    ob.matrix_world = Matrix([[R[0, i], -R[1, i], -R[2, i], centre[i]] for i in range(3)] + [[0, 0, 0, 1]])
    bpy.context.scene.camera = ob
    render = bpy.context.scene.render
    render.resolution_x, render.resolution_y, render.resolution_percentage = w, h, 100
    render.pixel_aspect_x = render.pixel_aspect_y = 1.0


def build_scene(bpy: Any, scene: Scene, rng: np.random.Generator, textures: Path, foreign: bool = False) -> None:
    """The Blender scene (in a fresh, empty file) of a scene whose camera is a pinhole (board
    frame: mm, z up; textures are written to ``textures``)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    spec, light = scene.spec, scene.lighting
    half = board_half_mm(spec)
    _camera(bpy, scene)
    _world(bpy, scene, rng)
    size = max(light.lamp_size_mm, 5.0) * rng.uniform(1.5, 4.0)
    shape = str(rng.choice(["RECTANGLE", "SQUARE", "DISK", "ELLIPSE"]))
    # The lamp lights the board (1 - ambient) / ambient times as much as the sky does, as in mitsuba_scenes.py.
    _lamp(bpy, "lamp", np.array(light.lamp_mm, float), _rgba(light.lamp_colour), math.pi * (1 - light.ambient), size,
          float(rng.uniform(0.4, 1.0)) if shape in ("RECTANGLE", "ELLIPSE") else 1.0, shape)
    if rng.random() < 0.25:  # a second lamp: a second, fainter shadow
        az, el, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.5, 1.4), rng.uniform(800, 2000)
        at = dist * np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
        _lamp(bpy, "lamp2", at, (1.0, 1.0, 1.0, 1.0), math.pi * rng.uniform(0.1, 0.35) * (1 - light.ambient),
              float(rng.uniform(40, 150)), 1.0, "DISK")
    print_png, table_png = print_textures(scene, rng, textures, foreign)
    board = _principled(bpy, "print", image=print_png, Roughness=float(rng.uniform(0.35, 0.8)),
                        **{"Coat Weight": float(rng.choice([0.0, rng.uniform(0.05, 0.3)]))})
    _rectangle(bpy, "board", half, 0.0, board)
    slab = _principled(bpy, "slab", colour=(0.08, 0.08, 0.1, 1.0), Roughness=0.7)
    _box(bpy, "slab", (-half, -half, -BOARD_THICKNESS_MM + 0.01), (half, half, -0.03), slab)
    table = _principled(bpy, "table", image=table_png, Roughness=float(rng.uniform(0.4, 0.9)))
    _rectangle(bpy, "table", TABLE_HALF_MM, -BOARD_THICKNESS_MM, table)

    look = PIECE_LOOKS[scene.piece_look]
    colours = {"w": np.clip(np.array(look.white) * rng.uniform(0.9, 1.06) * rng.uniform(0.97, 1.03, 3), 0, 1),
               "b": np.clip(np.array(look.black) + rng.uniform(0, 0.08) + rng.uniform(-0.02, 0.02, 3), 0, 1)}
    finish = {"Roughness": float(np.clip(0.7 - 0.6 * look.gloss * rng.uniform(0.6, 1.4), 0.12, 0.75)),
              "Specular IOR Level": float(rng.uniform(0.35, 0.6))}
    if rng.random() < 0.5:  # lacquered: a clear coat over the plastic
        finish.update({"Coat Weight": float(rng.uniform(0.15, 0.6)), "Coat Roughness": float(rng.uniform(0.02, 0.15))})
    else:  # a faint velvet sheen, as of a worn, fine-grained surface
        finish.update({"Sheen Weight": float(rng.uniform(0.0, 0.4)), "Sheen Roughness": float(rng.uniform(0.3, 0.7))})
    r, t = spec.piece_diameter_mm / 2, spec.piece_height_mm
    bevel = float(rng.uniform(0.3, 1.5))
    body = disc_mesh(bpy, "disc", r, t, min(bevel, t / 2 - 0.05), int(rng.integers(1, 5)),
                      str(rng.choice(["none", "groove", "raised"])), float(rng.uniform(0.55, 0.8)) * r)
    meshes = {}  # one mesh a colour, shared by its discs (Cycles instances them)
    for c, bgr in colours.items():
        meshes[c] = body.copy()
        meshes[c].materials.append(_principled(bpy, f"disc-{c}", colour=_rgba(bgr, gamma=2.2), **finish))
    for k, d in enumerate(stack_discs(scene)):
        ob = _object(bpy, f"disc{k}", meshes[d.colour], (d.x, d.y, d.z))
        ob.rotation_euler = (0.0, 0.0, float(rng.uniform(0, 2 * np.pi)))


def _settings(bpy: Any, scene: Scene) -> None:
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    cycles = sc.cycles
    cycles.device = "CPU"
    cycles.samples, cycles.use_adaptive_sampling = SAMPLES_PER_PIXEL, True
    cycles.adaptive_threshold, cycles.adaptive_min_samples = 0.04, 8
    cycles.seed = int(scene.seed) % 2**31
    cycles.max_bounces, cycles.diffuse_bounces, cycles.glossy_bounces = 4, 2, 2
    cycles.transmission_bounces, cycles.transparent_max_bounces = 0, 2
    cycles.caustics_reflective = cycles.caustics_refractive = False
    cycles.blur_glossy = 1.0
    import _cycles
    cycles.use_denoising = bool(getattr(_cycles, "with_openimagedenoise", False))
    if cycles.use_denoising:
        cycles.denoiser, cycles.denoising_input_passes = "OPENIMAGEDENOISE", "RGB_ALBEDO_NORMAL"
    sc.render.use_compositing = sc.render.use_sequencer = False
    sc.render.film_transparent = False
    sc.render.filter_size = 1.5


def render(scene: Scene, rng: np.random.Generator, textures: Path, foreign: bool = False) -> np.ndarray:
    """The 8-bit BGR picture Cycles traces of a scene with a pinhole camera, exposed as a
    camera meters it, tone mapped by a random view transform, with sensor noise."""
    import bpy
    build_scene(bpy, scene, rng, textures, foreign)
    _settings(bpy, scene)
    sc = bpy.context.scene
    w, h = scene.pose.camera.image_size
    with tempfile.TemporaryDirectory() as tmp:
        exr, tif = Path(tmp) / "linear.exr", Path(tmp) / "display.tif"
        sc.render.image_settings.file_format, sc.render.image_settings.color_depth = "OPEN_EXR", "32"
        sc.render.filepath = str(exr)
        with _quiet():
            bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(str(exr))
        pixels = np.empty(w * h * 4, np.float32)
        image.pixels.foreach_get(pixels)
        linear = pixels.reshape(h, w, 4)[..., :3].astype(np.float64)  # rows bottom up
        view = str(rng.choice(list(VIEWS)))
        meter(linear, rng, rng.uniform(0.85, 1.0) * (1.0 if view == "Standard" else rng.uniform(1.0, 1.5)))
        pixels.reshape(h, w, 4)[..., :3] = linear
        image.pixels.foreach_set(pixels)
        vs = sc.view_settings
        vs.view_transform, vs.exposure, vs.gamma = view, 0.0, 1.0
        vs.look = str(rng.choice(VIEWS[view]))
        sc.render.image_settings.file_format, sc.render.image_settings.color_depth = "TIFF", "16"
        sc.render.image_settings.color_mode, sc.render.image_settings.tiff_codec = "RGB", "NONE"
        image.save_render(str(tif), scene=sc)
        display = cv2.imread(str(tif), cv2.IMREAD_UNCHANGED).astype(np.float64) / 65535.0
    return with_sensor_noise(display, rng)


def main() -> None:
    render_stills(__doc__.splitlines()[0], render, 970, "bpy", "pip install bpy==4.2.0, Python 3.11")


if __name__ == "__main__":
    main()
