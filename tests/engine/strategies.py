"""Hypothesis strategies for boards and drops."""

from hypothesis import strategies as st

from coindrel.engine import BoardState, standard_geometry

G = standard_geometry()


@st.composite
def boards(draw, holes=None, coins=True):
    """Random states of the standard board: any pads, any resting coins, maybe the holes."""
    n = G.switch_count
    codes = draw(st.lists(st.integers(0, 3 if coins else 1), min_size=n, max_size=n))
    state = BoardState(G, codes)
    if holes is None:
        holes = draw(st.booleans())
    if holes:
        for s in G.hole_switches:
            state.codes[s] = 4
    return state


entries = st.integers(0, 7)
entry_lists = st.lists(entries, min_size=1, max_size=6)
