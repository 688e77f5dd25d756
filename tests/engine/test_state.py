"""Board state: text form, errors that point at the bad character, mutation by name."""

import pytest

from coindrel.engine import BoardState, BoardTextError, EngineError, L, R, standard_geometry

EXAMPLE = "lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL"


def test_rules_example_parses_and_formats_back():
    s = BoardState.parse(EXAMPLE)
    assert str(s) == EXAMPLE
    assert s.rows() == EXAMPLE.split("/")
    assert s.has_coin("R1S1") and s.has_coin("R2S1") and s.resting() == 2
    assert s.holes() == ["R2S2", "R2S6", "R4S3", "R4S5"]
    assert s.pad("R1S1") == L and s.pad("R2S2") is None
    assert eval(repr(s), {"BoardState": BoardState}) == s


def test_multiline_form():
    assert BoardState.parse("\n".join(EXAMPLE.split("/")) + "\n") == BoardState.parse(EXAMPLE)


@pytest.mark.parametrize(
    "text, words",
    [
        ("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL", ["4 row", "5"]),
        ("LLLLLLLL/LLLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", ["row 2", "8 switches", "has 7"]),
        ("LLLLLLLL/LLLLLLL/LLLXLLLL/LLLLLLL/LLLLLLLL", ["row 3", "character 4", "R3S4", "'X'"]),
        ("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLL ", ["row 5"]),
    ],
)
def test_bad_text_names_row_and_character(text, words):
    with pytest.raises(BoardTextError) as err:
        BoardState.parse(text)
    for w in words:
        assert w in str(err.value), str(err.value)


def test_copy_is_independent():
    s = BoardState.parse(EXAMPLE)
    c = s.copy()
    c.set_pad("R3S3", R)
    c.place_coin("R5S8")
    assert s.text() == EXAMPLE and c != s
    assert c.pad("R3S3") == R and c.has_coin("R5S8")
    c.remove_coin("R5S8")
    c.set_pad("R3S3", L)
    assert c == s


def test_mutations_refuse_impossible_changes():
    s = BoardState.parse(EXAMPLE)
    with pytest.raises(EngineError, match="already has a coin"):
        s.place_coin("R1S1")
    with pytest.raises(EngineError, match="no coin"):
        s.remove_coin("R1S2")
    with pytest.raises(EngineError, match="hole"):
        s.set_pad("R2S2", R)
    with pytest.raises(EngineError, match="holds a coin"):
        BoardState.parse("LLLLLLLL/LrLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL").make_holes_in_place()


def test_mirror_twice_is_identity():
    s = BoardState.parse("lRLLrLLR/RoLLLoR/LLRLLLLL/LLoRoLL/rLLLLLLR")
    m = s.mirrored()
    assert m.rows() == ["LRRlRRLr", "LoRRRoL", "RRRRRLRR", "RRoLoRR", "LRRRRRRl"]
    assert m.geometry is standard_geometry().mirrored()
    assert m.mirrored(standard_geometry()) == s
