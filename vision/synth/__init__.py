"""A synthetic camera: photo-like images and videos of the tactic blue board with exact ground truth.

Nobody develops vision in front of the physical board, so this package is the
project's camera: it renders the board, its stacks and a player's hand in true 3-D
perspective through OpenCV's camera model (:mod:`calibration.camera`), with the
lighting and faults of real photos, and records what is really there.

Entry points: :func:`random_scene` / :func:`render_image` / :func:`scene_truth` for
single images, :func:`render_samples` for reproducible sets.
"""

from vision.synth.games import game_info, game_names, random_position  # noqa: F401
from vision.synth.photo import PhotoLook, develop, jpeg, random_photo_look  # noqa: F401
from vision.synth.render import Capsule, Disc, Lighting, Scene, moving_region, render_linear  # noqa: F401
from vision.synth.rig import random_camera, random_pose  # noqa: F401
from vision.synth.scene import (  # noqa: F401
    Sample, camera_truth, contact_sheet, pose_from_truth, random_lighting, random_scene, render_image, render_samples,
    sample_rng, scene_truth,
)
