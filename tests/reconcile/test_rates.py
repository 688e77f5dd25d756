"""reconcile.rates: a known fault's rate from the drops it acted on and spared."""

import math
from types import SimpleNamespace

from coindrel.engine import SwitchStuck
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.rates import INTERMITTENT_AT_ALL, Rates


def best(shown=(), spared=(), unshown=()):
    return SimpleNamespace(shown=lambda: list(shown), spared=list(spared), derivation=SimpleNamespace(unshown=list(unshown)))


def test_no_rate_until_the_fault_both_acted_and_missed():
    f = SwitchStuck("R3S2")
    r = Rates()
    assert r.rate(f) is None
    r.count(best(shown=[f]))
    assert r.rate(f) is None and r.rated(Finding(f, 0.9)).rate is None
    r.count(best(spared=[f]))
    r.count(best(shown=[f]))
    assert r.rate(f) == 2 / 3
    assert r.rated(Finding(f, 0.9)).rate == 2 / 3


def test_sparing_grows_likelier_the_more_often_it_was_seen():
    f = SwitchStuck("R1S1")
    r = Rates()
    first = r.spare_cost(f)
    assert first == math.log(INTERMITTENT_AT_ALL * 1 / 2)
    r.count(best(shown=[f]))
    r.count(best(shown=[f]))
    assert r.spare_cost(f) < first  # acted twice: a pass now is less likely
    r.count(best(spared=[f]))
    r.count(best(unshown=[f]))
    assert r.spare_cost(f) > math.log(INTERMITTENT_AT_ALL * 1 / 4)
