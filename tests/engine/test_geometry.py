"""The standard board is rules.md section 2; other boards are validated clearly."""

import copy
import json

import pytest

from coindrel.engine import GeometryError, L, R, standard_geometry, load_geometry
from coindrel.engine.geometry import Geometry, falling_target

G = standard_geometry()


def rules_inlet(r, j):
    if (r, j) == (1, 3):
        return R
    if (r, j) == (3, 3):
        return L
    return L if j < (4 if r % 2 == 0 else 3) else R


def test_standard_board_matches_rules_section_2():
    assert G.row_sizes == (8, 7, 8, 7, 8) and G.switch_count == 38
    spans = [[(2 * j + r % 2, 2 * j + r % 2 + 1) for j in range(G.row_sizes[r])] for r in range(5)]
    for s in range(G.switch_count):
        r = G.row_of[s]
        j = s - G.row_start[r]
        assert G.spans[s] == spans[r][j]
        assert G.inlets[s] == rules_inlet(r, j), G.labels[s]
        for side, lane in ((0, spans[r][j][0]), (1, spans[r][j][1])):
            assert G.target_label(G.outs[s][side]) == falling_target(spans, r, lane)
    assert G.entries == tuple(f"R1S{e + 1}" for e in range(8))
    assert G.holes == ("R2S2", "R2S6", "R4S3", "R4S5")


def test_odd_row_edge_lanes_fall_through():
    # R1S1's left outlet is lane 0: no switch in row 2 there, so it lands on R3S1.
    assert G.target_label(G.outs[G.index("R1S1")][0]) == "R3S1"
    assert G.target_label(G.outs[G.index("R1S8")][1]) == "R3S8"
    assert G.target_label(G.outs[G.index("R5S3")][1]) == "exit 6"


def test_mirrored_board_is_the_mirror_image_and_round_trips():
    m = G.mirrored()
    assert m.to_dict()["rows"] != G.to_dict()["rows"]
    back = Geometry.from_dict(m.to_dict(), "mirror").mirrored()
    assert back.to_dict()["rows"] == G.to_dict()["rows"]
    # The standard board is symmetric except for the two centre switches of the odd rows.
    assert m.inlets[m.index("R2S4")] == L and m.inlets[m.index("R4S4")] == R
    assert sorted(m.holes) == sorted(G.holes)


def base() -> dict:
    return copy.deepcopy(G.to_dict())


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d["rows"][1][2].__setitem__("out", ["R9S1", "R3S3"]), ["R2S3 left outlet", "R9S1", "not a switch"]),
        (lambda d: d["rows"][4][0].__setitem__("out", ["exit 17", "exit 2"]), ["R5S1 left outlet", "leads nowhere", "exit 17"]),
        (lambda d: d["rows"][4][0].__setitem__("out", [None, "exit 2"]), ["R5S1 left outlet", "leads nowhere"]),
        (lambda d: d["rows"][3][0].__setitem__("out", ["R2S1", "R5S2"]), ["cycle", "R2S1", "R4S1"]),
        (lambda d: d["entries"].pop(), ["7 entries", "8"]),
        (lambda d: d["entries"].__setitem__(0, "R7S1"), ["entry 1", "R7S1"]),
        (lambda d: d["entries"].__setitem__(1, "R1S1"), ["same switch"]),
        (lambda d: d["holes"].append("R2S9"), ["holes", "R2S9"]),
        (lambda d: d["rows"][0][0].__setitem__("inlet", "X"), ["R1S1", "inlet"]),
        (lambda d: d["rows"][0][1].__setitem__("span", [1, 2]), ["R1S2", "overlaps"]),
        (lambda d: d["rows"][0][1].__setitem__("span", [2, 16]), ["R1S2", "span"]),
        (lambda d: d.__setitem__("lanes", 12), ["lanes", "16"]),
        (lambda d: d.__setitem__("entires", []), ["unknown key", "entires"]),
        (lambda d: d["rows"][0][0].__setitem__("ouch", 1), ["R1S1", "ouch"]),
        (lambda d: d.__setitem__("rows", []), ["rows"]),
        (lambda d: d.__setitem__("format", 9), ["format"]),
    ],
)
def test_bad_boards_are_refused_with_a_message_naming_the_problem(change, words):
    d = base()
    change(d)
    with pytest.raises(GeometryError) as err:
        Geometry.from_dict(d, "myboard.json")
    message = str(err.value)
    assert message.startswith("myboard.json: ")
    for w in words:
        assert w in message, message


def test_builders_board_from_spans_alone(tmp_path):
    d = base()
    for row in d["rows"]:
        for sw in row:
            del sw["out"]  # outlets fall down the lanes
    d["name"] = "builder"
    path = tmp_path / "builder.json"
    path.write_text(json.dumps(d))
    assert load_geometry(path).outs == G.outs


def test_unreadable_board_files(tmp_path):
    with pytest.raises(GeometryError, match="cannot read"):
        load_geometry(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",')
    with pytest.raises(GeometryError, match="not valid JSON at line 1"):
        load_geometry(bad)


def test_labels_and_lookups():
    assert G.index("R2S5") == 8 + 4 and G.index((1, 4)) == 12 and G.index(12) == 12
    assert G.labels[12] == "R2S5"
    for bad in ("R6S1", "R2S8", "X1", 99):
        with pytest.raises(ValueError):
            G.index(bad)


def test_a_copy_of_a_geometry_is_the_geometry_and_leaves_its_caches_behind():
    """Found in CI: a deepcopy of a match copied the geometry's cached fault
    topologies (hundreds, after the reconciler tests ran in the same process),
    and a test that tried drops on copies timed out."""
    from coindrel.engine import Match, MatchSetup, SwitchStuck
    from coindrel.engine.tables import topology

    g = standard_geometry()
    for r in range(1, 6):
        topology(g, [SwitchStuck(f"R{r}S1")])
    assert copy.copy(g) is g and copy.deepcopy(g) is g
    m = Match(MatchSetup(seed=3))
    twin = copy.deepcopy(m)
    assert twin.geometry is m.geometry and twin.board is not m.board and twin.board == m.board


def test_a_pickled_geometry_leaves_its_caches_behind():
    """Found by merging: a diagnosis child process is sent the geometry, and
    a Struct cached beside its fields could not be pickled."""
    import pickle

    from coindrel.engine import BoardState
    from coindrel.engine.tables import topology

    g = standard_geometry()
    topology(g)
    BoardState(g).text()  # fills the row-cutting cache
    assert pickle.loads(pickle.dumps(g)) is g
    assert pickle.loads(pickle.dumps(g.mirrored())) is g.mirrored()
    own = Geometry("mine", g.lanes, g.rows, g.entries, g.holes)
    back = pickle.loads(pickle.dumps(own))
    assert back is not own and back.labels == own.labels and back.outs == own.outs
