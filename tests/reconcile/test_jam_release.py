"""A jam's stopped coins coming free (issue 13, h13j): the stack leaves all
at once, with the coin that landed on it or of its own in a quiet spell,
and the exit below counts every one of them. A dead exit beam never counts
them and a chattering one counts one coin twice: the release tells the jam
from its twin, and the drop whose coin it stopped is revised to it."""

from benchmarks.models.synth import Injection, match_entries, synthesize
from coindrel.engine import Jam
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile import Reconciler
from coindrel.reconcile.offline import replay
from coindrel.reconcile.physics import Physics

WHERE = ("R5S8", 1)  # the last chute to exit 16: a twin of exit 16's dead beam until it lets go


def _run(seed: int, drops: int, release_at: int, alone: bool):
    """A match with the chute below R5S8's right outlet catching coins from
    drop 9 on; the ``release_at``-th coin it catches (0-based) lets the
    stack go (``alone``: the stack lets go by itself 5 s before that coin)."""
    start, entries = match_entries(seed)
    entries = entries[:drops]
    g = start.geometry
    s = g.index(WHERE[0])
    x = g.outs[s][WHERE[1]] - g.switch_count
    run = synthesize(start, entries, [Injection(Jam(*WHERE), 8)], seed=seed)
    physics, codes, caught = Physics(g), bytearray(start.codes), []
    for k, e in enumerate(entries):  # which drops' coins the chute caught (the synthetic board keeps them)
        trace = physics.run(codes, physics.starts([e]), physics.table((), (), {(s, WHERE[1])} if k >= 8 else ()))
        caught += [k] * trace.jams.get((s, WHERE[1]), 0)
    k = caught[release_at]
    held = caught.index(k)  # coins stacked before that drop's
    events = list(run.events)
    times = [e.t for e in events if isinstance(e, EntryEvent)]
    if alone:
        free = [ExitEvent(times[k] - 5.0 + 0.017 * i, x) for i in range(held)]
    else:
        flip = max(e.t for e in events if isinstance(e, SwitchEvent) and e.switch == WHERE[0] and times[k] <= e.t < times[k + 1])
        free = [ExitEvent(flip + 0.06 + 0.017 * i, x) for i in range(held + caught.count(k))]
    rec = Reconciler(g, start, run.header.variants)
    return [r.to_json() for r in replay(rec, sorted(events + free, key=lambda e: e.t))], k + 1


def _first(r) -> tuple:
    return r["diagnosis"][0]["fault"], r["diagnosis"][0]["where"]


def _revised_to_jam(out) -> None:
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert ("jam", "R5S8 right outlet") in [(d["fault"], d["where"]) for d in first["diagnosis"]]
    revs = [r for r in out if r["verdict"] == "revised" and r["revises"] == first["drop"]]
    assert revs and _first(revs[-1]) == ("jam", "R5S8 right outlet")


def test_a_stack_pushed_through_by_the_next_coin_is_a_jam_coming_free_not_a_chattering_beam():
    out, release = _run(5, 31, 2, alone=False)
    rec = next(r for r in out if r["drop"] == release)
    assert rec["verdict"] == "mismatch"
    assert _first(rec)[1] == "R5S8 right outlet" and _first(rec)[0] in ("jam", "jam_cleared")
    assert "exit_sensor_chatter" not in [d["fault"] for d in rec["diagnosis"]]
    _revised_to_jam(out)


def test_a_stack_that_lets_go_by_itself_revises_its_drops_to_the_jam():
    out, _ = _run(5, 31, 2, alone=True)
    stray = next(r for r in out if r["drop"] is None and r["verdict"] == "mismatch")
    assert _first(stray)[1] == "R5S8 right outlet"
    _revised_to_jam(out)


def test_a_chute_that_let_go_may_catch_again():
    # The chute lets its three coins go, then catches the next ones again:
    # the next coin lost there is that jam again, not a new dead beam.
    out, release = _run(4, 33, 3, alone=True)
    later = [r for r in out if r["drop"] is not None and r["drop"] > release - 1 and r["verdict"] == "mismatch"]
    assert later and all(_first(r) == ("jam", "R5S8 right outlet") for r in later)
    _revised_to_jam(out)


def test_every_drop_that_lost_a_coin_there_is_revised_even_where_the_dead_beam_looked_sure():
    # Drops 15 and 18 put the dead beam at 0.77 (its prior against a jam's):
    # sure enough not to be followed as a tie, yet its twin is listed.
    out, release = _run(4, 33, 3, alone=False)
    lost = [r["drop"] for r in out if r["drop"] is not None and r["drop"] < release and r["verdict"] == "mismatch"]
    assert len(lost) >= 3
    revised = {r["revises"]: _first(r) for r in out if r["verdict"] == "revised"}
    assert all(revised.get(n) == ("jam", "R5S8 right outlet") for n in lost)
