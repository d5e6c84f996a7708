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


@pytest.mark.parametrize("coefficients", [4, 5, 8, 12])
def test_projection_is_opencvs(coefficients):
    """BoardPose.project writes OpenCV's camera model out (its Python binding always computes
    the Jacobian too); it must give OpenCV's pixels for every distortion model it handles."""
    import cv2

    rng = np.random.default_rng(coefficients)
    for _ in range(20):
        K = np.array([[rng.uniform(500, 1500), 0, rng.uniform(300, 900)], [0, rng.uniform(500, 1500), 360], [0, 0, 1]])
        camera = CameraModel(K, rng.normal(0, 0.1, coefficients), (1280, 720))
        pose = BoardPose(camera, rng.normal(0, 1, 3), [rng.normal(0, 50), rng.normal(0, 50), rng.uniform(400, 1500)],
                         "hex")
        pts = np.column_stack([rng.uniform(-250, 250, (300, 2)), rng.uniform(0, 40, 300)])
        want, _ = cv2.projectPoints(pts, pose.rvec, pose.tvec, K, camera.dist)
        want = want.reshape(-1, 2)
        got = pose.project(pts)
        near = (np.abs(want) < 1e4).all(axis=1)  # far outside the frame both are huge
        assert near.sum() > 100
        assert np.abs(got[near] - want[near]).max() < 1e-9
        assert np.allclose(got, want, rtol=1e-9, atol=1e-9)
