"""Fit the weights that turn outline evidence into a height (vision.stacks.HEIGHT_WEIGHTS).

    python3 tools/fit_stack_weights.py DIR [DIR ...]
    for g in accasta abande abande-square attangle attangle-2008 attangle-square dame100; do
        tacticblue scenes render --game $g --count 40 --seed 101 --out scenes/$g; done
    python3 tools/fit_stack_weights.py scenes/*     # the current weights

DIR holds rendered scenes (``tacticblue scenes render``: NAME.jpg + NAME.json).  Every
point of every image gives one choice among the heights its game allows; the weights
are a multinomial logistic regression over :data:`vision.stacks.FEATURES` (the nearer
stacks' true heights decide what is hidden, as the reader's front-to-back pass does).
Prints the weights to paste into vision/stacks.py and the height accuracy on the
images not used for fitting (every fourth image).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rules  # noqa: E402
from vision.stacks import FEATURES, FrameSamples, StackModel, height_features  # noqa: E402
from vision.synth.scene import pose_from_truth  # noqa: E402


LIMIT = 40
"""Images used per folder."""


def examples(paths: list[Path]) -> list[tuple[np.ndarray, int, int]]:
    out = []
    for n, path in enumerate(paths):
        truth = json.loads(path.read_text())
        game = rules.GAMES[truth["game"]]
        model = StackModel(pose_from_truth(truth), game.geometry, game.max_height)
        frame = FrameSamples.of(model, cv2.imread(str(path.with_suffix(".jpg"))))
        heights = np.array([len(truth["points"][p]) for p in model.names])
        for i in range(len(model.names)):
            out.append((height_features(model, frame, i, model.visible(i, heights)), int(heights[i]), n))
    return out


def fit(data: list[tuple[np.ndarray, int, int]], l2: float = 1e-3, steps: int = 4000) -> np.ndarray:
    """Gradient descent on the mean cross-entropy; points grouped by their number of heights."""
    groups = {}
    for x, y, _ in data:
        groups.setdefault(len(x), []).append((x, y))
    stacked = [(np.stack([x for x, _ in g]), np.array([y for _, y in g])) for g in groups.values()]
    w = np.zeros(len(FEATURES))
    for _ in range(steps):
        grad = l2 * w
        for X, y in stacked:
            s = X @ w
            p = np.exp(s - s.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            grad += (np.einsum("nh,nhf->f", p, X) - X[np.arange(len(y)), y].sum(0)) / len(data)
        w -= 0.5 * grad
    return w


def accuracy(data, w) -> float:
    return float(np.mean([np.argmax(x @ w) == y for x, y, _ in data]))


def confusion(data, w) -> str:
    H = max(len(x) for x, _, _ in data)
    m = np.zeros((H, H), int)
    for x, y, _ in data:
        m[y, int(np.argmax(x @ w))] += 1
    return "\n".join(f"true {h}: " + " ".join(f"{v:5d}" for v in row) for h, row in enumerate(m))


def main(dirs: list[str]) -> None:
    paths = sorted(p for d in dirs for p in sorted(Path(d).glob("*.json"))[:LIMIT])
    data = examples(paths)
    train = [e for e in data if e[2] % 4]
    test = [e for e in data if e[2] % 4 == 0]
    w = fit(train)
    print("HEIGHT_WEIGHTS = np.array([" + ", ".join(f"{v:.3f}" for v in w) + "])")
    print(f"height right on {accuracy(train, w):.4f} of fitted points, {accuracy(test, w):.4f} of held-out points")
    print(confusion(test, w))


if __name__ == "__main__":
    main(sys.argv[1:])
