"""Every screen kind, pixel for pixel, against its golden PNG."""

from dataclasses import replace

import pytest

from coindrel.display import VIEW_TYPES, DiagnosisView, page_count, render

from .samples import GOLDEN_SIZES, LARGE_SAMPLES, SAMPLES

CASES = [(name, (128, 64)) for name in SAMPLES] + [
    (name, size) for size in GOLDEN_SIZES[1:] for name in LARGE_SAMPLES
]


@pytest.mark.parametrize("name,size", CASES, ids=[f"{n}-{w}x{h}" for n, (w, h) in CASES])
def test_golden_image(name, size, golden):
    suffix = "" if size == (128, 64) else f"-{size[0]}x{size[1]}"
    golden(f"{name}{suffix}", render(SAMPLES[name], size))


PAGED = [(name, page) for name, v in SAMPLES.items() if isinstance(v, DiagnosisView)
         for page in range(1, page_count(v))]


@pytest.mark.parametrize("name,page", PAGED, ids=[f"{n}-page{p + 1}" for n, p in PAGED])
def test_every_page_of_a_notice(name, page, golden):
    """The first page is the sample's own golden; every later one (the rest
    of the words, then the choices) has its own."""
    golden(f"{name}-page{page + 1}", render(replace(SAMPLES[name], page=page)))


def test_every_view_kind_has_a_golden_sample():
    kinds = {type(v) for v in SAMPLES.values()}
    assert kinds == set(VIEW_TYPES)
