"""The table flow on a fake clock, fed reconciler reports: what the flow tests share."""

from coindrel.display import page_count
from coindrel.engine import BoardState, drop, standard_geometry
from coindrel.reconcile.report import DropReport
from coindrel.table.flow import TableFlow
from coindrel.table.setupmenu import Choices

G = standard_geometry()
FLAT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def make_flow(board=FLAT, dropper=False, **choices):
    flow = TableFlow(G, Choices(**choices), new_seed=lambda: 1234,
                     read_board=lambda: BoardState.parse(board) if board else None, has_dropper=dropper)
    return flow


def kinds(flow):
    out = [(e.kind, e.name, e.entry) for e in flow.effects]
    flow.effects.clear()
    return out


def started(flow, now=0.0):
    flow.on_action("select", now)  # Start match
    assert flow.mode == "reveal"
    flow.on_action("select", now + 1)
    assert flow.mode == "turn"
    return flow.match


def report_for(match, entry, n, verdict="ok", seen=None, diagnosis=(), t=0.0):
    """What a reconciler reports for a healthy (or described) drop."""
    o = drop(match.board, [entry])
    return DropReport(drop=n, entry=entry, entry_seen=True, t=t, expected_exits=o.exits,
                      observed_exits=o.exits if seen is None else seen, verdict=verdict,
                      diagnosis=list(diagnosis), state=o.board.rows(), scored_exits=o.exits)


def choose(flow, option, now):
    """Answer the mismatch screen as a person does: press to the choices, turn to ``option``, press."""
    flow.on_action("select", now)
    assert flow.view(now).page == page_count(flow.view(now)) - 1, "a press on the words goes to the choices"
    while flow.view(now).options[flow.view(now).selected] != option:
        flow.on_action("next", now)
    flow.on_action("select", now)
