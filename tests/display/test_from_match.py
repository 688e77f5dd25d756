"""Views built from a real engine Match say what the engine knows."""

from coindrel.ai import GreedyPlayer
from coindrel.display import match_result_view, match_view, render, reveal_view, round_result_view
from coindrel.engine import Match, MatchSetup, Variants


def play_out(seed=7, clock=30.0):
    m = Match(MatchSetup(players=("Ann", "Bob"), seed=seed, clock=clock, variants=Variants(shuffled=True)))
    bot = GreedyPlayer(seed)
    t = 0.0
    ends = []
    while not m.over:
        if m.phase == "reveal":
            m.reveal_done(t)
        r = m.play(bot.choose(m), t)
        t += 1.0
        if m.phase == "reveal" or m.over:
            ends.append(r.round)
    return m, ends


def test_play_screen_from_a_match():
    m = Match(MatchSetup(players=("Ann", "Bob"), seed=1, clock=30.0))
    v = reveal_view(m)
    assert (v.round, v.target, v.values, v.shuffled) == (1, 10, m.values, False)
    m.reveal_done(0.0)
    v = match_view(m, 12.5)
    assert v.players == ("Ann", "Bob") and v.round == 1 and v.target == 10
    assert v.clock == 17.5 and v.to_move == 1 and v.status == "Ann to drop" and not v.alert
    m.coin_seen(13.0)
    assert match_view(m, 14.0).to_move is None  # coins falling: nobody's turn
    render(match_view(m, 14.0))


def test_clock_expiry_pause_and_last_drop_status():
    m = Match(MatchSetup(players=("Ann", "Bob"), seed=2, clock=5.0))
    m.reveal_done(0.0)
    entry = m.expire(5.0)
    v = match_view(m, 5.0)
    assert v.status == f"Drop in entry {entry + 1}" and v.alert and v.clock == 0.0
    m.play(entry, 6.0)
    m.pause(7.0)
    assert match_view(m, 8.0).status == "Paused" and match_view(m, 8.0).paused
    m.resume(9.0)
    while not m.last_drop_pending:
        m.play(0, 10.0)
    v = match_view(m, 10.0)
    assert v.status == "Last drop of the round" and v.alert
    assert match_view(m, 10.0, status="Waiting for the hub", alert=False).status == "Waiting for the hub"


def test_round_and_match_results_add_up():
    m, ends = play_out()
    assert ends == [1, 2, 3, 4]
    running = [0, 0]
    for k in range(1, 5):
        v = round_result_view(m, k)
        running = [running[i] + v.round_scores[i] for i in range(2)]
        assert list(v.totals) == running
        assert v.winner == (None if v.round_scores[0] == v.round_scores[1] else 1 + (v.round_scores[1] > v.round_scores[0]))
        render(v)
    final = match_result_view(m)
    assert final.totals == m.totals and tuple(running) == m.totals
    assert final.winner == (None if m.winner == "draw" else m.winner)
    assert len(final.rounds) == 4
    render(final)
