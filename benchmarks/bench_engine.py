"""Rules-engine speed as ratios against a small table-driven reference engine,
measured in the same run.

The reference below is written for this benchmark: about thirty lines that
build their own transition table from the board's data file (nothing from
coindrel's engine) and run a drop with a stack, as anyone would write it. Both
engines get the same dense random boards (every pad side random, half the pads
holding a coin: long cascades). First the outcomes are checked identical (exits,
flips per switch, final board; whole matches turn by turn, with the standard
values and shuffled ones), then timing runs
alternate between the two, several rounds, and the figure is the median of the
per-round ratios. Times are this process's CPU time, so other work on a shared
machine counts less; only ratios are printed as results.

Shuffled matches (rules.md section 6: each round's values shuffled with the
match's seeded generator): a table-driven match engine must shuffle too, so the
reference draws rounds 2-4's values itself, with its own PCG32 and
Fisher-Yates (``pcg32_shuffle`` below, written out as plainly as ours is), from
the generator state our new match has after drawing round 1, exactly as each
side is handed a match ready to play. The values it draws are checked equal to
ours (the log's reveal lines) before any timing. Until this change it was
handed the values our match drew, so ours alone paid for the shuffle (about 6
µs a round, a tenth of a match's time); what the reference computes is
otherwise unchanged.

Run: ``python benchmarks/bench_engine.py`` (``--cases``, ``--rounds``, ``--repeat``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

from coindrel.engine import Match, MatchSetup, SwitchStuck, Variants, drop, predict, standard_geometry
from coindrel.engine.rounds import VALUES
from coindrel.engine.state import BoardState

BOARD_FILE = Path(__file__).resolve().parent.parent / "controller" / "coindrel" / "boards" / "standard.json"
TARGETS = (10, 40, 20, 80)
FLOOR = tuple((1 << 32) % n if n else 0 for n in range(64))  # a draw below n's floor is drawn again (no bias)


def pcg32_shuffle(items: list, state: int) -> int:
    """Fisher-Yates with PCG32 (O'Neill 2014; the match generator's algorithm,
    rules.md section 7): ``j`` uniform in ``0..i`` for ``i`` from the last index
    down, drawn without modulo bias. Shuffles ``items`` in place and returns the
    generator's state after."""
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        floor = FLOOR[n]
        while True:
            old = state
            state = (old * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
            x = ((old >> 18 ^ old) >> 27) & 0xFFFFFFFF
            rot = old >> 59
            r = (x >> rot | x << (-rot & 31)) & 0xFFFFFFFF
            if r >= floor:
                break
        j = r % n
        items[i], items[j] = items[j], items[i]
    return state


class Reference:
    """A straightforward table-driven engine: table[switch][code] = (new code, targets, flipped)."""

    def __init__(self, path: Path, stuck=()):
        data = json.loads(path.read_text(encoding="utf-8"))
        labels = [f"R{r + 1}S{j + 1}" for r, row in enumerate(data["rows"]) for j in range(len(row))]
        index = {label: i for i, label in enumerate(labels)}
        self.n = n = len(labels)
        self.hole = n + data["lanes"]

        def target(t: str) -> int:
            return n + int(t.split()[1]) - 1 if t.startswith("exit") else index[t]

        self.table = []
        for label, sw in zip(labels, (sw for row in data["rows"] for sw in row)):
            inlet, outs = "LR".index(sw["inlet"]), [target(t) for t in sw["out"]]
            cells = []
            for code in range(4):  # bit 0: pad on the right, bit 1: a coin on it
                pad, coin = code & 1, code & 2
                if pad == inlet and not coin:
                    cells.append((code | 2, (), 0))  # the empty pad catches the coin
                    continue
                lever = 1 - inlet if pad == inlet else inlet
                if label in stuck:
                    cells.append((code, (outs[lever],), 0))  # no flip: out on the lever side
                else:
                    cells.append((lever, (outs[lever], outs[1 - lever]) if coin else (outs[lever],), 1))
            cells.append((4, (self.hole,), 0))  # a hole swallows the coin
            self.table.append(cells)
        self.entries = [index[e] for e in data["entries"]]
        self.path, self.labels, self.tables = path, labels, {frozenset(stuck): self.table}
        self.last_faults, self.last_table = (), self.table
        # the text form (rules.md section 9): bit 0 pad right, bit 1 coin, 4 a hole
        self.letters = bytes(ord("LRlro"[b]) if b < 5 else ord("?") for b in range(256))
        bounds, at = [], 0
        for row in data["rows"]:
            bounds.append((at, at + len(row)))
            at += len(row)
        self.bounds = bounds

    def drop(self, codes, entries, table=None):
        """(sorted exits, flips per switch, codes after)."""
        n, hole, table = self.n, self.hole, table or self.table
        codes = bytearray(codes)
        flips, exits, stack = [0] * n, [], [self.entries[e] for e in entries]
        while stack:
            s = stack.pop()
            if s >= n:
                if s < hole:
                    exits.append(s - n)
                continue
            new, targets, flipped = table[s][codes[s]]
            codes[s] = new
            flips[s] += flipped
            stack.extend(targets)
        exits.sort()
        return exits, flips, codes

    def predict(self, codes, entries, stuck):
        """A drop as if the switches ``stuck`` (labels, a tuple) did not flip: the
        table for that fault set is looked up (built the first time), as ours is."""
        if stuck != self.last_faults:
            key = frozenset(stuck)
            if key not in self.tables:
                self.tables[key] = Reference(self.path, key).table
            self.last_faults, self.last_table = stuck, self.tables[key]
        return self.drop(codes, entries, self.last_table)

    def text(self, codes) -> str:
        letters = codes.translate(self.letters).decode("ascii")
        return "/".join([letters[a:b] for a, b in self.bounds])

    def match(self, codes, values, entries, rng=None):
        """Four rounds with targets and the last drop (rules.md 5-6), keeping what a
        match must keep per drop, as ours does: a log line with the board text
        (to replay it), an undo snapshot and a result. Returns the results,
        the log and the final board. ``values``: each round's; with ``rng`` (a
        PCG32 state) rounds 2-4's are shuffled from them here (shuffled exits)."""
        log, undo, turns = [], [], []
        totals, player, pick = [0, 0], 0, iter(entries)
        for rnd in range(4):
            scores, owed = [0, 0], None
            if rng is not None and rnd:
                values = list(values)
                values[rnd] = drawn = list(values[rnd])
                rng = pcg32_shuffle(drawn, rng)
            log.append({"do": "reveal", "round": rnd + 1, "values": list(values[rnd])})
            while True:
                entry = next(pick)
                undo.append((codes, rnd, list(scores), list(totals), player, owed))  # drop() never mutates codes
                exits, _, codes = self.drop(codes, [entry])
                points = sum(values[rnd][x] for x in exits)
                scores[player] += points
                totals[player] += points
                ends = owed is not None
                if not ends and scores[player] >= TARGETS[rnd]:
                    owed = 1 - player
                text = self.text(codes)
                log.append({"do": "drop", "t": None, "entry": entry, "exits": exits, "board": text})
                turns.append((player + 1, entry, rnd + 1, tuple(exits), points, tuple(scores), tuple(totals),
                              owed is not None and not ends, ends and rnd == 3, text))
                player = 1 - player
                if ends:
                    break
        return turns, log, codes


# -- cases ---------------------------------------------------------------------------


def dense_boards(count: int, seed: int) -> list[BoardState]:
    rnd, g, low2 = random.Random(seed), standard_geometry(), bytes(b & 3 for b in range(256))
    return [BoardState(g, rnd.randbytes(g.switch_count).translate(low2)) for _ in range(count)]


def drop_cases(boards, seed: int, coins) -> list:
    rnd = random.Random(seed)
    return [(b, b.codes, [rnd.randrange(8) for _ in range(rnd.choice(coins))]) for b in boards]


def match_cases(count: int, seed: int, shuffled: bool = False) -> list:
    """(setup, start board, entries, each round's values, generator state): what
    the reference is handed, as a new match of ours has it. Standard values: the
    rounds' tables; shuffled: round 1's as the new match drew them, then the
    tables of rounds 2-4 and the generator's state, for the reference to shuffle
    them itself."""
    rnd = random.Random(seed)
    out = []
    for k in range(count):
        setup = MatchSetup(seed=k, variants=Variants(shuffled=shuffled))
        m = Match(setup)
        start, entries = bytes(m.board.codes), [rnd.randrange(8) for _ in range(400)]
        values = (m.values,) + VALUES[1:] if shuffled else VALUES
        out.append((setup, start, entries, values, m.rng.getstate() if shuffled else None))
    return out


# -- checks ----------------------------------------------------------------------------


def check_drops(ref: Reference, cases, stuck=()) -> None:
    faults = [SwitchStuck(label) for label in stuck]
    for state, codes, entries in cases:
        o = predict(state, entries, faults).outcome if faults else drop(state, entries)
        exits, flips, after = ref.predict(codes, entries, stuck) if stuck else ref.drop(codes, entries)
        if (list(o.exits) != exits or list(o.flips) != flips or o.board.codes != after
                or list(o.exit_counts) != [exits.count(x) for x in range(16)] or list(o.flip_counts) != flips):
            raise SystemExit(f"outcomes differ on {state.text()} entries {entries}: {o} vs {(exits, flips, after)}")


def check_matches(ref: Reference, cases) -> None:
    for setup, codes, entries, values, rng in cases:
        m = Match(setup)
        pick = iter(entries)
        while not m.over:
            m.play(next(pick))
        turns, log, after = ref.match(codes, values, entries, rng)
        ours = [(r.player, r.entry, r.round, r.exits, r.points, r.round_scores, r.totals, r.last_drop, r.over, r.board)
                for r in m.results]
        our_log = [{k: a[k] for k in ("do", "t", "entry", "exits", "board")} for a in m.log if a["do"] == "drop"]
        ref_log = [a for a in log if a["do"] == "drop"]
        reveals = [[a for a in lines if a["do"] == "reveal"] for lines in (m.log, log)]
        if reveals[0] != reveals[1]:
            raise SystemExit(f"match {setup.seed}: the reference drew other values than ours")
        if ours != turns or m.board.codes != after or our_log != ref_log:
            raise SystemExit(f"match {setup.seed} differs from the reference")
        m.undo()
        if m.board.text() != turns[-2][-1] or m.totals != turns[-2][6]:
            raise SystemExit(f"match {setup.seed}: undo did not restore the match before its last drop")


# -- timing ----------------------------------------------------------------------------


def cpu(fn, batches) -> float:
    start = time.process_time()
    for cases in batches:
        fn(cases)
    return time.process_time() - start


def ratio(ref_fn, our_fn, cases, rounds: int, repeat: int, prepare=None):
    """Median, low and high of the per-round ratios (reference time / our time), and our µs per case.
    Each timed run goes ``repeat`` times over ``cases`` (a run of a few ms is at the mercy of one
    time slice on a loaded machine). ``prepare(cases)``, untimed, makes what ours starts from afresh
    each time (a new Match, as the reference is handed its start board)."""
    ratios, ours = [], []
    for k in range(rounds):
        pair = ((ref_fn, True), (our_fn, False)) if k % 2 == 0 else ((our_fn, False), (ref_fn, True))
        times = {}
        for fn, is_ref in pair:
            batches = [cases if is_ref or prepare is None else prepare(cases) for _ in range(repeat)]
            times[is_ref] = cpu(fn, batches)
        ratios.append(times[True] / times[False])
        ours.append(times[False] / (repeat * len(cases)) * 1e6)
    return statistics.median(ratios), min(ratios), max(ratios), statistics.median(ours)


def import_cost(runs: int = 21) -> tuple[float, float]:
    """CPU ms (user + system, least of ``runs``) of ``import coindrel.engine`` over a bare ``python -c pass``."""

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # byte code cached, as installed

    def least(code: str) -> float:
        spent = []
        for _ in range(runs):
            pid = os.posix_spawn(sys.executable, [sys.executable, "-c", code], env)
            _, _, usage = os.wait4(pid, 0)
            spent.append((usage.ru_utime + usage.ru_stime) * 1000)
        return min(spent)

    bare = least("pass")
    return least("import coindrel.engine") - bare, bare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000, help="drops checked identical (half single, half 2-4 coins)")
    ap.add_argument("--rounds", type=int, default=11, help="alternating timing rounds per figure")
    ap.add_argument("--timed", type=int, default=3000, help="drops per timing batch")
    ap.add_argument("--repeat", type=int, default=5, help="batches per timed run (matches: 20 per batch)")
    args = ap.parse_args()

    ref = Reference(BOARD_FILE)
    stuck_at = ("R3S4",)
    stuck = tuple(SwitchStuck(label) for label in stuck_at)  # a tuple made once, as the reference is handed
    half = args.cases // 2
    singles = drop_cases(dense_boards(half, 1), 2, (1,))
    multis = drop_cases(dense_boards(half, 3), 4, (2, 3, 4))
    matches = match_cases(60, 5)
    shuffled = match_cases(60, 6, shuffled=True)
    check_drops(ref, singles)
    check_drops(ref, multis)
    check_drops(ref, singles[: half // 5], stuck_at)
    check_matches(ref, matches)
    check_matches(ref, shuffled)

    def ref_drops(cases):
        d = ref.drop
        for _, codes, entries in cases:
            d(codes, entries)

    def our_drops(cases):  # drop() alone, nothing read (it makes the board and both counts; tuples when read)
        for state, _, entries in cases:
            drop(state, entries)

    def our_drops_read(cases):  # and what a caller uses: exit counts, flip counts, the board after
        for state, _, entries in cases:
            o = drop(state, entries)
            o.exit_counts, o.flip_counts, o.board

    def our_drops_tuples(cases):  # the tuple views instead: sorted exits, flips per switch
        for state, _, entries in cases:
            o = drop(state, entries)
            o.exits, o.flips, o.board

    def ref_asif(cases):
        d = ref.predict
        for _, codes, entries in cases:
            d(codes, entries, stuck_at)

    def our_asif(cases):
        for state, _, entries in cases:
            predict(state, entries, stuck).outcome

    def our_asif_read(cases):
        for state, _, entries in cases:
            o = predict(state, entries, stuck).outcome
            o.exit_counts, o.flip_counts, o.board

    def our_asif_tuples(cases):
        for state, _, entries in cases:
            o = predict(state, entries, stuck).outcome
            o.exits, o.flips, o.board

    def ref_matches(cases):
        for _, codes, entries, values, rng in cases:
            ref.match(codes, values, entries, rng)

    def new_matches(cases):  # untimed: the reference, too, is handed its start board
        return [(Match(setup), entries) for setup, _, entries, _, _ in cases]

    def our_matches(prepared):  # each match let go when played, as the reference's results are when it returns
        while prepared:
            m, entries = prepared.pop()
            pick = iter(entries)
            while not m.over:
                m.play(next(pick))

    timed, rounds = args.timed, args.rounds
    rows = [
        ("single-coin drops", ref_drops, (our_drops_read, our_drops_tuples, our_drops), singles[:timed]),
        ("2-4 coins together", ref_drops, (our_drops_read, our_drops_tuples, our_drops), multis[:timed]),
        ("as-if predictions (a stuck switch)", ref_asif, (our_asif_read, our_asif_tuples, our_asif), singles[:timed]),
        ("whole matches (about 70 drops each)", ref_matches, (our_matches,), matches[:20], new_matches),
        ("whole matches, shuffled values", ref_matches, (our_matches,), shuffled[:20], new_matches),
    ]
    print(f"Coindrel engine vs a table-driven reference — Python {platform.python_version()} on {platform.machine()}")
    print(f"  outcomes identical on {2 * half:,} drops, {half // 5:,} as-if predictions and {len(matches) + len(shuffled)} whole matches")
    print(f"  speed ratio = reference CPU time / ours: median of {rounds} alternating rounds of {args.repeat} batches (low-high)")
    print(f"  {'':38s} {'counts + board read':>21s} {'tuples + board read':>21s} {'the call alone':>21s}")
    for label, ref_fn, ours, cases, *prepare in rows:
        cells = []
        for fn in ours:
            med, lo, hi, us = ratio(ref_fn, fn, cases, rounds, args.repeat, *prepare)
            cells.append(f"{med:5.2f}x ({lo:.2f}-{hi:.2f})")
        print(f"  {label:38s} " + " ".join(f"{c:>21s}" for c in cells))
    print("  the reference returns sorted exits, flips per switch and the board; ours is read as exit and flip")
    print("  counts (bytes) and the board, or as tuples (sorted exits, flips) and the board, or not read at all.")
    print("  as-if: both look the fault set's tables up (built once) on every call.")
    print("  whole matches: both keep per drop a log line with the board text, an undo snapshot and a result;")
    print("  neither is timed making its match (the reference is handed the start board, ours a new Match).")
    print("  ours looks a drop's exits up from the exit patterns seen lately (a few dozen: one coin per drop), both")
    print("  add up the points per drop; shuffled: both draw rounds 2-4's values (PCG32, Fisher-Yates: rules.md")
    print("  section 6), from the generator state a new match of ours has; the values are checked equal.")
    extra, bare = import_cost()
    print(f"  import coindrel.engine: +{extra:.1f} ms CPU over a bare python -c pass ({bare:.1f} ms; least of 21 runs)")


if __name__ == "__main__":
    main()
