"""Render scenes with POV-Ray: a second, independent renderer, to fit and check the stack reader on.

    apt-get install povray
    python3 tools/povray_scenes.py --game accasta --count 40 --seed 901 --out povray/accasta

Writes NAME.jpg + NAME.json as ``tacticblue scenes render`` does (the same ground truth, so
``benchmarks/vision.py --dir`` and ``tools/height_data.py`` read them), but the picture is
ray traced by POV-Ray: discs are solid rounded cylinders (true bevels and grooves, a raised
or engraved ring or none, edges 0.3-2 mm round), lit by an area lamp with real soft shadows,
a sky fill light and sometimes a second lamp, with materials and photo effects drawn from
ranges of their own.  What the scene holds (position, camera placement, board print, table
and lamp) comes from :func:`vision.synth.scene.random_scene`; the camera is a pinhole with a
centred principal point, as POV-Ray's camera is.

A reader fitted on one renderer alone learns that renderer's look of a disc; the pictures
of this one differ from it in shape, light and material, as a real camera's do.
``--foreign-print`` prints the board in a random style of its own (:func:`foreign_print`: any
colours, lines 0.8-3 mm wide, dots, rings or nothing at the points, a border or none), to
check the board finder on boards the renderer's looks do not cover.  ``--elevation LO-HI``
draws only cameras that many degrees above the table, as ``tacticblue scenes render`` does
(the reader reads POV-Ray's steep views worst: 0.94 of Accasta's stacks right above 60
degrees, seed 900).

:func:`render_film` traces a random game as a time-lapse film, one picture per position
(``--film PLIES`` writes them; ``benchmarks/films.py --povray`` referees them through the
live path).  ``tests/data/live/dame100-povray-time-lapse.mp4`` is film 0 of ``--game dame100
--seed 930 --size 640x360 --film 4``.

``samples/povray/GAME.jpg`` (tests/test_read.py) is scene 0 of ``--seed 910 --size 1280x720``
of every game, renamed; ``samples/povray/foreign/abande-wide-lines.jpg``
(tests/test_board_finder.py) scene 7 of ``--game abande --seed 920 --foreign-print``, and
``samples/povray/foreign/dame100-near-black-cells.jpg`` (tests/test_read.py) scene 11 of
``--game dame100 --seed 920 --foreign-print``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.camera import BoardPose, CameraModel  # noqa: E402
from rules.geometry import DEFAULT_SPEC, BoardSpec, board_outline_mm, hex_geometry, hex_lines  # noqa: E402
from tacticblue.commands import disc_size, frame_size  # noqa: E402
from tacticblue.commands.scenes import elevation_range  # noqa: E402
from vision.synth.games import game_names  # noqa: E402
from vision.synth.looks import board_half_mm, board_texture, table_texture  # noqa: E402
from vision.synth.render import BOARD_PPM, BOARD_THICKNESS_MM, PIECE_LOOKS, TABLE_HALF_MM, TABLE_PPM, Scene  # noqa: E402
from vision.synth.render import stack_discs  # noqa: E402
from vision.synth.rig import DEFAULT_RIG, RigRange, rig_at  # noqa: E402
from vision.synth.scene import camera_truth, random_scene, sample_rng, scene_truth  # noqa: E402
from vision.synth.video import game_plies  # noqa: E402


def _v(x: float, y: float, z: float) -> str:
    """A board-frame point (mm, z up) in POV-Ray's frame (y up)."""
    return f"<{x:.4f}, {z:.4f}, {y:.4f}>"


def linear_rgb(bgr: tuple[float, float, float] | np.ndarray, gain: float = 1.0,
               gamma: float = 1.0) -> tuple[float, float, float]:
    """A BGR colour (0..1) as RGB, each channel ``gain * c ** gamma`` (``gamma`` 2.2: a display
    colour made linear, as the renderers' materials take it)."""
    b, g, r = (gain * float(c) ** gamma for c in bgr)
    return r, g, b


def _rgb(bgr: tuple[float, float, float] | np.ndarray, gamma: float = 1.0) -> str:
    r, g, b = linear_rgb(bgr, gamma=gamma)
    return f"rgb <{r:.4f}, {g:.4f}, {b:.4f}>"


def _texture_png(folder: Path, name: str, image: np.ndarray) -> Path:
    path = folder / f"{name}.png"
    if not path.exists():
        cv2.imwrite(str(path), np.clip(image * 255, 0, 255).astype(np.uint8))
    return path


def print_textures(scene: Scene, rng: np.random.Generator, textures: Path, foreign: bool = False) -> tuple[Path, Path]:
    """The PNG files (written to ``textures`` once) of the scene's board print, a
    :func:`foreign_print` when ``foreign``, and of its table."""
    if foreign:
        board = _texture_png(textures, f"foreign-{scene.seed}", foreign_print(scene.kind, scene.spec, rng))
    else:
        board = _texture_png(textures, f"board-{scene.kind}-{scene.board_look}",
                            board_texture(scene.kind, scene.board_look, BOARD_PPM, scene.spec))
    table = _texture_png(textures, f"table-{scene.table_look}", table_texture(scene.table_look, TABLE_HALF_MM, TABLE_PPM))
    return board, table


def _colour(rng: np.random.Generator, value: tuple[float, float]) -> tuple[int, int, int]:
    """A random 8-bit BGR colour of any hue, a random saturation and a value in ``value`` (0..1)."""
    hsv = np.uint8([[[rng.integers(180), rng.integers(0, 200), int(255 * rng.uniform(*value))]]])
    return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])  # type: ignore[return-value]


def foreign_print(kind: str, spec: BoardSpec, rng: np.random.Generator, ppm: float = BOARD_PPM) -> np.ndarray:
    """A board print of a style none of :data:`vision.synth.looks.BOARD_LOOKS` has (BGR 0..1,
    covering the slab as :func:`vision.synth.looks.board_texture` does), with the same points:
    any colours, lines of any width, points marked by dots, rings or nothing, no lettering."""
    half = board_half_mm(spec)
    n = int(round(2 * half * ppm))
    dark_ink = rng.random() < 0.6
    img = np.empty((n, n, 3), np.uint8)
    img[:] = _colour(rng, (0.7, 1.0) if dark_ink else (0.15, 0.45))
    ink = _colour(rng, (0.0, 0.35) if dark_ink else (0.8, 1.0))

    def px(xy: tuple[float, float]) -> tuple[int, int]:
        return int(round((xy[0] + half) * ppm * 16)), int(round((half - xy[1]) * ppm * 16))

    width = lambda mm: max(1, int(round(mm * ppm)))  # noqa: E731 - tiny local helper
    outline = np.array([px(c) for c in board_outline_mm(kind, spec)], np.int32)
    if kind == "hex":
        pos = hex_geometry().positions_mm(spec)
        line = rng.uniform(0.8, 3.0)
        for a, b in hex_lines():
            cv2.line(img, px(pos[a]), px(pos[b]), ink, width(line), cv2.LINE_AA, 4)
        mark, size = rng.choice(["dot", "ring", "none"]), rng.uniform(3.0, 8.0)
        for xy in pos.values():
            if mark != "none":
                cv2.circle(img, px(xy), int(size * ppm * 16), ink, -1 if mark == "dot" else width(line), cv2.LINE_AA, 4)
        if rng.random() < 0.7:
            cv2.polylines(img, [outline], True, ink, width(rng.uniform(1.0, 4.0)), cv2.LINE_AA, 4)
    else:
        c = spec.cell_mm
        light, dark = _colour(rng, (0.65, 1.0)), _colour(rng, (0.1, 0.5))
        for row in range(10):
            for col in range(10):
                x0, y0 = -5 * c + col * c, -5 * c + row * c
                quad = np.array([px((x0, y0)), px((x0 + c, y0)), px((x0 + c, y0 + c)), px((x0, y0 + c))], np.int32)
                cv2.fillPoly(img, [quad], dark if (col + row) % 2 == 0 else light, cv2.LINE_AA, 4)
        if rng.random() < 0.4:
            for k in range(11):
                t = -5 * c + k * c
                for a, b in (((t, -5 * c), (t, 5 * c)), ((-5 * c, t), (5 * c, t))):
                    cv2.line(img, px(a), px(b), ink, width(rng.uniform(0.5, 1.5)), cv2.LINE_AA, 4)
    return cv2.GaussianBlur(img.astype(np.float32) / 255.0, (0, 0), 0.25 * ppm)


def pinhole(pose: BoardPose) -> BoardPose:
    """The same placement seen by a camera POV-Ray can model: no lens distortion, square pixels
    and the principal point in the middle of the picture."""
    w, h = pose.camera.image_size
    K = pose.camera.K.copy()
    K[0, 2], K[1, 2], K[1, 1] = (w - 1) / 2, (h - 1) / 2, K[0, 0]
    return replace(pose, camera=CameraModel(K, np.zeros(5), (w, h)))


def camera_view(pose: BoardPose) -> tuple[np.ndarray, np.ndarray, tuple[int, int], float]:
    """What a renderer needs to place a :func:`pinhole` camera: its axes (rows: right, down and
    forward, board frame), its centre (mm), the picture's size (px) and the focal length (px)."""
    R, _ = cv2.Rodrigues(pose.rvec)
    return R, pose.camera_position_mm(), pose.camera.image_size, float(pose.camera.K[0, 0])


def pinhole_scene(game: str, rng: np.random.Generator, size: tuple[int, int] | None, rig: RigRange,
                  spec: BoardSpec = DEFAULT_SPEC) -> Scene:
    """A random scene of ``game`` (:func:`vision.synth.scene.random_scene`; ``spec``: the board
    and discs) seen by its camera's :func:`pinhole`."""
    scene = random_scene(game, rng, size=size, rig=rig, spec=spec)
    return replace(scene, pose=pinhole(scene.pose))


def write_still(stem: Path, scene: Scene, image: np.ndarray, rng: np.random.Generator) -> None:
    """``stem``.jpg (at a random quality, as cameras save them) and its truth, ``stem``.json,
    as ``tacticblue scenes render`` writes them; the name is printed."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 96))])
    stem.with_suffix(".jpg").write_bytes(data.tobytes())
    stem.with_suffix(".json").write_text(json.dumps(scene_truth(scene), indent=1) + "\n")
    print(stem.name, flush=True)


def meter(linear: np.ndarray, rng: np.random.Generator, gain: float) -> None:
    """Expose a path traced picture (H x W x 3, linear light) in place as a camera metering the
    frame does: scaled so that a random share near the brightest of it (the 97-99.5th
    percentile of the luminance) comes to ``gain`` (below 1: just short of white), then white
    balanced at random (each channel 0.94-1.06).  In place, so that a float32 picture stays one."""
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
    linear *= gain / max(float(np.percentile(luminance, rng.uniform(97.0, 99.5))), 1e-6)
    linear *= rng.uniform(0.94, 1.06, 3)  # white balance


def with_sensor_noise(display: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A display picture (BGR, 0..1) as 8 bits with a sensor's noise (sigma 0.5-2.5 levels)."""
    picture = display * 255 + rng.normal(0, rng.uniform(0.5, 2.5), display.shape)
    return np.clip(picture, 0, 255).astype(np.uint8)


Renderer = Callable[[Scene, np.random.Generator, Path, bool], np.ndarray]
"""A renderer of a still: scene, its random generator, a folder for textures, ``--foreign-print``."""


def render_stills(description: str, render: Renderer, default_seed: int, needs: str, install: str) -> None:
    """The command line of tools/mitsuba_scenes.py and tools/blender_scenes.py, one for both so
    that their flags, names and truth stay the same: ``--game --count --seed --first --size
    --foreign-print --elevation --discs --out``; scene ``i`` of ``--seed`` is drawn by
    :func:`vision.synth.scene.sample_rng`, seen by a :func:`pinhole`, drawn by ``render`` and
    written as ``GAME-SEED-IIII`` (:func:`write_still`).  Exits saying how to ``install`` it
    when the module ``needs`` cannot be imported."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--game", required=True, choices=game_names())
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=default_seed)
    parser.add_argument("--first", type=int, default=0, help="the index of the first scene")
    parser.add_argument("--size", type=frame_size, default=(1280, 720), metavar="WxH", help="default 1280x720")
    parser.add_argument("--foreign-print", action="store_true",
                        help="print the board in a random style of tools/povray_scenes.py's own")
    parser.add_argument("--elevation", type=elevation_range, metavar="LO-HI",
                        help="only cameras LO-HI degrees above the table, as for tacticblue scenes render")
    parser.add_argument("--discs", type=disc_size, metavar="DxT", help=DISCS_HELP)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    try:
        importlib.import_module(needs)
    except ImportError:
        sys.exit(f"{needs} is not installed ({install})")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.first, args.first + args.count):
            rng = sample_rng(args.game, args.seed, i)
            scene = pinhole_scene(args.game, rng, args.size, rig_at(args.elevation), DEFAULT_SPEC.with_discs(args.discs))
            image = render(scene, rng, Path(tmp), args.foreign_print)
            write_still(out / f"{args.game}-{args.seed}-{i:04d}", scene, image, rng)


DISCS_HELP = "discs of this diameter and thickness in millimetres (default: the box's, 29x7)"


def scene_source(scene: Scene, rng: np.random.Generator, textures: Path, foreign: bool = False) -> str:
    """The POV-Ray source of a scene whose camera is a :func:`pinhole` (textures are written to
    ``textures``); ``foreign``: the board printed in a :func:`foreign_print`."""
    spec, light = scene.spec, scene.lighting
    R, centre, (w, h), f = camera_view(scene.pose)
    half = board_half_mm(spec)
    look = PIECE_LOOKS[scene.piece_look]
    # POV-Ray's screen runs from -1/2 to 1/2 over the picture's outer pixel edges, up is up.
    out = ["#version 3.7;", "global_settings { assumed_gamma 1.0 max_trace_level 8 }",
           f"camera {{ perspective location {_v(*centre)} direction {_v(*(f * R[2]))} "
           f"right {_v(*(w * R[0]))} up {_v(*(-h * R[1]))} }}"]
    size = 2 * light.lamp_size_mm
    out.append(f"light_source {{ {_v(*light.lamp_mm)} color {_rgb(light.lamp_colour)} * {1.15 * (1 - light.ambient):.3f} "
               f"area_light {_v(size, 0, 0)}, {_v(0, size, 0)}, 5, 5 adaptive 1 jitter circular orient }}")
    out.append(f"light_source {{ {_v(0, 0, 3000)} color {_rgb(light.ambient_colour)} * {0.8 * light.ambient:.3f} "
               f"area_light {_v(2500, 0, 0)}, {_v(0, 2500, 0)}, 4, 4 adaptive 0 jitter shadowless }}")
    if rng.random() < 0.3:  # a second lamp: a second, fainter shadow
        az, el, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.5, 1.4), rng.uniform(800, 2000)
        lamp = dist * np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
        out.append(f"light_source {{ {_v(*lamp)} color rgb {rng.uniform(0.15, 0.4):.3f} "
                   f"area_light {_v(60, 0, 0)}, {_v(0, 60, 0)}, 3, 3 adaptive 1 jitter circular orient }}")
    ambient = 0.35 * light.ambient
    out.append(f"background {{ color {_rgb(light.room, 2.2)} }}")
    board, table = print_textures(scene, rng, textures, foreign)
    out.append(f"box {{ <{-half}, {-BOARD_THICKNESS_MM}, {-half}>, <{half}, 0, {half}> texture {{ "
               f'pigment {{ image_map {{ png "{board}" gamma 2.2 interpolate 2 }} rotate x*90 scale {2 * half} translate <{-half}, 0, {-half}> }} '
               f"finish {{ ambient {ambient:.3f} diffuse 0.85 specular {rng.uniform(0, 0.2):.3f} roughness 0.05 }} }} }}")
    out.append(f"plane {{ y, {-BOARD_THICKNESS_MM} texture {{ "
               f'pigment {{ image_map {{ png "{table}" gamma 2.2 interpolate 2 }} rotate x*90 scale {2 * TABLE_HALF_MM} '
               f"translate <{-TABLE_HALF_MM}, 0, {-TABLE_HALF_MM}> }} finish {{ ambient {ambient:.3f} diffuse 0.8 }} }} }}")
    r, t = spec.piece_diameter_mm / 2, spec.piece_height_mm
    e = rng.uniform(0.3, 2.0)  # how round the discs' edges are (mm)
    ring = rng.choice(["none", "raised", "engraved"])
    ring_r = rng.uniform(0.55, 0.8) * r
    body = (f"merge {{ cylinder {{ <0, {e}, 0>, <0, {t - e}, 0>, {r} }} cylinder {{ <0, 0, 0>, <0, {t}, 0>, {r - e} }} "
            f"torus {{ {r - e}, {e} translate y*{e} }} torus {{ {r - e}, {e} translate y*{t - e} }} }}")
    if ring == "raised":
        body = f"union {{ {body} torus {{ {ring_r:.3f}, 0.4 translate y*{t - 0.15} }} }}"
    elif ring == "engraved":
        body = f"difference {{ {body} torus {{ {ring_r:.3f}, 0.4 translate y*{t + 0.1} }} }}"
    finish = (f"finish {{ ambient {ambient:.3f} diffuse {rng.uniform(0.7, 0.9):.3f} "
              f"specular {look.gloss * rng.uniform(0.3, 1.3):.3f} roughness {rng.uniform(0.005, 0.1):.4f} }}")
    colours = {"w": np.clip(np.array(look.white) * rng.uniform(0.9, 1.08, 3), 0, 1),
               "b": np.clip(np.array(look.black) + rng.uniform(0, 0.08) + rng.uniform(-0.02, 0.02, 3), 0, 1)}
    out.append(f"#declare DiscBody = {body};")
    for c, bgr in colours.items():
        out.append(f"#declare Disc_{c} = texture {{ pigment {{ color {_rgb(bgr, 2.2)} }} {finish} }};")
    for d in stack_discs(scene):
        out.append(f"object {{ DiscBody texture {{ Disc_{d.colour} }} translate {_v(d.x, d.y, d.z)} }}")
    return "\n".join(out) + "\n"


def render(scene: Scene, rng: np.random.Generator, textures: Path, foreign: bool = False) -> np.ndarray:
    """The 8-bit BGR picture POV-Ray traces of a scene with a :func:`pinhole` camera, noise
    added (``foreign``: see :func:`scene_source`)."""
    w, h = scene.pose.camera.image_size
    with tempfile.TemporaryDirectory() as tmp:
        source, picture = Path(tmp) / "scene.pov", Path(tmp) / "scene.png"
        source.write_text(scene_source(scene, rng, textures, foreign))
        run = subprocess.run(["povray", f"+I{source}", f"+O{picture}", f"+W{w}", f"+H{h}", "+A0.1", "+AM2", "+R2",
                              "-D", "+Q9", "Display_Gamma=2.2", "File_Gamma=2.2", "+WT1"], capture_output=True, text=True)
        if run.returncode:
            raise RuntimeError(f"povray failed: {run.stderr.strip().splitlines()[-1]}")
        image = cv2.imread(str(picture)).astype(np.float32)
    image *= rng.uniform(0.92, 1.08, 3) * rng.uniform(0.85, 1.1)  # white balance and exposure
    image += rng.normal(0, rng.uniform(0.5, 3.0), image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def render_film(game: str, seed: int, plies: int, size: tuple[int, int] | None, textures: Path,
                rig: RigRange = DEFAULT_RIG, foreign: bool = False, spec: BoardSpec = DEFAULT_SPEC
                ) -> tuple[dict[str, Any], list[np.ndarray]]:
    """A random game of up to ``plies`` turns (:func:`vision.synth.video.game_plies`) traced as a
    time-lapse: one camera, board, lamp and set of discs (``spec``), one picture per position
    (``foreign``: see :func:`scene_source`).  The header is the truth
    :func:`vision.synth.video.render_video` gives a film (game, camera, turns, positions)."""
    board, turns = game_plies(game, None, plies, seed)
    rng = np.random.default_rng([seed, 31])
    scene = random_scene(game, rng, points=board.visible(), size=size, top_down=False, rig=rig, spec=spec)
    scene = replace(scene, pose=pinhole(scene.pose))
    looks = int(rng.integers(2**31))  # the materials, lamps and exposure: the same in every picture
    positions = [board.visible()]
    for turn in turns:
        board.push(turn)
        positions.append(board.visible())
    images = [render(replace(scene, points=p), np.random.default_rng(looks), textures, foreign) for p in positions]
    return {"game": game, "camera": camera_truth(scene.pose), "turns": board.notations(), "positions": positions}, images


def write_time_lapse(images: list[np.ndarray], video: Path, fps: float = 5.0, hold_s: float = 2.0, seed: int = 0) -> None:
    """An MPEG-4 part 2 film that shows each picture for ``hold_s`` seconds (the first twice as
    long, as a camera is started before the game), each frame with sensor noise of its own,
    and cuts from one to the next as a time-lapse camera does (no hand between)."""
    rng = np.random.default_rng(seed)
    h, w = images[0].shape[:2]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    if not writer.isOpened():
        raise OSError(f"cannot write video {video}")
    try:
        for k, image in enumerate(images):
            for _ in range(round(hold_s * fps * (2 if k == 0 else 1))):
                writer.write(np.clip(image + rng.normal(0, 1.5, image.shape), 0, 255).astype(np.uint8))
    finally:
        writer.release()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=game_names())
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=901)
    parser.add_argument("--first", type=int, default=0, help="the index of the first scene")
    parser.add_argument("--size", type=frame_size, metavar="WxH",
                        help="default: 1280x720, 1600x900 or 1920x1080 at random")
    parser.add_argument("--foreign-print", action="store_true",
                        help="print the board in a random style of this tool's own, not one of the renderer's looks")
    parser.add_argument("--elevation", type=elevation_range, metavar="LO-HI",
                        help="only cameras LO-HI degrees above the table, as for tacticblue scenes render")
    parser.add_argument("--discs", type=disc_size, metavar="DxT", help=DISCS_HELP)
    parser.add_argument("--film", type=int, metavar="PLIES",
                        help="write time-lapse films of random games of PLIES turns instead (NAME.mp4, truth NAME.json)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.film is not None and args.film < 1:
        parser.error("--film must be at least 1")
    if shutil.which("povray") is None:
        sys.exit("povray is not installed (apt-get install povray)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    textures = out / ".textures"
    textures.mkdir(exist_ok=True)
    rig, spec = rig_at(args.elevation), DEFAULT_SPEC.with_discs(args.discs)
    for i in range(args.first, args.first + args.count):
        rng = sample_rng(args.game, args.seed, i)
        name = f"{args.game}-{args.seed}-{i:04d}"
        if args.film:
            header, images = render_film(args.game, int(rng.integers(2**31)), args.film, args.size, textures, rig,
                                         args.foreign_print, spec)
            write_time_lapse(images, out / f"{name}.mp4", seed=i)
            (out / f"{name}.json").write_text(json.dumps(header, indent=1) + "\n")
            print(name, flush=True)
            continue
        scene = pinhole_scene(args.game, rng, args.size, rig, spec)
        write_still(out / name, scene, render(scene, rng, textures, args.foreign_print), rng)


if __name__ == "__main__":
    main()
