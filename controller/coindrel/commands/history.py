"""``coindrel history``: the matches this table has kept."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..config import Section, read_toml, DEFAULT_PATH
from ..engine import EngineError

HELP = "list finished matches, or show one match's turns"
DESCRIPTION = (
    "Without MATCH: every kept match, newest first (the match in progress on top). With MATCH (a match "
    "number such as 42, 'last' or 'current'): its turns, round by round. --json prints the same as JSON; "
    "--events prints the match's board events as an observation log for `coindrel reconcile`. "
    "Reads the state directory of [storage] in the configuration; never changes anything."
)


def add_arguments(parser) -> None:
    parser.add_argument("match", nargs="?", metavar="MATCH", help="match number, 'last' or 'current'")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--events", action="store_true", help="print MATCH's board events as an observation log (JSON Lines)")
    parser.add_argument("--limit", type=int, default=0, metavar="N", help="list only the newest N matches")
    parser.add_argument("--config", metavar="PATH", help=f"configuration file (default {DEFAULT_PATH})")
    parser.add_argument("--state-dir", metavar="DIR", help="read this state directory instead of [storage] state_dir")


def state_dir(args) -> Path:
    if args.state_dir:
        return Path(args.state_dir)
    from ..table.sections import parse_storage

    path = Path(args.config) if args.config else DEFAULT_PATH
    if args.config is None and not path.exists():
        return parse_storage(Section("storage", {}, "defaults")).state_dir
    data = read_toml(path)
    return parse_storage(Section("storage", data.get("storage"), str(path))).state_dir


def when(wall: float | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return time.strftime(fmt, time.localtime(wall)) if isinstance(wall, (int, float)) else "?"


def _outcome(s) -> str:
    if s.result == "unreadable":
        return f"unreadable: {s.problem}"
    if s.result == "in progress":
        if s.winner is not None:  # over; filed once the last drop's mismatch screen is answered at the table
            won = "a draw" if s.winner == "draw" else f"{s.winner_name} wins"
            return f"over ({won}), the last drop waits for an answer on the table"
        return f"in progress, round {s.round}"
    if s.result == "abandoned":
        return "abandoned" + (f" ({s.why})" if s.why else "")
    return "draw" if s.winner == "draw" else f"{s.winner_name} wins"


def _clock(seconds) -> str:
    if not seconds:
        return "no clock"
    return "Turbo (5 s)" if seconds == 5 else f"{seconds:g} s"


def print_list(summaries, out) -> None:
    if not summaries:
        out.write("No matches kept yet.\n")
        return
    rows = [("#", "started", "players", "score", "result", "variants", "turns")]
    for s in summaries:
        players = " v ".join(s.players) if s.players else "?"
        score = f"{s.totals[0]}-{s.totals[1]}" if s.result != "unreadable" else "-"
        variants = ", ".join(v.split()[0].lower() for v in s.variant_names) or "-"
        rows.append((str(s.number or "?"), when(s.started), players, score, _outcome(s), variants, str(s.turns)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out.write("  ".join(c.rjust(w) if i in (0, 3, 6) else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() + "\n")


def print_match(detail, out) -> None:
    s = detail.summary
    out.write(f"Match #{s.number if s.number is not None else '?'} ({s.id}): {s.result}\n")
    if s.result == "unreadable" and detail.contents.match is None and not detail.contents.records:
        out.write(f"File: {s.path}\nCannot read it: {s.problem}.\n"  # nothing in it to describe
                  "It is kept as it is: restore it from a backup, or move it out of the history.\n")
        return
    ended = f", ended {when(s.ended)}" if s.ended else ""
    variants = ", ".join(s.variant_names) or "none"
    out.write(f"Started {when(s.started)}{ended}; clock {_clock(s.clock)}; variants: {variants}; "
              f"board {s.board}; seed {s.seed}\n")
    if s.result == "unreadable":
        out.write(f"Cannot replay it: {s.problem}\n")
        return
    if len(s.players) == 2:
        out.write(f"{s.players[0]} {s.totals[0]}, {s.players[1]} {s.totals[1]}: {_outcome(s)}\n")
    for loss in detail.contents.losses:
        label = "Out of order" if loss.hole.moved else "Damaged"  # swapped lines lose nothing: no damage to fear
        out.write(f"{label}: {loss.hole.where()} ({loss.hole.reason}): {loss.said}\n")
    if s.rounds:
        out.write("Rounds: " + "   ".join(f"{k}: {a}-{b}" for k, (a, b) in enumerate(s.rounds, start=1)) + "\n")
    if s.problem:
        out.write(f"Note: {s.problem}\n")
    turns = detail.turns()
    out.write("\n")
    if not turns:
        out.write("No drops yet.\n")
    else:
        name_w = max(6, *(len(t["name"]) for t in turns))
        out.write(f"{'turn':>4}  {'time':8}  {'rnd':>3}  {'player':{name_w}}  {'entry':>5}  {'exits':18}  "
                  f"{'pts':>3}  {'round':>7}  {'total':>7}\n")
        owed = False
        for t in turns:
            exits = " ".join(str(x + 1) for x in t["exits"]) or "-"
            entry = f"{t['entry'] + 1}{'*' if t['forced_entry'] is not None else ' '}"
            other = s.players[2 - t["player"]] if len(s.players) == 2 else "the other player"
            flags = f"  target reached: last drop to {other}" if t["last_drop"] else (
                f"  last drop of round {t['round']}" if owed else "")
            owed = t["last_drop"]
            out.write(f"{t['turn']:>4}  {when(t['time'], '%H:%M:%S'):8}  {t['round']:>3}  {t['name']:{name_w}}  "
                      f"{entry:>5}  {exits:18}  {t['points']:>3}  {'%d-%d' % tuple(t['round_scores']):>7}  "
                      f"{'%d-%d' % tuple(t['totals']):>7}{flags}\n")
        if any(t["forced_entry"] is not None for t in turns):
            out.write("* the turn clock ran out and chose the entry\n")
    corrections = detail.corrections()
    verdicts = detail.contents.verdicts
    mismatches = [v for v in verdicts if isinstance(v, dict) and v.get("verdict") == "mismatch"]
    if verdicts:
        out.write(f"\nReconciler: {len(verdicts)} drops checked, {len(mismatches)} mismatch(es)\n")
    if corrections:
        out.write(f"Board corrections: {len(corrections)}\n")
        for c in corrections:
            out.write(f"  {c.get('board')}  {c.get('why') or ''}\n")


# The JSON is read by people and scripts alike: numbered as the text, the
# README and ``ctl status`` number them (turns, entries and exits from 1), the
# winner named ("draw", or null while nobody has won). The verdicts are
# sensing.md section 4 lines as journalled (1-based already).

def summary_json(s) -> dict:
    d = s.to_json()
    d["winner"] = s.winner_name or None
    return d


def turn_json(t: dict) -> dict:
    d = dict(t)
    d["entry"] = t["entry"] + 1
    d["exits"] = [x + 1 for x in t["exits"]]
    if t.get("forced_entry") is not None:
        d["forced_entry"] = t["forced_entry"] + 1
    return d


def run(args) -> int:
    from ..table.history import list_matches, load_match

    out = sys.stdout
    directory = state_dir(args)
    if args.events and not args.match:
        raise EngineError("--events needs a MATCH (a match number, 'last' or 'current')")
    if args.limit < 0:
        raise EngineError("--limit must be 0 (all) or more")
    try:
        if args.match:
            detail = load_match(directory, args.match)
            if args.events:
                for line in detail.observation_log():
                    out.write(line + "\n")
            elif args.json:
                json.dump({"summary": summary_json(detail.summary), "turns": [turn_json(t) for t in detail.turns()],
                           "corrections": detail.corrections(), "verdicts": detail.contents.verdicts,
                           "damaged": [loss.to_json() for loss in detail.contents.losses]}, out)
                out.write("\n")
            else:
                print_match(detail, out)
            return 0
        if not directory.is_dir():
            what = "is not a folder" if directory.exists() else "does not exist"
            raise EngineError(f"{directory} {what}: no matches have been kept there "
                              "(set [storage] state_dir or pass --state-dir)")
        from ..limits import made_up

        made = made_up(directory)
        if made:
            raise EngineError(f"{made}: no matches can be kept there (give the table's state directory, "
                              "e.g. /var/lib/coindrel)")
        summaries = list_matches(directory)
        if args.limit:
            summaries = summaries[: args.limit]
        if args.json:
            json.dump([summary_json(s) for s in summaries], out)
            out.write("\n")
        else:
            print_list(summaries, out)
    except PermissionError as e:
        raise EngineError(f"cannot read {e.filename or directory}: permission denied; run it as the daemon's user "
                          "(sudo -u coindrel coindrel history) or join its group (sudo usermod -aG coindrel $USER)") from None
    return 0
