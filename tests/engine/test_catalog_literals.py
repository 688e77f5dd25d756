"""Every fault name the catalog holds (sensing.md's table and the names the
reconciler reports besides) is spelled in one package module,
``engine/catalog.py``; the rest of the package takes it from there (a
constant, a row, a class's ``name``). ``tests/reconcile/test_catalog.py``
checks the spec's names as whole literals; this also catches every catalog
name, and a name at the head of a fault spec written in code
(``"switch_stuck@R3S2"``)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import coindrel
from coindrel.engine import catalog

ROOT = Path(inspect.getfile(coindrel)).parent
CATALOG_MODULE = ROOT / "engine" / "catalog.py"
# A JSON field that shares a word with a reported name (the health report's
# "unexplained" and "events_lost" counts) is a field, not a fault name: only
# names outside sensing.md's table may be dict keys.
SPEC_TABLE = {"switch_stuck", "switch_unseated", "hall_fault", "pad_not_holding", "exit_sensor_dead",
              "entry_sensor_dead", "exit_sensor_chatter", "entry_sensor_chatter", "moved_by_hand", "coin_added",
              "coin_removed", "jam"}
HEAD = re.compile(r"^([a-z_]+)[@,]")


def fault_literals(source: str, names=frozenset(catalog.CATALOG)) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    docs, keys = set(), set()
    for n in ast.walk(tree):
        body = getattr(n, "body", None)
        if (isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
            docs.add(id(body[0].value))
        if isinstance(n, ast.Dict):
            keys.update(id(k) for k in n.keys if k is not None)
    hits = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str)) or id(n) in docs:
            continue
        v = n.value
        head = HEAD.match(v) if " " not in v else None
        name = v if v in names else head.group(1) if head and head.group(1) in names else None
        if name is None or (id(n) in keys and name not in SPEC_TABLE):
            continue
        hits.append((n.lineno, v))
    return sorted(hits)


def test_the_catalog_spells_every_name_and_no_other_package_module_does():
    assert SPEC_TABLE <= set(catalog.CATALOG)
    assert {v for _, v in fault_literals(CATALOG_MODULE.read_text(encoding="utf-8"))} == set(catalog.CATALOG)
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        if path == CATALOG_MODULE:
            continue
        hits = fault_literals(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}, f"fault names spelled outside engine/catalog.py (use the catalog's constants): {found}"


def test_the_check_finds_names_comparisons_and_specs_but_not_prose_or_json_fields():
    src = '''"""A docstring may say jam."""
X = "jam"
if f.name == "events_lost":
    pass
spec = "switch_stuck@R3S2,t=5"
help = "e.g. switch_stuck@R3S2 or jam@R3S2"
row = {"unexplained": 3, "coin_added": 1}
def f():
    """hall_fault: a docstring."""
    return "jammed", "stray_coins"
'''
    assert fault_literals(src) == [(2, "jam"), (3, "events_lost"), (5, "switch_stuck@R3S2,t=5"), (7, "coin_added")]
