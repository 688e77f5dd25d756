"""Every screen kind, pixel for pixel, against its golden PNG."""

import pytest

from coindrel.display import VIEW_TYPES, render

from .samples import GOLDEN_SIZES, LARGE_SAMPLES, SAMPLES

CASES = [(name, (128, 64)) for name in SAMPLES] + [
    (name, size) for size in GOLDEN_SIZES[1:] for name in LARGE_SAMPLES
]


@pytest.mark.parametrize("name,size", CASES, ids=[f"{n}-{w}x{h}" for n, (w, h) in CASES])
def test_golden_image(name, size, golden):
    suffix = "" if size == (128, 64) else f"-{size[0]}x{size[1]}"
    golden(f"{name}{suffix}", render(SAMPLES[name], size))


def test_every_view_kind_has_a_golden_sample():
    kinds = {type(v) for v in SAMPLES.values()}
    assert kinds == set(VIEW_TYPES)
