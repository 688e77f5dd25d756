"""The scenario logs in scenarios/: each reconciles as its .expect.json says.

Expectation keys: ``drops`` (numbered reports), ``ok: "all"`` (every numbered
drop ok), ``first_mismatch`` (the first numbered drop that is a mismatch),
``listed`` (faults among that drop's diagnoses), ``top`` (its first
diagnosis), ``outside`` (faults in the reports of events outside drops),
``unseen`` / ``entry_of`` / ``listed_at`` (inferred drops), ``health``
(persistent faults the health report lists), ``problems`` (damaged lines).
"""

import json

import pytest

from coindrel.reconcile.offline import load, reconcile_log

from .helpers import SCENARIOS, expectation, keys, scenario_names


@pytest.mark.parametrize("name", scenario_names())
def test_scenario(name):
    expect = expectation(name)
    log = load(SCENARIOS / f"{name}.jsonl")
    rec, reports = reconcile_log(log)
    reports = list(reports)
    drops = [r for r in reports if r.drop is not None]
    outside = [r for r in reports if r.drop is None]
    assert [r.drop for r in drops] == list(range(1, expect["drops"] + 1))
    if expect.get("ok") == "all":
        assert all(r.ok for r in drops), [r.to_json() for r in drops if not r.ok]
    if "first_mismatch" in expect:
        first = next(r for r in drops if not r.ok)
        assert first.drop == expect["first_mismatch"]
        for fault in expect.get("listed", []):
            assert tuple(fault) in keys(first)
        if "top" in expect:
            assert keys(first)[0] == tuple(expect["top"])
        assert all(r.ok for r in drops if r.drop < first.drop)
    if "outside" in expect:
        found = {k for r in outside for k in keys(r)}
        for fault in expect["outside"]:
            assert tuple(fault) in found
        assert all(not r.ok for r in outside)
    for n in expect.get("unseen", []):
        r = drops[n - 1]
        assert not r.entry_seen and not r.ok
        assert r.entry + 1 == expect["entry_of"][str(n)]
        for fault in expect["listed_at"][str(n)]:
            assert tuple(fault) in keys(r)
    if "health" in expect:
        listed = {(f["fault"], f["where"]) for f in rec.health().faults}
        for fault in expect["health"]:
            assert tuple(fault) in listed
    assert len(log.problems) == expect.get("problems", 0)
    # Every line is sensing.md section 4's shape and survives JSON.
    for r in reports:
        assert json.loads(json.dumps(r.to_json()))["verdict"] in ("ok", "mismatch")
