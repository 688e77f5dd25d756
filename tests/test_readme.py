"""The README stays true: its two commands are what CI runs, and its example
configuration is valid."""

import re
import tomllib
from pathlib import Path

from coindrel.table.settings import parse_settings

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_starts_with_the_two_commands():
    block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).strip().splitlines()
    assert README.index("```sh") < README.index("\n## ")
    assert len(block) == 2
    assert block[0].endswith("coindrel sim") and "pip install -e '.[sim]'" in block[0]
    assert "pytest" in block[1] and "pip install -e '.[test]'" in block[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pytest" in ci and "README.md" in ci  # CI runs the README's own test command


def test_readme_configuration_example_is_valid():
    example = re.search(r"### Configuration\n\n```toml\n(.*?)```", README, re.S).group(1)
    settings = parse_settings(tomllib.loads(example), source="README")
    assert settings.board.source == "hub" and settings.match.clock == 60
