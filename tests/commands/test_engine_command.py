"""``coindrel engine`` answers every vector, and survives bad lines."""

import json
import subprocess
import sys

from tests.support import VECTORS, load_vectors


def run_engine(stdin: str) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "coindrel", "engine"], input=stdin, capture_output=True, text=True, check=True, timeout=120
    )
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_every_vector_through_the_command():
    text = (VECTORS / "drops.jsonl").read_text() + (VECTORS / "matches.jsonl").read_text()
    cases = load_vectors("drops.jsonl") + load_vectors("matches.jsonl")
    answers = run_engine(text)
    assert len(answers) == len(cases)
    for case, answer in zip(cases, answers):
        assert answer.pop("id") == case["id"]
        assert answer == case["expect"], case["id"]


def test_malformed_lines_get_error_lines_and_the_run_goes_on():
    good = json.dumps(load_vectors("drops.jsonl")[0])
    lines = [
        "not json at all",
        json.dumps({"id": "short", "board": ["LL"], "entries": [1]}),
        json.dumps({"id": "badentry", "board": ["LLLLLLLL", "LLLLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"], "entries": [8]}),
        json.dumps({"id": "badchar", "board": ["LLLLLLLL", "LLXLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"], "entries": [0]}),
        json.dumps({"id": "what"}),
        json.dumps([1, 2]),
        good,
    ]
    answers = run_engine("\n".join(lines) + "\n")
    assert [a.get("id") for a in answers] == [None, "short", "badentry", "badchar", "what", None, "d0"]
    assert all("error" in a for a in answers[:6])
    assert "row 2" in answers[3]["error"] and "character 3" in answers[3]["error"]
    assert "entry" in answers[2]["error"]
    assert "error" not in answers[6]
