"""Every scenario file in tests/scenarios runs, and does what its [expect] says.

Fault scenarios show that each fault changes what is observed the way its
physical description (sensing.md section 4) says; where the engine models the
fault, the virtual physics and beams must agree with ``predict`` exactly.
"""

from __future__ import annotations

import dataclasses

import pytest

from coindrel.engine import BoardState, predict
from coindrel.virtual.faults import engine_fault

from .harness import SCENARIOS, event_json, matches, run
from .oracle import check_physical_facts, compare_with_engine, groups, observed_in, settled_changes, window
from coindrel.virtual import load_scenario

PATHS = sorted(SCENARIOS.glob("**/*.toml"))
HEALTHY = [p for p in PATHS if not load_scenario(p).faults]
ENGINE_FAULTS = [p for p in PATHS if load_scenario(p).expect.get("engine_faults")]
_RUNS: dict = {}


def _id(p):
    return str(p.relative_to(SCENARIOS))


def _ran(path):
    if path not in _RUNS:
        scn = load_scenario(path)
        _RUNS[path] = (scn, run(scn))
    return _RUNS[path]


@pytest.fixture(params=PATHS, ids=_id)
def ran(request):
    return _ran(request.param)


@pytest.fixture(params=HEALTHY, ids=_id)
def healthy(request):
    return _ran(request.param)


@pytest.fixture(params=ENGINE_FAULTS, ids=_id)
def engine_faulty(request):
    return _ran(request.param)


def test_there_are_healthy_and_engine_fault_scenarios():
    assert len(HEALTHY) >= 4 and len(ENGINE_FAULTS) >= 8


def test_there_is_a_scenario_for_every_board_fault():
    from coindrel.virtual.faults import ALL

    named = set()
    for p in PATHS:
        named |= {f.name for f in load_scenario(p).faults}
    assert named == set(ALL), f"no scenario for {sorted(set(ALL) - named)}"


def test_log_reads_back_without_problems(ran):
    scn, r = ran
    assert r.log.problems == []
    assert r.log.header.extra["seed"] == scn.config.seed
    assert list(r.log.header.state) == r.board.start.rows()


def test_physical_facts_hold(ran):
    """Only a faulty sensor may break them (its reading jumps when the fault starts)."""
    _, r = ran
    faulty = {f.where for f in r.board.fault_list if f.name == "hall_fault"}
    assert [p for p in check_physical_facts(r.events) if p.split()[0] not in faulty] == []


def test_expectations(ran):
    scn, r = ran
    exp = scn.expect
    events = [event_json(e) for e in r.events]
    for want in exp.get("truth", []):
        assert any(matches(want, line) for line in r.truth), f"no ground-truth line like {want}"
    for want in exp.get("seen", []):
        assert any(matches(want, e) for e in events), f"no event like {want}"
    for want in exp.get("unseen", []):
        found = [e for e in events if matches(want, e)]
        assert not found, f"unexpected {found[:3]}"
    for want in exp.get("count", []):
        n = sum(1 for e in events if matches(want, e))
        assert n == want["n"], f"{n} events like {want}, expected {want['n']}"
    drops = [d for d in r.truth if d["kind"] == "drop"]
    assert drops or not (scn.drops or scn.players)
    if exp.get("as_engine"):
        assert all(d["as_engine"] is not False for d in drops), [d for d in drops if d["as_engine"] is False][:2]
    if exp.get("overlaps"):
        assert any(d["overlap"] for d in drops)
    if exp.get("swallowed"):
        assert any(d["swallowed"] for d in drops)
    if exp.get("same_log_as_healthy"):
        from coindrel.virtual.faults import LINK

        clean = dataclasses.replace(scn, faults=[f for f in scn.faults if f.name not in LINK])
        assert run(clean).log_text == r.log_text


def test_healthy_scenarios_observe_exactly_the_engine(healthy):
    scn, r = healthy
    problems = compare_with_engine(r.events, r.truth, r.board.geometry, r.board.start.rows())
    assert problems == []


def test_faults_the_engine_models_agree_with_predict(engine_faulty):
    scn, r = engine_faulty
    g = r.board.geometry
    specs = r.board.fault_list
    start = BoardState.parse(r.board.start.rows(), g)
    start_pos = {g.labels[s]: ("none" if p is None else "LR"[p]) for s, p in enumerate(start.pads())}
    changes, _, _ = settled_changes(r.events, start_pos)
    checked = 0
    gs = groups(r.truth)
    for i, group in enumerate(gs):
        if len(group) > 1:
            continue
        d = group[0]
        active = [f for f in specs if f.persistent and f.t <= d["t"] and (f.until is None or f.until > d["t_end"])]
        faults = [engine_fault(f, g) for f in active]
        faults = [f for f in faults if f is not None]
        if not faults:
            continue
        p = predict(BoardState.parse(d["before"], g), [d["entry"] - 1], faults)
        assert d["exits"] == [x + 1 for x in p.outcome.exits]
        assert d["flips"] == p.outcome.flips_by_label()
        assert d["after"] == p.outcome.board.text()
        t0, t1 = window(gs, i)
        t1 = min([t1] + [x["t"] - 1e-6 for x in r.truth if x["kind"] == "stray" and x["t"] > t0])  # a released jam
        seen = observed_in(r.events, t0, t1, changes)
        assert seen["entries"] == list(p.observed.entries)
        assert seen["exits"] == list(p.observed.exits)
        for s, n in enumerate(p.observed.flips):
            if n is not None:
                assert seen["flips"].get(g.labels[s], 0) == n, g.labels[s]
        checked += 1
    assert checked, "no drop was made while the fault was active"
