"""The reader's percentiles give numpy's figures exactly, whatever the values' type and count."""

import numpy as np
import pytest

from vision.percentiles import nan_percentile, percentile


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
@pytest.mark.parametrize("count", [1, 2, 3, 7, 40, 1001, 35_000])
def test_percentile_is_numpys(dtype: type, count: int) -> None:
    values = (np.random.default_rng(count).random(count) * 255).astype(dtype)
    for q in (0, 1, 5, 30, 50, 95, 99, 100):
        assert percentile(values, q) == float(np.percentile(values, q)), q


def test_percentile_of_an_image_takes_every_pixel() -> None:
    grey = np.random.default_rng(1).random((30, 40)).astype(np.float32)
    assert percentile(grey[::4, ::4], 95) == float(np.percentile(grey[::4, ::4], 95))


def test_nan_percentile_leaves_out_nan_as_numpy_does() -> None:
    values = np.random.default_rng(2).random((50, 9))
    values[values < 0.3] = np.nan
    values[7] = np.nan
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanpercentile(values, 30, axis=1)
    np.testing.assert_allclose(nan_percentile(values, 30), want, rtol=0, atol=1e-12)
