"""The board calibration file: round trip, and a clear error for every kind of bad file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.board_file import BoardCalibration, CalibrationFileError, load_calibration
from calibration.camera import CameraModel, look_at_pose


@pytest.fixture
def calib() -> BoardCalibration:
    pose = look_at_pose(CameraModel.from_fov((1280, 720), 60), (100, -600, 500), "hex")
    return BoardCalibration(pose, "accasta", "near", "auto", False)


def test_round_trip_keeps_the_pose(calib, tmp_path):
    path = tmp_path / "board.json"
    calib.save(path)
    again = load_calibration(path, kind="hex", image_size=(1280, 720))
    pts = np.array([[0, 0, 0], [100, 50, 0], [-120, 80, 14]], float)
    assert np.allclose(again.pose.project(pts), calib.pose.project(pts))
    assert again.game == "accasta" and again.white_side == "near"
    assert json.loads(path.read_text())["version"] == 1


@pytest.mark.parametrize("damage, message", [
    (lambda text: text[: len(text) // 2], "truncated"),
    (lambda text: text.replace('"rvec"', '"rvec" ]]'), "corrupt"),
    (lambda text: "", "empty"),
    (lambda text: text.replace('"version": 1', '"version": 7'), "version 7 is not supported"),
    (lambda text: text.replace('"format": "tacticblue-board-calibration"', '"format": "x"'), "not a tacticblue"),
    (lambda text: text.replace('"kind": "hex"', '"kind": "square"', 1), "says board 'square'"),
    (lambda text: text.replace('"rvec"', '"rvecs"'), "no valid pose"),
])
def test_damaged_files_give_a_clear_error(calib, tmp_path, damage, message):
    path = tmp_path / "board.json"
    calib.save(path)
    path.write_text(damage(path.read_text()))
    with pytest.raises(CalibrationFileError, match=message):
        load_calibration(path)


def test_wrong_board_or_frame_size_is_refused(calib, tmp_path):
    path = tmp_path / "board.json"
    calib.save(path)
    with pytest.raises(CalibrationFileError, match="for the hex board, not the square board"):
        load_calibration(path, kind="square")
    with pytest.raises(CalibrationFileError, match="calibrated at 1280x720, but the frames are 640x480"):
        load_calibration(path, image_size=(640, 480))


def test_show_with_a_corrupt_file_is_one_clear_line(cli, calib, tmp_path):
    import cv2

    path, image = tmp_path / "board.json", tmp_path / "frame.png"
    cv2.imwrite(str(image), np.zeros((720, 1280, 3), np.uint8))
    calib.save(path)
    path.write_bytes(path.read_bytes()[:100])
    r = cli("calibrate", "show", image, "--calibration", path, "-o", tmp_path / "o.png")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "calibration file is truncated" in r.stderr


def test_show_to_a_name_without_a_picture_suffix_is_one_clear_line(cli, calib, tmp_path):
    import cv2

    path, image = tmp_path / "board.json", tmp_path / "frame.png"
    cv2.imwrite(str(image), np.zeros((720, 1280, 3), np.uint8))
    calib.save(path)
    r = cli("calibrate", "show", image, "--calibration", path, "-o", tmp_path / "overlay.txt")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "overlay.txt: cannot write the overlay (use a .png or .jpg name)" in r.stderr


@pytest.mark.parametrize("where", ["under a file", "a folder"])
def test_a_calibration_that_cannot_be_written_names_the_users_path(calib, tmp_path, where):
    """Writing goes through a temporary file renamed over the target: the error named that
    internal 'board.json.tmp' instead of the path the user gave, and left it behind."""
    (tmp_path / "file").write_text("")
    (tmp_path / "folder").mkdir()
    path = tmp_path / "file" / "board.json" if where == "under a file" else tmp_path / "folder"
    with pytest.raises(OSError) as e:
        calib.save(path)
    assert str(e.value).startswith(f"{path}: cannot write (") and ".tmp" not in str(e.value)
    assert not list(tmp_path.glob("**/*.tmp"))


def test_calibrate_board_to_a_path_under_a_file_is_one_line_naming_it(cli, tmp_path):
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "b.json"
    r = cli("calibrate", "board", "samples/finding/accasta-4-0000.jpg", "--game", "accasta", "-o", out)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert r.stderr.strip() == f"tacticblue calibrate: error: {out}: cannot write (Not a directory)"
