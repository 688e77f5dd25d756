"""One or more views of every kind, used by the golden images, the render
invariants and the benchmark. Changing one changes its golden image:
regenerate on purpose (see conftest.py)."""

from coindrel.display import (
    ClubRequestView,
    ConnectionView,
    DiagnosisView,
    HistoryItem,
    HistoryView,
    LessonView,
    MatchResultView,
    MatchView,
    MenuItem,
    MenuView,
    MessageView,
    NameEntryView,
    RevealView,
    RoundResultView,
    TextView,
    mismatch_view,
    revision_view,
    rules_view,
    stray_view,
)
from coindrel.engine import VALUES, EntrySensorDead, ExitSensorDead, HallFault, Jam, SwitchStuck
from coindrel.events import ExitEvent
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.faults import StrayCoin, Unexplained
from coindrel.reconcile.report import DropReport


def _report(drop, entry, expected, observed, flips=({}, {}), seen=True, findings=()):
    """A reconciler's report, shaped as the reconciler writes it (0-based
    numbers inside); the findings say what the real fault vocabulary says."""
    return DropReport(drop=drop, entry=entry, entry_seen=seen, t=0.0, expected_exits=expected,
                      expected_flips=flips[0], observed_exits=observed, observed_flips=flips[1],
                      verdict="mismatch", diagnosis=[Finding(f, 0.8) for f in findings])


STUCK = {"R1S3": 1, "R2S3": 1, "R3S2": 1}, {"R1S3": 1, "R2S3": 1, "R3S2": 0}
CASCADE = ({"R1S5": 1, "R2S4": 1, "R3S2": 1, "R4S1": 1, "R5S1": 1, "R5S2": 1},
           {"R1S5": 1, "R2S4": 1, "R3S2": 0, "R4S1": 0, "R5S1": 0, "R5S2": 0})

LONG = "Bartholomew Maximilian Featherstonehaugh"

SETUP_ITEMS = (
    MenuItem("Clock", "60 s"), MenuItem("Holes", "off"), MenuItem("Halved final round", "on"),
    MenuItem("Shuffled exits", "off"), MenuItem("Player 1", "Alice"), MenuItem("Player 2", "Bob"),
    MenuItem("Rules"), MenuItem("Lessons"), MenuItem("History"), MenuItem("Start match"),
)

HUB_LOST_REASON = ("hub on /dev/coindrel-hub: no data from the hub for 3.2 s (unplugged, reset or stuck); waiting "
                   "for it to come back (the match waits; events meanwhile cannot be seen)")

SAMPLES = {
    "match": MatchView(("Alice", "Bob"), 2, 40, VALUES[1], (12, 7), (31, 40), 1, "Alice to drop", clock=27.3),
    "match_hit": MatchView(("Alice", "Bob"), 2, 40, VALUES[1], (15, 7), (34, 40), None, "Alice scores 3 + 3",
                           clock=None, hit_exits=(3, 12)),
    "match_last_drop": MatchView(("Alice", LONG), 4, 80, VALUES[3], (81, 60), (150, 149), 2,
                                 "Last drop of the round", alert=True, clock=4.2),
    "match_paused": MatchView(("Alice", "Bob"), 3, 20, VALUES[2], (4, 9), (54, 57), 1, "Paused", clock=41.0,
                              paused=True),
    "match_forced": MatchView(("Alice", "Bob"), 1, 10, VALUES[0], (6, 4), (6, 4), 2, "Drop in entry 5",
                              alert=True, clock=0.0),
    "match_hub": MatchView(("Alice", "Bob"), 1, 10, VALUES[0], (0, 0), (0, 0), 1, "Waiting for the hub",
                           clock=None),
    "reveal": RevealView(2, 40, VALUES[1]),
    "reveal_shuffled_part": RevealView(3, 20, (3, 8, 1, 5, 7, 2, 6, 4, 8, 1, 2, 3, 4, 5, 6, 7), shown=9,
                                       shuffled=True),
    "round_result": RoundResultView(2, ("Alice", "Bob"), (41, 38), (53, 49), 1, 3, 20),
    "round_drawn": RoundResultView(1, ("Alice", "Bob"), (10, 10), (10, 10), None, 2, 40),
    "match_won": MatchResultView(("Alice", "Bob"), (182, 175), 1, ((10, 8), (41, 38), (22, 29), (109, 100))),
    "match_draw": MatchResultView(("Alice", "Bob"), (120, 120), None, ((10, 12), (40, 38), (20, 20), (50, 50))),
    "setup_menu": MenuView("New match", SETUP_ITEMS, selected=2, hint="turn: move  press: change"),
    "setup_menu_end": MenuView("New match", SETUP_ITEMS, selected=9),
    "clock_menu": MenuView("Turn clock", (MenuItem("30 s"), MenuItem("60 s"), MenuItem("120 s"),
                                          MenuItem("Turbo 5 s"), MenuItem("No clock", enabled=False)), selected=3),
    "name_entry": NameEntryView("Player 1 name", "Alice", cursor=5),
    "name_entry_mid": NameEntryView("Player 2 name", "Bob", cursor=1),
    "rules": rules_view(),
    # after lost board events (table/modes_pads.py's text, for a belief with three resting coins)
    "check_pads": TextView("Check the pads", "Coins may have fallen unseen. Table: coins on R1S3 R2S5 R4S1 only. "
                           "A pad that differs shows at its next drop (no fault). Press to play on."),
    "rules_scrolled": rules_view(scroll=40),
    "lesson": LessonView("Pads", 2, 7, "Drop in entry 3: the coin rests on the pad of R1S3.",
                         board="LLlLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/RRRRRRRR", highlight=("R1S3",), entry=2),
    "lesson_holes": LessonView("Holes", 5, 7, "A coin reaching a hole leaves the board and scores nothing.",
                               board="LLLLLLLL/LoLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL", highlight=("R2S2", "R4S3"),
                               exits=(4, 5)),
    "history": HistoryView("History", (
        HistoryItem("12 Mar 19:40", ("Alice", "Bob"), (182, 175), 1),
        HistoryItem("11 Mar 20:02", ("Carl", "Dee"), (120, 120), None),
        HistoryItem("9 Mar 18:15", ("Alice", LONG), (99, 140), 2),
        HistoryItem("2 Mar 21:30", ("Eve", "Finn"), (130, 129), 1),
    ), selected=1),
    "history_empty": HistoryView("History", ()),
    "diagnosis": DiagnosisView("check the board", ("R3S2 stuck?", "exit 10 dead?"),
                               ("Board is right", "Undo last drop", "Fix switches"), 1, (8, 9), (8,), 7),
    # the mismatch screen, one per kind of mismatch (every page of each is checked)
    # (as `coindrel sim --fault switch_stuck@R3S2,t=20` met it: the rocker held back a cascade)
    "mismatch_exits": mismatch_view(_report(15, 4, (0, 1, 2, 3, 4), (4,), CASCADE, findings=(SwitchStuck("R3S2"),))),
    "mismatch_flips": mismatch_view(_report(9, 2, (2, 4), (2, 4), STUCK, findings=(SwitchStuck("R3S2"),))),
    "mismatch_entry": mismatch_view(_report(3, 3, (5,), (5,), seen=False, findings=(EntrySensorDead(3),))),
    "mismatch_several": mismatch_view(_report(22, 6, (9, 12), (12,), findings=(ExitSensorDead(9), Jam("R5S5", 1)))),
    "mismatch_long": mismatch_view(_report(31, 1, (3,), (3, 5), ({"R4S2": 1}, {"R4S2": 0, "R4S3": 1}),
                                           findings=(HallFault("R4S2"), Unexplained())),
                                   facts=("Coin in entry 2; the clock chose entry 7.",)),
    "not_a_drop": stray_view(DropReport(drop=None, entry=None, entry_seen=False, t=0.0, verdict="mismatch",
                                        events=[ExitEvent(0.0, 4)], diagnosis=[Finding(StrayCoin(4), 0.9)])),
    "revision": revision_view(7, ("Earlier, exit 4 missed a coin. Exit 4 works now: a coin is probably stuck "
                                  "below R5S2 \u2014 look there.",)),
    "hub_lost": ConnectionView(attempts=3, since=12.4, where="/dev/ttyACM0"),
    "hub_lost_long": ConnectionView(attempts=42, since=754.0, where="/dev/serial/by-id/usb-coindrel-hub-if00"),
    # what the flow shows: the link's own reason, which was cut to "hub on /dev/coindr..."
    "hub_lost_reason": ConnectionView(detail=HUB_LOST_REASON, since=14.2),
    "hub_lost_unplugged": ConnectionView(detail="the hub's port went away (virtual hub unplugged)", since=75.0),
    "message": MessageView("Remove switches", "Holes variant: take out R2S2, R2S6, R4S3 and R4S5, then press.",
                           alert=True),
    "message_plain": MessageView("Starting", "Reading the switches..."),
    # the think-ahead hint over a turn: the turn clock stays in the corner, boxed when 5 s or less are left
    "hint": MessageView("Think ahead", "Best: entry 5\n9 points now\nReply: 2 (entry 3)\nReaches the target", clock=27.4),
    "hint_turbo": MessageView("Think ahead", "Best: entry 5\n9 points now\nReply: 2 (entry 3)", clock=3.2),
    "not_a_drop_in_turn": stray_view(DropReport(drop=None, entry=None, entry_seen=False, t=0.0, verdict="mismatch",
                                                events=[ExitEvent(0.0, 11)])).__class__(
        "Not a drop", ("A hand in the board, or a coin put in an exit.",), ("OK",), facts=("Seen: exit 12.",), clock=4.0),
    # a club asks for a match: the names whole, the clock and the variants, and how to answer
    "club_request": ClubRequestView(("Ann", "Bo"), "60 s", ("Holes", "Halved")),
    "club_request_long": ClubRequestView(("Maximiliana", "Bartholomew"), "Turbo 5s", ("Holes", "Halved", "Shuffled"),
                                         waiting=2),
}

# Sizes with golden images: the usual panel, a wide greyscale one (SSD1322),
# a square one (SSD1327 / SH1107 turned).
GOLDEN_SIZES = ((128, 64), (256, 64), (128, 128))
# Every sample at the usual size; a selection at the larger ones.
LARGE_SAMPLES = ("match", "match_last_drop", "reveal", "round_result", "match_won", "setup_menu", "rules",
                 "lesson", "diagnosis", "hub_lost", "club_request")
