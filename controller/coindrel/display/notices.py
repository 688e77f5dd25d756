"""Notices built from the reconciler's reports: what a drop did against what
the engine expected, in words a player knows, and why.

Pure helpers, like ``from_match``: the flow builds its mismatch screen with
``mismatch_view``, a coin seen while no drop was falling with ``stray_view``,
and a later re-explanation of an earlier drop with ``revision_view``; the
sim's text output prints ``notice_text`` of the same views, so the panel and
the log never say different things. Reports are read by attribute (a
``reconcile.report.DropReport`` or anything shaped like one); numbers inside
are 0-based, the words 1-based.
"""

from __future__ import annotations

from ..engine.catalog import EVENTS_LOST
from .views import DiagnosisView

MISMATCH_OPTIONS = ("Board is right", "Correct score", "Undo last drop")
NOTICE_OPTIONS = ("OK",)


def _exits(exits) -> str:
    return " ".join(str(x + 1) for x in sorted(exits)) if exits else "none"


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def exit_fact(expected, observed) -> str | None:
    """"Exits: expected 1 2 3 4 5; seen 5." when the exits differ (as coins
    counted per exit: a coin counted twice is a difference), else None."""
    if expected is None or observed is None or sorted(expected) == sorted(observed):
        return None
    return f"Exits: expected {_exits(expected)}; seen {_exits(observed)}."


def flip_facts(expected: dict, observed: dict) -> list[str]:
    """Sentences for the switches whose flips differ from the prediction
    ("R3S2 should have flipped, but did not."; several alike in one); a
    switch whose flips no sensor could see (None) says nothing."""
    missed, extra, out = [], [], []
    for label in sorted(set(expected) | set(observed), key=_switch_order):
        want, got = expected.get(label, 0) or 0, observed.get(label, 0)
        if got is None or want == got:
            continue
        if got == 0 and want == 1:
            missed.append(label)
        elif want == 0 and got == 1:
            extra.append(label)
        elif got == 0:
            out.append(f"{label} should have flipped {_times(want)}, but did not.")
        elif want == 0:
            out.append(f"{label} flipped {_times(got)}; it should not have.")
        else:
            out.append(f"{label} flipped {_times(got)}; it should have flipped {_times(want)}.")
    if missed:
        out.insert(0, f"{_and(missed)} should have flipped, but did not.")
    if extra:
        out.insert(1 if missed else 0, f"{_and(extra)} flipped; {'it' if len(extra) == 1 else 'they'} should not have.")
    return out


def _and(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _switch_order(label: str):
    # "R3S2" -> (3, 2): rows top to bottom, then left to right, as on the board
    try:
        row, _, n = label[1:].partition("S")
        return (int(row), int(n), label)
    except ValueError:
        return (99, 99, label)


def drop_facts(report) -> list[str]:
    """What the board did against what the engine expected, one sentence each."""
    facts = []
    if getattr(report, "entry", None) is not None and not getattr(report, "entry_seen", True):
        facts.append(f"No coin seen going in; the exits say entry {report.entry + 1}.")
    fact = exit_fact(getattr(report, "expected_exits", None), getattr(report, "observed_exits", None))
    if fact:
        facts.append(fact)
    facts += flip_facts(dict(getattr(report, "expected_flips", {}) or {}), dict(getattr(report, "observed_flips", {}) or {}))
    lost = any(getattr(getattr(f, "fault", f), "name", None) == EVENTS_LOST for f in getattr(report, "diagnosis", ()) or ())
    if not facts and lost:
        # no sensor disagreed: some of what they said never reached the table
        facts.append(f"Exits as seen ({_exits(getattr(report, 'observed_exits', ()))}), but some sensor "
                     "readings never arrived.")
    elif not facts and getattr(report, "verdict", "ok") != "ok":
        # the exits and switches agree: a sensor said something else (a repeat, a late reading)
        facts.append(f"Exits as expected ({_exits(getattr(report, 'expected_exits', ()))}), but the sensors disagree.")
    return facts


def said(findings) -> tuple[str, ...]:
    """The sentences of a report's findings (Finding objects or plain text)."""
    return tuple(f.say if hasattr(f, "say") else str(f) for f in findings)


def mismatch_view(report, *, findings=None, facts: tuple[str, ...] = (), options=MISMATCH_OPTIONS) -> DiagnosisView:
    """The mismatch screen for a drop: ``facts`` (e.g. the clock's chosen
    entry) come before what the board did; ``findings`` default to the
    report's explanations, best first."""
    found = said(report.diagnosis if findings is None else findings)
    if not found and getattr(report, "verdict", "ok") != "ok":
        found = ("The board did something no known fault explains.",)
    return DiagnosisView(
        title="Check board", findings=found,
        options=tuple(options), expected=tuple(report.expected_exits), observed=tuple(report.observed_exits),
        drop=report.drop, facts=tuple(facts) + tuple(drop_facts(report)),
    )


def seen_text(ev) -> str:
    """An event as a player reads it: "exit 4", "entry 2", "R3S2 going L"."""
    kind = getattr(ev, "kind", "")
    if kind == "exit":
        return f"exit {ev.exit + 1}"
    if kind == "entry":
        return f"entry {ev.entry + 1}"
    if kind == "switch":
        return f"{ev.switch} going {ev.pos}"
    return kind or "the board"


# events_lost's sentence speaks of "this drop"; on the Not a drop screen no drop was falling
_LOST_OUTSIDE = "The hub link lost events, so what moved cannot be checked; the board's positions are read again once the hub answers."


def stray_view(report, facts: tuple[str, ...] = (), options=NOTICE_OPTIONS) -> DiagnosisView:
    """A coin (or a hand) while no drop was falling: what was seen, ``facts``
    (e.g. that the match is over), and why."""
    seen = [seen_text(e) for e in getattr(report, "events", ())]
    more = f" and {len(seen) - 4} more" if len(seen) > 4 else ""
    fact = (f"Seen: {', '.join(seen[:4])}{more}, while no drop was falling." if seen
            else "The board changed while no drop was falling.")
    found = tuple(_LOST_OUTSIDE if getattr(getattr(f, "fault", f), "name", None) == EVENTS_LOST else text
                  for f, text in zip(getattr(report, "diagnosis", ()), said(getattr(report, "diagnosis", ()))))
    found = found or ("A hand in the board, or a coin put in an exit.",)
    return DiagnosisView(title="Not a drop", findings=found, options=tuple(options), facts=(fact,) + tuple(facts))


def revision_view(revises: int, findings, options=NOTICE_OPTIONS, before: str | None = None) -> DiagnosisView:
    """A later drop re-explains an earlier mismatch (sensing.md, revisions):
    what the table said then (``before``), and the new explanation, on the
    same paged screen."""
    facts = (f"Earlier it said: {before}",) if before else ()
    return DiagnosisView(title=f"About drop {revises}", findings=said(findings) or ("The explanation changed.",),
                         options=tuple(options), facts=facts)


def paragraphs(view: DiagnosisView) -> list[str]:
    """The notice's words in reading order: what happened, then why (the
    best explanation first, the others after "Or:")."""
    facts = list(view.facts)
    if not facts:
        fact = exit_fact(view.expected, view.observed)
        facts = [fact] if fact else []
    out = list(facts)
    for i, f in enumerate(view.findings):
        out.append(("Likely: " if facts else "") + f if i == 0 else "Or: " + f)
    return out


def notice_text(view: DiagnosisView, head: str | None = None) -> str:
    """The whole notice as one block of plain text (for logs and the sim):
    ``head`` (default: the title as the panel shows it), then each paragraph."""
    if head is None:
        head = f"Drop {view.drop}: {view.title}" if view.drop is not None else view.title
    return "\n".join([head] + ["  " + p for p in paragraphs(view)])
