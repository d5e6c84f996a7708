"""The shared camera model and board pose."""

import numpy as np
import pytest

from calibration.camera import BoardPose, CameraModel, look_at_pose
from rules.geometry import hex_geometry


def test_look_at_pose_puts_the_target_at_the_image_centre_and_white_at_the_bottom():
    cam = CameraModel.from_fov((1280, 720), 60)
    pose = look_at_pose(cam, (0, -600, 500), "hex")
    centre = pose.project(np.array([[0.0, 0.0, 0.0]]))[0]
    assert np.allclose(centre, [639.5, 359.5], atol=1e-6)
    px = pose.point_pixels(hex_geometry())
    assert px["a1"][1] > px["g1"][1]  # White's row a is nearer the camera: lower in the image
    assert px["d1"][0] < px["d7"][0]  # d1 is White's left
    assert pose.elevation_deg() == pytest.approx(np.degrees(np.arctan2(500, 600)))


def test_pose_round_trips_through_json_and_rejects_bad_files():
    pose = look_at_pose(CameraModel.from_fov((1920, 1080), 70), (300, -500, 600), "square")
    again = BoardPose.from_dict(pose.to_dict())
    assert np.allclose(again.project(np.eye(3) * 100), pose.project(np.eye(3) * 100))
    with pytest.raises(ValueError, match="kind"):
        BoardPose.from_dict({**pose.to_dict(), "kind": "round"})
    with pytest.raises(ValueError, match="needs"):
        BoardPose.from_dict({"camera": pose.camera.to_dict()})
    with pytest.raises(ValueError, match="distortion"):
        CameraModel(np.eye(3), [0.1, 0.2], (640, 480))
