"""The diagnosis's fast cascades agree with the engine's predict()."""

from hypothesis import given
from hypothesis import strategies as st

from coindrel.engine import Jam, PadNotHolding, SwitchStuck, predict, standard_geometry
from coindrel.engine.core import HOLE
from coindrel.reconcile.physics import Physics

from tests.engine.strategies import boards, entry_lists

G = standard_geometry()
P = Physics(G)


@st.composite
def physical_faults(draw):
    faults = []
    for _ in range(draw(st.integers(0, 3))):
        label = G.labels[draw(st.integers(0, G.switch_count - 1))]
        kind = draw(st.sampled_from(["stuck", "slip", "jam"]))
        if kind == "stuck":
            faults.append(SwitchStuck(label))
        elif kind == "slip":
            faults.append(PadNotHolding(label))
        else:
            faults.append(Jam(label, draw(st.integers(0, 1))))
    return list(dict.fromkeys(faults))


@given(boards(), entry_lists, physical_faults())
def test_same_outcome_as_the_engine(state, entries, faults):
    faults = [f for f in faults if state.codes[G.index(f.switch)] != HOLE]
    expected = predict(state, entries, faults).outcome
    stuck = {G.index(f.switch) for f in faults if isinstance(f, SwitchStuck)}
    slips = {G.index(f.switch) for f in faults if isinstance(f, PadNotHolding)}
    jams = {(G.index(f.switch), f.side) for f in faults if isinstance(f, Jam)}
    codes = bytearray(state.codes)
    trace = P.run(codes, P.starts(entries), P.table(stuck, slips, jams))
    assert tuple(x for x, n in enumerate(trace.exits) for _ in range(n)) == expected.exits
    assert tuple(trace.flips) == expected.flips
    assert bytes(codes) == bytes(expected.board.codes)
    assert trace.swallowed == expected.swallowed
    assert sum(trace.jams.values()) == expected.jammed
    assert set(trace.jams) <= jams


@given(boards(), entry_lists)
def test_arrivals_say_where_coins_went(state, entries):
    trace = P.run(bytearray(state.codes), P.starts(entries), P.base)
    flipped = {s for s, n in enumerate(trace.flips) if n}
    assert flipped <= trace.visited()
    for a in trace.arrivals:
        code = a & 7
        # a coin that rested did not flip its switch on that arrival
        if P.rested(a):
            assert code != HOLE
        assert code == HOLE or P.sides_used(a) or P.rested(a)


def test_base_table_is_the_engines():
    from coindrel.engine import topology

    assert P.base is topology(G).table
    assert P.table() is P.base
