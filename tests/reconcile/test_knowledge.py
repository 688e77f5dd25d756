"""The reconciler's persistent-fault knowledge as plain data
(reconcile/knowledge.py): what a restarted table gives its new reconciler."""

from __future__ import annotations

import json

import pytest

from coindrel.engine import BoardState, HallFault, Jam, SwitchStuck, Variants, standard_geometry
from coindrel.reconcile import Reconciler, knowledge
from coindrel.reconcile.health import FaultRecord
from coindrel.reconcile.world import World

G = standard_geometry()
FLAT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
OTHER = "LLLLLLLL/LRLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def knowing() -> Reconciler:
    rec = Reconciler(G, FLAT)
    flat, other = BoardState.parse(FLAT, G), BoardState.parse(OTHER, G)
    rec.worlds = [World(G, flat.codes, frozenset({HallFault("R2S2"), Jam("R1S4", 0)}), 0.0, (((G.index("R1S4"), 0), 2),)),
                  World(G, other.codes, frozenset({SwitchStuck("R2S2")}), -0.7)]
    rec.drops = 9
    rec.rates.acted[HallFault("R2S2")] = 3
    rec.rates.spared[Jam("R1S4", 0)] = 1
    rec.tracker.records[HallFault("R2S2")] = FaultRecord(HallFault("R2S2"), 4, 9, 5, 4, 0.9, 0.67)
    rec.tracker.drops, rec.tracker.mismatches = 9, 2
    return rec


def test_what_is_dumped_loads_into_a_new_reconciler_as_it_was():
    rec = knowing()
    data = json.loads(json.dumps(knowledge.dump(rec)))  # as the file keeps it
    new = Reconciler(G, FLAT)
    knowledge.load(new, data)
    assert [(w.codes, w.faults, round(w.logw, 6), w.jammed) for w in new.worlds] == \
        [(w.codes, w.faults, round(w.logw, 6), w.jammed) for w in rec.worlds]
    assert new.health().faults == rec.health().faults
    assert new.drops == 9 and new.rates.acted == rec.rates.acted and new.rates.spared == rec.rates.spared
    assert knowledge.dump(new) == knowledge.dump(rec)


def test_on_another_board_as_believed_the_faults_carry_over_and_holes_drop_theirs():
    rec = knowing()
    holes = Reconciler(G, FLAT, Variants(holes=True))
    assert G.index("R2S2") in G.hole_switches  # the Holes variant takes R2S2 out
    knowledge.carry(rec, holes)
    assert holes.worlds[0].codes == Reconciler(G, FLAT, Variants(holes=True)).worlds[0].codes
    assert all(not any(getattr(f, "switch", "") == "R2S2" for f in w.faults) for w in holes.worlds)
    assert Jam("R1S4", 0) in holes.worlds[0].faults and holes.worlds[0].jammed == ()


@pytest.mark.parametrize("change, named", [
    (lambda d: d.update(board="mirrored"), "mirrored"),
    (lambda d: d["worlds"][0]["faults"].append(["switch_stuck", "R9S9"]), "R9S9"),
    (lambda d: d["worlds"][0]["faults"].append(["moved_by_hand", "R1S1"]), "not a persistent fault"),
    (lambda d: d["worlds"][0].update(logw=3.0), "log weight"),
    (lambda d: d["worlds"][0].update(codes=[9] * G.switch_count), "switch code"),
    (lambda d: d["records"][0].update(reports=-1), "count"),
    (lambda d: d.pop("worlds"), "missing"),
    (lambda d: d.update(version=99), "version"),
])
def test_a_record_that_does_not_read_is_named_and_changes_nothing(change, named):
    data = knowledge.dump(knowing())
    change(data)
    new = Reconciler(G, FLAT)
    before = knowledge.dump(new)
    with pytest.raises(ValueError, match=named):
        knowledge.load(new, data)
    assert knowledge.dump(new) == before
