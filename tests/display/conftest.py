"""Golden images: ``golden(name, image)`` compares with tests/display/golden/NAME.png.

To regenerate them on purpose (a deliberate change to a screen), run

    COINDREL_UPDATE_GOLDEN=1 PYTHONPATH=controller python -m pytest tests/display

and look at every changed PNG before committing. A mismatch writes the
image drawn now next to the test's temporary files and names it.
"""

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("COINDREL_UPDATE_GOLDEN") == "1"


@pytest.fixture
def golden(tmp_path):
    def check(name: str, image: Image.Image) -> None:
        path = GOLDEN / f"{name}.png"
        if UPDATE:
            GOLDEN.mkdir(exist_ok=True)
            image.save(path)
            return
        if not path.exists():
            pytest.fail(f"no golden image {path.name}; create it with COINDREL_UPDATE_GOLDEN=1 and look at it")
        want = Image.open(path)
        want.load()
        assert want.mode == "1" and image.mode == "1", (want.mode, image.mode)
        assert want.size == image.size, f"{name}: size {image.size}, golden {want.size}"
        diff = ImageChops.difference(want.convert("L"), image.convert("L"))
        box = diff.getbbox()
        if box is not None:
            out = tmp_path / f"{name}.actual.png"
            image.save(out)
            changed = diff.point(lambda v: 255 if v else 0).histogram()[255]
            pytest.fail(f"{name}: {changed} pixels differ from the golden image, within {box}; drawn now: {out}")

    return check


def pytest_configure(config):
    # luma.oled 3.16 still calls Image.getdata(), deprecated in Pillow 13; not ours to fix here.
    config.addinivalue_line("filterwarnings", "ignore:Image.Image.getdata is deprecated:DeprecationWarning")
