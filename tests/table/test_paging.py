"""The knob and the press on a paged notice (the mismatch screen)."""

from coindrel.display import DiagnosisView, page_count
from coindrel.table.paging import turn_notice

OPTIONS = ("Board is right", "Correct score", "Undo last drop")
LONG = ("R4S2's hall sensor disagrees with what the cascade proves (wrong side, stuck or drifted reading): "
        "check the sensor and recalibrate.", "No single fault or pair of faults explains what the board did.")


def walk(view, actions):
    pages = page_count(view)
    chosen = None
    for a in actions:
        view, chosen = turn_notice(view, a, pages)
        if chosen is not None:
            break
    return view, chosen


def test_the_knob_reads_every_page_then_the_choices_without_wrapping():
    v = DiagnosisView("Check board", LONG, OPTIONS, drop=4, facts=("Exits: expected 4; seen 4 6.",))
    pages = page_count(v)
    assert pages >= 4  # several pages of words, then the choices
    seen = [v.page]
    for _ in range(pages + 5):
        v, chosen = turn_notice(v, "next", pages)
        assert chosen is None
        seen.append((v.page, v.selected))
    assert [s for s in seen[1:pages]] == [(k, 0) for k in range(1, pages)]
    assert v.page == pages - 1 and v.selected == len(OPTIONS) - 1  # stops on the last choice
    for _ in range(len(OPTIONS) - 1):
        v, _ = turn_notice(v, "prev", pages)
    assert (v.page, v.selected) == (pages - 1, 0)
    v, _ = turn_notice(v, "prev", pages)
    assert v.page == pages - 2  # back into the words


def test_a_press_on_the_words_goes_to_the_choices_and_a_press_there_chooses():
    v = DiagnosisView("Check board", LONG, OPTIONS, drop=4)
    v, chosen = walk(v, ["select"])
    assert chosen is None and v.page == page_count(v) - 1 and v.selected == 0
    assert walk(v, ["next", "next", "select"])[1] == "Undo last drop"
    assert walk(v, ["hold-select"])[1] == "Board is right"


def test_back_leaves_with_the_default_choice_from_any_page():
    v = DiagnosisView("Check board", LONG, OPTIONS, drop=4)
    assert walk(v, ["back"])[1] == "Board is right"
    assert walk(v, ["next", "next", "back"])[1] == "Board is right"
    assert walk(v, ["select", "next", "back"])[1] == "Board is right"  # not the one marked: back never undoes


def test_a_single_option_notice_is_taken_by_a_press_on_any_page():
    v = DiagnosisView("About drop 7", LONG, ("OK",))
    v, chosen = walk(v, ["next"])
    assert chosen is None and v.page == 1
    assert walk(v, ["select"])[1] == "OK"
