"""Standings from the results: played, won, drawn, lost, points and an Elo rating.

Ratings start at 1500 and move by K=32 times (score - expected) after each
counted result, in the order results reached the club. Abandoned and voided
results count for nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

START = 1500.0
K = 32.0


@dataclass
class Standing:
    player: str
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    points: int = 0  # coin points scored over all counted matches
    rating: float = START

    def to_json(self) -> dict:
        d = asdict(self)
        d["rating"] = round(self.rating)
        return d


def expected(ra: float, rb: float) -> float:
    return 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0))


def standings(results: list[dict]) -> list[Standing]:
    table: dict[str, Standing] = {}
    for r in results:
        if r.get("voided") or r.get("result", "finished") != "finished":
            continue
        (a, b), (sa, sb) = r["players"], r["totals"]
        if a == b:
            continue  # a match against oneself rates nothing
        pa, pb = table.setdefault(a, Standing(a)), table.setdefault(b, Standing(b))
        score_a = 1.0 if sa > sb else 0.0 if sa < sb else 0.5
        ea = expected(pa.rating, pb.rating)
        pa.rating, pb.rating = pa.rating + K * (score_a - ea), pb.rating + K * ((1 - score_a) - (1 - ea))
        for p, mine, theirs in ((pa, sa, sb), (pb, sb, sa)):
            p.played += 1
            p.points += mine
            if mine > theirs:
                p.won += 1
            elif mine < theirs:
                p.lost += 1
            else:
                p.drawn += 1
    return sorted(table.values(), key=lambda s: (-s.rating, -s.won, s.player))
