"""The timing model and the physical facts of sensing.md section 2, checked on
what the simulation does coin by coin and on what the hub reports."""

from __future__ import annotations

import pytest

from coindrel.engine import EngineError
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.virtual import BoardConfig, Collect, PlayerSpec, Scenario, TimingModel, VirtualBoard, build_board
from coindrel.virtual.physics import World


def instrumented(seed=3, overlap=0.5, drops=600, timing=None):
    """A player-driven run with every coin hop, flip and beam recorded."""
    config = BoardConfig(seed=seed, timing=timing or TimingModel())
    signals, out = [], Collect()
    board, _ = build_board(Scenario(config, players=PlayerSpec(overlap=overlap, quick=(0.05, 0.3), drops=drops, matches=20)),
                           outputs=[out], record=signals.append)
    w = board.world
    hops, flips, coins = [], [], []
    fall, arrive, flip, coin = w.fall, w._arrive, w._flip, w._coin

    def rec_fall(s, side, c, now):
        if w.g.outs[s][side] < w.n:  # towards a switch, not an exit
            hops.append(("leave", c, s, now, False))
        fall(s, side, c, now)

    def rec_arrive(s, c):
        hops.append(("arrive", c, s, board.now, w.busy[s]))  # the record keeps the coin alive: ids stay unique
        arrive(s, c)

    def rec_flip(s, t0, duration, side, cascade):
        t1 = flip(s, t0, duration, side, cascade)
        flips.append((s, t0, t1))
        return t1

    def rec_coin(cascade):
        c = coin(cascade)
        coins.append((board.now, sum(x.in_flight for x in w.cascades)))
        return c

    w.fall, w._arrive, w._flip, w._coin = rec_fall, rec_arrive, rec_flip, rec_coin
    board.finish()
    return board, out, signals, hops, flips, coins


@pytest.fixture(scope="module")
def sim():
    return instrumented()


def test_nothing_arrives_before_the_coin_that_caused_it_left_the_row_above(sim):
    board, _, _, hops, _, _ = sim
    g, tm = board.geometry, board.config.timing
    left = {}
    checked = 0
    for kind, coin, s, t, _ in hops:
        if kind == "leave":
            left[coin] = (s, t)
        elif coin in left:
            src, t_leave = left.pop(coin)
            rows = g.row_of[s] - g.row_of[src]
            assert rows >= 1
            assert t - t_leave >= tm.row_fall[0] * rows - 1e-9
            checked += 1
    assert checked > 600


def test_a_coin_that_meets_a_moving_rocker_waits_for_it(sim):
    board, _, _, hops, _, _ = sim
    waited = [h for h in hops if h[0] == "arrive" and h[4]]
    assert waited, "with cascades in flight together, some coin should meet a busy switch"


def test_a_rocker_finishes_one_flip_and_settles_before_the_next(sim):
    board, _, _, _, flips, _ = sim
    tm = board.config.timing
    last: dict[int, float] = {}
    for s, t0, t1 in sorted(flips, key=lambda f: (f[0], f[1])):
        assert tm.flip[0] - 1e-9 <= t1 - t0 <= tm.flip[1] + 1e-9
        if s in last:
            assert t0 >= last[s] + tm.settle[0] - 1e-9
        last[s] = t1
    assert len(flips) > 600


def test_several_coins_are_in_flight_at_once(sim):
    _, _, _, _, _, coins = sim
    assert max(n for _, n in coins) >= 4


def test_beams_are_broken_five_to_forty_ms_once_per_coin(sim):
    board, out, signals, _, _, _ = sim
    edges: dict = {}
    durations = []
    for sig in signals:
        if sig[0] != "beam":
            continue
        _, t, kind, index, broken = sig
        key = (kind, index)
        if broken:
            assert key not in edges, "a beam broken again before it cleared"
            edges[key] = t
        else:
            durations.append(t - edges.pop(key))
    assert durations and min(durations) >= 0.005 - 1e-9 and max(durations) <= 0.040 + 1e-9
    drops = [d for d in board.truth.lines if d["kind"] == "drop"]
    assert sum(isinstance(e, EntryEvent) for e in out.events) == len(drops)
    assert sum(isinstance(e, ExitEvent) for e in out.events) == sum(len(d["exits"]) for d in drops)
    # the hub reports the clearing with how long the coin was in the beam
    assert len(out.clears) == len(durations)
    assert all(0.004 <= c[3] <= 0.041 for c in out.clears)


def test_row_fall_times_and_flip_readings_look_like_a_real_board(sim):
    board, out, _, _, _, _ = sim
    mids = {}
    flip_seen = []
    for ev in out.events:
        if isinstance(ev, SwitchEvent):
            if ev.pos == "mid":
                mids[ev.switch] = ev.t
            elif ev.switch in mids:
                flip_seen.append(ev.t - mids.pop(ev.switch))
    # mid is reported from the scan where the reading left the old side, then the
    # new side from the scan where it arrived (the same scan for a flip faster than a scan)
    assert flip_seen and 0 <= min(flip_seen) and max(flip_seen) <= 0.045
    assert sum(1 for x in flip_seen if x >= 0.004) > len(flip_seen) // 2
    # hub timestamps sit on its scan ticks (250 Hz)
    assert all(abs(ev.t * 250 - round(ev.t * 250)) < 1e-6 for ev in out.events if isinstance(ev, SwitchEvent))


def test_readings_are_noisy_analog_values_inside_the_calibrated_bands(sim):
    board, out, _, _, _, _ = sim
    cal = {board.geometry.labels[s]: c for s, c in enumerate(board.calibration)}
    raws = {"L": [], "R": []}
    for ev in out.events:
        if isinstance(ev, SwitchEvent) and ev.pos in ("L", "R"):
            c = cal[ev.switch]
            centre = c.left if ev.pos == "L" else c.right
            assert abs(ev.raw - centre) <= c.band
            raws[ev.pos].append(ev.raw)
    assert len(set(raws["L"])) > 20 and len(set(raws["R"])) > 20


def test_a_second_coin_in_one_entry_waits_for_the_first_to_clear_the_beam():
    board = VirtualBoard(BoardConfig(seed=1, start="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"), outputs=[out := Collect()])
    board.drop(2, 1.0)
    board.drop(2, 1.001)
    board.finish()
    entries = [e.t for e in out.events if isinstance(e, EntryEvent)]
    assert len(entries) == 2 and entries[1] - entries[0] >= 0.005 + 0.004


def test_timing_that_the_hub_could_not_see_is_refused():
    with pytest.raises(EngineError, match="beam"):
        BoardConfig(timing=TimingModel(beam=(0.0002, 0.004))).check()
    with pytest.raises(EngineError, match="settle"):
        BoardConfig(timing=TimingModel(settle=(0.001, 0.002))).check()
    with pytest.raises(EngineError, match="noise"):
        from coindrel.virtual.hall import HallSpec

        BoardConfig(hall=HallSpec(noise=40.0)).check()


def test_timing_model_from_dict_names_the_bad_key():
    tm = TimingModel.from_dict({"row_fall": [0.07, 0.1], "beam_gap": 0.005, "flip": "0.02:0.03"})
    assert tm.row_fall == (0.07, 0.1) and tm.flip == (0.02, 0.03) and tm.beam_gap == 0.005
    for bad, word in (({"rowfall": 1}, "rowfall"), ({"row_fall": [0.2, 0.1]}, "lo above hi"),
                      ({"row_fall": "x"}, "row_fall"), ({"leave": [0.5, 1.5]}, "fraction"), ({"flip": [0, 0.1]}, "flip")):
        with pytest.raises(EngineError, match=word):
            TimingModel.from_dict(bad)
    slow = TimingModel().scaled(2.0)
    assert slow.row_fall == (0.12, 0.24) and slow.leave == TimingModel().leave
    assert TimingModel.from_dict({"scale": 2}) == slow
    assert TimingModel.from_dict({"scale": 2, "row_fall": [0.05, 0.06]}).row_fall == (0.1, 0.12)
    with pytest.raises(EngineError, match="scale 0"):
        TimingModel.from_dict({"scale": 0})
    assert TimingModel.from_dict(TimingModel().to_dict()) == TimingModel()


def test_world_is_the_engine_switch_rule():
    # the physics imports the engine's rule rather than restating it
    import coindrel.virtual.physics as physics
    from coindrel.engine import switch_rule

    assert physics.switch_rule is switch_rule
    assert World.__module__ == "coindrel.virtual.physics"
