"""Camera models and board poses: where the board's points are in an image."""

from calibration.camera import BoardPose, CameraModel  # noqa: F401
