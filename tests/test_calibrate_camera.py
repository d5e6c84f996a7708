"""Camera intrinsics: OpenCV's own real calibration photos (as photos, as a film and as a
camera streaming them), and a ChArUco pattern."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import ROOT, ctrl_c_as_in_a_terminal, one_line_error
from stream_camera import StreamCamera

from calibration.camera import CameraModel, look_at_pose
from calibration.intrinsics import calibrate_camera, charuco_board, parse_pattern

OPENCV_DATA = Path("/usr/share/doc/opencv-doc/examples/data")


@pytest.fixture(scope="module")
def left_photos() -> list[Path]:
    photos = sorted(OPENCV_DATA.glob("left[0-9][0-9].jpg"))
    if len(photos) < 13 or not (OPENCV_DATA / "left_intrinsics.yml").is_file():
        pytest.skip("SKIPPED LOUDLY: OpenCV's calibration photos are missing: install Debian's opencv-doc "
                    "(./setup.sh does, from tools/apt-packages.txt)")
    return photos


def test_intrinsics_from_opencvs_real_photos_match_opencvs_reference(cli, left_photos, tmp_path):
    out = tmp_path / "camera.json"
    r = cli("calibrate", "camera", *left_photos, "--pattern", "chessboard:9x6", "--square-mm", "25",
            "--json", "-o", out)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    ref = cv2.FileStorage(str(OPENCV_DATA / "left_intrinsics.yml"), cv2.FILE_STORAGE_READ)
    K_ref = ref.getNode("camera_matrix").mat()
    K = np.array(got["K"])
    assert got["image_size"] == [640, 480]
    assert got["images_used"] == 13  # as many views as OpenCV's reference used
    assert K[0, 0] == pytest.approx(K_ref[0, 0], rel=0.01) and K[1, 1] == pytest.approx(K_ref[1, 1], rel=0.01)
    assert np.allclose(K[:2, 2], K_ref[:2, 2], atol=3.0)
    assert got["rms"] == pytest.approx(ref.getNode("avg_reprojection_error").real(), abs=0.05)
    assert np.allclose(got["dist"][:2], ref.getNode("distortion_coefficients").mat().ravel()[:2], atol=0.03)
    assert CameraModel.from_dict(json.loads(out.read_text())).image_size == (640, 480)
    # The text report names the figures a user needs.
    r = cli("calibrate", "camera", *left_photos[:5], "--pattern", "chessboard:9x6")
    assert r.returncode == 0 and "RMS reprojection error" in r.stdout
    # A folder of the photos (and a file that is none) is read as the photos.
    (tmp_path / "photos").mkdir()
    for photo in left_photos:
        (tmp_path / "photos" / photo.name).symlink_to(photo)
    (tmp_path / "photos" / "notes.txt").write_text("taken with the phone")
    r = cli("calibrate", "camera", tmp_path / "photos", "--pattern", "chessboard:9x6", "--json")
    assert r.returncode == 0 and np.allclose(json.loads(r.stdout)["K"], got["K"]), r.stderr


def reference_camera() -> tuple[np.ndarray, float]:
    """OpenCV's own fit to its photos: K and the mean reprojection error."""
    ref = cv2.FileStorage(str(OPENCV_DATA / "left_intrinsics.yml"), cv2.FILE_STORAGE_READ)
    return ref.getNode("camera_matrix").mat(), ref.getNode("avg_reprojection_error").real()


def film(photos: list[Path], path: Path, held: int = 6, moving: int = 3, scale: float = 1.0) -> Path:
    """A film (MPEG-4, 10 frames a second) of ``photos``, each held for ``held`` frames, and
    blurred for ``moving`` frames before and after, as a hand moving the pattern blurs it
    (sideways, over 9 pixels: OpenCV still finds its corners, up to 3 pixels off); ``scale``:
    each photo shrunk by it into the middle of the frame, as a camera far from the pattern sees it."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10, (640, 480))
    for photo in photos:
        image = cv2.imread(str(photo))
        if scale != 1.0:
            shrink = np.array([[scale, 0, 320 * (1 - scale)], [0, scale, 240 * (1 - scale)]])
            image = cv2.warpAffine(image, shrink, (640, 480), borderValue=(128, 128, 128))
        blurred = cv2.filter2D(image, -1, np.full((1, 9), 1 / 9))
        for frame in [blurred] * moving + [image] * held + [blurred] * moving:
            writer.write(frame)
    writer.release()
    return path


def test_intrinsics_from_a_film_of_the_pattern_match_opencvs_reference(cli, left_photos, tmp_path):
    """A film of the pattern held still at each place, moved blurred between: one view of
    each place is taken, the sharpest looked at (the film's 156 frames are looked at every
    0.2 s), and the camera comes out as from the photos."""
    out = cli("calibrate", "camera", film(left_photos, tmp_path / "pattern.mp4"), "--pattern", "chessboard:9x6",
              "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    K_ref, rms_ref = reference_camera()
    assert got["images_used"] == 13 and len({name.split(" at ")[1] for name in got["used"]}) == 13
    assert got["K"][0][0] == pytest.approx(K_ref[0, 0], rel=0.01)
    assert np.allclose(np.array(got["K"])[:2, 2], K_ref[:2, 2], atol=3.0)
    assert got["rms"] == pytest.approx(rms_ref, abs=0.05) and got["advice"] == []
    out = cli("calibrate", "camera", tmp_path / "pattern.mp4", "--pattern", "chessboard:9x6", "--views", "5")
    assert out.returncode == 0, out.stderr
    assert f"video {tmp_path / 'pattern.mp4'}: 5 views of " in out.stdout and "over 5 views" in out.stdout


def test_views_that_keep_to_the_middle_of_the_picture_are_fitted_and_the_user_advised(cli, left_photos, tmp_path):
    """The pattern held far from the camera, seen only in the middle of the picture: the
    lens's distortion near the edges, where much of the board will be, is guessed, and the
    user is told to hold it near the edges too."""
    out = cli("calibrate", "camera", film(left_photos, tmp_path / "far.mp4", scale=0.5), "--pattern",
              "chessboard:9x6")
    assert out.returncode == 0, out.stderr
    assert ("advice: the pattern was seen in 25% of the picture: the lens's distortion near its edges is guessed; "
            "hold it near the edges and corners too, and calibrate again") in out.stdout.splitlines()


def test_a_camera_streaming_the_pattern_gives_views_until_enough_or_ctrl_c(left_photos):
    """A camera on the network (MJPEG over HTTP, as phones' webcam apps serve it) filming the
    pattern moved about: views are taken until there are --views of them, and the camera let
    go; or, with Ctrl-C, the views taken so far are fitted."""
    frames = [cv2.imencode(".jpg", cv2.imread(str(p)))[1].tobytes() for p in left_photos for _ in range(4)]
    camera = StreamCamera(frames, fps=20)
    out = subprocess.run([sys.executable, "-m", "tacticblue", "calibrate", "camera", camera.url, "--pattern",
                          "chessboard:9x6", "--views", "6", "--json"], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["images_used"] == 6
    assert "hold the pattern before it" in out.stderr and "view 6 taken" in out.stderr
    assert camera.sent < len(frames)  # it stopped watching once it had them
    camera.close()
    camera = StreamCamera(frames, fps=4)
    run = subprocess.Popen([sys.executable, "-m", "tacticblue", "calibrate", "camera", camera.url, "--pattern",
                            "chessboard:9x6", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, preexec_fn=ctrl_c_as_in_a_terminal)
    told = []
    while not any(line.startswith("view 4 taken") for line in told):
        told.append(run.stderr.readline())
        assert told[-1], "".join(told)
    run.send_signal(signal.SIGINT)
    stdout, _ = run.communicate(timeout=30)
    camera.close()
    assert run.returncode == 0
    assert json.loads(stdout)["images_used"] >= 4


def test_a_film_without_enough_views_of_the_pattern_is_one_clear_line(cli, left_photos, tmp_path):
    still = film(left_photos[:1], tmp_path / "still.mp4", held=30, moving=0)
    line = one_line_error(cli("calibrate", "camera", still, "--pattern", "chessboard:9x6"))
    assert line.endswith("the chessboard pattern was found in 15 of 15 pictures, 1 of them views unlike each "
                         "other: need at least 3 views (hold it at other places, distances and tilts)")
    blank = tmp_path / "blank.mp4"
    writer = cv2.VideoWriter(str(blank), cv2.VideoWriter_fourcc(*"mp4v"), 10, (640, 480))
    for _ in range(20):
        writer.write(np.full((480, 640, 3), 128, np.uint8))
    writer.release()
    line = one_line_error(cli("calibrate", "camera", blank, "--pattern", "chessboard:9x6"))
    assert line.endswith("the chessboard pattern was found in 0 of 10 pictures: need at least 3 views (hold it at "
                         "other places, distances and tilts)")
    big = tmp_path / "big.png"
    cv2.imwrite(str(big), np.full((720, 1280), 128, np.uint8))
    line = one_line_error(cli("calibrate", "camera", big, still, "--pattern", "chessboard:9x6"))
    assert line.endswith(f"{still} at 0.0 s: image size 640x480 differs from 1280x720")
    (tmp_path / "notes.txt").write_text("not a film")
    line = one_line_error(cli("calibrate", "camera", tmp_path / "notes.txt", "--pattern", "chessboard:9x6"))
    assert line.endswith(f"cannot open video {tmp_path / 'notes.txt'} (not a video OpenCV can decode)")
    line = one_line_error(cli("calibrate", "camera", tmp_path / "gone.mp4", "--pattern", "chessboard:9x6"))
    assert line.endswith(f"no such video file: {tmp_path / 'gone.mp4'}")
    line = one_line_error(cli("calibrate", "camera", still, "--pattern", "chessboard:9x6", "--views", "2"))
    assert "views must be 3..200" in line


def test_charuco_pattern_recovers_a_known_camera(tmp_path):
    pattern = parse_pattern("charuco:7x5")
    board = charuco_board(pattern, 30.0, 22.0)
    flat = board.generateImage((1400, 1000), marginSize=0)  # 200 px per 30 mm square
    cam = CameraModel.from_fov((1280, 720), 65)
    paths = []
    views = [(0, -300, 500), (250, -250, 450), (-250, -200, 500), (100, -400, 350), (-150, 50, 600)]
    for i, eye in enumerate(views):
        pose = look_at_pose(cam, eye, "square", roll_deg=10 * i)
        # board image pixel (u, v) -> board mm (u, v) * 30/200, then into the camera (centred target)
        corners_mm = np.array([[-105, -75], [105, -75], [105, 75], [-105, 75]], float)
        src = np.array([[0, 0], [1400, 0], [1400, 1000], [0, 1000]], np.float32)
        dst = pose.project(corners_mm * [1, -1]).astype(np.float32)
        H = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(flat, H, cam.image_size, borderValue=200)
        paths.append(tmp_path / f"view{i}.png")
        cv2.imwrite(str(paths[-1]), img)
    result = calibrate_camera(paths, pattern, 30.0, 22.0)
    assert len(result.used) == 5
    assert result.camera.K[0, 0] == pytest.approx(cam.K[0, 0], rel=0.02)
    assert result.rms < 1.0


def test_bad_calibration_input_gives_one_clear_line(cli, tmp_path):
    r = cli("calibrate", "camera", "x.jpg", "--pattern", "chess:9")
    assert r.returncode == 2 and "pattern must look like" in r.stderr
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640), 128, np.uint8))
    r = cli("calibrate", "camera", blank, blank, blank, "--pattern", "chessboard:9x6")
    assert r.returncode == 2 and "found in 0 of 3 images" in r.stderr
    r = cli("calibrate", "camera", tmp_path / "missing.jpg", "--pattern", "chessboard:9x6")
    assert r.returncode == 2 and "no such image" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("option, value, message", [
    ("--square-mm", "0", "--square-mm: must be a length in mm above 0"),
    ("--square-mm", "-25", "--square-mm: must be a length in mm above 0"),
    ("--square-mm", "nan", "--square-mm: must be a length in mm above 0"),
    ("--square-mm", "inf", "--square-mm: must be a length in mm above 0"),
    ("--marker-mm", "0", "--marker-mm: must be a length in mm above 0"),
    ("--marker-mm", "30", "--marker-mm must be less than --square-mm"),
])
def test_a_pattern_size_that_is_no_length_is_one_clear_line(cli, left_photos, tmp_path, option, value, message):
    """A square of 0 mm fitted a camera 128 px off and wrote it; nan, inf or a ChArUco marker
    as large as its square stopped in an OpenCV assertion."""
    pattern = "charuco:7x5" if option == "--marker-mm" else "chessboard:9x6"
    r = cli("calibrate", "camera", *left_photos[:5], "--pattern", pattern, "--square-mm", "25", option, value,
            "-o", tmp_path / "camera.json")
    one_line_error(r)
    assert message in r.stderr
    assert not (tmp_path / "camera.json").exists()


def test_a_camera_file_for_another_frame_size_is_one_clear_line(cli, tmp_path):
    """calibrate board assumed the camera was for the picture's size: a 640x480 webcam's file
    used on a 1600x900 photo said 'board not found: no consistent pose for the grid'."""
    camera = tmp_path / "camera.json"
    camera.write_text(json.dumps({"K": [[540, 0, 319.5], [0, 540, 239.5], [0, 0, 1]], "dist": [0, 0, 0, 0, 0],
                                  "image_size": [640, 480]}))
    photo = Path(__file__).resolve().parents[1] / "samples" / "reading" / "accasta-tall.jpg"
    r = cli("calibrate", "board", photo, "--game", "accasta", "--camera", camera, "-o", tmp_path / "board.json")
    w, h = cv2.imread(str(photo)).shape[1::-1]
    one_line_error(r)
    assert f"{camera}: the camera was calibrated at 640x480, but the picture is {w}x{h}" in r.stderr
    assert not (tmp_path / "board.json").exists()
