"""Properties of rules.md section 4 over random boards (hypothesis)."""

from hypothesis import given
from hypothesis import strategies as st

from coindrel.engine import COIN, HOLE, PAD_R, BoardState, drop, standard_geometry
from coindrel.engine.drop import topology

from .strategies import boards, entry_lists

G = standard_geometry()


def cascade_in_order(state: BoardState, entries, choose):
    """Process coins in flight in an order picked by ``choose`` (index into the pending list)."""
    codes = bytearray(state.codes)
    topo = topology(G)
    pending = [G.entry_switches[e] for e in entries]
    sinks, flips = [], [0] * G.switch_count
    while pending:
        s = pending.pop(choose(len(pending)))
        if s >= topo.n:
            sinks.append(s)
            continue
        new, targets, flipped = topo.table[s][codes[s]]
        codes[s] = new
        flips[s] += flipped
        pending.extend(targets)
    exits = sorted(s - topo.n for s in sinks if s < topo.swallow)
    return exits, flips, bytes(codes)


@given(boards(), entry_lists, st.randoms(use_true_random=False))
def test_outcome_does_not_depend_on_processing_order(state, entries, rnd):
    reference = drop(state, entries)
    for choose in (lambda k: k - 1, lambda k: 0, lambda k: rnd.randrange(k)):  # depth-, breadth-first, random
        exits, flips, codes = cascade_in_order(state, entries, choose)
        assert exits == list(reference.exits)
        assert tuple(flips) == reference.flips
        assert codes == bytes(reference.board.codes)


@given(boards(), entry_lists)
def test_several_coins_together_equal_one_after_another(state, entries):
    together = drop(state, entries)
    board = state.copy()
    exits, flips, swallowed = [], [0] * G.switch_count, 0
    for e in entries:
        o = board.drop_in_place([e])
        exits += o.exits
        swallowed += o.swallowed
        flips = [a + b for a, b in zip(flips, o.flips)]
    assert sorted(exits) == list(together.exits)
    assert tuple(flips) == together.flips
    assert swallowed == together.swallowed
    assert board == together.board


@given(boards(), entry_lists)
def test_coins_are_conserved(state, entries):
    o = drop(state, entries)
    assert len(entries) == len(o.exits) + o.swallowed + (o.board.resting() - state.resting())


@given(boards(), entry_lists)
def test_mirrored_board_gives_the_mirrored_outcome(state, entries):
    mg = G.mirrored()
    mirrored = state.mirrored(mg)
    o = drop(state, entries)
    m = drop(mirrored, [7 - e for e in entries])
    assert list(m.exits) == sorted(15 - x for x in o.exits)
    assert m.swallowed == o.swallowed
    assert m.board == o.board.mirrored(mg)
    assert all(m.flips[G.mirror_switch(s)] == c for s, c in enumerate(o.flips))


@given(boards())
def test_text_form_round_trips(state):
    text = state.text()
    assert BoardState.parse(text) == state
    assert BoardState.parse(state.rows()) == state
    assert BoardState.parse("\n".join(state.rows())) == state
    assert BoardState.parse(text).text() == text


@given(boards(), entry_lists)
def test_final_pad_side_is_start_side_flipped_flips_times(state, entries):
    o = drop(state, entries)
    for s, (before, after) in enumerate(zip(state.codes, o.board.codes)):
        if before == HOLE:
            assert after == HOLE and o.flips[s] == 0
            continue
        assert after & PAD_R == (before & PAD_R) ^ (o.flips[s] & 1)


@given(boards(holes=False), entry_lists)
def test_without_holes_nothing_is_swallowed_and_no_coin_appears(state, entries):
    o = drop(state, entries)
    assert o.swallowed == 0 and o.jammed == 0
    # A switch can only gain a coin by catching one on its inlet-side pad.
    for s, (before, after) in enumerate(zip(state.codes, o.board.codes)):
        if after & COIN and not before & COIN:
            assert after & PAD_R == G.inlets[s]
