"""The mismatch screen and the other paged notices: what they say, in words a
player knows, and that every word of it can be read on the panel."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coindrel.display import DiagnosisView, mismatch_view, notice_text, page_count, render, revision_view, stray_view
from coindrel.display import text as T
from coindrel.display.notices import drop_facts, paragraphs
from coindrel.display.screens_notice import GAP, _area, text_pages
from coindrel.display.widgets import panel
from coindrel.engine import SwitchStuck
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.report import DropReport

from .samples import SAMPLES

NOTICES = {name: v for name, v in SAMPLES.items() if isinstance(v, DiagnosisView)}
SIZES = [(128, 64), (256, 64), (128, 128), (160, 80)]


def report(**kw):
    base = dict(drop=15, entry=4, entry_seen=True, t=0.0, verdict="mismatch")
    base.update(kw)
    return DropReport(**base)


def test_exits_are_named_as_exits_expected_and_seen_one_based():
    v = mismatch_view(report(expected_exits=(0, 1, 2, 3, 4), observed_exits=(4,)))
    assert v.facts[0] == "Exits: expected 1 2 3 4 5; seen 5."
    assert "Drop 15" in notice_text(v)


def test_a_mismatch_in_flips_says_which_switch_and_never_reads_as_no_difference():
    # Same exits on both sides: the old screen showed "WANT 3,5 SAW 3,5".
    flips = {"R1S3": 1, "R3S2": 1}, {"R1S3": 1, "R3S2": 0}
    v = mismatch_view(report(expected_exits=(2, 4), observed_exits=(2, 4), expected_flips=flips[0],
                             observed_flips=flips[1], diagnosis=[Finding(SwitchStuck("R3S2"), 0.9)]))
    text = notice_text(v)
    assert "R3S2 should have flipped" in text and "R1S3" not in text
    assert "expected 3 5; seen 3 5" not in text and "WANT" not in text.upper().split()
    assert "Likely: R3S2 did not flip when a coin passed its lever: the rocker is stuck." in text


@pytest.mark.parametrize("want,got,says", [
    (0, 1, "R2S4 flipped; it should not have."),
    (2, 1, "R2S4 flipped once; it should have flipped twice."),
    (3, 0, "R2S4 should have flipped 3 times, but did not."),
])
def test_flip_counts_in_words(want, got, says):
    facts = drop_facts(report(expected_flips={"R2S4": want} if want else {}, observed_flips={"R2S4": got}))
    assert facts == [says]


def test_switches_alike_are_named_in_one_sentence_in_board_order():
    facts = drop_facts(report(expected_flips={"R5S2": 1, "R3S2": 1, "R4S1": 1, "R1S1": 1, "R2S2": 2},
                              observed_flips={"R5S2": 0, "R3S2": 0, "R4S1": 0, "R1S1": 1, "R2S2": 1, "R2S3": 1}))
    assert facts == ["R3S2, R4S1 and R5S2 should have flipped, but did not.", "R2S3 flipped; it should not have.",
                     "R2S2 flipped once; it should have flipped twice."]


def test_a_switch_no_sensor_can_see_is_not_called_a_difference():
    facts = drop_facts(report(expected_exits=(3,), observed_exits=(3,), expected_flips={"R1S1": 1},
                              observed_flips={"R1S1": None}))
    assert facts == ["Exits as expected (4), but the sensors disagree."]


def test_a_drop_whose_readings_were_lost_says_so_not_that_the_sensors_disagree():
    """Found by a newcomer: "Exits as expected (none), but the sensors disagree." when the hub link had
    lost events and no sensor disagreed with anything."""
    from coindrel.reconcile.belief import Finding
    from coindrel.reconcile.faults import EventsLost

    facts = drop_facts(report(expected_exits=(), observed_exits=(), diagnosis=[Finding(EventsLost(count=13), 1.0)]))
    assert facts == ["Exits as seen (none), but some sensor readings never arrived."]


def test_an_entry_the_beam_missed_and_a_coin_outside_any_drop():
    v = mismatch_view(report(entry=3, entry_seen=False, expected_exits=(5,), observed_exits=(5,)))
    assert v.facts == ("No coin seen going in; the exits say entry 4.",)
    assert v.findings  # a mismatch always says something about why
    from coindrel.events import ExitEvent

    s = stray_view(report(drop=None, entry=None, events=[ExitEvent(1.0, 4)]))
    assert s.options == ("OK",) and "Seen: exit 5" in s.facts[0]


def test_an_ok_drop_with_a_forced_entry_blames_no_fault():
    v = mismatch_view(report(verdict="ok", expected_exits=(2,), observed_exits=(2,)),
                      facts=("Coin in entry 2; the clock chose entry 7.",))
    assert v.findings == () and v.facts == ("Coin in entry 2; the clock chose entry 7.",)


def _words(lines):
    # every character but the spaces, in order: a word too wide for a line is split, never lost
    return "".join(" ".join(lines).split())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", sorted(NOTICES))
def test_every_word_is_on_some_page_and_every_line_fits(name, size):
    view = NOTICES[name]
    p = panel(size)
    pages = text_pages(view, p)
    _, per_page, width = _area(p)
    assert _words(line for page in pages for line in page) == _words(T.displayable(x, p.body) for x in paragraphs(view))
    for page in pages:
        assert 1 <= len(page) <= per_page
        for line in page:
            assert T.spaced_width(line, p.body, GAP) <= width, line
    assert page_count(view, size) == len(pages) + (len(view.options) > 1)


@pytest.mark.parametrize("name", sorted(NOTICES))
def test_every_page_leaves_a_blank_row_above_the_footer_and_the_last_column(name):
    view = NOTICES[name]
    for page in range(page_count(view) + 2):  # pages past the end show the last one
        img = render(replace(view, page=page))
        footer = 63 - T.TINY_HEIGHT
        assert img.crop((0, footer - 1, 128, footer)).getbbox() is None, f"{name} page {page + 1}: text on the footer"
        assert img.crop((127, 0, 128, 64)).getbbox() is None


def test_the_revision_notice_uses_the_same_screen():
    v = revision_view(7, ("Earlier, exit 4 missed a coin. Exit 4 works now: a coin is probably stuck below R5S2.",))
    assert v.title == "About drop 7" and v.options == ("OK",)
    assert paragraphs(v) == [v.findings[0]]  # no "Likely:": it is the reconciler's own conclusion
    assert page_count(v) == len(text_pages(v, panel((128, 64))))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abcdefghij KLMNOP0123456789.,;:-", min_size=1, max_size=160)
                | st.text(alphabet="wWmM", min_size=20, max_size=60), min_size=1, max_size=4),
       st.lists(st.integers(0, 15), max_size=16), st.lists(st.integers(0, 15), max_size=16))
def test_any_explanation_is_paged_without_losing_a_word(findings, expected, observed):
    view = DiagnosisView("Check board", tuple(findings), ("Board is right", "Undo last drop"), expected=expected,
                         observed=observed, drop=3)
    p = panel((128, 64))
    pages = text_pages(view, p)
    assert _words(line for page in pages for line in page) == _words(T.displayable(x, p.body) for x in paragraphs(view))
    render(replace(view, page=page_count(view) - 1))


def test_lost_events_outside_a_drop_do_not_speak_of_this_drop():
    """The Not a drop screen said "lost events during this drop" beside
    "while no drop was falling"."""
    from coindrel.events import SwitchEvent
    from coindrel.reconcile.faults import EventsLost

    s = stray_view(report(drop=None, entry=None, events=[SwitchEvent(1.0, "R1S1", "R")],
                          diagnosis=[Finding(EventsLost(count=2), 1.0)]))
    assert "while no drop was falling" in s.facts[0]
    assert not any("this drop" in f for f in s.findings) and "lost events" in s.findings[0]


def test_a_stray_report_with_no_events_says_the_board_changed():
    """It said "Seen: the board, while no drop was falling"."""
    s = stray_view(report(drop=None, entry=None, events=[], diagnosis=[]))
    assert s.facts[0] == "The board changed while no drop was falling."
