"""Percentiles as ``np.percentile`` (linear) computes them, for the reader's hot paths:
its general machinery costs several times the work itself on the few thousand values of a
frame's samples, and ``np.nanpercentile``'s masked arrays more still."""

from __future__ import annotations

import numpy as np


def percentile(a: np.ndarray, q: float) -> float:
    """The ``q``-th percentile (0..100) of all of ``a`` (no NaN), exactly as ``np.percentile``
    gives it, in a fifth of the time on tens of thousands of values: one partition at the rank
    below, and the least value above it; NaN for no values.

    >>> values = np.random.default_rng(0).random(1001)
    >>> percentile(values, 95) == float(np.percentile(values, 95)), percentile([1.0, 2.0], 25), percentile([], 50)
    (True, 1.25, nan)
    """
    a = np.ravel(a)
    if not len(a):
        return float("nan")
    at = q / 100.0 * (len(a) - 1)
    below = int(at)
    part = np.partition(a, below)
    low = part[below]
    if below + 1 >= len(a):
        return float(low)
    high, t = part[below + 1:].min(), at - below
    # numpy's lerp: from the nearer end, so a weight of 1 gives that value exactly
    return float(high - (high - low) * (1 - t) if t >= 0.5 else low + (high - low) * t)


def nan_percentile(a: np.ndarray, q: float, axis: int = -1) -> np.ndarray:
    """The ``q``-th percentile along ``axis`` leaving out NaN (NaN where all are NaN), as
    ``np.nanpercentile`` (linear) but without its masked arrays, which cost more than
    everything else of a point's evidence.

    >>> nan_percentile(np.array([[1.0, 3.0, np.nan, 2.0], [np.nan] * 4, [4.0, 1.0, np.nan, np.nan]]), 50).tolist()
    [2.0, nan, 2.5]
    """
    s = np.sort(a, axis=axis)  # NaN last
    n = np.sum(~np.isnan(a), axis=axis, keepdims=True)
    at = q / 100.0 * np.maximum(n - 1, 0)
    lo = np.floor(at).astype(int)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    low, high = np.take_along_axis(s, lo, axis=axis), np.take_along_axis(s, hi, axis=axis)
    value = np.where(hi > lo, low + (at - lo) * (high - low), low)
    return np.squeeze(np.where(n > 0, value, np.nan), axis=axis)
