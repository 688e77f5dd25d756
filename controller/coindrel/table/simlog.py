"""What a sim says in words: each mismatch (or coin outside any drop) with
its explanations, as the OLED shows them, and a summary when the sim ends.

``SimLog`` listens to the table's drop reports and watches its match; the
words come from the display's own notice builders (``mismatch_view``,
``stray_view``, ``notice_text``), so the log and the panel never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..display import mismatch_view, notice_text, stray_view


@dataclass
class SimLog:
    say: object = None  # callable(text) for each mismatch as it comes; None: collect only
    injected: tuple[str, ...] = ()  # the faults the virtual board was given, as typed
    mismatches: list = field(default_factory=list)  # (drop or None, text)
    named: dict = field(default_factory=dict)  # "fault at where" -> drops it was the best explanation of
    match: object = None  # the last match the table played
    matches: int = 0

    def report(self, report) -> None:
        """A drop report, as the table reconciled it."""
        if report.drop is not None and report.verdict == "ok":
            return
        view = stray_view(report) if report.drop is None else mismatch_view(report)
        text = notice_text(view)
        self.mismatches.append((report.drop, text))
        if report.diagnosis:
            best = report.diagnosis[0]
            fault = getattr(best, "fault", None)
            key = f"{fault.name} at {fault.where}" if fault is not None else str(getattr(best, "say", best))
            self.named.setdefault(key, []).append(report.drop)
        if self.say is not None:
            self.say(text)

    def watch(self, match) -> None:
        """The table's match now (None between matches): the last one is kept."""
        if match is not None and match is not self.match:
            self.match = match
            self.matches += 1

    def summary(self) -> str:
        """Result, mismatches and the faults named, as lines of text."""
        lines = ["Summary", "  Result: " + _result(self.match)]
        drops = [d for d, _ in self.mismatches if d is not None]
        stray = sum(1 for d, _ in self.mismatches if d is None)
        if not self.mismatches:
            lines.append("  Mismatches: none")
        else:
            where = f" (drop{'s' if len(drops) > 1 else ''} {', '.join(map(str, drops))})" if drops else ""
            extra = f"; {stray} event group{'s' if stray > 1 else ''} outside any drop" if stray else ""
            lines.append(f"  Mismatches: {len(drops)}{where}{extra}")
        if self.named:
            named = "; ".join(f"{k} ({_count(v)})" for k, v in sorted(self.named.items(), key=lambda kv: -len(kv[1])))
            lines.append(f"  Faults named: {named}")
        else:
            lines.append("  Faults named: none")
        lines.append(f"  Faults injected: {', '.join(self.injected) if self.injected else 'none'}")
        return "\n".join(lines)


def _count(drops) -> str:
    real = [d for d in drops if d is not None]
    n = len(drops)
    if real and len(real) == n:
        return f"drop{'s' if n > 1 else ''} {', '.join(map(str, real))}"
    return f"{n} time{'s' if n > 1 else ''}"


def _result(match) -> str:
    if match is None:
        return "no match was played"
    a, b = match.setup.players
    ta, tb = match.totals
    if not match.over:
        return f"not finished (round {match.round}): {a} {ta}, {b} {tb}"
    w = match.winner
    who = "a draw" if w == "draw" else f"{match.setup.players[w - 1]} wins"
    return f"{who}, {a} {ta} to {b} {tb}"
