"""Shared helpers for the reconciler tests: running a log or a synthetic run
through the live reconciler, and reading the scenario files."""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.reconcile import Reconciler

SCENARIOS = Path(__file__).parent / "scenarios"


def run_events(rec: Reconciler, events) -> list:
    """Feed events as the daemon would (polling with each event's time)."""
    out = []
    for ev in events:
        rec.feed(ev)
        out.extend(rec.poll(ev.t))
    out.extend(rec.flush())
    return out


def reconcile_run(run, start) -> tuple[Reconciler, list]:
    rec = Reconciler(start.geometry, start, run.header.variants)
    return rec, run_events(rec, run.events)


def keys(report) -> list:
    return [(f.fault.name, f.fault.where) for f in report.diagnosis]


def scenario_names() -> list[str]:
    return sorted(p.name[: -len(".expect.json")] for p in SCENARIOS.glob("*.expect.json"))


def expectation(name: str) -> dict:
    return json.loads((SCENARIOS / f"{name}.expect.json").read_text(encoding="utf-8"))
