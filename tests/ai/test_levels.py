"""Solo levels: valid, repeatable choices, and a real difference in strength."""

import pytest

from coindrel.ai import LEVELS, GreedyPlayer, Position, RandomPlayer, level_player, player_by_name
from coindrel.ai.levels import EasyPlayer, HardPlayer, MediumPlayer
from coindrel.engine import EngineError, Match, MatchSetup, Variants


def play(a, b, seed, variants=Variants()):
    m = Match(MatchSetup(seed=seed, variants=variants))
    players = (a, b)
    while not m.over:
        board = m.board.copy()
        entry = players[m.to_move - 1].choose(m)
        assert m.board == board  # choosing never changes the match
        assert 0 <= entry < 8
        m.play(entry)
    return m


def test_three_levels_by_name():
    assert list(LEVELS) == ["easy", "medium", "hard"]
    assert isinstance(level_player("easy"), EasyPlayer)
    assert isinstance(player_by_name("hard", 3), HardPlayer)
    assert isinstance(player_by_name("greedy"), GreedyPlayer)  # the baselines keep their names
    for name in LEVELS:
        p = level_player(name)
        assert p.name == name and p.title and len(p.blurb) <= 21
    with pytest.raises(EngineError, match="easy, medium, hard"):
        level_player("expert")
    with pytest.raises(EngineError, match="unknown computer player"):
        player_by_name("expert")


@pytest.mark.parametrize("name", list(LEVELS))
def test_a_level_replays_exactly_from_its_seed(name):
    a = play(level_player(name, 5), RandomPlayer(6), seed=11, variants=Variants(holes=True, shuffled=True))
    b = play(level_player(name, 5), RandomPlayer(6), seed=11, variants=Variants(holes=True, shuffled=True))
    assert a.log == b.log and a.over


def test_levels_differ_in_strength():
    """A few matches each way: the benchmark has the thousand-match figures."""
    def wins(strong, weak, seeds):
        count = 0
        for s in seeds:
            first = s % 2 == 0
            m = play(strong(s), weak(s + 100), s) if first else play(weak(s + 100), strong(s), s)
            count += m.winner == (1 if first else 2)
        return count

    seeds = range(6)
    assert wins(lambda s: EasyPlayer(s), RandomPlayer, seeds) >= 5
    assert wins(lambda s: MediumPlayer(s), GreedyPlayer, seeds) >= 5
    assert wins(lambda s: MediumPlayer(s), EasyPlayer, seeds) >= 5
    assert wins(lambda s: HardPlayer(s), MediumPlayer, range(4)) >= 3
    assert wins(lambda s: EasyPlayer(s), GreedyPlayer, seeds) <= 3  # easy really is easy


def test_easy_slips_but_medium_never_does():
    m = Match(MatchSetup(seed=2))
    easy, medium = EasyPlayer(1), MediumPlayer(1)
    easy_choices = {easy.choose(m) for _ in range(40)}
    assert len(easy_choices) > 2  # careless drops spread over the entries
    assert {medium.choose(m) for _ in range(40)} <= set(medium.searcher.best(Position.from_match(m)))


def test_solo_computer_drop_on_a_board_without_a_dropper():
    from coindrel.ai import computer_drop

    m = Match(MatchSetup(seed=4))
    m.play(0)  # the person played; the computer (player 2) is to move
    hard = level_player("hard", 1)
    ask = computer_drop(m, hard)
    assert ask.player == 2 and ask.name == "hard" and ask.entry in hard.searcher.best(Position.from_match(m))
    assert ask.lines[-1] == f"entry {ask.entry + 1}, please." and all(len(l) <= 21 for l in ask.lines)
    ok, lines = ask.confirm(ask.entry)
    assert ok and lines == (f"Entry {ask.entry + 1}: thanks!",)
    other = (ask.entry + 1) % 8
    ok, lines = ask.confirm(other)
    assert not ok and lines[0] == f"That went in entry {other + 1}" and all(len(l) <= 21 for l in lines)
    while not m.over:
        m.play(0)
    with pytest.raises(EngineError, match="over"):
        computer_drop(m, hard)
