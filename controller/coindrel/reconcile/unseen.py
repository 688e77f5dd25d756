"""Pads nobody saw (after lost board events): the search's first look.

Coins that fell while the hub's events were lost may rest on any pad, or have
knocked a resting coin off; several at once. Before the usual search of one
or two changes, ``search_unseen`` tries explanations that change only such
pads, one pad more at a time (up to ``DEPTH``), keeping the likeliest
``BEAM`` partial explanations at each step, within half the search's budget.
"""

from __future__ import annotations

import math

from ..engine.core import COIN
from .faults import UNSEEN_PAD_PRIOR, CoinAdded, CoinRemoved

COST = math.log(UNSEEN_PAD_PRIOR)  # a coin found on, or gone from, a pad nobody saw
DEPTH = 5  # pads nobody saw one explanation may change
BEAM = 6  # the most likely partial explanations kept at each step


def is_unseen(search, m) -> bool:
    return m.kind in ("add", "remove") and m.s in search.unsure


def search_unseen(search, worlds, traces) -> None:
    """Evaluate explanations of ``search``'s drop that change only unseen pads."""
    frontier = [(0.0, w, (), traces[id(w)]) for w in worlds]
    limit = search.evaluations + search.budget // 2
    seen = set()
    for _depth in range(DEPTH):
        nxt = []
        for _score, w, moves, trace in frontier:
            for m in search.moves(w, trace, moves):
                key = (id(w), frozenset(moves + (m,)))
                if not is_unseen(search, m) or key in seen:
                    continue
                seen.add(key)
                if search.evaluations >= limit or search.spent():
                    return
                trace2, cand = search.evaluate(w, moves + (m,))
                if cand is not None:
                    nxt.append((cand.logp, w, moves + (m,), trace2))
        if not nxt or _best_is_unseen(search):
            return
        frontier = sorted(nxt, key=lambda x: -x[0])[:BEAM]


def _best_is_unseen(search) -> bool:
    """The best explanation so far changes only unseen pads and needs no sensor fault."""
    best = max(search.candidates, key=lambda c: c.logp, default=None)
    return best is not None and bool(best.moves) and all(is_unseen(search, m) for m in best.moves) \
        and not best.derivation.new


def outage_codes(best, codes: bytes) -> bytes | None:
    """``codes`` with the pads ``best`` found changed, when all it needs is
    pads nobody saw while the hub's events were lost (a coin of the outage
    resting there, or one it knocked off): no hand, no fault, so the drop is
    a healthy board's from that board, like a handful's coin found resting
    later (handful.with_left). One pad only: one coin of the outage; two or
    more unseen changes rival a fault as well (board4: a pad that does not
    hold, read as a coin found on it and one gone below). None when it needs
    anything else (a put-back's asked pad is a person's step, a tipped coin
    a hand's). Issue 13, board5:
    coins that fell during a hub reset were found on a pad 2-60 s later and
    flagged, their own words saying "not a hand, not a fault"."""
    shown = best.shown()
    if len(shown) != 1 or best.derivation.new:
        return None
    for f in shown:
        if not (isinstance(f, (CoinAdded, CoinRemoved)) and f.unseen and not f.asked
                and not getattr(f, "tipped_to", "") and not getattr(f, "via", "")):
            return None
    out = bytearray(codes)
    for m in best.moves:
        if m.kind == "add":
            out[m.s] |= COIN
        elif m.kind == "remove":
            out[m.s] &= ~COIN
    return bytes(out)
