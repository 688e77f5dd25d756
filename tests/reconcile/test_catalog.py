"""The fault catalog (coindrel.engine.catalog) is the one place a fault's
vocabulary lives: every row has its class, its as-if hook, its sentence and
(when injectable) the virtual board's injection; no other package module
spells a fault name."""

import ast
import inspect
from pathlib import Path

import pytest

import coindrel
from coindrel.engine import catalog, standard_geometry
from coindrel.engine.faults import BY_NAME
from coindrel.reconcile import faults as rfaults  # noqa: F401 - registers the reconciler's fault classes
from coindrel.reconcile.faults import fault_from_key, say
from coindrel.reconcile.reconciler import Reconciler
from coindrel.reconcile.search import HOOKS, MOVE_KINDS

# sensing.md section 4's table, written out here on purpose: the catalog must hold them all.
SENSING_NAMES = (
    "switch_stuck", "switch_unseated", "hall_fault", "pad_not_holding", "exit_sensor_dead", "entry_sensor_dead",
    "exit_sensor_chatter", "entry_sensor_chatter", "moved_by_hand", "coin_added", "coin_removed", "jam",
)
PLACES = {
    catalog.Place.SWITCH: "R3S2",
    catalog.Place.OUTLET: "R3S2 left outlet",
    catalog.Place.EXIT: "exit 10",
    catalog.Place.ENTRY: "entry 4",
    catalog.Place.LINK: "hub link",
    catalog.Place.BOARD: "board",
}


def test_the_catalog_holds_every_name_of_the_spec():
    assert set(SENSING_NAMES) <= set(catalog.CATALOG)


@pytest.mark.parametrize("row", catalog.ROWS, ids=lambda r: r.name)
def test_every_row_has_its_class_hook_sentence_and_injection(row):
    cls = BY_NAME.get(row.name)
    assert cls is not None, f"{row.name}: no Fault class with this name"
    g = standard_geometry()
    where = PLACES[row.place]
    if row.place not in (catalog.Place.LINK, catalog.Place.BOARD):
        f = fault_from_key(row.name, where, g)
        assert (f.name, f.where) == (row.name, where)
        text = say(f)
        assert "{" not in text and text.endswith(".") and text[0].isupper()
    assert 0 < row.prior <= 1
    if row.asif is catalog.AsIf.REPORT:
        assert row.name in HOOKS or hasattr(Reconciler, Reconciler.REPORTS.get(row.name, "-")), f"{row.name}: no reporting hook"
    else:
        hook = HOOKS.get(row.name)
        assert hook is not None, f"{row.name}: no as-if hook in reconcile.search.HOOKS"
        assert callable(hook) or hook in MOVE_KINDS
    if row.asif is catalog.AsIf.PHYSICS:
        assert cls.physical and cls.__module__ == "coindrel.engine.faults"
    if row.inject is not None:
        pytest.importorskip("coindrel.virtual")
        from coindrel.virtual import faults as vfaults
        from coindrel.virtual import inject

        assert row.name in vfaults.ALL
        assert row.name in inject.STARTS or row.name in inject.ONE_OFF_ACTIONS, f"{row.name}: the virtual board cannot inject it"


def _fault_literals(path: Path) -> list:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set(SENSING_NAMES)
    return [(n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in names]


def test_no_package_module_but_the_catalog_spells_a_fault_name():
    root = Path(inspect.getfile(coindrel)).parent
    found = {}
    for path in sorted(root.rglob("*.py")):
        if path.name == "catalog.py" and path.parent.name == "engine":
            continue
        hits = _fault_literals(path)
        if hits:
            found[str(path.relative_to(root))] = hits
    assert found == {}, f"fault names spelled outside engine/catalog.py: {found}"


def test_the_literal_check_can_fail(tmp_path):
    p = tmp_path / "m.py"
    p.write_text('X = "jam"\n', encoding="utf-8")
    assert _fault_literals(p) == [(1, "jam")]
