"""A healthy virtual board produces exactly the engine's outcomes: same exits,
same flips, same final switch positions, drop after drop, as the sensors
report them (read back from the observation log)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from coindrel.engine import BoardState, MatchRandom
from coindrel.virtual import BoardConfig, PlayerSpec, Scenario
from coindrel.virtual.rand import Stream

from .harness import run
from .oracle import check_physical_facts, compare_with_engine, groups


def random_run(seed: int, drops: int, gap=(1.6, 2.6), board: str = "standard", holes: bool = False):
    from coindrel.engine import Variants, geometry_by_name

    g = geometry_by_name(board)
    rng = MatchRandom(seed)
    start = BoardState.random(rng, g, coin_chance=0.4)
    if holes:
        start.clear_coins_in_place()
    s = Stream(seed, "test-drops")
    t, script = 0.5, []
    for _ in range(drops):
        script.append((t, s.below(g.entry_count)))
        t += s.span(gap)
    config = BoardConfig(board=board, seed=seed, start=start.text(), variants=Variants(holes=holes))
    return run(Scenario(config, drops=script))


def assert_engine_exact(r, all_single=True):
    drops = [d for d in r.truth if d["kind"] == "drop"]
    if all_single:
        assert all(d["as_engine"] is True for d in drops), [d for d in drops if d["as_engine"] is not True][:1]
    assert compare_with_engine(r.events, r.truth, r.board.geometry, r.board.start.rows()) == []
    assert check_physical_facts(r.events) == []
    assert r.log.problems == []
    return drops


def test_thousands_of_random_drops_match_the_engine():
    total = 0
    for seed in range(8):
        r = random_run(seed, 300)
        drops = assert_engine_exact(r)
        total += len(drops)
        # the last reading of every switch is the engine's final position
        final = BoardState.parse(drops[-1]["after"], r.board.geometry)
        assert drops[-1]["after"] == r.truth[-1]["board"]
        assert final.text() == r.board.world.text()
    assert total == 2400


def test_cascades_in_flight_together_match_the_engine_as_a_group():
    config = BoardConfig(seed=5)
    spec = PlayerSpec(one="greedy", two="random", matches=2, overlap=0.6, quick=(0.05, 0.4), think=(0.5, 1.5))
    r = run(Scenario(config, players=spec))
    drops = assert_engine_exact(r, all_single=False)
    together = [g for g in groups(r.truth) if len(g) > 1]
    assert len(together) >= 10, "players dropping quickly should put several cascades in flight together"
    assert max(len(g) for g in together) >= 3
    assert len(drops) > 80


def test_holes_and_mirrored_boards():
    assert_engine_exact(random_run(21, 150, holes=True))
    assert_engine_exact(random_run(22, 150, board="mirrored"))
    r = random_run(23, 150, holes=True)
    assert any(d["swallowed"] for d in r.truth if d["kind"] == "drop")
    # a removed switch reads "none" from the start and never changes
    assert not [e for e in r.events if getattr(e, "switch", None) in ("R2S2", "R2S6", "R4S3", "R4S5")]


@given(
    start=st.lists(st.sampled_from("LRlr"), min_size=38, max_size=38),
    entries=st.lists(st.integers(0, 7), min_size=1, max_size=25),
    gaps=st.lists(st.floats(0.02, 3.0), min_size=25, max_size=25),
    seed=st.integers(0, 2**32),
)
def test_any_board_any_drops_any_gaps(start, entries, gaps, seed):
    g = BoardState().geometry
    text, i = [], 0
    for n in g.row_sizes:
        text.append("".join(start[i:i + n]))
        i += n
    t, script = 0.3, []
    for e, gap in zip(entries, gaps):
        script.append((t, e))
        t += gap
    r = run(Scenario(BoardConfig(seed=seed, start="/".join(text)), drops=script))
    assert_engine_exact(r, all_single=False)
