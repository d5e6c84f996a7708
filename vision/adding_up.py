"""The likeliest choices that add up to a count the game keeps: Accasta's heights to its 40
discs (:func:`vision.heights.heights_adding_up`), its stacks to its 20 white ones
(:meth:`vision.shapes.StackShapes.best`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def likeliest_adding_up(options: Sequence[tuple[np.ndarray, np.ndarray]], total: int
                        ) -> tuple[list[int], float] | None:
    """For items each choosing one of its options (``counts``, ``log_p``: per option, what it
    adds to the total and its log-likelihood), the likeliest choices whose counts add up to
    ``total`` (per item, the index of its option; the first of equally likely ones) and their
    log-likelihood; None when no choices do.

    >>> likeliest_adding_up([(np.array([0, 1, 2]), np.log([0.1, 0.6, 0.3])),
    ...                      (np.array([1, 2]), np.log([0.9, 0.1]))], 3)[0]  # 2 + 1: 0.3 * 0.9 beats 0.6 * 0.1
    [2, 0]
    >>> likeliest_adding_up([(np.array([1]), np.array([0.0]))], 2) is None
    True
    """
    best = np.full(total + 1, -np.inf)  # the likeliest choices of the items so far adding up to each sum
    best[0] = 0.0
    picks = []
    for counts, log_p in options:
        before = np.arange(total + 1)[None] - counts[:, None]  # per option and sum, the sum before it
        sums = np.where(before >= 0, best[np.maximum(before, 0)] + log_p[:, None], -np.inf)
        picks.append(sums.argmax(axis=0))
        best = sums.max(axis=0)
    if not np.isfinite(best[total]):
        return None
    chosen = []
    left = total  # what the items up to this one add up to
    for (counts, _), pick in zip(reversed(options), reversed(picks)):
        chosen.append(int(pick[left]))
        left -= int(counts[chosen[-1]])
    return chosen[::-1], float(best[total])
