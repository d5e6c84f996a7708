"""Where stacks really stand (vision.placement) on rendered scenes, against the renderer's
own disc positions: hands put every stack up to 2-3 mm off its point."""

from __future__ import annotations

import numpy as np
import pytest

import rules
from vision.heights import height_model, read_heights
from vision.stacks import FrameSamples, StackModel
from vision.synth.render import stack_discs
from vision.synth.scene import random_scene, render_image, sample_rng
from vision.synth.photo import random_photo_look


def offset_errors(game: str, seed: int, count: int) -> tuple[list[float], list[float]]:
    """Per stack of ``count`` rendered scenes: how far the found offset is from the top disc's
    real one, and how far the top disc is from its point (mm)."""
    found, off = [], []
    for index in range(count):
        rng = sample_rng(game, seed, index)
        scene = random_scene(game, rng, size=(1280, 720), top_down=False)
        image = render_image(scene, random_photo_look(rng), rng)
        model = StackModel(scene.pose, rules.GAMES[game].geometry, rules.GAMES[game].max_height)
        heights, _, _, offsets = read_heights(model, FrameSamples.of(model, image), height_model(game))
        discs = iter(stack_discs(scene))
        centres = rules.GAMES[game].geometry.positions_mm(scene.spec)
        for name, stack in scene.points.items():
            top = [next(discs) for _ in stack][-1:] if stack else []
            i = model.names.index(name)
            if top and heights[i] == len(stack):
                real = np.array([top[0].x, top[0].y]) - centres[name]
                found.append(float(np.hypot(*(offsets[i] - real))))
                off.append(float(np.hypot(*real)))
    return found, off


@pytest.mark.parametrize("game", ["accasta", "dame100"])
def test_stacks_are_found_where_they_stand_not_on_their_point(game):
    """The offsets found are nearer the truth than the points are.  Discs with rounded rims
    show a softer outline than sharp ones: on these six scenes the offsets found are 0.86 mm
    (Accasta) and 0.92 mm (Dame 100) off in the median, where the stacks stand 1.3 mm off their
    points (with the sharp rims the renderer drew before, under 0.6 of that on three scenes)."""
    found, off = offset_errors(game, seed=31, count=6)
    assert len(found) >= 60
    assert np.median(off) > 1.0  # the renderer does put stacks off their points
    assert np.median(found) < 0.8 * np.median(off), (np.median(found), np.median(off))
    assert np.percentile(found, 90) < 2.0
